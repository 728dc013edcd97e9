//! Frame conditions of an agent's Kripke frame over *every* world its rules allow
//! (`docs/frames.md` §1–§2): D for R^B, R^D and R^I, 4 and 5 for R^B, and realism R^D ⊆ R^I,
//! each decided by Z3 over the bounded worlds of [`crate::cond`].
//!
//! Each property, negated, is a quantifier-free query over one belief set with two or three
//! attentions (R^B), or over two belief sets (realism). Seriality of R^D and R^I has a `∀v` in
//! its negation, so it is split: for each set S of the scope's desires (smallest first, at most
//! [`MAX_DESIRES`] desires), Z3 first asks whether S can be achieved at once; for a minimal S that
//! cannot (exact `unsat`), whether S can be desired (intended) at once. A model of that second
//! query is a world with no accessible world: a violation.
//!
//! Honesty: `sat` is exact (a model is a real world). An `unsat` proves the axiom only when the
//! bounds make it exact (`Universe::exact`, from the polarity each condition has in the query);
//! otherwise the same query is asked with every condition replaced by a free Boolean (the
//! propositional abstraction, which over-approximates every world), and only its `unsat` proves
//! the axiom. Anything else, `unknown` included, leaves the axiom unproved.

use crate::analysis::Rule;
use crate::cond::{Universe, World};
use crate::{Answer, Log, file_safe};
use hilbert_certificates::ir::{CommitmentStrategy, Cond, Ir};
use std::cell::RefCell;
use std::collections::BTreeMap;
use z3::ast::{Bool, Int};

/// Seriality of R^D and R^I is decided for at most this many desires in a scope (the number of
/// sets of desires asked about grows as 2^n); beyond, those axioms are unproved.
pub const MAX_DESIRES: usize = 8;

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
    /// Proved for every world (an exact `unsat`, or the abstraction's `unsat`).
    Proved,
    /// Violated: the worlds of Z3's model, and for seriality the desires (indices) that the world
    /// desires or intends and that cannot be achieved at once.
    Violated {
        /// The witness worlds.
        worlds: Vec<WorldText>,
        /// For seriality, the desires involved.
        desires: Vec<usize>,
    },
    /// Not decided (why).
    Unproved(String),
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
    Sat(Vec<WorldText>),
    Unsat,
    Unknown(String),
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

struct Ctx<'a, 'l> {
    ir: &'a Ir,
    agent: usize,
    log: &'l mut Log,
    skip: &'l dyn Fn(Rule) -> bool,
}

impl Ctx<'_, '_> {
    fn attention_name(&self, i: i64) -> String {
        self.ir.agents[self.agent]
            .attentions
            .get(i as usize)
            .cloned()
            .unwrap_or_else(|| "its default attention".into())
    }

    /// Asks whether the assertions `build` makes can hold. `parts` are the rules the query
    /// reads, each with whether it occurs negatively anywhere in it (for the bounds and
    /// exactness of [`Universe::new`]), once per world it is read at.
    fn ask(
        &mut self,
        name: &str,
        question: &str,
        parts: &[(Rule, bool)],
        shape: Worlds,
        build: &dyn Fn(&Eval, &[World]) -> Vec<Bool>,
    ) -> Found {
        // A rule the IR cannot represent faithfully (it reads an agent parameter or a value)
        // is never read exactly: only the abstraction, sound for every value, may prove.
        let skipped = parts.iter().find(|(r, _)| (self.skip)(*r)).map(|(r, _)| {
            format!(
                "the condition of {} reads an agent parameter or a value, unknown at build time",
                r.tag()
            )
        });
        let conds: Vec<(&Cond, bool)> = parts
            .iter()
            .filter_map(|(r, neg)| rule_cond(self.ir, self.agent, *r).map(|c| (c, *neg)))
            .collect();
        let universe = Universe::new(self.ir, self.agent, &conds);
        let worlds: Vec<World> = match shape {
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
                    });
                }
                out
            }
            Worlds::Separate(n) => ROLES_SEPARATE[..n.min(2)]
                .iter()
                .map(|r| universe.world(r))
                .collect(),
        };
        let constraints: Vec<Bool> = worlds.iter().flat_map(|w| w.constraints.clone()).collect();
        let exact = Eval {
            ir: self.ir,
            agent: self.agent,
            universe: &universe,
            abstract_: None,
        };
        let mut assertions = constraints.clone();
        assertions.extend(build(&exact, &worlds));
        // What the exact query could not settle, the abstraction may still prove.
        let why = if let Some(why) = skipped {
            why
        } else if universe.gave_up() {
            "the encoding of the conditions passed its budget".to_string()
        } else {
            let (answer, model) = self.log.check_model(name, question, &assertions);
            match answer {
                Answer::Sat => {
                    let Some(model) = model else {
                        return Found::Unknown("Z3 answered sat without a model".into());
                    };
                    let texts = worlds
                        .iter()
                        .map(|w| {
                            let (beliefs, att) = universe.describe(&model, w);
                            WorldText {
                                role: w.name.clone(),
                                beliefs,
                                attention: self.attention_name(att),
                            }
                        })
                        .collect();
                    return Found::Sat(texts);
                }
                Answer::Unsat if universe.exact => return Found::Unsat,
                Answer::Unsat => "Z3's unsat is not exact for these conditions (a belief test under two negations)".to_string(),
                Answer::Unknown(why) => format!("Z3 answered unknown ({why})"),
            }
        };
        let abs = Eval {
            ir: self.ir,
            agent: self.agent,
            universe: &universe,
            abstract_: Some(RefCell::new(BTreeMap::new())),
        };
        let mut assertions = constraints;
        assertions.extend(build(&abs, &worlds));
        let q = format!("{question} (every condition a free Boolean)");
        match self.log.check(&format!("{name}.abstract"), &q, &assertions) {
            Answer::Unsat => Found::Unsat,
            Answer::Sat => Found::Unknown(format!(
                "{why}, and with the conditions as free Booleans the query is satisfiable"
            )),
            Answer::Unknown(w) => Found::Unknown(format!(
                "{why}, and Z3 answered unknown ({w}) with the conditions as free Booleans"
            )),
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

fn desired(e: &Eval, ir: &Ir, a: usize, d: usize, w: &World) -> Bool {
    and(&[
        any(e, &achieved_rules(ir, a, d), w).not(),
        any(e, &impossible_rules(ir, a, d), w).not(),
    ])
}

/// Whether an intention for `d` can be held at `w`: the commitment law, as the runtime applies it
/// (`docs/frames.md` §1). An intention is adopted where an intend rule holds and then kept, rule
/// or no rule, until it is released; beliefs release it only when the desire is achieved (every
/// strategy) or, for a single-minded agent alone, believed impossible. So any desire with an
/// intend rule may be intended at any world that does not release it.
fn intended(e: &Eval, ir: &Ir, a: usize, d: usize, w: &World) -> Bool {
    if intend_rules(ir, a, d).is_empty() {
        return Bool::from_bool(false);
    }
    let mut parts = vec![any(e, &achieved_rules(ir, a, d), w).not()];
    if releases_impossible(ir, a) {
        parts.push(any(e, &impossible_rules(ir, a, d), w).not());
    }
    and(&parts)
}

/// Whether the agent's commitment strategy releases an intention believed impossible: only
/// `single_minded` does (`open_minded` releases on a change of desire, not of belief).
fn releases_impossible(ir: &Ir, a: usize) -> bool {
    ir.agents[a].commit == CommitmentStrategy::SingleMinded
}

fn verdict_of(found: Found, desires: &[usize]) -> Verdict {
    match found {
        Found::Sat(worlds) => Verdict::Violated {
            worlds,
            desires: desires.to_vec(),
        },
        Found::Unsat => Verdict::Proved,
        Found::Unknown(why) => Verdict::Unproved(why),
    }
}

/// Decides every frame condition of agent `a`: the R^B axioms once, the desire axioms for the
/// agent's frame (all its desires) and for each network's frame whose served desires differ.
/// Rules for which `skip` says true (conditions the IR cannot represent faithfully) leave every
/// axiom that reads them unproved.
pub fn check(ir: &Ir, a: usize, skip: &dyn Fn(Rule) -> bool, log: &mut Log) -> Vec<Outcome> {
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
    let once: Vec<(Rule, bool)> = (0..attends.len())
        .map(|i| (Rule::Attend(i), true))
        .collect();
    let twice: Vec<(Rule, bool)> = once.iter().chain(&once).copied().collect();
    let q = format!(
        "is there a world of agent {} with no belief-accessible world? (unsat: D for R^B holds)",
        agent.name
    );
    let found = ctx.ask(
        &format!("{an}.frame.D-belief"),
        &q,
        &once,
        Worlds::Shared(1),
        &|e, ws| {
            (0..n_att)
                .map(|x| att_in(e, attends, &Int::from_i64(x), &ws[0]).not())
                .collect()
        },
    );
    out.push(Outcome {
        axiom: Axiom::DBelief,
        network: None,
        verdict: verdict_of(found, &[]),
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
        let found = ctx.ask(
            &format!("{an}.frame.{tag}"),
            &q,
            &twice,
            Worlds::Shared(3),
            &|e, ws| {
                let rel = |(f, t): (usize, usize)| att_in(e, attends, &ws[t].attention, &ws[f]);
                vec![rel(pairs[0]), rel(pairs[1]), rel(pairs[2]).not()]
            },
        );
        out.push(Outcome {
            axiom,
            network: None,
            verdict: verdict_of(found, &[]),
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
            let verdict = seriality(&mut ctx, &prefix, &ds, axiom);
            out.push(Outcome {
                axiom,
                network,
                verdict,
            });
        }
        let verdict = realism(&mut ctx, &prefix, &ds);
        out.push(Outcome {
            axiom: Axiom::Realism,
            network,
            verdict,
        });
    }
    out
}

/// D for R^D or R^I over the desires `ds`.
fn seriality(ctx: &mut Ctx, prefix: &str, ds: &[usize], axiom: Axiom) -> Verdict {
    let (ir, a) = (ctx.ir, ctx.agent);
    let agent = &ir.agents[a];
    if ds.len() > MAX_DESIRES {
        return Verdict::Unproved(format!(
            "the frame has {} desires; seriality is decided for at most {MAX_DESIRES}",
            ds.len()
        ));
    }
    let intention = axiom == Axiom::DIntention;
    let mut masks: Vec<u32> = (1..(1u32 << ds.len())).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    // Sets that cannot be achieved at once (or whose achievability is unknown): their supersets
    // need no question of their own.
    let mut blocked: Vec<u32> = Vec::new();
    let mut unproved: Option<String> = None;
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
            let parts: Vec<(Rule, bool)> = set
                .iter()
                .flat_map(|&d| achieved_rules(ir, a, d))
                .map(|r| (r, false))
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
                Found::Sat(_) => continue,
                Found::Unsat => None,
                Found::Unknown(why) => Some(why),
            }
        };
        blocked.push(m);
        // Can a world desire (intend) the whole set?
        let mut parts: Vec<(Rule, bool)> = Vec::new();
        for &d in &set {
            parts.extend(achieved_rules(ir, a, d).into_iter().map(|r| (r, true)));
            if !intention || releases_impossible(ir, a) {
                parts.extend(impossible_rules(ir, a, d).into_iter().map(|r| (r, true)));
            }
        }
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
            (Found::Sat(worlds), None) => {
                return Verdict::Violated {
                    worlds,
                    desires: set,
                };
            }
            (Found::Sat(_), Some(why)) | (Found::Unknown(why), _) => {
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
    let mut parts: Vec<(Rule, bool)> = Vec::new();
    for &d in ds {
        let both: Vec<Rule> = achieved_rules(ir, a, d)
            .into_iter()
            .chain(impossible_rules(ir, a, d))
            .collect();
        // Read at w and at v: each world gets these bounds of its own.
        parts.extend(both.iter().map(|r| (*r, true)));
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
