//! `value-and-grad` (`docs/sexpgpu/autodiff.md`): the value of a function
//! of a map (or vector) of tensors and its gradient with respect to each of
//! them, in the same layout. Inside a traced function the gradient nodes join
//! the graph being traced; outside one, the function is traced into a graph
//! of its own whose inputs are the host tensors given, and that graph runs.

use super::{active_graph, begin, end, run_recorded};
use crate::codes;
use crate::eval::{arity, wrong_type, Builtin, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::{short, tensor_leaves, with_leaves, Traced, Value};
use diag::{Diagnostic, Span};
use sexpgpu_autodiff::GradErrorKind;
use sexpgpu_graph::{Graph, NodeId, Tensor};
use std::rc::Rc;

static TABLE: &[Builtin] = table! { "value-and-grad" => value_and_grad };

/// Registers `value-and-grad`.
pub fn install(interp: &mut Interp) {
    interp.register_builtins(TABLE.iter().map(|b| b as &dyn Primitive));
}

/// `(value-and-grad f params arg...)`: `[value grads]`, where `value` is
/// `(f params arg...)`, a float scalar, and `grads` has the layout of
/// `params` with d value / d each tensor in place of the tensor.
fn value_and_grad(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("value-and-grad", site, &args, 2, None)?;
    if !matches!(args[0], Value::Fn(_) | Value::Builtin { .. }) {
        return Err(wrong_type(
            "value-and-grad",
            "a function",
            &args[0],
            site,
            0,
        ));
    }
    match active_graph(interp) {
        Some(_) => in_graph(interp, site, &args),
        None => at_once(interp, site, &args),
    }
}

/// Inside a traced function: each tensor of `params` enters as a fresh node
/// (so the gradient is the one with respect to that argument, holding what
/// the function closes over fixed), and the gradient nodes join the graph.
fn in_graph(interp: &mut Interp, site: &Site, args: &[Value]) -> EvalResult {
    let (graph, id) = active_graph(interp).expect("checked by the caller");
    let mut leaves = Vec::new();
    let params = fresh_leaves(graph, id, &args[1], &mut leaves, site)?;
    let (value, grads) = trace_and_differentiate(interp, site, args, params, &leaves)?;
    Ok(Value::vector(vec![value, grads]))
}

/// Outside a traced function: the host tensors of `params` and of the
/// other arguments become inputs of a graph of its own, which runs at once.
fn at_once(interp: &mut Interp, site: &Site, args: &[Value]) -> EvalResult {
    let mut graph = Graph::new("value-and-grad");
    graph.set_span(Some(site.span));
    let id = begin(interp, graph);
    let mut bound = Vec::new();
    let mut leaves = Vec::new();
    let prepared = {
        let (graph, _) = active_graph(interp).expect("begun above");
        inputs_of(graph, id, &args[1], &mut bound, &mut leaves, site).and_then(|params| {
            let rest = args[2..]
                .iter()
                .map(|a| inputs_of(graph, id, a, &mut bound, &mut Vec::new(), site))
                .collect::<EvalResult<Vec<_>>>()?;
            Ok((params, rest))
        })
    };
    let traced = prepared.and_then(|(params, rest)| {
        let mut call_args = vec![args[0].clone(), params];
        call_args.extend(rest);
        trace_and_differentiate(interp, site, &call_args, call_args[1].clone(), &leaves)
    });
    let (graph, _) = end(interp);
    let (value, grads) = traced?;
    // The graph's outputs are flat: the value, then each gradient.
    let mut flat = vec![value];
    tensor_leaves(&grads, &mut flat);
    let results = run_recorded(
        interp,
        graph,
        id,
        &Value::vector(flat),
        &bound,
        site,
        "`value-and-grad`",
    )?;
    let Value::Vector(results) = results else {
        return Ok(results);
    };
    let mut results = results.iter().cloned();
    let value = results.next().unwrap_or(Value::Nil);
    let grads = with_leaves(&args[1], &mut results);
    Ok(Value::vector(vec![value, grads]))
}

/// Calls `f` with `params` (whose tensors are the nodes `leaves`) and the
/// other arguments, checks that it returned a tensor of this graph, and
/// appends its gradient with respect to each leaf: the value, and `params`
/// with each tensor replaced by its gradient.
fn trace_and_differentiate(
    interp: &mut Interp,
    site: &Site,
    args: &[Value],
    params: Value,
    leaves: &[NodeId],
) -> EvalResult<(Value, Value)> {
    let mut call_args = vec![params.clone()];
    call_args.extend(args[2..].iter().cloned());
    let inner = Site::bare(site.arg(0));
    let value = interp.apply(&args[0], call_args, &inner)?;
    let (graph, id) = active_graph(interp).expect("a graph is being traced");
    let loss = match &value {
        Value::Tensor(t) if t.graph == id => t.node,
        Value::Tensor(t) => return Err(foreign_leaf(t, site.arg(0))),
        other => {
            return Err(Flow::from(
                Diagnostic::error(
                    codes::E_DIM_003,
                    format!(
                        "value-and-grad: the function must return a float scalar tensor, got {}",
                        other.type_name()
                    ),
                )
                .with_primary(site.arg(0), format!("this returned `{}`", short(other)))
                .with_help("return one number as a tensor, e.g. with `sum` or `nn/mean`"),
            ))
        }
    };
    let grads = sexpgpu_autodiff::grad(graph, loss, leaves)
        .map_err(|e| grad_error(graph, e, site, &value))?;
    let mut nodes = grads.into_iter().map(|node| {
        Value::Tensor(Rc::new(Traced {
            graph: id,
            node,
            shape: graph.shape(node).clone(),
            dtype: graph.dtype(node),
        }))
    });
    let grads = with_leaves(&params, &mut nodes);
    Ok((value, grads))
}

/// A refused differentiation as a diagnostic at the call: the value's shape
/// is `E-DIM-001`, a dtype without gradients `E-DIM-002`.
fn grad_error(graph: &Graph, e: sexpgpu_autodiff::GradError, site: &Site, value: &Value) -> Flow {
    if e.kind == GradErrorKind::WrtNotFloat {
        let what = e.node.map_or(String::new(), |n| {
            format!(" ({} {})", graph.shape(n), graph.dtype(n))
        });
        return Flow::from(
            Diagnostic::error(
                codes::E_DIM_002,
                format!("value-and-grad: a parameter is not a float tensor{what}"),
            )
            .with_primary(site.arg(1), "only float tensors have gradients")
            .with_help("cast it with `(cast x :f32)`, or pass it as another argument"),
        );
    }
    let code = match e.kind {
        GradErrorKind::LossNotScalar => codes::E_DIM_001,
        GradErrorKind::LossNotFloat => codes::E_DIM_002,
        _ => codes::E_RUN_001,
    };
    let message =
        e.message
            .replacen("grad:", "value-and-grad:", 1)
            .replacen("the loss", "the value", 1);
    let mut d = Diagnostic::error(code, message).with_primary(site.span, "");
    if let Value::Tensor(t) = value {
        d = d.with_secondary(
            site.arg(0),
            format!("this function returned {}", t.describe()),
        );
    }
    if let Some(note) = e.note {
        d = d.with_note(note);
    }
    Flow::from(d)
}

/// `value` with each tensor replaced by a fresh node of the graph being
/// traced (`Graph::fresh_view`, so a tensor the function also closes over
/// is still a separate argument, at no copy); the new nodes are pushed to
/// `leaves`.
fn fresh_leaves(
    graph: &mut Graph,
    id: u32,
    value: &Value,
    leaves: &mut Vec<NodeId>,
    site: &Site,
) -> EvalResult<Value> {
    let node = match value {
        Value::Tensor(t) if t.graph == id => t.node,
        Value::Tensor(t) => return Err(foreign_leaf(t, site.arg(1))),
        Value::HostTensor(t) => graph.constant((**t).clone()),
        other => return each_leaf(other, |v| fresh_leaves(graph, id, v, leaves, site)),
    };
    let fresh = if graph.dtype(node).is_float() {
        graph.fresh_view(node)
    } else {
        // An integer tensor: left as it is, and refused by the gradient.
        node
    };
    leaves.push(fresh);
    Ok(traced(graph, id, fresh))
}

/// `value` with each host tensor replaced by a new input of the graph
/// being traced (its data pushed to `bound`, its node to `leaves`).
fn inputs_of(
    graph: &mut Graph,
    id: u32,
    value: &Value,
    bound: &mut Vec<Tensor>,
    leaves: &mut Vec<NodeId>,
    site: &Site,
) -> EvalResult<Value> {
    match value {
        Value::HostTensor(t) => {
            let node = graph.input(format!("arg{}", bound.len()), t.shape().clone(), t.dtype());
            bound.push((**t).clone());
            leaves.push(node);
            Ok(traced(graph, id, node))
        }
        Value::Tensor(t) => Err(foreign_leaf(t, site.arg(1))),
        other => each_leaf(other, |v| inputs_of(graph, id, v, bound, leaves, site)),
    }
}

/// Maps `f` over the items of a map, vector or list; other values are kept.
fn each_leaf(value: &Value, mut f: impl FnMut(&Value) -> EvalResult<Value>) -> EvalResult<Value> {
    Ok(match value {
        Value::Map(m) => Value::Map(Rc::new(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), f(v)?)))
                .collect::<EvalResult<Vec<_>>>()?,
        )),
        Value::Vector(xs) => Value::vector(xs.iter().map(&mut f).collect::<EvalResult<_>>()?),
        Value::List(xs) => Value::list(xs.iter().map(&mut f).collect::<EvalResult<_>>()?),
        other => other.clone(),
    })
}

fn traced(graph: &Graph, id: u32, node: NodeId) -> Value {
    Value::Tensor(Rc::new(Traced {
        graph: id,
        node,
        shape: graph.shape(node).clone(),
        dtype: graph.dtype(node),
    }))
}

/// A tensor traced in another graph: `E-FLOW-002`.
fn foreign_leaf(t: &Traced, span: Span) -> Flow {
    super::args::foreign(t, "this tensor", span)
}
