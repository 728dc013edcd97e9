//! Runs the real pipeline of `hilbert build` (parse, check, lower, explore, prove) on a project
//! held in memory, runs the oracle on the same checked program, and compares their verdicts.

use crate::decide::{self, Kind, Verdict};
use crate::model::{Model, ParamValue};
use hilbert_frontend::project::{Loaded, add_bytes};
use hilbert_frontend::{Diagnostic, ParamSpec, ParsedFile, check, lower, syntax};
use hilbert_prover::explore::Limits;
use hilbert_prover::obligations::{self, Status};
use std::collections::HashMap;

/// A project as files: (path, text), and `--param` values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sources {
    /// Each file's path (its extension gives its dialect) and text.
    pub files: Vec<(String, String)>,
    /// `AGENT.NAME=VALUE` parameter values.
    pub params: Vec<String>,
}

impl Sources {
    /// The files as one text (separated by `==> path <==` lines), with the parameters.
    pub fn listing(&self) -> String {
        let mut s = String::new();
        if !self.params.is_empty() {
            s.push_str(&format!("params: {}\n", self.params.join(" ")));
        }
        for (p, t) in &self.files {
            s.push_str(&format!("==> {p} <==\n{t}"));
        }
        s
    }
}

/// A theorem as the build reports it.
#[derive(Clone, Debug)]
pub struct BuildTheorem {
    /// `Agent.Binding`.
    pub network: String,
    /// Its name.
    pub name: String,
    /// `proved`, `refuted`, `unproved`.
    pub word: &'static str,
    /// The counterexample's length in steps, and whether it is a lasso.
    pub cex: Option<(usize, bool)>,
    /// The reason, when unproved.
    pub reason: String,
}

/// One difference between the build and the oracle.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Disagreement {
    /// Its class: what differs, independent of the names of the project (for grouping).
    pub class: String,
    /// The details: network, theorem, both verdicts.
    pub detail: String,
}

/// What running both gave.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The checker (or the lowering) refused the project: the codes of its errors.
    Refused(Vec<String>),
    /// Both ran: the disagreements (none: they agree), theorems compared, and theorems the
    /// oracle could not decide (too big).
    Compared {
        /// Every disagreement.
        disagreements: Vec<Disagreement>,
        /// Theorems compared.
        compared: usize,
        /// Theorems the oracle left undecided.
        undecided: usize,
        /// Of the theorems compared, those of scenes where a step diverges (compared like the
        /// rest since semantics 4 made a diverging step's end state independent of the node
        /// count, docs/semantics.md "Divergence"; counted to show the campaign reaches them).
        diverging: usize,
        /// The kind of each theorem compared.
        kinds: Vec<Kind>,
    },
}

fn errors(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.to_string())
        .collect()
}

/// What the checker made of a project.
struct Front {
    loaded: Loaded,
    parsed: Vec<ParsedFile>,
    program: check::Program,
    specs: Vec<ParamSpec>,
}

/// Parses and checks the project (what `hilbert check` refuses, it refuses).
fn front(src: &Sources) -> Result<Front, Vec<String>> {
    let mut loaded = Loaded::default();
    for (path, text) in &src.files {
        add_bytes(&mut loaded, path.clone(), text.clone().into_bytes());
    }
    let files: Vec<&hilbert_frontend::SourceFile> = loaded.sources.files().iter().collect();
    let mut parsed = Vec::new();
    let mut diags = Vec::new();
    for (file, (module, d)) in files.iter().zip(syntax::parse_many(&files)) {
        parsed.push(ParsedFile {
            file: file.id,
            module,
            syntax_errors: d.iter().any(Diagnostic::is_error),
        });
        diags.extend(d);
    }
    let (program, found) = check::resolve(&loaded.sources, &parsed);
    diags.extend(found);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(errors(&diags));
    }
    let specs: Vec<ParamSpec> = src
        .params
        .iter()
        .map(|p| ParamSpec::parse(p))
        .collect::<Result<_, _>>()
        .map_err(|e| vec![format!("param: {e}")])?;
    Ok(Front {
        loaded,
        parsed,
        program,
        specs,
    })
}

/// The oracle's parameter values, read from the specs at the declared types.
fn param_values(
    program: &check::Program,
    specs: &[ParamSpec],
) -> HashMap<(String, String), ParamValue> {
    let mut values: HashMap<(String, String), ParamValue> = HashMap::new();
    for spec in specs {
        for a in &program.agents {
            if spec.agent.as_ref().is_some_and(|x| *x != a.name) {
                continue;
            }
            let Some(p) = a.param(&spec.name) else {
                continue;
            };
            let raw = spec.value.trim();
            let v = match a.params[p].ty {
                check::Ty::Int => ParamValue::Int(raw.parse().unwrap_or_default()),
                check::Ty::Bool => ParamValue::Bool(raw == "true"),
                _ => ParamValue::Str(
                    raw.strip_prefix('"')
                        .and_then(|r| r.strip_suffix('"'))
                        .unwrap_or(raw)
                        .to_string(),
                ),
            };
            values.insert((a.name.clone(), spec.name.clone()), v);
        }
    }
    values
}

/// The oracle alone on a project the checker accepts: every network's theorems, belief sets
/// and counterexample lengths; the checker's error codes otherwise.
pub fn oracle(src: &Sources, max_states: usize) -> Result<Vec<decide::Network>, Vec<String>> {
    let f = front(src)?;
    let values = param_values(&f.program, &f.specs);
    let model = Model::new(&f.program, &f.parsed, &values);
    let mut out = Vec::new();
    for (a, agent) in model.agents.iter().enumerate() {
        for b in 0..agent.bindings.len() {
            out.push(decide::decide(&model, a, b, max_states));
        }
    }
    Ok(out)
}

/// Checks the project, runs the build's prover and the oracle, and compares them.
pub fn run(src: &Sources, max_states: usize) -> Outcome {
    // A panic of either side (the build's pipeline or the oracle) is a finding like any
    // disagreement, of a class of its own, so that a long campaign goes on and shrinks it.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_both(src, max_states))) {
        Ok(outcome) => outcome,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome::Compared {
                disagreements: vec![Disagreement {
                    class: "a panic in the build or the oracle".into(),
                    detail: message,
                }],
                compared: 0,
                undecided: 0,
                diverging: 0,
                kinds: Vec::new(),
            }
        }
    }
}

/// [`run`], without catching a panic.
/// The build's proofs of a project (its theorems and certificates), as `run` makes them, or
/// the codes of the errors that refused it.
pub fn build(src: &Sources, max_states: usize) -> Result<obligations::Proofs, Vec<String>> {
    let Front {
        loaded,
        parsed,
        program,
        specs,
    } = front(src)?;
    let args = hilbert_frontend::resolve_params(&program, &specs)
        .map_err(|e| vec![format!("param: {e}")])?;
    let (ir, found) = lower::lower(&program, &parsed, &args);
    if found.iter().any(Diagnostic::is_error) {
        return Err(errors(&found));
    }
    let limits = Limits {
        max_states,
        jobs: 1,
        max_memory: u64::MAX,
    };
    Ok(obligations::prove(
        &ir,
        &program,
        &loaded.sources,
        &[],
        limits,
    ))
}

fn run_both(src: &Sources, max_states: usize) -> Outcome {
    let Front {
        loaded,
        parsed,
        program,
        specs,
    } = match front(src) {
        Ok(f) => f,
        Err(codes) => return Outcome::Refused(codes),
    };
    let args = match hilbert_frontend::resolve_params(&program, &specs) {
        Ok(a) => a,
        Err(e) => return Outcome::Refused(vec![format!("param: {e}")]),
    };
    let (ir, found) = lower::lower(&program, &parsed, &args);
    if found.iter().any(Diagnostic::is_error) {
        return Outcome::Refused(errors(&found));
    }
    let values = param_values(&program, &specs);
    let model = Model::new(&program, &parsed, &values);
    let limits = Limits {
        // A bound of its own, above the oracle's: a theorem the build leaves unproved at its
        // bound is not compared.
        max_states: max_states * 4,
        jobs: 1,
        max_memory: u64::MAX,
    };
    let t0 = std::time::Instant::now();
    let proofs = obligations::prove(&ir, &program, &loaded.sources, &[], limits);
    let build: Vec<BuildTheorem> = proofs
        .theorems
        .iter()
        .map(|t| BuildTheorem {
            network: t.network.clone(),
            name: t.name.clone(),
            word: t.status.word(),
            cex: match &t.status {
                Status::Refuted(c) => Some((c.steps.len(), c.cycle_from.is_some())),
                _ => None,
            },
            reason: match &t.status {
                Status::Unproved(r) => r.clone(),
                _ => String::new(),
            },
        })
        .collect();
    let t1 = std::time::Instant::now();
    let mut oracle = Vec::new();
    for (a, agent) in model.agents.iter().enumerate() {
        for b in 0..agent.bindings.len() {
            oracle.push(decide::decide(&model, a, b, max_states));
        }
    }
    if std::env::var_os("ORACLE_TIMES").is_some() {
        eprintln!(
            "build {:.3}s oracle {:.3}s states {:?}",
            (t1 - t0).as_secs_f64(),
            t1.elapsed().as_secs_f64(),
            oracle.iter().map(|n| n.states).collect::<Vec<_>>()
        );
    }
    compare(&build, &oracle)
}

fn kind_of(name: &str) -> Kind {
    if name.contains("_assert_") {
        Kind::Assert
    } else if name.ends_with("_no_deadlock") {
        Kind::NoDeadlock
    } else if name.contains("_live_") {
        Kind::Live
    } else if name.contains("_released_") {
        Kind::Released
    } else if name.ends_with("_abortable") {
        Kind::Abortable
    } else if name.ends_with("_stoppable") {
        Kind::Stoppable
    } else {
        Kind::Tell
    }
}

/// Compares the build's theorems with the oracle's, network by network.
pub fn compare(build: &[BuildTheorem], oracle: &[decide::Network]) -> Outcome {
    let mut out = Vec::new();
    let mut compared = 0;
    let mut undecided = 0;
    let mut diverging = 0;
    let mut kinds = Vec::new();
    for net in oracle {
        let mine: Vec<&BuildTheorem> = build.iter().filter(|t| t.network == net.name).collect();
        let mut used = vec![false; mine.len()];
        for t in &net.theorems {
            let hit = mine
                .iter()
                .enumerate()
                .find(|(i, b)| !used[*i] && b.name == t.name)
                .map(|(i, b)| (i, *b));
            let Some((i, b)) = hit else {
                out.push(Disagreement {
                    class: format!("{:?}: only the oracle lists it", t.kind),
                    detail: format!("{}: {} (oracle {})", net.name, t.name, t.verdict.word()),
                });
                continue;
            };
            used[i] = true;
            if matches!(&t.verdict, Verdict::Unproved(why) if why.starts_with("too big"))
                || (b.word == "unproved" && obligations::passed_a_bound(&b.reason))
            {
                undecided += 1;
                continue;
            }
            compared += 1;
            kinds.push(t.kind);
            if net.diverges {
                diverging += 1;
            }
            let overflow = match (net.overflow, net.diverges) {
                (true, true) => " (overflow reachable; a step diverges)",
                (true, false) => " (overflow reachable)",
                (false, true) => " (a step diverges)",
                (false, false) => "",
            };
            if b.word != t.verdict.word() {
                out.push(Disagreement {
                    class: format!(
                        "{:?}: build {}, oracle {}{overflow}",
                        t.kind,
                        b.word,
                        t.verdict.word()
                    ),
                    detail: format!(
                        "{}: {}: build {}{}, oracle {:?}",
                        net.name,
                        t.name,
                        b.word,
                        if b.reason.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", b.reason)
                        },
                        t.verdict
                    ),
                });
                continue;
            }
            if let (Verdict::Refuted(Some(n)), Some((m, lasso))) = (&t.verdict, b.cex)
                && (t.kind == Kind::NoDeadlock || !lasso)
                && *n != m
            {
                out.push(Disagreement {
                    class: format!("{:?}: counterexample lengths differ{overflow}", t.kind),
                    detail: format!(
                        "{}: {}: build's counterexample has {m} steps, the oracle's shortest {n}",
                        net.name, t.name
                    ),
                });
            }
        }
        for (i, b) in mine.iter().enumerate() {
            if !used[i] {
                out.push(Disagreement {
                    class: format!("{:?}: only the build lists it", kind_of(&b.name)),
                    detail: format!("{}: {} (build {})", net.name, b.name, b.word),
                });
            }
        }
    }
    out.sort();
    Outcome::Compared {
        disagreements: out,
        compared,
        undecided,
        diverging,
        kinds,
    }
}
