//! Document symbols: the outline of one file (declarations, with the fields
//! and methods of models and records as children), from its syntax tree.

use diag::{FileId, Span};
use syntax::ast;

use super::defs::DefKind;
use super::Analysis;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: DefKind,
    /// A short description: a dim's value, a value's type.
    pub detail: Option<String>,
    /// The whole declaration.
    pub span: Span,
    /// The declaring name.
    pub name_span: Span,
    pub children: Vec<Symbol>,
}

impl Analysis {
    pub fn document_symbols(&self, file: FileId) -> Vec<Symbol> {
        let Some(ast) = self.ast(file) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in &ast.items {
            let name = item.name();
            if name.is_missing() {
                continue;
            }
            let Some(def) = self.index().defs.get(&name.span) else {
                continue;
            };
            let detail = match item {
                ast::Item::Dim(d) => match &d.value {
                    ast::DimValue::Size(size) => Some(self.text(size.span).to_string()),
                    ast::DimValue::Alias(list) => Some(self.text(list.span).to_string()),
                },
                _ => None,
            };
            let mut children = Vec::new();
            let (fields, methods): (&[ast::Field], &[ast::Fn]) = match item {
                ast::Item::Model(m) => (&m.fields, &m.methods),
                ast::Item::Record(r) => (&r.fields, &[]),
                _ => (&[], &[]),
            };
            for field in fields.iter().filter(|f| !f.name.is_missing()) {
                let ty = self
                    .index()
                    .defs
                    .get(&field.name.span)
                    .and_then(|d| d.ty.clone());
                children.push(Symbol {
                    name: field.name.name.to_string(),
                    kind: DefKind::Field,
                    detail: ty,
                    span: field.span,
                    name_span: field.name.span,
                    children: Vec::new(),
                });
            }
            for method in methods.iter().filter(|m| !m.name.is_missing()) {
                children.push(Symbol {
                    name: method.name.name.to_string(),
                    kind: DefKind::Method,
                    detail: None,
                    span: method.span,
                    name_span: method.name.span,
                    children: Vec::new(),
                });
            }
            out.push(Symbol {
                name: name.name.to_string(),
                kind: def.kind,
                detail,
                span: item.span(),
                name_span: name.span,
                children,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::tests::analysis;
    use expect_test::{expect, Expect};

    fn check(text: &str, expect: Expect) {
        let (analysis, file, _) = analysis(&[("m.ss", text)]);
        let mut out = String::new();
        for symbol in analysis.document_symbols(file) {
            out.push_str(&format!(
                "{} {} {:?}\n",
                symbol.kind.word(),
                symbol.name,
                symbol.detail
            ));
            for child in symbol.children {
                out.push_str(&format!(
                    "  {} {} {:?}\n",
                    child.kind.word(),
                    child.name,
                    child.detail
                ));
            }
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn declarations_with_members() {
        check(
            "dim D = 4\ndim Images = [b D]\nrecord Stats { mean: [D] }\nmodel M {\n  w: [D D]\n  fn forward(self, x: [n D]) -> [n D] = x @ self.w\n}\n",
            expect![[r#"
                dim D Some("4")
                shape alias Images Some("[b D]")
                record Stats None
                  field mean Some("[D]")
                model M None
                  field w Some("[D D]")
                  method forward None
            "#]],
        );
    }
}
