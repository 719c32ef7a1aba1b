//! The editor layer: one `Analysis` of the open program (checker results plus
//! a name index, library files included) answering questions in editor terms
//! (hover text, locations, symbols, hints) as plain data with byte spans.
//! Knows nothing of LSP or JSON, and does no I/O: files come in through
//! `check::Files` and library texts are handed in.

mod completion;
pub mod defs;
mod fixes;
mod highlight;
mod hover;
pub mod index;
mod navigation;
mod register;
mod signature_help;
mod symbols;
mod value_types;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use check::{Checked, Files, Options};
use diag::{Diagnostic, FileId, SourceMap, Span};
use syntax::ast;

pub use completion::{CompletionItem, CompletionKind};
pub use defs::{Def, DefId, DefKind};
pub use fixes::Fix;
pub use highlight::{Highlight, HighlightKind};
pub use hover::Hover;
pub use navigation::TextEdit;
pub use signature_help::SignatureHelp;
pub use symbols::Symbol;

/// A file of the library folder: the prelude stubs and the builtins.
#[derive(Clone, Debug)]
pub struct LibraryFile {
    pub path: PathBuf,
    pub text: String,
}

/// An inline hint after a name: `: [b n D]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: u32,
    pub label: String,
}

/// The checked program and its name index, immutable once built.
pub struct Analysis {
    pub map: SourceMap,
    pub checked: Checked,
    /// The checker's library modules, then the extra library files.
    library: Vec<FileId>,
    extra_asts: Vec<(FileId, ast::File)>,
    paths: HashMap<PathBuf, FileId>,
    /// Where library modules are shown (the library folder), by file.
    shown: HashMap<FileId, PathBuf>,
    index: OnceLock<defs::Index>,
}

impl Analysis {
    /// Checks `roots` (and what they import) and indexes them. The checker's
    /// library modules (`prelude.ss`, `nn.ss`) and the `extra` library files
    /// (`builtins.ss`) are shown under `library_dir`.
    pub fn new(
        files: &dyn Files,
        roots: &[PathBuf],
        options: &Options,
        library_dir: &Path,
        extra: &[LibraryFile],
    ) -> Analysis {
        let mut map = SourceMap::new();
        // The editor reads what the checker resolved names in types to.
        let options = Options {
            resolutions: true,
            ..options.clone()
        };
        let checked = check::check(&mut map, files, roots, &options);
        let mut library: Vec<FileId> = checked.library.iter().map(|(f, _)| *f).collect();
        let mut paths = HashMap::new();
        let mut shown = HashMap::new();
        for &(file, name) in &checked.library {
            let path = library_dir.join(name);
            paths.insert(path.clone(), file);
            shown.insert(file, path);
        }
        let mut extra_asts = Vec::new();
        for lib in extra {
            let file = map.add(lib.path.display().to_string(), lib.text.clone());
            extra_asts.push((file, syntax::parse(file, &lib.text).file));
            paths.insert(lib.path.clone(), file);
            library.push(file);
        }
        for module in &checked.program.modules {
            paths.entry(module.path.clone()).or_insert(module.file);
        }
        Analysis {
            map,
            checked,
            library,
            extra_asts,
            paths,
            shown,
            index: OnceLock::new(),
        }
    }

    /// The name index, built on first use: publishing diagnostics doesn't need it.
    fn index(&self) -> &defs::Index {
        self.index.get_or_init(|| {
            let mut sources: Vec<defs::Source> = self
                .checked
                .program
                .modules
                .iter()
                .map(|m| defs::Source {
                    file: m.file,
                    ast: &m.ast,
                    imports: m.imports.iter().map(|(k, v)| (*k, *v)).collect(),
                })
                .collect();
            for (file, ast) in &self.extra_asts {
                sources.push(defs::Source {
                    file: *file,
                    ast,
                    imports: HashMap::new(),
                });
            }
            // `builtins.ss`: the program doesn't hold it, so its names are
            // resolved apart.
            let declarations = self
                .extra_asts
                .iter()
                .map(|(file, ast)| {
                    (
                        *file,
                        check::hir::Declarations::resolve(&self.map, *file, ast),
                    )
                })
                .collect();
            let mut index = index::build(
                &sources,
                &self.library,
                &self.map,
                &self.checked,
                &declarations,
            );
            value_types::add_signature_types(&mut index, &self.checked.signatures);
            value_types::add_body_types(&mut index, &self.checked.bodies);
            index
        })
    }

    pub fn file_id(&self, path: &Path) -> Option<FileId> {
        self.paths.get(&check::normalize(path)).copied()
    }

    /// The file's path on disk (library files: in the library folder).
    pub fn path(&self, file: FileId) -> PathBuf {
        match self.shown.get(&file) {
            Some(path) => path.clone(),
            None => PathBuf::from(self.map.name(file)),
        }
    }

    /// The library file named `name` (`prelude.ss`), as a client names it
    /// in a `shapescript-library:` URI.
    pub fn library_file(&self, name: &str) -> Option<FileId> {
        self.library
            .iter()
            .copied()
            .find(|&file| self.path(file).file_name().and_then(|n| n.to_str()) == Some(name))
    }

    pub fn is_library(&self, file: FileId) -> bool {
        self.library.contains(&file)
    }

    /// The diagnostics whose primary span is in `file` (none for library files).
    pub fn diagnostics(&self, file: FileId) -> Vec<&Diagnostic> {
        if self.is_library(file) {
            return Vec::new();
        }
        self.checked
            .diagnostics
            .iter()
            .filter(|d| d.primary.as_ref().is_some_and(|l| l.span.file == file))
            .collect()
    }

    /// Diagnostics with no place in a file (an unreadable root), for the log.
    pub fn unplaced_diagnostics(&self) -> Vec<&Diagnostic> {
        self.checked
            .diagnostics
            .iter()
            .filter(|d| d.primary.is_none())
            .collect()
    }

    pub fn def(&self, def: DefId) -> Option<&Def> {
        self.index().defs.get(&def)
    }

    /// The declaration the name at `offset` means.
    pub fn def_at(&self, file: FileId, offset: u32) -> Option<&Def> {
        let occurrence = self.index().occurrence_at(file, offset)?;
        self.index().defs.get(&occurrence.def)
    }

    /// Each `let` without a written type gets its type after its name.
    pub fn inlay_hints(&self, file: FileId, from: u32, to: u32) -> Vec<InlayHint> {
        let mut out = Vec::new();
        for def in self.index().untyped_lets.get(&file).into_iter().flatten() {
            if def.start < from || def.end > to {
                continue;
            }
            if let Some(ty) = self.index().defs.get(def).and_then(|d| d.ty.as_ref()) {
                out.push(InlayHint {
                    offset: def.end,
                    label: format!(": {ty}"),
                });
            }
        }
        out.sort_by_key(|h| h.offset);
        out
    }

    fn text(&self, span: Span) -> &str {
        self.map
            .text(span.file)
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    fn ast(&self, file: FileId) -> Option<&ast::File> {
        if let Some((_, ast)) = self.extra_asts.iter().find(|(f, _)| *f == file) {
            return Some(ast);
        }
        let slot = *self.checked.program.by_file.get(file.0 as usize)?;
        self.checked.program.modules.get(slot).map(|m| &m.ast)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use check::MemoryFiles;

    /// An analysis of in-memory files (the first one the root) with the real
    /// library texts; `$0` in the first file marks the cursor, whose offset is returned.
    pub(crate) fn analysis(files: &[(&str, &str)]) -> (Analysis, FileId, u32) {
        let mut memory = MemoryFiles::new();
        let mut cursor = 0;
        for (i, (path, text)) in files.iter().enumerate() {
            let text = if i == 0 {
                cursor = text.find("$0").unwrap_or(0) as u32;
                text.replacen("$0", "", 1)
            } else {
                text.to_string()
            };
            memory.insert(path, text);
        }
        let extra = crate::library::extra_files(Path::new("/lib"));
        let roots = [PathBuf::from(files[0].0)];
        let analysis = Analysis::new(
            &memory,
            &roots,
            &Options::default(),
            Path::new("/lib"),
            &extra,
        );
        let file = analysis.file_id(Path::new(files[0].0)).expect("root file");
        (analysis, file, cursor)
    }

    /// `file:line:col` of a span, for expectations.
    pub(crate) fn place(analysis: &Analysis, span: Span) -> String {
        let at = analysis.map.line_col(span.file, span.start);
        let path = analysis.path(span.file);
        // Library files change with the checker: name what is there instead.
        if analysis.is_library(span.file) {
            return format!("{} `{}`", path.display(), analysis.text(span));
        }
        format!("{}:{}:{}", path.display(), at.line, at.col)
    }
}
