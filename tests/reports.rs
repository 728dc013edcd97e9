//! One run writes every report (issue 33): `--report FORMAT=FILE` (repeatable) on `check`,
//! `build` and `verify` writes each report to its file beside the one on standard output, so a
//! pipeline's gate and its SARIF and JUnit reports come from one build.

mod common;

use common::{TempDir, hilbert};
use serde_json::Value;

const REFUTED: &str = "examples/livelock";

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// What a JSON build report says of each theorem, without times.
fn theorems(report: &Value) -> Vec<(String, String, String, String)> {
    report["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let f = |k: &str| t[k].to_string();
            (f("name"), f("status"), f("kernel"), f("counterexample"))
        })
        .collect()
}

/// A JUnit report's totals: tests, failures, errors.
fn junit_totals(xml: &str) -> (String, String, String) {
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let a = |k: &str| root.attribute(k).unwrap().to_string();
    (a("tests"), a("failures"), a("errors"))
}

#[test]
fn one_refused_build_writes_every_report_and_gives_the_gate() {
    let tmp = TempDir::with_files(&[]);
    let (out, report_json, sarif, junit, human) = (
        tmp.join("out"),
        tmp.join("hilbert.json"),
        tmp.join("hilbert.sarif"),
        tmp.join("hilbert-junit.xml"),
        tmp.join("hilbert.txt"),
    );
    let run = hilbert(
        &[
            "build",
            REFUTED,
            "--out",
            &out,
            "--color",
            "always",
            "--report",
            &format!("json={report_json}"),
            "--report",
            &format!("sarif={sarif}"),
            "--report",
            &format!("junit={junit}"),
            "--report",
            &format!("human={human}"),
        ],
        None,
    );
    // The gate: refused, exit code 1, the human report on standard output as without --report.
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.contains("not admitted"), "{}", run.stdout);
    // Each report is the one `--format` gives (run again, reusing the network).
    let alone = |format: &str| {
        let run = hilbert(&["build", REFUTED, "--out", &out, "--format", format], None);
        assert_eq!(run.code, Some(1));
        run.stdout
    };
    let written = json(&std::fs::read_to_string(&report_json).unwrap());
    assert_eq!(written["admitted"], false);
    assert_eq!(theorems(&written), theorems(&json(&alone("json"))));
    assert!(theorems(&written).iter().any(|t| t.1 == "\"refuted\""));
    let written = json(&std::fs::read_to_string(&sarif).unwrap());
    let results = |log: &Value| -> Vec<String> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["message"]["text"].to_string())
            .collect()
    };
    assert_eq!(results(&written), results(&json(&alone("sarif"))));
    assert!(!results(&written).is_empty());
    let written = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(junit_totals(&written), junit_totals(&alone("junit")));
    assert_ne!(junit_totals(&written).1, "0");
    // A file gets no colour, whatever --color says for the terminal.
    let written = std::fs::read_to_string(&human).unwrap();
    assert!(written.contains("not admitted"), "{written}");
    assert!(!written.contains('\u{1b}'), "{written:?}");
}

#[test]
fn check_and_verify_write_reports_too() {
    let tmp = TempDir::with_files(&[]);
    let (out, a, b, c) = (
        tmp.join("out"),
        tmp.join("check.xml"),
        tmp.join("check.sarif"),
        tmp.join("verify.xml"),
    );
    let run = hilbert(
        &[
            "check",
            REFUTED,
            "--report",
            &format!("junit={a}"),
            "--report",
            &format!("sarif={b}"),
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(junit_totals(&std::fs::read_to_string(&a).unwrap()).0, "2");
    assert_eq!(
        json(&std::fs::read_to_string(&b).unwrap())["version"],
        "2.1.0"
    );
    assert_eq!(
        hilbert(&["build", REFUTED, "--out", &out], None).code,
        Some(1)
    );
    let cert = format!("{out}/Doorway.Pass.cert");
    let run = hilbert(
        &[
            "verify",
            &cert,
            "--sources",
            REFUTED,
            "--format",
            "json",
            "--report",
            &format!("junit={c}"),
        ],
        None,
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(json(&run.stdout)["admitted"], false);
    let (tests, failures, _) = junit_totals(&std::fs::read_to_string(&c).unwrap());
    assert!(tests.parse::<u32>().unwrap() >= 3, "{tests}");
    assert_ne!(failures, "0");
    // --dump writes no report.
    let run = hilbert(
        &["verify", &cert, "--dump", "--report", &format!("json={c}")],
        None,
    );
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("--dump"), "{}", run.stderr);
}

#[test]
fn a_report_flag_that_cannot_be_honoured_is_a_clear_error() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    let file = tmp.join("r.json");
    // No `=`, or a format the command does not write: clap's usage error, exit code 2, naming
    // the formats.
    for (word, said) in [
        (file.clone(), "expected FORMAT=FILE"),
        (format!("xml={file}"), "`xml` is not a report format"),
        ("json=".to_string(), "an empty path"),
    ] {
        let run = hilbert(&["build", REFUTED, "--out", &out, "--report", &word], None);
        assert_eq!(run.code, Some(2), "{word}");
        assert!(run.stderr.contains(said), "{word}: {}", run.stderr);
    }
    let run = hilbert(&["verify", "x.cert", "--report", "sarif=x.sarif"], None);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("json, junit"), "{}", run.stderr);
    // Two reports to one file: refused before anything is built.
    let run = hilbert(
        &[
            "build",
            REFUTED,
            "--out",
            &out,
            "--report",
            &format!("json={file}"),
            "--report",
            &format!("junit={}/./r.json", tmp.path()),
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("two --report flags name the file"),
        "{}",
        run.stderr
    );
    assert_eq!(json(&run.stdout)["error"]["kind"], "usage");
    assert!(!std::path::Path::new(&out).exists());
    // A file that cannot be written: an environment error naming it, and no torn file.
    let missing = tmp.join("no/such/dir/r.json");
    let run = hilbert(
        &[
            "build",
            REFUTED,
            "--out",
            &out,
            "--format",
            "json",
            "--report",
            &format!("sarif={missing}"),
        ],
        None,
    );
    assert_eq!(run.code, Some(2));
    let error = json(&run.stdout);
    assert_eq!(error["error"]["kind"], "output");
    assert_eq!(error["error"]["path"], missing.as_str());
    assert!(
        run.stderr.contains("cannot write the report"),
        "{}",
        run.stderr
    );
}
