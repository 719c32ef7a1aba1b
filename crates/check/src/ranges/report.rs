//! The E06xx diagnostics of the range pass: each names the value, shows its
//! range and where the range came from (a note), and gives the usual fix
//! (`docs/shapescript/ranges.md`). Only called on a mistake, so the words
//! are worked out only then.

use diag::Diagnostic;
use syntax::ast::{self, BinaryOp, ExprKind};

use super::interval::Interval;
use super::math::{Edge, MathFn};
use super::walk::{IdsPlace, Place, Walker};
use crate::codes;
use crate::typed::{Callee, ExprInfo};
use crate::types::{ScalarKind, Ty, TyKind};

/// An interval with the domain's name when it is exactly one: `[0, 1] (Unit)`.
fn show(iv: &Interval) -> String {
    match iv.domain_name() {
        Some(name) => format!("{iv} (`{name}`)"),
        None => iv.to_string(),
    }
}

/// Whether `text` is one parenthesized expression, `(n - 1)` (an
/// expression's span takes its parentheses), not `(a) + (b)`.
fn in_parentheses(text: &str) -> bool {
    if !text.starts_with('(') || !text.ends_with(')') {
        return false;
    }
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 {
            return i + 1 == text.len();
        }
    }
    false
}

impl Walker<'_> {
    /// The source text of `e`.
    fn text(&self, e: &ast::Expr) -> String {
        let text = self.env.lowered.map.text(e.span.file);
        text.get(e.span.start as usize..e.span.end as usize)
            .unwrap_or("")
            .to_string()
    }

    /// The source text of `e`, in parentheses unless it is one term.
    fn operand(&self, e: &ast::Expr) -> String {
        let text = self.text(e);
        match e.kind {
            ExprKind::Binary { .. } | ExprKind::Unary { .. } | ExprKind::Cast { .. }
                if !in_parentheses(&text) =>
            {
                format!("({text})")
            }
            _ => text,
        }
    }

    /// `d` with a label where a local's range was written: its parameter,
    /// or its `let`'s value.
    fn with_origin(&self, d: Diagnostic, e: &ast::Expr) -> Diagnostic {
        let (ExprKind::Name(name), Some(ExprInfo::Local { decl })) =
            (&e.kind, self.typed(e.span).map(|t| &t.info))
        else {
            return d;
        };
        if let Some(p) = self.body.params.iter().find(|p| p.span == *decl) {
            return d.with_secondary(p.span, format!("`{}` is declared `{}` here", p.name, p.ty));
        }
        match self.let_value(*decl) {
            Some(value) => d.with_secondary(value, format!("`{}` gets its value here", name.name)),
            None => d,
        }
    }

    /// A note saying what `e`'s range is and where it came from.
    fn origin(&self, e: &ast::Expr, iv: &Interval) -> String {
        let text = self.text(e);
        let head = format!("`{text}` is in {}", show(iv));
        let typed = self.typed(e.span);
        let why = match (&e.kind, typed.map(|t| &t.info)) {
            (ExprKind::Int(_) | ExprKind::Float(_), _) => "a constant".to_string(),
            (ExprKind::Name(_), Some(ExprInfo::Local { decl })) => {
                if let Some(p) = self.body.params.iter().find(|p| p.span == *decl) {
                    format!("the domain of its parameter type `{}`", p.ty)
                } else if let Some(value) = self.let_value(*decl) {
                    let text = self.env.lowered.map.text(value.file);
                    let value = text
                        .get(value.start as usize..value.end as usize)
                        .unwrap_or("");
                    format!("from its `let`, `{value}`")
                } else {
                    "what its `let` gave it".to_string()
                }
            }
            (ExprKind::Call { .. }, Some(ExprInfo::Call(call))) => self.call_origin(&call.callee),
            (ExprKind::Index { base, .. }, _) if self.is_builtin_call(base, "split") => {
                format!(
                    "a piece of `{}`, with the values it splits",
                    self.text(base)
                )
            }
            (
                ExprKind::Binary {
                    op: BinaryOp::Mul,
                    lhs,
                    rhs,
                },
                _,
            ) if self.same_local(lhs, rhs) => "a square, never negative".to_string(),
            (ExprKind::Binary { op, lhs, rhs }, _) => {
                let part = |x: &ast::Expr| match self.interval_at(x.span) {
                    Some(i) => format!("`{}` is in {}", self.text(x), show(&i)),
                    None => format!("`{}`", self.text(x)),
                };
                format!(
                    "`{}` of two values: {} and {}",
                    op.as_str(),
                    part(lhs),
                    part(rhs)
                )
            }
            (ExprKind::Unary { operand, .. }, _) => match self.interval_at(operand.span) {
                Some(i) => format!("the negation of a value in {}", show(&i)),
                None => "a negation".to_string(),
            },
            (ExprKind::Cast { expr, .. }, _) if self.underflowed(expr.span, e.span) => {
                let inner = self
                    .interval_at(expr.span)
                    .map_or(String::new(), |i| show(&i));
                format!(
                    "`{}` is in {inner}, and tiny values round to 0 in a dtype whose least positive value is larger",
                    self.text(expr)
                )
            }
            (ExprKind::Cast { .. }, _) => {
                self.conversion_origin(e).unwrap_or_else(|| match typed {
                    Some(t) => format!("its type `{}`", t.ty),
                    None => "its type".to_string(),
                })
            }
            _ => match typed {
                Some(t) => format!("its type `{}`", t.ty),
                None => "its type".to_string(),
            },
        };
        match self.typed(e.span).and_then(super::walk::integer_range) {
            Some(range) if range.same_set(iv) && self.may_wrap(e) => format!(
                "{head}: {why}, but PyTorch's integers wrap around past their dtype's range"
            ),
            _ => format!("{head}: {why}"),
        }
    }

    /// Where a chain of conversions (`(ids to bf16) to i64`) moved the
    /// range: the innermost value, and the conversion that rounded it.
    fn conversion_origin(&self, e: &ast::Expr) -> Option<String> {
        let mut at = e;
        while let ExprKind::Cast { expr, .. } = &at.kind {
            let (outer, inner) = (self.interval_at(at.span)?, self.interval_at(expr.span)?);
            if !outer.same_set(&inner) {
                return Some(format!(
                    "`{}` is in {}, and `{}` rounds it onto its dtype's numbers",
                    self.text(expr),
                    show(&inner),
                    self.text(at)
                ));
            }
            at = expr;
        }
        let inner = self.interval_at(at.span)?;
        Some(format!(
            "converted from `{}`, in {}",
            self.text(at),
            show(&inner)
        ))
    }

    /// Whether the cast at `outer` reaches a 0 end its operand at `inner`
    /// only tends to (`walk`: a coarser dtype underflows).
    fn underflowed(&self, inner: diag::Span, outer: diag::Span) -> bool {
        match (self.interval_at(inner), self.interval_at(outer)) {
            (Some(i), Some(o)) => {
                (i.lo == 0.0 && i.lo_open && o.lo == 0.0 && !o.lo_open)
                    || (i.hi == 0.0 && i.hi_open && o.hi == 0.0 && !o.hi_open)
            }
            _ => false,
        }
    }

    /// Where a call's range comes from.
    /// Whether `e` calls the built-in `name`.
    fn is_builtin_call(&self, e: &ast::Expr, name: &str) -> bool {
        matches!(
            self.typed(e.span).map(|t| &t.info),
            Some(ExprInfo::Call(call)) if matches!(&call.callee, Callee::Builtin(b) if b.name() == name)
        )
    }

    fn call_origin(&self, callee: &Callee) -> String {
        match callee {
            Callee::Builtin(b) => match b.name() {
                "var" => {
                    "a variance is never negative, and is 0 when the values are all equal".into()
                }
                "std" => {
                    "a standard deviation is never negative, and is 0 when the values are all equal"
                        .into()
                }
                "softmax" => {
                    "softmax's values are in [0, 1], and round to 0 far below the largest".into()
                }
                name => format!("the range of `{name}` over its argument's"),
            },
            Callee::Extern { name, python, .. } if MathFn::from_python(python).is_some() => {
                format!("the range of `{name}` (`{python}`) over its argument's")
            }
            Callee::Extern { name, .. } | Callee::Fn { name, .. } => {
                format!("the return type of `{name}`")
            }
            Callee::Method { method, .. } => format!("the return type of `{method}`"),
            Callee::Record { name, .. } => format!("a `{name}`"),
        }
    }

    /// The help for a Python number, or a value made from a Python number
    /// parameter or field, `Real` to the checker: narrow it where it comes
    /// in (`docs/shapescript/ranges.md`).
    fn number_help(&self, e: &ast::Expr, iv: &Interval, domain: &str) -> Option<String> {
        // A number the checker knows (`x / 0`) isn't narrowed but changed.
        let unknown = self.is_number(e) && iv.lo.is_infinite() && iv.hi.is_infinite();
        let number = self.number_source(e).or_else(|| unknown.then_some(e))?;
        let text = self.operand(number);
        Some(format!(
            "`{text}` is a Python number, `Real` to the checker: narrow it where it comes in, `{text} as {domain}` (checked when the program runs) or `{text} to {domain}` (clamped)"
        ))
    }

    /// A Python `Float` or `Int` parameter or model field that `e` adds or
    /// multiplies (`var + eps`): narrowing it narrows `e`.
    fn number_source<'e>(&self, e: &'e ast::Expr) -> Option<&'e ast::Expr> {
        let source = match (&e.kind, self.typed(e.span).map(|t| &t.info)) {
            (ExprKind::Name(_), Some(ExprInfo::Local { decl })) => {
                self.body.params.iter().any(|p| p.span == *decl)
            }
            (ExprKind::Field { .. }, _) => true,
            _ => false,
        };
        if source && self.is_number(e) {
            return Some(e);
        }
        match &e.kind {
            ExprKind::Binary {
                op: BinaryOp::Add | BinaryOp::Mul,
                lhs,
                rhs,
            } => self.number_source(lhs).or_else(|| self.number_source(rhs)),
            _ => None,
        }
    }

    /// The log-space form of `log(softmax(x))` and `log(sigmoid(x))`, which
    /// never round to 0 first: `log_softmax`, `log_sigmoid`.
    fn log_space_help(&self, f: MathFn, arg: &ast::Expr) -> Option<String> {
        if f != MathFn::Log {
            return None;
        }
        let ExprKind::Call { args, .. } = &arg.kind else {
            return None;
        };
        let x = args.first().map(|a| self.text(&a.value))?;
        let ExprInfo::Call(call) = &self.typed(arg.span)?.info else {
            return None;
        };
        match &call.callee {
            Callee::Builtin(crate::builtin_names::Builtin::Softmax) => {
                let over = args
                    .iter()
                    .find(|a| a.name.as_ref().is_some_and(|n| n.name == "over"))
                    .map(|a| format!(", over={}", self.text(&a.value)))
                    .unwrap_or_default();
                Some(format!("a softmax's small values round to 0 in floats: compute in log space, `log_softmax({x}{over})`"))
            }
            Callee::Extern { python, .. } if MathFn::from_python(python) == Some(MathFn::Sigmoid) => {
                Some(format!("`sigmoid` of a large negative value rounds to 0 in floats: compute in log space, `log_sigmoid({x})`"))
            }
            _ => None,
        }
    }

    /// Whether `e` is a Python `Float` or `Int`.
    fn is_number(&self, e: &ast::Expr) -> bool {
        self.typed(e.span).is_some_and(|t| {
            matches!(
                t.ty.kind,
                TyKind::Scalar(ScalarKind::Float | ScalarKind::Int)
            )
        })
    }

    /// `log`, `rsqrt`, `sqrt` or `log1p` of a value outside its domain.
    pub(super) fn outside_edge(
        &mut self,
        f: MathFn,
        edge: Edge,
        call: &ast::Expr,
        arg: &ast::Expr,
        iv: Interval,
    ) {
        let name = match &call.kind {
            ExprKind::Call { callee, .. } => self.text(callee),
            _ => format!("{f:?}").to_lowercase(),
        };
        let text = self.text(arg);
        let (code, message, label, help) = match edge {
            Edge::Positive if !iv.goes_below(0.0) => (
                codes::E0601,
                format!("`{name}` of a value that may be 0"),
                "this may be 0".to_string(),
                format!("keep it away from 0: `{name}({text} + 1e-6)`, or `{name}(clamp({text}, lo=1e-6))`"),
            ),
            Edge::Positive => (
                codes::E0601,
                format!("`{name}` of a value that may be 0 or less"),
                "this may be 0 or negative".to_string(),
                format!("clamp it above 0: `{name}(clamp({text}, lo=1e-6))`, or compute a positive value (`exp`, `softplus`)"),
            ),
            Edge::NonNegative => (
                codes::E0604,
                format!("`{name}` of a value that may be negative"),
                "this may be negative".to_string(),
                format!("clamp it at 0: `{name}(clamp({text}, lo=0.0))`, or take `abs` first"),
            ),
            Edge::AboveMinusOne => (
                codes::E0605,
                format!("`{name}` of a value that may be -1 or less"),
                "this may be -1 or less".to_string(),
                format!("clamp it above -1: `{name}(clamp({text}, lo=-0.99))`"),
            ),
        };
        let domain = if edge == Edge::Positive {
            "Pos"
        } else {
            "NonNeg"
        };
        let help = self
            .number_help(arg, &iv, domain)
            .or_else(|| self.log_space_help(f, arg))
            .unwrap_or(help);
        let note = self.origin(arg, &iv);
        let d = Diagnostic::error(code, message)
            .with_primary(arg.span, label)
            .with_note(note)
            .with_help(help);
        let d = self.with_origin(d, arg);
        self.diagnostics.push(d);
    }

    /// `a / b` with 0 in `b`'s range.
    pub(super) fn division_by_zero(&mut self, rhs: &ast::Expr, iv: Interval) {
        let text = self.text(rhs);
        let help = if iv.goes_below(0.0) {
            format!("keep the divisor away from 0, as in `clamp({text}, lo=1e-6)`, or divide by a value whose type says `Pos`")
        } else {
            format!("add a small constant to the divisor: `... / ({text} + 1e-5)`")
        };
        let help = self.number_help(rhs, &iv, "Pos").unwrap_or(help);
        let note = self.origin(rhs, &iv);
        let d = Diagnostic::error(codes::E0602, "division by a value that may be 0")
            .with_primary(rhs.span, "this may be 0")
            .with_note(note)
            .with_help(help);
        let d = self.with_origin(d, rhs);
        self.diagnostics.push(d);
    }

    /// `base ** exponent` of a base (of interval `iv`) that may be
    /// negative, to a power that may not be whole: NaN there (E0608).
    pub(super) fn fractional_power(
        &mut self,
        base: &ast::Expr,
        exponent: &ast::Expr,
        iv: Interval,
    ) {
        let (b, e) = (self.operand(base), self.operand(exponent));
        let d = Diagnostic::error(
            codes::E0608,
            "a fractional power of a value that may be negative",
        )
        .with_primary(base.span, format!("this is in {iv}"))
        .with_note(self.origin(base, &iv))
        .with_note("a negative float to a power that is not a whole number is NaN in PyTorch")
        .with_help(format!(
            "raise its magnitude, `sign({b}) * abs({b}) ** {e}`, or clamp it at 0 first, `clamp({b}, lo=0.0) ** {e}`"
        ));
        let d = self.with_origin(d, base);
        self.diagnostics.push(d);
    }

    /// An integer power whose exponent (of interval `iv`) may be negative.
    pub(super) fn negative_power(&mut self, exponent: &ast::Expr, iv: Option<Interval>) {
        let text = self.text(exponent);
        let (label, note) = match iv {
            Some(iv) => (format!("this is in {iv}"), self.origin(exponent, &iv)),
            None => ("this may be negative".to_string(), String::new()),
        };
        let mut d = Diagnostic::error(codes::E0607, "an integer power with an exponent that may be negative")
            .with_primary(exponent.span, label)
            .with_help(format!("convert the base to a float first, `(x to Real) ** {text}`, or keep the exponent at 0 or above"));
        if !note.is_empty() {
            d = d.with_note(note);
        }
        d = d.with_note("PyTorch raises `Integers to negative integer powers are not allowed`");
        self.diagnostics.push(d);
    }

    /// `Index[have]` ids where an axis of size `want` is indexed.
    pub(super) fn ids_mismatch(
        &mut self,
        ids: &ast::Expr,
        (bound, have): (&crate::size::Size, i128),
        want: i128,
        what: IdsPlace,
        call: &ast::Expr,
    ) {
        let what = match what {
            IdsPlace::Param { callee, size } => {
                format!("`{callee}` takes `Index[{size}]` ids here, with `{size}` =")
            }
            IdsPlace::TakeAxis => "the axis `over=` names has size".to_string(),
            IdsPlace::Classes => "the number of classes is".to_string(),
            IdsPlace::Picked(axis) => format!("they pick from axis {axis}, of size"),
        };
        // `Index[Ctx]` says which size; its value, when it isn't a number.
        let written = bound.to_string();
        let shown = if written == have.to_string() {
            format!("`Index[{written}]`")
        } else {
            format!("`Index[{written}]` ({written} = {have})")
        };
        let message = format!("ids of {shown} index an axis of size {want}");
        let note = if have > want {
            format!("ids up to {} reach past the last of {want} entries: PyTorch fails with an index error when one comes", have - 1)
        } else {
            format!(
                "the ids reach only {} of the {want} entries: one of the two sizes is wrong",
                have
            )
        };
        self.diagnostics.push(
            Diagnostic::error(codes::E0603, message)
                .with_primary(ids.span, format!("`Index[{written}]` ids"))
                .with_secondary(call.span, format!("{what} {want}"))
                .with_note(note)
                .with_help(format!(
                    "make the axis {have} long, or the ids `Index[{want}]`"
                )),
        );
    }

    /// Ids not known to lie in `[0, want)`: integers of a wider range, or
    /// `Index[n]` ids of another size than the axis they index.
    pub(super) fn ids_unbounded(
        &mut self,
        ids: &ast::Expr,
        iv: Option<Interval>,
        want: &crate::size::Poly,
        what: IdsPlace,
        call: &ast::Expr,
    ) {
        let dims = self.env.lowered.dims;
        let size = match dims.value(want) {
            Some(v) if v.to_string() != want.to_string() => format!("`{want}` ({v})"),
            _ => format!("`{want}`"),
        };
        let place = match what {
            IdsPlace::Param { callee, size } => {
                format!("`{callee}` takes `Index[{size}]` ids here")
            }
            IdsPlace::TakeAxis => "the axis `over=` names".to_string(),
            IdsPlace::Classes => "the number of classes".to_string(),
            IdsPlace::Picked(axis) => format!("they pick from axis {axis}"),
        };
        let (label, note) = match iv {
            Some(iv) => (format!("these are in {iv}"), self.origin(ids, &iv)),
            None => {
                let bound = self.typed(ids.span).and_then(|t| match &t.ty.kind {
                    TyKind::Tensor(t) => match &t.domain {
                        Some(crate::types::Domain::Index(n)) => Some(n.to_string()),
                        _ => None,
                    },
                    _ => None,
                });
                let bound = bound.unwrap_or_else(|| "N".to_string());
                (
                    format!("`Index[{bound}]` ids"),
                    format!("ids below `{bound}` may reach past an axis of size {size}: PyTorch fails with an index error when one does"),
                )
            }
        };
        let shape = self
            .typed(ids.span)
            .map(|t| {
                crate::shape::show_ty(&Ty {
                    kind: t.ty.kind.clone(),
                    span: t.ty.span,
                })
            })
            .unwrap_or_default();
        let shape = shape.split(' ').next().unwrap_or("[...]").to_string();
        let d = Diagnostic::error(
            codes::E0603,
            format!("ids not known to lie in `[0, {want})` index an axis of size {size}"),
        )
        .with_primary(ids.span, label)
        .with_secondary(call.span, place)
        .with_note(note)
        .with_help(format!(
            "claim the ids' range with `{} as {shape} Index[{want}]`, which is checked when the program runs",
            self.operand(ids)
        ));
        self.diagnostics.push(d);
    }

    /// A value wider than the domain declared where it goes.
    pub(super) fn outside_domain(
        &mut self,
        e: &ast::Expr,
        iv: Interval,
        declared: &Ty,
        what: Place,
    ) {
        let what = match what {
            Place::Return => "the returned value".to_string(),
            Place::Let(name) => format!("`{name}`"),
            Place::Arg { param, callee } => format!("argument `{param}` of `{callee}`"),
            Place::Field { field, record } => format!("field `{field}` of `{record}`"),
        };
        let Some(outer) = self.declared_domain(declared) else {
            return;
        };
        let name = outer.domain_name().unwrap_or("its domain");
        let note = self.origin(e, &iv);
        let d = Diagnostic::error(codes::E0606, format!("{what} may lie outside `{name}`"))
            .with_primary(e.span, format!("this is in {iv}, `{name}` is {outer}"))
            .with_secondary(declared.span, format!("`{name}` is declared here"))
            .with_note(note)
            .with_help(format!(
                "clamp it with `{0} to {name}`, or claim it with `{0} as {name}` (checked when the program runs)",
                self.operand(e)
            ));
        let d = self.with_origin(d, e);
        self.diagnostics.push(d);
    }
}
