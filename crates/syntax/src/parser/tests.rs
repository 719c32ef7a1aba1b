//! Snapshot tests of the parser: each construct of the book (`docs/shapescript/`), the
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
        for help in &d.help {
            out.push_str(&format!("  help: {help}\n"));
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

#[test]
fn spec_declarations() {
    check(
        r#"
import vision                              # vision.ss beside this file, or on the search path
dim D = 768                                # a constant size
dim Dh = D / H                             # dims may use dims declared later
dim Images = [b 3 16gh 16gw]               # a shape alias
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"
fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) 768] { rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)]) }
fn double(x: Real) -> Real = 2 * x         # one-expression body
record Stats { mean: [n] Real, std: [n] NonNeg }
model Mlp { w: [D D] }
"#,
        expect![[r#"
            import vision
            dim D = 768
            dim Dh = D/H
            dim Images = [b 3 16gh 16gw]
            extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"
            fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) 768]
              rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
            fn double(x: Real) -> Real = (2 * x)
            record Stats
              field mean: [n] Real
              field std: [n] NonNeg
            model Mlp
              field w: [D D]
        "#]],
    );
}

#[test]
fn spec_models() {
    check(
        r#"
## One transformer MLP.
model Mlp(Din, Dh) {
  w1: [Din Dh] = normal(std=0.02)
  b1: [Dh] = zeros
  w2: [Dh Din]
  fn forward(self, x: [b n Din]) -> [b n Din] = gelu(x @ self.w1 + self.b1) @ self.w2
}

model Gpt {
  embed: [V D]
  blocks: [L] Block          # L copies, nn.ModuleList
  mlp: Mlp(D, 4*D)           # a sub-model with sizes
  head: [D V]
  fn forward(self, ids: [b n] Index[V]) -> [b n V] {
    let x = embedding(ids, self.embed)
    for blk in self.blocks { x = blk(x) }
    self.mlp(x) @ self.head
  }
}
"#,
        expect![[r#"
            doc "One transformer MLP."
            model Mlp(Din, Dh)
              field w1: [Din Dh] = normal(std=0.02)
              field b1: [Dh] = zeros
              field w2: [Dh Din]
              fn forward(self, x: [b n Din]) -> [b n Din] = (gelu(((x @ self.w1) + self.b1)) @ self.w2)
            model Gpt
              field embed: [V D]
              field blocks: [L] Block
              field mlp: Mlp(D, 4*D)
              field head: [D V]
              fn forward(self, ids: [b n] Index[V]) -> [b n V]
                let x = embedding(ids, self.embed)
                for blk in self.blocks
                  x = blk(x)
                (self.mlp(x) @ self.head)
        "#]],
    );
}

#[test]
fn spec_patterns() {
    check(
        r#"
fn f(img: Images, x: [b n], q: [b h i d], k: [b h j d]) {
  let patches = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
  let pooled  = reduce(x, [b (h 2) (w 2) c] -> [b h w c], max)
  let tiled   = repeat(x, [b n] -> [b n r], r=4)
  let scores  = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
  let rows = rearrange(img, [... 16gh] -> [... gh 16], gh=14)
  let z = zeros([n D]); let w = full(shape=[n], 1.0)
}
"#,
        expect![[r#"
            fn f(img: Images, x: [b n], q: [b h i d], k: [b h j d])
              let patches = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
              let pooled = reduce(x, [b (h 2) (w 2) c] -> [b h w c], max)
              let tiled = repeat(x, [b n] -> [b n r], r=4)
              let scores = einsum(q, k, [b h i d], [b h j d] -> [b h i j])
              let rows = rearrange(img, [... 16gh] -> [... gh 16], gh=14)
              let z = zeros([n D])
              let w = full(shape=[n], 1.0)
        "#]],
    );
}

#[test]
fn statements_and_indexing() {
    check(
        r#"
fn f(x: [b n D], c: Bool) -> ([b k], [b k] Index[n]) {
  let y: [b n D] Real = x
  let (values, ids) = topk(sum(x, over=D), 4, over=n)
  y = y + 1
  let rows = x[sum(x, over=D) != 0]
  let s = x[1:3]; let t = x[:, i]; let u = x[::2, :n - 1, 0:]
  let m = mean(x, over=(n D))
  if c { return (values, ids) } else if not c and true { y = -y } 
  else { y = y * 2 }
  for i in range(3) {
    y = y
  }
  (values, ids)
}
"#,
        expect![[r#"
            fn f(x: [b n D], c: Bool) -> ([b k], [b k] Index[n])
              let y: [b n D] Real = x
              let (values, ids) = topk(sum(x, over=D), 4, over=n)
              y = (y + 1)
              let rows = x[(sum(x, over=D) != 0)]
              let s = x[1:3]
              let t = x[:, i]
              let u = x[::2, :(n - 1), 0:]
              let m = mean(x, over=(n D))
              if c
                return (values, ids)
              else
                if ((not c) and true)
                  y = (-y)
                else
                  y = (y * 2)
              for i in range(3)
                y = y
              (values, ids)
        "#]],
    );
}

#[test]
fn precedence() {
    check(
        r#"
fn p(a: Real, b: Real) -> Real {
  a or b and not a == b
  not a + b < a * b
  a + b * c @ d
  -a @ b
  -a ** 2
  a ** b ** c
  2 ** -x
  x as [196 D] + y to Unit f32
  -x to Pos
  f(x)[0].y ** 2
  a - b - c; a / b * c
  a < b == c
  (a + b) * c
  1e-6 + 0.5 + none + true + false + "s\n"
}
"#,
        expect![[r#"
            fn p(a: Real, b: Real) -> Real
              (a or (b and (not (a == b))))
              (not ((a + b) < (a * b)))
              (a + (b * (c @ d)))
              ((-a) @ b)
              (-(a ** 2))
              (a ** (b ** c))
              (2 ** (-x))
              ((x as [196 D]) + (y to Unit f32))
              (-(x to Pos))
              (f(x)[0].y ** 2)
              ((a - b) - c)
              ((a / b) * c)
              ((a < b) == c)
              ((a + b) * c)
              (((((1e-6 + 0.5) + none) + true) + false) + "s\n")
        "#]],
    );
}

#[test]
fn types() {
    check(
        r#"
fn t(a: Int, b: Float, c: Bool, d: Bool bool, e: i64, f: [n] i64, g: [b n] Index[V] i32, h: (Real, [n]), i: Stats, j: vision.Stats, k: Mlp(D, 4*D), l: [L] Block, m: [] f32, n: (Real)) -> Unit f32 = a
fn u(x: [...]) -> [(a b c) (16 gh) ((a + 1)*2) (n)] = x
"#,
        expect![[r#"
            fn t(a: Int, b: Float, c: Bool, d: Bool bool, e: i64, f: [n] i64, g: [b n] Index[V] i32, h: (Real, [n]), i: Stats, j: vision.Stats, k: Mlp(D, 4*D), l: [L] Block, m: [] f32, n: Real) -> Unit f32 = a
            fn u(x: [...]) -> [(a b c) (16 gh) (a + 1)*2 n] = x
        "#]],
    );
}

#[test]
fn line_breaks() {
    check(
        "fn f(a: [n],\n      b: [n])\n  -> [n] {\n  let x = a +\n    b\n  let y = g(x,\n    over=n)\n  let z = [1]\n}\n\n\ndim A = 1; dim B = 2\n",
        expect![[r#"
            fn f(a: [n], b: [n]) -> [n]
              let x = (a + b)
              let y = g(x, over=n)
              let z = {error}
            dim A = 1
            dim B = 2
            error[E0103]: expected an expression, found `[`
              --> 95..96 "[": expected an expression
        "#]],
    );
}

#[test]
fn recovery_in_statements() {
    check(
        r#"
fn f(x: [n]) -> [n] {
  let y = x +* 2
  let z = [1]
  let w = (x + 1
  let v = exp(x]
  y
}
dim D = 768
"#,
        expect![[r#"
            fn f(x: [n]) -> [n]
              let y = (x + ({error} * 2))
              let z = {error}
              let w = (x + 1)
              let v = exp(x)
              y
            dim D = 768
            error[E0103]: expected an expression, found `*`
              --> 36..37 "*": expected an expression
            error[E0103]: expected an expression, found `[`
              --> 50..51 "[": expected an expression
            error[E0104]: unclosed delimiter `(`
              --> 64..65 "(": unclosed delimiter
              ... 73..76 "let": expected `)` before `let`
            error[E0103]: expected `)`, found `]`
              --> 86..87 "]": expected `)`
              ... 84..85 "(": to close this
        "#]],
    );
}

#[test]
fn recovery_in_declarations() {
    check(
        r#"
dim D = 768 768
dim E =
dim F = 2
fn g(x: [b n)) -> [b n] = x
fn h(x [n]) -> [n] = x
model M {
  w: [D D] = normal(std=0.02) junk
  b: [D]
  fn forward(self, x: [D]) -> [D] = x @ self.w
}
record R { a: [n], b: }
extern fn e(x: Real) -> Real = torch.exp
fn k() -> [(a b) + 1 ...*2] = 1
fn after(x: Real) -> Real = x
"#,
        expect![[r#"
            dim D = 768
            dim E = {error}
            dim F = 2
            fn g(x: [b n])
              {error}
            fn h(x: {error}) -> [n] = x
            model M
              field w: [D D] = normal(std=0.02)
              field b: [D]
              fn forward(self, x: [D]) -> [D] = (x @ self.w)
            record R
              field a: [n]
              field b: {error}
            extern fn e(x: Real) -> Real
            fn k() -> [{error} {error}] = 1
            fn after(x: Real) -> Real = x
            error[E0103]: expected a newline or `;`, found `768`
              --> 13..16 "768": expected a newline or `;`
            error[E0103]: expected a size or a shape `[...]`, found `dim`
              --> 25..28 "dim": expected a size or a shape `[...]`
            error[E0103]: expected `]`, found `)`
              --> 47..48 ")": expected `]`
              ... 43..44 "[": to close this
            error[E0103]: expected `:`, found `[`
              --> 70..71 "[": expected `:`
            error[E0103]: expected a newline or `;`, found `junk`
              --> 126..130 "junk": expected a newline or `;`
            error[E0103]: expected a type, found `}`
              --> 211..212 "}": expected a type
            error[E0103]: expected a Python name in a string, as `"torch.exp"`, found `torch`
              --> 244..249 "torch": expected a Python name in a string, as `"torch.exp"`
            error[E0107]: a group cannot be part of arithmetic
              --> 265..270 "(a b)": a group is a whole axis
              help: write the size as a product, as `a*b` for the group `(a b)`
        "#]],
    );
}

#[test]
fn recovery_from_unclosed_delimiters() {
    check(
        "fn f(x: [n]) -> [n] {\n  let y = exp(x\n  y\n}\nfn g(x: [n) -> [n] = x\nmodel M {\n  w: [n]\n\ndim D = 1\nfn h() -> Int {\n  1\n",
        expect![[r#"
            fn f(x: [n]) -> [n]
              let y = exp(x)
              y
            fn g(x: [n]) -> [n] = x
            model M
              field w: [n]
            dim D = 1
            fn h() -> Int
              1
            error[E0104]: unclosed delimiter `(`
              --> 35..36 "(": unclosed delimiter
              ... 40..41 "y": expected `)` before `y`
            error[E0103]: expected `]`, found `)`
              --> 54..55 ")": expected `]`
              ... 52..53 "[": to close this
            error[E0104]: unclosed delimiter `{`
              --> 75..76 "{": unclosed delimiter
              ... 87..90 "dim": expected `}` before `dim`
            error[E0104]: unclosed delimiter `{`
              --> 111..112 "{": unclosed delimiter
              ... 117..117 "": expected `}` before end of file
        "#]],
    );
}

#[test]
fn recovery_from_lexer_errors() {
    check(
        "dim D = 768 $\nfn f(x: [n]) -> [n] = x é 2\nextern fn e(x: Real) -> Real = \"torch.exp\nfn g(x: [1.5gh]) -> [n] = x\ndim Big = 1000000000000000000000000000000000000000000\n",
        expect![[r#"
            dim D = 768
            fn f(x: [n]) -> [n] = x
            extern fn e(x: Real) -> Real = "torch.exp"
            fn g(x: []) -> [n] = x
            dim Big = {error}
            error[E0101]: unexpected character `$`
              --> 12..13 "$": no token starts with this
            error[E0101]: unexpected character `é`
              --> 38..40 "é": no token starts with this
            error[E0102]: unterminated string
              --> 74..84 "\"torch.exp": this string has no closing `"`
            error[E0106]: invalid number
              --> 94..99 "1.5gh": a float cannot touch a name
              help: a grouped size such as `16gh` needs a whole number
            error[E0105]: integer literal too large
              --> 123..166 "1000000000000000000000000000000000000000000": does not fit in 128 bits
        "#]],
    );
}

#[test]
fn docs_attach_to_the_next_declaration_or_member() {
    check(
        r#"## A width.
## Second line.
dim D = 768

# A plain comment is not a doc.
## The model.
model M {
  ## The weight.
  w: [D D]
  ## The forward pass.
  fn forward(self, x: [D]) -> [D] {
    ## Inside a body: belongs to nothing.
    x
  }
}
record R { ## Mean.
  mean: [n] }
fn f() -> Int = 1
"#,
        expect![[r#"
            doc "A width.\nSecond line."
            dim D = 768
            doc "The model."
            model M
              doc "The weight."
              field w: [D D]
              doc "The forward pass."
              fn forward(self, x: [D]) -> [D]
                x
            record R
              doc "Mean."
              field mean: [n]
            fn f() -> Int = 1
        "#]],
    );
}

#[test]
fn layout_variants() {
    check(
        "fn f(x: Real) -> Real\n  = 2 * x\nfn g(x: Real) -> Real\n{\n  if x > 0\n  {\n    x\n  }\n  else\n  {\n    -x\n  }\n}\nmodel M\n{\n  w: [n]; b: [n], c: [n]\n}\nfn h(a: [n],) -> [n] = f(a,)\n",
        expect![[r#"
            fn f(x: Real) -> Real = (2 * x)
            fn g(x: Real) -> Real
              if (x > 0)
                x
              else
                (-x)
            model M
              field w: [n]
              field b: [n]
              field c: [n]
            fn h(a: [n]) -> [n] = f(a)
        "#]],
    );
}

#[test]
fn empty_and_comment_only_files() {
    check("", expect![[r#""#]]);
    check("# nothing\n\n## dangling doc\n", expect![[r#""#]]);
}

#[test]
fn checker_decides_what_parses_here() {
    // The parser accepts these; the checker reports them (E0306, E2202, ...).
    check(
        "fn f(x: [(... d) (Images 2) ?k]) -> [n] = x\ndim A = Images\nmodel S(N) { xs: [N] Stack }\n",
        expect![[r#"
            fn f(x: [(... d) (Images 2) ?k]) -> [n] = x
            dim A = Images
            model S(N)
              field xs: [N] Stack
        "#]],
    );
}

#[test]
fn sizes_that_are_not_sizes() {
    check(
        "dim G = 16gh\n",
        expect![[r#"
        dim G = {error}
        error[E0103]: expected a size or a shape `[...]`, found a grouped size
          --> 8..12 "16gh": expected a size or a shape `[...]`
    "#]],
    );
    check(
        "dim G = (a b)\n",
        expect![[r#"
        dim G = {error}
        error[E0103]: expected a size or a shape `[...]`, found a group
          --> 8..13 "(a b)": expected a size or a shape `[...]`
    "#]],
    );
    check(
        "dim G = ...\n",
        expect![[r#"
        dim G = {error}
        error[E0103]: expected a size or a shape `[...]`, found `...`
          --> 8..11 "...": expected a size or a shape `[...]`
    "#]],
    );
    check(
        "fn f(x: Index[(a b)]) -> Int = 1\n",
        expect![[r#"
        fn f(x: Index[{error}]) -> Int = 1
        error[E0103]: expected a size, found a group
          --> 14..19 "(a b)": expected a size
    "#]],
    );
}

/// Lists the text under the span of each item, parameter, statement, call argument and axis.
fn check_spans(src: &str, expect: Expect) {
    use crate::ast::*;
    let parsed = crate::parse(FileId(0), src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let text = |span: diag::Span| &src[span.start as usize..span.end as usize];
    let mut out = String::new();
    fn expr_spans(expr: &Expr, text: &dyn std::ops::Fn(diag::Span) -> String, out: &mut String) {
        if let ExprKind::Call { args, .. } = &expr.kind {
            for arg in args {
                out.push_str(&format!("    arg {:?}\n", text(arg.span)));
                if let ExprKind::Pattern(pattern) = &arg.value.kind {
                    out.push_str(&format!("    pattern {:?}\n", text(pattern.span)));
                }
                expr_spans(&arg.value, text, out);
            }
        }
    }
    let owned = |span: diag::Span| text(span).to_string();
    for item in &parsed.file.items {
        out.push_str(&format!(
            "item {:?} named {:?}\n",
            text(item.span()),
            text(item.name().span)
        ));
        if let Item::Fn(f) = item {
            for param in &f.params {
                out.push_str(&format!(
                    "  param {:?} type {:?}\n",
                    text(param.span),
                    text(param.ty.span)
                ));
                if let TypeKind::Tensor {
                    shape: Some(Shape::List(list)),
                    ..
                } = &param.ty.kind
                {
                    for axis in &list.axes {
                        out.push_str(&format!("    axis {:?}\n", text(axis.span)));
                    }
                }
            }
            if let FnBody::Block(block) = &f.body {
                out.push_str(&format!("  block {:?}\n", text(block.span)));
                for stmt in &block.stmts {
                    out.push_str(&format!("  stmt {:?}\n", text(stmt.span)));
                    if let StmtKind::Let { value, .. } | StmtKind::Expr(value) = &stmt.kind {
                        expr_spans(value, &owned, &mut out);
                    }
                }
            }
        }
    }
    expect.assert_eq(&out);
}

#[test]
fn spans_cover_their_text() {
    check_spans(
        "## Doc.\nfn f(img: [b 3 16gh (H + 1)/2 (c d)], k: Size[K] = 2) -> [b] {\n  let p = rearrange(img, [b c (gh 16)] -> [b gh c 16], gh=k)\n  einsum(q, k, [b i], [b j] -> [b i j])\n}\nimport vision\n",
        expect![[r#"
            item "fn f(img: [b 3 16gh (H + 1)/2 (c d)], k: Size[K] = 2) -> [b] {\n  let p = rearrange(img, [b c (gh 16)] -> [b gh c 16], gh=k)\n  einsum(q, k, [b i], [b j] -> [b i j])\n}" named "f"
              param "img: [b 3 16gh (H + 1)/2 (c d)]" type "[b 3 16gh (H + 1)/2 (c d)]"
                axis "b"
                axis "3"
                axis "16gh"
                axis "(H + 1)/2"
                axis "(c d)"
              param "k: Size[K] = 2" type "Size[K]"
              block "{\n  let p = rearrange(img, [b c (gh 16)] -> [b gh c 16], gh=k)\n  einsum(q, k, [b i], [b j] -> [b i j])\n}"
              stmt "let p = rearrange(img, [b c (gh 16)] -> [b gh c 16], gh=k)"
                arg "img"
                arg "[b c (gh 16)] -> [b gh c 16]"
                pattern "[b c (gh 16)] -> [b gh c 16]"
                arg "gh=k"
              stmt "einsum(q, k, [b i], [b j] -> [b i j])"
                arg "q"
                arg "k"
                arg "[b i], [b j] -> [b i j]"
                pattern "[b i], [b j] -> [b i j]"
            item "import vision" named "vision"
        "#]],
    );
}

#[test]
fn keywords_in_the_wrong_place() {
    check(
        "fn f(x: [n]) -> [n] {\n  let y = roll(x, 2, dim=t)\n  let z = sum(x, over=n) dim\n  y\n}\nfn g() -> Int = 1\n",
        expect![[r#"
            fn f(x: [n]) -> [n]
              let y = roll(x, 2, t)
              let z = sum(x, over=n)
              y
            fn g() -> Int = 1
            error[E0103]: expected an argument name, found keyword `dim`
              --> 43..46 "dim": a keyword
              help: `dim` is a keyword: pass this argument by position
            error[E0103]: expected a newline or `;`, found `dim`
              --> 75..78 "dim": expected a newline or `;`
        "#]],
    );
}

#[test]
fn recovery_in_signatures_keeps_the_body() {
    check(
        "fn f(x: [n] -> [n] {\n  x\n}\nfn g(x: [n] {\n  x\n}\nfn h(x: [n]) -> [n {\n  x\n}\n",
        expect![[r#"
            fn f(x: [n]) -> [n]
              x
            fn g(x: [n])
              x
            fn h(x: [n]) -> [n]
              x
            error[E0103]: expected `)`, found `->`
              --> 12..14 "->": expected `)`
              ... 4..5 "(": to close this
            error[E0103]: expected `)`, found `{`
              --> 39..40 "{": expected `)`
              ... 31..32 "(": to close this
            error[E0103]: expected an axis or `]`, found `{`
              --> 66..67 "{": expected an axis or `]`
        "#]],
    );
}

#[test]
fn seed_prose_examples() {
    check(
        r#"
dim Tokens = [b n D]
fn a(x: [b n D] Signed bf16, p: Unit, r: Real) -> Real = x
fn b(x: Images Unit f32, y: [Images D], z: vision.Images Unit f32, w: [vision.Images D]) -> [b D] = x
fn c(x: [?k D], rows: [?k D]) -> [196 D] {
  let m = x[sum(x, over=D) != 0]
  let r = rows as [196 D]
  roll(x, 2, dims=t)
}
fn d(x: [(gh P) 2*n], y: [n*m / n], z: [2*n / 2]) -> [n] = x
extern fn conv(input: [b H], stride: Size[S] = K) -> [b H/S] = "m.conv"
extern fn rolled(input: [...], shifts: Size[S], dims: Axis[N]) -> [...]
  = "torch.roll"
"#,
        expect![[r#"
            dim Tokens = [b n D]
            fn a(x: [b n D] Signed bf16, p: Unit, r: Real) -> Real = x
            fn b(x: Images Unit f32, y: [Images D], z: vision.Images Unit f32, w: [vision.Images D]) -> [b D] = x
            fn c(x: [?k D], rows: [?k D]) -> [196 D]
              let m = x[(sum(x, over=D) != 0)]
              let r = (rows as [196 D])
              roll(x, 2, dims=t)
            fn d(x: [(gh P) 2*n], y: [n*m/n], z: [2*n/2]) -> [n] = x
            extern fn conv(input: [b H], stride: Size[S] = K) -> [b H/S] = "m.conv"
            extern fn rolled(input: [...], shifts: Size[S], dims: Axis[N]) -> [...] = "torch.roll"
        "#]],
    );
}

#[test]
fn habits_from_python_and_numpy() {
    check(
        "fn f(x: [b, n, D]) -> [b n D] = x\n",
        expect![[r#"
        fn f(x: [b n D]) -> [b n D] = x
        error[E0103]: expected an axis or `]`, found `,`
          --> 10..11 ",": axes are not separated by commas
          help: separate axes with spaces, as in `[b n D]`
    "#]],
    );
    check(
        "fn f(x: [n] float32, y: double) -> [n] = x\n",
        expect![[r#"
            fn f(x: [n] f32, y: f64) -> [n] = x
            error[E0103]: expected a dtype, found `float32`
              --> 12..19 "float32": write `f32`
              help: the dtypes are `f64 f32 f16 bf16 i64 i32 bool`
        "#]],
    );
    check(
        "def g(x):\n    return x\nfn h() -> Int = 1\n",
        expect![[r#"
            fn h() -> Int = 1
            error[E0103]: expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`), found `def`
              --> 0..3 "def": expected a declaration
              help: functions are declared with `fn`
        "#]],
    );
    check(
        "class M:\n    pass\n",
        expect![[r#"
        error[E0103]: expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`), found `class`
          --> 0..5 "class": expected a declaration
          help: declare a model with `model`, or plain data with `record`
    "#]],
    );
    check(
        "let D = 768\n",
        expect![[r#"
        error[E0103]: expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`), found `let`
          --> 0..3 "let": expected a declaration
          help: a constant size at the top level is a `dim`: `dim D = 768`
    "#]],
    );
}

#[test]
fn junk_after_a_broken_declaration_is_still_seen() {
    // The indented lines belong to the broken `def`; `junk` in the first column is a new mistake.
    check(
        "def g(x):\n    return x\n    more(x)\njunk here\nfn h() -> Int = 1\n",
        expect![[r#"
            fn h() -> Int = 1
            error[E0103]: expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`), found `def`
              --> 0..3 "def": expected a declaration
              help: functions are declared with `fn`
            error[E0103]: expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`), found `junk`
              --> 35..39 "junk": expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`)
        "#]],
    );
    // A body opened by the junk is skipped whole, up to its `}`.
    check(
        "junk {\nnot_new\n}\nmore_junk\nfn h() -> Int = 1\n",
        expect![[r#"
            fn h() -> Int = 1
            error[E0103]: expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`), found `junk`
              --> 0..4 "junk": expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`)
            error[E0103]: expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`), found `more_junk`
              --> 17..26 "more_junk": expected a declaration (`import`, `dim`, `extern fn`, `fn`, `model` or `record`)
        "#]],
    );
}

#[test]
fn powers_signs_and_index_forms() {
    check(
        r#"fn f(x: [n**2 2**3**2 (-1 + n) (+n) -(a*b)]) -> [n] = x[none, ..., [0, 2], :-1, ::2] + +x
fn g(x: [b 3 -1 + l], y: [b -1 + l]) -> [b] = x
"#,
        expect![[r#"
            fn f(x: [n**2 2**3**2 (-1 + n) n - a*b]) -> [n] = (x[none, ..., [0, 2], :(-1), ::2] + x)
            fn g(x: [b 3 - 1 + l], y: [b - 1 + l]) -> [b] = x
            error[E0109]: a size that starts with `-` must be in parentheses
              --> 36..38 "-(": is this a new axis, or part of the one before?
              help: write a new axis in parentheses, as `(-1 + n)`, or space both sides of a difference, as `3 - 1`
            error[E0109]: a size that starts with `-` must be in parentheses
              --> 103..105 "-1": is this a new axis, or part of the one before?
              help: write a new axis in parentheses, as `(-1 + n)`, or space both sides of a difference, as `3 - 1`
        "#]],
    );
}
