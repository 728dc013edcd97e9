//! The certificate checks: one small rule per witness kind, each re-deriving every step it needs
//! with the reference semantics. No search: every check is a pass over the states the
//! certificate lists.
//!
//! The kernel decides what must be proved ([`obligations`]): the list comes from the IR, and
//! the certificate must carry exactly one witness for each, in that order.

use crate::eval::holds;
use crate::semantics::{After, Atom, Effects, Fault, Mode, Semantics, State, Term};
use hilbert_certificates::cert::{
    self, AfterRec, AtomRec, Body, FaultRec, StateTable, TermNode, Witness,
};
use hilbert_certificates::ir::{
    AgentId, BeliefId, Cond, Ir, Network, Node, PatternArg, PlanId, Value,
};
use std::collections::{BTreeSet, HashMap};

/// Proof that the kernel admitted a certificate. Only this module can make one: its field is
/// private, so outside the kernel the type can be named and held but never built.
///
/// ```
/// fn gate(_: Option<hilbert_kernel::check::Admitted>) {}
/// ```
///
/// ```compile_fail
/// let forged = hilbert_kernel::check::Admitted { _sealed: () };
/// ```
#[derive(Debug)]
pub struct Admitted {
    _sealed: (),
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
#[derive(Debug)]
pub struct Report {
    /// The network's name (`Agent.Binding`), when the certificate decoded.
    pub network: Option<String>,
    /// Each obligation the kernel derived, with its verdict.
    pub obligations: Vec<(String, Verdict)>,
    /// Why the certificate itself is invalid, if it is.
    pub invalid: Option<String>,
    /// Present only when every obligation was proved.
    pub admitted: Option<Admitted>,
}

impl Report {
    fn invalid(reason: String) -> Report {
        Report {
            network: None,
            obligations: Vec::new(),
            invalid: Some(reason),
            admitted: None,
        }
    }
}

/// What an obligation is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `Plan_no_deadlock`.
    NoDeadlock,
    /// `P_live_D`: the desire's index.
    Live(usize),
    /// `P_released_D`: the desire's index and its constant impossible atom.
    Released(usize, Atom),
    /// `Plan_tell_feasible_N`.
    TellFeasible(PlanId, u32),
    /// `Agent.Binding_frame`: the frame conditions on the explored worlds, for the desires the
    /// binding serves (indices into the agent's desires). An obligation, not a theorem.
    Frame(Vec<usize>),
}

/// The obligations of network `n`, named as the build names them, in this order: no deadlock;
/// then for each desire the binding serves, its liveness and, when its `impossible` condition is
/// one belief with constant arguments that some `believe` of the network could raise, its
/// release; then every tell of every plan of the network; last, the frame of the explored
/// worlds (`Agent.Binding_frame`).
pub fn obligations(ir: &Ir, n: usize) -> Vec<(String, Kind)> {
    let Some(net) = ir.networks.get(n) else {
        return Vec::new();
    };
    let Some(agent) = ir.agents.get(net.agent.0 as usize) else {
        return Vec::new();
    };
    let Some(binding) = agent.plans.iter().position(|b| b.network == Some(n as u32)) else {
        return Vec::new();
    };
    let Some(root) = net.plans.get(net.root.0 as usize) else {
        return Vec::new();
    };
    let mut out = vec![(format!("{}_no_deadlock", root.name), Kind::NoDeadlock)];
    for (di, d) in agent.desires.iter().enumerate() {
        if !d.reachable_by.contains(&(binding as u32)) {
            continue;
        }
        out.push((format!("{}_live_{}", net.binding, d.name), Kind::Live(di)));
        for (cond, _) in &d.impossible {
            if let Some(atom) = constant_atom(cond)
                && can_raise(net, &atom)
            {
                out.push((
                    format!("{}_released_{}", net.binding, d.name),
                    Kind::Released(di, atom),
                ));
            }
        }
    }
    for (pi, code) in net.plans.iter().enumerate() {
        let mut tells: Vec<u32> = net
            .nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| belongs_to(net, code, *i))
            .filter_map(|(_, node)| match node {
                Node::Tell { index, .. } => Some(*index),
                _ => None,
            })
            .collect();
        tells.sort_unstable();
        tells.dedup();
        for k in tells {
            out.push((
                format!("{}_tell_feasible_{k}", code.name),
                Kind::TellFeasible(PlanId(pi as u32), k),
            ));
        }
    }
    let served = (0..agent.desires.len())
        .filter(|&d| agent.desires[d].reachable_by.contains(&(binding as u32)))
        .collect();
    out.push((
        format!("{}.{}_frame", agent.name, net.binding),
        Kind::Frame(served),
    ));
    out
}

/// Whether node `i` is in the code of `code` (its body or handlers).
fn belongs_to(net: &Network, code: &hilbert_certificates::ir::PlanCode, i: usize) -> bool {
    let mut stack: Vec<usize> = [Some(code.body), code.on_stop, code.on_resume, code.on_abort]
        .into_iter()
        .flatten()
        .map(|n| n.0 as usize)
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(n) = stack.pop() {
        if n == i {
            return true;
        }
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
    false
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

/// Whether some `believe` of the network could add `atom`.
pub fn can_raise(net: &Network, atom: &Atom) -> bool {
    net.nodes.iter().any(|n| match n {
        Node::Believe(a) => {
            a.belief == atom.belief
                && a.args.len() == atom.args.len()
                && a.args.iter().zip(&atom.args).all(|(e, v)| match e {
                    hilbert_certificates::ir::Expr::Literal(l) => Value::of(l) == *v,
                    _ => true,
                })
        }
        _ => false,
    })
}

/// The deepest term a state table may hold: a state is refused beyond it (a fixed limit, which
/// fails closed), so that no certificate can make the kernel's recursion overflow its stack.
pub const MAX_TERM_DEPTH: u32 = 256;

/// The most term nodes the states of one table may hold once their shared terms are written
/// out: beyond it the table is refused (a fixed limit, which fails closed), so that a small
/// certificate of deeply shared terms cannot make the kernel exhaust its memory.
pub const MAX_TABLE_NODES: u64 = 1 << 27;

/// The children of a term node, as indices into the table.
fn term_children(node: &TermNode) -> Vec<u32> {
    match node {
        TermNode::Done | TermNode::Faulted(_) | TermNode::Thread { .. } => Vec::new(),
        TermNode::Then(a, b) | TermNode::Interrupt(a, b) => vec![*a, *b],
        TermNode::Par(cs) | TermNode::Choice(cs) => cs.clone(),
        TermNode::Label { body, start, .. } => vec![*body, *start],
        TermNode::Inst { body, .. } | TermNode::Suspended(body) => vec![*body],
        TermNode::Handling { body, then } => match then {
            AfterRec::End => vec![*body],
            AfterRec::Suspend(t) | AfterRec::Continue(t) | AfterRec::Restart(t) => {
                vec![*body, *t]
            }
        },
    }
}

/// Writes out term `i` of a table whose children all come earlier (checked by the caller).
fn build_term(table: &StateTable, i: u32) -> Term {
    let get = |j: u32| build_term(table, j);
    let boxed = |j: u32| Box::new(build_term(table, j));
    match &table.terms[i as usize] {
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
        TermNode::Then(a, b) => Term::Then(boxed(*a), boxed(*b)),
        TermNode::Par(cs) => Term::Par(cs.iter().map(|c| get(*c)).collect()),
        TermNode::Choice(cs) => Term::Choice(cs.iter().map(|c| get(*c)).collect()),
        TermNode::Interrupt(a, b) => Term::Interrupt(boxed(*a), boxed(*b)),
        TermNode::Label {
            inst,
            label,
            body,
            start,
        } => Term::Label {
            inst: *inst,
            label: *label,
            body: boxed(*body),
            start: boxed(*start),
        },
        TermNode::Inst {
            inst,
            plan,
            params,
            body,
        } => Term::Inst {
            inst: *inst,
            plan: *plan,
            params: params.clone(),
            body: boxed(*body),
        },
        TermNode::Suspended(t) => Term::Suspended(boxed(*t)),
        TermNode::Handling { body, then } => Term::Handling {
            body: boxed(*body),
            then: match then {
                AfterRec::End => After::End,
                AfterRec::Suspend(t) => After::Suspend(boxed(*t)),
                AfterRec::Continue(t) => After::Continue(boxed(*t)),
                AfterRec::Restart(t) => After::Restart(boxed(*t)),
            },
        },
    }
}

/// Rebuilds the states of a table as reference states, refusing dangling indices, terms deeper
/// than [`MAX_TERM_DEPTH`] and tables larger than [`MAX_TABLE_NODES`] once written out.
pub fn decode_states(table: &StateTable) -> Result<Vec<State>, String> {
    // First pass, without writing anything out: every child is an earlier term, and each term's
    // depth and size (saturating).
    let mut depth: Vec<u32> = Vec::with_capacity(table.terms.len());
    let mut size: Vec<u64> = Vec::with_capacity(table.terms.len());
    for (i, node) in table.terms.iter().enumerate() {
        let (mut d, mut n) = (1u32, 1u64);
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
        depth.push(d);
        size.push(n);
    }
    let mut total: u64 = 0;
    for (k, (t, _)) in table.states.iter().enumerate() {
        let n = size
            .get(*t as usize)
            .ok_or_else(|| format!("state {k} refers to term {t}, which is not in the table"))?;
        total = total.saturating_add(*n);
        if total > MAX_TABLE_NODES {
            return Err(format!(
                "the states hold more than the kernel's limit of {MAX_TABLE_NODES} term nodes"
            ));
        }
    }
    let atom = |i: &u32| -> Result<Atom, String> {
        let AtomRec { told, belief, args } = table
            .atoms
            .get(*i as usize)
            .ok_or_else(|| format!("atom {i} is not in the table"))?;
        Ok(Atom {
            told: told.map(AgentId),
            belief: BeliefId(*belief),
            args: args.clone(),
        })
    };
    table
        .states
        .iter()
        .enumerate()
        .map(|(k, (t, atoms))| {
            if atoms.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("state {k}: its atoms are not sorted and distinct"));
            }
            let beliefs = atoms.iter().map(atom).collect::<Result<BTreeSet<_>, _>>()?;
            Ok(State {
                term: build_term(table, *t),
                beliefs,
            })
        })
        .collect()
}

/// A state as a person reads it (for refusals).
pub fn show_state(state: &State) -> String {
    let beliefs: Vec<String> = state.beliefs.iter().map(|a| format!("{a:?}")).collect();
    format!("term {:?}; beliefs {{{}}}", state.term, beliefs.join(", "))
}

/// The states of a table with their steps, closed: every step leads to a state of the table.
struct Closed {
    states: Vec<State>,
    /// For each state: its steps and the index of each step's next state.
    steps: Vec<Vec<(Effects, usize)>>,
}

/// Recomputes every state's steps and requires each next state to be in the table (closure).
fn close(sem: &Semantics, states: Vec<State>) -> Result<Closed, (usize, String)> {
    let mut index: HashMap<&State, usize> = HashMap::with_capacity(states.len());
    for (i, s) in states.iter().enumerate() {
        if index.insert(s, i).is_some() {
            return Err((i, "the state is listed twice".into()));
        }
    }
    // Each state's steps are independent of the others': computed on every core, each next
    // state looked up at once and dropped (only what the step did is kept), and the first failure
    // reported in state order, so the verdict is the same on any machine.
    use rayon::prelude::*;
    let results: Vec<Result<Vec<(Effects, usize)>, String>> = states
        .par_iter()
        .map(|s| {
            let mut out = Vec::new();
            for step in sem.steps(s) {
                match index.get(&step.next) {
                    Some(&j) => out.push((step.effects, j)),
                    None => {
                        return Err(format!(
                            "a step leads to a state the certificate does not list: {}",
                            show_state(&step.next)
                        ));
                    }
                }
            }
            Ok(out)
        })
        .collect();
    let mut all = Vec::with_capacity(states.len());
    for (i, r) in results.into_iter().enumerate() {
        all.push(r.map_err(|why| (i, why))?);
    }
    drop(index);
    Ok(Closed { states, steps: all })
}

fn refusal(obligation: &str, state: Option<&State>, rule: &'static str, reason: String) -> Verdict {
    Verdict::Refused(Refusal {
        obligation: obligation.to_string(),
        state: state.map(show_state),
        rule,
        reason,
    })
}

/// Checks certificate bytes. With `sources`, also requires the certificate's source digests to
/// be exactly the digests of those files.
pub fn check(bytes: &[u8], sources: Option<&[[u8; 32]]>) -> Report {
    let body = match cert::decode(bytes) {
        Ok(b) => b,
        Err(e) => return Report::invalid(e.to_string()),
    };
    if cert::sha256(&cert::ir_bytes(&body.ir)) != body.ir_sha256 {
        return Report::invalid("the IR's digest does not match the IR".into());
    }
    if let Some(given) = sources {
        let mut want: Vec<[u8; 32]> = body.sources.iter().map(|s| s.sha256).collect();
        let mut got = given.to_vec();
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            return Report::invalid(
                "the certificate's source digests do not match the given sources".into(),
            );
        }
    }
    check_body(&body)
}

fn check_body(body: &Body) -> Report {
    let n = body.network as usize;
    let (Some(net), true) = (body.ir.networks.get(n), true) else {
        return Report::invalid(format!("network {n} is not in the IR"));
    };
    let Some(agent) = body.ir.agents.get(net.agent.0 as usize) else {
        return Report::invalid("the network's agent is not in the IR".into());
    };
    let name = format!("{}.{}", agent.name, net.binding);
    let derived = obligations(&body.ir, n);
    let sem = Semantics::new(net, agent);
    let states = match decode_states(&body.states) {
        Ok(s) => s,
        Err(e) => return Report::invalid(format!("the state table is malformed: {e}")),
    };
    let mut report = Report {
        network: Some(name),
        obligations: Vec::new(),
        invalid: None,
        admitted: None,
    };
    // The scene's initial state is state 0.
    let scene_ok = states.first() == Some(&sem.initial());
    let closed = if scene_ok {
        close(&sem, states).map_err(Some)
    } else {
        Err(None)
    };
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
                Err(None) => refusal(
                    oblig,
                    None,
                    "scene.initial",
                    "state 0 is not the scene's initial state".into(),
                ),
                Err(Some((i, why))) => {
                    refusal(oblig, None, "invariant.closed", format!("state {i}: {why}"))
                }
                Ok(c) => check_witness(body, &sem, c, oblig, kind, w),
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
        report.admitted = Some(Admitted { _sealed: () });
    }
    report
}

fn check_witness(
    body: &Body,
    sem: &Semantics,
    c: &Closed,
    oblig: &str,
    kind: &Kind,
    w: &Witness,
) -> Verdict {
    match (kind, w) {
        (Kind::Frame(served), Witness::Frame { .. }) => {
            let net = &body.ir.networks[body.network as usize];
            let beliefs: Vec<_> = c.states.iter().map(|s| &s.beliefs).collect();
            crate::frame::check_frame(&body.ir, net, sem.agent(), served, &beliefs, oblig)
        }
        (Kind::NoDeadlock, Witness::Invariant { .. }) => check_invariant(c, oblig),
        (Kind::Live(d), Witness::Ranking { .. } | Witness::RankingExpr { .. }) => {
            // The ranks: given per state, or computed from the expression on every state.
            let ranks: Vec<u64> = match w {
                Witness::RankingExpr { expr, .. } => c
                    .states
                    .iter()
                    .map(|s| crate::rank::rank(expr, s))
                    .collect(),
                Witness::Ranking { ranks, .. } => ranks.clone(),
                _ => Vec::new(),
            };
            let desire = &sem.agent().desires[*d];
            if let Some(param) = desire.params_used.first() {
                // The condition's meaning depends on a value the scene does not fix.
                return refusal(
                    oblig,
                    None,
                    "live.parameters",
                    format!(
                        "the desire's conditions read the agent parameter `{param}`, whose value is not known at build time"
                    ),
                );
            }
            let achieved = &desire.achieved;
            let goal = |s: &State| achieved.iter().any(|a| holds(a, &s.beliefs, Some(0)));
            check_ranking(c, &ranks, &[0], &goal, oblig, "ranking")
        }
        (Kind::Released(_, atom), Witness::Release { states, ranks, .. }) => {
            check_release(sem, c, atom, states, ranks, oblig)
        }
        (Kind::TellFeasible(plan, k), Witness::TellFeasible { .. }) => {
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
    for (i, s) in c.states.iter().enumerate() {
        if !s.finished() && c.steps[i].is_empty() {
            return refusal(
                oblig,
                Some(s),
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
    starts: &[usize],
    goal: &dyn Fn(&State) -> bool,
    oblig: &str,
    rule: &'static str,
) -> Verdict {
    if ranks.len() != c.states.len() {
        return refusal(
            oblig,
            None,
            "ranking.length",
            format!("{} ranks for {} states", ranks.len(), c.states.len()),
        );
    }
    for &i in starts {
        if !goal(&c.states[i]) && ranks[i] == u64::MAX {
            return refusal(
                oblig,
                Some(&c.states[i]),
                "ranking.start",
                format!("{rule}: start state {i} misses the goal and has no rank"),
            );
        }
    }
    for (i, s) in c.states.iter().enumerate() {
        if goal(s) || ranks[i] == u64::MAX {
            continue;
        }
        if c.steps[i].is_empty() {
            return refusal(
                oblig,
                Some(s),
                "ranking.progress",
                format!("{rule}: state {i} misses the goal and cannot step"),
            );
        }
        for (_, j) in &c.steps[i] {
            if !goal(&c.states[*j]) && ranks[*j] >= ranks[i] {
                return refusal(
                    oblig,
                    Some(s),
                    "ranking.decreases",
                    format!(
                        "{rule}: state {i} (rank {}) steps to state {j} (rank {}), which misses the goal",
                        ranks[i], ranks[*j]
                    ),
                );
            }
        }
    }
    Verdict::Proved
}

/// Release: from every state believing the atom, the abort leads into the witness's table,
/// which is closed and ranked towards finishing.
fn check_release(
    sem: &Semantics,
    c: &Closed,
    atom: &Atom,
    table: &StateTable,
    ranks: &[u64],
    oblig: &str,
) -> Verdict {
    let states = match decode_states(table) {
        Ok(s) => s,
        Err(e) => return refusal(oblig, None, "release.table", e),
    };
    let sub = match close(sem, states) {
        Ok(s) => s,
        Err((i, why)) => {
            return refusal(
                oblig,
                None,
                "release.closed",
                format!("abort-extended state {i}: {why}"),
            );
        }
    };
    let index: HashMap<&State, usize> =
        sub.states.iter().enumerate().map(|(i, s)| (s, i)).collect();
    let mut starts = Vec::new();
    for s in &c.states {
        if !s.beliefs.contains(atom) {
            continue;
        }
        let aborted = sem.abort_root(s);
        match index.get(&aborted.next) {
            Some(&i) => starts.push(i),
            None => {
                return refusal(
                    oblig,
                    Some(s),
                    "release.start",
                    "the state the abort leads to is not in the witness".into(),
                );
            }
        }
    }
    drop(index);
    let finished = |s: &State| s.finished();
    check_ranking(&sub, ranks, &starts, &finished, oblig, "release")
}

/// Tell feasibility: every step that runs the tell runs it feasibly.
fn check_tells(c: &Closed, plan: PlanId, k: u32, oblig: &str) -> Verdict {
    for (i, s) in c.states.iter().enumerate() {
        for (effects, _) in &c.steps[i] {
            if effects
                .tells
                .iter()
                .any(|&(p, n, ok)| p == plan && n == k && !ok)
            {
                return refusal(
                    oblig,
                    Some(s),
                    "tell.feasible",
                    format!("a step from state {i} runs tell {k} infeasibly"),
                );
            }
        }
    }
    Verdict::Proved
}
