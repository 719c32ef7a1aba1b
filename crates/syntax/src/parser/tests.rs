//! Snapshot tests of the parser: each construct of the seeds and spec, the
//! precedence table, and recovery (one mistake, one diagnostic).

use crate::print::dump;
use diag::FileId;
use expect_test::{expect, Expect};

/// Parses `src` and shows the outline, then each diagnostic with its spans and the text under them.
fn check(src: &str, expect: Expect) {
    let parsed = crate::parse(FileId(0), src);
    let mut out = dump(&parsed.file);
    for d in &parsed.diagnostics {
        out.push_str(&format!(
            "{}[{}]: {}\n",
            d.severity.as_str(),
            d.code,
            d.message
        ));
        for (kind, label) in d
            .primary
            .iter()
            .map(|l| ("-->", l))
            .chain(d.secondary.iter().map(|l| ("...", l)))
        {
            let text = &src[label.span.start as usize..label.span.end as usize];
            out.push_str(&format!(
                "  {kind} {}..{} {:?}: {}\n",
                label.span.start, label.span.end, text, label.message
            ));
        }
    }
    expect.assert_eq(&out);
}

#[test]
fn seed_signatures() {
    check(
        r#"
## The complementary error function.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"
extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn linear(input: [... Din], weight: [Dout Din]) -> [... Dout] = "torch.nn.functional.linear"
extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"
extern fn conv2d(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"
fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] = img
fn f(img: [b 3 16 gh]) -> [b (gh gw) D] = img
fn g(x: [2 n]) -> [n] = x
fn rows(img: [b 16gh 16gw]) -> [b gh 16 gw 16] = img
dim D = 768
dim H = 12
dim Dh = D / H
dim Images = [b 3 16gh 16gw]
dim Pair = [vision.Images 2]
fn h(x: Images Unit f32, y: vision.Images, z: [Images D], w: vision.Images Unit f32) -> [b D] = x
fn u(x: [?k D], p: Unit, q: [b n D] Signed bf16) -> [?k D] = x
"#,
        expect![[r#"
            doc "The complementary error function."
            extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"
            extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
            extern fn linear(input: [... Din], weight: [Dout Din]) -> [... Dout] = "torch.nn.functional.linear"
            extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"
            extern fn conv2d(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"
            fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] = img
            fn f(img: [b 3 16 gh]) -> [b (gh gw) D] = img
            fn g(x: [2 n]) -> [n] = x
            fn rows(img: [b 16gh 16gw]) -> [b gh 16 gw 16] = img
            dim D = 768
            dim H = 12
            dim Dh = D/H
            dim Images = [b 3 16gh 16gw]
            dim Pair = [vision.Images 2]
            fn h(x: Images Unit f32, y: vision.Images, z: [Images D], w: vision.Images Unit f32) -> [b D] = x
            fn u(x: [?k D], p: Unit, q: [b n D] Signed bf16) -> [?k D] = x
        "#]],
    );
}
