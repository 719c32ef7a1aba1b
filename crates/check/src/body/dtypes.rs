//! The dtype rules of operators and built-ins (`docs/shapescript/dtypes.md`):
//! an elementwise result has the dtype PyTorch's promotion gives its
//! operands (`crate::dtype`), true division and the float-only operations
//! make floats of integers, and what PyTorch does not define for a dtype
//! (`-` with a bool, `abs` of a bool, `mean` of integers, `@` of two
//! dtypes) is E0503 here rather than a `RuntimeError` there.

use diag::{Diagnostic, Span};
use syntax::ast::{BinaryOp, ScalarKind};

use super::FnChecker;
use crate::codes;
use crate::dtype::{self, Category, Dtype, NoResult, Operand, Rank};
use crate::shape::{effective_dtype, show_ty};
use crate::types::{DtypeKind, Ty, TyKind};

/// What a type is to promotion: a tensor with its dtype and rank, or a
/// Python number; `None` for any other value.
pub(crate) fn operand(ty: &Ty) -> Option<Operand> {
    match &ty.kind {
        TyKind::Tensor(t) => {
            let rank = match &t.shape {
                None => Rank::Unknown,
                Some(s) if s.is_empty() => Rank::Zero,
                Some(_) => Rank::Positive,
            };
            Some(Operand::Tensor(effective_dtype(t), rank))
        }
        TyKind::Scalar(kind) => Some(Operand::Number(*kind)),
        _ => None,
    }
}

/// A tensor's dtype (`None`: the call's float dtype); a number's is none.
pub(crate) fn tensor_dtype(ty: &Ty) -> Option<Dtype> {
    match &ty.kind {
        TyKind::Tensor(t) => Some(effective_dtype(t)),
        _ => None,
    }
}

fn is_bool(ty: &Ty) -> bool {
    match &ty.kind {
        TyKind::Tensor(t) => effective_dtype(t) == Some(DtypeKind::Bool),
        TyKind::Scalar(kind) => *kind == ScalarKind::Bool,
        _ => false,
    }
}

impl FnChecker<'_, '_> {
    /// The dtype PyTorch gives elementwise `operands` (whose float dtypes
    /// `unify_dtypes` already found to agree); E0502 when a shapeless
    /// operand's rank would decide it.
    pub(super) fn promoted(&mut self, operands: &[(&Ty, Span)], what: &str) -> Option<Dtype> {
        let ops: Vec<Operand> = operands.iter().filter_map(|(t, _)| operand(t)).collect();
        match dtype::result_type(&ops) {
            Ok(d) => Some(d),
            // Reported by `unify_dtypes` before.
            Err(NoResult::FloatMix(..)) => None,
            Err(NoResult::DependsOnRank) => {
                let (ty, at) = operands
                    .iter()
                    .find(|(t, _)| matches!(operand(t), Some(Operand::Tensor(_, Rank::Unknown))))
                    .copied()
                    .unwrap_or(operands[0]);
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0502,
                        format!("the dtype of `{what}` depends on how many axes `{}` has", show_ty(ty)),
                    )
                    .with_primary(at, "a shapeless tensor: it may have axes or none")
                    .with_note("PyTorch promotes two integer or two float dtypes to the one of a tensor with axes, whatever the dtype of a tensor without axes")
                    .with_help("convert one side so both have the same dtype, as in `... to i64`"),
                );
                None
            }
        }
    }

    /// The dtype of the arithmetic `op` on `operands`, promoted to
    /// `promoted`: true division makes a float of integers, and `-` with a
    /// bool and a power of two bools are E0503, as PyTorch raises.
    pub(super) fn operator_dtype(
        &mut self,
        op: BinaryOp,
        operands: &[(&Ty, Span)],
        promoted: Dtype,
    ) -> Option<Dtype> {
        match op {
            BinaryOp::Sub => {
                if let Some((ty, at)) = operands.iter().find(|(t, _)| is_bool(t)) {
                    self.undefined_for(
                        "`-`",
                        ty,
                        *at,
                        "subtract from `1` after converting (`(m to i64)`), or use `where` or `not`",
                    );
                    return None;
                }
                Some(promoted)
            }
            BinaryOp::Div if dtype::is_integral(promoted) => Some(Some(DtypeKind::F32)),
            BinaryOp::Pow
                if operands.iter().all(|(t, _)| {
                    is_bool(t) && operand(t).is_some_and(|o| matches!(o, Operand::Tensor(..)))
                }) =>
            {
                let (ty, at) = operands[0];
                self.undefined_for(
                    "`**` of two bool tensors",
                    ty,
                    at,
                    "convert the base first: `(m to i64) ** e`",
                );
                None
            }
            _ => Some(promoted),
        }
    }

    /// `where`'s condition: a bool tensor or a Python `Bool` (E0503, as
    /// PyTorch's `where` raises for another dtype).
    pub(super) fn is_condition(&mut self, (ty, at): (&Ty, Span)) -> bool {
        if is_bool(ty) {
            return true;
        }
        let what = match tensor_dtype(ty) {
            Some(d) => dtype::show(d).to_string(),
            None => format!("`{}`", show_ty(ty)),
        };
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0503,
                format!("`where` takes a bool condition, not {what}"),
            )
            .with_primary(at, format!("this is `{}`", show_ty(ty)))
            .with_note("PyTorch's `where` raises for a condition of another dtype")
            .with_help("compare to make a mask, as in `where(x > 0.0, a, b)`"),
        );
        false
    }

    /// Ids are integers (`take`'s, `one_hot`'s): PyTorch reads a bool
    /// tensor as a mask and refuses floats (E0502).
    pub(super) fn are_ids(&mut self, what: &str, ty: &Ty, at: Span) -> bool {
        let Some(d) = tensor_dtype(ty) else {
            return true;
        };
        if dtype::category(d) == Category::Int {
            return true;
        }
        let help = if d == Some(DtypeKind::Bool) {
            "a mask selects rather than picks: index with it, `x[mask]`"
        } else {
            "ids are whole positions: `... to Index[n]` rounds and checks them"
        };
        self.diagnostics.push(
            Diagnostic::error(
                codes::E0502,
                format!("`{what}` takes integer ids, not {}", dtype::show(d)),
            )
            .with_primary(at, format!("this is `{}`", show_ty(ty)))
            .with_help(help),
        );
        false
    }

    /// Unary `-`: not of a bool tensor.
    pub(super) fn negation_defined(&mut self, ty: &Ty, at: Span) -> bool {
        if is_bool(ty) {
            self.undefined_for("`-`", ty, at, "to flip a mask use `not m`");
            return false;
        }
        true
    }

    /// Whether the built-in `what` is defined for the dtype of `ty`,
    /// whose category must be at least `least` (`Float` for `mean`, `Int`
    /// for `argmax`); E0503 otherwise.
    pub(super) fn takes_category(
        &mut self,
        what: &str,
        ty: &Ty,
        at: Span,
        least: Category,
    ) -> bool {
        let Some(d) = tensor_dtype(ty) else {
            return true;
        };
        if dtype::category(d) >= least {
            return true;
        }
        let help = match least {
            Category::Float => "convert it to a float dtype first: `x to Real`, or `x to f32`",
            _ => "convert it first: `m to i64`",
        };
        self.undefined_for(&format!("`{what}`"), ty, at, help);
        false
    }

    /// `@` and `einsum`: PyTorch multiplies tensors of one float dtype
    /// only (it does not promote; integers and bools are E0503).
    pub(super) fn product_dtype(&mut self, what: &str, operands: &[(&Ty, Span)]) -> Option<Dtype> {
        self.unify_dtypes(operands, what)?;
        let mut first: Option<(Dtype, Span)> = None;
        for (ty, span) in operands {
            let Some(d) = tensor_dtype(ty) else {
                continue;
            };
            if dtype::category(d) != Category::Float {
                self.undefined_for(
                    &format!("`{what}`"),
                    ty,
                    *span,
                    "multiply floats: convert with `to Real` (the call's float dtype) or `to f32`",
                );
                return None;
            }
            match first {
                None => first = Some((d, *span)),
                Some((f, at)) if f != d => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::E0502,
                            format!("`{what}` of {} and {}", dtype::show(f), dtype::show(d)),
                        )
                        .with_primary(*span, format!("this is {}", dtype::show(d)))
                        .with_secondary(at, format!("this is {}", dtype::show(f)))
                        .with_note(format!(
                            "PyTorch's `{what}` takes tensors of one dtype: it does not promote"
                        ))
                        .with_help(format!("convert one side: `... to {}`", dtype::show(f))),
                    );
                    return None;
                }
                Some(_) => {}
            }
        }
        Some(first.and_then(|(d, _)| d))
    }

    /// E0503: `what` is not defined for the dtype of `ty` (at `at`).
    fn undefined_for(&mut self, what: &str, ty: &Ty, at: Span, help: &str) {
        let d = tensor_dtype(ty).map_or("a Python `Bool`", dtype::show);
        self.diagnostics.push(
            Diagnostic::error(codes::E0503, format!("{what} is not defined for {d}"))
                .with_primary(at, format!("this is `{}`", show_ty(ty)))
                .with_note(format!("PyTorch raises a `RuntimeError` for {what} of {d}"))
                .with_help(help.to_string()),
        );
    }
}
