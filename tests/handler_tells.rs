//! A `tell` inside a handler (`on stop`, `on resume`, `on abort`) runs when the plan's own
//! commands land and whenever the runtime releases or stops the intention, in any state: its
//! `_tell_feasible_N` is decided over the scene and the explorations of the runtime's commands
//! (issue 30), by the build and by the kernel alike.

mod common;

use common::{TempDir, hilbert};

/// Agent Talker tells Hearer `ready(1)` from its plan's `handler`; `body` is the plan's body.
fn project(body: &str, handler: &str) -> TempDir {
    project_with(body, handler, "")
}

/// [`project`] with more plans of Talker's (`extra`, each a line of `.hk`).
fn project_with(body: &str, handler: &str, extra: &str) -> TempDir {
    let ha = "agent Talker : Agency\n{\n  belief ready(n: Int)\n  belief done(n: Int)\n  desire Done reachable by [Go]\n  commit single_minded\n  attention Working initially\n  intend Go for Done when ¬ B(self) done(1)\n  achieved Done when B(self) done(1) ∨ B(self) ready(2)\n  plan Go ↦ Talk.Go\n}\nagent Hearer : Agency\n{\n  belief ready(n: Int)\n  desire Idle reachable by [Wait]\n  commit single_minded\n  attention Waiting initially\n  intend Wait for Idle when ¬ B(self) ready(1)\n  achieved Idle when B(self) ready(1)\n  plan Wait ↦ Talk.Wait\n}\n";
    let hk = format!(
        "plan Go() : Talker\n{{\n  body ≔ {body}\n  {handler}\n}}\nplan Wait() : Hearer ≔ believe ready(1)\n{extra}"
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
fn a_tell_in_a_handler_is_decided_over_every_run_of_the_handler_explored() {
    for (body, handler, status) in [
        // Nothing in the scene aborts the plan, but the runtime may, in any state: the
        // abortable exploration runs the handler, which believes before it tells.
        (
            "believe done(1)",
            "on abort ≔ believe ready(1) ; tell Hearer ready(1)",
            "proved",
        ),
        // Without the believe, the agent tells what it does not believe (was `unproved`).
        (
            "believe done(1)",
            "on abort ≔ tell Hearer ready(1)",
            "refuted",
        ),
        // The scene runs the handler (`abort self`) feasibly, after `ready(1)`; but the runtime
        // may abort before it, where the tell is infeasible (was `unproved`).
        (
            "believe ready(1) ; believe done(1) ; abort self",
            "on abort ≔ tell Hearer ready(1)",
            "refuted",
        ),
        // No desire of Talker has a higher priority: the runtime never stops this plan, and
        // nothing in the scene does, so the handler never runs (no `Go_stoppable` either).
        (
            "believe done(1)",
            "on stop ≔ tell Hearer ready(1)",
            "proved",
        ),
        (
            "believe done(1)",
            "on resume ≔ tell Hearer ready(1)",
            "proved",
        ),
    ] {
        let dir = project(body, handler);
        let (code, report) = build(&dir);
        let t = tell_theorem(&report);
        assert_eq!(t["status"], status, "{handler}: {t}");
        // The kernel agrees: admitted when proved, refused when refuted.
        let kernel = if status == "proved" {
            "admitted"
        } else {
            "refused"
        };
        assert_eq!(t["kernel"], kernel, "{handler}: {t}");
        assert_eq!(
            code,
            Some(if status == "proved" { 0 } else { 1 }),
            "{report}"
        );
        if status == "refuted" {
            // The path to where the runtime's abort lands, then the abort, in which the
            // handler tells at once.
            let steps = t["counterexample"]["steps"].as_array().unwrap();
            assert_eq!(steps.last().unwrap()["event"], "abort Go", "{handler}: {t}");
            assert!(
                t["kernel_reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("tell.feasible:"),
                "{t}"
            );
        }
        let names: Vec<&str> = report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(!names.contains(&"Go_stoppable"), "{names:?}");
    }
}

#[test]
fn a_tell_in_a_stop_handler_is_decided_over_the_stops_the_runtime_may_make() {
    // A desire of higher priority: the runtime may stop Go in any state, and the handler tells
    // before `ready(1)` is believed in the first state: refuted, by the stoppable exploration.
    let ha = "agent Talker : Agency\n{\n  belief ready(n: Int)\n  belief done(n: Int)\n  belief hot(n: Int)\n  desire Done reachable by [Go]\n  desire Cool priority 1 reachable by [Fan]\n  commit single_minded\n  attention Working initially\n  intend Go for Done when ¬ B(self) done(1)\n  achieved Done when B(self) done(1)\n  intend Fan for Cool when B(self) hot(1)\n  achieved Cool when ¬ B(self) hot(1)\n  plan Go ↦ Talk.Go\n  plan Fan ↦ Talk.Fan\n}\nagent Hearer : Agency\n{\n  belief ready(n: Int)\n  commit single_minded\n  attention Waiting initially\n}\n";
    for (stop, status) in [
        ("on stop ≔ tell Hearer ready(1)", "refuted"),
        (
            "on stop ≔ believe ready(1) ; tell Hearer ready(1)",
            "proved",
        ),
    ] {
        let hk = format!(
            "plan Go() : Talker\n{{\n  body ≔ believe done(1)\n  {stop}\n}}\nplan Fan() : Talker ≔ forget hot(1)\n"
        );
        let dir = TempDir::with_files(&[("Talker.ha", ha.as_bytes()), ("Talk.hk", hk.as_bytes())]);
        let (_, report) = build(&dir);
        let t = tell_theorem(&report);
        assert_eq!(t["status"], status, "{stop}: {report}");
        let kernel = if status == "proved" {
            "admitted"
        } else {
            "refused"
        };
        assert_eq!(t["kernel"], kernel, "{stop}: {t}");
        let stoppable = report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "Go_stoppable")
            .unwrap_or_else(|| panic!("no Go_stoppable: {report}"));
        assert_eq!(stoppable["status"], "proved", "{stoppable}");
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

#[test]
fn a_tell_in_a_plan_a_handler_calls_is_decided_over_the_handler_runs() {
    // Found by the oracle: `on abort ≔ Report()` runs Report's tell at every abort from
    // outside, where the agent does not believe what it tells; it was proved (and admitted)
    // when only tells written inside a handler were decided over those runs.
    let theorem = |report: &serde_json::Value, name: &str| -> serde_json::Value {
        report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {report}"))
            .clone()
    };
    for (extra, name, status) in [
        (
            "plan Report() : Talker ≔ tell Hearer ready(1)\n",
            "Report_tell_feasible_1",
            "refuted",
        ),
        // Through a second call.
        (
            "plan Report() : Talker ≔ Send()\nplan Send() : Talker ≔ tell Hearer ready(1)\n",
            "Send_tell_feasible_1",
            "refuted",
        ),
        // Believed first: feasible in every run.
        (
            "plan Report() : Talker ≔ believe ready(1) ; tell Hearer ready(1)\n",
            "Report_tell_feasible_1",
            "proved",
        ),
    ] {
        let dir = project_with("believe done(1)", "on abort ≔ Report()", extra);
        let (_, report) = build(&dir);
        let t = theorem(&report, name);
        assert_eq!(t["status"], status, "{extra}: {t}");
        let kernel = if status == "proved" {
            "admitted"
        } else {
            "refused"
        };
        assert_eq!(t["kernel"], kernel, "{extra}: {t}");
    }
}
