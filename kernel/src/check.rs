//! The certificate checks: one small rule per witness kind, each re-deriving every step it needs
//! with the reference semantics. No search: the kernel explores the network itself, in the one
//! breadth-first order the semantics determines, and every check is a pass over those states.
//!
//! The kernel decides what must be proved ([`obligations`]): the list comes from the IR, and
//! the certificate must carry exactly one witness for each, in that order. The states are kept
//! as a compact table (a held term index and a belief-set index per state); a state is written
//! out as a tree only while its steps are computed.

use crate::eval::{attention_within, holds_within};
use crate::semantics::{After, Atom, Params, Semantics, State, Sub, Term, settled, suspended};
use hashbrown::HashTable;
use hilbert_certificates::cert::{self, Body, Counts, SourceDigest, Witness};
use hilbert_certificates::ir::Command;
use hilbert_certificates::ir::{
    CommitmentStrategy, Cond, Ir, Network, Node, NodeId, PatternArg, PlanId, Value,
};
use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::mem::Discriminant;
use std::sync::atomic::{AtomicU64, Ordering};

#[path = "props.rs"]
mod props;
pub use props::takers;
#[path = "split.rs"]
mod split;

/// Proof that the kernel admitted one certificate: it names the certificate (the SHA-256 of
/// its bytes), the IR it is about (the IR's SHA-256) and the network of that IR. Only this
/// module can make one: its fields are private, so outside the kernel the type can be read and
/// held but never built.
///
/// ```
/// fn gate(_: Option<hilbert_kernel::check::Admitted>) {}
/// ```
///
/// ```compile_fail
/// let forged = hilbert_kernel::check::Admitted { certificate: [0; 32], ir: [0; 32], network: 0 };
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admitted {
    certificate: [u8; 32],
    ir: [u8; 32],
    network: u32,
}

impl Admitted {
    /// The SHA-256 of the admitted certificate's bytes.
    pub fn certificate(&self) -> &[u8; 32] {
        &self.certificate
    }
    /// The SHA-256 of the IR the certificate is about.
    pub fn ir(&self) -> &[u8; 32] {
        &self.ir
    }
    /// Which network of that IR.
    pub fn network(&self) -> u32 {
        self.network
    }
}

/// Proof that the kernel admitted a whole build: one admitted certificate for every network of
/// one IR. Only [`admit_build`] makes one.
#[derive(Debug)]
pub struct BuildAdmitted {
    ir: [u8; 32],
    networks: usize,
}

impl BuildAdmitted {
    /// The SHA-256 of the IR whose every network was admitted.
    pub fn ir(&self) -> &[u8; 32] {
        &self.ir
    }
    /// How many networks that IR has.
    pub fn networks(&self) -> usize {
        self.networks
    }
}

/// Why the kernel refused an obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The obligation.
    pub obligation: String,
    /// The state where the check failed, as a person reads it.
    pub state: Option<String>,
    /// The rule that failed (`invariant.closed`, `ranking.decreases`, …).
    pub rule: &'static str,
    /// What was wrong.
    pub reason: String,
}

/// The kernel's verdict on one obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The witness checks.
    Proved,
    /// It does not (or there is none).
    Refused(Refusal),
}

/// The kernel's word on one certificate.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The network's name (`Agent.Binding`), when the certificate decoded.
    pub network: Option<String>,
    /// Each obligation the kernel derived, with its verdict.
    pub obligations: Vec<(String, Verdict)>,
    /// Why the certificate itself is invalid, if it is.
    pub invalid: Option<String>,
    /// Present only when every obligation was proved.
    pub admitted: Option<Admitted>,
    /// The work the check took, in the units of [`work_limit`].
    pub work: u64,
    /// The most it was allowed ([`work_limit`] of the certificate's bytes and declared states).
    pub work_limit: u64,
    /// The scene's states and steps, as the kernel recomputed them, once its table closed.
    pub scene: Option<(usize, usize)>,
}

impl Report {
    fn invalid(reason: String) -> Report {
        Report {
            invalid: Some(reason),
            ..Report::default()
        }
    }
}

/// What the certificate must be about, when the caller knows the sources: their paths and
/// digests, and the postcard bytes of the IR they lower to.
#[derive(Clone, Copy, Debug)]
pub struct Expected<'a> {
    /// Every source file, as the build named it, with its SHA-256.
    pub sources: &'a [SourceDigest],
    /// The IR the sources lower to ([`cert::ir_bytes`]).
    pub ir: &'a [u8],
}

/// What an obligation is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `Plan_no_deadlock`.
    NoDeadlock,
    /// `P_live_D`: the desire's index.
    Live(usize),
    /// `P_released_D`: the desire's index and its constant impossible atom, for a
    /// `single_minded` agent: the atom arriving in any reachable state (believed by the plan or
    /// perceived), aborting the plan there leads on every path to its handlers having finished.
    Released(usize, Atom),
    /// `Plan_abortable`: aborting the plan from outside, in any reachable state, leads on every
    /// path to its handlers having finished (a network one of whose plans has `on abort`).
    Abortable,
    /// `Plan_stoppable`: stopping the plan from outside, in any reachable state, leads on every
    /// path to the stop having completed; from every suspended state that leaves, a resume
    /// leads on every path to the resume having completed, and an abort to the end (a network
    /// one of whose plans has `on stop` or `on resume`, of an agent with a desire of higher
    /// priority than one the binding serves).
    Stoppable,
    /// `Plan_tell_feasible_N`.
    TellFeasible(PlanId, u32),
    /// `Plan_tell_feasible_N` of a tell inside a handler, or in a plan a handler calls: decided
    /// over every handler run the certificate explores (the scene's, and those of the commands
    /// from outside).
    TellInHandler(PlanId, u32),
    /// `Plan_assert_name`: the agent's assertion (an index into its `asserts`).
    Assert(usize),
    /// `Agent.Binding_frame`: the frame conditions on the explored worlds, for the desires the
    /// binding serves (indices into the agent's desires). An obligation, not a theorem.
    Frame(Vec<usize>),
}

/// The most slots a plan may declare: the kernel makes an environment of that many values for
/// every thread, so a larger count is refused (a fixed limit, which fails closed).
pub const MAX_SLOTS: u32 = 1 << 16;

/// The obligations of network `n`, named as the build names them, in this order: no deadlock;
/// then for each desire the binding serves, its liveness and, when its `impossible` condition is
/// one belief with constant arguments that some `believe` of the network could raise, its
/// release; then every tell of every plan of the network; then each assertion of the agent; last, the frame of the explored
/// worlds (`Agent.Binding_frame`). A network that cannot be resolved (no such network, agent
/// or root plan, or not exactly one binding of its agent naming it) has no obligations: it is
/// an error, never an empty list.
pub fn obligations(ir: &Ir, n: usize) -> Result<Vec<(String, Kind)>, String> {
    let net = ir
        .networks
        .get(n)
        .ok_or_else(|| format!("network {n} is not in the IR"))?;
    let agent = ir.agents.get(net.agent.0 as usize).ok_or_else(|| {
        format!(
            "network {n} names agent {}, which is not in the IR",
            net.agent.0
        )
    })?;
    let mut bound = agent
        .plans
        .iter()
        .enumerate()
        .filter(|(_, b)| b.network == Some(n as u32));
    let binding = match (bound.next(), bound.next()) {
        (Some((i, b)), None) if b.name == net.binding => i,
        (Some((_, b)), None) => Err(format!(
            "network {n} is the scene of `{}`, but the binding naming it is `{}`",
            net.binding, b.name
        ))?,
        (None, _) => Err(format!(
            "no plan binding of agent `{}` names network {n}",
            agent.name
        ))?,
        (Some(_), Some(_)) => Err(format!(
            "more than one plan binding of agent `{}` names network {n}",
            agent.name
        ))?,
    };
    let root = net.plans.get(net.root.0 as usize).ok_or_else(|| {
        format!(
            "the root plan {} of network {n} is not among its {} plans",
            net.root.0,
            net.plans.len()
        )
    })?;
    if let Some(p) = net.plans.iter().find(|p| p.slots > MAX_SLOTS) {
        return Err(format!(
            "plan `{}` has {} slots, more than the kernel's limit of {MAX_SLOTS}",
            p.name, p.slots
        ));
    }
    // Every walk over the network's nodes is counted, all together bounded.
    let mut walk_left: u64 = MAX_CODE_WALK;
    let mut walk = |n: usize| -> Result<(), String> {
        walk_left = walk_left.saturating_sub(n as u64 + 1);
        match walk_left {
            0 => Err(format!(
                "deriving the obligations walks more than the kernel's limit of {MAX_CODE_WALK} nodes"
            )),
            _ => Ok(()),
        }
    };
    let mut out = vec![(format!("{}_no_deadlock", root.name), Kind::NoDeadlock)];
    let served: Vec<usize> = (0..agent.desires.len())
        .filter(|&d| agent.desires[d].reachable_by.contains(&(binding as u32)))
        .collect();
    for &di in &served {
        let d = &agent.desires[di];
        out.push((format!("{}_live_{}", net.binding, d.name), Kind::Live(di)));
        // Only a single-minded agent is released by what it believes impossible.
        if agent.commit != CommitmentStrategy::SingleMinded {
            continue;
        }
        for (cond, _) in &d.impossible {
            if let Some(atom) = constant_atom(cond) {
                out.push((
                    format!("{}_released_{}", net.binding, d.name),
                    Kind::Released(di, atom),
                ));
            }
        }
    }
    // The runtime may abort an intention in any state (its goal achieved, believed impossible,
    // or no longer desired): where a handler runs then, that it finishes is a theorem.
    if net.plans.iter().any(|p| p.on_abort.is_some()) {
        out.push((format!("{}_abortable", root.name), Kind::Abortable));
    }
    // The runtime stops an intention when a desire of higher priority is adopted, and resumes
    // it when that is done: where a handler runs then, that the stop and the resume complete.
    let lowest = served.iter().map(|&d| agent.desires[d].priority).min();
    let stoppable = lowest.is_some_and(|l| agent.desires.iter().any(|d| d.priority > l));
    if stoppable
        && net
            .plans
            .iter()
            .any(|p| p.on_stop.is_some() || p.on_resume.is_some())
    {
        out.push((format!("{}_stoppable", root.name), Kind::Stoppable));
    }
    // The plans a handler run may execute the body of: those a handler calls, and those they
    // call in turn (a plan's handlers are handlers already). Each body is walked once.
    let handlers_all = net
        .plans
        .iter()
        .flat_map(|p| [p.on_stop, p.on_resume, p.on_abort]);
    let mut work: Vec<usize> = nodes_of(net, handlers_all).into_iter().collect();
    walk(work.len())?;
    let mut called = BTreeSet::new();
    while let Some(n) = work.pop() {
        if let Some(Node::Call { plan, .. }) = net.nodes.get(n)
            && called.insert(plan.0 as usize)
            && let Some(c) = net.plans.get(plan.0 as usize)
        {
            let body = nodes_of(net, [Some(c.body)]);
            walk(body.len())?;
            work.extend(body);
        }
    }
    for (pi, code) in net.plans.iter().enumerate() {
        let handlers = [code.on_stop, code.on_resume, code.on_abort];
        let tell = |i: usize| match net.nodes.get(i) {
            Some(Node::Tell { index, .. }) => Some(*index),
            _ => None,
        };
        let body = nodes_of(net, [Some(code.body)]);
        let handled = nodes_of(net, handlers);
        walk(body.len() + handled.len())?;
        let mut tells: Vec<u32> = body.union(&handled).copied().filter_map(tell).collect();
        let handled: BTreeSet<u32> = handled.into_iter().filter_map(tell).collect();
        tells.sort_unstable();
        tells.dedup();
        for k in tells {
            let kind = match handled.contains(&k) || called.contains(&pi) {
                true => Kind::TellInHandler,
                false => Kind::TellFeasible,
            };
            out.push((
                format!("{}_tell_feasible_{k}", code.name),
                kind(PlanId(pi as u32), k),
            ));
        }
    }
    for (k, a) in agent.asserts.iter().enumerate() {
        out.push((format!("{}_assert_{}", root.name, a.name), Kind::Assert(k)));
    }
    out.push((
        format!("{}.{}_frame", agent.name, net.binding),
        Kind::Frame(served),
    ));
    Ok(out)
}

/// The most nodes [`obligations`] walks, all walks together (each plan's code, and the whole
/// network once per `impossible` condition): a larger IR is refused, not walked.
pub const MAX_CODE_WALK: u64 = 1 << 22;

/// The nodes reachable from `roots` (a plan's body and handlers) through the code, each once.
fn nodes_of(net: &Network, roots: impl IntoIterator<Item = Option<NodeId>>) -> BTreeSet<usize> {
    let mut stack: Vec<usize> = roots.into_iter().flatten().map(|n| n.0 as usize).collect();
    let mut seen = BTreeSet::new();
    while let Some(n) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        match net.nodes.get(n) {
            Some(Node::Seq(a, b)) | Some(Node::Interrupt(a, b)) => {
                stack.push(a.0 as usize);
                stack.push(b.0 as usize);
            }
            Some(Node::Par(cs)) | Some(Node::Choice(cs)) => {
                stack.extend(cs.iter().map(|c| c.0 as usize));
            }
            Some(Node::Label(_, b)) => stack.push(b.0 as usize),
            Some(Node::Match { arms, other, .. }) => {
                stack.extend(arms.iter().map(|(_, b)| b.0 as usize));
                stack.extend(other.iter().map(|b| b.0 as usize));
            }
            _ => {}
        }
    }
    seen
}

/// The atom of a condition that is one belief test with constant arguments.
pub fn constant_atom(cond: &Cond) -> Option<Atom> {
    let Cond::Believes(p) = cond else { return None };
    let args = p.args.iter().map(|a| match a {
        PatternArg::Literal(l) => Some(Value::of(l)),
        _ => None,
    });
    let args = args.collect::<Option<Vec<_>>>()?;
    let (told, belief) = (None, p.belief);
    Some(Atom { told, belief, args })
}

/// The deepest term a state table may hold: a state is refused beyond it (a fixed limit, which
/// fails closed), so that no certificate can make the kernel's recursion overflow its stack.
pub const MAX_TERM_DEPTH: u32 = 256;

/// The largest state, once its shared terms are written out (term nodes, plus each thread's
/// stack and slots, plus its beliefs): the kernel writes one state out at a time, on each core,
/// so this bounds the memory any state can take.
pub const MAX_STATE_SIZE: u64 = 1 << 20;

/// The work the kernel does for a certificate of `bytes` bytes that declares `states` states
/// (its scene's and its explorations' from outside, [`Body::declared_states`]), at most:
/// written-out state size for every state it writes out and every step it makes, one unit per
/// pair of offers it compares and per internal action a step runs. Past it the certificate is
/// invalid (a bound, which fails closed). The allowance is 2^16 units a declared state (the
/// 10-philosopher scene takes 2,734 a state), and 192 units a byte up to 1 MiB and one more 192
/// per doubling beyond, for what a state's steps cost beyond that (a choice of many
/// alternatives); an auditor bounds the states with [`check_within`] (`hilbert verify
/// --max-states`). `hilbert verify --format json` prints `work` and `work_limit`.
pub fn work_limit(bytes: usize, states: u64) -> u64 {
    let b = bytes as u64;
    let doublings = u64::from((b >> 19).max(1).ilog2()).max(1);
    let per_byte = WORK_PER_BYTE.saturating_mul(doublings).saturating_mul(b);
    WORK_BASE
        .saturating_add(per_byte)
        .saturating_add(WORK_PER_STATE.saturating_mul(states))
}

const WORK_PER_STATE: u64 = 1 << 16;
const WORK_BASE: u64 = 1 << 23;
const WORK_PER_BYTE: u64 = 192;

/// The work budget of one check, shared by the cores.
struct Budget {
    limit: u64,
    used: AtomicU64,
}

impl Budget {
    fn spend(&self, n: u64) -> bool {
        self.used.fetch_add(n, Ordering::Relaxed).saturating_add(n) <= self.limit
    }
    fn exhausted(&self) -> bool {
        self.used.load(Ordering::Relaxed) > self.limit
    }
}

/// The states the kernel has made, in the order it met them. Each distinct term is held once
/// (hash-consed), and a held term's children are held terms, so two held terms are equal
/// exactly when they have one index. A state is its root's term index and a belief-set index.
/// No held term is nested deeper than [`MAX_TERM_DEPTH`], and no state is larger than
/// [`MAX_STATE_SIZE`] nodes once its shared terms are written out.
#[derive(Default)]
struct Table {
    /// Each held node; one over a `‖` (at any depth) is held with its `‖` as a stub, a `‖` of
    /// no children: [`Table::term`] writes it out, [`Table::node`] gives its own fields.
    nodes: Vec<Sub>,
    /// Whether held node `i` is over a `‖` (held with a stub).
    stub: Vec<bool>,
    /// Each held term's children's indices: those of term `i` end at `kids[ends[i]]`, where
    /// those of term `i - 1` do.
    kids: Vec<u32>,
    ends: Vec<u32>,
    /// The held terms' indices, by [`Table::hash`]; 4 bytes a term.
    index: HashTable<u32>,
    /// Each held list of parameters' hash, by its address (held, it lives as long as the
    /// table): the scene's root instance carries every channel of its plan.
    params: FastMap<usize, u64>,
    hashes: Vec<u64>,
    hasher: foldhash::fast::RandomState,
    /// The distinct belief sets, numbered in the order met, and each state's root and set.
    sets: FastMap<BTreeSet<Atom>, u32>,
    set_list: Vec<BTreeSet<Atom>>,
    states: Vec<(u32, u32)>,
    numbers: FastMap<(u32, u32), u32>,
    size: Vec<u64>,
    depth: Vec<u32>,
}

/// A step's next state: its number, or the state itself, to be numbered (made as a term, or
/// as a split state's parts: [`Table::put`]).
enum Next {
    Old(u32),
    New(State),
    Put(Put),
}

type Put = (
    u32,
    Vec<(usize, Sub, Option<u32>)>,
    Vec<u32>,
    BTreeSet<Atom>,
);

/// Every child of a term, in order: both sides of `Then` and `Interrupt`, a label's start after
/// its body, what follows handlers after them.
fn kids(t: &Term) -> impl Iterator<Item = &Sub> {
    let (many, two): (&[Sub], [Option<&Sub>; 2]) = match t {
        Term::Done | Term::Faulted(_) | Term::Thread { .. } => (&[], [None, None]),
        Term::Then(a, b) | Term::Interrupt(a, b) => (&[], [Some(a), Some(b)]),
        Term::Par(cs) | Term::Choice(cs) => (cs, [None, None]),
        Term::Label { body, start, .. } => (&[], [Some(body), Some(start)]),
        Term::Inst { body, .. } | Term::Suspended(body) => (&[], [Some(body), None]),
        Term::Handling { body, then } => match then {
            After::End => (&[], [Some(body), None]),
            After::Suspend(x) | After::Continue(x) | After::Restart(x) => {
                (&[], [Some(body), Some(x)])
            }
        },
    };
    many.iter().chain(two.into_iter().flatten())
}

/// `t` over the children `held` (as many as [`kids`] lists, in its order), an instance over
/// its own list of parameters.
fn with_kids(t: &Term, held: &[Sub]) -> Term {
    let k = |i: usize| held[i].clone();
    match t {
        Term::Done | Term::Faulted(_) | Term::Thread { .. } => t.clone(),
        Term::Then(..) => Term::Then(k(0), k(1)),
        Term::Interrupt(..) => Term::Interrupt(k(0), k(1)),
        Term::Par(_) => Term::Par(held.to_vec()),
        Term::Choice(_) => Term::Choice(held.to_vec()),
        Term::Suspended(_) => Term::Suspended(k(0)),
        Term::Label { inst, label, .. } => Term::Label {
            inst: *inst,
            label: *label,
            body: k(0),
            start: k(1),
        },
        Term::Inst {
            inst, plan, params, ..
        } => Term::Inst {
            inst: *inst,
            plan: *plan,
            params: params.clone(),
            body: k(0),
        },
        Term::Handling { then, .. } => Term::Handling {
            body: k(0),
            then: match then {
                After::End => After::End,
                After::Suspend(_) => After::Suspend(k(1)),
                After::Continue(_) => After::Continue(k(1)),
                After::Restart(_) => After::Restart(k(1)),
            },
        },
    }
}

/// A node's own fields, all but its children (a thread or a fault whole): two terms are equal
/// exactly when their nodes' own fields are and their children are, in order.
type Own<'a> = (
    Discriminant<Term>,
    Option<&'a Term>,
    [u32; 2],
    Option<&'a Params>,
    Option<Discriminant<After>>,
);

fn own(t: &Term) -> Own<'_> {
    let (mut whole, mut ids, mut params, mut then) = (None, [0; 2], None, None);
    match t {
        Term::Thread { .. } | Term::Faulted(_) => whole = Some(t),
        Term::Label { inst, label, .. } => ids = [*inst, label.0],
        Term::Inst {
            inst,
            plan,
            params: p,
            ..
        } => (ids, params) = ([*inst, plan.0], Some(p)),
        Term::Handling { then: a, .. } => then = Some(std::mem::discriminant(a)),
        _ => {}
    }
    (std::mem::discriminant(t), whole, ids, params, then)
}

impl Table {
    fn len(&self) -> usize {
        self.states.len()
    }

    /// State `i`'s root term.
    fn root(&self, i: usize) -> Sub {
        self.term(self.states[i].0)
    }

    /// Held node `i`, for its own fields (its children may be stubs: [`Table::nodes`]).
    fn node(&self, i: u32) -> &Term {
        &self.nodes[i as usize]
    }

    /// Held term `i`, written out: a node over a `‖` made again over its children's terms.
    fn term(&self, i: u32) -> Sub {
        if !self.stub[i as usize] {
            return self.nodes[i as usize].clone();
        }
        let kids: Vec<Sub> = self.kids_of(i).iter().map(|&k| self.term(k)).collect();
        Sub::new(with_kids(self.node(i), &kids))
    }

    /// The written-out size of state `i`.
    fn cost(&self, i: usize) -> u64 {
        let (t, set) = self.states[i];
        self.size[t as usize] + self.set_list[set as usize].len() as u64
    }

    /// State `i`: its root node over its held children, and its beliefs.
    fn state(&self, i: usize) -> State {
        State {
            term: Sub::unwrap_or_clone(self.root(i)),
            beliefs: self.set_list[self.states[i].1 as usize].clone(),
        }
    }

    /// A term's node, hashed over its children's hashes (written into `h` first, in order)
    /// and its own fields: equal terms have equal hashes, whoever made them (a list of
    /// parameters by its own hash, found by its address when it is held).
    fn hash(&self, t: &Term, mut h: foldhash::fast::FoldHasher) -> u64 {
        let (kind, whole, ids, params, then) = own(t);
        std::hash::Hash::hash(&(kind, whole, ids, then), &mut h);
        if let Some(p) = params {
            let held = self.params.get(&(p.as_ptr() as *const () as usize));
            h.write_u64(held.copied().unwrap_or_else(|| self.hasher.hash_one(p)));
        }
        h.finish()
    }

    /// Held term `i`'s children's indices, in the order of [`kids`].
    fn kids_of(&self, i: u32) -> &[u32] {
        let i = i as usize;
        let start = i.checked_sub(1).map_or(0, |h| self.ends[h] as usize);
        &self.kids[start..self.ends[i] as usize]
    }

    /// `near`, when it is a held term and `t` is that very allocation. A step's next state
    /// shares most of its terms with the state it came from, at the same places.
    fn is(&self, t: &Term, near: Option<u32>) -> Option<u32> {
        let at = |g: &u32| matches!(self.nodes.get(*g as usize), Some(h) if std::ptr::eq(&**h, t));
        near.filter(at)
    }

    /// The guesses for the children of a term guessed to be `near`: its children, when it is
    /// a held term.
    fn guesses(&self, near: Option<u32>) -> &[u32] {
        let held = near.filter(|&g| (g as usize) < self.nodes.len());
        held.map_or(&[], |g| self.kids_of(g))
    }

    /// The held node equal to `t` over the held children `ks` (as many as [`kids`] lists):
    /// found by its hash over theirs, its own fields compared, its children by index.
    fn find_node(&self, t: &Term, ks: &[u32]) -> (Option<u32>, u64) {
        let mut h = self.hasher.build_hasher();
        ks.iter()
            .for_each(|&k| h.write_u64(self.hashes[k as usize]));
        let hash = self.hash(t, h);
        let same = |&j: &u32| self.kids_of(j) == ks && own(self.node(j)) == own(t);
        (self.index.find(hash, same).copied(), hash)
    }

    /// The index of the held term equal to `t`, if any: `near` when `t` is that very held
    /// allocation (a wrong guess costs one pointer comparison, never a wrong index), else its
    /// children's found (each guessed to be the guess's child at its place) and then its node.
    fn find_term(&self, t: &Term, near: Option<u32>) -> Option<u32> {
        if let Some(g) = self.is(t, near) {
            return Some(g);
        }
        let guesses = self.guesses(near);
        let ks = kids(t)
            .enumerate()
            .map(|(n, c)| self.find_term(c, guesses.get(n).copied()));
        self.find_node(t, &ks.collect::<Option<Vec<u32>>>()?).0
    }

    /// A state's number when it has one, else the state, to be numbered (`near`: see
    /// [`Table::find_term`]).
    fn find(&self, s: State, near: Option<u32>) -> Next {
        match (self.find_term(&s.term, near)).and_then(|r| self.number(r, &s.beliefs)) {
            Some(j) => Next::Old(j),
            None => Next::New(s),
        }
    }

    /// The number of the state of held root `r` and beliefs `b`, if it has one.
    fn number(&self, r: u32, b: &BTreeSet<Atom>) -> Option<u32> {
        self.numbers.get(&(r, *self.sets.get(b)?)).copied()
    }

    /// The index of the held term equal to `t`, held over its held children when new (`near`:
    /// see [`Table::find_term`]).
    fn hold(&mut self, t: &Term, near: Option<u32>) -> Result<u32, String> {
        if let Some(g) = self.is(t, near) {
            return Ok(g);
        }
        let mut ids = Vec::new();
        for (n, c) in kids(t).enumerate() {
            let guess = self.guesses(near).get(n).copied();
            ids.push(self.hold(c, guess)?);
        }
        self.hold_node(t, ids)
    }

    /// The index of the held node equal to `t` over the held children `ids` (as many as
    /// [`kids`] lists), held when new.
    fn hold_node(&mut self, t: &Term, ids: Vec<u32>) -> Result<u32, String> {
        let (found, hash) = self.find_node(t, &ids);
        if let Some(j) = found {
            return Ok(j);
        }
        let own = match t {
            Term::Thread { stack, env, .. } => (stack.len() + env.len()) as u64,
            Term::Inst { params, .. } => params.len() as u64,
            _ => 0,
        };
        let (mut d, mut n) = (1u32, 1u64 + own);
        for &k in &ids {
            d = d.max(self.depth[k as usize].saturating_add(1));
            n = n.saturating_add(self.size[k as usize]);
        }
        if d > MAX_TERM_DEPTH {
            return Err(format!(
                "a term is nested {d} deep, more than the kernel's limit of {MAX_TERM_DEPTH}"
            ));
        }
        let par = matches!(t, Term::Par(_));
        let stub = par || ids.iter().any(|&k| self.stub[k as usize]);
        let held = ids
            .iter()
            .filter(|_| !par)
            .map(|&k| self.nodes[k as usize].clone());
        let sub = Sub::new(with_kids(t, &held.collect::<Vec<_>>()));
        if let Term::Inst { params, .. } = &*sub {
            let p = self.hasher.hash_one(params);
            self.params.insert(params.as_ptr() as *const () as usize, p);
        }
        let i = self.nodes.len() as u32;
        let edges = u32::try_from(self.kids.len() + ids.len()).ok();
        let Some(edges) = edges.filter(|_| i != u32::MAX) else {
            return Err("more terms than the kernel can number".into());
        };
        self.kids.extend_from_slice(&ids);
        self.ends.push(edges);
        let hashes = &self.hashes;
        self.index.insert_unique(hash, i, |&j| hashes[j as usize]);
        self.hashes.push(hash);
        self.nodes.push(sub);
        self.stub.push(stub);
        self.depth.push(d);
        self.size.push(n);
        Ok(i)
    }

    /// A state's number, numbered next when it is new (and whether it was; `near`: see
    /// [`Table::find_term`]).
    fn add(&mut self, s: &State, near: Option<u32>) -> Result<(u32, bool), String> {
        let root = self.hold(&s.term, near)?;
        self.number_new(root, &s.beliefs)
    }

    /// A split state's number, numbered next when it is new: the held `‖` `par` with the
    /// children `moved` put in at their places (each with its held index, when it has one as
    /// found), in the held context `ctx` (from the root down), and its beliefs.
    fn put(&mut self, (par, moved, ctx, beliefs): &Put) -> Result<(u32, bool), String> {
        let mut ks = self.kids_of(*par).to_vec();
        for (k, x, id) in moved {
            ks[*k] = self.hold(x, *id)?;
        }
        let mut at = self.hold_node(&self.nodes[*par as usize].clone(), ks)?;
        for &c in ctx.iter().rev() {
            let ks = [&[at], &self.kids_of(c)[1..]].concat();
            at = self.hold_node(&self.nodes[c as usize].clone(), ks)?;
        }
        self.number_new(at, beliefs)
    }

    /// The number of the state of held root `root` and `beliefs`, numbered next when new.
    fn number_new(&mut self, root: u32, beliefs: &BTreeSet<Atom>) -> Result<(u32, bool), String> {
        let k = self.states.len();
        if self.size[root as usize].saturating_add(beliefs.len() as u64) > MAX_STATE_SIZE {
            return Err(format!(
                "state {k} holds more than the kernel's limit of {MAX_STATE_SIZE} nodes once written out"
            ));
        }
        let set = match self.sets.get(beliefs) {
            Some(&set) => set,
            None => {
                let set = self.set_list.len() as u32;
                self.sets.insert(beliefs.clone(), set);
                self.set_list.push(beliefs.clone());
                set
            }
        };
        if let Some(&j) = self.numbers.get(&(root, set)) {
            return Ok((j, false));
        }
        if k >= u32::MAX as usize / 2 {
            return Err("more states than the kernel can number".into());
        }
        self.numbers.insert((root, set), k as u32);
        self.states.push((root, set));
        Ok((k as u32, true))
    }
}

/// A fast hasher seeded at random once per process (foldhash): fast like Fx, but a hostile
/// certificate cannot choose colliding keys without knowing the seed.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// A state as a person reads it (for refusals).
pub fn show_state(state: &State) -> String {
    let beliefs: Vec<String> = state.beliefs.iter().map(|a| format!("{a:?}")).collect();
    let text = format!("term {:?}; beliefs {{{}}}", state.term, beliefs.join(", "));
    // A state of a thousand threads is not read by anyone: keep the start, say what was cut.
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!(
            "{} … ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
        None => text,
    }
}

/// The characters of a state that [`show_state`] writes out.
const SHOWN_CHARS: usize = 600;

/// The states the kernel reached, breadth-first: each state's successors, in the order of its
/// steps, and the tells its steps ran infeasibly.
struct Closed {
    table: Table,
    succ: Succ,
    /// (state, plan, tell) for each tell a step from the state runs infeasibly, by state.
    bad_tells: Vec<(u32, PlanId, u32)>,
}

/// Each state's successors, in the order of its steps: one list of them all, and where each
/// state's part of it ends.
#[derive(Default)]
struct Succ {
    all: Vec<u32>,
    ends: Vec<usize>,
}

impl Succ {
    fn of(&self, i: usize) -> &[u32] {
        &self.all[i.checked_sub(1).map_or(0, |h| self.ends[h])..self.ends[i]]
    }
}

/// States whose steps [`close`] computes at once (on every core) before numbering them: few, so
/// that a next state numbered in one block is found in the next ones (with blocks of 1,024
/// states, 60 % of the 10-philosopher scene's next states were not yet numbered when looked up;
/// with 128, 41 %, and the check took two thirds of the time).
const CLOSE_BLOCK: usize = 128;

/// Why an exploration does not match its certificate: the rule, the state and the reason.
type Unclosed = (&'static str, Option<usize>, String);

/// What a refusal says when a state the kernel made passes [`MAX_TERM_DEPTH`] or
/// [`MAX_STATE_SIZE`]: a bound of the kernel's (it fails closed), not a rule about a witness.
pub const LIMIT: &str = "limit";

/// Explores breadth-first from the states already in `table` (the starts, in order): each
/// state's steps, in order, and each next state numbered as it is met, new ones last, so the
/// states are numbered in breadth-first order. A state `halt` picks has no steps (an
/// exploration from outside stops where the command has settled). Steps are computed a block of
/// states at a time on every core against the table as it stood, then numbered on one thread in
/// order; the exploration is refused as soon as it holds more states than `declared` says, and
/// at the end unless it holds exactly the declared states and steps.
fn close(
    sem: &Semantics,
    mut table: Table,
    declared: Counts,
    halt: &(dyn Fn(&Term) -> bool + Sync),
    budget: &Budget,
    split: bool,
) -> Result<Closed, Unclosed> {
    // On a worker of the pool (`scope` runs its body there): a caller outside the pool would
    // number each block on a thread of its own, beside the pool's workers, on the same cores.
    rayon::scope(|_| {
        use rayon::prelude::*;
        type Steps = (Vec<Next>, Vec<(PlanId, u32)>);
        let memos: Vec<std::sync::Mutex<split::Memo>> = (0..rayon::current_num_threads())
            .map(|_| Default::default())
            .collect();
        let step_of = |table: &Table, i: usize| -> Steps {
            // A step changes a few threads: the rest of the next term is this state's, held.
            let state = table.state(i);
            if halt(&state.term) || !budget.spend(table.cost(i)) {
                return (Vec::new(), Vec::new());
            }
            let Some(candidates) = sem.candidates(&state, &mut |n| budget.spend(n)) else {
                return (Vec::new(), Vec::new());
            };
            let core = rayon::current_thread_index().unwrap_or(0) % memos.len();
            let mut memo = memos[core].lock().unwrap_or_else(|e| e.into_inner());
            let split = (split.then(|| split::split(sem, table, i, &mut memo))).flatten();
            let (mut next, mut bad) = (Vec::new(), Vec::new());
            for c in &candidates {
                let fast = split
                    .as_ref()
                    .and_then(|s| split::step(sem, table, (i, &state), s, c, &mut memo, budget));
                let (n, tells) = match fast {
                    Some(done) => done,
                    None => {
                        if !budget.spend(table.cost(i)) {
                            break;
                        }
                        let step = sem.fire(&state, c);
                        if !budget.spend(step.work) {
                            break;
                        }
                        let tells = step.effects.tells.iter();
                        let bad = tells.filter(|t| !t.2).map(|&(p, k, _)| (p, k));
                        (
                            table.find(step.next, Some(table.states[i].0)),
                            bad.collect(),
                        )
                    }
                };
                bad.extend(tells);
                next.push(n);
            }
            (next, bad)
        };
        let mut succ = Succ::default();
        let mut bad_tells = Vec::new();
        let mut start = 0;
        while start < table.len() && table.len() as u64 <= declared.states {
            let end = (start + CLOSE_BLOCK).min(table.len());
            let block = (start..end).into_par_iter().with_min_len(16);
            let results: Vec<Steps> = block.map(|i| step_of(&table, i)).collect();
            for (i, (next, b)) in (start..).zip(results) {
                let at = |why: String| (LIMIT, Some(i), format!("state {i}: {why}"));
                for n in next {
                    let j = match n {
                        Next::Old(j) => j,
                        Next::New(s) => table.add(&s, Some(table.states[i].0)).map_err(at)?.0,
                        Next::Put(p) => table.put(&p).map_err(at)?.0,
                    };
                    succ.all.push(j);
                }
                succ.ends.push(succ.all.len());
                bad_tells.extend(b.into_iter().map(|(p, k)| (i as u32, p, k)));
                if table.len() as u64 > declared.states {
                    break;
                }
            }
            start = end;
        }
        let found = (table.len() as u64, succ.all.len() as u64);
        if found != (declared.states, declared.transitions) {
            let (states, steps) = match found.0 > declared.states {
                true => (format!("more than {}", declared.states), String::new()),
                false => (found.0.to_string(), format!(" and {} steps", found.1)),
            };
            let why = format!(
                "the exploration reaches {states} states{steps}; the certificate declares {} and {}",
                declared.states, declared.transitions
            );
            return Err(("states.count", None, why));
        }
        Ok(Closed {
            table,
            succ,
            bad_tells,
        })
    })
}

fn refusal(obligation: &str, state: Option<&State>, rule: &'static str, reason: String) -> Verdict {
    Verdict::Refused(Refusal {
        obligation: obligation.to_string(),
        state: state.map(show_state),
        rule,
        reason,
    })
}

/// Checks certificate bytes. With `expected`, also requires the certificate to be about exactly
/// those sources, (path, digest) pair for pair, and about exactly the IR they lower to, byte for
/// byte.
pub fn check(bytes: &[u8], expected: Option<&Expected>) -> Report {
    check_within(bytes, expected, u64::MAX)
}

/// [`check`], refusing as invalid, before any exploration, a certificate that declares more
/// than `max_states` states in all ([`Body::declared_states`]): the auditor's bound on the
/// kernel's work.
pub fn check_within(bytes: &[u8], expected: Option<&Expected>, max_states: u64) -> Report {
    let body = match cert::decode(bytes) {
        Ok(b) => b,
        Err(e) => return Report::invalid(e.to_string()),
    };
    let ir = cert::ir_bytes(&body.ir);
    if cert::sha256(&ir) != body.ir_sha256 {
        return Report::invalid("the IR's digest does not match the IR".into());
    }
    if let Some(want) = expected {
        if let Err(why) = same_sources(&body.sources, want.sources) {
            return Report::invalid(why);
        }
        if ir != want.ir {
            return Report::invalid(
                "the certificate's IR is not the IR the given sources lower to".into(),
            );
        }
    }
    let declared = body.declared_states();
    if declared > max_states {
        return Report::invalid(format!(
            "the certificate declares {declared} states, more than the {max_states} the check allows (a bound: allow more to check it)"
        ));
    }
    let budget = Budget {
        limit: work_limit(bytes.len(), declared),
        used: AtomicU64::new(0),
    };
    let mut report = check_body(&body, &budget, cert::sha256(bytes));
    report.work = budget.used.load(Ordering::Relaxed);
    report.work_limit = budget.limit;
    if budget.exhausted() {
        let mut r = Report::invalid(format!(
            "checking it takes more work than the kernel's limit for a certificate of {} bytes declaring {declared} states ({} units)",
            bytes.len(),
            budget.limit
        ));
        r.network = report.network;
        (r.work, r.work_limit) = (report.work, report.work_limit);
        return r;
    }
    report
}

/// A source path as the kernel compares it: as written, but for `.` components and repeated
/// separators.
pub fn normal_path(p: &str) -> String {
    let parts: Vec<&str> = p
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let lead = if p.starts_with('/') { "/" } else { "" };
    format!("{lead}{}", parts.join("/"))
}

/// The certificate's sources must be the given ones, (path, digest) pair for pair.
fn same_sources(have: &[SourceDigest], given: &[SourceDigest]) -> Result<(), String> {
    let pairs = |s: &[SourceDigest]| {
        let mut v: Vec<(String, [u8; 32])> =
            s.iter().map(|d| (normal_path(&d.path), d.sha256)).collect();
        v.sort();
        v
    };
    let (have, given) = (pairs(have), pairs(given));
    if let Some((p, d)) = have.iter().find(|x| !given.contains(x)) {
        return Err(format!(
            "the certificate names source `{p}` (SHA-256 {}), which is not among the given sources",
            cert::hex(d)
        ));
    }
    if let Some((p, _)) = given.iter().find(|x| !have.contains(x)) {
        return Err(format!(
            "the given source `{p}` is not among the certificate's sources"
        ));
    }
    if have.len() != given.len() {
        return Err("the certificate lists a source more than once".into());
    }
    Ok(())
}

fn check_body(body: &Body, budget: &Budget, digest: [u8; 32]) -> Report {
    let n = body.network as usize;
    let derived = match obligations(&body.ir, n) {
        Ok(d) if !d.is_empty() => d,
        Ok(_) => return Report::invalid("the kernel derives no obligation for it".into()),
        Err(why) => return Report::invalid(why),
    };
    let net = &body.ir.networks[n];
    let agent = &body.ir.agents[net.agent.0 as usize];
    let name = format!("{}.{}", agent.name, net.binding);
    // No one step may do more than the whole budget before it is charged.
    let sem = Semantics::new(net, agent).with_work_cap(budget.limit);
    let mut report = Report {
        network: Some(name),
        ..Report::default()
    };
    if let Some(&p) = net.unset_params.first() {
        // The scene itself is not fixed: the binding passes a parameter that has no value, so
        // the table's start is a placeholder and nothing about it is a claim about the agent.
        let param = agent.param_name(p);
        let why = format!(
            "the binding passes the agent parameter `{param}`, which has no value in this certificate"
        );
        for (oblig, _) in &derived {
            let verdict = refusal(oblig, None, "network.parameters", why.clone());
            report.obligations.push((oblig.clone(), verdict));
        }
        return report;
    }
    // The scene's states, breadth-first from its initial state.
    let mut table = Table::default();
    let closed = match table.add(&sem.initial(), None) {
        Ok(_) => close(&sem, table, body.scene, &|_| false, budget, true),
        Err(why) => Err((LIMIT, Some(0), why)),
    };
    report.scene = (closed.as_ref().ok()).map(|c| (c.table.len(), c.succ.all.len()));
    let mut runs = HandlerRuns::default();
    for (k, (oblig, kind)) in derived.iter().enumerate() {
        let verdict = match body.witnesses.get(k) {
            None => refusal(
                oblig,
                None,
                "obligations.missing",
                "the certificate has no witness for it".into(),
            ),
            Some(w) if w.obligation() != oblig => refusal(
                oblig,
                None,
                "obligations.order",
                format!("the witness in its place is for `{}`", w.obligation()),
            ),
            Some(w) => match &closed {
                Err((rule, _, why)) => refusal(oblig, None, rule, why.clone()),
                Ok(c) => check_witness(body, &sem, c, oblig, kind, w, &mut runs, budget),
            },
        };
        report.obligations.push((oblig.clone(), verdict));
    }
    if let Some(extra) = body.witnesses.get(derived.len()).map(|w| w.obligation()) {
        let why = "the kernel derives no such obligation".into();
        let verdict = refusal(extra, None, "obligations.extra", why);
        report.obligations.push((extra.to_string(), verdict));
    }
    if (report.obligations.iter()).all(|(_, v)| *v == Verdict::Proved) {
        report.admitted = Some(Admitted {
            certificate: digest,
            ir: body.ir_sha256,
            network: body.network,
        });
    }
    report
}

#[allow(clippy::too_many_arguments)]
fn check_witness(
    body: &Body,
    sem: &Semantics,
    c: &Closed,
    oblig: &str,
    kind: &Kind,
    w: &Witness,
    runs: &mut HandlerRuns,
    budget: &Budget,
) -> Verdict {
    let t = &c.table;
    match (kind, w) {
        (Kind::Frame(served), Witness::Frame { .. }) => {
            let net = &body.ir.networks[body.network as usize];
            let beliefs: Vec<_> = t.set_list.iter().collect();
            let spend = |n| budget.spend(n);
            crate::frame::check_frame(&body.ir, net, sem.agent(), served, &beliefs, oblig, &spend)
        }
        (Kind::NoDeadlock, Witness::Invariant { .. }) => check_invariant(c, oblig),
        (Kind::Live(d), Witness::Ranking { .. } | Witness::RankingExpr { .. }) => {
            // The ranks: given per state, or computed from the expression on every state.
            let ranks: Vec<u64> = match w {
                Witness::RankingExpr { expr, .. } => (0..t.len())
                    .map(|i| {
                        let mut spend = |n| budget.spend(n);
                        let rank = budget
                            .spend(t.cost(i))
                            .then(|| crate::rank::rank_within(expr, &t.state(i), &mut spend));
                        rank.flatten().unwrap_or(u64::MAX)
                    })
                    .collect(),
                Witness::Ranking { ranks, .. } => ranks.clone(),
                _ => Vec::new(),
            };
            let desire = &sem.agent().desires[*d];
            if let Some(p) = desire.unset_param() {
                // The condition's meaning depends on a value the scene does not fix. Derived
                // from the conditions: the producer's `params_used` is not trusted.
                return refusal(
                    oblig,
                    None,
                    "live.parameters",
                    format!(
                        "the desire's conditions read the agent parameter `{}`, which has no value in this certificate",
                        sem.agent().param_name(p)
                    ),
                );
            }
            let achieved = &desire.achieved;
            let reads_attention = achieved.iter().any(Cond::reads_attention);
            if reads_attention && let Some(p) = sem.agent().attention_unset_param() {
                return refusal(
                    oblig,
                    None,
                    "live.parameters",
                    format!(
                        "the desire's conditions read the attention, which an attend rule computes from the agent parameter `{}`, which has no value in this certificate",
                        sem.agent().param_name(p)
                    ),
                );
            }
            let goal_sets: Vec<bool> = (t.set_list.iter())
                .map(|b| {
                    let spend = |n| budget.spend(n);
                    // The attention each belief set gives (`docs/semantics.md`, Attention).
                    let a = if reads_attention {
                        attention_within(sem.agent(), b, &spend)
                    } else {
                        0
                    };
                    achieved.iter().any(|c| holds_within(c, b, Some(a), &spend))
                })
                .collect();
            let goal = |i: usize| goal_sets[t.states[i].1 as usize];
            match desire.fair {
                true => props::fair_ranking(sem, c, &ranks, &[0], &goal, oblig, budget),
                false => check_ranking(c, &ranks, &[0], &goal, oblig, "ranking"),
            }
        }
        (Kind::Assert(k), _) => {
            props::check_assert(sem, c, &sem.agent().asserts[*k], oblig, w, budget)
        }
        (Kind::Released(_, atom), Witness::Release { counts, ranks, .. }) => {
            // The atom arrives (the plan believed it, or it was perceived), then the abort.
            let arrive = |s: &mut State| {
                s.beliefs.insert(atom.clone());
            };
            let from = Origins {
                table: t,
                pick: &|_| true,
                prepare: &arrive,
                commands: &[Command::Abort],
                until_finished: true,
            };
            let out = outside(sem, &from, *counts, ranks, oblig, RELEASE, budget);
            runs.record(oblig, &out);
            out.0
        }
        (Kind::Abortable, Witness::Release { counts, ranks, .. }) => {
            let from = Origins {
                table: t,
                pick: &|_| true,
                prepare: &|_| {},
                commands: &[Command::Abort],
                until_finished: true,
            };
            let out = outside(sem, &from, *counts, ranks, oblig, RELEASE, budget);
            runs.record(oblig, &out);
            out.0
        }
        (
            Kind::Stoppable,
            Witness::Stoppable {
                stop,
                stop_ranks,
                after,
                after_ranks,
                ..
            },
        ) => {
            let from = Origins {
                table: t,
                pick: &|_| true,
                prepare: &|_| {},
                commands: &[Command::Stop],
                until_finished: false,
            };
            let out = outside(sem, &from, *stop, stop_ranks, oblig, STOP, budget);
            runs.record(oblig, &out);
            let (Verdict::Proved, Some((stopped, _))) = &out else {
                return out.0;
            };
            // From every state where the stop left the plan suspended: a resume, and an abort
            // (the commitment law may release a stopped intention).
            let s = &stopped.table;
            let from = Origins {
                table: s,
                pick: &|j| root_of(&s.root(j)).1,
                prepare: &|_| {},
                commands: &[Command::Resume, Command::Abort],
                // An abort from a suspended root runs under `Handling` with nothing after it
                // until the scene finishes (no command changes it): settled is finished there.
                until_finished: false,
            };
            let out = outside(sem, &from, *after, after_ranks, oblig, RESUME, budget);
            runs.record(oblig, &out);
            out.0
        }
        (Kind::TellFeasible(plan, k), Witness::TellFeasible { .. }) => {
            check_tells(c, *plan, *k, oblig)
        }
        (Kind::TellInHandler(plan, k), Witness::TellFeasible { .. }) => {
            if let Some(other) = &runs.unchecked {
                return refusal(
                    oblig,
                    None,
                    "tell.handler",
                    format!(
                        "tell {k} runs in a handler (or a plan a handler calls), and the handler runs of `{other}` were not checked: its feasibility is unproved"
                    ),
                );
            }
            if runs.bad.contains(&(*plan, *k)) {
                return refusal(
                    oblig,
                    None,
                    "tell.feasible",
                    format!(
                        "a handler run after a command from outside (where it lands, or a step after) runs tell {k} infeasibly"
                    ),
                );
            }
            check_tells(c, *plan, *k, oblig)
        }
        _ => refusal(
            oblig,
            None,
            "witness.kind",
            "the witness is of the wrong kind for this obligation".into(),
        ),
    }
}

/// Invariant: every state of the (closed) table can step or has finished.
fn check_invariant(c: &Closed, oblig: &str) -> Verdict {
    let t = &c.table;
    for i in 0..t.len() {
        if c.succ.of(i).is_empty() && !matches!(t.node(t.states[i].0), Term::Done) {
            return refusal(
                oblig,
                Some(&t.state(i)),
                "invariant.progress",
                format!("state {i} cannot step and has not finished"),
            );
        }
    }
    Verdict::Proved
}

/// Ranking: every start satisfies the goal or has a rank; each ranked state not satisfying the
/// goal can step, and every successor satisfies the goal or has a strictly smaller rank. A rank
/// of `u64::MAX` claims nothing: such a state (after the goal, say) must not be reachable from a
/// start through ranked states, which the rule above ensures. So every path from a start reaches
/// the goal within the start's rank steps.
fn check_ranking(
    c: &Closed,
    ranks: &[u64],
    starts: &[u32],
    goal: &dyn Fn(usize) -> bool,
    oblig: &str,
    rule: &'static str,
) -> Verdict {
    let t = &c.table;
    if ranks.len() != t.len() {
        let why = format!("{} ranks for {} states", ranks.len(), t.len());
        return refusal(oblig, None, "ranking.length", why);
    }
    for &i in starts {
        let i = i as usize;
        if !goal(i) && ranks[i] == u64::MAX {
            let why = format!("{rule}: start state {i} misses the goal and has no rank");
            return refusal(oblig, Some(&t.state(i)), "ranking.start", why);
        }
    }
    for i in 0..t.len() {
        if goal(i) || ranks[i] == u64::MAX {
            continue;
        }
        if c.succ.of(i).is_empty() {
            let why = format!("{rule}: state {i} misses the goal and cannot step");
            return refusal(oblig, Some(&t.state(i)), "ranking.progress", why);
        }
        for &j in c.succ.of(i) {
            let j = j as usize;
            if !goal(j) && ranks[j] >= ranks[i] {
                return refusal(
                    oblig,
                    Some(&t.state(i)),
                    "ranking.decreases",
                    format!(
                        "{rule}: state {i} (rank {}) steps to state {j} (rank {}), which misses the goal",
                        ranks[i], ranks[j]
                    ),
                );
            }
        }
    }
    Verdict::Proved
}

/// The tells the handler runs after commands from outside ran infeasibly (the explorations
/// checked so far, which come before every tell obligation in the kernel's order), and the
/// first such obligation whose exploration was not checked, if any.
#[derive(Default)]
struct HandlerRuns {
    bad: BTreeSet<(PlanId, u32)>,
    unchecked: Option<String>,
}

impl HandlerRuns {
    fn record(&mut self, oblig: &str, out: &Outcome) {
        match &out.1 {
            Some((closed, landing)) => {
                self.bad
                    .extend(closed.bad_tells.iter().map(|&(_, p, k)| (p, k)));
                self.bad.extend(landing.iter().copied());
            }
            None if self.unchecked.is_none() => self.unchecked = Some(oblig.to_string()),
            None => {}
        }
    }
}

/// What checking an exploration from outside gives: the verdict and, when its table closed,
/// the table with the tells its landings ran infeasibly.
type Outcome = (Verdict, Option<(Closed, BTreeSet<(PlanId, u32)>)>);

/// Where the commands from outside start: from each state of `table` that `pick` picks (in
/// the table's order), made ready by `prepare` (the impossible atom arrives), each command of
/// `commands` in turn lands on the scene's root.
struct Origins<'a> {
    table: &'a Table,
    pick: &'a dyn Fn(usize) -> bool,
    prepare: &'a dyn Fn(&mut State),
    commands: &'a [Command],
    /// Where the explorations end: at finished states only (an abort from any state), or at
    /// settled ones.
    until_finished: bool,
}

/// The refusal rules of one kind of exploration from outside: where it is not the size the
/// certificate declares, and the ranking's name.
type Rules = [&'static str; 2];
const RELEASE: Rules = ["release.count", "release"];
const STOP: Rules = ["stoppable.count", "stoppable"];
const RESUME: Rules = ["resumable.count", "resumable"];

/// [`crate::semantics::settled`], [`crate::semantics::suspended`] and finished of a state's
/// root term.
fn root_of(root: &Term) -> (bool, bool, bool) {
    (settled(root), suspended(root), *root == Term::Done)
}

/// Commands from outside (release, abortable, stoppable): the kernel lands each from the states
/// `from` gives and explores from there (in breadth-first order from the landings, in the order
/// they land) without going on from a settled state, requires the size the certificate
/// declares, and checks the ranks towards settling: every path from a command reaches a state
/// where no command from outside is under way. An abort from any state ends only where the
/// scene has finished: one that lands while the root is restarting itself does nothing, and
/// the restarted body is settled without the abort ever happening (`until_finished`). The
/// table, closed, comes back for the tells the handler runs ran.
fn outside(
    sem: &Semantics,
    from: &Origins,
    declared: Counts,
    ranks: &[u64],
    oblig: &str,
    rules: Rules,
    budget: &Budget,
) -> Outcome {
    let [rule_count, rule_rank] = rules;
    let mut sub = Table::default();
    let t = from.table;
    let mut starts = Vec::new();
    let mut landing_bad = BTreeSet::new();
    for i in 0..t.len() {
        if !(from.pick)(i) || !budget.spend(t.cost(i)) {
            continue;
        }
        let mut s = t.state(i);
        (from.prepare)(&mut s);
        for &command in from.commands {
            let landed = sem.command_root(&s, command);
            budget.spend(landed.work);
            // The handlers a landing starts run their first actions in it: its tells too.
            let bad = landed.effects.tells.iter().filter(|t| !t.2);
            landing_bad.extend(bad.map(|t| (t.0, t.1)));
            match sub.add(&landed.next, None) {
                Ok((j, _)) if (sub.len() as u64) <= declared.states => starts.push(j),
                Ok(_) => {
                    let why = format!(
                        "the landings alone are more than the {} states the certificate declares",
                        declared.states
                    );
                    return (refusal(oblig, None, rule_count, why), None);
                }
                Err(why) => return (refusal(oblig, Some(&s), LIMIT, why), None),
            }
        }
    }
    let until_finished = from.until_finished;
    let settled = move |t: &Term| match until_finished {
        true => root_of(t).2,
        false => root_of(t).0,
    };
    let sub = match close(sem, sub, declared, &settled, budget, true) {
        Ok(s) => s,
        Err((rule, i, why)) => {
            let rule = match rule {
                "states.count" => rule_count,
                r => r,
            };
            let at = i.map_or(String::new(), |i| format!("command-extended state {i}: "));
            return (refusal(oblig, None, rule, format!("{at}{why}")), None);
        }
    };
    let done = |i: usize| settled(&sub.table.root(i));
    let verdict = check_ranking(&sub, ranks, &starts, &done, oblig, rule_rank);
    (verdict, Some((sub, landing_bad)))
}

/// Tell feasibility: every step that runs the tell runs it feasibly.
fn check_tells(c: &Closed, plan: PlanId, k: u32, oblig: &str) -> Verdict {
    // The first such state: `bad_tells` lists them by state.
    match c.bad_tells.iter().find(|b| (b.1, b.2) == (plan, k)) {
        Some(&(i, ..)) => refusal(
            oblig,
            Some(&c.table.state(i as usize)),
            "tell.feasible",
            format!("a step from state {i} runs tell {k} infeasibly"),
        ),
        None => Verdict::Proved,
    }
}

/// Whether a set of admitted certificates covers a build: for each network `n` of `ir`, exactly
/// one admitted certificate whose IR is `ir`'s slice of `n` ([`Ir::slice`], where the network
/// is network 0), and none about anything else. On failure, every network without a
/// certificate and every certificate that does not belong, by network name.
pub fn admit_build(ir: &Ir, tokens: &[&Admitted]) -> Result<BuildAdmitted, Vec<String>> {
    let digest = cert::sha256(&cert::ir_bytes(ir));
    let name = |n: usize| {
        ir.networks.get(n).map_or_else(
            || format!("network {n}"),
            |net| {
                let agent = ir.agents.get(net.agent.0 as usize).map_or("?", |a| &a.name);
                format!("{agent}.{}", net.binding)
            },
        )
    };
    let mut problems = Vec::new();
    // Each network's slice, by digest (two networks with one slice are one question).
    let mut networks: HashMap<[u8; 32], Vec<usize>> = HashMap::new();
    for n in 0..ir.networks.len() {
        match ir.slice(n) {
            Some(s) => networks
                .entry(cert::sha256(&cert::ir_bytes(&s)))
                .or_default()
                .push(n),
            None => problems.push(format!(
                "network `{}` has no slice: an agent it names is not in the IR",
                name(n)
            )),
        }
    }
    let mut count = vec![0usize; ir.networks.len()];
    for t in tokens {
        match networks.get(&t.ir) {
            Some(ns) if t.network == 0 => ns.iter().for_each(|&n| count[n] += 1),
            _ => problems.push(format!(
                "a certificate (SHA-256 {}) is not about a network of this IR",
                cert::hex(&t.certificate)
            )),
        }
    }
    for (n, c) in count.iter().enumerate() {
        match c {
            0 => problems.push(format!("no admitted certificate for network `{}`", name(n))),
            1 => {}
            _ => problems.push(format!(
                "more than one certificate for network `{}`",
                name(n)
            )),
        }
    }
    if problems.is_empty() {
        Ok(BuildAdmitted {
            ir: digest,
            networks: ir.networks.len(),
        })
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::Mode;
    use hilbert_certificates::ir::BeliefId;

    fn thread(inst: u32, node: u32) -> Sub {
        Sub::new(Term::Thread {
            inst,
            plan: PlanId(0),
            stack: vec![NodeId(node)],
            env: vec![Value::Int(i64::from(node))],
            mode: Mode::Ready,
        })
    }

    /// `Inst(a ‖ b)` with parameters `params`, believing nothing.
    fn state(a: &Sub, b: &Sub, params: &[Value]) -> State {
        State {
            term: Term::Inst {
                inst: 0,
                plan: PlanId(0),
                params: params.into(),
                body: Sub::new(Term::Par(vec![a.clone(), b.clone()])),
            },
            beliefs: BTreeSet::new(),
        }
    }

    /// A state's number in `t`, when it has one.
    fn number_of(t: &Table, s: &State) -> Option<u32> {
        match t.find(s.clone(), None) {
            Next::Old(j) => Some(j),
            Next::New(..) | Next::Put(..) => None,
        }
    }

    /// Two states: `Inst(a ‖ b)` and `Inst(b ‖ a)`, sharing their threads.
    fn table() -> Table {
        let (a, b) = (thread(0, 1), thread(1, 2));
        let mut t = Table::default();
        assert_eq!(t.add(&state(&a, &b, &[]), None), Ok((0, true)));
        assert_eq!(t.add(&state(&b, &a, &[]), None), Ok((1, true)));
        t
    }

    #[test]
    fn states_and_terms_are_held_once_in_the_order_met() {
        let mut t = table();
        // Fresh allocations, equal to held terms: found by structure.
        let (a, b, c) = (thread(0, 1), thread(1, 2), thread(2, 3));
        assert_eq!(number_of(&t, &state(&a, &b, &[])), Some(0));
        assert_eq!(t.add(&state(&a, &b, &[]), None), Ok((0, false)));
        assert_eq!(t.nodes.len(), 6);
        let one = state(&a, &c, &[Value::Int(7)]);
        assert_eq!(number_of(&t, &one), None);
        assert_eq!(t.add(&one, None), Ok((2, true)));
        assert_eq!(t.add(&one.clone(), None), Ok((2, false)));
        // One new thread, `‖` and instance.
        assert_eq!(t.nodes.len(), 9);
        assert_eq!(number_of(&t, &one), Some(2));
        assert_eq!(t.state(2), one);
        // A state written out is found by its held children's addresses.
        assert_eq!(number_of(&t, &t.state(1)), Some(1));
        // Another field, another term.
        let other = State {
            beliefs: [Atom {
                told: None,
                belief: BeliefId(0),
                args: Vec::new(),
            }]
            .into(),
            ..one
        };
        assert_eq!(number_of(&t, &other), None);
        assert_eq!(t.add(&other, None), Ok((3, true)));
        assert_eq!(t.nodes.len(), 9);
    }

    #[test]
    fn a_state_written_out_is_found_and_a_guess_changes_nothing() {
        let t = table();
        let (a, c) = (thread(0, 1), thread(2, 3));
        let absent = state(&a, &c, &[]);
        let guesses = [None, Some(0), Some(1), Some(2), Some(5), Some(u32::MAX)];
        for g in guesses {
            for i in 0..t.len() {
                // Written out (its held children) and made afresh (equal, other allocations).
                let fresh = state(&thread(0, 1), &thread(1, 2), &[]);
                let fresh = if i == 0 {
                    fresh
                } else {
                    state(&thread(1, 2), &thread(0, 1), &[])
                };
                for s in [t.state(i), fresh] {
                    let found = t.find(s, g);
                    assert!(
                        matches!(found, Next::Old(j) if j as usize == i),
                        "{i} {g:?}"
                    );
                }
            }
            assert!(matches!(t.find(absent.clone(), g), Next::New(..)), "{g:?}");
        }
        // A held term is its guess's when it is that allocation, else found by its hash.
        assert_eq!(t.find_term(&t.nodes[0].clone(), Some(0)), Some(0));
        assert_eq!(t.find_term(&thread(0, 1), Some(0)), Some(0));
        assert_eq!(t.find_term(&thread(0, 1), Some(1)), Some(0));
    }

    /// Nodes over the same held children that differ in one own field or in their kind: a
    /// table that compared only children (or only some fields) would hold one for the other.
    #[test]
    fn nodes_over_the_same_children_differ_by_every_own_field() {
        use crate::semantics::Fault;
        use hilbert_certificates::ir::LabelId;
        let (a, b) = (thread(0, 1), thread(1, 2));
        let inst = |inst, plan, params: &[Value]| Term::Inst {
            inst,
            plan: PlanId(plan),
            params: params.into(),
            body: a.clone(),
        };
        let label = |inst, label| Term::Label {
            inst,
            label: LabelId(label),
            body: a.clone(),
            start: b.clone(),
        };
        let handling = |then| Term::Handling {
            body: a.clone(),
            then,
        };
        let mut other_env = (*a).clone();
        if let Term::Thread { env, .. } = &mut other_env {
            env[0] = Value::Int(9);
        }
        let terms = [
            inst(0, 0, &[]),
            inst(1, 0, &[]),
            inst(0, 1, &[]),
            inst(0, 0, &[Value::Int(1)]),
            inst(0, 0, &[Value::Int(2)]),
            label(0, 0),
            label(1, 0),
            label(0, 1),
            handling(After::End),
            handling(After::Suspend(b.clone())),
            handling(After::Continue(b.clone())),
            handling(After::Restart(b.clone())),
            Term::Then(a.clone(), b.clone()),
            Term::Interrupt(a.clone(), b.clone()),
            Term::Par(vec![a.clone(), b.clone()]),
            Term::Choice(vec![a.clone(), b.clone()]),
            Term::Par(vec![b.clone(), a.clone()]),
            Term::Suspended(a.clone()),
            Term::Done,
            Term::Faulted(Fault::NoArm(NodeId(0))),
            Term::Faulted(Fault::Overflow(NodeId(0))),
            other_env,
        ];
        let mut t = Table::default();
        let held: Vec<u32> = (terms.iter()).map(|x| t.hold(x, None).unwrap()).collect();
        for (i, x) in terms.iter().enumerate() {
            let same: Vec<usize> = (0..terms.len()).filter(|&j| held[j] == held[i]).collect();
            assert_eq!(same, [i], "{x:?}");
            // Found again from a fresh copy (other allocations), and by index alone.
            assert_eq!(t.find_term(&x.clone(), None), Some(held[i]), "{x:?}");
            let ks = t.kids_of(held[i]).to_vec();
            assert_eq!(t.find_node(x, &ks).0, Some(held[i]), "{x:?}");
        }
        // A node over other held children is another node: `a ‖ b` over `b, a` is `b ‖ a`.
        let mut swapped = t.kids_of(held[14]).to_vec();
        swapped.reverse();
        assert_eq!(t.find_node(&terms[14], &swapped).0, Some(held[16]));
        assert_eq!(t.find_node(&terms[14], &swapped[..1]).0, None);
    }

    /// A node over a `‖`, at any depth, is held with its `‖` as a stub (no children) and is
    /// written out whole again; no other node is.
    #[test]
    fn a_node_over_a_par_is_held_with_a_stub_and_written_out_whole() {
        fn has_par(t: &Term) -> bool {
            matches!(t, Term::Par(_)) || kids(t).any(|c| has_par(c))
        }
        let (a, b) = (thread(0, 1), thread(1, 2));
        let inner = Sub::new(Term::Par(vec![a.clone(), b.clone()]));
        let nested = state(&Sub::new(Term::Suspended(inner)), &a, &[Value::Int(3)]);
        let mut t = table();
        let (k, _) = t.add(&nested, None).unwrap();
        assert_eq!(t.state(k as usize), nested);
        assert_eq!(t.state(0), state(&a, &b, &[]));
        for i in 0..t.nodes.len() as u32 {
            let whole = t.term(i);
            assert_eq!(t.stub[i as usize], has_par(&whole), "{whole:?}");
            if let Term::Par(cs) = t.node(i) {
                assert!(cs.is_empty() && !t.kids_of(i).is_empty());
            }
            // Written out, it is found again (fresh allocations over a stub's children).
            assert_eq!(t.find_term(&whole, Some(i)), Some(i));
        }
        assert_eq!(number_of(&t, &nested), Some(k));
    }

    #[test]
    fn a_state_past_the_limits_is_not_added() {
        let mut t = table();
        let mut deep = thread(0, 1);
        for _ in 0..MAX_TERM_DEPTH {
            deep = Sub::new(Term::Suspended(deep));
        }
        let why = t.add(&state(&deep, &deep, &[]), None).unwrap_err();
        assert!(why.contains("nested") && why.contains("limit"), "{why}");
        // 2^19 threads of 3 nodes each, sharing one term: small to hold, too large written out.
        let wide = Sub::new(Term::Par(vec![thread(0, 1); 1 << 19]));
        let why = t.add(&state(&wide, &wide, &[]), None).unwrap_err();
        assert!(why.contains("nodes once written out"), "{why}");
        assert_eq!(t.len(), 2);
    }
}
