//! End-to-end tests of the `hilbert` binary: exit codes, the three report formats, `explain`, and
//! the environment errors (missing path, non-source file, empty directory).

mod common;

use common::{CLEAN_AGENT, CLEAN_PLAN, TempDir, hilbert, run_within};
use serde_json::{Value, json};

fn broken_project() -> TempDir {
    TempDir::with_files(&[
        (
            "Operator.ha",
            CLEAN_AGENT.trim_end().trim_end_matches('}').as_bytes(),
        ),
        (
            "plans/Line.hk",
            b"plan Produce() : Operator = believe made(3)\n",
        ),
    ])
}

#[test]
fn a_clean_project_exits_0_with_a_summary() {
    let run = hilbert(&["check", "examples/production-line"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.ends_with("checked 2 files: no errors\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn no_path_means_the_current_directory() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/production-line");
    let run = hilbert(&["check"], Some(&dir));
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("checked 2 files"), "{}", run.stdout);
}

#[test]
fn errors_exit_1_rendered_like_rustc_without_colour_off_a_terminal() {
    let dir = broken_project();
    let run = hilbert(&["check", &dir.path()], None);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let line_hk = dir.join("plans/Line.hk");
    assert!(run.stdout.contains("error[HK0006]: "), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(" --> {line_hk}:1:27\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("1 | plan Produce() : Operator = believe made(3)\n")
    );
    assert!(run.stdout.contains("error[HA0009]: "));
    assert!(run.stdout.ends_with(" in 2 files\n"), "{}", run.stdout);
    assert!(
        !run.stdout.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    let coloured = hilbert(&["check", &dir.path(), "--color", "always"], None);
    assert!(coloured.stdout.contains("\x1b[1;31merror[HK0006]\x1b[0m"));
}

#[test]
fn json_reports_parse_and_say_whether_the_check_is_clean() {
    let run = hilbert(
        &["check", "examples/production-line", "--format", "json"],
        None,
    );
    assert_eq!(run.code, Some(0));
    let r: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(r["schema_version"], json!(1));
    assert_eq!(r["tool"]["name"], json!("hilbert"));
    assert_eq!(r["tool"]["version"], json!(env!("CARGO_PKG_VERSION")));
    assert_eq!(r["clean"], json!(true));
    let paths: Vec<&str> = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "examples/production-line/Line.hk",
            "examples/production-line/Operator.ha"
        ]
    );

    let dir = broken_project();
    let run = hilbert(&["check", &dir.path(), "--format", "json"], None);
    assert_eq!(run.code, Some(1));
    let r: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(r["clean"], json!(false));
    let errors = r["stats"]["errors"].as_u64().unwrap();
    assert!(errors >= 2);
    assert_eq!(
        r["diagnostics"].as_array().unwrap().len() as u64,
        errors + r["stats"]["warnings"].as_u64().unwrap()
    );
    let d = r["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "HK0006")
        .unwrap();
    assert_eq!(d["file"], json!(dir.join("plans/Line.hk")));
    assert_eq!(
        (d["line"].clone(), d["column"].clone()),
        (json!(1), json!(27))
    );
    assert_eq!(
        (d["end_line"].clone(), d["end_column"].clone()),
        (json!(1), json!(28))
    );
}

#[test]
fn sarif_logs_have_rules_results_regions_and_related_locations() {
    let dir = broken_project();
    // Run inside the project so the URIs are relative.
    let run = hilbert(&["check", ".", "--format", "sarif"], Some(&dir.0));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(log["version"], json!("2.1.0"));
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], json!("hilbert"));
    assert_eq!(driver["version"], json!(env!("CARGO_PKG_VERSION")));
    assert!(
        driver["informationUri"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    let rules = driver["rules"].as_array().unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 2);
    for result in results {
        let rule = &rules[result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], result["ruleId"]);
        assert_eq!(rule["defaultConfiguration"]["level"], result["level"]);
        assert!(
            !rule["shortDescription"]["text"]
                .as_str()
                .unwrap()
                .is_empty()
        );
        assert!(!rule["fullDescription"]["text"].as_str().unwrap().is_empty());
        let help = rule["help"]["markdown"].as_str().unwrap();
        assert!(help.starts_with(&format!("# {}: ", rule["id"].as_str().unwrap())));
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        let region = &result["locations"][0]["physicalLocation"]["region"];
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[key].as_u64().unwrap() >= 1, "{key}");
        }
    }
    let hk = results.iter().find(|r| r["ruleId"] == "HK0006").unwrap();
    let location = &hk["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], json!("plans/Line.hk"));
    assert_eq!(location["region"]["startColumn"], json!(27));
    let unclosed = results.iter().find(|r| r["ruleId"] == "HA0009").unwrap();
    let related = unclosed["relatedLocations"].as_array().unwrap();
    assert!(!related.is_empty());
    assert_eq!(
        related[0]["physicalLocation"]["artifactLocation"]["uri"],
        json!("Operator.ha")
    );
    assert!(!related[0]["message"]["text"].as_str().unwrap().is_empty());
    // One rule per reported code, no more.
    let mut ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.dedup();
    assert_eq!(ids.len(), rules.len());
}

#[test]
fn a_clean_sarif_log_has_no_results() {
    let run = hilbert(
        &["check", "examples/production-line", "--format", "sarif"],
        None,
    );
    assert_eq!(run.code, Some(0));
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(log["runs"][0]["results"], json!([]));
}

#[test]
fn deny_warnings_keeps_clean_clean_and_errors_errors() {
    let run = hilbert(
        &["check", "examples/production-line", "--deny-warnings"],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let dir = broken_project();
    let run = hilbert(&["check", &dir.path(), "--deny-warnings"], None);
    assert_eq!(run.code, Some(1));
}

#[test]
fn a_missing_path_is_an_environment_error() {
    let run = hilbert(&["check", "no/such/place"], None);
    assert_eq!(run.code, Some(2));
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("error: cannot read `no/such/place`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("help: "), "{}", run.stderr);
    // Under --format json the error also goes to standard output, as the JSON error object
    // (tests/json_errors.rs walks every command's).
    let run = hilbert(&["check", "no/such/place", "--format", "json"], None);
    assert_eq!(run.code, Some(2));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    assert_eq!(doc["error"]["kind"], "input");
    assert_eq!(doc["error"]["path"], "no/such/place");
}

#[test]
fn a_file_that_is_not_a_source_is_an_environment_error() {
    let run = hilbert(&["check", "Cargo.toml"], None);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .starts_with("error: `Cargo.toml` is not a Hilbert source"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_empty_directory_is_an_environment_error() {
    let dir = TempDir::with_files(&[("README.txt", b"no sources here")]);
    let run = hilbert(&["check", &dir.path()], None);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .starts_with("error: no .ha, .hk or .hb files under"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("help: "));
}

#[test]
fn a_file_that_is_not_utf8_is_reported_not_fatal() {
    let dir = TempDir::with_files(&[
        ("Operator.ha", CLEAN_AGENT.as_bytes()),
        ("Line.hk", CLEAN_PLAN.as_bytes()),
        (
            "Bad.hb",
            b"values Operator { }\n-- \xff\xfe binary\x1b[2J\n",
        ),
    ]);
    let run = hilbert(&["check", &dir.path()], None);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.contains("error[HB0005]: "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(&format!(" --> {}:2:4\n", dir.join("Bad.hb"))),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains('\x1b'),
        "escape bytes from the file reach the terminal"
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    for args in [
        &["check", "--format", "xml"][..],
        &["check", "--colour"],
        &["frobnicate"],
        &[],
        &["explain"],
        &["explain", "HK0001", "--list"],
        &["explain", "HK0001", "--format", "sarif"],
    ] {
        let run = hilbert(args, None);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("error") || run.stderr.contains("Usage:"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn explain_prints_a_known_code_in_any_case() {
    let run = hilbert(&["explain", "hk0006"], None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.starts_with("# HK0006: unexpected token\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("## Example"));
    let run = hilbert(&["explain", "HA0005", "--format", "json"], None);
    assert_eq!(run.code, Some(0));
    let e: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(e["code"], json!("HA0005"));
    assert_eq!(e["severity"], json!("error"));
    assert_eq!(e["title"], json!("file is not UTF-8"));
    assert!(e["markdown"].as_str().unwrap().starts_with("# HA0005: "));
}

#[test]
fn explain_refuses_unknown_and_malformed_codes() {
    let run = hilbert(&["explain", "HK9999"], None);
    assert_eq!((run.code, run.stdout.as_str()), (Some(2), ""));
    assert!(
        run.stderr
            .starts_with("error: HK9999 is not a documented diagnostic code")
    );
    assert!(run.stderr.contains("--list"));
    let run = hilbert(&["explain", "E0308"], None);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .starts_with("error: `E0308` is not a diagnostic code"),
        "{}",
        run.stderr
    );
}

#[test]
fn explain_lists_every_documented_code() {
    let run = hilbert(&["explain", "--list"], None);
    assert_eq!(run.code, Some(0));
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines.contains(&"HK0006  error    unexpected token"),
        "{}",
        run.stdout
    );
    let docs = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics"))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.ends_with(".md") && name != "README.md"
        })
        .count();
    assert_eq!(lines.len(), docs);
    let run = hilbert(&["explain", "--list", "--format", "json"], None);
    let list: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), docs);
    assert_eq!(list[0]["code"], json!("HA0001"));
}

#[test]
fn common_slips_get_a_hint_of_what_was_meant() {
    let agent = "agent Vendor : Agency\n{\n  belief sold(item: Int)\n  commit single-minded\n  attention Idle initially\n  plan Sell ↦ Machine.Serve\n}\n";
    for (slip, hint) in [
        ("|", "parallel composition is `‖` or `||`"),
        ("&&", "conjunction is `∧` or `and`"),
        ("!", "negation is `¬` or `not`"),
    ] {
        let plans = format!(
            "plan A(c: chan Int) : Vendor ≔ 1 → c\nplan B(c: chan Int) : Vendor ≔ x ← c\nplan Serve() : Vendor\n{{\n  c : chan Int\n  body ≔ A(c) {slip} B(c)\n}}\n"
        );
        let dir = TempDir::with_files(&[
            ("Vendor.ha", agent.as_bytes()),
            ("Machine.hk", plans.as_bytes()),
        ]);
        let run = hilbert(&["check", &dir.path()], None);
        assert_eq!(run.code, Some(1), "{slip}: {}", run.stdout);
        assert!(
            run.stdout.contains(hint),
            "{slip}: no hint `{hint}`: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("did you mean `commit single_minded`?"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn a_watch_of_a_belief_no_agent_has_is_a_usage_error_with_a_suggestion() {
    let run = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--policy",
            "on-change",
            "--watch",
            "alrm",
        ],
        None,
    );
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("did you mean `--watch alarm`?"),
        "{}",
        run.stderr
    );
    let ok = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--policy",
            "on-change",
            "--watch",
            "alarm",
        ],
        None,
    );
    assert_eq!(ok.code, Some(0), "{}{}", ok.stdout, ok.stderr);
}

#[test]
fn a_missing_semicolon_between_processes_is_named() {
    let agent = "agent Vendor : Agency\n{\n  belief sold(item: Int)\n  commit single_minded\n  attention Idle initially\n  plan Sell ↦ Machine.Serve\n}\n";
    let plans = "plan A(c: chan Int) : Vendor ≔ 1 → c\nplan B(c: chan Int) : Vendor ≔ (x ← c  believe sold(1))\nplan Serve() : Vendor\n{\n  c : chan Int\n  body ≔ A(c) ‖ B(c)\n}\n";
    let dir = TempDir::with_files(&[
        ("Vendor.ha", agent.as_bytes()),
        ("Machine.hk", plans.as_bytes()),
    ]);
    let run = hilbert(&["check", &dir.path()], None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "is a `;` missing before `believe`? the processes of a sequence are joined by `;`"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn build_emits_each_agents_compiled_values() {
    let dir = std::env::temp_dir().join(format!("hilbert-emit-values-{}", std::process::id()));
    let out = std::env::temp_dir().join(format!("hilbert-emit-values-out-{}", std::process::id()));
    let run = common::hilbert(
        &[
            "build",
            "examples/learning-to-choose",
            "--emit-values",
            &dir.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
        ],
        None,
    );
    assert_ne!(run.code, Some(2), "{}", run.stderr);
    let text = std::fs::read_to_string(dir.join("Picker.values.txt")).expect("written");
    // Every option's formula, with the .hb names inlined, and the policy.
    for line in [
        "values Picker {",
        "  option Careful := learned(Careful)",
        "  option Hasty := 0.5 + learned(Hasty)",
        "  option Premium := 1000.0",
        "  policy epsilon_greedy(epsilon = 0.1)",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn check_and_run_take_a_solver_timeout() {
    let run = hilbert(
        &["check", "examples/production-line", "--smt-timeout", "5000"],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let run = hilbert(
        &["check", "examples/production-line", "--smt-timeout", "soon"],
        None,
    );
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("--smt-timeout"), "{}", run.stderr);
    let run = hilbert(&["run", "--help"], None);
    assert!(run.stdout.contains("--smt-timeout"), "{}", run.stdout);
}

/// Twelve conditions over non-linear integer arithmetic (`k x³ + y³ = z³`), each of which Z3
/// may not decide before `--smt-timeout`: a 2 KB agent whose check did not end in 400 s.
fn hard_conditions() -> TempDir {
    let mut agent = String::from(
        "agent Operator() : Agency\n{\n  belief done(n: Int)\n  belief busy(n: Int)\n  desire Finished reachable by [Work]\n  commit single_minded\n  attention Main initially\n",
    );
    for k in 0..12 {
        agent.push_str(&format!(
            "  intend Work for Finished when B(self) done(x) ∧ B(self) busy(y) ∧ B(self) done(z) ∧ x > {k} ∧ y > 0 ∧ z > 0 ∧ {} * x * x * x + y * y * y = z * z * z\n",
            k + 2
        ));
    }
    agent.push_str("  achieved Finished when B(self) done(3)\n  plan Work ↦ Line.Produce\n}\n");
    TempDir::with_files(&[
        ("Operator.ha", agent.as_bytes()),
        (
            "Line.hk",
            b"plan Produce() : Operator \xe2\x89\x94 believe done(3)\n",
        ),
    ])
}

/// `--smt-budget` bounds the Z3 time of a whole check: past it nothing more is asked, the
/// questions not answered are named (HA0061 on the agent, HA0059 for each frame condition), and
/// nothing is concluded from them.
#[test]
fn a_check_spends_at_most_its_solver_budget() {
    let dir = hard_conditions();
    let begun = std::time::Instant::now();
    let run = run_within(
        &[
            "check",
            &dir.path(),
            "--smt-budget",
            "2000",
            "--smt-timeout",
            "10000",
            "--color",
            "never",
        ],
        std::time::Duration::from_secs(60),
    );
    let took = begun.elapsed();
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("warning[HA0061]: Z3's budget of 2000 ms was spent before the rules of `Operator` were analysed"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("not answered: `can the condition of intend-"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("warning[HA0059]"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("not asked: the Z3 budget (--smt-budget) was spent"),
        "{}",
        run.stdout
    );
    // No dead-rule warning rests on a question not answered.
    assert!(!run.stdout.contains("warning[HA0052]"), "{}", run.stdout);
    // The budget is Z3's time; the rest of the check is a small part of the deadline above.
    assert!(took.as_secs() < 60, "{took:?}");

    // A budget of nothing asks nothing: every agent of the seed is named.
    let run = hilbert(
        &[
            "check",
            "examples/production-line",
            "--smt-budget",
            "0",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let budget: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "HA0061")
        .collect();
    assert!(!budget.is_empty(), "{}", run.stdout);
    // By default the seed's queries fit with room to spare.
    let run = hilbert(&["check", "examples/production-line"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("HA0061"), "{}", run.stdout);
    let run = hilbert(
        &["check", "examples/production-line", "--smt-budget", "soon"],
        None,
    );
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("--smt-budget"), "{}", run.stderr);
    for command in ["build", "run"] {
        let run = hilbert(&[command, "--help"], None);
        assert!(
            run.stdout.contains("--smt-budget"),
            "{command}: {}",
            run.stdout
        );
    }
}

/// A report that cannot be written is an environment error (exit code 2), named on standard
/// error; a closed pipe is not (`hilbert check | head` keeps the check's code).
#[cfg(target_os = "linux")]
#[test]
fn a_report_written_to_a_full_device_is_an_environment_error() {
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    for args in [
        vec!["check", "examples/production-line"],
        vec!["check", "examples/production-line", "--format", "json"],
        vec![
            "build",
            "examples/production-line",
            "--out",
            &out,
            "--format",
            "json",
        ],
        vec!["explain", "HK0006"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_hilbert"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(full)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write the report to standard output"),
            "{args:?}: {stderr}"
        );
    }
    // A closed pipe: the reader went away, which is not the command's failure.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hilbert"))
        .args(["explain", "--list"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(0));
}
