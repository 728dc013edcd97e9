//! The SARIF logs of `hilbert check` and `hilbert build` are valid against the official SARIF
//! 2.1.0 schema (`tests/data/sarif-schema-2.1.0.json`, OASIS, the errata01 version), on real
//! output of the binary: diagnostics with related locations, files inside and outside the current
//! directory, every example's build (refuted theorems with their counterexamples as code flows,
//! unproved ones, admitted builds), and every test case's check. A log broken in the ways a
//! reader would trip on fails the same validation.

mod common;

use common::schema::validate;
use common::{CLEAN_AGENT, TempDir, hilbert};
use serde_json::{Value, json};

fn schema() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sarif-schema-2.1.0.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("read the SARIF schema"))
        .expect("the schema is JSON")
}

/// The log a run printed, after checking that it is valid against the schema.
fn valid_log(schema: &Value, what: &str, run: &common::Run) -> Value {
    let log: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}{}", run.stdout, run.stderr));
    let errors = validate(schema, &log);
    assert!(
        errors.is_empty(),
        "{what}: {} violations of the SARIF 2.1.0 schema:\n{errors:#?}\n{log:#}",
        errors.len()
    );
    log
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

/// The ids of a log's results.
fn rule_ids(log: &Value) -> Vec<&str> {
    results(log)
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect()
}

/// The directories under `dir` (relative to the repository), sorted.
fn directories(dir: &str) -> Vec<String> {
    let mut all: Vec<String> = std::fs::read_dir(format!("{}/{dir}", env!("CARGO_MANIFEST_DIR")))
        .expect("a directory")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
        .collect();
    all.sort();
    all
}

/// A project with errors of three languages: an unclosed agent (with secondary labels), a plan
/// of an unknown agent, and a values file that is not UTF-8; one file name needs
/// percent-encoding.
fn broken_project() -> TempDir {
    TempDir::with_files(&[
        (
            "Operator.ha",
            CLEAN_AGENT.trim_end().trim_end_matches('}').as_bytes(),
        ),
        (
            "plans/Línea 1.hk",
            b"plan Produce() : Operator = believe made(3)\n",
        ),
        ("Values.hb", b"-- caf\xe9\nvalues Operator { }\n"),
    ])
}

#[test]
fn a_failing_check_is_a_valid_log_inside_and_outside_the_current_directory() {
    let schema = schema();
    let dir = broken_project();
    // Inside the project: relative URIs.
    let run = hilbert(&["check", ".", "--format", "sarif"], Some(&dir.0));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let inside = valid_log(&schema, "check inside", &run);
    let ids = rule_ids(&inside);
    for code in ["HA0009", "HK0006", "HB0005"] {
        assert!(ids.contains(&code), "{code} missing from {ids:?}");
    }
    assert!(
        results(&inside).iter().any(|r| r["relatedLocations"]
            .as_array()
            .is_some_and(|l| !l.is_empty())),
        "no related locations"
    );
    let uris: Vec<&str> = results(&inside)
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(uris.contains(&"plans/L%C3%ADnea%201.hk"), "{uris:?}");
    // From the repository: the project is elsewhere, so its files are `file://` URIs.
    let run = hilbert(&["check", &dir.path(), "--format", "sarif"], None);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let outside = valid_log(&schema, "check outside", &run);
    assert!(
        results(&outside).iter().all(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .starts_with("file:///")
        }),
        "{outside:#}"
    );
}

#[test]
fn the_check_of_every_example_and_every_test_case_is_a_valid_log() {
    let schema = schema();
    let mut clean = 0;
    let mut failing = 0;
    for dir in directories("examples")
        .into_iter()
        .chain(directories("tests/cases"))
    {
        let run = hilbert(&["check", &dir, "--format", "sarif"], None);
        assert!(matches!(run.code, Some(0 | 1)), "{dir}: {}", run.stderr);
        let log = valid_log(&schema, &dir, &run);
        if run.code == Some(0) {
            clean += 1;
        } else {
            failing += 1;
            assert!(!results(&log).is_empty(), "{dir}: refused with no result");
        }
    }
    assert!(
        clean > 10 && failing > 30,
        "{clean} clean, {failing} failing"
    );
    // The clean example named in the docs: no result at all.
    let run = hilbert(
        &["check", "examples/production-line", "--format", "sarif"],
        None,
    );
    assert_eq!(run.code, Some(0));
    assert!(results(&valid_log(&schema, "production-line", &run)).is_empty());
}

#[test]
fn the_build_of_every_example_is_a_valid_log() {
    let schema = schema();
    let tmp = TempDir::with_files(&[]);
    let mut refuted = 0;
    let mut admitted = 0;
    for example in directories("examples") {
        let out = tmp.join(&example.replace('/', "-"));
        let run = hilbert(
            &["build", &example, "--out", &out, "--format", "sarif"],
            None,
        );
        assert!(matches!(run.code, Some(0 | 1)), "{example}: {}", run.stderr);
        let log = valid_log(&schema, &example, &run);
        let theorems: Vec<&Value> = results(&log)
            .iter()
            .filter(|r| r["ruleId"].as_str().unwrap().starts_with("theorem-"))
            .collect();
        if run.code == Some(0) {
            admitted += 1;
            assert!(theorems.is_empty(), "{example}: admitted with {theorems:?}");
        } else {
            assert!(!theorems.is_empty(), "{example}: refused with no theorem");
        }
        for t in theorems.iter().filter(|t| t["ruleId"] == "theorem-refuted") {
            refuted += 1;
            assert_eq!(t["level"], "error", "{example}");
            assert!(t["locations"][0]["physicalLocation"]["region"].is_object());
            let steps = t["codeFlows"][0]["threadFlows"][0]["locations"]
                .as_array()
                .unwrap_or_else(|| panic!("{example}: no code flow in {t:#}"));
            assert!(!steps.is_empty(), "{example}");
        }
    }
    // Every example's refuted theorem (eleven when this test was written) is a valid result.
    assert!(refuted >= 11, "{refuted} refuted theorems");
    assert!(admitted >= 5, "{admitted} admitted builds");
}

#[test]
fn unproved_and_stepless_theorems_are_valid_results() {
    let schema = schema();
    let tmp = TempDir::with_files(&[]);
    let build = |what: &str, extra: &[&str]| {
        let mut args = vec!["build", "--format", "sarif", "--out"];
        let out = tmp.join(&what.replace('/', "-"));
        args.push(&out);
        args.extend_from_slice(extra);
        let run = hilbert(&args, None);
        (run.code, valid_log(&schema, what, &run))
    };
    // A bound passed: every theorem unproved, exit code 2.
    let (code, log) = build("bound", &["examples/production-line", "--max-states", "3"]);
    assert_eq!(code, Some(2));
    assert!(rule_ids(&log).contains(&"theorem-unproved"), "{log:#}");
    // A parameter with no value.
    let (code, log) = build("no-param", &["examples/agent-parameters"]);
    assert_eq!(code, Some(1));
    assert!(rule_ids(&log).contains(&"theorem-unproved"), "{log:#}");
    // Host code.
    let (code, log) = build("host", &["tests/cases/warning-host-plan"]);
    assert_eq!(code, Some(1));
    assert!(rule_ids(&log).contains(&"theorem-unproved"), "{log:#}");
    // A deadlock in the scene's first state: a counterexample of no step.
    let (code, log) = build("stepless", &["tests/cases/two-agents-one-plan-name"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        rule_ids(&log),
        ["theorem-refuted", "theorem-refuted"],
        "{log:#}"
    );
}

#[test]
fn a_log_that_breaks_the_schema_is_refused() {
    let schema = schema();
    let tmp = TempDir::with_files(&[]);
    let run = hilbert(
        &[
            "build",
            "examples/livelock",
            "--out",
            &tmp.join("out"),
            "--format",
            "sarif",
        ],
        None,
    );
    let good = valid_log(&schema, "livelock", &run);
    let refuted = results(&good)
        .iter()
        .position(|r| r["ruleId"] == "theorem-refuted")
        .expect("a refuted theorem");
    let result = format!("/runs/0/results/{refuted}");
    let region = format!("{result}/locations/0/physicalLocation/region");

    type Mutation = Box<dyn Fn(&mut Value)>;
    // Sets (or adds) the value at a JSON pointer.
    let set = |pointer: String, v: Value| -> Mutation {
        Box::new(move |log: &mut Value| {
            let (parent, name) = pointer.rsplit_once('/').expect("a pointer");
            let parent = log
                .pointer_mut(parent)
                .unwrap_or_else(|| panic!("no {parent}"));
            match parent {
                Value::Object(o) => {
                    o.insert(name.to_string(), v.clone());
                }
                Value::Array(a) => a[name.parse::<usize>().expect("an index")] = v.clone(),
                _ => panic!("{pointer}: not in an object or an array"),
            }
        })
    };
    let remove = |pointer: &str, name: &'static str| -> Mutation {
        let pointer = pointer.to_string();
        Box::new(move |log: &mut Value| {
            log.pointer_mut(&pointer)
                .and_then(Value::as_object_mut)
                .unwrap_or_else(|| panic!("no {pointer}"))
                .remove(name)
                .unwrap_or_else(|| panic!("no {name} in {pointer}"));
        })
    };
    let mutations: Vec<(&str, Mutation)> = vec![
        ("missing version", remove("", "version")),
        ("another version", set("/version".into(), json!("2.0.0"))),
        ("missing runs", remove("", "runs")),
        (
            "level fatal",
            set(format!("{result}/level"), json!("fatal")),
        ),
        ("start line 0", set(format!("{region}/startLine"), json!(0))),
        (
            "column as text",
            set(format!("{region}/startColumn"), json!("1")),
        ),
        (
            "rule index -2",
            set(format!("{result}/ruleIndex"), json!(-2)),
        ),
        (
            "message without text",
            set(format!("{result}/message"), json!({})),
        ),
        (
            "unknown property",
            set(format!("{result}/severity"), json!("error")),
        ),
        (
            "empty thread flow",
            set(
                format!("{result}/codeFlows/0/threadFlows/0/locations"),
                json!([]),
            ),
        ),
        (
            "a URI with a space",
            set(
                format!("{result}/locations/0/physicalLocation/artifactLocation/uri"),
                json!("examples/a b.hk"),
            ),
        ),
        (
            "an informationUri without a scheme",
            set(
                "/runs/0/tool/driver/informationUri".into(),
                json!("github.com/hilbert-bdi/hilbert"),
            ),
        ),
        (
            "a rule twice",
            Box::new(|log: &mut Value| {
                let rules = log["runs"][0]["tool"]["driver"]["rules"]
                    .as_array_mut()
                    .unwrap();
                rules.push(rules[0].clone());
            }),
        ),
        (
            "a column kind SARIF does not know",
            set("/runs/0/columnKind".into(), json!("bytes")),
        ),
        (
            "a start time that is not a date-time",
            set(
                "/runs/0/invocations".into(),
                json!([{"executionSuccessful": true, "startTimeUtc": "2024-02-30T10:00:00Z"}]),
            ),
        ),
    ];
    for (what, mutate) in mutations {
        let mut bad = good.clone();
        mutate(&mut bad);
        assert!(!validate(&schema, &bad).is_empty(), "{what} was not caught");
    }
    // What SARIF allows and hilbert does not write is still valid: the check is not stricter
    // than the schema in these.
    let mut fine = good.clone();
    fine["runs"][0]["invocations"] =
        json!([{"executionSuccessful": true, "startTimeUtc": "2024-02-29T10:00:00.5+01:00"}]);
    fine["runs"][0]["language"] = json!("en-US");
    fine["runs"][0]["tool"]["driver"]["dottedQuadFileVersion"] = json!("0.1.0.0");
    let errors = validate(&schema, &fine);
    assert!(errors.is_empty(), "{errors:#?}");
}
