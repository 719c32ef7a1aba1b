//! The command's side of `sexpgpu run`: chooses the runs to execute and
//! gives them a clock, the console (plain log lines on stdout, and a
//! progress bar on stderr when that is a terminal), the `--metrics` file and the
//! checkpoint directories. Part of the command, like `cli`: it touches files.

use super::dist::Job;
use super::progress::Bar;
use super::{io_reason, report, Format};
use sexpgpu::{RunIo, RunOptions, Session};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

pub struct Request {
    pub only: Option<String>,
    pub options: RunOptions,
    pub metrics: Option<PathBuf>,
    pub checkpoint: Option<PathBuf>,
    pub resume: Option<PathBuf>,
    /// The data-parallel job this process is a rank of, if any.
    pub job: Option<Rc<Job>>,
}

struct Console {
    started: Instant,
    /// The progress bar, when stderr is a terminal.
    bar: Option<Bar>,
    metrics: Option<std::fs::File>,
    checkpoint: Option<PathBuf>,
    resume: Option<PathBuf>,
    /// The directory of the `.sx` file, for a run's own `:checkpoint`.
    base: PathBuf,
}

impl Console {
    fn clear(&mut self) {
        if let Some(bar) = &mut self.bar {
            bar.clear();
        }
    }
}

impl RunIo for Console {
    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn log(&mut self, line: &str) {
        let print = || {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// The bar shows the steps; the plain line is only for logs.
    fn progress(&mut self, _line: &str) {}

    fn step_progress(&mut self, step: u64, total: u64, values: &str, _line: &str) {
        if let Some(bar) = &mut self.bar {
            bar.step(step, total, values);
        }
    }

    fn steps_done(&mut self) {
        self.clear();
    }

    fn metrics(&mut self, line: &str) {
        if let Some(file) = &mut self.metrics {
            let _ = writeln!(file, "{line}");
        }
    }

    fn write_checkpoint(
        &mut self,
        run_dir: Option<&str>,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), String> {
        let dir = match (&self.checkpoint, run_dir) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => self.base.join(dir),
            (None, None) => return Ok(()),
        };
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {}", dir.display(), io_reason(&e)))?;
        let target = dir.join(name);
        let temporary = dir.join(format!(".{name}.tmp"));
        std::fs::write(&temporary, bytes)
            .map_err(|e| format!("cannot write {}: {}", temporary.display(), io_reason(&e)))?;
        std::fs::rename(&temporary, &target)
            .map_err(|e| format!("cannot rename to {}: {}", target.display(), io_reason(&e)))
    }

    fn read_checkpoint(&mut self, name: &str) -> Result<Vec<u8>, String> {
        let Some(dir) = &self.resume else {
            return Err("no --resume directory".to_string());
        };
        let path = dir.join(name);
        std::fs::read(&path)
            .map_err(|e| format!("cannot read {}: {}", path.display(), io_reason(&e)))
    }
}

/// Executes the chosen runs in definition order; the exit code.
pub fn run_all(session: &mut Session, path: &Path, request: Request, format: Format) -> i32 {
    let runs = session.runs();
    let chosen: Vec<_> = match &request.only {
        Some(name) => runs
            .iter()
            .filter(|r| &r.spec.name == name)
            .cloned()
            .collect(),
        None => runs.clone(),
    };
    if let (Some(name), true) = (&request.only, chosen.is_empty()) {
        let known: Vec<&str> = runs.iter().map(|r| r.spec.name.as_str()).collect();
        eprintln!(
            "error: no run named `{name}` in {} (runs: {})",
            path.display(),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
        return 2;
    }
    let metrics = match &request.metrics {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("error: cannot write {}: {}", p.display(), io_reason(&e));
                return 2;
            }
        },
        None => None,
    };
    if let Some(job) = &request.job {
        same_runs_everywhere(job, &chosen);
    }
    let mut console = Console {
        started: Instant::now(),
        bar: Bar::on_stderr(),
        metrics,
        checkpoint: request.checkpoint.clone(),
        resume: request.resume.clone(),
        base: path.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    for run in chosen {
        if let Err(d) = session.execute_run(&run, &request.options, &mut console) {
            console.clear();
            let Some(job) = &request.job else {
                report(session, &[*d], format);
                return 1;
            };
            fail_job(session, job, *d, format);
        }
    }
    console.clear();
    // The options hold the run's handle on the job; MPI ends with the last.
    let Request { options, job, .. } = request;
    drop(options);
    if let Some(job) = job {
        if let Err(why) = job.finish() {
            eprintln!("error: {why}");
            return 1;
        }
    }
    0
}

/// Every rank must execute the same runs in the same order; one that
/// would not stops the job, named by rank 0 (every rank's collectives
/// would otherwise wait for it).
fn same_runs_everywhere(job: &Job, chosen: &[Rc<sexpgpu::TracedRun>]) {
    let names: Vec<&str> = chosen.iter().map(|r| r.spec.name.as_str()).collect();
    let hash = names.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, name| {
        name.bytes()
            .chain([0])
            .fold(h, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    });
    match job.differing("the comparison of the runs to execute", hash) {
        Ok(differ) if differ.is_empty() => {}
        Ok(differ) => {
            let ranks: Vec<String> = differ.iter().map(usize::to_string).collect();
            let message = format!(
                "error[E-RUN-011]: rank{} {} would execute other runs than rank 0 ({}): run the same file with the same `--run` on every rank",
                if differ.len() == 1 { "" } else { "s" },
                ranks.join(", "),
                names.join(", ")
            );
            stop_job(job, &message)
        }
        Err(why) => stop_job(job, &format!("error: rank {}: {why}", job.launch.rank)),
    }
}

/// A diagnostic on one rank of a data-parallel run: printed with the
/// rank, then every rank is stopped.
fn fail_job(session: &Session, job: &Job, d: diag::Diagnostic, format: Format) -> ! {
    let (rank, size) = (job.launch.rank, job.launch.size);
    let d = d.with_note(format!("on rank {rank} of {size}; stopping every rank"));
    fail_job_with(session, job, &[d], format)
}

/// Diagnostics that stop a data-parallel job: a mistake every rank meets
/// at once (a file that does not evaluate, a NaN loss, a graph that
/// differs) is printed by rank 0, whose abort ends the others while they
/// wait a second before printing theirs.
pub fn fail_job_with(session: &Session, job: &Job, ds: &[diag::Diagnostic], format: Format) -> ! {
    if job.launch.rank != 0 {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    report(session, ds, format);
    job.abort("")
}

fn stop_job(job: &Job, message: &str) -> ! {
    if job.launch.rank != 0 {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    job.abort(message)
}
