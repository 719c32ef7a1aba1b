//! What the generator looks up: the checker's program (declarations,
//! imports) and how a declaration is named in Python from a given module,
//! and `file.ss:LINE` comments. Types come from `check::typed`, never from here.

use check::hir::{Decl, Module};
use check::Checked;
use diag::{FileId, SourceMap};
use syntax::ast;

use crate::names::{ModuleNames, ProgramNames};
use crate::Options;

pub struct Gen<'a> {
    pub checked: &'a Checked,
    pub map: &'a SourceMap,
    pub options: &'a Options,
    /// Every Python name the package binds (`names`).
    pub names: ProgramNames,
}

impl<'a> Gen<'a> {
    pub fn new(checked: &'a Checked, map: &'a SourceMap, options: &'a Options) -> Self {
        Gen {
            checked,
            map,
            options,
            names: ProgramNames::new(checked),
        }
    }

    /// The Python names of module `file`.
    pub fn names(&self, file: FileId) -> &ModuleNames {
        self.names.module(file)
    }

    pub fn module(&self, file: FileId) -> &'a Module {
        self.checked.program.module(file)
    }

    /// How module `from` names the declaration `name` of module `target` in Python.
    pub fn qualified(&self, from: FileId, target: FileId, name: &str) -> String {
        let py = self.names(target).decl(name);
        if from == target {
            py
        } else {
            format!("{}.{py}", self.module_alias(target))
        }
    }

    /// The Python name module files use for the generated module of `target`.
    pub fn module_alias(&self, target: FileId) -> String {
        self.names(target).alias.clone()
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
