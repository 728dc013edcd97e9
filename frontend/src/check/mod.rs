//! Static checks over parsed files: name resolution across files, types, and the agent checks of
//! `language.md` §5.

use crate::ParsedFile;
use crate::diagnostic::Diagnostic;
use crate::source::SourceMap;

/// Every finding of the checks (syntax diagnostics come from the parser, not from here).
pub fn check(_sources: &SourceMap, _parsed: &[ParsedFile]) -> Vec<Diagnostic> {
    Vec::new()
}
