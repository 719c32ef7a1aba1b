//! The graphs of the GPU benchmark's GPT-2 (`benches/sexpgpu/gpt2/gpt2.sx`
//! at full size, and at run.py's tiny scale), traced with f32 and with
//! bf16 parameters on an in-memory batch.

use std::path::{Path, PathBuf};

use sexpgpu_graph::Graph;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A host serving one in-memory `data.npz`.
struct Npz(Vec<u8>);

impl sexpgpu::Host for Npz {
    fn print(&mut self, _text: &str) {}
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        match path {
            "data.npz" => Ok(self.0.clone()),
            _ => Err(format!("{path}: not served")),
        }
    }
}

/// A batch of `rows` token windows of `context` ids (all 0), as
/// `benches/sexpgpu/gpt2/run.py` writes it.
fn token_batch(rows: usize, context: usize) -> Vec<u8> {
    use std::io::Write;
    let ids = sexpgpu_graph::Tensor::full(
        sexpgpu_graph::Shape::from([rows, context]),
        sexpgpu_graph::Scalar::Int(0),
        sexpgpu_graph::DType::I32,
    );
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for name in ["x.npy", "y.npy"] {
        writer.start_file(name, stored).unwrap();
        writer.write_all(&sexpgpu_graph::to_npy(&ids)).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// The step graphs of the GPU benchmark's GPT-2 small (124M parameters,
/// context 1024, batch 8), with f32 and with bf16 parameters: the kernels
/// `scripts/gpu-check` runs on a GPU.
pub fn gpt2_graphs() -> Vec<(String, Graph)> {
    gpt2_graphs_at("small", &[], 8)
}

/// The benchmark's step graphs at `benches/sexpgpu/gpt2/run.py`'s tiny
/// scale (width 64, 2 layers, 4 heads, context 32, vocabulary 128), batch
/// 2: small enough to run in emulation, large enough that every
/// cooperative kernel layout appears (rows of 64, columns of 64, an
/// index-add of 64 ids).
pub fn gpt2_tiny_graphs() -> Vec<(String, Graph)> {
    let sizes = [
        ("width", 64),
        ("layers", 2),
        ("heads", 4),
        ("context", 32),
        ("vocab", 128),
    ];
    gpt2_graphs_at("tiny", &sizes, 2)
}

/// `gpt2.sx` with its `(def name N)` lines set to `sizes` (as run.py's
/// `sized_source` does), traced in f32 and bf16 on a batch of `rows`.
fn gpt2_graphs_at(scale: &str, sizes: &[(&str, usize)], rows: usize) -> Vec<(String, Graph)> {
    let mut text = std::fs::read_to_string(root().join("benches/sexpgpu/gpt2/gpt2.sx")).unwrap();
    let mut context = 1024;
    for (name, value) in sizes {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("(def {name} ")))
            .unwrap_or_else(|| panic!("gpt2.sx defines {name}"))
            .to_string();
        text = text.replace(&line, &format!("(def {name} {value})"));
        if *name == "context" {
            context = *value;
        }
    }
    let mut out = Vec::new();
    for dtype in ["f32", "bf16"] {
        let text = text.replace("(def dtype :f32)", &format!("(def dtype :{dtype})"));
        let host = Box::new(Npz(token_batch(rows, context)));
        let mut session = sexpgpu::Session::new(sexpgpu::Mode::Check, 0, host);
        let diagnostics = session.eval_file("gpt2.sx", &text);
        assert!(diagnostics.is_empty(), "gpt2.sx ({dtype}): {diagnostics:?}");
        for run in session.runs() {
            out.push((
                format!("gpt2.sx:{scale}:{dtype}:step"),
                run.step.graph.clone(),
            ));
        }
    }
    assert_eq!(out.len(), 2, "gpt2.sx defines one run");
    out
}
