//! Linear ranking functions for liveness: integer coefficients over the states' features such
//! that the rank is non-negative on every state of the region (the states before the goal) and
//! drops by at least one along every step inside it. Found by Z3 in linear integer arithmetic;
//! the kernel evaluates the expression instead of reading one rank per state.

use crate::{Answer, Log};
use hilbert_certificates::cert::{Feature, RankExpr};
use z3::ast::Int;

/// Above this many constraints or features, no expression is sought (per-state ranks stay).
pub const MAX_CONSTRAINTS: usize = 20_000;
/// See [`MAX_CONSTRAINTS`].
pub const MAX_FEATURES: usize = 64;
/// Coefficients are sought in `-BOUND..=BOUND`, so that expressions stay small.
pub const BOUND: i64 = 1 << 20;

/// A ranking expression for the region, if Z3 finds one: `values[s]` are the features of state
/// `s` (the same `features` order for every state), `edges` the steps `(s, t)` between region
/// states.
pub fn synthesize(
    log: &mut Log,
    name: &str,
    features: &[Feature],
    values: &[Vec<i64>],
    edges: &[(usize, usize)],
) -> Option<RankExpr> {
    if features.len() > MAX_FEATURES || values.len() + edges.len() > MAX_CONSTRAINTS {
        return None;
    }
    // Z3 failing on the way (`guarded`): no expression, the per-state ranks stay.
    crate::guarded(|| -> Option<RankExpr> {
        let constant = Int::new_const("c0");
        let coefs: Vec<Int> = (0..features.len())
            .map(|i| Int::new_const(format!("c{}", i + 1)))
            .collect();
        let rank = |s: usize| {
            let mut parts = vec![constant.clone()];
            for (c, v) in coefs.iter().zip(&values[s]) {
                if *v != 0 {
                    parts.push(Int::mul(&[c.clone(), Int::from_i64(*v)]));
                }
            }
            Int::add(&parts)
        };
        let mut assertions = Vec::new();
        for c in std::iter::once(&constant).chain(&coefs) {
            assertions.push(c.ge(Int::from_i64(-BOUND)));
            assertions.push(c.le(Int::from_i64(BOUND)));
        }
        let ranks: Vec<Int> = (0..values.len()).map(rank).collect();
        for r in &ranks {
            assertions.push(r.ge(Int::from_i64(0)));
        }
        for &(s, t) in edges {
            assertions.push(ranks[s].ge(Int::add(&[ranks[t].clone(), Int::from_i64(1)])));
        }
        let question = format!(
            "{name}: is there a linear ranking over {} features for {} states and {} steps?",
            features.len(),
            values.len(),
            edges.len()
        );
        let (answer, model) = log.check_model(name, &question, &assertions);
        if answer != Answer::Sat {
            return None;
        }
        let model = model?;
        let get = |x: &Int| model.eval(x, true).and_then(|v| v.as_i64());
        let terms = features
            .iter()
            .zip(&coefs)
            .filter_map(|(f, c)| match get(c)? {
                0 => None,
                k => Some(Some((f.clone(), k))),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(RankExpr {
            constant: get(&constant)?,
            terms,
        })
    })
    .unwrap_or(None)
}
