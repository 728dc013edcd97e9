//! Evaluation of plan expressions over an environment, and of agent conditions over a belief
//! set. Integer arithmetic is checked: leaving the 64-bit range is an error, never a wrap.

use crate::semantics::Atom;
use hilbert_certificates::ir::*;
use std::collections::BTreeSet;

/// Why an expression has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// The result left the 64-bit range.
    Overflow,
    /// Division or remainder by zero.
    DivisionByZero,
    /// The expression does not fit the environment (a missing slot, operands of the wrong type).
    Malformed,
}

/// The value of a plan expression.
pub fn eval(e: &Expr, env: &[Value]) -> Result<Value, EvalError> {
    Ok(match e {
        Expr::Literal(l) => Value::of(l),
        Expr::Slot(s) => env.get(s.0 as usize).cloned().ok_or(EvalError::Malformed)?,
        Expr::Neg(a) => Value::Int(
            int(eval(a, env)?)?
                .checked_neg()
                .ok_or(EvalError::Overflow)?,
        ),
        Expr::Not(a) => Value::Bool(!boolean(eval(a, env)?)?),
        Expr::Arith(op, a, b) => Value::Int(arith(*op, int(eval(a, env)?)?, int(eval(b, env)?)?)?),
        Expr::Compare(op, a, b) => Value::Bool(compare(*op, &eval(a, env)?, &eval(b, env)?)?),
        Expr::And(a, b) => Value::Bool(boolean(eval(a, env)?)? && boolean(eval(b, env)?)?),
        Expr::Or(a, b) => Value::Bool(boolean(eval(a, env)?)? || boolean(eval(b, env)?)?),
        // Left to right, as the tree `Arith(op2, Arith(op1, a, b), c)` it stands for: each
        // operand is evaluated, then the operation on its left is applied.
        Expr::Chain(a, rest) => {
            Value::Int(rest.iter().try_fold(int(eval(a, env)?)?, |acc, (op, b)| {
                arith(*op, acc, int(eval(b, env)?)?)
            })?)
        }
    })
}

/// The values of a list of expressions, or `None` if one has none.
pub fn eval_args(args: &[Expr], env: &[Value]) -> Option<Vec<Value>> {
    args.iter().map(|a| eval(a, env).ok()).collect()
}

fn int(v: Value) -> Result<i64, EvalError> {
    match v {
        Value::Int(n) => Ok(n),
        _ => Err(EvalError::Malformed),
    }
}

fn boolean(v: Value) -> Result<bool, EvalError> {
    match v {
        Value::Bool(b) => Ok(b),
        _ => Err(EvalError::Malformed),
    }
}

/// Checked integer arithmetic; `/` and `%` round toward zero.
pub fn arith(op: ArithOp, a: i64, b: i64) -> Result<i64, EvalError> {
    let r = match op {
        ArithOp::Add => a.checked_add(b),
        ArithOp::Sub => a.checked_sub(b),
        ArithOp::Mul => a.checked_mul(b),
        ArithOp::Div | ArithOp::Rem if b == 0 => return Err(EvalError::DivisionByZero),
        ArithOp::Div => a.checked_div(b),
        ArithOp::Rem => a.checked_rem(b),
    };
    r.ok_or(EvalError::Overflow)
}

/// A comparison: integers are ordered; any two values may be compared for (in)equality.
pub fn compare(op: CompareOp, a: &Value, b: &Value) -> Result<bool, EvalError> {
    Ok(match op {
        CompareOp::Eq => a == b,
        CompareOp::Ne => a != b,
        _ => {
            let (x, y) = (int(a.clone())?, int(b.clone())?);
            match op {
                CompareOp::Lt => x < y,
                CompareOp::Le => x <= y,
                CompareOp::Gt => x > y,
                _ => x >= y,
            }
        }
    })
}

/// Whether a condition holds of a belief set (with the given attention, if any). Belief
/// patterns bind their fresh variables existentially: `B(self) made(n) ∧ n < 3` holds when some
/// believed `made(v)` has `v < 3`. An error inside a comparison makes that comparison false.
pub fn holds(cond: &Cond, beliefs: &BTreeSet<Atom>, attention: Option<u32>) -> bool {
    holds_within(cond, beliefs, attention, &|_| true)
}

/// [`holds`], telling `spend` what each step of the search costs (one unit per goal it looks at
/// and per belief it tries against a pattern): a condition of many patterns can take time
/// exponential in their number. When `spend` says no, the answer is `false`, and means nothing:
/// the kernel then refuses the whole certificate for passing its work limit.
pub fn holds_within(
    cond: &Cond,
    beliefs: &BTreeSet<Atom>,
    attention: Option<u32>,
    spend: &dyn Fn(u64) -> bool,
) -> bool {
    holds_minded(cond, beliefs, attention, &|_| false, spend)
}

/// [`holds_within`], with `mind` deciding the mental tests `desires D` and `intends P` (which
/// only an assertion reads; [`holds_within`] finds them false).
pub fn holds_minded(
    cond: &Cond,
    beliefs: &BTreeSet<Atom>,
    attention: Option<u32>,
    mind: &dyn Fn(&Cond) -> bool,
    spend: &dyn Fn(u64) -> bool,
) -> bool {
    let w = World {
        beliefs,
        attention,
        mind,
        spend,
    };
    solve(&[cond], &w, &mut Vec::new())
}

/// The agent's attention with these beliefs (`docs/semantics.md`, Attention): from the initial
/// attention (0), each `when φ attend A` rule in source order whose φ holds, read with the
/// attention so far, moves it to A. `spend` as for [`holds_within`].
pub fn attention_within(
    agent: &Agent,
    beliefs: &BTreeSet<Atom>,
    spend: &dyn Fn(u64) -> bool,
) -> u32 {
    agent.attends.iter().fold(0, |a, (c, to)| {
        if holds_within(c, beliefs, Some(a), spend) {
            *to
        } else {
            a
        }
    })
}

/// [`attention_within`] with no limit.
pub fn attention(agent: &Agent, beliefs: &BTreeSet<Atom>) -> u32 {
    attention_within(agent, beliefs, &|_| true)
}

/// What a condition is evaluated in.
struct World<'a> {
    beliefs: &'a BTreeSet<Atom>,
    attention: Option<u32>,
    mind: &'a dyn Fn(&Cond) -> bool,
    spend: &'a dyn Fn(u64) -> bool,
}

/// Whether the conjunction of `goals` holds under some extension of `bindings`.
fn solve(goals: &[&Cond], w: &World, bindings: &mut Bindings) -> bool {
    let Some((first, rest)) = goals.split_first() else {
        return true;
    };
    if !(w.spend)(goals.len() as u64) {
        return false;
    }
    let attention = w.attention;
    match first {
        Cond::True => solve(rest, w, bindings),
        Cond::False => false,
        Cond::Attending(a) => attention == Some(*a) && solve(rest, w, bindings),
        Cond::Desires(_) | Cond::Intends(_) => (w.mind)(first) && solve(rest, w, bindings),
        Cond::Compare(op, a, b) => {
            let ok = match (term(a, bindings), term(b, bindings)) {
                (Ok(x), Ok(y)) => compare(*op, &x, &y).unwrap_or(false),
                _ => false,
            };
            ok && solve(rest, w, bindings)
        }
        Cond::Not(inner) => {
            // Negation binds nothing: it holds when the inner condition has no solution.
            let mut scratch = bindings.clone();
            !solve(&[inner], w, &mut scratch) && solve(rest, w, bindings)
        }
        Cond::And(parts) => {
            let mut all: Vec<&Cond> = parts.iter().collect();
            all.extend_from_slice(rest);
            solve(&all, w, bindings)
        }
        Cond::Or(parts) => parts.iter().any(|p| {
            let mut b = bindings.clone();
            let mut all = vec![p];
            all.extend_from_slice(rest);
            solve(&all, w, &mut b)
        }),
        Cond::Believes(pattern) => matches(None, pattern, rest, w, bindings),
        Cond::Told(agent, pattern) => matches(Some(*agent), pattern, rest, w, bindings),
    }
}

fn matches(
    told: Option<AgentId>,
    pattern: &Pattern,
    rest: &[&Cond],
    w: &World,
    bindings: &mut Bindings,
) -> bool {
    for atom in w.beliefs {
        if !(w.spend)(1) {
            return false;
        }
        if atom.told != told
            || atom.belief != pattern.belief
            || atom.args.len() != pattern.args.len()
        {
            continue;
        }
        let saved = bindings.clone();
        let fits = pattern.args.iter().zip(&atom.args).all(|(p, v)| match p {
            PatternArg::Any => true,
            PatternArg::Literal(l) => Value::of(l) == *v,
            // A parameter with no value matches nothing; an obligation that reads one is
            // refused before its conditions are evaluated (`frame.parameters`, `*.parameters`).
            PatternArg::Param(_) => false,
            PatternArg::Var(i) => match lookup(bindings, *i) {
                Some(bound) => bound == v,
                None => {
                    bindings.push((*i, v.clone()));
                    true
                }
            },
        });
        if fits && solve(rest, w, bindings) {
            return true;
        }
        *bindings = saved;
    }
    false
}

/// The variables a pattern has bound so far, as (variable, value) pairs: a list, not an array
/// indexed by the variable, so that a variable's number never sizes an allocation.
type Bindings = Vec<(u32, Value)>;

fn lookup(bindings: &Bindings, var: u32) -> Option<&Value> {
    bindings.iter().find(|(k, _)| *k == var).map(|(_, v)| v)
}

fn term(t: &CondTerm, bindings: &Bindings) -> Result<Value, EvalError> {
    Ok(match t {
        CondTerm::Literal(l) => Value::of(l),
        CondTerm::Param(_) => return Err(EvalError::Malformed),
        CondTerm::Var(i) => lookup(bindings, *i).cloned().ok_or(EvalError::Malformed)?,
        CondTerm::Neg(a) => Value::Int(
            int(term(a, bindings)?)?
                .checked_neg()
                .ok_or(EvalError::Overflow)?,
        ),
        CondTerm::Arith(op, a, b) => Value::Int(arith(
            *op,
            int(term(a, bindings)?)?,
            int(term(b, bindings)?)?,
        )?),
        CondTerm::Chain(a, rest) => Value::Int(
            rest.iter()
                .try_fold(int(term(a, bindings)?)?, |acc, (op, b)| {
                    arith(*op, acc, int(term(b, bindings)?)?)
                })?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(n: i64) -> Atom {
        Atom {
            told: None,
            belief: BeliefId(0),
            args: vec![Value::Int(n)],
        }
    }

    #[test]
    fn patterns_bind_existentially_and_negation_binds_nothing() {
        let pattern = |a| Pattern {
            belief: BeliefId(0),
            args: vec![a],
        };
        let lt3 = Cond::And(vec![
            Cond::Believes(pattern(PatternArg::Var(0))),
            Cond::Compare(
                CompareOp::Lt,
                CondTerm::Var(0),
                CondTerm::Literal(Literal::Int(3)),
            ),
        ]);
        let beliefs: BTreeSet<Atom> = [made(5), made(1)].into_iter().collect();
        assert!(holds(&lt3, &beliefs, None));
        let beliefs: BTreeSet<Atom> = [made(5)].into_iter().collect();
        assert!(!holds(&lt3, &beliefs, None));
        let not_made3 = Cond::Not(Box::new(Cond::Believes(pattern(PatternArg::Literal(
            Literal::Int(3),
        )))));
        assert!(holds(&not_made3, &beliefs, None));
        assert!(!holds(&not_made3, &[made(3)].into_iter().collect(), None));
    }

    #[test]
    fn arithmetic_is_checked() {
        assert_eq!(arith(ArithOp::Add, i64::MAX, 1), Err(EvalError::Overflow));
        assert_eq!(arith(ArithOp::Div, 1, 0), Err(EvalError::DivisionByZero));
        assert_eq!(arith(ArithOp::Div, -7, 2), Ok(-3));
    }

    /// `docs/semantics.md`: `/` rounds toward zero, `%` has the sign of the dividend, a zero
    /// divisor faults and so does the one quotient out of range, `-2⁶³ / -1` (and its `%`).
    #[test]
    fn division_rounds_toward_zero_and_the_remainder_has_the_dividends_sign() {
        for (a, b, q, r) in [
            (7, 2, 3, 1),
            (-7, 2, -3, -1),
            (7, -2, -3, 1),
            (-7, -2, 3, -1),
            (6, -3, -2, 0),
        ] {
            assert_eq!(arith(ArithOp::Div, a, b), Ok(q), "{a} / {b}");
            assert_eq!(arith(ArithOp::Rem, a, b), Ok(r), "{a} % {b}");
            assert_eq!(q * b + r, a);
        }
        for op in [ArithOp::Div, ArithOp::Rem] {
            assert_eq!(arith(op, -7, 0), Err(EvalError::DivisionByZero));
            assert_eq!(arith(op, i64::MIN, -1), Err(EvalError::Overflow));
        }
    }

    /// `docs/semantics.md`, Attention: from the initial attention, each attend rule in order
    /// whose condition holds (with the attention so far) moves it; none holding leaves the
    /// initial one, whatever the attention was before.
    #[test]
    fn the_attention_is_the_last_rule_that_holds_or_the_initial_one() {
        let believes = |n: i64| {
            Cond::Believes(Pattern {
                belief: BeliefId(0),
                args: vec![PatternArg::Literal(Literal::Int(n))],
            })
        };
        let agent = Agent {
            name: "A".into(),
            params: vec![],
            args: vec![],
            beliefs: vec![],
            desires: vec![],
            commit: CommitmentStrategy::Blind,
            plans: vec![],
            intends: vec![],
            rewards: vec![],
            values: None,
            asserts: Vec::new(),
            attentions: vec!["Calm".into(), "Alarmed".into(), "Busy".into()],
            attends: vec![
                (believes(1), 1),
                (believes(2), 2),
                // Reads the attention so far: from Busy, with made(3), back to Calm.
                (Cond::And(vec![believes(3), Cond::Attending(2)]), 0),
            ],
        };
        let set = |ns: &[i64]| -> BTreeSet<Atom> { ns.iter().map(|&n| made(n)).collect() };
        assert_eq!(attention(&agent, &set(&[])), 0);
        assert_eq!(attention(&agent, &set(&[1])), 1);
        assert_eq!(attention(&agent, &set(&[1, 2])), 2);
        assert_eq!(attention(&agent, &set(&[2, 3])), 0);
        assert_eq!(attention(&agent, &set(&[1, 3])), 1);
        assert_eq!(attention(&agent, &set(&[3])), 0);
    }

    /// A chain means the left-leaning tree it stands for: the same value, and the same error
    /// where the tree has one (overflow, division by zero, a non-integer operand), for plan
    /// expressions and condition terms alike. Operands and operators are drawn from edge cases
    /// by a fixed linear congruential sequence, so a failure reproduces.
    #[test]
    fn a_chain_evaluates_as_its_left_leaning_tree() {
        let ints = [
            0,
            1,
            -1,
            2,
            3,
            -7,
            i64::MAX,
            i64::MIN,
            i64::MAX / 2,
            1 << 32,
        ];
        let ops = [
            ArithOp::Add,
            ArithOp::Sub,
            ArithOp::Mul,
            ArithOp::Div,
            ArithOp::Rem,
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        let (mut faults, mut values) = (0, 0);
        for _ in 0..20_000 {
            let len = 1 + next(6);
            // Slot 0 holds `true`: an operand that reads it is not an integer.
            let operand = |i: usize| -> (Expr, CondTerm) {
                if i == ints.len() {
                    (Expr::Slot(Slot(0)), CondTerm::Literal(Literal::Bool(true)))
                } else {
                    let l = Literal::Int(ints[i]);
                    (Expr::Literal(l.clone()), CondTerm::Literal(l))
                }
            };
            let (first_e, first_t) = operand(next(ints.len() + 1));
            let (mut tree_e, mut tree_t) = (first_e.clone(), first_t.clone());
            let (mut rest_e, mut rest_t) = (Vec::new(), Vec::new());
            for _ in 0..len {
                let op = ops[next(ops.len())];
                let (e, t) = operand(next(ints.len() + 1));
                tree_e = Expr::Arith(op, Box::new(tree_e), Box::new(e.clone()));
                tree_t = CondTerm::Arith(op, Box::new(tree_t), Box::new(t.clone()));
                rest_e.push((op, e));
                rest_t.push((op, t));
            }
            let env = [Value::Bool(true)];
            let chain_e = Expr::Chain(Box::new(first_e), rest_e);
            let chain_t = CondTerm::Chain(Box::new(first_t), rest_t);
            let want = eval(&tree_e, &env);
            assert_eq!(eval(&chain_e, &env), want, "{chain_e:?}");
            assert_eq!(term(&chain_t, &Vec::new()), term(&tree_t, &Vec::new()));
            if want.is_ok() {
                values += 1
            } else {
                faults += 1
            }
        }
        // Both outcomes were exercised, many times.
        assert!(
            faults > 1_000 && values > 1_000,
            "{faults} faults, {values} values"
        );
    }

    #[test]
    fn a_chain_fails_where_left_to_right_evaluation_does() {
        let int = |n| Expr::Literal(Literal::Int(n));
        // i64::MAX + 1 - 1 leaves the range at its first step; i64::MAX - 1 + 1 never does.
        let up_down = Expr::Chain(
            Box::new(int(i64::MAX)),
            vec![(ArithOp::Add, int(1)), (ArithOp::Sub, int(1))],
        );
        assert_eq!(eval(&up_down, &[]), Err(EvalError::Overflow));
        let down_up = Expr::Chain(
            Box::new(int(i64::MAX)),
            vec![(ArithOp::Sub, int(1)), (ArithOp::Add, int(1))],
        );
        assert_eq!(eval(&down_up, &[]), Ok(Value::Int(i64::MAX)));
        // A chain of no operators is its operand.
        assert_eq!(
            eval(&Expr::Chain(Box::new(int(5)), Vec::new()), &[]),
            Ok(Value::Int(5))
        );
    }
}
