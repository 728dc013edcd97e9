//! What a long `hilbert build` is doing, on standard error while it works (`--progress`).
//!
//! On a terminal, one line redrawn four times a second and erased at the end. Off a terminal
//! (a CI log, a file), whole lines at a steady interval, so a log shows that the build is alive
//! and where it is: `progress: 20.0 s: exploring network 2 of 3 (Operator.Work): 41234 states`.
//! A phase that begins once the interval has passed since the last line is said at once.
//! Nothing here decides anything; it only reads what the build says it is doing and the
//! explorer's state count (`hilbert_prover::explore::PROGRESS`).
//!
//! Written here rather than with indicatif (ARCHITECTURE.md, "Written by hand, on purpose"):
//! a line of text at an interval needs none of its templates or bars.

use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When to show progress (`--progress`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    /// On a terminal, a line redrawn in place; off a terminal, a line at a steady interval.
    Auto,
    /// As `auto` (the name says it will be shown: for a pipeline that wants it in its log).
    Always,
    /// Never.
    Never,
}

/// The interval between progress lines off a terminal, unless `HILBERT_PROGRESS_INTERVAL`
/// (seconds) says otherwise; 0 says each phase as it begins and nothing between.
pub const INTERVAL: Duration = Duration::from_secs(10);

/// What the build is doing now.
#[derive(Clone, Debug, Default)]
struct Doing {
    /// `checking the sources`, `exploring`, `kernel: checking` …
    phase: &'static str,
    /// The network, and its number and the count of networks, when the phase has one.
    network: Option<(String, usize, usize)>,
    /// Whether the state count of the exploration running now belongs in the line.
    states: bool,
}

struct Shared {
    doing: Mutex<Doing>,
    /// When the last whole line was written (off a terminal).
    last: Mutex<Option<Instant>>,
    started: Instant,
    interval: Duration,
    lines: bool,
}

impl Shared {
    fn line(&self) -> String {
        let doing = self.doing.lock().map(|d| d.clone()).unwrap_or_default();
        let mut text = format!(
            "{:.1} s: {}",
            self.started.elapsed().as_secs_f64(),
            doing.phase
        );
        if let Some((name, k, n)) = &doing.network {
            text.push_str(&format!(" network {k} of {n} ({name})"));
        }
        let states = hilbert_prover::explore::PROGRESS.load(Ordering::Relaxed);
        if doing.states && states > 0 {
            text.push_str(&format!(": {states} states explored"));
        }
        text
    }

    /// Writes a whole line if the interval has passed since the last (or none was written).
    fn line_if_due(&self) {
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.is_some_and(|t| t.elapsed() < self.interval) {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "progress: {}", self.line());
        *last = Some(Instant::now());
    }
}

/// Progress on standard error while a build works; stopped (and a terminal's line erased) when
/// dropped.
pub struct Progress {
    shared: Option<Arc<Shared>>,
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Starts showing progress as `when` says, for standard error as it is; an interval in
    /// `HILBERT_PROGRESS_INTERVAL` that is not a number of seconds is an error, said.
    pub fn start(when: When) -> Result<Progress, String> {
        use std::io::IsTerminal;
        let interval = match std::env::var("HILBERT_PROGRESS_INTERVAL") {
            Err(_) => INTERVAL,
            Ok(text) => match text.trim().parse::<f64>() {
                Ok(s) if s.is_finite() && (0.0..=86_400.0).contains(&s) => {
                    Duration::from_secs_f64(s)
                }
                _ => {
                    return Err(format!(
                        "HILBERT_PROGRESS_INTERVAL is `{text}`, not a number of seconds from 0 to 86400"
                    ));
                }
            },
        };
        let off = Progress {
            shared: None,
            stop: None,
            thread: None,
        };
        if when == When::Never {
            return Ok(off);
        }
        let lines = !std::io::stderr().is_terminal();
        let now = Instant::now();
        let shared = Arc::new(Shared {
            doing: Mutex::new(Doing {
                phase: "starting",
                ..Doing::default()
            }),
            // The first line comes after one interval, so a short build prints none.
            last: Mutex::new(Some(now)),
            started: now,
            interval,
            lines,
        });
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let ours = Arc::clone(&shared);
        let tick = Duration::from_millis(250).min(interval.max(Duration::from_millis(10)));
        let thread = std::thread::spawn(move || {
            let mut shown = 0usize;
            while rx.recv_timeout(tick).is_err() {
                if ours.lines {
                    // An interval of 0 says each phase as it begins, and nothing between.
                    if !ours.interval.is_zero() {
                        ours.line_if_due();
                    }
                } else {
                    let text = format!("  {} ", ours.line());
                    shown = shown.max(text.chars().count());
                    let _ = write!(std::io::stderr(), "\r{text:shown$}");
                }
            }
            if shown > 0 {
                let _ = write!(std::io::stderr(), "\r{:shown$}\r", "");
            }
        });
        Ok(Progress {
            shared: Some(shared),
            stop: Some(tx),
            thread: Some(thread),
        })
    }

    /// Says what the build does now: `phase`, and the network (with its number, from 1, and
    /// the count of networks) when there is one; `states` when the explorer's count belongs
    /// in the line. Off a terminal, a phase that begins once the interval has passed since the
    /// last line is said at once.
    pub fn phase(&self, phase: &'static str, network: Option<(&str, usize, usize)>, states: bool) {
        let Some(shared) = &self.shared else {
            return;
        };
        if let Ok(mut doing) = shared.doing.lock() {
            *doing = Doing {
                phase,
                network: network.map(|(name, k, n)| (name.to_string(), k, n)),
                states,
            };
        }
        if states {
            hilbert_prover::explore::PROGRESS.store(0, Ordering::Relaxed);
        }
        if shared.lines {
            shared.line_if_due();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
