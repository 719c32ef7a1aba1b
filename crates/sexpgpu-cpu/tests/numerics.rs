//! The compiled CPU backend against NumPy: every per-op numerics case of
//! `sexpgpu-graph` (one small graph per op, dtype and shape) compiled and
//! run by `Program::run`, then recomputed and compared by
//! `tests/numerics/check_ops.py`, as the reference executor's are (and as
//! `scripts/gpu-check` does with the CUDA backend's).

#[path = "../../sexpgpu-graph/tests/numerics/cases.rs"]
mod cases;

use std::process::Command;

use sexpgpu_graph::ExecError;
use uitest::support::{python, workspace_root};

#[test]
fn every_op_of_the_compiled_backend_matches_numpy() {
    let dir = std::env::temp_dir().join(format!("sexpgpu-cpu-numerics-{}", std::process::id()));
    let run = |g: &sexpgpu_graph::Graph, args: &[sexpgpu_graph::Tensor], seed: u64| {
        let program = sexpgpu_cpu::compile(g).map_err(|e| ExecError {
            message: format!("compile: {e}"),
            node: None,
        })?;
        program.run(args, seed)
    };
    let count = cases::write_all(&dir, &run)
        .unwrap_or_else(|failures| panic!("the backend failed:\n{}", failures.join("\n")));
    let output = Command::new(python())
        .arg(workspace_root().join("tests/numerics/check_ops.py"))
        .arg(&dir)
        .output()
        .expect("run the numerics checker");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains(&format!("{count} passed, 0 failed")),
        "NumPy disagrees ({count} cases in {}):\n{stdout}\n{stderr}",
        dir.display()
    );
    std::fs::remove_dir_all(&dir).ok();
}
