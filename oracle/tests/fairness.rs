//! Weak fairness where it matters. The generator's random plans rarely have a process that can
//! move all along a cycle without moving in it, so fairness seldom changes a verdict there;
//! these scenes are built for it: a valve reporting air to a controller, a sensor that may
//! report the line clear, in every combination of their variants, each with assertions and a
//! liveness theorem with and without weak fairness. The build and the oracle must agree on
//! every theorem, and fairness must change some verdicts (or the comparison proves nothing).

use hilbert_oracle::pipeline::{self, Outcome, Sources};

/// The valves: reports air forever; chooses itself between air and clear; reports in pairs.
const VALVES: [&str; 3] = [
    "1 → air ; Valve(air, ok)",
    "(1 → air ; Valve(air, ok)) □ (1 → ok)",
    "1 → air ; 2 → air ; Valve(air, ok)",
];

/// The sensors: none; reports clear once; takes an air report first.
const SENSORS: [&str; 3] = ["SKIP", "1 → ok", "x ← air ; 1 → ok"];

/// The controllers: can hear clear at every step; notes the air before it can again.
const CONTROLS: [&str; 2] = [
    "(x ← air ; Control(air, ok)) □ (y ← ok ; believe done(1))",
    "(x ← air ; believe seen(1) ; 1 → note ; Control(air, ok)) □ (y ← ok ; believe done(1))",
];

fn scene(valve: &str, sensor: &str, control: &str, fair: &str) -> Sources {
    let ha = format!(
        "agent A : Agency\n{{\n  belief seen(n: Int)\n  belief done(n: Int)\n  desire Done reachable by [Go]{fair}\n  commit single_minded\n  attention Idle initially\n  intend Go for Done when ¬ B(self) done(1)\n  achieved Done when B(self) done(1)\n  plan Go ↦ P.Go\n  assert ends: eventually B(self) done(1){fair}\n  assert answers: B(self) seen(1) leads to B(self) done(1){fair}\n  assert wants: ¬ B(self) done(1) leads to ¬ desires Done{fair}\n  assert first: B(self) seen(1) precedes B(self) done(1)\n  assert once: never B(self) done(2)\n}}\n"
    );
    let note = if control.contains("note") {
        "plan Note(note: chan Int) : A ≔ z ← note ; Note(note)\n"
    } else {
        ""
    };
    let noted = if note.is_empty() {
        ""
    } else {
        " ‖ n : Note(note)"
    };
    let aborts = if note.is_empty() { "" } else { " ; abort n" };
    let hk = format!(
        "plan Valve(air: chan Int, ok: chan Int) : A ≔ {valve}\nplan Sensor(air: chan Int, ok: chan Int) : A ≔ {sensor}\nplan Control(air: chan Int, ok: chan Int, note: chan Int) : A ≔ {}\n{note}plan Go() : A\n{{\n  air : chan Int\n  ok : chan Int\n  note : chan Int\n  body ≔ v : Valve(air, ok) ‖ Sensor(air, ok){noted} ‖ (Control(air, ok, note) ; abort v{aborts})\n}}\n",
        control.replace("Control(air, ok)", "Control(air, ok, note)")
    );
    Sources {
        files: vec![("A.ha".into(), ha), ("P.hk".into(), hk)],
        params: Vec::new(),
    }
}

#[test]
fn the_build_and_the_oracle_agree_where_weak_fairness_changes_the_verdict() {
    let (mut compared, mut changed, mut failures) = (0, 0, Vec::new());
    for valve in VALVES {
        for sensor in SENSORS {
            for control in CONTROLS {
                let mut words = Vec::new();
                for fair in ["", " under weak fairness"] {
                    let src = scene(valve, sensor, control, fair);
                    match pipeline::run(&src, 2_000) {
                        Outcome::Compared {
                            disagreements,
                            compared: n,
                            ..
                        } => {
                            compared += n;
                            failures.extend(
                                (disagreements.iter()).map(|d| {
                                    format!("{}: {}\n{}", d.class, d.detail, src.listing())
                                }),
                            );
                        }
                        Outcome::Refused(codes) => {
                            failures.push(format!("refused {codes:?}\n{}", src.listing()))
                        }
                    }
                    let proofs = pipeline::build(&src, 8_000).expect("it builds");
                    words.push(
                        proofs
                            .theorems
                            .iter()
                            .map(|t| t.status.word())
                            .collect::<Vec<_>>(),
                    );
                }
                changed += (words[0].iter().zip(&words[1]))
                    .filter(|(a, b)| a != b)
                    .count();
            }
        }
    }
    eprintln!("{compared} theorems compared; weak fairness changed {changed} verdicts");
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(
        changed >= 10,
        "weak fairness changed only {changed} verdicts"
    );
}
