//! Forgeries: the attacks of a hostile producer (an untrusted frontend, a tampered file) that
//! re-encodes real certificates canonically, so that every checksum and digest is right and
//! only the kernel's rules stand between the forgery and "admitted". Each attack must be refused
//! by a named rule; the resource attacks must be decided within the kernel's work limit.

mod common;

use common::{Built, build, root};
use hilbert_certificates::cert::Witness;
use hilbert_certificates::cert::{self, Body};
use hilbert_certificates::ir::{BeliefId, Command, Cond, Node, NodeId, Pattern, PatternArg};
use hilbert_kernel::check::{Report, Verdict, admit_build, check, work_limit};
use hilbert_kernel::semantics::{MACRO_STEP_FUEL, Semantics, State, settled};
use hilbert_prover::certify::{canonical_order, counts, ranks};
use hilbert_prover::explore::{Limits, reference};
use std::path::PathBuf;

fn example(name: &str) -> Vec<Built> {
    build(&root().join("examples").join(name))
}

fn one_of(built: &[Built], name: &str) -> Body {
    let b = built.iter().find(|b| b.name == name).expect("the network");
    cert::decode(&b.bytes).expect("it decodes")
}

/// The scene's states of a certificate's network, in the kernel's breadth-first order (by the
/// reference explorer).
fn scene_states(body: &Body) -> Vec<State> {
    let net = &body.ir.networks[body.network as usize];
    let sem = Semantics::new(net, &body.ir.agents[net.agent.0 as usize]);
    let (graph, states) = reference::explore(&sem, [sem.initial()], Limits::default(), false);
    let order = canonical_order(&graph);
    order.iter().map(|&i| states[i as usize].clone()).collect()
}

/// Re-encodes a body as a hostile producer would: canonical bytes, the IR digest recomputed.
fn forge(mut body: Body) -> Vec<u8> {
    body.ir_sha256 = cert::sha256(&cert::ir_bytes(&body.ir));
    cert::encode(&body)
}

fn refused_by(report: &Report, rule: &str) -> bool {
    report.admitted.is_none()
        && report
            .obligations
            .iter()
            .any(|(_, v)| matches!(v, Verdict::Refused(r) if r.rule == rule))
}

/// A copy of an example in a fresh directory, with one file edited.
fn edited(example: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let src = root().join("examples").join(example);
    let dir = std::env::temp_dir().join(format!(
        "hilbert-forgery-{example}-{}-{}",
        std::process::id(),
        file.len() + to.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if [".ha", ".hk", ".hb"].iter().any(|x| name.ends_with(x)) {
            let mut text = std::fs::read_to_string(&path).unwrap();
            if name == file {
                assert!(text.contains(from), "{name} has no `{from}`");
                text = text.replace(from, to);
            }
            std::fs::write(dir.join(&name), text).unwrap();
        }
    }
    dir
}

#[test]
fn a_certificate_of_edited_sources_wearing_the_original_digests_is_refused() {
    // The buyer pays first: the edited exchange cannot deadlock, and its certificate is honest
    // about the edited IR. Relabelled with the original files, it claims the original does not
    // deadlock either, which is false.
    let original = example("cross-wait-deadlock");
    let dir = edited(
        "cross-wait-deadlock",
        "Exchange.hk",
        "item ← goods ; 10 → payment",
        "10 → payment ; item ← goods",
    );
    let forged_from = build(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let mut body = one_of(&forged_from, "Trader.Trade");
    let honest = original.iter().find(|b| b.name == "Trader.Trade").unwrap();
    body.sources = honest.sources.clone();
    let bytes = forge(body);
    // The kernel alone admits it: it is a true claim about the IR inside it.
    let alone = check(&bytes, None);
    assert!(alone.admitted.is_some(), "{:?}", alone.obligations);
    // Against the sources it is refused: their IR is another.
    let bound = check(&bytes, Some(&honest.expected()));
    assert!(bound.admitted.is_none());
    let why = bound.invalid.expect("invalid");
    assert!(
        why.contains("not the IR the given sources lower to"),
        "{why}"
    );
}

#[test]
fn a_liveness_theorem_dropped_from_the_ir_is_refused_against_the_sources() {
    let built = example("livelock");
    let honest = &built[0];
    let mut body = one_of(&built, &honest.name);
    let live = body
        .witnesses
        .iter()
        .position(|w| w.obligation().contains("_live_"))
        .expect("a liveness witness");
    body.witnesses.remove(live);
    for d in &mut body.ir.agents[0].desires {
        d.reachable_by.clear();
    }
    let bytes = forge(body);
    assert!(check(&bytes, None).invalid.is_none());
    let why = check(&bytes, Some(&honest.expected()))
        .invalid
        .expect("invalid");
    assert!(why.contains("not the IR"), "{why}");
}

#[test]
fn a_network_no_binding_names_or_whose_root_is_missing_is_invalid_never_vacuously_admitted() {
    let built = example("cross-wait-deadlock");
    let body = one_of(&built, "Trader.Trade");
    // An honest, refuted certificate: no binding names its network, and no witness at all.
    let mut unbound = body.clone();
    for b in &mut unbound.ir.agents[0].plans {
        b.network = None;
    }
    unbound.witnesses.clear();
    let r = check(&forge(unbound), None);
    assert!(r.admitted.is_none() && r.obligations.is_empty());
    assert!(r.invalid.unwrap().contains("no plan binding"));
    // The root plan out of range.
    let mut rootless = body.clone();
    rootless.ir.networks[0].root.0 = 99;
    let r = check(&forge(rootless), None);
    assert!(r.admitted.is_none());
    assert!(r.invalid.unwrap().contains("root plan 99"));
    // Two bindings naming one network, so that one binding's desires would go unchecked.
    let mut twice = body.clone();
    let extra = twice.ir.agents[0].plans[0].clone();
    twice.ir.agents[0].plans.push(extra);
    let r = check(&forge(twice), None);
    assert!(r.invalid.unwrap().contains("more than one plan binding"));
}

/// The seed's `Operator.Work`, honest.
fn seed_work() -> (Built, Body) {
    let built = example("production-line");
    let b = built
        .into_iter()
        .find(|b| b.name == "Operator.Work")
        .unwrap();
    let body = cert::decode(&b.bytes).unwrap();
    (b, body)
}

#[test]
fn a_state_more_than_the_scene_has_cannot_be_declared() {
    // A certificate names no state: a producer that wants a world no step reaches (to lend the
    // frame its worlds, or a rank) can only declare one more, which the kernel does not find.
    let (b, mut body) = seed_work();
    body.scene.states += 1;
    for w in &mut body.witnesses {
        if let cert::Witness::Ranking { ranks, .. } = w {
            ranks.push(0);
        }
    }
    let r = check(&forge(body), Some(&b.expected()));
    assert!(refused_by(&r, "states.count"), "{:?}", r.obligations);
    // And the honest size is admitted.
    assert!(check(&b.bytes, Some(&b.expected())).admitted.is_some());
}

#[test]
fn a_pattern_variable_numbered_four_billion_allocates_nothing() {
    let (_, mut body) = seed_work();
    let agent = &mut body.ir.agents[0];
    agent.desires[0].achieved.push(Cond::Believes(Pattern {
        belief: BeliefId(0),
        args: vec![PatternArg::Var(u32::MAX)],
    }));
    let bytes = forge(body);
    assert!(bytes.len() < 4_000);
    let r = check(&bytes, None);
    assert!(r.invalid.is_none(), "{:?}", r.invalid);
    assert!(!r.obligations.is_empty());
}

#[test]
fn a_plan_with_four_billion_slots_is_invalid() {
    let (_, mut body) = seed_work();
    let n = body.network as usize;
    body.ir.networks[n].plans[0].slots = u32::MAX;
    let r = check(&forge(body), None);
    assert!(r.invalid.unwrap().contains("slots"));
}

#[test]
fn sources_are_compared_path_and_digest_together() {
    let (b, mut body) = seed_work();
    assert!(body.sources.len() >= 2);
    let (d0, d1) = (body.sources[0].sha256, body.sources[1].sha256);
    body.sources[0].sha256 = d1;
    body.sources[1].sha256 = d0;
    let r = check(&forge(body), Some(&b.expected()));
    assert!(r.invalid.unwrap().contains("names source"));
}

#[test]
fn a_build_is_admitted_only_when_every_network_has_one_admitted_certificate() {
    let built = example("production-line");
    assert_eq!(built.len(), 2);
    let ir = built[0].whole.clone();
    let tokens: Vec<_> = built
        .iter()
        .map(|b| {
            let r = check(&b.bytes, Some(&b.expected()));
            let t = r.admitted.expect("admitted");
            assert_eq!(t.certificate(), &cert::sha256(&b.bytes));
            assert_eq!(t.ir(), &cert::sha256(&b.ir));
            t
        })
        .collect();
    assert_ne!(tokens[0].ir(), tokens[1].ir());
    let all = admit_build(&ir, &[&tokens[0], &tokens[1]]).expect("covered");
    assert_eq!(all.networks(), 2);
    // One missing: named.
    let missing = admit_build(&ir, &[&tokens[1]]).unwrap_err();
    let name = &built[0].name;
    assert!(
        missing.iter().any(|p| p.contains(name.as_str())),
        "{missing:?}"
    );
    // One twice.
    let twice = admit_build(&ir, &[&tokens[0], &tokens[0], &tokens[1]]).unwrap_err();
    assert!(twice.iter().any(|p| p.contains("more than one")));
    // A certificate of another project.
    let other = example("abort-handler-finishes");
    let foreign = check(&other[0].bytes, None)
        .admitted
        .expect("admitted alone");
    let mixed = admit_build(&ir, &[&tokens[0], &tokens[1], &foreign]).unwrap_err();
    assert!(
        mixed
            .iter()
            .any(|p| p.contains("not about a network of this IR")),
        "{mixed:?}"
    );
}

#[test]
fn a_certificate_must_carry_its_networks_slice_to_cover_it() {
    // Re-encoded canonically with the whole IR (as certificates once were) and the network's
    // index in it: a true claim about that IR, which the kernel admits alone, but not the slice
    // the sources give, so it is refused against them and covers no network.
    let built = example("production-line");
    let ir = built[0].whole.clone();
    let (b, mut body) = (&built[1], cert::decode(&built[1].bytes).unwrap());
    let whole_index = ir
        .networks
        .iter()
        .position(|n| format!("{}.{}", ir.agents[n.agent.0 as usize].name, n.binding) == b.name)
        .unwrap();
    body.ir = ir.clone();
    body.ir_sha256 = cert::sha256(&cert::ir_bytes(&ir));
    body.network = whole_index as u32;
    let bytes = forge(body);
    let alone = check(&bytes, None)
        .admitted
        .expect("a true claim about the whole IR");
    let r = check(&bytes, Some(&b.expected()));
    assert!(r.invalid.unwrap().contains("not the IR"));
    let first = check(&built[0].bytes, None).admitted.unwrap();
    let problems = admit_build(&ir, &[&first, &alone]).unwrap_err();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("not about a network of this IR")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains(b.name.as_str())),
        "{problems:?}"
    );

    // A slice cut otherwise: the other binding also names the network. The kernel refuses it
    // alone (two bindings name network 0), and its digest is no slice's.
    let mut body = cert::decode(&b.bytes).unwrap();
    for p in &mut body.ir.agents[0].plans {
        p.network = Some(0);
    }
    body.ir_sha256 = cert::sha256(&cert::ir_bytes(&body.ir));
    let r = check(&forge(body), None);
    assert!(r.admitted.is_none(), "{r:?}");
}

#[test]
fn a_choice_of_identical_alternatives_is_cut_off_by_the_work_limit() {
    // The scene's root plan starts with a choice of `N` copies of its body: each of the start's
    // `N` steps copies all `N` of them, so its work grows as N² while the certificate's bytes
    // grow as N. The limit cuts it off. (`HILBERT_FORGERY_N` sets N and `HILBERT_FORGERY_OUT`
    // a file to write the certificate to, for `hilbert verify`; the default keeps it quick.)
    let n = std::env::var("HILBERT_FORGERY_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let (_, mut body) = seed_work();
    let net = &mut body.ir.networks[body.network as usize];
    let root = net.root.0 as usize;
    let start = net.plans[root].body;
    net.nodes.push(Node::Choice(vec![start; n]));
    net.plans[root].body = NodeId(net.nodes.len() as u32 - 1);
    let bytes = forge(body);
    if let Ok(out) = std::env::var("HILBERT_FORGERY_OUT") {
        std::fs::write(out, &bytes).unwrap();
    }
    let started = std::time::Instant::now();
    let r = check(&bytes, None);
    let limit = r.work_limit;
    eprintln!(
        "{} bytes: {} work units (limit {limit}), {:.2} s",
        bytes.len(),
        r.work,
        started.elapsed().as_secs_f64()
    );
    assert!(r.admitted.is_none());
    let why = r.invalid.expect("invalid");
    assert!(why.contains("more work than the kernel's limit"), "{why}");
    assert_eq!(limit, work_limit(bytes.len(), r_declared(&bytes)));
    let step = (n as u64 + 64) * 64 + u64::from(MACRO_STEP_FUEL);
    assert!(r.work <= limit + 4 * step, "{} units", r.work);
}

/// The states a certificate declares.
fn r_declared(bytes: &[u8]) -> u64 {
    cert::decode(bytes).expect("it decodes").declared_states()
}

#[test]
fn a_condition_that_takes_exponential_time_is_cut_off_by_the_work_limit() {
    // `(true ∨ true) ∧ … ∧ (true ∨ true) ∧ false`, sixty times: 2^60 ways to fail.
    let (_, mut body) = seed_work();
    let mut parts = vec![Cond::Or(vec![Cond::True, Cond::True]); 60];
    parts.push(Cond::False);
    body.ir.agents[0].desires[0].achieved.push(Cond::And(parts));
    let bytes = forge(body);
    let r = check(&bytes, None);
    assert!(r.admitted.is_none());
    let why = r.invalid.expect("invalid");
    assert!(why.contains("more work than the kernel's limit"), "{why}");
}

#[test]
fn a_slice_renumbers_the_agents_it_needs_and_its_certificate_covers_its_network() {
    // Agents in file order: Alpha (unrelated), Bravo (tells Charlie, and tests B(Charlie)),
    // Charlie (told), Delta (unrelated). Bravo's slice is Bravo and Charlie, as agents 0 and 1.
    let dir = std::env::temp_dir().join(format!("hilbert-slice-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let agent = |name: &str, body: &str| {
        format!(
            "agent {name} : Agency\n{{\n  belief got(n: Int)\n  commit single_minded\n  attention Main initially\n{body}}}\n"
        )
    };
    let goal = |plan: &str, cond: &str| {
        format!(
            "  desire Done reachable by [Go]\n  intend Go for Done when ¬ {cond}\n  achieved Done when {cond}\n  plan Go ↦ {plan}\n"
        )
    };
    std::fs::write(
        dir.join("A.ha"),
        agent("Alpha", &goal("PA.Run", "B(self) got(1)")),
    )
    .unwrap();
    std::fs::write(
        dir.join("B.ha"),
        agent("Bravo", &goal("PB.Run", "B(Charlie) got(7)")),
    )
    .unwrap();
    std::fs::write(dir.join("C.ha"), agent("Charlie", "")).unwrap();
    std::fs::write(
        dir.join("D.ha"),
        agent("Delta", &goal("PD.Run", "B(self) got(1)")),
    )
    .unwrap();
    std::fs::write(dir.join("PA.hk"), "plan Run() : Alpha ≔ believe got(1)\n").unwrap();
    std::fs::write(
        dir.join("PB.hk"),
        "plan Run() : Bravo ≔ believe got(7) ; tell Charlie got(7)\n",
    )
    .unwrap();
    std::fs::write(dir.join("PD.hk"), "plan Run() : Delta ≔ believe got(1)\n").unwrap();
    let built = common::build(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(built.len(), 3);
    let ir = built[0].whole.clone();
    let names: Vec<&str> = ir.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["Alpha", "Bravo", "Charlie", "Delta"]);
    let bravo = built.iter().find(|b| b.name == "Bravo.Go").unwrap();
    let body = cert::decode(&bravo.bytes).unwrap();
    let names: Vec<&str> = body.ir.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["Bravo", "Charlie"]);
    assert_eq!((body.network, body.ir.networks.len()), (0, 1));
    assert_eq!(body.ir.networks[0].agent.0, 0);
    let told: Vec<u32> = body.ir.networks[0]
        .nodes
        .iter()
        .filter_map(|n| match n {
            hilbert_certificates::ir::Node::Tell { agent, .. } => Some(agent.0),
            _ => None,
        })
        .collect();
    assert_eq!(told, [1]);
    assert!(matches!(
        &body.ir.agents[0].desires[0].achieved[0],
        hilbert_certificates::ir::Cond::Told(a, _) if a.0 == 1
    ));
    // Its sources are the files it comes from, and nothing else.
    let mut files: Vec<&str> = bravo
        .sources
        .iter()
        .map(|s| s.path.rsplit('/').next().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, ["B.ha", "C.ha", "PB.hk"]);
    // Each certificate is admitted against its slice, and together they cover the build.
    let tokens: Vec<_> = built
        .iter()
        .map(|b| {
            check(&b.bytes, Some(&b.expected()))
                .admitted
                .expect("admitted")
        })
        .collect();
    let covered = admit_build(&ir, &tokens.iter().collect::<Vec<_>>()).expect("covered");
    assert_eq!(covered.networks(), 3);
    // Bravo's certificate checked against Alpha's slice is refused.
    let alpha = built.iter().find(|b| b.name == "Alpha.Go").unwrap();
    assert!(
        check(&bravo.bytes, Some(&alpha.expected()))
            .admitted
            .is_none()
    );
}

#[test]
fn a_certificates_head_is_its_bodys_and_junk_has_none() {
    for b in example("production-line") {
        let body = cert::decode(&b.bytes).unwrap();
        let head = cert::decode_head(&b.bytes).expect("a head");
        assert_eq!(
            (head.ir, head.network, head.sources),
            (body.ir, body.network, body.sources)
        );
        for cut in [0, 10, 30, b.bytes.len() / 2] {
            let _ = cert::decode_head(&b.bytes[..cut]);
        }
    }
    assert!(cert::decode_head(b"HILBCERT").is_none());
}

#[test]
fn a_chain_regrouped_to_dodge_its_overflow_is_refused() {
    // `k + 1 - 1` with k the largest Int faults at its first step; `k + (1 - 1)` does not.
    // A producer that regroups the chain gets an honest certificate about the regrouped IR.
    let original = example("overflow-in-a-chain");
    let honest = original
        .iter()
        .find(|b| b.name == "Keeper.Hold")
        .expect("the network");
    let dir = edited("overflow-in-a-chain", "Top.hk", "k + 1 - 1", "k + (1 - 1)");
    let regrouped = build(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let body = one_of(&regrouped, "Keeper.Hold");
    assert!(check(&forge(body.clone()), None).admitted.is_some());
    // Its states and witnesses on the honest IR, whose chain faults: the kernel evaluates the
    // chain left to right itself, and the claimed step does not happen.
    let mut swapped = body.clone();
    swapped.ir = one_of(&original, "Keeper.Hold").ir;
    swapped.sources = honest.sources.clone();
    let bytes = forge(swapped);
    for report in [check(&bytes, None), check(&bytes, Some(&honest.expected()))] {
        assert!(report.admitted.is_none(), "{:?}", report.obligations);
        assert!(report.invalid.is_none(), "{:?}", report.invalid);
        assert!(!report.obligations.is_empty());
        assert!(
            report
                .obligations
                .iter()
                .all(|(_, v)| matches!(v, Verdict::Refused(_))),
            "{:?}",
            report.obligations
        );
    }
    // The regrouped IR wearing the honest sources' digests: not the IR they lower to.
    let mut relabelled = body;
    relabelled.sources = honest.sources.clone();
    let why = check(&forge(relabelled), Some(&honest.expected()))
        .invalid
        .expect("invalid");
    assert!(
        why.contains("not the IR the given sources lower to"),
        "{why}"
    );
}

#[test]
fn an_abort_table_that_stops_where_a_restart_went_on_is_refused() {
    // The abort from outside lands while `Main` runs its `on abort` handlers for its own
    // `restart self`, and does nothing: the body starts again, and no abort is under way. A
    // producer that stops the exploration there (as if the abort had settled) has a closed,
    // ranked table for a false `Main_abortable`: the kernel must see that the abort's
    // exploration ends only where the scene has finished.
    let dir = std::env::temp_dir().join(format!("hilbert-forgery-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("A.ha"),
        "agent A : Agency\n{\n  commit open_minded\n  plan Main ↦ P.Main\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("P.hk"),
        "plan Main() : A\n{\n  body ≔ restart self □ SKIP\n  on abort ≔ SKIP □ SKIP\n}\n",
    )
    .unwrap();
    let built = build(&dir);
    std::fs::remove_dir_all(&dir).ok();
    let b = &built[0];
    assert!(
        b.theorems.contains(&("Main_abortable".to_string(), false)),
        "{:?}",
        b.theorems
    );
    let mut body = cert::decode(&b.bytes).expect("it decodes");
    let net = &body.ir.networks[body.network as usize];
    let agent = &body.ir.agents[net.agent.0 as usize];
    let sem = Semantics::new(net, agent);
    let limits = Limits::default();
    let (scene_graph, scene) = reference::explore(&sem, [sem.initial()], limits, false);
    let scene: Vec<State> = canonical_order(&scene_graph)
        .iter()
        .map(|&i| scene[i as usize].clone())
        .collect();
    let landed: Vec<State> = scene
        .iter()
        .map(|s| sem.command_root(s, Command::Abort).next)
        .collect();
    // Explored as a stop's would be: not going on from a settled state.
    let (graph, states) = reference::explore(&sem, landed, limits, true);
    let order = canonical_order(&graph);
    let ranks = ranks(&graph, &|s| settled(&states[s.0 as usize].term));
    let w = body
        .witnesses
        .iter()
        .position(|w| w.obligation() == "Main_abortable")
        .expect("the abortable witness");
    body.witnesses[w] = Witness::Release {
        obligation: "Main_abortable".into(),
        counts: counts(&graph),
        ranks: order.iter().map(|&i| ranks[i as usize]).collect(),
    };
    let report = check(&forge(body), None);
    assert!(report.admitted.is_none(), "{report:?}");
    let verdict = report
        .obligations
        .iter()
        .find(|(n, _)| n == "Main_abortable")
        .map(|(_, v)| v);
    assert!(matches!(verdict, Some(Verdict::Refused(_))), "{verdict:?}");
}

/// The same body, written other than canonically (a byte after its end; a length spelt with a
/// needless continuation byte), with its checksum made right: refused as not canonical, since
/// two byte strings for one body would give one certificate two digests.
#[test]
fn a_body_not_written_canonically_is_refused() {
    let (b, _) = seed_work();
    let start = cert::MAGIC.len() + cert::HEADER_LEN;
    let body = &b.bytes[start..b.bytes.len() - 32];
    let framed = |body: &[u8]| {
        let mut out = b.bytes[..start].to_vec();
        out.extend_from_slice(body);
        let sum = cert::sha256(&out);
        out.extend_from_slice(&sum);
        out
    };
    assert!(
        cert::decode(&framed(body)).is_ok(),
        "the honest body, re-framed"
    );
    let mut trailing = body.to_vec();
    trailing.push(0);
    assert!(matches!(
        cert::decode(&framed(&trailing)),
        Err(cert::DecodeError::NotCanonical)
    ));
    // The tool's name comes first, its length a one-byte varint; spelt in two bytes.
    assert!(body[0] < 0x80 && body[0] > 0);
    let mut overlong = vec![body[0] | 0x80, 0];
    overlong.extend_from_slice(&body[1..]);
    assert!(matches!(
        cert::decode(&framed(&overlong)),
        Err(cert::DecodeError::NotCanonical)
    ));
    assert!(
        check(&framed(&trailing), Some(&b.expected()))
            .admitted
            .is_none()
    );
}

/// The witness of obligation `name` in `body`.
fn witness_of<'b>(body: &'b mut Body, name: &str) -> &'b mut Witness {
    (body.witnesses.iter_mut())
        .find(|w| w.obligation() == name)
        .unwrap_or_else(|| panic!("no witness for {name}"))
}

/// A project of one pump agent whose valve chooses, forever, between air and clear
/// (`tests/asserts.rs`): its air cycle is weakly fair, so `Go_live_Done` is false even under
/// weak fairness.
fn livelocked_pump() -> Vec<Built> {
    let dir = std::env::temp_dir().join(format!("hilbert-forgery-livelock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("A.ha"),
        "agent A : Agency\n{\n  belief done(n: Int)\n  desire Done reachable by [Go] under weak fairness\n  commit single_minded\n  attention Idle initially\n  intend Go for Done when ¬ B(self) done(1)\n  achieved Done when B(self) done(1)\n  plan Go ↦ P.Go\n  assert ends: eventually B(self) done(1) under weak fairness\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("P.hk"),
        "plan Valve(air: chan Int, ok: chan Int) : A ≔ (1 → air ; Valve(air, ok)) □ (1 → ok)\nplan Control(air: chan Int, ok: chan Int) : A ≔ (x ← air ; Control(air, ok)) □ (y ← ok ; believe done(1))\nplan Go() : A\n{\n  air : chan Int\n  ok : chan Int\n  body ≔ Valve(air, ok) ‖ Control(air, ok)\n}\n",
    )
    .unwrap();
    let built = build(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    built
}

#[test]
fn a_fair_ranking_that_keeps_a_rank_with_no_helpful_process_is_refused() {
    let built = livelocked_pump();
    let honest = one_of(&built, "A.Go");
    assert!(check(&forge(honest.clone()), None).admitted.is_none());
    for name in ["Go_live_Done", "Go_assert_ends"] {
        // Every state missing the goal at one rank: the air cycle keeps it, and both plan
        // instances that can move there move in it.
        let mut body = honest.clone();
        if let Witness::Ranking { ranks, .. } = witness_of(&mut body, name) {
            ranks.iter_mut().for_each(|r| *r = 1);
        }
        let report = check(&forge(body), None);
        assert!(refused_by(&report, "fair.helpful"), "{name}: {report:?}");
    }
    // Ranks that grow along a step are refused as for any ranking.
    let pump = one_of(&example("infusion-pump"), "Pump.Infuse");
    assert!(check(&forge(pump.clone()), None).admitted.is_some());
    for name in ["Infuse_live_Delivered", "Infuse_assert_delivers"] {
        let mut body = pump.clone();
        if let Witness::Ranking { ranks, .. } = witness_of(&mut body, name) {
            ranks
                .iter_mut()
                .enumerate()
                .for_each(|(i, r)| *r = i as u64 + 1);
        }
        let report = check(&forge(body), None);
        assert!(
            refused_by(&report, "ranking.decreases"),
            "{name}: {report:?}"
        );
    }
    // The fair valve's honest fair ranking keeps ranks on its air cycle: without the fairness
    // the IR claimed, it is no ranking.
    let mut body = pump.clone();
    body.ir.agents[0].desires[0].fair = false;
    let report = check(&forge(body), None);
    assert!(refused_by(&report, "ranking.decreases"), "{report:?}");
    let mut body = pump;
    let k = (body.ir.agents[0].asserts.iter())
        .position(|a| a.name == "delivers")
        .unwrap();
    body.ir.agents[0].asserts[k].fair = false;
    let report = check(&forge(body), None);
    assert!(refused_by(&report, "ranking.decreases"), "{report:?}");
}

#[test]
fn an_assertion_is_read_on_every_reachable_state_whatever_its_witness_says() {
    use hilbert_certificates::ir::Property;
    let pump = one_of(&example("infusion-pump"), "Pump.Infuse");
    let believes = |belief: &str, body: &Body| {
        let agent = &body.ir.agents[0];
        let b = agent.beliefs.iter().position(|x| x.name == belief).unwrap();
        Cond::Believes(Pattern {
            belief: BeliefId(b as u32),
            args: vec![PatternArg::Any],
        })
    };
    let asserted = |body: &mut Body, name: &str, p: Property| {
        let a = (body.ir.agents[0].asserts.iter_mut())
            .find(|a| a.name == name)
            .unwrap();
        a.property = p;
    };
    // `never clamped`, `always occluded`, and `occluded precedes infusing`, each false, with
    // the honest (empty) witness of the assertion they replace.
    let clamped = believes("clamped", &pump);
    let occluded = believes("occluded", &pump);
    let infusing = believes("infusing", &pump);
    for (name, property) in [
        ("safe_line", Property::Never(clamped)),
        ("attends_alarm", Property::Always(occluded.clone())),
        ("primed_first", Property::Precedes(occluded, infusing)),
    ] {
        let mut body = pump.clone();
        asserted(&mut body, name, property);
        let report = check(&forge(body), None);
        assert!(refused_by(&report, "assert.state"), "{name}: {report:?}");
    }
    // A response with a state where it is asked for (occluded, not yet clear) left without a
    // rank.
    let mut body = pump.clone();
    let states = scene_states(&body);
    let occluded_at = (states.iter())
        .position(|s| {
            s.beliefs
                .iter()
                .any(|a| pump.ir.agents[0].beliefs[a.belief.0 as usize].name == "occluded")
        })
        .unwrap();
    if let Witness::Ranking { ranks, .. } = witness_of(&mut body, "Infuse_assert_clears") {
        ranks[occluded_at] = u64::MAX;
    }
    let report = check(&forge(body), None);
    assert!(refused_by(&report, "ranking.start"), "{report:?}");
    // The wrong kind of witness, either way round.
    let mut body = pump.clone();
    *witness_of(&mut body, "Infuse_assert_clamps") = Witness::Invariant {
        obligation: "Infuse_assert_clamps".into(),
    };
    *witness_of(&mut body, "Infuse_assert_safe_line") = Witness::Ranking {
        obligation: "Infuse_assert_safe_line".into(),
        ranks: vec![0; states.len()],
    };
    let report = check(&forge(body), None);
    let kinds = (report.obligations.iter())
        .filter(|(_, v)| matches!(v, Verdict::Refused(r) if r.rule == "witness.kind"))
        .count();
    assert_eq!(kinds, 2, "{report:?}");
    // An assertion that reads an agent parameter with no value decides nothing.
    let mut body = pump;
    let agent = &mut body.ir.agents[0];
    agent
        .params
        .push(("dose".into(), hilbert_certificates::ir::Type::Int));
    agent.args.push(None);
    let p = agent.params.len() as u32 - 1;
    let a = agent
        .asserts
        .iter_mut()
        .find(|a| a.name == "safe_line")
        .unwrap();
    a.property = Property::Never(Cond::Compare(
        hilbert_certificates::ir::CompareOp::Eq,
        hilbert_certificates::ir::CondTerm::Param(p),
        hilbert_certificates::ir::CondTerm::Literal(hilbert_certificates::ir::Literal::Int(0)),
    ));
    let report = check(&forge(body), None);
    assert!(refused_by(&report, "assert.parameters"), "{report:?}");
}
