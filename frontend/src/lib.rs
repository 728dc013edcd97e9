//! Hilbert's untrusted frontend: it reads `.ha`, `.hk` and `.hb` sources, reports what is wrong
//! with them, and (in later stages) lowers them to the core IR and explores their plan networks.
//!
//! The pipeline, in module order: [`project`] loads files into a [`source::SourceMap`];
//! [`syntax`] lexes and parses each file into a tree and diagnostics; [`check`] resolves names
//! across files, checks types and makes the agent checks of `language.md` §5.
//!
//! **Invariant:** nothing here prints, exits or panics on bad input; every finding is a
//! [`Diagnostic`] value with a code, a span and (where one exists) a fix.

pub mod check;
pub mod diagnostic;
pub mod explain;
pub mod project;
pub mod render;
pub mod source;
pub mod syntax;

pub use diagnostic::{Code, Diagnostic, Severity};
pub use source::{Dialect, FileId, SourceFile, SourceMap, Span};

use syntax::ast::Module;

/// A parsed file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    /// Which file.
    pub file: FileId,
    /// Its tree.
    pub module: Module,
}

/// The result of checking a project: the parsed files and every diagnostic, sorted by file and
/// position.
#[derive(Debug)]
pub struct Checked {
    /// Every file that was parsed (undecodable files are absent).
    pub parsed: Vec<ParsedFile>,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses and checks every loaded file.
pub fn check_project(loaded: &project::Loaded) -> Checked {
    let mut diagnostics = loaded.diagnostics.clone();
    let mut parsed = Vec::new();
    for file in loaded.sources.files() {
        if loaded.undecodable.contains(&file.id) {
            continue;
        }
        let (module, mut diags) = syntax::parse(file);
        diagnostics.append(&mut diags);
        parsed.push(ParsedFile {
            file: file.id,
            module,
        });
    }
    diagnostics.extend(check::check(&loaded.sources, &parsed));
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start, d.code));
    diagnostics.dedup();
    Checked {
        parsed,
        diagnostics,
    }
}
