//! One row of the table: a model at one size, explored, proved and re-checked by the kernel,
//! with its verdicts compared with those its `bench.toml` expects.
//!
//! What each figure is:
//! - `states`, `transitions`: of the fast explorer's graph, summed over the project's networks.
//! - `explore_s`: wall time of `explore::fast::explore` over every network (parsing, checking
//!   and lowering excluded; building the graph included).
//! - `prove_s`: wall time of `obligations::prove` (it explores again, decides every theorem,
//!   finds counterexamples and writes every certificate).
//! - `certify_s`: the part of `prove_s` spent writing certificates (state tables, ranks, the
//!   abort explorations of release witnesses, encoding).
//! - `kernel_s`: wall time of `hilbert_kernel::check::check` on every certificate `prove`
//!   wrote (decoding, re-deriving the obligations and checking each witness).
//! - `store_bytes`: the state store when the exploration ends — the visited set (8-byte keys
//!   and the table of 4-byte ids) plus the hash-consed terms the keys name — measured from the
//!   capacities of their vectors, not estimated.
//! - `peak_rss`: the process's peak resident set (`VmHWM`, Linux only). `hilbert bench` runs
//!   every row in a process of its own, so it is the row's peak, everything included;
//!   `explore_peak_rss`, `prove_peak_rss` and `kernel_peak_rss` are the peaks of each phase
//!   (the peak is reset between phases through `/proc/self/clear_refs`, so each counts what
//!   the phase held, including what earlier phases left alive).

use crate::suite::Model;
use hilbert_frontend::check_project;
use hilbert_kernel::check::Verdict;
use hilbert_prover::explore::{self, Limits, fast};
use hilbert_prover::obligations::{self, Status};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One theorem: its name, the frontend's verdict, the kernel's word and what was expected.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TheoremRow {
    /// `Dinner_no_deadlock`.
    pub name: String,
    /// `proved`, `refuted` or `unproved`.
    pub status: String,
    /// `proved` when the kernel checked the witness, `refused` otherwise.
    pub kernel: String,
    /// What `bench.toml` expects (`None`: the theorem is not listed there).
    pub expected: Option<String>,
}

/// A measured row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The model.
    pub model: String,
    /// Its size.
    pub n: usize,
    /// Explorer threads (0 was resolved to the number of cores).
    pub jobs: usize,
    /// Networks explored.
    pub networks: usize,
    /// States.
    pub states: usize,
    /// Transitions.
    pub transitions: usize,
    /// Seconds of exploration.
    pub explore_s: f64,
    /// Seconds of `obligations::prove`.
    pub prove_s: f64,
    /// Seconds of `prove_s` spent writing certificates.
    #[serde(default)]
    pub certify_s: f64,
    /// Seconds of the kernel's checks.
    pub kernel_s: f64,
    /// Bytes of the state store (visited set and terms).
    pub store_bytes: usize,
    /// Bytes of the visited set alone.
    pub visited_bytes: usize,
    /// Peak resident set of the process, in bytes, if known.
    pub peak_rss: Option<u64>,
    /// Peak resident set when the exploration alone had run (before proving), if known.
    pub explore_peak_rss: Option<u64>,
    /// Peak resident set while proving and certifying, if known.
    #[serde(default)]
    pub prove_peak_rss: Option<u64>,
    /// Peak resident set while the kernel checked, if known.
    #[serde(default)]
    pub kernel_peak_rss: Option<u64>,
    /// Every theorem.
    pub theorems: Vec<TheoremRow>,
    /// What differs from the expected verdicts (empty: the row is as expected).
    pub mismatches: Vec<String>,
}

impl Row {
    /// States per second of exploration.
    pub fn states_per_sec(&self) -> f64 {
        self.states as f64 / self.explore_s.max(1e-9)
    }

    /// Bytes of the state store per state.
    pub fn bytes_per_state(&self) -> f64 {
        self.store_bytes as f64 / self.states.max(1) as f64
    }

    /// `ok` or `MISMATCH`.
    pub fn verdict(&self) -> &'static str {
        if self.mismatches.is_empty() {
            "ok"
        } else {
            "MISMATCH"
        }
    }
}

/// The number of cores (`jobs = 0`).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The process's peak resident set so far, in bytes (Linux: `VmHWM` of `/proc/self/status`).
pub fn peak_rss() -> Option<u64> {
    hilbert_prover::memory::peak()
}

/// Resets the process's peak resident set to its current one (Linux: `5` to
/// `/proc/self/clear_refs`), so that the next [`peak_rss`] is the peak of what runs in between.
/// Returns whether it could.
pub fn reset_peak_rss() -> bool {
    hilbert_prover::memory::reset_peak()
}

/// Measures `model` at size `n` with `jobs` explorer threads (0: every core), stopping any
/// network at `max_states`.
pub fn run(model: &Model, n: usize, jobs: usize, max_states: usize) -> Result<Row, String> {
    let loaded = model.project(n)?;
    let checked = check_project(&loaded);
    let ir = match &checked.ir {
        Some(ir) if !checked.has_errors() => ir,
        _ => {
            let codes: Vec<String> = checked
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{} {}", d.code, d.message))
                .collect();
            return Err(format!(
                "{} at N = {n} does not check: {}",
                model.name,
                codes.join("; ")
            ));
        }
    };
    let jobs = if jobs == 0 { cores() } else { jobs };
    let limits = Limits {
        max_states,
        jobs,
        ..Limits::default()
    };

    // Exploration alone, every network.
    let (mut states, mut transitions, mut store, mut visited) = (0, 0, 0, 0);
    let mut truncated = false;
    let clock = Instant::now();
    for net in &ir.networks {
        let agent = &ir.agents[net.agent.0 as usize];
        let explored = fast::explore(
            net,
            agent,
            vec![explore::initial(net, agent)],
            limits,
            false,
        );
        states += explored.graph.len();
        transitions += explored.graph.transitions();
        store += explored.visited_bytes() + explored.arena_bytes();
        visited += explored.visited_bytes();
        truncated |= explored.graph.truncated;
    }
    let explore_s = clock.elapsed().as_secs_f64();
    let explore_peak_rss = peak_rss();
    let phases = reset_peak_rss();

    // The theorems and their certificates.
    let clock = Instant::now();
    let proofs = obligations::prove(ir, &checked.program, &loaded.sources, &[], limits);
    let prove_s = clock.elapsed().as_secs_f64();
    let prove_peak_rss = peak_rss().filter(|_| phases);
    reset_peak_rss();

    // The kernel's word on every certificate.
    let clock = Instant::now();
    let mut kernel: Vec<(String, bool)> = Vec::new();
    for c in &proofs.certificates {
        let report = hilbert_kernel::check::check(&c.bytes, None);
        for (name, verdict) in report.obligations {
            kernel.push((name, report.invalid.is_none() && verdict == Verdict::Proved));
        }
    }
    let kernel_s = clock.elapsed().as_secs_f64();
    let kernel_peak_rss = peak_rss().filter(|_| phases);

    let mut theorems = Vec::new();
    let mut mismatches = Vec::new();
    if truncated {
        mismatches.push(format!("the exploration passed --max-states {max_states}"));
    }
    for t in &proofs.theorems {
        let kernel_proved = kernel.iter().any(|(k, ok)| *k == t.name && *ok);
        let expected = model.spec.expected.get(&t.name).cloned();
        let status = t.status.word().to_string();
        match &expected {
            None => mismatches.push(format!(
                "{}: {status}, but bench.toml does not list it",
                t.name
            )),
            Some(e) if *e != status => {
                mismatches.push(format!("{}: expected {e}, got {status}", t.name));
            }
            Some(_) => {}
        }
        // The kernel must admit exactly the proved theorems.
        if kernel_proved != matches!(t.status, Status::Proved) {
            mismatches.push(format!(
                "{}: {status}, but the kernel {}",
                t.name,
                if kernel_proved {
                    "proved it"
                } else {
                    "refused it"
                }
            ));
        }
        theorems.push(TheoremRow {
            name: t.name.clone(),
            status,
            kernel: if kernel_proved { "proved" } else { "refused" }.into(),
            expected,
        });
    }
    for name in model.spec.expected.keys() {
        if !proofs.theorems.iter().any(|t| t.name == *name) {
            mismatches.push(format!(
                "{name}: expected, but the build reports no such theorem"
            ));
        }
    }
    Ok(Row {
        model: model.name.clone(),
        n,
        jobs,
        networks: ir.networks.len(),
        states,
        transitions,
        explore_s,
        prove_s,
        certify_s: proofs.certify_seconds,
        kernel_s,
        store_bytes: store,
        visited_bytes: visited,
        peak_rss: [
            explore_peak_rss,
            prove_peak_rss,
            kernel_peak_rss,
            peak_rss(),
        ]
        .into_iter()
        .flatten()
        .max(),
        explore_peak_rss,
        prove_peak_rss,
        kernel_peak_rss,
        theorems,
        mismatches,
    })
}
