//! The incremental build, measured: a project of N agents, each with its own plan file whose plan
//! interleaves K independent `believe`s (2^K + 1 states), is built fresh into an empty `--out`,
//! built again unchanged, and built again after a one-line edit to one plan file. Each build is
//! a `hilbert build --format json` process of its own; the table gives its wall time and how
//! many networks it reused (read from the report's `stats.networks[].reused`).
//!
//! `bench-incremental [--hilbert PATH] [--n N] [--k K] [--runs R]` (defaults: the release
//! binary, N = 10, K = 11, R = 3; medians over R rounds). Exit code 1 if a build is not
//! admitted or the reuse counts are not N − 0, N and N − 1.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

fn agent(i: usize) -> String {
    format!(
        "agent A{i} : Agency\n{{\n  belief s(n: Int)\n  belief t(n: Int)\n  desire Done reachable by [Go]\n  commit single_minded\n  attention Main initially\n  intend Go for Done when ¬ B(self) s(0)\n  achieved Done when B(self) s(0)\n  plan Go ↦ P{i}.Run\n}}\n"
    )
}

fn plan(i: usize, k: usize, last: i64) -> String {
    let parts: Vec<String> = (1..=k).map(|j| format!("believe t({j})")).collect();
    format!(
        "plan Run() : A{i} ≔ ({}) ; believe s({last}) ; believe s(0)\n",
        parts.join(" ‖ ")
    )
}

/// One build: wall seconds, networks reused, admitted.
fn build(hilbert: &Path, project: &Path, out: &Path) -> Result<(f64, usize, bool), String> {
    let started = Instant::now();
    let run = Command::new(hilbert)
        .arg("build")
        .arg(project)
        .arg("--out")
        .arg(out)
        .args(["--format", "json"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", hilbert.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let json: serde_json::Value = serde_json::from_slice(&run.stdout)
        .map_err(|e| format!("the build's report is not JSON: {e}"))?;
    let reused = json["stats"]["networks"]
        .as_array()
        .map_or(0, |ns| ns.iter().filter(|n| n["reused"] == true).count());
    Ok((seconds, reused, json["admitted"] == true))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> ExitCode {
    let (mut hilbert, mut n, mut k, mut runs) = (
        PathBuf::from("target/release/hilbert"),
        10usize,
        11usize,
        3usize,
    );
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        match (arg.as_str(), value) {
            ("--hilbert", Some(v)) => hilbert = PathBuf::from(v),
            ("--n", Some(v)) => n = v.parse().unwrap_or(n).max(1),
            ("--k", Some(v)) => k = v.parse().unwrap_or(k),
            ("--runs", Some(v)) => runs = v.parse().unwrap_or(runs).max(1),
            _ => {
                eprintln!("usage: bench-incremental [--hilbert PATH] [--n N] [--k K] [--runs R]");
                return ExitCode::from(2);
            }
        }
    }
    let root = std::env::temp_dir().join(format!("hilbert-incremental-{}", std::process::id()));
    let (project, out) = (root.join("src"), root.join("out"));
    let mut times: [Vec<f64>; 3] = Default::default();
    let mut ok = true;
    for _ in 0..runs {
        let _ = std::fs::remove_dir_all(&root);
        if let Err(e) = std::fs::create_dir_all(&project).and_then(|()| {
            (0..n).try_for_each(|i| {
                std::fs::write(project.join(format!("A{i}.ha")), agent(i))?;
                std::fs::write(project.join(format!("P{i}.hk")), plan(i, k, 1))
            })
        }) {
            eprintln!("error: cannot write the project: {e}");
            return ExitCode::from(2);
        }
        for (step, want) in [0, n, n - 1].into_iter().enumerate() {
            if step == 2 {
                // The one-line edit: another intermediate belief in one plan.
                let edited = 3 % n;
                let _ = std::fs::write(project.join(format!("P{edited}.hk")), plan(edited, k, 2));
            }
            match build(&hilbert, &project, &out) {
                Ok((seconds, reused, admitted)) => {
                    times[step].push(seconds);
                    if reused != want || !admitted {
                        eprintln!(
                            "MISMATCH: build {} reused {reused} networks (want {want}), admitted {admitted}",
                            step + 1
                        );
                        ok = false;
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "{n} networks of 2^{k} + 3 states each; medians of {runs} rounds ({})",
        hilbert.display()
    );
    println!("| build | networks reused | wall s |");
    println!("| --- | --- | --- |");
    for (label, reused, t) in [
        ("fresh (empty --out)", 0, &times[0]),
        ("unchanged", n, &times[1]),
        ("one plan file edited", n - 1, &times[2]),
    ] {
        println!("| {label} | {reused} of {n} | {:.3} |", median(t.clone()));
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
