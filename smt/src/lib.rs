//! Everything in Hilbert that talks to Z3: condition analysis of the agents' rules, frame
//! conditions of their Kripke frames, and ranking functions for liveness. Every query is also
//! kept as a self-contained SMT-LIB 2 text with the answer Z3 gave, so that an auditor (and the
//! cvc5 cross-check test) can rerun it with another solver.
//!
//! The crate is untrusted: what it finds becomes warnings, or witnesses the kernel checks on its
//! own. A Z3 `unknown` (a timeout, an incomplete theory) is never read as a proof: an analysis
//! that needed `unsat` and got `unknown` concludes nothing.
//!
//! - [`cond`]: the encoding of the IR's conditions over bounded belief sets (`docs/frames.md`
//!   §"Encoding" gives it in prose).
//! - [`analysis`]: dead rules, intentions adopted and released at once, overlapping intentions,
//!   duplicate and subsumed rules.
//! - [`normal`]: egg normal forms of conditions.
//! - [`frame`]: the frame conditions D, 4, 5 and realism, proved for every belief set.
//! - [`ranking`]: linear ranking functions for liveness.

pub mod analysis;
pub mod cond;
pub mod frame;
pub mod normal;
pub mod ranking;

use z3::{Params, SatResult, Solver, ast::Bool};

/// How Z3 is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The timeout of each query, in milliseconds (`--smt-timeout`).
    pub timeout_ms: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options { timeout_ms: 10_000 }
    }
}

/// What a solver answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Satisfiable.
    Sat,
    /// Unsatisfiable.
    Unsat,
    /// Neither: a timeout or an incomplete theory (the reason Z3 gave).
    Unknown(String),
}

impl Answer {
    /// `sat`, `unsat` or `unknown`, as SMT-LIB writes them.
    pub fn word(&self) -> &'static str {
        match self {
            Answer::Sat => "sat",
            Answer::Unsat => "unsat",
            Answer::Unknown(_) => "unknown",
        }
    }
}

/// One query and Z3's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// A file-name-safe name (`Operator.dead.intend-1`).
    pub name: String,
    /// What it asks, for a person.
    pub question: String,
    /// The query as a self-contained SMT-LIB 2 script (declarations, assertions, `check-sat`).
    pub smt2: String,
    /// What Z3 answered.
    pub answer: Answer,
}

impl Query {
    /// The SMT-LIB file: a header comment with the question and the expected answer, then the
    /// script.
    pub fn file_text(&self) -> String {
        format!(
            "; {}\n; expected: {}\n(set-logic ALL)\n{}",
            self.question.replace('\n', " "),
            self.answer.word(),
            self.smt2
        )
    }
}

/// The queries asked so far, in order.
#[derive(Debug, Default)]
pub struct Log {
    /// Every query.
    pub queries: Vec<Query>,
    /// The options every query runs with.
    pub options: Options,
}

impl Log {
    /// A log whose queries run with these options.
    pub fn new(options: Options) -> Log {
        Log {
            queries: Vec::new(),
            options,
        }
    }

    /// Asks Z3 whether the conjunction of `assertions` is satisfiable, records the query, and
    /// returns the answer with a solver holding the model (when `sat`).
    pub fn check(&mut self, name: &str, question: &str, assertions: &[Bool]) -> (Answer, Solver) {
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("timeout", self.options.timeout_ms.max(1));
        solver.set_params(&params);
        for a in assertions {
            solver.assert(a);
        }
        let smt2 = solver.to_smt2();
        let answer = match solver.check() {
            SatResult::Sat => Answer::Sat,
            SatResult::Unsat => Answer::Unsat,
            SatResult::Unknown => Answer::Unknown(
                solver
                    .get_reason_unknown()
                    .unwrap_or_else(|| "unknown".into()),
            ),
        };
        let mut unique = name.to_string();
        let mut k = 2;
        while self.queries.iter().any(|q| q.name == unique) {
            unique = format!("{name}-{k}");
            k += 1;
        }
        self.queries.push(Query {
            name: unique,
            question: question.to_string(),
            smt2,
            answer: answer.clone(),
        });
        (answer, solver)
    }

    /// Writes every query to `dir` as `<name>.smt2`.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<usize> {
        std::fs::create_dir_all(dir)?;
        for q in &self.queries {
            std::fs::write(dir.join(format!("{}.smt2", q.name)), q.file_text())?;
        }
        Ok(self.queries.len())
    }
}

/// A name made safe for a file name: letters, digits, `.`, `-` and `_` only.
pub fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
