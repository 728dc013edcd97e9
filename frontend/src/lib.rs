//! Hilbert's untrusted frontend: it reads `.ha`, `.hk` and `.hb` sources, reports what is wrong
//! with them, and (in later stages) lowers them to the core IR and explores their plan networks.
//!
//! The pipeline, in module order: [`project`] loads files into a [`source::SourceMap`];
//! [`syntax`] lexes and parses each file into a tree and diagnostics; [`check`] resolves names
//! across files, checks types and makes the agent checks of `language.md` §5.
//!
//! **Invariant:** nothing here prints, exits or panics on bad input; every finding is a
//! [`Diagnostic`] value with a code, a span and (where one exists) a fix.

pub mod analysis;
pub mod certify;
pub mod check;
pub mod diagnostic;
pub mod explain;
pub mod explore;
pub mod frames;
pub mod listing;
pub mod lower;
pub mod obligations;
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

/// The result of checking a project: the parsed files, the resolved program, its IR (when the
/// checks found no error) and every diagnostic, sorted by file and position.
#[derive(Debug)]
pub struct Checked {
    /// Every file that was parsed (undecodable files are absent).
    pub parsed: Vec<ParsedFile>,
    /// The resolved program (complete only when there is no error).
    pub program: check::Program,
    /// The core IR, lowered when the checks reported no error.
    pub ir: Option<hilbert_certificates::ir::Ir>,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
    /// Every query the condition analysis asked Z3, with its answer (`--emit-smt`).
    pub smt: hilbert_smt::Log,
}

impl Checked {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses every decodable file and resolves the program: the first half of [`check_project`]
/// and of [`lower_project`], with the diagnostics so far (loading's included).
fn parse_and_resolve(
    loaded: &project::Loaded,
) -> (Vec<ParsedFile>, check::Program, Vec<Diagnostic>) {
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
    let (program, found) = check::resolve(&loaded.sources, &parsed);
    diagnostics.extend(found);
    (parsed, program, diagnostics)
}

/// The IR of the loaded files, by the same deterministic lowering as [`check_project`], without
/// the analyses that ask Z3: what `hilbert verify --sources` compares a certificate's IR with.
/// The errors, when the files do not lower.
pub fn lower_project(
    loaded: &project::Loaded,
) -> Result<hilbert_certificates::ir::Ir, Vec<Diagnostic>> {
    let (parsed, program, mut diagnostics) = parse_and_resolve(loaded);
    diagnostics.retain(Diagnostic::is_error);
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let (ir, found) = lower::lower(&program, &parsed);
    if found.is_empty() { Ok(ir) } else { Err(found) }
}

/// Parses and checks every loaded file, with Z3's default options.
pub fn check_project(loaded: &project::Loaded) -> Checked {
    check_project_with(loaded, hilbert_smt::Options::default())
}

/// Parses and checks every loaded file; the condition analysis runs Z3 with `options`.
pub fn check_project_with(loaded: &project::Loaded, options: hilbert_smt::Options) -> Checked {
    let (parsed, program, mut diagnostics) = parse_and_resolve(loaded);
    // Lowering is a static check too (it refuses unbounded networks), but only a program
    // without errors can be lowered.
    let ir = if diagnostics.iter().any(Diagnostic::is_error) {
        None
    } else {
        let (ir, found) = lower::lower(&program, &parsed);
        let ok = found.is_empty();
        diagnostics.extend(found);
        ok.then_some(ir)
    };
    let mut smt = hilbert_smt::Log::new(options);
    if let Some(ir) = &ir {
        let already = diagnostics.iter().map(|d| (d.code, d.span)).collect();
        diagnostics.extend(analysis::analyse_program(ir, &program, &already, &mut smt));
        diagnostics.extend(frames::check_program(ir, &program, &mut smt));
    }
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start, d.code));
    diagnostics.dedup();
    Checked {
        parsed,
        program,
        ir,
        diagnostics,
        smt,
    }
}
