//! An agent instance: beliefs, desires, attention and the intention set as host state, and the
//! cycle that drives the plans from them.
//!
//! Each cycle: take in the percepts; shift attention where a `when … attend` rule holds;
//! deliberate when the reconsideration policy says so — apply the commitment law to every
//! intention, then adopt what the `intend` rules license — and step every running plan once.
//! Plans run the very IR the build proved, with the kernel's reference semantics.

use crate::deliberation::{Counts, Features, Licence, distribution, evaluate, sample};
use crate::journal::{Entry, Event, Header, JOURNAL_VERSION};
use crate::reconsideration::Reconsideration;
use crate::scenario::{Scenario, parse_atom};
use hilbert_certificates::ir::{
    Agent, AgentId, Command, CommitmentStrategy, Cond, Ir, Network, PolicyIr, Value,
};
use hilbert_kernel::eval::{attention as attention_of, holds};
use hilbert_kernel::semantics::{self, Atom, Semantics, State};
use std::collections::{BTreeMap, BTreeSet};

/// What a host plan reports after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostStatus {
    /// It has more to do.
    Running,
    /// It has finished.
    Finished,
}

/// What a host plan may do in a step: read and change the agent's beliefs.
pub struct HostContext<'a> {
    agent: &'a Agent,
    beliefs: &'a mut BTreeSet<Atom>,
    added: Vec<Atom>,
    removed: Vec<Atom>,
    /// The cycle.
    pub cycle: u64,
    /// How many steps this plan has taken before.
    pub steps: u64,
}

impl HostContext<'_> {
    /// Believes an atom written as in the sources (`made(3)`).
    pub fn believe(&mut self, atom: &str) -> Result<(), String> {
        let (belief, args) = parse_atom(self.agent, atom)?;
        let a = Atom {
            told: None,
            belief,
            args,
        };
        if self.beliefs.insert(a.clone()) {
            self.added.push(a);
        }
        Ok(())
    }

    /// Forgets an atom.
    pub fn forget(&mut self, atom: &str) -> Result<(), String> {
        let (belief, args) = parse_atom(self.agent, atom)?;
        let a = Atom {
            told: None,
            belief,
            args,
        };
        if self.beliefs.remove(&a) {
            self.removed.push(a);
        }
        Ok(())
    }

    /// Whether the agent believes an atom.
    pub fn believes(&self, atom: &str) -> bool {
        parse_atom(self.agent, atom).is_ok_and(|(belief, args)| {
            self.beliefs.contains(&Atom {
                told: None,
                belief,
                args,
            })
        })
    }
}

/// A plan body written in Rust: `plan P ↦ host.name` runs it.
pub type HostFn = fn(&mut HostContext) -> HostStatus;

/// The host functions the runtime may call, by name.
#[derive(Default, Clone)]
pub struct Hosts {
    functions: BTreeMap<String, HostFn>,
}

impl Hosts {
    /// No host functions.
    pub fn new() -> Hosts {
        Hosts::default()
    }

    /// Registers `f` as `host.name`.
    pub fn register(&mut self, name: &str, f: HostFn) -> &mut Hosts {
        self.functions.insert(name.to_string(), f);
        self
    }
}

/// Where an intention is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Its plan runs.
    Running,
    /// Stopped by a higher-priority intention while its `on stop` handlers are under way: it
    /// takes steps (those of its handlers) until they finish, then it is [`Status::Suspended`].
    Stopping,
    /// Stopped by a higher-priority intention, keeping its continuation; its stop has completed.
    Suspended,
    /// Resumed while its `on resume` handlers are under way: it takes steps (those of its
    /// handlers) until they finish, then it is [`Status::Running`] (or stopped again, when an
    /// intention of higher priority is not done by then).
    Resuming,
    /// Released: its `on abort` handlers run, then it is gone.
    Aborting,
    /// Its plan has ended; the next deliberation releases it.
    Finished,
}

/// What runs an intention.
#[derive(Clone, Debug)]
enum Body {
    /// A plan network of the IR, at some state.
    Network { net: usize, state: State },
    /// A host function and how many steps it took.
    Host { name: String, steps: u64 },
}

/// An adopted intention.
#[derive(Clone, Debug)]
pub struct Intention {
    /// Its number, from 1 in order of adoption.
    pub id: u64,
    /// The plan binding (index into the agent's plans).
    pub plan: usize,
    /// The desire it serves.
    pub desire: usize,
    /// Where it is.
    pub status: Status,
    body: Body,
    /// Why it was released, once it is (its `on abort` handlers then run).
    released: Option<String>,
}

/// Why a run could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError(pub String);

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One running agent.
pub struct AgentRun<'a> {
    ir: &'a Ir,
    id: AgentId,
    agent: &'a Agent,
    policy: Reconsideration,
    hosts: Hosts,
    scenario: Scenario,
    /// The agent's beliefs.
    pub beliefs: BTreeSet<Atom>,
    /// The index of the current attention in the agent's attentions.
    pub attention: u32,
    /// Which desires the agent holds.
    pub desired: Vec<bool>,
    /// The intention set.
    pub intentions: Vec<Intention>,
    /// Per plan binding: rewards counted and their mean (the learned value).
    pub learned: Vec<(u64, f64)>,
    rewarded: BTreeSet<(u64, usize)>,
    next_id: u64,
    rng: u64,
    cycle: u64,
    changed: BTreeSet<String>,
    /// The entries of the cycles not yet taken by [`AgentRun::take_journal`] (a [`System`]
    /// takes them every cycle, so a run of any length holds only one cycle's).
    journal: Vec<Entry>,
    /// The scenario's events in the order they happen (by cycle, then as written), and the
    /// first of them not yet perceived: each cycle looks at its own events only.
    event_order: Vec<usize>,
    next_event: usize,
    /// Per plan binding: how often it was chosen (UCB's counts).
    pub chosen: Vec<u64>,
    /// Atoms told to other agents, to deliver: (recipient, atom as the recipient believes it).
    outbox: Vec<(AgentId, Atom)>,
    /// Atoms told by other agents, to believe at the next cycle: (teller, atom).
    inbox: Vec<(String, Atom)>,
}

impl<'a> AgentRun<'a> {
    /// Prepares agent `name` of `ir` to run `scenario` under `policy`.
    pub fn new(
        ir: &'a Ir,
        name: &str,
        policy: Reconsideration,
        scenario: Scenario,
        hosts: Hosts,
    ) -> Result<AgentRun<'a>, RunError> {
        let index = ir
            .agents
            .iter()
            .position(|a| a.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = ir.agents.iter().map(|a| a.name.as_str()).collect();
                RunError(format!(
                    "no agent `{name}` in the project (agents: {})",
                    names.join(", ")
                ))
            })?;
        let agent = &ir.agents[index];
        for b in &agent.plans {
            if let Some(h) = &b.host
                && !hosts.functions.contains_key(h)
            {
                return Err(RunError(format!(
                    "plan `{}` runs `host.{h}`, which the host has not registered",
                    b.name
                )));
            }
        }
        let mut beliefs = BTreeSet::new();
        for text in &scenario.beliefs {
            let (belief, args) = parse_atom(agent, text).map_err(RunError)?;
            beliefs.insert(Atom {
                told: None,
                belief,
                args,
            });
        }
        for e in &scenario.events {
            if let Some(a) = &e.agent {
                if !ir.agents.iter().any(|x| x.name == *a) {
                    let names: Vec<&str> = ir.agents.iter().map(|a| a.name.as_str()).collect();
                    return Err(RunError(format!(
                        "the event at cycle {} is for agent `{a}`, which is not in the project (agents: {})",
                        e.cycle,
                        names.join(", ")
                    )));
                }
                if *a != agent.name {
                    continue;
                }
            }
            for text in e.believe.iter().chain(&e.forget) {
                parse_atom(agent, text).map_err(RunError)?;
            }
            for d in &e.drop {
                if !agent.desires.iter().any(|x| x.name == *d) {
                    return Err(RunError(format!("`{d}` is not a desire of {}", agent.name)));
                }
            }
        }
        let scenario_events = scenario.events.len();
        let event_cycles: Vec<u64> = scenario.events.iter().map(|e| e.cycle).collect();
        Ok(AgentRun {
            ir,
            id: AgentId(index as u32),
            agent,
            policy,
            hosts,
            rng: scenario.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            scenario,
            beliefs,
            attention: 0,
            desired: vec![true; agent.desires.len()],
            intentions: Vec::new(),
            learned: vec![(0, 0.0); agent.plans.len()],
            rewarded: BTreeSet::new(),
            next_id: 1,
            cycle: 0,
            changed: BTreeSet::new(),
            journal: Vec::new(),
            event_order: {
                let mut order: Vec<usize> = (0..scenario_events).collect();
                order.sort_by_key(|&i| event_cycles[i]);
                order
            },
            next_event: 0,
            outbox: Vec::new(),
            inbox: Vec::new(),
            chosen: vec![0; agent.plans.len()],
        })
    }

    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.agent.name
    }

    /// The agent's index in the IR.
    pub fn id(&self) -> AgentId {
        self.id
    }

    /// Takes the atoms this agent told others since the last call.
    pub fn take_outbox(&mut self) -> Vec<(AgentId, Atom)> {
        std::mem::take(&mut self.outbox)
    }

    /// Delivers an atom another agent told this one: believed at the start of the next cycle.
    pub fn deliver(&mut self, from: &str, atom: Atom) {
        self.inbox.push((from.to_string(), atom));
    }

    /// The scenario's cycles: how many this agent runs at most.
    pub fn cycles(&self) -> u64 {
        self.scenario.cycles
    }

    /// Whether every cycle of the scenario has run.
    pub fn done(&self) -> bool {
        self.cycle >= self.scenario.cycles
    }

    /// Whether the agent has nothing left to do: no intention, nothing told to it, and no
    /// scenario event to come.
    pub fn idle(&self) -> bool {
        self.intentions.is_empty()
            && self.inbox.is_empty()
            && self.event_order[self.next_event..].iter().all(|&i| {
                let e = &self.scenario.events[i];
                e.cycle < self.cycle || e.agent.as_ref().is_some_and(|a| *a != self.agent.name)
            })
    }

    /// The journal's header for a run of these agents.
    pub fn header(&self, agents: Vec<String>, sources: Vec<(String, String)>) -> Header {
        Header {
            journal: JOURNAL_VERSION,
            agents,
            policy: self.policy.name().to_string(),
            watch: match &self.policy {
                Reconsideration::OnChange(w) => w.iter().cloned().collect(),
                _ => Vec::new(),
            },
            project: None,
            sources,
            scenario: self.scenario.clone(),
            unverified: None,
        }
    }

    /// The journal so far (since the last [`AgentRun::take_journal`]).
    pub fn journal(&self) -> &[Entry] {
        &self.journal
    }

    /// Takes the journal's entries so far, leaving it empty.
    pub fn take_journal(&mut self) -> Vec<Entry> {
        std::mem::take(&mut self.journal)
    }

    /// Runs every cycle of the scenario, or until the agent has nothing left to do.
    pub fn run(&mut self) {
        while !self.done() {
            let quiet = self.step_cycle();
            if quiet && self.idle() {
                break;
            }
        }
    }

    fn log(&mut self, event: Event) {
        self.journal.push(Entry {
            cycle: self.cycle,
            agent: self.agent.name.clone(),
            event,
        });
    }

    fn network(&self, n: usize) -> &'a Network {
        &self.ir.networks[n]
    }

    fn atom_text(&self, net: Option<&Network>, a: &Atom) -> String {
        let args: Vec<String> = a
            .args
            .iter()
            .map(|v| match net {
                Some(n) => n.show_value(v),
                None => match v {
                    hilbert_certificates::ir::Value::Str(s) => format!("{s:?}"),
                    hilbert_certificates::ir::Value::Int(i) => i.to_string(),
                    hilbert_certificates::ir::Value::Bool(b) => b.to_string(),
                    other => format!("{other:?}"),
                },
            })
            .collect();
        self.ir.atom_text(self.id, a.told, a.belief, &args)
    }

    fn holds(&self, c: &Cond) -> bool {
        holds(c, &self.beliefs, Some(self.attention))
    }

    fn achieved(&self, d: usize) -> bool {
        self.agent.desires[d].achieved.iter().any(|c| self.holds(c))
    }

    fn impossible(&self, d: usize) -> Option<String> {
        self.agent.desires[d]
            .impossible
            .iter()
            .find(|(c, _)| self.holds(c))
            .map(|(_, because)| because.clone())
    }

    fn note_changes(&mut self, atoms: &[Atom]) {
        for a in atoms {
            let holder = a.told.unwrap_or(self.id);
            if let Some(b) = self.ir.agents[holder.0 as usize]
                .beliefs
                .get(a.belief.0 as usize)
            {
                self.changed.insert(b.name.clone());
            }
        }
    }

    /// One cycle. Returns whether nothing happened beyond deliberating.
    pub fn step_cycle(&mut self) -> bool {
        let before = self.journal.len();
        self.percepts();
        self.shift_attention();
        // A plan runs while it takes steps: its body, or its handlers for a command under way.
        let running = self.intentions.iter().any(|i| {
            matches!(
                i.status,
                Status::Running | Status::Stopping | Status::Resuming | Status::Aborting
            )
        });
        let first = self.cycle == 0;
        let changed = std::mem::take(&mut self.changed);
        let mut deliberated = false;
        if self.policy.deliberate(first, running, &changed) {
            let reason = if first {
                "the first cycle".to_string()
            } else {
                match &self.policy {
                    Reconsideration::Bold => "no plan is running".to_string(),
                    Reconsideration::Cautious => "the policy is cautious".to_string(),
                    Reconsideration::OnChange(w) => {
                        let seen: Vec<&String> =
                            w.iter().filter(|x| changed.contains(*x)).collect();
                        if seen.is_empty() {
                            "no plan is running".to_string()
                        } else {
                            format!(
                                "{} changed",
                                seen.iter()
                                    .map(|s| s.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        }
                    }
                }
            };
            self.log(Event::Deliberate { reason });
            deliberated = true;
            self.commitment_law();
            self.adopt();
            self.resume_suspended();
        }
        self.step_plans();
        self.rewards();
        let quiet = self.journal.len() == before + usize::from(deliberated);
        self.cycle += 1;
        quiet
    }

    fn percepts(&mut self) {
        for (from, atom) in std::mem::take(&mut self.inbox) {
            if self.beliefs.insert(atom.clone()) {
                self.note_changes(std::slice::from_ref(&atom));
                let atom = self.atom_text(None, &atom);
                self.log(Event::Told { from, atom });
            }
        }
        let mut events = Vec::new();
        while let Some(&i) = self.event_order.get(self.next_event) {
            let e = &self.scenario.events[i];
            if e.cycle > self.cycle {
                break;
            }
            if e.cycle == self.cycle && e.agent.as_ref().is_none_or(|a| *a == self.agent.name) {
                events.push(e.clone());
            }
            self.next_event += 1;
        }
        for e in events {
            let (mut added, mut removed) = (Vec::new(), Vec::new());
            for text in &e.believe {
                if let Ok((belief, args)) = parse_atom(self.agent, text) {
                    let a = Atom {
                        told: None,
                        belief,
                        args,
                    };
                    if self.beliefs.insert(a.clone()) {
                        added.push(a);
                    }
                }
            }
            for text in &e.forget {
                if let Ok((belief, args)) = parse_atom(self.agent, text) {
                    let a = Atom {
                        told: None,
                        belief,
                        args,
                    };
                    if self.beliefs.remove(&a) {
                        removed.push(a);
                    }
                }
            }
            self.note_changes(&added);
            self.note_changes(&removed);
            if !added.is_empty() || !removed.is_empty() {
                let added = added.iter().map(|a| self.atom_text(None, a)).collect();
                let removed = removed.iter().map(|a| self.atom_text(None, a)).collect();
                self.log(Event::Percept { added, removed });
            }
            for d in &e.drop {
                if let Some(i) = self.agent.desires.iter().position(|x| x.name == *d)
                    && self.desired[i]
                {
                    self.desired[i] = false;
                    self.log(Event::DesireDropped { desire: d.clone() });
                }
            }
        }
    }

    /// The attention the beliefs give, as the build computes it (`docs/semantics.md`,
    /// Attention): from the initial attention, each `when … attend` rule in source order whose
    /// condition holds (with the attention so far) moves it. Journaled when it changes, with
    /// the last rule that moved it (none: back to the initial attention).
    fn shift_attention(&mut self) {
        let mut attention = 0;
        let mut rule = None;
        for (k, (cond, to)) in self.agent.attends.iter().enumerate() {
            if holds(cond, &self.beliefs, Some(attention)) {
                attention = *to;
                rule = Some(k);
            }
        }
        debug_assert_eq!(attention, attention_of(self.agent, &self.beliefs));
        if attention != self.attention {
            let from = self.agent.attentions[self.attention as usize].clone();
            self.attention = attention;
            let to = self.agent.attentions[attention as usize].clone();
            self.log(Event::Attention {
                from,
                to,
                reason: match rule {
                    Some(k) => format!("the condition of `when … attend` rule {} holds", k + 1),
                    None => "no `when … attend` rule holds: the initial attention".into(),
                },
            });
        }
    }

    /// Releases what the agent's commitment strategy says to release: what is believed achieved;
    /// under `single_minded`, what is believed impossible too; under `open_minded`, what is no
    /// longer desired (a `drop`). A blind or open-minded agent keeps an intention it believes
    /// impossible, and the frame reads its desire as lasting as long (`docs/frames.md` §1).
    fn commitment_law(&mut self) {
        let strategy = self.agent.commit;
        let mut decisions = Vec::new();
        for i in &self.intentions {
            // Aborting: released already. Stopping or resuming: its handlers are under way, and
            // the law waits for them to finish (the build proves they do, `Plan_stoppable`);
            // it decides at the next deliberation after that.
            if matches!(
                i.status,
                Status::Aborting | Status::Stopping | Status::Resuming
            ) {
                continue;
            }
            let d = i.desire;
            let decision = if self.achieved(d) {
                ("achieved".to_string(), None)
            } else if let (CommitmentStrategy::SingleMinded, Some(b)) =
                (strategy, self.impossible(d))
            {
                ("impossible".to_string(), Some(b))
            } else if strategy == CommitmentStrategy::OpenMinded && !self.desired[d] {
                ("no longer desired".to_string(), None)
            } else if i.status == Status::Finished {
                (
                    "plan finished without achieving its desire".to_string(),
                    None,
                )
            } else {
                continue;
            };
            decisions.push((i.id, decision));
        }
        for (id, (reason, because)) in decisions {
            if let Some(k) = self.intentions.iter().position(|i| i.id == id) {
                self.release(k, reason, because);
            }
        }
        self.intentions.retain(|i| i.status != Status::Finished);
    }

    fn release(&mut self, k: usize, reason: String, because: Option<String>) {
        let (id, plan, desire) = {
            let i = &self.intentions[k];
            (i.id, i.plan, i.desire)
        };
        let plan_name = self.agent.plans[plan].name.clone();
        self.log(Event::Release {
            intention: id,
            plan: plan_name.clone(),
            desire: self.agent.desires[desire].name.clone(),
            reason: reason.clone(),
            because,
        });
        if self.intentions[k].status == Status::Finished {
            return;
        }
        match &self.intentions[k].body {
            Body::Network { net, state } => {
                let net = *net;
                let sem = Semantics::new(self.network(net), self.agent);
                let mut s = state.clone();
                s.beliefs = self.beliefs.clone();
                let step = sem.command_root(&s, Command::Abort);
                self.log(Event::Command {
                    intention: id,
                    plan: plan_name,
                    command: "abort".into(),
                    reason: format!("released: {reason}"),
                });
                self.absorb(k, net, step);
                self.intentions[k].status = Status::Aborting;
                self.intentions[k].released = Some(reason);
                self.end_if_done(k);
            }
            Body::Host { .. } => {
                self.intentions[k].status = Status::Finished;
            }
        }
    }

    /// Takes in a step's next state and effects for intention `k` of network `net`.
    fn absorb(&mut self, k: usize, net: usize, step: semantics::Step) {
        let network = self.network(net);
        let added: Vec<String> = step
            .effects
            .added
            .iter()
            .map(|a| self.atom_text(Some(network), a))
            .collect();
        let removed: Vec<String> = step
            .effects
            .removed
            .iter()
            .map(|a| self.atom_text(Some(network), a))
            .collect();
        self.note_changes(&step.effects.added);
        self.note_changes(&step.effects.removed);
        for a in &step.effects.added {
            if let Some(j) = a.told {
                self.outbox.push((
                    j,
                    Atom {
                        told: None,
                        belief: a.belief,
                        args: a.args.clone(),
                    },
                ));
            }
        }
        self.beliefs = step.next.beliefs.clone();
        if let Body::Network { state, .. } = &mut self.intentions[k].body {
            *state = step.next;
        }
        {
            let i = &self.intentions[k];
            let (process, event) = match &step.event {
                // The runtime's own command landing on the plan: what runs is its handlers.
                semantics::Event::Abort => ("(runtime)".to_string(), "handlers".to_string()),
                semantics::Event::Tau { inst } => network.describe_tau(*inst),
                semantics::Event::Sync {
                    sender,
                    receiver,
                    chan,
                    value,
                } => network.describe_sync(*sender, *receiver, chan, value),
            };
            let plan = self.agent.plans[i.plan].name.clone();
            let id = i.id;
            self.log(Event::Step {
                intention: id,
                plan,
                process,
                event,
                added,
                removed,
            });
        }
    }

    /// When intention `k`'s network has ended: an aborted one is gone; any other is finished
    /// and waits for the next deliberation to release it.
    fn end_if_done(&mut self, k: usize) {
        let done =
            matches!(&self.intentions[k].body, Body::Network { state, .. } if state.finished());
        if !done || self.intentions[k].status == Status::Finished {
            return;
        }
        let i = &self.intentions[k];
        let (id, plan) = (i.id, self.agent.plans[i.plan].name.clone());
        self.log(Event::Ended {
            intention: id,
            plan,
        });
        if self.intentions[k].status == Status::Aborting {
            self.intentions.remove(k);
        } else {
            self.intentions[k].status = Status::Finished;
        }
    }

    /// Adopts what the `intend` rules license: for each desire held, not achieved, not believed
    /// impossible and with no intention yet, the plans whose rules hold are the licensed options;
    /// the agent's values order them and its policy chooses one (`crate::deliberation`).
    fn adopt(&mut self) {
        let mut desires: Vec<usize> = Vec::new();
        for rule in &self.agent.intends {
            if !desires.contains(&(rule.desire as usize)) {
                desires.push(rule.desire as usize);
            }
        }
        for d in desires {
            if !self.desired[d]
                || self.achieved(d)
                || self.impossible(d).is_some()
                || self.intentions.iter().any(|i| i.desire == d)
            {
                continue;
            }
            let k = self.agent.plans.len();
            let mut mask = vec![false; k];
            let mut rules = vec![None; k];
            for (r, rule) in self.agent.intends.iter().enumerate() {
                if rule.desire as usize == d && self.holds(&rule.cond) {
                    mask[rule.plan as usize] = true;
                    rules[rule.plan as usize].get_or_insert(r);
                }
            }
            let licence = Licence(mask);
            if !licence.any() {
                continue;
            }
            let priority = self.agent.desires[d].priority;
            // A running intention of higher priority defers this one, and so does a stopped
            // one (or one being stopped or resumed), which resumes before anything of lower
            // priority starts.
            if self.intentions.iter().any(|i| {
                matches!(
                    i.status,
                    Status::Running | Status::Stopping | Status::Suspended | Status::Resuming
                ) && self.agent.desires[i.desire].priority > priority
            }) {
                continue;
            }
            let (q, policy) = match &self.agent.values {
                Some(v) => {
                    let state = OneAgent {
                        beliefs: &self.beliefs,
                        learned: &self.learned,
                    };
                    (evaluate(&v.options, k, &state).remove(0), v.policy)
                }
                None => (vec![0.0; k], PolicyIr::Greedy),
            };
            let Ok(pi) = distribution(policy, &q, &licence, &Counts(self.chosen.clone())) else {
                continue;
            };
            let u = (self.next_random() >> 11) as f64 / (1u64 << 53) as f64;
            let plan = sample(&pi, u);
            let Some(r) = rules[plan] else {
                continue;
            };
            // This one takes over from running intentions of lower priority. One being
            // resumed is stopped once its resume has completed (`follow_handlers`); one being
            // stopped, or stopped, is left as it is.
            for k in 0..self.intentions.len() {
                let i = &self.intentions[k];
                if i.status != Status::Running || self.agent.desires[i.desire].priority >= priority
                {
                    continue;
                }
                let reason = format!(
                    "subgoal `{}` (priority {priority}) takes over",
                    self.agent.desires[d].name
                );
                self.stop(k, reason);
            }
            let binding = &self.agent.plans[plan];
            let body = match (binding.network, &binding.host) {
                (Some(n), _) => {
                    let sem = Semantics::new(self.network(n as usize), self.agent);
                    let mut state = sem.initial();
                    state.beliefs = self.beliefs.clone();
                    Body::Network {
                        net: n as usize,
                        state,
                    }
                }
                (None, Some(h)) => Body::Host {
                    name: h.clone(),
                    steps: 0,
                },
                _ => continue,
            };
            let id = self.next_id;
            self.next_id += 1;
            self.chosen[plan] += 1;
            let licensed: Vec<usize> = (0..k).filter(|&i| licence.0[i]).collect();
            let mut reason = format!(
                "`intend {} for {}` (rule {}) holds",
                binding.name,
                self.agent.desires[d].name,
                r + 1
            );
            if licensed.len() > 1 || self.agent.values.is_some() {
                let shown: Vec<String> = licensed
                    .iter()
                    .map(|&i| format!("{} = {:.3}", self.agent.plans[i].name, q[i]))
                    .collect();
                reason.push_str(&format!(
                    "; chosen by {} among the licensed {}",
                    policy_name(policy),
                    shown.join(", ")
                ));
            }
            let options = (0..k)
                .map(|i| crate::journal::Choice {
                    plan: self.agent.plans[i].name.clone(),
                    licensed: licence.0[i],
                    p: pi[i],
                })
                .collect();
            self.log(Event::Adopt {
                intention: id,
                plan: binding.name.clone(),
                desire: self.agent.desires[d].name.clone(),
                reason,
                options,
            });
            self.intentions.push(Intention {
                id,
                plan,
                desire: d,
                status: Status::Running,
                body,
                released: None,
            });
        }
    }

    /// Resumes the stopped intentions of the highest priority among those waiting, when no
    /// running (or aborting, stopping or resuming) intention of higher priority holds them back.
    /// The others stay stopped until those are done: with priorities 0, 5 and 9, releasing 9
    /// resumes 5, and 0 waits for 5. Only an intention whose stop has completed
    /// ([`Status::Suspended`]) is resumed: one still [`Status::Stopping`] waits for its `on stop`
    /// handlers to finish, as the build's `Plan_stoppable` proves they do.
    fn resume_suspended(&mut self) {
        let priority = |i: &Intention| self.agent.desires[i.desire].priority;
        let Some(top) = self
            .intentions
            .iter()
            .filter(|i| i.status == Status::Suspended)
            .map(priority)
            .max()
        else {
            return;
        };
        if self.intentions.iter().any(|i| {
            matches!(
                i.status,
                Status::Running | Status::Aborting | Status::Stopping | Status::Resuming
            ) && priority(i) > top
        }) {
            return;
        }
        for k in 0..self.intentions.len() {
            if self.intentions[k].status == Status::Suspended
                && priority(&self.intentions[k]) == top
            {
                self.command(k, Command::Resume, "the subgoal is done".into());
                self.intentions[k].status = Status::Resuming;
                self.follow_handlers(k, true);
            }
        }
    }

    fn command(&mut self, k: usize, command: Command, reason: String) {
        let (id, plan) = (
            self.intentions[k].id,
            self.agent.plans[self.intentions[k].plan].name.clone(),
        );
        self.log(Event::Command {
            intention: id,
            plan,
            command: match command {
                Command::Stop => "stop",
                Command::Resume => "resume",
                Command::Abort => "abort",
                Command::Restart => "restart",
            }
            .into(),
            reason,
        });
        if let Body::Network { net, state } = &self.intentions[k].body {
            let net = *net;
            let sem = Semantics::new(self.network(net), self.agent);
            let mut s = state.clone();
            s.beliefs = self.beliefs.clone();
            let step = sem.command_root(&s, command);
            self.absorb(k, net, step);
        }
    }

    /// Stops intention `k` (running, or resumed while an intention of higher priority is not
    /// done): the command lands, and the intention is [`Status::Stopping`] while its `on stop`
    /// handlers are under way, [`Status::Suspended`] once its stop has completed.
    fn stop(&mut self, k: usize, reason: String) {
        self.command(k, Command::Stop, reason);
        self.intentions[k].status = Status::Stopping;
        self.follow_handlers(k, true);
    }

    /// Where intention `k`, being stopped or resumed, stands, from its root instance's body:
    /// still handling the command (`Term::Handling`), it stays [`Status::Stopping`] or
    /// [`Status::Resuming`] and takes steps; suspended, its stop has completed
    /// ([`Status::Suspended`]); anything else runs ([`Status::Running`]); ended, it has finished
    /// (`end_if_done`). `landed` says the command has just landed: its status is journaled
    /// then whatever it is, and afterwards each time it changes. A resume that completes while
    /// an intention of higher priority is not done (adopted while the `on resume` handlers
    /// ran) is followed at once by a stop.
    fn follow_handlers(&mut self, k: usize, landed: bool) {
        let was = self.intentions[k].status;
        let now = match &self.intentions[k].body {
            Body::Host { .. } if was == Status::Stopping => Status::Suspended,
            Body::Host { .. } => Status::Running,
            Body::Network { state, .. } if state.finished() => {
                self.end_if_done(k);
                return;
            }
            Body::Network { state, .. } => match root_body(&state.term) {
                // Still handling; or faulted as a whole (a diverging command): it stays, and
                // its next step finds it stuck.
                Some(semantics::Term::Handling { .. }) | None => was,
                Some(semantics::Term::Suspended(_)) => Status::Suspended,
                Some(_) => Status::Running,
            },
        };
        if now == was && !landed {
            return;
        }
        self.intentions[k].status = now;
        let reason = match (was, now, landed) {
            (Status::Stopping, Status::Stopping, _) => {
                "its on stop handlers take steps: it takes them until they finish"
            }
            (Status::Stopping, Status::Suspended, true) => {
                "its stop completed as it landed: no on stop handler takes a step"
            }
            (Status::Stopping, Status::Suspended, false) => "its on stop handlers finished",
            (Status::Stopping, _, _) => "its on stop handlers finished without suspending it",
            (_, Status::Resuming, _) => {
                "its on resume handlers take steps: it takes them before its plan goes on"
            }
            (_, Status::Running, true) => {
                "its resume completed as it landed: no on resume handler takes a step"
            }
            (_, Status::Running, false) => "its on resume handlers finished",
            _ => "its on resume handlers finished without resuming it",
        };
        let i = &self.intentions[k];
        let (id, plan) = (i.id, self.agent.plans[i.plan].name.clone());
        self.log(Event::Status {
            intention: id,
            plan,
            status: status_name(now).into(),
            reason: reason.into(),
        });
        if now == Status::Running && !landed {
            let priority = self.agent.desires[self.intentions[k].desire].priority;
            let above = self
                .intentions
                .iter()
                .filter(|i| {
                    i.status != Status::Finished && self.agent.desires[i.desire].priority > priority
                })
                .max_by_key(|i| self.agent.desires[i.desire].priority)
                .map(|i| i.desire);
            if let Some(d) = above {
                let desire = &self.agent.desires[d];
                let reason = format!(
                    "subgoal `{}` (priority {}) takes over",
                    desire.name, desire.priority
                );
                self.stop(k, reason);
            }
        }
    }

    fn next_random(&mut self) -> u64 {
        // xorshift64*: deterministic for a given seed.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Steps every running (or aborting, stopping, resuming) plan once.
    fn step_plans(&mut self) {
        let mut k = 0;
        while k < self.intentions.len() {
            if !matches!(
                self.intentions[k].status,
                Status::Running | Status::Aborting | Status::Stopping | Status::Resuming
            ) {
                k += 1;
                continue;
            }
            let len = self.intentions.len();
            match self.intentions[k].body.clone() {
                Body::Network { net, state } => {
                    let sem = Semantics::new(self.network(net), self.agent);
                    let mut s = state;
                    s.beliefs = self.beliefs.clone();
                    let mut steps = sem.steps(&s);
                    if steps.is_empty() {
                        if !s.finished() {
                            self.stuck(k, net, &s);
                            self.intentions.remove(k);
                            continue;
                        }
                    } else {
                        let pick = (self.next_random() % steps.len() as u64) as usize;
                        let step = steps.swap_remove(pick);
                        self.absorb(k, net, step);
                        if matches!(
                            self.intentions[k].status,
                            Status::Stopping | Status::Resuming
                        ) {
                            self.follow_handlers(k, false);
                        }
                    }
                    self.end_if_done(k);
                }
                Body::Host { name, steps } => {
                    let Some(f) = self.hosts.functions.get(&name).copied() else {
                        k += 1;
                        continue;
                    };
                    let mut beliefs = std::mem::take(&mut self.beliefs);
                    let mut ctx = HostContext {
                        agent: self.agent,
                        beliefs: &mut beliefs,
                        added: Vec::new(),
                        removed: Vec::new(),
                        cycle: self.cycle,
                        steps,
                    };
                    let status = f(&mut ctx);
                    let (added, removed) = (ctx.added, ctx.removed);
                    self.beliefs = beliefs;
                    self.note_changes(&added);
                    self.note_changes(&removed);
                    let i = &mut self.intentions[k];
                    i.body = Body::Host {
                        name: name.clone(),
                        steps: steps + 1,
                    };
                    let (id, plan) = (i.id, self.agent.plans[i.plan].name.clone());
                    let added = added.iter().map(|a| self.atom_text(None, a)).collect();
                    let removed = removed.iter().map(|a| self.atom_text(None, a)).collect();
                    self.log(Event::Step {
                        intention: id,
                        plan: plan.clone(),
                        process: format!("host.{name}"),
                        event: "call".into(),
                        added,
                        removed,
                    });
                    if status == HostStatus::Finished {
                        self.log(Event::Ended {
                            intention: id,
                            plan,
                        });
                        self.intentions[k].status = Status::Finished;
                    }
                }
            }
            if self.intentions.len() == len {
                k += 1;
            }
        }
    }

    /// Intention `k` of network `net` can never move again in state `s`: said once, with the
    /// state; a running plan, or one whose `on stop` or `on resume` handlers are stuck, is then
    /// released (`plan stuck`), while one whose `on abort` handlers are stuck was released
    /// already and is not released again.
    fn stuck(&mut self, k: usize, net: usize, s: &State) {
        let network = self.network(net);
        let mut state = Vec::new();
        describe_stuck(network, &s.term, "", &mut state);
        let beliefs: Vec<String> = s
            .beliefs
            .iter()
            .map(|a| self.atom_text(Some(network), a))
            .collect();
        let shown = beliefs.len().min(16);
        let mut line = format!("beliefs: {{{}}}", beliefs[..shown].join(", "));
        if beliefs.len() > shown {
            line.push_str(&format!(" and {} more", beliefs.len() - shown));
        }
        state.push(line);
        let i = &self.intentions[k];
        let (id, plan, desire) = (
            i.id,
            self.agent.plans[i.plan].name.clone(),
            self.agent.desires[i.desire].name.clone(),
        );
        let released = i.released.clone();
        let during = match (&released, i.status) {
            (Some(reason), _) => format!("its on abort handlers (released: {reason})"),
            (None, Status::Stopping) => "its on stop handlers".to_string(),
            (None, Status::Resuming) => "its on resume handlers".to_string(),
            (None, _) => "the plan".to_string(),
        };
        self.log(Event::Stuck {
            intention: id,
            plan: plan.clone(),
            desire: desire.clone(),
            during,
            state,
        });
        if released.is_none() {
            self.log(Event::Release {
                intention: id,
                plan,
                desire,
                reason: "plan stuck: no process can move".into(),
                because: None,
            });
        }
    }

    /// Credits each reward rule once per intention of its plan, when its condition holds.
    fn rewards(&mut self) {
        for (r, rule) in self.agent.rewards.iter().enumerate() {
            let plan = rule.plan as usize;
            let ids: Vec<u64> = self
                .intentions
                .iter()
                .filter(|i| i.plan == plan && !self.rewarded.contains(&(i.id, r)))
                .map(|i| i.id)
                .collect();
            for id in ids {
                if !self.holds(&rule.cond) {
                    continue;
                }
                self.rewarded.insert((id, r));
                let value: i64 = if rule.positive { 1 } else { -1 };
                let (n, mean) = self.learned[plan];
                let n = n + 1;
                let mean = mean + (value as f64 - mean) / n as f64;
                self.learned[plan] = (n, mean);
                self.log(Event::Reward {
                    plan: self.agent.plans[plan].name.clone(),
                    value,
                    learned: mean,
                    reason: format!("the condition of reward rule {} holds", r + 1),
                });
            }
        }
        // An intention rewarded and gone is never rewarded again: forget it, so that a long run
        // keeps only the live intentions' marks.
        let live = &self.intentions;
        self.rewarded
            .retain(|(id, _)| live.iter().any(|i| i.id == *id));
    }
}

/// Several agents of one project run together, cycle by cycle: what one tells another is
/// believed by the other at its next cycle.
pub struct System<'a> {
    /// The agents, in the order given.
    pub agents: Vec<AgentRun<'a>>,
}

impl<'a> System<'a> {
    /// Runs the named agents of `ir`, each with the same policy and scenario.
    pub fn new(
        ir: &'a Ir,
        names: &[String],
        policy: Reconsideration,
        scenario: Scenario,
        hosts: Hosts,
    ) -> Result<System<'a>, RunError> {
        if let Some(e) = scenario
            .events
            .iter()
            .find(|e| e.agent.as_ref().is_some_and(|a| !names.contains(a)))
        {
            return Err(RunError(format!(
                "the event at cycle {} is for agent `{}`, which this run does not run (agents: {})",
                e.cycle,
                e.agent.as_deref().unwrap_or_default(),
                names.join(", ")
            )));
        }
        let agents = names
            .iter()
            .map(|n| AgentRun::new(ir, n, policy.clone(), scenario.clone(), hosts.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(System { agents })
    }

    /// Runs until every agent has run its cycles, or all are idle, and returns the journal.
    pub fn run(&mut self) -> Vec<Entry> {
        let mut journal = Vec::new();
        let _ = self.run_with(&|_| false, &mut |e: Entry| {
            journal.push(e);
            Ok::<(), std::convert::Infallible>(())
        });
        journal
    }

    /// Runs round by round (in a round, each agent not done runs one cycle), handing each
    /// journal entry to `sink` as it is made, so that nothing of a long run accumulates. Before
    /// each round it asks `stop(rounds run so far)`; a `true` ends the run there, between rounds,
    /// as [`Ended::Stopped`]. An error of the sink ends it at once and is returned.
    pub fn run_with<E>(
        &mut self,
        stop: &dyn Fn(u64) -> bool,
        sink: &mut dyn FnMut(Entry) -> Result<(), E>,
    ) -> Result<Ended, E> {
        let mut rounds = 0u64;
        loop {
            if stop(rounds) {
                return Ok(Ended::Stopped { rounds });
            }
            let mut all_quiet = true;
            let mut any = false;
            for a in &mut self.agents {
                if a.done() {
                    continue;
                }
                any = true;
                all_quiet &= a.step_cycle();
                for e in a.take_journal() {
                    sink(e)?;
                }
            }
            rounds += u64::from(any);
            // Deliver what was told, in agent order.
            let mut mail = Vec::new();
            for a in &mut self.agents {
                let from = a.name().to_string();
                for (to, atom) in a.take_outbox() {
                    mail.push((from.clone(), to, atom));
                }
            }
            for (from, to, atom) in mail {
                if let Some(r) = self.agents.iter_mut().find(|a| a.id() == to) {
                    r.deliver(&from, atom);
                }
            }
            if !any || (all_quiet && self.agents.iter().all(AgentRun::idle)) {
                return Ok(Ended::Finished { rounds });
            }
        }
    }
}

/// One line per thread of `term` that has not ended, saying what it waits on (`Heat: waits to
/// receive on coolant`), with `context` before it (`in handlers`, `stopped`).
fn describe_stuck(net: &Network, term: &semantics::Term, context: &str, out: &mut Vec<String>) {
    use hilbert_certificates::ir::Node;
    use semantics::Term;
    let within = |what: &str| {
        if context.is_empty() {
            what.to_string()
        } else {
            format!("{context}, {what}")
        }
    };
    match term {
        Term::Done => {}
        Term::Faulted(f) => out.push(format!("{}faulted: {f:?}", prefix(context))),
        Term::Thread {
            inst, stack, env, ..
        } => {
            let slot_chan = |slot: &hilbert_certificates::ir::Slot| {
                env.get(slot.0 as usize)
                    .map_or_else(|| "?".to_string(), |v| net.channel_name(v))
            };
            let what = match stack.last().and_then(|n| net.nodes.get(n.0 as usize)) {
                Some(Node::Stop) => "STOP: never moves".to_string(),
                Some(Node::Send { chan, .. }) => format!("waits to send on {}", slot_chan(chan)),
                Some(Node::Recv { chan, .. }) => {
                    format!("waits to receive on {}", slot_chan(chan))
                }
                Some(_) => "waits for a step".to_string(),
                None => "has ended".to_string(),
            };
            out.push(format!(
                "{}{}: {what}",
                prefix(context),
                net.instance_name(*inst)
            ));
        }
        Term::Then(first, _) => describe_stuck(net, first, context, out),
        Term::Par(terms) => {
            for t in terms {
                describe_stuck(net, t, context, out);
            }
        }
        Term::Choice(terms) => {
            for t in terms {
                describe_stuck(net, t, &within("one alternative of a choice"), out);
            }
        }
        Term::Interrupt(left, right) => {
            describe_stuck(net, left, context, out);
            describe_stuck(net, right, &within("the interrupting side"), out);
        }
        Term::Suspended(t) => describe_stuck(net, t, &within("stopped, awaiting resume"), out),
        Term::Label { body, .. } | Term::Inst { body, .. } => {
            describe_stuck(net, body, context, out)
        }
        Term::Handling { body, .. } => describe_stuck(net, body, &within("in handlers"), out),
    }
}

/// The body of the scene's root instance, where a command from the runtime lands: a network's
/// state is `Term::Inst` at the top (`Semantics::initial`) until it has ended (`Term::Done`) or
/// faulted as a whole (`None` then).
fn root_body(term: &semantics::Term) -> Option<&semantics::Term> {
    match term {
        semantics::Term::Inst { body, .. } => Some(body),
        _ => None,
    }
}

/// A status as the journal's `status` entries name it.
fn status_name(status: Status) -> &'static str {
    match status {
        Status::Running => "running",
        Status::Stopping => "stopping",
        Status::Suspended => "suspended",
        Status::Resuming => "resuming",
        Status::Aborting => "aborting",
        Status::Finished => "finished",
    }
}

fn prefix(context: &str) -> String {
    if context.is_empty() {
        String::new()
    } else {
        format!("({context}) ")
    }
}

/// How a [`System::run_with`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every agent ran its cycles, or all were idle.
    Finished {
        /// Rounds run.
        rounds: u64,
    },
    /// `stop` said so, before round `rounds` (0-based) began.
    Stopped {
        /// Rounds run.
        rounds: u64,
    },
}

/// The policy's name as `.hb` writes it.
fn policy_name(p: PolicyIr) -> String {
    match p {
        PolicyIr::Greedy => "greedy".into(),
        PolicyIr::EpsilonGreedy(e) => format!("epsilon_greedy(epsilon = {})", f64::from_bits(e)),
        PolicyIr::Softmax(t) => format!("softmax(temperature = {})", f64::from_bits(t)),
        PolicyIr::Ucb(c) => format!("ucb(c = {})", f64::from_bits(c)),
    }
}

/// One agent's state as a batch of one, for the value formulas.
struct OneAgent<'b> {
    beliefs: &'b BTreeSet<Atom>,
    learned: &'b [(u64, f64)],
}

impl Features for OneAgent<'_> {
    fn len(&self) -> usize {
        1
    }

    fn feature(&self, _: usize, belief: u32, field: u32) -> f64 {
        self.beliefs
            .iter()
            .filter(|a| a.told.is_none() && a.belief.0 == belief)
            .filter_map(|a| match a.args.get(field as usize) {
                Some(Value::Int(n)) => Some(*n as f64),
                _ => None,
            })
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
            .unwrap_or(0.0)
    }

    fn learned(&self, _: usize, binding: u32) -> f64 {
        self.learned
            .get(binding as usize)
            .map_or(0.0, |(_, mean)| *mean)
    }
}
