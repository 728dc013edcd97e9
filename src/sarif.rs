//! `--format sarif`: a SARIF 2.1.0 log with one run. Each reported code is a rule, described from
//! the explanation registry (its markdown is the rule's help); each diagnostic is a result, with
//! its secondary labels as related locations. A build's log also has a result for every theorem
//! the kernel did not admit, of every network (rules `theorem-refuted`, `theorem-unproved`,
//! `theorem-refused`), located at the network's binding. Columns count Unicode code points and
//! end columns are exclusive, as in SARIF's own convention.

use crate::check::{Location, locate};
use hilbert_frontend::{Code, Diagnostic, Severity, SourceMap, Span, explain};
use serde_json::{Value, json};

/// The SARIF schema this log follows.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where people can read about the tool.
const INFORMATION_URI: &str = env!("CARGO_PKG_REPOSITORY");

/// What became of a theorem the kernel did not admit: the three rules of a build's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TheoremRule {
    /// A counterexample shows it false.
    Refuted,
    /// Not decided (a bound, host code, a parameter without a value).
    Unproved,
    /// The frontend proved it, but the kernel refused its witness.
    Refused,
}

impl TheoremRule {
    fn id(self) -> &'static str {
        match self {
            TheoremRule::Refuted => "theorem-refuted",
            TheoremRule::Unproved => "theorem-unproved",
            TheoremRule::Refused => "theorem-refused",
        }
    }

    fn rule(self) -> Value {
        let (title, full, help) = match self {
            TheoremRule::Refuted => (
                "a theorem is refuted",
                "The build found a counterexample: a path from the plan's scene that shows the theorem false (a deadlock, a desire that is not reached, an abort handler that does not finish, a tell that is not feasible, or an assertion of the agent that fails). The build is not admitted.",
                "`hilbert build --format human` (or `json`) shows the counterexample step by step; change the plan or the agent so that the theorem holds.",
            ),
            TheoremRule::Unproved => (
                "a theorem is unproved",
                "The build could not decide the theorem: the exploration passed a bound (--max-states, --max-memory), the binding runs host code, or it reads an agent parameter with no value. The build is not admitted.",
                "The result's message says why; raise the bound, pass the parameter with --param, or bind a plan the compiler can explore.",
            ),
            TheoremRule::Refused => (
                "the kernel refused a theorem the frontend proved",
                "The frontend proved the theorem, but the kernel, re-checking the certificate with its own semantics, refused its witness. Only the kernel admits a build, so it is not admitted.",
                "The result's message gives the kernel's rule and reason; `hilbert verify CERT` re-checks the certificate on its own.",
            ),
        };
        json!({
            "id": self.id(),
            "shortDescription": {"text": title},
            "fullDescription": {"text": full},
            "help": {
                "text": format!("{full}\n\n{help}"),
                "markdown": format!("# {}: {title}\n\n{full}\n\n{help}\n", self.id()),
            },
            "defaultConfiguration": {"level": "error"},
        })
    }
}

/// A theorem the kernel did not admit, as a result of a build's log.
pub struct TheoremResult {
    /// Which rule.
    pub rule: TheoremRule,
    /// What the result says (the network, the theorem and why).
    pub message: String,
    /// Where the network's binding is written (`plan Go ↦ P1.Run`).
    pub span: Option<Span>,
    /// The result's property bag: the network, the theorem and its status.
    pub properties: Value,
    /// For a refuted theorem, its counterexample as lines: each step from the scene, then what
    /// is wrong at the end, each with where it happens (a step at its send or receive in the
    /// `.hk` plan, or its plan; the end, and a step with no place, at the network's binding).
    /// Written as the result's `codeFlows` (one thread flow, a location per line, in order).
    pub steps: Vec<(String, Option<Span>)>,
}

/// The id of the base of the log's relative URIs (`originalUriBaseIds`).
const ROOT_ID: &str = "SRCROOT";

/// The directory the log's paths are relative to: the root of the git work tree the current
/// directory is in (where code scanning and a pull request's view resolve paths), else the
/// current directory. `None` when the current directory cannot be read.
fn source_root() -> Option<std::path::PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd)
        .to_path_buf();
    Some(root)
}

/// A fingerprint of a result that survives edits elsewhere in its file: the SHA-256 of what
/// identifies it, in hex (`partialFingerprints`, which code scanning uses to follow a result
/// from run to run instead of its line).
fn fingerprint(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for p in parts {
        hash.update((p.len() as u64).to_le_bytes());
        hash.update(p.as_bytes());
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The log as pretty-printed JSON, ending with a newline.
pub fn report(sources: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    build_report(sources, diagnostics, &[])
}

/// A build's log: the diagnostics, then one result per theorem the kernel did not admit.
pub fn build_report(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    theorems: &[TheoremResult],
) -> String {
    let mut codes: Vec<(Code, Severity)> =
        diagnostics.iter().map(|d| (d.code, d.severity)).collect();
    codes.sort();
    codes.dedup_by_key(|(c, _)| *c);
    let mut rules: Vec<Value> = codes
        .iter()
        .map(|&(code, severity)| rule(code, severity))
        .collect();
    let root = source_root();
    let root = root.as_deref();
    let mut results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let index = codes.iter().position(|(c, _)| *c == d.code).unwrap_or(0);
            result(sources, d, index, root)
        })
        .collect();
    let mut theorem_rules: Vec<TheoremRule> = theorems.iter().map(|t| t.rule).collect();
    theorem_rules.sort();
    theorem_rules.dedup();
    rules.extend(theorem_rules.iter().map(|r| r.rule()));
    for t in theorems {
        let index = codes.len() + theorem_rules.iter().position(|r| *r == t.rule).unwrap_or(0);
        let network = t.properties["network"].as_str().unwrap_or_default();
        let theorem = t.properties["theorem"].as_str().unwrap_or_default();
        let statement = t.properties["statement"].as_str().unwrap_or_default();
        let mut result = json!({
            "ruleId": t.rule.id(),
            "ruleIndex": index,
            "level": "error",
            "message": {"text": t.message},
            // A theorem is known by its network, its name and its statement (names repeat
            // within a network only with another statement): not by the line of its binding.
            "partialFingerprints": {
                "hilbert/theorem/v1": fingerprint(&[t.rule.id(), network, theorem, statement]),
            },
            "properties": t.properties,
        });
        if let Some(span) = t.span {
            result["locations"] =
                json!([{"physicalLocation": physical(&locate(sources, span), root)}]);
        }
        if !t.steps.is_empty() {
            let locations: Vec<Value> = t
                .steps
                .iter()
                .enumerate()
                .map(|(k, (line, at))| {
                    let mut location = json!({"message": {"text": line}});
                    if let Some(span) = at.or(t.span) {
                        location["physicalLocation"] = physical(&locate(sources, span), root);
                    }
                    json!({"location": location, "executionOrder": k + 1})
                })
                .collect();
            result["codeFlows"] = json!([{
                "message": {"text": "the counterexample, from the scene"},
                "threadFlows": [{"locations": locations}],
            }]);
        }
        results.push(result);
    }
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hilbert",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {
                ROOT_ID: {
                    "uri": root.map_or_else(|| "file:///".to_string(), |r| {
                        let uri = artifact_uri(&r.to_string_lossy(), None);
                        format!("{}/", uri.trim_end_matches('/'))
                    }),
                    "description": {"text": "The root of the git work tree the command ran in (or its directory): the paths of the results are relative to it."},
                },
            },
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// `file:line` of a span, as a step's text names a place.
pub fn locate_line(sources: &SourceMap, span: Span) -> String {
    let at = locate(sources, span);
    format!("{}:{}", at.file, at.line)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A rule from the explanation registry; a code without documentation gets a bare rule.
fn rule(code: Code, reported: Severity) -> Value {
    let id = code.to_string();
    match explain::lookup(&id) {
        Some(e) => json!({
            "id": id,
            "shortDescription": {"text": e.title},
            "fullDescription": {"text": first_paragraph(e.markdown)},
            "help": {"text": e.markdown, "markdown": e.markdown},
            "defaultConfiguration": {"level": level(e.severity)},
        }),
        None => json!({
            "id": id,
            "shortDescription": {"text": id},
            "fullDescription": {"text": format!("{id} is not documented yet")},
            "help": {"text": format!("`hilbert explain {id}` has no entry yet")},
            "defaultConfiguration": {"level": level(reported)},
        }),
    }
}

/// The first paragraph of prose after the title and the `Severity:` line, on one line.
fn first_paragraph(markdown: &str) -> String {
    let mut paragraph = Vec::new();
    for line in markdown.lines().skip(1) {
        let line = line.trim();
        if line.is_empty() || line.starts_with("Severity:") {
            if paragraph.is_empty() {
                continue;
            }
            break;
        }
        paragraph.push(line);
    }
    paragraph.join(" ")
}

fn result(
    sources: &SourceMap,
    d: &Diagnostic,
    rule_index: usize,
    root: Option<&std::path::Path>,
) -> Value {
    let related: Vec<Value> = d
        .secondary
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "id": i,
                "message": {"text": l.message},
                "physicalLocation": physical(&locate(sources, l.span), root),
            })
        })
        .collect();
    let at = locate(sources, d.span);
    // A diagnostic is known by its code, its file, its message and the text of its line (the
    // line's number changes with an edit above it; its text does not).
    let line_text = sources
        .files()
        .get(d.span.file.0 as usize)
        .and_then(|f| f.text.lines().nth(at.line.saturating_sub(1)))
        .unwrap_or_default()
        .trim();
    let mut result = json!({
        "ruleId": d.code.to_string(),
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": {"text": d.message},
        "locations": [{"physicalLocation": physical(&at, root)}],
        "partialFingerprints": {
            "hilbert/diagnostic/v1": fingerprint(&[&d.code.to_string(), &artifact_uri(&at.file, root), &d.message, line_text]),
        },
    });
    if !related.is_empty() {
        result["relatedLocations"] = Value::Array(related);
    }
    result
}

fn physical(at: &Location, root: Option<&std::path::Path>) -> Value {
    let uri = artifact_uri(&at.file, root);
    let artifact = if uri.starts_with("file:") {
        json!({"uri": uri})
    } else {
        json!({"uri": uri, "uriBaseId": ROOT_ID})
    };
    json!({
        "artifactLocation": artifact,
        "region": {
            "startLine": at.line,
            "startColumn": at.column,
            "endLine": at.end_line,
            "endColumn": at.end_column,
        },
    })
}

/// A path as a URI reference relative to `root` (the log's `SRCROOT`): a path under it (a
/// relative path is taken from the current directory, `.` and `..` components resolved as
/// written) is made relative to it, with `/` separators; any other path becomes a `file://` URI
/// (and so does every path when there is no root). Characters outside the URI's unreserved set
/// are percent-encoded.
pub fn artifact_uri(path: &str, root: Option<&std::path::Path>) -> String {
    let mut path = path.replace('\\', "/");
    let cwd = std::env::current_dir().ok();
    if !path.starts_with('/')
        && let Some(cwd) = &cwd
    {
        path = format!("{}/{path}", cwd.to_string_lossy().trim_end_matches('/'));
    }
    // Lexically: `a/./b` is `a/b`, `a/x/../b` is `a/b`.
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    path = format!("/{}", parts.join("/"));
    if let Some(root) = root {
        let root = root.to_string_lossy().replace('\\', "/");
        let prefix = format!("{}/", root.trim_end_matches('/'));
        if let Some(rest) = path.strip_prefix(&prefix) {
            path = rest.to_string();
        }
    }
    let encoded = percent_encode(&path);
    if path.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_to_the_root_with_forward_slashes_and_encoded() {
        let cwd = std::env::current_dir().unwrap();
        let root = Some(cwd.as_path());
        assert_eq!(
            artifact_uri("./examples/x/Line.hk", root),
            "examples/x/Line.hk"
        );
        assert_eq!(artifact_uri("a\\b c.hk", root), "a/b%20c.hk");
        assert_eq!(
            artifact_uri("/nowhere-else/é.hk", root),
            "file:///nowhere-else/%C3%A9.hk"
        );
        let inside = format!("{}/sub/A.ha", cwd.display());
        assert_eq!(artifact_uri(&inside, root), "sub/A.ha");
        // Relative to a root above the current directory: the path from the root.
        let above = cwd.parent().unwrap();
        let name = cwd.file_name().unwrap().to_string_lossy();
        assert_eq!(
            artifact_uri("x/../A.ha", Some(above)),
            format!("{}/A.ha", percent_encode(&name))
        );
    }

    #[test]
    fn the_full_description_is_the_first_paragraph() {
        let md = "# HK0001: t\n\nSeverity: error\n\nFirst line\nsecond line.\n\nMore.\n";
        assert_eq!(first_paragraph(md), "First line second line.");
    }
}
