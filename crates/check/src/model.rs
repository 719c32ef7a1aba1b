//! Models and records (`docs/shapescript/models.md`): lowers their fields
//! (tensors, sub-models with size arguments, stacks `[L] M`) and initialisers,
//! and their methods' signatures, with a model's size parameters as dims local
//! to it. Gives a field's or method's type at a use, the size parameters
//! replaced by the use's arguments. Never checks method bodies (that is
//! `body`).

use syntax::Name;

use diag::{Diagnostic, FileId, Span};
use syntax::ast;

use crate::codes;
use crate::lower::{Env, Lowerer, Place};
use crate::program::Decl;
use crate::shape::{flatten_ty, map_sizes};
use crate::signature::{ParamSig, Signature};
use crate::size::{Poly, Size, Symbol};
use crate::typed::{FieldDef, Init, InitExpr, NumberDefault, TypeDef};
use crate::types::{Ty, TyKind};
use rustc_hash::FxHashMap as HashMap;

mod init;

/// What the types of a model or record see: the program, the file that
/// declares it and the model's size parameters (none for a record, whose
/// generic axes are bound at each construction). Every step of lowering
/// one reads it.
#[derive(Clone, Copy)]
struct Scope<'a> {
    env: Env<'a>,
    file: FileId,
    size_params: &'a [Name],
}

/// A model or record, lowered.
pub struct ModelInfo {
    pub def: TypeDef,
    /// Method name to its signature and declaration span.
    pub methods: HashMap<syntax::Name, (Signature, Span)>,
}

/// Every model and record of the program.
#[derive(Default)]
pub struct Models {
    by_name: HashMap<(FileId, Name), ModelInfo>,
    order: Vec<(FileId, Name)>,
}

impl Models {
    pub fn get(&self, file: FileId, name: impl Into<Name>) -> Option<&ModelInfo> {
        self.by_name.get(&(file, name.into()))
    }

    /// The models' and records' definitions in declaration order, moved
    /// out: the checker is done with them, and a copy would cost a clone of
    /// every field type.
    pub fn into_defs(mut self) -> Vec<TypeDef> {
        self.order
            .iter()
            .filter_map(|k| self.by_name.remove(k))
            .map(|m| m.def)
            .collect()
    }
}

/// Lowers the models and records of the modules `batch` (indices into
/// `Program::modules`) into `models`.
pub fn collect_batch(
    env: Env,
    batch: &[usize],
    models: &mut Models,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for module in batch.iter().map(|&m| &env.program.modules[m]) {
        // Its messages name other files' dims as it imports them (`vis.D`).
        let _names = module.import_names();
        for (i, item) in module.ast.items.iter().enumerate() {
            // Only models and records ask whether they are the first of their name.
            if !matches!(item, ast::Item::Model(_) | ast::Item::Record(_))
                || module.names.get(&item.name().name) != Some(&i)
            {
                continue;
            }
            // After a syntax error in the file, a field's mistake is most
            // likely that one again: keep quiet.
            let mut quiet = Vec::new();
            let sink = if module.parse_errors.is_empty() {
                &mut *diagnostics
            } else {
                &mut quiet
            };
            let scope = Scope {
                env,
                file: module.file,
                size_params: &[],
            };
            let info = match item {
                ast::Item::Model(m) => lower_model(scope, m, sink),
                ast::Item::Record(r) => lower_record(scope, r, sink),
                _ => continue,
            };
            let key = (module.file, item.name().name);
            models.order.push(key);
            models.by_name.insert(key, info);
        }
    }
}

/// `scope` is the model's file's: its fields and methods see `m`'s size
/// parameters too.
fn lower_model(scope: Scope, m: &ast::Model, diagnostics: &mut Vec<Diagnostic>) -> ModelInfo {
    let size_params: Vec<Name> = m.size_params.iter().map(|p| p.name).collect();
    let hidden = size_params_hidden(scope, m, diagnostics);
    let model = Scope {
        size_params: &size_params,
        ..scope
    };
    let (fields, _) = lower_fields(model, &m.fields, true, diagnostics);
    let mut methods = HashMap::default();
    for method in &m.methods {
        if method.self_param.is_none() {
            diagnostics.push(
                Diagnostic::error(
                    codes::E0408,
                    format!("method `{}` has no `self`", method.name.name),
                )
                .with_primary(method.name.span, "a method takes `self` first")
                .with_help(format!("write `fn {}(self, ...)`", method.name.name)),
            );
        }
        let mut signature = method_signature(model, method, diagnostics);
        if hidden {
            // Its types read the dim where the method meant the size
            // parameter: a broken signature, so calls to it say nothing more.
            signature.ret = Some(Ty {
                kind: TyKind::Error,
                span: method.name.span,
            });
        }
        methods.insert(method.name.name, (signature, method.span));
    }
    ModelInfo {
        def: TypeDef {
            file: scope.file,
            name: m.name.name,
            is_model: true,
            size_params,
            fields,
            span: m.span,
        },
        methods,
    }
}

/// E0203 for each size parameter of `m` with the name of a declaration of
/// its file (other than a function, which a size never means): a size in
/// the model's types would read the dim (or fail on the declaration), never
/// the size parameter, while the model's users give it a value. Whether one
/// was reported.
fn size_params_hidden(scope: Scope, m: &ast::Model, diagnostics: &mut Vec<Diagnostic>) -> bool {
    let mut hidden = false;
    for param in &m.size_params {
        let decl = match scope.env.program.decl(scope.file, param.name) {
            None | Some(Decl::Fn(_) | Decl::ExternFn(_)) => continue,
            Some(decl) => decl,
        };
        hidden = true;
        let what = decl.describe();
        diagnostics.push(
            Diagnostic::error(
                codes::E0203,
                format!(
                    "size parameter `{}` of `{}` has the name of {what}",
                    param.name, m.name.name
                ),
            )
            .with_primary(
                param.span,
                format!(
                    "`{}` in the model's types means {what} of the file, never this parameter",
                    param.name
                ),
            )
            .with_secondary(
                decl.name_span(),
                format!("`{}` is declared here", param.name),
            )
            .with_help(match decl {
                Decl::Dim(..) => format!(
                    "rename the size parameter, or drop it and use the dim `{}`",
                    param.name
                ),
                _ => "rename the size parameter".to_owned(),
            }),
        );
    }
    hidden
}

fn lower_record(scope: Scope, r: &ast::Record, diagnostics: &mut Vec<Diagnostic>) -> ModelInfo {
    // A record's generic axes (`n` in `mean: [n]`) are bound at each
    // construction, like a model's size parameters.
    let (fields, generics) = lower_fields(scope, &r.fields, false, diagnostics);
    ModelInfo {
        def: TypeDef {
            file: scope.file,
            name: r.name.name,
            is_model: false,
            size_params: generics,
            fields,
            span: r.span,
        },
        methods: HashMap::default(),
    }
}

fn lower_fields(
    scope: Scope,
    fields: &[ast::Field],
    is_model: bool,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<FieldDef>, Vec<Name>) {
    let mut lowerer = Lowerer::new(scope.env, scope.file, diagnostics);
    lowerer.generic_order = scope.size_params.to_vec();
    let mut out: Vec<FieldDef> = Vec::new();
    for field in fields {
        lowerer.place = Place::Param;
        let known = lowerer.generic_order.len();
        let ty = lowerer.lower_type(&field.ty);
        if is_model && lowerer.generic_order.len() > known {
            // A model's fields have fixed sizes: dims and its size parameters.
            let new: Vec<String> = lowerer.generic_order[known..]
                .iter()
                .map(|n| format!("`{n}`"))
                .collect();
            lowerer.generic_order.truncate(known);
            lowerer.diagnostics.push(
                Diagnostic::error(codes::E0301, format!("cannot find size {} in a model's field", new.join(" and ")))
                    .with_primary(field.ty.span, "not a dim or a size parameter of the model")
                    .with_help("a model's tensors have sizes fixed when the model is made: declare a dim, or add a size parameter, as in `model M(n) { ... }`"),
            );
        }
        sub_model_sizes(scope, field, lowerer.diagnostics);
        if is_model && scope.size_params.contains(&field.name.name) {
            // Both are attributes of `self` in Python, and arguments of `__init__`.
            lowerer.diagnostics.push(
                Diagnostic::error(
                    codes::E0203,
                    format!(
                        "field `{}` has the name of a size parameter",
                        field.name.name
                    ),
                )
                .with_primary(field.name.span, "also a size parameter of the model")
                .with_help(
                    "a model's size parameters and fields are all read as `self.name`: rename one",
                ),
            );
        }
        if let Some(first) = out.iter().find(|f| *f.name == *field.name.name) {
            lowerer.diagnostics.push(
                Diagnostic::error(
                    codes::E0203,
                    format!("field `{}` is declared twice", field.name.name),
                )
                .with_primary(field.name.span, "declared again here")
                .with_secondary(first.span, "first declared here"),
            );
        }
        let init = if field.buffer {
            buffer_value(&ty, field, lowerer.diagnostics);
            None
        } else {
            field_init(scope, &ty, field, is_model, lowerer.diagnostics)
        };
        let number_default = match (&ty.kind, is_model && !field.buffer) {
            (TyKind::Scalar(kind), true) => number_default(*kind, field, lowerer.diagnostics),
            _ => None,
        };
        out.push(FieldDef {
            name: field.name.name,
            span: field.name.span,
            ty,
            init,
            buffer: field.buffer,
            number_default,
        });
    }
    let generics = std::mem::take(&mut lowerer.generic_order);
    (out, generics)
}

/// E0407 for a field whose type is a model given the wrong number of
/// sizes, or a model (of a stack too) with a number field without a default:
/// nothing could give it a value when the model is made.
fn sub_model_sizes(scope: Scope, field: &ast::Field, diagnostics: &mut Vec<Diagnostic>) {
    let Scope { env, file, .. } = scope;
    if let ast::TypeKind::Stack { elem, .. } = &field.ty.kind {
        if let ast::TypeKind::Named { path, .. } = &elem.kind {
            if let Ok((_, Decl::Model(m))) = env.program.lookup(file, path) {
                required_numbers(m, elem.span, diagnostics);
            }
        }
    }
    if let ast::TypeKind::Named { path, args } = &field.ty.kind {
        let target = env.program.lookup(file, path).ok();
        if let Some((_, Decl::Model(m))) = target {
            required_numbers(m, field.ty.span, diagnostics);
            if m.size_params.len() != args.len() {
                diagnostics.push(
                    Diagnostic::error(
                        codes::E0407,
                        format!(
                            "model `{}` takes {} size{}, but {} {} given",
                            m.name.name,
                            m.size_params.len(),
                            if m.size_params.len() == 1 { "" } else { "s" },
                            args.len(),
                            if args.len() == 1 { "was" } else { "were" }
                        ),
                    )
                    .with_primary(field.ty.span, "wrong number of sizes")
                    .with_secondary(m.name.span, "the model is declared here"),
                );
            }
        }
    }
}

/// E0407 for each number field of the sub-model `m` without a default: a
/// sub-model is made with its sizes alone, so the field would have no value.
fn required_numbers(m: &ast::Model, at: Span, diagnostics: &mut Vec<Diagnostic>) {
    for f in &m.fields {
        if matches!(f.ty.kind, ast::TypeKind::Scalar(_)) && f.init.is_none() && !f.buffer {
            diagnostics.push(
                Diagnostic::error(
                    codes::E0407,
                    format!(
                        "model `{}` needs a value for its field `{}`, which a sub-model can't be given",
                        m.name.name, f.name.name
                    ),
                )
                .with_primary(at, "made with its sizes alone")
                .with_secondary(f.span, "a number field without a default")
                .with_help(format!(
                    "give the field a default in `{}`, as in `{}: {}`",
                    m.name.name,
                    f.name.name,
                    match &f.ty.kind {
                        ast::TypeKind::Scalar(s) if s.kind == ast::ScalarKind::Int => "Int = 4",
                        ast::TypeKind::Scalar(s) if s.kind == ast::ScalarKind::Bool => "Bool = true",
                        _ => "Float = 1e-5",
                    }
                )),
            );
        }
    }
}

/// How a field is initialised: a model's tensor field by its initialiser,
/// else normal for a matrix and zeros for a vector; E0412 for an
/// initialiser anywhere else.
fn field_init(
    scope: Scope,
    ty: &Ty,
    field: &ast::Field,
    is_model: bool,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Init> {
    match (&ty.kind, is_model) {
        (TyKind::Tensor(t), true) => {
            let rank = t.shape.as_ref().map_or(0, |s| s.len());
            Some(match &field.init {
                Some(e) => init::initialiser(scope, e, diagnostics),
                None if rank >= 2 => Init::Normal {
                    mean: InitExpr::Float(0.0),
                    std: InitExpr::Float(0.02),
                },
                None => Init::Zeros,
            })
        }
        // A model's number field's default is `number_default`'s.
        (TyKind::Scalar(_), true) => None,
        _ => {
            if let Some(e) = &field.init {
                diagnostics.push(
                    Diagnostic::error(
                        codes::E0412,
                        "only a model's tensor fields have initialisers",
                    )
                    .with_primary(e.span, "initialiser here")
                    .with_help(
                        "remove it: sub-models and record fields are made by their own code; a model's `Float`, `Int` or `Bool` field takes a literal, as in `eps: Float = 1e-5`",
                    ),
                );
            }
            None
        }
    }
}

/// The default of a model's number field (`eps: Float = 1e-5`): a literal
/// of the field's type, an `Int` one for a `Float` too, optionally negated;
/// E0412 for anything else. It is the constructor argument's default in
/// Python (`docs/shapescript/python.md`), so it must be a constant there.
fn number_default(
    kind: ast::ScalarKind,
    field: &ast::Field,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<NumberDefault> {
    let e = field.init.as_ref()?;
    let (negated, literal) = match &e.kind {
        ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand,
        } => (true, &operand.kind),
        other => (false, other),
    };
    let value = match (kind, literal) {
        (ast::ScalarKind::Float, ast::ExprKind::Float(v)) => Some(NumberDefault::Float(*v)),
        (ast::ScalarKind::Float, ast::ExprKind::Int(v)) => Some(NumberDefault::Float(*v as f64)),
        (ast::ScalarKind::Int, ast::ExprKind::Int(v)) => {
            i128::try_from(*v).ok().map(NumberDefault::Int)
        }
        (ast::ScalarKind::Bool, ast::ExprKind::Bool(b)) if !negated => {
            Some(NumberDefault::Bool(*b))
        }
        _ => None,
    };
    let Some(value) = value else {
        let example = match kind {
            ast::ScalarKind::Float => "eps: Float = 1e-5",
            ast::ScalarKind::Int => "n: Int = 4",
            ast::ScalarKind::Bool => "causal: Bool = true",
        };
        diagnostics.push(
            Diagnostic::error(codes::E0412, "a number field's default is a literal")
                .with_primary(e.span, "not a literal of the field's type")
                .with_help(format!(
                    "write the number itself, as in `{example}`, or leave the default out to make it a required argument"
                )),
        );
        return None;
    };
    Some(match (negated, value) {
        (true, NumberDefault::Float(v)) => NumberDefault::Float(-v),
        (true, NumberDefault::Int(v)) => NumberDefault::Int(-v),
        (_, v) => v,
    })
}

/// A buffer is a tensor with a value (E0412 otherwise); the value itself
/// is checked with the bodies.
fn buffer_value(ty: &Ty, field: &ast::Field, diagnostics: &mut Vec<Diagnostic>) {
    let problem = match (&ty.kind, &field.init) {
        (TyKind::Tensor(_) | TyKind::Error, Some(_)) => return,
        (TyKind::Tensor(_) | TyKind::Error, None) => "a buffer needs a value",
        _ => "a buffer is a tensor",
    };
    diagnostics.push(
        Diagnostic::error(codes::E0412, problem)
            .with_primary(field.span, format!("buffer `{}`", field.name.name))
            .with_help(format!(
                "write its tensor type and the expression it is computed from: `buffer {}: [n] = zeros([n])`",
                field.name.name
            )),
    );
}

/// The signature a buffer's value is checked against: no parameters, the
/// model's size parameters known, the buffer's type returned.
pub fn buffer_signature(size_params: &[Name], ty: &Ty) -> Signature {
    Signature {
        params: Vec::new(),
        ret: Some(ty.clone()),
        generics: size_params.to_vec(),
        python: None,
    }
}

/// A method's signature: its types see the model's size parameters.
fn method_signature(scope: Scope, f: &ast::Fn, diagnostics: &mut Vec<Diagnostic>) -> Signature {
    let mut lowerer = Lowerer::new(scope.env, scope.file, diagnostics);
    lowerer.generic_order = scope.size_params.to_vec();
    let mut params = Vec::new();
    for p in &f.params {
        lowerer.place = Place::Param;
        let ty = lowerer.lower_type(&p.ty);
        params.push(ParamSig {
            name: p.name.name,
            ty,
            span: p.span,
        });
    }
    lowerer.place = Place::Return;
    let ret = f.ret.as_ref().map(|r| lowerer.lower_type(r));
    Signature {
        params,
        ret,
        generics: std::mem::take(&mut lowerer.generic_order),
        python: None,
    }
}

/// The type of `self` in a method of `model`: its size parameters as themselves.
pub fn self_ty(models: &Models, file: FileId, model: Name, span: Span) -> Ty {
    let args = models
        .get(file, model)
        .map(|m| {
            m.def
                .size_params
                .iter()
                .map(|p| Size::computed(Poly::symbol(Symbol::Generic(*p))))
                .collect()
        })
        .unwrap_or_default();
    Ty {
        kind: TyKind::Named {
            file,
            name: model,
            args,
        },
        span,
    }
}

/// Replaces a model's size parameters by a use's arguments.
pub fn instantiate(ty: &Ty, size_params: &[Name], args: &[Size]) -> Ty {
    if size_params.is_empty() {
        return flatten_ty(ty);
    }
    let value = |s: &Symbol| match s {
        Symbol::Generic(n) => size_params
            .iter()
            .position(|p| p == n)
            .and_then(|i| args.get(i))
            .map(|a| a.poly.clone()),
        _ => None,
    };
    map_sizes(&flatten_ty(ty), &mut |p: &Poly| {
        p.substitute(&value).unwrap_or_else(|_| p.clone())
    })
}
