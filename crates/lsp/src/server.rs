//! The LSP main loop: initialization, the open documents and their
//! incremental edits, debounced diagnostics that are never older than the
//! text they are published for (converted and sent by `publish`'s thread,
//! in order, so requests are answered meanwhile), cancellation of queued
//! requests, and one
//! `catch_unwind` per request so a bug answers an error instead of killing
//! the server. Questions are answered by `ide`; `handlers` turns them into
//! `lsp-types` values, and notifications are read as `lsp-types` too.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use check::{FileError, Files, Options};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use lsp_types::notification::{Cancel, Exit, LogMessage, Notification as _};
use serde_json::Value;

use crate::handlers;
use crate::ide::{Analysis, LibraryFile};
use crate::publish::{self, Publisher};
use crate::{library, uri};
use lsp_base::protocol::{answer, apply_change, panic_message, DocEvent};

/// How long to wait after an edit before checking, so a burst of typing is
/// checked once. The `diagnosticsDelayMs` initialization option changes it.
const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(10);

use lsp_base::protocol::BoxError;

/// Runs the server over stdin and stdout until the client says `exit`.
pub fn run_stdio() -> Result<(), BoxError> {
    lsp_base::protocol::run_stdio(run)
}

/// Runs the server on `connection` (the tests use an in-memory one).
pub fn run(connection: Connection) -> Result<(), BoxError> {
    let (id, params) = connection.initialize_start()?;
    let options = params
        .get("initializationOptions")
        .cloned()
        .unwrap_or(Value::Null);
    let library_dir = library::choose_dir(options.get("libraryDir").and_then(Value::as_str));
    let debounce = options
        .get("diagnosticsDelayMs")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_DEBOUNCE, Duration::from_millis);
    let search_path: Vec<PathBuf> = options
        .get("searchPath")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(PathBuf::from))
        .collect();
    let result = lsp::InitializeResult {
        capabilities: handlers::capabilities(),
        server_info: Some(lsp::ServerInfo {
            name: "shapescript".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    // The library is on disk before the client hears the answer, so a client
    // (or a test) that opens `prelude.ss` right after `initialize` finds it.
    let written = library_dir
        .as_ref()
        .map(|dir| library::write(&library::all_files(dir)));
    connection.initialize_finish(id, serde_json::to_value(result)?)?;
    let mut server = Server {
        sender: connection.sender.clone(),
        docs: HashMap::new(),
        library_dir: PathBuf::new(),
        extra: Vec::new(),
        options: Options {
            search_path,
            resolutions: true,
        },
        analysis: None,
        dirty: true,
        deadline: None,
        debounce,
        queue: VecDeque::new(),
        published: Vec::new(),
        publisher: Publisher::start(connection.sender.clone()),
    };
    match (library_dir, written) {
        (Some(dir), result) => {
            if let Some(Err(e)) = result {
                server.log(&format!(
                    "could not write the library folder `{}`: {e}",
                    dir.display()
                ));
            }
            server.extra = library::extra_files(&dir);
            server.library_dir = dir;
        }
        (None, _) => server.log("no library folder: no `libraryDir` option and no home folder"),
    }
    server.main_loop(&connection)
}

/// An open document.
struct Doc {
    uri: lsp::Uri,
    text: String,
    version: i32,
}

struct Server {
    sender: Sender<Message>,
    docs: HashMap<PathBuf, Doc>,
    library_dir: PathBuf,
    extra: Vec<LibraryFile>,
    options: Options,
    analysis: Option<Arc<Analysis>>,
    /// The documents changed since `analysis` was made.
    dirty: bool,
    /// When to publish diagnostics next.
    deadline: Option<Instant>,
    debounce: Duration,
    /// Messages read but not handled yet, so a cancellation can reach them.
    queue: VecDeque<Message>,
    /// The documents diagnostics were last published for, to clear closed ones.
    published: Vec<lsp::Uri>,
    /// Converts and sends diagnostics off this loop, in order; dropped
    /// with the server, after sending what it was given.
    publisher: Publisher,
}

/// Open documents over the disk, for the checker.
struct Overlay<'a> {
    docs: &'a HashMap<PathBuf, Doc>,
}

impl Files for Overlay<'_> {
    fn read(&self, path: &Path) -> Result<Arc<str>, FileError> {
        match self.docs.get(path) {
            Some(doc) => Ok(doc.text.as_str().into()),
            None => DiskFiles.read(path),
        }
    }
}

/// The files on the disk, for the checker (the server's below its open
/// documents, and `shapescript`'s commands).
pub struct DiskFiles;

impl Files for DiskFiles {
    fn read(&self, path: &Path) -> Result<Arc<str>, FileError> {
        if path.is_dir() {
            return Err(FileError::Unreadable("it is a folder".into()));
        }
        match std::fs::read(path) {
            Ok(bytes) => String::from_utf8(bytes)
                .map(Into::into)
                .map_err(|_| FileError::Unreadable("it is not UTF-8 text".into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(FileError::NotFound),
            Err(e) => Err(FileError::Unreadable(e.to_string())),
        }
    }
}

impl Server {
    fn main_loop(&mut self, connection: &Connection) -> Result<(), BoxError> {
        loop {
            if self.queue.is_empty() {
                match self.next_message(&connection.receiver) {
                    Some(Ok(message)) => self.queue.push_back(message),
                    Some(Err(())) => return Ok(()),
                    None => {
                        self.publish_diagnostics();
                        continue;
                    }
                }
            }
            // Read what else has arrived, so cancellations and newer text are
            // seen before the requests they concern are answered.
            while let Ok(message) = connection.receiver.try_recv() {
                match message {
                    Message::Notification(note) if note.method == Cancel::METHOD => {
                        self.cancel(note.params)
                    }
                    other => self.queue.push_back(other),
                }
            }
            let Some(message) = self.queue.pop_front() else {
                continue;
            };
            match message {
                Message::Request(request) => {
                    if connection.handle_shutdown(&request)? {
                        return Ok(());
                    }
                    self.handle_request(request);
                }
                Message::Notification(note) => {
                    if note.method == Exit::METHOD {
                        return Ok(());
                    }
                    self.handle_notification(note);
                }
                Message::Response(_) => {}
            }
        }
    }

    /// The next message, or `None` when the diagnostics deadline passed
    /// first, or `Err` when the client is gone. A stale analysis is freed
    /// here, in the debounce pause (about 7 ms for 5,000 lines): the deadline
    /// stays put, so it costs no latency unless it outlasts the pause.
    fn next_message(&mut self, receiver: &Receiver<Message>) -> Option<Result<Message, ()>> {
        match self.deadline {
            None => Some(receiver.recv().map_err(|_| ())),
            Some(deadline) => {
                if self.dirty && deadline > Instant::now() {
                    self.analysis = None;
                    self.publisher.free_finished();
                }
                let wait = deadline.saturating_duration_since(Instant::now());
                match receiver.recv_timeout(wait) {
                    Ok(message) => Some(Ok(message)),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => Some(Err(())),
                }
            }
        }
    }

    fn send(&self, message: impl Into<Message>) {
        // A closed channel means the client is gone; the loop ends on its own.
        let _ = self.sender.send(message.into());
    }

    fn log(&self, text: &str) {
        self.notify::<LogMessage>(lsp::LogMessageParams {
            typ: lsp::MessageType::INFO,
            message: format!("shapescript: {text}"),
        });
    }

    fn notify<N: lsp::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }

    fn is_library(&self, path: &Path) -> bool {
        !self.library_dir.as_os_str().is_empty() && path.starts_with(&self.library_dir)
    }

    fn handle_notification(&mut self, note: Notification) {
        if note.method == Cancel::METHOD {
            return self.cancel(note.params);
        }
        match lsp_base::protocol::doc_event(note) {
            Some(DocEvent::Opened(doc)) => {
                let Some(path) = doc_path(&doc.uri) else {
                    return;
                };
                self.docs.insert(
                    path,
                    Doc {
                        uri: doc.uri,
                        text: doc.text,
                        version: doc.version,
                    },
                );
                self.dirty = true;
                self.deadline = Some(Instant::now());
            }
            Some(DocEvent::Changed(params)) => {
                let path = doc_path(&params.text_document.uri);
                let Some(doc) = path.and_then(|p| self.docs.get_mut(&p)) else {
                    return;
                };
                doc.version = params.text_document.version;
                for change in &params.content_changes {
                    apply_change(&mut doc.text, change);
                }
                self.dirty = true;
                self.deadline = Some(Instant::now() + self.debounce);
            }
            // A file saved or changed outside the editor may be imported by an open one.
            Some(DocEvent::FilesChanged) => {
                self.dirty = true;
                self.deadline = Some(Instant::now() + self.debounce);
            }
            Some(DocEvent::Closed(uri)) => {
                if let Some(path) = doc_path(&uri) {
                    self.docs.remove(&path);
                    self.dirty = true;
                    self.deadline = Some(Instant::now());
                }
            }
            None => {}
        }
    }

    /// Answers a still-queued request that the client cancelled; one already
    /// answered is left alone, as the protocol allows.
    fn cancel(&mut self, params: Value) {
        let Ok(params) = serde_json::from_value::<lsp::CancelParams>(params) else {
            return;
        };
        let id = match params.id {
            lsp::NumberOrString::Number(n) => RequestId::from(n),
            lsp::NumberOrString::String(s) => RequestId::from(s),
        };
        let before = self.queue.len();
        self.queue
            .retain(|m| !matches!(m, Message::Request(r) if r.id == id));
        if self.queue.len() != before {
            self.send(Response::new_err(
                id,
                ErrorCode::RequestCanceled as i32,
                "cancelled".into(),
            ));
        }
    }

    /// The analysis of the current text, made now if the text changed.
    fn analysis(&mut self) -> Result<Arc<Analysis>, String> {
        if !self.dirty {
            if let Some(analysis) = &self.analysis {
                return Ok(analysis.clone());
            }
        }
        let mut roots: Vec<PathBuf> = self
            .docs
            .keys()
            .filter(|p| !self.is_library(p))
            .cloned()
            .collect();
        roots.sort();
        // Free the stale analysis before making the new one (usually done
        // already, in the debounce pause): its memory is then reused warm.
        // Not on another thread: that frees under the allocator's locks while
        // the checker allocates under them, and checking becomes 2-3x slower
        // (so the publisher hands its analyses back to be freed here).
        self.analysis = None;
        self.publisher.free_finished();
        let overlay = Overlay { docs: &self.docs };
        let made = catch_unwind(AssertUnwindSafe(|| {
            Analysis::new(
                &overlay,
                &roots,
                &self.options,
                &self.library_dir,
                &self.extra,
            )
        }));
        self.dirty = false;
        match made {
            Ok(analysis) => {
                let analysis = Arc::new(analysis);
                self.analysis = Some(analysis.clone());
                Ok(analysis)
            }
            Err(panic) => {
                self.analysis = None;
                Err(format!("the checker failed: {}", panic_message(&panic)))
            }
        }
    }

    /// Decides what to publish for the current text and hands it to the
    /// publisher, which converts and sends it off this loop.
    fn publish_diagnostics(&mut self) {
        self.deadline = None;
        let analysis = match self.analysis() {
            Ok(analysis) => analysis,
            Err(message) => {
                self.log(&message);
                return;
            }
        };
        let mut published = Vec::new();
        let mut out = Vec::new();
        for (path, doc) in &self.docs {
            if self.is_library(path) {
                continue;
            }
            out.push(publish::Doc {
                uri: doc.uri.clone(),
                file: analysis.file_id(path),
                version: Some(doc.version),
            });
            published.push(doc.uri.clone());
        }
        for old in &self.published {
            if !published.contains(old) {
                out.push(publish::Doc {
                    uri: old.clone(),
                    file: None,
                    version: None,
                });
            }
        }
        self.published = published;
        self.publisher.publish(analysis, out);
    }

    fn handle_request(&mut self, request: Request) {
        let analysis = match self.analysis() {
            Ok(analysis) => analysis,
            Err(message) => {
                self.send(Response::new_err(
                    request.id,
                    ErrorCode::InternalError as i32,
                    message,
                ));
                return;
            }
        };
        let method = request.method.clone();
        let response = answer(request.id, &method, || {
            handlers::handle(&analysis, &method, request.params)
        });
        self.send(response);
    }
}

/// The normalized path of a document's `file://` URI.
fn doc_path(doc_uri: &lsp::Uri) -> Option<PathBuf> {
    uri::to_path(doc_uri.as_str()).map(|p| check::normalize(&p))
}
