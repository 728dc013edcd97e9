//! The core IR: each agent theory and each plan network, lowered to a small explicit form that
//! the explorer, the kernel and the runtime all read. Plain data: no behaviour beyond lookups.
//!
//! A [`Network`] is one scene `scene(call(Plan), empty)`: the plan an agent binds, started with
//! no beliefs. Its code is a set of [`PlanCode`]s (the plans it can reach) whose bodies are
//! trees of [`Node`]s in one arena. Variables are slots of a plan instance's environment;
//! channels are values created when an instance starts. The meaning of the IR is the reference
//! semantics in the kernel and `docs/semantics.md`.

use serde::{Deserialize, Deserializer, Serialize};
use std::cell::Cell;

/// How deeply the recursive parts of the IR (types, conditions, expressions) may nest in bytes
/// being decoded. Decoding is recursive, so without a bound a few kilobytes of nesting would
/// overflow the stack; the parser bounds source nesting at 200, so real IR stays below this.
pub const MAX_NESTING: u32 = 256;

thread_local! {
    static NESTING: Cell<u32> = const { Cell::new(0) };
    static TOO_DEEP: Cell<bool> = const { Cell::new(false) };
}

/// Whether the last decoding on this thread stopped at [`MAX_NESTING`] (postcard keeps no
/// message of its own errors, so the decoder asks); clears the flag.
pub fn nesting_exceeded() -> bool {
    TOO_DEEP.with(|t| t.replace(false))
}

/// Decodes one level of a recursive part of the IR, refusing nesting deeper than
/// [`MAX_NESTING`].
fn nested<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    let depth = NESTING.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let result = if depth > MAX_NESTING {
        TOO_DEEP.with(|t| t.set(true));
        Err(serde::de::Error::custom(format!(
            "the IR nests deeper than {MAX_NESTING} levels"
        )))
    } else {
        T::deserialize(d)
    };
    NESTING.with(|n| n.set(n.get() - 1));
    result
}

/// The whole lowered project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Ir {
    /// Every agent, in source order.
    pub agents: Vec<Agent>,
    /// Every plan network to explore: one per plan binding that names a `.hk` plan.
    pub networks: Vec<Network>,
}

/// Index of an agent in [`Ir::agents`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AgentId(pub u32);

/// Index of a belief (predicate) in its agent's [`Agent::beliefs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BeliefId(pub u32);

/// Index of a plan in [`Network::plans`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PlanId(pub u32);

/// Index of a node in [`Network::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeId(pub u32);

/// Index of a variable in a plan instance's environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Slot(pub u32);

/// Index of a label in [`PlanCode::labels`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LabelId(pub u32);

/// The types of values.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Type {
    /// Mathematical integers (the explorer bounds them; passing the bound is reported).
    Int,
    /// Strings.
    Str,
    /// Booleans.
    Bool,
    /// A channel carrying values of the inner type.
    Chan(#[serde(deserialize_with = "nested")] Box<Type>),
}

/// A literal value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Literal {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
}

/// The commitment strategy of an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CommitmentStrategy {
    /// Drops an intention only when it believes the goal achieved.
    Blind,
    /// Also drops it when it believes the goal impossible.
    SingleMinded,
    /// Also drops it when it no longer desires the goal.
    OpenMinded,
}

// ------------------------------------------------------------------ agents

/// An agent theory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// Its name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<(String, Type)>,
    /// The parameters' values this IR was lowered with (`--param`, a scenario's `params`, the
    /// host's), one per parameter: a value given is written into every rule as a literal; a
    /// parameter with no value is read as [`PatternArg::Param`] / [`CondTerm::Param`], which
    /// no evaluation can decide.
    pub args: Vec<Option<Literal>>,
    /// Its beliefs (predicates) with their field types.
    pub beliefs: Vec<Belief>,
    /// Its desires.
    pub desires: Vec<Desire>,
    /// Its commitment strategy.
    pub commit: CommitmentStrategy,
    /// Its attentions; the first is the initial one.
    pub attentions: Vec<String>,
    /// Its plan bindings: the names its rules use, and what each runs.
    pub plans: Vec<Binding>,
    /// `intend P for D when φ`.
    pub intends: Vec<Intend>,
    /// `when φ attend A`: the condition and the attention (index into `attentions`).
    pub attends: Vec<(Cond, u32)>,
    /// `reward P positive|negative when φ`.
    pub rewards: Vec<Reward>,
    /// The `.hb` values that order its licensed choices, if it has any.
    pub values: Option<Values>,
    /// `assert name: …`: properties of every network of the agent (`docs/language.md` §3),
    /// each a theorem `<Plan>_assert_<name>`. Appended last, so that every earlier field keeps
    /// its place.
    pub asserts: Vec<Assert>,
}

/// `assert name: pattern [under weak fairness]`: a property every network of the agent must
/// have, over the network's states (`docs/semantics.md`, *Assertions*).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assert {
    /// Its name (the theorem is `<Plan>_assert_<name>`).
    pub name: String,
    /// What it asserts.
    pub property: Property,
    /// `under weak fairness`: a response or existence property holds on the weakly fair paths
    /// only (`false` for the safety patterns, which fairness does not change).
    pub fair: bool,
}

/// The property patterns of an `assert` (Dwyer, Avrunin and Corbett's, global scope), each
/// over conditions read in one state: its beliefs, the attention they give, and the mental
/// tests [`Cond::Desires`] and [`Cond::Intends`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Property {
    /// `always φ`: φ holds in every reachable state.
    Always(Cond),
    /// `never φ`: φ holds in no reachable state.
    Never(Cond),
    /// `φ leads to ψ`: on every maximal path, every state where φ holds is followed (itself
    /// included) by one where ψ holds.
    LeadsTo(Cond, Cond),
    /// `ψ precedes φ` (written in that order; the first is ψ): on every path, no state where
    /// φ holds comes before the first where ψ holds (a state with both is fine).
    Precedes(Cond, Cond),
    /// `eventually φ`: every maximal path from the scene reaches a state where φ holds.
    Eventually(Cond),
}

impl Property {
    /// Its conditions, in source order.
    pub fn conds(&self) -> Vec<&Cond> {
        match self {
            Property::Always(c) | Property::Never(c) | Property::Eventually(c) => vec![c],
            Property::LeadsTo(a, b) | Property::Precedes(a, b) => vec![a, b],
        }
    }

    fn conds_mut(&mut self) -> Vec<&mut Cond> {
        match self {
            Property::Always(c) | Property::Never(c) | Property::Eventually(c) => vec![c],
            Property::LeadsTo(a, b) | Property::Precedes(a, b) => vec![a, b],
        }
    }
}

/// A `.hb` block, compiled: one value formula per option and the policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Values {
    /// `option P ≔ e`: the binding (index into [`Agent::plans`]) and its formula. A binding with
    /// no option has value 0.
    pub options: Vec<(u32, ValueProgram)>,
    /// How licensed options are chosen.
    pub policy: PolicyIr,
}

/// A value formula as a postfix program over a stack of numbers. Evaluated for a whole batch of
/// agent states at once, one array pass per instruction (the "tensor" form).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ValueProgram {
    /// The instructions, in order.
    pub ops: Vec<ValueOp>,
}

/// One instruction of a [`ValueProgram`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueOp {
    /// Push a constant (the bits of an `f64`).
    Const(u64),
    /// Push a feature: the largest value of field `field` over the believed atoms of `belief`
    /// (0 when none is believed).
    Feature {
        /// The predicate.
        belief: BeliefId,
        /// The field's index.
        field: u32,
    },
    /// Push the value learned from the rewards of a plan binding (the mean of its rewards).
    Learned(u32),
    /// Pop b, a; push a + b.
    Add,
    /// Pop b, a; push a − b.
    Sub,
    /// Pop b, a; push a × b.
    Mul,
    /// Pop b, a; push a ÷ b.
    Div,
    /// Pop a; push −a.
    Neg,
    /// Pop b, a; push the remainder of a ÷ b, with the sign of a (`7.5 % 2` is 1.5, `-7 % 2`
    /// is −1). Appended last, so that every earlier operation keeps its encoding.
    Rem,
    /// Push agent parameter `i` (an index into [`Agent::params`]), read by a formula when the
    /// build gave it no value. A run gives every parameter its values read a value and lowers
    /// them as constants, so a run never evaluates one. Appended last, like `Rem`.
    Param(u32),
}

/// The policies (parameters as `f64` bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PolicyIr {
    /// The highest value.
    Greedy,
    /// The highest value, or a uniformly random licensed option with probability ε.
    EpsilonGreedy(u64),
    /// Boltzmann over values with a temperature.
    Softmax(u64),
    /// UCB1 with exploration constant c.
    Ucb(u64),
}

/// `intend P for D when φ`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intend {
    /// The plan (index into [`Agent::plans`]).
    pub plan: u32,
    /// The desire (index into [`Agent::desires`]).
    pub desire: u32,
    /// The condition.
    pub cond: Cond,
}

/// `reward P positive|negative when φ`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reward {
    /// The plan credited (index into [`Agent::plans`]).
    pub plan: u32,
    /// Positive or negative.
    pub positive: bool,
    /// The condition.
    pub cond: Cond,
}

/// A belief predicate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Belief {
    /// The predicate's name.
    pub name: String,
    /// Its fields' names and types.
    pub fields: Vec<(String, Type)>,
}

/// A desire and the rules that release it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Desire {
    /// Its name.
    pub name: String,
    /// Its priority (default 0).
    pub priority: i64,
    /// Indices into [`Agent::plans`] of the plans that may serve it.
    pub reachable_by: Vec<u32>,
    /// `achieved D when φ`: the desire is achieved when any of these holds.
    pub achieved: Vec<Cond>,
    /// `impossible D when φ because …`.
    pub impossible: Vec<(Cond, String)>,
    /// Agent parameters its conditions mention: their values are not known at build time, so
    /// obligations about this desire cannot be decided by exploring a scene.
    pub params_used: Vec<String>,
    /// `under weak fairness`: its liveness holds on the weakly fair paths only (no process
    /// enabled from some point on is ignored forever). Appended last.
    pub fair: bool,
}

/// A plan binding `plan P ↦ …`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// The plan's name in the agent.
    pub name: String,
    /// The network it starts, or `None` for host code.
    pub network: Option<u32>,
    /// For host code, the registered name.
    pub host: Option<String>,
}

/// A condition over an agent's beliefs (and attention): the `when` of the `.ha` rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cond {
    /// Always true.
    True,
    /// Always false.
    False,
    /// The agent believes an atom matching the pattern (binding its fresh variables).
    Believes(Pattern),
    /// Another agent is believed to believe an atom: `B(j) f(…)` in the teller's beliefs.
    Told(AgentId, Pattern),
    /// The agent's attention is the given one (index into [`Agent::attentions`]).
    Attending(u32),
    /// A comparison of integer terms over bound variables and constants.
    Compare(CompareOp, CondTerm, CondTerm),
    /// Negation (binds nothing).
    Not(#[serde(deserialize_with = "nested")] Box<Cond>),
    /// Conjunction, left to right: bindings of the left are visible on the right.
    And(#[serde(deserialize_with = "nested")] Vec<Cond>),
    /// Disjunction.
    Or(#[serde(deserialize_with = "nested")] Vec<Cond>),
    /// `desires D` (only in an `assert`): the desire (index into [`Agent::desires`]) is not
    /// released in this state — none of its `achieved` conditions holds, nor, for a
    /// `single_minded` agent, its `impossible` ones (`docs/frames.md` §1, `desired`). Appended
    /// last, so that every earlier variant keeps its encoding.
    Desires(u32),
    /// `intends P` (only in an `assert`): some `intend P for D` rule names the binding (index
    /// into [`Agent::plans`]) and D is not released in this state (`docs/frames.md` §1,
    /// `intended`).
    Intends(u32),
}

/// A belief pattern `f(a, …)` in a condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pattern {
    /// The predicate.
    pub belief: BeliefId,
    /// One per field.
    pub args: Vec<PatternArg>,
}

/// One argument of a belief pattern.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PatternArg {
    /// `_`
    Any,
    /// A constant to equal.
    Literal(Literal),
    /// A variable of the condition: bound by its first positive occurrence, compared after.
    Var(u32),
    /// An agent parameter that has no value (index into [`Agent::params`]).
    Param(u32),
}

impl CommitmentStrategy {
    /// Its keyword in `.ha` (`commit single_minded`).
    pub fn keyword(self) -> &'static str {
        match self {
            CommitmentStrategy::Blind => "blind",
            CommitmentStrategy::SingleMinded => "single_minded",
            CommitmentStrategy::OpenMinded => "open_minded",
        }
    }
}

impl Agent {
    /// The name of parameter `i`, for messages (`#i` when there is none: hostile input).
    pub fn param_name(&self, i: u32) -> String {
        self.params
            .get(i as usize)
            .map_or_else(|| format!("#{i}"), |(n, _)| n.clone())
    }
}

impl Desire {
    /// The first agent parameter with no value its `achieved` or `impossible` conditions read,
    /// derived from the conditions themselves (what `params_used` names, without trusting it).
    pub fn unset_param(&self) -> Option<u32> {
        self.achieved
            .iter()
            .chain(self.impossible.iter().map(|(c, _)| c))
            .find_map(Cond::unset_param)
    }
}

impl Agent {
    /// Calls `f` on every condition of the agent's rules.
    fn for_each_cond(&self, f: &mut dyn FnMut(&Cond)) {
        self.intends.iter().for_each(|r| f(&r.cond));
        self.attends.iter().for_each(|(c, _)| f(c));
        self.rewards.iter().for_each(|r| f(&r.cond));
        for d in &self.desires {
            d.achieved.iter().for_each(&mut *f);
            d.impossible.iter().for_each(|(c, _)| f(c));
        }
        self.asserts
            .iter()
            .for_each(|a| a.property.conds().into_iter().for_each(&mut *f));
    }

    /// Calls `f` on every condition of the agent's rules, to change it.
    fn for_each_cond_mut(&mut self, f: &mut dyn FnMut(&mut Cond)) {
        self.intends.iter_mut().for_each(|r| f(&mut r.cond));
        self.attends.iter_mut().for_each(|(c, _)| f(c));
        self.rewards.iter_mut().for_each(|r| f(&mut r.cond));
        for d in &mut self.desires {
            d.achieved.iter_mut().for_each(&mut *f);
            d.impossible.iter_mut().for_each(|(c, _)| f(c));
        }
        for a in &mut self.asserts {
            a.property.conds_mut().into_iter().for_each(&mut *f);
        }
    }
}

impl Agent {
    /// The first agent parameter with no value that an assertion's condition reads: itself,
    /// through the `achieved` or `impossible` conditions of a desire its `desires D` or
    /// `intends P` tests read (D, or the desires of P's intend rules), or through the
    /// attention. With one, no scene decides the condition.
    pub fn assert_unset_param(&self, cond: &Cond) -> Option<u32> {
        fn minded(agent: &Agent, c: &Cond, out: &mut Vec<u32>) {
            match c {
                Cond::Desires(d) => out.push(*d),
                Cond::Intends(p) => {
                    let rules = agent.intends.iter().filter(|i| i.plan == *p);
                    out.extend(rules.map(|i| i.desire))
                }
                Cond::Not(x) => minded(agent, x, out),
                Cond::And(xs) | Cond::Or(xs) => xs.iter().for_each(|x| minded(agent, x, out)),
                _ => {}
            }
        }
        let mut read = Vec::new();
        minded(self, cond, &mut read);
        let desire = |d: &u32| self.desires.get(*d as usize)?.unset_param();
        (cond.unset_param())
            .or_else(|| read.iter().find_map(desire))
            .or_else(|| {
                cond.reads_attention()
                    .then(|| self.attention_unset_param())?
            })
    }

    /// The first agent parameter with no value that a `when φ attend A` rule reads: with one,
    /// the attention of a state is not known (`docs/semantics.md`, Attention).
    pub fn attention_unset_param(&self) -> Option<u32> {
        self.attends.iter().find_map(|(c, _)| c.unset_param())
    }
}

impl Cond {
    /// Whether it reads the agent's attention (`attending A` anywhere inside).
    /// `desires D` and `intends P` count: their desires' conditions may read it.
    pub fn reads_attention(&self) -> bool {
        match self {
            Cond::Attending(_) | Cond::Desires(_) | Cond::Intends(_) => true,
            Cond::Not(c) => c.reads_attention(),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().any(Cond::reads_attention),
            _ => false,
        }
    }

    /// Pushes the agents its `B(j)` tests name.
    fn told_agents(&self, out: &mut Vec<u32>) {
        match self {
            Cond::Told(a, _) => out.push(a.0),
            Cond::Not(c) => c.told_agents(out),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|c| c.told_agents(out)),
            _ => {}
        }
    }

    /// Renames the agents its `B(j)` tests name.
    fn rename_agents(&mut self, new_id: &dyn Fn(AgentId) -> AgentId) {
        match self {
            Cond::Told(a, _) => *a = new_id(*a),
            Cond::Not(c) => c.rename_agents(new_id),
            Cond::And(cs) | Cond::Or(cs) => cs.iter_mut().for_each(|c| c.rename_agents(new_id)),
            _ => {}
        }
    }
    /// The first agent parameter with no value that the condition reads, if any.
    pub fn unset_param(&self) -> Option<u32> {
        let mut out = Vec::new();
        self.unset_params(&mut out);
        out.first().copied()
    }

    /// Every agent parameter with no value the condition reads, in order (with repeats).
    pub fn unset_params(&self, out: &mut Vec<u32>) {
        fn term(t: &CondTerm, out: &mut Vec<u32>) {
            match t {
                CondTerm::Param(i) => out.push(*i),
                CondTerm::Literal(_) | CondTerm::Var(_) => {}
                CondTerm::Neg(a) => term(a, out),
                CondTerm::Arith(_, a, b) => {
                    term(a, out);
                    term(b, out);
                }
                CondTerm::Chain(a, rest) => {
                    term(a, out);
                    rest.iter().for_each(|(_, b)| term(b, out));
                }
            }
        }
        match self {
            Cond::True | Cond::False | Cond::Attending(_) | Cond::Desires(_) | Cond::Intends(_) => {
            }
            Cond::Believes(p) | Cond::Told(_, p) => {
                out.extend(p.args.iter().filter_map(|a| match a {
                    PatternArg::Param(i) => Some(*i),
                    _ => None,
                }))
            }
            Cond::Compare(_, a, b) => {
                term(a, out);
                term(b, out);
            }
            Cond::Not(c) => c.unset_params(out),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|c| c.unset_params(out)),
        }
    }
}

/// A term of a comparison in a condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CondTerm {
    /// A constant.
    Literal(Literal),
    /// A bound variable.
    Var(u32),
    /// An agent parameter that has no value (index into [`Agent::params`]).
    Param(u32),
    /// Arithmetic.
    Arith(
        ArithOp,
        #[serde(deserialize_with = "nested")] Box<CondTerm>,
        #[serde(deserialize_with = "nested")] Box<CondTerm>,
    ),
    /// Negation.
    Neg(#[serde(deserialize_with = "nested")] Box<CondTerm>),
    /// A chain of arithmetic, left to right: `Chain(a, [(+, b), (−, c)])` means
    /// `Arith(−, Arith(+, a, b), c)`. A long flat chain `a + b + …` in the source is one such
    /// term, one level deep whatever its length. Appended last, so that every earlier variant
    /// keeps its encoding.
    Chain(
        #[serde(deserialize_with = "nested")] Box<CondTerm>,
        #[serde(deserialize_with = "nested")] Vec<(ArithOp, CondTerm)>,
    ),
}

/// Comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CompareOp {
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
}

/// Integer arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (integer division rounding toward zero; by zero is an error state)
    Div,
    /// `%` (remainder; by zero is an error state)
    Rem,
}

// ------------------------------------------------------------------ networks

/// One plan network: the scene `scene(call(root), empty)` of a plan binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Network {
    /// The agent whose binding this is.
    pub agent: AgentId,
    /// The binding's name in the agent (`Work`).
    pub binding: String,
    /// The plan called (`Produce`), an index into `plans`.
    pub root: PlanId,
    /// The arguments the binding passes to the root plan.
    pub root_args: Vec<Literal>,
    /// The agent parameters (indices into [`Agent::params`]) the binding passes that have no
    /// value: their root arguments are placeholders, and the network is not explored or admitted.
    pub unset_params: Vec<u32>,
    /// The plans reachable from the root, each with its code.
    pub plans: Vec<PlanCode>,
    /// The plan instances that can exist, statically: instance 0 is the root; every other is
    /// started by one non-tail call node inside its parent. Channel values name their instance.
    pub instances: Vec<Instance>,
    /// The node arena of every plan's code.
    pub nodes: Vec<Node>,
}

/// A plan's code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCode {
    /// Its name (`Build`).
    pub name: String,
    /// The stem of its file (`Line`).
    pub file: String,
    /// Its parameters' types; parameter `i` is slot `i`.
    pub params: Vec<Type>,
    /// Its local channels: slot and element type. Each start of the plan makes fresh channels.
    pub channels: Vec<(Slot, Type)>,
    /// How many slots an instance's environment has (parameters, channels, received variables).
    pub slots: u32,
    /// Names of the slots, for counterexamples.
    pub slot_names: Vec<String>,
    /// Its labels' names.
    pub labels: Vec<String>,
    /// Its process.
    pub body: NodeId,
    /// `on stop`, `on resume`, `on abort`: processes over the parameters and channels.
    pub on_stop: Option<NodeId>,
    /// See `on_stop`.
    pub on_resume: Option<NodeId>,
    /// See `on_stop`.
    pub on_abort: Option<NodeId>,
}

/// The target of a plan command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Target {
    /// A label of the plan the command is in.
    Label(LabelId),
    /// `self`: the innermost enclosing plan instance.
    SelfInstance,
}

/// The plan commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Command {
    /// Suspend (after `on stop`).
    Stop,
    /// Continue (after `on resume`).
    Resume,
    /// End (after the `on abort` handlers, innermost first).
    Abort,
    /// Abort, then start afresh.
    Restart,
}

/// An argument of a call: a value, or a channel passed on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arg {
    /// A value.
    Value(Expr),
    /// The channel held in a slot of the caller.
    Chan(Slot),
}

/// An expression of a plan: over literals and the instance's slots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expr {
    /// A constant.
    Literal(Literal),
    /// A slot's value.
    Slot(Slot),
    /// Integer negation.
    Neg(#[serde(deserialize_with = "nested")] Box<Expr>),
    /// Boolean negation.
    Not(#[serde(deserialize_with = "nested")] Box<Expr>),
    /// Integer arithmetic.
    Arith(
        ArithOp,
        #[serde(deserialize_with = "nested")] Box<Expr>,
        #[serde(deserialize_with = "nested")] Box<Expr>,
    ),
    /// A comparison (integers ordered; any two values of one type compared for `=`/`≠`).
    Compare(
        CompareOp,
        #[serde(deserialize_with = "nested")] Box<Expr>,
        #[serde(deserialize_with = "nested")] Box<Expr>,
    ),
    /// Conjunction.
    And(
        #[serde(deserialize_with = "nested")] Box<Expr>,
        #[serde(deserialize_with = "nested")] Box<Expr>,
    ),
    /// Disjunction.
    Or(
        #[serde(deserialize_with = "nested")] Box<Expr>,
        #[serde(deserialize_with = "nested")] Box<Expr>,
    ),
    /// A chain of integer arithmetic, left to right: `Chain(a, [(+, b), (−, c)])` means
    /// `Arith(−, Arith(+, a, b), c)`, evaluated in that order (a, b, the `+`, c, the `−`), so
    /// that it fails where that tree fails. A long flat chain `a + b + …` in the source is one
    /// such expression, one level deep whatever its length. Appended last, so that every earlier
    /// variant keeps its encoding.
    Chain(
        #[serde(deserialize_with = "nested")] Box<Expr>,
        #[serde(deserialize_with = "nested")] Vec<(ArithOp, Expr)>,
    ),
}

/// An atom a plan believes, forgets or tells: a predicate and one expression per field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtomExpr {
    /// The predicate, in the agent that holds the belief (the plan's agent, or the one told).
    pub belief: BeliefId,
    /// The fields.
    pub args: Vec<Expr>,
}

/// A node of a plan's code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Node {
    /// `SKIP`: finish.
    Skip,
    /// `STOP`: never move.
    Stop,
    /// `e → c`: a communication.
    Send {
        /// The slot holding the channel.
        chan: Slot,
        /// The value sent (boxed, as are the other rare large fields: a node is 40 bytes, and a
        /// long plan has two per step).
        value: Box<Expr>,
    },
    /// `x ← c`: a communication.
    Recv {
        /// The slot holding the channel.
        chan: Slot,
        /// The slot the value is received into.
        var: Slot,
    },
    /// `believe a`: internal.
    Believe(AtomExpr),
    /// `forget a`: internal.
    Forget(AtomExpr),
    /// `tell j a`: internal; `index` numbers the plan's tells from 1 in source order.
    Tell {
        /// The agent told.
        agent: AgentId,
        /// What it is told (the predicate is `agent`'s).
        atom: Box<AtomExpr>,
        /// The teller's own predicate of the same name, if it declares one: tell feasibility asks
        /// that the teller believe the atom before telling it.
        own: Option<BeliefId>,
        /// The tell's number within its plan (for `_tell_feasible_<n>`).
        index: u32,
    },
    /// `stop l`, `resume l`, `abort l`, `restart l`: internal; lands after the step.
    Command {
        /// Which command.
        command: Command,
        /// Its target.
        target: Target,
    },
    /// `Name(args)`. A tail call replaces the running instance's plan and environment; any other
    /// call starts a child instance and continues when it ends.
    Call {
        /// The plan called.
        plan: PlanId,
        /// Its arguments.
        args: Vec<Arg>,
        /// Whether the call is in tail position of its plan's body.
        tail: bool,
    },
    /// `P ; Q`.
    Seq(NodeId, NodeId),
    /// `P ‖ Q ‖ …`.
    Par(Vec<NodeId>),
    /// `P □ Q □ …`.
    Choice(Vec<NodeId>),
    /// `P △ Q`.
    Interrupt(NodeId, NodeId),
    /// `l : P`.
    Label(LabelId, NodeId),
    /// `match e { when lit ↦ P … other ↦ Q }`: internal.
    Match {
        /// The value matched.
        scrutinee: Box<Expr>,
        /// The arms, in order.
        arms: Vec<(Literal, NodeId)>,
        /// The `other` arm.
        other: Option<NodeId>,
    },
}

impl Ir {
    /// The slice of network `n`: the IR a certificate of that network carries. It holds the
    /// network, renumbered as network 0, and the agents it needs — the network's own agent and
    /// every agent it or they name (a `tell`'s agent, a `B(j)` condition's), closed under naming,
    /// in the order of this IR — renumbered in that order. In the slice, the binding that starts
    /// the network names network 0 and every other binding names none. Everything the kernel
    /// reads to check network `n` is in it, so its obligations and their verdicts are those of
    /// network `n` here, and a certificate's size does not grow with the rest of the project.
    /// `None` when `n` or an agent it names is not in the IR.
    pub fn slice(&self, n: usize) -> Option<Ir> {
        let net = self.networks.get(n)?;
        let mut keep = vec![net.agent.0];
        let mut k = 0;
        let mut named = Vec::new();
        for node in &net.nodes {
            if let Node::Tell { agent, .. } = node {
                named.push(agent.0);
            }
        }
        loop {
            for a in named.drain(..) {
                if !keep.contains(&a) {
                    keep.push(a);
                }
            }
            let Some(&a) = keep.get(k) else { break };
            k += 1;
            let agent = self.agents.get(a as usize)?;
            agent.for_each_cond(&mut |c| c.told_agents(&mut named));
        }
        keep.sort_unstable();
        let new_id = |a: AgentId| AgentId(keep.binary_search(&a.0).map_or(u32::MAX, |i| i as u32));
        let mut agents = Vec::with_capacity(keep.len());
        for &a in &keep {
            let mut agent = self.agents[a as usize].clone();
            for b in &mut agent.plans {
                b.network = (a == net.agent.0 && b.network == Some(n as u32)).then_some(0);
            }
            agent.for_each_cond_mut(&mut |c| c.rename_agents(&new_id));
            agents.push(agent);
        }
        let mut net = net.clone();
        net.agent = new_id(net.agent);
        for node in &mut net.nodes {
            if let Node::Tell { agent, .. } = node {
                *agent = new_id(*agent);
            }
        }
        Some(Ir {
            agents,
            networks: vec![net],
        })
    }

    /// An atom as a person reads it: `made(3)`, or `B(Client) delivered(7)` for a told one.
    /// `holder` is the agent whose belief it is; `told` the agent told, if any.
    pub fn atom_text(
        &self,
        holder: AgentId,
        told: Option<AgentId>,
        belief: BeliefId,
        args: &[String],
    ) -> String {
        let agent = told.unwrap_or(holder);
        let pred = self
            .agents
            .get(agent.0 as usize)
            .and_then(|a| a.beliefs.get(belief.0 as usize))
            .map_or("?", |b| b.name.as_str());
        let core = format!("{pred}({})", args.join(", "));
        match told {
            None => core,
            Some(j) => format!(
                "B({}) {core}",
                self.agents
                    .get(j.0 as usize)
                    .map_or("?", |a| a.name.as_str())
            ),
        }
    }
}

/// A static plan instance: the root, or a non-tail call inside another instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    /// The instance it runs inside (`None` for the root).
    pub parent: Option<u32>,
    /// The call node that starts it inside its parent (`None` for the root).
    pub call: Option<NodeId>,
    /// A readable path for counterexamples, such as `Produce/Build`.
    pub name: String,
}

/// A value at run time.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
    /// A channel: the `index`-th local channel of `plan` in `instance`.
    Chan {
        /// The static instance that created it.
        instance: u32,
        /// The plan (of that instance) that declares it.
        plan: PlanId,
        /// Which of the plan's channels.
        index: u32,
    },
}

impl Value {
    /// The value of a literal.
    pub fn of(literal: &Literal) -> Value {
        match literal {
            Literal::Int(n) => Value::Int(*n),
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Str(s) => Value::Str(s.clone()),
        }
    }
}

impl Network {
    /// The readable name of a static instance (`Produce/Feed`).
    pub fn instance_name(&self, inst: u32) -> &str {
        self.instances
            .get(inst as usize)
            .map_or("?", |i| i.name.as_str())
    }

    /// A channel's name as its plan declares it (`parts`), prefixed by its instance's name when
    /// that is not the scene's plan.
    pub fn channel_name(&self, chan: &Value) -> String {
        let Value::Chan {
            plan,
            index,
            instance,
        } = chan
        else {
            return self.show_value(chan);
        };
        let base = self
            .plans
            .get(plan.0 as usize)
            .and_then(|code| {
                let (slot, _) = code.channels.get(*index as usize)?;
                code.slot_names.get(slot.0 as usize).cloned()
            })
            .unwrap_or_else(|| format!("chan{index}"));
        if *instance == 0 {
            base
        } else {
            format!("{}.{base}", self.instance_name(*instance))
        }
    }

    /// How a person reads a τ-step of instance `inst` (`u32::MAX`: a choice's finished
    /// alternative): the process, and `τ`.
    pub fn describe_tau(&self, inst: u32) -> (String, String) {
        match inst {
            u32::MAX => ("(choice)".into(), "τ".into()),
            _ => (self.instance_name(inst).to_string(), "τ".into()),
        }
    }

    /// How a person reads a rendezvous: the two processes, and `channel.value`.
    pub fn describe_sync(
        &self,
        sender: u32,
        receiver: u32,
        chan: &Value,
        v: &Value,
    ) -> (String, String) {
        let who = format!(
            "{} → {}",
            self.instance_name(sender),
            self.instance_name(receiver)
        );
        (
            who,
            format!("{}.{}", self.channel_name(chan), self.show_value(v)),
        )
    }

    /// A value as the source would write it.
    pub fn show_value(&self, v: &Value) -> String {
        match v {
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Str(s) => format!("{s:?}"),
            Value::Chan { .. } => self.channel_name(v),
        }
    }

    /// The child instance that call node `call` starts inside instance `parent`.
    pub fn child(&self, parent: u32, call: NodeId) -> Option<u32> {
        self.instances
            .iter()
            .position(|i| i.parent == Some(parent) && i.call == Some(call))
            .map(|i| i as u32)
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The plan with this id.
    pub fn plan(&self, id: PlanId) -> &PlanCode {
        &self.plans[id.0 as usize]
    }
}
