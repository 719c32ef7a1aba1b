//! What the PyTorch comparisons share: running one of this folder's
//! scripts in the venv's Python on a folder of `.npy` files.

use std::path::Path;
use std::process::Command;

/// Runs `tests/{script}` with `args` in the venv's Python and returns its
/// report (stdout then stderr); fails the test, keeping the files in
/// `dir`, when the script fails.
pub fn run_script(script: &str, args: &[&str], dir: &Path) -> String {
    let python = uitest::support::python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(script);
    let output = Command::new(&python)
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let report = uitest::support::printed(&output);
    assert!(
        output.status.success(),
        "{report}\n(files kept in {})",
        dir.display()
    );
    report
}
