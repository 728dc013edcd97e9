//! The pipeline recipe of `docs/ci.md` works: the commands of `docs/ci/github-actions.yml` (its
//! `run` steps) and `docs/ci/gitlab-ci.yml` (its `script` lists) run here, job after job as the
//! CI would order them, against a copy of `examples/production-line` in a temporary directory,
//! with the built binary as `hilbert` on the PATH. They pass; the JUnit and SARIF files they write
//! parse; a second run, with the first's `--out` kept as a cache would keep it, reuses every
//! network; and on a project with a refuted theorem the gate fails while the reports are still
//! written, and the later jobs do not run.
//!
//! Only the installation is not run (`Install hilbert` steps, GitLab's `before_script`), and the
//! test checks that it installs and does nothing else. The workflow files are read by a small
//! reader of the YAML they use (block mappings and sequences, literal `|` blocks, `[a, b]`,
//! plain and quoted scalars, comments), which refuses anything else — anchors, folded blocks,
//! flow mappings, tabs, a plain scalar with `: ` or ` #` in it — so that it can never read a file
//! differently from a real YAML parser without saying so. (serde_yaml, the usual crate, is no
//! longer maintained, and the subset these two files use is small enough to read here, strictly.)

#![cfg(unix)]

mod common;

use common::TempDir;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

// ---------------------------------------------------------------------------------------------
// A reader for the YAML the workflow files use.

/// A YAML value: the three kinds a workflow file has. An empty value is the empty string.
#[derive(Clone, Debug, PartialEq)]
enum Yaml {
    Str(String),
    List(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> &str {
        match self {
            Yaml::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    fn map(&self) -> &[(String, Yaml)] {
        match self {
            Yaml::Map(entries) => entries,
            other => panic!("not a mapping: {other:?}"),
        }
    }

    fn list(&self) -> &[Yaml] {
        match self {
            Yaml::List(items) => items,
            other => panic!("not a list: {other:?}"),
        }
    }

    /// A string, or a list of strings, as a list.
    fn strings(&self) -> Vec<String> {
        match self {
            Yaml::Str(s) if s.is_empty() => Vec::new(),
            Yaml::Str(s) => vec![s.clone()],
            Yaml::List(items) => items.iter().map(|i| i.str().to_string()).collect(),
            other => panic!("not a string or a list: {other:?}"),
        }
    }
}

/// One line: its indentation and its text (`None` for a blank or comment line).
struct Line<'a> {
    number: usize,
    indent: usize,
    raw: &'a str,
    text: Option<String>,
}

struct Reader<'a> {
    lines: Vec<Line<'a>>,
    at: usize,
    file: &'a str,
}

/// Reads a YAML file, or says where and why it cannot.
fn try_parse_yaml(file: &str, source: &str) -> Result<Yaml, String> {
    let mut lines = Vec::new();
    for (i, raw) in source.lines().enumerate() {
        if raw.contains('\t') {
            return Err(format!("{file}:{}: a tab", i + 1));
        }
        let trimmed = raw.trim_start();
        let text = (!trimmed.is_empty() && !trimmed.starts_with('#'))
            .then(|| trimmed.trim_end().to_string());
        lines.push(Line {
            number: i + 1,
            indent: raw.len() - trimmed.len(),
            raw,
            text,
        });
    }
    let mut r = Reader { lines, at: 0, file };
    let value = r.node(0)?;
    r.skip_blank();
    if r.at < r.lines.len() {
        return Err(r.fail("not read (wrong indentation?)"));
    }
    Ok(value)
}

fn parse_yaml(file: &str, source: &str) -> Yaml {
    try_parse_yaml(file, source).unwrap_or_else(|e| panic!("{e}"))
}

impl Reader<'_> {
    fn skip_blank(&mut self) {
        while self.at < self.lines.len() && self.lines[self.at].text.is_none() {
            self.at += 1;
        }
    }

    /// The next line with text, if it is indented by exactly `indent`.
    fn next_at(&mut self, indent: usize) -> Result<Option<String>, String> {
        self.skip_blank();
        let Some(line) = self.lines.get(self.at) else {
            return Ok(None);
        };
        if line.indent > indent {
            return Err(self.fail("indented deeper than expected"));
        }
        Ok((line.indent == indent).then(|| line.text.clone().unwrap_or_default()))
    }

    fn fail(&self, why: &str) -> String {
        let number = self.lines.get(self.at).map_or(0, |l| l.number);
        format!("{}:{number}: {why}", self.file)
    }

    /// The value whose lines begin at the next line with text, indented by `indent`.
    fn node(&mut self, indent: usize) -> Result<Yaml, String> {
        match self.next_at(indent)? {
            Some(text) if text == "-" || text.starts_with("- ") => self.list(indent),
            Some(_) => self.map(indent),
            None => Err(self.fail("expected a value")),
        }
    }

    fn list(&mut self, indent: usize) -> Result<Yaml, String> {
        let mut items = Vec::new();
        while let Some(text) = self.next_at(indent)? {
            let Some(rest) = text.strip_prefix("- ") else {
                break;
            };
            let rest = rest.trim_start().to_string();
            if key_value(&rest).is_some() {
                // `- key: value`: a mapping whose first entry is on this line.
                let inner = indent + 2 + (text.len() - 2 - rest.len());
                self.lines[self.at].indent = inner;
                self.lines[self.at].text = Some(rest);
                items.push(self.map(inner)?);
            } else {
                items.push(self.inline(&rest)?);
                self.at += 1;
            }
        }
        Ok(Yaml::List(items))
    }

    fn map(&mut self, indent: usize) -> Result<Yaml, String> {
        let mut entries: Vec<(String, Yaml)> = Vec::new();
        while let Some(text) = self.next_at(indent)? {
            if text.starts_with("- ") {
                break;
            }
            let Some((key, rest)) = key_value(&text) else {
                return Err(self.fail(&format!("expected `key: value`, found `{text}`")));
            };
            if entries.iter().any(|(k, _)| *k == key) {
                return Err(self.fail(&format!("`{key}` twice")));
            }
            let value = if rest == "|" || rest == "|-" {
                self.at += 1;
                self.literal(indent, rest == "|")?
            } else if !rest.is_empty() {
                let value = self.inline(&rest)?;
                self.at += 1;
                value
            } else {
                self.at += 1;
                self.skip_blank();
                match self.lines.get(self.at) {
                    Some(l) if l.indent > indent => self.node(l.indent)?,
                    // A list may stand at its key's indentation.
                    Some(l)
                        if l.indent == indent
                            && l.text.as_deref().is_some_and(|t| t.starts_with("- ")) =>
                    {
                        self.list(indent)?
                    }
                    _ => Yaml::Str(String::new()),
                }
            };
            entries.push((key, value));
        }
        Ok(Yaml::Map(entries))
    }

    /// A literal block (`|`): the lines indented deeper than its key, less their common
    /// indentation, each ending with a line feed (`|-`: not the last).
    fn literal(&mut self, indent: usize, keep: bool) -> Result<Yaml, String> {
        let start = self.at;
        let mut end = start;
        while end < self.lines.len()
            && (self.lines[end].raw.trim().is_empty() || self.lines[end].indent > indent)
        {
            end += 1;
        }
        while end > start && self.lines[end - 1].raw.trim().is_empty() {
            end -= 1;
        }
        let Some(first) = self.lines[start..end]
            .iter()
            .find(|l| !l.raw.trim().is_empty())
        else {
            return Err(self.fail("an empty block"));
        };
        let block = first.indent;
        let mut text = String::new();
        for l in &self.lines[start..end] {
            text.push_str(l.raw.get(block..).unwrap_or(""));
            text.push('\n');
        }
        if !keep {
            text.pop();
        }
        self.at = end;
        Ok(Yaml::Str(text))
    }

    /// A value on the rest of a line: `[a, b]`, a quoted scalar, or a plain one.
    fn inline(&self, text: &str) -> Result<Yaml, String> {
        if let Some(inner) = text.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(self.fail("a flow sequence must end on its line"));
            };
            let items: Result<Vec<Yaml>, String> = inner
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| self.scalar(s))
                .collect();
            return Ok(Yaml::List(items?));
        }
        self.scalar(text)
    }

    fn scalar(&self, text: &str) -> Result<Yaml, String> {
        for quote in ['"', '\''] {
            let Some(inner) = text.strip_prefix(quote) else {
                continue;
            };
            // The closing quote ('' is a quote inside single quotes), then perhaps a comment.
            let mut chars = inner.char_indices().peekable();
            let mut value = String::new();
            let end = loop {
                match chars.next() {
                    None => return Err(self.fail("a quoted scalar must end on its line")),
                    Some((_, '\\')) if quote == '"' => {
                        return Err(self.fail("escapes in double quotes are not read here"));
                    }
                    Some((_, '\'')) if quote == '\'' && chars.peek().map(|c| c.1) == Some('\'') => {
                        chars.next();
                        value.push('\'');
                    }
                    Some((i, c)) if c == quote => break i + 1,
                    Some((_, c)) => value.push(c),
                }
            };
            let rest = inner[end..].trim();
            if !(rest.is_empty() || rest.starts_with('#')) {
                return Err(self.fail(&format!("text after a quoted scalar: `{text}`")));
            }
            return Ok(Yaml::Str(value));
        }
        // A comment after a value.
        let text = match text.find(" #") {
            Some(i) => text[..i].trim_end(),
            None => text,
        };
        // What starts something else in YAML, or would end a plain scalar early.
        if text.starts_with(['{', '&', '*', '!', '>', '|', '%', '@', '`', ']', '}', ','])
            || text.contains(": ")
            || text.ends_with(':')
        {
            return Err(self.fail(&format!("not read here: `{text}`")));
        }
        Ok(Yaml::Str(text.to_string()))
    }
}

/// `key: value` or `key:` (a plain key), or `None`.
fn key_value(text: &str) -> Option<(String, String)> {
    let (key, rest) = match text.split_once(": ") {
        Some((k, r)) => (k, r.trim()),
        None => (text.strip_suffix(':')?, ""),
    };
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '$'));
    plain.then(|| (key.to_string(), rest.to_string()))
}

#[test]
fn the_reader_reads_what_a_workflow_has_and_refuses_the_rest() {
    let y = parse_yaml(
        "t.yml",
        "# c\na: 1\nb:\n  - x\n  - k: v\n    l: |\n      one\n\n      two\n  - [p, q]\nc:\n- 'it''s'\nd: \"q\" # note\ne:\n",
    );
    assert_eq!(y.get("a").unwrap().str(), "1");
    let b = y.get("b").unwrap().list();
    assert_eq!(b[0].str(), "x");
    assert_eq!(b[1].get("k").unwrap().str(), "v");
    assert_eq!(b[1].get("l").unwrap().str(), "one\n\ntwo\n");
    assert_eq!(b[2].strings(), ["p", "q"]);
    assert_eq!(y.get("c").unwrap().strings(), ["it's"]);
    assert_eq!(y.get("d").unwrap().str(), "q");
    assert_eq!(y.get("e").unwrap().str(), "");
    for bad in [
        "a: {b: c}\n",
        "a: &x 1\n",
        "a: >\n  folded\n",
        "a:\n\tb: 1\n",
        "a: echo b: c\n",
        "a: 1\na: 2\n",
        "a: 1\n   b: 2\n",
    ] {
        assert!(try_parse_yaml("bad.yml", bad).is_err(), "read {bad:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Running a pipeline here.

/// One job of a pipeline: its name, the jobs it needs, its commands (each a shell script, run
/// with `bash -e`, and whether it runs after a failed one), and the reports it publishes.
struct Job {
    name: String,
    needs: Vec<String>,
    steps: Vec<(String, bool)>,
}

/// A pipeline as read from a workflow file: its variables, its jobs in order, and the JUnit and
/// SARIF files it publishes.
struct Pipeline {
    variables: BTreeMap<String, String>,
    jobs: Vec<Job>,
    junit: Vec<String>,
    sarif: Vec<String>,
    /// What is not run: the installation.
    installs: Vec<String>,
}

fn read(path: &str) -> Yaml {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    parse_yaml(path, &std::fs::read_to_string(&full).expect(path))
}

fn variables(map: &Yaml) -> BTreeMap<String, String> {
    map.map()
        .iter()
        .map(|(k, v)| (k.clone(), v.str().to_string()))
        .collect()
}

fn github() -> Pipeline {
    let wf = read("docs/ci/github-actions.yml");
    let mut p = Pipeline {
        variables: variables(wf.get("env").expect("env")),
        jobs: Vec::new(),
        junit: Vec::new(),
        sarif: Vec::new(),
        installs: Vec::new(),
    };
    for (name, job) in wf.get("jobs").expect("jobs").map() {
        let mut steps = Vec::new();
        for step in job.get("steps").expect("steps").list() {
            let always = step.get("if").is_some_and(|c| c.str().contains("always()"));
            let with = step.get("with");
            if let Some(uses) = step.get("uses").map(Yaml::str) {
                assert!(step.get("run").is_none());
                let with = |key: &str| with.and_then(|w| w.get(key)).map(Yaml::strings);
                if uses.starts_with("mikepenz/action-junit-report") {
                    p.junit.extend(with("report_paths").expect("report_paths"));
                }
                if uses.starts_with("github/codeql-action/upload-sarif") {
                    p.sarif.extend(with("sarif_file").expect("sarif_file"));
                }
                continue;
            }
            let run = step.get("run").expect("a step runs or uses").str();
            if step
                .get("name")
                .is_some_and(|n| n.str().starts_with("Install hilbert"))
            {
                p.installs.extend(run.lines().map(str::to_string));
                continue;
            }
            steps.push((run.to_string(), always));
        }
        p.jobs.push(Job {
            name: name.clone(),
            needs: job.get("needs").map(Yaml::strings).unwrap_or_default(),
            steps,
        });
    }
    p
}

fn gitlab() -> Pipeline {
    let wf = read("docs/ci/gitlab-ci.yml");
    let stages = wf.get("stages").expect("stages").strings();
    let default = wf.get("default").expect("default");
    let mut p = Pipeline {
        variables: variables(wf.get("variables").expect("variables")),
        jobs: Vec::new(),
        junit: Vec::new(),
        sarif: Vec::new(),
        installs: default
            .get("before_script")
            .expect("before_script")
            .strings(),
    };
    let mut jobs: Vec<(usize, Job)> = Vec::new();
    for (name, job) in wf.map() {
        if ["variables", "stages", "default", "include", "workflow"].contains(&name.as_str()) {
            continue;
        }
        let stage = job.get("stage").expect("stage").str();
        let index = stages
            .iter()
            .position(|s| s == stage)
            .expect("a declared stage");
        if let Some(before) = job.get("before_script") {
            assert_eq!(
                before.strings(),
                Vec::<String>::new(),
                "{name}: before_script"
            );
        }
        if let Some(artifacts) = job.get("artifacts") {
            if let Some(junit) = artifacts.get("reports").and_then(|r| r.get("junit")) {
                p.junit.extend(junit.strings());
            }
            if let Some(paths) = artifacts.get("paths") {
                p.sarif.extend(
                    paths
                        .strings()
                        .into_iter()
                        .filter(|f| f.ends_with(".sarif")),
                );
            }
        }
        // GitLab runs a job's script as one shell that stops at the first failing line.
        let steps = job
            .get("script")
            .expect("script")
            .strings()
            .into_iter()
            .map(|line| (line, false))
            .collect();
        jobs.push((
            index,
            Job {
                name: name.clone(),
                needs: job.get("needs").map(Yaml::strings).unwrap_or_default(),
                steps,
            },
        ));
    }
    jobs.sort_by_key(|(i, _)| *i);
    p.jobs = jobs.into_iter().map(|(_, j)| j).collect();
    p
}

/// What running a pipeline did: per job, whether it ran and passed, and every step's exit code.
#[derive(Debug)]
struct Ran {
    jobs: BTreeMap<String, Option<bool>>,
    log: String,
}

/// Runs `p`'s jobs in `dir` with the built binary as `hilbert` on the PATH, its variables set
/// (with `overrides`). A job runs only when every job it needs ran and passed; in a job, a step
/// runs after a failed one only when it says so (`if: always()`).
fn run(p: &Pipeline, dir: &Path, overrides: &[(&str, &str)]) -> Ran {
    let bin = dir.join(".bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("hilbert");
    if !link.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hilbert"), &link).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut jobs: BTreeMap<String, Option<bool>> = BTreeMap::new();
    let mut log = String::new();
    for job in &p.jobs {
        for need in &job.needs {
            assert!(
                jobs.contains_key(need),
                "{} needs {need}, which comes later or not at all",
                job.name
            );
        }
        if job.needs.iter().any(|n| jobs[n] != Some(true)) {
            log.push_str(&format!("job {}: not run\n", job.name));
            jobs.insert(job.name.clone(), None);
            continue;
        }
        let mut passed = true;
        for (script, always) in &job.steps {
            if !passed && !always {
                continue;
            }
            let mut command = Command::new("bash");
            command
                .args(["--noprofile", "--norc", "-e", "-c", script])
                .current_dir(dir)
                .env("PATH", &path)
                .envs(&p.variables)
                .envs(overrides.iter().copied());
            let out = command.output().expect("run bash");
            log.push_str(&format!(
                "job {}: `{script}` exited {:?}\n{}",
                job.name,
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
            passed &= out.status.success();
        }
        jobs.insert(job.name.clone(), Some(passed));
    }
    Ran { jobs, log }
}

/// A copy of the examples the recipe runs on, under `examples/` of a fresh directory, as in the
/// repository whose pipeline it is.
fn checkout() -> TempDir {
    let tmp = TempDir::with_files(&[]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for example in ["production-line", "livelock"] {
        let from = root.join("examples").join(example);
        let to = tmp.0.join("examples").join(example);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }
    tmp
}

/// The JUnit report at `path` under `dir`, parsed: its totals (tests, failures, errors) and the
/// `reused` property of every suite that has one.
fn junit(dir: &Path, path: &str) -> ((usize, usize, usize), Vec<String>) {
    let text = std::fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{path} is not well-formed XML: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites", "{path}");
    let count = |a: &str| -> usize { root.attribute(a).unwrap().parse().unwrap() };
    let reused = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "property" && n.attribute("name") == Some("reused"))
        .map(|n| n.attribute("value").unwrap().to_string())
        .collect();
    ((count("tests"), count("failures"), count("errors")), reused)
}

/// The SARIF log at `path` under `dir`, parsed: its results' rule ids.
fn sarif(dir: &Path, path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let log: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"));
    assert_eq!(log["version"], "2.1.0", "{path}");
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap().to_string())
        .collect()
}

fn check_pipeline(p: &Pipeline, what: &str) {
    // What is not run only installs: Z3's library, the commit of hilbert to install, and the
    // binary (unless the tool cache holds the one of that commit).
    assert!(!p.installs.is_empty(), "{what}: no installation");
    for line in &p.installs {
        let line = line.trim_start_matches("sudo ");
        let installs = line.starts_with("apt-get ")
            || line.starts_with("cargo install ")
            || line.starts_with("export PATH=")
            || line.starts_with("echo \"$HILBERT_COMMIT\" > .hilbert-tool/commit")
            || ((line.starts_with("export HILBERT_COMMIT=") || line.starts_with("echo \"commit="))
                && line.contains(
                    "git ls-remote https://github.com/hilbert-bdi/hilbert \"$HILBERT_REF\"",
                ))
            || (line.starts_with("test ")
                && line
                    .split_once(" || ")
                    .is_some_and(|(_, then)| then.starts_with("cargo install ")));
        assert!(
            installs,
            "{what}: an installation line that does something else: {line}"
        );
    }
    assert_eq!(
        p.variables.get("HILBERT_PROJECT").map(String::as_str),
        Some("examples/production-line"),
        "{what}"
    );
    assert!(p.junit.len() >= 2, "{what}: JUnit reports {:?}", p.junit);
    assert!(!p.sarif.is_empty(), "{what}: no SARIF log");
    let commands: String = p
        .jobs
        .iter()
        .flat_map(|j| &j.steps)
        .map(|s| &s.0)
        .cloned()
        .collect();
    for needed in [
        "hilbert build \"$HILBERT_PROJECT\" --out \"$HILBERT_OUT\"",
        "--report junit=",
        "--report sarif=",
        "hilbert verify \"$HILBERT_OUT\"/*.cert --sources \"$HILBERT_PROJECT\"",
    ] {
        assert!(commands.contains(needed), "{what}: no `{needed}`");
    }
    // One build per job (issue 33): the gate writes the reports, so a failing project is
    // explored once, not once per report.
    for (job, command) in [("prove", "hilbert build"), ("verify", "hilbert verify")] {
        let job = p.jobs.iter().find(|j| j.name == job).expect(job);
        let runs: usize = job.steps.iter().map(|s| s.0.matches(command).count()).sum();
        assert_eq!(
            runs, 1,
            "{what}: `{command}` runs {runs} times in {}",
            job.name
        );
    }

    // The seed is admitted: every job passes, and the reports say so.
    let dir = checkout();
    let ran = run(p, &dir.0, &[]);
    assert!(
        ran.jobs.values().all(|j| *j == Some(true)),
        "{what}: {:?}\n{}",
        ran.jobs,
        ran.log
    );
    for path in &p.junit {
        let ((tests, failures, errors), _) = junit(&dir.0, path);
        assert!(tests > 0 && failures == 0 && errors == 0, "{what}: {path}");
    }
    for path in &p.sarif {
        // No theorem is a result, and proving the seed warns nothing (its release is proved
        // over the alarm arriving from outside).
        assert!(sarif(&dir.0, path).is_empty(), "{what}: {path}");
    }
    assert!(dir.0.join("target/hilbert/Operator.Work.cert").exists());

    // Again, with the --out directory kept (as a cache restores it): every network reused, and
    // every certificate still re-checked (the verify job passes on them).
    let again = run(p, &dir.0, &[]);
    assert!(
        again.jobs.values().all(|j| *j == Some(true)),
        "{what}: {}",
        again.log
    );
    let build_junit = p.junit.first().unwrap();
    let (_, reused) = junit(&dir.0, build_junit);
    assert!(
        !reused.is_empty() && reused.iter().all(|r| r == "true"),
        "{what}: {reused:?}"
    );

    // A refuted theorem: the prove job fails, its reports are written and say why, and neither
    // verify nor release runs.
    let dir = checkout();
    let ran = run(p, &dir.0, &[("HILBERT_PROJECT", "examples/livelock")]);
    assert_eq!(ran.jobs["prove"], Some(false), "{what}: {}", ran.log);
    assert_eq!(ran.jobs["verify"], None, "{what}");
    assert_eq!(ran.jobs["release"], None, "{what}");
    let ((_, failures, _), reused) = junit(&dir.0, build_junit);
    assert!(failures > 0, "{what}");
    assert!(reused.iter().all(|r| r == "false"), "{what}: {reused:?}");
    for path in &p.sarif {
        assert!(
            sarif(&dir.0, path).contains(&"theorem-refuted".to_string()),
            "{what}: {path}"
        );
    }
    // Its next pipeline, with the cache: the refuted network is not explored again (its
    // certificate re-checked, its counterexample replayed), and the reports say the same.
    let again = run(p, &dir.0, &[("HILBERT_PROJECT", "examples/livelock")]);
    assert_eq!(again.jobs["prove"], Some(false), "{what}: {}", again.log);
    let ((_, failures_again, _), reused) = junit(&dir.0, build_junit);
    assert_eq!(failures_again, failures, "{what}");
    assert!(
        !reused.is_empty() && reused.iter().all(|r| r == "true"),
        "{what}: {reused:?}"
    );
}

#[test]
fn the_github_actions_workflow_runs_here() {
    let p = github();
    assert_eq!(
        p.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
        ["prove", "verify", "release"]
    );
    check_pipeline(&p, "github-actions.yml");
}

#[test]
fn the_gitlab_ci_pipeline_runs_here() {
    let p = gitlab();
    assert_eq!(
        p.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
        ["prove", "verify", "release"]
    );
    check_pipeline(&p, "gitlab-ci.yml");
}

// ---------------------------------------------------------------------------------------------
// Linting the CI files, so that they cannot rot (issue 33: the workflow's actions ran on a
// Node.js that GitHub removes, and no job had a timeout).

/// The oldest major version of each action the workflow may use: the first that runs on
/// Node.js 24 (`runs.using: node24`). An action not listed here is refused until it is added,
/// with the major that brought Node.js 24.
const NODE24: &[(&str, u32)] = &[
    ("actions/checkout", 5),
    ("actions/cache", 5),
    ("actions/upload-artifact", 6),
    ("actions/download-artifact", 7),
    ("github/codeql-action/upload-sarif", 4),
    ("mikepenz/action-junit-report", 6),
];

/// `actionlint` (installed by `scripts/setup`), run on `path`: its exit code and findings.
fn actionlint(path: &Path) -> (Option<i32>, String) {
    let out = Command::new("actionlint")
        .args(["-no-color", "-oneline"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run actionlint ({e}): it lints the GitHub workflow; ./scripts/setup installs it (with shellcheck, which it runs on each script)"
            )
        });
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn the_github_workflow_passes_actionlint() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/github-actions.yml");
    let (code, findings) = actionlint(&path);
    assert_eq!(code, Some(0), "actionlint finds:\n{findings}");
    assert!(findings.trim().is_empty(), "{findings}");
    // And it would find what issue 33 found: an action on Node.js 20, a script that
    // shellcheck refuses.
    let tmp = TempDir::with_files(&[(
        "old.yml",
        b"on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    timeout-minutes: 5\n    steps:\n      - uses: actions/checkout@v4\n      - run: echo $UNQUOTED > $HOME/x\n",
    )]);
    let (code, findings) = actionlint(&tmp.0.join("old.yml"));
    assert_eq!(code, Some(1), "{findings}");
    assert!(findings.contains("node20"), "{findings}");
    assert!(findings.contains("shellcheck"), "{findings}");
}

/// Whether `text` is a GitLab duration of at most a day in whole minutes or hours (`60
/// minutes`, `1h 30m`, `2 hours`): what the file uses, read strictly.
fn gitlab_minutes(text: &str) -> Option<u32> {
    let mut minutes = 0;
    let mut words = text.split_whitespace().peekable();
    while let Some(word) = words.next() {
        let (number, unit) = match word.find(|c: char| !c.is_ascii_digit()) {
            Some(0) | None => (word, words.next()?),
            Some(i) => (&word[..i], &word[i..]),
        };
        let n: u32 = number.parse().ok()?;
        minutes += match unit {
            "m" | "min" | "minute" | "minutes" => n,
            "h" | "hour" | "hours" => n * 60,
            _ => return None,
        };
    }
    (1..=24 * 60).contains(&minutes).then_some(minutes)
}

#[test]
fn both_ci_files_have_current_actions_timeouts_and_a_tool_cache() {
    // GitHub: the keys the workflow syntax allows where the file uses them; every action on
    // Node.js 24; a timeout on every job; the installed tool cached in every job that
    // installs it.
    let wf = read("docs/ci/github-actions.yml");
    let known = |what: &str, map: &Yaml, allowed: &[&str]| {
        for (key, _) in map.map() {
            assert!(
                allowed.contains(&key.as_str()),
                "{what}: unknown key `{key}`"
            );
        }
    };
    known(
        "workflow",
        &wf,
        &[
            "name",
            "on",
            "env",
            "jobs",
            "permissions",
            "concurrency",
            "defaults",
        ],
    );
    let jobs = wf.get("jobs").expect("jobs").map();
    for (name, job) in jobs {
        known(
            name,
            job,
            &[
                "needs",
                "if",
                "runs-on",
                "timeout-minutes",
                "permissions",
                "steps",
                "env",
                "environment",
                "concurrency",
                "outputs",
                "strategy",
                "continue-on-error",
                "name",
            ],
        );
        let timeout: u32 = job
            .get("timeout-minutes")
            .unwrap_or_else(|| panic!("job {name} has no timeout-minutes"))
            .str()
            .parse()
            .unwrap_or_else(|_| panic!("job {name}: timeout-minutes is not a number"));
        assert!(
            (1..=360).contains(&timeout),
            "job {name}: {timeout} minutes"
        );
        for need in job.get("needs").map(Yaml::strings).unwrap_or_default() {
            assert!(jobs.iter().any(|(n, _)| *n == need), "{name} needs {need}");
        }
        let steps = job.get("steps").expect("steps").list();
        let mut installs = false;
        let mut tool_cache = false;
        for step in steps {
            known(
                &format!("{name}: step"),
                step,
                &[
                    "name",
                    "id",
                    "if",
                    "uses",
                    "run",
                    "with",
                    "env",
                    "shell",
                    "continue-on-error",
                    "timeout-minutes",
                    "working-directory",
                ],
            );
            assert!(
                step.get("uses").is_some() != step.get("run").is_some(),
                "{name}: a step either uses an action or runs a script"
            );
            if let Some(uses) = step.get("uses").map(Yaml::str) {
                let (action, version) = uses
                    .split_once('@')
                    .unwrap_or_else(|| panic!("{name}: `{uses}` names no version"));
                let major: u32 = version
                    .strip_prefix('v')
                    .and_then(|v| v.split('.').next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("{name}: `{uses}`: not a version vN"));
                let oldest = NODE24
                    .iter()
                    .find(|(a, _)| *a == action)
                    .unwrap_or_else(|| {
                        panic!("{name}: `{action}` is not in NODE24: add it with the major that runs on Node.js 24")
                    })
                    .1;
                assert!(
                    major >= oldest,
                    "{name}: `{uses}` runs on Node.js 20; use v{oldest} or later"
                );
                if action == "actions/cache"
                    && step
                        .get("with")
                        .and_then(|w| w.get("path"))
                        .is_some_and(|p| p.str() == "~/.cargo/bin/hilbert")
                {
                    let key = step.get("with").unwrap().get("key").unwrap().str();
                    assert!(
                        key.contains("steps.hilbert.outputs.commit"),
                        "{name}: the tool cache's key is not the commit: {key}"
                    );
                    tool_cache = true;
                }
            }
            if step
                .get("run")
                .is_some_and(|r| r.str().contains("cargo install"))
            {
                installs = true;
                assert!(tool_cache, "{name}: installs hilbert before restoring it");
            }
        }
        assert_eq!(
            installs, tool_cache,
            "{name}: installs without a tool cache"
        );
    }

    // GitLab: known job keys, declared stages, existing needs, a timeout for every job (its own
    // or the default), and the tool cache in every job that installs.
    let ci = read("docs/ci/gitlab-ci.yml");
    let stages = ci.get("stages").expect("stages").strings();
    let default = ci.get("default").expect("default");
    known(
        "default",
        default,
        &[
            "image",
            "before_script",
            "after_script",
            "timeout",
            "cache",
            "tags",
        ],
    );
    let default_timeout = default.get("timeout").map(|t| {
        gitlab_minutes(t.str()).unwrap_or_else(|| panic!("default timeout `{}`", t.str()))
    });
    let jobs: Vec<&(String, Yaml)> = ci
        .map()
        .iter()
        .filter(|(k, _)| {
            !["variables", "stages", "default", "include", "workflow"].contains(&k.as_str())
        })
        .collect();
    for (name, job) in &jobs {
        known(
            name,
            job,
            &[
                "stage",
                "needs",
                "script",
                "before_script",
                "after_script",
                "cache",
                "artifacts",
                "rules",
                "image",
                "timeout",
                "variables",
                "tags",
                "when",
            ],
        );
        let stage = job.get("stage").expect("stage").str();
        assert!(stages.iter().any(|s| s == stage), "{name}: stage {stage}");
        for need in job.get("needs").map(Yaml::strings).unwrap_or_default() {
            assert!(jobs.iter().any(|(n, _)| *n == need), "{name} needs {need}");
        }
        let timeout = match job.get("timeout") {
            Some(t) => {
                gitlab_minutes(t.str()).unwrap_or_else(|| panic!("{name}: timeout `{}`", t.str()))
            }
            None => default_timeout.unwrap_or_else(|| panic!("{name} has no timeout")),
        };
        assert!(timeout <= 6 * 60, "{name}: {timeout} minutes");
        let installs = job
            .get("before_script")
            .is_none_or(|b| !b.strings().is_empty());
        let tool_cache = job.get("cache").is_some_and(|c| {
            c.list().iter().any(|entry| {
                known(
                    &format!("{name}: cache"),
                    entry,
                    &["key", "paths", "policy", "when"],
                );
                entry
                    .get("key")
                    .is_some_and(|k| k.str() == "hilbert-tool-$HILBERT_REF")
                    && entry
                        .get("paths")
                        .is_some_and(|p| p.strings() == [".hilbert-tool/"])
            })
        });
        assert_eq!(
            installs, tool_cache,
            "{name}: installs without the tool cache, or the reverse"
        );
    }
    assert!(gitlab_minutes("1h 30m") == Some(90) && gitlab_minutes("soon").is_none());
}
