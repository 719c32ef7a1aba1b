//! One argument of a fn, extern fn or method call against its parameter:
//! a tensor's dtype rules (E0502) and shape equations (E0401 for the wrong
//! number of axes or different `...`), an axis named by `over=`-style
//! arguments (E0405, E0406), a `Size` known statically (E0406), and the kind
//! of anything else (E0408). Part of `call`, whose solver takes the
//! equations.

use std::borrow::Cow;

use diag::Diagnostic;
use smallvec::SmallVec;
use syntax::ast::{self, ScalarKind};

use super::call::{CallState, Gathered, Given};
use super::callee::Target;
use super::{error_ty, FnChecker};
use crate::codes;
use crate::shape::{
    axis_poly, axis_poly_ref, effective_dtype, find_axis, is_float, is_size_tuple, show_ty, Found,
};
use crate::size::{Poly, Size, Symbol};
use crate::solver::{Equation, Solver};
use crate::typed::{BoundArg, ExprInfo};
use crate::types::{Axis, AxisKind, Domain, DtypeKind, TensorTy, Ty, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// Binds parameter `i`: what to emit for it, and its argument matched
    /// against it (equations for its sizes); false after a reported mistake.
    pub(super) fn bind_param<'p>(
        &mut self,
        call: &mut CallState<'_, 'p>,
        given: Given<'_, 'p>,
        got: &mut Gathered,
        i: usize,
    ) -> bool {
        let target = given.target;
        let slot = given.slots[i];
        got.bound.push(match slot {
            Some(a) => BoundArg::Expr {
                span: a.value.span,
                keyword: a.name.is_some(),
            },
            None => match target.params.get(i).and_then(|p| p.default.as_ref()) {
                Some(d) if matches!(d.kind, ast::ExprKind::None) => BoundArg::NoneDefault,
                Some(d) => BoundArg::Default { span: d.span },
                None => BoundArg::NoneDefault,
            },
        });
        let Some(arg) = slot else { return true };
        // Groups need no flattening here: `axis_poly` multiplies them out.
        let pty = &target.signature.params[i].ty;
        match &pty.kind {
            TyKind::Tensor(pt) => {
                // A tensor argument is always evaluated; were it not, it
                // would be an error type, which needs nothing more.
                let Some(aty) = &given.tys[i] else {
                    return true;
                };
                self.tensor_arg(call, given, got, i, pt, arg, aty)
            }
            TyKind::Axis(n) | TyKind::Axes(n) => {
                let first = given.tys.first().cloned().flatten();
                let first_span = given
                    .slots
                    .first()
                    .copied()
                    .flatten()
                    .map_or(arg.value.span, |a| a.value.span);
                match self.axis_argument(arg, first.as_ref(), first_span, target, i) {
                    AxisArg::Position(position, size) => {
                        call.tags.push((i, None));
                        call.equations.push(Equation {
                            callee: (given.rename)(&n.poly),
                            caller: Cow::Owned(size),
                            tag: call.tags.len() - 1,
                        });
                        got.bound[i] = if matches!(pty.kind, TyKind::Axis(_)) {
                            BoundArg::Axis { position }
                        } else {
                            BoundArg::Axes {
                                positions: vec![position],
                            }
                        };
                        true
                    }
                    AxisArg::Quiet => true,
                    AxisArg::Failed => false,
                }
            }
            TyKind::SizeParam(s) => self.size_arg(call, given, got, i, &s.poly, arg),
            TyKind::Tuple(items) if is_size_tuple(items) => {
                self.sizes_arg(call, given, i, items, arg)
            }
            _ => self.other_arg(call, given, i, arg),
        }
    }

    /// Matches a tensor argument against a tensor parameter: the dtype
    /// rules (E0502), then the shape's equations (`match_shape`); E0408 for
    /// an argument that is no tensor. False after a reported mistake.
    #[allow(clippy::too_many_arguments)]
    fn tensor_arg<'p>(
        &mut self,
        call: &mut CallState<'_, 'p>,
        given: Given<'_, 'p>,
        got: &mut Gathered,
        i: usize,
        pt: &TensorTy,
        arg: &ast::Arg,
        aty: &'p Ty,
    ) -> bool {
        let target = given.target;
        let param = &target.signature.params[i];
        match &aty.kind {
            TyKind::Error => true,
            TyKind::Tensor(at) => {
                let mut ok = self.dtype_rules(call, given, got, i, pt, at, arg, aty);
                match (&pt.shape, &at.shape) {
                    (None, _) => got.shapeless.push((aty.clone(), arg.value.span)),
                    (Some(_), None) => {}
                    (Some(ps), Some(as_)) => {
                        if !self.match_shape(call, ps, as_, i, given.rename, target, arg, aty) {
                            ok = false;
                        }
                    }
                }
                ok
            }
            TyKind::Scalar(ScalarKind::Int | ScalarKind::Float)
                if pt.shape.as_ref().is_none_or(|s| s.is_empty()) =>
            {
                true
            }
            _ => {
                self.report_mismatch(
                    codes::E0408,
                    format!(
                        "argument `{}` of `{}` is not a tensor",
                        param.name, target.name
                    ),
                    call,
                    target,
                    i,
                    arg,
                    aty,
                );
                false
            }
        }
    }

    /// The dtype rules of one tensor argument (E0502): a float parameter's
    /// dtype is the argument's, and the dtype-less float parameters of a
    /// call share one dtype. False after a reported mistake.
    #[allow(clippy::too_many_arguments)]
    fn dtype_rules(
        &mut self,
        call: &CallState,
        given: Given,
        got: &mut Gathered,
        i: usize,
        pt: &TensorTy,
        at: &TensorTy,
        arg: &ast::Arg,
        aty: &Ty,
    ) -> bool {
        let target = given.target;
        let param = &target.signature.params[i];
        let got_dtype = effective_dtype(at);
        let ids = matches!(pt.domain, Some(Domain::Index(_)));
        match (effective_dtype(pt), got_dtype) {
            (Some(want), Some(found)) if want == found => true,
            // Ids are any integers, as `embedding` and `gather` take them.
            (Some(_), Some(found)) if ids && !is_float(found) && found != DtypeKind::Bool => true,
            (Some(want), found) => {
                let found = crate::dtype::show(found);
                let d = self.arg_diagnostic(
                    codes::E0502,
                    format!(
                        "argument `{}` of `{}` is {found}, but the parameter is {}",
                        param.name,
                        target.name,
                        want.as_str()
                    ),
                    arg.value.span,
                    format!("this is {found}"),
                    target,
                    i,
                    aty,
                    &call.solver,
                );
                self.diagnostics
                    .push(d.with_help(format!("convert it: `... to {}`", want.as_str())));
                false
            }
            (None, found) => match found {
                Some(found) if !is_float(found) => {
                    self.non_float_arg(call, given, i, found, arg, aty);
                    false
                }
                _ => self.shared_float(call, given, got, i, found, arg, aty),
            },
        }
    }

    /// E0502 for an integer or bool tensor given to a parameter without a
    /// dtype, which takes a float dtype (`docs/shapescript/signatures.md`).
    fn non_float_arg(
        &mut self,
        call: &CallState,
        given: Given,
        i: usize,
        found: DtypeKind,
        arg: &ast::Arg,
        aty: &Ty,
    ) {
        let target = given.target;
        let param = &target.signature.params[i];
        let d = self.arg_diagnostic(
            codes::E0502,
            format!(
                "argument `{}` of `{}` is {}, but the parameter takes a float dtype",
                param.name,
                target.name,
                found.as_str()
            ),
            arg.value.span,
            format!("this is {}", found.as_str()),
            target,
            i,
            aty,
            &call.solver,
        );
        self.diagnostics.push(
            d.with_note("a tensor parameter without a dtype takes a float dtype; integer and bool tensors say so: `[n] i64`")
                .with_help("convert it: `... to Real`"),
        );
    }

    /// The dtype-less float parameters of one call share one dtype: E0502
    /// for two float dtypes, or for a concrete float dtype beside a tensor
    /// without one (which takes the caller's float dtype, bf16 in a bf16
    /// model). False after a reported mistake.
    #[allow(clippy::too_many_arguments)]
    fn shared_float(
        &mut self,
        call: &CallState,
        given: Given,
        got: &mut Gathered,
        i: usize,
        found: Option<DtypeKind>,
        arg: &ast::Arg,
        aty: &Ty,
    ) -> bool {
        let target = given.target;
        let first = match (got.float_dtype, found) {
            (None, _) => {
                got.float_dtype = Some((found, arg.value.span));
                return true;
            }
            (Some((first, _)), _) if first == found => return true,
            (Some(first), _) => first,
        };
        let show = |d: Option<DtypeKind>| match d {
            Some(d) => d.as_str().to_string(),
            None => "dtype-less".to_string(),
        };
        let label = |d: Option<DtypeKind>| match d {
            Some(d) => format!("this is {}", d.as_str()),
            None => "this has no dtype: it takes the caller's float dtype".to_string(),
        };
        let d = self.arg_diagnostic(
            codes::E0502,
            format!(
                "`{}` is called with both {} and {} tensors",
                target.name,
                show(first.0),
                show(found)
            ),
            arg.value.span,
            label(found),
            target,
            i,
            aty,
            &call.solver,
        );
        let concrete = first.0.or(found).map_or("f32", |d| d.as_str());
        self.diagnostics.push(
            d.with_secondary(first.1, label(first.0))
                .with_note("parameters without a dtype take any float dtype, but the same one for all of them in a call")
                .with_help(format!("convert one of them: `... to {concrete}`")),
        );
        false
    }

    /// Binds a `Size` parameter to its argument, a size known statically
    /// (E0406 for a run-time value). False after a reported mistake.
    fn size_arg<'p>(
        &mut self,
        call: &mut CallState<'_, 'p>,
        given: Given<'_, 'p>,
        got: &mut Gathered,
        i: usize,
        size: &Poly,
        arg: &ast::Arg,
    ) -> bool {
        let Some(value) = self.size_value(call, given, i, size, &arg.value) else {
            return false;
        };
        got.bound[i] = BoundArg::Size {
            value: Size::computed(value),
        };
        true
    }

    /// One size known before the program runs, `value`, for the parameter
    /// `i`'s size `size`: its equation for the solver (E0406 for a value
    /// known only at run time).
    fn size_value<'p>(
        &mut self,
        call: &mut CallState<'_, 'p>,
        given: Given<'_, 'p>,
        i: usize,
        size: &Poly,
        expr: &ast::Expr,
    ) -> Option<Poly> {
        let Some(value) = self.static_size(expr) else {
            let ty = self.expr(expr);
            if !matches!(ty.kind, TyKind::Error) {
                let param = &given.target.signature.params[i];
                let d = self.arg_diagnostic(
                    codes::E0406,
                    format!(
                        "`{}` takes a size known before the program runs",
                        param.name
                    ),
                    expr.span,
                    format!("this is `{}`, known only at run time", show_ty(&ty)),
                    given.target,
                    i,
                    &ty,
                    &call.solver,
                );
                self.diagnostics
                    .push(d.with_help("a `Size` argument is a number, a dim or an axis name"));
            }
            return None;
        };
        self.record(
            expr.span,
            Ty {
                kind: TyKind::Scalar(ScalarKind::Int),
                span: expr.span,
            },
            ExprInfo::SizeValue {
                size: Size::computed(value.clone()),
            },
        );
        let renamed = (given.rename)(size);
        match renamed.as_symbol() {
            Some(Symbol::Var(v)) if call.solver.value(*v).is_none() => {
                call.solver.set(*v, value.clone())
            }
            _ => {
                call.tags.push((i, None));
                call.equations.push(Equation {
                    callee: renamed,
                    caller: Cow::Owned(value.clone()),
                    tag: call.tags.len() - 1,
                });
            }
        }
        Some(value)
    }

    /// A tuple of sizes, `(16, 32, 32)`, for a parameter of the type
    /// `(Size[A], Size[B], Size[C])`: one size each, known before the
    /// program runs (E0406 for anything else). Python gets the tuple.
    fn sizes_arg<'p>(
        &mut self,
        call: &mut CallState<'_, 'p>,
        given: Given<'_, 'p>,
        i: usize,
        items: &[Ty],
        arg: &ast::Arg,
    ) -> bool {
        let values = match &arg.value.kind {
            ast::ExprKind::Tuple(values) if values.len() == items.len() => values,
            _ => {
                let ty = self.expr(&arg.value);
                if !matches!(ty.kind, TyKind::Error) {
                    let param = &given.target.signature.params[i];
                    let d = self.arg_diagnostic(
                        codes::E0406,
                        format!("`{}` takes a tuple of {} sizes", param.name, items.len()),
                        arg.value.span,
                        format!("this is `{}`", show_ty(&ty)),
                        given.target,
                        i,
                        &ty,
                        &call.solver,
                    );
                    let example: Vec<String> = (1..=items.len()).map(|k| k.to_string()).collect();
                    self.diagnostics.push(d.with_help(format!(
                        "write the sizes in parentheses, as `({})`",
                        example.join(", ")
                    )));
                }
                return false;
            }
        };
        let mut ok = true;
        for (item, value) in items.iter().zip(values) {
            if let TyKind::SizeParam(s) = &item.kind {
                ok &= self.size_value(call, given, i, &s.poly, value).is_some();
            }
        }
        let ints = values
            .iter()
            .map(|v| Ty {
                kind: TyKind::Scalar(ScalarKind::Int),
                span: v.span,
            })
            .collect();
        let ty = Ty {
            kind: TyKind::Tuple(ints),
            span: arg.value.span,
        };
        self.record(arg.value.span, ty, ExprInfo::Plain);
        ok
    }

    /// An argument for a parameter that is neither tensor, axis nor size:
    /// only its kind is checked here (E0408). False after a reported mistake.
    fn other_arg(&mut self, call: &CallState, given: Given, i: usize, arg: &ast::Arg) -> bool {
        let target = given.target;
        let param = &target.signature.params[i];
        let aty = given.tys[i].clone().unwrap_or_else(|| error_ty(arg.span));
        let Some(crate::shape::Mismatch::Kind) = super::same_ty(self.ctx.env.dims, &aty, &param.ty)
        else {
            return true;
        };
        self.report_mismatch(
            codes::E0408,
            format!(
                "argument `{}` of `{}` has the wrong kind",
                param.name, target.name
            ),
            call,
            target,
            i,
            arg,
            &aty,
        );
        false
    }

    /// E0401 for a tensor argument with the wrong number of axes (`found`;
    /// the parameter takes `fixed`, or at least that with `...`).
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn wrong_rank(
        &mut self,
        call: &CallState,
        target: &Target,
        index: usize,
        arg: &ast::Arg,
        aty: &Ty,
        found: usize,
        fixed: usize,
        has_rest: bool,
    ) {
        let param = &target.signature.params[index];
        let need = if has_rest {
            format!("at least {fixed}")
        } else {
            fixed.to_string()
        };
        self.report_mismatch(
            codes::E0401,
            format!(
                "argument `{}` of `{}` has {} {}, but the parameter takes {need}",
                param.name,
                target.name,
                found,
                if found == 1 { "axis" } else { "axes" }
            ),
            call,
            target,
            index,
            arg,
            aty,
        );
    }

    /// Adds the equations of one shaped parameter; false after a reported mistake.
    #[allow(clippy::too_many_arguments)]
    fn match_shape<'p>(
        &mut self,
        call: &mut CallState<'_, 'p>,
        params: &[Axis],
        axes: &'p [Axis],
        index: usize,
        rename: &dyn Fn(&Poly) -> Poly,
        target: &Target,
        arg: &ast::Arg,
        aty: &Ty,
    ) -> bool {
        let rest_at = params.iter().position(|a| matches!(a.kind, AxisKind::Rest));
        let fixed = params.len() - usize::from(rest_at.is_some());
        let fits = match rest_at {
            Some(_) => axes.len() >= fixed,
            None => axes.len() == fixed,
        };
        if !fits {
            self.wrong_rank(
                call,
                target,
                index,
                arg,
                aty,
                axes.len(),
                fixed,
                rest_at.is_some(),
            );
            return false;
        }
        let mut pairs: SmallVec<[(usize, usize); 8]> = SmallVec::new();
        match rest_at {
            None => pairs.extend((0..fixed).map(|j| (j, j))),
            Some(r) => {
                let after = params.len() - r - 1;
                pairs.extend((0..r).map(|j| (j, j)));
                pairs.extend((0..after).map(|j| (r + 1 + j, axes.len() - after + j)));
                let captured: Vec<Axis> = axes[r..axes.len() - after].to_vec();
                match &call.rest {
                    None => call.rest = Some(captured),
                    Some(previous) => {
                        let same = previous.len() == captured.len()
                            && previous.iter().zip(&captured).all(|(x, y)| {
                                match (axis_poly_ref(x), axis_poly_ref(y)) {
                                    (Some(p), Some(q)) => self.ctx.env.dims.same_size(&p, &q),
                                    _ => true,
                                }
                            });
                        if !same {
                            let param = &target.signature.params[index];
                            let d = self.arg_diagnostic(
                                codes::E0401,
                                format!("the `...` axes of argument `{}` of `{}` differ from the first argument's", param.name, target.name),
                                arg.value.span,
                                format!("`...` is `{}` here, but `{}` before", crate::types::show_shape(&captured), crate::types::show_shape(previous)),
                                target,
                                index,
                                aty,
                                &call.solver,
                            );
                            self.diagnostics.push(d.with_note(
                                "`...` stands for the same axes in every type of the signature",
                            ));
                            return false;
                        }
                    }
                }
            }
        }
        for (pj, aj) in pairs {
            let (Some(p), Some(a)) = (axis_poly_ref(&params[pj]), axis_poly_ref(&axes[aj])) else {
                continue;
            };
            call.tags.push((index, Some((pj, aj))));
            call.equations.push(Equation {
                callee: rename(&p),
                caller: a,
                tag: call.tags.len() - 1,
            });
        }
        true
    }

    /// An `Axis`/`Axes` argument: the name of an axis of the first argument.
    fn axis_argument(
        &mut self,
        arg: &ast::Arg,
        first: Option<&Ty>,
        first_span: diag::Span,
        target: &Target,
        index: usize,
    ) -> AxisArg {
        let param = &target.signature.params[index];
        let ast::ExprKind::Name(name) = &arg.value.kind else {
            let ty = self.expr(&arg.value);
            let d = self.arg_diagnostic(
                codes::E0406,
                format!("`{}` takes the name of an axis", param.name),
                arg.value.span,
                "not an axis name".to_string(),
                target,
                index,
                &ty,
                &Solver::new(self.ctx.env.dims),
            );
            let names = first
                .and_then(Ty::shape)
                .map(super::expr::names_of)
                .unwrap_or_default();
            let help = match names.first() {
                Some(n) => format!(
                    "name the axis, as in `{}={n}`; the generated code passes its position",
                    param.name
                ),
                None => "name the axis; the generated code passes its position".to_string(),
            };
            self.diagnostics.push(d.with_help(help));
            return AxisArg::Failed;
        };
        let Some(first) = first else {
            return AxisArg::Quiet;
        };
        let Some(shape) = first.shape() else {
            return AxisArg::Quiet;
        };
        match find_axis(shape, &name.name) {
            Found::Many(hits) => {
                let what = format!("{}=", param.name);
                let d = super::builtins::ambiguous_axis(
                    self, name, shape, &hits, first, first_span, &what,
                );
                self.diagnostics.push(d);
                AxisArg::Failed
            }
            Found::One(p) => {
                let size = axis_poly(&shape[p]).unwrap_or_default();
                self.record(
                    arg.value.span,
                    Ty {
                        kind: TyKind::Scalar(ScalarKind::Int),
                        span: arg.value.span,
                    },
                    ExprInfo::Plain,
                );
                AxisArg::Position(p, size)
            }
            Found::None => {
                let names = super::expr::names_of(shape);
                let first_name = &target.signature.params[0].name;
                let mut d = Diagnostic::error(
                    codes::E0405,
                    format!("`{}` is not an axis of `{first_name}`", name.name),
                )
                .with_primary(name.span, format!("not an axis of `{}`", show_ty(first)))
                .with_secondary(
                    param.span,
                    format!(
                        "parameter `{}` of `{}` is declared here",
                        param.name, target.name
                    ),
                );
                if !names.is_empty() {
                    let list: Vec<String> = shape
                        .iter()
                        .filter(|a| crate::shape::axis_name(a).is_some())
                        .map(Axis::describe)
                        .collect();
                    d = d.with_note(format!("its named axes are {}", list.join(", ")));
                }
                self.diagnostics.push(d);
                AxisArg::Failed
            }
        }
    }
}

enum AxisArg {
    Position(usize, Poly),
    /// The first argument failed: stay quiet.
    Quiet,
    Failed,
}
