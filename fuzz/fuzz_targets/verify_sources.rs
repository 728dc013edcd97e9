//! `hilbert verify --sources`, fuzzed: arbitrary bytes, sealed as a certificate body (a valid
//! header and checksum), checked by the kernel against the sources of
//! `examples/production-line` and the IR they lower to, as `verify --sources` checks them. No
//! input may panic, hang or exhaust memory; nothing may be admitted unless every obligation was
//! proved and the certificate carries exactly those sources and that IR; and a build is never
//! admitted from fewer certificates than the sources have networks. Run from the repository
//! root with `cargo +nightly fuzz run verify_sources` (seed it as `fuzz/README.md` says).
#![no_main]

use hilbert_certificates::cert::{self, SourceDigest, sha256};
use hilbert_certificates::ir::Ir;
use hilbert_kernel::check::{Expected, Verdict, admit_build, check};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The production line's sources and IR, lowered once.
fn project() -> &'static (Vec<SourceDigest>, Ir, Vec<u8>) {
    static P: OnceLock<(Vec<SourceDigest>, Ir, Vec<u8>)> = OnceLock::new();
    P.get_or_init(|| {
        let (loaded, sources) = hilbert_fuzz::production_line();
        let given = hilbert_frontend::AgentArgs::new();
        let (ir, _) = hilbert_frontend::lower_project(&loaded, &given).expect("the example lowers");
        let bytes = cert::ir_bytes(&ir);
        (sources, ir, bytes)
    })
}

fuzz_target!(|data: &[u8]| {
    let (sources, ir, ir_bytes) = project();
    let expected = Expected {
        sources,
        ir: ir_bytes,
    };
    let sealed = hilbert_fuzz::seal(data);
    for bytes in [data, &sealed[..]] {
        let report = check(bytes, Some(&expected));
        let Some(token) = &report.admitted else {
            continue;
        };
        assert!(report.invalid.is_none());
        assert!(!report.obligations.is_empty());
        assert!(
            report
                .obligations
                .iter()
                .all(|(_, v)| *v == Verdict::Proved)
        );
        let body = cert::decode(bytes).expect("an admitted certificate decodes");
        assert_eq!(&cert::ir_bytes(&body.ir), ir_bytes);
        assert_eq!(token.ir(), &sha256(ir_bytes));
        // One certificate never covers the production line's two networks.
        assert!(admit_build(ir, &[token]).is_err());
    }
});
