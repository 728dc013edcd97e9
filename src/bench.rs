//! `hilbert bench [SUITE…]`: the benchmark suite of `benchmarks/models/`. Every row (a model at
//! one size) runs in a process of its own (`hilbert bench --row MODEL:N`, which prints the row
//! as JSON), so its peak memory is its own; the rows are measured by
//! `hilbert_benchmarks::harness`. With `--peers`, each model's Promela peer is run by Spin on
//! the same N; with `--plot DIR`, every row is also run with one thread and the charts are
//! written as SVG.
//!
//! The scaling models (`kind = "scaling"` in their `bench.toml`: `seq`, `par`, `files`) have
//! rows of their own: the whole `hilbert build` of the generated project, timed end to end in a
//! child of the row's process, against the input's size (`hilbert_benchmarks::scaling`). They
//! are in the same suites; the word `scaling` selects them alone.
//!
//! Exit codes: 0 every verdict as expected, 1 a verdict differs (or a row failed), 2 a usage or
//! environment error.

use crate::output;
use hilbert_benchmarks::harness::{self, Row};
use hilbert_benchmarks::plot::{self, Scale, Series};
use hilbert_benchmarks::scaling::{self, ScalingRow};
use hilbert_benchmarks::spin::{self, SpinRow};
use hilbert_benchmarks::suite::{self, Model, SUITES};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How `hilbert bench` writes its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Markdown tables, for people and for `benchmarks/README.md`.
    Human,
    /// One JSON object.
    Json,
}

/// The options of `hilbert bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Suites (`smoke`, `default`, `large`), model names (directories of the models) and
    /// `scaling` (every scaling model); no suite means `default`, no model means every model.
    #[arg(value_name = "SUITE")]
    select: Vec<String>,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also run each model's Promela peer with Spin (needs `spin` and a C compiler).
    #[arg(long)]
    peers: bool,
    /// Also run every row with one thread, and write the charts (SVG) to DIR.
    #[arg(long, value_parser = crate::output::path_arg, value_name = "DIR")]
    plot: Option<String>,
    /// Explorer threads (0: all cores).
    #[arg(long, value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Stop exploring a network after this many states (the row then fails).
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    max_states: usize,
    /// Where the models are (default: `benchmarks/models` here, else the source tree's).
    #[arg(long, value_parser = crate::output::path_arg, value_name = "DIR")]
    models: Option<String>,
    /// Internal: measure one row (`MODEL:N`) in this process and print it as JSON.
    #[arg(long, value_name = "MODEL:N", hide = true)]
    row: Option<String>,
}

fn models_root(args: &Args) -> PathBuf {
    match &args.models {
        Some(dir) => PathBuf::from(dir),
        None => {
            let here = Path::new("benchmarks/models");
            if here.is_dir() {
                here.to_path_buf()
            } else {
                suite::default_root()
            }
        }
    }
}

/// One row and, with `--peers`, what Spin found on the same model and N.
#[derive(Serialize)]
struct Line {
    #[serde(flatten)]
    row: Row,
    states_per_sec: f64,
    bytes_per_state: f64,
    verdict: &'static str,
    /// The same row with one thread (with `--plot`, on a machine with more than one core).
    one_thread: Option<Row>,
    spin: Option<Peer>,
}

#[derive(Serialize)]
struct Peer {
    /// Spin's default search (partial-order reduction on).
    default: SpinRow,
    /// The full state space (`-DNOREDUCE`), for comparing state counts.
    full: SpinRow,
    /// Our states/s ÷ Spin's (default search).
    states_per_sec_ratio: f64,
    /// Our bytes/state ÷ Spin's (default search).
    bytes_per_state_ratio: f64,
    /// Our exploration time ÷ Spin's search time (default search).
    time_ratio: f64,
    /// The theorem Spin's deadlock search decides, and whether Spin agrees with bench.toml.
    theorem: String,
    agrees: bool,
}

/// A scaling row, with how its time grew since the model's previous size.
#[derive(Serialize)]
struct ScalingLine {
    #[serde(flatten)]
    row: ScalingRow,
    /// `k` in `wall_s ∝ input_bytes^k`, from the model's previous row in this run (1: linear,
    /// 2: quadratic); none for its first row.
    time_exponent: Option<f64>,
    /// The same for the peak memory.
    memory_exponent: Option<f64>,
    /// The peak memory per input byte (issue 17 set the front end ≤ 20 for large inputs; a
    /// small project's figure is mostly the process and Z3's context).
    peak_bytes_per_input_byte: Option<f64>,
    /// `ok` or `MISMATCH`.
    verdict: &'static str,
}

/// The exponent `k` of `y ∝ x^k` between two points, if both are positive and distinct in x.
fn exponent((x0, y0): (f64, f64), (x1, y1): (f64, f64)) -> Option<f64> {
    (x0 > 0.0 && x1 > 0.0 && y0 > 0.0 && y1 > 0.0 && x1 != x0)
        .then(|| (y1 / y0).ln() / (x1 / x0).ln())
}

#[derive(Serialize)]
struct Report {
    schema_version: u32,
    tool: &'static str,
    version: &'static str,
    cores: usize,
    jobs: usize,
    suites: Vec<String>,
    spin: Option<String>,
    peers_unavailable: Option<String>,
    rows: Vec<Line>,
    /// The scaling rows: the whole `hilbert build` against the input's size.
    scaling: Vec<ScalingLine>,
    failures: Vec<String>,
    ok: bool,
}

/// Runs the command and returns its exit code.
pub fn run(args: &Args) -> u8 {
    let root = models_root(args);
    if let Some(row) = &args.row {
        return one_row(&root, row, args);
    }
    let models = match suite::models(&root) {
        Ok(m) if !m.is_empty() => m,
        Ok(_) => {
            return output::fail(
                output::Kind::Input,
                &format!(
                    "no model (a directory with a bench.toml) in `{}`",
                    root.display()
                ),
                "run from the repository's root, or pass --models DIR",
            );
        }
        Err(e) => {
            return output::fail(
                output::Kind::Input,
                &e,
                "run from the repository's root, or pass --models DIR",
            );
        }
    };
    let mut suites: Vec<String> = Vec::new();
    let mut chosen: Vec<&Model> = Vec::new();
    for word in &args.select {
        if SUITES.contains(&word.as_str()) {
            suites.push(word.clone());
        } else if word == "scaling" {
            chosen.extend(models.iter().filter(|m| m.is_scaling()));
        } else if let Some(m) = models.iter().find(|m| m.name == *word) {
            chosen.push(m);
        } else {
            let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
            return output::fail(
                output::Kind::Usage,
                &format!("`{word}` is neither a suite nor a model"),
                &format!(
                    "suites: {}; models: {}; scaling (every scaling model)",
                    SUITES.join(", "),
                    names.join(", ")
                ),
            );
        }
    }
    if suites.is_empty() {
        suites.push("default".into());
    }
    if chosen.is_empty() {
        chosen = models.iter().collect();
    }
    // A model named twice (`scaling seq`) runs once.
    let mut seen = std::collections::BTreeSet::new();
    chosen.retain(|m| seen.insert(m.name.clone()));
    let cores = harness::cores();
    let jobs = if args.jobs == 0 {
        cores
    } else {
        crate::build::cap_jobs(args.jobs)
    };
    let peers = if args.peers {
        Some(spin::available())
    } else {
        None
    };
    let spin_ok = matches!(peers, Some(Ok(())));
    let mut lines = Vec::new();
    let mut scaling_lines: Vec<ScalingLine> = Vec::new();
    let mut failures = Vec::new();
    for s in &suites {
        for m in &chosen {
            for &n in m.sizes(s) {
                progress(args, &format!("{} N={n}", m.name));
                if m.is_scaling() {
                    match child::<ScalingRow>(args, &root, m, n, jobs) {
                        Ok(row) => scaling_lines.push(scaling_line(row, &scaling_lines)),
                        Err(e) => failures.push(format!("{} N={n}: {e}", m.name)),
                    }
                    continue;
                }
                let row = match child::<Row>(args, &root, m, n, jobs) {
                    Ok(r) => r,
                    Err(e) => {
                        failures.push(format!("{} N={n}: {e}", m.name));
                        continue;
                    }
                };
                let one_thread = if args.plot.is_some() && jobs > 1 {
                    match child::<Row>(args, &root, m, n, 1) {
                        Ok(r) => Some(r),
                        Err(e) => {
                            failures.push(format!("{} N={n}, 1 thread: {e}", m.name));
                            None
                        }
                    }
                } else {
                    None
                };
                let peer = if spin_ok {
                    match peer(m, n, &row) {
                        Ok(p) => p,
                        Err(e) => {
                            failures.push(format!("{} N={n}, Spin: {e}", m.name));
                            None
                        }
                    }
                } else {
                    None
                };
                lines.push(Line {
                    states_per_sec: row.states_per_sec(),
                    bytes_per_state: row.bytes_per_state(),
                    verdict: if row.mismatches.is_empty() && peer.as_ref().is_none_or(|p| p.agrees)
                    {
                        "ok"
                    } else {
                        "MISMATCH"
                    },
                    row,
                    one_thread,
                    spin: peer,
                });
            }
        }
    }
    let ok = failures.is_empty()
        && lines.iter().all(|l| l.verdict == "ok")
        && scaling_lines.iter().all(|l| l.verdict == "ok");
    if let Some(dir) = &args.plot {
        let dir = Path::new(dir);
        let written = std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))
            .and_then(|()| {
                if !lines.is_empty() {
                    write_plots(dir, &lines, jobs)?;
                }
                if !scaling_lines.is_empty() {
                    write_scaling_plots(dir, &scaling_lines)?;
                }
                Ok(())
            });
        if let Err(e) = written {
            return output::fail(
                output::Kind::Output,
                &e,
                "choose a writable directory with --plot DIR",
            );
        }
    }
    let report = Report {
        schema_version: 1,
        tool: "hilbert",
        version: env!("CARGO_PKG_VERSION"),
        cores,
        jobs,
        suites,
        spin: if spin_ok { spin::version() } else { None },
        peers_unavailable: match peers {
            Some(Err(e)) => Some(e),
            _ => None,
        },
        rows: lines,
        scaling: scaling_lines,
        failures,
        ok,
    };
    let text = match args.format {
        Format::Human => human(&report, args),
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&report).unwrap_or_default();
            t.push('\n');
            t
        }
    };
    output::stdout(&text);
    u8::from(!ok)
}

/// A line on standard error per row, when it is a terminal.
fn progress(args: &Args, what: &str) {
    use std::io::IsTerminal;
    if args.format == Format::Human && std::io::stderr().is_terminal() {
        eprintln!("bench: {what}");
    }
}

/// `--row MODEL:N`: one row in this process, as JSON.
fn one_row(root: &Path, spec: &str, args: &Args) -> u8 {
    let Some((name, n)) = spec
        .rsplit_once(':')
        .and_then(|(m, n)| Some((m, n.parse::<usize>().ok()?)))
    else {
        return output::fail(
            output::Kind::Usage,
            &format!("--row `{spec}`: expected MODEL:N"),
            "",
        );
    };
    let model = match Model::load(&root.join(name)) {
        Ok(m) => m,
        Err(e) => return output::fail(output::Kind::Input, &e, ""),
    };
    if model.is_scaling() {
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => {
                return output::fail(
                    output::Kind::System,
                    &format!("cannot find this program: {e}"),
                    "",
                );
            }
        };
        let jobs = if args.jobs == 0 {
            harness::cores()
        } else {
            args.jobs
        };
        return match scaling::run(&model, n, &exe, jobs, args.max_states) {
            Ok(row) => {
                output::stdout(&format!(
                    "{}\n",
                    serde_json::to_string(&row).unwrap_or_default()
                ));
                0
            }
            Err(e) => output::fail(output::Kind::System, &e, ""),
        };
    }
    match harness::run(&model, n, args.jobs, args.max_states) {
        Ok(row) => {
            output::stdout(&format!(
                "{}\n",
                serde_json::to_string(&row).unwrap_or_default()
            ));
            0
        }
        Err(e) => output::fail(output::Kind::System, &e, ""),
    }
}

/// A scaling row, with its growth since the previous row of its model in `earlier`.
fn scaling_line(row: ScalingRow, earlier: &[ScalingLine]) -> ScalingLine {
    let previous = earlier
        .iter()
        .rev()
        .find(|l| l.row.model == row.model && l.row.input_bytes < row.input_bytes);
    let bytes = |r: &ScalingRow| r.input_bytes as f64;
    let (time_exponent, memory_exponent) = match previous {
        Some(p) => (
            exponent((bytes(&p.row), p.row.wall_s), (bytes(&row), row.wall_s)),
            p.row
                .peak_rss
                .zip(row.peak_rss)
                .and_then(|(a, b)| exponent((bytes(&p.row), a as f64), (bytes(&row), b as f64))),
        ),
        None => (None, None),
    };
    let peak_bytes_per_input_byte = row
        .peak_rss
        .filter(|_| row.input_bytes > 0)
        .map(|p| p as f64 / row.input_bytes as f64);
    ScalingLine {
        verdict: row.verdict(),
        row,
        time_exponent,
        memory_exponent,
        peak_bytes_per_input_byte,
    }
}

/// Runs one row in a child process (`hilbert bench --row MODEL:N`) and reads what it prints.
fn child<T: DeserializeOwned>(
    args: &Args,
    root: &Path,
    m: &Model,
    n: usize,
    jobs: usize,
) -> Result<T, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let out = Command::new(exe)
        .arg("bench")
        .arg("--row")
        .arg(format!("{}:{n}", m.name))
        .arg("--models")
        .arg(root)
        .arg("--jobs")
        .arg(jobs.to_string())
        .arg("--max-states")
        .arg(args.max_states.to_string())
        .output()
        .map_err(|e| format!("cannot run the row: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cannot read the row's report: {e}"))
}

/// Spin on the model's peer at the same N, with and without partial-order reduction.
fn peer(m: &Model, n: usize, row: &Row) -> Result<Option<Peer>, String> {
    let Some(file) = &m.spec.peer else {
        return Ok(None);
    };
    let pml = suite::peers_root().join(file);
    let mut defines = vec![format!("N={n}"), format!("K={}", m.k())];
    defines.extend(m.spec.peer_defines.iter().cloned());
    let default = spin::run(&pml, &defines, true)?;
    let full = spin::run(&pml, &defines, false)?;
    let theorem = m.peer_theorem().unwrap_or_default();
    let expected_deadlock = m
        .spec
        .expected
        .get(&theorem)
        .is_some_and(|v| v == "refuted");
    let agrees = !default.truncated
        && !full.truncated
        && default.deadlock == expected_deadlock
        && full.deadlock == expected_deadlock;
    Ok(Some(Peer {
        states_per_sec_ratio: row.states_per_sec() / default.states_per_sec(),
        bytes_per_state_ratio: row.bytes_per_state() / default.bytes_per_state(),
        time_ratio: row.explore_s / default.seconds.max(1e-9),
        default,
        full,
        theorem,
        agrees,
    }))
}

fn si(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
}

/// A Markdown table with padded columns.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:w$}", w = width[i]))
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut t = line(header.iter().map(|h| h.to_string()).collect());
    t.push_str(&line(width.iter().map(|&w| "-".repeat(w)).collect()));
    for r in rows {
        t.push_str(&line(r.clone()));
    }
    t
}

fn human(report: &Report, args: &Args) -> String {
    let mut text = format!(
        "hilbert bench: suite {}, {} core{}, {} explorer thread{}\n\n",
        report.suites.join(", "),
        report.cores,
        if report.cores == 1 { "" } else { "s" },
        report.jobs,
        if report.jobs == 1 { "" } else { "s" },
    );
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|l| {
            let r = &l.row;
            vec![
                r.model.clone(),
                r.n.to_string(),
                thousands(r.states as u64),
                thousands(r.transitions as u64),
                format!("{:.3}", r.explore_s),
                format!("{:.3}", r.kernel_s),
                si(r.states_per_sec()),
                format!("{:.1}", r.bytes_per_state()),
                r.peak_rss.map_or("n/a".into(), |b| mib(b as f64)),
                l.verdict.to_string(),
            ]
        })
        .collect();
    // The state-space table, unless only scaling rows were asked for.
    if !rows.is_empty() || report.scaling.is_empty() {
        text.push_str(&table(
            &[
                "model",
                "N",
                "states",
                "transitions",
                "explore s",
                "kernel s",
                "states/s",
                "bytes/state",
                "peak memory",
                "verdict",
            ],
            &rows,
        ));
    }
    if !report.scaling.is_empty() {
        if !rows.is_empty() {
            text.push('\n');
        }
        text.push_str(&scaling_table(&report.scaling));
    }
    for l in &report.scaling {
        for m in &l.row.mismatches {
            text.push_str(&format!("MISMATCH {} N={}: {m}\n", l.row.model, l.row.n));
        }
    }
    for l in &report.rows {
        for m in &l.row.mismatches {
            text.push_str(&format!("MISMATCH {} N={}: {m}\n", l.row.model, l.row.n));
        }
        if let Some(p) = &l.spin
            && !p.agrees
        {
            text.push_str(&format!(
                "MISMATCH {} N={}: Spin {} a deadlock, but {} is expected {}\n",
                l.row.model,
                l.row.n,
                if p.default.deadlock {
                    "found"
                } else {
                    "found no"
                },
                p.theorem,
                l.row
                    .theorems
                    .iter()
                    .find(|t| t.name == p.theorem)
                    .and_then(|t| t.expected.clone())
                    .unwrap_or_else(|| "(not listed)".into())
            ));
        }
    }
    if args.peers {
        text.push('\n');
        match (&report.peers_unavailable, &report.spin) {
            (Some(why), _) => text.push_str(&format!("peers: not run: {why}\n")),
            (None, version) => {
                text.push_str(&format!(
                    "Spin side by side ({}; cc -O2 -DSAFETY; ./pan -c0; ratios are ours ÷ Spin's default search):\n\n",
                    version.as_deref().unwrap_or("spin")
                ));
                let rows: Vec<Vec<String>> = report
                    .rows
                    .iter()
                    .filter_map(|l| {
                        let p = l.spin.as_ref()?;
                        let r = &l.row;
                        Some(vec![
                            r.model.clone(),
                            r.n.to_string(),
                            thousands(r.states as u64),
                            thousands(p.default.states),
                            thousands(p.full.states),
                            si(r.states_per_sec()),
                            si(p.default.states_per_sec()),
                            format!("{:.2}", p.states_per_sec_ratio),
                            format!("{:.1}", r.bytes_per_state()),
                            format!("{:.1}", p.default.bytes_per_state()),
                            format!("{:.2}", p.bytes_per_state_ratio),
                            format!("{:.3}", r.explore_s),
                            format!("{:.3}", p.default.seconds),
                            format!(
                                "{}{}",
                                if p.default.deadlock {
                                    "deadlock"
                                } else {
                                    "no deadlock"
                                },
                                if p.agrees { "" } else { " (MISMATCH)" }
                            ),
                        ])
                    })
                    .collect();
                text.push_str(&table(
                    &[
                        "model",
                        "N",
                        "states (ours)",
                        "states (Spin)",
                        "states (Spin, no POR)",
                        "states/s (ours)",
                        "states/s (Spin)",
                        "ratio",
                        "B/state (ours)",
                        "B/state (Spin)",
                        "ratio",
                        "explore s (ours)",
                        "search s (Spin)",
                        "Spin",
                    ],
                    &rows,
                ));
                text.push_str(&end_to_end(report));
            }
        }
    }
    if args.plot.is_some() {
        let rows: Vec<Vec<String>> = report
            .rows
            .iter()
            .filter_map(|l| {
                let one = l.one_thread.as_ref()?;
                Some(vec![
                    l.row.model.clone(),
                    l.row.n.to_string(),
                    thousands(l.row.states as u64),
                    si(one.states_per_sec()),
                    si(l.row.states_per_sec()),
                    format!("{:.2}", l.row.states_per_sec() / one.states_per_sec()),
                ])
            })
            .collect();
        if !rows.is_empty() {
            text.push_str(&format!("\nScaling (1 and {} threads):\n\n", report.jobs));
            text.push_str(&table(
                &[
                    "model",
                    "N",
                    "states",
                    "states/s (1 thread)",
                    &format!("states/s ({} threads)", report.jobs),
                    "speed-up",
                ],
                &rows,
            ));
        }
        if let Some(dir) = &args.plot {
            let mut charts = Vec::new();
            if !report.rows.is_empty() {
                charts.extend(
                    [
                        "time.svg",
                        "memory.svg",
                        "states-per-sec.svg",
                        "time-by-states.svg",
                        "memory-by-states.svg",
                    ]
                    .map(|c| format!("{dir}/{c}")),
                );
            }
            if !report.scaling.is_empty() {
                charts.extend(SCALING_CHARTS.map(|c| format!("{dir}/{c}")));
            }
            text.push_str(&format!("\ncharts: {}\n", charts.join(", ")));
        }
    }
    for f in &report.failures {
        text.push_str(&format!("FAILED {f}\n"));
    }
    text.push_str(if report.ok {
        "\nevery verdict as expected\n"
    } else {
        "\nsome verdicts differ from those expected (or a row failed)\n"
    });
    text
}

/// The charts of the scaling rows.
const SCALING_CHARTS: [&str; 2] = ["scaling-time.svg", "scaling-memory.svg"];

/// Bytes as KiB or MiB, with one decimal.
fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1024.0 * 1024.0 {
        mib(b)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

/// The scaling rows: the whole `hilbert build` of each generated project against its size.
fn scaling_table(lines: &[ScalingLine]) -> String {
    let k = |e: Option<f64>| e.map_or("".into(), |e| format!("{e:.2}"));
    let rows: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            let r = &l.row;
            vec![
                r.model.clone(),
                thousands(r.n as u64),
                thousands(r.files as u64),
                size(r.input_bytes),
                thousands(r.states),
                format!("{:.3}", r.wall_s),
                format!("{:.3}", r.prove_s),
                format!("{:.3}", r.kernel_s),
                r.peak_rss.map_or("n/a".into(), |b| mib(b as f64)),
                l.peak_bytes_per_input_byte
                    .map_or("n/a".into(), |b| format!("{b:.0}")),
                k(l.time_exponent),
                k(l.memory_exponent),
                format!(
                    "{}/{}",
                    thousands(r.proved as u64),
                    thousands(r.theorems as u64)
                ),
                l.verdict.to_string(),
            ]
        })
        .collect();
    let mut text = String::from(
        "Scaling rows: the whole `hilbert build` of each generated project, in a process of its own \
         (bytes/byte: peak memory per input byte; k: the exponent of time or peak memory against input bytes since the previous size; 1 is linear):\n\n",
    );
    text.push_str(&table(
        &[
            "model",
            "N",
            "files",
            "input",
            "states",
            "wall s",
            "prove s",
            "kernel s",
            "peak memory",
            "bytes/byte",
            "k time",
            "k memory",
            "proved",
            "verdict",
        ],
        &rows,
    ));
    text
}

/// Time and peak memory of the scaling rows against N, log–log, one line per model.
fn write_scaling_plots(dir: &Path, lines: &[ScalingLine]) -> Result<(), String> {
    let mut models: Vec<&str> = lines.iter().map(|l| l.row.model.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    let series = |f: &dyn Fn(&ScalingRow) -> Option<f64>| -> Vec<Series> {
        models
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let mut points: Vec<(f64, f64)> = lines
                    .iter()
                    .filter(|l| l.row.model == *m)
                    .filter_map(|l| Some((l.row.n as f64, f(&l.row)?)))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series {
                    name: (*m).to_string(),
                    points,
                    colour: k,
                    dash: 0,
                }
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    for (file, title, y, s) in [
        (
            SCALING_CHARTS[0],
            "hilbert build, wall time against N",
            "s",
            series(&|r| Some(r.wall_s)),
        ),
        (
            SCALING_CHARTS[1],
            "hilbert build, peak memory against N",
            "peak MiB",
            series(&|r| Some(r.peak_rss? as f64 / (1024.0 * 1024.0))),
        ),
    ] {
        let svg = plot::chart(title, "N", y, &s, Scale::LogLog);
        let path = dir.join(file);
        crate::output::write_whole(&path, svg)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(())
}

/// The verdict end to end beside Spin's full search: our phases (proving explores once more,
/// so the build's own cost is `prove + kernel`), each phase's peak memory, and Spin's
/// generation, compilation and search with partial-order reduction off (the same graph).
fn end_to_end(report: &Report) -> String {
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .filter_map(|l| {
            let p = l.spin.as_ref()?;
            let r = &l.row;
            let ours = r.prove_s + r.kernel_s;
            let spin = p.full.compile_seconds + p.full.seconds;
            let peak = |b: Option<u64>| b.map_or("n/a".into(), |b| mib(b as f64));
            Some(vec![
                r.model.clone(),
                r.n.to_string(),
                thousands(r.states as u64),
                format!("{:.2}", r.explore_s),
                format!("{:.2}", r.prove_s),
                format!("{:.2}", r.certify_s),
                format!("{:.2}", r.kernel_s),
                format!("{ours:.2}"),
                format!("{spin:.2}"),
                format!("{:.1}", ours / spin.max(1e-9)),
                peak(r.explore_peak_rss),
                peak(r.prove_peak_rss),
                peak(r.kernel_peak_rss),
                mib(p.full.total_bytes),
            ])
        })
        .collect();
    let mut text = String::from(
        "\nThe verdict end to end (ours: prove, which explores again, certifies; then the kernel) \
         beside Spin with no partial-order reduction (spin -a, cc, ./pan):\n\n",
    );
    text.push_str(&table(
        &[
            "model",
            "N",
            "states",
            "explore s",
            "prove s",
            "of which certify s",
            "kernel s",
            "prove + kernel s",
            "Spin s (all)",
            "ratio",
            "explore peak",
            "prove peak",
            "kernel peak",
            "Spin memory",
        ],
        &rows,
    ));
    text
}

fn write_plots(dir: &Path, lines: &[Line], jobs: usize) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let mut models: Vec<&str> = lines.iter().map(|l| l.row.model.as_str()).collect();
    models.dedup();
    // One series per model: (x, f) of its rows, where both are known; a model's colour is
    // its own in every chart, and `dash` tells its phases (or thread counts) apart. A model
    // measured at one size is one point (bench smoke), not left out.
    let per_model = |x: &dyn Fn(&Line) -> f64,
                     f: &dyn Fn(&Line) -> Option<f64>,
                     suffix: &str,
                     dash: usize|
     -> Vec<Series> {
        models
            .iter()
            .enumerate()
            .map(|(k, m)| Series {
                name: format!("{m}{suffix}"),
                points: lines
                    .iter()
                    .filter(|l| l.row.model == *m)
                    .filter_map(|l| Some((x(l), f(l)?)))
                    .collect(),
                colour: k,
                dash,
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    let series = |f: &dyn Fn(&Line) -> Option<f64>, suffix: &str, dash: usize| {
        per_model(&|l| l.row.n as f64, f, suffix, dash)
    };
    let charts = [
        (
            "time.svg",
            "exploration time against N",
            "explore s",
            series(&|l| Some(l.row.explore_s), "", 0),
        ),
        (
            "memory.svg",
            "peak memory against N",
            "peak MiB",
            series(&|l| Some(l.row.peak_rss? as f64 / (1024.0 * 1024.0)), "", 0),
        ),
        ("states-per-sec.svg", "states/s", "states/s", {
            let mut s = series(&|l| Some(l.row.states_per_sec()), &format!(" ({jobs})"), 0);
            s.extend(series(
                &|l| Some(l.one_thread.as_ref()?.states_per_sec()),
                " (1)",
                1,
            ));
            s
        }),
    ];
    for (file, title, y, s) in charts {
        // The title names the dashed lines only when there are some.
        let title = if file == "states-per-sec.svg" && s.iter().any(|s| s.dash == 1) {
            format!("{title}, {jobs} threads and 1 (dashed)")
        } else {
            format!(
                "{title}{}",
                if file == "states-per-sec.svg" {
                    format!(", {jobs} threads")
                } else {
                    String::new()
                }
            )
        };
        let title = title.as_str();
        let svg = plot::line_chart(title, "N", y, &s);
        let path = dir.join(file);
        crate::output::write_whole(&path, svg)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    // Against states: the verdict's cost by phase, and Spin's full search beside it.
    let by_states = |name: &str, f: &dyn Fn(&Line) -> Option<f64>, dash: usize| {
        per_model(&|l| l.row.states as f64, f, &format!(" {name}"), dash)
    };
    fn spin(l: &Line) -> Option<&SpinRow> {
        l.spin.as_ref().map(|p| &p.full)
    }
    // One line style per phase (solid, dashed, dotted), dash-dot for Spin.
    let mut time = by_states("explore", &|l| Some(l.row.explore_s), 0);
    time.extend(by_states(
        "prove + kernel",
        &|l| Some(l.row.prove_s + l.row.kernel_s),
        1,
    ));
    time.extend(by_states("kernel", &|l| Some(l.row.kernel_s), 2));
    time.extend(by_states(
        "Spin",
        &|l| spin(l).map(|p| p.compile_seconds + p.seconds),
        3,
    ));
    let mib_of = |b: Option<u64>| b.map(|b| b as f64 / (1024.0 * 1024.0));
    let mut memory = by_states("explore", &|l| mib_of(l.row.explore_peak_rss), 0);
    memory.extend(by_states("prove", &|l| mib_of(l.row.prove_peak_rss), 1));
    memory.extend(by_states("kernel", &|l| mib_of(l.row.kernel_peak_rss), 2));
    memory.extend(by_states(
        "Spin",
        &|l| spin(l).map(|p| p.total_bytes / (1024.0 * 1024.0)),
        3,
    ));
    for (file, title, y, s) in [
        (
            "time-by-states.svg",
            "the verdict's time against states",
            "s",
            time,
        ),
        (
            "memory-by-states.svg",
            "peak memory by phase against states",
            "MiB",
            memory,
        ),
    ] {
        // Spin is named only when it ran.
        let title = if s.iter().any(|s| s.dash == 3) {
            format!("{title} (Spin dash-dot)")
        } else {
            title.to_string()
        };
        let svg = plot::line_chart(&title, "states", y, &s);
        let path = dir.join(file);
        crate::output::write_whole(&path, svg)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(())
}
