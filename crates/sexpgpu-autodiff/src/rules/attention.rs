//! The adjoint of fused attention (`docs/sexpgpu/operations.md`, "Fused
//! attention"): the log-sum-exp of the scores, `delta = sum(dout * out)` per
//! query, and one gradient node per input wanted, each recomputing the
//! softmax weights a tile at a time as FlashAttention's backward does.

use sexpgpu_graph::{AttentionPart, DType, Graph, NodeId, OpError, ReduceOp};

/// The adjoints of attention node `id` (inputs `x`) given `adj`, the
/// adjoint of its output.
pub(super) fn attention(
    g: &mut Graph,
    id: NodeId,
    (part, causal, scale): (AttentionPart, bool, f64),
    x: &[NodeId],
    adj: NodeId,
    wanted: &[bool],
) -> Result<Vec<(usize, NodeId)>, OpError> {
    if part != AttentionPart::Output {
        return Err(OpError::dim(format!(
            "{} has no gradient of its own: attention can be differentiated once, not twice",
            part.name()
        )));
    }
    let (q, k, v) = (x[0], x[1], x[2]);
    let lse = g.attention_lse(q, k, causal, scale)?;
    let dout = g.cast(adj, DType::F32);
    let out = g.cast(id, DType::F32);
    let product = g.binary(sexpgpu_graph::BinaryOp::Mul, dout, out)?;
    let delta = g.reduce(ReduceOp::Sum, product, Some(&[-1]), false)?;
    let mut grads = Vec::new();
    for (wrt, &want) in wanted.iter().enumerate().take(3) {
        if want {
            let grad = g.attention_grad(wrt, [q, k, v, adj, lse, delta], causal, scale)?;
            grads.push((wrt, grad));
        }
    }
    Ok(grads)
}
