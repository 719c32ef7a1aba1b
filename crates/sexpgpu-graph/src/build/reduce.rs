//! Builders for reductions (`sum`, `max`) and batched `matmul`, the ops that
//! contract axes. Never computes values.

use crate::dtype::DType;
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{Op, ReduceOp};
use crate::shape::{
    broadcast_shapes, explain_broadcast_clash, format_list, normalize_axis_for, Shape,
};

/// The shape a reduction over `reduced` (axes of `shape`) leaves: each
/// reduced axis dropped, or kept with length 1 under `keepdims`.
pub(super) fn reduced_shape(shape: &Shape, reduced: &[usize], keepdims: bool) -> Shape {
    let dims = (0..shape.rank())
        .filter_map(|a| match (reduced.contains(&a), keepdims) {
            (false, _) => Some(shape.dims()[a]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    Shape::new(dims)
}

impl Graph {
    /// `(sum x :axes [..] :keepdims ..)`, `(max ...)`: `axes` `None` means
    /// every axis; an empty list reduces nothing and adds no node. Numeric
    /// dtypes only (`max` of `bool` is `any`); `max` over an axis of length 0 has no answer and is refused.
    pub fn reduce(
        &mut self,
        op: ReduceOp,
        x: NodeId,
        axes: Option<&[i64]>,
        keepdims: bool,
    ) -> Result<NodeId, OpError> {
        let name = op.name();
        if op == ReduceOp::Max && self.dtype(x) == DType::Bool {
            return self.bool_extreme(true, x, axes, keepdims);
        }
        let dtype = self.dtype_where(name, x, DType::is_numeric, "a float or integer tensor")?;
        let from = self.shape(x).clone();
        let mut reduced = vec![false; from.rank()];
        match axes {
            None => reduced.iter_mut().for_each(|r| *r = true),
            Some(axes) => {
                for &axis in axes {
                    let a = normalize_axis_for(name, axis, &from)?;
                    if reduced[a] {
                        return Err(OpError::dim(format!(
                            "{name}: axis {axis} appears twice in {}",
                            format_list(axes)
                        )));
                    }
                    reduced[a] = true;
                }
            }
        }
        let axes: Vec<usize> = (0..from.rank()).filter(|&a| reduced[a]).collect();
        if axes.is_empty() {
            return Ok(x);
        }
        if op == ReduceOp::Max {
            if let Some(&a) = axes.iter().find(|&&a| from.dims()[a] == 0) {
                return Err(OpError::dim(format!(
                    "max: axis {a} of {from} is empty; the maximum of nothing is undefined"
                )));
            }
        }
        let shape = reduced_shape(&from, &axes, keepdims);
        Ok(self.push(Op::Reduce { op, axes, keepdims }, vec![x], shape, dtype))
    }

    /// `x` with its `reduced` axes moved last and merged into one, of their
    /// lengths' product `n`: `[kept.., n]`; also those dims.
    pub(super) fn reduced_axes_last(
        &mut self,
        x: NodeId,
        reduced: &[usize],
    ) -> Result<(NodeId, Vec<usize>), OpError> {
        let shape = self.shape(x).clone();
        let kept: Vec<usize> = (0..shape.rank()).filter(|a| !reduced.contains(a)).collect();
        let perm: Vec<i64> = kept.iter().chain(reduced).map(|&a| a as i64).collect();
        let moved = self.transpose(x, &perm)?;
        let mut rows: Vec<usize> = kept.iter().map(|&a| shape.dims()[a]).collect();
        rows.push(reduced.iter().map(|&a| shape.dims()[a]).product());
        let merged = self.reshape(moved, Shape::new(rows.clone()))?;
        Ok((merged, rows))
    }

    /// `(matmul a b)`: `[..., m, k] x [..., k, n] -> [..., m, n]`, leading
    /// (batch) dims broadcast NumPy-style, each through a `broadcast` node.
    /// 1-D operands follow NumPy: `a` of `[k]` is a row `[1, k]` and `b` of
    /// `[k]` a column `[k, 1]`, through `reshape` nodes, and that dim is
    /// dropped from the result again (so vector x vector is a scalar).
    pub fn matmul(&mut self, a: NodeId, b: NodeId) -> Result<NodeId, OpError> {
        let dtype = self.same_dtype("matmul", &[a, b])?;
        if !dtype.is_numeric() {
            return Err(OpError::dtype(format!(
                "matmul: expects float or integer tensors, got {dtype}"
            )));
        }
        let (sa, sb) = (self.shape(a).clone(), self.shape(b).clone());
        if sa.rank() == 0 || sb.rank() == 0 {
            return Err(OpError::dim(format!(
                "matmul: expects tensors of rank 1 or more, got {sa} x {sb}"
            )));
        }
        let a_dims = if sa.rank() == 1 {
            vec![1, sa.dims()[0]]
        } else {
            sa.dims().to_vec()
        };
        let b_dims = if sb.rank() == 1 {
            vec![sb.dims()[0], 1]
        } else {
            sb.dims().to_vec()
        };
        let (a_batch, a_mat) = a_dims.split_at(a_dims.len() - 2);
        let (b_batch, b_mat) = b_dims.split_at(b_dims.len() - 2);
        let (a_batch, b_batch) = (Shape::from(a_batch), Shape::from(b_batch));
        let batch = broadcast_shapes(&a_batch, &b_batch);
        if a_mat[1] != b_mat[0] {
            let err = OpError::dim(format!("matmul: inner dims differ: {sa} x {sb}"));
            let err = match &batch {
                Some(batch) if a_batch != b_batch => err.with_note(format!(
                    "batch dims {a_batch} and {b_batch} would broadcast to {batch}"
                )),
                _ => err,
            };
            return Err(err);
        }
        let Some(batch) = batch else {
            return Err(
                OpError::dim(format!("matmul: batch dims do not broadcast: {sa} x {sb}"))
                    .with_note(explain_broadcast_clash(&[&a_batch, &b_batch])),
            );
        };
        let (m, k, n) = (a_mat[0], a_mat[1], b_mat[1]);
        let a = self.reshape(a, Shape::from(a_dims.as_slice()))?;
        let b = self.reshape(b, Shape::from(b_dims.as_slice()))?;
        let a = self.broadcast_node(a, &Shape::new([batch.dims(), &[m, k]].concat()));
        let b = self.broadcast_node(b, &Shape::new([batch.dims(), &[k, n]].concat()));
        let full = Shape::new([batch.dims(), &[m, n]].concat());
        let product = self.push(Op::Matmul, vec![a, b], full, dtype);
        let mut result: Vec<usize> = batch.dims().to_vec();
        if sa.rank() > 1 {
            result.push(m);
        }
        if sb.rank() > 1 {
            result.push(n);
        }
        self.reshape(product, Shape::new(result))
    }
}
