//! Z3's condition analysis on purpose-built agents, the seed free of its warnings, and the cvc5
//! cross-check: every query of every example (and of the purpose-built agents), exported as
//! SMT-LIB, rerun with cvc5, must get the answer Z3 gave.

mod common;

use common::TempDir;
use hilbert_frontend::{check_project, check_project_with, project};
use hilbert_smt::{Answer, Log, Options};
use std::path::Path;
use std::process::Command;

const LINE: &str = "plan Finish() : Operator ≔ believe done(3)\n";

/// An agent `Operator` with these member lines, bound to `Line.Finish`.
fn agent(members: &str) -> TempDir {
    let ha = format!(
        "agent Operator() : Agency\n{{\n  belief done(n: Int)\n  belief busy(n: Int)\n  desire Finished reachable by [Work, Rest]\n  commit single_minded\n{members}\n  plan Work ↦ Line.Finish\n  plan Rest ↦ Line.Finish\n}}\n"
    );
    TempDir::with_files(&[("Operator.ha", ha.as_bytes()), ("Line.hk", LINE.as_bytes())])
}

/// The codes reported for a project, with their lines, and the Z3 log.
fn codes_with(dir: &str, options: Options) -> (Vec<(String, usize)>, Log) {
    let loaded = project::load(&[dir.to_string()]).expect("the project loads");
    let checked = check_project_with(&loaded, options);
    let codes = checked
        .diagnostics
        .iter()
        .map(|d| {
            let line = loaded.sources.get(d.span.file).line_col(d.span.start).0;
            (d.code.to_string(), line)
        })
        .collect();
    (codes, checked.smt)
}

fn codes(dir: &str) -> Vec<(String, usize)> {
    codes_with(dir, Options::default()).0
}

/// The purpose-built agents, each with the code it must report and the line.
fn cases() -> Vec<(&'static str, &'static str, &'static str, usize)> {
    vec![
        (
            "dead rule (linear arithmetic the solver-free check cannot see)",
            "  intend Work for Finished when B(self) done(n) ∧ n * 2 = 5\n  achieved Finished when B(self) done(3)",
            "HA0052",
            7,
        ),
        (
            "adopted and released at once (a bound that pins the value)",
            "  intend Work for Finished when B(self) done(n) ∧ n ≥ 3 ∧ n ≤ 3\n  achieved Finished when B(self) done(3)",
            "HA0053",
            7,
        ),
        (
            "overlapping intends for one desire",
            "  intend Work for Finished when ¬B(self) done(3)\n  intend Rest for Finished when ¬B(self) done(3) ∧ ¬B(self) busy(1)\n  achieved Finished when B(self) done(3)",
            "HA0055",
            8,
        ),
        (
            "duplicate rule (same egg normal form)",
            "  intend Work for Finished when B(self) done(n) ∧ n < 3\n  intend Work for Finished when B(self) done(n) ∧ ¬(3 ≤ n)\n  achieved Finished when B(self) done(3)",
            "HA0056",
            8,
        ),
        (
            "subsumed rule",
            "  intend Work for Finished when ¬B(self) done(3) ∧ ¬B(self) busy(1)\n  intend Rest for Finished when B(self) busy(1) ∧ ¬B(self) done(3)\n  achieved Finished when B(self) done(3)\n  achieved Finished when B(self) done(n) ∧ n ≥ 3 ∧ n < 5",
            "HA0057",
            9,
        ),
    ]
}

#[test]
fn condition_warnings_on_purpose_built_agents() {
    let mut failures = Vec::new();
    for (what, members, code, line) in cases() {
        let dir = agent(members);
        let got = codes(&dir.path());
        if !got.iter().any(|(c, l)| c == code && *l == line) {
            failures.push(format!(
                "{what}: expected {code} at line {line}, got {got:?}"
            ));
        }
        let others: Vec<_> = got
            .iter()
            .filter(|(c, _)| {
                ["HA0052", "HA0053", "HA0055", "HA0056", "HA0057"].contains(&c.as_str())
                    && c != code
            })
            .collect();
        if !others.is_empty() {
            failures.push(format!("{what}: unexpected {others:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_seed_has_no_condition_warning() {
    let got = codes("examples/production-line");
    let analysis: Vec<_> = got
        .iter()
        .filter(|(c, _)| ["HA0052", "HA0053", "HA0055", "HA0056", "HA0057"].contains(&c.as_str()))
        .collect();
    assert!(analysis.is_empty(), "{analysis:?}");
}

#[test]
fn a_query_z3_cannot_decide_gives_no_warning() {
    // x³ + y³ = z³ has no solution in positive integers, but nonlinear integer arithmetic is
    // undecidable: Z3 answers unknown (or times out), and unknown is never taken as unsat.
    let dir = agent(
        "  intend Work for Finished when B(self) done(x) ∧ B(self) busy(y) ∧ B(self) done(z) ∧ x > 0 ∧ y > 0 ∧ z > 0 ∧ x * x * x + y * y * y = z * z * z\n  achieved Finished when B(self) done(3)",
    );
    let (got, log) = codes_with(
        &dir.path(),
        Options {
            timeout_ms: 200,
            ..Options::default()
        },
    );
    assert!(
        !got.iter().any(|(c, _)| c == "HA0052"),
        "a dead-rule warning rests on an undecided query: {got:?}"
    );
    let q = log
        .queries
        .iter()
        .find(|q| q.name == "Operator.dead.intend-0")
        .expect("the query was asked");
    assert!(
        matches!(q.answer, Answer::Unknown(_)),
        "Z3 decided Fermat's n = 3 ({:?})",
        q.answer
    );
}

fn cvc5() -> &'static str {
    let ok = Command::new("cvc5").arg("--version").output();
    if !matches!(ok, Ok(o) if o.status.success()) {
        panic!(
            "cvc5 is not installed: the SMT-LIB cross-check needs it. Install it with `bash scripts/setup` (Debian: `apt-get install cvc5`)"
        );
    }
    "cvc5"
}

/// Reruns every query of a log with cvc5; returns the disagreements.
fn cross_check(label: &str, log: &Log, out: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    log.write(out).expect("write the queries");
    for q in &log.queries {
        let path = out.join(format!("{}.smt2", q.name));
        let text = std::fs::read_to_string(&path).expect("read a query back");
        assert!(
            text.contains(&format!("; expected: {}", q.answer.word())),
            "{label}/{}: the file does not carry the expected answer",
            q.name
        );
        let run = Command::new(cvc5())
            .args(["--lang", "smt2", "--tlimit=20000"])
            .arg(&path)
            .output()
            .expect("run cvc5");
        let said = String::from_utf8_lossy(&run.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let agree = match &q.answer {
            Answer::Unknown(_) => true, // Z3 claimed nothing; cvc5 may know more.
            a => said == a.word(),
        };
        if !agree {
            bad.push(format!(
                "{label}/{}: Z3 said {}, cvc5 said {said:?} ({})",
                q.name,
                q.answer.word(),
                String::from_utf8_lossy(&run.stderr).trim()
            ));
        }
    }
    bad
}

#[test]
fn cvc5_agrees_with_z3_on_every_exported_query() {
    cvc5();
    let mut bad = Vec::new();
    let mut total = 0;
    let out = TempDir::with_files(&[]);
    let mut dirs: Vec<_> = std::fs::read_dir("examples")
        .expect("list the examples")
        .map(|e| e.expect("an example").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let loaded = project::load(&[dir.display().to_string()]).expect("an example loads");
        let checked = check_project(&loaded);
        let label = dir.display().to_string();
        total += checked.smt.queries.len();
        bad.extend(cross_check(
            &label,
            &checked.smt,
            &out.0.join(dir.file_name().expect("a name")),
        ));
    }
    for (i, (what, members, _, _)) in cases().into_iter().enumerate() {
        let dir = agent(members);
        let (_, log) = codes_with(&dir.path(), Options::default());
        total += log.queries.len();
        bad.extend(cross_check(what, &log, &out.0.join(format!("case-{i}"))));
    }
    assert!(total > 20, "only {total} queries were exported");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn build_emits_the_queries_with_emit_smt() {
    let out = TempDir::with_files(&[]);
    let smt = out.join("smt");
    let status = Command::new(env!("CARGO_BIN_EXE_hilbert"))
        .args(["build", "examples/production-line", "--out"])
        .arg(out.join("certs"))
        .args(["--smt-timeout", "5000", "--emit-smt"])
        .arg(&smt)
        .output()
        .expect("run hilbert build");
    assert_eq!(status.status.code(), Some(0), "{status:?}");
    let files: Vec<_> = std::fs::read_dir(&smt)
        .expect("the directory was written")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert!(files.len() >= 9, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        assert!(text.starts_with("; "), "{f:?}");
        assert!(text.contains("; expected: "), "{f:?}");
        assert!(text.contains("(check-sat)"), "{f:?}");
    }
}
