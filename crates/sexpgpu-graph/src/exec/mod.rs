//! The reference CPU executor: runs a graph node by node with the plainest
//! loops that are obviously right. It is the oracle fast backends are
//! compared with, so it favours clarity over speed (but nothing quadratic
//! where linear is natural). bf16 is computed in f32 and rounded after each
//! node; integers are computed in i64 and wrap to i32. [`execute_f64`] runs
//! the same code with floats kept in f64. Never panics on user
//! data: a bad argument or an out-of-range id is an [`ExecError`].

mod arith;
mod attention;
mod layout;
mod linalg;
mod sort;

pub use sort::{sort_lines, total_order};
mod source;
mod values;

#[cfg(test)]
mod tests;

use std::fmt;

use crate::graph::{Graph, Node, NodeId};
use crate::op::Op;
use crate::tensor::Tensor;
use values::{Precision, Values};

/// Why a graph could not run: wrong arguments, or data an op cannot accept
/// (such as an id outside its table). `node` names the node when one is to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub message: String,
    pub node: Option<NodeId>,
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExecError {}

/// Runs `graph` on `args` (one tensor per input and param node, in the order
/// of [`Graph::arguments`]) with random streams folded from `seed`, and
/// returns the graph's outputs in order.
pub fn execute(graph: &Graph, args: &[Tensor], seed: u64) -> Result<Vec<Tensor>, ExecError> {
    let arguments = check_argument_count(graph, args.len())?;
    // Each argument is checked up front so an unused argument of the wrong
    // shape is still reported.
    let mut bound = Vec::with_capacity(args.len());
    for (&id, arg) in arguments.iter().zip(args) {
        let node = graph.node(id);
        if arg.shape() != &node.shape || arg.dtype() != node.dtype {
            return Err(ExecError {
                message: format!(
                    "argument `{}` must be {} {}, got {} {}",
                    argument_name(node),
                    node.shape,
                    node.dtype,
                    arg.shape(),
                    arg.dtype()
                ),
                node: Some(id),
            });
        }
        bound.push(Values::from_tensor(arg));
    }
    let outputs = run(graph, &arguments, bound, seed, Precision::Dtype)?;
    Ok(graph
        .outputs()
        .iter()
        .zip(outputs)
        .map(|(o, values)| {
            let node = graph.node(*o);
            values.to_tensor(&node.shape, node.dtype)
        })
        .collect())
}

/// Runs `graph` like [`execute`], but computes every float node in f64 and
/// never rounds it to its dtype (f32 and bf16 alike): a reference for
/// checks such as finite differences, which f32 rounding would swamp.
/// Integers and booleans behave as in [`execute`]; random nodes draw the
/// same samples. Arguments come as row-major f64 values, one vector per
/// argument node (integers must be whole, booleans 0 or 1); outputs come
/// back the same way.
pub fn execute_f64(
    graph: &Graph,
    args: &[Vec<f64>],
    seed: u64,
) -> Result<Vec<Vec<f64>>, ExecError> {
    let arguments = check_argument_count(graph, args.len())?;
    let mut bound = Vec::with_capacity(args.len());
    for (&id, arg) in arguments.iter().zip(args) {
        let node = graph.node(id);
        if arg.len() != node.shape.numel() {
            return Err(ExecError {
                message: format!(
                    "argument `{}` must be {} {} ({} values), got {} values",
                    argument_name(node),
                    node.shape,
                    node.dtype,
                    node.shape.numel(),
                    arg.len()
                ),
                node: Some(id),
            });
        }
        bound.push(Values::from_f64s(arg, node.dtype));
    }
    let outputs = run(graph, &arguments, bound, seed, Precision::F64)?;
    Ok(outputs.iter().map(Values::to_f64s).collect())
}

fn check_argument_count(graph: &Graph, given: usize) -> Result<Vec<NodeId>, ExecError> {
    let arguments = graph.arguments();
    if given != arguments.len() {
        return Err(ExecError {
            message: format!(
                "graph {} takes {} arguments, got {given}",
                graph.name(),
                arguments.len(),
            ),
            node: None,
        });
    }
    Ok(arguments)
}

fn argument_name(node: &Node) -> &str {
    match &node.op {
        Op::Input { name } | Op::Param { name } => name.as_str(),
        _ => "?",
    }
}

/// Computes the graph's outputs from the values bound to its argument
/// nodes (in the order of `arguments`), node by node.
fn run(
    graph: &Graph,
    arguments: &[NodeId],
    bound: Vec<Values>,
    seed: u64,
    precision: Precision,
) -> Result<Vec<Values>, ExecError> {
    let mut bound_at: Vec<Option<Values>> = vec![None; graph.len()];
    for (&id, values) in arguments.iter().zip(bound) {
        bound_at[id.index()] = Some(values);
    }
    let last_use = last_uses(graph);
    let mut slots: Vec<Option<Values>> = vec![None; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if last_use[i].is_none() {
            continue; // nothing reads it: not computed at all
        }
        let value = match bound_at[i].take() {
            Some(arg) => arg,
            None => {
                let inputs: Vec<&Values> = node
                    .inputs
                    .iter()
                    .map(|input| {
                        slots[input.index()]
                            .as_ref()
                            .expect("inputs are computed before use")
                    })
                    .collect();
                let input_nodes: Vec<&Node> = node.inputs.iter().map(|&i| graph.node(i)).collect();
                run_node(node, &input_nodes, &inputs, seed, precision)
                    .map_err(|message| ExecError {
                        message,
                        node: Some(NodeId(i as u32)),
                    })?
                    .finish(node.dtype, precision)
            }
        };
        slots[i] = Some(value);
        // Frees inputs whose last reader this node was.
        for input in &node.inputs {
            if last_use[input.index()] == Some(i) {
                slots[input.index()] = None;
            }
        }
    }
    Ok(graph
        .outputs()
        .iter()
        .map(|o| slots[o.index()].clone().expect("outputs are computed"))
        .collect())
}

/// For each node, the index of the last node that reads it (`usize::MAX`
/// for outputs, which are never freed); `None` when nothing needs it.
fn last_uses(graph: &Graph) -> Vec<Option<usize>> {
    let needed = graph.needed();
    let mut last = vec![None; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if needed[i] {
            last[i] = Some(i);
            for input in &node.inputs {
                last[input.index()] = Some(i);
            }
        }
    }
    for o in graph.outputs() {
        last[o.index()] = Some(usize::MAX);
    }
    last
}

/// Computes one node from its inputs' values.
fn run_node(
    node: &Node,
    input_nodes: &[&Node],
    inputs: &[&Values],
    seed: u64,
    precision: Precision,
) -> Result<Values, String> {
    let shape = &node.shape;
    let in_shape = |k: usize| &input_nodes[k].shape;
    Ok(match &node.op {
        Op::Input { name } | Op::Param { name } => {
            return Err(format!("argument `{name}` was not bound"))
        }
        Op::Constant { value } => Values::from_tensor(value),
        Op::Full { value } => source::full(*value, shape.numel(), node.dtype),
        Op::Iota { axis } => source::iota(shape, *axis),
        Op::Normal { mean, std, stream } => {
            source::normal(seed, *stream, shape.numel(), *mean, *std)
        }
        Op::Uniform { low, high, stream } => {
            source::uniform(seed, *stream, shape.numel(), *low, *high, node.dtype)
        }
        Op::Unary(op) => arith::unary(*op, inputs[0], precision),
        Op::Binary(op) => arith::binary(*op, inputs[0], inputs[1], precision),
        Op::Compare(op) => arith::compare(*op, inputs[0], inputs[1]),
        Op::Where => arith::select(inputs[0], inputs[1], inputs[2]),
        Op::Cast => arith::cast(inputs[0], node.dtype, precision),
        Op::Reduce { op, axes, .. } => arith::reduce(*op, inputs[0], in_shape(0), axes),
        Op::Reshape => inputs[0].clone(),
        Op::Broadcast => layout::broadcast(inputs[0], in_shape(0), shape),
        Op::Transpose { perm } => layout::transpose(inputs[0], in_shape(0), perm),
        Op::Slice { axis, start, stop } => {
            layout::slice(inputs[0], in_shape(0), *axis, *start, *stop)
        }
        Op::Concat { axis } => {
            let shapes: Vec<&crate::shape::Shape> = input_nodes.iter().map(|n| &n.shape).collect();
            layout::concat(inputs, &shapes, *axis)
        }
        Op::Matmul => linalg::matmul(inputs[0], inputs[1], in_shape(0), in_shape(1)),
        Op::Index => linalg::index(inputs[0], inputs[1], in_shape(0))?,
        Op::IndexAdd => linalg::index_add(inputs[0], inputs[1], inputs[2], in_shape(0))?,
        Op::Gather { axis } => {
            linalg::gather(inputs[0], inputs[1], in_shape(0), in_shape(1), *axis)?
        }
        Op::ScatterAdd { axis } => linalg::scatter_add(
            inputs[0],
            inputs[1],
            inputs[2],
            in_shape(0),
            in_shape(1),
            *axis,
        )?,
        Op::LinearScan { axis, reverse } => {
            linalg::linear_scan(inputs[0], inputs[1], shape, *axis, *reverse, precision)
        }
        Op::Argsort { axis, descending } => sort::argsort(inputs[0], shape, *axis, *descending),
        Op::Attention {
            part,
            causal,
            scale,
        } => {
            let shapes: Vec<&crate::shape::Shape> = input_nodes.iter().map(|n| &n.shape).collect();
            attention::attention(*part, *causal, *scale, inputs, &shapes)
        }
    })
}
