//! The certificate format shared by the frontend (which writes certificates) and the kernel
//! (which checks them): plain data types, versioning, canonical encoding and digests.
//!
//! Nothing is implemented here yet: the core IR and the format arrive with the explorer and the
//! kernel.
