//! `hilbert lsp` driven over standard input and output as an editor drives it: JSON-RPC frames
//! in, replies and notifications out, in the style of rust-analyzer's slow tests. Each test
//! starts the server on a copy of an example (or a project of its own) and asserts the replies.
//!
//! No test measures time. A reply that never comes fails the test after [`PATIENCE`] (so a
//! server that hangs fails instead of hanging the suite).

mod common;

use common::TempDir;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a test waits for a message before it fails (never reached by a working server).
const PATIENCE: Duration = Duration::from_secs(120);

/// An editor's end of the connection.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Messages read while waiting for another, in order.
    stash: Vec<Value>,
    next: i64,
    /// Every message received, in order (for assertions about what was never sent).
    log: Vec<Value>,
}

impl Client {
    /// Starts `hilbert lsp`.
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hilbert"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hilbert lsp");
        let stdout = child.stdout.take().expect("its standard output");
        let mut stderr = child.stderr.take().expect("its standard error");
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
        });
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        length = v.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&body).expect("the server writes JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            messages: rx,
            stash: Vec::new(),
            next: 1,
            log: Vec::new(),
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("the server's input is open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    fn frame(&mut self, body: &[u8]) {
        let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(body);
        self.raw(&bytes);
    }

    fn send(&mut self, v: &Value) {
        self.frame(v.to_string().as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its whole response.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(&format!("the response to `{method}`"), |m| {
            m.get("id") == Some(&json!(id)) && m.get("method").is_none()
        })
    }

    /// Sends a request and returns its result (failing the test on an error).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params);
        assert!(
            response.get("error").is_none(),
            "`{method}` failed: {response}"
        );
        response["result"].clone()
    }

    /// The first message (stashed or to come) that `pred` accepts; the others stay stashed.
    fn wait(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.stash.iter().position(&pred) {
            return self.stash.remove(i);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(m) => {
                    self.log.push(m.clone());
                    if pred(&m) {
                        return m;
                    }
                    self.stash.push(m);
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} within {PATIENCE:?}; got {:#?}", self.stash)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the server closed its output before {what}; got {:#?}",
                        self.stash
                    )
                }
            }
        }
    }

    /// The diagnostics published for `uri` (at `version`, if given).
    fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let m = self.wait(&format!("diagnostics for {uri} at {version:?}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && version.is_none_or(|v| m["params"]["version"] == v)
        });
        m["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn initialize(&mut self, root: &Path, options: Value) -> Value {
        let result = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": {},
                "initializationOptions": options,
            }),
        );
        self.notify("initialized", json!({}));
        result
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "hilbert", "version": 1, "text": text}}),
        );
    }

    fn change(&mut self, path: &Path, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// `shutdown`, then `exit`: the server's exit code.
    fn shut_down(mut self) -> Option<i32> {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.stdin = None;
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the server") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `file:` URI of an absolute path (the test paths need no escapes).
fn uri(path: &Path) -> String {
    let text = path.display().to_string();
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-._".contains(&b)),
        "{text}"
    );
    format!("file://{text}")
}

/// A copy of an example project in a fresh directory.
fn example(name: &str) -> TempDir {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for e in std::fs::read_dir(&dir).expect("the example") {
        let e = e.expect("an entry");
        let name = e.file_name().to_string_lossy().into_owned();
        if Dialect::is_source(&name) {
            files.push((name, std::fs::read(e.path()).expect("read")));
        }
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    TempDir::with_files(&refs)
}

struct Dialect;

impl Dialect {
    fn is_source(name: &str) -> bool {
        [".ha", ".hk", ".hb"].iter().any(|e| name.ends_with(e))
    }
}

/// The (line, character) of the `nth` occurrence of `needle` in `text`, plus `offset`
/// characters (UTF-16 units; the needles here are on ASCII-only stretches of their lines).
fn at(text: &str, needle: &str, nth: usize, offset: usize) -> Value {
    let byte = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} is not in the text"))
        .0;
    let line = text[..byte].matches('\n').count();
    let start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
    let character: usize = text[start..byte]
        .chars()
        .map(char::len_utf16)
        .sum::<usize>()
        + offset;
    json!({"line": line, "character": character})
}

fn position(path: &Path, pos: Value) -> Value {
    json!({"textDocument": {"uri": uri(path)}, "position": pos})
}

/// The labels of a completion list.
fn labels_of(items: &Value) -> Vec<&str> {
    items
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["label"].as_str().unwrap_or(""))
        .collect()
}

/// The codes of a list of published diagnostics, with their 1-based lines and columns.
fn codes(diagnostics: &[Value]) -> Vec<(String, u64, u64)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
                d["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
            )
        })
        .collect()
}

#[test]
fn an_editor_session_on_the_seed() {
    let dir = example("production-line");
    let agent = dir.0.join("Operator.ha");
    let plans = dir.0.join("Line.hk");
    let text = std::fs::read_to_string(&agent).expect("the agent");
    let line_hk = std::fs::read_to_string(&plans).expect("the plans");

    let mut c = Client::start();
    let init = c.initialize(&dir.0, json!({}));
    let caps = &init["capabilities"];
    for cap in [
        "hoverProvider",
        "definitionProvider",
        "referencesProvider",
        "documentSymbolProvider",
        "completionProvider",
    ] {
        assert!(!caps[cap].is_null(), "{cap} is not announced: {init}");
    }
    assert_eq!(init["serverInfo"]["name"], "hilbert");

    // Opening the agent checks its whole project: both files, clean.
    c.open(&agent, &text);
    assert_eq!(c.diagnostics(&uri(&agent), Some(1)), Vec::<Value>::new());
    assert_eq!(c.diagnostics(&uri(&plans), None), Vec::<Value>::new());

    // A typo: the belief `made` written `mada`. The diagnostics are `hilbert check`'s, at its
    // lines and columns, with its help.
    let typo = text.replacen("B(self) made(n)", "B(self) mada(n)", 1);
    c.change(&agent, 2, &typo);
    let found = c.diagnostics(&uri(&agent), Some(2));
    let check_dir = TempDir::with_files(&[
        ("Operator.ha", typo.as_bytes()),
        ("Line.hk", line_hk.as_bytes()),
    ]);
    let check = common::hilbert(&["check", "--format", "json", &check_dir.path()], None);
    let report: Value = serde_json::from_str(&check.stdout).expect("check's JSON report");
    let expected: Vec<(String, u64, u64)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| {
            d["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("Operator.ha"))
        })
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(
        !expected.is_empty(),
        "the typo gives no diagnostic: {}",
        check.stdout
    );
    assert_eq!(codes(&found), expected);
    let first = &found[0];
    assert_eq!(first["source"], "hilbert");
    assert_eq!(first["severity"], 1);
    let message = first["message"].as_str().unwrap_or("");
    assert!(message.contains("mada"), "{message}");
    assert!(message.contains("help: did you mean `made`?"), "{message}");
    assert_eq!(first["range"]["start"], at(&typo, "mada", 0, 0));
    assert_eq!(first["range"]["end"], at(&typo, "mada", 0, 4));

    // Hover on the diagnostic's span: its code's explanation page.
    let code = first["code"].as_str().unwrap_or("").to_string();
    let hover = c.request(
        "textDocument/hover",
        position(&agent, at(&typo, "mada", 0, 1)),
    );
    let value = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(value.contains(&format!("**{code}**")), "{value}");

    // Fixed again: the diagnostics are cleared.
    c.change(&agent, 3, &text);
    assert_eq!(c.diagnostics(&uri(&agent), Some(3)), Vec::<Value>::new());

    // Hover: a belief test's declaration and type.
    let hover = c.request(
        "textDocument/hover",
        position(&agent, at(&text, "made(n)", 0, 1)),
    );
    let value = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(value.contains("belief made(count: Int)"), "{value}");
    assert!(value.contains("of agent `Operator`"), "{value}");
    assert_eq!(hover["range"]["start"], at(&text, "made(n)", 0, 0));
    // A plan binding: what it binds and the desires it serves.
    let hover = c.request(
        "textDocument/hover",
        position(&agent, at(&text, "plan Work", 0, 6)),
    );
    let value = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(value.contains("plan Work ↦ Line.Produce"), "{value}");
    assert!(value.contains("serves `Produced`"), "{value}");
    // A channel in the plans.
    c.open(&plans, &line_hk);
    let hover = c.request(
        "textDocument/hover",
        position(&plans, at(&line_hk, "← parts", 0, 3)),
    );
    let value = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(value.contains("parts: chan Int"), "{value}");

    // Go to definition: a binding's target in the plan file, an intention's plan to its
    // binding, a belief test to its declaration, a plan's agent to the agent.
    let def = c.request(
        "textDocument/definition",
        position(&agent, at(&text, "Line.Produce", 0, 6)),
    );
    assert_eq!(def[0]["uri"], uri(&plans));
    assert_eq!(def[0]["range"]["start"], at(&line_hk, "Produce()", 0, 0));
    let def = c.request(
        "textDocument/definition",
        position(&agent, at(&text, "intend Work", 0, 8)),
    );
    assert_eq!(def[0]["uri"], uri(&agent));
    assert_eq!(def[0]["range"]["start"], at(&text, "Work ↦", 0, 0));
    let def = c.request(
        "textDocument/definition",
        position(&plans, at(&line_hk, "believe made", 0, 9)),
    );
    assert_eq!(def[0]["uri"], uri(&agent));
    assert_eq!(def[0]["range"]["start"], at(&text, "made(count", 0, 0));
    let def = c.request(
        "textDocument/definition",
        position(&plans, at(&line_hk, ": Operator", 0, 3)),
    );
    assert_eq!(def[0]["range"]["start"], at(&text, "Operator(", 0, 0));

    // References: a label to its `abort`; a belief across the dialects.
    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri(&plans)}, "position": at(&line_hk, "feed :", 0, 0), "context": {"includeDeclaration": true}}),
    );
    let starts: Vec<&Value> = refs
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| &r["range"]["start"])
        .collect();
    assert_eq!(
        starts,
        [
            &at(&line_hk, "feed :", 0, 0),
            &at(&line_hk, "abort feed", 0, 6)
        ]
    );
    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri(&agent)}, "position": at(&text, "made(count", 0, 0), "context": {"includeDeclaration": false}}),
    );
    let mut files: Vec<String> = refs
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| r["uri"].as_str().unwrap_or("").to_string())
        .collect();
    let in_agent = files.iter().filter(|f| **f == uri(&agent)).count();
    let in_plans = files.iter().filter(|f| **f == uri(&plans)).count();
    assert_eq!((in_agent, in_plans), (2, 3), "{refs}");
    files.dedup();

    // Document symbols: the agent and its members.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&agent)}}),
    );
    assert_eq!(symbols[0]["name"], "Operator");
    let children: Vec<&str> = symbols[0]["children"]
        .as_array()
        .expect("members")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        children,
        [
            "made",
            "alarm",
            "safe",
            "halted",
            "Produced",
            "Safe",
            "Producing",
            "Emergency",
            "Work",
            "Stop"
        ]
    );
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&plans)}}),
    );
    let plans_found: Vec<&str> = symbols
        .as_array()
        .expect("plans")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(plans_found, ["Feed", "Build", "Produce", "Shutdown"]);
    let produce: Vec<(&str, &str)> = symbols[2]["children"]
        .as_array()
        .expect("its channel and label")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or(""),
                s["detail"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(produce, [("parts", "channel"), ("feed", "label")]);

    // Completion: `->` offers `→` in its place; inside the agent, its names and keywords.
    let typing = text.replacen("  plan Stop", "  x ->\n  plan Stop", 1);
    c.change(&agent, 4, &typing);
    let items = c.request(
        "textDocument/completion",
        position(&agent, at(&typing, "x ->", 0, 4)),
    );
    let arrow = items
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["label"] == "→")
        .unwrap_or_else(|| panic!("no → offered: {items}"));
    assert_eq!(arrow["textEdit"]["newText"], "→");
    assert_eq!(arrow["textEdit"]["range"]["start"], at(&typing, "->", 0, 0));
    assert_eq!(arrow["textEdit"]["range"]["end"], at(&typing, "->", 0, 2));
    let items = c.request(
        "textDocument/completion",
        position(&agent, at(&typing, "x ->", 0, 0)),
    );
    let labels = labels_of(&items);
    for name in [
        "made",
        "Produced",
        "Work",
        "Emergency",
        "line",
        "intend",
        "achieved",
        "Line",
    ] {
        assert!(labels.contains(&name), "{name} is not offered: {labels:?}");
    }
    // After `Line.`, the plans of Line.hk.
    let qualified = text.replacen("Line.Shutdown", "Line.", 1);
    c.change(&agent, 5, &qualified);
    let items = c.request(
        "textDocument/completion",
        position(&agent, at(&qualified, "Line.\n", 0, 5)),
    );
    let labels = labels_of(&items);
    assert_eq!(labels, ["Build", "Feed", "Produce", "Shutdown"]);

    assert_eq!(c.shut_down(), Some(0));
}

#[test]
fn bad_input_is_answered_and_never_stops_the_server() {
    let dir = example("production-line");
    let agent = dir.0.join("Operator.ha");
    let plans = dir.0.join("Line.hk");
    let text = std::fs::read_to_string(&agent).expect("the agent");
    let mut c = Client::start();

    // Before `initialize`: a request is refused as the protocol says.
    let early = c.call(
        "textDocument/hover",
        position(&agent, json!({"line": 0, "character": 0})),
    );
    assert_eq!(early["error"]["code"], -32002, "{early}");
    c.initialize(&dir.0, json!({}));

    // Frames that are not messages: not JSON, not UTF-8, not a JSON-RPC message.
    for body in [
        &b"{\"jsonrpc\": \"2.0\", \"id\": 7, "[..],
        b"\"\xff\xfe\"",
        b"[1, 2, 3]",
    ] {
        c.frame(body);
        let error = c.wait("a parse error", |m| {
            m.get("error").is_some() && m["id"].is_null()
        });
        assert_eq!(error["error"]["code"], -32700, "{error}");
    }
    // An unknown request, and a known one with parameters of the wrong shape.
    let unknown = c.call("textDocument/frobnicate", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let wrong = c.call("textDocument/hover", json!({"textDocument": 3}));
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");

    // A half-typed file: its syntax errors are published, and requests anywhere in it are
    // answered.
    let half = text.replacen("  intend Work for Produced when", "  intend Work for (", 1);
    c.open(&agent, &half);
    let found = c.diagnostics(&uri(&agent), Some(1));
    assert!(
        found.iter().any(|d| d["severity"] == 1),
        "no error in a half-typed file: {found:?}"
    );
    let lines = half.lines().count();
    for line in 0..lines + 2 {
        for character in [0, 5, 17, 400] {
            let at = json!({"line": line, "character": character});
            for method in [
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/completion",
            ] {
                let reply = c.call(method, position(&agent, at.clone()));
                assert!(reply.get("error").is_none(), "{method} at {at}: {reply}");
            }
        }
    }
    // Typing at the very end, one character at a time, as an editor sends it.
    let mut typed = String::new();
    for (i, ch) in "agent B {\n  belief x(".chars().enumerate() {
        typed.push(ch);
        c.change(&agent, 2 + i as i64, &typed);
    }
    let version = 1 + "agent B {\n  belief x(".chars().count() as i64;
    let found = c.diagnostics(&uri(&agent), Some(version));
    assert!(!found.is_empty(), "an unfinished agent gives diagnostics");

    // A file of the project that is not UTF-8 on disk: the check's diagnostic for it.
    let bad = dir.0.join("Broken.hk");
    std::fs::write(&bad, b"plan P() : Operator \xff= SKIP\n").expect("write");
    c.change(&agent, 100, &text);
    let found = c.diagnostics(&uri(&bad), None);
    assert_eq!(codes(&found)[0].0, "HK0005", "{found:?}");
    std::fs::remove_file(&bad).expect("remove");

    // Files deleted while open: the open one is still checked from its text (here with its
    // plan file gone), and closing it clears its diagnostics.
    std::fs::remove_file(&agent).expect("remove the agent");
    std::fs::remove_file(&plans).expect("remove the plans");
    c.change(&agent, 101, &text);
    let found = c.diagnostics(&uri(&agent), Some(101));
    assert!(
        found
            .iter()
            .any(|d| d["message"].as_str().unwrap_or("").contains("Line")),
        "the missing plan file is not reported: {found:?}"
    );
    let hover = c.request(
        "textDocument/hover",
        position(&agent, at(&text, "made(n)", 0, 1)),
    );
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("belief made")
    );
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&agent)}}),
    );
    assert_eq!(c.diagnostics(&uri(&agent), None), Vec::<Value>::new());
    std::fs::remove_dir_all(&dir.0).expect("remove the directory");
    let gone = c.call(
        "textDocument/hover",
        position(&agent, json!({"line": 0, "character": 0})),
    );
    assert!(gone.get("error").is_none(), "{gone}");

    assert_eq!(c.shut_down(), Some(0));
}

#[test]
fn exit_without_shutdown_is_code_1_and_requests_after_shutdown_are_refused() {
    let dir = example("production-line");
    let mut c = Client::start();
    c.initialize(&dir.0, json!({}));
    c.notify("exit", Value::Null);
    c.stdin = None;
    let status = c.child.wait().expect("the server exits");
    assert_eq!(status.code(), Some(1));

    let mut c = Client::start();
    c.initialize(&dir.0, json!({}));
    assert_eq!(c.request("shutdown", Value::Null), Value::Null);
    let late = c.call(
        "textDocument/hover",
        position(
            &dir.0.join("Operator.ha"),
            json!({"line": 0, "character": 0}),
        ),
    );
    assert_eq!(late["error"]["code"], -32600, "{late}");
    c.notify("exit", Value::Null);
    c.stdin = None;
    assert_eq!(c.child.wait().expect("the server exits").code(), Some(0));
}

/// An agent whose intention's condition Z3 cannot decide (x³ + y³ = z³ in positive integers):
/// the dead-rule analysis asks a query that runs until its timeout.
const UNDECIDABLE: &str = "agent Operator() : Agency
{
  belief done(n: Int)
  belief busy(n: Int)
  desire Finished reachable by [Work]
  commit single_minded
  attention Working initially
  intend Work for Finished when B(self) done(x) ∧ B(self) busy(y) ∧ B(self) done(z) ∧ x > 0 ∧ y > 0 ∧ z > 0 ∧ x * x * x + y * y * y = z * z * z
  achieved Finished when B(self) done(3)
  plan Work ↦ Line.Produce
}
";

#[test]
fn a_slow_check_does_not_hold_requests_and_an_edit_cancels_it() {
    let plan = "plan Produce() : Operator ≔ believe done(3)\n";
    let dir = TempDir::with_files(&[
        ("Operator.ha", UNDECIDABLE.as_bytes()),
        ("Line.hk", plan.as_bytes()),
    ]);
    let agent = dir.0.join("Operator.ha");
    let mut c = Client::start();
    // Z3 may take ten minutes a query: only the cancellation ends this check early.
    c.initialize(
        &dir.0,
        json!({"smtTimeoutMs": 600_000, "smtBudgetMs": 600_000}),
    );
    c.open(&agent, UNDECIDABLE);
    // Requests are answered while the check runs: before anything is published.
    let hover = c.request(
        "textDocument/hover",
        position(&agent, at(UNDECIDABLE, "done(x)", 0, 1)),
    );
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("belief done(n: Int)")
    );
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&agent)}}),
    );
    assert_eq!(symbols[0]["name"], "Operator");
    assert!(
        !c.log
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics"),
        "a check of an undecidable condition finished: {:?}",
        c.log
    );
    // An edit: the slow check is cancelled, and the new text's diagnostics come.
    let simple = UNDECIDABLE.replace("∧ x * x * x + y * y * y = z * z * z", "∧ x + y = z");
    c.change(&agent, 2, &simple);
    let found = c.diagnostics(&uri(&agent), Some(2));
    assert!(found.iter().all(|d| d["severity"] != 1), "{found:?}");
    // The cancelled check published nothing.
    assert!(
        !c.log.iter().any(
            |m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == 1
        ),
        "the cancelled check's diagnostics were published"
    );
    assert_eq!(c.shut_down(), Some(0));
}

#[test]
fn theorems_on_save_are_shown_on_their_bindings() {
    // The seed: every theorem proved, on the binding of its network.
    let dir = example("production-line");
    let agent = dir.0.join("Operator.ha");
    let text = std::fs::read_to_string(&agent).expect("the agent");
    let mut c = Client::start();
    c.initialize(&dir.0, json!({"theoremsOnSave": true}));
    c.open(&agent, &text);
    assert_eq!(c.diagnostics(&uri(&agent), Some(1)), Vec::<Value>::new());
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&agent)}}),
    );
    let found = c.diagnostics(&uri(&agent), Some(1));
    let theorems: Vec<(&str, &Value, &Value)> = found
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or(""),
                &d["severity"],
                &d["range"]["start"]["line"],
            )
        })
        .collect();
    let work = at(&text, "plan Work", 0, 0)["line"].clone();
    let stop = at(&text, "plan Stop", 0, 0)["line"].clone();
    let info = json!(3);
    assert_eq!(
        theorems,
        [
            ("Produce_no_deadlock", &info, &work),
            ("Work_live_Produced", &info, &work),
            ("Work_released_Produced", &info, &work),
            ("Produce_abortable", &info, &work),
            ("Shutdown_no_deadlock", &info, &stop),
            ("Stop_live_Safe", &info, &stop),
        ],
        "{found:?}"
    );
    // An edit: the theorems are of the saved text, and go until the next save.
    c.change(&agent, 2, &text.replacen("Producing", "Producing ", 1));
    assert_eq!(c.diagnostics(&uri(&agent), Some(2)), Vec::<Value>::new());
    assert_eq!(c.shut_down(), Some(0));

    // A refuted theorem: an error, its counterexample in related information.
    let dir = example("cross-wait-deadlock");
    let agent = dir.0.join("Trader.ha");
    let text = std::fs::read_to_string(&agent).expect("the agent");
    let mut c = Client::start();
    c.initialize(&dir.0, json!({"theoremsOnSave": true}));
    c.open(&agent, &text);
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&agent)}}),
    );
    let found = c.wait("the theorems", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri(&agent)
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["source"] == "hilbert build"))
    });
    let refuted = found["params"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == "Swap_no_deadlock")
        .unwrap_or_else(|| panic!("no Swap_no_deadlock: {found}"))
        .clone();
    assert_eq!(refuted["severity"], 1, "{refuted}");
    assert!(
        refuted["message"]
            .as_str()
            .unwrap_or("")
            .contains("refuted"),
        "{refuted}"
    );
    let steps: Vec<&str> = refuted["relatedInformation"]
        .as_array()
        .expect("the counterexample")
        .iter()
        .map(|r| r["message"].as_str().unwrap_or(""))
        .collect();
    assert!(steps.len() >= 2, "{steps:?}");
    assert!(
        steps.last().is_some_and(|s| s.starts_with("⇒ deadlock")),
        "{steps:?}"
    );
    assert_eq!(c.shut_down(), Some(0));
}

#[test]
fn a_directory_that_cannot_be_read_is_said_and_the_open_files_are_checked() {
    // A FIFO named as a source: `hilbert check` refuses the directory (it never reads one);
    // the server says so on the open files and checks them alone.
    let dir = example("production-line");
    let fifo = dir.0.join("Pipe.hk");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success(), "mkfifo failed");
    let agent = dir.0.join("Operator.ha");
    let text = std::fs::read_to_string(&agent).expect("the agent");
    let mut c = Client::start();
    c.initialize(&dir.0, json!({}));
    c.open(&agent, &text);
    let found = c.diagnostics(&uri(&agent), Some(1));
    let first = &found[0];
    assert_eq!(first["severity"], 2, "{found:?}");
    let message = first["message"].as_str().unwrap_or("");
    assert!(
        message.contains("Pipe.hk") && message.contains("only the open files"),
        "{message}"
    );
    // Line.hk, not open, is not read: the binding names a plan file the check has not got.
    assert!(
        found
            .iter()
            .any(|d| d["severity"] == 1 && d["message"].as_str().unwrap_or("").contains("Line")),
        "{found:?}"
    );
    assert_eq!(c.shut_down(), Some(0));
}
