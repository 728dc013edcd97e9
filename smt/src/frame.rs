//! Frame conditions (see docs/frames.md).
