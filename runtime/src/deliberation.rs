//! Deliberation: the theory licenses, the values order.
//!
//! At a deliberation point an agent has k options (its plan bindings). The `.ha` theory gives
//! the licence mask m ∈ {0,1}^k ([`Licence`]); the `.hb` values give q ∈ ℝ^k ([`evaluate`],
//! for a whole batch of agent states at once). Every policy sees only
//!
//! ```text
//! licensed(q, m) = m ⊙ q + (1 − m) ⊙ (−10^300)
//! ```
//!
//! and builds its distribution π on it, so supp(π) ⊆ supp(m): a policy may choose a worse
//! licensed option when its values are poor, never an unlicensed one. [`leaked`] measures the
//! probability a distribution puts on unlicensed options; the tests require it to be 0 exactly.
//!
//! Licensed values are made finite first: NaN counts as the worst licensed value, ±∞ as the
//! largest finite ones, so that no value a formula computes can reach or pass −10^300.

use hilbert_certificates::ir::{PolicyIr, ValueOp, ValueProgram};

/// What an unlicensed option's value becomes: "−∞" for every policy.
pub const UNLICENSED: f64 = -1e300;

/// The bound licensed values are clamped to, strictly above [`UNLICENSED`].
pub const LICENSED_BOUND: f64 = 1e299;

/// The licence mask: which options the theory allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Licence(pub Vec<bool>);

impl Licence {
    /// Whether any option is licensed.
    pub fn any(&self) -> bool {
        self.0.iter().any(|&b| b)
    }
}

/// Why no choice can be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeliberationError {
    /// The mask licenses nothing.
    NothingLicensed,
    /// q and m have different lengths.
    Mismatch {
        /// Length of q.
        values: usize,
        /// Length of m.
        mask: usize,
    },
}

impl std::fmt::Display for DeliberationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeliberationError::NothingLicensed => {
                f.write_str("no option is licensed: there is nothing a policy may choose")
            }
            DeliberationError::Mismatch { values, mask } => {
                write!(f, "{values} values for {mask} options")
            }
        }
    }
}

/// `m ⊙ q + (1 − m) ⊙ (−10^300)`, with licensed values made finite and above it.
pub fn licensed(q: &[f64], m: &Licence) -> Result<Vec<f64>, DeliberationError> {
    if q.len() != m.0.len() {
        return Err(DeliberationError::Mismatch {
            values: q.len(),
            mask: m.0.len(),
        });
    }
    if !m.any() {
        return Err(DeliberationError::NothingLicensed);
    }
    Ok(q.iter()
        .zip(&m.0)
        .map(|(&v, &ok)| {
            if !ok {
                UNLICENSED
            } else if v.is_nan() {
                -LICENSED_BOUND
            } else {
                v.clamp(-LICENSED_BOUND, LICENSED_BOUND)
            }
        })
        .collect())
}

/// The probability π puts on unlicensed options.
pub fn leaked(pi: &[f64], m: &Licence) -> f64 {
    pi.iter()
        .zip(&m.0)
        .filter(|(_, ok)| !**ok)
        .map(|(p, _)| *p)
        .sum()
}

/// What UCB needs besides the values: how often each option was chosen.
#[derive(Clone, Debug, Default)]
pub struct Counts(pub Vec<u64>);

/// The distribution a policy puts on the options, built on `licensed(q, m)`.
pub fn distribution(
    policy: PolicyIr,
    q: &[f64],
    m: &Licence,
    counts: &Counts,
) -> Result<Vec<f64>, DeliberationError> {
    let l = licensed(q, m)?;
    let k = l.len();
    // The first option with the largest licensed value (licensed values are above UNLICENSED,
    // so it is always licensed).
    let argmax = |scores: &[f64]| {
        let mut best = 0;
        for i in 1..scores.len() {
            if scores[i] > scores[best] {
                best = i;
            }
        }
        best
    };
    let one_hot = |i: usize| {
        let mut pi = vec![0.0; k];
        pi[i] = 1.0;
        pi
    };
    Ok(match policy {
        PolicyIr::Greedy => one_hot(argmax(&l)),
        PolicyIr::EpsilonGreedy(bits) => {
            let epsilon = f64::from_bits(bits).clamp(0.0, 1.0);
            let n = m.0.iter().filter(|&&b| b).count() as f64;
            let best = argmax(&l);
            (0..k)
                .map(|i| {
                    let explore = if l[i] > UNLICENSED { epsilon / n } else { 0.0 };
                    explore + if i == best { 1.0 - epsilon } else { 0.0 }
                })
                .collect()
        }
        PolicyIr::Softmax(bits) => {
            let t = f64::from_bits(bits);
            let t = if t.is_finite() && t > 0.0 { t } else { 1.0 };
            let max = l[argmax(&l)];
            // exp((−10^300 − max)/t) underflows to 0 for any sane t; the mask makes it 0 for
            // every t, so that supp(π) ⊆ supp(m) holds by construction, not by luck.
            let w: Vec<f64> = l
                .iter()
                .map(|&v| {
                    if v > UNLICENSED {
                        ((v - max) / t).exp()
                    } else {
                        0.0
                    }
                })
                .collect();
            let z: f64 = w.iter().sum();
            w.iter().map(|x| x / z).collect()
        }
        PolicyIr::Ucb(bits) => {
            let c = f64::from_bits(bits).max(0.0);
            let total: u64 = (0..k)
                .filter(|&i| l[i] > UNLICENSED)
                .map(|i| counts.0.get(i).copied().unwrap_or(0))
                .sum();
            let scores: Vec<f64> = (0..k)
                .map(|i| {
                    if l[i] <= UNLICENSED {
                        return UNLICENSED;
                    }
                    let n = counts.0.get(i).copied().unwrap_or(0);
                    if n == 0 {
                        // An untried licensed option first.
                        return LICENSED_BOUND;
                    }
                    let bonus = c * ((total.max(1) as f64).ln() / n as f64).sqrt();
                    (l[i] + bonus).min(LICENSED_BOUND)
                })
                .collect();
            one_hot(argmax(&scores))
        }
    })
}

/// Samples an option from π with a number in [0, 1).
pub fn sample(pi: &[f64], u: f64) -> usize {
    let mut acc = 0.0;
    let mut last = 0;
    for (i, &p) in pi.iter().enumerate() {
        if p > 0.0 {
            last = i;
            acc += p;
            if u < acc {
                return i;
            }
        }
    }
    last
}

/// The features a batch of agent states offers the value formulas.
pub trait Features {
    /// How many states.
    fn len(&self) -> usize;
    /// Whether the batch is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Feature `(belief, field)` of state `s`.
    fn feature(&self, s: usize, belief: u32, field: u32) -> f64;
    /// The learned value of plan binding `b` in state `s`.
    fn learned(&self, s: usize, binding: u32) -> f64;
}

/// Evaluates every option's formula for every state of the batch: `q[s][option]`, the options
/// being the agent's `k` plan bindings (0 for a binding with no formula). Each instruction runs
/// as one pass over the whole batch.
pub fn evaluate(options: &[(u32, ValueProgram)], k: usize, batch: &dyn Features) -> Vec<Vec<f64>> {
    let n = batch.len();
    let mut q = vec![vec![0.0; k]; n];
    let mut stack: Vec<Vec<f64>> = Vec::new();
    for (binding, program) in options {
        stack.clear();
        for op in &program.ops {
            match *op {
                ValueOp::Const(bits) => stack.push(vec![f64::from_bits(bits); n]),
                ValueOp::Feature { belief, field } => {
                    stack.push((0..n).map(|s| batch.feature(s, belief.0, field)).collect())
                }
                ValueOp::Learned(b) => stack.push((0..n).map(|s| batch.learned(s, b)).collect()),
                // A run refuses an agent whose values read a parameter it gives no value, so no
                // formula it evaluates has one; NaN, never a made-up number, if one came.
                ValueOp::Param(_) => stack.push(vec![f64::NAN; n]),
                ValueOp::Neg => {
                    if let Some(a) = stack.last_mut() {
                        a.iter_mut().for_each(|x| *x = -*x);
                    }
                }
                ValueOp::Add | ValueOp::Sub | ValueOp::Mul | ValueOp::Div | ValueOp::Rem => {
                    let (Some(b), Some(mut a)) = (stack.pop(), stack.pop()) else {
                        stack.push(vec![f64::NAN; n]);
                        continue;
                    };
                    for (x, y) in a.iter_mut().zip(&b) {
                        *x = match op {
                            ValueOp::Add => *x + y,
                            ValueOp::Sub => *x - y,
                            ValueOp::Mul => *x * y,
                            ValueOp::Rem => *x % y,
                            _ => *x / y,
                        };
                    }
                    stack.push(a);
                }
            }
        }
        if let (Some(result), true) = (stack.pop(), (*binding as usize) < k) {
            for (s, v) in result.into_iter().enumerate() {
                q[s][*binding as usize] = v;
            }
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(bits: &[u8]) -> Licence {
        Licence(bits.iter().map(|&b| b == 1).collect())
    }

    #[test]
    fn an_unlicensed_option_is_never_chosen_whatever_its_value() {
        let m = mask(&[0, 1, 1]);
        let q = [1e308, 0.1, 0.2];
        for policy in [
            PolicyIr::Greedy,
            PolicyIr::EpsilonGreedy(0.3f64.to_bits()),
            PolicyIr::Softmax(1e300f64.to_bits()),
            PolicyIr::Ucb(2.0f64.to_bits()),
        ] {
            let pi = distribution(policy, &q, &m, &Counts(vec![0, 3, 4])).unwrap();
            assert_eq!(leaked(&pi, &m), 0.0, "{policy:?}: {pi:?}");
            assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        assert_eq!(
            distribution(PolicyIr::Greedy, &q, &m, &Counts::default()).unwrap(),
            [0.0, 0.0, 1.0]
        );
    }

    #[test]
    fn nothing_licensed_is_an_error() {
        assert_eq!(
            distribution(PolicyIr::Greedy, &[1.0], &mask(&[0]), &Counts::default()),
            Err(DeliberationError::NothingLicensed)
        );
    }

    /// No features, no learning: a batch of `n` empty states.
    struct Empty(usize);

    impl Features for Empty {
        fn len(&self) -> usize {
            self.0
        }
        fn feature(&self, _: usize, _: u32, _: u32) -> f64 {
            0.0
        }
        fn learned(&self, _: usize, _: u32) -> f64 {
            0.0
        }
    }

    fn value(ops: Vec<ValueOp>) -> f64 {
        evaluate(&[(0, ValueProgram { ops })], 1, &Empty(1))[0][0]
    }

    fn c(x: f64) -> ValueOp {
        ValueOp::Const(x.to_bits())
    }

    #[test]
    fn remainder_is_the_remainder_not_the_quotient() {
        // `%` was lowered as `/` before issue 17: `7.5 % 2.0` was 3.75.
        assert_eq!(value(vec![c(7.5), c(2.0), ValueOp::Rem]), 1.5);
        assert_eq!(value(vec![c(-7.0), c(2.0), ValueOp::Rem]), -1.0);
        assert!(value(vec![c(1.0), c(0.0), ValueOp::Rem]).is_nan());
    }

    #[test]
    fn a_long_chain_is_folded_left_to_right() {
        // `1 - 1 - 1 - …` (10,000 terms) as the postfix `1 1 - 1 - …`: 1 − 9,999.
        let mut ops = vec![c(1.0)];
        for _ in 1..10_000 {
            ops.extend([c(1.0), ValueOp::Sub]);
        }
        assert_eq!(value(ops), -9_998.0);
    }
}
