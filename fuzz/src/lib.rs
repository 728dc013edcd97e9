//! What the fuzz targets share.

use hilbert_certificates::cert::{
    FORMAT_MAJOR, FORMAT_MINOR, HEADER_LEN, MAGIC, SEMANTICS, SourceDigest, sha256,
};
use hilbert_frontend::project::Loaded;

/// `body` sealed as a certificate: a valid magic, header and SHA-256 trailer around it (random
/// bytes never get past the trailer otherwise).
pub fn seal(body: &[u8]) -> Vec<u8> {
    let mut sealed = Vec::with_capacity(MAGIC.len() + HEADER_LEN + body.len() + 32);
    sealed.extend_from_slice(MAGIC);
    sealed.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
    sealed.extend_from_slice(&FORMAT_MINOR.to_le_bytes());
    sealed.extend_from_slice(&SEMANTICS.to_le_bytes());
    sealed.extend_from_slice(&[0u8; HEADER_LEN - 6]);
    sealed.extend_from_slice(body);
    let sum = sha256(&sealed);
    sealed.extend_from_slice(&sum);
    sealed
}

/// `examples/production-line`, loaded (run from the repository root), and its sources' digests
/// as a certificate lists them.
pub fn production_line() -> (Loaded, Vec<SourceDigest>) {
    let loaded = hilbert_frontend::project::load(&["examples/production-line".to_string()])
        .expect("run from the repository root");
    let digests = loaded
        .sources
        .files()
        .iter()
        .map(|f| SourceDigest {
            path: f.path.clone(),
            sha256: sha256(f.text.as_bytes()),
        })
        .collect();
    (loaded, digests)
}
