//! `hilbert check [PATH…]`: load, parse and check, then report in the chosen format.

use crate::output;
use crate::{Format, json, junit, sarif};
use hilbert_frontend::input::InputError;
use hilbert_frontend::project::{self, LoadError, Loaded};
use hilbert_frontend::render::{self, Summary};
use hilbert_frontend::{SourceMap, Span};
use sha2::{Digest, Sha256};
use std::io::IsTerminal;

/// The options of `hilbert check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories (every .ha, .hk and .hb file under them); none means the current
    /// directory.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also write a report in FORMAT to FILE (`json`, `sarif`, `junit` or `human`), beside the
    /// one on standard output: `--report sarif=hilbert.sarif --report junit=hilbert-junit.xml`.
    /// Repeatable; each file is written whole, and a failing check still writes its reports.
    #[arg(long = "report", value_name = "FORMAT=FILE", value_parser = crate::output::report_arg::<Format>)]
    reports: Vec<crate::output::ReportTo<Format>>,
    /// Write no report on standard output: the exit code (and any --report file) says it all;
    /// errors still go to standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Treat warnings as errors: any warning makes the check fail (exit code 1).
    #[arg(long)]
    deny_warnings: bool,
    /// Colour the human report: `auto` colours only a terminal, and never when NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// The timeout of each Z3 query of the condition analysis and the frame conditions, in
    /// milliseconds; a query that times out proves nothing (its frame condition is HA0059).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    smt_timeout: u32,
    /// The total time of the check's Z3 queries (the condition analysis and the frame
    /// conditions), in milliseconds: once it is spent the rest are not asked, prove nothing and
    /// are named in warnings (HA0061, HA0059); 0 asks none.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    smt_budget: u64,
    /// A value of an agent parameter to check under, as for `build`: `NAME=VALUE` (every agent
    /// declaring NAME) or `AGENT.NAME=VALUE`; repeatable. The frame conditions of rules that
    /// read a parameter are decided with its value.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = crate::build::parse_param)]
    params: Vec<hilbert_frontend::ParamSpec>,
    /// Stop Z3 when the check's resident memory passes half of SIZE (such as 2G or 512M), or
    /// what Z3 holds does: its questions are then left unanswered, named, and the exit code is
    /// 2. The default is half of the machine's memory (or of its control group's or
    /// address-space limit, if smaller), as for `build`. Read from /proc: not enforced where
    /// there is none.
    #[arg(long, value_name = "SIZE", value_parser = crate::build::parse_memory)]
    max_memory: Option<u64>,
}

/// When to colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// Colour a terminal unless NO_COLOR is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl Color {
    /// Whether to colour standard output.
    pub fn enabled(self) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// Where a span is, in the 1-based lines and character columns the reports print. The end is
/// exclusive: the position just after the span's last character.
pub struct Location {
    /// The path as given (or as found under a given directory).
    pub file: String,
    /// First line.
    pub line: usize,
    /// First column.
    pub column: usize,
    /// Line of the end.
    pub end_line: usize,
    /// Column just after the end.
    pub end_column: usize,
}

/// Locates a span in its file.
pub fn locate(sources: &SourceMap, span: Span) -> Location {
    let Some(file) = sources.files().get(span.file.0 as usize) else {
        return Location {
            file: String::new(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
        };
    };
    let (line, column) = file.line_col(span.start);
    let (end_line, end_column) = file.line_col(span.end.max(span.start));
    Location {
        file: file.path.clone(),
        line,
        column,
        end_line,
        end_column,
    }
}

/// One input file and the SHA-256 of its bytes.
pub struct Input {
    /// The path.
    pub path: String,
    /// Lowercase hex.
    pub sha256: String,
}

/// Checks a loaded project lowered with the agent parameter values of `params` (`--param`, a
/// scenario's `params`); a value that names no declared parameter or does not parse at its type
/// is a usage error, said here, and its exit code returned.
pub fn check_with_params(
    loaded: &Loaded,
    smt: hilbert_smt::Options,
    params: &[hilbert_frontend::ParamSpec],
) -> Result<hilbert_frontend::Checked, u8> {
    let checked = hilbert_frontend::check_project_params(loaded, smt, params).map_err(|e| {
        output::fail(
            output::Kind::Usage,
            &e,
            "name a parameter an agent declares, with a value of its type: --param line=\"A\"",
        )
    })?;
    if let Some(stop) = checked.memory_stop {
        // The front end passed its share of the bound: its cut trees are not reported.
        let limit = smt.max_memory.unwrap_or(0);
        return Err(output::fail(
            output::Kind::System,
            &format!(
                "the check passed --max-memory {} {}: nothing was checked",
                hilbert_frontend::input::human_bytes(limit),
                stop.text(limit)
            ),
            "raise --max-memory, or split the sources (a rule of millions of terms, a file of millions of tokens) into smaller parts",
        ));
    }
    Ok(checked)
}

/// Runs the command and returns its exit code.
pub fn run(args: &Args) -> u8 {
    let begun = std::time::Instant::now();
    if let Err(code) = output::check_reports(&args.reports) {
        return code;
    }
    let (loaded, inputs) = match load_project(&args.paths) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let smt = hilbert_smt::Options {
        timeout_ms: args.smt_timeout,
        budget_ms: Some(args.smt_budget),
        keep_text: false,
        max_memory: Some(
            args.max_memory
                .unwrap_or_else(hilbert_prover::memory::default_limit),
        ),
    };
    let checked = match check_with_params(&loaded, smt, &args.params) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let summary = Summary::of(&checked.diagnostics, loaded.sources.files().len());
    let clean = is_clean(summary, args.deny_warnings);
    let render = |format: Format, color: bool| match format {
        Format::Human => {
            let mut text = render_capped(&checked.diagnostics, &loaded.sources, color);
            text.push_str(&summary.render(args.deny_warnings, color));
            text
        }
        Format::Json => json::report(&loaded, &checked.diagnostics, &inputs, clean, summary),
        Format::Sarif => sarif::report(&loaded.sources, &checked.diagnostics),
        Format::Junit => {
            let seconds = begun.elapsed().as_secs_f64();
            let suite = junit::check_suite(
                &loaded.sources,
                &checked.diagnostics,
                args.deny_warnings,
                seconds,
            );
            junit::report("hilbert check", seconds, &[suite])
        }
    };
    if let Err(code) = output::write_reports(&args.reports, &|f| render(f, false)) {
        return code;
    }
    if !args.quiet {
        output::stdout(&render(args.format, args.color.enabled()));
    }
    if let Some(code) = memory_stop(&checked.smt) {
        return code;
    }
    u8::from(!clean)
}

/// If the check's Z3 queries were stopped by `--max-memory` ([`hilbert_smt::Log::memory_passed`]):
/// says so on standard error, naming the bound, and gives exit code 2 (a resource bound, as
/// for `build`). The report, already written, names each question left unanswered.
pub fn memory_stop(log: &hilbert_smt::Log) -> Option<u8> {
    log.memory_passed()?;
    Some(output::fail(
        output::Kind::System,
        &format!(
            "the check passed --max-memory {}: the questions it was asking and would have asked are not answered",
            hilbert_smt::memory_passed_text()
        ),
        "raise --max-memory, or split a long condition into several rules of the same kind (rules of one kind and target are a disjunction)",
    ))
}

/// Loads the project at `paths` (the current directory when empty) and digests every file; an
/// environment error is reported on standard error and returned as its exit code.
pub fn load_project(paths: &[String]) -> Result<(Loaded, Vec<Input>), u8> {
    let paths = if paths.is_empty() {
        vec![".".to_string()]
    } else {
        paths.to_vec()
    };
    let loaded = project::load(&paths).map_err(|e| output::load_error(&e))?;
    let inputs = digests(&loaded);
    Ok((loaded, inputs))
}

/// Whether a check passes (exit code 0): no error, and no warning when warnings are denied.
pub fn is_clean(summary: Summary, deny_warnings: bool) -> bool {
    summary.errors == 0 && !(deny_warnings && summary.warnings > 0)
}

/// What to do about a load error.
pub fn hint(e: &LoadError) -> &'static str {
    match e {
        LoadError::Input(InputError::Io { .. }) => {
            "check the path: `hilbert check` takes files and directories of .ha, .hk and .hb sources"
        }
        LoadError::Input(InputError::NotRegular { .. }) => {
            "sources are regular files; a FIFO, device, socket or directory named as a source is never read"
        }
        LoadError::Input(InputError::TooLarge { .. }) => {
            "a source file is at most 16 MiB: split it into several files of the project"
        }
        LoadError::LinkLoop { .. } => {
            "remove the link, or point it somewhere outside the directories that enclose it"
        }
        LoadError::NotASource { .. } => {
            "name a .ha, .hk or .hb file, or a directory that holds them"
        }
        LoadError::NoSources { .. } => {
            "name a directory that holds a Hilbert project, such as examples/production-line"
        }
    }
}

/// The SHA-256 of every loaded file's bytes as they were read (a file that was not UTF-8 is
/// digested from its original bytes, not from its lossily decoded text).
pub fn digests(loaded: &Loaded) -> Vec<Input> {
    loaded
        .sources
        .files()
        .iter()
        .map(|file| {
            let digest = match loaded.undecodable.iter().position(|&id| id == file.id) {
                Some(i) => Sha256::digest(&loaded.undecodable_bytes[i]),
                None => Sha256::digest(file.text.as_bytes()),
            };
            Input {
                path: file.path.clone(),
                sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
            }
        })
        .collect()
}

/// At most this many diagnostics are shown in a human report; the rest are counted.
pub(crate) const SHOWN: usize = 500;

/// A line of a rendered diagnostic longer than this many characters is cut in its middle.
const LINE: usize = 1000;

/// The human rendering of `diagnostics`: the first [`SHOWN`], each followed by a blank line,
/// then how many more were not shown; a line over [`LINE`] characters (a source line of a
/// megabyte) keeps its first and last characters and says how many are left out. So a report
/// is bounded however many diagnostics, or however long a line: `--format json` has them all.
pub(crate) fn render_capped(
    diagnostics: &[hilbert_frontend::Diagnostic],
    sources: &hilbert_frontend::SourceMap,
    color: bool,
) -> String {
    let mut text = String::new();
    for d in diagnostics.iter().take(SHOWN) {
        for line in render::render(d, sources, color).split_inclusive('\n') {
            text.push_str(&cut_line(line));
        }
        text.push('\n');
    }
    if diagnostics.len() > SHOWN {
        text.push_str(&format!(
            "… and {} more diagnostics not shown (the first {SHOWN} are): `--format json` lists them all\n\n",
            diagnostics.len() - SHOWN
        ));
    }
    text
}

/// `line` with its middle left out when it has more than [`LINE`] characters.
fn cut_line(line: &str) -> std::borrow::Cow<'_, str> {
    let count = line.chars().count();
    if count <= LINE {
        return line.into();
    }
    let (head, tail) = (LINE * 2 / 3, LINE / 4);
    let start: String = line.chars().take(head).collect();
    let end: String = line.chars().skip(count - tail).collect();
    format!(
        "{start} … ({} characters not shown) … {end}",
        count - head - tail
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_pass_unless_denied_and_errors_never_pass() {
        let counts = |errors, warnings| Summary {
            files: 1,
            files_with_findings: 1,
            errors,
            warnings,
        };
        assert!(is_clean(counts(0, 0), false));
        assert!(is_clean(counts(0, 0), true));
        assert!(is_clean(counts(0, 2), false));
        assert!(!is_clean(counts(0, 2), true));
        assert!(!is_clean(counts(1, 0), false));
        assert!(!is_clean(counts(1, 3), true));
    }
}
