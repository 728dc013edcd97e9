//! The Hilbert benchmark suite: models, generators and the harness behind `hilbert bench`.
//!
//! Nothing is implemented here yet.
