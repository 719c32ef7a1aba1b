//! Golden UI tests: every `tests/ui/sexpgpu/**.sx` is run through the
//! `sexpgpu` binary and its stderr/stdout compared with the files beside it.

#[test]
fn ui() {
    uitest::Suite::of_command(env!("CARGO_BIN_EXE_sexpgpu"), "run").run();
}
