//! The journal: every percept, attention shift, deliberation, adoption, release, plan command,
//! plan step and reward, with its reason, as JSON Lines. The first line is a [`Header`] that
//! says how to run the agent again; replaying it must give the same lines.

use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

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
    /// The project's sources, with their SHA-256 (hex): a replay refuses other sources.
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

/// Reads a journal's lines back.
pub fn parse(text: &str) -> Result<(Header, Vec<Entry>), JournalError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(JournalError {
            line: 1,
            reason: "the journal is empty".into(),
        });
    };
    let header: Header = serde_json::from_str(first).map_err(|e| JournalError {
        line: 1,
        reason: format!("not a journal header: {e}"),
    })?;
    if header.journal != JOURNAL_VERSION {
        return Err(JournalError {
            line: 1,
            reason: format!(
                "journal format {} (this runtime reads {JOURNAL_VERSION})",
                header.journal
            ),
        });
    }
    let mut entries = Vec::new();
    for (i, line) in lines {
        entries.push(serde_json::from_str(line).map_err(|e| JournalError {
            line: i + 1,
            reason: format!("not a journal entry: {e}"),
        })?);
    }
    Ok((header, entries))
}
