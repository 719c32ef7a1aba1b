//! The book's runnable examples: every `<!-- NAME example: begin -->` ...
//! `<!-- NAME example: end -->` section of a page under `docs/sexpgpu/`
//! holds a ```` ```clojure ```` program and a ```` ```text ```` block of what
//! it prints; the test runs the program through the `sexpgpu` binary and
//! compares.

use std::path::Path;
use std::process::Command;

const BEGIN: &str = " example: begin -->";
const END: &str = " example: end -->";

/// The first fenced block of `kind` in `text`.
fn fenced<'a>(text: &'a str, kind: &str) -> Option<&'a str> {
    let open = format!("```{kind}\n");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find("```")?;
    Some(&text[start..start + len])
}

/// Each example of a page: its name, program and expected output.
fn examples(page: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(at) = rest.find(BEGIN) {
        let name_start = rest[..at].rfind("<!-- ").expect("an opening comment") + 5;
        let name = rest[name_start..at].to_string();
        let body_start = at + BEGIN.len();
        let body_len = rest[body_start..]
            .find(END)
            .unwrap_or_else(|| panic!("example `{name}` has no end marker"));
        let body = &rest[body_start..body_start + body_len];
        let program = fenced(body, "clojure").expect("a clojure block");
        let expected = fenced(body, "text").expect("a text block");
        out.push((name, program.to_string(), expected.to_string()));
        rest = &rest[body_start + body_len..];
    }
    out
}

fn run(dir: &Path, name: &str, program: &str) -> String {
    let file = dir.join(format!("{}.sx", name.replace(' ', "-")));
    std::fs::write(&file, program).expect("write the example");
    let out = Command::new(env!("CARGO_BIN_EXE_sexpgpu"))
        .arg("run")
        .arg(&file)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "example `{name}` reported errors"
    );
    assert_eq!(out.status.code(), Some(0), "example `{name}`");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn book_examples_print_what_the_book_shows() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-examples");
    std::fs::create_dir_all(&dir).expect("a folder for the examples");
    let mut ran = 0;
    for page in uitest::support::workspace_files(&["docs/sexpgpu"], "md") {
        let text = std::fs::read_to_string(&page).expect("read the page");
        for (name, program, expected) in examples(&text) {
            let printed = run(&dir, &name, &program);
            assert_eq!(printed, expected, "{}: example `{name}`", page.display());
            ran += 1;
        }
    }
    assert!(ran >= 1, "the book has no runnable examples");
}
