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
    let mut program = Program::default();
    let mut by_path: HashMap<PathBuf, FileId> = HashMap::default();
    let mut queue: Vec<FileId> = Vec::new();
    for root in roots {
        let path = normalize(root);
        if by_path.contains_key(&path) {
            continue;
        }
        match files.read(&path) {
            Ok(text) => {
                let id = add_module(map, &mut program, &path, text, diagnostics);
                by_path.insert(path, id);
                queue.push(id);
            }
            Err(error) => {
                let reason = match error {
                    crate::files::FileError::NotFound => "no such file".to_string(),
                    crate::files::FileError::Unreadable(reason) => reason,
                };
                diagnostics.push(Diagnostic::error(
                    "E0205",
                    format!("could not read `{}`: {reason}", path.display()),
                ));
            }
        }
    }
    let mut next = 0;
    while next < queue.len() {
        let file = queue[next];
        next += 1;
        let index = program.by_file[file.0 as usize];
        let folder = program.modules[index]
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let imports: Vec<ast::Import> = program.modules[index]
            .ast
            .items
            .iter()
            .filter_map(|item| match item {
                ast::Item::Import(import) => Some(import.clone()),
                _ => None,
            })
            .collect();
        for import in imports {
            let name = &import.name.name;
            let target = match files.resolve_import(name, &folder, search_path) {
                Resolved::Found { path, text } => match by_path.get(&path) {
                    Some(&id) => Some(id),
                    None => {
                        let id = add_module(map, &mut program, &path, text, diagnostics);
                        by_path.insert(path, id);
                        queue.push(id);
                        Some(id)
                    }
                },
                Resolved::NotFound { tried } => {
                    let places: Vec<String> =
                        tried.iter().map(|p| format!("`{}`", p.display())).collect();
                    diagnostics.push(
                        Diagnostic::error("E0201", format!("cannot find `{name}.ss` to import"))
                            .with_primary(import.name.span, "no such file")
                            .with_note(format!("looked for {}", places.join(", then ")))
                            .with_help("check the spelling, or give the folder that holds it with `-I DIR`"),
                    );
                    None
                }
                Resolved::Unreadable { path, reason } => {
                    diagnostics.push(
                        Diagnostic::error(
                            "E0205",
                            format!("could not read `{}`: {reason}", path.display()),
                        )
                        .with_primary(import.name.span, "imported here"),
                    );
                    None
                }
            };
            if let Some(target) = target {
                program.modules[index]
                    .imports
                    .entry(*name)
                    .or_insert(target);
            }
        }
    }
    report_import_cycles(&program, diagnostics);
    program
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
fn top_level_names(file: &ast::File, diagnostics: &mut Vec<Diagnostic>) -> HashMap<Name, usize> {
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
                        "E0203",
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
            "E0202",
            format!("`{}` imports itself", first.path.display()),
        )
    } else {
        Diagnostic::error(
            "E0202",
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
}
