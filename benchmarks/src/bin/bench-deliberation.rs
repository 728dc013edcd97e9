//! Policy evaluations per second: for k = 4, 64 and 1,024 options and batches of 1 and 10,000
//! agent states, the time to evaluate every option's value formula for the whole batch (the
//! `.hb` "tensor" form: one array pass per instruction) and then each policy's distribution for
//! every state. Prints `k=… batch=… policy=… sec=… decisions_per_sec=… option_values_per_sec=…`.
//!
//! `cargo run --release -p hilbert-benchmarks --bin bench-deliberation`

use hilbert_certificates::ir::{BeliefId, PolicyIr, ValueOp, ValueProgram};
use hilbert_runtime::deliberation::{Counts, Features, Licence, distribution, evaluate};
use std::time::Instant;

/// Synthetic states: feature (b, f) of state s is a fixed function of (s, b, f).
struct Synthetic {
    n: usize,
}

impl Features for Synthetic {
    fn len(&self) -> usize {
        self.n
    }
    fn feature(&self, s: usize, belief: u32, field: u32) -> f64 {
        ((s as u64 * 31 + u64::from(belief) * 7 + u64::from(field)) % 97) as f64
    }
    fn learned(&self, s: usize, binding: u32) -> f64 {
        ((s as u64 + u64::from(binding)) % 13) as f64 / 13.0
    }
}

fn main() {
    for k in [4usize, 64, 1024] {
        // option i ≔ 1.0 - 0.1 * b_i.f + learned(i)
        let options: Vec<(u32, ValueProgram)> = (0..k as u32)
            .map(|i| {
                let ops = vec![
                    ValueOp::Const(1.0f64.to_bits()),
                    ValueOp::Const(0.1f64.to_bits()),
                    ValueOp::Feature { belief: BeliefId(i % 8), field: 0 },
                    ValueOp::Mul,
                    ValueOp::Sub,
                    ValueOp::Learned(i),
                    ValueOp::Add,
                ];
                (i, ValueProgram { ops })
            })
            .collect();
        for batch in [1usize, 10_000] {
            let states = Synthetic { n: batch };
            // Repeat small batches so that every measurement takes a while.
            let reps = (200_000 / (batch * k)).max(1);
            let start = Instant::now();
            let mut q = Vec::new();
            for _ in 0..reps {
                q = evaluate(&options, k, &states);
            }
            let eval_sec = start.elapsed().as_secs_f64();
            // Every third option unlicensed.
            let mask = Licence((0..k).map(|i| i % 3 != 2).collect());
            let counts = Counts(vec![1; k]);
            for (name, policy) in [
                ("greedy", PolicyIr::Greedy),
                ("epsilon_greedy", PolicyIr::EpsilonGreedy(0.1f64.to_bits())),
                ("softmax", PolicyIr::Softmax(0.5f64.to_bits())),
                ("ucb", PolicyIr::Ucb(1.0f64.to_bits())),
            ] {
                let start = Instant::now();
                let mut mass = 0.0;
                for _ in 0..reps {
                    for row in &q {
                        mass += distribution(policy, row, &mask, &counts).expect("licensed")[0];
                    }
                }
                let policy_sec = start.elapsed().as_secs_f64();
                let decisions = (reps * batch) as f64;
                let sec = eval_sec + policy_sec;
                println!(
                    "k={k} batch={batch} policy={name} sec={sec:.4} decisions_per_sec={:.0} option_values_per_sec={:.0} check={mass:.3}",
                    decisions / sec,
                    decisions * k as f64 / eval_sec
                );
            }
        }
    }
}
