//! The JSON report of `hilbert check` conforms to `docs/schema/check-report.schema.json`, on real
//! output of the binary; and the conformance check itself refuses reports that break the schema.

mod common;

use common::schema::validate;
use common::{CLEAN_AGENT, TempDir, hilbert};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn schema() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/schema/check-report.schema.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("read the schema"))
        .expect("the schema is JSON")
}

fn report(args: &[&str]) -> Value {
    let run = hilbert(args, None);
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout))
}

fn assert_conforms(report: &Value) {
    let errors = validate(&schema(), report);
    assert!(errors.is_empty(), "{errors:#?}\n{report:#}");
}

#[test]
fn a_clean_check_conforms() {
    let r = report(&["check", "examples/production-line", "--format", "json"]);
    assert_conforms(&r);
    assert_eq!(r["clean"], json!(true));
    assert_eq!(r["stats"]["files"], json!(2));
}

#[test]
fn a_failing_check_with_secondary_labels_and_a_binary_file_conforms() {
    let dir = TempDir::with_files(&[
        (
            "Operator.ha",
            CLEAN_AGENT.trim_end().trim_end_matches('}').as_bytes(),
        ),
        ("Line.hk", b"plan Produce() : Operator = believe made(3)\n"),
        ("Values.hb", b"-- caf\xe9\nvalues Operator { }\n"),
    ]);
    let r = report(&["check", &dir.path(), "--format", "json"]);
    assert_conforms(&r);
    assert_eq!(r["clean"], json!(false));
    let codes: Vec<&str> = r["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    for code in ["HA0009", "HK0006", "HB0005"] {
        assert!(codes.contains(&code), "{code} missing from {codes:?}");
    }
    let unclosed = r["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "HA0009")
        .unwrap();
    assert!(!unclosed["secondary"].as_array().unwrap().is_empty());
    // The digests are of the bytes on disk, the undecodable file included.
    for input in r["inputs"].as_array().unwrap() {
        let bytes = std::fs::read(input["path"].as_str().unwrap()).unwrap();
        let hex: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(input["sha256"], json!(hex));
    }
}

#[test]
fn the_conformance_check_refuses_what_breaks_the_schema() {
    let good = report(&["check", "examples/production-line", "--format", "json"]);
    let diagnostic = json!({
        "code": "HK0006", "severity": "error", "message": "m", "file": "a.hk",
        "line": 1, "column": 2, "end_line": 1, "end_column": 3, "label": "",
        "secondary": [], "notes": [], "help": null
    });
    let mut with_diagnostic = good.clone();
    with_diagnostic["diagnostics"] = json!([diagnostic]);
    assert_conforms(&with_diagnostic);

    type Mutation = fn(&mut Value);
    let mutations: Vec<(&str, Mutation)> = vec![
        ("missing clean", |v| {
            v.as_object_mut().unwrap().remove("clean");
        }),
        ("extra field", |v| v["admitted"] = json!(true)),
        ("schema version", |v| v["schema_version"] = json!(2)),
        ("short digest", |v| v["inputs"][0]["sha256"] = json!("abc")),
        ("bad severity", |v| {
            v["diagnostics"][0]["severity"] = json!("fatal")
        }),
        ("line zero", |v| v["diagnostics"][0]["line"] = json!(0)),
        ("column as text", |v| {
            v["diagnostics"][0]["column"] = json!("2")
        }),
        ("help as number", |v| v["diagnostics"][0]["help"] = json!(1)),
        ("negative count", |v| v["stats"]["errors"] = json!(-1)),
    ];
    for (what, mutate) in mutations {
        let mut bad = with_diagnostic.clone();
        mutate(&mut bad);
        assert!(
            !validate(&schema(), &bad).is_empty(),
            "{what} was not caught"
        );
    }
    // A keyword, or a pattern, the check does not implement is refused, not skipped.
    let sneaky = json!({"type": "string", "pattern": "^x$"});
    assert!(!validate(&sneaky, &json!("y")).is_empty());
    let sneaky = json!({"type": "integer", "multipleOf": 2});
    assert!(!validate(&sneaky, &json!(3)).is_empty());
}

fn build_schema() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/schema/build-report.schema.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("read the schema"))
        .expect("the schema is JSON")
}

#[test]
fn build_reports_conform_admitted_and_refuted() {
    let out = std::env::temp_dir().join(format!("hilbert-schema-build-{}", std::process::id()));
    let schema = build_schema();
    for (example, admitted) in [
        ("examples/production-line", true),
        ("examples/livelock", false),
        ("examples/abort-handler-stuck", false),
    ] {
        let run = hilbert(
            &[
                "build",
                example,
                "--format",
                "json",
                "--out",
                &out.to_string_lossy(),
            ],
            None,
        );
        let r: Value = serde_json::from_str(&run.stdout).expect("JSON");
        let errors = validate(&schema, &r);
        assert!(errors.is_empty(), "{example}: {errors:#?}");
        assert_eq!(r["admitted"], json!(admitted), "{example}");
        // The phases are parts of the frontend's time.
        let stats = &r["stats"];
        let part =
            stats["scene_seconds"].as_f64().unwrap() + stats["certify_seconds"].as_f64().unwrap();
        assert!(
            part <= stats["explore_seconds"].as_f64().unwrap(),
            "{stats}"
        );
        if cfg!(target_os = "linux") {
            assert!(stats["peak_rss_bytes"].as_u64().unwrap() > 0, "{stats}");
        }
        // Counterexamples are not covered by a $ref on a nullable field: check their shape too.
        for t in r["theorems"].as_array().unwrap() {
            if !t["counterexample"].is_null() {
                let cex = &schema["$defs"]["counterexample"];
                let errors = validate(&with_defs(cex, &schema), &t["counterexample"]);
                assert!(errors.is_empty(), "{example}: {errors:#?}");
                assert!(
                    !t["counterexample"]["steps"].as_array().unwrap().is_empty()
                        || example.contains("cross")
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A sub-schema with the root's `$defs`, so its `$ref`s resolve.
fn with_defs(schema: &Value, root: &Value) -> Value {
    let mut s = schema.clone();
    s["$defs"] = root["$defs"].clone();
    s
}

/// Each keyword the validator implements for the SARIF schema (draft-04) refuses a value that
/// breaks it and accepts one that keeps it; a pattern or format it cannot check, anywhere in a
/// schema, is an error of the schema, whatever the value.
#[test]
fn each_keyword_of_the_validator_refuses_what_breaks_it() {
    let cases: Vec<(Value, Value, Value)> = vec![
        // (schema, a value that keeps it, a value that breaks it)
        (json!({"minItems": 1}), json!([0]), json!([])),
        (
            json!({"uniqueItems": true}),
            json!([1, 2]),
            json!([1, 2, 1]),
        ),
        (
            json!({"uniqueItems": true}),
            json!([{"a": 1}, {"a": 2}]),
            json!([{"a": 1, "b": [1]}, {"b": [1.0], "a": 1}]),
        ),
        (
            json!({"uniqueItems": false}),
            json!([1, 1]),
            json!({"never": "refused"}),
        ),
        (json!({"maximum": 5}), json!(5), json!(6)),
        (json!({"minimum": -1}), json!(-1), json!(-2)),
        (
            json!({"anyOf": [{"type": "string"}, {"minimum": 3}]}),
            json!(4),
            json!(2),
        ),
        (
            json!({"properties": {"a": {}}, "additionalProperties": {"type": "string"}}),
            json!({"a": 1, "b": "x"}),
            json!({"a": 1, "b": 2}),
        ),
        (
            json!({"properties": {"a": {}}, "additionalProperties": false}),
            json!({"a": 1}),
            json!({"a": 1, "b": 2}),
        ),
        (
            json!({"definitions": {"n": {"type": "integer"}}, "$ref": "#/definitions/n"}),
            json!(1),
            json!("1"),
        ),
        (
            json!({"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}),
            json!(1),
            json!(1.5),
        ),
        (
            json!({"id": "x", "default": 3, "enum": [1, 2]}),
            json!(1.0),
            json!(3),
        ),
        (
            json!({"pattern": r"[0-9]+(\.[0-9]+){3}"}),
            json!("v10.0.19041.1 (build)"),
            json!("1.2.3"),
        ),
        (
            json!({"pattern": r"[0-9]+(\.[0-9]+){3}"}),
            json!("1.2.3.4"),
            json!("1.2..3.4"),
        ),
        (
            json!({"pattern": "[^/]+/.+"}),
            json!("text/plain"),
            json!("/plain"),
        ),
        (
            json!({"pattern": "[^/]+/.+"}),
            json!("a//b/c"),
            json!("text/\n"),
        ),
        (
            json!({"pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$"}),
            json!("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
            json!("6ba7b810-9dad-61d1-80b4-00c04fd430c8"),
        ),
        (
            json!({"pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$"}),
            json!("6BA7B810-9DAD-11D1-A0B4-00C04FD430C8"),
            json!("6ba7b810-9dad-11d1-80b4-00c04fd430c8\n"),
        ),
        (
            json!({"pattern": "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$"}),
            json!("en-US"),
            json!("eng"),
        ),
        (
            json!({"pattern": "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$"}),
            json!("de"),
            json!("en_US"),
        ),
        (
            json!({"format": "uri"}),
            json!("https://github.com/hilbert-bdi/hilbert"),
            json!("examples/livelock/Door.hk"),
        ),
        (
            json!({"format": "uri"}),
            json!("file:///tmp/a%20b.hk"),
            json!("file:///tmp/a b.hk"),
        ),
        (json!({"format": "uri"}), json!("urn:x"), json!("1http://x")),
        (
            json!({"format": "uri-reference"}),
            json!("examples/livelock/Door.hk"),
            json!("examples/a b.hk"),
        ),
        (
            json!({"format": "uri-reference"}),
            json!("a/b:c"),
            json!("1a:b"),
        ),
        (
            json!({"format": "uri-reference"}),
            json!("%C3%A9.hk"),
            json!("é.hk"),
        ),
        (
            json!({"format": "uri-reference"}),
            json!("#frag"),
            json!("x%2"),
        ),
        (
            json!({"format": "uri-reference"}),
            json!("./a?b=c"),
            json!("a:b/c d"),
        ),
        (
            json!({"format": "uri-reference"}),
            json!("a/b"),
            json!("a\tb"),
        ),
        (
            json!({"format": "uri-reference"}),
            json!(""),
            json!("c:\\x"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2024-02-29T23:59:60.123Z"),
            json!("2023-02-29T00:00:00Z"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-01-31t08:00:00-05:30"),
            json!("2026-01-31 08:00:00Z"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-12-01T00:00:00+00:00"),
            json!("2026-13-01T00:00:00Z"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-04-30T00:00:00Z"),
            json!("2026-04-31T00:00:00Z"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-04-30T00:00:00Z"),
            json!("2026-04-30T24:00:00Z"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-04-30T00:00:00Z"),
            json!("2026-04-30T00:00:00"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-04-30T00:00:00Z"),
            json!("2026-04-30T00:00:00.Z"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-04-30T00:00:00Z"),
            json!("2026-04-30T00:00:00+0100"),
        ),
        (
            json!({"format": "date-time"}),
            json!("2026-04-30T00:00:00Z"),
            json!("2026-04-30"),
        ),
    ];
    for (schema, keeps, breaks) in &cases {
        let errors = validate(schema, keeps);
        assert!(errors.is_empty(), "{schema} refused {keeps}: {errors:?}");
        if breaks != &json!({"never": "refused"}) {
            assert!(
                !validate(schema, breaks).is_empty(),
                "{schema} accepted {breaks}"
            );
        }
    }
    // `pattern` and `format` apply to strings only, as in JSON Schema.
    assert!(validate(&json!({"pattern": "[^/]+/.+", "format": "uri"}), &json!(3)).is_empty());
    // What the validator cannot check is an error of the schema, even where the value does not
    // reach and whatever the value.
    for schema in [
        json!({"pattern": "^x$"}),
        json!({"format": "email"}),
        json!({"properties": {"unused": {"pattern": "[a-z]+"}}}),
        json!({"definitions": {"unused": {"exclusiveMinimum": 0}}}),
        json!({"anyOf": [{}, {"not": {}}]}),
        json!({"items": [{}, {}]}),
        json!({"additionalProperties": 1}),
        json!({"$ref": "#/definitions/missing"}),
        json!({"$ref": "https://example.com/schema.json"}),
    ] {
        let errors = validate(&schema, &json!("anything"));
        assert!(
            errors.iter().any(|e| e.starts_with("schema #")),
            "{schema}: {errors:?}"
        );
    }
}
