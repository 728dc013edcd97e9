//! `hilbert lsp`: a language server for `.ha`, `.hk` and `.hb` sources, over the Language
//! Server Protocol on standard input and output.
//!
//! Built on the front end, never beside it: diagnostics are the check's own
//! ([`hilbert_frontend::check_project_cancellable`]: the codes, spans, notes and help of
//! `hilbert check`, the frame conditions included, Z3 under a short budget), and navigation
//! reads the parser's trees ([`index`]). `docs/editors.md` says how to use it from an editor.
//!
//! - [`transport`]: the wire (framing, and what a malformed frame gets).
//! - [`server`]: the life cycle, documents, checks and requests.
//! - [`workspace`]: documents and projects; [`index`]: the names of a project and what each
//!   means; [`features`]: hover, definition, references, symbols, completion;
//!   [`diagnostics`]: the checker thread and the diagnostics it publishes.
//! - [`text`], [`uri`]: positions and `file:` URIs.
//!
//! **Invariants.** No input makes the server panic or stop but `exit` or the end of its input:
//! a frame that is not a message is answered with an error, a request's handler that failed
//! is answered with an internal error. No request waits on a check: requests are answered from
//! the parsed trees on the server's thread, checks run on the checker's.

pub mod diagnostics;
pub mod features;
pub mod index;
pub mod server;
pub mod text;
pub mod transport;
pub mod uri;
pub mod workspace;

/// Serves the protocol on standard input and output until `exit` or the end of the input;
/// the exit code (0 after `shutdown` then `exit`, 1 otherwise, as the protocol asks).
pub fn run_stdio() -> i32 {
    let (to_server, incoming) = crossbeam_channel::unbounded();
    let (out, outgoing) = crossbeam_channel::unbounded();
    let reader_out = out.clone();
    // The reader is never joined: it may be blocked reading the input when the server exits.
    let reader = std::thread::Builder::new()
        .name("hilbert-lsp-reader".into())
        .spawn(move || transport::read_loop(std::io::stdin(), &to_server, &reader_out));
    let writer = std::thread::Builder::new()
        .name("hilbert-lsp-writer".into())
        .spawn(move || transport::write_loop(std::io::stdout(), &outgoing));
    let (jobs, pending) = crossbeam_channel::unbounded();
    let (finished, done) = crossbeam_channel::unbounded();
    // The checker gets the stack the command's main thread has: the front end's checks
    // recurse on expressions (its parser runs on a thread of its own).
    let checker = std::thread::Builder::new()
        .name("hilbert-lsp-checker".into())
        .stack_size(16 << 20)
        .spawn(move || diagnostics::checker(&pending, &finished));
    let (Ok(_reader), Ok(writer), Ok(_checker)) = (reader, writer, checker) else {
        eprintln!("hilbert lsp: could not start its threads");
        return 2;
    };
    let code = server::Server::new(out, jobs).run(&incoming, &done);
    // Everything sent is written before the process ends; a check in progress is not waited
    // for (it was cancelled).
    let _ = writer.join();
    code
}
