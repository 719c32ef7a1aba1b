//! The codes table against the sources and the book: no ShapeScript crate
//! writes a code as a string literal (each is a typed constant of
//! `check::codes`), and the book's error index (`docs/shapescript/errors.md`)
//! is generated from the table (`UPDATE_DOCS=1` rewrites it).

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `"E0402"`-like or `"H2201"`-like string literal in the text.
fn code_literals(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for (i, _) in text.match_indices('"') {
        let code = &bytes[i + 1..(i + 7).min(bytes.len())];
        if code.len() == 6
            && (code[0] == b'E' || code[0] == b'H')
            && code[1..5].iter().all(u8::is_ascii_digit)
            && code[5] == b'"'
        {
            out.push(String::from_utf8_lossy(&code[..5]).into_owned());
        }
    }
    out
}

#[test]
fn no_code_is_written_as_a_string_outside_the_tables() {
    let root = workspace_root();
    let mut files = Vec::new();
    for krate in ["check", "syntax", "pygen", "lsp", "shapescript"] {
        rust_files(&root.join("crates").join(krate).join("src"), &mut files);
    }
    let mut literals = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("codes.rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests compare with codes as the goldens write them.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        for code in code_literals(text) {
            literals.push(format!("{code} in {}", file.display()));
        }
    }
    assert!(
        literals.is_empty(),
        "write these as `codes::EXXXX` constants:\n{}",
        literals.join("\n")
    );
    assert_eq!(code_literals(r#"let c = "E0402";"#), ["E0402"]);
}

/// The error index as the table says it should be.
fn error_index() -> String {
    diag::error_page(
        "# Error index\n\n\
         <!-- Generated from crates/check/src/codes.rs by `UPDATE_DOCS=1 cargo test -p check --test codes`; do not edit. -->\n\n\
         Every diagnostic code of `shapescript check`, with what it means, a wrong\n\
         example and its fix. `shapescript explain CODE` prints the same text.\n\n",
        check::codes::all(),
    )
}

#[test]
fn the_book_lists_every_code() {
    let path = workspace_root().join("docs/shapescript/errors.md");
    let expected = error_index();
    if std::env::var("UPDATE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "{} is out of date: run `UPDATE_DOCS=1 cargo test -p check --test codes`",
        path.display()
    );
}
