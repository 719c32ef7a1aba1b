//! The language server end to end over an in-memory connection: every
//! feature of the issue, on a two-file project in a temp folder, with the
//! library folder inside it.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use support::{pretty, Client, Project};

/// The two-file project of the end-to-end tests (the Neovim test of
/// `shapescript lsp` opens it too): `main.ss` with a mistake (E0305), a
/// documented dim and an import of `vision.ss`.
const MAIN: &str = include_str!("project/main.ss");
const VISION: &str = include_str!("project/vision.ss");

/// A started server on the project, `main.ss` open; returns its URI.
fn start(project: &Project) -> (Client, String) {
    let main = project.write("main.ss", MAIN);
    project.write("vision.ss", VISION);
    let library = project.dir.join("library");
    let client = Client::start(json!({ "libraryDir": library }));
    client.open(&main, MAIN);
    (client, main)
}

fn codes(diagnostics: &Value) -> String {
    let list = diagnostics["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let codes: Vec<String> = list
        .iter()
        .map(|d| {
            let start = &d["range"]["start"];
            format!(
                "{}:{} {}",
                start["line"],
                start["character"],
                d["code"].as_str().unwrap_or("")
            )
        })
        .collect();
    format!("v{} [{}]", diagnostics["version"], codes.join(", "))
}

#[test]
fn diagnostics_on_open_and_after_an_incremental_edit() {
    let project = Project::new("diagnostics");
    let (mut client, main) = start(&project);
    expect!["v1 [4:10 E0305]"].assert_eq(&codes(&client.diagnostics(&main)));
    // Two quick edits: only the newest text's diagnostics count.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": main, "version": 2 },
            "contentChanges": [{ "range": { "start": { "line": 4, "character": 14 }, "end": { "line": 4, "character": 15 } }, "text": "4" }],
        }),
    );
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": main, "version": 3 },
            "contentChanges": [{ "range": { "start": { "line": 4, "character": 14 }, "end": { "line": 4, "character": 15 } }, "text": "2" }],
        }),
    );
    let mut latest = client.diagnostics(&main);
    while latest["version"] != 3 {
        latest = client.diagnostics(&main);
    }
    expect!["v3 []"].assert_eq(&codes(&latest));
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn library_files_get_no_diagnostics() {
    let project = Project::new("library-quiet");
    let (mut client, main) = start(&project);
    client.diagnostics(&main);
    let prelude = lsp::uri::from_path(&project.dir.join("library").join("prelude.ss"));
    let text =
        std::fs::read_to_string(project.dir.join("library").join("prelude.ss")).expect("written");
    client.open(&prelude, &text);
    let hover = client.request("textDocument/hover", Client::at(&main, 3, 4));
    assert!(hover["contents"]["value"]
        .as_str()
        .is_some_and(|v| v.contains("dim D = 64")));
    client.diagnostics(&main);
    let published: Vec<&str> = client
        .notifications
        .iter()
        .filter(|n| n.method == "textDocument/publishDiagnostics")
        .filter_map(|n| n.params["uri"].as_str())
        .collect();
    assert!(!published.contains(&prelude.as_str()), "{published:?}");
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn hover_on_a_dim_an_alias_and_a_let() {
    let project = Project::new("hover");
    let (mut client, _main) = start(&project);
    let main = project.uri("main.ss");
    let dim = client.request("textDocument/hover", Client::at(&main, 3, 4));
    expect![[r#"
        ```shapescript
        dim D = 64
        ```

        Model width.

        ---

        Used in:

        - fn project: `w: [vision.C D]`, `h: [b n D]`"#]]
    .assert_eq(dim["contents"]["value"].as_str().unwrap_or(""));
    expect![[r#"
        {
          "end": {
            "character": 5,
            "line": 3
          },
          "start": {
            "character": 4,
            "line": 3
          }
        }"#]]
    .assert_eq(&pretty(&dim["range"]));
    let alias = client.request("textDocument/hover", Client::at(&main, 11, 21));
    expect![[r#"
        ```shapescript
        dim Images = [b C 16gh 16gw]
        ```"#]]
    .assert_eq(alias["contents"]["value"].as_str().unwrap_or(""));
    let local = client.request("textDocument/hover", Client::at(&main, 8, 8));
    expect![[r#"
        ```shapescript
        h: [b n D]
        ```

        let of `fn project`"#]]
    .assert_eq(local["contents"]["value"].as_str().unwrap_or(""));
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn definition_into_another_file_and_the_library() {
    let project = Project::new("definition");
    let (mut client, main) = start(&project);
    let alias = client.request("textDocument/definition", Client::at(&main, 11, 21));
    expect![[r#"
        {
          "range": {
            "end": {
              "character": 10,
              "line": 2
            },
            "start": {
              "character": 4,
              "line": 2
            }
          },
          "uri": "file://$DIR/vision.ss"
        }"#]]
    .assert_eq(&project.redact(&pretty(&alias)));
    let stub = client.request("textDocument/definition", Client::at(&main, 8, 3));
    expect!["file://$DIR/library/prelude.ss"]
        .assert_eq(&project.redact(stub["uri"].as_str().unwrap_or("")));
    let path = lsp::uri::to_path(stub["uri"].as_str().unwrap_or("")).expect("a file URI");
    let line = stub["range"]["start"]["line"].as_u64().unwrap_or(0) as usize;
    let text = std::fs::read_to_string(&path).expect("the library file is written");
    expect![[r#"extern fn gelu(x: Real) -> Real = "torch.nn.functional.gelu""#]]
        .assert_eq(text.lines().nth(line).unwrap_or(""));
    assert!(std::fs::metadata(&path)
        .expect("metadata")
        .permissions()
        .readonly());
    assert!(project.dir.join("library").join("nn.ss").exists());
    assert!(project.dir.join("library").join("builtins.ss").exists());
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn references_and_rename_of_a_dim_and_a_local() {
    let project = Project::new("rename");
    let (mut client, main) = start(&project);
    let mut params = Client::at(&main, 3, 4);
    params["context"] = json!({ "includeDeclaration": true });
    let references = client.request("textDocument/references", params);
    let lines: Vec<String> = references
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|l| {
            format!(
                "{}:{}",
                l["range"]["start"]["line"], l["range"]["start"]["character"]
            )
        })
        .collect();
    expect!["3:4 4:10 6:43 6:55"].assert_eq(&lines.join(" "));
    let mut rename = Client::at(&main, 7, 6);
    rename["newName"] = json!("hidden");
    let edits = client.request("textDocument/rename", rename);
    let list = edits["changes"][main.as_str()]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let places: Vec<String> = list
        .iter()
        .map(|e| {
            format!(
                "{}:{}={}",
                e["range"]["start"]["line"], e["range"]["start"]["character"], e["newText"]
            )
        })
        .collect();
    expect![[r#"7:6="hidden" 8:7="hidden""#]].assert_eq(&places.join(" "));
    let mut refused = Client::at(&main, 8, 3);
    refused["newName"] = json!("g");
    let error = client.request("textDocument/rename", refused);
    expect![[r#"{"error":{"code":-32803,"message":"`gelu` is declared in the library, which is read-only"}}"#]]
        .assert_eq(&error.to_string());
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn symbols_inlay_hints_completion_and_signature_help() {
    let project = Project::new("features");
    let (mut client, main) = start(&project);
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": main } }),
    );
    let names: Vec<String> = symbols
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| format!("{}({})", s["name"].as_str().unwrap_or(""), s["kind"]))
        .collect();
    expect!["vision(2) D(14) Bad(14) project(12) pool(12)"].assert_eq(&names.join(" "));
    let hints = client.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": main }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 20, "character": 0 } } }),
    );
    let hints: Vec<String> = hints
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|h| {
            format!(
                "{}:{}{}",
                h["position"]["line"],
                h["position"]["character"],
                h["label"].as_str().unwrap_or("")
            )
        })
        .collect();
    expect!["7:7: [b n D]"].assert_eq(&hints.join(" "));
    // `vision.` in a type offers the file's declarations.
    let completion = client.request("textDocument/completion", Client::at(&main, 6, 26));
    let labels: Vec<&str> = completion["items"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["label"].as_str()).collect())
        .unwrap_or_default();
    expect!["C Images"].assert_eq(&labels.join(" "));
    let help = client.request("textDocument/signatureHelp", Client::at(&main, 8, 7));
    expect![[r#"gelu(x: Real) -> Real / 0"#]].assert_eq(&format!(
        "{} / {}",
        help["signatures"][0]["label"].as_str().unwrap_or(""),
        help["activeParameter"]
    ));
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn a_cancelled_request_is_answered_as_cancelled_and_others_go_on() {
    let project = Project::new("cancel");
    let main = project.write("main.ss", MAIN);
    project.write("vision.ss", VISION);
    let (server, conn) = lsp_server::Connection::memory();
    let mut client = Client::from_parts(conn);
    // Everything is queued before the server starts, so the cancellation is
    // seen while the hover still waits.
    client.queue_initialize(json!({ "libraryDir": project.dir.join("library") }));
    client.open(&main, MAIN);
    let hover = client.send_request("textDocument/hover", Client::at(&main, 3, 4));
    client.notify("$/cancelRequest", json!({ "id": hover }));
    let unknown = client.send_request("shapescript/unknown", json!({}));
    let symbols = client.send_request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": main } }),
    );
    client.run_server(server);
    client.response(lsp_server::RequestId::from(1));
    expect![[r#"{"error":{"code":-32800,"message":"cancelled"}}"#]]
        .assert_eq(&client.response(hover).to_string());
    expect![[r#"{"error":{"code":-32601,"message":"unknown request `shapescript/unknown`"}}"#]]
        .assert_eq(&client.response(unknown).to_string());
    assert!(client
        .response(symbols)
        .as_array()
        .is_some_and(|s| s.len() == 5));
    client.shutdown(&["textDocument/publishDiagnostics"]);
}

#[test]
fn a_dim_hover_lists_six_groups_of_four_and_counts_the_rest() {
    let project = Project::new("six-by-four");
    let mut text = String::from("dim D = 8\n");
    for f in 0..9 {
        let params: Vec<String> = (1..7).map(|p| format!("p{p}: [D {p}]")).collect();
        text.push_str(&format!("fn f{f}({}) -> [D] = p1\n", params.join(", ")));
    }
    let main = project.write("main.ss", &text);
    let mut client = Client::start(json!({ "libraryDir": project.dir.join("library") }));
    client.open(&main, &text);
    let hover = client.request("textDocument/hover", Client::at(&main, 0, 4));
    let value = hover["contents"]["value"].as_str().unwrap_or("");
    let uses: Vec<&str> = value.lines().filter(|l| l.starts_with("- ")).collect();
    expect![[r#"
        - fn f0: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 2 more
        - fn f1: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 2 more
        - fn f2: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 2 more
        - fn f3: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 2 more
        - fn f4: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 2 more
        - fn f5: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 2 more
        - and 18 more values in 3 more places"#]]
    .assert_eq(&uses.join("\n"));
    client.shutdown(&["textDocument/publishDiagnostics"]);
}
