//! A certificate as an auditor reads it: a plain-text listing of its header and sources, the IR
//! the kernel trusted written as Hilbert source (`source.rs`: the agents as a `.ha` file, their
//! values as a `.hb` file, each network's plans as `.hk` files, in the grammar of
//! `docs/language.md` with ASCII spellings), and a summary of its states and witnesses. Every
//! line that is not source is a `--` comment: the header, the states and the witnesses are
//! sections of comments (`-- === states ===`), and each source file begins with
//! `-- === file NAME ===`.
//!
//! The kernel proves claims about the IR inside a certificate, not about the sources; a person
//! checks that the IR means what the sources say (`docs/certificates.md`, "What the kernel
//! trusts"). The listing is for that comparison, in the language itself: plan code is one
//! process per line, each carrying the node id (`-- n12`) that refusals and ranking features
//! name. And it is the IR, not a paraphrase of it: `roundtrip.rs` lowers the listing's source
//! again and requires the certificate's IR byte for byte (`hilbert verify --dump` says so).
//!
//! **Invariant:** a certificate is hostile input. The listing never panics: an index that points
//! nowhere prints as `<node 99?>` (or `<belief 3?>`, `<plan 2?>`, …), which is not source;
//! node trees stop at [`MAX_DEPTH`] levels and print each node at most once per plan, so a
//! cyclic arena terminates; expressions and conditions stop at a nesting bound; names are
//! escaped (`escape_debug`) and strings keep no character that would rewrite a terminal; and the
//! whole listing stops at [`MAX_BYTES`] with a final `… (listing truncated)` line.

use hilbert_certificates::cert::{self, Body, Feature, Witness};
use hilbert_certificates::ir::{
    Agent, ArithOp, BeliefId, CompareOp, Expr, Ir, Literal, Network, NodeId, PlanId, Type,
};
use std::fmt::Write as _;

pub mod roundtrip;
mod source;

pub use source::{FILE_MARK, MARK_END, SECTION_MARK};

/// The header line that names the certificate's file.
pub const HEADER_PATH: &str = "certificate ";
/// The header line that names the certificate's network: `network     0: Operator.Work`.
pub const HEADER_NETWORK: &str = "network     ";
/// A header line giving an agent parameter's value as `--param` takes it:
/// `-- param Counter.target=3`.
pub const HEADER_PARAM: &str = "param ";

/// The most bytes a listing holds before it stops with `… (listing truncated)`.
pub const MAX_BYTES: usize = 4 << 20;
/// How deeply a process tree is printed; deeper nodes print as `…`. Sources nest at most 200
/// levels (`syntax::parser::MAX_DEPTH`), so every honest tree is printed whole.
pub const MAX_DEPTH: usize = 256;
/// How deeply an expression, a condition or a type is printed; deeper parts print as `…`.
const MAX_NESTING: usize = 300;
/// The column the node-id comments start at.
const COMMENT_COLUMN: usize = 52;
/// The most characters of one name or string printed.
const MAX_NAME: usize = 1000;

/// A certificate as an auditor reads it: its header and sources, the IR the kernel trusted
/// written as Hilbert source (one file after each `-- === file NAME ===` line, the annotations
/// `--` comments), and a summary of its states and witnesses, every line of which but the
/// source's is a comment. [`roundtrip::relower`] lowers the source again.
pub fn listing(path: &str, body: &hilbert_certificates::cert::Body) -> String {
    let mut out = Out::default();
    out.raw_line(&format!("{SECTION_MARK}certificate{MARK_END}"));
    out.comment = true;
    header(&mut out, path, body);
    sources(&mut out, body);
    out.comment = false;
    source::ir_source(&mut out, &body.ir, body.network);
    out.blank();
    out.raw_line(&format!("{SECTION_MARK}states{MARK_END}"));
    out.comment = true;
    states(&mut out, body);
    out.comment = false;
    out.blank();
    out.raw_line(&format!("{SECTION_MARK}witnesses{MARK_END}"));
    out.comment = true;
    witnesses(&mut out, body);
    out.finish()
}

// ------------------------------------------------------------------ output

/// The listing being written, bounded by [`MAX_BYTES`].
#[derive(Default)]
struct Out {
    text: String,
    truncated: bool,
    /// Whether every line is written as a comment (`-- ` first).
    comment: bool,
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
        let mut l = String::from(if self.comment { "-- " } else { "" });
        l.push_str(&"  ".repeat(indent));
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

    /// A line as it is, neither indented nor commented.
    fn raw_line(&mut self, text: &str) {
        self.push(text);
        self.push("\n");
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

fn arith_symbol(op: ArithOp) -> (&'static str, u8) {
    match op {
        ArithOp::Add => ("+", 5),
        ArithOp::Sub => ("-", 5),
        ArithOp::Mul => ("*", 6),
        ArithOp::Div => ("/", 6),
        ArithOp::Rem => ("%", 6),
    }
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

// ------------------------------------------------------------------ header and sources

fn header(out: &mut Out, path: &str, body: &Body) {
    out.line(0, &format!("{HEADER_PATH}{}", esc(path)));
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
    out.line(1, &format!("{HEADER_NETWORK}{}: {about}", body.network));
    // The parameter values the IR was lowered with, as `--param` takes them.
    for a in &body.ir.agents {
        for ((name, _), value) in a.params.iter().zip(&a.args) {
            if let Some(v) = value {
                out.line(
                    0,
                    &format!(
                        "{HEADER_PARAM}{}.{}={}",
                        esc(&a.name),
                        esc(name),
                        source::param_value(v)
                    ),
                );
            }
        }
    }
    out.line(
        1,
        "legend      the files below are the IR as Hilbert source (lowered with the `param` values above, if any);",
    );
    out.line(
        1,
        "            `-- nK` is node K of the network's arena; condition variables are v0, v1, … by index",
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

// ------------------------------------------------------------------ the IR as source

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
    source::values_block(&mut out, 0, a);
    out.text
}

/// An expression of plan `plan`'s code as the listing writes it (slots by their names).
pub fn expr_in_plan(_ir: &Ir, net: &Network, plan: usize, e: &Expr) -> String {
    match net.plans.get(plan) {
        Some(code) => source::expr_text(code, e),
        None => "?".into(),
    }
}

// ------------------------------------------------------------------ states and witnesses

fn states(out: &mut Out, body: &Body) {
    out.line(
        0,
        &format!(
            "scene: {} states, {} steps declared (the kernel explores them again)",
            body.scene.states, body.scene.transitions
        ),
    );
}

/// Names instances, plans and nodes of a network for the witnesses.
struct TermCx<'a> {
    net: Option<&'a Network>,
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
}

/// The number of ranks, the largest finite one and how many claim nothing.
fn ranks_text(ranks: &[u64], states: u64) -> String {
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
    if ranks.len() as u64 != states {
        let _ = write!(s, "  <for {states} states?>");
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
        net: body.ir.networks.get(body.network as usize),
    };
    let n = body.scene.states;
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
            Witness::Release { counts, ranks, .. } => format!(
                "release        {ob}: {} states, {} steps; {}",
                counts.states,
                counts.transitions,
                ranks_text(ranks, counts.states)
            ),
            Witness::Stoppable {
                stop,
                stop_ranks,
                after,
                after_ranks,
                ..
            } => format!(
                "stoppable      {ob}: its stop exploration has {} states, {}; its resume and abort exploration {} states, {}",
                stop.states,
                ranks_text(stop_ranks, stop.states),
                after.states,
                ranks_text(after_ranks, after.states)
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
    use hilbert_certificates::cert::{RankExpr, SourceDigest};
    use hilbert_certificates::ir::{
        AgentId, Arg, AtomExpr, Belief, Binding, Command, Cond, CondTerm, Desire, Instance, Intend,
        LabelId, Node, Pattern, PatternArg, PlanCode, PolicyIr, Reward, Slot, Target, ValueOp,
        ValueProgram, Values,
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
                fair: false,
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
            asserts: Vec::new(),
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
            scene: Default::default(),
            witnesses: vec![],
        }
    }

    /// A line whose text (after its indentation) is `text`, with `comment` in its comment
    /// column (or no comment when `comment` is empty).
    fn has_line(listing: &str, text: &str, comment: &str) -> bool {
        listing.lines().any(|l| {
            // A comment section's line is read as what it comments.
            let l = l.strip_prefix("-- ").unwrap_or(l).trim_start();
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
        body.scene = cert::Counts {
            states: 1,
            transitions: 0,
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
                counts: Default::default(),
                ranks: vec![],
            },
        ];
        body
    }

    #[test]
    fn listing_shows_the_header_sources_agent_and_plan_code() {
        let body = small_body();
        let l = listing("out/Operator.Work.cert", &body);
        assert!(
            l.starts_with("-- === certificate ===\n-- certificate out/Operator.Work.cert\n"),
            "{l}"
        );
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
        assert_line(
            &l,
            "agent Operator(line: String)",
            "agent 0; line has no value",
        );
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
        assert_line(&l, "plan Work => Line.Build", "binding 0: network 0");
        assert_line(&l, "intend Work for Produced when not B(self) made(3)", "");
        assert_line(&l, "when attending Producing or false attend Emergency", "");
        assert_line(&l, "reward Work negative when true", "");
        assert_line(&l, "option Work := 1.0 - 0.5 * made.count", "");
        assert_line(&l, "policy softmax(temperature = 0.5)", "");
        // The network and its plan code, with node ids.
        assert_line(&l, "network 0: Operator.Work (this certificate)", "");
        assert_line(&l, "root       Build()  (plan 0)", "");
        assert_line(&l, "0 Build", "the root");
        assert_line(
            &l,
            "plan 0: Line.Build; slots 2 (0 parts, 1 n); labels none",
            "",
        );
        assert_line(&l, "plan Build() : Operator", "");
        assert_line(&l, "parts : chan Int", "slot 0");
        // The sequence is written flat, each `;` ending its part's line with the Seq node.
        assert_line(&l, "1 -> parts ;", "n0  ; n4");
        assert_line(&l, "n <- parts ;", "n1  ; n3");
        assert_line(&l, "believe made((n + 1) * -2)", "n2");
        assert_line(&l, "arena      5 nodes, each written above", "");
        // The body's parts are one level below `body :=`.
        let send = l.lines().find(|x| x.contains("1 -> parts")).unwrap();
        let body = l.lines().find(|x| x.contains("body :=")).unwrap();
        let indent = |s: &str| s.len() - s.trim_start().len();
        assert_eq!(indent(send), indent(body) + 2);
        // States and witnesses.
        assert_line(
            &l,
            "scene: 1 states, 0 steps declared (the kernel explores them again)",
            "",
        );
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
            "release        Work_released_Produced: 0 states, 0 steps; 0 ranks, max finite rank none",
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
        // An operator's first line carries its node; a choice inside `||` needs no parentheses,
        // an interrupt inside `[]` neither.
        assert_line(&l, "||", "n8 ||");
        assert_line(&l, "[]", "n6 []");
        assert_line(&l, "/\\", "n2 /\\");
        assert!(!l.contains("\n      (\n"), "{l}");
        assert_line(
            &l,
            "tell Client delivered(7)",
            "n0, tell 1, own belief made",
        );
        assert_line(&l, "stop self", "n1");
        assert_line(&l, "forget made(2) ;", "n3  ; n5");
        assert_line(&l, "STOP", "n4");
        assert_line(&l, "resume l", "n7");
        assert_line(&l, "on stop :=", "");
        // A sent value that begins with `not` is parenthesised: `not` cannot begin a process.
        assert_line(&l, "(not n != -(-1) or true and \"a\\\"b\") -> parts", "n9");
        assert!(l.contains("; labels 0 l\n"), "{l}");
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
        assert_line(
            &l,
            "agent Op\\u{1b}[2J\\nerator(line: String)",
            "agent 0; line has no value",
        );
        assert_line(&l, "believe ma\\rde((n + 1) * -2)", "n2");
        assert!(l.starts_with("-- === certificate ===\n-- certificate a\\u{7}b\n"));
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
        body.scene = cert::Counts {
            states: u64::MAX,
            transitions: 3,
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
            "<plan 9?>(<slot 42?>, x)",
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
            "network 44, and also host code?",
            "and()",
            "<malformed program",
            "ucb(c = NaN)",
            "2 ranks, max finite rank 1, 1 with no claim  <for 18446744073709551615 states?>",
            "<slot 5?> : chan chan Bool                        -- slot 5",
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
            "arena      {} nodes, each written above",
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
            scene: Default::default(),
            witnesses: vec![],
        };
        let l = listing("target/hilbert/Operator.Work.cert", &body);
        assert_line(&l, &format!("network     {work}: Operator.Work"), "");
        assert_line(
            &l,
            &format!("network {work}: Operator.Work (this certificate)"),
            "",
        );
        assert_line(
            &l,
            "agent Operator(line: String)",
            "agent 0; line has no value",
        );
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
            assert!(l.contains(&format!(": Line.{plan};")), "no {plan} in:\n{l}");
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
        // The listing is source: it lowers again to the network's slice of the IR.
        assert_eq!(roundtrip::relower(&l), Ok(body.ir.slice(work).unwrap()));
    }
}
