//! A long flat chain of `∨` or `∧` is not deep: it parses whatever its length, as a balanced
//! tree whose leaves are the chain's terms in order (issue 17: 200 flat `∨` terms were refused
//! as "nesting deeper than 200").

use hilbert_frontend::source::{Dialect, FileId, SourceFile};
use hilbert_frontend::syntax::ast::{BinOp, Expr, ExprKind, MemberKind, Module};
use hilbert_frontend::syntax::parse;

fn depth(e: &Expr) -> usize {
    match &e.kind {
        ExprKind::Binary(_, l, r) => 1 + depth(l).max(depth(r)),
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
            MemberKind::Achieved { cond, .. } => Some(cond.clone()),
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

/// An arithmetic chain is not regrouped (checked arithmetic overflows where the grouping says),
/// so a chain of more operators than the nesting limit is refused, with a help that says so and
/// how to group it; grouped by hand, the same terms parse.
#[test]
fn a_long_arithmetic_chain_is_refused_with_how_to_group_it() {
    let agent = |cond: &str| {
        format!(
            "agent A : Agency\n{{\n  belief s(n: Int)\n  desire D reachable by [P]\n  achieved D when B(self) s(x) ∧ {cond} < 1000\n}}\n"
        )
    };
    let flat = vec!["x"; 300].join(" + ");
    let file = SourceFile::new(FileId(0), "A.ha".into(), Dialect::Agent, agent(&flat));
    let (_, diagnostics) = parse(&file);
    let deep = diagnostics
        .iter()
        .find(|d| d.message.contains("nesting deeper than"))
        .expect("refused as too deep");
    let help = deep.help.as_deref().unwrap_or_default();
    assert!(help.contains("does not regroup"), "{help}");
    assert!(help.contains("(a + b + …) + (c + d + …)"), "{help}");
    // Three groups of 100: no error.
    let group = format!("({})", vec!["x"; 100].join(" + "));
    let grouped = vec![group.as_str(); 3].join(" + ");
    let (cond, errors) = achieved(&agent(&grouped));
    assert_eq!(errors, 0);
    assert!(depth(&cond) < 200, "depth {}", depth(&cond));
}
