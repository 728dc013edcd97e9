//! Assertions and weak fairness: the rules of the `assert` theorems (`<Plan>_assert_<name>`)
//! and of liveness under weak fairness, on the scene the kernel has explored
//! (`docs/certificates.md`, *Assertions and fairness*). No search: each rule is one pass over
//! the states (precedence one breadth-first pass over their recomputed successors), and the
//! fair rule recomputes the steps of the ranked states to see who takes part in each.

use super::{Budget, Closed, Table, Verdict, check_ranking, refusal};
use crate::eval::{attention_within, holds_minded, holds_within};
use crate::semantics::{Atom, Event, Semantics};
use hilbert_certificates::cert::Witness;
use hilbert_certificates::ir::{Agent, Assert, CommitmentStrategy, Cond, Property};
use std::collections::{BTreeMap, BTreeSet};

/// Whether desire `d` is released with beliefs `b` and attention `a`: one of its `achieved`
/// conditions holds, or, for a single-minded agent, one of its `impossible` ones (a desire the
/// IR does not have is released).
fn released(
    agent: &Agent,
    d: u32,
    b: &BTreeSet<Atom>,
    a: u32,
    spend: &dyn Fn(u64) -> bool,
) -> bool {
    let holds = |c| holds_within(c, b, Some(a), spend);
    agent.desires.get(d as usize).is_none_or(|x| {
        x.achieved.iter().any(holds)
            || (agent.commit == CommitmentStrategy::SingleMinded
                && x.impossible.iter().any(|(c, _)| holds(c)))
    })
}

/// Per belief set of the table, whether `cond` holds with it: read with the attention the set
/// gives and the mental tests the agent's rules decide (`docs/semantics.md`, *Assertions*).
/// `Err` is an agent parameter with no value that the condition, a desire it reads or the
/// attention reads: then no scene decides it.
fn truth(sem: &Semantics, t: &Table, cond: &Cond, budget: &Budget) -> Result<Vec<bool>, u32> {
    let agent = sem.agent();
    if let Some(p) = agent.assert_unset_param(cond) {
        return Err(p);
    }
    let spend = |n| budget.spend(n);
    let set = |b: &BTreeSet<Atom>| {
        let a = attention_within(agent, b, &spend);
        let mind = |m: &Cond| match m {
            Cond::Desires(d) => !released(agent, *d, b, a, &spend),
            Cond::Intends(p) => (agent.intends.iter())
                .any(|i| i.plan == *p && !released(agent, i.desire, b, a, &spend)),
            _ => false,
        };
        holds_minded(cond, b, Some(a), &mind, &spend)
    };
    Ok(t.set_list.iter().map(set).collect())
}

/// `<Plan>_assert_<name>`. Always and never: the condition holds (does not hold) in every
/// state of the table, which is the reachable set. Precedence `ψ precedes φ`: no state reached
/// from the start through states where ψ does not hold satisfies φ (the product of the graph
/// with the flag "ψ seen", its unflagged half). Existence and response: a ranking towards the
/// goal (ψ) from the start, or from every state where φ holds; under weak fairness,
/// [`fair_ranking`].
pub(super) fn check_assert(
    sem: &Semantics,
    c: &Closed,
    a: &Assert,
    oblig: &str,
    w: &Witness,
    budget: &Budget,
) -> Verdict {
    let t = &c.table;
    let mut sets = Vec::new();
    for cond in a.property.conds() {
        match truth(sem, t, cond, budget) {
            Ok(s) => sets.push(s),
            Err(p) => {
                let p = sem.agent().param_name(p);
                let why = format!(
                    "the assertion reads the agent parameter `{p}`, which has no value in this certificate"
                );
                return refusal(oblig, None, "assert.parameters", why);
            }
        }
    }
    let at = |k: usize, i: usize| sets[k][t.states[i].1 as usize];
    let bad = |i: usize, why: &str| {
        refusal(
            oblig,
            Some(&t.state(i)),
            "assert.state",
            format!("state {i} {why}"),
        )
    };
    // The goal of existence and response: their last condition.
    let goal = |i: usize| at(sets.len() - 1, i);
    let rank = |ranks: &[u64], starts: &[u32]| match a.fair {
        true => fair_ranking(sem, c, ranks, starts, &goal, oblig, budget),
        false => check_ranking(c, ranks, starts, &goal, oblig, "assert"),
    };
    match (&a.property, w) {
        (Property::Always(_) | Property::Never(_), Witness::Invariant { .. }) => {
            let always = matches!(a.property, Property::Always(_));
            match (0..t.len()).find(|&i| at(0, i) != always) {
                Some(i) if always => bad(i, "does not satisfy the asserted condition"),
                Some(i) => bad(i, "satisfies the condition asserted never to hold"),
                None => Verdict::Proved,
            }
        }
        (Property::Precedes(..), Witness::Invariant { .. }) => {
            let mut seen = vec![false; t.len()];
            let mut queue: Vec<usize> = (t.len() > 0 && !at(0, 0))
                .then_some(0)
                .into_iter()
                .collect();
            seen[..queue.len()].fill(true);
            while let Some(i) = queue.pop() {
                if at(1, i) {
                    return bad(
                        i,
                        "satisfies the second condition on a path where the first has not held",
                    );
                }
                for &j in c.succ.of(i) {
                    let j = j as usize;
                    if !at(0, j) && !std::mem::replace(&mut seen[j], true) {
                        queue.push(j);
                    }
                }
            }
            Verdict::Proved
        }
        (Property::Eventually(_), Witness::Ranking { ranks, .. }) => rank(ranks, &[0]),
        (Property::LeadsTo(..), Witness::Ranking { ranks, .. }) => {
            let starts: Vec<u32> = (0..t.len())
                .filter(|&i| at(0, i))
                .map(|i| i as u32)
                .collect();
            rank(ranks, &starts)
        }
        _ => refusal(
            oblig,
            None,
            "witness.kind",
            "the witness is of the wrong kind for this obligation".into(),
        ),
    }
}

/// The static plan instances that take part in a step (a τ's thread, a rendezvous' two): the
/// processes of weak fairness.
pub fn takers(e: &Event) -> Vec<u32> {
    match e {
        Event::Tau { inst } => vec![*inst],
        Event::Sync {
            sender, receiver, ..
        } => vec![*sender, *receiver],
        Event::Abort => Vec::new(),
    }
}

/// A ranking under weak fairness: every start satisfies the goal or has a rank; each ranked
/// state missing the goal can step, and each step leads to the goal or to a rank no larger;
/// and for each rank r at which some step keeps the rank, some process (plan instance) can
/// step in every state of rank r and takes part in no step that keeps it. A path that never
/// meets the goal ends up keeping one rank r forever, with that process enabled throughout and
/// never taken: it is not weakly fair. So every weakly fair path from a start meets the goal.
pub(super) fn fair_ranking(
    sem: &Semantics,
    c: &Closed,
    ranks: &[u64],
    starts: &[u32],
    goal: &dyn Fn(usize) -> bool,
    oblig: &str,
    budget: &Budget,
) -> Verdict {
    let t = &c.table;
    // The ranking's length and start rules: with every ranked state counted as a goal, they
    // are all `check_ranking` has left to check.
    let ranked = |i: usize| goal(i) || ranks.get(i).is_some_and(|&r| r != u64::MAX);
    if let v @ Verdict::Refused(_) = check_ranking(c, ranks, starts, &ranked, oblig, "fair") {
        return v;
    }
    let mut levels: BTreeMap<u64, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
    for i in 0..t.len() {
        if goal(i) || ranks[i] == u64::MAX {
            continue;
        }
        let succ = c.succ.of(i);
        // Who takes part in each step: the candidates' events, without firing them.
        let spend = &mut |n| budget.spend(n);
        let candidates = budget
            .spend(t.cost(i))
            .then(|| sem.candidates(&t.state(i), spend));
        let steps: Vec<_> = candidates.flatten().unwrap_or_default();
        let steps: Vec<_> = steps.iter().map(|c| takers(&c.event)).collect();
        if succ.is_empty() || steps.len() != succ.len() {
            let why = format!("fair: state {i} misses the goal and cannot step");
            return refusal(oblig, Some(&t.state(i)), "ranking.progress", why);
        }
        let (mut enabled, mut kept) = (BTreeSet::<u32>::new(), BTreeSet::<u32>::new());
        for (&j, who) in succ.iter().zip(&steps) {
            enabled.extend(who);
            let j = j as usize;
            if goal(j) || ranks[j] < ranks[i] {
                continue;
            }
            if ranks[j] > ranks[i] {
                let why = format!(
                    "fair: state {i} (rank {}) steps to state {j} (rank {}), which misses the goal",
                    ranks[i], ranks[j]
                );
                return refusal(oblig, Some(&t.state(i)), "ranking.decreases", why);
            }
            kept.extend(who);
        }
        let level = levels
            .entry(ranks[i])
            .or_insert_with(|| (enabled.clone(), BTreeSet::new()));
        level.0.retain(|p| enabled.contains(p));
        level.1.extend(kept);
    }
    for (r, (enabled, kept)) in levels {
        if !kept.is_empty() && enabled.is_subset(&kept) {
            let why = format!(
                "at rank {r}, steps keep the rank, and every process that can step in all its states takes part in one of them: a weakly fair path may keep rank {r} forever"
            );
            return refusal(oblig, None, "fair.helpful", why);
        }
    }
    Verdict::Proved
}
