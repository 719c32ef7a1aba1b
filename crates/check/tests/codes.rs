//! The codes table against the sources and the book: every code the
//! ShapeScript crates emit has an entry with text, and the book's error
//! index (`docs/shapescript/errors.md`) is generated from the table
//! (`UPDATE_DOCS=1` rewrites it).

use std::path::{Path, PathBuf};

use uitest::support::workspace_root;

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
fn every_emitted_code_has_an_entry() {
    let root = workspace_root();
    let mut files = Vec::new();
    for krate in ["check", "syntax", "shapescript"] {
        rust_files(&root.join("crates").join(krate).join("src"), &mut files);
    }
    let mut missing = Vec::new();
    let mut found = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests may name codes that don't exist, to test lookups.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        for code in code_literals(text) {
            found += 1;
            if check::codes::lookup(&code).is_none() {
                missing.push(format!("{code} in {}", file.display()));
            }
        }
    }
    assert!(found > 20, "the scan found only {found} codes");
    assert!(
        missing.is_empty(),
        "codes without an entry in codes.rs:\n{}",
        missing.join("\n")
    );
}

/// The error index as the table says it should be.
fn error_index() -> String {
    let mut out = String::from(
        "# Error index\n\n\
         <!-- Generated from crates/check/src/codes.rs by `UPDATE_DOCS=1 cargo test -p check --test codes`; do not edit. -->\n\n\
         Every diagnostic code of `shapescript check`, with what it means, a wrong\n\
         example and its fix. `shapescript explain CODE` prints the same text.\n\n",
    );
    for info in check::codes::all() {
        out.push_str(&format!(
            "- [{}](#{}): {}\n",
            info.code,
            info.code.to_lowercase(),
            info.title
        ));
    }
    for info in check::codes::all() {
        out.push_str(&format!(
            "\n## {}\n\n**{}**\n\n{}\n",
            info.code,
            info.title,
            info.explain.trim_end()
        ));
    }
    out
}

#[test]
fn the_book_lists_every_code() {
    let path = workspace_root().join("docs/shapescript/errors.md");
    let expected = error_index();
    if std::env::var("UPDATE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    for info in check::codes::all() {
        assert!(
            actual.contains(&format!("\n## {}\n", info.code)),
            "{} is missing from {}",
            info.code,
            path.display()
        );
    }
    assert!(
        actual == expected,
        "{} is out of date: run `UPDATE_DOCS=1 cargo test -p check --test codes`",
        path.display()
    );
}
