//! `shapescript build`: checks the files like `check`, and only when there
//! are no errors writes the Python package `pygen` generates, into a
//! temporary folder beside OUT that is renamed into place, so a failed
//! build never leaves a partial package. Owns only this command's I/O.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use diag::{Severity, SourceMap};

use crate::{check_on_disk, gather_roots, usage_error, Printing};

/// Checks, then writes the package when there are no errors; diagnostics
/// print as `printing` says either way.
pub fn run_build(
    paths: Vec<PathBuf>,
    include: Vec<PathBuf>,
    out: PathBuf,
    no_runtime_checks: bool,
    printing: Printing,
) -> ExitCode {
    let roots = match gather_roots(paths, &include) {
        Ok(roots) => roots,
        Err(code) => return code,
    };
    if out.exists() && !is_generated_package(&out) {
        return usage_error(&format!(
            "`{}` exists and is not a package `shapescript build` wrote; choose another -o folder",
            out.display()
        ));
    }
    let mut map = SourceMap::new();
    let checked = check_on_disk(&mut map, &roots, include);
    if checked
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
    {
        printing.print(&map, &checked.diagnostics);
        return ExitCode::from(1);
    }
    let options = pygen::Options {
        runtime_checks: !no_runtime_checks,
        ..pygen::Options::default()
    };
    let files = match pygen::generate(&checked, &map, &options) {
        Ok(files) => files,
        Err(diagnostics) => {
            printing.print(&map, &diagnostics);
            return ExitCode::from(1);
        }
    };
    if !checked.diagnostics.is_empty() {
        printing.print(&map, &checked.diagnostics);
    }
    match write_package(&out, &files) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => usage_error(&message),
    }
}

/// A folder `build` may replace: one it wrote before (it has the runtime
/// module), or an empty one.
fn is_generated_package(out: &Path) -> bool {
    if !out.is_dir() {
        return false;
    }
    out.join("shapescript_runtime.py").is_file()
        || std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_none())
}

/// Writes every file into a fresh folder beside `out`, then swaps it in.
fn write_package(out: &Path, files: &[pygen::OutputFile]) -> Result<(), String> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    let stem = out
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    let fresh = parent.join(format!(".{stem}.new-{pid}"));
    let old = parent.join(format!(".{stem}.old-{pid}"));
    let result = (|| {
        std::fs::create_dir(&fresh)
            .map_err(|e| format!("cannot create `{}`: {e}", fresh.display()))?;
        for file in files {
            let path = fresh.join(&file.path);
            std::fs::write(&path, &file.contents)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        }
        if out.exists() {
            std::fs::rename(out, &old)
                .map_err(|e| format!("cannot replace `{}`: {e}", out.display()))?;
        }
        std::fs::rename(&fresh, out)
            .map_err(|e| format!("cannot write `{}`: {e}", out.display()))?;
        if old.exists() {
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&fresh);
        if old.exists() && !out.exists() {
            let _ = std::fs::rename(&old, out);
        }
    }
    result
}
