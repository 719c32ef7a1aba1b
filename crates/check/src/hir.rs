//! The checker's one public view of a checked program, as rust-analyzer's
//! `hir` is: the program's modules and declarations, every value's and
//! expression's type and what to emit for it, the built-ins, and where each
//! written name was resolved to. `pygen` and `lsp` read only this (and
//! `Checked`); the modules that compute it stay private, so they can change
//! without breaking either. Plain re-exports and read-only questions; it
//! checks nothing itself.

use std::sync::Arc;

use diag::{FileId, SourceMap, Span};
use syntax::ast;

use crate::Checked;

pub use crate::alias::Aliases;
pub use crate::builtin_names::Builtin;
pub use crate::dims::DimValues;
pub use crate::program::{Decl, Module, Program};
pub use crate::signature::{ParamSig, Signature, Signatures};
pub use crate::size::{Formula, Poly, Size, Step, Symbol};
pub use crate::typed::{
    Alignment, AsCheck, Binding, Bodies, Body, BoundArg, CallInfo, Callee, ExprInfo, FieldDef,
    GenericSource, IndexPlan, Init, LayoutPlan, PatternPlan, Range, ToPlan, TypeDef, TypedExpr,
};
pub use crate::types::{
    show_shape, Axis, AxisKind, Domain, DtypeKind, ScalarKind, TensorTy, Ty, TyKind,
};

impl Checked {
    /// The axes the shape alias declared at `name` (its declaring name's
    /// span) stands for, its own aliases replaced, as the checker lowers it;
    /// `None` when no alias is declared there.
    pub fn alias_axes(&self, map: &SourceMap, name: Span) -> Option<Arc<[Axis]>> {
        let module = self.program.get_module(name.file)?;
        let list = module.ast.items.iter().find_map(|item| match item {
            ast::Item::Dim(d) if d.name.span == name => match &d.value {
                ast::DimValue::Alias(list) => Some(list),
                ast::DimValue::Size(_) => None,
            },
            _ => None,
        })?;
        Some(self.lower_alias(map, name.file, list))
    }

    fn lower_alias(&self, map: &SourceMap, file: FileId, list: &ast::ShapeList) -> Arc<[Axis]> {
        let alias_cache = crate::lower::AliasCache::default();
        let env = crate::lower::Env {
            program: &self.program,
            map,
            dims: &self.dims,
            aliases: &self.aliases,
            alias_cache: &alias_cache,
        };
        // Its mistakes were reported when the program was checked.
        let mut sink = Vec::new();
        let mut lowerer = crate::lower::Lowerer::new(env, file, &mut sink);
        lowerer.place = crate::lower::Place::AliasDecl;
        lowerer.lower_shape(list, file).into()
    }
}
