//! Builders for elementwise operations: unaries, the overloaded binaries,
//! comparisons, `where` and `cast`. Never computes values.

use crate::dtype::DType;
use crate::error::OpError;
use crate::graph::{Graph, NodeId, Operand};
use crate::op::{BinaryOp, CompareOp, Op, UnaryOp};

impl Graph {
    /// `(neg x)`, `(sin x)`, ...: floats only, except `neg` and `abs`, which
    /// also take integers.
    pub fn unary(&mut self, op: UnaryOp, x: NodeId) -> Result<NodeId, OpError> {
        let dtype = self.dtype(x);
        if op.is_rounding() && dtype.is_integer() {
            return Ok(x);
        }
        // Integers and booleans carry no gradient to stop.
        if op == UnaryOp::StopGradient && !dtype.is_float() {
            return Ok(x);
        }
        let ok = dtype.is_float() || (op.accepts_integers() && dtype.is_integer());
        if !ok {
            let wanted = if op.accepts_integers() {
                "a float or integer tensor"
            } else {
                "a float tensor"
            };
            return Err(OpError::dtype(format!(
                "{}: expects {wanted}, got {dtype}",
                op.name()
            )));
        }
        let shape = self.shape(x).clone();
        Ok(self.push(Op::Unary(op), vec![x], shape, dtype))
    }

    /// `(+ a b)` and the other elementwise pairs. Operands may be plain
    /// numbers next to a tensor; shapes broadcast as NumPy does. `pow` of
    /// integers and `maximum`/`minimum` of `bool`s are compositions
    /// (`binary_composed`).
    pub fn binary(
        &mut self,
        op: BinaryOp,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<NodeId, OpError> {
        let name = op.symbol();
        let (a, b) = (a.into(), b.into());
        if let Some(id) = self.binary_composed(op, a, b)? {
            return Ok(id);
        }
        let ids = self.materialize(name, &[a, b], None)?;
        let dtype = self.same_dtype(name, &ids)?;
        if !op.operands().accepts(dtype) {
            return Err(OpError::dtype(format!(
                "{name}: expects {}, got {dtype}",
                op.operands().wanted()
            )));
        }
        let (ids, shape) = self.broadcast_all(name, &ids)?;
        Ok(self.push(Op::Binary(op), ids, shape, dtype))
    }

    /// `(< a b)` and the other comparisons: operands of one dtype, broadcast;
    /// the result is `bool`.
    pub fn compare(
        &mut self,
        op: CompareOp,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<NodeId, OpError> {
        let name = op.symbol();
        let ids = self.materialize(name, &[a.into(), b.into()], None)?;
        self.same_dtype(name, &ids)?;
        let (ids, shape) = self.broadcast_all(name, &ids)?;
        Ok(self.push(Op::Compare(op), ids, shape, DType::Bool))
    }

    /// `(where mask a b)`: `mask` is `bool`; `a` and `b` share a dtype (plain
    /// numbers take it); all three broadcast to one shape.
    pub fn where_(
        &mut self,
        mask: NodeId,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<NodeId, OpError> {
        let mask_dtype = self.dtype(mask);
        if mask_dtype != DType::Bool {
            return Err(OpError::dtype(format!(
                "where: mask must be bool, got {mask_dtype}"
            )));
        }
        let values = self.materialize("where", &[a.into(), b.into()], None)?;
        let dtype = self.same_dtype("where", &values)?;
        let (ids, shape) = self.broadcast_all("where", &[mask, values[0], values[1]])?;
        Ok(self.push(Op::Where, ids, shape, dtype))
    }

    /// `(cast x :bf16)`: any dtype to any other; to the same dtype it is the
    /// identity and adds no node. Floats to integers truncate toward zero
    /// (saturating, NaN to 0); numbers to bool are `x != 0`.
    pub fn cast(&mut self, x: NodeId, dtype: DType) -> NodeId {
        if self.dtype(x) == dtype {
            return x;
        }
        let shape = self.shape(x).clone();
        self.push(Op::Cast, vec![x], shape, dtype)
    }
}
