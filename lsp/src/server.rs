//! The server's loop: the protocol's life cycle (initialize, shutdown, exit), the documents,
//! the checks it schedules and the diagnostics it publishes, and the requests it answers.
//!
//! One thread (this one) reads the editor's messages and answers every request at once from
//! the parsed trees; the checker thread ([`crate::diagnostics::checker`]) runs the checks, and
//! its results are published when they are still current. A request's handler that panicked
//! (a bug) is answered with an internal error, and the server goes on.

use crate::diagnostics::{Done, Job};
use crate::text::{self, Encoding, LineIndex};
use crate::transport::{Incoming, Outgoing};
use crate::workspace::{self, Document, Snapshot, Sources};
use crate::{features, uri};
use crossbeam_channel::{Receiver, Sender};
use hilbert_frontend::Span;
use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CompletionOptions, CompletionResponse, DocumentSymbolResponse, GotoDefinitionResponse,
    HoverProviderCapability, InitializeParams, InitializeResult, OneOf, Position,
    PositionEncodingKind, PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The settings, from `initializationOptions` or `workspace/didChangeConfiguration` (under
/// `hilbert`); every field optional.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    /// Each Z3 query's timeout, in milliseconds (`--smt-timeout`).
    pub smt_timeout_ms: u32,
    /// The total Z3 time of one check, in milliseconds (`--smt-budget`).
    pub smt_budget_ms: u64,
    /// Whether saving a file proves the project's theorems and shows them as diagnostics.
    pub theorems_on_save: bool,
    /// Directories checked as one project each (absolute, or relative to the workspace).
    pub projects: Vec<String>,
    /// The states a network's exploration may reach on save before its theorems are left
    /// unproved (`hilbert build --max-states`).
    pub theorem_max_states: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            smt_timeout_ms: 1000,
            smt_budget_ms: 3000,
            theorems_on_save: false,
            projects: Vec::new(),
            theorem_max_states: 200_000,
        }
    }
}

/// Where the protocol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before `initialize`.
    Starting,
    /// Between `initialize` and `shutdown`.
    Running,
    /// After `shutdown`: only `exit` is heeded.
    ShutDown,
}

/// A project the server has checked or is checking.
#[derive(Default)]
struct Project {
    /// Bumped at each change; a check's result is published only if it is of the newest.
    generation: u64,
    /// Stops the check of the current generation.
    cancel: hilbert_smt::Cancel,
    /// The files read for the current generation (for the snapshot).
    sources: Option<Sources>,
    /// The versions of the open documents the checked texts are from, by generation.
    versions: BTreeMap<PathBuf, i32>,
    /// The parsed trees of the current generation, made when a request needs them.
    snapshot: Option<Rc<Snapshot>>,
    /// The files diagnostics were last published for.
    published: BTreeSet<PathBuf>,
    /// The last published diagnostics' files, spans and codes (for hover).
    found: Vec<(PathBuf, Span, String)>,
}

/// The server's state.
pub struct Server {
    out: Sender<Outgoing>,
    jobs: Sender<Job>,
    phase: Phase,
    encoding: Encoding,
    config: Config,
    /// The workspace's folders (relative `projects` are under the first).
    folders: Vec<PathBuf>,
    docs: BTreeMap<PathBuf, Document>,
    projects: BTreeMap<PathBuf, Project>,
}

impl Server {
    /// A server that writes to `out` and sends checks to `jobs`.
    pub fn new(out: Sender<Outgoing>, jobs: Sender<Job>) -> Server {
        Server {
            out,
            jobs,
            phase: Phase::Starting,
            encoding: Encoding::Utf16,
            config: Config::default(),
            folders: Vec::new(),
            docs: BTreeMap::new(),
            projects: BTreeMap::new(),
        }
    }

    /// Serves until `exit` (or the end of the input); the exit code: 0 after `shutdown`, else 1.
    pub fn run(mut self, incoming: &Receiver<Incoming>, done: &Receiver<Done>) -> i32 {
        loop {
            crossbeam_channel::select! {
                recv(incoming) -> m => match m {
                    Ok(Incoming::Message(m)) => {
                        if let Some(code) = self.message(m) {
                            self.stop_checks();
                            return code;
                        }
                    }
                    Ok(Incoming::Unreadable(_)) => {}
                    Err(_) => {
                        self.stop_checks();
                        return i32::from(self.phase != Phase::ShutDown);
                    }
                },
                recv(done) -> d => {
                    if let Ok(d) = d {
                        self.publish(d);
                    }
                }
            }
        }
    }

    fn stop_checks(&mut self) {
        for p in self.projects.values() {
            p.cancel.cancel();
        }
    }

    fn send(&self, m: impl Into<Message>) {
        let _ = self.out.send(Outgoing::Message(m.into()));
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }

    fn show(&self, kind: lsp_types::MessageType, message: String) {
        self.notify::<note::ShowMessage>(lsp_types::ShowMessageParams { typ: kind, message });
    }

    /// Handles one message; `Some(code)` when the server is to exit.
    fn message(&mut self, m: Message) -> Option<i32> {
        match m {
            Message::Request(r) => {
                self.request(r);
                None
            }
            Message::Notification(n) => {
                if n.method == note::Exit::METHOD {
                    return Some(i32::from(self.phase != Phase::ShutDown));
                }
                if self.phase == Phase::Running {
                    self.notification(n);
                }
                None
            }
            Message::Response(_) => None,
        }
    }

    fn request(&mut self, r: Request) {
        let id = r.id.clone();
        match self.phase {
            Phase::Starting if r.method != req::Initialize::METHOD => {
                return self.send(Response::new_err(
                    id,
                    ErrorCode::ServerNotInitialized as i32,
                    "the server is not initialized: send `initialize` first".into(),
                ));
            }
            Phase::ShutDown => {
                return self.send(Response::new_err(
                    id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is shut down: only `exit` is heeded".into(),
                ));
            }
            Phase::Running if r.method == req::Initialize::METHOD => {
                return self.send(Response::new_err(
                    id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is already initialized".into(),
                ));
            }
            _ => {}
        }
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.answer(r)));
        let response = match answer {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "the server failed on this request (a bug: please report it)".into(),
            ),
        };
        self.send(response);
    }

    /// The result of a request, or its error.
    fn answer(&mut self, r: Request) -> Result<serde_json::Value, (i32, String)> {
        fn params<P: serde::de::DeserializeOwned>(r: Request) -> Result<P, (i32, String)> {
            serde_json::from_value(r.params).map_err(|e| {
                (
                    ErrorCode::InvalidParams as i32,
                    format!(
                        "the parameters of `{}` are not as the protocol says: {e}",
                        r.method
                    ),
                )
            })
        }
        let json = |v: Result<serde_json::Value, serde_json::Error>| {
            v.map_err(|e| (ErrorCode::InternalError as i32, e.to_string()))
        };
        match r.method.as_str() {
            req::Initialize::METHOD => {
                let p: InitializeParams = params(r)?;
                json(serde_json::to_value(self.initialize(p)))
            }
            req::Shutdown::METHOD => {
                self.phase = Phase::ShutDown;
                self.stop_checks();
                Ok(serde_json::Value::Null)
            }
            req::HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = params(r)?;
                let at = p.text_document_position_params;
                json(serde_json::to_value(
                    self.hover(&at.text_document.uri, at.position),
                ))
            }
            req::GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = params(r)?;
                let at = p.text_document_position_params;
                let found = self.at(&at.text_document.uri, at.position, |s, f, o, enc| {
                    features::definition(s, f.id, o, enc)
                });
                let result = found.map(GotoDefinitionResponse::Array);
                json(serde_json::to_value(result))
            }
            req::References::METHOD => {
                let p: lsp_types::ReferenceParams = params(r)?;
                let at = p.text_document_position;
                let decls = p.context.include_declaration;
                let found = self.at(&at.text_document.uri, at.position, |s, f, o, enc| {
                    features::references(s, f.id, o, decls, enc)
                });
                json(serde_json::to_value(found))
            }
            req::DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = params(r)?;
                let found = self.at(&p.text_document.uri, Position::default(), |s, f, _, enc| {
                    features::symbols(s, f.id, enc)
                });
                json(serde_json::to_value(
                    found.map(DocumentSymbolResponse::Nested),
                ))
            }
            req::Completion::METHOD => {
                let p: lsp_types::CompletionParams = params(r)?;
                let at = p.text_document_position;
                let found = self.at(&at.text_document.uri, at.position, |s, f, o, enc| {
                    features::completion(s, f, o as usize, enc)
                });
                json(serde_json::to_value(found.map(CompletionResponse::Array)))
            }
            _ => Err((
                ErrorCode::MethodNotFound as i32,
                format!("`{}` is not a request this server answers", r.method),
            )),
        }
    }

    fn initialize(&mut self, p: InitializeParams) -> InitializeResult {
        self.phase = Phase::Running;
        let offered = p
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        if offered.is_some_and(|e| e.contains(&PositionEncodingKind::UTF8)) {
            self.encoding = Encoding::Utf8;
        }
        #[allow(deprecated)] // `root_uri` and `root_path`, for clients without folders
        let root = p.root_uri.as_ref().and_then(uri::to_path);
        self.folders = p
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| uri::to_path(&f.uri))
            .collect();
        if self.folders.is_empty() {
            self.folders.extend(root);
        }
        if let Some(options) = p.initialization_options {
            self.configure(options);
        }
        let encoding = match self.encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        };
        let triggers = [">", "=", "-", "<", "]", "|", "\\", "/", ".", "d", "r", "t"];
        InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(encoding),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(false),
                        })),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(triggers.iter().map(|t| t.to_string()).collect()),
                    ..Default::default()
                }),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "hilbert".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        }
    }

    /// Reads settings: the object itself, or the one under `hilbert`.
    fn configure(&mut self, value: serde_json::Value) {
        let value = match value.get("hilbert") {
            Some(inner) => inner.clone(),
            None => value,
        };
        if value.is_null() {
            return;
        }
        match serde_json::from_value::<Config>(value) {
            Ok(c) => {
                let rechecks = c != self.config;
                self.config = c;
                if rechecks && self.phase == Phase::Running {
                    let roots: BTreeSet<PathBuf> = self.projects.keys().cloned().collect();
                    for root in roots {
                        self.schedule(&root);
                    }
                }
            }
            Err(e) => self.show(
                lsp_types::MessageType::WARNING,
                format!("hilbert: the settings were not understood ({e}); the defaults are used"),
            ),
        }
    }

    /// The configured project directories, absolute.
    fn roots(&self) -> Vec<PathBuf> {
        self.config
            .projects
            .iter()
            .filter_map(|p| {
                let p = Path::new(p);
                if p.is_absolute() {
                    Some(p.to_path_buf())
                } else {
                    self.folders.first().map(|f| f.join(p))
                }
            })
            .collect()
    }

    fn notification(&mut self, n: Notification) {
        let method = n.method.clone();
        let handled =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle_notification(n)));
        if handled.is_err() {
            self.show(
                lsp_types::MessageType::ERROR,
                format!("hilbert: the server failed on `{method}` (a bug: please report it)"),
            );
        }
    }

    fn handle_notification(&mut self, n: Notification) {
        fn params<P: serde::de::DeserializeOwned>(n: Notification) -> Option<P> {
            serde_json::from_value(n.params).ok()
        }
        match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidOpenTextDocumentParams>(n) else {
                    return;
                };
                let d = p.text_document;
                if let Some(path) = self.source_path(&d.uri) {
                    self.docs.insert(
                        path.clone(),
                        Document {
                            uri: d.uri,
                            text: d.text,
                            version: d.version,
                        },
                    );
                    self.changed(&path);
                }
            }
            note::DidChangeTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidChangeTextDocumentParams>(n) else {
                    return;
                };
                let Some(path) = self.source_path(&p.text_document.uri) else {
                    return;
                };
                let encoding = self.encoding;
                let Some(doc) = self.docs.get_mut(&path) else {
                    return;
                };
                for change in p.content_changes {
                    doc.text = match change.range {
                        Some(range) => text::apply_change(&doc.text, range, &change.text, encoding),
                        None => change.text,
                    };
                }
                doc.version = p.text_document.version;
                self.changed(&path);
            }
            note::DidCloseTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidCloseTextDocumentParams>(n) else {
                    return;
                };
                if let Some(path) = self.source_path(&p.text_document.uri) {
                    self.docs.remove(&path);
                    self.changed(&path);
                }
            }
            note::DidSaveTextDocument::METHOD => {
                let Some(p) = params::<lsp_types::DidSaveTextDocumentParams>(n) else {
                    return;
                };
                if let Some(path) = self.source_path(&p.text_document.uri) {
                    let root = workspace::project_of(&path, &self.roots());
                    let theorems = self.config.theorems_on_save;
                    self.schedule_with(&root, theorems);
                }
            }
            note::DidChangeWatchedFiles::METHOD => {
                let Some(p) = params::<lsp_types::DidChangeWatchedFilesParams>(n) else {
                    return;
                };
                let roots = self.roots();
                let touched: BTreeSet<PathBuf> = p
                    .changes
                    .iter()
                    .filter_map(|c| uri::to_path(&c.uri))
                    .map(|path| workspace::project_of(&path, &roots))
                    .filter(|root| self.projects.contains_key(root))
                    .collect();
                for root in touched {
                    self.schedule(&root);
                }
            }
            note::DidChangeConfiguration::METHOD => {
                if let Some(p) = params::<lsp_types::DidChangeConfigurationParams>(n) {
                    self.configure(p.settings);
                }
            }
            _ => {}
        }
    }

    /// The path of a document the server reads: a `file:` URI of a `.ha`, `.hk` or `.hb` file.
    fn source_path(&self, uri: &Uri) -> Option<PathBuf> {
        let path = uri::to_path(uri)?;
        hilbert_frontend::Dialect::of_path(path.to_str()?)?;
        Some(path)
    }

    /// A document changed: its project is checked again.
    fn changed(&mut self, path: &Path) {
        let root = workspace::project_of(path, &self.roots());
        self.schedule(&root);
    }

    /// Reads the project at `root` again and sends it to the checker, cancelling its check in
    /// progress.
    fn schedule(&mut self, root: &Path) {
        self.schedule_with(root, false);
    }

    /// As [`Server::schedule`], proving the theorems too if `theorems`.
    fn schedule_with(&mut self, root: &Path, theorems: bool) {
        let sources = workspace::read(root, &self.docs);
        let project = self.projects.entry(root.to_path_buf()).or_default();
        project.cancel.cancel();
        project.cancel = hilbert_smt::Cancel::new();
        project.generation += 1;
        project.snapshot = None;
        project.versions = sources.versions.clone();
        let job = Job {
            root: root.to_path_buf(),
            generation: project.generation,
            loaded: workspace::copy(&sources.loaded),
            load_error: sources.load_error.clone(),
            cancel: project.cancel.clone(),
            options: hilbert_smt::Options {
                timeout_ms: self.config.smt_timeout_ms,
                budget_ms: Some(self.config.smt_budget_ms),
                keep_text: false,
                max_memory: Some(hilbert_prover::memory::default_limit()),
            },
            encoding: self.encoding,
            theorems: theorems.then(|| hilbert_prover::explore::Limits {
                max_states: self.config.theorem_max_states,
                jobs: 1,
                max_memory: hilbert_prover::memory::default_limit(),
            }),
        };
        project.sources = Some(sources);
        let _ = self.jobs.send(job);
    }

    /// Publishes a check's diagnostics if it is of its project's newest generation, and
    /// clears those of files no longer in the project.
    fn publish(&mut self, d: Done) {
        let Some(project) = self.projects.get_mut(&d.root) else {
            return;
        };
        if d.generation != project.generation {
            return;
        }
        let now: BTreeSet<PathBuf> = d.files.keys().cloned().collect();
        let gone: Vec<PathBuf> = project.published.difference(&now).cloned().collect();
        project.published = now;
        project.found = d.found;
        let versions = project.versions.clone();
        for (path, diagnostics) in d.files {
            let Some(uri) = uri::from_path(&path) else {
                continue;
            };
            self.notify::<note::PublishDiagnostics>(PublishDiagnosticsParams {
                uri,
                diagnostics,
                version: versions.get(&path).copied(),
            });
        }
        for path in gone {
            if let Some(uri) = uri::from_path(&path) {
                self.notify::<note::PublishDiagnostics>(PublishDiagnosticsParams {
                    uri,
                    diagnostics: Vec::new(),
                    version: None,
                });
            }
        }
    }

    /// The snapshot of the project of `path`, made now if the project changed since the last.
    fn snapshot(&mut self, path: &Path) -> Option<Rc<Snapshot>> {
        let root = workspace::project_of(path, &self.roots());
        if !self.projects.contains_key(&root) {
            self.schedule(&root);
        }
        let project = self.projects.get_mut(&root)?;
        if project.snapshot.is_none() {
            let sources = project.sources.as_ref()?;
            project.snapshot = Some(Rc::new(Snapshot::new(sources)));
        }
        project.snapshot.clone()
    }

    /// Runs `f` on the snapshot, file and byte offset a request names; `None` when the
    /// document is no source the server reads.
    fn at<T>(
        &mut self,
        uri: &Uri,
        position: Position,
        f: impl FnOnce(&Snapshot, &hilbert_frontend::SourceFile, u32, Encoding) -> T,
    ) -> Option<T> {
        let path = self.source_path(uri)?;
        let snapshot = self.snapshot(&path)?;
        let file = snapshot.file(&path)?;
        let offset = LineIndex::new(&file.text).offset(&file.text, position, self.encoding);
        let offset = u32::try_from(offset).unwrap_or(u32::MAX);
        Some(f(&snapshot, file, offset, self.encoding))
    }

    fn hover(&mut self, uri: &Uri, position: Position) -> Option<lsp_types::Hover> {
        let path = self.source_path(uri)?;
        let snapshot = self.snapshot(&path)?;
        let file = snapshot.file(&path)?;
        let offset = LineIndex::new(&file.text).offset(&file.text, position, self.encoding);
        let offset = u32::try_from(offset).unwrap_or(u32::MAX);
        let root = workspace::project_of(&path, &self.roots());
        let codes: Vec<String> = self
            .projects
            .get(&root)
            .map(|p| {
                p.found
                    .iter()
                    .filter(|(p, span, _)| {
                        *p == path && span.start <= offset && offset <= span.end.max(span.start)
                    })
                    .map(|(_, _, c)| c.clone())
                    .collect()
            })
            .unwrap_or_default();
        features::hover(&snapshot, file, offset, &codes, self.encoding)
    }
}
