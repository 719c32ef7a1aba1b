//! Compiling statements and expressions of a body to Python, reading every
//! decision from the checker's typed body (`check::typed`): names, fields,
//! calls of functions, methods, sub-models, records and externs with their
//! bound arguments (Axis/Axes/Size arguments as integers), operators with
//! the broadcasting views the checker lined up, indexing, `as` (verified at
//! run time) and `to` (in `casts`). Built-in operations live in `builtins`. Never
//! reports user mistakes (the checker has), only what it cannot compile.

use check::hir::{Alignment, BoundArg, Builtin, CallInfo, Callee, Domain, ExprInfo, TyKind};
use syntax::ast::{self, BinaryOp, Expr, ExprKind, StmtKind, UnaryOp};

use crate::checks::Lines;
use crate::scope::Scope;
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
}

impl Val {
    pub fn atom(code: String) -> Val {
        let simple = is_simple(&code);
        Val {
            code,
            prec: ATOM,
            simple,
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

/// A call's arguments as `call_code` writes them: each value, with its
/// keyword when passed by keyword.
pub type Args = Vec<(Option<String>, Val)>;

/// A call's arguments as written and as the checker bound them, which
/// every way of passing them (`bound_args`, `extern_args`) reads.
#[derive(Clone, Copy)]
struct Written<'c> {
    info: &'c CallInfo,
    args: &'c [ast::Arg],
    /// The whole call, where a bound argument cannot be written.
    whole: diag::Span,
}

/// Past this many characters an argument list hoists its longest arguments.
const CALL_BUDGET: usize = 64;

impl<'g, 'a> Scope<'g, 'a> {
    /// Compiles a block's statements; the last expression of a function body is returned.
    pub fn block(&mut self, block: &ast::Block, indent: usize, fn_body: bool, out: &mut Lines) {
        let start = out.len();
        self.plan_attention(block);
        if fn_body {
            self.plan_accumulations(block);
        }
        self.names.open();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = fn_body && i + 1 == block.stmts.len();
            // Blocks nest: grow the stack when needed.
            syntax::ensure_sufficient_stack(|| self.stmt(stmt, indent, last, out));
        }
        self.names.close();
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
            StmtKind::Let { name, .. } if self.skipped_lets.contains(&name.span) => {}
            StmtKind::Assign { name, value } if self.in_place.contains(&stmt.span) => {
                let target = self.assigned(name);
                match self.accumulate_in_place(&target, value) {
                    Some(code) => self.emit(indent, code, at, out),
                    // The plan checked the call's form: not reached.
                    None => self.unsupported(value.span, "an in-place accumulation"),
                }
            }
            StmtKind::Let { name, value, .. } | StmtKind::Assign { name, value } => {
                let v = self.expr(value);
                let target = match &stmt.kind {
                    StmtKind::Let { .. } => self.names.bind(name.name, name.span),
                    _ => self.assigned(name),
                };
                // `_t1 = f(x)` then `y = _t1`: name the value `y` at once.
                let prefix = format!("{} = ", v.code);
                if let Some(last) = self.pre.last_mut().filter(|l| l.starts_with(&prefix)) {
                    let code = last[prefix.len()..].to_string();
                    self.pre.pop();
                    self.emit(indent, format!("{target} = {code}"), at, out);
                    self.probe_after(stmt, indent, out);
                    return;
                }
                self.emit(indent, format!("{target} = {}", v.code), at, out);
                self.probe_after(stmt, indent, out);
            }
            StmtKind::LetTuple { names, value } => {
                let v = self.expr(value);
                let targets: Vec<String> = names
                    .iter()
                    .map(|n| self.names.bind(n.name, n.span))
                    .collect();
                let text = format!("{} = {}", targets.join(", "), v.code);
                self.emit(indent, text, at, out);
                self.probe_after(stmt, indent, out);
            }
            StmtKind::Return(value) => {
                let v = self.expr(value);
                let code = self.probe_return(value.span, v.code);
                self.emit(indent, format!("return {code}"), at, out);
            }
            StmtKind::Expr(value) => {
                let v = self.expr(value);
                let text = if last {
                    format!("return {}", self.probe_return(value.span, v.code))
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
                // A rank-0 Bool tensor decides in Python through `bool`.
                let code = if self.is_tensor(cond.span) {
                    format!("bool({})", c.code)
                } else {
                    c.code
                };
                self.emit(indent, format!("if {code}:"), at, out);
                self.block(then_block, indent + 1, false, out);
                if let Some(else_block) = else_block {
                    out.push((indent, "else:".into()));
                    self.block(else_block, indent + 1, false, out);
                }
            }
            StmtKind::For { var, iter, body } => {
                let it = match &iter.kind {
                    // `for i in range(n)`: the loop's own form, not a call.
                    ExprKind::Call { callee, args }
                        if !matches!(
                            self.typed(iter.span).map(|t| &t.info),
                            Some(ExprInfo::Call(_))
                        ) && matches!(&callee.kind, ExprKind::Name(id) if id.name == "range") =>
                    {
                        let list = args.iter().map(|a| (None, self.expr(&a.value))).collect();
                        Val::atom(self.call_code("range", list))
                    }
                    _ => self.expr(iter),
                };
                // The loop variable is scoped to the loop, as in the checker.
                self.names.open();
                let target = self.names.bind(var.name, var.span);
                let text = format!("for {target} in {}:", it.code);
                self.emit(indent, text, at, out);
                self.block(body, indent + 1, false, out);
                self.names.close();
            }
        }
    }

    /// Puts a value in a temporary unless it is a plain name or attribute
    /// (or a default value is being written: it stays one expression).
    pub fn hoist(&mut self, v: Val) -> Val {
        if (v.simple && !v.code.starts_with('-')) || self.in_default {
            return v;
        }
        let t = self.temp();
        self.pre.push(format!("{t} = {}", v.code));
        Val::atom(t)
    }

    /// `callee(args)`, hoisting the longest arguments into temporaries
    /// while the call is too long to read on one line.
    pub fn call_code(&mut self, callee: &str, args: Args) -> String {
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
                .filter(|(_, (_, v))| {
                    // A string literal reads best where it is.
                    v.code.len() > 16
                        && (!v.simple || v.code.starts_with('-'))
                        && !v.code.starts_with('"')
                })
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

    /// The Python of `e`. Grows the stack when needed: this recursion
    /// follows the tree's depth.
    pub fn expr(&mut self, e: &Expr) -> Val {
        syntax::ensure_sufficient_stack(|| self.expr_at_depth(e))
    }

    fn expr_at_depth(&mut self, e: &Expr) -> Val {
        match &e.kind {
            ExprKind::Int(v) => Val::atom(v.to_string()),
            ExprKind::Float(v) => Val::atom(float_literal(*v)),
            ExprKind::Bool(b) => Val::atom(if *b { "True" } else { "False" }.into()),
            ExprKind::None => Val::atom("None".into()),
            ExprKind::Str(s) => Val::atom(string_literal(s)),
            ExprKind::Name(id) => self.name(e, id),
            ExprKind::Field { base, name } => self.field(e, base, name),
            ExprKind::Call { callee, args } => self.call(e, callee, args),
            ExprKind::Index { base, indices } => self.index(base, indices),
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand);
                match op {
                    UnaryOp::Neg => Val {
                        code: format!("-{}", v.at(UNARY)),
                        prec: UNARY,
                        simple: v.simple && !v.code.starts_with('-'),
                    },
                    UnaryOp::Not if self.is_tensor(operand.span) => {
                        Val::atom(format!("torch.logical_not({})", v.code))
                    }
                    UnaryOp::Not => Val {
                        code: format!("not {}", v.at(NOT)),
                        prec: NOT,
                        simple: false,
                    },
                }
            }
            ExprKind::Binary { .. } if self.size_value(e).is_some() => self
                .size_value(e)
                .unwrap_or_else(|| Val::atom("None".into())),
            ExprKind::Binary { op, lhs, rhs } => {
                let mut l = self.expr(lhs);
                let mut r = self.expr(rhs);
                match self.typed(e.span).map(|t| &t.info) {
                    Some(ExprInfo::Broadcast { operands }) => {
                        if let Some(a) = operands.first() {
                            l = view(l, a);
                        }
                        if let Some(a) = operands.get(1) {
                            r = view(r, a);
                        }
                    }
                    Some(ExprInfo::MatMul { lhs, rhs }) => {
                        (l, r) = (view(l, lhs), view(r, rhs));
                    }
                    _ => {}
                }
                let tensors = self.is_tensor(lhs.span) || self.is_tensor(rhs.span);
                self.binary(*op, l, r, tensors)
            }
            ExprKind::Cast { kind, expr, .. } => self.cast(*kind, expr, e),
            ExprKind::Tuple(items) => {
                let codes: Vec<String> = items.iter().map(|i| self.expr(i).code).collect();
                Val::atom(crate::sizes::tuple(&codes))
            }
            ExprKind::AxisGroup(_) | ExprKind::Pattern(_) | ExprKind::Shape(_) => {
                self.unsupported(
                    e.span,
                    "an axis list or pattern outside a built-in's arguments",
                );
                Val::atom("None".into())
            }
            ExprKind::Error => Val::atom("None".into()),
        }
    }

    /// The value of an expression the checker worked out as a size (a
    /// size divided exactly, `D / 2`).
    fn size_value(&self, e: &Expr) -> Option<Val> {
        match self.typed(e.span).map(|t| &t.info) {
            Some(ExprInfo::SizeValue { size }) => self.size_val(size),
            _ => None,
        }
    }

    /// A size as a value: its Python integer arithmetic, parenthesized
    /// when it is more than one name or number.
    pub fn size_val(&self, size: &check::hir::Size) -> Option<Val> {
        let code = self.size_code(size)?;
        Some(if code.contains(' ') {
            Val {
                code,
                prec: ADD,
                simple: false,
            }
        } else {
            Val::atom(code)
        })
    }

    fn name(&mut self, e: &Expr, id: &ast::Ident) -> Val {
        let name = &id.name;
        match self.typed(e.span).map(|t| &t.info) {
            // A parameter named `self` of a plain `fn` has its own name; a
            // method's receiver is Python's `self`.
            Some(ExprInfo::Local { decl }) => {
                let py = self.names.local(*decl).unwrap_or(name.as_str()).to_string();
                return Val::atom(py);
            }
            Some(ExprInfo::SizeValue { size }) => {
                if let Some(v) = self.size_val(size) {
                    return v;
                }
            }
            _ => {}
        }
        if name == "self" {
            return Val::atom("self".into());
        }
        if name == "inf"
            && matches!(
                self.ty(e.span).map(|t| &t.kind),
                Some(check::hir::TyKind::Scalar(_))
            )
        {
            // The checker's float literal infinity.
            return Val::atom(self.use_python("math.inf"));
        }
        if let Some(size) = self.sizes.get(name.as_str()) {
            return Val::atom(size.clone());
        }
        // A declaration (a dim in a default value, say): its Python name.
        let path = ast::Path {
            file: None,
            name: *id,
            span: id.span,
        };
        match self.gen.checked.program.lookup(self.file, &path) {
            Ok((target, _)) => Val::atom(self.qualified(target, name)),
            Err(_) => {
                self.unsupported(id.span, &format!("the name `{name}` here"));
                Val::atom(name.to_string())
            }
        }
    }

    fn field(&mut self, e: &Expr, base: &Expr, name: &ast::Ident) -> Val {
        if let Some(ExprInfo::SizeValue { size }) = self.typed(e.span).map(|t| &t.info) {
            if let Some(v) = self.size_val(size) {
                return v;
            }
        }
        if let Some(target) = self.imported(base) {
            return Val::atom(self.qualified(target, &name.name));
        }
        let b = self.expr(base);
        let attribute = match self.typed(e.span).map(|t| &t.info) {
            Some(ExprInfo::Field { file, owner, .. }) => self.attribute(*file, owner, &name.name),
            _ => name.name.to_string(),
        };
        Val::atom(format!("{}.{attribute}", b.at(ATOM)))
    }

    /// The attribute of the member `name` of the model or record `owner`.
    fn attribute(&self, file: diag::FileId, owner: &str, name: &str) -> String {
        match self.gen.names(file).class(owner) {
            Some(class) => class.attribute(name),
            None => name.to_string(),
        }
    }

    /// The Python name `name = ...` assigns: the binding it names.
    fn assigned(&self, name: &ast::Ident) -> String {
        self.names
            .assigned(name.name)
            .unwrap_or_else(|| name.name.to_string())
    }

    /// The module an `import` name in this file stands for, unless it names a value here.
    fn imported(&self, base: &Expr) -> Option<diag::FileId> {
        let ExprKind::Name(id) = &base.kind else {
            return None;
        };
        if self.typed(base.span).is_some() || self.sizes.contains_key(id.name.as_str()) {
            return None;
        }
        self.gen.module(self.file).imports.get(&id.name).copied()
    }

    fn call(&mut self, whole: &Expr, callee: &Expr, args: &[ast::Arg]) -> Val {
        let Some(ExprInfo::Call(info)) = self.typed(whole.span).map(|t| &t.info) else {
            self.unsupported(whole.span, "a call the checker did not resolve");
            return Val::atom("None".into());
        };
        let info: &'a CallInfo = info;
        let program = &self.gen.checked.program;
        let written = Written {
            info,
            args,
            whole: whole.span,
        };
        match &info.callee {
            Callee::Builtin(op) => self.builtin(*op, info, args, whole),
            Callee::Fn { file, name } => {
                let params = self.gen.names(*file).params(None, *name).to_vec();
                let f = self.qualified(*file, name);
                let list = self.bound_args(written, &params);
                Val::atom(self.call_code(&f, list))
            }
            Callee::Extern { file, name, python } => {
                let params = match program.decl(*file, name) {
                    Some(check::hir::Decl::ExternFn(f)) => param_names(&f.params),
                    _ => Vec::new(),
                };
                let f = self.use_python(python);
                let list = self.extern_args(written, &params);
                Val::atom(self.call_code(&f, list))
            }
            Callee::Method {
                file,
                model,
                method,
            } => {
                let params = self.gen.names(*file).params(Some(*model), *method).to_vec();
                if *file != self.file {
                    self.imports.modules.borrow_mut().insert(*file);
                }
                // `m(x)` calls the value; `m.encode(x)` names the method.
                let receiver = match &callee.kind {
                    ExprKind::Field { base, name } if self.typed(callee.span).is_none() => {
                        let b = self.expr(base);
                        let attribute = self.attribute(*file, model, &name.name);
                        format!("{}.{attribute}", b.at(ATOM))
                    }
                    _ => self.expr(callee).at(ATOM),
                };
                let list = self.bound_args(written, &params);
                Val::atom(self.call_code(&receiver, list))
            }
            Callee::Record { file, name } => {
                let fields: Vec<String> = self
                    .gen
                    .record(*file, name)
                    .map(|r| {
                        r.fields
                            .iter()
                            .map(|f| self.attribute(*file, name, &f.name.name))
                            .collect()
                    })
                    .unwrap_or_default();
                let f = self.qualified(*file, name);
                // A dataclass takes its fields by name: always say which.
                let list = self
                    .bound_args(written, &fields)
                    .into_iter()
                    .enumerate()
                    .map(|(i, (k, v))| (k.or_else(|| fields.get(i).cloned()), v))
                    .collect();
                Val::atom(self.call_code(&f, list))
            }
        }
    }

    /// The arguments of a call, one per parameter in parameter order as the
    /// checker bound them: written expressions (by keyword once one was
    /// written by keyword or a parameter was left out), axis positions and
    /// sizes. Keyword names are `params`, as the generated `def`s name them.
    fn bound_args(&mut self, written: Written<'_>, params: &[String]) -> Args {
        let Written { info, args, whole } = written;
        let mut out = Vec::with_capacity(info.args.len());
        let mut by_keyword = false;
        for (i, bound) in info.args.iter().enumerate() {
            let v = match bound {
                BoundArg::Expr { span, keyword } => {
                    let Some(arg) = args.iter().find(|a| a.value.span == *span) else {
                        continue;
                    };
                    by_keyword |= *keyword;
                    self.expr(&arg.value)
                }
                BoundArg::Default { .. } | BoundArg::NoneDefault => {
                    by_keyword = true;
                    continue;
                }
                BoundArg::SelfTraining => {
                    by_keyword = true;
                    Val::atom("self.training".into())
                }
                BoundArg::Axis { .. } | BoundArg::Axes { .. } | BoundArg::Size { .. }
                    if args.get(i).is_none_or(|a| a.name.is_some()) =>
                {
                    // Not written in this place: a default or a keyword.
                    by_keyword = true;
                    self.fixed_arg(bound, whole)
                }
                _ => self.fixed_arg(bound, whole),
            };
            let key = params.get(i).cloned();
            out.push((if by_keyword { key } else { None }, v));
        }
        out
    }

    /// The arguments of an extern fn's call. Its parameters' names are the
    /// declaration's, which may not be the Python function's (`d: Axis[n]`
    /// for `torch.roll`'s `dims`), but their order is the function's: so
    /// every argument is passed by position, a left-out `none` default as
    /// `None`, until a left-out parameter whose default only Python knows;
    /// keywords (the declaration's names) only after one. Trailing left-out
    /// parameters are not written.
    fn extern_args(&mut self, written: Written<'_>, params: &[String]) -> Args {
        let Written { info, args, whole } = written;
        let written = |b: &BoundArg| !matches!(b, BoundArg::Default { .. } | BoundArg::NoneDefault);
        let Some(last) = info.args.iter().rposition(written) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(last + 1);
        let mut by_keyword = false;
        for (i, bound) in info.args.iter().enumerate().take(last + 1) {
            let v = match bound {
                BoundArg::Expr { span, .. } => {
                    let Some(arg) = args.iter().find(|a| a.value.span == *span) else {
                        continue;
                    };
                    self.expr(&arg.value)
                }
                BoundArg::Default { .. } => {
                    by_keyword = true;
                    continue;
                }
                BoundArg::NoneDefault if by_keyword => continue,
                _ => self.fixed_arg(bound, whole),
            };
            let key = params.get(i).filter(|_| by_keyword).cloned();
            out.push((key, v));
        }
        out
    }

    /// An argument the checker worked out: an axis position, a list of
    /// them, or a size.
    fn fixed_arg(&mut self, bound: &BoundArg, whole: diag::Span) -> Val {
        match bound {
            BoundArg::Axis { position } => Val::atom(position.to_string()),
            BoundArg::Axes { positions } => {
                let list: Vec<String> = positions.iter().map(usize::to_string).collect();
                Val::atom(format!("[{}]", list.join(", ")))
            }
            BoundArg::Size { value } => match self.size_val(value) {
                Some(v) => v,
                None => {
                    self.unsupported(whole, "a Size argument unknown before run time");
                    Val::atom("None".into())
                }
            },
            BoundArg::SelfTraining => Val::atom("self.training".into()),
            BoundArg::Expr { .. } | BoundArg::Default { .. } | BoundArg::NoneDefault => {
                Val::atom("None".into())
            }
        }
    }

    fn index(&mut self, base: &Expr, indices: &[ast::IndexArg]) -> Val {
        if let Some(positions) = self.mask_positions(base, indices) {
            return positions;
        }
        let b = self.expr(base);
        let mut parts = Vec::new();
        for index in indices {
            match index {
                ast::IndexArg::Expr(e) => {
                    let v = self.expr(e);
                    parts.push(v.code);
                }
                ast::IndexArg::Slice {
                    start, end, step, ..
                } => {
                    let mut bound = |e: &Option<Box<Expr>>| {
                        e.as_ref()
                            .map(|e| self.expr(e).at(ATOM))
                            .unwrap_or_default()
                    };
                    let mut text = format!("{}:{}", bound(start), bound(end));
                    if step.is_some() {
                        text.push(':');
                        text.push_str(&bound(step));
                    }
                    parts.push(text);
                }
                ast::IndexArg::Ellipsis(_) => parts.push("...".into()),
                ast::IndexArg::List { items, .. } => {
                    let items: Vec<String> = items.iter().map(|e| self.expr(e).code).collect();
                    parts.push(format!("[{}]", items.join(", ")));
                }
            }
        }
        Val::atom(format!("{}[{}]", b.at(ATOM), parts.join(", ")))
    }

    /// `arange(n)[mask]`, the positions a mask of `[n]` holds, as a PyTorch
    /// user writes them: `torch.nonzero(mask).squeeze(1)` searches the mask
    /// once, where indexing `0..n` with it also builds the `arange` and
    /// gathers from it (`docs/shapescript/python.md`).
    fn mask_positions(&mut self, base: &Expr, indices: &[ast::IndexArg]) -> Option<Val> {
        let [ast::IndexArg::Expr(mask)] = indices else {
            return None;
        };
        let is_arange = match self.typed(base.span).map(|t| &t.info) {
            Some(ExprInfo::Call(info)) => matches!(info.callee, Callee::Builtin(Builtin::Arange)),
            _ => false,
        };
        if !is_arange || !self.is_mask(mask.span) {
            return None;
        }
        let m = self.expr(mask);
        Some(Val::atom(format!("torch.nonzero({}).squeeze(1)", m.code)))
    }

    /// Whether the index at `span` is a Boolean mask, as the checker decides
    /// it: the `bool` dtype, written or implied by a `Bool` domain (a
    /// comparison, `any`); `mask to f32` is not one.
    fn is_mask(&self, span: diag::Span) -> bool {
        match self.ty(span).map(|t| &t.kind) {
            Some(TyKind::Tensor(t)) => match t.dtype {
                Some(d) => d == ast::DtypeKind::Bool,
                None => matches!(t.domain, Some(Domain::Bool)),
            },
            _ => false,
        }
    }

    pub fn binary(&mut self, op: BinaryOp, l: Val, r: Val, tensors: bool) -> Val {
        let (mut l, mut r) = (l, r);
        if l.code.len() + r.code.len() > CALL_BUDGET {
            if l.code.len() >= r.code.len() {
                l = self.hoist(l);
            } else {
                r = self.hoist(r);
            }
        }
        let (op_text, prec) = match op {
            BinaryOp::Or if tensors => {
                return Val::atom(format!("torch.logical_or({}, {})", l.code, r.code))
            }
            BinaryOp::And if tensors => {
                return Val::atom(format!("torch.logical_and({}, {})", l.code, r.code))
            }
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
        }
    }
}

/// The view that lines an operand up with the result for PyTorch's
/// right-aligned broadcasting, as the checker paired the axes by name:
/// `s[:, :, None]`. No view where PyTorch's own broadcasting does it.
pub fn view(v: Val, alignment: &Alignment) -> Val {
    if alignment.is_identity() {
        return v;
    }
    let Some(positions) = &alignment.positions else {
        return v;
    };
    let Some(first) = positions.iter().position(Option::is_some) else {
        return v;
    };
    let parts: Vec<&str> = positions[first..]
        .iter()
        .map(|p| if p.is_some() { ":" } else { "None" })
        .collect();
    Val::atom(format!("{}[{}]", v.at(ATOM), parts.join(", ")))
}

/// The parameter names of a declaration, in order.
fn param_names(params: &[ast::Param]) -> Vec<String> {
    params.iter().map(|p| p.name.name.to_string()).collect()
}
