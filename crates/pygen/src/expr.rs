//! Compiling statements and expressions of a body to Python: names, fields,
//! calls of functions, methods, sub-models and externs (Axis/Axes/Size
//! arguments to integers), operators with broadcasting views, indexing,
//! `as` (verified at run time) and `to`. Built-in operations and patterns
//! live in `pattern`. Never reports user mistakes, only what it cannot compile.

use std::collections::HashMap;

use check::types::{Domain, TyKind};
use syntax::ast::{self, BinaryOp, CastKind, Expr, ExprKind, StmtKind, UnaryOp};

use crate::checks::Lines;
use crate::names::py_name;
use crate::scope::Scope;
use crate::sigs::{Callee, Sig};
use crate::vty::{broadcast_view, Ax, Binder, VTy};
use crate::writer::{float_literal, string_literal};

/// Python precedence levels, loosest first.
pub const OR: u8 = 1;
pub const AND: u8 = 2;
pub const NOT: u8 = 3;
pub const CMP: u8 = 4;
pub const ADD: u8 = 9;
pub const MUL: u8 = 10;
pub const UNARY: u8 = 11;
pub const POW: u8 = 12;
pub const ATOM: u8 = 14;

/// A compiled expression.
#[derive(Clone, Debug)]
pub struct Val {
    pub code: String,
    pub prec: u8,
    /// A name, number or attribute chain: what `black` hugs around `**`.
    pub simple: bool,
    pub ty: VTy,
}

impl Val {
    pub fn atom(code: String, ty: VTy) -> Val {
        let simple = is_simple(&code);
        Val {
            code,
            prec: ATOM,
            simple,
            ty,
        }
    }

    /// The code, parenthesized when it binds looser than `prec`.
    pub fn at(&self, prec: u8) -> String {
        if self.prec < prec {
            format!("({})", self.code)
        } else {
            self.code.clone()
        }
    }
}

fn is_simple(code: &str) -> bool {
    let code = code.strip_prefix('-').unwrap_or(code);
    !code.is_empty()
        && code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// Past this many characters an argument list hoists its longest arguments.
const CALL_BUDGET: usize = 64;

impl<'g, 'a> Scope<'g, 'a> {
    /// Compiles a block's statements; the last expression of a function body is returned.
    pub fn block(&mut self, block: &ast::Block, indent: usize, fn_body: bool, out: &mut Lines) {
        let start = out.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = fn_body && i + 1 == block.stmts.len();
            self.stmt(stmt, indent, last, out);
        }
        if out.len() == start {
            out.push((indent, "pass".into()));
        }
    }

    fn emit(&mut self, indent: usize, text: String, at: u32, out: &mut Lines) {
        for line in std::mem::take(&mut self.pre) {
            // Hoisted lines nest with leading 4-space groups (an `if` body).
            let mut level = 0;
            let mut text = line.as_str();
            while let Some(rest) = text.strip_prefix("    ") {
                level += 1;
                text = rest;
            }
            out.push((indent + level, text.to_string()));
        }
        let comment = self.gen.where_(self.file, at);
        out.push((indent, format!("{text}\u{0}{comment}")));
    }

    fn stmt(&mut self, stmt: &ast::Stmt, indent: usize, last: bool, out: &mut Lines) {
        let at = stmt.span.start;
        match &stmt.kind {
            StmtKind::Let { name, ty, value } => {
                let v = self.expr(value);
                let vty = match ty {
                    Some(t) => self.claimed(t).unwrap_or(v.ty.clone()),
                    None => v.ty.clone(),
                };
                self.locals.insert(name.name.clone(), vty);
                self.emit(
                    indent,
                    format!("{} = {}", py_name(&name.name), v.code),
                    at,
                    out,
                );
            }
            StmtKind::LetTuple { names, value } => {
                let v = self.expr(value);
                let items = match &v.ty {
                    VTy::Tuple(items) => items.clone(),
                    _ => Vec::new(),
                };
                for (k, n) in names.iter().enumerate() {
                    let t = items.get(k).cloned().unwrap_or(VTy::Unknown);
                    self.locals.insert(n.name.clone(), t);
                }
                let targets: Vec<String> = names.iter().map(|n| py_name(&n.name)).collect();
                self.emit(
                    indent,
                    format!("{} = {}", targets.join(", "), v.code),
                    at,
                    out,
                );
            }
            StmtKind::Assign { name, value } => {
                let v = self.expr(value);
                self.emit(
                    indent,
                    format!("{} = {}", py_name(&name.name), v.code),
                    at,
                    out,
                );
            }
            StmtKind::Return(value) => {
                let v = self.expr(value);
                self.emit(indent, format!("return {}", v.code), at, out);
            }
            StmtKind::Expr(value) => {
                let v = self.expr(value);
                let text = if last {
                    format!("return {}", v.code)
                } else {
                    v.code
                };
                self.emit(indent, text, at, out);
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let c = self.expr(cond);
                let code = match c.ty {
                    VTy::Tensor(_) => format!("bool({})", c.code),
                    _ => c.code,
                };
                self.emit(indent, format!("if {code}:"), at, out);
                self.block(then_block, indent + 1, false, out);
                if let Some(else_block) = else_block {
                    out.push((indent, "else:".into()));
                    self.block(else_block, indent + 1, false, out);
                }
            }
            StmtKind::For { var, iter, body } => {
                let it = self.expr(iter);
                let elem = match &it.ty {
                    VTy::Stack(elem) => (**elem).clone(),
                    _ => VTy::Unknown,
                };
                self.locals.insert(var.name.clone(), elem);
                self.emit(
                    indent,
                    format!("for {} in {}:", py_name(&var.name), it.code),
                    at,
                    out,
                );
                self.block(body, indent + 1, false, out);
            }
        }
    }

    /// Puts a value in a temporary unless it is a plain name or attribute.
    pub fn hoist(&mut self, v: Val) -> Val {
        if v.simple && !v.code.starts_with('-') {
            return v;
        }
        let t = self.temp();
        self.pre.push(format!("{t} = {}", v.code));
        Val::atom(t, v.ty)
    }

    /// `callee(args)`, hoisting the longest arguments while the call is long.
    pub fn call_code(&mut self, callee: &str, args: Vec<(Option<String>, Val)>) -> String {
        let mut args = args;
        loop {
            let total: usize = callee.len()
                + args
                    .iter()
                    .map(|(k, v)| v.code.len() + k.as_ref().map_or(0, |k| k.len() + 1) + 2)
                    .sum::<usize>();
            if total <= CALL_BUDGET {
                break;
            }
            let longest = args
                .iter()
                .enumerate()
                .filter(|(_, (_, v))| v.code.len() > 16 && (!v.simple || v.code.starts_with('-')))
                .max_by_key(|(i, (_, v))| (v.code.len(), usize::MAX - i))
                .map(|(i, _)| i);
            let Some(i) = longest else { break };
            let v = args[i].1.clone();
            args[i].1 = self.hoist(v);
        }
        let parts: Vec<String> = args
            .iter()
            .map(|(k, v)| match k {
                Some(k) => format!("{k}={}", v.code),
                None => v.code.clone(),
            })
            .collect();
        format!("{callee}({})", parts.join(", "))
    }

    pub fn expr(&mut self, e: &Expr) -> Val {
        match &e.kind {
            ExprKind::Int(v) => Val::atom(v.to_string(), VTy::Scalar),
            ExprKind::Float(v) => Val::atom(float_literal(*v), VTy::Scalar),
            ExprKind::Bool(b) => Val::atom(if *b { "True" } else { "False" }.into(), VTy::Scalar),
            ExprKind::None => Val::atom("None".into(), VTy::Unknown),
            ExprKind::Str(s) => Val::atom(string_literal(s), VTy::Scalar),
            ExprKind::Name(id) => self.name(id),
            ExprKind::Field { base, name } => self.field(base, name, e),
            ExprKind::Call { callee, args } => self.call(callee, args, e),
            ExprKind::Index { base, indices } => self.index(base, indices),
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand);
                match op {
                    UnaryOp::Neg => Val {
                        code: format!("-{}", v.at(UNARY)),
                        prec: UNARY,
                        simple: v.simple && !v.code.starts_with('-'),
                        ty: v.ty,
                    },
                    UnaryOp::Not if matches!(v.ty, VTy::Tensor(_)) => {
                        Val::atom(format!("torch.logical_not({})", v.code), v.ty)
                    }
                    UnaryOp::Not => Val {
                        code: format!("not {}", v.at(NOT)),
                        prec: NOT,
                        simple: false,
                        ty: v.ty,
                    },
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                self.binary(*op, l, r)
            }
            ExprKind::Cast { kind, expr, ty } => self.cast(*kind, expr, ty, e),
            ExprKind::Tuple(items) => {
                let vals: Vec<Val> = items.iter().map(|i| self.expr(i)).collect();
                let codes: Vec<String> = vals.iter().map(|v| v.code.clone()).collect();
                let code = if codes.len() == 1 {
                    format!("({},)", codes[0])
                } else {
                    format!("({})", codes.join(", "))
                };
                Val::atom(code, VTy::Tuple(vals.into_iter().map(|v| v.ty).collect()))
            }
            ExprKind::AxisGroup(_) | ExprKind::Pattern(_) | ExprKind::Shape(_) => {
                self.unsupported(
                    e.span,
                    "an axis list or pattern outside a built-in's arguments",
                );
                Val::atom("None".into(), VTy::Unknown)
            }
            ExprKind::Error => Val::atom("None".into(), VTy::Unknown),
        }
    }

    fn name(&mut self, id: &ast::Ident) -> Val {
        let name = &id.name;
        if let Some(ty) = self.locals.get(name) {
            return Val::atom(py_name(name), ty.clone());
        }
        if name == "self" {
            if let Some(m) = self.model {
                let args = m
                    .size_params
                    .iter()
                    .map(|p| Ax {
                        name: Some(p.name.clone()),
                        size: Some(format!("self.{}", py_name(&p.name))),
                    })
                    .collect();
                return Val::atom(
                    "self".into(),
                    VTy::Model {
                        file: self.file,
                        name: m.name.name.clone(),
                        args,
                    },
                );
            }
        }
        if let Some(size) = self.sizes.get(name) {
            return Val::atom(size.clone(), VTy::Scalar);
        }
        let path = ast::Path {
            file: None,
            name: id.clone(),
            span: id.span,
        };
        match self.gen.checked.program.lookup(self.file, &path) {
            Ok((target, check::program::Decl::Dim(..))) => {
                Val::atom(self.qualified(target, name), VTy::Scalar)
            }
            Ok((target, _)) => Val::atom(self.qualified(target, name), VTy::Unknown),
            Err(_) => {
                self.unsupported(id.span, &format!("the name `{name}` here"));
                Val::atom(py_name(name), VTy::Unknown)
            }
        }
    }

    /// The module an `import` name in this file stands for, unless a local hides it.
    fn imported(&self, base: &Expr) -> Option<diag::FileId> {
        let ExprKind::Name(id) = &base.kind else {
            return None;
        };
        if self.locals.contains_key(&id.name) || self.sizes.contains_key(&id.name) {
            return None;
        }
        self.gen.module(self.file).imports.get(&id.name).copied()
    }

    fn field(&mut self, base: &Expr, name: &ast::Ident, whole: &Expr) -> Val {
        if let Some(target) = self.imported(base) {
            let ty = match self.gen.checked.program.decl(target, &name.name) {
                Some(check::program::Decl::Dim(..)) => VTy::Scalar,
                _ => VTy::Unknown,
            };
            return Val::atom(self.qualified(target, &name.name), ty);
        }
        let b = self.expr(base);
        let code = format!("{}.{}", b.at(ATOM), py_name(&name.name));
        match &b.ty {
            VTy::Model {
                file,
                name: model,
                args,
            } => {
                let ty = self.model_field(*file, model, args, &name.name);
                Val::atom(code, ty)
            }
            VTy::Record { file, name: record } => {
                let ty = self.record_field(*file, record, &name.name);
                Val::atom(code, ty)
            }
            _ => {
                self.unsupported(whole.span, "this field access");
                Val::atom(code, VTy::Unknown)
            }
        }
    }

    /// A binder from a model's size parameters to the sizes it was built with.
    fn model_binder<'d>(
        &self,
        model: &ast::Model,
        args: &[Ax],
        dim: &'d dyn Fn(diag::FileId, &str) -> String,
    ) -> Binder<'d> {
        let binds = model
            .size_params
            .iter()
            .zip(args)
            .map(|(p, a)| (p.name.clone(), a.clone()))
            .collect();
        Binder {
            binds,
            dim,
            rest: None,
        }
    }

    pub fn model_field(&self, file: diag::FileId, model: &str, args: &[Ax], field: &str) -> VTy {
        let Some(m) = self.gen.model(file, model) else {
            return VTy::Unknown;
        };
        let Some(f) = m.fields.iter().find(|f| f.name.name == field) else {
            return VTy::Unknown;
        };
        let known: Vec<_> = m
            .size_params
            .iter()
            .map(|p| self.gen.names.intern(&p.name))
            .collect();
        let ty = self.gen.lower_type(file, &f.ty, &known);
        let here = self.file;
        let gen = self.gen;
        let dim = |target, name: &str| gen.dim(here, target, name);
        let binder = self.model_binder(m, args, &dim);
        let vty = binder.apply(&ty);
        if let VTy::Model { .. } | VTy::Stack(_) = vty {
            self.note_module(&vty);
        }
        vty
    }

    fn note_module(&self, ty: &VTy) {
        if let VTy::Model { file, .. } = ty {
            if *file != self.file {
                self.imports.modules.borrow_mut().insert(*file);
            }
        }
    }

    fn record_field(&self, file: diag::FileId, record: &str, field: &str) -> VTy {
        let Some(r) = self.gen.record(file, record) else {
            return VTy::Unknown;
        };
        let Some(f) = r.fields.iter().find(|f| f.name.name == field) else {
            return VTy::Unknown;
        };
        let ty = self.gen.lower_type(file, &f.ty, &[]);
        let here = self.file;
        let gen = self.gen;
        let dim = |target, name: &str| gen.dim(here, target, name);
        Binder {
            binds: HashMap::new(),
            dim: &dim,
            rest: None,
        }
        .apply(&ty)
    }

    fn call(&mut self, callee: &Expr, args: &[ast::Arg], whole: &Expr) -> Val {
        // A local model: `blk(x)`.
        if let ExprKind::Name(id) = &callee.kind {
            if let Some(ty) = self.locals.get(&id.name).cloned() {
                return self.call_model_value(Val::atom(py_name(&id.name), ty), None, args, whole);
            }
            let path = ast::Path {
                file: None,
                name: id.clone(),
                span: id.span,
            };
            if let Some(c) = self.gen.lookup_callee(self.file, &path) {
                return self.call_decl(c, args, whole);
            }
            return self.builtin(&id.name, args, whole);
        }
        if let ExprKind::Field { base, name } = &callee.kind {
            if let Some(target) = self.imported(base) {
                let path = ast::Path {
                    file: None,
                    name: name.clone(),
                    span: name.span,
                };
                if let Some(c) = self.gen.lookup_callee(target, &path) {
                    return self.call_decl(c, args, whole);
                }
            }
            let b = self.expr(base);
            if let VTy::Model {
                file, name: model, ..
            } = &b.ty
            {
                if let Some(m) = self.gen.model(*file, model) {
                    if m.methods.iter().any(|f| f.name.name == name.name) {
                        return self.call_model_value(b, Some(&name.name), args, whole);
                    }
                }
            }
            let field = self.field(base, name, callee);
            return self.call_model_value(field, None, args, whole);
        }
        self.unsupported(whole.span, "a call of this expression");
        Val::atom("None".into(), VTy::Unknown)
    }

    /// Calls a model value's `forward` (`method` None) or a named method.
    fn call_model_value(
        &mut self,
        value: Val,
        method: Option<&str>,
        args: &[ast::Arg],
        whole: &Expr,
    ) -> Val {
        let VTy::Model {
            file,
            name,
            args: sizes,
        } = &value.ty
        else {
            self.unsupported(whole.span, "a call of a value that is not a model");
            return Val::atom("None".into(), VTy::Unknown);
        };
        let Some(m) = self.gen.model(*file, name) else {
            return Val::atom("None".into(), VTy::Unknown);
        };
        let wanted = method.unwrap_or("forward");
        let callee = match method {
            Some(meth) => format!("{}.{}", value.at(ATOM), py_name(meth)),
            None => value.at(ATOM),
        };
        let Some(f) = m.methods.iter().find(|f| f.name.name == wanted) else {
            self.unsupported(whole.span, "a call of a model without `forward`");
            return Val::atom("None".into(), VTy::Unknown);
        };
        let sig = self
            .gen
            .lower_sig(*file, &f.params, f.ret.as_ref(), &m.size_params);
        let here = self.file;
        let gen = self.gen;
        let dim = |target, name: &str| gen.dim(here, target, name);
        let mut binder = self.model_binder(m, sizes, &dim);
        let vals = self.args(&sig, args, None);
        let ret = self.finish_call(&sig, &mut binder, &vals);
        let code = self.call_code(&callee, vals.into_iter().map(|(_, k, v)| (k, v)).collect());
        Val::atom(code, ret)
    }

    fn call_decl(&mut self, callee: Callee<'a>, args: &[ast::Arg], whole: &Expr) -> Val {
        let here = self.file;
        let gen = self.gen;
        let dim = |target, name: &str| gen.dim(here, target, name);
        match callee {
            Callee::Fn(target, f) => {
                let sig = self.gen.lower_sig(target, &f.params, f.ret.as_ref(), &[]);
                let mut binder = Binder {
                    binds: HashMap::new(),
                    dim: &dim,
                    rest: None,
                };
                let vals = self.args(&sig, args, None);
                let ret = self.finish_call(&sig, &mut binder, &vals);
                let name = self.qualified(target, &f.name.name);
                let code =
                    self.call_code(&name, vals.into_iter().map(|(_, k, v)| (k, v)).collect());
                Val::atom(code, ret)
            }
            Callee::Extern(sig) => {
                let python = sig.python.clone().unwrap_or_default();
                let name = self.use_python(&python);
                let mut binder = Binder {
                    binds: HashMap::new(),
                    dim: &dim,
                    rest: None,
                };
                let vals = self.args(&sig, args, Some(whole));
                let ret = self.finish_call(&sig, &mut binder, &vals);
                let code =
                    self.call_code(&name, vals.into_iter().map(|(_, k, v)| (k, v)).collect());
                Val::atom(code, ret)
            }
            Callee::Record(target, r) => {
                let name = self.qualified(target, &r.name.name);
                let vals: Vec<(Option<String>, Val)> = args
                    .iter()
                    .map(|a| {
                        (
                            a.name.as_ref().map(|n| py_name(&n.name)),
                            self.expr(&a.value),
                        )
                    })
                    .collect();
                let code = self.call_code(&name, vals);
                Val::atom(
                    code,
                    VTy::Record {
                        file: target,
                        name: r.name.name.clone(),
                    },
                )
            }
            Callee::Model(target, m) => {
                let name = self.qualified(target, &m.name.name);
                let vals: Vec<(Option<String>, Val)> = args
                    .iter()
                    .map(|a| {
                        (
                            a.name.as_ref().map(|n| py_name(&n.name)),
                            self.expr(&a.value),
                        )
                    })
                    .collect();
                let sizes = vals
                    .iter()
                    .map(|(_, v)| Ax::anonymous(Some(v.code.clone())))
                    .collect();
                let code = self.call_code(&name, vals);
                Val::atom(
                    code,
                    VTy::Model {
                        file: target,
                        name: m.name.name.clone(),
                        args: sizes,
                    },
                )
            }
        }
    }

    /// Compiles the arguments of a call and pairs each with its parameter's
    /// index. For an extern (`whole` given), Axis/Axes arguments become
    /// positions and keyword names stay the Python function's own.
    fn args(
        &mut self,
        sig: &Sig,
        args: &[ast::Arg],
        whole: Option<&Expr>,
    ) -> Vec<(Option<usize>, Option<String>, Val)> {
        let mut out = Vec::with_capacity(args.len());
        let mut first: Option<VTy> = None;
        for (k, arg) in args.iter().enumerate() {
            let index = match &arg.name {
                Some(n) => sig.params.iter().position(|(p, _, _)| *p == n.name),
                None => Some(k),
            };
            let param = index.and_then(|i| sig.params.get(i));
            let keyword = arg.name.as_ref().map(|n| {
                if whole.is_some() {
                    n.name.clone()
                } else {
                    py_name(&n.name)
                }
            });
            let v = match param.map(|(_, t, _)| &t.kind) {
                Some(TyKind::Axis(_)) | Some(TyKind::Axes(_)) => {
                    let axes = first.as_ref().and_then(|t| t.axes().map(<[Ax]>::to_vec));
                    let position = match (&arg.value.kind, axes) {
                        (ExprKind::Name(id), Some(axes)) => axes
                            .iter()
                            .position(|a| a.name.as_deref() == Some(&id.name)),
                        _ => None,
                    };
                    match position {
                        Some(p)
                            if matches!(param.map(|(_, t, _)| &t.kind), Some(TyKind::Axes(_))) =>
                        {
                            Val::atom(format!("[{p}]"), VTy::Scalar)
                        }
                        Some(p) => Val::atom(p.to_string(), VTy::Scalar),
                        None => {
                            self.unsupported(
                                arg.span,
                                "an axis argument whose position is not known",
                            );
                            Val::atom("None".into(), VTy::Scalar)
                        }
                    }
                }
                _ => self.expr(&arg.value),
            };
            if k == 0 {
                first = Some(v.ty.clone());
            }
            out.push((index, keyword, v));
        }
        out
    }

    /// Binds the callee's names to the arguments and gives the result's type.
    fn finish_call(
        &self,
        sig: &Sig,
        binder: &mut Binder,
        vals: &[(Option<usize>, Option<String>, Val)],
    ) -> VTy {
        let mut shapeless: Option<VTy> = None;
        for (index, _, v) in vals {
            let Some((_, ty, _)) = index.and_then(|i| sig.params.get(i)) else {
                continue;
            };
            binder.bind(ty, &v.ty);
            if let TyKind::Tensor(t) = &ty.kind {
                if t.shape.is_none() && shapeless.is_none() {
                    shapeless = Some(v.ty.clone());
                }
            }
        }
        match &sig.ret {
            Some(ret) => match (binder.apply(ret), shapeless) {
                (VTy::Tensor(None), Some(arg)) => arg,
                (ty, _) => ty,
            },
            None => VTy::Unknown,
        }
    }

    fn index(&mut self, base: &Expr, indices: &[ast::IndexArg]) -> Val {
        let b = self.expr(base);
        let mut parts = Vec::new();
        let axes = b.ty.axes().map(<[Ax]>::to_vec);
        let mut out_axes = Some(Vec::new());
        let mut used = 0;
        for index in indices {
            match index {
                ast::IndexArg::Expr(e) => {
                    let v = self.expr(e);
                    if let VTy::Tensor(_) = v.ty {
                        out_axes = None;
                    }
                    parts.push(v.code);
                }
                ast::IndexArg::Slice {
                    start, end, step, ..
                } => {
                    let mut text = String::new();
                    let bound = |s: &mut Self, e: &Option<Box<Expr>>| {
                        e.as_ref().map(|e| s.expr(e).at(ATOM)).unwrap_or_default()
                    };
                    let start_code = bound(self, start);
                    let end_code = bound(self, end);
                    text.push_str(&start_code);
                    text.push(':');
                    text.push_str(&end_code);
                    if step.is_some() {
                        text.push(':');
                        text.push_str(&bound(self, step));
                    }
                    let whole = start.is_none() && end.is_none() && step.is_none();
                    if let (Some(o), Some(axes)) = (out_axes.as_mut(), axes.as_ref()) {
                        match (whole, axes.get(used)) {
                            (true, Some(a)) => o.push(a.clone()),
                            _ => o.push(Ax::anonymous(None)),
                        }
                    }
                    parts.push(text);
                }
            }
            used += 1;
        }
        let code = format!("{}[{}]", b.at(ATOM), parts.join(", "));
        let ty = match &b.ty {
            VTy::Stack(elem) => (**elem).clone(),
            VTy::Tuple(items) => match indices {
                [ast::IndexArg::Expr(Expr {
                    kind: ExprKind::Int(i),
                    ..
                })] => items.get(*i as usize).cloned().unwrap_or(VTy::Unknown),
                _ => VTy::Unknown,
            },
            VTy::Tensor(_) => match (out_axes, axes) {
                (Some(mut o), Some(axes)) if used <= axes.len() => {
                    o.extend(axes[used..].iter().cloned());
                    VTy::Tensor(Some(o))
                }
                _ => VTy::Tensor(None),
            },
            _ => VTy::Unknown,
        };
        Val::atom(code, ty)
    }

    pub fn binary(&mut self, op: BinaryOp, l: Val, r: Val) -> Val {
        let tensors = matches!(l.ty, VTy::Tensor(_)) || matches!(r.ty, VTy::Tensor(_));
        let (mut l, mut r) = (l, r);
        if l.code.len() + r.code.len() > CALL_BUDGET {
            if l.code.len() >= r.code.len() {
                l = self.hoist(l);
            } else {
                r = self.hoist(r);
            }
        }
        let (op_text, prec) = match op {
            BinaryOp::Or if tensors => return self.logical("torch.logical_or", l, r),
            BinaryOp::And if tensors => return self.logical("torch.logical_and", l, r),
            BinaryOp::Or => ("or", OR),
            BinaryOp::And => ("and", AND),
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => (op.as_str(), CMP),
            BinaryOp::Add | BinaryOp::Sub => (op.as_str(), ADD),
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::MatMul => (op.as_str(), MUL),
            BinaryOp::Pow => ("**", POW),
        };
        let ty = if op == BinaryOp::MatMul {
            matmul_type(&l.ty, &r.ty)
        } else {
            self.broadcast(&mut l, &mut r)
        };
        let (lc, rc) = if op == BinaryOp::Pow {
            (l.at(POW + 1), r.at(UNARY))
        } else if prec == CMP {
            (l.at(CMP + 1), r.at(CMP + 1))
        } else {
            (l.at(prec), r.at(prec + 1))
        };
        let code = if op == BinaryOp::Pow && l.simple && r.simple {
            format!("{lc}**{rc}")
        } else {
            format!("{lc} {op_text} {rc}")
        };
        Val {
            code,
            prec,
            simple: false,
            ty,
        }
    }

    fn logical(&mut self, f: &str, mut l: Val, mut r: Val) -> Val {
        let ty = self.broadcast(&mut l, &mut r);
        Val::atom(format!("{f}({}, {})", l.code, r.code), ty)
    }

    /// The type of an elementwise result; adds the view that makes
    /// PyTorch's right-aligned broadcasting pair axes by name.
    pub fn broadcast(&mut self, l: &mut Val, r: &mut Val) -> VTy {
        match (
            l.ty.axes().map(<[Ax]>::to_vec),
            r.ty.axes().map(<[Ax]>::to_vec),
        ) {
            (Some(a), Some(b)) if a.len() < b.len() => {
                if let Some(view) = broadcast_view(&a, &b) {
                    *l = Val::atom(format!("{}{view}", l.at(ATOM)), l.ty.clone());
                }
                r.ty.clone()
            }
            (Some(a), Some(b)) if b.len() < a.len() => {
                if let Some(view) = broadcast_view(&b, &a) {
                    *r = Val::atom(format!("{}{view}", r.at(ATOM)), r.ty.clone());
                }
                l.ty.clone()
            }
            (Some(_), _) => l.ty.clone(),
            (_, Some(_)) => r.ty.clone(),
            _ => match (&l.ty, &r.ty) {
                (VTy::Tensor(_), _) => l.ty.clone(),
                (_, VTy::Tensor(_)) => r.ty.clone(),
                _ => VTy::Scalar,
            },
        }
    }

    /// The type a `let x: T` or `as T` states, seen from this body.
    pub fn claimed(&self, ty: &ast::Type) -> Option<VTy> {
        let known: Vec<_> = self
            .sizes
            .keys()
            .map(|k| self.gen.names.intern(k))
            .collect();
        let lowered = self.gen.lower_type(self.file, ty, &known);
        let binds = self
            .sizes
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    Ax {
                        name: Some(k.clone()),
                        size: Some(v.clone()),
                    },
                )
            })
            .collect();
        let here = self.file;
        let gen = self.gen;
        let dim = |target, name: &str| gen.dim(here, target, name);
        let binder = Binder {
            binds,
            dim: &dim,
            rest: None,
        };
        match binder.apply(&lowered) {
            VTy::Tensor(None) => None,
            VTy::Unknown => None,
            t => Some(t),
        }
    }

    fn cast(&mut self, kind: CastKind, inner: &Expr, ty: &ast::Type, whole: &Expr) -> Val {
        let v = self.expr(inner);
        let known: Vec<_> = self
            .sizes
            .keys()
            .map(|k| self.gen.names.intern(k))
            .collect();
        let lowered = self.gen.lower_type(self.file, ty, &known);
        let TyKind::Tensor(t) = &lowered.kind else {
            self.unsupported(
                whole.span,
                "an `as` or `to` with a type that is not a tensor type",
            );
            return v;
        };
        let claimed = self.claimed(ty);
        let new_ty = match (&claimed, &v.ty) {
            (Some(c), _) => c.clone(),
            (None, old) => old.clone(),
        };
        let text = self.gen.map.text(self.file);
        let written = text
            .get(whole.span.start as usize..whole.span.end as usize)
            .unwrap_or("")
            .to_string();
        let at = self.gen.where_(self.file, whole.span.start);
        match kind {
            CastKind::As => {
                if !self.gen.options.runtime_checks {
                    return Val { ty: new_ty, ..v };
                }
                let mut value = v;
                if let Some(axes) = claimed.as_ref().and_then(|c| c.axes()) {
                    let expected: Vec<String> = axes
                        .iter()
                        .map(|a| a.size.clone().unwrap_or_else(|| "None".into()))
                        .collect();
                    let expected = if expected.len() == 1 {
                        format!("({},)", expected[0])
                    } else {
                        format!("({})", expected.join(", "))
                    };
                    let same = value.ty.axes().is_some_and(|old| {
                        old.len() == axes.len()
                            && old
                                .iter()
                                .zip(axes)
                                .all(|(o, a)| o.size.is_some() && o.size == a.size)
                    });
                    if !same {
                        let code = self.call_code(
                            "shapescript_runtime.check_claim_shape",
                            vec![
                                (None, value.clone()),
                                (None, Val::atom(expected, VTy::Scalar)),
                                (None, Val::atom(string_literal(&written), VTy::Scalar)),
                                (None, Val::atom(string_literal(&at), VTy::Scalar)),
                            ],
                        );
                        value = Val::atom(code, value.ty.clone());
                    }
                }
                match &t.domain {
                    Some(Domain::Index(n)) => {
                        let bound = crate::checks::size_expr(self, &n.poly)
                            .unwrap_or_else(|| "None".into());
                        if let Some(limit) = arange_length(inner, self) {
                            // `arange(n) as Index[N]` holds exactly when n <= N: an int comparison.
                            self.pre.push(format!("if {limit} > {bound}:"));
                            self.pre.push(format!(
                                "    shapescript_runtime.claim_error({}, f\"{{{limit}}} values, not all below {{{bound}}}\", {})",
                                string_literal(&written),
                                string_literal(&at)
                            ));
                        } else {
                            let code = self.call_code(
                                "shapescript_runtime.check_claim_index",
                                vec![
                                    (None, value.clone()),
                                    (None, Val::atom(bound, VTy::Scalar)),
                                    (None, Val::atom(string_literal(&written), VTy::Scalar)),
                                    (None, Val::atom(string_literal(&at), VTy::Scalar)),
                                ],
                            );
                            value = Val::atom(code, value.ty.clone());
                        }
                    }
                    Some(d) => {
                        if let Some((lo, hi)) = domain_bounds(d) {
                            let code = self.call_code(
                                "shapescript_runtime.check_claim_range",
                                vec![
                                    (None, value.clone()),
                                    (None, Val::atom(lo.into(), VTy::Scalar)),
                                    (None, Val::atom(hi.into(), VTy::Scalar)),
                                    (None, Val::atom(string_literal(&written), VTy::Scalar)),
                                    (None, Val::atom(string_literal(&at), VTy::Scalar)),
                                ],
                            );
                            value = Val::atom(code, value.ty.clone());
                        }
                    }
                    None => {}
                }
                Val {
                    ty: new_ty,
                    ..value
                }
            }
            CastKind::To => {
                let mut value = v;
                if let Some(axes) = claimed.as_ref().and_then(|c| c.axes()) {
                    let sizes: Vec<Option<String>> = axes.iter().map(|a| a.size.clone()).collect();
                    let unknown = sizes.iter().filter(|s| s.is_none()).count();
                    if unknown <= 1 {
                        let sizes: Vec<String> = sizes
                            .into_iter()
                            .map(|s| s.unwrap_or_else(|| "-1".into()))
                            .collect();
                        value = Val::atom(
                            format!("{}.reshape({})", value.at(ATOM), sizes.join(", ")),
                            value.ty.clone(),
                        );
                    } else {
                        self.unsupported(
                            whole.span,
                            "a `to` reshape with several sizes unknown before run time",
                        );
                    }
                }
                if let Some(d) = &t.domain {
                    let clamp = match d {
                        Domain::Unit => Some("0.0, 1.0".to_string()),
                        Domain::Signed => Some("-1.0, 1.0".to_string()),
                        Domain::NonNeg => Some("min=0.0".to_string()),
                        Domain::NonPos => Some("max=0.0".to_string()),
                        Domain::Pos => {
                            Some(format!("min=torch.finfo({}.dtype).tiny", value.at(ATOM)))
                        }
                        Domain::Neg => {
                            Some(format!("max=-torch.finfo({}.dtype).tiny", value.at(ATOM)))
                        }
                        Domain::Index(n) => {
                            crate::checks::size_expr(self, &n.poly).map(|n| format!("0, {n} - 1"))
                        }
                        Domain::Bool | Domain::Real => None,
                    };
                    if matches!(d, Domain::Bool) {
                        value = Val {
                            code: format!("{} != 0", value.at(CMP + 1)),
                            prec: CMP,
                            simple: false,
                            ty: value.ty.clone(),
                        };
                    } else if let Some(c) = clamp {
                        if matches!(d, Domain::Pos | Domain::Neg) {
                            value = self.hoist(value);
                        }
                        let c = c.replace("{}", &value.code);
                        value = Val::atom(
                            format!("torch.clamp({}, {c})", value.code),
                            value.ty.clone(),
                        );
                    }
                    if matches!(d, Domain::Index(_)) && t.dtype.is_none() {
                        value = Val::atom(format!("{}.long()", value.at(ATOM)), value.ty.clone());
                    }
                }
                if let Some(dtype) = t.dtype {
                    value = Val::atom(
                        format!("{}.to({})", value.at(ATOM), torch_dtype(dtype)),
                        value.ty.clone(),
                    );
                }
                Val {
                    ty: new_ty,
                    ..value
                }
            }
        }
    }
}

/// `n` when `e` is `arange(n)`.
fn arange_length(e: &Expr, scope: &mut Scope) -> Option<String> {
    let ExprKind::Call { callee, args } = &e.kind else {
        return None;
    };
    let ExprKind::Name(id) = &callee.kind else {
        return None;
    };
    if id.name != "arange" || args.len() != 1 || args[0].name.is_some() {
        return None;
    }
    let v = scope.expr(&args[0].value);
    v.simple.then_some(v.code)
}

fn domain_bounds(d: &Domain) -> Option<(&'static str, &'static str)> {
    Some(match d {
        Domain::Unit => ("0.0", "1.0"),
        Domain::Signed => ("-1.0", "1.0"),
        Domain::NonNeg => ("0.0", "float(\"inf\")"),
        Domain::NonPos => ("-float(\"inf\")", "0.0"),
        Domain::Bool => ("0", "1"),
        _ => return None,
    })
}

pub fn torch_dtype(d: ast::DtypeKind) -> &'static str {
    match d {
        ast::DtypeKind::F64 => "torch.float64",
        ast::DtypeKind::F32 => "torch.float32",
        ast::DtypeKind::F16 => "torch.float16",
        ast::DtypeKind::Bf16 => "torch.bfloat16",
        ast::DtypeKind::I64 => "torch.int64",
        ast::DtypeKind::I32 => "torch.int32",
        ast::DtypeKind::Bool => "torch.bool",
    }
}

fn matmul_type(l: &VTy, r: &VTy) -> VTy {
    match (l.axes(), r.axes()) {
        (Some(a), Some(b)) if a.len() >= 2 && b.len() == 2 => {
            let mut out = a[..a.len() - 1].to_vec();
            out.push(b[1].clone());
            VTy::Tensor(Some(out))
        }
        (Some(a), Some(b)) if a.len() >= 2 && b.len() == 1 => {
            VTy::Tensor(Some(a[..a.len() - 1].to_vec()))
        }
        (Some(a), Some(b)) if a.len() == 1 && b.len() >= 2 => {
            let mut out = b[..b.len() - 2].to_vec();
            out.push(b[b.len() - 1].clone());
            VTy::Tensor(Some(out))
        }
        (Some(a), Some(b)) if a.len() == b.len() && a.len() > 2 => {
            let mut out = a[..a.len() - 1].to_vec();
            out.push(b[b.len() - 1].clone());
            VTy::Tensor(Some(out))
        }
        _ => VTy::Tensor(None),
    }
}
