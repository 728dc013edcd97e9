//! `abort self` and `restart self` at run time, as the build explores them: the plan's own
//! `on abort` runs, nothing written after `abort self` runs, and `restart self` starts the plan
//! afresh (examples `abort-self-hands-over`, `restart-self-retries`, `restart-self-loops`).

use hilbert_runtime::{Entry, Event, Hosts, Reconsideration, Scenario, System};

fn run(example: &str, agent: &str, seed: u64) -> Vec<Entry> {
    let dir = format!("{}/../examples/{example}", env!("CARGO_MANIFEST_DIR"));
    let loaded = hilbert_frontend::project::load(&[dir]).expect("the example loads");
    let checked = hilbert_frontend::check_project(&loaded);
    let ir = checked.ir.expect("the example checks");
    let scenario = Scenario {
        cycles: 40,
        seed,
        ..Scenario::default()
    };
    let mut system = System::new(
        &ir,
        &[agent.to_string()],
        Reconsideration::Cautious,
        scenario,
        Hosts::new(),
    )
    .unwrap();
    system.run()
}

/// The atoms each step added, in order.
fn added(journal: &[Entry]) -> Vec<Vec<String>> {
    journal
        .iter()
        .filter_map(|e| match &e.event {
            Event::Step { added, .. } => Some(added.clone()),
            _ => None,
        })
        .collect()
}

fn ended(journal: &[Entry]) -> usize {
    journal
        .iter()
        .filter(|e| matches!(e.event, Event::Ended { .. }))
        .count()
}

#[test]
fn abort_self_runs_the_plans_own_handler_and_nothing_after_it() {
    let journal = run("abort-self-hands-over", "Courier", 0);
    assert_eq!(
        added(&journal),
        [vec!["returned(1)".to_string()]],
        "{journal:#?}"
    );
    assert_eq!(ended(&journal), 1, "{journal:#?}");
}

#[test]
fn restart_self_in_a_called_plan_runs_its_handler_and_starts_it_again() {
    let journal = run("restart-self-retries", "Retry", 0);
    assert_eq!(
        added(&journal),
        [vec!["retried(1)".to_string()], vec!["read(1)".to_string()]],
        "{journal:#?}"
    );
    assert_eq!(ended(&journal), 1, "{journal:#?}");
}

#[test]
fn restart_self_at_the_top_starts_the_bound_plan_again() {
    // The line is busy or connects, by the seed: over several seeds some run redials, and a run
    // that redials is still the same intention, which goes on until it connects.
    let mut redialled = 0;
    for seed in 0..16 {
        let journal = run("restart-self-loops", "Caller", seed);
        let steps = added(&journal);
        let busy = steps
            .iter()
            .take_while(|a| a.is_empty() || a.iter().all(|x| x == "redialled(1)"))
            .count();
        if busy > 0 {
            redialled += 1;
        }
        assert_eq!(
            steps.get(busy),
            Some(&vec!["connected(1)".to_string()]),
            "seed {seed}: {journal:#?}"
        );
        assert_eq!(ended(&journal), 1, "seed {seed}: one intention, ended once");
    }
    assert!(redialled > 0, "no seed gave a busy line");
}
