//! The VS Code extension builds: `tsc --noEmit` type-checks it against the
//! VS Code and language-client APIs, and `vscode-tmgrammar-test` checks the
//! TextMate grammar's scopes on `editors/vscode/test/*.ss`. Needs Node.js and
//! npm; installs the extension's locked packages with `npm ci` when
//! `node_modules` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn extension_dir() -> PathBuf {
    uitest::support::workspace_root().join("editors/vscode")
}

fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("`{program}` could not run ({e}): this test needs Node.js and npm")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "`{program} {}` failed:\n{text}",
        args.join(" ")
    );
    text
}

#[test]
fn the_extension_type_checks_and_its_grammar_passes_its_tests() {
    let dir = extension_dir();
    if !dir.join("node_modules").join("typescript").exists() {
        run(&dir, "npm", &["ci", "--no-audit", "--no-fund"]);
    }
    run(&dir, "npx", &["--no-install", "tsc", "-p", ".", "--noEmit"]);
    let grammar = run(
        &dir,
        "npx",
        &[
            "--no-install",
            "vscode-tmgrammar-test",
            "-g",
            "syntaxes/shapescript.tmLanguage.json",
            "test/*.ss",
        ],
    );
    assert!(grammar.contains("run successfuly"), "{grammar}");
}
