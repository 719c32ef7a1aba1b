//! Every example in a SexpGPU explanation runs: each `Wrong` example
//! (`sexpgpu explain CODE`, `docs/sexpgpu/errors.md`) must report its code,
//! and each `Fixed` one must evaluate, trace, call its graphs and execute its
//! runs with no diagnostic at all, as `sexpgpu run` would. An example is
//! `main.sx`, with a text file `notes.txt` beside it (the one file the
//! `E-IO-*` examples read).

use diag::{Code, Diagnostic, Example, ExampleKind};
use sexpgpu::{Host, Mode, RunIo, RunOptions, Session};
use std::collections::HashMap;

/// The files beside every example.
const FILES: &[(&str, &str)] = &[("notes.txt", "hello\n")];

/// The explanations that show no example, because no program text can:
/// a form nested too deeply to write out, a checkpoint from another run,
/// a directory that cannot be written.
const WITHOUT_EXAMPLES: &[&str] = &["E-READ-009", "E-RUN-007", "E-IO-003"];

/// `sexpgpu run`'s host with the example's files in memory; printing is
/// dropped.
struct Files;

impl Host for Files {
    fn print(&mut self, _text: &str) {}

    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        FILES
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(_, text)| text.as_bytes().to_vec())
            .ok_or_else(|| format!("cannot read `{path}`: No such file or directory"))
    }
}

/// A run's console and checkpoint directory, in memory.
#[derive(Default)]
struct Console {
    checkpoints: HashMap<String, Vec<u8>>,
}

impl RunIo for Console {
    fn now(&self) -> f64 {
        0.0
    }
    fn log(&mut self, _line: &str) {}
    fn progress(&mut self, _line: &str) {}
    fn metrics(&mut self, _line: &str) {}
    fn write_checkpoint(
        &mut self,
        _run_dir: Option<&str>,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), String> {
        self.checkpoints.insert(name.to_string(), bytes.to_vec());
        Ok(())
    }
    fn read_checkpoint(&mut self, name: &str) -> Result<Vec<u8>, String> {
        self.checkpoints
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no checkpoint {name}"))
    }
}

/// What `sexpgpu run main.sx` reports for the example's text: the forms'
/// diagnostics, then, if there were none, the first failing run's.
fn diagnostics(text: &str) -> Vec<Diagnostic> {
    let mut session = Session::new(Mode::Run, 0, Box::new(Files));
    let mut found = session.eval_file("main.sx", text);
    if found.is_empty() {
        let mut console = Console::default();
        for run in session.runs() {
            if let Err(d) = session.execute_run(&run, &RunOptions::default(), &mut console) {
                found.push(*d);
                break;
            }
        }
    }
    found
}

/// The codes the example reports, on a thread with the command's deep
/// stack (the `E-EVAL-007` example recurses ten thousand levels).
fn codes_reported(text: &str) -> Vec<String> {
    let text = text.to_string();
    std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(move || {
            diagnostics(&text)
                .iter()
                .map(|d| d.code.id.to_string())
                .collect()
        })
        .expect("the evaluator thread starts")
        .join()
        .expect("evaluation never panics")
}

/// What is wrong with one example, if anything.
fn failure(code: Code, index: usize, example: &Example) -> Option<String> {
    let codes = codes_reported(&example.text);
    let ok = match example.kind {
        ExampleKind::Wrong => codes.iter().any(|c| c == code.id),
        ExampleKind::Fixed => codes.is_empty(),
    };
    (!ok).then(|| {
        format!(
            "{} example {} ({:?}) reports {codes:?}:\n{}",
            code.id,
            index + 1,
            example.kind,
            example.text
        )
    })
}

#[test]
fn every_explanation_example_does_what_it_says() {
    let mut failures = Vec::new();
    let mut wrong = 0;
    let mut fixed = 0;
    for &code in sexpgpu::codes::all() {
        for (index, example) in code.examples().iter().enumerate() {
            match example.kind {
                ExampleKind::Wrong => wrong += 1,
                ExampleKind::Fixed => fixed += 1,
            }
            failures.extend(failure(code, index, example));
        }
    }
    assert!(
        wrong > 30 && fixed > 30,
        "found only {wrong} wrong and {fixed} fixed examples"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_explanation_shows_a_wrong_and_a_fixed_example_where_a_program_can() {
    for code in sexpgpu::codes::all() {
        let kinds: Vec<ExampleKind> = code.examples().iter().map(|e| e.kind).collect();
        let shown = kinds.contains(&ExampleKind::Wrong) && kinds.contains(&ExampleKind::Fixed);
        assert_eq!(
            shown,
            !WITHOUT_EXAMPLES.contains(&code.id),
            "{}: a Wrong and a Fixed example exactly where a program can show them",
            code.id
        );
        let fences = code.explain.matches("```").count();
        assert_eq!(
            fences,
            2 * code.examples().len(),
            "{}: every code block is a Wrong or Fixed example (a paragraph before one is one line)",
            code.id
        );
    }
}

#[test]
fn a_wrong_example_that_reports_nothing_fails() {
    let example = Example {
        kind: ExampleKind::Wrong,
        text: "(println (+ 1 2))\n".into(),
    };
    assert!(failure(sexpgpu::codes::E_EVAL_003, 0, &example).is_some());
    let example = Example {
        kind: ExampleKind::Fixed,
        text: "(println (load-text \"notes.txt\"))\n".into(),
    };
    assert!(failure(sexpgpu::codes::E_IO_001, 0, &example).is_none());
}
