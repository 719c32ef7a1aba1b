//! A declarations-only file that no program imports (the language server's
//! `builtins.ss`): its signatures are lowered alone, as the checker lowers
//! any file's, only to record what each name written in them resolves to.
//! Its mistakes, if any, are dropped: the file is generated and checked
//! clean by a test (`builtins::tests`).

use std::path::PathBuf;

use diag::{FileId, SourceMap, Span};
use syntax::ast;

use crate::program::{Module, Program};
use crate::resolved::{Recorder, TypeName, TypeNames};

/// The names of one declarations-only file, resolved.
pub struct Declarations {
    /// A program of that one file: its table is where its names are found.
    program: Program,
    names: TypeNames,
}

impl Declarations {
    /// Lowers the declarations of `ast`, file `file` of `map`, recording
    /// what their names resolve to.
    pub fn resolve(map: &SourceMap, file: FileId, ast: &ast::File) -> Declarations {
        let mut dropped = Vec::new();
        let names = crate::load::top_level_names(ast, &mut dropped);
        let slot = file.0 as usize;
        let mut by_file = vec![usize::MAX; slot + 1];
        by_file[slot] = 0;
        let program = Program {
            modules: vec![Module {
                file,
                path: PathBuf::from(map.name(file)),
                name: String::new(),
                ast: ast.clone(),
                imports: Default::default(),
                names,
                parse_errors: Vec::new(),
            }],
            by_file,
        };
        let record = Recorder::default();
        let dims = crate::dims::evaluate(&program, map, &mut dropped, Some(&record));
        let aliases = crate::alias::find_cycles(&program, map, &mut dropped);
        let alias_cache = crate::lower::AliasCache::default();
        let env = crate::lower::Env {
            program: &program,
            map,
            dims: &dims,
            aliases: &aliases,
            alias_cache: &alias_cache,
            resolutions: Some(&record),
        };
        crate::signature::check_all(env, &mut dropped);
        Declarations {
            names: record.finish(),
            program,
        }
    }

    /// The declaring name of what the name written at `span` means: one of
    /// the file's declarations, or a generic axis of the signature it is in
    /// (its first occurrence there).
    pub fn name_decl_span(&self, span: Span) -> Option<Span> {
        match self.names.get(span)? {
            TypeName::Decl { file, name } => Some(self.program.decl(file, name)?.name_span()),
            TypeName::Generic(name) => {
                let module = self.program.get_module(span.file)?;
                let item = module
                    .ast
                    .items
                    .iter()
                    .find(|i| i.span().start <= span.start && span.end <= i.span().end)?;
                let scope = item.span();
                self.names
                    .first_generic(span.file, scope.start, scope.end, name)
            }
            TypeName::Declared(decl) => Some(decl),
            TypeName::Builtin(_) => None,
        }
    }
}
