//! The editor's documents and the projects they belong to.
//!
//! A project is a directory checked as `hilbert check DIR` checks it: every `.ha`, `.hk` and
//! `.hb` file under it. The project of a file is the deepest directory of the `projects`
//! setting that holds it, or else the file's own directory (so each folder of `examples/` is a
//! project of its own). Its files are read from the disk, except the open ones, whose text is
//! the editor's: a file deleted while open is still checked from its text, and one created in
//! the editor and not yet saved too.

use hilbert_frontend::project::{self, Loaded};
use hilbert_frontend::syntax::ast::Module;
use hilbert_frontend::{Dialect, FileId, SourceMap};
use lsp_types::Uri;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::index::Index;

/// An open document.
#[derive(Clone, Debug)]
pub struct Document {
    /// Its URI, as the editor names it.
    pub uri: Uri,
    /// Its text now.
    pub text: String,
    /// Its version, as the editor numbers it.
    pub version: i32,
}

/// A project's files as read now, with the open documents' texts in place of the disk's.
pub struct Sources {
    /// The files, as the front end loads them (a file that is not UTF-8 is a diagnostic).
    pub loaded: Loaded,
    /// Why the directory could not be read, when it could not (only open documents are then
    /// checked).
    pub load_error: Option<String>,
    /// The version of each open document the text is from.
    pub versions: BTreeMap<PathBuf, i32>,
}

/// A project parsed and indexed for navigation.
pub struct Snapshot {
    /// The files.
    pub sources: SourceMap,
    /// The tree of each file that was parsed (undecodable files are not).
    pub modules: Vec<(FileId, Module)>,
    /// The names in them.
    pub index: Index,
}

impl Snapshot {
    /// Parses and indexes `sources` (the front end's parser, with its recovery).
    pub fn new(sources: &Sources) -> Snapshot {
        let files: Vec<&hilbert_frontend::SourceFile> = sources
            .loaded
            .sources
            .files()
            .iter()
            .filter(|f| !sources.loaded.undecodable.contains(&f.id))
            .collect();
        let modules: Vec<(FileId, Module)> = files
            .iter()
            .zip(hilbert_frontend::syntax::parse_many(&files))
            .map(|(f, (m, _))| (f.id, m))
            .collect();
        let index = Index::new(&sources.loaded.sources, &modules);
        Snapshot {
            sources: sources.loaded.sources.clone(),
            modules,
            index,
        }
    }

    /// The file at `path`.
    pub fn file(&self, path: &Path) -> Option<&hilbert_frontend::SourceFile> {
        let path = path.to_str()?;
        self.sources.files().iter().find(|f| f.path == path)
    }

    /// The tree of file `id`.
    pub fn module(&self, id: FileId) -> Option<&Module> {
        self.modules.iter().find(|(f, _)| *f == id).map(|(_, m)| m)
    }
}

/// The directory holding `path`'s project: the deepest of `roots` that holds it, or its own
/// directory.
pub fn project_of(path: &Path, roots: &[PathBuf]) -> PathBuf {
    roots
        .iter()
        .filter(|r| path.starts_with(r))
        .max_by_key(|r| r.components().count())
        .cloned()
        .unwrap_or_else(|| {
            path.parent()
                .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)
        })
}

/// Whether `project::load` of `root` would read `path`: under it, and in no hidden directory
/// or `target` below it.
fn walked(root: &Path, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(root) else {
        return false;
    };
    let mut dirs: Vec<Component<'_>> = rest.components().collect();
    dirs.pop();
    dirs.iter().all(|c| match c {
        Component::Normal(n) => {
            let n = n.to_string_lossy();
            !n.starts_with('.') && n != "target"
        }
        _ => false,
    })
}

/// Reads the project at `root`, with the open documents' texts for its files.
pub fn read(root: &Path, docs: &BTreeMap<PathBuf, Document>) -> Sources {
    let mut loaded = Loaded::default();
    let mut versions = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut load_error = None;
    let disk = match root.to_str() {
        Some(r) => project::load(&[r.to_string()]).map_err(Some),
        None => Err(None),
    };
    match disk {
        Ok(from_disk) => {
            for file in from_disk.sources.files() {
                let path = PathBuf::from(&file.path);
                let bytes = match docs.get(&path) {
                    Some(doc) => {
                        versions.insert(path.clone(), doc.version);
                        doc.text.clone().into_bytes()
                    }
                    None => match from_disk.undecodable.iter().position(|&id| id == file.id) {
                        Some(i) => from_disk.undecodable_bytes[i].clone(),
                        None => file.text.clone().into_bytes(),
                    },
                };
                seen.insert(path);
                project::add_bytes(&mut loaded, file.path.clone(), bytes);
            }
        }
        // A directory with no sources on disk (every file unsaved, or deleted) is checked
        // from its open documents; one that cannot be read is too, and says why.
        Err(Some(project::LoadError::NoSources { .. })) => {}
        Err(_) if !root.is_dir() => {}
        Err(Some(e)) => load_error = Some(e.to_string()),
        Err(None) => load_error = Some("the directory's name is not UTF-8".into()),
    }
    for (path, doc) in docs {
        if seen.contains(path) || !walked(root, path) {
            continue;
        }
        let (Some(text), Some(_)) = (path.to_str(), path.to_str().and_then(Dialect::of_path))
        else {
            continue;
        };
        versions.insert(path.clone(), doc.version);
        project::add_bytes(&mut loaded, text.to_string(), doc.text.clone().into_bytes());
    }
    Sources {
        loaded,
        load_error,
        versions,
    }
}

/// A copy of `loaded` (the front end's `Loaded` is not `Clone`).
pub fn copy(loaded: &Loaded) -> Loaded {
    Loaded {
        sources: loaded.sources.clone(),
        undecodable: loaded.undecodable.clone(),
        undecodable_bytes: loaded.undecodable_bytes.clone(),
        diagnostics: loaded.diagnostics.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_belongs_to_its_directory_unless_a_root_holds_it() {
        let f = Path::new("/w/examples/line/Line.hk");
        assert_eq!(project_of(f, &[]), Path::new("/w/examples/line"));
        let roots = [PathBuf::from("/w"), PathBuf::from("/w/examples")];
        assert_eq!(project_of(f, &roots), Path::new("/w/examples"));
        assert_eq!(project_of(Path::new("/v/a.ha"), &roots), Path::new("/v"));
    }

    #[test]
    fn hidden_directories_and_target_are_not_walked() {
        let root = Path::new("/p");
        assert!(walked(root, Path::new("/p/a.ha")));
        assert!(walked(root, Path::new("/p/sub/a.ha")));
        assert!(!walked(root, Path::new("/p/.git/a.ha")));
        assert!(!walked(root, Path::new("/p/target/a.ha")));
        assert!(!walked(root, Path::new("/q/a.ha")));
    }
}
