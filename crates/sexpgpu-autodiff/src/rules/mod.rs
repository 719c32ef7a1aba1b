//! Gradient rules: for one forward node and the adjoint of its output, the
//! adjoints of its inputs, built as ordinary graph nodes with the graph's own
//! builders (so broadcasts stay explicit and shapes are checked). Which
//! inputs can carry a gradient at all is decided here too. Rules never look
//! at values and never touch nodes other than the ones they append.

mod attention;
mod elementwise;
mod layout;
mod reduce;
mod scan;

use sexpgpu_graph::{AttentionPart, Graph, Node, NodeId, Op, OpError, ReduceOp, UnaryOp};

/// Whether input `input` of a node with `op` can receive a gradient, before
/// dtypes are considered: masks, ids and indices never do, and ops without a
/// derivative (comparisons, sources) have none.
pub(crate) fn op_carries(op: &Op, input: usize) -> bool {
    match op {
        sexpgpu_graph::ops_source!()
        | Op::Argsort { .. }
        | Op::Compare(_)
        | Op::Unary(UnaryOp::StopGradient) => false,
        Op::Where => input != 0,
        Op::Index | Op::IndexAdd | Op::Gather { .. } | Op::ScatterAdd { .. } => input != 1,
        Op::Unary(_) | Op::Binary(_) | Op::Cast | sexpgpu_graph::ops_layout!() => true,
        Op::Reduce { .. } | Op::Concat { .. } | Op::Matmul | Op::LinearScan { .. } => true,
        // Only q, k, v of the output part; the gradient parts refuse
        // (`attention::attention`) rather than pass a wrong second derivative.
        Op::Attention { part, .. } => *part != AttentionPart::Output || input < 3,
    }
}

/// Whether the edge from input `input` to `node` carries a gradient: the op
/// allows it and both ends are floats (integer and boolean paths stop).
pub(crate) fn edge_carries(graph: &Graph, node: &Node, input: usize) -> bool {
    node.dtype.is_float()
        && graph.dtype(node.inputs[input]).is_float()
        && op_carries(&node.op, input)
}

/// The adjoints of `id`'s inputs given `adj`, the adjoint of its output,
/// for each input position `wanted` marks; repeated inputs (`x * x`) appear
/// once per position and the caller adds them up. One arm per operation:
/// a new one is a compile error here until it has its rule.
pub(crate) fn input_adjoints(
    g: &mut Graph,
    id: NodeId,
    adj: NodeId,
    wanted: &[bool],
) -> Result<Vec<(usize, NodeId)>, OpError> {
    let node = g.node(id).clone();
    let x = &node.inputs;
    let mut out = Vec::new();
    match &node.op {
        Op::Unary(op) => out.push((0, elementwise::unary(g, *op, x[0], id, adj)?)),
        Op::Binary(op) => {
            let pair = elementwise::binary(g, *op, [x[0], x[1]], id, adj, wanted)?;
            push_pair(&mut out, pair);
        }
        Op::Where => {
            let zero = g.zeros_like(adj);
            if wanted[1] {
                out.push((1, g.where_(x[0], adj, zero)?));
            }
            if wanted[2] {
                out.push((2, g.where_(x[0], zero, adj)?));
            }
        }
        Op::Cast => {
            let dtype = g.dtype(x[0]);
            out.push((0, g.cast(adj, dtype)));
        }
        // Layout nodes: each adjoint is the inverse layout of the output's.
        Op::Reshape => {
            let shape = g.shape(x[0]).clone();
            out.push((0, g.reshape(adj, shape)?));
        }
        Op::Broadcast => {
            let shape = g.shape(x[0]).clone();
            out.push((0, layout::unbroadcast(g, adj, &shape)?));
        }
        Op::Transpose { perm } => out.push((0, layout::untranspose(g, adj, perm)?)),
        Op::Slice { axis, start, stop } => {
            let shape = g.shape(x[0]).clone();
            out.push((0, layout::unslice(g, adj, &shape, *axis, *start, *stop)?));
        }
        Op::Concat { axis } => out.extend(layout::unconcat(g, adj, x, *axis, wanted)?),
        // A lookup's adjoint scatters back; a scatter's looks up.
        Op::Index => {
            let zero = g.zeros_like(x[0]);
            out.push((0, g.index_add(zero, x[1], adj)?));
        }
        Op::Gather { axis } => {
            let zero = g.zeros_like(x[0]);
            out.push((0, g.scatter_add(zero, x[1], adj, *axis as i64)?));
        }
        Op::IndexAdd => scatter_adjoints(g, x, adj, wanted, None, &mut out)?,
        Op::ScatterAdd { axis } => scatter_adjoints(g, x, adj, wanted, Some(*axis), &mut out)?,
        Op::Reduce { op, axes, .. } => {
            let from = g.shape(x[0]).clone();
            let gx = match op {
                ReduceOp::Sum => reduce::sum(g, &from, axes, adj)?,
                ReduceOp::Max => reduce::max(g, x[0], id, axes, adj)?,
            };
            out.push((0, gx));
        }
        Op::Matmul => push_pair(&mut out, reduce::matmul(g, x[0], x[1], adj, wanted)?),
        Op::LinearScan { axis, reverse } => {
            let pair = scan::linear_scan(g, [x[0], x[1]], id, adj, *axis, *reverse, wanted)?;
            push_pair(&mut out, pair);
        }
        Op::Attention {
            part,
            causal,
            scale,
        } => out.extend(attention::attention(
            g,
            id,
            (*part, *causal, *scale),
            x,
            adj,
            wanted,
        )?),
        sexpgpu_graph::ops_source!() | Op::Argsort { .. } | Op::Compare(_) => {}
    }
    out.retain(|&(i, _)| wanted[i]);
    Ok(out)
}

/// Adjoints of `(input, adjoint)` pairs, pushed onto `out` by the rules.
type Adjoints = Vec<(usize, NodeId)>;

/// The adjoints of a rule of two inputs, those it built.
fn push_pair(out: &mut Adjoints, (a, b): (Option<NodeId>, Option<NodeId>)) {
    out.extend(a.map(|a| (0, a)));
    out.extend(b.map(|b| (1, b)));
}

/// `index-add` (no `axis`) and `scatter-add`: the base passes the adjoint
/// through; the values' adjoint is the adjoint looked up where they went.
fn scatter_adjoints(
    g: &mut Graph,
    x: &[NodeId],
    adj: NodeId,
    wanted: &[bool],
    axis: Option<usize>,
    out: &mut Adjoints,
) -> Result<(), OpError> {
    if wanted[0] {
        out.push((0, adj));
    }
    if wanted[2] {
        let looked_up = match axis {
            Some(axis) => g.gather(adj, x[1], axis as i64)?,
            None => g.index(adj, x[1])?,
        };
        out.push((2, looked_up));
    }
    Ok(())
}
