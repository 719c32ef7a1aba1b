//! The step graph in two, for data-parallel runs
//! (docs/sexpgpu/distributed.md): `NAME/grad` computes the loss, the
//! reported values and the gradients on one rank's slice of the batch,
//! and `NAME/update` applies the optimizer to gradients averaged over
//! every rank. Between them the run sums the gradients across ranks.
//! Traced from the same `:loss` and `:optimizer` as the one-graph step,
//! so the two paths compute the same function.

use super::step::{
    add_hyper, add_inputs, add_params, hyper_values, map_of, model_slots, report_outputs,
    trace_loss_and_grads, trace_opt_init, trace_update, with_buffers, LossAndGrads, ModelSlots,
    Reported, Slot,
};
use super::{run_error, TracedRun};
use crate::codes;
use crate::eval::{EvalResult, Interp};
use crate::trace;
use crate::value::{with_leaves, Value};
use sexpgpu_graph::{Graph, NodeId, Shape};

/// The two halves of a step.
pub struct SplitStep {
    /// Parameters, the rank's batch rows, buffers in; the loss, the
    /// reports, one f32 gradient per parameter and the new buffers out.
    pub grad: Graph,
    /// Parameters, gradients, optimizer state, hyperparameters in; the
    /// new parameters and the new state out.
    pub update: Graph,
    pub reports: Vec<Reported>,
    /// Output index of the first gradient of `grad`; the new buffers
    /// follow the gradients.
    pub first_grad_output: usize,
}

/// Traces the two halves for batches of `rows` rows (one rank's share).
pub fn trace_split(interp: &mut Interp, run: &TracedRun, rows: usize) -> EvalResult<SplitStep> {
    let spec = &run.spec;
    let model = model_slots(spec)?;
    let batch: Vec<Slot> = run
        .step
        .batch
        .iter()
        .map(|s| {
            let mut dims = s.shape.dims().to_vec();
            if let Some(first) = dims.first_mut() {
                *first = rows;
            }
            Slot {
                shape: Shape::new(dims),
                ..s.clone()
            }
        })
        .collect();
    let (grad, reports, first_grad_output) = trace_grad(interp, run, &model, &batch)?;
    if reports.len() != run.step.reports.len() {
        return Err(run_error(
            codes::E_RUN_002,
            "a data-parallel run's optimizer cannot report values (`metric` in `:update`)",
            spec.optimizer.span,
        )
        .into());
    }
    let (update, _) = trace_update_graph(interp, run, &model.params)?;
    Ok(SplitStep {
        grad,
        update,
        reports,
        first_grad_output,
    })
}

fn trace_grad(
    interp: &mut Interp,
    run: &TracedRun,
    model: &ModelSlots,
    batch: &[Slot],
) -> EvalResult<(Graph, Vec<Reported>, usize)> {
    let spec = &run.spec;
    let mut graph = Graph::new(format!("{}/grad", spec.name));
    graph.set_span(Some(spec.span));
    let id = trace::begin(interp, graph);
    let result = grad_body(interp, run, id, model, batch);
    let (mut graph, reports) = trace::end(interp);
    let LossAndGrads {
        loss,
        grads,
        tap_norms,
        new_buffers,
    } = result?;
    let (mut outputs, reported) = report_outputs(&mut graph, &reports, loss, tap_norms);
    let first_grad_output = outputs.len();
    outputs.extend(grads);
    outputs.extend(new_buffers);
    graph.set_outputs(outputs);
    Ok((graph, reported, first_grad_output))
}

fn grad_body(
    interp: &mut Interp,
    run: &TracedRun,
    id: u32,
    model: &ModelSlots,
    batch: &[Slot],
) -> EvalResult<LossAndGrads> {
    let spec = &run.spec;
    let (param_nodes, params, _) = add_params(interp, &model.params, spec.model.span);
    let batch_inputs = add_inputs(interp, "batch/", batch, spec.data_span);
    let batch_value = map_of(batch, batch_inputs.iter().map(|(_, v)| v.clone()));
    let buffer_inputs = add_inputs(interp, "buffer/", &model.buffers, spec.model.span);
    let params = with_buffers(model, params, &buffer_inputs);
    let buffer_nodes: Vec<NodeId> = buffer_inputs.iter().map(|(n, _)| *n).collect();
    trace_loss_and_grads(
        interp,
        spec,
        id,
        model,
        params,
        &buffer_nodes,
        batch_value,
        &param_nodes,
    )
}

/// The update graph for the parameters `params` (all of the model's, or
/// one rank's shard under ZeRO-1, `train::zero`), and their state's slots.
pub fn trace_update_graph(
    interp: &mut Interp,
    run: &TracedRun,
    params: &[Slot],
) -> EvalResult<(Graph, Vec<Slot>)> {
    let spec = &run.spec;
    let hyper = hyper_values(interp, spec, 1)?;
    let (_, template, state) = trace_opt_init(interp, spec, params)?;
    let mut graph = Graph::new(format!("{}/update", spec.name));
    graph.set_span(Some(spec.optimizer.span));
    let id = trace::begin(interp, graph);
    let result = update_body(interp, run, id, params, &template, &state, &hyper);
    let (mut graph, _) = trace::end(interp);
    graph.set_outputs(result?);
    Ok((graph, state))
}

/// The update graph's inputs (masters, `grad/...`, `opt/...`, `hyper/...`)
/// and the optimizer's `:update` over them.
fn update_body(
    interp: &mut Interp,
    run: &TracedRun,
    id: u32,
    params: &[Slot],
    template: &Value,
    state: &[Slot],
    hyper: &[(String, f64)],
) -> EvalResult<Vec<NodeId>> {
    let spec = &run.spec;
    let (_, _, masters) = add_params(interp, params, spec.model.span);
    let grads = add_inputs(interp, "grad/", params, spec.model.span);
    let grads = map_of(params, grads.iter().map(|(_, v)| v.clone()));
    let inputs = add_inputs(interp, "opt/", state, spec.optimizer.span);
    let state_value = with_leaves(template, &mut inputs.iter().map(|(_, v)| v.clone()));
    let hyper = add_hyper(interp, spec, hyper);
    trace_update(
        interp,
        spec,
        id,
        params,
        state,
        [masters, grads, state_value, hyper],
    )
}
