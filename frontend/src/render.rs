//! Rendering diagnostics for a person, in the layout rustc made familiar:
//!
//! ```text
//! error[HK0001]: unexpected character `#`
//!  --> Line.hk:1:28
//!   |
//! 1 | plan P() : Operator ≔ SKIP # done
//!   |                            ^ no Hilbert dialect uses this character
//!   |
//!   = help: comments start with `--`
//! ```
//!
//! Columns are counted in characters; a tab is shown as four spaces, in the source line and in
//! the caret line alike, so carets stay under what they point at. Control characters and
//! bidirectional overrides are shown as `�` so a hostile file cannot rewrite the terminal.
//! Nothing here panics: a span outside its file, or a file the map does not hold, is rendered
//! as well as it can be.

use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{FileId, SourceFile, SourceMap, Span};
use std::fmt::Write as _;

/// How a tab is shown.
const TAB: &str = "    ";

/// ANSI styles, or none.
#[derive(Clone, Copy)]
struct Style {
    color: bool,
}

impl Style {
    const ERROR: &'static str = "1;31";
    const WARNING: &'static str = "1;33";
    const BLUE: &'static str = "1;34";
    const BOLD: &'static str = "1";

    fn paint(self, style: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{style}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn severity(severity: Severity) -> &'static str {
        match severity {
            Severity::Error => Style::ERROR,
            Severity::Warning => Style::WARNING,
        }
    }
}

/// One underlined place in a snippet.
struct Mark<'a> {
    span: Span,
    label: &'a str,
    primary: bool,
}

/// A mark resolved to a line and display columns.
struct Placed<'a> {
    line: usize,
    /// Display column (0-based) where the underline starts.
    start: usize,
    /// Underline width, at least 1.
    width: usize,
    label: &'a str,
    primary: bool,
}

/// Renders one diagnostic as text, ending with a newline. With `color`, ANSI escapes colour the
/// severity, the gutter and the underlines; without, the output is plain text.
pub fn render(diagnostic: &Diagnostic, sources: &SourceMap, color: bool) -> String {
    let style = Style { color };
    let sev = Style::severity(diagnostic.severity);
    let mut out = String::new();
    let head = format!("{}[{}]", diagnostic.severity, diagnostic.code);
    let _ = writeln!(
        out,
        "{}{}",
        style.paint(sev, &head),
        style.paint(Style::BOLD, &format!(": {}", one_line(&diagnostic.message)))
    );

    // Group the marks by file: the primary span's file first, then the others in order.
    let mut groups: Vec<(FileId, Vec<Mark>)> = vec![(
        diagnostic.span.file,
        vec![Mark {
            span: diagnostic.span,
            label: &diagnostic.label,
            primary: true,
        }],
    )];
    for label in &diagnostic.secondary {
        let mark = Mark {
            span: label.span,
            label: &label.message,
            primary: false,
        };
        match groups.iter_mut().find(|(f, _)| *f == label.span.file) {
            Some((_, marks)) => marks.push(mark),
            None => groups.push((label.span.file, vec![mark])),
        }
    }

    // Place every mark, then size the gutter for the largest line number shown.
    let placed: Vec<(Option<&SourceFile>, Vec<Placed>)> = groups
        .iter()
        .map(|(file, marks)| {
            let file = sources.files().get(file.0 as usize);
            let placed = match file {
                Some(f) => marks.iter().map(|m| place(f, m)).collect(),
                None => Vec::new(),
            };
            (file, placed)
        })
        .collect();
    let width = placed
        .iter()
        .flat_map(|(_, p)| p.iter().map(|p| digits(p.line)))
        .max()
        .unwrap_or(1);
    let pad = " ".repeat(width);
    let bar = style.paint(Style::BLUE, "|");

    for (index, ((file, marks), (_, group))) in placed.iter().zip(&groups).enumerate() {
        let first = &group[0];
        let arrow = if index == 0 { "-->" } else { ":::" };
        if index > 0 {
            let _ = writeln!(out, "{pad} {bar}");
        }
        let location = match file {
            Some(f) => {
                let (line, col) = f.line_col(first.span.start);
                format!("{}:{line}:{col}", display_path(&f.path))
            }
            None => "<unknown file>".to_string(),
        };
        let _ = writeln!(
            out,
            "{}{} {}",
            pad,
            style.paint(Style::BLUE, arrow),
            location
        );
        let Some(file) = file else { continue };
        let _ = writeln!(out, "{pad} {bar}");
        let mut lines: Vec<usize> = marks.iter().map(|m| m.line).collect();
        lines.sort_unstable();
        lines.dedup();
        let mut previous: Option<usize> = None;
        for line in lines {
            if previous.is_some_and(|p| line > p + 1) {
                let _ = writeln!(out, "{}", style.paint(Style::BLUE, "..."));
            }
            previous = Some(line);
            let text = display_line(file.line_text(line));
            let number = style.paint(Style::BLUE, &format!("{line:>width$}"));
            if text.is_empty() {
                let _ = writeln!(out, "{number} {bar}");
            } else {
                let _ = writeln!(out, "{number} {bar} {text}");
            }
            // Primary marks first, then secondary ones, each in order of appearance.
            let on_line = marks
                .iter()
                .filter(|m| m.line == line && m.primary)
                .chain(marks.iter().filter(|m| m.line == line && !m.primary));
            for mark in on_line {
                let (ch, colour) = if mark.primary {
                    ('^', sev)
                } else {
                    ('-', Style::BLUE)
                };
                let underline = ch.to_string().repeat(mark.width);
                let label = one_line(mark.label);
                let tail = if label.is_empty() {
                    underline
                } else {
                    format!("{underline} {label}")
                };
                let _ = writeln!(
                    out,
                    "{pad} {bar} {}{}",
                    " ".repeat(mark.start),
                    style.paint(colour, &tail)
                );
            }
        }
    }

    let extras = diagnostic
        .notes
        .iter()
        .map(|n| ("note", n.as_str()))
        .chain(diagnostic.help.iter().map(|h| ("help", h.as_str())));
    let mut first_extra = true;
    for (kind, text) in extras {
        if first_extra {
            let _ = writeln!(out, "{pad} {bar}");
            first_extra = false;
        }
        let indent = " ".repeat(width + 3 + kind.len() + 2);
        let mut lines = text.lines();
        let head = lines.next().unwrap_or("");
        let _ = writeln!(
            out,
            "{pad} {} {head}",
            style.paint(Style::BOLD, &format!("= {kind}:"))
        );
        for rest in lines {
            let _ = writeln!(out, "{indent}{rest}");
        }
    }
    out
}

/// Resolves a mark to its line and display columns in `file`.
fn place<'a>(file: &SourceFile, mark: &Mark<'a>) -> Placed<'a> {
    let (line, col) = file.line_col(mark.span.start);
    let text = file.line_text(line);
    let start = display_width(text.chars().take(col - 1));
    let (end_line, end_col) = file.line_col(mark.span.end.max(mark.span.start));
    let end_col = if end_line == line {
        end_col
    } else {
        // A span that crosses lines is underlined to the end of its first line.
        text.chars().count() + 1
    };
    let width = display_width(text.chars().skip(col - 1).take(end_col.saturating_sub(col)));
    Placed {
        line,
        start,
        width: width.max(1),
        label: mark.label,
        primary: mark.primary,
    }
}

/// The width of some characters as shown: a tab is four columns, everything else one.
fn display_width(chars: impl Iterator<Item = char>) -> usize {
    chars.map(|c| if c == '\t' { TAB.len() } else { 1 }).sum()
}

/// A source line as shown: tabs expanded, unsafe characters replaced.
fn display_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\t' {
            out.push_str(TAB);
        } else if is_unsafe(c) {
            out.push('\u{fffd}');
        } else {
            out.push(c);
        }
    }
    out.trim_end().to_string()
}

/// A file name as a report shows it: a control character or a bidirectional override in it
/// (which would rewrite a terminal's display, or split the `-->` line) is written as its
/// escape, `\u{1b}` or `\n`, so that the name stays on one line and can still be told apart.
pub fn display_path(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.chars().any(is_unsafe) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Control characters and bidirectional overrides, which would rewrite a terminal's display.
pub(crate) fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A message on one line, with unsafe characters replaced.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == '\n' || c == '\t' {
                ' '
            } else if is_unsafe(c) {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

fn digits(n: usize) -> usize {
    n.max(1).ilog10() as usize + 1
}

/// The counts behind the last line of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Summary {
    /// Files checked.
    pub files: usize,
    /// Files with at least one diagnostic.
    pub files_with_findings: usize,
    /// Errors reported.
    pub errors: usize,
    /// Warnings reported.
    pub warnings: usize,
}

impl Summary {
    /// Counts `diagnostics` over a check of `files` files.
    pub fn of(diagnostics: &[Diagnostic], files: usize) -> Summary {
        let mut with_findings: Vec<FileId> = diagnostics.iter().map(|d| d.span.file).collect();
        with_findings.sort_unstable();
        with_findings.dedup();
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        Summary {
            files,
            files_with_findings: with_findings.len(),
            errors,
            warnings: diagnostics.len() - errors,
        }
    }

    /// The summary line, ending with a newline: `error: 3 errors and 1 warning in 2 files`,
    /// `checked 2 files: no errors, 1 warning`, or `checked 2 files: no errors`. With
    /// `deny_warnings`, warnings alone make it an error line.
    pub fn render(&self, deny_warnings: bool, color: bool) -> String {
        let style = Style { color };
        let found = |counts: String, suffix: &str| {
            format!(
                "{}{}\n",
                style.paint(Style::ERROR, "error"),
                style.paint(
                    Style::BOLD,
                    &format!(
                        ": {counts} in {}{suffix}",
                        plural(self.files_with_findings, "file", "files")
                    )
                )
            )
        };
        let warnings = plural(self.warnings, "warning", "warnings");
        if self.errors > 0 {
            let mut counts = plural(self.errors, "error", "errors");
            if self.warnings > 0 {
                counts = format!("{counts} and {warnings}");
            }
            found(counts, "")
        } else if self.warnings > 0 && deny_warnings {
            found(warnings, " (warnings are denied)")
        } else if self.warnings > 0 {
            format!(
                "checked {}: no errors, {warnings}\n",
                plural(self.files, "file", "files")
            )
        } else {
            format!(
                "checked {}: no errors\n",
                plural(self.files, "file", "files")
            )
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;
    use crate::source::Dialect;

    fn map(files: &[(&str, &str)]) -> SourceMap {
        let mut map = SourceMap::new();
        for (path, text) in files {
            let dialect = Dialect::of_path(path).unwrap_or(Dialect::Agent);
            map.add(path.to_string(), dialect, text.to_string());
        }
        map
    }

    fn span(file: u32, start: usize, end: usize) -> Span {
        Span::new(FileId(file), start..end)
    }

    fn code(n: u16) -> Code {
        Code::new(Dialect::Plans, n)
    }

    #[test]
    fn a_file_name_with_control_characters_is_shown_escaped_on_one_line() {
        let name = "bad\u{1b}[31mname\nline\u{202e}.hk";
        let sources = map(&[(name, "plan P() : A ≔ SKIP\n")]);
        let d = Diagnostic::error(code(6), span(0, 0, 4), "a message").with_label("here");
        let text = render(&d, &sources, false);
        assert!(
            text.contains(" --> bad\\u{1b}[31mname\\nline\\u{202e}.hk:1:1\n"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'));
        assert_eq!(display_path("Line.hk"), "Line.hk");
    }

    /// Byte offset of the first occurrence of `needle` in `text`.
    fn at(text: &str, needle: &str) -> usize {
        text.find(needle).expect("needle in text")
    }

    #[test]
    fn primary_label_note_and_help() {
        let text = "plan P() : Operator ≔ SKIP # done\n";
        let sources = map(&[("Line.hk", text)]);
        let start = at(text, "#");
        let d = Diagnostic::error(
            code(1),
            span(0, start, start + 1),
            "unexpected character `#`",
        )
        .with_label("no Hilbert dialect uses this character")
        .with_note("the lexer skipped it")
        .with_help("comments start with `--`");
        let expected = "\
error[HK0001]: unexpected character `#`
 --> Line.hk:1:28
  |
1 | plan P() : Operator ≔ SKIP # done
  |                            ^ no Hilbert dialect uses this character
  |
  = note: the lexer skipped it
  = help: comments start with `--`
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn width_counts_characters_not_bytes() {
        let text = "x ≔≔ y\n";
        let sources = map(&[("a.hk", text)]);
        let start = at(text, "≔≔");
        let d = Diagnostic::warning(code(6), span(0, start, start + 6), "twice").with_label("here");
        let expected = "\
warning[HK0006]: twice
 --> a.hk:1:3
  |
1 | x ≔≔ y
  |   ^^ here
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn tabs_are_expanded_in_line_and_carets_alike() {
        let text = "\tbelieve\tmade(1)\n";
        let sources = map(&[("a.hk", text)]);
        let start = at(text, "made");
        let d = Diagnostic::error(code(6), span(0, start, start + 4), "m").with_label("l");
        let expected = "\
error[HK0006]: m
 --> a.hk:1:10
  |
1 |     believe    made(1)
  |                ^^^^ l
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn a_tab_inside_the_span_widens_the_carets() {
        let text = "a\tb\n";
        let sources = map(&[("a.hk", text)]);
        let d = Diagnostic::error(code(6), span(0, 0, 3), "m");
        let expected = "\
error[HK0006]: m
 --> a.hk:1:1
  |
1 | a    b
  | ^^^^^^
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn a_span_crossing_lines_underlines_to_the_end_of_its_first_line() {
        let text = "plan P() : Operator\n{\n  body ≔ SKIP\n";
        let sources = map(&[("a.hk", text)]);
        let start = at(text, "Operator");
        let d = Diagnostic::error(code(9), span(0, start, text.len()), "unclosed")
            .with_label("this never ends");
        let expected = "\
error[HK0009]: unclosed
 --> a.hk:1:12
  |
1 | plan P() : Operator
  |            ^^^^^^^^ this never ends
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn an_empty_span_gets_one_caret_even_past_the_end() {
        let text = "agent A() {";
        let sources = map(&[("a.ha", text)]);
        let end = text.len();
        let d = Diagnostic::error(Code::new(Dialect::Agent, 9), span(0, end, end), "eof")
            .with_label("expected `}`");
        let expected = "\
error[HA0009]: eof
 --> a.ha:1:12
  |
1 | agent A() {
  |            ^ expected `}`
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn secondary_labels_in_the_same_file_share_the_snippet() {
        let text = "plan A() : O ≔ SKIP\n\nplan A() : O ≔ STOP\n";
        let sources = map(&[("a.hk", text)]);
        let second = text.rfind("A()").unwrap();
        let first = at(text, "A()");
        let d = Diagnostic::error(code(21), span(0, second, second + 1), "duplicate plan `A`")
            .with_label("declared again here")
            .with_secondary(span(0, first, first + 1), "first declared here");
        let expected = "\
error[HK0021]: duplicate plan `A`
 --> a.hk:3:6
  |
1 | plan A() : O ≔ SKIP
  |      - first declared here
...
3 | plan A() : O ≔ STOP
  |      ^ declared again here
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn two_marks_on_one_line_get_a_row_each_primary_first() {
        let text = "x ← c ; y ← c\n";
        let sources = map(&[("a.hk", text)]);
        let x = at(text, "x");
        let y = at(text, "y");
        let d = Diagnostic::error(code(30), span(0, y, y + 1), "m")
            .with_label("second")
            .with_secondary(span(0, x, x + 1), "first");
        let expected = "\
error[HK0030]: m
 --> a.hk:1:9
  |
1 | x ← c ; y ← c
  |         ^ second
  | - first
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn secondary_labels_in_another_file_get_their_own_section_and_a_shared_gutter() {
        let line_hk = format!("{}plan P() : Nobody ≔ SKIP\n", "\n".repeat(11));
        let op_ha = "agent Operator() : Agency {}\n";
        let sources = map(&[("Line.hk", &line_hk), ("Operator.ha", op_ha)]);
        let start = at(&line_hk, "Nobody");
        let agent = at(op_ha, "Operator");
        let d = Diagnostic::error(code(22), span(0, start, start + 6), "no agent `Nobody`")
            .with_label("not an agent")
            .with_secondary(span(1, agent, agent + 8), "the only agent");
        let expected = "\
error[HK0022]: no agent `Nobody`
  --> Line.hk:12:12
   |
12 | plan P() : Nobody ≔ SKIP
   |            ^^^^^^ not an agent
   |
  ::: Operator.ha:1:7
   |
 1 | agent Operator() : Agency {}
   |       -------- the only agent
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn hostile_characters_are_replaced_and_multiline_notes_are_indented() {
        let text = "a\u{1b}[2Jb\u{202e}c\n";
        let sources = map(&[("a.hk", text)]);
        let d = Diagnostic::error(code(1), span(0, 1, 2), "escape\u{1b}")
            .with_note("first line\nsecond line");
        let expected = "\
error[HK0001]: escape\u{fffd}
 --> a.hk:1:2
  |
1 | a\u{fffd}[2Jb\u{fffd}c
  |  ^
  |
  = note: first line
          second line
";
        assert_eq!(render(&d, &sources, false), expected);
    }

    #[test]
    fn an_unknown_file_or_a_span_past_the_end_does_not_panic() {
        let sources = map(&[("a.hk", "ab")]);
        let d = Diagnostic::error(code(6), span(7, 0, 1), "lost");
        assert_eq!(
            render(&d, &sources, false),
            "error[HK0006]: lost\n --> <unknown file>\n"
        );
        let d = Diagnostic::error(code(6), span(0, 50, 40), "far");
        assert_eq!(
            render(&d, &sources, false),
            "error[HK0006]: far\n --> a.hk:1:3\n  |\n1 | ab\n  |   ^\n"
        );
    }

    #[test]
    fn colour_adds_escapes_and_nothing_else() {
        let text = "plan P() : O ≔ SKIP $\n";
        let sources = map(&[("a.hk", text), ("b.ha", "agent O() {}\n")]);
        let d = Diagnostic::warning(code(1), span(0, 20, 21), "dollar")
            .with_label("here")
            .with_secondary(span(1, 6, 7), "there")
            .with_help("remove it");
        let coloured = render(&d, &sources, true);
        assert!(coloured.starts_with("\x1b[1;33mwarning[HK0001]\x1b[0m"));
        assert!(coloured.contains("\x1b[1;33m^ here\x1b[0m"));
        assert!(coloured.contains("\x1b[1;34m- there\x1b[0m"));
        assert_eq!(strip_ansi(&coloured), render(&d, &sources, false));
    }

    fn strip_ansi(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn summaries() {
        let s = Summary {
            files: 4,
            files_with_findings: 2,
            errors: 3,
            warnings: 1,
        };
        assert_eq!(
            s.render(false, false),
            "error: 3 errors and 1 warning in 2 files\n"
        );
        let s = Summary {
            files: 1,
            files_with_findings: 1,
            errors: 1,
            warnings: 0,
        };
        assert_eq!(s.render(false, false), "error: 1 error in 1 file\n");
        let s = Summary {
            files: 2,
            files_with_findings: 1,
            errors: 0,
            warnings: 2,
        };
        assert_eq!(
            s.render(false, false),
            "checked 2 files: no errors, 2 warnings\n"
        );
        assert_eq!(
            s.render(true, false),
            "error: 2 warnings in 1 file (warnings are denied)\n"
        );
        let s = Summary {
            files: 1,
            ..Summary::default()
        };
        assert_eq!(s.render(true, false), "checked 1 file: no errors\n");
        assert_eq!(s.render(true, true), "checked 1 file: no errors\n");
    }

    #[test]
    fn summary_counts_files_with_findings() {
        let d = |file, sev| {
            let d = Diagnostic::error(code(1), span(file, 0, 1), "m");
            Diagnostic { severity: sev, ..d }
        };
        let diags = [
            d(0, Severity::Error),
            d(0, Severity::Warning),
            d(2, Severity::Error),
        ];
        assert_eq!(
            Summary::of(&diags, 3),
            Summary {
                files: 3,
                files_with_findings: 2,
                errors: 2,
                warnings: 1
            }
        );
    }
}
