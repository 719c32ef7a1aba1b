//! Every example in a ShapeScript explanation runs: each `Wrong` example
//! (`shapescript explain CODE`, `docs/shapescript/errors.md`) must produce
//! its code, and each `Fixed` one must check and build with no diagnostic
//! at all. An example written as several files starts each with a
//! `# name.ss` line; a lone example is `main.ss`, beside a `vision.ss` that
//! examples may import.

use check::{MemoryFiles, Options};
use diag::{Example, ExampleKind, SourceMap};
use std::path::PathBuf;

/// The file examples import without writing it out.
const VISION: &str = "dim D = 768\ndim P = 16\n";

/// The example's files: `# name.ss` headers split it, else it is `main.ss`.
fn files_of(example: &Example) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    for line in example.text.lines() {
        let header = line
            .strip_prefix("# ")
            .filter(|name| name.ends_with(".ss") && !name.contains(' '));
        match (header, files.last_mut()) {
            (Some(name), _) => files.push((name.to_string(), String::new())),
            (None, Some((_, text))) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, None) => files.push(("main.ss".into(), format!("{line}\n"))),
        }
    }
    files
}

/// The codes checking, then building, the example reports.
fn codes_reported(example: &Example) -> Vec<String> {
    let written = files_of(example);
    let mut files = MemoryFiles::new();
    files.insert("vision.ss", VISION);
    for (name, text) in &written {
        files.insert(name, text.as_str());
    }
    let roots: Vec<PathBuf> = written.iter().map(|(name, _)| name.into()).collect();
    let mut map = SourceMap::new();
    let checked = check::check(&mut map, &files, &roots, &Options::default());
    let mut codes: Vec<String> = checked
        .diagnostics
        .iter()
        .map(|d| d.code.id.to_string())
        .collect();
    if codes.is_empty() {
        if let Err(diagnostics) = pygen::generate(&checked, &map, &pygen::Options::default()) {
            codes.extend(diagnostics.iter().map(|d| d.code.id.to_string()));
        }
    }
    codes
}

#[test]
fn every_explanation_example_does_what_it_says() {
    let run = diag::run_examples(check::codes::all(), codes_reported);
    run.assert_held(30);
}

#[test]
fn an_example_may_be_several_files() {
    let example = Example {
        kind: ExampleKind::Wrong,
        text: "# a.ss\nimport b\n# b.ss\nimport a\n".into(),
    };
    assert_eq!(
        files_of(&example),
        [
            ("a.ss".to_string(), "import b\n".to_string()),
            ("b.ss".to_string(), "import a\n".to_string())
        ]
    );
    assert!(codes_reported(&example).contains(&"E0202".to_string()));
}
