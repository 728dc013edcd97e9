//! Parser tests: the seed's files in both notations, recovery, and inputs built to break parsers.

use super::ast::*;
use super::parse;
use crate::diagnostic::Diagnostic;
use crate::source::{Dialect, FileId, SourceFile};

const OPERATOR: &str = include_str!("../../../examples/production-line/Operator.ha");
const LINE: &str = include_str!("../../../examples/production-line/Line.hk");
const OPERATOR_ASCII: &str = include_str!("../../../tests/cases/seed-ascii/Operator.ha");
const LINE_ASCII: &str = include_str!("../../../tests/cases/seed-ascii/Line.hk");

fn file(name: &str, text: &str) -> SourceFile {
    let dialect = Dialect::of_path(name).expect("a source name");
    SourceFile::new(FileId(0), name.into(), dialect, text.into())
}

fn parse_text(name: &str, text: &str) -> (Module, Vec<Diagnostic>) {
    parse(&file(name, text))
}

fn codes(diags: &[Diagnostic]) -> Vec<String> {
    diags.iter().map(|d| d.code.to_string()).collect()
}

/// The tree's Debug form with every span removed, so trees from differently spelled sources
/// can be compared.
fn shape(module: &Module) -> String {
    let text = format!("{module:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("span: Span {") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let close = after.find('}').expect("a span's closing brace");
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

fn plans(module: &Module) -> &PlanFile {
    match module {
        Module::Plans(p) => p,
        _ => panic!("not a plan file"),
    }
}

#[test]
fn the_seed_parses_without_a_diagnostic() {
    let (agents, d1) = parse_text("Operator.ha", OPERATOR);
    let (lines, d2) = parse_text("Line.hk", LINE);
    assert!(d1.is_empty(), "{d1:?}");
    assert!(d2.is_empty(), "{d2:?}");
    let Module::Agents(agents) = agents else {
        panic!("not an agent file")
    };
    let agent = &agents.agents[0];
    assert_eq!(agent.name.name, "Operator");
    assert_eq!(agent.members.len(), 18);
    let names: Vec<&str> = plans(&lines)
        .plans
        .iter()
        .map(|p| p.name.name.as_str())
        .collect();
    assert_eq!(names, ["Feed", "Build", "Produce", "Shutdown"]);
}

#[test]
fn the_ascii_twin_parses_to_the_same_trees() {
    let (a, d1) = parse_text("Operator.ha", OPERATOR_ASCII);
    let (b, d2) = parse_text("Line.hk", LINE_ASCII);
    assert!(d1.is_empty() && d2.is_empty(), "{d1:?} {d2:?}");
    assert_eq!(shape(&a), shape(&parse_text("Operator.ha", OPERATOR).0));
    assert_eq!(shape(&b), shape(&parse_text("Line.hk", LINE).0));
}

#[test]
fn semicolon_binds_tighter_than_parallel_and_labels_cover_their_sequence() {
    let (m, d) = parse_text("Line.hk", LINE);
    assert!(d.is_empty());
    let produce = &plans(&m).plans[2];
    let ProcKind::Seq(steps) = &produce.body.as_ref().unwrap().kind else {
        panic!("Produce's body is a sequence")
    };
    assert!(matches!(steps[0].kind, ProcKind::Believe(_)));
    let ProcKind::Parallel(branches) = &steps[1].kind else {
        panic!("then a parallel composition")
    };
    let ProcKind::Labelled(label, inner) = &branches[0].kind else {
        panic!("whose left side is labelled")
    };
    assert_eq!(label.name, "feed");
    assert!(matches!(inner.kind, ProcKind::Call { .. }));
    let ProcKind::Seq(right) = &branches[1].kind else {
        panic!("and whose right side is `Build(parts, 0) ; abort feed`")
    };
    assert!(matches!(
        right[1].kind,
        ProcKind::Command {
            command: Command::Abort,
            ..
        }
    ));

    let (m, d) = parse_text("P.hk", "plan P() : A ≔ l : a → c ; b → c ‖ STOP");
    assert!(d.is_empty(), "{d:?}");
    let ProcKind::Parallel(b) = &plans(&m).plans[0].body.as_ref().unwrap().kind else {
        panic!()
    };
    let ProcKind::Labelled(_, inner) = &b[0].kind else {
        panic!()
    };
    assert!(matches!(inner.kind, ProcKind::Seq(_)));
}

#[test]
fn operator_precedence_of_processes() {
    // ‖ loosest, then □, then △ (right-associative).
    let (m, d) = parse_text("P.hk", "plan P() : A ≔ SKIP □ STOP ‖ SKIP △ STOP");
    assert!(d.is_empty(), "{d:?}");
    let ProcKind::Parallel(b) = &plans(&m).plans[0].body.as_ref().unwrap().kind else {
        panic!()
    };
    assert!(matches!(b[0].kind, ProcKind::Choice(_)));
    let (m, _) = parse_text("P.hk", "plan P() : A ≔ SKIP △ STOP △ SKIP");
    let ProcKind::Interrupt(l, r) = &plans(&m).plans[0].body.as_ref().unwrap().kind else {
        panic!()
    };
    assert!(matches!(l.kind, ProcKind::Skip));
    assert!(matches!(r.kind, ProcKind::Interrupt(_, _)));
}

#[test]
fn sends_of_parenthesised_values_and_parenthesised_processes() {
    let (m, d) = parse_text(
        "P.hk",
        "plan P(c: chan Int, n: Int) : A ≔ (n + 1) * 2 → c ; (x ← c ; (SKIP)) ; -1 → c",
    );
    assert!(d.is_empty(), "{d:?}");
    let ProcKind::Seq(s) = &plans(&m).plans[0].body.as_ref().unwrap().kind else {
        panic!()
    };
    let ProcKind::Send { value, .. } = &s[0].kind else {
        panic!("{:?}", s[0].kind)
    };
    assert!(matches!(value.kind, ExprKind::Binary(BinOp::Mul, _, _)));
    assert!(matches!(s[1].kind, ProcKind::Seq(_)));
    assert!(matches!(s[2].kind, ProcKind::Send { .. }));
}

#[test]
fn conditions_parse_with_the_documented_precedence() {
    let src = "agent A() { belief p(x: Int)\n intend P for D when ¬ B(self) p(1) ∧ B(self) p(n) ∨ n ≥ 2 ∧ attending X }";
    let (m, d) = parse_text("A.ha", src);
    assert!(d.is_empty(), "{d:?}");
    let Module::Agents(f) = m else { panic!() };
    let MemberKind::Intend { cond, .. } = &f.agents[0].members[1].kind else {
        panic!()
    };
    let ExprKind::Binary(BinOp::Or, l, r) = &cond.kind else {
        panic!("∨ is loosest: {cond:?}")
    };
    let ExprKind::Binary(BinOp::And, ll, _) = &l.kind else {
        panic!()
    };
    assert!(matches!(ll.kind, ExprKind::Unary(UnOp::Not, _)));
    assert!(matches!(r.kind, ExprKind::Binary(BinOp::And, _, _)));
}

#[test]
fn recovery_reports_several_errors_in_one_file() {
    let src = "agent A() {\n  belief made(count Int)\n  desire D reachable [P]\n  commit\n  attention X initially\n  intend P D when true\n}\n";
    let (m, d) = parse_text("A.ha", src);
    let lines: Vec<usize> = d
        .iter()
        .map(|d| file("A.ha", src).line_col(d.span.start).0)
        .collect();
    assert_eq!(codes(&d), ["HA0006"; 4]);
    assert_eq!(lines, [2, 3, 4, 6]);
    let Module::Agents(f) = m else { panic!() };
    // The good member between the bad ones survives.
    assert!(
        f.agents[0]
            .members
            .iter()
            .any(|m| matches!(&m.kind, MemberKind::Attention { name, .. } if name.name == "X"))
    );
}

#[test]
fn recovery_in_plans_resumes_at_the_next_plan_and_member() {
    let src = "plan A() : X ≔ SKIP ;\nplan B() : X {\n  body ≔ ← c\n  on abort ≔ SKIP\n}\nplan C() : X ≔ STOP STOP\nplan D() : X ≔ SKIP\n";
    let (m, d) = parse_text("P.hk", src);
    assert_eq!(codes(&d), ["HK0006"; 3], "{d:?}");
    let names: Vec<&str> = plans(&m)
        .plans
        .iter()
        .map(|p| p.name.name.as_str())
        .collect();
    assert_eq!(names, ["A", "B", "C", "D"]);
    assert_eq!(plans(&m).plans[1].handlers.len(), 1);
}

#[test]
fn values_files_parse() {
    let src = "values Operator {\n  option Work ≔ 1.0 - 0.1 * made.count\n  option Stop ≔ 10.0 + learned(Stop)\n  value bonus := 2\n  policy softmax(temperature = 0.5)\n}\n";
    let (m, d) = parse_text("V.hb", src);
    assert!(d.is_empty(), "{d:?}");
    let Module::Values(v) = m else { panic!() };
    let b = &v.blocks[0];
    assert_eq!(
        (b.options.len(), b.values.len(), b.policies.len()),
        (2, 1, 1)
    );
    assert_eq!(b.policies[0].args[0].0.name, "temperature");
}

#[test]
fn an_empty_file_is_an_error_in_every_dialect() {
    for (name, code) in [("a.ha", "HA0010"), ("a.hk", "HK0010"), ("a.hb", "HB0010")] {
        let (_, d) = parse_text(name, "  -- nothing here\n\n");
        assert_eq!(codes(&d), [code]);
    }
}

#[test]
fn unclosed_delimiters_point_at_the_opener() {
    let (_, d) = parse_text("a.ha", "agent A() {\n  belief p(x: Int)\n");
    assert_eq!(codes(&d), ["HA0009"]);
    assert_eq!(d[0].span.start, 10);
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_stack_overflow() {
    for (name, prefix, open, mid, close) in [
        ("deep.hk", "plan P() : A ≔ ", "(", "SKIP", ")"),
        (
            "deep.ha",
            "agent A() { intend P for D when ",
            "(",
            "true",
            ")",
        ),
        (
            "deep2.ha",
            "agent A() { intend P for D when ",
            "¬",
            "true",
            "",
        ),
        ("deep.hb", "values A { option P ≔ ", "- ", "1", ""),
        ("deep2.hk", "plan P() : A ≔ ", "l : ", "SKIP", ""),
        ("deep3.hk", "plan P() : A ≔ ", "SKIP △ ", "SKIP", ""),
    ] {
        let n = 100_000;
        let text = format!("{prefix}{}{mid}{}", open.repeat(n), close.repeat(n));
        let (_, d) = parse_text(name, &text);
        let want = format!("{}0007", &codes(&d).first().expect("a diagnostic")[..2]);
        assert!(codes(&d).contains(&want), "{name}: {:?}", codes(&d));
        assert!(d.len() <= 3, "{name}: one diagnostic, not a cascade: {d:?}");
    }
}

#[test]
fn long_operator_chains_parse_flat() {
    // An arithmetic chain is one node of its operands (issue 17: it was refused as nesting,
    // HB0007, past 200 operators).
    let text = format!("values A {{ option P ≔ 1{} }}", " + 1".repeat(200_000));
    let (_, d) = parse_text("v.hb", &text);
    assert!(d.is_empty(), "{:?}", codes(&d));
    // So are sequences.
    let text = format!("plan P() : A ≔ SKIP{}", " ; SKIP".repeat(200_000));
    let (_, d) = parse_text("p.hk", &text);
    assert!(d.is_empty());
}

#[test]
fn too_many_errors_stop_the_parse() {
    let text = "agent A() {\n".to_string() + &"  belief\n".repeat(1000) + "}\n";
    let (_, d) = parse_text("a.ha", &text);
    assert_eq!(d.len(), super::parser::MAX_ERRORS + 1);
    assert_eq!(d.last().unwrap().code.to_string(), "HA0008");
}

#[test]
fn every_truncation_of_the_seed_parses_without_panicking() {
    for (name, text) in [("Operator.ha", OPERATOR), ("Line.hk", LINE)] {
        for (cut, _) in text.char_indices() {
            let f = file(name, &text[..cut]);
            let (_, d) = parse(&f);
            for diag in &d {
                assert!(
                    diag.span.end as usize <= cut,
                    "{name} cut at {cut}: {diag:?}"
                );
            }
        }
    }
}

#[test]
fn a_ten_megabyte_file_parses() {
    let plan = "plan P(c: chan Int, n: Int) : A ≔ n → c ; x ← c ; believe made(x + 1) ; SKIP\n";
    let text = plan.repeat(10 * 1024 * 1024 / plan.len() + 1);
    assert!(text.len() >= 10 * 1024 * 1024);
    let (m, d) = parse_text("big.hk", &text);
    assert!(d.is_empty());
    assert!(plans(&m).plans.len() > 100_000);
}
