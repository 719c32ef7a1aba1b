//! Lowering syntax types to checker types inside one signature: resolves the
//! names in sizes (dims, generic axes, unknown sizes), replaces shape aliases
//! by their axes (looking their names up where they are used, and naming
//! another file's dims as the using file does), and does exact division.
//! Reports what is wrong in a single type (E0301, E0303, E0306 for `?k` and
//! `...`, E0309, E0310, E0402, E0414, E2202); the rules about a whole
//! signature live in `signature`.

use std::sync::Arc;
use syntax::Name;

use diag::{Diagnostic, FileId, SourceMap, Span};
use syntax::ast::{self, SizeExpr, SizeExprKind};

mod aliases;
mod sizes;

pub use aliases::{AliasCache, Aliases};

use sizes::overflow;

use crate::codes;
use crate::dims::{not_a_size, DimValues};
use crate::program::{Decl, LookupError, Module, Program};
use crate::resolved::{Recorder, TypeName};
use crate::size::{Formula, Poly, Size, Symbol};
use crate::types::{Axis, AxisKind, Domain, TensorTy, Ty, TyKind};

/// Where the type being lowered stands; decides which names and sizes are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A parameter's type: new names introduce generic axes; `?k` is E0306.
    Param,
    /// A return type: names must be dims or introduced by a parameter.
    Return,
    /// A shape alias's own declaration: every new name is an axis name.
    AliasDecl,
}

/// The most axes one shape may have once its aliases are replaced.
pub const MAX_AXES: usize = 4096;

/// Shared, read-only facts the lowering needs.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub program: &'a Program,
    pub map: &'a SourceMap,
    pub dims: &'a DimValues,
    pub aliases: &'a Aliases,
    pub alias_cache: &'a AliasCache,
    /// Where to note what each name resolves to; `None` (plain `check`)
    /// notes nothing.
    pub resolutions: Option<&'a Recorder>,
}

/// A lowered size: a polynomial, or a formula when it divides with rounding.
enum SizeVal {
    Poly(Poly),
    Formula(Formula),
}

/// The state of lowering one signature's types.
pub struct Lowerer<'a, 'd> {
    pub env: Env<'a>,
    /// The module whose signature this is; set by `new` and `reset`.
    pub module: FileId,
    /// `module`'s own table, when it is a module: a plain name written
    /// there is looked up without finding the module again.
    here: Option<&'a Module>,
    pub place: Place,
    /// Rounded division allowed (an extern fn's return type).
    pub rounding: bool,
    /// `...` allowed (an extern fn).
    pub rest_allowed: bool,
    /// Replace aliases by their axes; off when checking an alias's own
    /// declaration, whose aliases are checked at theirs.
    pub expand_aliases: bool,
    /// The generic axes introduced so far, in order (a signature has few).
    pub generic_order: Vec<Name>,
    /// How many unknown sizes of each name this function has made, for `?k2`.
    /// A function has few unknown names: a list beats hashing.
    unknown_counts: Vec<(Name, u32)>,
    /// The current type's unknown sizes: the same `?k` in one type is one size.
    unknowns_in_type: Vec<(Name, u32)>,
    /// The current type's `...`, for "one per type".
    rest_in_type: Option<Span>,
    /// A parameter's type had a mistake, so it may have lost names it would
    /// have introduced: a return type's unknown names are then not reported.
    params_incomplete: bool,
    /// How many times part of a type went missing: an alias lowered while
    /// this grew is not remembered.
    lost: u32,
    /// While lowering an alias to remember (`recording > 0`); the generic
    /// names asked for meanwhile are in `resolved.recorded`.
    recording: u32,
    /// Plain names of this module already resolved to a size symbol in
    /// this signature: most names recur in a signature (`b` in every
    /// shape), and a short scan beats the module's table and the generic
    /// list again.
    resolved: Scratch,
    /// Set when a lowered shape may hold a written group `(a b)`: without
    /// one, a signature needs no look for the grouped-size hint.
    pub saw_written_group: bool,
    pub diagnostics: &'d mut Vec<Diagnostic>,
}

/// What a plain name of the lowered module resolved to, for `Lowerer::resolved`.
#[derive(Clone, Copy)]
enum Resolved {
    /// A working dim of this file.
    Dim(FileId),
    /// The generic axis at this index of `generic_order` (checked at each
    /// use: a model's lowering truncates the list).
    Generic(u32),
}

/// A lowerer's working buffers, kept across the signatures one lowerer
/// serves (`Lowerer::reset`), as every signature needs them: the resolved
/// plain names, and the axes of the shape being lowered.
#[derive(Default)]
struct Scratch {
    names: Vec<(Name, Resolved)>,
    axes: Vec<Axis>,
    /// While lowering an alias to remember: the generic names asked for,
    /// in order, repeats included (empty between aliases).
    recorded: Vec<Name>,
}

/// The most names one signature remembers: the scan stays short.
const NAME_CACHE_MAX: usize = 24;

/// Axes still to lower, the module they were written in, and the alias use
/// that brought them in.
type Pending<'s> = (&'s [ast::Axis], FileId, Option<Span>);

/// Whether an alias found where a size is wanted is E2202 (part of one axis) or E0303.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SizeSpot {
    /// Inside a shape: a group or arithmetic.
    InAxis,
    /// Outside shapes: `Index[N]`, `Size[S]`, a stack count, a model argument.
    Elsewhere,
}

impl<'a, 'd> Lowerer<'a, 'd> {
    pub fn new(env: Env<'a>, module: FileId, diagnostics: &'d mut Vec<Diagnostic>) -> Self {
        Lowerer {
            env,
            module,
            here: env.program.get_module(module),
            place: Place::Param,
            rounding: false,
            rest_allowed: false,
            expand_aliases: true,
            generic_order: Vec::new(),
            unknown_counts: Vec::new(),
            unknowns_in_type: Vec::new(),
            rest_in_type: None,
            params_incomplete: false,
            lost: 0,
            recording: 0,
            resolved: Scratch::default(),
            saw_written_group: false,
            diagnostics,
        }
    }

    /// Makes this lowerer fresh for another signature of `module`, as
    /// `Lowerer::new` would, keeping its buffers: one lowerer serves every
    /// signature, so none allocates its lists again.
    pub fn reset(&mut self, module: FileId) {
        self.module = module;
        self.here = self.env.program.get_module(module);
        self.place = Place::Param;
        self.rounding = false;
        self.rest_allowed = false;
        self.expand_aliases = true;
        self.generic_order.clear();
        self.unknown_counts.clear();
        self.unknowns_in_type.clear();
        self.rest_in_type = None;
        self.params_incomplete = false;
        self.lost = 0;
        self.recording = 0;
        self.resolved.names.clear();
        self.resolved.recorded.clear();
        self.saw_written_group = false;
    }

    /// `Program::lookup(origin, path)`; a plain name of this module is
    /// found in its table directly.
    #[inline]
    fn lookup<'p>(
        &self,
        origin: FileId,
        path: &'p ast::Path,
    ) -> Result<(FileId, Decl<'a>), LookupError<'p>> {
        if let (None, Some(here)) = (&path.file, self.here) {
            if origin == self.module {
                return match here.decl(path.name.name) {
                    // A function's name in a type is a generic axis there
                    // (`size_name_resolve`), which notes itself.
                    Some(decl @ (Decl::Fn(_) | Decl::ExternFn(_))) => Ok((origin, decl)),
                    Some(decl) => {
                        self.note_decl(origin, path, origin);
                        Ok((origin, decl))
                    }
                    None => Err(LookupError::NotFound(path)),
                };
            }
        }
        let found = self.env.program.lookup(origin, path);
        match &found {
            Ok((_, Decl::Fn(_) | Decl::ExternFn(_))) if path.file.is_none() => {}
            Ok((file, _)) => self.note_decl(origin, path, *file),
            Err(_) => {}
        }
        found
    }

    /// Notes, when resolutions are recorded, that `path` (written in
    /// `origin`) was found in `file`'s table, and its `file.` part.
    #[inline]
    fn note_decl(&self, origin: FileId, path: &ast::Path, file: FileId) {
        if let Some(record) = self.env.resolutions {
            record.note_path(origin, path, file);
        }
    }

    /// Notes, when resolutions are recorded, what the plain name `name`
    /// of this module means as a size.
    #[inline]
    fn note_symbol(&self, name: &ast::Ident, symbol: &Symbol) {
        if let Some(record) = self.env.resolutions {
            note_symbol(record, name, symbol);
        }
    }

    /// The symbol of the plain name `name`, written in this module, when it
    /// was resolved before in this signature (a working dim or a generic
    /// axis still introduced), with the side effects `generic` has.
    fn resolved_symbol(&mut self, ident: &ast::Ident) -> Option<Symbol> {
        let name = ident.name;
        let &(_, found) = self.resolved.names.iter().find(|(n, _)| *n == name)?;
        let symbol = match found {
            Resolved::Dim(file) => Symbol::Dim { file, name },
            Resolved::Generic(index) => {
                if self.generic_order.get(index as usize) != Some(&name) {
                    return None;
                }
                if self.recording > 0 {
                    self.resolved.recorded.push(name);
                }
                Symbol::Generic(name)
            }
        };
        self.note_symbol(ident, &symbol);
        Some(symbol)
    }

    /// Remembers what the plain name `name` of this module resolved to.
    fn remember_symbol(&mut self, name: Name, symbol: &Symbol) {
        if self.resolved.names.len() >= NAME_CACHE_MAX {
            return;
        }
        let found = match symbol {
            Symbol::Dim { file, .. } => Resolved::Dim(*file),
            // Mostly the name `generic` just introduced: the last one.
            Symbol::Generic(_) => match self.generic_order.iter().rposition(|g| *g == name) {
                Some(index) => Resolved::Generic(index as u32),
                None => return,
            },
            _ => return,
        };
        self.resolved.names.push((name, found));
    }

    // Cold and apart: a mistake is rare, and its code inline would make
    // the hot callers save and restore registers.
    #[cold]
    #[inline(never)]
    fn report(&mut self, diagnostic: Diagnostic) {
        self.lost_names();
        self.diagnostics.push(diagnostic);
    }

    // Cold and apart, as `report`.
    #[cold]
    #[inline(never)]
    fn report_lookup(&mut self, error: crate::program::LookupError<'_>) {
        match error.to_diagnostic() {
            Some(diagnostic) => self.report(diagnostic),
            None => self.lost_names(),
        }
    }

    /// Notes that part of a type is missing (a mistake, here or reported before).
    fn lost_names(&mut self) {
        self.lost += 1;
        if self.place == Place::Param {
            self.params_incomplete = true;
        }
    }

    /// Lowers one whole type (a parameter's, a return, an alias's list).
    pub fn lower_type(&mut self, ty: &ast::Type) -> Ty {
        self.unknowns_in_type.clear();
        self.rest_in_type = None;
        self.lower_type_inner(ty)
    }

    fn lower_type_inner(&mut self, ty: &ast::Type) -> Ty {
        let kind = match &ty.kind {
            ast::TypeKind::Tensor {
                shape,
                domain,
                dtype,
            } => {
                let shape = match shape {
                    None => None,
                    Some(ast::Shape::List(list)) => {
                        Some(self.lower_shape_shared(list, self.module))
                    }
                    Some(ast::Shape::Alias(path)) => match self.alias_as_shape(path) {
                        Some(axes) => Some(axes),
                        None => {
                            return Ty {
                                kind: TyKind::Error,
                                span: ty.span,
                            }
                        }
                    },
                };
                let domain = domain.as_ref().map(|d| self.lower_domain(d));
                TyKind::Tensor(TensorTy {
                    shape,
                    domain,
                    dtype: dtype.map(|d| d.kind),
                })
            }
            ast::TypeKind::Scalar(scalar) => TyKind::Scalar(scalar.kind),
            ast::TypeKind::Named { path, args } => self.lower_named(path, args),
            ast::TypeKind::Stack { count, elem } => {
                let count = self.lower_plain_size(count);
                let elem = self.lower_type_inner(elem);
                match count {
                    Some(count) => TyKind::Stack {
                        count,
                        elem: Box::new(elem),
                    },
                    None => TyKind::Error,
                }
            }
            ast::TypeKind::Tuple(items) => {
                TyKind::Tuple(items.iter().map(|t| self.lower_type_inner(t)).collect())
            }
            ast::TypeKind::Axis(n) => self.lower_plain_size(n).map_or(TyKind::Error, TyKind::Axis),
            ast::TypeKind::Axes(n) => self.lower_plain_size(n).map_or(TyKind::Error, TyKind::Axes),
            ast::TypeKind::Size(n) => self
                .lower_plain_size(n)
                .map_or(TyKind::Error, TyKind::SizeParam),
            ast::TypeKind::Error => {
                self.lost_names();
                TyKind::Error
            }
        };
        Ty {
            kind,
            span: ty.span,
        }
    }

    fn lower_domain(&mut self, domain: &ast::Domain) -> Domain {
        match &domain.kind {
            ast::DomainKind::Real => Domain::Real,
            ast::DomainKind::NonNeg => Domain::NonNeg,
            ast::DomainKind::Pos => Domain::Pos,
            ast::DomainKind::NonPos => Domain::NonPos,
            ast::DomainKind::Neg => Domain::Neg,
            ast::DomainKind::Unit => Domain::Unit,
            ast::DomainKind::Signed => Domain::Signed,
            ast::DomainKind::Bool => Domain::Bool,
            ast::DomainKind::Index(n) => match self.lower_plain_size(n) {
                Some(n) => Domain::Index(Box::new(n)),
                None => Domain::Real,
            },
        }
    }

    /// A bare name as a type: a shape alias, a model or a record.
    fn lower_named(&mut self, path: &ast::Path, args: &[SizeExpr]) -> TyKind {
        match self.lookup(self.module, path) {
            Ok((file, Decl::Alias(decl, list))) if args.is_empty() => {
                match self.alias_found_as_shape(file, decl, list) {
                    Some(axes) => TyKind::Tensor(TensorTy {
                        shape: Some(axes),
                        domain: None,
                        dtype: None,
                    }),
                    None => TyKind::Error,
                }
            }
            Ok((file, Decl::Model(_) | Decl::Record(_))) => {
                let args: Vec<Option<Size>> =
                    args.iter().map(|a| self.lower_plain_size(a)).collect();
                if args.iter().any(Option::is_none) {
                    return TyKind::Error;
                }
                TyKind::Named {
                    file,
                    name: path.name.name,
                    args: args.into_iter().flatten().collect(),
                }
            }
            Ok((_, decl)) => {
                let shown = self.show_path(path);
                let what = decl.describe();
                self.report(
                    Diagnostic::error(codes::E0310, format!("`{shown}` is {what}, not a type"))
                        .with_primary(path.span, "expected a type")
                        .with_secondary(decl.name_span(), format!("`{}` is declared here", path.name.name))
                        .with_help("a type is a shape such as `[b n D]`, a domain, a dtype, a shape alias, a model or a record"),
                );
                TyKind::Error
            }
            Err(error) => {
                self.report_lookup(error);
                TyKind::Error
            }
        }
    }

    /// Lowers a `[...]` list written in module `origin`, replacing aliases by
    /// their axes.
    pub fn lower_shape(&mut self, list: &ast::ShapeList, origin: FileId) -> Vec<Axis> {
        let mut out = Vec::with_capacity(list.axes.len());
        self.lower_shape_into(&mut out, list, origin, None, true);
        out
    }

    /// `lower_shape` into the shared form a type holds: lowered in the
    /// scratch buffer and moved into one exact allocation (a `Vec` turned
    /// into an `Arc` is allocated and copied twice).
    fn lower_shape_shared(&mut self, list: &ast::ShapeList, origin: FileId) -> Arc<[Axis]> {
        let mut out = std::mem::take(&mut self.resolved.axes);
        out.clear();
        self.lower_shape_into(&mut out, list, origin, None, true);
        let axes = out.drain(..).collect();
        self.resolved.axes = out;
        axes
    }

    /// Lowers `list` onto `out`; `via` is the alias use that brought it in.
    /// Iterative, so long chains of aliases can't overflow the stack; an
    /// alias among the list's own axes (`top`) is lowered by a nested call,
    /// once, so it can be remembered. True when it stopped at `MAX_AXES`.
    fn lower_shape_into<'s>(
        &mut self,
        out: &mut Vec<Axis>,
        list: &'s ast::ShapeList,
        origin: FileId,
        via: Option<Span>,
        top: bool,
    ) -> bool
    where
        'a: 's,
    {
        out.reserve(list.axes.len());
        // The axes still to lower, the module they were written in, and the
        // alias use that brought them in (for a too-long expansion); the
        // lists an alias's expansion interrupted wait in `outer` (empty
        // while lowering the list's own axes, so nothing is allocated then).
        let (mut axes, mut origin, mut via): Pending<'s> = (&list.axes[..], origin, via);
        let mut outer: Vec<Pending<'s>> = Vec::new();
        loop {
            let Some((axis, rest)) = axes.split_first() else {
                match outer.pop() {
                    Some(next) => {
                        (axes, origin, via) = next;
                        continue;
                    }
                    None => break,
                }
            };
            axes = rest;
            // A lone name is looked up once: as an alias here, else as a size below.
            let mut name_found = None;
            let size_path = match &axis.kind {
                ast::AxisKind::Size(expr) => expr.kind.path().map(|path| (expr, path)),
                _ => None,
            };
            if let Some((expr, path)) = &size_path {
                // A name of this module seen before in this signature: no
                // lookup, and the axis is built as `size_axis` would.
                if path.file.is_none() && origin == self.module && out.len() < MAX_AXES {
                    if let Some(symbol) = self.resolved_symbol(&path.name) {
                        out.push(Axis {
                            kind: symbol_axis(symbol, path.name.name),
                            span: axis.span,
                        });
                        continue;
                    }
                }
                match self.lookup(origin, path) {
                    // `[(Images)]`: parentheses make one axis of what is
                    // inside, so the alias is not expanded: it is E2202
                    // below, as in any other part of one axis.
                    Ok((_, Decl::Alias(..))) if expr.span != path.span => {}
                    Ok((file, Decl::Alias(decl, alias))) => {
                        if !self.expand_aliases {
                            continue;
                        }
                        let name = decl.name.name;
                        if self.env.aliases.is_broken(file, name) {
                            self.lost_names();
                            out.push(Axis {
                                kind: AxisKind::Error,
                                span: axis.span,
                            });
                        } else if let Some(found) = self.remembered_alias(file, name, out.len()) {
                            out.extend(found.axes.iter().cloned());
                        } else if top && outer.is_empty() && self.used_before(file, name) {
                            let via = via.or(Some(axis.span));
                            if self.lower_alias_into(out, alias, file, via, name, false).0 {
                                return true;
                            }
                        } else {
                            outer.push((axes, origin, via));
                            (axes, origin, via) = (&alias.axes, file, via.or(Some(axis.span)));
                        }
                        continue;
                    }
                    found => name_found = Some((expr, path, found)),
                }
            }
            if out.len() == MAX_AXES {
                self.too_many_axes(out, via.unwrap_or(axis.span));
                return true;
            }
            let lowered = match name_found {
                Some((expr, path, found)) => Axis {
                    kind: self.size_name_axis(expr, path, origin, found),
                    span: axis.span,
                },
                None => self.lower_single_axis(axis, origin, false),
            };
            out.push(lowered);
        }
        false
    }

    /// E2203: the shape's aliases expand past `MAX_AXES`; ends `out` with
    /// an error axis.
    #[cold]
    #[inline(never)]
    fn too_many_axes(&mut self, out: &mut Vec<Axis>, span: Span) {
        self.report(
            Diagnostic::error(codes::E2203, format!("this shape has more than {MAX_AXES} axes"))
                .with_primary(span, "the shape aliases here expand to too many axes")
                .with_help("a shape alias that uses another alias twice doubles its length at each step; name fewer axes"),
        );
        out.push(Axis {
            kind: AxisKind::Error,
            span,
        });
    }

    /// The axis of a size written as a name (`path`, in module `origin`),
    /// once the name was looked up (`found`).
    #[inline]
    fn size_name_axis(
        &mut self,
        expr: &SizeExpr,
        path: &ast::Path,
        origin: FileId,
        found: Result<(FileId, Decl<'a>), LookupError<'_>>,
    ) -> AxisKind {
        match self.size_name_found(path, origin, SizeSpot::InAxis, found) {
            // A generic axis or dim named as itself: the axis `size_axis`
            // would build (one symbol is never below 1), without the call.
            // (Found by its plain name, so that is its name.)
            Some(symbol @ (Symbol::Generic(_) | Symbol::Dim { .. }))
                if origin == self.module && matches!(expr.kind, SizeExprKind::Name(_)) =>
            {
                symbol_axis(symbol, path.name.name)
            }
            Some(symbol) => self.size_axis(expr, origin, Poly::symbol(symbol)),
            None => AxisKind::Error,
        }
    }

    /// One axis that is not an alias (or an alias in the wrong place, E2202).
    fn lower_single_axis(&mut self, axis: &ast::Axis, origin: FileId, in_group: bool) -> Axis {
        let kind = match &axis.kind {
            ast::AxisKind::Size(expr) => match self.lower_size(expr, origin, SizeSpot::InAxis) {
                Some(SizeVal::Poly(poly)) => self.size_axis(expr, origin, poly),
                Some(SizeVal::Formula(formula)) => AxisKind::Rounded {
                    formula,
                    written: self.written(expr, origin),
                },
                None => AxisKind::Error,
            },
            ast::AxisKind::Group(_) if in_group => {
                self.report(
                    Diagnostic::error(codes::E0311, "a group can't contain another group")
                        .with_primary(axis.span, "a group inside a group")
                        .with_help("groups nest one level: write the inner axes in the outer group, as in `(a b c)`"),
                );
                AxisKind::Error
            }
            ast::AxisKind::Group(parts) => {
                let mut lowered = Vec::with_capacity(parts.len());
                for part in parts {
                    lowered.push(self.lower_single_axis(part, origin, true));
                }
                self.saw_written_group = true;
                if self.group_overflows(&lowered) {
                    self.report(overflow(axis.span));
                    return Axis {
                        kind: AxisKind::Error,
                        span: axis.span,
                    };
                }
                AxisKind::Group {
                    parts: lowered,
                    written: Name::new(self.source(axis.span, origin)),
                    grouped: false,
                }
            }
            ast::AxisKind::Grouped { factor, name } => {
                self.lower_grouped(factor.get(), name, axis.span, origin)
            }
            ast::AxisKind::Rest => {
                self.check_rest(axis.span, in_group);
                AxisKind::Rest
            }
        };
        Axis {
            kind,
            span: axis.span,
        }
    }

    /// `16gh`: the group `(gh 16)`, introducing `gh` in a parameter.
    fn lower_grouped(
        &mut self,
        factor: u128,
        name: &ast::Ident,
        span: Span,
        origin: FileId,
    ) -> AxisKind {
        let Ok(factor) = i128::try_from(factor) else {
            self.report(overflow(span));
            return AxisKind::Error;
        };
        if let Some(decl) = self.env.program.decl(origin, name.name) {
            let path = ast::Path {
                file: None,
                name: *name,
                span: name.span,
            };
            match decl {
                Decl::Dim(..) => self.report(
                    Diagnostic::error(
                        codes::E0309,
                        format!(
                            "`{}` is a dim, so `{factor}{}` can't group it",
                            name.name, name.name
                        ),
                    )
                    .with_primary(span, "a grouped size takes a new axis name")
                    .with_secondary(decl.name_span(), "the dim is declared here")
                    .with_help(format!(
                        "write the group with parentheses: `({factor} {})`",
                        name.name
                    )),
                ),
                Decl::Alias(..) => self.report(alias_in_axis(&path, decl, span)),
                _ => self.report(not_a_size(&path, decl)),
            }
            return AxisKind::Error;
        }
        let Some(symbol) = self.generic(name) else {
            return AxisKind::Error;
        };
        let axis_name = name.name;
        let inner = Axis {
            kind: AxisKind::Size {
                size: Size::new(Poly::symbol(symbol), axis_name),
                name: Some(axis_name),
            },
            span: name.span,
        };
        // A number shows as its digits: no spelling to keep.
        let number = Axis {
            kind: AxisKind::Size {
                size: Size::computed(Poly::constant(factor)),
                name: None,
            },
            span,
        };
        // `16gh` is one token, so its text is the spelling in any file,
        // unless leading zeros make it differ from the number's.
        let text = self.source(span, origin);
        let written = if text.starts_with('0') {
            Name::new(&format!("{factor}{}", name.name))
        } else {
            Name::new(text)
        };
        AxisKind::Group {
            parts: vec![inner, number],
            written,
            grouped: true,
        }
    }

    fn check_rest(&mut self, span: Span, in_group: bool) {
        if !self.rest_allowed {
            self.report(
                Diagnostic::error(codes::E0306, "`...` is only allowed in an `extern fn`")
                    .with_primary(span, "rest axes in a `fn`")
                    .with_help(
                        "a `fn`'s body is checked, so its shapes name every axis; write them out",
                    ),
            );
        } else if in_group {
            self.report(
                Diagnostic::error(codes::E0306, "`...` can't be inside a group")
                    .with_primary(span, "rest axes inside a group")
                    .with_help("put `...` among the shape's axes, outside the parentheses"),
            );
        } else if let Some(first) = self.rest_in_type {
            self.report(
                Diagnostic::error(codes::E0306, "a type can have only one `...`")
                    .with_primary(span, "second `...`")
                    .with_secondary(first, "first `...` here"),
            );
        } else {
            self.rest_in_type = Some(span);
        }
    }

    /// A size axis. Its spelling is kept only where the polynomial would show
    /// it differently, which saves work on the common `b`, `768`, `D` axes.
    fn size_axis(&mut self, expr: &SizeExpr, origin: FileId, poly: Poly) -> AxisKind {
        if let Some(value) = self.value_below_one(&poly) {
            let written = self.written(expr, origin);
            self.report(
                Diagnostic::error(
                    codes::E0401,
                    format!("axis size `{written}` is {value}, less than 1"),
                )
                .with_primary(expr.span, format!("this is {value}"))
                .with_help("an axis has at least one element"),
            );
            return AxisKind::Error;
        }
        let plain_name = match (&expr.kind, poly.as_symbol()) {
            (SizeExprKind::Name(_), Some(Symbol::Generic(name) | Symbol::Dim { name, .. }))
                if origin == self.module =>
            {
                Some(*name)
            }
            _ => None,
        };
        if let Some(name) = plain_name {
            return AxisKind::Size {
                size: Size {
                    poly,
                    written: Some(name),
                },
                name: Some(name),
            };
        }
        if let SizeExprKind::Int(_) = expr.kind {
            return AxisKind::Size {
                size: Size::computed(poly),
                name: None,
            };
        }
        let written = self.written(expr, origin);
        let name = matches!(
            expr.kind,
            SizeExprKind::Name(_) | SizeExprKind::Qualified(_)
        )
        .then(|| written);
        // `?k` as written would hide which unknown it is: show `?k2`.
        let renumbered = poly.terms().iter().any(|t| {
            t.mono
                .factors()
                .iter()
                .any(|(s, _)| matches!(s, Symbol::Unknown { index, .. } if *index > 1))
        });
        let size = if renumbered {
            Size::computed(poly)
        } else {
            Size::new(poly, written)
        };
        AxisKind::Size { size, name }
    }

    /// The size's value when it is known (numbers and dims only) and below 1.
    fn value_below_one(&self, poly: &Poly) -> Option<i128> {
        // One symbol: a generic axis, or a working dim, which is at least 1.
        if poly.as_symbol().is_some() {
            return None;
        }
        let value = match poly.as_constant() {
            Some(v) => v,
            None => {
                let only_dims = poly.terms().iter().all(|t| {
                    t.mono
                        .factors()
                        .iter()
                        .all(|(s, _)| matches!(s, Symbol::Dim { .. }))
                });
                if !only_dims {
                    return None;
                }
                // Working dims are at least 1 (E0305 otherwise), so a sum
                // of their products with positive coefficients is too.
                if poly.terms().iter().all(|t| t.coef > 0) {
                    return None;
                }
                match self.env.dims.value(poly) {
                    Some(value) => value,
                    // A broken dim or overflow: the slow way tells whether
                    // the size is still a known number.
                    None => self.env.dims.substitute(poly).ok()?.as_constant()?,
                }
            }
        };
        (value < 1).then_some(value)
    }
}

/// `Lowerer::note_symbol`'s work, apart, as `Recorder::note_path`.
#[cold]
#[inline(never)]
pub(crate) fn note_symbol(record: &Recorder, name: &ast::Ident, symbol: &Symbol) {
    let what = match symbol {
        Symbol::Dim { file, name } => TypeName::Decl {
            file: *file,
            name: *name,
        },
        Symbol::Generic(name) => TypeName::Generic(*name),
        _ => return,
    };
    record.note(name.span, what);
}

/// The axis of one symbol written as `name`, as `size_axis` would build it
/// (one symbol is never below 1).
#[inline]
fn symbol_axis(symbol: Symbol, name: Name) -> AxisKind {
    AxisKind::Size {
        size: Size {
            poly: Poly::symbol(symbol),
            written: Some(name),
        },
        name: Some(name),
    }
}

// Cold and apart, as `Lowerer::report`.
#[cold]
#[inline(never)]
fn alias_in_axis(path: &ast::Path, decl: Decl, span: Span) -> Diagnostic {
    let shown = match &path.file {
        Some(file) => format!("{}.{}", file.name, path.name.name),
        None => path.name.name.to_string(),
    };
    Diagnostic::error(
        codes::E2202,
        format!("shape alias `{shown}` used inside one axis"),
    )
    .with_primary(
        span,
        "an alias stands for several axes, so it can't be part of one",
    )
    .with_secondary(
        decl.name_span(),
        format!("`{}` is declared here", path.name.name),
    )
    .with_help(format!(
        "use the alias among a shape's axes, as in `[{shown} D]`"
    ))
}

#[cfg(test)]
mod tests {
    use diag::SourceMap;
    use expect_test::{expect, Expect};
    use syntax::ast;

    use super::{AliasCache, Env, Lowerer, Place};
    use crate::{check_sources, Options};

    /// Lowers the return types of every extern fn in `src` with one lowerer,
    /// as the types of one function's body would be, and shows them.
    fn check_types(src: &str, expect: Expect) {
        let mut map = SourceMap::new();
        let checked = check_sources(&mut map, &[("a.ss", src)], &Options::default());
        let alias_cache = AliasCache::default();
        let env = Env {
            program: &checked.program,
            map: &map,
            dims: &checked.dims,
            aliases: &checked.aliases,
            alias_cache: &alias_cache,
            resolutions: None,
        };
        let module = checked.user_modules().next().unwrap();
        let mut diagnostics = Vec::new();
        let mut lowerer = Lowerer::new(env, module.file, &mut diagnostics);
        lowerer.place = Place::Return;
        let mut shown = String::new();
        for item in &module.ast.items {
            if let ast::Item::ExternFn(ast::ExternFn { ret: Some(ret), .. }) = item {
                shown.push_str(&format!("{}\n", lowerer.lower_type(ret)));
            }
        }
        shown.push_str(&crate::tests::show(&map, &diagnostics));
        expect.assert_eq(&shown);
    }

    #[test]
    fn unknown_sizes_are_numbered_per_function() {
        check_types(
            "extern fn a(x: [n]) -> ([?k], [?k ?j]) = \"m.a\"\nextern fn b(x: [n]) -> [?k ?j] = \"m.b\"\n",
            expect![[r#"
                ([?k], [?k ?j])
                [?k2 ?j2]
            "#]],
        );
    }

    #[test]
    fn sizes_keep_their_spelling() {
        check_types(
            "dim D = 768\ndim H = 12\ndim Dh = D / H\nextern fn a(x: [n]) -> [3*H*Dh  D/H (2*D)/4] = \"m.a\"\n",
            expect![[r#"
                [3*H*Dh D/H (2*D)/4]
            "#]],
        );
    }
}
