//! The plan checks (`.hk`, `language.md` §2): signatures, scopes, channels against values,
//! calls, labels and commands, beliefs, `tell` and `match`.

use super::agent::operation_type;
use super::codes;
use super::program::*;
use super::{Checker, suggest, value_type};
use crate::diagnostic::Diagnostic;
use crate::source::{Dialect, Span};
use crate::syntax::ast::{
    Atom, BinOp, Expr, ExprKind, HandlerKind, Ident, PlanDecl, Proc, ProcKind, UnOp,
};
use std::collections::{HashMap, HashSet};

/// What a name means inside a plan.
#[derive(Clone, Debug)]
enum Local {
    /// A value of this type (a value parameter or a received variable), and its slot.
    Value(Ty, usize),
    /// A channel carrying this type, and its slot.
    Chan(Ty, usize),
}

/// The scope of one plan body: the names visible and what they are.
type Env = HashMap<String, Local>;

struct PlanCx {
    fi: usize,
    pi: usize,
    agent: Option<usize>,
    labels: Vec<String>,
    /// Every received variable of the plan and where (for hints).
    receives: Vec<(String, Span)>,
    used: HashSet<usize>,
    tainted: bool,
}

impl Checker<'_> {
    /// Pass 2 for plans: signatures, agents, duplicate names and labels.
    pub(crate) fn declare_plans(&mut self) {
        for fi in 0..self.plan_asts.len() {
            let file = self.plan_asts[fi];
            let tainted = self.tainted.contains(&self.program.plan_files[fi].file);
            let mut seen: HashMap<String, Span> = HashMap::new();
            let mut plans = Vec::new();
            for p in &file.plans {
                let duplicate = if p.name.name.is_empty() {
                    false
                } else if let Some(&first) = seen.get(p.name.name.as_str()) {
                    self.emit(
                        Diagnostic::error(codes::DUPLICATE_PLAN, p.name.span, format!("the plan `{}` is declared twice in this file", p.name.name))
                            .with_label("second declaration")
                            .with_secondary(first, "first declared here")
                            .with_help("rename one of them; calls and bindings name plans by name")
                            .with_note("This usually happens when a plan was copied to make a variant and kept its name."),
                    );
                    true
                } else {
                    seen.insert(p.name.name.to_string(), p.name.span);
                    false
                };
                plans.push(self.declare_plan(p, tainted, duplicate));
            }
            self.program.plan_files[fi].plans = plans;
        }
    }

    fn declare_plan(&mut self, p: &PlanDecl, tainted: bool, duplicate: bool) -> PlanInfo {
        let mut names: HashMap<String, Span> = HashMap::new();
        let mut slot = |c: &mut Checker<'_>,
                        q: &crate::syntax::ast::Param,
                        what: &str,
                        chan_only: bool|
         -> Field {
            if q.name.name.is_empty() {
                // a placeholder after a syntax error
            } else if let Some(&first) = names.get(q.name.name.as_str()) {
                c.emit(
                    Diagnostic::error(
                        codes::DUPLICATE_PARAM,
                        q.name.span,
                        format!(
                            "`{}` is declared twice in the plan `{}`",
                            q.name.name, p.name.name
                        ),
                    )
                    .with_label(format!("another {what} `{}`", q.name.name))
                    .with_secondary(first, "first declared here")
                    .with_help("give each parameter and channel its own name"),
                );
            } else {
                names.insert(q.name.name.to_string(), q.name.span);
            }
            let ty = match value_type(&q.ty, true) {
                Ok(t) if chan_only && !matches!(t, Ty::Chan(_) | Ty::Error) => {
                    c.emit(
                        Diagnostic::error(
                            codes::BAD_PARAM_TYPE,
                            q.ty.span,
                            format!(
                                "the channel `{}` is declared with the value type {t}",
                                q.name.name
                            ),
                        )
                        .with_label("not a channel type")
                        .with_help(format!(
                            "write `{} : chan {t}`; a plan's values are its parameters",
                            q.name.name
                        )),
                    );
                    Ty::Error
                }
                Ok(t) => t,
                Err((msg, help)) => {
                    c.emit(
                        Diagnostic::error(
                            codes::BAD_PARAM_TYPE,
                            q.ty.span,
                            format!(
                                "the {what} `{}` has a type a plan cannot use: {msg}",
                                q.name.name
                            ),
                        )
                        .with_label("not Int, String, Bool or chan T")
                        .with_help(help),
                    );
                    Ty::Error
                }
            };
            Field {
                name: q.name.name.to_string(),
                ty,
                span: q.name.span,
            }
        };
        let params: Vec<Field> = p
            .params
            .iter()
            .map(|q| slot(self, q, "parameter", false))
            .collect();
        let channels: Vec<Field> = p
            .channels
            .iter()
            .map(|q| slot(self, q, "channel", true))
            .collect();
        let agent = match &p.agent {
            Some(a) if a.name.is_empty() => None,
            Some(a) => match self.program.agent(&a.name) {
                Some((id, _)) => Some(id),
                None => {
                    if !self.dialect_tainted(Dialect::Agent) {
                        let names: Vec<String> =
                            self.program.agents.iter().map(|a| a.name.clone()).collect();
                        self.emit(
                            Diagnostic::error(codes::UNKNOWN_PLAN_AGENT, a.span, format!("the plan `{}` belongs to `{}`, which is not a declared agent", p.name.name, a.name))
                                .with_label("unknown agent")
                                .with_help(suggest(&a.name, "agents", &names))
                                .with_note("This usually happens when the agent's .ha file was not given to the check, or the agent was renamed."),
                        );
                    }
                    None
                }
            },
            None => {
                if !tainted {
                    self.emit(
                        Diagnostic::error(codes::UNKNOWN_PLAN_AGENT, p.name.span, format!("the plan `{}` does not say which agent it belongs to", p.name.name))
                            .with_label("no `: Agent`")
                            .with_help(format!("write `plan {}(…) : Agent ≔ …` with the agent whose beliefs it changes", p.name.name)),
                    );
                }
                None
            }
        };
        // labels
        let mut labels: Vec<(String, Span)> = Vec::new();
        let mut procs: Vec<&Proc> = p.body.iter().collect();
        procs.extend(p.handlers.iter().map(|h| &h.body));
        for b in procs {
            collect_labels(b, &mut labels);
        }
        let mut unique: Vec<String> = Vec::new();
        let mut first: HashMap<String, Span> = HashMap::new();
        for (l, span) in &labels {
            if l.is_empty() {
                continue;
            }
            if let Some(&f) = first.get(l) {
                self.emit(
                    Diagnostic::error(codes::DUPLICATE_LABEL, *span, format!("the label `{l}` is used twice in the plan `{}`", p.name.name))
                        .with_label("second use")
                        .with_secondary(f, "first here")
                        .with_help("give each labelled process its own name, so that `stop`, `resume`, `abort` and `restart` say which one they mean"),
                );
            } else {
                first.insert(l.clone(), *span);
                unique.push(l.clone());
            }
        }
        PlanInfo {
            name: p.name.name.to_string(),
            span: p.name.span,
            params,
            channels,
            agent,
            labels: unique,
            duplicate,
        }
    }

    /// Pass 3 for plans: bodies and handlers.
    pub(crate) fn check_plans(&mut self) {
        for fi in 0..self.plan_asts.len() {
            let file = self.plan_asts[fi];
            let tainted = self.tainted.contains(&self.program.plan_files[fi].file);
            for (pi, p) in file.plans.iter().enumerate() {
                let info = self.program.plan_files[fi].plans[pi].clone();
                let mut receives = Vec::new();
                for b in p.body.iter().chain(p.handlers.iter().map(|h| &h.body)) {
                    collect_receives(b, &mut receives);
                }
                let mut cx = PlanCx {
                    fi,
                    pi,
                    agent: info.agent.map(|a| a.0),
                    labels: info.labels.clone(),
                    receives,
                    used: HashSet::new(),
                    tainted,
                };
                let mut env = Env::new();
                for (n, f) in info.params.iter().chain(&info.channels).enumerate() {
                    let local = match &f.ty {
                        Ty::Chan(t) => Local::Chan((**t).clone(), n),
                        t => Local::Value(t.clone(), n),
                    };
                    env.insert(f.name.clone(), local);
                }
                match &p.body {
                    Some(b) => self.proc(b, &env, &mut cx),
                    None if !tainted => self.emit(
                        Diagnostic::error(codes::NO_BODY, p.name.span, format!("the plan `{}` has no body", p.name.name))
                            .with_label("nothing to run")
                            .with_help(format!("write `plan {}(…) : Agent ≔ P`, or `body ≔ P` inside the braces; `SKIP` does nothing and ends", p.name.name))
                            .with_note("This usually happens when a braced plan has only handlers, or `body` is misspelled."),
                    ),
                    None => {}
                }
                let mut seen: HashMap<HandlerKind, Span> = HashMap::new();
                for h in &p.handlers {
                    if let Some(&first) = seen.get(&h.kind) {
                        let kw = match h.kind {
                            HandlerKind::Stop => "stop",
                            HandlerKind::Resume => "resume",
                            HandlerKind::Abort => "abort",
                        };
                        self.emit(
                            Diagnostic::error(
                                codes::DUPLICATE_HANDLER,
                                h.span,
                                format!("the plan `{}` has two `on {kw}` handlers", p.name.name),
                            )
                            .with_label("second handler")
                            .with_secondary(first, "first here")
                            .with_help(format!("join them into one `on {kw} ≔ P ; Q`")),
                        );
                    } else {
                        seen.insert(h.kind, h.span);
                    }
                    self.proc(&h.body, &env, &mut cx);
                }
                if !self.any_tainted() && !info.duplicate {
                    for (slot, f) in info.params.iter().chain(&info.channels).enumerate() {
                        if !cx.used.contains(&slot) && f.ty != Ty::Error {
                            let what = if slot < info.params.len() {
                                "parameter"
                            } else {
                                "channel"
                            };
                            self.emit(
                                Diagnostic::warning(
                                    codes::UNUSED_PARAM,
                                    f.span,
                                    format!(
                                        "the {what} `{}` of `{}` is never used",
                                        f.name, p.name.name
                                    ),
                                )
                                .with_label("never used")
                                .with_help("delete it, or use it in the plan's body"),
                            );
                        }
                    }
                }
            }
        }
    }

    fn proc(&mut self, p: &Proc, env: &Env, cx: &mut PlanCx) {
        match &p.kind {
            ProcKind::Parallel(ps) | ProcKind::Choice(ps) => {
                ps.iter().for_each(|q| self.proc(q, env, cx))
            }
            ProcKind::Interrupt(a, b) => {
                self.proc(a, env, cx);
                self.proc(b, env, cx);
            }
            ProcKind::Labelled(_, q) => self.proc(q, env, cx),
            ProcKind::Seq(ps) => {
                let mut env = env.clone();
                for q in ps {
                    self.proc(q, &env, cx);
                    if let ProcKind::Recv { var, chan } = &q.kind {
                        let ty = match env.get(chan.name.as_str()) {
                            Some(Local::Chan(t, _)) => t.clone(),
                            _ => Ty::Error,
                        };
                        let slot = usize::MAX - cx.receives.len();
                        env.insert(var.name.to_string(), Local::Value(ty, slot));
                    }
                }
            }
            ProcKind::Send { value, chan } => {
                let elem = self.channel(chan, env, cx, "send on");
                let t = self.hexpr(value, env, cx);
                if let Some(elem) = elem
                    && t != elem
                    && t != Ty::Error
                    && elem != Ty::Error
                {
                    self.emit(
                        Diagnostic::error(
                            codes::PLAN_TYPE_MISMATCH,
                            value.span,
                            format!("`{}` carries {elem}, but this value is {t}", chan.name),
                        )
                        .with_label(format!("{t}"))
                        .with_secondary(chan.span, format!("chan {elem}"))
                        .with_help(format!(
                            "send {}, or declare the channel as `chan {t}`",
                            elem.with_article()
                        )),
                    );
                }
            }
            ProcKind::Recv { chan, .. } => {
                self.channel(chan, env, cx, "receive from");
            }
            ProcKind::Believe(atom) | ProcKind::Forget(atom) => {
                let verb = if matches!(p.kind, ProcKind::Believe(_)) {
                    "believe"
                } else {
                    "forget"
                };
                if let Some(ai) = cx.agent {
                    self.plan_atom(ai, atom, env, cx, verb, true);
                } else {
                    atom.args.iter().for_each(|a| {
                        self.hexpr(a, env, cx);
                    });
                }
            }
            ProcKind::Tell { agent, atom } if agent.name.is_empty() => {
                atom.args.iter().for_each(|a| {
                    self.hexpr(a, env, cx);
                });
            }
            ProcKind::Tell { agent, atom } => {
                let target = self.program.agent(&agent.name).map(|(id, _)| id.0);
                match target {
                    Some(j) if Some(j) != cx.agent => {
                        self.plan_atom(j, atom, env, cx, "tell", false)
                    }
                    Some(_) => {
                        self.emit(
                            Diagnostic::error(codes::BAD_TELL_TARGET, agent.span, format!("the plan tells its own agent `{}`", agent.name))
                                .with_label("the teller itself")
                                .with_help(format!("use `believe {}(…)` to change this agent's own beliefs", atom.pred.name))
                                .with_note("`tell j a` informs another agent and makes the teller believe `B(j) a`"),
                        );
                        atom.args.iter().for_each(|a| {
                            self.hexpr(a, env, cx);
                        });
                    }
                    None => {
                        if !self.dialect_tainted(Dialect::Agent) {
                            let names: Vec<String> = self
                                .program
                                .agents
                                .iter()
                                .enumerate()
                                .filter(|(i, _)| Some(*i) != cx.agent)
                                .map(|(_, a)| a.name.clone())
                                .collect();
                            self.emit(
                                Diagnostic::error(codes::BAD_TELL_TARGET, agent.span, format!("`{}` is not a declared agent", agent.name))
                                    .with_label("unknown agent")
                                    .with_help(suggest(&agent.name, "other agents", &names))
                                    .with_note("This usually happens when the agent's .ha file was not given to the check."),
                            );
                        }
                        atom.args.iter().for_each(|a| {
                            self.hexpr(a, env, cx);
                        });
                    }
                }
            }
            ProcKind::Command { command, target } => {
                if !target.name.is_empty()
                    && target.name != "self"
                    && !cx.labels.iter().any(|l| *l == target.name)
                    && !cx.tainted
                {
                    let plan = self.program.plan_files[cx.fi].plans[cx.pi].name.clone();
                    let help = if cx.labels.is_empty() {
                        format!(
                            "label a process (`{} : P`), or write `{} self` for this plan",
                            target.name,
                            command.keyword()
                        )
                    } else {
                        format!(
                            "{}; or `{} self` for this plan",
                            suggest(&target.name, "labels of this plan", &cx.labels),
                            command.keyword()
                        )
                    };
                    self.emit(
                        Diagnostic::error(codes::UNKNOWN_LABEL, target.span, format!("`{} {}`: the plan `{plan}` has no label `{}`", command.keyword(), target.name, target.name))
                            .with_label("no such label")
                            .with_help(help)
                            .with_note("commands address a labelled process of the same plan (body or handlers), or `self`"),
                    );
                }
            }
            ProcKind::Skip | ProcKind::Stop | ProcKind::Error => {}
            ProcKind::Call { plan, args } => self.call(p.span, plan, args, env, cx),
            ProcKind::Match {
                scrutinee,
                arms,
                other,
            } => {
                let t = self.hexpr(scrutinee, env, cx);
                let mut seen: Vec<(Lit, Span)> = Vec::new();
                for arm in arms {
                    match literal(&arm.pattern) {
                        Some(l) => {
                            let lt = l.ty();
                            if lt != t && t != Ty::Error {
                                self.emit(
                                    Diagnostic::error(codes::PLAN_TYPE_MISMATCH, arm.pattern.span, format!("the match is on {t}, but this arm is {lt}"))
                                        .with_label(format!("{lt}"))
                                        .with_secondary(scrutinee.span, format!("{t}"))
                                        .with_help(format!("match {t} literals")),
                                );
                            } else if let Some((_, first)) = seen.iter().find(|(x, _)| *x == l) {
                                self.emit(
                                    Diagnostic::warning(codes::DUPLICATE_ARM, arm.pattern.span, "this arm repeats an earlier one and never runs")
                                        .with_label("unreachable")
                                        .with_secondary(*first, "the same literal is matched here first")
                                        .with_help("delete the arm, or change its literal"),
                                );
                            } else {
                                seen.push((l, arm.pattern.span));
                            }
                        }
                        None if matches!(arm.pattern.kind, ExprKind::Error) => {}
                        None => self.emit(
                            Diagnostic::error(codes::PLAN_TYPE_MISMATCH, arm.pattern.span, "a match arm must be a literal")
                                .with_label("not a literal")
                                .with_help("write `when 3 ↦ …`, `when \"raised\" ↦ …` or `when true ↦ …`; use `other ↦ …` for the rest"),
                        ),
                    }
                    self.proc(&arm.body, env, cx);
                }
                if let Some(o) = other {
                    self.proc(o, env, cx);
                } else if let Some(v) =
                    literal(scrutinee).or_else(|| fold_int(scrutinee).map(Lit::Int))
                    && !seen.iter().any(|(x, _)| *x == v)
                    && v.ty() == t
                {
                    self.emit(
                        Diagnostic::error(
                            codes::NO_MATCHING_ARM,
                            scrutinee.span,
                            format!(
                                "this match is on the constant {}, which no arm matches",
                                v.show()
                            ),
                        )
                        .with_label("matches no arm")
                        .with_note("a match without `other` whose value matches no arm deadlocks")
                        .with_help(format!("add `when {} ↦ …` or `other ↦ …`", v.show())),
                    );
                }
            }
        }
    }

    /// Resolves a channel name: its element type, or `None` after an error.
    fn channel(&mut self, chan: &Ident, env: &Env, cx: &mut PlanCx, verb: &str) -> Option<Ty> {
        if chan.name.is_empty() {
            return None;
        }
        match env.get(chan.name.as_str()) {
            Some(Local::Chan(t, slot)) => {
                cx.used.insert(*slot);
                Some(t.clone())
            }
            Some(Local::Value(t, slot)) => {
                cx.used.insert(*slot);
                if *t != Ty::Error {
                    self.emit(
                        Diagnostic::error(codes::NOT_A_CHANNEL, chan.span, format!("cannot {verb} `{}`: it is a value ({t}), not a channel", chan.name))
                            .with_label(format!("{} value", t.with_article()))
                            .with_note("channels and values are different things: a process communicates on channels and computes with values")
                            .with_help(format!("declare a channel (`c : chan {t}` inside the plan, or a `chan {t}` parameter) and use it here")),
                    );
                }
                None
            }
            None => {
                self.not_in_scope(chan, cx);
                None
            }
        }
    }

    fn not_in_scope(&mut self, v: &Ident, cx: &PlanCx) {
        if v.name.is_empty() {
            return;
        }
        if cx.tainted {
            return;
        }
        let mut d = Diagnostic::error(
            codes::NOT_IN_SCOPE,
            v.span,
            format!("`{}` is not in scope here", v.name),
        )
        .with_label("not in scope");
        if let Some((_, at)) = cx.receives.iter().find(|(n, _)| *n == v.name) {
            d = d
                .with_secondary(*at, format!("`{}` is received here", v.name))
                .with_note("a receive `x ← c` binds `x` only in the rest of its own sequence (`x ← c ; …`), not in a parallel branch, another arm or after the enclosing group")
                .with_help(format!("move the use into the sequence after the receive, or pass `{}` to where it is needed", v.name));
        } else {
            d = d
                .with_help(format!("declare `{}` as a parameter of the plan, a channel inside it (`{} : chan Int`), or receive it first (`{} ← c ; …`)", v.name, v.name, v.name))
                .with_note("This usually happens when a name is misspelled or a parameter was not declared.");
        }
        self.emit(d);
    }

    fn plan_atom(
        &mut self,
        ai: usize,
        atom: &Atom,
        env: &Env,
        cx: &mut PlanCx,
        verb: &str,
        own: bool,
    ) {
        if atom.pred.name.is_empty() {
            atom.args.iter().for_each(|a| {
                self.hexpr(a, env, cx);
            });
            return;
        }
        let Some(bi) = self.program.agents[ai].belief(&atom.pred.name) else {
            self.mark_near_belief(ai, &atom.pred.name);
            let agent = &self.program.agents[ai];
            if !self.tainted.contains(&agent.file) {
                let names: Vec<String> = agent.beliefs.iter().map(|b| b.name.clone()).collect();
                let aname = agent.name.clone();
                let msg = if own {
                    format!(
                        "the plan cannot {verb} `{}`: its agent `{aname}` declares no such belief",
                        atom.pred.name
                    )
                } else {
                    format!(
                        "`{aname}` declares no belief `{}` to be told",
                        atom.pred.name
                    )
                };
                self.emit(
                    Diagnostic::error(codes::UNDECLARED_BELIEF, atom.pred.span, msg)
                        .with_label("undeclared belief")
                        .with_note("a plan may only believe facts its agent declares")
                        .with_help(format!(
                            "{}; or declare `belief {}(…)` in `{aname}`",
                            suggest(&atom.pred.name, "beliefs", &names),
                            atom.pred.name
                        )),
                );
            }
            atom.args.iter().for_each(|a| {
                self.hexpr(a, env, cx);
            });
            return;
        };
        self.used_beliefs.insert((ai, bi));
        let b = self.program.agents[ai].beliefs[bi].clone();
        let tys: Vec<Ty> = atom.args.iter().map(|a| self.hexpr(a, env, cx)).collect();
        if self.tainted.contains(&self.program.agents[ai].file) {
            return; // the declaration may be incomplete
        }
        if b.fields.len() != atom.args.len() {
            self.emit(
                Diagnostic::error(
                    codes::ATOM_ARITY,
                    atom.span,
                    format!(
                        "the belief `{}` has {} field{}, but {} given",
                        b.name,
                        b.fields.len(),
                        if b.fields.len() == 1 { "" } else { "s" },
                        atom.args.len()
                    ),
                )
                .with_label(format!(
                    "{} argument{}",
                    atom.args.len(),
                    if atom.args.len() == 1 { "" } else { "s" }
                ))
                .with_secondary(
                    b.span,
                    format!(
                        "declared as `{}({})`",
                        b.name,
                        b.fields
                            .iter()
                            .map(|f| format!("{}: {}", f.name, f.ty))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .with_help("give one value per field"),
            );
            return;
        }
        for ((arg, t), f) in atom.args.iter().zip(tys).zip(&b.fields) {
            if t != f.ty && t != Ty::Error && f.ty != Ty::Error {
                self.emit(
                    Diagnostic::error(
                        codes::PLAN_TYPE_MISMATCH,
                        arg.span,
                        format!(
                            "the field `{}` of `{}` is {}, but this value is {t}",
                            f.name, b.name, f.ty
                        ),
                    )
                    .with_label(format!("{t}"))
                    .with_secondary(f.span, format!("`{}: {}`", f.name, f.ty))
                    .with_help(format!("give {} here", f.ty.with_article())),
                );
            }
        }
    }

    fn call(&mut self, span: Span, plan: &Ident, args: &[Expr], env: &Env, cx: &mut PlanCx) {
        if plan.name.is_empty() {
            args.iter().for_each(|a| self.loose_arg(a, env, cx));
            return;
        }
        let pf = &self.program.plan_files[cx.fi];
        let Some(ci) = pf
            .plans
            .iter()
            .position(|q| q.name == plan.name && !q.duplicate)
        else {
            self.mark_near_plan(cx.fi, &plan.name);
            let pf = &self.program.plan_files[cx.fi];
            if !cx.tainted {
                let names: Vec<String> = pf.plans.iter().map(|q| q.name.clone()).collect();
                self.emit(
                    Diagnostic::error(
                        codes::UNKNOWN_CALLEE,
                        plan.span,
                        format!("this file declares no plan `{}`", plan.name),
                    )
                    .with_label("no such plan")
                    .with_help(suggest(&plan.name, "plans of this file", &names))
                    .with_note("a call names a plan of the same .hk file"),
                );
            }
            args.iter().for_each(|a| self.loose_arg(a, env, cx));
            return;
        };
        let callee = pf.plans[ci].clone();
        let r = PlanRef {
            file: pf.file,
            index: ci,
        };
        if ci != cx.pi {
            self.used_plans.insert(r);
        }
        if let (Some(a), Some(b)) = (cx.agent, callee.agent)
            && a != b.0
        {
            let (an, bn) = (
                self.program.agents[a].name.clone(),
                self.program.agents[b.0].name.clone(),
            );
            self.emit(
                Diagnostic::error(
                    codes::CALLEE_OF_OTHER_AGENT,
                    plan.span,
                    format!(
                        "`{}` belongs to `{bn}`, but this plan belongs to `{an}`",
                        plan.name
                    ),
                )
                .with_label(format!("a plan of `{bn}`"))
                .with_secondary(callee.span, format!("declared `: {bn}` here"))
                .with_note(
                    "a called plan runs as part of the caller and changes the same agent's beliefs",
                )
                .with_help(format!(
                    "declare `{}` as `: {an}`, or use `tell {bn} …` to inform the other agent",
                    plan.name
                )),
            );
        }
        if cx.tainted {
            args.iter().for_each(|a| self.loose_arg(a, env, cx));
            return;
        }
        if args.len() != callee.params.len() {
            self.emit(
                Diagnostic::error(
                    codes::CALL_ARITY,
                    span,
                    format!(
                        "`{}` takes {} argument{}, but {} given",
                        plan.name,
                        callee.params.len(),
                        if callee.params.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .with_label(format!("{} given", args.len()))
                .with_secondary(
                    callee.span,
                    format!(
                        "`{}({})`",
                        plan.name,
                        callee
                            .params
                            .iter()
                            .map(|f| format!("{}: {}", f.name, f.ty))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .with_help("pass one argument per parameter"),
            );
            args.iter().for_each(|a| self.loose_arg(a, env, cx));
            return;
        }
        for (a, f) in args.iter().zip(&callee.params) {
            let as_chan = match &a.kind {
                ExprKind::Var(v) => match env.get(v.name.as_str()) {
                    Some(Local::Chan(t, slot)) => {
                        cx.used.insert(*slot);
                        Some(t.clone())
                    }
                    _ => None,
                },
                _ => None,
            };
            match (&f.ty, as_chan) {
                (Ty::Chan(want), Some(got)) => {
                    if **want != got && got != Ty::Error && **want != Ty::Error {
                        self.emit(
                            Diagnostic::error(
                                codes::PLAN_TYPE_MISMATCH,
                                a.span,
                                format!(
                                    "`{}` expects chan {want}, but this channel is chan {got}",
                                    f.name
                                ),
                            )
                            .with_label(format!("chan {got}"))
                            .with_secondary(f.span, format!("`{}: chan {want}`", f.name))
                            .with_help("pass a channel of the same element type"),
                        );
                    }
                }
                (Ty::Chan(want), None) => {
                    let t = self.hexpr(a, env, cx);
                    if t != Ty::Error {
                        self.emit(
                            Diagnostic::error(codes::CALL_CHANNEL_ARGUMENT, a.span, format!("the parameter `{}` is a channel (chan {want}), but this argument is a value", f.name))
                                .with_label(format!("{} value", t.with_article()))
                                .with_secondary(f.span, "channel parameter")
                                .with_help(format!("pass the name of a `chan {want}` channel: a parameter of this plan or one declared inside it")),
                        );
                    }
                }
                (Ty::Error, Some(_)) => {}
                (_, Some(_)) => {
                    self.emit(
                        Diagnostic::error(codes::CALL_CHANNEL_ARGUMENT, a.span, format!("the parameter `{}` is a value ({}), but this argument is a channel", f.name, f.ty))
                            .with_label("a channel")
                            .with_secondary(f.span, "value parameter")
                            .with_help(format!("pass {} value; to pass something received, receive it first (`x ← c ; {}(…, x)`)", f.ty.with_article(), plan.name)),
                    );
                }
                (want, None) => {
                    let t = self.hexpr(a, env, cx);
                    if t != *want && t != Ty::Error && *want != Ty::Error {
                        self.emit(
                            Diagnostic::error(
                                codes::PLAN_TYPE_MISMATCH,
                                a.span,
                                format!("`{}` is {want}, but this argument is {t}", f.name),
                            )
                            .with_label(format!("{t}"))
                            .with_secondary(f.span, format!("`{}: {want}`", f.name))
                            .with_help(format!("pass {}", want.with_article())),
                        );
                    }
                }
            }
        }
    }

    /// Checks an argument of a call that could not be matched to a parameter: a channel name is
    /// accepted (and counted as used), anything else is checked as a value.
    fn loose_arg(&mut self, a: &Expr, env: &Env, cx: &mut PlanCx) {
        if let ExprKind::Var(v) = &a.kind
            && let Some(Local::Chan(_, slot)) = env.get(v.name.as_str())
        {
            cx.used.insert(*slot);
            return;
        }
        self.hexpr(a, env, cx);
    }

    /// The type of a value expression in a plan.
    fn hexpr(&mut self, e: &Expr, env: &Env, cx: &mut PlanCx) -> Ty {
        match &e.kind {
            ExprKind::Int(_) => Ty::Int,
            ExprKind::Str(_) => Ty::String,
            ExprKind::Bool(_) => Ty::Bool,
            ExprKind::Error => Ty::Error,
            ExprKind::Var(v) => match env.get(v.name.as_str()) {
                Some(Local::Value(t, slot)) => {
                    cx.used.insert(*slot);
                    t.clone()
                }
                Some(Local::Chan(t, slot)) => {
                    cx.used.insert(*slot);
                    self.emit(
                        Diagnostic::error(codes::NOT_A_CHANNEL, v.span, format!("`{}` is a channel (chan {t}), not a value", v.name))
                            .with_label("a channel")
                            .with_note("channels and values are different things: a process communicates on channels and computes with values")
                            .with_help(format!("receive a value from it first: `x ← {} ; …`", v.name)),
                    );
                    Ty::Error
                }
                None => {
                    self.not_in_scope(v, cx);
                    Ty::Error
                }
            },
            ExprKind::Unary(UnOp::Neg, x) => {
                let t = self.hexpr(x, env, cx);
                if t != Ty::Int && t != Ty::Error {
                    self.mismatch(
                        codes::PLAN_TYPE_MISMATCH,
                        x.span,
                        &t,
                        "Int",
                        "`-` is arithmetic on Int only",
                    );
                }
                Ty::Int
            }
            ExprKind::Unary(UnOp::Not, x) => {
                let t = self.hexpr(x, env, cx);
                self.expect(
                    codes::PLAN_TYPE_MISMATCH,
                    x,
                    &t,
                    &Ty::Bool,
                    "`¬` applies to Bool",
                );
                Ty::Bool
            }
            ExprKind::Binary(
                op @ (crate::syntax::ast::BinOp::And | crate::syntax::ast::BinOp::Or),
                l,
                r,
            ) => {
                for x in [l, r] {
                    let t = self.hexpr(x, env, cx);
                    self.expect(
                        codes::PLAN_TYPE_MISMATCH,
                        x,
                        &t,
                        &Ty::Bool,
                        &format!("`{}` joins Bool values", op.symbol()),
                    );
                }
                Ty::Bool
            }
            ExprKind::Binary(..) | ExprKind::Chain { .. } => {
                operation_type(self, codes::PLAN_TYPE_MISMATCH, e, &mut |c, x| {
                    c.hexpr(x, env, cx)
                })
            }
            ExprKind::Float(_)
            | ExprKind::Wildcard
            | ExprKind::Believes { .. }
            | ExprKind::Attending(_)
            | ExprKind::Desires(_)
            | ExprKind::Intends(_)
            | ExprKind::Call { .. }
            | ExprKind::Field { .. } => {
                let (what, help) = match &e.kind {
                    ExprKind::Float(_) => (
                        "a decimal number",
                        "plans count in Int; decimals are for .hb values",
                    ),
                    ExprKind::Wildcard => (
                        "`_`",
                        "give the value itself; `_` matches only in an agent's belief patterns",
                    ),
                    ExprKind::Believes { .. } => (
                        "a belief test",
                        "a plan changes beliefs (`believe`, `forget`); the agent's conditions test them",
                    ),
                    ExprKind::Attending(_) => (
                        "an attention test",
                        "attention is tested in the agent's conditions",
                    ),
                    ExprKind::Desires(_) | ExprKind::Intends(_) => (
                        "a test of what the agent desires or intends",
                        "state it in an `assert` of the agent",
                    ),
                    ExprKind::Call { .. } => (
                        "a function call",
                        "to run another plan write it as a process (`P(args)`), not inside an expression; functions are for .hb values",
                    ),
                    _ => ("a feature", "features (`belief.field`) are for .hb values"),
                };
                self.emit(
                    Diagnostic::error(
                        codes::NOT_A_PLAN_EXPRESSION,
                        e.span,
                        format!("{what} cannot be used in a plan's expression"),
                    )
                    .with_label("not a plan value")
                    .with_help(help),
                );
                Ty::Error
            }
        }
    }
}

/// A literal (for match arms and constant scrutinees).
#[derive(Clone, Debug, PartialEq)]
enum Lit {
    Int(i64),
    Str(String),
    Bool(bool),
}

impl Lit {
    fn ty(&self) -> Ty {
        match self {
            Lit::Int(_) => Ty::Int,
            Lit::Str(_) => Ty::String,
            Lit::Bool(_) => Ty::Bool,
        }
    }
    fn show(&self) -> String {
        match self {
            Lit::Int(n) => n.to_string(),
            Lit::Str(s) => format!("{s:?}"),
            Lit::Bool(b) => b.to_string(),
        }
    }
}

fn literal(e: &Expr) -> Option<Lit> {
    match &e.kind {
        ExprKind::Int(n) => Some(Lit::Int(*n)),
        ExprKind::Str(s) => Some(Lit::Str(s.clone())),
        ExprKind::Bool(b) => Some(Lit::Bool(*b)),
        ExprKind::Unary(UnOp::Neg, x) => match x.kind {
            ExprKind::Int(n) => n.checked_neg().map(Lit::Int),
            _ => None,
        },
        _ => None,
    }
}

fn fold_int(e: &Expr) -> Option<i64> {
    use crate::syntax::ast::BinOp::*;
    let step = |op: &BinOp, a: i64, b: i64| match op {
        Add => a.checked_add(b),
        Sub => a.checked_sub(b),
        Mul => a.checked_mul(b),
        _ => None,
    };
    match &e.kind {
        ExprKind::Int(n) => Some(*n),
        ExprKind::Unary(UnOp::Neg, x) => fold_int(x)?.checked_neg(),
        ExprKind::Binary(op, l, r) => step(op, fold_int(l)?, fold_int(r)?),
        ExprKind::Chain { first, rest } => rest
            .iter()
            .try_fold(fold_int(first)?, |a, (op, r)| step(op, a, fold_int(r)?)),
        _ => None,
    }
}

fn collect_labels(p: &Proc, out: &mut Vec<(String, Span)>) {
    match &p.kind {
        ProcKind::Labelled(l, q) => {
            out.push((l.name.to_string(), l.span));
            collect_labels(q, out);
        }
        ProcKind::Parallel(ps) | ProcKind::Choice(ps) | ProcKind::Seq(ps) => {
            ps.iter().for_each(|q| collect_labels(q, out))
        }
        ProcKind::Interrupt(a, b) => {
            collect_labels(a, out);
            collect_labels(b, out);
        }
        ProcKind::Match { arms, other, .. } => {
            arms.iter().for_each(|a| collect_labels(&a.body, out));
            if let Some(o) = other {
                collect_labels(o, out);
            }
        }
        _ => {}
    }
}

fn collect_receives(p: &Proc, out: &mut Vec<(String, Span)>) {
    match &p.kind {
        ProcKind::Recv { var, .. } => out.push((var.name.to_string(), var.span)),
        ProcKind::Labelled(_, q) => collect_receives(q, out),
        ProcKind::Parallel(ps) | ProcKind::Choice(ps) | ProcKind::Seq(ps) => {
            ps.iter().for_each(|q| collect_receives(q, out))
        }
        ProcKind::Interrupt(a, b) => {
            collect_receives(a, out);
            collect_receives(b, out);
        }
        ProcKind::Match { arms, other, .. } => {
            arms.iter().for_each(|a| collect_receives(&a.body, out));
            if let Some(o) = other {
                collect_receives(o, out);
            }
        }
        _ => {}
    }
}

/// The unused-plan warning.
pub(crate) fn report_unused(c: &mut Checker<'_>) {
    for fi in 0..c.program.plan_files.len() {
        let file = c.program.plan_files[fi].file;
        if c.shadowed_files.contains(&file) {
            continue;
        }
        let plans = c.program.plan_files[fi].plans.clone();
        for (i, p) in plans.iter().enumerate() {
            if p.duplicate || c.used_plans.contains(&PlanRef { file, index: i }) {
                continue;
            }
            c.emit(
                Diagnostic::warning(codes::UNUSED_PLAN, p.span, format!("the plan `{}` is never used", p.name))
                    .with_label("never bound by an agent, never called by another plan")
                    .with_help(format!("bind it in its agent (`plan P ↦ {}.{}`), call it from another plan, or delete it", c.program.plan_files[fi].stem, p.name)),
            );
        }
    }
}
