//! The semantics of `hilbert_kernel::semantics`, rule for rule, over hash-consed terms.
//!
//! Control never reads beliefs (a plan only writes them; a tell reads them for its feasibility,
//! which is an effect, not a branch), so a step is computed from the term alone: its event, the
//! next term, and the belief operations in the order they ran. The explorer replays those on a
//! belief set. Fuel and nesting are counted exactly as the reference counts them; a subterm that
//! a settle would leave unchanged is skipped with its precomputed fuel cost.

use super::term::{After, FxMap, Overlay, T, Terms, Tid, V};
use hilbert_certificates::ir::*;
use hilbert_kernel::semantics::{Fault, MACRO_STEP_FUEL, MAX_NESTING};

/// An atom with interned values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AtomV {
    pub told: Option<u32>,
    pub belief: u32,
    pub args: Box<[V]>,
}

/// A belief operation of a step, in the order it ran.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    Believe(AtomV),
    Forget(AtomV),
    Tell {
        plan: u32,
        index: u32,
        told: AtomV,
        own: Option<AtomV>,
    },
}

/// A step's event with interned values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum EventV {
    Tau {
        inst: u32,
    },
    Sync {
        sender: u32,
        receiver: u32,
        chan: V,
        value: V,
    },
}

/// One step of a term: the event, the belief operations, whether an integer overflowed, and
/// the next term.
#[derive(Clone, Debug)]
pub(crate) struct LStep {
    pub event: EventV,
    pub ops: Vec<Op>,
    pub overflow: bool,
    pub next: Tid,
}

/// A child of a `‖` fired and run alone: see [`Code::fire_child`].
pub(crate) struct ChildRun {
    pub next: Tid,
    pub ops: Vec<Op>,
    pub overflow: bool,
    pub fuel: u32,
    pub ok: bool,
}

/// The network, prepared.
pub(crate) struct Code<'n> {
    pub net: &'n Network,
    /// The string table: id → string.
    pub strings: Vec<String>,
    /// string → id.
    pub string_ids: FxMap<String, u32>,
    /// (parent instance, call node) → child instance.
    pub children: FxMap<(u32, u32), u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EvalError {
    Overflow,
    DivisionByZero,
    Malformed,
}

/// What a ready thread offers: a τ-step, a send (channel, value) or a receive (channel).
#[derive(Clone, Debug)]
pub(crate) enum OfferKind {
    Tau,
    Send(V, V),
    Recv(V),
}

/// An offer of a term: where it is (the path of child indices from the term), whose it is and
/// what it is.
#[derive(Clone, Debug)]
pub(crate) struct Offer {
    pub path: Vec<u32>,
    pub inst: u32,
    pub kind: OfferKind,
}

/// What a step does at an offer.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Action {
    Tau,
    Pop,
    Receive(V),
}

struct Ctx {
    ops: Vec<Op>,
    overflow: bool,
    /// Queued commands: (number within the step, from 1; issuer; command; target).
    commands: Vec<(u32, u32, Command, Target)>,
    issued: u32,
    tail_calls: Vec<(u32, u32, Box<[V]>)>,
    fuel: u32,
    depth: u32,
    /// Whether the step ran out of its fuel or nesting (it diverged).
    diverged: bool,
}

impl Ctx {
    fn new() -> Ctx {
        Ctx {
            ops: Vec::new(),
            overflow: false,
            commands: Vec::new(),
            issued: 1,
            tail_calls: Vec::new(),
            fuel: MACRO_STEP_FUEL,
            depth: 0,
            diverged: false,
        }
    }
}

fn collect_literals(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Literal(Literal::Str(s)) => out.push(s.clone()),
        Expr::Literal(_) | Expr::Slot(_) => {}
        Expr::Neg(a) | Expr::Not(a) => collect_literals(a, out),
        Expr::Arith(_, a, b) | Expr::Compare(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            collect_literals(a, out);
            collect_literals(b, out);
        }
        Expr::Chain(a, rest) => {
            collect_literals(a, out);
            rest.iter().for_each(|(_, b)| collect_literals(b, out));
        }
    }
}

impl<'n> Code<'n> {
    pub fn new(net: &'n Network) -> Code<'n> {
        let mut lits = Vec::new();
        for l in &net.root_args {
            if let Literal::Str(s) = l {
                lits.push(s.clone());
            }
        }
        for n in &net.nodes {
            match n {
                Node::Send { value, .. } => collect_literals(value, &mut lits),
                Node::Believe(a) | Node::Forget(a) => {
                    a.args.iter().for_each(|e| collect_literals(e, &mut lits))
                }
                Node::Tell { atom, .. } => atom
                    .args
                    .iter()
                    .for_each(|e| collect_literals(e, &mut lits)),
                Node::Call { args, .. } => {
                    for a in args {
                        if let Arg::Value(e) = a {
                            collect_literals(e, &mut lits);
                        }
                    }
                }
                Node::Match {
                    scrutinee, arms, ..
                } => {
                    collect_literals(scrutinee, &mut lits);
                    for (l, _) in arms {
                        if let Literal::Str(s) = l {
                            lits.push(s.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        let mut code = Code {
            net,
            strings: Vec::new(),
            string_ids: FxMap::default(),
            children: FxMap::default(),
        };
        for s in lits {
            code.string_id(&s);
        }
        for (i, inst) in net.instances.iter().enumerate() {
            if let (Some(p), Some(c)) = (inst.parent, inst.call) {
                // The first instance wins, as `Network::child` finds it.
                code.children.entry((p, c.0)).or_insert(i as u32);
            }
        }
        code
    }

    /// The id of a string, adding it to the table if it is new.
    pub fn string_id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.string_ids.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.to_string());
        self.string_ids.insert(s.to_string(), i);
        i
    }

    pub fn v_of_value(&mut self, v: &Value) -> V {
        match v {
            Value::Int(n) => V::Int(*n),
            Value::Bool(b) => V::Bool(*b),
            Value::Str(s) => V::Str(self.string_id(s)),
            Value::Chan {
                instance,
                plan,
                index,
            } => V::Chan {
                instance: *instance,
                plan: plan.0,
                index: *index,
            },
        }
    }

    pub fn value_of_v(&self, v: V) -> Value {
        match v {
            V::Int(n) => Value::Int(n),
            V::Bool(b) => Value::Bool(b),
            V::Str(s) => Value::Str(self.strings[s as usize].clone()),
            V::Chan {
                instance,
                plan,
                index,
            } => Value::Chan {
                instance,
                plan: PlanId(plan),
                index,
            },
        }
    }

    fn lit(&self, l: &Literal) -> V {
        match l {
            Literal::Int(n) => V::Int(*n),
            Literal::Bool(b) => V::Bool(*b),
            // Every literal of the network was put in the table when it was prepared.
            Literal::Str(s) => V::Str(self.string_ids.get(s.as_str()).copied().unwrap_or(u32::MAX)),
        }
    }

    fn plan(&self, id: u32) -> Option<&'n PlanCode> {
        self.net.plans.get(id as usize)
    }

    fn node(&self, id: u32) -> Option<&'n Node> {
        self.net.nodes.get(id as usize)
    }

    // ------------------------------------------------------------ expressions

    fn eval(&self, e: &Expr, env: &[V]) -> Result<V, EvalError> {
        Ok(match e {
            Expr::Literal(l) => self.lit(l),
            Expr::Slot(s) => *env.get(s.0 as usize).ok_or(EvalError::Malformed)?,
            Expr::Neg(a) => V::Int(
                int(self.eval(a, env)?)?
                    .checked_neg()
                    .ok_or(EvalError::Overflow)?,
            ),
            Expr::Not(a) => V::Bool(!boolean(self.eval(a, env)?)?),
            Expr::Arith(op, a, b) => V::Int(arith(
                *op,
                int(self.eval(a, env)?)?,
                int(self.eval(b, env)?)?,
            )?),
            Expr::Compare(op, a, b) => {
                V::Bool(compare(*op, self.eval(a, env)?, self.eval(b, env)?)?)
            }
            Expr::And(a, b) => {
                V::Bool(boolean(self.eval(a, env)?)? && boolean(self.eval(b, env)?)?)
            }
            Expr::Or(a, b) => V::Bool(boolean(self.eval(a, env)?)? || boolean(self.eval(b, env)?)?),
            // Left to right, as the kernel evaluates it (`eval.rs`).
            Expr::Chain(a, rest) => V::Int(
                rest.iter()
                    .try_fold(int(self.eval(a, env)?)?, |acc, (op, b)| {
                        arith(*op, acc, int(self.eval(b, env)?)?)
                    })?,
            ),
        })
    }

    fn eval_args(&self, args: &[Expr], env: &[V]) -> Option<Box<[V]>> {
        args.iter().map(|a| self.eval(a, env).ok()).collect()
    }

    // ------------------------------------------------------------ environments

    fn fresh_env(&self, inst: u32, plan: u32, params: Vec<V>) -> Option<Box<[V]>> {
        let code = self.plan(plan)?;
        let mut env = params;
        env.resize(code.slots as usize, V::Int(0));
        for (index, (slot, _)) in code.channels.iter().enumerate() {
            *env.get_mut(slot.0 as usize)? = V::Chan {
                instance: inst,
                plan,
                index: index as u32,
            };
        }
        Some(env.into_boxed_slice())
    }

    /// As the kernel's: an instance's process started afresh, for `restart self`.
    fn instance_start(&self, ar: &mut Overlay, inst: u32, plan: u32, params: &[V]) -> Option<Tid> {
        let code = self.plan(plan)?;
        let args = params.get(..code.params.len())?.to_vec();
        let env = self.fresh_env(inst, plan, args)?;
        Some(self.new_thread(ar, inst, plan, code.body.0, &env))
    }

    fn handler_params(&self, plan: u32, env: &[V]) -> Box<[V]> {
        let n = self
            .plan(plan)
            .map_or(0, |c| c.params.len() + c.channels.len());
        env[..n.min(env.len())].into()
    }

    // ------------------------------------------------------------ steps

    /// Every step of `term`, in the reference's order.
    ///
    /// Given up (`None`) once the overlay holds more than `cap` words: the
    /// successors of one state of a wide term (20,000 parallel steps are 20,000 successors of
    /// 20,000 children each) would otherwise pass a memory bound before it is read (issue 32).
    pub fn steps(&self, ar: &mut Overlay, term: Tid, cap: usize) -> Option<Vec<LStep>> {
        let mut offers = Vec::new();
        self.collect_offers(ar, term, &mut Vec::new(), &mut offers);
        let mut steps = Vec::new();
        for o in &offers {
            if let OfferKind::Tau = o.kind {
                let event = EventV::Tau { inst: o.inst };
                steps.push(self.fire(ar, term, event, &[(&o.path, Action::Tau)]));
                if ar.local.words > cap {
                    return None;
                }
            }
        }
        for s in &offers {
            let OfferKind::Send(chan, value) = s.kind else {
                continue;
            };
            for r in &offers {
                let OfferKind::Recv(rchan) = r.kind else {
                    continue;
                };
                if rchan != chan || !self.diverge_at_par(ar, term, &s.path, &r.path) {
                    continue;
                }
                let event = EventV::Sync {
                    sender: s.inst,
                    receiver: r.inst,
                    chan,
                    value,
                };
                let actions = [(&s.path, Action::Pop), (&r.path, Action::Receive(value))];
                steps.push(self.fire(ar, term, event, &actions));
                if ar.local.words > cap {
                    return None;
                }
            }
        }
        Some(steps)
    }

    pub(crate) fn fire(
        &self,
        ar: &mut Overlay,
        term: Tid,
        event: EventV,
        actions: &[(&Vec<u32>, Action)],
    ) -> LStep {
        let acts: Vec<(Vec<u32>, Action)> =
            actions.iter().map(|(p, a)| ((*p).clone(), *a)).collect();
        let t = self.fire_at(ar, term, &acts, 0, false);
        let mut ctx = Ctx::new();
        let t = self.run(ar, t, &mut ctx, true);
        let t = self.land_commands(ar, t, &mut ctx);
        if ctx.diverged {
            // As the kernel's: the step is taken, its takers fault, nothing else stays.
            return LStep {
                event,
                ops: Vec::new(),
                overflow: false,
                next: self.fire_at(ar, term, &acts, 0, true),
            };
        }
        LStep {
            event,
            ops: ctx.ops,
            overflow: ctx.overflow,
            next: t,
        }
    }

    /// As the kernel's: each command lands, its issuer stops waiting, a settle runs; when the
    /// fuel is spent, every thread still waiting faults in place.
    fn land_commands(&self, ar: &mut Overlay, mut term: Tid, ctx: &mut Ctx) -> Tid {
        while !ctx.commands.is_empty() {
            let (number, issuer, command, target) = ctx.commands.remove(0);
            if ctx.fuel == 0 {
                ctx.diverged = true;
                ctx.commands.clear();
                return term;
            }
            ctx.fuel -= 1;
            term = self.apply_command(ar, term, issuer, command, target);
            term = self.map_waiting(ar, term, &mut |ar, t, thread| match thread {
                T::Thread {
                    inst,
                    plan,
                    wait,
                    stack,
                    env,
                    ..
                } if wait == number => self.thread(ar, inst, plan, false, stack.into_vec(), env),
                _ => t,
            });
            term = self.run(ar, term, ctx, true);
        }
        term
    }

    /// Applies `f` (to the id and the node) at every waiting thread of `term`, where the
    /// kernel's `map_waiting` looks.
    fn map_waiting(
        &self,
        ar: &mut Overlay,
        term: Tid,
        f: &mut dyn FnMut(&mut Overlay, Tid, T) -> Tid,
    ) -> Tid {
        if !ar.meta(term).waiting {
            return term;
        }
        let t = ar.get(term).clone();
        if let T::Thread { .. } = t {
            return f(ar, term, t);
        }
        let mut changed = false;
        let mapped = map_children(t, &mut |c| {
            let m = self.map_waiting(ar, c, f);
            changed |= m != c;
            m
        });
        if changed {
            ar.mk(self.net, mapped)
        } else {
            term
        }
    }

    fn is_target(&self, ar: &Overlay, t: Tid, issuer: u32, target: Target) -> bool {
        match (target, ar.get(t)) {
            (Target::Label(l), T::Label { inst, label, .. }) => *inst == issuer && *label == l.0,
            (Target::SelfInstance, T::Inst { inst, .. }) => *inst == issuer,
            _ => false,
        }
    }

    /// As the kernel's `contains`: only the started part of the term (not an unresolved
    /// choice's alternatives, not an unmoved interrupt's right side).
    fn contains_target(&self, ar: &Overlay, t: Tid, issuer: u32, target: Target) -> bool {
        self.is_target(ar, t, issuer, target)
            || match ar.get(t) {
                T::Choice(_) => false,
                T::Interrupt(p, _) => self.contains_target(ar, *p, issuer, target),
                other => children(other)
                    .into_iter()
                    .any(|c| self.contains_target(ar, c, issuer, target)),
            }
    }

    fn apply_command(
        &self,
        ar: &mut Overlay,
        term: Tid,
        issuer: u32,
        command: Command,
        target: Target,
    ) -> Tid {
        if self.is_target(ar, term, issuer, target) {
            return self.commanded(ar, term, command);
        }
        let mut done = false;
        let t = ar.get(term).clone();
        if let T::Choice(_) = t {
            return term;
        }
        if let T::Interrupt(p, q) = t {
            if !self.contains_target(ar, p, issuer, target) {
                return term;
            }
            let p = self.apply_command(ar, p, issuer, command, target);
            return ar.mk(self.net, T::Interrupt(p, q));
        }
        let t = map_children(t, &mut |c| {
            if done || !self.contains_target(ar, c, issuer, target) {
                c
            } else {
                done = true;
                self.apply_command(ar, c, issuer, command, target)
            }
        });
        ar.mk(self.net, t)
    }

    fn commanded(&self, ar: &mut Overlay, target: Tid, command: Command) -> Tid {
        let (body, start) = match ar.get(target) {
            T::Label { body, start, .. } => (*body, Some(*start)),
            T::Inst {
                inst,
                plan,
                params,
                body,
            } => {
                let (inst, plan, body) = (*inst, *plan, *body);
                let params = params.clone();
                (body, self.instance_start(ar, inst, plan, &params))
            }
            _ => return target,
        };
        let then = match (command, ar.get(body)) {
            // As the kernel: nothing lands on a target being aborted or restarted; only abort
            // and restart on one being stopped or resumed.
            (
                _,
                T::Handling {
                    then: After::End | After::Restart(_),
                    ..
                },
            ) => return target,
            (Command::Stop | Command::Resume, T::Handling { .. }) => return target,
            (Command::Stop, T::Suspended(_)) => return target,
            (Command::Resume, T::Suspended(saved)) => After::Continue(*saved),
            (Command::Resume, _) => return target,
            (Command::Stop, _) => After::Suspend(body),
            (Command::Abort, _) => After::End,
            (Command::Restart, _) => match start {
                Some(s) => After::Restart(s),
                None => After::End,
            },
        };
        let handlers = self.handlers_of(ar, target, command);
        let handling = ar.mk(
            self.net,
            T::Handling {
                body: handlers,
                then,
            },
        );
        let t = match ar.get(target).clone() {
            T::Label {
                inst, label, start, ..
            } => T::Label {
                inst,
                label,
                body: handling,
                start,
            },
            T::Inst {
                inst, plan, params, ..
            } => T::Inst {
                inst,
                plan,
                params,
                body: handling,
            },
            other => other,
        };
        ar.mk(self.net, t)
    }

    fn handlers_of(&self, ar: &mut Overlay, target: Tid, command: Command) -> Tid {
        let skip_stopped = matches!(command, Command::Stop | Command::Resume);
        let mut instances = Vec::new();
        // As the kernel: the target's process, out of its own suspension, then the target.
        if let T::Label { body, .. } | T::Inst { body, .. } = ar.get(target) {
            let inside = match ar.get(*body) {
                T::Suspended(kept) => *kept,
                _ => *body,
            };
            collect_instances(ar, inside, skip_stopped, &mut instances);
        }
        if let T::Inst {
            inst, plan, params, ..
        } = ar.get(target)
        {
            instances.push((*inst, *plan, params.clone()));
        }
        let mut threads = Vec::new();
        for (inst, plan, params) in instances {
            let Some(code) = self.plan(plan) else {
                continue;
            };
            let handler = match command {
                Command::Stop => code.on_stop,
                Command::Resume => code.on_resume,
                Command::Abort | Command::Restart => code.on_abort,
            };
            if let Some(node) = handler {
                let mut env = params.into_vec();
                env.resize(code.slots as usize, V::Int(0));
                threads.push(ar.mk(
                    self.net,
                    T::Thread {
                        inst,
                        plan,
                        ready: false,
                        wait: 0,
                        stack: vec![node.0].into_boxed_slice(),
                        env: env.into_boxed_slice(),
                    },
                ));
            }
        }
        let done = ar.mk(self.net, T::Done);
        let mut term = done;
        for t in threads.into_iter().rev() {
            term = if term == done {
                t
            } else {
                ar.mk(self.net, T::Then(t, term))
            };
        }
        term
    }

    /// The offers of `term`, in the reference's order, with paths from `term`.
    pub(crate) fn offers(&self, ar: &Overlay, term: Tid) -> Vec<Offer> {
        let mut out = Vec::new();
        self.collect_offers(ar, term, &mut Vec::new(), &mut out);
        out
    }

    /// A child of a wide `‖` fired alone (`actions` with paths from the child) and run as the
    /// reference runs it inside the step, at nesting `depth` and with the whole step's fuel:
    /// the child after, the belief operations it ran, whether an integer overflowed, the fuel it
    /// used, and whether it stayed inside itself (it did not diverge, issue a command or leave
    /// a tail call for an instance outside it). `vector.rs` argues when that is the child's
    /// part of the whole step.
    pub(crate) fn fire_child(
        &self,
        ar: &mut Overlay,
        child: Tid,
        actions: &[(Vec<u32>, Action)],
        depth: u32,
    ) -> ChildRun {
        let t = self.fire_at(ar, child, actions, 0, false);
        let mut ctx = Ctx::new();
        ctx.depth = depth;
        let next = self.run(ar, t, &mut ctx, true);
        ChildRun {
            next,
            ok: !ctx.diverged && ctx.commands.is_empty() && ctx.tail_calls.is_empty(),
            fuel: MACRO_STEP_FUEL - ctx.fuel,
            ops: ctx.ops,
            overflow: ctx.overflow,
        }
    }

    // ------------------------------------------------------------ running

    fn run(&self, ar: &mut Overlay, term: Tid, ctx: &mut Ctx, effects: bool) -> Tid {
        if ctx.depth >= MAX_NESTING {
            ctx.diverged = true;
            return ar.mk(self.net, T::Faulted(Fault::Diverged));
        }
        let m = ar.meta(term);
        let e = effects as usize;
        if m.stable[e]
            && ctx.tail_calls.is_empty()
            && ctx.fuel >= m.cost[e]
            && ctx.depth + m.height < MAX_NESTING
        {
            ctx.fuel -= m.cost[e];
            return term;
        }
        ctx.depth += 1;
        let result = self.run_inner(ar, term, ctx, effects);
        ctx.depth -= 1;
        result
    }

    fn run_inner(&self, ar: &mut Overlay, term: Tid, ctx: &mut Ctx, effects: bool) -> Tid {
        let net = self.net;
        let is_done = |ar: &Overlay, t: Tid| matches!(ar.get(t), T::Done);
        match ar.get(term).clone() {
            T::Done | T::Faulted(_) | T::Suspended(_) => term,
            T::Thread {
                inst,
                plan,
                ready,
                wait,
                stack,
                env,
            } => {
                if (ready && effects) || wait != 0 {
                    return term;
                }
                self.run_thread(ar, inst, plan, stack.into_vec(), env, ctx, effects)
            }
            T::Then(first, rest) => {
                let first = self.run(ar, first, ctx, effects);
                if is_done(ar, first) {
                    self.run(ar, rest, ctx, effects)
                } else {
                    ar.mk(net, T::Then(first, rest))
                }
            }
            T::Par(cs) => {
                let cs: Box<[Tid]> = cs.iter().map(|&c| self.run(ar, c, ctx, effects)).collect();
                if cs.iter().all(|&c| is_done(ar, c)) {
                    ar.mk(net, T::Done)
                } else {
                    ar.mk(net, T::Par(cs))
                }
            }
            T::Choice(alts) => {
                let alts: Box<[Tid]> = alts.iter().map(|&a| self.run(ar, a, ctx, false)).collect();
                ar.mk(net, T::Choice(alts))
            }
            T::Interrupt(p, q) => {
                let p = self.run(ar, p, ctx, effects);
                if is_done(ar, p) {
                    return ar.mk(net, T::Done);
                }
                let q = self.run(ar, q, ctx, false);
                ar.mk(net, T::Interrupt(p, q))
            }
            T::Label {
                inst,
                label,
                body,
                start,
            } => {
                let body = self.run(ar, body, ctx, effects);
                if is_done(ar, body) {
                    ar.mk(net, T::Done)
                } else {
                    ar.mk(
                        net,
                        T::Label {
                            inst,
                            label,
                            body,
                            start,
                        },
                    )
                }
            }
            T::Inst {
                inst,
                mut plan,
                mut params,
                body,
            } => {
                let mut body = self.run(ar, body, ctx, effects);
                while let Some(i) = ctx.tail_calls.iter().position(|(t, _, _)| *t == inst) {
                    let (_, p, ps) = ctx.tail_calls.remove(i);
                    plan = p;
                    params = ps;
                    body = self.run(ar, body, ctx, effects);
                }
                if is_done(ar, body) {
                    ar.mk(net, T::Done)
                } else {
                    ar.mk(
                        net,
                        T::Inst {
                            inst,
                            plan,
                            params,
                            body,
                        },
                    )
                }
            }
            T::Handling { body, then } => {
                let body = self.run(ar, body, ctx, effects);
                if !is_done(ar, body) {
                    return ar.mk(net, T::Handling { body, then });
                }
                match then {
                    After::End => ar.mk(net, T::Done),
                    After::Suspend(saved) => ar.mk(net, T::Suspended(saved)),
                    After::Continue(saved) => self.run(ar, saved, ctx, effects),
                    After::Restart(start) => self.run(ar, start, ctx, effects),
                }
            }
        }
    }

    fn thread(
        &self,
        ar: &mut Overlay,
        inst: u32,
        plan: u32,
        ready: bool,
        stack: Vec<u32>,
        env: Box<[V]>,
    ) -> Tid {
        ar.mk(
            self.net,
            T::Thread {
                inst,
                plan,
                ready,
                wait: 0,
                stack: stack.into_boxed_slice(),
                env,
            },
        )
    }

    fn faulted(&self, ar: &mut Overlay, f: Fault) -> Tid {
        ar.mk(self.net, T::Faulted(f))
    }

    #[allow(clippy::too_many_arguments)]
    fn run_thread(
        &self,
        ar: &mut Overlay,
        inst: u32,
        mut plan: u32,
        mut stack: Vec<u32>,
        mut env: Box<[V]>,
        ctx: &mut Ctx,
        effects: bool,
    ) -> Tid {
        loop {
            let Some(&top) = stack.last() else {
                return ar.mk(self.net, T::Done);
            };
            if ctx.fuel == 0 {
                ctx.diverged = true;
                return self.faulted(ar, Fault::Diverged);
            }
            ctx.fuel -= 1;
            let Some(node) = self.node(top) else {
                return self.faulted(ar, Fault::Malformed(NodeId(top)));
            };
            match node {
                Node::Skip => {
                    stack.pop();
                }
                Node::Stop | Node::Send { .. } | Node::Recv { .. } => {
                    return self.thread(ar, inst, plan, true, stack, env);
                }
                Node::Believe(_) | Node::Forget(_) | Node::Tell { .. } | Node::Command { .. }
                    if !effects =>
                {
                    return self.thread(ar, inst, plan, true, stack, env);
                }
                Node::Believe(atom) | Node::Forget(atom) => {
                    let Some(args) = self.eval_args(&atom.args, &env) else {
                        return self.fault_at(ar, top, &atom.args, &env, ctx);
                    };
                    let a = AtomV {
                        told: None,
                        belief: atom.belief.0,
                        args,
                    };
                    ctx.ops.push(if matches!(node, Node::Believe(_)) {
                        Op::Believe(a)
                    } else {
                        Op::Forget(a)
                    });
                    stack.pop();
                }
                Node::Tell {
                    agent,
                    atom,
                    own,
                    index,
                } => {
                    let Some(args) = self.eval_args(&atom.args, &env) else {
                        return self.fault_at(ar, top, &atom.args, &env, ctx);
                    };
                    let told = AtomV {
                        told: Some(agent.0),
                        belief: atom.belief.0,
                        args: args.clone(),
                    };
                    let own = own.map(|b| AtomV {
                        told: None,
                        belief: b.0,
                        args,
                    });
                    ctx.ops.push(Op::Tell {
                        plan,
                        index: *index,
                        told,
                        own,
                    });
                    stack.pop();
                }
                Node::Command { command, target } => {
                    // As the kernel: the thread waits until its command lands.
                    let number = ctx.issued;
                    ctx.issued += 1;
                    ctx.commands.push((number, inst, *command, *target));
                    stack.pop();
                    return ar.mk(
                        self.net,
                        T::Thread {
                            inst,
                            plan,
                            ready: false,
                            wait: number,
                            stack: stack.into_boxed_slice(),
                            env,
                        },
                    );
                }
                Node::Seq(a, b) => {
                    stack.pop();
                    stack.push(b.0);
                    stack.push(a.0);
                }
                Node::Match {
                    scrutinee,
                    arms,
                    other,
                } => {
                    let value = match self.eval(scrutinee, &env) {
                        Ok(v) => v,
                        Err(e) => return self.fault(ar, top, e, ctx),
                    };
                    let arm = arms
                        .iter()
                        .find(|(lit, _)| self.lit(lit) == value)
                        .map(|(_, n)| *n)
                        .or(*other);
                    let Some(arm) = arm else {
                        return self.faulted(ar, Fault::NoArm(NodeId(top)));
                    };
                    stack.pop();
                    stack.push(arm.0);
                }
                Node::Call {
                    plan: callee,
                    args,
                    tail,
                } => {
                    if *tail && !effects {
                        // As the kernel's: the tail call is the first step; no argument is
                        // evaluated while expanding.
                        return self.thread(ar, inst, plan, true, stack, env);
                    }
                    let mut params = Vec::with_capacity(args.len());
                    for a in args {
                        let v = match a {
                            Arg::Value(e) => match self.eval(e, &env) {
                                Ok(v) => v,
                                Err(err) => return self.fault(ar, top, err, ctx),
                            },
                            Arg::Chan(slot) => match env.get(slot.0 as usize) {
                                Some(v) => *v,
                                None => return self.faulted(ar, Fault::Malformed(NodeId(top))),
                            },
                        };
                        params.push(v);
                    }
                    stack.pop();
                    let callee = callee.0;
                    if *tail {
                        let Some(new_env) = self.fresh_env(inst, callee, params) else {
                            return self.faulted(ar, Fault::Malformed(NodeId(top)));
                        };
                        let hp = self.handler_params(callee, &new_env);
                        ctx.tail_calls.push((inst, callee, hp));
                        let Some(code) = self.plan(callee) else {
                            return self.faulted(ar, Fault::Malformed(NodeId(top)));
                        };
                        plan = callee;
                        stack = vec![code.body.0];
                        env = new_env;
                        continue;
                    }
                    let Some(&child) = self.children.get(&(inst, top)) else {
                        return self.faulted(ar, Fault::Malformed(NodeId(top)));
                    };
                    let Some(child_env) = self.fresh_env(child, callee, params) else {
                        return self.faulted(ar, Fault::Malformed(NodeId(top)));
                    };
                    let Some(code) = self.plan(callee) else {
                        return self.faulted(ar, Fault::Malformed(NodeId(top)));
                    };
                    let hp = self.handler_params(callee, &child_env);
                    let inner = self.thread(ar, child, callee, false, vec![code.body.0], child_env);
                    let instance = ar.mk(
                        self.net,
                        T::Inst {
                            inst: child,
                            plan: callee,
                            params: hp,
                            body: inner,
                        },
                    );
                    return self.compound(ar, instance, inst, plan, stack, env, ctx, effects);
                }
                Node::Par(cs) => {
                    let cs: Box<[Tid]> = cs
                        .iter()
                        .map(|c| self.new_thread(ar, inst, plan, c.0, &env))
                        .collect();
                    stack.pop();
                    let t = ar.mk(self.net, T::Par(cs));
                    return self.compound(ar, t, inst, plan, stack, env, ctx, effects);
                }
                Node::Choice(alts) => {
                    let alts: Box<[Tid]> = alts
                        .iter()
                        .map(|c| self.new_thread(ar, inst, plan, c.0, &env))
                        .collect();
                    stack.pop();
                    let t = ar.mk(self.net, T::Choice(alts));
                    return self.compound(ar, t, inst, plan, stack, env, ctx, effects);
                }
                Node::Interrupt(p, q) => {
                    let p = self.new_thread(ar, inst, plan, p.0, &env);
                    let q = self.new_thread(ar, inst, plan, q.0, &env);
                    stack.pop();
                    let t = ar.mk(self.net, T::Interrupt(p, q));
                    return self.compound(ar, t, inst, plan, stack, env, ctx, effects);
                }
                Node::Label(label, body) => {
                    let start = self.new_thread(ar, inst, plan, body.0, &env);
                    let t = ar.mk(
                        self.net,
                        T::Label {
                            inst,
                            label: label.0,
                            body: start,
                            start,
                        },
                    );
                    stack.pop();
                    return self.compound(ar, t, inst, plan, stack, env, ctx, effects);
                }
            }
        }
    }

    fn new_thread(&self, ar: &mut Overlay, inst: u32, plan: u32, node: u32, env: &[V]) -> Tid {
        self.thread(ar, inst, plan, false, vec![node], env.into())
    }

    #[allow(clippy::too_many_arguments)]
    fn compound(
        &self,
        ar: &mut Overlay,
        term: Tid,
        inst: u32,
        plan: u32,
        stack: Vec<u32>,
        env: Box<[V]>,
        ctx: &mut Ctx,
        effects: bool,
    ) -> Tid {
        let term = if stack.is_empty() {
            term
        } else {
            let rest = self.thread(ar, inst, plan, false, stack, env);
            ar.mk(self.net, T::Then(term, rest))
        };
        self.run(ar, term, ctx, effects)
    }

    fn fault(&self, ar: &mut Overlay, node: u32, e: EvalError, ctx: &mut Ctx) -> Tid {
        let f = match e {
            EvalError::Overflow => {
                ctx.overflow = true;
                Fault::Overflow(NodeId(node))
            }
            EvalError::DivisionByZero => Fault::DivisionByZero(NodeId(node)),
            EvalError::Malformed => Fault::Malformed(NodeId(node)),
        };
        self.faulted(ar, f)
    }

    fn fault_at(
        &self,
        ar: &mut Overlay,
        node: u32,
        args: &[Expr],
        env: &[V],
        ctx: &mut Ctx,
    ) -> Tid {
        for a in args {
            if let Err(e) = self.eval(a, env) {
                return self.fault(ar, node, e, ctx);
            }
        }
        self.faulted(ar, Fault::Malformed(NodeId(node)))
    }

    // ------------------------------------------------------------ offers and firing

    fn collect_offers(&self, ar: &Overlay, term: Tid, path: &mut Vec<u32>, out: &mut Vec<Offer>) {
        let mut child = |i: u32, t: Tid, out: &mut Vec<Offer>, finished_is_tau: bool| {
            path.push(i);
            if finished_is_tau && matches!(ar.get(t), T::Done) {
                out.push(Offer {
                    path: path.clone(),
                    inst: u32::MAX,
                    kind: OfferKind::Tau,
                });
            } else {
                self.collect_offers(ar, t, path, out);
            }
            path.pop();
        };
        match ar.get(term) {
            T::Done | T::Faulted(_) | T::Suspended(_) => {}
            T::Thread {
                inst,
                ready,
                stack,
                env,
                ..
            } => {
                if !*ready {
                    return;
                }
                let Some(node) = stack.last().and_then(|&n| self.node(n)) else {
                    return;
                };
                let kind = match node {
                    Node::Stop => return,
                    Node::Send { chan, value } => {
                        let (Some(c), Ok(v)) = (env.get(chan.0 as usize), self.eval(value, env))
                        else {
                            return;
                        };
                        OfferKind::Send(*c, v)
                    }
                    Node::Recv { chan, .. } => {
                        let Some(c) = env.get(chan.0 as usize) else {
                            return;
                        };
                        OfferKind::Recv(*c)
                    }
                    _ => OfferKind::Tau,
                };
                out.push(Offer {
                    path: path.clone(),
                    inst: *inst,
                    kind,
                });
            }
            T::Then(a, _) => child(0, *a, out, false),
            T::Par(cs) => {
                for (i, &c) in cs.iter().enumerate() {
                    child(i as u32, c, out, false);
                }
            }
            T::Choice(cs) => {
                for (i, &c) in cs.iter().enumerate() {
                    child(i as u32, c, out, true);
                }
            }
            T::Interrupt(p, q) => {
                child(0, *p, out, false);
                child(1, *q, out, true);
            }
            T::Label { body, .. } | T::Inst { body, .. } | T::Handling { body, .. } => {
                child(0, *body, out, false)
            }
        }
    }

    pub(crate) fn diverge_at_par(&self, ar: &Overlay, term: Tid, a: &[u32], b: &[u32]) -> bool {
        let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        if common == a.len() || common == b.len() {
            return false;
        }
        let mut t = term;
        for &i in &a[..common] {
            match children(ar.get(t)).get(i as usize) {
                Some(&c) => t = c,
                None => return false,
            }
        }
        matches!(ar.get(t), T::Par(_))
    }

    fn fire_at(
        &self,
        ar: &mut Overlay,
        term: Tid,
        actions: &[(Vec<u32>, Action)],
        depth: usize,
        fault: bool,
    ) -> Tid {
        if let Some((_, action)) = actions.iter().find(|(p, _)| p.len() == depth) {
            if fault {
                return ar.mk(self.net, T::Faulted(Fault::Diverged));
            }
            return match ar.get(term).clone() {
                T::Thread {
                    inst,
                    plan,
                    stack,
                    mut env,
                    ..
                } => {
                    let mut stack = stack.into_vec();
                    match action {
                        Action::Tau => {}
                        Action::Pop | Action::Receive(_) => {
                            let top = stack.pop();
                            if let (Action::Receive(v), Some(Node::Recv { var, .. })) =
                                (action, top.and_then(|n| self.node(n)))
                                && let Some(slot) = env.get_mut(var.0 as usize)
                            {
                                *slot = *v;
                            }
                        }
                    }
                    self.thread(ar, inst, plan, false, stack, env)
                }
                _ => term,
            };
        }
        let index = |i: u32| -> Vec<(Vec<u32>, Action)> {
            actions
                .iter()
                .filter(|(p, _)| p.get(depth) == Some(&i))
                .cloned()
                .collect()
        };
        match ar.get(term).clone() {
            T::Choice(cs) => {
                let i = actions[0].0[depth];
                let chosen = match cs.get(i as usize) {
                    Some(&c) => c,
                    None => ar.mk(self.net, T::Done),
                };
                let sub: Vec<(Vec<u32>, Action)> = index(i)
                    .into_iter()
                    .map(|(mut p, a)| {
                        p.remove(depth);
                        (p, a)
                    })
                    .collect();
                self.fire_at(ar, chosen, &sub, depth, fault)
            }
            T::Interrupt(p, q) => {
                if actions.iter().any(|(path, _)| path.get(depth) == Some(&1)) {
                    let sub: Vec<(Vec<u32>, Action)> = index(1)
                        .into_iter()
                        .map(|(mut p, a)| {
                            p.remove(depth);
                            (p, a)
                        })
                        .collect();
                    self.fire_at(ar, q, &sub, depth, fault)
                } else {
                    let p = self.fire_at(ar, p, &index(0), depth + 1, fault);
                    ar.mk(self.net, T::Interrupt(p, q))
                }
            }
            other => {
                let mut i = 0;
                let t = map_children(other, &mut |c| {
                    let sub = index(i);
                    i += 1;
                    if sub.is_empty() {
                        c
                    } else {
                        self.fire_at(ar, c, &sub, depth + 1, fault)
                    }
                });
                ar.mk(self.net, t)
            }
        }
    }
}

/// Applies `f` to each direct child, in the order (and with the children) of the reference's
/// `map_children`: a `Handling`'s body, then the process it keeps.
fn map_children(t: T, f: &mut dyn FnMut(Tid) -> Tid) -> T {
    match t {
        T::Then(a, b) => T::Then(f(a), b),
        T::Par(cs) => T::Par(cs.iter().map(|&c| f(c)).collect()),
        T::Choice(cs) => T::Choice(cs.iter().map(|&c| f(c)).collect()),
        T::Interrupt(p, q) => {
            let p = f(p);
            let q = f(q);
            T::Interrupt(p, q)
        }
        T::Suspended(b) => T::Suspended(f(b)),
        T::Label {
            inst,
            label,
            body,
            start,
        } => T::Label {
            inst,
            label,
            body: f(body),
            start,
        },
        T::Inst {
            inst,
            plan,
            params,
            body,
        } => T::Inst {
            inst,
            plan,
            params,
            body: f(body),
        },
        T::Handling { body, then } => {
            let body = f(body);
            let then = match then {
                After::Suspend(s) => After::Suspend(f(s)),
                After::Continue(s) => After::Continue(f(s)),
                other => other,
            };
            T::Handling { body, then }
        }
        other => other,
    }
}

/// The direct children, in the order of the reference's `children`.
fn children(t: &T) -> Vec<Tid> {
    match t {
        T::Then(a, _) => vec![*a],
        T::Par(cs) | T::Choice(cs) => cs.to_vec(),
        T::Interrupt(p, q) => vec![*p, *q],
        T::Suspended(b) => vec![*b],
        T::Label { body, .. } | T::Inst { body, .. } => vec![*body],
        T::Handling { body, then } => match then {
            After::Suspend(s) | After::Continue(s) => vec![*body, *s],
            _ => vec![*body],
        },
        _ => vec![],
    }
}

/// As the kernel's: the started instances in post-order, skipping stopped ones when asked.
fn collect_instances(
    ar: &Overlay,
    t: Tid,
    skip_stopped: bool,
    out: &mut Vec<(u32, u32, Box<[V]>)>,
) {
    match ar.get(t) {
        T::Choice(_) => {}
        T::Suspended(_) if skip_stopped => {}
        T::Interrupt(p, _) => collect_instances(ar, *p, skip_stopped, out),
        T::Inst {
            inst,
            plan,
            params,
            body,
        } => {
            if skip_stopped && matches!(ar.get(*body), T::Suspended(_)) {
                return;
            }
            collect_instances(ar, *body, skip_stopped, out);
            out.push((*inst, *plan, params.clone()));
        }
        T::Handling { then, .. } => {
            if let After::Suspend(s) | After::Continue(s) = then {
                collect_instances(ar, *s, skip_stopped, out);
            }
        }
        term => {
            for c in children(term) {
                collect_instances(ar, c, skip_stopped, out);
            }
        }
    }
}

fn int(v: V) -> Result<i64, EvalError> {
    match v {
        V::Int(n) => Ok(n),
        _ => Err(EvalError::Malformed),
    }
}

fn boolean(v: V) -> Result<bool, EvalError> {
    match v {
        V::Bool(b) => Ok(b),
        _ => Err(EvalError::Malformed),
    }
}

fn arith(op: ArithOp, a: i64, b: i64) -> Result<i64, EvalError> {
    let r = match op {
        ArithOp::Add => a.checked_add(b),
        ArithOp::Sub => a.checked_sub(b),
        ArithOp::Mul => a.checked_mul(b),
        ArithOp::Div | ArithOp::Rem if b == 0 => return Err(EvalError::DivisionByZero),
        ArithOp::Div => a.checked_div(b),
        ArithOp::Rem => a.checked_rem(b),
    };
    r.ok_or(EvalError::Overflow)
}

fn compare(op: CompareOp, a: V, b: V) -> Result<bool, EvalError> {
    Ok(match op {
        CompareOp::Eq => a == b,
        CompareOp::Ne => a != b,
        _ => {
            let (x, y) = (int(a)?, int(b)?);
            match op {
                CompareOp::Lt => x < y,
                CompareOp::Le => x <= y,
                CompareOp::Gt => x > y,
                _ => x >= y,
            }
        }
    })
}
