//! The frame rule: the Kripke frame of a network's explored worlds (`docs/frames.md` §1), and
//! its frame conditions evaluated on it. A world is a belief set of the certificate's states
//! with an attention of the agent; the relations are computed from the agent's rules with
//! [`holds`](crate::eval::holds). No search and no solver: every check is a pass over the worlds, grouped by their
//! attention sets, desired sets and intended sets so that it stays linear in the states.

use crate::check::{Refusal, Verdict};
use crate::eval::holds_within;
use crate::semantics::Atom;
use hilbert_certificates::ir::{Agent, CommitmentStrategy, Cond, Ir, Network};
use std::collections::{BTreeMap, BTreeSet};

type Beliefs = BTreeSet<Atom>;

/// A set of desires, as one flag per desire the binding serves.
type Set = Vec<bool>;

fn subset(s: &Set, t: &Set) -> bool {
    s.iter().zip(t).all(|(x, y)| !x || *y)
}

/// A world as a person reads it: its beliefs and its attention.
fn show(ir: &Ir, net: &Network, b: &Beliefs, a: u32) -> String {
    let atoms: Vec<String> = b
        .iter()
        .map(|x| {
            let args: Vec<String> = x.args.iter().map(|v| net.show_value(v)).collect();
            ir.atom_text(net.agent, x.told, x.belief, &args)
        })
        .collect();
    let attention = ir
        .agents
        .get(net.agent.0 as usize)
        .and_then(|g| g.attentions.get(a as usize))
        .map_or_else(|| "its default attention".into(), Clone::clone);
    format!("world {{{}}} attending {attention}", atoms.join(", "))
}

/// Checks the frame of network `net` (of `ir`, run by `agent`) over the belief sets `beliefs`,
/// for the desires `served` (indices into the agent's desires). Each condition evaluated and each
/// comparison of worlds is charged to `spend`; when it says no, the frame is refused
/// (`frame.work`), and the kernel refuses the certificate for passing its work limit.
pub fn check_frame(
    ir: &Ir,
    net: &Network,
    agent: &Agent,
    served: &[usize],
    beliefs: &[&Beliefs],
    oblig: &str,
    spend: &dyn Fn(u64) -> bool,
) -> Verdict {
    let holds = |c, b, a| holds_within(c, b, a, spend);
    let refuse = |rule: &'static str, w: Option<(&Beliefs, u32)>, reason: String| {
        Verdict::Refused(Refusal {
            obligation: oblig.into(),
            state: w.map(|(b, a)| show(ir, net, b, a)),
            rule,
            reason,
        })
    };
    // Every rule the frame evaluates is decided on the explored worlds: none may read a
    // parameter with no value (derived from the conditions, not from `params_used`).
    let unset = agent
        .attends
        .iter()
        .map(|(c, _)| c)
        .chain(agent.intends.iter().map(|i| &i.cond))
        .find_map(Cond::unset_param)
        .or_else(|| served.iter().find_map(|&d| agent.desires[d].unset_param()));
    if let Some(p) = unset {
        return refuse(
            "frame.parameters",
            None,
            format!(
                "a rule of the agent reads the agent parameter `{}`, which has no value in this certificate",
                agent.param_name(p)
            ),
        );
    }
    let over = || {
        Verdict::Refused(Refusal {
            obligation: oblig.into(),
            state: None,
            rule: "frame.work",
            reason: "checking the frame passes the kernel's work limit".into(),
        })
    };
    let n = agent.attentions.len().max(1) as u32;
    let mut distinct: Vec<&Beliefs> = beliefs.to_vec();
    distinct.sort();
    distinct.dedup();
    let name = |a: u32| {
        agent
            .attentions
            .get(a as usize)
            .map_or_else(|| format!("#{a}"), Clone::clone)
    };
    // R^B: (b, a) R^B (b, a') iff a' ∈ Att(b, a).
    for &b in &distinct {
        let att: Vec<Vec<u32>> = (0..n)
            .map(|a| {
                let mut out: Vec<u32> = agent
                    .attends
                    .iter()
                    .filter(|(c, _)| holds(c, b, Some(a)))
                    .map(|(_, t)| *t)
                    .collect();
                if out.is_empty() {
                    out.push(a);
                }
                out.sort_unstable();
                out.dedup();
                out.retain(|&t| t < n);
                out
            })
            .collect();
        for (a, succ) in att.iter().enumerate() {
            if succ.is_empty() {
                return refuse(
                    "frame.D-belief",
                    Some((b, a as u32)),
                    "D for R^B: the world has no belief-accessible world (its attention rules name no attention of the agent)".into(),
                );
            }
        }
        for (aw, succ) in att.iter().enumerate() {
            let pairs: u64 = succ.iter().map(|&au| att[au as usize].len() as u64).sum();
            if !spend(pairs.saturating_mul(2).saturating_add(1)) {
                return over();
            }
            for &au in succ {
                for &av in &att[au as usize] {
                    if !succ.contains(&av) {
                        return refuse(
                            "frame.4",
                            Some((b, aw as u32)),
                            format!(
                                "4 for R^B (transitivity): it reaches the world attending {} and that one the world attending {}, which it does not reach",
                                name(au),
                                name(av)
                            ),
                        );
                    }
                }
            }
            for &au in succ {
                for &av in succ {
                    if !att[au as usize].contains(&av) {
                        return refuse(
                            "frame.5",
                            Some((b, aw as u32)),
                            format!(
                                "5 for R^B (Euclidean): it reaches the worlds attending {} and {}, but the first does not reach the second",
                                name(au),
                                name(av)
                            ),
                        );
                    }
                }
            }
        }
    }
    // R^D and R^I, grouped: each world's achieved, desired and intended sets.
    // The commitment law: an intention, once adopted where an intend rule holds, is kept until
    // its desire is achieved or, for a single-minded agent only, believed impossible.
    let releases_impossible = agent.commit == CommitmentStrategy::SingleMinded;
    let mut achieved: BTreeMap<Set, (&Beliefs, u32)> = BTreeMap::new();
    let mut minds: BTreeMap<(Set, Set), (&Beliefs, u32)> = BTreeMap::new();
    for &b in &distinct {
        for a in 0..n {
            let (mut ach, mut des, mut int) = (Set::new(), Set::new(), Set::new());
            for &d in served {
                let desire = &agent.desires[d];
                let done = desire.achieved.iter().any(|c| holds(c, b, Some(a)));
                let imp = desire.impossible.iter().any(|(c, _)| holds(c, b, Some(a)));
                let adoptable = agent.intends.iter().any(|i| i.desire as usize == d);
                ach.push(done);
                // A desire and its intention end on the same beliefs (`docs/frames.md` §1).
                let released = done || (releases_impossible && imp);
                des.push(!released);
                int.push(adoptable && !released);
            }
            achieved.entry(ach).or_insert((b, a));
            minds.entry((des, int)).or_insert((b, a));
        }
    }
    let names = |s: &Set| {
        let v: Vec<&str> = served
            .iter()
            .zip(s)
            .filter(|(_, x)| **x)
            .map(|(&d, _)| agent.desires[d].name.as_str())
            .collect();
        format!("{{{}}}", v.join(", "))
    };
    // Every intended desire is desired (`int` is `des` and an intend rule), so a world that
    // achieves all a world desires achieves all it intends: D for R^I and realism (R^D ⊆ R^I)
    // follow from D for R^D, the one check left.
    for ((des, _), &w) in &minds {
        if !spend((achieved.len() * served.len()) as u64 + 1) {
            return over();
        }
        if !achieved.keys().any(|a| subset(des, a)) {
            return refuse(
                "frame.D-desire",
                Some(w),
                format!(
                    "D for R^D (seriality): no explored world achieves all of {} at once",
                    names(des)
                ),
            );
        }
    }
    Verdict::Proved
}
