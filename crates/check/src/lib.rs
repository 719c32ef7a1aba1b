//! The ShapeScript checker: sizes, dims, aliases, imports, signatures, bodies and value ranges. Pure: files come in through the `Files` trait, nothing here does I/O.
//!
//! The entry point is [`check`]: it reads the root files and everything they
//! import into one `SourceMap`, and returns the checked program with all
//! diagnostics. Order of work: load and parse (imports, duplicates), dims,
//! shape aliases, signatures, bodies, then each body's value ranges
//! (`docs/shapescript/ranges.md`).
//!
//! The public API is this file's items and [`hir`], the one view of a
//! checked program that `pygen` and `lsp` read; every other module is
//! private, so the checker's internals can change without breaking them.

mod alias;
mod body;
mod broadcast;
mod builtin_names;
mod builtins;
pub mod codes;
mod declarations;
mod depgraph;
mod dims;
mod dtype;
mod files;
pub mod hir;
mod load;
mod lower;
mod model;
mod per_file;
mod prelude;
mod program;
mod ranges;
mod resolved;
mod shape;
mod signature;
mod size;
mod solver;
mod typed;
mod types;

use rustc_hash::FxHashSet as HashSet;
use std::path::PathBuf;

use diag::{Diagnostic, FileId, SourceMap};

pub use builtins::builtins_ss;
pub use files::{normalize, FileError, Files, MemoryFiles};
pub use prelude::LIBRARY;

/// What the command passes on: the `-I` search path; and, for the
/// language server, whether to record resolutions.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub search_path: Vec<PathBuf>,
    /// Record what every written name resolves to, in types, signatures,
    /// alias declarations and bodies, the bodies plain `check` skips
    /// included (`Checked::name_decl_span`, `type_name_resolution`), for
    /// the language server; off, checking keeps no table and skips nothing
    /// more.
    pub resolutions: bool,
}

/// A checked program and everything found wrong with it.
pub struct Checked {
    pub program: hir::Program,
    pub dims: hir::DimValues,
    pub aliases: hir::Aliases,
    pub signatures: hir::Signatures,
    /// Every checked `fn` and method body, and models' and records' fields.
    pub bodies: typed::Bodies,
    /// The library files every check sees (`prelude.ss`, `nn.ss`), with
    /// their names: no Python is generated for them and the editor shows
    /// them read-only.
    pub library: Vec<(FileId, &'static str)>,
    /// Sorted by file and position; one per mistake.
    pub diagnostics: Vec<Diagnostic>,
    /// What every written name resolved to, when `Options::resolutions`
    /// was on; read through `Checked::name_decl_span` and
    /// `type_name_resolution`.
    pub type_names: resolved::TypeNames,
}

/// Checks `roots` and the files they import, adding every file to `map`.
pub fn check(
    map: &mut SourceMap,
    files: &dyn Files,
    roots: &[PathBuf],
    options: &Options,
) -> Checked {
    let mut diagnostics = Vec::new();
    let with_library = prelude::WithLibrary(files);
    let all_roots = prelude::roots_with_library(roots);
    let mut pipeline = Pipeline {
        record: options.resolutions.then(resolved::Recorder::default),
        ..Pipeline::default()
    };
    let program = load::load_checking(
        map,
        &with_library,
        &all_roots,
        &options.search_path,
        &mut diagnostics,
        &mut |program, map, batch, diagnostics| pipeline.check(program, map, batch, diagnostics),
    );
    let diagnostics = tidy(diagnostics);
    Checked {
        program,
        dims: pipeline.dims,
        aliases: pipeline.aliases,
        signatures: pipeline.signatures,
        bodies: pipeline.bodies.finish(),
        library: pipeline.library,
        diagnostics,
        type_names: pipeline
            .record
            .map(resolved::Recorder::finish)
            .unwrap_or_default(),
    }
}

/// Checks sources held as text, `(path, text)` each, the first the root
/// (tests, fuzzers and benchmarks that hold their program in memory).
pub fn check_sources(map: &mut SourceMap, sources: &[(&str, &str)], options: &Options) -> Checked {
    let mut files = MemoryFiles::new();
    for (path, text) in sources {
        files.insert(path, *text);
    }
    let root: Vec<PathBuf> = sources
        .iter()
        .take(1)
        .map(|(p, _)| PathBuf::from(p))
        .collect();
    check(map, &files, &root, options)
}

impl Checked {
    /// The modules of the user's files (the library's left out), in the
    /// order they were loaded: the roots first.
    pub fn user_modules(&self) -> impl Iterator<Item = &hir::Module> {
        self.program
            .modules
            .iter()
            .filter(|m| !self.library.iter().any(|(file, _)| *file == m.file))
    }
}

/// Checks modules batch by batch as `load` hands them over (each batch
/// after the modules it imports), keeping what later batches look up.
#[derive(Default)]
struct Pipeline {
    dims: dims::DimValues,
    aliases: alias::Aliases,
    alias_cache: lower::AliasCache,
    signatures: signature::Signatures,
    bodies: body::BodyState,
    library: Vec<(FileId, &'static str)>,
    /// Where the resolutions of names in types go, when recorded.
    record: Option<resolved::Recorder>,
}

impl Pipeline {
    fn check(
        &mut self,
        program: &program::Program,
        map: &SourceMap,
        batch: &[usize],
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.library
            .extend(prelude::library_files_in(program, batch));
        dims::evaluate_batch(
            program,
            map,
            batch,
            &mut self.dims,
            diagnostics,
            self.record.as_ref(),
        );
        alias::find_cycles_batch(program, map, batch, &mut self.aliases, diagnostics);
        let env = lower::Env {
            program,
            map,
            dims: &self.dims,
            aliases: &self.aliases,
            alias_cache: &self.alias_cache,
            resolutions: self.record.as_ref(),
        };
        alias::check_declarations_batch(env, batch, diagnostics);
        signature::check_batch(env, batch, &mut self.signatures, diagnostics);
        body::check_batch(
            env,
            &self.signatures,
            &self.library,
            batch,
            &mut self.bodies,
            diagnostics,
        );
        let (bodies, models) = self.bodies.for_ranges();
        let ranges = ranges::RangeEnv {
            lowered: env,
            signatures: &self.signatures,
            models,
            library: &self.library,
        };
        ranges::check_batch(ranges, batch, bodies, diagnostics);
    }
}

/// `check`, but each phase over the whole program in turn, after every file
/// is loaded: the way `check` worked before it went module by module, kept
/// as the reference a fuzz test compares it with (they must agree on every
/// input).
pub fn check_phase_by_phase(
    map: &mut SourceMap,
    files: &dyn Files,
    roots: &[PathBuf],
    options: &Options,
) -> Checked {
    check_phase_by_phase_observed(map, files, roots, options, &mut |_| {})
}

/// A phase of `check_phase_by_phase`, named to `on_phase` as it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Loading and parsing every file.
    Load,
    Dims,
    /// Alias cycles and alias declarations.
    Aliases,
    Signatures,
    Bodies,
}

/// `check_phase_by_phase`, calling `on_phase` as each phase ends, so
/// `bench_front` can time the phases (and what each keeps) one by one.
pub fn check_phase_by_phase_observed(
    map: &mut SourceMap,
    files: &dyn Files,
    roots: &[PathBuf],
    options: &Options,
    on_phase: &mut dyn FnMut(Phase),
) -> Checked {
    let mut diagnostics = Vec::new();
    let with_library = prelude::WithLibrary(files);
    let all_roots = prelude::roots_with_library(roots);
    let program = load::load(
        map,
        &with_library,
        &all_roots,
        &options.search_path,
        &mut diagnostics,
    );
    let library = prelude::library_files(&program);
    on_phase(Phase::Load);
    let record = options.resolutions.then(resolved::Recorder::default);
    let dims = dims::evaluate(&program, map, &mut diagnostics, record.as_ref());
    on_phase(Phase::Dims);
    let aliases = alias::find_cycles(&program, map, &mut diagnostics);
    let alias_cache = lower::AliasCache::default();
    let env = lower::Env {
        program: &program,
        map,
        dims: &dims,
        aliases: &aliases,
        alias_cache: &alias_cache,
        resolutions: record.as_ref(),
    };
    alias::check_declarations(env, &mut diagnostics);
    on_phase(Phase::Aliases);
    let signatures = signature::check_all(env, &mut diagnostics);
    on_phase(Phase::Signatures);
    let mut state = body::check_all(env, &signatures, &library, &mut diagnostics);
    let (bodies, models) = state.for_ranges();
    let ranges = ranges::RangeEnv {
        lowered: env,
        signatures: &signatures,
        models,
        library: &library,
    };
    let all: Vec<usize> = (0..program.modules.len()).collect();
    ranges::check_batch(ranges, &all, bodies, &mut diagnostics);
    let bodies = state.finish();
    on_phase(Phase::Bodies);
    Checked {
        program,
        dims,
        aliases,
        signatures,
        bodies,
        library,
        diagnostics: tidy(diagnostics),
        type_names: record.map(resolved::Recorder::finish).unwrap_or_default(),
    }
}

/// Drops repeats of one mistake (an alias's axes are checked at each use)
/// and sorts by place, so output is stable.
fn tidy(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = HashSet::default();
    let mut out: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|d| {
            seen.insert((
                d.code,
                d.primary.as_ref().map(|l| l.span),
                d.message.clone(),
            ))
        })
        .collect();
    out.sort_by_key(|d| {
        d.primary
            .as_ref()
            .map(|l| (l.span.file, l.span.start, l.span.end))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::Expect;

    /// Checks in-memory files (all of them roots) and shows the diagnostics
    /// one per line: `file:line:col code message [label]`, then notes and help.
    pub(crate) fn check_files(files: &[(&str, &str)], expect: Expect) {
        let mut memory = MemoryFiles::new();
        for (path, text) in files {
            memory.insert(path, *text);
        }
        let roots: Vec<PathBuf> = files.iter().map(|(p, _)| PathBuf::from(p)).collect();
        let mut map = SourceMap::new();
        let checked = check(&mut map, &memory, &roots, &Options::default());
        expect.assert_eq(&show(&map, &checked.diagnostics));
    }

    pub(crate) fn show(map: &SourceMap, diagnostics: &[Diagnostic]) -> String {
        let mut out = String::new();
        for d in diagnostics {
            match &d.primary {
                Some(label) => {
                    let at = map.line_col(label.span.file, label.span.start);
                    let text = &map.text(label.span.file)
                        [label.span.start as usize..label.span.end as usize];
                    out.push_str(&format!(
                        "{}:{}:{} {} {} [`{}`: {}]\n",
                        map.name(label.span.file),
                        at.line,
                        at.col,
                        d.code,
                        d.message,
                        text,
                        label.message
                    ));
                }
                None => out.push_str(&format!("{} {}\n", d.code, d.message)),
            }
            for label in &d.secondary {
                let text =
                    &map.text(label.span.file)[label.span.start as usize..label.span.end as usize];
                out.push_str(&format!("  also `{}`: {}\n", text, label.message));
            }
            for note in &d.notes {
                out.push_str(&format!("  note: {note}\n"));
            }
            for help in &d.help {
                out.push_str(&format!("  help: {help}\n"));
            }
        }
        out
    }

    #[test]
    fn the_prelude_files_check_clean() {
        check_files(
            &[
                ("prelude.ss", include_str!("prelude.ss")),
                ("nn.ss", include_str!("nn.ss")),
            ],
            expect_test::expect![[r#""#]],
        );
    }
}
