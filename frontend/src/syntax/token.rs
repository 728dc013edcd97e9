//! Tokens shared by the three dialects. Each operator has one kind whatever its spelling, so
//! `≔` and `:=` (and every other Unicode/ASCII pair of `language.md` §1) lex to the same token.

use crate::source::Span;
use std::fmt;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`, other than the word operators `and`, `or`, `not`.
    Ident,
    /// A decimal integer literal.
    Int,
    /// A decimal literal with a fractional part (`0.5`), used by `.hb` and `value`.
    Float,
    /// A double-quoted string literal.
    Str,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `.`
    Dot,
    /// `;` sequence
    Semi,
    /// `≔` or `:=`
    Define,
    /// `↦` or `=>`
    MapsTo,
    /// `→` or `->` (send)
    SendArrow,
    /// `←` or `<-` (receive)
    RecvArrow,
    /// `□` or `[]` (external choice)
    Choice,
    /// `‖` or `||` (parallel)
    Parallel,
    /// `△` or `/\` (interrupt)
    Interrupt,
    /// `∧` or `and`
    And,
    /// `∨` or `or`
    Or,
    /// `¬` or `not`
    Not,
    /// `=`
    Eq,
    /// `≠` or `!=`
    Ne,
    /// `<`
    Lt,
    /// `≤` or `<=`
    Le,
    /// `>`
    Gt,
    /// `≥` or `>=`
    Ge,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// A character no dialect uses (a diagnostic has been reported).
    Unknown,
    /// End of file.
    Eof,
}

impl TokenKind {
    /// How the token is described in "expected …, found …" messages.
    pub fn describe(self) -> &'static str {
        use TokenKind::*;
        match self {
            Ident => "a name",
            Int => "an integer",
            Float => "a decimal number",
            Str => "a string",
            LParen => "`(`",
            RParen => "`)`",
            LBrace => "`{`",
            RBrace => "`}`",
            LBracket => "`[`",
            RBracket => "`]`",
            Comma => "`,`",
            Colon => "`:`",
            Dot => "`.`",
            Semi => "`;`",
            Define => "`≔` (`:=`)",
            MapsTo => "`↦` (`=>`)",
            SendArrow => "`→` (`->`)",
            RecvArrow => "`←` (`<-`)",
            Choice => "`□` (`[]`)",
            Parallel => "`‖` (`||`)",
            Interrupt => "`△` (`/\\`)",
            And => "`∧` (`and`)",
            Or => "`∨` (`or`)",
            Not => "`¬` (`not`)",
            Eq => "`=`",
            Ne => "`≠` (`!=`)",
            Lt => "`<`",
            Le => "`≤` (`<=`)",
            Gt => "`>`",
            Ge => "`≥` (`>=`)",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            Slash => "`/`",
            Percent => "`%`",
            Unknown => "an unknown character",
            Eof => "the end of the file",
        }
    }
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// A token: its kind and where it is. Its text is `file.slice(span)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
    /// Whether it is the first token on its line (error recovery resynchronises there).
    pub line_start: bool,
}
