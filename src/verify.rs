//! `hilbert verify CERT… [--sources PATH…]`: the kernel re-checks certificates, for auditors.
//! The bytes go to `hilbert_kernel::check::check`, and its report is printed. Without
//! `--sources` nothing else runs: the kernel's word is about the IR inside each certificate.
//! With `--sources`, the sources are loaded and lowered by the same deterministic lowering as
//! `hilbert build` (`hilbert_frontend::lower_project`, no solver), under exactly the agent
//! parameter values `--param` states (never values taken from the certificates), and the kernel
//! requires each certificate's sources to be those files, (path, digest) pair for pair, its IR
//! to be the lowered IR byte for byte, and one admitted certificate for every network of that IR
//! (`hilbert_kernel::check::admit_build`). Every report prints the parameter values. `--dump` prints each decoded certificate as a
//! listing (or, with `--format json`, as JSON), for people to read the IR the kernel trusted
//! next to the sources.
//!
//! Exit codes: 0 every certificate admitted, 1 one refused or invalid, 2 a file that cannot be
//! read (or a usage error).

use crate::output;
use hilbert_certificates::cert::{self, SourceDigest};
use hilbert_certificates::ir::Ir;
use hilbert_frontend::input;
use hilbert_kernel::check::{Expected, Report, Verdict, admit_build, check_within as check};
use serde::Serialize;
use std::path::Path;

/// How `hilbert verify` writes its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: per certificate its network, per obligation `proved` or `refused`.
    Human,
    /// One JSON object.
    Json,
    /// JUnit XML, for CI dashboards: a test suite per certificate, a test case per obligation.
    Junit,
}

/// The options of `hilbert verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Certificate files (as `hilbert build` writes them under `--out`).
    #[arg(value_name = "CERT", required = true)]
    certs: Vec<String>,
    /// The sources the certificates must have been made from: files, or directories (every .ha,
    /// .hk and .hb file under them).
    #[arg(long, value_parser = crate::output::path_arg, value_name = "PATH", num_args = 1..)]
    sources: Vec<String>,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also write a report in FORMAT to FILE (`json`, `junit` or `human`), beside the one on
    /// standard output: `--report junit=hilbert-verify-junit.xml`. Repeatable; each file is
    /// written whole, and a refused certificate still writes the reports.
    #[arg(long = "report", value_name = "FORMAT=FILE", value_parser = crate::output::report_arg::<Format>)]
    reports: Vec<crate::output::ReportTo<Format>>,
    /// Write no report on standard output: the exit code (and any --report file) says it all;
    /// errors still go to standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Print each decoded certificate (its sources, IR, states and witnesses) instead of the
    /// report: a listing to read, or JSON with `--format json`; the exit code is still the
    /// kernel's verdict.
    #[arg(long)]
    dump: bool,
    /// With `--sources`: a value of an agent parameter to lower the sources with, `NAME=VALUE`
    /// or `AGENT.NAME=VALUE` (as `build --param`); repeatable. The certificates must have been
    /// built under exactly these values: a parameter not given has no value.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = crate::build::parse_param)]
    params: Vec<hilbert_frontend::ParamSpec>,
    /// The most states a certificate may declare (its scene's and its explorations' from
    /// outside together): the kernel explores them all again, so this bounds its work. A
    /// certificate that declares more is not checked and not admitted (a bound, reported as
    /// one); `hilbert build --max-states` bounds the scene alike.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    max_states: u64,
}

/// One agent parameter and its value (`None`: it has none), as every report prints it.
#[derive(Serialize)]
struct ParamJson<'a> {
    agent: &'a str,
    name: &'a str,
    value: Option<ValueJson<'a>>,
}

/// A parameter's value in JSON: a number, a boolean or a string.
#[derive(Serialize)]
#[serde(untagged)]
enum ValueJson<'a> {
    Int(i64),
    Bool(bool),
    Str(&'a str),
}

fn value_json(v: &hilbert_certificates::ir::Literal) -> ValueJson<'_> {
    use hilbert_certificates::ir::Literal;
    match v {
        Literal::Int(n) => ValueJson::Int(*n),
        Literal::Bool(b) => ValueJson::Bool(*b),
        Literal::Str(s) => ValueJson::Str(s),
    }
}

/// Every parameter of every agent of `ir`, with the value it was lowered with.
fn params_of(ir: &Ir) -> Vec<ParamJson<'_>> {
    let mut out = Vec::new();
    for a in &ir.agents {
        for (i, (name, _)) in a.params.iter().enumerate() {
            let value = a.args.get(i).and_then(Option::as_ref).map(value_json);
            out.push(ParamJson {
                agent: &a.name,
                name,
                value,
            });
        }
    }
    out
}

/// Parameters as the human and JUnit reports write them: `Counter.target=2`, or
/// `Counter.target with no value`.
fn param_text(p: &ParamJson) -> String {
    match value_text(p) {
        Some(v) => format!("{}.{}={v}", p.agent, p.name),
        None => format!("{}.{} with no value", p.agent, p.name),
    }
}

/// A parameter's value as `--param` writes it (a string quoted), if it has one.
fn value_text(p: &ParamJson) -> Option<String> {
    Some(match p.value.as_ref()? {
        ValueJson::Int(n) => n.to_string(),
        ValueJson::Bool(b) => b.to_string(),
        ValueJson::Str(s) => format!("{s:?}"),
    })
}

/// One line of parameters: each as [`param_text`] writes it, or `none declared`.
fn params_line(params: &[ParamJson]) -> String {
    if params.is_empty() {
        return "none declared".to_string();
    }
    params.iter().map(param_text).collect::<Vec<_>>().join(", ")
}

#[derive(Serialize)]
struct ObligationJson<'a> {
    name: &'a str,
    verdict: &'static str,
    rule: Option<&'static str>,
    reason: Option<&'a str>,
    state: Option<&'a str>,
}

#[derive(Serialize)]
struct CertificateJson<'a> {
    path: &'a str,
    network: Option<&'a str>,
    admitted: bool,
    invalid: Option<&'a str>,
    obligations: Vec<ObligationJson<'a>>,
    /// The kernel's work on it, and the most it would do for it (its bytes and declared states).
    work: u64,
    work_limit: u64,
    /// The agent parameter values its IR was lowered with (empty when it does not decode).
    params: Vec<ParamJson<'a>>,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    schema_version: u32,
    admitted: bool,
    /// With `--sources`: every agent parameter the sources declare, with the value they were
    /// lowered with (`--param`), or `null` for none.
    params: Option<&'a [ParamJson<'a>]>,
    certificates: Vec<CertificateJson<'a>>,
    /// With `--sources`: whether the admitted certificates cover every network of the
    /// sources' IR, and what is missing or does not belong.
    coverage: Option<CoverageJson<'a>>,
}

#[derive(Serialize)]
struct CoverageJson<'a> {
    networks: usize,
    admitted: bool,
    problems: &'a [String],
}

/// With `--sources`: the networks of the sources' IR, and what keeps the certificates from
/// covering them (empty when every network has exactly one admitted certificate).
struct Coverage {
    networks: usize,
    problems: Vec<String>,
}

fn certificate_json<'a>(path: &'a str, r: &'a Report, ir: Option<&'a Ir>) -> CertificateJson<'a> {
    CertificateJson {
        work: r.work,
        work_limit: r.work_limit,
        params: ir.map(params_of).unwrap_or_default(),
        path,
        network: r.network.as_deref(),
        admitted: r.admitted.is_some(),
        invalid: r.invalid.as_deref(),
        obligations: r
            .obligations
            .iter()
            .map(|(name, v)| match v {
                Verdict::Proved => ObligationJson {
                    name,
                    verdict: "proved",
                    rule: None,
                    reason: None,
                    state: None,
                },
                Verdict::Refused(f) => ObligationJson {
                    name,
                    verdict: "refused",
                    rule: Some(f.rule),
                    reason: Some(&f.reason),
                    state: f.state.as_deref(),
                },
            })
            .collect(),
    }
}

fn human(
    reports: &[(String, Report)],
    heads: &[Option<Ir>],
    given: Option<&[ParamJson]>,
    coverage: Option<&Coverage>,
) -> String {
    let mut text = String::new();
    if let Some(given) = given {
        text.push_str(&format!(
            "sources lowered with the parameters: {}\n\n",
            params_line(given)
        ));
    }
    for ((path, r), head) in reports.iter().zip(heads) {
        let network = r.network.as_deref().unwrap_or("?");
        match &r.invalid {
            Some(why) => text.push_str(&format!("{path}: invalid certificate: {why}\n")),
            None => text.push_str(&format!("{path}: network {network}\n")),
        }
        let params = head.as_ref().map(params_of).unwrap_or_default();
        if !params.is_empty() {
            text.push_str(&format!("  parameters: {}\n", params_line(&params)));
        }
        let width = r
            .obligations
            .iter()
            .map(|(n, _)| n.chars().count())
            .max()
            .unwrap_or(0);
        for (name, v) in &r.obligations {
            match v {
                Verdict::Proved => text.push_str(&format!("  {name:width$}  proved\n")),
                Verdict::Refused(f) => {
                    text.push_str(&format!(
                        "  {name:width$}  refused ({}): {}\n",
                        f.rule, f.reason
                    ));
                    if let Some(state) = &f.state {
                        text.push_str(&format!("  {:width$}    at {state}\n", ""));
                    }
                }
            }
        }
        text.push_str(if r.admitted.is_some() {
            "  admitted\n"
        } else {
            "  not admitted\n"
        });
    }
    let refused = reports.iter().filter(|(_, r)| r.admitted.is_none()).count();
    if let Some(c) = coverage {
        text.push_str(&format!(
            "\nsources: {} network{}",
            c.networks,
            if c.networks == 1 { "" } else { "s" }
        ));
        if c.problems.is_empty() {
            text.push_str(", each with one admitted certificate\n");
        } else {
            text.push_str(", not covered:\n");
            for p in &c.problems {
                text.push_str(&format!("  {p}\n"));
            }
        }
    }
    if coverage.is_some_and(|c| !c.problems.is_empty()) {
        text.push_str(&format!(
            "\nnot admitted: the certificates do not cover the sources ({refused} of {} refused)\n",
            reports.len()
        ));
    } else if refused == 0 {
        text.push_str(&format!(
            "\nadmitted: the kernel admitted {} certificate{}\n",
            reports.len(),
            if reports.len() == 1 { "" } else { "s" }
        ));
    } else {
        text.push_str(&format!(
            "\nnot admitted: the kernel refused {refused} of {} certificate{}\n",
            reports.len(),
            if reports.len() == 1 { "" } else { "s" }
        ));
    }
    text
}

/// A decoded certificate as people read it: the body's fields in order, digests in hex.
#[derive(Serialize)]
struct DumpJson<'a> {
    path: &'a str,
    tool: &'a str,
    sources: Vec<SourceJson<'a>>,
    ir_sha256: String,
    network: u32,
    ir: &'a hilbert_certificates::ir::Ir,
    scene: &'a cert::Counts,
    witnesses: &'a [cert::Witness],
}

#[derive(Serialize)]
struct SourceJson<'a> {
    path: &'a str,
    sha256: String,
}

/// One certificate of a dump: decoded, or why not.
#[derive(Serialize)]
#[serde(untagged)]
enum DumpEntry<'a> {
    Decoded(DumpJson<'a>),
    Invalid { path: &'a str, invalid: String },
}

fn dump(certs: &[(String, Vec<u8>)]) -> String {
    let decoded: Vec<(&str, Result<cert::Body, cert::DecodeError>)> = certs
        .iter()
        .map(|(path, bytes)| (path.as_str(), cert::decode(bytes)))
        .collect();
    let entries: Vec<DumpEntry> = decoded
        .iter()
        .map(|(path, body)| match body {
            Ok(body) => DumpEntry::Decoded(DumpJson {
                path,
                tool: &body.tool,
                sources: body
                    .sources
                    .iter()
                    .map(|s| SourceJson {
                        path: &s.path,
                        sha256: cert::hex(&s.sha256),
                    })
                    .collect(),
                ir_sha256: cert::hex(&body.ir_sha256),
                network: body.network,
                ir: &body.ir,
                scene: &body.scene,
                witnesses: &body.witnesses,
            }),
            Err(e) => DumpEntry::Invalid {
                path,
                invalid: e.to_string(),
            },
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&entries).unwrap_or_default();
    text.push('\n');
    text
}

/// The name (`Agent.Binding`) of network `n` of a certificate's IR (0 in a slice).
fn network_name(ir: &Ir, n: u32) -> Option<String> {
    let net = ir.networks.get(n as usize)?;
    let agent = ir.agents.get(net.agent.0 as usize)?;
    Some(format!("{}.{}", agent.name, net.binding))
}

type Lowered = (Ir, hilbert_frontend::Provenance);

/// With `--sources`: the sources loaded as `hilbert build` loads them, their (path, digest)
/// pairs, the parameter values the auditor stated (`--param`, resolved and type-checked against
/// the declarations as `build` does), and the IR the sources lower to with exactly those values
/// (or how many errors keep them from lowering). A value that names no declared parameter, or
/// is not of its type, is a usage error.
#[allow(clippy::type_complexity)]
fn lower_sources(
    paths: &[String],
    params: &[hilbert_frontend::ParamSpec],
) -> Result<
    (
        Vec<SourceDigest>,
        hilbert_frontend::AgentArgs,
        Result<Lowered, usize>,
    ),
    u8,
> {
    let (loaded, inputs) = crate::check::load_project(paths)?;
    let sources = inputs
        .iter()
        .map(|i| crate::build::source_digest(&i.path, &i.sha256))
        .collect();
    match hilbert_frontend::lower_project_params(&loaded, params) {
        Ok((args, lowered)) => Ok((sources, args, lowered.map_err(|errors| errors.len()))),
        Err(e) => Err(output::fail(
            output::Kind::Usage,
            &e,
            "state each value the certificates were built under, as `hilbert build` was given it: --param target=2 or --param Counter.target=2, with a value of the parameter's type",
        )),
    }
}

/// Why a certificate cannot be about sources lowered with `given`: the parameter values its IR
/// carries for its agents differ from those (the kernel would refuse its IR; this says why).
fn other_values(ir: &Ir, given: &hilbert_frontend::AgentArgs) -> Option<String> {
    let have = params_of(ir);
    let differs = ir.agents.iter().any(|a| {
        a.params.iter().enumerate().any(|(i, (name, _))| {
            a.args.get(i).and_then(Option::as_ref) != given.get(&a.name).and_then(|v| v.get(name))
        })
    });
    differs.then(|| {
        let want: Vec<String> = ir
            .agents
            .iter()
            .flat_map(|a| {
                a.params.iter().map(move |(name, _)| {
                    param_text(&ParamJson {
                        agent: &a.name,
                        name,
                        value: given.get(&a.name).and_then(|v| v.get(name)).map(value_json),
                    })
                })
            })
            .collect();
        format!(
            "the certificate was built with the agent parameters {}, but --param gives {}: a certificate is admitted only under exactly the values it was built with",
            params_line(&have),
            want.join(", ")
        )
    })
}

/// How a certificate's sources differ from the sources of its network that `--sources` gives,
/// said so that an auditor knows what to look at: a source the certificate names that is not
/// given (missing), one given that the certificate does not name (extra), and one given with
/// another digest (edited since the build, with both digests). `None` when they are the same,
/// pair for pair; the kernel then checks them again, as it checks everything. Paths are
/// compared as the kernel compares them ([`hilbert_kernel::check::normal_path`]).
fn source_mismatch(certificate: &[SourceDigest], given: &[SourceDigest]) -> Option<String> {
    let index = |s: &[SourceDigest]| -> std::collections::BTreeMap<String, [u8; 32]> {
        s.iter()
            .map(|d| (hilbert_kernel::check::normal_path(&d.path), d.sha256))
            .collect()
    };
    let (have, want) = (index(certificate), index(given));
    let mut problems = Vec::new();
    for (path, digest) in &have {
        match want.get(path) {
            None => problems.push(format!(
                "missing: the certificate was built from `{path}` (SHA-256 {}), which the given sources do not have",
                cert::hex(digest)
            )),
            Some(now) if now != digest => problems.push(format!(
                "edited: `{path}` is not the file the certificate was built from (SHA-256 {} at the build, {} now)",
                cert::hex(digest),
                cert::hex(now)
            )),
            Some(_) => {}
        }
    }
    for (path, digest) in &want {
        if !have.contains_key(path) {
            problems.push(format!(
                "extra: the given source `{path}` (SHA-256 {}) is one of the network's files, which the certificate was not built from",
                cert::hex(digest)
            ));
        }
    }
    (!problems.is_empty()).then(|| {
        format!(
            "the certificate's sources are not the given ones: {}",
            problems.join("; ")
        )
    })
}

/// Runs the command and returns its exit code.
pub fn run(args: &Args) -> u8 {
    if args.dump && args.format == Format::Junit {
        return output::fail(
            output::Kind::Usage,
            "--dump prints the certificates, as a listing or as JSON, not as a JUnit report",
            "use --dump alone, or --dump --format json",
        );
    }
    if args.dump && !args.reports.is_empty() {
        return output::fail(
            output::Kind::Usage,
            "--dump prints the certificates instead of a report, so it writes no --report",
            "run hilbert verify once with --report, and once with --dump",
        );
    }
    if let Err(code) = output::check_reports(&args.reports) {
        return code;
    }
    let mut certs = Vec::new();
    for path in &args.certs {
        match input::read_regular(Path::new(path), path, input::CERTIFICATE_CAP) {
            Ok(bytes) => certs.push((path.clone(), bytes)),
            Err(e) => {
                return output::fail_at(
                    output::Kind::Input,
                    e.path(),
                    &e.to_string(),
                    "name certificate files, such as target/hilbert/*.cert (a certificate is a regular file of at most 1 GiB)",
                );
            }
        }
    }
    if args.sources.is_empty() && !args.params.is_empty() {
        return output::fail(
            output::Kind::Usage,
            "--param gives the values the sources are lowered with, and needs --sources",
            "name the sources too: hilbert verify CERT… --sources PATH… --param NAME=VALUE",
        );
    }
    let lowered = if args.sources.is_empty() {
        None
    } else {
        match lower_sources(&args.sources, &args.params) {
            Ok(x) => Some(x),
            Err(code) => return code,
        }
    };
    // Each certificate's IR, when its head decodes: its network and parameter values.
    let heads: Vec<Option<Ir>> = certs
        .iter()
        .map(|(_, bytes)| cert::decode_head(bytes).map(|h| h.ir))
        .collect();
    // What each network's certificate must be: its slice of the lowered IR and the sources the
    // slice comes from, by the network's name.
    let mut wanted: std::collections::HashMap<String, (Vec<SourceDigest>, Vec<u8>)> =
        std::collections::HashMap::new();
    if let Some((sources, _, Ok((ir, provenance)))) = &lowered {
        let index = hilbert_frontend::Provenance::index(sources);
        for n in 0..ir.networks.len() {
            if let Some(slice) = ir.slice(n) {
                let net = &slice.networks[0];
                let name = format!(
                    "{}.{}",
                    slice.agents[net.agent.0 as usize].name, net.binding
                );
                let bytes = cert::ir_bytes(&slice);
                wanted.insert(
                    name,
                    (provenance.sources_of(&slice, sources, &index), bytes),
                );
            }
        }
    }
    let begun = std::time::Instant::now();
    let mut seconds = Vec::with_capacity(certs.len());
    let max = args.max_states;
    let reports: Vec<(String, Report)> = certs
        .iter()
        .zip(&heads)
        .map(|((path, bytes), head)| {
            let clock = std::time::Instant::now();
            let refused = |why: String| Report {
                network: None,
                obligations: Vec::new(),
                invalid: Some(why),
                admitted: None,
                work: 0,
                work_limit: 0,
                scene: None,
            };
            let report = match &lowered {
                None => check(bytes, None, max),
                // No certificate can be about sources that do not lower.
                Some((_, _, Err(errors))) => refused(format!(
                    "the given sources do not lower to an IR ({errors} error{}; `hilbert check` shows them)",
                    if *errors == 1 { "" } else { "s" }
                )),
                Some((_, given, _)) => match cert::decode_head(bytes).and_then(|b| network_name(&b.ir, b.network)) {
                    // Undecodable, or no network: the kernel says why.
                    None => check(bytes, None, max),
                    Some(name) => match wanted.get(&name) {
                        Some(_) if let Some(why) = head.as_ref().and_then(|ir| other_values(ir, given)) => {
                            Report { network: Some(name), ..refused(why) }
                        }
                        Some((sources, _)) if let Some(why) = head.as_ref().and_then(|_| cert::decode_head(bytes)).and_then(|h| source_mismatch(&h.sources, sources)) => {
                            Report { network: Some(name), ..refused(why) }
                        }
                        Some((sources, ir)) => check(bytes, Some(&Expected { sources, ir }), max),
                        None => refused(format!(
                            "the certificate is about the network `{name}`, which the given sources do not define"
                        )),
                    },
                },
            };
            seconds.push(clock.elapsed().as_secs_f64());
            (path.clone(), report)
        })
        .collect();
    let coverage = lowered
        .as_ref()
        .and_then(|(_, _, lowered)| lowered.as_ref().ok())
        .map(|(ir, _)| {
            let tokens: Vec<_> = reports
                .iter()
                .filter_map(|(_, r)| r.admitted.as_ref())
                .collect();
            let mut problems = admit_build(ir, &tokens).err().unwrap_or_default();
            // Name the certificates that do not belong: a second one for a network.
            let mut seen = std::collections::BTreeMap::new();
            for (path, r) in &reports {
                if let Some(a) = &r.admitted
                    && let Some(first) = seen.insert(*a.ir(), path)
                {
                    problems.push(format!(
                        "`{path}` is a second certificate for the network of `{first}`"
                    ));
                }
            }
            Coverage {
                networks: ir.networks.len(),
                problems,
            }
        });
    let admitted = reports.iter().all(|(_, r)| r.admitted.is_some())
        && coverage.as_ref().is_none_or(|c| c.problems.is_empty());
    // With --sources, the values the sources were lowered with: every parameter they declare.
    let given: Option<Vec<ParamJson>> = match &lowered {
        None => None,
        Some((_, _, Ok((ir, _)))) => Some(params_of(ir)),
        // The sources do not lower: the values stated, as resolved.
        Some((_, args, Err(_))) => Some(
            args.iter()
                .flat_map(|(agent, values)| {
                    values.iter().map(|(name, v)| ParamJson {
                        agent,
                        name,
                        value: Some(value_json(v)),
                    })
                })
                .collect(),
        ),
    };
    let text = if args.dump {
        match args.format {
            Format::Json => dump(&certs),
            Format::Human | Format::Junit => listing(&certs),
        }
    } else {
        let render = |format: Format| match format {
            Format::Human => human(&reports, &heads, given.as_deref(), coverage.as_ref()),
            Format::Json => {
                let report = ReportJson {
                    schema_version: crate::json::SCHEMA_VERSION,
                    admitted,
                    params: given.as_deref(),
                    certificates: reports
                        .iter()
                        .zip(&heads)
                        .map(|((p, r), head)| certificate_json(p, r, head.as_ref()))
                        .collect(),
                    coverage: coverage.as_ref().map(|c| CoverageJson {
                        networks: c.networks,
                        admitted: c.problems.is_empty(),
                        problems: &c.problems,
                    }),
                };
                let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
                text.push('\n');
                text
            }
            Format::Junit => crate::junit::report(
                "hilbert verify",
                begun.elapsed().as_secs_f64(),
                &junit_suites(
                    &reports,
                    &heads,
                    &seconds,
                    given.as_deref(),
                    coverage.as_ref(),
                ),
            ),
        };
        if let Err(code) = output::write_reports(&args.reports, &render) {
            return code;
        }
        render(args.format)
    };
    if !args.quiet {
        output::stdout(&text);
    }
    u8::from(!admitted)
}

/// The JUnit report's suites: one per certificate (named by its network, `Agent.Binding`, or by
/// its path when it has none), with a case per obligation the kernel derived (a refused one is a
/// `<failure>` with the kernel's rule, reason and state) or, for a certificate that is invalid,
/// one case `certificate` that fails with why; the kernel's time on the certificate is shared
/// among its cases. With `--sources`, a suite `sources` with one case `coverage`, failed with
/// every network not covered.
fn junit_suites(
    reports: &[(String, Report)],
    heads: &[Option<Ir>],
    seconds: &[f64],
    given: Option<&[ParamJson]>,
    coverage: Option<&Coverage>,
) -> Vec<crate::junit::Suite> {
    use crate::junit::{Case, Outcome, Suite, share};
    // A property per parameter: `param Counter.target`, its value or `no value`.
    let properties = |params: &[ParamJson]| -> Vec<(String, String)> {
        params
            .iter()
            .map(|p| {
                let value = value_text(p).unwrap_or_else(|| "no value".to_string());
                (format!("param {}.{}", p.agent, p.name), value)
            })
            .collect()
    };
    let mut suites: Vec<Suite> = reports
        .iter()
        .zip(seconds)
        .zip(heads)
        .map(|(((path, r), &seconds), head)| {
            let network = r.network.clone().unwrap_or_else(|| path.clone());
            let mut cases: Vec<Case> = r
                .obligations
                .iter()
                .map(|(name, v)| match v {
                    Verdict::Proved => (name.to_string(), Outcome::Passed, String::new()),
                    Verdict::Refused(f) => {
                        let mut text = format!("refused ({}): {}\n", f.rule, f.reason);
                        if let Some(state) = &f.state {
                            text.push_str(&format!("at {state}\n"));
                        }
                        let message = format!("{}: {}", f.rule, f.reason);
                        let kind = f.rule.to_string();
                        (name.to_string(), Outcome::Failure { kind, message }, text)
                    }
                })
                .map(|(name, outcome, text)| Case {
                    name,
                    classname: network.clone(),
                    location: None,
                    time: 0.0,
                    outcome,
                    text,
                })
                .collect();
            if let Some(why) = &r.invalid {
                cases.push(Case {
                    name: "certificate".to_string(),
                    classname: network.clone(),
                    location: None,
                    time: 0.0,
                    outcome: Outcome::Failure {
                        kind: "invalid".to_string(),
                        message: why.clone(),
                    },
                    text: format!("{path}: invalid certificate: {why}\n"),
                });
            } else if r.admitted.is_none() && cases.iter().all(|c| c.outcome == Outcome::Passed) {
                // Not admitted, though no obligation says why: the report must not pass.
                cases.push(Case {
                    name: "certificate".to_string(),
                    classname: network.clone(),
                    location: None,
                    time: 0.0,
                    outcome: Outcome::Failure {
                        kind: "refused".to_string(),
                        message: "the kernel did not admit the certificate".to_string(),
                    },
                    text: String::new(),
                });
            }
            let each = share(seconds, cases.len());
            for c in &mut cases {
                c.time = each;
            }
            let mut props = vec![("certificate".to_string(), path.clone())];
            props.extend(properties(
                &head.as_ref().map(params_of).unwrap_or_default(),
            ));
            Suite {
                name: network,
                time: seconds,
                properties: props,
                cases,
            }
        })
        .collect();
    if let Some(c) = coverage {
        let outcome = if c.problems.is_empty() {
            Outcome::Passed
        } else {
            Outcome::Failure {
                kind: "coverage".to_string(),
                message: format!(
                    "the certificates do not cover the sources' {} network{}: {}",
                    c.networks,
                    if c.networks == 1 { "" } else { "s" },
                    c.problems.join("; ")
                ),
            }
        };
        let mut props = vec![("networks".to_string(), c.networks.to_string())];
        props.extend(properties(given.unwrap_or_default()));
        suites.push(Suite {
            name: "sources".to_string(),
            time: 0.0,
            properties: props,
            cases: vec![Case {
                name: "coverage".to_string(),
                classname: "sources".to_string(),
                location: None,
                time: 0.0,
                outcome,
                text: c.problems.iter().map(|p| format!("{p}\n")).collect(),
            }],
        });
    }
    suites
}

/// Each certificate as a listing to read, its IR written as Hilbert source with its round trip
/// checked (`hilbert_frontend::listing::roundtrip::checked_listing`); every line that is not
/// source is a comment, an undecodable certificate's too.
fn listing(certs: &[(String, Vec<u8>)]) -> String {
    use hilbert_frontend::listing;
    let mut text = String::new();
    for (path, bytes) in certs {
        match cert::decode(bytes) {
            Ok(body) => text.push_str(&listing::roundtrip::checked_listing(path, &body)),
            Err(e) => text.push_str(&format!(
                "{}certificate{}\n-- {}: invalid certificate: {e}\n",
                listing::SECTION_MARK,
                listing::MARK_END,
                path.escape_debug()
            )),
        }
        text.push('\n');
    }
    text
}
