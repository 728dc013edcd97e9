//! The oracle's own form of a checked program: plans as a code arena of process nodes, and
//! agents with their rules, compiled from the frontend's resolved [`Program`] and syntax trees.
//! Nothing here comes from the lowering or the IR.

use hilbert_frontend::ParsedFile;
use hilbert_frontend::check::{BindingTarget, CommitmentStrategy, Program};
use hilbert_frontend::syntax::ast::{
    self, BinOp, Command, Expr, ExprKind, HandlerKind, Module, Proc, ProcKind, UnOp,
};
use std::collections::HashMap;

/// An interned name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// The names of a model.
#[derive(Clone, Debug, Default)]
pub struct Names {
    map: HashMap<String, Sym>,
    all: Vec<String>,
}

impl Names {
    /// The symbol of `s`, interning it.
    pub fn sym(&mut self, s: &str) -> Sym {
        if let Some(x) = self.map.get(s) {
            return *x;
        }
        let x = Sym(self.all.len() as u32);
        self.all.push(s.to_string());
        self.map.insert(s.to_string(), x);
        x
    }
    /// The symbol of `s`, if interned.
    pub fn get(&self, s: &str) -> Option<Sym> {
        self.map.get(s).copied()
    }
    /// The text of a symbol.
    pub fn text(&self, s: Sym) -> &str {
        &self.all[s.0 as usize]
    }
}

/// An expression (plans, conditions and binding arguments).
#[derive(Clone, Debug, PartialEq)]
pub enum Ex {
    /// An integer literal.
    Int(i64),
    /// A decimal literal.
    Float(f64),
    /// A string literal.
    Str(Sym),
    /// A Boolean literal.
    Bool(bool),
    /// A name.
    Var(Sym),
    /// `_`.
    Wild,
    /// `-e`.
    Neg(Box<Ex>),
    /// `¬e`.
    Not(Box<Ex>),
    /// `a op b`, and a chain as its left-leaning tree (`a + b - c` is `(a + b) - c`).
    Bin(BinOp, Box<Ex>, Box<Ex>),
    /// `B(j) f(args)`: `None` for the agent itself.
    Believes(Option<Sym>, Sym, Vec<Ex>),
    /// `attending A`.
    Attending(Sym),
    /// `desires D` (in an assertion), by the desire's name.
    Desires(String),
    /// `intends P` (in an assertion), by the binding's name.
    Intends(String),
    /// Something the oracle does not model (a function call, a feature).
    Unsupported,
}

impl Ex {
    /// Converts a syntax tree.
    pub fn of(e: &Expr, names: &mut Names, me: &str) -> Ex {
        match &e.kind {
            ExprKind::Int(v) => Ex::Int(*v),
            ExprKind::Float(v) => Ex::Float(*v),
            ExprKind::Str(s) => Ex::Str(names.sym(s)),
            ExprKind::Bool(b) => Ex::Bool(*b),
            ExprKind::Var(v) => Ex::Var(names.sym(v.name.as_str())),
            ExprKind::Wildcard => Ex::Wild,
            ExprKind::Unary(UnOp::Neg, a) => Ex::Neg(Box::new(Ex::of(a, names, me))),
            ExprKind::Unary(UnOp::Not, a) => Ex::Not(Box::new(Ex::of(a, names, me))),
            ExprKind::Binary(op, a, b) => Ex::Bin(
                *op,
                Box::new(Ex::of(a, names, me)),
                Box::new(Ex::of(b, names, me)),
            ),
            ExprKind::Chain { first, rest } => {
                let mut acc = Ex::of(first, names, me);
                for (op, b) in rest {
                    acc = Ex::Bin(*op, Box::new(acc), Box::new(Ex::of(b, names, me)));
                }
                acc
            }
            ExprKind::Believes { agent, atom } => {
                let who = agent.name.as_str();
                // `B(self)` and `B(Me)` inside agent `Me` are the agent's own belief.
                let told = if who == "self" || who == me {
                    None
                } else {
                    Some(names.sym(who))
                };
                let args = atom.args.iter().map(|a| Ex::of(a, names, me)).collect();
                Ex::Believes(told, names.sym(atom.pred.name.as_str()), args)
            }
            ExprKind::Attending(a) => Ex::Attending(names.sym(a.name.as_str())),
            ExprKind::Desires(d) => Ex::Desires(d.name.to_string()),
            ExprKind::Intends(p) => Ex::Intends(p.name.to_string()),
            _ => Ex::Unsupported,
        }
    }

    /// Whether the expression reads the name `n` (outside belief patterns' binding positions
    /// it is a read either way).
    pub fn reads(&self, n: Sym) -> bool {
        match self {
            Ex::Var(v) => *v == n,
            Ex::Neg(a) | Ex::Not(a) => a.reads(n),
            Ex::Bin(_, a, b) => a.reads(n) || b.reads(n),
            Ex::Believes(_, _, args) => args.iter().any(|a| a.reads(n)),
            _ => false,
        }
    }
}

/// A plan command's target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// `self`.
    SelfInst,
    /// A label.
    Label(Sym),
}

/// Index of a code node.
pub type CodeId = u32;
/// Index of a plan in [`Model::plans`].
pub type PlanId = u32;

/// A process node.
#[derive(Clone, Debug)]
pub enum Code {
    /// `SKIP`.
    Skip,
    /// `STOP`.
    Stop,
    /// `P ; Q ; …`.
    Seq(Vec<CodeId>),
    /// `P ‖ Q ‖ …`.
    Par(Vec<CodeId>),
    /// `P □ Q □ …`.
    Choice(Vec<CodeId>),
    /// `P △ Q`.
    Interrupt(CodeId, CodeId),
    /// `l : P`.
    Label(Sym, CodeId),
    /// `e → c`.
    Send(Ex, Sym),
    /// `x ← c`.
    Recv(Sym, Sym),
    /// `believe f(e, …)`.
    Believe(Sym, Vec<Ex>),
    /// `forget f(e, …)`.
    Forget(Sym, Vec<Ex>),
    /// `tell j f(e, …)`: the agent told, the atom, and (plan, number) of the tell.
    Tell(Sym, Sym, Vec<Ex>, PlanId, u32),
    /// A command.
    Cmd(Command, Target),
    /// A call: the callee, the arguments, whether it is a tail call.
    Call(PlanId, Vec<Ex>, bool),
    /// `match e { when lit ↦ P … other ↦ Q }`.
    Match(Ex, Vec<(Ex, CodeId)>, Option<CodeId>),
    /// A node the oracle does not model.
    Unsupported,
}

/// A plan.
#[derive(Clone, Debug)]
pub struct PlanDef {
    /// Its name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<Sym>,
    /// Its channels.
    pub chans: Vec<Sym>,
    /// Its body.
    pub body: CodeId,
    /// `on stop`, `on resume`, `on abort`.
    pub handlers: [Option<CodeId>; 3],
    /// How many tells it contains (body and handlers).
    pub tells: u32,
    /// How many of them are in its body (numbered first; the rest are in handlers).
    pub body_tells: u32,
}

/// Index of a handler kind in [`PlanDef::handlers`].
pub fn handler_index(k: HandlerKind) -> usize {
    match k {
        HandlerKind::Stop => 0,
        HandlerKind::Resume => 1,
        HandlerKind::Abort => 2,
    }
}

/// A desire of an agent.
#[derive(Clone, Debug)]
pub struct DesireDef {
    /// Its name.
    pub name: String,
    /// The bindings that serve it.
    pub reachable_by: Vec<usize>,
    /// `achieved` conditions.
    pub achieved: Vec<Ex>,
    /// `impossible` conditions.
    pub impossible: Vec<Ex>,
    /// `priority N` (0 when not written).
    pub priority: i64,
    /// `under weak fairness`.
    pub fair: bool,
}

/// The pattern of an assertion (docs/semantics.md, "Assertions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `always φ`.
    Always,
    /// `never φ`.
    Never,
    /// `eventually φ`.
    Eventually,
    /// `φ leads to ψ`.
    LeadsTo,
    /// `ψ precedes φ` (conditions in source order: ψ, then φ).
    Precedes,
}

/// An `assert` of an agent.
#[derive(Clone, Debug)]
pub struct AssertDef {
    /// Its name.
    pub name: String,
    /// Its pattern.
    pub pattern: Pattern,
    /// Its conditions, in source order.
    pub conds: Vec<Ex>,
    /// `under weak fairness`.
    pub fair: bool,
}

/// A plan binding.
#[derive(Clone, Debug)]
pub struct BindingDef {
    /// Its name.
    pub name: String,
    /// The plan it starts (`None`: host or unresolved).
    pub plan: Option<PlanId>,
    /// Its arguments.
    pub args: Vec<Ex>,
}

/// An agent.
#[derive(Clone, Debug)]
pub struct AgentDef {
    /// Its name.
    pub name: String,
    /// Its parameters and their values (`None`: no value given).
    pub params: Vec<(Sym, Option<crate::sem::Val>)>,
    /// Its desires.
    pub desires: Vec<DesireDef>,
    /// The initial attention.
    pub initial: Option<Sym>,
    /// `when φ attend A`, in source order.
    pub attends: Vec<(Ex, Sym)>,
    /// Its bindings.
    pub bindings: Vec<BindingDef>,
    /// Whether it is `commit single_minded` (released by what it believes impossible).
    pub single_minded: bool,
    /// `intend P for D`: the binding and the desire (indices), whatever the condition.
    pub intends: Vec<(usize, usize)>,
    /// Its assertions, in source order.
    pub asserts: Vec<AssertDef>,
}

/// The oracle's program.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Names.
    pub names: Names,
    /// Code nodes.
    pub code: Vec<Code>,
    /// Plans.
    pub plans: Vec<PlanDef>,
    /// Agents.
    pub agents: Vec<AgentDef>,
}

/// A parameter value as given on the command line (`--param`).
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A Boolean.
    Bool(bool),
    /// A string.
    Str(String),
}

impl Model {
    /// Compiles a checked program (which must have no error). `params`: per agent, per
    /// parameter name, its value.
    pub fn new(
        program: &Program,
        parsed: &[ParsedFile],
        params: &HashMap<(String, String), ParamValue>,
    ) -> Model {
        let mut m = Model::default();
        // Plan ids: files in order, plans in order.
        let mut ids: HashMap<(usize, usize), PlanId> = HashMap::new();
        let mut by_name: Vec<HashMap<String, PlanId>> = Vec::new();
        let mut decls: Vec<(&ast::PlanDecl, usize)> = Vec::new();
        for (fi, f) in program.plan_files.iter().enumerate() {
            let module = parsed.iter().find(|p| p.file == f.file).map(|p| &p.module);
            let mut names = HashMap::new();
            if let Some(Module::Plans(pf)) = module {
                for (pi, d) in pf.plans.iter().enumerate() {
                    let id = decls.len() as PlanId;
                    ids.insert((fi, pi), id);
                    names.entry(d.name.name.to_string()).or_insert(id);
                    decls.push((d, fi));
                }
            }
            by_name.push(names);
        }
        for (id, (d, fi)) in decls.iter().enumerate() {
            let id = id as PlanId;
            let mut tells = Vec::new();
            let body = match &d.body {
                Some(b) => m.compile(b, true, &by_name[*fi], id, &mut tells),
                None => m.push(Code::Unsupported),
            };
            // Tells are numbered within their plan from 1: the body's in the order written,
            // then those of `on stop`, `on resume` and `on abort`, wherever those are written.
            tells.sort_by_key(|(pos, _)| *pos);
            let body_tells = tells.len() as u32;
            let mut handlers = [None; 3];
            let mut hs: Vec<&ast::Handler> = d.handlers.iter().collect();
            hs.sort_by_key(|h| handler_index(h.kind));
            for h in hs {
                let mut mine = Vec::new();
                let c = m.compile(&h.body, false, &by_name[*fi], id, &mut mine);
                mine.sort_by_key(|(pos, _)| *pos);
                tells.extend(mine);
                handlers[handler_index(h.kind)] = Some(c);
            }
            for (n, (_, c)) in tells.iter().enumerate() {
                if let Code::Tell(_, _, _, _, num) = &mut m.code[*c as usize] {
                    *num = n as u32 + 1;
                }
            }
            let params = d
                .params
                .iter()
                .map(|p| m.names.sym(p.name.name.as_str()))
                .collect();
            let chans = d
                .channels
                .iter()
                .map(|p| m.names.sym(p.name.name.as_str()))
                .collect();
            m.plans.push(PlanDef {
                name: d.name.name.to_string(),
                params,
                chans,
                body,
                handlers,
                tells: tells.len() as u32,
                body_tells,
            });
        }
        for a in &program.agents {
            let me = a.name.as_str();
            let mut aparams = Vec::new();
            for p in &a.params {
                let given = params.get(&(me.to_string(), p.name.clone()));
                let value = given.map(|v| match v {
                    ParamValue::Int(i) => crate::sem::Val::Int(*i),
                    ParamValue::Bool(b) => crate::sem::Val::Bool(*b),
                    ParamValue::Str(s) => crate::sem::Val::Str(m.names.sym(s)),
                });
                aparams.push((m.names.sym(&p.name), value));
            }
            let desires = a
                .desires
                .iter()
                .map(|d| DesireDef {
                    name: d.name.clone(),
                    reachable_by: d.reachable_by.clone(),
                    achieved: d
                        .achieved
                        .iter()
                        .map(|e| Ex::of(e, &mut m.names, me))
                        .collect(),
                    impossible: d
                        .impossible
                        .iter()
                        .map(|r| Ex::of(&r.cond, &mut m.names, me))
                        .collect(),
                    priority: d.priority,
                    fair: d.fair,
                })
                .collect();
            let asserts = (a.asserts.iter())
                .map(|r| {
                    use hilbert_frontend::syntax::ast::AssertPattern as P;
                    let pattern = match &r.pattern {
                        P::Always(_) => Pattern::Always,
                        P::Never(_) => Pattern::Never,
                        P::Eventually(_) => Pattern::Eventually,
                        P::LeadsTo(..) => Pattern::LeadsTo,
                        P::Precedes(..) => Pattern::Precedes,
                    };
                    let conds = (r.pattern.conds().into_iter())
                        .map(|e| Ex::of(e, &mut m.names, me))
                        .collect();
                    AssertDef {
                        name: r.name.clone(),
                        pattern,
                        conds,
                        fair: r.fair,
                    }
                })
                .collect();
            let initial = a
                .attentions
                .iter()
                .find(|x| x.initially)
                .map(|x| m.names.sym(&x.name));
            let attends = a
                .attends
                .iter()
                .map(|r| {
                    (
                        Ex::of(&r.cond, &mut m.names, me),
                        m.names.sym(&a.attentions[r.attention].name),
                    )
                })
                .collect();
            let bindings = a
                .bindings
                .iter()
                .map(|b| BindingDef {
                    name: b.name.clone(),
                    plan: match &b.target {
                        BindingTarget::Plan(r) => program
                            .plan_files
                            .iter()
                            .position(|f| f.file == r.file)
                            .and_then(|fi| ids.get(&(fi, r.index)).copied()),
                        _ => None,
                    },
                    args: b.args.iter().map(|e| Ex::of(e, &mut m.names, me)).collect(),
                })
                .collect();
            m.agents.push(AgentDef {
                name: a.name.clone(),
                params: aparams,
                desires,
                initial,
                attends,
                bindings,
                single_minded: a.commit == Some(CommitmentStrategy::SingleMinded),
                intends: a.intends.iter().map(|r| (r.binding, r.desire)).collect(),
                asserts,
            });
        }
        m
    }

    fn push(&mut self, c: Code) -> CodeId {
        self.code.push(c);
        (self.code.len() - 1) as CodeId
    }

    fn atom(&mut self, a: &ast::Atom, me: &str) -> (Sym, Vec<Ex>) {
        let args = a
            .args
            .iter()
            .map(|e| Ex::of(e, &mut self.names, me))
            .collect();
        (self.names.sym(a.pred.name.as_str()), args)
    }

    fn compile(
        &mut self,
        p: &Proc,
        tail: bool,
        plans: &HashMap<String, PlanId>,
        owner: PlanId,
        tells: &mut Vec<(u32, CodeId)>,
    ) -> CodeId {
        let me = "";
        let c = match &p.kind {
            ProcKind::Parallel(xs) => {
                let v = xs
                    .iter()
                    .map(|x| self.compile(x, false, plans, owner, tells))
                    .collect();
                Code::Par(v)
            }
            ProcKind::Choice(xs) => {
                let v = xs
                    .iter()
                    .map(|x| self.compile(x, tail, plans, owner, tells))
                    .collect();
                Code::Choice(v)
            }
            ProcKind::Interrupt(a, b) => {
                let a = self.compile(a, false, plans, owner, tells);
                let b = self.compile(b, false, plans, owner, tells);
                Code::Interrupt(a, b)
            }
            ProcKind::Labelled(l, body) => {
                let b = self.compile(body, false, plans, owner, tells);
                Code::Label(self.names.sym(l.name.as_str()), b)
            }
            ProcKind::Seq(xs) => {
                let n = xs.len();
                let v = xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| self.compile(x, tail && i + 1 == n, plans, owner, tells))
                    .collect();
                Code::Seq(v)
            }
            ProcKind::Send { value, chan } => Code::Send(
                Ex::of(value, &mut self.names, me),
                self.names.sym(chan.name.as_str()),
            ),
            ProcKind::Recv { var, chan } => Code::Recv(
                self.names.sym(var.name.as_str()),
                self.names.sym(chan.name.as_str()),
            ),
            ProcKind::Believe(a) => {
                let (f, args) = self.atom(a, me);
                Code::Believe(f, args)
            }
            ProcKind::Forget(a) => {
                let (f, args) = self.atom(a, me);
                Code::Forget(f, args)
            }
            ProcKind::Tell { agent, atom } => {
                let (f, args) = self.atom(atom, me);
                let id = self.push(Code::Tell(
                    self.names.get(agent.name.as_str()).unwrap_or(Sym(u32::MAX)),
                    f,
                    args,
                    owner,
                    0,
                ));
                if let Code::Tell(j, ..) = &mut self.code[id as usize]
                    && j.0 == u32::MAX
                {
                    *j = self.names.sym(agent.name.as_str());
                }
                tells.push((p.span.start, id));
                return id;
            }
            ProcKind::Command { command, target } => {
                let t = if target.name.as_str() == "self" {
                    Target::SelfInst
                } else {
                    Target::Label(self.names.sym(target.name.as_str()))
                };
                Code::Cmd(*command, t)
            }
            ProcKind::Skip => Code::Skip,
            ProcKind::Stop => Code::Stop,
            ProcKind::Call { plan, args } => match plans.get(plan.name.as_str()) {
                Some(&callee) => {
                    let args = args
                        .iter()
                        .map(|e| Ex::of(e, &mut self.names, me))
                        .collect();
                    Code::Call(callee, args, tail)
                }
                None => Code::Unsupported,
            },
            ProcKind::Match {
                scrutinee,
                arms,
                other,
            } => {
                let e = Ex::of(scrutinee, &mut self.names, me);
                let arms = arms
                    .iter()
                    .map(|a| {
                        let lit = Ex::of(&a.pattern, &mut self.names, me);
                        (lit, self.compile(&a.body, tail, plans, owner, tells))
                    })
                    .collect();
                let other = other
                    .as_ref()
                    .map(|o| self.compile(o, tail, plans, owner, tells));
                Code::Match(e, arms, other)
            }
            ProcKind::Error => Code::Unsupported,
        };
        self.push(c)
    }
}

/// Whether `c` is an internal action with an effect (what stops an expansion).
pub fn is_effect(c: &Code) -> bool {
    matches!(
        c,
        Code::Believe(..)
            | Code::Forget(..)
            | Code::Tell(..)
            | Code::Cmd(..)
            | Code::Call(_, _, true)
    )
}
