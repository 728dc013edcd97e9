//! A `tell` inside a handler (`on stop`, `on resume`, `on abort`) runs whenever the runtime
//! releases or stops the intention, in any state: those runs are not explored, so its
//! `_tell_feasible_N` is `unproved` with the reason, and the kernel never admits it
//! (`tell.handler`), whether or not the explored graph reaches the tell (issue 29, item 9).

mod common;

use common::{TempDir, hilbert};

/// Agent Talker tells Hearer `ready(1)` from its plan's `handler`; `body` is the plan's body.
fn project(body: &str, handler: &str) -> TempDir {
    let ha = "agent Talker : Agency\n{\n  belief ready(n: Int)\n  belief done(n: Int)\n  desire Done reachable by [Go]\n  commit single_minded\n  attention Working initially\n  intend Go for Done when ¬ B(self) done(1)\n  achieved Done when B(self) done(1) ∨ B(self) ready(2)\n  plan Go ↦ Talk.Go\n}\nagent Hearer : Agency\n{\n  belief ready(n: Int)\n  desire Idle reachable by [Wait]\n  commit single_minded\n  attention Waiting initially\n  intend Wait for Idle when ¬ B(self) ready(1)\n  achieved Idle when B(self) ready(1)\n  plan Wait ↦ Talk.Wait\n}\n";
    let hk = format!(
        "plan Go() : Talker\n{{\n  body ≔ {body}\n  {handler}\n}}\nplan Wait() : Hearer ≔ believe ready(1)\n"
    );
    TempDir::with_files(&[("Talker.ha", ha.as_bytes()), ("Talk.hk", hk.as_bytes())])
}

fn build(dir: &TempDir) -> (Option<i32>, serde_json::Value) {
    let out = dir.join("out");
    let run = hilbert(
        &["build", &dir.path(), "--out", &out, "--format", "json"],
        None,
    );
    let json = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr));
    (run.code, json)
}

fn tell_theorem(report: &serde_json::Value) -> &serde_json::Value {
    report["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Go_tell_feasible_1")
        .unwrap_or_else(|| panic!("no Go_tell_feasible_1: {report}"))
}

#[test]
fn a_tell_in_a_handler_is_unproved_never_proved() {
    for (body, handler) in [
        // The handler never runs in the scene: nothing aborts the plan.
        (
            "believe done(1)",
            "on abort ≔ believe ready(1) ; tell Hearer ready(1)",
        ),
        // Without the believe, the agent would tell what it does not believe.
        ("believe done(1)", "on abort ≔ tell Hearer ready(1)"),
        // The scene does run the handler (`abort self`), feasibly; releases at run time are
        // still not explored.
        (
            "believe ready(1) ; believe done(1) ; abort self",
            "on abort ≔ tell Hearer ready(1)",
        ),
        // `on stop` and `on resume` run when a higher-priority intention takes over.
        ("believe done(1)", "on stop ≔ tell Hearer ready(1)"),
        ("believe done(1)", "on resume ≔ tell Hearer ready(1)"),
    ] {
        let dir = project(body, handler);
        let (code, report) = build(&dir);
        let t = tell_theorem(&report);
        assert_eq!(t["status"], "unproved", "{handler}: {t}");
        let handler_name = handler.split(" ≔").next().unwrap();
        let reason = t["reason"].as_str().unwrap();
        assert!(
            reason.contains(&format!("the `{handler_name}` handler of `Go`"))
                && reason.contains("not explored"),
            "{reason}"
        );
        assert_eq!(t["kernel"], "refused", "{t}");
        assert!(
            t["kernel_reason"]
                .as_str()
                .unwrap()
                .starts_with("tell.handler: tell 1 is in a handler"),
            "{t}"
        );
        // The build is not admitted; the other theorems keep their verdicts.
        assert_eq!(code, Some(1), "{report}");
        assert_eq!(report["admitted"], false);
        let others: Vec<&str> = report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["name"] != "Go_tell_feasible_1")
            .map(|t| t["status"].as_str().unwrap())
            .collect();
        // With an `on abort` handler the network has `Go_abortable` too (issue 30), proved.
        let expected = if handler_name == "on abort" { 5 } else { 4 };
        assert_eq!(others, vec!["proved"; expected], "{handler}");

        // The kernel alone derives it from the IR: `verify` refuses it, with or without the
        // sources, whatever witness the certificate carries.
        let cert = dir.join("out/Talker.Go.cert");
        let run = hilbert(&["verify", &cert, "--format", "json"], None);
        assert_eq!(run.code, Some(1), "{}", run.stdout);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let o = v["certificates"][0]["obligations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == "Go_tell_feasible_1")
            .unwrap()
            .clone();
        assert_eq!(o["verdict"], "refused");
        assert_eq!(o["rule"], "tell.handler");
        let run = hilbert(&["verify", &cert, "--sources", &dir.path()], None);
        assert_eq!(run.code, Some(1), "{}", run.stdout);
        assert!(
            run.stdout
                .contains("Go_tell_feasible_1  refused (tell.handler)"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn a_tell_in_the_body_is_still_decided() {
    // The same tell in the body, after the believe: proved; before it: refuted.
    let dir = project(
        "believe ready(1) ; tell Hearer ready(1) ; believe done(1)",
        "on abort ≔ SKIP",
    );
    let (code, report) = build(&dir);
    assert_eq!(tell_theorem(&report)["status"], "proved", "{report}");
    assert_eq!(tell_theorem(&report)["kernel"], "admitted");
    assert_eq!(code, Some(0), "{report}");
    let dir = project("tell Hearer ready(1) ; believe done(1)", "on abort ≔ SKIP");
    let (code, report) = build(&dir);
    assert_eq!(tell_theorem(&report)["status"], "refuted", "{report}");
    assert_eq!(code, Some(1));
}
