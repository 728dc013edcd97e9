//! Running a Promela peer with Spin: generate the verifier (`spin -o2 -a`), compile it (`cc -O2
//! -DSAFETY`, plus `-DNOREDUCE` for the search without partial-order reduction), run its
//! exhaustive safety search (`./pan -c0`: do not stop at the first error), and read its report.
//!
//! `-o2` keeps write-only variables in the state vector. The peers' globals (`ate`, `served`,
//! `started`, `made`) are Hilbert's beliefs: Hilbert's liveness theorems read them, but nothing
//! in a safety search does, and by default Spin drops such variables from the state, checking a
//! smaller model (12 states instead of 128 for the token ring of 4).
//!
//! Spin is optional: [`available`] says plainly what is missing.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// What one Spin run reported.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SpinRow {
    /// Whether partial-order reduction was on (Spin's default) or off (`-DNOREDUCE`).
    pub reduced: bool,
    /// `states, stored`.
    pub states: u64,
    /// `transitions (= stored+matched)`.
    pub transitions: u64,
    /// `State-vector N byte`.
    pub state_vector: u64,
    /// `errors: N` (with `-c0`, every error found).
    pub errors: u64,
    /// Whether an invalid end state (a deadlock) was found.
    pub deadlock: bool,
    /// Whether the search passed its depth bound (it then retries with a larger one).
    pub truncated: bool,
    /// Wall time of `./pan` (generation and compilation excluded).
    pub seconds: f64,
    /// Wall time of `spin -a` and the C compiler.
    pub compile_seconds: f64,
    /// `actual memory usage for states`, in bytes.
    pub state_bytes: f64,
    /// `memory used for hash table`, in bytes.
    pub hash_bytes: f64,
    /// `total actual memory usage`, in bytes.
    pub total_bytes: f64,
}

impl SpinRow {
    /// States per second of the search.
    pub fn states_per_sec(&self) -> f64 {
        self.states as f64 / self.seconds.max(1e-9)
    }

    /// Bytes per state of the state store: the states and the hash table that finds them.
    pub fn bytes_per_state(&self) -> f64 {
        (self.state_bytes + self.hash_bytes) / self.states.max(1) as f64
    }
}

/// The C compiler: `$CC`, or `cc`.
fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// `Ok` when `spin` and a C compiler run; otherwise what is missing, in a sentence.
pub fn available() -> Result<(), String> {
    let runs = |cmd: &str, arg: &str| {
        Command::new(cmd)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !runs("spin", "-V") {
        return Err("spin not found on the PATH: the peers need Spin \
                    (Debian/Ubuntu: apt-get install spin; https://spinroot.com)"
            .into());
    }
    let cc = compiler();
    if !runs(&cc, "--version") {
        return Err(format!(
            "no C compiler (`{cc}`) on the PATH: Spin's verifiers are C programs \
             (Debian/Ubuntu: apt-get install gcc, or set CC)"
        ));
    }
    Ok(())
}

/// Spin's version line (`Spin Version 6.5.2 -- 6 December 2019`).
pub fn version() -> Option<String> {
    let out = Command::new("spin").arg("-V").output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn scratch() -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "hilbert-bench-spin-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    Ok(dir)
}

fn run_tool(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(format!("{what} failed: {}", text.trim()));
    }
    Ok(text)
}

/// Runs the peer `pml` with `-D` definitions `defines` (`N=5`, `ASYMMETRIC`), with Spin's
/// partial-order reduction on (`reduced`, the default) or off.
pub fn run(pml: &Path, defines: &[String], reduced: bool) -> Result<SpinRow, String> {
    let dir = scratch()?;
    let result = run_in(&dir, pml, defines, reduced);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(dir: &Path, pml: &Path, defines: &[String], reduced: bool) -> Result<SpinRow, String> {
    let pml = std::fs::canonicalize(pml)
        .map_err(|e| format!("cannot read the peer `{}`: {e}", pml.display()))?;
    let clock = Instant::now();
    let mut spin = Command::new("spin");
    spin.current_dir(dir);
    for d in defines {
        spin.arg(format!("-D{d}"));
    }
    spin.args(["-o2", "-a"]).arg(&pml);
    run_tool(&mut spin, "spin -a")?;
    let mut cc = Command::new(compiler());
    cc.current_dir(dir).args(["-O2", "-DSAFETY"]);
    if !reduced {
        cc.arg("-DNOREDUCE");
    }
    cc.args(["-o", "pan", "pan.c"]);
    run_tool(&mut cc, "the C compiler")?;
    let compile_seconds = clock.elapsed().as_secs_f64();
    // The depth bound: pan allocates its stack for it, so start small and retry if passed.
    let mut depth = 100_000u64;
    loop {
        let clock = Instant::now();
        let out = Command::new(dir.join("pan"))
            .current_dir(dir)
            .args([format!("-m{depth}"), "-c0".into()])
            .output()
            .map_err(|e| format!("cannot run pan: {e}"))?;
        let seconds = clock.elapsed().as_secs_f64();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut row = parse(&text).ok_or_else(|| {
            format!(
                "cannot read pan's report: {}",
                text.lines().take(20).collect::<Vec<_>>().join("\n")
            )
        })?;
        row.reduced = reduced;
        row.seconds = seconds;
        row.compile_seconds = compile_seconds;
        if row.truncated && depth < 100_000_000 {
            depth *= 10;
            continue;
        }
        return Ok(row);
    }
}

/// Reads pan's report.
pub fn parse(text: &str) -> Option<SpinRow> {
    let number_before = |suffix: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.contains(suffix))?;
        line.split_whitespace().next()?.parse().ok()
    };
    let megabytes = |what: &str| -> f64 {
        text.lines()
            .find(|l| l.contains(what))
            .and_then(|l| l.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |mb| mb * 1024.0 * 1024.0)
    };
    let vector_line = text.lines().find(|l| l.starts_with("State-vector"))?;
    let state_vector = vector_line.split_whitespace().nth(1)?.parse().ok()?;
    let errors = vector_line.rsplit("errors:").next()?.trim().parse().ok()?;
    Some(SpinRow {
        reduced: true,
        states: number_before("states, stored")?,
        transitions: number_before("transitions (= stored+matched)")?,
        state_vector,
        errors,
        deadlock: text
            .lines()
            .any(|l| l.starts_with("pan:") && l.contains("invalid end state")),
        truncated: text.contains("max search depth too small"),
        seconds: 0.0,
        compile_seconds: 0.0,
        state_bytes: megabytes("actual memory usage for states"),
        hash_bytes: megabytes("memory used for hash table"),
        total_bytes: megabytes("total actual memory usage"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "pan:1: invalid end state (at depth 14)

(Spin Version 6.5.2 -- 6 December 2019)
	+ Partial Order Reduction

State-vector 112 byte, depth reached 35, errors: 1
       35 states, stored
       32 states, matched
       67 transitions (= stored+matched)
        0 atomic steps

Stats on memory usage (in Megabytes):
    0.005	equivalent memory usage for states (stored*(State-vector + overhead))
    0.291	actual memory usage for states
  128.000	memory used for hash table (-w24)
   53.406	memory used for DFS stack (-m1000000)
  181.601	total actual memory usage
";

    #[test]
    fn pan_reports_are_read() {
        let row = parse(REPORT).unwrap();
        assert_eq!(row.states, 35);
        assert_eq!(row.transitions, 67);
        assert_eq!(row.state_vector, 112);
        assert_eq!(row.errors, 1);
        assert!(row.deadlock && !row.truncated);
        assert_eq!(row.hash_bytes, 128.0 * 1024.0 * 1024.0);
        assert!(parse("no report").is_none());
    }
}
