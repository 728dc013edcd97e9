//! `hilbert build [PATH…]`: check, explore every plan network, prove its obligations, write one
//! certificate per network under `--out`, and let the kernel re-check each. The build is admitted
//! (exit code 0) only on the kernel's word: the frontend alone never admits a build.

use crate::check::{Color, Input, load_project};
use crate::{Format, junit, output, sarif};
use hilbert_certificates::cert::{self, SourceDigest};
use hilbert_certificates::ir::Ir;
use hilbert_frontend::render::Summary;
use hilbert_frontend::{Diagnostic, SourceMap};
use hilbert_kernel::check::{Expected, Verdict, admit_build};
use hilbert_prover::explore::Limits;
use hilbert_prover::obligations::{self, Counterexample, Proofs, Status, Theorem};
use serde::Serialize;
use std::time::Instant;

/// The options of `hilbert build`.
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
    /// Repeatable; each file is written whole, and a refused build still writes its reports.
    #[arg(long = "report", value_name = "FORMAT=FILE", value_parser = crate::output::report_arg::<Format>)]
    reports: Vec<crate::output::ReportTo<Format>>,
    /// Write no report on standard output: the exit code (and any --report file) says it all;
    /// errors still go to standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Treat warnings as errors.
    #[arg(long)]
    deny_warnings: bool,
    /// Stop exploring a network after this many states; its obligations are then `unproved`.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    max_states: usize,
    /// Stop exploring when the build's resident memory nears SIZE (such as 2G or 512M); its
    /// obligations are then `unproved`. The default is half of the machine's memory (or of its
    /// control group's or address-space limit, if smaller). Read from /proc: not enforced where
    /// there is none.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    max_memory: Option<u64>,
    /// Worker threads for the exploration and the kernel's check (0: all cores).
    #[arg(long, value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Where to write the certificates (one per plan network). A network whose slice of the IR,
    /// sources and tool are those of a network an earlier build into DIR proved is not explored
    /// again: its certificate there is re-checked by the kernel (reported as `reused`).
    #[arg(long, value_parser = crate::output::path_arg, value_name = "DIR", default_value = "target/hilbert")]
    out: String,
    /// Explore and prove every network again, reusing nothing an earlier build into --out kept.
    #[arg(long)]
    fresh: bool,
    /// Write a picture of each refuted theorem's counterexample under DIR: an SVG
    /// message-sequence chart (or, with --trace-format dot, the state path for Graphviz).
    #[arg(long, value_parser = crate::output::path_arg, value_name = "DIR")]
    trace_svg: Option<String>,
    /// How --trace-svg draws a counterexample.
    #[arg(long, value_enum, default_value_t = TraceFormat::Svg, requires = "trace_svg")]
    trace_format: TraceFormat,
    /// Colour the human report.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Show what the build is doing on standard error: on a terminal a line redrawn in place,
    /// off a terminal (a CI log) a line every 10 seconds (HILBERT_PROGRESS_INTERVAL, in
    /// seconds, changes it) with the phase, the network and the states explored.
    #[arg(long, value_enum, default_value_t = crate::progress::When::Auto)]
    progress: crate::progress::When,
    /// Write every query put to Z3 as a self-contained SMT-LIB 2 file under DIR, with the
    /// answer Z3 gave in a comment.
    #[arg(long, value_parser = crate::output::path_arg, value_name = "DIR")]
    emit_smt: Option<String>,
    /// Write each agent's compiled `.hb` values (every option's formula, names inlined, and the
    /// policy) as DIR/<Agent>.values.txt.
    #[arg(long, value_parser = crate::output::path_arg, value_name = "DIR")]
    emit_values: Option<String>,
    /// The timeout of each Z3 query, in milliseconds; a query that times out proves nothing.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    smt_timeout: u32,
    /// The total time of the check's Z3 queries (the condition analysis and the frame
    /// conditions), in milliseconds: once it is spent the rest are not asked, prove nothing and
    /// are named in warnings (HA0061, HA0059); 0 asks none.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    smt_budget: u64,
    /// A value of an agent parameter to prove under: `NAME=VALUE` (every agent declaring NAME)
    /// or `AGENT.NAME=VALUE`; repeatable. What reads a parameter with no value is unproved
    /// (warning HA0060); what reads none is proved for every value.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<hilbert_frontend::ParamSpec>,
}

/// How `--trace-svg DIR` draws each counterexample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceFormat {
    /// A message-sequence chart, `DIR/<Agent>.<Binding>.<Theorem>.svg`.
    Svg,
    /// The state path for Graphviz, `DIR/<Agent>.<Binding>.<Theorem>.dot`.
    Dot,
}

/// Writes a picture of each refuted theorem's counterexample under `dir`.
fn write_traces(
    dir: &std::path::Path,
    proofs: &Proofs,
    format: TraceFormat,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for t in &proofs.theorems {
        if let Status::Refuted(cex) = &t.status {
            let (text, ext) = match format {
                TraceFormat::Svg => (crate::trace::svg(t, cex), "svg"),
                TraceFormat::Dot => (crate::trace::dot(t, cex), "dot"),
            };
            output::write_whole(
                &dir.join(format!("{}.{ext}", crate::trace::file_stem(t))),
                text,
            )?;
        }
    }
    Ok(())
}

/// The explorer's threads for `--jobs N`: 0 is every core; more threads than cores explore no
/// faster (each only takes memory and a stack), so a larger N is lowered to the core count, with a
/// note on standard error.
pub(crate) fn cap_jobs(requested: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if requested > cores {
        let mut err = std::io::stderr().lock();
        let _ = std::io::Write::write_all(
            &mut err,
            format!(
                "note: --jobs {requested} lowered to {cores}, the number of cores of this machine\n"
            )
            .as_bytes(),
        );
        cores
    } else {
        requested
    }
}

/// A `--max-memory` size: `2G`, `512M`, `1.5GiB`, or bytes.
pub(crate) fn parse_memory(text: &str) -> Result<u64, String> {
    hilbert_prover::memory::parse_bytes(text)
}

/// Writes `<Agent>.values.txt` under `dir` for every agent with a `.hb` block.
fn emit_values(dir: &std::path::Path, ir: &hilbert_certificates::ir::Ir) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for a in ir.agents.iter().filter(|a| a.values.is_some()) {
        let name: String = a
            .name
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '_' })
            .collect();
        output::write_whole(
            &dir.join(format!("{name}.values.txt")),
            hilbert_frontend::listing::values_listing(a),
        )?;
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file of this process in the same directory,
/// renamed into place, so that a reader (or a second build writing the same `--out`) never sees
/// a torn certificate. Returns the bytes as read back from the temporary file: what the kernel
/// is given is exactly what was renamed into place.
/// The file beside a network's certificate that lets a later build reuse its proof: the key it
/// was proved under (`obligations::reuse_key`), and nothing else a build would report.
fn proof_path(out: &str, network: &str) -> String {
    format!("{}/{network}.proof.json", out.trim_end_matches('/'))
}

/// Keeps what a later build needs to reuse what this one found for `c`: when the kernel
/// admitted its certificate and every theorem was proved, the key and the certificate's digest;
/// when not, and the prover says a later build can check each result without exploring
/// (`NetworkCertificate::replayable`: refutations whose counterexample it replays, reasons to be
/// unproved that the sources give), also each theorem's result. Anything else is removed (a
/// stale one would name a certificate of other results).
fn keep_proof(
    out: &str,
    c: &obligations::NetworkCertificate,
    written: &[u8],
    theorems: &[Theorem],
    mine: &[usize],
    report: &hilbert_kernel::check::Report,
) -> Result<(), String> {
    let path = proof_path(out, &c.name);
    if c.reused.is_some() {
        // Checked again as it stands: it stays.
        return Ok(());
    }
    let admitted = report.admitted.is_some();
    let all_proved = mine
        .iter()
        .all(|&i| matches!(theorems[i].status, Status::Proved));
    // A theorem proved must be one the kernel proved, or the next build would find the kept
    // results at odds with the kernel's word and explore again anyway.
    let agrees = report.obligations.len() == mine.len() + 1
        && mine.iter().zip(&report.obligations).all(|(&i, (_, v))| {
            matches!(theorems[i].status, Status::Proved) == matches!(v, Verdict::Proved)
        });
    let keep = if admitted && all_proved {
        Some(None)
    } else if c.replayable && report.invalid.is_none() && report.scene.is_some() && agrees {
        Some(Some(
            mine.iter()
                .map(|&i| kept_result(&theorems[i].status))
                .collect::<Vec<_>>(),
        ))
    } else {
        None
    };
    let Some(results) = keep else {
        return match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(format!("cannot remove the stale `{path}`: {e}")),
        };
    };
    // The key, the digest of the certificate it names and, for a network not proved, each
    // theorem's result: the statements, counts and verdicts of a reused network come from the
    // sources and the kernel's check of the kept certificate, and a kept result is reported
    // only once the kernel's word agrees with it and its counterexample replays.
    let mut kept = serde_json::json!({
        "key": cert::hex(&c.key),
        "certificate": cert::hex(&cert::sha256(written)),
    });
    if let Some(results) = results {
        kept["results"] = serde_json::Value::Array(results);
    }
    write_atomically(&path, kept.to_string().as_bytes()).map(|_| ())
}

/// A theorem's result as a kept proof file holds it.
fn kept_result(status: &Status) -> serde_json::Value {
    match status {
        Status::Proved => serde_json::json!({"status": "proved"}),
        Status::Unproved(reason) => serde_json::json!({"status": "unproved", "reason": reason}),
        Status::Refuted(c) => serde_json::json!({
            "status": "refuted",
            "counterexample": {
                "steps": c.steps.iter().map(|s| serde_json::json!({
                    "process": s.process,
                    "event": s.event,
                    "beliefs_added": s.beliefs_added,
                    "beliefs_removed": s.beliefs_removed,
                    "sites": s.sites.iter().map(|t| serde_json::json!({
                        "instance": t.instance,
                        "name": t.name,
                        "plan": t.plan,
                        "file": t.file,
                        "channel": t.channel,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "cycle_from": c.cycle_from,
                "conclusion": c.conclusion,
                "blocked": c.blocked,
            },
        }),
    }
}

/// A kept result read back; `None` when it is not one [`kept_result`] writes.
fn read_result(value: &serde_json::Value) -> Option<Status> {
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    let texts =
        |v: &serde_json::Value| -> Option<Vec<String>> { v.as_array()?.iter().map(text).collect() };
    match value["status"].as_str()? {
        "proved" => Some(Status::Proved),
        "unproved" => Some(Status::Unproved(text(&value["reason"])?)),
        "refuted" => {
            let c = &value["counterexample"];
            let steps = c["steps"]
                .as_array()?
                .iter()
                .map(|s| {
                    // A step with no sites (a command from outside) may leave them out.
                    let none = Vec::new();
                    let sites = match &s["sites"] {
                        serde_json::Value::Null => &none,
                        v => v.as_array()?,
                    };
                    let sites = sites
                        .iter()
                        .map(|t| {
                            Some(obligations::Site {
                                instance: u32::try_from(t["instance"].as_u64()?).ok()?,
                                name: text(&t["name"])?,
                                plan: text(&t["plan"])?,
                                file: text(&t["file"])?,
                                channel: match &t["channel"] {
                                    serde_json::Value::Null => None,
                                    c => Some(text(c)?),
                                },
                            })
                        })
                        .collect::<Option<Vec<_>>>()?;
                    Some(obligations::CexStep {
                        process: text(&s["process"])?,
                        event: text(&s["event"])?,
                        beliefs_added: texts(&s["beliefs_added"])?,
                        beliefs_removed: texts(&s["beliefs_removed"])?,
                        sites,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            let cycle_from = match &c["cycle_from"] {
                serde_json::Value::Null => None,
                v => Some(usize::try_from(v.as_u64()?).ok()?),
            };
            let blocked = match &c["blocked"] {
                serde_json::Value::Null => Vec::new(),
                v => texts(v)?,
            };
            Some(Status::Refuted(Counterexample {
                steps,
                cycle_from,
                conclusion: text(&c["conclusion"])?,
                blocked,
            }))
        }
        _ => None,
    }
}

/// What an earlier build kept for `network` under `key`, when `out` keeps it: the frontend
/// reuses it only if the kernel's check of the certificate against this build's sources agrees
/// with it (`obligations::prove_reusing`). Anything missing, unreadable or under another key is
/// nothing, and the network is explored.
fn reused(
    out: &str,
    network: &str,
    key: &[u8; 32],
    stale: &Stale,
) -> Option<obligations::KeptProof> {
    use hilbert_frontend::input;
    let path = proof_path(out, network);
    let say = |why: String| {
        stale.borrow_mut().push((network.to_string(), why));
        None
    };
    let text = match input::read_regular(std::path::Path::new(&path), &path, 16 << 20) {
        Ok(text) => text,
        Err(input::InputError::Io { .. }) if !std::path::Path::new(&path).exists() => {
            return None;
        }
        Err(e) => return say(format!("its proof file cannot be read ({e})")),
    };
    let Ok(kept) = serde_json::from_slice::<serde_json::Value>(&text) else {
        return say(format!("`{path}` is damaged (not JSON)"));
    };
    // Another key: the sources changed since, which is no damage.
    if kept["key"].as_str()? != cert::hex(key) {
        return None;
    }
    let Some(named) = kept["certificate"].as_str() else {
        return say(format!("`{path}` names no certificate digest"));
    };
    let cert_path = format!("{}/{network}.cert", out.trim_end_matches('/'));
    let bytes = match input::read_regular(
        std::path::Path::new(&cert_path),
        &cert_path,
        input::CERTIFICATE_CAP,
    ) {
        Ok(bytes) => bytes,
        Err(e) => return say(format!("its certificate cannot be read ({e})")),
    };
    if cert::hex(&cert::sha256(&bytes)) != named {
        return say(format!(
            "`{cert_path}` is not the certificate its proof file names (damaged, or written by another build)"
        ));
    }
    let results = match &kept["results"] {
        serde_json::Value::Null => None,
        v => match v
            .as_array()
            .and_then(|r| r.iter().map(read_result).collect())
        {
            Some(results) => Some(results),
            None => return say(format!("`{path}` is damaged (its results are not read)")),
        },
    };
    Some(obligations::KeptProof {
        certificate: bytes,
        results,
    })
}

/// The networks whose kept proof a build found stale, and why: said on standard error, and
/// explored again.
type Stale = std::cell::RefCell<Vec<(String, String)>>;

/// Removes the temporaries of certificates and kept proof files that a build killed while
/// writing them left in `out` (`<name>.cert.tmp-PID`, `<name>.proof.json.tmp-PID`): those of a
/// process that is no more. A live process's may be a concurrent build's and stays; where no
/// `/proc` says which processes live, one is stale after a day. Best effort: what cannot be
/// removed stays.
fn remove_stale_temporaries(out: &str) {
    let Ok(entries) = std::fs::read_dir(out) else {
        return;
    };
    let proc = std::path::Path::new("/proc/self").exists();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((stem, pid)) = name.to_str().and_then(|n| n.rsplit_once(TMP)) else {
            continue;
        };
        let ours = stem.ends_with(".cert") || stem.ends_with(".proof.json");
        if !ours || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let stale = if proc {
            !std::path::Path::new("/proc").join(pid).exists()
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() > 24 * 3600)
        };
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The suffix of a temporary file [`write_atomically`] writes, before the writer's process id.
const TMP: &str = ".tmp-";

fn write_atomically(path: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let tmp = format!("{path}{TMP}{}", std::process::id());
    let result = std::fs::write(&tmp, bytes)
        .map_err(|e| format!("cannot write `{path}`: {e}"))
        .and_then(|()| std::fs::read(&tmp).map_err(|e| format!("cannot read `{tmp}` back: {e}")))
        .and_then(|back| {
            std::fs::rename(&tmp, path)
                .map(|()| back)
                .map_err(|e| format!("cannot move `{tmp}` to `{path}`: {e}"))
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `--param NAME=VALUE`, for clap.
pub fn parse_param(text: &str) -> Result<hilbert_frontend::ParamSpec, String> {
    hilbert_frontend::ParamSpec::parse(text)
}

/// The kernel's word on one theorem.
#[derive(Clone, Debug)]
struct KernelWord {
    admitted: bool,
    reason: Option<String>,
    certificate: Option<String>,
}

/// The kernel's word on one network's frame obligation.
#[derive(Clone, Debug)]
struct FrameWord {
    /// `Agent.Binding`.
    network: String,
    /// `Agent.Binding_frame`.
    obligation: String,
    word: KernelWord,
    /// Seconds the kernel took on the network's certificate (reading it back included).
    kernel_seconds: f64,
    /// The process's peak resident set while the kernel checked it, in bytes.
    kernel_peak_bytes: Option<u64>,
}

/// The kernel's word on each theorem (in the order of `Proofs::theorems`; `None` for a theorem
/// with no certificate, a host binding's), whether the kernel admitted the build (an admitted
/// certificate for every network of the IR, `hilbert_kernel::check::admit_build`), the seconds
/// the kernel took, and its word on each network's frame.
type KernelWords = (Vec<Option<KernelWord>>, bool, f64, Vec<FrameWord>);

/// Why the kernel refuses the certificate of a network the bound stopped.
const TRUNCATED: &str = "the certificate lists only the states explored before a bound (--max-states, --max-memory) stopped the search, so they are not closed under the steps";

/// Writes every certificate under `out`, reads it back and hands it to the kernel, which checks
/// it against the sources and the IR they lower to, and then whether the admitted certificates
/// cover every network of that IR.
fn kernel(
    proofs: &Proofs,
    out: &str,
    ir: Option<&Ir>,
    progress: &crate::progress::Progress,
) -> Result<KernelWords, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create `{out}`: {e}"))?;
    remove_stale_temporaries(out);
    let started = Instant::now();
    let mut words: Vec<Option<KernelWord>> = vec![None; proofs.theorems.len()];
    let mut frames = Vec::new();
    let mut tokens = Vec::new();
    // The theorems of each network, and no other's: names repeat across networks.
    let mut by_network: std::collections::HashMap<&str, Vec<usize>> =
        std::collections::HashMap::new();
    for (i, t) in proofs.theorems.iter().enumerate() {
        by_network.entry(t.network.as_str()).or_default().push(i);
    }
    // A theorem left unproved by the bound: the kernel's refusal of its truncated table is
    // expected, and said as such rather than as the state where the table stops.
    let bounded =
        |t: &Theorem| matches!(&t.status, Status::Unproved(r) if obligations::passed_a_bound(r));
    for (k, c) in proofs.certificates.iter().enumerate() {
        progress.phase(
            "kernel: checking the certificate of",
            Some((&c.name, k + 1, proofs.certificates.len())),
            false,
        );
        let path = format!("{}/{}.cert", out.trim_end_matches('/'), c.name);
        let mine: Vec<usize> = by_network.remove(c.name.as_str()).unwrap_or_default();
        // What the certificate must be: the slice of this network of the IR the sources lower
        // to, listing the sources the slice comes from.
        let slice = ir
            .and_then(|ir| ir.slice(c.network as usize))
            .map(|s| cert::ir_bytes(&s))
            .unwrap_or_default();
        let expected = Expected {
            sources: &c.sources,
            ir: &slice,
        };
        if let Some(why) = &c.withheld {
            // Not a certificate of an earlier build either, nor what it kept: they would not
            // be of these sources.
            for path in [&path, &proof_path(out, &c.name)] {
                match std::fs::remove_file(path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(format!("cannot remove the stale `{path}`: {e}")),
                }
            }
            let word = KernelWord {
                admitted: false,
                reason: Some(why.clone()),
                certificate: None,
            };
            for &i in &mine {
                words[i] = Some(word.clone());
            }
            frames.push(FrameWord {
                network: c.name.clone(),
                obligation: c.frame.clone(),
                word,
                kernel_seconds: 0.0,
                kernel_peak_bytes: None,
            });
            continue;
        }
        // A reused certificate was read from `path` and admitted by the kernel against these
        // sources while proving; any other is written, read back and checked now.
        let (report, kernel_seconds, kernel_peak_bytes, written) = match &c.reused {
            Some(r) => (r.report.clone(), r.seconds, r.peak_bytes, Vec::new()),
            None => {
                let phase = hilbert_prover::memory::Phase::begin();
                let clock = Instant::now();
                let written = write_atomically(&path, &c.bytes)?;
                let report = hilbert_kernel::check::check(&written, Some(&expected));
                (report, clock.elapsed().as_secs_f64(), phase.end(), written)
            }
        };
        keep_proof(out, c, &written, &proofs.theorems, &mine, &report)?;
        tokens.extend(report.admitted.clone());
        let verdict = report.obligations.iter().find(|(n, _)| *n == c.frame);
        let word = match (&report.invalid, verdict) {
            (Some(why), _) => KernelWord {
                admitted: false,
                reason: Some(format!("invalid certificate: {why}")),
                certificate: Some(path.clone()),
            },
            (None, Some((_, Verdict::Proved))) => KernelWord {
                admitted: true,
                reason: None,
                certificate: Some(path.clone()),
            },
            (None, Some((_, Verdict::Refused(r))))
                if mine.iter().any(|&i| bounded(&proofs.theorems[i])) =>
            {
                KernelWord {
                    admitted: false,
                    reason: Some(format!("{}: {TRUNCATED}", r.rule)),
                    certificate: Some(path.clone()),
                }
            }
            (None, Some((_, Verdict::Refused(r)))) => KernelWord {
                admitted: false,
                reason: Some(match &r.state {
                    Some(w) => format!("{}: {}; at the {w}", r.rule, r.reason),
                    None => format!("{}: {}", r.rule, r.reason),
                }),
                certificate: Some(path.clone()),
            },
            (None, None) => KernelWord {
                admitted: false,
                reason: Some("the kernel derives no frame obligation for it".into()),
                certificate: Some(path.clone()),
            },
        };
        frames.push(FrameWord {
            network: c.name.clone(),
            obligation: c.frame.clone(),
            word,
            kernel_seconds,
            kernel_peak_bytes,
        });
        for (k, &i) in mine.iter().enumerate() {
            let t = &proofs.theorems[i];
            // The kernel's obligations come in the order of the network's theorems; a name
            // that repeats within the network (two release rules of one desire) is matched
            // occurrence by occurrence.
            let nth = mine[..k]
                .iter()
                .filter(|&&j| proofs.theorems[j].name == t.name)
                .count();
            let verdict = report
                .obligations
                .iter()
                .filter(|(n, _)| *n == t.name)
                .nth(nth);
            let word = match (&report.invalid, verdict) {
                (Some(why), _) => KernelWord {
                    admitted: false,
                    reason: Some(format!("invalid certificate: {why}")),
                    certificate: Some(path.clone()),
                },
                (None, Some((_, Verdict::Proved))) => KernelWord {
                    admitted: true,
                    reason: None,
                    certificate: Some(path.clone()),
                },
                (None, Some((_, Verdict::Refused(r)))) if bounded(t) => KernelWord {
                    admitted: false,
                    reason: Some(format!("{}: {TRUNCATED}", r.rule)),
                    certificate: Some(path.clone()),
                },
                (None, Some((_, Verdict::Refused(r)))) => KernelWord {
                    admitted: false,
                    reason: Some(format!("{}: {}", r.rule, r.reason)),
                    certificate: Some(path.clone()),
                },
                (None, None) => KernelWord {
                    admitted: false,
                    reason: Some("the kernel derives no such obligation".into()),
                    certificate: Some(path.clone()),
                },
            };
            words[i] = Some(word);
        }
    }
    let all = match ir {
        Some(ir) => admit_build(ir, &tokens.iter().collect::<Vec<_>>()).is_ok(),
        None => false,
    };
    Ok((words, all, started.elapsed().as_secs_f64(), frames))
}

/// Runs the command and returns its exit code.
pub fn run(args: &Args) -> u8 {
    let begun = Instant::now();
    if let Err(code) = output::check_reports(&args.reports) {
        return code;
    }
    let when = if args.quiet {
        crate::progress::When::Never
    } else {
        args.progress
    };
    let progress = match crate::progress::Progress::start(when) {
        Ok(p) => p,
        Err(e) => {
            return output::fail(
                output::Kind::Usage,
                &e,
                "set it to the seconds between progress lines off a terminal (such as 30), or unset it for 10",
            );
        }
    };
    progress.phase("checking the sources", None, false);
    let (loaded, inputs) = match load_project(&args.paths) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // The check's Z3 queries are bounded by --max-memory too (stopped past half of it, as an
    // exploration is).
    let max_memory = args
        .max_memory
        .unwrap_or_else(hilbert_prover::memory::default_limit);
    let smt = hilbert_smt::Options {
        timeout_ms: args.smt_timeout,
        budget_ms: Some(args.smt_budget),
        keep_text: args.emit_smt.is_some(),
        max_memory: Some(max_memory),
    };
    let checked = match crate::check::check_with_params(&loaded, smt, &args.params) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Some(dir) = &args.emit_smt
        && let Err(e) = checked.smt.write(std::path::Path::new(dir))
    {
        return output::fail(
            output::Kind::Output,
            &format!("cannot write the SMT-LIB queries to `{dir}`: {e}"),
            "choose a writable directory with --emit-smt DIR",
        );
    }
    if let (Some(dir), Some(ir)) = (&args.emit_values, &checked.ir)
        && let Err(e) = emit_values(std::path::Path::new(dir), ir)
    {
        return output::fail(
            output::Kind::Output,
            &format!("cannot write the compiled values to `{dir}`: {e}"),
            "choose a writable directory with --emit-values DIR",
        );
    }
    let started = Instant::now();
    let limits = Limits {
        max_states: args.max_states,
        jobs: cap_jobs(args.jobs),
        max_memory,
    };
    let source_digests: Vec<SourceDigest> = inputs
        .iter()
        .map(|i| source_digest(&i.path, &i.sha256))
        .collect();
    let stale = Stale::default();
    let networks = checked.ir.as_ref().map_or(0, |ir| ir.networks.len());
    let proving = std::cell::Cell::new(0usize);
    let proofs = match &checked.ir {
        Some(ir) if !checked.has_errors() => obligations::prove_reusing(
            ir,
            &checked.program,
            &loaded.sources,
            &source_digests,
            limits,
            hilbert_prover::explore::Explorer::Fast,
            &|name, key| {
                proving.set(proving.get() + 1);
                progress.phase("proving", Some((name, proving.get(), networks)), true);
                if args.fresh {
                    None
                } else {
                    reused(&args.out, name, key, &stale)
                }
            },
        ),
        _ => Proofs::default(),
    };
    let mut stale = stale.into_inner();
    stale.extend(proofs.stale.iter().cloned());
    for (network, why) in &stale {
        eprintln!(
            "note: the kept proof of `{network}` in `{}` is stale: {why}; the network was explored again",
            args.out
        );
    }
    if let Some(dir) = &args.emit_smt {
        // The queries proving asked (ranking functions), beside the checks' queries.
        for q in &proofs.smt {
            let path = std::path::Path::new(dir).join(format!("{}.smt2", q.name));
            if let Err(e) = output::write_whole(&path, q.file_text()) {
                return output::fail(
                    output::Kind::Output,
                    &format!("cannot write `{}`: {e}", path.display()),
                    "choose a writable directory with --emit-smt DIR",
                );
            }
        }
    }
    if let Some(dir) = &args.trace_svg
        && let Err(e) = write_traces(std::path::Path::new(dir), &proofs, args.trace_format)
    {
        return output::fail(
            output::Kind::Output,
            &format!("cannot write the counterexample pictures to `{dir}`: {e}"),
            "choose a writable directory with --trace-svg DIR",
        );
    }
    let explore_seconds = started.elapsed().as_secs_f64();
    let mut diagnostics = checked.diagnostics.clone();
    diagnostics.extend(proofs.diagnostics.iter().cloned());
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start, d.code));
    let summary = Summary::of(&diagnostics, loaded.sources.files().len());
    let bounded = proofs
        .theorems
        .iter()
        .any(|t| matches!(&t.status, Status::Unproved(r) if obligations::passed_a_bound(r)));
    let ir = checked.ir.as_ref().filter(|_| !checked.has_errors());
    // The kernel's check runs on as many threads as the exploration (`--jobs`; 0: every core).
    let check = || kernel(&proofs, &args.out, ir, &progress);
    let checked_by_kernel = match limits.jobs {
        0 => check(),
        n => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(check),
            Err(_) => check(),
        },
    };
    let (words, all_certificates, kernel_seconds, frames) = match checked_by_kernel {
        Ok(k) => k,
        Err(e) => {
            return output::fail_at(
                output::Kind::Output,
                &args.out,
                &e,
                "choose a writable directory with --out DIR",
            );
        }
    };
    // Only the kernel admits: every theorem admitted by it, every certificate admitted, no error,
    // and no warning when warnings are denied.
    let admitted = summary.errors == 0
        && !(args.deny_warnings && summary.warnings > 0)
        && all_certificates
        && words.iter().all(|w| w.as_ref().is_some_and(|w| w.admitted));
    let render = |format: Format, color: bool| match format {
        Format::Human => human(
            &loaded.sources,
            &diagnostics,
            &proofs,
            &words,
            &frames,
            admitted,
            summary,
            args,
            color,
        ),
        Format::Json => json(
            &loaded.sources,
            &inputs,
            &diagnostics,
            &proofs,
            &words,
            &frames,
            admitted,
            explore_seconds,
            kernel_seconds,
            limits.max_memory,
        ),
        Format::Sarif => sarif::build_report(
            &loaded.sources,
            &diagnostics,
            &sarif_theorems(&proofs, &words, &checked.program, &loaded.sources),
        ),
        Format::Junit => {
            let check = junit::check_suite(
                &loaded.sources,
                &diagnostics,
                args.deny_warnings,
                (started - begun).as_secs_f64(),
            );
            let binding_at = |network: &str| {
                binding_span(&checked.program, network).map(|span| {
                    let at = crate::check::locate(&loaded.sources, span);
                    (at.file, at.line)
                })
            };
            let suites = junit_suites(check, &proofs, &words, &frames, admitted, &binding_at);
            junit::report("hilbert build", begun.elapsed().as_secs_f64(), &suites)
        }
    };
    progress.phase("writing the reports", None, false);
    if let Err(code) = output::write_reports(&args.reports, &|f| render(f, false)) {
        return code;
    }
    // The terminal's progress line is erased before the report.
    drop(progress);
    if !args.quiet {
        output::stdout(&render(args.format, args.color.enabled()));
    }
    if let Some(code) = crate::check::memory_stop(&checked.smt) {
        return code;
    }
    if bounded {
        // A resource bound passed is an environment matter: said as such, exit code 2.
        return crate::EXIT_USAGE;
    }
    u8::from(!admitted)
}

#[allow(clippy::too_many_arguments)]
fn human(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    proofs: &Proofs,
    words: &[Option<KernelWord>],
    frames: &[FrameWord],
    admitted: bool,
    summary: Summary,
    args: &Args,
    color: bool,
) -> String {
    let mut text = crate::check::render_capped(diagnostics, sources, color);
    if summary.errors > 0 {
        text.push_str(&summary.render(args.deny_warnings, color));
        return text;
    }
    let labels = theorem_labels(&proofs.theorems);
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for ((t, label), word) in proofs.theorems.iter().zip(&labels).zip(words) {
        text.push_str(&theorem_text(label, width, t, word.as_ref()));
    }
    for f in frames {
        text.push_str(&frame_text(f));
    }
    for n in network_stats(proofs, frames) {
        let mib = |b: Option<u64>| {
            b.map_or("?".to_string(), |b| {
                format!("{:.1} MiB", b as f64 / (1 << 20) as f64)
            })
        };
        let kernel = if n.certificate_written {
            format!(
                "kernel {:.2} s, peak {}",
                n.kernel_seconds,
                mib(n.kernel_peak_rss_bytes)
            )
        } else {
            "no certificate".to_string()
        };
        let proved = proofs
            .theorems
            .iter()
            .filter(|t| t.network == n.network)
            .all(|t| matches!(t.status, Status::Proved));
        let work = if n.reused && proved {
            "reused: proved by an earlier build, not explored again".to_string()
        } else if n.reused {
            "reused: decided by an earlier build, not explored again (its certificate re-checked by the kernel, its counterexamples replayed)".to_string()
        } else {
            format!(
                "explore and prove {:.2} s, peak {}",
                n.seconds,
                mib(n.peak_rss_bytes)
            )
        };
        text.push_str(&format!(
            "network {}: {} state{}, {} transition{}; {work}; {kernel}\n",
            n.network,
            n.states,
            if n.states == 1 { "" } else { "s" },
            n.transitions,
            if n.transitions == 1 { "" } else { "s" },
        ));
    }
    let count = |w: &str| {
        proofs
            .theorems
            .iter()
            .filter(|t| t.status.word() == w)
            .count()
    };
    text.push_str(&format!(
        "\n{} theorem{}: {} proved, {} refuted, {} unproved; {} warning{}\n",
        proofs.theorems.len(),
        if proofs.theorems.len() == 1 { "" } else { "s" },
        count("proved"),
        count("refuted"),
        count("unproved"),
        summary.warnings,
        if summary.warnings == 1 { "" } else { "s" },
    ));
    text.push_str(if admitted {
        "admitted: the kernel re-checked every certificate\n"
    } else {
        "not admitted: only a build whose every theorem the kernel admits is admitted\n"
    });
    text
}

/// A statement longer than a few lines, cut to its beginning and end for people (a goal of
/// 10,000 terms would be a 40 KB line), here and in JUnit's copy of these lines; the JSON
/// report gives it whole.
fn elided(statement: &str) -> std::borrow::Cow<'_, str> {
    const HEAD: usize = 200;
    const TAIL: usize = 100;
    let chars = statement.chars().count();
    if chars <= HEAD + TAIL + 100 {
        return statement.into();
    }
    let cut = |n: usize| {
        statement
            .char_indices()
            .nth(n)
            .map_or(statement.len(), |(i, _)| i)
    };
    format!(
        "{} … ({chars} characters; --format json gives the whole statement) … {}",
        &statement[..cut(HEAD)],
        &statement[cut(chars - TAIL)..]
    )
    .into()
}

/// One theorem as the human report gives it: `theorem LABEL : STATEMENT` (the label padded to
/// `width`), its status with the counts and the kernel's word, and a refuted theorem's
/// counterexample.
fn theorem_text(label: &str, width: usize, t: &Theorem, word: Option<&KernelWord>) -> String {
    let mut text = format!("theorem {label:width$} : {}\n", elided(&t.statement));
    let counts = format!("{} states, {} transitions", t.states, t.transitions);
    let kernel = match word {
        Some(w) if w.admitted => "kernel: admitted".to_string(),
        Some(w) if w.certificate.is_none() => format!(
            "kernel: not asked ({})",
            w.reason.as_deref().unwrap_or("no certificate")
        ),
        Some(w) => format!(
            "kernel: refused ({})",
            w.reason.as_deref().unwrap_or("no reason given")
        ),
        None => "kernel: no certificate".to_string(),
    };
    match &t.status {
        Status::Proved => text.push_str(&format!("  proved ({counts}); {kernel}\n")),
        Status::Unproved(reason) => {
            text.push_str(&format!("  unproved: {reason} ({counts}); {kernel}\n"));
        }
        Status::Refuted(cex) => {
            text.push_str(&format!("  refuted ({counts}); {kernel}\n"));
            text.push_str(&show_counterexample(cex));
        }
    }
    text
}

/// A network's frame obligation as the human report gives it: one line with the kernel's word.
fn frame_text(f: &FrameWord) -> String {
    match &f.word.reason {
        None if f.word.admitted => format!(
            "frame {}: kernel: checked D for R^B, R^D, R^I, 4 and 5 for R^B, R^D ⊆ R^I on its explored worlds\n",
            f.network
        ),
        reason => format!(
            "frame {}: kernel: refused ({})\n",
            f.network,
            reason.as_deref().unwrap_or("no reason given")
        ),
    }
}

/// How the human report names each theorem: by its name alone when every theorem is of one
/// network, and otherwise as `Agent.Binding: Name`, since names repeat across networks (two
/// agents' `plan Run` both have a `Run_no_deadlock`).
fn theorem_labels(theorems: &[Theorem]) -> Vec<String> {
    let one_network = theorems.windows(2).all(|w| w[0].network == w[1].network);
    theorems
        .iter()
        .map(|t| {
            if one_network {
                t.name.clone()
            } else {
                format!("{}: {}", t.network, t.name)
            }
        })
        .collect()
}

/// At most this many belief changes of one counterexample step are shown in the human report;
/// the rest are counted (`… and N more`). The JSON report lists them all.
const SHOWN_CHANGES: usize = 16;

/// A counterexample as numbered steps, with the cycle marked.
fn show_counterexample(cex: &Counterexample) -> String {
    let mut text = String::from("  counterexample, from the scene:\n");
    if cex.steps.is_empty() {
        text.push_str("    (the scene's first state)\n");
    }
    for (i, s) in cex.steps.iter().enumerate() {
        if cex.cycle_from == Some(i) {
            text.push_str("    -- the cycle starts here and repeats forever --\n");
        }
        let total = s.beliefs_added.len() + s.beliefs_removed.len();
        let mut changes: Vec<String> = s
            .beliefs_added
            .iter()
            .map(|a| format!("+{a}"))
            .chain(s.beliefs_removed.iter().map(|a| format!("-{a}")))
            .take(SHOWN_CHANGES)
            .collect();
        if total > SHOWN_CHANGES {
            changes.push(format!("… and {} more", total - SHOWN_CHANGES));
        }
        let changes = if changes.is_empty() {
            String::new()
        } else {
            format!("   {}", changes.join(" "))
        };
        text.push_str(&format!(
            "    {:>3}. {}: {}{}\n",
            i + 1,
            s.process,
            s.event,
            changes
        ));
    }
    text.push_str(&format!("    => {}\n", cex.conclusion));
    for b in &cex.blocked {
        text.push_str(&format!("       {b}\n"));
    }
    text
}

/// Where the steps of counterexamples happen in the `.hk` files: the send or the receive of a
/// site's channel in its plan (the first in the plan's text, body then handlers), or the plan's
/// name. Each plan file is parsed again once, when a step first needs it (the trees are dropped
/// after lowering).
struct Sites<'a> {
    program: &'a hilbert_frontend::check::Program,
    sources: &'a SourceMap,
    parsed: std::cell::RefCell<
        std::collections::HashMap<String, Option<hilbert_frontend::syntax::ast::PlanFile>>,
    >,
}

impl Sites<'_> {
    /// The span of a step's site: its send (`send`) or receive on its channel, else its plan's
    /// name; `None` when the plan is not found.
    fn span(&self, site: &obligations::Site, send: bool) -> Option<hilbert_frontend::Span> {
        use hilbert_frontend::syntax::ast::{Module, Proc, ProcKind};
        let file = self
            .program
            .plan_files
            .iter()
            .find(|f| f.stem == site.file)?;
        let declared = file
            .plans
            .iter()
            .find(|p| p.name == site.plan && !p.duplicate)?;
        let Some(channel) = &site.channel else {
            return Some(declared.span);
        };
        let mut parsed = self.parsed.borrow_mut();
        let tree =
            parsed.entry(site.file.clone()).or_insert_with(
                || match hilbert_frontend::syntax::parse(self.sources.get(file.file)).0 {
                    Module::Plans(p) => Some(p),
                    _ => None,
                },
            );
        fn find(p: &Proc, channel: &str, send: bool) -> Option<hilbert_frontend::Span> {
            match &p.kind {
                ProcKind::Send { chan, .. } if send && chan.name == *channel => Some(p.span),
                ProcKind::Recv { chan, .. } if !send && chan.name == *channel => Some(p.span),
                ProcKind::Parallel(ps) | ProcKind::Choice(ps) | ProcKind::Seq(ps) => {
                    ps.iter().find_map(|q| find(q, channel, send))
                }
                ProcKind::Interrupt(a, b) => {
                    find(a, channel, send).or_else(|| find(b, channel, send))
                }
                ProcKind::Labelled(_, q) => find(q, channel, send),
                _ => None,
            }
        }
        let plan = tree
            .as_ref()?
            .plans
            .iter()
            .find(|p| p.name.name == *site.plan.as_str())?;
        plan.body
            .iter()
            .chain(plan.handlers.iter().map(|h| &h.body))
            .find_map(|p| find(p, channel, send))
            .or(Some(declared.span))
    }
}

/// Where the binding of `network` (`Agent.Binding`) is written: `plan Go ↦ P1.Run`.
fn binding_span(
    program: &hilbert_frontend::check::Program,
    network: &str,
) -> Option<hilbert_frontend::Span> {
    program.agents.iter().find_map(|a| {
        a.bindings
            .iter()
            .find(|b| format!("{}.{}", a.name, b.name) == network)
            .map(|b| b.span)
    })
}

/// A refuted theorem's one-line message for a dashboard that shows only messages: what is wrong
/// at the end and the steps that lead there (the whole counterexample, up to 2,000 characters;
/// the failure's text has it all, with the belief changes).
fn refuted_message(c: &Counterexample) -> String {
    const MOST: usize = 2000;
    let steps: Vec<String> = c
        .steps
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let cycle = if c.cycle_from == Some(k) {
                "(from here, forever) "
            } else {
                ""
            };
            format!("{}. {cycle}{}: {}", k + 1, s.process, s.event)
        })
        .collect();
    let mut message = if steps.is_empty() {
        format!("{} (in the scene's first state)", c.conclusion)
    } else {
        format!(
            "{} — after {} step{}: {}",
            c.conclusion,
            steps.len(),
            if steps.len() == 1 { "" } else { "s" },
            steps.join("; ")
        )
    };
    if message.chars().count() > MOST {
        message = message.chars().take(MOST - 1).collect::<String>() + "…";
    }
    message
}

/// Every theorem the kernel did not admit, of every network, as a result of the SARIF log,
/// located at its network's binding.
fn sarif_theorems(
    proofs: &Proofs,
    words: &[Option<KernelWord>],
    program: &hilbert_frontend::check::Program,
    sources: &SourceMap,
) -> Vec<sarif::TheoremResult> {
    let sites = Sites {
        program,
        sources,
        parsed: Default::default(),
    };
    let binding = |network: &str| binding_span(program, network);
    proofs
        .theorems
        .iter()
        .zip(words)
        .filter(|(_, w)| !w.as_ref().is_some_and(|w| w.admitted))
        .map(|(t, w)| {
            let kernel_reason = match w {
                Some(w) => w.reason.clone(),
                None => Some("no certificate: the plan cannot be explored".to_string()),
            };
            let (rule, why) = match &t.status {
                Status::Refuted(c) => (
                    sarif::TheoremRule::Refuted,
                    format!(
                        "is refuted: {} (a counterexample of {} step{} from the scene)",
                        c.conclusion,
                        c.steps.len(),
                        if c.steps.len() == 1 { "" } else { "s" }
                    ),
                ),
                Status::Unproved(r) => (sarif::TheoremRule::Unproved, format!("is unproved: {r}")),
                Status::Proved => (
                    sarif::TheoremRule::Refused,
                    format!(
                        "was proved, but the kernel refused it: {}",
                        kernel_reason.as_deref().unwrap_or("no reason given")
                    ),
                ),
            };
            // Each step at its send (a rendezvous: the receive is named in its text) or its
            // plan; the conclusion, at the binding.
            let steps = match &t.status {
                Status::Refuted(c) => {
                    let mut lines = c.lines();
                    for (line, step) in lines.iter_mut().zip(&c.steps) {
                        if let [_, receiver] = &step.sites[..]
                            && let Some(at) = sites.span(receiver, false)
                        {
                            let l = sarif::locate_line(sources, at);
                            line.push_str(&format!(" (received at {l})"));
                        }
                    }
                    let spans = c
                        .steps
                        .iter()
                        .map(|s| s.sites.first().and_then(|site| sites.span(site, true)));
                    lines
                        .into_iter()
                        .zip(spans.chain(std::iter::repeat(None)))
                        .collect()
                }
                _ => Vec::new(),
            };
            sarif::TheoremResult {
                rule,
                steps,
                message: format!("theorem {}: {} {why}", t.network, t.name),
                span: binding(&t.network),
                properties: serde_json::json!({
                    "network": t.network,
                    "theorem": t.name,
                    "statement": t.statement,
                    "status": t.status.word(),
                    "kernel_reason": kernel_reason,
                }),
            }
        })
        .collect()
}

/// The JUnit report's suites: `check` (a case per source file), then one per network
/// (`Agent.Binding`, in the order of the theorems) with a case per theorem and one for the frame
/// obligation. A case passes only when the kernel admitted it; a refuted theorem is a
/// `<failure>` with its counterexample, a proved one the kernel refused is a `<failure>` too,
/// and an unproved one (a bound, host code, a parameter with no value) is an `<error>`: not
/// decided, and still not admitted. Each network's time (exploring, proving and certifying it,
/// and the kernel's check) is shared evenly among its cases.
fn junit_suites(
    check: junit::Suite,
    proofs: &Proofs,
    words: &[Option<KernelWord>],
    frames: &[FrameWord],
    admitted: bool,
    binding_at: &dyn Fn(&str) -> Option<(String, usize)>,
) -> Vec<junit::Suite> {
    use junit::{Case, Outcome, Suite};
    // The human report's labels and padding: a case's text is that report's, word for word.
    let labels = theorem_labels(&proofs.theorems);
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let stats = network_stats(proofs, frames);
    // Every network's theorems, in the order the networks first appear (a network with no
    // theorem still has its frame); looked up by name, as there may be thousands.
    let mut order: Vec<&str> = Vec::new();
    let mut theorems: std::collections::HashMap<&str, Vec<usize>> =
        std::collections::HashMap::new();
    let networks = proofs
        .theorems
        .iter()
        .map(|t| t.network.as_str())
        .chain(frames.iter().map(|f| f.network.as_str()));
    for name in networks {
        if !theorems.contains_key(name) {
            theorems.insert(name, Vec::new());
            order.push(name);
        }
    }
    for (i, t) in proofs.theorems.iter().enumerate() {
        theorems.entry(t.network.as_str()).or_default().push(i);
    }
    let frame_of: std::collections::HashMap<&str, &FrameWord> =
        frames.iter().map(|f| (f.network.as_str(), f)).collect();
    let stat_of: std::collections::HashMap<&str, &NetworkStats> =
        stats.iter().map(|n| (n.network, n)).collect();
    let mut suites = vec![check];
    for network in order {
        let location = binding_at(network);
        let mine = theorems.remove(network).unwrap_or_default();
        let frame = frame_of.get(network).copied();
        let stat = stat_of.get(network).copied();
        let seconds = stat.map_or(0.0, |n| n.seconds + n.kernel_seconds);
        let time = junit::share(seconds, mine.len() + usize::from(frame.is_some()));
        let undecided = mine
            .iter()
            .any(|&i| matches!(proofs.theorems[i].status, Status::Unproved(_)));
        let mut cases: Vec<Case> = Vec::new();
        for (k, &i) in mine.iter().enumerate() {
            let t = &proofs.theorems[i];
            let word = words[i].as_ref();
            let text = theorem_text(&labels[i], width, t, word);
            // A name can repeat within a network (two release rules of one desire): dashboards
            // key cases by name, so the second is `Name (2)`.
            let nth = mine[..k]
                .iter()
                .filter(|&&j| proofs.theorems[j].name == t.name)
                .count();
            let name = if nth == 0 {
                t.name.clone()
            } else {
                format!("{} ({})", t.name, nth + 1)
            };
            let kernel_reason = word
                .and_then(|w| w.reason.clone())
                .unwrap_or_else(|| "no certificate".to_string());
            let outcome = match &t.status {
                _ if word.is_some_and(|w| w.admitted) => Outcome::Passed,
                Status::Refuted(c) => Outcome::Failure {
                    kind: "refuted".into(),
                    message: refuted_message(c),
                },
                Status::Unproved(reason) => Outcome::Error {
                    kind: "unproved".into(),
                    message: reason.clone(),
                },
                Status::Proved => Outcome::Failure {
                    kind: "refused".into(),
                    message: format!("proved, but the kernel refused it: {kernel_reason}"),
                },
            };
            cases.push(Case {
                name,
                classname: network.to_string(),
                location: location.clone(),
                time,
                outcome,
                text,
            });
        }
        if let Some(f) = frame {
            let reason = f.word.reason.clone().unwrap_or_default();
            let outcome = if f.word.admitted {
                Outcome::Passed
            } else if f.word.certificate.is_none() || undecided {
                Outcome::Error {
                    kind: "unproved".into(),
                    message: reason,
                }
            } else {
                Outcome::Failure {
                    kind: "refused".into(),
                    message: reason,
                }
            };
            cases.push(Case {
                name: f.obligation.clone(),
                classname: network.to_string(),
                location: location.clone(),
                time,
                outcome,
                text: frame_text(f),
            });
        }
        let mut properties = Vec::new();
        if let Some(c) = frame.and_then(|f| f.word.certificate.as_deref()) {
            properties.push(("certificate".to_string(), c.to_string()));
        }
        if let Some(n) = stat {
            properties.push(("states".to_string(), n.states.to_string()));
            properties.push(("transitions".to_string(), n.transitions.to_string()));
            properties.push(("reused".to_string(), n.reused.to_string()));
        }
        suites.push(Suite {
            name: network.to_string(),
            time: seconds,
            properties,
            cases,
        });
    }
    // A build refused for a reason no case shows (the kernel found no admitted certificate for
    // some network) still fails in the report.
    let failing = suites
        .iter()
        .flat_map(|s| &s.cases)
        .any(|c| c.outcome != Outcome::Passed);
    if !admitted && !failing {
        suites.push(Suite {
            name: "admission".to_string(),
            time: 0.0,
            properties: Vec::new(),
            cases: vec![Case {
                name: "admitted".to_string(),
                classname: "admission".to_string(),
                location: None,
                time: 0.0,
                outcome: Outcome::Failure {
                    kind: "refused".into(),
                    message: "not admitted: the kernel did not admit a certificate for every network of the sources".into(),
                },
                text: String::new(),
            }],
        });
    }
    suites
}

#[derive(Serialize)]
struct Report<'a> {
    schema_version: u32,
    tool: crate::json::Tool,
    inputs: Vec<crate::json::InputJson<'a>>,
    admitted: bool,
    diagnostics: Vec<serde_json::Value>,
    theorems: Vec<TheoremJson<'a>>,
    frames: Vec<FrameJson<'a>>,
    stats: Stats<'a>,
}

#[derive(Serialize)]
struct FrameJson<'a> {
    network: &'a str,
    obligation: &'a str,
    kernel: &'static str,
    kernel_reason: Option<&'a str>,
    certificate: Option<&'a str>,
}

#[derive(Serialize)]
struct TheoremJson<'a> {
    /// `Agent.Binding`: theorem names repeat across networks.
    network: &'a str,
    name: &'a str,
    statement: &'a str,
    status: &'static str,
    reason: Option<&'a str>,
    kernel: &'static str,
    kernel_reason: Option<String>,
    states: usize,
    transitions: usize,
    certificate: Option<String>,
    counterexample: Option<CexJson<'a>>,
}

#[derive(Serialize)]
struct CexJson<'a> {
    steps: Vec<StepJson<'a>>,
    cycle_from: Option<usize>,
    conclusion: &'a str,
    /// At a deadlock, what each waiting process waits for.
    blocked: &'a [String],
}

#[derive(Serialize)]
struct StepJson<'a> {
    process: &'a str,
    event: &'a str,
    beliefs_added: &'a [String],
    beliefs_removed: &'a [String],
}

#[derive(Serialize)]
struct Stats<'a> {
    states: usize,
    transitions: usize,
    explore_seconds: f64,
    kernel_seconds: Option<f64>,
    /// Parts of `explore_seconds`: exploring the scenes, and writing certificates (what is
    /// left is deciding the theorems and finding counterexamples).
    scene_seconds: f64,
    certify_seconds: f64,
    /// The process's peak resident set over the whole build (Linux), in bytes.
    peak_rss_bytes: Option<u64>,
    /// `--max-memory`, in bytes.
    max_memory_bytes: u64,
    /// Per network, in the order of the certificates.
    networks: Vec<NetworkStats<'a>>,
}

/// One network's share of the build.
#[derive(Serialize)]
struct NetworkStats<'a> {
    network: &'a str,
    /// Whether a certificate was written (not when the exploration passed --max-memory).
    certificate_written: bool,
    /// Whether an earlier build's proof was reused: the network was not explored again, and
    /// the kernel checked the kept certificate.
    reused: bool,
    states: usize,
    transitions: usize,
    /// Exploring, proving and certifying it.
    seconds: f64,
    /// The peak resident set meanwhile, in bytes.
    peak_rss_bytes: Option<u64>,
    /// The kernel's check of its certificate.
    kernel_seconds: f64,
    /// The peak resident set meanwhile, in bytes.
    kernel_peak_rss_bytes: Option<u64>,
}

/// Each network's statistics, from its certificate and the kernel's frame word on it.
fn network_stats<'a>(proofs: &'a Proofs, frames: &[FrameWord]) -> Vec<NetworkStats<'a>> {
    let by_name: std::collections::HashMap<&str, &FrameWord> =
        frames.iter().map(|f| (f.network.as_str(), f)).collect();
    proofs
        .certificates
        .iter()
        .map(|c| {
            let f = by_name.get(c.name.as_str());
            NetworkStats {
                network: &c.name,
                certificate_written: c.withheld.is_none(),
                reused: c.reused.is_some(),
                states: c.states,
                transitions: c.transitions,
                seconds: c.seconds,
                peak_rss_bytes: c.peak_bytes,
                kernel_seconds: f.map_or(0.0, |f| f.kernel_seconds),
                kernel_peak_rss_bytes: f.and_then(|f| f.kernel_peak_bytes),
            }
        })
        .collect()
}

fn theorem<'a>(t: &'a Theorem, w: Option<&KernelWord>) -> TheoremJson<'a> {
    TheoremJson {
        network: &t.network,
        name: &t.name,
        statement: &t.statement,
        status: t.status.word(),
        reason: match &t.status {
            Status::Unproved(r) => Some(r),
            _ => None,
        },
        kernel: if w.is_some_and(|w| w.admitted) {
            "admitted"
        } else {
            "refused"
        },
        kernel_reason: match w {
            Some(w) => w.reason.clone(),
            None => Some("no certificate: the plan cannot be explored".into()),
        },
        states: t.states,
        transitions: t.transitions,
        certificate: w.and_then(|w| w.certificate.clone()),
        counterexample: match &t.status {
            Status::Refuted(c) => Some(CexJson {
                steps: c
                    .steps
                    .iter()
                    .map(|s| StepJson {
                        process: &s.process,
                        event: &s.event,
                        beliefs_added: &s.beliefs_added,
                        beliefs_removed: &s.beliefs_removed,
                    })
                    .collect(),
                cycle_from: c.cycle_from,
                conclusion: &c.conclusion,
                blocked: &c.blocked,
            }),
            _ => None,
        },
    }
}

#[allow(clippy::too_many_arguments)]
fn json(
    sources: &SourceMap,
    inputs: &[Input],
    diagnostics: &[Diagnostic],
    proofs: &Proofs,
    words: &[Option<KernelWord>],
    frames: &[FrameWord],
    admitted: bool,
    explore_seconds: f64,
    kernel_seconds: f64,
    max_memory: u64,
) -> String {
    let report = Report {
        schema_version: crate::json::SCHEMA_VERSION,
        tool: crate::json::Tool::this(),
        inputs: crate::json::inputs(inputs),
        admitted,
        diagnostics: diagnostics
            .iter()
            .map(|d| crate::json::diagnostic_value(sources, d))
            .collect(),
        theorems: proofs
            .theorems
            .iter()
            .zip(words)
            .map(|(t, w)| theorem(t, w.as_ref()))
            .collect(),
        frames: frames
            .iter()
            .map(|f| FrameJson {
                network: &f.network,
                obligation: &f.obligation,
                kernel: if f.word.admitted {
                    "admitted"
                } else {
                    "refused"
                },
                kernel_reason: f.word.reason.as_deref(),
                certificate: f.word.certificate.as_deref(),
            })
            .collect(),
        stats: Stats {
            states: proofs.states,
            transitions: proofs.transitions,
            explore_seconds,
            kernel_seconds: Some(kernel_seconds),
            scene_seconds: proofs.explore_seconds,
            certify_seconds: proofs.certify_seconds,
            peak_rss_bytes: hilbert_prover::memory::overall_peak(),
            max_memory_bytes: max_memory,
            networks: network_stats(proofs, frames),
        },
    };
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}

/// The bytes of a lowercase hex digest (as the inputs carry it).
/// A source's digest as a certificate records it, from its path and hex SHA-256.
pub(crate) fn source_digest(path: &str, hex: &str) -> SourceDigest {
    SourceDigest {
        path: path.to_string(),
        sha256: unhex(hex),
    }
}

fn unhex(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = hex
            .get(2 * i..2 * i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0);
    }
    out
}
