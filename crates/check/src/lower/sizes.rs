//! Sizes inside one signature's types: resolves names (dims, generic axes,
//! unknown sizes `?k`), does the arithmetic with exact division (E0402),
//! overflow (E0414) and, in extern return types, rounded division kept as a
//! formula. Part of `lower`; never replaces aliases (its parent does).

use syntax::Name;

use diag::{Diagnostic, FileId, Span};
use syntax::ast::{self, SizeExpr, SizeExprKind, SizeOp};

use super::{alias_in_axis, Lowerer, Place, SizeSpot, SizeVal};
use crate::codes;
use crate::dims::not_a_size;
use crate::program::{Decl, LookupError};
use crate::size::{Formula, Poly, Size, SizeError, Step, Symbol, MAX_TERMS};
use crate::types::{Axis, AxisKind};

impl<'a> Lowerer<'a, '_> {
    /// A size outside shapes (`Index[N]`, `Size[S]`, stack counts, model arguments).
    pub(super) fn lower_plain_size(&mut self, expr: &SizeExpr) -> Option<Size> {
        match self.lower_size(expr, self.module, SizeSpot::Elsewhere)? {
            SizeVal::Poly(poly) => Some(Size::new(poly, self.written(expr, self.module))),
            SizeVal::Formula(_) => {
                self.report(inexact(
                    expr.span,
                    "this division is only exact for some values",
                ));
                None
            }
        }
    }

    pub(super) fn lower_size(
        &mut self,
        expr: &SizeExpr,
        origin: FileId,
        spot: SizeSpot,
    ) -> Option<SizeVal> {
        match &expr.kind {
            SizeExprKind::Int(v) => match i128::try_from(v.get()) {
                Ok(v) => Some(SizeVal::Poly(Poly::constant(v))),
                Err(_) => {
                    self.report(overflow(expr.span));
                    None
                }
            },
            SizeExprKind::Error => {
                self.lost_names();
                None
            }
            SizeExprKind::Unknown(name) => self
                .unknown(name, expr.span)
                .map(|s| SizeVal::Poly(Poly::symbol(s))),
            SizeExprKind::Name(_) | SizeExprKind::Qualified(_) => {
                let path = &expr.kind.path()?;
                // A lone name in a shape was already tried as an alias, so any
                // alias here is part of one axis.
                self.size_name(path, origin, spot)
                    .map(|s| SizeVal::Poly(Poly::symbol(s)))
            }
            SizeExprKind::Binary { op, operands } => {
                let (lhs, rhs) = &**operands;
                let a = self.lower_operand(lhs, origin, spot);
                let b = self.lower_operand(rhs, origin, spot);
                let (a, b) = (a?, b?);
                self.combine(*op, a, b, expr.span)
            }
        }
    }

    /// An operand of `lower_size`'s arithmetic: a number within 64 bits
    /// (the `2` of `2*P`, the `1` of `+ 1`) or a plain name this signature
    /// resolved before is built here, without a call.
    #[inline]
    fn lower_operand(
        &mut self,
        expr: &SizeExpr,
        origin: FileId,
        spot: SizeSpot,
    ) -> Option<SizeVal> {
        match &expr.kind {
            SizeExprKind::Int(v) => {
                if let Ok(v) = i64::try_from(v.get()) {
                    return Some(SizeVal::Poly(Poly::constant(i128::from(v))));
                }
            }
            SizeExprKind::Name(name) if origin == self.module => {
                if let Some(symbol) = self.resolved_symbol(name) {
                    return Some(SizeVal::Poly(Poly::symbol(symbol)));
                }
            }
            _ => {}
        }
        // This recursion follows the size's depth: grow the stack when needed.
        syntax::ensure_sufficient_stack(|| self.lower_size(expr, origin, spot))
    }

    fn combine(&mut self, op: SizeOp, a: SizeVal, b: SizeVal, span: Span) -> Option<SizeVal> {
        let result = match (a, b) {
            (SizeVal::Poly(a), SizeVal::Poly(b)) => match op {
                SizeOp::Add => a.add_owned(&b).map(SizeVal::Poly),
                SizeOp::Sub => a.sub_owned(&b).map(SizeVal::Poly),
                SizeOp::Mul => a.mul(&b).map(SizeVal::Poly),
                SizeOp::Div => match self.divide(&a, &b) {
                    Ok(q) => Ok(SizeVal::Poly(q)),
                    Err(SizeError::Inexact | SizeError::DivisorNotATerm) if self.rounding => Ok(
                        SizeVal::Formula(Formula::poly(a).apply_poly(Step::FloorDiv, b)),
                    ),
                    Err(SizeError::Inexact) => {
                        let diagnostic = self.inexact_detail(span, &a, &b);
                        self.report(diagnostic);
                        return None;
                    }
                    Err(e) => Err(e),
                },
                SizeOp::Pow => match self.exponent(&b) {
                    // A sum's power has a term per way to pick: keep it small.
                    Some(e) if e > 8 && a.terms().len() > 1 => {
                        self.report(not_a_power(
                            span,
                            "a power of a sum above 8 makes too large a size",
                        ));
                        return None;
                    }
                    Some(e) => power(&a, e).map(SizeVal::Poly),
                    None => {
                        self.report(not_a_power(
                            span,
                            "the exponent is not a number known before the program runs",
                        ));
                        return None;
                    }
                },
            },
            (a, b) => {
                let op = match op {
                    SizeOp::Add => Step::Add,
                    SizeOp::Sub => Step::Sub,
                    SizeOp::Mul => Step::Mul,
                    SizeOp::Div => Step::FloorDiv,
                    SizeOp::Pow => {
                        self.report(not_a_power(span, "a power of a rounded size"));
                        return None;
                    }
                };
                Ok(SizeVal::Formula(match b {
                    SizeVal::Poly(b) => into_formula(a).apply_poly(op, b),
                    SizeVal::Formula(b) => into_formula(a).apply(op, b),
                }))
            }
        };
        // The size must also fit once dims are replaced by their values
        // (`A*A` with `dim A = 10**20`), not only as written.
        let result = result.and_then(|v| match v {
            SizeVal::Poly(p) if has_dims(&p) => self.dims_replaced(&p).map(|_| SizeVal::Poly(p)),
            v => Ok(v),
        });
        match result {
            Ok(v) => Some(v),
            Err(SizeError::Overflow) => {
                self.report(overflow(span));
                None
            }
            Err(SizeError::DivideByZero) => {
                self.report(inexact(span, "a division by 0"));
                None
            }
            Err(SizeError::TooManyTerms) => {
                self.report(too_many_terms(span));
                None
            }
            Err(SizeError::DivisorNotATerm) => {
                self.report(inexact(
                    span,
                    "the divisor is a sum, so the quotient is not a size",
                ));
                None
            }
            Err(SizeError::Inexact) => {
                self.report(inexact(span, "this division is only exact for some values"));
                None
            }
        }
    }

    /// E0402 saying why `a / b` isn't whole: the numbers once dims are
    /// replaced (`768 / 5`), or the symbols it depends on (`n` may be odd).
    // Cold and apart, as `Lowerer::report`.
    #[cold]
    #[inline(never)]
    fn inexact_detail(&self, span: Span, a: &Poly, b: &Poly) -> Diagnostic {
        let dims = self.env.dims;
        let value = |s: &Symbol| match s {
            Symbol::Dim { file, name } => dims.get(*file, name).map(Poly::constant),
            _ => None,
        };
        let (Ok(va), Ok(vb)) = (a.substitute(&value), b.substitute(&value)) else {
            return inexact(span, "this division is only exact for some values");
        };
        let label = match (va.as_constant(), vb.as_constant()) {
            (Some(x), Some(y)) => format!("{x} / {y} is not a whole number"),
            _ => format!("`{a}` is not always a multiple of `{b}`"),
        };
        let mut diagnostic = inexact(span, &label);
        let mut symbols = a.symbols();
        symbols.extend(b.symbols());
        symbols.sort();
        symbols.dedup();
        for symbol in symbols {
            if let Some(v) = value(symbol) {
                diagnostic = diagnostic.with_note(format!("`{symbol}` is {v}"));
            }
        }
        diagnostic
    }

    /// Whether a group's size, the product of its parts, leaves the 128-bit
    /// range as written or once dims are replaced by their values (E0414).
    pub(super) fn group_overflows(&self, parts: &[Axis]) -> bool {
        let mut product = Poly::constant(1);
        for part in parts {
            let AxisKind::Size { size, .. } = &part.kind else {
                continue;
            };
            match product.mul(&size.poly) {
                Ok(p) => product = p,
                Err(SizeError::Overflow) => return true,
                // Too many terms is told where the part is written.
                Err(_) => return false,
            }
        }
        has_dims(&product) && self.dims_replaced(&product) == Err(SizeError::Overflow)
    }

    /// `p` with every dim replaced by its value; `Err(Overflow)` when a
    /// coefficient leaves the 128-bit range.
    fn dims_replaced(&self, p: &Poly) -> Result<Poly, SizeError> {
        let dims = self.env.dims;
        p.substitute(&|s: &Symbol| match s {
            Symbol::Dim { file, name } => dims.get(*file, name).map(Poly::constant),
            _ => None,
        })
    }

    /// The exponent of `a**b` in a size: a whole number from 0 to 127,
    /// written or a dim's value.
    fn exponent(&self, b: &Poly) -> Option<u32> {
        let dims = self.env.dims;
        let value = |s: &Symbol| match s {
            Symbol::Dim { file, name } => dims.get(*file, name).map(Poly::constant),
            _ => None,
        };
        let e = b.substitute(&value).ok()?.as_constant()?;
        u32::try_from(e).ok().filter(|e| *e < 128)
    }

    /// Exact division, symbolically or once dims are replaced by their values (`docs/shapescript/sizes.md`).
    fn divide(&self, a: &Poly, b: &Poly) -> Result<Poly, SizeError> {
        match a.div_exact(b) {
            Ok(q) => Ok(q),
            Err(SizeError::Overflow) => Err(SizeError::Overflow),
            // Without dims, replacing them changes nothing: the same answer.
            Err(first) if !has_dims(a) && !has_dims(b) => Err(first),
            Err(first) => {
                let dims = self.env.dims;
                let value = |s: &Symbol| match s {
                    Symbol::Dim { file, name } => dims.get(*file, name).map(Poly::constant),
                    _ => None,
                };
                let (a, b) = (a.substitute(&value)?, b.substitute(&value)?);
                a.div_exact(&b)
                    .map_err(|e| if e == SizeError::Overflow { e } else { first })
            }
        }
    }

    fn unknown(&mut self, name: &ast::Ident, span: Span) -> Option<Symbol> {
        if self.place == Place::Param {
            self.report(
                Diagnostic::error(
                    codes::E0306,
                    format!("unknown size `?{}` in a parameter's type", name.name),
                )
                .with_primary(span, "a parameter's sizes can't be unknown")
                .with_help(format!(
                    "the caller chooses the parameters' sizes: write `{}`",
                    name.name
                )),
            );
            return None;
        }
        let key: Name = name.name;
        let index = match self.unknowns_in_type.iter().find(|(n, _)| *n == key) {
            Some(&(_, index)) => index,
            None => {
                let count = match self.unknown_counts.iter_mut().find(|(n, _)| *n == key) {
                    Some((_, count)) => {
                        *count += 1;
                        *count
                    }
                    None => {
                        self.unknown_counts.push((key, 1));
                        1
                    }
                };
                self.unknowns_in_type.push((key, count));
                count
            }
        };
        Some(Symbol::Unknown { name: key, index })
    }

    /// A name in a size: a dim, else a generic axis.
    pub(super) fn size_name(
        &mut self,
        path: &ast::Path,
        origin: FileId,
        spot: SizeSpot,
    ) -> Option<Symbol> {
        if path.file.is_none() && origin == self.module {
            if let Some(symbol) = self.resolved_symbol(&path.name) {
                return Some(symbol);
            }
        }
        let found = self.lookup(origin, path);
        self.size_name_found(path, origin, spot, found)
    }

    /// `size_name` once `path` was looked up in `origin`.
    pub(super) fn size_name_found(
        &mut self,
        path: &ast::Path,
        origin: FileId,
        spot: SizeSpot,
        found: Result<(FileId, Decl<'a>), LookupError<'_>>,
    ) -> Option<Symbol> {
        let symbol = self.size_name_resolve(path, origin, spot, found);
        if let Some(symbol) = &symbol {
            if path.file.is_none() && origin == self.module {
                self.remember_symbol(path.name.name, symbol);
            }
        }
        symbol
    }

    /// `size_name_found`, without remembering the answer.
    fn size_name_resolve(
        &mut self,
        path: &ast::Path,
        origin: FileId,
        spot: SizeSpot,
        found: Result<(FileId, Decl<'a>), LookupError<'_>>,
    ) -> Option<Symbol> {
        let program = self.env.program;
        let found = match found {
            Ok(found) => Some(found),
            Err(error) if path.file.is_some() => {
                self.report_lookup(error);
                return None;
            }
            // A plain name of another file's alias that isn't declared there:
            // a dim of the using file, or the using signature's own axis.
            Err(_) if origin != self.module => match program.decl(self.module, path.name.name) {
                Some(decl @ Decl::Dim(..)) => Some((self.module, decl)),
                _ => None,
            },
            Err(_) => None,
        };
        match found {
            Some((file, Decl::Dim(d, _))) => {
                self.env
                    .dims
                    .works(file, d.name.name)
                    .then_some(Symbol::Dim {
                        file,
                        name: d.name.name,
                    })
            }
            // Names in shapes are sizes, and a function is not one: a
            // function of the same name does not block a generic axis (as a
            // Rust fn does not block a type parameter).
            Some((_, Decl::Fn(_) | Decl::ExternFn(_))) if path.file.is_none() => {
                self.generic(&path.name)
            }
            Some((_, decl @ Decl::Alias(..))) if spot == SizeSpot::InAxis => {
                self.report(alias_in_axis(path, decl, path.span));
                None
            }
            Some((_, decl)) => {
                self.report(not_a_size(path, decl));
                None
            }
            None => self.generic(&path.name),
        }
    }

    /// A generic axis name: introduced by a parameter's type, used elsewhere.
    #[inline]
    pub(super) fn generic(&mut self, name: &ast::Ident) -> Option<Symbol> {
        let symbol = self.generic_symbol(name);
        if let (Some(record), Some(symbol)) = (self.env.resolutions, &symbol) {
            super::note_symbol(record, name, symbol);
        }
        symbol
    }

    /// `generic`, without noting the resolution.
    #[inline]
    fn generic_symbol(&mut self, name: &ast::Ident) -> Option<Symbol> {
        if self.recording > 0 {
            self.resolved.recorded.push(name.name);
        }
        // A signature has few generic axes: a scan beats hashing the name.
        if let Some(known) = self.generic_order.iter().find(|g| **g == name.name) {
            return Some(Symbol::Generic(*known));
        }
        let key: Name = name.name;
        if self.place != Place::Return {
            self.generic_order.push(key);
            return Some(Symbol::Generic(key));
        }
        if !self.params_incomplete {
            self.report_unknown_size(name);
        }
        None
    }

    /// E0301 for a return type's name that is no size. Apart, and cold:
    /// building the message would make every `generic` call save and
    /// restore registers.
    #[cold]
    #[inline(never)]
    fn report_unknown_size(&mut self, name: &ast::Ident) {
        self.report(
            Diagnostic::error(codes::E0301, format!("cannot find size `{}`", name.name))
                .with_primary(name.span, "not a dim, and no parameter's type has this axis")
                .with_help(format!(
                    "a generic axis is introduced by a parameter's type: use `{0}` in one, or declare `dim {0} = ...`",
                    name.name
                )),
        );
    }

    pub(super) fn source(&self, span: Span, origin: FileId) -> &'a str {
        let text = self.env.map.text(origin);
        text.get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The user's spelling of a size; another file's dims are named as this file names them.
    pub(super) fn written(&self, expr: &SizeExpr, origin: FileId) -> Name {
        // A plain name spelled as itself is already interned.
        if let SizeExprKind::Name(name) = &expr.kind {
            if origin == self.module && expr.span.len() as usize == name.name.len() {
                return name.name;
            }
        }
        if origin == self.module {
            return Name::new(self.source(expr.span, origin));
        }
        let mut out = String::new();
        self.render(expr, origin, &mut out, 0);
        Name::new(&out)
    }

    fn render(&self, expr: &SizeExpr, origin: FileId, out: &mut String, outer: u8) {
        match &expr.kind {
            SizeExprKind::Int(v) => out.push_str(&v.get().to_string()),
            SizeExprKind::Error => out.push('_'),
            SizeExprKind::Unknown(name) => {
                out.push('?');
                out.push_str(&name.name);
            }
            SizeExprKind::Name(_) | SizeExprKind::Qualified(_) => {
                let Some(path) = &expr.kind.path() else {
                    return;
                };
                match self.env.program.lookup(origin, path) {
                    Ok((file, Decl::Dim(..))) if file != self.module => {
                        out.push_str(&self.env.program.import_name(self.module, file));
                        out.push('.');
                        out.push_str(&path.name.name);
                    }
                    _ => out.push_str(&path.name.name),
                }
            }
            SizeExprKind::Binary { op, operands } => {
                let (lhs, rhs) = &**operands;
                let prec = match op {
                    SizeOp::Add | SizeOp::Sub => 1,
                    SizeOp::Mul | SizeOp::Div => 2,
                    SizeOp::Pow => 3,
                };
                if prec < outer {
                    out.push('(');
                }
                if syntax::print::is_negation(*op, lhs) {
                    out.push('-');
                    self.render(rhs, origin, out, prec + 1);
                    if prec < outer {
                        out.push(')');
                    }
                    return;
                }
                self.render(lhs, origin, out, prec);
                out.push_str(if prec == 1 { " " } else { "" });
                out.push_str(op.as_str());
                out.push_str(if prec == 1 { " " } else { "" });
                self.render(rhs, origin, out, prec + 1);
                if prec < outer {
                    out.push(')');
                }
            }
        }
    }

    pub(super) fn show_path(&self, path: &ast::Path) -> String {
        crate::dims::shown_path(path)
    }
}

/// Whether the size names a dim.
fn has_dims(p: &Poly) -> bool {
    p.terms().iter().any(|t| {
        t.mono
            .factors()
            .iter()
            .any(|(s, _)| matches!(s, Symbol::Dim { .. }))
    })
}

fn into_formula(v: SizeVal) -> Formula {
    match v {
        SizeVal::Poly(p) => Formula::poly(p),
        SizeVal::Formula(f) => f,
    }
}

// Cold and apart, as `Lowerer::report`.
#[cold]
#[inline(never)]
pub(super) fn overflow(span: Span) -> Diagnostic {
    Diagnostic::error(codes::E0414, "size does not fit in 128 bits")
        .with_primary(span, "this size overflows")
        .with_note("sizes are computed with 128-bit integers, at most 170141183460469231731687303715884105727")
}

/// E0419: a product of sums past `MAX_TERMS` terms.
#[cold]
#[inline(never)]
fn too_many_terms(span: Span) -> Diagnostic {
    Diagnostic::error(codes::E0419, "this size has too many terms")
        .with_primary(
            span,
            format!("more than {MAX_TERMS} terms once multiplied out"),
        )
        .with_help("give the axis one name, as in `[n]`, or write fewer sums multiplied together")
}

// Cold and apart, as `Lowerer::report`.
#[cold]
#[inline(never)]
/// `a` multiplied by itself `e` times (`n**2` is `n*n`).
fn power(a: &Poly, e: u32) -> Result<Poly, SizeError> {
    let mut out = Poly::constant(1);
    for _ in 0..e {
        out = out.mul(a)?;
    }
    Ok(out)
}

/// E0303 for `a**b` in a size whose power is not a polynomial.
fn not_a_power(span: Span, why: &str) -> Diagnostic {
    Diagnostic::error(codes::E0303, "not a size")
        .with_primary(span, why)
        .with_help("the exponent of `**` in a size is a number or a dim, 0 or more, as in `[n**2]` or `[2**K]`")
}

pub(super) fn inexact(span: Span, why: &str) -> Diagnostic {
    Diagnostic::error(codes::E0402, "size division is not exact")
        .with_primary(span, why)
        .with_note("`a / b` in a size must be exact: `b` a single term that divides every term of `a`, symbolically or once dims are replaced by their values")
        .with_help("write the other size as a multiple instead: `[2*n]` and `[n]` rather than `[n]` and `[n/2]`")
}
