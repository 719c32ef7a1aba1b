//! `sexpgpu lsp` end to end: the real binary over its stdin and stdout,
//! driven as an editor drives it (`docs/sexpgpu/editor.md`). Each test
//! works in a fresh folder of its own, the workspace the server is given.

use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{json, Value};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any one answer may take (a debug build, a busy machine).
const TIMEOUT: Duration = Duration::from_secs(60);

/// A running server and what it sent that no one read yet.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Message>,
    notifications: Vec<Notification>,
    next_id: i32,
    pub dir: PathBuf,
}

impl Client {
    /// Starts `sexpgpu lsp` on a fresh workspace folder `name`, with these
    /// `initializationOptions` (the library folder inside the workspace).
    fn start(name: &str, mut options: Value) -> Client {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("lsp-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a workspace folder");
        options["libraryDir"] = json!(dir.join(".library"));
        let (child, stdin, stdout) = uitest::support::start_server(env!("CARGO_BIN_EXE_sexpgpu"));
        let (send, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Ok(Some(message)) = Message::read(&mut reader) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        let mut client = Client {
            child,
            stdin,
            messages,
            notifications: Vec::new(),
            next_id: 0,
            dir,
        };
        let root = uri(&client.dir);
        let params = json!({
            "capabilities": {},
            "rootUri": root,
            "workspaceFolders": [{ "uri": root, "name": name }],
            "initializationOptions": options,
        });
        client.request("initialize", params);
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Message) {
        message.write(&mut self.stdin).expect("the server reads");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )));
    }

    fn next(&mut self, deadline: Instant) -> Message {
        match self
            .messages
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!("no message in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server stopped"),
        }
    }

    /// The result of a request (`{"error": ...}` for an error).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Message::Request(Request::new(
            id.clone(),
            method.to_string(),
            params,
        )));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            match self.next(deadline) {
                Message::Response(r) if r.id == id => {
                    return match r.error {
                        Some(e) => json!({ "error": e.message }),
                        None => r.result.unwrap_or(Value::Null),
                    }
                }
                Message::Notification(n) => self.notifications.push(n),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// The next diagnostics published for `file`.
    fn diagnostics(&mut self, file: &str) -> Vec<Value> {
        let wanted = uri(&self.dir.join(file));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let found = self.notifications.iter().position(|n| {
                n.method == "textDocument/publishDiagnostics" && n.params["uri"] == wanted
            });
            if let Some(i) = found {
                let note = self.notifications.remove(i);
                return note.params["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
            }
            match self.next(deadline) {
                Message::Notification(n) => self.notifications.push(n),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// Writes `file` into the workspace and opens it.
    fn open(&mut self, file: &str, text: &str) {
        std::fs::write(self.dir.join(file), text).expect("write");
        let doc = json!({ "uri": uri(&self.dir.join(file)), "languageId": "sexpgpu", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": doc }));
    }

    /// Replaces `file`'s text in the editor, without saving it.
    fn change(&mut self, file: &str, version: i32, text: &str) {
        let doc = json!({ "uri": uri(&self.dir.join(file)), "version": version });
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": doc, "contentChanges": [{ "text": text }] }),
        );
    }

    /// `textDocument/method` at line and character of `file`.
    fn at(&mut self, method: &str, file: &str, line: u32, character: u32) -> Value {
        let params = json!({
            "textDocument": { "uri": uri(&self.dir.join(file)) },
            "position": { "line": line, "character": character },
            "context": { "includeDeclaration": true },
        });
        self.request(&format!("textDocument/{method}"), params)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect()
}

const LINEAR: &str = "(require nn)\n(defgraph lin [(x [8 16] :f32) (w [32 16] :f32)]\n  (let [h (matmul x (transpose w [1 0]))]\n    (nn/relu h)))\n";

#[test]
fn shapes_as_you_type_hover_hints_diagnostics_and_navigation() {
    let mut client = Client::start("shapes", json!({}));
    client.open("main.sx", LINEAR);
    assert_eq!(codes(&client.diagnostics("main.sx")), Vec::<&str>::new());
    let hover = client.at("hover", "main.sx", 2, 13);
    let shown = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(shown.contains("`[8, 32] f32`"), "{hover}");
    let range =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 4, "character": 0 } });
    let doc = json!({ "uri": uri(&client.dir.join("main.sx")) });
    let hints = client.request(
        "textDocument/inlayHint",
        json!({ "textDocument": doc, "range": range }),
    );
    assert_eq!(hints[0]["label"], ": [8, 32] f32", "{hints}");
    // Into the library: a read-only file in the library folder.
    let found = client.at("definition", "main.sx", 3, 9);
    let target = found["uri"]
        .as_str()
        .unwrap_or("")
        .trim_start_matches("file://")
        .to_string();
    assert!(target.ends_with(".library/nn.sx"), "{found}");
    let permissions = std::fs::metadata(&target)
        .expect("the library file")
        .permissions();
    assert!(permissions.readonly());
    // A shape mistake, typed but not saved.
    client.change("main.sx", 2, &LINEAR.replace("(transpose w [1 0])", "w"));
    let diagnostics = client.diagnostics("main.sx");
    assert_eq!(codes(&diagnostics), ["E-DIM-001"], "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": 2, "character": 10 })
    );
    let outline = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": doc }),
    );
    assert_eq!(outline[0]["name"], "lin", "{outline}");
}

#[test]
fn formatting_from_the_editor() {
    let mut client = Client::start("format", json!({}));
    client.open("main.sx", "(defn f (x)\n(* x  2))\n");
    let doc = json!({ "uri": uri(&client.dir.join("main.sx")) });
    let options = json!({ "tabSize": 2, "insertSpaces": true });
    let edits = client.request(
        "textDocument/formatting",
        json!({ "textDocument": doc, "options": options }),
    );
    assert_eq!(edits[0]["newText"], "  (* x 2))\n", "{edits}");
}

#[test]
fn opening_a_file_never_writes_and_reads_only_the_workspace() {
    let mut client = Client::start("safe", json!({}));
    std::fs::write(client.dir.join("notes.txt"), "hello").expect("write");
    let text = "(defgraph g [(x [2] :f32)] (* x 2.0))\n(def y (call g [1 2]))\n(save-npy \"out.npy\" y)\n(save-npz \"out.npz\" {:y y})\n(save-safetensors \"out.safetensors\" {:y y})\n(def inside (load-text \"notes.txt\"))\n(def outside (load-text \"/etc/hostname\"))\n";
    client.open("main.sx", text);
    let diagnostics = client.diagnostics("main.sx");
    assert_eq!(codes(&diagnostics), ["E-IO-001"], "{diagnostics:?}");
    assert!(diagnostics[0]["message"]
        .as_str()
        .unwrap_or("")
        .contains("outside the workspace"));
    let mut files: Vec<String> = std::fs::read_dir(&client.dir)
        .expect("the folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [".library", "main.sx", "notes.txt"],
        "nothing written"
    );
}

#[test]
fn a_loop_without_end_is_stopped_and_the_server_answers_on() {
    let mut client = Client::start("loop", json!({ "budgetMs": 300 }));
    client.open(
        "main.sx",
        "(defgraph g [(x [3] :f32)] (* x 2.0))\n(def n (loop [i 0] (recur (inc i))))\n",
    );
    let started = Instant::now();
    let diagnostics = client.diagnostics("main.sx");
    assert_eq!(codes(&diagnostics), ["E-EVAL-014"], "{diagnostics:?}");
    assert!(started.elapsed() < TIMEOUT);
    let hover = client.at("hover", "main.sx", 0, 28);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("[3] f32"),
        "{hover}"
    );
}

#[test]
fn an_untrusted_folder_is_read_but_never_evaluated() {
    let mut client = Client::start("untrusted", json!({ "evaluate": false }));
    client.open(
        "main.sx",
        "(println (/ 1 0))\n(defgraph g [(x [2 16] :f32) (w [32 8] :f32)] (matmul x w))\n",
    );
    assert_eq!(codes(&client.diagnostics("main.sx")), Vec::<&str>::new());
    client.change("main.sx", 2, "(println (/ 1 0)\n");
    assert_eq!(codes(&client.diagnostics("main.sx")), ["E-READ-001"]);
}
