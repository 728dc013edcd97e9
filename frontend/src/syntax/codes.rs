//! The syntax diagnostics, shared by the three dialects: each has the same number in every family
//! (`HA0006`, `HK0006` and `HB0006` are all "unexpected token"). Numbers 1–19 are reserved for
//! syntax; the checks start at 20.

use crate::diagnostic::Code;
use crate::source::Dialect;

macro_rules! syntax_codes {
    ($($(#[$doc:meta])* $name:ident = $n:expr;)*) => {
        $( $(#[$doc])* pub fn $name(d: Dialect) -> Code { Code::new(d, $n) } )*
        /// Every syntax code number, for the explanation registry and its tests.
        pub const NUMBERS: &[u16] = &[$($n),*];
    };
}

syntax_codes! {
    /// A character no dialect uses.
    unexpected_character = 1;
    /// A string literal without its closing quote on its line.
    unterminated_string = 2;
    /// An escape other than `\"`, `\\`, `\n`.
    bad_escape = 3;
    /// An integer literal outside the 64-bit range.
    integer_too_large = 4;
    /// The file is not UTF-8 text.
    not_utf8 = 5;
    /// A token where the grammar wants something else.
    unexpected_token = 6;
    /// Parentheses, braces or operators nested deeper than the parser allows.
    nesting_too_deep = 7;
    /// So many errors that the rest of the file was not read.
    too_many_errors = 8;
    /// A `(`, `[` or `{` never closed.
    unclosed_delimiter = 9;
    /// A file with nothing in it.
    empty_file = 10;
}
