//! What each fuzz target does with its bytes: the real pipelines, as the
//! commands and servers run them, with nothing written to disk but the
//! language server's library folder.

use std::path::PathBuf;
use std::sync::OnceLock;

use diag::SourceMap;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{json, Value};

/// The fuzz targets, by the name `scripts/fuzz` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// ShapeScript text through the checker and, when it checks clean, the
    /// Python generator.
    ShapeScript,
    /// A ShapeScript language server session: the text opened, edited at
    /// places the bytes choose, and asked hover, completion, definition and
    /// formatting questions there.
    ShapeScriptServer,
    /// SexpGPU text read, evaluated under a small step budget and traced,
    /// as `sexpgpu check` does.
    Sexpgpu,
    /// Data files as SexpGPU loads them: the first byte picks `.npy`,
    /// `.npz` or `.safetensors`, the rest is the file.
    Data,
}

impl Target {
    pub const ALL: [Target; 4] = [
        Target::ShapeScript,
        Target::ShapeScriptServer,
        Target::Sexpgpu,
        Target::Data,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::ShapeScript => "shapescript",
            Target::ShapeScriptServer => "shapescript-server",
            Target::Sexpgpu => "sexpgpu",
            Target::Data => "data",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Runs the target on `data`. Panics (the fuzzer's crash) when the
    /// pipeline does something no input may make it do.
    pub fn run(self, data: &[u8]) {
        match self {
            Target::ShapeScript => shapescript(data),
            Target::ShapeScriptServer => shapescript_server(data),
            Target::Sexpgpu => sexpgpu(data),
            Target::Data => data_file(data),
        }
    }
}

/// The most forms a fuzzed SexpGPU file's host code may evaluate: enough
/// for every example's, small enough that a loop ends in milliseconds.
const STEPS: u64 = 200_000;

fn shapescript(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut map = SourceMap::new();
    let checked = check::check_sources(&mut map, &[("main.ss", &text)], &Default::default());
    if checked
        .diagnostics
        .iter()
        .all(|d| d.severity != diag::Severity::Error)
    {
        // A program that checks clean builds, or says which construct it
        // cannot emit (E0901): never a panic.
        let _ = pygen::generate(&checked, &map, &pygen::Options::default());
    }
}

fn sexpgpu(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut session = sexpgpu::Session::new(sexpgpu::Mode::Check, 0, Box::new(Files(None)));
    session.set_step_limit(STEPS);
    let _ = session.eval_file("fuzz.sx", &text);
}

/// A host whose one file is the fuzzed bytes, whatever its path; it
/// prints nothing and writes nothing.
struct Files(Option<Vec<u8>>);

impl sexpgpu::Host for Files {
    fn print(&mut self, _: &str) {}

    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        self.0
            .clone()
            .ok_or_else(|| format!("cannot read `{path}`: no files here"))
    }
}

fn data_file(data: &[u8]) {
    let Some((&kind, file)) = data.split_first() else {
        return;
    };
    let load = match kind % 3 {
        0 => {
            let _ = sexpgpu_graph::from_npy(file);
            "load-npy"
        }
        1 => "load-npz",
        _ => "load-safetensors",
    };
    let mut session = sexpgpu::Session::new(
        sexpgpu::Mode::Check,
        0,
        Box::new(Files(Some(file.to_vec()))),
    );
    session.set_step_limit(STEPS);
    let _ = session.eval_file("fuzz.sx", &format!("({load} \"file\")"));
}

/// The library folder the fuzzed servers write their stubs into, once.
fn library_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("fuzz-lsp-library-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir
    })
}

/// A server session over the bytes: the first half of the bytes is the
/// file, the rest says where to edit and ask (two bytes a question).
fn shapescript_server(data: &[u8]) {
    let split = data.len() / 2;
    let text = String::from_utf8_lossy(&data[..split]).into_owned();
    let (server, client) = Connection::memory();
    let thread = std::thread::spawn(move || lsp::run(server));
    let uri = "file:///fuzz/main.ss";
    let mut next = 0;
    let mut request = |method: &str, params: Value| {
        next += 1;
        let r = Request::new(RequestId::from(next), method.to_string(), params);
        let _ = client.sender.send(Message::Request(r));
    };
    request(
        "initialize",
        json!({ "capabilities": {}, "initializationOptions": { "libraryDir": library_dir() } }),
    );
    let notify = |method: &str, params: Value| {
        let n = Notification::new(method.to_string(), params);
        let _ = client.sender.send(Message::Notification(n));
    };
    notify("initialized", json!({}));
    notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "shapescript", "version": 1, "text": text } }),
    );
    let lines = text.lines().count().max(1) as u64;
    for (k, pair) in data[split..].chunks(2).take(64).enumerate() {
        let line = u64::from(pair[0]) % lines;
        let character = u64::from(*pair.get(1).unwrap_or(&0));
        let at = json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });
        match pair[0] % 5 {
            0 => request("textDocument/hover", at),
            1 => request("textDocument/completion", at),
            2 => request("textDocument/definition", at),
            3 => request(
                "textDocument/documentSymbol",
                json!({ "textDocument": { "uri": uri } }),
            ),
            _ => notify(
                "textDocument/didChange",
                json!({
                    "textDocument": { "uri": uri, "version": k + 2 },
                    "contentChanges": [{
                        "range": { "start": { "line": line, "character": character }, "end": { "line": line, "character": character } },
                        "text": String::from_utf8_lossy(pair).into_owned(),
                    }],
                }),
            ),
        }
    }
    request("shutdown", Value::Null);
    let shutdown = RequestId::from(next);
    // `exit` only once `shutdown` is answered, as a client must: the server
    // answers queued requests in turn.
    let mut replies = Vec::new();
    for message in client.receiver.iter() {
        let done = matches!(&message, Message::Response(r) if r.id == shutdown);
        replies.push(message);
        if done {
            break;
        }
    }
    notify("exit", Value::Null);
    let ended = thread.join();
    for message in replies.into_iter().chain(client.receiver.try_iter()) {
        if let Message::Response(Response { error: Some(e), .. }) = message {
            // A handler that panicked answers an internal error.
            assert!(
                e.code != lsp_server::ErrorCode::InternalError as i32,
                "the server failed: {}",
                e.message
            );
        }
    }
    assert!(
        matches!(ended, Ok(Ok(()))),
        "the server ended with an error"
    );
}
