//! A certificate as an auditor reads it: a plain-text listing of its header, its sources, the IR
//! the kernel trusted (every agent and every network, with conditions and plan code printed close
//! to the `.ha`/`.hk`/`.hb` syntax of `docs/language.md`, ASCII spellings) and a summary of its
//! states and witnesses.
//!
//! The kernel proves claims about the IR inside a certificate, not about the sources; a person
//! checks that the IR means what the sources say (`docs/certificates.md`, "What the kernel
//! trusts"). The listing is for that comparison: plan code is an indented process tree whose
//! lines carry the node ids (`-- n12`) that refusals and ranking features name.
//!
//! **Invariant:** a certificate is hostile input. The listing never panics: an index that points
//! nowhere prints as `<node 99?>` (or `<belief 3?>`, `<plan 2?>`, …); node trees stop at
//! [`MAX_DEPTH`] levels and print each node at most once per plan, so a cyclic arena terminates;
//! expressions and conditions stop at a nesting bound; names and strings are escaped
//! (`escape_debug`); and the whole listing stops at [`MAX_BYTES`] with a final
//! `… (listing truncated)` line.

use hilbert_certificates::cert::{
    self, AfterRec, Body, FaultRec, Feature, StateTable, TermNode, Witness,
};
use hilbert_certificates::ir::{
    Agent, Arg, ArithOp, AtomExpr, BeliefId, Binding, Command, CompareOp, Cond, CondTerm, Expr, Ir,
    Literal, Network, Node, NodeId, Pattern, PatternArg, PlanCode, PlanId, PolicyIr, Slot, Target,
    Type, Value, ValueOp, ValueProgram,
};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// The most bytes a listing holds before it stops with `… (listing truncated)`.
pub const MAX_BYTES: usize = 4 << 20;
/// How deeply a process tree is printed; deeper nodes print as `…`.
pub const MAX_DEPTH: usize = 64;
/// How deeply an expression, a condition or a type is printed; deeper parts print as `…`.
const MAX_NESTING: usize = 300;
/// The column the node-id comments start at.
const COMMENT_COLUMN: usize = 52;
/// The most characters of one name or string printed.
const MAX_NAME: usize = 1000;
/// The most instructions of a value program printed as a formula.
const MAX_VALUE_OPS: usize = 1000;
/// The most items of a short list (ids in a comment, children of a state's term, …).
const SHORT: usize = 16;

/// A certificate as an auditor reads it: a plain-text listing of its sources, its IR and a summary of its states and witnesses.
pub fn listing(path: &str, body: &hilbert_certificates::cert::Body) -> String {
    let mut out = Out::default();
    header(&mut out, path, body);
    sources(&mut out, body);
    for (i, agent) in body.ir.agents.iter().enumerate() {
        if out.full() {
            break;
        }
        out.blank();
        agent_listing(&mut out, &body.ir, i, agent);
    }
    for (i, net) in body.ir.networks.iter().enumerate() {
        if out.full() {
            break;
        }
        out.blank();
        network_listing(&mut out, &body.ir, i, net, i == body.network as usize);
    }
    out.blank();
    states(&mut out, body);
    out.blank();
    witnesses(&mut out, body);
    out.finish()
}

// ------------------------------------------------------------------ output

/// The listing being written, bounded by [`MAX_BYTES`].
#[derive(Default)]
struct Out {
    text: String,
    truncated: bool,
}

impl Out {
    /// Whether the listing reached its bound (nothing more is written).
    fn full(&self) -> bool {
        self.truncated
    }

    fn blank(&mut self) {
        self.push("\n");
    }

    /// A line indented by `indent` levels.
    fn line(&mut self, indent: usize, text: &str) {
        self.commented(indent, text, "");
    }

    /// A line indented by `indent` levels, with `comment` in the comment column.
    fn commented(&mut self, indent: usize, text: &str, comment: &str) {
        if self.truncated {
            return;
        }
        let mut l = "  ".repeat(indent);
        l.push_str(text);
        if !comment.is_empty() {
            let width = l.chars().count();
            let pad = COMMENT_COLUMN.saturating_sub(width).max(2);
            l.extend(std::iter::repeat_n(' ', pad));
            l.push_str("-- ");
            l.push_str(comment);
        }
        l.push('\n');
        self.push(&l);
    }

    fn push(&mut self, s: &str) {
        if self.truncated {
            return;
        }
        let room = MAX_BYTES.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
        } else {
            let mut cut = room;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            self.text.push_str(&s[..cut]);
            self.truncated = true;
        }
    }

    fn finish(mut self) -> String {
        if self.truncated {
            if !self.text.ends_with('\n') {
                self.text.push('\n');
            }
            self.text.push_str("… (listing truncated)\n");
        }
        self.text
    }
}

/// A name or string with control characters (and backslashes and double quotes) escaped, at
/// most [`MAX_NAME`] characters.
fn esc(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i >= MAX_NAME {
            out.push('…');
            break;
        }
        if c == '\'' {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}

/// Up to [`SHORT`] items joined by `sep`, then how many more.
fn short_list(items: impl ExactSizeIterator<Item = String>, sep: &str) -> String {
    let total = items.len();
    let mut parts: Vec<String> = items.take(SHORT).collect();
    if total > SHORT {
        parts.push(format!("… ({} more)", total - SHORT));
    }
    parts.join(sep)
}

fn type_text(t: &Type) -> String {
    let mut s = String::new();
    let mut t = t;
    for _ in 0..MAX_NESTING {
        match t {
            Type::Int => return s + "Int",
            Type::Str => return s + "String",
            Type::Bool => return s + "Bool",
            Type::Chan(inner) => {
                s.push_str("chan ");
                t = inner;
            }
        }
    }
    s + "…"
}

fn literal_text(l: &Literal) -> String {
    match l {
        Literal::Int(n) => n.to_string(),
        Literal::Bool(b) => b.to_string(),
        Literal::Str(s) => format!("\"{}\"", esc(s)),
    }
}

fn literals_text(ls: &[Literal]) -> String {
    short_list(ls.iter().map(literal_text), ", ")
}

fn agent_name(ir: &Ir, agent: u32) -> String {
    ir.agents
        .get(agent as usize)
        .map_or_else(|| format!("<agent {agent}?>"), |a| esc(&a.name))
}

fn belief_name(ir: &Ir, agent: u32, belief: BeliefId) -> String {
    ir.agents
        .get(agent as usize)
        .and_then(|a| a.beliefs.get(belief.0 as usize))
        .map_or_else(|| format!("<belief {}?>", belief.0), |b| esc(&b.name))
}

fn plan_name(net: &Network, plan: PlanId) -> String {
    net.plans
        .get(plan.0 as usize)
        .map_or_else(|| format!("<plan {}?>", plan.0), |p| esc(&p.name))
}

fn instance_name(net: &Network, inst: u32) -> String {
    net.instances
        .get(inst as usize)
        .map_or_else(|| format!("<instance {inst}?>"), |i| esc(&i.name))
}

fn node_ref(net: &Network, node: NodeId) -> String {
    if (node.0 as usize) < net.nodes.len() {
        format!("n{}", node.0)
    } else {
        format!("<node {}?>", node.0)
    }
}

/// `Operator.Work`, the name of a network.
fn network_title(ir: &Ir, net: &Network) -> String {
    format!("{}.{}", agent_name(ir, net.agent.0), esc(&net.binding))
}

/// `Line.Produce(3)`, how a `.ha` binding names the root plan of a network.
fn network_target(ir: &Ir, n: u32) -> String {
    let Some(net) = ir.networks.get(n as usize) else {
        return format!("<network {n}?>");
    };
    let (file, name) = net.plans.get(net.root.0 as usize).map_or_else(
        || (String::from("?"), format!("<plan {}?>", net.root.0)),
        |p| (esc(&p.file), esc(&p.name)),
    );
    if net.root_args.is_empty() {
        format!("{file}.{name}")
    } else {
        format!("{file}.{name}({})", literals_text(&net.root_args))
    }
}

fn arith_symbol(op: ArithOp) -> (&'static str, u8) {
    match op {
        ArithOp::Add => ("+", 5),
        ArithOp::Sub => ("-", 5),
        ArithOp::Mul => ("*", 6),
        ArithOp::Div => ("/", 6),
        ArithOp::Rem => ("%", 6),
    }
}

/// The precedence of a chain: that of its last operator, the root of the tree it stands for
/// (a chain of no operators is its operand, which [`chain_text`] writes at the chain's place).
fn chain_prec<T>(rest: &[(ArithOp, T)]) -> u8 {
    rest.last().map_or(ATOM, |(op, _)| arith_symbol(*op).1)
}

/// Writes the chain `first op₁ b₁ op₂ b₂ …` as the left-leaning tree it stands for, in one pass
/// (no recursion along the chain): a prefix whose operator binds more loosely than the next is
/// parenthesised, so `(a + b) * c` reads back as written. `operand(x, min, out)` writes one
/// operand at least as tight as `min`; a chain of no operators is its operand, written at least
/// as tight as the chain's place (`min`). Stops with `…` past [`MAX_BYTES`].
fn chain_text<T>(
    first: &T,
    rest: &[(ArithOp, T)],
    min: u8,
    out: &mut String,
    mut operand: impl FnMut(&T, u8, &mut String),
) {
    let looser = |i: usize| i > 0 && arith_symbol(rest[i - 1].0).1 < arith_symbol(rest[i].0).1;
    let opens = (0..rest.len()).filter(|&i| looser(i)).count();
    out.extend(std::iter::repeat_n('(', opens));
    operand(
        first,
        rest.first().map_or(min, |(op, _)| arith_symbol(*op).1),
        out,
    );
    for (i, (op, b)) in rest.iter().enumerate() {
        if out.len() > MAX_BYTES {
            out.push('…');
            return;
        }
        if looser(i) {
            out.push(')');
        }
        let (sym, p) = arith_symbol(*op);
        let _ = write!(out, " {sym} ");
        operand(b, p + 1, out);
    }
}

fn compare_symbol(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Eq => "=",
        CompareOp::Ne => "!=",
        CompareOp::Lt => "<",
        CompareOp::Le => "<=",
        CompareOp::Gt => ">",
        CompareOp::Ge => ">=",
    }
}

/// Precedence levels, loosest first (`docs/language.md` §2).
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const CMP: u8 = 4;
const NEG: u8 = 7;
const ATOM: u8 = 8;

fn literal_prec(l: &Literal) -> u8 {
    match l {
        Literal::Int(n) if *n < 0 => NEG,
        _ => ATOM,
    }
}

// ------------------------------------------------------------------ header and sources

fn header(out: &mut Out, path: &str, body: &Body) {
    out.line(0, &format!("certificate {}", esc(path)));
    out.line(1, &format!("tool        {}", esc(&body.tool)));
    let actual = cert::sha256(&cert::ir_bytes(&body.ir));
    let check = if actual == body.ir_sha256 {
        String::from("matches the IR below")
    } else {
        format!(
            "does NOT match the IR below, whose SHA-256 is {}",
            cert::hex(&actual)
        )
    };
    out.commented(
        1,
        &format!("ir sha256   {}", cert::hex(&body.ir_sha256)),
        &check,
    );
    let about = match body.ir.networks.get(body.network as usize) {
        Some(net) => network_title(&body.ir, net),
        None => String::from("<no such network?>"),
    };
    out.line(1, &format!("network     {}: {about}", body.network));
    out.line(
        1,
        "legend      `-- nK` is node K of the network's arena; condition variables are v0, v1, … in order of first appearance",
    );
    out.blank();
    out.line(0, &format!("sources ({})", body.sources.len()));
    if body.sources.is_empty() {
        out.line(1, "(none)");
    }
}

fn sources(out: &mut Out, body: &Body) {
    for s in &body.sources {
        if out.full() {
            return;
        }
        out.line(
            1,
            &format!("{}  sha256 {}", esc(&s.path), cert::hex(&s.sha256)),
        );
    }
}

// ------------------------------------------------------------------ agents

fn agent_listing(out: &mut Out, ir: &Ir, index: usize, a: &Agent) {
    let params = short_list(
        a.params.iter().enumerate().map(|(i, (n, t))| {
            // With the value the IR was lowered with, if any (a rule reading a parameter with
            // none shows `param NAME`).
            match a.args.get(i) {
                Some(Some(v)) => format!("{}: {} = {}", esc(n), type_text(t), literal_text(v)),
                _ => format!("{}: {}", esc(n), type_text(t)),
            }
        }),
        ", ",
    );
    let cx = CondCx {
        ir,
        agent: index as u32,
    };
    let title = if a.params.is_empty() {
        format!("agent {}", esc(&a.name))
    } else {
        format!("agent {}({params})", esc(&a.name))
    };
    out.commented(0, &title, &format!("agent {index}"));
    for (i, b) in a.beliefs.iter().enumerate() {
        if out.full() {
            return;
        }
        let text = if b.fields.is_empty() {
            format!("belief {}", esc(&b.name))
        } else {
            let fields = short_list(
                b.fields
                    .iter()
                    .map(|(n, t)| format!("{}: {}", esc(n), type_text(t))),
                ", ",
            );
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
        let reach = short_list(d.reachable_by.iter().map(|&p| binding_name(a, p)), ", ");
        let used = if d.params_used.is_empty() {
            String::from("none")
        } else {
            short_list(d.params_used.iter().map(|p| esc(p)), ", ")
        };
        out.commented(
            1,
            &format!("desire {name}{priority} reachable by [{reach}]"),
            &format!("d{i}, params used: {used}"),
        );
        if d.achieved.is_empty() {
            out.line(2, &format!("(no achieved rule: {name} is never achieved)"));
        }
        for c in &d.achieved {
            if out.full() {
                return;
            }
            out.line(2, &format!("achieved {name} when {}", cx.cond_text(c)));
        }
        for (c, because) in &d.impossible {
            if out.full() {
                return;
            }
            out.line(
                2,
                &format!(
                    "impossible {name} when {} because \"{}\"",
                    cx.cond_text(c),
                    esc(because)
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
        let (target, comment) = binding_target(ir, b);
        out.commented(
            1,
            &format!("plan {} => {target}", esc(&b.name)),
            &format!("binding {i}{comment}"),
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
    values_block(out, 1, a);
}

/// An agent's compiled `.hb` block: each option's value formula (names and `.ha` values
/// inlined) and the policy, indented by `indent` levels.
fn values_block(out: &mut Out, indent: usize, a: &Agent) {
    match &a.values {
        None => out.line(indent, "values: none (no .hb block)"),
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
            let f = |bits: u64| format!("{:?}", f64::from_bits(bits));
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

/// What `hilbert build --emit-values` writes for an agent: its compiled `.hb` block, as the
/// runtime evaluates it (`docs/cli.md`).
pub fn values_listing(a: &Agent) -> String {
    let mut out = Out::default();
    out.line(
        0,
        &format!(
            "-- the compiled values of agent {}: `.hb` and `.ha` names inlined, features are the largest believed field (0 when none), learned(P) the mean reward of P",
            esc(&a.name)
        ),
    );
    values_block(&mut out, 0, a);
    out.text
}

fn binding_name(a: &Agent, b: u32) -> String {
    a.plans
        .get(b as usize)
        .map_or_else(|| format!("<binding {b}?>"), |p| esc(&p.name))
}

/// What a binding runs, as the `.ha` writes it, and a comment.
fn binding_target(ir: &Ir, b: &Binding) -> (String, String) {
    match (&b.network, &b.host) {
        (Some(n), None) => (network_target(ir, *n), format!(", network {n}")),
        (None, Some(h)) => (format!("host.{}", esc(h)), String::new()),
        (None, None) => (String::from("<nothing?>"), String::new()),
        (Some(n), Some(h)) => (
            network_target(ir, *n),
            format!(", network {n}, and also host.{}?", esc(h)),
        ),
    }
}

/// A value program (postfix) as an infix formula.
fn value_text(a: &Agent, p: &ValueProgram) -> String {
    if p.ops.len() > MAX_VALUE_OPS {
        return format!("<a program of {} instructions, not shown>", p.ops.len());
    }
    let mut stack: Vec<(String, u8)> = Vec::new();
    let mut malformed = false;
    let mut pop = |stack: &mut Vec<(String, u8)>| {
        stack.pop().unwrap_or_else(|| {
            malformed = true;
            (String::from("<empty stack?>"), ATOM)
        })
    };
    for op in &p.ops {
        match op {
            ValueOp::Const(bits) => {
                let x = f64::from_bits(*bits);
                let prec = if x.is_sign_negative() { NEG } else { ATOM };
                stack.push((format!("{x:?}"), prec));
            }
            ValueOp::Feature { belief, field } => {
                let b = a.beliefs.get(belief.0 as usize);
                let bn = b.map_or_else(|| format!("<belief {}?>", belief.0), |b| esc(&b.name));
                let fname = b
                    .and_then(|b| b.fields.get(*field as usize))
                    .map_or_else(|| format!("<field {field}?>"), |(n, _)| esc(n));
                stack.push((format!("{bn}.{fname}"), ATOM));
            }
            ValueOp::Learned(b) => stack.push((format!("learned({})", binding_name(a, *b)), ATOM)),
            ValueOp::Neg => {
                let (x, px) = pop(&mut stack);
                let x = if px < ATOM { format!("({x})") } else { x };
                stack.push((format!("-{x}"), NEG));
            }
            ValueOp::Add | ValueOp::Sub | ValueOp::Mul | ValueOp::Div | ValueOp::Rem => {
                let (b, pb) = pop(&mut stack);
                let (mut x, px) = pop(&mut stack);
                let (sym, prec) = match op {
                    ValueOp::Add => ("+", 5),
                    ValueOp::Sub => ("-", 5),
                    ValueOp::Mul => ("*", 6),
                    ValueOp::Rem => ("%", 6),
                    _ => ("/", 6),
                };
                if px < prec {
                    x.insert(0, '(');
                    x.push(')');
                }
                // Appended in place: a long chain `a + b + …` is written in linear time.
                if pb <= prec {
                    let _ = write!(x, " {sym} ({b})");
                } else {
                    let _ = write!(x, " {sym} {b}");
                }
                stack.push((x, prec));
            }
        }
    }
    let left = stack.len();
    let mut text = stack
        .into_iter()
        .map(|(s, _)| s)
        .collect::<Vec<_>>()
        .join(", ");
    if left == 0 {
        text = String::from("<empty program?>");
    } else if left > 1 || malformed {
        text.push_str(&format!("  <malformed program: {left} values left?>"));
    }
    text
}

// ------------------------------------------------------------------ conditions

/// What a condition is printed against: the agent whose condition it is.
struct CondCx<'a> {
    ir: &'a Ir,
    agent: u32,
}

impl CondCx<'_> {
    fn cond_text(&self, c: &Cond) -> String {
        let mut s = String::new();
        self.cond(c, 0, 0, &mut s);
        s
    }

    fn cond(&self, c: &Cond, min: u8, depth: usize, out: &mut String) {
        if depth > MAX_NESTING || out.len() > MAX_BYTES {
            out.push('…');
            return;
        }
        if let Cond::And(v) | Cond::Or(v) = c
            && v.len() == 1
        {
            return self.cond(&v[0], min, depth + 1, out);
        }
        let prec = match c {
            Cond::Or(v) if !v.is_empty() => OR,
            Cond::And(v) if !v.is_empty() => AND,
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
            Cond::Compare(op, a, b) => {
                self.term(a, CMP + 1, depth + 1, out);
                let _ = write!(out, " {} ", compare_symbol(*op));
                self.term(b, CMP + 1, depth + 1, out);
            }
            Cond::Not(inner) => {
                out.push_str("not ");
                self.cond(inner, NOT, depth + 1, out);
            }
            Cond::And(v) | Cond::Or(v) if v.is_empty() => {
                out.push_str(if matches!(c, Cond::And(_)) {
                    "and()"
                } else {
                    "or()"
                });
            }
            Cond::And(v) | Cond::Or(v) => {
                let (sep, inner) = if matches!(c, Cond::And(_)) {
                    (" and ", AND + 1)
                } else {
                    (" or ", OR + 1)
                };
                for (i, part) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(sep);
                    }
                    if out.len() > MAX_BYTES {
                        out.push('…');
                        break;
                    }
                    self.cond(part, inner, depth + 1, out);
                }
            }
        }
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
                PatternArg::Literal(l) => out.push_str(&literal_text(l)),
                PatternArg::Var(v) => {
                    let _ = write!(out, "v{v}");
                }
                PatternArg::Param(i) => out.push_str(&self.param_text(*i)),
            }
        }
        out.push(')');
    }

    /// An agent parameter with no value, by name: `param line` (or `<param 3?>`).
    fn param_text(&self, i: u32) -> String {
        match self
            .ir
            .agents
            .get(self.agent as usize)
            .and_then(|a| a.params.get(i as usize))
        {
            Some((name, _)) => format!("param {}", esc(name)),
            None => format!("<param {i}?>"),
        }
    }

    fn term(&self, t: &CondTerm, min: u8, depth: usize, out: &mut String) {
        if depth > MAX_NESTING {
            out.push('…');
            return;
        }
        let prec = match t {
            CondTerm::Literal(l) => literal_prec(l),
            CondTerm::Var(_) | CondTerm::Param(_) => ATOM,
            CondTerm::Arith(op, ..) => arith_symbol(*op).1,
            CondTerm::Neg(_) => NEG,
            CondTerm::Chain(_, rest) => chain_prec(rest),
        };
        let paren = prec < min;
        if paren {
            out.push('(');
        }
        match t {
            CondTerm::Literal(l) => out.push_str(&literal_text(l)),
            CondTerm::Var(v) => {
                let _ = write!(out, "v{v}");
            }
            CondTerm::Param(i) => out.push_str(&self.param_text(*i)),
            CondTerm::Arith(op, a, b) => {
                let (sym, p) = arith_symbol(*op);
                self.term(a, p, depth + 1, out);
                let _ = write!(out, " {sym} ");
                self.term(b, p + 1, depth + 1, out);
            }
            CondTerm::Neg(a) => {
                out.push('-');
                self.term(a, ATOM, depth + 1, out);
            }
            CondTerm::Chain(a, rest) => {
                chain_text(&**a, rest, min, out, |x, min, out| {
                    self.term(x, min, depth + 1, out)
                });
            }
        }
        if paren {
            out.push(')');
        }
    }
}

// ------------------------------------------------------------------ networks

fn network_listing(out: &mut Out, ir: &Ir, index: usize, net: &Network, this: bool) {
    let mark = if this { "this certificate" } else { "" };
    out.commented(
        0,
        &format!("network {index}: {}", network_title(ir, net)),
        mark,
    );
    out.line(
        1,
        &format!(
            "agent      {} (agent {})",
            agent_name(ir, net.agent.0),
            net.agent.0
        ),
    );
    out.line(1, &format!("binding    {}", esc(&net.binding)));
    out.line(
        1,
        &format!(
            "root       {}({})  (plan {})",
            plan_name(net, net.root),
            literals_text(&net.root_args),
            net.root.0
        ),
    );
    out.line(1, &format!("instances  {}", net.instances.len()));
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
        out.commented(2, &format!("{i} {}", esc(&inst.name)), &comment);
    }
    // Which instances each call node starts.
    let mut starts: HashMap<u32, Vec<u32>> = HashMap::new();
    for (i, inst) in net.instances.iter().enumerate() {
        if let Some(c) = inst.call {
            starts.entry(c.0).or_default().push(i as u32);
        }
    }
    let mut reached = vec![false; net.nodes.len()];
    for (p, code) in net.plans.iter().enumerate() {
        if out.full() {
            return;
        }
        plan_listing(out, ir, net, p, code, &starts, &mut reached);
    }
    if out.full() {
        return;
    }
    let unreached: Vec<usize> = (0..reached.len()).filter(|&i| !reached[i]).collect();
    if unreached.is_empty() {
        out.line(
            1,
            &format!("arena      {} nodes, each printed above", net.nodes.len()),
        );
    } else {
        out.line(
            1,
            &format!(
                "arena      {} nodes; {} not reached from any plan's body or handlers: {}",
                net.nodes.len(),
                unreached.len(),
                short_list(unreached.iter().map(|i| format!("n{i}")), ", ")
            ),
        );
    }
}

/// The slot names of a plan held by more than one slot.
fn ambiguous_slots(code: &PlanCode) -> HashSet<&str> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for n in &code.slot_names {
        *seen.entry(n.as_str()).or_default() += 1;
    }
    seen.into_iter()
        .filter(|&(_, k)| k > 1)
        .map(|(n, _)| n)
        .collect()
}

/// An expression of plan `plan`'s code as the listing writes it (slots by their names).
pub fn expr_in_plan(ir: &Ir, net: &Network, plan: usize, e: &Expr) -> String {
    let Some(code) = net.plans.get(plan) else {
        return "?".into();
    };
    let starts = HashMap::new();
    let mut reached = Vec::new();
    let p = PlanPrinter {
        ir,
        net,
        code,
        ambiguous: ambiguous_slots(code),
        starts: &starts,
        visited: HashSet::new(),
        reached: &mut reached,
    };
    p.expr_text(e)
}

fn plan_listing(
    out: &mut Out,
    ir: &Ir,
    net: &Network,
    index: usize,
    code: &PlanCode,
    starts: &HashMap<u32, Vec<u32>>,
    reached: &mut [bool],
) {
    let mut p = PlanPrinter {
        ir,
        net,
        code,
        ambiguous: ambiguous_slots(code),
        starts,
        visited: HashSet::new(),
        reached,
    };
    out.commented(
        1,
        &format!("plan {} (file {})", esc(&code.name), esc(&code.file)),
        &format!("plan {index}"),
    );
    let params = if code.params.is_empty() {
        String::from("none")
    } else {
        short_list(
            code.params
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{}: {}", p.slot(Slot(i as u32)), type_text(t))),
            ", ",
        )
    };
    out.line(2, &format!("params     {params}"));
    let channels = if code.channels.is_empty() {
        String::from("none")
    } else {
        short_list(
            code.channels
                .iter()
                .map(|(s, t)| format!("{}: chan {} (slot {})", p.slot(*s), type_text(t), s.0)),
            ", ",
        )
    };
    out.line(2, &format!("channels   {channels}"));
    let names = short_list(
        code.slot_names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i} {}", esc(n))),
        ", ",
    );
    let mismatch = if code.slot_names.len() == code.slots as usize {
        String::new()
    } else {
        format!(
            "  <{} names for {} slots?>",
            code.slot_names.len(),
            code.slots
        )
    };
    let names = if code.slot_names.is_empty() {
        String::new()
    } else {
        format!(": {names}")
    };
    out.line(2, &format!("slots      {}{names}{mismatch}", code.slots));
    let labels = if code.labels.is_empty() {
        String::from("none")
    } else {
        short_list(
            code.labels
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{i} {}", esc(n))),
            ", ",
        )
    };
    out.line(2, &format!("labels     {labels}"));
    out.line(2, "body");
    p.node(out, code.body, 3, 0);
    for (name, handler) in [
        ("on stop", code.on_stop),
        ("on resume", code.on_resume),
        ("on abort", code.on_abort),
    ] {
        if let Some(h) = handler {
            out.line(2, name);
            p.node(out, h, 3, 0);
        }
    }
}

/// Prints one plan's code.
struct PlanPrinter<'a, 'r> {
    ir: &'a Ir,
    net: &'a Network,
    code: &'a PlanCode,
    /// Slot names held by more than one slot: printed with their slot (`n#3`).
    ambiguous: HashSet<&'a str>,
    starts: &'a HashMap<u32, Vec<u32>>,
    /// The nodes printed in this plan.
    visited: HashSet<u32>,
    /// The nodes printed in any plan of the network.
    reached: &'r mut [bool],
}

impl PlanPrinter<'_, '_> {
    fn slot(&self, s: Slot) -> String {
        if s.0 >= self.code.slots {
            return format!("<slot {}?>", s.0);
        }
        match self.code.slot_names.get(s.0 as usize) {
            Some(n) if n.is_empty() => format!("slot{}", s.0),
            Some(n) if self.ambiguous.contains(n.as_str()) => format!("{}#{}", esc(n), s.0),
            Some(n) => esc(n),
            None => format!("slot{}", s.0),
        }
    }

    fn expr_text(&self, e: &Expr) -> String {
        let mut s = String::new();
        self.expr(e, 0, 0, &mut s);
        s
    }

    fn expr(&self, e: &Expr, min: u8, depth: usize, out: &mut String) {
        if depth > MAX_NESTING {
            out.push('…');
            return;
        }
        let prec = match e {
            Expr::Literal(l) => literal_prec(l),
            Expr::Slot(_) => ATOM,
            Expr::Neg(_) => NEG,
            Expr::Not(_) => NOT,
            Expr::Arith(op, ..) => arith_symbol(*op).1,
            Expr::Compare(..) => CMP,
            Expr::And(..) => AND,
            Expr::Or(..) => OR,
            Expr::Chain(_, rest) => chain_prec(rest),
        };
        let paren = prec < min;
        if paren {
            out.push('(');
        }
        match e {
            Expr::Literal(l) => out.push_str(&literal_text(l)),
            Expr::Slot(s) => out.push_str(&self.slot(*s)),
            Expr::Neg(a) => {
                out.push('-');
                self.expr(a, ATOM, depth + 1, out);
            }
            Expr::Not(a) => {
                out.push_str("not ");
                self.expr(a, NOT, depth + 1, out);
            }
            Expr::Arith(op, a, b) => {
                let (sym, p) = arith_symbol(*op);
                self.binary(a, sym, b, (p, p + 1), depth, out);
            }
            Expr::Compare(op, a, b) => {
                self.binary(a, compare_symbol(*op), b, (CMP + 1, CMP + 1), depth, out);
            }
            Expr::And(a, b) => self.binary(a, "and", b, (AND, AND + 1), depth, out),
            Expr::Or(a, b) => self.binary(a, "or", b, (OR, OR + 1), depth, out),
            Expr::Chain(a, rest) => {
                chain_text(&**a, rest, min, out, |x, min, out| {
                    self.expr(x, min, depth + 1, out)
                });
            }
        }
        if paren {
            out.push(')');
        }
    }

    fn binary(
        &self,
        a: &Expr,
        sym: &str,
        b: &Expr,
        (left, right): (u8, u8),
        depth: usize,
        out: &mut String,
    ) {
        self.expr(a, left, depth + 1, out);
        let _ = write!(out, " {sym} ");
        self.expr(b, right, depth + 1, out);
    }

    fn atom(&self, holder: u32, a: &AtomExpr) -> String {
        let args = short_list(a.args.iter().map(|e| self.expr_text(e)), ", ");
        format!("{}({args})", belief_name(self.ir, holder, a.belief))
    }

    fn label(&self, l: u32) -> String {
        self.code
            .labels
            .get(l as usize)
            .map_or_else(|| format!("<label {l}?>"), |s| esc(s))
    }

    /// Prints node `id` and what it contains, at `indent` levels, `depth` nodes deep.
    fn node(&mut self, out: &mut Out, id: NodeId, indent: usize, depth: usize) {
        if out.full() {
            return;
        }
        let tag = format!("n{}", id.0);
        let Some(node) = self.net.nodes.get(id.0 as usize) else {
            out.line(indent, &format!("<node {}?>", id.0));
            return;
        };
        if depth >= MAX_DEPTH {
            out.commented(
                indent,
                "…",
                &format!("{tag} and below: deeper than {MAX_DEPTH} levels, not shown"),
            );
            return;
        }
        if !self.visited.insert(id.0) {
            out.commented(
                indent,
                &format!("<{tag} again?>"),
                &format!("{tag} was printed above in this plan"),
            );
            return;
        }
        self.reached[id.0 as usize] = true;
        let holder = self.net.agent.0;
        match node {
            Node::Skip => out.commented(indent, "SKIP", &tag),
            Node::Stop => out.commented(indent, "STOP", &tag),
            Node::Send { chan, value } => out.commented(
                indent,
                &format!("{} -> {}", self.expr_text(value), self.slot(*chan)),
                &tag,
            ),
            Node::Recv { chan, var } => out.commented(
                indent,
                &format!("{} <- {}", self.slot(*var), self.slot(*chan)),
                &tag,
            ),
            Node::Believe(a) => {
                out.commented(indent, &format!("believe {}", self.atom(holder, a)), &tag);
            }
            Node::Forget(a) => {
                out.commented(indent, &format!("forget {}", self.atom(holder, a)), &tag);
            }
            Node::Tell {
                agent,
                atom,
                own,
                index,
            } => {
                let own =
                    own.map_or_else(|| String::from("none"), |b| belief_name(self.ir, holder, b));
                out.commented(
                    indent,
                    &format!(
                        "tell {} {}",
                        agent_name(self.ir, agent.0),
                        self.atom(agent.0, atom)
                    ),
                    &format!("{tag}, tell {index}, own belief {own}"),
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
                out.commented(indent, &format!("{c} {t}"), &tag);
            }
            Node::Call { plan, args, tail } => {
                let args = short_list(
                    args.iter().map(|a| match a {
                        Arg::Value(e) => self.expr_text(e),
                        Arg::Chan(s) => self.slot(*s),
                    }),
                    ", ",
                );
                let comment = if *tail {
                    format!("{tag}, tail call")
                } else {
                    match self.starts.get(&id.0) {
                        Some(insts) => format!(
                            "{tag}, starts instance {}",
                            short_list(insts.iter().map(|i| i.to_string()), ", ")
                        ),
                        None => format!("{tag}, starts no listed instance"),
                    }
                };
                out.commented(
                    indent,
                    &format!("{}({args})", plan_name(self.net, *plan)),
                    &comment,
                );
            }
            Node::Seq(a, b) => {
                let (items, seqs) = self.flatten(id, *a, *b);
                out.commented(
                    indent,
                    ";",
                    &short_list(seqs.iter().map(|s| format!("n{s}")), ", "),
                );
                for item in items {
                    self.node(out, item, indent + 1, depth + 1);
                }
            }
            Node::Par(cs) | Node::Choice(cs) => {
                let op = if matches!(node, Node::Par(_)) {
                    "||"
                } else {
                    "[]"
                };
                out.commented(indent, op, &tag);
                for c in cs {
                    if out.full() {
                        return;
                    }
                    self.node(out, *c, indent + 1, depth + 1);
                }
            }
            Node::Interrupt(a, b) => {
                out.commented(indent, "/\\", &tag);
                self.node(out, *a, indent + 1, depth + 1);
                self.node(out, *b, indent + 1, depth + 1);
            }
            Node::Label(l, b) => {
                out.commented(indent, &format!("{} :", self.label(l.0)), &tag);
                self.node(out, *b, indent + 1, depth + 1);
            }
            Node::Match {
                scrutinee,
                arms,
                other,
            } => {
                out.commented(
                    indent,
                    &format!("match {}", self.expr_text(scrutinee)),
                    &tag,
                );
                for (lit, n) in arms {
                    if out.full() {
                        return;
                    }
                    out.line(indent + 1, &format!("when {} =>", literal_text(lit)));
                    self.node(out, *n, indent + 2, depth + 1);
                }
                if let Some(n) = other {
                    out.line(indent + 1, "other =>");
                    self.node(out, *n, indent + 2, depth + 1);
                }
            }
        }
    }

    /// The parts of the sequence `first ; …` rooted at Seq node `id` (already visited), with
    /// nested sequences flattened, and the Seq nodes it consists of.
    fn flatten(&mut self, id: NodeId, a: NodeId, b: NodeId) -> (Vec<NodeId>, Vec<u32>) {
        let mut items = Vec::new();
        let mut seqs = vec![id.0];
        let mut stack = vec![b, a];
        while let Some(n) = stack.pop() {
            match self.net.nodes.get(n.0 as usize) {
                Some(Node::Seq(x, y)) if !self.visited.contains(&n.0) => {
                    self.visited.insert(n.0);
                    self.reached[n.0 as usize] = true;
                    seqs.push(n.0);
                    stack.push(*y);
                    stack.push(*x);
                }
                _ => items.push(n),
            }
        }
        (items, seqs)
    }
}

// ------------------------------------------------------------------ states and witnesses

fn states(out: &mut Out, body: &Body) {
    let t = &body.states;
    out.line(
        0,
        &format!(
            "states: {} states, {} terms, {} atoms",
            t.states.len(),
            t.terms.len(),
            t.atoms.len()
        ),
    );
    let Some((term, atoms)) = t.states.first() else {
        out.line(1, "(no state 0?)");
        return;
    };
    let net = body.ir.networks.get(body.network as usize);
    let cx = TermCx {
        ir: &body.ir,
        net,
        table: t,
    };
    let mut s = String::new();
    cx.term(*term, 0, &mut s);
    out.line(1, &format!("state 0 term t{term}: {s}"));
    let beliefs = short_list(atoms.iter().map(|&a| cx.atom(a)), ", ");
    out.line(1, &format!("state 0 beliefs {{{beliefs}}}"));
}

/// Prints terms and atoms of a state table briefly.
struct TermCx<'a> {
    ir: &'a Ir,
    net: Option<&'a Network>,
    table: &'a StateTable,
}

impl TermCx<'_> {
    fn inst(&self, inst: u32) -> String {
        self.net
            .map_or_else(|| format!("instance {inst}"), |n| instance_name(n, inst))
    }

    fn plan(&self, plan: PlanId) -> String {
        self.net
            .map_or_else(|| format!("plan {}", plan.0), |n| plan_name(n, plan))
    }

    fn node(&self, node: NodeId) -> String {
        self.net
            .map_or_else(|| format!("n{}", node.0), |n| node_ref(n, node))
    }

    fn value(&self, v: &Value) -> String {
        match v {
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Str(s) => format!("\"{}\"", esc(s)),
            Value::Chan {
                instance,
                plan,
                index,
            } => {
                let base = self
                    .net
                    .and_then(|n| n.plans.get(plan.0 as usize))
                    .and_then(|code| {
                        let (slot, _) = code.channels.get(*index as usize)?;
                        code.slot_names.get(slot.0 as usize).map(|s| esc(s))
                    })
                    .unwrap_or_else(|| format!("<chan {index} of plan {}?>", plan.0));
                if *instance == 0 {
                    base
                } else {
                    format!("{}.{base}", self.inst(*instance))
                }
            }
        }
    }

    fn values(&self, vs: &[Value]) -> String {
        short_list(vs.iter().map(|v| self.value(v)), ", ")
    }

    fn atom(&self, a: u32) -> String {
        let Some(rec) = self.table.atoms.get(a as usize) else {
            return format!("<atom {a}?>");
        };
        let holder = self.net.map_or(0, |n| n.agent.0);
        let owner = rec.told.unwrap_or(holder);
        let core = format!(
            "{}({})",
            belief_name(self.ir, owner, BeliefId(rec.belief)),
            self.values(&rec.args)
        );
        match rec.told {
            None => core,
            Some(j) => format!("B({}) {core}", agent_name(self.ir, j)),
        }
    }

    /// Term `i`, three levels deep.
    fn term(&self, i: u32, depth: usize, out: &mut String) {
        let Some(t) = self.table.terms.get(i as usize) else {
            let _ = write!(out, "<term {i}?>");
            return;
        };
        if depth >= 3 || out.len() > 4000 {
            let _ = write!(out, "t{i}");
            return;
        }
        let list = |cs: &[u32], out: &mut String| {
            for (k, c) in cs.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                if k >= 4 {
                    let _ = write!(out, "… ({} more)", cs.len() - k);
                    break;
                }
                self.term(*c, depth + 1, out);
            }
        };
        match t {
            TermNode::Done => out.push_str("done"),
            TermNode::Faulted(f) => {
                let why = match f {
                    FaultRec::NoArm(n) => format!("no arm matched at {}", self.node(*n)),
                    FaultRec::Overflow(n) => format!("overflow at {}", self.node(*n)),
                    FaultRec::DivisionByZero(n) => format!("division by zero at {}", self.node(*n)),
                    FaultRec::Diverged => String::from("diverged"),
                    FaultRec::Malformed(n) => format!("malformed at {}", self.node(*n)),
                };
                let _ = write!(out, "faulted({why})");
            }
            TermNode::Thread {
                inst,
                plan,
                stack,
                env,
                ready,
            } => {
                let top = stack
                    .last()
                    .map_or_else(|| String::from("nothing"), |n| self.node(*n));
                let _ = write!(
                    out,
                    "thread of {} running {} at {top} ({} on stack, {}) env [{}]",
                    self.inst(*inst),
                    self.plan(*plan),
                    stack.len(),
                    if *ready { "ready" } else { "running" },
                    self.values(env)
                );
            }
            TermNode::Then(a, b) => {
                out.push_str("then(");
                list(&[*a, *b], out);
                out.push(')');
            }
            TermNode::Par(cs) => {
                out.push_str("par(");
                list(cs, out);
                out.push(')');
            }
            TermNode::Choice(cs) => {
                out.push_str("choice(");
                list(cs, out);
                out.push(')');
            }
            TermNode::Interrupt(a, b) => {
                out.push_str("interrupt(");
                list(&[*a, *b], out);
                out.push(')');
            }
            TermNode::Label {
                inst,
                label,
                body,
                start,
            } => {
                let _ = write!(
                    out,
                    "label {} of {} (start t{start}) {{ ",
                    label.0,
                    self.inst(*inst)
                );
                self.term(*body, depth + 1, out);
                out.push_str(" }");
            }
            TermNode::Inst {
                inst,
                plan,
                params,
                body,
            } => {
                let _ = write!(
                    out,
                    "instance {} = {}({}) {{ ",
                    self.inst(*inst),
                    self.plan(*plan),
                    self.values(params)
                );
                self.term(*body, depth + 1, out);
                out.push_str(" }");
            }
            TermNode::Suspended(b) => {
                out.push_str("suspended(");
                self.term(*b, depth + 1, out);
                out.push(')');
            }
            TermNode::Handling { body, then } => {
                out.push_str("handling(");
                self.term(*body, depth + 1, out);
                let _ = match then {
                    AfterRec::End => write!(out, ") then end"),
                    AfterRec::Suspend(t) => write!(out, ") then suspend t{t}"),
                    AfterRec::Continue(t) => write!(out, ") then continue t{t}"),
                    AfterRec::Restart(t) => write!(out, ") then restart t{t}"),
                };
            }
        }
    }
}

/// The number of ranks, the largest finite one and how many claim nothing.
fn ranks_text(ranks: &[u64], states: usize) -> String {
    let max = ranks.iter().filter(|&&r| r != u64::MAX).max();
    let none = ranks.iter().filter(|&&r| r == u64::MAX).count();
    let mut s = format!(
        "{} ranks, max finite rank {}",
        ranks.len(),
        max.map_or_else(|| String::from("none"), |m| m.to_string())
    );
    if none > 0 {
        let _ = write!(s, ", {none} with no claim");
    }
    if ranks.len() != states {
        let _ = write!(s, "  <for a table of {states} states?>");
    }
    s
}

fn feature_text(cx: &TermCx, f: &Feature) -> String {
    match f {
        Feature::Slot { inst, plan, slot } => {
            let name = cx
                .net
                .and_then(|n| n.plans.get(plan.0 as usize))
                .and_then(|c| c.slot_names.get(*slot as usize))
                .map_or_else(|| format!("<slot {slot}?>"), |s| esc(s));
            format!("slot({}, {}.{name})", cx.inst(*inst), cx.plan(*plan))
        }
        Feature::At { inst, node } => format!("at({}, {})", cx.inst(*inst), cx.node(*node)),
    }
}

fn witnesses(out: &mut Out, body: &Body) {
    out.line(0, &format!("witnesses ({})", body.witnesses.len()));
    let cx = TermCx {
        ir: &body.ir,
        net: body.ir.networks.get(body.network as usize),
        table: &body.states,
    };
    let n = body.states.states.len();
    for w in &body.witnesses {
        if out.full() {
            return;
        }
        let ob = esc(w.obligation());
        let text = match w {
            Witness::Invariant { .. } => format!("invariant      {ob}"),
            Witness::Ranking { ranks, .. } => {
                format!("ranking        {ob}: {}", ranks_text(ranks, n))
            }
            Witness::RankingExpr { expr, .. } => {
                let mut s = format!("ranking-expr   {ob}: rank = {}", expr.constant);
                for (k, (f, c)) in expr.terms.iter().enumerate() {
                    if k >= 64 {
                        let _ = write!(s, " + … ({} more terms)", expr.terms.len() - k);
                        break;
                    }
                    let sign = if *c < 0 { '-' } else { '+' };
                    let _ = write!(s, " {sign} {}*{}", c.unsigned_abs(), feature_text(&cx, f));
                }
                s
            }
            Witness::Release { states, ranks, .. } => format!(
                "release        {ob}: its table has {} states, {} terms, {} atoms; {}",
                states.states.len(),
                states.terms.len(),
                states.atoms.len(),
                ranks_text(ranks, states.states.len())
            ),
            Witness::TellFeasible { .. } => format!("tell-feasible  {ob}"),
            Witness::Frame { .. } => format!("frame          {ob}"),
        };
        out.line(1, &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hilbert_certificates::cert::{AtomRec, RankExpr, SourceDigest};
    use hilbert_certificates::ir::{
        AgentId, Belief, Desire, Instance, Intend, LabelId, Reward, Values,
    };

    fn made(arg: PatternArg) -> Cond {
        Cond::Believes(Pattern {
            belief: BeliefId(0),
            args: vec![arg],
        })
    }

    fn agent(name: &str) -> Agent {
        Agent {
            name: name.into(),
            params: vec![("line".into(), Type::Str)],
            args: vec![None],
            beliefs: vec![Belief {
                name: "made".into(),
                fields: vec![("count".into(), Type::Int)],
            }],
            desires: vec![Desire {
                name: "Produced".into(),
                priority: 2,
                reachable_by: vec![0],
                achieved: vec![Cond::And(vec![
                    made(PatternArg::Var(0)),
                    Cond::Compare(
                        CompareOp::Ge,
                        CondTerm::Var(0),
                        CondTerm::Literal(Literal::Int(3)),
                    ),
                ])],
                impossible: vec![(
                    made(PatternArg::Literal(Literal::Int(-1))),
                    "it went \"negative\"".into(),
                )],
                params_used: vec![],
            }],
            commit: hilbert_certificates::ir::CommitmentStrategy::SingleMinded,
            attentions: vec!["Producing".into(), "Emergency".into()],
            plans: vec![Binding {
                name: "Work".into(),
                network: Some(0),
                host: None,
            }],
            intends: vec![Intend {
                plan: 0,
                desire: 0,
                cond: Cond::Not(Box::new(made(PatternArg::Literal(Literal::Int(3))))),
            }],
            attends: vec![(Cond::Or(vec![Cond::Attending(0), Cond::False]), 1)],
            rewards: vec![Reward {
                plan: 0,
                positive: false,
                cond: Cond::True,
            }],
            values: Some(Values {
                options: vec![(
                    0,
                    ValueProgram {
                        ops: vec![
                            ValueOp::Const(1f64.to_bits()),
                            ValueOp::Const(0.5f64.to_bits()),
                            ValueOp::Feature {
                                belief: BeliefId(0),
                                field: 0,
                            },
                            ValueOp::Mul,
                            ValueOp::Sub,
                        ],
                    },
                )],
                policy: PolicyIr::Softmax(0.5f64.to_bits()),
            }),
        }
    }

    fn plan(name: &str, body: u32) -> PlanCode {
        PlanCode {
            name: name.into(),
            file: "Line".into(),
            params: vec![],
            channels: vec![(Slot(0), Type::Int)],
            slots: 2,
            slot_names: vec!["parts".into(), "n".into()],
            labels: vec![],
            body: NodeId(body),
            on_stop: None,
            on_resume: None,
            on_abort: None,
        }
    }

    fn network(plans: Vec<PlanCode>, nodes: Vec<Node>) -> Network {
        Network {
            agent: AgentId(0),
            binding: "Work".into(),
            root: PlanId(0),
            root_args: vec![],
            unset_params: vec![],
            plans,
            instances: vec![Instance {
                parent: None,
                call: None,
                name: "Build".into(),
            }],
            nodes,
        }
    }

    fn body_of(ir: Ir, network: u32) -> Body {
        Body {
            tool: "hilbert test".into(),
            sources: vec![SourceDigest {
                path: "examples/x/Line.hk".into(),
                sha256: cert::sha256(b"plan"),
            }],
            ir_sha256: cert::sha256(&cert::ir_bytes(&ir)),
            ir,
            network,
            states: StateTable::default(),
            witnesses: vec![],
        }
    }

    /// A line whose text (after its indentation) is `text`, with `comment` in its comment
    /// column (or no comment when `comment` is empty).
    fn has_line(listing: &str, text: &str, comment: &str) -> bool {
        listing.lines().any(|l| {
            let l = l.trim_start();
            match l.split_once("  -- ") {
                Some((t, c)) => t.trim_end() == text && c == comment,
                None => comment.is_empty() && l == text,
            }
        })
    }

    #[track_caller]
    fn assert_line(listing: &str, text: &str, comment: &str) {
        assert!(
            has_line(listing, text, comment),
            "no line `{text}` with comment `{comment}` in:\n{listing}"
        );
    }

    fn small_body() -> Body {
        let nodes = vec![
            Node::Send {
                chan: Slot(0),
                value: Box::new(Expr::Literal(Literal::Int(1))),
            },
            Node::Recv {
                chan: Slot(0),
                var: Slot(1),
            },
            Node::Believe(AtomExpr {
                belief: BeliefId(0),
                args: vec![Expr::Arith(
                    ArithOp::Mul,
                    Box::new(Expr::Arith(
                        ArithOp::Add,
                        Box::new(Expr::Slot(Slot(1))),
                        Box::new(Expr::Literal(Literal::Int(1))),
                    )),
                    Box::new(Expr::Literal(Literal::Int(-2))),
                )],
            }),
            Node::Seq(NodeId(1), NodeId(2)),
            Node::Seq(NodeId(0), NodeId(3)),
        ];
        let ir = Ir {
            agents: vec![agent("Operator")],
            networks: vec![network(vec![plan("Build", 4)], nodes)],
        };
        let mut body = body_of(ir, 0);
        body.states = StateTable {
            terms: vec![TermNode::Done],
            atoms: vec![AtomRec {
                told: None,
                belief: 0,
                args: vec![Value::Int(0)],
            }],
            states: vec![(0, vec![0])],
        };
        body.witnesses = vec![
            Witness::Invariant {
                obligation: "Build_no_deadlock".into(),
            },
            Witness::Ranking {
                obligation: "Work_live_Produced".into(),
                ranks: vec![3],
            },
            Witness::RankingExpr {
                obligation: "Work_live_Produced".into(),
                expr: RankExpr {
                    constant: 3,
                    terms: vec![
                        (
                            Feature::Slot {
                                inst: 0,
                                plan: PlanId(0),
                                slot: 1,
                            },
                            -1,
                        ),
                        (
                            Feature::At {
                                inst: 0,
                                node: NodeId(1),
                            },
                            2,
                        ),
                    ],
                },
            },
            Witness::Release {
                obligation: "Work_released_Produced".into(),
                states: StateTable::default(),
                ranks: vec![],
            },
        ];
        body
    }

    #[test]
    fn listing_shows_the_header_sources_agent_and_plan_code() {
        let body = small_body();
        let l = listing("out/Operator.Work.cert", &body);
        assert!(l.starts_with("certificate out/Operator.Work.cert\n"), "{l}");
        assert_line(&l, "tool        hilbert test", "");
        assert_line(
            &l,
            &format!("ir sha256   {}", cert::hex(&body.ir_sha256)),
            "matches the IR below",
        );
        assert_line(&l, "network     0: Operator.Work", "");
        assert_line(
            &l,
            &format!(
                "examples/x/Line.hk  sha256 {}",
                cert::hex(&cert::sha256(b"plan"))
            ),
            "",
        );
        // The agent, in .ha syntax.
        assert_line(&l, "agent Operator(line: String)", "agent 0");
        assert_line(&l, "belief made(count: Int)", "b0");
        assert_line(
            &l,
            "desire Produced priority 2 reachable by [Work]",
            "d0, params used: none",
        );
        assert_line(
            &l,
            "achieved Produced when B(self) made(v0) and v0 >= 3",
            "",
        );
        assert_line(
            &l,
            "impossible Produced when B(self) made(-1) because \"it went \\\"negative\\\"\"",
            "",
        );
        assert_line(&l, "commit single_minded", "");
        assert_line(&l, "attention Producing initially", "attention 0");
        assert_line(&l, "attention Emergency", "attention 1");
        assert_line(&l, "plan Work => Line.Build", "binding 0, network 0");
        assert_line(&l, "intend Work for Produced when not B(self) made(3)", "");
        assert_line(&l, "when attending Producing or false attend Emergency", "");
        assert_line(&l, "reward Work negative when true", "");
        assert_line(&l, "option Work := 1.0 - 0.5 * made.count", "");
        assert_line(&l, "policy softmax(temperature = 0.5)", "");
        // The network and its plan code, with node ids.
        assert_line(&l, "network 0: Operator.Work", "this certificate");
        assert_line(&l, "root       Build()  (plan 0)", "");
        assert_line(&l, "0 Build", "the root");
        assert_line(&l, "plan Build (file Line)", "plan 0");
        assert_line(&l, "channels   parts: chan Int (slot 0)", "");
        assert_line(&l, "slots      2: 0 parts, 1 n", "");
        assert_line(&l, ";", "n4, n3");
        assert_line(&l, "1 -> parts", "n0");
        assert_line(&l, "n <- parts", "n1");
        assert_line(&l, "believe made((n + 1) * -2)", "n2");
        assert_line(&l, "arena      5 nodes, each printed above", "");
        // The sequence's parts are one level below it.
        let send = l.lines().find(|x| x.contains("1 -> parts")).unwrap();
        let seq = l.lines().find(|x| x.contains("-- n4, n3")).unwrap();
        let indent = |s: &str| s.len() - s.trim_start().len();
        assert_eq!(indent(send), indent(seq) + 2);
        // States and witnesses.
        assert_line(&l, "states: 1 states, 1 terms, 1 atoms", "");
        assert_line(&l, "state 0 term t0: done", "");
        assert_line(&l, "state 0 beliefs {made(0)}", "");
        assert_line(&l, "witnesses (4)", "");
        assert_line(&l, "invariant      Build_no_deadlock", "");
        assert_line(
            &l,
            "ranking        Work_live_Produced: 1 ranks, max finite rank 3",
            "",
        );
        assert_line(
            &l,
            "ranking-expr   Work_live_Produced: rank = 3 - 1*slot(Build, Build.n) + 2*at(Build, n1)",
            "",
        );
        assert_line(
            &l,
            "release        Work_released_Produced: its table has 0 states, 0 terms, 0 atoms; 0 ranks, max finite rank none",
            "",
        );
        assert!(!l.contains("truncated"));
    }

    #[test]
    fn every_kind_of_node_prints_in_source_syntax() {
        let atom = |b: u32, v: i64| AtomExpr {
            belief: BeliefId(b),
            args: vec![Expr::Literal(Literal::Int(v))],
        };
        let nodes = vec![
            Node::Tell {
                agent: AgentId(1),
                atom: Box::new(atom(0, 7)),
                own: Some(BeliefId(0)),
                index: 1,
            },
            Node::Command {
                command: Command::Stop,
                target: Target::SelfInstance,
            },
            Node::Interrupt(NodeId(0), NodeId(1)),
            Node::Forget(atom(0, 2)),
            Node::Stop,
            Node::Seq(NodeId(3), NodeId(4)),
            Node::Choice(vec![NodeId(2), NodeId(5)]),
            Node::Command {
                command: Command::Resume,
                target: Target::Label(LabelId(0)),
            },
            Node::Par(vec![NodeId(6), NodeId(7)]),
            Node::Send {
                chan: Slot(0),
                value: Box::new(Expr::Or(
                    Box::new(Expr::Not(Box::new(Expr::Compare(
                        CompareOp::Ne,
                        Box::new(Expr::Slot(Slot(1))),
                        Box::new(Expr::Neg(Box::new(Expr::Literal(Literal::Int(-1))))),
                    )))),
                    Box::new(Expr::And(
                        Box::new(Expr::Literal(Literal::Bool(true))),
                        Box::new(Expr::Literal(Literal::Str("a\"b".into()))),
                    )),
                )),
            },
        ];
        let mut p = plan("All", 8);
        p.labels = vec!["l".into()];
        p.on_stop = Some(NodeId(9));
        let mut client = agent("Client");
        client.beliefs[0].name = "delivered".into();
        let ir = Ir {
            agents: vec![agent("Operator"), client],
            networks: vec![network(vec![p], nodes)],
        };
        let l = listing("all", &body_of(ir, 0));
        assert_line(&l, "||", "n8");
        assert_line(&l, "[]", "n6");
        assert_line(&l, "/\\", "n2");
        assert_line(
            &l,
            "tell Client delivered(7)",
            "n0, tell 1, own belief made",
        );
        assert_line(&l, "stop self", "n1");
        assert_line(&l, "forget made(2)", "n3");
        assert_line(&l, "STOP", "n4");
        assert_line(&l, "resume l", "n7");
        assert_line(&l, "on stop", "");
        assert_line(&l, "not n != -(-1) or true and \"a\\\"b\" -> parts", "n9");
        assert_line(&l, "labels     0 l", "");
    }

    #[test]
    fn chains_print_as_the_trees_they_stand_for() {
        let n = |v: i64| Expr::Literal(Literal::Int(v));
        let chain =
            |first: i64, rest: &[(ArithOp, Expr)]| Expr::Chain(Box::new(n(first)), rest.to_vec());
        let (add, sub, mul) = (ArithOp::Add, ArithOp::Sub, ArithOp::Mul);
        let ir = Ir {
            agents: vec![agent("Operator")],
            networks: vec![network(vec![plan("P", 1)], vec![Node::Skip])],
        };
        let text = |e: &Expr| expr_in_plan(&ir, &ir.networks[0], 0, e);
        for (e, want) in [
            (chain(1, &[(add, n(2)), (sub, n(3))]), "1 + 2 - 3"),
            (chain(1, &[(mul, n(2)), (add, n(3))]), "1 * 2 + 3"),
            // A chain the parser never makes (it splits levels) still reads back as its tree.
            (chain(1, &[(add, n(2)), (mul, n(3))]), "(1 + 2) * 3"),
            (
                chain(1, &[(add, n(2)), (mul, n(3)), (add, n(4)), (mul, n(5))]),
                "((1 + 2) * 3 + 4) * 5",
            ),
            (chain(1, &[(sub, chain(2, &[(sub, n(3))]))]), "1 - (2 - 3)"),
            (
                Expr::Arith(mul, Box::new(chain(1, &[(add, n(2))])), Box::new(n(3))),
                "(1 + 2) * 3",
            ),
            (chain(7, &[]), "7"),
        ] {
            assert_eq!(text(&e), want);
        }
    }

    #[test]
    fn a_wrong_ir_digest_is_pointed_out() {
        let mut body = small_body();
        body.ir_sha256 = [0; 32];
        let l = listing("c", &body);
        assert!(l.contains("does NOT match the IR below"), "{l}");
    }

    #[test]
    fn control_characters_in_names_are_escaped() {
        let mut body = small_body();
        body.ir.agents[0].name = "Op\u{1b}[2J\nerator".into();
        body.ir.agents[0].beliefs[0].name = "ma\rde".into();
        let l = listing("a\u{7}b", &body);
        assert!(!l.contains('\u{1b}') && !l.contains('\r') && !l.contains('\u{7}'));
        assert_line(&l, "agent Op\\u{1b}[2J\\nerator(line: String)", "agent 0");
        assert_line(&l, "believe ma\\rde((n + 1) * -2)", "n2");
        assert!(l.starts_with("certificate a\\u{7}b\n"));
    }

    /// A hostile arena: self-loops, cycles, indices that point nowhere.
    #[test]
    fn a_hostile_body_lists_without_panicking() {
        let nodes = vec![
            Node::Seq(NodeId(0), NodeId(0)),
            Node::Par(vec![NodeId(1), NodeId(99), NodeId(0)]),
            Node::Label(LabelId(7), NodeId(2)),
            Node::Call {
                plan: PlanId(9),
                args: vec![Arg::Chan(Slot(42)), Arg::Value(Expr::Slot(Slot(1)))],
                tail: false,
            },
            Node::Interrupt(NodeId(4), NodeId(3)),
            Node::Match {
                scrutinee: Box::new(Expr::Slot(Slot(77))),
                arms: vec![(Literal::Int(1), NodeId(5))],
                other: Some(NodeId(1000)),
            },
            Node::Seq(NodeId(7), NodeId(6)),
            Node::Seq(NodeId(6), NodeId(7)),
            Node::Tell {
                agent: AgentId(9),
                atom: Box::new(AtomExpr {
                    belief: BeliefId(42),
                    args: vec![],
                }),
                own: Some(BeliefId(50)),
                index: 1,
            },
            Node::Command {
                command: Command::Restart,
                target: Target::Label(LabelId(3)),
            },
        ];
        let mut p0 = plan("P", 0);
        p0.on_stop = Some(NodeId(1));
        p0.on_resume = Some(NodeId(2));
        p0.on_abort = Some(NodeId(4));
        p0.slot_names = vec!["x".into(), "x".into(), "y".into()];
        p0.slots = 2;
        p0.channels = vec![(Slot(5), Type::Chan(Box::new(Type::Bool)))];
        let mut p1 = plan("Q", 5);
        p1.on_abort = Some(NodeId(8));
        let mut p2 = plan("R", 6);
        p2.on_abort = Some(NodeId(9));
        let p3 = plan("S", 12345);
        let mut net = network(vec![p0, p1, p2, p3], nodes);
        net.agent = AgentId(3);
        net.root = PlanId(77);
        net.instances.push(Instance {
            parent: Some(9),
            call: Some(NodeId(500)),
            name: "Build/\u{0}".into(),
        });
        let mut a = agent("A");
        a.desires[0].reachable_by = vec![5];
        a.desires[0].achieved = vec![
            Cond::Told(
                AgentId(9),
                Pattern {
                    belief: BeliefId(40),
                    args: vec![PatternArg::Any],
                },
            ),
            Cond::Attending(8),
            Cond::And(vec![]),
        ];
        a.intends[0].plan = 9;
        a.intends[0].desire = 9;
        a.attends = vec![(Cond::True, 4)];
        a.plans.push(Binding {
            name: "Both".into(),
            network: Some(44),
            host: Some("h".into()),
        });
        a.values = Some(Values {
            options: vec![(
                7,
                ValueProgram {
                    ops: vec![
                        ValueOp::Add,
                        ValueOp::Feature {
                            belief: BeliefId(9),
                            field: 9,
                        },
                        ValueOp::Learned(7),
                        ValueOp::Neg,
                    ],
                },
            )],
            policy: PolicyIr::Ucb(f64::NAN.to_bits()),
        });
        let ir = Ir {
            agents: vec![a],
            networks: vec![net],
        };
        let mut body = body_of(ir, 7);
        body.states = StateTable {
            terms: vec![
                TermNode::Then(0, 0),
                TermNode::Par(vec![0, 1, 2, 99, 1, 1]),
                TermNode::Thread {
                    inst: 8,
                    plan: PlanId(8),
                    stack: vec![NodeId(999)],
                    env: vec![Value::Chan {
                        instance: 4,
                        plan: PlanId(4),
                        index: 4,
                    }],
                    ready: true,
                },
            ],
            atoms: vec![],
            states: vec![(1, vec![5, 0])],
        };
        body.witnesses = vec![
            Witness::Ranking {
                obligation: "x".into(),
                ranks: vec![u64::MAX, 1],
            },
            Witness::RankingExpr {
                obligation: "y".into(),
                expr: RankExpr {
                    constant: i64::MIN,
                    terms: vec![(
                        Feature::Slot {
                            inst: 9,
                            plan: PlanId(9),
                            slot: 9,
                        },
                        i64::MIN,
                    )],
                },
            },
        ];
        let l = listing("hostile", &body);
        for expected in [
            "network     7: <no such network?>",
            "<node 99?>",
            "<n0 again?>",
            "<plan 9?>(<slot 42?>, x#1)",
            "<plan 77?>",
            "<belief 42?>",
            "<agent 9?>",
            "<agent 3?>",
            "<label 7?> :",
            "restart <label 3?>",
            "match <slot 77?>",
            "<node 1000?>",
            "<node 12345?>",
            "<instance 9?>, started by <node 500?>",
            "Build/\\0",
            "<binding 5?>",
            "<binding 9?>",
            "<desire 9?>",
            "<attention 8?>",
            "<attention 4?>",
            "network 44, and also host.h?",
            "and()",
            "<malformed program",
            "ucb(c = NaN)",
            "<term 99?>",
            "<atom 5?>",
            "2 ranks, max finite rank 1, 1 with no claim  <for a table of 1 states?>",
            "<slot 5?>: chan chan Bool (slot 5)",
            "<3 names for 2 slots?>",
        ] {
            assert!(l.contains(expected), "no `{expected}` in:\n{l}");
        }
        assert!(l.len() < 64 * 1024, "{l}");
    }

    #[test]
    fn deep_trees_stop_at_the_depth_bound() {
        // A chain of labels far deeper than the bound, and a cycle back to its top.
        let n = 5000;
        let mut nodes: Vec<Node> = (0..n)
            .map(|i| Node::Label(LabelId(0), NodeId(i + 1)))
            .collect();
        nodes.push(Node::Label(LabelId(0), NodeId(0)));
        let mut p = plan("Deep", 0);
        p.labels = vec!["l".into()];
        let ir = Ir {
            agents: vec![agent("A")],
            networks: vec![network(vec![p], nodes)],
        };
        let l = listing("deep", &body_of(ir, 0));
        assert_eq!(
            l.lines()
                .filter(|x| x.trim_start().starts_with("l :"))
                .count(),
            MAX_DEPTH
        );
        assert!(l.contains(&format!(
            "n{MAX_DEPTH} and below: deeper than {MAX_DEPTH} levels"
        )));
        assert!(l.contains(&format!(
            "{} not reached from any plan",
            n + 1 - MAX_DEPTH as u32
        )));
        // Deeply nested expressions and conditions stop too.
        let mut e = Expr::Slot(Slot(0));
        let mut c = Cond::True;
        for _ in 0..1000 {
            e = Expr::Neg(Box::new(e));
            c = Cond::Not(Box::new(c));
        }
        let mut a = agent("A");
        a.desires[0].achieved = vec![c];
        let nodes = vec![Node::Send {
            chan: Slot(0),
            value: Box::new(e),
        }];
        let ir = Ir {
            agents: vec![a],
            networks: vec![network(vec![plan("P", 0)], nodes)],
        };
        let l = listing("deep", &body_of(ir, 0));
        assert!(
            l.contains("-(-(-(") && l.contains("-…)") && l.contains(")) -> parts"),
            "{l}"
        );
        assert!(l.contains("when not not not") && l.contains("not …"));
    }

    #[test]
    fn long_sequences_are_flat_and_every_node_is_printed() {
        // As lowering builds them: the parts first, then the Seq nodes right to left.
        let n = 20_000u32;
        let mut nodes: Vec<Node> = (0..n).map(|_| Node::Skip).collect();
        let mut acc = NodeId(n - 1);
        for i in (0..n - 1).rev() {
            nodes.push(Node::Seq(NodeId(i), acc));
            acc = NodeId(nodes.len() as u32 - 1);
        }
        let ir = Ir {
            agents: vec![agent("A")],
            networks: vec![network(vec![plan("Long", acc.0)], nodes)],
        };
        let l = listing("long", &body_of(ir, 0));
        assert_eq!(l.lines().filter(|x| x.contains("SKIP")).count(), n as usize);
        assert!(l.contains(&format!(
            "arena      {} nodes, each printed above",
            2 * n - 1
        )));
    }

    #[test]
    fn a_huge_listing_is_truncated() {
        let n = 200_000u32;
        let mut nodes: Vec<Node> = (0..n).map(|_| Node::Stop).collect();
        nodes.push(Node::Par((0..n).map(NodeId).collect()));
        // Many plans sharing the one huge tree.
        let plans = (0..1000).map(|i| plan(&format!("P{i}"), n)).collect();
        let ir = Ir {
            agents: vec![agent("A")],
            networks: vec![network(plans, nodes)],
        };
        let l = listing("huge", &body_of(ir, 0));
        assert!(l.ends_with("\n… (listing truncated)\n"));
        assert!(l.len() <= MAX_BYTES + 64, "{}", l.len());
    }

    #[test]
    fn the_production_line_lists_its_desires_and_plans() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/production-line");
        let loaded = crate::project::load(&[root.to_string()]).unwrap();
        let checked = crate::check_project(&loaded);
        let ir = checked.ir.unwrap();
        let work = ir
            .networks
            .iter()
            .position(|n| n.binding == "Work")
            .unwrap();
        let body = Body {
            tool: "hilbert 0.1.0".into(),
            sources: vec![],
            ir_sha256: cert::sha256(&cert::ir_bytes(&ir)),
            ir,
            network: work as u32,
            states: StateTable::default(),
            witnesses: vec![],
        };
        let l = listing("target/hilbert/Operator.Work.cert", &body);
        assert_line(&l, &format!("network     {work}: Operator.Work"), "");
        assert_line(
            &l,
            &format!("network {work}: Operator.Work"),
            "this certificate",
        );
        assert_line(&l, "agent Operator(line: String)", "agent 0");
        assert_line(
            &l,
            "desire Produced reachable by [Work]",
            "d0, params used: none",
        );
        assert_line(
            &l,
            "desire Safe reachable by [Stop]",
            "d1, params used: none",
        );
        assert_line(&l, "achieved Produced when B(self) made(3)", "");
        assert_line(&l, "achieved Safe when B(self) safe(1)", "");
        assert_line(
            &l,
            "impossible Produced when B(self) alarm(\"raised\") because \"the line is in danger, so production stops\"",
            "",
        );
        assert_line(
            &l,
            "intend Work for Produced when B(self) made(v0) and v0 < 3",
            "",
        );
        assert_line(
            &l,
            "intend Stop for Safe when B(self) alarm(\"raised\")",
            "",
        );
        assert_line(&l, "when B(self) alarm(\"raised\") attend Emergency", "");
        assert_line(&l, "reward Stop positive when B(self) safe(1)", "");
        assert_line(&l, "attention Producing initially", "attention 0");
        assert!(l.contains("plan Work => Line.Produce "), "{l}");
        assert!(l.contains("plan Stop => Line.Shutdown "), "{l}");
        for plan in ["Produce", "Feed", "Build", "Shutdown"] {
            assert!(
                l.contains(&format!("plan {plan} (file Line)")),
                "no {plan} in:\n{l}"
            );
        }
        for code in [
            "1 -> parts",
            "n <- parts",
            "forget made(made)",
            "believe made(made + n)",
            "Build(parts, made + n)",
            "match made",
            "when 3 =>",
            "other =>",
            "feed :",
            "Feed(parts)",
            "abort feed",
            "on abort",
            "believe halted(made)",
            "believe halted(0)",
            "believe safe(1)",
        ] {
            assert!(
                l.lines().any(|x| x.trim_start().starts_with(code)),
                "no `{code}` in:\n{l}"
            );
        }
        assert!(l.contains("tail call"));
        assert!(!l.contains("?>"), "an index points nowhere in:\n{l}");
        assert!(!l.contains("not reached"), "{l}");
    }
}
