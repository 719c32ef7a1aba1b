//! The `sexpgpu` command: `run`, `ir`, `check`, `fmt`, `lsp`, `explain`, `plot`, `repl`. The only
//! code that touches files, stdin/stdout/stderr and exit codes: 0 when all
//! went well, 1 when diagnostics were reported, 2 for usage and I/O errors.

mod cuda;
mod dist;
mod lsp;
mod plot;
mod progress;
mod runner;

use clap::{Parser, Subcommand, ValueEnum};
use command::Format;
use diag::Diagnostic;
use sexpgpu::{codes, Host, Mode, Session};
use sexpgpu_compile::cost::{self, Gpu};
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Evaluation may nest deeply (see `eval::MAX_DEPTH`); the command runs it
/// on a thread with a stack large enough for that limit in debug builds.
const STACK_BYTES: usize = 512 * 1024 * 1024;

#[derive(Parser)]
#[command(
    name = "sexpgpu",
    version,
    about = "SexpGPU: a Lisp whose tensor code is traced into graphs with static shapes"
)]
struct Cli {
    /// How diagnostics are printed on stderr.
    #[arg(long, value_enum, global = true, default_value_t = Format::Human)]
    format: Format,
    /// Threads the CPU backend runs each kernel on (default: the
    /// `SEXPGPU_THREADS` environment variable, else every core).
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// How many forms host code may evaluate before it is stopped
    /// (E-EVAL-014; default 100,000,000).
    #[arg(long, global = true, value_name = "N")]
    max_steps: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OptimizerState {
    Sharded,
    Replicated,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Device {
    Cpu,
    Cuda,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a file's top-level forms in order, then execute its runs.
    Run {
        /// The `.sx` file to run.
        file: PathBuf,
        /// Execute only this run (`defrun` name); all runs by default.
        #[arg(long)]
        run: Option<String>,
        /// Where graphs execute.
        #[arg(long, value_enum, default_value_t = Device::Cpu)]
        device: Device,
        /// After the runs, print on stderr where each graph's time went on
        /// the CPU, by kernel kind (matmul, fused elementwise, copies, ...).
        #[arg(long)]
        profile: bool,
        /// With `--profile`: leave out the first N runs of each graph
        /// (compilation, first-touch, a GPU's kernel loading), so that the
        /// report is a warm step's.
        #[arg(long, value_name = "N", requires = "profile")]
        profile_warmup: Option<u64>,
        /// Run this many steps instead of the run's `:steps`.
        #[arg(long)]
        steps: Option<u64>,
        /// Folded into every random stream; overrides the run's `:seed`.
        #[arg(long)]
        seed: Option<u64>,
        /// Append one JSON object per logged step to this file.
        #[arg(long)]
        metrics: Option<PathBuf>,
        /// Write checkpoints (safetensors) into this directory.
        #[arg(long)]
        checkpoint: Option<PathBuf>,
        /// Resume each run from its checkpoint in this directory.
        #[arg(long)]
        resume: Option<PathBuf>,
        /// Under `mpirun`/`srun`: seconds a collective may wait for the
        /// other ranks before every rank is stopped
        /// (docs/sexpgpu/distributed.md).
        #[arg(long, value_name = "SECS", default_value_t = 600.0)]
        collective_timeout: f64,
        /// Under `mpirun`/`srun`: shard the optimizer state across the
        /// ranks (ZeRO-1, where the optimizer's update allows it) or keep
        /// all of it on every rank.
        #[arg(long, value_enum, default_value_t = OptimizerState::Sharded)]
        optimizer_state: OptimizerState,
    },
    /// Print the traced graphs of a file, one node a line.
    Ir {
        /// The `.sx` file whose graphs to print.
        file: PathBuf,
        /// Print only this graph.
        #[arg(long)]
        graph: Option<String>,
        /// `traced`: the graph as recorded; `optimized`: after fusion and
        /// buffer placement by the CPU backend (kernels, slots).
        #[arg(long, value_enum, default_value = "traced")]
        stage: Stage,
        /// Print each compiled graph's cost model instead: bytes, FLOPs
        /// and a lower bound per kernel, by kind and in total, on `--gpu`
        /// (docs/sexpgpu/cuda.md, "The cost model").
        #[arg(long, requires = "gpu", conflicts_with = "stage")]
        cost: bool,
        /// The GPU of `--cost`: h100, h200, a100, l4 (or a device's name,
        /// `NVIDIA H200`).
        #[arg(long, value_name = "GPU", requires = "cost")]
        gpu: Option<String>,
    },
    /// Read, evaluate and trace a file, reporting errors; run no graph.
    Check {
        /// The `.sx` file to check.
        file: PathBuf,
    },
    /// Format `.sx` files in place (`docs/sexpgpu/formatting.md`); folders are
    /// searched for `.sx` files.
    Fmt(command::fmt::FmtArgs),
    /// Run the language server on stdin and stdout (for editors;
    /// `docs/sexpgpu/editor.md`).
    Lsp,
    /// Explain a diagnostic code, such as E-DIM-001.
    Explain {
        /// A code such as E-DIM-001.
        code: String,
    },
    /// Draw the curves of a `--metrics` file: one panel per metric, with
    /// training and evaluation values, as an SVG image.
    Plot {
        /// The metrics file (JSON lines) a run wrote with `--metrics`.
        metrics: PathBuf,
        /// The image to write (`.svg`).
        #[arg(short, long)]
        output: PathBuf,
        /// Draw the values on a base-10 log scale (losses); values at or
        /// below zero are left out.
        #[arg(long)]
        log: bool,
    },
    /// Read forms from stdin, evaluate them and print their values.
    Repl {
        /// Folded into every random stream.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
}

/// Runs the command line and returns the exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || dispatch(cli));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: internal error: the evaluator thread failed");
            2
        }
    }
}

/// The data-parallel job this process is a rank of (none without a
/// launcher); its CPU threads default to the cores shared by the ranks on
/// this machine, and a CUDA run's collectives go through NCCL.
fn join_job(
    timeout: f64,
    threads_given: bool,
    device: Device,
) -> Result<Option<std::rc::Rc<dist::Job>>, String> {
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Err(format!(
            "--collective-timeout must be a positive number of seconds, not {timeout}"
        ));
    }
    let Some(mut job) = dist::join(std::time::Duration::from_secs_f64(timeout))? else {
        return Ok(None);
    };
    if !threads_given && std::env::var_os("SEXPGPU_THREADS").is_none() {
        sexpgpu_cpu::CpuBackend::set_default_threads(dist::threads_per_rank(&job.launch));
    }
    #[cfg(feature = "cuda")]
    if device == Device::Cuda {
        if let Err(why) = job.join_nccl() {
            job.abort(&format!("error: rank {}: NCCL: {why}", job.launch.rank));
        }
    }
    let _ = (device, &mut job);
    Ok(Some(std::rc::Rc::new(job)))
}

/// `--profile`'s report: time per kernel kind, then the costliest launches
/// (8 of each graph, or `SEXPGPU_PROFILE_TOP` of them).
fn print_profile() {
    use sexpgpu_compile::profile;
    let top = std::env::var("SEXPGPU_PROFILE_TOP")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(8);
    eprint!("{}", profile::format_report(&profile::take_report()));
    for (graph, launches) in profile::take_top_launches(top) {
        eprint!("{}", profile::format_top_launches(&graph, &launches));
    }
}

fn dispatch(cli: Cli) -> i32 {
    let format = cli.format;
    if let Some(threads) = cli.threads {
        sexpgpu_cpu::CpuBackend::set_default_threads(usize::from(threads));
    }
    if let Some(steps) = cli.max_steps {
        sexpgpu::set_default_step_limit(steps);
    }
    match cli.command {
        Command::Run {
            file,
            run,
            device,
            steps,
            seed,
            metrics,
            checkpoint,
            resume,
            profile,
            profile_warmup,
            collective_timeout,
            optimizer_state,
        } => {
            sexpgpu_compile::profile::enable(profile);
            sexpgpu_compile::profile::set_warmup(profile_warmup.unwrap_or(0));
            let job = match join_job(collective_timeout, cli.threads.is_some(), device) {
                Ok(job) => job,
                Err(why) => {
                    eprintln!("error: {why}");
                    return 2;
                }
            };
            // The device first: a missing GPU is reported before any work.
            let ordinal = job.as_ref().map_or(0, |j| j.launch.local_rank);
            let device = match device {
                Device::Cpu => sexpgpu::Device::default(),
                Device::Cuda => match cuda::open(ordinal) {
                    Ok(d) => d,
                    Err(why) => {
                        let why = format!(
                            "error: {why}\n  = help: run on the CPU with `--device cpu` (the default)"
                        );
                        match &job {
                            Some(job) => job.abort(&why),
                            None => eprintln!("{why}"),
                        }
                        return 2;
                    }
                },
            };
            let request = runner::Request {
                only: run,
                options: sexpgpu::RunOptions {
                    steps,
                    seed,
                    checkpoint: checkpoint.is_some(),
                    resume: resume.is_some(),
                    device,
                    replicate_state: optimizer_state == OptimizerState::Replicated,
                    ranks: sexpgpu::Ranks(
                        job.clone()
                            .map(|j| j as std::rc::Rc<dyn sexpgpu::Collective>),
                    ),
                },
                metrics,
                checkpoint,
                resume,
                job,
            };
            let code = run_file(
                &file,
                Mode::Run,
                seed.unwrap_or(0),
                format,
                Action::Run(request),
            );
            if profile {
                print_profile();
            }
            code
        }
        Command::Check { file } => run_file(&file, Mode::Check, 0, format, Action::Check),
        Command::Ir {
            file,
            graph,
            stage,
            cost: _,
            gpu,
        } => {
            let view = match gpu.as_deref().map(Gpu::lookup).transpose() {
                Ok(Some(gpu)) => IrView::Cost(gpu),
                Ok(None) => IrView::Stage(stage),
                Err(why) => {
                    eprintln!("error: {why}");
                    return 2;
                }
            };
            run_file(&file, Mode::Check, 0, format, Action::Ir(graph, view))
        }
        Command::Fmt(args) => fmt(&args.paths, args.check),
        Command::Lsp => match lsp::run_stdio() {
            Ok(()) => 0,
            Err(e) => {
                command::print_error("sexpgpu", &format!("the language server stopped: {e}"));
                2
            }
        },
        Command::Explain { code } => explain(&code),
        Command::Plot {
            metrics,
            output,
            log,
        } => plot::run(&metrics, &output, log),
        Command::Repl { seed } => repl(seed, format),
    }
}

/// `sexpgpu fmt`: the shared driver over `sexpgpu::format`.
fn fmt(paths: &[PathBuf], check: bool) -> i32 {
    use sexpgpu::format::{format, FormatError};
    let format = |text: &str| {
        format(text).map_err(|e| match e {
            FormatError::Syntax(diagnostics) => command::fmt::Refusal::Syntax(diagnostics),
            FormatError::Unsafe(why) => command::fmt::Refusal::Unsafe(why),
        })
    };
    let formatter = command::fmt::Formatter {
        program: "sexpgpu",
        extension: "sx",
        format: &format,
    };
    i32::from(command::fmt::run(&formatter, paths, check))
}

/// Prints `println` output straight to stdout and reads data files
/// relative to the directory of the file being run.
struct Stdout {
    base: PathBuf,
    /// A data-parallel rank other than 0: what the program prints or
    /// writes is rank 0's to print or write (docs/sexpgpu/distributed.md).
    quiet: bool,
}

impl Host for Stdout {
    fn print(&mut self, text: &str) {
        if self.quiet {
            return;
        }
        let mut out = std::io::stdout().lock();
        // A closed pipe (`sexpgpu run f | head`) is not the program's mistake.
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }

    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        let full = self.base.join(path);
        std::fs::read(&full)
            .map_err(|e| format!("cannot read {}: {}", full.display(), io_reason(&e)))
    }

    fn write_file(&mut self, path: &str, bytes: &[u8]) -> Result<(), String> {
        if self.quiet {
            return Ok(());
        }
        let full = self.base.join(path);
        let name = full
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| format!("cannot write {}: it names no file", full.display()))?;
        let temporary = full.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        std::fs::write(&temporary, bytes)
            .map_err(|e| format!("cannot write {}: {}", full.display(), io_reason(&e)))?;
        std::fs::rename(&temporary, &full).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("cannot write {}: {}", full.display(), io_reason(&e))
        })
    }
}

/// Which form of a graph `sexpgpu ir` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Stage {
    Traced,
    Optimized,
}

/// What `sexpgpu ir` prints of each graph: a stage, or the cost model on
/// a GPU of the table.
#[derive(Clone, Copy)]
enum IrView {
    Stage(Stage),
    Cost(&'static Gpu),
}

/// What to do once the file is evaluated.
enum Action {
    Check,
    Ir(Option<String>, IrView),
    Run(runner::Request),
}

/// Prints diagnostics on stderr in the chosen format, as `shapescript` does.
fn report(session: &Session, diagnostics: &[Diagnostic], format: Format) {
    command::print_diagnostics(session.sources(), diagnostics, format);
}

/// `run`, `check` and `ir`: the file's name in diagnostics is the path as given.
fn run_file(path: &Path, mode: Mode, seed: u64, format: Format, action: Action) -> i32 {
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => {
                eprintln!(
                    "error: cannot read {}: the file is not UTF-8 text",
                    path.display()
                );
                return 2;
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {}", path.display(), io_reason(&e));
            return 2;
        }
    };
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let quiet =
        matches!(&action, Action::Run(r) if r.job.as_ref().is_some_and(|j| j.launch.rank != 0));
    let mut session = Session::new(mode, seed, Box::new(Stdout { base, quiet }));
    let diagnostics = session.eval_file(&path.display().to_string(), &text);
    if let (Action::Run(runner::Request { job: Some(job), .. }), false) =
        (&action, diagnostics.is_empty())
    {
        runner::fail_job_with(&session, job, &diagnostics, format);
    }
    report(&session, &diagnostics, format);
    if let Action::Run(request) = action {
        if !diagnostics.is_empty() {
            return 1;
        }
        return runner::run_all(&mut session, path, request, format);
    }
    let failed = i32::from(!diagnostics.is_empty());
    if let Action::Ir(only, view) = action {
        return print_graphs(&session, path, only, view, failed);
    }
    failed
}

/// `sexpgpu ir`: the graphs (or the one named) as `view` shows them. The
/// exit code: `failed` (the evaluation's), or 2 for a graph not found (1
/// after diagnostics), 1 for one that does not compile.
fn print_graphs(
    session: &Session,
    path: &Path,
    only: Option<String>,
    view: IrView,
    failed: i32,
) -> i32 {
    let graphs: Vec<_> = session
        .graphs()
        .iter()
        .filter(|g| only.as_ref().is_none_or(|n| &g.name == n))
        .collect();
    if let (Some(name), true) = (&only, graphs.is_empty()) {
        let known: Vec<&str> = session.graphs().iter().map(|g| g.name.as_str()).collect();
        let known = if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        };
        eprintln!(
            "error: no graph named `{name}` in {} (graphs: {known})",
            path.display()
        );
        return if failed == 0 { 2 } else { 1 };
    }
    let mut printed = Vec::with_capacity(graphs.len());
    for g in graphs {
        let compiled = || {
            sexpgpu_cpu::compile(&g.graph)
                .map_err(|e| eprintln!("error: cannot compile graph `{}`: {e}", g.name))
        };
        let text = match view {
            IrView::Stage(Stage::Traced) => sexpgpu_graph::print_ir(&g.graph, session.sources()),
            IrView::Stage(Stage::Optimized) => match compiled() {
                Ok(program) => program.describe(),
                Err(()) => return 1,
            },
            IrView::Cost(gpu) => match compiled() {
                Ok(program) => cost::format_cost(program.plan(), gpu),
                Err(()) => return 1,
            },
        };
        printed.push(text);
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(printed.join("\n").as_bytes());
    failed
}

/// The OS reason without Rust's "(os error 2)" suffix.
fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// `sexpgpu explain CODE`: the code's explanation on stdout.
fn explain(code: &str) -> i32 {
    i32::from(command::explain("sexpgpu", "SexpGPU", codes::all(), code))
}

/// Reads forms from stdin; a form may span lines. Prints each value with
/// `=> `, diagnostics on stderr. A prompt is shown only on a terminal.
fn repl(seed: u64, format: Format) -> i32 {
    let interactive = std::io::stdin().is_terminal();
    let mut session = Session::new(
        Mode::Run,
        seed,
        Box::new(Stdout {
            base: PathBuf::new(),
            quiet: false,
        }),
    );
    let mut buffer = String::new();
    let mut count = 0;
    let prompt = |continuing: bool| {
        if interactive {
            print!("{}", if continuing { "...> " } else { "sexpgpu> " });
            let _ = std::io::stdout().flush();
        }
    };
    prompt(false);
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        buffer.push_str(&line);
        buffer.push('\n');
        if sexpgpu::is_incomplete(&buffer) {
            prompt(true);
            continue;
        }
        count += 1;
        let (values, diagnostics) = session.eval_input(&format!("<repl:{count}>"), &buffer);
        for value in values {
            println!("=> {}", value.repr());
        }
        command::print_diagnostics_alone(session.sources(), &diagnostics, format);
        buffer.clear();
        prompt(false);
    }
    if !buffer.trim().is_empty() {
        count += 1;
        let (_, diagnostics) = session.eval_input(&format!("<repl:{count}>"), &buffer);
        command::print_diagnostics_alone(session.sources(), &diagnostics, format);
    }
    0
}
