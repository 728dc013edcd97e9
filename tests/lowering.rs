//! The lowering means what the sources say (issue 29, items 1–3 and 13): each case here was a
//! false verdict or a silent acceptance before, found by an auditor and an independent second
//! semantics. A binding's computed argument was dropped (`Run(1 + 1)` started `Run()`, later
//! arguments shifted left, missing ones became 0); a decimal in a condition was lowered as 0;
//! `B(Guard)` inside agent `Guard` was "Guard told Guard", an atom no plan makes; a `when` arm
//! after `other` was accepted silently.

mod common;

use common::{Run, TempDir, hilbert};

/// An agent `A(t: Int, go: Bool)` whose desire `D` is achieved when `goal` holds, bound to
/// `Steps.<binding>`, with the plans `plans`; built with `params`.
fn build(binding: &str, goal: &str, plans: &str, params: &[&str]) -> Run {
    let agent = format!(
        "agent A(t: Int, go: Bool) : Agency
{{
  belief done(n: Int)
  desire D reachable by [Work]
  commit single_minded
  attention Calm initially
  intend Work for D when ¬ ({goal})
  achieved D when {goal}
  plan Work ↦ Steps.{binding}
}}
"
    );
    let dir = TempDir::with_files(&[("A.ha", agent.as_bytes()), ("Steps.hk", plans.as_bytes())]);
    let out = dir.join("out");
    let mut args = vec!["build", &dir.0.to_str().unwrap(), "--out", &out];
    for p in params {
        args.extend(["--param", p]);
    }
    let run = hilbert(&args, None);
    // The listing of the certificate the build wrote, to read the network's root call.
    let mut run = run;
    if let Ok(entries) = std::fs::read_dir(&out) {
        for e in entries.flatten() {
            let path = e.path().display().to_string();
            if path.ends_with(".cert") {
                let dump = hilbert(&["verify", &path, "--dump"], None);
                run.stdout.push_str("\n--- listing ---\n");
                run.stdout.push_str(&dump.stdout);
            }
        }
    }
    run
}

/// `Run(k)` believes done(1) only when k = 0, and otherwise stops.
const ZERO_ONLY: &str =
    "plan Run(k: Int) : A ≔ match k { when 0 ↦ believe done(1) other ↦ STOP }\n";

/// The verdict line of a theorem (`proved`, `refuted` or `unproved`).
fn verdict(run: &Run, theorem: &str) -> &'static str {
    let mut lines = run.stdout.lines();
    while let Some(l) = lines.next() {
        if l.starts_with("theorem ") && l.contains(theorem) {
            let next = lines.next().unwrap_or_default();
            for v in ["unproved", "refuted", "proved"] {
                if next.trim_start().starts_with(v) {
                    return v;
                }
            }
        }
    }
    panic!("no theorem {theorem} in:\n{}\n{}", run.stdout, run.stderr)
}

#[test]
fn a_computed_binding_argument_is_its_value() {
    // (binding, params, the root call in the listing, the liveness verdict)
    for (binding, params, root, live) in [
        ("Run(1 + 1)", &[][..], "Run(2)", "refuted"),
        ("Run(1 - 1)", &[], "Run(0)", "proved"),
        ("Run(2 * 3 - 6)", &[], "Run(0)", "proved"),
        ("Run(-t)", &["t=5", "go=true"][..], "Run(-5)", "refuted"),
        ("Run(t - 5)", &["t=5", "go=true"], "Run(0)", "proved"),
        ("Run(7 / 2 - 3)", &[], "Run(0)", "proved"),
        ("Run(-7 % 2 + 1)", &[], "Run(0)", "proved"),
    ] {
        let run = build(binding, "B(self) done(1)", ZERO_ONLY, params);
        assert!(
            run.stdout.contains(&format!("root       {root}")),
            "{binding}: expected root {root}:\n{}\n{}",
            run.stdout,
            run.stderr
        );
        assert_eq!(
            verdict(&run, "Work_live_D"),
            live,
            "{binding}\n{}",
            run.stdout
        );
        assert_eq!(run.code == Some(0), live == "proved", "{binding}");
    }
}

#[test]
fn later_arguments_keep_their_places() {
    // Run(-t, 7) was lowered as Run(7): the computed first argument was dropped.
    let plans = "plan Run(a: Int, b: Int) : A ≔ match a = -5 ∧ b = 7 { when true ↦ believe done(1) other ↦ STOP }\n";
    let run = build("Run(-t, 7)", "B(self) done(1)", plans, &["t=5", "go=true"]);
    assert!(
        run.stdout.contains("root       Run(-5, 7)"),
        "{}",
        run.stdout
    );
    assert_eq!(verdict(&run, "Work_live_D"), "proved");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Bool arguments computed from a parameter.
    let plans = "plan Run(a: Bool, b: Bool) : A ≔ match a ∧ ¬ b { when true ↦ believe done(1) other ↦ STOP }\n";
    for (go, live) in [("go=true", "refuted"), ("go=false", "proved")] {
        let run = build("Run(¬ go, 1 < 0)", "B(self) done(1)", plans, &["t=0", go]);
        assert_eq!(verdict(&run, "Work_live_D"), live, "{go}: {}", run.stdout);
    }
}

#[test]
fn a_computed_argument_reading_an_unset_parameter_is_not_explored() {
    // Without --param t, `Run(-t)` was explored as if it were `Run()`.
    let run = build("Run(-t)", "B(self) done(1)", ZERO_ONLY, &["go=true"]);
    assert_eq!(verdict(&run, "Work_live_D"), "unproved", "{}", run.stdout);
    assert_eq!(verdict(&run, "Run_no_deadlock"), "unproved");
    assert!(run.stdout.contains("warning[HA0060]") || run.stderr.contains("warning[HA0060]"));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
}

#[test]
fn a_binding_argument_that_cannot_be_computed_is_refused() {
    for (binding, message) in [
        ("Run(9223372036854775807 + 1)", "outside the 64-bit range"),
        ("Run(1 / (t - t))", "divides by zero"),
        ("Run(-\"a\")", "expected Int, found String"),
        ("Run(\"a\" + 1)", "expected Int, found String"),
        (
            "Run(1 < 2)",
            "the parameter `k` is Int, but this argument is Bool",
        ),
        ("Run(¬ t)", "expected Bool, found Int"),
        ("Run(go ∧ 1)", "expected Bool, found Int"),
        ("Run(0.5)", "expected an Int, found Float"),
    ] {
        let run = build(binding, "B(self) done(1)", ZERO_ONLY, &["t=3", "go=true"]);
        assert_eq!(
            run.code,
            Some(1),
            "{binding}: {}\n{}",
            run.stdout,
            run.stderr
        );
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(
            all.contains("error[HA0054]") && all.contains(message),
            "{binding}: {all}"
        );
    }
}

#[test]
fn a_decimal_in_a_condition_is_refused() {
    // `0.1 = 0.2` was lowered as `0 = 0`, so this goal was "proved" by believing done(0).
    for goal in [
        "B(self) done(1) ∨ (B(self) done(0) ∧ 0.1 = 0.2)",
        "B(self) done(0) ∧ 0.5 < -0.25",
        "B(self) done(0) ∧ 0.1 + 0.2 = 0.3",
    ] {
        let plans = "plan Run(k: Int) : A ≔ believe done(k)\n";
        let run = build("Run(0)", goal, plans, &["t=0", "go=true"]);
        assert_eq!(run.code, Some(1), "{goal}: {}", run.stdout);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(
            all.contains("error[HA0035]")
                && all.contains("a decimal number cannot be used in a condition"),
            "{goal}: {all}"
        );
    }
}

#[test]
fn an_agent_naming_itself_in_a_belief_test_means_its_own_belief() {
    let agent = |goal: &str| {
        format!(
            "agent Guard() : Agency
{{
  belief danger(n: Int)
  belief safe(n: Int)
  desire Safe reachable by [Watch]
  commit single_minded
  attention Calm initially
  intend Watch for Safe when ¬ B(self) safe(1)
  achieved Safe when {goal}
  plan Watch ↦ Steps.Run()
}}
"
        )
    };
    // (goal, plan, liveness): `B(Guard) danger(1)` is Guard's own belief, as `B(self)` is.
    for (goal, plan, live) in [
        (
            "B(self) safe(1) ∧ ¬ B(Guard) danger(1)",
            "believe danger(1) ; believe safe(1)",
            "refuted",
        ),
        (
            "B(self) safe(1) ∧ ¬ B(Guard) danger(1)",
            "believe safe(1)",
            "proved",
        ),
        (
            "B(self) safe(1) ∧ B(Guard) danger(1)",
            "believe danger(1) ; believe safe(1)",
            "proved",
        ),
    ] {
        let plans = format!("plan Run() : Guard ≔ {plan}\n");
        let dir = TempDir::with_files(&[
            ("Guard.ha", agent(goal).as_bytes()),
            ("Steps.hk", plans.as_bytes()),
        ]);
        let out = dir.join("out");
        let run = hilbert(&["build", &dir.path(), "--out", &out], None);
        assert_eq!(verdict(&run, "Watch_live_Safe"), live, "{goal} / {plan}");
        assert_eq!(run.code == Some(0), live == "proved", "{}", run.stdout);
    }
}

#[test]
fn a_when_arm_after_other_is_refused() {
    let plans = "plan Run(k: Int) : A ≔ match k { other ↦ STOP when 0 ↦ believe done(1) }\n";
    let run = build("Run(0)", "B(self) done(1)", plans, &["t=0", "go=true"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("error[HK0006]") && all.contains("a `when` arm after `other` would never run"),
        "{all}"
    );
}

#[test]
fn a_value_formula_reading_an_unset_parameter_keeps_the_parameter() {
    // Before, `.hb` formulas read an agent parameter with no value as 0: the certificate's IR
    // (and its listing) said `option Work := 2.0 * 0.0 + 1.0`. Now the parameter stays a parameter,
    // and the listing says what the source says; with a value, the value.
    let agent = "agent A(t: Int) : Agency
{
  belief done(n: Int)
  desire D reachable by [Work]
  commit single_minded
  intend Work for D when ¬ B(self) done(1)
  achieved D when B(self) done(1)
  plan Work ↦ Steps.Run
}
";
    let values = "values A {\n  option Work ≔ 2 * t + 1\n  policy greedy\n}\n";
    let plans = "plan Run() : A ≔ believe done(1)\n";
    let dir = TempDir::with_files(&[
        ("A.ha", agent.as_bytes()),
        ("Steps.hk", plans.as_bytes()),
        ("V.hb", values.as_bytes()),
    ]);
    let listing = |params: &[&str]| -> String {
        let out = dir.join(&format!("out{}", params.len()));
        let mut args = vec!["build", &dir.0.to_str().unwrap(), "--out", &out];
        for p in params {
            args.extend(["--param", p]);
        }
        let run = hilbert(&args, None);
        assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
        let cert = format!("{out}/A.Work.cert");
        hilbert(&["verify", &cert, "--dump"], None).stdout
    };
    let unset = listing(&[]);
    let line = unset
        .lines()
        .find(|l| l.contains("option Work"))
        .unwrap_or_else(|| panic!("no option in the listing:\n{unset}"));
    assert!(line.contains("* t +"), "{line}");
    assert!(!line.contains("* 0.0"), "{line}");
    let set = listing(&["A.t=4"]);
    let line = set.lines().find(|l| l.contains("option Work")).unwrap();
    assert!(line.contains("* 4.0 +"), "{line}");
}
