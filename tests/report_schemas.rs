//! The JSON reports that had no schema before issue 16 conform to theirs, on real output of
//! every example: `verify --format json` (docs/schema/verify-report.schema.json).

mod common;

use common::schema::validate;
use common::{TempDir, hilbert};
use serde_json::Value;

fn schema(name: &str) -> Value {
    let path = format!("{}/docs/schema/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("read the schema"))
        .expect("the schema is JSON")
}

fn examples() -> Vec<String> {
    let mut all: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples"))
        .expect("examples")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| format!("examples/{}", e.file_name().to_string_lossy()))
        .collect();
    all.sort();
    all
}

/// The certificates a build wrote into `dir`, sorted (none when it wrote no directory).
fn certificates(dir: &str) -> Vec<String> {
    let mut certs: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path().display().to_string())
                .filter(|p| p.ends_with(".cert"))
                .collect()
        })
        .unwrap_or_default();
    certs.sort();
    certs
}

fn conforms(schema: &Value, what: &str, stdout: &str) -> Value {
    let doc: Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("{what}: not one JSON document ({e}): {stdout}"));
    let errors = validate(schema, &doc);
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{doc:#}");
    doc
}

#[test]
fn verify_reports_of_every_example_conform() {
    let schema = schema("verify-report.schema.json");
    let out = TempDir::with_files(&[("junk.cert", b"not a certificate")]);
    let mut seen_refused = false;
    for example in examples() {
        let dir = out.join(&example.replace('/', "-"));
        let build = hilbert(
            &["build", &example, "--out", &dir, "--format", "json"],
            None,
        );
        assert!(
            matches!(build.code, Some(0..=2)),
            "{example}: {}",
            build.stderr
        );
        let certs = certificates(&dir);
        if certs.is_empty() {
            continue;
        }
        let mut args: Vec<&str> = vec!["verify"];
        args.extend(certs.iter().map(String::as_str));
        args.extend(["--format", "json"]);
        let run = hilbert(&args, None);
        assert!(matches!(run.code, Some(0 | 1)), "{example}: {}", run.stderr);
        let doc = conforms(&schema, &example, &run.stdout);
        seen_refused |= doc["admitted"] == false;
        args.extend(["--sources", &example]);
        let run = hilbert(&args, None);
        let doc = conforms(&schema, &example, &run.stdout);
        assert!(doc["coverage"].is_object(), "{example}");
    }
    assert!(seen_refused, "no example gave a refused certificate");
    // Parameter values, stated and carried: the agent-parameters example under --param.
    let dir = out.join("params");
    let example = "examples/agent-parameters";
    let build = hilbert(
        &["build", example, "--out", &dir, "--param", "target=2"],
        None,
    );
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    let cert = format!("{dir}/Counter.Count.cert");
    for param in ["target=2", "target=5"] {
        let run = hilbert(
            &[
                "verify",
                &cert,
                "--sources",
                example,
                "--param",
                param,
                "--format",
                "json",
            ],
            None,
        );
        let doc = conforms(&schema, param, &run.stdout);
        assert_eq!(doc["params"][0]["name"], "target", "{doc}");
        assert_eq!(doc["certificates"][0]["params"][0]["value"], 2, "{doc}");
    }
    // A file that is not a certificate is a report too (exit code 1).
    let run = hilbert(
        &["verify", &out.join("junk.cert"), "--format", "json"],
        None,
    );
    assert_eq!(run.code, Some(1));
    let doc = conforms(&schema, "junk", &run.stdout);
    assert!(doc["certificates"][0]["invalid"].is_string());
}

/// Every agent an example declares (`agent Name`), from its `.ha` files.
fn agents(example: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(example).into_iter().flatten().flatten() {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "ha") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for line in text.lines() {
                if let Some(rest) = line.trim_start().strip_prefix("agent ") {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    out.push(name);
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn journal_lines_of_every_example_conform() {
    let schema = schema("journal-line.schema.json");
    let tmp = TempDir::with_files(&[]);
    let mut kinds = std::collections::BTreeSet::new();
    let mut lines = 0;
    for example in examples() {
        let mut scenarios: Vec<Option<String>> = vec![None];
        if let Ok(dir) = std::fs::read_dir(format!("{example}/scenarios")) {
            let mut found: Vec<String> = dir
                .flatten()
                .map(|e| e.path().display().to_string())
                .collect();
            found.sort();
            scenarios.extend(found.into_iter().map(Some));
        }
        for agent in agents(&example) {
            for scenario in &scenarios {
                let journal = tmp.join(&format!("{}-{agent}.jsonl", example.replace('/', "-")));
                let mut args = vec![
                    "run",
                    example.as_str(),
                    "--agent",
                    agent.as_str(),
                    "--format",
                    "json",
                    "--journal",
                    journal.as_str(),
                    // Refuted examples too: the header then says why (`unverified`).
                    "--unverified",
                ];
                if let Some(s) = scenario {
                    args.extend(["--scenario", s.as_str()]);
                }
                let run = hilbert(&args, None);
                if run.code != Some(0) {
                    // An agent that cannot run (a parameter with no value): its one line is
                    // the error object, which has a schema of its own.
                    continue;
                }
                let written = std::fs::read_to_string(&journal).expect("the journal");
                assert_eq!(
                    written, run.stdout,
                    "{example} {agent}: the trace is the journal"
                );
                for (n, line) in written.lines().enumerate() {
                    let doc = conforms(&schema, &format!("{example} {agent} line {}", n + 1), line);
                    if let Some(k) = doc["kind"].as_str() {
                        kinds.insert(k.to_string());
                    }
                    lines += 1;
                }
            }
        }
    }
    // The examples exercise most kinds of entry; each one seen conformed.
    for k in [
        "percept",
        "deliberate",
        "adopt",
        "release",
        "step",
        "ended",
        "stuck",
    ] {
        assert!(
            kinds.contains(k),
            "no `{k}` entry in any example: {kinds:?}"
        );
    }
    assert!(lines > 100, "{lines}");
    // The line an interrupted run ends with, and one that is none of the kinds.
    conforms(
        &schema,
        "interrupted",
        r#"{"interrupted":{"rounds":3,"reason":"SIGINT"}}"#,
    );
    let bad: Value = serde_json::from_str(r#"{"cycle":0,"agent":"A","kind":"teleport"}"#).unwrap();
    assert!(!validate(&schema, &bad).is_empty());
}

#[test]
fn the_bench_report_conforms() {
    let schema = schema("bench-report.schema.json");
    let tmp = TempDir::with_files(&[]);
    // --plot reruns each row with one thread (on more than one core), so `one_thread` is a row.
    let run = hilbert(
        &[
            "bench",
            "smoke",
            "--format",
            "json",
            "--plot",
            &tmp.join("plots"),
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let doc = conforms(&schema, "bench smoke", &run.stdout);
    assert!(!doc["rows"].as_array().unwrap().is_empty());
    assert!(!doc["scaling"].as_array().unwrap().is_empty());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores > 1 {
        assert!(
            doc["rows"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["one_thread"].is_object())
        );
    }
    // A row with a field the schema does not know is refused.
    let mut bad = doc.clone();
    bad["rows"][0]["surprise"] = Value::from(1);
    assert!(!validate(&schema, &bad).is_empty());
}

#[test]
fn every_explain_page_and_the_list_conform() {
    let schema = schema("explain.schema.json");
    let run = hilbert(&["explain", "--list", "--format", "json"], None);
    assert_eq!(run.code, Some(0));
    let list = conforms(&schema, "explain --list", &run.stdout);
    let codes: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap().to_string())
        .collect();
    assert!(codes.len() > 100, "{}", codes.len());
    for code in codes {
        let run = hilbert(&["explain", &code, "--format", "json"], None);
        assert_eq!(run.code, Some(0), "{code}");
        let page = conforms(&schema, &code, &run.stdout);
        assert_eq!(page["code"], code.as_str());
    }
}

#[test]
fn docs_runtime_names_every_journal_kind_of_the_schema() {
    let schema = schema("journal-line.schema.json");
    let docs = std::fs::read_to_string("docs/runtime.md").unwrap();
    for line in schema["oneOf"].as_array().unwrap() {
        if let Some(kind) = line["properties"]["kind"]["const"].as_str() {
            assert!(
                docs.contains(&format!("`{kind}`")),
                "docs/runtime.md does not document the journal kind `{kind}`"
            );
        }
    }
}

#[test]
fn docs_cli_describes_the_counterexample_the_build_report_gives() {
    // docs/cli.md said a counterexample was "a list of steps"; the build gives (and the schema
    // requires) an object of `steps`, `cycle_from` and `conclusion` (issue 30, item 9).
    let schema = schema("build-report.schema.json");
    let docs = std::fs::read_to_string("docs/cli.md").unwrap();
    let cex = &schema["$defs"]["counterexample"];
    assert_eq!(cex["type"], "object");
    for key in cex["required"].as_array().unwrap() {
        let key = key.as_str().unwrap();
        assert!(
            docs.contains(&format!("\"{key}\":")),
            "docs/cli.md does not describe the counterexample's `{key}`"
        );
    }
    assert!(!docs.contains("`counterexample`, when present, is a list of steps"));
}

#[test]
fn verify_dump_json_of_every_example_conforms() {
    // Issue 33: `verify --dump --format json` had no schema.
    let schema = schema("verify-dump.schema.json");
    let out = TempDir::with_files(&[("junk.cert", b"not a certificate")]);
    let mut witnesses = std::collections::BTreeSet::new();
    for example in examples() {
        let dir = out.join(&example.replace('/', "-"));
        hilbert(&["build", &example, "--out", &dir], None);
        let mut certs = certificates(&dir);
        certs.push(out.join("junk.cert"));
        let mut args: Vec<&str> = vec!["verify", "--dump", "--format", "json"];
        args.extend(certs.iter().map(String::as_str));
        let run = hilbert(&args, None);
        let doc = conforms(&schema, &example, &run.stdout);
        let entries = doc.as_array().unwrap();
        assert_eq!(entries.len(), certs.len(), "{example}");
        assert!(entries.last().unwrap()["invalid"].is_string());
        for e in entries.iter().filter(|e| e["witnesses"].is_array()) {
            for w in e["witnesses"].as_array().unwrap() {
                witnesses.extend(w.as_object().unwrap().keys().cloned());
            }
        }
    }
    // The examples reach the common witnesses, so the schema is tried on them.
    for kind in ["Invariant", "Ranking", "Frame", "Release", "TellFeasible"] {
        assert!(witnesses.contains(kind), "{kind}: {witnesses:?}");
    }
}

#[test]
fn every_schema_has_the_projects_id() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/schema");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    for name in names {
        let id = schema(&name)["$id"].clone();
        assert_eq!(
            id,
            format!("https://github.com/hilbert-bdi/hilbert/docs/schema/{name}"),
            "{name}"
        );
    }
}
