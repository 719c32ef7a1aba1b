//! Hostile input ends with a clear error and a non-zero exit, never a
//! signal, a hang or a multi-gigabyte allocation (`docs/fuzzing.md`): each
//! file is run by the real binary under an address-space limit of 2 GiB
//! (`prlimit`), so an allocation past it aborts the run and fails the test.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `sexpgpu args... FILE` on `bytes` under the memory limit; returns
/// the exit code (`None` for a signal), stderr and how long it took.
fn run(name: &str, bytes: &[u8], args: &[&str]) -> (Option<i32>, String, Duration) {
    let dir = std::env::temp_dir().join(format!("sexpgpu-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    let started = Instant::now();
    let out = Command::new("prlimit")
        .arg("--as=2147483648")
        .arg(env!("CARGO_BIN_EXE_sexpgpu"))
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
fn refused(name: &str, bytes: &[u8], args: &[&str], says: &str) {
    let (code, stderr, took) = run(name, bytes, args);
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

#[test]
fn nesting_ten_thousand_deep() {
    let deep = format!("{}{}", "(".repeat(10_000), ")".repeat(10_000));
    refused("deep.sx", deep.as_bytes(), &["check"], "error");
    let vectors = format!("(def v {}{})", "[".repeat(10_000), "]".repeat(10_000));
    refused("vectors.sx", vectors.as_bytes(), &["check"], "error");
}

#[test]
fn a_line_of_a_megabyte() {
    let numbers = format!(
        "(def v [{}])\n(println (count v)) (undefined-name)",
        "1 ".repeat(500_000)
    );
    refused("long.sx", numbers.as_bytes(), &["run"], "E-EVAL-001");
}

#[test]
fn invalid_utf8_is_refused_as_text() {
    refused("bytes.sx", b"(println \"\xff\xfe\")", &["run"], "not UTF-8");
}

#[test]
fn shapes_whose_element_count_overflows() {
    let big = "(defgraph g [(x [4294967296 4294967296] :f32)] (sum x))\n";
    refused("overflow.sx", big.as_bytes(), &["check"], "is too large");
    let made = "(println (shape (zeros [100000 100000 100000])))\n";
    refused("made.sx", made.as_bytes(), &["run"], "is too large");
}

#[test]
fn a_loop_that_never_ends() {
    let endless = "(loop [i 0] (recur (+ i 1)))\n";
    refused(
        "endless.sx",
        endless.as_bytes(),
        &["--max-steps", "200000", "check"],
        "E-EVAL-014",
    );
}
