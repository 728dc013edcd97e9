//! The oracle's random projects — every construct its generator covers, in every position —
//! through the round trip of `hilbert verify --dump`'s listing (issue 29: "lowering the listing
//! again yields the same IR"): each network that lowers, listed as its certificate would be and
//! lowered again, is its IR byte for byte (`hilbert_frontend::listing::roundtrip`).

use hilbert_frontend::listing::roundtrip;
use hilbert_frontend::project::{self, Loaded};
use hilbert_oracle::generate;

#[test]
fn the_generators_projects_round_trip_through_the_listing() {
    let total = 1_500;
    let (mut lowered, mut networks, mut failures) = (0, 0, Vec::new());
    let mut coverage = generate::Coverage::new();
    for seed in 0..total {
        let project = generate::project(seed, &mut coverage, &[]);
        let sources = project.sources();
        let mut loaded = Loaded::default();
        for (name, text) in &sources.files {
            project::add_bytes(&mut loaded, name.clone(), text.clone().into_bytes());
        }
        let specs: Vec<_> = sources
            .params
            .iter()
            .filter_map(|p| hilbert_frontend::ParamSpec::parse(p).ok())
            .collect();
        // The generator makes some projects the checker refuses: those have no IR.
        let Ok((_, Ok((ir, _)))) = hilbert_frontend::lower_project_params(&loaded, &specs) else {
            continue;
        };
        lowered += 1;
        for n in 0..ir.networks.len() {
            networks += 1;
            if let Err(e) = roundtrip::round_trip_network(&ir, n) {
                failures.push(format!(
                    "seed {seed}, network {n}: {e}\n{}",
                    project.listing()
                ));
            }
        }
    }
    eprintln!("{lowered} of {total} projects lower, {networks} networks, each round-trips");
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(
        lowered * 2 >= total as usize,
        "only {lowered} of {total} lower"
    );
    assert!(networks >= lowered);
}
