//! Hostile input ends with a clear error and a non-zero exit, never a
//! signal, a hang or a multi-gigabyte allocation (`docs/fuzzing.md`): each
//! file is run by the real binary under an address-space limit of 2 GiB
//! (`prlimit`), so an allocation past it aborts the run and fails the test.

/// `sexpgpu args... FILE` on `bytes` fails with a diagnostic or a usage
/// error saying `says`, within a minute.
fn refused(name: &str, bytes: &[u8], args: &[&str], says: &str) {
    uitest::hostile::refused(env!("CARGO_BIN_EXE_sexpgpu"), name, bytes, args, says);
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
