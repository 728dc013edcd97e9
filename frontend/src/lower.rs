//! Lowering: a checked program to the core IR ([`hilbert_certificates::ir`]).
//!
//! Each plan binding that names a `.hk` plan becomes a [`Network`]: the plans reachable from it
//! by calls, their bodies as node trees, and the static instance tree (every non-tail call inside
//! every instance). Lowering refuses what would make a network's state space unbounded:
//! recursion through a `‖` (HK0050) and recursion that is not a tail call (HK0051), which would
//! grow a stack; and it bounds the number of static instances (HK0052).
//!
//! **Invariant:** lowering runs only on a program the checks reported no error for; it then
//! never fails on a name, and every IR index it writes is in range.

use crate::ParsedFile;
use crate::check::{self, BindingTarget, Program, Ty};
use crate::diagnostic::{Code, Diagnostic};
use crate::source::{Dialect, FileId, Span};
use crate::syntax::ast::{
    self, AssertPattern, BinOp, ExprKind, HandlerKind, Module, ProcKind, UnOp,
};
use hilbert_certificates::ir::{self, *};
use petgraph::graph::DiGraph;
use std::collections::HashMap;

/// Recursion through a parallel composition.
pub const RECURSION_UNDER_PARALLEL: Code = Code::new(Dialect::Plans, 50);
/// Recursion that is not a tail call.
pub const NON_TAIL_RECURSION: Code = Code::new(Dialect::Plans, 51);
/// More static plan instances than the bound.
pub const TOO_MANY_INSTANCES: Code = Code::new(Dialect::Plans, 52);

/// Every lowering code.
pub const CODES: &[Code] = &[
    RECURSION_UNDER_PARALLEL,
    NON_TAIL_RECURSION,
    TOO_MANY_INSTANCES,
];

/// At most this many static plan instances in one network.
pub const MAX_INSTANCES: usize = 10_000;

/// Lowers a checked program. Diagnostics are lowering errors (the IR then lacks the networks
/// they concern).
pub fn lower(
    program: &Program,
    parsed: &[ParsedFile],
    given: &crate::AgentArgs,
) -> (Ir, Vec<Diagnostic>) {
    // Each agent's parameter values, in declaration order (`None`: no value given).
    let args = program
        .agents
        .iter()
        .map(|a| {
            let mine = given.get(&a.name);
            a.params
                .iter()
                .map(|p| mine.and_then(|m| m.get(&p.name)).cloned())
                .collect()
        })
        .collect();
    let mut l = Lowerer {
        program,
        plan_asts: HashMap::new(),
        diagnostics: Vec::new(),
        args,
        refused: Default::default(),
    };
    for p in parsed {
        if let Module::Plans(file) = &p.module {
            l.plan_asts.insert(p.file, file);
        }
    }
    let mut ir = Ir::default();
    for (ai, agent) in program.agents.iter().enumerate() {
        ir.agents.push(l.agent(agent));
        for (bi, binding) in agent.bindings.iter().enumerate() {
            let BindingTarget::Plan(root) = binding.target else {
                continue;
            };
            if let Some(net) = l.network(ai, bi, root) {
                ir.agents[ai].plans[bi].network = Some(ir.networks.len() as u32);
                ir.networks.push(net);
            }
        }
    }
    // What the lowering has no meaning for is refused, never given a default meaning. The
    // checker refuses all of it first, so this is a second line that should never be reached.
    let mut refused = l.refused.take();
    refused.sort_by_key(|(s, c)| (s.file, s.start, s.end, c.to_string()));
    refused.dedup();
    for (span, code) in refused {
        l.diagnostics.push(
            Diagnostic::error(code, span, "this expression cannot be lowered here")
                .with_label("no meaning in the core IR")
                .with_note("the checker should have refused it: this is a bug in Hilbert, please report it")
                .with_help("rewrite the expression with the operators the language reference lists for this place"),
        );
    }
    (ir, l.diagnostics)
}

struct Lowerer<'a> {
    program: &'a Program,
    plan_asts: HashMap<FileId, &'a ast::PlanFile>,
    diagnostics: Vec<Diagnostic>,
    /// Per agent, its parameters' values (`None`: none given).
    args: Vec<Vec<Option<Literal>>>,
    /// The parts of conditions and plan expressions the lowering has no meaning for: each
    /// becomes an error, so that nothing is lowered as a default (`0`, `false`, slot 0).
    refused: std::cell::RefCell<Vec<(Span, Code)>>,
}

fn ty(t: &Ty) -> Type {
    match t {
        Ty::Int | Ty::Float | Ty::Error => Type::Int,
        Ty::String => Type::Str,
        Ty::Bool => Type::Bool,
        Ty::Chan(inner) => Type::Chan(Box::new(ty(inner))),
    }
}

fn literal(e: &ast::Expr) -> Option<Literal> {
    Some(match &e.kind {
        ExprKind::Int(n) => Literal::Int(*n),
        ExprKind::Bool(b) => Literal::Bool(*b),
        ExprKind::Str(s) => Literal::Str(s.clone()),
        ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
            ExprKind::Int(n) => Literal::Int(n.checked_neg()?),
            _ => return None,
        },
        _ => return None,
    })
}

fn compare_op(op: BinOp) -> Option<CompareOp> {
    Some(match op {
        BinOp::Eq => CompareOp::Eq,
        BinOp::Ne => CompareOp::Ne,
        BinOp::Lt => CompareOp::Lt,
        BinOp::Le => CompareOp::Le,
        BinOp::Gt => CompareOp::Gt,
        BinOp::Ge => CompareOp::Ge,
        _ => return None,
    })
}

fn arith_op(op: BinOp) -> Option<ArithOp> {
    Some(match op {
        BinOp::Add => ArithOp::Add,
        BinOp::Sub => ArithOp::Sub,
        BinOp::Mul => ArithOp::Mul,
        BinOp::Div => ArithOp::Div,
        BinOp::Rem => ArithOp::Rem,
        _ => return None,
    })
}

/// A chain's operands lowered by `lower`, left to right, with its operators (the parser puts only
/// `+ - * / %` in a chain).
fn chain<T>(
    first: &ast::Expr,
    rest: &[(BinOp, ast::Expr)],
    mut lower: impl FnMut(&ast::Expr) -> T,
) -> (Box<T>, Vec<(ArithOp, T)>) {
    let first = Box::new(lower(first));
    let rest = rest
        .iter()
        .map(|(op, b)| (arith_op(*op).unwrap_or(ArithOp::Add), lower(b)))
        .collect();
    (first, rest)
}

/// Whether `e` is a condition computing a Bool (`¬ b`, `n < 3`, `B(self) f(1)`, `p ∧ q`): its
/// value is whether it holds, lowered as a [`Cond`] rather than a [`CondTerm`].
fn is_test(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Unary(UnOp::Not, _)
        | ExprKind::Believes { .. }
        | ExprKind::Attending(_)
        | ExprKind::Desires(_)
        | ExprKind::Intends(_) => true,
        ExprKind::Binary(op, ..) => op.is_comparison() || matches!(op, BinOp::And | BinOp::Or),
        _ => false,
    }
}

/// `t = true`.
fn is_true(t: CondTerm) -> Cond {
    Cond::Compare(CompareOp::Eq, t, CondTerm::Literal(Literal::Bool(true)))
}

/// `x ⇔ y` when `same`, else `x ⇔ ¬y`: `(x ∧ y) ∨ (¬x ∧ ¬y)`, or `(x ∧ ¬y) ∨ (¬x ∧ y)`.
fn iff(x: Cond, y: Cond, same: bool) -> Cond {
    let not = |c: &Cond| Cond::Not(Box::new(c.clone()));
    let (y_when_x, y_when_not_x) = if same {
        (y.clone(), not(&y))
    } else {
        (not(&y), y.clone())
    };
    Cond::Or(vec![
        Cond::And(vec![x.clone(), y_when_x]),
        Cond::And(vec![not(&x), y_when_not_x]),
    ])
}

/// A `.hb` value's arithmetic operator on the stack.
fn value_op(op: BinOp) -> ValueOp {
    match op {
        BinOp::Add => ValueOp::Add,
        BinOp::Sub => ValueOp::Sub,
        BinOp::Mul => ValueOp::Mul,
        BinOp::Rem => ValueOp::Rem,
        _ => ValueOp::Div,
    }
}

/// Lowers one `.ha` condition. Variables get indices in order of first appearance; agent
/// parameters are recorded in `params` (their values are not known at build time).
struct CondLowerer<'p> {
    program: &'p Program,
    agent: usize,
    vars: Vec<String>,
    /// The agent's parameters' values.
    args: &'p [Option<Literal>],
    /// The parameters with no value the condition reads.
    params: Vec<String>,
    /// Attention indices after putting the initial attention first.
    attention_order: &'p [usize],
    /// The parts the lowering has no meaning for (the checker refuses them; should one get
    /// through, the lowering refuses it too instead of giving it a default meaning).
    refused: Vec<Span>,
}

impl CondLowerer<'_> {
    fn cond(&mut self, e: &ast::Expr) -> Cond {
        match &e.kind {
            ExprKind::Bool(true) => Cond::True,
            ExprKind::Bool(false) => Cond::False,
            ExprKind::Binary(BinOp::And, a, b) => {
                let mut parts = Vec::new();
                for side in [a, b] {
                    match self.cond(side) {
                        Cond::And(inner) => parts.extend(inner),
                        other => parts.push(other),
                    }
                }
                Cond::And(parts)
            }
            ExprKind::Binary(BinOp::Or, a, b) => {
                let mut parts = Vec::new();
                for side in [a, b] {
                    match self.cond(side) {
                        Cond::Or(inner) => parts.extend(inner),
                        other => parts.push(other),
                    }
                }
                Cond::Or(parts)
            }
            ExprKind::Unary(UnOp::Not, inner) => Cond::Not(Box::new(self.cond(inner))),
            // A Bool name: a condition variable, or a parameter (its value, when given).
            ExprKind::Var(v) => match self.var(&v.name) {
                Name::Value(Literal::Bool(b)) => {
                    if b {
                        Cond::True
                    } else {
                        Cond::False
                    }
                }
                Name::Value(_) => self.refuse(e.span),
                Name::Var(i) => is_true(CondTerm::Var(i)),
                Name::Unset(p) => is_true(CondTerm::Param(p)),
            },
            // Two Bools, one of them computed by a condition (`b = (n < 3)`): whether both
            // hold or both fail (`=`), or exactly one holds (`≠`).
            ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) if is_test(a) || is_test(b) => {
                let (x, y) = (self.cond(a), self.cond(b));
                iff(x, y, *op == BinOp::Eq)
            }
            ExprKind::Binary(op, a, b) if op.is_comparison() => match compare_op(*op) {
                Some(op) => Cond::Compare(op, self.term(a), self.term(b)),
                None => self.refuse(e.span),
            },
            ExprKind::Believes { agent, atom } => {
                let holder = if agent.name == "self" {
                    self.agent
                } else {
                    self.program
                        .agent(&agent.name)
                        .map_or(self.agent, |(id, _)| id.0)
                };
                let belief = self.program.agents[holder]
                    .belief(&atom.pred.name)
                    .unwrap_or(0) as u32;
                // An argument computed from others (`count(n + 1)`) is a fresh variable of the
                // pattern, equal to its value: `count(v) ∧ v = n + 1`. (It was lowered as `_`
                // before, so `B(self) count(1 + 1)` held of any count.)
                let mut computed = Vec::new();
                let args = atom
                    .args
                    .iter()
                    .map(|a| match self.pattern_arg(a) {
                        Some(arg) => arg,
                        None => {
                            let fresh = self.fresh_var();
                            computed.push(if is_test(a) {
                                // A Bool computed by a condition: v is whether it holds.
                                let holds = self.cond(a);
                                iff(is_true(CondTerm::Var(fresh)), holds, true)
                            } else {
                                Cond::Compare(CompareOp::Eq, CondTerm::Var(fresh), self.term(a))
                            });
                            PatternArg::Var(fresh)
                        }
                    })
                    .collect();
                let pattern = Pattern {
                    belief: BeliefId(belief),
                    args,
                };
                // `B(Guard)` inside agent `Guard` is `B(self)`: the agent's own belief (it was
                // lowered as "Guard told Guard", an atom no plan makes; issue 29).
                let test = if agent.name == "self" || holder == self.agent {
                    Cond::Believes(pattern)
                } else {
                    Cond::Told(AgentId(holder as u32), pattern)
                };
                if computed.is_empty() {
                    test
                } else {
                    computed.insert(0, test);
                    Cond::And(computed)
                }
            }
            ExprKind::Attending(a) => {
                let index = self.program.agents[self.agent]
                    .attention(&a.name)
                    .unwrap_or(0);
                let pos = self
                    .attention_order
                    .iter()
                    .position(|&i| i == index)
                    .unwrap_or(0);
                Cond::Attending(pos as u32)
            }
            ExprKind::Desires(d) => match self.program.agents[self.agent].desire(&d.name) {
                Some(i) => Cond::Desires(i as u32),
                None => self.refuse(e.span),
            },
            ExprKind::Intends(p) => match self.program.agents[self.agent].binding(&p.name) {
                Some(i) => Cond::Intends(i as u32),
                None => self.refuse(e.span),
            },
            _ => self.refuse(e.span),
        }
    }

    /// Records a part of a condition the lowering has no meaning for (see `refused`).
    fn refuse(&mut self, span: Span) -> Cond {
        self.refused.push(span);
        Cond::False
    }

    /// A name of a condition: one of its variables, or an agent parameter (its value, when
    /// given).
    fn var(&mut self, name: &str) -> Name {
        if let Some(p) = self.program.agents[self.agent].param(name)
            && !self.vars.iter().any(|v| v == name)
        {
            return match self.args.get(p).cloned().flatten() {
                Some(l) => Name::Value(l),
                None => {
                    self.params.push(name.to_string());
                    Name::Unset(p as u32)
                }
            };
        }
        let index = match self.vars.iter().position(|v| v == name) {
            Some(i) => i,
            None => {
                self.vars.push(name.to_string());
                self.vars.len() - 1
            }
        };
        Name::Var(index as u32)
    }

    /// A pattern's argument, or `None` for one computed from others (`n + 1`), which the
    /// pattern binds to a fresh variable instead.
    fn pattern_arg(&mut self, e: &ast::Expr) -> Option<PatternArg> {
        if let Some(l) = literal(e) {
            return Some(PatternArg::Literal(l));
        }
        Some(match &e.kind {
            ExprKind::Var(v) => match self.var(&v.name) {
                Name::Var(i) => PatternArg::Var(i),
                Name::Value(l) => PatternArg::Literal(l),
                Name::Unset(p) => PatternArg::Param(p),
            },
            ExprKind::Wildcard => PatternArg::Any,
            _ => return None,
        })
    }

    /// A variable no source name can be (names are identifiers), numbered next.
    fn fresh_var(&mut self) -> u32 {
        self.vars.push(format!("#{}", self.vars.len()));
        self.vars.len() as u32 - 1
    }

    fn term(&mut self, e: &ast::Expr) -> CondTerm {
        if let Some(l) = literal(e) {
            return CondTerm::Literal(l);
        }
        match &e.kind {
            ExprKind::Var(v) => match self.var(&v.name) {
                Name::Var(i) => CondTerm::Var(i),
                Name::Value(l) => CondTerm::Literal(l),
                Name::Unset(p) => CondTerm::Param(p),
            },
            ExprKind::Unary(UnOp::Neg, a) => CondTerm::Neg(Box::new(self.term(a))),
            ExprKind::Binary(op, a, b) => match arith_op(*op) {
                Some(op) => CondTerm::Arith(op, Box::new(self.term(a)), Box::new(self.term(b))),
                None => {
                    self.refused.push(e.span);
                    CondTerm::Literal(Literal::Int(0))
                }
            },
            ExprKind::Chain { first, rest } => {
                let (a, rest) = chain(first, rest, |x| self.term(x));
                CondTerm::Chain(a, rest)
            }
            _ => {
                self.refused.push(e.span);
                CondTerm::Literal(Literal::Int(0))
            }
        }
    }
}

/// What a name in a condition is.
enum Name {
    /// A variable of the condition.
    Var(u32),
    /// An agent parameter with its value.
    Value(Literal),
    /// An agent parameter with no value.
    Unset(u32),
}

/// The state of lowering one network.
struct NetBuilder<'a> {
    agent: usize,
    plans: Vec<(check::PlanRef, &'a ast::PlanDecl)>,
    index: HashMap<check::PlanRef, PlanId>,
    nodes: Vec<Node>,
    codes: Vec<Option<PlanCode>>,
    /// Call edges: caller, callee, tail, under a `‖`, and the call's span.
    calls: Vec<(PlanId, PlanId, bool, bool, Span)>,
    /// For each call node: (plan it is in, callee, tail).
    call_nodes: Vec<(NodeId, PlanId, PlanId, bool)>,
}

/// Name resolution while lowering one plan's code.
struct Scope {
    names: Vec<(String, Slot)>,
    slots: u32,
    slot_names: Vec<String>,
    labels: Vec<String>,
    tells: u32,
    /// Expressions the lowering has no meaning for (see [`Lowerer::refused`]).
    refused: std::cell::RefCell<Vec<Span>>,
}

impl Scope {
    fn lookup(&self, name: &str) -> Option<Slot> {
        self.names
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    fn bind(&mut self, name: &str) -> Slot {
        let slot = Slot(self.slots);
        self.slots += 1;
        self.slot_names.push(name.to_string());
        self.names.push((name.to_string(), slot));
        slot
    }
}

impl<'a> Lowerer<'a> {
    fn agent(&self, a: &check::AgentInfo) -> Agent {
        let mut order: Vec<usize> = (0..a.attentions.len()).collect();
        order.sort_by_key(|&i| !a.attentions[i].initially);
        let ai = self.program.agent(&a.name).map_or(0, |(id, _)| id.0);
        let cond = |e: &ast::Expr| {
            let mut c = CondLowerer {
                program: self.program,
                agent: ai,
                vars: Vec::new(),
                args: &self.args[ai],
                params: Vec::new(),
                attention_order: &order,
                refused: Vec::new(),
            };
            let lowered = c.cond(e);
            let mismatch = crate::check::codes::TYPE_MISMATCH;
            (self.refused.borrow_mut()).extend(c.refused.into_iter().map(|s| (s, mismatch)));
            (lowered, c.params)
        };
        let desires = a
            .desires
            .iter()
            .map(|d| {
                let mut params_used = Vec::new();
                let achieved = d
                    .achieved
                    .iter()
                    .map(|e| {
                        let (c, p) = cond(e);
                        params_used.extend(p);
                        c
                    })
                    .collect();
                let impossible = d
                    .impossible
                    .iter()
                    .map(|r| {
                        let (c, p) = cond(&r.cond);
                        params_used.extend(p);
                        (c, r.because.clone())
                    })
                    .collect();
                params_used.dedup();
                Desire {
                    name: d.name.clone(),
                    priority: d.priority,
                    reachable_by: d.reachable_by.iter().map(|&i| i as u32).collect(),
                    achieved,
                    impossible,
                    params_used,
                    fair: d.fair,
                }
            })
            .collect();
        Agent {
            name: a.name.clone(),
            params: a
                .params
                .iter()
                .map(|p| (p.name.clone(), ty(&p.ty)))
                .collect(),
            args: self.args[ai].clone(),
            beliefs: a
                .beliefs
                .iter()
                .map(|b| Belief {
                    name: b.name.clone(),
                    fields: b
                        .fields
                        .iter()
                        .map(|f| (f.name.clone(), ty(&f.ty)))
                        .collect(),
                })
                .collect(),
            desires,
            commit: match a.commit {
                Some(check::CommitmentStrategy::Blind) => CommitmentStrategy::Blind,
                Some(check::CommitmentStrategy::OpenMinded) => CommitmentStrategy::OpenMinded,
                _ => CommitmentStrategy::SingleMinded,
            },
            attentions: order
                .iter()
                .map(|&i| a.attentions[i].name.clone())
                .collect(),
            plans: a
                .bindings
                .iter()
                .map(|b| Binding {
                    name: b.name.clone(),
                    network: None,
                    host: match &b.target {
                        BindingTarget::Host(h) => Some(h.clone()),
                        _ => None,
                    },
                })
                .collect(),
            intends: a
                .intends
                .iter()
                .map(|r| Intend {
                    plan: r.binding as u32,
                    desire: r.desire as u32,
                    cond: cond(&r.cond).0,
                })
                .collect(),
            attends: a
                .attends
                .iter()
                .map(|r| {
                    let pos = order.iter().position(|&i| i == r.attention).unwrap_or(0);
                    (cond(&r.cond).0, pos as u32)
                })
                .collect(),
            values: self.values(ai),
            rewards: a
                .rewards
                .iter()
                .map(|r| Reward {
                    plan: r.binding as u32,
                    positive: r.polarity == ast::Polarity::Positive,
                    cond: cond(&r.cond).0,
                })
                .collect(),
            asserts: a
                .asserts
                .iter()
                .map(|r| {
                    let c = |e: &ast::Expr| cond(e).0;
                    let property = match &r.pattern {
                        AssertPattern::Always(x) => Property::Always(c(x)),
                        AssertPattern::Never(x) => Property::Never(c(x)),
                        AssertPattern::Eventually(x) => Property::Eventually(c(x)),
                        AssertPattern::LeadsTo(x, y) => Property::LeadsTo(c(x), c(y)),
                        AssertPattern::Precedes(x, y) => Property::Precedes(c(x), c(y)),
                    };
                    Assert {
                        name: r.name.clone(),
                        property,
                        fair: r.fair,
                    }
                })
                .collect(),
        }
    }

    /// The agent's `.hb` block as value programs: names (`.hb` values, then `.ha` values) are
    /// inlined; agent parameters are their values (`ValueOp::Param` when none is given).
    fn values(&self, agent: usize) -> Option<Values> {
        let info = self
            .program
            .values
            .iter()
            .find(|v| v.agent.map(|a| a.0) == Some(agent))?;
        let a = &self.program.agents[agent];
        let mut named: Vec<(String, &ast::Expr)> =
            info.values.iter().map(|(n, e)| (n.clone(), e)).collect();
        named.extend(a.values.iter().map(|v| (v.name.clone(), &v.expr)));
        let options = info
            .options
            .iter()
            .map(|(binding, e)| {
                let mut p = ValueProgram::default();
                self.value_expr(agent, e, &named, 0, &mut p.ops);
                (*binding as u32, p)
            })
            .collect();
        let policy = match info.policy {
            check::Policy::Greedy => PolicyIr::Greedy,
            check::Policy::EpsilonGreedy { epsilon } => PolicyIr::EpsilonGreedy(epsilon.to_bits()),
            check::Policy::Softmax { temperature } => PolicyIr::Softmax(temperature.to_bits()),
            check::Policy::Ucb { c } => PolicyIr::Ucb(c.to_bits()),
        };
        Some(Values { options, policy })
    }

    fn value_expr(
        &self,
        agent: usize,
        e: &ast::Expr,
        named: &[(String, &ast::Expr)],
        depth: usize,
        out: &mut Vec<ValueOp>,
    ) {
        let zero = ValueOp::Const(0f64.to_bits());
        match &e.kind {
            ExprKind::Int(n) => out.push(ValueOp::Const((*n as f64).to_bits())),
            ExprKind::Float(x) => out.push(ValueOp::Const(x.to_bits())),
            ExprKind::Unary(UnOp::Neg, a) => {
                self.value_expr(agent, a, named, depth, out);
                out.push(ValueOp::Neg);
            }
            ExprKind::Binary(op, a, b) => {
                self.value_expr(agent, a, named, depth, out);
                self.value_expr(agent, b, named, depth, out);
                out.push(value_op(*op));
            }
            // Postfix, left to right: `a b + c -` for `a + b - c`.
            ExprKind::Chain { first, rest } => {
                self.value_expr(agent, first, named, depth, out);
                for (op, b) in rest {
                    self.value_expr(agent, b, named, depth, out);
                    out.push(value_op(*op));
                }
            }
            ExprKind::Field { base, field } => {
                let a = &self.program.agents[agent];
                match a.belief(&base.name) {
                    Some(b) => {
                        let f = a.beliefs[b]
                            .fields
                            .iter()
                            .position(|x| x.name == field.name)
                            .unwrap_or(0);
                        out.push(ValueOp::Feature {
                            belief: BeliefId(b as u32),
                            field: f as u32,
                        });
                    }
                    None => out.push(zero),
                }
            }
            ExprKind::Call { func, args } if func.name == "learned" => {
                let binding = args.first().and_then(|x| match &x.kind {
                    ExprKind::Var(v) => self.program.agents[agent].binding(&v.name),
                    _ => None,
                });
                match binding {
                    Some(b) => out.push(ValueOp::Learned(b as u32)),
                    None => out.push(zero),
                }
            }
            ExprKind::Var(v) => match named.iter().find(|(n, _)| *n == v.name) {
                // The checks refuse cycles; the depth bound only guards against a bug.
                Some((_, def)) if depth < 64 => self.value_expr(agent, def, named, depth + 1, out),
                // An agent parameter: its value, or, with none given, the parameter itself (a
                // run needs every parameter its values read given: `params_read`).
                _ => {
                    let p = self.program.agents[agent].param(&v.name);
                    match p.and_then(|p| self.args[agent].get(p).cloned().flatten()) {
                        Some(Literal::Int(n)) => out.push(ValueOp::Const((n as f64).to_bits())),
                        Some(Literal::Bool(b)) => {
                            out.push(ValueOp::Const(f64::from(u8::from(b)).to_bits()))
                        }
                        None if p.is_some() => out.push(ValueOp::Param(p.unwrap_or(0) as u32)),
                        // The checker refuses any other name in a value formula.
                        _ => out.push(zero),
                    }
                }
            },
            _ => out.push(zero),
        }
    }

    fn decl(&self, r: check::PlanRef) -> Option<&'a ast::PlanDecl> {
        self.plan_asts.get(&r.file)?.plans.get(r.index)
    }

    /// Finds a plan by name in the file of `r` (calls name plans of their own file).
    fn plan_in_file(&self, file: FileId, name: &str) -> Option<check::PlanRef> {
        let info = self.program.plan_file_of(file)?;
        let index = info
            .plans
            .iter()
            .position(|p| p.name == name && !p.duplicate)?;
        Some(check::PlanRef { file, index })
    }

    /// A binding argument lowered as a plan's expressions are ([`expr`]), over a scope whose
    /// slots are the agent's parameters, and its value: `None` when it reads a parameter with
    /// no value (recorded in `unset`) or has no meaning (which the checker refuses first).
    fn constant(
        &self,
        agent: usize,
        e: &ast::Expr,
        unset: &mut Vec<u32>,
    ) -> Option<Result<Value, hilbert_kernel::eval::EvalError>> {
        let params = &self.program.agents[agent].params;
        let mut scope = Scope {
            names: Vec::new(),
            slots: 0,
            slot_names: Vec::new(),
            labels: Vec::new(),
            tells: 0,
            refused: Default::default(),
        };
        for p in params {
            scope.bind(&p.name);
        }
        let lowered = expr(e, &scope);
        if !scope.refused.take().is_empty() {
            return None;
        }
        let mut read = Vec::new();
        slots_read(&lowered, &mut read);
        let values = &self.args[agent];
        let before = unset.len();
        unset.extend(
            read.into_iter()
                .filter(|&s| values.get(s as usize).is_some_and(Option::is_none)),
        );
        if unset.len() > before {
            return None;
        }
        let env: Vec<Value> = values
            .iter()
            .map(|v| v.as_ref().map_or(Value::Int(0), Value::of))
            .collect();
        Some(hilbert_kernel::eval::eval(&lowered, &env))
    }

    fn network(&mut self, agent: usize, binding: usize, root: check::PlanRef) -> Option<Network> {
        let b = &self.program.agents[agent].bindings[binding];
        // A binding argument is a constant expression over literals and the agent's parameters
        // (the checker refuses anything else): it is computed here, with the kernel's own
        // evaluator, so the network starts with exactly the value a call inside a plan would
        // pass. With a parameter it reads unset, the network records the parameter and is not
        // explored; an argument whose computation faults (overflow, division by zero) is
        // refused, since the agent could never start the plan.
        let mut unset_params = Vec::new();
        let mut root_args = Vec::with_capacity(b.args.len());
        for arg in &b.args {
            let unset_before = unset_params.len();
            let value = self.constant(agent, arg, &mut unset_params);
            root_args.push(match value {
                Some(Ok(Value::Int(n))) => Literal::Int(n),
                Some(Ok(Value::Bool(v))) => Literal::Bool(v),
                Some(Ok(Value::Str(v))) => Literal::Str(v),
                // A placeholder: the network is not explored (its parameters are unset).
                None if unset_params.len() > unset_before => Literal::Int(0),
                fault => {
                    let why = match fault {
                        Some(Err(hilbert_kernel::eval::EvalError::Overflow)) => {
                            "its value is outside the 64-bit range"
                        }
                        Some(Err(hilbert_kernel::eval::EvalError::DivisionByZero)) => {
                            "it divides by zero"
                        }
                        _ => "it is not a constant the compiler can compute",
                    };
                    self.diagnostics.push(
                        Diagnostic::error(
                            crate::check::codes::BAD_BINDING_ARGUMENT,
                            arg.span,
                            format!("this binding argument has no value: {why}"),
                        )
                        .with_label("computed when the agent starts the plan")
                        .with_note("a binding's arguments are computed with the checked 64-bit arithmetic of plans")
                        .with_help("pass a value within the range of Int"),
                    );
                    return None;
                }
            });
        }
        unset_params.sort_unstable();
        unset_params.dedup();
        let mut nb = NetBuilder {
            agent,
            plans: Vec::new(),
            index: HashMap::new(),
            nodes: Vec::new(),
            codes: Vec::new(),
            calls: Vec::new(),
            call_nodes: Vec::new(),
        };
        let root_decl = self.decl(root)?;
        nb.index.insert(root, PlanId(0));
        nb.plans.push((root, root_decl));
        nb.codes.push(None);
        let mut next = 0;
        while next < nb.plans.len() {
            let (r, decl) = nb.plans[next];
            let code = self.plan_code(&mut nb, PlanId(next as u32), r, decl);
            nb.codes[next] = Some(code);
            next += 1;
        }
        if !self.recursion_ok(&nb) {
            return None;
        }
        let instances = self.instances(&nb, root_decl)?;
        Some(Network {
            agent: AgentId(agent as u32),
            binding: b.name.clone(),
            root: PlanId(0),
            root_args,
            unset_params,
            plans: nb
                .codes
                .into_iter()
                .map(|c| c.expect("every plan lowered"))
                .collect(),
            instances,
            nodes: nb.nodes,
        })
    }

    fn plan_code(
        &mut self,
        nb: &mut NetBuilder<'a>,
        id: PlanId,
        r: check::PlanRef,
        decl: &'a ast::PlanDecl,
    ) -> PlanCode {
        let info = self.program.plan(r);
        let mut scope = Scope {
            names: Vec::new(),
            slots: 0,
            slot_names: Vec::new(),
            labels: info.map(|i| i.labels.clone()).unwrap_or_default(),
            tells: 0,
            refused: Default::default(),
        };
        let mut params = Vec::new();
        for p in &decl.params {
            scope.bind(&p.name.name);
            params.push(info.map_or(Type::Int, |i| {
                i.params
                    .iter()
                    .find(|f| f.name == p.name.name)
                    .map_or(Type::Int, |f| ty(&f.ty))
            }));
        }
        let mut channels = Vec::new();
        for c in &decl.channels {
            let slot = scope.bind(&c.name.name);
            let elem = info
                .and_then(|i| i.channels.iter().find(|f| f.name == c.name.name))
                .map_or(Type::Int, |f| match ty(&f.ty) {
                    Type::Chan(inner) => *inner,
                    other => other,
                });
            channels.push((slot, elem));
        }
        // Room for the plan's nodes at once: a long plan's node list would otherwise be copied
        // at every doubling, and the allocator keeps what it frees for a while (issue 17).
        let bound = decl.body.as_ref().map_or(1, node_bound)
            + decl
                .handlers
                .iter()
                .map(|h| node_bound(&h.body))
                .sum::<usize>();
        nb.nodes.reserve(bound);
        let base = scope.names.len();
        let body = match &decl.body {
            Some(p) => self.proc(nb, id, r.file, p, &mut scope, true, false),
            None => push(nb, Node::Stop),
        };
        let mut handler = |kind: HandlerKind, this: &mut Self, scope: &mut Scope| {
            decl.handlers.iter().find(|h| h.kind == kind).map(|h| {
                scope.names.truncate(base);
                this.proc(nb, id, r.file, &h.body, scope, false, false)
            })
        };
        let on_stop = handler(HandlerKind::Stop, self, &mut scope);
        let on_resume = handler(HandlerKind::Resume, self, &mut scope);
        let on_abort = handler(HandlerKind::Abort, self, &mut scope);
        let not_plan = crate::check::codes::NOT_A_PLAN_EXPRESSION;
        (self.refused.get_mut()).extend(scope.refused.take().into_iter().map(|s| (s, not_plan)));
        PlanCode {
            name: decl.name.name.to_string(),
            file: self
                .program
                .plan_files
                .iter()
                .find(|f| f.file == r.file)
                .map(|f| f.stem.clone())
                .unwrap_or_default(),
            params,
            channels,
            slots: scope.slots,
            slot_names: scope.slot_names,
            labels: scope.labels,
            body,
            on_stop,
            on_resume,
            on_abort,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn proc(
        &mut self,
        nb: &mut NetBuilder<'a>,
        plan: PlanId,
        file: FileId,
        p: &ast::Proc,
        scope: &mut Scope,
        tail: bool,
        under_par: bool,
    ) -> NodeId {
        let node = match &p.kind {
            ProcKind::Skip | ProcKind::Error => Node::Skip,
            ProcKind::Stop => Node::Stop,
            ProcKind::Seq(parts) => {
                let mark = scope.names.len();
                let mut ids = Vec::with_capacity(parts.len());
                for (i, part) in parts.iter().enumerate() {
                    let last = i + 1 == parts.len();
                    ids.push(self.proc(nb, plan, file, part, scope, tail && last, under_par));
                }
                scope.names.truncate(mark);
                let mut acc = ids.pop().unwrap_or_else(|| push(nb, Node::Skip));
                while let Some(prev) = ids.pop() {
                    acc = push(nb, Node::Seq(prev, acc));
                }
                return acc;
            }
            ProcKind::Parallel(parts) => {
                let ids = parts
                    .iter()
                    .map(|q| self.scoped(nb, plan, file, q, scope, false, true))
                    .collect();
                Node::Par(ids)
            }
            ProcKind::Choice(parts) => {
                let ids = parts
                    .iter()
                    .map(|q| self.scoped(nb, plan, file, q, scope, tail, under_par))
                    .collect();
                Node::Choice(ids)
            }
            ProcKind::Interrupt(a, b) => {
                let a = self.scoped(nb, plan, file, a, scope, false, under_par);
                let b = self.scoped(nb, plan, file, b, scope, false, under_par);
                Node::Interrupt(a, b)
            }
            ProcKind::Labelled(l, body) => {
                let label = match scope.labels.iter().position(|x| *x == l.name) {
                    Some(i) => i,
                    None => {
                        scope.labels.push(l.name.to_string());
                        scope.labels.len() - 1
                    }
                };
                let body = self.scoped(nb, plan, file, body, scope, false, under_par);
                Node::Label(LabelId(label as u32), body)
            }
            ProcKind::Send { value, chan } => Node::Send {
                chan: scope.lookup(&chan.name).unwrap_or(Slot(0)),
                value: Box::new(expr(value, scope)),
            },
            ProcKind::Recv { var, chan } => {
                let chan = scope.lookup(&chan.name).unwrap_or(Slot(0));
                // The variable is bound in the rest of the enclosing sequence.
                let var = scope.bind(&var.name);
                Node::Recv { chan, var }
            }
            ProcKind::Believe(a) => Node::Believe(self.atom(nb.agent, a, scope)),
            ProcKind::Forget(a) => Node::Forget(self.atom(nb.agent, a, scope)),
            ProcKind::Tell { agent, atom } => {
                let told = self
                    .program
                    .agent(&agent.name)
                    .map_or(nb.agent, |(id, _)| id.0);
                scope.tells += 1;
                let own = self.program.agents[nb.agent]
                    .belief(&atom.pred.name)
                    .map(|b| BeliefId(b as u32));
                Node::Tell {
                    agent: AgentId(told as u32),
                    atom: Box::new(self.atom(told, atom, scope)),
                    own,
                    index: scope.tells,
                }
            }
            ProcKind::Command { command, target } => Node::Command {
                command: match command {
                    ast::Command::Stop => Command::Stop,
                    ast::Command::Resume => Command::Resume,
                    ast::Command::Abort => Command::Abort,
                    ast::Command::Restart => Command::Restart,
                },
                target: if target.name == "self" {
                    Target::SelfInstance
                } else {
                    let i = match scope.labels.iter().position(|x| *x == target.name) {
                        Some(i) => i,
                        None => {
                            scope.labels.push(target.name.to_string());
                            scope.labels.len() - 1
                        }
                    };
                    Target::Label(LabelId(i as u32))
                },
            },
            ProcKind::Call { plan: callee, args } => {
                let Some(r) = self.plan_in_file(file, &callee.name) else {
                    return push(nb, Node::Stop);
                };
                let callee_id = match nb.index.get(&r) {
                    Some(id) => *id,
                    None => {
                        let id = PlanId(nb.plans.len() as u32);
                        let decl = self.decl(r).expect("a checked call names a plan");
                        nb.index.insert(r, id);
                        nb.plans.push((r, decl));
                        nb.codes.push(None);
                        id
                    }
                };
                let callee_info = self.program.plan(r);
                let args = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let is_chan = callee_info
                            .and_then(|c| c.params.get(i))
                            .is_some_and(|f| matches!(f.ty, Ty::Chan(_)));
                        match (&a.kind, is_chan) {
                            (ExprKind::Var(v), true) => {
                                Arg::Chan(scope.lookup(&v.name).unwrap_or(Slot(0)))
                            }
                            _ => Arg::Value(expr(a, scope)),
                        }
                    })
                    .collect();
                nb.calls
                    .push((plan, callee_id, tail, under_par, callee.span));
                let id = push(
                    nb,
                    Node::Call {
                        plan: callee_id,
                        args,
                        tail,
                    },
                );
                nb.call_nodes.push((id, plan, callee_id, tail));
                return id;
            }
            ProcKind::Match {
                scrutinee,
                arms,
                other,
            } => {
                let scrutinee = expr(scrutinee, scope);
                let arms = arms
                    .iter()
                    .filter_map(|arm| {
                        let Some(lit) = literal(&arm.pattern) else {
                            scope.refused.borrow_mut().push(arm.pattern.span);
                            return None;
                        };
                        Some((
                            lit,
                            self.scoped(nb, plan, file, &arm.body, scope, tail, under_par),
                        ))
                    })
                    .collect();
                let other = other
                    .as_ref()
                    .map(|o| self.scoped(nb, plan, file, o, scope, tail, under_par));
                Node::Match {
                    scrutinee: Box::new(scrutinee),
                    arms,
                    other,
                }
            }
        };
        push(nb, node)
    }

    /// Lowers a process whose bindings do not escape it.
    #[allow(clippy::too_many_arguments)]
    fn scoped(
        &mut self,
        nb: &mut NetBuilder<'a>,
        plan: PlanId,
        file: FileId,
        p: &ast::Proc,
        scope: &mut Scope,
        tail: bool,
        under_par: bool,
    ) -> NodeId {
        let mark = scope.names.len();
        let id = self.proc(nb, plan, file, p, scope, tail, under_par);
        scope.names.truncate(mark);
        id
    }

    fn atom(&self, holder: usize, a: &ast::Atom, scope: &Scope) -> AtomExpr {
        AtomExpr {
            belief: BeliefId(
                self.program.agents[holder]
                    .belief(&a.pred.name)
                    .unwrap_or(0) as u32,
            ),
            args: a.args.iter().map(|e| expr(e, scope)).collect(),
        }
    }

    /// Refuses recursion through a non-tail call: it would grow without bound.
    fn recursion_ok(&mut self, nb: &NetBuilder<'a>) -> bool {
        let mut graph = DiGraph::<PlanId, usize>::new();
        let nodes: Vec<_> = (0..nb.plans.len())
            .map(|i| graph.add_node(PlanId(i as u32)))
            .collect();
        for (i, (from, to, ..)) in nb.calls.iter().enumerate() {
            graph.add_edge(nodes[from.0 as usize], nodes[to.0 as usize], i);
        }
        let mut ok = true;
        for scc in petgraph::algo::tarjan_scc(&graph) {
            let members: Vec<PlanId> = scc.iter().map(|n| graph[*n]).collect();
            let bad = nb.calls.iter().find(|(from, to, tail, ..)| {
                !tail && members.contains(from) && members.contains(to)
            });
            let Some(&(from, to, _, under_par, span)) = bad else {
                continue;
            };
            ok = false;
            let name = |p: PlanId| nb.plans[p.0 as usize].1.name.name.clone();
            let cycle = if from == to {
                format!("`{}` calls itself", name(from))
            } else {
                format!(
                    "`{}` calls `{}`, which leads back to `{}`",
                    name(from),
                    name(to),
                    name(from)
                )
            };
            let d = if under_par {
                Diagnostic::error(
                    RECURSION_UNDER_PARALLEL,
                    span,
                    format!("recursion through a parallel composition: {cycle} inside a `‖`"),
                )
                .with_label("this call starts a new process each time round")
                .with_note(
                    "each round adds a process that runs in parallel, so the network has no bound on its size and cannot be explored",
                )
                .with_help("keep the recursion outside the `‖` (a tail call after the parallel part ends), or bound it with a counter parameter and `match`")
            } else {
                Diagnostic::error(
                    NON_TAIL_RECURSION,
                    span,
                    format!("recursion that is not a tail call: {cycle} with work left to do after it"),
                )
                .with_label("a call that must return before the plan goes on")
                .with_note("each round keeps the rest of the caller waiting, so the network grows a stack without bound")
                .with_help("make the recursive call the last thing the plan does (a tail call)")
            };
            self.diagnostics.push(d);
        }
        ok
    }

    /// The static instance tree: the root, and every non-tail call inside every instance.
    fn instances(&mut self, nb: &NetBuilder<'a>, root: &ast::PlanDecl) -> Option<Vec<Instance>> {
        let mut instances = vec![Instance {
            parent: None,
            call: None,
            name: root.name.name.to_string(),
        }];
        // For each instance, the plans it can run (its start and every tail callee).
        let mut starts = vec![PlanId(0)];
        let mut i = 0;
        while i < instances.len() {
            let mut plans = vec![starts[i]];
            let mut k = 0;
            while k < plans.len() {
                for (_, from, to, tail) in &nb.call_nodes {
                    if *from == plans[k] && *tail && !plans.contains(to) {
                        plans.push(*to);
                    }
                }
                k += 1;
            }
            for (node, from, to, tail) in &nb.call_nodes {
                if *tail || !plans.contains(from) {
                    continue;
                }
                if instances.len() >= MAX_INSTANCES {
                    let span = root.name.span;
                    self.diagnostics.push(
                        Diagnostic::error(
                            TOO_MANY_INSTANCES,
                            span,
                            format!(
                                "the network of `{}` has more than {MAX_INSTANCES} plan instances",
                                root.name.name
                            ),
                        )
                        .with_label("started here")
                        .with_note("every call that is not a tail call starts an instance inside its caller; nested calls multiply")
                        .with_help("share work through channels instead of nesting calls, or split the plan"),
                    );
                    return None;
                }
                let name = format!(
                    "{}/{}",
                    instances[i].name, nb.plans[to.0 as usize].1.name.name
                );
                instances.push(Instance {
                    parent: Some(i as u32),
                    call: Some(*node),
                    name,
                });
                starts.push(*to);
            }
            i += 1;
        }
        Some(instances)
    }
}

/// An upper bound on the nodes [`Lowerer::proc`] makes of `p`: one per process, one more per
/// `;` between two parts, one for an empty sequence.
fn node_bound(p: &ast::Proc) -> usize {
    1 + match &p.kind {
        ProcKind::Seq(parts) | ProcKind::Parallel(parts) | ProcKind::Choice(parts) => {
            parts.len() + parts.iter().map(node_bound).sum::<usize>()
        }
        ProcKind::Interrupt(a, b) => node_bound(a) + node_bound(b),
        ProcKind::Labelled(_, body) => node_bound(body),
        ProcKind::Match { arms, other, .. } => {
            arms.iter().map(|a| node_bound(&a.body)).sum::<usize>()
                + other.as_deref().map_or(0, node_bound)
        }
        _ => 0,
    }
}

fn push(nb: &mut NetBuilder, node: Node) -> NodeId {
    nb.nodes.push(node);
    NodeId(nb.nodes.len() as u32 - 1)
}

fn expr(e: &ast::Expr, scope: &Scope) -> ir::Expr {
    if let Some(l) = literal(e) {
        return ir::Expr::Literal(l);
    }
    match &e.kind {
        ExprKind::Var(v) => match scope.lookup(&v.name) {
            Some(slot) => ir::Expr::Slot(slot),
            None => refuse(e, scope),
        },
        ExprKind::Unary(UnOp::Neg, a) => ir::Expr::Neg(Box::new(expr(a, scope))),
        ExprKind::Unary(UnOp::Not, a) => ir::Expr::Not(Box::new(expr(a, scope))),
        ExprKind::Binary(BinOp::And, a, b) => {
            ir::Expr::And(Box::new(expr(a, scope)), Box::new(expr(b, scope)))
        }
        ExprKind::Binary(BinOp::Or, a, b) => {
            ir::Expr::Or(Box::new(expr(a, scope)), Box::new(expr(b, scope)))
        }
        ExprKind::Chain { first, rest } => {
            let (a, rest) = chain(first, rest, |x| expr(x, scope));
            ir::Expr::Chain(a, rest)
        }
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (Box::new(expr(a, scope)), Box::new(expr(b, scope)));
            match (compare_op(*op), arith_op(*op)) {
                (Some(c), _) => ir::Expr::Compare(c, a, b),
                (_, Some(o)) => ir::Expr::Arith(o, a, b),
                _ => refuse(e, scope),
            }
        }
        _ => refuse(e, scope),
    }
}

/// The slots an expression reads, in order (with repeats).
fn slots_read(e: &ir::Expr, out: &mut Vec<u32>) {
    match e {
        ir::Expr::Literal(_) => {}
        ir::Expr::Slot(s) => out.push(s.0),
        ir::Expr::Neg(a) | ir::Expr::Not(a) => slots_read(a, out),
        ir::Expr::Arith(_, a, b)
        | ir::Expr::Compare(_, a, b)
        | ir::Expr::And(a, b)
        | ir::Expr::Or(a, b) => {
            slots_read(a, out);
            slots_read(b, out);
        }
        ir::Expr::Chain(a, rest) => {
            slots_read(a, out);
            rest.iter().for_each(|(_, b)| slots_read(b, out));
        }
    }
}

/// An expression the lowering has no meaning for (the checker refuses it): recorded, so that
/// the lowering refuses it too, instead of lowering it as a default.
fn refuse(e: &ast::Expr, scope: &Scope) -> ir::Expr {
    scope.refused.borrow_mut().push(e.span);
    ir::Expr::Literal(Literal::Int(0))
}
