//! The lexer: text to tokens, for every dialect. It never fails: a character no dialect uses
//! becomes an [`TokenKind::Unknown`] token and a diagnostic, and lexing goes on.

use super::codes;
use super::token::{Token, TokenKind};
use crate::diagnostic::Diagnostic;
use crate::source::{SourceFile, Span};

/// Splits a file into tokens. The last token is always [`TokenKind::Eof`].
pub fn lex(file: &SourceFile) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut lexer = Lexer {
        file,
        bytes: file.text.as_bytes(),
        pos: 0,
        tokens: Vec::with_capacity(token_bound(&file.text)),
        diagnostics: Vec::new(),
        line_start: true,
    };
    lexer.run();
    (lexer.tokens, lexer.diagnostics)
}

/// An upper bound on the tokens of `text`: every token but the end has a byte that is not
/// white space. Reserving that many once costs no memory the tokens do not use (a large
/// allocation's untouched pages are never resident), where a growing vector would copy them and
/// leave the copies to the allocator (issue 17).
fn token_bound(text: &str) -> usize {
    text.bytes().filter(|b| !b.is_ascii_whitespace()).count() + 1
}

/// Tokens lexed between two counts against the front end's share of `--max-memory`.
const TICK: usize = 4096;

/// Lexical errors beyond this many in one file are summarised, not listed.
const MAX_LEX_ERRORS: usize = 50;

struct Lexer<'a> {
    file: &'a SourceFile,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diagnostics: Vec<Diagnostic>,
    line_start: bool,
}

impl Lexer<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file.id, start..end)
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: self.span(start, self.pos),
            line_start: self.line_start,
        });
        self.line_start = false;
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        if self.diagnostics.len() < MAX_LEX_ERRORS {
            self.diagnostics.push(diagnostic);
        }
    }

    fn peek(&self, offset: usize) -> u8 {
        self.bytes.get(self.pos + offset).copied().unwrap_or(0)
    }

    /// Lexes the file. Its tokens are counted against the front end's share of `--max-memory`
    /// ([`crate::gauge::tick`]): past it (or once the front end is past it) the file ends
    /// there.
    fn run(&mut self) {
        let dialect = self.file.dialect;
        let mut counted = 0;
        while self.pos < self.bytes.len() {
            if self.tokens.len() >= counted + TICK {
                counted = self.tokens.len();
                if crate::gauge::tick(crate::gauge::Phase::Lexing, TICK) {
                    break;
                }
            }
            let start = self.pos;
            let b = self.bytes[self.pos];
            match b {
                // A line ends at `\n`, at `\r\n`, and at a `\r` alone (as `SourceFile` counts).
                b'\n' => {
                    self.pos += 1;
                    self.line_start = true;
                }
                b'\r' if self.peek(1) != b'\n' => {
                    self.pos += 1;
                    self.line_start = true;
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                // A byte order mark at the start of a file is no character of the text.
                0xEF if start == 0 && self.file.text.starts_with('\u{feff}') => self.pos += 3,
                b'-' if self.peek(1) == b'-' => {
                    while self.pos < self.bytes.len()
                        && !matches!(self.bytes[self.pos], b'\n' | b'\r')
                    {
                        self.pos += 1;
                    }
                }
                b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                    while matches!(self.peek(0), b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_') {
                        self.pos += 1;
                    }
                    let kind = match &self.file.text[start..self.pos] {
                        "and" => TokenKind::And,
                        "or" => TokenKind::Or,
                        "not" => TokenKind::Not,
                        _ => TokenKind::Ident,
                    };
                    self.push(kind, start);
                }
                b'0'..=b'9' => self.number(start),
                b'"' => self.string(start),
                _ if b < 0x80 => {
                    let (kind, len) = ascii_operator(b, self.peek(1));
                    self.pos += len;
                    if kind == TokenKind::Unknown {
                        let ch = b as char;
                        let d = Diagnostic::error(
                            codes::unexpected_character(dialect),
                            self.span(start, self.pos),
                            format!("unexpected character `{}`", ch.escape_default()),
                        )
                        .with_label("no Hilbert dialect uses this character")
                        .with_help(match b {
                            b'|' => "parallel composition is `‖` or `||`; disjunction is `∨` or `or`",
                            b'&' => "conjunction is `∧` or `and`",
                            b'!' => "negation is `¬` or `not`; `≠` is `!=`",
                            _ => "names are ASCII letters, digits and `_`; see `hilbert explain` for the operators",
                        });
                        self.error(d);
                    }
                    self.push(kind, start);
                }
                _ => {
                    let ch = self.file.text[start..].chars().next().unwrap_or('\u{fffd}');
                    self.pos += ch.len_utf8();
                    let kind = unicode_operator(ch);
                    if kind == TokenKind::Unknown {
                        let mut d = Diagnostic::error(
                            codes::unexpected_character(dialect),
                            self.span(start, self.pos),
                            format!("unexpected character `{ch}` (U+{:04X})", ch as u32),
                        )
                        .with_label("no Hilbert dialect uses this character");
                        d = if ch.is_alphabetic() {
                            d.with_help("names are ASCII only: letters, digits and `_`")
                        } else {
                            d.with_help(
                                "the operators are ≔ ↦ → ← □ ‖ △ ∧ ∨ ¬ ≠ ≤ ≥, or their ASCII spellings",
                            )
                        };
                        self.error(d);
                    }
                    self.push(kind, start);
                }
            }
        }
        if self.diagnostics.len() >= MAX_LEX_ERRORS {
            let span = self.span(self.pos, self.pos);
            self.diagnostics.push(
                Diagnostic::error(
                    codes::too_many_errors(dialect),
                    span,
                    format!("too many unexpected characters; only the first {MAX_LEX_ERRORS} are listed"),
                )
                .with_note("this often means the file is not a Hilbert source at all (binary data, another language)"),
            );
        }
        crate::gauge::tick(crate::gauge::Phase::Lexing, self.tokens.len() - counted);
        let end = self.bytes.len();
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: self.span(end, end),
            line_start: true,
        });
    }

    fn number(&mut self, start: usize) {
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let mut kind = TokenKind::Int;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            self.pos += 1;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
            kind = TokenKind::Float;
        }
        if kind == TokenKind::Int && self.file.text[start..self.pos].parse::<i64>().is_err() {
            let d = Diagnostic::error(
                codes::integer_too_large(self.file.dialect),
                self.span(start, self.pos),
                "integer literal is too large",
            )
            .with_label(format!("literals must lie within ±{}", i64::MAX))
            .with_help("use a smaller constant; computed values are unbounded, literals are not");
            self.error(d);
        }
        self.push(kind, start);
    }

    fn string(&mut self, start: usize) {
        self.pos += 1;
        loop {
            match self.peek(0) {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    let esc = self.pos;
                    self.pos += 1;
                    match self.peek(0) {
                        b'"' | b'\\' | b'n' => self.pos += 1,
                        0 | b'\n' => {}
                        _ => {
                            let ch = self.file.text[self.pos..].chars().next().unwrap_or(' ');
                            self.pos += ch.len_utf8();
                            let d = Diagnostic::error(
                                codes::bad_escape(self.file.dialect),
                                self.span(esc, self.pos),
                                format!("unknown escape `\\{}` in a string", ch.escape_default()),
                            )
                            .with_help("strings know only `\\\"`, `\\\\` and `\\n`");
                            self.error(d);
                        }
                    }
                }
                0 if self.pos >= self.bytes.len() => {
                    self.unterminated(start);
                    break;
                }
                b'\n' => {
                    self.unterminated(start);
                    break;
                }
                _ => self.pos += 1,
            }
        }
        self.push(TokenKind::Str, start);
    }

    fn unterminated(&mut self, start: usize) {
        let d = Diagnostic::error(
            codes::unterminated_string(self.file.dialect),
            self.span(start, self.pos),
            "unterminated string",
        )
        .with_label("this string has no closing `\"` on its line")
        .with_help("close the string with `\"`; a string cannot span lines (write `\\n`)");
        self.error(d);
    }
}

/// Decodes the body of a string literal token (without its quotes) into its value.
pub fn unescape(token_text: &str) -> String {
    let inner = token_text.strip_prefix('"').unwrap_or(token_text);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn ascii_operator(b: u8, next: u8) -> (TokenKind, usize) {
    use TokenKind::*;
    match (b, next) {
        (b':', b'=') => (Define, 2),
        (b'=', b'>') => (MapsTo, 2),
        (b'-', b'>') => (SendArrow, 2),
        (b'<', b'-') => (RecvArrow, 2),
        (b'[', b']') => (Choice, 2),
        (b'|', b'|') => (Parallel, 2),
        (b'/', b'\\') => (Interrupt, 2),
        (b'!', b'=') => (Ne, 2),
        (b'<', b'=') => (Le, 2),
        (b'>', b'=') => (Ge, 2),
        (b'(', _) => (LParen, 1),
        (b')', _) => (RParen, 1),
        (b'{', _) => (LBrace, 1),
        (b'}', _) => (RBrace, 1),
        (b'[', _) => (LBracket, 1),
        (b']', _) => (RBracket, 1),
        (b',', _) => (Comma, 1),
        (b':', _) => (Colon, 1),
        (b'.', _) => (Dot, 1),
        (b';', _) => (Semi, 1),
        (b'=', _) => (Eq, 1),
        (b'<', _) => (Lt, 1),
        (b'>', _) => (Gt, 1),
        (b'+', _) => (Plus, 1),
        (b'-', _) => (Minus, 1),
        (b'*', _) => (Star, 1),
        (b'/', _) => (Slash, 1),
        (b'%', _) => (Percent, 1),
        _ => (Unknown, 1),
    }
}

fn unicode_operator(c: char) -> TokenKind {
    use TokenKind::*;
    match c {
        '≔' => Define,
        '↦' => MapsTo,
        '→' => SendArrow,
        '←' => RecvArrow,
        '□' => Choice,
        '‖' => Parallel,
        '△' => Interrupt,
        '∧' => And,
        '∨' => Or,
        '¬' => Not,
        '≠' => Ne,
        '≤' => Le,
        '≥' => Ge,
        _ => Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Dialect, FileId};

    fn kinds(text: &str) -> Vec<TokenKind> {
        let f = SourceFile::new(FileId(0), "t.hk".into(), Dialect::Plans, text.into());
        let (tokens, diags) = lex(&f);
        assert!(diags.is_empty(), "{diags:?}");
        tokens.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn unicode_and_ascii_spellings_lex_alike() {
        use TokenKind::*;
        let unicode = kinds("x ≔ a → c ; y ← c □ P ‖ Q △ R ∧ ¬ s ∨ t ≠ u ≤ v ≥ w ↦");
        let ascii = kinds("x := a -> c ; y <- c [] P || Q /\\ R and not s or t != u <= v >= w =>");
        assert_eq!(unicode, ascii);
        assert_eq!(&unicode[..4], &[Ident, Define, Ident, SendArrow]);
    }

    #[test]
    fn comments_numbers_and_strings() {
        use TokenKind::*;
        assert_eq!(
            kinds("-- a comment\n12 0.5 \"a\\\"b\" made.count"),
            vec![Int, Float, Str, Ident, Dot, Ident, Eof]
        );
        assert_eq!(unescape("\"a\\\"b\\n\""), "a\"b\n");
    }

    #[test]
    fn bad_characters_are_reported_and_skipped() {
        let f = SourceFile::new(FileId(0), "t.ha".into(), Dialect::Agent, "a @ é \"x".into());
        let (tokens, diags) = lex(&f);
        let codes: Vec<String> = diags.iter().map(|d| d.code.to_string()).collect();
        assert_eq!(codes, ["HA0001", "HA0001", "HA0002"]);
        assert_eq!(tokens.last().map(|t| t.kind), Some(TokenKind::Eof));
    }
}
