//! The long differential run: random projects, `hilbert build`'s prover against the oracle
//! (oracle/README.md).
//!
//! `difftest --seconds N --seed S [--count N] [--no-shrink] [--save DIR] [--avoid A,B|known]`:
//! generate projects
//! from seed S on, for N seconds; print the rate, the coverage of the grammar and every
//! disagreement class with its minimal project (and, with `--save`, write each minimal project
//! under DIR/<class>/). `difftest --project DIR [AGENT.NAME=VALUE…]`: compare one project.
//! `difftest --print SEED`: print the project of a seed.

use hilbert_oracle::campaign::{self, Plan};
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
        src.params.extend(args[i + 2..].iter().cloned());
        match pipeline::run(&src, campaign::MAX_STATES) {
            Outcome::Refused(codes) => println!("{dir}: refused {codes:?}"),
            Outcome::Compared {
                disagreements,
                compared,
                undecided,
            } => {
                println!(
                    "{dir}: {compared} theorems compared, {undecided} undecided, {} disagreements",
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
    let report = campaign::run(plan, |r| {
        eprintln!(
            "{} generated, {} compared, {} classes, {:.0} s",
            r.generated,
            r.compared,
            r.found.len(),
            r.seconds
        );
    });
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
