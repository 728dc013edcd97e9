//! Condition analysis of one agent's rules with Z3 (over the bounded belief sets of
//! [`crate::cond`]) and egg ([`crate::normal`]).
//!
//! - **Dead rule**: a condition no belief set and attention satisfies (`φ` unsat).
//! - **Adopted and released at once**: an `intend P for D when φ` whose condition *implies* D's
//!   achieved condition (`φ ∧ ¬(α₁ ∨ …)` unsat): the intention would be released the moment it is
//!   adopted. Hilbert asks for implication, not for "can hold together": belief sets are sets of
//!   atoms, so `made(n) ∧ n < 3` and `made(3)` hold together in the set `{made(1), made(3)}`, and
//!   the weaker question would flag every counting desire, the seed's among them.
//! - **Overlapping intentions**: two `intend` rules for one desire, with different plans, whose
//!   conditions can hold together (`φ₁ ∧ φ₂` sat): both plans are then licensed and the values
//!   must order them.
//! - **Duplicate and subsumed rules**: among rules of one kind and one target (the same `intend P
//!   for D`, `achieved D`, `impossible D`, `attend A`, `reward P ±`), a rule whose condition has
//!   the same egg normal form as an earlier one is a duplicate; one whose condition implies
//!   another's (`φ₁ ∧ ¬φ₂` unsat) is subsumed: the rules are a disjunction, so it adds nothing.
//!
//! Every finding rests on an answer Z3 gave and the encoding makes exact; an `unknown`, or an
//! `unsat` the bounds do not make exact, gives no finding.

use crate::cond::{Reading, Universe};
use crate::{Answer, Log, file_safe};
use hilbert_certificates::ir::{Cond, Ir};

/// A rule of an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// The `i`-th `intend`.
    Intend(usize),
    /// The `k`-th `achieved` rule of desire `d`.
    Achieved(usize, usize),
    /// The `k`-th `impossible` rule of desire `d`.
    Impossible(usize, usize),
    /// The `i`-th `when … attend`.
    Attend(usize),
    /// The `i`-th `reward`.
    Reward(usize),
}

impl Rule {
    /// A file-name-safe tag (`intend-0`, `achieved-1-0`).
    pub fn tag(&self) -> String {
        match self {
            Rule::Intend(i) => format!("intend-{i}"),
            Rule::Achieved(d, k) => format!("achieved-{d}-{k}"),
            Rule::Impossible(d, k) => format!("impossible-{d}-{k}"),
            Rule::Attend(i) => format!("attend-{i}"),
            Rule::Reward(i) => format!("reward-{i}"),
        }
    }
}

/// What the analysis found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The rule's condition can never hold.
    Dead(Rule),
    /// The `intend` rule's condition implies its desire's achieved condition.
    AdoptedAndReleased(usize),
    /// Two `intend` rules for one desire, with different plans, can hold together.
    Overlap(usize, usize),
    /// `rule` has the same normal form as the earlier `of`.
    Duplicate {
        /// The later rule.
        rule: Rule,
        /// The earlier one.
        of: Rule,
    },
    /// `rule`'s condition implies `by`'s (same kind and target).
    Subsumed {
        /// The rule that adds nothing.
        rule: Rule,
        /// The rule that covers it.
        by: Rule,
    },
}

/// Every rule of agent `a` with its condition and its "kind and target" (rules with equal ones
/// form a disjunction).
pub fn rules(ir: &Ir, a: usize) -> Vec<(Rule, &Cond, String)> {
    let Some(agent) = ir.agents.get(a) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, r) in agent.intends.iter().enumerate() {
        out.push((
            Rule::Intend(i),
            &r.cond,
            format!("intend {} {}", r.plan, r.desire),
        ));
    }
    for (d, desire) in agent.desires.iter().enumerate() {
        for (k, c) in desire.achieved.iter().enumerate() {
            out.push((Rule::Achieved(d, k), c, format!("achieved {d}")));
        }
        for (k, (c, _)) in desire.impossible.iter().enumerate() {
            out.push((Rule::Impossible(d, k), c, format!("impossible {d}")));
        }
    }
    for (i, (c, att)) in agent.attends.iter().enumerate() {
        out.push((Rule::Attend(i), c, format!("attend {att}")));
    }
    for (i, r) in agent.rewards.iter().enumerate() {
        out.push((
            Rule::Reward(i),
            &r.cond,
            format!("reward {} {}", r.plan, r.positive),
        ));
    }
    out
}

/// Whether the conjunction of the parts (each negated when its flag says so) is satisfiable:
/// `Some(false)` only for an exact `unsat`, `Some(true)` for `sat`, `None` otherwise.
pub fn satisfiable(
    ir: &Ir,
    agent: usize,
    parts: &[(&Cond, bool)],
    log: &mut Log,
    name: &str,
    question: &str,
) -> Option<bool> {
    let readings: Vec<(&Cond, Reading)> = parts
        .iter()
        .map(|(c, neg)| {
            let r = if *neg {
                Reading::Negative
            } else {
                Reading::Positive
            };
            (*c, r)
        })
        .collect();
    // Z3 failing on the way (`guarded`) concludes nothing, as an `unknown` does.
    crate::guarded(|| {
        let u = Universe::new(ir, agent, &readings);
        let w = u.world("w");
        let mut assertions = w.constraints.clone();
        for (c, neg) in parts {
            let h = u.holds(&w, c);
            assertions.push(if *neg { h.not() } else { h });
        }
        if u.gave_up() {
            return None;
        }
        let answer = log.check(name, question, &assertions);
        match answer {
            Answer::Sat => Some(true),
            Answer::Unsat if u.exact => Some(false),
            _ => None,
        }
    })
    .unwrap_or(None)
}

/// Analyses agent `a`. Rules for which `skip` says true (conditions the IR cannot represent
/// faithfully, such as those reading agent parameters) are left out.
pub fn analyse(ir: &Ir, a: usize, skip: &dyn Fn(Rule) -> bool, log: &mut Log) -> Vec<Finding> {
    let Some(agent) = ir.agents.get(a) else {
        return Vec::new();
    };
    let an = file_safe(&agent.name);
    let all: Vec<(Rule, &Cond, String)> = rules(ir, a)
        .into_iter()
        .filter(|(r, _, _)| !skip(*r))
        .collect();
    let mut findings = Vec::new();
    let mut dead = Vec::new();
    for (r, c, _) in &all {
        let q = format!("{an}.dead.{}", r.tag());
        let question = format!(
            "can the condition of {} of agent {} hold? (unsat: the rule is dead)",
            r.tag(),
            agent.name
        );
        if satisfiable(ir, a, &[(c, false)], log, &q, &question) == Some(false) {
            findings.push(Finding::Dead(*r));
            dead.push(*r);
        }
    }
    // Adopted and released at once.
    for (r, c, _) in &all {
        let Rule::Intend(i) = r else { continue };
        if dead.contains(r) {
            continue;
        }
        let d = agent.intends[*i].desire as usize;
        let Some(desire) = agent.desires.get(d) else {
            continue;
        };
        if desire.achieved.is_empty()
            || (0..desire.achieved.len()).any(|k| skip(Rule::Achieved(d, k)))
        {
            continue;
        }
        let achieved = if desire.achieved.len() == 1 {
            desire.achieved[0].clone()
        } else {
            Cond::Or(desire.achieved.clone())
        };
        let q = format!("{an}.released.{}", r.tag());
        let question = format!(
            "can the condition of {} of agent {} hold while desire {} is not achieved? (unsat: adopted and released at once)",
            r.tag(),
            agent.name,
            desire.name
        );
        if satisfiable(ir, a, &[(c, false), (&achieved, true)], log, &q, &question) == Some(false) {
            findings.push(Finding::AdoptedAndReleased(*i));
        }
    }
    // Overlapping intentions for one desire.
    for (x, (rx, cx, _)) in all.iter().enumerate() {
        let Rule::Intend(i) = rx else { continue };
        for (ry, cy, _) in &all[x + 1..] {
            let Rule::Intend(j) = ry else { continue };
            let (ii, ij) = (&agent.intends[*i], &agent.intends[*j]);
            if ii.desire != ij.desire || ii.plan == ij.plan {
                continue;
            }
            if dead.contains(rx) || dead.contains(ry) {
                continue;
            }
            let q = format!("{an}.overlap.{}.{}", rx.tag(), ry.tag());
            let question = format!(
                "can {} and {} of agent {} hold together? (sat: the intentions overlap)",
                rx.tag(),
                ry.tag(),
                agent.name
            );
            if satisfiable(ir, a, &[(cx, false), (cy, false)], log, &q, &question) == Some(true) {
                findings.push(Finding::Overlap(*i, *j));
            }
        }
    }
    // Duplicates and subsumption within one kind and target.
    for (x, (rx, cx, tx)) in all.iter().enumerate() {
        if dead.contains(rx) {
            continue;
        }
        for (ry, cy, ty) in &all[..x] {
            if tx != ty || dead.contains(ry) {
                continue;
            }
            if crate::normal::equivalent(cx, cy) {
                findings.push(Finding::Duplicate { rule: *rx, of: *ry });
                break;
            }
        }
    }
    for (x, (rx, cx, tx)) in all.iter().enumerate() {
        if dead.contains(rx)
            || findings
                .iter()
                .any(|f| matches!(f, Finding::Duplicate { rule, .. } if rule == rx))
        {
            continue;
        }
        for (y, (ry, cy, ty)) in all.iter().enumerate() {
            if x == y || tx != ty || dead.contains(ry) {
                continue;
            }
            // Of two duplicates, the later one is the one reported (above); of two rules that
            // imply each other, the later one is subsumed by the earlier.
            if findings
                .iter()
                .any(|f| matches!(f, Finding::Duplicate { rule, .. } if rule == ry))
            {
                continue;
            }
            let q = format!("{an}.subsumed.{}.{}", rx.tag(), ry.tag());
            let question = format!(
                "can {} of agent {} hold without {}? (unsat: it is subsumed)",
                rx.tag(),
                agent.name,
                ry.tag()
            );
            if satisfiable(ir, a, &[(cx, false), (cy, true)], log, &q, &question) == Some(false) {
                if y > x {
                    // Mutual implication: keep the earlier rule.
                    let q2 = format!("{an}.subsumed.{}.{}", ry.tag(), rx.tag());
                    let back = satisfiable(ir, a, &[(cy, false), (cx, true)], log, &q2, &question);
                    if back == Some(false) {
                        continue;
                    }
                }
                findings.push(Finding::Subsumed { rule: *rx, by: *ry });
                break;
            }
        }
    }
    findings
}
