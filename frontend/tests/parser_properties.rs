//! Property tests: the parser never panics, never loops and never reports a position outside
//! the file, whatever the token stream or bytes it is given.

use hilbert_frontend::source::{Dialect, FileId, SourceFile};
use hilbert_frontend::syntax::parse;
use proptest::prelude::*;

/// Fragments of the three dialects: every keyword, operator (both spellings) and a few names
/// and literals, so random streams come close to real programs and exercise recovery.
const VOCABULARY: &[&str] = &[
    "agent",
    "belief",
    "desire",
    "reachable",
    "by",
    "priority",
    "commit",
    "attention",
    "initially",
    "intend",
    "for",
    "when",
    "achieved",
    "impossible",
    "because",
    "attend",
    "reward",
    "positive",
    "negative",
    "value",
    "plan",
    "host",
    "body",
    "on",
    "stop",
    "resume",
    "abort",
    "restart",
    "believe",
    "forget",
    "tell",
    "match",
    "other",
    "SKIP",
    "STOP",
    "chan",
    "Int",
    "String",
    "Bool",
    "values",
    "option",
    "policy",
    "B",
    "self",
    "attending",
    "true",
    "false",
    "_",
    "x",
    "n",
    "made",
    "Line",
    "Operator",
    "Produce",
    "0",
    "3",
    "0.5",
    "\"s\"",
    "\"",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    ".",
    ";",
    "≔",
    ":=",
    "↦",
    "=>",
    "→",
    "->",
    "←",
    "<-",
    "□",
    "[]",
    "‖",
    "||",
    "△",
    "/\\",
    "∧",
    "and",
    "∨",
    "or",
    "¬",
    "not",
    "=",
    "≠",
    "!=",
    "<",
    "≤",
    "<=",
    ">",
    "≥",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "\n",
    "--",
    "@",
    "é",
];

fn check_file(name: &str, text: String) -> Result<(), TestCaseError> {
    let len = text.len();
    let dialect = Dialect::of_path(name).unwrap();
    let file = SourceFile::new(FileId(0), name.into(), dialect, text);
    let (_, diagnostics) = parse(&file);
    for d in &diagnostics {
        prop_assert!(d.span.start <= d.span.end, "{d:?}");
        prop_assert!(d.span.end as usize <= len, "{d:?} beyond {len}");
        prop_assert!(d.code.to_string().starts_with(dialect.code_prefix()));
        prop_assert!(!d.message.is_empty());
    }
    // Lexer and parser errors are each capped, plus one summary each.
    prop_assert!(
        diagnostics.len() <= 2 * 51 + 2,
        "{} diagnostics",
        diagnostics.len()
    );
    Ok(())
}

fn token_stream() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCABULARY), 0..200)
        .prop_map(|tokens| tokens.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_token_streams_never_break_the_parser(text in token_stream(), dialect in 0..3usize) {
        let name = ["a.ha", "a.hk", "a.hb"][dialect];
        check_file(name, text)?;
    }

    #[test]
    fn random_text_never_breaks_the_parser(text in any::<String>(), dialect in 0..3usize) {
        let name = ["a.ha", "a.hk", "a.hb"][dialect];
        check_file(name, text)?;
    }

    #[test]
    fn the_seed_with_a_random_token_inserted_never_breaks_the_parser(
        at in 0usize..2000,
        token in prop::sample::select(VOCABULARY),
    ) {
        let seed = include_str!("../../examples/production-line/Line.hk");
        let mut at = at.min(seed.len());
        while !seed.is_char_boundary(at) {
            at -= 1;
        }
        let text = format!("{} {token} {}", &seed[..at], &seed[at..]);
        check_file("Line.hk", text)?;
    }
}
