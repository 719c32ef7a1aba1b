//! Reverse-mode differentiation of SexpGPU graphs: [`grad`] appends the
//! adjoint computation to the graph it differentiates, as ordinary nodes made
//! by the graph's own builders, so forward and backward form one step graph
//! whose broadcasts are explicit and whose shapes are checked. Never runs a
//! graph and never changes or removes existing nodes.

mod accumulate;
mod error;
mod rules;

#[cfg(test)]
mod tests;

pub use error::{GradError, GradErrorKind};

use sexpgpu_graph::{Graph, NodeId};

/// Appends to `graph` the gradient of `loss` (a float scalar `[]`) with
/// respect to each node of `wrt`, and returns the gradient nodes in the same
/// order, each of its node's shape and dtype.
///
/// Gradients flow only along float edges through differentiable inputs:
/// integer and boolean paths, masks, ids and comparisons carry none, and
/// random or constant sources stop it. A node used several times adds up
/// its adjoints; a `wrt` node the loss does not depend on gets zeros. New
/// nodes carry the span of the forward node they differentiate; the graph's
/// current span is restored afterwards.
///
/// ```
/// use sexpgpu_graph::{execute, BinaryOp, DType, Graph, ReduceOp, Shape, Tensor};
///
/// // loss = sum(w * w); d loss / d w = 2 w.
/// let mut g = Graph::new("step");
/// let w = g.param("w", Shape::new(vec![3]), DType::F32);
/// let square = g.binary(BinaryOp::Mul, w, w).unwrap();
/// let loss = g.reduce(ReduceOp::Sum, square, None, false).unwrap();
/// let grads = sexpgpu_autodiff::grad(&mut g, loss, &[w]).unwrap();
/// g.set_outputs(vec![loss, grads[0]]);
///
/// let w_value = Tensor::from_f64s(Shape::new(vec![3]), &[1.0, -2.0, 0.5], DType::F32).unwrap();
/// let out = execute(&g, &[w_value], 0).unwrap();
/// assert_eq!(out[0].to_f64s(), [5.25]);
/// assert_eq!(out[1].to_f64s(), [2.0, -4.0, 1.0]);
/// ```
pub fn grad(graph: &mut Graph, loss: NodeId, wrt: &[NodeId]) -> Result<Vec<NodeId>, GradError> {
    check_request(graph, loss, wrt)?;
    let relevant = relevant_nodes(graph, loss, wrt);
    let saved_span = graph.span();
    let result = backward(graph, loss, wrt, &relevant);
    graph.set_span(saved_span);
    result
}

fn check_request(graph: &Graph, loss: NodeId, wrt: &[NodeId]) -> Result<(), GradError> {
    for &id in std::iter::once(&loss).chain(wrt) {
        if !graph.contains(id) {
            return Err(GradError::new(
                GradErrorKind::UnknownNode,
                format!(
                    "grad: node {id} is not in graph {} ({} nodes)",
                    graph.name(),
                    graph.len()
                ),
                Some(id),
            ));
        }
    }
    let (shape, dtype) = (graph.shape(loss), graph.dtype(loss));
    if shape.rank() != 0 {
        return Err(GradError::new(
            GradErrorKind::LossNotScalar,
            format!("grad: the loss must be a scalar [], got {shape} {dtype}"),
            Some(loss),
        )
        .with_note("reduce it to one number first, e.g. with `sum` or `nn/mean`"));
    }
    if !dtype.is_float() {
        return Err(GradError::new(
            GradErrorKind::LossNotFloat,
            format!("grad: the loss must be a float (f32 or bf16), got {shape} {dtype}"),
            Some(loss),
        )
        .with_note("integer and boolean values have no gradient; `cast` the loss to f32"));
    }
    if let Some(&bad) = wrt.iter().find(|&&w| !graph.dtype(w).is_float()) {
        return Err(GradError::new(
            GradErrorKind::WrtNotFloat,
            format!(
                "grad: cannot differentiate with respect to {bad}, a {} tensor; only floats have gradients",
                graph.describe(bad)
            ),
            Some(bad),
        ));
    }
    Ok(())
}

/// The nodes whose adjoint matters: on a gradient-carrying path from a
/// `wrt` node to the loss. Everything else is skipped, so no adjoint is
/// built for constants or for parts of the graph the loss ignores.
fn relevant_nodes(graph: &Graph, loss: NodeId, wrt: &[NodeId]) -> Vec<bool> {
    let end = loss.index() + 1;
    // Forward: depends on some `wrt` node through carrying edges.
    let mut from_wrt = vec![false; end];
    for &w in wrt {
        if w.index() < end {
            from_wrt[w.index()] = true;
        }
    }
    for (i, node) in graph.nodes()[..end].iter().enumerate() {
        if !from_wrt[i] {
            from_wrt[i] = (0..node.inputs.len())
                .any(|k| from_wrt[node.inputs[k].index()] && rules::edge_carries(graph, node, k));
        }
    }
    // Backward: the loss depends on it through carrying edges.
    let mut to_loss = vec![false; end];
    to_loss[loss.index()] = true;
    for i in (0..end).rev() {
        if !to_loss[i] {
            continue;
        }
        let node = &graph.nodes()[i];
        for (k, input) in node.inputs.iter().enumerate() {
            if rules::edge_carries(graph, node, k) {
                to_loss[input.index()] = true;
            }
        }
    }
    from_wrt
        .iter()
        .zip(&to_loss)
        .map(|(&f, &t)| f && t)
        .collect()
}

/// Walks the relevant nodes from the loss back, building each input's
/// adjoint contribution and adding contributions to the same node up.
fn backward(
    graph: &mut Graph,
    loss: NodeId,
    wrt: &[NodeId],
    relevant: &[bool],
) -> Result<Vec<NodeId>, GradError> {
    let mut adjoints: Vec<Option<NodeId>> = vec![None; relevant.len()];
    if relevant[loss.index()] {
        graph.set_span(graph.node(loss).span);
        adjoints[loss.index()] = Some(graph.ones_like(loss));
    }
    // A `wrt` node keeps its adjoint and passes it on too when it lies on
    // another `wrt` node's path (relevance decides).
    for i in (0..relevant.len()).rev() {
        let Some(adj) = adjoints[i] else { continue };
        let id = NodeId(i as u32);
        let node = graph.node(id);
        let wanted: Vec<bool> = (0..node.inputs.len())
            .map(|k| relevant[node.inputs[k].index()] && rules::edge_carries(graph, node, k))
            .collect();
        if !wanted.contains(&true) {
            continue;
        }
        let (span, op_name, inputs) = (node.span, node.op.name(), node.inputs.clone());
        graph.set_span(span);
        let contributions = rules::input_adjoints(graph, id, adj, &wanted)
            .map_err(|e| GradError::rule(id, op_name, e))?;
        for (k, contribution) in contributions {
            let target = inputs[k].index();
            adjoints[target] = Some(match adjoints[target] {
                None => contribution,
                Some(earlier) => accumulate::add(graph, earlier, contribution)
                    .map_err(|e| GradError::rule(id, op_name, e))?,
            });
        }
    }
    Ok(wrt
        .iter()
        .map(|&w| match adjoints.get(w.index()).copied().flatten() {
            Some(adj) => adj,
            None => graph.zeros_like(w),
        })
        .collect())
}
