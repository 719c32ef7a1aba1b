//! The checker's one public view of a checked program, as rust-analyzer's
//! `hir` is: the program's modules and declarations, every value's and
//! expression's type and what to emit for it, the built-ins, and where each
//! written name was resolved to. `pygen` and `lsp` read only this (and
//! `Checked`); the modules that compute it stay private, so they can change
//! without breaking either. Plain re-exports and read-only questions; it
//! checks nothing itself.

use std::sync::Arc;

use diag::{FileId, SourceMap, Span};
use syntax::{ast, Name};

use crate::Checked;

pub use crate::alias::Aliases;
pub use crate::builtin_names::Builtin;
pub use crate::declarations::Declarations;
pub use crate::dims::DimValues;
pub use crate::program::{Decl, Module, Program};
pub use crate::resolved::{TypeName, TypeNames};
pub use crate::signature::{ParamSig, Signature, Signatures};
pub use crate::size::{Formula, Poly, Size, Step, Symbol};
pub use crate::typed::{
    Alignment, AsCheck, Binding, Bodies, Body, BoundArg, CallInfo, Callee, ExprInfo, FieldDef,
    FieldStep, FloatSource, GenericSource, IndexPlan, Init, InitExpr, InitFn, InitOp, LayoutPlan,
    NumberDefault, PatternPlan, Range, ToPlan, TypeDef, TypedExpr,
};
pub use crate::types::{
    show_shape, Axis, AxisKind, Domain, DtypeKind, ScalarKind, TensorTy, Ty, TyKind,
};

/// What a plain name written in a checked body means, as the checker
/// resolved it while typing the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// A parameter, `let` or loop variable: where its name is declared.
    Local { decl: Span },
    /// A dim used as a value: the file that declares it, and its name there.
    Dim { file: FileId, name: Name },
    /// A generic axis or a model's size parameter used as a value.
    Generic(Name),
}

impl Checked {
    /// How the checker resolved the plain name written at `span` (a name
    /// expression of a body); `None` where it resolved nothing: a failed
    /// expression, a name that isn't a value, or a body it didn't check (a
    /// file with a syntax error).
    pub fn name_resolution(&self, span: Span) -> Option<Resolution> {
        match &self.bodies.expr(span)?.info {
            ExprInfo::Local { decl } => Some(Resolution::Local { decl: *decl }),
            ExprInfo::SizeValue { size } => match size.poly.as_symbol()? {
                Symbol::Dim { file, name } => Some(Resolution::Dim {
                    file: *file,
                    name: *name,
                }),
                Symbol::Generic(name) => Some(Resolution::Generic(*name)),
                _ => None,
            },
            _ => None,
        }
    }

    /// What the name written at `span` means (in a body, a type, a
    /// signature, an alias declaration, a cast or a dim's value; `file.` of
    /// `file.Name` included), as the checker resolved it; recorded only
    /// when `Options::resolutions` is on, and `None` where nothing was
    /// resolved (a mistake).
    pub fn type_name_resolution(&self, span: Span) -> Option<TypeName> {
        self.type_names.get(span)
    }

    /// Where generic axis `name`, used at `span` (in a type or a body), is
    /// declared: a model's size parameter, else its first occurrence in
    /// the types of the enclosing function, record or alias declaration,
    /// where an alias used before it counts as its axes (the generic is
    /// then declared in the alias's declaration). Needs
    /// `Options::resolutions`.
    pub fn generic_decl_span(&self, span: Span, name: Name) -> Option<Span> {
        self.generic_decl_at(span, name, 0)
    }

    /// `generic_decl_span`, `depth` aliases deep.
    fn generic_decl_at(&self, span: Span, name: Name, depth: u32) -> Option<Span> {
        let module = self.program.get_module(span.file)?;
        let inside = |s: Span| s.start <= span.start && span.end <= s.end;
        // Items are in source order and never overlap: the last one starting
        // at or before `span` is the only one that may hold it. A search, not
        // a scan: the server asks this for every generic axis written, and a
        // scan made a file of 20,000 functions quadratic.
        let items = &module.ast.items;
        let after = items.partition_point(|i| i.span().start <= span.start);
        let item = after
            .checked_sub(1)
            .map(|i| &items[i])
            .filter(|i| inside(i.span()))?;
        let scope = match item {
            ast::Item::Model(m) => {
                if let Some(param) = m.size_params.iter().find(|p| p.name == name) {
                    return Some(param.span);
                }
                let method = m.methods.iter().find(|f| inside(f.span));
                method.map_or(m.span, |f| f.span)
            }
            _ => item.span(),
        };
        let written = self
            .type_names
            .first_generic(span.file, scope.start, scope.end, name);
        // Aliases nest a few deep at most; the bound only stops a cycle,
        // which was reported.
        if depth > 16 {
            return written;
        }
        let until = written.map_or(scope.end, |s| s.start);
        let aliases = self.type_names.decls_in(span.file, scope.start, until);
        for (_, file, alias) in aliases {
            if let Some(Decl::Alias(d, _)) = self.program.get_module(file)?.decl(alias) {
                if let Some(found) = self.generic_decl_at(d.name.span, name, depth + 1) {
                    return Some(found);
                }
            }
        }
        written
    }

    /// The declaring name of what the name written at `span` means (in a
    /// body, a type, a signature, an alias declaration or a dim's value):
    /// a parameter, a `let`, `self`'s parameter, a field, a method, a
    /// pattern axis, a generic axis, a top-level declaration. `None` for a
    /// built-in (see `type_name_resolution`) and where nothing was
    /// resolved. Needs `Options::resolutions`.
    pub fn name_decl_span(&self, span: Span) -> Option<Span> {
        match self.type_names.get(span)? {
            TypeName::Decl { file, name } => self.decl_name_span(file, name),
            TypeName::Generic(name) => self.generic_decl_span(span, name),
            TypeName::Declared(decl) => Some(decl),
            TypeName::Builtin(_) => None,
        }
    }

    /// The declaring name of top-level `name` in `file`: the first
    /// declaration of that name, as every lookup finds it.
    pub fn decl_name_span(&self, file: FileId, name: Name) -> Option<Span> {
        Some(self.program.decl(file, name)?.name_span())
    }

    /// The declaring name of member `member` (a field or method) of model
    /// or record `owner` declared in `file`.
    pub fn member_name_span(&self, file: FileId, owner: Name, member: Name) -> Option<Span> {
        crate::body::names::member_span(&self.program, file, owner, member)
    }

    /// The declaring name of what a checked call calls; `None` for a
    /// built-in, which has no declaration.
    pub fn callee_name_span(&self, callee: &Callee) -> Option<Span> {
        match callee {
            Callee::Fn { file, name }
            | Callee::Extern { file, name, .. }
            | Callee::Record { file, name } => self.decl_name_span(*file, *name),
            Callee::Method {
                file,
                model,
                method,
            } => self.member_name_span(*file, *model, *method),
            Callee::Builtin(_) => None,
        }
    }

    /// The declaring name of the parameter (or record field) that the
    /// argument whose value is at `value` binds in the checked call at
    /// `call`; `None` for a built-in, or an argument the call keeps as a
    /// position or a size rather than an expression.
    pub fn arg_param_span(&self, call: Span, value: Span) -> Option<Span> {
        let ExprInfo::Call(info) = &self.bodies.expr(call)?.info else {
            return None;
        };
        let index = info
            .args
            .iter()
            .position(|a| matches!(a, BoundArg::Expr { span, .. } if *span == value))?;
        self.param_name_span(&info.callee, index)
    }

    /// The declaring name of parameter `index` of what `callee` calls (a
    /// record's fields are its parameters).
    fn param_name_span(&self, callee: &Callee, index: usize) -> Option<Span> {
        let params = match callee {
            Callee::Fn { file, name } | Callee::Extern { file, name, .. } => {
                match self.program.decl(*file, *name)? {
                    Decl::Fn(f) => &f.params,
                    Decl::ExternFn(f) => &f.params,
                    _ => return None,
                }
            }
            Callee::Record { file, name } => match self.program.decl(*file, *name)? {
                Decl::Record(r) => return r.fields.get(index).map(|f| f.name.span),
                _ => return None,
            },
            Callee::Method {
                file,
                model,
                method,
            } => match self.program.decl(*file, *model)? {
                Decl::Model(m) => &m.methods.iter().find(|f| f.name.name == *method)?.params,
                _ => return None,
            },
            Callee::Builtin(_) => return None,
        };
        params.get(index).map(|p| p.name.span)
    }

    /// The declaring name of the field that the checked field expression
    /// at `span` (`base.name`) reads.
    pub fn field_name_span(&self, span: Span) -> Option<Span> {
        let ExprInfo::Field { file, owner, field } = &self.bodies.expr(span)?.info else {
            return None;
        };
        self.member_name_span(*file, *owner, *field)
    }

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
            resolutions: None,
        };
        // Its mistakes were reported when the program was checked.
        let mut sink = Vec::new();
        let mut lowerer = crate::lower::Lowerer::new(env, file, &mut sink);
        lowerer.place = crate::lower::Place::AliasDecl;
        lowerer.lower_shape(list, file).into()
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;
    use crate::{check_sources, Options};

    /// Checks `main.ss` and shows, for each plain name expression of its
    /// bodies, what `name_resolution` says: `name@line:col -> ...`.
    fn check(src: &str, expect: Expect) {
        let mut map = SourceMap::new();
        let checked = check_sources(&mut map, &[("main.ss", src)], &Options::default());
        let place = |span: Span| {
            let at = map.line_col(span.file, span.start);
            format!("{}:{}", at.line, at.col)
        };
        let mut lines = Vec::new();
        for body in checked
            .bodies
            .fns
            .iter()
            .filter(|b| !checked.library.iter().any(|(f, _)| *f == b.file))
        {
            for e in &body.exprs {
                let text = &map.text(e.span.file)[e.span.start as usize..e.span.end as usize];
                if !text.chars().all(|c| c.is_alphanumeric() || c == '_')
                    || text.starts_with(|c: char| c.is_ascii_digit())
                {
                    continue;
                }
                let what = match checked.name_resolution(e.span) {
                    Some(Resolution::Local { decl }) => {
                        format!("local declared at {}", place(decl))
                    }
                    Some(Resolution::Dim { file, name }) => {
                        let decl = checked.decl_name_span(file, name).map(place);
                        format!("dim {name} declared at {}", decl.unwrap_or_default())
                    }
                    Some(Resolution::Generic(name)) => format!("generic {name}"),
                    None => "nothing".to_string(),
                };
                lines.push(format!("{text}@{} -> {what}", place(e.span)));
            }
            for e in &body.exprs {
                match &e.info {
                    ExprInfo::Call(call) => {
                        let decl = checked.callee_name_span(&call.callee).map(place);
                        lines.push(format!(
                            "call@{} -> {}",
                            place(e.span),
                            decl.unwrap_or_default()
                        ));
                        for arg in &call.args {
                            let BoundArg::Expr { span, .. } = arg else {
                                continue;
                            };
                            let param = checked.arg_param_span(e.span, *span).map(place);
                            lines.push(format!(
                                "  arg@{} -> {}",
                                place(*span),
                                param.unwrap_or_default()
                            ));
                        }
                    }
                    ExprInfo::Field { field, .. } => {
                        let decl = checked.field_name_span(e.span).map(place);
                        lines.push(format!(
                            "field {field}@{} -> {}",
                            place(e.span),
                            decl.unwrap_or_default()
                        ));
                    }
                    _ => {}
                }
            }
        }
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn calls_and_fields_resolve_to_their_declarations() {
        check(
            "record R {\n  a: [n]\n}\nfn make(x: [n]) -> R = R(a=x)\nfn g(x: [n]) -> [n] = make(x).a\n",
            expect![[r#"
                x@4:28 -> local declared at 4:9
                call@4:24 -> 1:8
                  arg@4:28 -> 2:3
                x@5:28 -> local declared at 5:6
                call@5:23 -> 4:4
                  arg@5:28 -> 4:9
                field a@5:23 -> 2:3"#]],
        );
    }

    /// Checks `main.ss` with resolutions recorded and shows, for each name
    /// written in its types, what `type_name_resolution` says.
    fn check_types(src: &str, expect: Expect) {
        let mut map = SourceMap::new();
        let options = Options {
            resolutions: true,
            ..Options::default()
        };
        let checked = check_sources(&mut map, &[("main.ss", src)], &options);
        let main = checked.user_modules().next().expect("main.ss").file;
        let text = map.text(main).to_string();
        let mut lines = Vec::new();
        let mut start = 0;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if c.is_alphanumeric() || c == '_' {
                continue;
            }
            let span = Span::new(main, start as u32, i as u32);
            start = i + c.len_utf8();
            let Some(what) = checked.type_name_resolution(span) else {
                continue;
            };
            let at = map.line_col(main, span.start);
            let what = match what {
                TypeName::Decl { file, name } => {
                    let decl = checked.decl_name_span(file, name).expect("declared");
                    let to = map.line_col(decl.file, decl.start);
                    format!("{name} declared at {}:{}", to.line, to.col)
                }
                TypeName::Generic(name) => {
                    let decl = checked.generic_decl_span(span, name).expect("declared");
                    let to = map.line_col(decl.file, decl.start);
                    format!("generic {name} declared at {}:{}", to.line, to.col)
                }
                TypeName::Declared(decl) => {
                    let to = map.line_col(decl.file, decl.start);
                    format!("declared at {}:{}", to.line, to.col)
                }
                TypeName::Builtin(builtin) => format!("built-in {}", builtin.name()),
            };
            lines.push(format!("{}:{} -> {what}", at.line, at.col));
        }
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn names_in_types_resolve_when_recorded() {
        check_types(
            "dim D = 4\ndim Row = [n D]\nrecord R {\n  a: [m]\n}\nfn f(x: Row, r: R) -> [n (D 2)] = x\ndim E = D * 2\n",
            expect![[r#"
                2:12 -> generic n declared at 2:12
                2:14 -> D declared at 1:5
                4:7 -> generic m declared at 4:7
                6:9 -> Row declared at 2:5
                6:17 -> R declared at 3:8
                6:24 -> generic n declared at 2:12
                6:27 -> D declared at 1:5
                6:35 -> declared at 6:6
                7:9 -> D declared at 1:5"#]],
        );
    }

    #[test]
    fn body_names_resolve_when_recorded() {
        // An assignment, a failed call (`[m]` for `[n]`), its keyword, a
        // pattern's axes and the keyword naming one, a method, a built-in.
        check_types(
            "fn g(a: [n], b: [n]) -> [n] = a\nfn f(x: [n], z: [m]) -> [n] {\n  let y = x\n  y = g(y, b=z)\n  repeat(y, [n] -> [n r], r=2)\n}\n",
            expect![[r#"
                1:10 -> generic n declared at 1:10
                1:18 -> generic n declared at 1:10
                1:26 -> generic n declared at 1:10
                1:31 -> declared at 1:6
                2:10 -> generic n declared at 2:10
                2:18 -> generic m declared at 2:18
                2:26 -> generic n declared at 2:10
                3:11 -> declared at 2:6
                4:3 -> declared at 3:7
                4:7 -> g declared at 1:4
                4:9 -> declared at 3:7
                4:12 -> declared at 1:14
                4:14 -> declared at 2:14
                5:3 -> built-in repeat
                5:10 -> declared at 3:7
                5:14 -> declared at 5:14
                5:21 -> declared at 5:14
                5:23 -> declared at 5:23
                5:27 -> declared at 5:23"#]],
        );
    }

    #[test]
    fn bodies_plain_check_skips_resolve_when_recorded() {
        // A file with a syntax error, and a body whose signature has a
        // mistake (an unknown alias): both are checked only for names.
        check_types(
            "fn f(x: [n]) -> [n] {\n  let y = x\n  y\n}\nfn g(x: Nope) -> [n] = x\nfn h( -> \n",
            expect![[r#"
                1:10 -> generic n declared at 1:10
                1:18 -> generic n declared at 1:10
                2:11 -> declared at 1:6
                3:3 -> declared at 2:7
                5:24 -> declared at 5:6"#]],
        );
    }

    #[test]
    fn recording_names_changes_no_diagnostic() {
        let sources = [
            "fn f(x: [n]) -> [n] {\n  let y = x\n  y = y + 1\n  nope\n}\nfn g( -> \n",
            "fn g(x: Nope) -> [n] = x @ x\nfn f(x: [n], z: [m]) -> [n] = g(x, b=z)\n",
            "model M {\n  w: [4 4]\n  fn forward(self, x: [n 3]) -> [n 4] = self.g(x) + self.nope\n}\n",
        ];
        for src in sources {
            let mut shown = Vec::new();
            for resolutions in [false, true] {
                let mut map = SourceMap::new();
                let options = Options {
                    resolutions,
                    ..Options::default()
                };
                let checked = check_sources(&mut map, &[("main.ss", src)], &options);
                assert!(!checked.diagnostics.is_empty(), "{src}");
                shown.push(crate::tests::show(&map, &checked.diagnostics));
            }
            assert_eq!(shown[0], shown[1], "{src}");
        }
    }

    #[test]
    fn model_size_params_and_generic_axes_find_their_declarations() {
        check_types(
            "model M(Dm) {\n  w: [Dm Dm]\n  fn forward(self, x: [b Dm]) -> [b Dm] = x\n}\n",
            expect![[r#"
                2:7 -> generic Dm declared at 1:9
                2:10 -> generic Dm declared at 1:9
                3:24 -> generic b declared at 3:24
                3:26 -> generic Dm declared at 1:9
                3:35 -> generic b declared at 3:24
                3:37 -> generic Dm declared at 1:9
                3:43 -> declared at 3:20"#]],
        );
    }

    #[test]
    fn plain_check_records_no_resolutions() {
        let mut map = SourceMap::new();
        let src = "dim D = 4\nfn f(x: [n D]) -> [n D] = x\n";
        let checked = check_sources(&mut map, &[("main.ss", src)], &Options::default());
        let main = checked.user_modules().next().expect("main.ss").file;
        assert_eq!(checked.type_name_resolution(Span::new(main, 21, 22)), None);
    }

    #[test]
    fn names_in_bodies_resolve_to_their_declarations() {
        check(
            "dim D = 4\nfn f(x: [n D]) -> [n D] {\n  let y = x * D\n  let k = n\n  y\n}\n",
            expect![[r#"
                x@3:11 -> local declared at 2:6
                D@3:15 -> dim D declared at 1:5
                n@4:11 -> generic n
                y@5:3 -> local declared at 3:7"#]],
        );
    }
}
