//! What the generator looks up: the checker's program and the prelude's
//! stubs, signatures of functions and methods lowered to the checker's types
//! (aliases replaced, dims resolved), and how a declaration is named in
//! Python from a given module. Never emits code.

use std::path::PathBuf;
use std::sync::Arc;

use check::lower::{Env, Interner, Lowerer, Place};
use check::program::{Decl, Module};
use check::types::Ty;
use check::{Checked, MemoryFiles};
use diag::{FileId, SourceMap};
use syntax::ast;

use crate::names::{module_name, py_name};
use crate::Options;

/// The prelude's extern stubs, checked on their own.
pub struct Prelude {
    checked: Checked,
    map: SourceMap,
}

impl Prelude {
    pub fn load() -> Prelude {
        let mut files = MemoryFiles::new();
        files.insert("prelude.ss", include_str!("../../check/src/prelude.ss"));
        files.insert("nn.ss", include_str!("../../check/src/nn.ss"));
        let mut map = SourceMap::new();
        let roots = [PathBuf::from("prelude.ss"), PathBuf::from("nn.ss")];
        let checked = check::check(&mut map, &files, &roots, &Default::default());
        Prelude { checked, map }
    }
}

/// A signature as the generator uses it.
#[derive(Clone, Debug)]
pub struct Sig {
    pub params: Vec<(String, Ty, Option<ast::Expr>)>,
    pub ret: Option<Ty>,
    /// The generic axes, in order of first use.
    pub generics: Vec<Arc<str>>,
    /// The dotted Python name of an extern.
    pub python: Option<String>,
}

/// What a name used in a body means.
pub enum Callee<'a> {
    Fn(FileId, &'a ast::Fn),
    Extern(Box<Sig>),
    Model(FileId, &'a ast::Model),
    Record(FileId, &'a ast::Record),
}

pub struct Gen<'a> {
    pub checked: &'a Checked,
    pub map: &'a SourceMap,
    pub prelude: &'a Prelude,
    pub options: &'a Options,
    pub names: Interner,
    prelude_names: Interner,
}

impl<'a> Gen<'a> {
    pub fn new(
        checked: &'a Checked,
        map: &'a SourceMap,
        prelude: &'a Prelude,
        options: &'a Options,
    ) -> Self {
        Gen {
            checked,
            map,
            prelude,
            options,
            names: Interner::default(),
            prelude_names: Interner::default(),
        }
    }

    fn env(&self) -> Env<'_> {
        Env {
            program: &self.checked.program,
            map: self.map,
            dims: &self.checked.dims,
            aliases: &self.checked.aliases,
            names: &self.names,
        }
    }

    /// Lowers a signature written in `file`; `size_params` (a model's) are
    /// known generic names before the first parameter.
    pub fn lower_sig(
        &self,
        file: FileId,
        params: &[ast::Param],
        ret: Option<&ast::Type>,
        size_params: &[ast::Ident],
    ) -> Sig {
        let mut scratch = Vec::new();
        let mut lowerer = Lowerer::new(self.env(), file, &mut scratch);
        for p in size_params {
            lowerer.generic_order.push(self.names.intern(&p.name));
        }
        lowerer.place = Place::Param;
        let params = params
            .iter()
            .map(|p| {
                (
                    p.name.name.clone(),
                    lowerer.lower_type(&p.ty),
                    p.default.clone(),
                )
            })
            .collect();
        lowerer.place = Place::Return;
        let ret = ret.map(|t| lowerer.lower_type(t));
        Sig {
            params,
            ret,
            generics: lowerer.generic_order.clone(),
            python: None,
        }
    }

    /// Lowers one type in `file`, new names becoming generic axes.
    pub fn lower_type(&self, file: FileId, ty: &ast::Type, known: &[Arc<str>]) -> Ty {
        let mut scratch = Vec::new();
        let mut lowerer = Lowerer::new(self.env(), file, &mut scratch);
        lowerer.generic_order.extend(known.iter().cloned());
        lowerer.place = Place::Param;
        lowerer.lower_type(ty)
    }

    pub fn module(&self, file: FileId) -> &'a Module {
        self.checked.program.module(file)
    }

    /// What a plain name in `file` calls: the file's own declaration, else a prelude stub.
    pub fn lookup_callee(&self, file: FileId, path: &ast::Path) -> Option<Callee<'a>> {
        match self.checked.program.lookup(file, path) {
            Ok((target, decl)) => return self.callee(target, decl),
            Err(_) if path.file.is_some() => return None,
            Err(_) => {}
        }
        self.prelude_extern(&path.name.name)
            .map(|sig| Callee::Extern(Box::new(sig)))
    }

    fn callee(&self, target: FileId, decl: Decl<'a>) -> Option<Callee<'a>> {
        Some(match decl {
            Decl::Fn(f) => Callee::Fn(target, f),
            Decl::ExternFn(f) => {
                let mut sig = self.lower_sig(target, &f.params, f.ret.as_ref(), &[]);
                sig.python = f.python.as_ref().map(|p| p.value.clone());
                Callee::Extern(Box::new(sig))
            }
            Decl::Model(m) => Callee::Model(target, m),
            Decl::Record(r) => Callee::Record(target, r),
            _ => return None,
        })
    }

    /// A prelude stub by name.
    pub fn prelude_extern(&self, name: &str) -> Option<Sig> {
        let checked = &self.prelude.checked;
        for module in &checked.program.modules {
            let key = (module.file, self.prelude_names.intern(name));
            if let Some(sig) = checked.signatures.get(&key) {
                return Some(Sig {
                    params: sig
                        .params
                        .iter()
                        .zip(extern_defaults(module, name))
                        .map(|(p, d)| (p.name.to_string(), p.ty.clone(), d))
                        .collect(),
                    ret: sig.ret.clone(),
                    generics: sig.generics.clone(),
                    python: sig.python.clone(),
                });
            }
        }
        let _ = &self.prelude.map;
        None
    }

    /// How module `from` names the declaration `name` of module `target` in Python.
    pub fn qualified(&self, from: FileId, target: FileId, name: &str) -> String {
        if from == target {
            py_name(name)
        } else {
            format!("{}.{}", self.module_alias(target), py_name(name))
        }
    }

    /// The Python name module files use for the generated module of `target`.
    pub fn module_alias(&self, target: FileId) -> String {
        module_name(&self.module(target).name)
    }

    /// A dim's Python expression from `from`: its constant.
    pub fn dim(&self, from: FileId, target: FileId, name: &str) -> String {
        self.qualified(from, target, name)
    }

    /// The model `name` declared in `file`.
    pub fn model(&self, file: FileId, name: &str) -> Option<&'a ast::Model> {
        match self.checked.program.decl(file, name)? {
            Decl::Model(m) => Some(m),
            _ => None,
        }
    }

    pub fn record(&self, file: FileId, name: &str) -> Option<&'a ast::Record> {
        match self.checked.program.decl(file, name)? {
            Decl::Record(r) => Some(r),
            _ => None,
        }
    }

    /// `file.ss:LINE` for a byte offset.
    pub fn where_(&self, file: FileId, offset: u32) -> String {
        let name = self.map.name(file);
        let short = std::path::Path::new(name)
            .file_name()
            .map_or(name.to_string(), |n| n.to_string_lossy().into_owned());
        format!("{short}:{}", self.map.line_col(file, offset).line)
    }
}

/// The default expressions of a prelude stub's parameters.
fn extern_defaults(module: &Module, name: &str) -> Vec<Option<ast::Expr>> {
    for item in &module.ast.items {
        if let ast::Item::ExternFn(f) = item {
            if f.name.name == name {
                return f.params.iter().map(|p| p.default.clone()).collect();
            }
        }
    }
    Vec::new()
}
