//! `hilbert run PATH --agent NAME` and `hilbert replay JOURNAL`: run an agent through a scenario
//! with the runtime, print a readable trace and write the journal; re-run a journal and confirm
//! every step matches.

use crate::check::digests;
use crate::output;
use hilbert_frontend::{ParamSpec, project};
use hilbert_frontend::{input, render};
use hilbert_runtime::journal::{self, Entry, Event};
use hilbert_runtime::{Hosts, Reconsideration, Scenario, System};
use std::collections::BTreeSet;
use std::path::Path;

/// The options of `hilbert run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The project (files or directories).
    #[arg(value_name = "PATH", required = true)]
    paths: Vec<String>,
    /// The agent to run; repeat it to run several agents of the project together (what one
    /// tells another is delivered).
    #[arg(long, required = true)]
    agent: Vec<String>,
    /// A scenario file (JSON: initial beliefs and percepts at given cycles; see docs/runtime.md).
    #[arg(long, value_parser = crate::output::path_arg, value_name = "FILE")]
    scenario: Option<String>,
    /// Write the journal (JSON Lines) here.
    #[arg(long, value_parser = crate::output::path_arg, value_name = "FILE")]
    journal: Option<String>,
    /// How often the agent deliberates again.
    #[arg(long, value_enum, default_value_t = Policy::Cautious)]
    policy: Policy,
    /// For `--policy on-change`: a belief predicate whose change makes the agent deliberate
    /// (repeatable).
    #[arg(long, value_name = "PREDICATE")]
    watch: Vec<String>,
    /// How to print the trace.
    #[arg(long, value_enum, default_value_t = TraceFormat::Human)]
    format: TraceFormat,
    /// Run the agents even though the kernel has not admitted their plan networks (the trace
    /// and the journal say so, and why). Without it, `run` runs only admitted plans.
    #[arg(long)]
    unverified: bool,
    /// A value of an agent parameter: `NAME=VALUE` (every agent declaring NAME) or
    /// `AGENT.NAME=VALUE`; repeatable, and over the scenario's `params`. Every parameter the
    /// agents read must have one.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = crate::build::parse_param)]
    params: Vec<hilbert_frontend::ParamSpec>,
    /// The most cycles the run may take, whatever the scenario's `cycles`: past it the run
    /// stops (between rounds), says so, ends its journal with the bound and exits 2.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_cycles: u64,
    /// The most plan steps the run may take in all (every agent's): once a round passes it the
    /// run stops there, says so, ends its journal with the bound and exits 2.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_steps: u64,
    /// The most states each plan network's proof before the run may explore (as `hilbert
    /// build --max-states`): a network with more is not admitted, and the reason says so.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_states: usize,
    /// The timeout of each Z3 query of the check before the run, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    smt_timeout: u32,
    /// The total time of the check's Z3 queries (the condition analysis and the frame
    /// conditions), in milliseconds: once it is spent the rest are not asked, prove nothing and
    /// are named in warnings (HA0061, HA0059); 0 asks none.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    smt_budget: u64,
}

/// The reconsideration policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Policy {
    /// Deliberate only when no plan is running.
    Bold,
    /// Deliberate every cycle.
    Cautious,
    /// Deliberate when a watched belief changes.
    OnChange,
}

/// The trace's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceFormat {
    /// One readable line per journal entry.
    Human,
    /// The journal itself (JSON Lines).
    Json,
}

/// The options of `hilbert replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A journal written by `hilbert run --journal`.
    #[arg(value_name = "JOURNAL")]
    journal: String,
    /// The project's directory, when it is not where the journal says (a project moved or
    /// copied): the journal's sources are looked up under DIR, by their paths relative to the
    /// project.
    #[arg(long, value_parser = crate::output::path_arg, value_name = "DIR")]
    sources: Option<String>,
}

fn policy(p: Policy, watch: &[String]) -> Reconsideration {
    match p {
        Policy::Bold => Reconsideration::Bold,
        Policy::Cautious => Reconsideration::Cautious,
        Policy::OnChange => Reconsideration::OnChange(watch.iter().cloned().collect()),
    }
}

/// A checked project, ready to run.
struct Ready {
    ir: hilbert_certificates::ir::Ir,
    /// (path, SHA-256 hex) of every source.
    sources: Vec<(String, String)>,
    loaded: project::Loaded,
    checked: hilbert_frontend::Checked,
}

/// Why the kernel has not admitted the plan networks of `agents` (empty: it admitted every
/// one). The networks are explored and proved as `hilbert build` does, and each certificate is
/// handed to the kernel, which alone decides; a binding to host code cannot be admitted.
fn not_admitted(ready: &Ready, agents: &[String], max_states: usize) -> Vec<String> {
    use hilbert_certificates::cert::SourceDigest;
    use hilbert_kernel::check::{Expected, Verdict};
    let digests: Vec<SourceDigest> = ready
        .sources
        .iter()
        .map(|(path, hex)| crate::build::source_digest(path, hex))
        .collect();
    let proofs = hilbert_prover::obligations::prove(
        &ready.ir,
        &ready.checked.program,
        &ready.loaded.sources,
        &digests,
        hilbert_prover::explore::Limits {
            max_memory: hilbert_prover::memory::default_limit(),
            max_states,
            ..Default::default()
        },
    );
    // Why a theorem was left unproved (a bound passed): said with the kernel's word.
    let unproved = |network: &str| -> Option<String> {
        proofs.theorems.iter().find_map(|t| match &t.status {
            hilbert_prover::obligations::Status::Unproved(why) if t.network == network => {
                Some(why.clone())
            }
            _ => None,
        })
    };
    let mut reasons = Vec::new();
    for (ai, agent) in ready.checked.program.agents.iter().enumerate() {
        if !agents.contains(&agent.name) {
            continue;
        }
        for (bi, binding) in agent.bindings.iter().enumerate() {
            let name = format!("{}.{}", agent.name, binding.name);
            if ready.ir.agents[ai].plans[bi].network.is_none() {
                reasons.push(format!(
                    "{name} runs host code, which the kernel cannot check"
                ));
                continue;
            }
            let Some(c) = proofs.certificates.iter().find(|c| c.name == name) else {
                reasons.push(format!("{name} has no certificate"));
                continue;
            };
            // None was written (an exploration stopped by a bound): why, with the bound.
            if let Some(why) = &c.withheld {
                let mut reason = format!("{name}: {why}");
                if let Some(bound) = unproved(&name) {
                    reason.push_str(&format!(" (unproved: {bound})"));
                }
                reasons.push(reason);
                continue;
            }
            // The certificate must be the slice of this network of the IR that runs.
            let slice = ready
                .ir
                .slice(c.network as usize)
                .map(|s| hilbert_certificates::cert::ir_bytes(&s))
                .unwrap_or_default();
            let expected = Expected {
                sources: &c.sources,
                ir: &slice,
            };
            let report = hilbert_kernel::check::check(&c.bytes, Some(&expected));
            if let Some(why) = &report.invalid {
                reasons.push(format!("{name}: the kernel refused its certificate: {why}"));
                continue;
            }
            let refused: Vec<&str> = report
                .obligations
                .iter()
                .filter(|(_, v)| *v != Verdict::Proved)
                .map(|(n, _)| n.as_str())
                .collect();
            if !refused.is_empty() || report.admitted.is_none() {
                let mut reason = format!("{name}: the kernel did not admit {}", refused.join(", "));
                if let Some(why) = unproved(&name) {
                    reason.push_str(&format!(" (unproved: {why})"));
                }
                reasons.push(reason);
            }
        }
    }
    reasons
}

/// Every agent parameter the IR was lowered with a value for, as `AGENT.NAME` and its typed value.
fn used_params(
    ir: &hilbert_certificates::ir::Ir,
) -> std::collections::BTreeMap<String, hilbert_runtime::ParamValue> {
    use hilbert_certificates::ir::Literal;
    use hilbert_runtime::ParamValue;
    let mut out = std::collections::BTreeMap::new();
    for agent in &ir.agents {
        for ((name, _), value) in agent.params.iter().zip(&agent.args) {
            let value = match value {
                Some(Literal::Int(n)) => ParamValue::Int(*n),
                Some(Literal::Bool(b)) => ParamValue::Bool(*b),
                Some(Literal::Str(s)) => ParamValue::Str(s.clone()),
                None => continue,
            };
            out.insert(format!("{}.{name}", agent.name), value);
        }
    }
    out
}

/// The scenario's parameter values as `--param` specs: every `NAME` before every `AGENT.NAME`,
/// so that the value for one agent wins over the value for all.
fn scenario_params(scenario: &Scenario) -> Result<Vec<ParamSpec>, u8> {
    let (all, one): (Vec<_>, Vec<_>) = scenario.params.iter().partition(|(k, _)| !k.contains('.'));
    all.into_iter()
        .chain(one)
        .map(|(k, v)| ParamSpec::parse(&format!("{k}={}", v.text())))
        .collect::<Result<_, _>>()
        .map_err(|e| {
            output::fail(
                output::Kind::Input,
                &format!("the scenario's params: {e}"),
                "see docs/runtime.md",
            )
        })
}

/// Loads and checks a project, lowered with the agent parameter values of `params`; prints its
/// errors and returns `Err(exit code)` if it has any.
fn load_ir(paths: &[String], params: &[ParamSpec], smt: hilbert_smt::Options) -> Result<Ready, u8> {
    let loaded = project::load(paths).map_err(|e| output::load_error(&e))?;
    let inputs = digests(&loaded);
    let checked = crate::check::check_with_params(&loaded, smt, params)?;
    let has_errors = checked.has_errors();
    let Some(ir) = checked.ir.clone().filter(|_| !has_errors) else {
        let mut text = String::new();
        for d in checked.diagnostics.iter().filter(|d| d.is_error()) {
            text.push_str(&render::render(d, &loaded.sources, false));
            text.push('\n');
        }
        let message = "the project has errors; `hilbert run` runs only a checked project";
        text.push_str(&format!("error: {message}\n"));
        return Err(output::refuse(
            output::Kind::Check,
            &text,
            message,
            "`hilbert check --format json` lists the errors",
        ));
    };
    Ok(Ready {
        ir,
        sources: inputs.into_iter().map(|i| (i.path, i.sha256)).collect(),
        loaded,
        checked,
    })
}

/// Runs the command and returns its exit code.
pub fn run(args: &RunArgs) -> u8 {
    if args.policy != Policy::OnChange && !args.watch.is_empty() {
        return output::fail(
            output::Kind::Usage,
            "--watch is for --policy on-change",
            "add --policy on-change, or drop --watch",
        );
    }
    if args.policy == Policy::OnChange && args.watch.is_empty() {
        return output::fail(
            output::Kind::Usage,
            "--policy on-change needs at least one --watch PREDICATE",
            "name the beliefs whose change should make the agent deliberate, e.g. --watch alarm",
        );
    }
    // The journal's path is checked before anything runs: created (or emptied) now, and only
    // as a regular file.
    let journal_file = match &args.journal {
        None => None,
        Some(path) => match input::create_regular(Path::new(path), path) {
            Ok((file, created)) => Some(PendingJournal {
                path: path.clone(),
                file: Some(file),
                created,
            }),
            Err(e) => {
                // The reader's wording ("cannot read", "it was not read") would misname a write.
                let why = match &e {
                    input::InputError::Io { reason, .. } => reason.clone(),
                    input::InputError::NotRegular { kind, .. } => {
                        format!("it is {kind}, not a regular file; nothing was written")
                    }
                    input::InputError::TooLarge { .. } => e.to_string(),
                };
                return output::fail_at(
                    output::Kind::Output,
                    path,
                    &format!(
                        "cannot write the journal `{}`: {why}",
                        hilbert_frontend::render::display_path(path)
                    ),
                    "choose a writable path for --journal: a journal is a regular file",
                );
            }
        },
    };
    let scenario = match &args.scenario {
        None => Scenario::default(),
        Some(path) => match input::read_regular_text(Path::new(path), path, input::SCENARIO_CAP) {
            Err(e) => {
                return output::fail_at(
                    output::Kind::Input,
                    e.path(),
                    &e.to_string(),
                    "a scenario is a regular JSON file of at most 64 MiB",
                );
            }
            // A scenario is a JSON object: serde would also read a struct from an array (`[]`
            // was a scenario of defaults).
            // A byte order mark an editor put before the object is no part of it.
            Ok(text) => match serde_json::from_str::<serde_json::Value>(
                text.strip_prefix('\u{feff}').unwrap_or(&text),
            )
            .and_then(|v| {
                if v.is_object() {
                    serde_json::from_value::<Scenario>(v)
                } else {
                    Err(serde::de::Error::custom(
                        "a scenario is a JSON object (`{\"cycles\": …, \"events\": […]}`)",
                    ))
                }
            }) {
                Ok(s) => s,
                Err(e) => {
                    return output::fail_at(
                        output::Kind::Input,
                        path,
                        &format!("`{path}` is not a scenario: {e}"),
                        "see docs/runtime.md for the scenario format",
                    );
                }
            },
        },
    };
    let mut scenario = scenario;
    // Events after the last cycle never happen: said, not silently dropped.
    let late = scenario
        .events
        .iter()
        .filter(|e| e.cycle >= scenario.cycles)
        .count();
    if late > 0 {
        use std::io::Write;
        let (s, verb) = if late == 1 { ("", "s") } else { ("s", "") };
        let cycles = scenario.cycles;
        let _ = writeln!(
            std::io::stderr(),
            "warning: {late} scenario event{s} at cycle {cycles} or later never happen{verb}: the run stops after {cycles} cycle{}",
            if cycles == 1 { "" } else { "s" },
        );
    }
    // The values the run is lowered with: the scenario's, then --param's, which win (a later
    // value of a parameter replaces an earlier one; within each, `AGENT.NAME` after `NAME`).
    let mut specs = match scenario_params(&scenario) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut given = args.params.clone();
    given.sort_by_key(|p| p.agent.is_some());
    specs.extend(given);
    let smt = hilbert_smt::Options {
        timeout_ms: args.smt_timeout,
        budget_ms: Some(args.smt_budget),
        keep_text: false,
        max_memory: None,
    };
    let ready = match load_ir(&args.paths, &specs, smt) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // The journal is emptied when the run starts: never a file the run reads (by any of its
    // names: a link, a hard link), which it would destroy.
    if let Some(pending) = &journal_file {
        let read = ready
            .sources
            .iter()
            .map(|(path, _)| path.as_str())
            .chain(args.scenario.as_deref());
        if let Some(input) = pending.written_over(read) {
            return output::fail_at(
                output::Kind::Usage,
                &pending.path,
                &format!(
                    "the journal `{}` is `{}`, which the run reads: it would be written over",
                    hilbert_frontend::render::display_path(&pending.path),
                    hilbert_frontend::render::display_path(input)
                ),
                "choose another path for --journal: a journal never replaces a source or the scenario",
            );
        }
    }
    // Every parameter the agents read has a value: a rule never reads a guess.
    for agent in &args.agent {
        let missing = hilbert_frontend::params_read(&ready.checked.program, &ready.ir, agent);
        if let Some(first) = missing.first() {
            return output::fail(
                output::Kind::Usage,
                &format!(
                    "agent `{agent}` reads its parameter{} {} but the run gives {} no value",
                    if missing.len() > 1 { "s" } else { "" },
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if missing.len() > 1 { "them" } else { "it" }
                ),
                &format!("pass --param {first}=VALUE, or give it in the scenario's \"params\""),
            );
        }
    }
    // A watched predicate must be one the agents can believe.
    let predicates: Vec<&str> = ready
        .ir
        .agents
        .iter()
        .filter(|a| args.agent.contains(&a.name))
        .flat_map(|a| a.beliefs.iter().map(|b| b.name.as_str()))
        .collect();
    if let Some(w) = args
        .watch
        .iter()
        .find(|w| !predicates.contains(&w.as_str()))
    {
        let hint = match hilbert_frontend::check::nearest(w, predicates.iter().copied()) {
            Some(near) => format!("did you mean `--watch {near}`?"),
            None => format!("the beliefs of the agents are: {}", predicates.join(", ")),
        };
        return output::fail(
            output::Kind::Usage,
            &format!("--watch `{w}`: no agent of the run has a belief `{w}`"),
            &hint,
        );
    }
    // The journal's scenario records the values the run used, typed, one key form: `AGENT.NAME`
    // for every parameter with a value, so that a replay lowers the same IR.
    scenario.params = used_params(&ready.ir);
    let (ir, sources) = (&ready.ir, ready.sources.clone());
    let mut system = match System::new(
        ir,
        &args.agent,
        policy(args.policy, &args.watch),
        scenario,
        Hosts::new(),
    ) {
        Ok(a) => a,
        Err(e) => {
            return output::fail(output::Kind::Usage, &e.0, run_error_hint(&e.0));
        }
    };
    // Only plans the kernel has admitted run, unless the user says otherwise, on the record.
    let reasons = not_admitted(&ready, &args.agent, args.max_states);
    if !reasons.is_empty() && !args.unverified {
        let mut text = String::from(
            "error: `hilbert run` runs only plans the kernel has admitted, and it has not admitted these:\n",
        );
        for r in &reasons {
            text.push_str(&format!("  {r}\n"));
        }
        let help = "`hilbert build` shows why (with counterexamples); fix the plans, or pass --unverified to run them anyway (the trace and the journal record it)";
        text.push_str(&format!("  = help: {help}\n"));
        let message = format!(
            "`hilbert run` runs only plans the kernel has admitted, and it has not admitted these: {}",
            reasons.join("; ")
        );
        return output::refuse(output::Kind::NotAdmitted, &text, &message, help);
    }
    // The journal names the project's directory by absolute path, so that it replays from
    // anywhere, and its sources relative to it, so that `replay --sources DIR` replays it
    // against a copy elsewhere.
    let absolute: Vec<(std::path::PathBuf, String)> = sources
        .into_iter()
        .map(|(path, sha)| {
            (
                std::fs::canonicalize(&path).unwrap_or_else(|_| path.into()),
                sha,
            )
        })
        .collect();
    let project = common_dir(absolute.iter().map(|(p, _)| p.as_path()));
    let sources = absolute
        .iter()
        .map(|(path, sha)| (relative(path, &project), sha.clone()))
        .collect();
    let mut header = system.agents[0].header(args.agent.clone(), sources);
    header.project = Some(project.to_string_lossy().into_owned());
    if args.unverified {
        header.unverified = Some(reasons.clone());
    }
    let header_line = serde_json::to_string(&header).unwrap_or_default() + "\n";
    let journal = match journal_file.map(PendingJournal::start).transpose() {
        Ok(j) => j,
        Err(e) => {
            return write_failed(&e);
        }
    };
    let mut out = Streams {
        journal: journal.map(|(path, file)| (path, std::io::BufWriter::new(file))),
        stdout: std::io::BufWriter::new(std::io::stdout().lock()),
        stdout_error: None,
    };
    let mut preface = String::new();
    match args.format {
        TraceFormat::Json => preface.push_str(&header_line),
        TraceFormat::Human if args.unverified => {
            preface.push_str(if reasons.is_empty() {
                "unverified run (--unverified), although the kernel admitted every plan network\n"
            } else {
                "UNVERIFIED run (--unverified): the kernel has not admitted these plan networks:\n"
            });
            for r in &reasons {
                preface.push_str(&format!("  {r}\n"));
            }
        }
        TraceFormat::Human => {}
    }
    if let Err(e) = out.journal(&header_line) {
        drop(out);
        return write_failed(&e);
    }
    out.show(&preface);
    // SIGINT, SIGTERM and SIGHUP stop the run between rounds (a second one ends the process at
    // once); `caught` says which.
    let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let caught = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for signal in STOPPING {
        for register in [
            signal_hook::flag::register_conditional_shutdown(
                signal,
                128 + signal,
                interrupted.clone(),
            ),
            signal_hook::flag::register_usize(signal, caught.clone(), signal as usize),
            signal_hook::flag::register(signal, interrupted.clone()),
        ] {
            if let Err(e) = register {
                drop(out);
                return output::fail(
                    output::Kind::System,
                    &format!("cannot handle {}: {e}", signal_name(signal)),
                    "",
                );
            }
        }
    }
    let signal = || signal_name(caught.load(std::sync::atomic::Ordering::Relaxed) as i32);
    let several = args.agent.len() > 1;
    let mut entries = 0u64;
    // The run's bounds, checked between rounds like SIGINT: which one stopped it, if one did.
    let steps = std::cell::Cell::new(0u64);
    let bound = std::cell::Cell::new(None::<String>);
    let cycles = system.agents.first().map_or(0, |a| a.cycles());
    let ended = system.run_with(
        &|rounds| {
            if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
                return true;
            }
            if rounds >= args.max_cycles && rounds < cycles {
                bound.set(Some(format!(
                    "--max-cycles {}: the scenario asks for {cycles} cycles",
                    args.max_cycles
                )));
                return true;
            }
            if steps.get() > args.max_steps {
                bound.set(Some(format!(
                    "--max-steps {}: the plans took {} steps",
                    args.max_steps,
                    steps.get()
                )));
                return true;
            }
            false
        },
        &mut |e: Entry| {
            entries += 1;
            if matches!(e.event, Event::Step { .. }) {
                steps.set(steps.get() + 1);
            }
            let line = serde_json::to_string(&e).unwrap_or_default() + "\n";
            out.journal(&line)?;
            match args.format {
                TraceFormat::Json => out.show(&line),
                TraceFormat::Human => out.show(&trace_line(&e, several)),
            }
            Ok::<(), String>(())
        },
    );
    let code = match ended {
        Err(e) => {
            // What was shown goes out first, so the error is the last line.
            drop(out);
            return write_failed(&e);
        }
        Ok(hilbert_runtime::Ended::Finished { .. }) => 0,
        Ok(hilbert_runtime::Ended::Stopped { rounds }) => {
            let passed = bound.take();
            let stop = journal::Interrupted {
                interrupted: journal::Stop {
                    rounds,
                    reason: passed.clone().unwrap_or_else(|| signal().into()),
                },
            };
            let line = serde_json::to_string(&stop).unwrap_or_default() + "\n";
            if let Err(e) = out.journal(&line) {
                drop(out);
                return write_failed(&e);
            }
            let (rs, es) = (
                if rounds == 1 { "" } else { "s" },
                if entries == 1 { "y" } else { "ies" },
            );
            match (args.format, &passed) {
                (TraceFormat::Json, _) => out.show(&line),
                (TraceFormat::Human, None) => out.show(&format!(
                    "interrupted ({}) after {rounds} round{rs} and {entries} entr{es}; the journal replays up to here\n",
                    signal()
                )),
                (TraceFormat::Human, Some(why)) => out.show(&format!(
                    "stopped: the run passed {why}, after {rounds} round{rs} and {entries} entr{es}; the journal replays up to here\n",
                )),
            }
            match passed {
                None => u8::try_from(128 + caught.load(std::sync::atomic::Ordering::Relaxed))
                    .unwrap_or(EXIT_INTERRUPTED),
                Some(why) => {
                    if let Err(e) = out.finish() {
                        return write_failed(&e);
                    }
                    // A resource bound passed (exit code 2), said on standard error; the
                    // journal and the trace already end with it.
                    use std::io::Write;
                    let bound = why.split(' ').next().unwrap_or_default();
                    let _ = writeln!(
                        std::io::stderr(),
                        "error: the run passed a bound ({why}) and stopped there\n  = help: raise {bound} (or shorten the scenario) if the run should go on; `hilbert replay` replays it up to there"
                    );
                    return crate::EXIT_USAGE;
                }
            }
        }
    };
    if let Err(e) = out.finish() {
        return write_failed(&e);
    }
    code
}

/// A run's output that could not be written (`e` says which: the journal or standard output),
/// with the hint for that one: `run > /dev/full` with no journal was told to choose a path for
/// --journal.
fn write_failed(e: &str) -> u8 {
    let hint = if e.starts_with("cannot write standard output") {
        "send standard output where it can be written (a file with space, a pipe), or give --journal FILE and discard the trace"
    } else {
        "choose a writable path for --journal"
    };
    output::fail(output::Kind::Output, e, hint)
}

/// The help for a run that cannot start, by what is wrong.
fn run_error_hint(message: &str) -> &'static str {
    if message.contains("which the host has not registered") {
        "`hilbert run` registers no host code: a binding `plan P ↦ host.name` runs in a program that embeds hilbert-runtime and registers the function (`Hosts::register`; docs/runtime.md, \"The host interface\"), or bind the plan to a `.hk` plan to run it here"
    } else if message.contains("is for agent") {
        "an event's \"agent\" names one of the agents given with --agent (docs/runtime.md, \"Scenarios\")"
    } else {
        "check the agent's name and the scenario's atoms (each is checked against the beliefs of every agent it goes to; an event with \"agent\" goes to that agent only)"
    }
}

/// The deepest directory holding every one of `paths` (absolute paths).
fn common_dir<'p>(paths: impl Iterator<Item = &'p Path>) -> std::path::PathBuf {
    let mut common: Option<std::path::PathBuf> = None;
    for path in paths {
        let dir = path.parent().unwrap_or(path);
        common = Some(match common {
            None => dir.to_path_buf(),
            Some(c) => c
                .ancestors()
                .find(|a| dir.starts_with(a))
                .unwrap_or(Path::new("/"))
                .to_path_buf(),
        });
    }
    common.unwrap_or_default()
}

/// `path` relative to `dir`, with `/` separators (it lies under `dir`).
fn relative(path: &Path, dir: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The exit code of a run stopped by SIGINT (128 + the signal's number, as shells report it;
/// SIGTERM's is 143, SIGHUP's 129).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The signals that stop a run between rounds, its journal whole up to there.
const STOPPING: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// A stopping signal's name (`SIGINT` when none was caught).
fn signal_name(signal: i32) -> &'static str {
    match signal {
        signal_hook::consts::SIGTERM => "SIGTERM",
        signal_hook::consts::SIGHUP => "SIGHUP",
        _ => "SIGINT",
    }
}

/// The exit code of a replay whose journal ends early: no interruption line ends it, and every
/// entry it holds matched (the run that wrote it was killed, or its disk filled).
pub const EXIT_ENDS_EARLY: u8 = 3;

/// The `--journal` file, opened (and created if it was missing) before anything runs, so that a
/// path that cannot be written is said at once; a run refused before it starts removes a file
/// it created and leaves an existing one as it was.
struct PendingJournal {
    path: String,
    file: Option<std::fs::File>,
    created: bool,
}

impl PendingJournal {
    /// The first of `inputs` that is the journal's file itself (on Unix the same device and
    /// inode, so a hard link counts; elsewhere the same canonical path).
    fn written_over<'i>(&self, mut inputs: impl Iterator<Item = &'i str>) -> Option<&'i str> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let journal = self.file.as_ref()?.metadata().ok()?;
            inputs.find(|path| {
                std::fs::metadata(path)
                    .is_ok_and(|m| (m.dev(), m.ino()) == (journal.dev(), journal.ino()))
            })
        }
        #[cfg(not(unix))]
        {
            let journal = std::fs::canonicalize(&self.path).ok()?;
            inputs.find(|path| std::fs::canonicalize(path).is_ok_and(|p| p == journal))
        }
    }

    /// The run starts: the file is emptied and handed over.
    fn start(mut self) -> Result<(String, std::fs::File), String> {
        let file = self.file.take().expect("a pending journal holds its file");
        file.set_len(0)
            .map_err(|e| format!("cannot write the journal `{}`: {e}", self.path))?;
        self.created = false;
        Ok((self.path.clone(), file))
    }
}

impl Drop for PendingJournal {
    fn drop(&mut self) {
        if self.created {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Where a run's lines go as they are made: the journal file, and standard output (buffered).
struct Streams<'a> {
    journal: Option<(String, std::io::BufWriter<std::fs::File>)>,
    stdout: std::io::BufWriter<std::io::StdoutLock<'a>>,
    /// The first error writing standard output: after it nothing more is shown (the journal is
    /// still written); a closed pipe is not an error of the run.
    stdout_error: Option<std::io::Error>,
}

impl Streams<'_> {
    fn journal(&mut self, line: &str) -> Result<(), String> {
        use std::io::Write;
        match &mut self.journal {
            Some((path, file)) => file
                .write_all(line.as_bytes())
                .map_err(|e| format!("cannot write the journal `{path}`: {e}")),
            None => Ok(()),
        }
    }

    fn show(&mut self, text: &str) {
        use std::io::Write;
        if self.stdout_error.is_none()
            && let Err(e) = self.stdout.write_all(text.as_bytes())
        {
            self.stdout_error = Some(e);
        }
    }

    /// Flushes both; the journal's and standard output's errors (but a closed pipe) are errors.
    fn finish(mut self) -> Result<(), String> {
        use std::io::Write;
        if let Some((path, file)) = &mut self.journal {
            file.flush()
                .and_then(|()| file.get_ref().sync_data())
                .map_err(|e| format!("cannot write the journal `{path}`: {e}"))?;
        }
        if self.stdout_error.is_none()
            && let Err(e) = self.stdout.flush()
        {
            self.stdout_error = Some(e);
        }
        match self.stdout_error {
            Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(format!("cannot write standard output: {e}"))
            }
            _ => Ok(()),
        }
    }
}

/// One journal entry as a readable line (with its newline); `agents` adds the agent's name.
pub fn trace_line(e: &Entry, agents: bool) -> String {
    {
        let line = match &e.event {
            Event::Percept { added, removed } => {
                let mut parts: Vec<String> = added.iter().map(|a| format!("+{a}")).collect();
                parts.extend(removed.iter().map(|a| format!("-{a}")));
                format!("percept {}", parts.join(" "))
            }
            Event::DesireDropped { desire } => format!("desire {desire} dropped"),
            Event::Told { from, atom } => format!("told by {from}: {atom}"),
            Event::Attention { from, to, reason } => format!("attention {from} → {to}: {reason}"),
            Event::Deliberate { reason } => format!("deliberate: {reason}"),
            Event::Adopt {
                intention,
                plan,
                desire,
                reason,
                ..
            } => {
                format!("adopt #{intention} {plan} for {desire}: {reason}")
            }
            Event::Release {
                intention,
                plan,
                desire,
                reason,
                because,
            } => match because {
                Some(b) => format!("release #{intention} {plan} ({desire} {reason}): {b}"),
                None => format!("release #{intention} {plan} ({desire} {reason})"),
            },
            Event::Command {
                intention,
                plan,
                command,
                reason,
            } => {
                format!("{command} #{intention} {plan}: {reason}")
            }
            Event::Status {
                intention,
                plan,
                status,
                reason,
            } => format!("{status} #{intention} {plan}: {reason}"),
            Event::Step {
                intention,
                plan,
                process,
                event,
                added,
                removed,
            } => {
                let mut parts: Vec<String> = added.iter().map(|a| format!("+{a}")).collect();
                parts.extend(removed.iter().map(|a| format!("-{a}")));
                format!(
                    "step #{intention} {plan}: {process} {event}  {}",
                    parts.join(" ")
                )
            }
            Event::Ended { intention, plan } => format!("ended #{intention} {plan}"),
            Event::Stuck {
                intention,
                plan,
                desire,
                during,
                state,
            } => format!(
                "stuck #{intention} {plan} ({desire}) in {during}: {}",
                state.join("; ")
            ),
            Event::Reward {
                plan,
                value,
                learned,
                reason,
            } => {
                format!("reward {plan} {value:+}: learned {learned:.3} ({reason})")
            }
        };
        if agents {
            format!(
                "cycle {:>3}  {:<10} {}\n",
                e.cycle,
                e.agent,
                line.trim_end()
            )
        } else {
            format!("cycle {:>3}  {}\n", e.cycle, line.trim_end())
        }
    }
}

/// Re-runs a journal and reports the first entry that differs. The journal is read a line at a
/// time as the replay makes its entries, so a journal of any length replays in constant memory.
pub fn replay(args: &ReplayArgs) -> u8 {
    let malformed = |e: journal::JournalError| {
        output::fail_at(
            output::Kind::Input,
            &args.journal,
            &format!("{}:{}: {}", args.journal, e.line, e.reason),
            "a journal is what `hilbert run --journal FILE` writes",
        )
    };
    let file = match input::open_regular(Path::new(&args.journal), &args.journal) {
        Ok((file, _)) => file,
        Err(e) => {
            return output::fail_at(
                output::Kind::Input,
                e.path(),
                &e.to_string(),
                "a journal is a regular file that `hilbert run --journal FILE` wrote",
            );
        }
    };
    let (header, mut recorded) = match journal::Reader::new(std::io::BufReader::new(file)) {
        Ok(x) => x,
        Err(e) => return malformed(e),
    };
    // Where the sources are: under --sources DIR, else under the journal's project. A journal
    // from before `project` names its sources by absolute path: under --sources they are taken
    // relative to their deepest common directory.
    let recorded_base = match &header.project {
        Some(p) => std::path::PathBuf::from(p),
        None => common_dir(header.sources.iter().map(|(p, _)| Path::new(p.as_str()))),
    };
    let base = match &args.sources {
        Some(dir) => {
            if !Path::new(dir).is_dir() {
                return output::fail_at(
                    output::Kind::Input,
                    dir,
                    &format!("--sources `{dir}` is not a directory"),
                    "name the directory the project was moved or copied to",
                );
            }
            std::path::PathBuf::from(dir)
        }
        None => recorded_base.clone(),
    };
    let wanted: Vec<(String, String)> = header
        .sources
        .iter()
        .map(|(p, sha)| (relative(Path::new(p), &recorded_base), sha.clone()))
        .collect();
    let paths: Vec<String> = wanted
        .iter()
        .map(|(p, _)| base.join(p).to_string_lossy().into_owned())
        .collect();
    if let Some(missing) = paths.iter().find(|p| !Path::new(p).exists()) {
        return output::fail_at(
            output::Kind::Input,
            missing,
            &format!("the journal's source `{missing}` does not exist"),
            "if the project moved, name its directory with `hilbert replay JOURNAL --sources DIR`",
        );
    }
    let specs = match scenario_params(&header.scenario) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let ready = match load_ir(&paths, &specs, hilbert_smt::Options::default()) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (ir, sources) = (&ready.ir, &ready.sources);
    let want: BTreeSet<(String, String)> = wanted.into_iter().collect();
    let got: BTreeSet<(String, String)> = sources
        .iter()
        .map(|(p, sha)| (relative(Path::new(p), &base), sha.clone()))
        .collect();
    if want != got {
        output::stdout("mismatch: the sources differ from those the journal was recorded with\n");
        return 1;
    }
    let policy = match header.policy.as_str() {
        "bold" => Reconsideration::Bold,
        "cautious" => Reconsideration::Cautious,
        "on-change" => Reconsideration::OnChange(header.watch.iter().cloned().collect()),
        other => {
            return output::fail_at(
                output::Kind::Input,
                &args.journal,
                &format!("unknown policy `{other}` in the journal"),
                "the journal was edited",
            );
        }
    };
    let mut system = match System::new(
        ir,
        &header.agents,
        policy,
        header.scenario.clone(),
        Hosts::new(),
    ) {
        Ok(a) => a,
        Err(e) => {
            return output::fail_at(
                output::Kind::Input,
                &args.journal,
                &e.0,
                "the journal does not fit the project",
            );
        }
    };
    // The recorded stream, one line ahead: an interruption line is seen before the replay
    // would run the round it stopped.
    let mut ahead = recorded.next_line();
    let stop_at = std::cell::Cell::new(None::<u64>);
    if let Some(Ok(journal::Line::Interrupted(stop))) = &ahead {
        stop_at.set(Some(stop.rounds));
    }
    let mut matched = 0u64;
    let ended = system.run_with(
        &|rounds| stop_at.get().is_some_and(|s| rounds >= s),
        &mut |again: Entry| -> Result<(), Outcome> {
            let line = recorded.line();
            match ahead.take() {
                None => return Err(Outcome::EndsEarly),
                Some(Err(e)) if recorded.torn() => return Err(Outcome::Torn(e)),
                Some(Ok(journal::Line::Interrupted(_))) => {
                    return Err(Outcome::Mismatch(format!(
                        "mismatch: the journal has {matched} entries, the replay more:\n  replayed: {}\n",
                        serde_json::to_string(&again).unwrap_or_default()
                    )));
                }
                Some(Err(e)) => return Err(Outcome::Malformed(e)),
                Some(Ok(journal::Line::Entry(was))) => {
                    if was != again {
                        let show = |e: &Entry| serde_json::to_string(e).unwrap_or_default();
                        return Err(Outcome::Mismatch(format!(
                            "mismatch at journal line {line}:\n  recorded: {}\n  replayed: {}\n",
                            show(&was),
                            show(&again)
                        )));
                    }
                }
            }
            matched += 1;
            ahead = recorded.next_line();
            if let Some(Ok(journal::Line::Interrupted(stop))) = &ahead {
                stop_at.set(Some(stop.rounds));
            }
            Ok(())
        },
    );
    let early = |torn: Option<journal::JournalError>| {
        let how = match torn {
            Some(e) => format!("its last line, {}, is torn ({})", e.line, e.reason),
            None => "no interruption line ends it".into(),
        };
        output::stdout(&format!(
            "the journal ends early, after {matched} matching entries: {how}; the run that wrote it was cut short (killed, or its disk filled), and every entry it holds matched\n"
        ));
        EXIT_ENDS_EARLY
    };
    match ended {
        Err(Outcome::Mismatch(text)) => {
            output::stdout(&text);
            return 1;
        }
        Err(Outcome::EndsEarly) => return early(None),
        Err(Outcome::Torn(e)) => return early(Some(e)),
        Err(Outcome::Malformed(e)) => return malformed(e),
        Ok(_) => {}
    }
    match ahead {
        None => {
            output::stdout(&format!("replay matched: {matched} entries\n"));
            0
        }
        Some(Ok(journal::Line::Interrupted(stop))) => {
            // Nothing may follow the interruption line.
            if let Some(Err(e)) = recorded.next_line() {
                return malformed(e);
            }
            output::stdout(&format!(
                "replay matched: {matched} entries, up to round {} where the run was interrupted ({})\n",
                stop.rounds, stop.reason
            ));
            0
        }
        Some(Ok(journal::Line::Entry(_))) => {
            let mut more = 1u64;
            while let Some(line) = recorded.next_line() {
                match line {
                    Ok(journal::Line::Entry(_)) => more += 1,
                    Ok(journal::Line::Interrupted(_)) => {}
                    Err(e) => return malformed(e),
                }
            }
            output::stdout(&format!(
                "mismatch: the journal has {} entries, the replay {matched}\n",
                matched + more
            ));
            1
        }
        Some(Err(e)) if recorded.torn() => early(Some(e)),
        Some(Err(e)) => malformed(e),
    }
}

/// Why a replay stopped before its end.
enum Outcome {
    /// An entry differs, or one side has more: the message.
    Mismatch(String),
    /// The journal ended, with no interruption line, where the replay goes on.
    EndsEarly,
    /// The journal's last line is cut short (no line end), where the replay goes on.
    Torn(journal::JournalError),
    /// A recorded line does not read.
    Malformed(journal::JournalError),
}
