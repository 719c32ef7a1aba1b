//! Generated deep input never aborts: long operator, index, call and cast
//! chains, long sums in sizes, dims and aliases, deep blocks. At the nesting
//! limit (`syntax::MAX_TREE_DEPTH`) every walk (parsing, lowering, the
//! checker, the size arithmetic, code generation, the editor layer, the
//! printer, dropping the trees) handles them on a test thread's small stack
//! in a debug build, and the built module imports; past the limit each is one
//! E0103. The real binary's `check` and `lsp` are run on them too.

use std::io::{BufRead, BufReader, Write};

use std::path::{Path, PathBuf};
use std::process::Command;
use syntax::ast::{FnBody, Item};

use check::{MemoryFiles, Options};
use diag::SourceMap;
use syntax::MAX_TREE_DEPTH as LIMIT;

/// `n` copies of `item` joined by `sep`.
fn join(item: &str, sep: &str, n: usize) -> String {
    vec![item; n].join(sep)
}

/// Programs at the limit: each must check clean, build and import.
fn at_limit() -> Vec<(&'static str, String)> {
    let n = LIMIT;
    // `header = term op term op ...`, `n` terms.
    let chain =
        |name, header: &str, term, op| (name, format!("{header} = {}\n", join(term, op, n)));
    vec![
        chain("add", "fn f(x: [n]) -> [n]", "x", " + "),
        chain("sub", "fn f(x: [n]) -> [n]", "x", " - "),
        chain("mul", "fn f(x: [n]) -> [n]", "x", " * "),
        chain("cmp", "fn f(x: [n]) -> [n] Bool", "x", " < "),
        chain("and", "fn f(a: Bool) -> Bool", "a", " and "),
        chain("int", "fn f(x: [n]) -> Int", "n", " + "),
        (
            "index",
            format!("fn f(x: [n m]) -> [n m] = x{}\n", "[:, :]".repeat(n - 1)),
        ),
        (
            "cast",
            format!("fn f(x: [n]) -> [n] = x{}\n", " as [n]".repeat(n - 2)),
        ),
        (
            "calls",
            format!(
                "fn f(x: [n]) -> [n] = {}x{}\n",
                "exp(".repeat(60),
                ")".repeat(60)
            ),
        ),
        (
            "size_sum",
            format!("fn f(x: [{0}]) -> [{0}] = x + x\n", join("n", "+", n - 1)),
        ),
        (
            "size_product",
            format!("fn f(x: [{0}]) -> [{0}] = x * 2.0\n", join("n", "*", n - 1)),
        ),
        (
            "dim",
            format!("dim A = {}\nfn f(x: [A]) -> [A] = x\n", join("1", "+", n)),
        ),
        (
            "alias",
            format!("dim S = [b {}]\nfn f(x: S) -> S = x\n", join("n", "+", n)),
        ),
        (
            "default",
            format!(
                "fn f(x: [n], k: Int = {}) -> [n] = x * k\nfn g(x: [n]) -> [n] = f(x)\n",
                join("1", " + ", n)
            ),
        ),
        (
            "blocks",
            format!(
                "fn f(x: [n], c: Bool) -> [n] {{\n  let y = x\n{}  y = {}\n{}  y\n}}\n",
                "  if c {\n".repeat(60),
                join("x", " + ", n),
                "  }\n".repeat(60)
            ),
        ),
    ]
}

/// Programs past the limit, as the issue wrote them: each is one E0103.
fn past_limit() -> Vec<(&'static str, String)> {
    vec![
        (
            "add",
            format!("fn f(x: [n]) -> [n] = {}\n", join("x", " + ", 5_000)),
        ),
        (
            "just_over",
            format!("fn f(x: [n]) -> [n] = {}\n", join("x", " + ", LIMIT + 1)),
        ),
        (
            "index",
            format!("fn f(x: [n]) -> [n] = x{}\n", "[0]".repeat(5_000)),
        ),
        (
            "calls",
            format!("fn f(x: [n]) -> [n] = x{}\n", "()".repeat(5_000)),
        ),
        (
            "fields",
            format!("fn f(x: [n]) -> [n] = x{}\n", ".a".repeat(5_000)),
        ),
        (
            "casts",
            format!("fn f(x: [n]) -> [n] = x{}\n", " to [n]".repeat(5_000)),
        ),
        (
            "size",
            format!("fn f(x: [{}]) -> [n] = x\n", join("n", "+", 20_000)),
        ),
        (
            "dim",
            format!(
                "dim A = {}\nfn f(x: [A]) -> [A] = x\n",
                join("1", "*", 20_000)
            ),
        ),
        (
            "alias",
            format!(
                "dim S = [b {}]\nfn f(x: S) -> S = x\n",
                join("n", "-", 20_000)
            ),
        ),
        (
            "default",
            format!(
                "fn f(x: [n], k: Int = {}) -> [n] = x\n",
                join("1", " + ", 5_000)
            ),
        ),
    ]
}

fn check_one(name: &str, text: &str) -> (SourceMap, check::Checked) {
    let mut files = MemoryFiles::new();
    let path = PathBuf::from(format!("/deep/{name}.ss"));
    files.insert(&path, text);
    let mut map = SourceMap::new();
    let checked = check::check(&mut map, &files, &[path], &Options::default());
    (map, checked)
}

fn codes(checked: &check::Checked) -> Vec<&'static str> {
    checked.diagnostics.iter().map(|d| d.code.id).collect()
}

/// Every question of the editor layer, at every 7th position of the file.
fn ask_the_editor_layer(name: &str, text: &str) {
    let mut files = MemoryFiles::new();
    let path = PathBuf::from(format!("/deep/{name}.ss"));
    files.insert(&path, text);
    let library = Path::new("/library");
    let extra = lsp::library::extra_files(library);
    let analysis = lsp::ide::Analysis::new(
        &files,
        std::slice::from_ref(&path),
        &Options::default(),
        library,
        &extra,
    );
    let file = analysis.file_id(&path).expect("the root is loaded");
    let _ = analysis.document_symbols(file);
    let _ = analysis.inlay_hints(file, 0, text.len() as u32);
    for offset in (0..=text.len() as u32).step_by(7) {
        let _ = analysis.hover(file, offset);
        let _ = analysis.definition(file, offset);
        let _ = analysis.completions(file, offset);
        let _ = analysis.signature_help(file, offset);
    }
    let _ = analysis.references(file, 20, true);
}

/// The printer's outline of the file and its `Display` of each expression body.
fn print_both_ways(name: &str, text: &str) {
    let parsed = syntax::parse(diag::FileId(0), text);
    assert!(!syntax::print::dump(&parsed.file).is_empty(), "{name}");
    for item in &parsed.file.items {
        if let Item::Fn(f) = item {
            if let FnBody::Expr(body) = &f.body {
                assert!(!body.to_string().is_empty(), "{name}");
            }
        }
    }
}

#[test]
fn programs_at_the_limit_check_clean_and_every_walk_handles_them() {
    for (name, text) in at_limit() {
        let (_, checked) = check_one(name, &text);
        assert_eq!(codes(&checked), Vec::<&str>::new(), "{name}");
        ask_the_editor_layer(name, &text);
        print_both_ways(name, &text);
    }
}

#[test]
fn programs_past_the_limit_are_one_e0103_and_every_walk_handles_them() {
    for (name, text) in past_limit() {
        let (_, checked) = check_one(name, &text);
        assert_eq!(codes(&checked), vec!["E0103"], "{name}");
        let message = &checked.diagnostics[0].message;
        assert!(
            message.contains("nested more than 256 levels deep"),
            "{name}: {message}"
        );
        ask_the_editor_layer(name, &text);
        print_both_ways(name, &text);
    }
}

#[test]
fn programs_at_the_limit_build_and_import() {
    let dir = std::env::temp_dir().join(format!("shapescript-deep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut modules = Vec::new();
    for (name, text) in at_limit() {
        let (map, checked) = check_one(name, &text);
        let files = pygen::generate(&checked, &map, &pygen::Options::default())
            .unwrap_or_else(|d| panic!("{name} builds: {d:?}"));
        let package = dir.join(format!("deep_{name}"));
        for file in files {
            let stem = file
                .path
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if file.path.extension().is_some_and(|e| e == "py")
                && stem != "__init__"
                && stem != "shapescript_runtime"
            {
                modules.push(format!("deep_{name}.{stem}"));
            }
            let path = package.join(&file.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, file.contents).unwrap();
        }
    }
    assert_eq!(modules.len(), at_limit().len());
    let script = format!(
        "import importlib, sys\nsys.path.insert(0, {:?})\nfor m in {:?}:\n    importlib.import_module(m)\n",
        dir.display().to_string(),
        modules
    );
    let out = Command::new(uitest::support::python())
        .args(["-c", &script])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The real binary's `check` on the files exits 1 with E0103, never
/// 134 (a stack overflow's abort).
#[test]
fn the_binary_checks_deep_files_without_aborting() {
    let dir = std::env::temp_dir().join(format!("shapescript-deep-bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in past_limit() {
        let path = dir.join(format!("{name}.ss"));
        std::fs::write(&path, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_shapescript"))
            .arg("check")
            .arg(&path)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains("error[E0103]"), "{name}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// One message of the language server protocol over stdio.
fn send(stdin: &mut impl Write, message: &serde_json::Value) {
    let body = message.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    stdin.flush().unwrap();
}

/// The next message the server writes.
fn receive(stdout: &mut impl BufRead) -> serde_json::Value {
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the server closed its output");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    stdout.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

/// `shapescript lsp` opening the deep file publishes one E0103,
/// answers a hover on it, and shuts down cleanly.
#[test]
fn the_language_server_opens_a_deep_file() {
    use serde_json::json;
    let dir = std::env::temp_dir().join(format!("shapescript-deep-lsp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!(
        "fn f(x: [n]) -> [n] = {}\nfn g(x: [n]) -> [n] = x{}\n",
        join("x", " + ", 5_000),
        "[0]".repeat(5_000)
    );
    let path = dir.join("deep.ss");
    std::fs::write(&path, &text).unwrap();
    let uri = format!("file://{}", path.display());
    let (mut child, mut stdin, stdout) =
        uitest::support::start_server(env!("CARGO_BIN_EXE_shapescript"));
    let mut stdout = BufReader::new(stdout);
    let library = dir.join("library");
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"capabilities": {}, "initializationOptions": {"libraryDir": library}}}),
    );
    assert_eq!(receive(&mut stdout)["id"], 1);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":
            {"uri": uri, "languageId": "shapescript", "version": 1, "text": text}}}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 30}}}),
    );
    let mut codes = None;
    let mut hovered = false;
    while codes.is_none() || !hovered {
        let message = receive(&mut stdout);
        if message["id"] == 2 {
            assert!(message.get("error").is_none(), "{message}");
            hovered = true;
        } else if message["method"] == "textDocument/publishDiagnostics" {
            let list = message["params"]["diagnostics"].as_array().unwrap().clone();
            codes = Some(list.iter().map(|d| d["code"].clone()).collect::<Vec<_>>());
        }
    }
    assert_eq!(codes.unwrap(), vec![json!("E0103"), json!("E0103")]);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
    );
    while receive(&mut stdout)["id"] != 3 {}
    send(&mut stdin, &json!({"jsonrpc": "2.0", "method": "exit"}));
    let status = child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(status.success(), "{status:?}");
}
