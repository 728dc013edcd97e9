//! The oracle alone on hand-written projects, against the verdicts docs/semantics.md and
//! docs/language.md give (the items 1–8 among them). These do not run the build.

use hilbert_oracle::decide::{Network, Verdict};
use hilbert_oracle::pipeline::{self, Sources};

const AGENT: &str = "agent A : Agency
{
  belief done(n: Int)
  belief alarm(n: Int)
  belief finished(n: Int)
  desire Done reachable by [Run]
  achieved Done when GOAL
  commit blind
  attention Calm initially
  attention Alarmed
  EXTRA
  plan Run ↦ P.Main(ARGS)
}
agent B : Agency
{
  belief done(n: Int)
  desire Any reachable by [Idle]
  achieved Any when B(self) done(1)
  commit blind
  attention Calm initially
  plan Idle ↦ Q.Idle
}
";

fn project(goal: &str, extra: &str, args: &str, plans: &str, params: &[&str]) -> Vec<Network> {
    // An `extra` that commits agent A otherwise replaces its `commit blind`.
    let agent = match extra.contains("commit ") {
        true => AGENT.replacen("  commit blind\n", "", 1),
        false => AGENT.to_string(),
    };
    let ha = agent.replace("GOAL", goal).replace("EXTRA", extra).replace(
        "(ARGS)",
        &if args.is_empty() {
            String::new()
        } else {
            format!("({args})")
        },
    );
    let src = Sources {
        files: vec![
            ("A.ha".into(), ha),
            ("P.hk".into(), plans.into()),
            ("Q.hk".into(), "plan Idle() : B ≔ SKIP\n".into()),
        ],
        params: params.iter().map(|s| s.to_string()).collect(),
    };
    match pipeline::oracle(&src, 10_000) {
        Ok(n) => n,
        Err(codes) => panic!("the checker refused the project: {codes:?}\n{plans}"),
    }
}

fn verdict(nets: &[Network], theorem: &str) -> Verdict {
    nets.iter()
        .find(|n| n.name == "A.Run")
        .and_then(|n| n.theorems.iter().find(|t| t.name == theorem))
        .map(|t| t.verdict.clone())
        .unwrap_or_else(|| panic!("no theorem {theorem}: {nets:?}"))
}

#[test]
fn a_computed_binding_argument_is_passed() {
    // Issue item 1: Run(1 + 1) is Run(2), which deadlocks.
    let plans = "plan Main(k: Int) : A ≔ match k { when 0 ↦ believe done(1) other ↦ STOP }\n";
    let n = project("B(self) done(1)", "", "1 + 1", plans, &[]);
    assert_eq!(verdict(&n, "Main_no_deadlock"), Verdict::Refuted(Some(0)));
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Refuted(Some(0)));
    let n = project("B(self) done(1)", "", "0", plans, &[]);
    assert_eq!(verdict(&n, "Main_no_deadlock"), Verdict::Proved);
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Proved);
}

#[test]
fn a_decimal_in_a_condition_is_refused() {
    // Issue item 2: a condition has no decimals (docs/language.md §2), so the check refuses
    // one (HA0035) rather than give it a meaning; before, the build lowered it as 0.
    let ha = AGENT
        .replace("GOAL", "B(self) done(1) ∨ (B(self) done(0) ∧ 0.1 = 0.2)")
        .replace("EXTRA", "")
        .replace("(ARGS)", "");
    let src = Sources {
        files: vec![
            ("A.ha".into(), ha),
            ("P.hk".into(), "plan Main() : A ≔ believe done(0)\n".into()),
            ("Q.hk".into(), "plan Idle() : B ≔ SKIP\n".into()),
        ],
        params: Vec::new(),
    };
    match pipeline::oracle(&src, 10_000) {
        Ok(n) => panic!("the checker accepted a decimal in a condition: {n:?}"),
        Err(codes) => assert!(codes.iter().all(|c| c == "HA0035"), "{codes:?}"),
    }
}

#[test]
fn the_agents_own_name_in_a_belief_test_is_its_own_belief() {
    // Issue item 3 (one of the two readings it allows).
    let n = project(
        "B(A) done(1)",
        "",
        "",
        "plan Main() : A ≔ believe done(1)\n",
        &[],
    );
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Proved);
}

#[test]
fn goals_read_the_attention_the_beliefs_give() {
    // Issue item 4.
    let n = project(
        "B(self) finished(1) ∧ attending Calm",
        "when B(self) alarm(1) attend Alarmed",
        "",
        "plan Main() : A ≔ believe alarm(1) ; believe finished(1)\n",
        &[],
    );
    assert!(matches!(verdict(&n, "Run_live_Done"), Verdict::Refuted(_)));
}

#[test]
fn nothing_after_abort_self_runs_after_a_tail_call() {
    // Issue item 5.
    let plans = "plan Main() : A ≔ GiveUp()\nplan GiveUp() : A ≔ abort self ; believe done(1)\n";
    let n = project("B(self) done(1)", "", "", plans, &[]);
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Refuted(Some(1)));
    let plans = "plan Main() : A ≔ GiveUp()\nplan GiveUp() : A ≔ stop self ; believe done(1)\n";
    let n = project("B(self) done(1)", "", "", plans, &[]);
    assert_eq!(verdict(&n, "Main_no_deadlock"), Verdict::Refuted(Some(1)));
}

#[test]
fn a_thread_a_command_removed_does_not_go_on() {
    // Issue item 6: another command was queued first in the same step.
    let plans = "plan Main() : A
{
  c : chan Int
  body ≔ (l : SKIP) ‖ (1 → c ; stop l) ‖ (x ← c ; abort self ; believe done(1))
}
";
    let n = project("B(self) done(1)", "", "", plans, &[]);
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Refuted(Some(1)));
}

#[test]
fn a_diverging_step_faults_its_thread_only() {
    // Issue item 7.
    let plans = "plan Main() : A
{
  c : chan Int
  body ≔ R() ‖ 1 → c ‖ (x ← c ; believe done(1))
}
plan R() : A ≔ restart self ‖ SKIP
";
    let n = project("B(self) done(1)", "", "", plans, &[]);
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Proved);
    // The faulted thread never finishes: the scene deadlocks once the exchange is done.
    assert!(matches!(
        verdict(&n, "Main_no_deadlock"),
        Verdict::Refuted(_)
    ));
}

#[test]
fn a_plan_that_ends_before_its_first_step_has_finished() {
    // Issue item 8.
    for body in [
        "SKIP",
        "SKIP ‖ SKIP",
        "l : SKIP",
        "match 1 { when 1 ↦ SKIP other ↦ STOP }",
    ] {
        let n = project("true", "", "", &format!("plan Main() : A ≔ {body}\n"), &[]);
        assert_eq!(verdict(&n, "Main_no_deadlock"), Verdict::Proved, "{body}");
        assert_eq!(n[0].states, 1, "{body}");
    }
}

#[test]
fn a_stopped_plan_no_one_resumes_is_deadlocked() {
    let n = project(
        "true",
        "",
        "",
        "plan Main() : A ≔ believe done(1) ; stop self ; believe done(2)\n",
        &[],
    );
    assert_eq!(verdict(&n, "Main_no_deadlock"), Verdict::Refuted(Some(1)));
    let sets: Vec<Vec<String>> = n[0].belief_sets.iter().cloned().collect();
    assert_eq!(sets, vec![vec![], vec!["done(1)".to_string()]]);
}

#[test]
fn belief_sets_of_a_parallel_pair() {
    let n = project(
        "true",
        "",
        "",
        "plan Main() : A ≔ believe done(1) ‖ believe done(2)\n",
        &[],
    );
    assert_eq!(n[0].belief_sets.len(), 4);
    assert_eq!(n[0].states, 4);
}

#[test]
fn tells_are_feasible_when_believed_and_not_yet_told() {
    let plans =
        "plan Main() : A ≔ believe done(1) ; tell B done(1) ; tell B done(1) ; tell B done(2)\n";
    let n = project("true", "", "", plans, &[]);
    assert_eq!(verdict(&n, "Main_tell_feasible_1"), Verdict::Proved);
    assert!(matches!(
        verdict(&n, "Main_tell_feasible_2"),
        Verdict::Refuted(_)
    ));
    assert!(matches!(
        verdict(&n, "Main_tell_feasible_3"),
        Verdict::Refuted(_)
    ));
}

#[test]
fn abort_handlers_run_innermost_first_and_release_needs_them_to_finish() {
    let plans = "plan Main() : A
{
  body ≔ believe alarm(1) ; Child() ; believe done(1)
  on abort ≔ believe done(2)
}
plan Child() : A
{
  body ≔ STOP
  on abort ≔ STOP
}
";
    let extra = "impossible Done when B(self) alarm(1) because \"alarm\"\n  commit single_minded";
    let n = project("B(self) done(1)", extra, "", plans, &[]);
    assert_eq!(verdict(&n, "Run_released_Done"), Verdict::Refuted(None));
    let n = project(
        "B(self) done(1)",
        extra,
        "",
        &plans.replace("on abort ≔ STOP", "on abort ≔ SKIP"),
        &[],
    );
    assert_eq!(verdict(&n, "Run_released_Done"), Verdict::Proved);
}

#[test]
fn a_binding_that_passes_an_unset_parameter_is_unproved() {
    let ha_plans = "plan Main(k: Int) : A ≔ believe done(k)\n";
    let src = |params: Vec<String>| Sources {
        files: vec![
            (
                "A.ha".into(),
                AGENT
                    .replace("agent A : Agency", "agent A(t: Int) : Agency")
                    .replace("GOAL", "B(self) done(1)")
                    .replace("EXTRA", "")
                    .replace("(ARGS)", "(-t)"),
            ),
            ("P.hk".into(), ha_plans.into()),
            ("Q.hk".into(), "plan Idle() : B ≔ SKIP\n".into()),
        ],
        params,
    };
    let n = pipeline::oracle(&src(vec![]), 1000).expect("accepted");
    assert!(matches!(
        verdict(&n, "Main_no_deadlock"),
        Verdict::Unproved(_)
    ));
    let n = pipeline::oracle(&src(vec!["A.t=-1".into()]), 1000).expect("accepted");
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Proved);
    let n = pipeline::oracle(&src(vec!["A.t=5".into()]), 1000).expect("accepted");
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Refuted(Some(1)));
}

#[test]
fn a_tail_call_after_a_parallel_part_continues_the_loop_in_the_same_step() {
    let plans = "plan Main() : A ≔ Loop(2)
plan Loop(k: Int) : A ≔ match k { when 0 ↦ SKIP other ↦ (believe done(k) ‖ SKIP) ; Loop(k - 1) }
";
    let n = project("B(self) done(1)", "", "", plans, &[]);
    assert_eq!(verdict(&n, "Run_live_Done"), Verdict::Proved);
    assert_eq!(verdict(&n, "Main_no_deadlock"), Verdict::Proved);
    let sets: Vec<Vec<String>> = n[0].belief_sets.iter().cloned().collect();
    assert_eq!(
        sets,
        vec![vec![], vec!["done(1)".to_string(), "done(2)".to_string()]]
    );
}

#[test]
fn the_oracle_shares_no_code_with_the_lowering_the_explorers_or_the_kernel() {
    // The oracle's three modules read only the checked program (syntax trees and the resolved
    // `Program`); the build's side of the comparison lives in pipeline.rs.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for file in ["model.rs", "sem.rs", "decide.rs"] {
        let text = std::fs::read_to_string(dir.join(file)).expect("readable");
        for banned in [
            "lower::",
            "explore::",
            "obligations::",
            "hilbert_kernel",
            "hilbert_certificates",
            "ir::",
        ] {
            assert!(
                !text.contains(banned),
                "oracle/src/{file} mentions `{banned}`"
            );
        }
    }
    let toml = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"),
    )
    .expect("readable");
    assert!(!toml.contains("hilbert-kernel") && !toml.contains("hilbert-certificates"));
}

/// The oracle's verdict on one theorem of `A.Run`, with no binding argument or parameter.
fn one(goal: &str, extra: &str, plans: &str, theorem: &str) -> Verdict {
    verdict(&project(goal, extra, "", plans, &[]), theorem)
}

fn has(nets: &[Network], theorem: &str) -> bool {
    nets.iter()
        .filter(|n| n.name == "A.Run")
        .any(|n| n.theorems.iter().any(|t| t.name == theorem))
}

#[test]
fn release_is_a_theorem_of_a_single_minded_agent_and_the_atom_may_arrive_from_outside() {
    // The plan never believes alarm(1); the atom may arrive in any state (docs/language.md §6),
    // and after the first step Child's `on abort` never finishes.
    let plans = "plan Main() : A
{
  body ≔ believe done(1) ; Child() ; believe done(2)
}
plan Child() : A
{
  body ≔ STOP
  on abort ≔ STOP
}
";
    let impossible = "impossible Done when B(self) alarm(1) because \"alarm\"";
    assert_eq!(
        one(
            "B(self) done(1)",
            &format!("{impossible}\n  commit single_minded"),
            plans,
            "Run_released_Done"
        ),
        Verdict::Refuted(None)
    );
    for commit in ["blind", "open_minded"] {
        let extra = format!("{impossible}\n  commit {commit}");
        let n = project("B(self) done(1)", &extra, "", plans, &[]);
        assert!(!has(&n, "Run_released_Done"), "{commit}");
    }
    // A condition that is not one belief with constant arguments gives no theorem.
    let extra = "impossible Done when B(self) alarm(k) because \"alarm\"\n  commit single_minded";
    let n = project("B(self) done(1)", extra, "", plans, &[]);
    assert!(!has(&n, "Run_released_Done"));
}

/// Agent A with a desire of higher priority than `Done`, so that the runtime can stop `Run`.
const URGENT: &str =
    "desire Urgent priority 1 reachable by [Run]\n  achieved Urgent when B(self) done(9)";

#[test]
fn stoppable_needs_a_higher_priority_and_a_stop_or_resume_handler() {
    let plans = "plan Main() : A
{
  body ≔ believe done(1)
  on stop ≔ STOP
}
";
    let n = project("B(self) done(1)", URGENT, "", plans, &[]);
    // A stop in the first state never settles: the handler is stuck.
    assert_eq!(verdict(&n, "Main_stoppable"), Verdict::Refuted(None));
    // Without a desire of higher priority the runtime never stops it: no theorem.
    let n = project("B(self) done(1)", "", "", plans, &[]);
    assert!(!has(&n, "Main_stoppable"));
    // Without a stop or resume handler: no theorem either.
    let abort_only = plans.replace("on stop ≔ STOP", "on abort ≔ STOP");
    let n = project("B(self) done(1)", URGENT, "", &abort_only, &[]);
    assert!(!has(&n, "Main_stoppable"));
}

#[test]
fn a_stop_settles_suspended_then_a_resume_and_an_abort_must_settle_too() {
    let plans = "plan Main() : A
{
  c : chan Int
  body ≔ believe done(1) ; believe done(2)
  on stop ≔ (1 → c) ‖ (x ← c ; believe done(3))
  on resume ≔ RESUME
}
";
    assert_eq!(
        one(
            "B(self) done(2)",
            URGENT,
            &plans.replace("RESUME", "(2 → c) ‖ (y ← c)"),
            "Main_stoppable"
        ),
        Verdict::Proved
    );
    // The resume's handler never finishes: the second exploration refutes it.
    assert_eq!(
        one(
            "B(self) done(2)",
            URGENT,
            &plans.replace("RESUME", "y ← c"),
            "Main_stoppable"
        ),
        Verdict::Refuted(None)
    );
}

#[test]
fn a_tell_in_a_handler_is_decided_over_the_commands_from_outside_and_their_landings() {
    // The scene never aborts: only an abort from outside runs the handler, and in the first
    // state (before `believe done(1)`) the tell, the handler's first action, runs infeasibly
    // in the landing itself.
    let plans = "plan Main() : A
{
  body ≔ believe done(1) ; believe done(2)
  on abort ≔ tell B done(1)
}
";
    let on_stop = plans.replace("on abort", "on stop");
    let cases = [
        ("", plans.to_string(), Verdict::Refuted(None)),
        // When the handler believes it first, every run of it is feasible.
        (
            "",
            plans.replace("on abort ≔ tell", "on abort ≔ believe done(1) ; tell"),
            Verdict::Proved,
        ),
        // A tell in `on stop` with no theorem about stops (no higher priority) is decided
        // over the scene alone, where the handler never runs; with one, over the stops too.
        ("", on_stop.clone(), Verdict::Proved),
        (URGENT, on_stop, Verdict::Refuted(None)),
    ];
    for (extra, plans, expected) in cases {
        let got = one("B(self) done(2)", extra, &plans, "Main_tell_feasible_1");
        assert_eq!(got, expected, "{extra}\n{plans}");
    }
}

#[test]
fn an_abort_from_outside_on_a_root_restarting_itself_is_done_only_when_the_scene_ends() {
    // The abort lands while the restart's handlers run and does nothing; the restarted body
    // is settled but the abort never happened, and the plan may restart forever.
    let plans = "plan Main() : A
{
  body ≔ restart self □ SKIP
  on abort ≔ SKIP □ SKIP
}
";
    assert_eq!(
        one("B(self) done(1)", "", plans, "Main_abortable"),
        Verdict::Refuted(None)
    );
    assert_eq!(
        one(
            "B(self) done(1)",
            "",
            &plans.replace("restart self □ SKIP", "abort self □ SKIP"),
            "Main_abortable"
        ),
        Verdict::Proved
    );
}
