//! What VS Code's language client needs of the server's replies, end to end
//! over an in-memory connection: no `null` where a field is absent (the
//! client rejects a document symbol whose `detail` is `null`, and the Outline
//! stays empty), library files asked for by their `shapescript-library:`
//! URI, semantic tokens, quick fixes and formatting.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use support::{Client, Project};

/// A project `name` whose `main.ss` holds `text`, and a server started
/// with the library folder in the project, `main.ss` open in it: the
/// project, `main.ss`'s URI and the client.
fn open(name: &str, text: &str) -> (Project, String, Client) {
    let project = Project::new(name);
    let main = project.write("main.ss", text);
    let client = Client::start(json!({ "libraryDir": project.dir.join("library") }));
    client.open(&main, text);
    (project, main, client)
}

/// The JSON paths of every `null` inside `value` (the value itself may be
/// `null`: that is "no result").
fn nulls(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let here = format!("{path}.{key}");
                if v.is_null() {
                    out.push(here.clone());
                }
                nulls(v, &here, out);
            }
        }
        Value::Array(list) => {
            for (i, v) in list.iter().enumerate() {
                let here = format!("{path}[{i}]");
                if v.is_null() {
                    out.push(here.clone());
                }
                nulls(v, &here, out);
            }
        }
        _ => {}
    }
}

fn assert_no_nulls(value: &Value, what: &str) {
    let mut found = Vec::new();
    nulls(value, "", &mut found);
    assert!(found.is_empty(), "{what} has nulls at {found:?}: {value}");
}

const FIRST_FN: &str = "fn double(x: [n]) -> [n] = x + x

## Width.
dim D = 4

fn apply(x: [b D]) -> [b D] = doubel(x)
";

#[test]
fn the_outline_of_a_file_starting_with_fn_and_of_the_prelude_has_no_nulls() {
    let (project, main, mut client) = open("replies-outline", FIRST_FN);
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": main } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["double", "D", "apply"], "{symbols}");
    assert!(symbols[0].get("detail").is_none(), "{symbols}");
    assert_no_nulls(&symbols, "the symbols of main.ss");
    let prelude = lsp::uri::from_path(&project.dir.join("library").join("prelude.ss"));
    for uri in [prelude.as_str(), "shapescript-library:/prelude.ss"] {
        let symbols = client.request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": uri } }),
        );
        assert!(
            symbols.as_array().is_some_and(|list| list.len() > 10),
            "{uri}: {symbols}"
        );
        assert_no_nulls(&symbols, uri);
    }
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn every_reply_of_a_session_leaves_absent_fields_out() {
    let (_project, main, mut client) = open("replies-nulls", FIRST_FN);
    let diagnostics = client.diagnostics(&main);
    assert_no_nulls(&diagnostics, "publishDiagnostics");
    let at = |line, character| Client::at(&main, line, character);
    let whole =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 6, "character": 0 } });
    let requests = [
        ("textDocument/hover", at(3, 4)),
        ("textDocument/hover", at(0, 3)),
        ("textDocument/definition", at(5, 20)),
        ("textDocument/references", {
            let mut p = at(3, 4);
            p["context"] = json!({ "includeDeclaration": true });
            p
        }),
        ("textDocument/completion", at(5, 30)),
        ("textDocument/signatureHelp", at(5, 37)),
        ("textDocument/prepareRename", at(3, 4)),
        (
            "textDocument/inlayHint",
            json!({ "textDocument": { "uri": main }, "range": whole }),
        ),
        (
            "textDocument/semanticTokens/full",
            json!({ "textDocument": { "uri": main } }),
        ),
        (
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": main }, "range": whole, "context": { "diagnostics": [] } }),
        ),
        (
            "textDocument/formatting",
            json!({ "textDocument": { "uri": main }, "options": { "tabSize": 2, "insertSpaces": true } }),
        ),
    ];
    for (method, params) in requests {
        let reply = client.request(method, params);
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        assert_no_nulls(&reply, method);
    }
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn hover_and_definition_inside_a_library_document_by_its_library_uri() {
    let (project, _main, mut client) = open("replies-library", FIRST_FN);
    let text = std::fs::read_to_string(project.dir.join("library").join("prelude.ss"))
        .expect("the prelude is written");
    let (line, _) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("extern fn gelu("))
        .expect("gelu's stub");
    let library = "shapescript-library:/prelude.ss";
    // What VS Code sends for a library document it shows (`didOpen` included).
    client.open(library, &text);
    let hover = client.request("textDocument/hover", Client::at(library, line as u32, 11));
    let shown = hover["contents"]["value"].as_str().unwrap_or("");
    assert!(shown.contains("extern fn gelu(x: Real) -> Real"), "{hover}");
    let definition = client.request(
        "textDocument/definition",
        Client::at(library, line as u32, 11),
    );
    let prelude = lsp::uri::from_path(&project.dir.join("library").join("prelude.ss"));
    assert_eq!(definition["uri"], prelude.as_str(), "{definition}");
    assert_eq!(definition["range"]["start"]["line"], line, "{definition}");
    let unknown = client.request(
        "textDocument/hover",
        Client::at("shapescript-library:/nothing.ss", 0, 0),
    );
    assert_eq!(unknown, Value::Null);
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn semantic_tokens_tell_dims_axes_unknown_sizes_and_aliases_apart() {
    let text = "dim D = 4\ndim Pair = [2 D]\nfn f(x: [b D], p: Pair) -> [?k] = x as [?k]\n";
    let (_project, main, mut client) = open("replies-tokens", text);
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": main } }),
    );
    // Token types as a client reads them: indices into the legend.
    let types: Vec<String> = client.capabilities["semanticTokensProvider"]["legend"]["tokenTypes"]
        .as_array()
        .expect("a legend of token types")
        .iter()
        .filter_map(|t| t.as_str().map(String::from))
        .collect();
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .expect("token data")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    // Decoded: `line:column text type modifiers`.
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut column) = (0, 0);
    let mut shown = Vec::new();
    for token in data.chunks(5) {
        if token[0] > 0 {
            column = 0;
        }
        line += token[0] as usize;
        column += token[1] as usize;
        let written = &lines[line][column..column + token[2] as usize];
        shown.push(format!(
            "{line}:{column} {written} {} {}",
            types[token[3] as usize], token[4]
        ));
    }
    expect![[r#"
        0:4 D dim 5
        1:4 Pair shapeAlias 1
        1:14 D dim 4
        2:3 f function 1
        2:5 x parameter 1
        2:9 b genericAxis 1
        2:11 D dim 4
        2:15 p parameter 1
        2:18 Pair shapeAlias 0
        2:28 ?k unknownSize 0
        2:34 x parameter 0
        2:40 ?k unknownSize 0"#]]
    .assert_eq(&shown.join("\n"));
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn a_quick_fix_applies_the_did_you_mean_help() {
    let (_project, main, mut client) = open("replies-fix", FIRST_FN);
    let diagnostics = client.diagnostics(&main);
    let typo = diagnostics["diagnostics"][0].clone();
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": main }, "range": typo["range"], "context": { "diagnostics": [typo], "only": ["quickfix"], "triggerKind": 1 } }),
    );
    let action = &actions[0];
    assert_eq!(
        action["title"], "Replace `doubel` with `double`",
        "{actions}"
    );
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["isPreferred"], true);
    assert_eq!(action["diagnostics"][0]["code"], "E0301");
    let edit = &action["edit"]["changes"][main.as_str()][0];
    assert_eq!(edit["newText"], "double", "{actions}");
    assert_eq!(edit["range"], typo["range"]);
    // Asked for refactorings only, it offers none.
    let only = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": main }, "range": typo["range"], "context": { "diagnostics": [], "only": ["refactor"] } }),
    );
    assert_eq!(only, json!([]));
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

/// `text` with LSP text edits applied, the last first (they do not overlap).
fn apply_edits(text: &str, edits: &Value) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let offset = |position: &Value| {
        let line = position["line"].as_u64().expect("a line") as usize;
        lines[..line.min(lines.len())]
            .iter()
            .map(|l| l.len())
            .sum::<usize>()
            + position["character"].as_u64().expect("a character") as usize
    };
    let mut out = text.to_string();
    let mut edits: Vec<&Value> = edits.as_array().expect("edits").iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    for edit in edits {
        let (start, end) = (
            offset(&edit["range"]["start"]),
            offset(&edit["range"]["end"]),
        );
        out.replace_range(start..end, edit["newText"].as_str().expect("text"));
    }
    out
}

#[test]
fn formatting_and_range_formatting_edit_the_document() {
    let text = "dim   D=4\nfn f(x:[b D])->[b D]=x+x\nfn g(x:[b D])->[b D]=x*x\n";
    let (_project, main, mut client) = open("replies-formatting", text);
    let options = json!({ "tabSize": 2, "insertSpaces": true });
    let whole = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": main }, "options": options }),
    );
    expect![[r#"
        dim D = 4
        fn f(x: [b D]) -> [b D] = x + x
        fn g(x: [b D]) -> [b D] = x*x
    "#]]
    .assert_eq(&apply_edits(text, &whole));
    let line_1 =
        json!({ "start": { "line": 1, "character": 0 }, "end": { "line": 1, "character": 5 } });
    let part = client.request(
        "textDocument/rangeFormatting",
        json!({ "textDocument": { "uri": main }, "range": line_1, "options": options }),
    );
    expect![[r#"
        dim   D=4
        fn f(x: [b D]) -> [b D] = x + x
        fn g(x:[b D])->[b D]=x*x
    "#]]
    .assert_eq(&apply_edits(text, &part));
    // A document that does not parse is left alone: no edits, no error.
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": main, "version": 2 }, "contentChanges": [{ "text": "fn f(\n" }] }),
    );
    let broken = client.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": main }, "options": options }),
    );
    assert_eq!(broken, Value::Null, "{broken}");
    client.shutdown(&["textDocument/publishDiagnostics"]);
}
