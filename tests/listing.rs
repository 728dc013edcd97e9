//! The `verify --dump` listing is the IR written as Hilbert source, and lowering that source
//! again gives the certificate's IR byte for byte (issue 29, "Lowering is total or it
//! refuses"): over every certificate of every example's build, over every network of the test
//! corpus (`tests/cases/`) that lowers, and over a few hundred random projects.

mod common;

use common::{TempDir, hilbert};
use hilbert_certificates::cert::{self, Body, StateTable};
use hilbert_certificates::ir::Ir;
use hilbert_frontend::listing::{self, roundtrip};
use std::path::{Path, PathBuf};

/// The certificate body of network `n` of `ir` as a build writes it, but for its states and
/// witnesses (the listing's source is its IR alone).
fn body(ir: &Ir, n: usize) -> Body {
    let slice = ir.slice(n).expect("a network of the IR");
    Body {
        tool: "hilbert test".into(),
        sources: vec![],
        ir_sha256: cert::sha256(&cert::ir_bytes(&slice)),
        ir: slice,
        network: 0,
        states: StateTable::default(),
        witnesses: vec![],
    }
}

/// Loads and lowers a project with these `--param` values.
fn lower(paths: &[String], params: &[&str]) -> Result<Ir, String> {
    let loaded = hilbert_frontend::project::load(paths).map_err(|e| e.to_string())?;
    let specs: Vec<_> = params
        .iter()
        .map(|p| hilbert_frontend::ParamSpec::parse(p).unwrap())
        .collect();
    let checked =
        hilbert_frontend::check_project_params(&loaded, hilbert_smt::Options::default(), &specs)?;
    checked
        .ir
        .ok_or_else(|| format!("{} diagnostics", checked.diagnostics.len()))
}

/// Every network of `ir` round-trips; the failures, named.
fn round_trip_all(what: &str, ir: &Ir) -> Vec<String> {
    let mut failures = Vec::new();
    for n in 0..ir.networks.len() {
        let b = body(ir, n);
        if let Err(e) = roundtrip::round_trip(what, &b) {
            let text = listing::listing(what, &b);
            failures.push(format!("{what} network {n}: {e}\n{text}"));
        }
    }
    failures
}

fn dirs(under: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(under)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_network_of_the_corpus_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut networks = 0;
    let mut failures = Vec::new();
    for dir in dirs(&root.join("tests/cases")) {
        let Ok(ir) = lower(&[dir.display().to_string()], &[]) else {
            continue;
        };
        networks += ir.networks.len();
        failures.extend(round_trip_all(&dir.display().to_string(), &ir));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(networks >= 5, "only {networks} networks in the corpus");
}

#[test]
fn every_certificate_of_every_example_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = TempDir::with_files(&[]);
    let mut builds: Vec<(PathBuf, Vec<&str>)> = dirs(&root.join("examples"))
        .into_iter()
        .map(|d| (d, vec![]))
        .collect();
    // The parameters example with a value too: the listing gives it back as `--param`.
    builds.push((root.join("examples/agent-parameters"), vec!["target=3"]));
    let mut certificates = 0;
    let mut failures = Vec::new();
    for (i, (dir, params)) in builds.iter().enumerate() {
        let into = out.join(&i.to_string());
        let mut args = vec!["build", dir.to_str().unwrap(), "--out", &into];
        for p in params {
            args.extend(["--param", p]);
        }
        let run = hilbert(&args, None);
        assert!(run.code.is_some(), "{}", run.stderr);
        let mut certs: Vec<PathBuf> = std::fs::read_dir(&into)
            .map(|r| r.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        certs.retain(|p| p.extension().is_some_and(|e| e == "cert"));
        certs.sort();
        assert!(!certs.is_empty(), "{}: no certificate", dir.display());
        for path in certs {
            let bytes = std::fs::read(&path).unwrap();
            let body = cert::decode(&bytes).expect("a build's certificate decodes");
            certificates += 1;
            let shown = path.display().to_string();
            if let Err(e) = roundtrip::round_trip(&shown, &body) {
                failures.push(format!("{shown}: {e}\n{}", listing::listing(&shown, &body)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(certificates >= 20, "only {certificates} certificates");
}
