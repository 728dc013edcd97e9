//! The certificate format shared by the frontend (which writes certificates) and the kernel
//! (which checks them): plain data types, versioning, canonical encoding and digests.
//!
//! Today it holds the core IR ([`ir`]), which the explorer, the kernel and the runtime all read.

pub mod cert;
pub mod ir;
