//! Writing to the terminal without panicking: a closed pipe (`hilbert check | head`) ends the
//! output quietly instead of aborting with a panic, as `println!` would.

use std::io::Write;

/// Writes `text` to standard output. A write error (a closed pipe) is ignored: the exit code
/// still says what was found.
pub fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Writes an environment or usage error to standard error, as `error: …` and a `help:` line,
/// and returns exit code 2.
pub fn fail(message: &str, help: &str) -> u8 {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "error: {message}");
    if !help.is_empty() {
        let _ = writeln!(err, "  = help: {help}");
    }
    crate::EXIT_USAGE
}
