//! A Z3 that runs out of memory (here past its own `memory_max_size`, the path a failed
//! allocation takes too) must not panic, and must answer nothing a caller could take for a
//! finding or a proof (issue 32, items 1 and 7). Its own process: the memory bound is global.

use hilbert_smt::{Answer, FAILED, Log, Options, guarded};
use z3::ast::Int;

/// `c + c + … + c` (`n` terms), as `cond.rs` encodes a rule's sum.
fn sum(c: i64, n: usize) -> Int {
    let c = Int::from_i64(c);
    (1..n).fold(c.clone(), |x, _| Int::add(&[&x, &c]))
}

#[test]
fn z3_out_of_memory_is_an_error_value_not_a_panic() {
    let mut log = Log::new(Options {
        keep_text: false,
        ..Options::default()
    });
    let k = Int::new_const("k");
    // Made while there is memory: the thread's solver and a query's terms.
    assert_eq!(log.check("k", "k > 1?", &[k.gt(1)]), Answer::Sat);
    let ones = sum(1, 200_000);
    z3::set_global_param("memory_max_size", "1");
    // Z3 cannot search: the question is not answered.
    let q = [k.eq(&ones), k.lt(0)];
    let (answer, model) = log.check_model("sum", "k = 1 + … + 1 and k < 0?", &q);
    assert!(matches!(answer, Answer::Unknown(_)), "{answer:?}");
    assert!(model.is_none());
    // Z3 cannot make a term (new ones: Z3 shares the terms it has): the z3 crate panics, and
    // `guarded` says so instead.
    let made = guarded(|| sum(2, 200_000).gt(0));
    let why = made.expect_err("no memory for 200,000 terms");
    assert!(why.starts_with(FAILED), "{why}");
}
