//! Diagnostics as the editor shows them, and the checker thread that makes them.
//!
//! The checker runs the front end's whole check ([`hilbert_frontend::check_project_cancellable`],
//! the check of `hilbert check`: syntax, names, types, the agent checks, the condition analysis
//! and the frame conditions) on one thread of its own, so that no request waits for it, with
//! Z3 under a short budget. A check whose text has since changed is cancelled: its Z3 query is
//! interrupted ([`hilbert_smt::Cancel`]) and its result thrown away.

use crate::text::{Encoding, LineIndex};
use crate::uri;
use crossbeam_channel::{Receiver, Sender};
use hilbert_frontend::project::Loaded;
use hilbert_frontend::{Diagnostic, Severity, SourceMap, Span};
use hilbert_prover::obligations::{Status, Theorem};
use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the checker is asked to do.
pub struct Job {
    /// The project's directory.
    pub root: PathBuf,
    /// The project's generation this job checks (later ones replace it).
    pub generation: u64,
    /// The files.
    pub loaded: Loaded,
    /// Why the directory could not be read, if it could not.
    pub load_error: Option<String>,
    /// Set when the job is out of date.
    pub cancel: hilbert_smt::Cancel,
    /// Z3's options.
    pub options: hilbert_smt::Options,
    /// How positions count.
    pub encoding: Encoding,
    /// When the theorems are to be proved too (on save, if the setting asks), the bounds of
    /// their exploration.
    pub theorems: Option<hilbert_prover::explore::Limits>,
}

/// What a check found, by file.
pub struct Done {
    /// The project's directory.
    pub root: PathBuf,
    /// The generation checked.
    pub generation: u64,
    /// Every file of the project, with its diagnostics (none: an empty list).
    pub files: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>,
    /// The front end's diagnostics, for hover (codes and spans as byte ranges).
    pub found: Vec<(PathBuf, Span, String)>,
}

/// The checker's loop: runs each job, the latest of each project first thrown away if a later
/// one is waiting, until `jobs` closes.
pub fn checker(jobs: &Receiver<Job>, done: &Sender<Done>) {
    while let Ok(first) = jobs.recv() {
        let mut waiting = vec![first];
        waiting.extend(jobs.try_iter());
        // Only the newest job of each project matters.
        let mut newest: BTreeMap<PathBuf, Job> = BTreeMap::new();
        for job in waiting {
            newest.insert(job.root.clone(), job);
        }
        for job in newest.into_values() {
            if job.cancel.is_cancelled() {
                continue;
            }
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&job)));
            match result {
                Ok(Some(d)) => {
                    if done.send(d).is_err() {
                        return;
                    }
                }
                Ok(None) => {}
                Err(_) => {
                    // A bug of the front end: say so on standard error (the editor's log), and
                    // go on with the next job.
                    eprintln!(
                        "hilbert lsp: the check of {} failed (a bug: please report it)",
                        job.root.display()
                    );
                }
            }
        }
    }
}

/// Checks one job; `None` when it was cancelled.
fn check(job: &Job) -> Option<Done> {
    let checked = hilbert_frontend::check_project_cancellable(
        &job.loaded,
        job.options,
        &[],
        Some(job.cancel.clone()),
    );
    if job.cancel.is_cancelled() || checked.as_ref().is_ok_and(|c| c.smt.cancelled()) {
        return None;
    }
    let sources = &job.loaded.sources;
    let mut theorems = Vec::new();
    let diagnostics = match checked {
        Ok(c) => {
            let mut diagnostics = c.diagnostics;
            if let (Some(limits), Some(ir), false) = (
                job.theorems,
                &c.ir,
                diagnostics.iter().any(Diagnostic::is_error),
            ) {
                let proofs =
                    hilbert_prover::obligations::prove(ir, &c.program, sources, &[], limits);
                diagnostics.extend(proofs.diagnostics.iter().cloned());
                theorems = proofs
                    .theorems
                    .iter()
                    .filter_map(|t| theorem(t, &c.program))
                    .collect();
            }
            diagnostics
        }
        // No parameter values are given, so none can be wrong.
        Err(_) => Vec::new(),
    };
    let mut files: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> = sources
        .files()
        .iter()
        .map(|f| (PathBuf::from(&f.path), Vec::new()))
        .collect();
    let lines: Vec<LineIndex> = sources
        .files()
        .iter()
        .map(|f| LineIndex::new(&f.text))
        .collect();
    let mut found = Vec::new();
    for d in &diagnostics {
        let Some(file) = sources.files().get(d.span.file.0 as usize) else {
            continue;
        };
        let path = PathBuf::from(&file.path);
        found.push((path.clone(), d.span, d.code.to_string()));
        let converted = convert(d, sources, &lines, job.encoding);
        files.entry(path).or_default().push(converted);
    }
    for (span, t) in theorems {
        let Some(file) = sources.files().get(span.file.0 as usize) else {
            continue;
        };
        let i = span.file.0 as usize;
        let range = lines[i].range(
            &file.text,
            span.start as usize,
            span.end as usize,
            job.encoding,
        );
        let diagnostic = theorem_diagnostic(&t, range, Path::new(&file.path));
        files
            .entry(PathBuf::from(&file.path))
            .or_default()
            .push(diagnostic);
    }
    if let Some(why) = &job.load_error {
        for (path, list) in files.iter_mut() {
            let _ = path;
            list.insert(
                0,
                lsp_types::Diagnostic {
                    range: lsp_types::Range::default(),
                    severity: Some(DiagnosticSeverity::WARNING),
                    source: Some("hilbert".into()),
                    message: format!(
                        "the project's directory could not be read ({why}): only the open files are checked"
                    ),
                    ..Default::default()
                },
            );
        }
    }
    Some(Done {
        root: job.root.clone(),
        generation: job.generation,
        files,
        found,
    })
}

/// The editor's form of a diagnostic: its code, its span, its message followed by its label,
/// notes and help (as `hilbert check` prints them), and its secondary labels as related
/// information.
pub fn convert(
    d: &Diagnostic,
    sources: &SourceMap,
    lines: &[LineIndex],
    enc: Encoding,
) -> lsp_types::Diagnostic {
    let range = |span: Span| {
        let i = span.file.0 as usize;
        match (sources.files().get(i), lines.get(i)) {
            (Some(f), Some(l)) => l.range(&f.text, span.start as usize, span.end as usize, enc),
            _ => lsp_types::Range::default(),
        }
    };
    let mut message = d.message.clone();
    if !d.label.is_empty() {
        message.push_str(&format!("\n{}", d.label));
    }
    for n in &d.notes {
        message.push_str(&format!("\nnote: {n}"));
    }
    if let Some(h) = &d.help {
        message.push_str(&format!("\nhelp: {h}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .filter_map(|l| {
            let file = sources.files().get(l.span.file.0 as usize)?;
            let uri = uri::from_path(std::path::Path::new(&file.path))?;
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, range(l.span)),
                message: l.message.clone(),
            })
        })
        .collect();
    lsp_types::Diagnostic {
        range: range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: None,
        source: Some("hilbert".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// A theorem and the span of the binding whose network it is of (`Agent.Binding`).
fn theorem(t: &Theorem, program: &hilbert_frontend::check::Program) -> Option<(Span, Theorem)> {
    let span = program.agents.iter().find_map(|a| {
        a.bindings
            .iter()
            .find(|b| t.network == format!("{}.{}", a.name, b.name))
            .map(|b| b.span)
    })?;
    Some((span, t.clone()))
}

/// A theorem as a diagnostic on its binding: proved (information), refuted (an error, its
/// counterexample's steps as related information at the binding) or unproved (a warning, with
/// the reason). The prover's word: `hilbert build` has the kernel re-check it.
fn theorem_diagnostic(t: &Theorem, range: lsp_types::Range, path: &Path) -> lsp_types::Diagnostic {
    let (severity, mut message, steps) = match &t.status {
        Status::Proved => (
            DiagnosticSeverity::INFORMATION,
            format!("theorem `{}` proved: {}", t.name, t.statement),
            Vec::new(),
        ),
        Status::Refuted(cex) => {
            let steps = cex.lines();
            (
                DiagnosticSeverity::ERROR,
                format!(
                    "theorem `{}` refuted: {}\ncounterexample: {}",
                    t.name, t.statement, cex.conclusion
                ),
                steps,
            )
        }
        Status::Unproved(why) => (
            DiagnosticSeverity::WARNING,
            format!(
                "theorem `{}` unproved: {}\nnote: {why}",
                t.name, t.statement
            ),
            Vec::new(),
        ),
    };
    message.push_str(&format!(
        "\nnote: {} states explored; the prover's word, which `hilbert build` has the kernel re-check",
        t.states
    ));
    let related: Vec<DiagnosticRelatedInformation> = match uri::from_path(path) {
        Some(uri) => steps
            .into_iter()
            .map(|m| DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), range),
                message: m,
            })
            .collect(),
        None => Vec::new(),
    };
    lsp_types::Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(t.name.clone())),
        source: Some("hilbert build".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}
