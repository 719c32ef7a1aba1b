//! The language servers under a real client, headless Neovim (the Debian
//! package `neovim`, which `scripts/test` installs): a Lua script drives
//! Neovim's LSP client against the server, with the client half both
//! languages share (`neovim_client.lua`, given as `$CLIENT`), and writes
//! what it saw as JSON, which the test checks. The tests run without libtest's harness (Neovim
//! needs the process to itself), so `harness` stands in for it. Test
//! support: panics to fail a test.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The `main` of a test without libtest's harness: runs `test` (named
/// `name`) unless `cargo test FILTER` names another, printing what libtest prints.
pub fn harness(name: &str, test: fn()) {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !args.is_empty() && !args.iter().any(|a| name.contains(a.as_str())) {
        println!("test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out");
        return;
    }
    println!("running 1 test");
    test();
    println!("test {name} ... ok");
    println!("\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out");
}

/// A fresh project folder `name` (in the temporary folder) holding `files`.
pub fn project(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    for (file, text) in files {
        std::fs::write(dir.join(file), text).expect("write a project file");
    }
    dir
}

/// Removes a project folder, its read-only library folder `library` included.
pub fn remove_project(dir: &Path) {
    make_writable(&dir.join("library"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `script` in headless Neovim with `PROJECT` and `SERVER` (the
/// server's executable) in its environment, and returns the JSON it wrote
/// to `project/result.json`; fails when the script reported an error or
/// did not see the server shut down cleanly (its `stopped`).
pub fn drive(script: &Path, project: &Path, server: &str) -> Value {
    let nvim = ["/usr/bin/nvim", "nvim"]
        .into_iter()
        .find(|n| Command::new(n).arg("--version").output().is_ok())
        .expect("Neovim is needed for this test: install the Debian package `neovim` (scripts/test does)");
    let status = Command::new(nvim)
        .args(["--headless", "-u", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("PROJECT", project)
        .env("SERVER", server)
        .env(
            "CLIENT",
            concat!(env!("CARGO_MANIFEST_DIR"), "/src/neovim_client.lua"),
        )
        .env("XDG_STATE_HOME", project.join("state"))
        .env("XDG_DATA_HOME", project.join("data"))
        .status()
        .expect("nvim runs");
    assert!(status.success(), "nvim exited with {status}");
    let text =
        std::fs::read_to_string(project.join("result.json")).expect("the script wrote result.json");
    let result: Value = serde_json::from_str(&text).expect("result.json is JSON");
    assert!(
        result.get("error").is_none(),
        "{} failed: {}",
        script.display(),
        result["error"]
    );
    assert_eq!(
        result["stopped"],
        Value::Bool(true),
        "the server did not shut down cleanly"
    );
    result
}

/// Makes every file of `dir` writable again (the read-only library files),
/// so the folder can be removed.
fn make_writable(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if let Ok(meta) = entry.metadata() {
            let mut permissions = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            let _ = std::fs::set_permissions(entry.path(), permissions);
        }
    }
}
