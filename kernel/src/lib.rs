//! The trusted kernel of Hilbert.
//!
//! It re-checks the certificates the frontend emits against its own small reference semantics of
//! the core IR ([`semantics`]) and alone decides whether a build is admitted. It has no search,
//! no solver and no parser of `.ha`/`.hk` sources; it depends only on `hilbert-certificates` and
//! the standard library (plus serde and rayon at most).
//!
//! Today it holds the reference semantics; the certificate checks arrive with the certificate
//! format.

pub mod check;
pub mod eval;
pub mod semantics;
