//! The fast explorer against the reference one: on every project of `examples/` and
//! `tests/cases/` that checks without error, and on the dining philosophers for N = 2..6 (both
//! tables), every network must give the same graph (same counts, the same graph up to
//! numbering, the same reference states), with 1 thread and with 2 (the same numbering), from
//! the scene's initial state, from the states an abort leads to, and under a `--max-states`
//! bound; and the obligations must get the same verdicts whichever explorer decides them. The
//! same on hundreds of random programs whose scene runs a wide `‖` (the fast explorer's
//! vector states, `prover/src/explore/fast/vector.rs`), and at the fuel and nesting limits a
//! step put together from its children must respect.

use hilbert_certificates::ir::{Command, Ir, Network};
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
                .map(|s| sem.command_root(s, Command::Abort).next)
                .collect();
            assert_eq!(rg.len(), n);
            compare(&format!("{what} after abort"), net, ir, aborted, usize::MAX);
        }
    }
    assert!(networks >= 20, "only {networks} networks were compared");
}

/// Decides the project's obligations with each explorer: the same theorems, diagnostics and
/// counts.
fn same_verdicts(p: &Project, limits: Limits) {
    let ir = p.checked.ir.as_ref().expect("checked");
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

#[test]
fn obligations_get_the_same_verdicts_from_both_explorers() {
    for p in corpus() {
        let limits = Limits {
            max_states: 1_000_000,
            jobs: 2,
            ..Limits::default()
        };
        same_verdicts(&p, limits);
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

/// A small seeded generator (xorshift64*), so that the random programs are the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// What a random process may name: its channels, the variables bound so far and its labels;
/// and whether it may diverge.
struct Scope {
    chans: Vec<String>,
    vars: Vec<String>,
    labels: Vec<String>,
    fresh: usize,
    /// Whether a step may diverge: whether `Loop()` is called.
    diverge: bool,
}

/// An integer expression: a literal, a variable, or one that may fault (a division by a
/// received zero, an overflow).
fn random_expr(rng: &mut Rng, sc: &Scope) -> String {
    let var = (!sc.vars.is_empty()).then(|| sc.vars[rng.below(sc.vars.len())].clone());
    match (rng.below(10), var) {
        (0..=3, _) | (_, None) => rng.below(3).to_string(),
        (4..=6, Some(v)) => v,
        (7, Some(v)) => format!("{v} + 1"),
        (8, Some(v)) => format!("1 / {v}"),
        (_, Some(v)) => format!("{v} * 4611686018427387904"),
    }
}

/// A random process: sequences of sends, receives, beliefs, commands on the plan's labels and
/// `self`, and nested choices, interrupts, `‖`, labels and matches. `guarded` says whether
/// every path from the start of the innermost label or plan body around it to here passes a
/// communication; a `restart` is issued only there, and a plan's body ends in a tail call
/// only when its end is guarded, so that no step runs into the same `restart` or call again
/// (only `Loop()` diverges). Returns the process and whether its end is guarded.
fn random_proc(rng: &mut Rng, sc: &mut Scope, depth: usize, mut guarded: bool) -> (String, bool) {
    let len = 1 + rng.below(3);
    let mut parts = Vec::new();
    let bound = sc.vars.len();
    for _ in 0..len {
        let chan = sc.chans[rng.below(sc.chans.len())].clone();
        let part = match rng.below(if depth == 0 { 9 } else { 15 }) {
            0 | 1 => {
                guarded = true;
                format!("{} → {chan}", random_expr(rng, sc))
            }
            2 | 3 => {
                guarded = true;
                let v = format!("v{}", sc.fresh);
                sc.fresh += 1;
                sc.vars.push(v.clone());
                format!("{v} ← {chan}")
            }
            4 => format!("believe b({})", random_expr(rng, sc)),
            5 => format!("forget b({})", random_expr(rng, sc)),
            6 => {
                let target = if sc.labels.is_empty() || rng.chance(30) {
                    "self".to_string()
                } else {
                    sc.labels[rng.below(sc.labels.len())].clone()
                };
                let commands = if guarded { 4 } else { 3 };
                let command = ["stop", "resume", "abort", "restart"][rng.below(commands)];
                format!("{command} {target}")
            }
            7 => ["SKIP", "STOP"][rng.below(2)].to_string(),
            8 => {
                if sc.diverge && rng.chance(30) {
                    "Loop()".to_string()
                } else {
                    "SKIP".to_string()
                }
            }
            9 | 10 => {
                let op = ["□", "△", "‖"][rng.below(3)];
                let (a, _) = random_proc(rng, sc, depth - 1, guarded);
                let (b, _) = random_proc(rng, sc, depth - 1, guarded);
                format!("({a} {op} {b})")
            }
            11 | 12 => {
                let l = format!("l{}", sc.fresh);
                sc.fresh += 1;
                sc.labels.push(l.clone());
                format!("({l} : {})", random_proc(rng, sc, depth - 1, false).0)
            }
            _ => {
                let e = random_expr(rng, sc);
                let (a, _) = random_proc(rng, sc, depth - 1, guarded);
                let (b, _) = random_proc(rng, sc, depth - 1, guarded);
                format!("(match {e} {{ when 0 ↦ {a} other ↦ {b} }})")
            }
        };
        parts.push(part);
    }
    sc.vars.truncate(bound);
    (parts.join(" ; "), guarded)
}

/// A random project whose scene's root runs a wide `‖`: children that call plans with
/// handlers (some looping by a tail call) and inline processes, over shared channels. Only
/// with `diverge` may a step diverge (see [`Scope::diverge`]).
fn random_wide(seed: u64, diverge: bool) -> Project {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let agent = "agent W : Agency\n{\n  belief b(n: Int)\n  commit single_minded\n  attention Idle initially\n  plan Go ↦ Wide.Go\n}\n";
    // Forks without ever communicating: its first step nests terms past `MAX_NESTING`.
    let mut plans = String::from("plan Loop() : W ≔ (SKIP ‖ SKIP) ; Loop()\n");
    let nchans = 2 + rng.below(3);
    let chans: Vec<String> = (0..nchans).map(|i| format!("c{i}")).collect();
    let width = 4 + rng.below(5);
    let mut children = Vec::new();
    let mut labels = Vec::new();
    for i in 0..width {
        let (a, d) = (
            chans[rng.below(nchans)].clone(),
            chans[rng.below(nchans)].clone(),
        );
        if rng.chance(65) {
            let mut sc = Scope {
                chans: vec!["a".into(), "d".into()],
                vars: Vec::new(),
                labels: Vec::new(),
                fresh: 0,
                diverge,
            };
            let (mut body, guarded) = random_proc(&mut rng, &mut sc, 2, false);
            if rng.chance(50) && guarded {
                body = format!("{body} ; K{i}(a, d)");
            }
            let mut members = format!("  body ≔ {body}\n");
            if rng.chance(60) {
                members += &format!("  on abort ≔ believe b({i})\n");
            }
            if rng.chance(40) {
                members += &format!("  on stop ≔ forget b({i})\n");
            }
            if rng.chance(40) {
                members += &format!("  on resume ≔ believe b({i}) ; 1 → a\n");
            }
            plans += &format!("plan K{i}(a: chan Int, d: chan Int) : W\n{{\n{members}}}\n");
            children.push(format!("K{i}({a}, {d})"));
        } else {
            let mut sc = Scope {
                chans: chans.clone(),
                vars: Vec::new(),
                labels: labels.clone(),
                fresh: 100 * (i + 1),
                diverge,
            };
            let (child, _) = random_proc(&mut rng, &mut sc, 1, false);
            labels.extend(
                sc.labels
                    .into_iter()
                    .filter(|l| !labels.contains(l))
                    .collect::<Vec<_>>(),
            );
            children.push(format!("({child})"));
        }
    }
    let decls: String = chans
        .iter()
        .map(|c| format!("  {c} : chan Int\n"))
        .collect();
    plans += &format!(
        "plan Go() : W\n{{\n{decls}  body ≔ {}\n}}\n",
        children.join("\n    ‖ ")
    );
    load_files(
        &format!("random_wide({seed}, {diverge})"),
        vec![("W.ha".into(), agent.into()), ("Wide.hk".into(), plans)],
    )
}

/// Explores from `starts` with both explorers, not going on from settled states (as the
/// explorations of commands from outside do), and requires the same graph and states.
fn compare_halted(what: &str, net: &Network, ir: &Ir, starts: Vec<State>, max_states: usize) {
    let agent = &ir.agents[net.agent.0 as usize];
    let sem = Semantics::new(net, agent);
    let limits = Limits {
        max_states,
        jobs: 2,
        ..Limits::default()
    };
    let (rg, rstates) = reference::explore(&sem, starts.clone(), limits, true);
    let f = fast::explore(net, agent, starts, limits, true);
    assert!(identical(&f.graph, &rg), "{what}: halted graphs differ");
    for (i, s) in rstates.iter().enumerate() {
        assert!(f.state(StateId(i as u32)) == *s, "{what}: halted state {i}");
        assert_eq!(
            f.settled(StateId(i as u32)),
            hilbert_kernel::semantics::settled(&s.term),
            "{what}: settled {i}"
        );
    }
}

/// Runs `f` on a thread with a large stack: a diverging child nests its terms deeply, and both
/// semantics recurse on them.
fn on_a_large_stack(f: fn()) {
    std::thread::Builder::new()
        .stack_size(1 << 29)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no disagreement");
}

#[test]
fn fast_and_reference_explorers_agree_on_wide_random_programs() {
    on_a_large_stack(wide_random_programs);
}

/// What the random programs covered.
#[derive(Default, Debug)]
struct Covered {
    programs: usize,
    states: usize,
    /// Transitions of vector states made by the fast path and by the general one.
    paths: (u64, u64),
    /// Programs in which the scene has a fault, and in which a step diverged.
    faulted: usize,
    diverged: usize,
    /// Networks whose obligations were decided by both explorers.
    verdicts: usize,
}

fn wide_random_programs() {
    let mut cov = Covered::default();
    // Hundreds of programs in which no step diverges, and fewer, smaller ones which call
    // `Loop()`.
    for seed in 0..300 {
        wide_random_program(random_wide(seed, false), 300, 12, seed % 10 == 0, &mut cov);
    }
    let converging = cov.programs;
    for seed in 0..60 {
        wide_random_program(
            random_wide(1000 + seed, true),
            100,
            6,
            seed % 10 == 0,
            &mut cov,
        );
    }
    eprintln!("{cov:?}");
    assert!(converging >= 200, "only {converging} random programs check");
    assert!(cov.programs >= converging + 6, "only {cov:?} check");
    assert!(
        cov.paths.0 > 10_000 && cov.paths.1 > 1_000,
        "both the fast path and the general one are exercised: {cov:?}"
    );
    assert!(
        cov.faulted >= 20 && cov.diverged >= 10,
        "faults and diverging steps are met: {cov:?}"
    );
}

/// Compares the fast and the reference explorers on one random program, from its initial
/// state (up to `bound` states, and under a smaller bound), from the states commands from
/// outside lead to in its first `commanded` states, and the verdicts of its obligations when
/// `verdicts`.
fn wide_random_program(
    p: Project,
    bound: usize,
    commanded: usize,
    verdicts: bool,
    cov: &mut Covered,
) {
    if p.checked.has_errors() || p.checked.ir.is_none() {
        return;
    }
    cov.programs += 1;
    let ir = p.checked.ir.as_ref().expect("checked");
    for (k, net) in ir.networks.iter().enumerate() {
        let what = format!("{} network {k}", p.name);
        let agent = &ir.agents[net.agent.0 as usize];
        let sem = Semantics::new(net, agent);
        let n = compare(&what, net, ir, vec![sem.initial()], bound);
        cov.states += n;
        compare(
            &format!("{what} bound"),
            net,
            ir,
            vec![sem.initial()],
            n / 2 + 1,
        );
        let f = fast::explore(
            net,
            agent,
            vec![sem.initial()],
            Limits {
                max_states: bound,
                jobs: 1,
                ..Limits::default()
            },
            false,
        );
        let (a, b) = f.vector_paths();
        cov.paths = (cov.paths.0 + a, cov.paths.1 + b);
        cov.faulted += !f.graph.faults.is_empty() as usize;
        cov.diverged += f
            .graph
            .faults
            .iter()
            .any(|(_, f)| *f == hilbert_kernel::semantics::Fault::Diverged)
            as usize;
        // Commands from outside: an abort, and a stop then a resume (back to a vector
        // state through the general path), from some reachable states.
        let (_, rstates) = reference::explore(
            &sem,
            vec![sem.initial()],
            Limits {
                max_states: commanded,
                ..Limits::default()
            },
            false,
        );
        let stop = |s: &State| sem.command_root(s, Command::Stop).next;
        let resumed: Vec<State> = rstates
            .iter()
            .map(|s| sem.command_root(&stop(s), Command::Resume).next)
            .collect();
        let aborted: Vec<State> = rstates
            .iter()
            .map(|s| sem.command_root(s, Command::Abort).next)
            .collect();
        compare(&format!("{what} resumed"), net, ir, resumed.clone(), bound);
        compare(&format!("{what} aborted"), net, ir, aborted, bound);
        compare_halted(
            &format!("{what} stopped"),
            net,
            ir,
            rstates.iter().map(stop).collect(),
            bound,
        );
        compare_halted(&format!("{what} resumed, halted"), net, ir, resumed, bound);
    }
    if verdicts {
        let limits = Limits {
            max_states: bound,
            jobs: 2,
            ..Limits::default()
        };
        same_verdicts(&p, limits);
        cov.verdicts += ir.networks.len();
    }
}

/// A scene of four children side by side whose rendezvous on `c` runs `Count(n)` after it in
/// the sender (`heavy` 1) or in both (`heavy` 2): each counts down by tail calls within the
/// step, spending its fuel. (`Nest(n)` nests two terms deeper each time round.)
fn counting(n: u64, heavy: usize) -> Project {
    counting_with(n, heavy, "Count", false)
}

/// As [`counting`], with the plan `count` run after the rendezvous, and the sender inside a
/// label when `label` (one level deeper).
fn counting_with(n: u64, heavy: usize, count: &str, label: bool) -> Project {
    let agent = "agent W : Agency\n{\n  belief b(n: Int)\n  commit single_minded\n  attention Idle initially\n  plan Go ↦ Wide.Go\n}\n";
    let receiver = if heavy == 2 {
        format!("x ← c ; {count}({n})")
    } else {
        "x ← c".to_string()
    };
    let sender = if label {
        format!("(l : 1 → c ; {count}({n}))")
    } else {
        format!("(1 → c ; {count}({n}))")
    };
    let plans = format!(
        "plan Count(n: Int) : W ≔ match n {{ when 0 ↦ SKIP other ↦ Count(n - 1) }}\n\
         plan Nest(n: Int) : W ≔ match n {{ when 0 ↦ SKIP other ↦ (SKIP ‖ SKIP) ; Nest(n - 1) }}\n\
         plan Go() : W\n{{\n  c : chan Int\n  d : chan Int\n  \
         body ≔ {sender} ‖ ({receiver}) ‖ (y ← d ; believe b(y)) ‖ (2 → d)\n}}\n"
    );
    load_files(
        &format!("counting({n}, {heavy}, {count}, {label})"),
        vec![("W.ha".into(), agent.into()), ("Wide.hk".into(), plans)],
    )
}

#[test]
fn a_step_whose_children_together_spend_more_than_the_fuel_diverges_in_both_explorers() {
    // Each `Count(40000)` alone stays within `MACRO_STEP_FUEL`, two in one step do not: the
    // fast path, which puts a step together from the children fired alone, must see the sum.
    for heavy in [1, 2] {
        let p = counting(40_000, heavy);
        let ir = p.checked.ir.as_ref().expect("checked");
        let net = &ir.networks[0];
        let agent = &ir.agents[net.agent.0 as usize];
        let sem = Semantics::new(net, agent);
        let what = format!("{} network 0", p.name);
        let n = compare(&what, net, ir, vec![sem.initial()], usize::MAX);
        assert_eq!(n, 4, "{what}");
        let f = fast::explore(net, agent, vec![sem.initial()], Limits::default(), false);
        assert_eq!(
            f.graph.faults.is_empty(),
            heavy == 1,
            "{what}: one counter fits the fuel, two diverge"
        );
        let (fast_path, general) = f.vector_paths();
        assert!(fast_path > 0, "{what}: the fast path is taken");
        if heavy == 2 {
            assert!(
                general > 0,
                "{what}: the diverging step is the general path's"
            );
        }
    }
}

#[test]
fn a_step_that_nests_past_the_limit_diverges_in_both_explorers() {
    on_a_large_stack(nesting_at_the_limit);
}

fn nesting_at_the_limit() {
    // `Nest(n)` after the rendezvous reaches nesting about 2n plus the child's depth in the
    // scene: the fast path runs the child alone, and must run it at the depth the reference
    // does. Around the limit, at both parities (the label puts the sender one level deeper).
    let mut diverged = Vec::new();
    for label in [false, true] {
        for n in [496, 497, 498, 499] {
            let p = counting_with(n, 1, "Nest", label);
            let ir = p.checked.ir.as_ref().expect("checked");
            let net = &ir.networks[0];
            let agent = &ir.agents[net.agent.0 as usize];
            let sem = Semantics::new(net, agent);
            let what = format!("{} network 0", p.name);
            compare(&what, net, ir, vec![sem.initial()], usize::MAX);
            let f = fast::explore(net, agent, vec![sem.initial()], Limits::default(), false);
            diverged.push(!f.graph.faults.is_empty());
        }
    }
    assert!(
        !diverged[0] && diverged[3] && !diverged[4] && diverged[7],
        "the limit lies within the range: {diverged:?}"
    );
}
