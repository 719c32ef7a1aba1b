//! Graph builders: one method per operation, each checking the book's shape
//! and dtype rules and appending nodes (with explicit `broadcast` nodes) or
//! returning an [`OpError`]. Shared helpers for operands and broadcasting
//! live here; builders never compute element values.

mod attention;
mod compose;
mod compose_index;
mod compose_layout;
mod compose_math;
mod compose_scan;
mod compose_scatter;
mod conv;
mod create;
mod einsum;
mod elementwise;
mod gradient_of;
mod indexing;
mod layout;
mod pool;
mod reduce;
mod unpool;
mod window;

pub use compose_scatter::ScatterReduce;
pub use conv::{ConvOptions, ConvPadding};
pub use pool::{PoolOptions, Resize};
pub use window::{PadMode, PerAxis};

#[cfg(test)]
mod tests;

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId, Operand};
use crate::op::Op;
use crate::shape::{broadcast_shapes, explain_broadcast_clash, normalize_axis_for, Shape};

impl Graph {
    /// `x`'s dtype when `accepts` takes it, else `E-DIM-002`'s
    /// "`op`: expects `wanted`, got ..." (the builders' one dtype check).
    pub(crate) fn dtype_where(
        &self,
        op: &str,
        x: NodeId,
        accepts: fn(DType) -> bool,
        wanted: &str,
    ) -> Result<DType, OpError> {
        let dtype = self.dtype(x);
        if !accepts(dtype) {
            return Err(OpError::dtype(format!(
                "{op}: expects {wanted}, got {dtype}"
            )));
        }
        Ok(dtype)
    }

    /// `x`'s shape, `axis` of it (negative from the end) for `op`, and
    /// that axis's length.
    pub(crate) fn along(
        &self,
        op: &str,
        x: NodeId,
        axis: i64,
    ) -> Result<(Shape, usize, usize), OpError> {
        let shape = self.shape(x).clone();
        let a = normalize_axis_for(op, axis, &shape)?;
        let n = shape.dims()[a];
        Ok((shape, a, n))
    }

    /// A scalar constant of `like`'s dtype: how a number mixed with a tensor
    /// enters the graph. A float next to an integer or boolean tensor (and a
    /// number next to a boolean one) is refused with `E-DIM-002`.
    pub fn scalar_like(
        &mut self,
        op: &str,
        value: Scalar,
        like: NodeId,
    ) -> Result<NodeId, OpError> {
        let dtype = self.dtype(like);
        let value = value.convert_to(dtype).ok_or_else(|| {
            OpError::dtype(match value.out_of_range(dtype) {
                Some(why) => format!("{op}: {why}, the tensor's dtype"),
                None => format!(
                    "{op}: {value} is {}, but the tensor is {dtype}",
                    value.kind_phrase()
                ),
            })
        })?;
        Ok(self.push(Op::Full { value }, Vec::new(), Shape::scalar(), dtype))
    }

    /// Turns operands into tensors of one dtype: numbers take the dtype of the
    /// first tensor among them; when all are numbers, `default` decides (or
    /// the numbers' own kind when `default` is `None`).
    pub(crate) fn materialize(
        &mut self,
        op: &str,
        operands: &[Operand],
        default: Option<DType>,
    ) -> Result<Vec<NodeId>, OpError> {
        let like = operands.iter().find_map(|o| match o {
            Operand::Tensor(id) => Some(*id),
            Operand::Number(_) => None,
        });
        let like = match like {
            Some(id) => id,
            None => {
                let Some(dtype) = default.or_else(|| numbers_dtype(operands)) else {
                    return Err(OpError::not_a_tensor(format!(
                        "{op}: expects at least one tensor"
                    )));
                };
                let Some(Operand::Number(first)) = operands.first() else {
                    return Err(OpError::not_a_tensor(format!(
                        "{op}: expects at least one tensor"
                    )));
                };
                let value = first.convert_to(dtype).ok_or_else(|| {
                    OpError::dtype(match first.out_of_range(dtype) {
                        Some(why) => format!("{op}: {why}"),
                        None => format!("{op}: {first} is {}, not {dtype}", first.kind_phrase()),
                    })
                })?;
                self.push(Op::Full { value }, Vec::new(), Shape::scalar(), dtype)
            }
        };
        let mut out = Vec::with_capacity(operands.len());
        for o in operands {
            out.push(match *o {
                Operand::Tensor(id) => id,
                Operand::Number(value) => self.scalar_like(op, value, like)?,
            });
        }
        Ok(out)
    }

    /// Checks that all tensors share one dtype: `+: dtypes differ: f32 and bf16`.
    pub(crate) fn same_dtype(&self, op: &str, ids: &[NodeId]) -> Result<DType, OpError> {
        let first = self.dtype(ids[0]);
        if let Some(&other) = ids.iter().find(|&&id| self.dtype(id) != first) {
            return Err(OpError::dtype(format!(
                "{op}: dtypes differ: {first} and {}",
                self.dtype(other)
            )));
        }
        Ok(first)
    }

    /// Broadcasts every tensor to their common shape, adding one `broadcast`
    /// node for each that changes.
    pub(crate) fn broadcast_all(
        &mut self,
        op: &str,
        ids: &[NodeId],
    ) -> Result<(Vec<NodeId>, Shape), OpError> {
        let shapes: Vec<Shape> = ids.iter().map(|&id| self.shape(id).clone()).collect();
        let mut target = Shape::scalar();
        for s in &shapes {
            target = match broadcast_shapes(&target, s) {
                Some(t) => t,
                None => {
                    let listed: Vec<String> = shapes.iter().map(|s| s.to_string()).collect();
                    let refs: Vec<&Shape> = shapes.iter().collect();
                    return Err(OpError::dim(format!(
                        "{op}: shapes do not broadcast: {}",
                        join_and(&listed)
                    ))
                    .with_note(explain_broadcast_clash(&refs)));
                }
            };
        }
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            out.push(self.broadcast_node(id, &target));
        }
        Ok((out, target))
    }

    /// A `broadcast` node from `id` to `target`, or `id` itself when the
    /// shape already matches. The caller has checked that it broadcasts.
    pub(crate) fn broadcast_node(&mut self, id: NodeId, target: &Shape) -> NodeId {
        if self.shape(id) == target {
            return id;
        }
        let dtype = self.dtype(id);
        self.push(Op::Broadcast, vec![id], target.clone(), dtype)
    }
}

/// The dtype plain numbers take together: `f32` if any is a float.
fn numbers_dtype(operands: &[Operand]) -> Option<DType> {
    let mut dtype = None;
    for o in operands {
        if let Operand::Number(s) = o {
            dtype = Some(match (dtype, s.default_dtype()) {
                (Some(DType::F32), _) | (_, DType::F32) => DType::F32,
                (_, d) => d,
            });
        }
    }
    dtype
}

/// `a and b`, `a, b and c`.
pub(crate) fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
