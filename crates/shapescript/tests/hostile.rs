//! Hostile input ends with a clear error and a non-zero exit, never a
//! signal, a hang or a multi-gigabyte allocation (`docs/fuzzing.md`): each
//! file is checked by the real binary under an address-space limit of 2 GiB
//! (`prlimit`). Deep nesting has its own test (`deep_input.rs`).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn refused(name: &str, bytes: &[u8], says: &str) {
    let dir = std::env::temp_dir().join(format!("shapescript-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    let started = Instant::now();
    let out = Command::new("prlimit")
        .arg("--as=2147483648")
        .arg(env!("CARGO_BIN_EXE_shapescript"))
        .arg("check")
        .arg(&path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("prlimit runs (util-linux)");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{name}: exit {:?} (a signal is None) after {took:?}\n{stderr}",
        out.status.code()
    );
    assert!(
        stderr.contains(says),
        "{name}: expected `{says}` in:\n{stderr}"
    );
    assert!(took < Duration::from_secs(60), "{name} took {took:?}");
}

#[test]
fn a_line_of_a_megabyte() {
    let long = format!("fn f(x: [n]) -> [n] = {}\n", vec!["x"; 200_000].join(" + "));
    refused("long.ss", long.as_bytes(), "E0103");
}

#[test]
fn invalid_utf8_is_refused_as_text() {
    refused("bytes.ss", b"fn f(x: [n]) -> [n] = x \xff\xfe\n", "UTF-8");
}

#[test]
fn sizes_whose_product_overflows() {
    let big = "fn f(x: [100000000000000000000 100000000000000000000]) -> [] = sum(x)\nfn g() -> [10000000000000000000000000000000000000000] = zeros([10000000000000000000000000000000000000000])\n";
    refused("overflow.ss", big.as_bytes(), "error[E0");
}

#[test]
fn fifty_thousand_errors_print_a_hundred() {
    let many: String = (0..50_000)
        .map(|k| format!("fn f{k}(x: [n]) -> [m] = x\n"))
        .collect();
    refused("many.ss", many.as_bytes(), "--error-limit");
}
