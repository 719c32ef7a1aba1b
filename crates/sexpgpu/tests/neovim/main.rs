//! End to end with a real client: headless Neovim starts `sexpgpu lsp` on a
//! file in a temp folder and reports, through `test.lua`, the diagnostics it
//! received, a hover's shape and dtype, inlay hints at `let`, go to
//! definition into the read-only library folder, and the document formatted
//! through the server's edits (`docs/sexpgpu/editor.md`, "Neovim").

use serde_json::Value;
use std::path::Path;

/// A graph that traces, one whose shapes do not fit, and a line to format.
const MAIN: &str = "(require nn)

(defgraph lin [(x [8 16] :f32) (w [32 16] :f32)]
  (let [h (matmul x (transpose w [1 0]))]
    (nn/relu h)))

(defgraph bad [(x [2 16] :f32) (w [32 8] :f32)]
      (matmul x w))
";

fn main() {
    uitest::neovim::harness("neovim_end_to_end", neovim_end_to_end);
}

fn neovim_end_to_end() {
    let dir = uitest::neovim::project("sexpgpu-nvim", &[("main.sx", MAIN)]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/neovim/test.lua");
    let result = uitest::neovim::drive(&script, &dir, env!("CARGO_BIN_EXE_sexpgpu"));
    let show = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    assert_eq!(
        show(&result["diagnostics"]),
        r#"[{"code":"E-DIM-001","col":6,"line":7}]"#
    );
    let hover = result["hover"].as_str().unwrap_or("");
    assert!(hover.starts_with("tensor `[8, 32] f32`"), "{hover}");
    assert_eq!(
        show(&result["inlay"]),
        r#"[{"character":9,"label":": [8, 32] f32","line":3}]"#
    );
    let library = &result["library"];
    let nn = dir.join("library").join("nn.sx");
    assert_eq!(library["file"].as_str(), Some(nn.to_str().unwrap_or("")));
    assert_eq!(library["line_text"].as_str(), Some("(defn relu (x)"));
    assert_eq!(library["readonly"], Value::Bool(true));
    assert_eq!(
        result["formatted"].as_str(),
        Some(
            MAIN.replace("      (matmul x w))", "  (matmul x w))")
                .trim_end()
        )
    );

    uitest::neovim::remove_project(&dir);
}
