//! Executing a traced run: initial parameters from the model's init graph,
//! the step graph compiled once for the CPU backend and run for each step
//! with a per-step seed, metrics averaged over logging windows, evaluation
//! passes, checkpoints and resumption. Clocks, terminals and files are the
//! caller's, behind `RunIo`; mistakes found at run time (a NaN loss, a
//! `diagnostic` that holds) are diagnostics naming the step.

use super::checkpoint::{self, Checkpoint};
use super::device::{compile, Carried, Device};
use super::dist::{Ranks, World};
use super::step::{hyper_values, Reported, Source};
use super::TracedRun;
use crate::codes;
use crate::eval::{Flow, Interp, Site};
use crate::trace::ReportKind;
use crate::value::Value;
use diag::{Diagnostic, Span};
use sexpgpu_graph::random::fold_seed;
use sexpgpu_graph::{DType, Graph, Shape, Tensor};
use std::rc::Rc;

/// What a run needs from the world outside.
pub trait RunIo {
    /// Seconds since some fixed moment.
    fn now(&self) -> f64;
    /// A line of the run's log (stdout).
    fn log(&mut self, line: &str);
    /// The live progress line; a host without a terminal ignores it.
    fn progress(&mut self, line: &str);
    /// Where the run stands after each step, for a progress bar: the step,
    /// the run's last step, the line's values alone (`loss 0.5201
    /// accuracy 0.81`) and the whole line. By default the line goes to
    /// `progress`.
    fn step_progress(&mut self, step: u64, total: u64, values: &str, line: &str) {
        let _ = (step, total, values);
        self.progress(line);
    }
    /// The run's steps are over: what follows (its `:after` function's
    /// printing) is plain output, so a progress bar leaves the screen.
    fn steps_done(&mut self) {}
    /// One JSON object for `--metrics`, when that was asked for.
    fn metrics(&mut self, line: &str);
    /// Writes a checkpoint file so that an interrupted write leaves the
    /// previous one intact (temporary file, then rename): into the
    /// `--checkpoint` directory, else into the run's `:checkpoint` one.
    fn write_checkpoint(
        &mut self,
        run_dir: Option<&str>,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), String>;
    fn read_checkpoint(&mut self, name: &str) -> Result<Vec<u8>, String>;
}

/// Command-line choices that override the run's own options.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub steps: Option<u64>,
    pub seed: Option<u64>,
    /// Write checkpoints (`--checkpoint DIR`); the host knows the directory.
    pub checkpoint: bool,
    /// Start from the checkpoint in `--resume DIR`.
    pub resume: bool,
    /// Where the step and eval graphs run (`--device`).
    pub device: Device,
    /// The other processes of a data-parallel run (`mpirun`, `srun`;
    /// docs/sexpgpu/distributed.md); none is one process.
    pub ranks: Ranks,
    /// Keep the whole optimizer state on every rank instead of sharding
    /// it (ZeRO-1, the default where the update allows it).
    pub replicate_state: bool,
}

/// What ranks other than 0 of a data-parallel run show: nothing. Logs,
/// metrics, progress and checkpoints come from rank 0; reading (a
/// checkpoint to resume from) is rank 0's too, and it broadcasts.
struct Quiet<'a>(&'a mut dyn RunIo);

impl RunIo for Quiet<'_> {
    fn now(&self) -> f64 {
        self.0.now()
    }
    fn log(&mut self, _line: &str) {}
    fn progress(&mut self, _line: &str) {}
    fn step_progress(&mut self, _step: u64, _total: u64, _values: &str, _line: &str) {}
    fn metrics(&mut self, _line: &str) {}
    fn write_checkpoint(&mut self, _: Option<&str>, _: &str, _: &[u8]) -> Result<(), String> {
        Ok(())
    }
    fn read_checkpoint(&mut self, name: &str) -> Result<Vec<u8>, String> {
        self.0.read_checkpoint(name)
    }
}

fn failure(code: diag::Code, message: impl Into<String>, span: Span) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(code, message).with_primary(span, ""))
}

fn exec_failure(
    graph: &Graph,
    e: sexpgpu_graph::ExecError,
    span: Span,
    step: u64,
) -> Box<Diagnostic> {
    let mut d = Diagnostic::error(
        codes::E_RUN_001,
        format!(
            "graph `{}` failed at step {step}: {}",
            graph.name(),
            e.message
        ),
    )
    .with_primary(span, "");
    if let Some(at) = e.node.and_then(|n| graph.node(n).span) {
        d = d.with_secondary(at, "at this operation");
    }
    Box::new(d)
}

/// Sums of reported values over the current logging window.
struct Window {
    sums: Vec<f64>,
    steps: u64,
}

/// One execution of a run: what stays fixed, and the parameters, optimizer
/// state and logging sums carried from step to step.
struct Execution<'a> {
    run: &'a TracedRun,
    seed: u64,
    total: u64,
    program: sexpgpu_cpu::CpuProgram,
    eval_program: Option<sexpgpu_cpu::CpuProgram>,
    device: Device,
    /// The file name of the run's latest checkpoint.
    checkpoint_name: String,
    checkpointing: bool,
    /// Which of the step's outputs stay on the device: the parameters,
    /// optimizer state and buffers the next step takes back.
    keep: Vec<bool>,
    params: Vec<Carried>,
    state: Vec<Carried>,
    /// The model's buffers (`docs/sexpgpu/models.md#buffers`).
    buffers: Vec<Carried>,
    /// `io.now()` when the first step began.
    started: f64,
    /// This rank of a data-parallel run, when it is one.
    world: Option<World>,
    window: Window,
    /// Each counter's total since the run (re)started.
    counters: Vec<f64>,
}

/// Runs `run` to its last step.
pub fn execute_run(
    interp: &mut Interp,
    run: &TracedRun,
    options: &RunOptions,
    io: &mut dyn RunIo,
) -> Result<(), Box<Diagnostic>> {
    let quiet_rank = options.ranks.0.as_ref().is_some_and(|c| c.rank() != 0);
    let io: &mut dyn RunIo = if quiet_rank { &mut Quiet(io) } else { io };
    let (mut ex, start) = Execution::start(interp, run, options, io)?;
    for step in start + 1..=ex.total {
        ex.step(interp, io, step)?;
    }
    ex.same_parameters_everywhere()?;
    io.steps_done();
    ex.after(interp)
}

impl<'a> Execution<'a> {
    /// Compiles the graphs and decides where the run starts: from the
    /// `--resume` checkpoint, or from fresh parameters (checkpointed as
    /// `-init` when checkpoints are on). Logs the run's header line.
    fn start(
        interp: &mut Interp,
        run: &'a TracedRun,
        options: &RunOptions,
        io: &mut dyn RunIo,
    ) -> Result<(Execution<'a>, u64), Box<Diagnostic>> {
        let spec = &run.spec;
        let seed = options.seed.unwrap_or(spec.seed);
        let total = options.steps.unwrap_or(spec.steps);
        let world = match &options.ranks.0 {
            Some(c) => Some(World::new(
                interp,
                run,
                c.clone(),
                seed,
                total,
                !options.replicate_state,
            )?),
            None => None,
        };
        let program = compile(&run.step.graph, spec.span)?;
        let eval_program = match &run.eval {
            Some(e) => Some(compile(&e.graph, spec.span)?),
            None => None,
        };
        let checkpointing = options.checkpoint || spec.checkpoint_dir.is_some();
        let checkpoint_name = format!("{}.safetensors", spec.name);
        // Rank 0 starts a data-parallel run and shares what it carries.
        let leads = world.as_ref().is_none_or(|w| w.rank() == 0);
        let carried = match (leads, options.resume) {
            (false, _) => None,
            (true, true) => Some(resume(run, io, &checkpoint_name)?),
            (true, false) => Some(initialize(run, io, seed, checkpointing)?),
        };
        let mut carried = match &world {
            Some(w) => w.share_start(carried, &run.step, seed)?,
            None => carried.ok_or_else(|| {
                failure(
                    codes::E_RUN_001,
                    "a run of one process has no start",
                    spec.span,
                )
            })?,
        };
        // Under ZeRO-1 a rank keeps the state of the parameters it owns.
        if let Some(w) = &world {
            if let Some(zero) = &w.zero {
                let mine = &zero.shards.state[w.rank()];
                carried.state = mine.iter().map(|&j| carried.state[j].clone()).collect();
            }
        }
        let Checkpoint {
            params,
            state,
            buffers,
            step: start,
        } = carried;
        let reports = run.step.reports.len();
        let outputs = program.plan().outputs.len();
        let keep = (0..outputs)
            .map(|o| o >= run.step.first_param_output)
            .collect();
        let host = |ts: Vec<Tensor>| ts.into_iter().map(Carried::Host).collect();
        let ex = Execution {
            run,
            seed,
            total,
            program,
            eval_program,
            device: options.device.clone(),
            checkpoint_name,
            checkpointing,
            keep,
            params: host(params),
            state: host(state),
            buffers: host(buffers),
            started: io.now(),
            world,
            window: Window {
                sums: vec![0.0; reports + 1],
                steps: 0,
            },
            counters: vec![0.0; reports],
        };
        ex.announce(io, start);
        if let Some(world) = &ex.world {
            io.log(&world.describe());
        }
        Ok((ex, start))
    }

    /// The header line: parameters, steps, batches an epoch, seed, and where a resumed run picks up.
    fn announce(&self, io: &mut dyn RunIo, start: u64) {
        let spec = &self.run.spec;
        let per_epoch = spec.data.per_epoch();
        io.log(&format!(
            "run {}: {} parameters, {} steps, {} batch{} an epoch, seed {}{}",
            spec.name,
            self.params.iter().map(Carried::numel).sum::<usize>(),
            self.total,
            per_epoch,
            if per_epoch == 1 { "" } else { "es" },
            self.seed,
            if start > 0 {
                format!(", resumed at step {start}")
            } else {
                String::new()
            }
        ));
        if start > 0 && start >= self.total {
            io.log(&format!(
                "run {}: the checkpoint is at step {start} of {}: nothing left to train (ask for more steps with `--steps`)",
                spec.name, self.total
            ));
        }
    }

    /// One optimizer step, then whatever is due after it: the log line and
    /// metrics, an evaluation pass, a checkpoint.
    fn step(
        &mut self,
        interp: &mut Interp,
        io: &mut dyn RunIo,
        step: u64,
    ) -> Result<(), Box<Diagnostic>> {
        let run = self.run;
        let spec = &run.spec;
        let failed = |e| exec_failure(&run.step.graph, e, spec.span, step);
        let reported = match self.world.take() {
            Some(world) => {
                let reported = self.parallel_step(&world, interp, step);
                self.world = Some(world);
                reported?
            }
            None => self.single_step(interp, step)?,
        };
        let loss = reported[0].to_f64s()[0];
        self.check_loss(loss, step)?;
        self.account(&reported, step)?;
        self.window.sums[0] += loss;
        self.window.steps += 1;
        self.report(io, step);
        let checkpoint_due = self.checkpointing
            && (spec
                .checkpoint_every
                .is_some_and(|n| step.is_multiple_of(n))
                || step == self.total);
        // Every rank of a ZeRO-1 run sends its shard of the state to the checkpoint.
        let gathered = match self
            .world
            .as_ref()
            .and_then(|w| Some((w, w.zero.as_ref()?)))
        {
            Some((w, zero)) if checkpoint_due => {
                let mine = self.host(&self.state).map_err(failed)?;
                Some(w.gather_state(zero, &run.step, &mine, step)?)
            }
            _ => None,
        };
        // Rank 0 alone evaluates and checkpoints a data-parallel run.
        if self.world.as_ref().is_some_and(|w| w.rank() != 0) {
            return Ok(());
        }
        if let (Some(eval), Some(_)) = (&spec.eval, &self.eval_program) {
            if step.is_multiple_of(eval.every) || step == self.total {
                self.evaluate(io, step)?;
            }
        }
        if checkpoint_due {
            let state = match gathered {
                Some(state) => state,
                None => self.host(&self.state).map_err(failed)?,
            };
            let c = Checkpoint {
                params: self.host(&self.params).map_err(failed)?,
                state,
                buffers: self.host(&self.buffers).map_err(failed)?,
                step,
            };
            let name = &self.checkpoint_name;
            let dir = spec.checkpoint_dir.as_deref();
            write(io, dir, name, &run.step, &c, self.seed, spec.span)?;
        }
        Ok(())
    }

    /// The step graph on the whole batch: the reported values; the new
    /// parameters, state and buffers replace the carried ones.
    fn single_step(
        &mut self,
        interp: &mut Interp,
        step: u64,
    ) -> Result<Vec<Tensor>, Box<Diagnostic>> {
        let run = self.run;
        let (param_count, state_count) = (self.params.len(), self.state.len());
        let args = self.step_args(interp, step)?;
        let failed = |e| exec_failure(&run.step.graph, e, run.spec.span, step);
        let outputs = self
            .device
            .run(&self.program, args, &self.keep, fold_seed(self.seed, step))
            .map_err(failed)?;
        let mut outputs = outputs.into_iter();
        let reported = outputs
            .by_ref()
            .take(run.step.first_param_output)
            .map(|c| self.device.take_host(c))
            .collect::<Result<Vec<Tensor>, _>>()
            .map_err(failed)?;
        self.params = outputs.by_ref().take(param_count).collect();
        self.state = outputs.by_ref().take(state_count).collect();
        self.buffers = outputs.collect();
        Ok(reported)
    }

    /// One rank's step of a data-parallel run: the grad graph on this
    /// rank's rows, the gradients and reports averaged over the ranks,
    /// rank 0's buffers shared, then the update graph, the same on every
    /// rank (docs/sexpgpu/distributed.md).
    fn parallel_step(
        &mut self,
        world: &World,
        interp: &mut Interp,
        step: u64,
    ) -> Result<Vec<Tensor>, Box<Diagnostic>> {
        let run = self.run;
        let spec = &run.spec;
        let hyper = self.hyper_args(interp, step)?;
        let param_count = self.params.len();
        let grad_failed = |e| exec_failure(&world.split.grad, e, spec.span, step);
        let mut args: Vec<Carried> = self.params.clone();
        let batch = world.slice(spec.data.batch(self.seed, step - 1));
        args.extend(batch.into_iter().map(Carried::Host));
        args.append(&mut self.buffers);
        // Each rank draws its own random numbers (dropout) for its rows.
        let seed = fold_seed(fold_seed(self.seed, step), world.rank() as u64);
        let outputs = world.grad.plan().outputs.len();
        let outputs = self
            .device
            .run(&world.grad, args, &vec![false; outputs], seed)
            .map_err(grad_failed)?
            .into_iter()
            .map(|c| self.device.take_host(c))
            .collect::<Result<Vec<Tensor>, _>>()
            .map_err(grad_failed)?;
        let mut outputs = outputs.into_iter();
        let reported: Vec<Tensor> = outputs
            .by_ref()
            .take(world.split.first_grad_output)
            .collect();
        let grads: Vec<Tensor> = outputs.by_ref().take(param_count).collect();
        let reported = match &world.zero {
            Some(zero) => {
                let (reported, mine) = world.scatter(zero, &reported, &grads, step)?;
                self.sharded_update(world, zero, mine, hyper, step)?;
                reported
            }
            None => {
                let (reported, grads) = world.average(&reported, grads, step)?;
                let mut args = std::mem::take(&mut self.params);
                args.extend(grads.into_iter().map(Carried::Host));
                args.append(&mut self.state);
                args.extend(hyper);
                let keep = vec![true; world.update.plan().outputs.len()];
                let mut outputs = self
                    .device
                    .run(&world.update, args, &keep, fold_seed(self.seed, step))
                    .map_err(|e| exec_failure(&world.split.update, e, spec.optimizer.span, step))?;
                self.state = outputs.split_off(param_count);
                self.params = outputs;
                reported
            }
        };
        self.buffers = world
            .share_buffers(outputs.collect(), step)?
            .into_iter()
            .map(Carried::Host)
            .collect();
        Ok(reported)
    }

    /// ZeRO-1's update: this rank's parameters and state from their
    /// averaged gradients `mine`, then every rank's new parameters
    /// all-gathered.
    fn sharded_update(
        &mut self,
        world: &World,
        zero: &super::dist::Sharded,
        mine: Vec<Tensor>,
        hyper: Vec<Carried>,
        step: u64,
    ) -> Result<(), Box<Diagnostic>> {
        let range = zero.shards.params[world.rank()].clone();
        let owned = range.len();
        let new_mine = match &zero.update {
            Some((graph, program)) => {
                let failed = |e| exec_failure(graph, e, self.run.spec.optimizer.span, step);
                let mut args: Vec<Carried> = self.params[range].to_vec();
                args.extend(mine.into_iter().map(Carried::Host));
                args.append(&mut self.state);
                args.extend(hyper);
                // The new state stays where the device keeps it; the new
                // parameters come to the host for the all-gather.
                let keep: Vec<bool> = (0..program.plan().outputs.len())
                    .map(|o| o >= owned)
                    .collect();
                let mut outputs = self
                    .device
                    .run(program, args, &keep, fold_seed(self.seed, step))
                    .map_err(failed)?;
                self.state = outputs.split_off(owned);
                outputs
                    .into_iter()
                    .map(|c| self.device.take_host(c))
                    .collect::<Result<Vec<Tensor>, _>>()
                    .map_err(failed)?
            }
            None => Vec::new(),
        };
        let shapes: Vec<&Shape> = self.run.step.params.iter().map(|s| &s.shape).collect();
        let all = world.gather_params(zero, &new_mine, &shapes, step)?;
        self.params = all.into_iter().map(Carried::Host).collect();
        Ok(())
    }

    /// After the last step every rank must hold the same parameters; a
    /// rank that drifted (a non-deterministic reduction) is named.
    fn same_parameters_everywhere(&self) -> Result<(), Box<Diagnostic>> {
        let Some(world) = &self.world else {
            return Ok(());
        };
        let spec = &self.run.spec;
        let params = self
            .host(&self.params)
            .map_err(|e| exec_failure(&self.run.step.graph, e, spec.span, self.total))?;
        world.same_everywhere(
            super::dist::tensors_hash(&params),
            &format!("the trained parameters of run `{}`", spec.name),
        )
    }

    /// The step graph's inputs, in its order: parameters, the step's batch,
    /// optimizer state, buffers, then the hyperparameters the run's host code gives
    /// for this step (0 for one it leaves out). The parameters, state and
    /// buffers are moved out, not copied: the step's outputs replace them.
    fn step_args(
        &mut self,
        interp: &mut Interp,
        step: u64,
    ) -> Result<Vec<Carried>, Box<Diagnostic>> {
        let spec = &self.run.spec;
        let hyper = self.hyper_args(interp, step)?;
        let mut args: Vec<Carried> = Vec::with_capacity(program_arity(&self.run.step));
        args.append(&mut self.params);
        args.extend(
            spec.data
                .batch(self.seed, step - 1)
                .into_iter()
                .map(Carried::Host),
        );
        args.append(&mut self.state);
        args.append(&mut self.buffers);
        args.extend(hyper);
        Ok(args)
    }

    /// The hyperparameters the run's host code gives for `step`, as the
    /// step graph's last inputs (0 for one it leaves out).
    fn hyper_args(&self, interp: &mut Interp, step: u64) -> Result<Vec<Carried>, Box<Diagnostic>> {
        let spec = &self.run.spec;
        let hyper =
            hyper_values(interp, spec, step).map_err(|flow| flow_diagnostic(flow, spec.span))?;
        Ok(self
            .run
            .step
            .hyper
            .iter()
            .map(|name| {
                let value = hyper
                    .iter()
                    .find(|(k, _)| k == name)
                    .map_or(0.0, |(_, v)| *v);
                Carried::Host(Tensor::full(
                    Shape::scalar(),
                    sexpgpu_graph::Scalar::Float(value),
                    DType::F32,
                ))
            })
            .collect())
    }

    /// A loss that is not finite stops the run (`E-RUN-005`).
    fn check_loss(&self, loss: f64, step: u64) -> Result<(), Box<Diagnostic>> {
        if loss.is_finite() {
            return Ok(());
        }
        let spec = &self.run.spec;
        Err(Box::new(
            Diagnostic::error(
                codes::E_RUN_005,
                format!("the loss is {loss} at step {step}"),
            )
            .with_primary(spec.loss_span, "this loss")
            .with_note(format!("run `{}`, seed {}", spec.name, self.seed))
            .with_help("lower the learning rate, clip gradients (`:clip-norm`), or check the data"),
        ))
    }

    /// Adds each reported value to the window (and counters to their
    /// totals); a `diagnostic` that holds stops the run (`E-RUN-006`).
    fn account(&mut self, outputs: &[Tensor], step: u64) -> Result<(), Box<Diagnostic>> {
        let spec = &self.run.spec;
        for (i, r) in self.run.step.reports.iter().enumerate() {
            let value = match r.source {
                Source::Output(o) => outputs[o].to_f64s().first().copied().unwrap_or(0.0),
                Source::Number(x) => x,
            };
            match r.kind {
                ReportKind::Diagnostic if value > 0.5 => {
                    return Err(Box::new(
                        Diagnostic::error(codes::E_RUN_006, r.name.clone())
                            .with_primary(r.span, format!("this condition held at step {step}"))
                            .with_note(format!(
                                "run `{}`, step {step} of {}, seed {}",
                                spec.name, self.total, self.seed
                            )),
                    ))
                }
                ReportKind::Counter => self.counters[i] += value,
                _ => {}
            }
            self.window.sums[i + 1] += value;
        }
        Ok(())
    }

    /// The progress line after every step; at the end of a logging window
    /// also the log line and the `--metrics` object, and a fresh window.
    fn report(&mut self, io: &mut dyn RunIo, step: u64) {
        let reports = &self.run.step.reports;
        let elapsed = io.now() - self.started;
        let values = progress_values(&self.window, reports, &self.counters, elapsed);
        let line = format!("step {step}/{}  {values}  {elapsed:.1}s", self.total);
        io.step_progress(step, self.total, &values, &line);
        if step.is_multiple_of(self.run.spec.log_every) || step == self.total {
            io.log(&line);
            io.metrics(&metrics_json(step, elapsed, &self.window, reports));
            self.window.sums.iter_mut().for_each(|s| *s = 0.0);
            self.window.steps = 0;
        }
    }

    /// One pass over the evaluation data with the current parameters: each
    /// metric's mean over the batches, logged and written as metrics.
    fn evaluate(&self, io: &mut dyn RunIo, step: u64) -> Result<(), Box<Diagnostic>> {
        let (Some(eval), Some(graph), Some(program)) =
            (&self.run.spec.eval, &self.run.eval, &self.eval_program)
        else {
            return Ok(());
        };
        let names = &graph.metrics;
        let mut sums = vec![0.0; names.len()];
        let batches = eval.data.per_epoch();
        let failed = |e| exec_failure(&graph.graph, e, eval.span, step);
        for b in 0..batches {
            // The parameters and buffers are lent: on a device they stay
            // where they are, shared with the run.
            let mut args: Vec<Carried> = self.params.clone();
            args.extend(self.buffers.iter().cloned());
            args.extend(eval.data.batch(self.seed, b).into_iter().map(Carried::Host));
            let out = self
                .device
                .run(program, args, &[], fold_seed(self.seed, step))
                .map_err(failed)?;
            for (s, c) in sums.iter_mut().zip(out) {
                let t = self.device.take_host(c).map_err(failed)?;
                *s += t.to_f64s().first().copied().unwrap_or(0.0);
            }
        }
        let means: Vec<(String, f64)> = names
            .iter()
            .zip(&sums)
            .map(|(n, s)| (n.clone(), s / batches as f64))
            .collect();
        let text: Vec<String> = means
            .iter()
            .map(|(n, v)| format!("{n} {}", number(*v)))
            .collect();
        io.log(&format!("eval  step {step}  {}", text.join("  ")));
        let mut object = serde_json::Map::new();
        object.insert("step".into(), step.into());
        object.insert("wall".into(), round3(io.now() - self.started).into());
        object.insert("eval".into(), true.into());
        for (n, v) in means {
            object.insert(n, serde_json::Value::from(v));
        }
        io.metrics(&serde_json::Value::Object(object).to_string());
        Ok(())
    }

    /// The carried tensors' elements on the host (from the device, when
    /// they live there).
    fn host(&self, carried: &[Carried]) -> Result<Vec<Tensor>, sexpgpu_graph::ExecError> {
        carried.iter().map(|c| self.device.host(c)).collect()
    }

    /// The run's `:after` function, called with the final parameters and
    /// buffers as the model's map.
    fn after(&self, interp: &mut Interp) -> Result<(), Box<Diagnostic>> {
        let spec = &self.run.spec;
        let Some(after) = &spec.after else {
            return Ok(());
        };
        let failed = |e| exec_failure(&self.run.step.graph, e, spec.span, self.total);
        let values = |carried: &[Carried]| -> Result<Vec<Value>, Box<Diagnostic>> {
            let tensors = self.host(carried).map_err(failed)?;
            Ok(tensors
                .into_iter()
                .map(|t| Value::HostTensor(Rc::new(t)))
                .collect())
        };
        let map = self
            .run
            .step
            .model_map(values(&self.params)?, values(&self.buffers)?);
        interp
            .apply(after, vec![map], &Site::bare(spec.span))
            .map_err(|flow| flow_diagnostic(flow, spec.span))?;
        Ok(())
    }
}

/// Parameters, optimizer state, buffers and step from the `--resume` checkpoint.
fn resume(run: &TracedRun, io: &mut dyn RunIo, name: &str) -> Result<Checkpoint, Box<Diagnostic>> {
    let spec = &run.spec;
    let bytes = io.read_checkpoint(name).map_err(|why| {
        failure(
            codes::E_IO_001,
            format!("cannot resume run `{}`: {why}", spec.name),
            spec.span,
        )
    })?;
    let c = checkpoint::decode(&bytes, &run.step).map_err(|why| {
        failure(
            codes::E_RUN_007,
            format!(
                "the checkpoint of run `{}` does not fit it: {why}",
                spec.name
            ),
            spec.span,
        )
    })?;
    Ok(c)
}

/// Fresh parameters and buffers from the model's init graph (bf16
/// parameters widened to f32 master weights) and the optimizer's initial
/// state; written as the `-init` checkpoint when checkpoints are on.
fn initialize(
    run: &TracedRun,
    io: &mut dyn RunIo,
    seed: u64,
    checkpointing: bool,
) -> Result<Checkpoint, Box<Diagnostic>> {
    let spec = &run.spec;
    // Compiled, so a large model's initialiser runs on every thread in
    // f32 (its random fills are the reference executor's bit for bit).
    let entries = compile(&spec.model.graph, spec.model.span)?
        .run(&[], seed)
        .map_err(|e| exec_failure(&spec.model.graph, e, spec.model.span, 0))?;
    let (mut params, mut buffers) = (Vec::new(), Vec::new());
    for (t, &is_buffer) in entries.iter().zip(&run.step.buffer_at) {
        if is_buffer {
            buffers.push(t.clone());
        } else {
            // bf16 parameters keep f32 master weights (exact widening).
            params
                .push(sexpgpu_graph::convert_for_input(t, DType::F32).unwrap_or_else(|| t.clone()));
        }
    }
    let state = compile(&run.opt_init, spec.optimizer.span)?
        .run(&params, seed)
        .map_err(|e| exec_failure(&run.opt_init, e, spec.optimizer.span, 0))?;
    let c = Checkpoint {
        params,
        state,
        buffers,
        step: 0,
    };
    if checkpointing {
        let name = format!("{}-init.safetensors", spec.name);
        let dir = spec.checkpoint_dir.as_deref();
        write(io, dir, &name, &run.step, &c, seed, spec.span)?;
    }
    Ok(c)
}

fn program_arity(step: &super::StepGraph) -> usize {
    step.params.len() + step.batch.len() + step.state.len() + step.buffers.len() + step.hyper.len()
}

fn write(
    io: &mut dyn RunIo,
    run_dir: Option<&str>,
    name: &str,
    step_graph: &super::StepGraph,
    c: &Checkpoint,
    seed: u64,
    span: Span,
) -> Result<(), Box<Diagnostic>> {
    let bytes = checkpoint::encode(c, step_graph, seed).map_err(|why| {
        failure(
            codes::E_IO_003,
            format!("cannot encode checkpoint {name}: {why}"),
            span,
        )
    })?;
    io.write_checkpoint(run_dir, name, &bytes).map_err(|why| {
        failure(
            codes::E_IO_003,
            format!("cannot write checkpoint {name}: {why}"),
            span,
        )
    })
}

fn flow_diagnostic(flow: Flow, span: Span) -> Box<Diagnostic> {
    match flow {
        Flow::Error(d) => d,
        _ => failure(codes::E_RUN_002, "the run's host code stopped early", span),
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Numbers on the console: 5 significant digits.
fn number(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e7 || x.abs() < 1e-3) {
        format!("{x:.4e}")
    } else {
        let digits = if x == 0.0 {
            0
        } else {
            x.abs().log10().floor() as i64
        };
        let decimals = (4 - digits).clamp(0, 7) as usize;
        format!("{x:.decimals$}")
    }
}

/// The values of a progress line: the loss, each metric and each counter's
/// rate (`loss 0.5201  accuracy 0.81  tokens 1200/s`).
fn progress_values(
    window: &Window,
    reports: &[Reported],
    counters: &[f64],
    elapsed: f64,
) -> String {
    let n = window.steps.max(1) as f64;
    let mut parts = vec![format!("loss {}", number(window.sums[0] / n))];
    for (i, r) in reports.iter().enumerate() {
        match r.kind {
            ReportKind::Metric | ReportKind::Tap if r.name != "loss" => {
                parts.push(format!("{} {}", r.name, number(window.sums[i + 1] / n)))
            }
            ReportKind::Counter => parts.push(format!(
                "{} {}/s",
                r.name,
                number(counters[i] / elapsed.max(1e-9))
            )),
            _ => {}
        }
    }
    parts.join("  ")
}

/// One `--metrics` line: step, wall time, each metric's window mean and
/// each counter's window total.
fn metrics_json(step: u64, elapsed: f64, window: &Window, reports: &[Reported]) -> String {
    let n = window.steps.max(1) as f64;
    let mut object = serde_json::Map::new();
    object.insert("step".into(), step.into());
    object.insert("wall".into(), round3(elapsed).into());
    object.insert("loss".into(), serde_json::Value::from(window.sums[0] / n));
    for (i, r) in reports.iter().enumerate() {
        let value = match r.kind {
            ReportKind::Metric | ReportKind::Tap => window.sums[i + 1] / n,
            ReportKind::Counter => window.sums[i + 1],
            ReportKind::Diagnostic => continue,
        };
        if r.name != "loss" {
            object.insert(r.name.clone(), serde_json::Value::from(value));
        }
    }
    serde_json::Value::Object(object).to_string()
}
