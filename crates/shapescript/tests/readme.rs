//! The README's sample diagnostic is what the binary prints: the
//! `console` block after the line naming a UI test's file is `shapescript
//! check` on that file, its `# ~` annotations left out (the README shows the
//! program as a user writes it), run beside it so the path is its bare name.
//! `BLESS=1` rewrites the block from the binary, as it rewrites goldens.

use std::path::Path;
use std::process::Command;

use uitest::support::workspace_root;

/// The README's text, the UI test file its sample names, and the byte range
/// of the sample's `console` block (between the fences).
fn sample(readme: &str) -> (String, std::ops::Range<usize>) {
    let named = readme
        .find("(`tests/ui/shapescript/")
        .expect("the README names the UI test its sample comes from");
    let file = readme[named + 2..]
        .split('`')
        .next()
        .expect("a closing backquote")
        .to_string();
    let fence = "```console\n";
    let start = named + readme[named..].find(fence).expect("a console block") + fence.len();
    let end = start
        + readme[start..]
            .find("```")
            .expect("the block's closing fence");
    (file, start..end)
}

/// The source without its UI-test annotations (`  # ~ E0402` at a line's end).
fn without_annotations(source: &str) -> String {
    source
        .lines()
        .map(|line| match line.find("# ~") {
            Some(at) => line[..at].trim_end(),
            None => line,
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// `shapescript check NAME` in a fresh folder holding `source` as `name`.
fn check_output(name: &str, source: &str) -> String {
    let dir = std::env::temp_dir().join(format!("shapescript-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    std::fs::write(dir.join(name), source).expect("write the sample");
    let out = Command::new(env!("CARGO_BIN_EXE_shapescript"))
        .args(["check", name])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run shapescript");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "the sample is a mistake");
    String::from_utf8(out.stderr).expect("UTF-8 diagnostics")
}

#[test]
fn the_readme_sample_is_what_check_prints() {
    let root = workspace_root();
    let readme_path = root.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let (file, block) = sample(&readme);
    let source = std::fs::read_to_string(root.join(&file)).expect("the sample's UI test file");
    let name = Path::new(&file)
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a file name");
    let printed = check_output(name, &without_annotations(&source));
    if std::env::var("BLESS").is_ok_and(|v| v == "1") {
        let mut updated = readme.clone();
        updated.replace_range(block.clone(), &printed);
        std::fs::write(&readme_path, updated).expect("rewrite README.md");
        return;
    }
    assert!(
        readme[block.clone()] == printed,
        "README.md's sample differs from `shapescript check {file}` (BLESS=1 rewrites it):\n--- README\n{}--- binary\n{printed}",
        &readme[block]
    );
}

#[test]
fn annotations_are_left_out_of_the_sample() {
    assert_eq!(
        without_annotations("fn f() = g()  # ~ E0402\nlet x = 1\n"),
        "fn f() = g()\nlet x = 1\n"
    );
}
