//! `hilbert verify CERT… [--sources PATH…]`: the kernel alone re-checks certificates, for
//! auditors. No frontend runs: the bytes go to `hilbert_kernel::check::check`, and its report
//! is printed. With `--sources`, the certificate's source digests must be exactly those of the
//! given files. `--dump` prints the decoded certificate as JSON, for people to read the IR the
//! kernel trusted next to the sources.
//!
//! Exit codes: 0 every certificate admitted, 1 one refused or invalid, 2 a file that cannot be
//! read (or a usage error).

use crate::output;
use hilbert_certificates::cert;
use hilbert_kernel::check::{Report, Verdict, check};
use serde::Serialize;
use std::path::Path;

/// How `hilbert verify` writes its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: per certificate its network, per obligation `proved` or `refused`.
    Human,
    /// One JSON object.
    Json,
}

/// The options of `hilbert verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Certificate files (as `hilbert build` writes them under `--out`).
    #[arg(value_name = "CERT", required = true)]
    certs: Vec<String>,
    /// The sources the certificates must have been made from: files, or directories (every .ha,
    /// .hk and .hb file under them).
    #[arg(long, value_name = "PATH", num_args = 1..)]
    sources: Vec<String>,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Print each decoded certificate as JSON (its sources, IR, states and witnesses) instead
    /// of the report; the exit code is still the kernel's verdict.
    #[arg(long)]
    dump: bool,
}

/// The SHA-256 of every source under `paths`: a file as given, a directory searched (skipping
/// hidden directories and `target`) for .ha, .hk and .hb files. The same file twice counts once.
fn source_digests(paths: &[String]) -> Result<Vec<[u8; 32]>, String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
        let shown = dir.display();
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read `{shown}`: {e}"))?
            .collect::<Result<_, _>>()
            .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    walk(&path, out)?;
                }
            } else if ["ha", "hk", "hb"]
                .iter()
                .any(|x| path.extension().is_some_and(|e| e == *x))
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    for p in paths {
        let path = Path::new(p);
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{p}`: {e}"))?;
        if meta.is_dir() {
            let before = files.len();
            walk(path, &mut files)?;
            if files.len() == before {
                return Err(format!("`{p}` holds no .ha, .hk or .hb file"));
            }
        } else {
            files.push(path.to_path_buf());
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut digests = Vec::new();
    for f in files {
        let canonical = std::fs::canonicalize(&f).unwrap_or_else(|_| f.clone());
        if !seen.insert(canonical) {
            continue;
        }
        let bytes = std::fs::read(&f).map_err(|e| format!("cannot read `{}`: {e}", f.display()))?;
        digests.push(cert::sha256(&bytes));
    }
    Ok(digests)
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
}

#[derive(Serialize)]
struct ReportJson<'a> {
    schema_version: u32,
    admitted: bool,
    certificates: Vec<CertificateJson<'a>>,
}

fn certificate_json<'a>(path: &'a str, r: &'a Report) -> CertificateJson<'a> {
    CertificateJson {
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

fn human(reports: &[(String, Report)]) -> String {
    let mut text = String::new();
    for (path, r) in reports {
        let network = r.network.as_deref().unwrap_or("?");
        match &r.invalid {
            Some(why) => text.push_str(&format!("{path}: invalid certificate: {why}\n")),
            None => text.push_str(&format!("{path}: network {network}\n")),
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
    if refused == 0 {
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
    states: &'a cert::StateTable,
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
                states: &body.states,
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

/// Runs the command and returns its exit code.
pub fn run(args: &Args) -> u8 {
    let mut certs = Vec::new();
    for path in &args.certs {
        match std::fs::read(path) {
            Ok(bytes) => certs.push((path.clone(), bytes)),
            Err(e) => {
                return output::fail(
                    &format!("cannot read `{path}`: {e}"),
                    "name certificate files, such as target/hilbert/*.cert",
                );
            }
        }
    }
    let digests = if args.sources.is_empty() {
        None
    } else {
        match source_digests(&args.sources) {
            Ok(d) => Some(d),
            Err(e) => {
                return output::fail(
                    &e,
                    "name the source files or project directory the certificates were built from",
                );
            }
        }
    };
    let reports: Vec<(String, Report)> = certs
        .iter()
        .map(|(path, bytes)| (path.clone(), check(bytes, digests.as_deref())))
        .collect();
    let admitted = reports.iter().all(|(_, r)| r.admitted.is_some());
    let text = if args.dump {
        dump(&certs)
    } else {
        match args.format {
            Format::Human => human(&reports),
            Format::Json => {
                let report = ReportJson {
                    schema_version: crate::json::SCHEMA_VERSION,
                    admitted,
                    certificates: reports
                        .iter()
                        .map(|(p, r)| certificate_json(p, r))
                        .collect(),
                };
                let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
                text.push('\n');
                text
            }
        }
    };
    output::stdout(&text);
    u8::from(!admitted)
}
