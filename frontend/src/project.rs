//! Loading a project: the files named on the command line, or every `.ha`, `.hk` and `.hb` file
//! under a named directory, read into a [`SourceMap`].

use crate::diagnostic::Diagnostic;
use crate::source::{Dialect, FileId, SourceMap, Span};
use crate::syntax::codes;
use std::fmt;
use std::path::Path;

/// Why a project could not be loaded at all (an environment error, exit code 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The path does not exist or cannot be read.
    Unreadable {
        /// The path as given.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// A file was named whose extension is not `.ha`, `.hk` or `.hb`.
    NotASource {
        /// The path as given.
        path: String,
    },
    /// A directory holds no source at all.
    NoSources {
        /// The directory as given.
        path: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Unreadable { path, reason } => write!(f, "cannot read `{path}`: {reason}"),
            LoadError::NotASource { path } => write!(
                f,
                "`{path}` is not a Hilbert source: the extensions are .ha, .hk and .hb"
            ),
            LoadError::NoSources { path } => {
                write!(f, "no .ha, .hk or .hb files under `{path}`")
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// Files loaded for a check, and the diagnostics loading produced (a file that is not UTF-8).
#[derive(Debug, Default)]
pub struct Loaded {
    /// The files.
    pub sources: SourceMap,
    /// Files whose bytes could not be decoded; they are in `sources` with their text decoded
    /// lossily (for display) but are not parsed.
    pub undecodable: Vec<FileId>,
    /// One diagnostic per undecodable file.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads every path: a file is taken as it is, a directory is searched recursively (skipping
/// hidden directories and `target`) in sorted order. The same file named twice is loaded once.
pub fn load(paths: &[String]) -> Result<Loaded, LoadError> {
    let mut files = Vec::new();
    for path in paths {
        let p = Path::new(path);
        let meta = std::fs::metadata(p).map_err(|e| LoadError::Unreadable {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        if meta.is_dir() {
            let before = files.len();
            walk(p, path, &mut files)?;
            if files.len() == before {
                return Err(LoadError::NoSources { path: path.clone() });
            }
        } else if Dialect::of_path(path).is_some() {
            files.push(path.clone());
        } else {
            return Err(LoadError::NotASource { path: path.clone() });
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut loaded = Loaded::default();
    for path in files {
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone().into());
        if !seen.insert(canonical) {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|e| LoadError::Unreadable {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        add_bytes(&mut loaded, path, bytes);
    }
    Ok(loaded)
}

/// Adds one file's bytes (used by [`load`], and by tests that build projects in memory).
pub fn add_bytes(loaded: &mut Loaded, path: String, bytes: Vec<u8>) -> FileId {
    let dialect = Dialect::of_path(&path).unwrap_or(Dialect::Agent);
    match String::from_utf8(bytes) {
        Ok(text) => loaded.sources.add(path, dialect, text),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let id = loaded.sources.add(path, dialect, text);
            let span = Span::new(id, valid..valid + 1);
            loaded.undecodable.push(id);
            loaded.diagnostics.push(
                Diagnostic::error(
                    codes::not_utf8(dialect),
                    span,
                    "this file is not valid UTF-8 text",
                )
                .with_label(format!("byte {valid} does not begin a UTF-8 character"))
                .with_note("the file was not parsed")
                .with_help("save the file as UTF-8; Hilbert sources are text"),
            );
            id
        }
    }
}

fn walk(dir: &Path, shown: &str, out: &mut Vec<String>) -> Result<(), LoadError> {
    let unreadable = |e: std::io::Error| LoadError::Unreadable {
        path: shown.to_string(),
        reason: e.to_string(),
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(unreadable)?
        .collect::<Result<_, _>>()
        .map_err(unreadable)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let shown_child = if shown.ends_with('/') {
            format!("{shown}{name}")
        } else {
            format!("{shown}/{name}")
        };
        let ty = entry.file_type().map_err(unreadable)?;
        if ty.is_dir() {
            if !name.starts_with('.') && name != "target" {
                walk(&entry.path(), &shown_child, out)?;
            }
        } else if Dialect::of_path(&name).is_some() {
            out.push(shown_child);
        }
    }
    Ok(())
}
