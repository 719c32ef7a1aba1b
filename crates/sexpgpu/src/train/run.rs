//! Executing a traced run: initial parameters from the model's init graph,
//! the step graph compiled once for the CPU backend and run for each step
//! with a per-step seed, metrics averaged over logging windows, evaluation
//! passes, checkpoints and resumption. Clocks, terminals and files are the
//! caller's, behind `RunIo`; mistakes found at run time (a NaN loss, a
//! `diagnostic` that holds) are diagnostics naming the step.

use super::checkpoint::{self, Checkpoint};
use super::step::{hyper_values, Reported, Source};
use super::TracedRun;
use crate::codes;
use crate::eval::Interp;
use crate::trace::ReportKind;
use crate::value::Value;
use diag::{Diagnostic, Span};
use sexpgpu_graph::random::fold_seed;
use sexpgpu_graph::{execute, DType, Graph, Shape, Tensor};
use std::rc::Rc;

/// What a run needs from the world outside.
pub trait RunIo {
    /// Seconds since some fixed moment.
    fn now(&self) -> f64;
    /// A line of the run's log (stdout).
    fn log(&mut self, line: &str);
    /// The live progress line; a host without a terminal ignores it.
    fn progress(&mut self, line: &str);
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
}

fn failure(code: diag::Code, message: impl Into<String>, span: Span) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(code, message).with_primary(span, ""))
}

fn compile(graph: &Graph, span: Span) -> Result<sexpgpu_cpu::Program, Box<Diagnostic>> {
    sexpgpu_cpu::compile(graph).map_err(|e| {
        failure(
            codes::E_RUN_001,
            format!("graph `{}` could not be compiled: {e}", graph.name()),
            span,
        )
    })
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

/// Runs `run` to its last step.
pub fn execute_run(
    interp: &mut Interp,
    run: &TracedRun,
    options: &RunOptions,
    io: &mut dyn RunIo,
) -> Result<(), Box<Diagnostic>> {
    let spec = &run.spec;
    let step_graph = &run.step;
    let seed = options.seed.unwrap_or(spec.seed);
    let total = options.steps.unwrap_or(spec.steps);
    let program = compile(&step_graph.graph, spec.span)?;
    let eval_program = match &run.eval {
        Some(e) => Some(compile(&e.graph, spec.span)?),
        None => None,
    };
    let checkpoint_name = format!("{}.safetensors", spec.name);
    let checkpointing = options.checkpoint || spec.checkpoint_dir.is_some();
    let run_dir = spec.checkpoint_dir.as_deref();
    let (mut params, mut state, start) = if options.resume {
        let bytes = io.read_checkpoint(&checkpoint_name).map_err(|why| {
            failure(
                codes::E_IO_001,
                format!("cannot resume run `{}`: {why}", spec.name),
                spec.span,
            )
        })?;
        let c = checkpoint::decode(&bytes, step_graph).map_err(|why| {
            failure(
                codes::E_RUN_007,
                format!(
                    "the checkpoint of run `{}` does not fit it: {why}",
                    spec.name
                ),
                spec.span,
            )
        })?;
        (c.params, c.state, c.step)
    } else {
        let params: Vec<Tensor> = execute(&spec.model.graph, &[], seed)
            .map_err(|e| exec_failure(&spec.model.graph, e, spec.model.span, 0))?
            .iter()
            // bf16 parameters keep f32 master weights (exact widening).
            .map(|t| sexpgpu_graph::convert_for_input(t, DType::F32).unwrap_or_else(|| t.clone()))
            .collect();
        let state = execute(&run.opt_init, &params, seed)
            .map_err(|e| exec_failure(&run.opt_init, e, spec.optimizer.span, 0))?;
        if checkpointing {
            let name = format!("{}-init.safetensors", spec.name);
            let c = (&params[..], &state[..], 0);
            write(io, run_dir, &name, step_graph, c, seed, spec.span)?;
        }
        (params, state, 0)
    };
    let started = io.now();
    let reports = &step_graph.reports;
    let mut window = Window {
        sums: vec![0.0; reports.len() + 1],
        steps: 0,
    };
    let mut counters = vec![0.0; reports.len()];
    let n_params = params.len();
    let per_epoch = spec.data.per_epoch();
    io.log(&format!(
        "run {}: {} parameters, {} steps, {} batch{} an epoch, seed {seed}{}",
        spec.name,
        params.iter().map(Tensor::numel).sum::<usize>(),
        total,
        per_epoch,
        if per_epoch == 1 { "" } else { "es" },
        if start > 0 {
            format!(", resumed at step {start}")
        } else {
            String::new()
        }
    ));
    for step in start + 1..=total {
        let mut args: Vec<Tensor> = Vec::with_capacity(program_arity(step_graph));
        args.extend(params.iter().cloned());
        args.extend(spec.data.batch(seed, step - 1));
        args.extend(state.iter().cloned());
        let hyper =
            hyper_values(interp, spec, step).map_err(|flow| flow_diagnostic(flow, spec.span))?;
        for name in &step_graph.hyper {
            let value = hyper
                .iter()
                .find(|(k, _)| k == name)
                .map_or(0.0, |(_, v)| *v);
            args.push(Tensor::full(
                Shape::scalar(),
                sexpgpu_graph::Scalar::Float(value),
                DType::F32,
            ));
        }
        let outputs = program
            .run(&args, fold_seed(seed, step))
            .map_err(|e| exec_failure(&step_graph.graph, e, spec.span, step))?;
        let loss = outputs[0].to_f64s()[0];
        if !loss.is_finite() {
            return Err(Box::new(
                Diagnostic::error(
                    codes::E_RUN_005,
                    format!("the loss is {loss} at step {step}"),
                )
                .with_primary(spec.loss_span, "this loss")
                .with_note(format!("run `{}`, seed {seed}", spec.name))
                .with_help(
                    "lower the learning rate, clip gradients (`:clip-norm`), or check the data",
                ),
            ));
        }
        for (i, r) in reports.iter().enumerate() {
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
                                "run `{}`, step {step} of {total}, seed {seed}",
                                spec.name
                            )),
                    ))
                }
                ReportKind::Counter => counters[i] += value,
                _ => {}
            }
            window.sums[i + 1] += value;
        }
        window.sums[0] += loss;
        window.steps += 1;
        let first = step_graph.first_param_output;
        let mut rest = outputs.into_iter().skip(first);
        params = rest.by_ref().take(n_params).collect();
        state = rest.collect();
        let elapsed = io.now() - started;
        let line = progress_line(step, total, &window, reports, &counters, elapsed);
        io.progress(&line);
        if step % spec.log_every == 0 || step == total {
            io.log(&line);
            io.metrics(&metrics_json(step, elapsed, &window, reports));
            window.sums.iter_mut().for_each(|s| *s = 0.0);
            window.steps = 0;
        }
        if let (Some(eval), Some(eval_program)) = (&spec.eval, &eval_program) {
            if step % eval.every == 0 || step == total {
                let graph = run.eval.as_ref().expect("traced with the spec");
                let names = &graph.metrics;
                let mut sums = vec![0.0; names.len()];
                let batches = eval.data.per_epoch();
                for b in 0..batches {
                    let mut args: Vec<Tensor> = params.clone();
                    args.extend(eval.data.batch(seed, b));
                    let out = eval_program
                        .run(&args, fold_seed(seed, step))
                        .map_err(|e| exec_failure(&graph.graph, e, eval.span, step))?;
                    for (s, t) in sums.iter_mut().zip(&out) {
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
                object.insert("wall".into(), round3(io.now() - started).into());
                object.insert("eval".into(), true.into());
                for (n, v) in means {
                    object.insert(n, serde_json::Value::from(v));
                }
                io.metrics(&serde_json::Value::Object(object).to_string());
            }
        }
        let checkpoint_due = spec.checkpoint_every.is_some_and(|n| step % n == 0) || step == total;
        if checkpointing && checkpoint_due {
            let c = (&params[..], &state[..], step);
            write(
                io,
                run_dir,
                &checkpoint_name,
                step_graph,
                c,
                seed,
                spec.span,
            )?;
        }
    }
    if let Some(after) = &spec.after {
        let map: Vec<(Value, Value)> = step_graph
            .params
            .iter()
            .zip(&params)
            .map(|(slot, t)| (slot.key.clone(), Value::HostTensor(Rc::new(t.clone()))))
            .collect();
        interp
            .apply(
                after,
                vec![Value::Map(Rc::new(map))],
                &crate::eval::Site::bare(spec.span),
            )
            .map_err(|flow| flow_diagnostic(flow, spec.span))?;
    }
    Ok(())
}

fn program_arity(step: &super::StepGraph) -> usize {
    step.params.len() + step.batch.len() + step.state.len() + step.hyper.len()
}

fn write(
    io: &mut dyn RunIo,
    run_dir: Option<&str>,
    name: &str,
    step_graph: &super::StepGraph,
    (params, state, step): (&[Tensor], &[Tensor], u64),
    seed: u64,
    span: Span,
) -> Result<(), Box<Diagnostic>> {
    let c = Checkpoint {
        params: params.to_vec(),
        state: state.to_vec(),
        step,
    };
    let bytes = checkpoint::encode(&c, step_graph, seed).map_err(|why| {
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

fn flow_diagnostic(flow: crate::eval::Flow, span: Span) -> Box<Diagnostic> {
    match flow {
        crate::eval::Flow::Error(d) => d,
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

fn progress_line(
    step: u64,
    total: u64,
    window: &Window,
    reports: &[Reported],
    counters: &[f64],
    elapsed: f64,
) -> String {
    let n = window.steps.max(1) as f64;
    let mut parts = vec![
        format!("step {step}/{total}"),
        format!("loss {}", number(window.sums[0] / n)),
    ];
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
    parts.push(format!("{elapsed:.1}s"));
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
