//! End to end with a real client: headless Neovim starts the language server
//! on a two-file project in a temp folder and reports, through `test.lua`,
//! the diagnostics it received, a dim hover, go to definition into
//! `vision.ss` and into the read-only library folder, and inlay hints.
//!
//! The server is the real `shapescript lsp` command, as an editor starts it.
//! Neovim comes from the Debian package `neovim` (installed by `scripts/test`).

use std::path::Path;

use serde_json::Value;

/// The language server's end-to-end project (`crates/lsp/tests/project`).
const MAIN: &str = include_str!("../../../lsp/tests/project/main.ss");
const VISION: &str = include_str!("../../../lsp/tests/project/vision.ss");

fn main() {
    uitest::neovim::harness("neovim_end_to_end", neovim_end_to_end);
}

fn neovim_end_to_end() {
    let dir = uitest::neovim::project(
        "shapescript-nvim",
        &[("main.ss", MAIN), ("vision.ss", VISION)],
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/neovim/test.lua");
    let result = uitest::neovim::drive(&script, &dir, env!("CARGO_BIN_EXE_shapescript"));
    let show = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    assert_eq!(
        show(&result["diagnostics"]),
        r#"[{"code":"E0305","col":10,"line":4}]"#
    );
    let hover = result["hover"].as_str().unwrap_or("");
    assert!(
        hover.starts_with("```shapescript\ndim D = 64\n```\n\nModel width."),
        "{hover}"
    );
    assert!(
        hover.contains("- fn project: `w: [vision.C D]`, `h: [b n D]`"),
        "{hover}"
    );
    assert_eq!(
        show(&result["inlay"]),
        r#"[{"character":7,"label":": [b n D]","line":7}]"#
    );

    let vision = &result["vision"];
    assert_eq!(
        vision["file"].as_str(),
        Some(dir.join("vision.ss").to_str().unwrap_or(""))
    );
    assert_eq!(
        (vision["line"].as_u64(), vision["col"].as_u64()),
        (Some(3), Some(4))
    );

    let library = &result["library"];
    let prelude = dir.join("library").join("prelude.ss");
    assert_eq!(
        library["file"].as_str(),
        Some(prelude.to_str().unwrap_or(""))
    );
    assert_eq!(
        library["line_text"].as_str(),
        Some(r#"extern fn gelu(x: Real) -> Real = "torch.nn.functional.gelu""#)
    );
    assert_eq!(library["readonly"], Value::Bool(true));

    uitest::neovim::remove_project(&dir);
}
