//! Tests of the checks, through source text: each builds a small project in memory, parses and
//! checks it, and compares the codes and lines reported.

use crate::project::{Loaded, add_bytes};
use crate::{Diagnostic, check_project};

const SEED_HA: &str = include_str!("../../../examples/production-line/Operator.ha");
const SEED_HK: &str = include_str!("../../../examples/production-line/Line.hk");

/// Checks the files (`(path, text)`) and returns every diagnostic.
fn diagnostics(files: &[(&str, &str)]) -> (Loaded, Vec<Diagnostic>) {
    let mut loaded = Loaded::default();
    for (path, text) in files {
        add_bytes(&mut loaded, (*path).to_string(), text.as_bytes().to_vec());
    }
    let checked = check_project(&loaded);
    (loaded, checked.diagnostics)
}

/// `CODE path:line` for every diagnostic, in order.
fn codes(files: &[(&str, &str)]) -> Vec<String> {
    let (loaded, diags) = diagnostics(files);
    diags
        .iter()
        .map(|d| {
            let f = loaded.sources.get(d.span.file);
            format!("{} {}:{}", d.code, f.path, f.line_col(d.span.start).0)
        })
        .collect()
}

#[test]
fn the_seed_checks_clean() {
    let (_, d) = diagnostics(&[("Operator.ha", SEED_HA), ("Line.hk", SEED_HK)]);
    assert!(d.is_empty(), "{d:#?}");
}
