//! Normal forms of conditions with egg: a condition becomes an s-expression
//! (`(and (bel 0 v0) (lt v0 3))`), and an e-graph saturated with sound rewrites for ∧, ∨, ¬ and
//! integer comparisons (commutativity, associativity, idempotence, units, double negation,
//! De Morgan, negated and flipped comparisons, `a < b` ⇔ `a + 1 ≤ b`) decides when two
//! conditions are the same up to those laws. The normal form is the smallest term of the
//! condition's e-class.
//!
//! Variables are numbered by first appearance (as the IR numbers them), so two rules that bind
//! their variables in a different order are not recognised here; Z3's implication check
//! ([`crate::analysis`]) still finds them.

use egg::{AstSize, EGraph, Extractor, Id, RecExpr, Rewrite, Runner, SymbolLang, rewrite as rw};
use hilbert_certificates::ir::{ArithOp, CompareOp, Cond, CondTerm, Literal, PatternArg};

fn lit(l: &Literal) -> String {
    match l {
        Literal::Int(n) => format!("{n}"),
        Literal::Bool(b) => format!("{b}"),
        Literal::Str(s) => format!(
            "s:{}",
            s.bytes().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    }
}

fn term(t: &CondTerm, e: &mut RecExpr<SymbolLang>) -> Id {
    match t {
        CondTerm::Literal(l) => e.add(SymbolLang::leaf(lit(l))),
        CondTerm::Var(i) => e.add(SymbolLang::leaf(format!("v{i}"))),
        CondTerm::Param(i) => e.add(SymbolLang::leaf(format!("param{i}"))),
        CondTerm::Neg(a) => {
            let a = term(a, e);
            e.add(SymbolLang::new("neg", vec![a]))
        }
        CondTerm::Arith(op, a, b) => {
            let (a, b) = (term(a, e), term(b, e));
            e.add(SymbolLang::new(arith(*op), vec![a, b]))
        }
        // The tree it stands for, so that `a + b + c` and `(a + b) + c` are one term.
        CondTerm::Chain(a, rest) => {
            let mut acc = term(a, e);
            for (op, b) in rest {
                let b = term(b, e);
                acc = e.add(SymbolLang::new(arith(*op), vec![acc, b]));
            }
            acc
        }
    }
}

fn arith(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::Rem => "%",
    }
}

fn cond(c: &Cond, e: &mut RecExpr<SymbolLang>) -> Id {
    match c {
        Cond::True => e.add(SymbolLang::leaf("true")),
        Cond::False => e.add(SymbolLang::leaf("false")),
        Cond::Attending(a) => {
            let a = e.add(SymbolLang::leaf(format!("{a}")));
            e.add(SymbolLang::new("attending", vec![a]))
        }
        Cond::Desires(d) => {
            let d = e.add(SymbolLang::leaf(format!("{d}")));
            e.add(SymbolLang::new("desires", vec![d]))
        }
        Cond::Intends(p) => {
            let p = e.add(SymbolLang::leaf(format!("{p}")));
            e.add(SymbolLang::new("intends", vec![p]))
        }
        Cond::Believes(p) | Cond::Told(_, p) => {
            let head = match c {
                Cond::Told(j, _) => format!("told{}", j.0),
                _ => "bel".into(),
            };
            let mut kids = vec![e.add(SymbolLang::leaf(format!("p{}", p.belief.0)))];
            for a in &p.args {
                kids.push(e.add(SymbolLang::leaf(match a {
                    PatternArg::Any => "_".to_string(),
                    PatternArg::Literal(l) => lit(l),
                    PatternArg::Var(i) => format!("v{i}"),
                    PatternArg::Param(i) => format!("param{i}"),
                })));
            }
            e.add(SymbolLang::new(head, kids))
        }
        Cond::Compare(op, a, b) => {
            let (a, b) = (term(a, e), term(b, e));
            let op = match op {
                CompareOp::Eq => "eq",
                CompareOp::Ne => "ne",
                CompareOp::Lt => "lt",
                CompareOp::Le => "le",
                CompareOp::Gt => "gt",
                CompareOp::Ge => "ge",
            };
            e.add(SymbolLang::new(op, vec![a, b]))
        }
        Cond::Not(x) => {
            let x = cond(x, e);
            e.add(SymbolLang::new("not", vec![x]))
        }
        Cond::And(cs) | Cond::Or(cs) => {
            let (op, unit) = match c {
                Cond::And(_) => ("and", "true"),
                _ => ("or", "false"),
            };
            let ids: Vec<Id> = cs.iter().map(|x| cond(x, e)).collect();
            let mut it = ids.into_iter().rev();
            let Some(mut acc) = it.next() else {
                return e.add(SymbolLang::leaf(unit));
            };
            for id in it {
                acc = e.add(SymbolLang::new(op, vec![id, acc]));
            }
            acc
        }
    }
}

/// A condition as an egg expression.
pub fn expr(c: &Cond) -> RecExpr<SymbolLang> {
    let mut e = RecExpr::default();
    cond(c, &mut e);
    e
}

fn rules() -> Vec<Rewrite<SymbolLang, ()>> {
    vec![
        rw!("and-comm"; "(and ?a ?b)" => "(and ?b ?a)"),
        rw!("or-comm"; "(or ?a ?b)" => "(or ?b ?a)"),
        rw!("and-assoc"; "(and ?a (and ?b ?c))" => "(and (and ?a ?b) ?c)"),
        rw!("or-assoc"; "(or ?a (or ?b ?c))" => "(or (or ?a ?b) ?c)"),
        rw!("and-idem"; "(and ?a ?a)" => "?a"),
        rw!("or-idem"; "(or ?a ?a)" => "?a"),
        rw!("and-true"; "(and true ?a)" => "?a"),
        rw!("or-false"; "(or false ?a)" => "?a"),
        rw!("and-false"; "(and false ?a)" => "false"),
        rw!("or-true"; "(or true ?a)" => "true"),
        rw!("not-not"; "(not (not ?a))" => "?a"),
        rw!("not-true"; "(not true)" => "false"),
        rw!("not-false"; "(not false)" => "true"),
        rw!("de-morgan-and"; "(not (and ?a ?b))" => "(or (not ?a) (not ?b))"),
        rw!("de-morgan-or"; "(not (or ?a ?b))" => "(and (not ?a) (not ?b))"),
        rw!("not-lt"; "(not (lt ?a ?b))" => "(ge ?a ?b)"),
        rw!("not-le"; "(not (le ?a ?b))" => "(gt ?a ?b)"),
        rw!("not-gt"; "(not (gt ?a ?b))" => "(le ?a ?b)"),
        rw!("not-ge"; "(not (ge ?a ?b))" => "(lt ?a ?b)"),
        rw!("not-eq"; "(not (eq ?a ?b))" => "(ne ?a ?b)"),
        rw!("not-ne"; "(not (ne ?a ?b))" => "(eq ?a ?b)"),
        rw!("gt-flip"; "(gt ?a ?b)" => "(lt ?b ?a)"),
        rw!("ge-flip"; "(ge ?a ?b)" => "(le ?b ?a)"),
        rw!("eq-comm"; "(eq ?a ?b)" => "(eq ?b ?a)"),
        rw!("ne-comm"; "(ne ?a ?b)" => "(ne ?b ?a)"),
        rw!("add-comm"; "(+ ?a ?b)" => "(+ ?b ?a)"),
        rw!("mul-comm"; "(* ?a ?b)" => "(* ?b ?a)"),
        rw!("lt-le"; "(lt ?a ?b)" => "(le (+ ?a 1) ?b)"),
        rw!("le-lt"; "(le (+ ?a 1) ?b)" => "(lt ?a ?b)"),
    ]
}

fn runner(exprs: &[&RecExpr<SymbolLang>]) -> (Runner<SymbolLang, ()>, Vec<Id>) {
    let mut egraph: EGraph<SymbolLang, ()> = EGraph::default();
    let ids: Vec<Id> = exprs.iter().map(|e| egraph.add_expr(e)).collect();
    let runner = Runner::default()
        .with_egraph(egraph)
        .with_iter_limit(12)
        .with_node_limit(20_000)
        .with_time_limit(std::time::Duration::from_millis(500))
        .run(&rules());
    (runner, ids)
}

/// The normal form of a condition: the smallest term equal to it under the rewrites.
pub fn normal_form(c: &Cond) -> String {
    let e = expr(c);
    let (runner, ids) = runner(&[&e]);
    let extractor = Extractor::new(&runner.egraph, AstSize);
    extractor.find_best(ids[0]).1.to_string()
}

/// Whether two conditions are equal under the rewrites (the same e-class once saturated, or
/// once the limits stop the rewriting: the answer `true` is always sound).
pub fn equivalent(a: &Cond, b: &Cond) -> bool {
    let (ea, eb) = (expr(a), expr(b));
    let (runner, ids) = runner(&[&ea, &eb]);
    runner.egraph.find(ids[0]) == runner.egraph.find(ids[1])
}
