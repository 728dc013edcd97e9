//! Scenarios: the initial beliefs and what happens at given cycles, as JSON.
//!
//! ```json
//! { "cycles": 30, "seed": 7,
//!   "beliefs": ["made(0)"],
//!   "events": [ { "cycle": 3, "believe": ["alarm(\"raised\")"] },
//!               { "cycle": 9, "forget": ["alarm(\"raised\")"], "drop": ["Produced"] } ] }
//! ```
//!
//! Atoms are written as in the sources: a belief's name and literal arguments (integers,
//! `"strings"`, `true`/`false`). `drop` lists desires the agent stops holding at that cycle.
//! `params` gives agent parameters their values (`{"line": "A"}`, or `{"Operator.line": "A"}`
//! for one agent of several); the sources are lowered with them before the run (`hilbert run
//! --param` overrides them, and the journal's scenario records the values used).

use hilbert_certificates::ir::{Agent, BeliefId, Type, Value};
use serde::{Deserialize, Serialize};

/// A scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// How many cycles to run at most.
    #[serde(default = "default_cycles")]
    pub cycles: u64,
    /// The seed of the choices among a plan's possible steps.
    #[serde(default)]
    pub seed: u64,
    /// Beliefs held at cycle 0.
    #[serde(default)]
    pub beliefs: Vec<String>,
    /// What happens later.
    #[serde(default)]
    pub events: Vec<ScenarioEvent>,
    /// Agent parameters' values: `NAME` (every agent declaring it) or `AGENT.NAME`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub params: std::collections::BTreeMap<String, ParamValue>,
}

/// A parameter's value in a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A Boolean.
    Bool(bool),
    /// A string.
    Str(String),
}

impl ParamValue {
    /// The value as `--param` writes it.
    pub fn text(&self) -> String {
        match self {
            ParamValue::Int(n) => n.to_string(),
            ParamValue::Bool(b) => b.to_string(),
            ParamValue::Str(s) => s.clone(),
        }
    }
}

fn default_cycles() -> u64 {
    100
}

impl Default for Scenario {
    fn default() -> Scenario {
        Scenario {
            cycles: default_cycles(),
            seed: 0,
            beliefs: Vec::new(),
            events: Vec::new(),
            params: std::collections::BTreeMap::new(),
        }
    }
}

/// What happens at one cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioEvent {
    /// The cycle.
    pub cycle: u64,
    /// The one agent it happens to (`"agent": "Pump"`); none: every agent of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Percepts: atoms to believe.
    #[serde(default)]
    pub believe: Vec<String>,
    /// Atoms to forget.
    #[serde(default)]
    pub forget: Vec<String>,
    /// Desires the agent stops holding.
    #[serde(default)]
    pub drop: Vec<String>,
}

/// Parses `name(lit, …)` against the agent's beliefs: the predicate must be declared and the
/// literals must have its fields' types.
pub fn parse_atom(agent: &Agent, text: &str) -> Result<(BeliefId, Vec<Value>), String> {
    let text = text.trim();
    let (name, rest) = match text.find('(') {
        Some(i) => (&text[..i], &text[i..]),
        None => (text, "()"),
    };
    let name = name.trim();
    let index = agent
        .beliefs
        .iter()
        .position(|b| b.name == name)
        .ok_or_else(|| format!("`{text}`: `{name}` is not a belief of {}", agent.name))?;
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("`{text}`: write the atom as `{name}(v, …)`"))?;
    let args = split_args(inner);
    let fields = &agent.beliefs[index].fields;
    if args.len() != fields.len() {
        return Err(format!(
            "`{text}`: `{name}` has {} field(s), not {}",
            fields.len(),
            args.len()
        ));
    }
    let values = args
        .iter()
        .zip(fields)
        .map(|(a, (field, ty))| {
            literal(a, ty).ok_or_else(|| format!("`{text}`: `{a}` is not a {ty:?} for `{field}`"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((BeliefId(index as u32), values))
}

fn split_args(inner: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_str = false;
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            _ if escaped => {
                cur.push(c);
                escaped = false;
            }
            '\\' if in_str => {
                cur.push(c);
                escaped = true;
            }
            '"' => {
                in_str = !in_str;
                cur.push(c);
            }
            ',' if !in_str => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

fn literal(text: &str, ty: &Type) -> Option<Value> {
    match ty {
        Type::Int => text.parse().ok().map(Value::Int),
        Type::Bool => match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Type::Str => {
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            let mut out = String::new();
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    match chars.next()? {
                        'n' => out.push('\n'),
                        other => out.push(other),
                    }
                } else {
                    out.push(c);
                }
            }
            Some(Value::Str(out))
        }
        Type::Chan(_) => None,
    }
}
