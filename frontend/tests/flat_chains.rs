//! A long flat chain is not deep: it parses whatever its length. A chain of `∨` or `∧` is a
//! balanced tree whose leaves are the chain's terms in order; a chain of `+ -` or `* / %` is one
//! node (issue 17: 200 flat `∨` or `+` terms were refused as "nesting deeper than 200").

use hilbert_frontend::source::{Dialect, FileId, SourceFile};
use hilbert_frontend::syntax::ast::{BinOp, Expr, ExprKind, MemberKind, Module};
use hilbert_frontend::syntax::parse;

fn depth(e: &Expr) -> usize {
    match &e.kind {
        ExprKind::Binary(_, l, r) => 1 + depth(l).max(depth(r)),
        ExprKind::Chain { first, rest } => {
            1 + rest
                .iter()
                .map(|(_, x)| depth(x))
                .fold(depth(first), usize::max)
        }
        ExprKind::Unary(_, x) => 1 + depth(x),
        _ => 0,
    }
}

/// The leaves under a chain of `op`, left to right, as source text.
fn leaves<'a>(e: &Expr, op: BinOp, text: &'a str, out: &mut Vec<&'a str>) {
    match &e.kind {
        ExprKind::Binary(o, l, r) if *o == op => {
            leaves(l, op, text, out);
            leaves(r, op, text, out);
        }
        _ => out.push(&text[e.span.start as usize..e.span.end as usize]),
    }
}

fn achieved(text: &str) -> (Expr, usize) {
    let file = SourceFile::new(FileId(0), "A.ha".into(), Dialect::Agent, text.to_string());
    let (module, diagnostics) = parse(&file);
    let errors = diagnostics.len();
    let Module::Agents(f) = module else {
        panic!("not an agent file")
    };
    let cond = f.agents[0]
        .members
        .iter()
        .find_map(|m| match &m.kind {
            MemberKind::Achieved { cond, .. } => Some((**cond).clone()),
            _ => None,
        })
        .expect("an achieved rule");
    (cond, errors)
}

#[test]
fn ten_thousand_flat_disjuncts_and_conjuncts_parse_shallow_and_in_order() {
    for (op, word) in [(BinOp::Or, " ∨ "), (BinOp::And, " and ")] {
        let terms: Vec<String> = (0..10_000).map(|i| format!("B(self) s({i})")).collect();
        let text = format!(
            "agent A : Agency\n{{\n  belief s(n: Int)\n  desire D reachable by [P]\n  achieved D when {}\n}}\n",
            terms.join(word)
        );
        let (cond, errors) = achieved(&text);
        assert_eq!(errors, 0, "{word}");
        // log2(10,000) is about 13.3.
        assert!(depth(&cond) <= 14, "{word}: depth {}", depth(&cond));
        let mut found = Vec::new();
        leaves(&cond, op, &text, &mut found);
        assert_eq!(found, terms, "{word}");
        // The whole chain's span is the chain's text.
        let whole = &text[cond.span.start as usize..cond.span.end as usize];
        assert_eq!(whole, terms.join(word));
    }
}

#[test]
fn a_chain_keeps_precedence_inside_its_terms() {
    // `∧` binds tighter than `∨`: three disjuncts, the middle one a conjunction.
    let text = "agent A : Agency\n{\n  belief s(n: Int)\n  desire D reachable by [P]\n  achieved D when B(self) s(1) ∨ B(self) s(2) ∧ B(self) s(3) ∨ B(self) s(4)\n}\n";
    let (cond, errors) = achieved(text);
    assert_eq!(errors, 0);
    let mut found = Vec::new();
    leaves(&cond, BinOp::Or, text, &mut found);
    assert_eq!(
        found,
        [
            "B(self) s(1)",
            "B(self) s(2) ∧ B(self) s(3)",
            "B(self) s(4)"
        ]
    );
}

/// The condition's comparison `lhs < 1000`: its left side.
fn compared(cond: &Expr) -> &Expr {
    match &cond.kind {
        ExprKind::Binary(BinOp::And, _, r) => compared(r),
        ExprKind::Binary(BinOp::Lt, l, _) => l,
        k => panic!("not a comparison: {k:?}"),
    }
}

fn agent_comparing(chain: &str) -> String {
    format!(
        "agent A : Agency\n{{\n  belief s(n: Int)\n  desire D reachable by [P]\n  achieved D when B(self) s(x) ∧ {chain} < 1000\n}}\n"
    )
}

/// A chain of `+ -` or of `* / %` is not regrouped (it is evaluated left to right with checked
/// arithmetic, and where that overflows depends on the grouping), and not deep either: it is one
/// node, its operands and operators in order, whatever its length (issue 17: 300 terms were
/// refused as "nesting deeper than 200").
#[test]
fn ten_thousand_term_arithmetic_chains_are_one_flat_node_in_order() {
    for (ops, syms) in [
        ([BinOp::Add, BinOp::Sub, BinOp::Add], [" + ", " - ", " + "]),
        ([BinOp::Mul, BinOp::Div, BinOp::Rem], [" * ", " / ", " % "]),
    ] {
        let terms: Vec<String> = (0..10_000).map(|i| format!("x{i}")).collect();
        let mut text = terms[0].clone();
        for (i, t) in terms.iter().enumerate().skip(1) {
            text.push_str(syms[i % 3]);
            text.push_str(t);
        }
        let source = agent_comparing(&text);
        let (cond, errors) = achieved(&source);
        assert_eq!(errors, 0, "{}", syms[0]);
        let lhs = compared(&cond);
        let ExprKind::Chain { first, rest } = &lhs.kind else {
            panic!("not a chain: {:?}", lhs.kind)
        };
        assert_eq!(rest.len(), 9_999);
        let at = |e: &Expr| &source[e.span.start as usize..e.span.end as usize];
        assert_eq!(at(first), "x0");
        for (i, (op, e)) in rest.iter().enumerate() {
            assert_eq!(*op, ops[(i + 1) % 3], "operator {i}");
            assert_eq!(at(e), terms[i + 1]);
        }
        assert_eq!(at(lhs), text);
        // The chain, the comparison and the conjunction: three levels.
        assert!(depth(&cond) <= 3, "depth {}", depth(&cond));
    }
}

#[test]
fn a_chain_keeps_precedence_and_parentheses_and_one_operator_stays_binary() {
    let source = agent_comparing("a + b * c * d - (e - f - g) - h");
    let (cond, errors) = achieved(&source);
    assert_eq!(errors, 0);
    let at = |e: &Expr| source[e.span.start as usize..e.span.end as usize].to_string();
    let ExprKind::Chain { first, rest } = &compared(&cond).kind else {
        panic!("not a chain")
    };
    assert_eq!(at(first), "a");
    let shape: Vec<(BinOp, String)> = rest.iter().map(|(op, e)| (*op, at(e))).collect();
    assert_eq!(
        shape,
        [
            (BinOp::Add, "b * c * d".to_string()),
            (BinOp::Sub, "(e - f - g)".to_string()),
            (BinOp::Sub, "h".to_string()),
        ]
    );
    // `b * c * d` is a chain of its own, one level below.
    assert!(matches!(&rest[0].1.kind, ExprKind::Chain { rest, .. } if rest.len() == 2));
    // A single operator is a binary node, as before.
    let (cond, errors) = achieved(&agent_comparing("a * b"));
    assert_eq!(errors, 0);
    assert!(matches!(
        compared(&cond).kind,
        ExprKind::Binary(BinOp::Mul, ..)
    ));
}
