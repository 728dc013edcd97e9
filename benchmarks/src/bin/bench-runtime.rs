//! Agent cycles per second: the seed's production line, one agent and 1,000 agents stepping in
//! one process. Prints one line per measurement:
//! `model=… agents=… cycles=… sec=… agent_cycles_per_sec=…`.
//!
//! `cargo run --release -p hilbert-benchmarks --bin bench-runtime`

use hilbert_runtime::{AgentRun, Hosts, Reconsideration, Scenario, ScenarioEvent};
use std::time::Instant;

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/production-line");
    let loaded = hilbert_frontend::project::load(&[root.to_string()]).expect("the example loads");
    let checked = hilbert_frontend::check_project(&loaded);
    let ir = checked.ir.expect("the example checks");
    for (label, alarm) in [
        ("production-line", None),
        ("production-line-alarm", Some(2)),
    ] {
        // 6 cycles: the busy part (adopt, three rendezvous or the abort, release); 200: then
        // mostly deliberating with nothing to do.
        for (agents, cycles) in [(1usize, 6u64), (1000, 6), (1, 200), (1000, 200)] {
            let mut runs: Vec<AgentRun> = (0..agents)
                .map(|i| {
                    let scenario = Scenario {
                        cycles: 1_000,
                        seed: i as u64 + 1,
                        beliefs: vec!["made(0)".into()],
                        events: alarm
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
                    };
                    AgentRun::new(
                        &ir,
                        "Operator",
                        Reconsideration::Cautious,
                        scenario,
                        Hosts::new(),
                    )
                    .expect("the agent starts")
                })
                .collect();
            // Every agent runs a fixed number of cycles (the run would otherwise stop when idle).
            let start = Instant::now();
            for _ in 0..cycles {
                for r in &mut runs {
                    r.step_cycle();
                }
            }
            let sec = start.elapsed().as_secs_f64();
            let total = cycles as f64 * agents as f64;
            println!(
                "model={label} agents={agents} cycles={cycles} sec={sec:.4} agent_cycles_per_sec={:.0}",
                total / sec
            );
        }
    }
}
