//! A small, sound satisfiability test for conditions, without a solver (Z3 refines it later).
//!
//! A condition is brought to disjunctive normal form (giving up beyond [`MAX_DISJUNCTS`]); it is
//! *certainly unsatisfiable* when every conjunct is, and a conjunct is only when one of these
//! holds: it contains `false` or a false literal comparison; one belief atom is both required
//! and forbidden with the same arguments (a forbidden `_`, or a variable fresh under `¬`,
//! matches anything); two different attentions are required, or one is required and forbidden;
//! the comparisons of one integer variable or constant leave an empty interval, or those of a
//! string or boolean require two different values. Belief sets are sets of ground atoms, not
//! functions: `made(0)` and `made(3)` may both be believed, so nothing else is concluded.
//!
//! It runs only on conditions that checked without errors, so every variable is bound (left to
//! right) before it is compared or used under `¬`. Variables keep their scope: each binding of
//! a name by a conjunction gets its own identity,
//! and a negated conjunction that binds variables (`¬(B(self) f(n) ∧ n < 3)`, a universal) is
//! treated as unknown rather than pushed through.

use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};
use std::collections::{HashMap, HashSet};

/// Beyond this many disjuncts the procedure gives up (and concludes nothing).
pub(crate) const MAX_DISJUNCTS: usize = 64;

#[derive(Clone, Debug, PartialEq)]
enum Term {
    Int(i128),
    Str(String),
    Bool(bool),
    /// A bound variable, by identity.
    Var(u32),
    /// An agent parameter or value: a fixed but unknown constant.
    Const(String),
    /// `_`, or a variable fresh under `¬`: anything.
    Any,
    /// Something this procedure does not reason about.
    Opaque,
}

impl Term {
    fn definite(&self) -> bool {
        !matches!(self, Term::Any | Term::Opaque)
    }
}

#[derive(Clone, Debug)]
enum Lit {
    Atom {
        pos: bool,
        agent: String,
        pred: String,
        args: Vec<Term>,
    },
    Cmp(BinOp, Term, Term),
    Attending {
        pos: bool,
        name: String,
    },
    False,
    Unknown,
}

type Conj = Vec<Lit>;

struct Dnf<'c> {
    next: u32,
    is_const: &'c dyn Fn(&str) -> bool,
}

/// Whether the conjunction of the parts (each negated when its flag says so) is certainly
/// unsatisfiable. `is_const` says which names are agent parameters or values.
pub(crate) fn certainly_unsat(parts: &[(&Expr, bool)], is_const: &dyn Fn(&str) -> bool) -> bool {
    let mut d = Dnf { next: 0, is_const };
    let mut acc: Vec<Conj> = vec![Vec::new()];
    for (e, neg) in parts {
        let Some(x) = d.dnf(e, *neg, &HashMap::new()) else {
            return false;
        };
        let Some(p) = product(acc, x) else {
            return false;
        };
        acc = p;
    }
    acc.iter().all(conj_unsat)
}

fn product(a: Vec<Conj>, b: Vec<Conj>) -> Option<Vec<Conj>> {
    if a.len().saturating_mul(b.len()) > MAX_DISJUNCTS {
        return None;
    }
    let mut out = Vec::new();
    for x in &a {
        for y in &b {
            let mut c = x.clone();
            c.extend(y.iter().cloned());
            out.push(c);
        }
    }
    Some(out)
}

fn flatten<'e>(e: &'e Expr, op: BinOp, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(o, l, r) if *o == op => {
            flatten(l, op, out);
            flatten(r, op, out);
        }
        _ => out.push(e),
    }
}

fn negate(op: BinOp) -> BinOp {
    match op {
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        other => other,
    }
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

impl Dnf<'_> {
    fn fresh_vars(&self, e: &Expr, env: &HashMap<String, u32>) -> HashSet<String> {
        let mut s = HashSet::new();
        super::agent::bound_by(e, self.is_const, &mut s);
        s.retain(|n| !env.contains_key(n));
        s
    }

    fn dnf(&mut self, e: &Expr, neg: bool, env: &HashMap<String, u32>) -> Option<Vec<Conj>> {
        let one = |l: Lit| Some(vec![vec![l]]);
        match &e.kind {
            ExprKind::Bool(b) => {
                if *b != neg {
                    Some(vec![Vec::new()])
                } else {
                    one(Lit::False)
                }
            }
            ExprKind::Unary(UnOp::Not, x) => self.dnf(x, !neg, env),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), _, _) => {
                let mut parts = Vec::new();
                flatten(e, *op, &mut parts);
                let conjunctive = (*op == BinOp::And) != neg;
                let mut env2 = env.clone();
                if *op == BinOp::And {
                    let fresh = self.fresh_vars(e, env);
                    if neg && !fresh.is_empty() {
                        // ¬∃x (…): a universal; not pushed through.
                        return one(Lit::Unknown);
                    }
                    for n in fresh {
                        env2.insert(n, self.next);
                        self.next += 1;
                    }
                }
                if conjunctive {
                    let mut acc = vec![Vec::new()];
                    for p in parts {
                        let x = self.dnf(p, neg, &env2)?;
                        acc = product(acc, x)?;
                    }
                    Some(acc)
                } else {
                    let mut acc = Vec::new();
                    for p in parts {
                        acc.extend(self.dnf(p, neg, &env2)?);
                        if acc.len() > MAX_DISJUNCTS {
                            return None;
                        }
                    }
                    Some(acc)
                }
            }
            ExprKind::Believes { agent, atom } => {
                let mut local = env.clone();
                let args = atom
                    .args
                    .iter()
                    .map(|a| match &a.kind {
                        ExprKind::Wildcard => Term::Any,
                        ExprKind::Var(v)
                            if !(self.is_const)(&v.name)
                                && !local.contains_key(v.name.as_str()) =>
                        {
                            if neg {
                                Term::Any
                            } else {
                                let id = self.next;
                                self.next += 1;
                                local.insert(v.name.to_string(), id);
                                Term::Var(id)
                            }
                        }
                        _ => self.term(a, &local),
                    })
                    .collect();
                one(Lit::Atom {
                    pos: !neg,
                    agent: agent.name.to_string(),
                    pred: atom.pred.name.to_string(),
                    args,
                })
            }
            ExprKind::Attending(a) => one(Lit::Attending {
                pos: !neg,
                name: a.name.to_string(),
            }),
            ExprKind::Binary(op, l, r) if op.is_comparison() => {
                let op = if neg { negate(*op) } else { *op };
                one(Lit::Cmp(op, self.term(l, env), self.term(r, env)))
            }
            _ => one(Lit::Unknown),
        }
    }

    fn term(&self, e: &Expr, env: &HashMap<String, u32>) -> Term {
        if let Some(n) = fold(e) {
            return Term::Int(n);
        }
        match &e.kind {
            ExprKind::Str(s) => Term::Str(s.clone()),
            ExprKind::Bool(b) => Term::Bool(*b),
            ExprKind::Var(v) => match env.get(v.name.as_str()) {
                Some(&id) => Term::Var(id),
                None if (self.is_const)(&v.name) => Term::Const(v.name.to_string()),
                None => Term::Opaque,
            },
            _ => Term::Opaque,
        }
    }
}

/// The value of integer arithmetic over literals.
fn fold(e: &Expr) -> Option<i128> {
    let step = |op: &BinOp, a: i128, b: i128| match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        _ => None,
    };
    match &e.kind {
        ExprKind::Int(n) => Some(i128::from(*n)),
        ExprKind::Unary(UnOp::Neg, x) => fold(x)?.checked_neg(),
        ExprKind::Binary(op, l, r) => step(op, fold(l)?, fold(r)?),
        ExprKind::Chain { first, rest } => rest
            .iter()
            .try_fold(fold(first)?, |a, (op, r)| step(op, a, fold(r)?)),
        _ => None,
    }
}

fn compare_constants(op: BinOp, a: &Term, b: &Term) -> Option<bool> {
    use std::cmp::Ordering;
    let ord = match (a, b) {
        (Term::Int(x), Term::Int(y)) => x.cmp(y),
        (Term::Str(x), Term::Str(y)) => {
            if matches!(op, BinOp::Eq | BinOp::Ne) {
                x.cmp(y)
            } else {
                return None;
            }
        }
        (Term::Bool(x), Term::Bool(y)) => {
            if matches!(op, BinOp::Eq | BinOp::Ne) {
                x.cmp(y)
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(match op {
        BinOp::Eq => ord == Ordering::Equal,
        BinOp::Ne => ord != Ordering::Equal,
        BinOp::Lt => ord == Ordering::Less,
        BinOp::Le => ord != Ordering::Greater,
        BinOp::Gt => ord == Ordering::Greater,
        BinOp::Ge => ord != Ordering::Less,
        _ => return None,
    })
}

#[derive(Default)]
struct Bounds {
    lo: Option<i128>,
    hi: Option<i128>,
    not: HashSet<i128>,
    eq: Vec<Term>,
    ne: Vec<Term>,
}

fn conj_unsat(c: &Conj) -> bool {
    let mut attending: Vec<(&str, bool)> = Vec::new();
    let mut subjects: HashMap<String, Bounds> = HashMap::new();
    for l in c {
        match l {
            Lit::False => return true,
            Lit::Attending { pos, name } => attending.push((name, *pos)),
            Lit::Cmp(op, a, b) => {
                if let Some(v) = compare_constants(*op, a, b) {
                    if !v {
                        return true;
                    }
                    continue;
                }
                let subject = |t: &Term| match t {
                    Term::Var(id) => Some(format!("#{id}")),
                    Term::Const(n) => Some(n.clone()),
                    _ => None,
                };
                let is_lit = |t: &Term| matches!(t, Term::Int(_) | Term::Str(_) | Term::Bool(_));
                let (s, op, v) = match (subject(a), subject(b)) {
                    (Some(x), Some(y)) if x == y => {
                        if matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Ne) {
                            return true;
                        }
                        continue;
                    }
                    (Some(x), None) if is_lit(b) => (x, *op, b.clone()),
                    (None, Some(y)) if is_lit(a) => (y, flip(*op), a.clone()),
                    _ => continue,
                };
                let bd = subjects.entry(s).or_default();
                match (&v, op) {
                    (Term::Int(n), BinOp::Lt) => {
                        bd.hi = Some(bd.hi.map_or(n - 1, |h| h.min(n - 1)))
                    }
                    (Term::Int(n), BinOp::Le) => bd.hi = Some(bd.hi.map_or(*n, |h| h.min(*n))),
                    (Term::Int(n), BinOp::Gt) => {
                        bd.lo = Some(bd.lo.map_or(n + 1, |h| h.max(n + 1)))
                    }
                    (Term::Int(n), BinOp::Ge) => bd.lo = Some(bd.lo.map_or(*n, |h| h.max(*n))),
                    (Term::Int(n), BinOp::Eq) => {
                        bd.lo = Some(bd.lo.map_or(*n, |h| h.max(*n)));
                        bd.hi = Some(bd.hi.map_or(*n, |h| h.min(*n)));
                    }
                    (Term::Int(n), BinOp::Ne) => {
                        bd.not.insert(*n);
                    }
                    (_, BinOp::Eq) => bd.eq.push(v.clone()),
                    (_, BinOp::Ne) => bd.ne.push(v.clone()),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    for bd in subjects.values() {
        if let (Some(lo), Some(hi)) = (bd.lo, bd.hi) {
            if lo > hi {
                return true;
            }
            if hi - lo < 64 && (lo..=hi).all(|n| bd.not.contains(&n)) {
                return true;
            }
        }
        if bd.eq.iter().any(|x| bd.eq.iter().any(|y| x != y)) {
            return true;
        }
        if bd.eq.iter().any(|x| bd.ne.contains(x)) {
            return true;
        }
    }
    // attention: one at a time
    let required: HashSet<&str> = attending
        .iter()
        .filter(|(_, p)| *p)
        .map(|(n, _)| *n)
        .collect();
    if required.len() > 1 {
        return true;
    }
    if attending.iter().any(|(n, p)| !*p && required.contains(n)) {
        return true;
    }
    // a belief both required and forbidden
    for p in c {
        let Lit::Atom {
            pos: true,
            agent,
            pred,
            args,
        } = p
        else {
            continue;
        };
        for n in c {
            let Lit::Atom {
                pos: false,
                agent: a2,
                pred: p2,
                args: n_args,
            } = n
            else {
                continue;
            };
            if a2 == agent
                && p2 == pred
                && n_args.len() == args.len()
                && args
                    .iter()
                    .zip(n_args)
                    .all(|(x, y)| *y == Term::Any || (x.definite() && x == y))
            {
                return true;
            }
        }
    }
    false
}
