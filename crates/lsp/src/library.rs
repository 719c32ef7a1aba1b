//! The library folder (`docs/shapescript/editor.md`): where the server writes `prelude.ss`,
//! `nn.ss` and the generated `builtins.ss`, read-only, so that go to
//! definition on a stub can return a `file://` location any editor opens.
//! Owns choosing the folder and writing it; nothing else here touches the disk.

use std::io;
use std::path::{Path, PathBuf};

use crate::ide::LibraryFile;

pub use lsp_base::library_folder::{default_dir, Os};

/// The library files the server adds to the checker's: `builtins.ss`.
pub fn extra_files(dir: &Path) -> Vec<LibraryFile> {
    vec![LibraryFile {
        path: dir.join("builtins.ss"),
        text: check::builtins_ss(),
    }]
}

/// Every library file, as written under `dir`: the checker's prelude and
/// nn stubs, then the extra ones.
pub fn all_files(dir: &Path) -> Vec<LibraryFile> {
    let mut out: Vec<LibraryFile> = check::LIBRARY
        .iter()
        .map(|(path, text)| LibraryFile {
            path: dir.join(Path::new(path).file_name().unwrap_or_default()),
            text: text.to_string(),
        })
        .collect();
    out.extend(extra_files(dir));
    out
}

/// The folder to use: the client's `libraryDir`, else the default.
pub fn choose_dir(library_dir: Option<&str>) -> Option<PathBuf> {
    lsp_base::library_folder::choose_dir("shapescript", library_dir)
}

/// Writes the library files into their folder, read-only.
pub fn write(files: &[LibraryFile]) -> io::Result<()> {
    lsp_base::library_folder::write(files.iter().map(|f| (f.path.as_path(), f.text.as_str())))
}
