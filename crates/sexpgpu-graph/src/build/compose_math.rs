//! Arithmetic built from other nodes where PyTorch defines more than the
//! primitives take (`docs/sexpgpu/operations.md`): `logaddexp`, `pow` of
//! integers, and `maximum`/`minimum`/`max`/`min` of `bool` tensors. Each is
//! exact: integer powers by repeated squaring, wrapping as PyTorch's do.

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId, Operand};
use crate::op::{BinaryOp, CompareOp, UnaryOp};

impl Graph {
    /// `(logaddexp a b)`: `log(exp a + exp b)` without overflow, as
    /// PyTorch's: `max + log1p(exp(min - max))`, and `a` itself where both
    /// are the same infinity; bf16 in f32, rounded once. Its gradient is
    /// PyTorch's too: `sigmoid(a - b)` to `a`, NaN where both are the same
    /// infinity.
    pub fn logaddexp(
        &mut self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<NodeId, OpError> {
        let ids = self.materialize("logaddexp", &[a.into(), b.into()], None)?;
        self.same_dtype("logaddexp", &ids)?;
        let dtype = self.dtype_where("logaddexp", ids[0], DType::is_float, "float tensors")?;
        let (ids, _) = self.broadcast_all("logaddexp", &ids)?;
        if dtype == DType::BF16 {
            // In f32 and rounded once, as PyTorch's opmath computes it.
            let (a, b) = (self.cast(ids[0], DType::F32), self.cast(ids[1], DType::F32));
            let wide = self.logaddexp(a, b)?;
            return Ok(self.cast(wide, DType::BF16));
        }
        let (a, b) = (ids[0], ids[1]);
        // The larger and the smaller chosen by one mask, so a tie gives
        // each half the gradient (the formula's `exp(0) / 2`).
        let a_larger = self.compare(CompareOp::Ge, a, b)?;
        let top = self.where_(a_larger, a, b)?;
        let low = self.where_(a_larger, b, a)?;
        let gap = self.binary(BinaryOp::Sub, low, top)?;
        let small = self.unary(UnaryOp::Exp, gap)?;
        let small = self.unary(UnaryOp::Log1p, small)?;
        let sum = self.binary(BinaryOp::Add, top, small)?;
        let same = self.compare(CompareOp::Eq, a, b)?;
        let infinite = self.float_test("isinf", a)?;
        let both = self.binary(BinaryOp::BitAnd, same, infinite)?;
        self.where_(both, a, sum)
    }

    /// The operations a primitive refuses but PyTorch defines through
    /// others: `pow` of integers, `maximum`/`minimum` of `bool`s (or and
    /// and). `None` for every other operation.
    pub(crate) fn binary_composed(
        &mut self,
        op: BinaryOp,
        a: Operand,
        b: Operand,
    ) -> Result<Option<NodeId>, OpError> {
        let dtype = [a, b].into_iter().find_map(|o| match o {
            Operand::Tensor(t) => Some(self.dtype(t)),
            Operand::Number(_) => None,
        });
        Ok(Some(match (op, dtype) {
            (BinaryOp::Pow, Some(d)) if d.is_integer() => self.int_pow(a, b)?,
            (BinaryOp::Maximum, Some(DType::Bool)) => self.binary(BinaryOp::BitOr, a, b)?,
            (BinaryOp::Minimum, Some(DType::Bool)) => self.binary(BinaryOp::BitAnd, a, b)?,
            _ => return Ok(None),
        }))
    }

    /// `(pow x n)` of integers, as PyTorch's: exact, wrapping on overflow.
    /// A number exponent is unrolled into squarings (a negative one is
    /// refused, as PyTorch refuses it); a tensor exponent is taken bit by
    /// bit, and where it is negative the result is PyTorch's: 1 for a base
    /// of 1, ±1 for -1, else 0.
    fn int_pow(&mut self, base: Operand, exponent: Operand) -> Result<NodeId, OpError> {
        match (base, exponent) {
            (Operand::Tensor(_), Operand::Number(Scalar::Int(n))) if n < 0 => Err(OpError::dtype(
                format!("pow: integers to negative integer powers are not allowed (exponent {n})"),
            )
            .with_note("PyTorch refuses them too; cast the base to a float dtype first")),
            (Operand::Tensor(x), Operand::Number(Scalar::Int(n))) => Ok(self.pow_unrolled(x, n)),
            _ => {
                let ids = self.materialize("pow", &[base, exponent], None)?;
                self.same_dtype("pow", &ids)?;
                let (ids, _) = self.broadcast_all("pow", &ids)?;
                self.pow_by_bits(ids[0], ids[1])
            }
        }
    }

    /// `x^n` for a known `n >= 0`: square and multiply.
    fn pow_unrolled(&mut self, x: NodeId, mut n: i64) -> NodeId {
        let mut acc: Option<NodeId> = None;
        let mut square = x;
        while n > 0 {
            if n & 1 == 1 {
                acc = Some(match acc {
                    Some(acc) => self.push_mul(acc, square),
                    None => square,
                });
            }
            n >>= 1;
            if n > 0 {
                square = self.push_mul(square, square);
            }
        }
        acc.unwrap_or_else(|| self.ones_like(x))
    }

    /// `a * b` of two integer tensors of one shape and dtype.
    fn push_mul(&mut self, a: NodeId, b: NodeId) -> NodeId {
        let (shape, dtype) = (self.shape(a).clone(), self.dtype(a));
        self.push(
            crate::op::Op::Binary(BinaryOp::Mul),
            vec![a, b],
            shape,
            dtype,
        )
    }

    /// `x^e` of integer tensors of one shape: one squaring per bit of the
    /// dtype, then PyTorch's values where `e` is negative.
    fn pow_by_bits(&mut self, x: NodeId, e: NodeId) -> Result<NodeId, OpError> {
        let bits = if self.dtype(x) == DType::I32 { 31 } else { 63 };
        let mut acc = self.ones_like(x);
        let mut square = x;
        for bit in 0..bits {
            let set = self.binary(BinaryOp::BitAnd, e, 1i64 << bit)?;
            let set = self.compare(CompareOp::Ne, set, 0i64)?;
            let times = self.push_mul(acc, square);
            acc = self.where_(set, times, acc)?;
            square = self.push_mul(square, square);
        }
        let odd = self.binary(BinaryOp::BitAnd, e, 1i64)?;
        let odd = self.compare(CompareOp::Ne, odd, 0i64)?;
        let number = |g: &mut Graph, v: i64| g.scalar_like("pow", Scalar::Int(v), x);
        let (minus, plus, zero) = (number(self, -1)?, number(self, 1)?, number(self, 0)?);
        let sign = self.where_(odd, minus, plus)?;
        let minus_one = self.compare(CompareOp::Eq, x, minus)?;
        let one = self.compare(CompareOp::Eq, x, plus)?;
        let inverse = self.where_(one, plus, zero)?;
        let inverse = self.where_(minus_one, sign, inverse)?;
        let negative = self.compare(CompareOp::Lt, e, 0i64)?;
        self.where_(negative, inverse, acc)
    }

    /// `max`/`min` over axes of a `bool` tensor: `any`/`all`, refused over
    /// an empty axis as the numeric reduction is.
    pub(crate) fn bool_extreme(
        &mut self,
        max: bool,
        x: NodeId,
        axes: Option<&[i64]>,
        keepdims: bool,
    ) -> Result<NodeId, OpError> {
        let name = if max { "max" } else { "min" };
        self.reduced_axes(name, x, axes, true)?;
        self.any_all(!max, x, axes, keepdims)
    }
}
