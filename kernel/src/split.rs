//! Steps of a split state: a step that moves one or two children of the state's `‖` is fired
//! on the state reduced to those children, memoised, and the children it made put back. Most
//! states of a network differ from others in a few children, so most steps are found in the
//! memo. The step fired is the reference semantics' own (`Semantics::fire`); what this module
//! adds is the argument that putting the moved children back gives the step the whole state
//! takes (docs/certificates.md, "What the kernel trusts"):
//!
//! - the state's term is a context `C` (instances and sequences, each through its first child,
//!   none of which runs a thread) around a `‖` of children `c₀ … cₙ`;
//! - firing a candidate changes only the children its paths lead into (`fire_at` rebuilds only
//!   along them); the settle then runs every child in order, sharing one context of beliefs,
//!   fuel and queued commands and tail calls;
//! - every child the step does not move is *quiet* ([`quiet`]): no thread of it runs, so the
//!   settle leaves it equal to itself, reads and changes nothing but fuel, and spends a known
//!   amount of fuel on it;
//! - every child is *closed* ([`closed`]): each of its threads is inside an instance of its own
//!   number within the child or is one of the context's, and no instance in it has a context
//!   instance's number, so a tail call a moved child makes is taken inside it or by the context;
//! - the step on the reduced state `C[c_i ‖ c_j]` issued no command, left `C` as it was (no tail
//!   call reached it), kept its `‖` (so not every child ended), and spent with the quiet
//!   children less fuel than [`MACRO_STEP_FUEL`] (so neither run diverged for want of it;
//!   nesting is the same in both, the moved children being as deep in each).
//!
//! Under these conditions the whole state's step and the reduced one run the same threads on
//! the same beliefs in the same order, and the next term is `C[… c_i' … c_j' …]`. A candidate
//! for which any condition fails is fired on the whole state.

use super::{Budget, FastMap, Next, Table, kids, with_kids};
use crate::semantics::{Atom, Candidate, MACRO_STEP_FUEL, Mode, Semantics, State, Step, Sub, Term};
use hilbert_certificates::ir::{Node, PlanId};
use std::collections::BTreeSet;
use std::collections::hash_map::Entry;

/// A state's term split at its `‖`: the context's held nodes from the root down, the `‖`'s,
/// the context's number in the memo, and per child the fuel a settle spends on it when quiet.
pub(super) struct Split {
    ctx: Vec<u32>,
    par: u32,
    key: u32,
    kids: Vec<Option<u64>>,
}

/// What a step did on a reduced state: the children it made (each with its held index once
/// found), the beliefs, the tells it ran infeasibly and its work.
type Moved = (
    Vec<(Sub, Option<u32>)>,
    BTreeSet<Atom>,
    Vec<(PlanId, u32)>,
    u64,
);

/// A memo (one per core): contexts numbered, held children's closedness and quietness (by
/// context), and the steps of reduced states by context, moved children, belief set and
/// candidate (`None`: not put back).
#[derive(Default)]
pub(super) struct Memo {
    contexts: FastMap<Vec<u64>, u32>,
    kids: FastMap<(u32, u32), (bool, Option<u64>)>,
    steps: FastMap<(u32, Vec<u32>, u32, Candidate), Option<Moved>>,
}

/// `par` in the context `ctx` (held nodes, from the root down, each over its first child).
fn splice(t: &Table, ctx: &[u32], par: Term) -> Term {
    ctx.iter().rev().fold(par, |inner, &c| {
        let mut held: Vec<Sub> = (t.kids_of(c).iter()).map(|&k| t.term(k)).collect();
        held[0] = Sub::new(inner);
        with_kids(t.node(c), &held)
    })
}

/// State `i`'s term split at its `‖`, when it is one in a context of instances and sequences
/// (each over its first child), and every child is closed.
pub(super) fn split(sem: &Semantics, t: &Table, i: usize, memo: &mut Memo) -> Option<Split> {
    // The context by its nodes' own fields and other children (held indices; a list of
    // parameters by its address, held by the table as long as the memo lives).
    let (mut ctx, mut at, mut name, mut outer) = (Vec::new(), t.states[i].0, vec![], vec![]);
    loop {
        match t.node(at) {
            Term::Inst {
                inst, plan, params, ..
            } => {
                outer.push(*inst);
                let address = params.as_ptr() as *const () as u64;
                name.extend([1, u64::from(*inst), plan.0.into(), address]);
            }
            Term::Then(..) => name.extend([2, t.kids_of(at)[1].into()]),
            Term::Par(_) => break,
            _ => return None,
        }
        ctx.push(at);
        at = t.kids_of(at)[0];
    }
    let n = memo.contexts.len() as u32;
    let key = *memo.contexts.entry(name).or_insert(n);
    let mut kids = Vec::new();
    for &k in t.kids_of(at) {
        let (closed, quiet) = *(memo.kids.entry((key, k))).or_insert_with(|| {
            let c = t.term(k);
            (closed(&c, &mut Vec::new(), &outer), quiet(sem, &c, true))
        });
        kids.push(closed.then_some(quiet)?);
    }
    Some(Split {
        ctx,
        par: at,
        key,
        kids,
    })
}

/// Whether every thread of `t` is inside an instance of its own number within `t` (`within`:
/// the numbers of the instances around it there) or is one of the context's (`outer`), and no
/// instance of `t` has the number of one of the context's.
fn closed(t: &Term, within: &mut Vec<u32>, outer: &[u32]) -> bool {
    match t {
        Term::Thread { inst, .. } => within.contains(inst) || outer.contains(inst),
        Term::Inst { inst, .. } if outer.contains(inst) => false,
        Term::Inst { inst, .. } => {
            within.push(*inst);
            let ok = kids(t).all(|c| closed(c, within, outer));
            within.pop();
            ok
        }
        _ => kids(t).all(|c| closed(c, within, outer)),
    }
}

/// The fuel a settle spends on `t` when it leaves `t` equal to itself and reads and changes
/// nothing else: no thread of `t` runs (`Semantics::run`: a ready thread waits for its step, and
/// under a choice or an interrupt's right side, where nothing with effects runs, one at a
/// communication or at an action with effects is made ready again at once for one unit of
/// fuel), and nothing ends (so nothing is normalised away). `None` otherwise. `effects`:
/// whether `t` is started (not under a choice's alternatives nor an interrupt's right side).
fn quiet(sem: &Semantics, t: &Term, effects: bool) -> Option<u64> {
    let done = |s: &Sub| **s == Term::Done;
    match t {
        Term::Done | Term::Faulted(_) | Term::Suspended(_) => Some(0),
        Term::Thread {
            mode: Mode::Ready, ..
        } if effects => Some(0),
        Term::Thread {
            mode: Mode::Ready,
            stack,
            ..
        } => match sem.node(*stack.last()?)? {
            Node::Stop | Node::Send { .. } | Node::Recv { .. } | Node::Believe(_) => Some(1),
            Node::Forget(_) | Node::Tell { .. } | Node::Command { .. } => Some(1),
            _ => None,
        },
        Term::Then(a, _)
        | Term::Label { body: a, .. }
        | Term::Inst { body: a, .. }
        | Term::Handling { body: a, .. }
            if !done(a) =>
        {
            quiet(sem, a, effects)
        }
        Term::Par(cs) if !cs.iter().all(done) => cs.iter().map(|c| quiet(sem, c, effects)).sum(),
        Term::Choice(cs) => cs.iter().map(|c| quiet(sem, c, false)).sum(),
        Term::Interrupt(p, q) if !done(p) => Some(quiet(sem, p, effects)? + quiet(sem, q, false)?),
        _ => None,
    }
}

/// Candidate `c` of split state `i`: the next state, found or to be numbered, and the tells the
/// step ran infeasibly; `None` when a condition of the module's argument fails (the candidate
/// is then fired on the whole state).
pub(super) fn step(
    sem: &Semantics,
    t: &Table,
    (i, state): (usize, &State),
    s: &Split,
    c: &Candidate,
    memo: &mut Memo,
    budget: &Budget,
) -> Option<(Next, Vec<(PlanId, u32)>)> {
    // The children moved: where each path, through the context's first children, enters `‖`
    // (in the order of the `‖`, which is the order the settle runs them).
    let (d, mut moved) = (s.ctx.len(), Vec::new());
    for (p, _) in &c.actions {
        if p.len() <= d || p[..d].iter().any(|&k| k != 0) {
            return None;
        }
        moved.push(p[d]);
    }
    moved.sort_unstable();
    moved.dedup();
    let mut local = c.clone();
    for (p, _) in &mut local.actions {
        p[d] = moved.iter().position(|&k| k == p[d])?;
    }
    let quiet = (s.kids.iter().enumerate()).filter(|(k, _)| !moved.contains(k));
    let fuel: u64 = quiet.map(|(_, q)| *q).sum::<Option<u64>>()?;
    let all = t.kids_of(s.par);
    let ids = moved.iter().map(|&k| all.get(k).copied());
    let ids = ids.collect::<Option<_>>()?;
    // The step on the reduced state, fired the first time it is met (one lookup a step).
    let made = match memo.steps.entry((s.key, ids, t.states[i].1, local)) {
        Entry::Occupied(e) => e.into_mut(),
        Entry::Vacant(e) => {
            let ids = e.key().1.iter();
            let par = Term::Par(ids.map(|&k| t.term(k)).collect());
            let (term, beliefs) = (splice(t, &s.ctx, par), state.beliefs.clone());
            if !budget.spend(t.cost(i)) {
                return None;
            }
            let step = sem.fire(&State { term, beliefs }, &e.key().3);
            budget.spend(step.work);
            e.insert(put_back(t, &s.ctx, step, moved.len()))
        }
    };
    let (kids, beliefs, bad, work) = made.as_mut()?;
    if work.saturating_add(fuel) >= MACRO_STEP_FUEL.into() || !budget.spend(all.len() as u64) {
        return None;
    }
    // The next state: this state's held children but the moved ones, found by their indices
    // when it is held, else its parts, to be numbered. A moved child found is kept as the very
    // held term (numbering finds it at once).
    let mut ks = Some(all.to_vec());
    for (&k, (x, id)) in moved.iter().zip(kids.iter_mut()) {
        if id.is_none()
            && let Some(j) = t.find_term(x, None)
        {
            (*x, *id) = (t.nodes[j as usize].clone(), Some(j));
        }
        ks = ks.zip(*id).map(|(mut ks, id)| (ks[k] = id, ks).1);
    }
    let held = ks.and_then(|ks| {
        let mut at = t.find_node(t.node(s.par), &ks).0?;
        for &c in s.ctx.iter().rev() {
            let ks = [&[at], &t.kids_of(c)[1..]].concat();
            at = t.find_node(t.node(c), &ks).0?;
        }
        t.number(at, beliefs)
    });
    let next = held.map(Next::Old).unwrap_or_else(|| {
        let put = moved.iter().zip(kids.iter());
        let put = put.map(|(&k, (x, id))| (k, x.clone(), *id)).collect();
        Next::Put((s.par, put, s.ctx.clone(), beliefs.clone()))
    });
    Some((next, bad.clone()))
}

/// The children a step on a reduced state made, when it issued no command and left the
/// context as it was around a `‖` of as many children.
fn put_back(t: &Table, ctx: &[u32], step: Step, n: usize) -> Option<Moved> {
    let mut at = &step.next.term;
    for _ in ctx {
        at = kids(at).next()?;
    }
    let Term::Par(cs) = at else { return None };
    let same = splice(t, ctx, Term::Par(cs.clone())) == step.next.term;
    if step.effects.commands > 0 || cs.len() != n || !same {
        return None;
    }
    let bad = step
        .effects
        .tells
        .iter()
        .filter(|t| !t.2)
        .map(|t| (t.0, t.1));
    let cs = cs.iter().map(|c| (c.clone(), None)).collect();
    Some((cs, step.next.beliefs, bad.collect(), step.work))
}

#[cfg(test)]
mod tests {
    //! Split states stepped both ways: every reachable state of every example and of random
    //! projects, each candidate fired on the whole state by the reference semantics and, where
    //! this module takes it, on the reduced state; and each scene explored with and without
    //! split states.
    use super::super::{Budget, Next, Table, close};
    use super::{Memo, splice, split, step};
    use crate::semantics::Semantics;
    use crate::semantics::{State, Sub, Term};
    use hilbert_certificates::cert;
    use hilbert_oracle::generate;
    use hilbert_oracle::pipeline::{self, Sources};
    use std::sync::atomic::AtomicU64;

    /// Steps taken on reduced states, steps in all.
    fn both_ways(bytes: &[u8], what: &str) -> (usize, usize) {
        let body = cert::decode(bytes).expect("a certificate the build wrote decodes");
        let net = &body.ir.networks[body.network as usize];
        let sem = Semantics::new(net, &body.ir.agents[net.agent.0 as usize]);
        let budget = Budget {
            limit: u64::MAX / 4,
            used: AtomicU64::new(0),
        };
        let explore = |split: bool| {
            let mut table = Table::default();
            table
                .add(&sem.initial(), None)
                .expect("the initial state is held");
            close(&sem, table, body.scene, &|_| false, &budget, split)
        };
        let (a, b) = match (explore(true), explore(false)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(x), Err(y)) => {
                assert_eq!((x.0, x.2), (y.0, y.2), "{what}");
                return (0, 0);
            }
            (x, y) => panic!("{what}: split {:?}, whole {:?}", x.err(), y.err()),
        };
        assert_eq!(a.table.len(), b.table.len(), "{what}");
        for i in 0..a.table.len() {
            assert_eq!(a.table.state(i), b.table.state(i), "{what}: state {i}");
        }
        assert_eq!(a.succ.all, b.succ.all, "{what}");
        assert_eq!(a.bad_tells, b.bad_tells, "{what}");
        let (t, mut memo) = (&a.table, Memo::default());
        let (mut fast, mut all) = (0, 0);
        for i in 0..t.len() {
            let state = t.state(i);
            let candidates = sem.candidates(&state, &mut |_| true).expect("no cap");
            let s = split(&sem, t, i, &mut memo);
            for c in &candidates {
                all += 1;
                let whole = sem.fire(&state, c);
                let found = s
                    .as_ref()
                    .and_then(|s| step(&sem, t, (i, &state), s, c, &mut memo, &budget));
                let Some((next, bad)) = found else { continue };
                fast += 1;
                let next = match next {
                    Next::Old(j) => t.state(j as usize),
                    Next::New(s) => s,
                    Next::Put((par, moved, ctx, beliefs)) => {
                        let mut cs: Vec<Sub> =
                            (t.kids_of(par).iter()).map(|&k| t.term(k)).collect();
                        for (k, x, id) in moved {
                            assert!(id.is_none_or(|j| Sub::ptr_eq(&t.nodes[j as usize], &x)));
                            cs[k] = id.map_or(x, |j| t.term(j));
                        }
                        let term = splice(t, &ctx, Term::Par(cs));
                        State { term, beliefs }
                    }
                };
                assert_eq!(next, whole.next, "{what}: state {i}, {c:?}");
                let want = whole.effects.tells.iter().filter(|t| !t.2);
                let want: Vec<_> = want.map(|t| (t.0, t.1)).collect();
                assert_eq!(bad, want, "{what}: state {i}, {c:?}");
            }
        }
        (fast, all)
    }

    /// Builds a project and steps its certificates both ways, on a thread with a large stack
    /// (an unoptimised build's frames are large: seed 746's scene overflows 2 MiB whole, where
    /// the release build checks it on an ordinary stack).
    fn build_all(src: &Sources, what: &str) -> (usize, usize, usize) {
        let (src, what) = (src.clone(), what.to_string());
        let run = move || {
            let Ok(proofs) = pipeline::build(&src, 20_000) else {
                return (0, 0, 0);
            };
            let mut sum = (0, 0, 0);
            for c in proofs.certificates.iter().filter(|c| c.withheld.is_none()) {
                let (f, a) = both_ways(&c.bytes, &format!("{what}: {}", c.name));
                sum = (sum.0 + 1, sum.1 + f, sum.2 + a);
            }
            sum
        };
        let thread = std::thread::Builder::new().stack_size(256 << 20).spawn(run);
        thread.expect("a thread").join().expect("no panic")
    }

    #[test]
    fn every_example_steps_alike_split_and_whole() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let (mut certs, mut fast, mut all) = (0, 0, 0);
        for dir in std::fs::read_dir(&root).expect("examples/") {
            let dir = dir.expect("an example").path();
            let mut files = Vec::new();
            for f in std::fs::read_dir(&dir).expect("an example's folder") {
                let f = f.expect("a file").path();
                if matches!(
                    f.extension().and_then(|e| e.to_str()),
                    Some("ha" | "hk" | "hb")
                ) {
                    let name = f
                        .file_name()
                        .expect("a name")
                        .to_string_lossy()
                        .into_owned();
                    files.push((name, std::fs::read_to_string(&f).expect("a source")));
                }
            }
            let src = Sources {
                files,
                params: Vec::new(),
            };
            let (c, f, a) = build_all(&src, &dir.display().to_string());
            (certs, fast, all) = (certs + c, fast + f, all + a);
        }
        assert!(
            certs >= 25,
            "only {certs} certificates built from the examples"
        );
        assert!(
            fast * 4 >= all,
            "only {fast} of {all} steps taken on reduced states"
        );
    }

    #[test]
    fn random_projects_step_alike_split_and_whole() {
        let (mut certs, mut fast, mut all) = (0, 0, 0);
        let mut coverage = generate::Coverage::new();
        // A longer campaign: HILBERT_SPLIT_SEEDS=N steps the first N seeds' projects.
        let seeds = std::env::var("HILBERT_SPLIT_SEEDS").map_or(300, |n| n.parse().unwrap_or(300));
        for seed in 0..seeds {
            let project = generate::project(seed, &mut coverage, &[]);
            let (c, f, a) = build_all(
                &project.sources(),
                &format!("seed {seed}\n{}", project.listing()),
            );
            (certs, fast, all) = (certs + c, fast + f, all + a);
        }
        eprintln!("random projects: {certs} certificates, {fast} of {all} steps on reduced states");
        assert!(
            certs >= 200,
            "only {certs} certificates built from random projects"
        );
        assert!(
            fast * 4 >= all,
            "only {fast} of {all} steps taken on reduced states"
        );
    }
}
