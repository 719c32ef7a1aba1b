//! Shape aliases as lowering sees them: the table of which aliases are
//! broken (found by `alias`, which checks the declarations) and how long the
//! others are, and the cache of each alias's axes as lowered for a using
//! module, so an alias used by many signatures is lowered once.

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashSet as HashSet;
use syntax::{ast, Name};

use diag::{FileId, Span};

use super::{Lowerer, Place, MAX_AXES};
use crate::codes;
use crate::per_file::PerFile;
use crate::program::Decl;
use crate::size::Symbol;
use crate::types::{Axis, AxisKind};
use std::cell::RefCell;

/// Which aliases can't be replaced because they are on a cycle (or too
/// long), and how many axes each of the others stands for.
#[derive(Default, Debug)]
pub struct Aliases {
    pub(crate) broken: HashSet<(FileId, Name)>,
    /// For the aliases of modules checked in an earlier batch, which later
    /// ones may use: a long chain can cross files.
    pub(crate) lengths: PerFile<Name, usize>,
}

impl Aliases {
    pub fn is_broken(&self, file: FileId, name: impl Into<Name>) -> bool {
        !self.broken.is_empty() && self.broken.contains(&(file, name.into()))
    }
}

/// What lowering remembers across signatures: each shape alias's axes as
/// lowered for a using module, so an alias used by many signatures is
/// lowered once and its axes shared.
#[derive(Default)]
pub struct AliasCache {
    /// By (declaring file, alias name, using module): the alias's axes
    /// when lowering them reported nothing and they hold no unknown sizes,
    /// `...`, rounded divisions or errors (what depends on the signature).
    aliases: RefCell<PerFile<(FileId, Name), LoweredAlias>>,
    /// The aliases used once so far: remembering costs more than lowering
    /// again, so an alias is remembered at its second use.
    used: RefCell<PerFile<(FileId, Name), ()>>,
}

/// A shape alias lowered once for a using module; cheap to clone.
#[derive(Clone)]
pub(super) struct LoweredAlias {
    pub(super) axes: Arc<[Axis]>,
    /// The generic axes its lowering named, in order of first use: a use
    /// introduces them in a parameter and needs them in a return type.
    generics: Rc<[Name]>,
}

impl Lowerer<'_, '_> {
    /// The axes of the alias `path` (written in this module) used as a whole shape.
    pub(super) fn alias_as_shape(&mut self, path: &ast::Path) -> Option<Arc<[Axis]>> {
        match self.lookup(self.module, path) {
            Ok((file, Decl::Alias(decl, list))) => self.alias_found_as_shape(file, decl, list),
            Ok((_, decl)) => {
                let shown = self.show_path(path);
                let kind = ("a shape", "a shape alias");
                self.report(
                    crate::dims::misused(codes::E0310, path, decl, kind)
                        .with_help(format!("write the shape in brackets, as in `[{shown}]`")),
                );
                None
            }
            Err(error) => {
                self.report_lookup(error);
                None
            }
        }
    }

    /// The axes of the alias `decl` of `file`, whose axes are `list`, used
    /// as a whole shape in this module.
    pub(super) fn alias_found_as_shape(
        &mut self,
        file: FileId,
        decl: &ast::Dim,
        list: &ast::ShapeList,
    ) -> Option<Arc<[Axis]>> {
        if self.env.aliases.is_broken(file, decl.name.name) {
            self.lost_names();
            return None;
        }
        if let Some(found) = self.remembered_alias(file, decl.name.name, 0) {
            return Some(found.axes);
        }
        if !self.used_before(file, decl.name.name) {
            return Some(self.lower_shape_shared(list, file));
        }
        let mut out = Vec::with_capacity(list.axes.len());
        let axes = match self.lower_alias_into(&mut out, list, file, None, decl.name.name, true) {
            (_, Some(found)) => found.axes,
            (_, None) => out.into(),
        };
        Some(axes)
    }

    /// The alias `name` of `file` as lowered before for this module, when
    /// this signature can take it as it is: its generic names introduced
    /// here (or known, in a return type) and `already` axes plus its own
    /// within `MAX_AXES`. Introduces its generic names.
    pub(super) fn remembered_alias(
        &mut self,
        file: FileId,
        name: Name,
        already: usize,
    ) -> Option<LoweredAlias> {
        if !self.expand_aliases {
            return None;
        }
        let found = self
            .env
            .alias_cache
            .aliases
            .borrow()
            .get(self.module, &(file, name))
            .cloned()?;
        if already + found.axes.len() > MAX_AXES {
            return None;
        }
        let known = |g: &Name, order: &[Name]| order.contains(g);
        if self.place == Place::Return
            && !found.generics.iter().all(|g| known(g, &self.generic_order))
        {
            return None;
        }
        for &g in found.generics.iter() {
            if !known(&g, &self.generic_order) {
                self.generic_order.push(g);
            }
            if self.recording > 0 {
                self.resolved.recorded.push(g);
            }
        }
        if found
            .axes
            .iter()
            .any(|a| matches!(a.kind, AxisKind::Group { grouped: false, .. }))
        {
            self.saw_written_group = true;
        }
        Some(found)
    }

    /// Whether this module used the alias `name` of `file` before; notes the use.
    pub(super) fn used_before(&self, file: FileId, name: Name) -> bool {
        self.env
            .alias_cache
            .used
            .borrow_mut()
            .insert(self.module, (file, name), ())
            .is_some()
    }

    /// Lowers the alias `name`'s `list` (declared in `file`) onto `out`, as
    /// `lower_shape_into` would, and remembers its axes when nothing in them
    /// depends on this signature; `whole` when `out` holds nothing else, so
    /// the remembered axes can be `out`'s own. Returns whether it stopped at
    /// `MAX_AXES`, and what it remembered.
    pub(super) fn lower_alias_into(
        &mut self,
        out: &mut Vec<Axis>,
        list: &ast::ShapeList,
        file: FileId,
        via: Option<Span>,
        name: Name,
        whole: bool,
    ) -> (bool, Option<LoweredAlias>) {
        let start = out.len();
        let (diagnostics, lost, recorded) = (
            self.diagnostics.len(),
            self.lost,
            self.resolved.recorded.len(),
        );
        self.recording += 1;
        let stopped = self.lower_shape_into(out, list, file, via, false);
        self.recording -= 1;
        let mut generics: smallvec::SmallVec<[Name; 8]> = smallvec::SmallVec::new();
        for &g in &self.resolved.recorded[recorded..] {
            if !generics.contains(&g) {
                generics.push(g);
            }
        }
        if self.recording == 0 {
            self.resolved.recorded.clear();
        }
        // Without replacing aliases (at the alias's own declaration) the
        // axes are the same only when the list names no alias.
        let clean = !stopped
            && self.diagnostics.len() == diagnostics
            && self.lost == lost
            && (self.expand_aliases || out.len() - start == list.axes.len())
            && out[start..].iter().all(axis_is_plain);
        if !clean {
            return (stopped, None);
        }
        // A whole shape moves into the `Arc` its user shares, leaving `out`
        // empty (a reused buffer keeps its room).
        let axes: Arc<[Axis]> = if whole {
            out.drain(..).collect()
        } else {
            out[start..].iter().cloned().collect()
        };
        let lowered = LoweredAlias {
            axes,
            generics: Rc::from(&generics[..]),
        };
        self.env.alias_cache.aliases.borrow_mut().insert(
            self.module,
            (file, name),
            lowered.clone(),
        );
        (false, Some(lowered))
    }

    /// Makes room for `more` aliases remembered for `module`, so its table grows once.
    pub fn reserve_aliases(&self, module: FileId, more: usize) {
        self.env
            .alias_cache
            .aliases
            .borrow_mut()
            .reserve(module, more);
    }

    /// Checks the alias `name`'s own `list` where it is declared (this
    /// module), and remembers its axes for this module's signatures when
    /// they are the same there.
    pub fn declare_alias(&mut self, name: Name, list: &ast::ShapeList) {
        // In the reused buffer: the axes move out when remembered.
        let mut out = std::mem::take(&mut self.resolved.axes);
        out.clear();
        self.lower_alias_into(&mut out, list, self.module, None, name, true);
        out.clear();
        self.resolved.axes = out;
    }
}

/// Whether an alias's lowered axis is the same in every signature: no
/// mistake, `...`, rounded division or unknown size (numbered per function).
fn axis_is_plain(axis: &Axis) -> bool {
    match &axis.kind {
        // Mostly one symbol or a number: no term list walked.
        AxisKind::Size { size, .. } => match size.poly.as_symbol() {
            Some(symbol) => !matches!(symbol, Symbol::Unknown { .. }),
            None if size.poly.as_constant().is_some() => true,
            None => !size.poly.terms().iter().any(|t| {
                t.mono
                    .factors()
                    .iter()
                    .any(|(s, _)| matches!(s, Symbol::Unknown { .. }))
            }),
        },
        AxisKind::Group { parts, .. } => parts.iter().all(axis_is_plain),
        AxisKind::Rounded { .. } | AxisKind::Rest | AxisKind::Error => false,
    }
}
