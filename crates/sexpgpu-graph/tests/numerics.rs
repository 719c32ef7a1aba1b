//! Numerics of the reference executor against NumPy: every case of
//! `numerics/cases.rs` (one small graph per op, dtype and shape on random
//! inputs) is run, written as `.npy` with a manifest, and
//! `tests/numerics/check_ops.py` recomputes each in NumPy and compares
//! within dtype tolerance.

#[path = "numerics/cases.rs"]
mod cases;

use std::process::Command;

use sexpgpu_graph::execute;
use uitest::support::{python, workspace_root};

#[test]
fn every_op_matches_numpy() {
    let root = workspace_root();
    let python = python();
    let dir = std::env::temp_dir().join(format!("sexpgpu-numerics-{}", std::process::id()));
    let count = cases::write_all(&dir, &|g, args, seed| execute(g, args, seed))
        .unwrap_or_else(|failures| panic!("the reference failed:\n{}", failures.join("\n")));
    let output = Command::new(&python)
        .arg(root.join("tests/numerics/check_ops.py"))
        .arg(&dir)
        .output()
        .expect("run the numerics checker");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "NumPy disagrees ({count} cases in {}):\n{stdout}\n{stderr}",
        dir.display()
    );
    assert!(
        stdout.contains(&format!("{count} passed, 0 failed")),
        "unexpected checker output:\n{stdout}\n{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
