//! `e as T` and `e to T` from the checker's plans (`AsCheck`, `ToPlan`):
//! the run-time verification of an `as` claim (shape, index bound, domain)
//! unless `--no-runtime-checks`, and the reshape, clamp and cast of a `to`.
//! Never decides a size or a domain itself.

use check::hir::ExprInfo;
use check::hir::{Domain, TyKind};
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
            .unwrap_or("")
            .to_string();
        let at = self.gen.where_(self.file, whole.span.start);
        match (kind, info) {
            (CastKind::As, Some(ExprInfo::As(check))) => {
                if !self.gen.options.runtime_checks {
                    return v;
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
                self.claim_domain(value, inner, domain.as_ref(), &written, &at)
            }
            (CastKind::To, Some(ExprInfo::To(plan))) => {
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
                if let (Some(_), Some(d)) = (&plan.clamp, &domain) {
                    value = self.clamp(value, d);
                } else if let Some(Domain::Bool) = &domain {
                    if plan.cast.is_none() && !self.is_bool(inner.span) {
                        value = Val {
                            code: format!("{} != 0", value.at(CMP + 1)),
                            prec: CMP,
                            simple: false,
                        };
                    }
                }
                if let Some(dtype) = plan.cast {
                    if dtype == ast::DtypeKind::Bool && !self.is_bool(inner.span) {
                        value = Val {
                            code: format!("{} != 0", value.at(CMP + 1)),
                            prec: CMP,
                            simple: false,
                        };
                    } else {
                        value = Val::atom(format!("{}.to({})", value.at(ATOM), torch_dtype(dtype)));
                    }
                } else if plan.to_float {
                    value = Val::atom(self.to_float(&value.at(ATOM)));
                } else if matches!(domain, Some(Domain::Index(_))) && !self.is_integer(inner.span) {
                    value = Val::atom(format!("{}.long()", value.at(ATOM)));
                }
                value
            }
            _ => v,
        }
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
