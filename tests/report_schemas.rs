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
        let mut certs: Vec<String> = std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path().display().to_string())
                    .filter(|p| p.ends_with(".cert"))
                    .collect()
            })
            .unwrap_or_default();
        certs.sort();
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
    // A file that is not a certificate is a report too (exit code 1).
    let run = hilbert(
        &["verify", &out.join("junk.cert"), "--format", "json"],
        None,
    );
    assert_eq!(run.code, Some(1));
    let doc = conforms(&schema, "junk", &run.stdout);
    assert!(doc["certificates"][0]["invalid"].is_string());
}
