//! The kernel's frame rule on hand-made certificates: the seed's `Operator.Work` with its IR
//! changed so that the explored worlds break D for R^D, or 4 for R^B; the seed itself admitted.

mod common;

use hilbert_certificates::cert::{self, Body};
use hilbert_certificates::ir::{
    CommitmentStrategy, CompareOp, Cond, CondTerm, Literal, Pattern, PatternArg,
};
use hilbert_kernel::check::{Verdict, check};

fn seed_work() -> (Body, ()) {
    let built = common::build(&common::root().join("examples/production-line"));
    let work = built
        .into_iter()
        .find(|b| b.name == "Operator.Work")
        .unwrap();
    (cert::decode(&work.bytes).unwrap(), ())
}

/// The kernel alone (no sources: the IR is changed on purpose) on the body, re-encoded.
fn frame_verdict(mut body: Body, _: &()) -> Verdict {
    body.ir_sha256 = cert::sha256(&cert::ir_bytes(&body.ir));
    // A change of commitment strategy changes which release theorems the kernel derives: keep
    // the witnesses of those it derives, so that the frame's witness is in its place.
    let derived = hilbert_kernel::check::obligations(&body.ir, body.network as usize).unwrap();
    body.witnesses
        .retain(|w| derived.iter().any(|(n, _)| n == w.obligation()));
    let report = check(&cert::encode(&body), None);
    assert!(report.invalid.is_none(), "{:?}", report.invalid);
    let (_, v) = report
        .obligations
        .iter()
        .find(|(n, _)| n == "Operator.Work_frame")
        .expect("the kernel derives the frame obligation")
        .clone();
    if v != Verdict::Proved {
        assert!(report.admitted.is_none());
    }
    v
}

#[test]
fn the_seed_frame_is_admitted() {
    let (body, digests) = seed_work();
    assert_eq!(frame_verdict(body, &digests), Verdict::Proved);
}

#[test]
fn a_blind_agent_keeps_desiring_what_it_believes_impossible_and_is_admitted() {
    // The seed's reading (`docs/frames.md` §1): a blind agent drops an intention only when it
    // believes the goal achieved, even one it believes impossible, and its desire persists with
    // it. Produced is impossible once made(0) is believed, which the plan's first step does.
    let (mut body, digests) = seed_work();
    let agent = &mut body.ir.agents[0];
    agent.commit = CommitmentStrategy::Blind;
    let made = agent.beliefs.iter().position(|b| b.name == "made").unwrap() as u32;
    agent.desires[0].impossible.push((
        Cond::And(vec![
            Cond::Believes(Pattern {
                belief: hilbert_certificates::ir::BeliefId(made),
                args: vec![PatternArg::Var(0)],
            }),
            Cond::Compare(
                CompareOp::Eq,
                CondTerm::Var(0),
                CondTerm::Literal(Literal::Int(0)),
            ),
        ]),
        "made(0) is believed impossible".into(),
    ));
    // The kernel refused this with `frame.realism` when it counted the desire as given up.
    for commit in [
        CommitmentStrategy::Blind,
        CommitmentStrategy::OpenMinded,
        CommitmentStrategy::SingleMinded,
    ] {
        let mut b = body.clone();
        b.ir.agents[0].commit = commit;
        assert_eq!(frame_verdict(b, &digests), Verdict::Proved, "{commit:?}");
    }
    // What is still refused: a desire no explored world achieves (made(99) is never believed).
    let mut two = body.clone();
    two.ir.agents[0].desires[0].achieved = vec![Cond::Believes(Pattern {
        belief: hilbert_certificates::ir::BeliefId(made),
        args: vec![PatternArg::Literal(Literal::Int(99))],
    })];
    let Verdict::Refused(r) = frame_verdict(two, &digests) else {
        panic!("admitted")
    };
    assert_eq!(r.rule, "frame.D-desire", "{r:?}");
}

#[test]
fn flip_flopping_attention_rules_are_refused_by_4() {
    let (mut body, digests) = seed_work();
    let agent = &mut body.ir.agents[0];
    agent.attends.push((Cond::Attending(0), 1));
    agent.attends.push((Cond::Attending(1), 0));
    let Verdict::Refused(r) = frame_verdict(body, &digests) else {
        panic!("admitted")
    };
    assert_eq!(r.rule, "frame.4", "{r:?}");
    assert!(
        r.state
            .as_deref()
            .is_some_and(|w| w.contains("attending Producing")),
        "{r:?}"
    );
}

#[test]
fn a_goal_reading_an_unset_parameter_is_refused_even_when_params_used_is_forged_empty() {
    // A hostile producer writes the goal as `¬B(self) made(param line)` — which the kernel's
    // evaluation reads as true everywhere, since a parameter with no value matches nothing —
    // and leaves `params_used` empty. The kernel derives what the conditions read itself.
    let (mut body, ()) = seed_work();
    let agent = &mut body.ir.agents[0];
    let made = agent.beliefs.iter().position(|b| b.name == "made").unwrap() as u32;
    agent.args = vec![None];
    agent.desires[0].achieved = vec![Cond::Not(Box::new(Cond::Believes(Pattern {
        belief: hilbert_certificates::ir::BeliefId(made),
        args: vec![PatternArg::Param(0)],
    })))];
    agent.desires[0].params_used.clear();
    body.ir_sha256 = cert::sha256(&cert::ir_bytes(&body.ir));
    let report = check(&cert::encode(&body), None);
    assert!(report.admitted.is_none(), "{:?}", report.obligations);
    for (name, rule) in [
        ("Operator.Work_frame", "frame.parameters"),
        ("Work_live_Produced", "live.parameters"),
    ] {
        let (_, v) = report
            .obligations
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no {name}: {:?}", report.obligations));
        let Verdict::Refused(r) = v else {
            panic!("{name} admitted")
        };
        assert_eq!(r.rule, rule, "{r:?}");
        assert!(r.reason.contains("`line`"), "{r:?}");
    }
}
