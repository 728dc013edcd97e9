//! Writing to the terminal without panicking: a closed pipe (`hilbert check | head`) ends the
//! output quietly instead of aborting with a panic, as `println!` would.
//!
//! Every usage or environment error goes through [`fail`] (or [`fail_at`]), which knows the
//! format the command line asked for: under `--format json` it also writes the error object of
//! `docs/schema/error.schema.json` on standard output, so a pipeline that parses standard output
//! always gets one JSON document (`docs/cli.md`, "Errors under `--format json`").

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the command line asked for `--format json` (set once by `main`).
static JSON: AtomicBool = AtomicBool::new(false);
/// Whether a report was written on standard output: an error after it adds no second document.
static WROTE: AtomicBool = AtomicBool::new(false);

/// The value parser of every flag that names a file or directory: an empty path names none (a
/// directory of `""` was the current one, so `build --out ""` wrote into it), a usage error.
pub fn path_arg(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err(
            "an empty path names no file or directory: give one (`.` for the current directory)"
                .into(),
        );
    }
    Ok(text.to_string())
}

/// Writes a whole output file, or none: a write that fails (a full disk) removes what it began,
/// so no torn or empty file is left where a reader expects a whole one.
pub fn write_whole(path: &std::path::Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    std::fs::write(path, bytes).inspect_err(|_| {
        let _ = std::fs::remove_file(path);
    })
}

/// Says whether errors are to be written as JSON on standard output too.
pub fn set_json(json: bool) {
    JSON.store(json, Ordering::Relaxed);
}

/// What kind of error ended the command (`error.kind` in the JSON error object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The command line is wrong: an unknown flag or value, an unknown code, agent, suite,
    /// model, parameter or predicate, flags that do not go together.
    Usage,
    /// A file the command reads cannot be used: missing, not permitted, not a regular file, over
    /// its cap, not a source, a directory with no source or a link loop, a scenario or journal
    /// that does not parse.
    Input,
    /// A file or directory the command writes cannot be written (`--out`, `--journal`,
    /// `--emit-smt`, `--emit-values`, `--trace-svg`, `--plot`).
    Output,
    /// The system refused something that is neither (a signal handler, this program's path).
    System,
    /// `run`: the project has errors, so nothing runs (exit code 1).
    Check,
    /// `run`: the kernel has not admitted the plan networks, so nothing runs (exit code 1).
    NotAdmitted,
}

impl Kind {
    /// The name in the JSON error object.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Usage => "usage",
            Kind::Input => "input",
            Kind::Output => "output",
            Kind::System => "system",
            Kind::Check => "check",
            Kind::NotAdmitted => "not_admitted",
        }
    }
}

/// The first error writing standard output other than a closed pipe (a full disk, an I/O
/// error), which makes the command an environment error ([`write_failure`]).
static WRITE_FAILED: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Writes `text` to standard output. A closed pipe (`hilbert check | head`) is ignored: the
/// exit code still says what was found. Any other write error (`> /dev/full`) is kept, and
/// `main` ends the command with exit code 2: a report that was not written is not a report.
pub fn stdout(text: &str) {
    WROTE.store(true, Ordering::Relaxed);
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
        && let Ok(mut failed) = WRITE_FAILED.lock()
        && failed.is_none()
    {
        *failed = Some(e.to_string());
    }
}

/// If writing standard output failed (not a closed pipe): says so on standard error and gives
/// exit code 2.
pub fn write_failure() -> Option<u8> {
    let failed = WRITE_FAILED.lock().ok()?.clone()?;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "error: cannot write the report to standard output: {failed}\n  = help: write it to a file or a pipe with room for it"
    );
    Some(2)
}

/// Writes an environment or usage error to standard error, as `error: …` and a `help:` line
/// (and under `--format json` its JSON object on standard output), and returns exit code 2.
pub fn fail(kind: Kind, message: &str, help: &str) -> u8 {
    report(kind, None, message, help)
}

/// [`fail`] for an error about one file or directory, which the JSON object names as `path`.
pub fn fail_at(kind: Kind, path: &str, message: &str, help: &str) -> u8 {
    report(kind, Some(path), message, help)
}

/// A project that could not be loaded, with its hint.
pub fn load_error(e: &hilbert_frontend::project::LoadError) -> u8 {
    fail_at(Kind::Input, e.path(), &e.to_string(), crate::check::hint(e))
}

/// A command that refuses to go on (exit code 1) and says why in `human`, its report for
/// people: on standard output, or under `--format json` on standard error, with the JSON error
/// object of `kind`, `message` and `help` on standard output.
pub fn refuse(kind: Kind, human: &str, message: &str, help: &str) -> u8 {
    if JSON.load(Ordering::Relaxed) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(human.as_bytes());
        drop(err);
        if !WROTE.load(Ordering::Relaxed) {
            stdout(&error_json(kind, None, message, help));
        }
    } else {
        stdout(human);
    }
    1
}

fn report(kind: Kind, path: Option<&str>, message: &str, help: &str) -> u8 {
    {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "error: {message}");
        if !help.is_empty() {
            let _ = writeln!(err, "  = help: {help}");
        }
    }
    if JSON.load(Ordering::Relaxed) && !WROTE.load(Ordering::Relaxed) {
        stdout(&error_json(kind, path, message, help));
    }
    crate::EXIT_USAGE
}

/// The JSON error object, on one line (so that it is also a line of `run`'s JSON Lines).
pub fn error_json(kind: Kind, path: Option<&str>, message: &str, help: &str) -> String {
    let mut error = serde_json::json!({
        "kind": kind.name(),
        "message": message,
        "hint": if help.is_empty() { serde_json::Value::Null } else { help.into() },
    });
    if let Some(path) = path {
        error["path"] = path.into();
    }
    let object = serde_json::json!({
        "schema_version": crate::json::SCHEMA_VERSION,
        "tool": crate::json::Tool::this(),
        "error": error,
    });
    serde_json::to_string(&object).unwrap_or_default() + "\n"
}

/// Whether `args` (the command line without the program's name) asks for `--format json`: read
/// before clap parses it, so that clap's own usage errors can be answered in JSON too. It looks
/// at `--format json` and `--format=json` before a `--`, as clap would take them.
pub fn asks_for_json<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> bool {
    let mut words = args.iter().map(|a| a.as_ref().to_str().unwrap_or(""));
    let mut json = false;
    while let Some(word) = words.next() {
        match word {
            "--" => break,
            "--format" => json = words.next() == Some("json"),
            w if w.starts_with("--format=") => json = w == "--format=json",
            _ => {}
        }
    }
    json
}

/// One `--report FORMAT=FILE`: a report in another format than standard output's, written to a
/// file by the same run (so that a pipeline gets every report, and the gate's exit code, from
/// one build).
#[derive(Clone, Debug)]
pub struct ReportTo<F> {
    /// The report's format.
    pub format: F,
    /// The file it is written to, whole or not at all.
    pub path: String,
}

/// The value parser of `--report FORMAT=FILE`.
pub fn report_arg<F: clap::ValueEnum>(text: &str) -> Result<ReportTo<F>, String> {
    let names: Vec<String> = F::value_variants()
        .iter()
        .filter_map(|v| v.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
    let Some((format, path)) = text.split_once('=') else {
        return Err(format!(
            "expected FORMAT=FILE, such as junit=hilbert-junit.xml (FORMAT one of {})",
            names.join(", ")
        ));
    };
    let format = F::from_str(format, true).map_err(|_| {
        format!(
            "`{format}` is not a report format: FORMAT is one of {}",
            names.join(", ")
        )
    })?;
    path_arg(path).map(|path| ReportTo { format, path })
}

/// A usage error when two `--report`s name one file (one would overwrite the other), said
/// before any work is done.
pub fn check_reports<F>(reports: &[ReportTo<F>]) -> Result<(), u8> {
    let mut seen = std::collections::HashSet::new();
    for r in reports {
        // `r.json` and `./r.json` are one file.
        let path: std::path::PathBuf = std::path::Path::new(&r.path)
            .components()
            .filter(|c| *c != std::path::Component::CurDir)
            .collect();
        if !seen.insert(path) {
            return Err(fail_at(
                Kind::Usage,
                &r.path,
                &format!("two --report flags name the file `{}`", r.path),
                "give each report a file of its own",
            ));
        }
    }
    Ok(())
}

/// Writes every `--report` file, each rendered by `render`, whole or not at all. A file that
/// cannot be written is an environment error (exit code 2) naming it.
pub fn write_reports<F: Copy>(
    reports: &[ReportTo<F>],
    render: &dyn Fn(F) -> String,
) -> Result<(), u8> {
    for r in reports {
        if let Err(e) = write_whole(std::path::Path::new(&r.path), render(r.format)) {
            return Err(fail_at(
                Kind::Output,
                &r.path,
                &format!("cannot write the report `{}`: {e}", r.path),
                "choose a writable file with --report FORMAT=FILE",
            ));
        }
    }
    Ok(())
}
