//! The certificate checks: one small rule per witness kind, each re-deriving every step it needs
//! with the reference semantics. No search: every check is a pass over the states the
//! certificate lists.
//!
//! The kernel decides what must be proved ([`obligations`]): the list comes from the IR, and
//! the certificate must carry exactly one witness for each, in that order. The states are kept
//! as the certificate's own compact table (a term index and a belief-set index per state); a
//! state is written out as a tree only while its steps are computed.

use crate::eval::{attention_within, holds_within};
use crate::semantics::{After, Atom, Fault, Mode, Params, Semantics, State, Sub, Term};
use hashbrown::HashTable;
use hilbert_certificates::cert::{
    self, AfterRec, AtomRec, Body, FaultRec, SourceDigest, StateTable, TermNode, Witness,
};
use hilbert_certificates::ir::Command;
use hilbert_certificates::ir::{
    AgentId, BeliefId, CommitmentStrategy, Cond, Ir, LabelId, Network, Node, NodeId, PatternArg,
    PlanId, Value,
};
use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasher;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

#[path = "props.rs"]
mod props;
pub use props::takers;

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
#[derive(Clone, Debug)]
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
    /// The scene's states and steps, as the kernel recomputed them, once its table closed.
    pub scene: Option<(usize, usize)>,
}

impl Report {
    fn invalid(reason: String) -> Report {
        Report {
            network: None,
            obligations: Vec::new(),
            invalid: Some(reason),
            admitted: None,
            work: 0,
            scene: None,
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
        (Some((_, b)), None) => {
            return Err(format!(
                "network {n} is the scene of `{}`, but the binding naming it is `{}`",
                net.binding, b.name
            ));
        }
        (None, _) => {
            return Err(format!(
                "no plan binding of agent `{}` names network {n}",
                agent.name
            ));
        }
        (Some(_), Some(_)) => {
            return Err(format!(
                "more than one plan binding of agent `{}` names network {n}",
                agent.name
            ));
        }
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
    for (di, d) in agent.desires.iter().enumerate() {
        if !d.reachable_by.contains(&(binding as u32)) {
            continue;
        }
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
    let served = agent
        .desires
        .iter()
        .filter(|d| d.reachable_by.contains(&(binding as u32)));
    let lowest = served.map(|d| d.priority).min();
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
    let served = (0..agent.desires.len())
        .filter(|&d| agent.desires[d].reachable_by.contains(&(binding as u32)))
        .collect();
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
    let Cond::Believes(p) = cond else {
        return None;
    };
    let args = p
        .args
        .iter()
        .map(|a| match a {
            PatternArg::Literal(l) => Some(Value::of(l)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Atom {
        told: None,
        belief: p.belief,
        args,
    })
}

/// The deepest term a state table may hold: a state is refused beyond it (a fixed limit, which
/// fails closed), so that no certificate can make the kernel's recursion overflow its stack.
pub const MAX_TERM_DEPTH: u32 = 256;

/// The largest state, once its shared terms are written out (term nodes, plus each thread's
/// stack and slots, plus its beliefs): the kernel writes one state out at a time, on each core,
/// so this bounds the memory any state can take.
pub const MAX_STATE_SIZE: u64 = 1 << 20;

/// The work the kernel does for a certificate of `bytes` bytes, at most: written-out state size
/// for every state it writes out and every step it makes, one unit per pair of offers it
/// compares and per internal action a step runs. Past it the certificate is invalid (a bound,
/// which fails closed): so a certificate of up to a megabyte is decided in seconds whatever its
/// bytes. The allowance is 192 units a byte up to 1 MiB, and one more 192 per doubling beyond,
/// since large honest tables have larger states (the 7-philosopher table uses 124 a byte;
/// `hilbert verify --format json` prints `work` and `work_limit`).
pub fn work_limit(bytes: usize) -> u64 {
    let b = bytes as u64;
    let doublings = u64::from((b >> 19).max(1).ilog2()).max(1);
    WORK_BASE.saturating_add(WORK_PER_BYTE.saturating_mul(doublings).saturating_mul(b))
}

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

/// The children of a term node, as indices into the table, in the order the canonical table
/// writes them (children before the node, left to right).
fn term_children(node: &TermNode) -> Vec<u32> {
    (0..).map_while(|k| nth_child(node, k)).collect()
}

/// A state table, checked: every index points at an earlier term or a listed atom, no term is
/// nested deeper than [`MAX_TERM_DEPTH`] and no state is larger than [`MAX_STATE_SIZE`], and the
/// table is canonical (every term, atom and state listed once, terms and atoms in first-use
/// order). States stay in this compact form; [`Table::state`] writes one out.
struct Table<'t> {
    raw: &'t StateTable,
    /// The terms' indices, hashed by their nodes' views ([`Table::hash`]); 4 bytes a term.
    terms: HashTable<u32>,
    hasher: foldhash::fast::RandomState,
    /// The parameter lists by content, and each written out once (shared by every state).
    params: FastMap<&'t [Value], u32>,
    param_lists: Vec<Params>,
    atoms: FastMap<&'t AtomRec, u32>,
    /// The distinct belief sets (atom index lists), numbered in first-use order.
    sets: FastMap<&'t [u32], u32>,
    /// Each state's belief set.
    set_of: Vec<u32>,
    /// Each belief set, in order.
    set_list: Vec<&'t [u32]>,
    index: FastMap<(u32, u32), u32>,
    size: Vec<u64>,
}

/// Terms of a table written out once and shared ([`Table::sub`]), by index: one per task of
/// the closure check, never across threads.
#[derive(Default)]
struct Made(FastMap<u32, Sub>);

impl<'t> Table<'t> {
    fn new(raw: &'t StateTable) -> Result<Table<'t>, String> {
        if raw.states.len() > u32::MAX as usize / 2 {
            return Err("the table lists more states than the kernel can number".into());
        }
        let mut depth: Vec<u32> = Vec::with_capacity(raw.terms.len());
        let mut size: Vec<u64> = Vec::with_capacity(raw.terms.len());
        let hasher = foldhash::fast::RandomState::default();
        let hash = |v: &View| hasher.hash_one(v);
        let mut terms = HashTable::with_capacity(raw.terms.len());
        let mut params = fast_map(raw.params.len());
        for (i, p) in raw.params.iter().enumerate() {
            if let Some(j) = params.insert(p.as_slice(), i as u32) {
                return Err(format!(
                    "parameter lists {j} and {i} are the same, listed twice"
                ));
            }
        }
        // Parameter lists in first-use order: the terms, in table order, use them in order.
        let mut next_params = 0usize;
        for (i, node) in raw.terms.iter().enumerate() {
            let own = match node {
                TermNode::Thread { stack, env, .. } => (stack.len() + env.len()) as u64,
                TermNode::Inst { params: p, .. } => {
                    let p = *p as usize;
                    if p > next_params || p >= raw.params.len() {
                        return Err(format!(
                            "term {i} uses parameter list {p} where the canonical table puts list {next_params}"
                        ));
                    }
                    next_params += (p == next_params) as usize;
                    raw.params[p].len() as u64
                }
                _ => 0,
            };
            let (mut d, mut n) = (1u32, 1u64 + own);
            for j in term_children(node) {
                if j as usize >= i {
                    return Err(format!(
                        "term {i} refers to term {j}, which is not earlier in the table"
                    ));
                }
                d = d.max(depth[j as usize].saturating_add(1));
                n = n.saturating_add(size[j as usize]);
            }
            if d > MAX_TERM_DEPTH {
                return Err(format!(
                    "term {i} is nested {d} deep, more than the kernel's limit of {MAX_TERM_DEPTH}"
                ));
            }
            let h = hash(&View::of(node));
            if let Some(j) = terms.find(h, |&j| View::of(&raw.terms[j as usize]) == View::of(node))
            {
                return Err(format!("terms {j} and {i} are the same term, listed twice"));
            }
            terms.insert_unique(h, i as u32, |&j| hash(&View::of(&raw.terms[j as usize])));
            depth.push(d);
            size.push(n);
        }
        if next_params != raw.params.len() {
            return Err(format!("parameter list {next_params} is used by no term"));
        }
        let mut atoms = fast_map(raw.atoms.len());
        for (i, a) in raw.atoms.iter().enumerate() {
            if let Some(j) = atoms.insert(a, i as u32) {
                return Err(format!("atoms {j} and {i} are the same atom, listed twice"));
            }
        }
        let mut table = Table {
            raw,
            terms,
            hasher,
            params,
            param_lists: raw.params.iter().map(|p| p.as_slice().into()).collect(),
            atoms,
            sets: fast_map(0),
            set_of: Vec::with_capacity(raw.states.len()),
            set_list: Vec::new(),
            index: fast_map(raw.states.len()),
            size,
        };
        // First-use order: walking the states in order, each term's children before it, left
        // to right, and each state's atoms in belief order, every term and atom must be met
        // for the first time exactly in the order the table lists it.
        let mut first = FirstUse {
            seen: vec![false; raw.terms.len()],
            next: 0,
        };
        let mut atom_seen = vec![false; raw.atoms.len()];
        let mut next_atom = 0usize;
        for (k, (t, ids)) in raw.states.iter().enumerate() {
            let Some(&n) = table.size.get(*t as usize) else {
                return Err(format!(
                    "state {k} refers to term {t}, which is not in the table"
                ));
            };
            if n.saturating_add(ids.len() as u64) > MAX_STATE_SIZE {
                return Err(format!(
                    "state {k} holds more than the kernel's limit of {MAX_STATE_SIZE} nodes once written out"
                ));
            }
            if ids.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("state {k}: its atoms are not sorted and distinct"));
            }
            if let Some(a) = ids.iter().find(|&&a| a as usize >= raw.atoms.len()) {
                return Err(format!("state {k}: atom {a} is not in the table"));
            }
            first.visit(&raw.terms, *t)?;
            let mut in_order: Vec<u32> = ids.clone();
            in_order.sort_by(|a, b| raw.atoms[*a as usize].cmp(&raw.atoms[*b as usize]));
            for a in in_order {
                if !atom_seen[a as usize] {
                    if a as usize != next_atom {
                        return Err(format!(
                            "atom {a} is first used where the canonical table puts atom {next_atom}"
                        ));
                    }
                    atom_seen[a as usize] = true;
                    next_atom += 1;
                }
            }
            let next_set = table.set_list.len() as u32;
            let set = *table.sets.entry(ids.as_slice()).or_insert(next_set);
            if set == next_set {
                table.set_list.push(ids.as_slice());
            }
            table.set_of.push(set);
            if let Some(j) = table.index.insert((*t, set), k as u32) {
                return Err(format!(
                    "states {j} and {k} are the same state, listed twice"
                ));
            }
        }
        if first.next != raw.terms.len() {
            return Err(format!("term {} is used by no state", first.next));
        }
        if next_atom != raw.atoms.len() {
            return Err(format!("atom {next_atom} is used by no state"));
        }
        Ok(table)
    }

    fn len(&self) -> usize {
        self.raw.states.len()
    }

    /// The written-out size of state `i`.
    fn cost(&self, i: usize) -> u64 {
        let (t, ids) = &self.raw.states[i];
        self.size[*t as usize] + ids.len() as u64
    }

    /// Belief set `k`, written out.
    fn beliefs_of_set(&self, k: u32) -> BTreeSet<Atom> {
        self.set_list[k as usize]
            .iter()
            .map(|&a| {
                let AtomRec { told, belief, args } = &self.raw.atoms[a as usize];
                Atom {
                    told: told.map(AgentId),
                    belief: BeliefId(*belief),
                    args: args.clone(),
                }
            })
            .collect()
    }

    /// State `i`, written out.
    fn state(&self, i: usize) -> State {
        self.state_in(i, &mut Made::default())
    }

    /// State `i`, written out: its root node anew, the rest from `made`.
    fn state_in(&self, i: usize, made: &mut Made) -> State {
        State {
            term: self.node_term(self.raw.states[i].0, made),
            beliefs: self.beliefs_of_set(self.set_of[i]),
        }
    }

    /// Term `i`, written out once in `made` and shared.
    fn sub(&self, i: u32, made: &mut Made) -> Sub {
        if let Some(t) = made.0.get(&i) {
            return t.clone();
        }
        let t = Rc::new(self.node_term(i, made));
        made.0.insert(i, t.clone());
        t
    }

    /// Term `i` written out as a node over its children's shared terms ([`Table::sub`]; every
    /// child comes earlier in the table, so this ends).
    fn node_term(&self, i: u32, made: &mut Made) -> Term {
        let mut get = |j: &u32| self.sub(*j, made);
        match &self.raw.terms[i as usize] {
            TermNode::Done => Term::Done,
            TermNode::Faulted(f) => Term::Faulted(match f {
                FaultRec::NoArm(n) => Fault::NoArm(*n),
                FaultRec::Overflow(n) => Fault::Overflow(*n),
                FaultRec::DivisionByZero(n) => Fault::DivisionByZero(*n),
                FaultRec::Diverged => Fault::Diverged,
                FaultRec::Malformed(n) => Fault::Malformed(*n),
            }),
            TermNode::Thread {
                inst,
                plan,
                stack,
                env,
                ready,
            } => Term::Thread {
                inst: *inst,
                plan: *plan,
                stack: stack.clone(),
                env: env.clone(),
                mode: if *ready { Mode::Ready } else { Mode::Running },
            },
            TermNode::Then(a, b) => Term::Then(get(a), get(b)),
            TermNode::Par(cs) => Term::Par(cs.iter().map(&mut get).collect()),
            TermNode::Choice(cs) => Term::Choice(cs.iter().map(&mut get).collect()),
            TermNode::Interrupt(a, b) => Term::Interrupt(get(a), get(b)),
            TermNode::Label {
                inst,
                label,
                body,
                start,
            } => Term::Label {
                inst: *inst,
                label: *label,
                body: get(body),
                start: get(start),
            },
            TermNode::Inst {
                inst,
                plan,
                params,
                body,
            } => Term::Inst {
                inst: *inst,
                plan: *plan,
                params: self.param_lists[*params as usize].clone(),
                body: get(body),
            },
            TermNode::Suspended(t) => Term::Suspended(get(t)),
            TermNode::Handling { body, then } => Term::Handling {
                body: get(body),
                then: match then {
                    AfterRec::End => After::End,
                    AfterRec::Suspend(t) => After::Suspend(get(t)),
                    AfterRec::Continue(t) => After::Continue(get(t)),
                    AfterRec::Restart(t) => After::Restart(get(t)),
                },
            },
        }
    }

    /// The index of a state, when the table lists it.
    fn find(&self, s: &State) -> Option<u32> {
        self.find_near(s, None, &Made::default())
    }

    /// [`Table::find`], told that `s` probably shares most of its term with table term `near`
    /// (the state a step came from): see [`Table::find_term`].
    fn find_near(&self, s: &State, near: Option<u32>, made: &Made) -> Option<u32> {
        let term = self.find_term(&s.term, near, made)?;
        let ids = s
            .beliefs
            .iter()
            .map(|a| self.atoms.get(&atom_rec(a)).copied())
            .collect::<Option<Vec<u32>>>()?;
        let mut ids = ids;
        ids.sort_unstable();
        let set = *self.sets.get(ids.as_slice())?;
        self.index.get(&(term, set)).copied()
    }

    /// The index of a written-out term, when the table lists it: its children are looked up
    /// first, then the node, compared field by field (a [`View`]) without copying it.
    ///
    /// `near` is a guess: a table term that `t` may equal, whose children (by position) are then
    /// the guesses for `t`'s children. When the node `t` makes — its fields and its children's
    /// indices — is the guess's own node, the guess is the answer without asking the map: the
    /// table lists no node twice ([`Table::new`] refuses it), so a node has one index, and the
    /// answer is the map's either way. A wrong guess costs one comparison, never a wrong index.
    ///
    /// A child that is the very shared term [`Table::sub`] made in `made` for its guess is
    /// that term: its index is the guess's, with no comparison (`made` holds it, so it is not
    /// freed and its address not reused while this runs).
    fn find_term(&self, t: &Term, near: Option<u32>, made: &Made) -> Option<u32> {
        let node = near.and_then(|h| self.raw.terms.get(h as usize));
        let guess = |k: usize| node.and_then(|n| nth_child(n, k));
        let kid = |c: &Sub, k: usize| {
            let g = guess(k);
            match g.and_then(|g| made.0.get(&g)) {
                Some(m) if Rc::ptr_eq(m, c) => g,
                _ => self.find_term(c, g, made),
            }
        };
        let mut kids: Vec<u32> = Vec::new();
        let view = match t {
            Term::Done => View::Done,
            Term::Faulted(f) => View::Faulted(fault_rec(f)),
            Term::Thread {
                inst,
                plan,
                stack,
                env,
                mode,
            } => View::Thread {
                inst: *inst,
                plan: *plan,
                stack,
                env,
                ready: *mode == Mode::Ready,
            },
            Term::Then(a, b) => View::Then(kid(a, 0)?, kid(b, 1)?),
            Term::Par(cs) | Term::Choice(cs) => {
                kids.reserve_exact(cs.len());
                for (k, c) in cs.iter().enumerate() {
                    kids.push(kid(c, k)?);
                }
                if matches!(t, Term::Par(_)) {
                    View::Par(&kids)
                } else {
                    View::Choice(&kids)
                }
            }
            Term::Interrupt(a, b) => View::Interrupt(kid(a, 0)?, kid(b, 1)?),
            Term::Label {
                inst,
                label,
                body,
                start,
            } => View::Label {
                inst: *inst,
                label: *label,
                body: kid(body, 0)?,
                start: kid(start, 1)?,
            },
            Term::Inst {
                inst,
                plan,
                params,
                body,
            } => View::Inst {
                inst: *inst,
                plan: *plan,
                params: *self.params.get(&**params)?,
                body: kid(body, 0)?,
            },
            Term::Suspended(b) => View::Suspended(kid(b, 0)?),
            Term::Handling { body, then } => View::Handling {
                body: kid(body, 0)?,
                then: match then {
                    After::End => (0, 0),
                    After::Suspend(x) => (1, kid(x, 1)?),
                    After::Continue(x) => (2, kid(x, 1)?),
                    After::Restart(x) => (3, kid(x, 1)?),
                },
            },
        };
        if let (Some(h), Some(n)) = (near, node)
            && View::of(n) == view
        {
            return Some(h);
        }
        let same = |&j: &u32| View::of(&self.raw.terms[j as usize]) == view;
        self.terms.find(self.hasher.hash_one(&view), same).copied()
    }
}

/// Child `k` of a table node, in the table's order of children (both sides of `Then` and
/// `Interrupt`, a label's body before its start, the handlers before what follows them): the
/// order [`term_children`] lists and [`Table::find_term`] visits.
fn nth_child(node: &TermNode, k: usize) -> Option<u32> {
    match node {
        TermNode::Done | TermNode::Faulted(_) | TermNode::Thread { .. } => None,
        TermNode::Par(cs) | TermNode::Choice(cs) => cs.get(k).copied(),
        TermNode::Then(a, b) | TermNode::Interrupt(a, b) => [*a, *b].get(k).copied(),
        TermNode::Label { body, start, .. } => [*body, *start].get(k).copied(),
        TermNode::Inst { body, .. } | TermNode::Suspended(body) => (k == 0).then_some(*body),
        TermNode::Handling { body, then } => match (k, then) {
            (0, _) => Some(*body),
            (1, AfterRec::Suspend(x) | AfterRec::Continue(x) | AfterRec::Restart(x)) => Some(*x),
            _ => None,
        },
    }
}

/// A fast hasher seeded at random once per process (foldhash): fast like Fx, but a hostile
/// certificate cannot choose colliding keys without knowing the seed.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

fn fast_map<K, V>(capacity: usize) -> FastMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, foldhash::fast::RandomState::default())
}

/// A table node seen through borrowed fields: a node of the table, or a written-out term whose
/// children have been numbered. Two views are equal exactly when the nodes are (the fields are
/// the same, one for one), so a term is found without building its node.
#[derive(Debug, PartialEq, Eq, Hash)]
enum View<'a> {
    Done,
    Faulted(FaultRec),
    Thread {
        inst: u32,
        plan: PlanId,
        stack: &'a [NodeId],
        env: &'a [Value],
        ready: bool,
    },
    Then(u32, u32),
    Par(&'a [u32]),
    Choice(&'a [u32]),
    Interrupt(u32, u32),
    Label {
        inst: u32,
        label: LabelId,
        body: u32,
        start: u32,
    },
    Inst {
        inst: u32,
        plan: PlanId,
        params: u32,
        body: u32,
    },
    Suspended(u32),
    /// The handlers, and what follows them: (0 end | 1 suspend | 2 continue | 3 restart, term).
    Handling {
        body: u32,
        then: (u8, u32),
    },
}

impl<'a> View<'a> {
    fn of(node: &'a TermNode) -> View<'a> {
        match node {
            TermNode::Done => View::Done,
            TermNode::Faulted(f) => View::Faulted(f.clone()),
            TermNode::Thread {
                inst,
                plan,
                stack,
                env,
                ready,
            } => View::Thread {
                inst: *inst,
                plan: *plan,
                stack,
                env,
                ready: *ready,
            },
            TermNode::Then(a, b) => View::Then(*a, *b),
            TermNode::Par(cs) => View::Par(cs),
            TermNode::Choice(cs) => View::Choice(cs),
            TermNode::Interrupt(a, b) => View::Interrupt(*a, *b),
            TermNode::Label {
                inst,
                label,
                body,
                start,
            } => View::Label {
                inst: *inst,
                label: *label,
                body: *body,
                start: *start,
            },
            TermNode::Inst {
                inst,
                plan,
                params,
                body,
            } => View::Inst {
                inst: *inst,
                plan: *plan,
                params: *params,
                body: *body,
            },
            TermNode::Suspended(b) => View::Suspended(*b),
            TermNode::Handling { body, then } => View::Handling {
                body: *body,
                then: match then {
                    AfterRec::End => (0, 0),
                    AfterRec::Suspend(t) => (1, *t),
                    AfterRec::Continue(t) => (2, *t),
                    AfterRec::Restart(t) => (3, *t),
                },
            },
        }
    }
}

/// The table's record of an atom.
pub fn atom_rec(a: &Atom) -> AtomRec {
    AtomRec {
        told: a.told.map(|j| j.0),
        belief: a.belief.0,
        args: a.args.clone(),
    }
}

/// The table's record of a fault.
pub fn fault_rec(f: &Fault) -> FaultRec {
    match f {
        Fault::NoArm(n) => FaultRec::NoArm(*n),
        Fault::Overflow(n) => FaultRec::Overflow(*n),
        Fault::DivisionByZero(n) => FaultRec::DivisionByZero(*n),
        Fault::Diverged => FaultRec::Diverged,
        Fault::Malformed(n) => FaultRec::Malformed(*n),
    }
}

/// A part of a term that a table numbers: a child term, or an instance's parameter list.
pub type Part<'a> = Result<&'a Term, &'a [Value]>;

/// The table node of a term whose children and parameter lists `number` numbers (`None` when
/// one has no number): how a term is written into a table. An instance's list is numbered after
/// its process, as the table's first-use order lists them.
pub fn term_node(t: &Term, number: &mut dyn FnMut(Part<'_>) -> Option<u32>) -> Option<TermNode> {
    let mut child = |c: &Term| number(Ok(c));
    Some(match t {
        Term::Done => TermNode::Done,
        Term::Faulted(f) => TermNode::Faulted(fault_rec(f)),
        Term::Thread {
            inst,
            plan,
            stack,
            env,
            mode,
        } => TermNode::Thread {
            inst: *inst,
            plan: *plan,
            stack: stack.clone(),
            env: env.clone(),
            ready: *mode == Mode::Ready,
        },
        Term::Then(a, b) => TermNode::Then(child(a)?, child(b)?),
        Term::Par(cs) => TermNode::Par(cs.iter().map(|c| child(c)).collect::<Option<_>>()?),
        Term::Choice(cs) => TermNode::Choice(cs.iter().map(|c| child(c)).collect::<Option<_>>()?),
        Term::Interrupt(a, b) => TermNode::Interrupt(child(a)?, child(b)?),
        Term::Label {
            inst,
            label,
            body,
            start,
        } => TermNode::Label {
            inst: *inst,
            label: *label,
            body: child(body)?,
            start: child(start)?,
        },
        Term::Inst {
            inst,
            plan,
            params,
            body,
        } => {
            let body = child(body)?;
            TermNode::Inst {
                inst: *inst,
                plan: *plan,
                params: number(Err(params))?,
                body,
            }
        }
        Term::Suspended(b) => TermNode::Suspended(child(b)?),
        Term::Handling { body, then } => TermNode::Handling {
            body: child(body)?,
            then: match then {
                After::End => AfterRec::End,
                After::Suspend(t) => AfterRec::Suspend(child(t)?),
                After::Continue(t) => AfterRec::Continue(child(t)?),
                After::Restart(t) => AfterRec::Restart(child(t)?),
            },
        },
    })
}

/// The first-use walk of a table's terms (see [`Table::new`]).
struct FirstUse {
    seen: Vec<bool>,
    next: usize,
}

impl FirstUse {
    fn visit(&mut self, terms: &[TermNode], i: u32) -> Result<(), String> {
        if self.seen[i as usize] {
            return Ok(());
        }
        for c in term_children(&terms[i as usize]) {
            self.visit(terms, c)?;
        }
        if i as usize != self.next {
            return Err(format!(
                "term {i} is first used where the canonical table puts term {}",
                self.next
            ));
        }
        self.seen[i as usize] = true;
        self.next += 1;
        Ok(())
    }
}

/// The states of a table, written out, when the table is well formed and canonical (for tools
/// and tests that read certificates; the kernel itself writes out one state at a time).
pub fn table_states(table: &StateTable) -> Result<Vec<State>, String> {
    let t = Table::new(table)?;
    Ok((0..t.len()).map(|i| t.state(i)).collect())
}

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

/// A table whose every step the kernel has recomputed: each state's successors, in the order of
/// its steps, and the tells its steps ran infeasibly.
struct Closed<'t> {
    table: Table<'t>,
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

/// States whose steps [`close`] computes at once (on every core) before looking at them.
const CLOSE_BLOCK: usize = 1 << 14;

/// Why a table is not the reachable set of its starts: the rule, the state and the reason.
type Unclosed = (&'static str, Option<usize>, String);

/// Recomputes every state's steps, requires each next state to be in the table (closure), and
/// then requires the table to be exactly the states reachable from `starts`, in breadth-first
/// order (starts first, then each state's new successors in the order of its steps). Steps are
/// computed on every core, each next state looked up as soon as it is made and dropped.
fn close<'t>(
    sem: &Semantics,
    table: Table<'t>,
    starts: &[u32],
    halt: &(dyn Fn(usize) -> bool + Sync),
    budget: &Budget,
) -> Result<Closed<'t>, Unclosed> {
    use rayon::prelude::*;
    type Steps = (Vec<u32>, Vec<(PlanId, u32)>);
    let step_of = |made: &mut Made, i: usize| -> Result<Steps, String> {
        // A state the obligation stops at has no steps in it (a command from outside settled).
        if halt(i) || !budget.spend(table.cost(i)) {
            return Ok((Vec::new(), Vec::new()));
        }
        let state = table.state_in(i, made);
        // A step changes a few threads: the rest of the next term is this state's.
        let root = table.raw.states[i].0;
        let (mut succ, mut bad) = (Vec::new(), Vec::new());
        let mut missing = None;
        sem.each_step(&state, &mut |n| budget.spend(n), &mut |step| {
            for &(p, k, ok) in &step.effects.tells {
                if !ok && !bad.contains(&(p, k)) {
                    bad.push((p, k));
                }
            }
            match table.find_near(&step.next, Some(root), made) {
                Some(j) => {
                    succ.push(j);
                    true
                }
                None => {
                    missing = Some(step.next);
                    false
                }
            }
        });
        match missing {
            Some(next) => Err(format!(
                "a step leads to a state the certificate does not list: {}",
                show_state(&next)
            )),
            None => Ok((succ, bad)),
        }
    };
    // A block of states at a time, in order, each block on every core: the first state whose
    // step leaves the table ends the check at its block, so refusing a table costs what its
    // states up to there cost (a truncated exploration's table is refused near its start).
    let mut succ = Succ::default();
    let mut bad_tells = Vec::new();
    let (mut start, mut block) = (0, 256);
    while start < table.len() {
        // Blocks double up to `CLOSE_BLOCK`: an early refusal costs at most twice its prefix.
        let end = (start + block).min(table.len());
        block = (block * 2).min(CLOSE_BLOCK);
        // Each task of at least 256 states shares the terms it writes out among its states.
        let results: Vec<Result<Steps, String>> = (start..end)
            .into_par_iter()
            .with_min_len(256)
            .map_init(Made::default, step_of)
            .collect();
        for (i, r) in (start..).zip(results) {
            let (s, b) =
                r.map_err(|why| ("invariant.closed", Some(i), format!("state {i}: {why}")))?;
            succ.all.extend_from_slice(&s);
            succ.ends.push(succ.all.len());
            bad_tells.extend(b.into_iter().map(|(p, k)| (i as u32, p, k)));
        }
        start = end;
    }
    breadth_first(&succ, starts)?;
    Ok(Closed {
        table,
        succ,
        bad_tells,
    })
}

/// Requires states `0..n` to be exactly the breadth-first order from `starts`: the starts in
/// order, then each reached state's new successors in the order of its steps.
fn breadth_first(succ: &Succ, starts: &[u32]) -> Result<(), Unclosed> {
    fn meet(j: u32, seen: &mut [bool], next: &mut usize) -> Result<(), Unclosed> {
        if seen[j as usize] {
            return Ok(());
        }
        if j as usize != *next {
            return Err((
                "states.order",
                Some(j as usize),
                format!(
                    "state {j} is listed where breadth-first order from the start puts state {next}"
                ),
            ));
        }
        seen[j as usize] = true;
        *next += 1;
        Ok(())
    }
    let mut seen = vec![false; succ.ends.len()];
    let mut next = 0usize;
    for &s in starts {
        meet(s, &mut seen, &mut next)?;
    }
    let mut head = 0;
    while head < next {
        for &j in succ.of(head) {
            meet(j, &mut seen, &mut next)?;
        }
        head += 1;
    }
    if next != succ.ends.len() {
        return Err((
            "states.reachable",
            Some(next),
            format!("state {next} cannot be reached from the start"),
        ));
    }
    Ok(())
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
    let budget = Budget {
        limit: work_limit(bytes.len()),
        used: AtomicU64::new(0),
    };
    let mut report = check_body(&body, &budget, cert::sha256(bytes));
    report.work = budget.used.load(Ordering::Relaxed);
    if budget.exhausted() {
        let mut r = Report::invalid(format!(
            "checking it takes more work than the kernel's limit for a certificate of {} bytes ({} units)",
            bytes.len(),
            budget.limit
        ));
        r.network = report.network;
        r.work = report.work;
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
    let table = match Table::new(&body.states) {
        Ok(t) => t,
        Err(e) => {
            let mut r = Report::invalid(format!("the state table is malformed: {e}"));
            r.network = Some(name);
            return r;
        }
    };
    let mut report = Report {
        network: Some(name),
        obligations: Vec::new(),
        invalid: None,
        admitted: None,
        work: 0,
        scene: None,
    };
    if let Some(&p) = net.unset_params.first() {
        // The scene itself is not fixed: the binding passes a parameter that has no value, so
        // the table's start is a placeholder and nothing about it is a claim about the agent.
        let param = agent.param_name(p);
        for (oblig, _) in &derived {
            report.obligations.push((
                oblig.clone(),
                refusal(
                    oblig,
                    None,
                    "network.parameters",
                    format!(
                        "the binding passes the agent parameter `{param}`, which has no value in this certificate"
                    ),
                ),
            ));
        }
        return report;
    }
    // State 0 is the scene's initial state, and the table is its reachable set.
    let closed = if table.len() > 0 && table.state(0) == sem.initial() {
        close(&sem, table, &[0], &|_| false, budget)
    } else {
        Err((
            "scene.initial",
            None,
            "state 0 is not the scene's initial state".into(),
        ))
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
    if body.witnesses.len() > derived.len() {
        let extra = &body.witnesses[derived.len()];
        report.obligations.push((
            extra.obligation().to_string(),
            refusal(
                extra.obligation(),
                None,
                "obligations.extra",
                "the kernel derives no such obligation".into(),
            ),
        ));
    }
    if report
        .obligations
        .iter()
        .all(|(_, v)| *v == Verdict::Proved)
    {
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
            let sets: Vec<BTreeSet<Atom>> = (0..t.set_list.len() as u32)
                .map(|k| t.beliefs_of_set(k))
                .collect();
            let beliefs: Vec<_> = sets.iter().collect();
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
            let goal_sets: Vec<bool> = (0..t.set_list.len() as u32)
                .map(|k| {
                    let b = t.beliefs_of_set(k);
                    let spend = |n| budget.spend(n);
                    // The attention each belief set gives (`docs/semantics.md`, Attention).
                    let a = if reads_attention {
                        attention_within(sem.agent(), &b, &spend)
                    } else {
                        0
                    };
                    achieved
                        .iter()
                        .any(|c| holds_within(c, &b, Some(a), &spend))
                })
                .collect();
            let goal = |i: usize| goal_sets[t.set_of[i] as usize];
            match desire.fair {
                true => props::fair_ranking(sem, c, &ranks, &[0], &goal, oblig, budget),
                false => check_ranking(c, &ranks, &[0], &goal, oblig, "ranking"),
            }
        }
        (Kind::Assert(k), _) => {
            props::check_assert(sem, c, &sem.agent().asserts[*k], oblig, w, budget)
        }
        (Kind::Released(_, atom), Witness::Release { states, ranks, .. }) => {
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
            let out = outside(sem, &from, states, ranks, oblig, RELEASE, budget);
            runs.record(oblig, &out);
            out.0
        }
        (Kind::Abortable, Witness::Release { states, ranks, .. }) => {
            let from = Origins {
                table: t,
                pick: &|_| true,
                prepare: &|_| {},
                commands: &[Command::Abort],
                until_finished: true,
            };
            let out = outside(sem, &from, states, ranks, oblig, RELEASE, budget);
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
            let out = outside(sem, &from, stop, stop_ranks, oblig, STOP, budget);
            runs.record(oblig, &out);
            let (Verdict::Proved, Some((stopped, _))) = &out else {
                return out.0;
            };
            // From every state where the stop left the plan suspended: a resume, and an abort
            // (the commitment law may release a stopped intention).
            let s = &stopped.table;
            let from = Origins {
                table: s,
                pick: &|j| root_of(s, j).1,
                prepare: &|_| {},
                commands: &[Command::Resume, Command::Abort],
                // An abort from a suspended root runs under `Handling` with nothing after it
                // until the scene finishes (no command changes it): settled is finished there.
                until_finished: false,
            };
            let out = outside(sem, &from, after, after_ranks, oblig, RESUME, budget);
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
        if c.succ.of(i).is_empty() && t.raw.terms[t.raw.states[i].0 as usize] != TermNode::Done {
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
        return refusal(
            oblig,
            None,
            "ranking.length",
            format!("{} ranks for {} states", ranks.len(), t.len()),
        );
    }
    for &i in starts {
        let i = i as usize;
        if !goal(i) && ranks[i] == u64::MAX {
            return refusal(
                oblig,
                Some(&t.state(i)),
                "ranking.start",
                format!("{rule}: start state {i} misses the goal and has no rank"),
            );
        }
    }
    for i in 0..t.len() {
        if goal(i) || ranks[i] == u64::MAX {
            continue;
        }
        if c.succ.of(i).is_empty() {
            return refusal(
                oblig,
                Some(&t.state(i)),
                "ranking.progress",
                format!("{rule}: state {i} misses the goal and cannot step"),
            );
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
type Outcome<'t> = (Verdict, Option<(Closed<'t>, BTreeSet<(PlanId, u32)>)>);

/// Where the commands from outside start: from each state of `table` that `pick` picks (in
/// the table's order), made ready by `prepare` (the impossible atom arrives), each command of
/// `commands` in turn lands on the scene's root.
struct Origins<'a> {
    table: &'a Table<'a>,
    pick: &'a dyn Fn(usize) -> bool,
    prepare: &'a dyn Fn(&mut State),
    commands: &'a [Command],
    /// Where the explorations end: at finished states only (an abort from any state), or at
    /// settled ones.
    until_finished: bool,
}

/// The refusal rules of one kind of exploration from outside: where a start is missing, where
/// the table is malformed, where it is not closed, and the ranking's name.
type Rules = [&'static str; 4];
const RELEASE: Rules = [
    "release.start",
    "release.table",
    "release.closed",
    "release",
];
const STOP: Rules = [
    "stoppable.start",
    "stoppable.table",
    "stoppable.closed",
    "stoppable",
];
const RESUME: Rules = [
    "resumable.start",
    "resumable.table",
    "resumable.closed",
    "resumable",
];

/// [`crate::semantics::settled`], [`crate::semantics::suspended`] and finished of state `i` of
/// a table, read off its root's term nodes without writing the state out.
fn root_of(t: &Table, i: usize) -> (bool, bool, bool) {
    let node = |k: u32| t.raw.terms.get(k as usize);
    match t.raw.states.get(i).and_then(|s| node(s.0)) {
        Some(TermNode::Done) => (true, false, true),
        Some(TermNode::Inst { body, .. }) => match node(*body) {
            Some(TermNode::Handling { .. }) => (false, false, false),
            Some(TermNode::Suspended(_)) => (true, true, false),
            _ => (true, false, false),
        },
        _ => (false, false, false),
    }
}

/// Commands from outside (release, abortable, stoppable): where each lands from the states
/// `from` gives is in the witness's table, which is exactly the states reachable from there
/// (in breadth-first order from them, in the order the commands land) without going on from
/// a settled state, and ranked towards settling: every path from a command reaches a state
/// where no command from outside is under way. An abort from any state ends only where the
/// scene has finished: one that lands while the root is restarting itself does nothing, and
/// the restarted body is settled without the abort ever happening (`until_finished`). The
/// table, closed, comes back for the tells the handler runs ran.
fn outside<'t>(
    sem: &Semantics,
    from: &Origins,
    table: &'t StateTable,
    ranks: &[u64],
    oblig: &str,
    rules: Rules,
    budget: &Budget,
) -> Outcome<'t> {
    let [rule_start, rule_table, rule_closed, rule_rank] = rules;
    let sub = match Table::new(table) {
        Ok(s) => s,
        Err(e) => return (refusal(oblig, None, rule_table, e), None),
    };
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
            match sub.find(&landed.next) {
                Some(j) => starts.push(j),
                None => {
                    let why = format!(
                        "the state a {command:?} from outside leads to is not in the witness"
                    );
                    return (refusal(oblig, Some(&s), rule_start, why), None);
                }
            }
        }
    }
    let settled: Vec<bool> = (0..sub.len())
        .map(|i| match from.until_finished {
            true => root_of(&sub, i).2,
            false => root_of(&sub, i).0,
        })
        .collect();
    let sub = match close(sem, sub, &starts, &|i| settled[i], budget) {
        Ok(s) => s,
        Err((rule, i, why)) => {
            let rule = match rule {
                "invariant.closed" => rule_closed,
                r => r,
            };
            let at = i.map_or(String::new(), |i| format!("command-extended state {i}: "));
            return (refusal(oblig, None, rule, format!("{at}{why}")), None);
        }
    };
    let verdict = check_ranking(&sub, ranks, &starts, &|i| settled[i], oblig, rule_rank);
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

    fn thread(inst: u32, node: u32) -> TermNode {
        TermNode::Thread {
            inst,
            plan: PlanId(0),
            stack: vec![NodeId(node)],
            env: vec![Value::Int(i64::from(node))],
            ready: true,
        }
    }

    /// Two states: `Inst(a ‖ b)` and `Inst(b ‖ a)`, sharing their threads.
    fn table() -> StateTable {
        StateTable {
            terms: vec![
                thread(0, 1),
                thread(1, 2),
                TermNode::Par(vec![0, 1]),
                TermNode::Inst {
                    inst: 0,
                    plan: PlanId(0),
                    params: 0,
                    body: 2,
                },
                TermNode::Par(vec![1, 0]),
                TermNode::Inst {
                    inst: 0,
                    plan: PlanId(0),
                    params: 0,
                    body: 4,
                },
            ],
            params: vec![vec![]],
            atoms: vec![],
            states: vec![(3, vec![]), (5, vec![])],
        }
    }

    /// `table()` with its parameter lists changed.
    fn with_lists(params: Vec<Vec<Value>>, uses: [u32; 2]) -> Result<(), String> {
        let mut raw = table();
        raw.params = params;
        for (k, u) in [3, 5].into_iter().zip(uses) {
            if let TermNode::Inst { params, .. } = &mut raw.terms[k] {
                *params = u;
            }
        }
        Table::new(&raw).map(|_| ())
    }

    #[test]
    fn parameter_lists_are_listed_once_in_first_use_order() {
        let (a, b) = (vec![Value::Int(1)], vec![Value::Int(2)]);
        assert_eq!(with_lists(vec![vec![]], [0, 0]), Ok(()));
        assert_eq!(with_lists(vec![a.clone(), b.clone()], [0, 1]), Ok(()));
        assert_eq!(
            with_lists(vec![a.clone(), b.clone()], [0, 0]).unwrap_err(),
            "parameter list 1 is used by no term"
        );
        assert!(
            with_lists(vec![a.clone(), b.clone()], [1, 0])
                .unwrap_err()
                .contains("uses parameter list 1 where the canonical table puts list 0")
        );
        assert!(
            with_lists(vec![a.clone(), a.clone()], [0, 1])
                .unwrap_err()
                .contains("listed twice")
        );
        assert!(
            with_lists(vec![a], [0, 7])
                .unwrap_err()
                .contains("uses parameter list 7")
        );
    }

    #[test]
    fn a_guess_never_changes_the_index_a_term_is_found_at() {
        let raw = table();
        let t = Table::new(&raw).expect("a well-formed table");
        // Written out anew (no shared term of the table's: every node is compared) and shared.
        let fresh = |i: u32| Rc::new(t.node_term(i, &mut Made::default()));
        let mut made = Made::default();
        let (a, b) = (fresh(0), fresh(1));
        let absent = Term::Inst {
            inst: 0,
            plan: PlanId(0),
            params: Vec::new().into(),
            body: Rc::new(Term::Par(vec![a.clone(), a.clone()])),
        };
        // A listed body under a parameter list the table does not list.
        let Term::Inst { body, .. } = t.node_term(3, &mut made) else {
            panic!("term 3 is an instance")
        };
        let other_params = Term::Inst {
            inst: 0,
            plan: PlanId(0),
            params: vec![Value::Int(5)].into(),
            body,
        };
        let terms: Vec<Term> = (0..raw.terms.len() as u32)
            .map(|i| (*fresh(i)).clone())
            .chain((0..raw.terms.len() as u32).map(|i| t.node_term(i, &mut made)))
            .chain([Term::Par(vec![b.clone(), b]), absent, other_params])
            .collect();
        let guesses: Vec<Option<u32>> = std::iter::once(None)
            .chain((0..raw.terms.len() as u32 + 2).map(Some))
            .chain([Some(u32::MAX)])
            .collect();
        for (k, term) in terms.iter().enumerate() {
            let truth = t.find_term(term, None, &made);
            // Every listed term is found at its own index; the made-up ones are not found.
            let n = raw.terms.len();
            assert_eq!(truth, (k < 2 * n).then_some((k % n) as u32), "term {k}");
            for &g in &guesses {
                assert_eq!(t.find_term(term, g, &made), truth, "term {k}, guess {g:?}");
            }
        }
    }
}
