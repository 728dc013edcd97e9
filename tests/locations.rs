//! Reports point at the right place (issue 33): a SARIF counterexample's steps at the send in
//! the `.hk` plan, each instance of a plan told apart, results with `partialFingerprints`, and
//! URIs relative to the root of the work tree whatever the current directory
//! (`originalUriBaseIds`); JUnit cases with `file` and `line`.

mod common;

use common::{TempDir, hilbert};
use serde_json::Value;
use std::path::Path;

const EXAMPLE: &str = "dining-philosophers-symmetric";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The 1-based line of the first line of `file` (under the example) that contains `text`.
fn line_of(file: &str, text: &str) -> u64 {
    let source = std::fs::read_to_string(root().join("examples").join(EXAMPLE).join(file)).unwrap();
    source
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("{text} not in {file}")) as u64
        + 1
}

fn sarif_from(dir: &Path, project: &str, out: &str) -> Value {
    let run = hilbert(
        &["build", project, "--out", out, "--format", "sarif"],
        Some(dir),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn sarif_steps_point_at_the_sends_and_results_carry_fingerprints_and_root_relative_uris() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    // Run from examples/: the paths given are relative to it, the URIs to the work tree's root.
    let log = sarif_from(&root().join("examples"), EXAMPLE, &out);
    let run = &log["runs"][0];
    let base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
        .as_str()
        .unwrap();
    assert_eq!(base, format!("file://{}/", root().display()));
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{results:#?}");
    let mut fingerprints = Vec::new();
    for r in results {
        assert_eq!(r["ruleId"], "theorem-refuted");
        let at = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(at["uriBaseId"], "SRCROOT");
        assert_eq!(
            at["uri"],
            format!("examples/{EXAMPLE}/Philosophers.ha"),
            "{at}"
        );
        fingerprints.push(r["partialFingerprints"]["hilbert/theorem/v1"].clone());
    }
    fingerprints.dedup();
    assert_eq!(
        fingerprints.len(),
        3,
        "one fingerprint per theorem: {fingerprints:?}"
    );
    // The deadlock: three philosophers each take their first fork, at the send of their plan.
    let deadlock = results
        .iter()
        .find(|r| r["properties"]["theorem"] == "Dinner_no_deadlock")
        .unwrap();
    let steps = deadlock["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    let send = line_of("Table.hk", "seat → take_first");
    let receive = line_of("Table.hk", "x ← take");
    for (k, step) in steps[..3].iter().enumerate() {
        let location = &step["location"];
        let text = location["message"]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!(
                "Dinner/Philosopher#{} → Dinner/Fork#{}",
                k + 1,
                k + 1
            )),
            "{text}"
        );
        assert!(text.contains(&format!("Table.hk:{receive})")), "{text}");
        let physical = &location["physicalLocation"];
        assert_eq!(
            physical["artifactLocation"]["uri"],
            format!("examples/{EXAMPLE}/Table.hk")
        );
        assert_eq!(physical["region"]["startLine"], send, "{step}");
    }
    // The conclusion is at the binding.
    let end = &steps[3]["location"]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(end, &format!("examples/{EXAMPLE}/Philosophers.ha"));
    // From the root, the same URIs and the same fingerprints.
    let again = sarif_from(root(), &format!("examples/{EXAMPLE}"), &out);
    let prints = |log: &Value| -> Vec<Value> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(prints(&again), prints(&log));
    assert_eq!(
        again["runs"][0]["results"][0]["locations"],
        log["runs"][0]["results"][0]["locations"]
    );
}

#[test]
fn junit_cases_carry_the_file_and_line_of_their_binding_or_file() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    let project = format!("examples/{EXAMPLE}");
    let run = hilbert(
        &["build", &project, "--out", &out, "--format", "junit"],
        None,
    );
    assert_eq!(run.code, Some(1));
    let doc = roxmltree::Document::parse(&run.stdout).unwrap();
    let binding = line_of("Philosophers.ha", "↦").to_string();
    let mut theorems = 0;
    for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let (file, line) = (case.attribute("file"), case.attribute("line"));
        if case.attribute("classname") == Some("check") {
            assert_eq!(file, case.attribute("name"));
            assert_eq!(line, Some("1"));
        } else {
            theorems += 1;
            assert_eq!(file, Some(format!("{project}/Philosophers.ha").as_str()));
            assert_eq!(line, Some(binding.as_str()), "{case:?}");
        }
    }
    // Three theorems and the frame obligation.
    assert_eq!(theorems, 4);
}
