//! The Hilbert benchmark suite: models, generators and the harness behind `hilbert bench`.
//!
//! Today it holds the generator of the dining philosophers ([`philosophers`]), which writes the
//! two examples `examples/dining-philosophers-{symmetric,asymmetric}` and tables of any size.

pub mod philosophers;

pub use philosophers::philosophers;
