//! The journal: every percept, attention shift, deliberation, adoption, release, plan command,
//! plan step and reward, with its reason, as JSON Lines. The first line is a [`Header`] that
//! says how to run the agent again; replaying it must give the same lines.

use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};

/// The version of the journal format.
pub const JOURNAL_VERSION: u32 = 1;

/// The first line: what was run, so that a replay can run it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// [`JOURNAL_VERSION`].
    pub journal: u32,
    /// The agents run together, in order.
    pub agents: Vec<String>,
    /// `bold`, `cautious` or `on-change`.
    pub policy: String,
    /// For `on-change`: the watched predicates.
    pub watch: Vec<String>,
    /// The project's directory, absolute: the sources' paths are relative to it (journals
    /// written before it existed have none, and absolute source paths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The project's sources, relative to `project`, with their SHA-256 (hex): a replay refuses
    /// other sources.
    pub sources: Vec<(String, String)>,
    /// The scenario, in full.
    pub scenario: Scenario,
    /// Present when the run was started with `--unverified`: why the kernel had not admitted
    /// the agents' plan networks (empty when it had, and the flag was given anyway).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Vec<String>>,
}

/// One option of a deliberation: a plan binding, whether it was licensed, and its probability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The plan binding.
    pub plan: String,
    /// Whether an `intend` rule for the desire held for it.
    pub licensed: bool,
    /// The probability the policy gave it.
    pub p: f64,
}

/// One journaled event of one cycle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The cycle, from 0.
    pub cycle: u64,
    /// The agent it happened to.
    pub agent: String,
    /// What happened.
    #[serde(flatten)]
    pub event: Event,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// Beliefs from outside (sensors, the scenario).
    Percept {
        /// Atoms added.
        added: Vec<String>,
        /// Atoms removed.
        removed: Vec<String>,
    },
    /// Another agent of the system told this one something (`tell j a`), believed from now on.
    Told {
        /// The teller.
        from: String,
        /// What it told.
        atom: String,
    },
    /// The agent stopped desiring something (from the scenario).
    DesireDropped {
        /// The desire.
        desire: String,
    },
    /// The attention shifted.
    Attention {
        /// From.
        from: String,
        /// To.
        to: String,
        /// The rule's condition that held.
        reason: String,
    },
    /// The agent deliberated (the reconsideration policy said so).
    Deliberate {
        /// Why now.
        reason: String,
    },
    /// An intention was adopted: its plan starts.
    Adopt {
        /// The intention's number.
        intention: u64,
        /// The plan binding.
        plan: String,
        /// The desire it serves.
        desire: String,
        /// The `intend` rule that licensed it.
        reason: String,
        /// The choice as data, one entry per plan binding of the agent in order: whether an
        /// `intend` rule licensed it and the probability the policy gave it. An unlicensed
        /// binding always has probability 0 (`leaked = 0`, checkable from the journal).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        options: Vec<Choice>,
    },
    /// The commitment law (or the plan's end) released an intention.
    Release {
        /// The intention.
        intention: u64,
        /// The plan.
        plan: String,
        /// The desire.
        desire: String,
        /// `achieved`, `impossible`, `no longer desired`, `plan finished`, `plan stuck`.
        reason: String,
        /// For `impossible`: the rule's `because`.
        because: Option<String>,
    },
    /// A plan can never move again although it has not ended: no process can move, in its body
    /// or in the handlers a command started. Said once, with where it is stuck; a plan stuck
    /// while it runs, stops or resumes is then released (`plan stuck`), and one stuck in its `on abort`
    /// handlers, already released, is dropped with them unfinished (never released twice).
    Stuck {
        /// The intention.
        intention: u64,
        /// The plan.
        plan: String,
        /// The desire.
        desire: String,
        /// What was running: `the plan`, `its on stop handlers`, `its on resume handlers`, or
        /// `its on abort handlers (released: REASON)`.
        during: String,
        /// The state it is stuck in: one line per process that has not ended (its instance and
        /// what it waits on), then the beliefs the plan reads.
        state: Vec<String>,
    },
    /// A plan command from the runtime: `abort`, `stop` or `resume`.
    Command {
        /// The intention.
        intention: u64,
        /// The plan.
        plan: String,
        /// Which command.
        command: String,
        /// Why.
        reason: String,
    },
    /// Where a stopped or resumed intention stands, each time that changes: `stopping` (its
    /// `on stop` handlers take steps), `suspended` (its stop has completed), `resuming` (its
    /// `on resume` handlers take steps), `running` (its resume has completed).
    Status {
        /// The intention.
        intention: u64,
        /// The plan.
        plan: String,
        /// `stopping`, `suspended`, `resuming` or `running`.
        status: String,
        /// Why: the command landed, or its handlers finished.
        reason: String,
    },
    /// A plan took a step.
    Step {
        /// The intention.
        intention: u64,
        /// The plan.
        plan: String,
        /// Which process moved.
        process: String,
        /// What it did.
        event: String,
        /// Beliefs added.
        added: Vec<String>,
        /// Beliefs removed.
        removed: Vec<String>,
    },
    /// A plan's network ended (after its handlers, if it was aborted).
    Ended {
        /// The intention.
        intention: u64,
        /// The plan.
        plan: String,
    },
    /// A reward was credited to a plan.
    Reward {
        /// The plan.
        plan: String,
        /// `+1` or `-1`.
        value: i64,
        /// The plan's learned value after the update (incremental mean).
        learned: f64,
        /// The reward rule's condition.
        reason: String,
    },
}

/// A whole journal: the header line, then one line per entry.
pub fn to_lines(header: &Header, entries: &[Entry]) -> String {
    let mut out = serde_json::to_string(header).unwrap_or_default();
    out.push('\n');
    for e in entries {
        out.push_str(&serde_json::to_string(e).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// Why a journal cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// The last line of a run that was stopped before its end (by SIGINT): every entry before it is
/// complete, and a replay runs the same rounds and stops there too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupted {
    /// What stopped it.
    pub interrupted: Stop,
}

/// Where and why a run stopped early.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stop {
    /// Rounds run (each agent not done ran one cycle per round): the run stopped before round
    /// `rounds` began.
    pub rounds: u64,
    /// Why, in words (`SIGINT`).
    pub reason: String,
}

/// A line after the header.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// An entry.
    Entry(Entry),
    /// The run was interrupted here; nothing follows.
    Interrupted(Stop),
}

/// The longest journal line read: 16 MiB (an entry is a few hundred bytes).
pub const LINE_CAP: usize = 16 << 20;

/// Reads a journal line by line from `R`, holding one line at a time.
pub struct Reader<R> {
    input: R,
    line: usize,
    buffer: Vec<u8>,
    ended: bool,
    torn: bool,
}

impl<R: BufRead> Reader<R> {
    /// Reads the header; the entries follow with [`Reader::next_line`].
    pub fn new(input: R) -> Result<(Header, Reader<R>), JournalError> {
        let mut reader = Reader {
            input,
            line: 0,
            buffer: Vec::new(),
            ended: false,
            torn: false,
        };
        let Some(first) = reader.raw()? else {
            return Err(JournalError {
                line: 1,
                reason: "the journal is empty".into(),
            });
        };
        // A byte order mark an editor put before the header is no part of it.
        let first = first.strip_prefix('\u{feff}').unwrap_or(&first);
        let header: Header = serde_json::from_str(first).map_err(|e| JournalError {
            line: reader.line,
            reason: format!("not a journal header: {e}"),
        })?;
        if header.journal != JOURNAL_VERSION {
            return Err(JournalError {
                line: reader.line,
                reason: format!(
                    "journal format {} (this runtime reads {JOURNAL_VERSION})",
                    header.journal
                ),
            });
        }
        Ok((header, reader))
    }

    /// Whether the line read last is the journal's end without a line end: a run cut while it
    /// wrote it (killed, a full disk), not a line someone edited.
    pub fn torn(&self) -> bool {
        self.torn
    }

    /// The 1-based number of the line read last.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The next non-blank line as text, or `None` at the end.
    fn raw(&mut self) -> Result<Option<String>, JournalError> {
        loop {
            self.buffer.clear();
            let read = (&mut self.input)
                .take(LINE_CAP as u64 + 1)
                .read_until(b'\n', &mut self.buffer)
                .map_err(|e| JournalError {
                    line: self.line + 1,
                    reason: format!("cannot read: {e}"),
                })?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            self.torn = !self.buffer.ends_with(b"\n");
            if self.buffer.len() > LINE_CAP {
                return Err(JournalError {
                    line: self.line,
                    reason: format!("the line is longer than {} MiB", LINE_CAP >> 20),
                });
            }
            let text = std::str::from_utf8(&self.buffer).map_err(|_| JournalError {
                line: self.line,
                reason: "the line is not UTF-8 text".into(),
            })?;
            if !text.trim().is_empty() {
                return Ok(Some(text.to_string()));
            }
        }
    }

    /// The next entry or interruption, `None` at the end.
    pub fn next_line(&mut self) -> Option<Result<Line, JournalError>> {
        let text = match self.raw() {
            Ok(Some(t)) => t,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        if self.ended {
            return Some(Err(JournalError {
                line: self.line,
                reason: "a line after the one that says the run was interrupted".into(),
            }));
        }
        if let Ok(i) = serde_json::from_str::<Interrupted>(&text) {
            self.ended = true;
            return Some(Ok(Line::Interrupted(i.interrupted)));
        }
        Some(
            serde_json::from_str(&text)
                .map(Line::Entry)
                .map_err(|e| JournalError {
                    line: self.line,
                    reason: format!("not a journal entry: {e}"),
                }),
        )
    }
}

/// Reads a whole journal back: its header, its entries, and where it was interrupted if it was.
pub fn parse(text: &str) -> Result<(Header, Vec<Entry>, Option<Stop>), JournalError> {
    let (header, mut reader) = Reader::new(text.as_bytes())?;
    let mut entries = Vec::new();
    let mut stop = None;
    while let Some(line) = reader.next_line() {
        match line? {
            Line::Entry(e) => entries.push(e),
            Line::Interrupted(s) => stop = Some(s),
        }
    }
    Ok((header, entries, stop))
}
