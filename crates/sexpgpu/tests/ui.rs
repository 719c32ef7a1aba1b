//! Golden UI tests: every `tests/ui/sexpgpu/**.sx` is run through the
//! `sexpgpu` binary and its stderr/stdout compared with the files beside it.

#[test]
fn ui() {
    uitest::Suite {
        root: uitest::workspace_root().join("tests/ui/sexpgpu"),
        extension: "sx",
        comment: ";",
        binary: env!("CARGO_BIN_EXE_sexpgpu").into(),
        default_args: vec!["run".into()],
        json_args: vec!["--format".into(), "json".into()],
    }
    .run();
}
