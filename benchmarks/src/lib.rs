//! The Hilbert benchmark suite: models, generators and the harness behind `hilbert bench`.
//!
//! - Generators, one per model family, each returning a project's files as `(name, text)`
//!   pairs: [`philosophers`] (which also writes `examples/dining-philosophers-*`),
//!   [`token_ring`], [`scheduler`] (Milner's cyclic scheduler) and [`pipeline`] (the seed's
//!   `Build`, chained) and [`plain_table`] (philosophers with no beliefs, Spin's graph);
//!   the scaling shapes [`scaling::seq`], [`scaling::par`] and [`scaling::files`].
//! - [`suite`]: the models of `benchmarks/models/` (each a `bench.toml`), and [`generate`],
//!   which gives any model's project for a size `n`.
//! - [`harness`]: one measured row (explore, prove, kernel) of the table.
//! - [`scaling`]: the scaling rows (the whole `hilbert build` against the input's size).
//! - [`spin`]: running the Promela peers of `benchmarks/peers/spin/` with Spin.
//! - [`plot`]: the SVG charts of `hilbert bench --plot`.

pub mod harness;
pub mod philosophers;
pub mod pipeline;
pub mod plain_table;
pub mod plot;
pub mod scaling;
pub mod scheduler;
pub mod spin;
pub mod suite;
pub mod token_ring;

pub use philosophers::philosophers;
pub use pipeline::pipeline;
pub use plain_table::plain_table;
pub use scheduler::scheduler;
pub use suite::generate;
pub use token_ring::token_ring;
