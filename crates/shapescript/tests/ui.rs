//! The ShapeScript UI tests: every `tests/ui/shapescript/**.ss` is checked by
//! the real binary; its output must match the `.stderr` golden beside it and
//! its `# ~ CODE` annotations.

#[test]
fn ui() {
    uitest::Suite::of_command(env!("CARGO_BIN_EXE_shapescript"), "check").run();
}
