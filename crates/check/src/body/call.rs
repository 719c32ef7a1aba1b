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
use crate::shape::{axis_poly, axis_poly_ref, effective_dtype, is_float, show_ty};

use super::callee::{Resolved, Target};
use super::{error_ty, FnChecker};
use crate::codes;
use crate::size::{Poly, Size, Symbol};
use crate::solver::{Equation, Solver};
use crate::typed::{BoundArg, CallInfo, Callee, ExprInfo};
use crate::types::{Axis, AxisKind, Domain, DtypeKind, TensorTy, Ty, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    pub(crate) fn call(&mut self, e: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) -> Ty {
        let span = e.span;
        match self.resolve_callee(callee) {
            Resolved::Target(target) => self.call_target(e, &target, args),
            Resolved::Builtin(name) => super::builtins::call(self, e, name, args),
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
            ok = self.all_required_given(fname, names, required, &slots, args, decl);
        }
        ok.then_some(slots)
    }

    /// Whether every required parameter has an argument; E0407 for each
    /// one missing, at the call's last argument.
    fn all_required_given(
        &mut self,
        fname: &(impl std::fmt::Display + ?Sized),
        names: &[&str],
        required: &[bool],
        slots: &Slots,
        args: &[ast::Arg],
        decl: Option<(Span, &[Span])>,
    ) -> bool {
        let mut ok = true;
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
        ok
    }

    /// Checks a call of a fn, extern fn or method step by step: binds the
    /// arguments to the parameters, types the value arguments, matches each
    /// against its parameter (the first mistake ends the call), solves the
    /// sizes, then types the result.
    fn call_target(&mut self, e: &ast::Expr, target: &Target, args: &[ast::Arg]) -> Ty {
        let span = e.span;
        if self.callee_quiet(target) {
            return self.quiet_call(span, args);
        }
        let sig = target.signature;
        let Some(slots) = self.bind_target_args(target, args, span) else {
            return self.quiet_call(span, args);
        };
        let arg_tys = self.value_args(target, &slots);
        // An argument whose mistake was reported: the call's result is unknown, quietly.
        if arg_tys
            .iter()
            .flatten()
            .any(|t| matches!(t.kind, TyKind::Error))
        {
            self.other_args(&slots, &arg_tys);
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let mut call = CallState {
            solver: Solver::new(self.ctx.env.dims),
            tags: SmallVec::new(),
            equations: SmallVec::new(),
            rest: None,
        };
        let vars = generic_vars(&mut call.solver, target);
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
        let given = Given {
            target,
            slots: &slots,
            tys: &arg_tys,
            rename: &rename,
        };
        let mut got = Gathered {
            bound: Vec::with_capacity(slots.len()),
            shapeless: Vec::new(),
            float_dtype: None,
        };
        // One mistake per call: the first argument that fails.
        for i in 0..sig.params.len() {
            if !self.bind_param(&mut call, given, &mut got, i) {
                return self.record(span, error_ty(span), ExprInfo::Plain);
            }
        }
        size_defaults(&mut call, given, &mut got.bound);
        let equations = std::mem::take(&mut call.equations);
        if let Err(failure) = call.solver.solve(&equations) {
            self.report_failure(failure, &call, target, &slots, &arg_tys, span);
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        self.call_result(&call, given, got, span)
    }

    /// Whether the callee's own mistake was reported (a broken signature, a
    /// body that missed its return type): its calls are then quiet.
    fn callee_quiet(&self, target: &Target) -> bool {
        let key = match &target.callee {
            Callee::Fn { file, name } => (*file, Name::EMPTY, *name),
            Callee::Method {
                file,
                model,
                method,
            } => (*file, *model, *method),
            // (An extern fn may have `...` and Axis/Size parameters; a `fn` can't.)
            _ => return false,
        };
        super::signature_broken(target.signature) || self.ctx.quiet.contains(&key)
    }

    /// A call whose result is unknown, quietly: its arguments are still checked.
    fn quiet_call(&mut self, span: Span, args: &[ast::Arg]) -> Ty {
        for a in args {
            self.expr(&a.value);
        }
        self.record(span, error_ty(span), ExprInfo::Plain)
    }

    /// The call's arguments bound to the target's parameters (`bind_args`).
    fn bind_target_args<'e>(
        &mut self,
        target: &Target,
        args: &'e [ast::Arg],
        span: Span,
    ) -> Option<Slots<'e>> {
        let sig = target.signature;
        // Inline: a call has a handful of parameters, and these live only
        // while it is checked.
        let names: SmallVec<[&str; 8]> = sig.params.iter().map(|p| &*p.name).collect();
        let required: SmallVec<[bool; 8]> = (0..names.len())
            .map(|i| target.params.get(i).is_none_or(|p| p.default.is_none()))
            .collect();
        let spans: SmallVec<[Span; 8]> = sig.params.iter().map(|p| p.span).collect();
        self.bind_args(
            &target.name,
            &names,
            &required,
            args,
            Some((spans.first().copied().unwrap_or(span), &spans)),
        )
    }

    /// The type of each argument that is a value (not an axis name or a
    /// size), per parameter.
    fn value_args(&mut self, target: &Target, slots: &Slots) -> SmallVec<[Option<Ty>; 6]> {
        let params = &target.signature.params;
        let mut arg_tys: SmallVec<[Option<Ty>; 6]> = smallvec::smallvec![None; params.len()];
        for (i, slot) in slots.iter().enumerate() {
            if let Some(arg) = slot {
                if !matches!(
                    params[i].ty.kind,
                    TyKind::Axis(_) | TyKind::Axes(_) | TyKind::SizeParam(_)
                ) {
                    arg_tys[i] = Some(self.expr(&arg.value));
                }
            }
        }
        arg_tys
    }

    /// Checks the arguments `value_args` left (sizes written as expressions),
    /// for a call that stops there.
    fn other_args(&mut self, slots: &Slots, arg_tys: &[Option<Ty>]) {
        for (i, slot) in slots.iter().enumerate() {
            if let (Some(arg), None) = (slot, &arg_tys[i]) {
                if !matches!(arg.value.kind, ast::ExprKind::Name(_)) {
                    self.expr(&arg.value);
                }
            }
        }
    }

    /// Binds parameter `i`: what to emit for it, and its argument matched
    /// against it (equations for its sizes); false after a reported mistake.
    fn bind_param<'p>(
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
                match self.axis_argument(arg, first.as_ref(), target, i) {
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
        match (pt.dtype, got_dtype) {
            (Some(want), Some(found)) if want != found && is_float(want) && is_float(found) => {
                let d = self.arg_diagnostic(
                    codes::E0502,
                    format!(
                        "argument `{}` of `{}` is {}, but the parameter is {}",
                        param.name,
                        target.name,
                        found.as_str(),
                        want.as_str()
                    ),
                    arg.value.span,
                    format!("this is {}", found.as_str()),
                    target,
                    i,
                    aty,
                    &call.solver,
                );
                self.diagnostics
                    .push(d.with_help(format!("convert it: `... to {}`", want.as_str())));
                false
            }
            (None, Some(found))
                if is_float(found)
                    && !matches!(pt.domain, Some(Domain::Index(_) | Domain::Bool)) =>
            {
                match got.float_dtype {
                    Some((first, first_at)) if first != found => {
                        let d = self.arg_diagnostic(
                            codes::E0502,
                            format!(
                                "`{}` is called with both {} and {} tensors",
                                target.name,
                                first.as_str(),
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
                            d.with_secondary(first_at, format!("this is {}", first.as_str()))
                                .with_note("parameters without a dtype take any float dtype, but the same one for all of them in a call")
                                .with_help(format!("convert one of them: `... to {}`", first.as_str())),
                        );
                        false
                    }
                    None => {
                        got.float_dtype = Some((found, arg.value.span));
                        true
                    }
                    _ => true,
                }
            }
            _ => true,
        }
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
        let Some(value) = self.static_size(&arg.value) else {
            let ty = self.expr(&arg.value);
            if !matches!(ty.kind, TyKind::Error) {
                let param = &given.target.signature.params[i];
                let d = self.arg_diagnostic(
                    codes::E0406,
                    format!(
                        "`{}` takes a size known before the program runs",
                        param.name
                    ),
                    arg.value.span,
                    format!("this is `{}`, known only at run time", show_ty(&ty)),
                    given.target,
                    i,
                    &ty,
                    &call.solver,
                );
                self.diagnostics
                    .push(d.with_help("a `Size` argument is a number, a dim or an axis name"));
            }
            return false;
        };
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
        got.bound[i] = BoundArg::Size {
            value: Size::computed(value),
        };
        true
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
        false
    }

    /// The typed call once its sizes are solved: the `Size` arguments
    /// solved from defaults, the result type, and what to emit.
    fn call_result(&mut self, call: &CallState, given: Given, got: Gathered, span: Span) -> Ty {
        let Gathered {
            mut bound,
            shapeless,
            float_dtype,
        } = got;
        let sig = given.target.signature;
        // Fill in Size bindings solved from defaults.
        for (i, param) in sig.params.iter().enumerate() {
            if let (None, TyKind::SizeParam(s)) = (given.slots[i], &param.ty.kind) {
                if let Ok(value) = call.solver.apply(&(given.rename)(&s.poly)) {
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
                match self.result_type(
                    ret,
                    call,
                    given.rename,
                    dtype,
                    &shapeless,
                    given.target,
                    span,
                ) {
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
            callee: given.target.callee.clone(),
            args: bound,
            bindings,
            over: Vec::new(),
            pattern: None,
        };
        self.record(span, Ty { span, ..result }, ExprInfo::Call(Box::new(info)))
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
        let d = self.arg_diagnostic(
            codes::E0401,
            format!(
                "argument `{}` of `{}` has {} {}, but the parameter takes {need}",
                param.name,
                target.name,
                found,
                if found == 1 { "axis" } else { "axes" }
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

/// One call's arguments as the per-parameter steps see them: the target,
/// the argument given per parameter, each value argument's type, and the
/// renaming of the callee's generic axes to the solver's variables.
#[derive(Clone, Copy)]
struct Given<'a, 'p> {
    target: &'a Target<'a>,
    slots: &'a [Option<&'a ast::Arg>],
    tys: &'p [Option<Ty>],
    rename: &'a dyn Fn(&Poly) -> Poly,
}

/// What binding the arguments gathers beside the solver's equations.
struct Gathered {
    /// What to emit per parameter.
    bound: Vec<BoundArg>,
    /// The arguments of tensor parameters without a shape, for the result.
    shapeless: Vec<(Ty, Span)>,
    /// The one float dtype of the dtype-less float parameters, and where it was seen first.
    float_dtype: Option<(DtypeKind, Span)>,
}

/// The solver's variable for each of the callee's generic axes, those a
/// method's receiver fixes set to the model's size arguments.
fn generic_vars(solver: &mut Solver, target: &Target) -> SmallVec<[Symbol; 8]> {
    let sig = target.signature;
    let vars: SmallVec<[Symbol; 8]> = sig.generics.iter().map(|g| solver.var(*g)).collect();
    if let Some((params, values)) = &target.receiver {
        for (p, v) in params.iter().zip(values) {
            if let Some(i) = sig.generics.iter().position(|g| g == p) {
                solver.set(i as u32, v.poly.clone());
            }
        }
    }
    vars
}

/// The `Size` parameters left out take their defaults: a number sets the
/// variable, a generic axis's name adds an equation.
fn size_defaults(call: &mut CallState, given: Given, bound: &mut [BoundArg]) {
    let target = given.target;
    let sig = target.signature;
    for (i, param) in sig.params.iter().enumerate() {
        if given.slots[i].is_some() {
            continue;
        }
        let TyKind::SizeParam(s) = &param.ty.kind else {
            continue;
        };
        let Some(Symbol::Var(v)) = (given.rename)(&s.poly).as_symbol().cloned() else {
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
