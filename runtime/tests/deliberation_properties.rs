//! Property tests of deliberation: over random values (NaN, ±∞, huge, tiny, all equal) and
//! random masks, every policy puts exactly zero probability on unlicensed options, its
//! distribution is a distribution, and a mask that licenses nothing is an error.

use hilbert_certificates::ir::PolicyIr;
use hilbert_runtime::deliberation::{
    Counts, DeliberationError, Licence, UNLICENSED, distribution, leaked, licensed, sample,
};
use proptest::prelude::*;

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(1e300),
        Just(-1e300),
        Just(0.0),
        -10.0..10.0f64,
    ]
}

fn policy() -> impl Strategy<Value = PolicyIr> {
    prop_oneof![
        Just(PolicyIr::Greedy),
        (0.0..=1.0f64).prop_map(|e| PolicyIr::EpsilonGreedy(e.to_bits())),
        prop_oneof![Just(1e-300), Just(1e300), 0.001..100.0f64]
            .prop_map(|t: f64| PolicyIr::Softmax(t.to_bits())),
        (0.0..10.0f64).prop_map(|c| PolicyIr::Ucb(c.to_bits())),
    ]
}

/// q, m (at least one licensed) and UCB counts of one length.
fn case() -> impl Strategy<Value = (Vec<f64>, Vec<bool>, Vec<u64>)> {
    (1usize..40).prop_flat_map(|k| {
        (
            prop_oneof![
                prop::collection::vec(value(), k),
                value().prop_map(move |v| vec![v; k]),
            ],
            prop::collection::vec(any::<bool>(), k)
                .prop_filter("something licensed", |m| m.iter().any(|&b| b)),
            prop::collection::vec(0u64..5, k),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_policy_ever_leaks((q, m, counts) in case(), p in policy(), u in 0.0..1.0f64) {
        let m = Licence(m);
        let pi = distribution(p, &q, &m, &Counts(counts)).unwrap();
        prop_assert_eq!(leaked(&pi, &m), 0.0);
        prop_assert!(pi.iter().all(|x| x.is_finite() && *x >= 0.0), "{:?}", pi);
        prop_assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{:?}", pi);
        // A sample lands on a licensed option.
        prop_assert!(m.0[sample(&pi, u)]);
    }

    #[test]
    fn licensed_drives_exactly_the_unlicensed_options_to_minus_ten_to_the_300((q, m, _) in case()) {
        let l = licensed(&q, &Licence(m.clone())).unwrap();
        for (v, ok) in l.iter().zip(&m) {
            if *ok {
                prop_assert!(*v > UNLICENSED && v.is_finite());
            } else {
                prop_assert_eq!(*v, UNLICENSED);
            }
        }
    }

    #[test]
    fn a_single_licensed_option_is_chosen_with_certainty(k in 1usize..20, which in 0usize..20, q in prop::collection::vec(value(), 20), p in policy()) {
        let which = which % k;
        let m = Licence((0..k).map(|i| i == which).collect());
        let pi = distribution(p, &q[..k], &m, &Counts(vec![1; k])).unwrap();
        prop_assert_eq!(pi[which], 1.0);
    }

    #[test]
    fn nothing_licensed_is_a_clear_error(q in prop::collection::vec(value(), 1..10), p in policy()) {
        let m = Licence(vec![false; q.len()]);
        prop_assert_eq!(distribution(p, &q, &m, &Counts::default()), Err(DeliberationError::NothingLicensed));
    }
}
