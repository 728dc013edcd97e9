//! Exploring plan networks: every state a scene can reach, as a [`Graph`] the obligations are
//! decided on.
//!
//! [`reference`] explores with the kernel's reference semantics, one state at a time; it is the
//! yardstick the fast explorer is compared with (same states, same transitions, same verdicts).

pub mod reference;

use hilbert_certificates::ir::{Network, PlanId, Value};
use hilbert_kernel::semantics::{Atom, Event, Fault};

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
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_states: 10_000_000,
            jobs: 0,
        }
    }
}

/// One transition: where it goes, what happened and what it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The state it leads to.
    pub to: StateId,
    /// The event.
    pub event: Event,
    /// Atoms added.
    pub added: Vec<Atom>,
    /// Atoms removed.
    pub removed: Vec<Atom>,
    /// Tells executed: plan, number, feasible.
    pub tells: Vec<(PlanId, u32, bool)>,
}

/// The reachable state graph of a network from some start states.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// The start states (the scene's initial state, or the states an abort leads to).
    pub starts: Vec<StateId>,
    /// Each state's outgoing transitions.
    pub succ: Vec<Vec<Edge>>,
    /// Each state's beliefs, sorted.
    pub beliefs: Vec<Vec<Atom>>,
    /// Whether each state has finished.
    pub finished: Vec<bool>,
    /// States where a thread faulted, with the fault.
    pub faults: Vec<(StateId, Fault)>,
    /// Whether exploration stopped at `max_states` (the graph is then a prefix).
    pub truncated: bool,
    /// Whether an integer passed its bound somewhere.
    pub overflow: bool,
}

impl Graph {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.succ.len()
    }

    /// Whether there are no states.
    pub fn is_empty(&self) -> bool {
        self.succ.is_empty()
    }

    /// Number of transitions.
    pub fn transitions(&self) -> usize {
        self.succ.iter().map(Vec::len).sum()
    }

    /// Whether `s` can move or has finished.
    pub fn progress(&self, s: StateId) -> bool {
        self.finished[s.0 as usize] || !self.succ[s.0 as usize].is_empty()
    }

    /// The fault at `s`, if a thread faulted there.
    pub fn fault(&self, s: StateId) -> Option<&Fault> {
        self.faults.iter().find(|(t, _)| *t == s).map(|(_, f)| f)
    }
}

/// How a step is shown to a person: which process did what.
pub fn describe_event(net: &Network, event: &Event) -> (String, String) {
    let name = |inst: u32| {
        net.instances
            .get(inst as usize)
            .map_or_else(|| "?".to_string(), |i| i.name.clone())
    };
    match event {
        Event::Tau { inst } if *inst == u32::MAX => ("(choice)".into(), "τ".into()),
        Event::Tau { inst } => (name(*inst), "τ".into()),
        Event::Sync {
            sender,
            receiver,
            chan,
            value,
        } => (
            format!("{} → {}", name(*sender), name(*receiver)),
            format!("{}.{}", channel_name(net, chan), show_value(net, value)),
        ),
        Event::Abort => ("(environment)".into(), format!("abort {}", name(0))),
    }
}

/// A channel's name as its plan declares it (`parts`), or a description.
pub fn channel_name(net: &Network, chan: &Value) -> String {
    match chan {
        Value::Chan {
            plan,
            index,
            instance,
            ..
        } => {
            let code = net.plan(*plan);
            let base = code
                .channels
                .get(*index as usize)
                .and_then(|(slot, _)| code.slot_names.get(slot.0 as usize))
                .cloned()
                .unwrap_or_else(|| format!("chan{index}"));
            if *instance == 0 {
                base
            } else {
                let owner = net
                    .instances
                    .get(*instance as usize)
                    .map_or("?", |i| i.name.as_str());
                format!("{owner}.{base}")
            }
        }
        other => show_value(net, other),
    }
}

/// A value as the source would write it.
pub fn show_value(net: &Network, v: &Value) -> String {
    match v {
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => format!("{s:?}"),
        Value::Chan { .. } => channel_name(net, v),
    }
}
