//! Adjoints of the ops that move elements: `broadcast` sums back over the
//! stretched axes, `transpose` applies the inverse permutation, `slice` pads
//! with zeros (through `concat`) and `concat` slices. No arithmetic other
//! than the sums of `broadcast`.

use sexpgpu_graph::{Graph, NodeId, OpError, ReduceOp, Shape};

/// Sums `adj` (of the broadcast result's shape) back to `from`: over the
/// leading axes `from` lacks and the axes where `from` has a 1 that was
/// stretched, then reshapes (the summed axes are all of length 1 in `from`,
/// so the element order is kept).
pub(super) fn unbroadcast(g: &mut Graph, adj: NodeId, from: &Shape) -> Result<NodeId, OpError> {
    let to = g.shape(adj).clone();
    let lead = to.rank() - from.rank();
    let axes: Vec<i64> = (0..to.rank())
        .filter(|&a| a < lead || (from.dims()[a - lead] == 1 && to.dims()[a] != 1))
        .map(|a| a as i64)
        .collect();
    let summed = g.reduce(ReduceOp::Sum, adj, Some(&axes), false)?;
    g.reshape(summed, from.clone())
}

/// `transpose` by the inverse of `perm`.
pub(super) fn untranspose(g: &mut Graph, adj: NodeId, perm: &[usize]) -> Result<NodeId, OpError> {
    let mut inverse = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i as i64;
    }
    g.transpose(adj, &inverse)
}

/// Puts `adj` back at `start..stop` along `axis` of `from`, with zeros around.
pub(super) fn unslice(
    g: &mut Graph,
    adj: NodeId,
    from: &Shape,
    axis: usize,
    start: usize,
    stop: usize,
) -> Result<NodeId, OpError> {
    let dtype = g.dtype(adj);
    let mut pieces = Vec::with_capacity(3);
    let zeros = |g: &mut Graph, len: usize| {
        let mut dims = from.dims().to_vec();
        dims[axis] = len;
        g.zeros(Shape::new(dims), dtype)
    };
    if start > 0 {
        pieces.push(zeros(g, start));
    }
    pieces.push(adj);
    let after = from.dims()[axis] - stop;
    if after > 0 {
        pieces.push(zeros(g, after));
    }
    g.concat(axis as i64, &pieces)
}

/// Each `wanted` input's part of `adj` along `axis`; an input that is empty
/// along the axis gets zeros (`slice` refuses empty ranges).
pub(super) fn unconcat(
    g: &mut Graph,
    adj: NodeId,
    inputs: &[NodeId],
    axis: usize,
    wanted: &[bool],
) -> Result<Vec<(usize, NodeId)>, OpError> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (i, &x) in inputs.iter().enumerate() {
        let len = g.shape(x).dims()[axis];
        if wanted[i] {
            let part = if len == 0 {
                g.zeros_like(x)
            } else {
                g.slice(adj, axis as i64, offset as i64, (offset + len) as i64)?
            };
            out.push((i, part));
        }
        offset += len;
    }
    Ok(out)
}
