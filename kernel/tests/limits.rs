//! Regression tests for what the kernel once got wrong, and for the fixed limits that keep a
//! hostile certificate from overflowing its stack or exhausting its memory (each fails closed).

mod common;

use hilbert_certificates::cert::{self, Body, DecodeError, StateTable, TermNode};
use hilbert_certificates::ir::{AtomExpr, BeliefId, Expr, Literal, MAX_NESTING, Node};
use hilbert_kernel::check::{MAX_TERM_DEPTH, Verdict, check};

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

/// The production line's certificate with its state table replaced.
fn with_table(table: StateTable) -> Vec<u8> {
    let mut body = production_line();
    body.states = table;
    cert::encode(&body)
}

/// The index of a parameter list in a table, listed after the others when it is new (as a term
/// appended to the table first uses it).
fn param_list(table: &mut StateTable, list: Vec<hilbert_certificates::ir::Value>) -> u32 {
    match table.params.iter().position(|p| *p == list) {
        Some(i) => i as u32,
        None => {
            table.params.push(list);
            table.params.len() as u32 - 1
        }
    }
}

#[test]
fn a_term_nested_deeper_than_the_limit_is_refused_before_it_is_written_out() {
    let chain = |depth: u32| {
        let mut terms = vec![TermNode::Done];
        for i in 1..depth {
            terms.push(TermNode::Suspended(i - 1));
        }
        StateTable {
            terms,
            params: Vec::new(),
            atoms: Vec::new(),
            states: vec![(depth - 1, Vec::new())],
        }
    };
    let deep = with_table(chain(100_000));
    let report = on_small_stack(move || check(&deep, None));
    let why = report.invalid.expect("invalid");
    assert!(why.contains("nested") && why.contains("limit"), "{why}");
    // At the limit the table decodes, and is refused only because it is not the scene.
    let at = with_table(chain(MAX_TERM_DEPTH));
    let report = on_small_stack(move || check(&at, None));
    assert!(report.invalid.is_none(), "{:?}", report.invalid);
    assert!(
        report
            .obligations
            .iter()
            .all(|(_, v)| matches!(v, Verdict::Refused(r) if r.rule == "scene.initial"))
    );
}

#[test]
fn shared_terms_that_would_write_out_to_an_exponential_tree_are_refused() {
    // Term i is `term(i-1) ‖ term(i-1)`: 60 small table entries, 2^60 nodes written out.
    let mut terms = vec![TermNode::Done];
    for i in 1..60 {
        terms.push(TermNode::Par(vec![i - 1, i - 1]));
    }
    let table = StateTable {
        terms,
        params: Vec::new(),
        atoms: Vec::new(),
        states: vec![(59, Vec::new())],
    };
    let bytes = with_table(table);
    assert!(bytes.len() < 2_000);
    let report = on_small_stack(move || check(&bytes, None));
    let why = report.invalid.expect("invalid");
    assert!(why.contains("nodes once written out"), "{why}");
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

/// The production line's honest table with one more state: the root instance running a thread
/// whose stack holds `commands` copies of the node `abort feed`, beside a suspended process of
/// about `2^doublings` nodes once written out (`x ‖ x`, shared, `doublings` deep). Each `abort`
/// lands with a search of the term for the label, so the step is `commands` times the size of
/// the term, while its macro-step runs only `commands` nodes (issue 29, item 12).
fn with_stacked_aborts(commands: usize, doublings: u32) -> Vec<u8> {
    use hilbert_certificates::ir::{NodeId, PlanId, Value};
    let mut body = production_line_work();
    let net = &body.ir.networks[body.network as usize];
    let abort = net
        .nodes
        .iter()
        .position(|n| matches!(n, Node::Command { .. }))
        .expect("the production line aborts `feed`");
    let table = &mut body.states;
    let done = table
        .terms
        .iter()
        .position(|t| matches!(t, TermNode::Done))
        .map(|i| i as u32);
    let chan = Value::Chan {
        instance: 0,
        plan: PlanId(0),
        index: 0,
    };
    let push = |t: TermNode, terms: &mut Vec<TermNode>| {
        terms.push(t);
        terms.len() as u32 - 1
    };
    // Children before their parent, left to right, each term once: the canonical order.
    let thread = push(
        TermNode::Thread {
            inst: 0,
            plan: PlanId(0),
            stack: vec![NodeId(abort as u32); commands],
            env: vec![chan.clone()],
            ready: true,
        },
        &mut table.terms,
    );
    let mut big = match done {
        Some(d) => d,
        None => push(TermNode::Done, &mut table.terms),
    };
    for _ in 0..doublings {
        big = push(TermNode::Par(vec![big, big]), &mut table.terms);
    }
    let suspended = push(TermNode::Suspended(big), &mut table.terms);
    let par = push(TermNode::Par(vec![thread, suspended]), &mut table.terms);
    let inst = push(
        TermNode::Inst {
            inst: 0,
            plan: PlanId(0),
            params: param_list(table, vec![chan]),
            body: par,
        },
        &mut table.terms,
    );
    table.states.push((inst, Vec::new()));
    cert::encode(&body)
}

#[test]
fn a_step_whose_commands_search_a_large_term_is_charged_for_the_search() {
    // 6,000 commands, each searching a term of 2^19 nodes: 3·10^9 nodes visited by one step,
    // which ran only 6,000 nodes: before the search was charged, this took minutes.
    let bytes = with_stacked_aborts(6_000, 18);
    refused_for_its_work(bytes);
}

/// The production line's honest table with one more state: the root instance over a process
/// whose `2^doublings` threads (`x ‖ x`, shared) each wait to receive, under `wrappers` nested
/// `Then`s, so every offer's path is `wrappers + doublings` long.
fn with_deep_offers(doublings: u32, wrappers: u32) -> Vec<u8> {
    use hilbert_certificates::ir::{NodeId, PlanId, Value};
    let mut body = production_line_work();
    let net = &body.ir.networks[body.network as usize];
    let recv = net
        .nodes
        .iter()
        .position(|n| matches!(n, Node::Recv { .. }))
        .expect("the production line receives parts");
    let table = &mut body.states;
    let chan = Value::Chan {
        instance: 0,
        plan: PlanId(0),
        index: 0,
    };
    let push = |t: TermNode, terms: &mut Vec<TermNode>| {
        terms.push(t);
        terms.len() as u32 - 1
    };
    let mut t = push(
        TermNode::Thread {
            inst: 0,
            plan: PlanId(0),
            stack: vec![NodeId(recv as u32)],
            env: vec![chan.clone(), Value::Int(0), Value::Int(0)],
            ready: true,
        },
        &mut table.terms,
    );
    let leaf = t;
    for _ in 0..doublings {
        t = push(TermNode::Par(vec![t, t]), &mut table.terms);
    }
    for _ in 0..wrappers {
        t = push(TermNode::Then(t, leaf), &mut table.terms);
    }
    let inst = push(
        TermNode::Inst {
            inst: 0,
            plan: PlanId(0),
            params: param_list(table, vec![chan]),
            body: t,
        },
        &mut table.terms,
    );
    table.states.push((inst, Vec::new()));
    cert::encode(&body)
}

#[test]
fn the_paths_of_a_states_offers_are_charged_as_they_are_listed() {
    // 2^17 receivers (the most a state may hold), each 17 + 200 deep: 28 million path entries
    // (over 200 MB) listed before the state's step was charged.
    let bytes = with_deep_offers(17, 200);
    refused_for_its_work(bytes);
}

/// A small certificate is refused as over its work limit, within seconds (it took minutes, or
/// hundreds of megabytes, before its work was charged as it was done).
fn refused_for_its_work(bytes: Vec<u8>) {
    assert!(bytes.len() < 64 * 1024, "{}", bytes.len());
    let started = std::time::Instant::now();
    let report = on_small_stack(move || check(&bytes, None));
    let took = started.elapsed();
    assert!(report.admitted.is_none());
    let why = report.invalid.expect("refused as over its work limit");
    assert!(why.contains("more work than the kernel's limit"), "{why}");
    assert!(took < std::time::Duration::from_secs(10), "took {took:?}");
}
