//! Adjoints of the ops that contract axes: `sum` (broadcast back), `max`
//! (shared equally among the positions that reach the maximum, as JAX's
//! `reduce_max` does) and batched `matmul` (products with the other operand
//! transposed; batch dims are already equal, their broadcast has its own node).

use sexpgpu_graph::{BinaryOp, CompareOp, Graph, NodeId, OpError, ReduceOp, Shape};

/// `from` with every reduced axis kept as a 1: the shape a reduction's
/// result has under `keepdims`.
fn kept_shape(from: &Shape, axes: &[usize]) -> Shape {
    let mut dims = from.dims().to_vec();
    for &a in axes {
        dims[a] = 1;
    }
    Shape::new(dims)
}

/// The adjoint of `x` of shape `from` in `sum(x, axes)`: `adj` with the
/// reduced axes restored as 1s, broadcast back over them.
pub(super) fn sum(
    g: &mut Graph,
    from: &Shape,
    axes: &[usize],
    adj: NodeId,
) -> Result<NodeId, OpError> {
    // Under keepdims `adj` already has the kept shape and this adds no node.
    let kept = g.reshape(adj, kept_shape(from, axes))?;
    g.broadcast_to(kept, from.clone())
}

/// The adjoint of `x` in `y = max(x, axes)`: `adj` split equally among the
/// positions equal to the maximum. Where the maximum is NaN no position
/// equals it and the adjoint is 0.
pub(super) fn max(
    g: &mut Graph,
    x: NodeId,
    y: NodeId,
    axes: &[usize],
    adj: NodeId,
) -> Result<NodeId, OpError> {
    let from = g.shape(x).clone();
    let kept = kept_shape(&from, axes);
    let dtype = g.dtype(x);
    let y_kept = g.reshape(y, kept.clone())?;
    let y_wide = g.broadcast_to(y_kept, from.clone())?;
    let at_max = g.compare(CompareOp::Eq, x, y_wide)?;
    let ones = g.cast(at_max, dtype);
    let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let counts = g.reduce(ReduceOp::Sum, ones, Some(&axes), true)?;
    let adj_kept = g.reshape(adj, kept)?;
    let share = g.binary(BinaryOp::Div, adj_kept, counts)?;
    let share_wide = g.broadcast_to(share, from)?;
    g.where_(at_max, share_wide, 0.0)
}

/// The adjoints of `a` `[B..., m, k]` and `b` `[B..., k, n]` in `a @ b`:
/// `adj @ b^T` and `a^T @ adj`.
pub(super) fn matmul(
    g: &mut Graph,
    a: NodeId,
    b: NodeId,
    adj: NodeId,
    wanted: &[bool],
) -> Result<(Option<NodeId>, Option<NodeId>), OpError> {
    let rank = g.shape(a).rank();
    let mut swap: Vec<i64> = (0..rank as i64).collect();
    swap.swap(rank - 2, rank - 1);
    let ga = if wanted[0] {
        let bt = g.transpose(b, &swap)?;
        Some(g.matmul(adj, bt)?)
    } else {
        None
    };
    let gb = if wanted[1] {
        let at = g.transpose(a, &swap)?;
        Some(g.matmul(at, adj)?)
    } else {
        None
    };
    Ok((ga, gb))
}
