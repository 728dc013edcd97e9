//! A condition means what it says, end to end: a goal's belief test whose argument is computed
//! (`count(1 + 1)`, `flag(¬ go)`) and a Bool name used as a condition are lowered faithfully,
//! so the build proves the goal exactly when the plan reaches it. Before issue 17's review a
//! computed argument was lowered as `_` (so `B(self) count(1 + 1)` held of any count, and a
//! plan that believed count(5) was "proved" to reach count(2)), and a Bool name as `false`.

mod common;

use common::{Run, TempDir, hilbert};

/// Builds an agent whose goal is `goal` and whose plan runs `body`, with `--param go=…`.
fn run(goal: &str, body: &str, go: bool) -> Run {
    let agent = format!(
        "agent Counter(go: Bool) : Agency
{{
  belief count(n: Int)
  belief flag(b: Bool)
  desire Reached reachable by [Work]
  commit single_minded
  attention Counting initially
  intend Work for Reached when ¬ ({goal})
  achieved Reached when {goal}
  plan Work ↦ Tally.Run(1)
}}
"
    );
    let plan = format!("plan Run(k: Int) : Counter ≔ believe count(k) ; {body}\n");
    let dir = TempDir::with_files(&[
        ("Counter.ha", agent.as_bytes()),
        ("Tally.hk", plan.as_bytes()),
    ]);
    let out = dir.join("out");
    let param = format!("go={go}");
    hilbert(
        &["build", &dir.path(), "--out", &out, "--param", &param],
        None,
    )
}

/// [`run`] with go = true: the summary line ("2 theorems: …").
fn build(goal: &str, body: &str) -> String {
    let run = run(goal, body, true);
    assert!(
        matches!(run.code, Some(0 | 1)),
        "{goal} / {body}: {}\n{}",
        run.stdout,
        run.stderr
    );
    let summary = run
        .stdout
        .lines()
        .find(|l| l.contains(" theorems: "))
        .unwrap_or_default()
        .to_string();
    // A build is admitted exactly when both theorems are proved.
    assert_eq!(
        run.code == Some(0),
        summary.contains("2 proved"),
        "{summary}"
    );
    summary
}

#[test]
fn a_computed_belief_argument_is_its_value_not_a_wildcard() {
    for (goal, body, proved) in [
        ("B(self) count(1 + 1)", "believe count(5)", false),
        ("B(self) count(1 + 1)", "believe count(2)", true),
        ("B(self) count(1 + 1 + 1)", "believe count(4)", false),
        ("B(self) count(2 * 2 - 1)", "believe count(3)", true),
        (
            "B(self) count(n) ∧ B(self) count(n + 1)",
            "believe count(7)",
            false,
        ),
        (
            "B(self) count(n) ∧ B(self) count(n + 1)",
            "believe count(2)",
            true,
        ),
        ("B(self) flag(¬ go)", "believe flag(true)", false),
        ("B(self) flag(¬ go)", "believe flag(false)", true),
        ("B(self) flag(2 < 1)", "believe flag(true)", false),
        ("B(self) flag(1 < 2)", "believe flag(true)", true),
        (
            "B(self) flag(b) ∧ b = (1 < 2)",
            "believe flag(false)",
            false,
        ),
        ("B(self) flag(b) ∧ b ≠ (2 < 1)", "believe flag(true)", true),
    ] {
        let summary = build(goal, body);
        let want = if proved { "2 proved" } else { "1 refuted" };
        assert!(summary.contains(want), "{goal} / {body}: {summary}");
    }
}

#[test]
fn a_bool_name_is_a_condition() {
    // `go` was lowered as `false`, whatever its value: this goal could never be reached.
    let (goal, body) = ("B(self) flag(true) ∧ go", "believe flag(true)");
    let summary = build(goal, body);
    assert!(summary.contains("2 proved"), "{summary}");
    // With go = false the goal is unsatisfiable, and the check says so.
    let refused = run(goal, body, false);
    let said = format!("{}{}", refused.stdout, refused.stderr);
    assert!(said.contains("HA0052"), "{said}");
    assert_eq!(refused.code, Some(1));
}
