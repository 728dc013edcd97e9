//! `--format junit`: every example's build report, and the `verify --sources` report of its
//! certificates, is valid against the JUnit schema (`tests/data/junit.xsd`, checked by xmllint)
//! and parses with a real XML parser (roxmltree), with a suite per network, a case per theorem
//! and frame obligation, and each case's outcome the kernel's word; the exit codes are those of
//! the other formats.
//!
//! Two parsers on purpose: xmllint validates against the XSD (no Rust crate in the tree does
//! that), and roxmltree, a strict XML 1.0 parser already a dev-dependency for the SVG charts,
//! reads the report back here so that the test can compare it with the JSON report. xmllint is
//! installed by `scripts/setup`; without it these tests fail, they do not skip.

mod common;

use common::{TempDir, hilbert};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const XSD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/junit.xsd");

/// Validates `xml` against the JUnit schema with xmllint; fails the test, naming `what`, when it
/// is not valid or xmllint cannot be run.
fn assert_valid(xml: &str, what: &str) {
    let mut child = Command::new("xmllint")
        .args(["--noout", "--nonet", "--schema", XSD, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run xmllint ({e}): it validates the JUnit reports; ./scripts/setup installs it (Debian: libxml2-utils)")
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what}: not valid against {XSD}:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A `<testcase>` as read back.
#[derive(Debug)]
struct Case {
    name: String,
    classname: String,
    time: f64,
    /// `failure` or `error` with its type, message and text; `None` when it passed.
    outcome: Option<(String, String, String, String)>,
    system_out: Option<String>,
}

/// A `<testsuite>` as read back.
#[derive(Debug)]
struct Suite {
    name: String,
    time: f64,
    properties: Vec<(String, String)>,
    cases: Vec<Case>,
}

/// The child elements of `n` named `tag`.
fn elements<'a, 'i>(n: roxmltree::Node<'a, 'i>, tag: &str) -> Vec<roxmltree::Node<'a, 'i>> {
    n.children()
        .filter(|c| c.is_element() && c.tag_name().name() == tag)
        .collect()
}

/// Parses a report with roxmltree and checks that every count it states is the count of its
/// cases, at each suite and in the totals, and that each suite's time is its cases' times added
/// up (to the millisecond of each).
fn parse(xml: &str, what: &str) -> Vec<Suite> {
    let doc = roxmltree::Document::parse(xml)
        .unwrap_or_else(|e| panic!("{what}: not well-formed XML: {e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites", "{what}");
    let number = |n: roxmltree::Node, a: &str| -> usize {
        n.attribute(a)
            .unwrap_or_else(|| panic!("{what}: no {a}"))
            .parse()
            .unwrap()
    };
    let seconds = |n: roxmltree::Node| -> f64 { n.attribute("time").unwrap().parse().unwrap() };
    let text = |n: roxmltree::Node| n.text().unwrap_or("").to_string();
    let mut suites = Vec::new();
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for s in elements(root, "testsuite") {
        let cases: Vec<Case> = elements(s, "testcase")
            .into_iter()
            .map(|c| {
                let outcomes: Vec<_> = c
                    .children()
                    .filter(|o| {
                        o.is_element() && ["failure", "error"].contains(&o.tag_name().name())
                    })
                    .collect();
                assert!(outcomes.len() <= 1, "{what}: {outcomes:?}");
                Case {
                    name: c.attribute("name").unwrap().to_string(),
                    classname: c.attribute("classname").unwrap().to_string(),
                    time: seconds(c),
                    outcome: outcomes.first().map(|o| {
                        (
                            o.tag_name().name().to_string(),
                            o.attribute("type").unwrap().to_string(),
                            o.attribute("message").unwrap().to_string(),
                            text(*o),
                        )
                    }),
                    system_out: elements(c, "system-out").first().map(|o| text(*o)),
                }
            })
            .collect();
        let count = |tag: &str| {
            cases
                .iter()
                .filter(|c| c.outcome.as_ref().is_some_and(|o| o.0 == tag))
                .count()
        };
        let name = s.attribute("name").unwrap().to_string();
        assert_eq!(number(s, "tests"), cases.len(), "{what}: {name}");
        assert_eq!(number(s, "failures"), count("failure"), "{what}: {name}");
        assert_eq!(number(s, "errors"), count("error"), "{what}: {name}");
        assert_eq!(number(s, "skipped"), 0, "{what}: {name}");
        let time = seconds(s);
        let sum: f64 = cases.iter().map(|c| c.time).sum();
        assert!(
            (time - sum).abs() <= 0.001 * (cases.len() + 1) as f64,
            "{what}: {name} takes {time} s, its cases {sum} s"
        );
        tests += cases.len();
        failures += count("failure");
        errors += count("error");
        suites.push(Suite {
            name,
            time,
            properties: elements(s, "properties")
                .iter()
                .flat_map(|p| elements(*p, "property"))
                .map(|p| {
                    (
                        p.attribute("name").unwrap().to_string(),
                        p.attribute("value").unwrap().to_string(),
                    )
                })
                .collect(),
            cases,
        });
    }
    assert_eq!(number(root, "tests"), tests, "{what}");
    assert_eq!(number(root, "failures"), failures, "{what}");
    assert_eq!(number(root, "errors"), errors, "{what}");
    let total = seconds(root);
    assert!(
        suites.iter().map(|s| s.time).sum::<f64>() <= total + 0.001 * (suites.len() + 1) as f64,
        "{what}: the suites take longer than the run"
    );
    suites
}

fn examples() -> Vec<String> {
    let mut dirs: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("expected.toml").exists())
            .map(|p| format!("examples/{}", p.file_name().unwrap().to_string_lossy()))
            .collect();
    dirs.sort();
    assert!(dirs.len() >= 10, "{dirs:?}");
    dirs
}

#[test]
fn every_example_builds_to_a_valid_junit_report_that_says_what_the_json_report_says() {
    let tmp = TempDir::with_files(&[]);
    let mut refuted = 0;
    for example in examples() {
        let out = tmp.join(&example.replace('/', "-"));
        let build = |format: &str| {
            hilbert(
                &["build", &example, "--out", &out, "--format", format],
                None,
            )
        };
        let json = build("json");
        let report: Value = serde_json::from_str(&json.stdout).expect(&json.stderr);
        let human = build("human");
        let run = build("junit");
        assert_eq!(
            run.code, json.code,
            "{example}: the exit code depends on the format"
        );
        assert_valid(&run.stdout, &example);
        let suites = parse(&run.stdout, &example);

        // The check: a case per source file, passing (the examples check cleanly).
        assert_eq!(suites[0].name, "check", "{example}");
        let inputs: Vec<&str> = report["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["path"].as_str().unwrap())
            .collect();
        let files: Vec<&str> = suites[0].cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(files, inputs, "{example}");
        assert!(
            suites[0].cases.iter().all(|c| c.outcome.is_none()),
            "{example}"
        );

        // A suite per network, a case per theorem, then its frame, with the kernel's word.
        let networks = &suites[1..];
        let frames = report["frames"].as_array().unwrap();
        assert_eq!(networks.len(), frames.len(), "{example}");
        for (suite, frame) in networks.iter().zip(frames) {
            let network = frame["network"].as_str().unwrap();
            assert_eq!(suite.name, network, "{example}");
            assert!(
                suite.properties.contains(&(
                    "certificate".into(),
                    frame["certificate"].as_str().unwrap().into()
                )),
                "{example}: {:?}",
                suite.properties
            );
            let theorems: Vec<&Value> = report["theorems"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t["network"] == network)
                .collect();
            assert_eq!(
                suite.cases.len(),
                theorems.len() + 1,
                "{example}: {network}"
            );
            for (case, t) in suite.cases.iter().zip(&theorems) {
                assert_eq!(case.name, t["name"].as_str().unwrap(), "{example}");
                assert_eq!(case.classname, network, "{example}");
                let want = match (t["status"].as_str().unwrap(), t["kernel"].as_str().unwrap()) {
                    (_, "admitted") => None,
                    ("refuted", _) => Some(("failure", "refuted")),
                    ("unproved", _) => Some(("error", "unproved")),
                    _ => Some(("failure", "refused")),
                };
                let got = case.outcome.as_ref().map(|o| (o.0.as_str(), o.1.as_str()));
                assert_eq!(got, want, "{example}: {}", case.name);
                match &case.outcome {
                    None => {
                        let out = case.system_out.as_deref().unwrap_or("");
                        assert!(out.contains(t["statement"].as_str().unwrap()), "{out}");
                    }
                    Some((_, kind, message, text)) => {
                        // The text is the human report's, word for word.
                        assert!(human.stdout.contains(text.as_str()), "{example}: {text}");
                        if kind == "refuted" {
                            refuted += 1;
                            let cex = &t["counterexample"];
                            // The message: what is wrong at the end, then every step (issue
                            // 33: a dashboard that shows only messages tells the whole story).
                            assert!(
                                message.starts_with(cex["conclusion"].as_str().unwrap()),
                                "{message}"
                            );
                            assert!(text.contains("counterexample, from the scene:"), "{text}");
                            for (k, step) in cex["steps"].as_array().unwrap().iter().enumerate() {
                                assert!(text.contains(step["event"].as_str().unwrap()), "{text}");
                                let shown = format!(
                                    "{}: {}",
                                    step["process"].as_str().unwrap(),
                                    step["event"].as_str().unwrap()
                                );
                                assert!(
                                    message.contains(&format!("{}. ", k + 1))
                                        && message.contains(&shown),
                                    "{message}"
                                );
                            }
                        }
                    }
                }
            }
            let case = suite.cases.last().unwrap();
            assert_eq!(
                case.name,
                frame["obligation"].as_str().unwrap(),
                "{example}"
            );
            assert_eq!(
                case.outcome.is_none(),
                frame["kernel"] == "admitted",
                "{example}: {case:?}"
            );
        }
        let failing = suites
            .iter()
            .flat_map(|s| &s.cases)
            .any(|c| c.outcome.is_some());
        assert_eq!(failing, run.code != Some(0), "{example}: {}", run.stdout);
    }
    assert!(
        refuted >= 10,
        "only {refuted} refuted theorems among the examples"
    );
}

#[test]
fn every_examples_certificates_verify_to_a_valid_junit_report() {
    let tmp = TempDir::with_files(&[]);
    for example in examples() {
        let out = tmp.join(&example.replace('/', "-"));
        let built = hilbert(&["build", &example, "--out", &out], None);
        assert!(matches!(built.code, Some(0 | 1)), "{}", built.stderr);
        let mut certs: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path().display().to_string())
            .filter(|p| p.ends_with(".cert"))
            .collect();
        certs.sort();
        let verify = |format: &str| {
            let mut args = vec!["verify"];
            args.extend(certs.iter().map(String::as_str));
            args.extend(["--sources", &example, "--format", format]);
            hilbert(&args, None)
        };
        let json = verify("json");
        let report: Value = serde_json::from_str(&json.stdout).expect(&json.stderr);
        let run = verify("junit");
        assert_eq!(run.code, json.code, "{example}");
        assert_eq!(run.code, built.code, "{example}: verify and build disagree");
        assert_valid(&run.stdout, &example);
        let suites = parse(&run.stdout, &example);
        let certificates = report["certificates"].as_array().unwrap();
        assert_eq!(suites.len(), certificates.len() + 1, "{example}");
        for (suite, c) in suites.iter().zip(certificates) {
            assert_eq!(suite.name, c["network"].as_str().unwrap(), "{example}");
            // Its path, then each agent parameter of its IR with the value it was built with.
            let mut properties = vec![(
                "certificate".to_string(),
                c["path"].as_str().unwrap().to_string(),
            )];
            for p in c["params"].as_array().unwrap() {
                let value = match &p["value"] {
                    Value::Null => "no value".to_string(),
                    Value::String(s) => format!("{s:?}"),
                    v => v.to_string(),
                };
                properties.push((
                    format!("param {}.{}", p["agent"], p["name"]).replace('"', ""),
                    value,
                ));
            }
            assert_eq!(suite.properties, properties, "{example}");
            let obligations = c["obligations"].as_array().unwrap();
            assert_eq!(suite.cases.len(), obligations.len(), "{example}");
            for (case, o) in suite.cases.iter().zip(obligations) {
                assert_eq!(case.name, o["name"].as_str().unwrap());
                match o["verdict"].as_str().unwrap() {
                    "proved" => assert!(case.outcome.is_none(), "{case:?}"),
                    _ => {
                        let (tag, kind, message, text) = case.outcome.as_ref().unwrap();
                        assert_eq!(tag, "failure");
                        assert_eq!(kind, o["rule"].as_str().unwrap());
                        assert!(message.contains(o["reason"].as_str().unwrap()), "{message}");
                        if let Some(state) = o["state"].as_str() {
                            assert!(text.contains(state), "{text}");
                        }
                    }
                }
            }
        }
        let coverage = suites.last().unwrap();
        assert_eq!(coverage.name, "sources");
        assert_eq!(coverage.cases.len(), 1);
        assert_eq!(
            coverage.cases[0].outcome.is_none(),
            report["coverage"]["admitted"] == true,
            "{example}"
        );
    }
}

#[test]
fn a_network_the_certificates_do_not_cover_is_a_failing_case_of_its_own() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    let built = hilbert(&["build", "examples/production-line", "--out", &out], None);
    assert_eq!(built.code, Some(0), "{}", built.stdout);
    // Only one of the two networks' certificates.
    let cert = format!("{out}/Operator.Work.cert");
    let run = hilbert(
        &[
            "verify",
            &cert,
            "--sources",
            "examples/production-line",
            "--format",
            "junit",
        ],
        None,
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_valid(&run.stdout, "uncovered");
    let suites = parse(&run.stdout, "uncovered");
    assert_eq!(suites.len(), 2);
    assert!(suites[0].cases.iter().all(|c| c.outcome.is_none()));
    let case = &suites[1].cases[0];
    assert_eq!(
        (suites[1].name.as_str(), case.name.as_str()),
        ("sources", "coverage")
    );
    let (tag, kind, message, text) = case.outcome.as_ref().unwrap();
    assert_eq!((tag.as_str(), kind.as_str()), ("failure", "coverage"));
    assert!(message.contains("Operator.Stop"), "{message}");
    assert!(text.contains("Operator.Stop"), "{text}");

    // Without --sources there is nothing to cover, and no such suite.
    let run = hilbert(&["verify", &cert, "--format", "junit"], None);
    assert_eq!(run.code, Some(0));
    assert_valid(&run.stdout, "alone");
    assert!(
        parse(&run.stdout, "alone")
            .iter()
            .all(|s| s.name != "sources")
    );
}

#[test]
fn a_project_with_errors_fails_its_files_and_names_escape_cleanly() {
    // A directory whose name has markup, quotes and a control character (which XML 1.0 forbids
    // even as a reference): the report names the files, so it must escape and replace them.
    let dir = TempDir::with_files(&[
        (
            "we <&> \"them\" \u{1}/Operator.ha",
            common::CLEAN_AGENT.as_bytes(),
        ),
        (
            "we <&> \"them\" \u{1}/Line.hk",
            b"plan Produce() : Operator = believe made(3)\n",
        ),
    ]);
    for command in ["check", "build"] {
        let out = dir.join("out");
        let mut args = vec![command, ".", "--format", "junit"];
        if command == "build" {
            args.extend(["--out", &out]);
        }
        let run = hilbert(&args, Some(&dir.0));
        assert_eq!(run.code, Some(1), "{command}: {}", run.stderr);
        assert_valid(&run.stdout, command);
        let suites = parse(&run.stdout, command);
        // No network is proved: the check's suite alone, and it fails.
        assert_eq!(suites.len(), 1, "{command}");
        let names: Vec<&str> = suites[0].cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "./we <&> \"them\" \u{2401}/Line.hk",
                "./we <&> \"them\" \u{2401}/Operator.ha"
            ]
        );
        let (tag, kind, message, text) = suites[0].cases[0].outcome.as_ref().unwrap();
        assert_eq!((tag.as_str(), kind.as_str()), ("failure", "error"));
        assert!(message.starts_with("1 error: error[HK0006]"), "{message}");
        assert!(
            text.contains("error[HK0006]") && text.contains("^"),
            "{text}"
        );
        assert!(suites[0].cases[1].outcome.is_none());
    }
}

#[test]
fn warnings_pass_unless_denied() {
    // The build warns HK0070 (at Operator.ha) about an impossible condition with no release
    // theorem. Each build into a fresh --out.
    let tmp = TempDir::with_files(&[]);
    for (deny, code, failing) in [(false, Some(0), false), (true, Some(1), true)] {
        let out = tmp.join(&format!("out-{deny}"));
        let mut args = vec![
            "build",
            "tests/data/warns-when-proved",
            "--out",
            &out,
            "--format",
            "junit",
        ];
        if deny {
            args.push("--deny-warnings");
        }
        let run = hilbert(&args, None);
        assert_eq!(run.code, code);
        assert_valid(&run.stdout, "warnings");
        let suites = parse(&run.stdout, "warnings");
        let warned = suites[0]
            .cases
            .iter()
            .find(|c| c.name.ends_with("Operator.ha"))
            .unwrap();
        assert_eq!(warned.outcome.is_some(), failing, "{warned:?}");
        let text = match &warned.outcome {
            Some((_, kind, _, text)) => {
                assert_eq!(kind, "warning");
                text
            }
            None => warned.system_out.as_ref().unwrap(),
        };
        assert!(text.contains("warning[HK0070]"), "{text}");
    }
}

#[test]
fn an_unproved_theorem_is_an_error_and_a_bound_still_exits_2() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    let run = hilbert(
        &[
            "build",
            "examples/production-line",
            "--out",
            &out,
            "--max-states",
            "3",
            "--format",
            "junit",
        ],
        None,
    );
    assert_eq!(run.code, Some(2), "a resource bound is exit code 2");
    assert_valid(&run.stdout, "bound");
    let suites = parse(&run.stdout, "bound");
    let work = suites.iter().find(|s| s.name == "Operator.Work").unwrap();
    for case in &work.cases {
        let (tag, kind, message, _) = case.outcome.as_ref().expect("not admitted");
        assert_eq!(
            (tag.as_str(), kind.as_str()),
            ("error", "unproved"),
            "{case:?}"
        );
        assert!(!message.is_empty());
    }
}

#[test]
fn dump_has_no_junit_form() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    hilbert(&["build", "examples/production-line", "--out", &out], None);
    let run = hilbert(
        &[
            "verify",
            &format!("{out}/Operator.Work.cert"),
            "--dump",
            "--format",
            "junit",
        ],
        None,
    );
    assert_eq!(run.code, Some(2));
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("--dump"), "{}", run.stderr);
}

/// Whether xmllint finds `xml` valid against the JUnit schema.
fn valid(xml: &str) -> bool {
    let mut child = Command::new("xmllint")
        .args(["--noout", "--nonet", "--schema", XSD, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xmllint: ./scripts/setup installs it");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

#[test]
fn the_schema_check_can_fail() {
    let report = |suites: &str, case: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites {suites}>\n  <testsuite name=\"A.B\" tests=\"1\" failures=\"0\" errors=\"0\">\n    {case}\n  </testsuite>\n</testsuites>\n"
        )
    };
    let case = "<testcase name=\"T\" classname=\"A.B\" time=\"0.001\"/>";
    assert!(valid(&report("tests=\"1\"", case)));
    // Jenkins' schema has no `skipped` total on <testsuites>.
    assert!(!valid(&report("skipped=\"0\"", case)));
    assert!(!valid(&report("", "<testcase classname=\"A.B\"/>")));
    assert!(!valid(&report("", "<testcase name=\"T\" time=\"soon\"/>")));
    assert!(!valid(&report(
        "",
        "<testcase name=\"T\"><pass/></testcase>"
    )));
    // XML 1.0 refuses most C0 control characters, even as references.
    assert!(!valid(&report("", "<testcase name=\"&#1;\"/>")));
    assert!(!valid(&report("", "<testcase name=\"T\">\u{1}</testcase>")));
}
