//! `--format json`: the report object of `docs/cli.md`, as checked by
//! `docs/schema/check-report.schema.json`.

use crate::check::{Input, locate};
use hilbert_frontend::project::Loaded;
use hilbert_frontend::render::Summary;
use hilbert_frontend::{Diagnostic, SourceMap};
use serde::Serialize;

/// Changes only when a field changes meaning or goes away.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Report<'a> {
    schema_version: u32,
    tool: Tool,
    inputs: Vec<InputJson<'a>>,
    clean: bool,
    diagnostics: Vec<DiagnosticJson<'a>>,
    stats: Stats,
}

/// `"tool"`: who wrote the report.
#[derive(Serialize)]
pub struct Tool {
    name: &'static str,
    version: &'static str,
}

impl Tool {
    /// This build of `hilbert`.
    pub fn this() -> Tool {
        Tool {
            name: "hilbert",
            version: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// `"inputs"`: every file read and its digest.
pub fn inputs(inputs: &[Input]) -> Vec<InputJson<'_>> {
    inputs
        .iter()
        .map(|i| InputJson {
            path: &i.path,
            sha256: &i.sha256,
        })
        .collect()
}

/// One input file.
#[derive(Serialize)]
pub struct InputJson<'a> {
    path: &'a str,
    sha256: &'a str,
}

#[derive(Serialize)]
struct DiagnosticJson<'a> {
    code: String,
    severity: hilbert_frontend::Severity,
    message: &'a str,
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    label: &'a str,
    secondary: Vec<SecondaryJson<'a>>,
    notes: &'a [String],
    help: Option<&'a str>,
}

#[derive(Serialize)]
struct SecondaryJson<'a> {
    message: &'a str,
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(Serialize)]
struct Stats {
    files: usize,
    errors: usize,
    warnings: usize,
}

/// The report as pretty-printed JSON, ending with a newline.
pub fn report(
    loaded: &Loaded,
    diagnostics: &[Diagnostic],
    inputs: &[Input],
    clean: bool,
    summary: Summary,
) -> String {
    let report = Report {
        schema_version: SCHEMA_VERSION,
        tool: Tool::this(),
        inputs: self::inputs(inputs),
        clean,
        diagnostics: diagnostics
            .iter()
            .map(|d| diagnostic(&loaded.sources, d))
            .collect(),
        stats: Stats {
            files: summary.files,
            errors: summary.errors,
            warnings: summary.warnings,
        },
    };
    // Serialising plain structs of strings and numbers cannot fail.
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}

/// One diagnostic as the JSON reports write it (shared by `check` and `build`).
pub fn diagnostic_value(sources: &SourceMap, d: &Diagnostic) -> serde_json::Value {
    serde_json::to_value(diagnostic(sources, d)).unwrap_or_default()
}

fn diagnostic<'a>(sources: &SourceMap, d: &'a Diagnostic) -> DiagnosticJson<'a> {
    let at = locate(sources, d.span);
    DiagnosticJson {
        code: d.code.to_string(),
        severity: d.severity,
        message: &d.message,
        file: at.file,
        line: at.line,
        column: at.column,
        end_line: at.end_line,
        end_column: at.end_column,
        label: &d.label,
        secondary: d
            .secondary
            .iter()
            .map(|l| {
                let at = locate(sources, l.span);
                SecondaryJson {
                    message: &l.message,
                    file: at.file,
                    line: at.line,
                    column: at.column,
                    end_line: at.end_line,
                    end_column: at.end_column,
                }
            })
            .collect(),
        notes: &d.notes,
        help: d.help.as_deref(),
    }
}
