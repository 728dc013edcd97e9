//! The `hilbert` command line: `hilbert check`, `build`, `verify`, `run`, `replay`, `bench`,
//! `explain` and `lsp` (see `docs/cli.md`).
//!
//! This is the only place that prints or exits. Exit codes: 0 clean, 1 refused (errors, or
//! warnings under `--deny-warnings`), 2 a usage or environment error (clap's own usage errors
//! exit 2 as well). Nothing here panics on any input: every failure is a message and a code.

mod bench;
mod build;
mod check;
mod explain;
mod json;
mod junit;
mod output;
mod progress;
mod run;
mod sarif;
mod trace;
mod verify;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// The allocator: mimalloc. The explorer, the certificate builder and the kernel allocate and
/// free many small terms on every core; glibc's allocator spent a third of a large build in
/// `malloc`/`free` and grew superlinearly with the state count (see `benchmarks/README.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `--version`: the version, and the commit and date it was built from (from git by `build.rs`;
/// `unknown` when built without git).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("HILBERT_COMMIT"),
    ", ",
    env!("HILBERT_COMMIT_DATE"),
    ")"
);

/// What every `--help` ends with: the exit codes (docs/cli.md, "Exit codes").
const EXIT_CODES: &str = "Exit codes:
  0    admitted (build, verify), clean (check), run finished, replay matched, bench as expected
  1    refused: an error, a theorem refuted or unproved, a certificate refused, a replay mismatch
  2    a usage or environment error, or a resource bound passed (--max-states, --max-memory)
  3    replay: the journal ends early, every entry it holds matched
  130, 143, 129    run interrupted by SIGINT, SIGTERM, SIGHUP

The contract of every command is docs/cli.md.";

/// A verifier for BDI agents written in three dialects: `.ha` agents, `.hk` plans, `.hb` values.
#[derive(Parser, Debug)]
#[command(name = "hilbert", version = VERSION, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse and check the sources, without exploring the plan networks.
    #[command(after_help = concat!("Example:\n  hilbert check examples/production-line --deny-warnings\n\n", "Exit codes: 0 clean, 1 an error (or a warning under --deny-warnings), 2 a usage or environment error."))]
    Check(check::Args),
    /// Check, explore every plan network, and prove its obligations.
    #[command(after_help = concat!("Example (a CI gate that writes its reports):\n  hilbert build examples/production-line --out target/hilbert --report sarif=hilbert.sarif --report junit=hilbert-junit.xml\n\n", "Exit codes: 0 admitted, 1 refused, 2 a usage or environment error or a bound passed."))]
    Build(build::Args),
    /// Re-check certificates with the kernel alone (for auditors).
    #[command(after_help = concat!("Example:\n  hilbert verify target/hilbert/*.cert --sources examples/production-line\n\n", "Exit codes: 0 every certificate admitted (and the sources covered), 1 refused or invalid, 2 a usage or environment error."))]
    Verify(verify::Args),
    /// Run an agent through a scenario: a readable trace, and the journal.
    #[command(after_help = concat!("Example:\n  hilbert run examples/production-line --agent Operator --scenario examples/production-line/scenarios/alarm-at-2.json --journal run.jsonl\n\n", "Exit codes: 0 finished, 1 not admitted or the project has errors, 2 a usage or environment error or a bound passed, 130/143/129 interrupted."))]
    Run(run::RunArgs),
    /// Re-run a journal and confirm every step matches.
    #[command(after_help = concat!("Example:\n  hilbert replay run.jsonl\n\n", "Exit codes: 0 matched, 1 a mismatch, 2 a usage or environment error, 3 the journal ends early."))]
    Replay(run::ReplayArgs),
    /// Run the benchmark suite: a table of states, times, memory and verdicts.
    #[command(after_help = concat!("Example:\n  hilbert bench smoke --plot target/plots\n\n", "Exit codes: 0 every verdict as expected, 1 a verdict differs or a row failed, 2 a usage or environment error."))]
    Bench(bench::Args),
    /// Say what a diagnostic code means, with an example and the fix.
    #[command(after_help = concat!("Example:\n  hilbert explain HK0006\n\n", "Exit codes: 0 explained, 2 not a documented code."))]
    Explain(explain::Args),
    /// Print a shell completion script for hilbert on standard output.
    #[command(after_help = concat!("Example (bash; docs/cli.md gives the others):\n  hilbert completions bash > ~/.local/share/bash-completion/completions/hilbert\n\n", "Exit codes: 0 written, 2 an unknown shell."))]
    Completions(CompletionsArgs),
    /// Print hilbert's manual page (roff) on standard output.
    #[command(after_help = concat!("Example:\n  mkdir -p ~/.local/share/man/man1 && hilbert man > ~/.local/share/man/man1/hilbert.1\n\n", "Exit codes: 0 written."))]
    Man,
    /// Serve the Language Server Protocol on standard input and output, for editors
    /// (docs/editors.md).
    #[command(after_help = concat!("Example (what an editor's client runs):\n  hilbert lsp\n\n", "Exit codes: 0 after the protocol's shutdown and exit, 1 on exit without shutdown."))]
    Lsp(LspArgs),
}

/// The options of `hilbert completions`.
#[derive(clap::Args, Debug)]
struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `hilbert lsp` takes no options: an editor configures it with the protocol's settings.
#[derive(clap::Args, Debug)]
struct LspArgs {
    /// Accepted and ignored: editors' clients (VS Code's among them) pass it.
    #[arg(long, hide = true)]
    stdio: bool,
}

/// How a report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: rustc-style diagnostics and a summary line.
    Human,
    /// One JSON object (its schema: docs/schema/check-report.schema.json for `check`,
    /// docs/schema/build-report.schema.json for `build`).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// JUnit XML, for CI dashboards (Jenkins, GitLab, Azure Pipelines): a test case per source
    /// file, and for `build` per theorem and frame obligation.
    Junit,
}

/// Exit code: a usage or environment error.
pub const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match parse(&args) {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    let code = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Build(args) => build::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Replay(args) => run::replay(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Completions(args) => {
            let mut text = Vec::new();
            clap_complete::generate(args.shell, &mut Cli::command(), "hilbert", &mut text);
            output::stdout(&String::from_utf8_lossy(&text));
            0
        }
        Command::Man => {
            let mut text = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut text) {
                Ok(()) => {
                    output::stdout(&String::from_utf8_lossy(&text));
                    0
                }
                Err(e) => output::fail(
                    output::Kind::System,
                    &format!("cannot render the manual page: {e}"),
                    "",
                ),
            }
        }
        Command::Lsp(_) => u8::try_from(hilbert_lsp::run_stdio()).unwrap_or(EXIT_USAGE),
    };
    // A report that could not be written (a full disk) is an environment error.
    ExitCode::from(output::write_failure().unwrap_or(code))
}

/// Parses the command line and says to [`output`] whether it asked for `--format json`. A usage
/// error of clap's own (an unknown flag, a bad value) is printed by clap as usual and exits 2;
/// under `--format json` (read from the words themselves, as the format is not parsed yet) its
/// JSON error object, of kind `usage`, is also written on standard output.
fn parse(args: &[std::ffi::OsString]) -> Result<Cli, u8> {
    let matches = Cli::command().try_get_matches_from(args);
    let parsed = matches.and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    match parsed {
        Ok((cli, matches)) => {
            let json = matches.subcommand().is_some_and(|(_, sub)| {
                sub.try_get_raw("format")
                    .ok()
                    .flatten()
                    .is_some_and(|mut v| v.any(|w| w == "json"))
            });
            output::set_json(json);
            Ok(cli)
        }
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.exit();
            }
            let _ = e.print();
            if output::asks_for_json(args.get(1..).unwrap_or_default()) {
                // clap's text: the error, then paragraphs (a tip, the usage line).
                let text = e.render().to_string();
                let mut paragraphs = text.split("\n\n");
                let first = paragraphs.next().unwrap_or_default();
                let first = first.strip_prefix("error: ").unwrap_or(first);
                let message = first.lines().map(str::trim).collect::<Vec<_>>().join(" ");
                let tip = paragraphs.find_map(|p| p.trim().strip_prefix("tip: "));
                let help = match tip {
                    Some(tip) => tip.to_string(),
                    None => "`hilbert help` lists the commands, `hilbert help COMMAND` their flags"
                        .to_string(),
                };
                output::stdout(&output::error_json(
                    output::Kind::Usage,
                    None,
                    &message,
                    &help,
                ));
            }
            Err(u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE))
        }
    }
}
