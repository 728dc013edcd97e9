//! The agent checks (`.ha`, `language.md` §5): members, rules, conditions and plan bindings.

use super::codes;
use super::program::*;
use super::sat;
use super::{Checker, list, nearest, suggest, value_type};
use crate::diagnostic::Diagnostic;
use crate::source::{Dialect, FileId, Span};
use crate::syntax::ast::{
    Agent, AssertPattern, BinOp, Expr, ExprKind, Ident, MemberKind, PlanTarget, UnOp,
    chain_operands,
};
use std::collections::{HashMap, HashSet};

/// An agent with its name and nothing else yet.
pub(crate) fn skeleton(file: FileId, index: usize, a: &Agent) -> AgentInfo {
    AgentInfo {
        name: a.name.name.to_string(),
        span: a.name.span,
        file,
        index,
        params: Vec::new(),
        beliefs: Vec::new(),
        desires: Vec::new(),
        commit: None,
        attentions: Vec::new(),
        attends: Vec::new(),
        intends: Vec::new(),
        rewards: Vec::new(),
        values: Vec::new(),
        bindings: Vec::new(),
        asserts: Vec::new(),
    }
}

fn dup(kind: &str, name: &Ident, first: Span) -> Diagnostic {
    Diagnostic::error(
        codes::DUPLICATE_MEMBER,
        name.span,
        format!("the {kind} `{}` is declared twice in this agent", name.name),
    )
    .with_label("second declaration")
    .with_secondary(first, "first declared here")
    .with_help(format!(
        "rename one of them or delete the copy; every {kind} needs its own name"
    ))
    .with_note("This usually happens when a line was copied and not renamed.")
}

fn typed_fields(
    c: &mut Checker<'_>,
    params: &[crate::syntax::ast::Param],
    what: &str,
) -> Vec<Field> {
    let mut out: Vec<Field> = Vec::new();
    for p in params {
        if p.name.name.is_empty() {
            continue;
        }
        let ty = match value_type(&p.ty, false) {
            Ok(t) => t,
            Err((msg, help)) => {
                c.emit(
                    Diagnostic::error(
                        codes::BAD_FIELD_TYPE,
                        p.ty.span,
                        format!(
                            "the {what} `{}` has a type it cannot hold: {msg}",
                            p.name.name
                        ),
                    )
                    .with_label("not Int, String or Bool")
                    .with_help(help)
                    .with_note(
                        "This usually happens when a plan's channel was declared on the agent; \
                         declare it inside the plan instead (`parts : chan Int`).",
                    ),
                );
                Ty::Error
            }
        };
        if let Some(first) = out.iter().find(|f| f.name == p.name.name) {
            c.emit(dup(what, &p.name, first.span));
            continue;
        }
        out.push(Field {
            name: p.name.name.to_string(),
            ty,
            span: p.name.span,
        });
    }
    out
}

impl Checker<'_> {
    /// Pass 2 for agents: parameters, beliefs, desires, attentions, values and binding names.
    pub(crate) fn declare_agents(&mut self) {
        for ai in 0..self.agent_asts.len() {
            let a = self.agent_asts[ai];
            let params = typed_fields(self, &a.params, "parameter");
            let mut info =
                std::mem::replace(&mut self.program.agents[ai], skeleton(FileId(0), 0, a));
            info.params = params;
            let mut seen: HashMap<(&str, String), Span> = HashMap::new();
            for m in &a.members {
                let (kind, name) = match &m.kind {
                    MemberKind::Belief { name, .. } => ("belief", name),
                    MemberKind::Desire { name, .. } => ("desire", name),
                    MemberKind::Attention { name, .. } => ("attention", name),
                    MemberKind::Value { name, .. } => ("value", name),
                    MemberKind::Plan { name, .. } => ("plan binding", name),
                    MemberKind::Assert { name, .. } => ("assertion", name),
                    _ => continue,
                };
                if name.name.is_empty() {
                    continue;
                }
                if let Some(&first) = seen.get(&(kind, name.name.to_string())) {
                    self.emit(dup(kind, name, first));
                    continue;
                }
                seen.insert((kind, name.name.to_string()), name.span);
                match &m.kind {
                    MemberKind::Belief { params, .. } => {
                        let fields = typed_fields(self, params, "belief field");
                        info.beliefs.push(BeliefInfo {
                            name: name.name.to_string(),
                            span: name.span,
                            fields,
                        });
                    }
                    MemberKind::Desire {
                        priority, fairness, ..
                    } => {
                        let mut p = 0;
                        if let Some((n, span)) = priority {
                            if *n < 0 {
                                self.emit(
                                    Diagnostic::error(
                                        codes::NEGATIVE_PRIORITY,
                                        *span,
                                        format!("the desire `{}` has a negative priority", name.name),
                                    )
                                    .with_label(format!("priority {n}"))
                                    .with_help("priorities are 0 (the default) or more; a higher number stops lower ones")
                                    .with_note("This usually happens when a desire was meant to rank below the others: give the others higher priorities instead."),
                                );
                            } else {
                                p = *n;
                            }
                        }
                        info.desires.push(DesireInfo {
                            name: name.name.to_string(),
                            span: name.span,
                            priority: p,
                            reachable_by: Vec::new(),
                            achieved: Vec::new(),
                            impossible: Vec::new(),
                            fair: self.fairness(fairness.as_ref(), None),
                        });
                    }
                    MemberKind::Assert {
                        pattern, fairness, ..
                    } => {
                        let fair = self.fairness(fairness.as_ref(), Some(pattern));
                        info.asserts.push(AssertRule {
                            name: name.name.to_string(),
                            span: name.span,
                            pattern: pattern.clone(),
                            fair,
                        });
                    }
                    MemberKind::Attention { initially, .. } => {
                        info.attentions.push(AttentionInfo {
                            name: name.name.to_string(),
                            span: name.span,
                            initially: initially.is_some(),
                        })
                    }
                    MemberKind::Value { expr, .. } => info.values.push(ValueInfo {
                        name: name.name.to_string(),
                        expr: expr.clone(),
                        ty: Ty::Error,
                    }),
                    MemberKind::Plan { args, .. } => info.bindings.push(BindingInfo {
                        name: name.name.to_string(),
                        span: name.span,
                        target: BindingTarget::Unresolved,
                        args: args.clone(),
                    }),
                    _ => {}
                }
            }
            self.program.agents[ai] = info;
        }
    }

    /// Pass 3 for agents: every rule, condition, value and binding.
    pub(crate) fn check_agents(&mut self) {
        for ai in 0..self.agent_asts.len() {
            self.check_values_of(ai);
            self.check_bindings(ai);
            self.check_rules(ai);
        }
    }

    fn agent_tainted(&self, ai: usize) -> bool {
        self.tainted.contains(&self.program.agents[ai].file)
    }

    fn check_rules(&mut self, ai: usize) {
        let a = self.agent_asts[ai];
        let tainted = self.agent_tainted(ai);
        let agent_name = a.name.name.clone();
        // commit
        let commits: Vec<&Ident> = a
            .members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Commit { strategy } => Some(strategy),
                _ => None,
            })
            .collect();
        if commits.is_empty() && !tainted {
            self.emit(
                Diagnostic::error(
                    codes::NO_COMMIT,
                    a.name.span,
                    format!("the agent `{agent_name}` declares no commitment strategy"),
                )
                .with_label("no `commit` line")
                .with_note("the strategy says how long an intention lasts; every agent declares exactly one")
                .with_help("add `commit single_minded` (or `blind`, or `open_minded`) to the agent"),
            );
        }
        for (i, s) in commits.iter().enumerate() {
            if i > 0 {
                self.emit(
                    Diagnostic::error(
                        codes::SEVERAL_COMMITS,
                        s.span,
                        format!("the agent `{agent_name}` declares more than one commitment strategy"),
                    )
                    .with_label("another `commit`")
                    .with_secondary(commits[0].span, "first strategy here")
                    .with_help("keep one `commit` line: an intention cannot be released by two different laws")
                    .with_note("This usually happens when a strategy was changed by adding a line instead of editing the old one."),
                );
                continue;
            }
            if s.name.is_empty() {
                continue;
            }
            match CommitmentStrategy::ALL.iter().find(|(k, _)| *k == s.name) {
                Some((_, st)) => self.program.agents[ai].commit = Some(*st),
                None => {
                    let names: Vec<&str> =
                        CommitmentStrategy::ALL.iter().map(|(k, _)| *k).collect();
                    let near = nearest(&s.name, names.iter().copied()).or_else(|| {
                        let flat = s.name.replace(['-', '_'], "").to_lowercase();
                        names.iter().copied().find(|n| n.replace('_', "") == flat)
                    });
                    let mut d = Diagnostic::error(
                        codes::UNKNOWN_STRATEGY,
                        s.span,
                        format!("`{}` is not a commitment strategy", s.name),
                    )
                    .with_label("unknown strategy")
                    .with_note("the strategies are `blind`, `single_minded` and `open_minded`");
                    d = match near {
                        Some(n) => d.with_help(format!("did you mean `commit {n}`?")),
                        None => d.with_help(
                            "write `commit single_minded`, `commit blind` or `commit open_minded`",
                        ),
                    };
                    self.emit(d);
                }
            }
        }
        // attentions
        let initial: Vec<Span> = a
            .members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Attention {
                    initially: Some(s), ..
                } => Some(*s),
                _ => None,
            })
            .collect();
        let attn = self.program.agents[ai].attentions.clone();
        if !attn.is_empty() && initial.is_empty() && !tainted {
            self.emit(
                Diagnostic::error(
                    codes::NO_INITIAL_ATTENTION,
                    attn[0].span,
                    format!("none of the attentions of `{agent_name}` is marked `initially`"),
                )
                .with_label("the agent must start looking somewhere")
                .with_help(format!(
                    "mark exactly one attention as the first: `attention {} initially`",
                    attn[0].name
                )),
            );
        }
        for s in initial.iter().skip(1) {
            self.emit(
                Diagnostic::error(
                    codes::SEVERAL_INITIAL_ATTENTIONS,
                    *s,
                    format!("the agent `{agent_name}` has more than one initial attention"),
                )
                .with_label("another `initially`")
                .with_secondary(initial[0], "first `initially` here")
                .with_help("keep `initially` on one attention; attention is on one thing at a time, and `when φ attend A` shifts it")
                .with_note("This usually happens when an attention line was copied with its `initially`."),
            );
        }
        for (i, at) in attn.iter().enumerate() {
            if at.initially {
                self.used_attentions.insert((ai, i));
            }
        }
        // desires: reachable by
        for m in &a.members {
            let MemberKind::Desire {
                name, reachable_by, ..
            } = &m.kind
            else {
                continue;
            };
            let Some(di) = self.program.agents[ai].desire(&name.name) else {
                continue;
            };
            if self.program.agents[ai].desires[di].span != name.span {
                continue; // a duplicate
            }
            let mut rb = Vec::new();
            for p in reachable_by {
                if let Some(bi) = self.binding_or_report(ai, p, "is in `reachable by`") {
                    rb.push(bi);
                }
            }
            self.program.agents[ai].desires[di].reachable_by = rb;
        }
        // rules
        for m in &a.members {
            match &m.kind {
                MemberKind::Achieved { desire, cond } => {
                    self.condition(ai, cond);
                    if let Some(di) = self.desire_or_report(ai, desire, "achieved") {
                        self.program.agents[ai].desires[di]
                            .achieved
                            .push(cond.clone());
                    }
                }
                MemberKind::Impossible {
                    desire,
                    cond,
                    because,
                } => {
                    self.condition(ai, cond);
                    let reason = match because {
                        Some((r, _)) if !r.trim().is_empty() => r.clone(),
                        Some((_, span)) => {
                            self.no_reason(*span, desire, "the reason is empty");
                            String::new()
                        }
                        None => {
                            self.no_reason(m.span.end_point(), desire, "no `because \"…\"`");
                            String::new()
                        }
                    };
                    if let Some(di) = self.desire_or_report(ai, desire, "impossible") {
                        self.program.agents[ai].desires[di]
                            .impossible
                            .push(ImpossibleRule {
                                cond: cond.clone(),
                                because: reason,
                            });
                    }
                }
                MemberKind::Attend { cond, attention } => {
                    self.condition(ai, cond);
                    if let Some(i) = self.attention_or_report(ai, attention) {
                        self.used_attentions.insert((ai, i));
                        self.program.agents[ai].attends.push(AttendRule {
                            cond: cond.clone(),
                            attention: i,
                        });
                    }
                }
                MemberKind::Reward {
                    plan,
                    polarity,
                    cond,
                } => {
                    self.condition(ai, cond);
                    if let Some(bi) = self.binding_or_report(ai, plan, "is rewarded") {
                        self.program.agents[ai].rewards.push(RewardRule {
                            binding: bi,
                            polarity: *polarity,
                            cond: cond.clone(),
                        });
                    }
                }
                MemberKind::Assert { pattern, .. } => {
                    self.in_assert = true;
                    for cond in pattern.conds() {
                        self.condition(ai, cond);
                    }
                    self.in_assert = false;
                }
                MemberKind::Intend { plan, desire, cond } => {
                    self.condition(ai, cond);
                    let di = self.desire_or_report(ai, desire, "intend");
                    let bi = self.binding_or_report(ai, plan, "is intended");
                    if let Some(di) = di {
                        let d = &self.program.agents[ai].desires[di];
                        let in_reach = bi.is_some_and(|b| d.reachable_by.contains(&b))
                            || (bi.is_none()
                                && d.reachable_by.iter().any(|&b| {
                                    self.program.agents[ai].bindings[b].name == plan.name
                                }));
                        let written: Vec<String> = d
                            .reachable_by
                            .iter()
                            .map(|&b| self.program.agents[ai].bindings[b].name.clone())
                            .collect();
                        if !(in_reach || bi.is_none() && tainted) {
                            let dspan = d.span;
                            self.emit(
                                Diagnostic::error(
                                    codes::INTEND_NOT_DESIRED,
                                    plan.span,
                                    format!("`{}` is not in the `reachable by` list of `{}`: an agent may not intend what it does not want", plan.name, desire.name),
                                )
                                .with_label(format!("`{}` does not serve `{}`", plan.name, desire.name))
                                .with_secondary(dspan, format!("`{}` is reachable by {}", desire.name, list(&written)))
                                .with_note("realism (I p ⇒ D p): the plans an agent may intend for a desire are the ones the desire lists")
                                .with_help(format!("add `{}` to `desire {} reachable by [...]`, or intend one of {}", plan.name, desire.name, list(&written)))
                                .with_note("This usually happens when the plan was meant for another desire, or the list was not updated after a plan was added."),
                            );
                        }
                        if let Some(bi) = bi {
                            self.program.agents[ai].intends.push(IntendRule {
                                binding: bi,
                                desire: di,
                                cond: cond.clone(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        // desires with no achieved rule
        if !tainted {
            let desires = self.program.agents[ai].desires.clone();
            for d in &desires {
                if d.achieved.is_empty() {
                    self.emit(
                        Diagnostic::error(
                            codes::NO_ACHIEVED,
                            d.span,
                            format!("the desire `{}` has no `achieved` rule", d.name),
                        )
                        .with_label("never released")
                        .with_note("an intention for a desire is released when the agent believes it achieved; without an `achieved` rule it never could be")
                        .with_help(format!("add `achieved {} when B(self) …` saying which belief means the goal is met", d.name))
                        .with_note("This usually happens when the rule names the desire with a typo, or was left for later."),
                    );
                }
            }
        }
        self.satisfiability(ai);
    }

    /// After an unknown belief name, counts the nearest declared one as mentioned (the user
    /// most likely meant it), so that no unused-belief warning follows the error.
    pub(crate) fn mark_near_belief(&mut self, ai: usize, name: &str) {
        let bs = &self.program.agents[ai].beliefs;
        if let Some(n) = nearest(name, bs.iter().map(|b| b.name.as_str()))
            && let Some(i) = self.program.agents[ai].belief(n)
        {
            self.used_beliefs.insert((ai, i));
        }
    }

    /// After an unknown plan name in file `fi`, counts the nearest plan as used.
    pub(crate) fn mark_near_plan(&mut self, fi: usize, name: &str) {
        let pf = &self.program.plan_files[fi];
        if let Some(n) = nearest(name, pf.plans.iter().map(|p| p.name.as_str()))
            && let Some(i) = pf.plans.iter().position(|p| p.name == n)
        {
            self.used_plans.insert(PlanRef {
                file: pf.file,
                index: i,
            });
        }
    }

    fn no_reason(&mut self, span: Span, desire: &Ident, label: &str) {
        self.emit(
            Diagnostic::error(
                codes::NO_REASON,
                span,
                format!(
                    "the `impossible` rule for `{}` gives no reason",
                    desire.name
                ),
            )
            .with_label(label)
            .with_note(
                "the reason is shown to a person when the intention is dropped, and journaled",
            )
            .with_help(
                "end the rule with `because \"…\"`, saying why the goal can no longer be reached",
            ),
        );
    }

    fn desire_or_report(&mut self, ai: usize, d: &Ident, rule: &str) -> Option<usize> {
        if d.name.is_empty() {
            return None; // a placeholder after a syntax error
        }
        if let Some(i) = self.program.agents[ai].desire(&d.name) {
            return Some(i);
        }
        if self.agent_tainted(ai) {
            return None;
        }
        let names: Vec<String> = self.program.agents[ai]
            .desires
            .iter()
            .map(|d| d.name.clone())
            .collect();
        self.emit(
            Diagnostic::error(
                codes::UNKNOWN_DESIRE,
                d.span,
                format!("`{rule}` names the desire `{}`, which this agent does not declare", d.name),
            )
            .with_label("no such desire")
            .with_help(suggest(&d.name, "desires", &names))
            .with_note(format!("This usually happens when a desire was renamed, or when `desire {} reachable by [...]` was never written.", d.name)),
        );
        None
    }

    fn binding_or_report(&mut self, ai: usize, p: &Ident, role: &str) -> Option<usize> {
        if p.name.is_empty() {
            return None;
        }
        if let Some(i) = self.program.agents[ai].binding(&p.name) {
            return Some(i);
        }
        if self.agent_tainted(ai) {
            return None;
        }
        let names: Vec<String> = self.program.agents[ai]
            .bindings
            .iter()
            .map(|b| b.name.clone())
            .collect();
        let mut d = Diagnostic::error(
            codes::UNBOUND_PLAN,
            p.span,
            format!(
                "the plan `{}` {role} but has no `plan {} ↦ …` binding",
                p.name, p.name
            ),
        )
        .with_label("no binding")
        .with_note("the agent must say what runs when it intends a plan")
        .with_help(format!(
            "add `plan {} ↦ File.Plan` naming a plan of a .hk file",
            p.name
        ));
        if let Some(n) = nearest(&p.name, names.iter().map(String::as_str)) {
            d = d.with_note(format!(
                "did you mean `{n}`? The bound plans are {}",
                list(&names)
            ));
        }
        self.emit(d);
        None
    }

    fn attention_or_report(&mut self, ai: usize, a: &Ident) -> Option<usize> {
        if a.name.is_empty() {
            return None;
        }
        if let Some(i) = self.program.agents[ai].attention(&a.name) {
            return Some(i);
        }
        let atts = &self.program.agents[ai].attentions;
        if let Some(n) = nearest(&a.name, atts.iter().map(|x| x.name.as_str())) {
            let i = self.program.agents[ai].attention(n).unwrap_or(0);
            self.used_attentions.insert((ai, i));
        }
        if self.agent_tainted(ai) {
            return None;
        }
        let names: Vec<String> = self.program.agents[ai]
            .attentions
            .iter()
            .map(|d| d.name.clone())
            .collect();
        self.emit(
            Diagnostic::error(
                codes::UNKNOWN_ATTENTION,
                a.span,
                format!("`{}` is not an attention of this agent", a.name),
            )
            .with_label("no such attention")
            .with_help(format!("{}; declare it with `attention {}`", suggest(&a.name, "attentions", &names), a.name))
            .with_note("This usually happens when an attention is attended or tested under a different spelling than its declaration."),
        );
        None
    }

    // ------------------------------------------------------------ values

    fn check_values_of(&mut self, ai: usize) {
        let info = &self.program.agents[ai];
        let names: Vec<String> = info.values.iter().map(|v| v.name.clone()).collect();
        let exprs: Vec<Expr> = info.values.iter().map(|v| v.expr.clone()).collect();
        let params: HashMap<String, Ty> = info
            .params
            .iter()
            .map(|p| (p.name.clone(), p.ty.clone()))
            .collect();
        let tys = numeric_defs(
            self,
            &names,
            &exprs,
            &|n: &str| params.get(n).cloned(),
            NumericCodes {
                unknown: codes::UNKNOWN_VALUE_NAME,
                cycle: codes::VALUE_CYCLE,
                not_numeric: codes::VALUE_NOT_NUMERIC,
                known: names
                    .iter()
                    .chain(params.keys())
                    .cloned()
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect(),
            },
            &mut |_, _| None,
        );
        for (v, t) in self.program.agents[ai].values.iter_mut().zip(tys) {
            v.ty = t;
        }
    }

    // ------------------------------------------------------------ bindings

    fn check_bindings(&mut self, ai: usize) {
        let a = self.agent_asts[ai];
        for m in &a.members {
            let MemberKind::Plan { name, target, args } = &m.kind else {
                continue;
            };
            let Some(bi) = self.program.agents[ai].binding(&name.name) else {
                continue;
            };
            if self.program.agents[ai].bindings[bi].span != name.span {
                continue;
            }
            let resolved = match target {
                PlanTarget::Host { name: host } => {
                    self.emit(
                        Diagnostic::warning(
                            codes::HOST_PLAN,
                            host.span,
                            format!("the plan `{}` runs host code, which the compiler cannot explore", name.name),
                        )
                        .with_label(format!("`host.{}` is a Rust function registered with the runtime", host.name))
                        .with_note("its obligations (no deadlock, liveness of the desires it serves) will be reported as not provable")
                        .with_help("write the plan as a .hk process to have it proved, or accept the unproved obligations"),
                    );
                    BindingTarget::Host(host.name.to_string())
                }
                PlanTarget::Process { file, plan } => {
                    self.resolve_binding(ai, name, file, plan, args)
                }
            };
            self.program.agents[ai].bindings[bi].target = resolved;
        }
    }

    fn resolve_binding(
        &mut self,
        ai: usize,
        name: &Ident,
        file: &Ident,
        plan: &Ident,
        args: &[Expr],
    ) -> BindingTarget {
        if file.name.is_empty() || plan.name.is_empty() {
            return BindingTarget::Unresolved;
        }
        let Some(fi) = self.program.plan_file_index(&file.name) else {
            let known = self.all_stems.contains_key(file.name.as_str());
            let near = nearest(
                &file.name,
                self.program.plan_files.iter().map(|f| f.stem.as_str()),
            )
            .and_then(|n| self.program.plan_file_index(n));
            if let Some(nf) = near {
                self.mark_near_plan(nf, &plan.name);
                let pf = &self.program.plan_files[nf];
                if let Some(i) = pf.plans.iter().position(|p| p.name == plan.name) {
                    self.used_plans.insert(PlanRef {
                        file: pf.file,
                        index: i,
                    });
                }
            }
            if !known {
                let mut stems: Vec<String> = self.all_stems.keys().cloned().collect();
                stems.sort();
                self.emit(
                    Diagnostic::error(
                        codes::UNKNOWN_PLAN_FILE,
                        file.span,
                        format!("no plan file is named `{}.hk`", file.name),
                    )
                    .with_label("no such file")
                    .with_help(suggest(&file.name, "plan files (by stem)", &stems))
                    .with_note("`File.Plan` names a .hk file by its stem (`Line` for `Line.hk`) and a plan in it")
                    .with_note("This usually happens when the .hk file was not given to the check, or was renamed."),
                );
            }
            return BindingTarget::Unresolved;
        };
        let pf = &self.program.plan_files[fi];
        let fid = pf.file;
        let Some(pi) = pf
            .plans
            .iter()
            .position(|p| p.name == plan.name && !p.duplicate)
        else {
            self.mark_near_plan(fi, &plan.name);
            let pf = &self.program.plan_files[fi];
            if !self.tainted.contains(&fid) {
                let names: Vec<String> = pf
                    .plans
                    .iter()
                    .filter(|p| !p.duplicate)
                    .map(|p| p.name.clone())
                    .collect();
                self.emit(
                    Diagnostic::error(
                        codes::UNKNOWN_PLAN,
                        plan.span,
                        format!("`{}.hk` declares no plan `{}`", file.name, plan.name),
                    )
                    .with_label("no such plan")
                    .with_help(suggest(&plan.name, &format!("plans of `{}.hk`", file.name), &names))
                    .with_note("This usually happens when the plan was renamed in the .hk file but not in the binding."),
                );
            }
            return BindingTarget::Unresolved;
        };
        let r = PlanRef {
            file: fid,
            index: pi,
        };
        self.used_plans.insert(r);
        let p = self.program.plan_files[fi].plans[pi].clone();
        let agent_name = self.program.agents[ai].name.clone();
        if let Some(owner) = p.agent
            && owner.0 != ai
        {
            let owner_name = self.program.agents[owner.0].name.clone();
            self.emit(
                Diagnostic::error(
                    codes::PLAN_OF_OTHER_AGENT,
                    plan.span,
                    format!("the plan `{}.{}` belongs to `{owner_name}`, not to `{agent_name}`", file.name, plan.name),
                )
                .with_label(format!("a plan of `{owner_name}`"))
                .with_secondary(p.span, format!("declared `: {owner_name}` here"))
                .with_note("a plan changes the beliefs of the agent it names; another agent cannot start it")
                .with_help(format!("declare the plan as `: {agent_name}`, or bind a plan of `{agent_name}`")),
            );
        }
        if let Some(ch) = p.params.iter().find(|f| matches!(f.ty, Ty::Chan(_))) {
            self.emit(
                Diagnostic::error(
                    codes::STARTED_PLAN_TAKES_CHANNEL,
                    plan.span,
                    format!("the plan `{}` is started by the agent but takes the channel `{}`", plan.name, ch.name),
                )
                .with_label("started by this binding")
                .with_secondary(ch.span, format!("`{}: {}` is a channel parameter", ch.name, ch.ty))
                .with_note("a plan an agent starts takes values, not channels: a plan network is closed, and nothing outside it could use the channel")
                .with_help(format!("declare the channel inside the plan (`{} : {}`), as the seed's Produce does, and pass it to the plans it calls", ch.name, ch.ty)),
            );
        }
        let chan_param = p.params.iter().any(|f| matches!(f.ty, Ty::Chan(_)));
        if self.tainted.contains(&fid) || chan_param {
            // the signature may be incomplete, or the channel is the error to fix first
        } else if args.len() != p.params.len() {
            let span = args
                .first()
                .map_or(plan.span, |f| f.span.to(args[args.len() - 1].span));
            self.emit(
                Diagnostic::error(
                    codes::BINDING_ARITY,
                    span,
                    format!(
                        "`{}.{}` takes {} argument{}, but the binding gives {}",
                        file.name,
                        plan.name,
                        p.params.len(),
                        if p.params.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .with_label(format!("{} given", args.len()))
                .with_secondary(p.span, format!("`{}` declared here", plan.name))
                .with_help(format!(
                    "write `plan {} ↦ {}.{}({})`",
                    name.name,
                    file.name,
                    plan.name,
                    p.params
                        .iter()
                        .map(|f| format!("<{}>", f.ty))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
        } else {
            for (arg, param) in args.iter().zip(&p.params) {
                if matches!(param.ty, Ty::Chan(_)) {
                    continue;
                }
                let t = self.binding_argument_type(ai, arg);
                if t != param.ty && t != Ty::Error && param.ty != Ty::Error {
                    self.emit(
                        Diagnostic::error(
                            codes::BAD_BINDING_ARGUMENT,
                            arg.span,
                            format!(
                                "the parameter `{}` is {}, but this argument is {t}",
                                param.name, param.ty
                            ),
                        )
                        .with_label(format!("{t}"))
                        .with_secondary(param.span, format!("`{}: {}`", param.name, param.ty))
                        .with_help(format!("pass {} here", param.ty.with_article())),
                    );
                }
            }
        }
        BindingTarget::Plan(r)
    }

    /// The type of a binding argument: a constant expression over literals and the agent's
    /// parameters (every operator of a plan's expressions), each operation typed as in a plan.
    /// Reports what is not constant or ill-typed (HA0054) and answers [`Ty::Error`] for it, so
    /// that nothing the lowering cannot compute is accepted.
    fn binding_argument_type(&mut self, ai: usize, e: &Expr) -> Ty {
        let code = codes::BAD_BINDING_ARGUMENT;
        match &e.kind {
            ExprKind::Int(_) => Ty::Int,
            ExprKind::Str(_) => Ty::String,
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Error => Ty::Error,
            ExprKind::Float(_) => {
                let why = "a plan's parameters are Int, String or Bool";
                self.mismatch(code, e.span, &Ty::Float, "an Int", why);
                Ty::Error
            }
            ExprKind::Var(v) => {
                let info = &self.program.agents[ai];
                match info.param(&v.name) {
                    Some(i) => info.params[i].ty.clone(),
                    None => self.not_constant(e.span),
                }
            }
            ExprKind::Unary(op, x) => {
                let (want, ty, why) = match op {
                    UnOp::Neg => (Ty::Int, "Int", "`-` negates an Int"),
                    UnOp::Not => (Ty::Bool, "Bool", "`¬` negates a Bool"),
                };
                let t = self.binding_argument_type(ai, x);
                if t != want && t != Ty::Error {
                    self.mismatch(code, x.span, &t, ty, why);
                }
                want
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => {
                for x in [l, r] {
                    let t = self.binding_argument_type(ai, x);
                    if t != Ty::Bool && t != Ty::Error {
                        let why = format!("`{}` joins Bools", op.symbol());
                        self.mismatch(code, x.span, &t, "Bool", &why);
                    }
                }
                Ty::Bool
            }
            ExprKind::Binary(..) | ExprKind::Chain { .. } => {
                operation_type(self, code, e, &mut |c, x| c.binding_argument_type(ai, x))
            }
            _ => self.not_constant(e.span),
        }
    }

    /// Reports a binding argument that is not a constant; its type is unknown.
    fn not_constant(&mut self, span: Span) -> Ty {
        self.emit(
            Diagnostic::error(
                codes::BAD_BINDING_ARGUMENT,
                span,
                "a binding argument must be a constant: literals and the agent's parameters",
            )
            .with_label("not a constant")
            .with_note("the arguments are fixed when the agent starts the plan; beliefs and variables are not known then")
            .with_help("use a literal or one of the agent's parameters, or an expression of them (`t + 1`)"),
        );
        Ty::Error
    }

    // ------------------------------------------------------------ conditions

    /// Checks one condition of agent `ai`: names, arity, types, binding; records mentions.
    /// Returns whether it is free of errors.
    pub(crate) fn condition(&mut self, ai: usize, e: &Expr) -> bool {
        let before = self.diags.iter().filter(|d| d.is_error()).count();
        let mut cx = Cond {
            vars: HashMap::new(),
            negated: 0,
            reported: HashSet::new(),
        };
        self.collect_pattern_types(ai, e, &mut cx);
        let t = self.cexpr(ai, e, &HashSet::new(), &mut cx);
        if !matches!(t, Ty::Bool | Ty::Error) {
            self.emit(
                Diagnostic::error(
                    codes::NOT_BOOLEAN,
                    e.span,
                    format!("a condition must be true or false, but this is {t}"),
                )
                .with_label(format!("{t}"))
                .with_help("compare it (`n < 3`) or test a belief (`B(self) made(n)`)")
                .with_note("This usually happens when a comparison lost its right-hand side."),
            );
        }
        let after = self.diags.iter().filter(|d| d.is_error()).count();
        after == before && !contains_error(e)
    }

    /// `desires D` or `intends P` outside an `assert` (HA0062): the rules' conditions are read
    /// to decide what the agent desires and intends, so they cannot read that themselves.
    fn mental(&mut self, e: &Expr, word: &str) {
        if self.in_assert {
            return;
        }
        self.emit(
            Diagnostic::error(
                codes::MENTAL_OUTSIDE_ASSERT,
                e.span,
                format!("`{word}` can only be read in an `assert`"),
            )
            .with_label("not in an assertion")
            .with_note("what the agent desires and intends is decided by its rules' conditions, so a rule cannot read it without defining it in terms of itself")
            .with_help("test the beliefs the desire's `achieved` rule reads, or state the property as an `assert`")
            .with_note("This usually happens when a property meant as an `assert` was written as a rule's condition."),
        );
    }

    /// A fairness clause: `under weak fairness` is the one known (HA0064 otherwise), and only
    /// on a desire or a response or existence assertion (HA0063 on a safety pattern, whose
    /// meaning fairness does not change). Whether the clause makes the property fair.
    fn fairness(
        &mut self,
        clause: Option<&(Ident, Span)>,
        pattern: Option<&AssertPattern>,
    ) -> bool {
        let Some((word, span)) = clause else {
            return false;
        };
        if word.name != "weak" {
            let strong = word.name == "strong";
            self.emit(
                Diagnostic::error(
                    codes::UNKNOWN_FAIRNESS,
                    word.span,
                    format!("`{}` fairness is not supported", word.name),
                )
                .with_label("only `weak` is known")
                .with_note(if strong {
                    "strong fairness (a process enabled infinitely often is taken infinitely often) is not supported: its refutation needs a search that is not linear in the states, and the kernel has no witness for it"
                } else {
                    "weak fairness: no process (plan instance) that can move from some point on is ignored forever"
                })
                .with_help("write `under weak fairness`")
                .with_note("This usually happens when the clause was copied from another checker's options (Spin's `-f` and PAT's `wf` are weak fairness)."),
            );
            return false;
        }
        if let Some(p) = pattern.filter(|p| p.is_safety()) {
            self.emit(
                Diagnostic::error(
                    codes::FAIRNESS_ON_SAFETY,
                    *span,
                    format!("fairness does not change what `{}` means", p.keyword()),
                )
                .with_label("on a safety pattern")
                .with_note("`always`, `never` and `precedes` are about the states every path can reach, and every finite path can be continued fairly: fairness only matters to `leads to` and `eventually`")
                .with_help("remove `under weak fairness`")
                .with_note("This usually happens when the clause was added to every assertion of an agent."),
            );
            return false;
        }
        true
    }

    /// The agent `B(j)` names: `Some(Some(index))`, `Some(None)` if it could not resolve (already
    /// reported or silent), or the agent itself for `self`.
    fn believer(&mut self, ai: usize, j: &Ident, report: bool) -> Option<usize> {
        if j.name.is_empty() {
            return None;
        }
        if j.name == "self" {
            return Some(ai);
        }
        if let Some((id, _)) = self.program.agent(&j.name) {
            return Some(id.0);
        }
        if report && !self.dialect_tainted(Dialect::Agent) {
            let names: Vec<String> = self.program.agents.iter().map(|a| a.name.clone()).collect();
            self.emit(
                Diagnostic::error(codes::UNKNOWN_AGENT, j.span, format!("`{}` is neither `self` nor a declared agent", j.name))
                    .with_label("unknown agent")
                    .with_help(format!("write `B(self) …` for this agent's own beliefs; {}", suggest(&j.name, "agents", &names)))
                    .with_note("This usually happens when `B(self)` was written as `B(me)` or with the agent's type."),
            );
        }
        None
    }

    fn belief_of(
        &mut self,
        ai: usize,
        bj: usize,
        atom: &crate::syntax::ast::Atom,
        report: bool,
    ) -> Option<Vec<Field>> {
        if atom.pred.name.is_empty() {
            return None;
        }
        let agent = &self.program.agents[bj];
        let Some(bi) = agent.belief(&atom.pred.name) else {
            self.mark_near_belief(bj, &atom.pred.name);
            let agent = &self.program.agents[bj];
            if report && !self.tainted.contains(&agent.file) {
                let names: Vec<String> = agent.beliefs.iter().map(|b| b.name.clone()).collect();
                let who = if bj == ai {
                    "this agent".to_string()
                } else {
                    format!("the agent `{}`", agent.name)
                };
                let help = if bj == ai {
                    format!(
                        "{}; or declare it: `belief {}(…)`",
                        suggest(&atom.pred.name, "beliefs", &names),
                        atom.pred.name
                    )
                } else {
                    suggest(
                        &atom.pred.name,
                        &format!("beliefs of `{}`", agent.name),
                        &names,
                    )
                };
                self.emit(
                    Diagnostic::error(codes::UNKNOWN_BELIEF, atom.pred.span, format!("{who} declares no belief `{}`", atom.pred.name))
                        .with_label("undeclared belief")
                        .with_help(help)
                        .with_note("This usually happens when a belief is misspelled, or is declared by another agent."),
                );
            }
            return None;
        };
        self.used_beliefs.insert((bj, bi));
        let fields = self.program.agents[bj].beliefs[bi].fields.clone();
        if fields.len() != atom.args.len() {
            if report && !self.tainted.contains(&self.program.agents[bj].file) {
                let decl = self.program.agents[bj].beliefs[bi].span;
                self.emit(
                    Diagnostic::error(
                        codes::BELIEF_ARITY,
                        atom.span,
                        format!(
                            "the belief `{}` has {} field{}, but this pattern gives {}",
                            atom.pred.name,
                            fields.len(),
                            if fields.len() == 1 { "" } else { "s" },
                            atom.args.len()
                        ),
                    )
                    .with_label(format!(
                        "{} argument{}",
                        atom.args.len(),
                        if atom.args.len() == 1 { "" } else { "s" }
                    ))
                    .with_secondary(
                        decl,
                        format!(
                            "declared as `{}({})`",
                            atom.pred.name,
                            fields
                                .iter()
                                .map(|f| format!("{}: {}", f.name, f.ty))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                    .with_help("give one pattern per field; `_` matches anything"),
                );
            }
            return None;
        }
        Some(fields)
    }

    fn is_constant(&self, ai: usize, name: &str) -> Option<Ty> {
        let a = &self.program.agents[ai];
        if let Some(i) = a.param(name) {
            return Some(a.params[i].ty.clone());
        }
        a.value(name).map(|i| a.values[i].ty.clone())
    }

    fn collect_pattern_types(&mut self, ai: usize, e: &Expr, cx: &mut Cond) {
        match &e.kind {
            ExprKind::Believes { agent, atom } => {
                let Some(bj) = self.believer(ai, agent, false) else {
                    return;
                };
                let Some(fields) = self.belief_of(ai, bj, atom, false) else {
                    return;
                };
                for (arg, f) in atom.args.iter().zip(&fields) {
                    if let ExprKind::Var(v) = &arg.kind
                        && self.is_constant(ai, &v.name).is_none()
                        && f.ty != Ty::Error
                    {
                        match cx.vars.get(v.name.as_str()) {
                            Some((t, first)) if *t != f.ty => {
                                let (t, first) = (t.clone(), *first);
                                self.emit(
                                    Diagnostic::error(codes::TYPE_MISMATCH, v.span, format!("the variable `{}` is used as {} and as {t}", v.name, f.ty))
                                        .with_label(format!("here it matches `{}: {}`", f.name, f.ty))
                                        .with_secondary(first, format!("here it is {t}"))
                                        .with_help("use two variables, one per type")
                                        .with_note("This usually happens when a variable name is reused for a different field."),
                                );
                            }
                            Some(_) => {}
                            None => {
                                cx.vars.insert(v.name.to_string(), (f.ty.clone(), v.span));
                            }
                        }
                    }
                }
            }
            ExprKind::Unary(_, x) => self.collect_pattern_types(ai, x, cx),
            ExprKind::Binary(_, l, r) => {
                self.collect_pattern_types(ai, l, cx);
                self.collect_pattern_types(ai, r, cx);
            }
            ExprKind::Chain { first, rest } => {
                for x in chain_operands(first, rest) {
                    self.collect_pattern_types(ai, x, cx);
                }
            }
            _ => {}
        }
    }

    fn cexpr(&mut self, ai: usize, e: &Expr, env: &HashSet<String>, cx: &mut Cond) -> Ty {
        match &e.kind {
            ExprKind::Int(_) => Ty::Int,
            // Conditions are over beliefs, parameters and variables, which are Int, String or
            // Bool: a decimal has nothing to compare with but another decimal, and the IR has
            // no decimals (`0.1 = 0.2` was lowered as `0 = 0`, issue 29).
            ExprKind::Float(_) => {
                self.emit(
                    Diagnostic::error(
                        codes::TYPE_MISMATCH,
                        e.span,
                        "a decimal number cannot be used in a condition",
                    )
                    .with_label("a decimal")
                    .with_note("conditions compare beliefs, parameters and variables, which are Int, String or Bool; decimals are for values (`value`, `.hb`)")
                    .with_help("write an integer"),
                );
                Ty::Error
            }
            ExprKind::Str(_) => Ty::String,
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Error => Ty::Error,
            ExprKind::Wildcard => {
                self.emit(
                    Diagnostic::error(codes::UNBOUND_VARIABLE, e.span, "`_` is not a value")
                        .with_label("only a belief pattern's argument may be `_`")
                        .with_help("bind a variable in a belief pattern (`B(self) made(n)`) and compare that"),
                );
                Ty::Error
            }
            ExprKind::Var(v) => {
                if env.contains(v.name.as_str()) {
                    return cx
                        .vars
                        .get(v.name.as_str())
                        .map_or(Ty::Error, |(t, _)| t.clone());
                }
                // A `.ha` value is not something a condition can read: the runtime and the
                // proofs evaluate conditions over beliefs, bindings and parameters only.
                let agent = &self.program.agents[ai];
                if agent.param(&v.name).is_none() && agent.value(&v.name).is_some() {
                    if cx.reported.insert(v.name.to_string()) {
                        self.emit(
                            Diagnostic::error(
                                codes::UNBOUND_VARIABLE,
                                v.span,
                                format!("`{}` is a value of the agent, and a condition cannot read a value", v.name),
                            )
                            .with_label("a value, declared with `value`")
                            .with_note("values order licensed choices; a condition reads beliefs, the variables its patterns bind, and agent parameters")
                            .with_help(format!("test the beliefs `{}` is computed from, or declare it as an agent parameter", v.name)),
                        );
                    }
                    return Ty::Error;
                }
                if let Some(t) = self.is_constant(ai, &v.name) {
                    return t;
                }
                if !cx.reported.insert(v.name.to_string()) {
                    return Ty::Error;
                }
                let mut d = Diagnostic::error(
                    codes::UNBOUND_VARIABLE,
                    v.span,
                    format!("no positive belief pattern binds `{}` here", v.name),
                )
                .with_label("unbound");
                d = match cx.vars.get(v.name.as_str()) {
                    Some((_, at)) if at.start > v.span.start => d
                        .with_secondary(*at, "bound only here, after its use")
                        .with_note("conditions are read from left to right: a pattern binds its variables for what follows it in the conjunction")
                        .with_help(format!("move the pattern that binds `{}` before this use", v.name)),
                    Some((_, at)) => d
                        .with_secondary(*at, "this pattern does not bind it where it is used")
                        .with_note("a pattern under `¬` binds nothing, and a pattern in one side of `∨` binds nothing in the other")
                        .with_help(format!("bind `{}` with a positive pattern in the same conjunction (`B(self) f({}) ∧ …`)", v.name, v.name)),
                    None => d
                        .with_help(format!("bind `{}` with a belief pattern (`B(self) made({}) ∧ …`), or declare it as an agent parameter", v.name, v.name))
                        .with_note("This usually happens when a variable is misspelled, or an agent parameter was not declared."),
                };
                self.emit(d);
                Ty::Error
            }
            ExprKind::Unary(UnOp::Not, x) => {
                cx.negated += 1;
                let t = self.cexpr(ai, x, env, cx);
                cx.negated -= 1;
                self.expect(
                    codes::NOT_BOOLEAN,
                    x,
                    &t,
                    &Ty::Bool,
                    "`¬` applies to conditions",
                );
                Ty::Bool
            }
            ExprKind::Unary(UnOp::Neg, x) => {
                let t = self.cexpr(ai, x, env, cx);
                if !t.is_numeric() && t != Ty::Error {
                    self.mismatch(
                        codes::TYPE_MISMATCH,
                        x.span,
                        &t,
                        "a number",
                        "`-` applies to numbers",
                    );
                    return Ty::Error;
                }
                t
            }
            ExprKind::Binary(BinOp::And, _, _) => {
                let mut conj = Vec::new();
                flatten_and(e, &mut conj);
                // Conjunctions are read from left to right: a pattern binds its variables for
                // the conjuncts after it (as the kernel evaluates them).
                // Inside a conjunction a pattern binds (existentially, even under an outer `¬`:
                // `¬(B(self) f(n) ∧ n < 3)`), so the first-seen-under-`¬` rule pauses here.
                let mut env2 = env.clone();
                let negated = std::mem::replace(&mut cx.negated, 0);
                for c in conj {
                    let t = self.cexpr(ai, c, &env2, cx);
                    self.expect(codes::NOT_BOOLEAN, c, &t, &Ty::Bool, "`∧` joins conditions");
                    bound_by(c, &|n| self.is_constant(ai, n).is_some(), &mut env2);
                }
                cx.negated = negated;
                Ty::Bool
            }
            ExprKind::Binary(BinOp::Or, l, r) => {
                for x in [l, r] {
                    let t = self.cexpr(ai, x, env, cx);
                    self.expect(codes::NOT_BOOLEAN, x, &t, &Ty::Bool, "`∨` joins conditions");
                }
                Ty::Bool
            }
            ExprKind::Binary(..) | ExprKind::Chain { .. } => {
                operation_type(self, codes::TYPE_MISMATCH, e, &mut |c, x| {
                    c.cexpr(ai, x, env, cx)
                })
            }
            ExprKind::Believes { agent, atom } => {
                let Some(bj) = self.believer(ai, agent, true) else {
                    return Ty::Bool;
                };
                let Some(fields) = self.belief_of(ai, bj, atom, true) else {
                    return Ty::Bool;
                };
                for (arg, f) in atom.args.iter().zip(&fields) {
                    let t = match &arg.kind {
                        ExprKind::Wildcard => continue,
                        ExprKind::Var(v) if self.is_constant(ai, &v.name).is_none() => {
                            if cx.negated > 0
                                && !env.contains(v.name.as_str())
                                && cx.reported.insert(v.name.to_string())
                            {
                                self.emit(
                                    Diagnostic::error(
                                        codes::UNBOUND_VARIABLE,
                                        v.span,
                                        format!("`{}` is first seen under `¬`, where a pattern binds nothing", v.name),
                                    )
                                    .with_label("not bound")
                                    .with_note("only positive belief tests bind; `¬B(self) f(x)` with a fresh `x` would say nothing about any particular `x`")
                                    .with_help(format!("write `_` to mean any value (`¬B(self) {}(_)`), or bind `{}` with a positive pattern in the same conjunction", atom.pred.name, v.name)),
                                );
                            }
                            continue; // a pattern variable: its type was recorded
                        }
                        _ => self.cexpr(ai, arg, env, cx),
                    };
                    if t != f.ty
                        && t != Ty::Error
                        && f.ty != Ty::Error
                        && !self.tainted.contains(&self.program.agents[bj].file)
                    {
                        self.emit(
                            Diagnostic::error(
                                codes::TYPE_MISMATCH,
                                arg.span,
                                format!(
                                    "the field `{}` of `{}` is {}, but this is {t}",
                                    f.name, atom.pred.name, f.ty
                                ),
                            )
                            .with_label(format!("{t}"))
                            .with_secondary(f.span, format!("`{}: {}`", f.name, f.ty))
                            .with_help(format!(
                                "match it with {} or a variable",
                                f.ty.with_article()
                            )),
                        );
                    }
                }
                Ty::Bool
            }
            ExprKind::Attending(a) => {
                if let Some(i) = self.attention_or_report(ai, a) {
                    self.used_attentions.insert((ai, i));
                }
                Ty::Bool
            }
            ExprKind::Desires(d) => {
                self.mental(e, "desires");
                self.desire_or_report(ai, d, "desires");
                Ty::Bool
            }
            ExprKind::Intends(p) => {
                self.mental(e, "intends");
                self.binding_or_report(ai, p, "is tested by `intends`");
                Ty::Bool
            }
            ExprKind::Call { func, .. } => {
                self.emit(
                    Diagnostic::error(
                        codes::TYPE_MISMATCH,
                        e.span,
                        format!("`{}(…)` cannot be used in an agent", func.name),
                    )
                    .with_label("functions are for .hb values")
                    .with_help(
                        "conditions test beliefs (`B(self) f(x)`), attention and comparisons",
                    ),
                );
                Ty::Error
            }
            ExprKind::Field { base, .. } => {
                self.emit(
                    Diagnostic::error(
                        codes::TYPE_MISMATCH,
                        e.span,
                        format!("the feature `{}.…` cannot be used in an agent", base.name),
                    )
                    .with_label("features are for .hb values")
                    .with_help(format!(
                        "test the belief with a pattern instead: `B(self) {}(x)`",
                        base.name
                    )),
                );
                Ty::Error
            }
        }
    }

    pub(crate) fn expect(
        &mut self,
        code: crate::diagnostic::Code,
        e: &Expr,
        got: &Ty,
        want: &Ty,
        why: &str,
    ) {
        if got == want || *got == Ty::Error {
            return;
        }
        if code == codes::NOT_BOOLEAN {
            self.emit(
                Diagnostic::error(
                    code,
                    e.span,
                    format!(
                        "this part of a condition is {}, not true or false",
                        got.with_article()
                    ),
                )
                .with_label(format!("{got}"))
                .with_note(why.to_string())
                .with_help("compare it (`n + 1 > 2`) or test a belief (`B(self) f(n)`)")
                .with_note(
                    "This usually happens when a comparison lost its operator or right-hand side.",
                ),
            );
            return;
        }
        self.mismatch(code, e.span, got, &want.to_string(), why);
    }

    pub(crate) fn mismatch(
        &mut self,
        code: crate::diagnostic::Code,
        span: Span,
        got: &Ty,
        want: &str,
        why: &str,
    ) {
        self.emit(
            Diagnostic::error(code, span, format!("expected {want}, found {got}"))
                .with_label(format!("{got}"))
                .with_note(why.to_string())
                .with_help(format!("write {want} here")),
        );
    }

    // ------------------------------------------------------------ satisfiability

    fn satisfiability(&mut self, ai: usize) {
        let a = self.agent_asts[ai];
        let consts: HashSet<String> = {
            let info = &self.program.agents[ai];
            info.params
                .iter()
                .map(|p| p.name.clone())
                .chain(info.values.iter().map(|v| v.name.clone()))
                .collect()
        };
        let is_const = |n: &str| consts.contains(n);
        let clean: Vec<bool> = a
            .members
            .iter()
            .map(|m| cond_of(&m.kind).is_none_or(|c| self.clean(ai, c)))
            .collect();
        for (m, ok) in a.members.iter().zip(&clean) {
            let Some(cond) = cond_of(&m.kind) else {
                continue;
            };
            if !ok {
                continue;
            }
            if sat::certainly_unsat(&[(cond, false)], &is_const) {
                self.emit(
                    Diagnostic::warning(codes::UNSATISFIABLE_CONDITION, cond.span, "no state can satisfy this condition")
                        .with_label("always false")
                        .with_note("the rule it guards can never fire")
                        .with_help("remove the contradiction (a belief both required and forbidden, bounds that exclude each other, two attentions at once)")
                        .with_note("This usually happens when `¬` was put on the wrong belief, or a comparison points the wrong way."),
                );
                continue;
            }
            let MemberKind::Intend { desire, plan, .. } = &m.kind else {
                continue;
            };
            let info = &self.program.agents[ai];
            let Some(di) = info.desire(&desire.name) else {
                continue;
            };
            let achieved: Vec<&Expr> = a
                .members
                .iter()
                .zip(&clean)
                .filter_map(|(m, ok)| match &m.kind {
                    MemberKind::Achieved { desire: d, cond } if d.name == desire.name => {
                        Some((&**cond, *ok))
                    }
                    _ => None,
                })
                .map(|(c, ok)| if ok { Some(c) } else { None })
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default();
            if achieved.is_empty() {
                continue;
            }
            let mut parts = vec![(cond, false)];
            parts.extend(achieved.iter().map(|c| (*c, true)));
            if sat::certainly_unsat(&parts, &is_const) {
                let dspan = info.desires[di].span;
                self.emit(
                    Diagnostic::warning(
                        codes::INTEND_ALREADY_ACHIEVED,
                        cond.span,
                        format!("whenever this condition holds, `{}` is already achieved", desire.name),
                    )
                    .with_label(format!("implies the `achieved {}` condition", desire.name))
                    .with_secondary(achieved[0].span, "the achieved condition")
                    .with_secondary(dspan, "the desire")
                    .with_note(format!("`{}` would be adopted and released at once: the commitment law drops an intention whose goal is believed achieved", plan.name))
                    .with_help("intend the plan while the goal is not yet met (for example `B(self) made(n) ∧ n < 3` against `achieved … made(3)`)"),
                );
            }
        }
    }

    /// Whether a condition checked without errors (re-checked silently).
    fn clean(&mut self, ai: usize, e: &Expr) -> bool {
        let saved = std::mem::take(&mut self.diags);
        let ok = self.condition(ai, e);
        self.diags = saved;
        ok
    }
}

fn cond_of(m: &MemberKind) -> Option<&Expr> {
    match m {
        MemberKind::Intend { cond, .. }
        | MemberKind::Achieved { cond, .. }
        | MemberKind::Impossible { cond, .. }
        | MemberKind::Attend { cond, .. }
        | MemberKind::Reward { cond, .. } => Some(cond),
        _ => None,
    }
}

/// Pattern variable types of one condition.
pub(crate) struct Cond {
    vars: HashMap<String, (Ty, Span)>,
    /// How many `¬` enclose the expression being checked.
    negated: u32,
    /// Variables already reported unbound (one report per variable).
    reported: HashSet<String>,
}

/// Whether an expression contains an `Error` node.
pub(crate) fn contains_error(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Error => true,
        ExprKind::Unary(_, x) => contains_error(x),
        ExprKind::Binary(_, l, r) => contains_error(l) || contains_error(r),
        ExprKind::Chain { first, rest } => chain_operands(first, rest).any(contains_error),
        ExprKind::Believes { atom, .. } => atom.args.iter().any(contains_error),
        ExprKind::Call { args, .. } => args.iter().any(contains_error),
        _ => false,
    }
}

/// The conjuncts of a chain of `∧`.
pub(crate) fn flatten_and<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, l, r) => {
            flatten_and(l, out);
            flatten_and(r, out);
        }
        _ => out.push(e),
    }
}

/// Adds to `env` the variables `e` binds positively: a belief pattern binds its variables, `∧`
/// the union, `∨` those both sides bind, `¬` nothing.
pub(crate) fn bound_by(e: &Expr, is_const: &dyn Fn(&str) -> bool, env: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Believes { atom, .. } => {
            for a in &atom.args {
                if let ExprKind::Var(v) = &a.kind
                    && !is_const(&v.name)
                {
                    env.insert(v.name.to_string());
                }
            }
        }
        ExprKind::Binary(BinOp::And, l, r) => {
            bound_by(l, is_const, env);
            bound_by(r, is_const, env);
        }
        ExprKind::Binary(BinOp::Or, l, r) => {
            let (mut a, mut b) = (HashSet::new(), HashSet::new());
            bound_by(l, is_const, &mut a);
            bound_by(r, is_const, &mut b);
            env.extend(a.intersection(&b).cloned());
        }
        _ => {}
    }
}

/// The type of arithmetic on a `t` and a `u`: an error if either is one, else `Float` if either
/// is a decimal, else `Int`.
fn numeric_join(t: Ty, u: Ty) -> Ty {
    match (t, u) {
        (Ty::Error, _) | (_, Ty::Error) => Ty::Error,
        (Ty::Float, _) | (_, Ty::Float) => Ty::Float,
        _ => Ty::Int,
    }
}

/// The type of `l op r` (not `∧`/`∨`) or of a chain, typing each operand with `operand` and each
/// operation with [`binary_type`]: a chain step by step, the part so far as the left operand.
pub(crate) fn operation_type<'p>(
    c: &mut Checker<'p>,
    code: crate::diagnostic::Code,
    e: &Expr,
    operand: &mut dyn FnMut(&mut Checker<'p>, &Expr) -> Ty,
) -> Ty {
    match &e.kind {
        ExprKind::Binary(op, l, r) => {
            let lt = operand(c, l);
            let rt = operand(c, r);
            binary_type(c, code, *op, (l.span, lt), (r.span, rt), false)
        }
        ExprKind::Chain { first, rest } => {
            let mut t = operand(c, first);
            let mut left = first.span;
            for (op, r) in rest {
                let rt = operand(c, r);
                t = binary_type(c, code, *op, (left, t), (r.span, rt), false);
                left = first.span.to(r.span);
            }
            t
        }
        _ => Ty::Error,
    }
}

/// The type of `l op r` (not `∧`/`∨`), reporting mismatches with `code`. `floats` allows
/// decimal arithmetic (values); conditions and plans count in `Int`.
pub(crate) fn binary_type(
    c: &mut Checker<'_>,
    code: crate::diagnostic::Code,
    op: BinOp,
    (l, lt): (Span, Ty),
    (r, rt): (Span, Ty),
    floats: bool,
) -> Ty {
    let err = lt == Ty::Error || rt == Ty::Error;
    if op.is_comparison() {
        let ordered = !matches!(op, BinOp::Eq | BinOp::Ne);
        if err {
            return Ty::Bool;
        }
        let like = lt == rt || (floats && lt.is_numeric() && rt.is_numeric());
        if !like {
            c.emit(
                Diagnostic::error(
                    code,
                    l.to(r),
                    format!("`{}` compares {lt} with {rt}", op.symbol()),
                )
                .with_label(format!("{lt} {} {rt}", op.symbol()))
                .with_note("comparisons are between values of one type")
                .with_help("compare like with like"),
            );
        } else if ordered && !lt.is_numeric() {
            c.emit(
                Diagnostic::error(
                    code,
                    l.to(r),
                    format!("`{}` orders numbers, but these are {lt}", op.symbol()),
                )
                .with_label(format!("{lt}"))
                .with_help("use `=` or `≠` to compare strings and booleans"),
            );
        }
        return Ty::Bool;
    }
    if err {
        return Ty::Error;
    }
    let ok = if floats {
        lt.is_numeric() && rt.is_numeric()
    } else {
        lt == Ty::Int && rt == Ty::Int
    };
    if !ok {
        let bad = if (floats && !lt.is_numeric()) || (!floats && lt != Ty::Int) {
            (l, &lt)
        } else {
            (r, &rt)
        };
        let want = if floats { "a number" } else { "Int" };
        c.mismatch(
            code,
            bad.0,
            bad.1,
            want,
            &format!(
                "`{}` is arithmetic on {}",
                op.symbol(),
                if floats { "numbers" } else { "Int only" }
            ),
        );
        return Ty::Error;
    }
    if lt == Ty::Float || rt == Ty::Float {
        Ty::Float
    } else {
        Ty::Int
    }
}

/// The codes [`numeric_defs`] reports with.
pub(crate) struct NumericCodes {
    pub(crate) unknown: crate::diagnostic::Code,
    pub(crate) cycle: crate::diagnostic::Code,
    pub(crate) not_numeric: crate::diagnostic::Code,
    /// The names offered when a name is unknown (values and parameters in scope).
    pub(crate) known: Vec<String>,
}

/// Checks a set of numeric definitions `name ≔ expr` (the `.ha` values, or a `.hb` block's
/// values): names are the definitions themselves or what `outer` knows; no cycles; arithmetic
/// over numbers. `other` handles the kinds the caller allows beyond arithmetic (features and
/// `learned` in `.hb`), returning `None` to refuse them. Returns each definition's type.
pub(crate) fn numeric_defs(
    c: &mut Checker<'_>,
    names: &[String],
    exprs: &[Expr],
    outer: &dyn Fn(&str) -> Option<Ty>,
    codes: NumericCodes,
    other: &mut dyn FnMut(&mut Checker<'_>, &Expr) -> Option<Ty>,
) -> Vec<Ty> {
    // dependencies between definitions
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut deps: Vec<Vec<(usize, Span)>> = Vec::new();
    for e in exprs {
        let mut d = Vec::new();
        vars_of(e, &mut |v: &Ident| {
            if let Some(&i) = index.get(v.name.as_str()) {
                d.push((i, v.span));
            }
        });
        deps.push(d);
    }
    // cycles: colour DFS
    let n = names.len();
    let mut state = vec![0u8; n];
    let mut in_cycle = vec![false; n];
    fn dfs(
        i: usize,
        deps: &[Vec<(usize, Span)>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
        cycles: &mut Vec<Vec<usize>>,
    ) {
        state[i] = 1;
        stack.push(i);
        for &(j, _) in &deps[i] {
            if state[j] == 1 {
                let from = stack.iter().position(|&k| k == j).unwrap_or(0);
                cycles.push(stack[from..].to_vec());
            } else if state[j] == 0 {
                dfs(j, deps, state, stack, cycles);
            }
        }
        stack.pop();
        state[i] = 2;
    }
    let mut cycles = Vec::new();
    for i in 0..n {
        if state[i] == 0 {
            dfs(i, &deps, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    for cyc in cycles {
        let first = cyc[0];
        if in_cycle[first] {
            continue;
        }
        for &k in &cyc {
            in_cycle[k] = true;
        }
        let path: Vec<&str> = cyc
            .iter()
            .chain(std::iter::once(&first))
            .map(|&k| names[k].as_str())
            .collect();
        let span = exprs[first].span;
        c.emit(
            Diagnostic::error(
                codes.cycle,
                span,
                format!("the value `{}` is defined in terms of itself", names[first]),
            )
            .with_label(path.join(" → "))
            .with_note("values are computed from numbers and parameters; a cycle has no value")
            .with_help("break the cycle: define one of these values without the others"),
        );
    }
    // types, in dependency order (memoised; cycles are Error)
    let mut tys: Vec<Option<Ty>> = vec![None; n];
    for i in 0..n {
        if in_cycle[i] {
            tys[i] = Some(Ty::Error);
        }
    }
    fn ty_of(
        c: &mut Checker<'_>,
        e: &Expr,
        index: &HashMap<&str, usize>,
        tys: &[Option<Ty>],
        outer: &dyn Fn(&str) -> Option<Ty>,
        codes: &NumericCodes,
        other: &mut dyn FnMut(&mut Checker<'_>, &Expr) -> Option<Ty>,
    ) -> Ty {
        match &e.kind {
            ExprKind::Int(_) => Ty::Int,
            ExprKind::Float(_) => Ty::Float,
            ExprKind::Error => Ty::Error,
            ExprKind::Var(v) => {
                if let Some(&i) = index.get(v.name.as_str()) {
                    return tys[i].clone().unwrap_or(Ty::Error);
                }
                match outer(&v.name) {
                    Some(t) if t.is_numeric() || t == Ty::Error => t,
                    Some(t) => {
                        c.emit(
                            Diagnostic::error(
                                codes.not_numeric,
                                v.span,
                                format!("`{}` is {t}, not a number", v.name),
                            )
                            .with_label(format!("{t}"))
                            .with_help("values are arithmetic over numbers"),
                        );
                        Ty::Error
                    }
                    None => {
                        c.emit(
                            Diagnostic::error(codes.unknown, v.span, format!("`{}` is not a value or parameter", v.name))
                                .with_label("unknown name")
                                .with_help(suggest(&v.name, "values and parameters in scope", &codes.known))
                                .with_note("This usually happens when a value is used before it is declared under another name, or a parameter is missing."),
                        );
                        Ty::Error
                    }
                }
            }
            ExprKind::Unary(UnOp::Neg, x) => ty_of(c, x, index, tys, outer, codes, other),
            // Arithmetic, one operator or a chain: every operand is typed (and its errors
            // reported), even after an error.
            ExprKind::Binary(op, l, r)
                if !op.is_comparison() && !matches!(op, BinOp::And | BinOp::Or) =>
            {
                [l.as_ref(), r.as_ref()].into_iter().fold(Ty::Int, |t, x| {
                    numeric_join(t, ty_of(c, x, index, tys, outer, codes, other))
                })
            }
            ExprKind::Chain { first, rest } => chain_operands(first, rest).fold(Ty::Int, |t, x| {
                numeric_join(t, ty_of(c, x, index, tys, outer, codes, other))
            }),
            _ => match other(c, e) {
                Some(t) => t,
                None => {
                    c.emit(
                        Diagnostic::error(codes.not_numeric, e.span, "a value must be arithmetic over numbers")
                            .with_label("not a number")
                            .with_help("use numbers, parameters, other values and `+ - * / %`")
                            .with_note("This usually happens when a condition was written where a number was meant."),
                    );
                    Ty::Error
                }
            },
        }
    }
    let mut order: Vec<usize> = Vec::new();
    let mut seen = vec![false; n];
    fn topo(i: usize, deps: &[Vec<(usize, Span)>], seen: &mut [bool], order: &mut Vec<usize>) {
        if seen[i] {
            return;
        }
        seen[i] = true;
        for &(j, _) in &deps[i] {
            topo(j, deps, seen, order);
        }
        order.push(i);
    }
    for i in 0..n {
        topo(i, &deps, &mut seen, &mut order);
    }
    for i in order {
        let t = ty_of(c, &exprs[i], &index, &tys, outer, &codes, other);
        if tys[i].is_none() {
            tys[i] = Some(t);
        }
    }
    tys.into_iter().map(|t| t.unwrap_or(Ty::Error)).collect()
}

/// Calls `f` on every variable of an expression.
pub(crate) fn vars_of(e: &Expr, f: &mut dyn FnMut(&Ident)) {
    match &e.kind {
        ExprKind::Var(v) => f(v),
        ExprKind::Unary(_, x) => vars_of(x, f),
        ExprKind::Binary(_, l, r) => {
            vars_of(l, f);
            vars_of(r, f);
        }
        ExprKind::Chain { first, rest } => chain_operands(first, rest).for_each(|x| vars_of(x, f)),
        ExprKind::Call { args, .. } => args.iter().for_each(|a| vars_of(a, f)),
        ExprKind::Believes { atom, .. } => atom.args.iter().for_each(|a| vars_of(a, f)),
        _ => {}
    }
}

/// The unused-belief and unused-attention warnings.
pub(crate) fn report_unused(c: &mut Checker<'_>) {
    for ai in 0..c.program.agents.len() {
        let beliefs = c.program.agents[ai].beliefs.clone();
        for (bi, b) in beliefs.iter().enumerate() {
            if !c.used_beliefs.contains(&(ai, bi)) {
                c.emit(
                    Diagnostic::warning(codes::UNUSED_BELIEF, b.span, format!("the belief `{}` is never used", b.name))
                        .with_label("declared here, mentioned nowhere")
                        .with_note("no condition of the agent tests it, no plan believes or forgets it, no `tell` gives it and no .hb feature reads it")
                        .with_help("delete it, or use it (a plan that `believe`s it, or a condition that tests it)"),
                );
            }
        }
        let atts = c.program.agents[ai].attentions.clone();
        for (i, a) in atts.iter().enumerate() {
            if !c.used_attentions.contains(&(ai, i)) {
                c.emit(
                    Diagnostic::warning(
                        codes::UNUSED_ATTENTION,
                        a.span,
                        format!("the attention `{}` is never used", a.name),
                    )
                    .with_label("never initial, attended or tested")
                    .with_help(format!(
                        "delete it, or shift to it with `when φ attend {}`",
                        a.name
                    )),
                );
            }
        }
    }
}
