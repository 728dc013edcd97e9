//! `--format junit`: a JUnit XML report, the test-report format Jenkins, GitLab, Azure Pipelines
//! and most CI dashboards read. `build` writes a suite per network (a case per theorem and one
//! for its frame obligation), `verify` a suite per certificate (a case per obligation), and
//! both, like `check`, a suite `check` with a case per source file (`docs/cli.md`).
//!
//! The writer is a few lines by hand rather than an XML crate: the report is a fixed, shallow
//! shape of elements and attributes, and all it needs is an escaping function that is correct
//! for XML 1.0 — which also has to replace the control characters XML 1.0 forbids outright
//! (even as character references), something a generic writer leaves to its caller anyway.
//! Its output is checked against a JUnit XSD and parsed with a real XML parser in
//! `tests/junit.rs`.

use hilbert_frontend::{Diagnostic, Severity, SourceMap, render};

/// What became of a test case.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// It passed.
    Passed,
    /// Decided against: a refuted theorem, a witness the kernel refused, a file with errors
    /// (`<failure>`).
    Failure {
        /// The `type` attribute: `refuted`, `refused`, `invalid`, `coverage`, `error`….
        kind: String,
        /// The `message` attribute, on one line.
        message: String,
    },
    /// Not decided: a bound was passed, host code, a parameter with no value (`<error>`).
    Error {
        /// The `type` attribute: `unproved`.
        kind: String,
        /// The `message` attribute, on one line.
        message: String,
    },
}

/// One `<testcase>`.
#[derive(Clone, Debug)]
pub struct Case {
    /// The case's name (a theorem, an obligation, a file).
    pub name: String,
    /// The `classname`: the suite's network (`Agent.Binding`), or `check`.
    pub classname: String,
    /// The `file` and `line` attributes, where a dashboard annotates the case: a theorem's
    /// network binding in its `.ha` file, a checked file's first error (or the file alone, at
    /// line 1).
    pub location: Option<(String, usize)>,
    /// Seconds.
    pub time: f64,
    /// Passed, failed or in error.
    pub outcome: Outcome,
    /// The text of the `<failure>` or `<error>`, or of `<system-out>` for a case that passed
    /// (nothing when empty).
    pub text: String,
}

/// One `<testsuite>`.
#[derive(Clone, Debug)]
pub struct Suite {
    /// Its name: a network `Agent.Binding`, or `check`.
    pub name: String,
    /// Seconds.
    pub time: f64,
    /// `<properties>`: name and value pairs (none: no element).
    pub properties: Vec<(String, String)>,
    /// Its cases.
    pub cases: Vec<Case>,
}

impl Suite {
    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.outcome)).count()
    }

    fn failures(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Failure { .. }))
    }

    fn errors(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Error { .. }))
    }
}

/// `seconds` shared evenly among `cases` cases: the search and the kernel's check are of a whole
/// network (or certificate), not of one theorem, so each of its cases is given an equal part and
/// the parts add up to the suite's time.
pub fn share(seconds: f64, cases: usize) -> f64 {
    if cases == 0 {
        0.0
    } else {
        seconds / cases as f64
    }
}

/// The report: `<testsuites>` with the totals, then every suite. `name` is the command
/// (`hilbert build`), `seconds` its whole run.
pub fn report(name: &str, seconds: f64, suites: &[Suite]) -> String {
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let failures: usize = suites.iter().map(Suite::failures).sum();
    let errors: usize = suites.iter().map(Suite::errors).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    // No `skipped` total here: nothing is ever skipped, and the Jenkins schema has no such
    // attribute on <testsuites> (each <testsuite> says skipped="0").
    xml.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{}\">\n",
        attr(name),
        time(seconds)
    ));
    for s in suites {
        xml.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{}\">\n",
            attr(&s.name),
            s.cases.len(),
            s.failures(),
            s.errors(),
            time(s.time)
        ));
        if !s.properties.is_empty() {
            xml.push_str("    <properties>\n");
            for (n, v) in &s.properties {
                xml.push_str(&format!(
                    "      <property name=\"{}\" value=\"{}\"/>\n",
                    attr(n),
                    attr(v)
                ));
            }
            xml.push_str("    </properties>\n");
        }
        for c in &s.cases {
            xml.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
                attr(&c.name),
                attr(&c.classname),
                time(c.time)
            ));
            if let Some((file, line)) = &c.location {
                xml.push_str(&format!(" file=\"{}\" line=\"{line}\"", attr(file)));
            }
            let (element, kind, message) = match &c.outcome {
                Outcome::Passed if c.text.is_empty() => {
                    xml.push_str("/>\n");
                    continue;
                }
                Outcome::Passed => {
                    xml.push_str(&format!(
                        ">\n      <system-out>{}</system-out>\n    </testcase>\n",
                        text(&c.text)
                    ));
                    continue;
                }
                Outcome::Failure { kind, message } => ("failure", kind, message),
                Outcome::Error { kind, message } => ("error", kind, message),
            };
            xml.push_str(&format!(
                ">\n      <{element} type=\"{}\" message=\"{}\">{}</{element}>\n    </testcase>\n",
                attr(kind),
                attr(message),
                text(&c.text)
            ));
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// Seconds with millisecond precision, as JUnit writes them (`0.012`).
fn time(seconds: f64) -> String {
    let s = if seconds.is_finite() && seconds > 0.0 {
        seconds
    } else {
        0.0
    };
    format!("{s:.3}")
}

/// Text as character data of an element: `&`, `<` and `>` escaped, a carriage return as a
/// reference (a parser would turn a literal one into a line feed), and the characters XML 1.0
/// forbids replaced ([`replace_forbidden`]).
pub fn text(s: &str) -> String {
    escape(s, false)
}

/// Text as an attribute value in double quotes: as [`text`], and also `"`, `'`, and tabs and line
/// breaks as references (a parser would turn literal ones into spaces).
pub fn attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#13;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            c => out.push(replace_forbidden(c)),
        }
    }
    out
}

/// XML 1.0 allows only tab, line feed and carriage return below U+0020, and neither U+FFFE nor
/// U+FFFF, not even written as `&#1;`: a conforming parser refuses the whole document. A C0
/// control character becomes its symbol from Unicode's Control Pictures (U+0001 is `␁`, U+001B
/// `␛`), so the report still shows which it was; U+FFFE and U+FFFF become U+FFFD.
pub fn replace_forbidden(c: char) -> char {
    match c {
        '\t' | '\n' | '\r' => c,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{fffe}' | '\u{ffff}' => '\u{fffd}',
        c => c,
    }
}

/// The suite `check`: one case per source file, failed when the file has an error (or, under
/// `--deny-warnings`, a warning), with its diagnostics as the human report renders them
/// (uncoloured); a file with only warnings passes and shows them as its output. `seconds` (the
/// loading and checking) is shared among the files.
pub fn check_suite(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    deny_warnings: bool,
    seconds: f64,
) -> Suite {
    let files = sources.files();
    // Each file's diagnostics; one whose file is unknown gets a case of its own.
    let mut by_file: Vec<Vec<&Diagnostic>> = vec![Vec::new(); files.len() + 1];
    for d in diagnostics {
        let i = (d.span.file.0 as usize).min(files.len());
        by_file[i].push(d);
    }
    let names = files.iter().map(|f| f.path.as_str()).chain(["(no file)"]);
    let cases: Vec<Case> = names
        .zip(&by_file)
        .enumerate()
        .filter(|(i, (_, mine))| *i < files.len() || !mine.is_empty())
        .map(|(i, (name, mine))| {
            let errors = mine
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            let warnings = mine.len() - errors;
            let text: String = mine
                .iter()
                .map(|d| render::render(d, sources, false) + "\n")
                .collect();
            let outcome = if errors > 0 || (deny_warnings && warnings > 0) {
                let (n, what) = if errors > 0 {
                    (errors, "error")
                } else {
                    (warnings, "warning")
                };
                let first = mine
                    .iter()
                    .find(|d| errors == 0 || d.severity == Severity::Error)
                    .map(|d| format!(": {}[{}]: {}", d.severity, d.code, d.message))
                    .unwrap_or_default();
                Outcome::Failure {
                    kind: what.to_string(),
                    message: format!("{n} {what}{}{first}", if n == 1 { "" } else { "s" }),
                }
            } else {
                Outcome::Passed
            };
            // The file, at its first error (or the first diagnostic that fails it), else at 1.
            let line = mine
                .iter()
                .find(|d| d.severity == Severity::Error)
                .or(mine.first())
                .map_or(1, |d| crate::check::locate(sources, d.span).line);
            Case {
                name: name.to_string(),
                classname: "check".to_string(),
                location: (i < files.len()).then(|| (name.to_string(), line)),
                time: share(seconds, files.len()),
                outcome,
                text,
            }
        })
        .collect();
    Suite {
        name: "check".to_string(),
        time: seconds,
        properties: Vec::new(),
        cases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_escaped() {
        assert_eq!(text("a < b && c > d"), "a &lt; b &amp;&amp; c &gt; d");
        assert_eq!(text("\"it's\"\n"), "\"it's\"\n");
        assert_eq!(
            attr("\"it's\"\n\tx\r"),
            "&quot;it&apos;s&quot;&#10;&#9;x&#13;"
        );
        assert_eq!(text("a\rb"), "a&#13;b");
    }

    #[test]
    fn characters_xml_forbids_are_replaced_by_pictures() {
        assert_eq!(text("a\u{0}b\u{1b}c\u{7}"), "a\u{2400}b\u{241b}c\u{2407}");
        assert_eq!(attr("\u{1}"), "\u{2401}");
        assert_eq!(text("\u{fffe}\u{ffff}"), "\u{fffd}\u{fffd}");
        // Allowed as they are: DEL, C1 controls, anything above.
        assert_eq!(text("\u{7f}\u{85}é∀😀"), "\u{7f}\u{85}é∀😀");
    }

    #[test]
    fn totals_count_every_suite() {
        let case = |outcome| Case {
            name: "n".into(),
            classname: "A.B".into(),
            location: None,
            time: 0.5,
            outcome,
            text: String::new(),
        };
        let suite = Suite {
            name: "A.B".into(),
            time: 1.5,
            properties: vec![("states".into(), "3".into())],
            cases: vec![
                case(Outcome::Passed),
                case(Outcome::Failure {
                    kind: "refuted".into(),
                    message: "deadlock".into(),
                }),
                case(Outcome::Error {
                    kind: "unproved".into(),
                    message: "a bound".into(),
                }),
            ],
        };
        let xml = report("hilbert build", 2.0, &[suite.clone(), suite]);
        assert!(
            xml.contains(
                "<testsuites name=\"hilbert build\" tests=\"6\" failures=\"2\" errors=\"2\" time=\"2.000\">"
            ),
            "{xml}"
        );
        assert!(xml.contains(
            "<testsuite name=\"A.B\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"1.500\">"
        ));
        assert!(xml.contains("<property name=\"states\" value=\"3\"/>"));
        assert!(xml.contains("<failure type=\"refuted\" message=\"deadlock\"></failure>"));
        assert_eq!(share(1.0, 4), 0.25);
        assert_eq!(share(1.0, 0), 0.0);
        assert_eq!(time(f64::NAN), "0.000");
    }
}
