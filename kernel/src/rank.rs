//! Ranking expressions: the rank of a state from a linear expression over its features (a slot's
//! value in a thread, a thread's position), instead of one rank per state in the certificate.

use crate::semantics::{After, State, Term};
use hilbert_certificates::cert::{Feature, RankExpr};
use hilbert_certificates::ir::{NodeId, PlanId, Value};

/// A thread of a state, as features read it: its instance, plan, top node and slots.
type Thread<'s> = (u32, PlanId, Option<NodeId>, &'s [Value]);

fn threads(state: &State) -> Vec<Thread<'_>> {
    let mut out = Vec::new();
    visit(&state.term, &mut |t| {
        if let Term::Thread {
            inst,
            plan,
            stack,
            env,
            ..
        } = t
        {
            out.push((*inst, *plan, stack.last().copied(), env.as_slice()));
        }
    });
    out
}

fn value(threads: &[Thread<'_>], f: &Feature) -> i64 {
    match f {
        Feature::Slot { inst, plan, slot } => threads
            .iter()
            .filter(|(i, p, _, _)| i == inst && p == plan)
            .filter_map(|(_, _, _, env)| match env.get(*slot as usize) {
                Some(Value::Int(n)) => Some(*n),
                _ => None,
            })
            .max()
            .unwrap_or(0),
        Feature::At { inst, node } => i64::from(
            threads
                .iter()
                .any(|(i, _, top, _)| i == inst && *top == Some(*node)),
        ),
    }
}

/// The value of a feature in a state.
pub fn feature(state: &State, f: &Feature) -> i64 {
    value(&threads(state), f)
}

/// The rank an expression gives a state: `u64::MAX` (no claim) where it is negative or its
/// arithmetic leaves the 64-bit range.
pub fn rank(expr: &RankExpr, state: &State) -> u64 {
    rank_within(expr, state, &mut |_| true).unwrap_or(u64::MAX)
}

/// [`rank`], telling `spend` first what it costs (the threads times the expression's terms);
/// `None` when `spend` says no.
pub fn rank_within(
    expr: &RankExpr,
    state: &State,
    spend: &mut dyn FnMut(u64) -> bool,
) -> Option<u64> {
    let threads = threads(state);
    let cost = (threads.len() as u64 + 1).saturating_mul(expr.terms.len() as u64 + 1);
    if !spend(cost) {
        return None;
    }
    let mut r = Some(expr.constant);
    for (f, c) in &expr.terms {
        r = r.and_then(|r| {
            c.checked_mul(value(&threads, f))
                .and_then(|x| r.checked_add(x))
        });
    }
    Some(match r {
        Some(r) if r >= 0 => r as u64,
        _ => u64::MAX,
    })
}

/// Calls `f` on every subterm, the term itself first.
fn visit<'t>(t: &'t Term, f: &mut dyn FnMut(&'t Term)) {
    f(t);
    match t {
        Term::Then(a, b) | Term::Interrupt(a, b) => {
            visit(a, f);
            visit(b, f);
        }
        Term::Par(cs) | Term::Choice(cs) => cs.iter().for_each(|c| visit(c, f)),
        Term::Suspended(b) => visit(b, f),
        Term::Label { body, .. } | Term::Inst { body, .. } => visit(body, f),
        Term::Handling { body, then } => {
            visit(body, f);
            if let After::Suspend(s) | After::Continue(s) = then {
                visit(s, f);
            }
        }
        Term::Done | Term::Faulted(_) | Term::Thread { .. } => {}
    }
}
