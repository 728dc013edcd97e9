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
fn the_seed_gives_exactly_its_four_theorems_with_the_counts_of_its_state_space() {
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
    assert!(
        tell.ends_with("B(self) delivered(parcel) ∧ ¬B(self) B(Client) delivered(parcel)"),
        "{tell}"
    );
    let release = statement("examples/abort-handler-finishes", "Smelt_released_Melted");
    assert!(
        release.contains("(w ⊨ B(self) overheated(1))") && !release.contains(")(w)"),
        "{release}"
    );
}
