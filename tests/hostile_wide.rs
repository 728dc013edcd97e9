//! `--max-memory` on wide plans (issue 32, item 9): 20,000 parallel steps (409 KB) under
//! `--max-memory 256M` exited 2 after 44 s at 5.30 GB, as the first state's 20,000 successors,
//! of 20,000 children each, were made in one batch before the resident set was read. The steps
//! of one state are now bounded by a share of the bound too: the build stops at once, under the
//! bound, and says which bound stopped it and why.
//!
//! Its own test binary with one test: `getrusage(RUSAGE_CHILDREN)` is the largest peak of any
//! child this process waited for, so the bounds are tried from the smallest up.

mod common;

use common::{children_peak_bytes, run_within, wide_project};
use std::time::{Duration, Instant};

#[test]
fn max_memory_holds_on_a_plan_of_twenty_thousand_parallel_steps() {
    let p = wide_project(20_000);
    for (flag, shown, bound) in [("256M", "256 MiB", 256u64 << 20), ("1G", "1 GiB", 1 << 30)] {
        let out = p.join(&format!("out-{flag}"));
        let begun = Instant::now();
        let run = run_within(
            &[
                "build",
                &p.path(),
                "--max-memory",
                flag,
                "--out",
                &out,
                "--format",
                "json",
            ],
            Duration::from_secs(180),
        );
        let seconds = begun.elapsed().as_secs_f64();
        assert_eq!(run.code, Some(2), "{flag}: {}{}", run.stdout, run.stderr);
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(report["admitted"], false);
        let theorems = report["theorems"].as_array().unwrap();
        assert!(!theorems.is_empty());
        for t in theorems {
            assert_eq!(t["status"], "unproved", "{t}");
            let reason = t["reason"].as_str().unwrap();
            assert!(
                reason.contains(&format!("passed --max-memory {shown}"))
                    && reason.contains("the steps of one state alone"),
                "{t}"
            );
        }
        let network = &report["stats"]["networks"][0];
        assert_eq!(network["certificate_written"], false);
        let peak = children_peak_bytes();
        assert!(
            peak < bound,
            "--max-memory {flag}: a child peaked at {peak} bytes"
        );
        eprintln!(
            "--max-memory {flag}: {seconds:.1} s, peak {} MiB",
            peak >> 20
        );
    }
}
