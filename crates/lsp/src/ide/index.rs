//! The name index: walks every file's syntax tree once to find each
//! declaration (`Def`) and each place a name is written (`Occurrence`), and
//! the calls; then puts the checker's types on the values. The walk only
//! finds where names are written: what each one means is always the
//! checker's answer (`Checked::name_decl_span`, and
//! `Checked::type_name_resolution` for a built-in), which the checker
//! records for every name of every file it loads, the library's bodies and
//! files with syntax errors included; `builtins.ss`, which no program
//! imports, is resolved by `hir::Declarations`. A declaration is the name
//! whose answer is itself (a generic axis's or a pattern axis's first
//! occurrence) or a declaring position of the syntax (an item, a parameter,
//! a `let`). Every editor feature reads this index; it never reports
//! diagnostics, types anything, or decides what a name means.

use std::collections::HashMap;

use check::hir::{Callee, Declarations, ExprInfo, TypeName};
use diag::{FileId, SourceMap, Span};
use syntax::{ast, Name};

use super::defs::{CallSite, DefId, DefKind, Index, Occurrence, Source, Visible};
use super::register::{new_def, register_items};

/// Builds the index of `sources`, whose text is in `map`; `declarations`
/// resolves the names of the library files the program doesn't hold.
pub fn build(
    sources: &[Source],
    library: &[FileId],
    map: &SourceMap,
    checked: &check::Checked,
    declarations: &HashMap<FileId, Declarations>,
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
            container: None,
            self_param: None,
            generics: Vec::new(),
            let_named: &let_named,
            checked,
            declarations: declarations.get(&source.file),
        };
        for item in &source.ast.items {
            walker.item(item);
        }
    }
    // A use may come before its declaration is walked (an alias's axis
    // declared further down): uses of what the index lacks go only now.
    let defs = &index.defs;
    for list in index.occurrences.values_mut() {
        list.retain(|o| defs.contains_key(&o.def));
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

/// Second pass over one file: uses, declarations inside items, calls.
struct Walker<'i, 's, 'e> {
    index: &'i mut Index,
    source: &'s Source<'s>,
    library: &'s [FileId],
    map: &'e SourceMap,
    /// The group label of what is being walked (`fn f`, `model M`).
    container: Option<String>,
    /// In a method: its `self` parameter, which means the model.
    self_param: Option<(Span, DefId)>,
    /// The generic axes declared so far in the item being walked.
    generics: Vec<DefId>,
    /// The model or record each `let` holds, from the checker's types.
    let_named: &'s HashMap<Span, DefId>,
    /// The checker's results: what every name it saw means.
    checked: &'s check::Checked,
    /// For a library file the program doesn't hold (`builtins.ss`): what
    /// its names mean.
    declarations: Option<&'s Declarations>,
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

    fn visible(&mut self, def: DefId, from: u32, to: u32) {
        self.index.visible.push(Visible {
            file: self.file(),
            from,
            to,
            def,
        });
    }

    /// The declaring name of what the checker resolved the name written at
    /// `span` to (`self`'s parameter means the model; a built-in, its stub
    /// in `builtins.ss`).
    fn meaning(&self, span: Span) -> Option<DefId> {
        if let Some(declarations) = self.declarations {
            return declarations.name_decl_span(span);
        }
        let def = match self.checked.type_name_resolution(span)? {
            TypeName::Builtin(builtin) => self.builtin_stub(builtin.name())?,
            _ => self.checked.name_decl_span(span)?,
        };
        Some(match self.self_param {
            Some((param, model)) if param == def => model,
            _ => def,
        })
    }

    /// The stub of built-in `name`, declared for the editor in `builtins.ss`.
    fn builtin_stub(&self, name: &str) -> Option<DefId> {
        let name = Name::new(name);
        self.library
            .iter()
            .find_map(|f| self.index.top.get(f)?.get(&name).copied())
    }

    /// The name at `span` as a use of what the checker resolved it to.
    fn use_of(&mut self, span: Span) -> Option<DefId> {
        let def = self.meaning(span)?;
        self.occur(span, def, false);
        Some(def)
    }

    /// `name` or `file.name` in a type.
    fn resolve_path(&mut self, path: &ast::Path) -> Option<DefId> {
        if let Some(file) = &path.file {
            self.use_of(file.span);
        }
        self.use_of(path.name.span)
    }

    fn item(&mut self, item: &ast::Item) {
        let name = item.name();
        if !name.is_missing() {
            self.declare(name);
        }
        self.generics.clear();
        match item {
            ast::Item::Import(_) => {}
            ast::Item::Dim(d) => match &d.value {
                ast::DimValue::Size(size) => self.size(size),
                ast::DimValue::Alias(list) => {
                    self.container = Some(format!("dim {}", d.name.name));
                    self.shape_list(list);
                }
            },
            ast::Item::ExternFn(f) => {
                self.container = Some(format!("extern fn {}", f.name.name));
                self.function(&f.params, f.ret.as_ref(), None, f.span);
            }
            ast::Item::Fn(f) => {
                self.container = Some(format!("fn {}", f.name.name));
                self.function(&f.params, f.ret.as_ref(), Some(&f.body), f.span);
            }
            ast::Item::Model(m) => self.model_item(m),
            ast::Item::Record(r) => {
                self.container = Some(format!("record {}", r.name.name));
                for field in &r.fields {
                    self.field(field);
                }
            }
        }
    }

    fn model_item(&mut self, m: &ast::Model) {
        let label = format!("model {}", m.name.name);
        self.container = Some(label.clone());
        for param in &m.size_params {
            if param.is_missing() {
                continue;
            }
            let def = new_def(param, DefKind::SizeParam, param.span, Some(label.clone()));
            self.index.defs.insert(param.span, def);
            self.declare(param);
            self.visible(param.span, m.span.start, m.span.end);
        }
        for field in &m.fields {
            self.field(field);
        }
        for method in &m.methods {
            if !method.name.is_missing() {
                self.declare(&method.name);
            }
            self.container = Some(format!("fn {}.{}", m.name.name, method.name.name));
            if let Some(span) = method.self_param {
                self.occur(span, m.name.span, false);
            }
            self.self_param = method.self_param.map(|span| (span, m.name.span));
            self.generics.clear();
            self.function(
                &method.params,
                method.ret.as_ref(),
                Some(&method.body),
                method.span,
            );
            self.self_param = None;
        }
    }

    fn field(&mut self, field: &ast::Field) {
        if !field.name.is_missing() {
            self.declare(&field.name);
        }
        let named = self.ty(&field.ty);
        if let Some(def) = self.index.defs.get_mut(&field.name.span) {
            def.named_ty = named;
        }
        if let Some(init) = &field.init {
            self.expr(init);
        }
    }

    /// A function's signature and body: its parameters and the generic
    /// axes its types declare are visible in all of it.
    fn function(
        &mut self,
        params: &[ast::Param],
        ret: Option<&ast::Type>,
        body: Option<&ast::FnBody>,
        span: Span,
    ) {
        // Types as written until the checker's replace them (`add_types`).
        for param in params {
            let text = self.source_text(param.ty.span);
            if let Some(def) = self.index.defs.get_mut(&param.name.span) {
                def.ty = Some(text);
            }
        }
        for param in params {
            let named = self.ty(&param.ty);
            if let Some(def) = self.index.defs.get_mut(&param.name.span) {
                def.named_ty = named;
            }
        }
        if let Some(ret) = ret {
            self.ty(ret);
        }
        for param in params {
            if let Some(default) = &param.default {
                self.expr(default);
            }
        }
        for def in std::mem::take(&mut self.generics) {
            self.visible(def, span.start, span.end);
        }
        for param in params {
            if param.name.is_missing() {
                continue;
            }
            self.declare(&param.name);
            self.visible(param.name.span, span.start, span.end);
        }
        match body {
            Some(ast::FnBody::Block(block)) => self.block(block),
            Some(ast::FnBody::Expr(expr)) => {
                self.expr(expr);
            }
            None => {}
        }
    }

    fn source_text(&self, span: Span) -> String {
        let text = self.map.text(span.file);
        text.get(span.start as usize..span.end as usize)
            .unwrap_or("")
            .to_string()
    }

    /// Walks a type; returns the model or record it names, if any.
    fn ty(&mut self, ty: &ast::Type) -> Option<DefId> {
        match &ty.kind {
            ast::TypeKind::Tensor { shape, domain, .. } => {
                match shape {
                    Some(ast::Shape::List(list)) => self.shape_list(list),
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
                    self.size(size);
                }
                None
            }
            ast::TypeKind::Named { path, args } => {
                let def = self.resolve_path(path);
                for arg in args {
                    self.size(arg);
                }
                def
            }
            ast::TypeKind::Stack { count, elem } => {
                self.size(count);
                self.ty(elem)
            }
            ast::TypeKind::Tuple(items) => {
                for item in items {
                    self.ty(item);
                }
                None
            }
            ast::TypeKind::Axis(size) | ast::TypeKind::Axes(size) | ast::TypeKind::Size(size) => {
                self.size(size);
                None
            }
            ast::TypeKind::Scalar(_) | ast::TypeKind::Error => None,
        }
    }

    fn shape_list(&mut self, list: &ast::ShapeList) {
        for axis in &list.axes {
            self.axis(axis);
        }
    }

    fn axis(&mut self, axis: &ast::Axis) {
        match &axis.kind {
            ast::AxisKind::Size(size) => self.size(size),
            ast::AxisKind::Group(parts) => {
                for part in parts {
                    self.axis(part);
                }
            }
            ast::AxisKind::Grouped { name, .. } => self.axis_name(name),
            ast::AxisKind::Rest => {}
        }
    }

    fn size(&mut self, size: &ast::SizeExpr) {
        match &size.kind {
            ast::SizeExprKind::Name(name) => self.axis_name(name),
            ast::SizeExprKind::Qualified(path) => {
                self.resolve_path(path);
            }
            ast::SizeExprKind::Binary { operands, .. } => {
                let (lhs, rhs) = &**operands;
                self.size(lhs);
                self.size(rhs);
            }
            ast::SizeExprKind::Int(_)
            | ast::SizeExprKind::Unknown(_)
            | ast::SizeExprKind::Error => {}
        }
    }

    /// A name in a size: a generic axis, a size parameter, a dim or an
    /// alias; the generic axis the checker found declared here is declared.
    fn axis_name(&mut self, name: &ast::Ident) {
        if name.is_missing() {
            return;
        }
        match self.meaning(name.span) {
            Some(decl) if decl == name.span => {
                if !self.index.defs.contains_key(&decl) {
                    let def = new_def(name, DefKind::Generic, name.span, self.container.clone());
                    self.index.defs.insert(name.span, def);
                    self.generics.push(name.span);
                }
                self.declare(name);
            }
            Some(def) => self.occur(name.span, def, false),
            None => {}
        }
    }

    fn block(&mut self, block: &ast::Block) {
        for stmt in &block.stmts {
            // Blocks nest: grow the stack when needed.
            syntax::ensure_sufficient_stack(|| self.stmt(stmt, block.span.end));
        }
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
        self.visible(name.span, item_span.end, visible_to);
    }

    /// A `let` without a written type, which gets an inlay hint.
    fn untyped(&mut self, name: &ast::Ident) {
        if !name.is_missing() {
            self.index
                .untyped_lets
                .entry(self.file())
                .or_default()
                .push(name.span);
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt, block_end: u32) {
        match &stmt.kind {
            ast::StmtKind::Let { name, ty, value } => {
                self.expr(value);
                let named = ty.as_ref().and_then(|ty| self.ty(ty));
                self.local(name, stmt.span, block_end);
                if let (Some(def), Some(named)) = (self.index.defs.get_mut(&name.span), named) {
                    def.named_ty = Some(named);
                }
                if ty.is_none() {
                    self.untyped(name);
                }
            }
            ast::StmtKind::LetTuple { names, value } => {
                self.expr(value);
                for name in names {
                    self.local(name, stmt.span, block_end);
                    self.untyped(name);
                }
            }
            ast::StmtKind::Assign { name, value } => {
                self.expr(value);
                self.use_of(name.span);
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
                self.local(var, var.span, body.span.end);
                self.block(body);
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
            ast::ExprKind::Name(name) => self.use_of(name.span),
            ast::ExprKind::Field { base, name } => {
                self.expr(base);
                self.use_of(name.span)
            }
            ast::ExprKind::Call { callee, args } => {
                self.call(expr, callee, args);
                None
            }
            ast::ExprKind::Index { base, indices } => {
                self.expr(base);
                for index in indices {
                    self.index_arg(index);
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
                self.ty(ty);
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
                    self.axis_name(name);
                }
                None
            }
            ast::ExprKind::Pattern(pattern) => {
                self.pattern(pattern);
                None
            }
            ast::ExprKind::Shape(list) => {
                self.shape_list(list);
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

    /// One index of `x[...]`.
    fn index_arg(&mut self, index: &ast::IndexArg) {
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

    /// A call: the callee, the arguments, keyword arguments as uses of
    /// their parameters or pattern axes, and the call site for signature help.
    fn call(&mut self, expr: &ast::Expr, callee: &ast::Expr, args: &[ast::Arg]) {
        let written = self.expr(callee);
        // `m(x)` calls `forward`: signature help shows the method.
        let callee_def = self.callee_by_checker(expr.span).or(written);
        for arg in args {
            self.expr(&arg.value);
        }
        for key in args.iter().filter_map(|a| a.name.as_ref()) {
            self.use_of(key.span);
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

    /// The declaration the checker found the call at `span` to call (a
    /// function, extern function, record, method, or a built-in's stub in
    /// `builtins.ss`).
    fn callee_by_checker(&self, span: Span) -> Option<DefId> {
        let ExprInfo::Call(call) = &self.checked.bodies.expr(span)?.info else {
            return None;
        };
        match call.callee {
            Callee::Builtin(builtin) => self.builtin_stub(builtin.name()),
            _ => self.checked.callee_name_span(&call.callee),
        }
    }

    /// A pattern's names are its own axes: the checker found the first
    /// occurrence of each declaring it.
    fn pattern(&mut self, pattern: &ast::Pattern) {
        let mut names = Vec::new();
        for list in pattern.lhs.iter().chain(std::iter::once(&pattern.rhs)) {
            ast::axis_names(&list.axes, &mut names);
        }
        for name in names {
            match self.meaning(name.span) {
                Some(decl) if decl == name.span => {
                    let def = new_def(
                        name,
                        DefKind::PatternAxis,
                        pattern.span,
                        self.container.clone(),
                    );
                    self.index.defs.insert(name.span, def);
                    self.declare(name);
                    self.visible(name.span, pattern.span.start, pattern.span.end);
                }
                Some(def) => self.occur(name.span, def, false),
                None => {}
            }
        }
    }
}
