//! Without a `libraryDir` option the library folder is
//! `shapescript/lsp-<version>` in the user's cache folder (`docs/shapescript/editor.md`): here
//! `$XDG_CACHE_HOME`. Its own test binary, since it sets the environment.

mod support;

use serde_json::json;
use support::{Client, Project};

#[test]
fn the_library_goes_to_the_cache_folder_without_a_library_dir() {
    let project = Project::new("fallback");
    let cache = project.dir.join("cache");
    std::env::set_var("XDG_CACHE_HOME", &cache);
    std::env::set_var("HOME", project.dir.join("home"));
    let text = "fn f(x: [n]) -> [n] = gelu(x)\n";
    let main = project.write("main.ss", text);
    let mut client = Client::start(json!({}));
    client.open(&main, text);
    let stub = client.request("textDocument/definition", Client::at(&main, 0, 23));
    let folder = cache
        .join("shapescript")
        .join(format!("lsp-{}", env!("CARGO_PKG_VERSION")));
    assert_eq!(
        stub["uri"].as_str(),
        Some(lsp::uri::from_path(&folder.join("prelude.ss")).as_str()),
        "{stub}"
    );
    for name in ["prelude.ss", "nn.ss", "builtins.ss"] {
        let meta = std::fs::metadata(folder.join(name)).expect("written");
        assert!(meta.permissions().readonly(), "{name} is read-only");
    }
    assert!(
        !project.dir.join("home").exists(),
        "$HOME/.cache is not used"
    );
    client.shutdown(&["textDocument/publishDiagnostics"]);
}
