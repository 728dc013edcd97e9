//! The reference semantics of a plan network: states and the step function, written to be read.
//!
//! A state is a process term and a belief set. Terms are trees whose subterms may be shared
//! ([`Sub`]: a step copies only the path it rewrites); nothing is interned, and sharing changes
//! no value. The rules (`docs/semantics.md` says the same in prose):
//!
//! - A **thread** runs a plan's code with a stack of nodes still to run and an environment of
//!   slots. A thread is *running* while it executes internal actions and *ready* when it waits:
//!   at a communication, at an internal action no step has committed to yet (its first step will
//!   be a τ-step), or at `STOP`.
//! - A **step** is a τ-step of one ready thread, or a rendezvous of a ready sender and a ready
//!   receiver on the same channel in different branches of a `‖`. Then every running thread runs
//!   its internal actions, left to right in the term, until it is ready or ended (a macro-step).
//!   Commands issued during the step land when every thread has stopped, in the order issued;
//!   the handlers they start run in the same step.
//! - The alternatives of a choice, the right side of an interrupt and the scene's root start
//!   *ready*: they are expanded through structure (`;`, `‖`, labels, matches, non-tail calls)
//!   but no internal action with an effect runs until a step commits to them.
//! - Taking a step inside a choice's alternative resolves the choice to it; inside an
//!   interrupt's right side, discards the left.

use crate::eval::{EvalError, eval, eval_args};
use hilbert_certificates::ir::*;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A subterm. Children are shared, so that a step copies only the path it rewrites and the rest
/// of the next state is this state's own subterms (equal values either way: sharing changes no
/// rule, only what a copy costs).
pub type Sub = Arc<Term>;

/// An instance's parameters and channels, shared by every state that holds the instance (they
/// are fixed from the call on, but for a tail call, which makes new ones).
pub type Params = std::sync::Arc<[Value]>;

/// At most this many nodes executed in one macro-step; beyond it the step diverges.
pub const MACRO_STEP_FUEL: u32 = 100_000;

/// At most this many terms nested while one macro-step runs; beyond it the step diverges
/// (a loop that forks without ever communicating).
pub const MAX_NESTING: u32 = 1_000;

/// A believed atom: the agent's own `f(v, …)`, or `B(j) f(v, …)` after a tell.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Atom {
    /// `None` for the agent's own belief, `Some(j)` for `B(j) …`.
    pub told: Option<AgentId>,
    /// The predicate (in the agent that holds it: the agent itself, or `j`).
    pub belief: BeliefId,
    /// The fields.
    pub args: Vec<Value>,
}

/// Why a thread can never move again although it has not ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// A `match` whose value matches no arm and which has no `other`.
    NoArm(NodeId),
    /// Integer arithmetic left the 64-bit range (a bound, not a property of the plan).
    Overflow(NodeId),
    /// Division or remainder by zero.
    DivisionByZero(NodeId),
    /// A macro-step ran more than [`MACRO_STEP_FUEL`] internal actions.
    Diverged,
    /// The IR is malformed at this node (a call with no static instance, a missing plan…).
    Malformed(NodeId),
}

/// Whether a thread is executing or waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Executes internal actions at the next settle.
    Running,
    /// Waits for a step.
    Ready,
    /// Waits, inside a step, for the command it issued (numbered within the step) to land; it
    /// goes on (running) once that command has landed. No state holds a waiting thread.
    Waiting(u32),
}

/// What a [`Term::Handling`] becomes when its handlers have finished.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum After {
    /// The label or instance has ended.
    End,
    /// Suspended, keeping this continuation.
    Suspend(Sub),
    /// Continues this process.
    Continue(Sub),
    /// Starts this process afresh.
    Restart(Sub),
}

/// A process term.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// Ended.
    Done,
    /// Can never move.
    Faulted(Fault),
    /// A thread of instance `inst`: `stack` holds the nodes still to run, last on top.
    Thread {
        /// The static instance whose code this is.
        inst: u32,
        /// The plan of that instance whose code this is.
        plan: PlanId,
        /// Nodes still to run; the top is the next.
        stack: Vec<NodeId>,
        /// The slots.
        env: Vec<Value>,
        /// Running or ready.
        mode: Mode,
    },
    /// Runs the first term, then the continuation thread.
    Then(Sub, Sub),
    /// Parallel composition.
    Par(Vec<Sub>),
    /// An unresolved external choice.
    Choice(Vec<Sub>),
    /// `P △ Q`, before Q has taken a step.
    Interrupt(Sub, Sub),
    /// A stopped process, waiting for `resume` (the body of a label or instance).
    Suspended(Sub),
    /// A labelled process.
    Label {
        /// The instance whose label it is.
        inst: u32,
        /// Which label.
        label: LabelId,
        /// The process.
        body: Sub,
        /// The process as it started, for `restart`.
        start: Sub,
    },
    /// A plan instance: its plan and parameters (with its channels) as the handlers see them.
    Inst {
        /// The static instance.
        inst: u32,
        /// Its current plan (a tail call changes it).
        plan: PlanId,
        /// Its parameters and channels (slots `0..params+channels`).
        params: Params,
        /// Its process.
        body: Sub,
    },
    /// Handlers running for a command, then what comes after.
    Handling {
        /// The handlers.
        body: Sub,
        /// What follows when they finish.
        then: After,
    },
}

/// One state of a network.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    /// The process.
    pub term: Term,
    /// The agent's beliefs.
    pub beliefs: BTreeSet<Atom>,
}

impl State {
    /// Whether every process has ended.
    pub fn finished(&self) -> bool {
        self.term == Term::Done
    }
}

/// Whether no command from outside is under way at the scene's root: the scene has finished,
/// or its root instance is not running handlers (`docs/semantics.md`, "Commands from outside").
/// A scene faulted as a whole (a command from outside that diverged) is not settled.
pub fn settled(term: &Term) -> bool {
    match term {
        Term::Done => true,
        Term::Inst { body, .. } => !matches!(**body, Term::Handling { .. }),
        _ => false,
    }
}

/// Whether the scene's root instance is suspended (a stop from outside has completed).
pub fn suspended(term: &Term) -> bool {
    matches!(term, Term::Inst { body, .. } if matches!(**body, Term::Suspended(_)))
}

/// What a step did, for counterexamples and tell feasibility.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Atoms added, in order.
    pub added: Vec<Atom>,
    /// Atoms removed (that were believed), in order.
    pub removed: Vec<Atom>,
    /// Each tell executed: the plan, its number, and whether it was feasible at that moment.
    pub tells: Vec<(PlanId, u32, bool)>,
    /// Whether an integer bound was passed.
    pub overflow: bool,
    /// How many commands (`stop`, `abort`, …) the step issued.
    pub commands: u32,
}

/// What a step was.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A τ-step of one thread (instance index).
    Tau {
        /// The instance that moved.
        inst: u32,
    },
    /// A rendezvous.
    Sync {
        /// The sending instance.
        sender: u32,
        /// The receiving instance.
        receiver: u32,
        /// The channel.
        chan: Value,
        /// The value passed.
        value: Value,
    },
    /// The scene's plan was aborted from outside (the release obligation).
    Abort,
}

/// A step: what happened, its effects and the state it leads to.
#[derive(Clone, Debug)]
pub struct Step {
    /// The event.
    pub event: Event,
    /// Its effects.
    pub effects: Effects,
    /// The next state.
    pub next: State,
    /// How many internal actions and commands the step ran (its cost beyond copying the state).
    pub work: u64,
}

/// The reference semantics of one network.
pub struct Semantics<'a> {
    net: &'a Network,
    agent: &'a Agent,
    /// Per node, the work of executing it once: one, plus the size of the expressions it
    /// evaluates (a hostile IR may evaluate a long chain at every node of a macro-step).
    costs: Vec<u64>,
    /// The most work one step may do (its nodes' [`Semantics::costs`], the term it searches for
    /// each landing command, the paths of its offers) before it is cut short and reported as
    /// over: the kernel sets its whole budget here ([`Semantics::with_work_cap`]), so that no
    /// step does unbounded work before it is charged. Not part of the semantics: a step cut
    /// short is never used, only refused as over budget.
    work_cap: u64,
}

/// A ready thread's offer, with the path to it.
#[derive(Clone, Debug)]
struct Offer {
    path: Vec<usize>,
    inst: u32,
    kind: OfferKind,
}

#[derive(Clone, Debug)]
enum OfferKind {
    Tau,
    Send(Value, Value),
    Recv(Value),
}

/// What firing does at a ready thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A τ-step: the thread runs on (or a finished alternative is taken).
    Tau,
    /// The thread's send is taken.
    Pop,
    /// The thread's receive takes this value.
    Receive(Value),
}

/// A step not yet taken: its event, and what it does at each thread it moves (by the thread's
/// path: the index of each child from the root, in the order of `children`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    /// The event.
    pub event: Event,
    /// What it does at each thread it moves, by the thread's path.
    pub actions: Vec<(Vec<usize>, Action)>,
}

struct Ctx<'b> {
    beliefs: &'b mut BTreeSet<Atom>,
    effects: Effects,
    /// Queued commands: (number within the step, from 1; issuing instance; command; target).
    commands: Vec<(u32, u32, Command, Target)>,
    /// The number the next queued command gets.
    issued: u32,
    tail_calls: Vec<(u32, PlanId, Params)>,
    fuel: u32,
    depth: u32,
    /// Whether the step ran out of its fuel or nesting (it diverged: docs/semantics.md).
    diverged: bool,
    /// The step's work beyond its fuel (nodes' expressions, searches for command targets), and
    /// its cap: past the cap the fuel is spent at once, so the step ends soon, and it is over.
    work: u64,
    cap: u64,
}

impl<'b> Ctx<'b> {
    /// A step's context at its start, with these commands queued.
    fn new(
        beliefs: &'b mut BTreeSet<Atom>,
        commands: Vec<(u32, u32, Command, Target)>,
        cap: u64,
    ) -> Self {
        let (issued, tail_calls, fuel, effects) =
            (1, Vec::new(), MACRO_STEP_FUEL, Effects::default());
        let (depth, diverged, work) = (0, false, 0);
        Ctx {
            beliefs,
            effects,
            commands,
            issued,
            tail_calls,
            fuel,
            depth,
            diverged,
            work,
            cap,
        }
    }

    /// Charges `n` units of work; past the cap, the step is cut short.
    fn charge(&mut self, n: u64) {
        self.work = self.work.saturating_add(n);
        if self.work > self.cap {
            self.fuel = 0;
        }
    }

    /// The step's work: its fuel spent and the rest, or more than the cap when it was cut short.
    fn total_work(&self) -> u64 {
        let work = self
            .work
            .saturating_add(u64::from(MACRO_STEP_FUEL - self.fuel));
        if self.work > self.cap {
            self.cap.saturating_add(1).max(work)
        } else {
            work
        }
    }
}

impl<'a> Semantics<'a> {
    /// The semantics of `net`, whose agent is `agent`.
    pub fn new(net: &'a Network, agent: &'a Agent) -> Semantics<'a> {
        let costs = net.nodes.iter().map(node_cost).collect();
        Semantics {
            net,
            agent,
            costs,
            work_cap: u64::MAX,
        }
    }

    /// This semantics with at most `cap` units of work in one step (see `work_cap`): a step
    /// that would do more stops early and reports more than `cap` as its work.
    pub fn with_work_cap(mut self, cap: u64) -> Self {
        self.work_cap = cap;
        self
    }

    fn plan(&self, id: PlanId) -> Option<&'a PlanCode> {
        self.net.plans.get(id.0 as usize)
    }

    pub(crate) fn node(&self, id: NodeId) -> Option<&'a Node> {
        self.net.nodes.get(id.0 as usize)
    }

    /// A fresh environment for `plan` in instance `inst` with these parameters.
    fn fresh_env(&self, inst: u32, plan: PlanId, params: Vec<Value>) -> Option<Vec<Value>> {
        let code = self.plan(plan)?;
        let mut env = params;
        env.resize(code.slots as usize, Value::Int(0));
        for (index, (slot, _)) in code.channels.iter().enumerate() {
            *env.get_mut(slot.0 as usize)? = Value::Chan {
                instance: inst,
                plan,
                index: index as u32,
            };
        }
        Some(env)
    }

    /// An instance's process started afresh (for `restart self`): a new thread of its plan's
    /// body over the instance's parameters, with its channels made again.
    fn instance_start(&self, inst: u32, plan: PlanId, params: &[Value]) -> Option<Sub> {
        let code = self.plan(plan)?;
        let args = params.get(..code.params.len())?.to_vec();
        let env = self.fresh_env(inst, plan, args)?;
        Some(self.new_thread(inst, plan, code.body, &env))
    }

    /// The prefix of an environment that handlers see: parameters and channels.
    fn handler_params(&self, plan: PlanId, env: &[Value]) -> Params {
        let n = self
            .plan(plan)
            .map_or(0, |c| c.params.len() + c.channels.len());
        env[..n.min(env.len())].into()
    }

    /// The scene `scene(call(root), empty)`: the root plan called with the binding's arguments,
    /// ready, and no beliefs.
    pub fn initial(&self) -> State {
        let params: Vec<Value> = self.net.root_args.iter().map(Value::of).collect();
        let term = match self.fresh_env(0, self.net.root, params) {
            None => Term::Faulted(Fault::Malformed(NodeId(0))),
            Some(env) => {
                let body = self.plan(self.net.root).map_or(NodeId(0), |p| p.body);
                let hp = self.handler_params(self.net.root, &env);
                let thread = Term::Thread {
                    inst: 0,
                    plan: self.net.root,
                    stack: vec![body],
                    env,
                    mode: Mode::Ready,
                };
                // A plan that ends before its first step has finished.
                let body = self.expand(thread);
                if *body == Term::Done {
                    Term::Done
                } else {
                    Term::Inst {
                        inst: 0,
                        plan: self.net.root,
                        params: hp,
                        body,
                    }
                }
            }
        };
        State {
            term,
            beliefs: BTreeSet::new(),
        }
    }

    /// Every step from `state`, in a fixed order (τ-steps and rendezvous by position).
    pub fn steps(&self, state: &State) -> Vec<Step> {
        let candidates = self.candidates(state, &mut |_| true).unwrap_or_default();
        candidates.iter().map(|c| self.fire(state, c)).collect()
    }

    /// What can happen in `state`, in the order of [`Semantics::steps`]: each ready thread's
    /// τ-step, in the order of the threads, then each rendezvous, by its sender's position and
    /// then its receiver's. Listing the offers costs the term's size and each offer's path and
    /// value, and each pair of offers compared one unit: charged to `spend` as they are made;
    /// `None` when it says no.
    pub fn candidates(
        &self,
        state: &State,
        spend: &mut dyn FnMut(u64) -> bool,
    ) -> Option<Vec<Candidate>> {
        // The listing stops once it has cost the step's cap.
        let mut offers = Vec::new();
        let mut listed = term_size(&state.term) + state.beliefs.len() as u64;
        self.collect_offers(&state.term, &mut Vec::new(), &mut offers, &mut listed);
        if !spend(listed) || listed > self.work_cap {
            return None;
        }
        let mut out = Vec::new();
        for o in &offers {
            if let OfferKind::Tau = o.kind {
                out.push(Candidate {
                    event: Event::Tau { inst: o.inst },
                    actions: vec![(o.path.clone(), Action::Tau)],
                });
            }
        }
        for s in &offers {
            let OfferKind::Send(chan, value) = &s.kind else {
                continue;
            };
            for r in &offers {
                if !spend(1) {
                    return None;
                }
                let OfferKind::Recv(rchan) = &r.kind else {
                    continue;
                };
                if rchan != chan || !diverge_at_par(&state.term, &s.path, &r.path) {
                    continue;
                }
                out.push(Candidate {
                    event: Event::Sync {
                        sender: s.inst,
                        receiver: r.inst,
                        chan: chan.clone(),
                        value: value.clone(),
                    },
                    actions: vec![
                        (s.path.clone(), Action::Pop),
                        (r.path.clone(), Action::Receive(value.clone())),
                    ],
                });
            }
        }
        Some(out)
    }

    /// The state reached by a command landing on the scene's root instance from outside (the
    /// runtime's commitment law and subgoals: abort, stop, resume).
    pub fn command_root(&self, state: &State, command: Command) -> Step {
        let mut beliefs = state.beliefs.clone();
        let mut ctx = Ctx::new(
            &mut beliefs,
            vec![(0, 0, command, Target::SelfInstance)],
            self.work_cap,
        );
        ctx.charge(term_size(&state.term));
        let term = self.land_commands(Arc::new(state.term.clone()), &mut ctx);
        let work = ctx.total_work();
        if ctx.diverged {
            // A command from outside that diverges faults the whole scene, its beliefs as
            // they were (docs/semantics.md, "Divergence").
            return Step {
                event: Event::Abort,
                effects: Effects::default(),
                next: State {
                    term: Term::Faulted(Fault::Diverged),
                    beliefs: state.beliefs.clone(),
                },
                work,
            };
        }
        let mut effects = ctx.effects;
        effects.commands = ctx.issued - 1;
        Step {
            event: Event::Abort,
            effects,
            next: State {
                term: Arc::unwrap_or_clone(term),
                beliefs,
            },
            work,
        }
    }

    /// The step `candidate` (one of [`Semantics::candidates`] of `state`) makes.
    pub fn fire(&self, state: &State, candidate: &Candidate) -> Step {
        let (event, actions) = (candidate.event.clone(), &candidate.actions);
        let mut beliefs = state.beliefs.clone();
        let term = self.fire_at(Arc::new(state.term.clone()), actions, 0, false);
        let mut ctx = Ctx::new(&mut beliefs, Vec::new(), self.work_cap);
        let term = self.settle(term, &mut ctx);
        let term = self.land_commands(term, &mut ctx);
        let work = ctx.total_work();
        if ctx.diverged {
            // A diverging step is taken and its takers fault; nothing else it did stays
            // (docs/semantics.md, "Divergence").
            return Step {
                event,
                effects: Effects::default(),
                next: State {
                    term: Arc::unwrap_or_clone(self.fire_at(
                        Arc::new(state.term.clone()),
                        actions,
                        0,
                        true,
                    )),
                    beliefs: state.beliefs.clone(),
                },
                work,
            };
        }
        let mut effects = ctx.effects;
        effects.commands = ctx.issued - 1;
        Step {
            event,
            effects,
            next: State {
                term: Arc::unwrap_or_clone(term),
                beliefs,
            },
            work,
        }
    }

    /// Lands the queued commands one by one, until none is left: each lands, its issuer stops
    /// waiting, and a settle runs what can run. When the step's fuel is spent, every thread
    /// still waiting faults in place (its command is dropped); the rest of the term is kept.
    fn land_commands(&self, mut term: Sub, ctx: &mut Ctx) -> Sub {
        while !ctx.commands.is_empty() {
            let (number, issuer, command, target) = ctx.commands.remove(0);
            // Landing searches the term for the target, releases the issuer and settles: work
            // in the term's size, charged before it is done (past the cap, the fuel is spent).
            ctx.charge(term_size(&term));
            if ctx.fuel == 0 {
                ctx.diverged = true;
                ctx.commands.clear();
                return term;
            }
            ctx.fuel -= 1;
            term = self.apply_command(term, issuer, command, target);
            term = map_waiting(term, &mut |mut t| {
                if matches!(&*t, Term::Thread { mode, .. } if *mode == Mode::Waiting(number))
                    && let Term::Thread { mode, .. } = Arc::make_mut(&mut t)
                {
                    *mode = Mode::Running;
                }
                t
            });
            term = self.settle(term, ctx);
        }
        term
    }

    fn apply_command(&self, term: Sub, issuer: u32, command: Command, target: Target) -> Sub {
        let is_target = |t: &Term| match (target, t) {
            (Target::Label(l), Term::Label { inst, label, .. }) => *inst == issuer && *label == l,
            (Target::SelfInstance, Term::Inst { inst, .. }) => *inst == issuer,
            _ => false,
        };
        self.rewrite_first(term, &is_target, &|t| self.commanded(t, command))
    }

    /// Rewrites the first (outermost, leftmost) started subterm satisfying `pred` with `f`
    /// (`contains` says which subterms have started).
    fn rewrite_first(
        &self,
        term: Sub,
        pred: &dyn Fn(&Term) -> bool,
        f: &dyn Fn(Sub) -> Sub,
    ) -> Sub {
        if pred(&term) {
            return f(term);
        }
        match &*term {
            // Not started: an unresolved choice's alternatives, an unmoved interrupt's right side.
            Term::Choice(_) => return term,
            Term::Interrupt(p, q) => {
                if !contains(p, pred) {
                    return term;
                }
                let p = self.rewrite_first(p.clone(), pred, f);
                return Arc::new(Term::Interrupt(p, q.clone()));
            }
            _ => {}
        }
        let mut done = false;
        map_children(term, &mut |child| {
            if done || !contains(&child, pred) {
                child
            } else {
                done = true;
                self.rewrite_first(child, pred, f)
            }
        })
    }

    /// What a command does to its target (a label or an instance).
    fn commanded(&self, target: Sub, command: Command) -> Sub {
        let (body, start) = match &*target {
            Term::Label { body, start, .. } => (body.clone(), Some(start.clone())),
            Term::Inst {
                inst,
                plan,
                params,
                body,
            } => (body.clone(), self.instance_start(*inst, *plan, params)),
            _ => return target,
        };
        let then = match (command, &*body) {
            // Being aborted or restarted: nothing changes that. Being stopped or resumed: only
            // `abort` and `restart` land, cutting those handlers short.
            (
                _,
                Term::Handling {
                    then: After::End | After::Restart(_),
                    ..
                },
            ) => return target,
            (Command::Stop | Command::Resume, Term::Handling { .. }) => return target,
            (Command::Stop, Term::Suspended(_)) => return target,
            (Command::Resume, Term::Suspended(saved)) => After::Continue(saved.clone()),
            (Command::Resume, _) => return target,
            (Command::Stop, _) => After::Suspend(body),
            (Command::Abort, _) => After::End,
            (Command::Restart, _) => match start {
                Some(s) => After::Restart(s),
                None => After::End,
            },
        };
        let handling = Arc::new(Term::Handling {
            body: self.handlers_of(&target, command),
            then,
        });
        Arc::new(match &*target {
            Term::Label {
                inst, label, start, ..
            } => Term::Label {
                inst: *inst,
                label: *label,
                body: handling,
                start: start.clone(),
            },
            Term::Inst {
                inst, plan, params, ..
            } => Term::Inst {
                inst: *inst,
                plan: *plan,
                params: params.clone(),
                body: handling,
            },
            other => other.clone(),
        })
    }

    /// The handlers a command runs: those of the started instances in `target` (itself
    /// included, when it is an instance) in post-order (innermost first, siblings left to
    /// right), as one sequence of running threads. `stop` and `resume` leave out instances that
    /// are stopped on their own (inside the target's process, not the target itself).
    fn handlers_of(&self, target: &Term, command: Command) -> Sub {
        let skip_stopped = matches!(command, Command::Stop | Command::Resume);
        let mut instances = Vec::new();
        // The target's process, out of its own suspension (for `resume`), then the target.
        if let Term::Label { body, .. } | Term::Inst { body, .. } = target {
            let inside: &Term = match &**body {
                Term::Suspended(kept) => kept,
                _ => body,
            };
            collect_instances(inside, skip_stopped, &mut instances);
        }
        if let Term::Inst {
            inst, plan, params, ..
        } = target
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
                let mut env = params.to_vec();
                env.resize(code.slots as usize, Value::Int(0));
                threads.push(Term::Thread {
                    inst,
                    plan,
                    stack: vec![node],
                    env,
                    mode: Mode::Running,
                });
            }
        }
        let mut term = Arc::new(Term::Done);
        for t in threads.into_iter().rev() {
            term = Arc::new(if *term == Term::Done {
                t
            } else {
                Term::Then(Arc::new(t), term)
            });
        }
        term
    }

    /// Expands a new thread through structure without running anything that has an effect: the
    /// result is ready (or ended).
    fn expand(&self, term: Term) -> Sub {
        let mut beliefs = BTreeSet::new();
        let mut ctx = Ctx::new(&mut beliefs, Vec::new(), self.work_cap);
        self.run(Arc::new(term), &mut ctx, false)
    }

    /// Runs every running thread until it is ready or ended, and normalises what ended.
    fn settle(&self, term: Sub, ctx: &mut Ctx) -> Sub {
        self.run(term, ctx, true)
    }

    /// `effects`: whether internal actions with effects may run (a committed step), or only
    /// structure (expanding a thread no step has chosen yet).
    fn run(&self, term: Sub, ctx: &mut Ctx, effects: bool) -> Sub {
        if ctx.depth >= MAX_NESTING {
            ctx.diverged = true;
            return Arc::new(Term::Faulted(Fault::Diverged));
        }
        ctx.depth += 1;
        let result = self.run_inner(term, ctx, effects);
        ctx.depth -= 1;
        result
    }

    /// A subterm that a run leaves as it was is returned as it was (the same shared value).
    fn run_inner(&self, term: Sub, ctx: &mut Ctx, effects: bool) -> Sub {
        let same = |a: &Sub, b: &Sub| Arc::ptr_eq(a, b);
        match &*term {
            Term::Done | Term::Faulted(_) | Term::Suspended(_) => term,
            Term::Thread {
                inst,
                plan,
                stack,
                env,
                mode,
            } => {
                if (*mode == Mode::Ready && effects) || matches!(mode, Mode::Waiting(_)) {
                    // A ready thread waits for its step; a waiting one for its command.
                    return term;
                }
                self.run_thread(*inst, *plan, stack.clone(), env.clone(), ctx, effects)
            }
            Term::Then(first, rest) => {
                let f = self.run(first.clone(), ctx, effects);
                if *f == Term::Done {
                    self.run(rest.clone(), ctx, effects)
                } else if same(&f, first) {
                    term
                } else {
                    Arc::new(Term::Then(f, rest.clone()))
                }
            }
            Term::Par(children) => {
                let ran: Vec<Sub> = children
                    .iter()
                    .map(|c| self.run(c.clone(), ctx, effects))
                    .collect();
                if ran.iter().all(|c| **c == Term::Done) {
                    Arc::new(Term::Done)
                } else if ran.iter().zip(children).all(|(a, b)| same(a, b)) {
                    term
                } else {
                    Arc::new(Term::Par(ran))
                }
            }
            Term::Choice(alts) => {
                // Alternatives never run effects before a step resolves the choice.
                let ran: Vec<Sub> = alts
                    .iter()
                    .map(|a| self.run(a.clone(), ctx, false))
                    .collect();
                if ran.iter().zip(alts).all(|(a, b)| same(a, b)) {
                    term
                } else {
                    Arc::new(Term::Choice(ran))
                }
            }
            Term::Interrupt(p, q) => {
                let p2 = self.run(p.clone(), ctx, effects);
                if *p2 == Term::Done {
                    return p2;
                }
                let q2 = self.run(q.clone(), ctx, false);
                if same(&p2, p) && same(&q2, q) {
                    term
                } else {
                    Arc::new(Term::Interrupt(p2, q2))
                }
            }
            Term::Label {
                inst,
                label,
                body,
                start,
            } => {
                let b = self.run(body.clone(), ctx, effects);
                if *b == Term::Done {
                    b
                } else if same(&b, body) {
                    term
                } else {
                    Arc::new(Term::Label {
                        inst: *inst,
                        label: *label,
                        body: b,
                        start: start.clone(),
                    })
                }
            }
            Term::Inst {
                inst,
                plan,
                params,
                body,
            } => {
                let (mut new_plan, mut new_params) = (*plan, None);
                let mut b = self.run(body.clone(), ctx, effects);
                // A tail call of a thread of this instance makes the instance the callee's.
                while let Some(i) = ctx.tail_calls.iter().position(|(t, _, _)| t == inst) {
                    let (_, p, ps) = ctx.tail_calls.remove(i);
                    new_plan = p;
                    new_params = Some(ps);
                    b = self.run(b, ctx, effects);
                }
                if *b == Term::Done {
                    b
                } else if same(&b, body) && new_params.is_none() {
                    term
                } else {
                    Arc::new(Term::Inst {
                        inst: *inst,
                        plan: new_plan,
                        params: new_params.unwrap_or_else(|| params.clone()),
                        body: b,
                    })
                }
            }
            Term::Handling { body, then } => {
                let b = self.run(body.clone(), ctx, effects);
                if *b != Term::Done {
                    if same(&b, body) {
                        return term;
                    }
                    return Arc::new(Term::Handling {
                        body: b,
                        then: then.clone(),
                    });
                }
                match then {
                    After::End => b,
                    After::Suspend(saved) => Arc::new(Term::Suspended(saved.clone())),
                    After::Continue(saved) => self.run(saved.clone(), ctx, effects),
                    After::Restart(start) => self.run(start.clone(), ctx, effects),
                }
            }
        }
    }

    fn run_thread(
        &self,
        inst: u32,
        mut plan: PlanId,
        mut stack: Vec<NodeId>,
        mut env: Vec<Value>,
        ctx: &mut Ctx,
        effects: bool,
    ) -> Sub {
        let ready = |plan: PlanId, stack: Vec<NodeId>, env: Vec<Value>| {
            Arc::new(Term::Thread {
                inst,
                plan,
                stack,
                env,
                mode: Mode::Ready,
            })
        };
        loop {
            let Some(&top) = stack.last() else {
                return Arc::new(Term::Done);
            };
            if ctx.fuel == 0 {
                ctx.diverged = true;
                return Arc::new(Term::Faulted(Fault::Diverged));
            }
            ctx.fuel -= 1;
            ctx.charge(self.costs.get(top.0 as usize).copied().unwrap_or(1));
            let Some(node) = self.node(top) else {
                return Arc::new(Term::Faulted(Fault::Malformed(top)));
            };
            match node {
                Node::Skip => {
                    stack.pop();
                }
                Node::Stop | Node::Send { .. } | Node::Recv { .. } => {
                    return ready(plan, stack, env);
                }
                Node::Believe(_) | Node::Forget(_) | Node::Tell { .. } | Node::Command { .. }
                    if !effects =>
                {
                    return ready(plan, stack, env);
                }
                Node::Believe(atom) | Node::Forget(atom) => {
                    let Some(args) = eval_args(&atom.args, &env) else {
                        return self.fault_at(top, &atom.args, &env, ctx);
                    };
                    let a = Atom {
                        told: None,
                        belief: atom.belief,
                        args,
                    };
                    if matches!(node, Node::Believe(_)) {
                        if ctx.beliefs.insert(a.clone()) {
                            ctx.effects.added.push(a);
                        }
                    } else if ctx.beliefs.remove(&a) {
                        ctx.effects.removed.push(a);
                    }
                    stack.pop();
                }
                Node::Tell {
                    agent,
                    atom,
                    own,
                    index,
                } => {
                    let Some(args) = eval_args(&atom.args, &env) else {
                        return self.fault_at(top, &atom.args, &env, ctx);
                    };
                    let told = Atom {
                        told: Some(*agent),
                        belief: atom.belief,
                        args: args.clone(),
                    };
                    let believes = own.is_some_and(|b| {
                        ctx.beliefs.contains(&Atom {
                            told: None,
                            belief: b,
                            args: args.clone(),
                        })
                    });
                    let feasible = believes && !ctx.beliefs.contains(&told);
                    ctx.effects.tells.push((plan, *index, feasible));
                    if ctx.beliefs.insert(told.clone()) {
                        ctx.effects.added.push(told);
                    }
                    stack.pop();
                }
                Node::Command { command, target } => {
                    // The command lands before the thread goes on: the thread waits for it
                    // (and for it alone), so that a command on its own instance (`self`) or on
                    // a label around it finds its target, and what follows the command runs
                    // only if the target was elsewhere (or, after `stop`, when it is resumed).
                    let number = ctx.issued;
                    ctx.issued += 1;
                    ctx.commands.push((number, inst, *command, *target));
                    stack.pop();
                    return Arc::new(Term::Thread {
                        inst,
                        plan,
                        stack,
                        env,
                        mode: Mode::Waiting(number),
                    });
                }
                Node::Seq(a, b) => {
                    stack.pop();
                    stack.push(*b);
                    stack.push(*a);
                }
                Node::Match {
                    scrutinee,
                    arms,
                    other,
                } => {
                    let value = match eval(scrutinee, &env) {
                        Ok(v) => v,
                        Err(e) => return self.fault(top, e, ctx),
                    };
                    let arm = arms
                        .iter()
                        .find(|(lit, _)| Value::of(lit) == value)
                        .map(|(_, n)| *n)
                        .or(*other);
                    let Some(arm) = arm else {
                        return Arc::new(Term::Faulted(Fault::NoArm(top)));
                    };
                    stack.pop();
                    stack.push(arm);
                }
                Node::Call {
                    plan: callee,
                    args,
                    tail,
                } => {
                    if *tail && !effects {
                        // Committing to a tail call is the alternative's first step: its
                        // arguments are evaluated then, not while expanding (docs/semantics.md).
                        return ready(plan, stack, env);
                    }
                    let mut params = Vec::with_capacity(args.len());
                    for a in args {
                        let v = match a {
                            Arg::Value(e) => match eval(e, &env) {
                                Ok(v) => v,
                                Err(err) => return self.fault(top, err, ctx),
                            },
                            Arg::Chan(slot) => match env.get(slot.0 as usize) {
                                Some(v) => v.clone(),
                                None => return Arc::new(Term::Faulted(Fault::Malformed(top))),
                            },
                        };
                        params.push(v);
                    }
                    stack.pop();
                    if *tail {
                        let Some(new_env) = self.fresh_env(inst, *callee, params) else {
                            return Arc::new(Term::Faulted(Fault::Malformed(top)));
                        };
                        let hp = self.handler_params(*callee, &new_env);
                        ctx.tail_calls.push((inst, *callee, hp));
                        let Some(code) = self.plan(*callee) else {
                            return Arc::new(Term::Faulted(Fault::Malformed(top)));
                        };
                        plan = *callee;
                        stack = vec![code.body];
                        env = new_env;
                        continue;
                    }
                    let Some(child) = self.net.child(inst, top) else {
                        return Arc::new(Term::Faulted(Fault::Malformed(top)));
                    };
                    let Some(child_env) = self.fresh_env(child, *callee, params) else {
                        return Arc::new(Term::Faulted(Fault::Malformed(top)));
                    };
                    let Some(code) = self.plan(*callee) else {
                        return Arc::new(Term::Faulted(Fault::Malformed(top)));
                    };
                    let hp = self.handler_params(*callee, &child_env);
                    let inner = Arc::new(Term::Thread {
                        inst: child,
                        plan: *callee,
                        stack: vec![code.body],
                        env: child_env,
                        mode: Mode::Running,
                    });
                    let instance = Term::Inst {
                        inst: child,
                        plan: *callee,
                        params: hp,
                        body: inner,
                    };
                    return self.compound(instance, inst, plan, stack, env, ctx, effects);
                }
                Node::Par(children) => {
                    let children = children
                        .iter()
                        .map(|c| self.new_thread(inst, plan, *c, &env))
                        .collect();
                    stack.pop();
                    return self.compound(
                        Term::Par(children),
                        inst,
                        plan,
                        stack,
                        env,
                        ctx,
                        effects,
                    );
                }
                Node::Choice(alts) => {
                    let alts = alts
                        .iter()
                        .map(|c| self.new_thread(inst, plan, *c, &env))
                        .collect();
                    stack.pop();
                    return self.compound(Term::Choice(alts), inst, plan, stack, env, ctx, effects);
                }
                Node::Interrupt(p, q) => {
                    let t = Term::Interrupt(
                        self.new_thread(inst, plan, *p, &env),
                        self.new_thread(inst, plan, *q, &env),
                    );
                    stack.pop();
                    return self.compound(t, inst, plan, stack, env, ctx, effects);
                }
                Node::Label(label, body) => {
                    let start = self.new_thread(inst, plan, *body, &env);
                    let t = Term::Label {
                        inst,
                        label: *label,
                        body: start.clone(),
                        start,
                    };
                    stack.pop();
                    return self.compound(t, inst, plan, stack, env, ctx, effects);
                }
            }
        }
    }

    /// A new running thread at `node` with a copy of `env`.
    fn new_thread(&self, inst: u32, plan: PlanId, node: NodeId, env: &[Value]) -> Sub {
        Arc::new(Term::Thread {
            inst,
            plan,
            stack: vec![node],
            env: env.to_vec(),
            mode: Mode::Running,
        })
    }

    /// Runs a compound term, then (if anything is left of the thread) the rest of the thread.
    #[allow(clippy::too_many_arguments)]
    fn compound(
        &self,
        term: Term,
        inst: u32,
        plan: PlanId,
        stack: Vec<NodeId>,
        env: Vec<Value>,
        ctx: &mut Ctx,
        effects: bool,
    ) -> Sub {
        let term = if stack.is_empty() {
            term
        } else {
            let rest = Term::Thread {
                inst,
                plan,
                stack,
                env,
                mode: Mode::Running,
            };
            Term::Then(Arc::new(term), Arc::new(rest))
        };
        self.run(Arc::new(term), ctx, effects)
    }

    fn fault(&self, node: NodeId, e: EvalError, ctx: &mut Ctx) -> Sub {
        Arc::new(Term::Faulted(match e {
            EvalError::Overflow => {
                ctx.effects.overflow = true;
                Fault::Overflow(node)
            }
            EvalError::DivisionByZero => Fault::DivisionByZero(node),
            EvalError::Malformed => Fault::Malformed(node),
        }))
    }

    fn fault_at(&self, node: NodeId, args: &[Expr], env: &[Value], ctx: &mut Ctx) -> Sub {
        for a in args {
            if let Err(e) = eval(a, env) {
                return self.fault(node, e, ctx);
            }
        }
        Arc::new(Term::Faulted(Fault::Malformed(node)))
    }

    /// The agent of this network.
    pub fn agent(&self) -> &Agent {
        self.agent
    }
}

/// Applies `f` to each direct child of `term`; when every child comes back as it was (the same
/// shared subterm), so does the term.
fn map_children(term: Sub, f: &mut dyn FnMut(Sub) -> Sub) -> Sub {
    let mut changed = false;
    let mut g = |c: &Sub| {
        let d = f(c.clone());
        changed |= !Arc::ptr_eq(&d, c);
        d
    };
    let mapped = match &*term {
        Term::Then(a, b) => Term::Then(g(a), b.clone()),
        Term::Par(cs) => Term::Par(cs.iter().map(&mut g).collect()),
        Term::Choice(cs) => Term::Choice(cs.iter().map(&mut g).collect()),
        Term::Interrupt(p, q) => {
            let p = g(p);
            let q = g(q);
            Term::Interrupt(p, q)
        }
        Term::Suspended(t) => Term::Suspended(g(t)),
        Term::Label {
            inst,
            label,
            body,
            start,
        } => Term::Label {
            inst: *inst,
            label: *label,
            body: g(body),
            start: start.clone(),
        },
        Term::Inst {
            inst,
            plan,
            params,
            body,
        } => Term::Inst {
            inst: *inst,
            plan: *plan,
            params: params.clone(),
            body: g(body),
        },
        Term::Handling { body, then } => {
            // The body first, then the process a stop or resume keeps (the order of
            // `children`): commands reach the kept process there.
            let body = g(body);
            let then = match then {
                After::Suspend(s) => After::Suspend(g(s)),
                After::Continue(s) => After::Continue(g(s)),
                other => other.clone(),
            };
            Term::Handling { body, then }
        }
        _ => return term,
    };
    if changed { Arc::new(mapped) } else { term }
}

/// The direct children of a term, in order (the same order `map_children` visits).
fn children(term: &Term) -> Vec<&Term> {
    match term {
        Term::Then(a, _) => vec![a],
        Term::Par(cs) | Term::Choice(cs) => cs.iter().map(|c| &**c).collect(),
        Term::Interrupt(p, q) => vec![p, q],
        Term::Suspended(t) => vec![t],
        Term::Label { body, .. } | Term::Inst { body, .. } => vec![body],
        Term::Handling { body, then } => match then {
            After::Suspend(s) | After::Continue(s) => vec![body, s],
            _ => vec![body],
        },
        _ => vec![],
    }
}

/// Whether a started subterm satisfies `pred` (not inside an unresolved choice's alternatives
/// nor an unmoved interrupt's right side: a command finds no target there).
fn contains(term: &Term, pred: &dyn Fn(&Term) -> bool) -> bool {
    pred(term)
        || match term {
            Term::Choice(_) => false,
            Term::Interrupt(p, _) => contains(p, pred),
            _ => children(term).into_iter().any(|c| contains(c, pred)),
        }
}

/// The started instances in a term, in post-order (inner before outer, left before right),
/// with their plan and parameters. The alternatives of an unresolved choice and the right side
/// of an interrupt have not started; with `skip_stopped`, a suspended process and an instance
/// whose process is suspended are left out.
fn collect_instances(term: &Term, skip_stopped: bool, out: &mut Vec<(u32, PlanId, Params)>) {
    match term {
        Term::Choice(_) => {}
        Term::Suspended(_) if skip_stopped => {}
        Term::Interrupt(p, _) => collect_instances(p, skip_stopped, out),
        Term::Inst {
            inst,
            plan,
            params,
            body,
        } => {
            if skip_stopped && matches!(**body, Term::Suspended(_)) {
                return;
            }
            collect_instances(body, skip_stopped, out);
            out.push((*inst, *plan, params.clone()));
        }
        Term::Handling { then, .. } => {
            // Handlers already running are not run again; a process they keep is still inside.
            if let After::Suspend(s) | After::Continue(s) = then {
                collect_instances(s, skip_stopped, out);
            }
        }
        _ => {
            for c in children(term) {
                collect_instances(c, skip_stopped, out);
            }
        }
    }
}

/// Applies `f` to every waiting thread of `term` (wherever one can be: not in the
/// continuation of a `Then`, nor in a start kept for `restart`).
fn map_waiting(term: Sub, f: &mut dyn FnMut(Sub) -> Sub) -> Sub {
    match &*term {
        Term::Thread {
            mode: Mode::Waiting(_),
            ..
        } => f(term),
        _ => map_children(term, &mut |c| map_waiting(c, f)),
    }
}

impl Semantics<'_> {
    /// The offers of the ready threads a step can take. A suspended process offers nothing; a
    /// finished alternative of a choice (or right side of an interrupt) offers a τ.
    fn collect_offers(
        &self,
        term: &Term,
        path: &mut Vec<usize>,
        out: &mut Vec<Offer>,
        work: &mut u64,
    ) {
        if *work > self.work_cap {
            return;
        }
        let mut child = |i: usize, t: &Term, out: &mut Vec<Offer>, finished_is_tau: bool| {
            path.push(i);
            if finished_is_tau && *t == Term::Done {
                *work = work.saturating_add(path.len() as u64);
                out.push(Offer {
                    path: path.clone(),
                    inst: u32::MAX,
                    kind: OfferKind::Tau,
                });
            } else {
                self.collect_offers(t, path, out, work);
            }
            path.pop();
        };
        match term {
            Term::Done | Term::Faulted(_) | Term::Suspended(_) => {}
            Term::Thread {
                inst,
                stack,
                env,
                mode,
                ..
            } => {
                if *mode != Mode::Ready {
                    return;
                }
                let Some(&top) = stack.last() else {
                    return;
                };
                let Some(node) = self.node(top) else {
                    return;
                };
                // The offer's path and its value's evaluation, charged before they are made.
                let cost = self.costs.get(top.0 as usize).copied().unwrap_or(1);
                *work = work.saturating_add(cost.saturating_add(path.len() as u64));
                if *work > self.work_cap {
                    return;
                }
                let kind = match node {
                    Node::Stop => return,
                    Node::Send { chan, value } => {
                        let (Some(c), Ok(v)) = (env.get(chan.0 as usize), eval(value, env)) else {
                            return;
                        };
                        OfferKind::Send(c.clone(), v)
                    }
                    Node::Recv { chan, .. } => {
                        let Some(c) = env.get(chan.0 as usize) else {
                            return;
                        };
                        OfferKind::Recv(c.clone())
                    }
                    _ => OfferKind::Tau,
                };
                out.push(Offer {
                    path: path.clone(),
                    inst: *inst,
                    kind,
                });
            }
            Term::Then(a, _) => child(0, a, out, false),
            Term::Par(cs) => {
                for (i, c) in cs.iter().enumerate() {
                    child(i, c, out, false);
                }
            }
            Term::Choice(cs) => {
                for (i, c) in cs.iter().enumerate() {
                    child(i, c, out, true);
                }
            }
            Term::Interrupt(p, q) => {
                child(0, p, out, false);
                child(1, q, out, true);
            }
            Term::Label { body, .. } | Term::Inst { body, .. } | Term::Handling { body, .. } => {
                child(0, body, out, false)
            }
        }
    }
}

/// The work of executing `node` once: one, plus the size of each expression it evaluates.
fn node_cost(node: &Node) -> u64 {
    let atom = |a: &AtomExpr| a.args.iter().map(expr_size).sum::<u64>();
    1 + match node {
        Node::Send { value, .. } => expr_size(value),
        Node::Believe(a) | Node::Forget(a) => atom(a),
        Node::Tell { atom: a, .. } => atom(a),
        Node::Call { args, .. } => args
            .iter()
            .map(|a| match a {
                Arg::Value(e) => expr_size(e),
                Arg::Chan(_) => 1,
            })
            .sum(),
        Node::Match {
            scrutinee, arms, ..
        } => expr_size(scrutinee) + arms.len() as u64,
        Node::Par(ns) | Node::Choice(ns) => ns.len() as u64,
        _ => 0,
    }
}

/// The number of nodes of an expression (its evaluation's work).
fn expr_size(e: &Expr) -> u64 {
    match e {
        Expr::Literal(_) | Expr::Slot(_) => 1,
        Expr::Neg(a) | Expr::Not(a) => 1 + expr_size(a),
        Expr::Arith(_, a, b) | Expr::Compare(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            1 + expr_size(a) + expr_size(b)
        }
        Expr::Chain(a, rest) => {
            1 + expr_size(a) + rest.iter().map(|(_, b)| expr_size(b)).sum::<u64>()
        }
    }
}

/// The size of a term: its nodes, and each thread's stack and slots (what copying it costs).
pub fn term_size(term: &Term) -> u64 {
    let sum = |ts: &[&Term]| ts.iter().fold(1u64, |n, t| n.saturating_add(term_size(t)));
    match term {
        Term::Done | Term::Faulted(_) => 1,
        Term::Thread { stack, env, .. } => 1 + (stack.len() + env.len()) as u64,
        Term::Inst { params, body, .. } => sum(&[body]).saturating_add(params.len() as u64),
        Term::Then(a, b) | Term::Interrupt(a, b) => sum(&[a, b]),
        Term::Label { body, start, .. } => sum(&[body, start]),
        Term::Par(cs) | Term::Choice(cs) => sum(&cs.iter().map(|c| &**c).collect::<Vec<_>>()),
        Term::Suspended(t) => sum(&[t]),
        Term::Handling { body, then } => match then {
            After::End => sum(&[body]),
            After::Suspend(t) | After::Continue(t) | After::Restart(t) => sum(&[body, t]),
        },
    }
}

/// Whether two offer paths meet at a `‖` (and so may synchronise).
fn diverge_at_par(term: &Term, a: &[usize], b: &[usize]) -> bool {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if common == a.len() || common == b.len() {
        return false;
    }
    let mut t = term;
    for &i in &a[..common] {
        match children(t).get(i) {
            Some(c) => t = c,
            None => return false,
        }
    }
    matches!(t, Term::Par(_))
}

impl Semantics<'_> {
    /// Fires the actions at their paths: choices on the way resolve to the branch taken, an
    /// interrupt's right side taking a step discards the left, and each thread reached becomes
    /// running after its action — or, with `fault` (the step diverged), faults there.
    fn fire_at(
        &self,
        term: Sub,
        actions: &[(Vec<usize>, Action)],
        depth: usize,
        fault: bool,
    ) -> Sub {
        if let Some((_, action)) = actions.iter().find(|(p, _)| p.len() == depth) {
            if fault {
                return Arc::new(Term::Faulted(Fault::Diverged));
            }
            return match &*term {
                Term::Thread {
                    inst,
                    plan,
                    stack,
                    env,
                    ..
                } => {
                    let (mut stack, mut env) = (stack.clone(), env.clone());
                    match action {
                        Action::Tau => {}
                        Action::Pop | Action::Receive(_) => {
                            let top = stack.pop();
                            if let (Action::Receive(v), Some(Node::Recv { var, .. })) =
                                (action, top.and_then(|n| self.node(n)))
                                && let Some(slot) = env.get_mut(var.0 as usize)
                            {
                                *slot = v.clone();
                            }
                        }
                    }
                    Arc::new(Term::Thread {
                        inst: *inst,
                        plan: *plan,
                        stack,
                        env,
                        mode: Mode::Running,
                    })
                }
                // A finished alternative (or interrupting side) taking its τ: it is simply done.
                _ => term,
            };
        }
        let index = |i: usize| -> Vec<(Vec<usize>, Action)> {
            actions
                .iter()
                .filter(|(p, _)| p.get(depth) == Some(&i))
                .cloned()
                .collect()
        };
        let below = |i: usize| -> Vec<(Vec<usize>, Action)> {
            index(i)
                .into_iter()
                .map(|(mut p, a)| {
                    p.remove(depth);
                    (p, a)
                })
                .collect()
        };
        match &*term {
            Term::Choice(cs) => {
                let i = actions[0].0[depth];
                let chosen = cs.get(i).cloned().unwrap_or_else(|| Arc::new(Term::Done));
                self.fire_at(chosen, &below(i), depth, fault)
            }
            Term::Interrupt(p, q) => {
                if actions.iter().any(|(path, _)| path.get(depth) == Some(&1)) {
                    self.fire_at(q.clone(), &below(1), depth, fault)
                } else {
                    let p = self.fire_at(p.clone(), &index(0), depth + 1, fault);
                    Arc::new(Term::Interrupt(p, q.clone()))
                }
            }
            _ => {
                let mut i = 0;
                map_children(term, &mut |c| {
                    let sub = index(i);
                    i += 1;
                    if sub.is_empty() {
                        c
                    } else {
                        self.fire_at(c, &sub, depth + 1, fault)
                    }
                })
            }
        }
    }
}
