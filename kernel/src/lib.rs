//! The trusted kernel of Hilbert.
//!
//! It re-checks the certificates the frontend emits against its own small reference semantics of
//! the core IR ([`semantics`]) and alone decides whether a build is admitted. It has no search,
//! no solver and no parser of `.ha`/`.hk` sources; it depends only on `hilbert-certificates` and
//! the standard library (plus serde and rayon at most).
//!
//! [`check::check`] is the entry point: certificate bytes in, a [`check::Report`] out, with an
//! [`check::Admitted`] only when every obligation was proved. `kernel/README.md` says what it
//! trusts and what it checks; `docs/certificates.md` is the auditor's guide.

pub mod check;
pub mod eval;
pub mod frame;
pub mod rank;
pub mod semantics;
