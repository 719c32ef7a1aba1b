//! Probes: an opt-in check (`Options::probes`) that each value a body names
//! and returns has the shape, dtype and range the checker inferred for it.
//! After each `let`, assignment and tuple unpacking, and around each
//! returned value, the emitted code calls `shapescript_runtime.probe` with
//! the checker's type of the value (`check::hir`): the sizes as Python
//! integers (`None` for an unknown size `?k`), the dtype, and the ends of
//! its range. The soundness tests (`docs/shapescript/soundness.md`) run
//! generated programs built this way; `shapescript build` never sets it.
//! Methods of `expr`'s `Scope`, kept apart so the emitter proper is
//! unchanged when probes are off.

use check::hir::{AxisKind, Domain, DtypeKind, ScalarKind, Ty, TyKind};
use diag::Span;
use syntax::ast::{self, StmtKind};

use crate::checks::Lines;
use crate::names::torch_dtype;
use crate::scope::Scope;
use crate::writer::{float_literal, string_literal};

/// How the emitted code names each user declaration (`f`, `Model`) and
/// each model's or record's member (`Model.w`), for the soundness harness
/// to find what it calls: `(ShapeScript name, Python name)`.
pub fn python_names(checked: &check::Checked) -> Vec<(String, String)> {
    let names = crate::names::ProgramNames::new(checked);
    let mut out = Vec::new();
    for module in checked.user_modules() {
        let m = names.module(module.file);
        for item in &module.ast.items {
            let (name, members): (_, Vec<syntax::Name>) = match item {
                ast::Item::Fn(f) => (f.name.name, Vec::new()),
                ast::Item::Model(model) => (
                    model.name.name,
                    model
                        .fields
                        .iter()
                        .map(|f| f.name.name)
                        .chain(model.methods.iter().map(|f| f.name.name))
                        .collect(),
                ),
                ast::Item::Record(r) => {
                    (r.name.name, r.fields.iter().map(|f| f.name.name).collect())
                }
                _ => continue,
            };
            out.push((name.to_string(), m.decl(&name)));
            if let Some(class) = m.class(&name) {
                for member in members {
                    out.push((format!("{name}.{member}"), class.attribute(&member)));
                }
            }
        }
    }
    out
}

/// The runtime's probe, appended to `shapescript_runtime.py` when probes
/// are on.
pub const PROBE_RUNTIME: &str = include_str!("probe_runtime.py");

impl Scope<'_, '_> {
    /// The probe lines after statement `stmt` (a `let`, an assignment or a
    /// tuple unpacking), when probes are on: one call per bound name.
    pub fn probe_after(&mut self, stmt: &ast::Stmt, indent: usize, out: &mut Lines) {
        if !self.gen.options.probes {
            return;
        }
        let at = self.gen.where_(self.file, stmt.span.start);
        match &stmt.kind {
            StmtKind::Let { name, value, .. } | StmtKind::Assign { name, value } => {
                if self.skipped_lets.contains(&name.span) {
                    return;
                }
                let target = match &stmt.kind {
                    StmtKind::Let { .. } => self.names.local(name.span).map(str::to_string),
                    _ => self.names.assigned(name.name),
                };
                let target = target.unwrap_or_else(|| name.name.to_string());
                if let Some(call) = self.probe_call(&target, value.span, &at) {
                    out.push((indent, call));
                }
            }
            StmtKind::LetTuple { names, value } => {
                let Some(TyKind::Tuple(items)) = self.ty(value.span).map(|t| &t.kind) else {
                    return;
                };
                for (name, item) in names.iter().zip(items) {
                    let target = self
                        .names
                        .local(name.span)
                        .map_or_else(|| name.name.to_string(), str::to_string);
                    let range = self.domain_range(item);
                    if let Some(call) = self.probe_ty(&target, item, range, &at) {
                        out.push((indent, call));
                    }
                }
            }
            _ => {}
        }
    }

    /// `code`, the value a body returns from the expression at `value`,
    /// wrapped in a probe when probes are on.
    pub fn probe_return(&mut self, value: Span, code: String) -> String {
        if !self.gen.options.probes {
            return code;
        }
        let at = self.gen.where_(self.file, value.start);
        match self.probe_call(&code, value, &at) {
            Some(call) => call,
            None => code,
        }
    }

    /// The probe call of `code`, the value of the expression at `span`.
    fn probe_call(&self, code: &str, span: Span, at: &str) -> Option<String> {
        let typed = self.typed(span)?;
        let range = typed.range.map(|r| {
            let end = |v: f64| {
                if v.is_finite() {
                    float_literal(v)
                } else {
                    "None".to_string()
                }
            };
            let open = |b: bool| if b { "True" } else { "False" };
            format!(
                "({}, {}, {}, {})",
                end(r.lo),
                end(r.hi),
                open(r.lo_open),
                open(r.hi_open)
            )
        });
        self.probe_ty(code, &typed.ty, range, at)
    }

    /// The range text of a tuple item's `Index[N]` domain, `[0, N - 1]`:
    /// the checker keeps no range per item, and a domain other than
    /// `Index` in an item's type names its kind of values, not a bound the
    /// range pass proved (that is the tuple's uses' business).
    fn domain_range(&self, ty: &Ty) -> Option<String> {
        let TyKind::Tensor(t) = &ty.kind else {
            return None;
        };
        let Some(Domain::Index(n)) = t.domain.as_ref() else {
            return None;
        };
        let n = self.size_code(n)?;
        Some(format!("(0, {n} - 1, False, False)"))
    }

    /// The probe call of `code` against type `ty` and the range text
    /// `(lo, hi, lo_open, hi_open)`; `None` for a type with nothing to
    /// probe (a model, a record, a failed expression).
    fn probe_ty(&self, code: &str, ty: &Ty, range: Option<String>, at: &str) -> Option<String> {
        let (shape, dtype) = match &ty.kind {
            TyKind::Tensor(t) => {
                let shape = match &t.shape {
                    Some(axes) => {
                        let sizes: Vec<String> = axes.iter().map(|a| self.axis_code(a)).collect();
                        crate::sizes::tuple(&sizes)
                    }
                    None => "None".to_string(),
                };
                (shape, self.dtype_code(t.dtype, t.domain.as_ref()))
            }
            TyKind::Scalar(kind) => {
                let hint = match kind {
                    ScalarKind::Int => "int",
                    ScalarKind::Float => "float",
                    ScalarKind::Bool => "bool",
                };
                ("None".to_string(), string_literal(hint))
            }
            _ => return None,
        };
        let range = range.unwrap_or_else(|| "None".to_string());
        let callee = self.use_python("shapescript_runtime.probe");
        Some(format!(
            "{callee}({code}, {shape}, {dtype}, {range}, {})",
            string_literal(at)
        ))
    }

    /// One axis's size as Python, `None` where it has no Python value here
    /// (an unknown size, a size no name gives).
    fn axis_code(&self, axis: &check::hir::Axis) -> String {
        let code = match &axis.kind {
            AxisKind::Size { size, .. } => self.size_code(size),
            AxisKind::Group { parts, .. } => {
                let parts: Option<Vec<String>> = parts.iter().map(|p| self.part_code(p)).collect();
                parts.map(|p| p.join(" * "))
            }
            _ => None,
        };
        code.unwrap_or_else(|| "None".to_string())
    }

    /// One part of a group, parenthesised.
    fn part_code(&self, axis: &check::hir::Axis) -> Option<String> {
        match &axis.kind {
            AxisKind::Size { size, .. } => self.size_code(size).map(|c| format!("({c})")),
            _ => None,
        }
    }

    /// The dtype the value must have: the written one, `torch.bool` for a
    /// `Bool` and `torch.int64` for an `Index` without one, else the body's
    /// float dtype (`docs/shapescript/functions.md`).
    fn dtype_code(&self, dtype: Option<DtypeKind>, domain: Option<&Domain>) -> String {
        if let Some(d) = dtype {
            return torch_dtype(d).to_string();
        }
        match domain {
            Some(Domain::Bool) => return "torch.bool".to_string(),
            Some(Domain::Index(_)) => return "torch.int64".to_string(),
            _ => {}
        }
        match (&self.float, self.body.and_then(|b| b.made_dtype)) {
            (Some(f), _) => format!("{f}.dtype"),
            (None, Some(d)) => torch_dtype(d).to_string(),
            (None, None) => "torch.get_default_dtype()".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Options;

    /// The module `main.ss` becomes, with probes on or off; the runtime
    /// has the probe only with them.
    fn module(src: &str, probes: bool) -> String {
        let options = Options {
            probes,
            ..Options::default()
        };
        let files = crate::tests::build_files(src, &options).expect("generates");
        let file = |name: &str| {
            files
                .iter()
                .find(|f| f.path == std::path::Path::new(name))
                .map(|f| f.contents.clone())
                .unwrap_or_default()
        };
        assert_eq!(
            file("shapescript_runtime.py").contains("def probe("),
            probes
        );
        file("main.py")
    }

    #[test]
    fn lets_and_returns_are_probed_with_the_checkers_types() {
        let src = "dim D = 3\nfn f(x: [b n D], k: Int) -> [b n] NonNeg {\n  let y = exp(x)\n  let (v, i) = topk(y, 2, over=D)\n  let m = k + 1\n  sum(y, over=D)\n}\n";
        let out = module(src, true);
        // The writer wraps long calls: compare without white space.
        let squeezed: String = out.split_whitespace().collect();
        for line in [
            "shapescript_runtime.probe(y,(b,n,D),x.dtype,(0.0,None,False,True),\"main.ss:3\")",
            "shapescript_runtime.probe(v,(b,n,2),x.dtype,None,\"main.ss:4\")",
            "shapescript_runtime.probe(i,(b,n,2),torch.int64,(0,D-1,False,False),\"main.ss:4\")",
            "shapescript_runtime.probe(m,None,\"int\",(None,None,True,True),\"main.ss:5\")",
            "returnshapescript_runtime.probe(torch.sum(y,dim=2),(b,n),x.dtype,(0.0,None,False,True)",
        ] {
            assert!(squeezed.contains(line), "{line}\n{out}");
        }
        assert!(!module(src, false).contains("probe"));
    }
}
