//! The fast explorer against the reference one: on every project of `examples/` and
//! `tests/cases/` that checks without error, and on the dining philosophers for N = 2..6 (both
//! tables), every network must give the same graph (same counts, the same graph up to
//! numbering, the same reference states), with 1 thread and with 2 (the same numbering), from
//! the scene's initial state, from the states an abort leads to, and under a `--max-states`
//! bound; and the obligations must get the same verdicts whichever explorer decides them.

use hilbert_certificates::ir::{Ir, Network};
use hilbert_frontend::{check_project, project};
use hilbert_kernel::semantics::{Semantics, State};
use hilbert_prover::explore::{self, Explorer, Graph, Limits, StateId, fast, reference};
use hilbert_prover::obligations;
use std::collections::{HashMap, VecDeque};
use std::path::Path;

#[allow(dead_code)]
#[path = "../../benchmarks/src/philosophers.rs"]
mod philosophers;

/// A project, checked: its IR and what `prove` needs.
struct Project {
    name: String,
    loaded: project::Loaded,
    checked: hilbert_frontend::Checked,
}

fn load_dir(dir: &Path) -> Option<Project> {
    let loaded = project::load(&[dir.display().to_string()]).ok()?;
    let checked = check_project(&loaded);
    Some(Project {
        name: dir.display().to_string(),
        loaded,
        checked,
    })
}

fn load_files(name: &str, files: Vec<(String, String)>) -> Project {
    let mut loaded = project::Loaded::default();
    for (path, text) in files {
        if path.ends_with(".ha") || path.ends_with(".hk") || path.ends_with(".hb") {
            project::add_bytes(&mut loaded, path, text.into_bytes());
        }
    }
    let checked = check_project(&loaded);
    Project {
        name: name.to_string(),
        loaded,
        checked,
    }
}

fn corpus() -> Vec<Project> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in ["examples", "tests/cases"] {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("cannot read {dir}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        entries.sort();
        out.extend(entries.iter().filter_map(|p| load_dir(p)));
    }
    for n in 2..=6 {
        for symmetric in [false, true] {
            let name = format!("philosophers(n={n}, symmetric={symmetric})");
            out.push(load_files(&name, philosophers::philosophers(n, symmetric)));
        }
    }
    out.retain(|p| !p.checked.has_errors() && p.checked.ir.is_some());
    out
}

/// A graph renumbered by a breadth-first walk from its starts (edges in their order): per state
/// its beliefs, finished flag, fault and labelled edges, with the walk's numbers. Two graphs are
/// equal up to numbering when their canonical forms are equal.
fn canonical(g: &Graph) -> (Vec<u32>, Vec<String>, bool, bool) {
    let mut number = vec![u32::MAX; g.len()];
    let mut order = Vec::new();
    let mut queue = VecDeque::new();
    for &s in &g.starts {
        if number[s.0 as usize] == u32::MAX {
            number[s.0 as usize] = order.len() as u32;
            order.push(s);
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        for e in g.succ(s) {
            if number[e.to.0 as usize] == u32::MAX {
                number[e.to.0 as usize] = order.len() as u32;
                order.push(e.to);
                queue.push_back(e.to);
            }
        }
    }
    assert_eq!(
        order.len(),
        g.len(),
        "every state is reachable from a start"
    );
    let starts = g.starts.iter().map(|s| number[s.0 as usize]).collect();
    let states = order
        .iter()
        .map(|&s| {
            let mut edges: Vec<String> = g
                .succ(s)
                .map(|e| format!("{:?} -> {}", e.label, number[e.to.0 as usize]))
                .collect();
            edges.sort();
            format!(
                "beliefs {:?} finished {} fault {:?} edges {:?}",
                g.beliefs(s),
                g.finished(s),
                g.fault(s),
                edges
            )
        })
        .collect();
    (starts, states, g.truncated, g.overflow)
}

/// The same graph with the same numbering, edge for edge.
fn identical(a: &Graph, b: &Graph) -> bool {
    a.len() == b.len()
        && a.transitions() == b.transitions()
        && a.starts == b.starts
        && a.truncated == b.truncated
        && a.overflow == b.overflow
        && a.faults == b.faults
        && (0..a.len() as u32).map(StateId).all(|s| {
            a.beliefs(s) == b.beliefs(s)
                && a.finished(s) == b.finished(s)
                && a.succ(s)
                    .map(|e| (e.to, e.label.clone()))
                    .collect::<Vec<_>>()
                    == b.succ(s)
                        .map(|e| (e.to, e.label.clone()))
                        .collect::<Vec<_>>()
        })
}

/// Explores from `starts` with both explorers and requires the same graph. Returns the number
/// of states.
fn compare(what: &str, net: &Network, ir: &Ir, starts: Vec<State>, max_states: usize) -> usize {
    let agent = &ir.agents[net.agent.0 as usize];
    let sem = Semantics::new(net, agent);
    let limits = |jobs| Limits {
        max_states,
        jobs,
        ..Limits::default()
    };
    let (rg, rstates) = reference::explore(&sem, starts.clone(), limits(1), false);
    let f1 = fast::explore(net, agent, starts.clone(), limits(1), false);
    let f2 = fast::explore(net, agent, starts, limits(2), false);
    let fg = &f1.graph;
    assert_eq!(
        (fg.len(), fg.transitions()),
        (rg.len(), rg.transitions()),
        "{what}: states and transitions"
    );
    assert_eq!(fg.truncated, rg.truncated, "{what}: truncated");
    assert_eq!(fg.overflow, rg.overflow, "{what}: overflow");
    if !rg.truncated {
        assert!(
            canonical(fg) == canonical(&rg),
            "{what}: canonical forms differ"
        );
    }
    // The states themselves: the fast ids name the reference's states, one to one, and the
    // transitions agree under that map.
    let index: HashMap<&State, u32> = rstates.iter().zip(0..).collect();
    let map: Vec<u32> = (0..fg.len() as u32)
        .map(|i| {
            *index
                .get(&f1.state(StateId(i)))
                .unwrap_or_else(|| panic!("{what}: fast state {i} is not a reference state"))
        })
        .collect();
    let mut seen = map.clone();
    seen.sort();
    seen.dedup();
    assert_eq!(
        seen.len(),
        map.len(),
        "{what}: two fast states are one reference state"
    );
    for i in 0..fg.len() as u32 {
        let f: Vec<_> = fg
            .succ(StateId(i))
            .map(|e| (map[e.to.0 as usize], e.label.clone()))
            .collect();
        let r: Vec<_> = rg
            .succ(StateId(map[i as usize]))
            .map(|e| (e.to.0, e.label.clone()))
            .collect();
        assert_eq!(f, r, "{what}: transitions of state {i}");
    }
    assert!(
        identical(fg, &f2.graph),
        "{what}: 1 and 2 threads number differently"
    );
    fg.len()
}

#[test]
fn fast_and_reference_explorers_agree() {
    let projects = corpus();
    assert!(
        projects.iter().any(|p| p.name.contains("philosophers(n=6")),
        "the generated philosophers check without error"
    );
    let mut networks = 0;
    for p in &projects {
        let ir = p.checked.ir.as_ref().expect("checked");
        for (k, net) in ir.networks.iter().enumerate() {
            networks += 1;
            let what = format!("{} network {k}", p.name);
            let agent = &ir.agents[net.agent.0 as usize];
            let sem = Semantics::new(net, agent);
            let n = compare(&what, net, ir, vec![sem.initial()], usize::MAX);
            // Truncated explorations stop at the same state.
            for bound in [1, n / 2, n.saturating_sub(1)] {
                if bound > 0 && bound < n {
                    compare(
                        &format!("{what} bound {bound}"),
                        net,
                        ir,
                        vec![sem.initial()],
                        bound,
                    );
                }
            }
            // From the states aborting the root leads to, every one as a start.
            let (rg, rstates) =
                reference::explore(&sem, vec![sem.initial()], Limits::default(), false);
            let aborted: Vec<State> = rstates
                .iter()
                .take(200)
                .map(|s| sem.abort_root(s).next)
                .collect();
            assert_eq!(rg.len(), n);
            compare(&format!("{what} after abort"), net, ir, aborted, usize::MAX);
        }
    }
    assert!(networks >= 20, "only {networks} networks were compared");
}

#[test]
fn obligations_get_the_same_verdicts_from_both_explorers() {
    for p in corpus() {
        let ir = p.checked.ir.as_ref().expect("checked");
        let limits = Limits {
            max_states: 1_000_000,
            jobs: 2,
            ..Limits::default()
        };
        let run =
            |e| obligations::prove_using(ir, &p.checked.program, &p.loaded.sources, &[], limits, e);
        let (fast, reference) = (run(Explorer::Fast), run(Explorer::Reference));
        assert_eq!(fast.theorems, reference.theorems, "{}", p.name);
        assert_eq!(fast.diagnostics, reference.diagnostics, "{}", p.name);
        assert_eq!(
            (fast.states, fast.transitions),
            (reference.states, reference.transitions),
            "{}",
            p.name
        );
    }
}

#[test]
fn the_fast_explorer_reports_truncation_like_the_reference() {
    let p = load_files("philosophers", philosophers::philosophers(3, false));
    let ir = p.checked.ir.as_ref().expect("checked");
    let net = &ir.networks[0];
    let agent = &ir.agents[net.agent.0 as usize];
    let sem = Semantics::new(net, agent);
    let limits = Limits {
        max_states: 10,
        jobs: 2,
        ..Limits::default()
    };
    let fast = explore::explore_with(Explorer::Fast, net, agent, vec![sem.initial()], limits);
    assert!(fast.graph.truncated);
    assert_eq!(fast.graph.len(), 10);
    let full = explore::explore_with(
        Explorer::Fast,
        net,
        agent,
        vec![sem.initial()],
        Limits::default(),
    );
    assert!(!full.graph.truncated);
    assert!(full.graph.len() > 10);
}

#[test]
fn tables_from_the_arena_equal_tables_of_the_written_out_states() {
    let mut networks = 0;
    for p in corpus() {
        let ir = p.checked.ir.as_ref().expect("checked");
        for (k, net) in ir.networks.iter().enumerate() {
            let agent = &ir.agents[net.agent.0 as usize];
            let sem = Semantics::new(net, agent);
            let limits = Limits {
                max_states: 20_000,
                jobs: 1,
                ..Limits::default()
            };
            let f = fast::explore(net, agent, vec![sem.initial()], limits, false);
            let n = f.graph.len() as u32;
            // The BFS order, its reverse and every other state: the table's order is the
            // caller's, and hash-consing must follow it.
            let orders: [Vec<u32>; 3] = [
                (0..n).collect(),
                (0..n).rev().collect(),
                (0..n).step_by(2).collect(),
            ];
            for order in orders {
                let states: Vec<State> = order.iter().map(|&i| f.state(StateId(i))).collect();
                assert!(
                    f.table(&order) == hilbert_prover::certify::state_table(&states),
                    "{} network {k}: tables differ for an order of {} states",
                    p.name,
                    order.len()
                );
            }
            networks += 1;
        }
    }
    assert!(networks >= 20, "only {networks} networks were compared");
}

/// A plan of `n` threads side by side, each believing one thing: 2^n states, each with up to
/// `n` steps.
fn wide(n: usize) -> Project {
    let agent = "agent W : Agency\n{\n  belief seen(i: Int)\n  commit single_minded\n  attention Idle initially\n  plan Go ↦ Wide.Go\n}\n";
    let body: Vec<String> = (0..n).map(|i| format!("believe seen({i})")).collect();
    let plans = format!("plan Go() : W ≔ {}\n", body.join(" ‖ "));
    load_files(
        &format!("wide({n})"),
        vec![("W.ha".into(), agent.into()), ("Wide.hk".into(), plans)],
    )
}

#[test]
fn a_bounded_search_stops_at_the_first_state_the_bound_refuses() {
    // 2^300 states: only the bound ends it. Both explorers stop at the first new state the bound
    // refuses, so the graph holds the bound's states and the transitions made before that one
    // (state 0's 300 steps reach 300 states, the bound is 200), not every state's every step.
    let p = wide(300);
    let ir = p.checked.ir.as_ref().expect("checked");
    let net = &ir.networks[0];
    let agent = &ir.agents[net.agent.0 as usize];
    let sem = Semantics::new(net, agent);
    for bound in [1, 200, 1000] {
        let n = compare(
            &format!("wide(300) bound {bound}"),
            net,
            ir,
            vec![sem.initial()],
            bound,
        );
        assert_eq!(n, bound);
        let limits = Limits {
            max_states: bound,
            jobs: 2,
            ..Limits::default()
        };
        let f = fast::explore(net, agent, vec![sem.initial()], limits, false);
        assert!(f.graph.truncated);
        assert!(
            f.graph.transitions() < bound + 300,
            "bound {bound}: {} transitions",
            f.graph.transitions()
        );
    }
}
