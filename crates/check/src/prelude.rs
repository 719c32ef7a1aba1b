//! The library every check sees: `prelude.ss` (elementwise math) and `nn.ss`
//! (layers), compiled in with `include_str!` and served through the `Files`
//! trait under paths no user file can have, so they are modules of their own
//! in the `SourceMap` and labels can point into them. Also finds a name in
//! them for a file that doesn't declare it (a file's declaration hides a stub).
//! Never reads the disk.

use std::path::{Path, PathBuf};

use diag::FileId;

use crate::files::{FileError, Files, Resolved};
use crate::program::{Decl, Program};

/// The folder name the library files are shown under.
pub const LIBRARY_DIR: &str = "<library>";

/// The library files: path (under `LIBRARY_DIR`) and text.
pub const LIBRARY: &[(&str, &str)] = &[
    ("<library>/prelude.ss", include_str!("prelude.ss")),
    ("<library>/nn.ss", include_str!("nn.ss")),
];

/// `Files` that also answers for the library paths.
pub struct WithLibrary<'a>(pub &'a dyn Files);

impl Files for WithLibrary<'_> {
    fn read(&self, path: &Path) -> Result<std::sync::Arc<str>, FileError> {
        match LIBRARY.iter().find(|(p, _)| Path::new(p) == path) {
            Some((_, text)) => Ok((*text).into()),
            None => self.0.read(path),
        }
    }

    fn resolve_import(&self, name: &str, folder: &Path, search_path: &[PathBuf]) -> Resolved {
        self.0.resolve_import(name, folder, search_path)
    }
}

/// The library's paths, then `roots`: the order `check` loads them in (the
/// library first, as every module's bodies may call it).
pub fn roots_with_library(roots: &[PathBuf]) -> Vec<PathBuf> {
    LIBRARY
        .iter()
        .map(|(path, _)| PathBuf::from(path))
        .chain(roots.iter().cloned())
        .collect()
}

/// The library modules of a loaded program, with their file names.
pub fn library_files(program: &Program) -> Vec<(FileId, &'static str)> {
    let all: Vec<usize> = (0..program.modules.len()).collect();
    library_files_in(program, &all).collect()
}

/// The library modules among `modules` (indices into `Program::modules`).
pub fn library_files_in<'p>(
    program: &'p Program,
    modules: &'p [usize],
) -> impl Iterator<Item = (FileId, &'static str)> + 'p {
    modules.iter().filter_map(|&m| {
        let module = &program.modules[m];
        let path = module.path.to_str()?;
        LIBRARY
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(p, _)| (module.file, &p[LIBRARY_DIR.len() + 1..]))
    })
}

/// A plain name not declared in `from`: the library stub of that name.
pub fn stub<'p>(
    program: &'p Program,
    library: &[(FileId, &'static str)],
    name: &str,
) -> Option<(FileId, Decl<'p>)> {
    library
        .iter()
        .find_map(|&(file, _)| program.decl(file, name).map(|d| (file, d)))
}
