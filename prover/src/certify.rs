//! Certificates: the size of a network's explored scene and one witness per obligation, encoded
//! canonically for the kernel (`certificates::cert`), which explores the scene again itself.
//!
//! The frontend always writes a witness of the right kind for every obligation the kernel
//! derives, even for a theorem it refuted or could not prove: the kernel then refuses it by its
//! own check, so its verdict never rests on the frontend's word.

use crate::explore::{Graph, Space, StateId};
use crate::obligations::{Outside, explore_commands};
use hilbert_certificates::cert::{self, Body, Counts, Feature, RankExpr, SourceDigest, Witness};
use hilbert_certificates::ir::Ir;
use hilbert_kernel::check::{Kind, obligations};
use hilbert_kernel::semantics::{After, Semantics, State, Term};
use std::collections::{BTreeSet, HashMap};

/// The canonical order of a graph's states, the one the kernel numbers them in: breadth-first
/// from the graph's starts in order, each state's successors in the order of its steps.
/// `order[k]` is the graph's id of the kernel's state `k`, the state whose rank a witness lists
/// `k`-th. (States the walk does not meet, which an explored graph never has, come last.)
pub fn canonical_order(graph: &Graph) -> Vec<u32> {
    let n = graph.len();
    let mut seen = vec![false; n];
    let mut order: Vec<u32> = Vec::with_capacity(n);
    for s in &graph.starts {
        if !std::mem::replace(&mut seen[s.0 as usize], true) {
            order.push(s.0);
        }
    }
    let mut head = 0;
    while head < order.len() {
        for e in graph.succ(StateId(order[head])) {
            if !std::mem::replace(&mut seen[e.to.0 as usize], true) {
                order.push(e.to.0);
            }
        }
        head += 1;
    }
    order.extend((0..n as u32).filter(|&i| !seen[i as usize]));
    order
}

/// Ranks towards a goal: 0 on goal states; elsewhere one more than the largest rank of a
/// successor (the longest path to the goal). States on a cycle that avoids the goal, or that
/// cannot reach it, get `u64::MAX`: no ranking exists there, and the kernel will say so.
pub fn ranks(graph: &Graph, goal: &dyn Fn(StateId) -> bool) -> Vec<u64> {
    let n = graph.len();
    const UNSET: u64 = u64::MAX - 1;
    let mut rank = vec![UNSET; n];
    let mut on_stack = vec![false; n];
    for root in 0..n {
        if rank[root] != UNSET {
            continue;
        }
        // Iterative depth-first search: (state, next edge to look at).
        let mut stack = vec![(root, 0usize)];
        on_stack[root] = true;
        while let Some(&mut (s, ref mut next)) = stack.last_mut() {
            if goal(StateId(s as u32)) {
                rank[s] = 0;
                on_stack[s] = false;
                stack.pop();
                continue;
            }
            let degree = graph.degree(StateId(s as u32));
            if *next < degree {
                let t = graph.edge(StateId(s as u32), *next).to.0 as usize;
                *next += 1;
                if rank[t] == UNSET && !on_stack[t] {
                    on_stack[t] = true;
                    stack.push((t, 0));
                } else if on_stack[t] {
                    rank[s] = u64::MAX;
                }
                continue;
            }
            let mut r = if degree == 0 { u64::MAX } else { 0 };
            for e in graph.succ(StateId(s as u32)) {
                let t = e.to.0 as usize;
                let rt = if goal(e.to) { 0 } else { rank[t] };
                r = if rt >= UNSET || r == u64::MAX {
                    u64::MAX
                } else {
                    r.max(rt + 1)
                };
            }
            if rank[s] != u64::MAX {
                rank[s] = r;
            }
            on_stack[s] = false;
            stack.pop();
        }
    }
    rank.into_iter()
        .map(|r| if r == UNSET { u64::MAX } else { r })
        .collect()
}

/// A linear ranking expression that Z3 finds for a liveness obligation, when every state that
/// misses the goal is ranked (so the expression must rank them all) and the region is small
/// enough: the certificate then carries the expression instead of one rank per state. The
/// expression is checked here against the same rule the kernel applies before it is used.
fn ranking_expression(
    name: &str,
    graph: &Graph,
    state: &dyn Fn(usize) -> State,
    ranks: &[u64],
    goal: &dyn Fn(StateId) -> bool,
    queries: &mut Vec<hilbert_smt::Query>,
) -> Option<RankExpr> {
    let n = graph.len();
    let region: Vec<usize> = (0..n).filter(|&i| !goal(StateId(i as u32))).collect();
    if region.is_empty()
        || region.iter().any(|&i| ranks[i] == u64::MAX)
        || region.len() > hilbert_smt::ranking::MAX_CONSTRAINTS
    {
        return None;
    }
    // States are made one at a time, and the search given up as soon as there are more
    // features than Z3 is asked about: a wide network (a thousand threads in parallel) would
    // otherwise have every state of the region made whole, threads × slots each, for nothing.
    let mut states: Vec<State> = Vec::with_capacity(region.len());
    let mut features = BTreeSet::new();
    for &i in &region {
        let s = state(i);
        collect_features(&s.term, &mut features);
        if features.len() > hilbert_smt::ranking::MAX_FEATURES {
            return None;
        }
        states.push(s);
    }
    let features: Vec<Feature> = features.into_iter().collect();
    let values: Vec<Vec<i64>> = states
        .iter()
        .map(|s| {
            features
                .iter()
                .map(|f| hilbert_kernel::rank::feature(s, f))
                .collect()
        })
        .collect();
    let position: HashMap<usize, usize> = region.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let mut edges = Vec::new();
    for (k, &i) in region.iter().enumerate() {
        for e in graph.succ(StateId(i as u32)) {
            if let Some(&m) = position.get(&(e.to.0 as usize)) {
                edges.push((k, m));
            }
        }
    }
    let mut log = hilbert_smt::Log::new(hilbert_smt::Options::default());
    let found = hilbert_smt::ranking::synthesize(
        &mut log,
        &format!("{name}.ranking"),
        &features,
        &values,
        &edges,
    );
    queries.extend(log.queries);
    let expr = found?;
    // The kernel's rule, on the region: non-negative, and decreasing along every step in it.
    let r: Vec<u64> = states
        .iter()
        .map(|s| hilbert_kernel::rank::rank(&expr, s))
        .collect();
    let ok = r.iter().all(|&x| x != u64::MAX) && edges.iter().all(|&(a, b)| r[b] < r[a]);
    ok.then_some(expr)
}

/// The candidate features of a term: each integer slot of each thread, and each thread's node.
fn collect_features(t: &Term, out: &mut BTreeSet<Feature>) {
    match t {
        Term::Thread {
            inst,
            plan,
            stack,
            env,
            ..
        } => {
            for (slot, v) in env.iter().enumerate() {
                if let hilbert_certificates::ir::Value::Int(_) = v {
                    out.insert(Feature::Slot {
                        inst: *inst,
                        plan: *plan,
                        slot: slot as u32,
                    });
                }
            }
            if let Some(node) = stack.last() {
                out.insert(Feature::At {
                    inst: *inst,
                    node: *node,
                });
            }
        }
        Term::Then(a, b) | Term::Interrupt(a, b) => {
            collect_features(a, out);
            collect_features(b, out);
        }
        Term::Par(cs) | Term::Choice(cs) => cs.iter().for_each(|c| collect_features(c, out)),
        Term::Suspended(b) => collect_features(b, out),
        Term::Label { body, .. } | Term::Inst { body, .. } => collect_features(body, out),
        Term::Handling { body, then } => {
            collect_features(body, out);
            if let After::Suspend(s) | After::Continue(s) = then {
                collect_features(s, out);
            }
        }
        Term::Done | Term::Faulted(_) => {}
    }
}

/// The size of an explored graph, as a certificate declares it.
pub fn counts(graph: &Graph) -> Counts {
    Counts {
        states: graph.len() as u64,
        transitions: graph.transitions() as u64,
    }
}

/// The witness of a theorem about commands from outside, from its explorations (none: an
/// exploration the kernel refuses before it; two: `_stoppable`'s stop and what follows it), each
/// with its size and its ranks towards settling in the kernel's order.
fn outside_witness(name: String, about: &Outside, spaces: &[Space]) -> Witness {
    let stoppable = matches!(about, Outside::Stoppable);
    let table = |k: usize| -> (Counts, Vec<u64>) {
        let Some(sub) = spaces.get(k) else {
            return (Counts::default(), Vec::new());
        };
        let ends = |s: StateId| about.ends(sub, s);
        let order = canonical_order(&sub.graph);
        let ranks = ranks(&sub.graph, &ends);
        (
            counts(&sub.graph),
            order.iter().map(|&i| ranks[i as usize]).collect(),
        )
    };
    let (counts, ranks) = table(0);
    match stoppable {
        true => {
            let (after, after_ranks) = table(1);
            Witness::Stoppable {
                obligation: name,
                stop: counts,
                stop_ranks: ranks,
                after,
                after_ranks,
            }
        }
        false => Witness::Release {
            obligation: name,
            counts,
            ranks,
        },
    }
}

/// The witness of an assertion: none for a safety pattern (the kernel reads its conditions on
/// every state), ranks towards its goal (weakly fair ranks under fairness) for response and
/// existence, in the table's order.
fn assert_witness(
    name: String,
    graph: &Graph,
    agent: &hilbert_certificates::ir::Agent,
    a: &hilbert_certificates::ir::Assert,
    order: &[u32],
) -> Witness {
    use hilbert_certificates::ir::Property;
    let goal = match &a.property {
        Property::Eventually(g) | Property::LeadsTo(_, g) => g,
        _ => return Witness::Invariant { obligation: name },
    };
    let sets = crate::props::cond_sets(graph, agent, goal);
    let goal = |s: StateId| sets[graph.belief_set(s)];
    let ranks = match a.fair {
        true => crate::props::fair_ranks(graph, &goal),
        false => ranks(graph, &goal),
    };
    Witness::Ranking {
        obligation: name,
        ranks: order.iter().map(|&i| ranks[i as usize]).collect(),
    }
}

/// The certificate of network `n`: its scene's size and a witness per obligation.
#[allow(clippy::too_many_arguments)]
pub fn certificate(
    ir: &Ir,
    n: usize,
    sources: &[SourceDigest],
    sem: &Semantics,
    space: &Space,
    outside: &[(usize, crate::obligations::Commanded)],
    explore_outside: &dyn Fn(&mut dyn Iterator<Item = State>, bool) -> Space,
    queries: &mut Vec<hilbert_smt::Query>,
) -> Vec<u8> {
    let graph = &space.graph;
    let state = |i: usize| space.state(StateId(i as u32));
    let order = canonical_order(graph);
    let net = &ir.networks[n];
    let agent = &ir.agents[net.agent.0 as usize];
    let mut witnesses = Vec::new();
    for (index, (name, kind)) in obligations(ir, n)
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let w = match kind {
            Kind::NoDeadlock => Witness::Invariant { obligation: name },
            Kind::Live(d) => {
                // Once per distinct belief set, not once per state.
                let goal_sets =
                    crate::obligations::satisfying_sets(graph, agent, &agent.desires[d].achieved);
                let goal = |s: StateId| goal_sets[graph.belief_set(s)];
                if agent.desires[d].fair {
                    let ranks = crate::props::fair_ranks(graph, &goal);
                    let ranks = order.iter().map(|&i| ranks[i as usize]).collect();
                    witnesses.push(Witness::Ranking {
                        obligation: name,
                        ranks,
                    });
                    continue;
                }
                let ranks = ranks(graph, &goal);
                match ranking_expression(&name, graph, &state, &ranks, &goal, queries) {
                    Some(expr) => Witness::RankingExpr {
                        obligation: name,
                        expr,
                    },
                    None => Witness::Ranking {
                        obligation: name,
                        ranks: order.iter().map(|&i| ranks[i as usize]).collect(),
                    },
                }
            }
            // A table cut short by a bound is not closed, which the kernel refuses before any
            // witness: exploring the commands from every state of it would be work for nothing.
            Kind::Released(..) | Kind::Abortable | Kind::Stoppable => {
                let about = match &kind {
                    Kind::Released(_, atom) => Outside::Released(atom.clone()),
                    Kind::Abortable => Outside::Abortable,
                    _ => Outside::Stoppable,
                };
                // The proof's explorations, or (a proof that did not explore them) made here.
                // A table cut short by a bound is not closed, which the kernel refuses before
                // any witness: exploring the commands from every state of it would be work for
                // nothing.
                match outside.iter().find(|(k, _)| *k == index) {
                    _ if graph.truncated => outside_witness(name, &about, &[]),
                    Some((_, c)) => outside_witness(name, &about, &c.spaces),
                    None => {
                        let c = explore_commands(&about, sem, space, &order, explore_outside);
                        outside_witness(name, &about, &c.spaces)
                    }
                }
            }
            Kind::TellFeasible(..) | Kind::TellInHandler(..) => {
                Witness::TellFeasible { obligation: name }
            }
            Kind::Assert(k) => assert_witness(name, graph, agent, &agent.asserts[k], &order),
            Kind::Frame(_) => Witness::Frame { obligation: name },
        };
        witnesses.push(w);
    }
    let body = Body {
        tool: format!("hilbert {}", env!("CARGO_PKG_VERSION")),
        sources: sources.to_vec(),
        ir_sha256: cert::sha256(&cert::ir_bytes(ir)),
        ir: ir.clone(),
        network: n as u32,
        scene: counts(graph),
        witnesses,
    };
    cert::encode(&body)
}
