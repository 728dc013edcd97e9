//! Regression tests for what the kernel once got wrong, and for the fixed limits that keep a
//! hostile certificate from overflowing its stack or exhausting its memory (each fails closed).

mod common;

use hilbert_certificates::cert::{self, Body, Counts, DecodeError};
use hilbert_certificates::ir::{AtomExpr, BeliefId, Expr, Literal, MAX_NESTING, Node};
use hilbert_kernel::check::{Verdict, check, check_within};

fn production_line() -> Body {
    let built = common::certificates()
        .iter()
        .find(|b| b.name == "Operator.Work")
        .expect("the production line's Work certificate");
    cert::decode(&built.bytes).unwrap()
}

/// A `believe` whose argument is `-(-(…(1)…))`, `depth` negations deep.
fn deep_believe(depth: usize) -> Node {
    let mut e = Expr::Literal(Literal::Int(1));
    for _ in 0..depth {
        e = Expr::Neg(Box::new(e));
    }
    Node::Believe(AtomExpr {
        belief: BeliefId(0),
        args: vec![e],
    })
}

/// The certificate bytes of the production line with a deep `believe` added to its code.
fn with_deep_node(depth: usize) -> Vec<u8> {
    with_node(deep_believe(depth))
}

/// Runs `f` on a thread with an ordinary 2 MiB stack, as a test thread or a small server has.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no stack overflow, no panic")
}

#[test]
fn ir_nested_deeper_than_the_limit_is_refused_while_decoding_not_by_overflowing_the_stack() {
    let deep = with_deep_node(200_000);
    let report = on_small_stack(move || check(&deep, None));
    let why = report.invalid.expect("invalid");
    assert!(why.contains("nests deeper than"), "{why}");
    assert!(report.admitted.is_none());

    let over = with_deep_node(MAX_NESTING as usize + 1);
    let got = on_small_stack(move || cert::decode(&over).map(|_| ()));
    assert!(
        matches!(got, Err(DecodeError::Body(ref e)) if e.contains("nests")),
        "{got:?}"
    );
    // At the limit itself it decodes (and the added node, never run, changes no verdict).
    let at = with_deep_node(MAX_NESTING as usize);
    let report = on_small_stack(move || check(&at, None));
    assert!(report.invalid.is_none(), "{:?}", report.invalid);
    assert!(report.admitted.is_some());
}

#[test]
fn a_desire_whose_goal_reads_an_agent_parameter_is_never_admitted() {
    // The bug: `achieved Produced when B(self) made(target)`, with `target` a parameter of the
    // agent, lowers to `made(_)`; the frontend said `unproved`, yet the kernel admitted the
    // ranking (any `made(…)` satisfied it) and with it the whole build.
    let dir = std::env::temp_dir().join(format!("hilbert-kernel-param-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = common::root().join("examples/production-line");
    let line = std::fs::read_to_string(src.join("Line.hk")).unwrap();
    let operator = std::fs::read_to_string(src.join("Operator.ha"))
        .unwrap()
        .replace(
            "agent Operator(line: String)",
            "agent Operator(line: String, target: Int)",
        )
        .replace(
            "achieved Produced when B(self) made(3)",
            "achieved Produced when B(self) made(target)",
        );
    assert!(operator.contains("made(target)"));
    std::fs::write(dir.join("Line.hk"), line).unwrap();
    std::fs::write(dir.join("Operator.ha"), operator).unwrap();
    let built = common::build(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let work = built.iter().find(|b| b.name == "Operator.Work").unwrap();
    let report = check(&work.bytes, Some(&work.expected()));
    assert!(report.admitted.is_none());
    let verdict = report
        .obligations
        .iter()
        .find(|(n, _)| n == "Work_live_Produced")
        .map(|(_, v)| v.clone());
    assert!(
        matches!(&verdict, Some(Verdict::Refused(r)) if r.rule == "live.parameters"),
        "{verdict:?}"
    );
    // So is the frame, whose relations read the same conditions.
    assert!(
        report
            .obligations
            .iter()
            .any(|(n, v)| n == "Operator.Work_frame"
                && matches!(v, Verdict::Refused(r) if r.rule == "frame.parameters"))
    );
    // The rest of the certificate still checks.
    assert!(
        report
            .obligations
            .iter()
            .filter(|(n, _)| n != "Work_live_Produced" && n != "Operator.Work_frame")
            .all(|(_, v)| *v == Verdict::Proved)
    );
}

/// A `believe` whose argument is `1 + (1 + (…))` written as chains nested `depth` deep through
/// their operands, or one chain of `width` operands.
fn chain_believe(depth: usize, width: usize) -> Node {
    use hilbert_certificates::ir::ArithOp;
    let one = || Expr::Literal(Literal::Int(1));
    let mut e = Expr::Chain(Box::new(one()), vec![(ArithOp::Add, one()); width]);
    for _ in 0..depth {
        e = Expr::Chain(Box::new(one()), vec![(ArithOp::Add, e)]);
    }
    Node::Believe(AtomExpr {
        belief: BeliefId(0),
        args: vec![e],
    })
}

/// The certificate bytes of the production line with `node` added to its code. Built on a thread
/// with a large stack, since encoding (and dropping) a deep tree recurses; the tree is leaked
/// rather than dropped.
fn with_node(node: Node) -> Vec<u8> {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || {
            let mut body = production_line();
            body.ir.networks[0].nodes.push(node);
            body.ir_sha256 = cert::sha256(&cert::ir_bytes(&body.ir));
            let bytes = cert::encode(&body);
            std::mem::forget(body);
            bytes
        })
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn a_chain_counts_one_level_however_long_but_chains_inside_chains_nest() {
    // 200,000 operands in one chain: one level; it decodes and changes no verdict.
    let wide = with_node(chain_believe(0, 200_000));
    let report = on_small_stack(move || check(&wide, None));
    assert!(report.invalid.is_none(), "{:?}", report.invalid);
    assert!(report.admitted.is_some());
    // Chains nested through their operands count each level: past the limit they are refused
    // while decoding.
    let deep = with_node(chain_believe(200_000, 1));
    let report = on_small_stack(move || check(&deep, None));
    let why = report.invalid.expect("invalid");
    assert!(why.contains("nests deeper than"), "{why}");
}

/// The production line's own Work certificate (other examples have an `Operator.Work` too).
fn production_line_work() -> Body {
    let built = common::certificates()
        .iter()
        .find(|b| b.example == "production-line" && b.name == "Operator.Work")
        .expect("the production line's Work certificate");
    cert::decode(&built.bytes).unwrap()
}

/// The production line's Work certificate declaring another size of its scene.
fn with_scene(states: u64, transitions: u64) -> Vec<u8> {
    let mut body = production_line_work();
    body.scene = Counts {
        states,
        transitions,
    };
    cert::encode(&body)
}

#[test]
fn a_scene_of_another_size_than_declared_is_refused() {
    let real = production_line_work().scene;
    assert!(
        check(&with_scene(real.states, real.transitions), None)
            .admitted
            .is_some()
    );
    let (s, t) = (real.states, real.transitions);
    for (states, transitions) in [
        (s - 1, t),
        (s + 1, t),
        (s, t - 1),
        (s, t + 1),
        (1, 0),
        (0, 0),
    ] {
        let report = check(&with_scene(states, transitions), None);
        assert!(report.admitted.is_none(), "{states}, {transitions}");
        assert!(report.invalid.is_none(), "{:?}", report.invalid);
        for (name, v) in &report.obligations {
            let Verdict::Refused(r) = v else {
                panic!("{name} proved of a scene declared {states} states, {transitions} steps")
            };
            assert!(
                r.rule == "states.count" || r.rule.ends_with(".count"),
                "{r:?}"
            );
        }
    }
}

#[test]
fn a_scene_declared_too_small_is_refused_once_it_passes_the_count() {
    // Declared 1 state: the kernel stops at its second, having done the work of one state.
    let real = production_line_work().scene;
    let whole = check(&with_scene(real.states, real.transitions), None).work;
    let report = check(&with_scene(1, 0), None);
    assert!(report.admitted.is_none());
    assert!(report.work * 4 < whole, "{} of {whole}", report.work);
}

#[test]
fn an_auditor_bounds_the_declared_states_before_any_exploration() {
    let honest = production_line_work();
    let all = honest.declared_states();
    let bytes = cert::encode(&honest);
    assert!(check_within(&bytes, None, all).admitted.is_some());
    let report = check_within(&bytes, None, all - 1);
    let why = report.invalid.expect("over the auditor's bound");
    assert!(why.contains(&format!("declares {all} states")), "{why}");
    assert_eq!(report.work, 0);
    // A declared count the kernel could never number is refused before any work too.
    let huge = with_scene(u64::MAX, 0);
    let report = check_within(&huge, None, 10_000_000);
    assert!(report.invalid.is_some());
    assert_eq!(report.work, 0);
}
