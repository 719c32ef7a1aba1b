//! A model's buffers (`docs/sexpgpu/models.md#buffers`): tensors of the
//! model that no optimizer trains, such as batch norm's running statistics
//! (PyTorch's `register_buffer`, flax's `batch_stats`). `(buffer t)` marks
//! one in a `defmodel` body; a run's step graph takes every buffer in and
//! gives its value after the step out, which `(set-buffer! b new)` sets
//! while the step's loss is traced; `(training?)` says whether it is.
//! Misuse is `E-RUN-009`; a new value of another shape or dtype `E-RUN-010`.

use crate::codes;
use crate::eval::{arity, EvalResult, Flow, Interp, Site};
use crate::trace::{self, current_graph};
use crate::value::{short, Value};
use diag::{Diagnostic, Span};
use sexpgpu_graph::{DType, NodeId, Shape};

/// The buffer bookkeeping kept in the interpreter's state.
#[derive(Default)]
pub(super) struct Buffers {
    /// The models being traced (innermost last), each with the nodes
    /// `buffer` marked in it.
    models: Vec<(u32, Vec<NodeId>)>,
    /// The step graph being traced, while its loss is.
    step: Option<StepBuffers>,
}

/// One buffer as the step graph being traced holds it.
pub(super) struct StepBuffer {
    pub name: String,
    /// The step graph's input for the buffer's value before the step.
    pub node: NodeId,
    pub shape: Shape,
    pub dtype: DType,
}

struct StepBuffers {
    id: u32,
    buffers: Vec<StepBuffer>,
    /// The value after the step of each buffer, where `set-buffer!` set one.
    new: Vec<Option<(NodeId, Span)>>,
}

/// Starts collecting `buffer` marks for the model traced into graph `id`.
pub(super) fn begin_model(interp: &mut Interp, id: u32) {
    interp.state::<Buffers>().models.push((id, Vec::new()));
}

/// The nodes marked with `buffer` while the model `id` was traced.
pub(super) fn end_model(interp: &mut Interp, id: u32) -> Vec<NodeId> {
    let models = &mut interp.state::<Buffers>().models;
    match models.iter().rposition(|(m, _)| *m == id) {
        Some(i) => models.remove(i).1,
        None => Vec::new(),
    }
}

/// Lets `set-buffer!` set the buffers of the step graph `id` while its
/// loss is traced.
pub(super) fn begin_step(interp: &mut Interp, id: u32, buffers: Vec<StepBuffer>) {
    let new = vec![None; buffers.len()];
    interp.state::<Buffers>().step = Some(StepBuffers { id, buffers, new });
}

/// Each buffer's node after the step: what `set-buffer!` gave it, else
/// the buffer's own input (the value carries over unchanged).
pub(super) fn end_step(interp: &mut Interp) -> Vec<NodeId> {
    match interp.state::<Buffers>().step.take() {
        Some(step) => step
            .buffers
            .iter()
            .zip(step.new)
            .map(|(b, new)| new.map_or(b.node, |(n, _)| n))
            .collect(),
        None => Vec::new(),
    }
}

fn misuse(message: String, span: Span) -> Flow {
    Flow::from(Diagnostic::error(codes::E_RUN_009, message).with_primary(span, ""))
}

/// `(buffer t)`: `t`, marked as a buffer of the model being traced.
pub fn buffer(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("buffer", site, &args, 1, Some(1))?;
    let (_, id) = current_graph(interp, "buffer", site)?;
    let node = match &args[0] {
        Value::Tensor(t) if t.graph == id => t.node,
        Value::Tensor(t) => return Err(trace::args::foreign(t, "this tensor", site.arg(0))),
        other => {
            return Err(misuse(
                format!("`buffer` marks a tensor, got `{}`", short(other)),
                site.arg(0),
            ))
        }
    };
    match interp.state::<Buffers>().models.last_mut() {
        Some((model, marks)) if *model == id => marks.push(node),
        _ => {
            return Err(Flow::from(
                Diagnostic::error(
                    codes::E_RUN_009,
                    "`buffer` marks an entry of a model, and no `defmodel` body is traced here",
                )
                .with_primary(site.span, "")
                .with_help(
                    "write `(buffer (zeros [n]))` as a value of the map a `defmodel` returns",
                ),
            ))
        }
    }
    Ok(args[0].clone())
}

/// Whether the graph being traced is a run's step: true in `:loss` (and
/// what it calls) while `defrun` traces it, false in `:eval`, `call` and
/// `defgraph`.
pub(super) fn is_training(interp: &mut Interp) -> bool {
    let step = interp.state::<Buffers>().step.as_ref().map(|s| s.id);
    let active = trace::active_graph(interp).map(|(_, id)| id);
    step.is_some() && step == active
}

/// `(training?)`: see `is_training`.
pub fn training(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("training?", site, &args, 0, Some(0))?;
    Ok(Value::Bool(is_training(interp)))
}

/// `(set-buffer! b new)`: the buffer `b` (as the loss received it) holds
/// `new` after this step.
pub fn set_buffer(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("set-buffer!", site, &args, 2, Some(2))?;
    if !is_training(interp) {
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_RUN_009,
                "`set-buffer!` gives a buffer its value after a run's step, and no step is traced here",
            )
            .with_primary(site.span, "")
            .with_note("only a run's `:loss` (and what it calls) updates buffers; `:eval`, `call` and `defgraph` read them")
            .with_help("update buffers only `(when (training?) ...)`"),
        ));
    }
    let (graph, id) = current_graph(interp, "set-buffer!", site)?;
    let target = match &args[0] {
        Value::Tensor(t) if t.graph == id => Some(t.node),
        _ => None,
    };
    let new = match &args[1] {
        Value::Tensor(t) if t.graph == id => t.node,
        Value::HostTensor(t) => graph.constant((**t).clone()),
        Value::Tensor(t) => return Err(trace::args::foreign(t, "this tensor", site.arg(1))),
        other => {
            return Err(misuse(
                format!("a buffer's new value is a tensor, got `{}`", short(other)),
                site.arg(1),
            ))
        }
    };
    let (new_shape, new_dtype) = (graph.shape(new).clone(), graph.dtype(new));
    let what = match &args[0] {
        Value::Tensor(t) => t.describe(),
        other => format!("`{}`", short(other)),
    };
    let step = interp
        .state::<Buffers>()
        .step
        .as_mut()
        .expect("is_training found the step");
    let Some(i) = target.and_then(|n| step.buffers.iter().position(|b| b.node == n)) else {
        let names: Vec<String> = step
            .buffers
            .iter()
            .map(|b| format!("`{}`", b.name))
            .collect();
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_RUN_009,
                format!("`set-buffer!` sets one of the model's buffers, and this is {what}"),
            )
            .with_primary(site.arg(0), "not a buffer of the model")
            .with_note(if names.is_empty() {
                "the model marks no entry with `buffer`".to_string()
            } else {
                format!("the model's buffers: {}", names.join(", "))
            })
            .with_help(
                "mark the entry in the `defmodel` map: `:running-mean (buffer (zeros [c]))`",
            ),
        ));
    };
    let slot = &step.buffers[i];
    if new_shape != slot.shape || new_dtype != slot.dtype {
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_RUN_010,
                format!(
                    "buffer `{}` is {} {}, and its new value is {new_shape} {new_dtype}",
                    slot.name, slot.shape, slot.dtype
                ),
            )
            .with_primary(site.arg(1), "")
            .with_help("a buffer keeps its shape and dtype: reshape or cast the new value"),
        ));
    }
    if let Some((_, first)) = step.new[i] {
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_RUN_009,
                format!("buffer `{}` is set twice in one step", slot.name),
            )
            .with_primary(site.span, "set again here")
            .with_secondary(first, "first set here")
            .with_help(
                "a layer whose buffers change may run once a step; give each use its own buffers",
            ),
        ));
    }
    step.new[i] = Some((new, site.span));
    Ok(Value::Nil)
}
