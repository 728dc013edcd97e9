//! Frame conditions decided by Z3 at build time (HA0058, HA0059) on purpose-built agents, and
//! the seed free of both.

use hilbert_frontend::{check_project, project};
use std::path::PathBuf;

const LINE: &str = "plan Produce() : Operator ≔ believe made(3)\n";

/// Checks an agent (with `Line.hk`) and returns (code, message, notes) of every frame finding.
fn frame_findings(tag: &str, agent: &str) -> Vec<(String, String, Vec<String>)> {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("hilbert-frames-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Operator.ha"), agent).unwrap();
    std::fs::write(dir.join("Line.hk"), LINE).unwrap();
    findings_in(&dir)
}

/// Checks the project in `dir`, removes it, and returns its frame findings.
fn findings_in(dir: &std::path::Path) -> Vec<(String, String, Vec<String>)> {
    let loaded = project::load(&[dir.display().to_string()]).unwrap();
    let checked = check_project(&loaded);
    let _ = std::fs::remove_dir_all(dir);
    checked
        .diagnostics
        .iter()
        .filter(|d| ["HA0058", "HA0059"].contains(&d.code.to_string().as_str()))
        .map(|d| (d.code.to_string(), d.message.clone(), d.notes.clone()))
        .collect()
}

fn agent(body: &str) -> String {
    format!(
        "agent Operator() : Agency\n{{\n  belief made(count: Int)\n  belief alarm(state: String)\n{body}\n  plan Work ↦ Line.Produce\n}}\n"
    )
}

#[test]
fn a_blind_agent_intending_what_it_believes_impossible_breaks_realism() {
    let f = frame_findings(
        "realism",
        &agent(
            "  desire Produced reachable by [Work]\n  commit blind\n  intend Work for Produced when ¬B(self) made(3)\n  achieved Produced when B(self) made(3)\n  impossible Produced when B(self) alarm(\"raised\") because \"danger\"",
        ),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "HA0058");
    assert!(f[0].1.contains("realism R^D ⊆ R^I"), "{f:?}");
    // The witness world believes the alarm (the desire is impossible, yet intended).
    assert!(
        f[0].2
            .iter()
            .any(|n| n.starts_with("witness: w = {") && n.contains("alarm(\"raised\")")),
        "{f:?}"
    );
}

#[test]
fn flip_flopping_attention_rules_break_4_and_5() {
    let f = frame_findings(
        "flip",
        &agent(
            "  desire Produced reachable by [Work]\n  commit single_minded\n  attention Producing initially\n  attention Resting\n  when attending Producing attend Resting\n  when attending Resting attend Producing\n  intend Work for Produced when ¬B(self) made(3)\n  achieved Produced when B(self) made(3)",
        ),
    );
    let codes: Vec<(&str, bool, bool)> = f
        .iter()
        .map(|(c, m, _)| (c.as_str(), m.contains("4 for R^B"), m.contains("5 for R^B")))
        .collect();
    assert_eq!(
        codes,
        [("HA0058", true, false), ("HA0058", false, true)],
        "{f:?}"
    );
    // Either witness breaks 4: w and v attend to one thing and u to the other (Z3 picks).
    assert!(
        f[0].2.iter().any(|n| n.contains(
            "w = {} attending Producing; u = {} attending Resting; v = {} attending Producing"
        ) || n.contains(
            "w = {} attending Resting; u = {} attending Producing; v = {} attending Resting"
        )),
        "{f:?}"
    );
}

#[test]
fn desires_whose_goals_exclude_each_other_break_seriality_of_r_d() {
    let f = frame_findings(
        "serial",
        &agent(
            "  desire Produced reachable by [Work]\n  desire Idle reachable by [Work]\n  commit single_minded\n  intend Work for Produced when ¬B(self) made(3)\n  achieved Produced when B(self) made(3)\n  achieved Idle when ¬B(self) made(_)",
        ),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].1.contains("D for R^D"), "{f:?}");
    assert!(f[0].2.iter().any(|n| n.contains("`Produced`, `Idle`")));
}

#[test]
fn an_axiom_z3_cannot_decide_exactly_is_a_warning_never_a_proof() {
    let f = frame_findings(
        "inexact",
        &agent(
            "  desire Produced reachable by [Work]\n  commit single_minded\n  attention Producing initially\n  attention Calm\n  when ¬B(self) alarm(\"raised\") attend Calm\n  intend Work for Produced when ¬B(self) made(3)\n  achieved Produced when B(self) made(3)",
        ),
    );
    assert!(!f.is_empty());
    assert!(f.iter().all(|(c, _, _)| c == "HA0059"), "{f:?}");
}

#[test]
fn a_goal_reading_an_agent_parameter_leaves_seriality_unproved_but_realism_proved() {
    let src = agent(
        "  desire Produced reachable by [Work]\n  commit single_minded\n  intend Work for Produced when ¬B(self) made(3)\n  achieved Produced when B(self) made(n) ∧ n = target",
    )
    .replace("agent Operator()", "agent Operator(target: Int)");
    let f = frame_findings("param", &src);
    let messages: Vec<&str> = f
        .iter()
        .map(|(c, m, _)| {
            assert_eq!(c, "HA0059");
            m.as_str()
        })
        .collect();
    assert_eq!(messages.len(), 2, "{f:?}");
    assert!(messages[0].contains("D for R^D") && messages[1].contains("D for R^I"));
    // Realism holds whatever the parameter: the abstraction proves it.
    assert!(!messages.iter().any(|m| m.contains("realism")));
}

#[test]
fn the_seed_is_free_of_frame_findings() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/production-line");
    let loaded = project::load(&[root.display().to_string()]).unwrap();
    let checked = check_project(&loaded);
    let frame: Vec<_> = checked
        .diagnostics
        .iter()
        .filter(|d| ["HA0058", "HA0059"].contains(&d.code.to_string().as_str()))
        .collect();
    assert!(frame.is_empty(), "{frame:?}");
    // Every axiom was put to Z3 and logged for --emit-smt.
    for rule in ["D-belief", "4", "5", "D-desire", "D-intention", "realism"] {
        assert!(
            checked
                .smt
                .queries
                .iter()
                .any(|q| q.name.starts_with(&format!("Operator.frame.{rule}"))),
            "no query for {rule}"
        );
    }
}

/// The seed's agent with its commitment strategy (and, optionally, its `intend Work` rule)
/// replaced, checked: the frame findings.
fn seed_with(tag: &str, edit: &dyn Fn(String) -> String) -> Vec<(String, String, Vec<String>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/production-line");
    let dir: PathBuf =
        std::env::temp_dir().join(format!("hilbert-frames-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["Operator.ha", "Line.hk"] {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        let text = if f == "Operator.ha" { edit(text) } else { text };
        std::fs::write(dir.join(f), text).unwrap();
    }
    findings_in(&dir)
}

#[test]
fn the_frame_is_the_commitment_law_on_the_seed_under_all_three_strategies() {
    let commit = |s: &'static str| move |t: String| t.replace("commit single_minded", s);
    // Single-minded: the alarm releases Work, so nothing is intended that is not desired.
    assert!(seed_with("single", &commit("commit single_minded")).is_empty());
    // Blind and open-minded agents keep Work through the alarm (the runtime does:
    // runtime/tests/production_line.rs), so at a world that believes the alarm they intend
    // what they no longer desire.
    for (tag, strategy) in [("blind", "commit blind"), ("open", "commit open_minded")] {
        let f = seed_with(tag, &commit(strategy));
        assert_eq!(f.len(), 1, "{strategy}: {f:?}");
        assert_eq!(f[0].0, "HA0058", "{strategy}: {f:?}");
        assert!(f[0].1.contains("realism"), "{strategy}: {f:?}");
        assert!(
            f[0].2.iter().any(|n| n.contains("alarm(\"raised\")")),
            "{strategy}: {f:?}"
        );
        assert!(
            f[0].2
                .iter()
                .any(|n| n.contains(&format!("under `{strategy}`"))),
            "{strategy}: {f:?}"
        );
    }
    // Narrowing the intend rule does not help a blind agent: once adopted, Work is kept
    // whatever the rule says later.
    let narrowed = |t: String| {
        t.replace("commit single_minded", "commit blind").replace(
            "intend Work for Produced when B(self) made(n) ∧ n < 3",
            "intend Work for Produced when B(self) made(n) ∧ n < 3 ∧ ¬B(self) alarm(\"raised\")",
        )
    };
    let f = seed_with("narrowed", &narrowed);
    assert!(
        f.len() == 1 && f[0].0 == "HA0058" && f[0].1.contains("realism"),
        "{f:?}"
    );
}
