//! The graphs of the GPU benchmark's GPT-2 small
//! (`benches/sexpgpu/gpt2/gpt2.sx` at full size), traced with f32 and with
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

/// The step and eval graphs of the GPU benchmark's GPT-2 small (124M
/// parameters, context 1024, batch 8), with f32 and with bf16 parameters:
/// the kernels `scripts/gpu-check` runs on a GPU.
pub fn gpt2_graphs() -> Vec<(String, Graph)> {
    let text = std::fs::read_to_string(root().join("benches/sexpgpu/gpt2/gpt2.sx")).unwrap();
    let mut out = Vec::new();
    for dtype in ["f32", "bf16"] {
        let text = text.replace("(def dtype :f32)", &format!("(def dtype :{dtype})"));
        let host = Box::new(Npz(token_batch(8, 1024)));
        let mut session = sexpgpu::Session::new(sexpgpu::Mode::Check, 0, host);
        let diagnostics = session.eval_file("gpt2.sx", &text);
        assert!(diagnostics.is_empty(), "gpt2.sx ({dtype}): {diagnostics:?}");
        for run in session.runs() {
            out.push((format!("gpt2.sx:{dtype}:step"), run.step.graph.clone()));
        }
    }
    assert_eq!(out.len(), 2, "gpt2.sx defines one run");
    out
}
