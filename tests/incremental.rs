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
    // Someone edits a kept certificate (its proof file still names the right key): the kernel
    // checks it again, refuses it, and the build is not admitted.
    let path = format!("{out}/A2.Go.cert");
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    let (code, networks) = build(&dir, &out, &[]);
    assert_eq!(code, Some(1), "{networks:?}");
    assert!(reused(&networks).contains(&"A2.Go"));
    // The refused proof is not kept: the next build explores that network, and is admitted.
    assert!(!std::path::Path::new(&format!("{out}/A2.Go.proof.json")).exists());
    let (code, networks) = build(&dir, &out, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(reused(&networks), ["A0.Go", "A1.Go"]);
}

#[test]
fn a_network_that_is_not_proved_is_not_kept_for_reuse() {
    // P1's plan waits on a channel nothing sends on: refuted, and explored every time.
    let stuck = "x ← c ; believe s(0)";
    let dir = project([GOOD, GOOD, GOOD]);
    std::fs::write(
        dir.0.join("P1.hk"),
        format!("plan Run() : A1\n{{\n  c : chan Int\n  body ≔ {stuck}\n}}\n"),
    )
    .unwrap();
    let out = dir.join("out");
    assert_eq!(build(&dir, &out, &[]).0, Some(1));
    assert!(!std::path::Path::new(&format!("{out}/A1.Go.proof.json")).exists());
    let (code, networks) = build(&dir, &out, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(reused(&networks), ["A0.Go", "A2.Go"]);
    // A proof file of another key (as if written by another version) is ignored.
    let kept = format!("{out}/A0.Go.proof.json");
    let text = std::fs::read_to_string(&kept).unwrap();
    let key = serde_json::from_str::<serde_json::Value>(&text).unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::write(&kept, text.replace(&key, &"0".repeat(64))).unwrap();
    let (_, networks) = build(&dir, &out, &[]);
    assert_eq!(reused(&networks), ["A2.Go"]);
}

#[test]
fn a_reused_network_gives_the_warnings_proving_it_gave() {
    // The seed's Work network raises no alarm, so its release theorem is vacuous: HK0069. A
    // rebuild that reuses the network warns the same, and --deny-warnings refuses both.
    let tmp = TempDir::with_files(&[]);
    let out = tmp.join("out");
    let mut codes = Vec::new();
    for _ in 0..2 {
        let run = hilbert(
            &[
                "build",
                "examples/production-line",
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
    assert_eq!(codes[0], (Some(1), vec!["HK0069".to_string()], 0));
    assert_eq!(codes[1], (Some(1), vec!["HK0069".to_string()], 2));
}
