//! The language server on files with many diagnostics (`fn fK(x: [n]) -> [m]
//! = x`, one E0301 a line), in process over an in-memory connection: for
//! each size, the time from opening the file to its published diagnostics,
//! the time of a hover sent right after the open (answered while the
//! diagnostics are published, or after), the same after an edit with the
//! hover sent 15 ms after it, while the server checks (it needs the new
//! analysis but not the diagnostics' conversion), `check::check` alone with the
//! server's options, and the time per diagnostic, so a cost that grows
//! faster than the count shows as a growing figure. Sizes from
//! `BENCH_ERRORS` (comma-separated; default 5000,10000,20000,50000). Run
//! with `cargo run --release -p lsp --example bench_lsp_errors`.

use std::time::{Duration, Instant};

use common::wait_for;

#[path = "common/mod.rs"]
mod common;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

// What `shapescript lsp` runs with: mimalloc, keeping freed memory a second.
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

/// `count` functions, each with one mistake: `m` is no size.
fn program(count: usize) -> String {
    (0..count)
        .map(|i| format!("fn f{i}(x: [n]) -> [m] = x\n"))
        .collect()
}

/// The figures of one size.
struct Run {
    published: Option<Duration>,
    count: usize,
    hover: Option<Duration>,
    hover_first: bool,
    /// After an edit: its diagnostics published, and a hover sent 15 ms
    /// after it (during the check) answered.
    republished: Option<Duration>,
    rehover: Option<Duration>,
    check: Duration,
}

fn measure(count: usize, dir: &std::path::Path) -> Run {
    let text = program(count);
    let path = dir.join(format!("errors{count}.ss"));
    std::fs::write(&path, &text).expect("write");
    let uri = lsp::uri::from_path(&path);
    let limit = Duration::from_secs(120);

    let (server, conn) = Connection::memory();
    let thread = std::thread::spawn(move || lsp::run(server).expect("server"));
    let send = |m: Message| conn.sender.send(m).expect("send");
    send(Request::new(RequestId::from(0), "initialize".into(), json!({ "capabilities": {}, "initializationOptions": { "libraryDir": dir.join("library") } })).into());
    assert!(wait_for(&conn, limit, |m| matches!(
        m,
        Message::Response(_)
    )));
    send(Notification::new("initialized".into(), json!({})).into());
    let start = Instant::now();
    send(Notification::new(
        "textDocument/didOpen".into(),
        json!({ "textDocument": { "uri": uri, "languageId": "shapescript", "version": 0, "text": text } }),
    )
    .into());
    // On the first line's `x`.
    let hover = |id: i32| {
        let id = RequestId::from(id);
        let params =
            json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 6 } });
        send(Request::new(id.clone(), "textDocument/hover".into(), params).into());
        id
    };
    // Sent while the server checks and publishes.
    let hover_id = hover(1);
    let (mut published, mut answered, mut hover_first, mut diagnostics) = (None, None, false, 0);
    wait_for(&conn, limit, |m| {
        match m {
            Message::Response(r) if r.id == hover_id => {
                answered = Some(start.elapsed());
                hover_first = published.is_none();
            }
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                published = Some(start.elapsed());
                diagnostics = n.params["diagnostics"].as_array().map_or(0, Vec::len);
            }
            _ => {}
        }
        published.is_some() && answered.is_some()
    });
    // An edit, then a hover once the server is checking it: the hover needs
    // the new analysis, not the diagnostics' conversion and sending.
    send(Notification::new(
        "textDocument/didChange".into(),
        json!({
            "textDocument": { "uri": uri, "version": 1 },
            "contentChanges": [{ "range": { "start": { "line": 0, "character": 18 }, "end": { "line": 0, "character": 19 } }, "text": "k" }],
        }),
    )
    .into());
    let edited = Instant::now();
    std::thread::sleep(Duration::from_millis(15));
    let hover_id = hover(2);
    let (mut republished, mut rehover) = (None, None);
    wait_for(&conn, limit, |m| {
        match m {
            Message::Response(r) if r.id == hover_id => rehover = Some(edited.elapsed()),
            Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics" && n.params["version"] == 1 =>
            {
                republished = Some(edited.elapsed())
            }
            _ => {}
        }
        republished.is_some() && rehover.is_some()
    });
    send(Request::new(RequestId::from(-1), "shutdown".into(), Value::Null).into());
    if wait_for(
        &conn,
        limit,
        |m| matches!(m, Message::Response(r) if r.id == RequestId::from(-1)),
    ) {
        send(Notification::new("exit".into(), Value::Null).into());
        thread.join().expect("server thread");
    }
    assert!(
        published.is_none() || diagnostics == count,
        "one diagnostic a line"
    );

    // The checker alone, with the server's options (names resolved).
    let mut files = check::MemoryFiles::new();
    files.insert(&path, text.as_str());
    let options = check::Options {
        resolutions: true,
        ..check::Options::default()
    };
    let start = Instant::now();
    let mut map = diag::SourceMap::new();
    let checked = check::check(&mut map, &files, std::slice::from_ref(&path), &options);
    let check = start.elapsed();
    assert_eq!(checked.diagnostics.len(), count);
    Run {
        published,
        count: diagnostics,
        hover: answered,
        hover_first,
        republished,
        rehover,
        check,
    }
}

fn main() {
    allocator::keep_freed_memory();
    let sizes: Vec<usize> = std::env::var("BENCH_ERRORS")
        .unwrap_or_else(|_| "5000,10000,20000,50000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let dir = std::env::temp_dir().join(format!("shapescript-bench-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let shown = |d: Option<Duration>| {
        d.map_or("no answer in 120 s".to_string(), |d| {
            format!("{:.0} ms", ms(d))
        })
    };
    println!("errors | open -> published | per diagnostic | hover sent after open | edit -> published | hover 15 ms after the edit | check::check alone");
    for count in sizes {
        let run = measure(count, &dir);
        let per = run.published.map_or(String::from("-"), |d| {
            format!("{:.1} µs", ms(d) * 1e3 / count as f64)
        });
        println!(
            "{count} | {} ({} diagnostics) | {per} | {} ({}) | {} | {} | {:.0} ms",
            shown(run.published),
            run.count,
            shown(run.hover),
            if run.hover_first {
                "before the diagnostics"
            } else {
                "after them"
            },
            shown(run.republished),
            shown(run.rehover),
            ms(run.check),
        );
    }
    common::remove_dir(&dir);
}
