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
    assert!(work["states"]["states"].as_array().unwrap().len() >= 2);
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
