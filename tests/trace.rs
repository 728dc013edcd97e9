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
