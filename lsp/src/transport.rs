//! The wire: JSON-RPC messages framed by `Content-Length` headers on standard input and output.
//!
//! lsp-server's own stdio transport ends the connection at the first malformed frame and
//! allocates whatever a `Content-Length` says; this one answers a frame it cannot read with a
//! JSON-RPC error (`-32700`, parse error: not JSON, not UTF-8, not a message) and reads on, and
//! skips a frame over [`MAX_FRAME`] without holding it. Only the end of the input, or a header
//! it cannot find the end of, ends the reading.

use crossbeam_channel::{Receiver, Sender};
use lsp_server::Message;
use std::io::{self, BufRead, Read, Write};

/// The largest frame read: sixteen source files' worth (a source is at most 16 MiB).
pub const MAX_FRAME: usize = 256 << 20;

/// The longest header line read.
const MAX_HEADER: usize = 4096;

/// What the writer sends: a message, or an error about a frame that was no message (its id
/// unknown, so `null`).
#[derive(Debug)]
pub enum Outgoing {
    /// A message.
    Message(Message),
    /// A response with id `null` and this error.
    Unreadable {
        /// The JSON-RPC error code.
        code: i32,
        /// What was wrong.
        message: String,
    },
}

/// What the reader got.
#[derive(Debug)]
pub enum Incoming {
    /// A message.
    Message(Message),
    /// A frame that was no message (already answered with an error).
    Unreadable(String),
}

/// Reads frames from `input` until it ends, sending each message on `to_server`, and each
/// unreadable frame's error on `to_client`. Returns when the input ends (or cannot be read
/// on) or the server has stopped listening.
pub fn read_loop(input: impl Read, to_server: &Sender<Incoming>, to_client: &Sender<Outgoing>) {
    read_frames(input, MAX_FRAME, to_server, to_client);
}

/// [`read_loop`] with frames over `max` bytes skipped.
fn read_frames(
    input: impl Read,
    max: usize,
    to_server: &Sender<Incoming>,
    to_client: &Sender<Outgoing>,
) {
    let mut input = io::BufReader::new(input);
    loop {
        let frame = match read_frame(&mut input, max) {
            Ok(Some(frame)) => frame,
            Ok(None) => return,
            Err(FrameError::Fatal(why)) => {
                // Standard error is the editor's log of the server.
                eprintln!("hilbert lsp: stopped reading its input: {why}");
                return;
            }
            Err(FrameError::Skip(why)) => {
                let _ = to_client.send(Outgoing::Unreadable {
                    code: PARSE_ERROR,
                    message: why.clone(),
                });
                if to_server.send(Incoming::Unreadable(why)).is_err() {
                    return;
                }
                continue;
            }
        };
        let parsed = String::from_utf8(frame)
            .map_err(|e| format!("the message is not UTF-8: {e}"))
            .and_then(|text| {
                serde_json::from_str::<Message>(&text).map_err(|e| {
                    format!("the message is not a JSON-RPC request, response or notification: {e}")
                })
            });
        let sent = match parsed {
            Ok(message) => to_server.send(Incoming::Message(message)),
            Err(why) => {
                let _ = to_client.send(Outgoing::Unreadable {
                    code: PARSE_ERROR,
                    message: why.clone(),
                });
                to_server.send(Incoming::Unreadable(why))
            }
        };
        if sent.is_err() {
            return;
        }
    }
}

/// JSON-RPC's parse error.
pub const PARSE_ERROR: i32 = -32700;

/// Writes each outgoing message to `output`, flushing after each, until the channel closes or
/// the output cannot be written.
pub fn write_loop(output: impl Write, from_server: &Receiver<Outgoing>) {
    let mut output = io::BufWriter::new(output);
    for out in from_server {
        let text = match &out {
            Outgoing::Message(m) => serde_json::to_value(m).map(|mut v| {
                if let Some(o) = v.as_object_mut() {
                    o.insert("jsonrpc".into(), "2.0".into());
                }
                v.to_string()
            }),
            Outgoing::Unreadable { code, message } => Ok(serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": code, "message": message},
            })
            .to_string()),
        };
        let Ok(text) = text else { continue };
        let written = write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())
            .and_then(|()| output.flush());
        if written.is_err() {
            return;
        }
    }
}

enum FrameError {
    /// The frame was read past but not kept: say so and read on.
    Skip(String),
    /// The input cannot be read on.
    Fatal(String),
}

/// One frame's body, or `None` at the end of the input.
fn read_frame(input: &mut impl BufRead, max: usize) -> Result<Option<Vec<u8>>, FrameError> {
    let mut length: Option<Result<usize, String>> = None;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        let n = input
            .by_ref()
            .take(MAX_HEADER as u64)
            .read_until(b'\n', &mut line)
            .map_err(|e| FrameError::Fatal(e.to_string()))?;
        if n == 0 {
            return if first {
                Ok(None)
            } else {
                Err(FrameError::Fatal("the input ended inside a header".into()))
            };
        }
        first = false;
        if !line.ends_with(b"\n") {
            return Err(FrameError::Fatal("a header line too long".into()));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_none() {
                // A blank line before any header (stray bytes between frames): read on.
                first = true;
                continue;
            }
            break;
        }
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(
                value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("`Content-Length: {}` is not a length", value.trim())),
            );
        }
    }
    match length {
        Some(Ok(n)) if n > max => {
            // Skipped without being held.
            let skipped = io::copy(&mut input.by_ref().take(n as u64), &mut io::sink())
                .map_err(|e| FrameError::Fatal(e.to_string()))?;
            if skipped < n as u64 {
                return Err(FrameError::Fatal("the input ended inside a frame".into()));
            }
            Err(FrameError::Skip(format!(
                "a message of {n} bytes is over the {max} the server reads"
            )))
        }
        Some(Ok(n)) => {
            let mut body = Vec::new();
            input
                .by_ref()
                .take(n as u64)
                .read_to_end(&mut body)
                .map_err(|e| FrameError::Fatal(e.to_string()))?;
            if body.len() < n {
                return Err(FrameError::Fatal("the input ended inside a frame".into()));
            }
            Ok(Some(body))
        }
        // Without a length the frame's end cannot be found: nothing after it can be trusted.
        Some(Err(why)) => Err(FrameError::Fatal(why)),
        None => Err(FrameError::Fatal("a frame with no Content-Length".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    fn run(input: Vec<u8>) -> (Vec<Incoming>, Vec<Outgoing>) {
        let (to_server, server) = crossbeam_channel::unbounded();
        let (to_client, client) = crossbeam_channel::unbounded();
        read_frames(&input[..], 1000, &to_server, &to_client);
        drop((to_server, to_client));
        (server.iter().collect(), client.iter().collect())
    }

    #[test]
    fn bad_frames_are_answered_and_reading_goes_on() {
        let mut input = frame(br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#);
        input.extend(frame(b"{not json"));
        input.extend(frame(b"\"\xff\xfe\""));
        input.extend(frame(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        let (server, client) = run(input);
        let kinds: Vec<&str> = server
            .iter()
            .map(|m| match m {
                Incoming::Message(Message::Request(r)) => r.method.as_str(),
                Incoming::Message(Message::Notification(n)) => n.method.as_str(),
                Incoming::Message(Message::Response(_)) => "response",
                Incoming::Unreadable(_) => "unreadable",
            })
            .collect();
        assert_eq!(kinds, ["shutdown", "unreadable", "unreadable", "exit"]);
        assert_eq!(client.len(), 2);
        assert!(
            matches!(&client[1], Outgoing::Unreadable { code: PARSE_ERROR, message } if message.contains("UTF-8"))
        );
    }

    #[test]
    fn an_oversized_frame_is_skipped_not_held() {
        let mut input = b"Content-Length: 1001\r\n\r\n".to_vec();
        input.resize(input.len() + 1001, b' ');
        input.extend(frame(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        let (server, _) = run(input);
        assert_eq!(server.len(), 2);
        assert!(matches!(&server[0], Incoming::Unreadable(m) if m.contains("over")));
        assert!(
            matches!(&server[1], Incoming::Message(Message::Notification(n)) if n.method == "exit")
        );
    }

    #[test]
    fn a_frame_without_length_or_cut_short_ends_the_reading() {
        let (server, _) = run(b"Content-Type: x\r\n\r\n{}".to_vec());
        assert!(server.is_empty());
        let (server, _) = run(b"Content-Length: 10\r\n\r\n{}".to_vec());
        assert!(server.is_empty());
        let (server, _) = run(Vec::new());
        assert!(server.is_empty());
    }
}
