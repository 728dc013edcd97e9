//! Counterexamples as pictures: `hilbert build --trace-svg DIR` draws every refuted theorem of
//! every example as an SVG chart (well-formed XML, with what the counterexample says), and
//! `--trace-format dot` as a Graphviz listing.

mod common;

use common::{TempDir, hilbert};

/// Every example's refuted theorems, by (network, name), from its JSON report.
fn refuted(example: &str, out: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["build", example, "--out", out, "--format", "json"];
    args.extend(extra);
    let run = hilbert(&args, None);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    json["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "refuted")
        .cloned()
        .collect()
}

fn stem(t: &serde_json::Value) -> String {
    format!(
        "{}.{}",
        t["network"].as_str().unwrap(),
        t["name"].as_str().unwrap()
    )
}

#[test]
fn every_refuted_example_gets_a_chart_that_parses_and_shows_its_path() {
    let tmp = TempDir::with_files(&[]);
    let mut charts = 0;
    let mut examples: Vec<_> = std::fs::read_dir("examples")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    examples.sort();
    for example in examples {
        let name = example.file_name().unwrap().to_string_lossy().into_owned();
        let dir = tmp.join(&name);
        let out = tmp.join(&format!("{name}-out"));
        let theorems = refuted(example.to_str().unwrap(), &out, &["--trace-svg", &dir]);
        let written: Vec<String> = std::fs::read_dir(&dir)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(written.len(), theorems.len(), "{name}: {written:?}");
        for t in &theorems {
            let path = format!("{dir}/{}.svg", stem(t));
            let text = std::fs::read_to_string(&path).expect(&path);
            let doc = roxmltree::Document::parse(&text)
                .unwrap_or_else(|e| panic!("{path} is not well-formed XML: {e}"));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            let texts: String = doc
                .descendants()
                .filter_map(|n| n.text())
                .collect::<Vec<_>>()
                .join("\n");
            // Every step's event is drawn, and the end of the path says what is wrong there.
            let cex = &t["counterexample"];
            for step in cex["steps"].as_array().unwrap() {
                let event = step["event"].as_str().unwrap();
                let shown: String = event.chars().take(27).collect();
                assert!(texts.contains(&shown), "{path}: no {event}");
            }
            let conclusion = cex["conclusion"].as_str().unwrap();
            let head: String = conclusion.chars().take(40).collect();
            assert!(texts.contains(&head), "{path}: no {conclusion}");
            if !cex["cycle_from"].is_null() {
                assert!(texts.contains("repeats forever"), "{path}");
            }
            charts += 1;
        }
    }
    // The examples refute something (a deadlock, a livelock, a tell, a release at least).
    assert!(charts >= 8, "{charts}");
}

#[test]
fn the_dot_listing_names_every_state_of_the_path() {
    let tmp = TempDir::with_files(&[]);
    let dir = tmp.join("dot");
    let theorems = refuted(
        "examples/livelock",
        &tmp.join("out"),
        &["--trace-svg", &dir, "--trace-format", "dot"],
    );
    assert_eq!(theorems.len(), 1);
    let text = std::fs::read_to_string(format!("{dir}/{}.dot", stem(&theorems[0]))).unwrap();
    let steps = theorems[0]["counterexample"]["steps"]
        .as_array()
        .unwrap()
        .len();
    assert!(text.starts_with("digraph "));
    for k in 0..steps {
        assert!(text.contains(&format!("s{k} -> s{}", k + 1)), "{text}");
    }
    // The livelock's lasso: an edge back to where it repeats.
    assert!(text.contains("[style=dashed, label=\"repeats\"]"), "{text}");
    // --trace-format alone is a usage error.
    let run = hilbert(
        &["build", "examples/livelock", "--trace-format", "dot"],
        None,
    );
    assert_eq!(run.code, Some(2));
}

/// The texts of the elements of class `class` in a chart.
fn texts_of(doc: &roxmltree::Document, class: &str) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.attribute("class") == Some(class))
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .map(|d| d.text().unwrap())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn a_deadlock_chart_has_a_lifeline_per_instance_and_says_who_waits_for_what() {
    // Issue 33: three philosophers were one `Dinner/Philosopher` lifeline, the deadlock a red
    // cross with no word of who waits for what.
    let tmp = TempDir::with_files(&[]);
    let example = "examples/dining-philosophers-symmetric";
    let theorems = refuted(
        example,
        &tmp.join("out"),
        &["--trace-svg", &tmp.join("svg")],
    );
    let deadlock = theorems
        .iter()
        .find(|t| t["name"] == "Dinner_no_deadlock")
        .unwrap();
    let blocked: Vec<&str> = deadlock["counterexample"]["blocked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    // The circular wait: every philosopher holds its first fork and waits for its second,
    // every fork waits to be put back.
    assert_eq!(blocked.len(), 6, "{blocked:?}");
    for k in 1..=3 {
        let second = ["take1", "take2", "take0"][k - 1];
        assert!(
            blocked.contains(&format!("Dinner/Philosopher#{k} waits to send on {second}").as_str()),
            "{blocked:?}"
        );
        let put = format!("Dinner/Fork#{k} waits to receive on put{}", k - 1);
        assert!(blocked.contains(&put.as_str()), "{blocked:?}");
    }
    let svg =
        std::fs::read_to_string(tmp.0.join("svg").join(format!("{}.svg", stem(deadlock)))).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    // One lifeline head per instance: three philosophers and three forks, each once.
    let heads: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("font-weight") == Some("bold"))
        .filter_map(|n| n.text())
        .filter(|t| t.starts_with("Dinner/"))
        .map(str::to_string)
        .collect();
    let mut sorted = heads.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 6, "{heads:?}");
    // A box under each blocked process's lifeline says what it waits for.
    let waits: Vec<(String, String)> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("waits"))
        .map(|n| {
            let text: Vec<&str> = n
                .descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect();
            (
                n.attribute("data-process").unwrap().to_string(),
                text.join(" "),
            )
        })
        .collect();
    assert_eq!(waits.len(), 6, "{waits:?}");
    for b in &blocked {
        let (who, what) = b.split_once(" waits to ").unwrap();
        assert!(
            waits
                .iter()
                .any(|(p, t)| p == who && t == &format!("waits to {what}")),
            "{who}: {waits:?}"
        );
    }
}

#[test]
fn chart_text_wraps_within_the_chart() {
    // Issue 33: the conclusion was cut at the right edge (`…not finished, withou`). Every line
    // of the statement and the conclusion fits the chart's width (at 7 pixels a character, the
    // width of the bold sans-serif used), and together they say all of the conclusion.
    let tmp = TempDir::with_files(&[]);
    let mut checked = 0;
    for example in [
        "examples/a-diverging-step-faults-its-thread",
        "examples/stop-handler-stuck",
        "examples/dining-philosophers-symmetric",
    ] {
        let dir = tmp.join(&example.replace('/', "-"));
        for t in refuted(example, &format!("{dir}/out"), &["--trace-svg", &dir]) {
            let svg = std::fs::read_to_string(format!("{dir}/{}.svg", stem(&t))).unwrap();
            let doc = roxmltree::Document::parse(&svg).unwrap();
            let width: f64 = doc
                .root_element()
                .attribute("width")
                .unwrap()
                .parse()
                .unwrap();
            let conclusion = texts_of(&doc, "conclusion");
            for line in conclusion.iter().chain(&texts_of(&doc, "statement")) {
                let used = 30.0 + 7.0 * line.chars().count() as f64;
                assert!(used <= width, "{line:?} is wider than {width}");
            }
            let whole = conclusion.join(" ");
            let said = format!("⇒ {}", t["counterexample"]["conclusion"].as_str().unwrap());
            assert_eq!(whole, said);
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked}");
}
