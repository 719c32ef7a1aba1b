//! Every example in a SexpGPU explanation runs: each `Wrong` example
//! (`sexpgpu explain CODE`, `docs/sexpgpu/errors.md`) must report its code,
//! and each `Fixed` one must evaluate, trace, call its graphs and execute its
//! runs with no diagnostic at all, as `sexpgpu run` would. An example is
//! `main.sx`, with a text file `notes.txt` beside it (the one file the
//! `E-IO-*` examples read; writing through it fails).

use diag::{Diagnostic, Example, ExampleKind};
use sexpgpu::{Host, MemoryIo, Mode, RunOptions, Session};

/// The files beside every example.
const FILES: &[(&str, &str)] = &[("notes.txt", "hello\n")];

/// The explanations that show no example, because no program text can:
/// a form nested too deeply to write out, a control character (which a
/// page cannot show), a checkpoint from another run, ranks of a
/// data-parallel run that disagree (tested under `mpirun` in
/// `tests/distributed.rs`), a directory that cannot be written, an f64
/// data file.
const WITHOUT_EXAMPLES: &[&str] = &[
    "E-READ-009",
    "E-READ-011",
    "E-RUN-007",
    "E-RUN-011",
    "E-IO-003",
    "E-IO-005",
];

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

    /// Writing succeeds except through one of the files (`notes.txt/x`).
    fn write_file(&mut self, path: &str, _bytes: &[u8]) -> Result<(), String> {
        match FILES
            .iter()
            .find(|(name, _)| path.starts_with(&format!("{name}/")))
        {
            Some((name, _)) => Err(format!(
                "cannot write `{path}`: `{name}` is not a directory"
            )),
            None => Ok(()),
        }
    }
}

/// What `sexpgpu run main.sx` reports for the example's text: the forms'
/// diagnostics, then, if there were none, the first failing run's.
fn diagnostics(text: &str) -> Vec<Diagnostic> {
    let mut session = Session::new(Mode::Run, 0, Box::new(Files));
    let mut found = session.eval_file("main.sx", text);
    if found.is_empty() {
        let mut console = MemoryIo::default();
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

#[test]
fn every_explanation_example_does_what_it_says() {
    let run = diag::run_examples(sexpgpu::codes::all(), |example: &Example| {
        codes_reported(&example.text)
    });
    run.assert_held(30);
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
fn the_runner_reports_what_a_program_does() {
    assert_eq!(codes_reported("(println (+ 1 2))\n"), Vec::<String>::new());
    assert_eq!(codes_reported("(+ 1 \"2\")\n"), ["E-EVAL-003"]);
    // The host has `notes.txt`, which the E-IO examples read.
    assert_eq!(
        codes_reported("(println (load-text \"notes.txt\"))\n"),
        Vec::<String>::new()
    );
}
