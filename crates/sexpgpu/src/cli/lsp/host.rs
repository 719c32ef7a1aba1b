//! The host an editor's evaluation runs with (`docs/sexpgpu/editor.md`,
//! "Safe to open"): printing goes nowhere, data files are read only from
//! inside the workspace's folders (relative paths from the file's own
//! folder, as `sexpgpu run` reads them), nothing is ever written, and the
//! evaluation is stopped once its time is spent.

use sexpgpu::Host;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The largest data file an editor's evaluation reads (the digits and
/// text files of the examples are a few megabytes).
const MAX_READ_BYTES: u64 = 256 << 20;

pub struct EditorHost {
    /// The folder of the file evaluated: relative paths start there.
    pub base: PathBuf,
    /// The folders files may be read from (canonical).
    pub roots: Vec<PathBuf>,
    /// When the evaluation must stop.
    pub deadline: Instant,
}

impl Host for EditorHost {
    fn print(&mut self, _text: &str) {}

    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        let full = self.base.join(path);
        let canonical = full
            .canonicalize()
            .map_err(|e| format!("cannot read {}: {e}", full.display()))?;
        if !self.roots.iter().any(|root| canonical.starts_with(root)) {
            return Err(format!(
                "the editor reads no file outside the workspace, and {} is outside it",
                full.display()
            ));
        }
        let size = std::fs::metadata(&canonical).map(|m| m.len()).unwrap_or(0);
        if size > MAX_READ_BYTES {
            return Err(format!(
                "the editor reads files up to {} MiB, and {} has {size} bytes",
                MAX_READ_BYTES >> 20,
                full.display()
            ));
        }
        std::fs::read(&canonical).map_err(|e| format!("cannot read {}: {e}", full.display()))
    }

    fn write_file(&mut self, path: &str, _bytes: &[u8]) -> Result<(), String> {
        Err(format!(
            "the editor writes no file (`{path}` is written only by `sexpgpu run`)"
        ))
    }

    fn interrupted(&mut self) -> bool {
        Instant::now() >= self.deadline
    }
}

/// The canonical forms of the folders a client names, or the file's own
/// folder when it names none.
pub fn roots(folders: &[PathBuf], file: &Path) -> Vec<PathBuf> {
    let folders: Vec<PathBuf> = folders
        .iter()
        .filter_map(|f| f.canonicalize().ok())
        .collect();
    if !folders.is_empty() {
        return folders;
    }
    file.parent()
        .and_then(|dir| dir.canonicalize().ok())
        .into_iter()
        .collect()
}
