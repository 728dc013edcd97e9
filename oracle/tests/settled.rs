//! The oracle against the verdicts docs/semantics.md gives for the questions issue 29 asked it
//! to settle (the cases of the `sem` branch's tests/semantics_verdicts.rs, with the verdicts
//! the docs give). The oracle alone: these do not run the build.

use hilbert_oracle::decide::Verdict;
use hilbert_oracle::pipeline::{self, Sources};

fn agent(goal: &str) -> String {
    format!(
        "agent A : Agency
{{
  belief done(n: Int)
  belief x(n: Int)
  belief alarm(n: Int)
  desire D reachable by [Main]
  commit single_minded
  attention Calm initially
  attention Alarmed
  when B(self) alarm(1) attend Alarmed
  intend Main for D when ¬ ({goal})
  achieved D when {goal}
  plan Main ↦ P.Main
}}

agent Other : Agency
{{
  belief done(n: Int)
  belief x(n: Int)
  belief alarm(n: Int)
  desire Idle reachable by [Wait]
  commit single_minded
  attention Waiting initially
  intend Wait for Idle when ¬ B(self) done(7)
  achieved Idle when B(self) done(7)
  plan Wait ↦ W.Wait
}}
"
    )
}

fn word(v: &Verdict) -> String {
    v.word().to_string()
}

fn verdicts(goal: &str, plans: &str) -> Vec<(String, Verdict)> {
    let src = Sources {
        files: vec![
            ("A.ha".into(), agent(goal)),
            ("P.hk".into(), plans.into()),
            (
                "W.hk".into(),
                "plan Wait() : Other ≔ believe done(7)\n".into(),
            ),
        ],
        params: vec![],
    };
    let nets = pipeline::oracle(&src, 20_000).unwrap_or_else(|e| panic!("refused {e:?}:\n{plans}"));
    nets.into_iter()
        .filter(|n| n.name == "A.Main")
        .flat_map(|n| n.theorems)
        .map(|t| (t.name, t.verdict))
        .collect()
}

fn status(v: &[(String, Verdict)], name: &str) -> String {
    v.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| word(v))
        .unwrap_or_else(|| panic!("no {name} in {v:?}"))
}

fn main_verdicts(goal: &str, plans: &str) -> (String, String) {
    let v = verdicts(goal, plans);
    (status(&v, "Main_no_deadlock"), status(&v, "Main_live_D"))
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

#[test]
fn a_goal_reads_the_attention_its_state_gives_not_the_initial_one() {
    let goal = "B(self) done(1) ∧ attending Calm";
    let v = verdicts(
        goal,
        "plan Main() : A ≔ believe alarm(1) ; believe done(1)\n",
    );
    assert_eq!(status(&v, "Main_live_D"), "refuted");
    let v = verdicts(goal, "plan Main() : A ≔ believe done(1)\n");
    assert_eq!(status(&v, "Main_live_D"), "proved");
    let v = verdicts(
        goal,
        "plan Main() : A\n{\n  c : chan Int\n  body ≔ (believe alarm(1) ; x ← c ; forget alarm(1) ; believe done(1)) ‖ 1 → c\n}\n",
    );
    assert_eq!(status(&v, "Main_live_D"), "proved");
    let v = verdicts(
        "B(self) done(1) ∧ attending Alarmed",
        "plan Main() : A ≔ believe alarm(1) ; believe done(1)\n",
    );
    assert_eq!(status(&v, "Main_live_D"), "proved");
}

#[test]
fn a_command_on_self_after_a_tail_call_lands_before_what_follows_it() {
    let goal = "B(self) done(2)";
    for (command, want) in [
        ("abort self", pair("proved", "refuted")),
        ("stop self", pair("refuted", "refuted")),
    ] {
        let plans = format!(
            "plan Main() : A ≔ GiveUp()\nplan GiveUp() : A ≔ {command} ; believe done(2)\n"
        );
        assert_eq!(main_verdicts(goal, &plans), want, "{command}");
        let direct = format!("plan Main() : A ≔ {command} ; believe done(2)\n");
        assert_eq!(main_verdicts(goal, &direct), want, "{command}, direct");
    }
}

#[test]
fn code_after_a_command_that_removes_its_thread_never_runs_whatever_lands_first() {
    let chan = |body: &str| format!("plan Main() : A\n{{\n  c : chan Int\n  body ≔ {body}\n}}\n");
    for body in [
        "(l : SKIP) ‖ (1 → c ; stop l) ‖ (x ← c ; abort self ; believe done(1))",
        "(l : STOP) ‖ (1 → c ; stop l) ‖ (x ← c ; abort self ; believe done(1))",
        "(l : SKIP) ‖ (1 → c ; stop l) ‖ (x ← c ; stop self ; believe done(1))",
        "(l : SKIP) ‖ (1 → c ; stop l) ‖ (x ← c ; restart self ; believe done(1))",
        "(l : SKIP) ‖ (1 → c ; stop l) ‖ (m : (x ← c ; abort m ; believe done(1)))",
    ] {
        let v = verdicts("B(self) done(1)", &chan(body));
        assert_eq!(status(&v, "Main_live_D"), "refuted", "{body}");
    }
    let v = verdicts(
        "B(Other) done(1)",
        &chan(
            "(l : SKIP) ‖ (1 → c ; stop l) ‖ (x ← c ; believe done(1) ; abort self ; tell Other done(1))",
        ),
    );
    assert_eq!(status(&v, "Main_live_D"), "refuted");
    let v = verdicts(
        "B(self) done(1)",
        &chan("(l : STOP) ‖ (1 → c ; stop l) ‖ (x ← c ; abort l ; believe done(1))"),
    );
    assert_eq!(status(&v, "Main_live_D"), "proved");
}

#[test]
fn a_diverging_step_faults_its_own_threads_not_the_network() {
    let plans = "plan R() : A ≔ restart self ‖ SKIP
plan Main() : A
{
  c : chan Int
  body ≔ R() ‖ 1 → c ‖ (x ← c ; believe done(1))
}
";
    assert_eq!(
        main_verdicts("B(self) done(1)", plans),
        pair("refuted", "proved")
    );
    let plans = "plan R() : A ≔ restart self ‖ SKIP
plan Ping(c: chan Int, d: chan Int) : A ≔ 1 → c ; y ← d ; Ping(c, d)
plan Pong(c: chan Int, d: chan Int) : A ≔ x ← c ; 2 → d ; Pong(c, d)
plan Main() : A
{
  c : chan Int
  d : chan Int
  body ≔ R() ‖ Ping(c, d) ‖ Pong(c, d)
}
";
    let v = verdicts("B(self) done(1)", plans);
    assert_eq!(status(&v, "Main_no_deadlock"), "proved");
}

#[test]
fn a_plan_that_ends_before_its_first_step_has_finished() {
    for body in [
        "SKIP",
        "SKIP ‖ SKIP",
        "l : SKIP",
        "match 1 { when 1 ↦ SKIP other ↦ STOP }",
        "SKIP ; SKIP",
        "Nothing()",
        "SKIP △ STOP",
    ] {
        let plans = format!("plan Nothing() : A ≔ SKIP\nplan Main() : A ≔ {body}\n");
        assert_eq!(
            main_verdicts("B(self) done(1)", &plans),
            pair("proved", "refuted"),
            "{body}"
        );
    }
    assert_eq!(
        main_verdicts("B(self) done(1)", "plan Main() : A ≔ STOP\n"),
        pair("refuted", "refuted")
    );
}

#[test]
fn an_interrupt_ends_when_its_left_side_ends() {
    let plans = "plan Main() : A\n{\n  c : chan Int\n  body ≔ (believe done(1)) △ (1 → c)\n}\n";
    assert_eq!(
        main_verdicts("B(self) done(1)", plans),
        pair("proved", "proved")
    );
    let plans = "plan Main() : A\n{\n  c : chan Int\n  body ≔ ((y ← c ; believe done(2)) △ (x ← c ; believe x(1))) ‖ 1 → c\n}\n";
    let v = verdicts("B(self) x(1)", plans);
    assert_eq!(status(&v, "Main_no_deadlock"), "proved");
    assert_eq!(status(&v, "Main_live_D"), "refuted");
}

#[test]
fn a_finished_branch_continues_before_the_threads_to_its_right() {
    let plans = "plan Main() : A\n{\n  c : chan Int\n  body ≔ ((SKIP ‖ 1 → c) ; believe x(1)) ‖ (y ← c ; forget x(1))\n}\n";
    assert_eq!(
        main_verdicts("B(self) x(1)", plans),
        pair("proved", "refuted")
    );
    let plans = "plan Main() : A\n{\n  c : chan Int\n  body ≔ (y ← c ; forget x(1)) ‖ ((SKIP ‖ 1 → c) ; believe x(1))\n}\n";
    assert_eq!(
        main_verdicts("B(self) x(1)", plans),
        pair("proved", "proved")
    );
}

const SIBLINGS: &str = "plan Believer() : A
{
  body ≔ STOP
  on abort ≔ believe x(1)
}
plan Forgetter() : A
{
  body ≔ STOP
  on abort ≔ forget x(1)
}
";

#[test]
fn sibling_handlers_run_left_to_right_and_inner_before_outer() {
    let plans = format!("{SIBLINGS}plan Main() : A ≔ (l : (Believer() ‖ Forgetter())) ‖ abort l\n");
    assert_eq!(
        main_verdicts("B(self) x(1)", &plans),
        pair("proved", "refuted")
    );
    let plans = format!("{SIBLINGS}plan Main() : A ≔ (l : (Forgetter() ‖ Believer())) ‖ abort l\n");
    assert_eq!(
        main_verdicts("B(self) x(1)", &plans),
        pair("proved", "proved")
    );
    let plans = format!(
        "{SIBLINGS}plan Outer() : A\n{{\n  body ≔ Believer() ‖ STOP\n  on abort ≔ forget x(1)\n}}\nplan Main() : A ≔ (l : Outer()) ‖ abort l\n"
    );
    assert_eq!(
        main_verdicts("B(self) x(1)", &plans),
        pair("proved", "refuted")
    );
}

#[test]
fn aborting_a_label_around_an_unresolved_choice_runs_no_handler_of_its_alternatives() {
    let plans = "plan Alt(c: chan Int) : A
{
  body ≔ y ← c
  on abort ≔ believe x(1)
}
plan Main() : A
{
  c : chan Int
  body ≔ (l : ((Alt(c) ; SKIP) □ (Alt(c) ; SKIP))) ‖ abort l
}
";
    assert_eq!(
        main_verdicts("B(self) x(1)", plans),
        pair("proved", "refuted")
    );
    let plans = "plan Alt(c: chan Int) : A
{
  body ≔ y ← c ; STOP
  on abort ≔ believe x(1)
}
plan Main() : A
{
  c : chan Int
  body ≔ (l : ((Alt(c) ; SKIP) □ (Alt(c) ; SKIP))) ‖ (1 → c ; abort l)
}
";
    assert_eq!(
        main_verdicts("B(self) x(1)", plans),
        pair("proved", "proved")
    );
}

#[test]
fn resume_does_not_revive_a_child_that_stopped_itself() {
    let plans = "plan C(c: chan Int) : A
{
  body ≔ 1 → c ; stop self ; believe done(1)
  on resume ≔ believe x(1)
}
plan Main() : A
{
  c : chan Int
  body ≔ (l : C(c)) ‖ (y ← c ; stop l ; resume l)
}
";
    assert_eq!(
        main_verdicts("B(self) done(1)", plans),
        pair("refuted", "refuted")
    );
    assert_eq!(
        main_verdicts("B(self) x(1)", plans),
        pair("refuted", "refuted")
    );
    let plans = "plan C(c: chan Int) : A
{
  body ≔ y ← c ; believe done(1)
  on resume ≔ believe x(1)
}
plan Main() : A
{
  c : chan Int
  body ≔ (l : C(c)) ‖ (stop l ; resume l ; 1 → c)
}
";
    assert_eq!(
        main_verdicts("B(self) done(1) ∧ B(self) x(1)", plans),
        pair("proved", "proved")
    );
}

#[test]
fn a_handler_commanding_its_own_instance_while_it_is_aborted_is_passed_over() {
    for command in ["abort self", "stop self", "restart self"] {
        let plans = format!(
            "plan Main() : A\n{{\n  body ≔ abort self\n  on abort ≔ {command} ; believe x(1)\n}}\n"
        );
        assert_eq!(
            main_verdicts("B(self) x(1)", &plans),
            pair("proved", "proved"),
            "{command}, on itself"
        );
        let plans = format!(
            "plan C() : A\n{{\n  body ≔ STOP\n  on abort ≔ {command} ; believe x(1)\n}}\nplan Main() : A ≔ (l : C()) ‖ abort l\n"
        );
        assert_eq!(
            main_verdicts("B(self) x(1)", &plans),
            pair("proved", "proved"),
            "{command}"
        );
    }
}

#[test]
fn an_abort_cuts_short_the_handlers_of_a_stop_but_a_stop_does_not() {
    let plans = "plan C(c: chan Int) : A
{
  body ≔ STOP
  on stop ≔ y ← c
  on abort ≔ believe x(1)
}
plan Main() : A
{
  c : chan Int
  body ≔ (l : C(c)) ‖ (stop l ; COMMAND l)
}
";
    let abort = plans.replace("COMMAND", "abort");
    assert_eq!(
        main_verdicts("B(self) x(1)", &abort),
        pair("proved", "proved")
    );
    for command in ["stop", "resume"] {
        let plans = plans.replace("COMMAND", command);
        assert_eq!(
            main_verdicts("B(self) x(1)", &plans),
            pair("refuted", "refuted"),
            "{command}"
        );
    }
}

#[test]
fn division_and_remainder_round_toward_zero() {
    let plans =
        "plan Main() : A ≔ believe done(-7 / 2) ; believe x(-7 % 2) ; believe alarm(7 % -2)\n";
    let goal = "B(self) done(-3) ∧ B(self) x(-1) ∧ B(self) alarm(1)";
    assert_eq!(main_verdicts(goal, plans), pair("proved", "proved"));
    let plans = "plan Main() : A ≔ Div(0)\nplan Div(k: Int) : A ≔ believe done(1 / k)\n";
    assert_eq!(
        main_verdicts("B(self) done(1)", plans),
        pair("refuted", "refuted")
    );
}

#[test]
fn tells_are_numbered_body_first_then_handlers_in_stop_resume_abort_order() {
    // The body's tell is the first (refuted: it tells `done(1)` before believing it); the
    // handlers' follow, `on stop` then `on abort`, whatever order they are written in. A tell
    // in a handler is decided over the scene and the commands from outside of the theorems
    // (docs/language.md §6): `on stop` runs only for `stop self` here (no desire of higher
    // priority, no stoppable theorem), after believing what it tells: proved; `on abort` runs
    // when the runtime aborts the plan (Main_abortable), in the first state too, where A
    // believes no `x(1)`: refuted.
    let plans = "plan Main() : A
{
  on abort ≔ tell Other x(1)
  on stop ≔ believe alarm(1) ; tell Other alarm(1)
  body ≔ tell Other done(1) ; stop self
}
";
    let v = verdicts("B(self) done(1)", plans);
    assert_eq!(status(&v, "Main_tell_feasible_1"), "refuted");
    assert_eq!(status(&v, "Main_tell_feasible_2"), "proved");
    assert_eq!(status(&v, "Main_tell_feasible_3"), "refuted");
    // The numbering itself, with the tells in the body: the second one is refuted.
    let plans = "plan Main() : A ≔ believe done(1) ; tell Other done(1) ; tell Other x(1)\n";
    let v = verdicts("B(self) done(1)", plans);
    assert_eq!(status(&v, "Main_tell_feasible_1"), "proved");
    assert_eq!(status(&v, "Main_tell_feasible_2"), "refuted");
}
