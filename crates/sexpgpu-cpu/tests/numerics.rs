//! The compiled CPU backend against NumPy: every per-op numerics case of
//! `sexpgpu-graph` (one small graph per op, dtype and shape) compiled and
//! run by `CpuProgram::run`, then recomputed and compared by
//! `tests/numerics/check_ops.py`, as the reference executor's are (and as
//! `scripts/gpu-check` does with the CUDA backend's).

#[path = "../../sexpgpu-graph/tests/numerics/cases.rs"]
mod cases;

use sexpgpu_graph::ExecError;

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
    cases::check_with_numpy(&dir, count, "the compiled CPU backend");
}
