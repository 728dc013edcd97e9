//! Three levels of priority: when the highest is done, only the next one resumes; the lowest
//! waits until that one is done too (examples/three-priorities).

use hilbert_runtime::{Event, Hosts, Reconsideration, Scenario, System};

fn example() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/three-priorities").to_string()
}

#[test]
fn only_the_highest_stopped_intention_resumes() {
    let loaded = hilbert_frontend::project::load(&[example()]).expect("the example loads");
    let checked = hilbert_frontend::check_project(&loaded);
    let ir = checked.ir.expect("the example checks");
    let text = std::fs::read_to_string(format!("{}/scenarios/fire-then-gas.json", example()))
        .expect("the scenario");
    let scenario: Scenario = serde_json::from_str(&text).expect("a scenario");
    let mut system = System::new(
        &ir,
        &["Guard".to_string()],
        Reconsideration::Cautious,
        scenario,
        Hosts::new(),
    )
    .unwrap();
    let journal = system.run();
    // (cycle, command, plan) of every stop and resume, and the cycle each plan was released.
    let commands: Vec<(u64, String, String)> = journal
        .iter()
        .filter_map(|e| match &e.event {
            Event::Command { command, plan, .. } => Some((e.cycle, command.clone(), plan.clone())),
            _ => None,
        })
        .collect();
    let released = |plan: &str| {
        journal
            .iter()
            .find_map(|e| match &e.event {
                Event::Release { plan: p, .. } if p == plan => Some(e.cycle),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{plan} is released: {journal:#?}"))
    };
    let at = |command: &str, plan: &str| {
        commands
            .iter()
            .filter(|(_, c, p)| c == command && p == plan)
            .map(|(cycle, ..)| *cycle)
            .collect::<Vec<_>>()
    };
    assert_eq!(at("stop", "Walk"), [1], "{commands:?}");
    assert_eq!(at("stop", "Hose"), [2], "{commands:?}");
    // Hose resumes when Fan is released; Walk only when Hose is.
    assert_eq!(at("resume", "Hose"), [released("Fan")], "{commands:?}");
    assert_eq!(at("resume", "Walk"), [released("Hose")], "{commands:?}");
    assert!(released("Fan") < released("Hose") && released("Hose") < released("Walk"));
    // Between Fan's release and Hose's, Walk takes no step.
    assert!(
        !journal.iter().any(
            |e| matches!(&e.event, Event::Step { plan, .. } if plan == "Walk")
                && e.cycle > released("Fan")
                && e.cycle < released("Hose")
        ),
        "Walk ran beside Hose"
    );
}
