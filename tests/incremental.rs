//! Incremental builds: a network whose slice of the IR, sources and tool are unchanged is not
//! explored again, but its kept certificate is always checked by the kernel again.

mod common;

use common::{TempDir, hilbert};

/// Agent `A{i}` with plan file `P{i}.hk`: three networks, one per agent.
fn project(plans: [&str; 3]) -> TempDir {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, body) in plans.iter().enumerate() {
        files.push((
            format!("A{i}.ha"),
            format!(
                "agent A{i} : Agency\n{{\n  belief s(n: Int)\n  desire Done reachable by [Go]\n  commit single_minded\n  attention Main initially\n  intend Go for Done when ¬ B(self) s(0)\n  achieved Done when B(self) s(0)\n  plan Go ↦ P{i}.Run\n}}\n"
            )
            .into_bytes(),
        ));
        files.push((
            format!("P{i}.hk"),
            format!("plan Run() : A{i} ≔ {body}\n").into_bytes(),
        ));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    TempDir::with_files(&refs)
}

/// Builds `dir` into `out` and returns the exit code and, per network, whether it was reused.
fn build(dir: &TempDir, out: &str, extra: &[&str]) -> (Option<i32>, Vec<(String, bool)>) {
    let mut args = vec![
        "build",
        dir.0.to_str().unwrap(),
        "--out",
        out,
        "--format",
        "json",
    ];
    args.extend(extra);
    let run = hilbert(&args, None);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    let networks = json["stats"]["networks"]
        .as_array()
        .expect("stats.networks")
        .iter()
        .map(|n| {
            (
                n["network"].as_str().unwrap().to_string(),
                n["reused"].as_bool().expect("reused"),
            )
        })
        .collect();
    (run.code, networks)
}

fn reused(networks: &[(String, bool)]) -> Vec<&str> {
    networks
        .iter()
        .filter(|(_, r)| *r)
        .map(|(n, _)| n.as_str())
        .collect()
}

const GOOD: &str = "believe s(1) ; believe s(0)";

#[test]
fn an_unchanged_network_is_reused_and_an_edited_one_is_explored() {
    let dir = project([GOOD, GOOD, GOOD]);
    let out = dir.join("out");
    let (code, first) = build(&dir, &out, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(first.len(), 3);
    assert!(reused(&first).is_empty(), "{first:?}");
    // Nothing changed: nothing is explored, everything is admitted by the kernel again.
    let (code, second) = build(&dir, &out, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(reused(&second), ["A0.Go", "A1.Go", "A2.Go"]);
    // A one-line edit to one plan file: only its network is explored.
    std::fs::write(
        dir.0.join("P1.hk"),
        "plan Run() : A1 ≔ believe s(2) ; believe s(0)\n",
    )
    .unwrap();
    let (code, third) = build(&dir, &out, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(reused(&third), ["A0.Go", "A2.Go"]);
    // The human report says so, and --fresh explores everything.
    let run = hilbert(
        &["build", &dir.path(), "--out", &out, "--color", "never"],
        None,
    );
    assert!(
        run.stdout.contains(
            "network A1.Go: 2 states, 1 transition; reused: proved by an earlier build, not explored again; kernel"
        ),
        "{}",
        run.stdout
    );
    let (code, fresh) = build(&dir, &out, &["--fresh"]);
    assert_eq!(code, Some(0));
    assert!(reused(&fresh).is_empty(), "{fresh:?}");
    // The kept certificates are the build's: verify binds them to the sources.
    let mut args = vec!["verify".to_string()];
    for n in ["A0.Go", "A1.Go", "A2.Go"] {
        args.push(format!("{out}/{n}.cert"));
    }
    args.extend(["--sources".to_string(), dir.path()]);
    let run = hilbert(&args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn the_kernels_word_on_a_reused_certificate_is_never_reused() {
    let dir = project([GOOD, GOOD, GOOD]);
    let out = dir.join("out");
    assert_eq!(build(&dir, &out, &[]).0, Some(0));
    let path = format!("{out}/A2.Go.cert");
    let honest = std::fs::read(&path).unwrap();
    // Someone edits a kept certificate (its proof file still names the right key), or puts
    // another network's certificate in its place: the kernel checks it again against the
    // sources, refuses it, and the network is explored again now, so the build says what a
    // fresh build says, and writes the honest certificate back.
    let mut edited = honest.clone();
    let mid = edited.len() / 2;
    edited[mid] ^= 0x01;
    let other = std::fs::read(format!("{out}/A1.Go.cert")).unwrap();
    for bytes in [edited, other] {
        std::fs::write(&path, &bytes).unwrap();
        let (code, networks) = build(&dir, &out, &[]);
        assert_eq!(code, Some(0), "{networks:?}");
        assert_eq!(reused(&networks), ["A0.Go", "A1.Go"]);
        assert_eq!(std::fs::read(&path).unwrap(), honest);
        let (code, networks) = build(&dir, &out, &[]);
        assert_eq!(code, Some(0));
        assert_eq!(reused(&networks), ["A0.Go", "A1.Go", "A2.Go"]);
    }
}

/// Each theorem of a JSON build report as the build says it: network, name, statement, status,
/// the kernel's word and the counts.
fn said(report: &serde_json::Value) -> Vec<String> {
    report["theorems"]
        .as_array()
        .expect("theorems")
        .iter()
        .map(|t| {
            let field = |k: &str| t[k].to_string();
            [
                "network",
                "name",
                "statement",
                "status",
                "kernel",
                "kernel_reason",
            ]
            .iter()
            .chain(&["states", "transitions"])
            .map(|k| field(k))
            .collect::<Vec<_>>()
            .join(" ")
        })
        .collect()
}

fn report(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let run = hilbert(args, None);
    let json = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    (run.code, json, run.stderr)
}

/// The key `hilbert build DIR` gives network `name` (`obligations::reuse_key`), as anyone can
/// compute it from the sources: it authenticates nothing.
fn key_of(dir: &str, name: &str) -> String {
    use hilbert_certificates::cert;
    use hilbert_frontend::{Provenance, project};
    use hilbert_prover::obligations;
    let loaded = project::load(&[dir.to_string()]).unwrap();
    let digests: Vec<cert::SourceDigest> = loaded
        .sources
        .files()
        .iter()
        .map(|f| cert::SourceDigest {
            path: f.path.clone(),
            sha256: cert::sha256(f.text.as_bytes()),
        })
        .collect();
    let (ir, provenance) = hilbert_frontend::lower_project(&loaded, &Default::default()).unwrap();
    let slice = (0..ir.networks.len())
        .filter_map(|n| ir.slice(n))
        .find(|s| {
            let net = &s.networks[0];
            format!("{}.{}", s.agents[net.agent.0 as usize].name, net.binding) == name
        })
        .unwrap();
    let sources = provenance.sources_of(&slice, &digests, &Provenance::index(&digests));
    cert::hex(&obligations::reuse_key(&slice, &sources))
}

#[test]
fn a_kept_file_cannot_change_a_statement_a_count_or_a_verdict() {
    // Issue 29: `made(3)` edited to `made(100)` in a kept Operator.Work.proof.json was
    // printed as proved and admitted. A kept file now holds only the key; one that says more
    // (as an earlier version wrote, or as someone edits it) changes nothing a build reports.
    // (It also names its certificate by digest, issue 32; that is kept.)
    let tmp = TempDir::with_files(&[]);
    let (out, fresh_out) = (tmp.join("out"), tmp.join("fresh"));
    let example = "examples/production-line";
    let build = |out: &str| report(&["build", example, "--out", out, "--format", "json"]);
    let (code, first, _) = build(&out);
    assert_eq!(code, Some(0), "{first}");
    let kept = format!("{out}/Operator.Work.proof.json");
    let text = std::fs::read_to_string(&kept).unwrap();
    let kept_json = serde_json::from_str::<serde_json::Value>(&text).unwrap();
    let (key, digest) = (kept_json["key"].clone(), kept_json["certificate"].clone());
    std::fs::write(
        &kept,
        serde_json::json!({
            "key": key,
            "certificate": digest,
            "states": 999,
            "transitions": 7,
            "theorems": [
                {"name": "Produce_no_deadlock", "statement": "∀ w, produceReachable(w) ⇒ progress(w)", "status": "refuted"},
                {"name": "Work_live_Produced", "statement": "inevitable(scene(call(Produce), empty), made(100))"},
                {"name": "Work_live_Nothing", "statement": "inevitable(scene(call(Produce), empty), true)"}
            ]
        })
        .to_string(),
    )
    .unwrap();
    let (code, again, _) = build(&out);
    let (fresh_code, fresh, _) = build(&fresh_out);
    assert_eq!(code, fresh_code);
    assert_eq!(said(&again), said(&fresh));
    assert!(said(&again).iter().any(|t| t.contains("made(3)")));
    assert!(!said(&again).iter().any(|t| t.contains("made(100)")));
    // The network was still reused: its certificate, admitted again, is the proof.
    let work = again["stats"]["networks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["network"] == "Operator.Work")
        .unwrap()
        .clone();
    assert_eq!(work["reused"], true, "{work}");
    assert_eq!(work["states"], fresh["stats"]["networks"][0]["states"]);
    // What a build keeps is the key and the digest of the certificate it names.
    let text = std::fs::read_to_string(format!("{fresh_out}/Operator.Work.proof.json")).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        serde_json::json!({ "key": key, "certificate": digest })
    );
}

#[test]
fn a_kept_file_cannot_hide_a_refuted_theorem() {
    // A1's plan never believes s(0): no deadlock is proved, liveness refuted. A kept file
    // listing only the proved theorem, with the key recomputed and the certificate the build
    // wrote, hid the refuted one ("1 proved, 0 refuted", SARIF 0 results).
    let dir = project([GOOD, "believe s(1)", GOOD]);
    let out = dir.join("out");
    let (code, first) = build(&dir, &out, &[]);
    assert_eq!(code, Some(1), "{first:?}");
    // Its results are kept (issue 33); here they are replaced by a file that hides one.
    let kept = format!("{out}/A1.Go.proof.json");
    assert!(std::path::Path::new(&kept).exists());
    std::fs::write(
        &kept,
        serde_json::json!({
            "key": key_of(&dir.path(), "A1.Go"),
            "states": 2,
            "transitions": 1,
            "theorems": [{"name": "Run_no_deadlock", "statement": "∀ w, runReachable(w) ⇒ progress(w)"}]
        })
        .to_string(),
    )
    .unwrap();
    let (code, json, _) = report(&["build", &dir.path(), "--out", &out, "--format", "json"]);
    assert_eq!(code, Some(1));
    let a1: Vec<(String, String)> = json["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["network"] == "A1.Go")
        .map(|t| {
            (
                t["name"].as_str().unwrap().into(),
                t["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        a1,
        [
            ("Run_no_deadlock".to_string(), "proved".to_string()),
            ("Go_live_Done".to_string(), "refuted".to_string())
        ]
    );
    let run = hilbert(
        &["build", &dir.path(), "--out", &out, "--color", "never"],
        None,
    );
    assert!(
        run.stdout
            .contains("6 theorems: 5 proved, 1 refuted, 0 unproved"),
        "{}",
        run.stdout
    );
    let (_, sarif, _) = report(&["build", &dir.path(), "--out", &out, "--format", "sarif"]);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "theorem-refuted"
                && r["properties"]["theorem"] == "Go_live_Done"),
        "{results:?}"
    );
}

/// Each theorem of a JSON build report with its counterexample, as the build says it.
fn said_with_counterexamples(report: &serde_json::Value) -> Vec<String> {
    said(report)
        .into_iter()
        .zip(report["theorems"].as_array().unwrap())
        .map(|(t, json)| format!("{t} {}", json["counterexample"]))
        .collect()
}

#[test]
fn a_refuted_network_is_kept_and_its_counterexample_replayed_not_trusted() {
    // Issue 33: a refuted network kept no proof, so every build of a failing project explored
    // it again. Its certificate and results are kept now; a later build hands the certificate
    // to the kernel, requires the kernel's verdicts to agree and replays each counterexample
    // on the network before it reports it. P1 waits on a channel nothing sends on: deadlock
    // and liveness refuted (a path that ends); P2 cycles for ever (a lasso).
    let dir = project([GOOD, GOOD, GOOD]);
    std::fs::write(
        dir.0.join("P1.hk"),
        "plan Run() : A1\n{\n  c : chan Int\n  body ≔ x ← c ; believe s(0)\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.0.join("P2.hk"),
        "plan Run() : A2\n{\n  c : chan Int\n  body ≔ Ping(c) ‖ Pong(c)\n}\nplan Ping(c: chan Int) : A2 ≔ 1 → c ; Ping(c)\nplan Pong(c: chan Int) : A2 ≔ x ← c ; Pong(c)\n",
    )
    .unwrap();
    let tmp = TempDir::with_files(&[]);
    let (out, fresh_out) = (tmp.join("out"), tmp.join("fresh"));
    let build = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "build",
            &dir.0.to_str().unwrap(),
            "--out",
            out,
            "--format",
            "json",
        ];
        args.extend(extra);
        report(&args)
    };
    let (code, first, _) = build(&out, &[]);
    assert_eq!(code, Some(1), "{first}");
    let refuted: Vec<&str> = first["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "refuted")
        .map(|t| t["network"].as_str().unwrap())
        .collect();
    assert_eq!(refuted, ["A1.Go", "A1.Go", "A2.Go"], "{first}");
    let cycle = first["theorems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["network"] == "A2.Go" && t["name"] == "Go_live_Done")
        .unwrap();
    assert!(cycle["counterexample"]["cycle_from"].is_u64(), "{cycle}");
    for n in ["A1.Go", "A2.Go"] {
        assert!(std::path::Path::new(&format!("{out}/{n}.proof.json")).exists());
    }
    let reused_of = |r: &serde_json::Value| -> Vec<String> {
        r["stats"]["networks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["reused"] == true)
            .map(|n| n["network"].as_str().unwrap().to_string())
            .collect()
    };
    // The second build explores nothing and says exactly what the first said.
    let (code, second, stderr) = build(&out, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(reused_of(&second), ["A0.Go", "A1.Go", "A2.Go"], "{stderr}");
    assert_eq!(
        said_with_counterexamples(&second),
        said_with_counterexamples(&first)
    );
    assert_eq!(second["frames"], first["frames"]);
    let human = hilbert(
        &["build", &dir.path(), "--out", &out, "--color", "never"],
        None,
    );
    assert!(
        human.stdout.contains("network A1.Go: ")
            && human.stdout.contains("reused: decided by an earlier build"),
        "{}",
        human.stdout
    );
    // What the kept file says is checked, never believed. Each edit below is one a fresh
    // build would not make; the build notes the kept file as stale, explores the network
    // again and says what a fresh build says.
    let (_, fresh, _) = build(&fresh_out, &[]);
    let kept_path = format!("{out}/A1.Go.proof.json");
    let honest = std::fs::read_to_string(&kept_path).unwrap();
    let kept: serde_json::Value = serde_json::from_str(&honest).unwrap();
    assert_eq!(kept["results"][0]["status"], "refuted", "{kept}");
    let mut edits: Vec<(&str, serde_json::Value)> = Vec::new();
    // A step that is not a step of the network.
    let mut e = kept.clone();
    e["results"][0]["counterexample"]["steps"] = serde_json::json!([{"process": "Run", "event": "τ", "beliefs_added": ["s(0)"], "beliefs_removed": []}]);
    edits.push(("does not replay", e));
    // Another conclusion at the right end.
    let mut e = kept.clone();
    e["results"][0]["counterexample"]["conclusion"] = "deadlock: a division by zero".into();
    edits.push(("does not replay", e));
    // A deadlock said to be a cycle.
    let mut e = kept.clone();
    e["results"][0]["counterexample"]["cycle_from"] = 0.into();
    edits.push(("does not replay", e));
    // A refuted theorem said to be proved: the kernel refuses it.
    let mut e = kept.clone();
    e["results"][0] = serde_json::json!({"status": "proved"});
    edits.push(("the kernel refused it", e));
    // Unproved, for a reason the sources do not give.
    let mut e = kept.clone();
    e["results"][1] = serde_json::json!({"status": "unproved", "reason": "host code"});
    edits.push(("no reason", e));
    // Results of another length, and results that are not results.
    let mut e = kept.clone();
    e["results"].as_array_mut().unwrap().pop();
    edits.push(("keeps 1 results", e));
    let mut e = kept.clone();
    e["results"][0] = serde_json::json!({"status": "refuted"});
    edits.push(("damaged", e));
    for (why, edited) in edits {
        std::fs::write(&kept_path, edited.to_string()).unwrap();
        let (code, again, stderr) = build(&out, &[]);
        assert_eq!(code, Some(1));
        assert!(
            stderr.contains("the kept proof of `A1.Go`") && stderr.contains(why),
            "{why}: {stderr}"
        );
        assert_eq!(reused_of(&again), ["A0.Go", "A2.Go"], "{why}");
        assert_eq!(
            said_with_counterexamples(&again),
            said_with_counterexamples(&fresh),
            "{why}"
        );
        // The network explored again, its honest results are kept again.
        let rewritten: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&kept_path).unwrap()).unwrap();
        assert_eq!(rewritten, kept, "{why}");
    }
    // `--fresh` reuses nothing.
    let (_, again, _) = build(&out, &["--fresh"]);
    assert!(reused_of(&again).is_empty());
}

#[test]
fn a_network_whose_results_cannot_be_replayed_is_not_kept() {
    // A proof file of another key (as if written by another version) is ignored; and a
    // network left unproved by a bound writes no certificate, so nothing is kept for it.
    let dir = project([GOOD, GOOD, "believe s(1) ; believe s(2) ; believe s(0)"]);
    let out = dir.join("out");
    assert_eq!(build(&dir, &out, &[]).0, Some(0));
    let kept = format!("{out}/A0.Go.proof.json");
    let text = std::fs::read_to_string(&kept).unwrap();
    let key = serde_json::from_str::<serde_json::Value>(&text).unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::write(&kept, text.replace(&key, &"0".repeat(64))).unwrap();
    let (_, networks) = build(&dir, &out, &[]);
    assert_eq!(reused(&networks), ["A1.Go", "A2.Go"]);
    let (code, _) = build(&dir, &out, &["--max-states", "1", "--fresh"]);
    assert_eq!(code, Some(2));
    for n in ["A0.Go", "A1.Go", "A2.Go"] {
        assert!(
            !std::path::Path::new(&format!("{out}/{n}.proof.json")).exists(),
            "{n}"
        );
    }
}

#[test]
fn a_reused_network_gives_the_warnings_proving_it_gave() {
    // An impossible condition that is not one constant belief has no release theorem: HK0070,
    // from proving. A rebuild that reuses the network warns the same, and --deny-warnings
    // refuses both.
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    let mut codes = Vec::new();
    for _ in 0..2 {
        let run = hilbert(
            &[
                "build",
                "tests/data/warns-when-proved",
                "--out",
                &out,
                "--format",
                "json",
                "--deny-warnings",
            ],
            None,
        );
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let warned: Vec<String> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect();
        let reused = json["stats"]["networks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["reused"] == true)
            .count();
        codes.push((run.code, warned, reused));
    }
    assert_eq!(codes[0], (Some(1), vec!["HK0070".to_string()], 0));
    assert_eq!(codes[1], (Some(1), vec!["HK0070".to_string()], 2));
}
