//! Hover text: on a dim, its value and docs then its uses grouped by the
//! function, model or record they are in (`docs/shapescript/editor.md`: at most six groups of
//! four, the rest counted); on an alias, what it stands for; on any other
//! name, its declaration and type (a value's with its range,
//! `docs/shapescript/ranges.md`); on an expression, its checked type with
//! its range and solved sizes. Markdown only; positions are byte spans.

use check::hir::{Domain, Range, Ty, TyKind};
use diag::{FileId, Span};

use super::defs::{Def, DefKind};
use super::Analysis;

/// At most this many groups of uses in a dim's hover (`docs/shapescript/editor.md`).
pub const MAX_GROUPS: usize = 6;
/// At most this many values per group (`docs/shapescript/editor.md`).
pub const MAX_PER_GROUP: usize = 4;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    pub markdown: String,
    /// What the hover is about (the name or expression).
    pub span: Span,
}

fn code(text: &str) -> String {
    format!("```shapescript\n{text}\n```")
}

/// A value's type with its range (`docs/shapescript/ranges.md`): the
/// domain the range is exactly in the type's place (`[b n D] Pos`), else
/// the type and a line with the interval (`values in [1e-05, inf)`).
fn value_text(ty: &Ty, range: Option<&Range>) -> (String, Option<String>) {
    let (TyKind::Tensor(t), Some(range)) = (&ty.kind, range) else {
        return (ty.to_string(), None);
    };
    if matches!(t.domain, Some(Domain::Index(_) | Domain::Bool)) {
        return (ty.to_string(), None);
    }
    match range.domain() {
        Some(Domain::Real) => (ty.to_string(), None),
        Some(domain) => {
            let mut shown = t.clone();
            shown.domain = Some(domain);
            let shown = Ty {
                kind: TyKind::Tensor(shown),
                span: ty.span,
            };
            (shown.to_string(), None)
        }
        None => (ty.to_string(), Some(format!("values in `{range}`"))),
    }
}

impl Analysis {
    pub fn hover(&self, file: FileId, offset: u32) -> Option<Hover> {
        if let Some(occurrence) = self.index().occurrence_at(file, offset) {
            let def = self.index().defs.get(&occurrence.def)?;
            let markdown = match def.kind {
                DefKind::Dim => self.dim_hover(def),
                DefKind::Alias => self.alias_hover(def),
                DefKind::Param | DefKind::Local => self
                    .value_hover(def, occurrence.span)
                    .unwrap_or_else(|| self.name_hover(def)),
                _ => self.name_hover(def),
            };
            return Some(Hover {
                markdown,
                span: occurrence.span,
            });
        }
        self.expr_hover(file, offset)
    }

    fn with_doc(&self, mut text: String, def: &Def) -> String {
        if let Some(doc) = &def.doc {
            text.push_str("\n\n");
            text.push_str(doc);
        }
        text
    }

    /// The declaration's header as written, without its body.
    pub(super) fn header(&self, def: &Def) -> String {
        let end = def
            .body_start
            .unwrap_or(def.item_span.end)
            .max(def.item_span.start);
        let text = self.text(Span::new(def.item_span.file, def.item_span.start, end));
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .collect();
        let joined = lines.join("\n");
        joined
            .trim_end()
            .trim_end_matches(['{', '='])
            .trim_end()
            .to_string()
    }

    fn dim_hover(&self, def: &Def) -> String {
        let file = def.span.file;
        let header = self.header(def);
        let mut text = code(&header);
        if let Some(value) = self.checked.dims.get(file, &def.name) {
            let written = header.rsplit('=').next().unwrap_or("").trim();
            if written != value.to_string() {
                text.push_str(&format!("\n\n`{} = {value}`", def.name));
            }
        }
        let mut text = self.with_doc(text, def);
        let uses = self.dim_uses(file, &def.name);
        if !uses.is_empty() {
            text.push_str("\n\n---\n\n");
            text.push_str(&uses);
        }
        text
    }

    /// The values whose types hold dim `name` of `file`, grouped (`docs/shapescript/editor.md`).
    fn dim_uses(&self, file: FileId, name: &str) -> String {
        let mut values: Vec<&Def> = self
            .index()
            .defs
            .values()
            .filter(|d| d.kind.is_value() && !self.is_library(d.span.file))
            .filter(|d| d.dims_in_ty.iter().any(|(f, n)| *f == file && n == name))
            .collect();
        // Spans are unique, so an unstable sort gives the same order, faster.
        values.sort_unstable_by_key(|d| (d.span.file, d.span.start));
        let mut groups: Vec<(String, Vec<&Def>)> = Vec::new();
        for value in values {
            let label = value.container.clone().unwrap_or_default();
            // Values of one container are together, as the walk met them;
            // two files may have containers of one name.
            match groups.last_mut() {
                Some((last, members))
                    if *last == label && members[0].span.file == value.span.file =>
                {
                    members.push(value)
                }
                _ => groups.push((label, vec![value])),
            }
        }
        let mut lines = Vec::new();
        for (label, members) in groups.iter().take(MAX_GROUPS) {
            let shown: Vec<String> = members
                .iter()
                .take(MAX_PER_GROUP)
                .map(|d| format!("`{}: {}`", d.name, d.ty.as_deref().unwrap_or("?")))
                .collect();
            let mut line = format!("- {label}: {}", shown.join(", "));
            if members.len() > MAX_PER_GROUP {
                line.push_str(&format!(", and {} more", members.len() - MAX_PER_GROUP));
            }
            lines.push(line);
        }
        if groups.len() > MAX_GROUPS {
            let rest = &groups[MAX_GROUPS..];
            let count: usize = rest.iter().map(|(_, m)| m.len()).sum();
            let values = if count == 1 { "value" } else { "values" };
            let places = if rest.len() == 1 { "place" } else { "places" };
            lines.push(format!(
                "- and {count} more {values} in {} more {places}",
                rest.len()
            ));
        }
        if lines.is_empty() {
            return String::new();
        }
        format!("Used in:\n\n{}", lines.join("\n"))
    }

    fn alias_hover(&self, def: &Def) -> String {
        let mut text = code(&self.header(def));
        if let Some(expanded) = self.alias_expansion(def) {
            if !self.header(def).ends_with(&expanded) {
                text.push_str(&format!("\n\nstands for `{expanded}`"));
            }
        }
        self.with_doc(text, def)
    }

    /// The axes an alias stands for, its own aliases replaced.
    fn alias_expansion(&self, def: &Def) -> Option<String> {
        let axes = self.checked.alias_axes(&self.map, def.span)?;
        Some(check::hir::show_shape(&axes))
    }

    /// A parameter or `let` where it is used: its type with the range
    /// the checker worked out for the value there.
    fn value_hover(&self, def: &Def, at: Span) -> Option<String> {
        let expr = match self.checked.bodies.expr(at) {
            Some(expr) => expr,
            None if def.kind == DefKind::Local && at == def.span => self.let_value(def)?,
            None => return None,
        };
        if matches!(expr.ty.kind, TyKind::Error) {
            return None;
        }
        let (ty, line) = value_text(&expr.ty, expr.range.as_ref());
        let mut text = code(&format!("{}: {ty}", def.name));
        if let Some(line) = line {
            text.push_str(&format!("\n\n{line}"));
        }
        if let Some(axes) = expr.ty.renamed_axes() {
            text.push_str(&format!("\n\nwith {axes}"));
        }
        if let Some(container) = &def.container {
            text.push_str(&format!("\n\n{} of `{container}`", def.kind.word()));
        }
        Some(self.with_doc(text, def))
    }

    /// The value a `let` is given: the widest checked expression after its
    /// name that ends where the statement does.
    fn let_value(&self, def: &Def) -> Option<&check::hir::TypedExpr> {
        let (name, stmt) = (def.span, def.item_span);
        self.checked
            .bodies
            .fns
            .iter()
            .filter(|b| b.file == stmt.file && b.span.start <= stmt.start && stmt.end <= b.span.end)
            .flat_map(|b| &b.exprs)
            .filter(|e| e.span.start > name.end && e.span.end == stmt.end)
            .max_by_key(|e| e.span.len())
    }

    fn name_hover(&self, def: &Def) -> String {
        let text = match def.kind {
            DefKind::Param | DefKind::Local | DefKind::Field => {
                let ty = def.ty.as_deref().unwrap_or("?");
                let mut text = code(&format!("{}: {ty}", def.name));
                if let Some(axes) = &def.renamed_axes {
                    text.push_str(&format!("\n\nwith {axes}"));
                }
                if let Some(container) = &def.container {
                    text.push_str(&format!("\n\n{} of `{container}`", def.kind.word()));
                }
                text
            }
            DefKind::Fn
            | DefKind::ExternFn
            | DefKind::Method
            | DefKind::Model
            | DefKind::Record => {
                let mut text = code(&self.header(def));
                if self.is_library(def.span.file) {
                    let path = self.path(def.span.file);
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                    text.push_str(&format!(
                        "\n\nfrom the library file `{}`",
                        name.unwrap_or_default()
                    ));
                }
                text
            }
            DefKind::Import(target) => {
                let mut text = code(&format!("import {}", def.name));
                if let Some(target) = target {
                    text.push_str(&format!("\n\n`{}`", self.path(target).display()));
                }
                text
            }
            DefKind::Generic | DefKind::SizeParam | DefKind::PatternAxis => {
                let mut text = code(&def.name);
                let of = def.container.as_deref().unwrap_or("this pattern");
                text.push_str(&format!("\n\n{} of `{of}`", def.kind.word()));
                text
            }
            DefKind::Dim | DefKind::Alias => code(&self.header(def)),
        };
        self.with_doc(text, def)
    }

    /// The innermost checked expression around `offset`, with its type.
    fn expr_hover(&self, file: FileId, offset: u32) -> Option<Hover> {
        let bodies = &self.checked.bodies;
        let expr = bodies
            .fns
            .iter()
            .filter(|b| b.file == file && b.span.start <= offset && offset <= b.span.end)
            .flat_map(|b| &b.exprs)
            .filter(|e| e.span.start <= offset && offset <= e.span.end)
            .min_by_key(|e| e.span.len())?;
        if matches!(expr.ty.kind, TyKind::Error) {
            return None;
        }
        let (ty, line) = value_text(&expr.ty, expr.range.as_ref());
        let mut markdown = code(&ty);
        if let Some(line) = line {
            markdown.push_str(&format!("\n\n{line}"));
        }
        if let Some(axes) = expr.ty.renamed_axes() {
            markdown.push_str(&format!("\n\nwith {axes}"));
        }
        if let check::hir::ExprInfo::Call(call) = &expr.info {
            let solved: Vec<String> = call
                .bindings
                .iter()
                .map(|(name, size)| format!("{name} = {size}"))
                .collect();
            if !solved.is_empty() {
                markdown.push_str(&format!("\n\nwhere `{}`", solved.join("`, `")));
            }
        }
        Some(Hover {
            markdown,
            span: expr.span,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::tests::analysis;
    use expect_test::{expect, Expect};

    /// The hover at the `$0` of the first file, or `no hover`.
    pub(super) fn check(files: &[(&str, &str)], expect: Expect) {
        let (analysis, file, offset) = analysis(files);
        let hover = analysis.hover(file, offset);
        expect.assert_eq(
            &hover
                .map(|h| h.markdown)
                .unwrap_or_else(|| "no hover".into()),
        );
    }

    #[test]
    fn a_dim_shows_value_docs_and_uses_by_function() {
        check(
            &[(
                "m.ss",
                "## Model width.\ndim D$0 = 768\ndim H = 12\ndim Dh = D / H\nfn attn(x: [b n D], w_qkv: [D 3*D]) -> [b n D] = x\nrecord Stats { mean: [D], std: [Dh] }\n",
            )],
            expect![[r#"
                ```shapescript
                dim D = 768
                ```

                Model width.

                ---

                Used in:

                - fn attn: `x: [b n D]`, `w_qkv: [D 3*D]`
                - record Stats: `mean: [D]`"#]],
        );
    }

    #[test]
    fn a_computed_dim_shows_its_value() {
        check(
            &[("m.ss", "dim D = 768\ndim H = 12\ndim Dh$0 = D / H\n")],
            expect![[r#"
                ```shapescript
                dim Dh = D / H
                ```

                `Dh = 64`"#]],
        );
    }

    #[test]
    fn a_dim_lists_six_groups_of_four_and_counts_the_rest() {
        let mut text = String::from("dim D$0 = 8\n");
        for f in 0..8 {
            let params: Vec<String> = (1..6).map(|p| format!("p{p}: [D {p}]")).collect();
            text.push_str(&format!("fn f{f}({}) -> [D] = p1\n", params.join(", ")));
        }
        check(
            &[("m.ss", &text)],
            expect![[r#"
                ```shapescript
                dim D = 8
                ```

                ---

                Used in:

                - fn f0: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 1 more
                - fn f1: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 1 more
                - fn f2: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 1 more
                - fn f3: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 1 more
                - fn f4: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 1 more
                - fn f5: `p1: [D 1]`, `p2: [D 2]`, `p3: [D 3]`, `p4: [D 4]`, and 1 more
                - and 10 more values in 2 more places"#]],
        );
    }

    #[test]
    fn an_alias_shows_what_it_stands_for() {
        check(
            &[(
                "m.ss",
                "dim Images = [b 3 16gh 16gw]\ndim Batch = [Images$0 2]\n",
            )],
            expect![[r#"
                ```shapescript
                dim Images = [b 3 16gh 16gw]
                ```"#]],
        );
        check(
            &[(
                "m.ss",
                "dim Images = [b 3 16gh 16gw]\ndim Batch$0 = [Images 2]\n",
            )],
            expect![[r#"
                ```shapescript
                dim Batch = [Images 2]
                ```

                stands for `[b 3 16gh 16gw 2]`"#]],
        );
    }

    #[test]
    fn a_parameter_shows_its_type() {
        check(
            &[("m.ss", "dim D = 4\nfn f(x: [b D]) -> [b D] = x$0\n")],
            expect![[r#"
                ```shapescript
                x: [b D]
                ```

                parameter of `fn f`"#]],
        );
    }

    #[test]
    fn axes_a_pattern_named_show_their_sizes() {
        let text = "fn f(q: [b n d], k: [b n d]) -> [b n n] {\n  let s = einsum(q, k, [b i d], [b j d] -> [b i j])\n  s$0\n}\n";
        check(
            &[("m.ss", text)],
            expect![[r#"
                ```shapescript
                s: [b i j]
                ```

                with `i` (size `n`), `j` (size `n`)

                let of `fn f`"#]],
        );
    }

    #[test]
    fn a_prelude_stub_shows_its_signature() {
        check(
            &[("m.ss", "fn f(x: Real) -> Real = gelu$0(x)\n")],
            expect![[r#"
                ```shapescript
                extern fn gelu(x: Real) -> Real = "torch.nn.functional.gelu"
                ```

                from the library file `prelude.ss`

                The Gaussian error linear unit, x * Φ(x)."#]],
        );
    }

    #[test]
    fn an_expression_shows_its_type_with_solved_sizes() {
        check(
            &[("m.ss", "fn f(x: [b n 4], w: [4 8]) -> [b n 8] = x @$0 w\n")],
            expect![[r#"
                ```shapescript
                [b n 8]
                ```"#]],
        );
        check(
            &[(
                "m.ss",
                "fn rows(img: [b 16gh]) -> [b gh 16] = rearrange(img, [b (gh 16)] -> [b gh 16])\nfn f(x: [2 224]) -> [2 14 16] = rows(x $0)\n",
            )],
            expect![[r#"
                ```shapescript
                [2 14 16]
                ```

                where `b = 2`, `gh = 14`"#]],
        );
    }

    #[test]
    fn a_generic_axis_named_like_a_function_is_the_axis() {
        // Names in shapes are sizes: `fn h` doesn't make `h` there the function.
        check(
            &[(
                "m.ss",
                "fn h(x: [n]) -> [n] = x\nfn f(x: [b h$0]) -> [b] = sum(x, over=h)\n",
            )],
            expect![[r#"
                ```shapescript
                h
                ```

                generic axis of `fn f`"#]],
        );
    }

    /// A dim of another file is written as the hovered file imports it
    /// (`docs/shapescript/imports.md`), outside bodies as inside them.
    #[test]
    fn an_imported_dim_is_named_as_the_file_imports_it() {
        const VISION: (&str, &str) = ("vision.ss", "dim D = 768\ndim Tokens = [b n D]\n");
        check(
            &[
                (
                    "m.ss",
                    "import vision\nfn enc(x: [b n vision.D]) -> [b n vision.D] = x$0\n",
                ),
                VISION,
            ],
            expect![[r#"
                ```shapescript
                x: [b n vision.D]
                ```

                parameter of `fn enc`"#]],
        );
        check(
            &[
                ("m.ss", "import vision\ndim Pair$0 = [vision.Tokens 2]\n"),
                VISION,
            ],
            expect![[r#"
                ```shapescript
                dim Pair = [vision.Tokens 2]
                ```

                stands for `[b n vision.D 2]`"#]],
        );
        check(
            &[
                (
                    "m.ss",
                    "import vision\nfn enc(x: [b n vision.D]) -> [b n vision.D] = x *$0 2.0\n",
                ),
                VISION,
            ],
            expect![[r#"
                ```shapescript
                [b n vision.D]
                ```"#]],
        );
    }
}

#[cfg(test)]
mod range_tests {
    use expect_test::{expect, Expect};

    fn check(text: &str, expect: Expect) {
        super::tests::check(&[("m.ss", text)], expect);
    }

    #[test]
    fn a_value_shows_its_range_as_a_domain_or_an_interval() {
        check(
            "fn f(x: [b n]) -> [b n] {\n  let y = exp(x)\n  sqrt(y$0)\n}\n",
            expect![[r#"
                ```shapescript
                y: [b n] NonNeg
                ```

                let of `fn f`"#]],
        );
        check(
            "fn f(x: [b n]) -> [b n] {\n  let v$0 = var(x, over=n, correction=0) + 1e-5\n  x * rsqrt(v)\n}\n",
            expect![[r#"
                ```shapescript
                v: [b]
                ```

                values in `[9.953e-6, inf)`

                let of `fn f`"#]],
        );
        check(
            "fn f(x: [n] NonNeg) -> [n] = log(x +$0 1e-6)\n",
            expect![[r#"
                ```shapescript
                [n]
                ```

                values in `[9.983e-7, inf)`"#]],
        );
        check(
            "fn f(x: [n]) -> [n] = sqrt(exp(x)$0)\n",
            expect![[r#"
                ```shapescript
                [n] NonNeg
                ```"#]],
        );
    }
}
