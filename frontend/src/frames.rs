//! Frame conditions with Z3 (`hilbert_smt::frame`, `docs/frames.md` §2): for every agent, over
//! every world its rules allow, D for R^B, R^D and R^I, 4 and 5 for R^B, and realism
//! R^D ⊆ R^I, for the agent's frame and for each network's frame (the desires its binding
//! serves). A violated axiom is an error (HA0058) naming the axiom and showing the witness
//! worlds Z3 found. An axiom Z3 could not prove is a warning (HA0059), never a proof, whose note
//! says what is unknown and whose help fits that cause: a timeout, the budget, an incomplete
//! theory, an encoding too large, a belief test the bounded worlds cannot decide, or a
//! violation for some values of an agent parameter that has no value.

use crate::analysis::{describe, rule_expr};
use crate::check::Program;
use crate::diagnostic::{Code, Diagnostic};
use crate::source::{Dialect, Span};
use crate::syntax::ast::{Expr, ExprKind};
use hilbert_certificates::ir::Ir;
use hilbert_smt::Log;
use hilbert_smt::analysis::Rule;
use hilbert_smt::frame::{Axiom, Beyond, Outcome, Unknown, Verdict, WorldText, check};
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
            "the frame releases a desire and an intention for it on the same beliefs (docs/frames.md §1), so realism cannot fail here: this is a bug in Hilbert, please report it with the agent"
        }
    }
}

/// What of a condition the encoding of `hilbert_smt::cond` does not represent, if anything: a
/// `value` of the agent, or an expression no condition lowers (the checker refuses both, so a
/// checked program has none; this keeps the frame honest should one get through).
fn outside(e: &Expr, values: &HashSet<&str>) -> Option<String> {
    match &e.kind {
        ExprKind::Var(v) => values
            .contains(v.name.as_str())
            .then(|| format!("the value `{}`", v.name)),
        ExprKind::Unary(_, a) => outside(a, values),
        ExprKind::Binary(_, a, b) => outside(a, values).or_else(|| outside(b, values)),
        ExprKind::Chain { first, rest } => {
            crate::syntax::ast::chain_operands(first, rest).find_map(|a| outside(a, values))
        }
        ExprKind::Believes { atom, .. } => atom.args.iter().find_map(|a| outside(a, values)),
        ExprKind::Attending(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Wildcard => None,
        ExprKind::Call { .. } => Some("a function call".into()),
        ExprKind::Desires(_) | ExprKind::Intends(_) => {
            Some("a test of what the agent desires or intends".into())
        }
        ExprKind::Field { .. } => Some("a belief's feature (`belief.field`)".into()),
        ExprKind::Error => Some("an expression that did not parse".into()),
    }
}

/// What is unknown, as a note, and the help that fits it.
fn unknown_text(program: &Program, a: usize, why: &Unknown, timeout_ms: u32) -> (String, String) {
    match why {
        Unknown::Timeout => (
            format!("a query ran out of time: each may take {timeout_ms} ms (--smt-timeout)"),
            "raise --smt-timeout (and --smt-budget, which all of a check's queries share)".into(),
        ),
        Unknown::Budget(reason) => (
            reason.clone(),
            "raise --smt-budget, or lower --smt-timeout so that one hard query cannot take it all".into(),
        ),
        Unknown::Solver(reason) => (
            format!("Z3 gave up on a query ({reason}): it did not run out of time, so more time does not help"),
            "products or quotients of two variables (nonlinear integer arithmetic) are what Z3 cannot decide in general: compare with constant factors where you can".into(),
        ),
        Unknown::Encoding => (
            format!("the conditions have too many branches to encode (over {} steps, or over {} belief slots read: each `∨` and each belief test multiplies the rest of its conjunction, and a belief test reads one slot per test of its predicate)", hilbert_smt::cond::MAX_STEPS, hilbert_smt::cond::MAX_SLOTS),
            "split a long condition into several rules of the same kind (rules of one kind and target are a disjunction), or use fewer belief tests in one condition".into(),
        ),
        Unknown::Dependency {
            rule,
            test,
            binder,
            beyond,
        } => {
            let then = match beyond {
                Beyond::NotAsked => "and the question (a world that no world achieves from) cannot be put over belief sets of any size".to_string(),
                Beyond::Model => format!("over belief sets of any size Z3 found a model, but none with {} times as many atoms: there is no witness to show (it may need very many atoms), so nothing is reported as violated", hilbert_smt::frame::WIDER),
                Beyond::Unknown(u) => match u.as_ref() {
                    Unknown::Timeout => format!("over belief sets of any size the query ran out of time ({timeout_ms} ms, --smt-timeout)"),
                    Unknown::Budget(_) => "over belief sets of any size the query was not answered: the Z3 budget (--smt-budget) was spent".into(),
                    Unknown::Solver(r) => format!("over belief sets of any size Z3 gave up ({r})"),
                    Unknown::Failed(r) | Unknown::Memory(r) => format!("over belief sets of any size: {r}"),
                    _ => "over belief sets of any size Z3 could not decide it either".into(),
                },
            };
            let rewrite = format!("keep the negation off the test that binds the variable where you can: a belief of its own (say `pending(n)`, kept by the plans) instead of a `{binder}` test with a `{test}` test under a negation that reads its variable");
            let help = match beyond {
                Beyond::Unknown(u) if matches!(u.as_ref(), Unknown::Timeout) => format!("raise --smt-timeout; or {rewrite}"),
                Beyond::Unknown(u) if matches!(u.as_ref(), Unknown::Budget(_)) => format!("raise --smt-budget; or {rewrite}"),
                _ => rewrite,
            };
            (
                format!(
                    "in `{}`, a test of `{test}` reads a variable bound by a test of `{binder}`, with one negation between them: a world may need a `{test}` atom for each `{binder}` atom, so the belief sets of bounded size Z3 searches do not decide the axiom; {then}",
                    describe(program, a, *rule)
                ),
                help,
            )
        }
        Unknown::Construct { rule, what } => (
            format!(
                "the condition of `{}` reads {what}, which the encoding of conditions does not represent",
                describe(program, a, *rule)
            ),
            "a condition reads beliefs, the variables its patterns bind, attentions and agent parameters".into(),
        ),
        Unknown::Memory(reason) => (
            format!("{reason}; the question is left unanswered, and nothing is concluded from it"),
            "raise --max-memory, or split a long condition into several rules of the same kind (rules of one kind and target are a disjunction)".into(),
        ),
        Unknown::Failed(reason) => (
            format!("{reason}; the question is left unanswered, and nothing is concluded from it"),
            "give the check more memory, or split a long condition into several rules of the same kind (rules of one kind and target are a disjunction)".into(),
        ),
        Unknown::Desires(n) => (
            format!("the frame has {n} desires; seriality is decided for at most {} (one question per set of desires)", hilbert_smt::frame::MAX_DESIRES),
            "no option raises this limit".into(),
        ),
    }
}

/// Checks the frame conditions of every agent of the IR. Every query goes to `log`.
pub fn check_program(ir: &Ir, program: &Program, log: &mut Log) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let timeout_ms = log.options.timeout_ms;
    for (a, info) in program.agents.iter().enumerate() {
        let Some(agent) = ir.agents.get(a) else {
            break;
        };
        // Agent parameters with no value are constants of the queries (an axiom is proved for
        // every value); what the encoding does not represent is skipped.
        let values: HashSet<&str> = info.values.iter().map(|v| v.name.as_str()).collect();
        let skip = |r: Rule| match rule_expr(program, a, r) {
            Some(e) => outside(e, &values),
            None => Some("a condition the checker did not record".into()),
        };
        let outcomes = check(ir, a, &skip, log);
        let desire_name = |d: usize| info.desires.get(d).map_or("?", |x| x.name.as_str());
        // For seriality: the desires held at once that no world achieves together.
        let together = |axiom: Axiom, desires: &[usize], tail: &str| -> Option<String> {
            if desires.is_empty() {
                return None;
            }
            let names: Vec<String> = desires
                .iter()
                .map(|&x| format!("`{}`", desire_name(x)))
                .collect();
            Some(format!(
                "{} can be {} at once, but no world achieves them together{tail}",
                names.join(", "),
                if axiom == Axiom::DIntention {
                    "intended"
                } else {
                    "desired"
                }
            ))
        };
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
                Verdict::Violated {
                    worlds,
                    desires,
                    params,
                    every_value: false,
                } if !params.is_empty() => {
                    reported.push(o.axiom);
                    let names: Vec<String> = params
                        .iter()
                        .map(|p| format!("`{}`", p.split(" = ").next().unwrap_or(p)))
                        .collect();
                    let ws: Vec<String> = worlds.iter().map(show_world).collect();
                    let mut d = Diagnostic::warning(
                        FRAME_UNPROVED,
                        span_of(o, desires),
                        format!(
                            "the frame condition {} of {} fails for some values of {}",
                            o.axiom.title(),
                            scope(o),
                            names.join(", ")
                        ),
                    )
                    .with_label(format!(
                        "frame.{} not proved for every value",
                        o.axiom.rule()
                    ))
                    .with_note(format!(
                        "with {}: witness: {}",
                        params.join(", "),
                        ws.join("; ")
                    ));
                    if let Some(note) = together(o.axiom, desires, " under those values") {
                        d = d.with_note(note);
                    }
                    let example = params
                        .first()
                        .map(|p| p.split(" = ").next().unwrap_or(p).to_string())
                        .unwrap_or_default();
                    out.push(
                        d.with_note("the parameter has no value here, so whether the axiom holds for the value the agent runs with is not known; it is left unproved, not assumed")
                            .with_help(format!(
                                "check with the value the agent runs with (`hilbert check --param {example}=V`; a build needs it anyway), or make the rules hold for every value"
                            )),
                    );
                }
                Verdict::Violated {
                    worlds,
                    desires,
                    params,
                    ..
                } => {
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
                    if let Some(note) = together(o.axiom, desires, "") {
                        d = d.with_note(note);
                    }
                    let ws: Vec<String> = worlds.iter().map(show_world).collect();
                    if params.is_empty() {
                        d = d.with_note(format!("witness: {}", ws.join("; ")));
                    } else {
                        d = d.with_note(format!(
                            "every value of the parameters with no value has such worlds; witness, with {}: {}",
                            params.join(", "),
                            ws.join("; ")
                        ));
                    }
                    out.push(d.with_help(help(o.axiom)));
                }
                Verdict::Unproved(why) => {
                    reported.push(o.axiom);
                    let (note, help) = unknown_text(program, a, why, timeout_ms);
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
                        .with_note(note)
                        .with_note("the axiom is left unproved, not assumed; the kernel still checks it on each network's explored worlds")
                        .with_help(help),
                    );
                }
            }
        }
    }
    out
}
