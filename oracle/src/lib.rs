//! A second, independent semantics of Hilbert plan networks, written from `docs/semantics.md`
//! and `docs/language.md` alone (no code shared with the lowering, the explorers or the kernel's
//! semantics, and no IR), a generator of random well-typed projects, and the differential test
//! of `hilbert build` against them. See `oracle/README.md`.

pub mod campaign;
pub mod decide;
pub mod generate;
pub mod guard;
pub mod model;
pub mod pipeline;
pub mod sem;
pub mod shrink;
