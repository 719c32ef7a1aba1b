//! A call's result type in the caller's terms: the callee's return type with
//! its generic axes replaced by what the call solved, `...` by the argument's
//! axes, rounded divisions worked out (E0401, E0402, E0406), and sizes no
//! argument determines made unknown. Part of `call`.

use diag::{Diagnostic, Span};
use syntax::Name;

use crate::shape::{axis_of, axis_poly_ref, map_sizes, tensor};

use super::call::CallState;
use super::callee::Target;
use super::FnChecker;
use crate::codes;
use crate::size::{undivided_terms, Formula, Poly, SizeError, Symbol};
use crate::solver::Solver;
use crate::types::{Axis, AxisKind, Domain, DtypeKind, Ty, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// The callee's return type in the caller's terms.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn result_type(
        &mut self,
        ret: &Ty,
        call: &CallState,
        rename: &dyn Fn(&Poly) -> Poly,
        dtype: Option<DtypeKind>,
        shapeless: &[(Ty, Span)],
        target: &Target,
        span: Span,
        names: Option<&[Option<Name>]>,
    ) -> Option<Ty> {
        let kind = match &ret.kind {
            TyKind::Tensor(t) => {
                let shape = match &t.shape {
                    None => match shapeless {
                        [] => None,
                        [(ty, _)] => ty.shape().map(<[Axis]>::to_vec),
                        many => {
                            let operands: Vec<(&Ty, Span)> =
                                many.iter().map(|(t, s)| (t, *s)).collect();
                            self.elementwise(&operands, span, &target.name.to_string())?
                                .0
                                .map(|s| s.to_vec())
                        }
                    },
                    Some(axes) => Some(self.result_axes(axes, call, rename, target, span, names)?),
                };
                // The call's float dtype goes to float tensors only: a `Bool`
                // or `Index` result keeps the dtype its domain says.
                let dtype = match crate::shape::effective_dtype(t) {
                    None => dtype,
                    own => own,
                };
                // `Index[V]`'s size in the caller's terms too; the shape is
                // already (substituting it again would apply the call's
                // bindings twice: `b -> t`, then `t -> W`).
                let domain = match &t.domain {
                    Some(Domain::Index(n)) => {
                        let renamed = rename(&n.poly);
                        let value = if renamed == n.poly {
                            n.poly.clone()
                        } else {
                            match call.solver.apply(&renamed) {
                                Ok(v) => v,
                                Err(e) => return self.size_failed(e, span),
                            }
                        };
                        Some(Domain::Index(Box::new(crate::size::Size::computed(value))))
                    }
                    other => other.clone(),
                };
                return Some(tensor(shape, domain, dtype, span));
            }
            TyKind::Tuple(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(
                        self.result_type(
                            item, call, rename, dtype, shapeless, target, span, names,
                        )?,
                    );
                }
                TyKind::Tuple(out)
            }
            _ => {
                let mut failed = None;
                let mapped = map_sizes(&super::flatten_ty(ret), &mut |p: &Poly| {
                    call.solver.apply(&rename(p)).unwrap_or_else(|e| {
                        failed = Some(e);
                        p.clone()
                    })
                });
                if let Some(e) = failed {
                    return self.size_failed(e, span);
                }
                mapped.kind
            }
        };
        Some(Ty { kind, span })
    }

    /// The axes of a returned shape in the caller's terms: `...` is what the
    /// call's `...` stood for, a rounded division is worked out, and every
    /// other size takes the solved values (an unsolved one made unknown).
    /// A generic axis bound to an axis a pattern named (`j` of size `n`)
    /// keeps that name (`names`, per generic axis).
    fn result_axes(
        &mut self,
        axes: &[Axis],
        call: &CallState,
        rename: &dyn Fn(&Poly) -> Poly,
        target: &Target,
        span: Span,
        names: Option<&[Option<Name>]>,
    ) -> Option<Vec<Axis>> {
        let mut out = Vec::with_capacity(axes.len());
        for axis in axes.iter() {
            match &axis.kind {
                AxisKind::Rest => out.extend(call.rest.clone().unwrap_or_default()),
                AxisKind::Rounded { formula, written } => {
                    let p = self.rounded_size(formula, *written, axis.span, call, target, span)?;
                    out.push(axis_of(p, span));
                }
                _ => match axis_poly_ref(axis) {
                    Some(p) => {
                        let generic = match p.as_symbol() {
                            Some(Symbol::Generic(n)) => {
                                target.signature.generics.iter().position(|g| g == n)
                            }
                            _ => None,
                        };
                        let value = match generic {
                            // One generic axis (the common case): its
                            // solved value as is, as renaming and
                            // substituting would give.
                            Some(i) => call
                                .solver
                                .value(i as u32)
                                .cloned()
                                .unwrap_or_else(|| Poly::symbol(Symbol::Var(i as u32))),
                            None => match call.solver.apply(&rename(&p)) {
                                Ok(value) => value,
                                Err(e) => return self.size_failed(e, span),
                            },
                        };
                        let value = self.unknown_for_unsolved(value, &call.solver);
                        let mut axis = axis_of(value, span);
                        let name = generic.and_then(|i| names?.get(i).copied().flatten());
                        if let (Some(n), AxisKind::Size { name, .. }) = (name, &mut axis.kind) {
                            *name = Some(n);
                        }
                        out.push(axis);
                    }
                    None => out.push(axis.clone()),
                },
            }
        }
        Some(out)
    }

    /// A result size the call's values make too large (E0414) or too long
    /// (E0419): said at the call, never left in the callee's own terms.
    fn size_failed<T>(&mut self, e: SizeError, span: Span) -> Option<T> {
        let d = match e {
            SizeError::TooManyTerms => {
                Diagnostic::error(codes::E0419, "this size has too many terms").with_primary(
                    span,
                    "a size of this call's result has too many terms once multiplied out",
                )
            }
            _ => Diagnostic::error(codes::E0414, "size does not fit in 128 bits").with_primary(
                span,
                "a size of this call's result overflows with these arguments",
            ),
        };
        self.diagnostics.push(d);
        None
    }

    /// A rounded division of an extern fn's return type (`written`, at
    /// `at` in the signature) worked out with the call's values: E0401
    /// below 1, E0406 for a divisor of 0, E0414 on overflow, E0402 when a
    /// size it rounds isn't known.
    fn rounded_size(
        &mut self,
        formula: &Formula,
        written: Name,
        at: Span,
        call: &CallState,
        target: &Target,
        span: Span,
    ) -> Option<Poly> {
        let dims = self.ctx.env.dims;
        let value = |s: &Symbol| match s {
            Symbol::Generic(n) => target
                .signature
                .generics
                .iter()
                .position(|g| g == n)
                .and_then(|i| call.solver.value(i as u32))
                .map(|p| dims.substitute(p).unwrap_or_else(|_| p.clone())),
            Symbol::Dim { file, name } => dims.get(*file, name).map(Poly::constant),
            _ => None,
        };
        let solved = call.solver.shown();
        // The call's bindings that say something (`h = 5`, not `b = b`).
        let with_solved = |d: Diagnostic| {
            if solved.is_empty() {
                d
            } else {
                d.with_note(format!("with {}", solved.join(", ")))
            }
        };
        let d = match formula
            .eval(&value)
            .and_then(|p| dims.substitute(&p).map(|q| (p, q)))
        {
            Ok((p, q)) => match (q.as_constant(), super::expr::least_value(&q)) {
                (Some(v), _) if v < 1 => with_solved(Diagnostic::error(codes::E0401, format!("the result of `{}` would have an axis of size {v}", target.name))
                    .with_primary(span, format!("`{written}` is {v} here"))
                    .with_secondary(at, "the size is worked out here"))
                    .with_help("an axis has at least one element: check the sizes, padding and stride"),
                (None, least) if least.is_none_or(|l| l < 1) => with_solved(Diagnostic::error(codes::E0401, format!("the result of `{}` may have an axis of size below 1", target.name))
                    .with_primary(span, format!("`{written}` is `{q}` here, below 1 for small sizes"))
                    .with_secondary(at, "the size is worked out here"))
                    .with_note("sizes are at least 1, and an unknown size at least 0 (`docs/shapescript/sizes.md`): PyTorch raises for an output smaller than one element")
                    .with_help("pad the input, or write its axis so it leaves room, as `[h + 2]` for a window of 3"),
                _ => return Some(p),
            },
            Err(SizeError::DivideByZero) => with_solved(Diagnostic::error(codes::E0406, format!("a divisor of 0 in the result of `{}`", target.name))
                .with_primary(span, format!("`{written}` divides by 0 here"))
                .with_secondary(at, "the size is worked out here"))
                .with_help("a stride or window of 0 is no stride at all: use 1 or more"),
            Err(SizeError::Overflow) => {
                Diagnostic::error(codes::E0414, "size does not fit in 128 bits")
                    .with_primary(span, "this size overflows")
            }
            Err(SizeError::TooManyTerms) => {
                Diagnostic::error(codes::E0419, "this size has too many terms")
                    .with_primary(span, format!("`{written}` has too many terms once multiplied out"))
                    .with_secondary(at, "the size is worked out here")
            }
            Err(_) => with_solved(Diagnostic::error(codes::E0402, format!("the result of `{}` rounds a size that isn't known", target.name))
                .with_primary(span, format!("`{written}` rounds differently for different sizes here"))
                .with_secondary(at, "the size is worked out here"))
                .with_note("a division in an extern fn's return type rounds down; with a generic size, the divisor must divide the coefficient of every generic size, as `2` does in `(2*t - 1)/2`")
                .with_help(rounding_help(formula.inexact_division(&value))),
        };
        self.diagnostics.push(d);
        None
    }

    /// A size the arguments didn't determine (a model's size parameter seen
    /// through a plain `Lin` type): an unknown size named after it.
    pub(super) fn unknown_for_unsolved(&self, value: Poly, solver: &Solver) -> Poly {
        // Mostly every variable is solved: nothing to rename, no list to make.
        let unsolved = value.terms().iter().any(|t| {
            t.mono
                .factors()
                .iter()
                .any(|(s, _)| matches!(s, Symbol::Var(_)))
        });
        if !unsolved {
            return value;
        }
        let vars: Vec<u32> = value
            .symbols()
            .into_iter()
            .filter_map(|s| match s {
                Symbol::Var(v) => Some(*v),
                _ => None,
            })
            .collect();
        let mut out = value;
        for v in vars {
            // Numbered by `fresh_unknowns` with the result's other unknowns.
            let unknown = Poly::symbol(Symbol::Unknown {
                name: solver.names[v as usize],
                index: 0,
            });
            out = out
                .substitute(&|s| (*s == Symbol::Var(v)).then(|| unknown.clone()))
                .unwrap_or_else(|_| out.clone());
        }
        out
    }
}

/// The help of a rounded division that rounds differently for different
/// values of a generic size: the sizes to write instead, each a multiple
/// of what is written, so never the form the program already has.
fn rounding_help(division: Option<(Poly, Poly)>) -> String {
    let Some((numerator, divisor)) = division else {
        return "take known sizes".to_owned();
    };
    let Some(d) = divisor.as_constant() else {
        return format!("the divisor `{divisor}` isn't a number: pass a number or a dim");
    };
    let instead: Vec<String> = undivided_terms(&numerator, d)
        .iter()
        .map(|(written, wanted)| format!("`{wanted}` for `{written}`"))
        .collect();
    if instead.is_empty() {
        return "take known sizes".to_owned();
    }
    format!(
        "`{numerator}` is divided by `{d}`: take sizes such as {}, or known sizes",
        instead.join(", ")
    )
}
