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
                "The build found a counterexample: a path from the plan's scene that shows the theorem false (a deadlock, a desire that is not reached, an abort handler that does not finish, or a tell that is not feasible). The build is not admitted.",
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
    /// is wrong at the end. Written as the result's `codeFlows` (one thread flow, a location per
    /// line, at the network's binding, in order).
    pub steps: Vec<String>,
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
    let mut results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let index = codes.iter().position(|(c, _)| *c == d.code).unwrap_or(0);
            result(sources, d, index)
        })
        .collect();
    let mut theorem_rules: Vec<TheoremRule> = theorems.iter().map(|t| t.rule).collect();
    theorem_rules.sort();
    theorem_rules.dedup();
    rules.extend(theorem_rules.iter().map(|r| r.rule()));
    for t in theorems {
        let index = codes.len() + theorem_rules.iter().position(|r| *r == t.rule).unwrap_or(0);
        let mut result = json!({
            "ruleId": t.rule.id(),
            "ruleIndex": index,
            "level": "error",
            "message": {"text": t.message},
            "properties": t.properties,
        });
        if let Some(span) = t.span {
            result["locations"] = json!([{"physicalLocation": physical(&locate(sources, span))}]);
        }
        if !t.steps.is_empty() {
            let locations: Vec<Value> = t
                .steps
                .iter()
                .enumerate()
                .map(|(k, line)| {
                    let mut location = json!({"message": {"text": line}});
                    if let Some(span) = t.span {
                        location["physicalLocation"] = physical(&locate(sources, span));
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
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
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

fn result(sources: &SourceMap, d: &Diagnostic, rule_index: usize) -> Value {
    let related: Vec<Value> = d
        .secondary
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "id": i,
                "message": {"text": l.message},
                "physicalLocation": physical(&locate(sources, l.span)),
            })
        })
        .collect();
    let mut result = json!({
        "ruleId": d.code.to_string(),
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": {"text": d.message},
        "locations": [{"physicalLocation": physical(&locate(sources, d.span))}],
    });
    if !related.is_empty() {
        result["relatedLocations"] = Value::Array(related);
    }
    result
}

fn physical(at: &Location) -> Value {
    json!({
        "artifactLocation": {"uri": artifact_uri(&at.file)},
        "region": {
            "startLine": at.line,
            "startColumn": at.column,
            "endLine": at.end_line,
            "endColumn": at.end_column,
        },
    })
}

/// A path as a URI reference: relative paths stay relative (with `/` separators and no leading
/// `./`); an absolute path under the current directory is made relative to it; any other
/// absolute path becomes a `file://` URI. Characters outside the URI's unreserved set are
/// percent-encoded.
pub fn artifact_uri(path: &str) -> String {
    let mut path = path.replace('\\', "/");
    if path.starts_with('/')
        && let Ok(cwd) = std::env::current_dir()
    {
        let cwd = cwd.to_string_lossy().replace('\\', "/");
        let prefix = format!("{}/", cwd.trim_end_matches('/'));
        if let Some(rest) = path.strip_prefix(&prefix) {
            path = rest.to_string();
        }
    }
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.to_string();
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
    fn uris_are_relative_with_forward_slashes_and_encoded() {
        assert_eq!(artifact_uri("./examples/x/Line.hk"), "examples/x/Line.hk");
        assert_eq!(artifact_uri("a\\b c.hk"), "a/b%20c.hk");
        assert_eq!(
            artifact_uri("/nowhere-else/é.hk"),
            "file:///nowhere-else/%C3%A9.hk"
        );
        let cwd = std::env::current_dir().unwrap();
        let inside = format!("{}/sub/A.ha", cwd.display());
        assert_eq!(artifact_uri(&inside), "sub/A.ha");
    }

    #[test]
    fn the_full_description_is_the_first_paragraph() {
        let md = "# HK0001: t\n\nSeverity: error\n\nFirst line\nsecond line.\n\nMore.\n";
        assert_eq!(first_paragraph(md), "First line second line.");
    }
}
