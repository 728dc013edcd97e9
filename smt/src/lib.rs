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
pub mod meter;
pub mod normal;
pub mod ranking;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;
use z3::{Context, Model, SatResult, Solver, ast::Bool};

thread_local! {
    /// The solver this thread's queries share (see [`Log::check`]).
    static SOLVER: RefCell<Option<Solver>> = const { RefCell::new(None) };
}

/// How Z3 is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The timeout of each query, in milliseconds (`--smt-timeout`).
    pub timeout_ms: u32,
    /// The total time a [`Log`]'s queries may take, in milliseconds (`--smt-budget`); `None`
    /// for no bound. Once it is spent no query is asked: each answers `unknown` (see
    /// [`Query::over_budget`]), and the query running when it runs out is interrupted.
    pub budget_ms: Option<u64>,
    /// Whether each query's SMT-LIB text is kept ([`Query::smt2`], for `--emit-smt`). Printing
    /// a query costs more than deciding most of them, and the texts of 10,000 agents' queries
    /// held some 100 MB; a check that writes none keeps none.
    pub keep_text: bool,
    /// `--max-memory`, in bytes: once the process's resident set passes half of it (the rest
    /// is the build's, which explores and checks after), the query running is stopped and no
    /// other is asked; each answers `unknown` ([`OVER_MEMORY`], [`Log::memory_passed`]).
    /// `None`: no bound (nor off Linux, where the resident set cannot be read).
    pub max_memory: Option<u64>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            timeout_ms: 10_000,
            budget_ms: None,
            keep_text: true,
            max_memory: None,
        }
    }
}

impl Options {
    /// The resident set past which Z3 is stopped: half of [`Options::max_memory`].
    pub fn memory_share(&self) -> Option<u64> {
        self.max_memory.map(|m| m / 2)
    }
}

/// The reason of an `unknown` answer given without asking Z3: the budget was spent.
pub const NOT_ASKED: &str = "not asked: the Z3 budget (--smt-budget) was spent";

/// The reason of an `unknown` answer Z3 gave when the budget ran out while it searched.
pub const CUT_SHORT: &str = "canceled: the Z3 budget (--smt-budget) ran out during this query";

/// The reason of an `unknown` answer for a `sat` Z3 gave without a model that satisfies the
/// query (see [`Log::check`]): Z3 failed, most often for want of memory.
pub const UNCONFIRMED: &str = "Z3 failed, most often for want of memory: it answered sat with a model that does not satisfy the query";

/// The beginning of the reason of a question not answered because the process passed its
/// memory bound ([`Options::max_memory`]): the query that was running when it did, and every
/// later one.
pub const OVER_MEMORY: &str = "the check passed --max-memory";

/// The reason of an `unknown` answer to a question of a cancelled check ([`Cancel`]): the query
/// running was interrupted, or the question was not asked.
pub const CANCELLED: &str = "not asked: the check was cancelled";

/// A flag that stops a check's Z3 queries from another thread (`hilbert lsp` cancels the check
/// of a text the user has since changed): once set, the query running is interrupted within
/// 20 ms and no other is asked; each answers `unknown` ([`CANCELLED`]), which proves nothing.
#[derive(Clone, Debug, Default)]
pub struct Cancel(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    /// A flag not set.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Sets the flag: the queries of every log holding it stop.
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// The beginning of the reason of a question Z3 failed on ([`guarded`]).
pub const FAILED: &str = "Z3 failed, most often for want of memory";

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
    /// The query as a self-contained SMT-LIB 2 script (declarations, assertions, `check-sat`);
    /// empty unless the log keeps texts ([`Options::keep_text`]).
    pub smt2: String,
    /// What Z3 answered.
    pub answer: Answer,
    /// Whether the budget decided the answer: the query was not asked, or was interrupted when
    /// the budget ran out (its answer is then `unknown`, and proves nothing).
    pub over_budget: bool,
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
    /// Every name given so far, so that a repeated name gets the next free suffix without a
    /// scan of every query (a project of 10,000 agents asks some 90,000).
    names: HashSet<String>,
    /// Each query asked so far, by its assertions.
    answers: HashMap<Vec<Bool>, Cached>,
    /// The time Z3 has spent on this log's queries.
    spent: Duration,
    /// The flag that stops this log's queries, if it can be cancelled ([`Log::cancellable`]).
    cancel: Option<Cancel>,
}

/// What a query got: its answer, its model (when one was asked for) and its text.
#[derive(Debug)]
struct Cached {
    answer: Answer,
    model: Option<Rc<Model>>,
    smt2: String,
}

impl Log {
    /// A log whose queries run with these options.
    pub fn new(options: Options) -> Log {
        cond::set_memory_share(options.memory_share());
        LIMIT.with(|l| l.set(options.max_memory));
        if let Some(share) = options.memory_share() {
            // Z3 counts what it allocates and fails an allocation past `memory_max_size` (in
            // MiB, for every context of the process): it cannot hold more than its share
            // whatever it is doing, where an interruption is seen only at Z3's checkpoints (a
            // rule summing 50,000 ones onto a field passed 24 GB after the watchdog had
            // interrupted it at 5.9 GB; issue 32). A failed allocation fails the query or the
            // term being made; Z3's high-water mark then says it was the bound's
            // ([`z3_reached_cap`]).
            z3::set_global_param("memory_max_size", &(share >> 20).max(1).to_string());
        }
        Log {
            queries: Vec::new(),
            options,
            names: Default::default(),
            answers: Default::default(),
            spent: Duration::ZERO,
            cancel: None,
        }
    }

    /// This log, its queries stopped once `cancel` is set ([`Cancel`]).
    pub fn cancellable(mut self, cancel: Cancel) -> Log {
        self.cancel = Some(cancel);
        self
    }

    /// Whether this log's check was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
    }

    /// The process's resident set, in bytes, when it was found past its share of
    /// [`Options::max_memory`] (by a query, or by an encoding: [`cond::Universe`]), if it was:
    /// from then on no query is asked, and the check says it passed the bound.
    pub fn memory_passed(&self) -> Option<u64> {
        cond::memory_passed()
    }

    /// Why a query was not answered once the process passed its memory bound (`asked`: it was
    /// running then).
    pub fn over_memory(&self, asked: bool) -> String {
        over_memory(asked)
    }

    /// Whether the process is past its share of `--max-memory` ([`Options::memory_share`]),
    /// read now unless it was found past it before; records the reading.
    fn past_memory(&mut self) -> bool {
        self.memory_passed().is_some() || cond::read_past_share().is_some()
    }

    /// What is left of the budget (`None`: no budget).
    fn remaining(&self) -> Option<Duration> {
        let budget = Duration::from_millis(self.options.budget_ms?);
        Some(budget.saturating_sub(self.spent))
    }

    /// The queries whose answer the budget decided (see [`Query::over_budget`]), in order.
    pub fn over_budget(&self) -> impl Iterator<Item = &Query> {
        self.queries.iter().filter(|q| q.over_budget)
    }

    /// Asks Z3 whether the conjunction of `assertions` is satisfiable and records the query.
    pub fn check(&mut self, name: &str, question: &str, assertions: &[Bool]) -> Answer {
        self.ask(name, question, assertions, false).0
    }

    /// As [`Log::check`], and returns the model when the answer is `sat`.
    pub fn check_model(
        &mut self,
        name: &str,
        question: &str,
        assertions: &[Bool],
    ) -> (Answer, Option<Rc<Model>>) {
        self.ask(name, question, assertions, true)
    }

    /// One solver per thread serves every query, each in a scope of its own (`push`, assert,
    /// check, `pop`): making a Z3 solver costs about 3 ms of parameter set-up, far more than
    /// deciding the small queries the analyses ask, and a project of 10,000 agents asks some
    /// 90,000 of them. A solver whose check answered `unknown` (it may have been interrupted)
    /// is dropped, so nothing of an abandoned search carries over into the next query.
    ///
    /// A query asked before gets the answer, model and text it got then. Z3 hash-conses its
    /// terms, so the same assertions are the same term objects: the cache is keyed by them (and
    /// holds them, so that no other term can take their identity). Agents written from one
    /// template ask the same queries over and over; printing a query's SMT-LIB text costs more
    /// than deciding it, so a repeated query is neither printed nor solved again.
    fn ask(
        &mut self,
        name: &str,
        question: &str,
        assertions: &[Bool],
        want_model: bool,
    ) -> (Answer, Option<Rc<Model>>) {
        let key = assertions.to_vec();
        let hit = self
            .answers
            .get(&key)
            .filter(|c| !want_model || c.answer != Answer::Sat || c.model.is_some());
        let remaining = self.remaining();
        let (answer, model, smt2, over_budget) = match hit {
            Some(c) => (c.answer.clone(), c.model.clone(), c.smt2.clone(), false),
            None if self.cancelled() => (
                Answer::Unknown(CANCELLED.into()),
                None,
                String::new(),
                false,
            ),
            None => {
                let past_memory = self.past_memory();
                let spent = remaining.is_some_and(|r| r.is_zero());
                // A question not asked is given to a solver only for its text (--emit-smt):
                // Z3 takes memory in proportion to what it is given (asserting a sum of 50,000
                // ones took 200 MB), and past the memory bound it gets nothing more.
                let solver = (!past_memory && (!spent || self.options.keep_text)).then(|| {
                    let solver = SOLVER.with(|s| s.borrow_mut().take()).unwrap_or_default();
                    solver.push();
                    for a in assertions {
                        solver.assert(a);
                    }
                    solver
                });
                let smt2 = match &solver {
                    Some(solver) if self.options.keep_text => solver.to_smt2(),
                    _ => String::new(),
                };
                match solver {
                    None if past_memory => {
                        (Answer::Unknown(self.over_memory(false)), None, smt2, false)
                    }
                    None => (Answer::Unknown(NOT_ASKED.into()), None, smt2, true),
                    Some(solver) if spent => {
                        // The question is still written down (its text, for --emit-smt), not asked.
                        solver.pop(1);
                        SOLVER.with(|s| *s.borrow_mut() = Some(solver));
                        (Answer::Unknown(NOT_ASKED.into()), None, smt2, true)
                    }
                    Some(solver) => {
                        let limit =
                            Duration::from_millis(u64::from(self.options.timeout_ms.max(1)));
                        let cut = remaining.filter(|r| *r < limit);
                        let begun = std::time::Instant::now();
                        let (mut answer, model, rss) =
                            self.solve(solver, assertions, want_model, cut.unwrap_or(limit));
                        self.spent += begun.elapsed();
                        if let Some((rss, z3)) = rss {
                            cond::record_memory_passed(rss, z3);
                        }
                        let over = cut.is_some()
                            && matches!(answer, Answer::Unknown(_))
                            && self.remaining().is_some_and(|r| r.is_zero());
                        if rss.is_some() {
                            answer = Answer::Unknown(self.over_memory(true));
                        } else if self.cancelled() && matches!(answer, Answer::Unknown(_)) {
                            answer = Answer::Unknown(CANCELLED.into());
                        } else if over {
                            answer = Answer::Unknown(CUT_SHORT.into());
                        } else {
                            let cached = Cached {
                                answer: answer.clone(),
                                model: model.clone(),
                                smt2: smt2.clone(),
                            };
                            self.answers.insert(key, cached);
                        }
                        (answer, model, smt2, over)
                    }
                }
            }
        };
        let mut unique = name.to_string();
        let mut k = 2;
        while self.names.contains(&unique) {
            unique = format!("{name}-{k}");
            k += 1;
        }
        self.names.insert(unique.clone());
        self.queries.push(Query {
            name: unique,
            question: question.to_string(),
            smt2,
            answer: answer.clone(),
            over_budget,
        });
        (answer, model)
    }

    /// Checks the assertions in `solver`'s top scope, under the watchdog, and hands the solver
    /// back for the next query unless the answer was `unknown`. The watchdog also reads the
    /// process's resident set every 20 ms under a memory bound ([`Options::max_memory`]) and
    /// stops Z3 past its share: the resident set it read is then returned too.
    ///
    /// A `sat` is believed only with a model under which every one of `assertions` evaluates
    /// to `true`: a Z3 that ran out of memory has answered `sat` with a model of nothing (issue
    /// 32: a realism "violation" with empty worlds, for a query holding `false`). Anything
    /// else is `unknown` ([`UNCONFIRMED`]), which proves nothing and finds nothing.
    ///
    /// Under a memory bound, when Z3 is done (the model checked) its own high-water mark is
    /// read too ([`z3_reached_cap`], half a microsecond): if Z3 reached its cap on the way, no
    /// answer is taken, whatever it was, since the z3 crate does not say when a call without a
    /// result (`push`, `assert`) failed an allocation.
    fn solve(
        &self,
        solver: Solver,
        assertions: &[Bool],
        want_model: bool,
        limit: Duration,
    ) -> (Answer, Option<Rc<Model>>, Option<(u64, bool)>) {
        // Z3 4.8.12's own `timeout` parameter can deadlock in its timer when it fires during
        // nonlinear arithmetic (seen on Fermat's x³ + y³ = z³); the timeout is enforced by the
        // watchdog below instead. It interrupts the context when the time is up: the check then
        // answers `unknown` ("canceled"), which proves nothing.
        let ctx = Context::thread_local();
        let handle = ctx.handle();
        let timeout = limit + Duration::from_millis(50);
        let share = self.options.memory_share();
        let cancel = self.cancel.clone();
        let (result, passed) = std::thread::scope(|s| {
            let (done, wait) = mpsc::channel::<()>();
            let watchdog = s.spawn(move || {
                let begun = std::time::Instant::now();
                loop {
                    let left = timeout.saturating_sub(begun.elapsed());
                    let tick = match (share, &cancel) {
                        (None, None) => left,
                        _ => left.min(Duration::from_millis(20)),
                    };
                    match wait.recv_timeout(tick) {
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        _ => return None,
                    }
                    if begun.elapsed() >= timeout
                        || cancel.as_ref().is_some_and(Cancel::is_cancelled)
                    {
                        handle.interrupt();
                        return None;
                    }
                    if let Some(rss) =
                        share.and_then(|share| meter::resident().filter(|&rss| rss > share))
                    {
                        handle.interrupt();
                        return Some(rss);
                    }
                }
            });
            let r = solver.check();
            let _ = done.send(());
            (r, watchdog.join().ok().flatten())
        });
        let found = match result {
            SatResult::Sat => match solver.get_model().filter(|m| satisfies(m, assertions)) {
                Some(model) => (Answer::Sat, want_model.then(|| Rc::new(model))),
                None => (Answer::Unknown(UNCONFIRMED.into()), None),
            },
            SatResult::Unsat => (Answer::Unsat, None),
            SatResult::Unknown => (
                Answer::Unknown(
                    solver
                        .get_reason_unknown()
                        .unwrap_or_else(|| "unknown".into()),
                ),
                None,
            ),
        };
        let capped = z3_reached_cap(Some(&solver)).then(|| (meter::resident().unwrap_or(0), true));
        if capped.is_none() && !matches!(found.0, Answer::Unknown(_)) {
            solver.pop(1);
            SOLVER.with(|s| *s.borrow_mut() = Some(solver));
        }
        match (capped, passed, found) {
            // Z3 reached its cap on the way: nothing it answered is taken.
            (Some(capped), _, _) => (Answer::Unknown(String::new()), None, Some(capped)),
            // Past the resident bound the answer is kept only if Z3 came to one before it was
            // stopped (the next query finds the process past the bound and is not asked).
            (None, Some(rss), (Answer::Unknown(_), _)) => {
                (Answer::Unknown(String::new()), None, Some((rss, false)))
            }
            (None, _, (answer, model)) => (answer, model, None),
        }
    }

    /// Writes every query to `dir` as `<name>.smt2`.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<usize> {
        std::fs::create_dir_all(dir)?;
        for q in &self.queries {
            // A file that cannot be written whole (a full disk) is not left torn.
            let path = dir.join(format!("{}.smt2", q.name));
            std::fs::write(&path, q.file_text()).inspect_err(|_| {
                let _ = std::fs::remove_file(&path);
            })?;
        }
        Ok(self.queries.len())
    }
}

/// Whether no assertion is refuted by `model` (completed: a constant the model leaves free
/// takes a default value): none evaluates to `false`, and Z3 could evaluate each. An assertion
/// under a quantifier may evaluate to a formula rather than a truth value; Z3's own
/// model-based search made that model, and it is taken.
fn satisfies(model: &Model, assertions: &[Bool]) -> bool {
    assertions.iter().all(|a| {
        model
            .eval(a, true)
            .is_some_and(|v| v.as_bool() != Some(false))
    })
}

thread_local! {
    /// The `--max-memory` of this thread's check ([`Options::max_memory`], set by [`Log::new`]),
    /// which the reasons of questions stopped by it name.
    static LIMIT: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Why a question was not answered once this thread's check passed its memory bound (`asked`:
/// it was being put or answered then).
fn over_memory(asked: bool) -> String {
    format!(
        "{} {OVER_MEMORY} {}{}",
        if asked { "stopped:" } else { "not asked:" },
        memory_passed_text(),
        if asked { "" } else { " before this query" },
    )
}

/// The bound this thread's check passed and how: `1 GiB (the process's resident set reached
/// 1.1 GiB, over the 512 MiB Z3's queries may use)`, or `(Z3 reached the 512 MiB its queries
/// may use; the process's resident set was 480 MiB)`.
pub fn memory_passed_text() -> String {
    let limit = LIMIT.with(std::cell::Cell::get).unwrap_or(0);
    let rss = meter::human_bytes(cond::memory_passed().unwrap_or(0));
    let share = meter::human_bytes(limit / 2);
    if cond::memory_passed_by_z3() {
        format!(
            "{} (Z3 reached the {share} its queries may use; the process's resident set was {rss})",
            meter::human_bytes(limit)
        )
    } else {
        format!(
            "{} (the process's resident set reached {rss}, over the {share} Z3's queries may use)",
            meter::human_bytes(limit)
        )
    }
}

/// Whether Z3 has reached the cap [`Log::new`] set on what it allocates (its
/// `memory_max_size`, the share of `--max-memory` of this thread's check): read from Z3's
/// statistics (`max memory`, its high-water mark, in MiB) of `solver`, or of a new one. Z3 that
/// cannot even make those (the z3 crate panics) has reached it. `false` without a bound.
fn z3_reached_cap(solver: Option<&Solver>) -> bool {
    let Some(cap) = LIMIT
        .with(std::cell::Cell::get)
        .map(|m| ((m / 2) >> 20).max(1))
    else {
        return false;
    };
    quiet_when_guarded();
    let outer = GUARDED.with(|g| g.replace(true));
    let mark = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let stats = match solver {
            Some(solver) => solver.get_statistics(),
            None => Solver::new().get_statistics(),
        };
        match stats.value("max memory") {
            Some(z3::StatisticsValue::Double(mb)) => mb,
            Some(z3::StatisticsValue::UInt(mb)) => f64::from(mb),
            None => 0.0,
        }
    }));
    GUARDED.with(|g| g.set(outer));
    mark.map_or(true, |mb| mb >= cap as f64)
}

thread_local! {
    /// Whether this thread is inside [`guarded`]: its panics are then Z3's failures, caught
    /// and reported as such, and the panic hook stays quiet.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once) the panic hook that stays quiet inside [`guarded`].
fn quiet_when_guarded() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, which builds Z3 terms and asks queries, and turns a panic inside it into `Err`
/// with its message. The z3 crate panics (`unwrap` on `None`) whenever Z3 fails to make a
/// term, which it does when it runs out of memory (issue 32: a rule of 5,000 disjuncts, a sum
/// of 2,000,000 ones under a memory cap); the caller reports the question as not answered
/// ([`FAILED`]), never as a finding or a proof. The thread's solver, which the failure may
/// have left mid-query, is dropped. A failure once the process is past its share of
/// `--max-memory` (Z3 failed an allocation past its `memory_max_size`, [`Log::new`]) is the
/// bound's: its reason is [`OVER_MEMORY`]'s, and the check says it passed the bound.
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    quiet_when_guarded();
    let outer = GUARDED.with(|g| g.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    result.map_err(|payload| {
        SOLVER.with(|s| s.borrow_mut().take());
        if cond::memory_passed().is_none() && z3_reached_cap(None) {
            cond::record_memory_passed(meter::resident().unwrap_or(0), true);
        }
        if cond::memory_passed().is_some() || cond::read_past_share().is_some() {
            return over_memory(true);
        }
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        format!("{FAILED}: {text}")
    })
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
        let mut log = Log::new(Options {
            timeout_ms: 5_000,
            ..Options::default()
        });
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
        let (answer, model) = log.check_model("link", "every call", &facts);
        assert_eq!(answer, Answer::Sat);
        let model = model.expect("a model");
        assert!(model.eval(&x, true).and_then(|v| v.as_i64()).is_some());
        assert!(log.queries[0].file_text().contains("(check-sat)"));
        let answer = log.check("link", "unsat", &[b.clone(), b.not()]);
        assert_eq!(answer, Answer::Unsat);
        assert_eq!(log.queries[1].name, "link-2");
        assert!(model.eval(&y, true).is_some() && answer == Answer::Unsat);
    }

    #[test]
    fn a_repeated_query_is_answered_from_its_text_with_its_model() {
        let mut log = Log::new(Options {
            timeout_ms: 5_000,
            ..Options::default()
        });
        let x = Int::new_const("x");
        let q = [x.gt(Int::from_i64(41)), x.lt(Int::from_i64(43))];
        let (first, m1) = log.check_model("q", "x = 42?", &q);
        let (again, m2) = log.check_model("q", "x = 42?", &q);
        assert_eq!((first, again.clone()), (Answer::Sat, Answer::Sat));
        assert!(Rc::ptr_eq(m1.as_ref().unwrap(), m2.as_ref().unwrap()));
        assert_eq!(
            m2.unwrap().eval(&x, true).and_then(|v| v.as_i64()),
            Some(42)
        );
        // Both are in the log, under two names, with the answer.
        assert_eq!(log.queries.len(), 2);
        assert_eq!(log.queries[1].name, "q-2");
        // Another bound is another question.
        assert_eq!(
            log.check(
                "q",
                "x > 43 and x < 43?",
                &[x.gt(Int::from_i64(43)), x.lt(Int::from_i64(43))]
            ),
            Answer::Unsat
        );
    }

    /// x³ + y³ = z³ in positive integers: no solution, but non-linear integer arithmetic is
    /// undecidable and Z3 searches on.
    fn fermat(log: &mut Log) -> Answer {
        let (x, y, z) = (
            Int::new_const("x"),
            Int::new_const("y"),
            Int::new_const("z"),
        );
        let cube = |v: &Int| Int::mul(&[v, v, v]);
        let zero = Int::from_i64(0);
        log.check(
            "fermat",
            "x^3 + y^3 = z^3 in positive integers",
            &[
                x.gt(&zero),
                y.gt(&zero),
                z.gt(&zero),
                Int::add(&[cube(&x), cube(&y)]).eq(cube(&z)),
            ],
        )
    }

    #[test]
    fn a_query_z3_cannot_decide_is_unknown_within_the_timeout() {
        let mut log = Log::new(Options {
            timeout_ms: 300,
            ..Options::default()
        });
        let started = std::time::Instant::now();
        let answer = fermat(&mut log);
        assert!(matches!(answer, Answer::Unknown(_)), "{answer:?}");
        assert!(started.elapsed().as_secs() < 10);
    }

    #[test]
    fn the_budget_interrupts_the_query_that_spends_it_and_no_other_is_asked() {
        let mut log = Log::new(Options {
            timeout_ms: 10_000,
            budget_ms: Some(400),
            ..Options::default()
        });
        let (x, y, zero) = (Int::new_const("x"), Int::new_const("y"), Int::from_i64(0));
        // A query decided at once is asked, and counts against the budget.
        let easy = [x.gt(&zero), x.lt(&zero)];
        assert_eq!(log.check("easy", "x > 0 and x < 0?", &easy), Answer::Unsat);
        let started = std::time::Instant::now();
        let answer = fermat(&mut log);
        // Interrupted by the budget, not by the 10 s timeout.
        assert_eq!(answer, Answer::Unknown(CUT_SHORT.into()));
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        // Nothing more is asked, even an easy question (what is in the cache is still answered
        // from it: that costs Z3 no time); its text is still written.
        let again = log.check("easy", "x > 0 and x < 0?", &[x.gt(&zero), y.lt(&zero)]);
        assert_eq!(again, Answer::Unknown(NOT_ASKED.into()));
        assert!(log.queries[2].smt2.contains("assert"));
        let over: Vec<&str> = log.over_budget().map(|q| q.name.as_str()).collect();
        assert_eq!(over, ["fermat", "easy-2"]);
        assert!(!log.queries[0].over_budget);
    }

    #[test]
    fn a_cancelled_check_interrupts_its_query_and_asks_no_other() {
        let cancel = Cancel::new();
        let mut log = Log::new(Options {
            timeout_ms: 60_000,
            ..Options::default()
        })
        .cancellable(cancel.clone());
        let (x, zero) = (Int::new_const("x"), Int::from_i64(0));
        assert_eq!(log.check("easy", "x > 0?", &[x.gt(&zero)]), Answer::Sat);
        // Another thread cancels while Z3 searches (a question it cannot decide in a minute):
        // the answer is the cancellation's, not the timeout's.
        let other = cancel.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            other.cancel();
        });
        assert_eq!(fermat(&mut log), Answer::Unknown(CANCELLED.into()));
        canceller.join().expect("the cancelling thread");
        // Nothing more is asked; what is in the cache is still answered from it.
        let again = log.check("q", "x < 0?", &[x.lt(&zero)]);
        assert_eq!(again, Answer::Unknown(CANCELLED.into()));
        assert_eq!(log.check("easy", "x > 0?", &[x.gt(&zero)]), Answer::Sat);
        assert!(log.cancelled());
    }

    #[test]
    fn a_budget_of_nothing_asks_nothing() {
        let mut log = Log::new(Options {
            timeout_ms: 10_000,
            budget_ms: Some(0),
            ..Options::default()
        });
        let x = Int::new_const("x");
        let answer = log.check("q", "x > 1?", &[x.gt(Int::from_i64(1))]);
        assert_eq!(answer, Answer::Unknown(NOT_ASKED.into()));
        assert_eq!(log.over_budget().count(), 1);
        // Without a budget the same question is asked.
        let mut log = Log::new(Options::default());
        assert_eq!(
            log.check("q", "x > 1?", &[x.gt(Int::from_i64(1))]),
            Answer::Sat
        );
        assert_eq!(log.over_budget().count(), 0);
    }

    #[test]
    fn a_log_that_keeps_no_text_answers_alike() {
        let x = Int::new_const("x");
        let q = [x.gt(Int::from_i64(1)), x.lt(Int::from_i64(3))];
        let mut with = Log::new(Options::default());
        let mut without = Log::new(Options {
            keep_text: false,
            ..Options::default()
        });
        assert_eq!(with.check("q", "x = 2?", &q), Answer::Sat);
        assert_eq!(without.check("q", "x = 2?", &q), Answer::Sat);
        assert!(with.queries[0].smt2.contains("(declare-fun x () Int)"));
        assert_eq!(without.queries[0].smt2, "");
        assert_eq!(without.queries[0].answer, with.queries[0].answer);
    }
}
