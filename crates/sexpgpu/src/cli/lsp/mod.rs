//! `sexpgpu lsp`: the SexpGPU language server (`docs/sexpgpu/editor.md`).
//! The main loop: initialization (the library folder, written read-only;
//! the workspace's folders; whether to evaluate at all, off in a folder
//! the editor does not trust; the budget), the open documents and their
//! incremental edits, diagnostics published a short pause after the last
//! edit, each document analysed again only when its text changed, and one
//! `catch_unwind` a request. Every evaluation runs through `host`, which
//! reads only inside the workspace and writes nothing.

mod handlers;
mod host;

use crossbeam_channel::{Receiver, RecvTimeoutError};
use lsp_base::protocol::{answer, apply_change, panic_message, DocEvent};
use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types as lsp;
use lsp_types::notification::{Exit, LogMessage, Notification as _, PublishDiagnostics};
use serde_json::Value;
use sexpgpu::ide::{self, Analysis, Names};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use lsp_base::protocol::BoxError;

/// The settings a client may give in `initializationOptions`.
struct Settings {
    library_dir: PathBuf,
    /// Evaluate host code (the client says no in an untrusted folder).
    evaluate: bool,
    /// How long one evaluation may take.
    budget: Duration,
    max_steps: u64,
    /// The pause after an edit before analysing.
    debounce: Duration,
    inlay_hints: bool,
    /// The workspace's folders: the only places data files are read from.
    folders: Vec<PathBuf>,
}

/// Runs the server over stdin and stdout until the client says `exit`.
pub fn run_stdio() -> Result<(), BoxError> {
    lsp_base::protocol::run_stdio(run)
}

/// Runs the server on `connection`.
pub fn run(connection: Connection) -> Result<(), BoxError> {
    let (id, params) = connection.initialize_start()?;
    let settings = settings(&params);
    let result = lsp::InitializeResult {
        capabilities: handlers::capabilities(),
        server_info: Some(lsp::ServerInfo {
            name: "sexpgpu".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    let names = ide::known_names(Box::new(host::EditorHost {
        base: PathBuf::new(),
        roots: Vec::new(),
        deadline: Instant::now() + Duration::from_secs(60),
    }));
    let files: Vec<(PathBuf, &str)> = names
        .library
        .iter()
        .map(|(name, text)| (settings.library_dir.join(name), *text))
        .collect();
    let written = lsp_base::library_folder::write(files.iter().map(|(p, t)| (p.as_path(), *t)));
    connection.initialize_finish(id, serde_json::to_value(result)?)?;
    let mut server = Server {
        connection: &connection,
        settings,
        names,
        docs: HashMap::new(),
        deadline: None,
        published: HashMap::new(),
    };
    if let Err(e) = written {
        server.log(&format!("could not write the library folder: {e}"));
    }
    server.main_loop()
}

/// The settings of `initializationOptions`, with their defaults.
fn settings(params: &Value) -> Settings {
    let options = params
        .get("initializationOptions")
        .cloned()
        .unwrap_or(Value::Null);
    let number =
        |key: &str, default: u64| options.get(key).and_then(Value::as_u64).unwrap_or(default);
    let flag = |key: &str| options.get(key).and_then(Value::as_bool).unwrap_or(true);
    let library_dir = options.get("libraryDir").and_then(Value::as_str);
    let library_dir = lsp_base::library_folder::choose_dir("sexpgpu", library_dir)
        .unwrap_or_else(|| std::env::temp_dir().join("sexpgpu-library"));
    let mut folders: Vec<PathBuf> = params
        .get("workspaceFolders")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| f.get("uri")?.as_str())
        .filter_map(lsp_base::uri::to_path)
        .collect();
    if folders.is_empty() {
        let root = params.get("rootUri").and_then(Value::as_str);
        folders.extend(root.and_then(lsp_base::uri::to_path));
    }
    Settings {
        library_dir,
        evaluate: flag("evaluate"),
        budget: Duration::from_millis(number("budgetMs", 2000)),
        max_steps: number("maxSteps", ide::Options::default().max_steps),
        debounce: Duration::from_millis(number("diagnosticsDelayMs", 10)),
        inlay_hints: flag("inlayHints"),
        folders,
    }
}

/// An open document.
struct Doc {
    uri: lsp::Uri,
    text: String,
    version: i32,
    /// The analysis of `text`; `None` once the text changed.
    analysis: Option<Analysis>,
    /// Whether its diagnostics wait to be published.
    unpublished: bool,
}

struct Server<'c> {
    connection: &'c Connection,
    settings: Settings,
    names: Names,
    /// The open documents, by URI.
    docs: HashMap<String, Doc>,
    /// When to analyse and publish next.
    deadline: Option<Instant>,
    /// For each document, the library files it published diagnostics on.
    published: HashMap<String, Vec<lsp::Uri>>,
}

impl Server<'_> {
    fn main_loop(&mut self) -> Result<(), BoxError> {
        loop {
            let message = match self.next_message(&self.connection.receiver) {
                Some(Ok(message)) => message,
                Some(Err(())) => return Ok(()),
                None => {
                    self.publish();
                    continue;
                }
            };
            match message {
                Message::Request(request) => {
                    if self.connection.handle_shutdown(&request)? {
                        return Ok(());
                    }
                    self.handle_request(request);
                }
                Message::Notification(note) if note.method == Exit::METHOD => return Ok(()),
                Message::Notification(note) => self.handle_notification(note),
                Message::Response(_) => {}
            }
        }
    }

    /// The next message, `None` when the deadline to publish passed first,
    /// `Err` when the client is gone.
    fn next_message(&self, receiver: &Receiver<Message>) -> Option<Result<Message, ()>> {
        match self.deadline {
            None => Some(receiver.recv().map_err(|_| ())),
            Some(deadline) => {
                match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok(message) => Some(Ok(message)),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => Some(Err(())),
                }
            }
        }
    }

    fn send(&self, message: impl Into<Message>) {
        // A closed channel means the client is gone; the loop ends on its own.
        let _ = self.connection.sender.send(message.into());
    }

    fn log(&self, text: &str) {
        let params = lsp::LogMessageParams {
            typ: lsp::MessageType::INFO,
            message: format!("sexpgpu: {text}"),
        };
        self.send(Notification::new(LogMessage::METHOD.to_string(), params));
    }

    fn handle_notification(&mut self, note: Notification) {
        match lsp_base::protocol::doc_event(note) {
            Some(DocEvent::Opened(doc)) => {
                self.docs.insert(
                    doc.uri.as_str().to_string(),
                    Doc {
                        uri: doc.uri,
                        text: doc.text,
                        version: doc.version,
                        analysis: None,
                        unpublished: true,
                    },
                );
                self.deadline = Some(Instant::now());
            }
            Some(DocEvent::Changed(params)) => {
                let Some(doc) = self.docs.get_mut(params.text_document.uri.as_str()) else {
                    return;
                };
                doc.version = params.text_document.version;
                for change in &params.content_changes {
                    apply_change(&mut doc.text, change);
                }
                doc.analysis = None;
                doc.unpublished = true;
                self.deadline = Some(Instant::now() + self.settings.debounce);
            }
            Some(DocEvent::Closed(uri)) => {
                self.docs.remove(uri.as_str());
                let mut cleared = self.published.remove(uri.as_str()).unwrap_or_default();
                cleared.push(uri);
                for uri in cleared {
                    self.publish_one(uri, Vec::new(), None);
                }
            }
            _ => {}
        }
    }

    /// Analyses each document whose text changed, and publishes its diagnostics.
    fn publish(&mut self) {
        self.deadline = None;
        let waiting: Vec<String> = self
            .docs
            .iter()
            .filter(|(_, d)| d.unpublished)
            .map(|(u, _)| u.clone())
            .collect();
        for uri in waiting {
            if let Err(why) = self.ensure_analysis(&uri) {
                self.log(&why);
                continue;
            }
            let Some(doc) = self.docs.get_mut(&uri) else {
                continue;
            };
            doc.unpublished = false;
            let Some(doc) = self.docs.get(&uri) else {
                continue;
            };
            let version = doc.version;
            let Some(analysis) = &doc.analysis else {
                continue;
            };
            let cx = self.context(&doc.uri, analysis);
            let by_file = handlers::diagnostics(&cx);
            let before = self.published.remove(&uri).unwrap_or_default();
            let mut library: Vec<lsp::Uri> = Vec::new();
            for (file, diagnostics) in by_file {
                let own = file.as_str() == uri;
                if !own {
                    library.push(file.clone());
                }
                self.publish_one(file, diagnostics, own.then_some(version));
            }
            for old in before.into_iter().filter(|u| !library.contains(u)) {
                self.publish_one(old, Vec::new(), None);
            }
            self.published.insert(uri, library);
        }
    }

    fn publish_one(&self, uri: lsp::Uri, diagnostics: Vec<lsp::Diagnostic>, version: Option<i32>) {
        let params = lsp::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(
            PublishDiagnostics::METHOD.to_string(),
            params,
        ));
    }

    /// Makes the analysis of `uri`'s current text if it has none.
    fn ensure_analysis(&mut self, uri: &str) -> Result<(), String> {
        let settings = &self.settings;
        let Some(doc) = self.docs.get_mut(uri) else {
            return Err(format!("`{uri}` is not open"));
        };
        if doc.analysis.is_some() {
            return Ok(());
        }
        let path = lsp_base::uri::to_path(uri).unwrap_or_default();
        // Library files are read, never evaluated.
        let evaluate = settings.evaluate && !path.starts_with(&settings.library_dir);
        let options = ide::Options {
            evaluate,
            max_steps: settings.max_steps,
        };
        let host = host::EditorHost {
            base: path.parent().map(PathBuf::from).unwrap_or_default(),
            roots: host::roots(&settings.folders, &path),
            deadline: Instant::now() + settings.budget,
        };
        let name = path.display().to_string();
        let made = catch_unwind(AssertUnwindSafe(|| {
            Analysis::new(&name, &doc.text, &options, Box::new(host))
        }));
        match made {
            Ok(analysis) => {
                doc.analysis = Some(analysis);
                Ok(())
            }
            Err(panic) => Err(format!("the analysis failed: {}", panic_message(&panic))),
        }
    }

    fn context<'a>(&'a self, uri: &'a lsp::Uri, analysis: &'a Analysis) -> handlers::Context<'a> {
        handlers::Context {
            analysis,
            uri,
            names: &self.names,
            library_dir: &self.settings.library_dir,
            inlay_hints: self.settings.inlay_hints,
        }
    }

    fn handle_request(&mut self, request: Request) {
        let uri = request
            .params
            .get("textDocument")
            .and_then(|d| d.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let method = request.method.clone();
        let Some(uri) = uri else {
            let unknown = || Err(lsp_base::protocol::Error::UnknownMethod);
            self.send(answer(request.id, &method, unknown));
            return;
        };
        if let Err(why) = self.ensure_analysis(&uri) {
            // A document the client did not open: nothing to say about it.
            self.log(&why);
        }
        let doc = self.docs.get(&uri);
        let response = match doc.and_then(|d| Some((&d.uri, d.analysis.as_ref()?))) {
            Some((uri, analysis)) => {
                let cx = self.context(uri, analysis);
                answer(request.id, &method, || {
                    handlers::handle(&cx, &method, request.params)
                })
            }
            None => Response::new_ok(request.id, Value::Null),
        };
        self.send(response);
    }
}
