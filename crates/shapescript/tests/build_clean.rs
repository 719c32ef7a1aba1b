//! A program that checks clean builds, and the built module imports: every
//! UI test and every example that `shapescript check` passes is built by the
//! real binary, and one Python (`.venv`, with torch) imports every module.

use std::path::Path;
use std::process::{Command, Output};

/// `shapescript args...` run in the file's folder, as the UI tests run it.
fn run(path: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shapescript"))
        .args(args)
        .current_dir(path.parent().unwrap())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn every_clean_ui_test_and_example_builds_and_imports() {
    let paths =
        uitest::support::workspace_files(&["tests/ui/shapescript", "examples/shapescript"], "ss");
    let out_dir =
        std::env::temp_dir().join(format!("shapescript-build-clean-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut failures = Vec::new();
    let mut modules = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let file = path.file_name().unwrap().to_str().unwrap();
        if run(path, &["check", file]).status.code() != Some(0) {
            continue;
        }
        let package = format!("clean{i}");
        let target = out_dir.join(&package);
        let built = run(path, &["build", file, "-o", target.to_str().unwrap()]);
        if !built.status.success() {
            failures.push(format!(
                "{} checks clean but does not build:\n{}",
                path.display(),
                String::from_utf8_lossy(&built.stderr)
            ));
            continue;
        }
        for entry in std::fs::read_dir(&target).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".py") {
                if stem != "__init__" && stem != "shapescript_runtime" {
                    modules.push((path.display().to_string(), format!("{package}.{stem}")));
                }
            }
        }
    }
    assert!(modules.len() >= 10, "built {} modules", modules.len());
    let list: Vec<String> = modules
        .iter()
        .map(|(source, module)| format!("({source:?}, {module:?})"))
        .collect();
    let script = format!(
        "import importlib, sys, traceback\nsys.path.insert(0, {:?})\nfailed = 0\n\
         for source, module in [{}]:\n    try:\n        importlib.import_module(module)\n    \
         except Exception:\n        failed += 1\n        print(source, 'builds a module that does not import:')\n        \
         traceback.print_exc(file=sys.stdout)\nsys.exit(1 if failed else 0)\n",
        out_dir.display().to_string(),
        list.join(", ")
    );
    let imported = Command::new(uitest::support::python())
        .args(["-c", &script])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&out_dir);
    if !imported.status.success() {
        failures.push(format!(
            "{}{}",
            String::from_utf8_lossy(&imported.stdout),
            String::from_utf8_lossy(&imported.stderr)
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
