//! Every documented code's example reports that code, with the documented severity, and its fix
//! does not; and the documented codes are exactly the declared ones.

use hilbert_frontend::explain::{self, ExampleFile};
use hilbert_frontend::{Code, Dialect, Severity, check_project_with, lower, project, syntax};
use hilbert_prover::explore::Limits;
use hilbert_prover::obligations;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("hilbert-explain-{}-{n}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the files and checks them; returns the severities with which `code` was reported,
/// and every code reported (for the failure message).
/// The Z3 options of an example's `options` block: `--smt-budget MS` and `--smt-timeout MS`.
fn smt_options(words: &[String]) -> Result<hilbert_smt::Options, String> {
    let mut options = hilbert_smt::Options {
        budget_ms: Some(60_000),
        ..hilbert_smt::Options::default()
    };
    for pair in words.chunks(2) {
        let value = |w: &str| -> Result<u64, String> {
            pair.get(1)
                .and_then(|v| v.parse().ok())
                .ok_or(format!("`{w}` needs a number of milliseconds"))
        };
        match pair[0].as_str() {
            "--smt-budget" => options.budget_ms = Some(value("--smt-budget")?),
            "--smt-timeout" => {
                options.timeout_ms = u32::try_from(value("--smt-timeout")?)
                    .map_err(|_| "--smt-timeout is too large".to_string())?
            }
            other => return Err(format!("unsupported option `{other}`")),
        }
    }
    Ok(options)
}

fn check_files(
    tag: &str,
    files: &[ExampleFile],
    options: &[String],
    code: Code,
) -> (Vec<Severity>, Vec<String>) {
    let smt = smt_options(options).unwrap_or_else(|e| panic!("{tag}: {e}"));
    let dir = TempDir::new(tag);
    for f in files {
        let path = dir.0.join(&f.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create an example's directory");
        }
        std::fs::write(path, &f.bytes).expect("write an example file");
    }
    let loaded = project::load(&[dir.0.display().to_string()])
        .unwrap_or_else(|e| panic!("{tag}: the example does not load: {e}"));
    let mut checked = check_project_with(&loaded, smt);
    // The obligation codes (HK0069) come from proving, which a build does after checking.
    if let (Some(ir), false) = (&checked.ir, checked.has_errors()) {
        let proofs = obligations::prove(
            ir,
            &checked.program,
            &loaded.sources,
            &[],
            Limits::default(),
        );
        checked.diagnostics.extend(proofs.diagnostics);
    }
    let severities = checked
        .diagnostics
        .iter()
        .filter(|d| d.code == code)
        .map(|d| d.severity)
        .collect();
    let all = checked
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    (severities, all)
}

#[test]
fn every_example_reports_its_code_and_every_fix_does_not() {
    let mut failures = Vec::new();
    for e in explain::all() {
        let code = e.code.to_string();
        let example = match e.example() {
            Ok(x) => x,
            Err(why) => {
                failures.push(format!("{code}: malformed example: {why}"));
                continue;
            }
        };
        let (severities, all) = check_files(&code, &example.failing, &example.options, e.code);
        if severities.is_empty() {
            failures.push(format!(
                "{code}: the example does not report it (got {all:?})"
            ));
        } else if severities.iter().any(|s| *s != e.severity) {
            failures.push(format!(
                "{code}: documented as {} but reported as {severities:?}",
                e.severity
            ));
        }
        if let Some(fixed) = example.fixed_project() {
            let (severities, all) = check_files(
                &format!("{code}-fixed"),
                &fixed,
                example.fix_options(),
                e.code,
            );
            if !severities.is_empty() {
                failures.push(format!("{code}: the fix still reports it (got {all:?})"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every code the frontend can emit. Each module that declares codes adds its list here.
fn declared_codes() -> BTreeSet<Code> {
    let mut codes = BTreeSet::new();
    for dialect in [Dialect::Agent, Dialect::Plans, Dialect::Values] {
        for &n in syntax::codes::NUMBERS {
            codes.insert(Code::new(dialect, n));
        }
    }
    codes.extend(hilbert_frontend::check::codes::ALL.iter().copied());
    codes.extend(lower::CODES.iter().copied());
    codes.extend(obligations::CODES.iter().copied());
    codes.extend(hilbert_frontend::analysis::CODES.iter().copied());
    codes.extend(hilbert_frontend::frames::CODES.iter().copied());
    codes
}

#[test]
fn the_documented_codes_are_exactly_the_declared_codes() {
    let documented: BTreeSet<Code> = explain::all().iter().map(|e| e.code).collect();
    let declared = declared_codes();
    let undocumented: Vec<String> = declared
        .difference(&documented)
        .map(Code::to_string)
        .collect();
    let undeclared: Vec<String> = documented
        .difference(&declared)
        .map(Code::to_string)
        .collect();
    assert!(
        undocumented.is_empty() && undeclared.is_empty(),
        "codes without docs/diagnostics/<CODE>.md: {undocumented:?}; \
         documented codes no module declares: {undeclared:?}"
    );
    // The syntax codes alone are 30: this guards the test itself against an empty registry.
    assert!(documented.len() >= 30);
}
