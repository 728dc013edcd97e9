//! Condition analysis with Z3 (the `smt` crate): the agents' rules, after lowering, checked for
//! dead conditions (HA0052), intentions adopted and released at once (HA0053), overlapping
//! intentions for one desire (HA0055), duplicate rules (HA0056) and subsumed rules (HA0057).
//!
//! The solver-free procedure of `check::sat` still runs first, during the agent checks, and
//! reports HA0052 and HA0053 where it can; Z3 decides the rest exactly (over the bounded belief
//! sets of `hilbert_smt::cond`) and adds what the procedure missed, without repeating it. A rule
//! whose condition reads an agent parameter or a `value` is left out: its value is not known at
//! build time, and the IR does not carry it. A Z3 timeout or `unknown` gives no warning.

use crate::check::Program;
use crate::check::codes;
use crate::diagnostic::{Code, Diagnostic};
use crate::source::{Dialect, Span};
use crate::syntax::ast::{Expr, ExprKind};
use hilbert_certificates::ir::Ir;
use hilbert_smt::analysis::{Finding, Rule, analyse};
use hilbert_smt::{Log, Options};
use std::collections::HashSet;

/// Two `intend` rules for one desire, with different plans, can hold at once (warning).
pub const OVERLAPPING_INTENDS: Code = Code::new(Dialect::Agent, 55);
/// A rule equal to an earlier one of the same kind and target, up to the laws of ∧ ∨ ¬ and
/// comparisons (warning).
pub const DUPLICATE_RULE: Code = Code::new(Dialect::Agent, 56);
/// A rule whose condition implies another of the same kind and target (warning).
pub const SUBSUMED_RULE: Code = Code::new(Dialect::Agent, 57);

/// Z3's budget (`--smt-budget`) was spent before an agent's rules were analysed (warning).
pub const BUDGET_SPENT: Code = Code::new(Dialect::Agent, 61);

/// The codes this module declares (HA0052 and HA0053 are the agent checks').
pub const CODES: &[Code] = &[
    OVERLAPPING_INTENDS,
    DUPLICATE_RULE,
    SUBSUMED_RULE,
    BUDGET_SPENT,
];

/// Questions a warning lists before it says how many more there are.
const LISTED: usize = 5;

/// The warning for an agent whose analysis the budget cut short: the questions not answered.
fn budget_spent(info: &crate::check::AgentInfo, questions: &[&str], budget: u64) -> Diagnostic {
    let mut listed: Vec<String> = questions
        .iter()
        .take(LISTED)
        .map(|q| format!("`{q}`"))
        .collect();
    if questions.len() > LISTED {
        listed.push(format!("and {} more", questions.len() - LISTED));
    }
    Diagnostic::warning(
        BUDGET_SPENT,
        info.span,
        format!(
            "Z3's budget of {budget} ms was spent before the rules of `{}` were analysed",
            info.name
        ),
    )
    .with_label(format!(
        "{} question{} not answered",
        questions.len(),
        if questions.len() == 1 { "" } else { "s" }
    ))
    .with_note(format!("not answered: {}", listed.join("; ")))
    .with_note("nothing is concluded from a question not answered: a rule of this agent may still be dead (HA0052), adopted and released at once (HA0053), overlapping (HA0055), a duplicate (HA0056) or subsumed (HA0057)")
    .with_help("raise --smt-budget (the total time of the check's Z3 queries), or lower --smt-timeout so that one hard condition cannot take it all")
}

/// Whether an expression names one of `consts`.
pub(crate) fn mentions(e: &Expr, consts: &HashSet<&str>) -> bool {
    match &e.kind {
        ExprKind::Var(v) => consts.contains(v.name.as_str()),
        ExprKind::Unary(_, a) => mentions(a, consts),
        ExprKind::Binary(_, a, b) => mentions(a, consts) || mentions(b, consts),
        ExprKind::Chain { first, rest } => {
            crate::syntax::ast::chain_operands(first, rest).any(|a| mentions(a, consts))
        }
        ExprKind::Believes { atom, .. } => atom.args.iter().any(|a| mentions(a, consts)),
        ExprKind::Attending(_) => false,
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Wildcard => false,
        // Anything else cannot be lowered faithfully: leave the rule out.
        _ => true,
    }
}

/// The source condition of a rule.
pub(crate) fn rule_expr(program: &Program, a: usize, r: Rule) -> Option<&Expr> {
    let info = program.agents.get(a)?;
    Some(match r {
        Rule::Intend(i) => &info.intends.get(i)?.cond,
        Rule::Achieved(d, k) => info.desires.get(d)?.achieved.get(k)?,
        Rule::Impossible(d, k) => &info.desires.get(d)?.impossible.get(k)?.cond,
        Rule::Attend(i) => &info.attends.get(i)?.cond,
        Rule::Reward(i) => &info.rewards.get(i)?.cond,
    })
}

pub(crate) fn describe(program: &Program, a: usize, r: Rule) -> String {
    let info = &program.agents[a];
    let plan = |b: usize| info.bindings.get(b).map_or("?", |x| x.name.as_str());
    let desire = |d: usize| info.desires.get(d).map_or("?", |x| x.name.as_str());
    match r {
        Rule::Intend(i) => {
            let x = &info.intends[i];
            format!("intend {} for {}", plan(x.binding), desire(x.desire))
        }
        Rule::Achieved(d, _) => format!("achieved {}", desire(d)),
        Rule::Impossible(d, _) => format!("impossible {}", desire(d)),
        Rule::Attend(i) => format!(
            "attend {}",
            info.attentions
                .get(info.attends[i].attention)
                .map_or("?", |x| x.name.as_str())
        ),
        Rule::Reward(i) => format!("reward {}", plan(info.rewards[i].binding)),
    }
}

/// Analyses every agent of the IR. `already` holds the (code, span) pairs the agent checks
/// reported, so that a finding is not reported twice. Every query goes to `log`.
pub fn analyse_program(
    ir: &Ir,
    program: &Program,
    already: &HashSet<(Code, Span)>,
    log: &mut Log,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (a, info) in program.agents.iter().enumerate() {
        if a >= ir.agents.len() {
            break;
        }
        // Parameters with no value (a value given is a literal in the IR) and values: the
        // constants Z3 cannot read exactly.
        let given = &ir.agents[a].args;
        let consts: HashSet<&str> = info
            .params
            .iter()
            .enumerate()
            .filter(|(i, _)| given.get(*i).is_none_or(Option::is_none))
            .map(|(_, p)| p.name.as_str())
            .chain(info.values.iter().map(|v| v.name.as_str()))
            .collect();
        let skip = |r: Rule| rule_expr(program, a, r).is_none_or(|e| mentions(e, &consts));
        let span = |r: Rule| rule_expr(program, a, r).map(|e| e.span);
        let mut push = |d: Diagnostic| {
            if !already.contains(&(d.code, d.span)) {
                out.push(d);
            }
        };
        let from = log.queries.len();
        let findings = analyse(ir, a, &skip, log);
        let unanswered: Vec<&str> = log.queries[from..]
            .iter()
            .filter(|q| q.over_budget)
            .map(|q| q.question.as_str())
            .collect();
        if !unanswered.is_empty() {
            let budget = log.options.budget_ms.unwrap_or(0);
            push(budget_spent(info, &unanswered, budget));
        }
        for f in findings {
            match f {
                Finding::Dead(r) => {
                    let Some(s) = span(r) else { continue };
                    push(
                        Diagnostic::warning(
                            codes::UNSATISFIABLE_CONDITION,
                            s,
                            "no state can satisfy this condition",
                        )
                        .with_label("always false (Z3)")
                        .with_note(format!("the rule `{}` can never fire", describe(program, a, r)))
                        .with_help("remove the contradiction (a belief both required and forbidden, bounds that exclude each other, two attentions at once)"),
                    );
                }
                Finding::AdoptedAndReleased(i) => {
                    let r = Rule::Intend(i);
                    let Some(s) = span(r) else { continue };
                    let x = &info.intends[i];
                    let d = &info.desires[x.desire];
                    let mut diag = Diagnostic::warning(
                        codes::INTEND_ALREADY_ACHIEVED,
                        s,
                        format!(
                            "whenever this condition holds, `{}` is already achieved",
                            d.name
                        ),
                    )
                    .with_label(format!("implies the `achieved {}` condition (Z3)", d.name))
                    .with_secondary(d.span, "the desire");
                    if let Some(first) = d.achieved.first() {
                        diag = diag.with_secondary(first.span, "the achieved condition");
                    }
                    push(diag
                        .with_note("the intention would be adopted and released at once: the commitment law drops an intention whose goal is believed achieved")
                        .with_help("intend the plan while the goal is not yet met"));
                }
                Finding::Overlap(i, j) => {
                    let (Some(si), Some(sj)) = (span(Rule::Intend(i)), span(Rule::Intend(j)))
                    else {
                        continue;
                    };
                    let (x, y) = (&info.intends[i], &info.intends[j]);
                    // Values that give both plans an option order them: the overlap is meant.
                    let ordered = program.values.iter().any(|v| {
                        v.agent.map(|id| id.0) == Some(a)
                            && [x.binding, y.binding]
                                .iter()
                                .all(|b| v.options.iter().any(|(o, _)| o == b))
                    });
                    if ordered {
                        continue;
                    }
                    let plan = |b: usize| info.bindings[b].name.as_str();
                    push(
                        Diagnostic::warning(
                            OVERLAPPING_INTENDS,
                            sj,
                            format!(
                                "this condition and the one for `{}` can hold at once: both plans serve `{}`",
                                plan(x.binding),
                                info.desires[y.desire].name
                            ),
                        )
                        .with_label(format!("licenses `{}`", plan(y.binding)))
                        .with_secondary(si, format!("licenses `{}`", plan(x.binding)))
                        .with_note("when both hold, the agent's values (a `.hb` block) decide which plan it adopts")
                        .with_help("make the conditions exclusive if only one plan should be licensed at a time, or give both plans an `option` in the agent's values"),
                    );
                }
                Finding::Duplicate { rule, of } => {
                    let (Some(s), Some(t)) = (span(rule), span(of)) else {
                        continue;
                    };
                    push(
                        Diagnostic::warning(
                            DUPLICATE_RULE,
                            s,
                            format!(
                                "this `{}` rule repeats an earlier one",
                                describe(program, a, rule)
                            ),
                        )
                        .with_label("the same condition, up to the order of ∧, ∨ and comparisons")
                        .with_secondary(t, "the earlier rule")
                        .with_help("remove one of the two rules"),
                    );
                }
                Finding::Subsumed { rule, by } => {
                    let (Some(s), Some(t)) = (span(rule), span(by)) else {
                        continue;
                    };
                    push(
                        Diagnostic::warning(
                            SUBSUMED_RULE,
                            s,
                            format!(
                                "this `{}` rule is subsumed: whenever it holds, another rule with the same effect holds",
                                describe(program, a, rule)
                            ),
                        )
                        .with_label("implies the other rule's condition (Z3)")
                        .with_secondary(t, "the rule that covers it")
                        .with_note("rules of one kind and target form a disjunction, so this one adds nothing")
                        .with_help("remove it, or strengthen the other rule if it was meant to be narrower"),
                    );
                }
            }
        }
    }
    out
}

/// Runs the analysis with fresh options, for callers without a log of their own.
pub fn analyse_with(
    ir: &Ir,
    program: &Program,
    already: &HashSet<(Code, Span)>,
    options: Options,
) -> (Vec<Diagnostic>, Log) {
    let mut log = Log::new(options);
    let d = analyse_program(ir, program, already, &mut log);
    (d, log)
}
