//! Under `--max-memory`, Z3 cannot hold more than its share (issue 32, item 8): `Log::new` sets
//! Z3's own `memory_max_size` to half of the bound, and a Z3 that fails there is the bound's,
//! named as such, never "Z3 failed" nor a finding. Its own process: the parameter is global.

use hilbert_smt::{Answer, FAILED, Log, OVER_MEMORY, Options, guarded};
use z3::ast::Int;

#[test]
fn z3_at_its_share_of_the_bound_is_the_bound_s_stop() {
    // A bound of 64 MiB: Z3 may hold 32.
    let mut log = Log::new(Options {
        keep_text: false,
        max_memory: Some(64 << 20),
        ..Options::default()
    });
    let k = Int::new_const("k");
    // Asked while Z3 holds little.
    assert_eq!(log.check("k", "k > 1?", &[k.gt(1)]), Answer::Sat);
    assert_eq!(log.memory_passed(), None);
    // 2,000,000 distinct terms need far more than 32 MiB of Z3: making them fails, and the
    // failure is the bound's.
    let made = guarded(|| {
        (1..2_000_000i64).fold(Int::from_i64(0), |x, i| Int::add(&[&x, &Int::from_i64(i)]))
    });
    let why = made.expect_err("no room for 2,000,000 terms in 32 MiB");
    assert!(
        why.contains(OVER_MEMORY) && !why.starts_with(FAILED),
        "{why}"
    );
    assert!(
        why.contains("Z3 reached the 32 MiB its queries may use"),
        "{why}"
    );
    assert!(log.memory_passed().is_some());
    // From then on nothing is asked, and the reason names the bound.
    let answer = log.check("k2", "k > 2?", &[k.gt(2)]);
    match answer {
        Answer::Unknown(reason) => assert!(
            reason.starts_with("not asked: the check passed --max-memory 64 MiB"),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
}
