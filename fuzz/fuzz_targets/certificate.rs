//! Feeds arbitrary bytes to the kernel: no input may panic, hang, overflow the stack or exhaust
//! memory, and nothing the fuzzer makes may be admitted unless every obligation was proved. Run
//! with `cargo +nightly fuzz run certificate` from the repository root.
//!
//! Random bytes almost never get past the magic and the SHA-256 trailer, so each input is checked
//! twice: as given, and sealed as the body of a certificate (magic, a valid header, the bytes,
//! their checksum), which takes the fuzzer into the body decoder and the witness checks. Seed it
//! with the bodies of real certificates (see `fuzz/README.md`).
#![no_main]

use hilbert_kernel::check::{Report, Verdict, check};
use libfuzzer_sys::fuzz_target;

fn sound(report: &Report) {
    if report.admitted.is_some() {
        assert!(report.invalid.is_none());
        assert!(
            report
                .obligations
                .iter()
                .all(|(_, v)| *v == Verdict::Proved)
        );
    }
}

fuzz_target!(|data: &[u8]| {
    sound(&check(data, None));
    let sealed = hilbert_fuzz::seal(data);
    sound(&check(&sealed, None));
});
