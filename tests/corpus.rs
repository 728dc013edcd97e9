//! The corpus: every folder under `tests/cases/` is a project, and its `expected` file lists the
//! diagnostics the check must report, one per line as `CODE FILE:LINE` (warnings too). The test
//! requires exactly that list — nothing missing, nothing extra. An empty `expected` means the
//! project must check clean. Adding a case is adding a folder.
//!
//! `UPDATE_EXPECT=1 cargo test --test corpus` rewrites the `expected` files from what the check
//! reports now; review the diff before committing it.

use hilbert_frontend::{check_project, project};
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

/// The diagnostics of a project, as `CODE FILE:LINE` lines with paths relative to the case.
fn actual(case: &Path) -> Vec<String> {
    let root = case.to_string_lossy().into_owned();
    let loaded = project::load(std::slice::from_ref(&root))
        .unwrap_or_else(|e| panic!("{}: {e}", case.display()));
    let checked = check_project(&loaded);
    let mut lines: Vec<String> = checked
        .diagnostics
        .iter()
        .map(|d| {
            let file = loaded.sources.get(d.span.file);
            let (line, _) = file.line_col(d.span.start);
            let rel = file.path.strip_prefix(&root).unwrap_or(&file.path);
            format!("{} {}:{line}", d.code, rel.trim_start_matches('/'))
        })
        .collect();
    lines.sort();
    lines
}

fn expected(case: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(case.join("expected"))
        .unwrap_or_else(|e| panic!("{}: no `expected` file: {e}", case.display()));
    let mut lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    lines.sort();
    lines
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("tests/cases exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    cases
}

#[test]
fn every_case_reports_exactly_its_expected_diagnostics() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut failures = Vec::new();
    for case in cases() {
        let got = actual(&case);
        if update {
            let header = "# CODE FILE:LINE, one per line (see tests/corpus.rs)\n";
            std::fs::write(
                case.join("expected"),
                header.to_string() + &got.join("\n") + "\n",
            )
            .expect("write expected");
            continue;
        }
        let want = expected(&case);
        if got != want {
            failures.push(format!(
                "{}:\n  expected: {want:?}\n  reported: {got:?}",
                case.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_corpus_is_large_enough_and_mostly_wrong() {
    let cases = cases();
    let wrong = cases.iter().filter(|c| !expected(c).is_empty()).count();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    assert!(wrong >= 25, "{wrong} wrong cases");
}

#[test]
fn the_corpus_copy_of_the_seed_is_the_example_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["Operator.ha", "Line.hk"] {
        let example = std::fs::read(root.join("examples/production-line").join(file)).unwrap();
        let copy = std::fs::read(root.join("tests/cases/seed").join(file)).unwrap();
        assert!(
            example == copy,
            "tests/cases/seed/{file} differs from the example"
        );
    }
}

#[test]
fn the_seed_example_and_its_ascii_twin_check_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["examples/production-line", "tests/cases/seed-ascii"] {
        assert_eq!(actual(&root.join(dir)), Vec::<String>::new(), "{dir}");
    }
}
