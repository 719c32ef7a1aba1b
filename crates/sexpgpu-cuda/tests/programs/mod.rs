//! The graphs the example programs trace (`examples/sexpgpu/*.sx`): their
//! `defgraph`s and each run's model, optimizer-init, step and eval graphs,
//! traced through the `sexpgpu` library with data files read from disk.

use std::path::{Path, PathBuf};

use sexpgpu_graph::Graph;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A host that reads data files relative to the examples folder.
struct Files(PathBuf);

impl sexpgpu::Host for Files {
    fn print(&mut self, _text: &str) {}
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(self.0.join(path)).map_err(|e| format!("{path}: {e}"))
    }
}

/// Every graph an example traces: `defgraph`s, and each run's model,
/// optimizer init, step (forward, gradients, update) and eval graphs.
pub fn example_graphs() -> Vec<(String, Graph)> {
    let dir = root().join("examples/sexpgpu");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "sx"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let host = Box::new(Files(dir.clone()));
        let mut session = sexpgpu::Session::new(sexpgpu::Mode::Check, 0, host);
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let diagnostics = session.eval_file(&name, &text);
        assert!(diagnostics.is_empty(), "{name}: {diagnostics:?}");
        for g in session.graphs() {
            out.push((format!("{name}:{}", g.name), g.graph.clone()));
        }
        for run in session.runs() {
            let r = &run.spec.name;
            out.push((format!("{name}:{r}:model"), run.spec.model.graph.clone()));
            out.push((format!("{name}:{r}:opt-init"), run.opt_init.clone()));
            out.push((format!("{name}:{r}:step"), run.step.graph.clone()));
            if let Some(e) = &run.eval {
                out.push((format!("{name}:{r}:eval"), e.graph.clone()));
            }
        }
    }
    out
}
