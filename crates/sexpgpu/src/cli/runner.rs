//! The command's side of `sexpgpu run`: chooses the runs to execute and
//! gives them a clock, the console (plain log lines on stdout, and a
//! progress bar on stderr when that is a terminal), the `--metrics` file and the
//! checkpoint directories. Part of the command, like `cli`: it touches files.

use super::progress::Bar;
use super::{io_reason, report, Format};
use sexpgpu::{RunIo, RunOptions, Session};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub struct Request {
    pub only: Option<String>,
    pub options: RunOptions,
    pub metrics: Option<PathBuf>,
    pub checkpoint: Option<PathBuf>,
    pub resume: Option<PathBuf>,
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
            report(session, &[*d], format);
            return 1;
        }
    }
    console.clear();
    0
}
