//! Ranking expressions: the rank of a state from a linear expression over its features (a slot's
//! value in a thread, a thread's position), instead of one rank per state in the certificate.

use crate::semantics::{After, State, Term};
use hilbert_certificates::cert::{Feature, RankExpr};
use hilbert_certificates::ir::Value;

/// The value of a feature in a state.
pub fn feature(state: &State, f: &Feature) -> i64 {
    let mut best: Option<i64> = None;
    let mut at = false;
    visit(&state.term, &mut |t| {
        let Term::Thread {
            inst,
            plan,
            stack,
            env,
            ..
        } = t
        else {
            return;
        };
        match f {
            Feature::Slot {
                inst: i,
                plan: p,
                slot,
            } if i == inst && p == plan => {
                if let Some(Value::Int(n)) = env.get(*slot as usize) {
                    best = Some(best.map_or(*n, |b| b.max(*n)));
                }
            }
            Feature::At { inst: i, node } if i == inst && stack.last() == Some(node) => at = true,
            _ => {}
        }
    });
    match f {
        Feature::Slot { .. } => best.unwrap_or(0),
        Feature::At { .. } => i64::from(at),
    }
}

/// The rank an expression gives a state: `u64::MAX` (no claim) where it is negative or its
/// arithmetic leaves the 64-bit range.
pub fn rank(expr: &RankExpr, state: &State) -> u64 {
    let mut r = Some(expr.constant);
    for (f, c) in &expr.terms {
        r = r.and_then(|r| {
            c.checked_mul(feature(state, f))
                .and_then(|x| r.checked_add(x))
        });
    }
    match r {
        Some(r) if r >= 0 => r as u64,
        _ => u64::MAX,
    }
}

/// Calls `f` on every subterm, the term itself first.
fn visit(t: &Term, f: &mut dyn FnMut(&Term)) {
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
