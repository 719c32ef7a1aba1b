//! Adjoints of the ops that move elements: `broadcast` sums back over the
//! stretched axes, `transpose` applies the inverse permutation, `slice` pads
//! with zeros (through `concat`) and `concat` slices. No arithmetic other
//! than the sums of `broadcast`.

use sexpgpu_graph::{Graph, NodeId, Op, OpError, ReduceOp, Shape};

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
    let summed = match folded_product(g, adj, lead, axes.len())? {
        Some(product) => product,
        None => g.reduce(ReduceOp::Sum, adj, Some(&axes), false)?,
    };
    g.reshape(summed, from.clone())
}

/// The sum over its batch axes of a product `adj` = `a @ c` (`[B.., m, k]`
/// x `[B.., k, n]`), when those are exactly the axes `unbroadcast` sums (a
/// weight `[k, n]` broadcast over `x`'s `[b t]`): one product `[m, B*k]` x
/// `[B*k, n]`, as PyTorch's `x.reshape(-1, k).T @ dy` is, which neither
/// writes the `B` products nor reads them back, and rounds once (bf16
/// too). `None` for any other adjoint.
fn folded_product(
    g: &mut Graph,
    adj: NodeId,
    lead: usize,
    summed_axes: usize,
) -> Result<Option<NodeId>, OpError> {
    let node = g.node(adj);
    let rank = node.shape.rank();
    if !matches!(node.op, Op::Matmul) || lead == 0 || lead + 2 != rank || summed_axes != lead {
        return Ok(None);
    }
    let (a, c) = (node.inputs[0], node.inputs[1]);
    let dims = g.shape(a).dims().to_vec();
    let (m, k) = (dims[rank - 2], dims[rank - 1]);
    let n = g.shape(c).dims()[rank - 1];
    let batch: usize = dims[..lead].iter().product();
    if folding_copies(g, a, c, m) > batch * m * n {
        return Ok(None);
    }
    // `a` as `[m, B.., k]`, then `[m, B*k]`; `c` as `[B*k, n]`.
    let perm: Vec<i64> = std::iter::once(lead)
        .chain(0..lead)
        .chain(std::iter::once(rank - 1))
        .map(|a| a as i64)
        .collect();
    let a_moved = g.transpose(a, &perm)?;
    let a_flat = g.reshape(a_moved, Shape::new(vec![m, batch * k]))?;
    let c_flat = g.reshape(c, Shape::new(vec![batch * k, n]))?;
    g.matmul(a_flat, c_flat).map(Some)
}

/// About how many elements `folded_product` copies to fold the batch: `a`
/// as `[m, B*k]` is a view where `a` is a matrix transposed (`x^T`, a
/// linear layer's input) or `m` is 1, and `c` as `[B*k, n]` where `c` is
/// stored as it is (`dy`); otherwise each is copied. A convolution's
/// weight gradient, `dy @ cols^T` summed over the batch, would copy both,
/// more than the `B` products it spares.
fn folding_copies(g: &Graph, a: NodeId, c: NodeId, m: usize) -> usize {
    let swaps_last_two = |id: NodeId| match &g.node(id).op {
        Op::Transpose { perm } => {
            let r = perm.len();
            r >= 2
                && perm[r - 2] == r - 1
                && perm[r - 1] == r - 2
                && perm[..r - 2].iter().enumerate().all(|(i, &p)| p == i)
        }
        _ => false,
    };
    let a_copied = !swaps_last_two(a) && m > 1;
    let c_copied = swaps_last_two(c);
    usize::from(a_copied) * g.shape(a).numel() + usize::from(c_copied) * g.shape(c).numel()
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
