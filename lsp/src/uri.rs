//! `file:` URIs and paths. The editor names documents by URI; the front end reads paths. Only
//! `file:` URIs name files: any other (an unsaved `untitled:` buffer) has no path, and its
//! document is checked alone.

use lsp_types::Uri;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The path a `file:` URI names (percent-decoded), or `None` for any other URI, a remote
/// host, or one that does not decode to UTF-8.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text
        .strip_prefix("file://")
        .or_else(|| text.strip_prefix("FILE://"))?;
    // `file:///p` (empty host) or `file://localhost/p`.
    let path = match rest.strip_prefix("localhost") {
        Some(p) if p.starts_with('/') => p,
        _ if rest.starts_with('/') => rest,
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let decoded = decode(path)?;
    Some(PathBuf::from(decoded))
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    if !text.starts_with('/') {
        return None;
    }
    let mut out = String::from("file://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&out).ok()
}

/// Percent-decodes `text`; `None` when the bytes are not UTF-8 or an escape is malformed.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        Uri::from_str(s).expect("a URI")
    }

    #[test]
    fn paths_round_trip_through_uris() {
        let path = Path::new("/tmp/my project/Líne #1.hk");
        let u = from_path(path).expect("an absolute path");
        assert_eq!(u.as_str(), "file:///tmp/my%20project/L%C3%ADne%20%231.hk");
        assert_eq!(to_path(&u).as_deref(), Some(path));
        assert_eq!(
            to_path(&uri("file://localhost/a/B.ha")).as_deref(),
            Some(Path::new("/a/B.ha"))
        );
    }

    #[test]
    fn other_uris_name_no_file() {
        assert_eq!(to_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(to_path(&uri("file://server/share/a.ha")), None);
        assert_eq!(to_path(&uri("file:///bad%FF.ha")), None);
        assert_eq!(from_path(Path::new("relative.ha")), None);
    }
}
