//! The IR of a certificate written as Hilbert source: its agents as a `.ha` file, their `.hb`
//! values, and each network's plans as `.hk` files, in the grammar of `docs/language.md` (ASCII
//! spellings), so that an auditor reads the IR as the language and a machine can lower it again
//! ([`super::roundtrip`]). Everything that is not source — node ids, slots, labels, the instance
//! table, binding numbers — is a `--` comment.
//!
//! What the lowering does is undone exactly where it can be: a sequence is written flat when it
//! nests to the right (as `a ; b ; c` lowers) and in parentheses when it nests to the left; a
//! condition's `(x ∧ y) ∨ (¬x ∧ ¬y)` is written `x = y` (the lowering's form of a comparison of
//! two conditions, whose `∧` would otherwise be flattened); a plan expression's `∧`, `∨` and an
//! arithmetic operator's left operand are parenthesised whenever the parser would otherwise
//! regroup them; and a binding argument that reads an agent parameter with no value reads it
//! again. Condition variables are named `v0`, `v1`, … by their index (another letter when an
//! agent parameter has such a name). Bindings whose networks are in other certificates are bound
//! to a plan that does nothing (`STOP`) in a file of its own, so that the agents stay valid
//! source: what they run is not in the certificate.
//!
//! Like the rest of the listing this never panics on a hostile certificate: what points nowhere
//! prints as `<node 9?>`, which is not source (the round trip then reports it).

use super::{
    AND, ATOM, CMP, MAX_DEPTH, MAX_NESTING, NEG, NOT, OR, Out, agent_name, arith_symbol,
    belief_name, chain_text, compare_symbol, esc, instance_name, literal_text, node_ref, plan_name,
    type_text,
};
use hilbert_certificates::ir::{
    Agent, Arg, ArithOp, AtomExpr, Command, Cond, CondTerm, Expr, Ir, Literal, Network, Node,
    NodeId, Pattern, PatternArg, PlanCode, PolicyIr, Property, Slot, Target, Type, ValueOp,
    ValueProgram,
};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// The comment that begins a file of the listing's source: `-- === file Line.hk ===`.
pub const FILE_MARK: &str = "-- === file ";
/// The comment that begins a section of the listing that is not source: `-- === states ===`.
pub const SECTION_MARK: &str = "-- === ";
/// Ends a section's mark.
pub const MARK_END: &str = " ===";

/// Writes `-- === file NAME ===`.
pub(super) fn file_mark(out: &mut Out, name: &str) {
    out.blank();
    out.raw_line(&format!("{FILE_MARK}{name}{MARK_END}"));
}

/// The stem of the file holding the plans bound where the certificate does not show them:
/// `Elsewhere`, or with `_` appended until no plan file of the IR has it.
fn elsewhere_stem(ir: &Ir) -> String {
    let mut stem = String::from("Elsewhere");
    while ir
        .networks
        .iter()
        .any(|n| n.plans.iter().any(|p| p.file == stem))
    {
        stem.push('_');
    }
    stem
}

/// What each binding runs, as the `.ha` names it, for every agent of the IR.
struct Targets {
    /// The stem of the placeholders' file.
    stem: String,
    /// Per (agent, binding) with no network and no host, the placeholder plan's name.
    placeholders: HashMap<(usize, usize), String>,
}

impl Targets {
    fn new(ir: &Ir) -> Targets {
        let stem = elsewhere_stem(ir);
        let mut placeholders = HashMap::new();
        let mut used: HashSet<String> = HashSet::new();
        for (ai, a) in ir.agents.iter().enumerate() {
            for (bi, b) in a.plans.iter().enumerate() {
                if b.network.is_some() || b.host.is_some() {
                    continue;
                }
                let mut name = esc(&b.name);
                if used.contains(&name) {
                    name = format!("{}_{}", esc(&a.name), esc(&b.name));
                }
                while used.contains(&name) {
                    name.push('_');
                }
                used.insert(name.clone());
                placeholders.insert((ai, bi), name);
            }
        }
        Targets { stem, placeholders }
    }
}

/// The whole IR as source files, each begun by [`file_mark`]: the agents, their values, each
/// network's plan files, and the placeholders. `this` is the certificate's network.
pub(super) fn ir_source(out: &mut Out, ir: &Ir, this: u32) {
    let targets = Targets::new(ir);
    let ha = ir
        .networks
        .get(this as usize)
        .and_then(|n| ir.agents.get(n.agent.0 as usize))
        .or(ir.agents.first())
        .map_or_else(|| String::from("Agents"), |a| esc(&a.name));
    file_mark(out, &format!("{ha}.ha"));
    for (i, a) in ir.agents.iter().enumerate() {
        if out.full() {
            return;
        }
        out.blank();
        agent_source(out, ir, i, a, &targets);
    }
    if ir.agents.iter().any(|a| a.values.is_some()) {
        file_mark(out, &format!("{ha}.hb"));
        for a in &ir.agents {
            if a.values.is_some() {
                out.blank();
                values_block(out, 0, a);
            }
        }
    }
    let mut printed: HashSet<(String, String)> = HashSet::new();
    for (i, net) in ir.networks.iter().enumerate() {
        if out.full() {
            return;
        }
        network_source(out, ir, i, net, i == this as usize, &mut printed);
    }
    placeholders(out, ir, &targets);
}

// ------------------------------------------------------------------ agents

/// The prefix of condition variables: `v`, or `v` repeated until no agent parameter is a
/// prefix followed by digits (a variable must not be read as a parameter).
fn var_prefix(a: &Agent) -> String {
    let mut p = String::from("v");
    let clash = |p: &str| {
        a.params.iter().any(|(n, _)| {
            n.strip_prefix(p)
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    while clash(&p) {
        p.push('v');
    }
    p
}

/// `name: Type, …`, as a declaration lists parameters or fields.
fn params_text<'a>(items: impl Iterator<Item = (String, &'a Type)>) -> String {
    items
        .map(|(n, t)| format!("{n}: {}", type_text(t)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `--param` text of a value: `3`, `true`, `"a b"` (`--param` takes a string as it is
/// between its quotes, with no escapes; a control character is escaped all the same, for the
/// terminal's sake, and then the value is not the same).
pub(super) fn param_value(l: &Literal) -> String {
    match l {
        Literal::Int(n) => n.to_string(),
        Literal::Bool(b) => b.to_string(),
        Literal::Str(s) => {
            let mut raw = String::new();
            for c in s.chars() {
                if c != '\t' && crate::render::is_unsafe(c) {
                    raw.extend(c.escape_default());
                } else {
                    raw.push(c);
                }
            }
            format!("\"{raw}\"")
        }
    }
}

fn agent_source(out: &mut Out, ir: &Ir, index: usize, a: &Agent, targets: &Targets) {
    let cx = CondCx {
        ir,
        agent: index as u32,
        var: var_prefix(a),
    };
    let mut comment = format!("agent {index}");
    for (i, (n, _)) in a.params.iter().enumerate() {
        match a.args.get(i) {
            Some(Some(v)) => {
                let _ = write!(comment, "; {} = {}", esc(n), param_value(v));
            }
            _ => {
                let _ = write!(comment, "; {} has no value", esc(n));
            }
        }
    }
    if a.args.len() != a.params.len() {
        let _ = write!(
            comment,
            "; <{} values for {} parameters?>",
            a.args.len(),
            a.params.len()
        );
    }
    let title = if a.params.is_empty() {
        format!("agent {}", esc(&a.name))
    } else {
        let params = params_text(a.params.iter().map(|(n, t)| (esc(n), t)));
        format!("agent {}({params})", esc(&a.name))
    };
    out.commented(0, &title, &comment);
    out.line(0, "{");
    for (i, b) in a.beliefs.iter().enumerate() {
        if out.full() {
            return;
        }
        let text = if b.fields.is_empty() {
            format!("belief {}", esc(&b.name))
        } else {
            let fields = params_text(b.fields.iter().map(|(n, t)| (esc(n), t)));
            format!("belief {}({fields})", esc(&b.name))
        };
        out.commented(1, &text, &format!("b{i}"));
    }
    for (i, d) in a.desires.iter().enumerate() {
        if out.full() {
            return;
        }
        let name = esc(&d.name);
        let priority = if d.priority == 0 {
            String::new()
        } else {
            format!(" priority {}", d.priority)
        };
        let reach: Vec<String> = d.reachable_by.iter().map(|&p| binding_name(a, p)).collect();
        let used = if d.params_used.is_empty() {
            String::from("none")
        } else {
            d.params_used
                .iter()
                .map(|p| esc(p))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let fair = if d.fair { " under weak fairness" } else { "" };
        out.commented(
            1,
            &format!(
                "desire {name}{priority} reachable by [{}]{fair}",
                reach.join(", ")
            ),
            &format!("d{i}, params used: {used}"),
        );
        for c in &d.achieved {
            if out.full() {
                return;
            }
            out.line(1, &format!("achieved {name} when {}", cx.cond_text(c)));
        }
        if d.achieved.is_empty() {
            out.line(1, &format!("-- no achieved rule: {name} is never achieved"));
        }
        for (c, because) in &d.impossible {
            if out.full() {
                return;
            }
            out.line(
                1,
                &format!(
                    "impossible {name} when {} because {}",
                    cx.cond_text(c),
                    string_literal(because)
                ),
            );
        }
    }
    out.line(1, &format!("commit {}", a.commit.keyword()));
    for (i, att) in a.attentions.iter().enumerate() {
        if out.full() {
            return;
        }
        let initially = if i == 0 { " initially" } else { "" };
        out.commented(
            1,
            &format!("attention {}{initially}", esc(att)),
            &format!("attention {i}"),
        );
    }
    for (i, b) in a.plans.iter().enumerate() {
        if out.full() {
            return;
        }
        let (target, what) = match (&b.network, &b.host) {
            (Some(n), host) => {
                let mut what = format!("network {n}");
                if host.is_some() {
                    what.push_str(", and also host code?");
                }
                (network_target(ir, *n), what)
            }
            (None, Some(h)) => (format!("host.{}", esc(h)), String::from("host code")),
            (None, None) => {
                let name = targets
                    .placeholders
                    .get(&(index, i))
                    .cloned()
                    .unwrap_or_else(|| esc(&b.name));
                (
                    format!("{}.{name}", targets.stem),
                    String::from("its network is not in this certificate"),
                )
            }
        };
        out.commented(
            1,
            &format!("plan {} => {target}", esc(&b.name)),
            &format!("binding {i}: {what}"),
        );
    }
    for r in &a.intends {
        if out.full() {
            return;
        }
        let desire = a
            .desires
            .get(r.desire as usize)
            .map_or_else(|| format!("<desire {}?>", r.desire), |d| esc(&d.name));
        out.line(
            1,
            &format!(
                "intend {} for {desire} when {}",
                binding_name(a, r.plan),
                cx.cond_text(&r.cond)
            ),
        );
    }
    for (c, att) in &a.attends {
        if out.full() {
            return;
        }
        let att = a
            .attentions
            .get(*att as usize)
            .map_or_else(|| format!("<attention {att}?>"), |s| esc(s));
        out.line(1, &format!("when {} attend {att}", cx.cond_text(c)));
    }
    for r in &a.rewards {
        if out.full() {
            return;
        }
        out.line(
            1,
            &format!(
                "reward {} {} when {}",
                binding_name(a, r.plan),
                if r.positive { "positive" } else { "negative" },
                cx.cond_text(&r.cond)
            ),
        );
    }
    for r in &a.asserts {
        if out.full() {
            return;
        }
        let c = |x| cx.cond_text(x);
        let pattern = match &r.property {
            Property::Always(x) => format!("always {}", c(x)),
            Property::Never(x) => format!("never {}", c(x)),
            Property::Eventually(x) => format!("eventually {}", c(x)),
            Property::LeadsTo(x, y) => format!("{} leads to {}", c(x), c(y)),
            Property::Precedes(x, y) => format!("{} precedes {}", c(x), c(y)),
        };
        let fair = if r.fair { " under weak fairness" } else { "" };
        out.line(1, &format!("assert {}: {pattern}{fair}", esc(&r.name)));
    }
    out.line(0, "}");
}

fn binding_name(a: &Agent, b: u32) -> String {
    a.plans
        .get(b as usize)
        .map_or_else(|| format!("<binding {b}?>"), |p| esc(&p.name))
}

/// `Line.Produce(3)`, how a `.ha` binding names the root plan of network `n`. A root argument
/// that stands for an agent parameter with no value (the network's `unset_params`) reads the
/// parameter again, so that the binding lowers to the same placeholders.
fn network_target(ir: &Ir, n: u32) -> String {
    let Some(net) = ir.networks.get(n as usize) else {
        return format!("<network {n}?>");
    };
    let root = net.plans.get(net.root.0 as usize);
    let (file, name) = root.map_or_else(
        || (String::from("?"), format!("<plan {}?>", net.root.0)),
        |p| (esc(&p.file), esc(&p.name)),
    );
    if net.root_args.is_empty() {
        return format!("{file}.{name}");
    }
    let agent = ir.agents.get(net.agent.0 as usize);
    let types: Vec<Option<&Type>> = (0..net.root_args.len())
        .map(|i| root.and_then(|p| p.params.get(i)))
        .collect();
    let reads = unset_arguments(net, agent, &types);
    let args: Vec<String> = net
        .root_args
        .iter()
        .enumerate()
        .map(|(i, l)| match &reads[i] {
            Some(text) => text.clone(),
            None => root_literal(l),
        })
        .collect();
    format!("{file}.{name}({})", args.join(", "))
}

/// A computed root argument: a literal, `i64::MIN` as the sum that computes it.
fn root_literal(l: &Literal) -> String {
    match l {
        Literal::Int(i64::MIN) => format!("{} - 1", i64::MIN + 1),
        other => source_literal(other),
    }
}

/// For a network whose binding reads agent parameters with no value: which root arguments read
/// them again, and how. The lowering makes every argument that reads one a placeholder `0`, so
/// a Bool or String argument that is `0` reads one (a Bool argument as `p = p`, or `p` for a
/// Bool `p`; a String argument a String `p`), and every such parameter is read by some
/// argument that is `0`: added up in an Int argument (Int parameters), joined by `and` in a
/// Bool argument (any). An Int argument `0` that reads none is the literal `0`.
fn unset_arguments(
    net: &Network,
    agent: Option<&Agent>,
    types: &[Option<&Type>],
) -> Vec<Option<String>> {
    let mut reads: Vec<Vec<String>> = vec![Vec::new(); types.len()];
    let zero = |i: usize| net.root_args.get(i) == Some(&Literal::Int(0));
    let unset: Vec<(String, &Type)> = net
        .unset_params
        .iter()
        .filter_map(|&p| agent.and_then(|a| a.params.get(p as usize)))
        .map(|(n, t)| (esc(n), t))
        .collect();
    let as_bool = |(n, t): &(String, &Type)| {
        if **t == Type::Bool {
            n.clone()
        } else {
            format!("{n} = {n}")
        }
    };
    let mut used = vec![false; unset.len()];
    for i in (0..types.len()).filter(|&i| zero(i)) {
        match types[i] {
            Some(Type::Bool) => {
                if let Some(p) = unset.first() {
                    reads[i].push(as_bool(p));
                    used[0] = true;
                }
            }
            Some(Type::Str) => {
                if let Some(k) = unset.iter().position(|(_, t)| **t == Type::Str) {
                    reads[i].push(unset[k].0.clone());
                    used[k] = true;
                }
            }
            _ => {}
        }
    }
    for (k, p) in unset.iter().enumerate() {
        if used[k] {
            continue;
        }
        let int = (0..types.len())
            .find(|&i| zero(i) && types[i] == Some(&Type::Int) && *p.1 == Type::Int);
        let boolean = (0..types.len()).find(|&i| zero(i) && types[i] == Some(&Type::Bool));
        match (int, boolean) {
            (Some(i), _) => reads[i].push(p.0.clone()),
            (None, Some(i)) => reads[i].push(as_bool(p)),
            (None, None) => {}
        }
    }
    reads
        .into_iter()
        .enumerate()
        .map(|(i, r)| match (r.is_empty(), types[i]) {
            (true, _) => None,
            (false, Some(Type::Bool)) => Some(r.join(" and ")),
            (false, _) => Some(r.join(" + ")),
        })
        .collect()
}

// ------------------------------------------------------------------ values

/// An agent's compiled `.hb` block: each option's value formula (names and `.ha` values
/// inlined) and the policy, indented by `indent` levels.
pub(super) fn values_block(out: &mut Out, indent: usize, a: &Agent) {
    match &a.values {
        None => out.line(indent, "-- values: none (no .hb block)"),
        Some(v) => {
            out.line(indent, &format!("values {} {{", esc(&a.name)));
            for (binding, program) in &v.options {
                if out.full() {
                    return;
                }
                out.line(
                    indent + 1,
                    &format!(
                        "option {} := {}",
                        binding_name(a, *binding),
                        value_text(a, program)
                    ),
                );
            }
            let f = |bits: u64| float_text(f64::from_bits(bits));
            let policy = match v.policy {
                PolicyIr::Greedy => String::from("greedy"),
                PolicyIr::EpsilonGreedy(e) => format!("epsilon_greedy(epsilon = {})", f(e)),
                PolicyIr::Softmax(t) => format!("softmax(temperature = {})", f(t)),
                PolicyIr::Ucb(c) => format!("ucb(c = {})", f(c)),
            };
            out.line(indent + 1, &format!("policy {policy}"));
            out.line(indent, "}");
        }
    }
}

/// A decimal the lexer reads back as exactly `x`: no exponent, always a `.` (`3.0`; `1e20` is
/// written out in full), an infinity as a decimal too large for a double.
fn float_text(x: f64) -> String {
    if x.is_nan() {
        return String::from("NaN");
    }
    if x.is_infinite() {
        let huge = format!("1{}.0", "0".repeat(309));
        return if x < 0.0 { format!("-{huge}") } else { huge };
    }
    let mut s = format!("{x}");
    if !s.contains('.') {
        s.push_str(".0");
    }
    s
}

/// One node of a value formula, rebuilt from its postfix program.
enum VNode {
    /// Text, and its precedence.
    Leaf(String, u8),
    /// `-x`.
    Neg(usize),
    /// `a op b`.
    Bin(&'static str, u8, usize, usize),
}

/// A value program (postfix) as an infix formula, rebuilt as a tree and written without
/// recursion (a program is a flat list: its tree may be as deep as it is long). A negative
/// constant is written as the agent parameter that has that value, if one has (the lowering
/// writes a parameter's value as a constant, and the language has no negative literal).
fn value_text(a: &Agent, p: &ValueProgram) -> String {
    let mut nodes: Vec<VNode> = Vec::with_capacity(p.ops.len());
    let mut stack: Vec<usize> = Vec::new();
    let mut malformed = false;
    let push_leaf = |nodes: &mut Vec<VNode>, stack: &mut Vec<usize>, text: String, prec| {
        nodes.push(VNode::Leaf(text, prec));
        stack.push(nodes.len() - 1);
    };
    for op in &p.ops {
        match op {
            ValueOp::Const(bits) => {
                let x = f64::from_bits(*bits);
                let param = a
                    .params
                    .iter()
                    .zip(&a.args)
                    .find_map(|((n, _), v)| match v {
                        Some(Literal::Int(k)) if x < 0.0 && (*k as f64).to_bits() == *bits => {
                            Some(esc(n))
                        }
                        _ => None,
                    });
                let (text, prec) = match param {
                    Some(n) => (n, ATOM),
                    None if x.is_sign_negative() => (float_text(x), NEG),
                    None => (float_text(x), ATOM),
                };
                push_leaf(&mut nodes, &mut stack, text, prec);
            }
            ValueOp::Feature { belief, field } => {
                let b = a.beliefs.get(belief.0 as usize);
                let bn = b.map_or_else(|| format!("<belief {}?>", belief.0), |b| esc(&b.name));
                let fname = b
                    .and_then(|b| b.fields.get(*field as usize))
                    .map_or_else(|| format!("<field {field}?>"), |(n, _)| esc(n));
                push_leaf(&mut nodes, &mut stack, format!("{bn}.{fname}"), ATOM);
            }
            ValueOp::Learned(b) => {
                let text = format!("learned({})", binding_name(a, *b));
                push_leaf(&mut nodes, &mut stack, text, ATOM);
            }
            ValueOp::Param(i) => {
                let text = a.params.get(*i as usize).map_or_else(
                    || {
                        malformed = true;
                        format!("<param {i}?>")
                    },
                    |(n, _)| esc(n),
                );
                push_leaf(&mut nodes, &mut stack, text, ATOM);
            }
            ValueOp::Neg => {
                let x = stack.pop().unwrap_or_else(|| {
                    malformed = true;
                    nodes.push(VNode::Leaf(String::from("<empty stack?>"), ATOM));
                    nodes.len() - 1
                });
                nodes.push(VNode::Neg(x));
                stack.push(nodes.len() - 1);
            }
            ValueOp::Add | ValueOp::Sub | ValueOp::Mul | ValueOp::Div | ValueOp::Rem => {
                let mut pop = |nodes: &mut Vec<VNode>| {
                    stack.pop().unwrap_or_else(|| {
                        malformed = true;
                        nodes.push(VNode::Leaf(String::from("<empty stack?>"), ATOM));
                        nodes.len() - 1
                    })
                };
                let b = pop(&mut nodes);
                let x = pop(&mut nodes);
                let (sym, prec) = match op {
                    ValueOp::Add => ("+", 5),
                    ValueOp::Sub => ("-", 5),
                    ValueOp::Mul => ("*", 6),
                    ValueOp::Rem => ("%", 6),
                    _ => ("/", 6),
                };
                nodes.push(VNode::Bin(sym, prec, x, b));
                stack.push(nodes.len() - 1);
            }
        }
    }
    let prec = |n: usize| match &nodes[n] {
        VNode::Leaf(_, p) => *p,
        VNode::Neg(_) => NEG,
        VNode::Bin(_, p, ..) => *p,
    };
    // Written with an explicit stack of what is still to write.
    enum Task<'a> {
        Node(usize, u8),
        Text(&'a str),
    }
    let mut text = String::new();
    for (k, &root) in stack.iter().enumerate() {
        if k > 0 {
            text.push_str(", ");
        }
        let mut todo = vec![Task::Node(root, 0)];
        while let Some(t) = todo.pop() {
            if text.len() > super::MAX_BYTES {
                text.push('…');
                break;
            }
            match t {
                Task::Text(s) => text.push_str(s),
                Task::Node(n, min) => {
                    let paren = prec(n) < min;
                    if paren {
                        text.push('(');
                        todo.push(Task::Text(")"));
                    }
                    match &nodes[n] {
                        VNode::Leaf(s, _) => text.push_str(s),
                        VNode::Neg(x) => {
                            text.push('-');
                            todo.push(Task::Node(*x, ATOM));
                        }
                        VNode::Bin(sym, p, x, b) => {
                            todo.push(Task::Node(*b, p + 1));
                            todo.push(Task::Text(match *sym {
                                "+" => " + ",
                                "-" => " - ",
                                "*" => " * ",
                                "%" => " % ",
                                _ => " / ",
                            }));
                            todo.push(Task::Node(*x, *p));
                        }
                    }
                }
            }
        }
    }
    if stack.is_empty() {
        text = String::from("<empty program?>");
    } else if stack.len() > 1 || malformed {
        let _ = write!(text, "  <malformed program: {} values left?>", stack.len());
    }
    text
}

// ------------------------------------------------------------------ conditions

/// A string literal as the lexer reads it back: `"`, `\` and a newline escaped (`\"`, `\\`,
/// `\n`), every other character as it is (a tab, accents, combining marks), but for what the
/// language has no escape for and a terminal must not see (another control character, a
/// bidirectional override: `render`'s unsafe characters), written as Rust's escape, which is
/// not source: a listing never carries them raw, and such a string does not round-trip.
fn string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        if i >= super::MAX_NAME {
            out.push('…');
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push('\t'),
            c if crate::render::is_unsafe(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A literal in source syntax; `i64::MIN`, which no literal is, as the difference that
/// computes it.
fn source_literal(l: &Literal) -> String {
    match l {
        Literal::Str(s) => string_literal(s),
        Literal::Int(i64::MIN) => format!("({} - 1)", i64::MIN + 1),
        other => literal_text(other),
    }
}

fn literal_prec(l: &Literal) -> u8 {
    match l {
        Literal::Int(n) if *n < 0 => NEG,
        _ => ATOM,
    }
}

/// An arithmetic term of a condition or a plan: what [`arith`] writes.
trait Arith: Sized {
    /// The term's arithmetic shape, or `None` for a leaf the caller writes.
    fn shape(&self) -> Shape<'_, Self>;
}

enum Shape<'a, T> {
    Literal(&'a Literal),
    Neg(&'a T),
    Arith(ArithOp, &'a T, &'a T),
    Chain(&'a T, &'a [(ArithOp, T)]),
    Other,
}

impl Arith for CondTerm {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            CondTerm::Literal(l) => Shape::Literal(l),
            CondTerm::Neg(a) => Shape::Neg(a),
            CondTerm::Arith(op, a, b) => Shape::Arith(*op, a, b),
            CondTerm::Chain(a, rest) => Shape::Chain(a, rest),
            CondTerm::Var(_) | CondTerm::Param(_) => Shape::Other,
        }
    }
}

impl Arith for Expr {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            Expr::Literal(l) => Shape::Literal(l),
            Expr::Neg(a) => Shape::Neg(a),
            Expr::Arith(op, a, b) => Shape::Arith(*op, a, b),
            Expr::Chain(a, rest) => Shape::Chain(a, rest),
            _ => Shape::Other,
        }
    }
}

/// The precedence of an arithmetic shape (`None`: not arithmetic).
fn arith_prec<T: Arith>(t: &T) -> Option<u8> {
    Some(match t.shape() {
        Shape::Literal(Literal::Int(i64::MIN)) => ATOM,
        Shape::Literal(l) => literal_prec(l),
        Shape::Neg(_) => NEG,
        Shape::Arith(op, ..) => arith_symbol(op).1,
        Shape::Chain(first, rest) => match rest.last() {
            Some((op, _)) => arith_symbol(*op).1,
            None => arith_prec(first).unwrap_or(ATOM),
        },
        Shape::Other => return None,
    })
}

/// Writes an arithmetic term as the parser reads it back into the same tree: both operands of
/// `a op b` tighter than `op` (`(a + b) + c` is not the chain `a + b + c`), a chain's operands
/// likewise, `-x` with `x` tight (`-(-1)`: `--` would begin a comment). A chain that mixes
/// levels, which the parser never makes, is written as the tree it stands for. `leaf` writes
/// what is not arithmetic, at least as tight as its `min`.
fn arith<T: Arith>(
    t: &T,
    min: u8,
    depth: usize,
    out: &mut String,
    leaf: &dyn Fn(&T, u8, usize, &mut String),
) {
    arith_named(t, min, depth, out, leaf, &|_| None)
}

/// [`arith`], with `named` giving the agent parameter a literal stands for where no literal
/// can be written: a condition reads a parameter's value as a literal, so `-t` with `t = 3` is
/// the negation of the literal 3, which `-3` (the literal −3) is not.
fn arith_named<T: Arith>(
    t: &T,
    min: u8,
    depth: usize,
    out: &mut String,
    leaf: &dyn Fn(&T, u8, usize, &mut String),
    named: &dyn Fn(&Literal) -> Option<String>,
) {
    if depth > MAX_NESTING {
        out.push('…');
        return;
    }
    let Some(prec) = arith_prec(t) else {
        return leaf(t, min, depth, out);
    };
    let paren = prec < min;
    if paren {
        out.push('(');
    }
    match t.shape() {
        Shape::Literal(l @ Literal::Int(i64::MIN)) => {
            out.push_str(&named(l).unwrap_or_else(|| source_literal(l)));
        }
        Shape::Literal(l) => out.push_str(&source_literal(l)),
        // `-0` and `-3` are literals: the negation of 0 is written `-(-0)`, as it was, and that
        // of another literal that is not negative as the parameter that has it.
        Shape::Neg(a) if matches!(a.shape(), Shape::Literal(Literal::Int(0))) => {
            out.push_str("-(-0)");
        }
        Shape::Neg(a)
            if let Shape::Literal(l @ Literal::Int(1..)) = a.shape()
                && let Some(name) = named(l) =>
        {
            out.push('-');
            out.push_str(&name);
        }
        Shape::Neg(a) => {
            out.push('-');
            arith_named(a, ATOM, depth + 1, out, leaf, named);
        }
        Shape::Arith(op, a, b) => {
            let (sym, p) = arith_symbol(op);
            arith_named(a, p + 1, depth + 1, out, leaf, named);
            let _ = write!(out, " {sym} ");
            arith_named(b, p + 1, depth + 1, out, leaf, named);
        }
        Shape::Chain(first, rest) => {
            let level = |op: &ArithOp| arith_symbol(*op).1;
            let one_level = rest.iter().all(|(op, _)| level(op) == prec);
            if one_level && !rest.is_empty() {
                arith_named(first, prec + 1, depth + 1, out, leaf, named);
                for (op, b) in rest {
                    if out.len() > super::MAX_BYTES {
                        out.push('…');
                        break;
                    }
                    let _ = write!(out, " {} ", arith_symbol(*op).0);
                    arith_named(b, prec + 1, depth + 1, out, leaf, named);
                }
            } else {
                chain_text(first, rest, min, out, |x, m, out| {
                    arith_named(x, m, depth + 1, out, leaf, named)
                });
            }
        }
        Shape::Other => {}
    }
    if paren {
        out.push(')');
    }
}

/// What a condition is printed against: the agent whose condition it is, and the prefix of its
/// variables' names.
struct CondCx<'a> {
    ir: &'a Ir,
    agent: u32,
    var: String,
}

/// `(x ∧ y) ∨ (¬x ∧ ¬y)` — the lowering's `x = y` of two conditions — or `(x ∧ ¬y) ∨ (¬x ∧ y)`,
/// its `x ≠ y`, as the two disjuncts `a` and `b`: `(x, y, is_eq)`. Only when one side is not
/// `true` or `false`, which would be read as a comparison of two literals.
fn iff<'c>(a: &'c Cond, b: &'c Cond) -> Option<(&'c Cond, &'c Cond, bool)> {
    let (Cond::And(l), Cond::And(r)) = (a, b) else {
        return None;
    };
    let ([x, y1], [Cond::Not(nx), y2]) = (l.as_slice(), r.as_slice()) else {
        return None;
    };
    if **nx != *x {
        return None;
    }
    let not = |c: &Cond| Cond::Not(Box::new(c.clone()));
    let (y, eq) = if *y2 == not(y1) {
        (y1, true)
    } else if let Cond::Not(y) = y1
        && **y == *y2
    {
        (y2, false)
    } else {
        return None;
    };
    let literal = |c: &Cond| matches!(c, Cond::True | Cond::False);
    (!literal(x) || !literal(y)).then_some((x, y, eq))
}

impl CondCx<'_> {
    fn cond_text(&self, c: &Cond) -> String {
        let mut s = String::new();
        self.cond(c, 0, 0, &mut s);
        s
    }

    fn cond(&self, c: &Cond, min: u8, depth: usize, out: &mut String) {
        if depth > MAX_NESTING || out.len() > super::MAX_BYTES {
            out.push('…');
            return;
        }
        if let Cond::Or(v) = c
            && let [a, b] = v.as_slice()
            && let Some(eq) = iff(a, b)
        {
            return self.iff(eq, min, depth, out);
        }
        let prec = match c {
            Cond::Or(v) if v.len() > 1 => OR,
            Cond::And(v) if v.len() > 1 => AND,
            Cond::Not(_) => NOT,
            Cond::Compare(..) => CMP,
            _ => ATOM,
        };
        let paren = prec < min;
        if paren {
            out.push('(');
        }
        match c {
            Cond::True => out.push_str("true"),
            Cond::False => out.push_str("false"),
            Cond::Believes(p) => {
                out.push_str("B(self) ");
                self.pattern(self.agent, p, out);
            }
            Cond::Told(j, p) => {
                let _ = write!(out, "B({}) ", agent_name(self.ir, j.0));
                self.pattern(j.0, p, out);
            }
            Cond::Attending(i) => {
                let name = self
                    .ir
                    .agents
                    .get(self.agent as usize)
                    .and_then(|a| a.attentions.get(*i as usize))
                    .map_or_else(|| format!("<attention {i}?>"), |s| esc(s));
                let _ = write!(out, "attending {name}");
            }
            Cond::Desires(d) => {
                let name = (self.ir.agents.get(self.agent as usize))
                    .and_then(|a| a.desires.get(*d as usize))
                    .map_or_else(|| format!("<desire {d}?>"), |x| esc(&x.name));
                let _ = write!(out, "desires {name}");
            }
            Cond::Intends(p) => {
                let name = (self.ir.agents.get(self.agent as usize))
                    .and_then(|a| a.plans.get(*p as usize))
                    .map_or_else(|| format!("<plan {p}?>"), |x| esc(&x.name));
                let _ = write!(out, "intends {name}");
            }
            Cond::Compare(op, a, b) => {
                self.term(a, CMP + 1, depth + 1, out);
                let _ = write!(out, " {} ", compare_symbol(*op));
                self.term(b, CMP + 1, depth + 1, out);
            }
            Cond::Not(inner) => {
                out.push_str("not ");
                self.cond(inner, NOT, depth + 1, out);
            }
            // Not source: the lowering never makes an empty or a one-part list.
            Cond::And(v) | Cond::Or(v) if v.len() < 2 => {
                out.push_str(if matches!(c, Cond::And(_)) {
                    "and("
                } else {
                    "or("
                });
                if let Some(x) = v.first() {
                    self.cond(x, 0, depth + 1, out);
                }
                out.push(')');
            }
            Cond::And(v) => {
                for (i, part) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" and ");
                    }
                    if out.len() > super::MAX_BYTES {
                        out.push('…');
                        break;
                    }
                    self.cond(part, AND + 1, depth + 1, out);
                }
            }
            // A comparison of two conditions inside a longer disjunction is two of its parts.
            Cond::Or(v) => {
                let mut i = 0;
                while i < v.len() {
                    if i > 0 {
                        out.push_str(" or ");
                    }
                    if out.len() > super::MAX_BYTES {
                        out.push('…');
                        break;
                    }
                    match v.get(i + 1).and_then(|b| iff(&v[i], b)) {
                        Some(eq) => {
                            self.iff(eq, OR + 1, depth + 1, out);
                            i += 2;
                        }
                        None => {
                            self.cond(&v[i], OR + 1, depth + 1, out);
                            i += 1;
                        }
                    }
                }
            }
        }
        if paren {
            out.push(')');
        }
    }

    /// `x = y` (or `x != y`) of two conditions.
    fn iff(&self, (x, y, eq): (&Cond, &Cond, bool), min: u8, depth: usize, out: &mut String) {
        let paren = CMP < min;
        if paren {
            out.push('(');
        }
        self.cond(x, CMP + 1, depth + 1, out);
        out.push_str(if eq { " = " } else { " != " });
        self.cond(y, CMP + 1, depth + 1, out);
        if paren {
            out.push(')');
        }
    }

    fn pattern(&self, holder: u32, p: &Pattern, out: &mut String) {
        out.push_str(&belief_name(self.ir, holder, p.belief));
        out.push('(');
        for (i, a) in p.args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match a {
                PatternArg::Any => out.push('_'),
                PatternArg::Literal(l) => out.push_str(&self.literal(l)),
                PatternArg::Var(v) => {
                    let _ = write!(out, "{}{v}", self.var);
                }
                PatternArg::Param(i) => out.push_str(&self.param_text(*i)),
            }
        }
        out.push(')');
    }

    /// The agent parameter whose value `l` is (a condition reads a parameter's value as a
    /// literal).
    fn named(&self, l: &Literal) -> Option<String> {
        let a = self.ir.agents.get(self.agent as usize)?;
        let ((n, _), _) = a
            .params
            .iter()
            .zip(&a.args)
            .find(|(_, v)| v.as_ref() == Some(l))?;
        Some(esc(n))
    }

    /// A literal; `i64::MIN` as the agent parameter that has it, or as the difference that
    /// computes it.
    fn literal(&self, l: &Literal) -> String {
        match l {
            Literal::Int(i64::MIN) => self.named(l).unwrap_or_else(|| source_literal(l)),
            _ => source_literal(l),
        }
    }

    /// An agent parameter with no value, by name (or `<param 3?>`).
    fn param_text(&self, i: u32) -> String {
        match self
            .ir
            .agents
            .get(self.agent as usize)
            .and_then(|a| a.params.get(i as usize))
        {
            Some((name, _)) => esc(name),
            None => format!("<param {i}?>"),
        }
    }

    fn term(&self, t: &CondTerm, min: u8, depth: usize, out: &mut String) {
        let leaf = |t: &CondTerm, _: u8, _: usize, out: &mut String| match t {
            CondTerm::Var(v) => {
                let _ = write!(out, "{}{v}", self.var);
            }
            CondTerm::Param(i) => out.push_str(&self.param_text(*i)),
            _ => {}
        };
        arith_named(t, min, depth, out, &leaf, &|l| self.named(l));
    }
}

// ------------------------------------------------------------------ networks

/// One network's plans, as `.hk` files (one per stem, in the order the plans first name it),
/// each begun by a comment block with the network's name, root, instance table and arena. A plan
/// already written for an earlier network of the IR (same stem and name) is written again as
/// comments, so that each file declares it once.
fn network_source(
    out: &mut Out,
    ir: &Ir,
    index: usize,
    net: &Network,
    this: bool,
    printed: &mut HashSet<(String, String)>,
) {
    let mut stems: Vec<String> = Vec::new();
    for p in &net.plans {
        if !stems.contains(&p.file) {
            stems.push(p.file.clone());
        }
    }
    if stems.is_empty() {
        stems.push(String::from("?"));
    }
    let mut starts: HashMap<u32, Vec<u32>> = HashMap::new();
    for (i, inst) in net.instances.iter().enumerate() {
        if let Some(c) = inst.call {
            starts.entry(c.0).or_default().push(i as u32);
        }
    }
    let mut reached = vec![false; net.nodes.len()];
    for (k, stem) in stems.iter().enumerate() {
        if out.full() {
            return;
        }
        file_mark(out, &format!("{}.hk", esc(stem)));
        if k == 0 {
            network_header(out, ir, index, net, this);
        }
        for (p, code) in net.plans.iter().enumerate() {
            if code.file != *stem || out.full() {
                continue;
            }
            let again = !printed.insert((code.file.clone(), code.name.clone()));
            let mut printer = PlanPrinter {
                ir,
                net,
                code,
                starts: &starts,
                visited: HashSet::new(),
                reached: &mut reached,
                lines: Vec::new(),
            };
            out.blank();
            printer.plan(out, p, again);
        }
    }
    if out.full() {
        return;
    }
    let unreached: Vec<usize> = (0..reached.len()).filter(|&i| !reached[i]).collect();
    out.blank();
    if unreached.is_empty() {
        out.line(
            0,
            &format!(
                "--   arena      {} nodes, each written above",
                net.nodes.len()
            ),
        );
    } else {
        let list: Vec<String> = unreached.iter().take(16).map(|i| format!("n{i}")).collect();
        let more = if unreached.len() > 16 {
            format!(", … ({} more)", unreached.len() - 16)
        } else {
            String::new()
        };
        out.line(
            0,
            &format!(
                "--   arena      {} nodes; {} not reached from any plan's body or handlers: {}{more}",
                net.nodes.len(),
                unreached.len(),
                list.join(", ")
            ),
        );
    }
}

fn network_header(out: &mut Out, ir: &Ir, index: usize, net: &Network, this: bool) {
    let mark = if this { " (this certificate)" } else { "" };
    out.line(
        0,
        &format!(
            "-- network {index}: {}{mark}",
            super::network_title(ir, net)
        ),
    );
    out.line(
        0,
        &format!(
            "--   agent      {} (agent {})",
            agent_name(ir, net.agent.0),
            net.agent.0
        ),
    );
    out.line(0, &format!("--   binding    {}", esc(&net.binding)));
    let args: Vec<String> = net.root_args.iter().map(literal_text).collect();
    out.line(
        0,
        &format!(
            "--   root       {}({})  (plan {})",
            plan_name(net, net.root),
            args.join(", "),
            net.root.0
        ),
    );
    if !net.unset_params.is_empty() {
        let agent = ir.agents.get(net.agent.0 as usize);
        let names: Vec<String> = net
            .unset_params
            .iter()
            .map(|&p| {
                agent
                    .and_then(|a| a.params.get(p as usize))
                    .map_or_else(|| format!("<param {p}?>"), |(n, _)| esc(n))
            })
            .collect();
        let (them, are) = if names.len() == 1 {
            ("it", "its argument is a placeholder")
        } else {
            ("them", "their arguments are placeholders")
        };
        out.line(
            0,
            &format!(
                "--   unset      {} (the binding reads {them} with no value: {are}, and the network is not explored)",
                names.join(", ")
            ),
        );
    }
    out.line(0, &format!("--   instances  {}", net.instances.len()));
    for (i, inst) in net.instances.iter().enumerate() {
        if out.full() {
            return;
        }
        let comment = match (inst.parent, inst.call) {
            (None, None) => String::from("the root"),
            (parent, call) => format!(
                "inside {}, started by {}",
                parent.map_or_else(
                    || String::from("<no parent?>"),
                    |p| if (p as usize) < net.instances.len() {
                        format!("instance {p}")
                    } else {
                        format!("<instance {p}?>")
                    }
                ),
                call.map_or_else(|| String::from("<no call?>"), |c| node_ref(net, c))
            ),
        };
        out.commented(0, &format!("--     {i} {}", esc(&inst.name)), &comment);
    }
}

/// The placeholders' file: one plan doing nothing per binding whose network is not in the IR.
fn placeholders(out: &mut Out, ir: &Ir, targets: &Targets) {
    if targets.placeholders.is_empty() || out.full() {
        return;
    }
    file_mark(out, &format!("{}.hk", targets.stem));
    out.line(
        0,
        "-- The bindings whose networks are in other certificates (a certificate holds one network):",
    );
    out.line(
        0,
        "-- what they run is not in this certificate, so each is bound to a plan that does nothing.",
    );
    for (ai, a) in ir.agents.iter().enumerate() {
        for bi in 0..a.plans.len() {
            if let Some(name) = targets.placeholders.get(&(ai, bi)) {
                out.line(0, &format!("plan {name}() : {} := STOP", esc(&a.name)));
            }
        }
    }
}

/// How tightly each process form binds (`docs/language.md` §4, loosest first): a process is
/// written in parentheses where it binds more loosely than its place asks.
fn process_prec(node: &Node) -> u8 {
    match node {
        Node::Par(_) => 1,
        Node::Choice(_) => 2,
        Node::Interrupt(..) => 3,
        Node::Label(..) => 4,
        Node::Seq(..) => 5,
        _ => 6,
    }
}

/// The place of a part of a sequence: only a process that is not a sequence, a label or an
/// operator goes there unparenthesised.
const SEQ_PART: u8 = 6;

/// Prints one plan's code, as lines (indent, text, comment) collected before they are written,
/// so that a sequence can end a part's last line with `;`.
struct PlanPrinter<'a, 'r> {
    ir: &'a Ir,
    net: &'a Network,
    code: &'a PlanCode,
    starts: &'a HashMap<u32, Vec<u32>>,
    /// The nodes printed in this plan.
    visited: HashSet<u32>,
    /// The nodes printed in any plan of the network.
    reached: &'r mut [bool],
    lines: Vec<(usize, String, String)>,
}

/// The names of a plan's slots: its declared name (`slotN` when it has none).
fn slot_text(code: &PlanCode, s: Slot) -> String {
    if s.0 >= code.slots {
        return format!("<slot {}?>", s.0);
    }
    match code.slot_names.get(s.0 as usize) {
        Some(n) if !n.is_empty() => esc(n),
        _ => format!("slot{}", s.0),
    }
}

/// An expression of a plan, in source syntax (slots by their names).
pub(super) fn expr_text(code: &PlanCode, e: &Expr) -> String {
    let mut s = String::new();
    expr(code, e, 0, 0, &mut s);
    s
}

fn expr(code: &PlanCode, e: &Expr, min: u8, depth: usize, out: &mut String) {
    arith(e, min, depth, out, &|e, min, depth, out| {
        if depth > MAX_NESTING {
            out.push('…');
            return;
        }
        let prec = match e {
            Expr::Not(_) => NOT,
            Expr::Compare(..) => CMP,
            Expr::And(..) => AND,
            Expr::Or(..) => OR,
            _ => ATOM,
        };
        let paren = prec < min;
        if paren {
            out.push('(');
        }
        // `∧` and `∨` chains are read as balanced trees: both sides of one are written tighter
        // than it, so that the tree reads back as it is.
        let mut binary = |a: &Expr, sym: &str, b: &Expr, side: u8| {
            expr(code, a, side, depth + 1, out);
            let _ = write!(out, " {sym} ");
            expr(code, b, side, depth + 1, out);
        };
        match e {
            Expr::Slot(s) => out.push_str(&slot_text(code, *s)),
            Expr::Not(a) => {
                out.push_str("not ");
                expr(code, a, NOT, depth + 1, out);
            }
            Expr::Compare(op, a, b) => binary(a, compare_symbol(*op), b, CMP + 1),
            Expr::And(a, b) => binary(a, "and", b, AND + 1),
            Expr::Or(a, b) => binary(a, "or", b, OR + 1),
            _ => {}
        }
        if paren {
            out.push(')');
        }
    });
}

/// A sent value as a process begins: in parentheses when its first word would be read as
/// something else (`not`, a process keyword such as `STOP` or `match`, or a word that cannot
/// begin a process).
fn send_value(text: String) -> String {
    const WORDS: &[&str] = &[
        "not", "SKIP", "STOP", "believe", "forget", "tell", "stop", "resume", "abort", "restart",
        "match", "when", "other", "plan", "body", "on",
    ];
    let first = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    if WORDS.contains(&first) {
        format!("({text})")
    } else {
        text
    }
}

impl PlanPrinter<'_, '_> {
    fn slot(&self, s: Slot) -> String {
        slot_text(self.code, s)
    }

    fn expr_text(&self, e: &Expr) -> String {
        expr_text(self.code, e)
    }

    fn push(&mut self, indent: usize, text: impl Into<String>, comment: impl Into<String>) {
        self.lines.push((indent, text.into(), comment.into()));
    }

    /// The plan's declaration: a comment with its number, slots and labels, then `plan …`.
    fn plan(&mut self, out: &mut Out, index: usize, again: bool) {
        let code = self.code;
        let slots: Vec<String> = (0..code.slots.min(code.slot_names.len() as u32 + 1))
            .take(64)
            .map(|i| format!("{i} {}", self.slot(Slot(i))))
            .collect();
        let mismatch = if code.slot_names.len() == code.slots as usize {
            String::new()
        } else {
            format!(
                "  <{} names for {} slots?>",
                code.slot_names.len(),
                code.slots
            )
        };
        let labels: Vec<String> = code
            .labels
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i} {}", esc(n)))
            .collect();
        let head = format!(
            "-- plan {index}: {}.{}; slots {}{}{mismatch}; labels {}",
            esc(&code.file),
            esc(&code.name),
            code.slots,
            if slots.is_empty() {
                String::new()
            } else {
                format!(" ({})", slots.join(", "))
            },
            if labels.is_empty() {
                String::from("none")
            } else {
                labels.join(", ")
            }
        );
        let params: Vec<String> = code
            .params
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{}: {}", self.slot(Slot(i as u32)), type_text(t)))
            .collect();
        let agent = agent_name(self.ir, self.net.agent.0);
        let decl = format!("plan {}({}) : {agent}", esc(&code.name), params.join(", "));
        let short = code.channels.is_empty()
            && code.on_stop.is_none()
            && code.on_resume.is_none()
            && code.on_abort.is_none();
        if short {
            self.push(0, format!("{decl} :="), "");
            self.node(code.body, 1, 0, 0);
        } else {
            self.push(0, decl, "");
            self.push(0, "{", "");
            for (s, t) in &code.channels {
                let text = format!("{} : chan {}", self.slot(*s), type_text(t));
                self.push(1, text, format!("slot {}", s.0));
            }
            self.push(1, "body :=", "");
            self.node(code.body, 2, 0, 0);
            for (name, handler) in [
                ("on stop :=", code.on_stop),
                ("on resume :=", code.on_resume),
                ("on abort :=", code.on_abort),
            ] {
                if let Some(h) = handler {
                    self.push(1, name, "");
                    self.node(h, 2, 0, 0);
                }
            }
            self.push(0, "}", "");
        }
        out.line(0, &head);
        if again {
            out.line(
                0,
                "-- (declared above for an earlier network: written again as comments)",
            );
        }
        for (indent, text, comment) in std::mem::take(&mut self.lines) {
            if out.full() {
                return;
            }
            if again {
                let text = format!("-- {}{text}", "  ".repeat(indent));
                out.commented(0, &text, &comment);
            } else {
                out.commented(indent, &text, &comment);
            }
        }
    }

    fn atom(&self, holder: u32, a: &AtomExpr) -> String {
        let args: Vec<String> = a.args.iter().map(|e| self.expr_text(e)).collect();
        format!(
            "{}({})",
            belief_name(self.ir, holder, a.belief),
            args.join(", ")
        )
    }

    fn label(&self, l: u32) -> String {
        self.code
            .labels
            .get(l as usize)
            .map_or_else(|| format!("<label {l}?>"), |s| esc(s))
    }

    /// Appends `text` to the last line and `comment` to its comment.
    fn append(&mut self, text: &str, comment: &str) {
        if let Some((_, t, c)) = self.lines.last_mut() {
            t.push_str(text);
            if !comment.is_empty() {
                if !c.is_empty() {
                    c.push_str("  ");
                }
                c.push_str(comment);
            }
        }
    }

    /// Writes node `id` at `indent` levels, `depth` nodes deep, in parentheses when it binds
    /// more loosely than `min` ([`process_prec`]).
    fn node(&mut self, id: NodeId, indent: usize, depth: usize, min: u8) {
        let tag = format!("n{}", id.0);
        let Some(node) = self.net.nodes.get(id.0 as usize) else {
            self.push(indent, format!("<node {}?>", id.0), "");
            return;
        };
        if depth >= MAX_DEPTH {
            self.push(
                indent,
                "…",
                format!("{tag} and below: deeper than {MAX_DEPTH} levels, not shown"),
            );
            return;
        }
        if !self.visited.insert(id.0) {
            self.push(
                indent,
                format!("<{tag} again?>"),
                format!("{tag} was printed above in this plan"),
            );
            return;
        }
        if process_prec(node) < min {
            self.push(indent, "(", "");
            self.visited.remove(&id.0);
            self.node(id, indent + 1, depth, 0);
            self.push(indent, ")", "");
            return;
        }
        self.reached[id.0 as usize] = true;
        let holder = self.net.agent.0;
        match node {
            Node::Skip => self.push(indent, "SKIP", tag),
            Node::Stop => self.push(indent, "STOP", tag),
            Node::Send { chan, value } => {
                let text = format!(
                    "{} -> {}",
                    send_value(self.expr_text(value)),
                    self.slot(*chan)
                );
                self.push(indent, text, tag);
            }
            Node::Recv { chan, var } => {
                let text = format!("{} <- {}", self.slot(*var), self.slot(*chan));
                self.push(indent, text, tag);
            }
            Node::Believe(a) => {
                let text = format!("believe {}", self.atom(holder, a));
                self.push(indent, text, tag);
            }
            Node::Forget(a) => {
                let text = format!("forget {}", self.atom(holder, a));
                self.push(indent, text, tag);
            }
            Node::Tell {
                agent,
                atom,
                own,
                index,
            } => {
                let own =
                    own.map_or_else(|| String::from("none"), |b| belief_name(self.ir, holder, b));
                let text = format!(
                    "tell {} {}",
                    agent_name(self.ir, agent.0),
                    self.atom(agent.0, atom)
                );
                self.push(
                    indent,
                    text,
                    format!("{tag}, tell {index}, own belief {own}"),
                );
            }
            Node::Command { command, target } => {
                let c = match command {
                    Command::Stop => "stop",
                    Command::Resume => "resume",
                    Command::Abort => "abort",
                    Command::Restart => "restart",
                };
                let t = match target {
                    Target::Label(l) => self.label(l.0),
                    Target::SelfInstance => String::from("self"),
                };
                self.push(indent, format!("{c} {t}"), tag);
            }
            Node::Call { plan, args, tail } => {
                let args: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Value(e) => self.expr_text(e),
                        Arg::Chan(s) => self.slot(*s),
                    })
                    .collect();
                let comment = if *tail {
                    format!("{tag}, tail call")
                } else {
                    match self.starts.get(&id.0) {
                        Some(insts) => format!(
                            "{tag}, starts instance {}",
                            insts
                                .iter()
                                .map(|i| format!("{i} {}", instance_name(self.net, *i)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        None => format!("{tag}, starts no listed instance"),
                    }
                };
                let text = format!("{}({})", plan_name(self.net, *plan), args.join(", "));
                self.push(indent, text, comment);
            }
            // Nested to the right, as `a ; b ; c` lowers: written flat (nested to the left,
            // a part is a sequence, in parentheses).
            Node::Seq(a, b) => {
                let (mut part, mut rest, mut seq) = (*a, *b, id);
                loop {
                    self.node(part, indent, depth + 1, SEQ_PART);
                    self.append(" ;", &format!("; n{}", seq.0));
                    match self.net.nodes.get(rest.0 as usize) {
                        Some(Node::Seq(x, y)) if !self.visited.contains(&rest.0) => {
                            self.visited.insert(rest.0);
                            self.reached[rest.0 as usize] = true;
                            seq = rest;
                            part = *x;
                            rest = *y;
                        }
                        _ => {
                            self.node(rest, indent, depth + 1, SEQ_PART);
                            break;
                        }
                    }
                }
            }
            // The operator's lines carry the node: `||  -- n6 ||` on the first.
            Node::Par(cs) | Node::Choice(cs) => {
                let (op, inner) = if matches!(node, Node::Par(_)) {
                    ("||", 2)
                } else {
                    ("[]", 3)
                };
                if cs.len() < 2 {
                    self.push(
                        indent,
                        format!("<{op} of {} parts?>", cs.len()),
                        tag.clone(),
                    );
                }
                for (i, c) in cs.iter().enumerate() {
                    if i == 1 {
                        self.push(indent, op, format!("{tag} {op}"));
                    } else if i > 1 {
                        self.push(indent, op, "");
                    }
                    self.node(*c, indent + 1, depth + 1, inner);
                }
            }
            // Right-associative: `a /\ b /\ c` is `a /\ (b /\ c)`.
            Node::Interrupt(a, b) => {
                self.node(*a, indent + 1, depth + 1, 4);
                self.push(indent, "/\\", format!("{tag} /\\"));
                self.node(*b, indent + 1, depth + 1, 3);
            }
            // A label covers the sequence to its right.
            Node::Label(l, b) => {
                self.push(indent, format!("{} :", self.label(l.0)), tag);
                self.node(*b, indent + 1, depth + 1, 4);
            }
            Node::Match {
                scrutinee,
                arms,
                other,
            } => {
                let text = format!("match {} {{", self.expr_text(scrutinee));
                self.push(indent, text, tag);
                for (lit, n) in arms {
                    self.push(indent + 1, format!("when {} =>", source_literal(lit)), "");
                    self.node(*n, indent + 2, depth + 1, 0);
                }
                if let Some(n) = other {
                    self.push(indent + 1, "other =>", "");
                    self.node(*n, indent + 2, depth + 1, 0);
                }
                self.push(indent, "}", "");
            }
        }
    }
}
