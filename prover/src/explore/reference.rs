//! The reference explorer: breadth-first search over the kernel's reference semantics, with the
//! states themselves as keys. Deliberately simple: it is what the fast explorer is measured
//! against.

use super::{Graph, Label, Limits, StateId};
use hilbert_kernel::semantics::{Atom, Semantics, State, Term};
use std::collections::HashMap;

/// Explores from `starts` (breadth-first, so the first path found to a state is a shortest one).
/// Returns the graph and the states themselves, indexed like the graph.
pub fn explore(
    sem: &Semantics,
    starts: impl IntoIterator<Item = State>,
    limits: Limits,
    halt: bool,
) -> (Graph, Vec<State>) {
    let mut graph = Graph::default();
    let mut states: Vec<State> = Vec::new();
    let mut index: HashMap<State, StateId> = HashMap::new();
    let mut sets: HashMap<Vec<Atom>, u32> = HashMap::new();
    let mut labels: HashMap<Label, u32> = HashMap::new();
    let mut memory = super::fast::MemoryWatch::new(limits);
    let mut add = |s: State, graph: &mut Graph, states: &mut Vec<State>| -> Option<StateId> {
        if let Some(id) = index.get(&s) {
            return Some(*id);
        }
        if states.len() >= limits.max_states {
            graph.truncated = true;
            return None;
        }
        if graph.memory_stop.is_some() {
            return None;
        }
        if let Some(rss) = memory.passed() {
            graph.truncated = true;
            graph.memory_stop = Some(rss);
            return None;
        }
        let atoms: Vec<Atom> = s.beliefs.iter().cloned().collect();
        let set = *sets
            .entry(atoms.clone())
            .or_insert_with(|| graph.add_belief_set(atoms));
        let id = graph.add_state(set, s.finished(), first_fault(&s.term));
        index.insert(s.clone(), id);
        states.push(s);
        Some(id)
    };
    let mut is_start = std::collections::HashSet::new();
    for s in starts {
        if let Some(id) = add(s, &mut graph, &mut states)
            && is_start.insert(id)
        {
            graph.starts.push(id);
        }
    }
    // When the bound refuses a new state, the exploration ends there: the state being expanded
    // keeps the transitions before it, and no later state is expanded (so a bounded search
    // costs about what its states cost, however many steps each has).
    let mut next = 0;
    'search: while next < states.len() {
        let state = states[next].clone();
        // A command from outside has settled here: the exploration stops.
        let steps = match halt && hilbert_kernel::semantics::settled(&state.term) {
            true => Vec::new(),
            false => sem.steps(&state),
        };
        for step in steps {
            graph.overflow |= step.effects.overflow;
            let Some(to) = add(step.next, &mut graph, &mut states) else {
                break 'search;
            };
            let label = Label {
                event: step.event,
                added: step.effects.added,
                removed: step.effects.removed,
                tells: step.effects.tells,
            };
            let label = match labels.get(&label) {
                Some(&l) => l,
                None => {
                    let l = graph.add_label(label.clone());
                    labels.insert(label, l);
                    l
                }
            };
            graph.add_edge(StateId(next as u32), to, label);
        }
        next += 1;
    }
    (graph, states)
}

/// The first fault inside a term (a faulted thread blocks forever, whatever runs beside it).
pub fn first_fault(term: &Term) -> Option<hilbert_kernel::semantics::Fault> {
    match term {
        Term::Faulted(f) => Some(f.clone()),
        Term::Then(a, _) => first_fault(a),
        Term::Par(cs) | Term::Choice(cs) => cs.iter().find_map(|c| first_fault(c)),
        Term::Interrupt(p, q) => first_fault(p).or_else(|| first_fault(q)),
        Term::Suspended(t) => first_fault(t),
        Term::Label { body, .. } | Term::Inst { body, .. } | Term::Handling { body, .. } => {
            first_fault(body)
        }
        Term::Done | Term::Thread { .. } => None,
    }
}
