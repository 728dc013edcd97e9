//! Hilbert's untrusted prover: from the core IR the front end lowers ([`hilbert_frontend`]), it
//! explores each plan network's states ([`explore`]: the reference explorer over the kernel's
//! semantics and the fast one beside it), decides the theorems of `docs/language.md` §4 on them
//! with shortest counterexamples ([`obligations`]; assertions and weak fairness in [`props`]),
//! and writes each network's certificate with a
//! witness per obligation ([`certify`]), which the kernel re-checks. Nothing here is trusted: a
//! mistake in it can cost a proof, never admit a false one.
//!
//! The tree shows the pipeline: front end → IR → prover → certificate → kernel.

pub mod certify;
pub mod explore;
pub mod memory;
pub mod obligations;
pub mod props;
