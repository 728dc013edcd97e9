//! Obligations: the theorems a build must prove for every plan an agent binds (`docs/language.md`
//! §4), decided on the explored state graphs, with counterexamples a person can follow.
//!
//! - `Plan_no_deadlock`: every reachable state can step or has finished.
//! - `P_live_D`: every maximal path from the scene reaches a state whose beliefs satisfy D's
//!   `achieved` condition (no fairness assumed).
//! - `P_released_D`: where D's `impossible` atom arrives (raised by the plan or perceived) in any
//!   reachable state, aborting the plan leads on every path to the handlers having finished.
//! - `Plan_abortable`, `Plan_stoppable`: the runtime's abort, stop and resume from outside, in
//!   any reachable state, complete (their handlers finish).
//! - `Plan_tell_feasible_N`: at the N-th `tell j φ` of a plan, the teller believes φ and does
//!   not believe `B(j) φ`.

use crate::certify;
use crate::explore::reference::first_fault;
use crate::explore::{self, Explorer, Graph, Limits, StateId, describe_event};
use hilbert_certificates::cert::SourceDigest;
use hilbert_certificates::ir::{self, Command, Cond, Ir, Network, Node};
use hilbert_frontend::check::{BindingTarget, Program};
use hilbert_frontend::diagnostic::{Code, Diagnostic};
use hilbert_frontend::source::{Dialect, SourceMap, Span};
use hilbert_frontend::syntax::ast;
use hilbert_kernel::eval::{attention, holds};
use hilbert_kernel::semantics::{Atom, Fault, Semantics, State, Term};
use std::collections::{BTreeSet, VecDeque};

/// Warning: an `impossible` condition that is not one constant belief, so no release theorem.
pub const RELEASE_NOT_GENERATED: Code = Code::new(Dialect::Plans, 70);

/// Warning: an agent parameter with no value is read by something the build proves.
pub const PARAM_UNSET: Code = Code::new(Dialect::Agent, 60);

/// Every code the obligations report.
pub const CODES: &[Code] = &[RELEASE_NOT_GENERATED, PARAM_UNSET];

/// One warning per agent parameter with no value that a built network, a served desire's goal
/// or a rule the frame check reads depends on: what reads it is left unproved, said here.
fn unset_parameters(ir: &Ir, program: &Program) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (ai, agent) in program.agents.iter().enumerate() {
        let Some(ir_agent) = ir.agents.get(ai) else {
            continue;
        };
        for (pi, param) in agent.params.iter().enumerate() {
            let p = pi as u32;
            let reads = |c: &Cond| {
                let mut v = Vec::new();
                c.unset_params(&mut v);
                v.contains(&p)
            };
            let mut what = Vec::new();
            for (bi, b) in ir_agent.plans.iter().enumerate() {
                if let Some(n) = b.network
                    && ir.networks[n as usize].unset_params.contains(&p)
                {
                    what.push(format!(
                        "binding `{}` passes it, so its network is not explored",
                        agent.bindings[bi].name
                    ));
                }
            }
            let attention_reads = ir_agent.attends.iter().any(|(c, _)| reads(c));
            for d in &ir_agent.desires {
                if d.achieved.iter().any(reads) || d.impossible.iter().any(|(c, _)| reads(c)) {
                    what.push(format!("the goal of `{}` reads it", d.name));
                } else if attention_reads && d.achieved.iter().any(Cond::reads_attention) {
                    what.push(format!(
                        "the goal of `{}` reads the attention, which an attend rule computes from it",
                        d.name
                    ));
                }
            }
            if ir_agent.intends.iter().any(|i| reads(&i.cond))
                || ir_agent.attends.iter().any(|(c, _)| reads(c))
            {
                what.push("an intend or attend rule reads it, so the kernel cannot check the frame on explored worlds".into());
            }
            if what.is_empty() {
                continue;
            }
            out.push(
                Diagnostic::warning(
                    PARAM_UNSET,
                    param.span,
                    format!(
                        "agent parameter `{}` has no value, and the build proves things that read it",
                        param.name
                    ),
                )
                .with_label("no value given")
                .with_note(format!("{}: what reads it is unproved", what.join("; ")))
                .with_help(format!(
                    "pass `--param {}={}` to prove under that value (the same value `hilbert run` is then given)",
                    param.name,
                    match param.ty {
                        hilbert_frontend::check::Ty::Int => "3",
                        hilbert_frontend::check::Ty::Bool => "true",
                        _ => "\"A\"",
                    }
                )),
            );
        }
    }
    out
}

/// The reason every theorem of a network whose binding passes a parameter with no value is
/// unproved.
fn unset_binding(ir: &Ir, net: &Network) -> Option<String> {
    let p = *net.unset_params.first()?;
    let name = ir.agents[net.agent.0 as usize].param_name(p);
    Some(format!(
        "the binding passes the agent parameter `{name}`, which has no value: pass `--param {name}=…` to prove under a value"
    ))
}

/// What became of a theorem.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Shown to hold on the whole explored state space.
    Proved,
    /// A counterexample shows it does not hold.
    Refuted(Counterexample),
    /// Not decided: a bound was passed or the plan cannot be explored (the reason).
    Unproved(String),
}

impl Status {
    /// `proved`, `refuted` or `unproved`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Proved => "proved",
            Status::Refuted(_) => "refuted",
            Status::Unproved(_) => "unproved",
        }
    }
}

/// One step of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CexStep {
    /// The process (or the two processes of a rendezvous) that moved.
    pub process: String,
    /// The communication (`parts.1`), `τ` for an internal first step, or the abort.
    pub event: String,
    /// Beliefs added by the step.
    pub beliefs_added: Vec<String>,
    /// Beliefs removed by the step.
    pub beliefs_removed: Vec<String>,
    /// Where in the plans it happens: for a rendezvous the sender, then the receiver; for an
    /// internal step its process; none for a command from outside.
    pub sites: Vec<Site>,
}

/// A plan instance that took part in a step, and where in its plan: what a report needs to
/// point at the send or the receive in the `.hk` file, and a chart to give each instance a
/// lifeline of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The instance's number in the network's instance table.
    pub instance: u32,
    /// Its name, with its number among the instances of one name when there are several
    /// (`Dinner/Philosopher#2`); the name alone otherwise (`Dinner/Fork`).
    pub name: String,
    /// The plan it runs.
    pub plan: String,
    /// The stem of that plan's file (`Table` for `Table.hk`).
    pub file: String,
    /// For a send or a receive, the channel as that plan names it (a channel it declares, or
    /// the parameter it was passed in).
    pub channel: Option<String>,
}

/// The plan instance `inst` runs.
fn instance_plan(net: &Network, inst: u32) -> Option<ir::PlanId> {
    let instance = net.instances.get(inst as usize)?;
    match instance.call {
        None => Some(net.root),
        Some(call) => match net.nodes.get(call.0 as usize)? {
            Node::Call { plan, .. } => Some(*plan),
            _ => None,
        },
    }
}

/// Instance `inst` as a step's site: its plan, its name told apart from its namesakes, and the
/// channel `chan` as its plan names it, following the channel from the instance that declares
/// it down the calls' arguments (`None` when the channel came another way).
fn site(net: &Network, inst: u32, chan: Option<&ir::Value>) -> Option<Site> {
    let plan = instance_plan(net, inst)?;
    let code = net.plans.get(plan.0 as usize)?;
    let name = net.instance_name(inst);
    let namesakes: Vec<usize> = net
        .instances
        .iter()
        .enumerate()
        .filter(|(_, i)| i.name == name)
        .map(|(k, _)| k)
        .collect();
    let name = match namesakes.iter().position(|&k| k == inst as usize) {
        Some(k) if namesakes.len() > 1 => format!("{name}#{}", k + 1),
        _ => name.to_string(),
    };
    let channel = chan.and_then(|chan| {
        let ir::Value::Chan {
            instance: owner,
            plan: owner_plan,
            index,
        } = chan
        else {
            return None;
        };
        let (mut slot, _) = *net
            .plans
            .get(owner_plan.0 as usize)?
            .channels
            .get(*index as usize)?;
        // The instances from the sender up to the one that declares the channel.
        let mut path = Vec::new();
        let mut at = inst;
        while at != *owner {
            path.push(at);
            at = net.instances.get(at as usize)?.parent?;
            if path.len() > net.instances.len() {
                return None;
            }
        }
        for child in path.into_iter().rev() {
            let call = net.instances.get(child as usize)?.call?;
            let Node::Call { args, .. } = net.nodes.get(call.0 as usize)? else {
                return None;
            };
            let k = args
                .iter()
                .position(|a| matches!(a, ir::Arg::Chan(s) if *s == slot))?;
            slot = ir::Slot(k as u32);
        }
        code.slot_names.get(slot.0 as usize).cloned()
    });
    Some(Site {
        instance: inst,
        name,
        plan: code.name.clone(),
        file: code.file.clone(),
        channel,
    })
}

/// The sites of a step's event ([`Site`]).
fn sites(net: &Network, event: &hilbert_kernel::semantics::Event) -> Vec<Site> {
    use hilbert_kernel::semantics::Event;
    match event {
        Event::Tau { inst } => site(net, *inst, None).into_iter().collect(),
        Event::Sync {
            sender,
            receiver,
            chan,
            ..
        } => [
            site(net, *sender, Some(chan)),
            site(net, *receiver, Some(chan)),
        ]
        .into_iter()
        .flatten()
        .collect(),
        Event::Abort => Vec::new(),
    }
}

/// A path from the scene that shows a theorem false.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counterexample {
    /// The steps, from the scene.
    pub steps: Vec<CexStep>,
    /// For a lasso: the index of the step where the cycle that avoids the goal starts.
    pub cycle_from: Option<usize>,
    /// What is wrong at the end ("deadlock: …", "finished without …", "cycles without …").
    pub conclusion: String,
    /// At a deadlock, each process that waits and on what (`Dinner/Philosopher#1 waits to send
    /// on take1`), in the order of the state's term; empty for any other end.
    pub blocked: Vec<String>,
}

impl Counterexample {
    /// The counterexample as lines: `1. Feed → Build: parts.1 +made(1)` per step (where a lasso
    /// repeats from, said), then `⇒` what is wrong at the end, with who waits for what at a
    /// deadlock. The SARIF log's code flow and the language server's related information.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .steps
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let mut line = format!("{}. {}: {}", k + 1, s.process, s.event);
                for b in &s.beliefs_added {
                    line.push_str(&format!(" +{b}"));
                }
                for b in &s.beliefs_removed {
                    line.push_str(&format!(" -{b}"));
                }
                if self.cycle_from == Some(k) {
                    line.push_str(" (from here the path repeats)");
                }
                line
            })
            .collect();
        if self.steps.is_empty() {
            lines.push("(the scene's first state)".to_string());
        }
        if self.blocked.is_empty() {
            lines.push(format!("⇒ {}", self.conclusion));
        } else {
            lines.push(format!(
                "⇒ {}: {}",
                self.conclusion,
                self.blocked.join("; ")
            ));
        }
        lines
    }
}

/// What each waiting process of `state` waits for: a thread whose next node is a send or a
/// receive, named by its instance, with the channel as the counterexample names channels.
pub fn blocked_lines(net: &Network, state: &State) -> Vec<String> {
    fn walk(net: &Network, term: &Term, out: &mut Vec<String>) {
        match term {
            Term::Thread {
                inst, stack, env, ..
            } => {
                let Some(node) = stack.last().and_then(|n| net.nodes.get(n.0 as usize)) else {
                    return;
                };
                let (chan, verb) = match node {
                    Node::Send { chan, .. } => (chan, "send on"),
                    Node::Recv { chan, .. } => (chan, "receive on"),
                    _ => return,
                };
                let Some(value) = env.get(chan.0 as usize) else {
                    return;
                };
                let name = site(net, *inst, None)
                    .map_or_else(|| net.instance_name(*inst).to_string(), |s| s.name);
                out.push(format!(
                    "{name} waits to {verb} {}",
                    net.channel_name(value)
                ));
            }
            Term::Then(a, _) => walk(net, a, out),
            Term::Par(cs) | Term::Choice(cs) => cs.iter().for_each(|c| walk(net, c, out)),
            Term::Interrupt(p, q) => {
                walk(net, p, out);
                walk(net, q, out);
            }
            Term::Suspended(t) => walk(net, t, out),
            Term::Label { body, .. } | Term::Inst { body, .. } | Term::Handling { body, .. } => {
                walk(net, body, out)
            }
            Term::Done | Term::Faulted(_) => {}
        }
    }
    let mut out = Vec::new();
    walk(net, &state.term, &mut out);
    out
}

/// A theorem of the build, known by its network and its name together: names repeat across
/// networks (two agents whose plan files each define `plan Run` both have a `Run_no_deadlock`,
/// and so do two bindings of one plan), and each network's theorems are its own certificate's.
#[derive(Clone, Debug, PartialEq)]
pub struct Theorem {
    /// The network it is of: `Agent.Binding`, the name of its certificate (a host binding's
    /// theorems too, though it has no certificate).
    pub network: String,
    /// Its name within the network (`Produce_no_deadlock`).
    pub name: String,
    /// What it states.
    pub statement: String,
    /// Its status.
    pub status: Status,
    /// States explored for it.
    pub states: usize,
    /// Transitions explored for it.
    pub transitions: usize,
}

/// The certificate of one network, for the kernel.
#[derive(Clone, Debug)]
pub struct NetworkCertificate {
    /// `Agent.Binding`: the file name's stem.
    pub name: String,
    /// The theorems it is the evidence for.
    pub theorems: Vec<String>,
    /// The name of its frame obligation (`Operator.Work_frame`): not a theorem, but the kernel
    /// derives it and admits the certificate only when the frame conditions hold on it.
    pub frame: String,
    /// The network's index in the build's IR (the certificate carries its slice,
    /// `Ir::slice`, where it is network 0).
    pub network: u32,
    /// The sources the slice comes from, which the certificate lists.
    pub sources: Vec<SourceDigest>,
    /// What its proof depends on ([`reuse_key`]): a later build with the same key may reuse it.
    pub key: [u8; 32],
    /// When it was not explored again: the kernel's word on the certificate an earlier build
    /// kept, checked against this build's slice and sources ([`prove_reusing`]).
    pub reused: Option<Recheck>,
    /// Whether a later build can reuse what this one says of the network without exploring it:
    /// every theorem proved, refuted on the scene (a deadlock or liveness counterexample, which
    /// it replays) or unproved for a reason the sources alone give, and a certificate written.
    pub replayable: bool,
    /// The certificate's bytes (empty when it was withheld).
    pub bytes: Vec<u8>,
    /// Why no certificate was written: the exploration passed `--max-memory`, and a certificate
    /// of its partial table (which the kernel would refuse, as it is not closed) would need more
    /// memory still. Its theorems are unproved and the build is not admitted.
    pub withheld: Option<String>,
    /// States and transitions of the network's scene.
    pub states: usize,
    /// Transitions of the scene.
    pub transitions: usize,
    /// Seconds spent exploring, proving and certifying the network.
    pub seconds: f64,
    /// The process's peak resident set while the network was explored, proved and certified,
    /// in bytes (`None` where the platform does not say).
    pub peak_bytes: Option<u64>,
}

/// The theorems of a build and the warnings proving them produced.
#[derive(Clone, Debug, Default)]
pub struct Proofs {
    /// One certificate per explored network.
    pub certificates: Vec<NetworkCertificate>,
    /// Every theorem, in the order of agents, bindings and obligations.
    pub theorems: Vec<Theorem>,
    /// Warnings (HK0070, HA0060).
    pub diagnostics: Vec<Diagnostic>,
    /// States explored in all.
    pub states: usize,
    /// Transitions explored in all.
    pub transitions: usize,
    /// The SMT queries proving asked (ranking functions), for `--emit-smt`.
    pub smt: Vec<hilbert_smt::Query>,
    /// Seconds spent exploring the networks (the scene's states, not the abort explorations of
    /// release witnesses, which count as certifying).
    pub explore_seconds: f64,
    /// Seconds spent writing certificates (tables, ranks, release witnesses, encoding).
    pub certify_seconds: f64,
    /// The networks whose kept certificate the kernel refused against these sources (a stale
    /// cache: damaged, or of another build), and why; each was explored again.
    pub stale: Vec<(String, String)>,
}

fn lower_camel(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A goal as the source writes it, with `B(self)` left out and every agent parameter that has a
/// value written as that value (the lowering writes it into the rule as a literal, so the
/// theorem is about the value: `delivered(3)`, not `delivered(dose)`).
fn goal_text(sources: &SourceMap, e: &ast::Expr, agent: &ir::Agent) -> String {
    fn vars(e: &ast::Expr, out: &mut Vec<(Span, String)>) {
        use ast::ExprKind;
        match &e.kind {
            ExprKind::Var(v) => out.push((e.span, v.name.to_string())),
            ExprKind::Unary(_, a) => vars(a, out),
            ExprKind::Binary(_, a, b) => {
                vars(a, out);
                vars(b, out);
            }
            ExprKind::Chain { first, rest } => {
                vars(first, out);
                rest.iter().for_each(|(_, b)| vars(b, out));
            }
            ExprKind::Believes { atom, .. } => atom.args.iter().for_each(|a| vars(a, out)),
            ExprKind::Call { args, .. } => args.iter().for_each(|a| vars(a, out)),
            _ => {}
        }
    }
    let text = sources.get(e.span.file).slice(e.span);
    let mut found = Vec::new();
    vars(e, &mut found);
    let mut out = String::new();
    let mut at = 0usize;
    for (span, name) in found {
        let value = agent
            .params
            .iter()
            .zip(&agent.args)
            .find(|((n, _), _)| *n == name)
            .and_then(|(_, v)| v.as_ref());
        let (Some(value), Some(start), Some(end)) = (
            value,
            span.start.checked_sub(e.span.start).map(|x| x as usize),
            span.end.checked_sub(e.span.start).map(|x| x as usize),
        ) else {
            continue;
        };
        if start < at || end > text.len() || !text.is_char_boundary(start) {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&match value {
            ir::Literal::Int(n) => n.to_string(),
            ir::Literal::Bool(b) => b.to_string(),
            ir::Literal::Str(s) => format!("{s:?}"),
        });
        at = end;
    }
    out.push_str(&text[at..]);
    out.replace("B(self) ", "").replace("B(self)", "")
}

/// An atom as a person reads it.
pub fn show_atom(ir: &Ir, net: &Network, atom: &Atom) -> String {
    let args: Vec<String> = atom.args.iter().map(|v| net.show_value(v)).collect();
    ir.atom_text(net.agent, atom.told, atom.belief, &args)
}

/// Proves every obligation of the project with the fast explorer, and writes each network's
/// certificate (with the given source digests) for the kernel.
pub fn prove(
    ir: &Ir,
    program: &Program,
    sources: &SourceMap,
    digests: &[SourceDigest],
    limits: Limits,
) -> Proofs {
    prove_using(ir, program, sources, digests, limits, Explorer::Fast)
}

/// Proves every obligation of the project, exploring with `explorer`.
pub fn prove_using(
    ir: &Ir,
    program: &Program,
    sources: &SourceMap,
    digests: &[SourceDigest],
    limits: Limits,
    explorer: Explorer,
) -> Proofs {
    prove_reusing(ir, program, sources, digests, limits, explorer, &|_, _| {
        None
    })
}

/// Where a build finds what an earlier build kept for a network (`Agent.Binding`) under a key
/// ([`reuse_key`]), if it kept anything.
pub type Kept<'a> = dyn Fn(&str, &[u8; 32]) -> Option<KeptProof> + 'a;

/// What an earlier build kept for a network: its certificate and, when not every theorem was
/// proved, what it said of each theorem. None of it is believed: the kernel checks the
/// certificate against this build's slice and sources, and every result is checked against the
/// kernel's verdicts and, for a refutation, by replaying its counterexample ([`prove_reusing`]).
#[derive(Clone, Debug, Default)]
pub struct KeptProof {
    /// The certificate's bytes.
    pub certificate: Vec<u8>,
    /// Each theorem's status, in the network's order; `None` when every theorem was proved.
    pub results: Option<Vec<Status>>,
}

/// The kernel's word on a certificate an earlier build kept, which it checked against this
/// build's slice of the IR and sources: a network is reused only when that word agrees with
/// what was kept (every obligation proved, or the kept refutations replayed).
#[derive(Clone, Debug)]
pub struct Recheck {
    /// The kernel's report, with the scene's counts it recomputed.
    pub report: hilbert_kernel::check::Report,
    /// Seconds the kernel took on it.
    pub seconds: f64,
    /// The process's peak resident set while the kernel checked it, in bytes.
    pub peak_bytes: Option<u64>,
}

/// A kept certificate checked again: its bytes, the kernel's word, the scene's counts and
/// each theorem's status.
struct Reused {
    bytes: Vec<u8>,
    report: Recheck,
    scene: (usize, usize),
    statuses: Vec<Status>,
}

/// At most this many states a replayed counterexample may stand for at once: a step's text
/// names processes, not instances, so it can match several steps of one state.
const REPLAY_WIDTH: usize = 4096;

/// The kernel's check of what an earlier build kept, against `slice` and `sources` (the
/// network's slice of this build's IR and the files it comes from), and whether it agrees with
/// what was kept: the certificate valid for exactly these sources and IR, its table closed (so
/// it is the scene's whole state space), one obligation per theorem the sources give and the
/// frame; then either every obligation proved (a kept proof), or each kept result checked
/// (a kept refutation or unproved theorem):
///
/// - `proved`: the kernel proved its obligation;
/// - `refuted`: the kernel refused it, and its counterexample replays on the scene with the
///   reference semantics ([`replay`]): each step a step of the network from where the steps
///   before lead, and its end what its conclusion says;
/// - `unproved`: the kernel refused it, and the reason is one the sources alone give (a goal
///   that reads a parameter with no value).
///
/// `Err` says why not, and the network is explored.
fn recheck(
    kept: KeptProof,
    slice: &Ir,
    sources: &[SourceDigest],
    specs: &[Spec],
) -> Result<Reused, String> {
    let ir = hilbert_certificates::cert::ir_bytes(slice);
    let expected = hilbert_kernel::check::Expected { sources, ir: &ir };
    let phase = crate::memory::Phase::begin();
    let clock = std::time::Instant::now();
    let report = hilbert_kernel::check::check(&kept.certificate, Some(&expected));
    let (seconds, peak_bytes) = (clock.elapsed().as_secs_f64(), phase.end());
    let refused = "the kernel did not admit its certificate against these sources";
    let scene = match (&report.invalid, report.scene) {
        (None, Some(scene)) if report.obligations.len() == specs.len() + 1 => scene,
        _ => return Err(refused.into()),
    };
    let statuses = match kept.results {
        None if report.admitted.is_some() => vec![Status::Proved; specs.len()],
        None => return Err(refused.into()),
        Some(results) => {
            if results.len() != specs.len() {
                return Err(format!(
                    "it keeps {} results for the network's {} theorems",
                    results.len(),
                    specs.len()
                ));
            }
            let net = &slice.networks[0];
            let agent = &slice.agents[net.agent.0 as usize];
            let sem = Semantics::new(net, agent);
            for ((spec, status), (_, verdict)) in
                specs.iter().zip(&results).zip(&report.obligations)
            {
                let proved = matches!(verdict, hilbert_kernel::check::Verdict::Proved);
                match status {
                    Status::Proved if proved => {}
                    Status::Proved => {
                        return Err(format!(
                            "it says `{}` was proved, and the kernel refused it",
                            spec.name
                        ));
                    }
                    _ if proved => {
                        return Err(format!(
                            "it says `{}` was not proved, and the kernel proved it",
                            spec.name
                        ));
                    }
                    Status::Refuted(cex) => replay(slice, net, &sem, agent, &spec.about, cex)
                        .map_err(|why| {
                            format!(
                                "the counterexample it keeps for `{}` does not replay: {why}",
                                spec.name
                            )
                        })?,
                    Status::Unproved(reason) => {
                        if static_unproved(agent, &spec.about).as_ref() != Some(reason) {
                            return Err(format!(
                                "the sources give no reason for `{}` to be unproved",
                                spec.name
                            ));
                        }
                    }
                }
            }
            results
        }
    };
    Ok(Reused {
        bytes: kept.certificate,
        report: Recheck {
            report,
            seconds,
            peak_bytes,
        },
        scene,
        statuses,
    })
}

/// Why a liveness theorem is unproved whatever the search finds: its goal reads an agent
/// parameter with no value (directly, or through the attention). The sources alone say it.
fn static_unproved(agent: &ir::Agent, about: &About) -> Option<String> {
    if let About::Assert(k, _) = about {
        let conds = agent.asserts.get(*k)?.property.conds();
        let p = conds.iter().find_map(|c| agent.assert_unset_param(c))?;
        return Some(format!(
            "the assertion reads the agent parameter `{0}` (itself, through a desire it tests, or through the attention), which has no value: pass `--param {0}=…` to prove under a value",
            agent.param_name(p)
        ));
    }
    let About::Live(di, _) = about else {
        return None;
    };
    let ir_desire = &agent.desires[*di];
    if let Some(p) = ir_desire.params_used.first() {
        Some(format!(
            "the goal reads the agent parameter `{p}`, which has no value: pass `--param {p}=…` to prove under a value"
        ))
    } else if let Some(p) = agent.attention_unset_param()
        && ir_desire.achieved.iter().any(Cond::reads_attention)
    {
        Some(format!(
            "the goal reads the attention, which an attend rule computes from the agent parameter `{0}`, which has no value: pass `--param {0}=…` to prove under a value",
            agent.param_name(p)
        ))
    } else {
        None
    }
}

/// Whether what a build says of the theorem `about` can be checked by a later build without
/// exploring ([`recheck`]): a proof (the kernel's word), a deadlock or liveness counterexample on
/// the scene ([`replay`]; the others run through the explorations of commands from outside,
/// which a replay does not redo), or a reason to be unproved that the sources alone give.
fn replayable(agent: &ir::Agent, about: &About, status: &Status) -> bool {
    match status {
        Status::Proved => true,
        Status::Refuted(_) => match about {
            About::NoDeadlock => true,
            // A weakly fair lasso is not replayed: the build explores the network again.
            About::Live(di, _) => !agent.desires[*di].fair,
            _ => false,
        },
        Status::Unproved(reason) => static_unproved(agent, about).as_ref() == Some(reason),
    }
}

/// Replays a counterexample of `about` on the scene of `sem`, with the reference semantics:
/// from the scene's initial state, each step must be a step of the network (its process, event
/// and belief changes, as a person reads them) from a state the steps before it lead to; for a
/// liveness theorem no state on the way may satisfy the goal; and its end must be what the
/// conclusion says: a state with no step (a deadlock, with the fault that caused it, or a plan
/// finished without the goal), or for a lasso the state where its cycle began. It checks that
/// the path is real and shows what it says, not that it is the shortest.
fn replay(
    ir: &Ir,
    net: &Network,
    sem: &Semantics,
    agent: &ir::Agent,
    about: &About,
    cex: &Counterexample,
) -> Result<(), String> {
    let goal: Option<(&[Cond], &str)> = match about {
        About::NoDeadlock => None,
        About::Live(di, goal) => Some((&agent.desires[*di].achieved, goal)),
        _ => return Err("only deadlock and liveness counterexamples are replayed".into()),
    };
    if goal.is_none() && cex.cycle_from.is_some() {
        return Err("a deadlock is not a cycle".into());
    }
    if cex.cycle_from.is_some_and(|k| k >= cex.steps.len()) {
        return Err("its cycle starts after its last step".into());
    }
    let is_goal = |s: &State| {
        goal.is_some_and(|(achieved, _)| {
            let a = if achieved.iter().any(Cond::reads_attention) {
                attention(agent, &s.beliefs)
            } else {
                0
            };
            achieved.iter().any(|c| holds(c, &s.beliefs, Some(a)))
        })
    };
    let start = sem.initial();
    if is_goal(&start) {
        return Err("the goal holds in the scene's first state".into());
    }
    // Every state the steps so far may stand for, with the state where the cycle began.
    let mut frontier: Vec<(State, Option<State>)> = vec![(start, None)];
    for (k, want) in cex.steps.iter().enumerate() {
        if cex.cycle_from == Some(k) {
            for (s, c) in &mut frontier {
                *c = Some(s.clone());
            }
        }
        let mut next: Vec<(State, Option<State>)> = Vec::new();
        for (s, c) in &frontier {
            for step in sem.steps(s) {
                let shown = shown_step(
                    ir,
                    net,
                    &step.event,
                    &step.effects.added,
                    &step.effects.removed,
                );
                if shown == *want && !is_goal(&step.next) {
                    let entry = (step.next, c.clone());
                    if !next.contains(&entry) {
                        next.push(entry);
                    }
                }
            }
            if next.len() > REPLAY_WIDTH {
                return Err(format!(
                    "step {} stands for more than {REPLAY_WIDTH} states",
                    k + 1
                ));
            }
        }
        if next.is_empty() {
            return Err(format!(
                "step {} ({}: {}) is no step of the network from where the steps before it lead{}",
                k + 1,
                want.process,
                want.event,
                if goal.is_some() {
                    ", or it reaches the goal"
                } else {
                    ""
                }
            ));
        }
        frontier = next;
    }
    let ends_right = |s: &State, cycle: &Option<State>| match (cycle, goal) {
        (Some(c), Some((_, goal))) => {
            s == c && cex.conclusion == format!("the plan can cycle forever without {goal}")
        }
        (Some(_), None) => false,
        (None, _) if !sem.steps(s).is_empty() => false,
        (None, None) => {
            !s.finished()
                && cex.conclusion == deadlock_text(first_fault(&s.term).as_ref())
                && cex.blocked == blocked_lines(net, s)
        }
        (None, Some((_, goal))) if s.finished() => {
            cex.conclusion == format!("the plan finished without {goal}")
        }
        (None, Some((_, goal))) => {
            cex.conclusion
                == format!(
                    "{}, without {goal}",
                    deadlock_text(first_fault(&s.term).as_ref())
                )
                && cex.blocked == blocked_lines(net, s)
        }
    };
    if frontier.iter().any(|(s, c)| ends_right(s, c)) {
        Ok(())
    } else {
        Err(format!(
            "its end is not what it says (`{}`)",
            cex.conclusion
        ))
    }
}

/// What a theorem is about, for deciding it on the explored graph.
enum About {
    NoDeadlock,
    /// A desire (its index) and its goal as written.
    Live(usize, String),
    Released(Atom),
    /// Aborting the plan from outside in any reachable state finishes.
    Abortable,
    /// Stopping the plan from outside in any reachable state completes, and so do a resume and
    /// an abort of where the stop left it.
    Stoppable,
    /// A tell of a plan, its number, and the handler it is inside, if it is.
    Tell(ir::PlanId, u32, Option<String>),
    /// An assertion of the agent (its index), and its conditions as written.
    Assert(usize, Vec<String>),
}

/// A theorem's name, statement and what it is about: what the sources say, before any search.
struct Spec {
    name: String,
    statement: String,
    about: About,
}

/// The theorems of network 0 of `slice`, the scene of binding `binding` of `agent` (whose
/// `desires` it serves), in the kernel's order: no deadlock; per desire its liveness and its
/// release theorems; every tell of every plan. Derived from the sources and the IR alone, so
/// that a network whose proof is reused reports exactly what a fresh build would.
fn theorems_of(
    slice: &Ir,
    sources: &SourceMap,
    agent: &hilbert_frontend::check::AgentInfo,
    binding: &str,
    desires: &[usize],
    ir_agent: &ir::Agent,
) -> Vec<Spec> {
    let net = &slice.networks[0];
    let plan_name = &net.plan(net.root).name;
    let lc = lower_camel(plan_name);
    let mut out = vec![Spec {
        name: format!("{plan_name}_no_deadlock"),
        statement: format!("∀ w, {lc}Reachable(w) ⇒ progress(w)"),
        about: About::NoDeadlock,
    }];
    for &di in desires {
        let desire = &agent.desires[di];
        let goal = desire
            .achieved
            .iter()
            .map(|e| goal_text(sources, e, ir_agent))
            .collect::<Vec<_>>()
            .join(" ∨ ");
        let fair = if desire.fair {
            " under weak fairness"
        } else {
            ""
        };
        out.push(Spec {
            name: format!("{binding}_live_{}", desire.name),
            statement: format!("inevitable(scene(call({plan_name}), empty), {goal}){fair}"),
            about: About::Live(di, goal),
        });
        // Release, for a single-minded agent, when the impossible condition is one belief with
        // constant arguments (otherwise `release_warnings` says why there is none).
        if ir_agent.commit != ir::CommitmentStrategy::SingleMinded {
            continue;
        }
        for (cond, _) in &ir_agent.desires[di].impossible {
            let Some(atom) = hilbert_kernel::check::constant_atom(cond) else {
                continue;
            };
            out.push(Spec {
                name: format!("{binding}_released_{}", desire.name),
                statement: format!(
                    "∀ w, {lc}Reachable(w) ⇒ inevitable(abort(w + B(self) {}), finished)",
                    show_atom(slice, net, &atom)
                ),
                about: About::Released(atom),
            });
        }
    }
    // Abortable, when a plan of the network has an `on abort` handler (the kernel's order).
    if net.plans.iter().any(|p| p.on_abort.is_some()) {
        out.push(Spec {
            name: format!("{plan_name}_abortable"),
            statement: format!("∀ w, {lc}Reachable(w) ⇒ inevitable(abort(w), finished)"),
            about: About::Abortable,
        });
    }
    // Stoppable, when the runtime can stop the plan and a handler runs then (the kernel's order).
    if hilbert_kernel::check::obligations(slice, 0)
        .unwrap_or_default()
        .iter()
        .any(|(_, k)| matches!(k, hilbert_kernel::check::Kind::Stoppable))
    {
        out.push(Spec {
            name: format!("{plan_name}_stoppable"),
            statement: format!(
                "∀ w, {lc}Reachable(w) ⇒ inevitable(stop(w), settled) ∧ ∀ s ∈ stopped(w), inevitable(resume(s), settled) ∧ inevitable(abort(s), finished)"
            ),
            about: About::Stoppable,
        });
    }
    // Tell feasibility, for every tell of every plan of the network.
    let called = called_from_handlers(net);
    for (pi, code) in net.plans.iter().enumerate() {
        let mut tells: Vec<(u32, String, String)> = Vec::new();
        for node in plan_nodes(net, code) {
            if let Node::Tell {
                index, agent, atom, ..
            } = &net.nodes[node.0 as usize]
            {
                let args: Vec<String> = atom
                    .args
                    .iter()
                    .map(|e| hilbert_frontend::listing::expr_in_plan(slice, net, pi, e))
                    .collect();
                let pred = format!(
                    "{}({})",
                    slice.agents[agent.0 as usize].beliefs[atom.belief.0 as usize].name,
                    args.join(", ")
                );
                let j = slice.agents[agent.0 as usize].name.clone();
                tells.push((*index, j, pred));
            }
        }
        tells.sort();
        tells.dedup_by(|a, b| a.0 == b.0);
        let handled = handler_tells(net, code);
        for (n, j, pred) in tells {
            let handler = match handled.iter().find(|(k, _)| *k == n) {
                Some((_, h)) => Some(format!("in the `{h}` handler of `{}`", code.name)),
                None if called.contains(&pi) => {
                    Some(format!("in `{}`, which a handler calls", code.name))
                }
                None => None,
            };
            out.push(Spec {
                name: format!("{}_tell_feasible_{n}", code.name),
                statement: format!(
                    "∀ w, {lc}Reachable(w) ∧ tells_{n}(w) ⇒ B(self) {pred} ∧ ¬B({j}) {pred}"
                ),
                about: About::Tell(ir::PlanId(pi as u32), n, handler),
            });
        }
    }
    // The agent's assertions, in source order (the kernel's order, before the frame).
    for (k, a) in agent.asserts.iter().enumerate() {
        let texts: Vec<String> = (a.pattern.conds().iter())
            .map(|e| goal_text(sources, e, ir_agent))
            .collect();
        let fair = if a.fair { " under weak fairness" } else { "" };
        let scene = format!("scene(call({plan_name}), empty)");
        let statement = match (&a.pattern, &texts[..]) {
            (ast::AssertPattern::Always(_), [x]) => format!("∀ w, {lc}Reachable(w) ⇒ {x}"),
            (ast::AssertPattern::Never(_), [x]) => format!("∀ w, {lc}Reachable(w) ⇒ ¬({x})"),
            (ast::AssertPattern::Eventually(_), [x]) => format!("inevitable({scene}, {x}){fair}"),
            (ast::AssertPattern::LeadsTo(..), [x, y]) => {
                format!("∀ w, {lc}Reachable(w) ∧ {x} ⇒ inevitable(w, {y}){fair}")
            }
            (_, [y, x]) => format!("¬({x}) W ({y}) from {scene}"),
            _ => String::new(),
        };
        out.push(Spec {
            name: format!("{plan_name}_assert_{}", a.name),
            statement,
            about: About::Assert(k, texts),
        });
    }
    out
}

/// What a network's proof depends on, as one digest: the postcard bytes of its slice of the
/// IR, the sources the slice comes from (path and digest: a statement quotes them), the tool's
/// version, and the certificate format and semantics versions. Equal keys, equal proofs.
pub fn reuse_key(slice: &Ir, sources: &[SourceDigest]) -> [u8; 32] {
    use hilbert_certificates::cert;
    let mut bytes = cert::ir_bytes(slice);
    for d in sources {
        bytes.extend_from_slice(&(d.path.len() as u64).to_le_bytes());
        bytes.extend_from_slice(d.path.as_bytes());
        bytes.extend_from_slice(&d.sha256);
    }
    bytes.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
    bytes.extend_from_slice(&cert::FORMAT_MAJOR.to_le_bytes());
    bytes.extend_from_slice(&cert::FORMAT_MINOR.to_le_bytes());
    bytes.extend_from_slice(&cert::SEMANTICS.to_le_bytes());
    cert::sha256(&bytes)
}

/// As [`prove_using`], but a network for which `reuse(name, key)` gives what an earlier build
/// kept ([`KeptProof`]), and whose certificate the kernel checks again against the network's
/// slice of `ir` and its sources with a word that agrees with what was kept ([`recheck`]: every
/// obligation proved, or each kept refutation replayed and refused by the kernel), is not
/// explored again: its theorems are named and stated from the sources as a fresh build states
/// them, with the counts the kernel recomputed, and the kernel's report travels with it
/// (`NetworkCertificate::reused`). Anything else kept is no proof: the network is explored, and
/// `Proofs::stale` says why.
pub fn prove_reusing(
    ir: &Ir,
    program: &Program,
    sources: &SourceMap,
    digests: &[SourceDigest],
    limits: Limits,
    explorer: Explorer,
    reuse: &Kept<'_>,
) -> Proofs {
    let mut proofs = Proofs::default();
    proofs.diagnostics.extend(unset_parameters(ir, program));
    let provenance = hilbert_frontend::Provenance::new(program, sources);
    let digest_index = hilbert_frontend::Provenance::index(digests);
    for (ai, agent) in program.agents.iter().enumerate() {
        let ir_agent = &ir.agents[ai];
        for (bi, binding) in agent.bindings.iter().enumerate() {
            let desires: Vec<usize> = agent
                .desires
                .iter()
                .enumerate()
                .filter(|(_, d)| d.reachable_by.contains(&bi))
                .map(|(i, _)| i)
                .collect();
            let Some(net_index) = ir_agent.plans[bi].network else {
                if let BindingTarget::Host(h) = &binding.target {
                    for &di in &desires {
                        proofs.theorems.push(Theorem {
                            network: format!("{}.{}", agent.name, binding.name),
                            name: format!("{}_live_{}", binding.name, agent.desires[di].name),
                            statement: format!(
                                "inevitable(scene(call(host.{h}), empty), {})",
                                agent.desires[di]
                                    .achieved
                                    .iter()
                                    .map(|e| goal_text(sources, e, ir_agent))
                                    .collect::<Vec<_>>()
                                    .join(" ∨ ")
                            ),
                            status: Status::Unproved(format!(
                                "`{}` runs host code (`host.{h}`), which the compiler cannot explore",
                                binding.name
                            )),
                            states: 0,
                            transitions: 0,
                        });
                    }
                }
                continue;
            };
            // Everything below is about the network's slice of the IR (`Ir::slice`), the IR its
            // certificate carries: the network as network 0, with the agents it needs.
            let Some(slice) = ir.slice(net_index as usize) else {
                continue;
            };
            let sources_of_net = provenance.sources_of(&slice, digests, &digest_index);
            let whole_index = net_index;
            let network = format!("{}.{}", agent.name, binding.name);
            let key = reuse_key(&slice, &sources_of_net);
            {
                let net = &slice.networks[0];
                let ir_agent = &slice.agents[net.agent.0 as usize];
                proofs.diagnostics.extend(release_warnings(
                    net,
                    sources,
                    agent,
                    ir_agent,
                    &binding.name,
                    &desires,
                ));
            }
            let specs = theorems_of(
                &slice,
                sources,
                agent,
                &binding.name,
                &desires,
                &slice.agents[slice.networks[0].agent.0 as usize],
            );
            let again = reuse(&network, &key).map(|kept| {
                recheck(kept, &slice, &sources_of_net, &specs).map_err(|why| {
                    proofs.stale.push((network.clone(), why));
                })
            });
            if let Some(Ok(earlier)) = again {
                let (states, transitions) = earlier.scene;
                for (spec, status) in specs.iter().zip(earlier.statuses) {
                    proofs.theorems.push(Theorem {
                        network: network.clone(),
                        name: spec.name.clone(),
                        statement: spec.statement.clone(),
                        status,
                        states,
                        transitions,
                    });
                }
                proofs.states += states;
                proofs.transitions += transitions;
                proofs.certificates.push(NetworkCertificate {
                    name: network,
                    theorems: specs.into_iter().map(|s| s.name).collect(),
                    frame: frame_name(&slice),
                    network: whole_index,
                    sources: sources_of_net,
                    key,
                    reused: Some(earlier.report),
                    replayable: true,
                    bytes: earlier.bytes,
                    withheld: None,
                    states,
                    transitions,
                    seconds: 0.0,
                    peak_bytes: None,
                });
                continue;
            }
            let (ir, net_index, digests) = (&slice, 0u32, &sources_of_net[..]);
            let ir_agent = &ir.agents[ir.networks[0].agent.0 as usize];
            let net = &ir.networks[net_index as usize];
            let phase = crate::memory::Phase::begin();
            let network_clock = std::time::Instant::now();
            let sem = Semantics::new(net, ir_agent);
            let clock = std::time::Instant::now();
            let unset = unset_binding(ir, net);
            let placeholder = unset.is_some();
            // A scene with a placeholder argument is not explored past its start.
            let limits = if unset.is_some() {
                Limits {
                    max_states: 1,
                    ..limits
                }
            } else {
                limits
            };
            let explored =
                explore::explore_with(explorer, net, ir_agent, vec![sem.initial()], limits);
            proofs.explore_seconds += clock.elapsed().as_secs_f64();
            let graph = &explored.graph;
            proofs.states += graph.len();
            proofs.transitions += graph.transitions();
            let bound = unset.or_else(|| {
                bound_passed(graph, limits).map(|reason| match growing_integer(net, &explored) {
                    Some(hint) => format!("{reason}; {hint}"),
                    None => reason,
                })
            });
            let counts = (graph.len(), graph.transitions());
            let first_theorem = proofs.theorems.len();
            // The explorations of the commands from outside, by theorem (its place in the
            // kernel's list: names repeat), kept for the certificate; made in the kernel's order
            // of the scene's states.
            let mut outside: Vec<(usize, Commanded)> = Vec::new();
            let order = std::cell::OnceCell::new();
            let order = || -> &[u32] { order.get_or_init(|| certify::canonical_order(graph)) };
            let explore_outside = |starts: &mut dyn Iterator<Item = State>, halt: bool| {
                explore::explore_outside(explorer, net, ir_agent, starts, limits, halt)
            };
            let mut replayable_results = !placeholder;
            for (index, spec) in specs.into_iter().enumerate() {
                let commands = match &spec.about {
                    About::Released(atom) => Some(Outside::Released(atom.clone())),
                    About::Abortable => Some(Outside::Abortable),
                    About::Stoppable => Some(Outside::Stoppable),
                    _ => None,
                };
                if let (None, Some(about)) = (&bound, &commands) {
                    let commanded =
                        explore_commands(about, &sem, &explored, order(), &explore_outside);
                    outside.push((index, commanded));
                }
                let status = match (&bound, &spec.about) {
                    (Some(reason), _) => Status::Unproved(reason.clone()),
                    (None, About::NoDeadlock) => match first_deadlock(graph) {
                        None => Status::Proved,
                        Some(s) => {
                            let conclusion = deadlock_reason(graph, s);
                            let mut cex = path_cex(ir, net, graph, s, None, conclusion);
                            cex.blocked = blocked_lines(net, &explored.state(s));
                            Status::Refuted(cex)
                        }
                    },
                    (None, About::Live(di, goal)) => {
                        let ir_desire = &ir_agent.desires[*di];
                        if let Some(reason) = static_unproved(ir_agent, &spec.about) {
                            Status::Unproved(reason)
                        } else {
                            let goal_sets = satisfying_sets(graph, ir_agent, &ir_desire.achieved);
                            let is_goal = |s: StateId| goal_sets[graph.belief_set(s)];
                            if ir_desire.fair {
                                let state = |s| explored.state(s);
                                let start = |s: StateId| graph.starts.contains(&s);
                                crate::props::decide_goal(
                                    ir, net, graph, &state, &start, &is_goal, goal, true,
                                )
                            } else {
                                match inevitable(graph, &is_goal) {
                                    Ok(()) => Status::Proved,
                                    Err(v) => {
                                        let end = match &v {
                                            Violation::Terminal(s) if !graph.finished(*s) => {
                                                Some(*s)
                                            }
                                            _ => None,
                                        };
                                        let mut cex = violation_cex(ir, net, graph, v, goal);
                                        if let Some(s) = end {
                                            cex.blocked = blocked_lines(net, &explored.state(s));
                                        }
                                        Status::Refuted(cex)
                                    }
                                }
                            }
                        }
                    }
                    (None, About::Assert(k, texts)) => {
                        match static_unproved(ir_agent, &spec.about) {
                            Some(reason) => Status::Unproved(reason),
                            None => {
                                let state = |s| explored.state(s);
                                let a = &ir_agent.asserts[*k];
                                crate::props::decide_assert(
                                    ir, net, graph, &state, ir_agent, a, texts,
                                )
                            }
                        }
                    }
                    (None, About::Released(_) | About::Abortable | About::Stoppable) => {
                        let (about, spaces) = (commands.as_ref(), outside.last());
                        match (about, spaces) {
                            (Some(about), Some((_, Commanded { spaces, .. }))) => decide_commands(
                                ir,
                                net,
                                &sem,
                                &explored,
                                order(),
                                about,
                                spaces,
                                limits,
                            ),
                            _ => Status::Unproved(
                                "the commands from outside were not explored".into(),
                            ),
                        }
                    }
                    (None, About::Tell(plan, n, Some(where_))) => {
                        let scene = (&sem, &explored, order());
                        handler_tell(ir, net, scene, &outside, *plan, *n, where_, limits)
                    }
                    (None, About::Tell(plan, n, None)) => tell_feasible(ir, net, graph, *plan, *n),
                };
                replayable_results &= replayable(ir_agent, &spec.about, &status);
                proofs.theorems.push(Theorem {
                    network: network.clone(),
                    name: spec.name,
                    statement: spec.statement,
                    status,
                    states: counts.0,
                    transitions: counts.1,
                });
            }
            let theorems = proofs.theorems[first_theorem..]
                .iter()
                .map(|t| t.name.clone())
                .collect();
            let clock = std::time::Instant::now();
            // A bound stopped the search: a certificate of the partial table is one the kernel
            // refuses as not closed, and only at its last state, after checking all the rest
            // (10 M states took it 288 s, issue 32): none is written, and the stop is reported
            // at once.
            let withheld = match graph.memory_stop {
                Some(_) => Some("no certificate was written: one of the partial table, which the kernel refuses as not closed, would need more memory still".to_string()),
                None if graph.truncated && !placeholder => Some("no certificate was written: it would list only the states explored before a bound (--max-states, --max-memory) stopped the search, which the kernel refuses as not closed under the steps, after checking every one of them".to_string()),
                None => None,
            };
            let bytes = if withheld.is_some() {
                Vec::new()
            } else {
                certify::certificate(
                    ir,
                    net_index as usize,
                    digests,
                    &sem,
                    &explored,
                    &outside,
                    &explore_outside,
                    &mut proofs.smt,
                )
            };
            proofs.certify_seconds += clock.elapsed().as_secs_f64();
            proofs.certificates.push(NetworkCertificate {
                name: network,
                theorems,
                frame: frame_name(ir),
                network: whole_index,
                sources: digests.to_vec(),
                key,
                reused: None,
                replayable: replayable_results && withheld.is_none(),
                bytes,
                withheld,
                states: counts.0,
                transitions: counts.1,
                seconds: network_clock.elapsed().as_secs_f64(),
                peak_bytes: phase.end(),
            });
        }
    }
    // Every theorem is kept: names repeat across networks (two agents' `plan Run`, two bindings
    // of one plan), and each network's theorems are its certificate's, refuted or not.
    proofs
}

/// The warnings proving a network gives about its `impossible` rules, which depend on the IR
/// alone, so that a network whose proof is reused gives them too: a condition that is not one
/// belief with constant arguments gets no release theorem (HK0070). Only a single-minded agent
/// is released by what it believes impossible, so only its conditions are looked at.
#[allow(clippy::too_many_arguments)]
fn release_warnings(
    net: &Network,
    sources: &SourceMap,
    agent: &hilbert_frontend::check::AgentInfo,
    ir_agent: &ir::Agent,
    binding: &str,
    desires: &[usize],
) -> Vec<Diagnostic> {
    let plan_name = &net.plan(net.root).name;
    let mut out = Vec::new();
    if ir_agent.commit != ir::CommitmentStrategy::SingleMinded {
        return out;
    }
    for &di in desires {
        let desire = &agent.desires[di];
        for (ri, (cond, _)) in ir_agent.desires[di].impossible.iter().enumerate() {
            let rule = &desire.impossible[ri].cond;
            if hilbert_kernel::check::constant_atom(cond).is_none() {
                out.push(
                    Diagnostic::warning(
                        RELEASE_NOT_GENERATED,
                        rule.span,
                        format!(
                            "no `{binding}_released_{}` is proved for this `impossible` condition",
                            desire.name
                        ),
                    )
                    .with_label("not one belief with constant arguments")
                    .with_note(format!(
                        "a release theorem is proved for a condition that is one belief with constant arguments (`B(self) leak(1)`); for `{}` the build does not check that aborting `{plan_name}` finishes, so a stuck `on abort` handler goes unnoticed",
                        goal_text(sources, rule, ir_agent)
                    ))
                    .with_help("write the condition as one belief with constant arguments if it can be, or check the handlers by hand"),
                );
            }
        }
    }
    out
}

/// The name of the frame obligation of a slice's network (`Operator.Work_frame`).
fn frame_name(slice: &Ir) -> String {
    hilbert_kernel::check::obligations(slice, 0)
        .unwrap_or_default()
        .into_iter()
        .find(|(_, k)| matches!(k, hilbert_kernel::check::Kind::Frame(_)))
        .map(|(n, _)| n)
        .unwrap_or_default()
}

/// When the search stopped at the bound, whether the last state it reached holds a large
/// integer: the likely reason it did not end (a counter with no bound has infinitely many
/// states). Said as a hint, with the plan and the value.
fn growing_integer(net: &Network, explored: &explore::Space) -> Option<String> {
    let graph = &explored.graph;
    if !graph.truncated || graph.is_empty() {
        return None;
    }
    fn largest(t: &Term, best: &mut Option<(i64, ir::PlanId)>) {
        use hilbert_kernel::semantics::After;
        match t {
            Term::Thread { env, plan, .. } => {
                for v in env {
                    if let ir::Value::Int(n) = v
                        && best.is_none_or(|(b, _)| n.unsigned_abs() > b.unsigned_abs())
                    {
                        *best = Some((*n, *plan));
                    }
                }
            }
            Term::Then(a, b) | Term::Interrupt(a, b) => {
                largest(a, best);
                largest(b, best);
            }
            Term::Par(cs) | Term::Choice(cs) => cs.iter().for_each(|c| largest(c, best)),
            Term::Label { body, start, .. } => {
                largest(body, best);
                largest(start, best);
            }
            Term::Inst { body, .. } | Term::Suspended(body) => largest(body, best),
            Term::Handling { body, then } => {
                largest(body, best);
                if let After::Suspend(x) | After::Continue(x) | After::Restart(x) = then {
                    largest(x, best);
                }
            }
            Term::Done | Term::Faulted(_) => {}
        }
    }
    let last = explored.state(StateId(graph.len() as u32 - 1));
    let mut best = None;
    largest(&last.term, &mut best);
    let (n, plan) = best?;
    // Far beyond what a bounded counter of the program's size would reach.
    (n.unsigned_abs() >= 1000).then(|| {
        format!(
            "the last state it reached holds the integer {n} in `{}`: a value that grows without bound gives infinitely many states (bound it in the plan, or raise --max-states)",
            net.plan(plan).name
        )
    })
}

/// Why a truncated exploration stopped: the bound it passed, as the reason of an unproved
/// theorem (which [`passed_a_bound`] recognises).
fn truncation(what: &str, graph: &Graph, limits: Limits) -> String {
    match (graph.memory_stop, graph.wide_state) {
        (Some(_), Some(words)) => format!(
            "{what} passed --max-memory {} (the steps of one state alone made over {} words of terms, some {} MiB, past the share of it one state may make: a term this wide cannot be explored under this bound) before it was complete",
            hilbert_frontend::input::human_bytes(limits.max_memory),
            words,
            (words * 16) >> 20,
        ),
        (Some(rss), None) => format!(
            "{what} passed --max-memory {} (the process's resident set reached {:.1} MiB, over the {:.1} MiB an exploration may use) before it was complete",
            hilbert_frontend::input::human_bytes(limits.max_memory),
            rss as f64 / (1 << 20) as f64,
            limits.explore_memory() as f64 / (1 << 20) as f64,
        ),
        (None, _) => format!(
            "{what} passed --max-states {} before it was complete",
            limits.max_states
        ),
    }
}

/// Whether an unproved theorem's reason is a resource bound passed (`--max-states`,
/// `--max-memory`): an environment matter, exit code 2.
pub fn passed_a_bound(reason: &str) -> bool {
    reason.contains("--max-states") || reason.contains("--max-memory")
}

/// The bound a truncated exploration passed. An integer out of range is not one: it is a fault
/// like any other (`docs/semantics.md`, *Faults: one rule*), and its states decide the theorems.
fn bound_passed(graph: &Graph, limits: Limits) -> Option<String> {
    graph
        .truncated
        .then(|| truncation("the exploration", graph, limits))
}

/// For each distinct belief set of the graph, whether it satisfies one of the conditions, read
/// with the attention the set gives the agent (`docs/semantics.md`, Attention).
pub(crate) fn satisfying_sets(graph: &Graph, agent: &ir::Agent, achieved: &[Cond]) -> Vec<bool> {
    let reads_attention = achieved.iter().any(Cond::reads_attention);
    graph
        .belief_sets()
        .iter()
        .map(|atoms| {
            let beliefs: BTreeSet<Atom> = atoms.iter().cloned().collect();
            let a = if reads_attention {
                attention(agent, &beliefs)
            } else {
                0
            };
            achieved.iter().any(|c| holds(c, &beliefs, Some(a)))
        })
        .collect()
}

fn first_deadlock(graph: &Graph) -> Option<StateId> {
    (0..graph.len() as u32)
        .map(StateId)
        .find(|&s| !graph.progress(s))
}

pub(crate) fn deadlock_reason(graph: &Graph, s: StateId) -> String {
    deadlock_text(graph.fault(s))
}

/// What is wrong at a deadlock, from the fault that caused it (if a thread faulted).
fn deadlock_text(fault: Option<&Fault>) -> String {
    match fault {
        Some(Fault::NoArm(_)) => "deadlock: a `match` whose value matches no arm".into(),
        Some(Fault::DivisionByZero(_)) => "deadlock: a division by zero".into(),
        Some(Fault::Overflow(_)) => "deadlock: an integer left the 64-bit range".into(),
        Some(Fault::Diverged) => format!(
            "deadlock: a step that never reaches a communication (it diverges: the semantics runs at most {} nodes, or nests at most {} terms, in one step; a plan of that many steps with no communication between them diverges too)",
            hilbert_kernel::semantics::MACRO_STEP_FUEL,
            hilbert_kernel::semantics::MAX_NESTING
        ),
        Some(Fault::Malformed(_)) => "deadlock: malformed IR".into(),
        None => "deadlock: no process can move and the plan has not finished".into(),
    }
}

/// A violation of inevitability: a path to a terminal state, or a lasso.
enum Violation {
    /// A state without successors that is not a goal.
    Terminal(StateId),
    /// A cycle of non-goal states: a state on it, and the cycle's states in order.
    Cycle(StateId, Vec<StateId>),
}

/// Whether every maximal path from the starts reaches a goal state.
fn inevitable(graph: &Graph, is_goal: &dyn Fn(StateId) -> bool) -> Result<(), Violation> {
    // The region: states reachable from the starts through non-goal states only.
    let n = graph.len();
    let mut in_region = vec![false; n];
    let mut order = Vec::new();
    let mut queue: VecDeque<StateId> = VecDeque::new();
    for &s in &graph.starts {
        if !is_goal(s) && !in_region[s.0 as usize] {
            in_region[s.0 as usize] = true;
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        order.push(s);
        if graph.degree(s) == 0 {
            return Err(Violation::Terminal(s));
        }
        for e in graph.succ(s) {
            if !is_goal(e.to) && !in_region[e.to.0 as usize] {
                in_region[e.to.0 as usize] = true;
                queue.push_back(e.to);
            }
        }
    }
    // A cycle inside the region: Kahn's algorithm leaves exactly the states on or before cycles.
    let mut indegree = vec![0usize; n];
    for &s in &order {
        for e in graph.succ(s) {
            if in_region[e.to.0 as usize] {
                indegree[e.to.0 as usize] += 1;
            }
        }
    }
    let mut ready: Vec<StateId> = order
        .iter()
        .copied()
        .filter(|s| indegree[s.0 as usize] == 0)
        .collect();
    let mut removed = vec![false; n];
    while let Some(s) = ready.pop() {
        removed[s.0 as usize] = true;
        for e in graph.succ(s) {
            let t = e.to.0 as usize;
            if in_region[t] {
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.push(e.to);
                }
            }
        }
    }
    let Some(&left) = order.iter().find(|s| !removed[s.0 as usize]) else {
        return Ok(());
    };
    // Every state left has a predecessor left: walking predecessors must repeat.
    let mut preds: Vec<Vec<StateId>> = vec![Vec::new(); n];
    for &s in &order {
        if removed[s.0 as usize] {
            continue;
        }
        for e in graph.succ(s) {
            if in_region[e.to.0 as usize] && !removed[e.to.0 as usize] {
                preds[e.to.0 as usize].push(s);
            }
        }
    }
    let mut seen = vec![usize::MAX; n];
    let mut walk = vec![left];
    let mut at = left;
    seen[at.0 as usize] = 0;
    loop {
        let p = preds[at.0 as usize][0];
        if seen[p.0 as usize] != usize::MAX {
            let start = seen[p.0 as usize];
            // `walk[start..]` is the cycle walked backwards.
            let mut cycle: Vec<StateId> = walk[start..].to_vec();
            cycle.reverse();
            return Err(Violation::Cycle(p, cycle));
        }
        seen[p.0 as usize] = walk.len();
        walk.push(p);
        at = p;
    }
}

/// The edges of a shortest path from a start to `target`, as (state, edge index) pairs.
fn path_to(graph: &Graph, target: StateId) -> Vec<(StateId, usize)> {
    crate::props::shortest_from_start(graph, &|_| true, &|s| s == target)
        .map_or_else(Vec::new, |(path, _)| path)
}

pub(crate) fn cex_step(
    ir: &Ir,
    net: &Network,
    graph: &Graph,
    from: StateId,
    edge: usize,
) -> CexStep {
    let e = graph.edge(from, edge);
    shown_step(ir, net, &e.event, &e.added, &e.removed)
}

/// A step as a counterexample shows it: who moved, the event, the beliefs it added and removed.
fn shown_step(
    ir: &Ir,
    net: &Network,
    event: &hilbert_kernel::semantics::Event,
    added: &[Atom],
    removed: &[Atom],
) -> CexStep {
    let (mut process, shown) = describe_event(net, event);
    let sites = sites(net, event);
    // Instances of one name (three philosophers of one plan) told apart by their numbers.
    match (event, &sites[..]) {
        (hilbert_kernel::semantics::Event::Sync { .. }, [from, to]) => {
            process = format!("{} → {}", from.name, to.name);
        }
        (hilbert_kernel::semantics::Event::Tau { .. }, [one]) => process = one.name.clone(),
        _ => {}
    }
    CexStep {
        process,
        event: shown,
        beliefs_added: added.iter().map(|a| show_atom(ir, net, a)).collect(),
        beliefs_removed: removed.iter().map(|a| show_atom(ir, net, a)).collect(),
        sites,
    }
}

fn path_cex(
    ir: &Ir,
    net: &Network,
    graph: &Graph,
    target: StateId,
    cycle: Option<&[StateId]>,
    conclusion: String,
) -> Counterexample {
    let mut steps: Vec<CexStep> = path_to(graph, target)
        .into_iter()
        .map(|(s, i)| cex_step(ir, net, graph, s, i))
        .collect();
    let mut cycle_from = None;
    if let Some(cycle) = cycle {
        cycle_from = Some(steps.len());
        for (k, &s) in cycle.iter().enumerate() {
            let next = cycle[(k + 1) % cycle.len()];
            let i = graph.succ(s).position(|e| e.to == next).unwrap_or(0);
            steps.push(cex_step(ir, net, graph, s, i));
        }
    }
    Counterexample {
        steps,
        cycle_from,
        conclusion,
        blocked: Vec::new(),
    }
}

fn violation_cex(
    ir: &Ir,
    net: &Network,
    graph: &Graph,
    v: Violation,
    goal: &str,
) -> Counterexample {
    match v {
        Violation::Terminal(s) => {
            let conclusion = if graph.finished(s) {
                format!("the plan finished without {goal}")
            } else {
                format!("{}, without {goal}", deadlock_reason(graph, s))
            };
            path_cex(ir, net, graph, s, None, conclusion)
        }
        Violation::Cycle(s, cycle) => {
            // Rotate the cycle so that it starts where the path enters it.
            let k = cycle.iter().position(|&c| c == s).unwrap_or(0);
            let mut rotated = cycle[k..].to_vec();
            rotated.extend_from_slice(&cycle[..k]);
            path_cex(
                ir,
                net,
                graph,
                s,
                Some(&rotated),
                format!("the plan can cycle forever without {goal}"),
            )
        }
    }
}

/// Where the commands from outside of a theorem land: from each state of a space in `order`
/// (the kernel's), or each suspended one, with the impossible atom added when there is one,
/// each command in turn.
pub(crate) struct Origins<'a> {
    order: &'a [u32],
    suspended_only: bool,
    atom: Option<&'a Atom>,
    commands: &'static [Command],
}

impl Origins<'_> {
    /// The origins as states, made ready for the commands.
    fn states<'s>(
        &'s self,
        space: &'s explore::Space,
    ) -> impl Iterator<Item = (StateId, State)> + 's {
        self.order.iter().filter_map(move |&i| {
            let mut s = space.state(StateId(i));
            if self.suspended_only && !hilbert_kernel::semantics::suspended(&s.term) {
                return None;
            }
            if let Some(atom) = self.atom {
                s.beliefs.insert(atom.clone());
            }
            Some((StateId(i), s))
        })
    }

    /// The states the commands lead to, streamed in the kernel's order; the tells the
    /// landings run infeasibly (a handler's first actions run in its landing) go to `bad`.
    fn starts<'s>(
        &'s self,
        sem: &'s Semantics,
        space: &'s explore::Space,
        layer: usize,
        bad: &'s std::cell::RefCell<Landings>,
    ) -> impl Iterator<Item = State> + 's {
        self.states(space).flat_map(move |(i, s)| {
            self.commands.iter().map(move |&c| {
                let landed = sem.command_root(&s, c);
                for t in landed.effects.tells.iter().filter(|t| !t.2) {
                    bad.borrow_mut().entry((t.0, t.1)).or_insert((layer, i, c));
                }
                landed.next
            })
        })
    }

    /// The origin and the command whose landing is `start`, with what the landing did.
    fn find(
        &self,
        sem: &Semantics,
        space: &explore::Space,
        start: &State,
    ) -> Option<(StateId, Command, hilbert_kernel::semantics::Step)> {
        self.states(space).find_map(|(i, s)| {
            self.commands.iter().find_map(|&c| {
                let landed = sem.command_root(&s, c);
                (landed.next == *start).then_some((i, c, landed))
            })
        })
    }
}

/// What commands from outside a theorem is about.
#[derive(Clone)]
pub(crate) enum Outside {
    /// The release: the atom arrives, then an abort.
    Released(Atom),
    /// An abort from every state.
    Abortable,
    /// A stop from every state; then a resume and an abort from where it suspended the plan.
    Stoppable,
}

impl Outside {
    /// Whether its explorations end only where the scene has finished: an abort from any
    /// state (one that lands while the root restarts itself does nothing, and the restarted
    /// body is settled without it), rather than where no command from outside is under way.
    pub(crate) fn until_finished(&self) -> bool {
        !matches!(self, Outside::Stoppable)
    }

    /// Whether state `id` of one of its explorations is where that exploration ends.
    pub(crate) fn ends(&self, space: &explore::Space, id: StateId) -> bool {
        match self.until_finished() {
            true => space.graph.finished(id),
            false => space.settled(id),
        }
    }

    /// What the first exploration starts from.
    fn first<'a>(&'a self, order: &'a [u32]) -> Origins<'a> {
        let (atom, commands): (_, &'static [Command]) = match self {
            Outside::Released(atom) => (Some(atom), &[Command::Abort]),
            Outside::Abortable => (None, &[Command::Abort]),
            Outside::Stoppable => (None, &[Command::Stop]),
        };
        Origins {
            order,
            suspended_only: false,
            atom,
            commands,
        }
    }

    /// What the second exploration (`_stoppable`'s) starts from: the suspended states of the
    /// first, in its canonical order.
    fn second(order: &[u32]) -> Origins<'_> {
        Origins {
            order,
            suspended_only: true,
            atom: None,
            commands: &[Command::Resume, Command::Abort],
        }
    }
}

/// The explorations of one theorem about commands from outside (`_released_`, `_abortable`:
/// one; `_stoppable`: the stop's, then the resume's and the abort's from where it suspended
/// the plan), each not going on from a settled state. Streamed: each landing is imported into
/// the explorer as it is made, never all held as terms at once. The kernel's witness is made
/// from the same spaces (`certify`), so each is explored once per build.
pub(crate) fn explore_commands(
    about: &Outside,
    sem: &Semantics,
    main: &explore::Space,
    order: &[u32],
    explore: &dyn Fn(&mut dyn Iterator<Item = State>, bool) -> explore::Space,
) -> Commanded {
    let bad = std::cell::RefCell::new(Landings::new());
    let halt = !about.until_finished();
    let first = explore(&mut about.first(order).starts(sem, main, 0, &bad), halt);
    let mut spaces = vec![first];
    if matches!(about, Outside::Stoppable) && !spaces[0].graph.truncated {
        let stop_order = certify::canonical_order(&spaces[0].graph);
        let second = explore(
            &mut Outside::second(&stop_order).starts(sem, &spaces[0], 1, &bad),
            true,
        );
        spaces.push(second);
    }
    Commanded {
        about: about.clone(),
        spaces,
        bad: bad.into_inner(),
    }
}

/// The tells the landings of commands from outside ran infeasibly, each with its first such
/// landing: the exploration it starts (0, or 1 after a stop), its origin there and the command.
type Landings = std::collections::BTreeMap<(ir::PlanId, u32), (usize, StateId, Command)>;

/// The explorations of a theorem about commands from outside, and the tells their landings
/// ran infeasibly.
pub struct Commanded {
    about: Outside,
    pub(crate) spaces: Vec<explore::Space>,
    bad: Landings,
}

/// The path to where a command from outside lands, from the scene: the path to its origin
/// (after a stop: to the stop, the stop, and the stop's path), then the command.
#[allow(clippy::too_many_arguments)]
fn landing_cex(
    ir: &Ir,
    net: &Network,
    sem: &Semantics,
    main: &explore::Space,
    order: &[u32],
    about: &Outside,
    spaces: &[explore::Space],
    layer: usize,
    origin: StateId,
    command: Command,
) -> Counterexample {
    let plan = &net.plan(net.root).name;
    let mut cex = Counterexample::default();
    let from = match layer {
        0 => {
            cex = path_cex(ir, net, &main.graph, origin, None, String::new());
            main
        }
        _ => {
            let stop = &spaces[0];
            let stop_start = path_to(&stop.graph, origin)
                .first()
                .map_or(origin, |&(s, _)| s);
            if let Some((w, c, l)) = about.first(order).find(sem, main, &stop.state(stop_start)) {
                cex = path_cex(ir, net, &main.graph, w, None, String::new());
                cex.steps.push(command_step(ir, net, plan, c, &l, None));
                cex.steps.extend(
                    path_to(&stop.graph, origin)
                        .into_iter()
                        .map(|(s, i)| cex_step(ir, net, &stop.graph, s, i)),
                );
            }
            stop
        }
    };
    let mut s = from.state(origin);
    let atom = match about {
        Outside::Released(a) if layer == 0 => {
            s.beliefs.insert(a.clone());
            Some(a)
        }
        _ => None,
    };
    let landed = sem.command_root(&s, command);
    let mut step = command_step(ir, net, plan, command, &landed, atom);
    if landed.next.term == s.term {
        // Commands on an instance whose handlers run for an abort or a restart do nothing.
        step.event += " (it does nothing: the plan's handlers are already running)";
    }
    cex.steps.push(step);
    cex
}

/// Decides a theorem about commands from outside on its explorations: every path from a
/// landing reaches a settled state. Refuted with the path to where the command lands, the
/// command, and the handlers' path to where they are stuck or cycle.
#[allow(clippy::too_many_arguments)]
fn decide_commands(
    ir: &Ir,
    net: &Network,
    sem: &Semantics,
    main: &explore::Space,
    order: &[u32],
    about: &Outside,
    spaces: &[explore::Space],
    limits: Limits,
) -> Status {
    let what = match about {
        Outside::Stoppable => "the exploration after the stop",
        _ => "the exploration after the abort",
    };
    for (k, sub) in spaces.iter().enumerate() {
        if sub.graph.truncated {
            return Status::Unproved(truncation(what, &sub.graph, limits));
        }
        let Err(v) = inevitable(&sub.graph, &|t| about.ends(sub, t)) else {
            continue;
        };
        // The landing the violation is reached from (shortest paths run from the starts).
        let at = match &v {
            Violation::Terminal(t) | Violation::Cycle(t, _) => *t,
        };
        let start = path_to(&sub.graph, at).first().map_or(at, |&(s, _)| s);
        let start_state = sub.state(start);
        let stop_order;
        let (origins, from) = match k {
            0 => (about.first(order), main),
            _ => {
                stop_order = certify::canonical_order(&spaces[0].graph);
                (Outside::second(&stop_order), &spaces[0])
            }
        };
        let Some((origin, command, _)) = origins.find(sem, from, &start_state) else {
            return Status::Unproved(format!(
                "{what}: the command that leads to the violation was not found"
            ));
        };
        let mut cex = landing_cex(ir, net, sem, main, order, about, spaces, k, origin, command);
        let goal = match command {
            Command::Stop => "the stop completing (its handlers finished, the plan suspended)",
            Command::Resume => "the resume completing (its handlers finished, the plan going on)",
            _ => "the scene finishing (the abort's handlers run to their end)",
        };
        let tail = violation_cex(ir, net, &sub.graph, v, goal);
        if let Some(k) = tail.cycle_from {
            cex.cycle_from = Some(cex.steps.len() + k);
        }
        cex.steps.extend(tail.steps);
        let after = match command {
            Command::Stop => "after the stop, the plan",
            Command::Resume => "after the resume, the plan",
            _ => "after the abort, the plan",
        };
        cex.conclusion = tail.conclusion.replacen("the plan", after, 1);
        return Status::Refuted(cex);
    }
    Status::Proved
}

/// A command from outside as a counterexample step: who issues it (the runtime's commitment
/// law, or its priorities), with the impossible atom's arrival when it comes first.
fn command_step(
    ir: &Ir,
    net: &Network,
    plan: &str,
    command: Command,
    landed: &hilbert_kernel::semantics::Step,
    atom: Option<&Atom>,
) -> CexStep {
    let (process, verb) = match command {
        Command::Stop => ("(runtime: a higher priority)", "stop"),
        Command::Resume => ("(runtime: the subgoal is done)", "resume"),
        _ => ("(commitment law)", "abort"),
    };
    let mut added: Vec<String> = atom.map(|a| show_atom(ir, net, a)).into_iter().collect();
    added.extend(landed.effects.added.iter().map(|a| show_atom(ir, net, a)));
    let event = match atom {
        Some(a) => format!("{} arrives; {verb} {plan}", show_atom(ir, net, a)),
        None => format!("{verb} {plan}"),
    };
    CexStep {
        process: process.into(),
        event,
        beliefs_added: added,
        beliefs_removed: landed
            .effects
            .removed
            .iter()
            .map(|a| show_atom(ir, net, a))
            .collect(),
        sites: Vec::new(),
    }
}

/// `Plan_tell_feasible_N`: every execution of that tell is feasible.
fn tell_feasible(ir: &Ir, net: &Network, graph: &Graph, plan: ir::PlanId, n: u32) -> Status {
    for s in 0..graph.len() {
        for (i, e) in graph.succ(StateId(s as u32)).enumerate() {
            if e.tells.iter().any(|&(p, k, ok)| p == plan && k == n && !ok) {
                let mut cex = path_cex(ir, net, graph, StateId(s as u32), None, String::new());
                cex.steps
                    .push(cex_step(ir, net, graph, StateId(s as u32), i));
                cex.conclusion = format!(
                    "tell {n} of `{}` runs when the teller does not believe what it tells, or already believes the other agent does",
                    net.plan(plan).name
                );
                return Status::Refuted(cex);
            }
        }
    }
    Status::Proved
}

/// `Plan_tell_feasible_N` of a tell inside a handler: every execution of it is feasible, in
/// the scene and in the handler runs the commands from outside start (abortable, released,
/// stoppable: the runtime's). A run that was not explored leaves it unproved.
#[allow(clippy::too_many_arguments)]
fn handler_tell(
    ir: &Ir,
    net: &Network,
    (sem, main, order): (&Semantics, &explore::Space, &[u32]),
    outside: &[(usize, Commanded)],
    plan: ir::PlanId,
    n: u32,
    where_: &str,
    limits: Limits,
) -> Status {
    if let Some(space) = outside
        .iter()
        .flat_map(|(_, c)| &c.spaces)
        .find(|s| s.graph.truncated)
    {
        return Status::Unproved(format!(
            "the tell is {where_}, and the handler runs after the commands from outside were not all explored: {}",
            truncation("that exploration", &space.graph, limits)
        ));
    }
    if let Status::Refuted(cex) = tell_feasible(ir, net, &main.graph, plan, n) {
        return Status::Refuted(cex);
    }
    for (_, c) in outside {
        // The handler's first actions run in the landing itself: the path to it, and it.
        let Some(&(layer, origin, command)) = c.bad.get(&(plan, n)) else {
            continue;
        };
        let mut cex = landing_cex(
            ir, net, sem, main, order, &c.about, &c.spaces, layer, origin, command,
        );
        cex.conclusion = format!(
            "where the command lands, tell {n} of `{}` runs at once, when the teller does not believe what it tells, or already believes the other agent does",
            net.plan(plan).name
        );
        return Status::Refuted(cex);
    }
    for space in outside.iter().flat_map(|(_, c)| &c.spaces) {
        if let Status::Refuted(mut cex) = tell_feasible(ir, net, &space.graph, plan, n) {
            // The path within the handler run, from where the command from outside landed.
            cex.conclusion = format!(
                "from where a command from outside of the runtime landed: {}",
                cex.conclusion
            );
            return Status::Refuted(cex);
        }
    }
    Status::Proved
}

/// Every node of a plan's body and handlers.
fn plan_nodes(net: &Network, code: &ir::PlanCode) -> Vec<ir::NodeId> {
    nodes_from(
        net,
        [Some(code.body), code.on_stop, code.on_resume, code.on_abort]
            .into_iter()
            .flatten()
            .collect(),
    )
}

/// The tells inside a plan's handlers (`on stop`, `on resume`, `on abort`), by number, with
/// the handler's name: decided over the handler runs too (`handler_tell`).
fn handler_tells(net: &Network, code: &ir::PlanCode) -> Vec<(u32, &'static str)> {
    let mut out = Vec::new();
    for (h, root) in [
        ("on stop", code.on_stop),
        ("on resume", code.on_resume),
        ("on abort", code.on_abort),
    ] {
        for n in nodes_from(net, root.into_iter().collect()) {
            if let Node::Tell { index, .. } = &net.nodes[n.0 as usize] {
                out.push((*index, h));
            }
        }
    }
    out
}

/// The plans whose bodies a handler run may execute: those a handler of the network calls, and
/// those they call in turn (docs/semantics.md, `Plan_tell_feasible_N`).
fn called_from_handlers(net: &Network) -> BTreeSet<usize> {
    let handlers = net
        .plans
        .iter()
        .flat_map(|p| [p.on_stop, p.on_resume, p.on_abort])
        .flatten()
        .collect();
    let mut work = nodes_from(net, handlers);
    let mut called = BTreeSet::new();
    while let Some(n) = work.pop() {
        if let Node::Call { plan, .. } = &net.nodes[n.0 as usize]
            && called.insert(plan.0 as usize)
        {
            work.extend(nodes_from(net, vec![net.plan(*plan).body]));
        }
    }
    called
}

/// Every node reachable from `roots` through the structure of the code.
fn nodes_from(net: &Network, mut stack: Vec<ir::NodeId>) -> Vec<ir::NodeId> {
    let mut out = Vec::new();
    while let Some(n) = stack.pop() {
        out.push(n);
        match &net.nodes[n.0 as usize] {
            Node::Seq(a, b) | Node::Interrupt(a, b) => {
                stack.push(*a);
                stack.push(*b);
            }
            Node::Par(cs) | Node::Choice(cs) => stack.extend(cs.iter().copied()),
            Node::Label(_, b) => stack.push(*b),
            Node::Match { arms, other, .. } => {
                stack.extend(arms.iter().map(|(_, b)| *b));
                stack.extend(other.iter().copied());
            }
            _ => {}
        }
    }
    out
}
