//! The navigation index of a project: every name written in its syntax trees, each resolved to
//! the [`Symbol`] it declares or refers to, by the scoping rules of `docs/language.md`.
//!
//! It reads the trees the front end's parser made (with its recovery, so a half-typed file is
//! indexed as far as it parses) and resolves names as the checker does: agents and plan files
//! project-wide; a `.ha` agent's beliefs, desires, plan bindings, attentions, values and
//! parameters within the agent; a `B(j)` test's and a `tell j`'s atom among agent `j`'s beliefs;
//! a `.hk` plan's beliefs among its agent's (`plan P : Agent`); a plan's parameters, channels
//! and labels within it; a `.hb` block's options among its agent's bindings. A name that
//! resolves nowhere else is a variable of the rule or plan it is written in.

use hilbert_frontend::syntax::ast::{
    Agent, AgentFile, Atom, Expr, ExprKind, MemberKind, Module, Param, PlanDecl, PlanFile,
    PlanTarget, Proc, ProcKind, ValuesFile, chain_operands,
};
use hilbert_frontend::{FileId, SourceMap, Span};
use std::collections::{HashMap, HashSet};

/// What a name means.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// An agent (`agent Name`).
    Agent(String),
    /// A parameter of an agent.
    AgentParam(String, String),
    /// A belief of an agent.
    Belief(String, String),
    /// A field of a belief: agent, belief, field.
    BeliefField(String, String, String),
    /// A desire of an agent.
    Desire(String, String),
    /// An attention of an agent.
    Attention(String, String),
    /// A plan binding of an agent (`plan P ↦ …`).
    Binding(String, String),
    /// A `value` of an agent (`.ha`).
    AgentValue(String, String),
    /// A `value` of an agent's values block (`.hb`).
    BlockValue(String, String),
    /// A `.hk` file, by its stem.
    PlanFile(String),
    /// A plan of a `.hk` file: stem, plan.
    Plan(String, String),
    /// A parameter of a plan: stem, plan, parameter.
    PlanParam(String, String, String),
    /// A channel declared in a plan: stem, plan, channel.
    Channel(String, String, String),
    /// A label in a plan: stem, plan, label.
    Label(String, String, String),
    /// A variable of one rule or plan: the file, where the rule or plan begins, the name.
    Variable(FileId, u32, String),
}

impl Symbol {
    /// What kind of name this is, for people ("belief", "plan binding").
    pub fn kind(&self) -> &'static str {
        match self {
            Symbol::Agent(_) => "agent",
            Symbol::AgentParam(..) => "agent parameter",
            Symbol::Belief(..) => "belief",
            Symbol::BeliefField(..) => "belief field",
            Symbol::Desire(..) => "desire",
            Symbol::Attention(..) => "attention",
            Symbol::Binding(..) => "plan binding",
            Symbol::AgentValue(..) => "value",
            Symbol::BlockValue(..) => "value",
            Symbol::PlanFile(_) => "plan file",
            Symbol::Plan(..) => "plan",
            Symbol::PlanParam(..) => "plan parameter",
            Symbol::Channel(..) => "channel",
            Symbol::Label(..) => "label",
            Symbol::Variable(..) => "variable",
        }
    }

    /// The name itself.
    pub fn name(&self) -> &str {
        match self {
            Symbol::Agent(n) | Symbol::PlanFile(n) => n,
            Symbol::AgentParam(_, n)
            | Symbol::Belief(_, n)
            | Symbol::Desire(_, n)
            | Symbol::Attention(_, n)
            | Symbol::Binding(_, n)
            | Symbol::AgentValue(_, n)
            | Symbol::BlockValue(_, n)
            | Symbol::Plan(_, n) => n,
            Symbol::BeliefField(_, _, n)
            | Symbol::PlanParam(_, _, n)
            | Symbol::Channel(_, _, n)
            | Symbol::Label(_, _, n)
            | Symbol::Variable(_, _, n) => n,
        }
    }
}

/// One name as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// Where.
    pub span: Span,
    /// What it means.
    pub symbol: Symbol,
    /// Whether this is where it is declared (a variable's first binding).
    pub declaration: bool,
}

/// Where a symbol is declared, and how it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The symbol.
    pub symbol: Symbol,
    /// Its name where it is declared (a plan file: the file's start).
    pub span: Span,
    /// The declaration as the user wrote it (`belief made(count: Int)`), one line.
    pub signature: String,
    /// What more there is to say (the agent it belongs to, the desires a binding serves).
    pub context: Vec<String>,
}

/// The index of one project.
#[derive(Debug, Default)]
pub struct Index {
    /// Every occurrence, by file and then position.
    occurrences: HashMap<FileId, Vec<Occurrence>>,
    /// The declarations of each symbol (more than one after a duplicate).
    declarations: HashMap<Symbol, Vec<Declaration>>,
}

impl Index {
    /// The index of the files of `sources` whose trees are in `modules` (by file).
    pub fn new(sources: &SourceMap, modules: &[(FileId, Module)]) -> Index {
        let mut b = Builder {
            sources,
            index: Index::default(),
            agents: HashMap::new(),
            stems: HashMap::new(),
        };
        // Pass 1: what each agent and plan file declares, so that references resolve whatever
        // the order of the files.
        for (file, module) in modules {
            match module {
                Module::Agents(f) => {
                    for a in &f.agents {
                        b.agents
                            .entry(a.name.name.to_string())
                            .or_insert_with(|| AgentNames::of(a));
                    }
                }
                Module::Plans(_) => {
                    let stem = sources.get(*file).stem().to_string();
                    b.stems.entry(stem).or_insert(*file);
                }
                Module::Values(_) => {}
            }
        }
        for (file, module) in modules {
            match module {
                Module::Agents(f) => b.agent_file(*file, f),
                Module::Plans(f) => b.plan_file(*file, f),
                Module::Values(f) => b.values_file(*file, f),
            }
        }
        for list in b.index.occurrences.values_mut() {
            list.sort_by_key(|o| (o.span.start, o.span.end));
        }
        b.index
    }

    /// The occurrence under byte `offset` of `file` (a cursor just after a name is on it).
    pub fn at(&self, file: FileId, offset: u32) -> Option<&Occurrence> {
        let list = self.occurrences.get(&file)?;
        let i = list.partition_point(|o| o.span.start <= offset);
        list[..i]
            .iter()
            .rev()
            .take(4)
            .find(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// The declarations of `symbol`.
    pub fn declarations(&self, symbol: &Symbol) -> &[Declaration] {
        self.declarations.get(symbol).map_or(&[], Vec::as_slice)
    }

    /// Every occurrence of `symbol`, declarations included, in file order.
    pub fn references(&self, symbol: &Symbol) -> Vec<&Occurrence> {
        let mut files: Vec<&FileId> = self.occurrences.keys().collect();
        files.sort();
        files
            .into_iter()
            .flat_map(|f| &self.occurrences[f])
            .filter(|o| o.symbol == *symbol)
            .collect()
    }

    /// Every declaration, in no order.
    pub fn all_declarations(&self) -> impl Iterator<Item = &Declaration> {
        self.declarations.values().flatten()
    }
}

/// The names an agent declares, for resolving the references to them.
#[derive(Default)]
struct AgentNames {
    params: HashSet<String>,
    values: HashSet<String>,
}

impl AgentNames {
    fn of(a: &Agent) -> AgentNames {
        let mut n = AgentNames::default();
        for p in &a.params {
            n.params.insert(p.name.name.to_string());
        }
        for m in &a.members {
            if let MemberKind::Value { name, .. } = &m.kind {
                n.values.insert(name.name.to_string());
            }
        }
        n
    }
}

/// How a name in an expression resolves where it is written.
enum Scope<'s> {
    /// A rule or value of agent `agent`.
    Agent { agent: &'s str, start: u32 },
    /// A plan of a `.hk` file, whose agent is `agent`.
    Plan {
        stem: &'s str,
        plan: &'s PlanDecl,
        agent: Option<&'s str>,
    },
    /// A values block of agent `agent`, with its `value` names.
    Values {
        agent: &'s str,
        values: &'s HashSet<String>,
        start: u32,
    },
}

struct Builder<'a> {
    sources: &'a SourceMap,
    index: Index,
    agents: HashMap<String, AgentNames>,
    stems: HashMap<String, FileId>,
}

impl Builder<'_> {
    fn refer(&mut self, span: Span, symbol: Symbol) {
        if span.start == span.end {
            // Recovery's empty names are no names.
            return;
        }
        self.index
            .occurrences
            .entry(span.file)
            .or_default()
            .push(Occurrence {
                span,
                symbol,
                declaration: false,
            });
    }

    fn declare(&mut self, span: Span, symbol: Symbol, signature: String, context: Vec<String>) {
        if span.start == span.end {
            return;
        }
        self.index
            .occurrences
            .entry(span.file)
            .or_default()
            .push(Occurrence {
                span,
                symbol: symbol.clone(),
                declaration: true,
            });
        self.index
            .declarations
            .entry(symbol.clone())
            .or_default()
            .push(Declaration {
                symbol,
                span,
                signature,
                context,
            });
    }

    /// The text of `span`, on one line, at most 200 characters.
    fn text(&self, span: Span) -> String {
        let text = self.sources.get(span.file).slice(span);
        let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if one.chars().count() > 200 {
            let cut: String = one.chars().take(199).collect();
            format!("{cut}…")
        } else {
            one
        }
    }

    fn params(&self, params: &[Param]) -> String {
        let list: Vec<String> = params.iter().map(|p| self.param(p)).collect();
        list.join(", ")
    }

    /// `name: Type`, as written.
    fn param(&self, p: &Param) -> String {
        format!("{}: {}", p.name.name, self.text(p.ty.span))
    }

    // ------------------------------------------------------------ .ha

    fn agent_file(&mut self, _file: FileId, f: &AgentFile) {
        for a in &f.agents {
            self.agent(a);
        }
    }

    fn agent(&mut self, a: &Agent) {
        let name = a.name.name.to_string();
        let mut signature = format!("agent {name}");
        if !a.params.is_empty() {
            signature.push_str(&format!("({})", self.params(&a.params)));
        }
        if let Some(t) = &a.theory {
            signature.push_str(&format!(" : {}", t.name));
        }
        let members = a.members.len();
        self.declare(
            a.name.span,
            Symbol::Agent(name.clone()),
            signature,
            vec![format!("{members} members")],
        );
        let of = format!("of agent `{name}`");
        for p in &a.params {
            let sig = self.param(p);
            self.declare(
                p.name.span,
                Symbol::AgentParam(name.clone(), p.name.name.to_string()),
                sig,
                vec![format!("a parameter {of}: a constant in every condition")],
            );
        }
        // The desires each binding serves, for the bindings' hover.
        let mut serves: HashMap<String, Vec<String>> = HashMap::new();
        for m in &a.members {
            if let MemberKind::Desire {
                name: d,
                reachable_by,
                ..
            } = &m.kind
            {
                for p in reachable_by {
                    serves
                        .entry(p.name.to_string())
                        .or_default()
                        .push(d.name.to_string());
                }
            }
        }
        for m in &a.members {
            let sig = self.text(m.span);
            let start = m.span.start;
            let scope = |_: &Self| Scope::Agent {
                agent: &name,
                start,
            };
            match &m.kind {
                MemberKind::Belief { name: b, params } => {
                    self.declare(
                        b.span,
                        Symbol::Belief(name.clone(), b.name.to_string()),
                        sig,
                        vec![format!("a belief {of}")],
                    );
                    for p in params {
                        let sig = self.param(p);
                        self.declare(
                            p.name.span,
                            Symbol::BeliefField(
                                name.clone(),
                                b.name.to_string(),
                                p.name.name.to_string(),
                            ),
                            sig,
                            vec![format!("a field of belief `{}` {of}", b.name)],
                        );
                    }
                }
                MemberKind::Desire {
                    name: d,
                    reachable_by,
                    ..
                } => {
                    self.declare(
                        d.span,
                        Symbol::Desire(name.clone(), d.name.to_string()),
                        sig,
                        vec![format!("a desire {of}")],
                    );
                    for p in reachable_by {
                        self.refer(p.span, Symbol::Binding(name.clone(), p.name.to_string()));
                    }
                }
                MemberKind::Commit { .. } => {}
                MemberKind::Attention { name: at, .. } => {
                    self.declare(
                        at.span,
                        Symbol::Attention(name.clone(), at.name.to_string()),
                        sig,
                        vec![format!("an attention {of}")],
                    );
                }
                MemberKind::Intend { plan, desire, cond } => {
                    self.refer(
                        plan.span,
                        Symbol::Binding(name.clone(), plan.name.to_string()),
                    );
                    self.refer(
                        desire.span,
                        Symbol::Desire(name.clone(), desire.name.to_string()),
                    );
                    let s = scope(self);
                    self.expr(cond, &s);
                }
                MemberKind::Achieved { desire, cond }
                | MemberKind::Impossible { desire, cond, .. } => {
                    self.refer(
                        desire.span,
                        Symbol::Desire(name.clone(), desire.name.to_string()),
                    );
                    let s = scope(self);
                    self.expr(cond, &s);
                }
                MemberKind::Attend { cond, attention } => {
                    let s = scope(self);
                    self.expr(cond, &s);
                    self.refer(
                        attention.span,
                        Symbol::Attention(name.clone(), attention.name.to_string()),
                    );
                }
                MemberKind::Assert { pattern, .. } => {
                    let s = scope(self);
                    for cond in pattern.conds() {
                        self.expr(cond, &s);
                    }
                }
                MemberKind::Reward { plan, cond, .. } => {
                    self.refer(
                        plan.span,
                        Symbol::Binding(name.clone(), plan.name.to_string()),
                    );
                    let s = scope(self);
                    self.expr(cond, &s);
                }
                MemberKind::Value { name: v, expr } => {
                    self.declare(
                        v.span,
                        Symbol::AgentValue(name.clone(), v.name.to_string()),
                        sig,
                        vec![format!(
                            "a value {of}: it orders choices, conditions cannot read it"
                        )],
                    );
                    let s = scope(self);
                    self.expr(expr, &s);
                }
                MemberKind::Plan {
                    name: p,
                    target,
                    args,
                } => {
                    let mut context = vec![format!("a plan binding {of}")];
                    match serves.get(p.name.as_str()) {
                        Some(ds) => context.push(format!(
                            "serves {}",
                            ds.iter()
                                .map(|d| format!("`{d}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                        None => {
                            context.push("serves no desire (no `reachable by` lists it)".into())
                        }
                    }
                    self.declare(
                        p.span,
                        Symbol::Binding(name.clone(), p.name.to_string()),
                        sig,
                        context,
                    );
                    if let PlanTarget::Process { file, plan } = target {
                        self.refer(file.span, Symbol::PlanFile(file.name.to_string()));
                        self.refer(
                            plan.span,
                            Symbol::Plan(file.name.to_string(), plan.name.to_string()),
                        );
                    }
                    let s = scope(self);
                    for e in args {
                        self.expr(e, &s);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------ .hk

    fn plan_file(&mut self, file: FileId, f: &PlanFile) {
        let stem = self.sources.get(file).stem().to_string();
        let path = self.sources.get(file).path.clone();
        // The file itself declares its stem: `File` in `File.Plan` goes to its start.
        if self.stems.get(&stem) == Some(&file) {
            self.index
                .declarations
                .entry(Symbol::PlanFile(stem.clone()))
                .or_default()
                .push(Declaration {
                    symbol: Symbol::PlanFile(stem.clone()),
                    span: Span::new(file, 0..0),
                    signature: format!("{stem}.hk"),
                    context: vec![format!("{} plans, in `{path}`", f.plans.len())],
                });
        }
        for p in &f.plans {
            self.plan(&stem, p);
        }
    }

    fn plan(&mut self, stem: &str, p: &PlanDecl) {
        let name = p.name.name.to_string();
        let mut signature = format!("plan {name}({})", self.params(&p.params));
        if let Some(a) = &p.agent {
            signature.push_str(&format!(" : {}", a.name));
        }
        let mut context = vec![format!(
            "a plan of `{stem}.hk`: `{stem}.{name}` in a binding"
        )];
        if !p.channels.is_empty() {
            context.push(format!("channels: {}", self.params(&p.channels)));
        }
        let handlers: Vec<&str> = p
            .handlers
            .iter()
            .map(|h| match h.kind {
                hilbert_frontend::syntax::ast::HandlerKind::Stop => "on stop",
                hilbert_frontend::syntax::ast::HandlerKind::Resume => "on resume",
                hilbert_frontend::syntax::ast::HandlerKind::Abort => "on abort",
            })
            .collect();
        if !handlers.is_empty() {
            context.push(format!("handlers: {}", handlers.join(", ")));
        }
        self.declare(
            p.name.span,
            Symbol::Plan(stem.to_string(), name.clone()),
            signature,
            context,
        );
        if let Some(a) = &p.agent {
            self.refer(a.span, Symbol::Agent(a.name.to_string()));
        }
        let of = format!("of plan `{stem}.{name}`");
        for prm in &p.params {
            let sig = self.param(prm);
            self.declare(
                prm.name.span,
                Symbol::PlanParam(stem.to_string(), name.clone(), prm.name.name.to_string()),
                sig,
                vec![format!("a parameter {of}")],
            );
        }
        for c in &p.channels {
            let sig = format!("{} : {}", c.name.name, self.text(c.ty.span));
            self.declare(
                c.name.span,
                Symbol::Channel(stem.to_string(), name.clone(), c.name.name.to_string()),
                sig,
                vec![format!("a channel {of}, local to each instance")],
            );
        }
        let scope = Scope::Plan {
            stem,
            plan: p,
            agent: p.agent.as_ref().map(|a| a.name.as_str()),
        };
        if let Some(body) = &p.body {
            self.process(body, &scope);
        }
        for h in &p.handlers {
            self.process(&h.body, &scope);
        }
    }

    /// The symbol a channel name in plan `plan` means.
    fn channel(stem: &str, plan: &PlanDecl, name: &str) -> Symbol {
        if plan.params.iter().any(|p| p.name.name == name) {
            Symbol::PlanParam(
                stem.to_string(),
                plan.name.name.to_string(),
                name.to_string(),
            )
        } else {
            Symbol::Channel(
                stem.to_string(),
                plan.name.name.to_string(),
                name.to_string(),
            )
        }
    }

    fn process(&mut self, p: &Proc, scope: &Scope<'_>) {
        // Deep processes are walked with a stack of our own, not by recursion.
        let mut stack = vec![p];
        let Scope::Plan { stem, plan, agent } = scope else {
            return;
        };
        let (stem, plan, agent) = (*stem, *plan, *agent);
        let pname = plan.name.name.to_string();
        while let Some(p) = stack.pop() {
            match &p.kind {
                ProcKind::Parallel(ps) | ProcKind::Choice(ps) | ProcKind::Seq(ps) => {
                    stack.extend(ps.iter().rev());
                }
                ProcKind::Interrupt(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                ProcKind::Labelled(l, inner) => {
                    let sig = format!("{} : …", l.name);
                    self.declare(
                        l.span,
                        Symbol::Label(stem.to_string(), pname.clone(), l.name.to_string()),
                        sig,
                        vec![format!(
                            "a label of plan `{stem}.{pname}`: `stop`, `resume`, `abort` and `restart` name it"
                        )],
                    );
                    stack.push(inner);
                }
                ProcKind::Send { value, chan } => {
                    self.expr(value, scope);
                    self.refer(chan.span, Self::channel(stem, plan, &chan.name));
                }
                ProcKind::Recv { var, chan } => {
                    self.refer(chan.span, Self::channel(stem, plan, &chan.name));
                    self.variable(var.span, &var.name, plan.span.start);
                }
                ProcKind::Believe(atom) | ProcKind::Forget(atom) => {
                    self.atom(atom, agent, scope);
                }
                ProcKind::Tell { agent: j, atom } => {
                    self.refer(j.span, Symbol::Agent(j.name.to_string()));
                    self.atom(atom, Some(j.name.as_str()), scope);
                }
                ProcKind::Command { target, .. } => {
                    if target.name == "self" {
                        self.refer(target.span, Symbol::Plan(stem.to_string(), pname.clone()));
                    } else {
                        self.refer(
                            target.span,
                            Symbol::Label(stem.to_string(), pname.clone(), target.name.to_string()),
                        );
                    }
                }
                ProcKind::Call { plan: callee, args } => {
                    self.refer(
                        callee.span,
                        Symbol::Plan(stem.to_string(), callee.name.to_string()),
                    );
                    for e in args {
                        self.expr(e, scope);
                    }
                }
                ProcKind::Match {
                    scrutinee,
                    arms,
                    other,
                } => {
                    self.expr(scrutinee, scope);
                    if let Some(o) = other {
                        stack.push(o);
                    }
                    for arm in arms.iter().rev() {
                        self.expr(&arm.pattern, scope);
                        stack.push(&arm.body);
                    }
                }
                ProcKind::Skip | ProcKind::Stop | ProcKind::Error => {}
            }
        }
    }

    /// A variable's occurrence: the first of its name in its scope declares it.
    fn variable(&mut self, span: Span, name: &str, start: u32) {
        let symbol = Symbol::Variable(span.file, start, name.to_string());
        if self.index.declarations.contains_key(&symbol) {
            self.refer(span, symbol);
        } else {
            let sig = name.to_string();
            self.declare(
                span,
                symbol,
                sig,
                vec!["a variable: bound here, in scope to the end of its rule or plan".into()],
            );
        }
    }

    fn atom(&mut self, atom: &Atom, owner: Option<&str>, scope: &Scope<'_>) {
        if let Some(owner) = owner {
            self.refer(
                atom.pred.span,
                Symbol::Belief(owner.to_string(), atom.pred.name.to_string()),
            );
        }
        for a in &atom.args {
            self.expr(a, scope);
        }
    }

    // ------------------------------------------------------------ .hb

    fn values_file(&mut self, _file: FileId, f: &ValuesFile) {
        for b in &f.blocks {
            let agent = b.agent.name.to_string();
            self.refer(b.agent.span, Symbol::Agent(agent.clone()));
            let values: HashSet<String> =
                b.values.iter().map(|v| v.name.name.to_string()).collect();
            let scope = Scope::Values {
                agent: &agent,
                values: &values,
                start: b.span.start,
            };
            for v in &b.values {
                let sig = self.text(v.span);
                self.declare(
                    v.name.span,
                    Symbol::BlockValue(agent.clone(), v.name.name.to_string()),
                    sig,
                    vec![format!("a value of the values of agent `{agent}`")],
                );
                self.expr(&v.expr, &scope);
            }
            for o in &b.options {
                self.refer(
                    o.plan.span,
                    Symbol::Binding(agent.clone(), o.plan.name.to_string()),
                );
                self.expr(&o.expr, &scope);
            }
            for p in &b.policies {
                for (_, e) in &p.args {
                    self.expr(e, &scope);
                }
            }
        }
    }

    // ------------------------------------------------------------ expressions

    fn expr(&mut self, e: &Expr, scope: &Scope<'_>) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Var(v) => {
                    let symbol = self.var(&v.name, scope);
                    match symbol {
                        Some(s) => self.refer(v.span, s),
                        None => {
                            let start = match scope {
                                Scope::Agent { start, .. } | Scope::Values { start, .. } => *start,
                                Scope::Plan { plan, .. } => plan.span.start,
                            };
                            self.variable(v.span, &v.name, start);
                        }
                    }
                }
                ExprKind::Unary(_, a) => stack.push(a),
                ExprKind::Binary(_, a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                ExprKind::Chain { first, rest } => {
                    let all: Vec<&Expr> = chain_operands(first, rest).collect();
                    stack.extend(all.into_iter().rev());
                }
                ExprKind::Believes { agent, atom } => {
                    let own = match scope {
                        Scope::Agent { agent, .. } | Scope::Values { agent, .. } => Some(*agent),
                        Scope::Plan { agent, .. } => *agent,
                    };
                    let owner = if agent.name == "self" {
                        own
                    } else {
                        self.refer(agent.span, Symbol::Agent(agent.name.to_string()));
                        Some(agent.name.as_str())
                    };
                    if let Some(owner) = owner {
                        self.refer(
                            atom.pred.span,
                            Symbol::Belief(owner.to_string(), atom.pred.name.to_string()),
                        );
                    }
                    stack.extend(atom.args.iter().rev());
                }
                ExprKind::Attending(a) => {
                    if let Scope::Agent { agent, .. } = scope {
                        self.refer(
                            a.span,
                            Symbol::Attention(agent.to_string(), a.name.to_string()),
                        );
                    }
                }
                ExprKind::Desires(d) => {
                    if let Scope::Agent { agent, .. } = scope {
                        self.refer(
                            d.span,
                            Symbol::Desire(agent.to_string(), d.name.to_string()),
                        );
                    }
                }
                ExprKind::Intends(p) => {
                    if let Scope::Agent { agent, .. } = scope {
                        self.refer(
                            p.span,
                            Symbol::Binding(agent.to_string(), p.name.to_string()),
                        );
                    }
                }
                ExprKind::Call { func, args } => {
                    if func.name == "learned"
                        && let (Scope::Values { agent, .. }, [arg]) = (scope, args.as_slice())
                        && let ExprKind::Var(p) = &arg.kind
                    {
                        self.refer(
                            p.span,
                            Symbol::Binding(agent.to_string(), p.name.to_string()),
                        );
                        continue;
                    }
                    stack.extend(args.iter().rev());
                }
                ExprKind::Field { base, field } => {
                    let agent = match scope {
                        Scope::Agent { agent, .. } | Scope::Values { agent, .. } => Some(*agent),
                        Scope::Plan { agent, .. } => *agent,
                    };
                    if let Some(agent) = agent {
                        self.refer(
                            base.span,
                            Symbol::Belief(agent.to_string(), base.name.to_string()),
                        );
                        self.refer(
                            field.span,
                            Symbol::BeliefField(
                                agent.to_string(),
                                base.name.to_string(),
                                field.name.to_string(),
                            ),
                        );
                    }
                }
                ExprKind::Int(_)
                | ExprKind::Float(_)
                | ExprKind::Str(_)
                | ExprKind::Bool(_)
                | ExprKind::Wildcard
                | ExprKind::Error => {}
            }
        }
    }

    /// What a name in an expression means, unless it is a variable.
    fn var(&self, name: &str, scope: &Scope<'_>) -> Option<Symbol> {
        match scope {
            Scope::Agent { agent, .. } => {
                let names = self.agents.get(*agent)?;
                if names.params.contains(name) {
                    Some(Symbol::AgentParam(agent.to_string(), name.to_string()))
                } else if names.values.contains(name) {
                    Some(Symbol::AgentValue(agent.to_string(), name.to_string()))
                } else {
                    None
                }
            }
            Scope::Plan { stem, plan, .. } => {
                if plan.params.iter().any(|p| p.name.name == name) {
                    Some(Symbol::PlanParam(
                        stem.to_string(),
                        plan.name.name.to_string(),
                        name.to_string(),
                    ))
                } else if plan.channels.iter().any(|c| c.name.name == name) {
                    Some(Symbol::Channel(
                        stem.to_string(),
                        plan.name.name.to_string(),
                        name.to_string(),
                    ))
                } else {
                    None
                }
            }
            Scope::Values { agent, values, .. } => {
                if values.contains(name) {
                    Some(Symbol::BlockValue(agent.to_string(), name.to_string()))
                } else if self
                    .agents
                    .get(*agent)
                    .is_some_and(|n| n.params.contains(name))
                {
                    Some(Symbol::AgentParam(agent.to_string(), name.to_string()))
                } else {
                    None
                }
            }
        }
    }
}
