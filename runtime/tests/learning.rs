//! Deliberation end to end (`examples/learning-to-choose`): two plans serve one desire, the agent
//! learns from their rewards to prefer the better one, and the highest-valued plan, which the
//! theory never licenses, is never chosen.

use hilbert_runtime::{Event, Hosts, Reconsideration, Scenario, System};

fn adoptions(seed: u64) -> Vec<String> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/learning-to-choose"
    );
    let loaded = hilbert_frontend::project::load(&[dir.to_string()]).expect("loads");
    let checked = hilbert_frontend::check_project(&loaded);
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    let ir = checked.ir.expect("checks");
    let text = std::fs::read_to_string(format!("{dir}/scenarios/forty-customers.json")).unwrap();
    let mut scenario: Scenario = serde_json::from_str(&text).unwrap();
    scenario.seed = seed;
    let mut system = System::new(
        &ir,
        &["Picker".to_string()],
        Reconsideration::Cautious,
        scenario,
        Hosts::new(),
    )
    .unwrap();
    system
        .run()
        .into_iter()
        .filter_map(|e| match e.event {
            Event::Adopt { plan, .. } => Some(plan),
            _ => None,
        })
        .collect()
}

#[test]
fn the_agent_learns_to_prefer_the_better_plan_and_never_takes_the_unlicensed_one() {
    let mut first_hasty = 0;
    for seed in 0..12 {
        let chosen = adoptions(seed);
        assert_eq!(chosen.len(), 40, "seed {seed}: one adoption per customer");
        assert!(
            !chosen.iter().any(|p| p == "Premium"),
            "seed {seed}: an unlicensed plan was chosen"
        );
        first_hasty += usize::from(chosen[0] == "Hasty");
        let late = &chosen[20..];
        let careful = late.iter().filter(|p| *p == "Careful").count();
        assert!(
            careful >= 16,
            "seed {seed}: only {careful} of the last 20 were Careful: {chosen:?}"
        );
    }
    // The prior favours Hasty: with ε = 0.1 the first choice is Hasty 95% of the time.
    assert!(
        first_hasty >= 9,
        "{first_hasty} of 12 runs began with Hasty"
    );
}

#[test]
fn without_learning_the_prior_would_keep_choosing_the_worse_plan() {
    // The same agent with rewards that never arrive (no reward rules): Hasty's prior wins.
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/learning-to-choose"
    );
    let mut loaded = hilbert_frontend::project::Loaded::default();
    for f in ["Picker.ha", "Counter.hk", "Values.hb"] {
        let text = std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
        let text = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("reward"))
            .collect::<Vec<_>>()
            .join("\n");
        hilbert_frontend::project::add_bytes(&mut loaded, f.into(), text.into_bytes());
    }
    let checked = hilbert_frontend::check_project(&loaded);
    let ir = checked.ir.expect("checks");
    let text = std::fs::read_to_string(format!("{dir}/scenarios/forty-customers.json")).unwrap();
    let scenario: Scenario = serde_json::from_str(&text).unwrap();
    let mut system = System::new(
        &ir,
        &["Picker".to_string()],
        Reconsideration::Cautious,
        scenario,
        Hosts::new(),
    )
    .unwrap();
    let hasty = system
        .run()
        .iter()
        .filter(|e| matches!(&e.event, Event::Adopt { plan, .. } if plan == "Hasty"))
        .count();
    assert!(hasty >= 30, "{hasty} of 40");
}
