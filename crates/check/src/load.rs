//! Reading the program: parses each root file, follows `import`s through the
//! `Files` trait in search order, and reports missing files (E0201),
//! unreadable files (E0205), import cycles (E0202) and names declared twice
//! (E0203). Never opens a file itself.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use diag::{Diagnostic, FileId, SourceMap};
use syntax::ast;
use syntax::Name;

use crate::codes;
use crate::files::{normalize, Files, Resolved};
use crate::program::{Module, Program};

/// Loads every root and everything they import, adding each file to `map` once.
pub fn load(
    map: &mut SourceMap,
    files: &dyn Files,
    roots: &[PathBuf],
    search_path: &[PathBuf],
    diagnostics: &mut Vec<Diagnostic>,
) -> Program {
    load_checking(
        map,
        files,
        roots,
        search_path,
        diagnostics,
        &mut |_, _, _, _| {},
    )
}

/// What checks a batch of loaded modules (indices into `Program::modules`)
/// whose imports were all checked before, or are in the batch.
pub type CheckBatch<'c> = dyn FnMut(&Program, &SourceMap, &[usize], &mut Vec<Diagnostic>) + 'c;

/// Loads as `load` does (files get their ids in the same order), and hands
/// each module to `check` as soon as every module it imports was handed
/// over: checked right after it is parsed, its syntax tree is still in the
/// cache. Modules on an import cycle, and the ones waiting for them, go over
/// together in one last batch.
pub fn load_checking(
    map: &mut SourceMap,
    files: &dyn Files,
    roots: &[PathBuf],
    search_path: &[PathBuf],
    diagnostics: &mut Vec<Diagnostic>,
    check: &mut CheckBatch,
) -> Program {
    let mut loader = Loader {
        program: Program::default(),
        by_path: HashMap::default(),
        pending: Vec::new(),
        read_ahead: HashMap::default(),
        ready: Ready::default(),
    };
    for root in roots {
        let path = normalize(root);
        if loader.by_path.contains_key(&path) {
            continue;
        }
        loader.load_root(map, files, path, search_path, diagnostics, check);
    }
    // Breadth-first: modules in the order they were added (linking one may
    // add more), each one's imports linked in turn.
    let mut next = 0;
    while next < loader.program.modules.len() {
        let index = next;
        next += 1;
        if loader.ready.is_linked(index) {
            continue;
        }
        let resolved = match loader.pending[index].take() {
            Some(resolved) => resolved,
            None => loader.resolve_imports(files, index, search_path),
        };
        loader.link(map, index, resolved, diagnostics);
        loader
            .ready
            .linked(&loader.program, map, index, diagnostics, check);
    }
    loader
        .ready
        .finish(&loader.program, map, diagnostics, check);
    report_import_cycles(&loader.program, diagnostics);
    loader.program
}

impl Loader {
    /// Loads the root `path` (E0205 when it can't be read): checked at once
    /// when its imports are loaded already, else left for the
    /// breadth-first pass with its imports' texts read ahead.
    fn load_root(
        &mut self,
        map: &mut SourceMap,
        files: &dyn Files,
        path: PathBuf,
        search_path: &[PathBuf],
        diagnostics: &mut Vec<Diagnostic>,
        check: &mut CheckBatch,
    ) {
        let text = match self.read_ahead.remove(&path) {
            Some(text) => Ok(text),
            None => files.read(&path),
        };
        match text {
            Ok(text) => {
                let id = self.add(map, &path, text, diagnostics);
                // A root whose imports are loaded already is checked now,
                // while its tree is in the cache; the others wait for the
                // breadth-first pass, which keeps the files' order.
                let index = self.program.by_file[id.0 as usize];
                let resolved = self.resolve_imports(files, index, search_path);
                let all_loaded = resolved.iter().all(|(_, found)| match found {
                    Resolved::Found { path, .. } => self.by_path.contains_key(path),
                    _ => true,
                });
                if all_loaded {
                    self.link(map, index, resolved, diagnostics);
                    self.ready
                        .linked(&self.program, map, index, diagnostics, check);
                } else {
                    for (_, found) in &resolved {
                        if let Resolved::Found { path, text } = found {
                            if !self.by_path.contains_key(path) {
                                self.read_ahead.insert(path.clone(), text.clone());
                            }
                        }
                    }
                    self.pending[index] = Some(resolved);
                }
            }
            Err(error) => {
                let reason = match error {
                    crate::files::FileError::NotFound => "no such file".to_string(),
                    crate::files::FileError::Unreadable(reason) => reason,
                };
                diagnostics.push(Diagnostic::error(
                    codes::E0205,
                    format!("could not read `{}`: {reason}", path.display()),
                ));
            }
        }
    }
}

/// The state of loading.
struct Loader {
    program: Program,
    by_path: HashMap<PathBuf, FileId>,
    /// By module: a root's imports, found before the files they name were
    /// loaded, waiting for the breadth-first pass.
    pending: Vec<Option<Vec<(ast::Import, Resolved)>>>,
    /// Texts those imports read, for when their file's turn as a root comes.
    read_ahead: HashMap<PathBuf, Arc<str>>,
    ready: Ready,
}

impl Loader {
    fn add(
        &mut self,
        map: &mut SourceMap,
        path: &Path,
        text: Arc<str>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> FileId {
        let id = add_module(map, &mut self.program, path, text, diagnostics);
        self.by_path.insert(path.to_path_buf(), id);
        self.pending.push(None);
        self.ready.added();
        id
    }

    /// Finds the files module `index` imports, in the order it imports them.
    fn resolve_imports(
        &self,
        files: &dyn Files,
        index: usize,
        search_path: &[PathBuf],
    ) -> Vec<(ast::Import, Resolved)> {
        let module = &self.program.modules[index];
        let folder = module.path.parent().unwrap_or(Path::new(""));
        module
            .ast
            .items
            .iter()
            .filter_map(|item| match item {
                ast::Item::Import(import) => Some(import),
                _ => None,
            })
            .map(|import| {
                let found = files.resolve_import(&import.name.name, folder, search_path);
                (import.clone(), found)
            })
            .collect()
    }

    /// Records module `index`'s imports, loading the files not loaded yet,
    /// and reports the ones that could not be found or read.
    fn link(
        &mut self,
        map: &mut SourceMap,
        index: usize,
        resolved: Vec<(ast::Import, Resolved)>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        for (import, found) in resolved {
            let name = &import.name.name;
            let target = match found {
                Resolved::Found { path, text } => match self.by_path.get(&path) {
                    Some(&id) => Some(id),
                    None => Some(self.add(map, &path, text, diagnostics)),
                },
                Resolved::NotFound { tried } => {
                    let places: Vec<String> =
                        tried.iter().map(|p| format!("`{}`", p.display())).collect();
                    diagnostics.push(
                        Diagnostic::error(
                            codes::E0201,
                            format!("cannot find `{name}.ss` to import"),
                        )
                        .with_primary(import.name.span, "no such file")
                        .with_note(format!("looked for {}", places.join(", then ")))
                        .with_help(
                            "check the spelling, or give the folder that holds it with `-I DIR`",
                        ),
                    );
                    None
                }
                Resolved::Unreadable { path, reason } => {
                    diagnostics.push(
                        Diagnostic::error(
                            codes::E0205,
                            format!("could not read `{}`: {reason}", path.display()),
                        )
                        .with_primary(import.name.span, "imported here"),
                    );
                    None
                }
            };
            if let Some(target) = target {
                self.program.modules[index]
                    .imports
                    .entry(*name)
                    .or_insert(target);
            }
        }
    }
}

/// Which modules can be checked: a module whose imports are linked waits
/// for the modules it imports to be checked.
#[derive(Default)]
struct Ready {
    /// By module: whether its imports are linked.
    linked: Vec<bool>,
    /// By module: whether it was handed to the checker.
    checked: Vec<bool>,
    /// By module: how many of the modules it imports are not checked yet.
    waiting_for: Vec<usize>,
    /// By module: the linked modules waiting for it.
    waiters: Vec<Vec<usize>>,
}

impl Ready {
    fn added(&mut self) {
        self.linked.push(false);
        self.checked.push(false);
        self.waiting_for.push(0);
        self.waiters.push(Vec::new());
    }

    fn is_linked(&self, index: usize) -> bool {
        self.linked[index]
    }

    /// Module `index`'s imports are linked: checks it now when the modules
    /// it imports are checked, and then every module that waited only for it.
    fn linked(
        &mut self,
        program: &Program,
        map: &SourceMap,
        index: usize,
        diagnostics: &mut Vec<Diagnostic>,
        check: &mut CheckBatch,
    ) {
        self.linked[index] = true;
        let module = &program.modules[index];
        // Importing itself is a cycle (reported), not something to wait for;
        // two import names may find one file.
        let mut targets: Vec<usize> = module
            .imports
            .values()
            .map(|target| program.by_file[target.0 as usize])
            .filter(|&target| target != index && !self.checked[target])
            .collect();
        targets.sort_unstable();
        targets.dedup();
        let waiting = targets.len();
        for target in targets {
            self.waiters[target].push(index);
        }
        self.waiting_for[index] = waiting;
        if waiting > 0 {
            return;
        }
        let mut now = vec![index];
        while let Some(module) = now.pop() {
            self.checked[module] = true;
            check(program, map, &[module], diagnostics);
            for waiter in std::mem::take(&mut self.waiters[module]) {
                self.waiting_for[waiter] -= 1;
                if self.waiting_for[waiter] == 0 {
                    now.push(waiter);
                }
            }
        }
    }

    /// Checks what is left (import cycles and the modules importing them) in one batch.
    fn finish(
        &mut self,
        program: &Program,
        map: &SourceMap,
        diagnostics: &mut Vec<Diagnostic>,
        check: &mut CheckBatch,
    ) {
        let left: Vec<usize> = (0..self.checked.len())
            .filter(|&i| !self.checked[i])
            .collect();
        if !left.is_empty() {
            check(program, map, &left, diagnostics);
        }
    }
}

fn add_module(
    map: &mut SourceMap,
    program: &mut Program,
    path: &Path,
    text: Arc<str>,
    diagnostics: &mut Vec<Diagnostic>,
) -> FileId {
    let file = map.add(path.display().to_string(), text);
    let parsed = syntax::parse(file, map.text(file));
    let parse_errors = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| d.primary.as_ref().map(|l| l.span))
        .collect();
    diagnostics.extend(parsed.diagnostics);
    let names = top_level_names(&parsed.file, diagnostics);
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let slot = file.0 as usize;
    if program.by_file.len() <= slot {
        program.by_file.resize(slot + 1, usize::MAX);
    }
    program.by_file[slot] = program.modules.len();
    program.modules.push(Module {
        file,
        path: path.to_path_buf(),
        name,
        ast: parsed.file,
        imports: HashMap::default(),
        names,
        parse_errors,
    });
    file
}

/// Maps each top-level name to its first item; reports the later ones (E0203).
pub(crate) fn top_level_names(
    file: &ast::File,
    diagnostics: &mut Vec<Diagnostic>,
) -> HashMap<Name, usize> {
    let mut names: HashMap<Name, usize> =
        HashMap::with_capacity_and_hasher(file.items.len(), Default::default());
    for (index, item) in file.items.iter().enumerate() {
        let name = item.name();
        if name.name.is_empty() {
            continue;
        }
        // One hash per name: the entry both finds an earlier one and makes room.
        match names.entry(name.name) {
            std::collections::hash_map::Entry::Occupied(first) => {
                let first = file.items[*first.get()].name();
                diagnostics.push(
                    Diagnostic::error(
                        codes::E0203,
                        format!("the name `{}` is declared twice", name.name),
                    )
                    .with_primary(name.span, "declared again here")
                    .with_secondary(first.span, "first declared here")
                    .with_help("rename or remove one of them"),
                );
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(index);
            }
        }
    }
    names
}

/// Reports each import cycle once, at the import that closes it, with the chain.
fn report_import_cycles(program: &Program, diagnostics: &mut Vec<Diagnostic>) {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    let mut state = vec![State::New; program.modules.len()];
    let mut reported: HashSet<Vec<usize>> = HashSet::default();
    for start in 0..program.modules.len() {
        if state[start] != State::New {
            continue;
        }
        // Iterative depth-first search; `stack` holds (module, next import to visit).
        let mut stack: Vec<(usize, Vec<(Name, usize)>)> =
            vec![(start, sorted_imports(program, start))];
        state[start] = State::Open;
        while let Some((module, pending)) = stack.last_mut() {
            let module = *module;
            let Some((_, target)) = pending.pop() else {
                state[module] = State::Done;
                stack.pop();
                continue;
            };
            match state[target] {
                State::New => {
                    state[target] = State::Open;
                    let imports = sorted_imports(program, target);
                    stack.push((target, imports));
                }
                State::Open => {
                    let from = stack.iter().position(|(m, _)| *m == target).unwrap_or(0);
                    let chain: Vec<usize> = stack[from..].iter().map(|(m, _)| *m).collect();
                    let mut key = chain.clone();
                    key.sort_unstable();
                    if reported.insert(key) {
                        diagnostics.push(cycle_diagnostic(program, &chain));
                    }
                }
                State::Done => {}
            }
        }
    }
}

fn sorted_imports(program: &Program, module: usize) -> Vec<(Name, usize)> {
    let mut imports: Vec<(Name, usize)> = program.modules[module]
        .imports
        .iter()
        .map(|(name, file)| (*name, program.by_file[file.0 as usize]))
        .collect();
    // Popped from the end: visit in name order.
    imports.sort_by(|a, b| b.cmp(a));
    imports
}

fn cycle_diagnostic(program: &Program, chain: &[usize]) -> Diagnostic {
    // Reported at the first file's import that starts the cycle.
    let module = &program.modules[chain[0]];
    let next = program.modules[chain[1 % chain.len()]].file;
    let span = module
        .ast
        .items
        .iter()
        .find_map(|item| match item {
            ast::Item::Import(i) if module.imports.get(&i.name.name) == Some(&next) => {
                Some(i.name.span)
            }
            _ => None,
        })
        .unwrap_or(module.ast.span);
    let first = &program.modules[chain[0]];
    let mut diagnostic = if chain.len() == 1 {
        Diagnostic::error(
            codes::E0202,
            format!("`{}` imports itself", first.path.display()),
        )
    } else {
        Diagnostic::error(
            codes::E0202,
            format!(
                "import cycle: `{}` imports itself through other files",
                first.path.display()
            ),
        )
    };
    diagnostic = diagnostic.with_primary(span, "this import starts the cycle");
    for (i, &m) in chain.iter().enumerate() {
        let next = chain[(i + 1) % chain.len()];
        diagnostic = diagnostic.with_note(format!(
            "`{}` imports `{}`",
            program.modules[m].path.display(),
            program.modules[next].path.display()
        ));
    }
    diagnostic.with_help("move what the files share into a file that imports neither of them")
}

#[cfg(test)]
mod tests {
    use crate::tests::check_files;
    use expect_test::expect;

    #[test]
    fn missing_imports_say_where_they_looked() {
        check_files(
            &[("app/main.ss", "import vision\ndim A = vision.D\n")],
            expect![[r#"
            app/main.ss:1:8 E0201 cannot find `vision.ss` to import [`vision`: no such file]
              note: looked for `app/vision.ss`
              help: check the spelling, or give the folder that holds it with `-I DIR`
        "#]],
        );
    }

    #[test]
    fn a_file_reached_twice_is_read_once() {
        check_files(
            &[
                ("main.ss", "import a\nimport b\ndim M = a.A + b.B\n"),
                ("a.ss", "import c\ndim A = c.C\n"),
                ("b.ss", "import c\ndim B = c.C\n"),
                ("c.ss", "dim C = 0\n"),
            ],
            expect![[r#"
                c.ss:1:9 E0305 dim `C` is 0, not a whole number of at least 1 [`0`: this is 0]
                  note: a dim is a size, so its value must be at least 1
            "#]],
        );
    }

    #[test]
    fn names_are_declared_once_per_file() {
        check_files(
            &[
                (
                    "a.ss",
                    "dim D = 1\nfn D(x: Real) -> Real = x\nrecord D { x: [n] }\n",
                ),
                ("b.ss", "dim D = 2\n"),
            ],
            expect![[r#"
                a.ss:2:4 E0203 the name `D` is declared twice [`D`: declared again here]
                  also `D`: first declared here
                  help: rename or remove one of them
                a.ss:3:8 E0203 the name `D` is declared twice [`D`: declared again here]
                  also `D`: first declared here
                  help: rename or remove one of them
            "#]],
        );
    }

    #[test]
    fn a_file_is_checked_after_the_files_it_imports() {
        // `main.ss` comes first but needs `lib.ss`'s dims: it waits for them.
        check_files(
            &[
                ("main.ss", "import lib\ndim M = lib.D - 8\n"),
                ("lib.ss", "dim D = 8\n"),
            ],
            expect![[r#"
                main.ss:2:9 E0305 dim `M` is 0, not a whole number of at least 1 [`lib.D - 8`: this is 0]
                  note: a dim is a size, so its value must be at least 1
            "#]],
        );
    }

    #[test]
    fn alias_lengths_and_broken_aliases_carry_across_files() {
        check_files(
            &[
                (
                    "a.ss",
                    "dim A0 = [x x x x x x x x x x x x x x x x]\ndim A1 = [A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0]\ndim C = [C 1]\n",
                ),
                (
                    "b.ss",
                    "import a\ndim B = [a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1 a.A1]\ndim U = [a.C 2]\nextern fn f(x: U) -> [n] = \"m.f\"\n",
                ),
            ],
            expect![[r#"
                a.ss:3:5 E2201 shape alias `C` is defined in terms of itself [`C`: this alias contains itself]
                  also `C`: `C` uses `C`
                  note: `C` = [C 1] uses `C`
                  help: an alias may use other aliases, but the chain must end in axes
                b.ss:2:5 E2203 shape alias `B` stands for more than 4096 axes [`B`: 4352 axes once its aliases are replaced]
                  help: an alias that uses another alias twice doubles its length at each step; name fewer axes
            "#]],
        );
    }

    #[test]
    fn a_body_that_misses_its_return_type_is_told_once_across_files() {
        check_files(
            &[
                ("a.ss", "fn bad(x: [n]) -> [2*n] = x\n"),
                ("main.ss", "import a\nfn g(y: [m]) -> [2*m] = a.bad(y)\n"),
            ],
            expect![[r#"
                a.ss:1:27 E0401 the body's value doesn't fit the return type [`x`: expected `[2*n]`, found `[n]`]
                  also `[2*n]`: return type declared here
                  note: axis 1 is `n`, but `2*n` is expected
            "#]],
        );
    }

    /// Also the test of a cycle of dims through an import (`dims.rs`): the
    /// cycle is told once, in the file that starts it.
    #[test]
    fn files_on_an_import_cycle_are_checked_together() {
        check_files(
            &[
                ("a.ss", "import b\ndim A = b.B + 1\n"),
                ("b.ss", "import a\ndim B = a.A + 1\n"),
                ("c.ss", "import a\ndim C = a.A - 1\n"),
            ],
            expect![[r#"
                a.ss:1:8 E0202 import cycle: `a.ss` imports itself through other files [`b`: this import starts the cycle]
                  note: `a.ss` imports `b.ss`
                  note: `b.ss` imports `a.ss`
                  help: move what the files share into a file that imports neither of them
                a.ss:2:5 E0304 dim `A` is defined in terms of itself [`A`: this dim's value depends on itself]
                  also `b.B`: `A` uses `B`
                  also `a.A`: `B` uses `A`
                  note: `A` = b.B + 1 uses `B`
                  note: `B` = a.A + 1 uses `A`
                  help: give one dim of the chain a value that doesn't depend on the others
            "#]],
        );
    }
}
