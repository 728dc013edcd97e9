//! The syntax trees of the three dialects. Every node carries its span; names are [`Ident`]s so
//! that every reference can be pointed at. Trees from a file with syntax errors contain
//! `Error` nodes where the parser recovered.

use crate::source::Span;
pub use crate::syntax::name::Name;
use std::sync::Arc;

/// A name and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name.
    pub name: Name,
    /// Where.
    pub span: Span,
}

/// A written type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeExpr {
    /// Which type.
    pub kind: TypeKind,
    /// Where.
    pub span: Span,
}

/// The types of the language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// Mathematical integers.
    Int,
    /// Strings.
    String,
    /// `true` / `false`.
    Bool,
    /// Decimal numbers (`.hb` values only).
    Float,
    /// A channel carrying values of the inner type (`.hk` only).
    Chan(Box<TypeExpr>),
    /// A type name the parser did not know (reported by the checker).
    Named(Ident),
    /// Unparseable (a syntax error was reported).
    Error,
}

/// `name: Type`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
}

/// An expression: arithmetic, comparisons, conditions over beliefs. One grammar serves all three
/// dialects; the checker decides what each place allows.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `¬e`
    Not,
}

/// Binary operators, loosest first: `∨`; `∧`; comparisons (not associative); `+ -`; `* / %`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `∨`
    Or,
    /// `∧`
    And,
    /// `=`
    Eq,
    /// `≠`
    Ne,
    /// `<`
    Lt,
    /// `≤`
    Le,
    /// `>`
    Gt,
    /// `≥`
    Ge,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

impl BinOp {
    /// The Unicode spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "∨",
            BinOp::And => "∧",
            BinOp::Eq => "=",
            BinOp::Ne => "≠",
            BinOp::Lt => "<",
            BinOp::Le => "≤",
            BinOp::Gt => ">",
            BinOp::Ge => "≥",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
        }
    }

    /// Whether this is a comparison (`= ≠ < ≤ > ≥`).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A decimal literal.
    Float(f64),
    /// A string literal (unescaped).
    Str(String),
    /// `true` or `false`.
    Bool(bool),
    /// A variable, parameter or value name.
    Var(Ident),
    /// `_`: matches anything in a belief pattern.
    Wildcard,
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Two or more arithmetic operators of one precedence level in a row, `a + b - c` or
    /// `a * b / c`: the first operand, then each operator with the operand on its right. It
    /// means what the left-leaning tree `(a + b) - c` means, evaluated left to right, but it is
    /// one level deep however long it is, so a flat chain of any length is not refused as
    /// nesting (issue 17). One operator alone is a [`ExprKind::Binary`].
    Chain {
        /// The leftmost operand.
        first: Box<Expr>,
        /// Each operator (`+ -` or `* / %`) and the operand on its right, in order.
        rest: Vec<(BinOp, Expr)>,
    },
    /// `B(agent) atom`: the agent (`self` or another agent's name) believes the atom. In a
    /// condition the atom's arguments are patterns: a fresh variable binds, anything else matches.
    Believes {
        /// `self` or an agent's name (boxed, as the idents of [`ExprKind::Call`] and
        /// [`ExprKind::Field`]: an `Expr` is 56 bytes, where its largest variant unboxed made it
        /// 88, and a chain of two million operands is a vector of them).
        agent: Box<Ident>,
        /// What is believed (boxed: the rarer, larger variant keeps every `Expr` small).
        atom: Box<Atom>,
    },
    /// `attending A`: the agent's attention is on `A`.
    Attending(Ident),
    /// `desires D` (in an `assert` only): the agent desires `D` — its goal not achieved (nor,
    /// for a `single_minded` agent, believed impossible).
    Desires(Ident),
    /// `intends P` (in an `assert` only): the agent holds an intention for plan `P` — an
    /// `intend P for D` rule whose `D` it still desires.
    Intends(Ident),
    /// `f(args)`: a built-in function such as `learned(P)` in `.hb`.
    Call {
        /// The function.
        func: Box<Ident>,
        /// Its arguments.
        args: Vec<Expr>,
    },
    /// `belief.field`: a numeric feature read from a belief (`made.count`, `.hb`).
    Field {
        /// The belief.
        base: Box<Ident>,
        /// The field (one of the belief's parameter names).
        field: Box<Ident>,
    },
    /// Unparseable (a syntax error was reported).
    Error,
}

/// The operands of a chain, left to right.
pub fn chain_operands<'e>(
    first: &'e Expr,
    rest: &'e [(BinOp, Expr)],
) -> impl Iterator<Item = &'e Expr> {
    std::iter::once(first).chain(rest.iter().map(|(_, e)| e))
}

/// A ground or patterned proposition `f(a, …)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    /// The belief's name.
    pub pred: Ident,
    /// Its arguments.
    pub args: Vec<Expr>,
    /// Where the whole atom is.
    pub span: Span,
}

// ---------------------------------------------------------------- .ha

/// A parsed `.ha` file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AgentFile {
    /// The agents it declares, in order.
    pub agents: Vec<Agent>,
}

/// `agent Name(params) : Theory { members }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Agent {
    /// The agent's name.
    pub name: Ident,
    /// Its parameters (`line: String`).
    pub params: Vec<Param>,
    /// The theory it instantiates (`Agency`), if written.
    pub theory: Option<Ident>,
    /// Its members, in order.
    pub members: Vec<Member>,
    /// The whole declaration.
    pub span: Span,
}

/// One member of an agent, with its span (the whole line).
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// What it is.
    pub kind: MemberKind,
    /// Where.
    pub span: Span,
}

/// The polarity of a reward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polarity {
    /// `positive`
    Positive,
    /// `negative`
    Negative,
}

/// What a `plan P ↦ …` binding points at.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanTarget {
    /// `File.Plan`: a plan of the `.hk` file with that stem.
    Process {
        /// The file's stem.
        file: Ident,
        /// The plan's name.
        plan: Ident,
    },
    /// `host.name`: a Rust function registered with the runtime.
    Host {
        /// The registered name.
        name: Ident,
    },
}

/// The members of an agent.
#[derive(Clone, Debug, PartialEq)]
pub enum MemberKind {
    /// `belief f(x: T, …)`
    Belief {
        /// The belief's name.
        name: Ident,
        /// Its fields.
        params: Vec<Param>,
    },
    /// `desire D [priority N] reachable by [P, …]`
    Desire {
        /// The desire's name.
        name: Ident,
        /// `priority N`, if written (default 0).
        priority: Option<(i64, Span)>,
        /// The plans that may serve it.
        reachable_by: Vec<Ident>,
        /// `under F fairness`, if written: the word `F` (only `weak` is known) and the clause.
        fairness: Option<(Ident, Span)>,
    },
    /// `commit strategy`
    Commit {
        /// `blind`, `single_minded` or `open_minded` (checked later).
        strategy: Ident,
    },
    /// `attention A [initially]`
    Attention {
        /// The attention's name.
        name: Ident,
        /// Whether `initially` was written (its span).
        initially: Option<Span>,
    },
    /// `intend P for D when φ`
    Intend {
        /// The plan.
        plan: Ident,
        /// The desire.
        desire: Ident,
        /// The condition (shared with the resolved program's rule: [`crate::check::Program`]).
        cond: Arc<Expr>,
    },
    /// `achieved D when φ`
    Achieved {
        /// The desire.
        desire: Ident,
        /// The condition (shared with the resolved program's rule: [`crate::check::Program`]).
        cond: Arc<Expr>,
    },
    /// `impossible D when φ because "…"`
    Impossible {
        /// The desire.
        desire: Ident,
        /// The condition (shared with the resolved program's rule: [`crate::check::Program`]).
        cond: Arc<Expr>,
        /// The reason and its span, if written.
        because: Option<(String, Span)>,
    },
    /// `when φ attend A`
    Attend {
        /// The condition (shared with the resolved program's rule: [`crate::check::Program`]).
        cond: Arc<Expr>,
        /// The attention.
        attention: Ident,
    },
    /// `reward P positive|negative when φ`
    Reward {
        /// The plan credited.
        plan: Ident,
        /// Positive or negative.
        polarity: Polarity,
        /// The condition (shared with the resolved program's rule: [`crate::check::Program`]).
        cond: Arc<Expr>,
    },
    /// `value v ≔ e`
    Value {
        /// The value's name.
        name: Ident,
        /// Its definition.
        expr: Expr,
    },
    /// `assert name: pattern [under F fairness]`
    Assert {
        /// The assertion's name.
        name: Ident,
        /// What it asserts.
        pattern: AssertPattern,
        /// `under F fairness`, if written: the word `F` (only `weak` is known) and the clause.
        fairness: Option<(Ident, Span)>,
    },
    /// `plan P ↦ File.Plan[(args)]` or `plan P ↦ host.name`
    Plan {
        /// The plan's name in the agent.
        name: Ident,
        /// What runs.
        target: PlanTarget,
        /// Arguments passed when it starts (values only).
        args: Vec<Expr>,
    },
}

/// The patterns of an `assert` (`docs/language.md` §3), each over conditions.
#[derive(Clone, Debug, PartialEq)]
pub enum AssertPattern {
    /// `always φ`
    Always(Arc<Expr>),
    /// `never φ`
    Never(Arc<Expr>),
    /// `eventually φ`
    Eventually(Arc<Expr>),
    /// `φ leads to ψ`
    LeadsTo(Arc<Expr>, Arc<Expr>),
    /// `ψ precedes φ` (in source order: the first condition, then the second)
    Precedes(Arc<Expr>, Arc<Expr>),
}

impl AssertPattern {
    /// Its conditions, in source order.
    pub fn conds(&self) -> Vec<&Arc<Expr>> {
        match self {
            AssertPattern::Always(c) | AssertPattern::Never(c) | AssertPattern::Eventually(c) => {
                vec![c]
            }
            AssertPattern::LeadsTo(a, b) | AssertPattern::Precedes(a, b) => vec![a, b],
        }
    }

    /// Whether it is a safety pattern (always, never, precedes), which fairness does not change.
    pub fn is_safety(&self) -> bool {
        matches!(
            self,
            AssertPattern::Always(_) | AssertPattern::Never(_) | AssertPattern::Precedes(..)
        )
    }

    /// Its keyword, as the pattern is named (`always`, `leads to`, …).
    pub fn keyword(&self) -> &'static str {
        match self {
            AssertPattern::Always(_) => "always",
            AssertPattern::Never(_) => "never",
            AssertPattern::Eventually(_) => "eventually",
            AssertPattern::LeadsTo(..) => "leads to",
            AssertPattern::Precedes(..) => "precedes",
        }
    }
}

// ---------------------------------------------------------------- .hk

/// A parsed `.hk` file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PlanFile {
    /// The plans it declares, in order.
    pub plans: Vec<PlanDecl>,
}

/// `plan Name(params) : Agent ≔ P` or `plan Name(params) : Agent { … }`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanDecl {
    /// The plan's name.
    pub name: Ident,
    /// Its parameters.
    pub params: Vec<Param>,
    /// The agent whose beliefs it changes.
    pub agent: Option<Ident>,
    /// Channels declared inside the plan (`parts : chan Int`).
    pub channels: Vec<Param>,
    /// Its process (`≔ P` or `body ≔ P`).
    pub body: Option<Proc>,
    /// `on stop`, `on resume`, `on abort` handlers.
    pub handlers: Vec<Handler>,
    /// The whole declaration.
    pub span: Span,
}

/// Which command a handler answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandlerKind {
    /// `on stop`
    Stop,
    /// `on resume`
    Resume,
    /// `on abort`
    Abort,
}

/// `on stop|resume|abort ≔ P`.
#[derive(Clone, Debug, PartialEq)]
pub struct Handler {
    /// Which command.
    pub kind: HandlerKind,
    /// What runs.
    pub body: Proc,
    /// The whole handler.
    pub span: Span,
}

/// A process.
#[derive(Clone, Debug, PartialEq)]
pub struct Proc {
    /// What it is.
    pub kind: ProcKind,
    /// Where.
    pub span: Span,
}

/// The plan commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// `stop l`
    Stop,
    /// `resume l`
    Resume,
    /// `abort l`
    Abort,
    /// `restart l`
    Restart,
}

impl Command {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Command::Stop => "stop",
            Command::Resume => "resume",
            Command::Abort => "abort",
            Command::Restart => "restart",
        }
    }
}

/// `when lit ↦ P` in a match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchArm {
    /// The literal matched.
    pub pattern: Expr,
    /// What runs.
    pub body: Proc,
    /// The whole arm.
    pub span: Span,
}

/// The kinds of process (`language.md` §2).
#[derive(Clone, Debug, PartialEq)]
pub enum ProcKind {
    /// `P ‖ Q ‖ …`
    Parallel(Vec<Proc>),
    /// `P □ Q □ …`
    Choice(Vec<Proc>),
    /// `P △ Q` (right-associative)
    Interrupt(Box<Proc>, Box<Proc>),
    /// `l : P`
    Labelled(Ident, Box<Proc>),
    /// `P ; Q ; …`
    Seq(Vec<Proc>),
    /// `e → c`
    Send {
        /// The value sent (boxed: keeps every `Proc` small).
        value: Box<Expr>,
        /// The channel.
        chan: Ident,
    },
    /// `x ← c`
    Recv {
        /// The variable bound.
        var: Ident,
        /// The channel.
        chan: Ident,
    },
    /// `believe a`
    Believe(Atom),
    /// `forget a`
    Forget(Atom),
    /// `tell j a`
    Tell {
        /// The agent told.
        agent: Ident,
        /// What it is told (boxed: keeps every `Proc` small).
        atom: Box<Atom>,
    },
    /// `stop l`, `resume l`, `abort l`, `restart l` (`l` may be `self`)
    Command {
        /// Which command.
        command: Command,
        /// Its target label.
        target: Ident,
    },
    /// `SKIP`
    Skip,
    /// `STOP`
    Stop,
    /// `Name(args)`: a call of a plan of the same file.
    Call {
        /// The plan.
        plan: Ident,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `match e { when lit ↦ P … other ↦ P }`
    Match {
        /// The value matched (boxed: keeps every `Proc` small).
        scrutinee: Box<Expr>,
        /// The `when` arms.
        arms: Vec<MatchArm>,
        /// The `other` arm.
        other: Option<Box<Proc>>,
    },
    /// Unparseable (a syntax error was reported).
    Error,
}

// ---------------------------------------------------------------- .hb

/// A parsed `.hb` file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ValuesFile {
    /// Its `values Agent { … }` blocks.
    pub blocks: Vec<ValuesBlock>,
}

/// `values Agent { option …  value …  policy … }`.
#[derive(Clone, Debug, PartialEq)]
pub struct ValuesBlock {
    /// The agent whose choices these values order.
    pub agent: Ident,
    /// `option P ≔ e` lines.
    pub options: Vec<OptionDecl>,
    /// `value v ≔ e` lines: named helpers the options may use.
    pub values: Vec<ValueDecl>,
    /// `policy name(k = v, …)`, if written.
    pub policies: Vec<PolicyDecl>,
    /// The whole block.
    pub span: Span,
}

/// `option P ≔ e`: the value of choosing plan `P`.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionDecl {
    /// The plan.
    pub plan: Ident,
    /// Its value.
    pub expr: Expr,
    /// The whole line.
    pub span: Span,
}

/// `value v ≔ e` in `.hb`.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueDecl {
    /// The name.
    pub name: Ident,
    /// The definition.
    pub expr: Expr,
    /// The whole line.
    pub span: Span,
}

/// `policy name(k = v, …)`.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyDecl {
    /// `greedy`, `epsilon_greedy`, `softmax` or `ucb` (checked later).
    pub name: Ident,
    /// Named arguments.
    pub args: Vec<(Ident, Expr)>,
    /// The whole line.
    pub span: Span,
}

/// The tree of one file, whatever its dialect.
#[derive(Clone, Debug, PartialEq)]
pub enum Module {
    /// A `.ha` file.
    Agents(AgentFile),
    /// A `.hk` file.
    Plans(PlanFile),
    /// A `.hb` file.
    Values(ValuesFile),
}
