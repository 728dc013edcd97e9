//! `on stop` and `on resume` handlers that take steps, at run time, as the build's
//! `Plan_stoppable` proves them: a stopped intention takes the steps of its `on stop` handlers
//! (it is *stopping*) until its stop has completed (*suspended*), only then can it be resumed;
//! a resumed one takes the steps of its `on resume` handlers (*resuming*) before its plan goes
//! on, and is stopped again then if a subgoal was adopted meanwhile; the commitment law waits
//! for those handlers, and one stuck in them is said so and released once.
//!
//! A courier delivers three parcels (`Round`, priority 0, one parcel a tick) and refuels when its
//! fuel runs low (`Fill`, priority 5, three ticks): the refuelling stops the round, and resumes
//! it when done.

use hilbert_frontend::{check_project, project};
use hilbert_runtime::{Entry, Event, Hosts, Reconsideration, Scenario, System};

/// The courier's agent; `Round`'s handlers are `handlers` (written inside its plan block).
fn courier(handlers: &str) -> hilbert_certificates::ir::Ir {
    let agent = r#"agent Courier : Agency
{
  belief delivered(n: Int)
  belief fuel(at: Int)
  belief refuelled(n: Int)
  belief blocked(n: Int)
  belief parked(n: Int)
  belief checked(n: Int)
  belief paused(n: Int)
  belief unloaded(n: Int)

  desire Deliver reachable by [Round]
  desire Refuel priority 5 reachable by [Fill]

  commit single_minded

  attention Driving initially

  intend Round for Deliver when ¬ B(self) delivered(3)
  achieved Deliver when B(self) delivered(3)
  impossible Deliver when B(self) blocked(1) because "the road is blocked"
  intend Fill for Refuel when B(self) fuel(1) ∧ ¬ B(self) refuelled(1)
  achieved Refuel when B(self) refuelled(1)

  plan Round ↦ Van.Round
  plan Fill ↦ Van.Fill
}
"#;
    let plans = format!(
        r#"-- Three ticks pace each plan; Signal gives a handler something to wait for.
plan Ticks(c: chan Int) : Courier ≔ 1 → c ; 2 → c ; 3 → c

plan Signal(p: chan Int) : Courier ≔ 1 → p ; 2 → p ; 3 → p

plan Round() : Courier
{{
  c : chan Int
  p : chan Int
  body ≔ Ticks(c) ‖ (a ← c ; believe delivered(1) ; b ← c ; believe delivered(2) ; d ← c ; believe delivered(3))
{handlers}
}}

plan Fill() : Courier
{{
  c : chan Int
  body ≔ Ticks(c) ‖ (a ← c ; b ← c ; d ← c ; believe refuelled(1))
}}
"#
    );
    let mut loaded = project::Loaded::default();
    project::add_bytes(&mut loaded, "Courier.ha".into(), agent.as_bytes().to_vec());
    project::add_bytes(&mut loaded, "Van.hk".into(), plans.into_bytes());
    let checked = check_project(&loaded);
    checked.ir.unwrap_or_else(|| {
        panic!(
            "the courier checks: {:#?}",
            checked
                .diagnostics
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
        )
    })
}

/// Runs the courier (cautious) with the scenario written as JSON.
fn run(ir: &hilbert_certificates::ir::Ir, scenario: &str) -> Vec<Entry> {
    run_with(ir, scenario, Reconsideration::Cautious)
}

/// Runs the courier under `policy` with the scenario written as JSON.
fn run_with(
    ir: &hilbert_certificates::ir::Ir,
    scenario: &str,
    policy: Reconsideration,
) -> Vec<Entry> {
    let scenario: Scenario = serde_json::from_str(scenario).expect("a scenario");
    let mut system =
        System::new(ir, &["Courier".to_string()], policy, scenario, Hosts::new()).unwrap();
    system.run()
}

/// The index of the first entry that satisfies `f`.
fn first(journal: &[Entry], f: impl Fn(&Event) -> bool) -> usize {
    journal
        .iter()
        .position(|e| f(&e.event))
        .unwrap_or_else(|| panic!("no such entry: {journal:#?}"))
}

/// The index of the step that added `atom`.
fn adding(journal: &[Entry], atom: &str) -> usize {
    first(
        journal,
        |e| matches!(e, Event::Step { added, .. } if added.iter().any(|a| a == atom)),
    )
}

/// The statuses journaled for intention `id`, in order.
fn statuses(journal: &[Entry], id: u64) -> Vec<String> {
    journal
        .iter()
        .filter_map(|e| match &e.event {
            Event::Status {
                intention, status, ..
            } if *intention == id => Some(status.clone()),
            _ => None,
        })
        .collect()
}

/// Every release of intention `id`: its reason.
fn releases(journal: &[Entry], id: u64) -> Vec<String> {
    journal
        .iter()
        .filter_map(|e| match &e.event {
            Event::Release {
                intention, reason, ..
            } if *intention == id => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

const FUEL_AT_1: &str =
    r#"{"cycles": 40, "seed": 0, "events": [{"cycle": 1, "believe": ["fuel(1)"]}]}"#;

#[test]
fn on_stop_handlers_that_communicate_run_while_stopped_and_the_round_resumes_and_finishes() {
    // The handler brings its own sender: Signal's first two values, then parked(1).
    let ir = courier("  on stop ≔ Signal(p) ‖ (x ← p ; y ← p ; believe parked(1) ; z ← p)");
    let journal = run(&ir, FUEL_AT_1);
    // Before: the round was marked suspended at once, its handlers never ran while it was
    // stopped, the resume was passed over (the handlers were under way) and the plan stuck.
    assert!(
        !journal
            .iter()
            .any(|e| matches!(e.event, Event::Stuck { .. })),
        "{journal:#?}"
    );
    assert_eq!(releases(&journal, 1), ["achieved"], "{journal:#?}");
    // The stop lands, the handlers take their three steps while Fill runs, and only then is
    // the round suspended; it is resumed once Fill is released, and delivers the rest.
    assert_eq!(
        statuses(&journal, 1),
        ["stopping", "suspended", "running"],
        "{journal:#?}"
    );
    let parked = adding(&journal, "parked(1)");
    let suspended = first(
        &journal,
        |e| matches!(e, Event::Status { intention: 1, status, .. } if status == "suspended"),
    );
    let fill_released = first(&journal, |e| {
        matches!(e, Event::Release { intention: 2, .. })
    });
    let resumed = first(
        &journal,
        |e| matches!(e, Event::Command { intention: 1, command, .. } if command == "resume"),
    );
    assert!(parked < suspended && suspended < fill_released && fill_released < resumed);
    assert!(adding(&journal, "delivered(3)") > resumed);
    assert!(matches!(
        &journal[adding(&journal, "delivered(3)")].event,
        Event::Step { intention: 1, .. }
    ));
}

#[test]
fn a_stop_handler_that_never_finishes_is_stuck_during_it_and_released_once() {
    let ir = courier("  on stop ≔ STOP");
    let journal = run(&ir, FUEL_AT_1);
    let stuck: Vec<(u64, String)> = journal
        .iter()
        .filter_map(|e| match &e.event {
            Event::Stuck {
                intention: 1,
                during,
                ..
            } => Some((e.cycle, during.clone())),
            _ => None,
        })
        .collect();
    // Said as it stops (cycle 1, while Fill runs), not after Fill as a plan stuck in its body.
    assert_eq!(
        stuck,
        [(1, "its on stop handlers".to_string())],
        "{journal:#?}"
    );
    assert_eq!(
        releases(&journal, 1),
        ["plan stuck: no process can move"],
        "{journal:#?}"
    );
    // Nothing of #1 after it is dropped; Fill finishes, and the round is adopted again.
    let dropped = first(&journal, |e| {
        matches!(e, Event::Release { intention: 1, .. })
    });
    assert!(journal[dropped + 1..].iter().all(|e| !matches!(
        e.event,
        Event::Step { intention: 1, .. }
            | Event::Command { intention: 1, .. }
            | Event::Status { intention: 1, .. }
    )));
    assert_eq!(releases(&journal, 2), ["achieved"], "{journal:#?}");
    assert_eq!(releases(&journal, 3), ["achieved"], "{journal:#?}");
}

#[test]
fn on_resume_handlers_run_over_steps_and_a_subgoal_adopted_meanwhile_stops_the_round_after_them() {
    // The stop completes as it lands; the resume handlers take three steps.
    let ir = courier(
        "  on stop ≔ believe paused(1)\n  on resume ≔ Signal(p) ‖ (x ← p ; y ← p ; z ← p ; believe checked(1))",
    );
    // Fill runs at cycles 1-3, is released at 4 and the round resumed; at 5, while its resume
    // handlers run, the courier forgets it refuelled, and Fill is adopted again.
    let journal = run(
        &ir,
        r#"{"cycles": 40, "seed": 0, "events": [{"cycle": 1, "believe": ["fuel(1)"]},
            {"cycle": 5, "forget": ["refuelled(1)"]}]}"#,
    );
    let again = first(&journal, |e| matches!(e, Event::Adopt { intention: 3, .. }));
    assert_eq!(journal[again].cycle, 5, "{journal:#?}");
    // The round is left to finish its resume: its handlers' steps go on beside the new Fill
    // (before, the adoption stopped the round in its handlers, the stop was passed over, and
    // the handlers waited, unstepped, until the second Fill was released).
    let checked = adding(&journal, "checked(1)");
    let fill_again_released = first(&journal, |e| {
        matches!(e, Event::Release { intention: 3, .. })
    });
    assert!(
        again < checked && checked < fill_again_released,
        "{journal:#?}"
    );
    // Then it runs, and is stopped again right then: no step of the round's body between the
    // second adoption of Fill and its release.
    let resumed = first(
        &journal,
        |e| matches!(e, Event::Status { intention: 1, status, .. } if status == "running"),
    );
    assert!(checked < resumed);
    assert!(
        matches!(&journal[resumed + 1].event, Event::Command { intention: 1, command, reason, .. }
            if command == "stop" && reason == "subgoal `Refuel` (priority 5) takes over"),
        "{journal:#?}"
    );
    assert!(
        !journal[again..fill_again_released].iter().any(|e| matches!(
            &e.event,
            Event::Step { intention: 1, process, .. } if process.contains("Ticks")
        )),
        "{journal:#?}"
    );
    assert_eq!(
        statuses(&journal, 1),
        [
            "suspended",
            "resuming",
            "running",
            "suspended",
            "resuming",
            "running"
        ],
        "{journal:#?}"
    );
    assert_eq!(releases(&journal, 1), ["achieved"], "{journal:#?}");
}

#[test]
fn the_commitment_law_waits_for_stop_handlers_then_aborts_the_suspended_round() {
    // Stopping takes three steps; blocked(1) (Deliver impossible) is believed at cycle 2,
    // while they run.
    let ir = courier(
        "  on stop ≔ Signal(p) ‖ (x ← p ; y ← p ; believe parked(1) ; z ← p)\n  on abort ≔ Signal(p) ‖ (x ← p ; y ← p ; z ← p ; believe unloaded(1))",
    );
    let journal = run(
        &ir,
        r#"{"cycles": 40, "seed": 0, "events": [{"cycle": 1, "believe": ["fuel(1)"]},
            {"cycle": 2, "believe": ["blocked(1)"]}]}"#,
    );
    // Released once, as impossible, only after its stop has completed (before, it was
    // released at once, and the abort cut its on stop handlers short: no parked(1)).
    assert_eq!(releases(&journal, 1), ["impossible"], "{journal:#?}");
    let released = first(&journal, |e| {
        matches!(e, Event::Release { intention: 1, .. })
    });
    let parked = journal.iter().position(
        |e| matches!(&e.event, Event::Step { added, .. } if added.iter().any(|a| a == "parked(1)")),
    );
    assert!(
        parked.is_some_and(|p| p < released),
        "its on stop handlers finish before the release: {journal:#?}"
    );
    let suspended = first(
        &journal,
        |e| matches!(e, Event::Status { intention: 1, status, .. } if status == "suspended"),
    );
    assert!(suspended < released, "{journal:#?}");
    // Then its on abort handlers run over three steps, and it ends.
    assert!(matches!(
        &journal[released + 1].event,
        Event::Command { intention: 1, command, .. } if command == "abort"
    ));
    let unloaded = adding(&journal, "unloaded(1)");
    assert!(unloaded > released);
    let steps_after: usize = journal[released..=unloaded]
        .iter()
        .filter(|e| matches!(e.event, Event::Step { intention: 1, .. }))
        .count();
    // The command's own step, then the three of Signal's exchange.
    assert_eq!(steps_after, 4, "{journal:#?}");
    let ended = first(&journal, |e| matches!(e, Event::Ended { intention: 1, .. }));
    assert!(ended > unloaded);
    assert!(
        !journal
            .iter()
            .any(|e| matches!(e.event, Event::Stuck { .. }))
    );
    // It never runs again: no resume.
    assert!(
        !journal.iter().any(
            |e| matches!(&e.event, Event::Command { intention: 1, command, .. } if command == "resume")
        ),
        "{journal:#?}"
    );
}

#[test]
fn an_intention_whose_abort_handlers_take_steps_counts_as_a_running_plan() {
    // Watching `blocked` only: blocked(1) at cycle 2 releases the round, whose on abort
    // handlers take three more steps. While they run a plan runs, so the policy deliberates
    // only on a watched change or when nothing runs: not once between the release and the end.
    let ir = courier("  on abort ≔ Signal(p) ‖ (x ← p ; y ← p ; z ← p ; believe unloaded(1))");
    let watch = ["blocked".to_string()].into_iter().collect();
    let journal = run_with(
        &ir,
        r#"{"cycles": 30, "seed": 0, "events": [{"cycle": 2, "believe": ["blocked(1)"]}]}"#,
        Reconsideration::OnChange(watch),
    );
    assert_eq!(releases(&journal, 1), ["impossible"], "{journal:#?}");
    let released = first(&journal, |e| {
        matches!(e, Event::Release { intention: 1, .. })
    });
    let ended = first(&journal, |e| matches!(e, Event::Ended { intention: 1, .. }));
    assert!(adding(&journal, "unloaded(1)") < ended, "{journal:#?}");
    let deliberations = journal[released..ended]
        .iter()
        .filter(|e| matches!(e.event, Event::Deliberate { .. }))
        .count();
    assert_eq!(deliberations, 0, "{journal:#?}");
}
