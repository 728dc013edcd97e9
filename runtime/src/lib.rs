//! The Hilbert runtime: runs agents from the very IR that was proved. It keeps the intention set,
//! applies the commitment law, drives the plan commands, journals every step for replay, and
//! deliberates with policies that can never choose an unlicensed option.
//!
//! Nothing is implemented here yet.
