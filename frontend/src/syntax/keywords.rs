//! The words and operators of the three dialects, as tables for the tools beside the parser:
//! the language server's completion and hover, and the editor grammar's test
//! (`tests/editor_grammar.rs`). The parser reads keywords as names where it expects them
//! (`language.md` §1); the tests below check that every word it looks for is listed here, and
//! that the operator table is exactly what the lexer accepts.

use super::token::TokenKind;
use crate::source::Dialect;

/// A word with a meaning of its own in some dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keyword {
    /// The word.
    pub word: &'static str,
    /// The dialects that use it.
    pub dialects: &'static [Dialect],
    /// What it means, in one line.
    pub doc: &'static str,
}

const HA: &[Dialect] = &[Dialect::Agent];
const HK: &[Dialect] = &[Dialect::Plans];
const HB: &[Dialect] = &[Dialect::Values];
const HA_HK: &[Dialect] = &[Dialect::Agent, Dialect::Plans];
const HA_HB: &[Dialect] = &[Dialect::Agent, Dialect::Values];
const ALL: &[Dialect] = &[Dialect::Agent, Dialect::Plans, Dialect::Values];

const fn kw(word: &'static str, dialects: &'static [Dialect], doc: &'static str) -> Keyword {
    Keyword {
        word,
        dialects,
        doc,
    }
}

/// Every keyword, with the dialects that use it.
pub const KEYWORDS: &[Keyword] = &[
    kw(
        "agent",
        HA,
        "`agent Name(params) : Theory { … }` declares an agent",
    ),
    kw("belief", HA, "`belief f(field: Type, …)` declares a belief"),
    kw(
        "desire",
        HA,
        "`desire D [priority N] reachable by [P, …]` declares a desire",
    ),
    kw(
        "priority",
        HA,
        "`priority N`: a desire's priority (default 0); higher stops lower",
    ),
    kw(
        "reachable",
        HA,
        "`reachable by [P, …]`: the plans that may serve a desire",
    ),
    kw("by", HA, "`reachable by [P, …]`"),
    kw(
        "commit",
        HA,
        "`commit blind | single_minded | open_minded`: the commitment strategy",
    ),
    kw(
        "blind",
        HA,
        "drops an intention only when it believes the goal achieved",
    ),
    kw(
        "single_minded",
        HA,
        "also drops an intention when it believes the goal impossible",
    ),
    kw(
        "open_minded",
        HA,
        "drops an intention when it no longer desires it",
    ),
    kw(
        "attention",
        HA,
        "`attention A [initially]` declares an attention",
    ),
    kw(
        "initially",
        HA,
        "the attention the agent starts with (exactly one)",
    ),
    kw(
        "intend",
        HA,
        "`intend P for D when φ`: adopt plan P for desire D when φ holds",
    ),
    kw("for", HA, "`intend P for D when φ`"),
    kw(
        "when",
        ALL,
        "a rule's condition (`.ha`); a match arm (`.hk`): `when literal ↦ P`",
    ),
    kw("achieved", HA, "`achieved D when φ`: the desire's goal"),
    kw(
        "impossible",
        HA,
        "`impossible D when φ because \"…\"`: when the desire cannot be met",
    ),
    kw("because", HA, "the reason an `impossible` rule gives"),
    kw(
        "attend",
        HA,
        "`when φ attend A`: the attention moves to A while φ holds",
    ),
    kw(
        "attending",
        HA,
        "`attending A`: the agent's attention is on A",
    ),
    kw(
        "desires",
        HA,
        "`desires D` (in an assert): the agent desires D (not achieved, nor given up)",
    ),
    kw(
        "intends",
        HA,
        "`intends P` (in an assert): the agent holds an intention for plan P",
    ),
    kw(
        "assert",
        HA,
        "`assert name: pattern [under weak fairness]`: a property every network of the agent must have",
    ),
    kw(
        "always",
        HA,
        "`assert name: always φ`: φ holds in every reachable state",
    ),
    kw(
        "never",
        HA,
        "`assert name: never φ`: φ holds in no reachable state",
    ),
    kw(
        "eventually",
        HA,
        "`assert name: eventually φ`: every path reaches a state where φ holds",
    ),
    kw(
        "leads",
        HA,
        "`assert name: φ leads to ψ`: every state where φ holds is followed by one where ψ holds",
    ),
    kw("to", HA, "`φ leads to ψ`"),
    kw(
        "precedes",
        HA,
        "`assert name: ψ precedes φ`: φ never holds before ψ has",
    ),
    kw(
        "under",
        HA,
        "`under weak fairness`: a liveness or response property on the weakly fair paths",
    ),
    kw(
        "weak",
        HA,
        "`under weak fairness`: no process enabled from some point on is ignored forever",
    ),
    kw("fairness", HA, "`under weak fairness`"),
    kw(
        "reward",
        HA,
        "`reward P positive|negative when φ`: credits plan P",
    ),
    kw(
        "positive",
        HA,
        "a reward that raises the plan's learned value",
    ),
    kw(
        "negative",
        HA,
        "a reward that lowers the plan's learned value",
    ),
    kw("value", HA_HB, "`value v ≔ e`: a named value"),
    kw(
        "plan",
        HA_HK,
        "`plan P ↦ File.Plan` (`.ha`) binds a plan; `plan Name(params) : Agent ≔ P` (`.hk`) declares one",
    ),
    kw(
        "host",
        HA,
        "`plan P ↦ host.name`: a Rust function registered with the runtime",
    ),
    kw(
        "B",
        HA_HK,
        "`B(self) f(…)`: the agent believes `f(…)`; `B(j) f(…)`: it told j",
    ),
    kw(
        "self",
        HA_HK,
        "this agent (`B(self)`), or the innermost plan instance (`abort self`)",
    ),
    kw("true", ALL, "the Bool literal"),
    kw("false", ALL, "the Bool literal"),
    kw("Int", ALL, "64-bit integers"),
    kw("String", ALL, "strings"),
    kw("Bool", ALL, "`true` or `false`"),
    kw("Float", HB, "decimal numbers (`.hb` values only)"),
    kw(
        "chan",
        HK,
        "`chan T`: a synchronous channel carrying values of type T",
    ),
    kw("body", HK, "`body ≔ P`: the plan's process"),
    kw("on", HK, "`on stop | resume | abort ≔ P`: a handler"),
    kw(
        "stop",
        HK,
        "`stop l` suspends l (its `on stop` runs first); `on stop ≔ P`",
    ),
    kw("resume", HK, "`resume l` runs `on resume` and continues l"),
    kw(
        "abort",
        HK,
        "`abort l` runs the `on abort` handlers of l and of every plan inside, innermost first",
    ),
    kw("restart", HK, "`restart l` is `abort l`, then l afresh"),
    kw("believe", HK, "`believe f(e, …)` adds the belief"),
    kw("forget", HK, "`forget f(e, …)` removes the belief"),
    kw(
        "tell",
        HK,
        "`tell j f(e, …)` gives the atom to agent j; the teller believes `B(j) f(…)`",
    ),
    kw("SKIP", HK, "the process that has finished"),
    kw("STOP", HK, "the process that never moves"),
    kw("match", HK, "`match e { when literal ↦ P … other ↦ P }`"),
    kw("other", HK, "the match arm for every other value (last)"),
    kw(
        "values",
        HB,
        "`values Agent { … }`: the values that order the agent's licensed choices",
    ),
    kw("option", HB, "`option P ≔ e`: the value of choosing plan P"),
    kw(
        "policy",
        HB,
        "`policy greedy | epsilon_greedy(epsilon = …) | softmax(temperature = …) | ucb(c = …)`",
    ),
    kw(
        "learned",
        HB,
        "`learned(P)`: the value learned from P's rewards",
    ),
    kw("greedy", HB, "the policy that chooses the highest value"),
    kw(
        "epsilon_greedy",
        HB,
        "`epsilon_greedy(epsilon = e)`: greedy, but a random licensed option with probability e",
    ),
    kw(
        "softmax",
        HB,
        "`softmax(temperature = t)`: choices weighted by exp(value / t)",
    ),
    kw("ucb", HB, "`ucb(c = k)`: upper confidence bound"),
    kw("and", ALL, "conjunction, `∧`"),
    kw("or", ALL, "disjunction, `∨`"),
    kw("not", ALL, "negation, `¬`"),
];

/// An operator spelled two ways (`language.md` §1): both lex to one token kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operator {
    /// The token both spellings lex to.
    pub kind: TokenKind,
    /// The Unicode spelling.
    pub unicode: &'static str,
    /// The ASCII spelling.
    pub ascii: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

const fn op(
    kind: TokenKind,
    unicode: &'static str,
    ascii: &'static str,
    meaning: &'static str,
) -> Operator {
    Operator {
        kind,
        unicode,
        ascii,
        meaning,
    }
}

/// Every operator with a Unicode and an ASCII spelling.
pub const OPERATORS: &[Operator] = &[
    op(TokenKind::Define, "≔", ":=", "definition"),
    op(
        TokenKind::MapsTo,
        "↦",
        "=>",
        "maps to (plan binding, match arm)",
    ),
    op(TokenKind::SendArrow, "→", "->", "send `v → c`"),
    op(TokenKind::RecvArrow, "←", "<-", "receive `x ← c`"),
    op(TokenKind::Choice, "□", "[]", "external choice"),
    op(TokenKind::Parallel, "‖", "||", "parallel"),
    op(TokenKind::Interrupt, "△", "/\\", "interrupt"),
    op(TokenKind::And, "∧", "and", "conjunction"),
    op(TokenKind::Or, "∨", "or", "disjunction"),
    op(TokenKind::Not, "¬", "not", "negation"),
    op(TokenKind::Ne, "≠", "!=", "not equal"),
    op(TokenKind::Le, "≤", "<=", "at most"),
    op(TokenKind::Ge, "≥", ">=", "at least"),
];

/// The punctuation and operators spelled one way only, each a token of its own.
pub const SYMBOLS: &[(TokenKind, &str)] = &[
    (TokenKind::LParen, "("),
    (TokenKind::RParen, ")"),
    (TokenKind::LBrace, "{"),
    (TokenKind::RBrace, "}"),
    (TokenKind::LBracket, "["),
    (TokenKind::RBracket, "]"),
    (TokenKind::Comma, ","),
    (TokenKind::Colon, ":"),
    (TokenKind::Dot, "."),
    (TokenKind::Semi, ";"),
    (TokenKind::Eq, "="),
    (TokenKind::Lt, "<"),
    (TokenKind::Gt, ">"),
    (TokenKind::Plus, "+"),
    (TokenKind::Minus, "-"),
    (TokenKind::Star, "*"),
    (TokenKind::Slash, "/"),
    (TokenKind::Percent, "%"),
];

/// The keyword `word`, if it is one.
pub fn keyword(word: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.word == word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, SourceFile};
    use crate::syntax::lexer::lex;

    fn kinds(text: &str) -> Vec<TokenKind> {
        let f = SourceFile::new(FileId(0), "t.hk".into(), Dialect::Plans, text.into());
        lex(&f).0.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn both_spellings_of_each_operator_lex_to_its_token() {
        for o in OPERATORS {
            assert_eq!(kinds(o.unicode), [o.kind, TokenKind::Eof], "{}", o.unicode);
            assert_eq!(kinds(o.ascii), [o.kind, TokenKind::Eof], "{}", o.ascii);
        }
        for (kind, s) in SYMBOLS {
            assert_eq!(kinds(s), [*kind, TokenKind::Eof], "{s}");
        }
    }

    #[test]
    fn the_lexer_knows_no_other_operator() {
        // Every character outside ASCII is unknown unless it is a Unicode spelling here.
        for c in (0x80..0x3_0000).filter_map(char::from_u32) {
            if c == '\u{feff}' {
                continue;
            }
            let listed = OPERATORS.iter().any(|o| o.unicode.starts_with(c));
            let known = kinds(&c.to_string())[0] != TokenKind::Unknown;
            assert_eq!(known, listed, "U+{:04X}", c as u32);
        }
        // Every ASCII punctuation character alone is a symbol here, or unknown (`-` begins a
        // comment only when doubled; `"` a string).
        for b in (0x21u8..0x7f).filter(|b| b.is_ascii_punctuation() && *b != b'"' && *b != b'_') {
            let s = (b as char).to_string();
            let listed = SYMBOLS.iter().any(|(_, x)| *x == s);
            let known = kinds(&s)[0] != TokenKind::Unknown;
            assert_eq!(known, listed, "{s}");
        }
    }

    #[test]
    fn every_word_the_parser_and_checker_look_for_is_a_keyword() {
        // The identifiers the parser compares names with, read from its source: every one is a
        // keyword but the misspellings it helps with (`skip` for `SKIP`) and `_`.
        let source = include_str!("parser.rs");
        let source = source.split("#[cfg(test)]").next().unwrap_or(source);
        let mut missing = Vec::new();
        for piece in string_literals(source) {
            let piece = piece.as_str();
            let word = !piece.is_empty()
                && piece.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !piece.starts_with(|c: char| c.is_ascii_digit());
            if word && !["skip", "Skip", "_"].contains(&piece) && keyword(piece).is_none() {
                missing.push(piece.to_string());
            }
        }
        for (word, _) in crate::check::CommitmentStrategy::ALL {
            if keyword(word).is_none() {
                missing.push(word.to_string());
            }
        }
        for (word, _) in crate::check::POLICIES {
            if keyword(word).is_none() {
                missing.push(word.to_string());
            }
        }
        for o in OPERATORS
            .iter()
            .filter(|o| o.ascii.chars().all(char::is_alphabetic))
        {
            if keyword(o.ascii).is_none() {
                missing.push(o.ascii.to_string());
            }
        }
        assert!(missing.is_empty(), "not in KEYWORDS: {missing:?}");
    }

    /// The string literals of Rust source (with no raw strings or `'"'` in it), escapes kept;
    /// `//` comments skipped.
    fn string_literals(source: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut chars = source.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '/' if chars.peek() == Some(&'/') => {
                    for c in chars.by_ref() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                '"' => {
                    let mut s = String::new();
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => {
                                s.push(c);
                                s.extend(chars.next());
                            }
                            '"' => break,
                            _ => s.push(c),
                        }
                    }
                    out.push(s);
                }
                _ => {}
            }
        }
        out
    }
}
