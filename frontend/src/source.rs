//! Source files as the frontend sees them: their text, their dialect, and the mapping from byte
//! offsets to the 1-based lines and columns that diagnostics print.

use std::ops::Range;

/// Which of the three Hilbert dialects a file is written in, decided by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Dialect {
    /// `.ha`: an agent.
    Agent,
    /// `.hk`: plans as communicating processes.
    Plans,
    /// `.hb`: values that order licensed choices.
    Values,
}

impl Dialect {
    /// The dialect of a path, from its extension.
    pub fn of_path(path: &str) -> Option<Dialect> {
        let ext = path.rsplit_once('.')?.1;
        match ext {
            "ha" => Some(Dialect::Agent),
            "hk" => Some(Dialect::Plans),
            "hb" => Some(Dialect::Values),
            _ => None,
        }
    }

    /// The prefix of this dialect's diagnostic codes: `HA`, `HK` or `HB`.
    pub fn code_prefix(self) -> &'static str {
        match self {
            Dialect::Agent => "HA",
            Dialect::Plans => "HK",
            Dialect::Values => "HB",
        }
    }

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Dialect::Agent => "ha",
            Dialect::Plans => "hk",
            Dialect::Values => "hb",
        }
    }
}

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span of `range` in `file`.
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span {
            file,
            start: clamp_u32(range.start),
            end: clamp_u32(range.end),
        }
    }

    /// The smallest span covering both (which must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The empty span at this span's end.
    pub fn end_point(self) -> Span {
        Span {
            file: self.file,
            start: self.end,
            end: self.end,
        }
    }

    /// The byte range.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One source file: its path as the user gave it, its text and its line starts.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Its index in the source map.
    pub id: FileId,
    /// The path as given on the command line (or as found under a given directory).
    pub path: String,
    /// The dialect, from the extension.
    pub dialect: Dialect,
    /// The text. Empty when the file could not be read or was not UTF-8 (a diagnostic says so).
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// A file with the given text.
    pub fn new(id: FileId, path: String, dialect: Dialect, text: String) -> SourceFile {
        // A line ends at `\n`, at `\r\n`, and at a `\r` alone (classic Mac OS files).
        let mut line_starts = vec![0u32];
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                line_starts.push(clamp_u32(i + 1));
            }
        }
        SourceFile {
            id,
            path,
            dialect,
            text,
            line_starts,
        }
    }

    /// The file's stem (`Line` for `examples/x/Line.hk`): the name `.ha` files use for it.
    pub fn stem(&self) -> &str {
        let name = self.path.rsplit(['/', '\\']).next().unwrap_or(&self.path);
        name.rsplit_once('.').map_or(name, |(s, _)| s)
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = offset.min(clamp_u32(self.text.len()));
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() + 1;
        (line + 1, col)
    }

    /// The text of a 1-based line, without its line ending.
    pub fn line_text(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let start = start as usize;
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e as usize);
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

/// All the files of one check, indexed by [`FileId`].
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, path: String, dialect: Dialect, text: String) -> FileId {
        let id = FileId(clamp_u32(self.files.len()));
        self.files.push(SourceFile::new(id, path, dialect, text));
        id
    }

    /// The file with this id.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Every file, in the order added.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let f = SourceFile::new(
            FileId(0),
            "a.hk".into(),
            Dialect::Plans,
            "ab\nx ≔ y\n".into(),
        );
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        // `y` comes after the three-byte `≔`: byte 9, column 5.
        assert_eq!(f.line_col(9), (2, 5));
        assert_eq!(f.line_text(2), "x ≔ y");
        assert_eq!(f.line_text(3), "");
        assert_eq!(f.stem(), "a");
    }
}
