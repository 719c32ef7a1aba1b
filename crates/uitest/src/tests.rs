//! End-to-end tests of the harness against a stand-in compiler: a shell
//! script that prints the `;err`, `;out` and `;json` lines of its input.

use super::*;
use expect_test::expect;
use std::fs;

/// A fresh folder under the system temp folder, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("uitest-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("temp folder");
        TempDir(path)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` at `relative`, creating folders.
    fn write(&self, relative: &str, text: &str) {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().expect("has a folder")).expect("folder");
        fs::write(path, text).expect("write");
    }

    fn read(&self, relative: &str) -> Option<String> {
        fs::read_to_string(self.0.join(relative)).ok()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const FAKE_COMPILER: &str = r#"#!/bin/sh
# A stand-in compiler: prints the lines of its input file marked `;err`,
# `;out` (human run) or `;json` (with --format json), exits with `;exit N`.
for last in "$@"; do :; done
case " $* " in
  *" --format json "*) sed -n 's/^;json //p' "$last" >&2 ;;
  *) sed -n 's/^;err //p' "$last" >&2; sed -n 's/^;out //p' "$last" ;;
esac
if grep -q '^;show-args' "$last"; then echo "args: $*"; fi
if grep -q '^;hang' "$last"; then exec sleep 30; fi
code=$(sed -n 's/^;exit //p' "$last")
exit "${code:-0}"
"#;

/// A suite of `.sx` tests under `dir/ui`, run by the fake compiler.
fn suite(dir: &TempDir) -> Suite {
    let script = dir.path().join("fake.sh");
    fs::write(&script, FAKE_COMPILER).expect("script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    Suite {
        root: dir.path().join("ui"),
        extension: "sx",
        comment: ";",
        binary: script,
        default_args: vec!["check".into()],
        json_args: vec!["--format".into(), "json".into()],
    }
}

fn json(code: &str, severity: &str, line: u32) -> String {
    format!(
        r#";json {{"code":"{code}","severity":"{severity}","message":"m","file":"t.sx","primary":{{"file":"t.sx","line_start":{line}}}}}"#
    )
}

const SHORT: Duration = Duration::from_secs(5);

#[test]
fn a_correct_suite_passes() {
    let dir = TempDir::new("passing");
    let suite = suite(&dir);
    let error = json("E-DIM-001", "error", 3).replace("t.sx", "bad.sx");
    dir.write(
        "ui/bad.sx",
        &format!(";err error[E-DIM-001]: bad\n{error}\n(matmul x w) ; ~ E-DIM-001\n;exit 1\n"),
    );
    dir.write("ui/bad.stderr", "error[E-DIM-001]: bad\n");
    dir.write("ui/nested/clean.sx", "(+ 1 2)\n;out 3\n");
    dir.write("ui/nested/clean.stdout", "3\n");
    let hint = json("H1", "hint", 2).replace("t.sx", "args.sx");
    dir.write(
        "ui/nested/args.sx",
        &format!(";; ui-args: run --steps 2\n;show-args\n{hint}\n; ~^^ H1\n; ~? E9\n;json {{\"code\":\"E9\",\"severity\":\"warning\"}}\n"),
    );
    dir.write("ui/nested/args.stdout", "args: run --steps 2 args.sx\n");
    dir.write("ui/exit.sx", "; ui-exit: 3\n;exit 3\n");
    let report = suite.check(false, SHORT).unwrap();
    assert_eq!((report.tests, report.failures), (4, Vec::<String>::new()));
}

#[test]
fn every_failure_is_reported() {
    let dir = TempDir::new("failing");
    let suite = suite(&dir);
    dir.write(
        "ui/golden.sx",
        ";err error: new wording\n;err   --> golden.sx:1:1\n",
    );
    dir.write(
        "ui/golden.stderr",
        "error: old wording\n  --> golden.sx:1:1\n",
    );
    dir.write("ui/missing.sx", ";out hello\n");
    let reported = json("E1", "error", 2).replace("t.sx", "annotations.sx");
    dir.write(
        "ui/annotations.sx",
        &format!("x ; ~ E2\n{reported}\n;exit 1\n; ~ e3\n"),
    );
    dir.write("ui/exit.sx", ";exit 2\n");
    dir.write("ui/orphan.stderr", "left behind\n");
    dir.write("ui/hang.sx", ";hang\n");
    dir.write(
        "ui/panic.sx",
        ";err thread 'main' panicked at src/main.rs:1:1:\n;exit 101\n; ui-exit: 101\n",
    );
    dir.write(
        "ui/panic.stderr",
        "thread 'main' panicked at src/main.rs:1:1:\n",
    );
    let report = suite.check(false, Duration::from_millis(1500)).unwrap();
    assert_eq!(report.tests, 6);
    expect![[r#"
        orphan.stderr: orphaned golden file: no test source of the same name beside it

        annotations.sx:
          - line 4: annotation `~ e3` names no code (codes look like E0402 or E-DIM-001)
          - annotated but not reported: line 1: E2
          - reported but not annotated: line 2: E1 (m)

        exit.sx:
          - exit code: expected 0, got 2
          - exit code of the JSON run (`fake.sh check --format json exit.sx`): expected 0, got 2

        golden.sx:
          - output differs from golden.stderr (- expected, + actual):
            -error: old wording
            +error: new wording
               --> golden.sx:1:1

        hang.sx:
          - `fake.sh check --format json hang.sx`: timed out after 1.5 s (killed)
          - `fake.sh check hang.sx`: timed out after 1.5 s (killed)

        missing.sx:
          - output differs from missing.stdout (missing, so expected empty) (- expected, + actual):
            +hello

        panic.sx:
          - the command panicked: thread 'main' panicked at src/main.rs:1:1:
    "#]]
    .assert_eq(&report.failures.join("\n"));
}

#[test]
fn bless_rewrites_goldens_but_not_annotations() {
    let dir = TempDir::new("bless");
    let suite = suite(&dir);
    dir.write("ui/changed.sx", ";err new\n;out printed\n");
    dir.write("ui/changed.stderr", "old\n");
    dir.write("ui/quiet.sx", "\n");
    dir.write("ui/quiet.stderr", "stale\n");
    dir.write("ui/quiet.stdout", "");
    dir.write("ui/orphan.stdout", "stale\n");
    dir.write(
        "ui/unannotated.sx",
        &format!(
            "{}\n",
            json("E1", "warning", 1).replace("t.sx", "unannotated.sx")
        ),
    );

    let blessed = suite.check(true, SHORT).unwrap();
    expect![[r#"
        [
            "unannotated.sx:\n  - reported but not annotated: line 1: E1 (m)\n",
        ]
    "#]]
    .assert_debug_eq(&blessed.failures);
    assert_eq!(dir.read("ui/changed.stderr").as_deref(), Some("new\n"));
    assert_eq!(dir.read("ui/changed.stdout").as_deref(), Some("printed\n"));
    assert_eq!(
        (dir.read("ui/quiet.stderr"), dir.read("ui/quiet.stdout")),
        (None, None)
    );
    assert_eq!(dir.read("ui/orphan.stdout"), None);

    let after = suite.check(false, SHORT).unwrap();
    assert_eq!(after.failures, blessed.failures);
}

#[test]
fn run_panics_with_the_summary() {
    let dir = TempDir::new("run");
    let suite = suite(&dir);
    dir.write("ui/a.sx", "; ~ E1\n");
    let message = std::panic::catch_unwind(|| suite.run()).expect_err("a failing suite panics");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.starts_with("1 of 1 UI tests under "), "{message}");
    assert!(
        message.contains("a.sx:\n  - annotated but not reported: line 1: E1\n"),
        "{message}"
    );

    fs::write(dir.path().join("ui/a.sx"), "; no annotations\n").unwrap();
    suite.run();
}

#[test]
fn an_empty_or_missing_root_is_an_error() {
    let dir = TempDir::new("empty");
    let suite = suite(&dir);
    let missing = suite.check(false, SHORT).err().unwrap_or_default();
    assert!(missing.starts_with("cannot list "), "{missing}");
    dir.write("ui/readme.md", "no tests here\n");
    assert_eq!(
        suite.check(false, SHORT).err().as_deref(),
        Some("no `*.sx` test files found")
    );
}

#[test]
fn workspace_root_holds_the_workspace_manifest() {
    let root = workspace_root();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("[workspace]"));
    assert!(root.join("crates/uitest/Cargo.toml").is_file());
}
