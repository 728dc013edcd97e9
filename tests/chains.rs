//! Long arithmetic chains end to end (issue 17): a chain of `+ -` or `* / %` is one node
//! however long, in every dialect, through the check, the exploration, the certificate, the
//! kernel and the listing; and it is evaluated left to right, faulting where that evaluation
//! leaves the 64-bit range.

mod common;

use common::{TempDir, hilbert};

const TERMS: usize = 10_000;

/// `term op term op …`, `TERMS` terms.
fn chain(term: &str, op: &str) -> String {
    vec![term; TERMS].join(op)
}

#[test]
fn ten_thousand_term_chains_build_and_are_admitted_in_every_dialect() {
    let agent = format!(
        "agent Counter : Agency
{{
  belief count(n: Int)
  desire Reached reachable by [Count]
  commit single_minded
  attention Counting initially
  intend Count for Reached when ¬ B(self) count({TERMS})
  achieved Reached when B(self) count({goal})
  plan Count ↦ Tally.Upto(1)
}}
",
        goal = chain("1", " + ")
    );
    let plan = format!(
        "plan Upto(k: Int) : Counter ≔ believe count({})\n",
        chain("k", " + ")
    );
    let values = format!(
        "values Counter {{\n  option Count ≔ {}\n  policy greedy\n}}\n",
        chain("2.0", " - ")
    );
    let dir = TempDir::with_files(&[
        ("Counter.ha", agent.as_bytes()),
        ("Tally.hk", plan.as_bytes()),
        ("Counter.hb", values.as_bytes()),
    ]);
    let out = dir.join("out");
    let built = hilbert(&["build", &dir.path(), "--out", &out], None);
    assert_eq!(built.code, Some(0), "{}\n{}", built.stdout, built.stderr);
    assert!(built.stdout.contains("2 proved"), "{}", built.stdout);
    assert!(built.stdout.contains("admitted: the kernel re-checked"));
    // The goal's 10,000 terms are cut from the human report's statement, not from the JSON's.
    let longest = built.stdout.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 1_000, "a line of {longest} bytes");
    assert!(
        built
            .stdout
            .contains("--format json gives the whole statement")
    );
    let json = hilbert(
        &["build", &dir.path(), "--out", &out, "--format", "json"],
        None,
    );
    assert!(
        json.stdout
            .contains(&format!("count({})", chain("1", " + ")))
    );
    // The listing writes the goal's and the plan's chains back flat, without parentheses; the
    // value is the postfix program `2.0 2.0 - 2.0 - …`, written back as the chain it was.
    let cert = format!("{out}/Counter.Count.cert");
    let dump = hilbert(&["verify", &cert, "--dump"], None);
    assert_eq!(dump.code, Some(0), "{}", dump.stderr);
    let line = |what: &str| {
        dump.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(what))
            .unwrap_or_else(|| panic!("no `{what}` line"))
            .to_string()
    };
    // `B(self) count(v0) and v0 = 1 + 1 + …`: the computed argument is a variable equal to it.
    for (what, from) in [("achieved Reached", " = "), ("believe count", "count(")] {
        let l = line(what);
        let chain = &l[l.find(from).expect("the chain") + from.len()..];
        assert_eq!(chain.matches(" + ").count(), TERMS - 1, "{what}");
        assert!(!chain.contains('('), "{what}: parentheses in a flat chain");
    }
    // The value is written whole and flat too, and the listing lowers again to the certificate's
    // IR (`verify --dump` checks its round trip).
    let option = line("option Count");
    assert_eq!(option.matches(" - ").count(), TERMS - 1);
    assert!(!option.contains('('), "parentheses in a flat chain");
    assert!(
        dump.stdout.contains("--   round trip  checked: "),
        "{}",
        &dump.stdout[..2000]
    );
}

#[test]
fn a_chain_faults_where_its_left_to_right_evaluation_leaves_the_range() {
    // `k + 1 - 1` with k the largest Int: `(k + 1) - 1` leaves the range at its first step.
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/overflow-in-a-chain");
    let out = TempDir::with_files(&[]);
    let faulty = hilbert(&["build", example, "--out", &out.path()], None);
    assert_eq!(faulty.code, Some(1), "{}", faulty.stderr);
    assert!(
        faulty.stdout.contains("left the 64-bit range"),
        "{}",
        faulty.stdout
    );
    // The same terms in another order never leave it, and the build is admitted.
    let agent = std::fs::read(format!("{example}/Keeper.ha")).unwrap();
    let plan = std::fs::read_to_string(format!("{example}/Top.hk")).unwrap();
    for regrouped in ["k - 1 + 1", "k + (1 - 1)"] {
        let plan = plan.replace("k + 1 - 1)", &format!("{regrouped})"));
        let dir = TempDir::with_files(&[("Keeper.ha", &agent), ("Top.hk", plan.as_bytes())]);
        let out = dir.join("out");
        let built = hilbert(&["build", &dir.path(), "--out", &out], None);
        assert_eq!(built.code, Some(0), "{regrouped}: {}", built.stdout);
    }
}
