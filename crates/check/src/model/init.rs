//! A model's tensor-field initialiser (`docs/shapescript/models.md`):
//! `zeros`, `ones`, `normal(std=, mean=)` and `uniform(lo=, hi=)`, whose
//! arguments are numbers computed when the model is made from literals, dims
//! and the model's size parameters (`InitExpr`), as He initialisation needs:
//! `normal(std=(2.0 / (Cin * K * K)) ** 0.5)`. Reports E0412 for anything
//! else and for a value known to be wrong when checking, E0301 for a name
//! that is not declared.

use std::cmp::Ordering;

use diag::{Diagnostic, FileId, Span};
use syntax::{ast, Name};

use super::Scope;
use crate::codes;
use crate::lower::Env;
use crate::program::{Decl, LookupError};
use crate::size::Symbol;
use crate::typed::{Init, InitExpr, InitFn, InitOp};

/// What every E0412 of an initialiser's shape suggests instead.
const FORMS: &str = "a tensor field starts as `zeros`, `ones`, `normal(std=0.02, mean=0)` or `uniform(lo=-0.1, hi=0.1)`";

/// What an initialiser's numbers may be made of.
const NUMBERS: &str = "an initialiser's arguments are numbers made of literals, dims and the model's size parameters, with `+ - * / **` and `sqrt`, `log`, `exp`, as in `normal(std=(2.0 / (Cin * K * K)) ** 0.5)`";

/// The initialiser `e` of a tensor field of the model of `scope`;
/// `Init::Zeros` after a mistake.
pub(super) fn initialiser(scope: Scope, e: &ast::Expr, diagnostics: &mut Vec<Diagnostic>) -> Init {
    let Scope {
        env,
        file,
        size_params,
    } = scope;
    let mut cx = InitCx {
        env,
        file,
        size_params,
        diagnostics,
    };
    cx.initialiser(e)
}

/// The arguments written, by key, with the span of each value.
type Written = Vec<(&'static str, Span, InitExpr)>;

struct InitCx<'a, 'p, 'd> {
    env: Env<'a>,
    file: FileId,
    size_params: &'p [Name],
    diagnostics: &'d mut Vec<Diagnostic>,
}

impl InitCx<'_, '_, '_> {
    /// The initialiser's form and arguments, then the checks of its values.
    fn initialiser(&mut self, e: &ast::Expr) -> Init {
        let (name, args) = match &e.kind {
            ast::ExprKind::Name(n) => (n, &[][..]),
            ast::ExprKind::Call { callee, args } => match &callee.kind {
                ast::ExprKind::Name(n) => (n, args.as_slice()),
                _ => return self.bad_form(e.span, "not an initialiser"),
            },
            _ => return self.bad_form(e.span, "not an initialiser"),
        };
        let allowed: &[&'static str] = match name.name.as_str() {
            "zeros" | "ones" => &[],
            "normal" => &["std", "mean"],
            "uniform" => &["lo", "hi"],
            _ => return self.bad_form(name.span, "unknown initialiser"),
        };
        let written = self.arguments(args, allowed);
        let get = |key: &str, default: f64| {
            written
                .iter()
                .find(|(k, _, _)| *k == key)
                .map_or(InitExpr::Float(default), |(_, _, v)| v.clone())
        };
        let init = match name.name.as_str() {
            "zeros" => Init::Zeros,
            "ones" => Init::Ones,
            "normal" => Init::Normal {
                mean: get("mean", 0.0),
                std: get("std", 0.02),
            },
            _ => Init::Uniform {
                lo: get("lo", -0.1),
                hi: get("hi", 0.1),
            },
        };
        self.check_values(&init, &written, e.span);
        init
    }

    /// The arguments named in `allowed`, lowered; E0412 for any other
    /// (positional ones included) and for one given twice. One that fails
    /// is left out, so its default stands in.
    fn arguments(&mut self, args: &[ast::Arg], allowed: &[&'static str]) -> Written {
        let mut written = Written::new();
        for a in args {
            let key = a
                .name
                .as_ref()
                .and_then(|n| allowed.iter().find(|k| **k == n.name.as_str()));
            let Some(&key) = key else {
                self.bad_form(a.span, "unexpected argument");
                continue;
            };
            if written.iter().any(|w| w.0 == key) {
                self.bad_form(a.span, "given twice");
                continue;
            }
            if let Some(value) = self.number(&a.value) {
                written.push((key, a.value.span, value));
            }
        }
        written
    }

    /// E0412 for an initialiser of the wrong form; `Init::Zeros` stands in.
    fn bad_form(&mut self, span: Span, label: &str) -> Init {
        self.diagnostics.push(
            Diagnostic::error(codes::E0412, "invalid field initialiser")
                .with_primary(span, label.to_string())
                .with_help(FORMS),
        );
        Init::Zeros
    }

    /// E0412 for an argument that is not a number an initialiser can compute.
    fn not_a_number(&mut self, span: Span, label: &str) -> Option<InitExpr> {
        self.diagnostics.push(
            Diagnostic::error(codes::E0412, "invalid field initialiser")
                .with_primary(span, label.to_string())
                .with_help(NUMBERS),
        );
        None
    }

    /// An argument's value as an `InitExpr`; `None` after a mistake, which
    /// is reported (every part is lowered, so each mistake is told).
    fn number(&mut self, e: &ast::Expr) -> Option<InitExpr> {
        // As deep as the written expression: on a stack with room for it.
        syntax::ensure_sufficient_stack(|| match &e.kind {
            ast::ExprKind::Int(v) => Some(InitExpr::Int(*v)),
            ast::ExprKind::Float(v) => Some(InitExpr::Float(*v)),
            ast::ExprKind::Name(name) => self.name(&ast::Path {
                file: None,
                name: *name,
                span: e.span,
            }),
            ast::ExprKind::Field { base, name } => match &base.kind {
                ast::ExprKind::Name(file) => self.name(&ast::Path {
                    file: Some(*file),
                    name: *name,
                    span: e.span,
                }),
                _ => self.not_a_number(e.span, "not a number"),
            },
            ast::ExprKind::Unary {
                op: ast::UnaryOp::Neg,
                operand,
            } => Some(InitExpr::Neg(Box::new(self.number(operand)?))),
            ast::ExprKind::Binary { op, lhs, rhs } => self.binary(e.span, *op, lhs, rhs),
            ast::ExprKind::Call { callee, args } => self.call(e.span, callee, args),
            // The parser reported it.
            ast::ExprKind::Error => None,
            _ => self.not_a_number(e.span, "not a number"),
        })
    }

    /// `lhs op rhs` for the arithmetic operators.
    fn binary(
        &mut self,
        span: Span,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
    ) -> Option<InitExpr> {
        let op = match op {
            ast::BinaryOp::Add => InitOp::Add,
            ast::BinaryOp::Sub => InitOp::Sub,
            ast::BinaryOp::Mul => InitOp::Mul,
            ast::BinaryOp::Div => InitOp::Div,
            ast::BinaryOp::Pow => InitOp::Pow,
            other => {
                let label = format!("`{}` is not arithmetic on numbers", other.as_str());
                return self.not_a_number(span, &label);
            }
        };
        let (lhs, rhs) = (self.number(lhs), self.number(rhs));
        Some(InitExpr::Binary {
            op,
            lhs: Box::new(lhs?),
            rhs: Box::new(rhs?),
        })
    }

    /// `sqrt(x)`, `log(x)` or `exp(x)` of one number.
    fn call(&mut self, span: Span, callee: &ast::Expr, args: &[ast::Arg]) -> Option<InitExpr> {
        let func = match &callee.kind {
            ast::ExprKind::Name(n) => InitFn::ALL
                .into_iter()
                .find(|f| f.name() == n.name.as_str()),
            _ => None,
        };
        let Some(func) = func else {
            return self.not_a_number(callee.span, "not `sqrt`, `log` or `exp`");
        };
        match args {
            [a] if a.name.is_none() => Some(InitExpr::Call {
                func,
                arg: Box::new(self.number(&a.value)?),
            }),
            _ => {
                let label = format!("`{}` takes one number", func.name());
                self.not_a_number(span, &label)
            }
        }
    }

    /// A name: a size parameter of the model, else a dim (here or, as
    /// `file.D`, of an imported file); E0412 for another declaration,
    /// E0301 for none.
    fn name(&mut self, path: &ast::Path) -> Option<InitExpr> {
        if path.file.is_none() {
            if let Some(p) = self.size_params.iter().find(|p| **p == path.name.name) {
                if let Some(record) = self.env.resolutions {
                    crate::lower::note_symbol(record, &path.name, &Symbol::Generic(*p));
                }
                return Some(InitExpr::Size(Symbol::Generic(*p)));
            }
        }
        let found = self.env.program.lookup(self.file, path);
        if let (Some(record), Ok((file, _))) = (self.env.resolutions, &found) {
            record.note_path(self.file, path, *file);
        }
        match found {
            // A broken dim was reported where it is declared.
            Ok((file, Decl::Dim(d, _))) => {
                self.env
                    .dims
                    .works(file, d.name.name)
                    .then_some(InitExpr::Size(Symbol::Dim {
                        file,
                        name: d.name.name,
                    }))
            }
            Ok((_, decl)) => self.not_a_size(path, decl.describe(), Some(decl.name_span())),
            Err(LookupError::NotFound(_)) if path.file.is_none() => {
                if crate::builtins::is_builtin(&path.name.name) {
                    return self.not_a_size(path, "a built-in operation", None);
                }
                self.unknown(path);
                None
            }
            Err(error) => {
                self.diagnostics.extend(error.to_diagnostic());
                None
            }
        }
    }

    /// E0412 for a declared name that is no size (`what` it is instead).
    fn not_a_size(
        &mut self,
        path: &ast::Path,
        what: &str,
        declared: Option<Span>,
    ) -> Option<InitExpr> {
        let shown = match &path.file {
            Some(file) => format!("{}.{}", file.name, path.name.name),
            None => path.name.name.to_string(),
        };
        let mut d = Diagnostic::error(codes::E0412, format!("`{shown}` is {what}, not a size"))
            .with_primary(path.span, "expected a dim or a size parameter of the model")
            .with_help(NUMBERS);
        if let Some(span) = declared {
            d = d.with_secondary(span, format!("`{}` is declared here", path.name.name));
        }
        self.diagnostics.push(d);
        None
    }

    /// E0301 for a plain name declared nowhere, with the closest size name.
    fn unknown(&mut self, path: &ast::Path) {
        let module = self.env.program.module(self.file);
        let dims = module.ast.items.iter().filter_map(|item| match item {
            ast::Item::Dim(d) => Some(d.name.name),
            _ => None,
        });
        let candidates: Vec<Name> = self.size_params.iter().copied().chain(dims).collect();
        let help = match diag::closest(
            path.name.name.as_str(),
            candidates.iter().map(|n| n.as_str()),
        ) {
            Some(best) => format!("a size with a similar name exists: `{best}`"),
            None => "declare it with `dim`, or add a size parameter, as in `model M(n) { ... }`"
                .to_string(),
        };
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0301,
                format!("cannot find `{}` in this scope", path.name.name),
            )
            .with_primary(path.span, "not a dim or a size parameter of the model")
            .with_help(help),
        );
    }

    /// E0412 for values known when checking to be wrong: not a finite
    /// number, a `std` of 0 or less, `lo` not below `hi`. Made of literals
    /// and dims, a value is known; with a size parameter, often only its
    /// sign is (sizes are at least 1), and that is enough to refuse
    /// `std=-0.5 / Cin`.
    fn check_values(&mut self, init: &Init, written: &Written, whole: Span) {
        let dims = self.env.dims;
        let size = |s: &Symbol| match s {
            Symbol::Dim { file, name } => dims.get(*file, *name).map(|v| v as f64),
            _ => None,
        };
        let mut finite = true;
        for (key, span, e) in written {
            if let Some(v) = e.value(&size).filter(|v| !v.is_finite()) {
                finite = false;
                let message = format!("`{key}` is not a finite number");
                self.wrong_value(*span, message, format!("this is {v}"));
            }
        }
        if !finite {
            return;
        }
        let span_of = |key: &str| written.iter().find(|w| w.0 == key).map_or(whole, |w| w.1);
        let shown = |e: &InitExpr| match (e.value(&size), sign(e, &size)) {
            (Some(v), _) => format!("is {v}"),
            (None, Some(Ordering::Less)) => "is negative for any sizes".to_string(),
            (None, Some(Ordering::Equal)) => "is 0 for any sizes".to_string(),
            (None, _) => "is positive for any sizes".to_string(),
        };
        match init {
            Init::Normal { std, .. } => {
                if matches!(sign(std, &size), Some(Ordering::Less | Ordering::Equal)) {
                    let label = format!("`std` {}", shown(std));
                    self.wrong_value(span_of("std"), "`std` must be positive".into(), label);
                }
            }
            Init::Uniform { lo, hi } => {
                if not_below(lo, hi, &size) {
                    let key = if written.iter().any(|w| w.0 == "lo") {
                        "lo"
                    } else {
                        "hi"
                    };
                    let label = format!("`lo` {} and `hi` {}", shown(lo), shown(hi));
                    self.wrong_value(span_of(key), "`lo` must be below `hi`".into(), label);
                }
            }
            Init::Zeros | Init::Ones => {}
        }
    }

    fn wrong_value(&mut self, span: Span, message: String, label: String) {
        self.diagnostics.push(
            Diagnostic::error(codes::E0412, message)
                .with_primary(span, label)
                .with_help("`normal` needs a positive `std`, and `uniform` a `lo` below its `hi`"),
        );
    }
}

/// Whether `lo >= hi` whatever the model's sizes: by their values when
/// both are known, else by their signs.
fn not_below(lo: &InitExpr, hi: &InitExpr, size: &impl Fn(&Symbol) -> Option<f64>) -> bool {
    if let (Some(a), Some(b)) = (lo.value(size), hi.value(size)) {
        return a >= b;
    }
    use Ordering::{Equal, Greater, Less};
    matches!(
        (sign(lo, size), sign(hi, size)),
        (Some(Greater | Equal), Some(Less)) | (Some(Greater), Some(Equal))
    )
}

/// The sign of `e` (against 0) for every value of the model's size
/// parameters, which are at least 1; `None` when it may change or is not
/// a number.
fn sign(e: &InitExpr, size: &impl Fn(&Symbol) -> Option<f64>) -> Option<Ordering> {
    if let Some(v) = e.value(size) {
        return v.partial_cmp(&0.0);
    }
    // As deep as the written expression: on a stack with room for it.
    syntax::ensure_sufficient_stack(|| match e {
        InitExpr::Size(_) => Some(Ordering::Greater),
        InitExpr::Neg(x) => sign(x, size).map(Ordering::reverse),
        InitExpr::Binary { op, lhs, rhs } => {
            let a = sign(lhs, size)?;
            if *op == InitOp::Pow {
                // A positive number to any power is positive.
                return (a == Ordering::Greater).then_some(Ordering::Greater);
            }
            let b = sign(rhs, size)?;
            match op {
                InitOp::Add => plus(a, b),
                InitOp::Sub => plus(a, b.reverse()),
                InitOp::Mul => Some(times(a, b)),
                // Over 0 it is no number at all.
                _ => (b != Ordering::Equal).then(|| times(a, b)),
            }
        }
        InitExpr::Call { func, arg } => match func {
            InitFn::Exp => Some(Ordering::Greater),
            InitFn::Sqrt => (sign(arg, size)? == Ordering::Greater).then_some(Ordering::Greater),
            InitFn::Log => None,
        },
        // Literals always have a value.
        InitExpr::Int(_) | InitExpr::Float(_) => None,
    })
}

/// The sign of a sum of numbers of signs `a` and `b`, when it has one.
fn plus(a: Ordering, b: Ordering) -> Option<Ordering> {
    match (a, b) {
        (Ordering::Equal, x) | (x, Ordering::Equal) => Some(x),
        _ => (a == b).then_some(a),
    }
}

/// The sign of a product of numbers of signs `a` and `b`.
fn times(a: Ordering, b: Ordering) -> Ordering {
    match (a, b) {
        (Ordering::Equal, _) | (_, Ordering::Equal) => Ordering::Equal,
        _ if a == b => Ordering::Greater,
        _ => Ordering::Less,
    }
}
