//! Tracing a run's graphs: the optimizer's state initialiser, the step
//! graph (loss with parameters, buffers and a batch as graph inputs,
//! reverse-mode gradients, reporting outputs, the optimizer's update, the
//! buffers' new values) and the eval graph. Mistakes found here point at
//! the run's forms; nothing runs.

use super::buffers::{self, StepBuffer};
use super::options::RunSpec;
use super::{run_error, wrong_value, TracedRun};
use crate::codes;
use crate::eval::{EvalResult, Flow, Interp, Site};
use crate::trace::{self, ReportKind, ReportValue};
use crate::value::{with_leaves, GraphDef, Outputs, Traced, Value};
use diag::{Diagnostic, Span};
use sexpgpu_graph::{BinaryOp, DType, Graph, NodeId, ReduceOp, Shape, UnaryOp};
use std::rc::Rc;

/// One argument of a run's graphs: its key (in the model's map, the
/// batch...), name, shape and dtype as stored. A bf16 parameter is stored
/// as an f32 master weight and cast to `compute` where the model sees it,
/// so updates accumulate in f32.
#[derive(Clone)]
pub struct Slot {
    pub key: Value,
    pub name: String,
    pub shape: Shape,
    pub dtype: DType,
    pub compute: DType,
}

/// What one reported output of a graph is.
#[derive(Clone)]
pub struct Reported {
    pub kind: ReportKind,
    pub name: String,
    pub span: Span,
    /// The output index, or a number fixed while tracing.
    pub source: Source,
}

#[derive(Clone, Copy)]
pub enum Source {
    Output(usize),
    Number(f64),
}

/// The step graph. Arguments: parameters, batch columns, optimizer state,
/// the model's buffers, hyper-parameters (f32 scalars). Outputs: the loss,
/// the reported values, the new parameters, the new state, the buffers
/// after the step.
pub struct StepGraph {
    pub graph: Graph,
    /// The model's trainable parameters.
    pub params: Vec<Slot>,
    pub batch: Vec<Slot>,
    pub state: Vec<Slot>,
    /// The model's buffers (`docs/sexpgpu/models.md#buffers`).
    pub buffers: Vec<Slot>,
    /// For each entry of the model's map in order: whether it is a buffer.
    pub buffer_at: Vec<bool>,
    pub hyper: Vec<String>,
    pub reports: Vec<Reported>,
    /// Output index of the first new parameter; the state follows them,
    /// then the buffers.
    pub first_param_output: usize,
}

impl StepGraph {
    /// The map a run's functions see: the model's entries in its order,
    /// parameters and buffers alike.
    pub fn model_map(&self, params: Vec<Value>, buffers: Vec<Value>) -> Value {
        model_map(
            &self.params,
            &self.buffers,
            &self.buffer_at,
            params,
            buffers,
        )
    }
}

/// The model's entries in order, from its parameters' and buffers' values.
fn model_map(
    params: &[Slot],
    buffers: &[Slot],
    buffer_at: &[bool],
    param_values: Vec<Value>,
    buffer_values: Vec<Value>,
) -> Value {
    let mut params = params.iter().zip(param_values);
    let mut buffers = buffers.iter().zip(buffer_values);
    let entries = buffer_at
        .iter()
        .filter_map(|&is_buffer| {
            let (slot, value) = if is_buffer {
                buffers.next()?
            } else {
                params.next()?
            };
            Some((slot.key.clone(), value))
        })
        .collect();
    Value::Map(Rc::new(entries))
}

/// The eval graph. Arguments: parameters, buffers, batch columns. Outputs:
/// one per entry of `metrics`.
pub struct EvalGraph {
    pub graph: Graph,
    pub metrics: Vec<String>,
}

pub fn trace_run(interp: &mut Interp, spec: RunSpec) -> EvalResult<TracedRun> {
    let model = model_slots(&spec)?;
    let (opt_init, state_template, state) = trace_opt_init(interp, &spec, &model.params)?;
    let step = trace_step(interp, &spec, &model, &state_template, state)?;
    let eval = match &spec.eval {
        Some(eval) => Some(trace_eval(interp, &spec, eval, &model)?),
        None => None,
    };
    for (graph, outputs) in [
        (&opt_init, opt_init.outputs().len()),
        (&step.graph, step.graph.outputs().len()),
    ]
    .into_iter()
    .chain(eval.as_ref().map(|e| (&e.graph, e.metrics.len())))
    {
        trace::register(
            interp,
            Rc::new(GraphDef {
                name: graph.name().to_string(),
                graph: graph.clone(),
                outputs: Outputs::Vector(vec![Outputs::One; outputs]),
                span: spec.span,
                buffers: Vec::new(),
            }),
        );
    }
    Ok(TracedRun {
        spec,
        step,
        eval,
        opt_init,
    })
}

/// The model's entries: trainable parameters (floats) and buffers (any
/// dtype, never trained), and which is which in the model's order.
pub(super) struct ModelSlots {
    pub params: Vec<Slot>,
    pub buffers: Vec<Slot>,
    pub buffer_at: Vec<bool>,
}

pub(super) fn model_slots(spec: &RunSpec) -> EvalResult<ModelSlots> {
    let model = &spec.model;
    let Outputs::Map(entries) = &model.outputs else {
        return Err(run_error(
            codes::E_RUN_002,
            format!(
                "defrun: `:model` must be a `defmodel`, and `{}` is a graph",
                model.name
            ),
            spec.span,
        )
        .into());
    };
    let graph = &model.graph;
    let mut slots = ModelSlots {
        params: Vec::new(),
        buffers: Vec::new(),
        buffer_at: Vec::new(),
    };
    if let Some((key, layout)) = entries
        .iter()
        .find(|(_, layout)| !matches!(layout, Outputs::One))
    {
        let kind = match layout {
            Outputs::Map(_) => "a map",
            _ => "a vector",
        };
        return Err(run_error(
            codes::E_RUN_002,
            format!(
                "model `{}` must return a map of tensors, but its entry `{}` is {kind}",
                model.name,
                key_name(key)
            ),
            model.span,
        )
        .with_help("give every parameter its own key, such as `:h0-w`")
        .into());
    }
    let keys = entries.iter().map(|(key, _)| key);
    for (i, (key, &node)) in keys.zip(graph.outputs()).enumerate() {
        let name = key_name(key);
        let is_buffer = model.buffers.contains(&i);
        slots.buffer_at.push(is_buffer);
        if is_buffer {
            slots.buffers.push(Slot {
                key: key.clone(),
                name,
                shape: graph.shape(node).clone(),
                dtype: graph.dtype(node),
                compute: graph.dtype(node),
            });
            continue;
        }
        if !graph.dtype(node).is_float() {
            return Err(run_error(
                codes::E_RUN_002,
                format!(
                    "parameter `{name}` is {}; parameters are floats",
                    graph.describe(node)
                ),
                graph.node(node).span.unwrap_or(model.span),
            )
            .with_help("mark a tensor the model keeps but does not train with `(buffer ...)`")
            .into());
        }
        slots.params.push(Slot {
            key: key.clone(),
            name,
            shape: graph.shape(node).clone(),
            dtype: DType::F32,
            compute: graph.dtype(node),
        });
    }
    Ok(slots)
}

pub fn key_name(key: &Value) -> String {
    match key {
        Value::Keyword(k) | Value::Str(k) | Value::Symbol(k) => k.to_string(),
        other => other.repr(),
    }
}

pub(super) fn tensor_value(id: u32, node: NodeId, slot: &Slot) -> Value {
    Value::Tensor(Rc::new(Traced {
        graph: id,
        node,
        shape: slot.shape.clone(),
        dtype: slot.dtype,
    }))
}

pub(super) fn map_of(slots: &[Slot], values: impl Iterator<Item = Value>) -> Value {
    Value::Map(Rc::new(
        slots.iter().map(|s| s.key.clone()).zip(values).collect(),
    ))
}

/// Parameters as `param` nodes of the graph being traced.
/// Returns the nodes, the map the model sees (bf16 parameters cast from
/// their masters) and the map of master weights the optimizer updates.
pub(super) fn add_params(
    interp: &mut Interp,
    params: &[Slot],
    span: Span,
) -> (Vec<NodeId>, Value, Value) {
    let (graph, id) = trace::active_graph(interp).expect("a graph is being traced");
    graph.set_span(Some(span));
    let nodes: Vec<NodeId> = params
        .iter()
        .map(|s| graph.param(&s.name, s.shape.clone(), s.dtype))
        .collect();
    let seen: Vec<Value> = params
        .iter()
        .zip(&nodes)
        .map(|(s, &n)| {
            if s.compute == s.dtype {
                return tensor_value(id, n, s);
            }
            let cast = graph.cast(n, s.compute);
            Value::Tensor(Rc::new(Traced {
                graph: id,
                node: cast,
                shape: s.shape.clone(),
                dtype: s.compute,
            }))
        })
        .collect();
    let masters = params
        .iter()
        .zip(&nodes)
        .map(|(s, &n)| tensor_value(id, n, s));
    let masters = map_of(params, masters);
    (nodes, map_of(params, seen.into_iter()), masters)
}

pub(super) fn add_inputs(
    interp: &mut Interp,
    prefix: &str,
    slots: &[Slot],
    span: Span,
) -> Vec<(NodeId, Value)> {
    let (graph, id) = trace::active_graph(interp).expect("a graph is being traced");
    graph.set_span(Some(span));
    slots
        .iter()
        .map(|s| {
            let node = graph.input(format!("{prefix}{}", s.name), s.shape.clone(), s.dtype);
            (node, tensor_value(id, node, s))
        })
        .collect()
}

/// Traces `(init params)`; returns the graph, the state's structure (its
/// traced value) and its leaves.
pub(super) fn trace_opt_init(
    interp: &mut Interp,
    spec: &RunSpec,
    params: &[Slot],
) -> EvalResult<(Graph, Value, Vec<Slot>)> {
    let mut graph = Graph::new(format!("{}/opt-init", spec.name));
    graph.set_span(Some(spec.optimizer.span));
    let id = trace::begin(interp, graph);
    let (_, _, masters) = add_params(interp, params, spec.model.span);
    let site = Site::bare(spec.optimizer.span);
    let result = interp.apply(&spec.optimizer.init, vec![masters], &site);
    let (mut graph, _) = trace::end(interp);
    let state = result?;
    let leaves = leaves_of(&state, id, "optimizer state", spec.optimizer.span)?;
    let mut slots = Vec::new();
    let mut outputs = Vec::new();
    for (path, node) in leaves {
        let node = match node {
            Leaf::Node(n) => n,
            Leaf::Host(t) => graph.constant(t),
        };
        slots.push(Slot {
            key: Value::str(&path),
            name: path,
            shape: graph.shape(node).clone(),
            dtype: graph.dtype(node),
            compute: graph.dtype(node),
        });
        outputs.push(node);
    }
    graph.set_outputs(outputs);
    Ok((graph, state, slots))
}

enum Leaf {
    Node(NodeId),
    Host(sexpgpu_graph::Tensor),
}

/// The tensors of a nested map/vector value in order, with their paths.
fn leaves_of(value: &Value, id: u32, what: &str, span: Span) -> EvalResult<Vec<(String, Leaf)>> {
    fn walk(
        value: &Value,
        path: String,
        id: u32,
        out: &mut Vec<(String, Leaf)>,
    ) -> Result<(), String> {
        let join = |k: String| {
            if path.is_empty() {
                k
            } else {
                format!("{path}/{k}")
            }
        };
        match value {
            Value::Map(m) => m
                .iter()
                .try_for_each(|(k, v)| walk(v, join(key_name(k)), id, out)),
            Value::Vector(xs) | Value::List(xs) => xs
                .iter()
                .enumerate()
                .try_for_each(|(i, v)| walk(v, join(i.to_string()), id, out)),
            Value::Tensor(t) if t.graph == id => {
                out.push((path, Leaf::Node(t.node)));
                Ok(())
            }
            Value::HostTensor(t) => {
                out.push((path, Leaf::Host((**t).clone())));
                Ok(())
            }
            Value::Nil => Ok(()),
            other => Err(format!("`{path}` is {}", crate::value::short(other))),
        }
    }
    let mut out = Vec::new();
    walk(value, String::new(), id, &mut out).map_err(|why| {
        Flow::from(
            Diagnostic::error(
                codes::E_RUN_002,
                format!("the {what} must be maps and vectors of tensors of this graph: {why}"),
            )
            .with_primary(span, ""),
        )
    })?;
    Ok(out)
}

/// Calls the optimizer's `:hyper` function for `step`: its scalars by name.
pub fn hyper_values(
    interp: &mut Interp,
    spec: &RunSpec,
    step: u64,
) -> EvalResult<Vec<(String, f64)>> {
    let site = Site::bare(spec.optimizer.span);
    let value = interp.apply(&spec.optimizer.hyper, vec![Value::Int(step as i64)], &site)?;
    let Value::Map(entries) = &value else {
        return Err(run_error(
            codes::E_RUN_002,
            format!(
                "the optimizer's `:hyper` must return a map of numbers, got `{}`",
                crate::value::short(&value)
            ),
            spec.optimizer.span,
        )
        .into());
    };
    entries
        .iter()
        .map(|(k, v)| match v.as_f64() {
            Some(x) => Ok((key_name(k), x)),
            None => Err(run_error(
                codes::E_RUN_002,
                format!(
                    "the optimizer's `:hyper` gave `{}` for `{}`, not a number",
                    crate::value::short(v),
                    key_name(k)
                ),
                spec.optimizer.span,
            )
            .into()),
        })
        .collect()
}

fn slots_of_layout(layout: Vec<(Value, String, Shape, DType)>) -> Vec<Slot> {
    layout
        .into_iter()
        .map(|(key, name, shape, dtype)| Slot {
            key,
            name,
            shape,
            dtype,
            compute: dtype,
        })
        .collect()
}

fn trace_step(
    interp: &mut Interp,
    spec: &RunSpec,
    model: &ModelSlots,
    state_template: &Value,
    state: Vec<Slot>,
) -> EvalResult<StepGraph> {
    let hyper = hyper_values(interp, spec, 1)?;
    let batch = slots_of_layout(spec.data.layout());
    let mut graph = Graph::new(format!("{}/step", spec.name));
    graph.set_span(Some(spec.span));
    let id = trace::begin(interp, graph);
    let result = trace_step_body(
        interp,
        spec,
        id,
        model,
        &batch,
        state_template,
        &state,
        &hyper,
    );
    let (mut graph, reports) = trace::end(interp);
    let (loss, tap_norms, update_outputs) = result?;
    let (mut outputs, reported) = report_outputs(&mut graph, &reports, loss, tap_norms);
    let first_param_output = outputs.len();
    outputs.extend(update_outputs);
    graph.set_outputs(outputs);
    Ok(StepGraph {
        graph,
        params: model.params.clone(),
        batch,
        state,
        buffers: model.buffers.clone(),
        buffer_at: model.buffer_at.clone(),
        hyper: hyper.into_iter().map(|(k, _)| k).collect(),
        reports: reported,
        first_param_output,
    })
}

/// The loss and every reported value as a graph's first outputs (a
/// `diagnostic` as 1 when it holds, a tap as its gradient's norm), and
/// where each report is.
pub(super) fn report_outputs(
    graph: &mut Graph,
    reports: &[trace::Report],
    loss: NodeId,
    tap_norms: Vec<NodeId>,
) -> (Vec<NodeId>, Vec<Reported>) {
    let mut outputs = vec![loss];
    let mut reported = Vec::new();
    let mut tap_norms = tap_norms.into_iter();
    for r in reports {
        let source = match r.value {
            ReportValue::Number(x) => Source::Number(x),
            ReportValue::Node(node) => {
                let node = match r.kind {
                    ReportKind::Diagnostic => any_true(graph, node),
                    ReportKind::Tap => tap_norms.next().unwrap_or(node),
                    _ => node,
                };
                outputs.push(node);
                Source::Output(outputs.len() - 1)
            }
        };
        reported.push(Reported {
            kind: r.kind,
            name: r.name.clone(),
            span: r.span,
            source,
        });
    }
    (outputs, reported)
}

/// A scalar f32 that is 1 when any element of a boolean node is true.
fn any_true(graph: &mut Graph, node: NodeId) -> NodeId {
    let as_float = graph.cast(node, DType::F32);
    graph
        .reduce(ReduceOp::Max, as_float, None, false)
        .expect("max over a float tensor")
}

/// The step graph's inputs as the host functions see them.
struct StepInputs {
    /// The graph input of each parameter (the f32 master for bf16 ones).
    param_nodes: Vec<NodeId>,
    /// The model's map the loss is called with: parameters (in compute
    /// dtypes) and buffers.
    params: Value,
    /// The graph input of each buffer.
    buffer_nodes: Vec<NodeId>,
    /// The master weights map the optimizer updates.
    masters: Value,
    batch: Value,
    state: Value,
    hyper: Value,
}

/// Traces loss, gradients, gradient taps and the update into the active
/// graph; returns the loss node, the norm of each tapped gradient (in
/// report order) and the new parameters, state and buffers.
#[allow(clippy::too_many_arguments)]
fn trace_step_body(
    interp: &mut Interp,
    spec: &RunSpec,
    id: u32,
    model: &ModelSlots,
    batch: &[Slot],
    state_template: &Value,
    state: &[Slot],
    hyper: &[(String, f64)],
) -> EvalResult<(NodeId, Vec<NodeId>, Vec<NodeId>)> {
    let params = &model.params[..];
    let inputs = add_step_inputs(interp, spec, model, batch, state_template, state, hyper);
    let traced = trace_loss_and_grads(
        interp,
        spec,
        id,
        model,
        inputs.params,
        &inputs.buffer_nodes,
        inputs.batch,
        &inputs.param_nodes,
    )?;
    let grad_value = map_of(
        params,
        params
            .iter()
            .zip(&traced.grads)
            .map(|(s, &n)| tensor_value(id, n, s)),
    );
    let mut outputs = trace_update(
        interp,
        spec,
        id,
        params,
        state,
        [inputs.masters, grad_value, inputs.state, inputs.hyper],
    )?;
    outputs.extend(traced.new_buffers);
    Ok((traced.loss, traced.tap_norms, outputs))
}

/// What tracing the loss and its gradients gives.
pub(super) struct LossAndGrads {
    pub loss: NodeId,
    /// One per trainable parameter, in order.
    pub grads: Vec<NodeId>,
    /// The norm of each tapped gradient, in report order.
    pub tap_norms: Vec<NodeId>,
    /// The buffers' values after the step (`set-buffer!`).
    pub new_buffers: Vec<NodeId>,
}

/// Traces `:loss` on the model's map `params` (buffers included, their
/// inputs `buffer_nodes`) and `batch` in training mode, then its gradients
/// with respect to the parameters' inputs `param_nodes`.
#[allow(clippy::too_many_arguments)]
pub(super) fn trace_loss_and_grads(
    interp: &mut Interp,
    spec: &RunSpec,
    id: u32,
    model: &ModelSlots,
    params: Value,
    buffer_nodes: &[NodeId],
    batch: Value,
    param_nodes: &[NodeId],
) -> EvalResult<LossAndGrads> {
    let site = Site::bare(spec.loss_span);
    let step_buffers = model
        .buffers
        .iter()
        .zip(buffer_nodes)
        .map(|(slot, &node)| StepBuffer {
            name: slot.name.clone(),
            node,
            shape: slot.shape.clone(),
            dtype: slot.dtype,
        })
        .collect();
    // `set-buffer!` works (and `training?` is true) only while the loss is traced.
    buffers::begin_step(interp, id, step_buffers);
    let loss = interp.apply(&spec.loss, vec![params, batch], &site);
    let new_buffers = buffers::end_step(interp);
    let loss = loss_node(&loss?, id, spec)?;
    let (grads, tap_norms) = gradients(interp, spec, loss, param_nodes)?;
    Ok(LossAndGrads {
        loss,
        grads,
        tap_norms,
        new_buffers,
    })
}

/// Traces the optimizer's `:update` on [masters grads state hyper]; the
/// new parameters' and state's nodes.
pub(super) fn trace_update(
    interp: &mut Interp,
    spec: &RunSpec,
    id: u32,
    params: &[Slot],
    state: &[Slot],
    args: [Value; 4],
) -> EvalResult<Vec<NodeId>> {
    let site = Site::bare(spec.optimizer.span);
    let updated = interp.apply(&spec.optimizer.update, args.to_vec(), &site)?;
    update_outputs(interp, spec, id, params, state, &updated)
}

/// Adds the step graph's inputs in their order (parameters, batch,
/// optimizer state, buffers, hyperparameters) and builds the host values
/// over them.
fn add_step_inputs(
    interp: &mut Interp,
    spec: &RunSpec,
    model: &ModelSlots,
    batch: &[Slot],
    state_template: &Value,
    state: &[Slot],
    hyper: &[(String, f64)],
) -> StepInputs {
    let (param_nodes, p, masters) = add_params(interp, &model.params, spec.model.span);
    let batch_inputs = add_inputs(interp, "batch/", batch, spec.data_span);
    let batch_value = map_of(batch, batch_inputs.iter().map(|(_, v)| v.clone()));
    let state_inputs = add_inputs(interp, "opt/", state, spec.optimizer.span);
    let state_value = with_leaves(
        state_template,
        &mut state_inputs.iter().map(|(_, v)| v.clone()),
    );
    let buffer_inputs = add_inputs(interp, "buffer/", &model.buffers, spec.model.span);
    let p = with_buffers(model, p, &buffer_inputs);
    let hyper_value = add_hyper(interp, spec, hyper);
    StepInputs {
        param_nodes,
        params: p,
        buffer_nodes: buffer_inputs.iter().map(|(n, _)| *n).collect(),
        masters,
        batch: batch_value,
        state: state_value,
        hyper: hyper_value,
    }
}

/// The step's scalars (`hyper/lr` ...) as inputs; their map.
pub(super) fn add_hyper(interp: &mut Interp, spec: &RunSpec, hyper: &[(String, f64)]) -> Value {
    let hyper_slots: Vec<Slot> = hyper
        .iter()
        .map(|(k, _)| Slot {
            key: Value::keyword(k),
            name: k.clone(),
            shape: Shape::scalar(),
            dtype: DType::F32,
            compute: DType::F32,
        })
        .collect();
    let hyper_inputs = add_inputs(interp, "hyper/", &hyper_slots, spec.optimizer.span);
    map_of(&hyper_slots, hyper_inputs.iter().map(|(_, v)| v.clone()))
}

/// The loss function's result must be a float scalar of this graph (`E-RUN-003`).
fn loss_node(loss: &Value, id: u32, spec: &RunSpec) -> EvalResult<NodeId> {
    match loss {
        Value::Tensor(t) if t.graph == id && t.shape.rank() == 0 && t.dtype.is_float() => {
            Ok(t.node)
        }
        other => {
            let what = match other {
                Value::Tensor(t) => t.describe(),
                v => v.type_name().to_string(),
            };
            Err(Flow::from(
                Diagnostic::error(
                    codes::E_RUN_003,
                    format!("the loss must be a float scalar [], got {what}"),
                )
                .with_primary(spec.loss_span, "this function gives the loss")
                .with_help("reduce it to one number, e.g. with `nn/mean` or `nn/cross-entropy`"),
            ))
        }
    }
}

/// The loss's gradient with respect to each parameter, and the norm of its
/// gradient with respect to each tapped node (`tap-gradient`, in report order).
fn gradients(
    interp: &mut Interp,
    spec: &RunSpec,
    loss: NodeId,
    param_nodes: &[NodeId],
) -> EvalResult<(Vec<NodeId>, Vec<NodeId>)> {
    let tap_nodes: Vec<NodeId> = trace::reports(interp)
        .iter()
        .filter(|r| r.kind == ReportKind::Tap)
        .filter_map(|r| match r.value {
            ReportValue::Node(n) => Some(n),
            ReportValue::Number(_) => None,
        })
        .collect();
    let (graph, _) = trace::active_graph(interp).expect("tracing the step");
    let wrt: Vec<NodeId> = param_nodes.iter().copied().chain(tap_nodes).collect();
    let mut grads = sexpgpu_autodiff::grad(graph, loss, &wrt).map_err(|e| {
        let mut d =
            Diagnostic::error(codes::E_RUN_003, e.message.clone()).with_primary(spec.loss_span, "");
        if let Some(span) = e.node.and_then(|n| graph.node(n).span) {
            d = d.with_secondary(span, "at this operation");
        }
        if let Some(note) = &e.note {
            d = d.with_note(note.clone());
        }
        Flow::from(d)
    })?;
    let tap_norms = grads
        .split_off(param_nodes.len())
        .into_iter()
        .map(|g| norm(graph, g))
        .collect();
    Ok((grads, tap_norms))
}

/// The nodes of the new parameters and state the optimizer's `:update`
/// returned as `[new-params new-state]`, each checked against its old
/// slot's shape and dtype.
fn update_outputs(
    interp: &mut Interp,
    spec: &RunSpec,
    id: u32,
    params: &[Slot],
    state: &[Slot],
    updated: &Value,
) -> EvalResult<Vec<NodeId>> {
    let (new_params, new_state) = match updated {
        Value::Vector(xs) | Value::List(xs) if xs.len() == 2 => (xs[0].clone(), xs[1].clone()),
        other => {
            let what = "the optimizer's `:update` must return [new-params new-state]";
            return Err(wrong_value(codes::E_RUN_002, what, other, spec.optimizer.span).into());
        }
    };
    let span = spec.optimizer.span;
    let mut outputs = Vec::new();
    for slot in params {
        let value = new_params.map_get(&slot.key).unwrap_or(Value::Nil);
        outputs.push(matching_node(interp, id, &value, slot, "parameter", span)?);
    }
    let leaves = leaves_of(&new_state, id, "new optimizer state", span)?;
    if leaves.len() != state.len() {
        return Err(run_error(
            codes::E_RUN_002,
            format!(
                "the optimizer's state had {} tensors, its update returns {}",
                state.len(),
                leaves.len()
            ),
            span,
        )
        .into());
    }
    for ((_, leaf), slot) in leaves.into_iter().zip(state) {
        let value = match leaf {
            Leaf::Node(n) => Value::Tensor(Rc::new(Traced {
                graph: id,
                node: n,
                shape: slot.shape.clone(),
                dtype: slot.dtype,
            })),
            Leaf::Host(t) => Value::HostTensor(Rc::new(t)),
        };
        outputs.push(matching_node(
            interp,
            id,
            &value,
            slot,
            "state tensor",
            span,
        )?);
    }
    Ok(outputs)
}

/// sqrt(sum(g * g)) in f32.
fn norm(graph: &mut Graph, g: NodeId) -> NodeId {
    let g = graph.cast(g, DType::F32);
    let square = graph.binary(BinaryOp::Mul, g, g).expect("same shapes");
    let total = graph
        .reduce(ReduceOp::Sum, square, None, false)
        .expect("sum of floats");
    graph.unary(UnaryOp::Sqrt, total).expect("sqrt of a float")
}

/// A new parameter or state tensor, checked against the old one's shape and dtype.
fn matching_node(
    interp: &mut Interp,
    id: u32,
    value: &Value,
    slot: &Slot,
    what: &str,
    span: Span,
) -> EvalResult<NodeId> {
    let (graph, _) = trace::active_graph(interp).expect("tracing the step");
    let node = match value {
        Value::Tensor(t) if t.graph == id => t.node,
        Value::HostTensor(t) => graph.constant((**t).clone()),
        other => {
            return Err(run_error(
                codes::E_RUN_002,
                format!(
                    "the optimizer's new {what} `{}` is `{}`, not a tensor",
                    slot.name,
                    crate::value::short(other)
                ),
                span,
            )
            .into())
        }
    };
    if graph.shape(node) != &slot.shape || graph.dtype(node) != slot.dtype {
        return Err(run_error(
            codes::E_RUN_002,
            format!(
                "the optimizer's new {what} `{}` is {}, but it was {} {}",
                slot.name,
                graph.describe(node),
                slot.shape,
                slot.dtype
            ),
            span,
        )
        .into());
    }
    Ok(node)
}

/// The map of the model's entries in its order: the parameters' values
/// (`params`, a map of the parameters alone) and the buffers' inputs.
pub(super) fn with_buffers(
    model: &ModelSlots,
    params: Value,
    buffers: &[(NodeId, Value)],
) -> Value {
    let Value::Map(entries) = &params else {
        return params;
    };
    model_map(
        &model.params,
        &model.buffers,
        &model.buffer_at,
        entries.iter().map(|(_, v)| v.clone()).collect(),
        buffers.iter().map(|(_, v)| v.clone()).collect(),
    )
}

fn trace_eval(
    interp: &mut Interp,
    spec: &RunSpec,
    eval: &super::options::EvalSpec,
    model: &ModelSlots,
) -> EvalResult<EvalGraph> {
    let batch = slots_of_layout(eval.data.layout());
    let mut graph = Graph::new(format!("{}/eval", spec.name));
    graph.set_span(Some(eval.span));
    let id = trace::begin(interp, graph);
    let (_, p, _) = add_params(interp, &model.params, spec.model.span);
    let buffer_inputs = add_inputs(interp, "buffer/", &model.buffers, spec.model.span);
    let p = with_buffers(model, p, &buffer_inputs);
    let inputs = add_inputs(interp, "batch/", &batch, eval.data_span);
    let batch_value = map_of(&batch, inputs.into_iter().map(|(_, v)| v));
    let result = interp.apply(&eval.function, vec![p, batch_value], &Site::bare(eval.span));
    let (mut graph, reports) = trace::end(interp);
    let result = result?;
    let mut metrics = Vec::new();
    let mut outputs = Vec::new();
    let entries: Vec<(String, Value)> = match &result {
        Value::Map(m) => m.iter().map(|(k, v)| (key_name(k), v.clone())).collect(),
        Value::Nil => Vec::new(),
        other => {
            let what = "`:eval` must return a map of scalar metrics";
            return Err(wrong_value(codes::E_RUN_002, what, other, eval.span).into());
        }
    };
    for (name, value) in entries {
        match &value {
            Value::Tensor(t) if t.graph == id && t.shape.rank() == 0 => {
                metrics.push(name);
                outputs.push(t.node);
            }
            other => {
                let what = format!("eval metric `{name}` must be a scalar tensor");
                return Err(wrong_value(codes::E_RUN_003, &what, other, eval.span).into());
            }
        }
    }
    for r in reports.iter().filter(|r| r.kind == ReportKind::Metric) {
        if let ReportValue::Node(n) = r.value {
            metrics.push(r.name.clone());
            outputs.push(n);
        }
    }
    graph.set_outputs(outputs);
    Ok(EvalGraph { graph, metrics })
}
