//! The codes table against the book: the error index
//! (`docs/shapescript/errors.md`) is generated from the table
//! (`UPDATE_DOCS=1` rewrites it). That no crate writes a code as a string
//! is `crates/uitest/tests/code_literals.rs`; that each example in the
//! explanations does what it says, `crates/shapescript/tests/explain_examples.rs`.

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
    uitest::support::check_generated_page(
        "docs/shapescript/errors.md",
        &error_index(),
        "cargo test -p check --test codes",
    );
}
