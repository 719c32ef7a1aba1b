//! The codes table against the book: the error index
//! (`docs/shapescript/errors.md`) is generated from the table
//! (`UPDATE_DOCS=1` rewrites it). That no crate writes a code as a string
//! is `crates/uitest/tests/code_literals.rs`; that each example in the
//! explanations does what it says, `crates/shapescript/tests/explain_examples.rs`.

use uitest::support::workspace_root;

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
