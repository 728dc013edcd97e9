//! The runtime end to end, through the seed's real plans: the production line with and without
//! the alarm, under each commitment strategy and each reconsideration policy.

use hilbert_certificates::ir::Ir;
use hilbert_runtime::{AgentRun, Entry, Event, Hosts, Reconsideration, Scenario, ScenarioEvent};
use std::collections::BTreeSet;

const OPERATOR: &str = include_str!("../../examples/production-line/Operator.ha");
const LINE: &str = include_str!("../../examples/production-line/Line.hk");

/// The production line's IR, with the agent's text changed by `edit`.
fn ir(edit: &dyn Fn(&str) -> String) -> Ir {
    let mut loaded = hilbert_frontend::project::Loaded::default();
    hilbert_frontend::project::add_bytes(
        &mut loaded,
        "Operator.ha".into(),
        edit(OPERATOR).into_bytes(),
    );
    hilbert_frontend::project::add_bytes(&mut loaded, "Line.hk".into(), LINE.as_bytes().to_vec());
    let checked = hilbert_frontend::check_project(&loaded);
    // No error is expected: a blind operator keeps intending, and desiring, what it believes
    // impossible (docs/frames.md §1), and realism holds. (It was HA0058 before issue 30, which
    // these tests let through.)
    let errors: Vec<_> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    checked.ir.expect("lowered")
}

fn seed_ir() -> Ir {
    ir(&|s| s.to_string())
}

fn scenario(alarm_at: Option<u64>, seed: u64) -> Scenario {
    Scenario {
        cycles: 40,
        seed,
        beliefs: vec!["made(0)".into()],
        events: alarm_at
            .map(|c| ScenarioEvent {
                agent: None,
                cycle: c,
                believe: vec!["alarm(\"raised\")".into()],
                forget: vec![],
                drop: vec![],
            })
            .into_iter()
            .collect(),
        params: Default::default(),
    }
}

fn run(ir: &Ir, policy: Reconsideration, scenario: Scenario) -> (Vec<Entry>, BTreeSet<String>) {
    let mut agent = AgentRun::new(ir, "Operator", policy, scenario, Hosts::new()).expect("starts");
    agent.run();
    let journal = agent.journal().to_vec();
    // The beliefs at the end, as text.
    let mut beliefs = BTreeSet::new();
    for e in &journal {
        match &e.event {
            Event::Step { added, removed, .. } | Event::Percept { added, removed } => {
                for a in added {
                    beliefs.insert(a.clone());
                }
                for r in removed {
                    beliefs.remove(r);
                }
            }
            _ => {}
        }
    }
    (journal, beliefs)
}

fn find<'a>(journal: &'a [Entry], pred: &dyn Fn(&Event) -> bool) -> Option<&'a Entry> {
    journal.iter().find(|e| pred(&e.event))
}

#[test]
fn without_the_alarm_work_makes_three_parts_and_is_released_as_achieved() {
    let (journal, beliefs) = run(&seed_ir(), Reconsideration::Cautious, scenario(None, 1));
    assert!(beliefs.contains("made(3)"), "{beliefs:?}");
    let release = find(
        &journal,
        &|e| matches!(e, Event::Release { plan, .. } if plan == "Work"),
    )
    .expect("Work released");
    let Event::Release { reason, desire, .. } = &release.event else {
        unreachable!()
    };
    assert_eq!((desire.as_str(), reason.as_str()), ("Produced", "achieved"));
    assert!(
        find(
            &journal,
            &|e| matches!(e, Event::Command { command, .. } if command == "abort")
        )
        .is_none()
    );
    assert!(
        find(
            &journal,
            &|e| matches!(e, Event::Adopt { plan, .. } if plan == "Stop")
        )
        .is_none()
    );
}

#[test]
fn the_alarm_at_any_cycle_aborts_work_with_the_seeds_reason_and_makes_the_line_safe() {
    for k in [1, 2, 3] {
        let (journal, beliefs) = run(&seed_ir(), Reconsideration::Cautious, scenario(Some(k), 1));
        let release = find(
            &journal,
            &|e| matches!(e, Event::Release { plan, .. } if plan == "Work"),
        )
        .unwrap_or_else(|| panic!("alarm at {k}: Work released"));
        assert_eq!(release.cycle, k);
        let Event::Release {
            reason, because, ..
        } = &release.event
        else {
            unreachable!()
        };
        assert_eq!(reason, "impossible");
        assert_eq!(
            because.as_deref(),
            Some("the line is in danger, so production stops")
        );
        assert!(find(&journal, &|e| matches!(e, Event::Command { command, plan, .. } if command == "abort" && plan == "Work")).is_some());
        // The handlers ran, innermost first: Build's halted(made), then Produce's halted(0).
        assert!(beliefs.contains("halted(0)"), "alarm at {k}: {beliefs:?}");
        assert!(
            beliefs
                .iter()
                .any(|b| b.starts_with("halted(") && b != "halted(0)")
                || k == 1,
            "{beliefs:?}"
        );
        assert!(
            find(
                &journal,
                &|e| matches!(e, Event::Attention { to, .. } if to == "Emergency")
            )
            .is_some()
        );
        assert!(
            find(
                &journal,
                &|e| matches!(e, Event::Adopt { plan, .. } if plan == "Stop")
            )
            .is_some()
        );
        assert!(beliefs.contains("safe(1)"));
        assert!(
            !beliefs.contains("made(3)"),
            "alarm at {k}: production went on: {beliefs:?}"
        );
        let reward = find(
            &journal,
            &|e| matches!(e, Event::Reward { plan, .. } if plan == "Stop"),
        )
        .expect("Stop rewarded");
        let Event::Reward { value, learned, .. } = &reward.event else {
            unreachable!()
        };
        assert_eq!((*value, *learned), (1, 1.0));
    }
}

#[test]
fn a_blind_agent_keeps_working_through_the_alarm() {
    let blind = ir(&|s| s.replace("commit single_minded", "commit blind"));
    let (journal, beliefs) = run(&blind, Reconsideration::Cautious, scenario(Some(2), 1));
    assert!(beliefs.contains("made(3)"), "{beliefs:?}");
    let release = find(
        &journal,
        &|e| matches!(e, Event::Release { plan, .. } if plan == "Work"),
    )
    .expect("released");
    let Event::Release { reason, .. } = &release.event else {
        unreachable!()
    };
    assert_eq!(reason, "achieved");
    assert!(
        find(
            &journal,
            &|e| matches!(e, Event::Command { command, .. } if command == "abort")
        )
        .is_none()
    );
}

#[test]
fn an_open_minded_agent_drops_work_when_it_no_longer_wants_the_parts() {
    let open = ir(&|s| s.replace("commit single_minded", "commit open_minded"));
    let mut sc = scenario(None, 1);
    sc.events.push(ScenarioEvent {
        agent: None,
        cycle: 2,
        believe: vec![],
        forget: vec![],
        drop: vec!["Produced".into()],
    });
    let (journal, beliefs) = run(&open, Reconsideration::Cautious, sc.clone());
    let release = find(
        &journal,
        &|e| matches!(e, Event::Release { plan, .. } if plan == "Work"),
    )
    .expect("released");
    let Event::Release { reason, .. } = &release.event else {
        unreachable!()
    };
    assert_eq!(reason, "no longer desired");
    assert!(!beliefs.contains("made(3)"));
    // The single-minded agent does not drop it for that.
    let (journal, beliefs) = run(&seed_ir(), Reconsideration::Cautious, sc);
    assert!(beliefs.contains("made(3)"));
    assert!(
        find(
            &journal,
            &|e| matches!(e, Event::Release { reason, .. } if reason == "no longer desired")
        )
        .is_none()
    );
}

fn deliberations(journal: &[Entry]) -> usize {
    journal
        .iter()
        .filter(|e| matches!(e.event, Event::Deliberate { .. }))
        .count()
}

fn abort_cycle(journal: &[Entry]) -> Option<u64> {
    find(
        journal,
        &|e| matches!(e, Event::Command { command, .. } if command == "abort"),
    )
    .map(|e| e.cycle)
}

#[test]
fn a_bold_agent_finishes_its_plan_before_it_notices_the_alarm() {
    let (journal, beliefs) = run(&seed_ir(), Reconsideration::Bold, scenario(Some(2), 1));
    assert_eq!(
        abort_cycle(&journal),
        None,
        "bold never interrupts a running plan"
    );
    assert!(beliefs.contains("made(3)"));
    // It deliberates only on the first cycle and when nothing runs.
    let (cautious, _) = run(&seed_ir(), Reconsideration::Cautious, scenario(Some(2), 1));
    assert!(deliberations(&journal) < deliberations(&cautious));
}

#[test]
fn a_cautious_agent_notices_the_alarm_in_the_cycle_it_arrives() {
    let (journal, _) = run(&seed_ir(), Reconsideration::Cautious, scenario(Some(2), 1));
    assert_eq!(abort_cycle(&journal), Some(2));
    // Every cycle is a deliberation.
    let cycles: BTreeSet<u64> = journal.iter().map(|e| e.cycle).collect();
    assert_eq!(deliberations(&journal), cycles.len());
}

#[test]
fn an_on_change_agent_reconsiders_on_evidence_only() {
    let watch_alarm = Reconsideration::OnChange(["alarm".to_string()].into());
    let (journal, _) = run(&seed_ir(), watch_alarm, scenario(Some(2), 1));
    assert_eq!(
        abort_cycle(&journal),
        Some(2),
        "watching the alarm, it reacts at once"
    );
    let (cautious, _) = run(&seed_ir(), Reconsideration::Cautious, scenario(Some(2), 1));
    assert!(deliberations(&journal) < deliberations(&cautious));
    // Watching something else, it misses the alarm until its plan ends, like a bold agent.
    let watch_safe = Reconsideration::OnChange(["safe".to_string()].into());
    let (journal, beliefs) = run(&seed_ir(), watch_safe, scenario(Some(2), 1));
    assert_eq!(abort_cycle(&journal), None);
    assert!(beliefs.contains("made(3)"));
}

#[test]
fn runs_are_deterministic_for_a_seed() {
    let a = run(&seed_ir(), Reconsideration::Cautious, scenario(Some(3), 7)).0;
    let b = run(&seed_ir(), Reconsideration::Cautious, scenario(Some(3), 7)).0;
    assert_eq!(a, b);
}
