//! Frame conditions with Z3 (`hilbert_smt::frame`, `docs/frames.md` §2): for every agent, over
//! every world its rules allow, D for R^B, R^D and R^I, 4 and 5 for R^B, and realism
//! R^D ⊆ R^I, for the agent's frame and for each network's frame (the desires its binding
//! serves). A violated axiom is an error (HA0058) naming the axiom and showing the witness
//! worlds Z3 found; an axiom Z3 could not prove (an `unknown`, a timeout, an inexact `unsat`,
//! a condition reading an agent parameter) is a warning (HA0059), never a proof.

use crate::analysis::{mentions, rule_expr};
use crate::check::Program;
use crate::diagnostic::{Code, Diagnostic};
use crate::source::{Dialect, Span};
use hilbert_certificates::ir::{CommitmentStrategy, Ir};
use hilbert_smt::Log;
use hilbert_smt::analysis::Rule;
use hilbert_smt::frame::{Axiom, Outcome, Verdict, WorldText, check};
use std::collections::HashSet;

/// An agent's rules break a frame condition (error).
pub const FRAME_VIOLATED: Code = Code::new(Dialect::Agent, 58);
/// Z3 could not prove a frame condition (warning).
pub const FRAME_UNPROVED: Code = Code::new(Dialect::Agent, 59);

/// The codes this module declares.
pub const CODES: &[Code] = &[FRAME_VIOLATED, FRAME_UNPROVED];

fn show_world(w: &WorldText) -> String {
    format!(
        "{} = {{{}}} attending {}",
        w.role,
        w.beliefs.join(", "),
        w.attention
    )
}

fn help(axiom: Axiom) -> &'static str {
    match axiom {
        Axiom::DBelief => "every attention an attend rule names must be one of the agent's",
        Axiom::Four | Axiom::Five => {
            "make the attention rules settle: a rule that fires must lead to an attention where the same rules name the same attention (test beliefs, not the current attention, or name one attention)"
        }
        Axiom::DDesire => {
            "make the achieved conditions of desires that can be pursued together compatible, or add an `impossible` rule for the situation in which they exclude each other"
        }
        Axiom::DIntention => {
            "make the achieved conditions of desires that can be intended together compatible: an intention is kept until it is released, whatever its intend condition says later"
        }
        Axiom::Realism => {
            "use `commit single_minded`, the only strategy that drops an intention believed impossible (a blind or open-minded agent keeps it, whatever its intend condition says once it is adopted), or remove the `impossible` rule"
        }
    }
}

/// Checks the frame conditions of every agent of the IR. Every query goes to `log`.
pub fn check_program(ir: &Ir, program: &Program, log: &mut Log) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (a, info) in program.agents.iter().enumerate() {
        let Some(agent) = ir.agents.get(a) else {
            break;
        };
        // Parameters with no value (a value given is a literal in the IR) and values: the
        // constants Z3 cannot read exactly.
        let given = &agent.args;
        let consts: HashSet<&str> = info
            .params
            .iter()
            .enumerate()
            .filter(|(i, _)| given.get(*i).is_none_or(Option::is_none))
            .map(|(_, p)| p.name.as_str())
            .chain(info.values.iter().map(|v| v.name.as_str()))
            .collect();
        let skip = |r: Rule| rule_expr(program, a, r).is_none_or(|e| mentions(e, &consts));
        let outcomes = check(ir, a, &skip, log);
        let desire_name = |d: usize| info.desires.get(d).map_or("?", |x| x.name.as_str());
        let intend_span = |d: Option<usize>| -> Option<Span> {
            info.intends
                .iter()
                .find(|i| d.is_none_or(|d| i.desire == d))
                .map(|i| i.cond.span)
        };
        let span_of = |o: &Outcome, desires: &[usize]| -> Span {
            let first = desires.first().copied();
            match o.axiom {
                Axiom::DBelief | Axiom::Four | Axiom::Five => {
                    info.attends.first().map(|r| r.cond.span)
                }
                Axiom::DDesire => first.and_then(|d| info.desires.get(d)).map(|d| d.span),
                Axiom::DIntention | Axiom::Realism => intend_span(first),
            }
            .unwrap_or(info.span)
        };
        let scope = |o: &Outcome| match o.network {
            None => format!("agent `{}`", agent.name),
            Some(n) => {
                let binding = ir.networks.get(n).map_or("?", |x| x.binding.as_str());
                format!(
                    "the frame of `{}.{binding}` (the desires `{binding}` serves)",
                    agent.name
                )
            }
        };
        let mut reported: Vec<Axiom> = Vec::new();
        for o in &outcomes {
            // A network's frame is reported only when the agent's says nothing of that axiom.
            if reported.contains(&o.axiom) {
                continue;
            }
            match &o.verdict {
                Verdict::Proved => {}
                Verdict::Violated { worlds, desires } => {
                    reported.push(o.axiom);
                    let mut d = Diagnostic::error(
                        FRAME_VIOLATED,
                        span_of(o, desires),
                        format!(
                            "the rules of {} break the frame condition {}",
                            scope(o),
                            o.axiom.title()
                        ),
                    )
                    .with_label(format!("frame.{} is violated (Z3)", o.axiom.rule()));
                    if !desires.is_empty() {
                        let names: Vec<String> = desires
                            .iter()
                            .map(|&x| format!("`{}`", desire_name(x)))
                            .collect();
                        d = d.with_note(format!(
                            "{} can be {} at once, but no world achieves them together",
                            names.join(", "),
                            if o.axiom == Axiom::DIntention {
                                "intended"
                            } else {
                                "desired"
                            }
                        ));
                    }
                    if o.axiom == Axiom::Realism {
                        d = d.with_note(format!(
                            "under `commit {}` an intention, once adopted, is kept until its desire is achieved{}: at w it may still be held, though w does not desire it",
                            agent.commit.keyword(),
                            if agent.commit == CommitmentStrategy::OpenMinded {
                                " or dropped (a change of desire, not of belief)"
                            } else {
                                ""
                            }
                        ));
                    }
                    let ws: Vec<String> = worlds.iter().map(show_world).collect();
                    d = d.with_note(format!("witness: {}", ws.join("; ")));
                    out.push(d.with_help(help(o.axiom)));
                }
                Verdict::Unproved(why) => {
                    reported.push(o.axiom);
                    out.push(
                        Diagnostic::warning(
                            FRAME_UNPROVED,
                            span_of(o, &[]),
                            format!(
                                "Z3 could not prove the frame condition {} for {}",
                                o.axiom.title(),
                                scope(o)
                            ),
                        )
                        .with_label(format!("frame.{} unproved", o.axiom.rule()))
                        .with_note(why.clone())
                        .with_note("the axiom is left unproved, not assumed; the kernel still checks it on each network's explored worlds")
                        .with_help("raise --smt-timeout or --smt-budget, or write the conditions without a belief test under two negations"),
                    );
                }
            }
        }
    }
    out
}
