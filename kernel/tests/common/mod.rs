//! What the kernel's tests share: the certificates the example projects produce (built through
//! the frontend's library, as `hilbert build` builds them), and an independent judge of whether
//! a certificate's claim is true, by searching the network's states with the frontend's
//! reference explorer instead of checking witnesses.

#![allow(dead_code)]

use hilbert_certificates::cert::{self, Body, SourceDigest};
use hilbert_certificates::ir::{Agent, Command, CommitmentStrategy, PlanId};
use hilbert_frontend::{check_project, project};
use hilbert_kernel::check::{Kind, obligations as derive, takers};
use hilbert_kernel::eval::{attention, holds};
use hilbert_kernel::semantics::{Atom, Semantics, State, settled, suspended};
use hilbert_prover::explore::{Graph, Limits, StateId, reference};
use hilbert_prover::obligations::{self, Status};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One certificate an example produced.
pub struct Built {
    /// The example's folder name.
    pub example: String,
    /// `Agent.Binding`.
    pub name: String,
    /// The certificate's bytes.
    pub bytes: Vec<u8>,
    /// Each source file its network comes from, with its SHA-256.
    pub sources: Vec<SourceDigest>,
    /// The postcard bytes of its network's slice of the IR the example's sources lower to.
    pub ir: Vec<u8>,
    /// The IR the example's sources lower to, whole.
    pub whole: hilbert_certificates::ir::Ir,
    /// The theorems it carries, and whether the frontend proved each.
    pub theorems: Vec<(String, bool)>,
}

impl Built {
    /// What the certificate must be about: the example's sources and their IR, as
    /// `hilbert verify --sources` requires.
    pub fn expected(&self) -> hilbert_kernel::check::Expected<'_> {
        hilbert_kernel::check::Expected {
            sources: &self.sources,
            ir: &self.ir,
        }
    }
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds every certificate of the project at `dir`.
pub fn build(dir: &Path) -> Vec<Built> {
    let loaded = project::load(&[dir.to_string_lossy().into_owned()]).expect("the project loads");
    let checked = check_project(&loaded);
    assert!(
        !checked.has_errors(),
        "{}: {:?}",
        dir.display(),
        checked.diagnostics
    );
    let ir = checked.ir.expect("a project without errors is lowered");
    let sources: Vec<SourceDigest> = loaded
        .sources
        .files()
        .iter()
        .map(|f| SourceDigest {
            path: f.path.clone(),
            sha256: cert::sha256(f.text.as_bytes()),
        })
        .collect();
    let proofs = obligations::prove(
        &ir,
        &checked.program,
        &loaded.sources,
        &sources,
        Limits::default(),
    );
    let example = dir
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    proofs
        .certificates
        .iter()
        .map(|c| Built {
            example: example.clone(),
            name: c.name.clone(),
            bytes: c.bytes.clone(),
            sources: c.sources.clone(),
            ir: cert::ir_bytes(&ir.slice(c.network as usize).expect("a slice")),
            whole: ir.clone(),
            theorems: c
                .theorems
                .iter()
                .map(|t| {
                    let proved = proofs
                        .theorems
                        .iter()
                        .find(|th| th.network == c.name && th.name == *t)
                        .is_some_and(|th| matches!(th.status, Status::Proved));
                    (t.clone(), proved)
                })
                .chain(std::iter::once((c.frame.clone(), frame_judged(&c.bytes))))
                .collect(),
        })
        .collect()
}

/// Whether the frame of the worlds over `beliefs` (every belief set with every attention)
/// satisfies D for R^B, R^D, R^I, 4 and 5 for R^B and R^D ⊆ R^I, for the desires `served`:
/// the definitions of `docs/frames.md` §1 evaluated by brute force over pairs and triples of
/// worlds, independently of the kernel's grouped check.
pub fn frame_holds(agent: &Agent, served: &[usize], beliefs: &[&BTreeSet<Atom>]) -> bool {
    type W<'a> = (&'a BTreeSet<Atom>, u32);
    if served
        .iter()
        .any(|&d| !agent.desires[d].params_used.is_empty())
    {
        return false;
    }
    let n = agent.attentions.len().max(1) as u32;
    let mut worlds: Vec<W> = Vec::new();
    for b in beliefs {
        for a in 0..n {
            if !worlds.contains(&(b, a)) {
                worlds.push((b, a));
            }
        }
    }
    let att = |w: W| -> Vec<u32> {
        let on: Vec<u32> = agent
            .attends
            .iter()
            .filter(|(c, _)| holds(c, w.0, Some(w.1)))
            .map(|(_, t)| *t)
            .collect();
        if on.is_empty() { vec![w.1] } else { on }
    };
    let rb = |w: W, v: W| w.0 == v.0 && att(w).contains(&v.1);
    let ach = |d: usize, w: (&BTreeSet<Atom>, u32)| {
        agent.desires[d]
            .achieved
            .iter()
            .any(|c| holds(c, w.0, Some(w.1)))
    };
    let imp = |d: usize, w: (&BTreeSet<Atom>, u32)| {
        agent.desires[d]
            .impossible
            .iter()
            .any(|(c, _)| holds(c, w.0, Some(w.1)))
    };
    // Only a single-minded agent gives up what it believes impossible (`docs/frames.md` §1).
    let releases = |d: usize, w: W| {
        ach(d, w) || (agent.commit == CommitmentStrategy::SingleMinded && imp(d, w))
    };
    let desired = |d: usize, w: W| !releases(d, w);
    let intended = |d: usize, w: W| {
        agent
            .intends
            .iter()
            .any(|i| i.desire as usize == d && holds(&i.cond, w.0, Some(w.1)))
            && !releases(d, w)
    };
    let rd = |w: W, v: W| served.iter().all(|&d| !desired(d, w) || ach(d, v));
    let ri = |w: W, v: W| served.iter().all(|&d| !intended(d, w) || ach(d, v));
    let serial = |r: &dyn Fn(W, W) -> bool| worlds.iter().all(|&w| worlds.iter().any(|&v| r(w, v)));
    let mut ok = serial(&rb) && serial(&rd) && serial(&ri);
    for &w in &worlds {
        for &u in &worlds {
            for &v in &worlds {
                if w.0 != u.0 || w.0 != v.0 {
                    continue;
                }
                ok &= !(rb(w, u) && rb(u, v)) || rb(w, v);
                ok &= !(rb(w, u) && rb(w, v)) || rb(u, v);
            }
            ok &= !rd(w, u) || ri(w, u);
        }
    }
    ok
}

/// The judge's word on a certificate's frame obligation.
fn frame_judged(bytes: &[u8]) -> bool {
    let body = cert::decode(bytes).expect("the frontend's certificates decode");
    let n = body.network as usize;
    let net = &body.ir.networks[n];
    let agent = &body.ir.agents[net.agent.0 as usize];
    let sem = Semantics::new(net, agent);
    let (_, states) = reference::explore(&sem, vec![sem.initial()], Limits::default(), false);
    let served = derive(&body.ir, n)
        .unwrap_or_default()
        .into_iter()
        .find_map(|(_, k)| match k {
            Kind::Frame(s) => Some(s),
            _ => None,
        })
        .unwrap_or_default();
    let beliefs: Vec<&BTreeSet<Atom>> = states.iter().map(|s| &s.beliefs).collect();
    frame_holds(agent, &served, &beliefs)
}

/// Every certificate of every example under `examples/`, built once per test binary.
pub fn certificates() -> &'static [Built] {
    static ALL: OnceLock<Vec<Built>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
            .expect("examples/")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        dirs.iter().flat_map(|d| build(d)).collect()
    })
}

/// States reached by a search from `starts` in which `goal` is inevitable: the least set holding
/// every goal state and every state that can step and only steps into the set.
fn inevitable(graph: &Graph, goal: &dyn Fn(usize) -> bool) -> Vec<bool> {
    let n = graph.len();
    let mut win: Vec<bool> = (0..n).map(goal).collect();
    loop {
        let mut changed = false;
        for s in 0..n {
            let id = StateId(s as u32);
            if !win[s] && graph.degree(id) > 0 && graph.succ(id).all(|e| win[e.to.0 as usize]) {
                win[s] = true;
                changed = true;
            }
        }
        if !changed {
            return win;
        }
    }
}

/// [`inevitable`], or with `fair` on the weakly fair paths only, by its definition: a state
/// fails when, through states that miss the goal, it reaches a state with no step or a
/// strongly connected set of them in which every process (plan instance) that can move in all
/// of them moves (so a cycle through all of it is weakly fair). Quadratic: for small graphs.
fn fair_inevitable(graph: &Graph, goal: &dyn Fn(usize) -> bool, fair: bool) -> Vec<bool> {
    if !fair {
        return inevitable(graph, goal);
    }
    let n = graph.len();
    let reach: Vec<BTreeSet<usize>> = (0..n)
        .map(|s| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![s];
            while let Some(x) = stack.pop() {
                for e in graph.succ(StateId(x as u32)) {
                    let t = e.to.0 as usize;
                    if !goal(t) && seen.insert(t) {
                        stack.push(t);
                    }
                }
            }
            seen
        })
        .collect();
    let procs: BTreeSet<u32> = (0..n)
        .flat_map(|s| graph.succ(StateId(s as u32)).flat_map(|e| takers(&e.event)))
        .collect();
    let trapped = |s: usize| {
        if graph.degree(StateId(s as u32)) == 0 {
            return true;
        }
        if !reach[s].contains(&s) {
            return false;
        }
        let comp: BTreeSet<usize> = reach[s]
            .iter()
            .copied()
            .filter(|&t| reach[t].contains(&s))
            .collect();
        procs.iter().all(|p| {
            comp.iter().any(|&t| {
                let id = StateId(t as u32);
                !graph.succ(id).any(|e| takers(&e.event).contains(p))
                    || graph
                        .succ(id)
                        .any(|e| comp.contains(&(e.to.0 as usize)) && takers(&e.event).contains(p))
            })
        })
    };
    let bad: Vec<bool> = (0..n).map(|s| !goal(s) && trapped(s)).collect();
    (0..n)
        .map(|s| goal(s) || !(bad[s] || reach[s].iter().any(|&t| bad[t])))
        .collect()
}

/// Where a command from outside lands; the tells its handlers run in the landing itself go to
/// `bad` when infeasible.
fn land(sem: &Semantics, s: &State, command: Command, bad: &mut BTreeSet<(PlanId, u32)>) -> State {
    let landed = sem.command_root(s, command);
    bad.extend(
        landed
            .effects
            .tells
            .iter()
            .filter(|t| !t.2)
            .map(|t| (t.0, t.1)),
    );
    landed.next
}

/// Whether every path from `starts` reaches a settled state (no command from outside under way;
/// the search does not go on from one), or with `until_finished` a finished one (an abort from
/// any state: one that lands while the plan restarts itself does nothing), with the states
/// searched; records the tells its steps ran infeasibly. `None` past the bound.
fn settles(
    sem: &Semantics,
    starts: Vec<State>,
    limits: Limits,
    until_finished: bool,
    bad: &mut BTreeSet<(PlanId, u32)>,
) -> Option<(bool, Vec<State>)> {
    let (sub, sub_states) = reference::explore(sem, starts, limits, !until_finished);
    if sub.truncated {
        return None;
    }
    for s in 0..sub.len() as u32 {
        for e in sub.succ(StateId(s)) {
            bad.extend(e.tells.iter().filter(|t| !t.2).map(|t| (t.0, t.1)));
        }
    }
    let win = inevitable(&sub, &|s| match until_finished {
        true => sub_states[s].finished(),
        false => settled(&sub_states[s].term),
    });
    Some((sub.starts.iter().all(|s| win[s.0 as usize]), sub_states))
}

/// Whether every obligation the kernel derives for the certificate's network is true of its IR,
/// decided by exhaustive search with the reference explorer (no witness is looked at). `None`
/// when the body names no network of its IR or the search passes its bound.
pub fn claim_holds(body: &Body) -> Option<bool> {
    let n = body.network as usize;
    let net = body.ir.networks.get(n)?;
    let agent = body.ir.agents.get(net.agent.0 as usize)?;
    let sem = Semantics::new(net, agent);
    let limits = Limits {
        max_states: 200_000,
        jobs: 1,
        ..Limits::default()
    };
    let (graph, states) = reference::explore(&sem, vec![sem.initial()], limits, false);
    if graph.truncated {
        return None;
    }
    let mut all = true;
    let mut handler_bad = BTreeSet::new();
    for (_, kind) in derive(&body.ir, n).ok()? {
        let holds_now = match kind {
            Kind::NoDeadlock => (0..graph.len()).all(|s| graph.progress(StateId(s as u32))),
            Kind::Live(d) => {
                let desire = &agent.desires[d];
                // Each state's goal is read with the attention its beliefs give.
                let goal = |s: usize| {
                    let beliefs = &states[s].beliefs;
                    let a = attention(agent, beliefs);
                    desire.achieved.iter().any(|c| holds(c, beliefs, Some(a)))
                };
                let attention_unknown = desire.achieved.iter().any(|c| c.reads_attention())
                    && agent.attention_unset_param().is_some();
                desire.params_used.is_empty()
                    && !attention_unknown
                    && fair_inevitable(&graph, &goal, desire.fair)[0]
            }
            Kind::Assert(k) => {
                use hilbert_certificates::ir::Property;
                let a = &agent.asserts[k];
                let at =
                    |c, s: usize| hilbert_prover::props::holds_in(agent, c, &states[s].beliefs);
                let conds = a.property.conds();
                let unset = conds.iter().any(|c| agent.assert_unset_param(c).is_some());
                let n = graph.len();
                !unset
                    && match &a.property {
                        Property::Always(c) => (0..n).all(|s| at(c, s)),
                        Property::Never(c) => (0..n).all(|s| !at(c, s)),
                        Property::Precedes(psi, phi) => {
                            // Every state reached through states where ψ does not hold.
                            let mut seen: BTreeSet<usize> = BTreeSet::new();
                            let mut stack: Vec<usize> =
                                (n > 0 && !at(psi, 0)).then_some(0).into_iter().collect();
                            seen.extend(stack.iter().copied());
                            let mut ok = true;
                            while let Some(s) = stack.pop() {
                                ok &= !at(phi, s);
                                for e in graph.succ(StateId(s as u32)) {
                                    let t = e.to.0 as usize;
                                    if !at(psi, t) && seen.insert(t) {
                                        stack.push(t);
                                    }
                                }
                            }
                            ok
                        }
                        Property::Eventually(c) => {
                            fair_inevitable(&graph, &|s| at(c, s), a.fair)[0]
                        }
                        Property::LeadsTo(p, q) => {
                            let win = fair_inevitable(&graph, &|s| at(q, s), a.fair);
                            (0..n).all(|s| !at(p, s) || win[s])
                        }
                    }
            }
            Kind::Released(..) | Kind::Abortable | Kind::Stoppable => {
                // The atom arrives in every state (release), then the abort; or the stop.
                let command = match &kind {
                    Kind::Stoppable => Command::Stop,
                    _ => Command::Abort,
                };
                let starts: Vec<State> = states
                    .iter()
                    .map(|s| {
                        let mut s = s.clone();
                        if let Kind::Released(_, atom) = &kind {
                            s.beliefs.insert(atom.clone());
                        }
                        land(&sem, &s, command, &mut handler_bad)
                    })
                    .collect();
                let until_finished = kind != Kind::Stoppable;
                let (ok, stopped) =
                    settles(&sem, starts, limits, until_finished, &mut handler_bad)?;
                // After a stop: a resume and an abort from every state it left suspended.
                let after: Vec<State> = stopped
                    .iter()
                    .filter(|s| kind == Kind::Stoppable && suspended(&s.term))
                    .flat_map(|s| [Command::Resume, Command::Abort].map(|c| (s.clone(), c)))
                    .map(|(s, c)| land(&sem, &s, c, &mut handler_bad))
                    .collect();
                let (after_ok, _) = settles(&sem, after, limits, false, &mut handler_bad)?;
                ok && after_ok
            }
            Kind::TellFeasible(plan, k) => (0..graph.len() as u32).all(|s| {
                graph
                    .succ(StateId(s))
                    .all(|e| e.tells.iter().all(|&(p, m, ok)| ok || p != plan || m != k))
            }),
            // In the scene and in the handler runs of the commands from outside (derived before
            // the tells, so already explored).
            Kind::TellInHandler(plan, k) => {
                !handler_bad.contains(&(plan, k))
                    && (0..graph.len() as u32).all(|s| {
                        graph
                            .succ(StateId(s))
                            .all(|e| e.tells.iter().all(|&(p, m, ok)| ok || p != plan || m != k))
                    })
            }
            Kind::Frame(served) => {
                let beliefs: Vec<&BTreeSet<Atom>> = states.iter().map(|s| &s.beliefs).collect();
                frame_holds(agent, &served, &beliefs)
            }
        };
        all &= holds_now;
    }
    Some(all)
}
