//! The parsers of the three dialects: hand-written recursive descent over the shared tokens, with
//! one expression grammar for all of them and the process grammar of `language.md` §2.
//!
//! The parser never fails. On an unexpected token it reports `…0006` and resynchronises at the
//! next line that starts a declaration (or at the closing brace of the enclosing block), so one
//! file yields several errors. Nesting deeper than [`MAX_DEPTH`] and more than [`MAX_ERRORS`]
//! errors end the parse of that file with one diagnostic saying so: recursion is bounded, so no
//! input overflows the stack.

use super::ast::*;
use super::codes;
use super::lexer::{lex, unescape};
use super::token::{Token, TokenKind};
use crate::diagnostic::Diagnostic;
use crate::gauge;
use crate::source::{Dialect, SourceFile, Span};
use std::collections::HashMap;
use std::sync::Arc;

/// How deeply parentheses, braces and operators may nest before the parser says so.
pub const MAX_DEPTH: usize = 200;

/// A list of this many items or more reserves room for the rest at once
/// ([`Parser::push_part`]).
const LONG_LIST: usize = 4096;

/// Syntax errors beyond this many in one file end its parse.
pub const MAX_ERRORS: usize = 50;

/// `items` joined by `op` as a balanced tree, in order; each node spans its first item's start to
/// its last item's end.
fn balanced(op: BinOp, mut items: Vec<Expr>) -> Expr {
    if items.len() <= 1 {
        return items.pop().unwrap_or(Expr {
            kind: ExprKind::Error,
            span: Span {
                file: crate::source::FileId(0),
                start: 0,
                end: 0,
            },
        });
    }
    let right = items.split_off(items.len() / 2);
    let (lhs, rhs) = (balanced(op, items), balanced(op, right));
    let span = Span {
        file: lhs.span.file,
        start: lhs.span.start,
        end: rhs.span.end,
    };
    Expr {
        kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
        span,
    }
}

/// The stack the parser runs on. Recursion is bounded by [`MAX_DEPTH`]; a debug build needs a
/// few kilobytes per level, so the parse gets a stack of its own rather than trusting the
/// caller's (a test thread has 2 MiB).
pub const PARSER_STACK: usize = 64 << 20;

/// Parses one file in its dialect.
pub fn parse(file: &SourceFile) -> (Module, Vec<Diagnostic>) {
    parse_many(&[file]).pop().expect("one tree per file")
}

/// Parses files one after another on one thread of its own, each in its dialect, in order.
/// One thread for all of them: a thread per file would cost a thread's start for each, and each
/// thread's allocations come from pages of its own that the trees then keep alive (issue 17:
/// 10,000 agents in 20,000 files kept about 5 KB a file that way).
///
/// The parser's thread takes its caller's share of `--max-memory` ([`gauge`]) and hands back
/// its stop, if it had one.
pub fn parse_many(files: &[&SourceFile]) -> Vec<(Module, Vec<Diagnostic>)> {
    let caller = gauge::current();
    let all = move || {
        gauge::adopt(caller);
        let trees = files.iter().map(|f| parse_here(f)).collect();
        (trees, gauge::current())
    };
    let (trees, after) = parse_on_its_stack(all);
    gauge::adopt(after);
    trees
}

/// Runs `all` on a thread with the parser's stack ([`PARSER_STACK`]), or here if none can be
/// made.
fn parse_on_its_stack<T: Send>(all: impl FnOnce() -> T + Send + Copy) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("hilbert-parser".into())
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, all)
            .map_or_else(
                |_| all(),
                |h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            )
    })
}

/// Parses on the current thread (whose stack must be large enough: see [`PARSER_STACK`]).
fn parse_here(file: &SourceFile) -> (Module, Vec<Diagnostic>) {
    let (tokens, diagnostics) = lex(file);
    let mut p = Parser {
        file,
        dialect: file.dialect,
        tokens,
        pos: 0,
        prev_end: Span::new(file.id, 0..0),
        diagnostics,
        errors: 0,
        depth: 0,
        silent: false,
        speculating: false,
        speculation_failed: false,
        member_words: match file.dialect {
            Dialect::Agent => AGENT_MEMBERS,
            Dialect::Plans => PLAN_FILE_WORDS,
            Dialect::Values => VALUE_FILE_WORDS,
        },
        names: HashMap::new(),
        next_count: 4096,
    };
    if p.peek() == TokenKind::Eof {
        p.empty_file();
    }
    let module = match file.dialect {
        Dialect::Agent => Module::Agents(p.agent_file()),
        Dialect::Plans => Module::Plans(p.plan_file()),
        Dialect::Values => Module::Values(p.values_file()),
    };
    (module, p.diagnostics)
}

/// Words that begin a member of an agent (error recovery resumes at them).
const AGENT_MEMBERS: &[&str] = &[
    "belief",
    "desire",
    "commit",
    "attention",
    "intend",
    "achieved",
    "impossible",
    "when",
    "reward",
    "value",
    "plan",
    "assert",
];

/// Words that begin a member of a plan block.
const PLAN_MEMBERS: &[&str] = &["body", "on"];

/// Words that begin an item of a values block.
const VALUE_ITEMS: &[&str] = &["option", "value", "policy"];

/// Words that start a declaration of a `.hk` file on a new line.
const PLAN_FILE_WORDS: &[&str] = &["plan", "body", "on"];

/// Words that start a declaration of a `.hb` file on a new line.
const VALUE_FILE_WORDS: &[&str] = &["values", "option", "value", "policy"];

/// Words that cannot begin a process (they end the one before them).
const NOT_A_PROCESS: &[&str] = &["when", "other", "plan", "body", "on"];

struct Parser<'a> {
    file: &'a SourceFile,
    dialect: Dialect,
    tokens: Vec<Token>,
    pos: usize,
    prev_end: Span,
    diagnostics: Vec<Diagnostic>,
    errors: usize,
    depth: usize,
    /// Set once the parse has given up on the file: no further diagnostics.
    silent: bool,
    /// Set while trying a parse that may be taken back (a parenthesised value before `→`).
    speculating: bool,
    speculation_failed: bool,
    /// Words that start a declaration on a new line in this dialect.
    member_words: &'static [&'static str],
    /// The file's names, each allocated once (see [`Name`]).
    names: HashMap<&'a str, Name>,
    /// The token past which the next 4,096 are counted ([`Parser::bump`]).
    next_count: usize,
}

impl<'a> Parser<'a> {
    // ------------------------------------------------------------ tokens

    /// Adds an item to a list whose items are separated by one of `seps` (arguments, the parts
    /// of a sequence, the terms of a chain), growing it as little as it can: a list starts with
    /// room for one item, and a list that reaches [`LONG_LIST`] items makes room at once for as
    /// many more as there are separators ahead ([`Parser::seps_ahead`]). A doubling vector would
    /// copy a 300,000-step sequence twenty times over, and the allocator keeps what it frees for
    /// a while: issue 17 measured 93 bytes of memory per source byte.
    ///
    /// The room a long list makes is read against the front end's share of `--max-memory`
    /// first ([`gauge::past`]): past it the parse stops ([`Parser::stop`]).
    fn push_part<T>(&mut self, parts: &mut Vec<T>, item: T, seps: &[TokenKind]) {
        if parts.capacity() == 0 {
            parts.reserve_exact(1);
        } else if parts.len() == LONG_LIST {
            let more = self.seps_ahead(seps) + 1;
            let room = more.saturating_mul(std::mem::size_of::<T>()) as u64;
            if gauge::past(gauge::Phase::Parsing, room) {
                self.stop();
            } else {
                parts.reserve_exact(more);
            }
        }
        parts.push(item);
    }

    /// Stops the parse for the front end's share of `--max-memory` ([`gauge`]): the tokens
    /// after this one are dropped and the parser sees the end of the file here, reporting
    /// nothing more (the caller drops the cut tree and its diagnostics, and names the bound).
    fn stop(&mut self) {
        self.silent = true;
        self.tokens.truncate(self.pos);
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: self.prev_end,
            line_start: true,
        });
    }

    /// An upper bound on the items left in the list being parsed, whose items are separated by
    /// any of `seps`: those tokens from here to the first closing bracket that closes nothing
    /// opened after here, a word that begins a declaration at the start of a line, or the end of
    /// the file. Asked once per list of [`LONG_LIST`] items or more, so the scans of nested long
    /// lists cost the tokens of each such list once per long list around it.
    fn seps_ahead(&self, seps: &[TokenKind]) -> usize {
        let mut depth = 0usize;
        let mut n = 0;
        for t in &self.tokens[self.pos..] {
            match t.kind {
                TokenKind::LParen | TokenKind::LBrace | TokenKind::LBracket => depth += 1,
                TokenKind::RParen | TokenKind::RBrace | TokenKind::RBracket => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                TokenKind::Ident
                    if t.line_start && self.member_words.contains(&self.file.slice(t.span)) =>
                {
                    break;
                }
                k if depth == 0 && seps.contains(&k) => n += 1,
                _ => {}
            }
        }
        n
    }

    /// The name a token spells, shared with every other occurrence in the file.
    fn intern(&mut self, t: Token) -> Name {
        let text: &'a str = self.file.slice(t.span);
        self.names
            .entry(text)
            .or_insert_with(|| Name::from(text))
            .clone()
    }

    fn tok(&self) -> Token {
        self.tokens[self.pos]
    }

    fn peek(&self) -> TokenKind {
        self.tokens[self.pos].kind
    }

    fn peek_at(&self, n: usize) -> TokenKind {
        self.tokens
            .get(self.pos + n)
            .map_or(TokenKind::Eof, |t| t.kind)
    }

    fn text(&self, t: Token) -> &'a str {
        self.file.slice(t.span)
    }

    fn at_eof(&self) -> bool {
        self.peek() == TokenKind::Eof
    }

    /// Whether the current token is the word `kw`.
    fn at_kw(&self, kw: &str) -> bool {
        let t = self.tok();
        t.kind == TokenKind::Ident && self.text(t) == kw
    }

    /// Consumes the current token. Tokens are counted against the front end's share of
    /// `--max-memory` ([`gauge::tick`]), 4,096 at a time: past it the parse stops.
    fn bump(&mut self) -> Token {
        let t = self.tok();
        if t.kind != TokenKind::Eof {
            self.pos += 1;
            self.prev_end = t.span.end_point();
            if self.pos >= self.next_count {
                self.next_count = self.pos + 4096;
                if gauge::tick(gauge::Phase::Parsing, 4096) {
                    self.stop();
                }
            }
        }
        t
    }

    fn eat(&mut self, kind: TokenKind) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.at_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// The span from `start` to the end of the last token consumed.
    fn since(&self, start: Span) -> Span {
        if self.prev_end.end < start.start {
            start
        } else {
            Span {
                file: start.file,
                start: start.start,
                end: self.prev_end.end,
            }
        }
    }

    // ------------------------------------------------------------ errors

    fn report(&mut self, diagnostic: Diagnostic) {
        if self.speculating {
            self.speculation_failed = true;
            return;
        }
        if self.silent {
            return;
        }
        // One error per place: a second complaint about the same token is a cascade.
        if self.diagnostics.last().is_some_and(|last| {
            last.span.file == diagnostic.span.file && last.span.start == diagnostic.span.start
        }) {
            return;
        }
        self.errors += 1;
        self.diagnostics.push(diagnostic);
        if self.errors >= MAX_ERRORS {
            let span = self.tok().span;
            self.diagnostics.push(
                Diagnostic::error(
                    codes::too_many_errors(self.dialect),
                    span,
                    "too many syntax errors; the rest of the file was not read",
                )
                .with_label("parsing stopped here")
                .with_note(format!(
                    "after {MAX_ERRORS} errors the parser stops: later errors are usually consequences of earlier ones"
                ))
                .with_help("fix the first errors and check again"),
            );
            self.give_up();
        }
    }

    /// Stops parsing this file: jump to its end and report nothing more.
    fn give_up(&mut self) {
        self.silent = true;
        self.pos = self.tokens.len() - 1;
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            TokenKind::Ident => format!("`{}`", self.text(t)),
            TokenKind::Int | TokenKind::Float => format!("`{}`", self.text(t)),
            TokenKind::Str => "a string".to_string(),
            k => k.describe().to_string(),
        }
    }

    /// Reports that `expected` was wanted here.
    fn unexpected(&mut self, expected: &str) {
        let t = self.tok();
        if t.kind == TokenKind::Unknown {
            // The lexer has already reported this character.
            if !self.speculating {
                return;
            }
            self.speculation_failed = true;
            return;
        }
        let found = self.describe(t);
        // What is missing at the end of a line is reported there, not on the next line.
        let span = if t.line_start && self.pos > 0 {
            self.prev_end
        } else {
            t.span
        };
        let mut d = Diagnostic::error(
            codes::unexpected_token(self.dialect),
            span,
            format!("expected {expected}, found {found}"),
        )
        .with_label(format!("expected {expected}"));
        if let Some(help) = self
            .hint_for(t)
            .or_else(|| self.missing_semicolon(t, expected))
        {
            d = d.with_help(help);
        }
        self.report(d);
    }

    /// A help line for common slips.
    fn hint_for(&self, t: Token) -> Option<String> {
        let text = self.text(t);
        match (t.kind, text) {
            (TokenKind::Eq, _) => Some("definitions are written `≔` (ASCII `:=`)".into()),
            (TokenKind::Colon, _) if self.peek_at(1) == TokenKind::Eq => {
                Some("write `:=` without a space, or `≔`".into())
            }
            (TokenKind::Ident, "skip" | "Skip") => Some("the finished process is `SKIP`".into()),
            _ => None,
        }
    }

    /// In a plan, where a group should close but a new process begins on the same line, the
    /// likely slip is a missing `;` between two processes of a sequence.
    fn missing_semicolon(&self, t: Token, expected: &str) -> Option<String> {
        let closing = [TokenKind::RParen, TokenKind::RBrace]
            .iter()
            .any(|k| k.describe() == expected);
        let starts_process = match t.kind {
            TokenKind::Ident => {
                matches!(
                    self.text(t),
                    "believe" | "forget" | "tell" | "SKIP" | "STOP"
                ) || matches!(
                    self.peek_at(1),
                    TokenKind::LParen | TokenKind::RecvArrow | TokenKind::SendArrow
                )
            }
            TokenKind::Int | TokenKind::Str => self.peek_at(1) == TokenKind::SendArrow,
            _ => false,
        };
        (self.dialect == Dialect::Plans && closing && starts_process && !t.line_start).then(|| {
            format!(
                "is a `;` missing before {}? the processes of a sequence are joined by `;`",
                self.describe(t)
            )
        })
    }

    fn expect(&mut self, kind: TokenKind, expected: &str) -> Option<Token> {
        if self.peek() == kind {
            Some(self.bump())
        } else {
            self.unexpected(expected);
            None
        }
    }

    /// Expects the closing delimiter of `open`; at the end of the file says it was never closed.
    fn expect_close(&mut self, open: Token, close: TokenKind) -> bool {
        if self.eat(close) {
            return true;
        }
        if self.at_eof() {
            let d = Diagnostic::error(
                codes::unclosed_delimiter(self.dialect),
                open.span,
                format!("{} is never closed", open.kind.describe()),
            )
            .with_label("opened here")
            .with_secondary(
                self.tok().span,
                format!("the file ends before {}", close.describe()),
            )
            .with_help(format!("add {} where the group ends", close.describe()));
            self.report(d);
        } else {
            self.unexpected(close.describe());
        }
        false
    }

    fn ident(&mut self, what: &str) -> Option<Ident> {
        let t = self.tok();
        // A declaration keyword starting the next line is not this line's missing name.
        if t.kind == TokenKind::Ident && t.line_start && self.member_words.contains(&self.text(t)) {
            self.unexpected(what);
            return None;
        }
        if self.peek() == TokenKind::Ident {
            let t = self.bump();
            Some(Ident {
                name: self.intern(t),
                span: t.span,
            })
        } else {
            self.unexpected(what);
            None
        }
    }

    /// An identifier, or an error placeholder (the error is reported).
    fn ident_or_error(&mut self, what: &str) -> Ident {
        let span = self.tok().span;
        self.ident(what).unwrap_or(Ident {
            name: Name::default(),
            span,
        })
    }

    fn expect_kw(&mut self, kw: &str) -> bool {
        if self.eat_kw(kw) {
            true
        } else {
            self.unexpected(&format!("`{kw}`"));
            false
        }
    }

    /// Enters one level of nesting; false (and the parse ends) past [`MAX_DEPTH`].
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            if self.speculating {
                self.speculation_failed = true;
                return false;
            }
            if !self.silent {
                let span = self.tok().span;
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::nesting_too_deep(self.dialect),
                        span,
                        format!("nesting deeper than {MAX_DEPTH} levels"),
                    )
                    .with_label("too deep here")
                    .with_note("the rest of the file was not read")
                    .with_help("split the process or expression into named plans or values; no real plan nests this deep"),
                );
            }
            self.give_up();
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips tokens until a line that starts with one of `words`, a `}` closing the current block
    /// (not consumed), or the end of the file. Braces opened while skipping are skipped whole.
    fn sync(&mut self, words: &[&str]) {
        // Callers that consumed nothing make progress themselves.
        let mut braces = 0usize;
        while !self.at_eof() {
            let t = self.tok();
            match t.kind {
                TokenKind::LBrace => braces += 1,
                TokenKind::RBrace if braces == 0 => return,
                TokenKind::RBrace => braces -= 1,
                TokenKind::Ident
                    if braces == 0 && t.line_start && words.contains(&self.text(t)) =>
                {
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn empty_file(&mut self) {
        let (what, example) = match self.dialect {
            Dialect::Agent => ("an agent", "agent Name() : Agency { … }"),
            Dialect::Plans => ("a plan", "plan Name() : Agent ≔ SKIP"),
            Dialect::Values => ("a values block", "values Agent { … }"),
        };
        let d = Diagnostic::error(
            codes::empty_file(self.dialect),
            self.tok().span,
            format!("this file is empty: it should declare {what}"),
        )
        .with_label("nothing but whitespace and comments up to here")
        .with_help(format!(
            "declare {what}, e.g. `{example}`, or delete the file"
        ));
        self.report(d);
    }

    // ------------------------------------------------------------ shared pieces

    fn type_expr(&mut self) -> TypeExpr {
        let start = self.tok().span;
        if !self.enter() {
            return TypeExpr {
                kind: TypeKind::Error,
                span: start,
            };
        }
        let kind = match self.ident("a type (`Int`, `String`, `Bool` or `chan T`)") {
            None => TypeKind::Error,
            Some(id) => match id.name.as_str() {
                "Int" => TypeKind::Int,
                "String" => TypeKind::String,
                "Bool" => TypeKind::Bool,
                "Float" => TypeKind::Float,
                "chan" => TypeKind::Chan(Box::new(self.type_expr())),
                _ => TypeKind::Named(id),
            },
        };
        self.leave();
        TypeExpr {
            kind,
            span: self.since(start),
        }
    }

    /// `( name: T, … )`; absent parentheses mean no parameters.
    fn params(&mut self) -> Vec<Param> {
        let mut params = Vec::new();
        let Some(open) = (self.peek() == TokenKind::LParen).then(|| self.bump()) else {
            return params;
        };
        while self.peek() != TokenKind::RParen && !self.at_eof() {
            let before = self.pos;
            let Some(name) = self.ident("a parameter name") else {
                self.skip_to_close_paren();
                break;
            };
            if self
                .expect(TokenKind::Colon, "`:` and the parameter's type")
                .is_none()
            {
                self.skip_to_close_paren();
                break;
            }
            let ty = self.type_expr();
            params.push(Param { name, ty });
            if !self.eat(TokenKind::Comma) {
                break;
            }
            if self.pos == before {
                break;
            }
        }
        self.expect_close(open, TokenKind::RParen);
        params
    }

    /// Skips to the `)` closing the current list (not consumed), staying on the line.
    fn skip_to_close_paren(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            match self.peek() {
                TokenKind::LParen => depth += 1,
                TokenKind::RParen if depth == 0 => return,
                TokenKind::RParen => depth -= 1,
                TokenKind::LBrace | TokenKind::RBrace => return,
                _ if self.tok().line_start => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// `( e, … )` after a name.
    fn args(&mut self) -> Vec<Expr> {
        let mut args = Vec::new();
        let Some(open) = self.expect(TokenKind::LParen, "`(`") else {
            return args;
        };
        while self.peek() != TokenKind::RParen && !self.at_eof() {
            let before = self.pos;
            let arg = self.expr();
            self.push_part(&mut args, arg, &[TokenKind::Comma]);
            if self.pos == before {
                self.skip_to_close_paren();
                break;
            }
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        self.expect_close(open, TokenKind::RParen);
        args.shrink_to_fit();
        args
    }

    fn atom(&mut self) -> Atom {
        let start = self.tok().span;
        let pred = self.ident_or_error("a belief, such as `made(n)`");
        let args = if self.peek() == TokenKind::LParen {
            self.args()
        } else {
            Vec::new()
        };
        Atom {
            pred,
            args,
            span: self.since(start),
        }
    }

    // ------------------------------------------------------------ expressions

    fn error_expr(&self, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Error,
            span,
        }
    }

    /// A full expression: `∨` is loosest.
    fn expr(&mut self) -> Expr {
        let start = self.tok().span;
        if !self.enter() {
            return self.error_expr(start);
        }
        let e = self.binary_level(0);
        self.leave();
        e
    }

    /// Binary operators by level: 0 `∨`, 1 `∧`, 2 comparisons, 3 `+ -`, 4 `* / %`.
    fn binary_level(&mut self, level: u8) -> Expr {
        if level == 2 {
            return self.comparison();
        }
        if level > 4 {
            return self.not_expr();
        }
        if level < 2 {
            return self.flat_chain(level);
        }
        self.arith_chain(level)
    }

    /// A chain of `+ -` (level 3) or `* / %` (level 4), read in a loop: one operator gives a
    /// [`ExprKind::Binary`], more give one [`ExprKind::Chain`]. The chain is not regrouped (it
    /// is evaluated left to right with checked arithmetic, and where that overflows depends on
    /// the grouping); it is kept flat, so its length does not count against [`MAX_DEPTH`].
    fn arith_chain(&mut self, level: u8) -> Expr {
        let start = self.tok().span;
        let first = self.binary_level(level + 1);
        let mut rest = Vec::new();
        loop {
            let op = match (level, self.peek()) {
                (3, TokenKind::Plus) => BinOp::Add,
                (3, TokenKind::Minus) => BinOp::Sub,
                (4, TokenKind::Star) => BinOp::Mul,
                (4, TokenKind::Slash) => BinOp::Div,
                (4, TokenKind::Percent) => BinOp::Rem,
                _ => break,
            };
            self.bump();
            let rhs = self.binary_level(level + 1);
            let ops: &[TokenKind] = if level == 3 {
                &[TokenKind::Plus, TokenKind::Minus]
            } else {
                &[TokenKind::Star, TokenKind::Slash, TokenKind::Percent]
            };
            self.push_part(&mut rest, (op, rhs), ops);
        }
        let span = self.since(start);
        match rest.len() {
            0 => first,
            1 => {
                let (op, rhs) = rest.pop().expect("one operator");
                Expr {
                    kind: ExprKind::Binary(op, Box::new(first), Box::new(rhs)),
                    span,
                }
            }
            _ => {
                rest.shrink_to_fit();
                Expr {
                    kind: ExprKind::Chain {
                        first: Box::new(first),
                        rest,
                    },
                    span,
                }
            }
        }
    }

    /// A chain of `∨` (level 0) or `∧` (level 1), read in a loop and built as a balanced tree:
    /// a flat chain of any length is not deep (its depth is the logarithm of its length), so it
    /// does not count against [`MAX_DEPTH`]. Both are associative, and every pass reads a
    /// tree left to right, so the balanced tree means what the left-leaning one did (a `∧`'s
    /// bindings are still visible to everything on its right).
    fn flat_chain(&mut self, level: u8) -> Expr {
        let op = if level == 0 { BinOp::Or } else { BinOp::And };
        let token = if level == 0 {
            TokenKind::Or
        } else {
            TokenKind::And
        };
        let mut items = Vec::new();
        let first = self.binary_level(level + 1);
        self.push_part(&mut items, first, &[token]);
        while self.peek() == token {
            self.bump();
            let item = self.binary_level(level + 1);
            self.push_part(&mut items, item, &[token]);
        }
        balanced(op, items)
    }

    fn comparison_op(&self) -> Option<BinOp> {
        Some(match self.peek() {
            TokenKind::Eq => BinOp::Eq,
            TokenKind::Ne => BinOp::Ne,
            TokenKind::Lt => BinOp::Lt,
            TokenKind::Le => BinOp::Le,
            TokenKind::Gt => BinOp::Gt,
            TokenKind::Ge => BinOp::Ge,
            _ => return None,
        })
    }

    fn comparison(&mut self) -> Expr {
        let start = self.tok().span;
        let lhs = self.binary_level(3);
        let Some(op) = self.comparison_op() else {
            return lhs;
        };
        self.bump();
        let rhs = self.binary_level(3);
        let e = Expr {
            kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            span: self.since(start),
        };
        if self.comparison_op().is_some() {
            let t = self.tok();
            let d = Diagnostic::error(
                codes::unexpected_token(self.dialect),
                t.span,
                "comparisons do not chain",
            )
            .with_label("a second comparison")
            .with_help("write `a < b ∧ b < c`");
            self.report(d);
            self.bump();
            self.binary_level(3);
        }
        e
    }

    /// `¬ e` binds tighter than `∧` and looser than comparisons; unary minus binds tightest.
    fn not_expr(&mut self) -> Expr {
        let start = self.tok().span;
        let op = match self.peek() {
            TokenKind::Not => UnOp::Not,
            TokenKind::Minus => UnOp::Neg,
            _ => return self.primary(),
        };
        if !self.enter() {
            return self.error_expr(start);
        }
        self.bump();
        let operand = if op == UnOp::Not {
            // `¬ n < 3` is `¬ (n < 3)`.
            self.comparison()
        } else {
            self.not_expr()
        };
        self.leave();
        Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            span: self.since(start),
        }
    }

    fn primary(&mut self) -> Expr {
        let t = self.tok();
        let start = t.span;
        let kind = match t.kind {
            TokenKind::Int => {
                self.bump();
                // An out-of-range literal was reported by the lexer.
                self.text(t).parse().map_or(ExprKind::Error, ExprKind::Int)
            }
            TokenKind::Float => {
                self.bump();
                self.text(t)
                    .parse()
                    .map_or(ExprKind::Error, ExprKind::Float)
            }
            TokenKind::Str => {
                self.bump();
                ExprKind::Str(unescape(self.text(t)))
            }
            TokenKind::LParen => {
                let open = self.bump();
                let inner = self.expr();
                self.expect_close(open, TokenKind::RParen);
                return Expr {
                    kind: inner.kind,
                    span: self.since(start),
                };
            }
            TokenKind::Ident => return self.name_expr(),
            _ => {
                self.unexpected("a value or a condition");
                return self.error_expr(start);
            }
        };
        Expr {
            kind,
            span: self.since(start),
        }
    }

    fn name_expr(&mut self) -> Expr {
        let t = self.bump();
        let start = t.span;
        let name = self.text(t);
        let kind = match name {
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "_" => ExprKind::Wildcard,
            "B" if self.peek() == TokenKind::LParen => {
                let open = self.bump();
                let agent = self.ident_or_error("`self` or an agent's name");
                self.expect_close(open, TokenKind::RParen);
                let atom = self.atom();
                ExprKind::Believes {
                    agent: Box::new(agent),
                    atom: Box::new(atom),
                }
            }
            "attending" if self.peek() == TokenKind::Ident => {
                let a = self.ident_or_error("an attention");
                ExprKind::Attending(a)
            }
            "desires" if self.peek() == TokenKind::Ident => {
                ExprKind::Desires(self.ident_or_error("a desire"))
            }
            "intends" if self.peek() == TokenKind::Ident => {
                ExprKind::Intends(self.ident_or_error("a plan binding"))
            }
            _ => {
                let id = Ident {
                    name: self.intern(t),
                    span: start,
                };
                match self.peek() {
                    TokenKind::LParen => {
                        let args = self.args();
                        ExprKind::Call {
                            func: Box::new(id),
                            args,
                        }
                    }
                    TokenKind::Dot if self.peek_at(1) == TokenKind::Ident => {
                        self.bump();
                        let field = self.ident_or_error("a field name");
                        ExprKind::Field {
                            base: Box::new(id),
                            field: Box::new(field),
                        }
                    }
                    _ => ExprKind::Var(id),
                }
            }
        };
        Expr {
            kind,
            span: self.since(start),
        }
    }

    // ------------------------------------------------------------ .ha

    /// The declarations of a file, each beginning with `keyword`; anything else is reported and
    /// skipped to the next line that begins one.
    fn declarations<T>(&mut self, keyword: &str, decl: fn(&mut Self) -> T) -> Vec<T> {
        let mut out = Vec::new();
        while !self.at_eof() {
            if self.at_kw(keyword) {
                // Most files declare one agent or a few plans: room for one first, not four.
                if out.capacity() == 0 {
                    out.reserve_exact(1);
                }
                out.push(decl(self));
            } else {
                self.unexpected(&format!("`{keyword}`"));
                self.sync(&[keyword]);
                self.eat(TokenKind::RBrace);
            }
        }
        out
    }

    fn agent_file(&mut self) -> AgentFile {
        AgentFile {
            agents: self.declarations("agent", Self::agent),
        }
    }

    fn agent(&mut self) -> Agent {
        let start = self.bump().span;
        let name = self.ident_or_error("the agent's name");
        let params = self.params();
        let theory = if self.eat(TokenKind::Colon) {
            self.ident("the theory the agent instantiates, such as `Agency`")
        } else {
            None
        };
        let mut members = Vec::new();
        let Some(open) = self.expect(TokenKind::LBrace, "`{` and the agent's members") else {
            self.sync(&["agent"]);
            self.eat(TokenKind::RBrace);
            return Agent {
                name,
                params,
                theory,
                members,
                span: self.since(start),
            };
        };
        while self.peek() != TokenKind::RBrace && !self.at_eof() {
            // An `agent` at the start of a line means this one's `}` is missing.
            if self.at_kw("agent") && self.tok().line_start {
                break;
            }
            let before = self.pos;
            match self.member() {
                Some(m) => members.push(m),
                None => {
                    let mut words = AGENT_MEMBERS.to_vec();
                    words.push("agent");
                    self.sync(&words);
                }
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect_close(open, TokenKind::RBrace);
        Agent {
            name,
            params,
            theory,
            members,
            span: self.since(start),
        }
    }

    /// One member, or `None` after reporting why not (the caller resynchronises).
    fn member(&mut self) -> Option<Member> {
        let start = self.tok().span;
        if self.peek() != TokenKind::Ident || !AGENT_MEMBERS.contains(&self.text(self.tok())) {
            self.unexpected(
                "a member: `belief`, `desire`, `commit`, `attention`, `intend`, `achieved`, `impossible`, `when`, `reward`, `value`, `plan` or `assert`",
            );
            return None;
        }
        let kw_token = self.bump();
        let kw = self.text(kw_token).to_string();
        let kind = match kw.as_str() {
            "belief" => {
                let name = self.ident("the belief's name")?;
                let params = self.params();
                MemberKind::Belief { name, params }
            }
            "desire" => {
                let name = self.ident("the desire's name")?;
                let mut priority = self.priority();
                if !self.expect_kw("reachable") || !self.expect_kw("by") {
                    return None;
                }
                let reachable_by = self.name_list()?;
                if priority.is_none() {
                    priority = self.priority();
                }
                let fairness = self.fairness()?;
                if priority.is_none() {
                    priority = self.priority();
                }
                MemberKind::Desire {
                    name,
                    priority,
                    reachable_by,
                    fairness,
                }
            }
            "assert" => {
                let name = self.ident("the assertion's name")?;
                self.expect(TokenKind::Colon, "`:` and what the assertion says")?;
                let pattern = self.assert_pattern()?;
                let fairness = self.fairness()?;
                MemberKind::Assert {
                    name,
                    pattern,
                    fairness,
                }
            }
            "commit" => {
                let mut strategy =
                    self.ident("a commitment strategy: `blind`, `single_minded` or `open_minded`")?;
                // `single-minded`, written as one word with hyphens: take it whole, so that the
                // checker can say which strategy was meant.
                while self.peek() == TokenKind::Minus
                    && self.tok().span.start == strategy.span.end
                    && self.peek_at(1) == TokenKind::Ident
                    && self.tokens[self.pos + 1].span.start == self.tok().span.end
                {
                    self.bump();
                    let word = self.bump();
                    strategy.name = Name::from(format!("{}-{}", strategy.name, self.text(word)));
                    strategy.span.end = word.span.end;
                }
                MemberKind::Commit { strategy }
            }
            "attention" => {
                let name = self.ident("the attention's name")?;
                let initially = self.at_kw("initially").then(|| self.bump().span);
                MemberKind::Attention { name, initially }
            }
            "intend" => {
                let plan = self.ident("the plan intended")?;
                if !self.expect_kw("for") {
                    return None;
                }
                let desire = self.ident("the desire it serves")?;
                if !self.expect_kw("when") {
                    return None;
                }
                let cond = Arc::new(self.expr());
                MemberKind::Intend { plan, desire, cond }
            }
            "achieved" => {
                let desire = self.ident("the desire")?;
                if !self.expect_kw("when") {
                    return None;
                }
                let cond = Arc::new(self.expr());
                MemberKind::Achieved { desire, cond }
            }
            "impossible" => {
                let desire = self.ident("the desire")?;
                if !self.expect_kw("when") {
                    return None;
                }
                let cond = Arc::new(self.expr());
                let because = if self.eat_kw("because") {
                    let t = self.expect(TokenKind::Str, "a reason in quotes")?;
                    Some((unescape(self.text(t)), t.span))
                } else {
                    None
                };
                MemberKind::Impossible {
                    desire,
                    cond,
                    because,
                }
            }
            "when" => {
                let cond = Arc::new(self.expr());
                if !self.expect_kw("attend") {
                    return None;
                }
                let attention = self.ident("the attention to shift to")?;
                MemberKind::Attend { cond, attention }
            }
            "reward" => {
                let plan = self.ident("the plan rewarded")?;
                let polarity = if self.eat_kw("positive") {
                    Polarity::Positive
                } else if self.eat_kw("negative") {
                    Polarity::Negative
                } else {
                    self.unexpected("`positive` or `negative`");
                    return None;
                };
                if !self.expect_kw("when") {
                    return None;
                }
                let cond = Arc::new(self.expr());
                MemberKind::Reward {
                    plan,
                    polarity,
                    cond,
                }
            }
            "value" => {
                let name = self.ident("the value's name")?;
                self.expect(TokenKind::Define, "`≔` (`:=`)")?;
                let expr = self.expr();
                MemberKind::Value { name, expr }
            }
            _ => {
                // "plan"
                let name = self.ident("the plan's name in this agent")?;
                self.expect(TokenKind::MapsTo, "`↦` (`=>`) and the plan it runs")?;
                let first = self.ident("`File.Plan` or `host.name`")?;
                self.expect(TokenKind::Dot, "`.` (write `File.Plan` or `host.name`)")?;
                let second = self.ident("the plan's name")?;
                let target = if first.name == "host" {
                    PlanTarget::Host { name: second }
                } else {
                    PlanTarget::Process {
                        file: first,
                        plan: second,
                    }
                };
                let args = if self.peek() == TokenKind::LParen {
                    self.args()
                } else {
                    Vec::new()
                };
                MemberKind::Plan { name, target, args }
            }
        };
        Some(Member {
            kind,
            span: self.since(start),
        })
    }

    /// `always φ`, `never φ`, `eventually φ`, `φ leads to ψ` or `ψ precedes φ`: the pattern
    /// words bind looser than every operator of a condition, and patterns do not nest.
    fn assert_pattern(&mut self) -> Option<AssertPattern> {
        for (word, make) in [
            (
                "always",
                AssertPattern::Always as fn(Arc<Expr>) -> AssertPattern,
            ),
            ("never", AssertPattern::Never),
            ("eventually", AssertPattern::Eventually),
        ] {
            if self.eat_kw(word) {
                return Some(make(Arc::new(self.expr())));
            }
        }
        let first = Arc::new(self.expr());
        if self.at_kw("leads") && self.peek_at(1) == TokenKind::Ident {
            self.bump();
            if !self.expect_kw("to") {
                return None;
            }
            return Some(AssertPattern::LeadsTo(first, Arc::new(self.expr())));
        }
        if self.eat_kw("precedes") {
            return Some(AssertPattern::Precedes(first, Arc::new(self.expr())));
        }
        self.unexpected(
            "a pattern: `always φ`, `never φ`, `eventually φ`, `φ leads to ψ` or `ψ precedes φ`",
        );
        None
    }

    /// `under F fairness`, if written (`None` inside when it is not; the outer `None` after an
    /// error).
    fn fairness(&mut self) -> Option<Option<(Ident, Span)>> {
        let start = self.tok().span;
        if !self.eat_kw("under") {
            return Some(None);
        }
        let word = self.ident("the fairness: `weak`")?;
        if !self.expect_kw("fairness") {
            return None;
        }
        Some(Some((word, self.since(start))))
    }

    fn priority(&mut self) -> Option<(i64, Span)> {
        if !self.eat_kw("priority") {
            return None;
        }
        let negative = self.eat(TokenKind::Minus);
        let t = self.expect(TokenKind::Int, "the priority, an integer")?;
        let n: i64 = self.text(t).parse().ok()?;
        Some((if negative { -n } else { n }, self.since(t.span)))
    }

    /// `[A, B, …]` (`[]` lexes as the choice operator and is the empty list here).
    fn name_list(&mut self) -> Option<Vec<Ident>> {
        if self.eat(TokenKind::Choice) {
            return Some(Vec::new());
        }
        let open = self.expect(TokenKind::LBracket, "`[` and a list of plans")?;
        let mut names = Vec::new();
        while self.peek() != TokenKind::RBracket && !self.at_eof() {
            names.push(self.ident("a plan's name")?);
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        self.expect_close(open, TokenKind::RBracket)
            .then_some(names)
    }

    // ------------------------------------------------------------ .hk

    fn plan_file(&mut self) -> PlanFile {
        PlanFile {
            plans: self.declarations("plan", Self::plan_decl),
        }
    }

    fn plan_decl(&mut self) -> PlanDecl {
        let start = self.bump().span;
        let name = self.ident_or_error("the plan's name");
        let params = self.params();
        let agent = if self.eat(TokenKind::Colon) {
            self.ident("the agent whose plan this is")
        } else {
            None
        };
        let mut decl = PlanDecl {
            name,
            params,
            agent,
            channels: Vec::new(),
            body: None,
            handlers: Vec::new(),
            span: start,
        };
        match self.peek() {
            TokenKind::Define => {
                self.bump();
                decl.body = Some(self.process());
                if !self.at_eof() && !self.at_kw("plan") {
                    self.unexpected(
                        "the end of the plan (an operator such as `;`, or the next `plan`)",
                    );
                    self.sync(&["plan"]);
                    self.eat(TokenKind::RBrace);
                }
            }
            TokenKind::LBrace => {
                let open = self.bump();
                self.plan_block(&mut decl);
                self.expect_close(open, TokenKind::RBrace);
            }
            _ => {
                self.unexpected("`≔` and the plan's process, or `{`");
                self.sync(&["plan"]);
                self.eat(TokenKind::RBrace);
            }
        }
        decl.span = self.since(start);
        decl
    }

    fn plan_block(&mut self, decl: &mut PlanDecl) {
        while self.peek() != TokenKind::RBrace && !self.at_eof() {
            if self.at_kw("plan") && self.tok().line_start {
                break;
            }
            let before = self.pos;
            if !self.plan_member(decl) {
                self.sync_plan_member();
            }
            if self.pos == before {
                self.bump();
            }
        }
    }

    /// Resynchronises inside a plan block: at `body`, `on`, `name :` or `plan` starting a line.
    fn sync_plan_member(&mut self) {
        let mut braces = 0usize;
        while !self.at_eof() {
            let t = self.tok();
            match t.kind {
                TokenKind::LBrace => braces += 1,
                TokenKind::RBrace if braces == 0 => return,
                TokenKind::RBrace => braces -= 1,
                TokenKind::Ident if braces == 0 && t.line_start => {
                    let w = self.text(t);
                    if PLAN_MEMBERS.contains(&w)
                        || w == "plan"
                        || self.peek_at(1) == TokenKind::Colon
                    {
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn plan_member(&mut self, decl: &mut PlanDecl) -> bool {
        let start = self.tok().span;
        if self.at_kw("body") && self.peek_at(1) == TokenKind::Define {
            self.bump();
            self.bump();
            let body = self.process();
            if decl.body.is_some() {
                let d = Diagnostic::error(
                    codes::unexpected_token(self.dialect),
                    start,
                    "a plan has one `body`",
                )
                .with_label("a second body")
                .with_help("join the processes with `;`, `□` or `‖`");
                self.report(d);
            } else {
                decl.body = Some(body);
            }
            return true;
        }
        if self.at_kw("on") {
            self.bump();
            let kind = if self.eat_kw("stop") {
                HandlerKind::Stop
            } else if self.eat_kw("resume") {
                HandlerKind::Resume
            } else if self.eat_kw("abort") {
                HandlerKind::Abort
            } else {
                self.unexpected("`stop`, `resume` or `abort`");
                return false;
            };
            if self.expect(TokenKind::Define, "`≔` (`:=`)").is_none() {
                return false;
            }
            let body = self.process();
            decl.handlers.push(Handler {
                kind,
                body,
                span: self.since(start),
            });
            return true;
        }
        if self.peek() == TokenKind::Ident && self.peek_at(1) == TokenKind::Colon {
            let Some(name) = self.ident("a channel name") else {
                return false;
            };
            self.bump();
            let ty = self.type_expr();
            decl.channels.push(Param { name, ty });
            return true;
        }
        self.unexpected("`body ≔ …`, `on stop|resume|abort ≔ …` or a channel `name : chan T`");
        false
    }

    /// A whole process: `‖` is loosest.
    fn process(&mut self) -> Proc {
        let start = self.tok().span;
        if !self.enter() {
            return self.error_proc(start);
        }
        let p = self.nary(TokenKind::Parallel);
        self.leave();
        p
    }

    fn error_proc(&self, span: Span) -> Proc {
        Proc {
            kind: ProcKind::Error,
            span,
        }
    }

    /// `a op b op …` for the associative operators `‖`, `□` and `;`.
    fn nary(&mut self, op: TokenKind) -> Proc {
        let start = self.tok().span;
        let next = |p: &mut Self| match op {
            TokenKind::Parallel => p.nary(TokenKind::Choice),
            TokenKind::Choice => p.interrupt(),
            _ => p.prim(),
        };
        let first = next(self);
        if self.peek() != op {
            return first;
        }
        let mut parts = Vec::new();
        self.push_part(&mut parts, first, &[op]);
        while self.eat(op) {
            let part = next(self);
            self.push_part(&mut parts, part, &[op]);
        }
        let span = self.since(start);
        let kind = match op {
            TokenKind::Parallel => ProcKind::Parallel(parts),
            TokenKind::Choice => ProcKind::Choice(parts),
            _ => ProcKind::Seq(parts),
        };
        Proc { kind, span }
    }

    /// `P △ Q`, right-associative.
    fn interrupt(&mut self) -> Proc {
        let start = self.tok().span;
        let lhs = self.labelled();
        if self.peek() != TokenKind::Interrupt {
            return lhs;
        }
        if !self.enter() {
            return lhs;
        }
        self.bump();
        let rhs = self.interrupt();
        self.leave();
        Proc {
            kind: ProcKind::Interrupt(Box::new(lhs), Box::new(rhs)),
            span: self.since(start),
        }
    }

    /// `l : P` covers the sequence to its right.
    fn labelled(&mut self) -> Proc {
        let start = self.tok().span;
        if self.peek() == TokenKind::Ident && self.peek_at(1) == TokenKind::Colon {
            if !self.enter() {
                return self.error_proc(start);
            }
            let label = self.ident_or_error("a label");
            self.bump();
            let body = self.labelled();
            self.leave();
            return Proc {
                kind: ProcKind::Labelled(label, Box::new(body)),
                span: self.since(start),
            };
        }
        self.nary(TokenKind::Semi)
    }

    fn prim(&mut self) -> Proc {
        let t = self.tok();
        let start = t.span;
        let kind = match t.kind {
            TokenKind::LParen => {
                if let Some(send) = self.parenthesised_send() {
                    return send;
                }
                let open = self.bump();
                let inner = self.process();
                self.expect_close(open, TokenKind::RParen);
                return Proc {
                    kind: inner.kind,
                    span: self.since(start),
                };
            }
            TokenKind::Ident => {
                let word = self.text(t).to_string();
                match word.as_str() {
                    "SKIP" => {
                        self.bump();
                        ProcKind::Skip
                    }
                    "STOP" => {
                        self.bump();
                        ProcKind::Stop
                    }
                    "believe" | "forget" if self.peek_at(1) == TokenKind::Ident => {
                        self.bump();
                        let atom = self.atom();
                        if word == "believe" {
                            ProcKind::Believe(atom)
                        } else {
                            ProcKind::Forget(atom)
                        }
                    }
                    "tell" if self.peek_at(1) == TokenKind::Ident => {
                        self.bump();
                        let agent = self.ident_or_error("the agent told");
                        let atom = self.atom();
                        ProcKind::Tell {
                            agent,
                            atom: Box::new(atom),
                        }
                    }
                    "stop" | "resume" | "abort" | "restart"
                        if self.peek_at(1) == TokenKind::Ident =>
                    {
                        self.bump();
                        let command = match word.as_str() {
                            "stop" => Command::Stop,
                            "resume" => Command::Resume,
                            "abort" => Command::Abort,
                            _ => Command::Restart,
                        };
                        let target = self.ident_or_error("a label or `self`");
                        ProcKind::Command { command, target }
                    }
                    "match" if self.peek_at(1) != TokenKind::RecvArrow => self.match_proc(),
                    _ if NOT_A_PROCESS.contains(&word.as_str()) => {
                        self.unexpected("a process");
                        return self.error_proc(start);
                    }
                    _ if self.peek_at(1) == TokenKind::RecvArrow => {
                        let var = self.ident_or_error("a variable");
                        self.bump();
                        let chan = self.ident_or_error("the channel received from");
                        ProcKind::Recv { var, chan }
                    }
                    _ if self.peek_at(1) == TokenKind::LParen => {
                        let plan = self.ident_or_error("a plan");
                        let args = self.args();
                        ProcKind::Call { plan, args }
                    }
                    _ => return self.send(),
                }
            }
            TokenKind::Int | TokenKind::Str | TokenKind::Float | TokenKind::Minus => {
                return self.send();
            }
            _ => {
                self.unexpected("a process");
                return self.error_proc(start);
            }
        };
        Proc {
            kind,
            span: self.since(start),
        }
    }

    /// `e → c`.
    fn send(&mut self) -> Proc {
        let start = self.tok().span;
        let value = self.expr();
        if self
            .expect(
                TokenKind::SendArrow,
                "`→` (`->`) and a channel: a value here can only be sent",
            )
            .is_none()
        {
            return self.error_proc(self.since(start));
        }
        let chan = self.ident_or_error("the channel sent on");
        Proc {
            kind: ProcKind::Send {
                value: Box::new(value),
                chan,
            },
            span: self.since(start),
        }
    }

    /// `(a + 1) → c`: tries the parenthesised group as a value followed by `→`, and takes the
    /// attempt back if it is not one. The attempt descends only through expressions, so the cost
    /// over nested parentheses stays quadratic in [`MAX_DEPTH`] at worst.
    fn parenthesised_send(&mut self) -> Option<Proc> {
        let (pos, prev_end, depth) = (self.pos, self.prev_end, self.depth);
        let outer = (self.speculating, self.speculation_failed);
        self.speculating = true;
        self.speculation_failed = false;
        let value = self.expr();
        let ok = !self.speculation_failed && self.peek() == TokenKind::SendArrow;
        self.speculating = outer.0;
        self.speculation_failed = outer.1;
        if !ok {
            self.pos = pos;
            self.prev_end = prev_end;
            self.depth = depth;
            return None;
        }
        let start = value.span;
        self.bump();
        let chan = self.ident_or_error("the channel sent on");
        Some(Proc {
            kind: ProcKind::Send {
                value: Box::new(value),
                chan,
            },
            span: self.since(start),
        })
    }

    /// `match e { when lit ↦ P … other ↦ P }`.
    fn match_proc(&mut self) -> ProcKind {
        self.bump();
        let scrutinee = self.expr();
        let mut arms = Vec::new();
        let mut other = None;
        let Some(open) = self.expect(TokenKind::LBrace, "`{` and the match's arms") else {
            return ProcKind::Match {
                scrutinee: Box::new(scrutinee),
                arms,
                other,
            };
        };
        while self.peek() != TokenKind::RBrace && !self.at_eof() {
            let start = self.tok().span;
            let before = self.pos;
            if self.eat_kw("when") {
                if other.is_some() {
                    // `other` matches every value: an arm after it would never run, and the
                    // grammar puts `other` last (issue 29: it was accepted silently).
                    let d = Diagnostic::error(
                        codes::unexpected_token(self.dialect),
                        start,
                        "a `when` arm after `other` would never run",
                    )
                    .with_label("after `other`")
                    .with_note("arms are tried in order, and `other` matches every value")
                    .with_help("move the `other` arm to the end of the match");
                    self.report(d);
                }
                let pattern = self.expr();
                if self
                    .expect(TokenKind::MapsTo, "`↦` (`=>`) and the arm's process")
                    .is_none()
                {
                    self.skip_arm();
                    continue;
                }
                let body = self.process();
                arms.push(MatchArm {
                    pattern,
                    body,
                    span: self.since(start),
                });
            } else if self.eat_kw("other") {
                if self
                    .expect(TokenKind::MapsTo, "`↦` (`=>`) and the arm's process")
                    .is_none()
                {
                    self.skip_arm();
                    continue;
                }
                let body = self.process();
                if other.is_some() {
                    let d = Diagnostic::error(
                        codes::unexpected_token(self.dialect),
                        start,
                        "a match has at most one `other` arm",
                    )
                    .with_label("a second `other`")
                    .with_help("remove one of them");
                    self.report(d);
                } else {
                    other = Some(Box::new(body));
                }
            } else {
                self.unexpected("`when lit ↦ P`, `other ↦ P` or `}`");
                self.skip_arm();
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect_close(open, TokenKind::RBrace);
        ProcKind::Match {
            scrutinee: Box::new(scrutinee),
            arms,
            other,
        }
    }

    /// Skips to the next `when`, `other` or the match's `}`.
    fn skip_arm(&mut self) {
        let mut braces = 0usize;
        while !self.at_eof() {
            match self.peek() {
                TokenKind::LBrace => braces += 1,
                TokenKind::RBrace if braces == 0 => return,
                TokenKind::RBrace => braces -= 1,
                TokenKind::Ident if braces == 0 && (self.at_kw("when") || self.at_kw("other")) => {
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ------------------------------------------------------------ .hb

    fn values_file(&mut self) -> ValuesFile {
        ValuesFile {
            blocks: self.declarations("values", Self::values_block),
        }
    }

    fn values_block(&mut self) -> ValuesBlock {
        let start = self.bump().span;
        let agent = self.ident_or_error("the agent whose choices these values order");
        let mut block = ValuesBlock {
            agent,
            options: Vec::new(),
            values: Vec::new(),
            policies: Vec::new(),
            span: start,
        };
        let Some(open) = self.expect(TokenKind::LBrace, "`{` and the options") else {
            self.sync(&["values"]);
            self.eat(TokenKind::RBrace);
            block.span = self.since(start);
            return block;
        };
        while self.peek() != TokenKind::RBrace && !self.at_eof() {
            if self.at_kw("values") && self.tok().line_start {
                break;
            }
            let before = self.pos;
            if !self.values_item(&mut block) {
                let mut words = VALUE_ITEMS.to_vec();
                words.push("values");
                self.sync(&words);
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect_close(open, TokenKind::RBrace);
        block.span = self.since(start);
        block
    }

    fn values_item(&mut self, block: &mut ValuesBlock) -> bool {
        let start = self.tok().span;
        if self.eat_kw("option") || self.at_kw("value") {
            let is_value = self.eat_kw("value");
            let Some(name) = self.ident(if is_value {
                "the value's name"
            } else {
                "the plan this option chooses"
            }) else {
                return false;
            };
            if self.expect(TokenKind::Define, "`≔` (`:=`)").is_none() {
                return false;
            }
            let expr = self.expr();
            let span = self.since(start);
            if is_value {
                block.values.push(ValueDecl { name, expr, span });
            } else {
                block.options.push(OptionDecl {
                    plan: name,
                    expr,
                    span,
                });
            }
            return true;
        }
        if self.eat_kw("policy") {
            let Some(name) = self.ident("a policy: `greedy`, `epsilon_greedy`, `softmax` or `ucb`")
            else {
                return false;
            };
            let mut args = Vec::new();
            if let Some(open) = (self.peek() == TokenKind::LParen).then(|| self.bump()) {
                while self.peek() != TokenKind::RParen && !self.at_eof() {
                    let Some(key) = self.ident("a parameter name") else {
                        return false;
                    };
                    if self
                        .expect(TokenKind::Eq, "`=` and the parameter's value")
                        .is_none()
                    {
                        return false;
                    }
                    args.push((key, self.expr()));
                    if !self.eat(TokenKind::Comma) {
                        break;
                    }
                }
                if !self.expect_close(open, TokenKind::RParen) {
                    return false;
                }
            }
            block.policies.push(PolicyDecl {
                name,
                args,
                span: self.since(start),
            });
            return true;
        }
        self.unexpected("`option P ≔ …`, `value v ≔ …` or `policy …`");
        false
    }
}
