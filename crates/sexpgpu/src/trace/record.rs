//! Recording one operation's nodes into the graph being traced: finds the
//! graph (`E-FLOW-003` outside one), refuses a result over the tensor
//! limit, turns a builder's `OpError` into a diagnostic naming the
//! operands as written, and runs an operation on computed tensors outside
//! any traced function at once (`docs/sexpgpu/staging.md`). Knows no
//! operation.

use super::args::{self, OpCall, MAX_ELEMENTS};
use super::{current_graph, Traced};
use crate::eval::{EvalResult, Interp, Site};
use crate::value::Value;
use sexpgpu_graph::{Graph, NodeId, OpError};
use std::rc::Rc;

pub(super) type Built = Result<NodeId, OpError>;

/// What one operation recorded: its node, or two (`sort`'s values and
/// indices), which it returns as a vector.
pub(super) enum Nodes {
    One(NodeId),
    Two(NodeId, NodeId),
}

/// Records one node: finds the graph (`E-FLOW-003`), lets `build` add the
/// node (reading the operands through the `OpCall` it is handed), and turns
/// a rejected op into a diagnostic naming the operands.
pub(super) fn record(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    operands: &[Value],
    build: impl FnOnce(&mut Graph, OpCall<'_>) -> EvalResult<Built>,
) -> EvalResult {
    record_nodes(interp, op, site, operands, |g, call| {
        Ok(build(g, call)?.map(Nodes::One))
    })
}

/// `record` for an operation of one or two results.
pub(super) fn record_nodes(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    operands: &[Value],
    build: impl FnOnce(&mut Graph, OpCall<'_>) -> EvalResult<Result<Nodes, OpError>>,
) -> EvalResult {
    record_named(interp, op, site, operands, None, build)
}

/// `record_nodes`, with the operands' names for the note when they are not
/// the text at `site`'s argument spans (the parts of `concat`, the running
/// left operand of an n-ary `+`).
pub(super) fn record_named(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    operands: &[Value],
    names: Option<Vec<String>>,
    build: impl FnOnce(&mut Graph, OpCall<'_>) -> EvalResult<Result<Nodes, OpError>>,
) -> EvalResult {
    if super::active_graph(interp).is_none() && operands.iter().any(computed) {
        // An operation on computed tensors outside any traced function
        // runs at once (`docs/sexpgpu/staging.md`): it is recorded into a
        // graph of its own, in which each computed tensor is a constant,
        // and that graph runs (both results, for an operation of two).
        let mut graph = Graph::new(op);
        graph.set_span(Some(site.span));
        let id = super::begin(interp, graph);
        let result = record_named(interp, op, site, operands, names, build);
        let (graph, _) = super::end(interp);
        return super::run_recorded(interp, graph, id, &result?, &[], site, &format!("`{op}`"));
    }
    let fail = |interp: &Interp, e: OpError| match &names {
        Some(names) => args::op_error_named(e, operands, names, site.span),
        None => args::op_error(interp, e, operands, site),
    };
    let (graph, id) = current_graph(interp, op, site)?;
    let call = OpCall {
        tracing: id,
        op,
        operands,
        site,
    };
    let nodes = match build(graph, call)? {
        Ok(Nodes::One(node)) => vec![node],
        Ok(Nodes::Two(a, b)) => vec![a, b],
        Err(e) => return Err(fail(interp, e)),
    };
    let mut values = Vec::with_capacity(nodes.len());
    for node in nodes {
        let shape = graph.shape(node).clone();
        let too_large = shape
            .dims()
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .is_none_or(|n| n > MAX_ELEMENTS);
        if too_large {
            let e = OpError::dim(format!("{op}: the result {shape} is too large"))
                .with_note(format!("a tensor may have at most {MAX_ELEMENTS} elements"));
            return Err(fail(interp, e));
        }
        let dtype = graph.dtype(node);
        values.push(Value::Tensor(Rc::new(Traced {
            graph: id,
            node,
            shape,
            dtype,
        })));
    }
    Ok(match <[Value; 1]>::try_from(values) {
        Ok([one]) => one,
        Err(both) => Value::vector(both),
    })
}

/// Whether a value is a computed tensor, or a vector holding one (the parts
/// of `concat`).
fn computed(value: &Value) -> bool {
    match value {
        Value::HostTensor(_) => true,
        Value::Vector(xs) | Value::List(xs) => xs.iter().any(computed),
        _ => false,
    }
}
