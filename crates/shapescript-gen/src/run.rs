//! Checking, building and running generated programs: each program is
//! checked and built through the `check` and `pygen` libraries (with the
//! boundary checks and probes on), the accepted ones of a batch are
//! written as one package, and one Python worker (`harness.py`, started
//! once, torch imported once) runs them against the generator's reference.
//! The only module that touches files and processes.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use diag::{Severity, SourceMap};
use serde_json::{json, Value};

/// The worker's source, written beside the packages it runs.
pub const HARNESS: &str = include_str!("harness.py");

/// What the checker and the emitter made of a program.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Checked clean and built: the module's Python and the runtime's,
    /// and the Python names of the declarations (`pygen::python_names`).
    Built {
        module: String,
        runtime: String,
        names: Vec<(String, String)>,
    },
    /// The checker's first error: its code, message and line.
    Rejected {
        code: &'static str,
        message: String,
        line: u32,
    },
    /// `check` accepted it and the emitter refused it (E0901).
    Refused { code: &'static str, message: String },
}

/// Checks `text` as the file `<module>.ss` and builds it with probes.
pub fn compile(module: &str, text: &str) -> Verdict {
    let mut files = check::MemoryFiles::new();
    let path = PathBuf::from(format!("{module}.ss"));
    files.insert(&path, text);
    let mut map = SourceMap::new();
    let checked = check::check(&mut map, &files, &[path], &check::Options::default());
    if let Some(d) = checked
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        let line = d
            .primary
            .as_ref()
            .map_or(0, |l| map.line_col(l.span.file, l.span.start).line);
        return Verdict::Rejected {
            code: d.code.id,
            message: d.message.clone(),
            line,
        };
    }
    let options = pygen::Options {
        runtime_checks: true,
        probes: true,
    };
    let names = pygen::python_names(&checked);
    match pygen::generate(&checked, &map, &options) {
        Ok(out) => {
            let get = |name: &str| {
                out.iter()
                    .find(|f| f.path == Path::new(name))
                    .map(|f| f.contents.clone())
                    .unwrap_or_default()
            };
            Verdict::Built {
                module: get(&format!("{}.py", pygen::module_name(module))),
                runtime: get("shapescript_runtime.py"),
                names,
            }
        }
        Err(ds) => Verdict::Refused {
            code: ds.first().map_or("", |d| d.code.id),
            message: ds.first().map(|d| d.message.clone()).unwrap_or_default(),
        },
    }
}

/// Fills in `py` beside every `lookup` of a spec: how the emitted code
/// spells that declaration or member (`pygen::python_names`).
fn python_names(spec: &mut Value, names: &[(String, String)]) {
    match spec {
        Value::Object(map) => {
            if let Some(key) = map
                .get("lookup")
                .and_then(Value::as_str)
                .map(str::to_string)
            {
                let py = names
                    .iter()
                    .find(|(n, _)| *n == key)
                    .map_or(key.clone(), |(_, p)| p.clone());
                map.insert("py".into(), json!(py.rsplit('.').next().unwrap_or(&py)));
            }
            map.values_mut().for_each(|v| python_names(v, names));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| python_names(v, names)),
        _ => {}
    }
}

/// The Python worker.
pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// How long one request may take before the worker is given up.
    pub timeout: Duration,
}

impl Worker {
    /// Starts `python harness.py` in `dir`.
    pub fn start(python: &Path, dir: &Path) -> std::io::Result<Worker> {
        std::fs::create_dir_all(dir)?;
        let script = dir.join("harness.py");
        std::fs::write(&script, HARNESS)?;
        let mut child = Command::new(python)
            .arg("-u")
            .arg(&script)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Worker {
            child,
            stdin,
            lines,
            timeout: Duration::from_secs(600),
        })
    }

    /// Sends one request and waits for its answer.
    pub fn request(&mut self, req: &Value) -> Result<Value, String> {
        writeln!(self.stdin, "{req}").map_err(|e| format!("the worker is gone: {e}"))?;
        self.stdin.flush().map_err(|e| e.to_string())?;
        let line = self
            .lines
            .recv_timeout(self.timeout)
            .map_err(|e| format!("no answer from the worker: {e}"))?;
        serde_json::from_str(&line).map_err(|e| format!("a bad answer ({e}): {line}"))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One program of a batch: its module name, its text, the harness's spec
/// and the reference.
pub struct Job {
    pub module: String,
    pub spec: Value,
    pub reference: String,
    pub verdict: Verdict,
    /// Run the emitted code alone, without comparing it with the reference
    /// (a mutant, whose reference is only its naive translation).
    pub emitted_only: bool,
}

/// Writes the built programs of `jobs` as the package `package` under
/// `root` and runs every job through the worker: built ones against the
/// reference, the others' reference alone (`reference_only`), to tell a
/// checker's imprecision from a generator's mistake. One answer per job.
pub fn run_jobs(
    worker: &mut Worker,
    root: &Path,
    package: &str,
    jobs: &[Job],
    runs: u32,
    seed: u64,
) -> Result<Vec<Value>, String> {
    let dir = root.join(package);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("__init__.py"), "").map_err(|e| e.to_string())?;
    let mut programs = Vec::new();
    for job in jobs {
        let mut spec = job.spec.clone();
        let built = match &job.verdict {
            Verdict::Built {
                module,
                runtime,
                names,
            } => {
                python_names(&mut spec, names);
                std::fs::write(dir.join(format!("{}.py", job.module)), module)
                    .map_err(|e| e.to_string())?;
                std::fs::write(dir.join("shapescript_runtime.py"), runtime)
                    .map_err(|e| e.to_string())?;
                true
            }
            _ => false,
        };
        let mode = match (built, job.emitted_only) {
            (false, _) => "reference_only",
            (true, true) => "emitted_only",
            (true, false) => "full",
        };
        programs.push(json!({
            "module": job.module,
            "spec": spec,
            "reference": job.reference,
            "mode": mode,
        }));
    }
    let req = json!({
        "root": root.to_string_lossy(),
        "package": package,
        "programs": programs,
        "runs": runs,
        "seed": seed,
    });
    let answer = worker.request(&req)?;
    let results = answer["results"].as_array().cloned().unwrap_or_default();
    if results.len() != jobs.len() {
        return Err(format!(
            "{} answers for {} programs",
            results.len(),
            jobs.len()
        ));
    }
    Ok(results)
}

/// A program's job: its text checked and built, its spec and reference.
pub fn job(p: &crate::ast::Program, module: &str) -> Job {
    let text = crate::print_ss::program(p);
    Job {
        module: module.to_string(),
        spec: crate::spec::program(p, module),
        reference: crate::print_py::program(p),
        verdict: compile(module, &text),
        emitted_only: false,
    }
}
