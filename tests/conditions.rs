//! A condition means what it says, end to end: a goal's belief test whose argument is computed
//! (`count(1 + 1)`, `flag(¬ go)`) and a Bool name used as a condition are lowered faithfully,
//! so the build proves the goal exactly when the plan reaches it. Before issue 17's review a
//! computed argument was lowered as `_` (so `B(self) count(1 + 1)` held of any count, and a
//! plan that believed count(5) was "proved" to reach count(2)), and a Bool name as `false`.

mod common;

use common::{TempDir, hilbert};

/// Builds an agent whose goal is `goal` and whose plan runs `body`, with `--param go=…`, and
/// returns the summary line ("2 theorems: …").
fn build(goal: &str, body: &str, go: bool) -> String {
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
    let run = hilbert(
        &["build", &dir.path(), "--out", &out, "--param", &param],
        None,
    );
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
    for (goal, body, go, proved) in [
        ("B(self) count(1 + 1)", "believe count(5)", true, false),
        ("B(self) count(1 + 1)", "believe count(2)", true, true),
        ("B(self) count(1 + 1 + 1)", "believe count(4)", true, false),
        ("B(self) count(2 * 2 - 1)", "believe count(3)", true, true),
        (
            "B(self) count(n) ∧ B(self) count(n + 1)",
            "believe count(7)",
            true,
            false,
        ),
        (
            "B(self) count(n) ∧ B(self) count(n + 1)",
            "believe count(2)",
            true,
            true,
        ),
        ("B(self) flag(¬ go)", "believe flag(true)", true, false),
        ("B(self) flag(¬ go)", "believe flag(false)", true, true),
        ("B(self) flag(2 < 1)", "believe flag(true)", true, false),
        ("B(self) flag(1 < 2)", "believe flag(true)", true, true),
        (
            "B(self) flag(b) ∧ b = (1 < 2)",
            "believe flag(false)",
            true,
            false,
        ),
        (
            "B(self) flag(b) ∧ b ≠ (2 < 1)",
            "believe flag(true)",
            true,
            true,
        ),
    ] {
        let summary = build(goal, body, go);
        let want = if proved { "2 proved" } else { "1 refuted" };
        assert!(summary.contains(want), "{goal} / {body}: {summary}");
    }
}

#[test]
fn a_bool_name_is_a_condition() {
    // `go` was lowered as `false`, whatever its value: this goal could never be reached.
    let summary = build("B(self) flag(true) ∧ go", "believe flag(true)", true);
    assert!(summary.contains("2 proved"), "{summary}");
    // With go = false the goal is unsatisfiable, and the check says so.
    let agent = "agent Counter(go: Bool) : Agency
{
  belief flag(b: Bool)
  desire Reached reachable by [Work]
  commit single_minded
  attention Counting initially
  intend Work for Reached when ¬ B(self) flag(true)
  achieved Reached when B(self) flag(true) ∧ go
  plan Work ↦ Tally.Run
}
";
    let plan = "plan Run() : Counter ≔ believe flag(true)\n";
    let dir = TempDir::with_files(&[
        ("Counter.ha", agent.as_bytes()),
        ("Tally.hk", plan.as_bytes()),
    ]);
    let out = dir.join("out");
    let run = |go: &str| hilbert(&["build", &dir.path(), "--out", &out, "--param", go], None);
    let refused = run("go=false");
    let said = format!("{}{}", refused.stdout, refused.stderr);
    assert!(said.contains("HA0052"), "{said}");
    assert_eq!(refused.code, Some(1));
    let admitted = run("go=true");
    let said = format!("{}{}", admitted.stdout, admitted.stderr);
    assert!(!said.contains("HA0052"), "{said}");
    assert_eq!(admitted.code, Some(0), "{}", admitted.stdout);
}
