//! Every example under `examples/` builds to exactly the theorems its `expected.toml` lists,
//! with those statuses and warnings; the kernel admits exactly the proved theorems; and a build
//! is admitted (exit code 0) exactly when every theorem is proved.

mod common;

use std::path::Path;

/// `expected.toml`'s content: the warning codes, and (name, status) per theorem. The format is
/// the small subset of TOML the examples use: `warnings = [..]`, `[[theorem]]`, `name = ".."`,
/// `status = ".."`, and `#` comments.
fn expected(dir: &Path) -> (Vec<String>, Vec<(String, String)>) {
    let text = std::fs::read_to_string(dir.join("expected.toml"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let value = |line: &str| -> String {
        let v = line.split_once('=').map_or("", |(_, v)| v);
        let v = v.split('#').next().unwrap_or("").trim();
        v.trim_matches('"').to_string()
    };
    let mut warnings = Vec::new();
    let mut theorems: Vec<(String, String)> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("warnings") {
            let list = line.split_once('=').map_or("", |(_, v)| v);
            let list = list.split('#').next().unwrap_or("");
            warnings = list
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|w| w.trim().trim_matches('"').to_string())
                .filter(|w| !w.is_empty())
                .collect();
        } else if line == "[[theorem]]" {
            theorems.push((String::new(), String::new()));
        } else if line.starts_with("name") {
            theorems.last_mut().expect("a [[theorem]] first").0 = value(line);
        } else if line.starts_with("status") {
            theorems.last_mut().expect("a [[theorem]] first").1 = value(line);
        }
    }
    (warnings, theorems)
}

#[test]
fn every_example_builds_to_its_expected_theorems_and_the_kernel_agrees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<_> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.toml").exists())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 10,
        "{} examples with expectations",
        dirs.len()
    );
    let out = std::env::temp_dir().join(format!("hilbert-examples-{}", std::process::id()));
    let mut failures = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (want_warnings, want) = expected(dir);
        let run = common::hilbert(
            &[
                "build",
                &dir.to_string_lossy(),
                "--format",
                "json",
                "--out",
                &out.join(&name).to_string_lossy(),
            ],
            None,
        );
        let report: serde_json::Value = match serde_json::from_str(&run.stdout) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: no JSON ({e}): {}", run.stderr));
                continue;
            }
        };
        let got: Vec<(String, String)> = report["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap().to_string(),
                    t["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        if got != want {
            failures.push(format!("{name}: expected {want:?}\n  got {got:?}"));
        }
        let warnings: Vec<String> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect();
        if warnings != want_warnings {
            failures.push(format!(
                "{name}: warnings {warnings:?}, expected {want_warnings:?}"
            ));
        }
        for t in report["theorems"].as_array().unwrap() {
            let proved = t["status"] == "proved";
            let admitted = t["kernel"] == "admitted";
            if proved != admitted {
                failures.push(format!(
                    "{name}: {} is {} but the kernel says {} ({})",
                    t["name"], t["status"], t["kernel"], t["kernel_reason"]
                ));
            }
            if proved && t["certificate"].is_null() {
                failures.push(format!("{name}: {} has no certificate", t["name"]));
            }
        }
        let all_proved = want.iter().all(|(_, s)| s == "proved");
        if report["admitted"] != all_proved || (run.code == Some(0)) != all_proved {
            failures.push(format!(
                "{name}: admitted {} with exit code {:?}, but all proved is {all_proved}",
                report["admitted"], run.code
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_seed_gives_exactly_its_six_theorems_with_the_counts_of_its_state_space() {
    let out = std::env::temp_dir().join(format!("hilbert-seed-{}", std::process::id()));
    let run = common::hilbert(
        &[
            "build",
            "examples/production-line",
            "--format",
            "json",
            "--out",
            &out.to_string_lossy(),
        ],
        Some(Path::new(env!("CARGO_MANIFEST_DIR"))),
    );
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let counts: Vec<(String, u64, u64)> = r["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["states"].as_u64().unwrap(),
                t["transitions"].as_u64().unwrap(),
            )
        })
        .collect();
    // believe made(0); three rendezvous on `parts`, the last ending the network: 5 states.
    assert_eq!(
        counts,
        [
            ("Produce_no_deadlock".to_string(), 5, 4),
            ("Work_live_Produced".to_string(), 5, 4),
            ("Work_released_Produced".to_string(), 5, 4),
            ("Produce_abortable".to_string(), 5, 4),
            ("Shutdown_no_deadlock".to_string(), 2, 1),
            ("Stop_live_Safe".to_string(), 2, 1),
        ]
    );
    assert_eq!(
        r["theorems"][0]["statement"],
        "∀ w, produceReachable(w) ⇒ progress(w)"
    );
    assert_eq!(
        r["theorems"][1]["statement"],
        "inevitable(scene(call(Produce), empty), made(3))"
    );
}

#[test]
fn passing_max_states_leaves_the_theorems_unproved_and_says_so() {
    let out = std::env::temp_dir().join(format!("hilbert-bound-{}", std::process::id()));
    let run = common::hilbert(
        &[
            "build",
            "examples/production-line",
            "--format",
            "json",
            "--max-states",
            "3",
            "--out",
            &out.to_string_lossy(),
        ],
        Some(Path::new(env!("CARGO_MANIFEST_DIR"))),
    );
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(run.code, Some(2), "a resource bound is exit code 2");
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(r["admitted"], false);
    let work = &r["theorems"][0];
    assert_eq!(work["status"], "unproved");
    assert!(work["reason"].as_str().unwrap().contains("--max-states 3"));
    // Its integers are small: no hint of a counter without bound.
    assert!(!work["reason"].as_str().unwrap().contains("without bound"));
    assert_eq!(work["kernel"], "refused");
    // The kernel's reason says why the table is not closed, not where it stops.
    let why = work["kernel_reason"].as_str().unwrap();
    assert!(
        why.contains("before a bound (--max-states, --max-memory) stopped the search")
            && !why.contains("Thread {"),
        "{why}"
    );
}

#[test]
fn the_same_sources_give_the_same_certificate_bytes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let build = |tag: &str| {
        let out = std::env::temp_dir().join(format!("hilbert-canon-{}-{tag}", std::process::id()));
        let run = common::hilbert(
            &[
                "build",
                "examples/abort-handler-finishes",
                "--out",
                &out.to_string_lossy(),
                "--jobs",
                if tag == "a" { "1" } else { "2" },
            ],
            Some(root),
        );
        assert_eq!(run.code, Some(0), "{}", run.stdout);
        let mut files: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let bytes: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        let _ = std::fs::remove_dir_all(&out);
        bytes
    };
    let (a, b) = (build("a"), build("b"));
    assert!(!a.is_empty());
    assert_eq!(
        a, b,
        "two builds (1 and 2 threads) wrote different certificates"
    );
}

#[test]
fn a_counter_without_bound_is_named_when_the_search_passes_the_bound() {
    let agent = "agent C : Agency\n{\n  belief n(v: Int)\n  commit single_minded\n  attention Idle initially\n  plan Go ↦ Count.Go\n}\n";
    let plans = "plan Loop(c: chan Int, k: Int) : C ≔ k → c ; Loop(c, k + 1)\nplan Sink(c: chan Int) : C ≔ x ← c ; Sink(c)\nplan Go() : C\n{\n  c : chan Int\n  body ≔ Loop(c, 0) ‖ Sink(c)\n}\n";
    let dir =
        common::TempDir::with_files(&[("C.ha", agent.as_bytes()), ("Count.hk", plans.as_bytes())]);
    let out = dir.join("out");
    let run = common::hilbert(
        &[
            "build",
            &dir.path(),
            "--format",
            "json",
            "--max-states",
            "3000",
            "--out",
            &out,
        ],
        None,
    );
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let reason = r["theorems"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("holds the integer 2999 in `Loop`") && reason.contains("without bound"),
        "{reason}"
    );
}

#[test]
fn theorem_statements_keep_the_atoms_arguments() {
    let statement = |example: &str, theorem: &str| -> String {
        let out = std::env::temp_dir().join(format!(
            "hilbert-statement-{}-{theorem}",
            std::process::id()
        ));
        let run = common::hilbert(
            &[
                "build",
                example,
                "--format",
                "json",
                "--out",
                &out.to_string_lossy(),
            ],
            None,
        );
        let _ = std::fs::remove_dir_all(&out);
        let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        r["theorems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == theorem)
            .unwrap_or_else(|| panic!("{theorem}: {}", run.stdout))["statement"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let tell = statement("examples/tells-twice", "Deliver_tell_feasible_1");
    // Written as the conditions of `.ha` are (`B(Client) …` is what the agent told Client),
    // so that what the build prints can be written back (issue 30 item 9: it printed
    // `¬B(self) B(Client) …`, which the checker refuses).
    assert!(
        tell.ends_with("B(self) delivered(parcel) ∧ ¬B(Client) delivered(parcel)"),
        "{tell}"
    );
    let release = statement("examples/abort-handler-finishes", "Smelt_released_Melted");
    assert!(
        release.contains("abort(w + B(self) overheated(1))") && !release.contains(")(w)"),
        "{release}"
    );
}

/// Two agents whose plan files each define `plan Run`: both networks have a `Run_no_deadlock`
/// and a `Go_live_Done`, proved for A0.Go and refuted for A1.Go (its `Run` waits on a channel
/// nobody sends on). Every theorem of every network is reported, each with its own kernel word;
/// the build used to keep one theorem per name, so A1.Go's refuted ones vanished from the report
/// (`2 theorems: 2 proved, 0 refuted`, and `not admitted` with no counterexample).
#[test]
fn theorems_of_two_networks_with_one_name_are_each_reported() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let case = "tests/cases/two-agents-one-plan-name";
    let out = std::env::temp_dir().join(format!("hilbert-two-networks-{}", std::process::id()));
    let build = |format: &str| {
        common::hilbert(
            &[
                "build",
                case,
                "--format",
                format,
                "--out",
                &out.to_string_lossy(),
            ],
            Some(root),
        )
    };

    let human = build("human");
    assert_eq!(human.code, Some(1), "{}", human.stdout);
    let lines: Vec<&str> = human.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("theorem A1.Go: Run_no_deadlock "))
        .unwrap_or_else(|| panic!("no theorem of A1.Go:\n{}", human.stdout));
    assert_eq!(
        lines[at],
        "theorem A1.Go: Run_no_deadlock : ∀ w, runReachable(w) ⇒ progress(w)"
    );
    assert!(
        lines[at + 1].starts_with("  refuted (1 states, 0 transitions); kernel: refused ("),
        "{}",
        lines[at + 1]
    );
    assert_eq!(lines[at + 2], "  counterexample, from the scene:");
    assert_eq!(lines[at + 3], "    (the scene's first state)");
    assert_eq!(
        lines[at + 4],
        "    => deadlock: no process can move and the plan has not finished"
    );
    for theorem in [
        "theorem A0.Go: Run_no_deadlock : ",
        "theorem A0.Go: Go_live_Done    : ",
        "theorem A1.Go: Go_live_Done    : ",
    ] {
        assert_eq!(
            lines.iter().filter(|l| l.starts_with(theorem)).count(),
            1,
            "{theorem}\n{}",
            human.stdout
        );
    }
    assert!(
        human
            .stdout
            .contains("\n4 theorems: 2 proved, 2 refuted, 0 unproved; 0 warnings\nnot admitted: "),
        "{}",
        human.stdout
    );

    let json = build("json");
    assert_eq!(json.code, Some(1));
    let r: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let got: Vec<(&str, &str, &str, &str)> = r["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["network"].as_str().unwrap(),
                t["name"].as_str().unwrap(),
                t["status"].as_str().unwrap(),
                t["kernel"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("A0.Go", "Run_no_deadlock", "proved", "admitted"),
            ("A0.Go", "Go_live_Done", "proved", "admitted"),
            ("A1.Go", "Run_no_deadlock", "refuted", "refused"),
            ("A1.Go", "Go_live_Done", "refuted", "refused"),
        ]
    );
    let a1 = &r["theorems"][2];
    assert_eq!(
        a1["counterexample"]["conclusion"],
        "deadlock: no process can move and the plan has not finished"
    );
    assert_eq!(a1["counterexample"]["steps"], serde_json::json!([]));
    assert_eq!(
        (a1["states"].as_u64(), a1["transitions"].as_u64()),
        (Some(1), Some(0))
    );
    assert!(
        a1["kernel_reason"]
            .as_str()
            .unwrap()
            .starts_with("invariant.progress"),
        "{a1}"
    );
    assert!(
        a1["certificate"].as_str().unwrap().ends_with("/A1.Go.cert"),
        "{a1}"
    );
    assert!(
        r["theorems"][0]["certificate"]
            .as_str()
            .unwrap()
            .ends_with("/A0.Go.cert")
    );
    assert_eq!(r["admitted"], false);

    // SARIF: a result for each theorem the kernel did not admit, of A1.Go, at its binding.
    let sarif = build("sarif");
    assert_eq!(sarif.code, Some(1));
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let got: Vec<(&str, &str, &str)> = results
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap(),
                r["properties"]["network"].as_str().unwrap(),
                r["properties"]["theorem"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("theorem-refuted", "A1.Go", "Run_no_deadlock"),
            ("theorem-refuted", "A1.Go", "Go_live_Done"),
        ]
    );
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for result in results {
        let rule = &rules[result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], result["ruleId"]);
        let uri = &result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
        assert!(uri.as_str().unwrap().ends_with("A1.ha"), "{uri}");
        assert!(
            result["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("theorem A1.Go: "),
            "{result}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A counterexample step that changes very many beliefs (here one step believes 200) shows the
/// first 16 changes in the human report and counts the rest; the JSON report lists them all.
#[test]
fn a_step_with_many_belief_changes_is_capped_in_the_human_report() {
    let agent = "agent M : Agency\n{\n  belief s(n: Int)\n  desire Done reachable by [Go]\n  commit single_minded\n  attention Main initially\n  intend Go for Done when ¬ B(self) s(0)\n  achieved Done when B(self) s(0)\n  plan Go ↦ Many.Run\n}\n";
    let believes: Vec<String> = (1..=200).map(|i| format!("believe s({i})")).collect();
    let plans = format!(
        "plan Run() : M\n{{\n  c : chan Int\n  body ≔ {} ;\n    x ← c ;\n    believe s(0)\n}}\n",
        believes.join(" ;\n    ")
    );
    let dir =
        common::TempDir::with_files(&[("M.ha", agent.as_bytes()), ("Many.hk", plans.as_bytes())]);
    let out = dir.join("out");
    let human = common::hilbert(&["build", &dir.path(), "--out", &out], None);
    assert_eq!(human.code, Some(1), "{}", human.stdout);
    // One network: theorems are named without it, as before.
    assert!(
        human
            .stdout
            .starts_with("theorem Run_no_deadlock : ∀ w, runReachable(w) ⇒ progress(w)\n"),
        "{}",
        human.stdout
    );
    let shown: String = (1..=16).map(|i| format!(" +s({i})")).collect();
    let step = format!("      1. Run: τ  {shown} … and 184 more");
    let steps: Vec<&str> = human
        .stdout
        .lines()
        .filter(|l| l.starts_with("      1. "))
        .collect();
    // The counterexamples of Run_no_deadlock and Go_live_Done.
    assert_eq!(steps, [step.as_str(), step.as_str()], "{}", human.stdout);
    assert!(human.stdout.lines().all(|l| l.len() < 400));

    let json = common::hilbert(
        &["build", &dir.path(), "--out", &out, "--format", "json"],
        None,
    );
    let r: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let added = r["theorems"][0]["counterexample"]["steps"][0]["beliefs_added"]
        .as_array()
        .unwrap();
    assert_eq!(added.len(), 200);
    assert_eq!(added[199], "s(200)");
}

/// Two `impossible` rules of one desire give two release theorems of one name in one network:
/// both are listed (their statements tell them apart), each with the kernel's word on its own
/// obligation. The build used to keep the first of each name.
#[test]
fn two_release_theorems_of_one_name_in_one_network_are_both_listed() {
    let agent = "agent R : Agency\n{\n  belief s(n: Int)\n  belief leak(n: Int)\n  desire Done reachable by [Go]\n  commit single_minded\n  attention Main initially\n  intend Go for Done when ¬ B(self) s(0)\n  achieved Done when B(self) s(0)\n  impossible Done when B(self) leak(1) because \"one\"\n  impossible Done when B(self) leak(2) because \"two\"\n  plan Go ↦ P.Run\n}\n";
    let plans = "plan Run() : R ≔ believe leak(1) ; believe leak(2) ; believe s(0)\n";
    let dir =
        common::TempDir::with_files(&[("R.ha", agent.as_bytes()), ("P.hk", plans.as_bytes())]);
    let out = dir.join("out");
    let run = common::hilbert(
        &["build", &dir.path(), "--out", &out, "--format", "json"],
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let released: Vec<(&str, &str, &str)> = r["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == "Go_released_Done")
        .map(|t| {
            (
                t["network"].as_str().unwrap(),
                t["statement"].as_str().unwrap(),
                t["kernel"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        released,
        [
            (
                "R.Go",
                "∀ w, runReachable(w) ⇒ inevitable(abort(w + B(self) leak(1)), finished)",
                "admitted"
            ),
            (
                "R.Go",
                "∀ w, runReachable(w) ⇒ inevitable(abort(w + B(self) leak(2)), finished)",
                "admitted"
            ),
        ]
    );
    assert_eq!(r["theorems"].as_array().unwrap().len(), 4);
}

#[test]
fn a_refuted_theorem_is_a_sarif_result_with_its_counterexample_as_a_code_flow() {
    let tmp = std::env::temp_dir().join(format!("hilbert-sarif-flow-{}", std::process::id()));
    let run = common::hilbert(
        &[
            "build",
            "examples/livelock",
            "--out",
            tmp.to_str().unwrap(),
            "--format",
            "sarif",
        ],
        None,
    );
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(run.code, Some(1));
    let log: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let refuted: Vec<&serde_json::Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "theorem-refuted")
        .collect();
    assert_eq!(refuted.len(), 1, "{results:?}");
    let r = refuted[0];
    assert!(
        r["message"]["text"]
            .as_str()
            .unwrap()
            .contains("the plan can cycle forever without through(1)")
    );
    let flow = r["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    let lines: Vec<&str> = flow
        .iter()
        .map(|l| l["location"]["message"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            "1. Courtesy/Alice → Courtesy/Bob: offer.1 (from here the path repeats) (received at examples/livelock/Door.hk:8)",
            "2. Courtesy/Bob → Courtesy/Alice: answer.1 (received at examples/livelock/Door.hk:5)",
            "⇒ the plan can cycle forever without through(1)",
        ]
    );
    // Each step at its send in the plan file (issue 33), the end at the binding.
    let places: Vec<(&str, u64)> = flow
        .iter()
        .enumerate()
        .map(|(k, l)| {
            assert_eq!(l["executionOrder"], k + 1);
            let at = &l["location"]["physicalLocation"];
            (
                at["artifactLocation"]["uri"].as_str().unwrap(),
                at["region"]["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            ("examples/livelock/Door.hk", 5),
            ("examples/livelock/Door.hk", 8),
            ("examples/livelock/Doorway.ha", 15),
        ]
    );
}
