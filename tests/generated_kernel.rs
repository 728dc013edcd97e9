//! The kernel's word on the oracle generator's projects (here, since the oracle may not depend
//! on the kernel): for every theorem of every network the build
//! certifies, the kernel admits its obligation exactly when the build proved it (issue 34: the
//! assertions and the weakly fair rankings among them). A theorem the build proved and the
//! kernel refuses is a witness the prover wrote wrong; one the build refuted or left unproved
//! and the kernel admits would be a kernel that admits what is not shown.

use hilbert_kernel::check::{Verdict, check};
use hilbert_oracle::{generate, pipeline};

#[test]
fn the_kernel_admits_exactly_what_the_build_proves_on_random_projects() {
    let (mut theorems, mut asserts, mut fair, mut failures) = (0, 0, 0, Vec::new());
    let mut coverage = generate::Coverage::new();
    for seed in 0..400 {
        let project = generate::project(seed, &mut coverage, &[]);
        let Ok(proofs) = pipeline::build(&project.sources(), 8_000) else {
            continue;
        };
        for c in proofs.certificates.iter().filter(|c| c.withheld.is_none()) {
            let report = check(&c.bytes, None);
            for (name, verdict) in &report.obligations {
                let Some(t) =
                    (proofs.theorems.iter()).find(|t| t.network == c.name && t.name == *name)
                else {
                    continue; // the frame: an obligation, not a theorem
                };
                theorems += 1;
                asserts += usize::from(name.contains("_assert_"));
                fair += usize::from(t.statement.ends_with("under weak fairness"));
                let admitted = *verdict == Verdict::Proved;
                if admitted != (t.status.word() == "proved") {
                    failures.push(format!(
                        "seed {seed}: {}: {name}: build {}, kernel {verdict:?}\n{}",
                        c.name,
                        t.status.word(),
                        project.listing()
                    ));
                }
            }
        }
    }
    eprintln!("{theorems} theorems ({asserts} assertions, {fair} under weak fairness)");
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(
        asserts >= 100 && fair >= 50,
        "{asserts} assertions, {fair} fair"
    );
}
