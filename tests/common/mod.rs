//! Helpers shared by the end-to-end tests: running the built binary and making projects in
//! temporary directories.

#![allow(dead_code)] // Each test file uses a different part of this module.

pub mod schema;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A fresh directory under the system's temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates a directory with these files (names may contain `/`).
    pub fn with_files(files: &[(&str, &[u8])]) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("hilbert-cli-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        for (name, bytes) in files {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("create a directory");
            }
            std::fs::write(path, bytes).expect("write a file");
        }
        TempDir(dir)
    }

    /// The path of a file inside, as a string.
    pub fn join(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    /// The directory itself, as a string.
    pub fn path(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a run of the binary did.
pub struct Run {
    /// The exit code (`None` if a signal ended it).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `hilbert ARGS` in `dir` (the repository root if `None`), with no colour in the
/// environment's way.
pub fn hilbert(args: &[&str], dir: Option<&Path>) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hilbert"));
    command.args(args).env_remove("NO_COLOR");
    command.current_dir(dir.map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        Path::to_path_buf,
    ));
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("run the hilbert binary");
    Run {
        code: status.code(),
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
    }
}

/// A small agent and plan file that check cleanly (the seed's shapes, cut down).
pub const CLEAN_AGENT: &str = "agent Operator() : Agency
{
  belief made(count: Int)

  desire Produced reachable by [Work]
  commit single_minded
  attention Producing initially

  intend Work for Produced when B(self) made(n) ∧ n < 3
  achieved Produced when B(self) made(3)

  plan Work ↦ Line.Produce
}
";

/// The plan file `CLEAN_AGENT` binds.
pub const CLEAN_PLAN: &str = "plan Produce() : Operator ≔ believe made(3)\n";

/// What a bounded run of the binary did.
pub struct Bounded {
    /// The exit code (`None` if a signal ended it).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Starts `hilbert ARGS` in the repository root, its output piped.
pub fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_hilbert"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the hilbert binary")
}

/// Waits for a child [`spawn`] started; fails the test if it takes over `limit` (and kills it).
pub fn wait_within(child: std::process::Child, what: &str, limit: Duration) -> Bounded {
    wait_capped(child, what, limit, None)
}

/// As [`wait_within`], and fails the test (killing the child) as soon as the child's resident
/// set, read every 20 ms from `/proc`, passes `cap` bytes: a test of a memory bound that does
/// not hold then fails at the cap, not when the machine runs out.
pub fn wait_capped(
    mut child: std::process::Child,
    what: &str,
    limit: Duration,
    cap: Option<u64>,
) -> Bounded {
    // Drain both pipes on threads, so a chatty child never blocks on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for hilbert") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`hilbert {what}` took over {limit:?}: killed");
        }
        if let Some(cap) = cap
            && let Some(rss) = resident_of(child.id()).filter(|&rss| rss > cap)
        {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`hilbert {what}` passed {} MiB: killed at {} MiB",
                cap >> 20,
                rss >> 20
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Bounded {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// A process's resident set in bytes (`VmRSS` in `/proc/PID/status`), if it can be read.
pub fn resident_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// Runs `hilbert ARGS` in the repository root; fails the test if it takes over `limit`.
pub fn run_within(args: &[&str], limit: Duration) -> Bounded {
    wait_within(spawn(args), &args.join(" "), limit)
}

/// The largest peak resident set, in bytes, of any child this process has waited for.
pub fn children_peak_bytes() -> u64 {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    // Linux reports ru_maxrss in KiB.
    usage.max_rss() as u64 * 1024
}

/// An agent whose one plan runs `width` `believe`s in parallel: 2^width states, each a wide term.
pub fn wide_project(width: usize) -> TempDir {
    let agent = "agent A() : Agency
{
  belief s(i: Int)
  desire D reachable by [W]
  commit single_minded
  attention Main initially
  intend W for D when ¬B(self) s(0)
  achieved D when B(self) s(0)
  plan W ↦ P.Wide
}
";
    let body: Vec<String> = (0..width).map(|i| format!("believe s({i})")).collect();
    let plan = format!("plan Wide() : A ≔ {}\n", body.join(" ‖ "));
    TempDir::with_files(&[("A.ha", agent.as_bytes()), ("P.hk", plan.as_bytes())])
}

/// An agent whose one rule is `achieved D when GOAL`, over a belief `n(k: Int)`.
pub fn goal_project(goal: &str) -> TempDir {
    let agent = format!(
        "agent A() : Agency
{{
  belief n(k: Int)
  desire D reachable by []
  commit single_minded
  attention Main initially
  achieved D when {goal}
}}
"
    );
    TempDir::with_files(&[("A.ha", agent.as_bytes())])
}

/// The subcommands `hilbert --help` lists, but `help`.
pub fn subcommands() -> Vec<String> {
    let help = hilbert(&["--help"], None);
    assert_eq!(help.code, Some(0));
    help.stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&n| n != "help")
        .map(str::to_string)
        .collect()
}
