//! Deciding a network's theorems on the oracle's state graph: no deadlock, liveness of each
//! desire the binding serves, release, tell feasibility; with the reachable belief sets and the
//! shortest counterexample lengths.

use crate::model::{Code, Ex, Model, PlanId, Sym};
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
}

impl Kind {
    /// Every kind, in the order the reports list them.
    pub const ALL: [Kind; 7] = [
        Kind::NoDeadlock,
        Kind::Live,
        Kind::Released,
        Kind::Abortable,
        Kind::Stoppable,
        Kind::Tell,
        Kind::HandlerTell,
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
            g.dist.push(0);
        }
    }
    while let Some(i) = queue.pop_front() {
        let s = g.states[i as usize].clone();
        if halt(&s.term) {
            continue;
        }
        let mut next = Vec::new();
        for (t, fx) in mc.steps(&s) {
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
                    g.dist.push(g.dist[i as usize] + 1);
                    queue.push_back(j);
                    j
                }
            };
            next.push(j);
        }
        g.succ[i as usize] = next;
    }
    g
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
                let (fails, len) = avoids(g, &[0], &|i| !goal[i]);
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
    out
}
