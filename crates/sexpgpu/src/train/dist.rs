//! Data-parallel runs (docs/sexpgpu/distributed.md): one process per rank,
//! each running its slice of every global batch through the run's
//! `NAME/grad` graph (`split`), the gradients and reported values summed
//! over the ranks by a `Collective` (MPI or NCCL; the command supplies it,
//! the library does no I/O) and divided by the world size, then the same
//! `NAME/update` on every rank, so every rank keeps the same parameters.
//! Rank 0 starts the run (fresh or from a checkpoint) and broadcasts what
//! it carries; before that the ranks compare a hash of their graphs.

use super::batches::take_rows;
use super::checkpoint::{self, Checkpoint};
use super::split::{trace_split, trace_update_graph, SplitStep};
use super::step::{Source, StepGraph};
use super::zero::{self, Shards};
use super::TracedRun;
use crate::codes;
use crate::eval::Interp;
use crate::trace::ReportKind;
use diag::{Diagnostic, Span};
use sexpgpu_graph::{DType, Graph, Tensor, TensorData};
use std::fmt::Write as _;
use std::rc::Rc;

/// The collectives a data-parallel run needs, over every rank of the job.
/// `what` names the operation (with its step) for the collective
/// watchdog's message. Each call is made by every rank in the same order.
pub trait Collective {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// Sums `data` over the ranks in place; every rank gets the same sums.
    fn all_reduce_sum(&self, what: &str, data: &mut [f32]) -> Result<(), String>;
    /// Rank 0's bytes on every rank.
    fn broadcast(&self, what: &str, bytes: &mut Vec<u8>) -> Result<(), String>;
    /// Every rank's value, in rank order.
    fn all_gather_u64(&self, what: &str, value: u64) -> Result<Vec<u64>, String>;
    /// Sums `data` over the ranks; this rank gets its part of the sums
    /// (the parts in rank order, rank `r`'s `counts[r]` long).
    fn reduce_scatter_sum(
        &self,
        what: &str,
        data: &[f32],
        counts: &[usize],
    ) -> Result<Vec<f32>, String>;
    /// Every rank's part (rank `r`'s `counts[r]` long), in rank order.
    fn all_gather(&self, what: &str, mine: &[f32], counts: &[usize]) -> Result<Vec<f32>, String>;
}

/// The ranks a run is one of (`RunOptions::ranks`): none, the default, is
/// one process.
#[derive(Clone, Default)]
pub struct Ranks(pub Option<Rc<dyn Collective>>);

impl std::fmt::Debug for Ranks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(c) => write!(f, "Ranks(rank {} of {})", c.rank(), c.size()),
            None => f.write_str("Ranks(one process)"),
        }
    }
}

fn disagree(message: impl Into<String>, span: Span) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(codes::E_RUN_011, message).with_primary(span, ""))
}

/// A data-parallel run's rank: the collective, the split step compiled,
/// and which rows of each global batch are this rank's.
pub(super) struct World {
    pub collective: Rc<dyn Collective>,
    pub split: SplitStep,
    pub grad: sexpgpu_cpu::CpuProgram,
    pub update: sexpgpu_cpu::CpuProgram,
    rows: std::ops::Range<usize>,
    span: Span,
    /// ZeRO-1: the optimizer state sharded, when the update allows it.
    pub zero: Option<Sharded>,
    /// Why the state is replicated, when it is.
    replicated: Option<&'static str>,
}

/// A ZeRO-1 rank: who owns what, and this rank's own update program
/// (none when it owns no parameter).
pub(super) struct Sharded {
    pub shards: Shards,
    pub update: Option<(Graph, sexpgpu_cpu::CpuProgram)>,
}

/// The rows every batch column has (the global batch).
fn global_rows(step: &StepGraph) -> Option<usize> {
    step.batch
        .first()
        .and_then(|s| s.shape.dims().first().copied())
}

impl World {
    /// Splits the step for this rank's share of the batch, compiles both
    /// halves and checks that every rank traced the same graphs.
    pub fn new(
        interp: &mut Interp,
        run: &TracedRun,
        collective: Rc<dyn Collective>,
        seed: u64,
        total: u64,
        shard_state: bool,
    ) -> Result<World, Box<Diagnostic>> {
        let spec = &run.spec;
        let (rank, size) = (collective.rank(), collective.size());
        let rows = global_rows(&run.step).unwrap_or(0);
        if rows == 0 || !rows.is_multiple_of(size) {
            return Err(Box::new(
                Diagnostic::error(
                    codes::E_RUN_004,
                    format!("a batch of {rows} rows does not split evenly over {size} ranks"),
                )
                .with_primary(spec.data_span, "the global batch")
                .with_help(format!(
                    "make the batch size a multiple of {size}, or launch a number of ranks that divides {rows}"
                )),
            ));
        }
        let share = rows / size;
        let split = trace_split(interp, run, share).map_err(|flow| match flow {
            crate::eval::Flow::Error(d) => d,
            _ => disagree("the data-parallel step could not be traced", spec.span),
        })?;
        let grad = super::device::compile(&split.grad, spec.span)?;
        let update = super::device::compile(&split.update, spec.span)?;
        let (zero, replicated) = match shard_state {
            true => match sharded(interp, run, &split, rank, size)? {
                Some(z) => (Some(z), None),
                None => (
                    None,
                    Some("the optimizer's update mixes parameters or its state is not f32"),
                ),
            },
            false => (None, Some("--optimizer-state replicated")),
        };
        let world = World {
            collective,
            split,
            grad,
            update,
            rows: rank * share..(rank + 1) * share,
            span: spec.span,
            zero,
            replicated,
        };
        let identity = format!(
            "{} seed {seed} steps {total} share {share} zero {}",
            spec.name,
            world.zero.is_some()
        );
        let hash = graph_hash(&[&world.split.grad, &world.split.update], &identity);
        world.same_everywhere(hash, &format!("the step graphs of run `{}`", spec.name))?;
        Ok(world)
    }

    pub fn rank(&self) -> usize {
        self.collective.rank()
    }

    /// The run's line about its ranks: how many, each one's rows, and
    /// where the optimizer state lives.
    pub fn describe(&self) -> String {
        let size = self.collective.size();
        let rows = self.rows.len();
        let state = match (&self.zero, self.replicated) {
            (Some(_), _) => "optimizer state sharded (ZeRO-1)".to_string(),
            (None, Some(why)) => format!("optimizer state replicated ({why})"),
            (None, None) => "optimizer state replicated".to_string(),
        };
        format!(
            "data-parallel: {size} ranks, {rows} of {} rows each, {state}",
            rows * size
        )
    }

    /// Compares `hash` across the ranks; a rank whose hash differs from
    /// rank 0's stops every rank, named in the error.
    pub fn same_everywhere(&self, hash: u64, what: &str) -> Result<(), Box<Diagnostic>> {
        same_everywhere(self.collective.as_ref(), hash, what, self.span)
    }

    /// What rank 0 carries (fresh or resumed), on every rank.
    pub fn share_start(
        &self,
        start: Option<Checkpoint>,
        step: &StepGraph,
        seed: u64,
    ) -> Result<Checkpoint, Box<Diagnostic>> {
        let mut bytes = match &start {
            Some(c) if self.rank() == 0 => checkpoint::encode(c, step, seed).map_err(|why| {
                disagree(format!("cannot share the run's start: {why}"), self.span)
            })?,
            _ => Vec::new(),
        };
        self.collective
            .broadcast("the broadcast of the starting parameters", &mut bytes)
            .map_err(|why| disagree(why, self.span))?;
        match start {
            Some(c) if self.rank() == 0 => Ok(c),
            _ => checkpoint::decode(&bytes, step).map_err(|why| {
                disagree(
                    format!("the starting parameters from rank 0 do not fit: {why}"),
                    self.span,
                )
            }),
        }
    }

    /// This rank's rows of a global batch.
    pub fn slice(&self, batch: Vec<Tensor>) -> Vec<Tensor> {
        let picked: Vec<usize> = self.rows.clone().collect();
        batch.iter().map(|t| take_rows(t, &picked)).collect()
    }

    /// Sums the gradients and the reported values over the ranks in one
    /// flat buffer and divides by the world size (counters and
    /// diagnostics stay summed: a count over every rank's rows, a
    /// condition that held on any rank). Returns the reported values as
    /// scalars and the averaged gradients.
    pub fn average(
        &self,
        reported: &[Tensor],
        grads: Vec<Tensor>,
        step: u64,
    ) -> Result<(Vec<Tensor>, Vec<Tensor>), Box<Diagnostic>> {
        let mut flat = flatten(&grads);
        let at = flat.len();
        flat.extend(reported.iter().map(first_value));
        self.collective
            .all_reduce_sum(
                &format!("the gradient all-reduce of step {step}"),
                &mut flat,
            )
            .map_err(|why| disagree(why, self.span))?;
        let scale = 1.0 / self.collective.size() as f32;
        let shapes: Vec<_> = grads.iter().map(Tensor::shape).collect();
        Ok((
            self.scaled_reports(&flat[at..]),
            unflatten(&flat, &shapes, scale),
        ))
    }

    /// ZeRO-1's exchange of gradients: the reported values summed over
    /// every rank (a small all-reduce) and the gradients reduce-scattered,
    /// each rank receiving the averages of the parameters it owns.
    pub fn scatter(
        &self,
        zero: &Sharded,
        reported: &[Tensor],
        grads: &[Tensor],
        step: u64,
    ) -> Result<(Vec<Tensor>, Vec<Tensor>), Box<Diagnostic>> {
        let mut values: Vec<f32> = reported.iter().map(first_value).collect();
        self.collective
            .all_reduce_sum(
                &format!("the all-reduce of step {step}'s reported values"),
                &mut values,
            )
            .map_err(|why| disagree(why, self.span))?;
        let mine = self.collective.reduce_scatter_sum(
            &format!("the gradient reduce-scatter of step {step}"),
            &flatten(grads),
            &zero.shards.counts,
        );
        let mine = mine.map_err(|why| disagree(why, self.span))?;
        let owned = &grads[zero.shards.params[self.rank()].clone()];
        let shapes: Vec<_> = owned.iter().map(Tensor::shape).collect();
        let scale = 1.0 / self.collective.size() as f32;
        Ok((
            self.scaled_reports(&values),
            unflatten(&mine, &shapes, scale),
        ))
    }

    /// ZeRO-1's parameters after the update: every rank's new parameters,
    /// all-gathered, in the model's order (`like` gives their shapes).
    pub fn gather_params(
        &self,
        zero: &Sharded,
        mine: &[Tensor],
        like: &[&sexpgpu_graph::Shape],
        step: u64,
    ) -> Result<Vec<Tensor>, Box<Diagnostic>> {
        let all = self
            .collective
            .all_gather(
                &format!("the parameter all-gather of step {step}"),
                &flatten(mine),
                &zero.shards.counts,
            )
            .map_err(|why| disagree(why, self.span))?;
        Ok(unflatten(&all, like, 1.0))
    }

    /// ZeRO-1's whole optimizer state (for a checkpoint), in the run's
    /// order, from every rank's shard `mine`.
    pub fn gather_state(
        &self,
        zero: &Sharded,
        step_graph: &StepGraph,
        mine: &[Tensor],
        step: u64,
    ) -> Result<Vec<Tensor>, Box<Diagnostic>> {
        let numel = |j: &usize| step_graph.state[*j].shape.numel();
        let counts: Vec<usize> = zero
            .shards
            .state
            .iter()
            .map(|js| js.iter().map(numel).sum())
            .collect();
        let all = self
            .collective
            .all_gather(
                &format!("the optimizer state all-gather of step {step}"),
                &flatten(mine),
                &counts,
            )
            .map_err(|why| disagree(why, self.span))?;
        let order: Vec<usize> = zero.shards.state.iter().flatten().copied().collect();
        let shapes: Vec<_> = order.iter().map(|&j| &step_graph.state[j].shape).collect();
        let mut full: Vec<Option<Tensor>> = vec![None; step_graph.state.len()];
        for (j, t) in order.into_iter().zip(unflatten(&all, &shapes, 1.0)) {
            full[j] = Some(t);
        }
        full.into_iter()
            .map(|t| t.ok_or_else(|| disagree("a state tensor no rank owns", self.span)))
            .collect()
    }

    /// The reported values, summed over the ranks, as scalars: averaged,
    /// but for counters and diagnostics.
    fn scaled_reports(&self, sums: &[f32]) -> Vec<Tensor> {
        let scale = 1.0 / self.collective.size() as f32;
        let summed = self.summed_outputs();
        sums.iter()
            .enumerate()
            .map(|(o, &x)| {
                let x = if summed.contains(&o) { x } else { x * scale };
                Tensor::from_f64s(sexpgpu_graph::Shape::scalar(), &[f64::from(x)], DType::F32)
                    .expect("a scalar")
            })
            .collect()
    }

    /// The grad graph's reported outputs that are summed, not averaged.
    fn summed_outputs(&self) -> Vec<usize> {
        self.split
            .reports
            .iter()
            .filter(|r| matches!(r.kind, ReportKind::Counter | ReportKind::Diagnostic))
            .filter_map(|r| match r.source {
                Source::Output(o) => Some(o),
                Source::Number(_) => None,
            })
            .collect()
    }

    /// Rank 0's buffers on every rank (DDP's `broadcast_buffers`: batch
    /// norm's statistics of rank 0's rows), as the bytes of a checkpoint
    /// that holds only buffers.
    pub fn share_buffers(
        &self,
        buffers: Vec<Tensor>,
        step: u64,
    ) -> Result<Vec<Tensor>, Box<Diagnostic>> {
        if buffers.is_empty() {
            return Ok(buffers);
        }
        let mut bytes = if self.rank() == 0 {
            let named: Vec<(String, &Tensor)> = buffers
                .iter()
                .enumerate()
                .map(|(i, t)| (i.to_string(), t))
                .collect();
            crate::data::encode(&named, Default::default())
                .map_err(|why| disagree(format!("cannot share the buffers: {why}"), self.span))?
        } else {
            Vec::new()
        };
        self.collective
            .broadcast(&format!("the buffer broadcast of step {step}"), &mut bytes)
            .map_err(|why| disagree(why, self.span))?;
        if self.rank() == 0 {
            return Ok(buffers);
        }
        let (tensors, _) = crate::data::decode(&bytes)
            .map_err(|why| disagree(format!("rank 0's buffers: {why}"), self.span))?;
        (0..buffers.len())
            .map(|i| {
                let name = i.to_string();
                tensors
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, t)| t.clone())
                    .ok_or_else(|| disagree(format!("rank 0 sent no buffer {i}"), self.span))
            })
            .collect()
    }
}

/// ZeRO-1's plan for this rank, when the optimizer's update is separable
/// by parameter and its state is f32; `None` keeps the state replicated.
fn sharded(
    interp: &mut Interp,
    run: &TracedRun,
    split: &SplitStep,
    rank: usize,
    size: usize,
) -> Result<Option<Sharded>, Box<Diagnostic>> {
    let step = &run.step;
    if step.state.iter().any(|s| s.dtype != DType::F32) {
        return Ok(None);
    }
    let Some(owners) = zero::state_owners(&split.update, step.params.len(), step.state.len())
    else {
        return Ok(None);
    };
    let shards = zero::shard(step, &owners, size);
    let mine = shards.params[rank].clone();
    if mine.is_empty() {
        return Ok(Some(Sharded {
            shards,
            update: None,
        }));
    }
    let (graph, state) =
        trace_update_graph(interp, run, &zero::slots(step, &mine)).map_err(|flow| match flow {
            crate::eval::Flow::Error(d) => d,
            _ => disagree("the sharded update could not be traced", run.spec.span),
        })?;
    // The shard's state must be the run's state slots this rank owns, in order.
    let expected: Vec<&str> = shards.state[rank]
        .iter()
        .map(|&j| step.state[j].name.as_str())
        .collect();
    if state.iter().map(|s| s.name.as_str()).ne(expected) {
        return Ok(None);
    }
    let program = super::device::compile(&graph, run.spec.optimizer.span)?;
    Ok(Some(Sharded {
        shards,
        update: Some((graph, program)),
    }))
}

/// The elements of f32 tensors, one after another.
fn flatten(tensors: &[Tensor]) -> Vec<f32> {
    let mut flat = Vec::with_capacity(tensors.iter().map(Tensor::numel).sum());
    for t in tensors {
        match t.data() {
            TensorData::F32(v) => flat.extend_from_slice(v),
            other => flat.extend(other.to_f64s().into_iter().map(|x| x as f32)),
        }
    }
    flat
}

/// f32 tensors of `shapes` from consecutive elements of `flat`, each
/// times `scale`.
fn unflatten(flat: &[f32], shapes: &[&sexpgpu_graph::Shape], scale: f32) -> Vec<Tensor> {
    let mut at = 0;
    shapes
        .iter()
        .map(|&shape| {
            let n = shape.numel();
            let values = flat[at..at + n].iter().map(|x| x * scale).collect();
            at += n;
            Tensor::new(shape.clone(), TensorData::F32(values)).expect("elements of the shape")
        })
        .collect()
}

/// Compares `hash` across the ranks of `collective`.
pub fn same_everywhere(
    collective: &dyn Collective,
    hash: u64,
    what: &str,
    span: Span,
) -> Result<(), Box<Diagnostic>> {
    let all = collective
        .all_gather_u64(&format!("the comparison of {what}"), hash)
        .map_err(|why| disagree(why, span))?;
    let differ: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|&(_, &h)| h != all[0])
        .map(|(r, _)| r.to_string())
        .collect();
    if differ.is_empty() {
        return Ok(());
    }
    Err(Box::new(
        Diagnostic::error(
            codes::E_RUN_011,
            format!(
                "rank{} {} traced other {what} than rank 0",
                if differ.len() == 1 { "" } else { "s" },
                differ.join(", ")
            ),
        )
        .with_primary(span, "")
        .with_note(format!(
            "graph hashes by rank: {}",
            all.iter()
                .map(|h| format!("{h:016x}"))
                .collect::<Vec<_>>()
                .join(" ")
        ))
        .with_help("run the same file with the same options and the same `sexpgpu` on every rank"),
    ))
}

/// A reported value's first element, as the all-reduce carries it.
fn first_value(t: &Tensor) -> f32 {
    t.to_f64s().first().copied().unwrap_or(0.0) as f32
}

/// FNV-1a over a text, stable across builds and machines.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl std::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}

/// A hash of the tensors' dtypes, shapes and elements' bits.
pub fn tensors_hash(tensors: &[Tensor]) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for t in tensors {
        let _ = write!(h, "{} {};", t.shape(), t.dtype());
        match t.data() {
            TensorData::F32(v) => v.iter().for_each(|x| h.bytes(&x.to_bits().to_le_bytes())),
            other => other
                .to_f64s()
                .iter()
                .for_each(|x| h.bytes(&x.to_bits().to_le_bytes())),
        }
    }
    h.0
}

/// A hash of what the graphs compute (every node's operation, inputs,
/// shape and dtype, and the outputs; not where in the source they came
/// from) and of `extra`.
pub fn graph_hash(graphs: &[&Graph], extra: &str) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    let _ = write!(h, "{extra}");
    for g in graphs {
        let _ = write!(h, "|{}|", g.name());
        for n in g.nodes() {
            let _ = write!(h, "{:?} {:?} {} {};", n.op, n.inputs, n.shape, n.dtype);
        }
        let _ = write!(h, "{:?}", g.outputs());
    }
    h.0
}
