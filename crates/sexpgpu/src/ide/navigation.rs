//! Where names are defined and used, and the file's outline: a name of the
//! file resolves by lexical scope (`forms`), a library's name to its
//! definition in its library file (named, read-only), a builtin to nothing.

use super::forms::{DefKind, Target};
use super::names::Names;
use super::Analysis;
use diag::Span;

/// A place in the file or in a library file (`nn.sx`), whose span is in
/// that file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Here(Span),
    Library(String, Span),
}

/// One entry of the outline: a top-level definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: DefKind,
    pub detail: Option<String>,
    /// The whole form, and its name.
    pub span: Span,
    pub name_span: Span,
}

impl Analysis {
    /// Where the name at `offset` is defined.
    pub fn definition(&self, offset: u32, names: &Names) -> Option<Location> {
        let occurrence = self.index.at(offset)?;
        if let Some(i) = self.index.def_of(&occurrence.target) {
            return Some(Location::Here(self.index.defs[i].name_span));
        }
        let Target::Global(name) = &occurrence.target else {
            return None;
        };
        let known = names
            .get(name)
            .or_else(|| names.get(&format!("nn/{name}")))?;
        let (file, span) = known.place.clone()?;
        Some(Location::Library(file, span))
    }

    /// Where the name at `offset` is written in the file, its definition
    /// included when `with_definition`.
    pub fn references(&self, offset: u32, with_definition: bool) -> Vec<Span> {
        let Some(occurrence) = self.index.at(offset) else {
            return Vec::new();
        };
        let def = self.index.def_of(&occurrence.target);
        let same = |target: &Target| match def {
            Some(i) => self.index.def_of(target) == Some(i),
            None => *target == occurrence.target,
        };
        self.index
            .occurrences
            .iter()
            .filter(|o| same(&o.target))
            .filter(|o| {
                with_definition || def.is_none_or(|i| self.index.defs[i].name_span != o.span)
            })
            .map(|o| o.span)
            .collect()
    }

    /// The top-level definitions, in order.
    pub fn symbols(&self) -> Vec<Symbol> {
        let mut top: Vec<usize> = self.index.top.values().copied().collect();
        top.sort_unstable();
        top.into_iter()
            .map(|i| {
                let def = &self.index.defs[i];
                Symbol {
                    name: def.name.clone(),
                    kind: def.kind,
                    detail: def.params.clone(),
                    span: def.form_span,
                    name_span: def.name_span,
                }
            })
            .collect()
    }
}
