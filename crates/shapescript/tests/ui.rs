//! The ShapeScript UI tests: every `tests/ui/shapescript/**.ss` is checked by
//! the real binary; its output must match the `.stderr` golden beside it and
//! its `# ~ CODE` annotations.

#[test]
fn ui() {
    uitest::Suite {
        root: uitest::workspace_root().join("tests/ui/shapescript"),
        extension: "ss",
        comment: "#",
        binary: env!("CARGO_BIN_EXE_shapescript").into(),
        default_args: vec!["check".into()],
        json_args: vec!["--format".into(), "json".into()],
    }
    .run();
}
