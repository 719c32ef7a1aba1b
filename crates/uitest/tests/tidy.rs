//! The tidy test: house rules every Rust file of the workspace must follow,
//! checked over `crates/*/src` and `crates/*/tests`. Every file opens with a
//! `//!` line; no debugging or unfinished-code macros outside test code; no
//! ignored or panic-expecting tests anywhere. Reads files, changes nothing.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

// The needles are assembled so that this file never contains them itself.
const FORBIDDEN_OUTSIDE_TESTS: [&str; 3] = [
    concat!("dbg", "!("),
    concat!("todo", "!("),
    concat!("unimplemented", "!("),
];
const FORBIDDEN_EVERYWHERE: [&str; 2] = [concat!("#[", "ignore"), concat!("#[", "should_panic")];
const CFG_TEST: &str = concat!("#[cfg", "(test)]");

/// The text with comments and the insides of string and char literals
/// blanked out (newlines kept), so needles are found in code only and byte
/// offsets still match the original.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(bytes.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < bytes.len() {
                if bytes[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if bytes[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if bytes[i] == b'r' && (i == 0 || !is_ident(bytes[i - 1]) || raw_prefix(bytes, i)) {
            let hashes = rest[1..].iter().take_while(|&&b| b == b'#').count();
            if rest.get(1 + hashes) == Some(&b'"') {
                let mut closing = vec![b'"'];
                closing.extend(std::iter::repeat_n(b'#', hashes));
                let body = i + 2 + hashes;
                let end = find(bytes, body, &closing).map_or(bytes.len(), |p| p + closing.len());
                blank(&mut out, body, end.saturating_sub(closing.len()));
                i = end;
            } else {
                i += 1;
            }
        } else if bytes[i] == b'"' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if bytes[i] == b'\'' {
            i = char_literal_end(bytes, i).map_or(i + 1, |end| {
                blank(&mut out, i + 1, end - 1);
                end
            });
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only whole chars are blanked")
}

/// `br"..."` and `cr"..."`: the `r` follows a one-letter prefix.
fn raw_prefix(bytes: &[u8], i: usize) -> bool {
    matches!(bytes[i - 1], b'b' | b'c')
        && (i < 2 || !(bytes[i - 2].is_ascii_alphanumeric() || bytes[i - 2] == b'_'))
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// The end (past the closing quote) of a char literal starting at `i`, or
/// `None` for a lifetime or label such as `'a`.
fn char_literal_end(bytes: &[u8], i: usize) -> Option<usize> {
    let next = *bytes.get(i + 1)?;
    if next == b'\\' {
        let mut j = i + 3;
        while j < bytes.len() && bytes[j] != b'\'' && bytes[j] != b'\n' {
            j += 1;
        }
        return (bytes.get(j) == Some(&b'\'')).then_some(j + 1);
    }
    let width = match next {
        b if b < 0x80 => 1,
        b if b >= 0xF0 => 4,
        b if b >= 0xE0 => 3,
        _ => 2,
    };
    (bytes.get(i + 1 + width) == Some(&b'\'')).then_some(i + 2 + width)
}

/// Byte ranges of items under `#[cfg(test)]` in code-only text, and the names
/// of test modules declared as `mod name;` (their files are test code).
fn test_items(code: &str) -> (Vec<(usize, usize)>, Vec<String>) {
    let bytes = code.as_bytes();
    let (mut ranges, mut modules) = (Vec::new(), Vec::new());
    for (start, _) in code.match_indices(CFG_TEST) {
        let mut depth = 0usize;
        let mut j = start + CFG_TEST.len();
        while j < bytes.len() {
            match bytes[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                b';' if depth == 0 => {
                    let item = code[start + CFG_TEST.len()..j].trim();
                    if let Some(name) = item
                        .strip_prefix("mod ")
                        .or_else(|| item.strip_prefix("pub mod "))
                    {
                        modules.push(name.trim().to_string());
                    }
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        ranges.push((start, j));
    }
    (ranges, modules)
}

/// Where a module's child modules live: `a/b.rs` → `a/b/`, `a/mod.rs` → `a/`.
fn child_module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(""));
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("lib" | "main" | "mod") => parent.to_path_buf(),
        Some(stem) => parent.join(stem),
        None => parent.to_path_buf(),
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Offenders in one file, as `path:line: problem`. `test_file` is true for
/// files that are wholly test code.
fn check_file(shown: &str, text: &str, test_file: bool) -> Vec<String> {
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
    let (tests, _) = test_items(&code);
    let in_test =
        |offset: usize| test_file || tests.iter().any(|&(s, e)| s <= offset && offset <= e);
    let preceded_by_ident = |offset: usize| {
        code[..offset]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
    };
    for needle in FORBIDDEN_OUTSIDE_TESTS {
        for (offset, _) in code.match_indices(needle) {
            if !in_test(offset) && !preceded_by_ident(offset) {
                let line = line_of(text, offset);
                problems.push(format!("{shown}:{line}: `{needle}` outside test code"));
            }
        }
    }
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

#[test]
fn workspace_is_tidy() {
    let root = uitest::workspace_root();
    let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.sort();
    let mut sources = Vec::new();
    let mut test_folders = Vec::new();
    for krate in &crates {
        rust_files(&krate.join("src"), &mut sources);
        rust_files(&krate.join("tests"), &mut sources);
        test_folders.push(krate.join("tests"));
    }
    sources.sort();
    assert!(
        sources.len() > 10,
        "found only {} Rust files under {}",
        sources.len(),
        root.display()
    );

    let texts: Vec<String> = sources
        .iter()
        .map(|f| fs::read_to_string(f).unwrap_or_default())
        .collect();
    // Files of modules declared `#[cfg(test)] mod name;` are test code, with their children.
    let mut test_dirs: BTreeSet<PathBuf> = test_folders.into_iter().collect();
    for (file, text) in sources.iter().zip(&texts) {
        for module in test_items(&code_only(text)).1 {
            let dir = child_module_dir(file);
            test_dirs.insert(dir.join(&module));
            test_dirs.insert(dir.join(format!("{module}.rs")));
        }
    }
    let mut problems = Vec::new();
    for (file, text) in sources.iter().zip(&texts) {
        let test_file = test_dirs.iter().any(|d| file.starts_with(d));
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        problems.extend(check_file(&shown, text, test_file));
    }
    assert!(
        problems.is_empty(),
        "{} tidy problems:\n{}\n",
        problems.len(),
        problems.join("\n")
    );
}

/// Runs the per-file checks on `text` as a non-test file and compares the offenders.
fn check(text: &str, expect: expect_test::Expect) {
    expect.assert_eq(&check_file("x.rs", text, false).join("\n"));
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
fn macros_are_allowed_only_in_test_code_and_text() {
    let [dbg, todo, _] = FORBIDDEN_OUTSIDE_TESTS;
    let text = format!(
        "//! Owns f.\nfn f() {{ {dbg}1); }}\n// {todo}) in a comment\nconst S: &str = \"{dbg}\";\nconst R: &str = r#\"{todo}\"#;\n\
         fn g(c: char) -> bool {{ c == '\"' || c == '{{' }}\nfn h<'a>(x: &'a str) {{ my_{dbg}x); }}\n\
         {CFG_TEST}\nmod tests {{\n    fn t() {{ {todo}); let _ = '}}'; }}\n}}\nfn after() {{ {todo}); }}\n"
    );
    check(
        &text,
        expect_test::expect![[r#"
            x.rs:2: `dbg!(` outside test code
            x.rs:12: `todo!(` outside test code"#]],
    );
    assert!(check_file("x.rs", &text, true).is_empty());
}

#[test]
fn ignored_and_panic_expecting_tests_are_reported_everywhere() {
    let [ignore, should_panic] = FORBIDDEN_EVERYWHERE;
    let text = format!("//! Tests.\n{CFG_TEST}\nmod tests {{\n    {ignore}]\n    {should_panic}(expected = \"x\")]\n    fn t() {{}}\n}}\n");
    let problems = check_file("x.rs", &text, true);
    expect_test::expect![[r#"
        [
            "x.rs:4: `#[ignore]`: tests may not be ignored or expect panics",
            "x.rs:5: `#[should_panic]`: tests may not be ignored or expect panics",
        ]
    "#]]
    .assert_debug_eq(&problems);
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
