//! What the tests that run the `sexpgpu` binary in a folder of their own
//! share: the folder, the run and its output as text.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder for one test.
pub fn folder(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder for the test");
    dir
}

/// The binary run with `args` in `dir`.
pub fn sexpgpu(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sexpgpu"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that `printed` (a run's stdout or stderr) has `want` in it,
/// showing all of it when not.
#[track_caller]
pub fn assert_has(printed: &[u8], want: &str) {
    let printed = text(printed);
    assert!(printed.contains(want), "{printed}");
}

/// The small training program the run tests share (`distributed.rs`,
/// `cli.rs`'s progress bar): a line fit to 32 random rows in
/// batches of 8 (4 rows per rank), AdamW, a metric.
pub const FIT: &str = r#"(require nn)
(def data (call (fn () {:x (normal [32 4]) :y (normal [32 1])})))
(defmodel line [n] {:w (normal [n 1]) :b (zeros [1])})
(defrun fit
  :seed 3
  :model (line 4)
  :data (nn/batches {:x (:x data) :y (:y data)} :size 8 :shuffle true)
  :loss (fn (p batch)
          (let [d (- (+ (matmul (:x batch) (:w p)) (:b p)) (:y batch))]
            (metric :mae (nn/mean (abs d)))
            (nn/mean (* d d))))
  :optimizer (nn/adamw :lr 0.05)
  :steps 6
  :log-every 1)
"#;
