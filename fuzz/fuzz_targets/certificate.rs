//! Feeds arbitrary bytes to the kernel: no input may panic, hang, overflow the stack or exhaust
//! memory, and nothing the fuzzer makes may be admitted unless every obligation was proved. Run
//! with `cargo +nightly fuzz run certificate` from the repository root.
//!
//! Random bytes almost never get past the magic and the SHA-256 trailer, so each input is checked
//! twice: as given, and sealed as the body of a certificate (magic, a valid header, the bytes,
//! their checksum), which takes the fuzzer into the body decoder and the witness checks. Seed it
//! with the bodies of real certificates (see `fuzz/README.md`).
#![no_main]

use hilbert_certificates::cert::{FORMAT_MAJOR, FORMAT_MINOR, HEADER_LEN, MAGIC, SEMANTICS, sha256};
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
    let mut sealed = Vec::with_capacity(MAGIC.len() + HEADER_LEN + data.len() + 32);
    sealed.extend_from_slice(MAGIC);
    sealed.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
    sealed.extend_from_slice(&FORMAT_MINOR.to_le_bytes());
    sealed.extend_from_slice(&SEMANTICS.to_le_bytes());
    sealed.extend_from_slice(&[0u8; HEADER_LEN - 6]);
    sealed.extend_from_slice(data);
    let sum = sha256(&sealed);
    sealed.extend_from_slice(&sum);
    sound(&check(&sealed, None));
});
