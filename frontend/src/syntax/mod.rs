//! Syntax: tokens, the lexer, the syntax trees and the parsers of the three dialects.
//!
//! **Invariant:** parsing never fails and never recurses without bound. Every entry point returns
//! a tree (with `Error` nodes where it recovered) and the diagnostics, and nesting deeper than
//! [`parser::MAX_DEPTH`] is a diagnostic, not a stack overflow.

pub mod ast;
pub mod codes;
pub mod keywords;
pub mod lexer;
pub mod name;
pub mod parser;
pub mod token;

pub use parser::{parse, parse_many};

#[cfg(test)]
mod tests;
