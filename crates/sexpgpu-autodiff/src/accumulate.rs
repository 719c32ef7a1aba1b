//! Adding up the adjoint contributions a node receives. Contributions that
//! are zero-padded pieces of one tensor (a `slice`'s adjoint is its
//! gradient with zeros around it, through `concat`) and cover disjoint
//! parts are joined into one `concat` instead of added: the `q`, `k`, `v`
//! slices of a fused projection give their input one `concat` of three
//! gradients, not three padded copies and two full-size additions. A
//! `gather`'s or an `index`'s adjoint, accumulated into zeros, accumulates
//! into the other contribution instead.

use sexpgpu_graph::{BinaryOp, Graph, NodeId, Op, OpError};

/// `earlier + contribution`, as a `concat` of their pieces where both are
/// zero-padded along the same axis with no overlap, and as one
/// accumulation where one is accumulated into zeros.
pub(crate) fn add(g: &mut Graph, earlier: NodeId, contribution: NodeId) -> Result<NodeId, OpError> {
    if let Some(joined) = join_padded(g, earlier, contribution)? {
        return Ok(joined);
    }
    if let Some(accumulated) = into_base(g, earlier, contribution)? {
        return Ok(accumulated);
    }
    g.binary(BinaryOp::Add, earlier, contribution)
}

/// `a + b` where one is a `scatter-add` or `index-add` into zeros (the
/// adjoint of a `gather` or an `index`): the same accumulation into the
/// other instead. Cross-entropy's `gather` of each row's target then adds
/// into the softmax's gradient: no zero tensor of the logits' size is
/// filled, and no sum of two reads it back (an embedding's `index` the
/// same, into its other uses' gradient). Each sum is `other + values`
/// where `0 + values + other` was, the same value but for the order of
/// several values at one place (and the sign of a zero).
fn into_base(g: &mut Graph, a: NodeId, b: NodeId) -> Result<Option<NodeId>, OpError> {
    for (accumulated, other) in [(a, b), (b, a)] {
        let node = g.node(accumulated);
        let (op, inputs) = (node.op.clone(), node.inputs.clone());
        let zero_base =
            |g: &Graph| matches!(g.node(inputs[0]).op, Op::Full { value } if value.as_f64() == 0.0);
        let same = g.shape(accumulated) == g.shape(other) && g.dtype(accumulated) == g.dtype(other);
        match op {
            Op::ScatterAdd { axis } if same && zero_base(g) => {
                return g
                    .scatter_add(other, inputs[1], inputs[2], axis as i64)
                    .map(Some);
            }
            Op::IndexAdd if same && zero_base(g) => {
                return g.index_add(other, inputs[1], inputs[2]).map(Some);
            }
            _ => {}
        }
    }
    Ok(None)
}

/// A piece of a `concat` that is not all zeros: where it starts along the
/// axis, how long it is, and the node.
struct Piece {
    start: usize,
    len: usize,
    node: NodeId,
}

/// The axis and non-zero pieces of `id` when it is a `concat`.
fn padded_pieces(g: &Graph, id: NodeId) -> Option<(usize, Vec<Piece>)> {
    let node = g.node(id);
    let Op::Concat { axis } = node.op else {
        return None;
    };
    let mut pieces = Vec::new();
    let mut start = 0;
    for &input in &node.inputs {
        let len = g.shape(input).dims()[axis];
        let zero = matches!(g.node(input).op, Op::Full { value } if value.as_f64() == 0.0);
        if !zero && len > 0 {
            pieces.push(Piece {
                start,
                len,
                node: input,
            });
        }
        start += len;
    }
    Some((axis, pieces))
}

/// `a + b` as one `concat` when both are zero-padded concatenations along
/// the same axis whose non-zero pieces do not overlap (adding zero changes
/// no value but the sign of a zero); `None` otherwise.
fn join_padded(g: &mut Graph, a: NodeId, b: NodeId) -> Result<Option<NodeId>, OpError> {
    let (Some((axis, mut pieces)), Some((b_axis, b_pieces))) =
        (padded_pieces(g, a), padded_pieces(g, b))
    else {
        return Ok(None);
    };
    if axis != b_axis || g.shape(a) != g.shape(b) || g.dtype(a) != g.dtype(b) {
        return Ok(None);
    }
    pieces.extend(b_pieces);
    pieces.sort_by_key(|p| p.start);
    if pieces
        .windows(2)
        .any(|w| w[0].start + w[0].len > w[1].start)
    {
        return Ok(None);
    }
    let shape = g.shape(a).clone();
    let dtype = g.dtype(a);
    let zeros = |g: &mut Graph, len: usize| {
        let mut dims = shape.dims().to_vec();
        dims[axis] = len;
        g.zeros(sexpgpu_graph::Shape::new(dims), dtype)
    };
    let mut inputs = Vec::with_capacity(2 * pieces.len() + 1);
    let mut at = 0;
    for piece in &pieces {
        if piece.start > at {
            inputs.push(zeros(g, piece.start - at));
        }
        inputs.push(piece.node);
        at = piece.start + piece.len;
    }
    let total = shape.dims()[axis];
    if at < total {
        inputs.push(zeros(g, total - at));
    }
    if let [only] = inputs[..] {
        return Ok(Some(only));
    }
    g.concat(axis as i64, &inputs).map(Some)
}
