//! What the editor shows over a position and beside bindings: the shape and
//! dtype of the tensor expression there (every shape it had, when traced
//! more than once), what the name there is (a definition's parameters and
//! docstring, an operation's call and summary), and inlay hints of the
//! tensors `let` and `def` bind.

use super::forms::{DefKind, Occurrence, Target};
use super::names::Names;
use super::{describe, Analysis};
use diag::Span;
use sexpgpu_graph::{DType, Shape};

/// A hover: Markdown text, and the span it describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    pub markdown: String,
    pub span: Span,
}

/// A hint shown after a binding's name: `: [8, 1024, 768] bf16`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: u32,
    pub label: String,
}

impl Analysis {
    /// What to show over `offset`, with `names` for what the file does not define.
    pub fn hover(&self, offset: u32, names: &Names) -> Option<Hover> {
        let occurrence = self.index.at(offset);
        let named = occurrence.and_then(|o| Some((o.span, self.tensors_named(o)?)));
        let tensor = named.or_else(|| self.tensors_around(offset));
        let mut parts = Vec::new();
        if let Some((_, tensors)) = tensor {
            parts.push(tensor_text(tensors));
        }
        if let Some(about) = occurrence.and_then(|o| self.about(&o.target, names)) {
            parts.push(about);
        }
        let span = occurrence
            .map(|o| o.span)
            .or(tensor.map(|(span, _)| span))?;
        (!parts.is_empty()).then(|| Hover {
            markdown: parts.join("\n\n---\n\n"),
            span,
        })
    }

    /// The tensors a written name stands for: what it evaluated to there,
    /// or, where it is bound (a `let` name, a parameter), what its value
    /// or its uses evaluated to.
    fn tensors_named(&self, occurrence: &Occurrence) -> Option<&[(Shape, DType)]> {
        if let Some(found) = self.tensors_at(occurrence.span) {
            return Some(found);
        }
        let def = &self.index.defs[self.index.def_of(&occurrence.target)?];
        if def.name_span != occurrence.span {
            return None;
        }
        if let Some(value) = def.value {
            return self.tensors_at(value);
        }
        let same =
            |o: &&Occurrence| self.index.def_of(&o.target) == self.index.def_of(&occurrence.target);
        let uses = self.index.occurrences.iter().filter(same);
        uses.filter_map(|o| self.tensors_at(o.span)).next()
    }

    /// What a name refers to, in Markdown.
    fn about(&self, target: &Target, names: &Names) -> Option<String> {
        if let Some(def) = self.index.def_of(target).map(|i| &self.index.defs[i]) {
            let what = match def.kind {
                DefKind::Function => "defn",
                DefKind::Macro => "defmacro",
                DefKind::Graph => "defgraph",
                DefKind::Model => "defmodel",
                DefKind::Run => "defrun",
                DefKind::Value => "def",
                DefKind::Parameter => return Some(format!("parameter `{}`", def.name)),
                DefKind::Local => return Some(format!("local `{}`", def.name)),
            };
            let params = def
                .params
                .as_deref()
                .map(|p| format!(" {p}"))
                .unwrap_or_default();
            let mut text = format!("```sexpgpu\n({what} {}{params})\n```", def.name);
            if let Some(doc) = &def.doc {
                text.push_str(&format!("\n\n{doc}"));
            }
            return Some(text);
        }
        let Target::Global(name) = target else {
            return None;
        };
        let known = names
            .get(name)
            .or_else(|| names.get(&format!("nn/{name}")))?;
        let mut text = format!("```sexpgpu\n{}\n```", known.signature);
        if !known.doc.is_empty() {
            text.push_str(&format!("\n\n{}", known.doc));
        }
        Some(text)
    }

    /// The hints of the tensors bound by `let` and `def` between `start` and `end`.
    pub fn inlay_hints(&self, start: u32, end: u32) -> Vec<InlayHint> {
        self.index
            .defs
            .iter()
            .filter(|d| matches!(d.kind, DefKind::Local | DefKind::Value))
            .filter(|d| start <= d.name_span.end && d.name_span.end <= end)
            .filter_map(|d| {
                let tensors = self.tensors_at(d.value?)?;
                let (shape, dtype) = tensors.first()?;
                let more = if tensors.len() > 1 { " …" } else { "" };
                Some(InlayHint {
                    offset: d.name_span.end,
                    label: format!(": {}{more}", describe(shape, *dtype)),
                })
            })
            .collect()
    }
}

/// The shapes and dtypes of one expression, in Markdown.
fn tensor_text(tensors: &[(Shape, DType)]) -> String {
    let shown: Vec<String> = tensors
        .iter()
        .map(|(s, d)| format!("`{}`", describe(s, *d)))
        .collect();
    match shown.len() {
        1 => format!("tensor {}", shown[0]),
        n => format!("tensor, traced {n} ways: {}", shown.join(", ")),
    }
}
