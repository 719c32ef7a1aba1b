//! Hostile input under the real binaries (`docs/fuzzing.md`): a file run
//! under an address-space limit of 2 GiB (`prlimit`, util-linux), so an
//! allocation past it aborts the run and fails the test. Test support:
//! panics to fail a test.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `binary args... FILE`, FILE holding `bytes` under the name `name`,
/// with the memory limit; returns the exit code (`None` for a signal),
/// stderr and how long it took.
fn run(binary: &str, name: &str, bytes: &[u8], args: &[&str]) -> (Option<i32>, String, Duration) {
    let program = std::path::Path::new(binary)
        .file_name()
        .map_or("binary".into(), |n| n.to_string_lossy());
    let dir = std::env::temp_dir().join(format!("{program}-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    let started = Instant::now();
    let out = Command::new("prlimit")
        .arg("--as=2147483648")
        .arg(binary)
        .args(args)
        .arg(&path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("prlimit runs (util-linux)");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

/// The file fails with a diagnostic (exit 1) or a usage/IO error (exit
/// 2) whose text holds `says`, within a minute.
pub fn refused(binary: &str, name: &str, bytes: &[u8], args: &[&str], says: &str) {
    let (code, stderr, took) = run(binary, name, bytes, args);
    assert!(
        matches!(code, Some(1 | 2)),
        "{name}: exit {code:?} (a signal is None) after {took:?}\n{stderr}"
    );
    assert!(
        stderr.contains(says),
        "{name}: expected `{says}` in:\n{stderr}"
    );
    assert!(took < Duration::from_secs(60), "{name} took {took:?}");
}
