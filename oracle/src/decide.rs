//! Deciding a network's theorems on the oracle's state graph: no deadlock, liveness of each
//! desire the binding serves, release, tell feasibility; with the reachable belief sets and the
//! shortest counterexample lengths.

use crate::model::{Code, Ex, Model, Pattern, PlanId, Sym};
use crate::sem::{
    Beliefs, Env, Fault, Machine, State, T, Val, eval, holds, root_suspended, settled,
};
use hilbert_frontend::syntax::ast::Command;
use std::collections::{BTreeSet, HashMap, VecDeque};

/// The oracle's verdict on a theorem.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Holds on the whole state graph.
    Proved,
    /// Does not hold; the length of the shortest counterexample when the oracle compares it
    /// (deadlock, and liveness with no cycle to avoid the goal).
    Refuted(Option<usize>),
    /// Not decided (the reason).
    Unproved(String),
}

impl Verdict {
    /// `proved`, `refuted` or `unproved`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Proved => "proved",
            Verdict::Refuted(_) => "refuted",
            Verdict::Unproved(_) => "unproved",
        }
    }
}

/// What kind of theorem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `Plan_no_deadlock`.
    NoDeadlock,
    /// `P_live_D`.
    Live,
    /// `P_released_D`.
    Released,
    /// `Plan_abortable`.
    Abortable,
    /// `Plan_stoppable`.
    Stoppable,
    /// `Plan_tell_feasible_N` of a tell in the body.
    Tell,
    /// `Plan_tell_feasible_N` of a tell inside a handler (`on stop`, `on resume`, `on abort`).
    HandlerTell,
    /// `Plan_assert_name`.
    Assert,
}

impl Kind {
    /// Every kind, in the order the reports list them.
    pub const ALL: [Kind; 8] = [
        Kind::NoDeadlock,
        Kind::Live,
        Kind::Released,
        Kind::Abortable,
        Kind::Stoppable,
        Kind::Tell,
        Kind::HandlerTell,
        Kind::Assert,
    ];

    /// How a campaign's report counts the theorems of this kind it compared.
    pub fn label(self) -> &'static str {
        match self {
            Kind::NoDeadlock => "compared:no deadlock",
            Kind::Live => "compared:live",
            Kind::Released => "compared:released",
            Kind::Abortable => "compared:abortable",
            Kind::Stoppable => "compared:stoppable",
            Kind::Tell => "compared:tell in a body",
            Kind::HandlerTell => "compared:tell in a handler",
            Kind::Assert => "compared:assert",
        }
    }
}

/// One theorem.
#[derive(Clone, Debug)]
pub struct Theorem {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
    /// The verdict.
    pub verdict: Verdict,
}

/// The oracle's result for one network.
#[derive(Clone, Debug)]
pub struct Network {
    /// `Agent.Binding`.
    pub name: String,
    /// Its theorems.
    pub theorems: Vec<Theorem>,
    /// States of the scene.
    pub states: usize,
    /// Every reachable belief set, as sorted texts.
    pub belief_sets: BTreeSet<Vec<String>>,
    /// Whether a reachable state has an overflow fault (or a step overflowed).
    pub overflow: bool,
    /// Whether a step of the scene diverges (the end state of a diverging step depends on
    /// where its budget runs out: oracle/KNOWN.md).
    pub diverges: bool,
}

/// The state graph of a scene.
struct Graph {
    states: Vec<State>,
    succ: Vec<Vec<u32>>,
    /// Per state, per step (as in `succ`): the instances that took it.
    takers: Vec<Vec<Vec<u32>>>,
    dist: Vec<u32>,
    too_big: bool,
    infeasible: BTreeSet<(PlanId, u32)>,
    overflow: bool,
    diverges: bool,
}

/// The states reachable from `init`, not going on from a state where `halt` holds (a settled
/// state, for the explorations of commands from outside), with every tell the steps ran.
fn search(
    mc: &mut Machine<'_>,
    init: Vec<State>,
    max_states: usize,
    halt: &dyn Fn(&T) -> bool,
) -> Graph {
    let mut g = Graph {
        states: Vec::new(),
        succ: Vec::new(),
        takers: Vec::new(),
        dist: Vec::new(),
        too_big: false,
        infeasible: BTreeSet::new(),
        overflow: false,
        diverges: false,
    };
    let mut index: HashMap<State, u32> = HashMap::new();
    let mut queue = VecDeque::new();
    for s in init {
        if !index.contains_key(&s) {
            index.insert(s.clone(), g.states.len() as u32);
            queue.push_back(g.states.len() as u32);
            g.states.push(s);
            g.succ.push(Vec::new());
            g.takers.push(Vec::new());
            g.dist.push(0);
        }
    }
    while let Some(i) = queue.pop_front() {
        let s = g.states[i as usize].clone();
        if halt(&s.term) {
            continue;
        }
        let mut next = Vec::new();
        let mut who = Vec::new();
        for (t, fx) in mc.steps(&s) {
            who.push(fx.takers.clone());
            g.overflow |= fx.overflow;
            g.diverges |= fx.diverged;
            for (p, n, ok) in fx.tells {
                if !ok {
                    g.infeasible.insert((p, n));
                }
            }
            let j = match index.get(&t) {
                Some(j) => *j,
                None => {
                    if g.states.len() >= max_states {
                        g.too_big = true;
                        return g;
                    }
                    let j = g.states.len() as u32;
                    index.insert(t.clone(), j);
                    g.states.push(t);
                    g.succ.push(Vec::new());
                    g.takers.push(Vec::new());
                    g.dist.push(g.dist[i as usize] + 1);
                    queue.push_back(j);
                    j
                }
            };
            next.push(j);
        }
        g.succ[i as usize] = next;
        g.takers[i as usize] = who;
    }
    g
}

/// Whether, from the states `from` and within the states where `inside` holds, some weakly
/// fair maximal path stays inside (docs/semantics.md, "Weak fairness"): one reaches a state
/// with no step, or a strongly connected set of states inside (Kosaraju's two passes) with a
/// step inside it and in which every instance that can move in all of its states moves on one
/// of its steps — a cycle through all of it is weakly fair.
fn avoids_fairly(g: &Graph, from: &[u32], inside: &dyn Fn(usize) -> bool) -> bool {
    let n = g.states.len();
    let edges = |i: usize| g.succ[i].iter().map(|&j| j as usize).filter(|&j| inside(j));
    // Pass 1: the finishing order of a depth-first search over the states inside.
    let mut seen = vec![false; n];
    let mut order = Vec::new();
    for r in (0..n).filter(|&r| inside(r)) {
        if seen[r] {
            continue;
        }
        seen[r] = true;
        let mut stack = vec![(r, 0usize)];
        while let Some((i, k)) = stack.pop() {
            match edges(i).nth(k) {
                Some(j) => {
                    stack.push((i, k + 1));
                    if !seen[j] {
                        seen[j] = true;
                        stack.push((j, 0));
                    }
                }
                None => order.push(i),
            }
        }
    }
    // Pass 2: over the reversed edges, in reverse finishing order.
    let mut back = vec![Vec::new(); n];
    for i in (0..n).filter(|&i| inside(i)) {
        for j in edges(i) {
            back[j].push(i);
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut count = 0;
    for &r in order.iter().rev() {
        if comp[r] != usize::MAX {
            continue;
        }
        let mut stack = vec![r];
        comp[r] = count;
        while let Some(i) = stack.pop() {
            for &j in &back[i] {
                if comp[j] == usize::MAX {
                    comp[j] = count;
                    stack.push(j);
                }
            }
        }
        count += 1;
    }
    let instances: BTreeSet<u32> = g.takers.iter().flatten().flatten().copied().collect();
    let fair_component = |c: usize| {
        let members: Vec<usize> = (0..n).filter(|&i| comp[i] == c).collect();
        let comp = &comp;
        let inner = |i: usize| {
            (g.succ[i].iter().zip(&g.takers[i])).filter(move |(j, _)| comp[**j as usize] == c)
        };
        members.iter().any(|&i| inner(i).next().is_some())
            && instances.iter().all(|p| {
                members.iter().any(|&i| {
                    !g.takers[i].iter().any(|w| w.contains(p))
                        || inner(i).any(|(_, w)| w.contains(p))
                })
            })
    };
    let fair: Vec<bool> = (0..count).map(fair_component).collect();
    // Reachable from `from` inside: a dead end or a state of a fair component.
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = from
        .iter()
        .map(|&i| i as usize)
        .filter(|&i| inside(i))
        .collect();
    for &i in &stack {
        seen[i] = true;
    }
    while let Some(i) = stack.pop() {
        if g.succ[i].is_empty() || fair[comp[i]] {
            return true;
        }
        for j in edges(i) {
            if !std::mem::replace(&mut seen[j], true) {
                stack.push(j);
            }
        }
    }
    false
}

fn has_overflow(t: &T) -> bool {
    match t {
        T::Faulted(Fault::Overflow) => true,
        T::Done | T::Faulted(_) | T::Th(_) => false,
        T::Then(a, _) | T::Susp(a) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => {
            has_overflow(a)
        }
        T::Par(xs) | T::Choice(xs) => xs.iter().any(has_overflow),
        T::Intr(a, b) | T::Handling(_, a, _, b) => has_overflow(a) || has_overflow(b),
    }
}

/// Whether, from the states `from` and within the states where `inside` holds, some path ends
/// in a state with no step or runs forever; and the length of the shortest path (in steps,
/// from the scene) to a dead end inside, when there is no cycle inside.
fn avoids(g: &Graph, from: &[u32], inside: &dyn Fn(usize) -> bool) -> (bool, Option<usize>) {
    // The region: states reachable from `from` through states inside.
    let n = g.states.len();
    let mut seen = vec![false; n];
    let mut stack: Vec<u32> = from
        .iter()
        .copied()
        .filter(|&i| inside(i as usize))
        .collect();
    for &i in &stack {
        seen[i as usize] = true;
    }
    let mut region = Vec::new();
    while let Some(i) = stack.pop() {
        region.push(i);
        for &j in &g.succ[i as usize] {
            if inside(j as usize) && !seen[j as usize] {
                seen[j as usize] = true;
                stack.push(j);
            }
        }
    }
    let dead_end = region
        .iter()
        .filter(|&&i| g.succ[i as usize].is_empty())
        .map(|&i| g.dist[i as usize] as usize)
        .min();
    // A cycle inside the region: Kahn's algorithm on the region's subgraph.
    let mut indeg: HashMap<u32, usize> = region.iter().map(|&i| (i, 0)).collect();
    for &i in &region {
        for &j in &g.succ[i as usize] {
            if let Some(d) = indeg.get_mut(&j) {
                *d += 1;
            }
        }
    }
    let mut ready: Vec<u32> = indeg
        .iter()
        .filter(|(_, d)| **d == 0)
        .map(|(i, _)| *i)
        .collect();
    let mut removed = 0;
    while let Some(i) = ready.pop() {
        removed += 1;
        for &j in &g.succ[i as usize] {
            if let Some(d) = indeg.get_mut(&j) {
                *d -= 1;
                if *d == 0 {
                    ready.push(j);
                }
            }
        }
    }
    let cycle = removed < region.len();
    let fails = cycle || dead_end.is_some();
    (fails, if cycle { None } else { dead_end })
}

fn show_val(m: &Model, v: &Val) -> String {
    match v {
        Val::Int(i) => i.to_string(),
        Val::Bool(b) => b.to_string(),
        Val::Str(s) => format!("{:?}", m.names.text(*s)),
        Val::Chan(..) => "chan".to_string(),
        Val::Float(b) => f64::from_bits(*b).to_string(),
    }
}

/// A belief set as sorted texts: `done(1)`, `B(Other) x(2)`.
pub fn show_beliefs(m: &Model, b: &Beliefs) -> Vec<String> {
    let mut v: Vec<String> = b
        .iter()
        .map(|(who, f, args)| {
            let args: Vec<String> = args.iter().map(|a| show_val(m, a)).collect();
            let atom = format!("{}({})", m.names.text(*f), args.join(", "));
            match who {
                None => atom,
                Some(j) => format!("B({}) {atom}", m.names.text(*j)),
            }
        })
        .collect();
    v.sort();
    v
}

/// The plans whose bodies a handler may run: every plan a call in a handler of `plans` names,
/// and every plan a call in their bodies names, and so on.
fn called_from_handlers(m: &Model, plans: &[PlanId]) -> BTreeSet<PlanId> {
    let mut codes: Vec<u32> = plans
        .iter()
        .flat_map(|&p| m.plans[p as usize].handlers.iter().flatten().copied())
        .collect();
    let mut called = BTreeSet::new();
    while let Some(c) = codes.pop() {
        match &m.code[c as usize] {
            Code::Seq(xs) | Code::Par(xs) | Code::Choice(xs) => codes.extend(xs),
            Code::Interrupt(a, b) => codes.extend([*a, *b]),
            Code::Label(_, b) => codes.push(*b),
            Code::Match(_, arms, other) => {
                codes.extend(arms.iter().map(|(_, b)| *b));
                codes.extend(other);
            }
            Code::Call(q, _, _) if called.insert(*q) => codes.push(m.plans[*q as usize].body),
            _ => {}
        }
    }
    called
}

/// The plans of the network of `root`: it and every plan a call in it (body or handler) reaches.
fn network_plans(m: &Model, root: PlanId) -> Vec<PlanId> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let p = &m.plans[out[i] as usize];
        let mut codes: Vec<u32> = vec![p.body];
        codes.extend(p.handlers.iter().flatten());
        while let Some(c) = codes.pop() {
            match &m.code[c as usize] {
                Code::Seq(xs) | Code::Par(xs) | Code::Choice(xs) => codes.extend(xs),
                Code::Interrupt(a, b) => codes.extend([*a, *b]),
                Code::Label(_, b) => codes.push(*b),
                Code::Match(_, arms, other) => {
                    codes.extend(arms.iter().map(|(_, b)| *b));
                    codes.extend(other);
                }
                Code::Call(q, _, _) if !out.contains(q) => out.push(*q),
                _ => {}
            }
        }
        i += 1;
    }
    out
}

/// The explorations of one theorem about commands from outside (docs/semantics.md, "Commands
/// from outside"): its verdict, and what the handler runs it explores did.
struct Commanded {
    /// Proved, refuted, or too big (the first exploration that decides it).
    verdict: Verdict,
    /// The tells run infeasibly, in the landings (a handler's first actions run there) and in
    /// the steps after them.
    infeasible: BTreeSet<(PlanId, u32)>,
    /// Whether one of its explorations passed the bound.
    too_big: bool,
}

impl Commanded {
    fn new() -> Commanded {
        Commanded {
            verdict: Verdict::Proved,
            infeasible: BTreeSet::new(),
            too_big: false,
        }
    }

    /// Lands each of `cmds` from outside on each of `origins`: the states they lead to.
    fn land(&mut self, mc: &mut Machine, origins: &[State], cmds: &[Command]) -> Vec<State> {
        let mut out = Vec::with_capacity(origins.len() * cmds.len());
        for s in origins {
            for &c in cmds {
                let (t, fx) = mc.command_scene(s, c);
                self.infeasible
                    .extend(fx.tells.iter().filter(|t| !t.2).map(|t| (t.0, t.1)));
                out.push(t);
            }
        }
        out
    }

    /// Explores from `starts` without going on from a state where `goal` holds, and decides
    /// that every path reaches one (unless an earlier exploration decided already). `None`
    /// when the exploration passed the bound.
    fn explore(
        &mut self,
        mc: &mut Machine,
        starts: Vec<State>,
        max_states: usize,
        goal: &dyn Fn(&T) -> bool,
    ) -> Option<Graph> {
        let h = search(mc, starts, max_states, goal);
        self.infeasible.extend(h.infeasible.iter().copied());
        if h.too_big {
            self.too_big = true;
            if self.verdict == Verdict::Proved {
                self.verdict = Verdict::Unproved(format!("too big: more than {max_states} states"));
            }
            return None;
        }
        let all: Vec<u32> = (0..h.states.len() as u32).collect();
        let (fails, _) = avoids(&h, &all, &|i| !goal(&h.states[i].term));
        if fails && self.verdict == Verdict::Proved {
            self.verdict = Verdict::Refuted(None);
        }
        Some(h)
    }

    /// An abort from outside in each of `origins`: every path must reach the end (an abort
    /// settles only at `Done`).
    fn abort(mc: &mut Machine, origins: &[State], max_states: usize) -> Commanded {
        let mut c = Commanded::new();
        let starts = c.land(mc, origins, &[Command::Abort]);
        c.explore(mc, starts, max_states, &|t| *t == T::Done);
        c
    }

    /// A stop from outside in each of `origins`: every path must reach a settled state; from
    /// every one so reached where the root is suspended, a resume and an abort from outside
    /// must each lead on every path to a settled state.
    fn stop(mc: &mut Machine, origins: &[State], max_states: usize) -> Commanded {
        let mut c = Commanded::new();
        let starts = c.land(mc, origins, &[Command::Stop]);
        if let Some(h) = c.explore(mc, starts, max_states, &settled) {
            let stopped: Vec<State> = h
                .states
                .into_iter()
                .filter(|s| root_suspended(&s.term))
                .collect();
            let starts = c.land(mc, &stopped, &[Command::Resume, Command::Abort]);
            c.explore(mc, starts, max_states, &settled);
        }
        c
    }
}

/// The constant atom of an `impossible` condition that is one belief with constant arguments.
fn constant_atom(e: &Ex, env: &Env) -> Option<(Sym, Vec<Val>)> {
    let Ex::Believes(None, f, args) = e else {
        return None;
    };
    let mut vals = Vec::new();
    for a in args {
        match a {
            Ex::Int(_) | Ex::Str(_) | Ex::Bool(_) | Ex::Neg(_) | Ex::Var(_) => {
                vals.push(eval(a, env).ok()?)
            }
            _ => return None,
        }
    }
    Some((*f, vals))
}

fn reads_attending(e: &Ex) -> bool {
    match e {
        Ex::Attending(_) => true,
        Ex::Neg(a) | Ex::Not(a) => reads_attending(a),
        Ex::Bin(_, a, b) => reads_attending(a) || reads_attending(b),
        _ => false,
    }
}

/// Decides the theorems of binding `b` of agent `a`, exploring at most `max_states` states.
pub fn decide(m: &Model, a: usize, b: usize, max_states: usize) -> Network {
    let agent = &m.agents[a];
    let binding = &agent.bindings[b];
    let name = format!("{}.{}", agent.name, binding.name);
    let env: Env = agent
        .params
        .iter()
        .filter_map(|(n, v)| v.map(|v| (*n, v)))
        .collect();
    let unset: Vec<Sym> = agent
        .params
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| *n)
        .collect();
    let reads_unset = |e: &Ex| unset.iter().any(|n| e.reads(*n));
    let mut out = Network {
        name,
        theorems: Vec::new(),
        states: 0,
        belief_sets: BTreeSet::new(),
        overflow: false,
        diverges: false,
    };
    let serves: Vec<usize> = agent
        .desires
        .iter()
        .enumerate()
        .filter(|(_, d)| d.reachable_by.contains(&b))
        .map(|(i, _)| i)
        .collect();
    let Some(plan) = binding.plan else {
        for &d in &serves {
            out.theorems.push(Theorem {
                name: format!("{}_live_{}", binding.name, agent.desires[d].name),
                kind: Kind::Live,
                verdict: Verdict::Unproved("host".into()),
            });
        }
        return out;
    };
    let plans = network_plans(m, plan);
    let mut args = Vec::new();
    let mut blocked: Option<String> = None;
    for e in &binding.args {
        if reads_unset(e) {
            blocked = Some("the binding passes a parameter with no value".into());
            break;
        }
        match eval(e, &env) {
            Ok(v) => args.push(v),
            Err(f) => {
                blocked = Some(format!("a binding argument faults: {f:?}"));
                break;
            }
        }
    }
    let mut mc = Machine::new(m, env.clone());
    let g = match &blocked {
        Some(_) => None,
        None => {
            let s0 = mc.scene(plan, args);
            Some(search(&mut mc, vec![s0], max_states, &|_| false))
        }
    };
    let why: Option<String> = match (&blocked, &g) {
        (Some(w), _) => Some(w.clone()),
        (None, Some(g)) if g.too_big => Some(format!("too big: more than {max_states} states")),
        _ => None,
    };
    if let Some(g) = &g
        && std::env::var_os("ORACLE_DUMP").is_some()
    {
        for (i, st) in g.states.iter().enumerate() {
            eprintln!(
                "state {i} -> {:?}\n  {:?}\n  {:?}",
                g.succ[i], st.term, st.beliefs
            );
        }
    }
    if let Some(g) = &g {
        out.states = g.states.len();
        out.overflow = g.overflow || g.states.iter().any(|s| has_overflow(&s.term));
        out.diverges = g.diverges;
        for s in &g.states {
            out.belief_sets.insert(show_beliefs(m, &s.beliefs));
        }
    }
    let plan_name = &m.plans[plan as usize].name;
    // No deadlock.
    let verdict = match (&why, &g) {
        (Some(w), _) => Verdict::Unproved(w.clone()),
        (None, Some(g)) => {
            let dead = (0..g.states.len())
                .filter(|&i| g.succ[i].is_empty() && g.states[i].term != T::Done)
                .map(|i| g.dist[i] as usize)
                .min();
            match dead {
                Some(d) => Verdict::Refuted(Some(d)),
                None => Verdict::Proved,
            }
        }
        _ => unreachable!(),
    };
    out.theorems.push(Theorem {
        name: format!("{plan_name}_no_deadlock"),
        kind: Kind::NoDeadlock,
        verdict,
    });
    // The attention of a belief set: from the initial one, each `when φ attend A` rule in
    // source order whose φ holds (read with the attention so far) moves it to A.
    let attention = |beliefs: &Beliefs| -> Option<Sym> {
        let mut att = agent.initial;
        for (cond, to) in &agent.attends {
            if holds(cond, &env, beliefs, att) {
                att = Some(*to);
            }
        }
        att
    };
    // The explorations of the commands from outside, for the tells inside handlers.
    let mut outside: Vec<Commanded> = Vec::new();
    for &d in &serves {
        let desire = &agent.desires[d];
        let verdict = match (&why, &g) {
            (Some(w), _) => Verdict::Unproved(w.clone()),
            _ if desire.achieved.iter().any(&reads_unset)
                || (desire.achieved.iter().any(reads_attending)
                    && agent.attends.iter().any(|(c, _)| reads_unset(c))) =>
            {
                Verdict::Unproved("the goal reads a parameter with no value".into())
            }
            (None, Some(g)) => {
                let goal: Vec<bool> = g
                    .states
                    .iter()
                    .map(|s| {
                        let att = attention(&s.beliefs);
                        desire
                            .achieved
                            .iter()
                            .any(|c| holds(c, &env, &s.beliefs, att))
                    })
                    .collect();
                let (fails, len) = match desire.fair {
                    // docs/semantics.md, "Weak fairness": no length is compared.
                    true => (avoids_fairly(g, &[0], &|i| !goal[i]), None),
                    false => avoids(g, &[0], &|i| !goal[i]),
                };
                if fails {
                    Verdict::Refuted(len)
                } else {
                    Verdict::Proved
                }
            }
            _ => unreachable!(),
        };
        out.theorems.push(Theorem {
            name: format!("{}_live_{}", binding.name, desire.name),
            kind: Kind::Live,
            verdict,
        });
        // docs/language.md §6: only a single-minded agent is released by what it believes
        // impossible, and only a condition that is one belief with constant arguments gives
        // the theorem; the atom may arrive from outside in any reachable state.
        if !agent.single_minded {
            continue;
        }
        for cond in &desire.impossible {
            let Some((f, vals)) = constant_atom(cond, &env) else {
                continue;
            };
            let atom = (None, f, vals);
            let verdict = match (&why, &g) {
                (Some(w), _) => Verdict::Unproved(w.clone()),
                (None, Some(g)) => {
                    let origins: Vec<State> = g
                        .states
                        .iter()
                        .map(|s| {
                            let mut s = s.clone();
                            s.beliefs.insert(atom.clone());
                            s
                        })
                        .collect();
                    let c = Commanded::abort(&mut mc, &origins, max_states);
                    let v = c.verdict.clone();
                    outside.push(c);
                    v
                }
                _ => unreachable!(),
            };
            out.theorems.push(Theorem {
                name: format!("{}_released_{}", binding.name, desire.name),
                kind: Kind::Released,
                verdict,
            });
        }
    }
    // docs/language.md §6: where a plan of the network has an `on abort` handler, aborting
    // the scene from outside in every reachable state must lead on every path to its end.
    let has = |k: usize| {
        plans
            .iter()
            .any(|&p| m.plans[p as usize].handlers[k].is_some())
    };
    let mut command = |name: &str, kind: Kind, outside: &mut Vec<Commanded>| {
        let verdict = match (&why, &g) {
            (Some(w), _) => Verdict::Unproved(w.clone()),
            (None, Some(g)) => {
                let c = match kind {
                    Kind::Stoppable => Commanded::stop(&mut mc, &g.states, max_states),
                    _ => Commanded::abort(&mut mc, &g.states, max_states),
                };
                let v = c.verdict.clone();
                outside.push(c);
                v
            }
            _ => unreachable!(),
        };
        out.theorems.push(Theorem {
            name: format!("{}_{name}", m.plans[plan as usize].name),
            kind,
            verdict,
        });
    };
    if has(2) {
        command("abortable", Kind::Abortable, &mut outside);
    }
    // docs/language.md §6: where a plan of the network has an `on stop` or `on resume`
    // handler and the runtime can stop the intention (the agent has a desire of higher
    // priority than the lowest of those the binding serves), the stop from outside in every
    // reachable state settles, and so do a resume and an abort from where it suspended.
    let lowest = serves.iter().map(|&d| agent.desires[d].priority).min();
    if lowest.is_some_and(|l| agent.desires.iter().any(|d| d.priority > l)) && (has(0) || has(1)) {
        command("stoppable", Kind::Stoppable, &mut outside);
    }
    // docs/semantics.md: a tell in a plan a handler calls (directly or through other calls)
    // runs in the handler runs too.
    let called = called_from_handlers(m, &plans);
    for &p in &plans {
        for n in 1..=m.plans[p as usize].tells {
            let in_handler = n > m.plans[p as usize].body_tells || called.contains(&p);
            let verdict = match (&why, &g) {
                (Some(w), _) => Verdict::Unproved(w.clone()),
                // docs/language.md §6: a tell inside a handler is decided over the scene and
                // the runs of the commands from outside of the theorems above (their landings
                // included); unproved when one of those explorations passed the bound.
                (None, Some(_)) if in_handler && outside.iter().any(|c| c.too_big) => {
                    Verdict::Unproved(format!(
                        "too big: a handler run after a command from outside has more than {max_states} states"
                    ))
                }
                (None, Some(g)) => {
                    if g.infeasible.contains(&(p, n))
                        || (in_handler && outside.iter().any(|c| c.infeasible.contains(&(p, n))))
                    {
                        Verdict::Refuted(None)
                    } else {
                        Verdict::Proved
                    }
                }
                _ => unreachable!(),
            };
            out.theorems.push(Theorem {
                name: format!("{}_tell_feasible_{n}", m.plans[p as usize].name),
                kind: match in_handler {
                    true => Kind::HandlerTell,
                    false => Kind::Tell,
                },
                verdict,
            });
        }
    }
    // docs/semantics.md, "Assertions": each assertion of the agent, in every network of it.
    // `desires D` and `intends P` are read from the rules: D is released when one of its
    // `achieved` conditions holds, or (single-minded) one of its `impossible` ones.
    let released = |d: usize, b: &Beliefs, att: Option<Sym>| {
        let x = &agent.desires[d];
        x.achieved.iter().any(|c| holds(c, &env, b, att))
            || (agent.single_minded && x.impossible.iter().any(|c| holds(c, &env, b, att)))
    };
    let mental = |e: &Ex| -> Vec<usize> {
        match e {
            Ex::Desires(n) => agent
                .desires
                .iter()
                .position(|d| d.name == *n)
                .into_iter()
                .collect(),
            Ex::Intends(n) => {
                let p = agent.bindings.iter().position(|b| b.name == *n);
                (agent.intends.iter())
                    .filter(|(b, _)| Some(*b) == p)
                    .map(|(_, d)| *d)
                    .collect()
            }
            _ => Vec::new(),
        }
    };
    fn leaves<'e>(e: &'e Ex, out: &mut Vec<&'e Ex>) {
        match e {
            Ex::Neg(a) | Ex::Not(a) => leaves(a, out),
            Ex::Bin(_, a, b) => {
                leaves(a, out);
                leaves(b, out);
            }
            _ => out.push(e),
        }
    }
    // The condition with its mental tests decided at beliefs `b` (they bind nothing).
    fn decided(e: &Ex, f: &dyn Fn(&Ex) -> bool) -> Ex {
        match e {
            Ex::Desires(_) | Ex::Intends(_) => Ex::Bool(f(e)),
            Ex::Neg(a) => Ex::Neg(Box::new(decided(a, f))),
            Ex::Not(a) => Ex::Not(Box::new(decided(a, f))),
            Ex::Bin(op, a, b) => Ex::Bin(*op, Box::new(decided(a, f)), Box::new(decided(b, f))),
            _ => e.clone(),
        }
    }
    for a in &agent.asserts {
        let unset = a.conds.iter().any(|c| {
            let mut all = Vec::new();
            leaves(c, &mut all);
            let minds: Vec<usize> = all.iter().flat_map(|l| mental(l)).collect();
            let mind = all
                .iter()
                .any(|l| matches!(l, Ex::Desires(_) | Ex::Intends(_)));
            let d_unset = minds.iter().any(|&d| {
                let x = &agent.desires[d];
                x.achieved.iter().chain(&x.impossible).any(&reads_unset)
            });
            reads_unset(c)
                || d_unset
                || ((mind || reads_attending(c))
                    && agent.attends.iter().any(|(c, _)| reads_unset(c)))
        });
        let verdict = match (&why, &g) {
            (Some(w), _) => Verdict::Unproved(w.clone()),
            _ if unset => Verdict::Unproved("the assertion reads a parameter with no value".into()),
            (None, Some(g)) => {
                let truth: Vec<Vec<bool>> = (a.conds.iter())
                    .map(|c| {
                        (g.states.iter())
                            .map(|st| {
                                let att = attention(&st.beliefs);
                                // `desires D`: D not released; `intends P`: some intend
                                // rule of P whose desire is not released.
                                let f = |m: &Ex| {
                                    mental(m).iter().any(|&d| !released(d, &st.beliefs, att))
                                };
                                holds(&decided(c, &f), &env, &st.beliefs, att)
                            })
                            .collect()
                    })
                    .collect();
                assert_verdict(g, a.pattern, a.fair, &truth)
            }
            _ => unreachable!(),
        };
        out.theorems.push(Theorem {
            name: format!("{plan_name}_assert_{}", a.name),
            kind: Kind::Assert,
            verdict,
        });
    }
    out
}

/// An assertion's verdict on the scene's graph, from each condition's truth in each state
/// (docs/semantics.md, "Assertions"); the length of the shortest counterexample for the
/// safety patterns (a path to where it fails).
fn assert_verdict(g: &Graph, pattern: Pattern, fair: bool, truth: &[Vec<bool>]) -> Verdict {
    let n = g.states.len();
    let shortest = |allowed: &dyn Fn(usize) -> bool, bad: &dyn Fn(usize) -> bool| {
        // Breadth first from the scene through the states `allowed`.
        let mut dist = vec![usize::MAX; n];
        let mut queue = VecDeque::new();
        if n > 0 && allowed(0) {
            dist[0] = 0;
            queue.push_back(0);
        }
        while let Some(i) = queue.pop_front() {
            if bad(i) {
                return Verdict::Refuted(Some(dist[i]));
            }
            for &j in &g.succ[i] {
                let j = j as usize;
                if allowed(j) && dist[j] == usize::MAX {
                    dist[j] = dist[i] + 1;
                    queue.push_back(j);
                }
            }
        }
        Verdict::Proved
    };
    // Whether some (weakly fair, with `fair`) maximal path from `from` avoids ψ.
    let escapes = |from: &[u32], psi: &[bool]| match fair {
        true => avoids_fairly(g, from, &|i| !psi[i]),
        false => avoids(g, from, &|i| !psi[i]).0,
    };
    let refuted = |bad: bool| {
        if bad {
            Verdict::Refuted(None)
        } else {
            Verdict::Proved
        }
    };
    match pattern {
        Pattern::Always => shortest(&|_| true, &|i| !truth[0][i]),
        Pattern::Never => shortest(&|_| true, &|i| truth[0][i]),
        Pattern::Precedes => shortest(&|i| !truth[0][i], &|i| truth[1][i]),
        Pattern::Eventually => refuted(escapes(&[0], &truth[0])),
        Pattern::LeadsTo => {
            let from: Vec<u32> = (0..n as u32).filter(|&i| truth[0][i as usize]).collect();
            refuted(escapes(&from, &truth[1]))
        }
    }
}
