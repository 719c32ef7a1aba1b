//! Finding who a call calls: a fn, an extern fn, a library stub, a built-in,
//! a method, `m(x)` as `forward`, another file's function or a record.
//! Below `call`, which checks the arguments against what it finds.

use syntax::Name;

use diag::{Diagnostic, FileId, Span};
use syntax::ast::{self};

use super::FnChecker;
use crate::program::Decl;
use crate::shape::show_ty;
use crate::typed::{Callee, ExprInfo};
use crate::types::{Ty, TyKind};

use crate::codes;
use crate::signature::Signature;
use crate::size::Size;

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
    /// Who `callee` names: a function of this file, a built-in, a library
    /// stub, another file's function, a method, or a model value's
    /// `forward`; E0301 or E0409 when nothing fits.
    pub(super) fn resolve_callee(&mut self, callee: &ast::Expr) -> Resolved<'c> {
        match &callee.kind {
            ast::ExprKind::Name(n) if self.local(n.name).is_none() => self.resolve_name(n),
            ast::ExprKind::Field { base, name } => self.resolve_field(callee, base, name),
            _ => {
                let ty = self.expr(callee);
                self.forward_of(&ty, callee.span)
            }
        }
    }

    /// The names a plain call may call: this file's and the library's
    /// top-level names and the built-ins, for "did you mean".
    fn callable_names(&self) -> Vec<&'static str> {
        let program = self.ctx.env.program;
        let files = std::iter::once(self.file).chain(self.ctx.library.iter().map(|&(f, _)| f));
        let callable = |module: &'a crate::program::Module, name: Name| {
            let decl = module.decl(name)?;
            matches!(
                decl,
                Decl::Fn(_) | Decl::ExternFn(_) | Decl::Model(_) | Decl::Record(_)
            )
            .then_some(name.as_str())
        };
        let declared = files.flat_map(|f| {
            let module = program.module(f);
            module
                .top_level_names()
                .filter_map(move |n| callable(module, n))
        });
        let builtins = crate::builtin_names::Builtin::ALL.iter().map(|b| b.name());
        declared.chain(builtins).collect()
    }

    /// A plain name that is no local: this file's declaration, a built-in
    /// or a library stub, in that order (E0301 for none).
    fn resolve_name(&mut self, n: &ast::Ident) -> Resolved<'c> {
        let ctx = self.ctx;
        if let Some(decl) = ctx.env.program.decl(self.file, n.name) {
            return self.resolve_decl(self.file, decl, n);
        }
        if crate::builtins::is_builtin(&n.name) {
            self.note_builtin(n.span, n.name);
            return Resolved::Builtin(n.name);
        }
        if let Some((file, decl)) = crate::prelude::stub(ctx.env.program, ctx.library, &n.name) {
            return self.resolve_decl(file, decl, n);
        }
        let help = match diag::closest(n.name.as_str(), self.callable_names()) {
            Some(best) => format!("a function with a similar name exists: `{best}`"),
            None => "declare it with `fn` or `extern fn`, or import the file that has it and write `file.name`".to_string(),
        };
        self.diagnostics.push(
            Diagnostic::error(codes::E0301, format!("cannot find function `{}`", n.name))
                .with_primary(
                    n.span,
                    "not declared in this file, the prelude or the built-ins",
                )
                .with_help(help),
        );
        Resolved::Failed
    }

    /// `base.name` called: another file's function (`file.f`), a method,
    /// or a field holding a sub-model (its `forward`).
    fn resolve_field(
        &mut self,
        callee: &ast::Expr,
        base: &ast::Expr,
        name: &ast::Ident,
    ) -> Resolved<'c> {
        let ctx = self.ctx;
        if let ast::ExprKind::Name(file) = &base.kind {
            if self.local(file.name).is_none() {
                if let Some(Decl::Import(_, target)) = ctx.env.program.decl(self.file, file.name) {
                    self.note_decl(file.span, self.file, file.name);
                    let Some(target) = target else {
                        return Resolved::Failed;
                    };
                    return match ctx.env.program.decl(target, name.name) {
                        Some(decl) => self.resolve_decl(target, decl, name),
                        None => {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    codes::E0301,
                                    format!("cannot find `{}` in `{}`", name.name, file.name),
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
                    self.note_member(name.span, *file, *model, name.name);
                    let params = method_params(ctx, *file, *model, name.name);
                    return Resolved::Target(Target {
                        signature,
                        params,
                        name: TargetName {
                            model: Some(*model),
                            name: name.name,
                        },
                        callee: Callee::Method {
                            file: *file,
                            model: *model,
                            method: name.name,
                        },
                        receiver: Some((info.def.size_params.clone(), args.clone())),
                    });
                }
                let field = info.def.fields.iter().any(|f| *f.name == *name.name)
                    || (info.def.is_model && name.name == "training");
                if !field {
                    self.no_such_member(Some(info), *model, name, true);
                    self.record(callee.span, super::error_ty(callee.span), ExprInfo::Plain);
                    return Resolved::Failed;
                }
                // A field holding a sub-model: `self.mlp(x)` calls its forward.
                let field_ty = self.expr(callee);
                self.forward_of(&field_ty, callee.span)
            }
            TyKind::Error => Resolved::Failed,
            _ => {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0409,
                        format!("`{}` has no method `{}`", show_ty(&base_ty), name.name),
                    )
                    .with_primary(name.span, "no such method")
                    .with_note("only models have methods"),
                );
                Resolved::Failed
            }
        }
    }

    /// `m(x)` for a value `m` of a model type: its `forward`.
    pub(super) fn forward_of(&mut self, ty: &Ty, span: Span) -> Resolved<'c> {
        let ctx = self.ctx;
        match &ty.kind {
            TyKind::Error => Resolved::Failed,
            TyKind::Named { file, name, args } => {
                let Some(info) = ctx.models.get(*file, name) else {
                    return Resolved::Failed;
                };
                let forward = Name::new("forward");
                match info.methods.get(&forward) {
                    Some((signature, _)) => Resolved::Target(Target {
                        signature,
                        params: method_params(ctx, *file, *name, forward),
                        name: TargetName {
                            model: Some(*name),
                            name: forward,
                        },
                        callee: Callee::Method {
                            file: *file,
                            model: *name,
                            method: forward,
                        },
                        receiver: Some((info.def.size_params.clone(), args.clone())),
                    }),
                    None => {
                        self.diagnostics.push(
                            Diagnostic::error(codes::E0409, format!("model `{name}` has no `forward` method"))
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
                    Diagnostic::error(codes::E0408, format!("`{}` can't be called", show_ty(ty)))
                        .with_primary(span, "not a function or model"),
                );
                Resolved::Failed
            }
        }
    }

    pub(super) fn resolve_decl(
        &mut self,
        file: FileId,
        decl: Decl<'c>,
        name: &ast::Ident,
    ) -> Resolved<'c> {
        let ctx = self.ctx;
        self.note_decl(name.span, file, name.name);
        let key = (file, name.name);
        let (params, python) = match decl {
            Decl::Fn(f) => (&f.params[..], None),
            Decl::ExternFn(f) => (&f.params[..], Some(())),
            Decl::Record(r) => return Resolved::Record(file, r.name.name),
            other => {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0408,
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
                name: key.1,
                python: *p,
            },
            (Some(()), None) => return Resolved::Failed,
            _ => Callee::Fn { file, name: key.1 },
        };
        Resolved::Target(Target {
            signature,
            params,
            name: TargetName {
                model: None,
                name: name.name,
            },
            callee,
            receiver: None,
        })
    }
}

pub(crate) enum Resolved<'s> {
    Target(Target<'s>),
    Builtin(Name),
    Record(FileId, Name),
    Failed,
}

/// A method's declared parameters; names compare as interned, by address.
fn method_params<'p>(
    ctx: &super::Ctx<'p>,
    file: FileId,
    model: Name,
    method: Name,
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
