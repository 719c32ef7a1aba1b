//! The tidy test: house rules every Rust file of the workspace must follow,
//! checked over `crates/*/src` and `crates/*/tests`. Every file opens with a
//! `//!` line; no ignored or panic-expecting tests anywhere; no import cycle
//! among the modules of a crate (`modules.rs`); no function outside tests
//! longer than [`functions::LIMIT`] lines (`functions.rs`); no diagnostic
//! code written as a string outside its table (`codes.rs`). Debugging and
//! unfinished-code macros are Clippy's (`[workspace.lints.clippy]` in the
//! root `Cargo.toml`). Reads files, changes nothing.

mod codes;
mod functions;
mod lex;
mod modules;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use lex::{child_module_dir, code_only, line_of, test_items, without_test_code, CFG_TEST};

// The needles are assembled so that this file never contains them itself.
const FORBIDDEN_EVERYWHERE: [&str; 2] = [concat!("#[", "ignore"), concat!("#[", "should_panic")];

/// The Rust files of the workspace's crates and which of them are test code.
struct Workspace {
    root: PathBuf,
    crates: Vec<PathBuf>,
    /// Every file under `crates/*/src` and `crates/*/tests`, sorted, with its text.
    files: Vec<(PathBuf, String)>,
    /// Folders and files that hold only test code: `tests/` folders, and the
    /// files of modules declared `#[cfg(test)] mod name;` with their children.
    test_paths: BTreeSet<PathBuf>,
}

impl Workspace {
    fn read() -> Workspace {
        let root = uitest::workspace_root();
        let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
            .expect("crates folder")
            .flatten()
            .map(|e| e.path())
            .collect();
        crates.sort();
        let mut paths = Vec::new();
        let mut test_paths = BTreeSet::new();
        for krate in &crates {
            rust_files(&krate.join("src"), &mut paths);
            rust_files(&krate.join("tests"), &mut paths);
            test_paths.insert(krate.join("tests"));
        }
        paths.sort();
        assert!(
            paths.len() > 10,
            "found only {} Rust files under {}",
            paths.len(),
            root.display()
        );
        let files: Vec<(PathBuf, String)> = paths
            .into_iter()
            .map(|f| {
                let text = fs::read_to_string(&f).unwrap_or_default();
                (f, text)
            })
            .collect();
        for (file, text) in &files {
            for module in test_items(&code_only(text)).1 {
                let dir = child_module_dir(file);
                test_paths.insert(dir.join(&module));
                test_paths.insert(dir.join(format!("{module}.rs")));
            }
        }
        Workspace {
            root,
            crates,
            files,
            test_paths,
        }
    }

    fn is_test_file(&self, file: &Path) -> bool {
        self.test_paths.iter().any(|d| file.starts_with(d))
    }

    /// `file` as reports print it: relative to the workspace root.
    /// The files under a crate's `src` that hold code other than tests,
    /// with their texts.
    fn library_files(&self) -> impl Iterator<Item = &(PathBuf, String)> {
        self.files.iter().filter(|(file, _)| {
            let in_src = self.crates.iter().any(|k| file.starts_with(k.join("src")));
            in_src && !self.is_test_file(file)
        })
    }

    fn shown(&self, file: &Path) -> String {
        file.strip_prefix(&self.root)
            .unwrap_or(file)
            .display()
            .to_string()
    }
}

/// Offenders in one file, as `path:line: problem`.
fn check_file(shown: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let first = text.lines().position(|l| !l.trim().is_empty());
    if first.is_none_or(|i| {
        !text
            .lines()
            .nth(i)
            .unwrap_or_default()
            .trim_start()
            .starts_with("//!")
    }) {
        let line = first.map_or(1, |i| i + 1);
        problems.push(format!(
            "{shown}:{line}: the file must open with a `//!` line saying what it owns"
        ));
    }
    let code = code_only(text);
    for needle in FORBIDDEN_EVERYWHERE {
        for (offset, _) in code.match_indices(needle) {
            let line = line_of(text, offset);
            problems.push(format!(
                "{shown}:{line}: `{needle}]`: tests may not be ignored or expect panics"
            ));
        }
    }
    problems
}

fn rust_files(folder: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Fails listing every problem, one per line (a report may span lines).
fn assert_none(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} {what}:\n{}\n",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn workspace_is_tidy() {
    let workspace = Workspace::read();
    let problems: Vec<String> = workspace
        .files
        .iter()
        .flat_map(|(file, text)| check_file(&workspace.shown(file), text))
        .collect();
    assert_none("tidy problems", &problems);
}

#[test]
fn no_crate_has_a_module_cycle() {
    let workspace = Workspace::read();
    let mut cycles = Vec::new();
    for krate in &workspace.crates {
        for root in ["lib.rs", "main.rs"] {
            let root = krate.join("src").join(root);
            if !root.exists() {
                continue;
            }
            let read = |file: &Path| fs::read_to_string(file).ok();
            let modules = modules::crate_modules(&root, &read);
            cycles.extend(modules::cycles(
                &modules,
                &workspace.shown(&root),
                &|file| workspace.shown(file),
            ));
        }
    }
    assert_none(
        "module cycles (make one module of each depend on the other, not both ways)",
        &cycles,
    );
}

#[test]
fn no_function_is_too_long() {
    let workspace = Workspace::read();
    let mut problems = Vec::new();
    for (file, text) in workspace.library_files() {
        let code = without_test_code(&code_only(text));
        let shown = workspace.shown(file);
        problems.extend(functions::long_functions(&shown, &code, functions::LIMIT));
    }
    assert_none("functions too long (split them)", &problems);
}

#[test]
fn codes_are_constants_outside_their_tables() {
    let workspace = Workspace::read();
    let mut found = Vec::new();
    for (file, text) in workspace.library_files() {
        // The tables declare the codes; test code compares with goldens.
        if file.ends_with("codes.rs") {
            continue;
        }
        let shown = workspace.shown(file);
        for code in codes::code_literals(&codes::non_test_code(text)) {
            found.push(format!("{shown}: \"{code}\""));
        }
    }
    assert_none(
        "codes written as strings (use the constants of the language's table: `codes::E0402`, `codes::E_DIM_001`)",
        &found,
    );
}

/// Runs the per-file checks on `text` and compares the offenders.
fn check(text: &str, expect: expect_test::Expect) {
    expect.assert_eq(&check_file("x.rs", text).join("\n"));
}

#[test]
fn missing_module_comment_is_reported_at_its_line() {
    check(
        "\n\n// a plain comment\nfn f() {}\n",
        expect_test::expect!["x.rs:3: the file must open with a `//!` line saying what it owns"],
    );
    check(
        "",
        expect_test::expect!["x.rs:1: the file must open with a `//!` line saying what it owns"],
    );
    check("\n//! Owns f.\nfn f() {}\n", expect_test::expect![""]);
}

#[test]
fn ignored_and_panic_expecting_tests_are_reported_everywhere() {
    let [ignore, should_panic] = FORBIDDEN_EVERYWHERE;
    let text = format!(
        "//! Tests.\n{CFG_TEST}\nmod tests {{\n    {ignore}]\n    {should_panic}(expected = \"x\")]\n    \
         fn t() {{ let s = \"{ignore}]\"; }}\n}}\n"
    );
    check(
        &text,
        expect_test::expect![[r#"
            x.rs:4: `#[ignore]`: tests may not be ignored or expect panics
            x.rs:5: `#[should_panic]`: tests may not be ignored or expect panics"#]],
    );
}

#[test]
fn test_modules_declared_elsewhere_are_found() {
    let text = format!("//! Owns it.\n{CFG_TEST}\nmod tests;\n{CFG_TEST}\npub mod helpers;\n");
    assert_eq!(test_items(&code_only(&text)).1, ["tests", "helpers"]);
    assert_eq!(
        child_module_dir(Path::new("a/src/render/human.rs")),
        Path::new("a/src/render/human")
    );
    assert_eq!(
        child_module_dir(Path::new("a/src/lib.rs")),
        Path::new("a/src")
    );
}

#[test]
fn code_only_blanks_comments_strings_and_chars_but_not_lifetimes() {
    let text = "fn f<'a>(x: &'a str) { g(\"}\", '{', r#\"//\"#); } // {\n/* { */ let c = '\\'';\n";
    let want = "fn f<'a>(x: &'a str) { g(\" \", ' ', r#\"  \"#); }     \n        let c = '  ';\n";
    assert_eq!(code_only(text), want);
}
