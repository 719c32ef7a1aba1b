//! `e as T` and `e to T` from the checker's plans (`AsCheck`, `ToPlan`):
//! the run-time verification of an `as` claim (shape, index bound, domain)
//! unless `--no-runtime-checks`, and the reshape, clamp and cast of a `to`.
//! Never decides a size or a domain itself.

use check::hir::ExprInfo;
use check::hir::{Domain, ScalarKind, TyKind};
use syntax::ast::{self, CastKind, Expr, ExprKind};

use crate::expr::{Val, ATOM, CMP};
use crate::names::torch_dtype;
use crate::scope::Scope;
use crate::writer::string_literal;

impl<'g, 'a> Scope<'g, 'a> {
    /// `e as T` (verified at run time unless `--no-runtime-checks`) and
    /// `e to T` (reshape, clamp, cast), from the checker's plans.
    pub fn cast(&mut self, kind: CastKind, inner: &Expr, whole: &Expr) -> Val {
        let v = self.expr(inner);
        let info = self.typed(whole.span).map(|t| &t.info);
        let domain = match self.ty(whole.span).map(|t| &t.kind) {
            Some(TyKind::Tensor(t)) => t.domain.clone(),
            _ => None,
        };
        let text = self.gen.map.text(self.file);
        let written = text
            .get(whole.span.start as usize..whole.span.end as usize)
            .unwrap_or("");
        // The span takes the parentheses around `(eps as Pos)`; the message names the claim.
        let written = unparenthesized(written).to_string();
        let at = self.gen.where_(self.file, whole.span.start);
        match (kind, info) {
            (CastKind::As, Some(ExprInfo::As(check))) => {
                if !self.gen.options.runtime_checks {
                    return v;
                }
                if let Some(int) = self.number_kind(inner.span) {
                    return self.claim_number(v, check.range, int, &written, &at);
                }
                let mut value = v;
                if let Some(shape) = &check.shape {
                    if !self.same_sizes(inner.span, shape) {
                        let expected: Vec<String> = shape
                            .iter()
                            .map(|s| self.size_code(s).unwrap_or_else(|| "None".into()))
                            .collect();
                        let code = self.call_code(
                            "shapescript_runtime.check_claim_shape",
                            vec![
                                (None, value.clone()),
                                (None, Val::atom(crate::sizes::tuple(&expected))),
                                (None, Val::atom(string_literal(&written))),
                                (None, Val::atom(string_literal(&at))),
                            ],
                        );
                        value = Val::atom(code);
                    }
                }
                // The domain the claim names, as the checker planned it; a
                // claim of sizes alone checks no values.
                let claimed = domain.as_ref().filter(|_| check.range.is_some());
                self.claim_domain(value, inner, claimed, &written, &at)
            }
            (CastKind::To, Some(ExprInfo::To(plan))) => {
                if let Some(int) = self.number_kind(inner.span) {
                    return match plan.clamp {
                        Some(range) => clamp_number(v, range, int),
                        None => v,
                    };
                }
                let mut value = v;
                if let Some(shape) = &plan.reshape {
                    let sizes: Vec<Option<String>> =
                        shape.iter().map(|s| self.size_code(s)).collect();
                    if sizes.iter().filter(|s| s.is_none()).count() <= 1 {
                        let sizes: Vec<String> = sizes
                            .into_iter()
                            .map(|s| s.unwrap_or_else(|| "-1".into()))
                            .collect();
                        value =
                            Val::atom(format!("{}.reshape({})", value.at(ATOM), sizes.join(", ")));
                    } else {
                        self.unsupported(
                            whole.span,
                            "a `to` reshape with several sizes unknown before run time",
                        );
                    }
                }
                // An integer becomes a float before a float domain's clamp
                // (`torch.finfo` wants a float); a float is clamped before
                // it becomes an integer.
                let to_float = plan.to_float
                    || plan.cast.is_some_and(|d| {
                        matches!(
                            d,
                            ast::DtypeKind::F64
                                | ast::DtypeKind::F32
                                | ast::DtypeKind::F16
                                | ast::DtypeKind::Bf16
                        )
                    });
                if to_float {
                    value = self.convert(value, plan, inner, domain.as_ref());
                    value = self.clamp_into(value, plan, (inner, whole), domain.as_ref());
                } else {
                    value = self.clamp_into(value, plan, (inner, whole), domain.as_ref());
                    value = self.convert(value, plan, inner, domain.as_ref());
                    if let (Some(_), Some(d)) = (&plan.clamp, &domain) {
                        value = int_clamp(value, plan, d);
                    }
                }
                value
            }
            _ => v,
        }
    }
}

/// Whether the `to` at `whole` names the `Bool` domain (`x to Bool`), not
/// only keeps it from its operand.
fn names_bool(whole: &Expr) -> bool {
    matches!(&whole.kind, ExprKind::Cast { ty, .. } if matches!(
        &ty.kind,
        ast::TypeKind::Tensor { domain: Some(d), .. } if d.kind == ast::DomainKind::Bool
    ))
}

/// A `to` of floats into an integer dtype clamps again once converted: a
/// value past the dtype's range converts to anything (3e9 is -2^31 in
/// i32), and a positive float below 1 to 0, so `x to Pos i32` is at least
/// 1 only when clamped in integers (`docs/shapescript/ranges.md`).
fn int_clamp(value: Val, plan: &check::hir::ToPlan, d: &Domain) -> Val {
    let integer = matches!(plan.cast, Some(ast::DtypeKind::I32 | ast::DtypeKind::I64));
    let bounds = match d {
        Domain::NonNeg => "min=0",
        Domain::Pos => "min=1",
        Domain::NonPos => "max=0",
        Domain::Neg => "max=-1",
        Domain::Unit => "0, 1",
        Domain::Signed => "-1, 1",
        Domain::Index(_) | Domain::Bool | Domain::Real => return value,
    };
    if !integer {
        return value;
    }
    Val::atom(format!("{}.clamp({bounds})", value.at(ATOM)))
}

impl<'g, 'a> Scope<'g, 'a> {
    /// A `to`'s clamp into its domain, or a Bool domain's comparison.
    fn clamp_into(
        &mut self,
        value: Val,
        plan: &check::hir::ToPlan,
        (inner, whole): (&Expr, &Expr),
        domain: Option<&Domain>,
    ) -> Val {
        match (&plan.clamp, domain) {
            (Some(_), Some(d)) => self.clamp(value, d),
            // Only a `to` that names `Bool` compares: `(m to f32) to f32`
            // of a mask keeps the `Bool` domain and is a float.
            (_, Some(Domain::Bool))
                if plan.cast.is_none() && !self.is_bool(inner.span) && names_bool(whole) =>
            {
                let compared = format!("{} != 0", value.at(CMP + 1));
                match self.dtype(whole.span) {
                    // `x to Bool f32`: 0 and 1 in the dtype the type names.
                    Some(d) if d != ast::DtypeKind::Bool => {
                        Val::atom(format!("({compared}).to({})", torch_dtype(d)))
                    }
                    _ => Val {
                        code: compared,
                        prec: CMP,
                        simple: false,
                    },
                }
            }
            _ => value,
        }
    }

    /// A `to`'s dtype conversion: a cast, the body's float dtype for an
    /// integer made `Real`, `.long()` for ids.
    fn convert(
        &mut self,
        value: Val,
        plan: &check::hir::ToPlan,
        inner: &Expr,
        domain: Option<&Domain>,
    ) -> Val {
        if let Some(dtype) = plan.cast {
            if dtype == ast::DtypeKind::Bool && !self.is_bool(inner.span) {
                return Val {
                    code: format!("{} != 0", value.at(CMP + 1)),
                    prec: CMP,
                    simple: false,
                };
            }
            return Val::atom(format!("{}.to({})", value.at(ATOM), torch_dtype(dtype)));
        }
        if plan.to_float {
            return Val::atom(self.to_float(&value.at(ATOM)));
        }
        if matches!(domain, Some(Domain::Index(_))) && !self.is_integer(inner.span) {
            return Val::atom(format!("{}.long()", value.at(ATOM)));
        }
        value
    }

    /// The run-time check of an `as` claim's domain: ids below their bound
    /// (`Index[N]`), values inside the domain's interval.
    fn claim_domain(
        &mut self,
        mut value: Val,
        inner: &Expr,
        domain: Option<&Domain>,
        written: &str,
        at: &str,
    ) -> Val {
        match domain {
            Some(Domain::Index(n)) => {
                let bound = self.size_code(n).unwrap_or_else(|| "None".into());
                if let Some(limit) = self.arange_length(inner) {
                    // `arange(n) as Index[N]` holds exactly when n <= N: an int comparison.
                    self.pre.push(format!("if {limit} > {bound}:"));
                    self.pre.push(format!(
                        "    shapescript_runtime.claim_error({}, f\"{{{limit}}} values, not all below {{{bound}}}\", {})",
                        string_literal(written),
                        string_literal(at)
                    ));
                } else {
                    let code = self.call_code(
                        "shapescript_runtime.check_claim_index",
                        vec![
                            (None, value.clone()),
                            (None, Val::atom(bound)),
                            (None, Val::atom(string_literal(written))),
                            (None, Val::atom(string_literal(at))),
                        ],
                    );
                    value = Val::atom(code);
                }
            }
            Some(d) => {
                if let Some((lo, hi, open)) = domain_bounds(d) {
                    let check = if open {
                        "shapescript_runtime.check_claim_open_range"
                    } else {
                        "shapescript_runtime.check_claim_range"
                    };
                    let code = self.call_code(
                        check,
                        vec![
                            (None, value.clone()),
                            (None, Val::atom(lo.into())),
                            (None, Val::atom(hi.into())),
                            (None, Val::atom(string_literal(written))),
                            (None, Val::atom(string_literal(at))),
                        ],
                    );
                    value = Val::atom(code);
                }
            }
            None => {}
        }
        value
    }

    /// Whether the value at `span` is a Python number, and then whether an `Int`.
    fn number_kind(&self, span: diag::Span) -> Option<bool> {
        match self.ty(span).map(|t| &t.kind) {
            Some(TyKind::Scalar(ScalarKind::Int)) => Some(true),
            Some(TyKind::Scalar(ScalarKind::Float)) => Some(false),
            _ => None,
        }
    }

    /// The run-time check of an `as` claim on a Python number
    /// (`eps as Pos`): an `if` before the statement raising the
    /// `ShapeError` of the other claims when the number is outside (NaN
    /// included: every comparison with it is false).
    fn claim_number(
        &mut self,
        value: Val,
        range: Option<check::hir::Range>,
        int: bool,
        written: &str,
        at: &str,
    ) -> Val {
        let Some(range) = range else {
            return value;
        };
        // In a parameter's default the value is not hoisted (`hoist`): the
        // check goes before the `def`, where Python evaluates the default.
        let value = self.hoist(value);
        let x = value.at(CMP + 1);
        let lower = range.lo.is_finite().then(|| {
            let op = if range.lo_open { "<" } else { "<=" };
            format!("{} {op} ", number_literal(range.lo, int))
        });
        let upper = range.hi.is_finite().then(|| {
            let op = if range.hi_open { "<" } else { "<=" };
            format!(" {op} {}", number_literal(range.hi, int))
        });
        let holds = format!(
            "{}{x}{}",
            lower.unwrap_or_default(),
            upper.unwrap_or_default()
        );
        self.pre.push(format!("if not {holds}:"));
        self.pre.push(format!(
            "    shapescript_runtime.claim_error({}, f\"the value is {{{x}}}\", {})",
            string_literal(written),
            string_literal(at)
        ));
        value
    }

    /// `torch.clamp` into a domain's interval.
    fn clamp(&mut self, value: Val, d: &Domain) -> Val {
        let bounds = match d {
            Domain::Unit => "0.0, 1.0".to_string(),
            Domain::Signed => "-1.0, 1.0".to_string(),
            Domain::NonNeg => "min=0.0".to_string(),
            Domain::NonPos => "max=0.0".to_string(),
            Domain::Pos | Domain::Neg => {
                let value = self.hoist(value);
                let sign = if matches!(d, Domain::Pos) {
                    "min="
                } else {
                    "max=-"
                };
                return Val::atom(format!(
                    "torch.clamp({0}, {sign}torch.finfo({0}.dtype).tiny)",
                    value.code
                ));
            }
            Domain::Index(n) => match self.size_code(n) {
                Some(n) => format!("0, {n} - 1"),
                None => return value,
            },
            Domain::Bool | Domain::Real => return value,
        };
        Val::atom(format!("torch.clamp({}, {bounds})", value.code))
    }

    /// Whether the tensor at `span` has the sizes `want`, as the checker
    /// can see before run time (then `as` needs no check).
    fn same_sizes(&self, span: diag::Span, want: &[check::hir::Size]) -> bool {
        let Some(axes) = self.ty(span).and_then(|t| t.shape()) else {
            return false;
        };
        axes.len() == want.len()
            && axes.iter().zip(want).all(|(a, w)| match &a.kind {
                check::hir::AxisKind::Size { size, .. } => {
                    self.gen.checked.dims.same_size(&size.poly, &w.poly)
                        && self.size_code(w).is_some()
                }
                _ => false,
            })
    }

    fn dtype(&self, span: diag::Span) -> Option<ast::DtypeKind> {
        match self.ty(span).map(|t| &t.kind) {
            Some(TyKind::Tensor(t)) => t.dtype,
            _ => None,
        }
    }

    fn is_bool(&self, span: diag::Span) -> bool {
        self.dtype(span) == Some(ast::DtypeKind::Bool)
    }

    fn is_integer(&self, span: diag::Span) -> bool {
        matches!(
            self.dtype(span),
            Some(ast::DtypeKind::I64 | ast::DtypeKind::I32)
        )
    }

    /// `n` when `e` is `arange(n)` with a plain `n`.
    fn arange_length(&mut self, e: &Expr) -> Option<String> {
        let ExprKind::Call { callee, args } = &e.kind else {
            return None;
        };
        let ExprKind::Name(id) = &callee.kind else {
            return None;
        };
        if id.name != "arange" || args.len() != 1 || args[0].name.is_some() {
            return None;
        }
        let v = self.expr(&args[0].value);
        v.simple.then_some(v.code)
    }
}

/// A domain's interval for the run-time check of an `as` claim: its ends,
/// and whether they are open (`Pos`, `Neg`: 0 itself is outside).
fn domain_bounds(d: &Domain) -> Option<(&'static str, &'static str, bool)> {
    Some(match d {
        Domain::Unit => ("0.0", "1.0", false),
        Domain::Signed => ("-1.0", "1.0", false),
        Domain::NonNeg => ("0.0", "float(\"inf\")", false),
        Domain::NonPos => ("-float(\"inf\")", "0.0", false),
        Domain::Pos => ("0.0", "float(\"inf\")", true),
        Domain::Neg => ("-float(\"inf\")", "0.0", true),
        Domain::Bool => ("0", "1", false),
        Domain::Real | Domain::Index(_) => return None,
    })
}

/// The smallest positive normal `f32`, 2^-126: where `to Pos` clamps a
/// Python float (a tensor's clamp uses its dtype's `finfo.tiny`).
const F32_TINY: &str = "1.1754943508222875e-38";

/// `e to Pos` on a Python number: `max`/`min` with the domain's ends, which
/// keep an `Int` an `int` (`Pos` clamps it to 1) and a `Float` a `float`
/// (`Pos` to the smallest positive normal `f32`).
fn clamp_number(value: Val, range: check::hir::Range, int: bool) -> Val {
    let end = |v: f64, open: bool, up: bool| match (open && v == 0.0, int) {
        (true, true) => (if up { "1" } else { "-1" }).to_string(),
        (true, false) => format!("{}{F32_TINY}", if up { "" } else { "-" }),
        (false, _) => number_literal(v, int),
    };
    let mut code = value.code;
    if range.lo.is_finite() {
        code = format!("max({code}, {})", end(range.lo, range.lo_open, true));
    }
    if range.hi.is_finite() {
        code = format!("min({code}, {})", end(range.hi, range.hi_open, false));
    }
    Val::atom(code)
}

/// A domain's end as Python writes it: `0` for an `Int`, `0.0` for a `Float`.
fn number_literal(v: f64, int: bool) -> String {
    if int {
        format!("{}", v as i64)
    } else {
        format!("{v:?}")
    }
}

/// `text` without the parentheses around all of it: `eps as Pos` for
/// `(eps as Pos)`, but `(a) + (b)` as it is.
fn unparenthesized(text: &str) -> &str {
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return text;
    };
    let mut depth = 0i32;
    for c in inner.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return text;
        }
    }
    unparenthesized(inner.trim())
}
