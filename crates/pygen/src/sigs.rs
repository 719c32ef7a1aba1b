//! What the generator looks up: the checker's program (declarations,
//! imports) and how a declaration is named in Python from a given module,
//! and `file.ss:LINE` comments. Types come from `check::typed`, never from here.

use check::hir::{Decl, Module};
use check::Checked;
use diag::{FileId, SourceMap};
use syntax::ast;

use crate::names::{module_name, py_name};
use crate::Options;

pub struct Gen<'a> {
    pub checked: &'a Checked,
    pub map: &'a SourceMap,
    pub options: &'a Options,
}

impl<'a> Gen<'a> {
    pub fn new(checked: &'a Checked, map: &'a SourceMap, options: &'a Options) -> Self {
        Gen {
            checked,
            map,
            options,
        }
    }

    pub fn module(&self, file: FileId) -> &'a Module {
        self.checked.program.module(file)
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
