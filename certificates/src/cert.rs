//! Certificate format v3: what the frontend claims about one plan network, in a form the kernel
//! can check without searching.
//!
//! A certificate file is `MAGIC`, then a fixed header, then the body (postcard encoding of
//! [`Body`]), then the SHA-256 of everything before it. The encoding is canonical: the same
//! sources give the same bytes (no timestamps, no random ids), and the kernel re-encodes what it
//! decoded and requires the same bytes. `docs/certificates.md` gives the layout byte by byte.
//!
//! A certificate carries no states: the kernel regenerates them, breadth-first from the start,
//! with its own semantics, and the certificate declares how many it will find ([`Counts`]), which
//! bounds the kernel's work. The compact node form of states ([`StateTable`], [`TermNode`]) is
//! the kernel's own store, kept here beside the types it shares with the prover.

use crate::ir::{Ir, LabelId, NodeId, PlanId, Value};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The first eight bytes of every certificate.
pub const MAGIC: &[u8; 8] = b"HILBCERT";
/// The format's major version: a reader refuses any other.
pub const FORMAT_MAJOR: u16 = 3;
/// The format's minor version: this reader knows up to this one.
pub const FORMAT_MINOR: u16 = 0;
/// The version of the semantics the witnesses are about (`docs/semantics.md`).
pub const SEMANTICS: u16 = 4;
/// Bytes of the fixed header after the magic: major, minor, semantics (u16 each), 10 reserved
/// zero bytes.
pub const HEADER_LEN: usize = 16;

/// The SHA-256 of some bytes.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hex of a digest.
pub fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A source file the certificate was made from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceDigest {
    /// The path as given to the build.
    pub path: String,
    /// SHA-256 of its bytes.
    pub sha256: [u8; 32],
}

/// Everything after the header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Body {
    /// The tool that wrote it (`hilbert 0.1.0`).
    pub tool: String,
    /// The sources.
    pub sources: Vec<SourceDigest>,
    /// SHA-256 of the postcard encoding of `ir`.
    pub ir_sha256: [u8; 32],
    /// The whole IR of the build (the meaning of the sources).
    pub ir: Ir,
    /// Which network of `ir` this certificate is about.
    pub network: u32,
    /// The size of the network's scene: the states reachable from the initial state and their
    /// steps, as the kernel will count them.
    pub scene: Counts,
    /// One witness per obligation of the network, in the kernel's order.
    pub witnesses: Vec<Witness>,
}

/// The size of an exploration a certificate declares: the kernel regenerates it, refuses it as
/// soon as it holds more states than declared, and requires both figures exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Distinct states.
    pub states: u64,
    /// Steps (edges), each state's counted in the order of its steps.
    pub transitions: u64,
}

/// A table of states: shared terms, shared parameter lists, shared atoms, and per state a term
/// and a set of atoms. Not part of the format (format 2 carried one); the kernel keeps the
/// states it regenerates in this form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StateTable {
    /// Terms; a term's children are indices of earlier terms.
    pub terms: Vec<TermNode>,
    /// The parameter lists of plan instances ([`TermNode::Inst`]), each listed once, in the
    /// order the terms first use them: a scene's root instance, whose channels every state
    /// repeats, is written once.
    pub params: Vec<Vec<Value>>,
    /// Atoms believed somewhere.
    pub atoms: Vec<AtomRec>,
    /// States: (term, atoms believed, sorted indices into `atoms`).
    pub states: Vec<(u32, Vec<u32>)>,
}

/// A believed atom.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AtomRec {
    /// `None` for the agent's own belief, else the agent told (index into the IR's agents).
    pub told: Option<u32>,
    /// The predicate.
    pub belief: u32,
    /// The fields.
    pub args: Vec<Value>,
}

/// Why a thread faulted (see `docs/semantics.md`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FaultRec {
    /// No arm matched.
    NoArm(NodeId),
    /// An integer left the 64-bit range.
    Overflow(NodeId),
    /// Division by zero.
    DivisionByZero(NodeId),
    /// The macro-step diverged.
    Diverged,
    /// Malformed IR.
    Malformed(NodeId),
}

/// What follows handlers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AfterRec {
    /// The target ends.
    End,
    /// Suspended with this term.
    Suspend(u32),
    /// Continues with this term.
    Continue(u32),
    /// Starts again with this term.
    Restart(u32),
}

/// One node of the term table: the terms of `docs/semantics.md`, children by index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TermNode {
    /// Ended.
    Done,
    /// Faulted.
    Faulted(FaultRec),
    /// A thread.
    Thread {
        /// Static instance.
        inst: u32,
        /// Plan.
        plan: PlanId,
        /// Nodes still to run, top last.
        stack: Vec<NodeId>,
        /// Slots.
        env: Vec<Value>,
        /// Ready (true) or running.
        ready: bool,
    },
    /// Then.
    Then(u32, u32),
    /// Parallel.
    Par(Vec<u32>),
    /// Choice.
    Choice(Vec<u32>),
    /// Interrupt.
    Interrupt(u32, u32),
    /// Label.
    Label {
        /// Instance.
        inst: u32,
        /// Label.
        label: LabelId,
        /// Process.
        body: u32,
        /// How it started.
        start: u32,
    },
    /// Instance.
    Inst {
        /// Static instance.
        inst: u32,
        /// Plan.
        plan: PlanId,
        /// Parameters and channels: an index into [`StateTable::params`].
        params: u32,
        /// Process.
        body: u32,
    },
    /// Suspended.
    Suspended(u32),
    /// Handling.
    Handling {
        /// Handlers.
        body: u32,
        /// Afterwards.
        then: AfterRec,
    },
}

/// A claim about one obligation, with what the kernel needs to check it locally.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Witness {
    /// `_no_deadlock`: every state of the scene can step or has finished.
    Invariant {
        /// The theorem's name.
        obligation: String,
    },
    /// `_live_`: a rank per state of the scene, in breadth-first order (0 where the goal holds);
    /// every state where the goal does not hold can step, and every successor satisfies the
    /// goal or has a smaller rank.
    Ranking {
        /// The theorem's name.
        obligation: String,
        /// One rank per state of the scene.
        ranks: Vec<u64>,
    },
    /// `_released_`: the states an abort of the scene's plan reaches from every state that
    /// believes the atom (regenerated by the kernel, breadth-first from the landings), each with
    /// a rank (0 when finished); every unfinished one can step, and every successor is finished
    /// or has a smaller rank.
    Release {
        /// The theorem's name.
        obligation: String,
        /// The size of the abort-extended exploration.
        counts: Counts,
        /// One rank per state of it, in breadth-first order.
        ranks: Vec<u64>,
    },
    /// `_tell_feasible_N`: every step from every state of the scene that runs that tell runs it
    /// feasibly (checked by recomputing the steps).
    TellFeasible {
        /// The theorem's name.
        obligation: String,
    },
    /// `_live_`, as a [`Witness::Ranking`] whose ranks are one linear expression over the
    /// states' features (found by Z3), which the kernel evaluates on every state.
    RankingExpr {
        /// The theorem's name.
        obligation: String,
        /// The expression.
        expr: RankExpr,
    },
    /// `<Agent>.<Binding>_frame`: the Kripke frame of the explored worlds (every belief set of
    /// the table with every attention; `docs/frames.md`) satisfies D for R^B, R^D and R^I, 4 and
    /// 5 for R^B, and R^D ⊆ R^I. An obligation, not a theorem; the kernel evaluates the relations
    /// itself.
    Frame {
        /// The obligation's name.
        obligation: String,
    },
    /// `_stoppable`: the states a stop of the scene's plan from outside reaches from every state
    /// of the scene, not going on from where the stop has settled, each with a rank (0 where
    /// settled); then the same for a resume and an abort from every state where the stop left
    /// the plan suspended (in the stop exploration's order, resume then abort).
    Stoppable {
        /// The theorem's name.
        obligation: String,
        /// The size of the stop-extended exploration.
        stop: Counts,
        /// One rank per state of it.
        stop_ranks: Vec<u64>,
        /// The size of what a resume or an abort reaches from its suspended states.
        after: Counts,
        /// One rank per state of that.
        after_ranks: Vec<u64>,
    },
}

impl Body {
    /// Every state the certificate declares, its scene's and its explorations from outside
    /// together (saturating): what the kernel's work is bounded by.
    pub fn declared_states(&self) -> u64 {
        let outside = self.witnesses.iter().flat_map(|w| match w {
            Witness::Release { counts, .. } => vec![counts.states],
            Witness::Stoppable { stop, after, .. } => vec![stop.states, after.states],
            _ => Vec::new(),
        });
        outside.fold(self.scene.states, u64::saturating_add)
    }
}

impl Witness {
    /// The obligation the witness is for.
    pub fn obligation(&self) -> &str {
        match self {
            Witness::Invariant { obligation }
            | Witness::Ranking { obligation, .. }
            | Witness::Release { obligation, .. }
            | Witness::TellFeasible { obligation }
            | Witness::RankingExpr { obligation, .. }
            | Witness::Frame { obligation }
            | Witness::Stoppable { obligation, .. } => obligation,
        }
    }
}

/// A numeric feature of a state, for ranking expressions: a slot's integer value in a thread of
/// a plan instance, or whether a thread of an instance is at a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Feature {
    /// The largest integer held in `slot` by a thread of `inst` running `plan` (0 when none).
    Slot {
        /// The static instance.
        inst: u32,
        /// The plan.
        plan: PlanId,
        /// The slot.
        slot: u32,
    },
    /// 1 when a ready or running thread of `inst` has `node` on top of its stack, else 0.
    At {
        /// The static instance.
        inst: u32,
        /// The node.
        node: NodeId,
    },
}

/// A linear ranking expression `constant + Σ coefficient × feature`; where it is negative it
/// claims nothing (like a per-state rank of `u64::MAX`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankExpr {
    /// The constant term.
    pub constant: i64,
    /// The linear terms.
    pub terms: Vec<(Feature, i64)>,
}

/// Why bytes are not a certificate this reader understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Too short, or the magic is wrong.
    NotACertificate,
    /// A format version this reader does not implement.
    Version {
        /// Major found.
        major: u16,
        /// Minor found.
        minor: u16,
        /// Semantics found.
        semantics: u16,
    },
    /// A reserved header byte is not zero.
    Reserved,
    /// The checksum trailer does not match.
    Checksum,
    /// The body does not decode.
    Body(String),
    /// The body decodes, but re-encodes to other bytes (not canonical).
    NotCanonical,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::NotACertificate => {
                f.write_str("not a Hilbert certificate (bad magic or too short)")
            }
            DecodeError::Version {
                major,
                minor,
                semantics,
            } => write!(
                f,
                "format {major}.{minor} with semantics {semantics}; this kernel implements format {FORMAT_MAJOR}.0–{FORMAT_MAJOR}.{FORMAT_MINOR}, semantics {SEMANTICS}"
            ),
            DecodeError::Reserved => f.write_str("a reserved header byte is not zero"),
            DecodeError::Checksum => f.write_str("the SHA-256 trailer does not match the bytes"),
            DecodeError::Body(e) => write!(f, "the body does not decode: {e}"),
            DecodeError::NotCanonical => {
                f.write_str("the body is not in canonical form (it re-encodes to other bytes)")
            }
        }
    }
}

/// The postcard bytes of the IR, whose SHA-256 a certificate carries.
pub fn ir_bytes(ir: &Ir) -> Vec<u8> {
    postcard::to_allocvec(ir).unwrap_or_default()
}

/// Encodes a body into certificate bytes.
pub fn encode(body: &Body) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
    out.extend_from_slice(&FORMAT_MINOR.to_le_bytes());
    out.extend_from_slice(&SEMANTICS.to_le_bytes());
    out.extend_from_slice(&[0u8; HEADER_LEN - 6]);
    out.extend_from_slice(&postcard::to_allocvec(body).unwrap_or_default());
    let sum = sha256(&out);
    out.extend_from_slice(&sum);
    out
}

/// The fields of a body before its counts: what a certificate says it is about.
#[derive(Clone, Debug, Deserialize)]
pub struct Head {
    /// The tool that wrote it.
    pub tool: String,
    /// The sources.
    pub sources: Vec<SourceDigest>,
    /// SHA-256 of the postcard encoding of `ir`.
    pub ir_sha256: [u8; 32],
    /// The network's slice of the IR.
    pub ir: Ir,
    /// Which network of `ir` it is about.
    pub network: u32,
}

/// Reads a certificate's [`Head`] without its witnesses, and without any check (no version,
/// checksum or canonical form): for a verifier to find which network a certificate claims to be
/// about, and with which parameter values, before [`decode`] and the kernel judge it.
pub fn decode_head(bytes: &[u8]) -> Option<Head> {
    let body = bytes.get(MAGIC.len() + HEADER_LEN..bytes.len().checked_sub(32)?)?;
    crate::ir::nesting_exceeded();
    postcard::take_from_bytes::<Head>(body)
        .ok()
        .map(|(head, _)| head)
}

/// Decodes certificate bytes, refusing unknown versions, non-zero reserved bytes, a bad
/// checksum, an undecodable body and a non-canonical encoding.
pub fn decode(bytes: &[u8]) -> Result<Body, DecodeError> {
    let min = MAGIC.len() + HEADER_LEN + 32;
    if bytes.len() < min || &bytes[..MAGIC.len()] != MAGIC {
        return Err(DecodeError::NotACertificate);
    }
    let h = &bytes[MAGIC.len()..MAGIC.len() + HEADER_LEN];
    let u16_at = |i: usize| u16::from_le_bytes([h[i], h[i + 1]]);
    let (major, minor, semantics) = (u16_at(0), u16_at(2), u16_at(4));
    if major != FORMAT_MAJOR || minor > FORMAT_MINOR || semantics != SEMANTICS {
        return Err(DecodeError::Version {
            major,
            minor,
            semantics,
        });
    }
    if h[6..].iter().any(|&b| b != 0) {
        return Err(DecodeError::Reserved);
    }
    let (content, trailer) = bytes.split_at(bytes.len() - 32);
    if sha256(content) != trailer {
        return Err(DecodeError::Checksum);
    }
    let body_bytes = &content[MAGIC.len() + HEADER_LEN..];
    crate::ir::nesting_exceeded();
    let body: Body = postcard::from_bytes(body_bytes).map_err(|e| {
        DecodeError::Body(if crate::ir::nesting_exceeded() {
            format!("the IR nests deeper than {} levels", crate::ir::MAX_NESTING)
        } else {
            e.to_string()
        })
    })?;
    // Re-encoded and compared as it is written (a large rank table is not held twice).
    match postcard::serialize_with_flavor(&body, Same(body_bytes)) {
        Ok(true) => Ok(body),
        Ok(false) | Err(postcard::Error::SerializeBufferFull) => Err(DecodeError::NotCanonical),
        Err(e) => Err(DecodeError::Body(e.to_string())),
    }
}

/// A postcard output that compares the bytes written with the rest of an encoding instead of
/// storing them: a difference stops it (as a full buffer), and it ends equal when nothing is
/// left over.
struct Same<'a>(&'a [u8]);

impl postcard::ser_flavors::Flavor for Same<'_> {
    type Output = bool;
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        let rest = self.0.strip_prefix(data);
        self.0 = rest.ok_or(postcard::Error::SerializeBufferFull)?;
        Ok(())
    }
    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.try_extend(&[byte])
    }
    fn finalize(self) -> postcard::Result<bool> {
        Ok(self.0.is_empty())
    }
}
