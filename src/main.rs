//! The `hilbert` command line.
fn main() {}
