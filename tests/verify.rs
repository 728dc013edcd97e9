//! `hilbert verify`: the kernel alone re-checks certificates that `hilbert build` wrote. Exit
//! code 0 admitted, 1 refused (an obligation refused, or the certificate invalid, or its sources
//! not the given ones), 2 a file that cannot be read.

mod common;

use common::{TempDir, hilbert};

/// Builds `example` into a fresh directory and returns it with the certificates' paths.
fn built(example: &str) -> (TempDir, Vec<String>) {
    let out = TempDir::with_files(&[]);
    let run = hilbert(
        &[
            "build",
            &format!("examples/{example}"),
            "--out",
            &out.path(),
        ],
        None,
    );
    assert!(run.code.is_some_and(|c| c <= 1), "{}", run.stderr);
    let mut certs: Vec<String> = std::fs::read_dir(&out.0)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".cert"))
        .collect();
    certs.sort();
    assert!(!certs.is_empty());
    (out, certs)
}

fn args<'a>(first: &[&'a str], certs: &'a [String], rest: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = first.to_vec();
    v.extend(certs.iter().map(String::as_str));
    v.extend_from_slice(rest);
    v
}

#[test]
fn an_admitted_build_verifies_against_its_sources() {
    let (_out, certs) = built("production-line");
    let run = hilbert(
        &args(
            &["verify"],
            &certs,
            &["--sources", "examples/production-line"],
        ),
        None,
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("network Operator.Work"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Work_live_Produced"), "{}", run.stdout);
    assert!(run.stdout.contains("proved"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("admitted: the kernel admitted 2 certificates")
    );
    // The same files named one by one are the same sources.
    let run = hilbert(
        &args(
            &["verify"],
            &certs,
            &[
                "--sources",
                "examples/production-line/Line.hk",
                "examples/production-line/Operator.ha",
            ],
        ),
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn a_refuted_theorem_is_refused_with_its_rule_reason_and_state() {
    let (_out, certs) = built("abort-handler-stuck");
    let run = hilbert(&args(&["verify"], &certs, &[]), None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("Smelt_released_Melted"))
        .unwrap_or_default();
    assert!(line.contains("refused (ranking.start)"), "{}", run.stdout);
    assert!(run.stdout.contains("at term"), "{}", run.stdout);
    assert!(run.stdout.contains("Heat_no_deadlock"));
    let json = hilbert(&args(&["verify"], &certs, &["--format", "json"]), None);
    assert_eq!(json.code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["admitted"], false);
    let obligations = v["certificates"][0]["obligations"].as_array().unwrap();
    let released = obligations
        .iter()
        .find(|o| o["name"] == "Smelt_released_Melted")
        .unwrap();
    assert_eq!(released["verdict"], "refused");
    assert_eq!(released["rule"], "ranking.start");
    assert!(obligations.iter().any(|o| o["verdict"] == "proved"));
}

#[test]
fn a_tampered_certificate_is_refused() {
    let (out, certs) = built("production-line");
    let work = certs
        .iter()
        .find(|c| c.ends_with("Operator.Work.cert"))
        .unwrap();
    let mut bytes = std::fs::read(work).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    let tampered = out.join("tampered.cert");
    std::fs::write(&tampered, &bytes).unwrap();
    let run = hilbert(&["verify", &tampered], None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("invalid certificate"), "{}", run.stdout);
    // One bad certificate among good ones refuses the lot.
    let run = hilbert(&args(&["verify"], &certs, &[&tampered]), None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("refused 1 of 3"), "{}", run.stdout);
}

#[test]
fn certificates_checked_against_other_sources_are_refused() {
    let (_out, certs) = built("production-line");
    for sources in [
        vec!["examples/abort-handler-stuck"],
        vec!["examples/production-line/Line.hk"],
        vec!["examples/production-line", "examples/livelock"],
    ] {
        let mut a = args(&["verify"], &certs, &["--sources"]);
        a.extend(sources.iter().copied());
        let run = hilbert(&a, None);
        assert_eq!(run.code, Some(1), "{sources:?}: {}", run.stdout);
        assert!(
            run.stdout.contains("names source")
                || run
                    .stdout
                    .contains("is not among the certificate's sources")
                || run.stdout.contains("do not lower")
                // Another project: its networks are not these certificates'.
                || run.stdout.contains("which the given sources do not define")
                // These sources and more: each certificate is bound to the files of its own
                // network, and the other project's networks have none.
                || run.stdout.contains("no admitted certificate for network"),
            "{}",
            run.stdout
        );
    }
    // An edited source is another source.
    let dir = TempDir::with_files(&[
        (
            "Line.hk",
            &std::fs::read("examples/production-line/Line.hk").unwrap(),
        ),
        (
            "Operator.ha",
            &[
                std::fs::read("examples/production-line/Operator.ha").unwrap(),
                b"\n".to_vec(),
            ]
            .concat(),
        ),
    ]);
    let run = hilbert(
        &args(&["verify"], &certs, &["--sources", &dir.path()]),
        None,
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
}

#[test]
fn an_unreadable_certificate_or_source_is_an_environment_error() {
    let (out, certs) = built("production-line");
    let missing = out.join("missing.cert");
    let run = hilbert(&args(&["verify"], &certs, &[&missing]), None);
    assert_eq!(run.code, Some(2));
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
    let run = hilbert(&args(&["verify"], &certs, &["--sources", &missing]), None);
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
    let run = hilbert(&["verify", &out.path()], None);
    assert_eq!(run.code, Some(2), "a directory is not a certificate file");
    let run = hilbert(&["verify"], None);
    assert_eq!(run.code, Some(2), "no certificate is a usage error");
}

#[test]
fn a_certificate_declaring_more_states_than_max_states_is_not_checked() {
    let (_out, certs) = built("production-line");
    let work: Vec<String> = certs
        .into_iter()
        .filter(|c| c.ends_with("Operator.Work.cert"))
        .collect();
    // The scene and its explorations from outside declare 15 states in all.
    let run = hilbert(&args(&["verify"], &work, &["--max-states", "15"]), None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let run = hilbert(
        &args(
            &["verify", "--format", "json"],
            &work,
            &["--max-states", "14"],
        ),
        None,
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let c = &v["certificates"][0];
    let why = c["invalid"].as_str().unwrap();
    assert!(
        why.contains("declares 15 states, more than the 14"),
        "{why}"
    );
    assert_eq!(c["work"], 0);
}

#[test]
fn dump_shows_the_decoded_certificate_as_json() {
    let (out, certs) = built("production-line");
    let run = hilbert(
        &args(&["verify", "--dump", "--format", "json"], &certs, &[]),
        None,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let entries = v.as_array().unwrap();
    assert_eq!(entries.len(), 2);
    let work = entries
        .iter()
        .find(|e| e["path"].as_str().unwrap().ends_with("Operator.Work.cert"))
        .unwrap();
    assert_eq!(
        work["tool"],
        format!("hilbert {}", env!("CARGO_PKG_VERSION"))
    );
    let digest = work["sources"][0]["sha256"].as_str().unwrap();
    assert_eq!(digest.len(), 64);
    assert!(digest.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(work["ir"]["agents"][0]["name"], "Operator");
    assert!(work["scene"]["states"].as_u64().unwrap() >= 2);
    assert_eq!(
        work["witnesses"][0]["Invariant"]["obligation"],
        "Produce_no_deadlock"
    );
    // A file that is not a certificate is dumped as why not.
    let junk = out.join("junk.cert");
    std::fs::write(&junk, b"not a certificate").unwrap();
    let run = hilbert(&["verify", "--dump", "--format", "json", &junk], None);
    assert_eq!(run.code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        v[0]["invalid"]
            .as_str()
            .unwrap()
            .contains("not a Hilbert certificate")
    );
}

#[test]
fn a_missing_certificate_leaves_its_network_uncovered() {
    let (_out, certs) = built("production-line");
    let work: Vec<String> = certs
        .iter()
        .filter(|c| c.ends_with("Operator.Work.cert"))
        .cloned()
        .collect();
    let run = hilbert(
        &args(
            &["verify"],
            &work,
            &["--sources", "examples/production-line"],
        ),
        None,
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("no admitted certificate for network `Operator.Stop`"),
        "{}",
        run.stdout
    );
    // The same certificate twice is named as the second.
    let stop = certs.iter().find(|c| c.ends_with("Stop.cert")).unwrap();
    let twice = [work[0].clone(), work[0].clone(), stop.clone()];
    let a = args(
        &["verify"],
        &twice,
        &["--sources", "examples/production-line"],
    );
    let run = hilbert(&a, None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stdout.contains("is a second certificate"),
        "{}",
        run.stdout
    );
    // Without sources there is nothing to cover: each certificate stands alone.
    let run = hilbert(&args(&["verify"], &work, &[]), None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn a_certificate_of_edited_sources_wearing_the_original_names_is_refused() {
    use hilbert_certificates::cert;
    // The buyer pays first in the edited exchange, which therefore cannot deadlock; its honest
    // certificate, relabelled with the original files' paths and digests and re-encoded, claims
    // the same of the original, which deadlocks.
    let original = "examples/cross-wait-deadlock";
    let exchange = std::fs::read_to_string(format!("{original}/Exchange.hk")).unwrap();
    let edited = exchange.replace("item ← goods ; 10 → payment", "10 → payment ; item ← goods");
    assert_ne!(edited, exchange);
    let dir = TempDir::with_files(&[
        ("Exchange.hk", edited.as_bytes()),
        (
            "Trader.ha",
            &std::fs::read(format!("{original}/Trader.ha")).unwrap(),
        ),
    ]);
    let out = TempDir::with_files(&[]);
    let run = hilbert(&["build", &dir.path(), "--out", &out.path()], None);
    assert_eq!(
        run.code,
        Some(0),
        "the edited exchange is admitted: {}",
        run.stdout
    );
    let (_orig_out, orig_certs) = built("cross-wait-deadlock");
    let honest = cert::decode(&std::fs::read(&orig_certs[0]).unwrap()).unwrap();
    let mut body = cert::decode(&std::fs::read(out.join("Trader.Trade.cert")).unwrap()).unwrap();
    body.sources = honest.sources.clone();
    let forged = out.join("forged.cert");
    std::fs::write(&forged, cert::encode(&body)).unwrap();
    // The kernel alone admits it (it is true of the IR inside it) …
    let run = hilbert(&["verify", &forged], None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    // … but not against the sources it names.
    let run = hilbert(&["verify", &forged, "--sources", original], None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stdout.contains("not the IR the given sources lower to"),
        "{}",
        run.stdout
    );
}

#[test]
fn dump_lists_the_ir_for_a_person_to_read() {
    let (_out, certs) = built("production-line");
    let run = hilbert(&args(&["verify", "--dump"], &certs, &[]), None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Not JSON: a listing, naming the agent, its desire, the plans and their node numbers.
    assert!(serde_json::from_str::<serde_json::Value>(&run.stdout).is_err());
    for want in ["Operator", "Produced", "Produce", "Line.hk", "n0"] {
        assert!(run.stdout.contains(want), "no `{want}` in:\n{}", run.stdout);
    }
}

// ------------------------------------------------------------ agent parameters (issue 29, 11)

const PARAMS: &str = "examples/agent-parameters";

/// Builds the agent-parameters example with `extra` into a fresh directory: its certificate.
fn built_with(extra: &[&str]) -> (TempDir, String) {
    let out = TempDir::with_files(&[]);
    let mut args = vec!["build", PARAMS, "--out", &out.0.to_str().unwrap()];
    args.extend_from_slice(extra);
    let run = hilbert(&args, None);
    assert!(run.code.is_some_and(|c| c <= 1), "{}", run.stderr);
    let cert = out.join("Counter.Count.cert");
    (out, cert)
}

fn verify_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let run = hilbert(&all, None);
    let json = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    (run.code, json)
}

#[test]
fn the_auditor_states_the_parameter_values_and_the_kernel_requires_exactly_them() {
    // Built with target=2: every theorem proved, admitted.
    let (_out, cert) = built_with(&["--param", "target=2"]);
    // The sources with no value (their build is unproved), and with target=5 (their build is
    // refuted): the certificate of target=2 is about neither.
    for given in [
        &[][..],
        &["--param", "target=5"][..],
        &["--param", "Counter.target=3"],
    ] {
        let mut args = vec!["verify", &cert, "--sources", PARAMS];
        args.extend_from_slice(given);
        let (code, json) = verify_json(&args);
        assert_eq!(code, Some(1), "{given:?}: {json}");
        assert_eq!(json["admitted"], false);
        let why = json["certificates"][0]["invalid"].as_str().unwrap();
        assert!(
            why.contains("built with the agent parameters Counter.target=2"),
            "{why}"
        );
        assert_eq!(json["certificates"][0]["params"][0]["value"], 2, "{json}");
    }
    // Exactly the values it was built under: admitted, and every report says them.
    let args = ["verify", &cert, "--sources", PARAMS, "--param", "target=2"];
    let (code, json) = verify_json(&args);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(
        json["params"],
        serde_json::json!([{"agent": "Counter", "name": "target", "value": 2}])
    );
    assert_eq!(json["certificates"][0]["params"], json["params"]);
    let run = hilbert(&args, None);
    assert_eq!(run.code, Some(0));
    assert!(
        run.stdout
            .starts_with("sources lowered with the parameters: Counter.target=2\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  parameters: Counter.target=2\n"),
        "{}",
        run.stdout
    );
    let mut junit = args.to_vec();
    junit.extend(["--format", "junit"]);
    let run = hilbert(&junit, None);
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.stdout
            .matches(r#"<property name="param Counter.target" value="2"/>"#)
            .count(),
        2,
        "{}",
        run.stdout
    );
    // Sources with no value say so.
    let (_out, unset) = built_with(&[]);
    let run = hilbert(&["verify", &unset, "--sources", PARAMS], None);
    assert!(
        run.stdout
            .starts_with("sources lowered with the parameters: Counter.target with no value\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_parameter_value_is_type_checked_and_needs_the_sources() {
    let (_out, cert) = built_with(&["--param", "target=2"]);
    for (param, says) in [
        (
            "target=x",
            "parameter `target` of agent `Counter` is an Int: `x` is not an integer",
        ),
        ("Counter.tagret=2", "did you mean `target`?"),
        ("Nobody.target=2", "there is no agent `Nobody`"),
    ] {
        let run = hilbert(
            &["verify", &cert, "--sources", PARAMS, "--param", param],
            None,
        );
        assert_eq!(run.code, Some(2), "{param}: {}", run.stdout);
        assert!(run.stderr.contains(says), "{param}: {}", run.stderr);
        assert!(
            run.stderr.contains("= help: state each value"),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty());
        let (code, json) = verify_json(&["verify", &cert, "--sources", PARAMS, "--param", param]);
        assert_eq!(code, Some(2));
        assert_eq!(json["error"]["kind"], "usage");
    }
    let run = hilbert(&["verify", &cert, "--param", "target=2"], None);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("needs --sources"), "{}", run.stderr);
}

#[test]
fn a_certificate_giving_an_int_parameter_a_string_is_refused() {
    // A producer lowers the sources with `level = "x"` (no `--param` can: it is type-checked)
    // and proves the network honestly under it. The values came from the certificate, so
    // `verify --sources` lowered the same IR and admitted it.
    use hilbert_certificates::ir::Literal;
    use hilbert_frontend::{check_project, project};
    use hilbert_prover::{explore::Limits, obligations};
    let dir = TempDir::with_files(&[
        (
            "Gauge.ha",
            "agent Gauge(level: Int) : Agency\n{\n  belief reading(v: Int)\n  desire Read reachable by [Go]\n  commit single_minded\n  attention Main initially\n  intend Go for Read when ¬ B(self) reading(level)\n  achieved Read when B(self) reading(level)\n  plan Go ↦ G.Run(level)\n}\n".as_bytes(),
        ),
        ("G.hk", "plan Run(v: Int) : Gauge ≔ believe reading(v)\n".as_bytes()),
    ]);
    let loaded = project::load(&[dir.path()]).unwrap();
    let digests: Vec<_> = loaded
        .sources
        .files()
        .iter()
        .map(|f| hilbert_certificates::cert::SourceDigest {
            path: f.path.clone(),
            sha256: hilbert_certificates::cert::sha256(f.text.as_bytes()),
        })
        .collect();
    let args = [(
        "Gauge".to_string(),
        [("level".to_string(), Literal::Str("x".into()))].into(),
    )]
    .into();
    let (ir, _) = hilbert_frontend::lower_project(&loaded, &args).unwrap();
    let checked = check_project(&loaded);
    let proofs = obligations::prove(
        &ir,
        &checked.program,
        &loaded.sources,
        &digests,
        Limits::default(),
    );
    assert!(
        proofs
            .theorems
            .iter()
            .all(|t| t.status == obligations::Status::Proved),
        "the forged network is honestly proved: {:?}",
        proofs.theorems
    );
    let cert = dir.join("Gauge.Go.cert");
    std::fs::write(&cert, &proofs.certificates[0].bytes).unwrap();
    // The kernel alone admits it: its word is about the IR inside.
    assert_eq!(hilbert(&["verify", &cert], None).code, Some(0));
    // Against the sources it is about no values an auditor can state.
    let (code, json) = verify_json(&["verify", &cert, "--sources", &dir.path()]);
    assert_eq!(code, Some(1), "{json}");
    assert!(
        json["certificates"][0]["invalid"]
            .as_str()
            .unwrap()
            .contains(r#"Gauge.level="x""#),
        "{json}"
    );
    assert_eq!(json["certificates"][0]["params"][0]["value"], "x");
    let sources = dir.path();
    let with = |param: &str| {
        let args = ["verify", &cert, "--sources", &sources, "--param", param];
        hilbert(&args, None)
    };
    let run = with("level=2");
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let run = with("level=x");
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(
        run.stderr.contains("`x` is not an integer"),
        "{}",
        run.stderr
    );
}

#[test]
fn verify_says_whether_a_source_is_missing_extra_or_edited() {
    // Issue 33: an edited source was reported as "not among the given sources" though it is
    // given; now each difference is named, an edit with both digests.
    use sha2::{Digest, Sha256};
    let hex = |bytes: &[u8]| -> String {
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let agent = std::fs::read("examples/production-line/Operator.ha").unwrap();
    let plans = std::fs::read("examples/production-line/Line.hk").unwrap();
    let dir = TempDir::with_files(&[("p/Operator.ha", &agent), ("p/Line.hk", &plans)]);
    let out = dir.join("out");
    let project = dir.join("p");
    let run = hilbert(&["build", &project, "--out", &out], None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let cert = format!("{out}/Operator.Work.cert");
    // Edited after the build: named, with the digest at the build and now.
    let edited = [agent.clone(), b"\n-- edited\n".to_vec()].concat();
    std::fs::write(dir.0.join("p/Operator.ha"), &edited).unwrap();
    let run = hilbert(&["verify", &cert, "--sources", &project], None);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    let said = format!(
        "edited: `{project}/Operator.ha` is not the file the certificate was built from (SHA-256 {} at the build, {} now)",
        hex(&agent),
        hex(&edited)
    );
    assert!(run.stdout.contains(&said), "{}", run.stdout);
    assert!(!run.stdout.contains("not among"), "{}", run.stdout);
    // The same files under another name: the certificate's are missing, the given ones extra.
    std::fs::write(dir.0.join("p/Operator.ha"), &agent).unwrap();
    std::os::unix::fs::symlink(dir.0.join("p"), dir.0.join("q")).unwrap();
    let other = dir.join("q");
    let run = hilbert(
        &["verify", &cert, "--sources", &other, "--format", "json"],
        None,
    );
    assert_eq!(run.code, Some(1));
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let why = report["certificates"][0]["invalid"].as_str().unwrap();
    for part in [
        format!(
            "missing: the certificate was built from `{project}/Line.hk` (SHA-256 {})",
            hex(&plans)
        ),
        format!(
            "extra: the given source `{other}/Line.hk` (SHA-256 {})",
            hex(&plans)
        ),
    ] {
        assert!(why.contains(&part), "{part}\n{why}");
    }
    // The right sources: admitted, as before (with every network's certificate).
    let stop = format!("{out}/Operator.Stop.cert");
    let run = hilbert(&["verify", &cert, &stop, "--sources", &project], None);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}
