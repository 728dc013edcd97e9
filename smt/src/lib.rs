//! Everything in Hilbert that talks to Z3: condition analysis, frame conditions of the agents'
//! Kripke frames, and ranking functions for liveness. Every query is also written as SMT-LIB 2 so
//! that an auditor can rerun it with another solver.
//!
//! Nothing is implemented here yet.
