//! `hilbert run` and `hilbert replay` end to end: a readable trace, a journal that replays
//! identically, and an edited journal caught at the line that differs.

mod common;

use common::hilbert;

fn journal_path(tag: &str) -> String {
    std::env::temp_dir()
        .join(format!("hilbert-run-{}-{tag}.jsonl", std::process::id()))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_run_prints_its_trace_and_its_journal_replays() {
    let journal = journal_path("replay");
    let run = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--scenario",
            "examples/production-line/scenarios/alarm-at-2.json",
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "release #1 Work (Produced impossible): the line is in danger, so production stops"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("attention Producing → Emergency"));
    assert!(run.stdout.contains("+safe(1)"));
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
    assert!(replay.stdout.starts_with("replay matched"));

    // Edit one entry: the replay finds it.
    let text = std::fs::read_to_string(&journal).unwrap();
    let edited = text.replacen("\"reason\":\"impossible\"", "\"reason\":\"achieved\"", 1);
    assert_ne!(text, edited);
    std::fs::write(&journal, &edited).unwrap();
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(1), "{}", replay.stdout);
    assert!(
        replay.stdout.contains("mismatch at journal line"),
        "{}",
        replay.stdout
    );

    // Drop the last entry: caught too.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.pop();
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(1));
    let _ = std::fs::remove_file(&journal);
}

#[test]
fn every_policy_runs_and_replays() {
    for extra in [
        vec!["--policy", "bold"],
        vec!["--policy", "cautious"],
        vec!["--policy", "on-change", "--watch", "alarm"],
    ] {
        let journal = journal_path(extra[1]);
        let mut args = vec![
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--scenario",
            "examples/production-line/scenarios/alarm-at-2.json",
            "--journal",
            &journal,
            "--format",
            "json",
        ];
        args.extend(extra.iter().copied());
        let run = hilbert(&args, None);
        assert_eq!(run.code, Some(0), "{extra:?}: {}", run.stderr);
        // JSON Lines: the header, then entries.
        for line in run.stdout.lines() {
            serde_json::from_str::<serde_json::Value>(line).expect("a JSON line");
        }
        let replay = hilbert(&["replay", &journal], None);
        assert_eq!(replay.code, Some(0), "{extra:?}: {}", replay.stdout);
        let _ = std::fs::remove_file(&journal);
    }
}

#[test]
fn bad_runs_are_usage_errors() {
    let no_agent = hilbert(
        &["run", "examples/production-line", "--agent", "Nobody"],
        None,
    );
    assert_eq!(no_agent.code, Some(2));
    assert!(
        no_agent.stderr.contains("no agent `Nobody`"),
        "{}",
        no_agent.stderr
    );
    let no_watch = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--policy",
            "on-change",
        ],
        None,
    );
    assert_eq!(no_watch.code, Some(2));
    let bad =
        std::env::temp_dir().join(format!("hilbert-bad-scenario-{}.json", std::process::id()));
    std::fs::write(&bad, r#"{"beliefs": ["made(\"three\")"]}"#).unwrap();
    let bad_atom = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--scenario",
            &bad.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(bad_atom.code, Some(2), "{}", bad_atom.stderr);
    let _ = std::fs::remove_file(&bad);
    let missing = hilbert(&["replay", "/nonexistent/journal.jsonl"], None);
    assert_eq!(missing.code, Some(2));
}

#[test]
fn only_admitted_plans_run_unless_the_run_is_marked_unverified() {
    // The livelock's liveness is refuted: the kernel does not admit its network.
    let journal = journal_path("unverified");
    let _ = std::fs::remove_file(&journal);
    let refused = hilbert(
        &[
            "run",
            "examples/livelock",
            "--agent",
            "Doorway",
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(
        refused.code,
        Some(1),
        "{}{}",
        refused.stdout,
        refused.stderr
    );
    assert!(
        refused
            .stdout
            .contains("runs only plans the kernel has admitted")
            && refused.stdout.contains("Doorway.Pass")
            && refused.stdout.contains("Pass_live_Passed")
            && refused.stdout.contains("--unverified"),
        "{}",
        refused.stdout
    );
    assert!(
        !std::path::Path::new(&journal).exists(),
        "a refused run writes no journal"
    );

    // With --unverified it runs, and says so in the trace and in the journal's header.
    let run = hilbert(
        &[
            "run",
            "examples/livelock",
            "--agent",
            "Doorway",
            "--journal",
            &journal,
            "--unverified",
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("UNVERIFIED run (--unverified)"),
        "{}",
        run.stdout
    );
    let text = std::fs::read_to_string(&journal).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let reasons = header["unverified"]
        .as_array()
        .expect("the header records it");
    assert!(
        reasons
            .iter()
            .any(|r| r.as_str().unwrap().contains("Pass_live_Passed")),
        "{header}"
    );
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);

    // An admitted agent runs without the flag, and its journal says nothing of it; with the
    // flag, the header says the kernel had admitted everything (no reasons).
    let admitted = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(admitted.code, Some(0), "{}", admitted.stdout);
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(!text.lines().next().unwrap().contains("unverified"));
    let flagged = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--journal",
            &journal,
            "--unverified",
        ],
        None,
    );
    assert_eq!(flagged.code, Some(0));
    let text = std::fs::read_to_string(&journal).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["unverified"], serde_json::json!([]));
    let _ = std::fs::remove_file(&journal);
}

#[test]
fn a_journal_replays_from_any_working_directory() {
    let journal = journal_path("anywhere");
    let run = hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&journal)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    for source in header["sources"].as_array().unwrap() {
        let path = source[0].as_str().unwrap();
        assert!(std::path::Path::new(path).is_absolute(), "{path}");
    }
    let elsewhere = std::env::temp_dir();
    let replay = hilbert(&["replay", &journal], Some(&elsewhere));
    assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
    assert!(
        replay.stdout.starts_with("replay matched"),
        "{}",
        replay.stdout
    );
    let _ = std::fs::remove_file(&journal);
}

#[test]
fn every_adoption_records_its_licence_and_distribution_as_data() {
    let journal = journal_path("choices");
    let run = hilbert(
        &[
            "run",
            "examples/learning-to-choose",
            "--agent",
            "Picker",
            "--scenario",
            "examples/learning-to-choose/scenarios/forty-customers.json",
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut adoptions = 0;
    for line in text.lines().skip(1) {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        if e["kind"] != "adopt" {
            continue;
        }
        adoptions += 1;
        let options = e["options"].as_array().expect("the options, as data");
        let p = |o: &serde_json::Value| o["p"].as_f64().unwrap();
        // leaked = 0: an unlicensed option never has probability.
        for o in options.iter().filter(|o| o["licensed"] == false) {
            assert_eq!(p(o), 0.0, "{e}");
        }
        let licensed: f64 = options
            .iter()
            .filter(|o| o["licensed"] == true)
            .map(p)
            .sum();
        assert!((licensed - 1.0).abs() < 1e-9, "{e}");
        let chosen = options.iter().find(|o| o["plan"] == e["plan"]).unwrap();
        assert!(chosen["licensed"] == true && p(chosen) > 0.0, "{e}");
    }
    assert!(adoptions >= 5, "only {adoptions} adoptions");
    // Probabilities round-trip exactly: the journal replays.
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);
    let _ = std::fs::remove_file(&journal);
}
