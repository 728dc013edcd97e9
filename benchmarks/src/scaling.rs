//! The scaling rows of issue 14 ("cost linear in input size"): three shapes whose state spaces
//! are tiny but whose *inputs* grow, each measured as the whole `hilbert build` of the
//! generated project, so that a cost superlinear in the input's size shows as a regression.
//!
//! | shape | what grows | states |
//! |---|---|---|
//! | [`seq`] `N` | one plan of `N + 1` sequential `believe`s (one macro-step) | 2 |
//! | [`par`] `N` | one plan of `N + 1` parallel processes relaying a value over `N` channels | `N + 1` |
//! | [`files`] `N` | `N` agents in `N` `.ha` files, each with its own `.hk` file (`2N` files) | `2N` |
//!
//! Every theorem is proved and admitted at every size the suite runs: `Run_no_deadlock` and
//! `Go_live_Done` of each agent's network. `seq` runs in one macro-step, which the semantics
//! bounds at 100,000 nodes (`docs/semantics.md`): at `N` above 50,000 it is a divergence and
//! both theorems are refuted.
//!
//! A row ([`run`]) writes the project to a temporary directory, runs `hilbert build DIR
//! --format json` as a child process, and reads its report. What each figure is:
//! - `input_bytes`: the bytes of every generated source file (`files` of them).
//! - `wall_s`: from starting the build's process to its exit — reading, checking (Z3
//!   included), exploring, proving, certifying, writing the certificates and the kernel's
//!   check: what a user waits for.
//! - `peak_rss`: the build process's peak resident set (`getrusage(RUSAGE_CHILDREN)` after it
//!   ended; the row's process runs no other child). Where that cannot be read, the build's own
//!   report of it (`stats.peak_rss_bytes`).
//! - `prove_s`, `kernel_s`: the build's own report of its proving (exploring, deciding,
//!   certifying) and of the kernel's check; the rest of `wall_s` is starting, reading and
//!   checking the sources (with Z3) and writing the report.

use crate::suite::Model;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The agent every shape uses, named `name`, whose plan `Go` is `file.plan`.
fn agent(name: &str, file: &str, plan: &str) -> String {
    format!(
        "agent {name} : Agency
{{
  belief s(n: Int)
  desire Done reachable by [Go]
  commit single_minded
  attention Main initially
  intend Go for Done when ¬ B(self) s(0)
  achieved Done when B(self) s(0)
  plan Go ↦ {file}.{plan}
}}
"
    )
}

/// `seq N`: agent `A` (`A.ha`) and `P.hk`, whose `plan Run` is `believe s(N) ; believe s(N-1) ;
/// … ; believe s(0)`.
pub fn seq(n: usize) -> Vec<(String, String)> {
    let mut body = String::new();
    for i in (1..=n).rev() {
        let _ = write!(body, "believe s({i}) ;\n  ");
    }
    body.push_str("believe s(0)");
    vec![
        ("A.ha".to_string(), agent("A", "P", "Run")),
        ("P.hk".to_string(), format!("plan Run() : A ≔\n  {body}\n")),
    ]
}

/// `par N` (`N ≥ 1`): agent `A` and `P.hk`, whose `plan Run` declares channels `c0 … c{N-1}`
/// and runs `(1 → c0) ‖ (x1 ← c0 ; 1 → c1) ‖ … ‖ (y ← c{N-1} ; believe s(0))`.
///
/// # Panics
///
/// If `n = 0`.
pub fn par(n: usize) -> Vec<(String, String)> {
    assert!(n >= 1, "a relay needs at least one channel");
    let mut text = String::from("plan Run() : A\n{\n");
    for i in 0..n {
        let _ = writeln!(text, "  c{i} : chan Int");
    }
    let mut procs = vec!["(1 → c0)".to_string()];
    procs.extend((1..n).map(|i| format!("(x{i} ← c{} ; 1 → c{i})", i - 1)));
    procs.push(format!("(y ← c{} ; believe s(0))", n - 1));
    let _ = writeln!(text, "  body ≔ {}\n}}", procs.join(" ‖\n    "));
    vec![
        ("A.ha".to_string(), agent("A", "P", "Run")),
        ("P.hk".to_string(), text),
    ]
}

/// `files N`: agents `A0 … A{N-1}`, each in its own `Ai.ha`, whose plan `Go` is `Pi.Run`
/// (`Pi.hk`: `believe s(1) ; believe s(0)`).
pub fn files(n: usize) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(2 * n);
    for i in 0..n {
        out.push((
            format!("A{i}.ha"),
            agent(&format!("A{i}"), &format!("P{i}"), "Run"),
        ));
        out.push((
            format!("P{i}.hk"),
            format!("plan Run() : A{i} ≔ believe s(1) ; believe s(0)\n"),
        ));
    }
    out
}

/// The plan networks the build of a shape's project has: one per agent.
pub fn networks(generator: &str, n: usize) -> usize {
    if generator == "files" { n } else { 1 }
}

/// A measured scaling row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScalingRow {
    /// The model (`seq`, `par`, `files`).
    pub model: String,
    /// Its size.
    pub n: usize,
    /// Explorer threads given to the build (`--jobs`).
    pub jobs: usize,
    /// Source files of the project.
    pub files: usize,
    /// Their bytes.
    pub input_bytes: u64,
    /// Seconds from starting `hilbert build` to its exit.
    pub wall_s: f64,
    /// The build's proving (exploring, deciding and certifying every network), as it reports.
    pub prove_s: f64,
    /// The kernel's check of every certificate, as the build reports.
    pub kernel_s: f64,
    /// The build process's peak resident set, in bytes, if known.
    pub peak_rss: Option<u64>,
    /// States over every network.
    pub states: u64,
    /// Transitions over every network.
    pub transitions: u64,
    /// Plan networks the build explored.
    pub networks: usize,
    /// Theorems the build reported.
    pub theorems: usize,
    /// Of them, proved and admitted by the kernel.
    pub proved: usize,
    /// The build's word: admitted (exit code 0).
    pub admitted: bool,
    /// The build's exit code.
    pub exit_code: Option<i32>,
    /// What differs from the expected verdicts (empty: the row is as expected); at most 10,
    /// then a count of the rest.
    pub mismatches: Vec<String>,
}

impl ScalingRow {
    /// `ok` or `MISMATCH`.
    pub fn verdict(&self) -> &'static str {
        if self.mismatches.is_empty() {
            "ok"
        } else {
            "MISMATCH"
        }
    }
}

/// The peak resident set of the largest child process this one has waited for, in bytes.
#[cfg(unix)]
fn children_peak_rss() -> Option<u64> {
    use nix::sys::resource::{UsageWho, getrusage};
    let max = u64::try_from(getrusage(UsageWho::RUSAGE_CHILDREN).ok()?.max_rss()).ok()?;
    // Linux and the BSDs count kibibytes; macOS counts bytes.
    Some(if cfg!(target_os = "macos") {
        max
    } else {
        max * 1024
    })
}

#[cfg(not(unix))]
fn children_peak_rss() -> Option<u64> {
    None
}

/// A directory of its own under the system's temporary directory.
fn scratch(model: &str, n: usize) -> PathBuf {
    std::env::temp_dir().join(format!("hilbert-bench-{}-{model}-{n}", std::process::id()))
}

/// Measures `model` (a scaling model) at size `n`: writes its project, runs `exe build`
/// (`exe` is the `hilbert` program) on it with `jobs` explorer threads and `--max-states
/// max_states`, and compares the verdicts with those `bench.toml` expects: every expected
/// theorem in every network, with its verdict, the kernel admitting exactly the proved ones,
/// and the build admitted exactly when every theorem is expected proved.
///
/// Call it in a process of its own (`hilbert bench --row`): the peak memory is that of the
/// largest child the process has waited for.
pub fn run(
    model: &Model,
    n: usize,
    exe: &Path,
    jobs: usize,
    max_states: usize,
) -> Result<ScalingRow, String> {
    let generator = model.spec.generator.as_deref().unwrap_or_default();
    let project = crate::generate(generator, n, model.k())?;
    let dir = scratch(&model.name, n);
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("cannot create `{}`: {e}", src.display()))?;
    let result = (|| {
        let mut input_bytes = 0u64;
        let mut sources = 0usize;
        for (name, text) in &project {
            if [".ha", ".hk", ".hb"].iter().any(|e| name.ends_with(e)) {
                input_bytes += text.len() as u64;
                sources += 1;
            }
            let path = src.join(name);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        }
        let clock = Instant::now();
        let out = Command::new(exe)
            .arg("build")
            .arg(&src)
            .args(["--format", "json", "--color", "never"])
            .arg("--out")
            .arg(dir.join("certificates"))
            .arg("--jobs")
            .arg(jobs.to_string())
            .arg("--max-states")
            .arg(max_states.to_string())
            .output()
            .map_err(|e| format!("cannot run `{} build`: {e}", exe.display()))?;
        let wall_s = clock.elapsed().as_secs_f64();
        let peak = children_peak_rss();
        let report: BuildReport = serde_json::from_slice(&out.stdout).map_err(|e| {
            let code = out
                .status
                .code()
                .map_or("none (ended by a signal)".to_string(), |c| c.to_string());
            let stderr = String::from_utf8_lossy(&out.stderr);
            format!(
                "`hilbert build` gave no report ({e}; exit code {code}, {wall_s:.1} s, peak {}){}{}",
                peak.map_or("unknown".to_string(), |b| format!("{} MiB", b >> 20)),
                if stderr.trim().is_empty() { "" } else { ": " },
                stderr.trim()
            )
        })?;
        Ok(compare(
            model,
            n,
            jobs,
            sources,
            input_bytes,
            wall_s,
            peak,
            out.status.code(),
            &report,
        ))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// What a scaling row reads of `hilbert build --format json` (docs/schema/build-report).
#[derive(Deserialize)]
struct BuildReport {
    admitted: bool,
    #[serde(default)]
    diagnostics: Vec<BuildDiagnostic>,
    theorems: Vec<BuildTheorem>,
    stats: BuildStats,
}

#[derive(Deserialize)]
struct BuildDiagnostic {
    #[serde(default)]
    code: String,
    #[serde(default)]
    severity: String,
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
struct BuildTheorem {
    network: String,
    name: String,
    status: String,
    kernel: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct BuildStats {
    #[serde(default)]
    states: u64,
    #[serde(default)]
    transitions: u64,
    #[serde(default)]
    explore_seconds: f64,
    #[serde(default)]
    kernel_seconds: Option<f64>,
    #[serde(default)]
    peak_rss_bytes: Option<u64>,
    #[serde(default)]
    networks: Vec<serde_json::Value>,
}

/// The row, from the build's report: what differs from `bench.toml`.
#[allow(clippy::too_many_arguments)]
fn compare(
    model: &Model,
    n: usize,
    jobs: usize,
    files: usize,
    input_bytes: u64,
    wall_s: f64,
    peak: Option<u64>,
    exit_code: Option<i32>,
    report: &BuildReport,
) -> ScalingRow {
    let expected = &model.spec.expected;
    let generator = model.spec.generator.as_deref().unwrap_or_default();
    let mut mismatches = Vec::new();
    for d in report.diagnostics.iter().filter(|d| d.severity == "error") {
        mismatches.push(format!("{} {}", d.code, d.message));
    }
    let mut proved = 0;
    let mut per_network: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for t in &report.theorems {
        per_network
            .entry(t.network.as_str())
            .or_default()
            .push(t.name.as_str());
        let admitted = t.kernel == "admitted";
        if t.status == "proved" && admitted {
            proved += 1;
        }
        match expected.get(&t.name) {
            None => mismatches.push(format!(
                "{} {}: {}, but bench.toml does not list it",
                t.network, t.name, t.status
            )),
            Some(e) if *e != t.status => mismatches.push(format!(
                "{} {}: expected {e}, got {}{}",
                t.network,
                t.name,
                t.status,
                t.reason
                    .as_deref()
                    .map_or(String::new(), |r| format!(" ({r})"))
            )),
            Some(_) => {}
        }
        if admitted != (t.status == "proved") {
            mismatches.push(format!(
                "{} {}: {}, but the kernel {}",
                t.network,
                t.name,
                t.status,
                if admitted {
                    "admitted it"
                } else {
                    "refused it"
                }
            ));
        }
    }
    let want_networks = networks(generator, n);
    if per_network.len() != want_networks {
        mismatches.push(format!(
            "{} networks with theorems, expected {want_networks}",
            per_network.len()
        ));
    }
    for (network, names) in &per_network {
        for name in expected.keys() {
            let count = names.iter().filter(|x| **x == name.as_str()).count();
            if count != 1 {
                mismatches.push(format!(
                    "{network} {name}: reported {count} times, not once"
                ));
            }
        }
    }
    let code = exit_code.map_or("none (ended by a signal)".to_string(), |c| c.to_string());
    let all_proved = expected.values().all(|v| v == "proved");
    if report.admitted != all_proved {
        mismatches.push(format!(
            "the build is {}admitted (exit code {code})",
            if report.admitted { "" } else { "not " }
        ));
    }
    if report.admitted != (exit_code == Some(0)) {
        mismatches.push(format!(
            "admitted is {}, but the exit code is {code}",
            report.admitted
        ));
    }
    if mismatches.len() > 10 {
        let rest = mismatches.len() - 10;
        mismatches.truncate(10);
        mismatches.push(format!("and {rest} more"));
    }
    ScalingRow {
        model: model.name.clone(),
        n,
        jobs,
        files,
        input_bytes,
        wall_s,
        prove_s: report.stats.explore_seconds,
        kernel_s: report.stats.kernel_seconds.unwrap_or(0.0),
        peak_rss: peak.or(report.stats.peak_rss_bytes),
        states: report.stats.states,
        transitions: report.stats.transitions,
        networks: report.stats.networks.len(),
        theorems: report.theorems.len(),
        proved,
        admitted: report.admitted,
        exit_code,
        mismatches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shapes_are_those_measured_by_hand() {
        let s = seq(2);
        assert_eq!(s[0].0, "A.ha");
        assert!(s[0].1.contains("plan Go ↦ P.Run"), "{}", s[0].1);
        assert_eq!(
            s[1],
            (
                "P.hk".to_string(),
                "plan Run() : A ≔\n  believe s(2) ;\n  believe s(1) ;\n  believe s(0)\n"
                    .to_string()
            )
        );
        assert_eq!(
            par(2)[1].1,
            "plan Run() : A\n{\n  c0 : chan Int\n  c1 : chan Int\n  body ≔ (1 → c0) ‖\n    \
             (x1 ← c0 ; 1 → c1) ‖\n    (y ← c1 ; believe s(0))\n}\n"
        );
        let f = files(3);
        let names: Vec<&str> = f.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["A0.ha", "P0.hk", "A1.ha", "P1.hk", "A2.ha", "P2.hk"]
        );
        assert!(f[4].1.starts_with("agent A2 : Agency") && f[4].1.contains("P2.Run"));
        assert_eq!(f[5].1, "plan Run() : A2 ≔ believe s(1) ; believe s(0)\n");
        assert_eq!((networks("files", 7), networks("par", 7)), (7, 1));
    }
}
