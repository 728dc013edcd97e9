//! Assertions (`assert` members) and weak fairness, decided on an explored graph
//! (`docs/semantics.md`, *Assertions* and *Weak fairness*): the safety patterns by a pass over
//! the states (precedence through the states before its first condition), response and
//! existence by the ranks of their certificates — where a start has none, the shortest lasso
//! or dead end that shows the property false, weakly fair when the property is.

use crate::explore::{Graph, StateId};
use crate::obligations::{Counterexample, Status, blocked_lines, cex_step, deadlock_reason};
use hilbert_certificates::ir::{Agent, Assert, Cond, Ir, Network, Property};
use hilbert_kernel::check::takers;
use hilbert_kernel::eval::{attention, holds, holds_minded};
use hilbert_kernel::semantics::Atom;
use std::collections::{BTreeSet, VecDeque};

/// Whether desire `d` is released with these beliefs and attention (`docs/frames.md` §1).
fn released(agent: &Agent, d: u32, b: &BTreeSet<Atom>, a: u32) -> bool {
    agent.desires.get(d as usize).is_none_or(|x| {
        x.achieved.iter().any(|c| holds(c, b, Some(a)))
            || (agent.commit == hilbert_certificates::ir::CommitmentStrategy::SingleMinded
                && x.impossible.iter().any(|(c, _)| holds(c, b, Some(a))))
    })
}

/// Whether a condition of an assertion holds with beliefs `b`: read with the attention they
/// give, `desires D` and `intends P` decided by the agent's rules.
pub fn holds_in(agent: &Agent, cond: &Cond, b: &BTreeSet<Atom>) -> bool {
    let a = attention(agent, b);
    let mind = |m: &Cond| match m {
        Cond::Desires(d) => !released(agent, *d, b, a),
        Cond::Intends(p) => {
            (agent.intends.iter()).any(|i| i.plan == *p && !released(agent, i.desire, b, a))
        }
        _ => false,
    };
    holds_minded(cond, b, Some(a), &mind, &|_| true)
}

/// For each distinct belief set of the graph, whether the condition holds there.
pub fn cond_sets(graph: &Graph, agent: &Agent, cond: &Cond) -> Vec<bool> {
    (graph.belief_sets().iter())
        .map(|atoms| holds_in(agent, cond, &atoms.iter().cloned().collect()))
        .collect()
}

/// Predecessor lists, one entry per edge.
fn predecessors(graph: &Graph) -> Vec<Vec<u32>> {
    let mut preds = vec![Vec::new(); graph.len()];
    for s in 0..graph.len() as u32 {
        for e in graph.succ(StateId(s)) {
            preds[e.to.0 as usize].push(s);
        }
    }
    preds
}

/// The processes of the graph: every instance that takes part in some step.
fn processes(graph: &Graph) -> Vec<u32> {
    let mut all = BTreeSet::new();
    for s in 0..graph.len() as u32 {
        for e in graph.succ(StateId(s)) {
            all.extend(takers(&e.event));
        }
    }
    all.into_iter().collect()
}

/// Ranks towards `goal` under weak fairness, the witness the kernel's fair rule checks
/// (`kernel/src/props.rs`): 0 on the goal; a state whose steps all lead to ranked states gets
/// a fresh rank above every rank so far; when none is left, a set X of unranked states and a
/// process p such that p can step in every state of X, p's steps leave X for ranked states and
/// every other step stays in X or reaches one, gets one fresh rank together (p is its helpful
/// process). States never ranked (`u64::MAX`) are those with a weakly fair path that avoids
/// the goal: a dead end, or a weakly fair cycle they reach (the sets above are greatest fixed
/// points, so a bottom component of the unranked states would be one). Each round is linear in
/// the steps per process; there are as many rounds as helpful sets, so a proof that needs many
/// of them is quadratic.
pub fn fair_ranks(graph: &Graph, goal: &dyn Fn(StateId) -> bool) -> Vec<u64> {
    let n = graph.len();
    let mut rank = vec![u64::MAX; n];
    let preds = predecessors(graph);
    let procs = processes(graph);
    // Per unranked state, its steps to states neither ranked nor the goal.
    let mut left = vec![0usize; n];
    let mut queue = Vec::new();
    for s in 0..n {
        let id = StateId(s as u32);
        if goal(id) {
            rank[s] = 0;
            continue;
        }
        left[s] = graph.succ(id).filter(|e| !goal(e.to)).count();
        if left[s] == 0 && graph.degree(id) > 0 {
            queue.push(s);
        }
    }
    // Gives the states `set` rank `r` together, then queues the unranked states whose steps
    // now all lead to ranked ones.
    let settle =
        |set: &[usize], r: u64, rank: &mut [u64], left: &mut [usize], queue: &mut Vec<usize>| {
            set.iter().for_each(|&s| rank[s] = r);
            for &s in set {
                for &p in &preds[s] {
                    let p = p as usize;
                    if rank[p] == u64::MAX {
                        left[p] -= 1;
                        if left[p] == 0 && graph.degree(StateId(p as u32)) > 0 {
                            queue.push(p);
                        }
                    }
                }
            }
        };
    let mut top = 0u64;
    loop {
        // Peel: every state whose steps all lead to ranked states, each with its own rank.
        while let Some(s) = queue.pop() {
            if rank[s] == u64::MAX {
                top += 1;
                settle(&[s], top, &mut rank, &mut left, &mut queue);
            }
        }
        // A helpful process's set, for each process in turn.
        let mut progress = false;
        for &p in &procs {
            let ranked = |t: StateId| rank[t.0 as usize] != u64::MAX;
            let takes = |e: &crate::explore::Edge| takers(&e.event).contains(&p);
            let mut inside: Vec<bool> = (0..n)
                .map(|s| {
                    let mut by_p = graph
                        .succ(StateId(s as u32))
                        .filter(|e| takes(e))
                        .peekable();
                    rank[s] == u64::MAX && by_p.peek().is_some() && by_p.all(|e| ranked(e.to))
                })
                .collect();
            // The greatest subset whose steps stay inside or reach ranked states: a state
            // that leaves it takes its predecessors inside back to be looked at again.
            let mut work: Vec<usize> = (0..n).filter(|&s| inside[s]).collect();
            while let Some(s) = work.pop() {
                let id = StateId(s as u32);
                if inside[s] && (graph.succ(id)).any(|e| !ranked(e.to) && !inside[e.to.0 as usize])
                {
                    inside[s] = false;
                    work.extend(preds[s].iter().map(|&q| q as usize).filter(|&q| inside[q]));
                }
            }
            let set: Vec<usize> = (0..n).filter(|&s| inside[s]).collect();
            if !set.is_empty() {
                top += 1;
                settle(&set, top, &mut rank, &mut left, &mut queue);
                progress = true;
            }
        }
        if !progress && queue.is_empty() {
            break;
        }
    }
    rank
}

/// Shortest paths inside `allowed`, breadth first from `from`: the first state `target` accepts
/// (a start itself, with no step), as its path's (state, edge index) pairs and that state.
fn shortest(
    graph: &Graph,
    from: &[StateId],
    allowed: &dyn Fn(StateId) -> bool,
    target: &dyn Fn(StateId) -> bool,
) -> Option<(Vec<(StateId, usize)>, StateId)> {
    let mut parent: Vec<Option<(StateId, usize)>> = vec![None; graph.len()];
    let mut seen = vec![false; graph.len()];
    let mut queue = VecDeque::new();
    for &s in from {
        if allowed(s) && !std::mem::replace(&mut seen[s.0 as usize], true) {
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        if target(s) {
            let mut path = Vec::new();
            let mut at = s;
            while let Some((p, i)) = parent[at.0 as usize] {
                path.push((p, i));
                at = p;
            }
            path.reverse();
            return Some((path, s));
        }
        for (i, e) in graph.succ(s).enumerate() {
            if allowed(e.to) && !std::mem::replace(&mut seen[e.to.0 as usize], true) {
                parent[e.to.0 as usize] = Some((s, i));
                queue.push_back(e.to);
            }
        }
    }
    None
}

/// The strongly connected components of the states `inside` accepts (Tarjan's, iterative):
/// each state's component number, `usize::MAX` outside.
fn components(graph: &Graph, inside: &dyn Fn(StateId) -> bool) -> Vec<usize> {
    let n = graph.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0usize; n]);
    let mut comp = vec![usize::MAX; n];
    let (mut on, mut stack, mut next, mut count) = (vec![false; n], Vec::new(), 0, 0);
    for root in (0..n).filter(|&s| inside(StateId(s as u32))) {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (s, ref mut k)) = work.last_mut() {
            let id = StateId(s as u32);
            if *k < graph.degree(id) {
                let t = graph.edge(id, *k).to.0 as usize;
                *k += 1;
                if !inside(StateId(t as u32)) {
                    continue;
                }
                if index[t] == usize::MAX {
                    index[t] = next;
                    low[t] = next;
                    next += 1;
                    stack.push(t);
                    on[t] = true;
                    work.push((t, 0));
                } else if on[t] {
                    low[s] = low[s].min(index[t]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[s]);
            }
            if low[s] == index[s] {
                while let Some(t) = stack.pop() {
                    on[t] = false;
                    comp[t] = count;
                    if t == s {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    comp
}

/// How a property with a goal fails from a start: the path to where it goes wrong, and then
/// either nothing (a dead end: a state with no step) or the cycle it repeats forever.
pub struct Lasso {
    /// From the start, up to the dead end or the cycle's first state.
    pub prefix: Vec<(StateId, usize)>,
    /// The cycle's steps (empty at a dead end).
    pub cycle: Vec<(StateId, usize)>,
    /// Where the prefix ends.
    pub end: StateId,
}

/// Where the (weakly fair, if `fair`) maximal paths from `from` may avoid the goal forever,
/// the states `bad` accepts (those with no rank): the shortest path through them to a dead end
/// or to a cycle among them — for weak fairness one on which every process that can move in
/// all of its states moves — and that cycle. `None` when no start is bad.
pub fn lasso(
    graph: &Graph,
    from: &[StateId],
    bad: &dyn Fn(StateId) -> bool,
    fair: bool,
) -> Option<Lasso> {
    let comp = components(graph, bad);
    let count = comp
        .iter()
        .filter(|&&c| c != usize::MAX)
        .max()
        .map_or(0, |c| c + 1);
    // Per component: its edges inside, and whether it can be cycled in (weakly fairly).
    let mut members: Vec<Vec<StateId>> = vec![Vec::new(); count];
    for s in 0..graph.len() {
        if comp[s] != usize::MAX {
            members[comp[s]].push(StateId(s as u32));
        }
    }
    let inner = |s: StateId, t: StateId| comp[t.0 as usize] == comp[s.0 as usize];
    let procs = if fair { processes(graph) } else { Vec::new() };
    let cyclic: Vec<bool> = (members.iter())
        .map(|m| {
            let edges = m.iter().any(|&s| graph.succ(s).any(|e| inner(s, e.to)));
            edges
                && procs.iter().all(|p| {
                    m.iter().any(|&s| {
                        !graph.succ(s).any(|e| takers(&e.event).contains(p))
                            || graph
                                .succ(s)
                                .any(|e| inner(s, e.to) && takers(&e.event).contains(p))
                    })
                })
        })
        .collect();
    let end = |s: StateId| graph.degree(s) == 0 || cyclic[comp[s.0 as usize]];
    let (prefix, end) = shortest(graph, from, bad, &end)?;
    if graph.degree(end) == 0 {
        return Some(Lasso {
            prefix,
            cycle: Vec::new(),
            end,
        });
    }
    // The cycle: from `end`, satisfy each process in turn (take one of its steps inside the
    // component, or pass a state where it cannot move), then come back.
    let same = |t: StateId| comp[t.0 as usize] == comp[end.0 as usize];
    let mut cycle: Vec<(StateId, usize)> = Vec::new();
    let mut at = end;
    for p in &procs {
        let mut visited: Vec<StateId> = cycle.iter().map(|&(s, _)| s).collect();
        visited.push(at);
        let moved = |s: StateId, i: usize| takers(&graph.edge(s, i).event).contains(p);
        let done = cycle.iter().any(|&(s, i)| moved(s, i))
            || visited
                .iter()
                .any(|&s| !graph.succ(s).any(|e| takers(&e.event).contains(p)));
        if done {
            continue;
        }
        let here = |s: StateId| {
            !graph.succ(s).any(|e| takers(&e.event).contains(p))
                || graph
                    .succ(s)
                    .enumerate()
                    .any(|(i, e)| same(e.to) && moved(s, i))
        };
        let Some((path, s)) = shortest(graph, &[at], &same, &here) else {
            continue;
        };
        cycle.extend(path);
        at = s;
        if let Some(i) = (0..graph.degree(s)).find(|&i| same(graph.edge(s, i).to) && moved(s, i)) {
            cycle.push((s, i));
            at = graph.edge(s, i).to;
        }
    }
    // Back to `end` (at least one step).
    if at != end || cycle.is_empty() {
        let starts: Vec<(usize, StateId)> = (0..graph.degree(at))
            .map(|i| (i, graph.edge(at, i).to))
            .filter(|&(_, t)| same(t))
            .collect();
        let mut best: Option<Vec<(StateId, usize)>> = None;
        for (i, t) in starts {
            if let Some((path, _)) = shortest(graph, &[t], &same, &|s| s == end) {
                let mut p = vec![(at, i)];
                p.extend(path);
                if best.as_ref().is_none_or(|b| p.len() < b.len()) {
                    best = Some(p);
                }
            }
        }
        match (at == end && !cycle.is_empty(), best) {
            (true, _) => {}
            (false, Some(p)) => cycle.extend(p),
            (false, None) => return None,
        }
    }
    Some(Lasso { prefix, cycle, end })
}

/// A counterexample of `lasso`'s path, after the steps `before` (the way to a state where a
/// response was asked for): the steps, where the cycle starts, and what is wrong at the end
/// (`finished`: the plan finished; otherwise a deadlock, or a cycle).
#[allow(clippy::too_many_arguments)]
pub fn lasso_cex(
    ir: &Ir,
    net: &Network,
    graph: &Graph,
    state: &dyn Fn(StateId) -> hilbert_kernel::semantics::State,
    before: &[(StateId, usize)],
    l: &Lasso,
    goal: &str,
    fair: bool,
) -> Counterexample {
    let step = |&(s, i): &(StateId, usize)| cex_step(ir, net, graph, s, i);
    let mut steps: Vec<_> = before.iter().chain(&l.prefix).map(step).collect();
    let mut cex = Counterexample::default();
    if l.cycle.is_empty() {
        cex.conclusion = if graph.finished(l.end) {
            format!("the plan finished without {goal}")
        } else {
            cex.blocked = blocked_lines(net, &state(l.end));
            format!("{}, without {goal}", deadlock_reason(graph, l.end))
        };
    } else {
        cex.cycle_from = Some(steps.len());
        steps.extend(l.cycle.iter().map(step));
        cex.conclusion = match fair {
            true => format!(
                "the plan can cycle forever without {goal}, and the cycle is weakly fair: every process that can move in all its states moves in it"
            ),
            false => format!("the plan can cycle forever without {goal}"),
        };
    }
    cex.steps = steps;
    cex
}

/// A path's counterexample: its steps and what is wrong where it ends.
pub fn path_cex(
    ir: &Ir,
    net: &Network,
    graph: &Graph,
    path: &[(StateId, usize)],
    conclusion: String,
) -> Counterexample {
    Counterexample {
        steps: (path.iter())
            .map(|&(s, i)| cex_step(ir, net, graph, s, i))
            .collect(),
        cycle_from: None,
        conclusion,
        blocked: Vec::new(),
    }
}

/// The shortest path from the graph's starts, through the states `allowed` accepts, to one
/// `target` accepts.
pub fn shortest_from_start(
    graph: &Graph,
    allowed: &dyn Fn(StateId) -> bool,
    target: &dyn Fn(StateId) -> bool,
) -> Option<(Vec<(StateId, usize)>, StateId)> {
    shortest(graph, &graph.starts, allowed, target)
}

/// A property with a goal, from the states `start` accepts (the scene's first state, or every
/// state where a response is asked for): proved when each has a rank towards the goal (weakly
/// fair ranks if `fair`, the certificate's), else refuted with the shortest path from the
/// scene to such a state without one, then the shortest lasso or dead end from there.
#[allow(clippy::too_many_arguments)]
pub fn decide_goal(
    ir: &Ir,
    net: &Network,
    graph: &Graph,
    state: &dyn Fn(StateId) -> hilbert_kernel::semantics::State,
    start: &dyn Fn(StateId) -> bool,
    goal: &dyn Fn(StateId) -> bool,
    goal_text: &str,
    fair: bool,
) -> Status {
    let ranks = match fair {
        true => fair_ranks(graph, goal),
        false => crate::certify::ranks(graph, goal),
    };
    let bad = |s: StateId| !goal(s) && ranks[s.0 as usize] == u64::MAX;
    let Some((before, s)) = shortest_from_start(graph, &|_| true, &|s| start(s) && bad(s)) else {
        return Status::Proved;
    };
    match lasso(graph, &[s], &bad, fair) {
        Some(l) => Status::Refuted(lasso_cex(
            ir, net, graph, state, &before, &l, goal_text, fair,
        )),
        None => {
            Status::Unproved("no path avoiding the goal was found where its ranking stops".into())
        }
    }
}

/// Decides an assertion on the explored graph (`texts`: its conditions as written).
#[allow(clippy::too_many_arguments)]
pub fn decide_assert(
    ir: &Ir,
    net: &Network,
    graph: &Graph,
    state: &dyn Fn(StateId) -> hilbert_kernel::semantics::State,
    agent: &Agent,
    a: &Assert,
    texts: &[String],
) -> Status {
    let sets: Vec<Vec<bool>> = (a.property.conds().iter())
        .map(|c| cond_sets(graph, agent, c))
        .collect();
    let at = |k: usize, s: StateId| sets[k][graph.belief_set(s)];
    let text = |k: usize| texts.get(k).map_or("?", String::as_str);
    let path =
        |allowed: &dyn Fn(StateId) -> bool, target: &dyn Fn(StateId) -> bool, what: String| {
            match shortest_from_start(graph, allowed, target) {
                None => Status::Proved,
                Some((p, _)) => Status::Refuted(path_cex(ir, net, graph, &p, what)),
            }
        };
    match &a.property {
        Property::Always(_) => path(
            &|_| true,
            &|s| !at(0, s),
            format!("a state where {} does not hold", text(0)),
        ),
        Property::Never(_) => path(
            &|_| true,
            &|s| at(0, s),
            format!("a state where {} holds", text(0)),
        ),
        Property::Precedes(..) => path(
            &|s| !at(0, s),
            &|s| at(1, s),
            format!("{} holds before {} has held", text(1), text(0)),
        ),
        Property::Eventually(_) => {
            let start = |s: StateId| graph.starts.contains(&s);
            decide_goal(
                ir,
                net,
                graph,
                state,
                &start,
                &|s| at(0, s),
                text(0),
                a.fair,
            )
        }
        Property::LeadsTo(..) => {
            let goal = format!("{}, after {} held", text(1), text(0));
            decide_goal(
                ir,
                net,
                graph,
                state,
                &|s| at(0, s),
                &|s| at(1, s),
                &goal,
                a.fair,
            )
        }
    }
}
