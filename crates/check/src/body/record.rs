//! Building a record, `Stats(mean=m, std=s)`: every field once, and the
//! record's generic axes solved from the values. Part of `call`.

use syntax::Name;

use diag::{Diagnostic, FileId, Span};
use syntax::ast::{self};

use super::{error_ty, FnChecker};
use crate::codes;
use crate::shape::{axis_poly, show_size, show_ty};
use crate::size::{Poly, Size, Symbol};
use crate::solver::{Equation, Failure, Solver};
use crate::typed::{BoundArg, CallInfo, Callee, ExprInfo, FieldDef};
use crate::types::{Ty, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// `Stats(mean=m, std=s)`: every field once, by keyword or in order.
    pub(super) fn construct_record(
        &mut self,
        e: &ast::Expr,
        file: FileId,
        name: &Name,
        args: &[ast::Arg],
    ) -> Ty {
        let span = e.span;
        let ctx = self.ctx;
        let Some(info) = ctx.models.get(file, name) else {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        let fields = info.def.fields.clone();
        let names: Vec<&str> = fields.iter().map(|f| &*f.name).collect();
        let required = vec![true; names.len()];
        let spans: Vec<Span> = fields.iter().map(|f| f.span).collect();
        let Some(slots) =
            self.bind_args(name, &names, &required, args, Some((info.def.span, &spans)))
        else {
            for a in args {
                self.expr(&a.value);
            }
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        if !self.field_ranks(name, &fields, &slots) {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        // Solve the record's generic axes from the fields' values.
        let params = info.def.size_params.clone();
        let mut solver = Solver::new(self.ctx.env.dims);
        for p in &params {
            solver.var(*p);
        }
        let rename = |poly: &Poly| {
            poly.substitute(&|s| match s {
                Symbol::Generic(n) => params
                    .iter()
                    .position(|p| p == n)
                    .map(|i| Poly::symbol(Symbol::Var(i as u32))),
                _ => None,
            })
            .unwrap_or_else(|_| poly.clone())
        };
        let (equations, tags) = self.record_equations(&fields, &slots, &rename);
        if let Err(failure) = solver.solve(&equations) {
            self.record_failure(failure, name, &fields, &slots, &tags, &solver, span);
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let args = (0..params.len())
            .map(|i| {
                Size::computed(
                    solver
                        .value(i as u32)
                        .cloned()
                        .unwrap_or_else(|| Poly::symbol(Symbol::Generic(params[i]))),
                )
            })
            .collect();
        let ty = Ty {
            kind: TyKind::Named {
                file,
                name: *name,
                args,
            },
            span,
        };
        let info = CallInfo {
            callee: Callee::Record { file, name: *name },
            args: slots
                .iter()
                .map(|s| {
                    s.map_or(BoundArg::NoneDefault, |a| BoundArg::Expr {
                        span: a.value.span,
                        keyword: a.name.is_some(),
                    })
                })
                .collect(),
            bindings: Vec::new(),
            over: Vec::new(),
            pattern: None,
            operands: Vec::new(),
        };
        self.record(span, ty, ExprInfo::Call(Box::new(info)))
    }

    /// Types each field's value and checks its rank against the field's
    /// (E0401); a record's own axis names are generic, so sizes are left to
    /// the solver. False after a reported mistake.
    fn field_ranks(
        &mut self,
        name: &Name,
        fields: &[FieldDef],
        slots: &[Option<&ast::Arg>],
    ) -> bool {
        let mut ok = true;
        for (field, slot) in fields.iter().zip(slots) {
            let Some(arg) = slot else { continue };
            let ty = self.expr(&arg.value);
            let expected = super::flatten_ty(&field.ty);
            // A record's own axis names are generic: only ranks and dims are checked.
            if let (Some(f), Some(x)) = (ty.shape(), expected.shape()) {
                if f.len() != x.len() {
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::E0401,
                            format!(
                                "field `{}` of `{name}` has {} axes, but the value has {}",
                                field.name,
                                x.len(),
                                f.len()
                            ),
                        )
                        .with_primary(arg.value.span, format!("this is `{}`", show_ty(&ty)))
                        .with_secondary(
                            field.span,
                            format!("`{}: {}` is declared here", field.name, show_ty(&field.ty)),
                        ),
                    );
                    ok = false;
                }
            }
            ok &= self.field_dtype(name, field, &ty, arg.value.span);
        }
        ok
    }

    /// A field's value has the field's dtype: the one it names (any
    /// integers for `Index` ids), or a float one for a field without a
    /// dtype, as a parameter without one takes (E0502).
    fn field_dtype(&mut self, name: &Name, field: &FieldDef, ty: &Ty, at: Span) -> bool {
        let (TyKind::Tensor(want), TyKind::Tensor(got)) = (&field.ty.kind, &ty.kind) else {
            return true;
        };
        let is_float = |d: Option<crate::types::DtypeKind>| {
            crate::dtype::category(d) == crate::dtype::Category::Float
        };
        let (want_d, got_d) = (
            crate::shape::effective_dtype(want),
            crate::shape::effective_dtype(got),
        );
        let ids = matches!(want.domain, Some(crate::types::Domain::Index(_)));
        let fits = match want_d {
            None => is_float(got_d),
            Some(_) if ids => crate::dtype::category(got_d) == crate::dtype::Category::Int,
            Some(w) => got_d == Some(w),
        };
        if !fits {
            let wanted = match want_d {
                None => "a float dtype".to_string(),
                Some(w) => w.as_str().to_string(),
            };
            self.diagnostics.push(
                Diagnostic::error(
                    codes::E0502,
                    format!(
                        "field `{}` of `{name}` takes {wanted}, but the value is {}",
                        field.name,
                        crate::dtype::show(got_d)
                    ),
                )
                .with_primary(at, format!("this is `{}`", show_ty(ty)))
                .with_secondary(
                    field.span,
                    format!("`{}: {}` is declared here", field.name, show_ty(&field.ty)),
                )
                .with_help("convert it with `to`"),
            );
        }
        fits
    }

    /// One equation per axis of each field's value against the field's
    /// axis (its generic axes renamed to the solver's variables), each
    /// tagged with its (field, axis).
    fn record_equations(
        &self,
        fields: &[FieldDef],
        slots: &[Option<&ast::Arg>],
        rename: &dyn Fn(&Poly) -> Poly,
    ) -> (Vec<Equation<'static>>, Vec<(usize, usize)>) {
        let mut equations = Vec::new();
        let mut tags = Vec::new();
        for (k, (field, slot)) in fields.iter().zip(slots).enumerate() {
            let Some(arg) = slot else { continue };
            let found = self.body.recent_expr(arg.value.span).map(|e| e.ty.clone());
            let (Some(found), Some(axes)) = (found, field.ty.shape()) else {
                continue;
            };
            let Some(values) = found.shape() else {
                continue;
            };
            for (j, (a, v)) in axes.iter().zip(values).enumerate() {
                if let (Some(p), Some(q)) = (axis_poly(a), axis_poly(v)) {
                    tags.push((k, j));
                    equations.push(Equation {
                        callee: rename(&p),
                        caller: std::borrow::Cow::Owned(q),
                        tag: tags.len() - 1,
                    });
                }
            }
        }
        (equations, tags)
    }

    /// E0401 at the field whose value doesn't fit what the others solved.
    #[allow(clippy::too_many_arguments)]
    fn record_failure(
        &mut self,
        failure: Failure,
        name: &Name,
        fields: &[FieldDef],
        slots: &[Option<&ast::Arg>],
        tags: &[(usize, usize)],
        solver: &Solver,
        span: Span,
    ) {
        let tag = failure.tag();
        let (k, j) = tags[tag];
        let field = &fields[k];
        let at = slots[k].map_or(span, |a| a.value.span);
        let found = self
            .body
            .recent_expr(at)
            .map(|e| show_ty(&e.ty))
            .unwrap_or_default();
        let detail = match &failure {
            Failure::Mismatch { expected, .. } => format!(
                "axis {} must be {} here",
                j + 1,
                show_size(self.ctx.env.dims, expected)
            ),
            _ => format!("axis {} doesn't fit", j + 1),
        };
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0401,
                format!(
                    "field `{}` of `{name}` doesn't fit the other fields",
                    field.name
                ),
            )
            .with_primary(at, detail)
            .with_secondary(
                field.span,
                format!("`{}: {}` is declared here", field.name, show_ty(&field.ty)),
            )
            .with_note(match solver.shown().as_slice() {
                [] => format!("the value is `{found}`"),
                solved => format!(
                    "the value is `{found}`; solved so far: {}",
                    solved.join(", ")
                ),
            }),
        );
    }
}
