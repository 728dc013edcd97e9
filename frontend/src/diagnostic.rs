//! Diagnostics: a stable code, a severity, a one-line message, a labelled primary span, secondary
//! labels, notes and a help line with the fix. Library code returns them as values; only the
//! command line prints them.

use crate::source::{Dialect, Span};
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A warning: the build goes on unless `--deny-warnings`.
    Warning,
    /// An error: the project is refused.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A diagnostic code such as `HK0023`: the dialect's prefix and a number. Codes are never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Code {
    /// Which dialect's family (`HA`, `HK`, `HB`).
    pub dialect: Dialect,
    /// The number within the family.
    pub number: u16,
}

impl Code {
    /// The code `prefix(dialect)` followed by `number` in four digits.
    pub const fn new(dialect: Dialect, number: u16) -> Code {
        Code { dialect, number }
    }

    /// Parses `HA0001`-style text (case-insensitive prefix).
    pub fn parse(text: &str) -> Option<Code> {
        let text = text.trim();
        if text.len() != 6 || !text.is_ascii() {
            return None;
        }
        let (prefix, digits) = text.split_at(2);
        let dialect = match prefix.to_ascii_uppercase().as_str() {
            "HA" => Dialect::Agent,
            "HK" => Dialect::Plans,
            "HB" => Dialect::Values,
            _ => return None,
        };
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Code::new(dialect, digits.parse().ok()?))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:04}", self.dialect.code_prefix(), self.number)
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A secondary span with its own message ("the plan is declared here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there.
    pub message: String,
}

/// One finding about the sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// One line saying what is wrong.
    pub message: String,
    /// Where it is wrong.
    pub span: Span,
    /// Printed beside the caret under `span` (may be empty).
    pub label: String,
    /// Other places that explain the finding.
    pub secondary: Vec<Label>,
    /// Further facts ("note: …").
    pub notes: Vec<String>,
    /// How to fix it ("help: …").
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error with `code` at `span`.
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Error, span, message)
    }

    /// A warning with `code` at `span`.
    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Warning, span, message)
    }

    fn new(code: Code, severity: Severity, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    /// Sets the label under the primary span.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_print_and_parse() {
        let c = Code::new(Dialect::Plans, 69);
        assert_eq!(c.to_string(), "HK0069");
        assert_eq!(Code::parse("hk0069"), Some(c));
        assert_eq!(Code::parse("HX0001"), None);
        assert_eq!(Code::parse("HK69"), None);
        assert_eq!(Code::parse("HKé001"), None);
    }
}
