//! No diagnostic code is written as a string literal outside its table: every
//! code a crate emits is a typed constant (`codes::E0402`,
//! `codes::E_DIM_001`) declared with `diag::codes!`, so a code without an
//! explanation cannot compile. Scans the non-test code of every crate's
//! `src/`; the tables themselves are the files named `codes.rs`.

use std::fs;
use std::path::{Path, PathBuf};

/// The ids that look like a code in a string literal: `"E0402"`, `"H2201"`,
/// `"E-DIM-001"`.
fn code_literals(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (quote, _) in text.match_indices('"') {
        let rest = &text[quote + 1..];
        let Some(end) = rest.find('"') else { break };
        let literal = &rest[..end];
        if is_code(literal) {
            out.push(literal);
        }
    }
    out
}

/// `E0402` and `H2201` (ShapeScript), `E-DIM-001` (SexpGPU).
fn is_code(text: &str) -> bool {
    let b = text.as_bytes();
    let shapescript =
        b.len() == 5 && matches!(b[0], b'E' | b'H') && b[1..].iter().all(u8::is_ascii_digit);
    let sexpgpu = text.starts_with("E-")
        && text.len() > 6
        && text[text.len() - 4..].starts_with('-')
        && text[text.len() - 3..].bytes().all(|c| c.is_ascii_digit())
        && text[2..text.len() - 4]
            .bytes()
            .all(|c| c.is_ascii_uppercase());
    shapescript || sexpgpu
}

/// The code of a file that is not unit-test code or a comment: the lines
/// before its `#[cfg(test)] mod tests { ... }` block, if it has one, without
/// comment lines (docs may show a code as users write it).
fn non_test_code(text: &str) -> String {
    let code = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
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
fn codes_are_constants_outside_their_tables() {
    let root = uitest::workspace_root();
    let mut files = Vec::new();
    for krate in fs::read_dir(root.join("crates")).unwrap().flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    let mut found = Vec::new();
    for file in &files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // Tables declare the codes; test modules compare with goldens.
        if matches!(name, "codes.rs" | "tests.rs")
            || file.components().any(|c| c.as_os_str() == "tests")
        {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        let code_text = non_test_code(&text);
        for code in code_literals(&code_text) {
            let shown = file.strip_prefix(&root).unwrap_or(file).display();
            found.push(format!("{shown}: \"{code}\""));
        }
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    assert!(
        found.is_empty(),
        "write these codes as constants of the language's table (`codes::E0402`, `codes::E_DIM_001`):\n{}",
        found.join("\n")
    );
}

#[test]
fn literals_that_look_like_codes_are_found() {
    let text = r#"error("E0402", x); f("E-DIM-001"); g("E-NOPE"); h("E04021"); i("H2201")"#;
    assert_eq!(code_literals(text), ["E0402", "E-DIM-001", "H2201"]);
}

#[test]
fn unit_tests_are_left_out() {
    let text =
        "/// \"E0401\"\nfn a() {}\n#[cfg(test)]\nmod tests {\n    const C: &str = \"E0402\";\n}\n";
    assert_eq!(code_literals(&non_test_code(text)), Vec::<&str>::new());
}
