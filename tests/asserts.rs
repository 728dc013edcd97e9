//! Assertions and weak fairness (issue 34), end to end through `hilbert build`: each pattern
//! proved on a plan where it holds and refuted, with the counterexample it should have, where
//! it does not; the kernel admits exactly the proved ones; liveness under weak fairness proves
//! a fair valve and still refutes a livelocked one; the mistakes are diagnostics.

mod common;

use common::{TempDir, hilbert};
use serde_json::Value;

/// Agent `A` with beliefs `a`, `b`, `done`, one desire `Done` served by `Go` (`fair` after its
/// list), the attention `Busy` while `a(1)` is believed, the assertions `asserts` (lines of
/// `.ha`), and the plans `hk` (a `plan Go() : A …` among them).
fn project(fair: &str, asserts: &str, hk: &str) -> TempDir {
    let ha = format!(
        "agent A : Agency\n{{\n  belief a(n: Int)\n  belief b(n: Int)\n  belief done(n: Int)\n  desire Done reachable by [Go]{fair}\n  commit single_minded\n  attention Idle initially\n  attention Busy\n  when B(self) a(1) attend Busy\n  intend Go for Done when ¬ B(self) done(1)\n  achieved Done when B(self) done(1)\n  plan Go ↦ P.Go\n{asserts}\n}}\n"
    );
    TempDir::with_files(&[("A.ha", ha.as_bytes()), ("P.hk", hk.as_bytes())])
}

/// `a(1)`; then, in one rendezvous, `b(1)` on the left and `a(1)` forgotten and `done(1)` on
/// the right (the sender's side settles first): the states are {}, {a}, {b, done}.
const STEPS: &str = "plan Go() : A\n{\n  c : chan Int\n  body ≔ (believe a(1) ; 1 → c ; believe b(1)) ‖ (x ← c ; forget a(1) ; believe done(1))\n}\n";

/// `a(1)`, then two processes exchange on `c` forever.
const LOOP: &str = "plan Ping(c: chan Int) : A ≔ 1 → c ; Ping(c)\nplan Pong(c: chan Int) : A ≔ x ← c ; Pong(c)\nplan Go() : A\n{\n  c : chan Int\n  body ≔ believe a(1) ; (Ping(c) ‖ Pong(c))\n}\n";

fn build(dir: &TempDir) -> Value {
    let out = dir.join("out");
    let run = hilbert(
        &["build", &dir.path(), "--out", &out, "--format", "json"],
        None,
    );
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr))
}

fn theorem<'a>(report: &'a Value, name: &str) -> &'a Value {
    (report["theorems"].as_array().unwrap().iter())
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name}: {report}"))
}

/// Builds `asserts` over the plans `hk` and checks the assertion `Go_assert_<name>`: its
/// status, the kernel's word (admitted exactly when proved), and for a refutation the number
/// of steps, where its cycle starts and a part of its conclusion.
#[track_caller]
fn expect(hk: &str, fair: &str, line: &str, status: &str, cex: Option<(usize, Option<u64>, &str)>) {
    let name = line
        .trim()
        .trim_start_matches("assert ")
        .split(':')
        .next()
        .unwrap();
    let dir = project(fair, &format!("  {line}"), hk);
    let report = build(&dir);
    let errors = (report["diagnostics"].as_array().unwrap().iter())
        .filter(|d| d["severity"] == "error")
        .count();
    assert_eq!(errors, 0, "{line}: {}", report["diagnostics"]);
    let t = theorem(&report, &format!("Go_assert_{name}"));
    assert_eq!(t["status"], status, "{line}: {t}");
    let admitted = if status == "proved" {
        "admitted"
    } else {
        "refused"
    };
    assert_eq!(t["kernel"], admitted, "{line}: {t}");
    if let Some((steps, cycle, conclusion)) = cex {
        let c = &t["counterexample"];
        assert_eq!(c["steps"].as_array().unwrap().len(), steps, "{line}: {c}");
        assert_eq!(c["cycle_from"].as_u64(), cycle, "{line}: {c}");
        let said = c["conclusion"].as_str().unwrap();
        assert!(said.contains(conclusion), "{line}: {said}");
    }
}

#[test]
fn always_and_never_are_proved_where_they_hold_and_refuted_with_the_shortest_path() {
    expect(
        STEPS,
        "",
        "assert no_b_with_a: never B(self) a(1) ∧ B(self) b(1)",
        "proved",
        None,
    );
    expect(
        STEPS,
        "",
        "assert b_or_a: always ¬ B(self) b(1) ∨ ¬ B(self) a(1)",
        "proved",
        None,
    );
    expect(
        STEPS,
        "",
        "assert never_a: never B(self) a(1)",
        "refuted",
        Some((1, None, "a state where a(1) holds")),
    );
    expect(
        STEPS,
        "",
        "assert no_b: always ¬ B(self) b(1)",
        "refuted",
        Some((2, None, "a state where ¬ b(1) does not hold")),
    );
}

#[test]
fn precedence_is_refuted_by_the_shortest_path_through_states_before_its_first_condition() {
    expect(
        STEPS,
        "",
        "assert a_first: B(self) a(1) precedes B(self) b(1)",
        "proved",
        None,
    );
    // `done(1)` comes with `b(1)`: both at once is fine.
    expect(
        STEPS,
        "",
        "assert b_with_done: B(self) b(1) precedes B(self) done(1)",
        "proved",
        None,
    );
    expect(
        STEPS,
        "",
        "assert b_first: B(self) b(1) precedes B(self) a(1)",
        "refuted",
        Some((1, None, "a(1) holds before b(1) has held")),
    );
}

#[test]
fn existence_and_response_are_refuted_by_a_dead_end_or_a_lasso() {
    expect(
        STEPS,
        "",
        "assert ends: eventually B(self) done(1)",
        "proved",
        None,
    );
    expect(
        STEPS,
        "",
        "assert answered: B(self) a(1) leads to B(self) b(1)",
        "proved",
        None,
    );
    expect(
        STEPS,
        "",
        "assert never_b2: eventually B(self) b(2)",
        "refuted",
        Some((2, None, "the plan finished without b(2)")),
    );
    expect(
        STEPS,
        "",
        "assert back: B(self) b(1) leads to B(self) a(1)",
        "refuted",
        Some((2, None, "the plan finished without a(1), after b(1) held")),
    );
    // A lasso: the step to `a(1)`, then the exchange forever.
    expect(
        LOOP,
        "",
        "assert answered: B(self) a(1) leads to B(self) b(1)",
        "refuted",
        Some((
            2,
            Some(1),
            "the plan can cycle forever without b(1), after a(1) held",
        )),
    );
    expect(
        LOOP,
        "",
        "assert ends: eventually B(self) done(1)",
        "refuted",
        Some((2, Some(1), "the plan can cycle forever without done(1)")),
    );
    expect(
        LOOP,
        "",
        "assert busy: B(self) a(1) leads to attending Busy",
        "proved",
        None,
    );
}

#[test]
fn desires_and_intends_are_read_from_the_rules_in_each_state() {
    expect(
        STEPS,
        "",
        "assert wants: always desires Done ∨ B(self) done(1)",
        "proved",
        None,
    );
    expect(
        STEPS,
        "",
        "assert lets_go: never intends Go ∧ B(self) done(1)",
        "proved",
        None,
    );
    expect(
        STEPS,
        "",
        "assert keeps: always intends Go",
        "refuted",
        Some((2, None, "a state where intends Go does not hold")),
    );
}

/// A valve that reports air forever to a controller that, at every step, could hear the
/// sensor report the line clear instead; the controller believes `done(1)` when it does.
const FAIR_VALVE: &str = "plan Valve(air: chan Int) : A ≔ 1 → air ; Valve(air)\nplan Sensor(ok: chan Int) : A ≔ 1 → ok\nplan Control(air: chan Int, ok: chan Int) : A ≔ (x ← air ; Control(air, ok)) □ (y ← ok ; believe done(1))\nplan Go() : A\n{\n  air : chan Int\n  ok : chan Int\n  body ≔ v : Valve(air) ‖ Sensor(ok) ‖ (Control(air, ok) ; abort v)\n}\n";

/// A valve that itself chooses, forever, between air and clear: it moves at every step of
/// its air cycle, so that cycle is weakly fair.
const LIVELOCKED_VALVE: &str = "plan Valve(air: chan Int, ok: chan Int) : A ≔ (1 → air ; Valve(air, ok)) □ (1 → ok)\nplan Control(air: chan Int, ok: chan Int) : A ≔ (x ← air ; Control(air, ok)) □ (y ← ok ; believe done(1))\nplan Go() : A\n{\n  air : chan Int\n  ok : chan Int\n  body ≔ Valve(air, ok) ‖ Control(air, ok)\n}\n";

#[test]
fn weak_fairness_proves_the_fair_valve_and_still_refutes_the_livelocked_one() {
    let live = |hk: &str, fair: &str| {
        let report = build(&project(fair, "", hk));
        theorem(&report, "Go_live_Done").clone()
    };
    // Without fairness the fair valve's air cycle refutes liveness; with it, it is proved.
    let t = live(FAIR_VALVE, "");
    assert_eq!(
        (&t["status"], &t["kernel"]),
        (&"refuted".into(), &"refused".into()),
        "{t}"
    );
    let t = live(FAIR_VALVE, " under weak fairness");
    assert_eq!(
        (&t["status"], &t["kernel"]),
        (&"proved".into(), &"admitted".into()),
        "{t}"
    );
    assert!(
        t["statement"]
            .as_str()
            .unwrap()
            .ends_with("under weak fairness"),
        "{t}"
    );
    // The livelocked valve: refuted with a weakly fair lasso, and the kernel refuses it.
    let t = live(LIVELOCKED_VALVE, " under weak fairness");
    assert_eq!(
        (&t["status"], &t["kernel"]),
        (&"refuted".into(), &"refused".into()),
        "{t}"
    );
    let c = &t["counterexample"];
    assert_eq!(c["cycle_from"], 0, "{c}");
    assert_eq!(c["steps"].as_array().unwrap().len(), 1, "{c}");
    assert!(
        c["conclusion"].as_str().unwrap().contains("weakly fair"),
        "{c}"
    );
    // The same patterns as assertions.
    for line in [
        "assert ends: eventually B(self) done(1) under weak fairness",
        "assert answered: ¬ B(self) done(1) leads to B(self) done(1) under weak fairness",
    ] {
        expect(FAIR_VALVE, "", line, "proved", None);
        expect(
            LIVELOCKED_VALVE,
            "",
            line,
            "refuted",
            Some((1, Some(0), "weakly fair")),
        );
        expect(
            FAIR_VALVE,
            "",
            &line.replace(" under weak fairness", ""),
            "refuted",
            None,
        );
    }
}

/// The diagnostics of `asserts` in the project over [`STEPS`]: their codes.
fn codes(fair: &str, asserts: &str) -> Vec<String> {
    let dir = project(fair, asserts, STEPS);
    let run = hilbert(&["check", &dir.path(), "--format", "json"], None);
    let json: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr));
    let all = json["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{json}"));
    all.iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_mistake_in_an_assertion_is_a_diagnostic() {
    let cases: &[(&str, &str, &str)] = &[
        ("", "  assert x: B(self) a(1)", "HA0006"),
        ("", "  assert x B(self) a(1)", "HA0006"),
        ("", "  assert x: always", "HA0006"),
        ("", "  assert x: B(self) a(1) leads B(self) b(1)", "HA0006"),
        (
            "",
            "  assert x: always B(self) a(1)\n  assert x: never B(self) b(1)",
            "HA0021",
        ),
        ("", "  assert x: always desires Nothing", "HA0024"),
        ("", "  assert x: always intends Nothing", "HA0026"),
        ("", "  assert x: always B(self) c(1)", "HA0033"),
        (
            "",
            "  assert x: always B(self) a(n) leads to B(self) b(n)",
            "HA0006",
        ),
        // A variable φ binds is not seen by ψ.
        ("", "  assert x: B(self) a(n) leads to n > 0", "HA0038"),
        ("", "  assert x: always 1 + 2", "HA0036"),
        (
            "",
            "  assert x: always B(self) a(1) under weak fairness",
            "HA0063",
        ),
        (
            "",
            "  assert x: eventually B(self) a(1) under strong fairness",
            "HA0064",
        ),
        (" under strong fairness", "", "HA0064"),
        (" under weak", "", "HA0006"),
    ];
    for (fair, asserts, code) in cases {
        let got = codes(fair, asserts);
        assert!(got.contains(&code.to_string()), "{asserts}{fair}: {got:?}");
    }
    // `desires` and `intends` in a rule's condition: HA0062; in an assertion, nothing.
    let dir = TempDir::with_files(&[
        (
            "A.ha",
            b"agent A : Agency\n{\n  belief done(n: Int)\n  desire Done reachable by [Go]\n  commit single_minded\n  attention Idle initially\n  intend Go for Done when intends Go\n  achieved Done when B(self) done(1) \xe2\x88\xa7 desires Done\n  plan Go \xe2\x86\xa6 P.Go\n}\n",
        ),
        ("P.hk", b"plan Go() : A \xe2\x89\x94 believe done(1)\n"),
    ]);
    let run = hilbert(&["check", &dir.path(), "--format", "json"], None);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let n = (json["diagnostics"].as_array().unwrap().iter())
        .filter(|d| d["code"] == "HA0062")
        .count();
    assert_eq!(n, 2, "{json}");
    let fine = |fair: &str, line: &str| {
        let got = codes(fair, line);
        assert!(got.iter().all(|c| c == "HA0050"), "{line}: {got:?}");
    };
    fine("", "  assert x: always desires Done ∨ intends Go");
    fine(
        " under weak fairness",
        "  assert x: B(self) a(1) leads to B(self) b(1) under weak fairness",
    );
    fine("", "  assert x: B(self) a(n) leads to B(self) b(n) ∧ n > 0");
}
