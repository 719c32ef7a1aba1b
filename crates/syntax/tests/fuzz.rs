//! Property tests of the lexer and parser on hostile input: random bytes,
//! token soups and mutations of valid files never panic, and every span in
//! the tree, the tokens and the diagnostics lies within the text on char boundaries.

use diag::FileId;
use proptest::prelude::*;
use std::sync::LazyLock;
use uitest::mutate::{apply_all, Edit, BRACKETS};

/// The keywords, then `OTHER_PIECES` and the brackets.
static PIECES: LazyLock<Vec<&str>> = LazyLock::new(|| {
    syntax::lexer::keywords()
        .chain(OTHER_PIECES.iter().chain(BRACKETS).copied())
        .collect()
});

/// Valid files the mutations start from (each parses without diagnostics).
const CORPUS: &[&str] = &[
    "## The complementary error function.\nextern fn erfc(x: Real) -> NonNeg = \"torch.special.erfc\"\n",
    "extern fn conv2d(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = \"torch.nn.functional.conv2d\"\n",
    "import vision\ndim D = 768\ndim Dh = D / H\ndim Images = [b 3 16gh 16gw]\nfn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] {\n  let p = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])\n  p @ w\n}\n",
    "## One transformer MLP.\nmodel Mlp(Din, Dh) {\n  w1: [Din Dh] = normal(std=0.02)\n  b1: [Dh] = zeros\n  fn forward(self, x: [b n Din]) -> [b n Din] = gelu(x @ self.w1 + self.b1) @ self.w2\n}\nrecord Stats { mean: [n] Real, std: [n] NonNeg }\n",
    "model Gpt {\n  blocks: [L] Block\n  mlp: Mlp(D, 4*D)\n  fn forward(self, ids: [b n] Index[V]) -> [b n V] {\n    let x = embedding(ids, self.embed)\n    for blk in self.blocks { x = blk(x) }\n    if a < b and not c { return x } else { x = -x ** 2 as [b n D] to Unit f32 }\n    let (v, i) = topk(x[:, 0:n - 1], 4, over=(n D))\n    einsum(q, k, [b h i d], [b h j d] -> [b h i j])\n  }\n}\n",
];

/// Pieces for token soups besides the keywords, chosen to hit every token
/// kind and some mistakes.
const OTHER_PIECES: &[&str] = &[
    "x",
    "D",
    "self",
    "Real",
    "Index",
    "Axis",
    "Size",
    "f32",
    "Bool",
    "Int",
    "768",
    "0.5",
    "1e-6",
    "16gh",
    "?k",
    "...",
    "\"torch.exp\"",
    "\"open",
    "+",
    "-",
    "*",
    "**",
    "/",
    "@",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "=",
    "->",
    ":",
    ",",
    ".",
    ";",
    "\n",
    "## doc\n",
    "# c\n",
    "é",
    "$",
    "\\",
    "1.5x",
];

/// Every span in the tree's `Debug` output, as `(start, end)`.
fn tree_spans(debug: &str) -> Vec<(u32, u32)> {
    let mut spans = Vec::new();
    let mut rest = debug;
    const MARK: &str = "Span { file: FileId(0), start: ";
    while let Some(at) = rest.find(MARK) {
        rest = &rest[at + MARK.len()..];
        let start: u32 = rest[..rest.find(',').expect("start is followed by end")]
            .parse()
            .expect("a number");
        let at = rest.find("end: ").expect("end follows start");
        rest = &rest[at + 5..];
        let end: u32 = rest[..rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len())]
            .parse()
            .expect("a number");
        spans.push((start, end));
    }
    spans
}

fn assert_span(text: &str, start: u32, end: u32, what: &str) {
    assert!(
        start <= end && end as usize <= text.len(),
        "{what} span {start}..{end} outside {:?}",
        text
    );
    assert!(
        text.is_char_boundary(start as usize) && text.is_char_boundary(end as usize),
        "{what} span {start}..{end} splits a character in {:?}",
        text
    );
}

fn assert_parses_sanely(text: &str) {
    let lexed = syntax::lexer::lex(FileId(0), text);
    for token in &lexed.tokens {
        assert_span(text, token.start, token.end, "token");
    }
    let parsed = syntax::parse(FileId(0), text);
    for (start, end) in tree_spans(&format!("{:?}", parsed.file)) {
        assert_span(text, start, end, "tree");
    }
    for diagnostic in &parsed.diagnostics {
        assert!(diagnostic.code.id.starts_with("E01"), "{diagnostic:?}");
        let label = diagnostic
            .primary
            .as_ref()
            .expect("parse diagnostics have a place");
        assert_span(text, label.span.start, label.span.end, "diagnostic");
        for label in &diagnostic.secondary {
            assert_span(text, label.span.start, label.span.end, "secondary label");
        }
    }
    // The printers must cope with whatever tree came out.
    let _ = syntax::print::dump(&parsed.file);
}

/// One edit of a valid file: delete a range, insert a piece, or swap two characters.
fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..8).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), any::<usize>()).prop_map(|(at, piece)| Edit::Insert { at, piece }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap { a, b }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        assert_parses_sanely(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup(pieces in proptest::collection::vec((0..PIECES.len(), 0..3u8), 0..60)) {
        let mut text = String::new();
        for (piece, gap) in pieces {
            text.push_str(PIECES[piece]);
            text.push_str(["", " ", "\n"][gap as usize]);
        }
        assert_parses_sanely(&text);
    }

    #[test]
    fn mutated_valid_files(file in 0..CORPUS.len(), edits in proptest::collection::vec(edit_strategy(), 1..4)) {
        assert_parses_sanely(&apply_all(CORPUS[file], &edits, &PIECES));
    }
}

#[test]
fn corpus_parses_without_diagnostics() {
    for text in CORPUS {
        let parsed = syntax::parse(FileId(0), text);
        assert!(
            parsed.diagnostics.is_empty(),
            "{text}\n{:?}",
            parsed.diagnostics
        );
        // The span scan must see the tree's spans, or the properties above test nothing.
        assert!(tree_spans(&format!("{:?}", parsed.file)).len() > 10);
    }
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    for (open, close) in [
        ("(", ")"),
        ("[", "]"),
        ("{", "}"),
        ("-", ""),
        ("not ", ""),
        ("2 ** ", ""),
        ("f(", ")"),
    ] {
        let depth = 5000;
        let body = format!("{}1{}", open.repeat(depth), close.repeat(depth));
        for text in [
            format!("fn f() -> Int = {body}\n"),
            format!("fn f(x: [{body}]) -> Int = 1\n"),
        ] {
            assert_parses_sanely(&text);
            let parsed = syntax::parse(FileId(0), &text);
            assert!(
                !parsed.diagnostics.is_empty(),
                "nesting {open:?} x{depth} should be reported"
            );
        }
    }
}

#[test]
fn recovery_stays_linear_on_enormous_lines() {
    // Each of these took seconds (quadratic recovery) before the line scans
    // were bounded; linear parsing takes well under a second even unoptimised.
    let n = 20_000;
    let inputs = [
        format!("fn f() {{\n  let x = 1 {}\n}}\n", "{ ".repeat(n)),
        format!("fn f() {{\n  x {}\n}}\n", "{ a ".repeat(n)),
        format!("fn f() {{\n {}\n}}\n", "if x y; ".repeat(n)),
        format!("model M\n {}\n", "x: [n]; ".repeat(n)),
        format!("{}\n", "fn f() -> Int 1 ".repeat(n)),
    ];
    for text in &inputs {
        let start = std::time::Instant::now();
        assert_parses_sanely(text);
        let elapsed = start.elapsed();
        assert!(
            elapsed.as_secs() < 10,
            "{:?} for {:?}...",
            elapsed,
            &text[..40]
        );
    }
}
