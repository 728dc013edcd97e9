//! A long campaign in child processes, each under a memory bound and a stall bound. A project
//! that makes the build or the oracle grow past the memory bound, run without progress past the
//! stall bound, or crash the process is a finding of its own (its seed and whole project), and
//! the campaign goes on from the next seed: one such project no longer ends a long run with
//! nothing reported (oracle/KNOWN.md, the long run of 2026-12-05).
//!
//! The parent runs the campaign in chunks of consecutive seeds, each in a child (`difftest
//! --worker`) under `ulimit -v`, reading the seed the child is on from its standard error and
//! its report from its standard output ([`campaign::encode`]). When a child fails at seed `s`,
//! the seeds of its chunk before `s` are run again in a fresh child (the generator and both
//! pipelines are deterministic), `s` is recorded, and the next chunk starts at `s + 1`. The
//! first project of each class the children found is then shrunk, each in a child of its own
//! under the same bounds (`difftest --shrink-seed`).

use crate::campaign::{self, Found, Plan, Report};
use crate::generate;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The bounds every child runs under.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Address space of a child, in MiB (`ulimit -v`).
    pub memory_mib: u64,
    /// Longest time a child may go without starting its next project (or shrinking try).
    pub stall: Duration,
    /// Seeds per child.
    pub chunk: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            memory_mib: 4096,
            stall: Duration::from_secs(120),
            chunk: 500,
        }
    }
}

/// How a child ended.
enum Child {
    /// It printed its whole report.
    Done(String),
    /// It failed while on seed `seed` (or its first seed, if it had not begun one).
    Failed {
        seed: u64,
        class: String,
        detail: String,
    },
}

/// The class of a failed child.
pub const MEMORY: &str = "a project exceeds the memory bound (build or oracle)";
/// The class of a stalled child.
pub const STALL: &str = "a project runs past the stall bound (build or oracle)";
/// The class of a child that crashed otherwise.
pub const CRASH: &str = "a project crashes the process (build or oracle)";

/// Runs `exe` with `args` under `bounds`; `first` is the seed it starts on.
fn child(exe: &Path, args: &[String], first: u64, bounds: &Bounds) -> Child {
    let kib = bounds.memory_mib.saturating_mul(1024);
    let spawned = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v \"$1\" && shift && exec \"$@\"")
        .arg("sh")
        .arg(kib.to_string())
        .arg(exe)
        .args(args)
        .env("ORACLE_TRACE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut proc = match spawned {
        Ok(p) => p,
        Err(e) => {
            return Child::Failed {
                seed: first,
                class: CRASH.into(),
                detail: format!("the child process could not start: {e}"),
            };
        }
    };
    let mut out = proc.stdout.take().expect("piped");
    let err = proc.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seed = first;
    let mut tail: Vec<String> = Vec::new();
    let stalled = loop {
        match rx.recv_timeout(bounds.stall) {
            Ok(line) => {
                if let Some(s) = line.strip_prefix("seed ").and_then(|s| s.parse().ok()) {
                    seed = s;
                    tail.clear();
                } else if !line.starts_with("try ") {
                    tail.push(line);
                    if tail.len() > 20 {
                        tail.remove(0);
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => break true,
            Err(mpsc::RecvTimeoutError::Disconnected) => break false,
        }
    };
    if stalled {
        let _ = proc.kill();
    }
    let status = proc.wait();
    let stdout = reader.join().unwrap_or_default();
    if stalled {
        return Child::Failed {
            seed,
            class: STALL.into(),
            detail: format!("no progress for {} s (killed)", bounds.stall.as_secs()),
        };
    }
    match status {
        Ok(s) if s.success() => Child::Done(stdout),
        other => {
            let tail = tail.join("\n");
            let class = if tail.contains("memory allocation") {
                MEMORY
            } else {
                CRASH
            };
            Child::Failed {
                seed,
                class: class.into(),
                detail: format!(
                    "{} ({}); its last words: {}",
                    match &other {
                        Ok(s) => format!("the child exited: {s}"),
                        Err(e) => format!("the child was lost: {e}"),
                    },
                    if class == MEMORY {
                        format!("bound {} MiB", bounds.memory_mib)
                    } else {
                        "no memory failure reported".into()
                    },
                    if tail.is_empty() { "none" } else { &tail }
                ),
            }
        }
    }
}

/// The arguments of a `--worker` child on `count` seeds from `seed`, for at most `seconds`.
fn worker_args(plan: &Plan, seed: u64, count: usize, seconds: u64) -> Vec<String> {
    let mut a = vec![
        "--worker".to_string(),
        "--seed".into(),
        seed.to_string(),
        "--count".into(),
        count.to_string(),
        "--seconds".into(),
        seconds.max(1).to_string(),
        "--max-states".into(),
        plan.max_states.to_string(),
        "--no-shrink".into(),
    ];
    if !plan.avoid.is_empty() {
        a.push("--avoid".into());
        a.push(plan.avoid.join(","));
    }
    a
}

/// Runs `count` seeds from `seed` in one child; `Err((seed, class, detail))` when it failed.
fn chunk(
    exe: &Path,
    plan: &Plan,
    seed: u64,
    count: usize,
    seconds: u64,
    bounds: &Bounds,
) -> Result<Report, (u64, String, String)> {
    match child(exe, &worker_args(plan, seed, count, seconds), seed, bounds) {
        Child::Done(out) => campaign::decode(&out).ok_or((
            seed,
            CRASH.to_string(),
            "the child's report could not be read".to_string(),
        )),
        Child::Failed {
            seed: s,
            class,
            detail,
        } => Err((s, class, detail)),
    }
}

/// Records seed `seed` as a finding of `class` in `r` (counted as generated, with its
/// coverage, and its whole project as the example).
fn record(r: &mut Report, plan: &Plan, seed: u64, class: &str, detail: &str) {
    let mut cov = generate::Coverage::default();
    let p = generate::project(seed, &mut cov, &plan.avoid);
    let mut one = Report {
        generated: 1,
        coverage: cov,
        ..Report::default()
    };
    one.found.insert(
        class.to_string(),
        Found {
            class: class.to_string(),
            count: 1,
            seed,
            detail: detail.to_string(),
            minimal: p.sources(),
            minimal_details: vec![detail.to_string()],
        },
    );
    campaign::merge(r, one);
}

/// The path of the running executable (the `difftest` binary the children run).
pub fn this_exe() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("difftest"))
}

/// Runs `plan` in guarded children of `exe` (the `difftest` binary): see the module's docs.
/// `progress` is called after each chunk.
pub fn run(exe: &Path, plan: &Plan, bounds: &Bounds, mut progress: impl FnMut(&Report)) -> Report {
    let begun = Instant::now();
    let mut r = Report::default();
    let mut next = plan.seed;
    while r.generated < plan.count && begun.elapsed() < plan.time {
        let left = plan.time.saturating_sub(begun.elapsed()).as_secs();
        let n = bounds.chunk.min(plan.count - r.generated);
        match chunk(exe, plan, next, n, left, bounds) {
            Ok(rep) => {
                next += rep.generated as u64;
                let ended = rep.generated < n;
                campaign::merge(&mut r, rep);
                if ended {
                    break; // out of time
                }
            }
            Err((bad, class, detail)) => {
                // The seeds before the one that failed, again in a fresh child.
                if bad > next {
                    let left = plan.time.saturating_sub(begun.elapsed()).as_secs();
                    match chunk(exe, plan, next, (bad - next) as usize, left, bounds) {
                        Ok(rep) => campaign::merge(&mut r, rep),
                        Err((again, class2, detail2)) => {
                            // Not the same seed the second time: record what this run saw
                            // and go on after it; the seeds in between are not counted.
                            record(&mut r, plan, again, &class2, &detail2);
                            next = again + 1;
                            continue;
                        }
                    }
                }
                record(&mut r, plan, bad, &class, &detail);
                next = bad + 1;
            }
        }
        r.seconds = begun.elapsed().as_secs_f64();
        progress(&r);
    }
    // Shrink the first project of each class the children compared (not the guard's own).
    let classes: Vec<(String, u64)> = r
        .found
        .values()
        .filter(|f| ![MEMORY, STALL, CRASH].contains(&f.class.as_str()))
        .map(|f| (f.class.clone(), f.seed))
        .collect();
    if plan.shrink == 0 {
        r.seconds = begun.elapsed().as_secs_f64();
        return r;
    }
    for (class, seed) in classes {
        let mut args = vec![
            "--shrink-seed".to_string(),
            seed.to_string(),
            "--class".into(),
            class.clone(),
            "--max-states".into(),
            plan.max_states.to_string(),
        ];
        if !plan.avoid.is_empty() {
            args.push("--avoid".into());
            args.push(plan.avoid.join(","));
        }
        if let Child::Done(out) = child(exe, &args, seed, bounds)
            && let Some(m) = out.lines().find_map(campaign::decode_found)
            && let Some(f) = r.found.get_mut(&class)
        {
            f.minimal = m.minimal;
            f.minimal_details = m.minimal_details;
        }
    }
    r.seconds = begun.elapsed().as_secs_f64();
    r
}
