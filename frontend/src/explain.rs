//! The explanation of every documented diagnostic code: what it means, an example that reports it,
//! and the fix. The registry is generated at build time (by `frontend/build.rs`) from
//! `docs/diagnostics/<CODE>.md`, so the documentation and the tool cannot drift apart; the format
//! is described in `docs/diagnostics/README.md`.
//!
//! Each file's example can be pulled out as a small project ([`Explanation::example`]); a test
//! checks every one of them reports its code, and that its fix does not.

use crate::diagnostic::{Code, Severity};
use crate::source::Dialect;

/// One documented code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explanation {
    /// The code.
    pub code: Code,
    /// The severity the documentation gives (and the checker must emit).
    pub severity: Severity,
    /// The one-line summary: the title after `# CODE: `.
    pub title: &'static str,
    /// The whole markdown file.
    pub markdown: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/explanations.rs"));

/// Every documented code, sorted by dialect (`HA`, `HK`, `HB`) and number.
pub fn all() -> &'static [Explanation] {
    ENTRIES
}

/// The explanation of a code written as text (`HK0023`, `hk0023`), if it is documented.
pub fn lookup(code: &str) -> Option<&'static Explanation> {
    let code = Code::parse(code)?;
    ENTRIES.iter().find(|e| e.code == code)
}

/// One file of an example project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleFile {
    /// Its name (`Line.hk`), a plain file name (or plain names joined by `/`).
    pub name: String,
    /// Its bytes (UTF-8 unless the block said `encoding=latin1`).
    pub bytes: Vec<u8>,
}

/// The example projects of one explanation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Example {
    /// The files of the failing project: it must report the code.
    pub failing: Vec<ExampleFile>,
    /// The `fixed` blocks, each replacing the failing file of the same name (or adding one).
    pub fixes: Vec<ExampleFile>,
    /// The `hilbert check` options the example is checked with (an `options` block), such as
    /// `--smt-budget 0`: a code that only a bound gives needs its bound.
    pub options: Vec<String>,
    /// The options the fix is checked with (an `options fixed` block), when they differ.
    pub fixed_options: Option<Vec<String>>,
}

impl Example {
    /// The fixed project, if the documentation gives a fix: the failing files with each fixed
    /// block in place of the file of the same name.
    pub fn fixed_project(&self) -> Option<Vec<ExampleFile>> {
        if self.fixes.is_empty() && self.fixed_options.is_none() {
            return None;
        }
        let mut files = self.failing.clone();
        for fix in &self.fixes {
            match files.iter_mut().find(|f| f.name == fix.name) {
                Some(file) => file.bytes = fix.bytes.clone(),
                None => files.push(fix.clone()),
            }
        }
        Some(files)
    }

    /// The options the fixed project is checked with.
    pub fn fix_options(&self) -> &[String] {
        self.fixed_options.as_deref().unwrap_or(&self.options)
    }
}

impl Explanation {
    /// The example projects written in the markdown: every fenced block tagged `ha`, `hk` or `hb`
    /// with `file=NAME`. An error says what is malformed (an unclosed fence, an unknown attribute,
    /// a name whose extension is not the block's dialect, a file named twice).
    pub fn example(&self) -> Result<Example, String> {
        parse_example(self.markdown)
    }
}

/// Parses the example blocks of a markdown text (see [`Explanation::example`]).
pub fn parse_example(markdown: &str) -> Result<Example, String> {
    let mut example = Example::default();
    let mut lines = markdown.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let mut body = String::new();
        let mut closed = false;
        for (_, line) in lines.by_ref() {
            if line.trim() == "```" {
                closed = true;
                break;
            }
            body.push_str(line);
            body.push('\n');
        }
        let at = number + 1;
        if !closed {
            return Err(format!("line {at}: the fence is never closed"));
        }
        let mut words = info.split_whitespace();
        if info.split_whitespace().next() == Some("options") {
            let options: Vec<String> = body.split_whitespace().map(String::from).collect();
            match (words.nth(1), words.next()) {
                (None, _) if example.options.is_empty() => example.options = options,
                (Some("fixed"), None) if example.fixed_options.is_none() => {
                    example.fixed_options = Some(options)
                }
                (None, _) | (Some("fixed"), None) => {
                    return Err(format!("line {at}: the options are given twice"));
                }
                _ => return Err(format!("line {at}: an options block says only `fixed`")),
            }
            continue;
        }
        let dialect = match words.next() {
            Some("ha") => Dialect::Agent,
            Some("hk") => Dialect::Plans,
            Some("hb") => Dialect::Values,
            _ => continue,
        };
        let (mut name, mut fixed, mut latin1) = (None, false, false);
        for word in words {
            match word.split_once('=') {
                Some(("file", n)) => name = Some(n.to_string()),
                Some(("encoding", "latin1")) => latin1 = true,
                None if word == "fixed" => fixed = true,
                _ => return Err(format!("line {at}: unknown fence attribute `{word}`")),
            }
        }
        let Some(name) = name else { continue };
        // A plain file name, or plain names joined by `/` (HK0020 needs two files of one stem).
        let plain = name.split('/').all(|part| {
            !part.is_empty()
                && !part.starts_with('.')
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        });
        if !plain || Dialect::of_path(&name) != Some(dialect) {
            return Err(format!(
                "line {at}: `{name}` must be a plain file name ending in .{}",
                dialect.extension()
            ));
        }
        let bytes = if latin1 {
            body.chars()
                .map(|c| u8::try_from(u32::from(c)).map_err(|_| c))
                .collect::<Result<Vec<u8>, char>>()
                .map_err(|c| format!("line {at}: `{c}` has no Latin-1 encoding"))?
        } else {
            body.into_bytes()
        };
        let list = if fixed {
            &mut example.fixes
        } else {
            &mut example.failing
        };
        if list.iter().any(|f| f.name == name) {
            return Err(format!("line {at}: `{name}` is given twice"));
        }
        list.push(ExampleFile { name, bytes });
    }
    if example.failing.is_empty() {
        return Err("no example: no ```ha/hk/hb block with file=NAME".to_string());
    }
    Ok(example)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_case_insensitive_and_knows_only_documented_codes() {
        let e = lookup("hk0001").expect("HK0001 is documented");
        assert_eq!(e.code.to_string(), "HK0001");
        assert_eq!(lookup("HK0001"), Some(e));
        assert!(e.markdown.starts_with(&format!("# HK0001: {}", e.title)));
        assert_eq!(lookup("HK9999"), None);
        assert_eq!(lookup("nonsense"), None);
    }

    #[test]
    fn the_registry_is_sorted_and_has_no_duplicates() {
        let codes: Vec<Code> = all().iter().map(|e| e.code).collect();
        let mut sorted = codes.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(codes, sorted);
    }

    #[test]
    fn options_blocks_give_the_check_options_of_the_example_and_of_its_fix() {
        let md = "```ha file=A.ha\nagent\n```\n\n```options\n--smt-budget 0\n```\n";
        let ex = parse_example(md).unwrap();
        assert_eq!(ex.options, ["--smt-budget", "0"]);
        assert_eq!(ex.fixed_project(), None, "no fix given");
        let md = format!("{md}\n```options fixed\n--smt-budget   60000\n```\n");
        let ex = parse_example(&md).unwrap();
        assert_eq!(ex.fix_options(), ["--smt-budget", "60000"]);
        assert_eq!(ex.fixed_project().unwrap(), ex.failing, "the same files");
        for bad in [
            format!("{md}\n```options\n--smt-timeout 1\n```\n"),
            format!("{md}\n```options fixed\n--smt-timeout 1\n```\n"),
            "```ha file=A.ha\nagent\n```\n```options later\n-x\n```\n".to_string(),
        ] {
            assert!(parse_example(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn examples_and_fixes_are_pulled_from_tagged_blocks() {
        let md = "# HK0001: x\n\nSeverity: error\n\n```hk file=Line.hk\nplan $\n```\n\n\
                  ```text\nignored\n```\n\n```ha\nignored too: no file\n```\n\n\
                  ```ha file=A.ha encoding=latin1\ncafé\n```\n\n```hk file=Line.hk fixed\nplan\n```\n";
        let ex = parse_example(md).unwrap();
        assert_eq!(
            ex.failing,
            vec![
                ExampleFile {
                    name: "Line.hk".into(),
                    bytes: b"plan $\n".to_vec()
                },
                ExampleFile {
                    name: "A.ha".into(),
                    bytes: b"caf\xe9\n".to_vec()
                },
            ]
        );
        let fixed = ex.fixed_project().unwrap();
        assert_eq!(fixed[0].bytes, b"plan\n");
        assert_eq!(fixed[1].name, "A.ha");
    }

    #[test]
    fn malformed_examples_are_refused_with_a_reason() {
        let cases = [
            ("```hk file=A.hk\nplan\n", "never closed"),
            (
                "```hk file=A.ha\n```\n",
                "must be a plain file name ending in .hk",
            ),
            ("```hk file=../A.hk\n```\n", "plain file name"),
            (
                "```hk file=A.hk fix\n```\n",
                "unknown fence attribute `fix`",
            ),
            (
                "```hk file=A.hk\n```\n```hk file=A.hk\n```\n",
                "given twice",
            ),
            ("```ha file=A.ha encoding=latin1\n≔\n```\n", "no Latin-1"),
            ("no blocks\n", "no example"),
        ];
        for (md, why) in cases {
            let err = parse_example(md).unwrap_err();
            assert!(err.contains(why), "{md:?}: {err}");
        }
        assert_eq!(
            parse_example("```hk file=A.hk\n```\n")
                .unwrap()
                .fixed_project(),
            None
        );
    }
}
