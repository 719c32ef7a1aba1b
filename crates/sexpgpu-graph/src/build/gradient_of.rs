//! A value with another node's gradient (`docs/sexpgpu/autodiff.md`,
//! "Ties as PyTorch's"): the compositions whose value one node computes and
//! whose gradient PyTorch defines by another (`max-pool`'s index, every
//! value `scatter` and `max-unpool` send, `scatter-reduce`'s ties) join the
//! two here, out of primitive nodes, so that autodiff and the backends need
//! nothing of their own.

use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{BinaryOp, UnaryOp};

impl Graph {
    /// `value`, bit for bit, differentiated as `carrier` (a float of the
    /// same shape): where `carrier` is finite, `value - (carrier -
    /// carrier)` with `value` and the first `carrier` held
    /// (`stop-gradient`), a difference of +0 that keeps `value`'s signed
    /// zeros; where it is not, `carrier` itself, which the callers make
    /// equal to `value` there (an infinite or NaN result), unless `value`
    /// is finite (a sum that overflowed), which is then held.
    pub(super) fn with_gradient_of(
        &mut self,
        value: NodeId,
        carrier: NodeId,
    ) -> Result<NodeId, OpError> {
        let held = self.unary(UnaryOp::StopGradient, value)?;
        let held_carrier = self.unary(UnaryOp::StopGradient, carrier)?;
        let zero = self.binary(BinaryOp::Sub, held_carrier, carrier)?;
        let through = self.binary(BinaryOp::Sub, held, zero)?;
        let value_finite = self.float_test("isfinite", held)?;
        let otherwise = self.where_(value_finite, held, carrier)?;
        let finite = self.float_test("isfinite", held_carrier)?;
        self.where_(finite, through, otherwise)
    }
}
