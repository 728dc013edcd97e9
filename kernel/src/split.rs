//! Steps of a state split at its `‖`: a step that moves one or two children of the `‖` is
//! fired on the state reduced to those children, memoised, and the children it made put back.
//! Most states of a network differ from others in a few children, so most steps are found in
//! the memo. The step fired is the reference semantics' own (`Semantics::fire_candidate`); what
//! this module adds is the argument that putting the moved children back gives the step the
//! whole state takes (docs/certificates.md, "Steps of a split state"):
//!
//! - the state's term is a context `C` (instances, labels and sequences, each through its first
//!   child, none of which runs a thread) around a `‖` of children `c₀ … cₙ`;
//! - firing a candidate changes only the children its paths lead into (`fire_at` rebuilds only
//!   along them); the settle then runs every child in order, sharing one context of beliefs,
//!   fuel and queued commands and tail calls;
//! - every child the step does not move is *quiet* ([`quiet`]): no thread of it runs, so the
//!   settle leaves it equal to itself, reads and changes nothing but fuel, and spends a known
//!   amount of fuel on it;
//! - every child the step moves is *closed* ([`closed`]): each of its threads is inside an
//!   instance of its own number within the child, so a tail call it makes is taken there;
//! - the step on the reduced state `C[c_i ‖ c_j]` issued no command, left `C` as it was, kept
//!   its `‖` (so not every child ended), and spent with the quiet children less fuel than
//!   [`MACRO_STEP_FUEL`] (so neither run diverged for want of it; nesting is the same in both,
//!   the moved children being as deep in each).
//!
//! Under these conditions the whole state's step and the reduced one run the same threads on
//! the same beliefs in the same order, and the next term is `C[… c_i' … c_j' …]`. A candidate
//! for which any condition fails is fired on the whole state.

use super::{Budget, FastMap, NOT_HELD, Next, Table, kids, with_kids};
use crate::semantics::{Atom, Candidate, MACRO_STEP_FUEL, Mode, Semantics, State, Sub, Term};
use hilbert_certificates::ir::{Node, PlanId};
use std::collections::BTreeSet;

/// A state's term split at its `‖`.
pub(super) struct Split {
    /// The context's held nodes, from the root down, and the `‖`'s.
    ctx: Vec<u32>,
    par: u32,
    /// The context's number in the memo.
    key: u32,
    /// Per child: whether it is closed, and the fuel a settle spends on it when it is quiet.
    kids: Vec<(bool, Option<u64>)>,
}

/// What a step did to the children it moved, on the reduced state.
struct Moved {
    kids: Vec<Sub>,
    /// Their held indices, once found ([`NOT_HELD`] until then).
    held: Vec<u32>,
    beliefs: BTreeSet<Atom>,
    /// The tells it ran infeasibly.
    bad: Vec<(PlanId, u32)>,
    work: u64,
}

/// A memo (one per core): contexts numbered, held children's closedness and quietness, and
/// steps of reduced states by context, moved children, belief set and candidate.
#[derive(Default)]
pub(super) struct Memo {
    contexts: FastMap<Vec<u64>, u32>,
    kids: FastMap<u32, (bool, Option<u64>)>,
    steps: FastMap<(u32, Vec<u32>, u32, Candidate), Option<Moved>>,
}

/// `par` in the context `ctx` (held nodes, from the root down, each over its first child).
fn splice(t: &Table, ctx: &[u32], par: Term) -> Term {
    ctx.iter().rev().fold(par, |inner, &c| {
        let mut held: Vec<Sub> = (t.kids_of(c).iter())
            .map(|&k| t.terms[k as usize].clone())
            .collect();
        held[0] = Sub::new(inner);
        with_kids(&t.terms[c as usize], &held, None)
    })
}

/// State `i`'s term split at its `‖`, when it is one in a context of instances, labels and
/// sequences.
pub(super) fn split(sem: &Semantics, t: &Table, i: usize, memo: &mut Memo) -> Option<Split> {
    let (mut ctx, mut at) = (Vec::new(), t.states[i].0);
    loop {
        match &*t.terms[at as usize] {
            Term::Par(_) => break,
            Term::Inst { .. } | Term::Label { .. } | Term::Then(..) => ctx.push(at),
            _ => return None,
        }
        at = t.kids_of(at)[0];
    }
    // The context by its nodes' own fields and other children: a list of parameters by its
    // address (held by the table as long as the memo lives), children by their held indices.
    let mut name = Vec::new();
    for &c in &ctx {
        name.extend(match &*t.terms[c as usize] {
            Term::Inst {
                inst, plan, params, ..
            } => [
                0,
                u64::from(*inst),
                u64::from(plan.0),
                params.as_ptr() as *const () as u64,
            ],
            Term::Label { inst, label, .. } => [1, u64::from(*inst), u64::from(label.0), 0],
            _ => [2; 4],
        });
        name.extend(t.kids_of(c)[1..].iter().map(|&k| u64::from(k)));
    }
    let n = memo.contexts.len() as u32;
    let key = *memo.contexts.entry(name).or_insert(n);
    let kids = (t.kids_of(at).iter())
        .map(|&k| {
            *memo.kids.entry(k).or_insert_with(|| {
                let c = &*t.terms[k as usize];
                (closed(c, &mut Vec::new()), quiet(sem, c, true))
            })
        })
        .collect();
    Some(Split {
        ctx,
        par: at,
        key,
        kids,
    })
}

/// Whether every thread of `t` is inside an instance of its own number within `t` (`within`:
/// the numbers of the instances around `t`).
fn closed(t: &Term, within: &mut Vec<u32>) -> bool {
    match t {
        Term::Thread { inst, .. } => within.contains(inst),
        Term::Inst { inst, .. } => {
            within.push(*inst);
            let ok = kids(t).all(|c| closed(c, within));
            within.pop();
            ok
        }
        _ => kids(t).all(|c| closed(c, within)),
    }
}

/// The fuel a settle spends on `t` when it leaves `t` equal to itself and reads and changes
/// nothing else: no thread of `t` runs (`Semantics::run`: a ready thread waits for its step, and
/// under a choice or an interrupt's right side, where nothing with effects runs, one at a
/// communication or at an action with effects is made ready again at once for one unit of
/// fuel), and nothing ends (so nothing is normalised away). `None` otherwise. `effects`:
/// whether `t` is started (not under a choice's alternatives nor an interrupt's right side).
fn quiet(sem: &Semantics, t: &Term, effects: bool) -> Option<u64> {
    let done = |s: &Sub| **s == Term::Done;
    match t {
        Term::Done | Term::Faulted(_) | Term::Suspended(_) => Some(0),
        Term::Thread {
            mode: Mode::Ready,
            stack,
            ..
        } => match stack.last().and_then(|&n| sem.node(n)) {
            _ if effects => Some(0),
            Some(
                Node::Stop
                | Node::Send { .. }
                | Node::Recv { .. }
                | Node::Believe(_)
                | Node::Forget(_)
                | Node::Tell { .. }
                | Node::Command { .. },
            ) => Some(1),
            _ => None,
        },
        Term::Then(a, _)
        | Term::Label { body: a, .. }
        | Term::Inst { body: a, .. }
        | Term::Handling { body: a, .. }
            if !done(a) =>
        {
            quiet(sem, a, effects)
        }
        Term::Par(cs) if !cs.iter().all(done) => cs.iter().map(|c| quiet(sem, c, effects)).sum(),
        Term::Choice(cs) => cs.iter().map(|c| quiet(sem, c, false)).sum(),
        Term::Interrupt(p, q) if !done(p) => Some(quiet(sem, p, effects)? + quiet(sem, q, false)?),
        _ => None,
    }
}

/// Candidate `c` of split state `i` (`state`): the next state, found or to be numbered, and the
/// tells the step ran infeasibly; `None` when a condition of the module's argument fails (the
/// candidate is then fired on the whole state).
pub(super) fn step(
    sem: &Semantics,
    t: &Table,
    (i, state): (usize, &State),
    s: &Split,
    c: &Candidate,
    memo: &mut Memo,
    budget: &Budget,
) -> Option<(Next, Vec<(PlanId, u32)>)> {
    let d = s.ctx.len();
    let mut moved: Vec<usize> = c
        .paths()
        .map(|p| p.get(d).copied())
        .collect::<Option<_>>()?;
    moved.sort_unstable();
    moved.dedup();
    let mut fuel = 0;
    for (k, &(closed, quiet)) in s.kids.iter().enumerate() {
        match moved.contains(&k) {
            true if !closed => return None,
            true => {}
            false => fuel += quiet?,
        }
    }
    let all = t.kids_of(s.par);
    let ids: Vec<u32> = moved
        .iter()
        .map(|&k| all.get(k).copied())
        .collect::<Option<_>>()?;
    let mut paths = Vec::new();
    for p in c.paths() {
        let mut q = p.to_vec();
        q[d] = moved.iter().position(|&k| k == p[d])?;
        paths.push(q);
    }
    let set = t.states[i].1;
    let key = (s.key, ids, set, c.moved(paths));
    if !memo.steps.contains_key(&key) {
        let par = Term::Par(key.1.iter().map(|&k| t.terms[k as usize].clone()).collect());
        let reduced = State {
            term: splice(t, &s.ctx, par),
            beliefs: state.beliefs.clone(),
        };
        if !budget.spend(t.cost(i)) {
            return None;
        }
        let step = sem.fire_candidate(&reduced, &key.3);
        budget.spend(step.work);
        let moved = put_back(t, &s.ctx, step, moved.len());
        memo.steps.insert(key.clone(), moved);
    }
    let m = memo.steps.get_mut(&key)?.as_mut()?;
    if m.work.saturating_add(fuel) >= u64::from(MACRO_STEP_FUEL) || !budget.spend(all.len() as u64)
    {
        return None;
    }
    for (x, h) in m.kids.iter().zip(&mut m.held) {
        if *h == NOT_HELD {
            *h = t.find_term(x, None, &mut Vec::new()).unwrap_or(NOT_HELD);
        }
    }
    let next = match found(t, s, &moved, m) {
        Some(j) => Next::Old(j),
        None => {
            let mut cs: Vec<Sub> = all.iter().map(|&k| t.terms[k as usize].clone()).collect();
            for (&k, x) in moved.iter().zip(&m.kids) {
                cs[k] = x.clone();
            }
            let next = State {
                term: splice(t, &s.ctx, Term::Par(cs)),
                beliefs: m.beliefs.clone(),
            };
            t.find(next, Some(t.states[i].0))
        }
    };
    Some((next, m.bad.clone()))
}

/// The children a step on a reduced state made, when it issued no command and left the
/// context as it was around a `‖` of as many children.
fn put_back(t: &Table, ctx: &[u32], step: crate::semantics::Step, n: usize) -> Option<Moved> {
    if step.effects.commands > 0 {
        return None;
    }
    let mut at = &step.next.term;
    for _ in ctx {
        at = kids(at).next()?;
    }
    let Term::Par(cs) = at else { return None };
    if cs.len() != n || splice(t, ctx, Term::Par(cs.clone())) != step.next.term {
        return None;
    }
    let mut bad = Vec::new();
    for &(p, k, ok) in &step.effects.tells {
        if !ok && !bad.contains(&(p, k)) {
            bad.push((p, k));
        }
    }
    Some(Moved {
        kids: cs.clone(),
        held: vec![NOT_HELD; n],
        beliefs: step.next.beliefs,
        bad,
        work: step.work,
    })
}

/// The number of the state a step made, when its term's nodes and the state are all held.
fn found(t: &Table, s: &Split, moved: &[usize], m: &Moved) -> Option<u32> {
    let mut ids = t.kids_of(s.par).to_vec();
    for (&k, &h) in moved.iter().zip(&m.held) {
        *ids.get_mut(k)? = h;
    }
    if m.held.contains(&NOT_HELD) {
        return None;
    }
    let mut at = t.find_over(s.par, &ids)?;
    for &c in s.ctx.iter().rev() {
        let mut ids = t.kids_of(c).to_vec();
        ids[0] = at;
        at = t.find_over(c, &ids)?;
    }
    let set = t.sets.get(&m.beliefs)?;
    t.numbers.get(&(at, *set)).copied()
}
