//! Matmul epilogues: which additions `matmul(a, b) + bias` the lowering
//! computes as one matmul launch that adds the bias to the f32 sums before
//! their one rounding (`docs/sexpgpu/ir.md`, "Matmul epilogues"), instead
//! of a fused loop of their own that reads the product back. On the GPU
//! that is cuBLASLt's bias epilogue; on the CPU each thread adds the bias
//! to its block of the product while the block is in its cache.

use sexpgpu_graph::{BinaryOp, DType, Graph, NodeId, Op};

/// A product and the vector added to its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Biased {
    /// The `matmul` node, which is then never lowered on its own.
    pub product: NodeId,
    /// The node of `n` elements (the last axis's length) that the add
    /// broadcasts over the product's rows: the broadcast's operand.
    pub bias: NodeId,
}

/// For each node: `Some` when it is an addition `p + broadcast(v)` (either
/// order) that becomes a matmul launch with bias `v`. That takes:
/// - a float (`f32` or `bf16`) add of a `matmul` `p` of rank 2 or more;
/// - `p` read by this add alone, no graph output, and not lowered another
///   way (a batch sum's operand, `summed`, or a transposed product,
///   `transposed`);
/// - `v` broadcast along the product's last axis alone: `n` elements
///   ending in an axis of `n`, and not a constant fill (a splat added to a
///   product stays in its fused loop, where it costs no memory);
/// - the add stored (not `inline`): a graph output, or read by something
///   other than up to three fused loops, such as the layout nodes that
///   split a `qkv` projection into heads. An add that fused loops read is
///   computed inside them (an activation, a residual sum) with the bias
///   read through a broadcast that costs no memory traffic, so there the
///   epilogue would save no pass, and on the CPU, where it is its own
///   pass over the product's rows, it would add one.
pub(super) fn biased_products(
    graph: &Graph,
    needed: &[bool],
    (summed, transposed): (&[bool], &[bool]),
    inline: &[bool],
) -> Vec<Option<Biased>> {
    let mut readers = super::reader_counts(graph, needed);
    for o in graph.outputs() {
        // An output is read after the graph too.
        readers[o.index()] += 1;
    }
    let plain_product = |p: NodeId| {
        let i = p.index();
        matches!(graph.node(p).op, Op::Matmul)
            && graph.shape(p).rank() >= 2
            && readers[i] == 1
            && !summed[i]
            && !transposed[i]
    };
    let mut biased = vec![None; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        let float = matches!(node.dtype, DType::F32 | DType::BF16);
        if !needed[i] || !float || inline[i] {
            continue;
        }
        let Op::Binary(BinaryOp::Add) = node.op else {
            continue;
        };
        let (x, y) = (node.inputs[0], node.inputs[1]);
        biased[i] = [(x, y), (y, x)].into_iter().find_map(|(p, b)| {
            let bias = row_vector(graph, b, graph.shape(p).dims().last().copied()?)?;
            plain_product(p).then_some(Biased { product: p, bias })
        });
    }
    biased
}

/// The vector `b` broadcasts along the last axis, when `b` is a
/// `broadcast` of `n` elements whose last axis is `n` long and which is
/// not a constant fill seen through layout nodes.
fn row_vector(graph: &Graph, b: NodeId, n: usize) -> Option<NodeId> {
    let node = graph.node(b);
    let Op::Broadcast = node.op else { return None };
    let v = node.inputs[0];
    let dims = graph.shape(v).dims();
    if dims.last() != Some(&n) || graph.shape(v).numel() != n {
        return None;
    }
    let mut source = v;
    while let Op::Broadcast | Op::Reshape | Op::Transpose { .. } | Op::Slice { .. } =
        graph.node(source).op
    {
        source = graph.node(source).inputs[0];
    }
    (!matches!(graph.node(source).op, Op::Full { .. })).then_some(v)
}
