//! A test client for the language server: runs `lsp::run` on a thread over
//! an in-memory connection, in a fresh temp folder of `.ss` files, and
//! checks at shutdown that no message was left unread.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

pub struct Project {
    pub dir: PathBuf,
}

impl Project {
    /// A new empty folder for one test, under the system's temp folder.
    pub fn new(name: &str) -> Project {
        let dir =
            std::env::temp_dir().join(format!("shapescript-lsp-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp folder");
        Project { dir }
    }

    pub fn write(&self, name: &str, text: &str) -> String {
        let path = self.dir.join(name);
        std::fs::write(&path, text).expect("write test file");
        lsp::uri::from_path(&path)
    }

    pub fn uri(&self, name: &str) -> String {
        lsp::uri::from_path(&self.dir.join(name))
    }

    /// Replaces the folder's path by `$DIR` in `text`, for expectations.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&lsp::uri::from_path(&self.dir), "file://$DIR")
            .replace(&self.dir.display().to_string(), "$DIR")
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        make_writable(&self.dir);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn make_writable(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            make_writable(&path);
        } else if let Ok(meta) = std::fs::metadata(&path) {
            let mut permissions = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            let _ = std::fs::set_permissions(&path, permissions);
        }
    }
}

pub struct Client {
    pub conn: Connection,
    server: Option<JoinHandle<()>>,
    next_id: i32,
    /// Notifications read while waiting for something else.
    pub notifications: Vec<Notification>,
    /// What the server's `initialize` reply said it can do (`null` until
    /// `start` reads it).
    pub capabilities: Value,
}

const TIMEOUT: Duration = Duration::from_secs(20);

impl Client {
    /// Starts a server and initializes it with `options`.
    pub fn start(options: Value) -> Client {
        let (server, conn) = Connection::memory();
        let mut client = Client::from_parts(conn);
        client.queue_initialize(options);
        client.run_server(server);
        let result = client.response(RequestId::from(1));
        assert!(result.get("capabilities").is_some(), "{result}");
        client.capabilities = result["capabilities"].clone();
        client
    }

    /// A client on one end of a connection whose server isn't running yet.
    pub fn from_parts(conn: Connection) -> Client {
        Client {
            conn,
            server: None,
            next_id: 0,
            notifications: Vec::new(),
            capabilities: Value::Null,
        }
    }

    /// Sends `initialize` (id 1) and `initialized`, without waiting.
    pub fn queue_initialize(&mut self, options: Value) {
        self.send_request(
            "initialize",
            json!({ "capabilities": {}, "initializationOptions": options }),
        );
        self.notify("initialized", json!({}));
    }

    /// Runs the server on `server`, the other end of this client's connection.
    pub fn run_server(&mut self, server: Connection) {
        self.server = Some(std::thread::spawn(move || {
            lsp::run(server).expect("server ran");
        }));
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )))
            .expect("server alive");
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_string(),
                params,
            )))
            .expect("server alive");
        id
    }

    /// The response to `id`: its result, or `{"error": ...}`.
    pub fn response(&mut self, id: RequestId) -> Value {
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(TIMEOUT)
                .expect("a response in time")
            {
                Message::Response(response) if response.id == id => {
                    return match response.error {
                        Some(error) => {
                            json!({ "error": { "code": error.code, "message": error.message } })
                        }
                        None => response.result.unwrap_or(Value::Null),
                    };
                }
                Message::Response(other) => panic!("unexpected response {other:?}"),
                Message::Notification(note) => self.notifications.push(note),
                Message::Request(request) => panic!("unexpected request {request:?}"),
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// The next `publishDiagnostics` for `uri` (earlier ones already read included).
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|n| n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri)
        {
            return self.notifications.remove(i).params;
        }
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(TIMEOUT)
                .expect("diagnostics in time")
            {
                Message::Notification(note)
                    if note.method == "textDocument/publishDiagnostics"
                        && note.params["uri"] == uri =>
                {
                    return note.params;
                }
                Message::Notification(note) => self.notifications.push(note),
                other => panic!("unexpected message {other:?}"),
            }
        }
    }

    pub fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "shapescript", "version": 1, "text": text } }),
        );
    }

    /// Parameters naming a place: `uri` at 0-based `line` and `character`.
    pub fn at(uri: &str, line: u32, character: u32) -> Value {
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } })
    }

    /// Shuts the server down and checks nothing was left unread but
    /// `allowed` notifications (such as late diagnostics).
    pub fn shutdown(mut self, allowed: &[&str]) {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        self.notify("exit", Value::Null);
        if let Some(server) = self.server.take() {
            server.join().expect("server thread ended cleanly");
        }
        let left: Vec<String> = self
            .notifications
            .iter()
            .map(|n| n.method.clone())
            .chain(self.conn.receiver.try_iter().map(|m| match m {
                Message::Notification(note) => note.method,
                other => format!("{other:?}"),
            }))
            .filter(|m| !allowed.contains(&m.as_str()))
            .collect();
        assert!(left.is_empty(), "messages left unread: {left:?}");
    }
}

/// Pretty JSON for expectations.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("json")
}
