//! Completion: after `file.` an imported file's names, after `self.` or a
//! value of a model or record type its fields and methods, after `over=`
//! the axis names of the call's first argument, and elsewhere the names in
//! scope (locals, parameters, generic axes, the file's and the library's
//! declarations) and keywords.

use std::collections::HashSet;

use diag::FileId;

use super::defs::{DefId, DefKind};
use super::Analysis;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Def(DefKind),
    Keyword,
    /// An axis name of a value's type.
    Axis,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
}

const STATEMENT_KEYWORDS: &[&str] = &[
    "let", "return", "if", "else", "for", "in", "as", "to", "none", "true", "false", "and", "or",
    "not", "import", "dim", "extern", "fn", "model", "record",
];

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Analysis {
    pub fn completions(&self, file: FileId, offset: u32) -> Vec<CompletionItem> {
        let text = self.map.text(file);
        let offset = (offset as usize).min(text.len());
        if !text.is_char_boundary(offset) {
            return Vec::new();
        }
        let before = &text[..offset];
        let prefix_start = before.trim_end_matches(is_name_char).len();
        let prefix = &before[prefix_start..];
        let ahead = &before[..prefix_start];
        let mut items = if let Some(base) = ahead.strip_suffix('.') {
            let base_start = base.trim_end_matches(is_name_char).len();
            self.member_completions(file, base_start as u32, base.len() as u32)
        } else if ahead.trim_end().ends_with("over=") || ahead.trim_end().ends_with("over=(") {
            self.axis_completions(file, offset as u32)
        } else {
            self.scope_completions(file, offset as u32)
        };
        items.retain(|item| item.label.starts_with(prefix));
        let mut seen = HashSet::new();
        items.retain(|item| seen.insert(item.label.clone()));
        items
    }

    fn def_item(&self, def: DefId) -> Option<CompletionItem> {
        let def = self.index().defs.get(&def)?;
        Some(CompletionItem {
            label: def.name.clone(),
            kind: CompletionKind::Def(def.kind),
            detail: def.ty.clone().or_else(|| Some(def.kind.word().to_string())),
        })
    }

    /// After `base.`: the base's members.
    fn member_completions(&self, file: FileId, start: u32, end: u32) -> Vec<CompletionItem> {
        let Some(occurrence) = self.index().occurrence_at(file, end) else {
            return Vec::new();
        };
        if occurrence.span.start != start {
            return Vec::new();
        }
        let Some(def) = self.index().defs.get(&occurrence.def) else {
            return Vec::new();
        };
        let members: Vec<DefId> = match def.kind {
            DefKind::Import(Some(target)) => self.top_level(target),
            DefKind::Model | DefKind::Record => self.members_of(def.span),
            _ => def
                .named_ty
                .map(|owner| self.members_of(owner))
                .unwrap_or_default(),
        };
        members
            .into_iter()
            .filter_map(|d| self.def_item(d))
            .collect()
    }

    fn members_of(&self, owner: DefId) -> Vec<DefId> {
        self.index()
            .members
            .get(&owner)
            .into_iter()
            .flatten()
            .map(|(_, d)| *d)
            .collect()
    }

    /// After `over=`: the axis names of the enclosing call's first argument,
    /// else the generic axes and dims in scope.
    fn axis_completions(&self, file: FileId, offset: u32) -> Vec<CompletionItem> {
        let call = self
            .index()
            .calls
            .get(&file)
            .into_iter()
            .flatten()
            .filter(|c| c.args_span.start <= offset && offset <= c.args_span.end)
            .min_by_key(|c| c.args_span.len());
        let first = call.and_then(|c| c.args.first()).map(|(span, _)| *span);
        let names: Vec<String> = first
            .and_then(|span| self.checked.bodies.expr(span))
            .and_then(|e| e.ty.shape().map(|axes| axes.to_vec()))
            .unwrap_or_default()
            .iter()
            .filter_map(|axis| match &axis.kind {
                check::hir::AxisKind::Size {
                    name: Some(name), ..
                } => Some(name.to_string()),
                _ => None,
            })
            .collect();
        if names.is_empty() {
            return self
                .scope_completions(file, offset)
                .into_iter()
                .filter(|i| {
                    matches!(
                        i.kind,
                        CompletionKind::Def(DefKind::Generic | DefKind::Dim | DefKind::SizeParam)
                    )
                })
                .collect();
        }
        names
            .into_iter()
            .map(|label| CompletionItem {
                label,
                kind: CompletionKind::Axis,
                detail: Some("axis".into()),
            })
            .collect()
    }

    /// The top-level declarations of `file`, in the order they are written.
    fn top_level(&self, file: FileId) -> Vec<DefId> {
        let mut names: Vec<DefId> = self
            .index()
            .top
            .get(&file)
            .into_iter()
            .flat_map(|m| m.values().copied())
            .collect();
        names.sort_by_key(|s| (s.file, s.start));
        names
    }

    fn scope_completions(&self, file: FileId, offset: u32) -> Vec<CompletionItem> {
        let mut out: Vec<CompletionItem> = self
            .index()
            .visible
            .iter()
            .filter(|v| v.file == file && v.from <= offset && offset <= v.to)
            .rev()
            .filter_map(|v| self.def_item(v.def))
            .collect();
        for top in std::iter::once(file).chain(self.library.iter().copied()) {
            let names = self.top_level(top);
            out.extend(names.into_iter().filter_map(|d| self.def_item(d)));
        }
        out.extend(STATEMENT_KEYWORDS.iter().map(|k| CompletionItem {
            label: k.to_string(),
            kind: CompletionKind::Keyword,
            detail: None,
        }));
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::tests::analysis;
    use expect_test::{expect, Expect};

    fn check(files: &[(&str, &str)], expect: Expect) {
        let (analysis, file, offset) = analysis(files);
        let labels: Vec<String> = analysis
            .completions(file, offset)
            .into_iter()
            .map(|i| i.label)
            .collect();
        expect.assert_eq(&labels.join(" "));
    }

    #[test]
    fn names_in_scope_by_prefix() {
        check(
            &[(
                "m.ss",
                "dim Depth = 4\nfn f(data: [n Depth]) -> [n Depth] {\n  let dd = data\n  d$0\n}\n",
            )],
            expect!["dd data dropout dim"],
        );
        check(
            &[("m.ss", "fn f(x: Real) -> Real = ge$0\n")],
            expect!["gelu"],
        );
    }

    #[test]
    fn fields_of_self_and_names_of_an_import() {
        check(
            &[("m.ss", "model M {\n  w: [4 4]\n  b: [4]\n  fn forward(self, x: [n 4]) -> [n 4] = x @ self.$0w\n}\n")],
            expect!["w b forward"],
        );
        check(
            &[
                (
                    "app/m.ss",
                    "import vision\nfn f(x: [vision.$0D]) -> [vision.D] = x\n",
                ),
                ("app/vision.ss", "dim D = 2\ndim Images = [b D]\n"),
            ],
            expect!["D Images"],
        );
    }

    #[test]
    fn axis_names_in_types() {
        check(
            &[(
                "m.ss",
                "dim Depth = 4\nfn f(x: [n Depth]) -> [n De$0] = x\n",
            )],
            expect!["Depth"],
        );
    }

    #[test]
    fn axis_names_after_over() {
        check(
            &[(
                "m.ss",
                "dim D = 4\nfn f(x: [b seq D]) -> [b D] = sum(x, over=$0)\n",
            )],
            expect!["seq b D"],
        );
    }

    #[test]
    fn fields_of_a_value_whose_checked_type_is_a_model() {
        check(
            &[(
                "m.ss",
                "model Block {\n  w: [4 4]\n  fn forward(self, x: [n 4]) -> [n 4] = x @ self.w\n}\nmodel Net {\n  blocks: [2] Block\n  fn forward(self, x: [n 4]) -> [n 4] {\n    let y = x\n    for blk in self.blocks {\n      y = blk.$0forward(y)\n    }\n    y\n  }\n}\n",
            )],
            expect!["w forward"],
        );
    }
}
