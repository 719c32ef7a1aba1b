//! The name index: walks every file's syntax tree once and records each
//! declaration (`Def`) and each place a name is written (`Occurrence`), with
//! the scopes of locals, parameters and generic axes, and the calls; then
//! puts the checker's types on the values. Where the checker resolved a
//! name, the index takes its answer: plain names, fields, callees (methods,
//! `file.f` and built-ins included) and arguments of the bodies it typed
//! (`Checked::name_resolution`, `field_name_span`, `callee_name_span`,
//! `arg_param_span`), and names in types, signatures, alias declarations
//! and dims' values (`Checked::type_name_resolution`, `generic_decl_span`).
//! The walker's own scopes, keyed by `syntax::Name`, answer only where the
//! checker resolved nothing: files it never checks (`builtins.ss`), bodies
//! it skips (a file with a syntax error, the library's), pattern axes,
//! assignments, failed expressions. Every editor feature reads this index;
//! it never reports diagnostics and never types anything itself.

use std::collections::HashMap;

use check::hir::{Callee, ExprInfo, Resolution, TypeName};
use diag::{FileId, SourceMap, Span};
use syntax::{ast, Name};

use super::defs::{CallSite, DefId, DefKind, Index, Occurrence, Source, Visible};
use super::register::{new_def, register_items};

/// Builds the index of `sources`, whose text is in `map`.
pub fn build(
    sources: &[Source],
    library: &[FileId],
    map: &SourceMap,
    checked: &check::Checked,
) -> Index {
    let mut index = Index::default();
    for source in sources {
        register_items(&mut index, source);
    }
    let let_named = named_lets(&index, &checked.bodies);
    for source in sources {
        let mut walker = Walker {
            index: &mut index,
            source,
            library,
            map,
            scopes: Vec::new(),
            container: None,
            model: None,
            self_param: None,
            let_named: &let_named,
            checked,
        };
        for item in &source.ast.items {
            walker.item(item);
        }
    }
    for list in index.occurrences.values_mut() {
        list.sort_by_key(|o| (o.span.start, o.span.end));
        list.dedup();
    }
    index
}

/// The `let`s and loop variables whose checked type is a model or record
/// (or a stack of models), with that declaration, so `x.` finds its members.
fn named_lets(index: &Index, bodies: &check::hir::Bodies) -> HashMap<Span, DefId> {
    let mut out = HashMap::new();
    for binding in bodies.fns.iter().flat_map(|b| &b.lets) {
        let mut ty = &binding.ty;
        while let check::hir::TyKind::Stack { elem, .. } = &ty.kind {
            ty = elem;
        }
        if let check::hir::TyKind::Named { file, name, .. } = &ty.kind {
            if let Some(def) = index.top.get(file).and_then(|names| names.get(name)) {
                out.insert(binding.span, *def);
            }
        }
    }
    out
}

/// Second pass over one file: uses, scopes, calls and value types.
struct Walker<'i, 's, 'e> {
    index: &'i mut Index,
    source: &'s Source<'s>,
    library: &'s [FileId],
    map: &'e SourceMap,
    /// Innermost last: names of locals, parameters, generic axes, `self`.
    scopes: Vec<Vec<(Name, DefId)>>,
    /// The group label of what is being walked (`fn f`, `model M`).
    container: Option<String>,
    /// The model whose fields and methods `self.` finds.
    model: Option<DefId>,
    /// In a method: its `self` parameter, which means the model.
    self_param: Option<(Span, DefId)>,
    /// The model or record each `let` holds, from the checker's types.
    let_named: &'s HashMap<Span, DefId>,
    /// The checker's results: how it resolved the names of the bodies it
    /// checked.
    checked: &'s check::Checked,
}

impl Walker<'_, '_, '_> {
    fn file(&self) -> FileId {
        self.source.file
    }

    fn occur(&mut self, span: Span, def: DefId, is_decl: bool) {
        if span.is_empty() {
            return;
        }
        self.index
            .occurrences
            .entry(span.file)
            .or_default()
            .push(Occurrence { span, def, is_decl });
    }

    fn declare(&mut self, name: &ast::Ident) {
        self.occur(name.span, name.span, true);
    }

    fn bind(&mut self, name: Name, def: DefId) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name, def));
        }
    }

    fn visible(&mut self, def: DefId, from: u32, to: u32) {
        self.index.visible.push(Visible {
            file: self.file(),
            from,
            to,
            def,
        });
    }

    fn lookup_scoped(&self, name: Name) -> Option<DefId> {
        self.scopes.iter().rev().find_map(|scope| {
            scope
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .map(|(_, d)| *d)
        })
    }

    fn lookup_top(&self, name: Name) -> Option<DefId> {
        self.index.lookup_top(self.file(), self.library, name)
    }

    /// `name` or `file.name` at the top level.
    fn resolve_path(&mut self, path: &ast::Path) -> Option<DefId> {
        if let Some(def) = self.type_decl_by_checker(path.name.span) {
            if let Some(file) = &path.file {
                if let Some(import) = self.type_decl_by_checker(file.span) {
                    self.occur(file.span, import, false);
                }
            }
            self.occur(path.name.span, def, false);
            return Some(def);
        }
        let def = match &path.file {
            Some(file) => {
                let target = self.source.imports.get(&file.name).copied();
                if let Some(import) = self.lookup_top(file.name) {
                    self.occur(file.span, import, false);
                }
                self.index.top.get(&target?)?.get(&path.name.name).copied()
            }
            None => self
                .lookup_scoped(path.name.name)
                .or_else(|| self.lookup_top(path.name.name)),
        }?;
        self.occur(path.name.span, def, false);
        Some(def)
    }

    fn item(&mut self, item: &ast::Item) {
        let name = item.name();
        if !name.is_missing() {
            self.declare(name);
        }
        match item {
            ast::Item::Import(_) => {}
            ast::Item::Dim(d) => {
                self.scopes = vec![Vec::new()];
                match &d.value {
                    ast::DimValue::Size(size) => self.size(size, false),
                    ast::DimValue::Alias(list) => {
                        self.container = Some(format!("dim {}", d.name.name));
                        self.shape_list(list, true);
                    }
                }
            }
            ast::Item::ExternFn(f) => {
                self.container = Some(format!("extern fn {}", f.name.name));
                self.model = None;
                self.function(f.name.span, &f.params, f.ret.as_ref(), None, f.span);
            }
            ast::Item::Fn(f) => {
                self.container = Some(format!("fn {}", f.name.name));
                self.model = None;
                self.function(
                    f.name.span,
                    &f.params,
                    f.ret.as_ref(),
                    Some(&f.body),
                    f.span,
                );
            }
            ast::Item::Model(m) => self.model_item(m),
            ast::Item::Record(r) => {
                self.container = Some(format!("record {}", r.name.name));
                self.model = None;
                self.scopes = vec![Vec::new()];
                for field in &r.fields {
                    self.field(field, r.span);
                }
            }
        }
    }

    fn model_item(&mut self, m: &ast::Model) {
        let label = format!("model {}", m.name.name);
        self.container = Some(label.clone());
        self.model = Some(m.name.span);
        self.scopes = vec![Vec::new()];
        for param in &m.size_params {
            if param.is_missing() {
                continue;
            }
            let def = new_def(param, DefKind::SizeParam, param.span, Some(label.clone()));
            self.index.defs.insert(param.span, def);
            self.declare(param);
            self.bind(param.name, param.span);
            self.visible(param.span, m.span.start, m.span.end);
        }
        for field in &m.fields {
            self.field(field, m.span);
        }
        for method in &m.methods {
            if !method.name.is_missing() {
                self.declare(&method.name);
            }
            self.container = Some(format!("fn {}.{}", m.name.name, method.name.name));
            let saved = self.scopes.clone();
            self.scopes.push(vec![(Name::new("self"), m.name.span)]);
            if let Some(span) = method.self_param {
                self.occur(span, m.name.span, false);
            }
            self.self_param = method.self_param.map(|span| (span, m.name.span));
            self.function(
                method.name.span,
                &method.params,
                method.ret.as_ref(),
                Some(&method.body),
                method.span,
            );
            self.scopes = saved;
            self.self_param = None;
        }
    }

    fn field(&mut self, field: &ast::Field, owner_span: Span) {
        if !field.name.is_missing() {
            self.declare(&field.name);
        }
        let named = self.ty(&field.ty, true);
        if let Some(def) = self.index.defs.get_mut(&field.name.span) {
            def.named_ty = named;
        }
        if let Some(init) = &field.init {
            self.expr(init);
        }
        let _ = owner_span;
    }

    fn function(
        &mut self,
        owner: DefId,
        params: &[ast::Param],
        ret: Option<&ast::Type>,
        body: Option<&ast::FnBody>,
        span: Span,
    ) {
        self.scopes.push(Vec::new());
        let base = self.scopes.len();
        // Types as written until the checker's replace them (`add_types`).
        for param in params {
            let text = self.source_text(param.ty.span);
            if let Some(def) = self.index.defs.get_mut(&param.name.span) {
                def.ty = Some(text);
            }
        }
        for param in params {
            let named = self.ty(&param.ty, true);
            if let Some(def) = self.index.defs.get_mut(&param.name.span) {
                def.named_ty = named;
            }
        }
        if let Some(ret) = ret {
            self.ty(ret, false);
        }
        for param in params {
            if let Some(default) = &param.default {
                self.expr(default);
            }
        }
        let generics: Vec<(Name, DefId)> = self.scopes[base - 1].clone();
        for (_, def) in &generics {
            self.visible(*def, span.start, span.end);
        }
        for param in params {
            if param.name.is_missing() {
                continue;
            }
            self.declare(&param.name);
            self.bind(param.name.name, param.name.span);
            self.visible(param.name.span, span.start, span.end);
        }
        let _ = owner;
        match body {
            Some(ast::FnBody::Block(block)) => self.block(block),
            Some(ast::FnBody::Expr(expr)) => {
                self.expr(expr);
            }
            None => {}
        }
        self.scopes.truncate(base - 1);
    }

    fn source_text(&self, span: Span) -> String {
        let text = self.map.text(span.file);
        text.get(span.start as usize..span.end as usize)
            .unwrap_or("")
            .to_string()
    }

    /// Walks a type; returns the model or record it names, if any.
    fn ty(&mut self, ty: &ast::Type, introduce: bool) -> Option<DefId> {
        match &ty.kind {
            ast::TypeKind::Tensor { shape, domain, .. } => {
                match shape {
                    Some(ast::Shape::List(list)) => self.shape_list(list, introduce),
                    Some(ast::Shape::Alias(path)) => {
                        self.resolve_path(path);
                    }
                    None => {}
                }
                if let Some(ast::Domain {
                    kind: ast::DomainKind::Index(size),
                    ..
                }) = domain.as_deref()
                {
                    self.size(size, introduce);
                }
                None
            }
            ast::TypeKind::Named { path, args } => {
                let def = self.resolve_path(path);
                for arg in args {
                    self.size(arg, introduce);
                }
                def
            }
            ast::TypeKind::Stack { count, elem } => {
                self.size(count, introduce);
                self.ty(elem, introduce)
            }
            ast::TypeKind::Tuple(items) => {
                for item in items {
                    self.ty(item, introduce);
                }
                None
            }
            ast::TypeKind::Axis(size) | ast::TypeKind::Axes(size) | ast::TypeKind::Size(size) => {
                self.size(size, introduce);
                None
            }
            ast::TypeKind::Scalar(_) | ast::TypeKind::Error => None,
        }
    }

    fn shape_list(&mut self, list: &ast::ShapeList, introduce: bool) {
        for axis in &list.axes {
            self.axis(axis, introduce);
        }
    }

    fn axis(&mut self, axis: &ast::Axis, introduce: bool) {
        match &axis.kind {
            ast::AxisKind::Size(size) => self.size(size, introduce),
            ast::AxisKind::Group(parts) => {
                for part in parts {
                    self.axis(part, introduce);
                }
            }
            ast::AxisKind::Grouped { name, .. } => self.axis_name(name, introduce),
            ast::AxisKind::Rest => {}
        }
    }

    fn size(&mut self, size: &ast::SizeExpr, introduce: bool) {
        match &size.kind {
            ast::SizeExprKind::Name(name) => self.axis_name(name, introduce),
            ast::SizeExprKind::Qualified(path) => {
                self.resolve_path(path);
            }
            ast::SizeExprKind::Binary { operands, .. } => {
                let (lhs, rhs) = &**operands;
                self.size(lhs, introduce);
                self.size(rhs, introduce);
            }
            ast::SizeExprKind::Int(_)
            | ast::SizeExprKind::Unknown(_)
            | ast::SizeExprKind::Error => {}
        }
    }

    /// A name in a size: a generic axis or size parameter in scope, a dim or
    /// alias, or (where types introduce names) a new generic axis.
    fn axis_name(&mut self, name: &ast::Ident, introduce: bool) {
        if name.is_missing() {
            return;
        }
        if let Some(def) = self.type_decl_by_checker(name.span) {
            self.occur(name.span, def, false);
            return;
        }
        match self.generic_by_checker(name.span) {
            // The checker found the axis introduced here: the walk below
            // declares it.
            Some(decl) if decl == name.span => {}
            Some(decl) if self.index.defs.contains_key(&decl) => {
                self.occur(name.span, decl, false);
                return;
            }
            _ => {}
        }
        let found = self
            .lookup_scoped(name.name)
            .filter(|d| self.index.defs.get(d).is_some_and(|d| !d.kind.is_value()))
            .or_else(|| {
                self.lookup_top(name.name).filter(|d| {
                    matches!(
                        self.index.defs.get(d).map(|d| d.kind),
                        Some(DefKind::Dim | DefKind::Alias)
                    )
                })
            });
        match found {
            Some(def) => self.occur(name.span, def, false),
            None if introduce => {
                let def = new_def(name, DefKind::Generic, name.span, self.container.clone());
                self.index.defs.insert(name.span, def);
                self.declare(name);
                self.bind(name.name, name.span);
            }
            None => {}
        }
    }

    fn block(&mut self, block: &ast::Block) {
        self.scopes.push(Vec::new());
        for stmt in &block.stmts {
            // Blocks nest: grow the stack when needed.
            syntax::ensure_sufficient_stack(|| self.stmt(stmt, block.span.end));
        }
        self.scopes.pop();
    }

    fn local(&mut self, name: &ast::Ident, item_span: Span, visible_to: u32) {
        if name.is_missing() {
            return;
        }
        let def = self
            .index
            .defs
            .entry(name.span)
            .or_insert_with(|| new_def(name, DefKind::Local, item_span, None));
        def.kind = DefKind::Local;
        def.item_span = item_span;
        def.container = self.container.clone();
        def.named_ty = self.let_named.get(&name.span).copied();
        self.declare(name);
        self.bind(name.name, name.span);
        self.visible(name.span, item_span.end, visible_to);
    }

    fn stmt(&mut self, stmt: &ast::Stmt, block_end: u32) {
        match &stmt.kind {
            ast::StmtKind::Let { name, ty, value } => {
                self.expr(value);
                let named = ty.as_ref().and_then(|ty| self.ty(ty, false));
                self.local(name, stmt.span, block_end);
                if let (Some(def), Some(named)) = (self.index.defs.get_mut(&name.span), named) {
                    def.named_ty = Some(named);
                }
                if ty.is_none() && !name.is_missing() {
                    self.index
                        .untyped_lets
                        .entry(self.file())
                        .or_default()
                        .push(name.span);
                }
            }
            ast::StmtKind::LetTuple { names, value } => {
                self.expr(value);
                for name in names {
                    self.local(name, stmt.span, block_end);
                    if !name.is_missing() {
                        self.index
                            .untyped_lets
                            .entry(self.file())
                            .or_default()
                            .push(name.span);
                    }
                }
            }
            ast::StmtKind::Assign { name, value } => {
                self.expr(value);
                if let Some(def) = self.lookup_scoped(name.name) {
                    self.occur(name.span, def, false);
                }
            }
            ast::StmtKind::Return(expr) | ast::StmtKind::Expr(expr) => {
                self.expr(expr);
            }
            ast::StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.expr(cond);
                self.block(then_block);
                if let Some(block) = else_block {
                    self.block(block);
                }
            }
            ast::StmtKind::For { var, iter, body } => {
                self.expr(iter);
                self.scopes.push(Vec::new());
                self.local(var, var.span, body.span.end);
                self.block(body);
                self.scopes.pop();
            }
        }
    }

    /// Walks an expression; returns what it names when it is a name or
    /// field. Grows the stack when needed: this recursion follows the tree's depth.
    fn expr(&mut self, expr: &ast::Expr) -> Option<DefId> {
        syntax::ensure_sufficient_stack(|| self.expr_at_depth(expr))
    }

    fn expr_at_depth(&mut self, expr: &ast::Expr) -> Option<DefId> {
        match &expr.kind {
            ast::ExprKind::Name(name) => {
                let def = self
                    .resolved_by_checker(name.span)
                    .or_else(|| self.lookup_scoped(name.name))
                    .or_else(|| self.lookup_top(name.name))?;
                self.occur(name.span, def, false);
                Some(def)
            }
            ast::ExprKind::Field { base, name } => {
                if let Some(def) = self.field_by_checker(expr.span, base.span) {
                    self.expr(base);
                    self.occur(name.span, def, false);
                    return Some(def);
                }
                let base_def = self.expr(base)?;
                let base = self.index.defs.get(&base_def)?;
                let def = match base.kind {
                    DefKind::Import(Some(target)) => {
                        self.index.top.get(&target)?.get(&name.name).copied()
                    }
                    DefKind::Model | DefKind::Record => self.member(base_def, name.name),
                    _ => base
                        .named_ty
                        .and_then(|owner| self.member(owner, name.name)),
                }?;
                self.occur(name.span, def, false);
                Some(def)
            }
            ast::ExprKind::Call { callee, args } => {
                self.call(expr, callee, args);
                None
            }
            ast::ExprKind::Index { base, indices } => {
                self.expr(base);
                for index in indices {
                    match index {
                        ast::IndexArg::Expr(e) => {
                            self.expr(e);
                        }
                        ast::IndexArg::Slice {
                            start, end, step, ..
                        } => {
                            for part in [start, end, step].into_iter().flatten() {
                                self.expr(part);
                            }
                        }
                        ast::IndexArg::List { items, .. } => {
                            for item in items {
                                self.expr(item);
                            }
                        }
                        ast::IndexArg::Ellipsis(_) => {}
                    }
                }
                None
            }
            ast::ExprKind::Unary { operand, .. } => {
                self.expr(operand);
                None
            }
            ast::ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
                None
            }
            ast::ExprKind::Cast { expr, ty, .. } => {
                self.expr(expr);
                self.ty(ty, false);
                None
            }
            ast::ExprKind::Tuple(items) => {
                for item in items {
                    self.expr(item);
                }
                None
            }
            ast::ExprKind::AxisGroup(names) => {
                for name in names {
                    self.axis_name(name, false);
                }
                None
            }
            ast::ExprKind::Pattern(pattern) => {
                self.pattern(pattern);
                None
            }
            ast::ExprKind::Shape(list) => {
                self.shape_list(list, false);
                None
            }
            ast::ExprKind::Int(_)
            | ast::ExprKind::Float(_)
            | ast::ExprKind::Str(_)
            | ast::ExprKind::Bool(_)
            | ast::ExprKind::None
            | ast::ExprKind::Error => None,
        }
    }

    /// A call: the callee, the arguments (pattern axes declared), keyword
    /// arguments as uses of their parameters or pattern axes, and the call
    /// site for signature help.
    fn call(&mut self, expr: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) {
        let callee_def = match (&callee.kind, self.callee_by_checker(expr.span)) {
            // A model value called (`m(x)`) names the value, not `forward`.
            (ast::ExprKind::Name(name), Some((def, false))) => {
                self.occur(name.span, def, false);
                Some(def)
            }
            // `self.f(x)`, `m.f(x)`, `vision.f(x)`.
            (ast::ExprKind::Field { base, name }, Some((def, _))) => {
                self.expr(base);
                self.occur(name.span, def, false);
                Some(def)
            }
            _ => self.expr(callee),
        };
        let params = callee_def.and_then(|d| self.index.params.get(&d).cloned());
        let mut pattern_axes: Vec<(Name, DefId)> = Vec::new();
        for arg in args {
            if let ast::ExprKind::Pattern(pattern) = &arg.value.kind {
                pattern_axes.extend(self.pattern(pattern));
            } else {
                self.expr(&arg.value);
            }
        }
        for arg in args {
            let Some(key) = &arg.name else { continue };
            if let Some(def) = self.arg_param_by_checker(expr.span, arg.value.span) {
                self.occur(key.span, def, false);
                continue;
            }
            let param = params
                .iter()
                .flatten()
                .copied()
                .find(|p| self.index.defs.get(p).is_some_and(|d| d.name == key.name));
            let axis = pattern_axes
                .iter()
                .find(|(n, _)| *n == key.name)
                .map(|(_, d)| *d);
            if let Some(def) = param.or(axis) {
                self.occur(key.span, def, false);
            }
        }
        let site = CallSite {
            args_span: Span::new(expr.span.file, callee.span.end, expr.span.end),
            callee: callee_def,
            args: args
                .iter()
                .map(|a| (a.span, a.name.as_ref().map(|n| n.name)))
                .collect(),
        };
        self.index.calls.entry(self.file()).or_default().push(site);
    }

    /// The declaration the checker resolved the name expression at `span`
    /// to, where it checked the body and the index has that declaration
    /// (`self` means the model).
    fn resolved_by_checker(&self, span: Span) -> Option<DefId> {
        let def = match self.checked.name_resolution(span)? {
            Resolution::Local { decl } => match self.self_param {
                Some((param, model)) if param == decl => model,
                _ => decl,
            },
            Resolution::Dim { file, name } => self.checked.decl_name_span(file, name)?,
            Resolution::Generic(name) => self.checked.generic_decl_span(span, name)?,
        };
        self.index.defs.contains_key(&def).then_some(def)
    }

    /// The declaration the checker found a call at `span` to call (a
    /// function, extern function, record, method, or a built-in's stub in
    /// `builtins.ss`), and whether it is a method.
    fn callee_by_checker(&self, span: Span) -> Option<(DefId, bool)> {
        let ExprInfo::Call(call) = &self.checked.bodies.expr(span)?.info else {
            return None;
        };
        let def = match call.callee {
            // Declared for the editor in `builtins.ss`, a library file.
            Callee::Builtin(builtin) => {
                let name = Name::new(builtin.name());
                self.library
                    .iter()
                    .find_map(|f| self.index.top.get(f)?.get(&name).copied())?
            }
            _ => self.checked.callee_name_span(&call.callee)?,
        };
        let method = matches!(call.callee, Callee::Method { .. });
        self.index.defs.contains_key(&def).then_some((def, method))
    }

    /// Where the generic axis the checker resolved the name written at
    /// `span` in a type to is declared.
    fn generic_by_checker(&self, span: Span) -> Option<DefId> {
        let TypeName::Generic(name) = self.checked.type_name_resolution(span)? else {
            return None;
        };
        self.checked.generic_decl_span(span, name)
    }

    /// The top-level declaration (a dim, an alias, a model, a record, an
    /// import) the checker resolved the name written at `span` in a type to.
    fn type_decl_by_checker(&self, span: Span) -> Option<DefId> {
        let TypeName::Decl { file, name } = self.checked.type_name_resolution(span)? else {
            return None;
        };
        let def = self.checked.decl_name_span(file, name)?;
        self.index.defs.contains_key(&def).then_some(def)
    }

    /// The parameter (or record field) the checker bound the argument
    /// whose value is at `value` to, in the call at `call`.
    fn arg_param_by_checker(&self, call: Span, value: Span) -> Option<DefId> {
        let def = self.checked.arg_param_span(call, value)?;
        self.index.defs.contains_key(&def).then_some(def)
    }

    /// The field the checker found the field expression at `span` to read.
    fn field_by_checker(&self, span: Span, base: Span) -> Option<DefId> {
        let def = self.checked.field_name_span(span, base)?;
        self.index.defs.contains_key(&def).then_some(def)
    }

    fn member(&self, owner: DefId, name: Name) -> Option<DefId> {
        self.index
            .members
            .get(&owner)?
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| *d)
    }

    /// A pattern's names are its own axes: the first occurrence declares each.
    fn pattern(&mut self, pattern: &ast::Pattern) -> Vec<(Name, DefId)> {
        let mut axes: Vec<(Name, DefId)> = Vec::new();
        let mut names = Vec::new();
        for list in pattern.lhs.iter().chain(std::iter::once(&pattern.rhs)) {
            pattern_names(&list.axes, &mut names);
        }
        for name in names {
            match axes.iter().find(|(n, _)| *n == name.name) {
                Some(&(_, def)) => self.occur(name.span, def, false),
                None => {
                    let def = new_def(
                        name,
                        DefKind::PatternAxis,
                        pattern.span,
                        self.container.clone(),
                    );
                    self.index.defs.insert(name.span, def);
                    self.declare(name);
                    self.visible(name.span, pattern.span.start, pattern.span.end);
                    axes.push((name.name, name.span));
                }
            }
        }
        axes
    }
}

fn pattern_names<'a>(axes: &'a [ast::Axis], out: &mut Vec<&'a ast::Ident>) {
    for axis in axes {
        match &axis.kind {
            ast::AxisKind::Size(ast::SizeExpr {
                kind: ast::SizeExprKind::Name(name),
                ..
            }) => out.push(name),
            ast::AxisKind::Grouped { name, .. } => out.push(name),
            ast::AxisKind::Group(parts) => pattern_names(parts, out),
            _ => {}
        }
    }
}
