//! The formatter's promises (`docs/shapescript/formatting.md`), on every
//! `.ss` file of the repository and on generated text: a file that parses
//! is formatted (never refused as unsafe), formatting twice changes nothing,
//! the tokens and comments are unchanged, and a file that does not parse is
//! refused with its diagnostics.

use diag::FileId;
use syntax::format::{format, lexical_content};
use uitest::formatting::{self, Formatter};

/// `syntax::format` as the shared checks see it.
fn formatter() -> Formatter<'static> {
    Formatter {
        format: &format,
        lexical_content: &|text| {
            lexical_content(text)
                .into_iter()
                .map(|(kind, text)| format!("{kind:?} {text}"))
                .collect()
        },
    }
}

fn check_promises(what: &str, text: &str) {
    // A text refused for its syntax has the parser's diagnostics.
    let formatted = formatting::check_promises(&formatter(), what, text);
    assert_eq!(
        formatted,
        syntax::parse(FileId(0), text).diagnostics.is_empty(),
        "{what}"
    );
}

/// The white space a gap may be given: none, spaces, a tab, line breaks
/// (which end statements, so many mutants no longer parse and are refused).
const GAPS: &[&str] = &["", " ", "   ", "\t", "\n", "\n\n\n", " \n  "];

/// `text` with the white space after its first tokens replaced by `gaps`.
fn respaced(text: &str, gaps: &[usize]) -> String {
    let lexed = syntax::lexer::lex(FileId(0), text);
    let mut out = String::new();
    let mut at = 0;
    let mut gaps = gaps.iter();
    for token in &lexed.tokens {
        let (start, end) = (token.start as usize, token.end as usize);
        let between = &text[at..start];
        // Comments stay; only a gap of plain white space is replaced.
        match gaps.next().filter(|_| between.trim().is_empty() && at > 0) {
            Some(&gap) => out.push_str(GAPS[gap % GAPS.len()]),
            None => out.push_str(between),
        }
        out.push_str(&text[start..end]);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

const SAMPLES: &[&str] = &[
    include_str!("../../../examples/shapescript/gpt2.ss"),
    include_str!("../../../examples/shapescript/convnet.ss"),
    include_str!("../../../crates/check/src/prelude.ss"),
    "fn f(x: [b n D], eps: Float = 1e-5) -> [b n D] = -x[:, 0:n - 1] ** -2 * (x - 1) / 2  # c\n",
    "model M(D) {\n  w: [D D] = normal(std=0.02) ## w\n  fn g(self, x: [b (h d)]) -> [b] Index[D] {\n    let (v, i) = topk(x, 4, over=(h d))\n    if v > 0 and not i { return -v } else { x = [1, -2, 3] }\n    x\n  }\n}\n",
];

uitest::formatter_tests! {
    extension: "ss",
    repository: ["examples", "tests/ui", "crates/check/src", "editors/vscode/test"],
    book: "docs/shapescript/formatting.md",
    formatted: ["examples", "crates/check/src"],
    command: "shapescript fmt",
    gap_draws: GAPS.len() * 40,
    gaps_per_text: 400,
}
