//! Agent parameters (`agent Counter(target: Int)`, examples/agent-parameters): values from
//! `--param` and a scenario's `params` are what the build proves under and what the run reads;
//! a parameter with no value is a diagnostic and `unproved`, never a silent 0.

mod common;

const EXAMPLE: &str = "examples/agent-parameters";

fn build(extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = std::env::temp_dir().join(format!(
        "hilbert-params-{}-{}",
        std::process::id(),
        extra.join("-").replace(['=', '/', '.'], "_")
    ));
    let out = out.to_string_lossy().into_owned();
    let mut args = vec!["build", EXAMPLE, "--format", "json", "--out", &out];
    args.extend_from_slice(extra);
    let run = common::hilbert(&args, None);
    let report = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {} {}", run.stdout, run.stderr));
    let _ = std::fs::remove_dir_all(&out);
    (run.code, report)
}

fn statuses(report: &serde_json::Value) -> Vec<String> {
    report["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_build_proves_under_the_value_it_is_given() {
    let (code, report) = build(&["--param", "target=3"]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(statuses(&report), ["proved", "proved"]);
    assert!(
        report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["kernel"] == "admitted")
    );
    // The plan stops at 3: a goal of 5 is refuted, with a counterexample.
    let (code, report) = build(&["--param", "Counter.target=5"]);
    assert_eq!(code, Some(1));
    assert_eq!(statuses(&report), ["proved", "refuted"]);
}

#[test]
fn a_parameter_with_no_value_is_said_and_left_unproved() {
    let (code, report) = build(&[]);
    assert_eq!(code, Some(1));
    assert_eq!(statuses(&report), ["unproved", "unproved"]);
    let reasons: Vec<&str> = report["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["reason"].as_str().unwrap_or(""))
        .collect();
    assert!(
        reasons.iter().all(|r| r.contains("--param target=")),
        "{reasons:?}"
    );
    let warning = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "HA0060")
        .expect("HA0060");
    assert!(warning["message"].as_str().unwrap().contains("`target`"));
    // The kernel refuses the placeholder scene for what it is.
    assert!(
        report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["kernel_reason"]
                .as_str()
                .is_some_and(|r| r.contains("network.parameters"))),
        "{report}"
    );
}

#[test]
fn bad_values_are_usage_errors_with_a_suggestion() {
    for (arg, want) in [
        ("targt=3", "did you mean `target`?"),
        ("target=three", "is not an integer"),
        ("Nobody.target=3", "there is no agent `Nobody`"),
        ("target", "is not NAME=VALUE"),
    ] {
        let run = common::hilbert(&["build", EXAMPLE, "--param", arg], None);
        assert_eq!(run.code, Some(2), "{arg}: {}", run.stderr);
        assert!(run.stderr.contains(want), "{arg}: {}", run.stderr);
    }
}

/// Runs the example's agent through `scenario` with one `--param`, journaled to `journal`.
fn run_counter(scenario: &str, journal: &str, param: &str) -> common::Run {
    common::hilbert(
        &[
            "run",
            EXAMPLE,
            "--agent",
            "Counter",
            "--scenario",
            scenario,
            "--param",
            param,
            "--journal",
            journal,
        ],
        None,
    )
}

#[test]
fn a_run_needs_the_values_its_agent_reads_and_its_journal_replays_them() {
    let run = common::hilbert(&["run", EXAMPLE, "--agent", "Counter"], None);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("`target`"), "{}", run.stderr);
    // From the scenario.
    let dir = std::env::temp_dir().join(format!("hilbert-params-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("scenario.json");
    std::fs::write(&scenario, r#"{"cycles": 4, "params": {"target": 2}}"#).unwrap();
    let journal = dir.join("j.jsonl");
    let (scenario, journal) = (
        scenario.to_string_lossy().into_owned(),
        journal.to_string_lossy().into_owned(),
    );
    let run = common::hilbert(
        &[
            "run",
            EXAMPLE,
            "--agent",
            "Counter",
            "--scenario",
            &scenario,
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("+count(1) +count(2)"), "{}", run.stdout);
    assert!(!run.stdout.contains("+count(3)"), "{}", run.stdout);
    assert!(run.stdout.contains("Reached achieved"), "{}", run.stdout);
    let replay = common::hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);
    // --param overrides the scenario; the journal records the value used.
    let run = run_counter(&scenario, &journal, "target=3");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("+count(3)"), "{}", run.stdout);
    let header = std::fs::read_to_string(&journal).unwrap();
    let header = header.lines().next().unwrap();
    assert!(
        header.contains(r#""params":{"Counter.target":3}"#),
        "{header}"
    );
    let replay = common::hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);
    // One agent's value on the command line wins over the scenario's value for all (issue 30:
    // `--param Pump.dose=2` ran with the scenario's 3), and the journal records it typed, under
    // one key form.
    std::fs::write(&scenario, r#"{"cycles": 6, "params": {"target": 3}}"#).unwrap();
    let run = run_counter(&scenario, &journal, "Counter.target=2");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("+count(2)"), "{}", run.stdout);
    assert!(!run.stdout.contains("+count(3)"), "{}", run.stdout);
    let text = std::fs::read_to_string(&journal).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        header["scenario"]["params"],
        serde_json::json!({"Counter.target": 2}),
        "{header}"
    );
    let replay = common::hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_takes_param_values_for_the_frame_conditions_that_read_them() {
    // Without a value, the frame conditions that read `target` are proved for every value (they
    // were unproved, HA0059, before issue 30); with one, for that value.
    let run = common::hilbert(&["check", EXAMPLE, "--deny-warnings"], None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(!run.stdout.contains("HA0059"), "{}", run.stdout);
    let run = common::hilbert(&["check", EXAMPLE, "--param", "target=3"], None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(!run.stdout.contains("HA0059"), "{}", run.stdout);
    assert!(
        run.stdout.contains("checked 2 files: no errors"),
        "{}",
        run.stdout
    );
    // Goals compatible only for some values: a warning naming one that breaks D for R^D
    // without a value, an error with that value, nothing with a good one.
    let dir = std::env::temp_dir().join(format!("hilbert-params-frame-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Operator.ha"),
        "agent Operator(target: Int) : Agency\n{\n  belief made(count: Int)\n  desire Produced reachable by [Work]\n  desire Light reachable by [Work]\n  commit single_minded\n  intend Work for Produced when ¬B(self) made(target)\n  achieved Produced when B(self) made(n) ∧ n ≥ target\n  achieved Light when ¬(B(self) made(n) ∧ n > 10)\n  plan Work ↦ Line.Produce\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Line.hk"),
        "plan Produce() : Operator ≔ believe made(3)\n",
    )
    .unwrap();
    let path = dir.display().to_string();
    let run = common::hilbert(&["check", &path, "--color", "never"], None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("warning[HA0059]: the frame condition D for R^D")
            && run.stdout.contains("fails for some values of `target`")
            && run.stdout.contains("--param target=V"),
        "{}",
        run.stdout
    );
    let run = common::hilbert(&["check", &path, "--param", "target=12"], None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("HA0058"), "{}", run.stdout);
    let run = common::hilbert(
        &["check", &path, "--param", "target=5", "--deny-warnings"],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    // Bad values are usage errors, as for build.
    let bad = common::hilbert(&["check", EXAMPLE, "--param", "targt=3"], None);
    assert_eq!(bad.code, Some(2));
    assert!(
        bad.stderr.contains("did you mean `target`"),
        "{}",
        bad.stderr
    );
    let bad = common::hilbert(&["check", EXAMPLE, "--param", "target=x"], None);
    assert_eq!(bad.code, Some(2));
    assert!(bad.stderr.contains("is not an integer"), "{}", bad.stderr);
}

#[test]
fn a_theorem_statement_says_the_parameter_value_it_is_about() {
    // The lowering writes a given value into the goal, so the theorem is about count(3); the
    // statement said count(target) (issue 30 item 9). With no value, the parameter it reads.
    let statement = |params: &[&str]| -> String {
        let out = std::env::temp_dir().join(format!(
            "hilbert-statement-{}-{}",
            std::process::id(),
            params.len()
        ));
        let mut args = vec![
            "build",
            "examples/agent-parameters",
            "--format",
            "json",
            "--out",
        ];
        let out = out.display().to_string();
        args.push(&out);
        for p in params {
            args.extend(["--param", p]);
        }
        let run = common::hilbert(&args, None);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Count_live_Reached")
            .expect("the liveness theorem")["statement"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(statement(&["Counter.target=3"]).ends_with(", count(3))"));
    assert!(statement(&[]).ends_with(", count(target))"));
}
