//! Frame conditions of an agent's Kripke frame over *every* world its rules allow
//! (`docs/frames.md` §1–§2): D for R^B, R^D and R^I, 4 and 5 for R^B, and realism R^D ⊆ R^I,
//! each decided by Z3 over the bounded worlds of [`crate::cond`].
//!
//! Each property, negated, is a quantifier-free query over one belief set with two or three
//! attentions (R^B), or over two belief sets (realism). Seriality of R^D and R^I has a `∀v` in
//! its negation, so it is split: for each set S of the scope's desires (smallest first, at most
//! [`MAX_DESIRES`] desires), Z3 first asks whether S can be achieved at once; for a minimal S that
//! cannot (exact `unsat`), whether S can be desired (intended) at once. A model of that second
//! query is a world with no accessible world: a violation. When the goals read an agent
//! parameter with no value, "S can be achieved" may hold for some values and not others, so the
//! two questions become one: is there a value and a world that desires S while no world
//! achieves S under that value (a `∀` over the bounded world's constants)?
//!
//! An agent parameter with no value is a constant of the query: an `unsat` holds for every
//! value, and a model names the values it needs, so a violation that reads one is reported with
//! them ([`Verdict::Violated::params`]) and is a violation only for those values.
//!
//! Honesty: `sat` is exact (a model is a real world). An `unsat` proves the axiom only when the
//! bounds make it exact (`Universe::exact`, from the way each condition is read in the query);
//! otherwise, or when the bounded encoding passes its budget, the query is asked over unbounded
//! worlds (`Universe::unbounded`: an `unsat` there is exact, a `sat` proves nothing), and then
//! with every condition replaced by a free Boolean (the propositional abstraction, which
//! over-approximates every world), whose `unsat` also proves the axiom. Anything else, `unknown`
//! included, leaves the axiom unproved, with the cause ([`Unknown`]).

use crate::analysis::Rule;
use crate::cond::{Dependency, Reading, Universe, World, dependency};
use crate::{Answer, CUT_SHORT, FAILED, Log, NOT_ASKED, OVER_MEMORY, file_safe, guarded};
use hilbert_certificates::ir::{CommitmentStrategy, Cond, Ir};
use std::cell::RefCell;
use std::collections::BTreeMap;
use z3::ast::{Ast, Bool, Int};

/// Seriality of R^D and R^I is decided for at most this many desires in a scope (the number of
/// sets of desires asked about grows as 2^n); beyond, those axioms are unproved.
pub const MAX_DESIRES: usize = 8;

/// When Z3 finds a model over unbounded belief sets but none within the bounds, the bounded
/// query is asked once more with this many times the atoms, for a witness that can be shown.
pub const WIDER: usize = 4;

/// A frame condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Axiom {
    /// D for R^B: every world has a belief-accessible world.
    DBelief,
    /// 4 for R^B: transitivity.
    Four,
    /// 5 for R^B: Euclidean.
    Five,
    /// D for R^D.
    DDesire,
    /// D for R^I.
    DIntention,
    /// R^D ⊆ R^I.
    Realism,
}

impl Axiom {
    /// Every axiom, in the order they are checked (the kernel's order too).
    pub const ALL: [Axiom; 6] = [
        Axiom::DBelief,
        Axiom::Four,
        Axiom::Five,
        Axiom::DDesire,
        Axiom::DIntention,
        Axiom::Realism,
    ];

    /// The kernel's rule suffix: `frame.<rule>`.
    pub fn rule(&self) -> &'static str {
        match self {
            Axiom::DBelief => "D-belief",
            Axiom::Four => "4",
            Axiom::Five => "5",
            Axiom::DDesire => "D-desire",
            Axiom::DIntention => "D-intention",
            Axiom::Realism => "realism",
        }
    }

    /// The axiom as a person names it.
    pub fn title(&self) -> &'static str {
        match self {
            Axiom::DBelief => "D for R^B (every world has a belief-accessible world)",
            Axiom::Four => "4 for R^B (belief accessibility is transitive)",
            Axiom::Five => "5 for R^B (belief accessibility is Euclidean)",
            Axiom::DDesire => "D for R^D (every world has a desire-accessible world)",
            Axiom::DIntention => "D for R^I (every world has an intention-accessible world)",
            Axiom::Realism => "realism R^D ⊆ R^I (whatever is intended is desired)",
        }
    }
}

/// A world of a witness: its role in the axiom (`w`, `u`, `v`), its beliefs and its attention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldText {
    /// `w`, `u` or `v`, as in `docs/frames.md` §2.
    pub role: String,
    /// The believed atoms.
    pub beliefs: Vec<String>,
    /// The attention's name.
    pub attention: String,
}

/// What Z3 concluded about one axiom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Proved for every world (an exact `unsat`, the unbounded encoding's `unsat`, or the
    /// abstraction's `unsat`), and for every value of the parameters with no value it reads.
    Proved,
    /// Violated: the worlds of Z3's model, and for seriality the desires (indices) that the world
    /// desires or intends and that cannot be achieved at once.
    Violated {
        /// The witness worlds.
        worlds: Vec<WorldText>,
        /// For seriality, the desires involved.
        desires: Vec<usize>,
        /// The values the model gives the agent parameters with no value that the query reads
        /// (`limit = 5`); empty when it reads none. When not empty and not `every_value`, the
        /// violation is one for those values: the axiom is not proved for every value, and
        /// whether it holds for the value the agent runs with is not known.
        params: Vec<String>,
        /// Whether Z3 showed that every value of those parameters has a violation (of its
        /// own; the witness is the one for `params`).
        every_value: bool,
    },
    /// Not decided, and why.
    Unproved(Unknown),
}

/// Why an axiom is left unproved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// Z3 ran out of time on a query (`--smt-timeout`).
    Timeout,
    /// The budget of the check's queries was spent (`--smt-budget`): the query was not asked
    /// ([`NOT_ASKED`]), or was cut short ([`CUT_SHORT`]).
    Budget(String),
    /// Z3 answered `unknown` for a reason of its own (an incomplete theory: nonlinear integer
    /// arithmetic, say).
    Solver(String),
    /// The encoding of the conditions passed its budget ([`crate::cond::MAX_STEPS`]): too many
    /// branches (disjunctions times belief tests) to encode.
    Encoding,
    /// The bounded `unsat` is not exact because of rule `rule` (a belief test that must be
    /// witnessed reads a variable bound by a test under one negation more or fewer), and the
    /// query over unbounded worlds did not settle it either.
    Dependency {
        /// The rule.
        rule: Rule,
        /// The belief the witnessed test reads, as a person names it (`done`).
        test: String,
        /// The belief of the test that binds the variable it reads (`made`).
        binder: String,
        /// What was asked beyond the bounds, and what it answered.
        beyond: Beyond,
    },
    /// The condition of `rule` reads something the encoding does not represent (`what`).
    Construct {
        /// The rule.
        rule: Rule,
        /// What it reads.
        what: String,
    },
    /// The frame has this many desires; seriality is decided for at most [`MAX_DESIRES`].
    Desires(usize),
    /// Z3 failed (the reason: [`FAILED`] and what failed), most often for want of memory: it
    /// could not make a term, or answered `sat` with a model that does not satisfy the query.
    Failed(String),
    /// The process passed its memory bound (`--max-memory`) before the query was answered (the
    /// reason: [`OVER_MEMORY`] and the resident set).
    Memory(String),
}

/// What a query whose bounded `unsat` is not exact got beyond the bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Beyond {
    /// Nothing was asked: the question has a `∀` over worlds, which unbounded belief sets (sets
    /// of sets) cannot express.
    NotAsked,
    /// Over unbounded belief sets Z3 found a model, but none with at most [`WIDER`] times the
    /// atoms, so there is no witness to show (the model is real but may hold very many atoms).
    Model,
    /// Over unbounded belief sets Z3 answered `unknown`, for this cause.
    Unknown(Box<Unknown>),
}

impl Unknown {
    /// A dependency with what was found beyond the bounds; any other cause unchanged.
    fn beyond(self, found: Beyond) -> Unknown {
        match self {
            Unknown::Dependency {
                rule, test, binder, ..
            } => Unknown::Dependency {
                rule,
                test,
                binder,
                beyond: found,
            },
            other => other,
        }
    }

    /// The cause of an `unknown` answer, from the reason [`Log`] gives.
    fn of_answer(reason: &str) -> Unknown {
        if reason.contains(OVER_MEMORY) {
            Unknown::Memory(reason.to_string())
        } else if reason == NOT_ASKED || reason == CUT_SHORT {
            Unknown::Budget(reason.to_string())
        } else if reason.starts_with(FAILED) {
            Unknown::Failed(reason.to_string())
        } else if ["canceled", "interrupted", "timeout"]
            .iter()
            .any(|w| reason.contains(w))
        {
            Unknown::Timeout
        } else {
            // Z3 writes some reasons in parentheses: `(incomplete quantifiers)`.
            let bare = reason.strip_prefix('(').and_then(|r| r.strip_suffix(')'));
            Unknown::Solver(bare.unwrap_or(reason).to_string())
        }
    }
}

/// One axiom over one scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The axiom.
    pub axiom: Axiom,
    /// `None` for the agent's frame (all its desires); `Some(n)` for the frame of network `n`
    /// (the desires its binding serves).
    pub network: Option<usize>,
    /// What Z3 concluded.
    pub verdict: Verdict,
}

/// The condition of a rule.
fn rule_cond(ir: &Ir, a: usize, r: Rule) -> Option<&Cond> {
    let agent = ir.agents.get(a)?;
    Some(match r {
        Rule::Intend(i) => &agent.intends.get(i)?.cond,
        Rule::Achieved(d, k) => agent.desires.get(d)?.achieved.get(k)?,
        Rule::Impossible(d, k) => &agent.desires.get(d)?.impossible.get(k)?.0,
        Rule::Attend(i) => &agent.attends.get(i)?.0,
        Rule::Reward(i) => &agent.rewards.get(i)?.cond,
    })
}

/// How conditions are read in a query: exactly ([`Universe::holds`]) or as free Booleans.
struct Eval<'a, 'u> {
    ir: &'a Ir,
    agent: usize,
    universe: &'u Universe<'a>,
    abstract_: Option<RefCell<BTreeMap<String, Bool>>>,
}

impl Eval<'_, '_> {
    fn at(&self, r: Rule, w: &World) -> Bool {
        let Some(c) = rule_cond(self.ir, self.agent, r) else {
            return Bool::from_bool(false);
        };
        match &self.abstract_ {
            None => self.universe.holds(w, c),
            Some(m) => m
                .borrow_mut()
                .entry(format!("{}@{}", r.tag(), w.name))
                .or_insert_with(|| Bool::new_const(format!("abs.{}@{}", r.tag(), w.name)))
                .clone(),
        }
    }
}

/// What a query concluded.
enum Found {
    /// A model: its worlds, the values it gives the parameters with no value it reads, and
    /// whether every value has a model.
    Sat(Vec<WorldText>, Vec<String>, bool),
    Unsat,
    Unknown(Unknown),
}

/// The shape of a query's worlds.
#[derive(Clone, Copy)]
enum Worlds {
    /// One belief set with `n` attentions (`w`, `u`, `v`).
    Shared(usize),
    /// `n` independent belief sets (`w`, `v`).
    Separate(usize),
}

const ROLES_SHARED: [&str; 3] = ["w", "u", "v"];
const ROLES_SEPARATE: [&str; 2] = ["w", "v"];

type Build<'b> = dyn Fn(&Eval, &[World]) -> Vec<Bool> + 'b;

struct Ctx<'a, 'l> {
    ir: &'a Ir,
    agent: usize,
    log: &'l mut Log,
    skip: &'l dyn Fn(Rule) -> Option<String>,
}

impl Ctx<'_, '_> {
    fn attention_name(&self, i: i64) -> String {
        self.ir.agents[self.agent]
            .attentions
            .get(i as usize)
            .cloned()
            .unwrap_or_else(|| "its default attention".into())
    }

    /// Why an encoding in `universe` gave up: the process passed its share of `--max-memory`
    /// ([`Unknown::Memory`]), or `otherwise`.
    fn gave_up(&self, universe: &Universe, otherwise: Unknown) -> Unknown {
        if universe.out_of_memory() {
            Unknown::Memory(self.log.over_memory(false))
        } else {
            otherwise
        }
    }

    /// The worlds of a query of this shape in `universe`.
    fn worlds(&self, universe: &Universe, shape: Worlds) -> Vec<World> {
        match shape {
            Worlds::Shared(n) => {
                let w = universe.world("w");
                let mut out = vec![w.clone()];
                let n_att = self.ir.agents[self.agent].attentions.len().max(1) as i64;
                for role in &ROLES_SHARED[1..n.min(3)] {
                    let attention = Int::new_const(format!("{role}.attention"));
                    let constraints = vec![
                        attention.ge(Int::from_i64(0)),
                        attention.lt(Int::from_i64(n_att)),
                    ];
                    out.push(World {
                        name: role.to_string(),
                        slots: w.slots.clone(),
                        attention,
                        constraints,
                        preds: w.preds.clone(),
                    });
                }
                out
            }
            Worlds::Separate(n) => ROLES_SEPARATE[..n.min(2)]
                .iter()
                .map(|r| universe.world(r))
                .collect(),
        }
    }

    /// The worlds of a query of this shape in `universe`, and its assertions: the worlds'
    /// ranges, and what `build` makes of them with the conditions read by `universe`.
    fn encode(&self, universe: &Universe, shape: Worlds, build: &Build) -> (Vec<World>, Vec<Bool>) {
        let worlds = self.worlds(universe, shape);
        let eval = Eval {
            ir: self.ir,
            agent: self.agent,
            universe,
            abstract_: None,
        };
        let mut assertions: Vec<Bool> = worlds.iter().flat_map(|w| w.constraints.clone()).collect();
        assertions.extend(build(&eval, &worlds));
        (worlds, assertions)
    }

    /// The witness worlds of a model.
    fn texts(&self, universe: &Universe, model: &z3::Model, worlds: &[World]) -> Vec<WorldText> {
        worlds
            .iter()
            .map(|w| {
                let (beliefs, att) = universe.describe(model, w);
                WorldText {
                    role: w.name.clone(),
                    beliefs,
                    attention: self.attention_name(att),
                }
            })
            .collect()
    }

    /// Why the bounded `unsat` of a query reading `parts` is not exact: the first rule, read
    /// the way the query reads it, whose witnessed test depends on a `∀` test.
    fn dependency(&self, universe: &Universe, parts: &[(Rule, Reading)]) -> Unknown {
        for (r, reading) in parts {
            let Some(c) = rule_cond(self.ir, self.agent, *r) else {
                continue;
            };
            for &negated in reading.negations() {
                match dependency(c, negated) {
                    Some(Dependency::Reads { test, binder }) => {
                        return Unknown::Dependency {
                            rule: *r,
                            test: universe.pred_name(test),
                            binder: universe.pred_name(binder),
                            beyond: Beyond::NotAsked,
                        };
                    }
                    Some(Dependency::TooLarge) => return Unknown::Encoding,
                    None => {}
                }
            }
        }
        Unknown::Encoding
    }

    /// Asks whether the assertions `build` makes can hold. `parts` are the rules the query
    /// reads, each with the way it reads them (for the bounds and exactness of
    /// [`Universe::new`]), once per world it is read at.
    fn ask(
        &mut self,
        name: &str,
        question: &str,
        parts: &[(Rule, Reading)],
        shape: Worlds,
        build: &Build,
    ) -> Found {
        // A rule the encoding does not represent is never read exactly: only the abstraction,
        // sound whatever it says, may prove.
        let skipped = parts
            .iter()
            .find_map(|(r, _)| (self.skip)(*r).map(|what| Unknown::Construct { rule: *r, what }));
        let conds: Vec<(&Cond, Reading)> = parts
            .iter()
            .filter_map(|(r, reading)| rule_cond(self.ir, self.agent, *r).map(|c| (c, *reading)))
            .collect();
        let universe = Universe::new(self.ir, self.agent, &conds);
        let worlds = self.worlds(&universe, shape);
        let constraints: Vec<Bool> = worlds.iter().flat_map(|w| w.constraints.clone()).collect();
        let encodable = skipped.is_none();
        let why = match skipped {
            Some(why) => why,
            None => {
                let exact = Eval {
                    ir: self.ir,
                    agent: self.agent,
                    universe: &universe,
                    abstract_: None,
                };
                let mut assertions = constraints.clone();
                assertions.extend(build(&exact, &worlds));
                if universe.gave_up() {
                    self.gave_up(&universe, Unknown::Encoding)
                } else {
                    let (answer, model) = self.log.check_model(name, question, &assertions);
                    match answer {
                        Answer::Sat => {
                            let Some(model) = model else {
                                return Found::Unknown(Unknown::Solver(
                                    "Z3 answered sat without a model".into(),
                                ));
                            };
                            let texts = self.texts(&universe, &model, &worlds);
                            let params = universe.describe_params(&model);
                            let every = !params.is_empty()
                                && self.every_value(name, question, &universe, &worlds, build);
                            return Found::Sat(texts, params, every);
                        }
                        Answer::Unsat if universe.exact => return Found::Unsat,
                        Answer::Unsat => self.dependency(&universe, parts),
                        Answer::Unknown(why) => Unknown::of_answer(&why),
                    }
                }
            }
        };
        // The abstraction, cheap and propositional, first.
        let abs = Eval {
            ir: self.ir,
            agent: self.agent,
            universe: &universe,
            abstract_: Some(RefCell::new(BTreeMap::new())),
        };
        let mut assertions = constraints;
        assertions.extend(build(&abs, &worlds));
        let q = format!("{question} (every condition a free Boolean)");
        if self.log.check(&format!("{name}.abstract"), &q, &assertions) == Answer::Unsat {
            return Found::Unsat;
        }
        // What the bounds could not settle, unbounded worlds may: their `unsat` is exact.
        match why {
            Unknown::Dependency { .. } | Unknown::Encoding => {
                self.unbounded(name, question, &conds, shape, build, why)
            }
            // A bounded query Z3 could not answer, whose `unsat` would not have been exact
            // anyway: unbounded worlds may still prove the axiom (or give a witness).
            Unknown::Timeout | Unknown::Solver(_) if encodable && !universe.exact => {
                match self.unbounded(name, question, &conds, shape, build, why.clone()) {
                    Found::Unknown(_) => Found::Unknown(why),
                    found => found,
                }
            }
            other => Found::Unknown(other),
        }
    }

    /// The query over unbounded worlds, for one whose bounded `unsat` was not exact (`why`).
    /// Its `unsat` proves. A model there is a real one (every field ranges over 64-bit values,
    /// so every set of atoms is finite) but may hold very many atoms and is not shown: bounded
    /// worlds [`WIDER`] times as large are asked for a witness that can be.
    fn unbounded(
        &mut self,
        name: &str,
        question: &str,
        conds: &[(&Cond, Reading)],
        shape: Worlds,
        build: &Build,
        why: Unknown,
    ) -> Found {
        let universe = Universe::unbounded(self.ir, self.agent, conds);
        let (_, assertions) = self.encode(&universe, shape, build);
        if universe.gave_up() {
            return Found::Unknown(self.gave_up(&universe, why));
        }
        let q = format!("{question} (over unbounded belief sets)");
        match self
            .log
            .check(&format!("{name}.unbounded"), &q, &assertions)
        {
            Answer::Unsat => Found::Unsat,
            Answer::Unknown(w) => Found::Unknown(match why {
                Unknown::Dependency { .. } => {
                    why.beyond(Beyond::Unknown(Box::new(Unknown::of_answer(&w))))
                }
                _ => Unknown::of_answer(&w),
            }),
            Answer::Sat => {
                let wide: Vec<(&Cond, Reading)> = conds
                    .iter()
                    .cycle()
                    .take(conds.len() * WIDER)
                    .copied()
                    .collect();
                let universe = Universe::new(self.ir, self.agent, &wide);
                let (worlds, assertions) = self.encode(&universe, shape, build);
                if universe.gave_up() {
                    return Found::Unknown(self.gave_up(&universe, why.beyond(Beyond::Model)));
                }
                let q = format!("{question} (with {WIDER} times the atoms)");
                let (answer, model) =
                    self.log
                        .check_model(&format!("{name}.wider"), &q, &assertions);
                match (answer, model) {
                    (Answer::Sat, Some(model)) => {
                        let texts = self.texts(&universe, &model, &worlds);
                        let params = universe.describe_params(&model);
                        let every = !params.is_empty()
                            && self.every_value(name, question, &universe, &worlds, build);
                        Found::Sat(texts, params, every)
                    }
                    _ => Found::Unknown(why.beyond(Beyond::Model)),
                }
            }
        }
    }

    /// Whether every value of the parameters with no value has a model of the query: Z3 is
    /// asked for a value under which no bounded worlds satisfy it (`∀` over their constants);
    /// its `unsat` says every value has bounded worlds that do, each a real model.
    fn every_value(
        &mut self,
        name: &str,
        question: &str,
        universe: &Universe,
        worlds: &[World],
        build: &Build,
    ) -> bool {
        let e = Eval {
            ir: self.ir,
            agent: self.agent,
            universe,
            abstract_: None,
        };
        let body = and(&build(&e, worlds));
        let mut seen = std::collections::BTreeSet::new();
        let mut bound: Vec<&dyn Ast> = Vec::new();
        for w in worlds {
            for slot in w.slots.values().flatten() {
                for c in slot.constants() {
                    if seen.insert(format!("{c:?}")) {
                        bound.push(c);
                    }
                }
            }
            if seen.insert(w.attention.to_string()) {
                bound.push(&w.attention);
            }
        }
        let constraints: Vec<Bool> = worlds.iter().flat_map(|w| w.constraints.clone()).collect();
        let none = z3::ast::forall_const(&bound, &[], &and(&constraints).implies(body.not()));
        let mut assertions = universe.param_constraints();
        assertions.push(none);
        let q = format!(
            "{question} (is there a value of the parameters with no such worlds? unsat: every value has some)"
        );
        self.log
            .check(&format!("{name}.every-value"), &q, &assertions)
            == Answer::Unsat
    }

    /// Seriality of a set of desires whose goals read a parameter with no value: is there a
    /// value and a world `w` that desires (intends) every desire of `set` while no world `v`
    /// achieves them all under that value? The `∀v` is over the constants of one bounded world,
    /// so the query is exact when the bounds are (a model is then a value and a world with no
    /// accessible world).
    fn ask_unachievable(
        &mut self,
        name: &str,
        question: &str,
        set: &[usize],
        intention: bool,
    ) -> Found {
        let (ir, a) = (self.ir, self.agent);
        // The goals are read at w (negatively) and at v (positively).
        let parts = held_parts(ir, a, set, Reading::Both);
        if let Some(why) = parts
            .iter()
            .find_map(|(r, _)| (self.skip)(*r).map(|what| Unknown::Construct { rule: *r, what }))
        {
            return Found::Unknown(why);
        }
        let conds: Vec<(&Cond, Reading)> = parts
            .iter()
            .filter_map(|(r, reading)| rule_cond(ir, a, *r).map(|c| (c, *reading)))
            .collect();
        let universe = Universe::new(ir, a, &conds);
        let (w, v) = (universe.world("w"), universe.world("v"));
        let e = Eval {
            ir,
            agent: a,
            universe: &universe,
            abstract_: None,
        };
        let achieves: Vec<Bool> = set
            .iter()
            .map(|&d| any(&e, &achieved_rules(ir, a, d), &v))
            .collect();
        let mut bound: Vec<&dyn Ast> = Vec::new();
        for slot in v.slots.values().flatten() {
            bound.extend(slot.constants());
        }
        bound.push(&v.attention);
        let none = z3::ast::forall_const(
            &bound,
            &[],
            &and(&v.constraints).implies(and(&achieves).not()),
        );
        let mut assertions = w.constraints.clone();
        assertions.push(none);
        for &d in set {
            assertions.push(if intention {
                intended(&e, ir, a, d, &w)
            } else {
                desired(&e, ir, a, d, &w)
            });
        }
        if universe.gave_up() {
            return Found::Unknown(self.gave_up(&universe, Unknown::Encoding));
        }
        let (answer, model) = self.log.check_model(name, question, &assertions);
        match answer {
            Answer::Unknown(why) => Found::Unknown(Unknown::of_answer(&why)),
            _ if !universe.exact => Found::Unknown(self.dependency(&universe, &parts)),
            Answer::Sat => match model {
                Some(model) => Found::Sat(
                    self.texts(&universe, &model, std::slice::from_ref(&w)),
                    universe.describe_params(&model),
                    false,
                ),
                None => Found::Unknown(Unknown::Solver("Z3 answered sat without a model".into())),
            },
            Answer::Unsat => Found::Unsat,
        }
    }
}

/// `attention x ∈ Att(w)`: an attend rule holding at w names x, or none holds and x is w's own.
fn att_in(e: &Eval, attends: &[(Cond, u32)], x: &Int, w: &World) -> Bool {
    let mut branches = Vec::new();
    let mut none = Vec::new();
    for (i, (_, target)) in attends.iter().enumerate() {
        let h = e.at(Rule::Attend(i), w);
        branches.push(Bool::and(&[
            h.clone(),
            x.eq(Int::from_i64(i64::from(*target))),
        ]));
        none.push(h.not());
    }
    none.push(x.eq(&w.attention));
    branches.push(and(&none));
    or(&branches)
}

/// The rules of desire `d`'s `achieved` (or `impossible`) conditions.
fn achieved_rules(ir: &Ir, a: usize, d: usize) -> Vec<Rule> {
    (0..ir.agents[a].desires[d].achieved.len())
        .map(|k| Rule::Achieved(d, k))
        .collect()
}

fn impossible_rules(ir: &Ir, a: usize, d: usize) -> Vec<Rule> {
    (0..ir.agents[a].desires[d].impossible.len())
        .map(|k| Rule::Impossible(d, k))
        .collect()
}

fn intend_rules(ir: &Ir, a: usize, d: usize) -> Vec<Rule> {
    ir.agents[a]
        .intends
        .iter()
        .enumerate()
        .filter(|(_, i)| i.desire as usize == d)
        .map(|(i, _)| Rule::Intend(i))
        .collect()
}

/// The rules read to decide whether the desires of `set` are desired (intended) at a world:
/// their `achieved` rules, read `achieved`, and the `impossible` rules that release, negatively.
fn held_parts(ir: &Ir, a: usize, set: &[usize], achieved: Reading) -> Vec<(Rule, Reading)> {
    let mut parts: Vec<(Rule, Reading)> = Vec::new();
    for &d in set {
        parts.extend(achieved_rules(ir, a, d).into_iter().map(|r| (r, achieved)));
        if releases_impossible(ir, a) {
            parts.extend(
                impossible_rules(ir, a, d)
                    .into_iter()
                    .map(|r| (r, Reading::Negative)),
            );
        }
    }
    parts
}

fn any(e: &Eval, rules: &[Rule], w: &World) -> Bool {
    let hs: Vec<Bool> = rules.iter().map(|r| e.at(*r, w)).collect();
    or(&hs)
}

/// A disjunction, `false` when empty (SMT-LIB has no empty `or`).
fn or(parts: &[Bool]) -> Bool {
    match parts {
        [] => Bool::from_bool(false),
        [one] => one.clone(),
        _ => Bool::or(parts),
    }
}

/// A conjunction, `true` when empty.
fn and(parts: &[Bool]) -> Bool {
    match parts {
        [] => Bool::from_bool(true),
        [one] => one.clone(),
        _ => Bool::and(parts),
    }
}

/// Whether desire `d` is held at `w` (`docs/frames.md` §1): not believed achieved and, for a
/// single-minded agent, not believed impossible. A blind or open-minded agent goes on desiring
/// a goal it believes impossible, as it goes on intending it: its commitment strategy does not
/// act on that belief, and realism (`I p ⇒ D p`) with the seed's blind axiom (`I p ∧ ¬B p ⇒
/// X I p`) requires the desire to last as long as the intention.
fn desired(e: &Eval, ir: &Ir, a: usize, d: usize, w: &World) -> Bool {
    and(&released_by(e, ir, a, d, w)
        .into_iter()
        .map(|r| r.not())
        .collect::<Vec<_>>())
}

/// Whether an intention for `d` can be held at `w`: the commitment law, as the runtime applies it
/// (`docs/frames.md` §1). An intention is adopted where an intend rule holds and then kept, rule
/// or no rule, until it is released; beliefs release it only when the desire is achieved (every
/// strategy) or, for a single-minded agent alone, believed impossible. So any desire with an
/// intend rule may be intended at any world that does not release it — the worlds where it is
/// desired.
fn intended(e: &Eval, ir: &Ir, a: usize, d: usize, w: &World) -> Bool {
    if intend_rules(ir, a, d).is_empty() {
        return Bool::from_bool(false);
    }
    desired(e, ir, a, d, w)
}

/// The beliefs that end desire `d` (and an intention for it) at `w`: its achieved conditions,
/// and for a single-minded agent its impossible conditions.
fn released_by(e: &Eval, ir: &Ir, a: usize, d: usize, w: &World) -> Vec<Bool> {
    let mut out = vec![any(e, &achieved_rules(ir, a, d), w)];
    if releases_impossible(ir, a) {
        out.push(any(e, &impossible_rules(ir, a, d), w));
    }
    out
}

/// Whether the agent's commitment strategy releases an intention believed impossible: only
/// `single_minded` does (`blind` releases only what it believes achieved, `open_minded` also on
/// a change of desire, not of belief).
fn releases_impossible(ir: &Ir, a: usize) -> bool {
    ir.agents[a].commit == CommitmentStrategy::SingleMinded
}

fn verdict_of(found: Found, desires: &[usize]) -> Verdict {
    match found {
        Found::Sat(worlds, params, every_value) => Verdict::Violated {
            worlds,
            desires: desires.to_vec(),
            params,
            every_value,
        },
        Found::Unsat => Verdict::Proved,
        Found::Unknown(why) => Verdict::Unproved(why),
    }
}

/// Decides every frame condition of agent `a`: the R^B axioms once, the desire axioms for the
/// agent's frame (all its desires) and for each network's frame whose served desires differ.
/// A rule for which `skip` names something (a condition reading what the encoding does not
/// represent) leaves every axiom that reads it unproved unless the abstraction proves it. Agent
/// parameters with no value are no such thing: they are constants of the queries, and an axiom
/// is proved only for every value.
pub fn check(
    ir: &Ir,
    a: usize,
    skip: &dyn Fn(Rule) -> Option<String>,
    log: &mut Log,
) -> Vec<Outcome> {
    let Some(agent) = ir.agents.get(a) else {
        return Vec::new();
    };
    let an = file_safe(&agent.name);
    let mut ctx = Ctx {
        ir,
        agent: a,
        log,
        skip,
    };
    let mut out = Vec::new();
    // R^B.
    let attends = &agent.attends;
    let n_att = agent.attentions.len().max(1) as i64;
    // `in(x | b, a)` reads each attend rule both ways: one holds, or none does.
    let once: Vec<(Rule, Reading)> = (0..attends.len())
        .map(|i| (Rule::Attend(i), Reading::Both))
        .collect();
    let twice: Vec<(Rule, Reading)> = once.iter().chain(&once).copied().collect();
    let q = format!(
        "is there a world of agent {} with no belief-accessible world? (unsat: D for R^B holds)",
        agent.name
    );
    let verdict = ask_shared(
        &mut ctx,
        &format!("{an}.frame.D-belief"),
        &q,
        &once,
        1,
        &|e, ws| {
            (0..n_att)
                .map(|x| att_in(e, attends, &Int::from_i64(x), &ws[0]).not())
                .collect()
        },
    );
    out.push(Outcome {
        axiom: Axiom::DBelief,
        network: None,
        verdict,
    });
    // 4 and 5 differ only in which pairs of the three worlds are related: (from, to) of the two
    // relations assumed, then the one denied.
    for (axiom, tag, reading, pairs) in [
        (
            Axiom::Four,
            "4",
            "w R^B u, u R^B v and not w R^B v",
            [(0, 1), (1, 2), (0, 2)],
        ),
        (
            Axiom::Five,
            "5",
            "w R^B u, w R^B v and not u R^B v",
            [(0, 1), (0, 2), (1, 2)],
        ),
    ] {
        let q = format!(
            "are there worlds w, u, v of agent {} with {reading}? (unsat: {tag} holds)",
            agent.name
        );
        let verdict = ask_shared(
            &mut ctx,
            &format!("{an}.frame.{tag}"),
            &q,
            &twice,
            3,
            &|e, ws| {
                let rel = |(f, t): (usize, usize)| att_in(e, attends, &ws[t].attention, &ws[f]);
                vec![rel(pairs[0]), rel(pairs[1]), rel(pairs[2]).not()]
            },
        );
        out.push(Outcome {
            axiom,
            network: None,
            verdict,
        });
    }
    // The desire axioms, per scope.
    let all: Vec<usize> = (0..agent.desires.len()).collect();
    let mut scopes: Vec<(Option<usize>, Vec<usize>, String)> = vec![(None, all, an.clone())];
    for (b, binding) in agent.plans.iter().enumerate() {
        let Some(n) = binding.network else { continue };
        let served: Vec<usize> = (0..agent.desires.len())
            .filter(|&d| agent.desires[d].reachable_by.contains(&(b as u32)))
            .collect();
        if scopes.iter().any(|(_, s, _)| *s == served) {
            continue;
        }
        scopes.push((
            Some(n as usize),
            served,
            format!("{an}.{}", file_safe(&binding.name)),
        ));
    }
    for (network, ds, prefix) in scopes {
        for axiom in [Axiom::DDesire, Axiom::DIntention] {
            let verdict = decide(|| seriality(&mut ctx, &prefix, &ds, axiom));
            out.push(Outcome {
                axiom,
                network,
                verdict,
            });
        }
        let verdict = decide(|| realism(&mut ctx, &prefix, &ds));
        out.push(Outcome {
            axiom: Axiom::Realism,
            network,
            verdict,
        });
    }
    out
}

/// The verdict of an R^B axiom: a query over one belief set with `n` attentions.
fn ask_shared(
    ctx: &mut Ctx,
    name: &str,
    question: &str,
    parts: &[(Rule, Reading)],
    n: usize,
    build: &Build,
) -> Verdict {
    decide(|| {
        verdict_of(
            ctx.ask(name, question, parts, Worlds::Shared(n), build),
            &[],
        )
    })
}

/// A verdict, or unproved when Z3 failed on the way to it ([`guarded`]: for want of memory
/// past the bound, [`Unknown::Memory`]; otherwise [`Unknown::Failed`]).
fn decide(f: impl FnOnce() -> Verdict) -> Verdict {
    guarded(f).unwrap_or_else(|why| {
        Verdict::Unproved(if why.contains(OVER_MEMORY) {
            Unknown::Memory(why)
        } else {
            Unknown::Failed(why)
        })
    })
}

/// D for R^D or R^I over the desires `ds`.
fn seriality(ctx: &mut Ctx, prefix: &str, ds: &[usize], axiom: Axiom) -> Verdict {
    let (ir, a) = (ctx.ir, ctx.agent);
    let agent = &ir.agents[a];
    if ds.len() > MAX_DESIRES {
        return Verdict::Unproved(Unknown::Desires(ds.len()));
    }
    let intention = axiom == Axiom::DIntention;
    let mut masks: Vec<u32> = (1..(1u32 << ds.len())).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    // Sets that cannot be achieved at once (or whose achievability is unknown): their supersets
    // need no question of their own.
    let mut blocked: Vec<u32> = Vec::new();
    let mut unproved: Option<Unknown> = None;
    for m in masks {
        if blocked.iter().any(|b| b & m == *b) {
            continue;
        }
        let set: Vec<usize> = (0..ds.len())
            .filter(|i| m & (1 << i) != 0)
            .map(|i| ds[i])
            .collect();
        if intention && set.iter().any(|&d| intend_rules(ir, a, d).is_empty()) {
            // Never intended: no world intends the set.
            continue;
        }
        let tag: Vec<String> = set.iter().map(usize::to_string).collect();
        let tag = tag.join("-");
        let names: Vec<&str> = set
            .iter()
            .map(|&d| agent.desires[d].name.as_str())
            .collect();
        let names = names.join(", ");
        // Can the set be achieved at once?
        let unknown_achievable = if set.iter().any(|&d| agent.desires[d].achieved.is_empty()) {
            None // a desire with no achieved rule is never achieved
        } else {
            let parts: Vec<(Rule, Reading)> = set
                .iter()
                .flat_map(|&d| achieved_rules(ir, a, d))
                .map(|r| (r, Reading::Positive))
                .collect();
            let q = format!(
                "can desires {{{names}}} of agent {} be achieved in one world? (unsat: no world is accessible from one that {} them all)",
                agent.name,
                if intention { "intends" } else { "desires" }
            );
            let found = ctx.ask(
                &format!("{prefix}.frame.{}.achievable.{tag}", axiom.rule()),
                &q,
                &parts,
                Worlds::Separate(1),
                &|e, ws| {
                    set.iter()
                        .map(|&d| any(e, &achieved_rules(ir, a, d), &ws[0]))
                        .collect()
                },
            );
            match found {
                Found::Sat(_, params, _) if params.is_empty() => continue,
                // Achievable for some value of a parameter the goals read, maybe not for all:
                // ask for a value under which a world desires the set and none achieves it.
                Found::Sat(..) => {
                    let q = format!(
                        "is there a value of the parameters and a world of agent {} that {} desires {{{names}}} at once, while no world achieves them together under that value? (sat: {} is violated for that value)",
                        agent.name,
                        if intention { "intends" } else { "desires" },
                        axiom.title()
                    );
                    let name = format!("{prefix}.frame.{}.{tag}.for-some-value", axiom.rule());
                    match ctx.ask_unachievable(&name, &q, &set, intention) {
                        Found::Unsat => {}
                        Found::Sat(worlds, params, every_value) => {
                            return Verdict::Violated {
                                worlds,
                                desires: set,
                                params,
                                every_value,
                            };
                        }
                        Found::Unknown(why) => {
                            unproved.get_or_insert(why);
                        }
                    }
                    continue;
                }
                Found::Unsat => None,
                Found::Unknown(why) => Some(why),
            }
        };
        blocked.push(m);
        // Can a world desire (intend) the whole set?
        let parts = held_parts(ir, a, &set, Reading::Negative);
        let q = format!(
            "can a world of agent {} {} desires {{{names}}} at once, which no world achieves together? (sat: {} is violated)",
            agent.name,
            if intention { "intend" } else { "desire" },
            axiom.title()
        );
        let found = ctx.ask(
            &format!("{prefix}.frame.{}.{tag}", axiom.rule()),
            &q,
            &parts,
            Worlds::Separate(1),
            &|e, ws| {
                set.iter()
                    .map(|&d| {
                        if intention {
                            intended(e, ir, a, d, &ws[0])
                        } else {
                            desired(e, ir, a, d, &ws[0])
                        }
                    })
                    .collect()
            },
        );
        match (found, unknown_achievable) {
            (Found::Unsat, _) => {}
            (Found::Sat(worlds, params, every_value), None) => {
                return Verdict::Violated {
                    worlds,
                    desires: set,
                    params,
                    every_value,
                };
            }
            (Found::Sat(..), Some(why)) | (Found::Unknown(why), _) => {
                unproved.get_or_insert(why);
            }
        }
    }
    match unproved {
        Some(why) => Verdict::Unproved(why),
        None => Verdict::Proved,
    }
}

/// R^D ⊆ R^I over the desires `ds`: `⋀_D (desired_D(w) → achieved_D(v)) ∧ ⋁_D (intended_D(w) ∧
/// ¬achieved_D(v))` must be unsatisfiable.
fn realism(ctx: &mut Ctx, prefix: &str, ds: &[usize]) -> Verdict {
    let (ir, a) = (ctx.ir, ctx.agent);
    let agent = &ir.agents[a];
    let mut parts: Vec<(Rule, Reading)> = Vec::new();
    for &d in ds {
        // Read at w and at v, both ways: each world gets these bounds of its own.
        parts.extend(
            held_parts(ir, a, &[d], Reading::Both)
                .into_iter()
                .map(|(r, _)| (r, Reading::Both)),
        );
    }
    let q = format!(
        "are there worlds w, v of agent {} with w R^D v but not w R^I v? (unsat: realism R^D ⊆ R^I holds)",
        agent.name
    );
    let found = ctx.ask(
        &format!("{prefix}.frame.realism"),
        &q,
        &parts,
        Worlds::Separate(2),
        &|e, ws| {
            let (w, v) = (&ws[0], &ws[1]);
            let mut out: Vec<Bool> = ds
                .iter()
                .map(|&d| desired(e, ir, a, d, w).implies(any(e, &achieved_rules(ir, a, d), v)))
                .collect();
            let bad: Vec<Bool> = ds
                .iter()
                .map(|&d| {
                    Bool::and(&[
                        intended(e, ir, a, d, w),
                        any(e, &achieved_rules(ir, a, d), v).not(),
                    ])
                })
                .collect();
            out.push(or(&bad));
            out
        },
    );
    verdict_of(found, &[])
}
