//! The VS Code extension builds and packages: `npm test` type-checks it
//! against the VS Code and language-client APIs, runs its unit tests
//! (`editors/vscode/test/unit`) and checks the TextMate grammar's scopes on
//! `editors/vscode/test/*.ss` and `*.sx`; the esbuild bundle builds, and `vsce ls`
//! shows the `.vsix` would carry the bundle and no sources, tests or
//! `node_modules`. Needs Node.js and npm; installs the extension's locked
//! packages with `npm ci` when `node_modules` lacks one of them.

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
    let text = uitest::support::printed(&output);
    assert!(
        output.status.success(),
        "`{program} {}` failed:\n{text}",
        args.join(" ")
    );
    text
}

#[test]
fn the_extension_passes_npm_test_and_packages_only_its_bundle() {
    let dir = extension_dir();
    let installed = [
        "typescript",
        "esbuild",
        "@vscode/vsce",
        "vscode-tmgrammar-test",
    ]
    .iter()
    .all(|p| dir.join("node_modules").join(p).exists());
    if !installed {
        run(&dir, "npm", &["ci", "--no-audit", "--no-fund"]);
    }
    let tests = run(&dir, "npm", &["test"]);
    assert!(tests.contains("# fail 0"), "{tests}");
    assert!(tests.contains("run successfuly"), "{tests}");
    run(&dir, "npm", &["run", "bundle"]);
    let listed = run(
        &dir,
        "npx",
        &["--no-install", "vsce", "ls", "--no-dependencies"],
    );
    let files: Vec<&str> = listed.lines().map(str::trim).collect();
    for wanted in [
        "dist/extension.js",
        "package.json",
        "LICENSE",
        "language-configuration.json",
        "language-configuration-sexpgpu.json",
        "syntaxes/shapescript.tmLanguage.json",
        "syntaxes/sexpgpu.tmLanguage.json",
    ] {
        assert!(files.contains(&wanted), "{wanted} missing from {files:?}");
    }
    let unwanted = ["src/", "test/", "node_modules/", "out/", ".vsix"];
    for file in &files {
        assert!(
            !unwanted.iter().any(|u| file.contains(u)),
            "`{file}` would be packaged: {files:?}"
        );
    }
}
