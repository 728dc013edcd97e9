//! Linear ranking functions for liveness.
