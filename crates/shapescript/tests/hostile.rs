//! Hostile input ends with a clear error and a non-zero exit, never a
//! signal, a hang or a multi-gigabyte allocation (`docs/fuzzing.md`): each
//! file is checked by the real binary under an address-space limit of 2 GiB
//! (`prlimit`). Deep nesting has its own test (`deep_input.rs`).

/// `shapescript check FILE` on `bytes` fails with a diagnostic or a usage
/// error saying `says`, within a minute.
fn refused(name: &str, bytes: &[u8], says: &str) {
    uitest::hostile::refused(
        env!("CARGO_BIN_EXE_shapescript"),
        name,
        bytes,
        &["check"],
        says,
    );
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
