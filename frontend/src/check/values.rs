//! The values checks (`.hb`, `language.md` §6): the agent, options, features, `learned`, helper
//! values and the policy.

use super::agent::{NumericCodes, numeric_defs};
use super::codes;
use super::program::*;
use super::{Checker, nearest, suggest};
use crate::diagnostic::Diagnostic;
use crate::source::{Dialect, Span};
use crate::syntax::ast::{Expr, ExprKind, PolicyDecl, UnOp};
use std::collections::HashMap;

/// The policies and their arguments (the names `policy` takes, each with its argument).
pub const POLICIES: &[(&str, &[&str])] = &[
    ("greedy", &[]),
    ("epsilon_greedy", &["epsilon"]),
    ("softmax", &["temperature"]),
    ("ucb", &["c"]),
];

impl Checker<'_> {
    /// Pass 3 for values files.
    pub(crate) fn check_values(&mut self) {
        let files = self.values_asts.clone();
        let mut blocks_for: HashMap<usize, Span> = HashMap::new();
        for (file, vf) in files {
            for (index, b) in vf.blocks.iter().enumerate() {
                let agent = match self.program.agent(&b.agent.name) {
                    None if b.agent.name.is_empty() => None,
                    Some((id, _)) => Some(id),
                    None => {
                        if !self.dialect_tainted(Dialect::Agent) {
                            let names: Vec<String> =
                                self.program.agents.iter().map(|a| a.name.clone()).collect();
                            self.emit(
                                Diagnostic::error(codes::VALUES_UNKNOWN_AGENT, b.agent.span, format!("`values {}`: there is no agent `{}`", b.agent.name, b.agent.name))
                                    .with_label("unknown agent")
                                    .with_help(suggest(&b.agent.name, "agents", &names))
                                    .with_note("This usually happens when the agent's .ha file was not given to the check."),
                            );
                        }
                        None
                    }
                };
                if let Some(id) = agent {
                    if let Some(&first) = blocks_for.get(&id.0) {
                        self.emit(
                            Diagnostic::error(codes::DUPLICATE_VALUES_BLOCK, b.agent.span, format!("a second `values {}` block", b.agent.name))
                                .with_label("second block")
                                .with_secondary(first, "first block here")
                                .with_help("put all of the agent's options in one block: its options are ordered together"),
                        );
                        continue;
                    }
                    blocks_for.insert(id.0, b.agent.span);
                }
                let ai = agent.map(|a| a.0);
                let silent = ai.is_none_or(|a| self.tainted.contains(&self.program.agents[a].file));
                // helper values
                let mut names: Vec<String> = Vec::new();
                let mut exprs: Vec<Expr> = Vec::new();
                let mut seen: HashMap<String, Span> = HashMap::new();
                for v in &b.values {
                    if let Some(&first) = seen.get(v.name.name.as_str()) {
                        self.dup_option(v.name.span, first, "value", &v.name.name);
                        continue;
                    }
                    seen.insert(v.name.name.to_string(), v.name.span);
                    names.push(v.name.name.to_string());
                    exprs.push(v.expr.clone());
                }
                let outer_tys: HashMap<String, Ty> = {
                    let mut m = HashMap::new();
                    if let Some(a) = ai {
                        for v in &self.program.agents[a].values {
                            m.insert(v.name.clone(), v.ty.clone());
                        }
                        for p in &self.program.agents[a].params {
                            m.insert(p.name.clone(), p.ty.clone());
                        }
                    }
                    m
                };
                let lookup = |n: &str| -> Option<Ty> {
                    match outer_tys.get(n) {
                        Some(t) => Some(t.clone()),
                        None if silent => Some(Ty::Error),
                        None => None,
                    }
                };
                let mut other = |c: &mut Checker<'_>, e: &Expr| c.hb_special(ai, silent, e);
                numeric_defs(
                    self,
                    &names,
                    &exprs,
                    &lookup,
                    NumericCodes {
                        unknown: codes::VALUES_UNKNOWN_NAME,
                        cycle: codes::VALUES_CYCLE,
                        not_numeric: codes::VALUES_NOT_NUMERIC,
                        known: names
                            .iter()
                            .chain(outer_tys.keys())
                            .cloned()
                            .collect::<std::collections::BTreeSet<_>>()
                            .into_iter()
                            .collect(),
                    },
                    &mut other,
                );
                // options: checked as definitions that may use the helper values (no cycles
                // among options: they do not name each other)
                let mut options = Vec::new();
                let mut seen_opt: HashMap<String, Span> = HashMap::new();
                let mut opt_exprs = Vec::new();
                for o in &b.options {
                    if o.plan.name.is_empty() {
                        continue;
                    }
                    if let Some(&first) = seen_opt.get(o.plan.name.as_str()) {
                        self.dup_option(o.plan.span, first, "option", &o.plan.name);
                        continue;
                    }
                    seen_opt.insert(o.plan.name.to_string(), o.plan.span);
                    opt_exprs.push(o.expr.clone());
                    let Some(a) = ai else { continue };
                    match self.program.agents[a].binding(&o.plan.name) {
                        Some(bi) => options.push((bi, o.expr.clone())),
                        None if silent => {}
                        None => {
                            let bn: Vec<String> = self.program.agents[a]
                                .bindings
                                .iter()
                                .map(|b| b.name.clone())
                                .collect();
                            let an = self.program.agents[a].name.clone();
                            self.emit(
                                Diagnostic::error(codes::UNKNOWN_OPTION, o.plan.span, format!("`{}` is not one of the plans of `{an}`", o.plan.name))
                                    .with_label("not a plan binding")
                                    .with_help(suggest(&o.plan.name, &format!("plans `{an}` binds"), &bn))
                                    .with_note("the options are the plans the agent binds with `plan P ↦ …`; values order the ones its theory licenses"),
                            );
                        }
                    }
                }
                // Options see the helper values as names.
                let helper: HashMap<String, ()> = names.iter().map(|n| (n.clone(), ())).collect();
                let lookup2 = |n: &str| -> Option<Ty> {
                    if helper.contains_key(n) {
                        return Some(Ty::Float);
                    }
                    lookup(n)
                };
                let opt_names: Vec<String> = (0..opt_exprs.len())
                    .map(|i| format!("\u{0}option{i}"))
                    .collect();
                numeric_defs(
                    self,
                    &opt_names,
                    &opt_exprs,
                    &lookup2,
                    NumericCodes {
                        unknown: codes::VALUES_UNKNOWN_NAME,
                        cycle: codes::VALUES_CYCLE,
                        not_numeric: codes::VALUES_NOT_NUMERIC,
                        known: names
                            .iter()
                            .chain(outer_tys.keys())
                            .cloned()
                            .collect::<std::collections::BTreeSet<_>>()
                            .into_iter()
                            .collect(),
                    },
                    &mut other,
                );
                // policy
                let policy = self.policy(&b.policies);
                self.program.values.push(ValuesInfo {
                    file,
                    index,
                    agent,
                    options,
                    values: names.into_iter().zip(exprs).collect(),
                    policy,
                });
            }
        }
    }

    fn dup_option(&mut self, span: Span, first: Span, what: &str, name: &str) {
        self.emit(
            Diagnostic::error(
                codes::DUPLICATE_OPTION,
                span,
                format!("the {what} `{name}` is defined twice in this block"),
            )
            .with_label("second definition")
            .with_secondary(first, "first here")
            .with_help(format!("keep one definition of `{name}`")),
        );
    }

    /// Features and `learned(P)`: their type, or `None` if `e` is neither.
    fn hb_special(&mut self, ai: Option<usize>, silent: bool, e: &Expr) -> Option<Ty> {
        match &e.kind {
            ExprKind::Field { base, field } => {
                let Some(a) = ai else { return Some(Ty::Error) };
                if base.name.is_empty() || field.name.is_empty() {
                    return Some(Ty::Error);
                }
                let agent = &self.program.agents[a];
                let an = agent.name.clone();
                let Some(bi) = agent.belief(&base.name) else {
                    self.mark_near_belief(a, &base.name);
                    let agent = &self.program.agents[a];
                    if !silent {
                        let names: Vec<String> =
                            agent.beliefs.iter().map(|b| b.name.clone()).collect();
                        self.emit(
                            Diagnostic::error(codes::BAD_FEATURE, base.span, format!("`{an}` declares no belief `{}`", base.name))
                                .with_label("unknown belief")
                                .with_help(suggest(&base.name, "beliefs", &names))
                                .with_note("a feature `belief.field` reads an Int field of one of the agent's beliefs"),
                        );
                    }
                    return Some(Ty::Error);
                };
                self.used_beliefs.insert((a, bi));
                let b = self.program.agents[a].beliefs[bi].clone();
                match b.fields.iter().find(|f| f.name == field.name) {
                    Some(f) if f.ty == Ty::Int || f.ty == Ty::Error => Some(Ty::Int),
                    Some(f) => {
                        self.emit(
                            Diagnostic::error(
                                codes::BAD_FEATURE,
                                field.span,
                                format!("the field `{}.{}` is {}, not Int", b.name, f.name, f.ty),
                            )
                            .with_label(format!("{}", f.ty))
                            .with_secondary(f.span, "declared here")
                            .with_help("features are numbers: use an Int field"),
                        );
                        Some(Ty::Error)
                    }
                    None => {
                        let names: Vec<String> = b.fields.iter().map(|f| f.name.clone()).collect();
                        self.emit(
                            Diagnostic::error(
                                codes::BAD_FEATURE,
                                field.span,
                                format!("the belief `{}` has no field `{}`", b.name, field.name),
                            )
                            .with_label("unknown field")
                            .with_secondary(b.span, "declared here")
                            .with_help(suggest(
                                &field.name,
                                "fields",
                                &names,
                            )),
                        );
                        Some(Ty::Error)
                    }
                }
            }
            ExprKind::Call { func, args } if func.name == "learned" => {
                let Some(a) = ai else { return Some(Ty::Float) };
                let plan = match args.as_slice() {
                    [
                        Expr {
                            kind: ExprKind::Var(p),
                            ..
                        },
                    ] => p,
                    [
                        Expr {
                            kind: ExprKind::Error,
                            ..
                        },
                    ] => return Some(Ty::Float),
                    _ => {
                        self.emit(
                            Diagnostic::error(
                                codes::BAD_LEARNED,
                                e.span,
                                "`learned` takes one plan name",
                            )
                            .with_label("not `learned(P)`")
                            .with_help("write `learned(P)` with one of the agent's plans"),
                        );
                        return Some(Ty::Float);
                    }
                };
                if self.program.agents[a].binding(&plan.name).is_none() && !silent {
                    let bn: Vec<String> = self.program.agents[a]
                        .bindings
                        .iter()
                        .map(|b| b.name.clone())
                        .collect();
                    self.emit(
                        Diagnostic::error(
                            codes::BAD_LEARNED,
                            plan.span,
                            format!(
                                "`learned({})`: `{}` is not a plan of `{}`",
                                plan.name, plan.name, self.program.agents[a].name
                            ),
                        )
                        .with_label("not a plan binding")
                        .with_help(suggest(&plan.name, "plans", &bn))
                        .with_note("`learned(P)` is the value learned from P's rewards"),
                    );
                }
                Some(Ty::Float)
            }
            ExprKind::Call { func, .. } => {
                let mut d = Diagnostic::error(
                    codes::UNKNOWN_FUNCTION,
                    func.span,
                    format!("there is no function `{}`", func.name),
                )
                .with_label("unknown function")
                .with_note("the one function is `learned(P)`, the value learned from P's rewards");
                d = match nearest(&func.name, ["learned"].into_iter()) {
                    Some(n) => d.with_help(format!("did you mean `{n}`?")),
                    None => d.with_help(
                        "write the value as arithmetic over numbers, features and `learned(P)`",
                    ),
                };
                self.emit(d);
                Some(Ty::Error)
            }
            _ => None,
        }
    }

    fn policy(&mut self, policies: &[PolicyDecl]) -> Policy {
        for extra in policies.iter().skip(1) {
            self.emit(
                Diagnostic::error(
                    codes::SEVERAL_POLICIES,
                    extra.name.span,
                    "a values block has at most one policy",
                )
                .with_label("another policy")
                .with_secondary(policies[0].name.span, "first policy here")
                .with_help("keep one `policy` line"),
            );
        }
        let Some(p) = policies.first() else {
            return Policy::Greedy;
        };
        if p.name.name.is_empty() {
            return Policy::Greedy; // a placeholder after a syntax error
        }
        let Some((_, params)) = POLICIES.iter().find(|(n, _)| *n == p.name.name) else {
            let names: Vec<&str> = POLICIES.iter().map(|(n, _)| *n).collect();
            self.emit(
                Diagnostic::error(codes::UNKNOWN_POLICY, p.name.span, format!("there is no policy `{}`", p.name.name))
                    .with_label("unknown policy")
                    .with_help(suggest(&p.name.name, "policies", &names))
                    .with_note("`greedy`, `epsilon_greedy(epsilon = x)`, `softmax(temperature = t)`, `ucb(c = x)`"),
            );
            return Policy::Greedy;
        };
        let mut given: HashMap<&str, f64> = HashMap::new();
        let mut ok = true;
        for (k, v) in &p.args {
            if k.name.is_empty() {
                ok = false;
                continue;
            }
            if !params.contains(&k.name.as_str()) {
                ok = false;
                let help = if params.is_empty() {
                    format!("`{}` takes no arguments", p.name.name)
                } else {
                    suggest(&k.name, &format!("arguments of `{}`", p.name.name), params)
                };
                self.emit(
                    Diagnostic::error(
                        codes::POLICY_ARGUMENT,
                        k.span,
                        format!("`{}` has no argument `{}`", p.name.name, k.name),
                    )
                    .with_label("unknown argument")
                    .with_help(help),
                );
                continue;
            }
            if given.contains_key(k.name.as_str()) {
                ok = false;
                self.emit(
                    Diagnostic::error(
                        codes::POLICY_ARGUMENT,
                        k.span,
                        format!("the argument `{}` is given twice", k.name),
                    )
                    .with_label("repeated")
                    .with_help("give each argument once"),
                );
                continue;
            }
            let name = params.iter().find(|n| **n == k.name).copied().unwrap_or("");
            match number(v) {
                Some(x) => {
                    let (good, range) = match name {
                        "epsilon" => ((0.0..=1.0).contains(&x), "between 0 and 1"),
                        "temperature" => (x > 0.0, "greater than 0"),
                        _ => (x >= 0.0, "0 or more"),
                    };
                    if !good {
                        ok = false;
                        self.emit(
                            Diagnostic::error(
                                codes::POLICY_ARGUMENT_RANGE,
                                v.span,
                                format!("`{name}` must be {range}, but is {x}"),
                            )
                            .with_label("out of range")
                            .with_help(format!("give `{name}` a value {range}")),
                        );
                    }
                    given.insert(name, x);
                }
                None => {
                    ok = false;
                    if !matches!(v.kind, ExprKind::Error) {
                        self.emit(
                            Diagnostic::error(
                                codes::POLICY_ARGUMENT_RANGE,
                                v.span,
                                format!("`{name}` must be a number"),
                            )
                            .with_label("not a number literal")
                            .with_help("write a number such as `0.1`"),
                        );
                    }
                    given.insert(name, 0.0);
                }
            }
        }
        for want in params.iter() {
            let placeholder = p.args.iter().any(|(k, _)| k.name.is_empty());
            if !placeholder
                && !given.contains_key(want)
                && !p.args.iter().any(|(k, _)| k.name == *want)
            {
                ok = false;
                self.emit(
                    Diagnostic::error(
                        codes::POLICY_ARGUMENT,
                        p.span,
                        format!("`{}` needs the argument `{want}`", p.name.name),
                    )
                    .with_label(format!("no `{want} = …`"))
                    .with_help(format!("write `policy {}({want} = …)`", p.name.name)),
                );
            }
        }
        if !ok {
            return Policy::Greedy;
        }
        let g = |k: &str| given.get(k).copied().unwrap_or(0.0);
        match p.name.name.as_str() {
            "epsilon_greedy" => Policy::EpsilonGreedy {
                epsilon: g("epsilon"),
            },
            "softmax" => Policy::Softmax {
                temperature: g("temperature"),
            },
            "ucb" => Policy::Ucb { c: g("c") },
            _ => Policy::Greedy,
        }
    }
}

fn number(e: &Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Int(n) => Some(*n as f64),
        ExprKind::Float(x) => Some(*x),
        ExprKind::Unary(UnOp::Neg, x) => number(x).map(|v| -v),
        _ => None,
    }
}
