//! The fast explorer: the same state graph as [`super::reference`], computed faster.
//!
//! - **Terms are hash-consed** in an arena ([`term`]): a term is a `u32`, equal terms share
//!   one id, and a settle skips every subterm it would leave unchanged.
//! - **Control does not read beliefs**, so the steps of a control term (event, belief
//!   operations, next term) are computed once ([`sem`]) and replayed on any belief set; the
//!   replay of one step on one belief set is cached too.
//! - **Belief sets are bit vectors** over a table of the atoms met so far, interned: a state is
//!   a pair (term id, belief-set id) packed in a `u64`.
//! - **The visited set is packed**: the keys of the states in order of their ids (8 bytes a
//!   state) and an open-addressing table of `u32` ids into them.
//! - **The search is breadth-first by levels**: the states of one level are expanded in
//!   parallel (`rayon`, [`Limits::jobs`] threads) against frozen tables, then one thread
//!   numbers the new states in the order of their parents and of their steps. That is the order
//!   of the sequential breadth-first search, so ids do not depend on the thread count, and they
//!   are those of the reference explorer.

mod sem;
mod term;
mod vector;

use super::{Graph, Label, Limits, StateId};
use bitvec::prelude::{BitVec, Lsb0};
use hilbert_certificates::ir::{Agent, AgentId, BeliefId, LabelId, Network, NodeId, PlanId};
use hilbert_kernel::semantics::{self, Atom, Event, State, Term};
use rayon::prelude::*;
use sem::{AtomV, Code, EventV, LStep, Op};
use term::{After, Arena, FxMap, LOCAL, Overlay, T, Terms, Tid};
use vector::{COffer, Fire, FireKey, Layout, Need, Scratch, Visited};

/// A belief set: bit `i` is atom `i` of the atom table, with no trailing zeros.
type Bits = BitVec<u64, Lsb0>;

/// A belief operation with the atom interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum OpI {
    Believe(u32),
    Forget(u32),
    Tell {
        plan: u32,
        index: u32,
        told: u32,
        own: Option<u32>,
    },
}

/// What a step does, whatever the beliefs: its event, belief operations and overflow.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Act {
    event: EventV,
    ops: Box<[OpI]>,
    overflow: bool,
}

/// A label, with atoms interned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct LabelKey {
    event: EventV,
    added: Box<[u32]>,
    removed: Box<[u32]>,
    tells: Box<[(u32, u32, bool)]>,
}

const NONE: u32 = u32::MAX;

/// Everything the search shares between levels.
struct Global<'n> {
    code: Code<'n>,
    arena: Arena,
    /// Per global term: index into `spans` of its steps, or `NONE` if not computed yet.
    steps_of: Vec<u32>,
    spans: Vec<(u32, u32)>,
    /// Each computed step: its act and next term.
    steps: Vec<(u32, Tid)>,
    acts: Vec<Act>,
    act_index: FxMap<Act, u32>,
    atoms: Vec<AtomV>,
    atom_index: FxMap<AtomV, u32>,
    /// Belief sets by id (the same ids as the graph's belief sets).
    sets: Vec<Bits>,
    set_index: FxMap<Bits, u32>,
    /// (act, belief set) → (belief set after, graph label).
    replay: FxMap<(u32, u32), (u32, u32)>,
    labels: FxMap<LabelKey, u32>,
    visited: Visited,
    /// The keys' layout (`vector.rs`).
    layout: Layout,
    /// Per global term: index into `offer_spans` of its offers as a child of a vector state,
    /// or `NONE`.
    coffers: Vec<u32>,
    offer_spans: Vec<(u32, u32)>,
    offers: Vec<COffer>,
    /// The memoised fires of children, and the acts of rendezvous across children (by the two
    /// fires and whether the sender's slot comes first).
    fire_index: FxMap<FireKey, u32>,
    fires: Vec<Fire>,
    cross: FxMap<(u32, u32, bool), u32>,
    graph: Graph,
    /// Whether a settled state (no command from outside under way) is left unexpanded.
    halt: bool,
    /// Transitions of vector states numbered so far: put together from memoised parts, and
    /// computed by the general path.
    paths: (u64, u64),
    /// The words one state's steps may make ([`Global::expand`]).
    state_cap: usize,
    /// The memory bound, read between batches and every 1,024 new states (a batch whose
    /// states must first compute memoised parts numbers them one at a time, all of them).
    memory: MemoryWatch,
}

/// What one state's expansion found, per step.
#[derive(Clone, Copy)]
struct Found {
    /// The act, or `LOCAL` and the index of a step of the chunk's `lsteps`.
    act: u32,
    /// The next term (global or the chunk's), or with `vector` the offset of the next state's
    /// key in the chunk's `keys` (its belief set still to fill in); `NONE` when `to` is known.
    next: u32,
    vector: bool,
    /// The replay, if it was cached: (belief set, label).
    replay: (u32, u32),
    /// The state, if it was known.
    to: u32,
}

#[derive(Clone, Copy)]
enum Expansion {
    /// The steps are known: they are `found[start..end]` of the chunk.
    Known(u32, u32),
    /// The term is new: its steps are entry `k` of the chunk's computed steps.
    New(u32),
    /// A vector state one of whose memoised parts is missing (the numbering computes it).
    Miss(Need),
}

struct ChunkOut {
    arena: Arena,
    computed: Vec<(Tid, Vec<LStep>)>,
    expansions: Vec<Expansion>,
    found: Vec<Found>,
    /// The keys of the next vector states found.
    keys: Vec<u32>,
    /// Steps computed by the general path for vector states (not memoised: their root terms
    /// are not interned).
    lsteps: Vec<LStep>,
    /// When the steps of the state after the last expansion alone passed the words a state may
    /// make ([`Global::expand`]'s `state_cap`): the words they had made then.
    too_wide: Option<usize>,
}

/// The result of a fast exploration: the graph, and what is needed to rebuild the reference
/// [`State`] of any of its states.
pub struct Explored {
    /// The graph, numbered as the reference explorer numbers it.
    pub graph: Graph,
    visited: Visited,
    layout: Layout,
    /// The belief sets (kept apart from the graph, which a caller may take).
    sets: Vec<Vec<Atom>>,
    arena: Arena,
    atoms: Vec<Atom>,
    strings: Vec<String>,
    visited_bytes: usize,
    arena_bytes: usize,
    paths: (u64, u64),
}

impl Explored {
    /// How the transitions of vector states were made: (put together from memoised parts of
    /// their children, computed by the general path). See `vector.rs`.
    pub fn vector_paths(&self) -> (u64, u64) {
        self.paths
    }

    /// [`hilbert_kernel::semantics::settled`] of the state with this id, read off its term.
    pub fn settled(&self, id: StateId) -> bool {
        let key = self.visited.key(id.0);
        if key[0] != 0 {
            // The root instance, running its `‖`.
            return true;
        }
        match &self.arena.terms[key[1] as usize] {
            T::Done => true,
            T::Inst { body, .. } => !matches!(self.arena.terms[*body as usize], T::Handling { .. }),
            _ => false,
        }
    }

    /// The reference state with this id.
    pub fn state(&self, id: StateId) -> State {
        let key = self.visited.key(id.0);
        let term = if key[0] != 0 {
            let shape = self.layout.shape(key[0]);
            Term::Inst {
                inst: shape.inst,
                plan: PlanId(shape.plan),
                params: shape.params.iter().map(|&v| self.value(v)).collect(),
                body: semantics::Sub::new(Term::Par(
                    key[1..=self.layout.arity]
                        .iter()
                        .map(|&c| semantics::Sub::new(self.term(c)))
                        .collect(),
                )),
            }
        } else {
            self.term(key[1])
        };
        let set = key[self.visited.width() - 1] as usize;
        let beliefs = self.sets[set].iter().cloned().collect();
        State { term, beliefs }
    }

    /// Heap bytes of the visited set (the packed keys and the table of ids), as it stood when
    /// the exploration ended.
    pub fn visited_bytes(&self) -> usize {
        self.visited_bytes
    }

    /// Heap bytes of the term arena and its index, as they stood when the exploration ended.
    pub fn arena_bytes(&self) -> usize {
        self.arena_bytes
    }

    /// The atom table (every atom some belief set held), in order of first appearance.
    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }

    fn value(&self, v: term::V) -> hilbert_certificates::ir::Value {
        use hilbert_certificates::ir::Value;
        match v {
            term::V::Int(n) => Value::Int(n),
            term::V::Bool(b) => Value::Bool(b),
            term::V::Str(s) => Value::Str(self.strings[s as usize].clone()),
            term::V::Chan {
                instance,
                plan,
                index,
            } => Value::Chan {
                instance,
                plan: PlanId(plan),
                index,
            },
        }
    }

    fn term(&self, id: Tid) -> Term {
        let b = |id: Tid| semantics::Sub::new(self.term(id));
        match &self.arena.terms[id as usize] {
            T::Done => Term::Done,
            T::Faulted(f) => Term::Faulted(f.clone()),
            T::Thread {
                inst,
                plan,
                ready,
                stack,
                env,
                ..
            } => Term::Thread {
                inst: *inst,
                plan: PlanId(*plan),
                stack: stack.iter().map(|&n| NodeId(n)).collect(),
                env: env.iter().map(|&v| self.value(v)).collect(),
                mode: if *ready {
                    semantics::Mode::Ready
                } else {
                    semantics::Mode::Running
                },
                // No state holds a waiting thread (every command lands within its step).
            },
            T::Then(a, r) => Term::Then(b(*a), b(*r)),
            T::Par(cs) => Term::Par(cs.iter().map(|&c| b(c)).collect()),
            T::Choice(cs) => Term::Choice(cs.iter().map(|&c| b(c)).collect()),
            T::Interrupt(p, q) => Term::Interrupt(b(*p), b(*q)),
            T::Suspended(t) => Term::Suspended(b(*t)),
            T::Label {
                inst,
                label,
                body,
                start,
            } => Term::Label {
                inst: *inst,
                label: LabelId(*label),
                body: b(*body),
                start: b(*start),
            },
            T::Inst {
                inst,
                plan,
                params,
                body,
            } => Term::Inst {
                inst: *inst,
                plan: PlanId(*plan),
                params: params
                    .iter()
                    .map(|&v| self.value(v))
                    .collect::<Vec<_>>()
                    .into(),
                body: b(*body),
            },
            T::Handling { body, then } => Term::Handling {
                body: b(*body),
                then: match then {
                    After::End => semantics::After::End,
                    After::Suspend(t) => semantics::After::Suspend(b(*t)),
                    After::Continue(t) => semantics::After::Continue(b(*t)),
                    After::Restart(t) => semantics::After::Restart(b(*t)),
                },
            },
        }
    }
}

/// How many states one parallel task expands.
const CHUNK: usize = 256;

/// Chunks per thread in one batch of a level.
const BATCH_CHUNKS: usize = 4;

/// The words (see `term::words`) the overlays of one batch may make in all, some tens of MiB.
const OVERLAY_WORDS: usize = 1 << 22;

/// Explores `net` (whose agent is `agent`) from `starts`, breadth-first, with the same result
/// as [`super::reference::explore`]: the same states with the same ids, the same transitions in
/// the same order, the same truncation at `limits.max_states`.
pub fn explore(
    net: &Network,
    agent: &Agent,
    starts: impl IntoIterator<Item = State>,
    limits: Limits,
    halt: bool,
) -> Explored {
    let _ = agent;
    let mut g = Global {
        code: Code::new(net),
        arena: Arena::default(),
        steps_of: Vec::new(),
        spans: Vec::new(),
        steps: Vec::new(),
        acts: Vec::new(),
        act_index: FxMap::default(),
        atoms: Vec::new(),
        atom_index: FxMap::default(),
        sets: Vec::new(),
        set_index: FxMap::default(),
        replay: FxMap::default(),
        labels: FxMap::default(),
        visited: Visited::new(3),
        layout: Layout::new(0),
        coffers: Vec::new(),
        offer_spans: Vec::new(),
        offers: Vec::new(),
        fire_index: FxMap::default(),
        fires: Vec::new(),
        cross: FxMap::default(),
        graph: Graph::default(),
        halt,
        paths: (0, 0),
        state_cap: usize::MAX,
        memory: MemoryWatch::new(limits),
    };
    let mut imported = Vec::new();
    for s in starts {
        let term = g.import_term(&s.term);
        let mut bits = Bits::new();
        for a in &s.beliefs {
            let av = g.atom_v(a);
            let i = g.atom_id(av) as usize;
            if bits.len() <= i {
                bits.resize(i + 1, false);
            }
            bits.set(i, true);
        }
        let set = g.set_id(bits);
        imported.push((term, set));
    }
    // The layout: vectors as wide as the widest root `‖` of a start state.
    let arity = imported
        .iter()
        .filter_map(|&(t, _)| match g.arena.get(t) {
            T::Inst { body, .. } => match g.arena.get(*body) {
                T::Par(cs) => Some(cs.len()),
                _ => None,
            },
            _ => None,
        })
        .max()
        .unwrap_or(0);
    g.layout = Layout::new(arity);
    g.visited = Visited::new(g.layout.width);
    let mut is_start = std::collections::HashSet::new();
    for (term, set) in imported {
        let mut key = g.key_of(&Arena::default(), &mut Vec::new(), term);
        let w = g.layout.width;
        key[w - 1] = set;
        if let Some(id) = g.add(&key, limits) {
            let id = StateId(id);
            if is_start.insert(id) {
                g.graph.starts.push(id);
            }
        }
    }
    // The worker threads, made the first time a batch has more than one chunk: a network of a
    // few states (a project of 10,000 agents has 10,000 of them) never pays for starting them.
    let pool: std::cell::OnceCell<Option<rayon::ThreadPool>> = std::cell::OnceCell::new();
    let pool_for = |batch: usize| {
        if batch < 2 || limits.jobs == 1 {
            return None;
        }
        pool.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(limits.jobs)
                .build()
                .ok()
        })
        .as_ref()
    };
    let mut level = 0usize;
    let mut stopped = false;
    // The memory bound (`g.memory`) is read from the operating system at most every 20 ms (a
    // read of /proc costs tens of microseconds; a plan of many short levels would otherwise pay
    // it per level).
    while level < g.visited.len() && !stopped {
        let end = g.visited.len();
        // A batch of chunks at a time, so that what the expansions make (their terms and
        // steps) is numbered and dropped before the next batch: the memory of one batch, not of
        // a whole level. A chunk also stops early when its overlay has grown past its share of
        // `OVERLAY_WORDS` (wide terms); the batch is then numbered up to there, and the rest
        // expanded again. Each batch expands against the tables the previous ones left, which
        // changes only how much is found already computed, never the numbering.
        let ids: Vec<u32> = (level as u32..end as u32).collect();
        let jobs = limits.jobs.max(1);
        // Under a small memory bound, a batch's overlays are kept to a share of it too (a word
        // costs some 8 to 16 bytes with its node and index), so one batch cannot overshoot it.
        let words = OVERLAY_WORDS.min((limits.explore_memory() / 64).max(1 << 16) as usize);
        let cap = words / jobs;
        // One state's steps alone may make at most a 32nd of the exploration's share of the
        // bound in words (some 16 bytes each, on each thread): past it the exploration stops,
        // as past the bound (issue 32: the 20,000 successors of 20,000 parallel steps held 5.3
        // GB under --max-memory 256M before the resident set was read). No bound, no cap.
        let state_cap = if limits.max_memory == u64::MAX {
            usize::MAX
        } else {
            usize::try_from(limits.explore_memory() / 32 / jobs as u64)
                .unwrap_or(usize::MAX)
                .max(1 << 16)
        };
        g.state_cap = state_cap;
        let mut at = 0;
        while at < ids.len() && !stopped {
            let rest = &ids[at..];
            let batch: Vec<&[u32]> = rest.chunks(CHUNK).take(BATCH_CHUNKS * jobs).collect();
            let outs: Vec<ChunkOut> = match pool_for(batch.len()) {
                Some(pool) => {
                    let gr = &g;
                    pool.install(|| {
                        batch
                            .par_iter()
                            .map(|c| gr.expand(c, cap, state_cap))
                            .collect()
                    })
                }
                _ => batch.iter().map(|c| g.expand(c, cap, state_cap)).collect(),
            };
            for (chunk, out) in batch.iter().zip(outs) {
                let done = out.expansions.len();
                let too_wide = out.too_wide;
                if !g.number(&chunk[..done], out, limits) {
                    stopped = true;
                    break;
                }
                at += done;
                if let Some(words) = too_wide {
                    g.stop_wide(words);
                    stopped = true;
                    break;
                }
                if done < chunk.len() {
                    break;
                }
            }
            if !stopped && let Some(rss) = g.memory.passed() {
                g.graph.truncated = true;
                g.graph.memory_stop = Some(rss);
                stopped = true;
            }
        }
        level = end;
        crate::explore::PROGRESS
            .store(g.visited.len() as u64, std::sync::atomic::Ordering::Relaxed);
    }
    let visited_bytes = g.visited.heap_bytes();
    let arena_bytes = g.arena.heap_bytes();
    let code = g.code;
    let atoms = g.atoms.iter().map(|a| atom_of(&code, a)).collect();
    let sets = g.graph.belief_sets().to_vec();
    Explored {
        graph: g.graph,
        visited: g.visited,
        layout: g.layout,
        sets,
        arena: g.arena,
        atoms,
        strings: code.strings,
        visited_bytes,
        arena_bytes,
        paths: g.paths,
    }
}

/// Whether the process's resident set has passed an exploration's share of `--max-memory`.
pub(crate) struct MemoryWatch {
    budget: Option<u64>,
    last: Option<std::time::Instant>,
}

impl MemoryWatch {
    pub(crate) fn new(limits: Limits) -> MemoryWatch {
        MemoryWatch {
            budget: (limits.max_memory != u64::MAX).then(|| limits.explore_memory()),
            last: None,
        }
    }

    /// The resident set, if it is over the budget (read at most every 20 ms).
    pub(crate) fn passed(&mut self) -> Option<u64> {
        let budget = self.budget?;
        let now = std::time::Instant::now();
        if self
            .last
            .is_some_and(|t| now.duration_since(t) < std::time::Duration::from_millis(20))
        {
            return None;
        }
        self.last = Some(now);
        crate::memory::resident().filter(|&rss| rss > budget)
    }
}

fn atom_of(code: &Code, a: &AtomV) -> Atom {
    Atom {
        told: a.told.map(AgentId),
        belief: BeliefId(a.belief),
        args: a.args.iter().map(|&v| code.value_of_v(v)).collect(),
    }
}

impl Global<'_> {
    /// [`hilbert_kernel::semantics::settled`] of a global term.
    fn settled(&self, term: Tid) -> bool {
        match self.arena.get(term) {
            T::Done => true,
            T::Inst { body, .. } => !matches!(self.arena.get(*body), T::Handling { .. }),
            _ => false,
        }
    }

    /// Stops the exploration at a state whose steps alone made `words` words, past the share of
    /// the memory bound one state may make.
    fn stop_wide(&mut self, words: usize) {
        self.graph.truncated = true;
        self.graph.memory_stop = Some(crate::memory::resident().unwrap_or(0));
        self.graph.wide_state = Some(words as u64);
    }

    /// Adds the state with this key unless it is known; `None` when the bound stops it.
    fn add(&mut self, key: &[u32], limits: Limits) -> Option<u32> {
        if let Some(id) = self.visited.find(key) {
            return Some(id);
        }
        if self.visited.len() >= limits.max_states {
            self.graph.truncated = true;
            return None;
        }
        if self.visited.len().is_multiple_of(1024)
            && let Some(rss) = self.memory.passed()
        {
            self.graph.truncated = true;
            self.graph.memory_stop = Some(rss);
            return None;
        }
        let (done, fault) = if key[0] != 0 {
            // The root instance running its `‖`: the first fault is its children's first.
            let cs = &key[1..=self.layout.arity];
            let fault = cs.iter().find_map(|&c| self.arena.meta(c).fault.clone());
            (false, fault)
        } else {
            let meta = self.arena.meta(key[1]);
            (meta.done, meta.fault.clone())
        };
        let id = self.visited.add(key);
        self.graph
            .add_state(key[self.layout.width - 1], done, fault);
        Some(id)
    }

    /// The key of term `t` (global, or of `local` when marked `LOCAL`) with belief set 0:
    /// a vector state when it is the root instance running a `‖` of the layout's arity (its
    /// children imported, not it), else the term imported.
    fn key_of(&mut self, local: &Arena, memo: &mut Vec<Tid>, t: Tid) -> Vec<u32> {
        let net = self.code.net;
        let view = term::View {
            global: &self.arena,
            local,
        };
        let split = self
            .layout
            .split(&view, t)
            .map(|(shape, cs)| (shape, cs.to_vec()));
        match split {
            Some((shape, cs)) => {
                let mut key = Vec::with_capacity(self.layout.width);
                key.push(self.layout.intern(shape));
                for c in cs {
                    key.push(self.arena.import(net, local, c, memo));
                }
                key.push(0);
                key
            }
            None => {
                let g = self.arena.import(net, local, t, memo);
                let mut key = vec![0, g];
                key.resize(self.layout.width, 0);
                key
            }
        }
    }

    fn atom_v(&mut self, a: &Atom) -> AtomV {
        AtomV {
            told: a.told.map(|j| j.0),
            belief: a.belief.0,
            args: a.args.iter().map(|v| self.code.v_of_value(v)).collect(),
        }
    }

    fn atom_id(&mut self, a: AtomV) -> u32 {
        if let Some(&i) = self.atom_index.get(&a) {
            return i;
        }
        let i = self.atoms.len() as u32;
        self.atoms.push(a.clone());
        self.atom_index.insert(a, i);
        i
    }

    fn set_id(&mut self, mut bits: Bits) -> u32 {
        let len = bits.last_one().map_or(0, |i| i + 1);
        bits.truncate(len);
        if let Some(&i) = self.set_index.get(&bits) {
            return i;
        }
        let mut atoms: Vec<Atom> = bits
            .iter_ones()
            .map(|i| atom_of(&self.code, &self.atoms[i]))
            .collect();
        atoms.sort();
        let i = self.graph.add_belief_set(atoms);
        self.sets.push(bits.clone());
        self.set_index.insert(bits, i);
        i
    }

    fn import_term(&mut self, t: &Term) -> Tid {
        let net = self.code.net;
        let t = match t {
            Term::Done => T::Done,
            Term::Faulted(f) => T::Faulted(f.clone()),
            Term::Thread {
                inst,
                plan,
                stack,
                env,
                mode,
            } => T::Thread {
                inst: *inst,
                plan: plan.0,
                ready: *mode == semantics::Mode::Ready,
                wait: match mode {
                    semantics::Mode::Waiting(n) => *n,
                    _ => 0,
                },
                stack: stack.iter().map(|n| n.0).collect(),
                env: env.iter().map(|v| self.code.v_of_value(v)).collect(),
            },
            Term::Then(a, r) => {
                let a = self.import_term(a);
                T::Then(a, self.import_term(r))
            }
            Term::Par(cs) => T::Par(cs.iter().map(|c| self.import_term(c)).collect()),
            Term::Choice(cs) => T::Choice(cs.iter().map(|c| self.import_term(c)).collect()),
            Term::Interrupt(p, q) => {
                let p = self.import_term(p);
                T::Interrupt(p, self.import_term(q))
            }
            Term::Suspended(b) => T::Suspended(self.import_term(b)),
            Term::Label {
                inst,
                label,
                body,
                start,
            } => {
                let body = self.import_term(body);
                T::Label {
                    inst: *inst,
                    label: label.0,
                    body,
                    start: self.import_term(start),
                }
            }
            Term::Inst {
                inst,
                plan,
                params,
                body,
            } => {
                let params = params.iter().map(|v| self.code.v_of_value(v)).collect();
                T::Inst {
                    inst: *inst,
                    plan: plan.0,
                    params,
                    body: self.import_term(body),
                }
            }
            Term::Handling { body, then } => {
                let body = self.import_term(body);
                let then = match then {
                    semantics::After::End => After::End,
                    semantics::After::Suspend(s) => After::Suspend(self.import_term(s)),
                    semantics::After::Continue(s) => After::Continue(self.import_term(s)),
                    semantics::After::Restart(s) => After::Restart(self.import_term(s)),
                };
                T::Handling { body, then }
            }
        };
        self.arena.intern(net, t)
    }

    /// Expands the states `ids` against the frozen tables (run in parallel).
    /// A chunk stops before a state once its overlay holds `cap` words, and at a state whose
    /// steps alone make more than `state_cap` ([`ChunkOut::too_wide`]).
    fn expand(&self, ids: &[u32], cap: usize, state_cap: usize) -> ChunkOut {
        let mut ar = Overlay {
            global: &self.arena,
            local: Arena::default(),
        };
        let mut out = ChunkOut {
            arena: Arena::default(),
            computed: Vec::new(),
            expansions: Vec::with_capacity(ids.len()),
            found: Vec::with_capacity(ids.len() * 8),
            keys: Vec::new(),
            lsteps: Vec::new(),
            too_wide: None,
        };
        let mut seen: FxMap<Tid, usize> = FxMap::default();
        let mut sc = Scratch::default();
        let mut buf = Vec::with_capacity(self.layout.width);
        let w = self.layout.width;
        for &id in ids {
            // The next vectors' slots count as words too (a wide `‖` makes a slot per child
            // for each of its children's steps).
            if ar.local.words + out.keys.len() > cap && !out.expansions.is_empty() {
                break;
            }
            let key = self.visited.key(id);
            let at = out.found.len() as u32;
            if key[0] != 0 {
                // A vector state: settled (its root instance runs its `‖`).
                if self.halt {
                    out.expansions.push(Expansion::Known(at, at));
                    continue;
                }
                let (keys, lsteps) = (out.keys.len(), out.lsteps.len());
                match self.vsteps(&mut ar, key, &mut out, &mut sc, state_cap) {
                    Ok(()) => out
                        .expansions
                        .push(Expansion::Known(at, out.found.len() as u32)),
                    Err(Need::Wide(words)) => {
                        out.found.truncate(at as usize);
                        out.keys.truncate(keys);
                        out.lsteps.truncate(lsteps);
                        out.too_wide = Some(words);
                        break;
                    }
                    Err(need) => {
                        out.found.truncate(at as usize);
                        out.keys.truncate(keys);
                        out.lsteps.truncate(lsteps);
                        out.expansions.push(Expansion::Miss(need));
                    }
                }
                continue;
            }
            let term = key[1];
            let set = key[w - 1];
            if self.halt && self.settled(term) {
                // A command from outside has settled here: the exploration stops.
                out.expansions.push(Expansion::Known(at, at));
                continue;
            }
            let span = self.steps_of.get(term as usize).copied().unwrap_or(NONE);
            if span != NONE {
                let (start, len) = self.spans[span as usize];
                for &(act, next) in &self.steps[start as usize..(start + len) as usize] {
                    let replay = self.replay.get(&(act, set)).copied();
                    let mut to = NONE;
                    if let Some((after, _)) = replay
                        && self.layout.key_into(&self.arena, next, &mut buf)
                    {
                        buf[w - 1] = after;
                        to = self.visited.find(&buf).unwrap_or(NONE);
                    }
                    out.found.push(Found {
                        act,
                        next,
                        vector: false,
                        replay: replay.unwrap_or((NONE, NONE)),
                        to,
                    });
                }
                out.expansions
                    .push(Expansion::Known(at, out.found.len() as u32));
            } else {
                let k = match seen.get(&term) {
                    Some(&k) => k,
                    None => match self.code.steps(&mut ar, term, state_cap) {
                        Some(steps) => {
                            out.computed.push((term, steps));
                            seen.insert(term, out.computed.len() - 1);
                            out.computed.len() - 1
                        }
                        None => {
                            out.too_wide = Some(ar.local.words);
                            break;
                        }
                    },
                };
                out.expansions.push(Expansion::New(k as u32));
            }
        }
        out.arena = ar.local;
        out
    }

    /// Records the steps computed by a chunk, then numbers the successors of its states in
    /// order (run sequentially). Returns `false` when the bound refused a new state: the
    /// exploration ends there (the state being numbered keeps the transitions before it).
    fn number(&mut self, ids: &[u32], out: ChunkOut, limits: Limits) -> bool {
        let net = self.code.net;
        let w = self.layout.width;
        let mut memo = Vec::new();
        let mut spans_of_computed = Vec::with_capacity(out.computed.len());
        for (term, steps) in &out.computed {
            if self.steps_of.len() <= *term as usize {
                self.steps_of
                    .resize(self.arena.terms.len().max(*term as usize + 1), NONE);
            }
            if self.steps_of[*term as usize] == NONE {
                let start = self.steps.len() as u32;
                for st in steps {
                    let next = self.arena.import(net, &out.arena, st.next, &mut memo);
                    debug_assert_eq!(next & LOCAL, 0);
                    let act = self.act_id(st);
                    self.steps.push((act, next));
                }
                self.spans.push((start, steps.len() as u32));
                self.steps_of[*term as usize] = (self.spans.len() - 1) as u32;
            }
            spans_of_computed.push(self.steps_of[*term as usize]);
        }
        let lacts: Vec<u32> = out.lsteps.iter().map(|st| self.act_id(st)).collect();
        let mut fresh = Vec::new();
        for (&from, &exp) in ids.iter().zip(&out.expansions) {
            let set = self.visited.key(from)[w - 1];
            let found: &[Found] = match exp {
                Expansion::Known(a, b) => &out.found[a as usize..b as usize],
                Expansion::New(k) => {
                    let (start, len) = self.spans[spans_of_computed[k as usize] as usize];
                    fresh.clear();
                    fresh.extend(
                        self.steps[start as usize..(start + len) as usize]
                            .iter()
                            .map(|&(act, next)| Found {
                                act,
                                next,
                                vector: false,
                                replay: (NONE, NONE),
                                to: NONE,
                            }),
                    );
                    &fresh
                }
                Expansion::Miss(mut need) => {
                    // Compute the missing parts here, then expand the state again.
                    loop {
                        self.supply(need);
                        let again = self.expand(&[from], usize::MAX, self.state_cap);
                        if let Some(words) = again.too_wide {
                            self.stop_wide(words);
                            return false;
                        }
                        match again.expansions[0] {
                            Expansion::Miss(n) => need = n,
                            _ => {
                                if !self.number(&[from], again, limits) {
                                    return false;
                                }
                                break;
                            }
                        }
                    }
                    continue;
                }
            };
            for &f in found {
                let act = if f.act & LOCAL != 0 {
                    lacts[(f.act & !LOCAL) as usize]
                } else {
                    f.act
                };
                self.graph.overflow |= self.acts[act as usize].overflow;
                self.paths.0 += f.vector as u64;
                self.paths.1 += (f.act & LOCAL != 0) as u64;
                let (after, label) = if f.replay.0 == NONE {
                    self.replay_act(act, set)
                } else {
                    f.replay
                };
                let to = if f.to != NONE {
                    f.to
                } else {
                    let mut key = if f.vector {
                        out.keys[f.next as usize..f.next as usize + w].to_vec()
                    } else {
                        self.key_of(&out.arena, &mut memo, f.next)
                    };
                    key[w - 1] = after;
                    match self.add(&key, limits) {
                        Some(to) => to,
                        None => return false,
                    }
                };
                self.graph.add_edge(StateId(from), StateId(to), label);
            }
        }
        true
    }

    /// The interned form of a belief operation.
    fn op_id(&mut self, op: &Op) -> OpI {
        match op {
            Op::Believe(a) => OpI::Believe(self.atom_id(a.clone())),
            Op::Forget(a) => OpI::Forget(self.atom_id(a.clone())),
            Op::Tell {
                plan,
                index,
                told,
                own,
            } => OpI::Tell {
                plan: *plan,
                index: *index,
                told: self.atom_id(told.clone()),
                own: own.as_ref().map(|o| self.atom_id(o.clone())),
            },
        }
    }

    /// The id of an act.
    fn act_of(&mut self, event: EventV, ops: Box<[OpI]>, overflow: bool) -> u32 {
        let act = Act {
            event,
            ops,
            overflow,
        };
        if let Some(&i) = self.act_index.get(&act) {
            return i;
        }
        let i = self.acts.len() as u32;
        self.acts.push(act.clone());
        self.act_index.insert(act, i);
        i
    }

    fn act_id(&mut self, st: &LStep) -> u32 {
        let ops = st.ops.iter().map(|op| self.op_id(op)).collect();
        self.act_of(st.event, ops, st.overflow)
    }

    /// Replays an act on a belief set: the set after, and the label of the transition.
    fn replay_act(&mut self, act: u32, set: u32) -> (u32, u32) {
        if let Some(&r) = self.replay.get(&(act, set)) {
            return r;
        }
        let mut bits = self.sets[set as usize].clone();
        let get = |b: &Bits, i: u32| b.get(i as usize).is_some_and(|x| *x);
        let put = |b: &mut Bits, i: u32, v: bool| {
            if b.len() <= i as usize {
                b.resize(i as usize + 1, false);
            }
            b.set(i as usize, v);
        };
        let (mut added, mut removed, mut tells) = (Vec::new(), Vec::new(), Vec::new());
        let a = &self.acts[act as usize];
        for op in a.ops.iter() {
            match *op {
                OpI::Believe(x) => {
                    if !get(&bits, x) {
                        put(&mut bits, x, true);
                        added.push(x);
                    }
                }
                OpI::Forget(x) => {
                    if get(&bits, x) {
                        put(&mut bits, x, false);
                        removed.push(x);
                    }
                }
                OpI::Tell {
                    plan,
                    index,
                    told,
                    own,
                } => {
                    let believes = own.is_some_and(|o| get(&bits, o));
                    let feasible = believes && !get(&bits, told);
                    tells.push((plan, index, feasible));
                    if !get(&bits, told) {
                        put(&mut bits, told, true);
                        added.push(told);
                    }
                }
            }
        }
        let key = LabelKey {
            event: a.event,
            added: added.into(),
            removed: removed.into(),
            tells: tells.into(),
        };
        let after = self.set_id(bits);
        let label = match self.labels.get(&key) {
            Some(&l) => l,
            None => {
                let label = Label {
                    event: self.event_of(key.event),
                    added: key
                        .added
                        .iter()
                        .map(|&x| atom_of(&self.code, &self.atoms[x as usize]))
                        .collect(),
                    removed: key
                        .removed
                        .iter()
                        .map(|&x| atom_of(&self.code, &self.atoms[x as usize]))
                        .collect(),
                    tells: key
                        .tells
                        .iter()
                        .map(|&(p, i, f)| (PlanId(p), i, f))
                        .collect(),
                };
                let l = self.graph.add_label(label);
                self.labels.insert(key, l);
                l
            }
        };
        self.replay.insert((act, set), (after, label));
        (after, label)
    }

    fn event_of(&self, e: EventV) -> Event {
        match e {
            EventV::Tau { inst } => Event::Tau { inst },
            EventV::Sync {
                sender,
                receiver,
                chan,
                value,
            } => Event::Sync {
                sender,
                receiver,
                chan: self.code.value_of_v(chan),
                value: self.code.value_of_v(value),
            },
        }
    }
}
