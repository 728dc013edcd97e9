//! The parsers (being written).
use super::ast::*;
use crate::diagnostic::Diagnostic;
use crate::source::{Dialect, SourceFile};

/// How deeply parentheses, braces and operators may nest before the parser says so.
pub const MAX_DEPTH: usize = 200;

/// Parses one file in its dialect.
pub fn parse(file: &SourceFile) -> (Module, Vec<Diagnostic>) {
    let module = match file.dialect {
        Dialect::Agent => Module::Agents(AgentFile::default()),
        Dialect::Plans => Module::Plans(PlanFile::default()),
        Dialect::Values => Module::Values(ValuesFile::default()),
    };
    (module, Vec::new())
}
