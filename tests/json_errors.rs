//! Under `--format json` every command writes exactly one JSON document on standard output on
//! every exit path (issue 16): on a usage or environment error (and when `run` refuses to run),
//! the error object of `docs/schema/error.schema.json`, with the exit code the human report
//! gives. And every `explain` page is valid JSON.

mod common;

use common::schema::validate;
use common::{CLEAN_AGENT, CLEAN_PLAN, TempDir, hilbert};
use serde_json::{Value, json};

fn error_schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/schema/error.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("read the schema"))
        .expect("the schema is JSON")
}

/// Runs `hilbert ARGS`, requires exit code `code` and exactly one JSON document on standard
/// output (a whole parse of it: nothing before or after but white space), and returns it.
fn one_document(args: &[&str], code: i32) -> Value {
    let run = hilbert(args, None);
    assert_eq!(
        run.code,
        Some(code),
        "hilbert {args:?}\nstdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "hilbert {args:?}: stdout is not one JSON document ({e}):\n{}\nstderr: {}",
            run.stdout, run.stderr
        )
    })
}

/// `hilbert ARGS` fails with `code` and the error object of `kind` (and `path`, when given).
fn assert_error(args: &[&str], code: i32, kind: &str, path: Option<&str>) {
    let doc = one_document(args, code);
    let errors = validate(&error_schema(), &doc);
    assert!(errors.is_empty(), "hilbert {args:?}: {errors:#?}\n{doc:#}");
    assert_eq!(
        doc["error"]["kind"],
        json!(kind),
        "hilbert {args:?}: {doc:#}"
    );
    assert!(!doc["error"]["message"].as_str().unwrap().is_empty());
    if let Some(path) = path {
        assert_eq!(
            doc["error"]["path"],
            json!(path),
            "hilbert {args:?}: {doc:#}"
        );
    }
    // Without --format json, the same error leaves standard output empty, as before.
    if code == 2 {
        let human: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| *a != "--format" && *a != "json" && *a != "--format=json")
            .collect();
        let run = hilbert(&human, None);
        assert_eq!(run.code, Some(code), "hilbert {human:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "hilbert {human:?}");
        assert!(
            run.stderr.starts_with("error: "),
            "hilbert {human:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn every_command_answers_a_usage_or_environment_error_in_json() {
    let dir = TempDir::with_files(&[
        ("regular.txt", b"not a directory"),
        ("notes.txt", b"not a source"),
        ("empty/README", b"no sources"),
        ("array.json", b"[]"),
        ("Operator.ha", CLEAN_AGENT.as_bytes()),
        ("Line.hk", CLEAN_PLAN.as_bytes()),
        ("bad/Bad.ha", b"agent A() : Agency {\n"),
        ("journal.jsonl", b"not a journal\n"),
    ]);
    let regular = dir.join("regular.txt");
    let notes = dir.join("notes.txt");
    let empty = dir.join("empty");
    let array = dir.join("array.json");
    let missing = dir.join("missing");
    let bad = dir.join("bad");
    let under_file = dir.join("regular.txt/sub");
    let pl = "examples/production-line";
    let out = dir.join("out");
    let cases: Vec<(Vec<&str>, i32, &str, Option<&str>)> = vec![
        // check
        (vec!["check", &missing], 2, "input", Some(&missing)),
        (vec!["check", &notes], 2, "input", Some(&notes)),
        (vec!["check", &empty], 2, "input", Some(&empty)),
        // build
        (
            vec!["build", pl, "--out", "/dev/null"],
            2,
            "output",
            Some("/dev/null"),
        ),
        (
            vec!["build", pl, "--out", &regular],
            2,
            "output",
            Some(&regular),
        ),
        (vec!["build", &missing], 2, "input", Some(&missing)),
        (
            vec!["build", pl, "--out", &out, "--param", "nosuch=1"],
            2,
            "usage",
            None,
        ),
        (
            vec!["build", pl, "--out", &out, "--emit-smt", &under_file],
            2,
            "output",
            None,
        ),
        (
            vec!["build", pl, "--out", &out, "--emit-values", &under_file],
            2,
            "output",
            None,
        ),
        // verify
        (vec!["verify", &missing], 2, "input", Some(&missing)),
        (vec!["verify", &notes], 1, "", None), // a report: the certificate is invalid
        // run
        (vec!["run", pl, "--agent", "Nobody"], 2, "usage", None),
        (
            vec!["run", &missing, "--agent", "Operator"],
            2,
            "input",
            Some(&missing),
        ),
        (
            vec!["run", pl, "--agent", "Operator", "--scenario", &missing],
            2,
            "input",
            Some(&missing),
        ),
        (
            vec!["run", pl, "--agent", "Operator", "--scenario", &array],
            2,
            "input",
            Some(&array),
        ),
        (
            vec!["run", pl, "--agent", "Operator", "--journal", &under_file],
            2,
            "output",
            Some(&under_file),
        ),
        (
            vec!["run", pl, "--agent", "Operator", "--watch", "alarm"],
            2,
            "usage",
            None,
        ),
        (
            vec!["run", pl, "--agent", "Operator", "--policy", "on-change"],
            2,
            "usage",
            None,
        ),
        (
            vec!["run", "examples/livelock", "--agent", "Doorway"],
            1,
            "not_admitted",
            None,
        ),
        (vec!["run", &bad, "--agent", "A"], 1, "check", None),
        // explain
        (vec!["explain", "HK9999"], 2, "usage", None),
        (vec!["explain", "18"], 2, "usage", None),
        (vec!["explain", "zz"], 2, "usage", None),
        // bench
        (vec!["bench", "no-such-thing"], 2, "usage", None),
        (vec!["bench", "--models", &missing], 2, "input", None),
        // clap's own usage errors, before the format is parsed: read from the words
        (vec!["check", "--bogus"], 2, "usage", None),
        (vec!["check", "--color", "purple"], 2, "usage", None),
        (vec!["build", pl, "--trace-format", "dot"], 2, "usage", None),
        (vec!["build", pl, "--max-states", "many"], 2, "usage", None),
        (vec!["verify"], 2, "usage", None),
        (vec!["run", pl], 2, "usage", None),
        (vec!["explain"], 2, "usage", None),
        (vec!["bench", "--jobs", "-1"], 2, "usage", None),
    ];
    for (args, code, kind, path) in cases {
        let mut args = args;
        args.extend(["--format", "json"]);
        if kind.is_empty() {
            one_document(&args, code);
        } else {
            assert_error(&args, code, kind, path);
        }
    }
    // `--format=json` and the flag before the subcommand's other words count too.
    assert_error(
        &["check", "--format=json", &missing],
        2,
        "input",
        Some(&missing),
    );
    assert_error(&["check", "--format=json", "--bogus"], 2, "usage", None);
    // A command without --format (replay) given one is a usage error, answered as asked.
    let doc = one_document(
        &["replay", &dir.join("journal.jsonl"), "--format", "json"],
        2,
    );
    assert_eq!(doc["error"]["kind"], json!("usage"));
    // Without a JSON format nothing is written on standard output.
    for args in [
        vec!["check", "--bogus"],
        vec!["check", "--bogus", "--format", "sarif"],
        vec!["check", "--bogus", "--", "--format", "json"],
    ] {
        let run = hilbert(&args, None);
        assert_eq!(run.code, Some(2), "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

#[test]
fn an_oversized_jobs_is_lowered_and_still_one_report() {
    let out = TempDir::with_files(&[]);
    let doc = one_document(
        &[
            "build",
            "examples/production-line",
            "--out",
            &out.path(),
            "--jobs",
            "99999999999",
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(doc["admitted"], json!(true));
}

#[test]
fn every_explain_page_is_valid_json() {
    let list = one_document(&["explain", "--list", "--format", "json"], 0);
    let list = list.as_array().expect("a list");
    assert!(list.len() > 100, "{}", list.len());
    for entry in list {
        let code = entry["code"].as_str().unwrap();
        for asked in [code.to_string(), code.to_lowercase()] {
            let page = one_document(&["explain", &asked, "--format", "json"], 0);
            assert_eq!(page["code"], json!(code));
            assert_eq!(page["severity"], entry["severity"], "{code}");
            assert_eq!(page["title"], entry["title"], "{code}");
            let markdown = page["markdown"].as_str().unwrap();
            assert!(markdown.contains(code), "{code}");
            // The JSON holds the very page the human format prints.
            let human = hilbert(&["explain", code], None);
            assert_eq!(human.stdout.trim_end(), markdown.trim_end(), "{code}");
        }
    }
}

#[test]
fn argv_scan_finds_json_as_clap_would() {
    // What the scan reads is tested through the binary above; here the one place where
    // the words and the parse could disagree: a value that happens to be `--format`.
    let run = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(run.code, Some(2));
    // Either nothing or one document: never a stray line.
    if !run.stdout.is_empty() {
        let _: Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    }
}
