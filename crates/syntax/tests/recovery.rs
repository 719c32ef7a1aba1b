//! Recovery over whole files: deleting any one token of a valid file gives
//! at most one diagnostic, and inserting a stray token rarely gives more.

use diag::FileId;
use syntax::lexer::TokenKind;

/// Valid files using every kind of declaration, statement and body layout.
const FILES: &[&str] = &[
    "import vision\ndim D = 768\ndim Dh = D / H\ndim Images = [b 3 16gh 16gw]\nfn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] {\n  let p = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])\n  p @ w\n}\n",
    "## One transformer MLP.\nmodel Mlp(Din, Dh) {\n  w1: [Din Dh] = normal(std=0.02)\n  b1: [Dh] = zeros\n  fn forward(self, x: [b n Din]) -> [b n Din] = gelu(x @ self.w1 + self.b1) @ self.w2\n}\nrecord Stats { mean: [n] Real, std: [n] NonNeg }\n",
    "model Gpt {\n  blocks: [L] Block\n  mlp: Mlp(D, 4*D)\n  fn forward(self, ids: [b n] Index[V]) -> [b n V] {\n    let x = embedding(ids, self.embed)\n    for blk in self.blocks { x = blk(x) }\n    if a < b and not c { return x } else { x = -x ** 2 as [b n D] to Unit f32 }\n    let (v, i) = topk(x[:, 0:n - 1], 4, over=(n D))\n    einsum(q, k, [b h i d], [b h j d] -> [b h i j])\n  }\n}\n",
    "extern fn conv2d(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = \"torch.nn.functional.conv2d\"\nfn f(x: Real) -> Real = x\n",
];

fn tokens(text: &str) -> Vec<(usize, usize)> {
    syntax::lexer::lex(FileId(0), text)
        .tokens
        .iter()
        .filter(|t| !matches!(t.kind, TokenKind::Eof | TokenKind::Newline))
        .map(|t| (t.start as usize, t.end as usize))
        .collect()
}

#[test]
fn every_single_deletion_gives_at_most_one_diagnostic() {
    for text in FILES {
        assert!(
            syntax::parse(FileId(0), text).diagnostics.is_empty(),
            "{text}"
        );
        for (start, end) in tokens(text) {
            let mutated = format!("{}{}", &text[..start], &text[end..]);
            let diagnostics = syntax::parse(FileId(0), &mutated).diagnostics;
            assert!(
                diagnostics.len() <= 1,
                "deleting {:?} at {start} gave {} diagnostics:\n{mutated}\n{diagnostics:#?}",
                &text[start..end],
                diagnostics.len()
            );
        }
    }
}

#[test]
fn stray_insertions_rarely_cascade() {
    // Braces typed in mid-line and strings that swallow the rest of a line are
    // the known cases that can still give a second diagnostic.
    let pieces = [
        "(", ")", "[", "]", "{", "}", ",", "=", "->", "x", "768", "let", "fn", "+", ":", ".", "?k",
        "16gh", "$", "\"s",
    ];
    let (mut total, mut cascades) = (0, 0);
    for text in FILES {
        for (start, _) in tokens(text) {
            for piece in pieces {
                let mutated = format!("{} {piece} {}", &text[..start], &text[start..]);
                total += 1;
                if syntax::parse(FileId(0), &mutated).diagnostics.len() > 1 {
                    cascades += 1;
                }
            }
        }
    }
    assert!(
        cascades * 100 < total * 4,
        "{cascades} of {total} insertions gave more than one diagnostic"
    );
}
