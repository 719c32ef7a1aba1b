//! Function and method bodies (`docs/shapescript/functions.md`): scopes,
//! statements, and the checking of each expression into `typed::Body`.
//! Expressions live in `expr`, calls in `call`, built-ins' typing rules in
//! `builtins`, patterns in `pattern`, models and records in `crate::model`. A failed expression gets
//! `TyKind::Error`, which every rule accepts silently: one mistake, one
//! diagnostic. Never reports a mistake of a signature (that is `signature`).

mod bind;
mod builtins;
mod call;
mod call_arg;
mod call_report;
mod call_result;
mod callee;
mod cast;
mod defaults;
mod dtypes;
pub(crate) mod expr;
mod index;
mod members;
pub(crate) mod names;
mod pattern;
mod record;
mod undetermined;
use crate::shape;

use syntax::Name;

use diag::{Diagnostic, FileId, Span};
use syntax::ast;

use crate::codes;
use crate::dims::DimValues;
use crate::lower::{Env, Lowerer, Place};
use crate::model::{self, Models};
use crate::signature::{Signature, Signatures};
use crate::size::{Poly, Size, Symbol};
use crate::typed::{
    Binding, Bodies, Body, ExprInfo, FieldStep, FloatSource, GenericSource, TypedExpr,
};
use crate::types::{Axis, AxisKind, DtypeKind, TensorTy, Ty, TyKind};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

pub(crate) use bind::Slots;
pub(crate) use shape::{axis_poly, axis_poly_ref, flatten_ty, same_ty, show_ty};

/// What every body checker shares.
pub(crate) struct Ctx<'a> {
    pub env: Env<'a>,
    pub signatures: &'a Signatures,
    pub library: &'a [(FileId, &'static str)],
    pub models: &'a Models,
    /// Functions whose body doesn't fit their return type, as (file, model
    /// or "", name): calls to them are quiet, so the mistake is told once.
    pub quiet: &'a HashSet<FnKey>,
}

/// A function or method: its file, its model (or "") and its name.
pub(crate) type FnKey = (FileId, Name, Name);

/// Adds to `names` every name that an `x = e` in `block` (or a block
/// inside it) rebinds.
fn rebound_names(block: &ast::Block, names: &mut HashSet<Name>) {
    for stmt in &block.stmts {
        match &stmt.kind {
            ast::StmtKind::Assign { name, .. } => {
                names.insert(name.name);
            }
            ast::StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                syntax::ensure_sufficient_stack(|| rebound_names(then_block, names));
                if let Some(b) = else_block {
                    syntax::ensure_sufficient_stack(|| rebound_names(b, names));
                }
            }
            ast::StmtKind::For { body, .. } => {
                syntax::ensure_sufficient_stack(|| rebound_names(body, names));
            }
            ast::StmtKind::Let { .. }
            | ast::StmtKind::LetTuple { .. }
            | ast::StmtKind::Return(_)
            | ast::StmtKind::Expr(_) => {}
        }
    }
}

/// Checks every `fn` body and model method of every module.
pub fn check_all(
    env: Env,
    signatures: &Signatures,
    library: &[(FileId, &'static str)],
    diagnostics: &mut Vec<Diagnostic>,
) -> BodyState {
    let mut state = BodyState::default();
    let all: Vec<usize> = (0..env.program.modules.len()).collect();
    check_batch(env, signatures, library, &all, &mut state, diagnostics);
    state
}

/// What checking bodies keeps from one batch of modules to the next.
#[derive(Default)]
pub struct BodyState {
    models: Models,
    /// Functions whose body doesn't fit their return type (see `Ctx::quiet`).
    quiet: HashSet<FnKey>,
    bodies: Bodies,
}

impl BodyState {
    /// The bodies so far, with the models and records (whose fields' domains
    /// a construction is checked against), for the range pass that follows
    /// each batch.
    pub fn for_ranges(&mut self) -> (&mut Bodies, &Models) {
        (&mut self.bodies, &self.models)
    }

    /// The bodies of every batch, with the models' and records' fields.
    pub fn finish(self) -> Bodies {
        let mut bodies = self.bodies;
        bodies.types = self.models.into_defs();
        bodies
    }
}

/// Checks the `fn` bodies and model methods of the modules `batch` (indices
/// into `Program::modules`), whose imports earlier batches checked.
pub fn check_batch(
    env: Env,
    signatures: &Signatures,
    library: &[(FileId, &'static str)],
    batch: &[usize],
    state: &mut BodyState,
    diagnostics: &mut Vec<Diagnostic>,
) {
    model::collect_batch(env, batch, &mut state.models, diagnostics);
    let first = state.bodies.fns.len();
    let mut found = Vec::new();
    // A function whose body doesn't fit its return type: the batch is
    // checked again with calls to it quiet, so its callers don't repeat the
    // mistake. (A batch calls only its own functions and earlier batches'.)
    for again in [false, true] {
        let ctx = Ctx {
            env,
            signatures,
            library,
            models: &state.models,
            quiet: &state.quiet,
        };
        let failed = check_bodies(&ctx, batch, &mut state.bodies, &mut found);
        if again || failed.is_empty() {
            break;
        }
        state.quiet.extend(failed);
        for body in state.bodies.fns.drain(first..) {
            let key = (body.owner.unwrap_or(Name::EMPTY), body.name);
            state.bodies.by_name.remove(body.file, &key);
        }
        found.clear();
    }
    diagnostics.append(&mut found);
}

/// Checks the batch's bodies once into `bodies`; returns the functions
/// whose body doesn't fit their return type.
fn check_bodies(
    ctx: &Ctx,
    batch: &[usize],
    bodies: &mut Bodies,
    diagnostics: &mut Vec<Diagnostic>,
) -> HashSet<FnKey> {
    let env = ctx.env;
    let first = bodies.fns.len();
    // One vector of locals for every body: a body then allocates only what it keeps.
    let mut locals = Vec::new();
    for module in batch.iter().map(|&m| &env.program.modules[m]) {
        // A file with a syntax error: its bodies would mostly repeat it.
        if ctx.library.iter().any(|(f, _)| *f == module.file) || !module.parse_errors.is_empty() {
            if env.resolutions.is_some() {
                names::note_module_names(ctx, module);
            }
            continue;
        }
        check_module(ctx, module, bodies, &mut locals, diagnostics);
    }
    bodies.fns[first..]
        .iter()
        .filter(|b| b.return_mismatch)
        .map(|b| (b.file, b.owner.unwrap_or(Name::EMPTY), b.name))
        .collect()
}

/// Checks the `fn` bodies and model methods of one module into `bodies`.
fn check_module(
    ctx: &Ctx,
    module: &crate::program::Module,
    bodies: &mut Bodies,
    locals: &mut Vec<Local>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let signatures = ctx.signatures;
    // Its messages name other files' dims as it imports them (`vis.D`).
    let _names = module.import_names();
    // Room for the module's bodies at once: a `Body` is large, and
    // growing the vector one by one would copy them over and over.
    let here = module.ast.items.iter().map(body_count).sum();
    bodies.fns.reserve(here);
    bodies.by_name.reserve(module.file, here);
    for (i, item) in module.ast.items.iter().enumerate() {
        // Only items with bodies ask whether they are the first of their name.
        if !matches!(item, ast::Item::Fn(_) | ast::Item::Model(_))
            || module.names.get(&item.name().name) != Some(&i)
        {
            continue;
        }
        match item {
            ast::Item::Fn(f) => {
                let key = (module.file, f.name.name);
                let Some(signature) = signatures.get(&key) else {
                    continue;
                };
                let body =
                    FnChecker::new(ctx, module.file, None, signature, diagnostics).check(f, locals);
                bodies
                    .by_name
                    .insert(module.file, (Name::EMPTY, body.name), bodies.fns.len());
                bodies.fns.push(body);
            }
            ast::Item::Model(m) => {
                let name = m.name.name;
                check_buffers(ctx, module.file, m, bodies, locals, diagnostics);
                for method in &m.methods {
                    let Some(info) = ctx.models.get(module.file, name) else {
                        continue;
                    };
                    let Some(signature) = info.methods.get(&method.name.name) else {
                        continue;
                    };
                    let owner = Some(name);
                    let body = FnChecker::new(ctx, module.file, owner, &signature.0, diagnostics)
                        .check(method, locals);
                    bodies
                        .by_name
                        .insert(module.file, (name, body.name), bodies.fns.len());
                    bodies.fns.push(body);
                }
            }
            _ => {}
        }
    }
}

/// Whether `found` fits `expected` once a tensor without a dtype is
/// PyTorch's default `f32`, as it is while a model is made: a buffer's
/// value of `f32` fits a buffer type without a dtype (`model.to` converts
/// both with the model).
fn default_float_fits(dims: &DimValues, found: &Ty, expected: &Ty) -> bool {
    let as_default = |ty: &Ty| match &ty.kind {
        TyKind::Tensor(t) if shape::effective_dtype(t).is_none() => Ty {
            kind: TyKind::Tensor(TensorTy {
                dtype: Some(DtypeKind::F32),
                ..t.clone()
            }),
            span: ty.span,
        },
        _ => ty.clone(),
    };
    same_ty(dims, &as_default(found), &as_default(expected)).is_none()
}

/// Checks each buffer's value (`buffer name: T = expr`) as the body of a
/// method without parameters that returns `T`, recorded as the body
/// `(model, name)`: computed when the model is made, with no `self`, so
/// made tensors take the default float dtype (`model.to` converts them).
fn check_buffers(
    ctx: &Ctx,
    file: FileId,
    m: &ast::Model,
    bodies: &mut Bodies,
    locals: &mut Vec<Local>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(info) = ctx.models.get(file, m.name.name) else {
        return;
    };
    for field in m.fields.iter().filter(|f| f.buffer) {
        let Some(init) = &field.init else {
            continue;
        };
        let Some(def) = info.def.fields.iter().find(|f| f.name == field.name.name) else {
            continue;
        };
        if matches!(def.ty.kind, TyKind::Error) {
            continue;
        }
        let signature = model::buffer_signature(&info.def.size_params, &def.ty);
        let value = ast::Fn {
            doc: None,
            name: field.name,
            self_param: None,
            params: Vec::new(),
            ret: Some(field.ty.clone()),
            body: ast::FnBody::Expr(init.clone()),
            span: field.span,
        };
        let mut checker = FnChecker::new(ctx, file, Some(m.name.name), &signature, diagnostics);
        checker.buffer = true;
        let mut body = checker.check(&value, locals);
        body.float_source = None;
        body.made_dtype = None;
        bodies
            .by_name
            .insert(file, (m.name.name, body.name), bodies.fns.len());
        bodies.fns.push(body);
    }
}

/// How many bodies an item has: one for a `fn`, one per method of a model.
fn body_count(item: &ast::Item) -> usize {
    match item {
        ast::Item::Fn(_) => 1,
        ast::Item::Model(m) => m.methods.len() + m.fields.iter().filter(|f| f.buffer).count(),
        _ => 0,
    }
}

/// A name bound in a body.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    pub name: Name,
    pub ty: Ty,
    pub span: Span,
    /// Only `let`s can be rebound.
    pub rebindable: bool,
}

/// The state of checking one body.
pub(crate) struct FnChecker<'c, 'a> {
    pub ctx: &'c Ctx<'a>,
    pub file: FileId,
    pub owner: Option<Name>,
    pub signature: &'c Signature,
    /// Every local in scope, innermost last; `scope_starts` says where each
    /// open block's locals begin. One flat vector: a body allocates once.
    pub locals: Vec<Local>,
    scope_starts: Vec<usize>,
    pub body: Body,
    pub diagnostics: &'c mut Vec<Diagnostic>,
    /// How many unknown sizes of each name this body has made (`?k2`).
    pub unknown_counts: HashMap<Name, u32>,
    /// Spans of `return` values and the final value, to check against the return type.
    saw_return: bool,
    /// The conditions of the `if`s whose condition was reported (or
    /// failed): a body ending with one of them is not told it has no value.
    failed_ifs: Vec<Span>,
    /// The generic axes the parameters give only as parts of groups with
    /// other unknown parts (`undetermined.rs`): no size of their own.
    undetermined: Vec<Name>,
    /// The generic axes of the parameters that the entry doesn't read
    /// (`[a*b]`, or given only by a parameter that may be left out): no
    /// value in the body (`undetermined.rs`).
    unread: Vec<Name>,
    /// Which parameters have a `none` default: `None` at run time when
    /// left out, so they are only passed on to a parameter that may be
    /// left out too.
    optional: Vec<bool>,
    /// Set while a call's argument for a parameter whose default is `none`
    /// is checked: there an optional parameter may be named.
    passing_optional: bool,
    /// The body is a buffer's value (`check_buffers`), the return type its type.
    buffer: bool,
    /// Checked only for the names it notes (`names::note_names_only`): a
    /// signature's mistake doesn't stop it.
    names_only: bool,
    /// Names that some `x = e` of the body rebinds: a mask by such a name
    /// may select other rows on another pass of a loop.
    rebound: HashSet<Name>,
    /// The row count `?k` of the masks held by each binding that is never
    /// rebound, keyed by where the binding is declared: `x[hit]` and
    /// `w[hit]` select as many rows (`docs/shapescript/sizes.md`).
    mask_rows: HashMap<Span, Poly>,
}

impl<'c, 'a> FnChecker<'c, 'a> {
    fn new(
        ctx: &'c Ctx<'a>,
        file: FileId,
        owner: Option<Name>,
        signature: &'c Signature,
        diagnostics: &'c mut Vec<Diagnostic>,
    ) -> Self {
        FnChecker {
            ctx,
            file,
            owner,
            signature,
            locals: Vec::new(),
            scope_starts: Vec::new(),
            body: Body {
                file,
                owner: None,
                name: Name::EMPTY,
                span: Span::new(file, 0, 0),
                params: Vec::new(),
                ret: Ty {
                    kind: TyKind::Error,
                    span: Span::new(file, 0, 0),
                },
                generics: Vec::new(),
                lets: Vec::new(),
                exprs: Vec::new(),
                by_span: Default::default(),
                return_mismatch: false,
                float_source: None,
                made_dtype: None,
                device_source: None,
            },
            diagnostics,
            unknown_counts: HashMap::default(),
            saw_return: false,
            failed_ifs: Vec::new(),
            undetermined: Vec::new(),
            optional: Vec::new(),
            passing_optional: false,
            unread: Vec::new(),
            buffer: false,
            names_only: false,
            rebound: HashSet::default(),
            mask_rows: HashMap::default(),
        }
    }

    /// Checks the body of `f`; `locals` is an empty vector to use for the
    /// locals and is given back empty, its room kept for the next body.
    fn check(mut self, f: &ast::Fn, locals: &mut Vec<Local>) -> Body {
        self.locals = std::mem::take(locals);
        self.check_body(f);
        self.locals.clear();
        *locals = std::mem::take(&mut self.locals);
        self.body
    }

    /// The first dtype-less float tensor among the parameters that are
    /// always given (not `optional`), else among the model's fields: the
    /// body's float dtype at run time.
    fn float_source(&self, optional: &[bool]) -> Option<FloatSource> {
        self.tensor_source(optional, &mut |t: &TensorTy| {
            shape::effective_dtype(t).is_none()
        })
    }

    /// The first tensor parameter always given, else the model's first
    /// tensor field: the device of the tensors the body makes.
    fn device_source(&self, optional: &[bool]) -> Option<FloatSource> {
        self.tensor_source(optional, &mut |_: &TensorTy| true)
    }

    /// The first tensor parameter not `optional` that `wanted` accepts,
    /// else the first such field of the model or its sub-models.
    fn tensor_source(
        &self,
        optional: &[bool],
        wanted: &mut dyn FnMut(&TensorTy) -> bool,
    ) -> Option<FloatSource> {
        for (i, p) in self.body.params.iter().enumerate() {
            if optional.get(i).copied().unwrap_or(false) {
                continue;
            }
            if matches!(&p.ty.kind, TyKind::Tensor(t) if wanted(t)) {
                return Some(FloatSource::Param(i));
            }
        }
        let model = self.ctx.models.get(self.file, self.owner?)?;
        if !model.def.is_model {
            return None;
        }
        let mut path = Vec::new();
        self.find_field(&model.def, &mut path, 0, wanted)
            .then_some(FloatSource::Field(path))
    }

    /// The dtype of float tensors made in a body without a dtype-less float
    /// tensor (`Body::made_dtype`): the one concrete float dtype of its
    /// tensor parameters and model fields, if they agree on one, else
    /// PyTorch's default, `f32`.
    fn made_dtype(&self) -> DtypeKind {
        let mut seen: Option<DtypeKind> = None;
        let mut agree = true;
        let mut note = |t: &TensorTy| {
            if let Some(d) = t.dtype.filter(|d| shape::is_float(*d)) {
                agree &= seen.is_none_or(|s| s == d);
                seen = Some(d);
            }
            // Never found: every field is visited.
            false
        };
        for p in &self.body.params {
            if let TyKind::Tensor(t) = &p.ty.kind {
                note(t);
            }
        }
        if let Some(model) = self
            .ctx
            .models
            .get(self.file, self.owner.unwrap_or(Name::EMPTY))
        {
            if model.def.is_model {
                self.find_field(&model.def, &mut Vec::new(), 0, &mut note);
            }
        }
        seen.filter(|_| agree).unwrap_or(DtypeKind::F32)
    }

    /// Finds, depth first in field order, a tensor field of `def` or of its
    /// sub-models (through a stack, its first model: a model of only
    /// `blocks: [L] Block` still has a device) that `wanted` accepts, and
    /// leaves its path in `path`.
    fn find_field(
        &self,
        def: &crate::typed::TypeDef,
        path: &mut Vec<FieldStep>,
        depth: usize,
        wanted: &mut dyn FnMut(&TensorTy) -> bool,
    ) -> bool {
        // Models can't contain themselves; the bound only keeps a broken
        // program's walk short.
        if depth > 16 {
            return false;
        }
        for f in &def.fields {
            let mark = path.len();
            path.push(FieldStep::Named(f.name));
            let mut ty = &f.ty;
            while let TyKind::Stack { elem, .. } = &ty.kind {
                path.push(FieldStep::FirstOfStack);
                ty = elem;
            }
            let found = match &ty.kind {
                TyKind::Tensor(t) => wanted(t),
                TyKind::Named { file, name, .. } => {
                    self.ctx.models.get(*file, *name).is_some_and(|m| {
                        m.def.is_model && self.find_field(&m.def, path, depth + 1, wanted)
                    })
                }
                _ => false,
            };
            if found {
                return true;
            }
            path.truncate(mark);
        }
        false
    }

    /// Fills `self.body`.
    fn check_body(&mut self, f: &ast::Fn) {
        self.body.owner = self.owner;
        self.body.name = f.name.name;
        self.body.span = f.span;
        // At most about one expression per four bytes of the body's source
        // (`self.w`, `x`): growing the vector of large `TypedExpr`s would copy
        // them over and over.
        let body_len = match &f.body {
            ast::FnBody::Expr(e) => e.span.len(),
            ast::FnBody::Block(b) => b.span.len(),
        };
        let estimate = (body_len as usize / 4).min(1 << 16);
        // At least one: even `= x` records its value.
        self.body.exprs.reserve_exact(estimate.max(1));
        if let ast::FnBody::Block(block) = &f.body {
            rebound_names(block, &mut self.rebound);
        }
        // Before `self` and the parameters are bound: a default sees neither.
        self.check_defaults(f);
        if let Some(model) = &self.owner {
            if let Some(span) = f.self_param {
                let ty = model::self_ty(self.ctx.models, self.file, *model, span);
                self.bind(Name::new("self"), ty, span, false);
            }
        }
        self.body.params.reserve_exact(self.signature.params.len());
        for (i, p) in self.signature.params.iter().enumerate() {
            let span = f.params.get(i).map_or(p.span, |ap| ap.name.span);
            self.bind(p.name, flatten_ty(&p.ty), span, false);
            self.body.params.push(Binding {
                name: p.name,
                span,
                ty: p.ty.clone(),
            });
        }
        // A parameter left out is `None` at run time: no dtype nor device,
        // and no size to read.
        let optional: Vec<bool> = f
            .params
            .iter()
            .map(|p| matches!(p.default.as_deref(), Some(e) if matches!(e.kind, ast::ExprKind::None)))
            .collect();
        self.body.generics = generic_sources(self.signature, &optional);
        self.body.float_source = self.float_source(&optional);
        self.body.device_source = self.device_source(&optional);
        if self.body.float_source.is_none() {
            self.body.made_dtype = Some(self.made_dtype());
        }
        self.optional = optional;
        if !signature_broken(self.signature) {
            self.undetermined = undetermined::group_only(self.signature, &self.body.generics);
            self.unread = undetermined::unread(self.signature, &self.body.generics);
            // A size only a parameter that may be left out gives.
            let optional = &self.optional;
            let given_by_optional = self
                .body
                .generics
                .iter()
                .filter(|g| optional.get(g.param).copied().unwrap_or(false))
                .map(|g| g.name);
            self.unread.extend(given_by_optional);
            let types = self
                .signature
                .params
                .iter()
                .map(|p| &p.ty)
                .chain(self.signature.ret.as_ref());
            let alone = undetermined::alone(types, &self.undetermined);
            if let Some((span, name)) = alone.filter(|_| !self.names_only) {
                self.note_names_of_skipped(f);
                let d = undetermined::diagnostic(self.signature, &self.undetermined, span, name);
                // Its calls stay checked; the body would only repeat it.
                self.diagnostics.push(d);
                self.body.ret = self
                    .signature
                    .ret
                    .clone()
                    .unwrap_or_else(|| error_ty(f.name.span));
                // Calls to it are quiet, as for a body that misses its return type.
                self.body.return_mismatch = true;
                return;
            }
        }
        if signature_broken(self.signature) && !self.names_only {
            self.note_names_of_skipped(f);
            // Its mistake was reported; the body would only repeat it.
            self.body.ret = self
                .signature
                .ret
                .clone()
                .unwrap_or_else(|| error_ty(f.name.span));
            return;
        }
        let signature = self.signature;
        let ret = signature.ret.as_ref().map(shape::flatten_cow);
        let value = match &f.body {
            ast::FnBody::Expr(e) => Some((self.expr(e), e.span)),
            ast::FnBody::Block(b) => self.block(b),
        };
        match (&ret, &value) {
            (Some(ret), Some((ty, span))) => self.expect_ty(ty, ret, *span, Expected::Return),
            (Some(ret), None) if !self.saw_return && !matches!(ret.kind, TyKind::Error) => {
                self.returns_nothing(f, ret);
            }
            _ => {}
        }
        self.body.ret = match (&self.signature.ret, value) {
            (Some(ret), _) => ret.clone(),
            (None, Some((ty, _))) => ty,
            (None, None) => Ty {
                kind: TyKind::Tuple(Vec::new()),
                span: f.name.span,
            },
        };
    }

    /// E0408 for a body that ends without a value and never returns one:
    /// at the return type, as rustc does, with the statement the body ends
    /// with. Quiet when that statement is an `if` whose condition was
    /// reported (a tensor): the `if` is the one mistake.
    fn returns_nothing(&mut self, f: &ast::Fn, ret: &Ty) {
        let tail = match &f.body {
            ast::FnBody::Block(b) => b.stmts.last(),
            ast::FnBody::Expr(_) => None,
        };
        if let Some(ast::StmtKind::If { cond, .. }) = tail.map(|s| &s.kind) {
            if self.failed_ifs.contains(&cond.span) {
                return;
            }
        }
        let at = f.ret.as_ref().map_or(f.name.span, |t| t.span);
        let mut d = Diagnostic::error(codes::E0408, format!("`{}` returns nothing", f.name.name))
            .with_primary(at, format!("the return type is `{}`", show_ty(ret)));
        let keyword =
            |s: &ast::Stmt, len: u32| Span::new(s.span.file, s.span.start, s.span.start + len);
        let (ends, help) = match tail.map(|s| (s, &s.kind)) {
            Some((s, ast::StmtKind::If { .. })) => (
                Some((
                    keyword(s, 2),
                    "the body ends with this `if`, whose blocks give no value",
                )),
                "`return` the value in each block of the `if`, or end the body with the value",
            ),
            Some((s, ast::StmtKind::For { .. })) => (
                Some((
                    keyword(s, 3),
                    "the body ends with this `for`, which gives no value",
                )),
                "end the body with the value to return, or use `return value`",
            ),
            Some((s, ast::StmtKind::Let { .. } | ast::StmtKind::LetTuple { .. })) => (
                Some((
                    s.span,
                    "the body ends with this `let`, which gives no value",
                )),
                "end the body with the value to return, or use `return value`",
            ),
            Some((s, _)) => (
                Some((
                    s.span,
                    "the body ends with this assignment, which gives no value",
                )),
                "end the body with the value to return, or use `return value`",
            ),
            None => (
                None,
                "end the body with the value to return, or use `return value`",
            ),
        };
        if let Some((span, label)) = ends {
            d = d.with_secondary(span, label);
        }
        self.diagnostics.push(d.with_help(help));
    }

    /// A body left unchecked for its signature's mistake still has its
    /// names noted, when they are recorded.
    fn note_names_of_skipped(&self, f: &ast::Fn) {
        if self.recorder().is_some() {
            names::note_names_only(self.ctx, self.file, self.owner, self.signature, f);
        }
    }

    /// Binds `name` in the innermost scope.
    pub(crate) fn bind(&mut self, name: Name, ty: Ty, span: Span, rebindable: bool) {
        if rebindable {
            self.body.lets.push(Binding {
                name,
                span,
                ty: ty.clone(),
            });
        }
        self.locals.push(Local {
            name,
            ty,
            span,
            rebindable,
        });
    }

    /// The innermost local named `name` (interned: one comparison each).
    pub(crate) fn local(&self, name: Name) -> Option<&Local> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    fn open_scope(&mut self) {
        self.scope_starts.push(self.locals.len());
    }

    fn close_scope(&mut self) {
        let start = self.scope_starts.pop().expect("an open scope");
        self.locals.truncate(start);
    }

    /// Checks a block in a new scope; returns its value's type and span.
    fn block(&mut self, block: &ast::Block) -> Option<(Ty, Span)> {
        self.open_scope();
        let mut value = None;
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == block.stmts.len();
            // Blocks nest: grow the stack when needed.
            value = syntax::ensure_sufficient_stack(|| self.stmt(stmt, last));
        }
        self.close_scope();
        value
    }

    /// Checks one statement; the last one's value, when it is an expression,
    /// is the block's.
    fn stmt(&mut self, stmt: &ast::Stmt, last: bool) -> Option<(Ty, Span)> {
        match &stmt.kind {
            ast::StmtKind::Let { name, ty, value } => {
                let found = self.expr(value);
                let ty = match ty {
                    Some(written) => {
                        let declared = self.lower_body_type(written);
                        self.expect_ty(&found, &declared, value.span, Expected::Let(written.span));
                        declared
                    }
                    // A `let` rebound later holds other values than its
                    // first: its first value's domain says nothing of them.
                    None if self.rebound.contains(&name.name) => without_domain(found),
                    None => found,
                };
                if !name.is_missing() {
                    self.bind(name.name, ty, name.span, true);
                }
            }
            ast::StmtKind::LetTuple { names, value } => self.let_tuple(names, value),
            ast::StmtKind::Assign { name, value } => self.assign(name, value),
            ast::StmtKind::Return(value) => {
                let found = self.expr(value);
                self.saw_return = true;
                let signature = self.signature;
                if let Some(ret) = signature.ret.as_ref().map(shape::flatten_cow) {
                    self.expect_ty(&found, &ret, value.span, Expected::Return);
                }
            }
            ast::StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let ty = self.expr(cond);
                if !matches!(ty.kind, TyKind::Scalar(ast::ScalarKind::Bool)) {
                    self.failed_ifs.push(cond.span);
                }
                if !matches!(
                    ty.kind,
                    TyKind::Scalar(ast::ScalarKind::Bool) | TyKind::Error
                ) {
                    self.diagnostics.push(
                        Diagnostic::error(codes::E0408, "`if` takes a Python `Bool`")
                            .with_primary(cond.span, format!("this is `{}`", show_ty(&ty)))
                            .with_help("`if` decides once, before the tensors exist; choose elementwise with `where(cond, a, b)`"),
                    );
                }
                self.block(then_block);
                if let Some(b) = else_block {
                    self.block(b);
                }
            }
            ast::StmtKind::For { var, iter, body } => {
                let elem = self.for_element(iter);
                self.open_scope();
                if !var.is_missing() {
                    self.bind(var.name, elem, var.span, false);
                    let local = self.local(var.name).cloned().expect("just bound");
                    self.body.lets.push(Binding {
                        name: local.name,
                        span: var.span,
                        ty: local.ty,
                    });
                }
                self.block(body);
                self.close_scope();
            }
            ast::StmtKind::Expr(e) => {
                let ty = self.expr(e);
                if last {
                    return Some((ty, e.span));
                }
            }
        }
        None
    }

    /// `let (a, b) = value`: one name per value of the tuple (E0408).
    fn let_tuple(&mut self, names: &[ast::Ident], value: &ast::Expr) {
        let found = self.expr(value);
        let items: Vec<Ty> = match &found.kind {
            TyKind::Tuple(items) if items.len() == names.len() => items.clone(),
            TyKind::Error => vec![found.clone(); names.len()],
            _ => {
                let count = match &found.kind {
                    TyKind::Tuple(items) => format!("{} values", items.len()),
                    _ => "one value".to_string(),
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0408,
                        format!(
                            "`let` takes {} names, but the value is {count}",
                            names.len()
                        ),
                    )
                    .with_primary(value.span, format!("this is `{}`", show_ty(&found)))
                    .with_help("name each value of the tuple once"),
                );
                vec![error_ty(value.span); names.len()]
            }
        };
        for (name, ty) in names.iter().zip(items) {
            if !name.is_missing() {
                self.bind(name.name, ty, name.span, true);
            }
        }
    }

    /// `name = value`: rebinds a `let` to a value of its type; E0408 for a
    /// name that isn't a `let`, E0301 for an unknown one.
    fn assign(&mut self, name: &ast::Ident, value: &ast::Expr) {
        let found = self.expr(value);
        if self.recorder().is_some() {
            if let Some(local) = self.local(name.name) {
                self.note(name.span, crate::resolved::TypeName::Declared(local.span));
            }
        }
        match self.local(name.name).cloned() {
            Some(local) if local.rebindable => {
                self.expect_ty(
                    &found,
                    &local.ty,
                    value.span,
                    Expected::Rebind(local.span, &local.name),
                );
            }
            Some(local) => self.diagnostics.push(
                Diagnostic::error(codes::E0408, format!("`{}` can't be rebound", name.name))
                    .with_primary(name.span, "not a `let`")
                    .with_secondary(local.span, "declared here")
                    .with_help(format!("declare a new value: `let {} = ...`", name.name)),
            ),
            None => {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0301,
                        format!("cannot find `{}` in this body", name.name),
                    )
                    .with_primary(name.span, "no `let` of this name")
                    .with_help(format!("declare it first: `let {} = ...`", name.name)),
                );
                // As if it were a `let`, so its uses don't repeat the mistake.
                self.bind(name.name, found, name.span, true);
            }
        }
    }

    /// The loop variable's type: a model of a stack, or an Int of `range(n)`.
    fn for_element(&mut self, iter: &ast::Expr) -> Ty {
        if let ast::ExprKind::Call { callee, args } = &iter.kind {
            if matches!(&callee.kind, ast::ExprKind::Name(n) if n.name == "range") {
                for arg in args {
                    let ty = self.expr(&arg.value);
                    if !matches!(
                        ty.kind,
                        TyKind::Scalar(ast::ScalarKind::Int) | TyKind::Error
                    ) {
                        self.diagnostics.push(
                            Diagnostic::error(codes::E0408, "`range` takes an `Int`").with_primary(
                                arg.value.span,
                                format!("this is `{}`", show_ty(&ty)),
                            ),
                        );
                    }
                }
                let ty = Ty {
                    kind: TyKind::Scalar(ast::ScalarKind::Int),
                    span: iter.span,
                };
                self.record(iter.span, ty.clone(), ExprInfo::Plain);
                return ty;
            }
        }
        let ty = self.expr(iter);
        match ty.kind {
            TyKind::Stack { elem, .. } => *elem,
            TyKind::Error => error_ty(iter.span),
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0408,
                        "`for` goes over a stack of models or `range(n)`",
                    )
                    .with_primary(iter.span, format!("this is `{}`", show_ty(&ty)))
                    .with_help(
                        "declare a stack field, `blocks: [L] Block`, and loop over `self.blocks`",
                    ),
                );
                error_ty(iter.span)
            }
        }
    }

    /// Records an expression's type and returns the type.
    pub(crate) fn record(&mut self, span: Span, ty: Ty, info: ExprInfo) -> Ty {
        let range = shape::range_of(&ty);
        self.body.exprs.push(TypedExpr {
            span,
            ty: ty.clone(),
            range,
            info,
        });
        ty
    }

    /// Lowers a type written in the body (`let x: T`, `as T`, `to T`): its
    /// names are the function's generic axes and dims; each `?k` is new.
    pub(crate) fn lower_body_type(&mut self, ty: &ast::Type) -> Ty {
        let mut diagnostics = Vec::new();
        let mut lowerer = Lowerer::new(self.ctx.env, self.file, &mut diagnostics);
        lowerer.place = Place::Return;
        lowerer.generic_order = self.signature.generics.clone();
        let lowered = lowerer.lower_type(ty);
        self.diagnostics.append(&mut diagnostics);
        let flat = flatten_ty(&lowered);
        self.fresh_unknowns(&flat)
    }

    /// Gives each unknown size in `ty` a new number in this body; within
    /// the type, the same `?k` stays one size.
    pub(crate) fn fresh_unknowns(&mut self, ty: &Ty) -> Ty {
        self.fresh_unknowns_where(ty, &|_| true)
    }

    /// `fresh_unknowns` for the unknown sizes whose number `renew` accepts
    /// (0: one a call made for a size no argument determined).
    pub(crate) fn fresh_unknowns_where(&mut self, ty: &Ty, renew: &dyn Fn(u32) -> bool) -> Ty {
        if !shape::has_unknowns(ty) {
            return ty.clone();
        }
        let mut renamed: Vec<(Symbol, Symbol)> = Vec::new();
        shape::map_sizes(ty, &mut |poly: &Poly| {
            let mut out = poly.clone();
            for symbol in poly.symbols() {
                if let Symbol::Unknown { name, index } = symbol {
                    if !renew(*index) {
                        continue;
                    }
                    let new = match renamed.iter().find(|(old, _)| old == symbol) {
                        Some((_, new)) => new.clone(),
                        None => {
                            let count = self.unknown_counts.entry(*name).or_insert(0);
                            *count += 1;
                            let new = Symbol::Unknown {
                                name: *name,
                                index: *count,
                            };
                            renamed.push((symbol.clone(), new.clone()));
                            new
                        }
                    };
                    let (from, to) = (symbol.clone(), new);
                    out = out
                        .substitute(&|s| (*s == from).then(|| Poly::symbol(to.clone())))
                        .unwrap_or(out.clone());
                }
            }
            out
        })
    }

    /// A new unknown size named `name`, as from a mask or a run-time `k`.
    pub(crate) fn new_unknown(&mut self, name: &str) -> Poly {
        let name = Name::new(name);
        let count = self.unknown_counts.entry(name).or_insert(0);
        *count += 1;
        Poly::symbol(Symbol::Unknown {
            name,
            index: *count,
        })
    }

    /// The row count of a mask: the same `?k` for every use of one binding
    /// that is never rebound (a parameter or a `let`), a new one otherwise.
    pub(crate) fn mask_rows(&mut self, mask: &ast::Expr) -> Poly {
        let binding = match &mask.kind {
            ast::ExprKind::Name(name) if !self.rebound.contains(&name.name) => {
                self.local(name.name).map(|local| local.span)
            }
            _ => None,
        };
        let Some(binding) = binding else {
            return self.new_unknown("k");
        };
        if let Some(rows) = self.mask_rows.get(&binding) {
            return rows.clone();
        }
        let rows = self.new_unknown("k");
        self.mask_rows.insert(binding, rows.clone());
        rows
    }

    /// Reports when `found` doesn't fit `expected` (shape E0401, dtype E0502, kind E0408).
    fn expect_ty(&mut self, found: &Ty, expected: &Ty, span: Span, what: Expected) {
        // A value that fits as declared fits too once the return type's `?k`
        // adopt the value's sizes (they only move it closer): most values
        // fit, so the search for unknowns waits for a mismatch.
        let Some(problem) = same_ty(self.ctx.env.dims, found, expected) else {
            return;
        };
        if self.buffer && default_float_fits(self.ctx.env.dims, found, expected) {
            return;
        }
        // `?k` in a return type is whatever size the body returns
        // (`docs/shapescript/sizes.md`, Unknown sizes).
        let adopted;
        let mut one_unknown = false;
        let (expected, problem) = match what {
            Expected::Return if shape::has_unknowns(expected) => {
                let mut sizes = Adopted::default();
                adopted = adopt_unknowns(self.ctx.env.dims, expected, found, &mut sizes);
                match (same_ty(self.ctx.env.dims, found, &adopted), sizes.conflict) {
                    (Some(shape::Mismatch::Shape(_)), Some(conflict)) => {
                        one_unknown = true;
                        (expected, shape::Mismatch::Shape(conflict))
                    }
                    (Some(problem), _) => (&adopted, problem),
                    (None, _) => return,
                }
            }
            _ => (expected, problem),
        };
        if let Expected::Return = what {
            self.body.return_mismatch = true;
        }
        let (code, message) = match problem {
            shape::Mismatch::Shape(detail) => (codes::E0401, detail),
            shape::Mismatch::Dtype(detail) => (codes::E0502, detail),
            shape::Mismatch::Kind => (
                codes::E0408,
                format!(
                    "{} where {} is expected",
                    shape::kind_of(found),
                    shape::kind_of(expected)
                ),
            ),
        };
        let (title, secondary) = match what {
            Expected::Return if self.buffer => (
                "the buffer's value doesn't fit its type".to_string(),
                self.signature
                    .ret
                    .as_ref()
                    .map(|r| (r.span, "the buffer's type".to_string())),
            ),
            Expected::Return => (
                "the body's value doesn't fit the return type".to_string(),
                self.signature
                    .ret
                    .as_ref()
                    .map(|r| (r.span, "return type declared here".to_string())),
            ),
            Expected::Let(at) => (
                "the value doesn't fit the `let`'s type".to_string(),
                Some((at, "type declared here".to_string())),
            ),
            Expected::Rebind(at, name) => (
                format!("`{name}` is rebound to a value of another type"),
                Some((
                    at,
                    format!("`{name}` is declared here as `{}`", show_ty(expected)),
                )),
            ),
        };
        let mut d = Diagnostic::error(code, title).with_primary(
            span,
            format!(
                "expected `{}`, found `{}`",
                show_ty(expected),
                show_ty(found)
            ),
        );
        if let Some((at, label)) = secondary {
            d = d.with_secondary(at, label);
        }
        d = d.with_note(message);
        if shape::has_unknowns(found) && !shape::has_unknowns(expected) {
            d = d.with_help("an unknown size `?k` equals only itself: state the size with `as`, which the generated code checks when it runs");
        }
        if one_unknown {
            d = d.with_help(
                "if the sizes may differ, give each its own unknown, as in `?k` and `?j`",
            );
        }
        if let Expected::Rebind(..) = what {
            d = d.with_help(
                "a rebinding keeps the value's type, so a loop's body must give back what it takes",
            );
        }
        if let Some(help) = dtype_help(found, expected) {
            d = d.with_help(help);
        }
        self.diagnostics.push(d);
    }
}

/// The help for a value of a concrete dtype where the type has none (the
/// call's float dtype), or the other way round.
fn dtype_help(found: &Ty, expected: &Ty) -> Option<String> {
    let (TyKind::Tensor(f), TyKind::Tensor(e)) = (&found.kind, &expected.kind) else {
        return None;
    };
    match (shape::effective_dtype(f), shape::effective_dtype(e)) {
        (Some(d), None) => Some(format!(
            "the value is always {d}, whatever the caller's float dtype: declare it, as in `{} {d}`, or compute it from a tensor parameter without a dtype",
            show_ty(&Ty { kind: TyKind::Tensor(TensorTy { dtype: None, ..e.clone() }), span: expected.span }),
            d = d.as_str()
        )),
        (None, Some(d)) => Some(format!(
            "the value has the caller's float dtype, which may be another than {d}: convert it, `... to {d}`",
            d = d.as_str()
        )),
        _ => None,
    }
}

/// `ty` without the domain its value had (its dtype kept: an `Index` id
/// stays an integer); a `Bool` mask stays one.
fn without_domain(ty: Ty) -> Ty {
    match ty.kind {
        TyKind::Tensor(t) if !matches!(t.domain, None | Some(crate::types::Domain::Bool)) => Ty {
            kind: TyKind::Tensor(TensorTy {
                dtype: shape::effective_dtype(&t),
                domain: None,
                shape: t.shape,
            }),
            span: ty.span,
        },
        kind => Ty {
            kind,
            span: ty.span,
        },
    }
}

/// What a value is checked against, for the message.
enum Expected<'n> {
    Return,
    Let(Span),
    Rebind(Span, &'n str),
}

/// The sizes the return type's unknowns `?k` adopted so far, with the axis
/// (1-based) where each was first met, and the first conflict in words:
/// within one type the same `?k` is one size (`docs/shapescript/sizes.md`).
#[derive(Default)]
struct Adopted {
    sizes: Vec<(Symbol, Poly, usize)>,
    conflict: Option<String>,
}

/// `expected` with each axis whose size has an unknown `?k` replaced by the
/// axis `found` has there; an axis that is one `?k` met before keeps the
/// size `?k` took first, so a value `[n m]` doesn't fit `[?k ?k]`.
fn adopt_unknowns(dims: &DimValues, expected: &Ty, found: &Ty, adopted: &mut Adopted) -> Ty {
    match (&expected.kind, &found.kind) {
        (TyKind::Tensor(e), TyKind::Tensor(f)) => {
            let (Some(es), Some(fs)) = (&e.shape, &f.shape) else {
                return expected.clone();
            };
            if es.len() != fs.len() {
                return expected.clone();
            }
            let shape = es
                .iter()
                .zip(fs.iter())
                .enumerate()
                .map(|(i, (x, y))| adopt_axis(dims, x, y, i + 1, adopted))
                .collect();
            Ty {
                kind: TyKind::Tensor(crate::types::TensorTy {
                    shape: Some(shape),
                    domain: e.domain.clone(),
                    dtype: e.dtype,
                }),
                span: expected.span,
            }
        }
        (TyKind::Tuple(es), TyKind::Tuple(fs)) if es.len() == fs.len() => Ty {
            kind: TyKind::Tuple(
                es.iter()
                    .zip(fs)
                    .map(|(e, f)| adopt_unknowns(dims, e, f, adopted))
                    .collect(),
            ),
            span: expected.span,
        },
        _ => expected.clone(),
    }
}

/// One axis of `adopt_unknowns`: the expected axis `x` (axis number `at`)
/// against the value's `y`.
fn adopt_axis(dims: &DimValues, x: &Axis, y: &Axis, at: usize, adopted: &mut Adopted) -> Axis {
    let Some(p) = axis_poly_ref(x) else {
        return x.clone();
    };
    let unknown = p
        .symbols()
        .iter()
        .any(|s| matches!(s, Symbol::Unknown { .. }));
    if !unknown {
        return x.clone();
    }
    let (Some(symbol @ Symbol::Unknown { .. }), Some(value)) = (p.as_symbol(), axis_poly_ref(y))
    else {
        return y.clone();
    };
    match adopted.sizes.iter().find(|(s, _, _)| s == symbol) {
        None => {
            adopted.sizes.push((symbol.clone(), value.into_owned(), at));
            y.clone()
        }
        Some((_, first, _)) if dims.same_size(first, &value) => y.clone(),
        Some((_, first, first_at)) => {
            if adopted.conflict.is_none() {
                adopted.conflict = Some(format!(
                    "`{symbol}` is `{first}` at axis {first_at} and `{value}` at axis {at}, but within one type the same `{symbol}` is one size"
                ));
            }
            crate::shape::axis_of(first.clone(), x.span)
        }
    }
}

/// Whether a signature's types hold a reported mistake.
pub(crate) fn signature_broken(signature: &Signature) -> bool {
    fn broken(ty: &Ty) -> bool {
        match &ty.kind {
            // Only for extern fn (E0306), and only `fn` bodies are checked.
            TyKind::Error | TyKind::Axis(_) | TyKind::Axes(_) | TyKind::SizeParam(_) => true,
            TyKind::Tensor(t) => t.shape.as_deref().is_some_and(shape_broken),
            TyKind::Tuple(items) => items.iter().any(broken),
            TyKind::Stack { elem, .. } => broken(elem),
            _ => false,
        }
    }
    // A loop rather than `any` over a recursive function: every signature
    // with a body asks, and its axes are nearly all plain sizes.
    fn shape_broken(axes: &[crate::types::Axis]) -> bool {
        for axis in axes {
            match &axis.kind {
                AxisKind::Error | AxisKind::Rest => return true,
                AxisKind::Group { parts, .. } if shape_broken(parts) => return true,
                _ => {}
            }
        }
        false
    }
    signature.params.iter().any(|p| broken(&p.ty)) || signature.ret.as_ref().is_some_and(broken)
}

pub(crate) fn error_ty(span: Span) -> Ty {
    Ty {
        kind: TyKind::Error,
        span,
    }
}

/// Where each generic axis of a signature is first seen, for the run-time
/// check. A group's one unknown part is read once the others are known,
/// from any parameter, so the parameters are gone over until nothing new is.
fn generic_sources(signature: &Signature, optional: &[bool]) -> Vec<GenericSource> {
    let mut out: Vec<GenericSource> = Vec::with_capacity(signature.generics.len());
    // Parameters always given first: one that may be left out (`none`)
    // gives only what no other does, and its sizes have no value then.
    for with_optional in [false, true] {
        loop {
            let known = out.len();
            generic_sources_pass(signature, &mut out, &|p| {
                with_optional || !optional.get(p).copied().unwrap_or(false)
            });
            if out.len() == known {
                break;
            }
        }
    }
    out
}

/// One pass of `generic_sources` over the parameters `read` accepts,
/// adding to `out`.
fn generic_sources_pass(
    signature: &Signature,
    out: &mut Vec<GenericSource>,
    read: &dyn Fn(usize) -> bool,
) {
    for (p, param) in signature.params.iter().enumerate() {
        if !read(p) {
            continue;
        }
        let Some(shape) = param.ty.shape() else {
            continue;
        };
        for (a, axis) in shape.iter().enumerate() {
            let (name, factor, divide_by) = match &axis.kind {
                // `[2*n]` reads `n` as the axis divided by 2, as `[2n]` does;
                // `[2*n + 1]` the axis less 1, divided by 2.
                AxisKind::Size { size, .. } => match split_offset(&size.poly) {
                    Some((factor, n, offset)) => {
                        if !out.iter().any(|g| g.name == n) {
                            out.push(GenericSource {
                                name: n,
                                param: p,
                                axis: a,
                                factor,
                                offset,
                                divide_by: None,
                            });
                        }
                        continue;
                    }
                    None => continue,
                },
                AxisKind::Group {
                    parts,
                    grouped: true,
                    ..
                } => match (&parts[0].kind, &parts[1].kind) {
                    (AxisKind::Size { size: s, .. }, AxisKind::Size { size: f, .. }) => {
                        match (s.poly.as_symbol(), f.poly.as_constant()) {
                            (Some(Symbol::Generic(n)), Some(f)) => (*n, f, None),
                            _ => continue,
                        }
                    }
                    _ => continue,
                },
                AxisKind::Group { parts, .. } => {
                    // The one part not yet known, divided by the others.
                    let unknown: Vec<Name> = parts
                        .iter()
                        .filter_map(|part| match axis_poly(part)?.as_symbol()? {
                            Symbol::Generic(n) if !out.iter().any(|g| g.name == *n) => Some(*n),
                            _ => None,
                        })
                        .collect();
                    let [name] = unknown.as_slice() else { continue };
                    let name = &name;
                    let mut others = Poly::constant(1);
                    for part in parts {
                        let Some(poly) = axis_poly(part) else {
                            continue;
                        };
                        if poly.as_symbol() != Some(&Symbol::Generic(*(*name))) {
                            others = others.mul(&poly).unwrap_or(others.clone());
                        }
                    }
                    (*(*name), 1, Some(Size::computed(others)))
                }
                _ => continue,
            };
            if !out.iter().any(|g| g.name == name) {
                out.push(GenericSource {
                    name,
                    param: p,
                    axis: a,
                    factor,
                    offset: 0,
                    divide_by,
                });
            }
        }
    }
}

/// A size `factor * n + offset` of one generic axis `n` (a positive
/// factor), as the entry reads it: `[n]`, `[2*n]`, `[n + 1]`, `[2*n - 1]`.
fn split_offset(poly: &Poly) -> Option<(i128, Name, i128)> {
    let (offset, rest) = poly.split_constant()?;
    match rest.as_multiple_of_symbol()? {
        (factor, Symbol::Generic(n)) => Some((factor, *n, offset)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
