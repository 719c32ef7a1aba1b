//! Numerics of the reference executor against NumPy: every case of
//! `numerics/cases.rs` (one small graph per op, dtype and shape on random
//! inputs) is run, written as `.npy` with a manifest, and
//! `tests/numerics/check_ops.py` recomputes each in NumPy and compares
//! within dtype tolerance.

#[path = "numerics/cases.rs"]
mod cases;

use sexpgpu_graph::execute;

#[test]
fn every_op_matches_numpy() {
    let dir = std::env::temp_dir().join(format!("sexpgpu-numerics-{}", std::process::id()));
    let count = cases::write_all(&dir, &|g, args, seed| execute(g, args, seed))
        .unwrap_or_else(|failures| panic!("the reference failed:\n{}", failures.join("\n")));
    cases::check_with_numpy(&dir, count, "the reference executor");
}
