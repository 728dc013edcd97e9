//! The oracle's semantics of one plan network, from docs/semantics.md and docs/language.md:
//! process terms, expansion, τ-steps and rendezvous, macro-steps, commands landing with their
//! handlers, and conditions over belief sets.

use crate::model::{Code, CodeId, Ex, Model, PlanId, Sym, Target, is_effect};
use hilbert_frontend::syntax::ast::{BinOp, Command};
use std::collections::{BTreeSet, HashMap};

/// A value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    /// An integer.
    Int(i64),
    /// A Boolean.
    Bool(bool),
    /// A string.
    Str(Sym),
    /// A channel: the instance that declared it, its plan then, and the channel's index.
    Chan(u32, PlanId, u32),
    /// A decimal (conditions only), as its bits.
    Float(u64),
}

/// Why a thread faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// A `match` with no arm for its value.
    NoArm,
    /// Division or remainder by zero.
    DivZero,
    /// An integer outside the 64-bit range.
    Overflow,
    /// A macro-step that never reaches a communication.
    Diverged,
    /// Something the oracle does not model (its own limitation).
    Unsupported,
}

/// The variables of a thread: parameters, channels, received values (latest last).
pub type Env = Vec<(Sym, Val)>;

fn lookup(env: &Env, s: Sym) -> Option<Val> {
    env.iter().rev().find(|(n, _)| *n == s).map(|(_, v)| *v)
}

/// A thread's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Waiting for a step.
    Ready,
    /// Running in the current macro-step.
    Running,
    /// Issued the command with this ticket, which has not landed yet.
    Issued(u32),
}

/// A running plan's code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thread {
    /// Its instance.
    pub inst: u32,
    /// The nodes still to run, top last.
    pub stack: Vec<CodeId>,
    /// Its variables.
    pub env: Env,
    /// Its mode.
    pub mode: Mode,
}

/// What happens once a command's handlers have run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum After {
    /// The target ends.
    End,
    /// The target is suspended.
    Suspend,
    /// The target continues.
    Continue,
    /// The label (of this instance) starts afresh from its code with this environment.
    RestartLabel(u32, CodeId, Env),
    /// The instance (id, plan, parameters) starts its plan afresh.
    RestartInst(u32, PlanId, Vec<Val>),
}

/// A handler still to run: its instance, plan, parameters and code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PendingHandler {
    inst: u32,
    plan: PlanId,
    params: Vec<Val>,
    code: CodeId,
}

/// A process term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum T {
    /// Ended.
    Done,
    /// Can never move.
    Faulted(Fault),
    /// A thread.
    Th(Box<Thread>),
    /// Run the term, then continue the thread.
    Then(Box<T>, Box<Thread>),
    /// Parallel.
    Par(Vec<T>),
    /// An unresolved external choice.
    Choice(Vec<T>),
    /// `P △ Q` before Q moved.
    Intr(Box<T>, Box<T>),
    /// `l : P`: instance, label, body, how it began.
    Label(u32, Sym, Box<T>, CodeId, Env),
    /// A plan instance: id, plan, parameters, body.
    Inst(u32, PlanId, Vec<Val>, Box<T>),
    /// Stopped.
    Susp(Box<T>),
    /// Handlers running: the rest, the current one, then what, over the saved target.
    Handling(Vec<PendingHandler>, Box<T>, After, Box<T>),
}

/// An atom believed: `None` the agent's own, `Some(j)` told to `j`.
pub type Atom = (Option<Sym>, Sym, Vec<Val>);
/// A belief set.
pub type Beliefs = BTreeSet<Atom>;

/// A state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// The process term.
    pub term: T,
    /// The beliefs.
    pub beliefs: Beliefs,
}

/// The divergence bound of a macro-step (docs/semantics.md: 100,000 nodes).
pub const MAX_NODES: u64 = 100_000;

/// What a step did besides moving.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// Each tell executed: its plan, number, and whether it was feasible.
    pub tells: Vec<(PlanId, u32, bool)>,
    /// Whether an overflow fault happened.
    pub overflow: bool,
    /// Whether the step diverged (ran out of its budget, or repeated a configuration).
    pub diverged: bool,
    /// The instances of the threads that took the step (for weak fairness).
    pub takers: Vec<u32>,
}

/// The machine for one network: the model, and the instance table (made as calls are met).
pub struct Machine<'m> {
    /// The model.
    pub m: &'m Model,
    insts: HashMap<(u32, CodeId), u32>,
    agent_params: Env,
    queue: Vec<(u32, Command, Target, u32)>,
    next_ticket: u32,
    nodes: u64,
    passes: u64,
    seen: std::collections::HashSet<u64>,
    fx: Effects,
}

fn arith(op: BinOp, a: i64, b: i64) -> Result<i64, Fault> {
    match op {
        BinOp::Add => a.checked_add(b).ok_or(Fault::Overflow),
        BinOp::Sub => a.checked_sub(b).ok_or(Fault::Overflow),
        BinOp::Mul => a.checked_mul(b).ok_or(Fault::Overflow),
        BinOp::Div | BinOp::Rem if b == 0 => Err(Fault::DivZero),
        BinOp::Div => a.checked_div(b).ok_or(Fault::Overflow),
        BinOp::Rem => a.checked_rem(b).ok_or(Fault::Overflow),
        _ => Err(Fault::Unsupported),
    }
}

fn num(v: Val) -> Option<f64> {
    match v {
        Val::Int(i) => Some(i as f64),
        Val::Float(b) => Some(f64::from_bits(b)),
        _ => None,
    }
}

fn compare(op: BinOp, a: Val, b: Val) -> Result<bool, Fault> {
    use std::cmp::Ordering;
    let ord = match (a, b) {
        (Val::Int(x), Val::Int(y)) => x.cmp(&y),
        (Val::Float(_), _) | (_, Val::Float(_)) => {
            let (Some(x), Some(y)) = (num(a), num(b)) else {
                return Err(Fault::Unsupported);
            };
            x.partial_cmp(&y).ok_or(Fault::Unsupported)?
        }
        _ => {
            return match op {
                BinOp::Eq => Ok(a == b),
                BinOp::Ne => Ok(a != b),
                _ => Err(Fault::Unsupported),
            };
        }
    };
    Ok(match op {
        BinOp::Eq => ord == Ordering::Equal,
        BinOp::Ne => ord != Ordering::Equal,
        BinOp::Lt => ord == Ordering::Less,
        BinOp::Le => ord != Ordering::Greater,
        BinOp::Gt => ord == Ordering::Greater,
        BinOp::Ge => ord != Ordering::Less,
        _ => return Err(Fault::Unsupported),
    })
}

/// Evaluates an expression of a plan or a binding argument (no belief tests).
pub fn eval(e: &Ex, env: &Env) -> Result<Val, Fault> {
    Ok(match e {
        Ex::Int(i) => Val::Int(*i),
        Ex::Float(f) => Val::Float(f.to_bits()),
        Ex::Str(s) => Val::Str(*s),
        Ex::Bool(b) => Val::Bool(*b),
        Ex::Var(v) => lookup(env, *v).ok_or(Fault::Unsupported)?,
        Ex::Neg(a) => match eval(a, env)? {
            Val::Int(i) => Val::Int(i.checked_neg().ok_or(Fault::Overflow)?),
            Val::Float(b) => Val::Float((-f64::from_bits(b)).to_bits()),
            _ => return Err(Fault::Unsupported),
        },
        Ex::Not(a) => match eval(a, env)? {
            Val::Bool(b) => Val::Bool(!b),
            _ => return Err(Fault::Unsupported),
        },
        Ex::Bin(BinOp::And, a, b) => match eval(a, env)? {
            Val::Bool(false) => Val::Bool(false),
            Val::Bool(true) => eval(b, env)?,
            _ => return Err(Fault::Unsupported),
        },
        Ex::Bin(BinOp::Or, a, b) => match eval(a, env)? {
            Val::Bool(true) => Val::Bool(true),
            Val::Bool(false) => eval(b, env)?,
            _ => return Err(Fault::Unsupported),
        },
        Ex::Bin(op, a, b) => {
            let x = eval(a, env)?;
            let y = eval(b, env)?;
            if op.is_comparison() {
                Val::Bool(compare(*op, x, y)?)
            } else {
                match (x, y) {
                    (Val::Int(x), Val::Int(y)) => Val::Int(arith(*op, x, y)?),
                    _ => {
                        let (Some(x), Some(y)) = (num(x), num(y)) else {
                            return Err(Fault::Unsupported);
                        };
                        let r = match op {
                            BinOp::Add => x + y,
                            BinOp::Sub => x - y,
                            BinOp::Mul => x * y,
                            BinOp::Div => x / y,
                            _ => return Err(Fault::Unsupported),
                        };
                        Val::Float(r.to_bits())
                    }
                }
            }
        }
        Ex::Wild
        | Ex::Believes(..)
        | Ex::Attending(_)
        | Ex::Desires(_)
        | Ex::Intends(_)
        | Ex::Unsupported => {
            return Err(Fault::Unsupported);
        }
    })
}

/// The assignments extending `env` under which condition `e` holds of `beliefs` with attention
/// `att`. An expression that cannot be evaluated (out of range, unbound) holds under none.
pub fn solutions(e: &Ex, env: &Env, beliefs: &Beliefs, att: Option<Sym>) -> Vec<Env> {
    match e {
        Ex::Bin(BinOp::And, a, b) => solutions(a, env, beliefs, att)
            .iter()
            .flat_map(|s| solutions(b, s, beliefs, att))
            .collect(),
        Ex::Bin(BinOp::Or, a, b) => {
            let mut v = solutions(a, env, beliefs, att);
            v.extend(solutions(b, env, beliefs, att));
            v
        }
        Ex::Not(a) => {
            if solutions(a, env, beliefs, att).is_empty() {
                vec![env.clone()]
            } else {
                vec![]
            }
        }
        Ex::Believes(who, f, args) => {
            let mut out = Vec::new();
            for (w, g, vals) in beliefs {
                if w != who || g != f || vals.len() != args.len() {
                    continue;
                }
                let mut s = env.clone();
                let mut ok = true;
                for (a, v) in args.iter().zip(vals) {
                    match a {
                        Ex::Wild => {}
                        Ex::Var(x) if lookup(&s, *x).is_none() => s.push((*x, *v)),
                        _ => match eval(a, &s) {
                            Ok(w) if compare(BinOp::Eq, w, *v) == Ok(true) => {}
                            _ => {
                                ok = false;
                                break;
                            }
                        },
                    }
                }
                if ok {
                    out.push(s);
                }
            }
            out
        }
        Ex::Attending(a) => {
            if att == Some(*a) {
                vec![env.clone()]
            } else {
                vec![]
            }
        }
        _ => match eval(e, env) {
            Ok(Val::Bool(true)) => vec![env.clone()],
            _ => vec![],
        },
    }
}

/// Whether condition `e` holds.
pub fn holds(e: &Ex, env: &Env, beliefs: &Beliefs, att: Option<Sym>) -> bool {
    !solutions(e, env, beliefs, att).is_empty()
}

enum Out {
    Ready,
    Ended,
    Fault(Fault),
    Issued,
    TailCall(PlanId, Vec<Val>),
    Build(T),
}

impl<'m> Machine<'m> {
    /// A machine for the agent with these parameter values.
    pub fn new(m: &'m Model, agent_params: Env) -> Machine<'m> {
        Machine {
            m,
            insts: HashMap::new(),
            agent_params,
            queue: Vec::new(),
            next_ticket: 0,
            nodes: 0,
            passes: 0,
            seen: Default::default(),
            fx: Effects::default(),
        }
    }

    fn child(&mut self, parent: u32, site: CodeId) -> u32 {
        let n = self.insts.len() as u32 + 1;
        *self.insts.entry((parent, site)).or_insert(n)
    }

    /// The environment of instance `inst` of `plan` with these arguments.
    fn inst_env(&self, inst: u32, plan: PlanId, args: &[Val]) -> Env {
        let p = &self.m.plans[plan as usize];
        let mut env = self.agent_params.clone();
        env.extend(p.params.iter().copied().zip(args.iter().copied()));
        for (i, c) in p.chans.iter().enumerate() {
            env.push((*c, Val::Chan(inst, plan, i as u32)));
        }
        env
    }

    /// The initial state of the scene: `plan` called with `args`, expanded.
    pub fn scene(&mut self, plan: PlanId, args: Vec<Val>) -> State {
        let env = self.inst_env(0, plan, &args);
        let body = self.m.plans[plan as usize].body;
        let th = Thread {
            inst: 0,
            stack: vec![body],
            env,
            mode: Mode::Ready,
        };
        let mut beliefs = Beliefs::new();
        let inner = self.expand(th, &mut beliefs);
        let mut term = T::Inst(0, plan, args, Box::new(inner));
        normalize(&mut term, self);
        State { term, beliefs }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        self.nodes > MAX_NODES
    }

    /// Runs a thread (running, or expanding when `expanding`) until it stops.
    fn run(&mut self, th: &mut Thread, beliefs: &mut Beliefs, expanding: bool) -> Out {
        loop {
            let Some(c) = th.stack.pop() else {
                return Out::Ended;
            };
            if self.tick() {
                return Out::Fault(Fault::Diverged);
            }
            let code = &self.m.code[c as usize];
            if expanding && is_effect(code) {
                th.stack.push(c);
                th.mode = Mode::Ready;
                return Out::Ready;
            }
            match code {
                Code::Skip => {}
                Code::Stop | Code::Send(..) | Code::Recv(..) => {
                    th.stack.push(c);
                    th.mode = Mode::Ready;
                    return Out::Ready;
                }
                Code::Seq(xs) => th.stack.extend(xs.iter().rev()),
                Code::Believe(f, args) | Code::Forget(f, args) => {
                    let mut vals = Vec::new();
                    for a in args {
                        match eval(a, &th.env) {
                            Ok(v) => vals.push(v),
                            Err(e) => return Out::Fault(e),
                        }
                    }
                    let atom = (None, *f, vals);
                    if matches!(code, Code::Believe(..)) {
                        beliefs.insert(atom);
                    } else {
                        beliefs.remove(&atom);
                    }
                }
                Code::Tell(j, f, args, plan, n) => {
                    let mut vals = Vec::new();
                    for a in args {
                        match eval(a, &th.env) {
                            Ok(v) => vals.push(v),
                            Err(e) => return Out::Fault(e),
                        }
                    }
                    let own = (None, *f, vals.clone());
                    let told = (Some(*j), *f, vals);
                    let feasible = beliefs.contains(&own) && !beliefs.contains(&told);
                    self.fx.tells.push((*plan, *n, feasible));
                    beliefs.insert(told);
                }
                Code::Cmd(cmd, target) => {
                    let ticket = self.next_ticket;
                    self.next_ticket += 1;
                    self.queue.push((ticket, *cmd, *target, th.inst));
                    th.mode = Mode::Issued(ticket);
                    return Out::Issued;
                }
                Code::Call(callee, args, tail) => {
                    let mut vals = Vec::new();
                    for a in args {
                        match eval(a, &th.env) {
                            Ok(v) => vals.push(v),
                            Err(e) => return Out::Fault(e),
                        }
                    }
                    if *tail {
                        return Out::TailCall(*callee, vals);
                    }
                    let id = self.child(th.inst, c);
                    let env = self.inst_env(id, *callee, &vals);
                    let body = self.m.plans[*callee as usize].body;
                    let inner = self.start(id, body, env, beliefs, expanding);
                    return Out::Build(T::Inst(id, *callee, vals, Box::new(inner)));
                }
                Code::Par(xs) => {
                    let xs = xs.clone();
                    let v = xs
                        .iter()
                        .map(|x| self.start(th.inst, *x, th.env.clone(), beliefs, expanding))
                        .collect();
                    return Out::Build(T::Par(v));
                }
                Code::Choice(xs) => {
                    let xs = xs.clone();
                    let v = xs
                        .iter()
                        .map(|x| self.start(th.inst, *x, th.env.clone(), beliefs, true))
                        .collect();
                    return Out::Build(T::Choice(v));
                }
                Code::Interrupt(p, q) => {
                    let (p, q) = (*p, *q);
                    let l = self.start(th.inst, p, th.env.clone(), beliefs, expanding);
                    let r = self.start(th.inst, q, th.env.clone(), beliefs, true);
                    return Out::Build(T::Intr(Box::new(l), Box::new(r)));
                }
                Code::Label(l, body) => {
                    let (l, body) = (*l, *body);
                    let inner = self.start(th.inst, body, th.env.clone(), beliefs, expanding);
                    return Out::Build(T::Label(th.inst, l, Box::new(inner), body, th.env.clone()));
                }
                Code::Match(e, arms, other) => {
                    let v = match eval(e, &th.env) {
                        Ok(v) => v,
                        Err(f) => return Out::Fault(f),
                    };
                    let mut next = None;
                    for (lit, body) in arms {
                        if let Ok(w) = eval(lit, &th.env)
                            && compare(BinOp::Eq, v, w) == Ok(true)
                        {
                            next = Some(*body);
                            break;
                        }
                    }
                    match next.or(*other) {
                        Some(b) => th.stack.push(b),
                        None => return Out::Fault(Fault::NoArm),
                    }
                }
                Code::Unsupported => return Out::Fault(Fault::Unsupported),
            }
        }
    }

    /// A new thread of `code`: running, or expanded (ready) when `expanding`.
    fn start(
        &mut self,
        inst: u32,
        code: CodeId,
        env: Env,
        beliefs: &mut Beliefs,
        expanding: bool,
    ) -> T {
        let th = Thread {
            inst,
            stack: vec![code],
            env,
            mode: if expanding {
                Mode::Ready
            } else {
                Mode::Running
            },
        };
        if expanding {
            self.expand(th, beliefs)
        } else {
            T::Th(Box::new(th))
        }
    }

    /// Expands a thread through structure only.
    fn expand(&mut self, mut th: Thread, beliefs: &mut Beliefs) -> T {
        loop {
            match self.run(&mut th, beliefs, true) {
                Out::Ready => return T::Th(Box::new(th)),
                Out::Ended => return T::Done,
                Out::Fault(f) => return self.fault(f),
                Out::Build(mut t) => {
                    // What ended at once (a label or a call of SKIP) is cleaned up first.
                    normalize(&mut t, self);
                    if th.stack.is_empty() {
                        return t;
                    }
                    if t == T::Done {
                        continue;
                    }
                    th.mode = Mode::Ready;
                    return T::Then(Box::new(t), Box::new(th));
                }
                Out::Issued | Out::TailCall(..) => return self.fault(Fault::Unsupported),
            }
        }
    }

    fn fault(&mut self, f: Fault) -> T {
        if f == Fault::Overflow {
            self.fx.overflow = true;
        }
        if f == Fault::Diverged {
            self.fx.diverged = true;
        }
        T::Faulted(f)
    }

    /// One pass over the term: runs every running thread, left to right. Returns whether any
    /// ran, and a tail call a thread directly in this term asks of its instance.
    fn pass(&mut self, t: &mut T, beliefs: &mut Beliefs) -> (bool, Option<(PlanId, Vec<Val>)>) {
        match t {
            T::Th(th) if th.mode == Mode::Running => {
                let mut th2 = std::mem::replace(
                    th.as_mut(),
                    Thread {
                        inst: 0,
                        stack: vec![],
                        env: vec![],
                        mode: Mode::Ready,
                    },
                );
                match self.run(&mut th2, beliefs, false) {
                    Out::Ready | Out::Issued => *t = T::Th(Box::new(th2)),
                    Out::Ended => *t = T::Done,
                    Out::Fault(f) => *t = self.fault(f),
                    Out::TailCall(p, a) => {
                        *t = T::Th(Box::new(th2));
                        return (true, Some((p, a)));
                    }
                    Out::Build(b) => {
                        *t = if th2.stack.is_empty() {
                            b
                        } else {
                            T::Then(Box::new(b), Box::new(th2))
                        };
                        // The new threads run now; the continuation may end in a tail call.
                        let (_, tc) = self.pass(t, beliefs);
                        return (true, tc);
                    }
                }
                (true, None)
            }
            T::Th(_) | T::Done | T::Faulted(_) | T::Susp(_) => (false, None),
            T::Then(a, k) => {
                let (ran, tc) = self.pass_child(a, beliefs);
                if tc.is_some() {
                    return (ran, tc);
                }
                if **a == T::Done {
                    let mut k = std::mem::replace(
                        k.as_mut(),
                        Thread {
                            inst: 0,
                            stack: vec![],
                            env: vec![],
                            mode: Mode::Ready,
                        },
                    );
                    k.mode = Mode::Running;
                    *t = T::Th(Box::new(k));
                    let (_, tc) = self.pass(t, beliefs);
                    return (true, tc);
                }
                (ran, None)
            }
            T::Par(xs) | T::Choice(xs) => {
                let mut any = false;
                for x in xs.iter_mut() {
                    let (r, tc) = self.pass_child(x, beliefs);
                    any |= r;
                    if tc.is_some() {
                        *x = T::Faulted(Fault::Unsupported);
                    }
                }
                (any, None)
            }
            T::Intr(a, b) => {
                let (r1, t1) = self.pass_child(a, beliefs);
                let (r2, t2) = self.pass_child(b, beliefs);
                if t1.is_some() || t2.is_some() {
                    *t = T::Faulted(Fault::Unsupported);
                }
                (r1 || r2, None)
            }
            T::Label(_, _, body, _, _) | T::Handling(_, body, _, _) => {
                let (r, tc) = self.pass_child(body, beliefs);
                if tc.is_some() {
                    **body = T::Faulted(Fault::Unsupported);
                }
                (r, None)
            }
            T::Inst(id, plan, params, body) => {
                let mut any = false;
                loop {
                    let (r, tc) = self.pass_child(body, beliefs);
                    any |= r;
                    match tc {
                        None => return (any, None),
                        Some((p, a)) => {
                            // The instance becomes the callee's: new parameters, fresh channels.
                            let env = self.inst_env(*id, p, &a);
                            *plan = p;
                            *params = a;
                            **body = T::Th(Box::new(Thread {
                                inst: *id,
                                stack: vec![self.m.plans[p as usize].body],
                                env,
                                mode: Mode::Running,
                            }));
                        }
                    }
                }
            }
        }
    }

    /// Runs the running threads of a part of the term until none is left there, cleaning up
    /// what ended at once, in its place (so a finished branch's continuation runs before the
    /// threads to its right).
    fn pass_child(
        &mut self,
        x: &mut T,
        beliefs: &mut Beliefs,
    ) -> (bool, Option<(PlanId, Vec<Val>)>) {
        let mut any = false;
        loop {
            let (r, tc) = self.pass(x, beliefs);
            any |= r;
            if tc.is_some() {
                return (any, tc);
            }
            normalize(x, self);
            if !r || !has_running(x) {
                return (any, None);
            }
        }
    }

    /// Runs every running thread until none is left (cleaning up between passes).
    fn settle(&mut self, t: &mut T, beliefs: &mut Beliefs) {
        loop {
            normalize(t, self);
            let (ran, _) = self.pass(t, beliefs);
            if !ran {
                break;
            }
            self.passes += 1;
            if self.nodes > MAX_NODES / 50 && self.passes.is_multiple_of(64) {
                // Long macro-step: a repeated configuration means it never ends.
                let mut h = std::collections::hash_map::DefaultHasher::new();
                std::hash::Hash::hash(&(&*t, &*beliefs, &self.queue), &mut h);
                let k = std::hash::Hasher::finish(&h);
                if !self.seen.insert(k) || self.nodes > MAX_NODES {
                    self.fx.diverged = true;
                    fault_running(t);
                    fault_waiting(t);
                    self.queue.clear();
                }
            }
        }
        normalize(t, self);
    }

    /// The macro-step after a step fired: settle, then land the queued commands one at a time.
    fn macro_step(&mut self, t: &mut T, beliefs: &mut Beliefs) {
        self.nodes = 0;
        self.seen.clear();
        self.settle(t, beliefs);
        while !self.queue.is_empty() {
            let (ticket, cmd, target, inst) = self.queue.remove(0);
            if self.tick() {
                // Out of the step's budget: the command cannot land, its issuer faults.
                self.fx.diverged = true;
                fault_issuer(t, ticket);
            } else {
                self.land(t, cmd, target, inst);
                release_issuer(t, ticket);
            }
            self.shift_tickets(t, ticket + 1);
            self.settle(t, beliefs);
        }
    }

    /// Renumbers the outstanding tickets after the one before `d` landed, so that a macro-step
    /// that repeats a configuration is seen to repeat.
    fn shift_tickets(&mut self, t: &mut T, d: u32) {
        fn go(t: &mut T, d: u32) {
            match t {
                T::Th(th) => {
                    if let Mode::Issued(k) = th.mode {
                        th.mode = Mode::Issued(k - d);
                    }
                }
                T::Done | T::Faulted(_) => {}
                T::Then(a, _) | T::Susp(a) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => {
                    go(a, d)
                }
                T::Par(xs) | T::Choice(xs) => xs.iter_mut().for_each(|x| go(x, d)),
                T::Intr(a, b) | T::Handling(_, a, _, b) => {
                    go(a, d);
                    go(b, d);
                }
            }
        }
        go(t, d);
        for q in &mut self.queue {
            q.0 -= d;
        }
        self.next_ticket -= d;
    }

    /// The handlers of `kind` (0 stop, 1 resume, 2 abort) of the instances in `t` that have
    /// started and that the command changes, in post-order (innermost first, siblings left to
    /// right): not the alternatives of an unresolved choice nor the right side of an
    /// interrupt that has not moved; for stop and resume, nothing inside a suspended process;
    /// not the instances a running handler started. An instance whose handlers run for an
    /// earlier command is included like any other (those handlers are discarded with it).
    fn handlers(&self, t: &T, kind: usize, out: &mut Vec<PendingHandler>) {
        match t {
            T::Done | T::Faulted(_) | T::Th(_) | T::Choice(_) => {}
            T::Then(a, _) | T::Label(_, _, a, _, _) => self.handlers(a, kind, out),
            T::Intr(a, _) => self.handlers(a, kind, out),
            T::Par(xs) => xs.iter().for_each(|x| self.handlers(x, kind, out)),
            T::Susp(b) => {
                if kind == 2 {
                    self.handlers(b, kind, out)
                }
            }
            T::Handling(_, _, _, saved) => {
                if kind == 2 {
                    self.handlers(saved, kind, out)
                }
            }
            T::Inst(id, plan, params, body) => {
                if kind != 2 && matches!(**body, T::Susp(_)) {
                    return;
                }
                self.handlers(body, kind, out);
                if let Some(code) = self.m.plans[*plan as usize].handlers[kind] {
                    out.push(PendingHandler {
                        inst: *id,
                        plan: *plan,
                        params: params.clone(),
                        code,
                    });
                }
            }
        }
    }

    /// Lands a command issued by a thread of instance `inst`.
    fn land(&mut self, t: &mut T, cmd: Command, target: Target, inst: u32) {
        let restart = match find_target(t, target, inst) {
            None => return,
            Some(T::Label(i, _, _, code, env)) => After::RestartLabel(*i, *code, env.clone()),
            Some(T::Inst(id, plan, params, _)) => After::RestartInst(*id, *plan, params.clone()),
            Some(_) => return,
        };
        let node = find_target(t, target, inst).expect("found above");
        let is_inst = matches!(node, T::Inst(..));
        let body: &mut T = match node {
            T::Inst(_, _, _, b) | T::Label(_, _, b, _, _) => b,
            _ => return,
        };
        if let T::Handling(_, _, after, saved) = body {
            // Handlers are running for an earlier command. Being aborted or restarted: every
            // command does nothing. Being stopped or resumed: stop and resume do nothing, an
            // abort or restart cuts those handlers short and lands on what they ran for.
            let aborting = matches!(
                after,
                After::End | After::RestartInst(..) | After::RestartLabel(..)
            );
            if aborting || matches!(cmd, Command::Stop | Command::Resume) {
                return;
            }
            let saved = std::mem::replace(saved.as_mut(), T::Done);
            *body = saved;
        }
        let (kind, after) = match cmd {
            Command::Stop => {
                if matches!(*body, T::Susp(_)) {
                    return;
                }
                (0, After::Suspend)
            }
            Command::Resume => {
                if !matches!(*body, T::Susp(_)) {
                    return;
                }
                let T::Susp(inner) = std::mem::replace(body, T::Done) else {
                    unreachable!("checked above")
                };
                *body = *inner;
                (1, After::Continue)
            }
            Command::Abort => (2, After::End),
            Command::Restart => (2, restart),
        };
        let node = find_target(t, target, inst).expect("found above");
        let mut hs = Vec::new();
        if is_inst {
            self.handlers(node, kind, &mut hs);
        } else if let T::Label(_, _, b, _, _) = &*node {
            self.handlers(b, kind, &mut hs);
        }
        let body: &mut T = match node {
            T::Inst(_, _, _, b) | T::Label(_, _, b, _, _) => b,
            _ => return,
        };
        let saved = std::mem::replace(body, T::Done);
        *body = T::Handling(hs, Box::new(T::Done), after, Box::new(saved));
    }

    /// The state after a command from outside (docs/semantics.md, "Commands from outside"):
    /// `cmd` lands on the scene's root instance, issued by no thread, then the commands its
    /// handlers issue land in turn, as after a step. One that diverges faults the whole scene,
    /// its beliefs as they were.
    pub fn command_scene(&mut self, s: &State, cmd: Command) -> (State, Effects) {
        let mut term = s.term.clone();
        let mut beliefs = s.beliefs.clone();
        self.fx = Effects::default();
        self.queue.clear();
        // No thread waits in a state, so tickets start afresh; no thread waits for this one.
        self.next_ticket = 1;
        self.queue.push((0, cmd, Target::SelfInst, 0));
        self.macro_step(&mut term, &mut beliefs);
        if self.fx.diverged {
            let fx = Effects {
                diverged: true,
                ..Effects::default()
            };
            return (
                term_state(T::Faulted(Fault::Diverged), s.beliefs.clone()),
                fx,
            );
        }
        (term_state(term, beliefs), std::mem::take(&mut self.fx))
    }

    /// Every step from a state: the successor and what the step did.
    pub fn steps(&mut self, s: &State) -> Vec<(State, Effects)> {
        let mut actors = Vec::new();
        collect(&s.term, &mut Vec::new(), &mut actors, self.m);
        let mut out = Vec::new();
        // τ-steps first, in term order.
        let inst = |p: &[u16]| match node_at(&s.term, p) {
            Some(T::Th(th)) => vec![th.inst],
            _ => Vec::new(),
        };
        for a in &actors {
            if let Actor::Tau(p) = a {
                let mut step = self.fire(s, &[(p.clone(), Act::Tau)]);
                step.1.takers = inst(p);
                out.push(step);
            }
        }
        for a in &actors {
            let Actor::Send(ps, ch, v) = a else { continue };
            for b in &actors {
                let Actor::Recv(pr, ch2, x) = b else { continue };
                if ch != ch2 {
                    continue;
                }
                let common = ps.iter().zip(pr).take_while(|(a, b)| a == b).count();
                if node_at(&s.term, &ps[..common]).is_some_and(|n| matches!(n, T::Par(_))) {
                    let mut step = self.fire(
                        s,
                        &[(ps.clone(), Act::Send), (pr.clone(), Act::Recv(*x, *v))],
                    );
                    step.1.takers = [inst(ps), inst(pr)].concat();
                    out.push(step);
                }
            }
        }
        out
    }

    fn fire(&mut self, s: &State, acts: &[(Vec<u16>, Act)]) -> (State, Effects) {
        self.fx = Effects::default();
        self.queue.clear();
        let mut term = s.term.clone();
        let mut beliefs = s.beliefs.clone();
        let mut v: Vec<(&[u16], &Act)> = acts.iter().map(|(p, a)| (&p[..], a)).collect();
        resolve(&mut term, &mut v, false);
        self.macro_step(&mut term, &mut beliefs);
        if self.fx.diverged {
            // A diverging step is taken, its takers fault, and nothing else it did stays
            // (docs/semantics.md, "Divergence").
            let mut term = s.term.clone();
            let mut v: Vec<(&[u16], &Act)> = acts.iter().map(|(p, a)| (&p[..], a)).collect();
            resolve(&mut term, &mut v, true);
            let fx = Effects {
                diverged: true,
                ..Effects::default()
            };
            return (term_state(term, s.beliefs.clone()), fx);
        }
        (term_state(term, beliefs), std::mem::take(&mut self.fx))
    }
}

/// Whether no command from outside is under way (docs/semantics.md, "Commands from outside"):
/// the scene has finished, or its root instance's body is not running handlers. A scene
/// faulted as a whole is not settled.
pub fn settled(t: &T) -> bool {
    match t {
        T::Done => true,
        T::Inst(_, _, _, body) => !matches!(**body, T::Handling(..)),
        _ => false,
    }
}

/// Whether the scene's root instance is suspended (a stop from outside has completed).
pub fn root_suspended(t: &T) -> bool {
    matches!(t, T::Inst(_, _, _, body) if matches!(**body, T::Susp(_)))
}

fn term_state(term: T, beliefs: Beliefs) -> State {
    State { term, beliefs }
}

/// The node a command of instance `inst` targets: the instance itself, or its label.
fn find_target(t: &mut T, target: Target, inst: u32) -> Option<&mut T> {
    let hit = match (&*t, target) {
        (T::Inst(id, ..), Target::SelfInst) => *id == inst,
        (T::Label(i, l, ..), Target::Label(x)) => *i == inst && *l == x,
        _ => false,
    };
    if hit {
        return Some(t);
    }
    match t {
        T::Done | T::Faulted(_) | T::Th(_) => None,
        T::Then(a, _) | T::Susp(a) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => {
            find_target(a, target, inst)
        }
        T::Par(xs) => xs.iter_mut().find_map(|x| find_target(x, target, inst)),
        // Not started (docs/semantics.md, commands): an unresolved choice's alternatives and the
        // right side of an interrupt that has not moved hold no target.
        T::Choice(_) => None,
        T::Intr(a, _) => find_target(a, target, inst),
        // The handlers first; then a process that `on stop` or `on resume` handlers set aside,
        // which is still there like a suspended one. What `on abort` handlers run for is gone.
        T::Handling(_, cur, after, saved) => {
            if let Some(x) = find_target(cur, target, inst) {
                return Some(x);
            }
            match after {
                After::Suspend | After::Continue => find_target(saved, target, inst),
                _ => None,
            }
        }
    }
}

/// Faults the thread that issued `ticket`, wherever it is.
fn fault_issuer(t: &mut T, ticket: u32) {
    match t {
        T::Th(th) => {
            if th.mode == Mode::Issued(ticket) {
                *t = T::Faulted(Fault::Diverged);
            }
        }
        T::Done | T::Faulted(_) => {}
        T::Then(a, _) | T::Susp(a) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => {
            fault_issuer(a, ticket)
        }
        T::Par(xs) | T::Choice(xs) => xs.iter_mut().for_each(|x| fault_issuer(x, ticket)),
        T::Intr(a, b) | T::Handling(_, a, _, b) => {
            fault_issuer(a, ticket);
            fault_issuer(b, ticket);
        }
    }
}

/// Makes the thread that issued `ticket` running again, wherever it is.
fn release_issuer(t: &mut T, ticket: u32) {
    match t {
        T::Th(th) => {
            if th.mode == Mode::Issued(ticket) {
                th.mode = Mode::Running;
            }
        }
        T::Done | T::Faulted(_) => {}
        T::Then(a, _) | T::Susp(a) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => {
            release_issuer(a, ticket)
        }
        T::Par(xs) | T::Choice(xs) => xs.iter_mut().for_each(|x| release_issuer(x, ticket)),
        T::Intr(a, b) | T::Handling(_, a, _, b) => {
            release_issuer(a, ticket);
            release_issuer(b, ticket);
        }
    }
}

/// Whether a running thread is in the live part of `t`.
fn has_running(t: &T) -> bool {
    match t {
        T::Th(th) => th.mode == Mode::Running,
        T::Done | T::Faulted(_) | T::Susp(_) => false,
        T::Then(a, _) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) | T::Handling(_, a, _, _) => {
            has_running(a)
        }
        T::Par(xs) | T::Choice(xs) => xs.iter().any(has_running),
        T::Intr(a, b) => has_running(a) || has_running(b),
    }
}

/// Faults every running thread (a macro-step that never ends).
fn fault_running(t: &mut T) {
    match t {
        T::Th(th) => {
            if th.mode == Mode::Running || matches!(th.mode, Mode::Issued(_)) {
                *t = T::Faulted(Fault::Diverged);
            }
        }
        T::Done | T::Faulted(_) | T::Susp(_) => {}
        T::Then(a, _) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => fault_running(a),
        T::Par(xs) | T::Choice(xs) => xs.iter_mut().for_each(fault_running),
        T::Intr(a, b) => {
            fault_running(a);
            fault_running(b);
        }
        T::Handling(_, a, _, _) => fault_running(a),
    }
}

/// Faults every thread waiting for a command, wherever it is (inside a stopped process or one
/// that handlers set aside too): the step diverged, its queued commands are dropped and can no
/// longer land.
fn fault_waiting(t: &mut T) {
    match t {
        T::Th(th) => {
            if matches!(th.mode, Mode::Issued(_)) {
                *t = T::Faulted(Fault::Diverged);
            }
        }
        T::Done | T::Faulted(_) => {}
        T::Then(a, _) | T::Susp(a) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => {
            fault_waiting(a)
        }
        T::Par(xs) | T::Choice(xs) => xs.iter_mut().for_each(fault_waiting),
        T::Intr(a, b) | T::Handling(_, a, _, b) => {
            fault_waiting(a);
            fault_waiting(b);
        }
    }
}

/// Cleans up ended terms and starts pending handlers.
fn normalize(t: &mut T, mc: &mut Machine<'_>) {
    match t {
        T::Done | T::Faulted(_) | T::Th(_) => {}
        T::Then(a, k) => {
            normalize(a, mc);
            if **a == T::Done {
                let mut k = k.as_ref().clone();
                if k.mode == Mode::Ready {
                    k.mode = Mode::Running;
                }
                *t = T::Th(Box::new(k));
            }
        }
        T::Par(xs) => {
            xs.iter_mut().for_each(|x| normalize(x, mc));
            xs.retain(|x| *x != T::Done);
            match xs.len() {
                0 => *t = T::Done,
                1 => *t = xs.pop().expect("one"),
                _ => {}
            }
        }
        T::Choice(xs) => xs.iter_mut().for_each(|x| normalize(x, mc)),
        T::Intr(a, b) => {
            normalize(a, mc);
            normalize(b, mc);
            if **a == T::Done {
                *t = T::Done;
            }
        }
        T::Label(_, _, b, _, _) | T::Inst(_, _, _, b) => {
            normalize(b, mc);
            if **b == T::Done {
                *t = T::Done;
            }
        }
        T::Susp(b) => normalize(b, mc),
        T::Handling(pending, cur, after, saved) => {
            normalize(cur, mc);
            if **cur == T::Done {
                if !pending.is_empty() {
                    let h = pending.remove(0);
                    let env = mc.inst_env(h.inst, h.plan, &h.params);
                    **cur = T::Th(Box::new(Thread {
                        inst: h.inst,
                        stack: vec![h.code],
                        env,
                        mode: Mode::Running,
                    }));
                    return;
                }
                let saved = std::mem::replace(saved.as_mut(), T::Done);
                let after = after.clone();
                *t = match after {
                    After::End => T::Done,
                    After::Suspend => T::Susp(Box::new(saved)),
                    After::Continue => saved,
                    After::RestartLabel(inst, code, env) => T::Th(Box::new(Thread {
                        inst,
                        stack: vec![code],
                        env,
                        mode: Mode::Running,
                    })),
                    After::RestartInst(id, plan, params) => {
                        let env = mc.inst_env(id, plan, &params);
                        T::Th(Box::new(Thread {
                            inst: id,
                            stack: vec![mc.m.plans[plan as usize].body],
                            env,
                            mode: Mode::Running,
                        }))
                    }
                };
            }
        }
    }
}

enum Actor {
    Tau(Vec<u16>),
    Send(Vec<u16>, Val, Val),
    Recv(Vec<u16>, Val, Sym),
}

enum Act {
    Tau,
    Send,
    Recv(Sym, Val),
}

/// The ready threads that can move, with their positions.
fn collect(t: &T, path: &mut Vec<u16>, out: &mut Vec<Actor>, m: &Model) {
    match t {
        T::Th(th) if th.mode == Mode::Ready => {
            let Some(&c) = th.stack.last() else { return };
            match &m.code[c as usize] {
                Code::Send(e, ch) => {
                    if let (Ok(v), Some(chv)) = (eval(e, &th.env), lookup(&th.env, *ch)) {
                        out.push(Actor::Send(path.clone(), chv, v));
                    }
                }
                Code::Recv(x, ch) => {
                    if let Some(chv) = lookup(&th.env, *ch) {
                        out.push(Actor::Recv(path.clone(), chv, *x));
                    }
                }
                c if is_effect(c) => out.push(Actor::Tau(path.clone())),
                _ => {}
            }
        }
        T::Th(_) | T::Done | T::Faulted(_) | T::Susp(_) => {}
        T::Then(a, _) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) => {
            path.push(0);
            collect(a, path, out, m);
            path.pop();
        }
        T::Handling(_, a, _, _) => {
            path.push(0);
            collect(a, path, out, m);
            path.pop();
        }
        T::Par(xs) => {
            for (i, x) in xs.iter().enumerate() {
                path.push(i as u16);
                collect(x, path, out, m);
                path.pop();
            }
        }
        T::Choice(xs) => {
            for (i, x) in xs.iter().enumerate() {
                path.push(i as u16);
                if *x == T::Done {
                    out.push(Actor::Tau(path.clone()));
                } else {
                    collect(x, path, out, m);
                }
                path.pop();
            }
        }
        T::Intr(a, b) => {
            path.push(0);
            collect(a, path, out, m);
            path.pop();
            path.push(1);
            if **b == T::Done {
                out.push(Actor::Tau(path.clone()));
            } else {
                collect(b, path, out, m);
            }
            path.pop();
        }
    }
}

fn node_at<'a>(t: &'a T, path: &[u16]) -> Option<&'a T> {
    let Some((&i, rest)) = path.split_first() else {
        return Some(t);
    };
    match t {
        T::Then(a, _) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) | T::Handling(_, a, _, _) => {
            node_at(a, rest)
        }
        T::Par(xs) | T::Choice(xs) => node_at(xs.get(i as usize)?, rest),
        T::Intr(a, b) => node_at(if i == 0 { a } else { b }, rest),
        _ => None,
    }
}

/// Resolves the choices and interrupts on the way to the moving threads and makes them move.
fn resolve(t: &mut T, acts: &mut [(&[u16], &Act)], fault: bool) {
    if acts.is_empty() {
        return;
    }
    if acts.iter().all(|(p, _)| p.is_empty()) {
        if fault {
            // The step diverged: what took it faults where it stands.
            *t = T::Faulted(Fault::Diverged);
            return;
        }
        if let T::Th(th) = t {
            for (_, a) in acts.iter() {
                match a {
                    // An internal action runs when the thread runs.
                    Act::Tau => {}
                    Act::Send => {
                        th.stack.pop();
                    }
                    Act::Recv(x, v) => {
                        th.stack.pop();
                        th.env.push((*x, *v));
                    }
                }
            }
            th.mode = Mode::Running;
        }
        return;
    }
    match t {
        T::Choice(xs) => {
            let i = acts[0].0[0] as usize;
            let alt = std::mem::replace(&mut xs[i], T::Done);
            *t = alt;
            for a in acts.iter_mut() {
                a.0 = &a.0[1..];
            }
            resolve(t, acts, fault);
        }
        T::Intr(l, r) => {
            let i = acts[0].0[0];
            for a in acts.iter_mut() {
                a.0 = &a.0[1..];
            }
            if i == 1 {
                let right = std::mem::replace(r.as_mut(), T::Done);
                *t = right;
                resolve(t, acts, fault);
            } else {
                resolve(l, acts, fault);
            }
        }
        T::Par(xs) => {
            for (i, x) in xs.iter_mut().enumerate() {
                let mut mine: Vec<(&[u16], &Act)> = acts
                    .iter()
                    .filter(|(p, _)| p.first() == Some(&(i as u16)))
                    .map(|(p, a)| (&p[1..], *a))
                    .collect();
                resolve(x, &mut mine, fault);
            }
        }
        T::Then(a, _) | T::Label(_, _, a, _, _) | T::Inst(_, _, _, a) | T::Handling(_, a, _, _) => {
            for x in acts.iter_mut() {
                x.0 = &x.0[1..];
            }
            resolve(a, acts, fault);
        }
        _ => {}
    }
}
