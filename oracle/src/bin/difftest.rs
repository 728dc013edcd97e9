//! The long differential run: random projects, `hilbert build`'s prover against the oracle
//! (oracle/README.md).
//!
//! `difftest --seconds N --seed S [--count N] [--no-shrink] [--save DIR] [--avoid A,B|known]
//! [--memory MIB] [--stall SECONDS] [--in-process]`: generate projects from seed S on, for N
//! seconds; print the rate, the coverage of the grammar and every disagreement class with its
//! minimal project (and, with `--save`, write each minimal project under DIR/<class>/). The
//! projects run in child processes under a memory bound (default 4096 MiB) and a stall bound
//! (default 120 s): a project past either, or one that crashes the process, is a class of its
//! own and the run goes on (`guard.rs`); `--in-process` runs them in this process instead. `difftest --project DIR [--show] [AGENT.NAME=VALUE…]`: compare one project (`--show`: the
//! oracle's verdicts too).
//! `difftest --print SEED`: print the project of a seed.

use hilbert_oracle::campaign::{self, Plan};
use hilbert_oracle::guard;
use hilbert_oracle::pipeline::{self, Outcome};
use std::time::Duration;

fn value(args: &[String], flag: &str) -> Option<String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(dir) = value(&args, "--project") {
        let mut src = campaign::read_case(std::path::Path::new(&dir)).expect("a readable project");
        let i = args.iter().position(|a| a == "--project").unwrap_or(0);
        let show = args.iter().any(|a| a == "--show");
        src.params
            .extend(args[i + 2..].iter().filter(|a| *a != "--show").cloned());
        if show && let Ok(nets) = pipeline::oracle(&src, campaign::MAX_STATES) {
            for net in nets {
                for t in net.theorems {
                    println!("  oracle {}: {}: {:?}", net.name, t.name, t.verdict);
                }
            }
        }
        match pipeline::run(&src, campaign::MAX_STATES) {
            Outcome::Refused(codes) => println!("{dir}: refused {codes:?}"),
            Outcome::Compared {
                disagreements,
                compared,
                undecided,
                diverging,
                ..
            } => {
                println!(
                    "{dir}: {compared} theorems compared ({diverging} in scenes where a step diverges), {undecided} undecided, {} disagreements",
                    disagreements.len()
                );
                for d in disagreements {
                    println!("  {}  [{}]", d.detail, d.class);
                }
            }
        }
        return;
    }
    if let Some(seed) = value(&args, "--print") {
        let mut cov = Default::default();
        let p = hilbert_oracle::generate::project(seed.parse().expect("a seed"), &mut cov, &[]);
        print!("{}", p.listing());
        return;
    }
    let seconds: u64 = value(&args, "--seconds")
        .map(|s| s.parse().expect("--seconds N"))
        .unwrap_or(60);
    let seed: u64 = value(&args, "--seed")
        .map(|s| s.parse().expect("--seed S"))
        .unwrap_or(1);
    let count: usize = value(&args, "--count")
        .map(|s| s.parse().expect("--count N"))
        .unwrap_or(usize::MAX);
    let avoid: Vec<String> = match value(&args, "--avoid") {
        Some(a) if a == "known" => hilbert_oracle::generate::AVOIDABLE
            .iter()
            .map(|s| s.to_string())
            .collect(),
        Some(a) => a.split(',').map(str::to_string).collect(),
        None => Vec::new(),
    };
    for a in &avoid {
        assert!(
            hilbert_oracle::generate::AVOIDABLE.contains(&a.as_str()),
            "--avoid {a}: one of {:?} (or `known`: all)",
            hilbert_oracle::generate::AVOIDABLE
        );
    }
    let plan = Plan {
        avoid,
        seed,
        count,
        time: Duration::from_secs(seconds),
        shrink: if args.iter().any(|a| a == "--no-shrink") {
            0
        } else {
            3_000
        },
        max_states: value(&args, "--max-states")
            .map(|s| s.parse().expect("--max-states N"))
            .unwrap_or(campaign::MAX_STATES),
    };
    if args.iter().any(|a| a == "--worker") {
        // A guarded campaign's child: the report as lines for the parent (guard.rs).
        let report = campaign::run(plan, |_| {});
        print!("{}", campaign::encode(&report));
        return;
    }
    if let Some(seed) = value(&args, "--shrink-seed") {
        // A guarded campaign's child: shrink the project of a seed to a minimal one that still
        // shows the class, within two minutes.
        let seed: u64 = seed.parse().expect("--shrink-seed SEED");
        let class = value(&args, "--class").expect("--class CLASS");
        let p = hilbert_oracle::generate::project(seed, &mut Default::default(), &plan.avoid);
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        let m = campaign::shrink_within(&p, &class, plan.max_states, plan.shrink, deadline);
        let found = campaign::Found {
            class: class.clone(),
            count: 1,
            seed,
            detail: String::new(),
            minimal: m.sources(),
            minimal_details: campaign::details(&m.sources(), &class, plan.max_states),
        };
        println!("{}", campaign::encode_found(&found));
        return;
    }
    let progress = |r: &campaign::Report| {
        eprintln!(
            "{} generated, {} compared, {} classes, {:.0} s",
            r.generated,
            r.compared,
            r.found.len(),
            r.seconds
        );
    };
    let report = if args.iter().any(|a| a == "--in-process") {
        campaign::run(plan, progress)
    } else {
        let mut bounds = guard::Bounds::default();
        if let Some(m) = value(&args, "--memory") {
            bounds.memory_mib = m.parse().expect("--memory MIB");
        }
        if let Some(s) = value(&args, "--stall") {
            bounds.stall = Duration::from_secs(s.parse().expect("--stall SECONDS"));
        }
        guard::run(&guard::this_exe(), &plan, &bounds, progress)
    };
    print!("{}", campaign::text(&report));
    if let Some(dir) = value(&args, "--save") {
        for f in report.found.values() {
            let name: String = f
                .class
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            let name = name
                .split('-')
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            let path = std::path::Path::new(&dir).join(name);
            campaign::write_case(&path, &f.minimal, &f.class).expect("a writable directory");
        }
    }
}
