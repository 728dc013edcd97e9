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
//! - [`frame`]: the frame conditions of the agents' Kripke frames (`docs/frames.md` §2), over
//!   every world the rules allow.
//!
//! Not yet here: ranking functions for liveness.

pub mod analysis;
pub mod cond;
pub mod frame;
pub mod normal;
pub mod ranking;

use std::sync::mpsc;
use std::time::Duration;
use z3::{Context, SatResult, Solver, ast::Bool};

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
        // Z3 4.8.12's own `timeout` parameter can deadlock in its timer when it fires during
        // nonlinear arithmetic (seen on Fermat's x³ + y³ = z³); the timeout is enforced by the
        // watchdog below instead.
        for a in assertions {
            solver.assert(a);
        }
        let smt2 = solver.to_smt2();
        // The watchdog interrupts the context when the time is up: the check then answers
        // `unknown` ("canceled"), which proves nothing.
        let ctx = Context::thread_local();
        let handle = ctx.handle();
        let timeout = Duration::from_millis(u64::from(self.options.timeout_ms.max(1)) + 50);
        let result = std::thread::scope(|s| {
            let (done, wait) = mpsc::channel::<()>();
            s.spawn(move || {
                if wait.recv_timeout(timeout).is_err() {
                    handle.interrupt();
                }
            });
            let r = solver.check();
            let _ = done.send(());
            r
        });
        let answer = match result {
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

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Int;

    /// Links and runs every Z3 call the crate makes, so that a call newer than the system's
    /// libz3 (Debian 12: 4.8.12) fails here, at link time, rather than in a user's build.
    #[test]
    fn links_every_z3_call_the_project_makes() {
        let mut log = Log::new(Options { timeout_ms: 5_000 });
        let x = Int::new_const("x");
        let y = Int::fresh_const("y");
        let b = Bool::new_const("b");
        let zero = Int::from_i64(0);
        let q = x
            .ge(&zero)
            .ite(&x.div(&y), &x.unary_minus().div(&y).unary_minus());
        let facts = [
            Bool::and(&[b.clone(), Bool::from_bool(true)]),
            Bool::or(&[x.lt(&y), x.le(&y), x.gt(&y)]),
            y.eq(Int::from_i64(3)).not().not(),
            Int::add(&[&x, &y]).eq(Int::sub(&[Int::mul(&[&y, &y]), q.clone()])),
            x.ge(Int::from_i64(i64::MIN)),
            b.implies(&b),
        ];
        let (answer, solver) = log.check("link", "every call", &facts);
        assert_eq!(answer, Answer::Sat);
        let model = solver.get_model().expect("a model");
        assert!(model.eval(&x, true).and_then(|v| v.as_i64()).is_some());
        assert!(log.queries[0].file_text().contains("(check-sat)"));
        let (answer, _) = log.check("link", "unsat", &[b.clone(), b.not()]);
        assert_eq!(answer, Answer::Unsat);
        assert_eq!(log.queries[1].name, "link-2");
        assert!(solver.get_reason_unknown().is_some() || answer == Answer::Unsat);
    }

    #[test]
    fn a_query_z3_cannot_decide_is_unknown_within_the_timeout() {
        let mut log = Log::new(Options { timeout_ms: 300 });
        let (x, y, z) = (
            Int::new_const("x"),
            Int::new_const("y"),
            Int::new_const("z"),
        );
        let cube = |v: &Int| Int::mul(&[v, v, v]);
        let zero = Int::from_i64(0);
        let started = std::time::Instant::now();
        let (answer, _) = log.check(
            "fermat",
            "x^3 + y^3 = z^3 in positive integers",
            &[
                x.gt(&zero),
                y.gt(&zero),
                z.gt(&zero),
                Int::add(&[cube(&x), cube(&y)]).eq(cube(&z)),
            ],
        );
        assert!(matches!(answer, Answer::Unknown(_)), "{answer:?}");
        assert!(started.elapsed().as_secs() < 10);
    }
}
