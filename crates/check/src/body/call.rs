//! Calls: finds the callee (`callee`: a fn, an extern fn, a library stub, a
//! built-in, a method, `m(x)` as `forward`, a record's construction), binds
//! the arguments to the parameters (`bind`), matches each against its
//! parameter (`call_arg`), solves the callee's generic axes from the
//! arguments' sizes (E0401, E0402, reported by `call_report`), and works out
//! the result type (`call_result`), rounded divisions included. Every
//! diagnostic about an argument points at it, with a secondary label at the
//! parameter in the callee's signature, whatever file that is in.

use syntax::Name;

use std::borrow::Cow;

use smallvec::SmallVec;

use diag::{Diagnostic, Span};
use syntax::ast;

use super::bind::Slots;

use super::callee::{Resolved, Target};
use super::{error_ty, FnChecker};
use crate::codes;
use crate::size::{Poly, Size, Symbol};
use crate::solver::{Equation, Solver};
use crate::typed::{BoundArg, CallInfo, Callee, ExprInfo};
use crate::types::{Axis, AxisKind, DtypeKind, ScalarKind, TensorTy, Ty, TyKind};

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    pub(crate) fn call(&mut self, e: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) -> Ty {
        let span = e.span;
        let resolved = self.resolve_callee(callee);
        if self.recorder().is_some() {
            self.note_call(&resolved, args);
        }
        match resolved {
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

    /// Notes the names of a call's arguments: its keywords mean the
    /// callee's parameters (a record's fields), or a pattern's axes.
    #[cold]
    #[inline(never)]
    fn note_call(&self, resolved: &Resolved, args: &[ast::Arg]) {
        let params: Vec<&ast::Ident> = match resolved {
            Resolved::Target(target) => target.params.iter().map(|p| &p.name).collect(),
            Resolved::Record(file, name) => match self.ctx.env.program.decl(*file, *name) {
                Some(crate::program::Decl::Record(r)) => r.fields.iter().map(|f| &f.name).collect(),
                _ => Vec::new(),
            },
            Resolved::Builtin(_) | Resolved::Failed => Vec::new(),
        };
        self.note_call_args(&params, args);
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
                if passes_none(target, i, arg) {
                    // As if left out: the generator writes Python's `None`.
                    continue;
                }
                let sizes = match &params[i].ty.kind {
                    TyKind::Tuple(items) => crate::shape::is_size_tuple(items),
                    _ => false,
                };
                if !sizes
                    && !matches!(
                        params[i].ty.kind,
                        TyKind::Axis(_) | TyKind::Axes(_) | TyKind::SizeParam(_)
                    )
                {
                    // An optional parameter passes on to an optional one.
                    let optional = target
                        .params
                        .get(i)
                        .and_then(|p| p.default.as_deref())
                        .is_some_and(|d| matches!(d.kind, ast::ExprKind::None));
                    let passing = std::mem::replace(
                        &mut self.passing_optional,
                        optional && matches!(arg.value.kind, ast::ExprKind::Name(_)),
                    );
                    arg_tys[i] = Some(self.expr(&arg.value));
                    self.passing_optional = passing;
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
        if !self.follow_training(given, &mut bound, span) {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        if !self.pooling_padding_fits(given, &bound, span) {
            return self.record(span, error_ty(span), ExprInfo::Plain);
        }
        let dtype = match float_dtype {
            Some((d, _)) => d,
            // No argument gives the call its float dtype: a function or an
            // extern makes its floats in PyTorch's default, a method in its
            // model's (`docs/shapescript/dtypes.md`).
            None if !matches!(given.target.callee, Callee::Method { .. }) => Some(DtypeKind::F32),
            None => None,
        };
        match self.scalar_math(given, span) {
            ScalarMath::No => {}
            ScalarMath::Failed => return self.record(span, error_ty(span), ExprInfo::Plain),
            ScalarMath::Math(python) => {
                for b in &mut bound {
                    if let BoundArg::Expr { keyword, .. } = b {
                        *keyword = false;
                    }
                }
                let callee = match &given.target.callee {
                    Callee::Extern { file, name, .. } => Callee::Extern {
                        file: *file,
                        name: *name,
                        python,
                    },
                    other => other.clone(),
                };
                let info = CallInfo {
                    callee,
                    args: bound,
                    bindings: Vec::new(),
                    over: Vec::new(),
                    pattern: None,
                    operands: Vec::new(),
                };
                let ty = Ty {
                    kind: TyKind::Scalar(ScalarKind::Float),
                    span,
                };
                return self.record(span, ty, ExprInfo::Call(Box::new(info)));
            }
        }
        // The callee's own unknown sizes (`-> [?k D]`) are new at each call;
        // those of the arguments come back as they were (`docs/shapescript/sizes.md`).
        let ret = sig.ret.as_ref().map(|r| {
            if crate::shape::has_unknowns(r) {
                Cow::Owned(self.fresh_unknowns(r))
            } else {
                Cow::Borrowed(r)
            }
        });
        let result = match ret.as_deref() {
            None => Ty {
                kind: TyKind::Tuple(Vec::new()),
                span,
            },
            Some(ret) => {
                let names = bound_names(call, given);
                match self.result_type(
                    ret,
                    call,
                    given.rename,
                    dtype,
                    &shapeless,
                    given.target,
                    span,
                    names.as_deref(),
                ) {
                    Some(ty) => ty,
                    None => return self.record(span, error_ty(span), ExprInfo::Plain),
                }
            }
        };
        let result = self.fresh_unknowns_where(&result, &|index| index == 0);
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
            operands: Vec::new(),
        };
        self.record(span, Ty { span, ..result }, ExprInfo::Call(Box::new(info)))
    }
}

/// What a call of a torch function on Python numbers only is
/// (`docs/shapescript/prelude.md`).
pub(super) enum ScalarMath {
    /// Not such a call.
    No,
    /// Python's `math` function that computes it (`math.log`).
    Math(Name),
    /// No `math` equivalent: reported (E0408).
    Failed,
}

/// The `math` function that computes a torch elementwise function on a Python number.
fn math_equivalent(python: &str) -> Option<&'static str> {
    Some(match python {
        "torch.exp" => "math.exp",
        "torch.log" => "math.log",
        "torch.log1p" => "math.log1p",
        "torch.expm1" => "math.expm1",
        "torch.sqrt" => "math.sqrt",
        "torch.sin" => "math.sin",
        "torch.cos" => "math.cos",
        "torch.tanh" => "math.tanh",
        "torch.erf" => "math.erf",
        _ => return None,
    })
}

impl FnChecker<'_, '_> {
    /// In a method, `dropout` left without `training=` follows the model's
    /// mode, `self.training`, as `torch.nn.Dropout` does. Outside a method
    /// there is no mode to follow: left out there, `training=` is E0407,
    /// rather than drop values in `model.eval()` too. False after it.
    fn follow_training(&mut self, given: Given, bound: &mut [BoundArg], span: Span) -> bool {
        let Callee::Extern { python, .. } = &given.target.callee else {
            return true;
        };
        if &**python != "torch.nn.functional.dropout" {
            return true;
        }
        let params = &given.target.signature.params;
        let Some(i) = params.iter().position(|p| &*p.name == "training") else {
            return true;
        };
        let Some(b @ BoundArg::Default { .. }) = bound.get_mut(i) else {
            return true;
        };
        if self.owner.is_some() && self.local(Name::new("self")).is_some() {
            *b = BoundArg::SelfTraining;
            return true;
        }
        self.diagnostics.push(
            Diagnostic::error(codes::E0407, "`dropout` outside a model's method needs `training=`")
                .with_primary(span, "no model here whose mode it could follow")
                .with_note("in a method, `dropout` follows `self.training`, which `model.train()` and `model.eval()` set; a plain `fn` has no model")
                .with_help("take the mode as a parameter, `fn f(x: [n], training: Bool)`, pass `training=training`, and call it with `self.training`"),
        );
        false
    }

    /// PyTorch's pooling takes a padding of at most half its window
    /// (`pad should be at most half of effective kernel size`): for an
    /// extern of `torch.nn.functional`'s `max_pool*d`/`avg_pool*d`, its
    /// `Size` parameters `kernel_size` and `padding` must satisfy `2 *
    /// padding <= kernel_size` for every value they may take (E0406).
    fn pooling_padding_fits(&mut self, given: Given, bound: &[BoundArg], span: Span) -> bool {
        let Callee::Extern { python, .. } = &given.target.callee else {
            return true;
        };
        let pooling = [
            "max_pool1d",
            "max_pool2d",
            "max_pool3d",
            "avg_pool1d",
            "avg_pool2d",
            "avg_pool3d",
        ];
        let is_pooling = python
            .strip_prefix("torch.nn.functional.")
            .is_some_and(|f| pooling.contains(&f));
        if !is_pooling {
            return true;
        }
        let params = &given.target.signature.params;
        let size = |name: &str| {
            let i = params.iter().position(|p| &*p.name == name)?;
            match bound.get(i)? {
                BoundArg::Size { value } => Some(value.poly.clone()),
                _ => None,
            }
        };
        let (Some(kernel), Some(padding)) = (size("kernel_size"), size("padding")) else {
            return true;
        };
        let dims = self.ctx.env.dims;
        let room = padding
            .mul(&Poly::constant(2))
            .and_then(|p| kernel.sub(&p))
            .ok()
            .and_then(|r| dims.substitute(&r).ok());
        if room
            .as_ref()
            .and_then(super::expr::least_value)
            .is_some_and(|r| r >= 0)
        {
            return true;
        }
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0406,
                format!("`{}` pads by more than half its window", given.target.name),
            )
            .with_primary(
                span,
                format!("padding `{padding}` with a window of `{kernel}`"),
            )
            .with_note(
                "PyTorch's pooling raises `pad should be at most half of effective kernel size`",
            )
            .with_help(format!(
                "pad by at most half the window: `padding` of `{kernel}` / 2 or less"
            )),
        );
        false
    }

    /// A torch extern (`log`, `sqrt`) whose tensor arguments are all
    /// Python numbers: torch would raise a TypeError, so it is Python's
    /// `math` (a number, computed once), or E0408 where `math` has none.
    fn scalar_math(&mut self, given: Given, span: Span) -> ScalarMath {
        let Callee::Extern { python, .. } = &given.target.callee else {
            return ScalarMath::No;
        };
        if !python.starts_with("torch.") {
            return ScalarMath::No;
        }
        let sig = given.target.signature;
        let mut numbers = 0;
        for (i, p) in sig.params.iter().enumerate() {
            if !matches!(p.ty.kind, TyKind::Tensor(_)) {
                continue;
            }
            match given.tys.get(i).and_then(Option::as_ref).map(|t| &t.kind) {
                Some(TyKind::Scalar(_)) => numbers += 1,
                None => {}
                Some(_) => return ScalarMath::No,
            }
        }
        let shapeless_ret = matches!(
            sig.ret.as_ref().map(|t| &t.kind),
            Some(TyKind::Tensor(TensorTy { shape: None, .. }))
        );
        if numbers == 0 || !shapeless_ret {
            return ScalarMath::No;
        }
        if let Some(math) = math_equivalent(python) {
            return ScalarMath::Math(Name::new(math));
        }
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0408,
                format!("`{}` takes tensors, not Python numbers", given.target.name),
            )
            .with_primary(span, format!("`{python}` of a number is a TypeError"))
            .with_note("on Python numbers, `exp`, `log`, `log1p`, `expm1`, `sqrt`, `sin`, `cos`, `tanh` and `erf` are Python's `math` functions; the others need a tensor")
            .with_help("make the number a tensor: `full([], value)`, or write it with those functions"),
        );
        ScalarMath::Failed
    }
}

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
pub(super) struct Given<'a, 'p> {
    pub(super) target: &'a Target<'a>,
    pub(super) slots: &'a [Option<&'a ast::Arg>],
    pub(super) tys: &'p [Option<Ty>],
    pub(super) rename: &'a dyn Fn(&Poly) -> Poly,
}

/// What binding the arguments gathers beside the solver's equations.
pub(super) struct Gathered {
    /// What to emit per parameter.
    pub(super) bound: Vec<BoundArg>,
    /// The arguments of tensor parameters without a shape, for the result.
    pub(super) shapeless: Vec<(Ty, Span)>,
    /// The one float dtype of the dtype-less float parameters (`None`
    /// inside: an argument without a dtype, the caller's float dtype), and
    /// where it was seen first.
    pub(super) float_dtype: Option<(Option<DtypeKind>, Span)>,
}

/// Per generic axis of the callee, the name of the caller's axis that bound
/// it first when a pattern named that axis apart from its size (`j` of size
/// `n`), so the result keeps it (`docs/shapescript/patterns.md`); `None`
/// when no argument has such an axis, as in most calls.
fn bound_names(call: &CallState, given: Given) -> Option<SmallVec<[Option<Name>; 8]>> {
    let renamed = given
        .tys
        .iter()
        .flatten()
        .any(|t| t.shape().is_some_and(|s| s.iter().any(Axis::renamed)));
    if !renamed {
        return None;
    }
    let sig = given.target.signature;
    let mut names: SmallVec<[Option<Name>; 8]> = smallvec::smallvec![None; sig.generics.len()];
    let mut decided: SmallVec<[bool; 8]> = smallvec::smallvec![false; sig.generics.len()];
    for &(index, axes) in &call.tags {
        let Some((pj, aj)) = axes else { continue };
        let param = sig.params.get(index).and_then(|p| p.ty.shape()?.get(pj));
        let Some(AxisKind::Size { size, .. }) = param.map(|a| &a.kind) else {
            continue;
        };
        let Some(Symbol::Generic(g)) = size.poly.as_symbol() else {
            continue;
        };
        let Some(gi) = sig.generics.iter().position(|x| x == g) else {
            continue;
        };
        if std::mem::replace(&mut decided[gi], true) {
            continue;
        }
        let arg = given
            .tys
            .get(index)
            .and_then(|t| t.as_ref()?.shape()?.get(aj));
        names[gi] = arg
            .filter(|a| a.renamed())
            .and_then(|a| crate::shape::axis_name(a).copied());
    }
    Some(names)
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

/// Whether `arg` is `none` written for parameter `i`, whose default is
/// `none`: an optional argument passed explicitly as absent.
fn passes_none(target: &Target, i: usize, arg: &ast::Arg) -> bool {
    matches!(arg.value.kind, ast::ExprKind::None)
        && target
            .params
            .get(i)
            .and_then(|p| p.default.as_ref())
            .is_some_and(|d| matches!(d.kind, ast::ExprKind::None))
}

/// Unused fields of a tensor type, kept for future domains.
#[allow(dead_code)]
fn shaped(t: &TensorTy) -> bool {
    t.shape.is_some()
}
