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

// ---------------------------------------------------------------- the docs' examples

/// One fenced block of a diagnostic doc: its dialect tag, file name, whether it is `fixed`, text.
struct Block {
    file: String,
    fixed: bool,
    text: String,
}

fn blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = md.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let words: Vec<&str> = info.split_whitespace().collect();
        let mut text = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            text.push_str(l);
            text.push('\n');
        }
        if !matches!(words.first(), Some(&("ha" | "hk" | "hb"))) {
            continue;
        }
        let Some(file) = words.iter().find_map(|w| w.strip_prefix("file=")) else {
            continue;
        };
        out.push(Block {
            file: file.to_string(),
            fixed: words.contains(&"fixed"),
            text,
        });
    }
    out
}

/// Every check code has a doc whose example reports it with the documented severity, and whose
/// fixed project does not report it (and reports no error at all).
#[test]
fn every_check_code_has_a_doc_whose_examples_hold() {
    use super::codes;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics");
    let mut failures = Vec::new();
    for &code in codes::ALL {
        let path = dir.join(format!("{code}.md"));
        let Ok(md) = std::fs::read_to_string(&path) else {
            failures.push(format!("{code}: no {}", path.display()));
            continue;
        };
        if !md.starts_with(&format!("# {code}: ")) {
            failures.push(format!(
                "{code}: the title line must start with `# {code}: `"
            ));
        }
        let sev = codes::severity(code)
            .map(|s| s.to_string())
            .unwrap_or_default();
        if !md.lines().any(|l| l.trim() == format!("Severity: {sev}")) {
            failures.push(format!("{code}: expected `Severity: {sev}`"));
        }
        let bs = blocks(&md);
        let failing: Vec<(&str, &str)> = bs
            .iter()
            .filter(|b| !b.fixed)
            .map(|b| (b.file.as_str(), b.text.as_str()))
            .collect();
        let (_, diags) = diagnostics(&failing);
        match diags.iter().find(|d| d.code == code) {
            None => failures.push(format!(
                "{code}: the example does not report it; it reports {:?}",
                diags.iter().map(|d| d.code.to_string()).collect::<Vec<_>>()
            )),
            Some(d) if d.severity.to_string() != sev => failures.push(format!(
                "{code}: reported as {}, documented as {sev}",
                d.severity
            )),
            Some(_) => {}
        }
        if bs.iter().any(|b| b.fixed) {
            let mut fixed: Vec<(&str, &str)> = failing.clone();
            for b in bs.iter().filter(|b| b.fixed) {
                match fixed.iter_mut().find(|(f, _)| *f == b.file) {
                    Some(slot) => slot.1 = b.text.as_str(),
                    None => fixed.push((b.file.as_str(), b.text.as_str())),
                }
            }
            let (_, diags) = diagnostics(&fixed);
            if !diags.is_empty() {
                failures.push(format!(
                    "{code}: the fixed example reports {:?}",
                    diags
                        .iter()
                        .map(|d| format!("{} {}", d.code, d.message))
                        .collect::<Vec<_>>()
                ));
            }
        } else if code != codes::DUPLICATE_PLAN_FILE {
            // (the fix for a duplicate stem is renaming a file, which a block cannot show)
            failures.push(format!("{code}: no `fixed` block"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
