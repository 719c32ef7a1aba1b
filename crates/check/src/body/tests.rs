//! Unit tests of checked bodies through `check::typed`: each test checks one
//! file and shows, per function, its `let`s with their types and the
//! expressions that carry code-generation facts (calls with their solved
//! bindings and bound arguments, broadcasting views, patterns' plans, `as`
//! and `to`), then the diagnostics.

use diag::SourceMap;
use expect_test::{expect, Expect};

use crate::typed::{BoundArg, Callee, ExprInfo, PatternPlan};
use crate::{check_sources, Options};

fn check(src: &str, expect: Expect) {
    let mut map = SourceMap::new();
    let checked = check_sources(&mut map, &[("a.ss", src)], &Options::default());
    let text = map
        .text(checked.user_modules().next().unwrap().file)
        .to_string();
    let source = |span: diag::Span| &text[span.start as usize..span.end as usize];
    let mut out = String::new();
    for body in &checked.bodies.fns {
        let owner = body
            .owner
            .as_ref()
            .map_or(String::new(), |o| format!("{o}."));
        out.push_str(&format!(
            "fn {owner}{} -> {}\n",
            body.name,
            crate::body::show_ty(&body.ret)
        ));
        for binding in &body.lets {
            out.push_str(&format!(
                "  let {}: {}\n",
                binding.name,
                crate::body::show_ty(&binding.ty)
            ));
        }
        for e in &body.exprs {
            let fact = match &e.info {
                ExprInfo::Call(call) => {
                    let callee = match &call.callee {
                        Callee::Fn { name, .. } => format!("fn {name}"),
                        Callee::Extern { python, .. } => format!("extern {python}"),
                        Callee::Builtin(name) => format!("builtin {name}"),
                        Callee::Method { model, method, .. } => format!("method {model}.{method}"),
                        Callee::Record { name, .. } => format!("record {name}"),
                    };
                    let bindings: Vec<String> = call
                        .bindings
                        .iter()
                        .map(|(n, s)| format!("{n}={s}"))
                        .collect();
                    let args: Vec<String> = call
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            BoundArg::Axis { position } => Some(format!("axis@{position}")),
                            BoundArg::Axes { positions } => Some(format!("axes@{positions:?}")),
                            BoundArg::Size { value } => Some(format!("size={value}")),
                            BoundArg::NoneDefault => Some("None".to_string()),
                            _ => None,
                        })
                        .collect();
                    let plan = match &call.pattern {
                        Some(PatternPlan::Einsum { equation }) => format!(" einsum {equation}"),
                        Some(PatternPlan::Layout(p)) => {
                            let show = |v: &[crate::size::Size]| {
                                v.iter()
                                    .map(|s| s.to_string())
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            };
                            format!(
                                " split [{}] order {:?} merge [{}]{}",
                                show(&p.split),
                                p.order,
                                show(&p.merge),
                                p.reduce
                                    .as_ref()
                                    .map_or(String::new(), |(op, axes)| format!(" {op} {axes:?}"))
                            )
                        }
                        None => String::new(),
                    };
                    let over = if call.over.is_empty() {
                        String::new()
                    } else {
                        format!(" over {:?}", call.over)
                    };
                    format!(
                        "{callee} [{}] ({}){over}{plan}",
                        bindings.join(", "),
                        args.join(", ")
                    )
                }
                ExprInfo::Broadcast { operands } if operands.iter().any(|a| !a.is_identity()) => {
                    let views: Vec<String> = operands
                        .iter()
                        .map(|a| {
                            format!(
                                "{:?}",
                                a.positions.as_ref().map(|p| p
                                    .iter()
                                    .map(|s| s.map_or("None".to_string(), |i| i.to_string()))
                                    .collect::<Vec<_>>()
                                    .join(" "))
                            )
                        })
                        .collect();
                    format!("views {}", views.join(" / "))
                }
                ExprInfo::As(a) => format!("as check line {}", a.line),
                ExprInfo::To(t) => format!(
                    "to cast {:?} clamp {} reshape {}",
                    t.cast.map(|d| d.as_str()),
                    t.clamp.is_some(),
                    t.reshape.is_some()
                ),
                _ => continue,
            };
            out.push_str(&format!(
                "  {}: {} -- {fact}\n",
                source(e.span),
                crate::body::show_ty(&e.ty)
            ));
        }
    }
    out.push_str(&crate::tests::show(&map, &checked.diagnostics));
    expect.assert_eq(&out);
}

#[test]
fn calls_record_their_solved_sizes() {
    check(
        "dim D = 768\nfn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] = rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])\nfn f(x: [8 3 224 224]) -> [8 196 D] = patchify(x)\n",
        expect![[r#"
            fn patchify -> [b (gh gw) D]
              rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)]): [b gh*gw 768] -- builtin rearrange [] () split [b 3 gh 16 gw 16] order [Some(0), Some(2), Some(4), Some(1), Some(3), Some(5)] merge [b gh*gw 768]
            fn f -> [8 196 D]
              patchify(x): [8 196 D] -- fn patchify [b=8, gh=14, gw=14] ()
        "#]],
    );
}

#[test]
fn broadcasting_records_the_views() {
    check(
        "fn f(x: [b n D], m: [b n], s: [h n n], t: [n n]) -> [b n D] {\n  let y = x * m\n  let z = s + t\n  y\n}\n",
        expect![[r#"
            fn f -> [b n D]
              let y: [b n D]
              let z: [h n n]
              x * m: [b n D] -- views Some("0 1 2") / Some("0 1 None")
        "#]],
    );
}

#[test]
fn extern_calls_pass_positions_and_sizes() {
    check(
        "extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = \"torch.roll\"\nextern fn flip(input: [...], dims: Axes[n]) -> [...] = \"torch.flip\"\nfn f(x: [b t D]) -> [b t D] = flip(roll(x, 2, dims=t), dims=D)\nfn g(x: [b 3 32 32], w: [8 3 3 3]) -> [b 8 16 16] = conv2d(x, w, stride=2, padding=1)\n",
        expect![[r#"
            fn f -> [b t D]
              roll(x, 2, dims=t): [b t D] -- extern torch.roll [S=2, n=t] (size=2, axis@1)
              flip(roll(x, 2, dims=t), dims=D): [b t D] -- extern torch.flip [n=D] (axes@[2])
            fn g -> [b 8 16 16]
              conv2d(x, w, stride=2, padding=1): [b 8 16 16] -- extern torch.nn.functional.conv2d [b=b, Cin=3, H=32, W=32, Cout=8, kh=3, kw=3, S=2, P=1] (None, size=2, size=1)
        "#]],
    );
}

#[test]
fn patterns_lower_to_plans() {
    check(
        "fn pool(x: [b 32 32 c]) -> [b 16 16 c] = reduce(x, [b (h 2) (w 2) c] -> [b h w c], max)\nfn tile(x: [b n]) -> [b n 4] = repeat(x, [b n] -> [b n r], r=4)\nfn att(q: [b i d], k: [b j d]) -> [b i j] = einsum(q, k, [b i d], [b j d] -> [b i j])\n",
        expect![[r#"
            fn pool -> [b 16 16 c]
              reduce(x, [b (h 2) (w 2) c] -> [b h w c], max): [b h w c] -- builtin reduce [] () split [b 16 2 16 2 c] order [Some(0), Some(1), Some(3), Some(5)] merge [b 16 16 c] max [2, 4]
            fn tile -> [b n 4]
              repeat(x, [b n] -> [b n r], r=4): [b n r] -- builtin repeat [] () split [b n] order [Some(0), Some(1), None] merge [b n 4]
            fn att -> [b i j]
              einsum(q, k, [b i d], [b j d] -> [b i j]): [b i j] -- builtin einsum [] () einsum abc,adc->abd
        "#]],
    );
}

#[test]
fn unknown_sizes_are_new_at_each_use() {
    check(
        "extern fn nonzero(x: [n]) -> [?k] i64 = \"m.nonzero\"\nfn f(x: [n], y: [n]) -> [?k] i64 {\n  let a = nonzero(x)\n  let c = nonzero(y)\n  let d = a as [?m] i64\n  d\n}\n",
        expect![[r#"
            fn f -> [?k] i64
              let a: [?k] i64
              let c: [?k2] i64
              let d: [?m] i64
              nonzero(x): [?k] i64 -- extern m.nonzero [n=n] ()
              nonzero(y): [?k2] i64 -- extern m.nonzero [n=n] ()
              a as [?m] i64: [?m] i64 -- as check line 5
        "#]],
    );
}

#[test]
fn models_call_forward_with_their_sizes() {
    // A field's type gives a sub-model's sizes (`Lin(D, 2*D)`); no argument
    // gives those of a model passed in (`m: Lin`): they are unknown.
    check(
        "dim D = 8\nmodel Lin(Din, Dout) {\n  w: [Dout Din]\n  fn forward(self, x: [b Din]) -> [b Dout] = linear(x, self.w)\n}\nmodel Net {\n  a: Lin(D, 2*D)\n  fn forward(self, x: [b D]) -> [b 2*D] = self.a(x)\n}\nfn f(m: Lin, x: [b 8]) -> [b ?o] = m(x)\n",
        expect![[r#"
            fn Lin.forward -> [b Dout]
              linear(x, self.w): [b Dout] -- extern torch.nn.functional.linear [Din=Din, Dout=Dout] (None)
            fn Net.forward -> [b 2*D]
              self.a(x): [b 2*D] -- method Lin.forward [Din=D, Dout=2*D, b=b] ()
            fn f -> [b ?o]
              m(x): [b ?Dout] -- method Lin.forward [Din=8, b=b] ()
        "#]],
    );
}

#[test]
fn a_file_declaration_hides_a_stub() {
    check(
        "fn gelu(x: [n]) -> [n] = x\nfn f(x: [b n]) -> [b n] = gelu(x)\n",
        expect![[r#"
            fn gelu -> [n]
            fn f -> [b n]
            a.ss:2:32 E0401 argument `x` of `gelu` has 2 axes, but the parameter takes 1 [`x`: expected `[n]`, found `[b n]`]
              also `x: [n]`: parameter `x` of `gelu` is declared here
              note: the parameter is `x: [n]`, the argument is `[b n]`
        "#]],
    );
}

#[test]
fn rest_results_are_checked_against_the_return_type() {
    check(
        "fn h(x: [b n D], w: [E D]) -> [b E] = linear(x, w)\n",
        expect![[r#"
            fn h -> [b E]
              linear(x, w): [b n E] -- extern torch.nn.functional.linear [Din=D, Dout=E] (None)
            a.ss:1:39 E0401 the body's value doesn't fit the return type [`linear(x, w)`: expected `[b E]`, found `[b n E]`]
              also `[b E]`: return type declared here
              note: expected 2 axes, found 3
        "#]],
    );
}
