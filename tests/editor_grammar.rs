//! The VS Code extension's TextMate grammars (`editors/vscode/syntaxes/`) against the lexer:
//! every keyword and every operator of the lexer, in both spellings, is highlighted as one; and
//! on every example and corpus file, each token the lexer makes is highlighted as what it is
//! (a keyword as a keyword and no other name as one, an operator, a number, a string, a
//! comment). Node is not needed: the grammars' rules are run here with the regex crate, as
//! TextMate runs them (line by line; at each point the rule whose match starts first, the
//! earlier rule on a tie). The grammars keep to `match` rules and `include`s, which this
//! runner refuses to go beyond.

use hilbert_frontend::syntax::keywords::{KEYWORDS, OPERATORS, SYMBOLS};
use hilbert_frontend::syntax::lexer::lex;
use hilbert_frontend::syntax::token::TokenKind;
use hilbert_frontend::{Dialect, FileId, SourceFile};
use regex::Regex;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One rule: its pattern and the scope it gives.
struct Rule {
    re: Regex,
    scope: String,
}

/// A dialect's grammar, its includes resolved into one list of rules in order.
struct Grammar {
    rules: Vec<Rule>,
}

/// A highlighted stretch: bytes `start..end` of the text, and its scope.
#[derive(Debug, Clone)]
struct Token {
    start: usize,
    end: usize,
    scope: String,
}

fn grammars() -> HashMap<String, Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode/syntaxes");
    let mut out = HashMap::new();
    for e in std::fs::read_dir(&dir).expect("the grammars' directory") {
        let path = e.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("a grammar");
        let g: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        let scope = g["scopeName"].as_str().expect("a scopeName").to_string();
        out.insert(scope, g);
    }
    out
}

impl Grammar {
    fn of(dialect: Dialect) -> Grammar {
        let all = grammars();
        let scope = match dialect {
            Dialect::Agent => "source.hilbert.agent",
            Dialect::Plans => "source.hilbert.plans",
            Dialect::Values => "source.hilbert.values",
        };
        let mut rules = Vec::new();
        let top = &all[scope];
        flatten(&all, scope, &top["patterns"], &mut rules, 0);
        Grammar { rules }
    }

    /// The highlighted stretches of `text`.
    fn tokens(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            let mut pos = 0;
            while pos < body.len() {
                let mut best: Option<(usize, usize, usize)> = None;
                for (i, r) in self.rules.iter().enumerate() {
                    if let Some(m) = r.re.find_at(body, pos)
                        && m.end() > m.start()
                        && best.is_none_or(|(s, _, _)| m.start() < s)
                    {
                        best = Some((m.start(), m.end(), i));
                    }
                }
                let Some((s, e, i)) = best else { break };
                out.push(Token {
                    start: offset + s,
                    end: offset + e,
                    scope: self.rules[i].scope.clone(),
                });
                pos = e;
            }
            offset += line.len();
        }
        out
    }
}

/// Appends the rules of `patterns` (of the grammar `scope`) to `out`, following includes.
fn flatten(
    all: &HashMap<String, Value>,
    scope: &str,
    patterns: &Value,
    out: &mut Vec<Rule>,
    depth: usize,
) {
    assert!(depth < 10, "includes loop in {scope}");
    for p in patterns.as_array().expect("a list of patterns") {
        if let Some(inc) = p["include"].as_str() {
            let (grammar, entry) = match inc.split_once('#') {
                Some(("", entry)) => (scope, Some(entry)),
                Some((g, entry)) => (g, Some(entry)),
                None => (inc, None),
            };
            let g = all
                .get(grammar)
                .unwrap_or_else(|| panic!("{scope} includes `{inc}`: no such grammar"));
            match entry {
                Some(entry) => {
                    let e = &g["repository"][entry];
                    assert!(!e.is_null(), "{scope} includes `{inc}`: no such entry");
                    if e["patterns"].is_array() {
                        flatten(all, grammar, &e["patterns"], out, depth + 1);
                    } else {
                        flatten(all, grammar, &Value::Array(vec![e.clone()]), out, depth + 1);
                    }
                }
                None => flatten(all, grammar, &g["patterns"], out, depth + 1),
            }
        } else if let Some(m) = p["match"].as_str() {
            let keys: Vec<&String> = p.as_object().expect("a rule").keys().collect();
            assert!(
                keys.iter()
                    .all(|k| ["match", "name", "comment"].contains(&k.as_str())),
                "{scope}: a rule with more than `match` and `name` ({keys:?}): this test cannot run it"
            );
            out.push(Rule {
                re: Regex::new(m).unwrap_or_else(|e| panic!("{scope}: `{m}`: {e}")),
                scope: p["name"].as_str().expect("a rule's scope").to_string(),
            });
        } else if p["patterns"].is_array() {
            flatten(all, scope, &p["patterns"], out, depth + 1);
        } else {
            panic!("{scope}: a rule that is neither `match` nor `include`: {p}");
        }
    }
}

/// Whether a scope marks a word with a meaning of its own.
fn keyword_like(scope: &str) -> bool {
    [
        "keyword.",
        "storage.",
        "support.",
        "constant.language",
        "variable.language",
    ]
    .iter()
    .any(|p| scope.starts_with(p))
}

const DIALECTS: [Dialect; 3] = [Dialect::Agent, Dialect::Plans, Dialect::Values];

#[test]
fn every_keyword_and_operator_of_the_lexer_is_highlighted() {
    let mut failures = Vec::new();
    for d in DIALECTS {
        let g = Grammar::of(d);
        let whole = |text: &str, want: &dyn Fn(&str) -> bool| {
            let t = g.tokens(text);
            t.len() == 1 && t[0].start == 0 && t[0].end == text.len() && want(&t[0].scope)
        };
        for k in KEYWORDS.iter().filter(|k| k.dialects.contains(&d)) {
            if !whole(k.word, &keyword_like) {
                failures.push(format!(
                    "{d:?}: keyword `{}`: {:?}",
                    k.word,
                    g.tokens(k.word)
                ));
            }
        }
        let operator = |s: &str| s.starts_with("keyword.operator");
        for o in OPERATORS {
            for s in [o.unicode, o.ascii] {
                if !whole(s, &operator) {
                    failures.push(format!("{d:?}: operator `{s}`: {:?}", g.tokens(s)));
                }
            }
        }
        for (kind, s) in SYMBOLS {
            let want: &dyn Fn(&str) -> bool = if is_operator(*kind) {
                &operator
            } else {
                &|s: &str| s.starts_with("punctuation.")
            };
            if !whole(s, want) {
                failures.push(format!("{d:?}: `{s}`: {:?}", g.tokens(s)));
            }
        }
        // A comment, a string and numbers.
        for (text, scope) in [
            ("-- a comment → ≔", "comment.line"),
            ("\"a \\\" string\"", "string.quoted"),
            ("42", "constant.numeric"),
            ("0.25", "constant.numeric"),
        ] {
            if !whole(text, &|s: &str| s.starts_with(scope)) {
                failures.push(format!("{d:?}: `{text}`: {:?}", g.tokens(text)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether a token of this kind is an operator (rather than a bracket or separator).
fn is_operator(kind: TokenKind) -> bool {
    use TokenKind::*;
    !matches!(
        kind,
        LParen | RParen | LBrace | RBrace | LBracket | RBracket | Comma | Colon | Dot
    )
}

/// What a lexer token should be highlighted as: its description, and the test of a scope.
type Expected<'a> = (&'a str, &'a dyn Fn(&str) -> bool);

/// Every source file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if !p.ends_with("target") {
                sources(&p, out);
            }
        } else if p.to_str().and_then(Dialect::of_path).is_some() {
            out.push(p);
        }
    }
}

#[test]
fn the_grammars_highlight_every_example_as_the_lexer_reads_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("examples"), &mut files);
    sources(&root.join("tests/cases"), &mut files);
    let grammars: Vec<(Dialect, Grammar)> = DIALECTS.iter().map(|&d| (d, Grammar::of(d))).collect();
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut tokens_checked = 0;
    for path in &files {
        let Ok(text) = String::from_utf8(std::fs::read(path).expect("read a source")) else {
            continue;
        };
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let dialect = Dialect::of_path(&shown).expect("a source");
        let g = &grammars
            .iter()
            .find(|(d, _)| *d == dialect)
            .expect("its grammar")
            .1;
        let highlighted = g.tokens(&text);
        let by_start: HashMap<usize, &Token> = highlighted.iter().map(|t| (t.start, t)).collect();
        let file = SourceFile::new(FileId(0), shown.clone(), dialect, text.clone());
        let (tokens, _) = lex(&file);
        checked += 1;
        let mut fail = |what: String| {
            if failures.len() < 40 {
                failures.push(format!("{shown}: {what}"));
            }
        };
        let mut previous_end = 0;
        for t in &tokens {
            let (s, e) = (t.span.start as usize, t.span.end as usize);
            // Comments lie between tokens.
            comments_between(&text, previous_end, s, &by_start, &mut fail);
            previous_end = e;
            let word = &text[s..e];
            let exact = by_start
                .get(&s)
                .filter(|h| h.end == e)
                .map(|h| h.scope.as_str());
            let want: Option<Expected<'_>> = match t.kind {
                TokenKind::Ident => {
                    let is_kw = KEYWORDS
                        .iter()
                        .any(|k| k.word == word && k.dialects.contains(&dialect));
                    if is_kw {
                        Some(("a keyword", &keyword_like))
                    } else {
                        let wrong = highlighted
                            .iter()
                            .find(|h| h.start < e && s < h.end && keyword_like(&h.scope));
                        if let Some(h) = wrong {
                            fail(format!(
                                "the name `{word}` at byte {s} is highlighted as {}",
                                h.scope
                            ));
                        }
                        None
                    }
                }
                TokenKind::Int | TokenKind::Float => {
                    Some(("a number", &|s: &str| s.starts_with("constant.numeric")))
                }
                TokenKind::Str => Some(("a string", &|s: &str| s.starts_with("string.quoted"))),
                TokenKind::Unknown | TokenKind::Eof => None,
                k if is_operator(k) => {
                    Some(("an operator", &|s: &str| s.starts_with("keyword.operator")))
                }
                _ => Some(("punctuation", &|s: &str| s.starts_with("punctuation."))),
            };
            if let Some((what, ok)) = want {
                tokens_checked += 1;
                if !exact.is_some_and(ok) {
                    fail(format!(
                        "`{word}` at byte {s} is {what} to the lexer, highlighted {:?}",
                        by_start.get(&s).map(|h| (&h.scope, h.end))
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} files were read");
    assert!(
        tokens_checked > 5000,
        "only {tokens_checked} tokens were compared"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Checks that each comment in `text[from..to]` (a stretch with no token) is highlighted as
/// one, from its `--` to the end of its line.
fn comments_between(
    text: &str,
    from: usize,
    to: usize,
    by_start: &HashMap<usize, &Token>,
    fail: &mut impl FnMut(String),
) {
    let mut at = from;
    while let Some(i) = text[at..to].find("--") {
        let start = at + i;
        let end = text[start..]
            .find(['\n', '\r'])
            .map_or(text.len(), |j| start + j)
            .min(to);
        match by_start.get(&start) {
            Some(h) if h.end == end && h.scope.starts_with("comment.line") => {}
            other => fail(format!(
                "the comment at byte {start} is highlighted {other:?}"
            )),
        }
        at = end;
    }
}
