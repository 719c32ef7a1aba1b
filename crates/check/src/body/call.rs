//! Calls: finds the callee (a fn, an extern fn, a library stub, a built-in,
//! a method, `m(x)` as `forward`, a record's construction), binds positional
//! and keyword arguments to parameters (E0407), checks `Axis`, `Axes` and
//! `Size` arguments (E0405, E0406), solves the callee's generic axes from the
//! arguments' sizes (E0401, E0402), unifies dtype-less parameters' dtypes
//! (E0502), and works out the result type, rounded divisions included.
//! Every diagnostic about an argument points at it, with a secondary label
//! at the parameter in the callee's signature, whatever file that is in.

use syntax::Name;

use std::borrow::Cow;

use smallvec::SmallVec;

use diag::{Diagnostic, Span};
use syntax::ast::{self, ScalarKind};

use super::expr::position_of;
use super::shape::{axis_poly, axis_poly_ref, effective_dtype, is_float, show_ty};

use super::callee::Resolved;
use super::{error_ty, FnChecker};
use crate::codes;
use crate::signature::Signature;
use crate::size::{Poly, Size, Symbol};
use crate::solver::{Equation, Solver};
use crate::typed::{BoundArg, CallInfo, Callee, ExprInfo};
use crate::types::{Axis, AxisKind, Domain, DtypeKind, TensorTy, Ty, TyKind};

/// A callee's name as messages show it, `f` or `Model.method`: written
/// out only when a message is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TargetName {
    pub model: Option<Name>,
    pub name: Name,
}

impl std::fmt::Display for TargetName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.model {
            Some(model) => write!(f, "{model}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// What is being called, once resolved.
pub(crate) struct Target<'s> {
    pub signature: &'s Signature,
    /// The callee's declared parameters, for defaults.
    pub params: &'s [ast::Param],
    pub name: TargetName,
    pub callee: Callee,
    /// A method's receiver: the model's size parameters and the use's arguments.
    pub receiver: Option<(Vec<Name>, Vec<Size>)>,
}

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    pub(crate) fn call(&mut self, e: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) -> Ty {
        let span = e.span;
        match self.resolve_callee(callee) {
            Resolved::Target(target) => self.call_target(e, &target, args),
            Resolved::Builtin(name) => crate::builtins::call(self, e, name, args),
            Resolved::Record(file, name) => self.construct_record(e, file, &name, args),
            Resolved::Failed => {
                for a in args {
                    if !matches!(
                        a.value.kind,
                        ast::ExprKind::Pattern(_)
                            | ast::ExprKind::Shape(_)
                            | ast::ExprKind::AxisGroup(_)
                    ) {
                        self.expr(&a.value);
                    }
                }
                self.record(span, error_ty(span), ExprInfo::Plain)
            }
        }
    }

    /// Binds arguments to parameters by position and keyword (E0407).
    /// Returns, per parameter, the argument given.
    pub(crate) fn bind_args<'e>(
        &mut self,
        fname: &(impl std::fmt::Display + ?Sized),
        names: &[&str],
        required: &[bool],
        args: &'e [ast::Arg],
        decl: Option<(Span, &[Span])>,
    ) -> Option<Slots<'e>> {
        let mut slots: Slots = smallvec::smallvec![None; names.len()];
        let mut next = 0;
        let mut ok = true;
        for arg in args {
            let index = match &arg.name {
                Some(key) => match names.iter().position(|n| *n == key.name) {
                    Some(i) => i,
                    None => {
                        let mut d = Diagnostic::error(
                            codes::E0407,
                            format!("`{fname}` has no parameter `{}`", key.name),
                        )
                        .with_primary(key.span, "unknown keyword")
                        .with_note(format!("its parameters are {}", show_names(names)));
                        if let Some((at, _)) = decl {
                            d = d.with_secondary(at, "the parameters are declared here");
                        }
                        self.diagnostics.push(d);
                        ok = false;
                        continue;
                    }
                },
                None => {
                    while next < slots.len() && slots[next].is_some() {
                        next += 1;
                    }
                    if next >= names.len() {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::E0407,
                                format!(
                                    "`{fname}` takes {} arguments, but more were given",
                                    names.len()
                                ),
                            )
                            .with_primary(arg.span, "one too many")
                            .with_note(format!("its parameters are {}", show_names(names))),
                        );
                        ok = false;
                        continue;
                    }
                    next
                }
            };
            if let Some(first) = slots[index] {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0407,
                        format!("argument `{}` of `{fname}` is given twice", names[index]),
                    )
                    .with_primary(arg.span, "given again here")
                    .with_secondary(first.span, "first given here"),
                );
                ok = false;
                continue;
            }
            slots[index] = Some(arg);
        }
        if ok {
            for (i, slot) in slots.iter().enumerate() {
                if slot.is_none() && required[i] {
                    let mut d = Diagnostic::error(
                        codes::E0407,
                        format!("`{fname}` is missing argument `{}`", names[i]),
                    )
                    .with_primary(
                        args.last()
                            .map_or_else(|| Span::new(self.file, 0, 0), |a| a.span),
                        format!("`{}` not given", names[i]),
                    );
                    if let Some((_, spans)) = decl {
                        if let Some(at) = spans.get(i) {
                            d = d.with_secondary(*at, "parameter declared here");
                        }
                    }
                    self.diagnostics.push(d);
                    ok = false;
                }
            }
        }
        ok.then_some(slots)
    }

    fn call_target(&mut self, e: &ast::Expr, target: &Target, args: &[ast::Arg]) -> Ty {
        let span = e.span;
        // A callee whose own mistake was reported: its result is unknown, quietly.
        let key = match &target.callee {
            Callee::Fn { file, name } => Some((*file, Name::EMPTY, *name)),
            Callee::Method {
                file,
                model,
                method,
            } => Some((*file, *model, *method)),
            _ => None,
        };
        // (An extern fn may have `...` and Axis/Size parameters; a `fn` can't.)
        if key.as_ref().is_some_and(|k| {
            super::signature_broken(target.signature) || self.ctx.quiet.contains(k)
        }) {
            for a in args {
                self.expr(&a.value);
            }
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let sig = target.signature;
        // Inline: a call has a handful of parameters, and these live only
        // while it is checked.
        let names: SmallVec<[&str; 8]> = sig.params.iter().map(|p| &*p.name).collect();
        let required: SmallVec<[bool; 8]> = (0..names.len())
            .map(|i| target.params.get(i).is_none_or(|p| p.default.is_none()))
            .collect();
        let spans: SmallVec<[Span; 8]> = sig.params.iter().map(|p| p.span).collect();
        let Some(slots) = self.bind_args(
            &target.name,
            &names,
            &required,
            args,
            Some((spans.first().copied().unwrap_or(span), &spans)),
        ) else {
            for a in args {
                self.expr(&a.value);
            }
            return self.record(span, error_ty(span), ExprInfo::Plain);
        };
        // Evaluate the arguments that are values.
        let mut arg_tys: SmallVec<[Option<Ty>; 6]> = smallvec::smallvec![None; names.len()];
        for (i, slot) in slots.iter().enumerate() {
            if let Some(arg) = slot {
                if !matches!(
                    sig.params[i].ty.kind,
                    TyKind::Axis(_) | TyKind::Axes(_) | TyKind::SizeParam(_)
                ) {
                    arg_tys[i] = Some(self.expr(&arg.value));
                }
            }
        }
        // An argument whose mistake was reported: the call's result is unknown, quietly.
        if arg_tys
            .iter()
            .flatten()
            .any(|t| matches!(t.kind, TyKind::Error))
        {
            for (i, slot) in slots.iter().enumerate() {
                if let (Some(arg), None) = (slot, &arg_tys[i]) {
                    if !matches!(arg.value.kind, ast::ExprKind::Name(_)) {
                        self.expr(&arg.value);
                    }
                }
            }
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let mut call = CallState {
            solver: Solver::new(self.ctx.env.dims),
            tags: SmallVec::new(),
            equations: SmallVec::new(),
            rest: None,
        };
        let vars: SmallVec<[Symbol; 8]> =
            sig.generics.iter().map(|g| call.solver.var(*g)).collect();
        if let Some((params, values)) = &target.receiver {
            for (p, v) in params.iter().zip(values) {
                if let Some(i) = sig.generics.iter().position(|g| g == p) {
                    call.solver.set(i as u32, v.poly.clone());
                }
            }
        }
        let rename = |poly: &Poly| -> Poly {
            // The common axis is one generic: no arithmetic needed.
            if let Some(Symbol::Generic(n)) = poly.as_symbol() {
                if let Some(i) = sig.generics.iter().position(|g| g == n) {
                    return Poly::symbol(vars[i].clone());
                }
            }
            poly.substitute(&|s| match s {
                Symbol::Generic(n) => sig
                    .generics
                    .iter()
                    .position(|g| g == n)
                    .map(|i| Poly::symbol(vars[i].clone())),
                _ => None,
            })
            .unwrap_or_else(|_| poly.clone())
        };
        let mut failed = false;
        let mut bound: Vec<BoundArg> = Vec::with_capacity(names.len());
        let mut shapeless_args: Vec<(Ty, Span)> = Vec::new();
        // Dtype-less float parameters share one dtype.
        let mut float_dtype: Option<(DtypeKind, Span)> = None;
        for (i, param) in sig.params.iter().enumerate() {
            if failed {
                // One mistake per call: the first argument that fails.
                break;
            }
            let slot = slots[i];
            bound.push(match slot {
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
            let Some(arg) = slot else { continue };
            // Groups need no flattening here: `axis_poly` multiplies them out.
            let pty = &param.ty;
            match &pty.kind {
                TyKind::Tensor(pt) => {
                    // A tensor argument is always evaluated; were it not, it
                    // would be an error type, which needs nothing more.
                    let Some(aty) = &arg_tys[i] else { continue };
                    match &aty.kind {
                        TyKind::Error => {}
                        TyKind::Tensor(at) => {
                            // dtype rules
                            let got = effective_dtype(at);
                            match (pt.dtype, got) {
                                (Some(want), Some(got))
                                    if want != got && is_float(want) && is_float(got) =>
                                {
                                    let d = self.arg_diagnostic(
                                        codes::E0502,
                                        format!(
                                            "argument `{}` of `{}` is {}, but the parameter is {}",
                                            param.name,
                                            target.name,
                                            got.as_str(),
                                            want.as_str()
                                        ),
                                        arg.value.span,
                                        format!("this is {}", got.as_str()),
                                        target,
                                        i,
                                        aty,
                                        &call.solver,
                                    );
                                    self.diagnostics.push(d.with_help(format!(
                                        "convert it: `... to {}`",
                                        want.as_str()
                                    )));
                                    failed = true;
                                }
                                (None, Some(got))
                                    if is_float(got)
                                        && !matches!(
                                            pt.domain,
                                            Some(Domain::Index(_) | Domain::Bool)
                                        ) =>
                                {
                                    match float_dtype {
                                        Some((first, first_at)) if first != got => {
                                            let d = self.arg_diagnostic(
                                                codes::E0502,
                                                format!(
                                                    "`{}` is called with both {} and {} tensors",
                                                    target.name,
                                                    first.as_str(),
                                                    got.as_str()
                                                ),
                                                arg.value.span,
                                                format!("this is {}", got.as_str()),
                                                target,
                                                i,
                                                aty,
                                                &call.solver,
                                            );
                                            self.diagnostics.push(
                                            d.with_secondary(first_at, format!("this is {}", first.as_str()))
                                                .with_note("parameters without a dtype take any float dtype, but the same one for all of them in a call")
                                                .with_help(format!("convert one of them: `... to {}`", first.as_str())),
                                        );
                                            failed = true;
                                        }
                                        None => float_dtype = Some((got, arg.value.span)),
                                        _ => {}
                                    }
                                }
                                _ => {}
                            }
                            match (&pt.shape, &at.shape) {
                                (None, _) => shapeless_args.push((aty.clone(), arg.value.span)),
                                (Some(_), None) => {}
                                (Some(ps), Some(as_)) => {
                                    if !self.match_shape(
                                        &mut call, ps, as_, i, &rename, target, arg, aty,
                                    ) {
                                        failed = true;
                                    }
                                }
                            }
                        }
                        TyKind::Scalar(ScalarKind::Int | ScalarKind::Float)
                            if pt.shape.as_ref().is_none_or(|s| s.is_empty()) => {}
                        _ => {
                            let d = self.arg_diagnostic(
                                codes::E0408,
                                format!(
                                    "argument `{}` of `{}` is not a tensor",
                                    param.name, target.name
                                ),
                                arg.value.span,
                                format!(
                                    "expected `{}`, found `{}`",
                                    show_ty(&param.ty),
                                    show_ty(aty)
                                ),
                                target,
                                i,
                                aty,
                                &call.solver,
                            );
                            self.diagnostics.push(d);
                            failed = true;
                        }
                    }
                }
                TyKind::Axis(n) | TyKind::Axes(n) => {
                    let first = arg_tys.first().cloned().flatten();
                    match self.axis_argument(arg, first.as_ref(), target, i) {
                        AxisArg::Position(position, size) => {
                            call.tags.push((i, None));
                            call.equations.push(Equation {
                                callee: rename(&n.poly),
                                caller: Cow::Owned(size),
                                tag: call.tags.len() - 1,
                            });
                            bound[i] = if matches!(pty.kind, TyKind::Axis(_)) {
                                BoundArg::Axis { position }
                            } else {
                                BoundArg::Axes {
                                    positions: vec![position],
                                }
                            };
                        }
                        AxisArg::Quiet => {}
                        AxisArg::Failed => failed = true,
                    }
                }
                TyKind::SizeParam(s) => match self.static_size(&arg.value) {
                    Some(value) => {
                        self.record(
                            arg.value.span,
                            Ty {
                                kind: TyKind::Scalar(ScalarKind::Int),
                                span: arg.value.span,
                            },
                            ExprInfo::SizeValue {
                                size: Size::computed(value.clone()),
                            },
                        );
                        let renamed = rename(&s.poly);
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
                        bound[i] = BoundArg::Size {
                            value: Size::computed(value),
                        };
                    }
                    None => {
                        let ty = self.expr(&arg.value);
                        if !matches!(ty.kind, TyKind::Error) {
                            let d = self.arg_diagnostic(
                                codes::E0406,
                                format!(
                                    "`{}` takes a size known before the program runs",
                                    param.name
                                ),
                                arg.value.span,
                                format!("this is `{}`, known only at run time", show_ty(&ty)),
                                target,
                                i,
                                &ty,
                                &call.solver,
                            );
                            self.diagnostics.push(
                                d.with_help("a `Size` argument is a number, a dim or an axis name"),
                            );
                        }
                        failed = true;
                    }
                },
                _ => {
                    let aty = arg_tys[i].clone().unwrap_or_else(|| error_ty(arg.span));
                    if let Some(super::shape::Mismatch::Kind) =
                        super::same_ty(self.ctx.env.dims, &aty, pty)
                    {
                        let d = self.arg_diagnostic(
                            codes::E0408,
                            format!(
                                "argument `{}` of `{}` has the wrong kind",
                                param.name, target.name
                            ),
                            arg.value.span,
                            format!(
                                "expected `{}`, found `{}`",
                                show_ty(&param.ty),
                                show_ty(&aty)
                            ),
                            target,
                            i,
                            &aty,
                            &call.solver,
                        );
                        self.diagnostics.push(d);
                        failed = true;
                    }
                }
            }
        }
        if failed {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        // Size parameters left out: their defaults.
        for (i, param) in sig.params.iter().enumerate() {
            if slots[i].is_some() {
                continue;
            }
            let TyKind::SizeParam(s) = &param.ty.kind else {
                continue;
            };
            let Some(Symbol::Var(v)) = rename(&s.poly).as_symbol().cloned() else {
                continue;
            };
            match target
                .params
                .get(i)
                .and_then(|p| p.default.as_ref())
                .map(|d| &d.kind)
            {
                Some(ast::ExprKind::Int(n)) => {
                    let n = i128::try_from(*n).unwrap_or(i128::MAX);
                    call.solver.set(v, Poly::constant(n));
                    bound[i] = BoundArg::Size {
                        value: Size::computed(Poly::constant(n)),
                    };
                }
                Some(ast::ExprKind::Name(k)) => {
                    if let Some(j) = sig.generics.iter().position(|g| **g == *k.name) {
                        call.tags.push((i, None));
                        call.equations.push(Equation {
                            callee: Poly::symbol(Symbol::Var(v))
                                .sub(&Poly::symbol(Symbol::Var(j as u32)))
                                .unwrap_or_default(),
                            caller: Cow::Owned(Poly::default()),
                            tag: call.tags.len() - 1,
                        });
                    }
                }
                _ => {}
            }
        }
        let equations = std::mem::take(&mut call.equations);
        if let Err(failure) = call.solver.solve(&equations) {
            self.report_failure(failure, &call, target, &slots, &arg_tys, span);
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        // Fill in Size bindings solved from defaults.
        for (i, param) in sig.params.iter().enumerate() {
            if let (None, TyKind::SizeParam(s)) = (slots[i], &param.ty.kind) {
                if let Ok(value) = call.solver.apply(&rename(&s.poly)) {
                    bound[i] = BoundArg::Size {
                        value: Size::computed(value),
                    };
                }
            }
        }
        let dtype = float_dtype.map(|(d, _)| d);
        let result = match &sig.ret {
            None => Ty {
                kind: TyKind::Tuple(Vec::new()),
                span,
            },
            Some(ret) => {
                match self.result_type(ret, &call, &rename, dtype, &shapeless_args, target, span) {
                    Some(ty) => ty,
                    None => return self.record(span, error_ty(span), ExprInfo::Plain),
                }
            }
        };
        let result = self.fresh_unknowns(&result);
        let bindings = sig
            .generics
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                call.solver
                    .value(i as u32)
                    .map(|v| (*g, Size::computed(v.clone())))
            })
            .collect();
        let info = CallInfo {
            callee: target.callee.clone(),
            args: bound,
            bindings,
            over: Vec::new(),
            pattern: None,
            operands: Vec::new(),
        };
        self.record(span, Ty { span, ..result }, ExprInfo::Call(Box::new(info)))
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
            let param = &target.signature.params[index];
            let need = match rest_at {
                Some(_) => format!("at least {fixed}"),
                None => fixed.to_string(),
            };
            let d = self.arg_diagnostic(
                codes::E0401,
                format!(
                    "argument `{}` of `{}` has {} {}, but the parameter takes {need}",
                    param.name,
                    target.name,
                    axes.len(),
                    if axes.len() == 1 { "axis" } else { "axes" }
                ),
                arg.value.span,
                format!(
                    "expected `{}`, found `{}`",
                    show_ty(&param.ty),
                    show_ty(aty)
                ),
                target,
                index,
                aty,
                &call.solver,
            );
            self.diagnostics.push(d);
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
        match position_of(shape, &name.name) {
            Some(p) => {
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
            None => {
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
                    let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
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

/// Per parameter, the argument bound to it.
pub(crate) type Slots<'e> = SmallVec<[Option<&'e ast::Arg>; 6]>;

/// Where an equation came from: the parameter, and the (parameter axis,
/// argument axis) for a shape's axis.
pub(crate) type Tag = (usize, Option<(usize, usize)>);

/// Per-call solving state.
pub(crate) struct CallState<'d, 'p> {
    pub(super) solver: Solver<'d, 'p>,
    /// Per equation tag: the parameter, and the (parameter axis, argument axis).
    /// Inline, as the call's other lists: a call has a dozen axes or so.
    pub(super) tags: SmallVec<[Tag; 12]>,
    pub(super) equations: SmallVec<[Equation<'p>; 12]>,
    /// What `...` stands for in this call.
    pub(super) rest: Option<Vec<Axis>>,
}

fn show_names(names: &[&str]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}

/// Unused fields of a tensor type, kept for future domains.
#[allow(dead_code)]
fn shaped(t: &TensorTy) -> bool {
    t.shape.is_some()
}
