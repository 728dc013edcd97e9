//! The incremental cache of `hilbert build`, fuzzed: the certificate an earlier build kept for a
//! network of `examples/production-line` is replaced by arbitrary bytes (as given, sealed as a
//! certificate body with a valid header and checksum, or the real certificate damaged: bytes
//! flipped from an offset, or cut short), and the build proves the project reusing it
//! (`obligations::prove_reusing`, as `build` does with what its `--out` keeps). No input may
//! panic, hang or exhaust memory, and whatever the cache holds, every theorem gets the verdict
//! a fresh build gives it: a damaged cache is a stale cache, never a false verdict (issue 32,
//! item 4). Run from the repository root with `cargo +nightly fuzz run cache`.
#![no_main]

use hilbert_certificates::cert::SourceDigest;
use hilbert_frontend::project::Loaded;
use hilbert_prover::explore::{Explorer, Limits};
use hilbert_prover::obligations::{KeptProof, Proofs, prove_reusing};
use libfuzzer_sys::fuzz_target;

struct Project {
    loaded: Loaded,
    checked: hilbert_frontend::Checked,
    digests: Vec<SourceDigest>,
    /// A fresh build's proofs: the verdicts, the kept certificates.
    fresh: Proofs,
}

fn limits() -> Limits {
    Limits {
        jobs: 1,
        ..Limits::default()
    }
}

/// The project, checked and proved fresh once (per thread: Z3's terms are not `Sync`).
fn project() -> &'static Project {
    thread_local! {
        static P: &'static Project = Box::leak(Box::new(load()));
    }
    P.with(|p| *p)
}

fn load() -> Project {
    {
        let (loaded, digests) = hilbert_fuzz::production_line();
        let checked = hilbert_frontend::check_project(&loaded);
        let ir = checked.ir.as_ref().expect("the example lowers");
        let fresh = prove_reusing(
            ir,
            &checked.program,
            &loaded.sources,
            &digests,
            limits(),
            Explorer::Fast,
            &|_, _| None,
        );
        assert!(fresh.certificates.iter().all(|c| !c.bytes.is_empty()));
        Project {
            loaded,
            checked,
            digests,
            fresh,
        }
    }
}

/// What a theorem's verdict is, without the counts that differ between an exploration and a
/// kernel's recount.
fn verdicts(p: &Proofs) -> Vec<(String, String, String, &'static str)> {
    p.theorems
        .iter()
        .map(|t| {
            (
                t.network.clone(),
                t.name.clone(),
                t.statement.clone(),
                t.status.word(),
            )
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let p = project();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let which = usize::from(mode >> 2) % p.fresh.certificates.len();
    let real = &p.fresh.certificates[which].bytes;
    let kept: Vec<u8> = match mode & 3 {
        0 => rest.to_vec(),
        1 => hilbert_fuzz::seal(rest),
        2 => {
            // The real certificate with `rest[4..]` xored in from the offset `rest[..4]` says.
            let Some((at, patch)) = rest.split_first_chunk::<4>() else {
                return;
            };
            let mut bytes = real.clone();
            let at = u32::from_le_bytes(*at) as usize % bytes.len();
            for (b, x) in bytes[at..].iter_mut().zip(patch) {
                *b ^= x;
            }
            bytes
        }
        _ => {
            let Some((at, _)) = rest.split_first_chunk::<4>() else {
                return;
            };
            real[..u32::from_le_bytes(*at) as usize % real.len()].to_vec()
        }
    };
    let name = &p.fresh.certificates[which].name;
    let ir = p.checked.ir.as_ref().expect("lowered");
    let proofs = prove_reusing(
        ir,
        &p.checked.program,
        &p.loaded.sources,
        &p.digests,
        limits(),
        Explorer::Fast,
        &|network, _| {
            (network == name).then(|| KeptProof {
                certificate: kept.clone(),
                results: None,
            })
        },
    );
    assert_eq!(verdicts(&proofs), verdicts(&p.fresh));
    let reused = proofs.certificates.iter().find(|c| c.name == *name);
    if let Some(c) = reused.filter(|c| c.reused.is_some()) {
        // Reused only when the kernel admitted what was kept.
        assert_eq!(c.bytes, kept);
        assert!(c.reused.as_ref().unwrap().report.admitted.is_some());
    }
});
