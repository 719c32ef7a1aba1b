//! The formatter's rules, one input and its layout per test.

use super::{format, FormatError};
use expect_test::{expect, Expect};

fn check(input: &str, expected: Expect) {
    expected.assert_eq(&uitest::formatting::formatted_stable(format, input));
}

#[test]
fn spaces_in_declarations() {
    check(
        "dim   D=64\nfn f( x :[b  n D] ,y:[b n D] )->[b n D]=x+y\n",
        expect![[r#"
            dim D = 64
            fn f(x: [b n D], y: [b n D]) -> [b n D] = x + y
        "#]],
    );
}

#[test]
fn operators_spaced_products_as_written() {
    check(
        "dim A = 2*B+1\ndim C = 2 * B-1\nfn f(x: [n]) -> [n] = -x**2 + x ** -1*3\n",
        expect![[r#"
            dim A = 2*B + 1
            dim C = 2 * B - 1
            fn f(x: [n]) -> [n] = -x**2 + x ** -1*3
        "#]],
    );
}

#[test]
fn shapes_and_slices_keep_what_changes_their_meaning() {
    check(
        "fn f(x: [b (c h) n-1], i: [b] Index[n]) -> [b n] = x[:, 1:][i,  0 : n]\n",
        expect![[r#"
            fn f(x: [b (c h) n-1], i: [b] Index[n]) -> [b n] = x[:, 1:][i, 0 : n]
        "#]],
    );
}

#[test]
fn keyword_arguments_are_tight_and_defaults_spaced() {
    check(
        "fn f(x: [n], eps: Float=1e-5) -> [n] = softmax(x, over = n) + eps\n",
        expect![[r#"
            fn f(x: [n], eps: Float = 1e-5) -> [n] = softmax(x, over=n) + eps
        "#]],
    );
}

#[test]
fn blocks_indent_and_blank_lines_collapse() {
    check(
        "\n\nmodel M {\n\n      w: [D] = zeros\n\n\n\n   fn f(self) -> [D] {\n  let y = self.w +\n self.w\n  -y\n\n }\n}\n\n\n",
        expect![[r#"
            model M {
              w: [D] = zeros

              fn f(self) -> [D] {
                let y = self.w +
                  self.w
                -y
              }
            }
        "#]],
    );
}

#[test]
fn comments_stay_and_aligned_ones_stay_aligned() {
    check(
        "dim A = 1    # one\ndim Bee = 22 # two\n  # alone\nfn f() -> Int = 1 #c\n",
        expect![[r#"
            dim A = 1    # one
            dim Bee = 22 # two
            # alone
            fn f() -> Int = 1 #c
        "#]],
    );
}

#[test]
fn long_lines_break_after_equals_then_at_commas() {
    check(
        "fn patches(img: [b 3 224 224]) -> [b 196 768] = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])\nextern fn conv(input: [b Cin H W], weight: [Cout Cin kh kw], bias: [Cout] = none, stride: Size[S] = 1) -> [b Cout H W] = \"m.conv\"  # note\n",
        expect![[r#"
            fn patches(img: [b 3 224 224]) -> [b 196 768] =
              rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
            extern fn conv(
              input: [b Cin H W],
              weight: [Cout Cin kh kw],
              bias: [Cout] = none,
              stride: Size[S] = 1
            ) -> [b Cout H W] = "m.conv" # note
        "#]],
    );
}

#[test]
fn a_file_that_does_not_parse_is_refused() {
    match format("fn f(x: [n) -> [n] = x\n") {
        Err(FormatError::Syntax(diagnostics)) => assert!(!diagnostics.is_empty()),
        other => panic!("{other:?}"),
    }
}
