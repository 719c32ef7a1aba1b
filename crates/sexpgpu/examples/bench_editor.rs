//! How long the editor waits for a `.sx` file's diagnostics
//! (`docs/sexpgpu/editor.md`; the target is 100 ms p99 for the examples).
//! For each file of `examples/sexpgpu`: the analysis alone, in process
//! (reading, evaluating and tracing under the editor's budget, as the
//! server does after each edit), and, when the release binary is built,
//! the time from an edit sent to `sexpgpu lsp` over its pipes to the
//! diagnostics it publishes (the 10 ms pause after an edit included).
//! Prints p50 and p99 of each; asserts nothing.
//!
//! ```text
//! cargo build --release -p sexpgpu
//! cargo run --release -p sexpgpu --example bench_editor
//! ```

use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::json;
use sexpgpu::ide::{Analysis, Options};
use sexpgpu::Host;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Analyses and edits per file.
const RUNS: usize = 40;

/// The host the server gives an evaluation, for the in-process runs:
/// files read from the example's folder, nothing printed or written.
struct Files(PathBuf);

impl Host for Files {
    fn print(&mut self, _: &str) {}
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(self.0.join(path)).map_err(|e| e.to_string())
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// The analysis of `path`, `RUNS` times; the times and the last analysis's steps.
fn in_process(path: &Path, text: &str) -> (Vec<Duration>, u64, usize) {
    let mut times = Vec::with_capacity(RUNS);
    let mut steps = 0;
    let mut diagnostics = 0;
    for _ in 0..RUNS {
        let host = Box::new(Files(path.parent().unwrap_or(Path::new(".")).to_path_buf()));
        let started = Instant::now();
        let analysis = Analysis::new(&path.display().to_string(), text, &Options::default(), host);
        times.push(started.elapsed());
        steps = analysis.steps;
        diagnostics = analysis.diagnostics.len();
    }
    (times, steps, diagnostics)
}

/// Edit-to-diagnostics times through the binary `server`, on `path`.
fn end_to_end(server: &Path, root: &Path, path: &Path, text: &str) -> Vec<Duration> {
    let (mut child, mut stdin, stdout) = uitest::support::start_server(server);
    let mut stdout = BufReader::new(stdout);
    let mut send = |message: Message| {
        message.write(&mut stdin).expect("write");
        stdin.flush().expect("flush");
    };
    let root_uri = format!("file://{}", root.display());
    let uri = format!("file://{}", path.display());
    let library = std::env::temp_dir().join("sexpgpu-bench-library");
    let params = json!({ "capabilities": {}, "rootUri": root_uri, "initializationOptions": { "libraryDir": library } });
    send(Request::new(RequestId::from(1), "initialize".into(), params).into());
    send(Notification::new("initialized".into(), json!({})).into());
    let doc = json!({ "uri": uri, "languageId": "sexpgpu", "version": 1, "text": text });
    send(
        Notification::new(
            "textDocument/didOpen".into(),
            json!({ "textDocument": doc }),
        )
        .into(),
    );
    let mut read_diagnostics = || loop {
        match Message::read(&mut stdout)
            .expect("read")
            .expect("a message")
        {
            Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics"
                    && n.params["uri"] == uri.as_str() =>
            {
                return
            }
            _ => {}
        }
    };
    read_diagnostics();
    let mut times = Vec::with_capacity(RUNS);
    for version in 2..2 + RUNS as i32 {
        // An edit that changes the text each time: a comment at the end.
        let edited = format!("{text}\n; edit {version}\n");
        let change = json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": edited }] });
        let started = Instant::now();
        send(Notification::new("textDocument/didChange".into(), change).into());
        read_diagnostics();
        times.push(started.elapsed());
    }
    let _ = child.kill();
    let _ = child.wait();
    times
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace");
    let examples = root.join("examples/sexpgpu");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .expect("examples/sexpgpu")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sx"))
        .collect();
    files.sort();
    let server = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("sexpgpu")))
        .filter(|s| s.exists());
    println!("{RUNS} runs a file; p50 / p99");
    println!(
        "{:<22} {:>10} {:>22} {:>24}",
        "file", "steps", "analysis", "edit -> diagnostics"
    );
    let (mut all_analysis, mut all_edits) = (Vec::new(), Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).expect("the example");
        let (mut times, steps, diagnostics) = in_process(path, &text);
        assert_eq!(diagnostics, 0, "{} has diagnostics", path.display());
        let analysis = format!(
            "{} / {}",
            ms(percentile(&mut times, 0.5)),
            ms(percentile(&mut times, 0.99))
        );
        all_analysis.extend(times);
        let edits = match &server {
            Some(server) => {
                let mut times = end_to_end(server, &root, path, &text);
                let shown = format!(
                    "{} / {}",
                    ms(percentile(&mut times, 0.5)),
                    ms(percentile(&mut times, 0.99))
                );
                all_edits.extend(times);
                shown
            }
            None => "(no release binary)".to_string(),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!("{name:<22} {steps:>10} {analysis:>22} {edits:>24}");
    }
    let analysis = format!(
        "{} / {}",
        ms(percentile(&mut all_analysis, 0.5)),
        ms(percentile(&mut all_analysis, 0.99))
    );
    let edits = if all_edits.is_empty() {
        String::new()
    } else {
        format!(
            "{} / {}",
            ms(percentile(&mut all_edits, 0.5)),
            ms(percentile(&mut all_edits, 0.99))
        )
    };
    println!("{:<22} {:>10} {analysis:>22} {edits:>24}", "all", "");
}
