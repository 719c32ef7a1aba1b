//! Golden-file UI tests shared by both languages: runs a command on each test
//! source, compares output with `.stderr`/`.stdout` files beside it, and
//! checks inline code annotations against a JSON run. Test support only:
//! it panics to fail a test and never runs outside `cargo test`.
//!
//! ```text
//! dim E = D / 5   # ~ E0402        a diagnostic with this code starts on this line
//! # ~^ E0402 H2201                 ...on the line above (`~^^` two above)
//! # ~? E0201                       ...anywhere, or with no span
//! # ui-args: check --deny-hints    replaces the default arguments
//! # ui-exit: 2                     the expected exit code
//! ```

mod annotations;
mod command;
mod diff;
pub mod formatting;
mod goldens;
pub mod hostile;
pub mod mutate;
pub mod neovim;
pub mod support;

#[cfg(test)]
mod tests;

pub use support::workspace_root;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How long one run of the command may take before it counts as a hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// One folder of UI tests for one command.
pub struct Suite {
    /// The folder searched recursively, e.g. `<workspace>/tests/ui/shapescript`.
    pub root: PathBuf,
    /// Extension of test sources: `ss` or `sx`.
    pub extension: &'static str,
    /// Line comment marker of the language: `#` or `;`.
    pub comment: &'static str,
    /// The command under test, e.g. `env!("CARGO_BIN_EXE_shapescript")`.
    pub binary: PathBuf,
    /// Arguments before the file name, e.g. `["check"]`; `ui-args:` replaces them.
    pub default_args: Vec<String>,
    /// Added after the arguments for the annotation run, e.g. `["--format", "json"]`.
    pub json_args: Vec<String>,
}

/// The result of checking every test of a suite.
struct Report {
    tests: usize,
    failures: Vec<String>,
}

impl Suite {
    /// The UI tests of a language's command, `binary` (its file name
    /// `shapescript` or `sexpgpu`): every source under
    /// `tests/ui/<command>`, run as `<command> <default> FILE`, and with the
    /// `--format json` both commands take for the annotation run.
    pub fn of_command(binary: &str, default: &str) -> Suite {
        let binary = PathBuf::from(binary);
        let name = binary.file_stem().and_then(|n| n.to_str()).unwrap_or("");
        let (extension, comment) = match name {
            "shapescript" => ("ss", "#"),
            "sexpgpu" => ("sx", ";"),
            _ => panic!("no UI tests for the command `{name}`"),
        };
        Suite {
            root: workspace_root().join("tests/ui").join(name),
            extension,
            comment,
            binary,
            default_args: vec![default.into()],
            json_args: vec!["--format".into(), "json".into()],
        }
    }

    /// Runs every test; panics with a summary of all failures. `BLESS=1`
    /// rewrites goldens (and deletes empty and orphaned ones) instead of
    /// comparing them; exit codes and annotations are checked either way.
    pub fn run(&self) {
        let bless = std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0");
        let report = self
            .check(bless, TIMEOUT)
            .unwrap_or_else(|e| panic!("UI tests under {}: {e}", self.root.display()));
        if !report.failures.is_empty() {
            panic!(
                "{} of {} UI tests under {} failed:\n\n{}\n\
                 Goldens (.stderr/.stdout) are rewritten with BLESS=1; annotations and exit codes never are.",
                report.failures.len(),
                report.tests,
                self.root.display(),
                report.failures.join("\n"),
            );
        }
    }

    /// Checks every test; `Err` when the suite itself cannot be read.
    fn check(&self, bless: bool, timeout: Duration) -> Result<Report, String> {
        let files = goldens::walk(&self.root)?;
        let tests: Vec<&PathBuf> = files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == self.extension))
            .collect();
        if tests.is_empty() {
            return Err(format!("no `*.{}` test files found", self.extension));
        }
        let mut source_extensions = vec!["ss", "sx"];
        source_extensions.push(self.extension);
        let orphans = goldens::orphans(&files, &source_extensions, bless)?;

        let results: Vec<Mutex<Vec<String>>> =
            tests.iter().map(|_| Mutex::new(Vec::new())).collect();
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(4);
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(test) = tests.get(i) else { break };
                    let problems = self.check_file(test, bless, timeout);
                    *results[i].lock().unwrap_or_else(|e| e.into_inner()) = problems;
                });
            }
        });

        let mut failures: Vec<String> = orphans
            .iter()
            .map(|o| {
                format!(
                    "{}: orphaned golden file: no test source of the same name beside it\n",
                    self.shown(o)
                )
            })
            .collect();
        for (test, problems) in tests.iter().zip(results) {
            let problems = problems.into_inner().unwrap_or_else(|e| e.into_inner());
            if !problems.is_empty() {
                let mut block = format!("{}:\n", self.shown(test));
                for problem in problems {
                    let mut lines = problem.lines();
                    block.push_str(&format!("  - {}\n", lines.next().unwrap_or_default()));
                    for line in lines {
                        block.push_str(&format!("  {line}\n"));
                    }
                }
                failures.push(block);
            }
        }
        Ok(Report {
            tests: tests.len(),
            failures,
        })
    }

    /// A path as shown in failures: relative to the suite root.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Everything wrong with one test, one entry per problem.
    fn check_file(&self, test: &Path, bless: bool, timeout: Duration) -> Vec<String> {
        let mut problems = Vec::new();
        let text = match std::fs::read_to_string(test) {
            Ok(text) => text,
            Err(e) => return vec![format!("cannot read the test: {e}")],
        };
        let expectations = annotations::parse(&text, self.comment);
        problems.extend(expectations.errors.iter().cloned());
        let dir = test.parent().unwrap_or(Path::new("."));
        let name = test
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let args = expectations
            .args
            .clone()
            .unwrap_or_else(|| self.default_args.clone());
        let binary = absolute(&self.binary);
        let program = binary.file_name().map_or_else(
            || binary.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );

        let mut json_args = args.clone();
        json_args.extend(self.json_args.iter().cloned());
        json_args.push(name.clone());
        let reported = match command::run(&binary, &json_args, dir, timeout) {
            Ok(outcome) => Some((annotations::reported(&outcome.stderr, &name), outcome)),
            Err(e) => {
                problems.push(format!("`{program} {}`: {e}", json_args.join(" ")));
                None
            }
        };
        let errors_reported = reported
            .as_ref()
            .is_some_and(|(r, _)| r.iter().any(|d| d.severity == "error"));
        let expected_exit = expectations
            .exit
            .unwrap_or(if errors_reported { 1 } else { 0 });

        let mut human_args = args;
        human_args.push(name.clone());
        match command::run(&binary, &human_args, dir, timeout) {
            Ok(outcome) => {
                problems.extend(exit_problem("", outcome.code, expected_exit));
                problems.extend(panic_problem(&outcome.stderr));
                for (golden, actual) in [("stderr", &outcome.stderr), ("stdout", &outcome.stdout)] {
                    let path = test.with_extension(golden);
                    problems.extend(goldens::compare(&path, actual, bless).err());
                }
            }
            Err(e) => problems.push(format!("`{program} {}`: {e}", human_args.join(" "))),
        }

        if let Some((reported, outcome)) = reported {
            let run = format!(" of the JSON run (`{program} {}`)", json_args.join(" "));
            problems.extend(exit_problem(&run, outcome.code, expected_exit));
            problems.extend(annotations::compare(&expectations.diagnostics, &reported));
        }
        problems
    }
}

/// A wrong exit code; `which` names the run when it is not the main one.
fn exit_problem(which: &str, code: Option<i32>, expected: i32) -> Option<String> {
    match code {
        Some(code) if code == expected => None,
        Some(code) => Some(format!("exit code{which}: expected {expected}, got {code}")),
        None => Some(format!(
            "exit code{which}: expected {expected}, but a signal ended the command"
        )),
    }
}

/// A Rust panic is never an acceptable diagnostic, whatever the goldens say.
fn panic_problem(stderr: &str) -> Option<String> {
    let line = stderr.lines().find(|line| line.contains("panicked at"))?;
    Some(format!("the command panicked: {}", line.trim()))
}

/// `binary` made absolute when it is a relative path, since each run
/// changes the current folder; a bare name is left for `PATH` to find.
fn absolute(binary: &Path) -> PathBuf {
    if binary.is_relative() && binary.components().count() > 1 {
        std::path::absolute(binary).unwrap_or_else(|_| binary.to_path_buf())
    } else {
        binary.to_path_buf()
    }
}
