//! Hilbert's untrusted frontend: it reads `.ha`, `.hk` and `.hb` sources, reports what is wrong
//! with them, and (in later stages) lowers them to the core IR and explores their plan networks.
//!
//! The pipeline, in module order: [`project`] loads files into a [`source::SourceMap`];
//! [`syntax`] lexes and parses each file into a tree and diagnostics; [`check`] resolves names
//! across files, checks types and makes the agent checks of `language.md` §5.
//!
//! **Invariant:** nothing here prints, exits or panics on bad input; every finding is a
//! [`Diagnostic`] value with a code, a span and (where one exists) a fix.

pub mod analysis;
pub mod check;
pub mod diagnostic;
pub mod explain;
pub mod frames;
pub mod gauge;
pub mod input;
pub mod listing;
pub mod lower;
pub mod project;
pub mod render;
pub mod source;
pub mod syntax;

pub use diagnostic::{Code, Diagnostic, Severity};
pub use source::{Dialect, FileId, SourceFile, SourceMap, Span};

use hilbert_certificates::ir::Literal;
use std::collections::BTreeMap;
use syntax::ast::Module;

/// Values of agent parameters: per agent name, per parameter name, its value. A parameter with a
/// value is written into the IR as a literal wherever the agent reads it; one with none is an
/// unknown the build cannot decide (docs/language.md, "Agent parameters").
pub type AgentArgs = BTreeMap<String, BTreeMap<String, Literal>>;

/// One `NAME=VALUE` (or `AGENT.NAME=VALUE`) as a user wrote it: `--param`, a scenario's
/// `params`, a host's call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    /// The agent it is for; `None`: every agent that declares `name`.
    pub agent: Option<String>,
    /// The parameter.
    pub name: String,
    /// Its value as written: an integer, `true`/`false`, or a string (quotes optional).
    pub value: String,
}

impl ParamSpec {
    /// Parses `NAME=VALUE` or `AGENT.NAME=VALUE`.
    pub fn parse(text: &str) -> Result<ParamSpec, String> {
        let Some((key, value)) = text.split_once('=') else {
            return Err(format!(
                "`{}` is not NAME=VALUE (for example `line=\"A\"` or `Operator.line=A`)",
                text.escape_debug()
            ));
        };
        let key = key.trim();
        let (agent, name) = match key.split_once('.') {
            Some((a, n)) => (Some(a.to_string()), n.to_string()),
            None => (None, key.to_string()),
        };
        if name.is_empty() || agent.as_deref() == Some("") {
            return Err(format!("`{}` names no parameter", text.escape_debug()));
        }
        Ok(ParamSpec {
            agent,
            name,
            value: value.to_string(),
        })
    }
}

/// Which source files each part of a project comes from: the files an agent is written in (its
/// `.ha` file and the `.hb` files of its values) and the `.hk` file of each plan file stem. A
/// certificate lists the sources its slice of the IR comes from ([`Provenance::sources_of`]),
/// so that it does not grow with the rest of the project.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    agents: std::collections::HashMap<String, Vec<String>>,
    stems: std::collections::HashMap<String, String>,
}

impl Provenance {
    /// The provenance of a resolved program.
    pub fn new(program: &check::Program, sources: &source::SourceMap) -> Provenance {
        let mut out = Provenance::default();
        for a in &program.agents {
            out.agents
                .entry(a.name.clone())
                .or_default()
                .push(sources.get(a.file).path.clone());
        }
        for v in &program.values {
            if let Some(a) = v.agent {
                let name = program.agents[a.0].name.clone();
                out.agents
                    .entry(name)
                    .or_default()
                    .push(sources.get(v.file).path.clone());
            }
        }
        for f in &program.plan_files {
            out.stems
                .entry(f.stem.clone())
                .or_insert_with(|| sources.get(f.file).path.clone());
        }
        out
    }

    /// The digests of the files `slice` comes from (its agents' files and its plans' files), in
    /// the order of `digests`; `index` is [`Provenance::index`] of `digests` (made once, so that
    /// each network's list costs its own size, not the project's).
    pub fn sources_of(
        &self,
        slice: &hilbert_certificates::ir::Ir,
        digests: &[hilbert_certificates::cert::SourceDigest],
        index: &std::collections::HashMap<&str, usize>,
    ) -> Vec<hilbert_certificates::cert::SourceDigest> {
        let mut paths = Vec::new();
        for a in &slice.agents {
            paths.extend(self.agents.get(&a.name).into_iter().flatten());
        }
        for net in &slice.networks {
            for p in &net.plans {
                paths.extend(self.stems.get(&p.file));
            }
        }
        let mut found: Vec<usize> = paths
            .iter()
            .filter_map(|p| index.get(p.as_str()).copied())
            .collect();
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|i| digests[i].clone()).collect()
    }

    /// Where each path is in `digests` (the first, if one repeats).
    pub fn index(
        digests: &[hilbert_certificates::cert::SourceDigest],
    ) -> std::collections::HashMap<&str, usize> {
        let mut index = std::collections::HashMap::new();
        for (i, d) in digests.iter().enumerate() {
            index.entry(d.path.as_str()).or_insert(i);
        }
        index
    }
}

/// The parameters of agent `agent` that have no value in `ir` and that running it reads: in a
/// rule's condition, a binding's arguments, or a value (`.ha` `value`, `.hb` options).
pub fn params_read(
    program: &check::Program,
    ir: &hilbert_certificates::ir::Ir,
    agent: &str,
) -> Vec<String> {
    use syntax::ast::{Expr, ExprKind};
    fn reads(e: &Expr, name: &str) -> bool {
        match &e.kind {
            ExprKind::Var(v) => v.name == name,
            ExprKind::Unary(_, a) => reads(a, name),
            ExprKind::Binary(_, a, b) => reads(a, name) || reads(b, name),
            ExprKind::Chain { first, rest } => {
                syntax::ast::chain_operands(first, rest).any(|a| reads(a, name))
            }
            ExprKind::Believes { atom, .. } => atom.args.iter().any(|a| reads(a, name)),
            ExprKind::Call { args, .. } => args.iter().any(|a| reads(a, name)),
            _ => false,
        }
    }
    let Some(ai) = ir.agents.iter().position(|a| a.name == agent) else {
        return Vec::new();
    };
    let a = &ir.agents[ai];
    let mut unset = Vec::new();
    for (c, _) in &a.attends {
        c.unset_params(&mut unset);
    }
    for r in &a.intends {
        r.cond.unset_params(&mut unset);
    }
    for r in &a.rewards {
        r.cond.unset_params(&mut unset);
    }
    for d in &a.desires {
        d.achieved.iter().for_each(|c| c.unset_params(&mut unset));
        d.impossible
            .iter()
            .for_each(|(c, _)| c.unset_params(&mut unset));
    }
    for b in &a.plans {
        if let Some(n) = b.network.and_then(|n| ir.networks.get(n as usize)) {
            unset.extend(&n.unset_params);
        }
    }
    let info = program.agents.get(ai);
    let mut out: Vec<String> = Vec::new();
    for (i, ((name, _), value)) in a.params.iter().zip(&a.args).enumerate() {
        if value.is_some() {
            continue;
        }
        let in_values = info.is_some_and(|info| {
            info.values.iter().any(|v| reads(&v.expr, name))
                || program
                    .values
                    .iter()
                    .filter(|v| v.agent.map(|x| x.0) == Some(ai))
                    .any(|v| {
                        v.options.iter().any(|(_, e)| reads(e, name))
                            || v.values.iter().any(|(_, e)| reads(e, name))
                    })
        });
        if unset.contains(&(i as u32)) || in_values {
            out.push(name.clone());
        }
    }
    out
}

/// Resolves parameter values against the program's declarations: each spec names a declared
/// parameter (of its agent, or of every agent declaring it) and its value parses at that
/// parameter's type. Later specs override earlier ones.
pub fn resolve_params(program: &check::Program, specs: &[ParamSpec]) -> Result<AgentArgs, String> {
    use check::Ty;
    let mut out = AgentArgs::new();
    for spec in specs {
        let agents: Vec<&check::AgentInfo> = match &spec.agent {
            Some(a) => match program.agent(a) {
                Some((_, info)) => vec![info],
                None => {
                    return Err(format!(
                        "`--param {}.{}`: there is no agent `{a}`",
                        a, spec.name
                    ));
                }
            },
            None => program
                .agents
                .iter()
                .filter(|a| a.param(&spec.name).is_some())
                .collect(),
        };
        let declared: Vec<String> = program
            .agents
            .iter()
            .flat_map(|a| {
                a.params
                    .iter()
                    .map(move |p| format!("{}.{}", a.name, p.name))
            })
            .collect();
        let mut hits = 0;
        for agent in agents {
            let Some(p) = agent.param(&spec.name) else {
                continue;
            };
            hits += 1;
            let param = &agent.params[p];
            let raw = spec.value.trim();
            let value = match &param.ty {
                Ty::Int => raw
                    .parse::<i64>()
                    .map(Literal::Int)
                    .map_err(|_| "an integer"),
                Ty::Bool => match raw {
                    "true" => Ok(Literal::Bool(true)),
                    "false" => Ok(Literal::Bool(false)),
                    _ => Err("`true` or `false`"),
                },
                Ty::String => Ok(Literal::Str(
                    raw.strip_prefix('"')
                        .and_then(|r| r.strip_suffix('"'))
                        .unwrap_or(raw)
                        .to_string(),
                )),
                _ => Err("a value of a type parameters cannot have"),
            }
            .map_err(|want| {
                format!(
                    "parameter `{}` of agent `{}` is {}: `{}` is not {want}",
                    param.name,
                    agent.name,
                    param.ty.with_article(),
                    raw.escape_debug()
                )
            })?;
            out.entry(agent.name.clone())
                .or_default()
                .insert(param.name.clone(), value);
        }
        if hits == 0 {
            let known = if declared.is_empty() {
                "no agent of the project declares parameters".to_string()
            } else {
                format!("declared: {}", declared.join(", "))
            };
            let names = program
                .agents
                .iter()
                .filter(|a| spec.agent.as_ref().is_none_or(|x| *x == a.name))
                .flat_map(|a| a.params.iter().map(|p| p.name.as_str()));
            let near = check::nearest(&spec.name, names)
                .map(|n| format!("did you mean `{n}`? "))
                .unwrap_or_default();
            return Err(match &spec.agent {
                Some(a) => format!(
                    "agent `{a}` has no parameter `{}` ({near}{known})",
                    spec.name
                ),
                None => format!("no agent has a parameter `{}` ({near}{known})", spec.name),
            });
        }
    }
    Ok(out)
}

/// A parsed file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    /// Which file.
    pub file: FileId,
    /// Its tree.
    pub module: Module,
    /// Whether its parse reported an error (its tree has `Error` nodes where it recovered).
    pub syntax_errors: bool,
}

impl ParsedFile {
    /// Parses one file: its tree, and the parse's diagnostics.
    pub fn parse(file: &source::SourceFile) -> (ParsedFile, Vec<Diagnostic>) {
        let (module, diags) = syntax::parse(file);
        (ParsedFile::new(file, module, &diags), diags)
    }

    fn new(file: &source::SourceFile, module: Module, diags: &[Diagnostic]) -> ParsedFile {
        ParsedFile {
            file: file.id,
            module,
            syntax_errors: diags.iter().any(Diagnostic::is_error),
        }
    }
}

/// The result of checking a project: the resolved program, its IR (when the checks found no
/// error) and every diagnostic, sorted by file and position. The syntax trees are not kept: they
/// are dropped once lowered, before Z3 is asked anything (a long plan's tree is most of what the
/// check holds; issue 17).
#[derive(Debug)]
pub struct Checked {
    /// The resolved program (complete only when there is no error).
    pub program: check::Program,
    /// The core IR, lowered when the checks reported no error.
    pub ir: Option<hilbert_certificates::ir::Ir>,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
    /// Every query the condition analysis asked Z3, with its answer (`--emit-smt`).
    pub smt: hilbert_smt::Log,
    /// Where the front end passed its share of `--max-memory` ([`gauge`]), if it did: the
    /// check then stopped there, with no diagnostics (those of the cut trees would be wrong),
    /// no IR and no query; the caller names the bound.
    pub memory_stop: Option<gauge::Stop>,
}

impl Checked {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses every decodable file and resolves the program: the first half of [`check_project`]
/// and of [`lower_project`], with the diagnostics so far (loading's included).
fn parse_and_resolve(
    loaded: &project::Loaded,
) -> (Vec<ParsedFile>, check::Program, Vec<Diagnostic>) {
    let mut diagnostics = loaded.diagnostics.clone();
    let files: Vec<&source::SourceFile> = loaded
        .sources
        .files()
        .iter()
        .filter(|f| !loaded.undecodable.contains(&f.id))
        .collect();
    let mut parsed = Vec::with_capacity(files.len());
    for (file, (module, mut diags)) in files.iter().zip(syntax::parse_many(&files)) {
        parsed.push(ParsedFile::new(file, module, &diags));
        diagnostics.append(&mut diags);
    }
    if gauge::stopped().is_some() {
        // Cut short for the bound (`check_project_params`): nothing to resolve.
        return (parsed, check::Program::default(), diagnostics);
    }
    let (program, found) = check::resolve(&loaded.sources, &parsed);
    diagnostics.extend(found);
    (parsed, program, diagnostics)
}

/// The IR of the loaded files, by the same deterministic lowering as [`check_project`], without
/// the analyses that ask Z3: what `hilbert verify --sources` compares a certificate's IR with.
/// The errors, when the files do not lower.
pub fn lower_project(
    loaded: &project::Loaded,
    args: &AgentArgs,
) -> Result<(hilbert_certificates::ir::Ir, Provenance), Vec<Diagnostic>> {
    lower_resolved(loaded, parse_and_resolve(loaded), args)
}

/// The IR and its lowering's result, when the caller states the agent parameter values: as
/// [`lower_project`], with `specs` resolved against the program's declarations exactly as
/// `build --param` resolves them ([`resolve_params`]). The values, and the IR or the errors
/// that keep the files from lowering; the error, when a value names no declared parameter or
/// is not of its type.
#[allow(clippy::type_complexity)]
pub fn lower_project_params(
    loaded: &project::Loaded,
    specs: &[ParamSpec],
) -> Result<
    (
        AgentArgs,
        Result<(hilbert_certificates::ir::Ir, Provenance), Vec<Diagnostic>>,
    ),
    String,
> {
    let resolved = parse_and_resolve(loaded);
    let args = resolve_params(&resolved.1, specs)?;
    let lowered = lower_resolved(loaded, resolved, &args);
    Ok((args, lowered))
}

/// Lowers a parsed and resolved project (see [`lower_project`]).
fn lower_resolved(
    loaded: &project::Loaded,
    (parsed, program, mut diagnostics): (Vec<ParsedFile>, check::Program, Vec<Diagnostic>),
    args: &AgentArgs,
) -> Result<(hilbert_certificates::ir::Ir, Provenance), Vec<Diagnostic>> {
    diagnostics.retain(Diagnostic::is_error);
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let (ir, found) = lower::lower(&program, &parsed, args);
    if found.is_empty() {
        Ok((ir, Provenance::new(&program, &loaded.sources)))
    } else {
        Err(found)
    }
}

/// Parses and checks every loaded file, with Z3's default options.
pub fn check_project(loaded: &project::Loaded) -> Checked {
    check_project_with(loaded, hilbert_smt::Options::default())
}

/// Parses and checks every loaded file; the condition analysis runs Z3 with `options`.
pub fn check_project_with(loaded: &project::Loaded, options: hilbert_smt::Options) -> Checked {
    match check_project_params(loaded, options, &[]) {
        Ok(c) => c,
        Err(_) => unreachable!("no parameter values, no parameter error"),
    }
}

/// Parses and checks every loaded file, lowered with the given agent parameter values; the
/// error, when a value names no declared parameter or does not parse at its type.
pub fn check_project_params(
    loaded: &project::Loaded,
    options: hilbert_smt::Options,
    params: &[ParamSpec],
) -> Result<Checked, String> {
    check_project_cancellable(loaded, options, params, None)
}

/// As [`check_project_params`], with Z3's queries stopped once `cancel` is set (`hilbert lsp`
/// cancels the check of a text that has since changed): the result of a cancelled check is
/// then incomplete, its unanswered questions unproved, and is for throwing away
/// ([`hilbert_smt::Log::cancelled`] says whether it was).
pub fn check_project_cancellable(
    loaded: &project::Loaded,
    options: hilbert_smt::Options,
    params: &[ParamSpec],
    cancel: Option<hilbert_smt::Cancel>,
) -> Result<Checked, String> {
    // The front end's share of the bound, for this check only (a later lowering of the same
    // sources, `lower_project`, is not cut short).
    struct Share;
    impl Drop for Share {
        fn drop(&mut self) {
            gauge::set_share(None);
        }
    }
    gauge::set_share(options.memory_share());
    let _share = Share;
    let stopped = |program: check::Program| -> Result<Checked, String> {
        Ok(Checked {
            program,
            ir: None,
            diagnostics: Vec::new(),
            smt: hilbert_smt::Log::new(options),
            memory_stop: gauge::stopped(),
        })
    };
    if gauge::past(gauge::Phase::Loading, 0) {
        return stopped(check::Program::default());
    }
    let (parsed, program, mut diagnostics) = parse_and_resolve(loaded);
    if gauge::past(gauge::Phase::Resolving, 0) {
        return stopped(program);
    }
    let args = resolve_params(&program, params)?;
    // Lowering is a static check too (it refuses unbounded networks), but only a program
    // without errors can be lowered.
    let ir = if diagnostics.iter().any(Diagnostic::is_error) {
        None
    } else {
        let (ir, found) = lower::lower(&program, &parsed, &args);
        let ok = found.is_empty();
        diagnostics.extend(found);
        ok.then_some(ir)
    };
    drop(parsed);
    if gauge::past(gauge::Phase::Lowering, 0) {
        return stopped(program);
    }
    let mut smt = hilbert_smt::Log::new(options);
    if let Some(cancel) = cancel {
        smt = smt.cancellable(cancel);
    }
    if let Some(ir) = &ir {
        let already = diagnostics.iter().map(|d| (d.code, d.span)).collect();
        diagnostics.extend(analysis::analyse_program(ir, &program, &already, &mut smt));
        diagnostics.extend(frames::check_program(ir, &program, &mut smt));
    }
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start, d.code));
    diagnostics.dedup();
    Ok(Checked {
        program,
        ir,
        diagnostics,
        smt,
        memory_stop: None,
    })
}
