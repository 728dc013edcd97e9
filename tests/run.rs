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
