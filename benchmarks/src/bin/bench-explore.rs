//! Measures the fast explorer on the dining philosophers:
//! `bench-explore [--from N] [--to N] [--max-states N]`.
//!
//! For each table size from `--from` (default 4) to `--to` (default 10), symmetric and
//! asymmetric, it explores the table's one network with 1 thread and with every core and
//! prints one line a run:
//!
//! `model=… n=… threads=… states=… transitions=… sec=… states_per_sec=… bytes_per_state=…`
//!
//! `sec` is the wall time of the exploration alone (not parsing or checking). `bytes_per_state`
//! is measured: the heap bytes of the visited set when the exploration ends (its blocks of
//! state keys, a fixed number of 4-byte words a state, plus its table of 8-byte slots) divided
//! by the number of states. `arena_bytes_per_state` (the hash-consed terms and their index) and
//! `graph_bytes_per_state` (the transitions, labels and belief sets handed to the obligations)
//! are printed after it, for the whole picture. `fast_path` and `general_path` count the
//! transitions of vector states (a root instance running a wide `‖`) put together from the
//! children's memoised parts and computed by the general path (`prover/src/explore/fast/vector.rs`);
//! the other transitions are those of scalar states.
//!
//! `--project DIR` explores instead every network of the project under `DIR` (such as one
//! `gen-model` wrote), with the same line per run (`model=` the network's name).

use hilbert_benchmarks::philosophers;
use hilbert_frontend::{check_project, project};
use hilbert_prover::explore::{self, Limits, fast};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: bench-explore [--from N] [--to N] [--max-states N] [--project DIR] [--jobs N]";

fn main() -> ExitCode {
    let (mut from, mut to, mut max_states) = (4usize, 10usize, 200_000_000usize);
    let (mut dir, mut only_jobs) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = |v: Option<String>| v.and_then(|v| v.parse::<usize>().ok());
        match arg.as_str() {
            "--from" => from = value(args.next()).unwrap_or(0),
            "--to" => to = value(args.next()).unwrap_or(0),
            "--max-states" => max_states = value(args.next()).unwrap_or(0),
            "--project" => dir = args.next(),
            "--jobs" => only_jobs = value(args.next()),
            "--help" | "-h" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("error: unexpected argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    if from < 2 || to < from || max_states == 0 {
        eprintln!("error: need 2 ≤ --from ≤ --to and --max-states > 0\n{USAGE}");
        return ExitCode::from(2);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match only_jobs {
        Some(j) => vec![j],
        None if cores > 1 => vec![1, cores],
        None => vec![1],
    };
    if let Some(dir) = dir {
        let loaded = match project::load(&[dir]) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {e:?}");
                return ExitCode::from(2);
            }
        };
        let checked = check_project(&loaded);
        let Some(ir) = checked.ir.as_ref().filter(|_| !checked.has_errors()) else {
            eprintln!("error: the project does not check");
            return ExitCode::FAILURE;
        };
        for net in &ir.networks {
            let agent = &ir.agents[net.agent.0 as usize];
            for &jobs in &threads {
                let limits = Limits {
                    max_states,
                    jobs,
                    ..Limits::default()
                };
                run(net, agent, &net.binding, 0, jobs, limits);
            }
        }
        return ExitCode::SUCCESS;
    }
    for n in from..=to {
        for symmetric in [true, false] {
            let mut loaded = project::Loaded::default();
            for (path, text) in philosophers(n, symmetric) {
                if path.ends_with(".ha") || path.ends_with(".hk") {
                    project::add_bytes(&mut loaded, path, text.into_bytes());
                }
            }
            let checked = check_project(&loaded);
            let Some(ir) = checked.ir.as_ref().filter(|_| !checked.has_errors()) else {
                eprintln!("error: the generated table of {n} does not check");
                return ExitCode::FAILURE;
            };
            let net = &ir.networks[0];
            let agent = &ir.agents[net.agent.0 as usize];
            let model = if symmetric { "symmetric" } else { "asymmetric" };
            for &jobs in &threads {
                let limits = Limits {
                    max_states,
                    jobs,
                    ..Limits::default()
                };
                run(net, agent, model, n, jobs, limits);
            }
        }
    }
    ExitCode::SUCCESS
}

/// Explores one network and prints its line.
fn run(
    net: &hilbert_certificates::ir::Network,
    agent: &hilbert_certificates::ir::Agent,
    model: &str,
    n: usize,
    jobs: usize,
    limits: Limits,
) {
    let start = explore::initial(net, agent);
    let clock = Instant::now();
    let explored = fast::explore(net, agent, vec![start], limits, false);
    let sec = clock.elapsed().as_secs_f64();
    let g = &explored.graph;
    let states = g.len().max(1) as f64;
    println!(
        "model={model} n={n} threads={jobs} states={} transitions={} sec={sec:.3} \
         states_per_sec={:.0} bytes_per_state={:.2} arena_bytes_per_state={:.2} \
         graph_bytes_per_state={:.2} fast_path={} general_path={}{}",
        g.len(),
        g.transitions(),
        states / sec,
        explored.visited_bytes() as f64 / states,
        explored.arena_bytes() as f64 / states,
        g.heap_bytes() as f64 / states,
        explored.vector_paths().0,
        explored.vector_paths().1,
        if g.truncated { " truncated=true" } else { "" },
    );
}
