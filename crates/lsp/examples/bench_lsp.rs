//! Language-server latency on a 5,000-line file, in process over an
//! in-memory connection (no pipes): the time from an edit to its published
//! diagnostics (the debounce included) and the time of a hover on a dim
//! used all over the file, each as p50 and p99. Targets: p99 under 50 ms and
//! under 10 ms. Run with `cargo run --release -p lsp --example bench_lsp`.

use std::time::{Duration, Instant};

#[path = "common/mod.rs"]
mod common;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

// What `shapescript lsp` runs with: mimalloc, keeping freed memory a second.
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

const EDITS: usize = 200;
const HOVERS: usize = 500;

/// About 5,000 lines: dims, then functions with a few `let`s each.
fn program() -> String {
    let mut text = String::from("## Model width.\ndim D = 64\ndim H = 4\ndim Dh = D / H\n\n");
    let mut i = 0;
    while text.lines().count() < 5000 {
        text.push_str(&format!(
            "fn block{i}(x: [b n D], w: [D 3*D], v: [3*D D]) -> [b n D] {{\n  let h = x @ w\n  let g = gelu(h)\n  g @ v\n}}\n\n"
        ));
        i += 1;
    }
    text
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn wait_for(conn: &Connection, found: impl FnMut(&Message) -> bool) {
    assert!(
        common::wait_for(conn, Duration::from_secs(30), found),
        "the server answers"
    );
}

fn main() {
    if std::env::var_os("BENCH_PURGE_EARLY").is_none() {
        allocator::keep_freed_memory();
    }
    let text = program();
    let lines = text.lines().count();
    let dir = std::env::temp_dir().join(format!("shapescript-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let path = dir.join("big.ss");
    std::fs::write(&path, &text).expect("write");
    let uri = lsp::uri::from_path(&path);

    let (server, conn) = Connection::memory();
    let thread = std::thread::spawn(move || lsp::run(server).expect("server"));
    let send = |m: Message| conn.sender.send(m).expect("send");
    send(Request::new(RequestId::from(0), "initialize".into(), json!({ "capabilities": {}, "initializationOptions": { "libraryDir": dir.join("library") } })).into());
    wait_for(&conn, |m| matches!(m, Message::Response(_)));
    send(Notification::new("initialized".into(), json!({})).into());
    send(Notification::new(
        "textDocument/didOpen".into(),
        json!({ "textDocument": { "uri": uri, "languageId": "shapescript", "version": 0, "text": text } }),
    )
    .into());
    wait_for(
        &conn,
        |m| matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics"),
    );

    let mut edits = Vec::with_capacity(EDITS);
    for version in 1..=EDITS as i64 {
        // Change the value of `dim H`, so every use of D changes meaning.
        let value = if version % 2 == 0 { "4" } else { "8" };
        let start = Instant::now();
        send(Notification::new(
            "textDocument/didChange".into(),
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "range": { "start": { "line": 2, "character": 8 }, "end": { "line": 2, "character": 9 } }, "text": value }],
            }),
        )
        .into());
        wait_for(
            &conn,
            |m| matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics" && n.params["version"] == json!(version)),
        );
        edits.push(start.elapsed());
    }

    let mut hovers = Vec::with_capacity(HOVERS);
    let mut hover_text = Value::Null;
    for i in 0..HOVERS {
        let id = RequestId::from(1000 + i as i32);
        let start = Instant::now();
        send(Request::new(
            id.clone(),
            "textDocument/hover".into(),
            json!({ "textDocument": { "uri": uri }, "position": { "line": 1, "character": 4 } }),
        )
        .into());
        wait_for(&conn, |m| match m {
            Message::Response(r) if r.id == id => {
                hover_text = r.result.clone().unwrap_or(Value::Null);
                true
            }
            _ => false,
        });
        hovers.push(start.elapsed());
    }
    send(Request::new(RequestId::from(-1), "shutdown".into(), Value::Null).into());
    wait_for(
        &conn,
        |m| matches!(m, Message::Response(r) if r.id == RequestId::from(-1)),
    );
    send(Notification::new("exit".into(), Value::Null).into());
    thread.join().expect("server thread");

    // The checker alone on the same text, to tell its time from the server's.
    let mut files = check::MemoryFiles::new();
    files.insert(&path, text.as_str());
    let mut checks = Vec::with_capacity(50);
    for _ in 0..50 {
        let start = Instant::now();
        let mut map = diag::SourceMap::new();
        let checked = check::check(
            &mut map,
            &files,
            std::slice::from_ref(&path),
            &check::Options::default(),
        );
        checks.push(start.elapsed());
        drop(checked);
    }

    let shown = hover_text["contents"]["value"]
        .as_str()
        .unwrap_or("")
        .lines()
        .count();
    println!(
        "file: {lines} lines, {} bytes; hover text: {shown} lines",
        text.len()
    );
    println!(
        "edit -> published diagnostics ({EDITS} edits): p50 {:.1} ms, p99 {:.1} ms (target p99 < 50 ms)",
        percentile(&mut edits, 0.5).as_secs_f64() * 1e3,
        percentile(&mut edits, 0.99).as_secs_f64() * 1e3
    );
    println!(
        "of which check::check alone (50 runs): p50 {:.1} ms, p99 {:.1} ms",
        percentile(&mut checks, 0.5).as_secs_f64() * 1e3,
        percentile(&mut checks, 0.99).as_secs_f64() * 1e3
    );
    println!(
        "hover on a dim ({HOVERS} hovers): p50 {:.2} ms, p99 {:.2} ms (target p99 < 10 ms)",
        percentile(&mut hovers, 0.5).as_secs_f64() * 1e3,
        percentile(&mut hovers, 0.99).as_secs_f64() * 1e3
    );
    common::remove_dir(&dir);
}
