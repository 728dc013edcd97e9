//! The front end's share of `--max-memory`: reading, parsing, resolving and lowering the
//! sources stop once the process's resident set passes half of the bound (the share Z3 and an
//! exploration get too; nothing after the front end could run past it). The resident set is
//! read when the sources are loaded, every [`EVERY`] tokens lexed and parsed, before a long list
//! of the tree makes room for the rest of its items (with that room: it can be more than the
//! tokens between two readings make), and after resolving and lowering.
//!
//! A stop is no finding: the trees made so far are cut (the parser sees the end of its file),
//! their diagnostics are dropped, and the caller says which bound was passed, exit code 2.
//! The state is per thread (the parser's thread takes its caller's: [`crate::syntax::parse_many`]);
//! without a bound (the default of the library) nothing is read.

use std::cell::Cell;

/// Tokens lexed or parsed between two readings of the resident set (a reading costs some
/// 20 µs; 65,536 tokens of the densest source make some 4 MiB of tree).
pub const EVERY: usize = 1 << 16;

/// Where the front end was when it passed its share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The sources were read.
    Loading,
    /// A file was being lexed.
    Lexing,
    /// A file was being parsed.
    Parsing,
    /// The names were being resolved and the program checked.
    Resolving,
    /// The program was being lowered to the IR.
    Lowering,
}

impl Phase {
    /// What the front end was doing, for the report: `while parsing the sources`.
    pub fn doing(self) -> &'static str {
        match self {
            Phase::Loading => "once the sources were read",
            Phase::Lexing => "while lexing the sources",
            Phase::Parsing => "while parsing the sources",
            Phase::Resolving => "while checking the sources",
            Phase::Lowering => "while lowering the sources",
        }
    }
}

/// The front end's stop: the phase, and the resident set read (with the room a list was about
/// to take, if that is what passed the share).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Where.
    pub phase: Phase,
    /// The resident set read, in bytes.
    pub resident: u64,
    /// The room a list was about to take, in bytes (0 when the resident set alone passed).
    pub growing: u64,
}

impl Stop {
    /// `while parsing the sources (the process's resident set reached 300 MiB, over the 256
    /// MiB the front end may use)`, for a bound of `limit` bytes.
    pub fn text(&self, limit: u64) -> String {
        let human = crate::input::human_bytes;
        let reached = if self.growing > 0 {
            format!(
                "would reach {} with the {} a list of the syntax tree was about to take",
                human(self.resident.saturating_add(self.growing)),
                human(self.growing)
            )
        } else {
            format!("reached {}", human(self.resident))
        };
        format!(
            "{} (the process's resident set {reached}, over the {} the front end may use)",
            self.phase.doing(),
            human(limit / 2)
        )
    }
}

/// The state of one thread's gauge: its share, and its stop if it had one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State {
    share: Option<u64>,
    stop: Option<Stop>,
    /// Tokens counted ([`tick`]) since the resident set was last read.
    ticks: usize,
}

thread_local! {
    static STATE: Cell<State> = const {
        Cell::new(State {
            share: None,
            stop: None,
            ticks: 0,
        })
    };
}

/// Sets this thread's share (half of `--max-memory`; `None`: no bound) and forgets any stop.
pub fn set_share(share: Option<u64>) {
    STATE.with(|s| {
        s.set(State {
            share,
            stop: None,
            ticks: 0,
        })
    });
}

/// Counts `n` tokens lexed or parsed (across files: many small files count as one large one);
/// every [`EVERY`] reads the resident set ([`past`]). Whether the front end is past its share.
pub(crate) fn tick(phase: Phase, n: usize) -> bool {
    let mut state = STATE.with(Cell::get);
    if state.stop.is_some() {
        return true;
    }
    if state.share.is_none() {
        return false;
    }
    state.ticks = state.ticks.saturating_add(n);
    let due = state.ticks >= EVERY;
    if due {
        state.ticks = 0;
    }
    STATE.with(|s| s.set(state));
    due && past(phase, 0)
}

/// This thread's state, to hand to another thread ([`adopt`]).
pub(crate) fn current() -> State {
    STATE.with(Cell::get)
}

/// Takes another thread's state (the parser's thread its caller's, and back).
pub(crate) fn adopt(state: State) {
    STATE.with(|s| s.set(state));
}

/// This thread's stop, if the front end passed its share.
pub fn stopped() -> Option<Stop> {
    STATE.with(Cell::get).stop
}

/// Whether the front end is past its share, reading the resident set now (plus `growing`
/// bytes about to be taken) unless it was found past before; records the stop.
pub(crate) fn past(phase: Phase, growing: u64) -> bool {
    let state = STATE.with(Cell::get);
    if state.stop.is_some() {
        return true;
    }
    let Some(share) = state.share else {
        return false;
    };
    match hilbert_smt::meter::resident() {
        Some(rss) if rss.saturating_add(growing) > share => {
            let stop = Stop {
                phase,
                resident: rss,
                growing,
            };
            STATE.with(|s| {
                s.set(State {
                    stop: Some(stop),
                    ..state
                })
            });
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_share_nothing_is_read_and_nothing_stops() {
        set_share(None);
        assert!(!past(Phase::Parsing, u64::MAX));
        assert_eq!(stopped(), None);
    }

    #[test]
    fn past_the_share_the_stop_is_kept_and_named() {
        if hilbert_smt::meter::resident().is_none() {
            return; // not on Linux: nothing is enforced
        }
        set_share(Some(1));
        assert!(past(Phase::Lowering, 0));
        let stop = stopped().expect("a stop");
        assert_eq!((stop.phase, stop.growing), (Phase::Lowering, 0));
        // Kept: a later phase reads nothing and finds the same stop.
        assert!(past(Phase::Parsing, 0));
        assert_eq!(stopped(), Some(stop));
        assert!(
            stop.text(2)
                .starts_with("while lowering the sources (the process's resident set reached")
        );
        // A stop at a reading of the tokens counted, across files.
        set_share(Some(1));
        assert!(!tick(Phase::Lexing, EVERY - 1));
        assert!(tick(Phase::Parsing, 1));
        assert_eq!(stopped().map(|s| s.phase), Some(Phase::Parsing));
        // The room a list is about to take counts.
        set_share(Some(hilbert_smt::meter::resident().unwrap() + (1 << 30)));
        assert!(!past(Phase::Parsing, 1 << 20));
        assert!(past(Phase::Parsing, 2 << 30));
        let stop = stopped().expect("a stop");
        assert_eq!(stop.growing, 2 << 30);
        assert!(
            stop.text(1 << 30)
                .contains("a list of the syntax tree was about to take")
        );
        set_share(None);
    }
}
