//! The resolved program: every agent, plan file and values block with its names resolved to
//! indices, for the stages after checking (lowering to the IR, exploration, the runtime).
//!
//! Conditions and expressions are kept as the syntax trees the user wrote ([`Expr`]); the
//! names they use have been checked, so a later stage may look them up in the tables here
//! without failing. Entries that did not resolve (after an error) are `None` or
//! [`BindingTarget::Unresolved`]; a stage should only run on a program whose check reported no
//! error.

use crate::source::{FileId, Span};
use crate::syntax::ast::{Expr, Polarity};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A checked type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// Mathematical integers.
    Int,
    /// Strings.
    String,
    /// Booleans.
    Bool,
    /// Decimal numbers (`.hb` and `value` only).
    Float,
    /// A channel carrying values of the inner type.
    Chan(Box<Ty>),
    /// Unknown after an error (checks involving it are silent).
    Error,
}

impl Ty {
    /// Whether this is `Int` or `Float`.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Float)
    }
}

impl Ty {
    /// The type with its indefinite article, for messages: "an Int", "a String".
    pub fn with_article(&self) -> String {
        match self {
            Ty::Int | Ty::Error => format!("an {self}"),
            _ => format!("a {self}"),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int => f.write_str("Int"),
            Ty::String => f.write_str("String"),
            Ty::Bool => f.write_str("Bool"),
            Ty::Float => f.write_str("Float"),
            Ty::Chan(t) => write!(f, "chan {t}"),
            Ty::Error => f.write_str("{unknown}"),
        }
    }
}

/// A named, typed slot: a belief field, an agent or plan parameter, a plan's channel.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Ty,
    /// Where it is declared.
    pub span: Span,
}

/// The whole project, resolved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// Every agent (the first of each name), in file order.
    pub agents: Vec<AgentInfo>,
    /// Every `.hk` file (the first of each stem), in file order.
    pub plan_files: Vec<PlanFileInfo>,
    /// Every `values` block (the first for each agent), in file order.
    pub values: Vec<ValuesInfo>,
    /// Where each agent name, plan file stem and plan file is in `agents` and `plan_files`
    /// (the first of each stem), so that a project of 10,000 files resolves in linear time.
    index: Index,
}

/// The lookup tables of a [`Program`], kept by [`Program::add_agent`] and
/// [`Program::add_plan_file`].
#[derive(Clone, Debug, Default, PartialEq)]
struct Index {
    agents: HashMap<String, usize>,
    stems: HashMap<String, usize>,
    files: HashMap<FileId, usize>,
}

impl Program {
    /// The agent with this name.
    pub fn agent(&self, name: &str) -> Option<(AgentId, &AgentInfo)> {
        let i = *self.index.agents.get(name)?;
        Some((AgentId(i), &self.agents[i]))
    }

    /// Adds an agent (the first of its name is the one [`Program::agent`] finds).
    pub fn add_agent(&mut self, agent: AgentInfo) {
        let i = self.agents.len();
        self.index.agents.entry(agent.name.clone()).or_insert(i);
        self.agents.push(agent);
    }

    /// Adds a plan file (the first of its stem is the one [`Program::plan_file`] finds).
    pub fn add_plan_file(&mut self, file: PlanFileInfo) {
        let i = self.plan_files.len();
        self.index.stems.entry(file.stem.clone()).or_insert(i);
        self.index.files.entry(file.file).or_insert(i);
        self.plan_files.push(file);
    }

    /// The index in `plan_files` of the plan file with this stem.
    pub fn plan_file_index(&self, stem: &str) -> Option<usize> {
        self.index.stems.get(stem).copied()
    }

    /// The plan file with this stem.
    pub fn plan_file(&self, stem: &str) -> Option<&PlanFileInfo> {
        Some(&self.plan_files[self.plan_file_index(stem)?])
    }

    /// The plan file that is this file.
    pub fn plan_file_of(&self, file: FileId) -> Option<&PlanFileInfo> {
        Some(&self.plan_files[*self.index.files.get(&file)?])
    }

    /// The plan a [`PlanRef`] points at.
    pub fn plan(&self, r: PlanRef) -> Option<&PlanInfo> {
        self.plan_file_of(r.file)?.plans.get(r.index)
    }
}

/// Index of an agent in [`Program::agents`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId(pub usize);

/// A plan: its `.hk` file and its index in that file's [`PlanFileInfo::plans`] (which is also
/// its index in the file's syntax tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlanRef {
    /// The file.
    pub file: FileId,
    /// The plan's index in the file.
    pub index: usize,
}

/// The commitment strategy of an agent (the seed's three).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommitmentStrategy {
    /// Drops an intention only when it believes the goal achieved.
    Blind,
    /// Also drops it when it believes the goal impossible.
    SingleMinded,
    /// Drops it when it no longer desires it.
    OpenMinded,
}

impl CommitmentStrategy {
    /// The strategies and their keywords.
    pub const ALL: [(&'static str, CommitmentStrategy); 3] = [
        ("blind", CommitmentStrategy::Blind),
        ("single_minded", CommitmentStrategy::SingleMinded),
        ("open_minded", CommitmentStrategy::OpenMinded),
    ];
}

/// A checked agent.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentInfo {
    /// Its name.
    pub name: String,
    /// Where its name is written.
    pub span: Span,
    /// The `.ha` file.
    pub file: FileId,
    /// Its index among the agents of that file's syntax tree.
    pub index: usize,
    /// Its parameters (constants in every condition).
    pub params: Vec<Field>,
    /// Its beliefs.
    pub beliefs: Vec<BeliefInfo>,
    /// Its desires.
    pub desires: Vec<DesireInfo>,
    /// Its commitment strategy (`None` after an error).
    pub commit: Option<CommitmentStrategy>,
    /// Its attentions.
    pub attentions: Vec<AttentionInfo>,
    /// `when φ attend A` rules.
    pub attends: Vec<AttendRule>,
    /// `intend P for D when φ` rules.
    pub intends: Vec<IntendRule>,
    /// `reward P ± when φ` rules.
    pub rewards: Vec<RewardRule>,
    /// `value v ≔ e` definitions.
    pub values: Vec<ValueInfo>,
    /// `plan P ↦ …` bindings.
    pub bindings: Vec<BindingInfo>,
    /// `assert` members, in source order.
    pub asserts: Vec<AssertRule>,
}

impl AgentInfo {
    /// The belief with this name.
    pub fn belief(&self, name: &str) -> Option<usize> {
        self.beliefs.iter().position(|b| b.name == name)
    }

    /// The desire with this name.
    pub fn desire(&self, name: &str) -> Option<usize> {
        self.desires.iter().position(|d| d.name == name)
    }

    /// The attention with this name.
    pub fn attention(&self, name: &str) -> Option<usize> {
        self.attentions.iter().position(|a| a.name == name)
    }

    /// The plan binding with this name.
    pub fn binding(&self, name: &str) -> Option<usize> {
        self.bindings.iter().position(|b| b.name == name)
    }

    /// The parameter with this name.
    pub fn param(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// The value with this name.
    pub fn value(&self, name: &str) -> Option<usize> {
        self.values.iter().position(|v| v.name == name)
    }
}

/// `belief f(x: T, …)`.
#[derive(Clone, Debug, PartialEq)]
pub struct BeliefInfo {
    /// The belief's name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
    /// Its fields.
    pub fields: Vec<Field>,
}

/// `desire D [priority N] reachable by [P, …]` and its rules.
#[derive(Clone, Debug, PartialEq)]
pub struct DesireInfo {
    /// The desire's name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
    /// Its priority (default 0).
    pub priority: i64,
    /// The plan bindings that may serve it (indices into [`AgentInfo::bindings`]).
    pub reachable_by: Vec<usize>,
    /// Its `achieved` conditions (the desire is achieved when any holds).
    pub achieved: Vec<Arc<Expr>>,
    /// Its `impossible` rules.
    pub impossible: Vec<ImpossibleRule>,
    /// `under weak fairness`: its liveness is over the weakly fair paths.
    pub fair: bool,
}

/// `assert name: pattern [under weak fairness]`.
#[derive(Clone, Debug, PartialEq)]
pub struct AssertRule {
    /// The assertion's name.
    pub name: String,
    /// Where its name is written.
    pub span: Span,
    /// What it asserts (the syntax tree's conditions, shared).
    pub pattern: crate::syntax::ast::AssertPattern,
    /// `under weak fairness`.
    pub fair: bool,
}

/// `impossible D when φ because "…"`.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpossibleRule {
    /// The condition (the syntax tree's own, shared).
    pub cond: Arc<Expr>,
    /// The reason a person can read.
    pub because: String,
}

/// `attention A [initially]`.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionInfo {
    /// Its name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
    /// Whether it is the initial attention.
    pub initially: bool,
}

/// `when φ attend A`.
#[derive(Clone, Debug, PartialEq)]
pub struct AttendRule {
    /// The condition (the syntax tree's own, shared).
    pub cond: Arc<Expr>,
    /// The attention (index into [`AgentInfo::attentions`]).
    pub attention: usize,
}

/// `intend P for D when φ`.
#[derive(Clone, Debug, PartialEq)]
pub struct IntendRule {
    /// The plan binding (index into [`AgentInfo::bindings`]).
    pub binding: usize,
    /// The desire (index into [`AgentInfo::desires`]).
    pub desire: usize,
    /// The condition (the syntax tree's own, shared).
    pub cond: Arc<Expr>,
}

/// `reward P positive|negative when φ`.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardRule {
    /// The plan binding (index into [`AgentInfo::bindings`]).
    pub binding: usize,
    /// Positive or negative.
    pub polarity: Polarity,
    /// The condition (the syntax tree's own, shared).
    pub cond: Arc<Expr>,
}

/// `value v ≔ e`.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueInfo {
    /// Its name.
    pub name: String,
    /// Its definition.
    pub expr: Expr,
    /// `Int`, `Float` (or `Error`).
    pub ty: Ty,
}

/// `plan P ↦ …`.
#[derive(Clone, Debug, PartialEq)]
pub struct BindingInfo {
    /// The plan's name in the agent.
    pub name: String,
    /// Where the binding is written.
    pub span: Span,
    /// What runs.
    pub target: BindingTarget,
    /// The arguments passed when it starts (constants over literals and agent parameters).
    pub args: Vec<Expr>,
}

/// What a binding runs.
#[derive(Clone, Debug, PartialEq)]
pub enum BindingTarget {
    /// A plan of a `.hk` file.
    Plan(PlanRef),
    /// A host function registered with the runtime.
    Host(String),
    /// Did not resolve (an error was reported).
    Unresolved,
}

/// A checked `.hk` file.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanFileInfo {
    /// The file.
    pub file: FileId,
    /// Its stem (`Line`), the name bindings use.
    pub stem: String,
    /// Its plans, in the order of the syntax tree.
    pub plans: Vec<PlanInfo>,
}

/// A checked plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanInfo {
    /// Its name.
    pub name: String,
    /// Where its name is written.
    pub span: Span,
    /// Its parameters.
    pub params: Vec<Field>,
    /// The channels it declares.
    pub channels: Vec<Field>,
    /// Its agent (`None` after an error).
    pub agent: Option<AgentId>,
    /// The labels it declares (body and handlers), in source order.
    pub labels: Vec<String>,
    /// Whether it is a duplicate of an earlier plan of the same name (ignored by resolution).
    pub duplicate: bool,
}

/// A checked `values` block.
#[derive(Clone, Debug, PartialEq)]
pub struct ValuesInfo {
    /// The `.hb` file.
    pub file: FileId,
    /// The block's index in that file.
    pub index: usize,
    /// The agent whose choices it orders.
    pub agent: Option<AgentId>,
    /// `option P ≔ e`: the binding (index into the agent's bindings) and its value.
    pub options: Vec<(usize, Expr)>,
    /// `value v ≔ e` helpers.
    pub values: Vec<(String, Expr)>,
    /// The policy (default greedy).
    pub policy: Policy,
}

/// How licensed options are chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Policy {
    /// The highest value.
    Greedy,
    /// The highest value, or a uniformly random licensed option with probability `epsilon`.
    EpsilonGreedy {
        /// In \[0, 1\].
        epsilon: f64,
    },
    /// Boltzmann over values.
    Softmax {
        /// Greater than 0.
        temperature: f64,
    },
    /// Upper confidence bound.
    Ucb {
        /// At least 0.
        c: f64,
    },
}
