//! Loading a project: the files named on the command line, or every `.ha`, `.hk` and `.hb` file
//! under a named directory, read into a [`SourceMap`].

use crate::diagnostic::Diagnostic;
use crate::input::{self, InputError};
use crate::source::{Dialect, FileId, SourceMap, Span};
use crate::syntax::codes;
use std::fmt;
use std::path::Path;

/// Why a project could not be loaded at all (an environment error, exit code 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// A file could not be read: missing, not permitted, not a regular file, or over the cap.
    Input(InputError),
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
    /// A directory link leads back to a directory that encloses it.
    LinkLoop {
        /// The link, as it would be shown.
        path: String,
        /// The enclosing directory it leads back to.
        target: String,
    },
}

impl LoadError {
    /// The path the error is about.
    pub fn path(&self) -> &str {
        match self {
            LoadError::Input(e) => e.path(),
            LoadError::NotASource { path }
            | LoadError::NoSources { path }
            | LoadError::LinkLoop { path, .. } => path,
        }
    }
}

impl From<InputError> for LoadError {
    fn from(e: InputError) -> Self {
        LoadError::Input(e)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Input(e) => e.fmt(f),
            LoadError::NotASource { path } => write!(
                f,
                "`{path}` is not a Hilbert source: the extensions are .ha, .hk and .hb"
            ),
            LoadError::NoSources { path } => {
                write!(f, "no .ha, .hk or .hb files under `{path}`")
            }
            LoadError::LinkLoop { path, target } => write!(
                f,
                "`{path}` leads back to `{target}`, which encloses it: a directory link loop"
            ),
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
    /// The bytes of each undecodable file as they were read (their digest is of these bytes, not
    /// of the lossy text), in the order of `undecodable`.
    pub undecodable_bytes: Vec<Vec<u8>>,
    /// One diagnostic per undecodable file.
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads every path: a file is taken as it is, a directory is searched recursively (skipping
/// hidden directories and `target`, following directory links but refusing a link loop) in sorted
/// order. The same file named twice is loaded once. Every file is read with
/// [`input::read_regular`], capped at [`input::SOURCE_CAP`].
pub fn load(paths: &[String]) -> Result<Loaded, LoadError> {
    let mut files = Vec::new();
    for path in paths {
        let p = Path::new(path);
        let meta = std::fs::metadata(p).map_err(|e| InputError::Io {
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
        let bytes = input::read_regular(Path::new(&path), &path, input::SOURCE_CAP)?;
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
            loaded.undecodable_bytes.push(e.into_bytes());
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

/// The identity of a directory: its device and inode (its canonical path elsewhere).
#[cfg(unix)]
fn identity(meta: &std::fs::Metadata, _: &Path) -> (u64, u64, std::path::PathBuf) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino(), std::path::PathBuf::new())
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata, path: &Path) -> (u64, u64, std::path::PathBuf) {
    (
        0,
        0,
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
    )
}

/// Collects the sources under `root` depth first in name order, without recursion (a deep tree
/// cannot overflow the stack). A directory reached twice by links is walked once; a link to a
/// directory that encloses it is a loop, and an error.
fn walk(root: &Path, shown: &str, out: &mut Vec<String>) -> Result<(), LoadError> {
    type Id = (u64, u64, std::path::PathBuf);
    let io = |path: &str, e: std::io::Error| InputError::Io {
        path: path.to_string(),
        reason: e.to_string(),
    };
    let root_meta = std::fs::metadata(root).map_err(|e| io(shown, e))?;
    let mut visited: std::collections::HashSet<Id> = std::collections::HashSet::new();
    visited.insert(identity(&root_meta, root));
    // The open directories, outermost first: (identity, shown path, entries left, reversed).
    struct Frame {
        id: Id,
        shown: String,
        left: Vec<(String, std::path::PathBuf)>,
    }
    let list = |dir: &Path, shown: &str| -> Result<Vec<(String, std::path::PathBuf)>, LoadError> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| io(shown, e))?
            .map(|e| e.map(|e| (e.file_name().to_string_lossy().into_owned(), e.path())))
            .collect::<Result<_, _>>()
            .map_err(|e| io(shown, e))?;
        entries.sort();
        entries.reverse();
        Ok(entries)
    };
    let mut stack = vec![Frame {
        id: identity(&root_meta, root),
        shown: shown.to_string(),
        left: list(root, shown)?,
    }];
    while let Some(frame) = stack.last_mut() {
        let Some((name, path)) = frame.left.pop() else {
            stack.pop();
            continue;
        };
        let shown_child = if frame.shown.ends_with('/') {
            format!("{}{name}", frame.shown)
        } else {
            format!("{}/{name}", frame.shown)
        };
        let link = std::fs::symlink_metadata(&path).map_err(|e| io(&shown_child, e))?;
        // A link is followed to what it names; a dangling link is named as unreadable only if it
        // looks like a source.
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if link.file_type().is_symlink() => {
                if Dialect::of_path(&name).is_some() {
                    return Err(io(&shown_child, e).into());
                }
                continue;
            }
            Err(e) => return Err(io(&shown_child, e).into()),
        };
        if meta.is_dir() {
            if name.starts_with('.') || name == "target" {
                continue;
            }
            let id = identity(&meta, &path);
            if let Some(outer) = stack.iter().find(|f| f.id == id) {
                return Err(LoadError::LinkLoop {
                    path: shown_child,
                    target: outer.shown.clone(),
                });
            }
            if !visited.insert(id.clone()) {
                continue;
            }
            let left = list(&path, &shown_child)?;
            stack.push(Frame {
                id,
                shown: shown_child,
                left,
            });
        } else if Dialect::of_path(&name).is_some() {
            out.push(shown_child);
        }
    }
    Ok(())
}
