//! How the checker gets file text: the `Files` trait (the command reads the
//! disk, tests use `MemoryFiles`) and the import search order. Paths are only
//! joined and normalised here, never opened: no I/O in this crate.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Why a file's text could not be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileError {
    NotFound,
    /// It exists but could not be read; the system's reason, for the message.
    Unreadable(String),
}

/// The checker's only window on files.
pub trait Files {
    /// The text of the file at `path`, shared: the source map keeps it as
    /// given, and a file held in memory is handed out without a copy.
    fn read(&self, path: &Path) -> Result<Arc<str>, FileError>;

    /// Finds `import name`: `name.ss` in `folder` (the importing file's),
    /// then in each folder of `search_path` in order. Returns the path found
    /// and its text, or the places tried, or an unreadable file's reason.
    fn resolve_import(&self, name: &str, folder: &Path, search_path: &[PathBuf]) -> Resolved {
        let file_name = format!("{name}.ss");
        let mut tried = Vec::new();
        for dir in std::iter::once(folder).chain(search_path.iter().map(PathBuf::as_path)) {
            let path = normalize(&dir.join(&file_name));
            match self.read(&path) {
                Ok(text) => return Resolved::Found { path, text },
                Err(FileError::NotFound) => tried.push(path),
                Err(FileError::Unreadable(reason)) => return Resolved::Unreadable { path, reason },
            }
        }
        Resolved::NotFound { tried }
    }
}

/// The outcome of `Files::resolve_import`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    Found { path: PathBuf, text: Arc<str> },
    NotFound { tried: Vec<PathBuf> },
    Unreadable { path: PathBuf, reason: String },
}

/// Removes `.` and folds `dir/..` so one file has one name however it was reached.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// Files held in memory, for tests, benchmarks and the language server.
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    files: HashMap<PathBuf, Arc<str>>,
}

impl MemoryFiles {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, path: impl AsRef<Path>, text: impl Into<Arc<str>>) {
        self.files.insert(normalize(path.as_ref()), text.into());
    }
}

impl Files for MemoryFiles {
    fn read(&self, path: &Path) -> Result<Arc<str>, FileError> {
        self.files
            .get(&normalize(path))
            .cloned()
            .ok_or(FileError::NotFound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_searches_the_folder_then_the_search_path() {
        let mut files = MemoryFiles::new();
        files.insert("lib/vision.ss", "dim D = 768");
        files.insert("app/text.ss", "dim T = 1");
        let found = files.resolve_import(
            "vision",
            Path::new("app"),
            &[PathBuf::from("other"), PathBuf::from("lib")],
        );
        assert_eq!(
            found,
            Resolved::Found {
                path: PathBuf::from("lib/vision.ss"),
                text: "dim D = 768".into()
            }
        );
        let found = files.resolve_import("text", Path::new("./app"), &[PathBuf::from("lib")]);
        assert_eq!(
            found,
            Resolved::Found {
                path: PathBuf::from("app/text.ss"),
                text: "dim T = 1".into()
            }
        );
        let missing = files.resolve_import("audio", Path::new("app"), &[PathBuf::from("lib")]);
        assert_eq!(
            missing,
            Resolved::NotFound {
                tried: vec![PathBuf::from("app/audio.ss"), PathBuf::from("lib/audio.ss")]
            }
        );
    }

    #[test]
    fn normalize_folds_dots() {
        assert_eq!(
            normalize(Path::new("./a/b/../c.ss")),
            PathBuf::from("a/c.ss")
        );
        assert_eq!(normalize(Path::new("../a.ss")), PathBuf::from("../a.ss"));
    }
}
