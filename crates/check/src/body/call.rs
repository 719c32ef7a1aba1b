//! Calls: finds the callee (a fn, an extern fn, a library stub, a built-in,
//! a method, `m(x)` as `forward`, a record's construction), binds positional
//! and keyword arguments to parameters (E0407), checks `Axis`, `Axes` and
//! `Size` arguments (E0405, E0406), solves the callee's generic axes from the
//! arguments' sizes (E0401, E0402), unifies dtype-less parameters' dtypes
//! (E0502), and works out the result type, rounded divisions included.
//! Every diagnostic about an argument points at it, with a secondary label
//! at the parameter in the callee's signature, whatever file that is in.

use std::sync::Arc;

use diag::{Diagnostic, FileId, Span};
use syntax::ast::{self, ScalarKind};

use super::expr::position_of;
use super::shape::{
    axis_of, axis_poly, effective_dtype, is_float, map_sizes, show_size, show_ty, tensor,
};
use super::{error_ty, FnChecker};
use crate::program::Decl;
use crate::signature::Signature;
use crate::size::{Poly, Size, SizeError, Symbol};
use crate::solver::{Equation, Failure, Solver};
use crate::typed::{BoundArg, CallInfo, Callee, ExprInfo};
use crate::types::{Axis, AxisKind, Domain, DtypeKind, TensorTy, Ty, TyKind};

/// What is being called, once resolved.
pub(crate) struct Target<'s> {
    pub signature: &'s Signature,
    /// The callee's declared parameters, for defaults.
    pub params: &'s [ast::Param],
    pub name: String,
    pub callee: Callee,
    /// A method's receiver: the model's size parameters and the use's arguments.
    pub receiver: Option<(Vec<Arc<str>>, Vec<Size>)>,
}

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    pub(crate) fn call(&mut self, e: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) -> Ty {
        let span = e.span;
        match self.resolve_callee(callee) {
            Resolved::Target(target) => self.call_target(e, &target, args),
            Resolved::Builtin(name) => crate::builtins::call(self, e, &name, args),
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

    fn resolve_callee(&mut self, callee: &ast::Expr) -> Resolved<'c> {
        let ctx = self.ctx;
        match &callee.kind {
            ast::ExprKind::Name(n) if self.local(&n.name).is_none() => {
                if let Some(decl) = ctx.env.program.decl(self.file, &n.name) {
                    return self.resolve_decl(self.file, decl, n);
                }
                if crate::builtins::is_builtin(&n.name) {
                    return Resolved::Builtin(n.name.clone());
                }
                if let Some((file, decl)) =
                    crate::prelude::stub(ctx.env.program, ctx.library, &n.name)
                {
                    return self.resolve_decl(file, decl, n);
                }
                self.diagnostics.push(
                    Diagnostic::error("E0301", format!("cannot find function `{}`", n.name))
                        .with_primary(n.span, "not declared in this file, the prelude or the built-ins")
                        .with_help("declare it with `fn` or `extern fn`, or import the file that has it and write `file.name`"),
                );
                Resolved::Failed
            }
            ast::ExprKind::Field { base, name } => {
                if let ast::ExprKind::Name(file) = &base.kind {
                    if self.local(&file.name).is_none() {
                        if let Some(Decl::Import(_, target)) =
                            ctx.env.program.decl(self.file, &file.name)
                        {
                            let Some(target) = target else {
                                return Resolved::Failed;
                            };
                            return match ctx.env.program.decl(target, &name.name) {
                                Some(decl) => self.resolve_decl(target, decl, name),
                                None => {
                                    self.diagnostics.push(
                                        Diagnostic::error(
                                            "E0301",
                                            format!(
                                                "cannot find `{}` in `{}`",
                                                name.name, file.name
                                            ),
                                        )
                                        .with_primary(
                                            name.span,
                                            format!("not declared in `{}.ss`", file.name),
                                        ),
                                    );
                                    Resolved::Failed
                                }
                            };
                        }
                    }
                }
                let base_ty = self.expr(base);
                match &base_ty.kind {
                    TyKind::Named {
                        file,
                        name: model,
                        args,
                    } => {
                        let Some(info) = ctx.models.get(*file, model) else {
                            return Resolved::Failed;
                        };
                        if let Some((signature, _)) = info.methods.get(&name.name) {
                            let params = method_params(ctx, *file, model, &name.name);
                            return Resolved::Target(Target {
                                signature,
                                params,
                                name: format!("{model}.{}", name.name),
                                callee: Callee::Method {
                                    file: *file,
                                    model: model.clone(),
                                    method: ctx.env.names.intern(&name.name),
                                },
                                receiver: Some((info.def.size_params.clone(), args.clone())),
                            });
                        }
                        // A field holding a sub-model: `self.mlp(x)` calls its forward.
                        let field_ty = self.expr(callee);
                        self.forward_of(&field_ty, callee.span)
                    }
                    TyKind::Error => Resolved::Failed,
                    _ => {
                        self.diagnostics.push(
                            Diagnostic::error(
                                "E0409",
                                format!("`{}` has no method `{}`", show_ty(&base_ty), name.name),
                            )
                            .with_primary(name.span, "no such method")
                            .with_note("only models have methods"),
                        );
                        Resolved::Failed
                    }
                }
            }
            _ => {
                let ty = self.expr(callee);
                self.forward_of(&ty, callee.span)
            }
        }
    }

    /// `m(x)` for a value `m` of a model type: its `forward`.
    fn forward_of(&mut self, ty: &Ty, span: Span) -> Resolved<'c> {
        let ctx = self.ctx;
        match &ty.kind {
            TyKind::Error => Resolved::Failed,
            TyKind::Named { file, name, args } => {
                let Some(info) = ctx.models.get(*file, name) else {
                    return Resolved::Failed;
                };
                match info.methods.get("forward") {
                    Some((signature, _)) => Resolved::Target(Target {
                        signature,
                        params: method_params(ctx, *file, name, "forward"),
                        name: format!("{name}.forward"),
                        callee: Callee::Method {
                            file: *file,
                            model: name.clone(),
                            method: "forward".into(),
                        },
                        receiver: Some((info.def.size_params.clone(), args.clone())),
                    }),
                    None => {
                        self.diagnostics.push(
                            Diagnostic::error("E0409", format!("model `{name}` has no `forward` method"))
                                .with_primary(span, "called here")
                                .with_secondary(info.def.span, "declared here")
                                .with_help("`m(x)` calls `m.forward(x)`: declare `fn forward(self, ...)`, or use its fields"),
                        );
                        Resolved::Failed
                    }
                }
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error("E0408", format!("`{}` can't be called", show_ty(ty)))
                        .with_primary(span, "not a function or model"),
                );
                Resolved::Failed
            }
        }
    }

    fn resolve_decl(&mut self, file: FileId, decl: Decl<'c>, name: &ast::Ident) -> Resolved<'c> {
        let ctx = self.ctx;
        let key = (file, ctx.env.names.intern(&name.name));
        let (params, python) = match decl {
            Decl::Fn(f) => (&f.params[..], None),
            Decl::ExternFn(f) => (&f.params[..], Some(())),
            Decl::Record(r) => return Resolved::Record(file, ctx.env.names.intern(&r.name.name)),
            other => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "E0408",
                        format!("`{}` is {}, not a function", name.name, other.describe()),
                    )
                    .with_primary(name.span, "not a function")
                    .with_secondary(other.name_span(), "declared here"),
                );
                return Resolved::Failed;
            }
        };
        let Some(signature) = ctx.signatures.get(&key) else {
            return Resolved::Failed;
        };
        let callee = match (python, &signature.python) {
            (Some(()), Some(p)) => Callee::Extern {
                file,
                name: key.1.clone(),
                python: p.clone(),
            },
            (Some(()), None) => return Resolved::Failed,
            _ => Callee::Fn {
                file,
                name: key.1.clone(),
            },
        };
        Resolved::Target(Target {
            signature,
            params,
            name: name.name.clone(),
            callee,
            receiver: None,
        })
    }

    /// Binds arguments to parameters by position and keyword (E0407).
    /// Returns, per parameter, the argument given.
    pub(crate) fn bind_args<'e>(
        &mut self,
        fname: &str,
        names: &[&str],
        required: &[bool],
        args: &'e [ast::Arg],
        decl: Option<(Span, &[Span])>,
    ) -> Option<Vec<Option<&'e ast::Arg>>> {
        let mut slots: Vec<Option<&ast::Arg>> = vec![None; names.len()];
        let mut next = 0;
        let mut ok = true;
        for arg in args {
            let index = match &arg.name {
                Some(key) => match names.iter().position(|n| *n == key.name) {
                    Some(i) => i,
                    None => {
                        let mut d = Diagnostic::error(
                            "E0407",
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
                                "E0407",
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
                        "E0407",
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
                        "E0407",
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
            Callee::Fn { file, name } => Some((*file, Arc::<str>::from(""), name.clone())),
            Callee::Method {
                file,
                model,
                method,
            } => Some((*file, model.clone(), method.clone())),
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
        let names: Vec<&str> = sig.params.iter().map(|p| &*p.name).collect();
        let required: Vec<bool> = (0..names.len())
            .map(|i| target.params.get(i).is_none_or(|p| p.default.is_none()))
            .collect();
        let spans: Vec<Span> = sig.params.iter().map(|p| p.span).collect();
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
        let mut arg_tys: Vec<Option<Ty>> = vec![None; names.len()];
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
            tags: Vec::new(),
            equations: Vec::new(),
            rest: None,
        };
        let vars: Vec<Symbol> = sig
            .generics
            .iter()
            .map(|g| call.solver.var(g.clone()))
            .collect();
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
                    let missing;
                    let aty = match &arg_tys[i] {
                        Some(t) => t,
                        None => {
                            missing = error_ty(arg.span);
                            &missing
                        }
                    };
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
                                        "E0502",
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
                                                "E0502",
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
                                "E0408",
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
                                caller: size,
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
                                    caller: value.clone(),
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
                                "E0406",
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
                            "E0408",
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
                            caller: Poly::default(),
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
                    .map(|v| (g.clone(), Size::computed(v.clone())))
            })
            .collect();
        let info = CallInfo {
            callee: target.callee.clone(),
            args: bound,
            bindings,
            over: Vec::new(),
            pattern: None,
        };
        self.record(span, Ty { span, ..result }, ExprInfo::Call(Box::new(info)))
    }

    /// Adds the equations of one shaped parameter; false after a reported mistake.
    #[allow(clippy::too_many_arguments)]
    fn match_shape(
        &mut self,
        call: &mut CallState,
        params: &[Axis],
        axes: &[Axis],
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
                "E0401",
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
        let mut pairs: Vec<(usize, usize)> = Vec::new();
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
                                match (axis_poly(x), axis_poly(y)) {
                                    (Some(p), Some(q)) => self.ctx.env.dims.same_size(&p, &q),
                                    _ => true,
                                }
                            });
                        if !same {
                            let param = &target.signature.params[index];
                            let d = self.arg_diagnostic(
                                "E0401",
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
            let (Some(p), Some(a)) = (axis_poly(&params[pj]), axis_poly(&axes[aj])) else {
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

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn arg_diagnostic(
        &self,
        code: &str,
        message: String,
        at: Span,
        label: String,
        target: &Target,
        index: usize,
        aty: &Ty,
        solver: &Solver,
    ) -> Diagnostic {
        let param = &target.signature.params[index];
        let mut d = Diagnostic::error(code, message)
            .with_primary(at, label)
            .with_secondary(
                param.span,
                format!(
                    "parameter `{}` of `{}` is declared here",
                    param.name, target.name
                ),
            )
            .with_note(if matches!(aty.kind, TyKind::Error) {
                format!("the parameter is `{}: {}`", param.name, show_ty(&param.ty))
            } else {
                format!(
                    "the parameter is `{}: {}`, the argument is `{}`",
                    param.name,
                    show_ty(&param.ty),
                    show_ty(aty)
                )
            });
        let solved = solver.shown();
        if !solved.is_empty() {
            d = d.with_note(format!("solved so far: {}", solved.join(", ")));
        }
        d
    }

    fn report_failure(
        &mut self,
        failure: Failure,
        call: &CallState,
        target: &Target,
        slots: &[Option<&ast::Arg>],
        arg_tys: &[Option<Ty>],
        span: Span,
    ) {
        let dims = self.ctx.env.dims;
        let tag_of = |f: &Failure| match f {
            Failure::Mismatch { tag, .. }
            | Failure::Inexact { tag, .. }
            | Failure::BelowOne { tag, .. }
            | Failure::Overflow { tag }
            | Failure::Unsolved { tag, .. } => *tag,
        };
        let (index, axis) = call.tags[tag_of(&failure)];
        let param = &target.signature.params[index];
        let arg_span = slots[index].map_or(span, |a| a.value.span);
        let aty = arg_tys[index].clone().unwrap_or_else(|| error_ty(span));
        let param_axis = |pj: usize| -> String {
            param
                .ty
                .shape()
                .and_then(|s| s.get(pj))
                .map(|a| a.to_string())
                .unwrap_or_default()
        };
        let caller_size =
            |aj: usize| -> Option<Poly> { aty.shape().and_then(|s| s.get(aj)).and_then(axis_poly) };
        let d = match &failure {
            Failure::Mismatch { expected, .. } => {
                let (message, label) = match axis {
                    Some((pj, aj)) => (
                        format!(
                            "argument `{}` of `{}` has the wrong shape",
                            param.name, target.name
                        ),
                        if param_axis(pj) == expected.to_string() {
                            format!(
                                "axis {} is {}, but the parameter's is {}",
                                aj + 1,
                                caller_size(aj).map_or("?".into(), |p| show_size(dims, &p)),
                                show_size(dims, expected)
                            )
                        } else {
                            format!(
                                "axis {} is {}, but `{}` is {} in this call",
                                aj + 1,
                                caller_size(aj).map_or("?".into(), |p| show_size(dims, &p)),
                                param_axis(pj),
                                show_size(dims, expected)
                            )
                        },
                    ),
                    None => (
                        format!(
                            "argument `{}` of `{}` doesn't fit its parameter",
                            param.name, target.name
                        ),
                        {
                            let axis_size = match (
                                slots[index].map(|a| &a.value.kind),
                                arg_tys.first().cloned().flatten(),
                            ) {
                                (Some(ast::ExprKind::Name(n)), Some(first)) => first
                                    .shape()
                                    .and_then(|s| {
                                        position_of(s, &n.name).and_then(|p| axis_poly(&s[p]))
                                    })
                                    .map(|p| {
                                        format!(
                                            "`{}` is an axis of size {}, ",
                                            n.name,
                                            show_size(dims, &p)
                                        )
                                    }),
                                _ => None,
                            };
                            format!(
                                "{}but an axis of size {} is needed here",
                                axis_size.unwrap_or_default(),
                                show_size(dims, expected)
                            )
                        },
                    ),
                };
                let mut d = self.arg_diagnostic(
                    "E0401",
                    message,
                    arg_span,
                    label,
                    target,
                    index,
                    &aty,
                    &call.solver,
                );
                if let (None, TyKind::Axis(n) | TyKind::Axes(n)) = (axis, &param.ty.kind) {
                    if matches!(n.poly.as_symbol(), Some(Symbol::Dim { .. })) {
                        d = d.with_help(format!(
                            "`{}: {}` names a dim, so it takes only an axis of size {}",
                            param.name,
                            param.ty,
                            show_size(dims, &n.poly)
                        ));
                    }
                }
                d
            }
            Failure::Inexact {
                var, size, divisor, ..
            } => {
                let name = &call.solver.names[*var as usize];
                let label = match axis {
                    Some((pj, aj)) => format!(
                        "axis {} is {}, and `{}` needs a multiple of {}",
                        aj + 1,
                        caller_size(aj).map_or("?".into(), |p| show_size(dims, &p)),
                        param_axis(pj),
                        show_size(dims, divisor)
                    ),
                    None => format!(
                        "{} is not a multiple of {}",
                        show_size(dims, size),
                        show_size(dims, divisor)
                    ),
                };
                self.arg_diagnostic(
                    "E0402",
                    format!(
                        "`{name}` is not a whole number in this call of `{}`",
                        target.name
                    ),
                    arg_span,
                    label,
                    target,
                    index,
                    &aty,
                    &call.solver,
                )
                .with_help(format!(
                    "give the argument a size that {} divides",
                    show_size(dims, divisor)
                ))
            }
            Failure::BelowOne { var, value, .. } => {
                let name = &call.solver.names[*var as usize];
                self.arg_diagnostic(
                    "E0401",
                    format!(
                        "`{name}` would be {value} in this call of `{}`",
                        target.name
                    ),
                    arg_span,
                    format!("this gives `{name}` = {value}, but an axis has at least 1 element"),
                    target,
                    index,
                    &aty,
                    &call.solver,
                )
            }
            Failure::Overflow { .. } => Diagnostic::error("E0414", "size does not fit in 128 bits")
                .with_primary(arg_span, "this size overflows"),
            Failure::Unsolved { vars, .. } => {
                let names: Vec<String> = vars
                    .iter()
                    .map(|v| format!("`{}`", call.solver.names[*v as usize]))
                    .collect();
                self.arg_diagnostic("E0401", format!("can't work out {} from the arguments of `{}`", names.join(" and "), target.name), arg_span, "several unknown sizes in one axis".to_string(), target, index, &aty, &call.solver)
                    .with_help("give the other sizes elsewhere in the signature, or write the axis with fewer unknowns")
            }
        };
        self.diagnostics.push(d);
    }

    /// The callee's return type in the caller's terms.
    #[allow(clippy::too_many_arguments)]
    fn result_type(
        &mut self,
        ret: &Ty,
        call: &CallState,
        rename: &dyn Fn(&Poly) -> Poly,
        dtype: Option<DtypeKind>,
        shapeless: &[(Ty, Span)],
        target: &Target,
        span: Span,
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
                            self.elementwise(&operands, span, &target.name)?.0
                        }
                    },
                    Some(axes) => {
                        let mut out = Vec::with_capacity(axes.len());
                        for axis in axes {
                            match &axis.kind {
                                AxisKind::Rest => out.extend(call.rest.clone().unwrap_or_default()),
                                AxisKind::Rounded { formula, written } => {
                                    let dims = self.ctx.env.dims;
                                    let value = |s: &Symbol| match s {
                                        Symbol::Generic(n) => target
                                            .signature
                                            .generics
                                            .iter()
                                            .position(|g| g == n)
                                            .and_then(|i| call.solver.value(i as u32))
                                            .map(|p| {
                                                dims.substitute(p).unwrap_or_else(|_| p.clone())
                                            }),
                                        Symbol::Dim { file, name } => {
                                            dims.get(*file, name).map(Poly::constant)
                                        }
                                        _ => None,
                                    };
                                    match formula.eval(&value).and_then(|p| {
                                        self.ctx.env.dims.substitute(&p).map(|q| (p, q))
                                    }) {
                                        Ok((p, q)) => {
                                            if let Some(v) = q.as_constant().filter(|v| *v < 1) {
                                                self.diagnostics.push(
                                                    Diagnostic::error("E0401", format!("the result of `{}` would have an axis of size {v}", target.name))
                                                        .with_primary(span, format!("`{written}` is {v} here"))
                                                        .with_secondary(axis.span, "the size is worked out here")
                                                        .with_note(format!("with {}", call.solver.shown().join(", ")))
                                                        .with_help("an axis has at least one element: check the sizes, padding and stride"),
                                                );
                                                return None;
                                            }
                                            out.push(axis_of(p, span));
                                        }
                                        Err(SizeError::DivideByZero) => {
                                            self.diagnostics.push(
                                                Diagnostic::error("E0406", format!("a divisor of 0 in the result of `{}`", target.name))
                                                    .with_primary(span, format!("`{written}` divides by 0 here"))
                                                    .with_secondary(axis.span, "the size is worked out here")
                                                    .with_note(format!("with {}", call.solver.shown().join(", ")))
                                                    .with_help("a stride or window of 0 is no stride at all: use 1 or more"),
                                            );
                                            return None;
                                        }
                                        Err(SizeError::Overflow) => {
                                            self.diagnostics.push(
                                                Diagnostic::error(
                                                    "E0414",
                                                    "size does not fit in 128 bits",
                                                )
                                                .with_primary(span, "this size overflows"),
                                            );
                                            return None;
                                        }
                                        Err(_) => {
                                            self.diagnostics.push(
                                                Diagnostic::error("E0402", format!("the result of `{}` rounds a size that isn't known", target.name))
                                                    .with_primary(span, format!("`{written}` must be exact here"))
                                                    .with_secondary(axis.span, "the size is worked out here")
                                                    .with_note(format!("with {}", call.solver.shown().join(", ")))
                                                    .with_note("a division in an extern fn's return type rounds down once the sizes are numbers; with a generic size it must be exact")
                                                    .with_help("take sizes that make it exact, as in `[b c 2*h 2*w]`, or known sizes"),
                                            );
                                            return None;
                                        }
                                    }
                                }
                                _ => match axis_poly(axis) {
                                    Some(p) => {
                                        let value = call.solver.apply(&rename(&p)).unwrap_or(p);
                                        let value = self.unknown_for_unsolved(value, &call.solver);
                                        out.push(axis_of(value, span));
                                    }
                                    None => out.push(axis.clone()),
                                },
                            }
                        }
                        Some(out)
                    }
                };
                let base = tensor(shape, t.domain.clone(), t.dtype.or(dtype), span);
                return Some(match &t.domain {
                    Some(Domain::Index(_)) => map_sizes(&base, &mut |p: &Poly| {
                        let renamed = rename(p);
                        if renamed == *p {
                            return p.clone();
                        }
                        call.solver.apply(&renamed).unwrap_or_else(|_| p.clone())
                    }),
                    _ => base,
                });
            }
            TyKind::Tuple(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.result_type(item, call, rename, dtype, shapeless, target, span)?);
                }
                TyKind::Tuple(out)
            }
            _ => {
                let mapped = map_sizes(&super::flatten_ty(ret), &mut |p: &Poly| {
                    call.solver.apply(&rename(p)).unwrap_or_else(|_| p.clone())
                });
                mapped.kind
            }
        };
        Some(Ty { kind, span })
    }

    /// A size the arguments didn't determine (a model's size parameter seen
    /// through a plain `Lin` type): an unknown size named after it.
    fn unknown_for_unsolved(&self, value: Poly, solver: &Solver) -> Poly {
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
                name: solver.names[v as usize].clone(),
                index: 0,
            });
            out = out
                .substitute(&|s| (*s == Symbol::Var(v)).then(|| unknown.clone()))
                .unwrap_or_else(|_| out.clone());
        }
        out
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
                "E0406",
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
                    "E0405",
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

    /// `Stats(mean=m, std=s)`: every field once, by keyword or in order.
    fn construct_record(
        &mut self,
        e: &ast::Expr,
        file: FileId,
        name: &Arc<str>,
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
        let mut failed = false;
        for (field, slot) in fields.iter().zip(&slots) {
            let Some(arg) = slot else { continue };
            let ty = self.expr(&arg.value);
            let expected = super::flatten_ty(&field.ty);
            // A record's own axis names are generic: only ranks and dims are checked.
            if let (Some(f), Some(x)) = (ty.shape(), expected.shape()) {
                if f.len() != x.len() {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E0401",
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
                    failed = true;
                }
            }
        }
        if failed {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        // Solve the record's generic axes from the fields' values.
        let params = info.def.size_params.clone();
        let mut solver = Solver::new(self.ctx.env.dims);
        for p in &params {
            solver.var(p.clone());
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
        let mut equations = Vec::new();
        let mut tags = Vec::new();
        for (k, (field, slot)) in fields.iter().zip(&slots).enumerate() {
            let Some(arg) = slot else { continue };
            let found = self.body.expr(arg.value.span).map(|e| e.ty.clone());
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
                        caller: q,
                        tag: tags.len() - 1,
                    });
                }
            }
        }
        if let Err(failure) = solver.solve(&equations) {
            let tag = match &failure {
                Failure::Mismatch { tag, .. }
                | Failure::Inexact { tag, .. }
                | Failure::BelowOne { tag, .. }
                | Failure::Overflow { tag }
                | Failure::Unsolved { tag, .. } => *tag,
            };
            let (k, j) = tags[tag];
            let field = &fields[k];
            let at = slots[k].map_or(span, |a| a.value.span);
            let found = self
                .body
                .expr(at)
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
                    "E0401",
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
                .with_note(format!(
                    "the value is `{found}`; solved so far: {}",
                    solver.shown().join(", ")
                )),
            );
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let args = (0..params.len())
            .map(|i| {
                Size::computed(
                    solver
                        .value(i as u32)
                        .cloned()
                        .unwrap_or_else(|| Poly::symbol(Symbol::Generic(params[i].clone()))),
                )
            })
            .collect();
        let ty = Ty {
            kind: TyKind::Named {
                file,
                name: name.clone(),
                args,
            },
            span,
        };
        let info = CallInfo {
            callee: Callee::Record {
                file,
                name: name.clone(),
            },
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
        };
        self.record(span, ty, ExprInfo::Call(Box::new(info)))
    }
}

pub(crate) enum Resolved<'s> {
    Target(Target<'s>),
    Builtin(String),
    Record(FileId, Arc<str>),
    Failed,
}

enum AxisArg {
    Position(usize, Poly),
    /// The first argument failed: stay quiet.
    Quiet,
    Failed,
}

/// Per-call solving state.
pub(crate) struct CallState<'d> {
    solver: Solver<'d>,
    /// Per equation tag: the parameter, and the (parameter axis, argument axis).
    tags: Vec<(usize, Option<(usize, usize)>)>,
    equations: Vec<Equation>,
    /// What `...` stands for in this call.
    rest: Option<Vec<Axis>>,
}

fn method_params<'p>(
    ctx: &super::Ctx<'p>,
    file: FileId,
    model: &str,
    method: &str,
) -> &'p [ast::Param] {
    match ctx.env.program.decl(file, model) {
        Some(Decl::Model(m)) => m
            .methods
            .iter()
            .find(|f| f.name.name == method)
            .map_or(&[][..], |f| &f.params[..]),
        _ => &[],
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
