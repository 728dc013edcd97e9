//! What the kernel's tests share: the certificates the example projects produce (built through
//! the frontend's library, as `hilbert build` builds them), and an independent judge of whether
//! a certificate's claim is true, by searching the network's states with the frontend's
//! reference explorer instead of checking witnesses.

#![allow(dead_code)]

use hilbert_certificates::cert::{self, Body, SourceDigest};
use hilbert_frontend::explore::{Graph, Limits, StateId, reference};
use hilbert_frontend::obligations::{self, Status};
use hilbert_frontend::{check_project, project};
use hilbert_kernel::check::{Kind, obligations as derive};
use hilbert_kernel::eval::holds;
use hilbert_kernel::semantics::{Semantics, State};
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
    /// The SHA-256 of each source file of the example.
    pub digests: Vec<[u8; 32]>,
    /// The theorems it carries, and whether the frontend proved each.
    pub theorems: Vec<(String, bool)>,
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
    let digests: Vec<[u8; 32]> = sources.iter().map(|s| s.sha256).collect();
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
            digests: digests.clone(),
            theorems: c
                .theorems
                .iter()
                .map(|t| {
                    let proved = proofs
                        .theorems
                        .iter()
                        .find(|th| th.name == *t)
                        .is_some_and(|th| matches!(th.status, Status::Proved));
                    (t.clone(), proved)
                })
                .collect(),
        })
        .collect()
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
    };
    let (graph, states) = reference::explore(&sem, vec![sem.initial()], limits);
    if graph.truncated {
        return None;
    }
    let mut all = true;
    for (_, kind) in derive(&body.ir, n) {
        let holds_now = match kind {
            Kind::NoDeadlock => (0..graph.len()).all(|s| graph.progress(StateId(s as u32))),
            Kind::Live(d) => {
                let desire = &agent.desires[d];
                let goal = |s: usize| {
                    desire
                        .achieved
                        .iter()
                        .any(|c| holds(c, &states[s].beliefs, Some(0)))
                };
                desire.params_used.is_empty() && inevitable(&graph, &goal)[0]
            }
            Kind::Released(_, atom) => {
                let starts: Vec<State> = states
                    .iter()
                    .filter(|s| s.beliefs.contains(&atom))
                    .map(|s| sem.abort_root(s).next)
                    .collect();
                let (sub, sub_states) = reference::explore(&sem, starts, limits);
                if sub.truncated {
                    return None;
                }
                let win = inevitable(&sub, &|s| sub_states[s].finished());
                sub.starts.iter().all(|s| win[s.0 as usize])
            }
            Kind::TellFeasible(plan, k) => (0..graph.len() as u32).all(|s| {
                graph
                    .succ(StateId(s))
                    .all(|e| e.tells.iter().all(|&(p, m, ok)| ok || p != plan || m != k))
            }),
        };
        all &= holds_now;
    }
    Some(all)
}
