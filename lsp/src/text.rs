//! Positions: the protocol's (line, character) pairs and the front end's byte offsets.
//!
//! The protocol counts characters in UTF-16 code units unless the client agreed to UTF-8
//! (`positionEncoding`, negotiated in `initialize`); the front end's spans are byte ranges. A
//! line ends at `\n`, `\r\n` or a `\r` alone, as [`hilbert_frontend::SourceFile`] counts them.
//! Every conversion is total: a position past the end of its line is clamped to the line's
//! end, one past the last line to the end of the text, and one inside a character to its start.

use lsp_types::{Position, Range};

/// How the protocol's `character` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-16 code units (the protocol's default).
    Utf16,
    /// Bytes of UTF-8.
    Utf8,
}

/// Where each line of a text starts, for converting positions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// The line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                starts.push(i + 1);
            }
        }
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// The byte offset of `pos` in `text` (the text this index was made from).
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return self.len;
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .copied()
            .unwrap_or(self.len);
        let line = text.get(start..end).unwrap_or("");
        let line = line.trim_end_matches(['\n', '\r']);
        let want = pos.character as usize;
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units >= want {
                return start + i;
            }
            units += match enc {
                Encoding::Utf16 => c.len_utf16(),
                Encoding::Utf8 => c.len_utf8(),
            };
            if units > want {
                // Inside a character: its start.
                return start + i;
            }
        }
        start + line.len()
    }

    /// The position of byte `offset` in `text` (an offset inside a character counts as its
    /// start; one past the end as the end).
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(self.len).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let before = &text[start..offset];
        let character = match enc {
            Encoding::Utf16 => before.chars().map(char::len_utf16).sum::<usize>(),
            Encoding::Utf8 => before.len(),
        };
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: u32::try_from(character).unwrap_or(u32::MAX),
        }
    }

    /// The range of bytes `start..end` in `text`.
    pub fn range(&self, text: &str, start: usize, end: usize, enc: Encoding) -> Range {
        Range {
            start: self.position(text, start, enc),
            end: self.position(text, end.max(start), enc),
        }
    }
}

/// `text` with the change `new` in place of `range` (an incremental `didChange`); a range
/// past the end is clamped, and one whose end is before its start replaces nothing.
pub fn apply_change(text: &str, range: Range, new: &str, enc: Encoding) -> String {
    let index = LineIndex::new(text);
    let start = index.offset(text, range.start, enc);
    let end = index.offset(text, range.end, enc).max(start);
    let mut out = String::with_capacity(text.len() + new.len());
    out.push_str(&text[..start]);
    out.push_str(new);
    out.push_str(&text[end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_counts_code_units_and_utf8_bytes() {
        // `≔` is one UTF-16 unit and three bytes; `𝔹` two units and four bytes.
        let text = "x ≔ 1\r\n𝔹y\rz";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, pos(0, 4), Encoding::Utf16), 6);
        assert_eq!(index.offset(text, pos(0, 6), Encoding::Utf8), 6);
        assert_eq!(index.position(text, 6, Encoding::Utf16), pos(0, 4));
        assert_eq!(index.position(text, 6, Encoding::Utf8), pos(0, 6));
        // The second line: `y` after a character of two units.
        assert_eq!(index.offset(text, pos(1, 2), Encoding::Utf16), 13);
        assert_eq!(index.position(text, 13, Encoding::Utf16), pos(1, 2));
        // A lone `\r` ends a line.
        assert_eq!(
            index.position(text, text.len() - 1, Encoding::Utf16),
            pos(2, 0)
        );
    }

    #[test]
    fn positions_out_of_range_are_clamped() {
        let text = "ab\n𝔹";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, pos(0, 99), Encoding::Utf16), 2);
        assert_eq!(index.offset(text, pos(9, 0), Encoding::Utf16), text.len());
        // Between the two units of `𝔹`: its start.
        assert_eq!(index.offset(text, pos(1, 1), Encoding::Utf16), 3);
        // An offset inside a character: its start.
        assert_eq!(index.position(text, 5, Encoding::Utf16), pos(1, 0));
        assert_eq!(index.position(text, 99, Encoding::Utf16), pos(1, 2));
    }

    #[test]
    fn changes_apply_by_range() {
        let text = "plan P ↦ Line.Produce\n";
        let changed = apply_change(
            text,
            Range::new(pos(0, 9), pos(0, 13)),
            "Lime",
            Encoding::Utf16,
        );
        assert_eq!(changed, "plan P ↦ Lime.Produce\n");
        let reversed = apply_change(text, Range::new(pos(0, 4), pos(0, 2)), "!", Encoding::Utf16);
        assert_eq!(reversed, "plan! P ↦ Line.Produce\n");
    }
}
