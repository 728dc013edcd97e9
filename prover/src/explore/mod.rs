//! Exploring plan networks: every state a scene can reach, as a [`Graph`] the obligations are
//! decided on.
//!
//! [`reference`] explores with the kernel's reference semantics, one state at a time; it is the
//! yardstick the [`fast`] explorer is compared with (same states, same transitions, same
//! verdicts). The obligations use the fast one.

pub mod fast;
pub mod reference;

use hilbert_certificates::ir::{Agent, Network, PlanId};
use hilbert_kernel::semantics::{Atom, Event, Fault, Semantics, State};
use std::hash::{Hash, Hasher};

/// States found so far by the exploration running now, updated after each breadth-first level,
/// for a progress display (the command line polls it; nothing here prints).
pub static PROGRESS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Index of a state in a [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub u32);

/// Bounds on one exploration.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stop after this many states (the exploration is then incomplete and nothing is proved).
    pub max_states: usize,
    /// Worker threads (0: all cores).
    pub jobs: usize,
    /// The whole process's resident memory, in bytes, that the build may use (`--max-memory`;
    /// `u64::MAX`: no bound). An exploration stops when the process's resident set passes
    /// [`Limits::explore_memory`], the share left after what proving, certifying and the
    /// kernel's re-check take of the same graph.
    pub max_memory: u64,
}

impl Limits {
    /// The resident set at which an exploration stops: half of `max_memory`. What follows a
    /// stopped exploration is small (its theorems are unproved without a search, and no
    /// certificate is written for it: see `NetworkCertificate::withheld`), and the other half
    /// covers the overshoot of the batch under way and the memory the next network's proof
    /// inherits; tests/hostile.rs builds under a bound and reads the process's peak.
    pub fn explore_memory(&self) -> u64 {
        self.max_memory / 2
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_states: 10_000_000,
            jobs: 0,
            max_memory: u64::MAX,
        }
    }
}

/// What a transition did: its event and effects. Transitions that did the same share one label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The event.
    pub event: Event,
    /// Atoms added.
    pub added: Vec<Atom>,
    /// Atoms removed.
    pub removed: Vec<Atom>,
    /// Tells executed: plan, number, feasible.
    pub tells: Vec<(PlanId, u32, bool)>,
}

impl Hash for Label {
    fn hash<H: Hasher>(&self, h: &mut H) {
        match &self.event {
            Event::Tau { inst } => (0u8, inst).hash(h),
            Event::Sync {
                sender,
                receiver,
                chan,
                value,
            } => (1u8, sender, receiver, chan, value).hash(h),
            Event::Abort => 2u8.hash(h),
        }
        self.added.hash(h);
        self.removed.hash(h);
        self.tells.hash(h);
    }
}

/// One transition: where it goes, and what happened on the way.
#[derive(Clone, Copy, Debug)]
pub struct Edge<'a> {
    /// The state it leads to.
    pub to: StateId,
    /// Its event and effects.
    pub label: &'a Label,
}

impl std::ops::Deref for Edge<'_> {
    type Target = Label;
    fn deref(&self) -> &Label {
        self.label
    }
}

/// The reachable state graph of a network from some start states, stored compactly: the
/// transitions of all states in one array (state `s` owns `offsets[s]..offsets[s + 1]`), labels
/// and belief sets shared between the transitions and states that have the same.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// The start states (the scene's initial state, or the states an abort leads to).
    pub starts: Vec<StateId>,
    /// Where each state's transitions begin in `targets` (states without a later entry own the
    /// transitions up to the end).
    offsets: Vec<u32>,
    /// Each transition's target.
    targets: Vec<StateId>,
    /// Each transition's label (index into `labels`).
    edge_labels: Vec<u32>,
    /// The distinct labels.
    labels: Vec<Label>,
    /// Each state's belief set (index into `belief_sets`).
    state_beliefs: Vec<u32>,
    /// The distinct belief sets, each sorted.
    belief_sets: Vec<Vec<Atom>>,
    /// Whether each state has finished.
    finished: Vec<bool>,
    /// States where a thread faulted, with the fault, by increasing state.
    pub faults: Vec<(StateId, Fault)>,
    /// Whether exploration stopped at `max_states` or `max_memory` (the graph is then a prefix).
    pub truncated: bool,
    /// When it was the memory bound that stopped it: the process's resident set then, in bytes.
    pub memory_stop: Option<u64>,
    /// When the memory bound stopped it because the steps of one state alone would have passed
    /// the share of it a state may make: the words of terms they had made then.
    pub wide_state: Option<u64>,
    /// Whether an integer passed its bound somewhere.
    pub overflow: bool,
}

impl Graph {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.state_beliefs.len()
    }

    /// Whether there are no states.
    pub fn is_empty(&self) -> bool {
        self.state_beliefs.is_empty()
    }

    /// Number of transitions.
    pub fn transitions(&self) -> usize {
        self.targets.len()
    }

    fn range(&self, s: StateId) -> std::ops::Range<usize> {
        let end = self.targets.len();
        let i = s.0 as usize;
        let a = self.offsets.get(i).map_or(end, |&o| o as usize);
        let b = self.offsets.get(i + 1).map_or(end, |&o| o as usize);
        a..b
    }

    /// The transitions from `s`, in the order the semantics lists its steps.
    pub fn succ(&self, s: StateId) -> impl ExactSizeIterator<Item = Edge<'_>> + Clone + '_ {
        self.range(s).map(move |k| Edge {
            to: self.targets[k],
            label: &self.labels[self.edge_labels[k] as usize],
        })
    }

    /// The `i`-th transition from `s`.
    pub fn edge(&self, s: StateId, i: usize) -> Edge<'_> {
        let k = self.range(s).start + i;
        Edge {
            to: self.targets[k],
            label: &self.labels[self.edge_labels[k] as usize],
        }
    }

    /// How many transitions leave `s`.
    pub fn degree(&self, s: StateId) -> usize {
        self.range(s).len()
    }

    /// The beliefs of `s`, sorted.
    pub fn beliefs(&self, s: StateId) -> &[Atom] {
        &self.belief_sets[self.state_beliefs[s.0 as usize] as usize]
    }

    /// Which of the distinct belief sets `s` has (see [`Graph::belief_sets`]).
    pub fn belief_set(&self, s: StateId) -> usize {
        self.state_beliefs[s.0 as usize] as usize
    }

    /// The distinct belief sets of the graph, each sorted.
    pub fn belief_sets(&self) -> &[Vec<Atom>] {
        &self.belief_sets
    }

    /// Whether `s` has finished.
    pub fn finished(&self, s: StateId) -> bool {
        self.finished[s.0 as usize]
    }

    /// Whether `s` can move or has finished.
    pub fn progress(&self, s: StateId) -> bool {
        self.finished(s) || self.degree(s) > 0
    }

    /// The fault at `s`, if a thread faulted there.
    pub fn fault(&self, s: StateId) -> Option<&Fault> {
        self.faults
            .binary_search_by_key(&s, |(t, _)| *t)
            .ok()
            .map(|i| &self.faults[i].1)
    }

    /// Adds a belief set (sorted) and returns its index; the caller shares equal sets.
    pub fn add_belief_set(&mut self, atoms: Vec<Atom>) -> u32 {
        self.belief_sets.push(atoms);
        (self.belief_sets.len() - 1) as u32
    }

    /// Adds a label and returns its index; the caller shares equal labels.
    pub fn add_label(&mut self, label: Label) -> u32 {
        self.labels.push(label);
        (self.labels.len() - 1) as u32
    }

    /// Adds a state with the belief set `beliefs` (an index from [`Graph::add_belief_set`]).
    pub fn add_state(&mut self, beliefs: u32, finished: bool, fault: Option<Fault>) -> StateId {
        let id = StateId(self.state_beliefs.len() as u32);
        self.state_beliefs.push(beliefs);
        self.finished.push(finished);
        if let Some(f) = fault {
            self.faults.push((id, f));
        }
        id
    }

    /// Adds a transition from `from` with the label `label` (an index from
    /// [`Graph::add_label`]). Transitions are added state by state: `from` is at least the
    /// source of every transition added before.
    pub fn add_edge(&mut self, from: StateId, to: StateId, label: u32) {
        let from = from.0 as usize;
        assert!(
            self.offsets.len() <= from + 1,
            "transitions must be added state by state"
        );
        while self.offsets.len() <= from {
            self.offsets.push(self.targets.len() as u32);
        }
        self.targets.push(to);
        self.edge_labels.push(label);
    }

    /// Heap bytes the graph holds (its arrays; the atoms inside labels and belief sets are
    /// counted by their vectors' capacity only).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.starts.capacity() * size_of::<StateId>()
            + self.offsets.capacity() * 4
            + self.targets.capacity() * size_of::<StateId>()
            + self.edge_labels.capacity() * 4
            + self.labels.capacity() * size_of::<Label>()
            + self.state_beliefs.capacity() * 4
            + self.belief_sets.capacity() * size_of::<Vec<Atom>>()
            + self.finished.capacity()
            + self.faults.capacity() * size_of::<(StateId, Fault)>()
    }
}

/// How a step is shown to a person: which process did what.
pub fn describe_event(net: &Network, event: &Event) -> (String, String) {
    match event {
        Event::Tau { inst } => net.describe_tau(*inst),
        Event::Sync {
            sender,
            receiver,
            chan,
            value,
        } => net.describe_sync(*sender, *receiver, chan, value),
        Event::Abort => (
            "(environment)".into(),
            format!("abort {}", net.instance_name(0)),
        ),
    }
}

/// Which explorer builds a graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Explorer {
    /// [`fast`]: the one the build uses.
    #[default]
    Fast,
    /// [`reference`]: the yardstick, for differential tests.
    Reference,
}

/// An explored state space: the graph, and the reference state of each of its states.
pub struct Space {
    /// The graph.
    pub graph: Graph,
    states: SpaceStates,
}

enum SpaceStates {
    Fast(Box<fast::Explored>),
    Reference(Vec<State>),
}

impl Space {
    /// Whether no command from outside is under way in the state with this id
    /// ([`hilbert_kernel::semantics::settled`]).
    pub fn settled(&self, id: StateId) -> bool {
        match &self.states {
            SpaceStates::Fast(e) => e.settled(id),
            SpaceStates::Reference(states) => {
                hilbert_kernel::semantics::settled(&states[id.0 as usize].term)
            }
        }
    }

    /// The reference state with this id.
    pub fn state(&self, id: StateId) -> State {
        match &self.states {
            SpaceStates::Fast(e) => e.state(id),
            SpaceStates::Reference(states) => states[id.0 as usize].clone(),
        }
    }
}

/// Explores `net` from `starts` with the chosen explorer.
pub fn explore_with(
    explorer: Explorer,
    net: &Network,
    agent: &Agent,
    starts: impl IntoIterator<Item = State>,
    limits: Limits,
) -> Space {
    explore_from(explorer, net, agent, starts, limits, false)
}

/// [`explore_with`] from the states commands from outside lead to (a stop, a resume, an
/// abort of the scene's plan); with `halt`, not going on from a state where no command from
/// outside is under way ([`hilbert_kernel::semantics::settled`]): such a state has no steps in
/// the graph. (An abort from any state ends only where the scene finishes, so its
/// exploration does not halt: `docs/semantics.md`, "Commands from outside".)
pub fn explore_outside(
    explorer: Explorer,
    net: &Network,
    agent: &Agent,
    starts: impl IntoIterator<Item = State>,
    limits: Limits,
    halt: bool,
) -> Space {
    explore_from(explorer, net, agent, starts, limits, halt)
}

fn explore_from(
    explorer: Explorer,
    net: &Network,
    agent: &Agent,
    starts: impl IntoIterator<Item = State>,
    limits: Limits,
    halt: bool,
) -> Space {
    match explorer {
        Explorer::Fast => {
            let mut e = fast::explore(net, agent, starts, limits, halt);
            let graph = std::mem::take(&mut e.graph);
            Space {
                graph,
                states: SpaceStates::Fast(Box::new(e)),
            }
        }
        Explorer::Reference => {
            let sem = Semantics::new(net, agent);
            let (graph, states) = reference::explore(&sem, starts, limits, halt);
            Space {
                graph,
                states: SpaceStates::Reference(states),
            }
        }
    }
}

/// The scene's initial state of `net`: the root plan called, no beliefs.
pub fn initial(net: &Network, agent: &Agent) -> State {
    Semantics::new(net, agent).initial()
}
