//! Static checks over parsed files: name resolution across files, types, and the agent checks of
//! `language.md` §5, the plan checks of §2 and the values checks of §6.
//!
//! [`resolve`] builds the resolved [`Program`] and every finding; [`check`] keeps the findings.
//! The work is done in passes over the whole project so that every file sees every other:
//!
//! 1. index the agents and the `.hk` files by name (duplicates are reported, the first wins);
//! 2. declare each agent's members and each plan's signature (modules `agent`, `plans`);
//! 3. check the agents' rules and bindings, the plan bodies and the values blocks;
//! 4. report what was never used, from the mentions the checks recorded.
//!
//! **Quietness.** A file with syntax errors may have lost members in recovery, so checks that
//! report something *missing* (no `achieved` rule, no `commit`, an unknown name that might have
//! been in the lost text, an unused belief) stay silent when the file they depend on has syntax
//! errors; `Error` nodes have the type [`Ty::Error`], which every type check accepts.

pub mod codes;
pub mod program;

mod agent;
mod plans;
mod sat;
mod values;

#[cfg(test)]
mod tests;

pub use program::*;
pub use values::POLICIES;

use crate::ParsedFile;
use crate::diagnostic::Diagnostic;
use crate::source::{Dialect, FileId, SourceMap};
use crate::syntax::ast::{Agent, Module, PlanFile, TypeExpr, TypeKind, ValuesFile};
use std::collections::{HashMap, HashSet};

/// Every finding of the checks (syntax diagnostics come from the parser, not from here).
pub fn check(sources: &SourceMap, parsed: &[ParsedFile]) -> Vec<Diagnostic> {
    resolve(sources, parsed).1
}

/// Resolves the project into a [`Program`] and reports every finding of the checks.
///
/// The program is complete only when no error was reported; after an error, the entries that did
/// not resolve are `None` or [`BindingTarget::Unresolved`].
pub fn resolve(sources: &SourceMap, parsed: &[ParsedFile]) -> (Program, Vec<Diagnostic>) {
    let mut c = Checker::new(sources, parsed);
    c.index();
    c.declare_agents();
    c.declare_plans();
    c.check_agents();
    c.check_plans();
    c.check_values();
    c.report_unused();
    let Checker {
        program, mut diags, ..
    } = c;
    diags.sort_by_key(|d| (d.span.file, d.span.start, d.code));
    (program, diags)
}

/// The state of one check: the program as it is being built, the findings, and the mentions
/// the unused-name warnings need.
pub(crate) struct Checker<'a> {
    pub(crate) sources: &'a SourceMap,
    pub(crate) diags: Vec<Diagnostic>,
    pub(crate) program: Program,
    /// The syntax tree of each agent of `program.agents`.
    pub(crate) agent_asts: Vec<&'a Agent>,
    /// The syntax tree of each file of `program.plan_files`.
    pub(crate) plan_asts: Vec<&'a PlanFile>,
    /// Every `.hb` file.
    pub(crate) values_asts: Vec<(FileId, &'a ValuesFile)>,
    /// Files with syntax errors, or not parsed at all.
    pub(crate) tainted: HashSet<FileId>,
    /// The stems of every `.hk` file in the source map, parsed or not.
    pub(crate) all_stems: HashMap<String, FileId>,
    /// `(agent, belief)` pairs mentioned somewhere.
    pub(crate) used_beliefs: HashSet<(usize, usize)>,
    /// `(agent, attention)` pairs initial, attended or tested.
    pub(crate) used_attentions: HashSet<(usize, usize)>,
    /// `.hk` files whose stem an earlier file already has (their plans cannot be bound).
    pub(crate) shadowed_files: HashSet<FileId>,
    /// Plans bound by an agent or called by another plan.
    pub(crate) used_plans: HashSet<PlanRef>,
    /// Whether the condition being checked is an `assert`'s (where `desires D` and `intends P`
    /// may be read).
    pub(crate) in_assert: bool,
    parsed: &'a [ParsedFile],
}

impl<'a> Checker<'a> {
    fn new(sources: &'a SourceMap, parsed: &'a [ParsedFile]) -> Self {
        let mut tainted: HashSet<FileId> = sources.files().iter().map(|f| f.id).collect();
        for p in parsed {
            if !p.syntax_errors {
                tainted.remove(&p.file);
            }
        }
        let mut all_stems = HashMap::new();
        for f in sources.files() {
            if f.dialect == Dialect::Plans {
                all_stems.entry(f.stem().to_string()).or_insert(f.id);
            }
        }
        Checker {
            sources,
            diags: Vec::new(),
            program: Program::default(),
            agent_asts: Vec::new(),
            plan_asts: Vec::new(),
            values_asts: Vec::new(),
            tainted,
            all_stems,
            used_beliefs: HashSet::new(),
            used_attentions: HashSet::new(),
            in_assert: false,
            used_plans: HashSet::new(),
            shadowed_files: HashSet::new(),
            parsed,
        }
    }

    /// Whether any file of the dialect has syntax errors (then names it declares may be lost).
    pub(crate) fn dialect_tainted(&self, d: Dialect) -> bool {
        self.tainted
            .iter()
            .any(|&f| self.sources.get(f).dialect == d)
    }

    /// Whether any file at all has syntax errors.
    pub(crate) fn any_tainted(&self) -> bool {
        !self.tainted.is_empty()
    }

    pub(crate) fn emit(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Pass 1: agents and plan files by name.
    fn index(&mut self) {
        let parsed = self.parsed;
        let mut agent_names: HashMap<String, crate::source::Span> = HashMap::new();
        let mut stems: HashMap<String, FileId> = HashMap::new();
        for p in parsed {
            match &p.module {
                Module::Agents(f) => {
                    for (index, a) in f.agents.iter().enumerate() {
                        if let Some(&first) = agent_names.get(a.name.name.as_str()) {
                            self.emit(
                                Diagnostic::error(
                                    codes::DUPLICATE_AGENT,
                                    a.name.span,
                                    format!("the agent `{}` is declared twice", a.name.name),
                                )
                                .with_label("second declaration")
                                .with_secondary(first, "first declared here")
                                .with_note(
                                    "agents are named project-wide: plans (`: Agent`), `tell` and \
                                     `values` refer to them by name",
                                )
                                .with_help("rename one of the agents, or delete the copy")
                                .with_note(
                                    "This usually happens when a file was copied to start a new \
                                     agent and its name was not changed.",
                                ),
                            );
                            continue;
                        }
                        agent_names.insert(a.name.name.to_string(), a.name.span);
                        self.program.add_agent(agent::skeleton(p.file, index, a));
                        self.agent_asts.push(a);
                    }
                }
                Module::Plans(f) => {
                    let stem = self.sources.get(p.file).stem().to_string();
                    if let Some(&first) = stems.get(&stem) {
                        let first_path = self.sources.get(first).path.clone();
                        let span = crate::source::Span::new(p.file, 0..0);
                        self.emit(
                            Diagnostic::error(
                                codes::DUPLICATE_PLAN_FILE,
                                span,
                                format!("two plan files are named `{stem}.hk`"),
                            )
                            .with_label(format!("`{stem}` is also the stem of `{first_path}`"))
                            .with_secondary(
                                crate::source::Span::new(first, 0..0),
                                "the plans of this file are the ones `File.Plan` names",
                            )
                            .with_note(format!(
                                "agents name plans as `{stem}.Plan`, which would be ambiguous; \
                                 this file's plans cannot be bound"
                            ))
                            .with_help("rename one of the files")
                            .with_note(
                                "This usually happens when two directories with plan files of \
                                 the same name are checked together.",
                            ),
                        );
                        self.shadowed_files.insert(p.file);
                    } else {
                        stems.insert(stem.clone(), p.file);
                    }
                    self.program.add_plan_file(PlanFileInfo {
                        file: p.file,
                        stem,
                        plans: Vec::new(),
                    });
                    self.plan_asts.push(f);
                }
                Module::Values(f) => self.values_asts.push((p.file, f)),
            }
        }
    }

    fn report_unused(&mut self) {
        if self.any_tainted() {
            return;
        }
        agent::report_unused(self);
        plans::report_unused(self);
    }
}

/// The type a written type denotes, or why it is refused: `Err((message, help))`. `Chan` is
/// accepted only when `allow_chan`, and never nested.
pub(crate) fn value_type(t: &TypeExpr, allow_chan: bool) -> Result<Ty, (String, String)> {
    match &t.kind {
        TypeKind::Int => Ok(Ty::Int),
        TypeKind::String => Ok(Ty::String),
        TypeKind::Bool => Ok(Ty::Bool),
        TypeKind::Error => Ok(Ty::Error),
        TypeKind::Float => Err((
            "`Float` is a type of `.hb` values only".into(),
            "use `Int`: beliefs and plans count in mathematical integers".into(),
        )),
        TypeKind::Named(id) => {
            let near = nearest(&id.name, ["Int", "String", "Bool"].into_iter());
            Err((
                format!("there is no type `{}`", id.name),
                match near {
                    Some(n) => format!("did you mean `{n}`? The types are Int, String and Bool"),
                    None => "the types are Int, String and Bool".into(),
                },
            ))
        }
        TypeKind::Chan(inner) => {
            if !allow_chan {
                return Err((
                    "a channel cannot be held here".into(),
                    "beliefs and agent parameters hold values (Int, String, Bool); channels \
                     belong to plans"
                        .into(),
                ));
            }
            if matches!(inner.kind, TypeKind::Chan(_)) {
                return Err((
                    "a channel cannot carry channels".into(),
                    "send the values themselves: use `chan Int`, `chan String` or `chan Bool`"
                        .into(),
                ));
            }
            Ok(Ty::Chan(Box::new(value_type(inner, false)?)))
        }
    }
}

/// The candidate closest to `name` by edit distance, if close enough to be a likely typo.
pub fn nearest<'b>(name: &str, candidates: impl Iterator<Item = &'b str>) -> Option<&'b str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The optimal-string-alignment distance (Levenshtein plus adjacent transpositions),
/// ignoring case.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=m).collect();
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

/// "`a`, `b` and `c`" (or "none").
pub(crate) fn list<S: AsRef<str>>(names: &[S]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{}`", n.as_ref())).collect();
    match quoted.len() {
        0 => "none".into(),
        1 => quoted[0].clone(),
        n => format!("{} and {}", quoted[..n - 1].join(", "), quoted[n - 1]),
    }
}

/// "did you mean `x`? " (or nothing) followed by the list of what exists.
pub(crate) fn suggest<S: AsRef<str>>(name: &str, what: &str, names: &[S]) -> String {
    let near = nearest(name, names.iter().map(|s| s.as_ref()));
    let mut s = match near {
        Some(n) => format!("did you mean `{n}`? "),
        None => String::new(),
    };
    if names.is_empty() {
        s.push_str(&format!("there are no {what}"));
    } else {
        s.push_str(&format!("the {what} are {}", list(names)));
    }
    s
}
