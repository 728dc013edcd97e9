//! The IR's conditions as Z3 formulas over a *bounded belief set*, or over an unbounded one.
//!
//! A belief set is a finite set of ground atoms. A [`World`] stands for one: for every predicate
//! (the agent's own `f`, and `B(j) f` for each agent `j` it is told about) it has a fixed number
//! of *slots*, each a Boolean `present` and one integer per field. The set is the atoms of the
//! present slots. Strings are integers too: each string literal of the agent gets a distinct
//! code, and every other integer stands for some other string; booleans are 0 and 1; integer
//! fields range over the 64-bit integers, as at run time. The attention is an integer in
//! `0..attentions`. An agent parameter with no value is one constant per query, shared by its
//! worlds and ranging over its type's values: an `unsat` holds for every value, a model names one.
//!
//! A condition is encoded exactly as the kernel evaluates it (`kernel/src/eval.rs`): a positive
//! pattern is a disjunction over the slots of its predicate, binding its fresh variables to the
//! slot's fields for the rest of the conjunction; a negation holds when no slot satisfies its
//! inner condition; a comparison with an unbound variable is false; arithmetic is checked (a
//! result outside the 64-bit range, or a division by zero, makes the comparison false); `/` and
//! `%` round toward zero. No quantifiers are needed.
//!
//! **Bounds and exactness.** A model is always a real belief set, so a `sat` answer is exact.
//! For `unsat`, the bound matters: a query is given as many slots per predicate as it has
//! occurrences of that predicate. Read with the negations pushed inwards, a belief test is an
//! `∃` over the atoms when it is under an even number of negations (counting the negation the
//! query itself puts around a condition) and a `∀` when under an odd number. A satisfying belief
//! set keeps satisfying the query when shrunk to the atoms that witness its `∃` tests — the `∀`
//! tests, over fewer atoms, stay true — and each `∃` test needs one witness, *unless* it reads a
//! variable a `∀` test binds (`¬(B made(n) ∧ ¬B done(n))`: one `done` atom per `made` atom, which
//! no fixed bound covers). So `unsat` is exact when no `∃` test reads a variable bound by a `∀`
//! test ([`dependency`]); otherwise [`Universe::exact`] is false and an `unsat` answer proves only
//! that no belief set within the bound satisfies the query.
//!
//! **Unbounded worlds.** [`Universe::unbounded`] encodes the same conditions over a belief set
//! that is an uninterpreted predicate per belief (any set of atoms, finite or not) with the belief
//! tests as quantifiers over its fields. Every real belief set is one, so an `unsat` there is
//! exact whatever the nesting; a model may be an infinite set, so its `sat` proves nothing.

use hilbert_certificates::ir::{
    AgentId, ArithOp, CompareOp, Cond, CondTerm, Ir, Literal, Pattern, PatternArg, Type,
};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use z3::ast::{Ast, Bool, Int};
use z3::{FuncDecl, Sort};

/// A predicate: `None` for the agent's own belief, `Some(j)` for `B(j) f`; and the belief.
pub type Key = (Option<u32>, u32);

/// One slot of a world: whether it holds an atom, and the atom's fields.
#[derive(Clone, Debug)]
pub struct Slot {
    /// Whether the slot's atom is believed.
    pub present: Bool,
    /// The fields: constants of the query, or the numerals of [`Slot::atom`].
    pub fields: Vec<Int>,
    /// For a *ground slot*, the one atom it can hold (its fields' values): a belief test whose
    /// arguments are all literals reads only the ground slot of its atom, so a rule of n ground
    /// tests is n terms, not n² (issue 32). `None` for a free slot, which holds any atom.
    pub atom: Option<Vec<i64>>,
}

impl Slot {
    /// The query's constants of this slot: its `present`, and its fields unless it is a ground
    /// slot (whose fields are numerals, over which nothing can be quantified).
    pub fn constants(&self) -> Vec<&dyn Ast> {
        let mut out: Vec<&dyn Ast> = vec![&self.present];
        if self.atom.is_none() {
            out.extend(self.fields.iter().map(|f| f as &dyn Ast));
        }
        out
    }
}

/// A bounded belief set and an attention.
#[derive(Clone, Debug)]
pub struct World {
    /// The prefix of its constants' names.
    pub name: String,
    /// The slots of each predicate: its ground slots first, sorted by their atoms, then its
    /// free slots.
    pub slots: BTreeMap<Key, Vec<Slot>>,
    /// The attention (index into the agent's attentions).
    pub attention: Int,
    /// The ranges of its fields and attention.
    pub constraints: Vec<Bool>,
    /// In an unbounded universe ([`Universe::unbounded`]), each predicate's set of atoms: a
    /// Boolean function of its fields (the slots are then empty).
    pub preds: BTreeMap<Key, Rc<FuncDecl>>,
}

/// How a query reads a condition: as it is, negated, or both ways (for instance an attend rule
/// in `in(x | b, a)`, which needs it to hold or no rule to hold). Exactness depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Only as it is.
    Positive,
    /// Only under the query's negation.
    Negative,
    /// Both.
    Both,
}

impl Reading {
    /// Whether the query's negation is around the condition, for each way it is read.
    pub fn negations(self) -> &'static [bool] {
        match self {
            Reading::Positive => &[false],
            Reading::Negative => &[true],
            Reading::Both => &[false, true],
        }
    }
}

/// Why `unsat` over the bounds is not exact for a condition (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// The belief test of `test` must be witnessed (an `∃`) but reads a variable bound by the
    /// belief test of `binder` under one negation more or fewer (a `∀`): one witness per atom.
    Reads {
        /// The predicate of the `∃` test.
        test: Key,
        /// The predicate of the `∀` test that binds the variable it reads.
        binder: Key,
    },
    /// The condition has too many branches to be examined ([`MAX_STEPS`]).
    TooLarge,
}

/// The encoding context of one agent's conditions.
pub struct Universe<'a> {
    ir: &'a Ir,
    agent: usize,
    /// The free slots of each predicate a condition tests.
    bounds: BTreeMap<Key, usize>,
    /// The atoms of each predicate's ground slots: those its tests name by literals alone.
    ground: BTreeMap<Key, BTreeSet<Vec<i64>>>,
    strings: BTreeMap<String, i64>,
    /// Whether `unsat` answers over these bounds are exact (see the module docs); always true
    /// for an unbounded universe, whose worlds are every belief set.
    pub exact: bool,
    /// The agent parameters with no value the conditions read (indices, sorted).
    pub params: Vec<u32>,
    /// Encoding steps taken; past [`MAX_STEPS`] the encoding gives up.
    steps: std::cell::Cell<usize>,
    /// Slots read by belief tests; past [`MAX_SLOTS`] the encoding gives up.
    slots: std::cell::Cell<usize>,
    /// Encoding work done since the resident set was last read ([`METER_EVERY`]).
    work: std::cell::Cell<usize>,
    /// Whether worlds are unbounded ([`Universe::unbounded`]).
    unbounded: bool,
    /// Bound variables made so far (unbounded universes name each quantifier's own).
    fresh: std::cell::Cell<usize>,
}

/// The encoding of one query gives up beyond this many steps (patterns multiply the rest of a
/// conjunction by their slots, disjunctions by their branches): [`Universe::gave_up`].
pub const MAX_STEPS: usize = 20_000;

/// The encoding of one query gives up beyond this many slots read by its belief tests: a test
/// of one predicate among n disjuncts reads n slots, so n such tests make n² terms (1,000
/// disjuncts took 4.1 GB, issue 32). 100,000 keeps a query's terms to some hundreds of MB
/// (300 disjuncts, 90,000 slots, are still encoded).
pub const MAX_SLOTS: usize = 200_000;

thread_local! {
    /// The resident set past which an encoding on this thread gives up (the share of
    /// `--max-memory` Z3 may use: [`crate::Options::memory_share`]), set by [`crate::Log::new`].
    static SHARE: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
    /// The resident set read when this thread's check was found past its share (by an
    /// encoding, a query, or a Z3 failure), and whether Z3 had reached its own cap then (see
    /// [`crate::Log::new`]): from then on no encoding is made and no query asked.
    static PASSED: std::cell::Cell<Option<(u64, bool)>> = const { std::cell::Cell::new(None) };
}

/// Sets the resident set past which this thread's encodings give up, and forgets any earlier
/// stop ([`crate::Log::new`]).
pub(crate) fn set_memory_share(share: Option<u64>) {
    SHARE.with(|s| s.set(share));
    PASSED.with(|p| p.set(None));
}

/// The resident set read when this thread's check was found past its share of `--max-memory`.
pub(crate) fn memory_passed() -> Option<u64> {
    PASSED.with(std::cell::Cell::get).map(|(rss, _)| rss)
}

/// Whether Z3 had reached its own cap (its `memory_max_size`) when this thread's check was
/// found past its share.
pub(crate) fn memory_passed_by_z3() -> bool {
    PASSED.with(std::cell::Cell::get).is_some_and(|(_, z3)| z3)
}

/// Records that this thread's check passed its share, with the resident set read and whether
/// Z3 had reached its own cap (the first record is kept).
pub(crate) fn record_memory_passed(rss: u64, z3: bool) {
    PASSED.with(|p| {
        if p.get().is_none() {
            p.set(Some((rss, z3)));
        }
    });
}

/// The resident set now if this thread has a share of `--max-memory` and the process is past
/// it (and records it: [`record_memory_passed`]); `None` otherwise, or off Linux.
pub(crate) fn read_past_share() -> Option<u64> {
    let share = SHARE.with(std::cell::Cell::get)?;
    let rss = crate::meter::resident().filter(|&rss| rss > share)?;
    record_memory_passed(rss, false);
    Some(rss)
}

/// Encoding work between two readings of the resident set (a reading costs some 20 µs).
const METER_EVERY: usize = 4096;

/// The predicate of every belief test of a condition, once per occurrence, with the test's
/// pattern.
fn walk<'c>(c: &'c Cond, out: &mut Vec<(Key, &'c Pattern)>) {
    match c {
        Cond::Believes(p) => out.push(((None, p.belief.0), p)),
        Cond::Told(AgentId(j), p) => out.push(((Some(*j), p.belief.0), p)),
        Cond::Not(inner) => walk(inner, out),
        Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|x| walk(x, out)),
        _ => {}
    }
}

/// The variables a term reads.
fn term_vars(t: &CondTerm, out: &mut BTreeSet<u32>) {
    match t {
        CondTerm::Var(i) => {
            out.insert(*i);
        }
        CondTerm::Literal(_) | CondTerm::Param(_) => {}
        CondTerm::Neg(a) => term_vars(a, out),
        CondTerm::Arith(_, a, b) => {
            term_vars(a, out);
            term_vars(b, out);
        }
        CondTerm::Chain(a, rest) => {
            term_vars(a, out);
            rest.iter().for_each(|(_, b)| term_vars(b, out));
        }
    }
}

/// The variables a condition mentions (reads or binds).
fn cond_vars(c: &Cond, out: &mut BTreeSet<u32>) {
    match c {
        Cond::Believes(p) | Cond::Told(_, p) => {
            for a in &p.args {
                if let PatternArg::Var(i) = a {
                    out.insert(*i);
                }
            }
        }
        Cond::Compare(_, a, b) => {
            term_vars(a, out);
            term_vars(b, out);
        }
        Cond::Not(x) => cond_vars(x, out),
        Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|x| cond_vars(x, out)),
        Cond::True | Cond::False | Cond::Attending(_) | Cond::Desires(_) | Cond::Intends(_) => {}
    }
}

fn key_of(c: &Cond) -> Option<(Key, &Pattern)> {
    match c {
        Cond::Believes(p) => Some(((None, p.belief.0), p)),
        Cond::Told(AgentId(j), p) => Some(((Some(*j), p.belief.0), p)),
        _ => None,
    }
}

/// Why `unsat` over the bounds is not exact for `cond` read under the query's negation or not
/// (`negated`): the first belief test that is an `∃` (under an even number of negations) and
/// reads a variable a `∀` test binds (under an odd number). `None`: one witness per `∃` test
/// suffices, and `unsat` within the bounds is `unsat` (the module docs give the argument).
///
/// The walk follows [`Universe::holds`]: a pattern binds its fresh variables for the rest of its
/// conjunction, a negation's bindings do not escape it, and a disjunction's branches each go on
/// with the rest.
pub fn dependency(cond: &Cond, negated: bool) -> Option<Dependency> {
    // Per variable, when bound: whether by a `∀` test, and the test's predicate.
    type Env = Vec<Option<(bool, Key)>>;
    fn go(goals: &[&Cond], odd: bool, env: &mut Env, steps: &mut usize) -> Option<Dependency> {
        let (first, rest) = goals.split_first()?;
        *steps += 1;
        if *steps > MAX_STEPS {
            return Some(Dependency::TooLarge);
        }
        match first {
            Cond::True
            | Cond::Attending(_)
            | Cond::Desires(_)
            | Cond::Intends(_)
            | Cond::Compare(..) => go(rest, odd, env, steps),
            Cond::False => None,
            Cond::Not(inner) => {
                let mut scratch = env.clone();
                go(&[inner], !odd, &mut scratch, steps).or_else(|| go(rest, odd, env, steps))
            }
            Cond::And(parts) => {
                let mut all: Vec<&Cond> = parts.iter().collect();
                all.extend_from_slice(rest);
                go(&all, odd, env, steps)
            }
            Cond::Or(parts) => parts.iter().find_map(|p| {
                let mut e = env.clone();
                let mut all = vec![p];
                all.extend_from_slice(rest);
                go(&all, odd, &mut e, steps)
            }),
            Cond::Believes(_) | Cond::Told(..) => {
                let (key, p) = key_of(first)?;
                if !odd {
                    // An `∃`: what it and the rest of its conjunction read must not depend on
                    // the atom a `∀` test ranges over.
                    let mut read = BTreeSet::new();
                    cond_vars(first, &mut read);
                    rest.iter().for_each(|c| cond_vars(c, &mut read));
                    for i in read {
                        if let Some(Some((true, binder))) = env.get(i as usize) {
                            return Some(Dependency::Reads {
                                test: key,
                                binder: *binder,
                            });
                        }
                    }
                }
                for a in &p.args {
                    if let PatternArg::Var(i) = a {
                        let i = *i as usize;
                        if env.len() <= i {
                            env.resize(i + 1, None);
                        }
                        if env[i].is_none() {
                            env[i] = Some((odd, key));
                        }
                    }
                }
                go(rest, odd, env, steps)
            }
        }
    }
    go(&[cond], negated, &mut Vec::new(), &mut 0)
}

fn strings_of_term(t: &CondTerm, out: &mut Vec<String>) {
    match t {
        CondTerm::Literal(Literal::Str(s)) => out.push(s.clone()),
        CondTerm::Arith(_, a, b) => {
            strings_of_term(a, out);
            strings_of_term(b, out);
        }
        CondTerm::Neg(a) => strings_of_term(a, out),
        CondTerm::Chain(a, rest) => {
            strings_of_term(a, out);
            rest.iter().for_each(|(_, b)| strings_of_term(b, out));
        }
        _ => {}
    }
}

fn strings_of(c: &Cond, out: &mut Vec<String>) {
    match c {
        Cond::Believes(p) | Cond::Told(_, p) => {
            for a in &p.args {
                if let PatternArg::Literal(Literal::Str(s)) = a {
                    out.push(s.clone());
                }
            }
        }
        Cond::Compare(_, a, b) => {
            strings_of_term(a, out);
            strings_of_term(b, out);
        }
        Cond::Not(x) => strings_of(x, out),
        Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// `i64` bounds as Z3 integers.
fn in_i64(x: &Int) -> Bool {
    Bool::and(&[x.ge(Int::from_i64(i64::MIN)), x.le(Int::from_i64(i64::MAX))])
}

/// The values of a field or parameter of type `t`: 0 and 1 for `Bool`, the 64-bit integers
/// otherwise (a string is any integer's code, and codes are 64-bit too).
fn in_type(x: &Int, t: &Type) -> Bool {
    match t {
        Type::Bool => Bool::or(&[x.eq(Int::from_i64(0)), x.eq(Int::from_i64(1))]),
        _ => in_i64(x),
    }
}

impl<'a> Universe<'a> {
    /// The encoding of the conditions `parts` of agent `agent`, each evaluated `negated` or not
    /// (the flag counts for exactness): the slot bounds are the positive occurrences of each
    /// predicate, over all parts, times `copies` (the number of worlds a part may be evaluated
    /// on is irrelevant: each world gets the bounds).
    pub fn new(ir: &'a Ir, agent: usize, parts: &[(&Cond, Reading)]) -> Universe<'a> {
        let mut occurrences = Vec::new();
        let mut params = Vec::new();
        for (c, _) in parts {
            walk(c, &mut occurrences);
            c.unset_params(&mut params);
        }
        params.sort_unstable();
        params.dedup();
        // A condition with too many branches to examine has too many to encode: the encoding
        // gives up from the start, and its worlds get no slots (20,000 disjuncts made 20,000
        // slots a world before giving up, 470 MB of Z3 terms over a check).
        let mut exact = true;
        let mut too_large = false;
        for (c, reading) in parts {
            for &neg in reading.negations() {
                match dependency(c, neg) {
                    None => {}
                    Some(Dependency::TooLarge) => {
                        exact = false;
                        too_large = true;
                    }
                    Some(Dependency::Reads { .. }) => exact = false,
                }
            }
        }
        // Every string literal of the agent's rules gets a code, so that two queries of one
        // agent agree on them.
        let mut strings = Vec::new();
        if let Some(a) = ir.agents.get(agent) {
            for c in a
                .intends
                .iter()
                .map(|i| &i.cond)
                .chain(a.attends.iter().map(|(c, _)| c))
                .chain(a.rewards.iter().map(|r| &r.cond))
                .chain(a.desires.iter().flat_map(|d| d.achieved.iter()))
                .chain(
                    a.desires
                        .iter()
                        .flat_map(|d| d.impossible.iter().map(|(c, _)| c)),
                )
            {
                strings_of(c, &mut strings);
            }
        }
        for (c, _) in parts {
            strings_of(c, &mut strings);
        }
        strings.sort();
        strings.dedup();
        let strings: BTreeMap<String, i64> = strings
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s, i as i64))
            .collect();
        // A test whose arguments are all literals reads one ground slot, its atom's; the
        // others read the free slots, one per such test (see the module docs). When `unsat`
        // is not exact anyway, the free slots are as many as the tests, so that a bounded
        // `sat` finds at least what it found when every slot was free.
        let mut bounds: BTreeMap<Key, usize> = BTreeMap::new();
        let mut ground: BTreeMap<Key, BTreeSet<Vec<i64>>> = BTreeMap::new();
        for (key, p) in occurrences {
            if too_large {
                break;
            }
            bounds.entry(key).or_default();
            match ground_atom(&strings, p) {
                Some(atom) => {
                    ground.entry(key).or_default().insert(atom);
                    if !exact {
                        *bounds.entry(key).or_default() += 1;
                    }
                }
                None => *bounds.entry(key).or_default() += 1,
            }
        }
        Universe {
            ir,
            agent,
            bounds,
            ground,
            strings,
            exact,
            params,
            steps: std::cell::Cell::new(if too_large { MAX_STEPS + 1 } else { 0 }),
            slots: std::cell::Cell::new(0),
            work: std::cell::Cell::new(0),
            unbounded: false,
            fresh: std::cell::Cell::new(0),
        }
    }

    /// The same conditions over unbounded worlds: each predicate an uninterpreted Boolean
    /// function of its fields (any set of atoms), each belief test a quantifier over them. Its
    /// `unsat` is exact whatever the negations; its `sat` is not (see the module docs).
    pub fn unbounded(ir: &'a Ir, agent: usize, parts: &[(&Cond, Reading)]) -> Universe<'a> {
        let mut u = Universe::new(ir, agent, parts);
        u.unbounded = true;
        u.exact = true;
        u
    }

    /// Whether the worlds are unbounded ([`Universe::unbounded`]): a `sat` is then no witness.
    pub fn is_unbounded(&self) -> bool {
        self.unbounded
    }

    /// Whether an encoding passed [`MAX_STEPS`] or [`MAX_SLOTS`]: its formulas are then
    /// meaningless and no query may be asked with them.
    pub fn gave_up(&self) -> bool {
        self.steps.get() > MAX_STEPS || self.slots.get() > MAX_SLOTS
    }

    /// Whether an encoding gave up because the process passed its share of `--max-memory`
    /// (any encoding on this thread since the bound was set: from then on each gives up).
    pub fn out_of_memory(&self) -> bool {
        memory_passed().is_some()
    }

    /// Counts `n` units of encoding work; every [`METER_EVERY`] reads the resident set, and past
    /// this thread's share of `--max-memory` gives the encoding up ([`Universe::gave_up`]).
    fn meter(&self, n: usize) {
        if memory_passed().is_some() {
            self.steps.set(MAX_STEPS + 1);
            return;
        }
        let work = self.work.get().saturating_add(n);
        if work < METER_EVERY {
            self.work.set(work);
            return;
        }
        self.work.set(0);
        if read_past_share().is_some() {
            self.steps.set(MAX_STEPS + 1);
        }
    }

    fn fields(&self, key: Key) -> Vec<(String, Type)> {
        let holder = key.0.map_or(self.agent, |j| j as usize);
        self.ir
            .agents
            .get(holder)
            .and_then(|a| a.beliefs.get(key.1 as usize))
            .map(|b| b.fields.clone())
            .unwrap_or_default()
    }

    /// A predicate's name: `made`, or `B_Client_delivered` for what another agent was told.
    pub fn pred_name(&self, key: Key) -> String {
        let holder = key.0.map_or(self.agent, |j| j as usize);
        let name = self
            .ir
            .agents
            .get(holder)
            .and_then(|a| a.beliefs.get(key.1 as usize))
            .map_or("?", |b| b.name.as_str());
        match key.0 {
            None => name.to_string(),
            Some(_) => format!(
                "B_{}_{}",
                self.ir.agents.get(holder).map_or("?", |a| a.name.as_str()),
                name
            ),
        }
    }

    /// The string a code stands for, if it is one of the literals' codes.
    pub fn string_of(&self, code: i64) -> Option<&str> {
        self.strings
            .iter()
            .find(|(_, c)| **c == code)
            .map(|(s, _)| s.as_str())
    }

    /// A fresh world whose constants are named `prefix.…`.
    pub fn world(&self, prefix: &str) -> World {
        let mut slots = BTreeMap::new();
        let mut preds = BTreeMap::new();
        let mut constraints = Vec::new();
        for &i in &self.params {
            constraints.push(in_type(&param(i), &self.param_type(i)));
        }
        for (&key, &n) in &self.bounds {
            let pred = self.pred_name(key);
            let fields = self.fields(key);
            if self.unbounded {
                let sorts: Vec<Sort> = fields.iter().map(|_| Sort::int()).collect();
                let domain: Vec<&Sort> = sorts.iter().collect();
                let f = FuncDecl::new(format!("{prefix}.{pred}"), &domain, &Sort::bool());
                preds.insert(key, Rc::new(f));
                continue;
            }
            let mut v = Vec::new();
            for (k, atom) in self.ground.get(&key).into_iter().flatten().enumerate() {
                let present = Bool::new_const(format!("{prefix}.{pred}.g{k}"));
                // A literal outside its field's type (none passes the type checks) names an
                // atom no belief set holds.
                let typed = fields.iter().zip(atom).all(|((_, t), &x)| match t {
                    Type::Bool => x == 0 || x == 1,
                    _ => true,
                });
                if !typed {
                    constraints.push(present.not());
                }
                v.push(Slot {
                    present,
                    fields: atom.iter().map(|&x| Int::from_i64(x)).collect(),
                    atom: Some(atom.clone()),
                });
            }
            for k in 0..n {
                let present = Bool::new_const(format!("{prefix}.{pred}.{k}"));
                let fs: Vec<Int> = fields
                    .iter()
                    .map(|(f, t)| {
                        let x = Int::new_const(format!("{prefix}.{pred}.{k}.{f}"));
                        constraints.push(in_type(&x, t));
                        x
                    })
                    .collect();
                v.push(Slot {
                    present,
                    fields: fs,
                    atom: None,
                });
            }
            slots.insert(key, v);
        }
        let attention = Int::new_const(format!("{prefix}.attention"));
        let n_att = self
            .ir
            .agents
            .get(self.agent)
            .map_or(1, |a| a.attentions.len().max(1));
        constraints.push(attention.ge(Int::from_i64(0)));
        constraints.push(attention.lt(Int::from_i64(n_att as i64)));
        World {
            name: prefix.to_string(),
            slots,
            attention,
            constraints,
            preds,
        }
    }

    /// The ranges of the parameters with no value the conditions read (every world's
    /// constraints include them too).
    pub fn param_constraints(&self) -> Vec<Bool> {
        self.params
            .iter()
            .map(|&i| in_type(&param(i), &self.param_type(i)))
            .collect()
    }

    fn param_type(&self, i: u32) -> Type {
        self.ir
            .agents
            .get(self.agent)
            .and_then(|a| a.params.get(i as usize))
            .map_or(Type::Int, |(_, t)| t.clone())
    }

    /// The values a model gives the parameters with no value the conditions read, as
    /// `name = value` (a string that is none of the literals is `"?k"`).
    pub fn describe_params(&self, model: &z3::Model) -> Vec<String> {
        self.params
            .iter()
            .map(|&i| {
                let name = self
                    .ir
                    .agents
                    .get(self.agent)
                    .and_then(|a| a.params.get(i as usize))
                    .map_or("?", |(n, _)| n.as_str());
                let v = model
                    .eval(&param(i), true)
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0);
                format!("{name} = {}", self.show_value(v, &self.param_type(i)))
            })
            .collect()
    }

    /// A field's or parameter's value as a person reads it.
    fn show_value(&self, v: i64, t: &Type) -> String {
        match t {
            Type::Bool => (v != 0).to_string(),
            Type::Str => match self.string_of(v) {
                Some(s) => format!("{s:?}"),
                None => format!("\"?{v}\""),
            },
            _ => v.to_string(),
        }
    }

    /// The belief set and attention a model gives world `w`: each present slot's atom as a
    /// person reads it (`made(3)`, `B(Client) delivered(7)`; a string that is none of the
    /// literals is `"?k"`), and the attention's index.
    pub fn describe(&self, model: &z3::Model, w: &World) -> (Vec<String>, i64) {
        let mut atoms = Vec::new();
        for (&key, slots) in &w.slots {
            let types = self.fields(key);
            for slot in slots {
                if model.eval(&slot.present, true).and_then(|b| b.as_bool()) != Some(true) {
                    continue;
                }
                let args: Vec<String> = slot
                    .fields
                    .iter()
                    .zip(&types)
                    .map(|(x, (_, t))| {
                        let v = model.eval(x, true).and_then(|v| v.as_i64()).unwrap_or(0);
                        self.show_value(v, t)
                    })
                    .collect();
                let text = self.ir.atom_text(
                    AgentId(self.agent as u32),
                    key.0.map(AgentId),
                    hilbert_certificates::ir::BeliefId(key.1),
                    &args,
                );
                if !atoms.contains(&text) {
                    atoms.push(text);
                }
            }
        }
        atoms.sort();
        let attention = model
            .eval(&w.attention, true)
            .and_then(|v| v.as_i64())
            .unwrap_or(0);
        (atoms, attention)
    }

    /// Whether `cond` holds in `w`.
    pub fn holds(&self, w: &World, cond: &Cond) -> Bool {
        self.solve(w, &[cond], &mut Vec::new())
    }

    fn literal(&self, l: &Literal) -> Int {
        Int::from_i64(code(&self.strings, l))
    }

    fn solve(&self, w: &World, goals: &[&Cond], env: &mut Vec<Option<Int>>) -> Bool {
        let Some((first, rest)) = goals.split_first() else {
            return Bool::from_bool(true);
        };
        self.steps.set(self.steps.get() + 1);
        self.meter(1);
        if self.gave_up() {
            return Bool::from_bool(false);
        }
        match first {
            Cond::True => self.solve(w, rest, env),
            Cond::False => Bool::from_bool(false),
            Cond::Attending(a) => Bool::and(&[
                w.attention.eq(Int::from_i64(i64::from(*a))),
                self.solve(w, rest, env),
            ]),
            // Only an `assert` reads what the agent desires or intends, and the analyses read
            // the rules alone: the encoding has no meaning for them and nothing asks it one.
            Cond::Desires(_) | Cond::Intends(_) => {
                self.steps.set(MAX_STEPS + 1);
                Bool::from_bool(false)
            }
            Cond::Compare(op, a, b) => {
                let here = match (self.term(a, env), self.term(b, env)) {
                    (Some((x, mut gx)), Some((y, gy))) => {
                        gx.extend(gy);
                        gx.push(match op {
                            CompareOp::Eq => x.eq(&y),
                            CompareOp::Ne => x.eq(&y).not(),
                            CompareOp::Lt => x.lt(&y),
                            CompareOp::Le => x.le(&y),
                            CompareOp::Gt => x.gt(&y),
                            CompareOp::Ge => x.ge(&y),
                        });
                        Bool::and(&gx)
                    }
                    _ => Bool::from_bool(false),
                };
                Bool::and(&[here, self.solve(w, rest, env)])
            }
            Cond::Not(inner) => {
                let mut scratch = env.clone();
                let inner = self.solve(w, &[inner], &mut scratch);
                Bool::and(&[inner.not(), self.solve(w, rest, env)])
            }
            Cond::And(parts) => {
                let mut all: Vec<&Cond> = parts.iter().collect();
                all.extend_from_slice(rest);
                self.solve(w, &all, env)
            }
            Cond::Or(parts) => {
                let branches: Vec<Bool> = parts
                    .iter()
                    .map(|p| {
                        let mut e = env.clone();
                        let mut all = vec![p];
                        all.extend_from_slice(rest);
                        self.solve(w, &all, &mut e)
                    })
                    .collect();
                Bool::or(&branches)
            }
            Cond::Believes(p) => self.pattern(w, (None, p.belief.0), p, rest, env),
            Cond::Told(AgentId(j), p) => self.pattern(w, (Some(*j), p.belief.0), p, rest, env),
        }
    }

    fn pattern(
        &self,
        w: &World,
        key: Key,
        p: &Pattern,
        rest: &[&Cond],
        env: &[Option<Int>],
    ) -> Bool {
        if self.unbounded {
            return self.quantified(w, key, p, rest, env);
        }
        let Some(slots) = w.slots.get(&key) else {
            return Bool::from_bool(false);
        };
        // The ground slots come first, sorted by their atoms. A ground test reads its atom's
        // ground slot and the free slots; any other test, the ground slots its literals do not
        // rule out and the free slots.
        let (ground, free) = slots.split_at(slots.partition_point(|s| s.atom.is_some()));
        let read: Vec<&Slot> = match ground_atom(&self.strings, p) {
            Some(atom) => ground
                .binary_search_by(|s| s.atom.as_ref().map_or(Ordering::Less, |a| a.cmp(&atom)))
                .ok()
                .map(|i| &ground[i])
                .into_iter()
                .chain(free)
                .collect(),
            None => ground
                .iter()
                .filter(|s| {
                    s.atom.as_ref().is_some_and(|atom| {
                        atom.len() == p.args.len()
                            && p.args.iter().zip(atom).all(|(arg, &x)| match arg {
                                PatternArg::Literal(l) => code(&self.strings, l) == x,
                                _ => true,
                            })
                    })
                })
                .chain(free)
                .collect(),
        };
        // Each slot read is counted against the budget of the encoding ([`MAX_SLOTS`]).
        self.slots.set(self.slots.get().saturating_add(read.len()));
        self.meter(read.len());
        if self.gave_up() {
            return Bool::from_bool(false);
        }
        let mut branches = Vec::new();
        for slot in read {
            if slot.fields.len() != p.args.len() {
                continue;
            }
            let mut e = env.to_vec();
            let mut parts = vec![slot.present.clone()];
            for (arg, field) in p.args.iter().zip(&slot.fields) {
                match arg {
                    PatternArg::Any => {}
                    // A ground slot's literals were matched above.
                    PatternArg::Literal(_) if slot.atom.is_some() => {}
                    PatternArg::Literal(l) => parts.push(field.eq(self.literal(l))),
                    PatternArg::Param(i) => parts.push(field.eq(param(*i))),
                    PatternArg::Var(i) => match var(&mut e, *i) {
                        Some(bound) => parts.push(field.eq(&*bound)),
                        slot => *slot = Some(field.clone()),
                    },
                }
            }
            parts.push(self.solve(w, rest, &mut e));
            branches.push(Bool::and(&parts));
        }
        Bool::or(&branches)
    }

    /// A pattern over an unbounded world: `∃ fresh. f(args) ∧ ranges ∧ rest`, the fresh
    /// variables being its `_` fields and the variables it binds.
    fn quantified(
        &self,
        w: &World,
        key: Key,
        p: &Pattern,
        rest: &[&Cond],
        env: &[Option<Int>],
    ) -> Bool {
        let Some(f) = w.preds.get(&key) else {
            return Bool::from_bool(false);
        };
        let types = self.fields(key);
        if types.len() != p.args.len() {
            return Bool::from_bool(false);
        }
        let mut e = env.to_vec();
        let mut bound: Vec<Int> = Vec::new();
        let mut parts: Vec<Bool> = Vec::new();
        let mut args: Vec<Int> = Vec::new();
        for (arg, (_, t)) in p.args.iter().zip(&types) {
            let mut fresh = || {
                let n = self.fresh.get();
                self.fresh.set(n + 1);
                let x = Int::new_const(format!("{}.q{n}", w.name));
                parts.push(in_type(&x, t));
                bound.push(x.clone());
                x
            };
            args.push(match arg {
                PatternArg::Any => fresh(),
                PatternArg::Literal(l) => self.literal(l),
                PatternArg::Param(i) => param(*i),
                PatternArg::Var(i) => var(&mut e, *i).get_or_insert_with(fresh).clone(),
            });
        }
        let refs: Vec<&dyn Ast> = args.iter().map(|x| x as &dyn Ast).collect();
        let Some(member) = f.apply(&refs).as_bool() else {
            return Bool::from_bool(false);
        };
        parts.insert(0, member);
        parts.push(self.solve(w, rest, &mut e));
        let body = Bool::and(&parts);
        if bound.is_empty() {
            body
        } else {
            let vars: Vec<&dyn Ast> = bound.iter().map(|x| x as &dyn Ast).collect();
            z3::ast::exists_const(&vars, &[], &body)
        }
    }

    /// A term's value and the guards under which the kernel computes it (no overflow, no
    /// division by zero); `None` when it reads an unbound variable.
    fn term(&self, t: &CondTerm, env: &[Option<Int>]) -> Option<(Int, Vec<Bool>)> {
        Some(match t {
            CondTerm::Literal(l) => (self.literal(l), Vec::new()),
            CondTerm::Param(i) => (param(*i), Vec::new()),
            CondTerm::Var(i) => (env.get(*i as usize).cloned().flatten()?, Vec::new()),
            CondTerm::Neg(a) => {
                let (x, mut g) = self.term(a, env)?;
                let r = match x.as_i64() {
                    // A constant is negated here, as the kernel does (the guard is false on
                    // overflow).
                    Some(n) => folded(n.checked_neg(), &mut g),
                    None => {
                        let r = x.unary_minus();
                        g.push(in_i64(&r));
                        r
                    }
                };
                (r, g)
            }
            CondTerm::Arith(op, a, b) => {
                let (x, mut g) = self.term(a, env)?;
                let (y, gy) = self.term(b, env)?;
                g.extend(gy);
                (arith(*op, &x, &y, &mut g), g)
            }
            // As the tree it stands for: each step's guards (its operand's, then its own).
            CondTerm::Chain(a, rest) => {
                let (mut x, mut g) = self.term(a, env)?;
                for (op, b) in rest {
                    // A chain of 2,000,000 terms is 2,000,000 steps of the encoding.
                    self.meter(1);
                    if self.gave_up() {
                        return None;
                    }
                    let (y, gy) = self.term(b, env)?;
                    g.extend(gy);
                    x = arith(*op, &x, &y, &mut g);
                }
                (x, g)
            }
        })
    }
}

/// A constant the encoding computed itself: its value, or 0 under a false guard when the
/// kernel's checked arithmetic fails (an overflow, a division by zero).
fn folded(value: Option<i64>, g: &mut Vec<Bool>) -> Int {
    match value {
        Some(v) => Int::from_i64(v),
        None => {
            g.push(Bool::from_bool(false));
            Int::from_i64(0)
        }
    }
}

/// `x op y` as the kernel computes it, pushing onto `g` the guards under which it does (a
/// nonzero divisor, a result in the 64-bit range). Two constants are computed here with the
/// kernel's checked arithmetic (`kernel/src/eval.rs`), so a sum of a million ones is one
/// number, not a million terms and their guards (issue 32).
fn arith(op: ArithOp, x: &Int, y: &Int, g: &mut Vec<Bool>) -> Int {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return folded(
            match op {
                ArithOp::Add => a.checked_add(b),
                ArithOp::Sub => a.checked_sub(b),
                ArithOp::Mul => a.checked_mul(b),
                ArithOp::Div => a.checked_div(b),
                ArithOp::Rem => a.checked_rem(b),
            },
            g,
        );
    }
    let zero = Int::from_i64(0);
    let quotient = || {
        x.ge(&zero)
            .ite(&x.div(y), &x.unary_minus().div(y).unary_minus())
    };
    let r = match op {
        ArithOp::Add => Int::add(&[x, y]),
        ArithOp::Sub => Int::sub(&[x, y]),
        ArithOp::Mul => Int::mul(&[x, y]),
        ArithOp::Div => {
            g.push(y.eq(&zero).not());
            quotient()
        }
        ArithOp::Rem => {
            g.push(y.eq(&zero).not());
            // The kernel's `checked_rem` fails where the quotient overflows (i64::MIN % -1).
            let q = quotient();
            g.push(in_i64(&q));
            Int::sub(&[x.clone(), Int::mul(&[y.clone(), q])])
        }
    };
    g.push(in_i64(&r));
    r
}

/// A literal's value as a field holds it: an integer, 0 or 1, a string's code (-1 for a string
/// that is none of the literals', which cannot happen for the literals of the conditions).
fn code(strings: &BTreeMap<String, i64>, l: &Literal) -> i64 {
    match l {
        Literal::Int(n) => *n,
        Literal::Bool(b) => i64::from(*b),
        Literal::Str(s) => strings.get(s).copied().unwrap_or(-1),
    }
}

/// The atom a belief test names when its arguments are all literals (a ground test), as the
/// values of its fields.
fn ground_atom(strings: &BTreeMap<String, i64>, p: &Pattern) -> Option<Vec<i64>> {
    p.args
        .iter()
        .map(|a| match a {
            PatternArg::Literal(l) => Some(code(strings, l)),
            _ => None,
        })
        .collect()
}

/// Variable `i` of an environment, which grows to hold it.
fn var(e: &mut Vec<Option<Int>>, i: u32) -> &mut Option<Int> {
    let i = i as usize;
    if e.len() <= i {
        e.resize(i + 1, None);
    }
    &mut e[i]
}

/// An agent parameter with no value: one unknown constant, the same in every world of a query
/// (a query's `unsat` then holds whatever its value).
fn param(i: u32) -> Int {
    Int::new_const(format!("param{i}"))
}
