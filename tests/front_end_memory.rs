//! The front end's memory per source byte (issue 17, item 6): `hilbert check` of one long plan
//! file peaks at most 20 bytes of resident memory per source byte above what the same check of a
//! ten-step plan needs (the process, Z3's context). Before, a 6.5 MB plan of 300,000 steps
//! peaked at 628 MB (93 bytes a byte): the parser re-parsed every file to learn whether it had
//! syntax errors, a one-argument list reserved room for four, names were a `String` each, every
//! growing list was copied at each doubling, and the allocator kept the copies.
//!
//! Its own test binary: `getrusage(RUSAGE_CHILDREN)` is the largest peak of any child this
//! process waited for, so nothing else may run a child here. Larger sizes are the `scaling`
//! rows of `hilbert bench` (benchmarks/).

mod common;

use common::{TempDir, children_peak_bytes, run_within};
use std::time::Duration;

fn project(n: usize) -> (TempDir, u64) {
    let files = hilbert_benchmarks::scaling::seq(n);
    let bytes: u64 = files.iter().map(|(_, text)| text.len() as u64).sum();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_bytes()))
        .collect();
    (TempDir::with_files(&refs), bytes)
}

#[test]
fn a_long_plan_costs_at_most_twenty_bytes_a_source_byte() {
    let (small, _) = project(10);
    let run = run_within(&["check", &small.path()], Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let base = children_peak_bytes();

    let (large, bytes) = project(300_000);
    assert!(bytes > 6_000_000, "{bytes} bytes");
    let run = run_within(&["check", &large.path()], Duration::from_secs(300));
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("no errors"), "{}", run.stdout);
    let peak = children_peak_bytes();
    let per_byte = peak.saturating_sub(base) as f64 / bytes as f64;
    assert!(
        per_byte <= 20.0,
        "{bytes} source bytes: peak {peak} bytes against {base} for ten steps, {per_byte:.1} bytes a byte"
    );
}
