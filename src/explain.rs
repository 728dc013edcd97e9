//! `hilbert explain CODE` and `hilbert explain --list`: the explanation registry, for people
//! (the markdown as written) or as JSON.

use crate::output;
use hilbert_frontend::{Code, explain};
use serde_json::json;

/// The options of `hilbert explain`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The code, such as HK0023 (any case).
    #[arg(
        value_name = "CODE",
        required_unless_present = "list",
        conflicts_with = "list"
    )]
    code: Option<String>,
    /// List every documented code with its severity and title.
    #[arg(long)]
    list: bool,
    /// How to write the explanation.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// `explain` reports in two formats only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Human,
    Json,
}

/// Runs the command and returns its exit code.
pub fn run(args: &Args) -> u8 {
    if args.list {
        let text = match args.format {
            Format::Human => explain::all()
                .iter()
                .map(|e| format!("{}  {:<7}  {}\n", e.code, e.severity.to_string(), e.title))
                .collect(),
            Format::Json => {
                let list: Vec<_> = explain::all()
                    .iter()
                    .map(|e| json!({"code": e.code.to_string(), "severity": e.severity, "title": e.title}))
                    .collect();
                pretty(&json!(list))
            }
        };
        output::stdout(&text);
        return 0;
    }
    let code = args.code.as_deref().unwrap_or_default();
    let Some(e) = explain::lookup(code) else {
        return match Code::parse(code) {
            Some(c) => output::fail(
                output::Kind::Usage,
                &format!("{c} is not a documented diagnostic code"),
                "`hilbert explain --list` lists every code there is",
            ),
            None => output::fail(
                output::Kind::Usage,
                &format!("`{}` is not a diagnostic code", code.escape_debug()),
                "codes look like HK0023: HA, HK or HB and four digits",
            ),
        };
    };
    let text = match args.format {
        Format::Human => {
            let mut text = e.markdown.to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        Format::Json => pretty(&json!({
            "code": e.code.to_string(),
            "severity": e.severity,
            "title": e.title,
            "markdown": e.markdown,
        })),
    };
    output::stdout(&text);
    0
}

fn pretty(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
