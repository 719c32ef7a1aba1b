//! The user docs name every built-in the checker accepts: each name of
//! `check::hir::Builtin` appears in a code span of
//! docs/shapescript/broadcasting.md or docs/shapescript/patterns.md, so a
//! new built-in can't land undocumented.

use std::collections::BTreeSet;

use check::hir::Builtin;

/// The words inside the `code spans` of a Markdown text.
fn code_words(text: &str, out: &mut BTreeSet<String>) {
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 1 {
            let words = span.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            out.extend(words.filter(|w| !w.is_empty()).map(str::to_string));
        }
    }
}

#[test]
fn every_builtin_is_in_the_docs() {
    let docs = uitest::support::workspace_root().join("docs/shapescript");
    let mut words = BTreeSet::new();
    for page in ["broadcasting.md", "patterns.md"] {
        let text = std::fs::read_to_string(docs.join(page)).expect("the docs page");
        code_words(&text, &mut words);
    }
    let missing: Vec<&str> = Builtin::ALL
        .iter()
        .map(|b| b.name())
        .filter(|name| !words.contains(*name))
        .collect();
    assert!(
        missing.is_empty(),
        "built-ins missing from the docs: {missing:?}"
    );
}
