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

    // Drop the last entry: caught too, as a journal that ends early (exit code 3, never
    // "matched": a journal cut short and one whose end was dropped look alike).
    let mut lines: Vec<&str> = text.lines().collect();
    lines.pop();
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(3));
    assert!(
        replay.stdout.contains("the journal ends early"),
        "{}",
        replay.stdout
    );
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
    // The project's directory is absolute; the sources are relative to it.
    let project = header["project"].as_str().unwrap();
    assert!(std::path::Path::new(project).is_absolute(), "{project}");
    for source in header["sources"].as_array().unwrap() {
        let path = source[0].as_str().unwrap();
        assert!(std::path::Path::new(project).join(path).is_file(), "{path}");
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

/// An agent that adopts a one-step plan every cycle, for as many cycles as the scenario says:
/// five journal entries a cycle, for ever.
fn busy_project(cycles: u64) -> common::TempDir {
    let agent = "agent A() : Agency
{
  belief t(i: Int)
  belief never(i: Int)
  desire D reachable by [W]
  commit single_minded
  attention Main initially
  intend W for D when ¬B(self) never(1)
  achieved D when B(self) never(1)
  plan W ↦ P.Tick
}
";
    let scenario = format!("{{\"cycles\": {cycles}}}");
    common::TempDir::with_files(&[
        ("A.ha", agent.as_bytes()),
        ("P.hk", b"plan Tick() : A \xe2\x89\x94 believe t(1)\n"),
        ("s.json", scenario.as_bytes()),
    ])
}

/// `hilbert run` of a [`busy_project`] through its scenario, journaled to `j.jsonl` beside it.
fn busy_run(p: &common::TempDir) -> Vec<String> {
    [
        "run",
        &p.path(),
        "--agent",
        "A",
        "--scenario",
        &p.join("s.json"),
    ]
    .into_iter()
    .map(String::from)
    .chain(["--unverified".into(), "--journal".into(), p.join("j.jsonl")])
    .collect()
}

#[test]
fn a_long_run_streams_its_journal_in_bounded_memory() {
    // 100,000 cycles, about 500,000 entries, a 60 MB journal: a run that kept them would hold
    // several times that.
    let p = busy_project(100_000);
    let journal = p.join("j.jsonl");
    let mut args = busy_run(&p);
    args.extend(["--format".to_string(), "json".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = common::run_within(&args, std::time::Duration::from_secs(300));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let size = std::fs::metadata(&journal).unwrap().len();
    assert!(size > 50_000_000, "the journal has {size} bytes");
    assert_eq!(run.stdout.len() as u64, size, "stdout is the journal");
    let peak = common::children_peak_bytes();
    assert!(peak < 120 << 20, "the run peaked at {peak} bytes");
    let replay = common::run_within(&["replay", &journal], std::time::Duration::from_secs(300));
    assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
    let entries = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!(entries > 400_000, "{entries}");
    assert_eq!(
        replay.stdout,
        format!("replay matched: {entries} entries\n")
    );
    let peak = common::children_peak_bytes();
    assert!(peak < 120 << 20, "the replay peaked at {peak} bytes");
}

/// A long [`busy_run`], sent `signal` once it is running cycles (its journal has grown past the
/// header): the project, the journal's path and what the run did.
fn interrupted_run(signal: nix::sys::signal::Signal) -> (common::TempDir, String, common::Bounded) {
    let p = busy_project(100_000_000);
    let journal = p.join("j.jsonl");
    let args = busy_run(&p);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = common::spawn(&args);
    let start = std::time::Instant::now();
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 100_000 {
        assert!(start.elapsed().as_secs() < 120, "the run never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, signal).unwrap();
    let run = common::wait_within(
        child,
        "run (interrupted)",
        std::time::Duration::from_secs(30),
    );
    (p, journal, run)
}

#[test]
fn sigint_leaves_a_journal_that_replays_up_to_where_it_stopped() {
    let (_p, journal, run) = interrupted_run(nix::sys::signal::Signal::SIGINT);
    assert_eq!(run.code, Some(130), "{}", run.stderr);
    assert!(
        run.stdout.contains("interrupted (SIGINT) after"),
        "{}",
        &run.stdout[run.stdout.len().saturating_sub(300)..]
    );
    let text = std::fs::read_to_string(&journal).unwrap();
    let last = text.lines().last().unwrap();
    let stop: serde_json::Value = serde_json::from_str(last).unwrap();
    let rounds = stop["interrupted"]["rounds"]
        .as_u64()
        .expect("the interrupted line");
    assert_eq!(stop["interrupted"]["reason"], "SIGINT");
    // Every cycle before the stop is whole: the last entry ends cycle rounds - 1.
    let entries = text.lines().count() as u64 - 2;
    let before: serde_json::Value =
        serde_json::from_str(text.lines().rev().nth(1).unwrap()).unwrap();
    assert_eq!(before["cycle"], rounds - 1, "{before}");
    assert_eq!(before["kind"], "ended", "{before}");
    let replay = common::run_within(&["replay", &journal], std::time::Duration::from_secs(120));
    assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
    assert_eq!(
        replay.stdout,
        format!(
            "replay matched: {entries} entries, up to round {rounds} where the run was interrupted (SIGINT)\n"
        )
    );
    // An entry edited before the stop is still caught; a line after the stop is malformed.
    let edited = text.replacen("\"intention\":1,", "\"intention\":2,", 1);
    std::fs::write(&journal, &edited).unwrap();
    let replay = common::run_within(&["replay", &journal], std::time::Duration::from_secs(120));
    assert_eq!(replay.code, Some(1), "{}", replay.stdout);
    std::fs::write(&journal, text.clone() + last + "\n").unwrap();
    let replay = common::run_within(&["replay", &journal], std::time::Duration::from_secs(120));
    assert_eq!(replay.code, Some(2), "{}", replay.stdout);
    assert!(
        replay
            .stderr
            .contains("after the one that says the run was interrupted")
    );
}

#[test]
fn the_journal_path_is_checked_before_the_run() {
    let p = busy_project(10);
    let scenario = p.join("s.json");
    let dir = p.path();
    let run_with_journal = |journal: &str| {
        let args = [
            "run",
            &dir,
            "--agent",
            "A",
            "--scenario",
            &scenario,
            "--unverified",
            "--journal",
            journal,
        ];
        common::run_within(&args, std::time::Duration::from_secs(60))
    };
    // A directory, and a journal in a directory that does not exist (the system's reason): each
    // is refused before anything runs, and said as a write, not with a reader's words.
    let missing = p.join("no/such/dir/j.jsonl");
    for (journal, why) in [
        (
            dir.as_str(),
            "a directory, not a regular file; nothing was written",
        ),
        (missing.as_str(), "No such file"),
    ] {
        let run = run_with_journal(journal);
        assert_eq!(run.code, Some(2), "{}", run.stderr);
        assert!(
            run.stderr.contains("cannot write the journal") && run.stderr.contains(why),
            "{}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("cannot read") && !run.stderr.contains("not read"),
            "a write is not a read: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "", "nothing ran");
    }
}

#[test]
fn a_scenario_is_an_object_and_events_past_the_last_cycle_are_said() {
    let tmp = common::TempDir::with_files(&[
        ("empty.json", b"[]"),
        (
            "late.json",
            br#"{"cycles": 3, "events": [{"cycle": 1, "believe": ["alarm(\"raised\")"]}, {"cycle": 3}, {"cycle": 9}]}"#,
        ),
    ]);
    let run = common::hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--scenario",
            &tmp.join("empty.json"),
        ],
        None,
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("a scenario is a JSON object"),
        "{}",
        run.stderr
    );
    let run = common::hilbert(
        &[
            "run",
            "examples/production-line",
            "--agent",
            "Operator",
            "--scenario",
            &tmp.join("late.json"),
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "warning: 2 scenario events at cycle 3 or later never happen: the run stops after 3 cycles"
        ),
        "{}",
        run.stderr
    );
}

fn entries(journal: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(journal)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_stuck_abort_handler_is_said_once_with_its_state_and_never_released_twice() {
    // The hot reading (seed 0) makes `Melted` impossible; the abort handler then waits on
    // `coolant` forever (issue 30: the journal released intention #1 twice).
    let journal = journal_path("stuck-handler");
    let run = hilbert(
        &[
            "run",
            "examples/abort-handler-stuck",
            "--agent",
            "Smelter",
            "--unverified",
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let lines = entries(&journal);
    let releases: Vec<&serde_json::Value> =
        lines.iter().filter(|e| e["kind"] == "release").collect();
    assert_eq!(releases.len(), 1, "{releases:?}");
    assert_eq!(releases[0]["reason"], "impossible");
    let stuck: Vec<&serde_json::Value> = lines.iter().filter(|e| e["kind"] == "stuck").collect();
    assert_eq!(stuck.len(), 1, "{lines:?}");
    assert!(
        stuck[0]["during"]
            .as_str()
            .unwrap()
            .contains("on abort handlers (released: impossible)"),
        "{}",
        stuck[0]
    );
    let state: Vec<&str> = stuck[0]["state"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        state
            .iter()
            .any(|s| s.contains("waits to receive on coolant")),
        "{state:?}"
    );
    assert!(
        state.iter().any(|s| s.contains("overheated(1)")),
        "{state:?}"
    );
    assert!(
        run.stdout
            .contains("stuck #1 Smelt (Melted) in its on abort handlers")
    );
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);
    let _ = std::fs::remove_file(&journal);
}

/// A pump whose plan counts doses for ever when `dose` is never reached (`dose=-1`).
fn endless_pump() -> common::TempDir {
    common::TempDir::with_files(&[
        (
            "Pump.ha",
            b"agent Pump(dose: Int) : Agency\n{\n  belief delivered(n: Int)\n  desire Infused reachable by [Infuse]\n  commit single_minded\n  attention Infusing initially\n  intend Infuse for Infused when \xc2\xac B(self) delivered(dose)\n  achieved Infused when B(self) delivered(dose)\n  plan Infuse \xe2\x86\xa6 Line.Drip(dose)\n}\n",
        ),
        (
            "Line.hk",
            "plan Drip(dose: Int) : Pump\n{\n  tick : chan Int\n  body ≔ Clock(tick) ‖ Step(1, dose, tick)\n}\n\nplan Clock(tick: chan Int) : Pump ≔ 1 → tick ; Clock(tick)\n\nplan Step(k: Int, dose: Int, tick: chan Int) : Pump\n  ≔ t ← tick ; forget delivered(k - 1) ; believe delivered(k) ; match k = dose { when true ↦ SKIP  other ↦ Step(k + 1, dose, tick) }\n".as_bytes(),
        ),
        ("long.json", br#"{"cycles": 500}"#),
    ])
}

#[test]
fn a_run_is_bounded_and_says_which_bound_it_passed() {
    let p = endless_pump();
    let journal = journal_path("bounded");
    let base = [
        "run",
        &p.path(),
        "--agent",
        "Pump",
        "--param",
        "dose=-1",
        "--unverified",
        "--max-states",
        "200",
        "--journal",
        &journal,
    ];
    // The proof before the run is bounded too, and its reason names the bound.
    let mut args = base.to_vec();
    args.extend(["--max-steps", "5"]);
    let run = hilbert(&args, None);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("--max-states 200"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("stopped: the run passed --max-steps 5: the plans took 6 steps"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("raise --max-steps"), "{}", run.stderr);
    let last = std::fs::read_to_string(&journal).unwrap();
    let last: serde_json::Value = serde_json::from_str(last.lines().last().unwrap()).unwrap();
    assert!(
        last["interrupted"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("--max-steps 5"),
        "{last}"
    );
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);

    let scenario = p.join("long.json");
    let mut args = base.to_vec();
    args.extend(["--max-cycles", "3", "--scenario", &scenario]);
    let run = hilbert(&args, None);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("the run passed --max-cycles 3: the scenario asks for 500 cycles"),
        "{}",
        run.stdout
    );
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);
    assert!(replay.stdout.contains("up to round 3"), "{}", replay.stdout);
    let _ = std::fs::remove_file(&journal);
}

#[test]
fn a_scenario_event_may_name_the_one_agent_it_happens_to() {
    let p = common::TempDir::with_files(&[
        (
            "all.json",
            br#"{"cycles": 3, "events": [{"cycle": 1, "believe": ["filed(8)"]}]}"#,
        ),
        (
            "one.json",
            br#"{"cycles": 3, "events": [{"cycle": 1, "agent": "Courier", "believe": ["filed(8)"]}]}"#,
        ),
        (
            "nobody.json",
            br#"{"cycles": 3, "events": [{"cycle": 1, "agent": "Nobody", "believe": ["filed(8)"]}]}"#,
        ),
    ]);
    let run = |scenario: &str, journal: Option<&str>| {
        let scenario = p.join(scenario);
        let mut args = vec![
            "run",
            "examples/tells-twice",
            "--agent",
            "Client",
            "--agent",
            "Courier",
            "--scenario",
            &scenario,
            // Its tell-twice theorem is refuted; the scenario is what is tested.
            "--unverified",
        ];
        args.extend(journal.map(|j| ["--journal", j]).into_iter().flatten());
        hilbert(&args, None)
    };
    // Sent to every agent, the percept must be a belief of each: the client has no `filed`.
    let all = run("all.json", None);
    assert_eq!(all.code, Some(2));
    assert!(
        all.stderr.contains("not a belief of Client"),
        "{}",
        all.stderr
    );
    // Named, it goes to the courier alone.
    let journal = journal_path("one-agent");
    let one = run("one.json", Some(&journal));
    assert_eq!(one.code, Some(0), "{}{}", one.stdout, one.stderr);
    let percepts: Vec<serde_json::Value> = entries(&journal)
        .into_iter()
        .filter(|e| e["kind"] == "percept")
        .collect();
    assert_eq!(percepts.len(), 1, "{percepts:?}");
    assert_eq!(percepts[0]["agent"], "Courier");
    assert_eq!(percepts[0]["added"], serde_json::json!(["filed(8)"]));
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}", replay.stdout);
    let _ = std::fs::remove_file(&journal);
    // An agent the run does not run is a usage error that names the run's agents.
    let nobody = run("nobody.json", None);
    assert_eq!(nobody.code, Some(2));
    assert!(
        nobody
            .stderr
            .contains("`Nobody`, which this run does not run (agents: Client, Courier)")
            && nobody.stderr.contains("--agent"),
        "{}",
        nobody.stderr
    );
}

#[test]
fn a_host_binding_that_cannot_run_gets_a_help_about_host_code() {
    let p = common::TempDir::with_files(&[(
        "Probe.ha",
        "agent Probe : Agency\n{\n  belief seen(n: Int)\n  desire Seen reachable by [Look]\n  commit single_minded\n  attention Looking initially\n  intend Look for Seen when ¬ B(self) seen(1)\n  achieved Seen when B(self) seen(1)\n  plan Look ↦ host.look\n}\n".as_bytes(),
    )]);
    let run = hilbert(
        &["run", &p.path(), "--agent", "Probe", "--unverified"],
        None,
    );
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("host.look"), "{}", run.stderr);
    assert!(
        run.stderr.contains("registers no host code") && run.stderr.contains("Hosts::register"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("scenario's atoms"), "{}", run.stderr);
}

#[test]
fn a_moved_project_replays_with_sources_dir() {
    let copy = |dir: &std::path::Path| {
        std::fs::create_dir_all(dir).unwrap();
        for f in ["Line.hk", "Operator.ha"] {
            std::fs::copy(format!("examples/production-line/{f}"), dir.join(f)).unwrap();
        }
    };
    let root = common::TempDir::with_files(&[]);
    let (before, after) = (root.0.join("before"), root.0.join("after"));
    copy(&before);
    let journal = root.join("j.jsonl");
    let run = hilbert(
        &[
            "run",
            &before.display().to_string(),
            "--agent",
            "Operator",
            "--journal",
            &journal,
        ],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let text = std::fs::read_to_string(&journal).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    // Paths relative to the project, whose directory is recorded.
    assert_eq!(header["sources"][0][0], "Line.hk", "{header}");
    assert!(header["project"].as_str().unwrap().ends_with("before"));
    // An old journal: absolute paths and no `project`.
    let mut old = header.clone();
    old.as_object_mut().unwrap().remove("project");
    for s in old["sources"].as_array_mut().unwrap() {
        s[0] = before
            .join(s[0].as_str().unwrap())
            .display()
            .to_string()
            .into();
    }
    let old_journal = root.join("old.jsonl");
    let rest: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&old_journal, format!("{old}\n{rest}")).unwrap();
    let replay = hilbert(&["replay", &old_journal], None);
    assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
    // The project moves: a clear error with a hint, then --sources DIR replays both journals.
    std::fs::rename(&before, &after).unwrap();
    let lost = hilbert(&["replay", &journal], None);
    assert_eq!(lost.code, Some(2));
    assert!(lost.stderr.contains("--sources DIR"), "{}", lost.stderr);
    for j in [&journal, &old_journal] {
        let replay = hilbert(
            &["replay", j, "--sources", &after.display().to_string()],
            None,
        );
        assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
        assert!(
            replay.stdout.starts_with("replay matched"),
            "{}",
            replay.stdout
        );
    }
    // Sources that changed are still refused.
    std::fs::write(after.join("Line.hk"), "-- edited\n").unwrap();
    let changed = hilbert(
        &[
            "replay",
            &journal,
            "--sources",
            &after.display().to_string(),
        ],
        None,
    );
    assert_ne!(changed.code, Some(0));
}

/// A courier whose round (priority 0) a refuelling (priority 5) stops at cycle 1; the round's
/// handlers are `handlers`.
fn courier_project(handlers: &str) -> common::TempDir {
    let agent = "agent Courier : Agency\n{\n  belief delivered(n: Int)\n  belief fuel(at: Int)\n  belief refuelled(n: Int)\n  belief parked(n: Int)\n  desire Deliver reachable by [Round]\n  desire Refuel priority 5 reachable by [Fill]\n  commit single_minded\n  attention Driving initially\n  intend Round for Deliver when ¬ B(self) delivered(3)\n  achieved Deliver when B(self) delivered(3)\n  intend Fill for Refuel when B(self) fuel(1) ∧ ¬ B(self) refuelled(1)\n  achieved Refuel when B(self) refuelled(1)\n  plan Round ↦ Van.Round\n  plan Fill ↦ Van.Fill\n}\n";
    let plans = format!(
        "plan Ticks(c: chan Int) : Courier ≔ 1 → c ; 2 → c ; 3 → c\n\nplan Brake(p: chan Int) : Courier ≔ 1 → p ; 2 → p\n\nplan Round() : Courier\n{{\n  c : chan Int\n  p : chan Int\n  body ≔ Ticks(c) ‖ (a ← c ; believe delivered(1) ; b ← c ; believe delivered(2) ; d ← c ; believe delivered(3))\n  {handlers}\n}}\n\nplan Fill() : Courier\n{{\n  c : chan Int\n  body ≔ Ticks(c) ‖ (a ← c ; b ← c ; d ← c ; believe refuelled(1))\n}}\n"
    );
    common::TempDir::with_files(&[
        ("Courier.ha", agent.as_bytes()),
        ("Van.hk", plans.as_bytes()),
        (
            "s.json",
            br#"{"cycles": 30, "seed": 0, "events": [{"cycle": 1, "believe": ["fuel(1)"]}]}"#,
        ),
    ])
}

/// `hilbert run` of a [`courier_project`] through its scenario, with `extra` flags; it must
/// succeed.
fn courier_run(p: &common::TempDir, extra: &[&str]) -> common::Run {
    let (path, scenario) = (p.path(), p.join("s.json"));
    let mut args = vec![
        "run",
        path.as_str(),
        "--agent",
        "Courier",
        "--scenario",
        scenario.as_str(),
    ];
    args.extend(extra);
    let run = hilbert(&args, None);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    run
}

#[test]
fn on_stop_handlers_that_take_steps_show_in_the_trace_and_the_journal_replays() {
    let p = courier_project("on stop ≔ Brake(p) ‖ (x ← p ; y ← p ; believe parked(1))");
    let journal = p.join("j.jsonl");
    let run = courier_run(&p, &["--journal", &journal]);
    // Stopping while the handlers exchange on p beside Fill, suspended once they have, resumed
    // when Fill is released; the round then delivers the rest (it used to be stuck).
    for line in [
        "cycle   1  stop #1 Round: subgoal `Refuel` (priority 5) takes over",
        "cycle   1  stopping #1 Round: its on stop handlers take steps: it takes them until they finish",
        "cycle   1  step #1 Round: Round/Brake → Round p.1",
        "cycle   2  step #1 Round: Round/Brake → Round p.2  +parked(1)",
        "cycle   2  suspended #1 Round: its on stop handlers finished",
        "cycle   4  resume #1 Round: the subgoal is done",
        "cycle   4  running #1 Round: its resume completed as it landed: no on resume handler takes a step",
        "release #1 Round (Deliver achieved)",
    ] {
        assert!(run.stdout.contains(line), "no `{line}` in\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("stuck"), "{}", run.stdout);
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(
        text.contains(r#""kind":"status","intention":1,"plan":"Round","status":"stopping""#),
        "{text}"
    );
    let replay = hilbert(&["replay", &journal], None);
    assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
    assert!(
        replay.stdout.starts_with("replay matched"),
        "{}",
        replay.stdout
    );
}

#[test]
fn an_on_stop_handler_that_never_finishes_is_stuck_in_it_and_released_once() {
    let p = courier_project("on stop ≔ STOP");
    let run = courier_run(&p, &["--unverified"]);
    assert!(
        run.stdout.contains(
            "cycle   1  stuck #1 Round (Deliver) in its on stop handlers: (in handlers) Round: STOP: never moves"
        ),
        "{}",
        run.stdout
    );
    let releases: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("release #1 "))
        .collect();
    assert_eq!(
        releases,
        ["cycle   1  release #1 Round (Deliver plan stuck: no process can move)"],
        "{}",
        run.stdout
    );
}

#[test]
fn sigterm_and_sighup_stop_a_run_as_sigint_does() {
    // Issue 32, item 12: SIGTERM and SIGHUP ended a run with no "interrupted" line.
    for (signal, code) in [
        (nix::sys::signal::Signal::SIGTERM, 143),
        (nix::sys::signal::Signal::SIGHUP, 129),
    ] {
        let (_p, journal, run) = interrupted_run(signal);
        assert_eq!(run.code, Some(code), "{signal}: {}", run.stderr);
        let name = signal.as_str();
        assert!(run.stdout.contains(&format!("interrupted ({name}) after")));
        let text = std::fs::read_to_string(&journal).unwrap();
        let stop: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(stop["interrupted"]["reason"], name);
        let replay = common::run_within(&["replay", &journal], std::time::Duration::from_secs(120));
        assert_eq!(replay.code, Some(0), "{}{}", replay.stdout, replay.stderr);
    }
}

#[test]
fn a_journal_cut_short_says_how_far_it_matched() {
    // Issue 32, item 12: a journal cut by SIGKILL replayed as "mismatch … the replay more" (exit
    // 1, as if tampered with), one cut by a full disk mid-line as a malformed line (exit 2).
    let p = busy_project(50);
    let journal = p.join("j.jsonl");
    let args = busy_run(&p);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = common::run_within(&args, std::time::Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let whole = lines[..lines.len() - 20].join("\n") + "\n";
    let kept = lines.len() - 20 - 1;
    let torn = whole.clone() + &lines[lines.len() - 20][..10];
    for (what, cut) in [("at a line's end", whole), ("in a line", torn)] {
        std::fs::write(&journal, &cut).unwrap();
        let replay = common::run_within(&["replay", &journal], std::time::Duration::from_secs(60));
        assert_eq!(
            replay.code,
            Some(3),
            "{what}: {}{}",
            replay.stdout,
            replay.stderr
        );
        assert!(
            replay.stdout.contains(&format!(
                "the journal ends early, after {kept} matching entries"
            )),
            "{what}: {}",
            replay.stdout
        );
    }
}
