//! Semantic highlighting: what each name written in a file means (a dim, a
//! generic axis, a shape alias, a function...), read off the index, and the
//! unknown sizes `?k`, read off the lexer, so that an editor colours apart
//! what a grammar cannot tell apart (`docs/shapescript/editor.md`).

use diag::{FileId, Span};
use syntax::lexer::{self, TokenKind};

use super::defs::DefKind;
use super::Analysis;

/// What a highlighted name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HighlightKind {
    Dim,
    /// A generic axis or a model's size parameter.
    GenericAxis,
    /// `?k`.
    UnknownSize,
    Alias,
    PatternAxis,
    Function,
    Method,
    Model,
    Record,
    Module,
    Parameter,
    Variable,
    Field,
}

/// One highlighted name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Highlight {
    pub span: Span,
    pub kind: HighlightKind,
    /// The declaring name itself.
    pub is_decl: bool,
    /// Declared in the library (prelude, nn, built-ins).
    pub from_library: bool,
}

impl Analysis {
    /// Every name of `file` the index knows and every unknown size, in order,
    /// none overlapping another.
    pub fn highlights(&self, file: FileId) -> Vec<Highlight> {
        let index = self.index();
        let mut out: Vec<Highlight> = Vec::new();
        for occurrence in index.occurrences.get(&file).into_iter().flatten() {
            let Some(def) = index.defs.get(&occurrence.def) else {
                continue;
            };
            out.push(Highlight {
                span: occurrence.span,
                kind: highlight_kind(def.kind),
                is_decl: occurrence.is_decl,
                from_library: self.is_library(occurrence.def.file),
            });
        }
        let text = self.map.text(file);
        for token in lexer::lex(file, text).tokens {
            if token.kind == TokenKind::Unknown {
                out.push(Highlight {
                    span: Span::new(file, token.start, token.end),
                    kind: HighlightKind::UnknownSize,
                    is_decl: false,
                    from_library: false,
                });
            }
        }
        // An unknown size `?k` comes before the name `k` inside it, which is dropped.
        out.sort_by_key(|h| (h.span.start, std::cmp::Reverse(h.span.end)));
        let mut end = 0;
        out.retain(|h| {
            let keep = h.span.start >= end && h.span.end > h.span.start;
            if keep {
                end = h.span.end;
            }
            keep
        });
        out
    }
}

fn highlight_kind(kind: DefKind) -> HighlightKind {
    match kind {
        DefKind::Dim => HighlightKind::Dim,
        DefKind::Alias => HighlightKind::Alias,
        DefKind::Fn | DefKind::ExternFn => HighlightKind::Function,
        DefKind::Method => HighlightKind::Method,
        DefKind::Model => HighlightKind::Model,
        DefKind::Record => HighlightKind::Record,
        DefKind::Import(_) => HighlightKind::Module,
        DefKind::Param => HighlightKind::Parameter,
        DefKind::Local => HighlightKind::Variable,
        DefKind::Field => HighlightKind::Field,
        DefKind::SizeParam | DefKind::Generic => HighlightKind::GenericAxis,
        DefKind::PatternAxis => HighlightKind::PatternAxis,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::analysis;
    use expect_test::{expect, Expect};

    /// Each highlight as `text kind`, with `decl` and `lib` marks.
    fn check(text: &str, expect: Expect) {
        let (analysis, file, _) = analysis(&[("/p/main.ss", text)]);
        let lines: Vec<String> = analysis
            .highlights(file)
            .iter()
            .map(|h| {
                let mut line = format!("{} {:?}", analysis.text(h.span), h.kind);
                if h.is_decl {
                    line.push_str(" decl");
                }
                if h.from_library {
                    line.push_str(" lib");
                }
                line
            })
            .collect();
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn dims_axes_unknown_sizes_and_aliases_are_told_apart() {
        check(
            "dim D = 4\ndim Pair = [2 D]\nfn f(x: [b D], p: Pair) -> [b D] {\n  let y = gelu(x)\n  y\n}\nfn g(x: [n]) -> [?k] = x[1:] as [?k]\n",
            expect![[r#"
                D Dim decl
                Pair Alias decl
                D Dim
                f Function decl
                x Parameter decl
                b GenericAxis decl
                D Dim
                p Parameter decl
                Pair Alias
                b GenericAxis
                D Dim
                y Variable decl
                gelu Function lib
                x Parameter
                y Variable
                g Function decl
                x Parameter decl
                n GenericAxis decl
                ?k UnknownSize
                x Parameter
                ?k UnknownSize"#]],
        );
    }
}
