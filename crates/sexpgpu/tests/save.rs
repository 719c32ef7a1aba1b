//! `save-npy`, `save-npz` and `save-safetensors` through the `sexpgpu`
//! binary: what a program writes, it (and NumPy, for `.npy` and `.npz`;
//! the `safetensors` format by its own header) reads back exactly; writing
//! leaves no temporary file; `check` writes nothing; a path through a file
//! is `E-IO-004` and leaves the earlier file intact.

mod common;

use common::{assert_has, folder, sexpgpu, text};
use std::process::Command;

const SAVE: &str = r#"(def w (call (fn [] (reshape (* 0.5 (cast (iota [6]) :f32)) [2 3]))))
(def ids (call (fn [] (iota [4] :dtype :i64))))
(def mask (call (fn [] (< (iota [3]) 1))))
(def half (call (fn [] (cast (full [2] 0.1) :bf16))))
(save-npy "w.npy" w)
(save-npz "all.npz" {:w w :ids ids :mask mask})
(save-safetensors "model.safetensors" {:layer {:w w :b half} :ids ids})
(println (to-vec (load-npy "w.npy")))
(let [d (load-npz "all.npz")]
  (println (to-vec (:w d)) (to-vec (:ids d)) (dtype (:ids d)) (to-vec (:mask d))))
(let [m (load-safetensors "model.safetensors")]
  (println (sort (map str (keys m))))
  (println (to-vec (get m :layer/w)) (dtype (get m :layer/b)) (to-vec (get m :layer/b)) (dtype (:ids m))))
"#;

#[test]
fn saved_files_read_back_in_sexpgpu_and_numpy() {
    let dir = folder("save-round-trip");
    std::fs::write(dir.join("save.sx"), SAVE).expect("write the program");
    let out = sexpgpu(&dir, &["run", "save.sx"]);
    assert_eq!(text(&out.stderr), "");
    assert_eq!(
        text(&out.stdout),
        "[[0.0 0.5 1.0] [1.5 2.0 2.5]]\n\
         [[0.0 0.5 1.0] [1.5 2.0 2.5]] [0 1 2 3] :i64 [true false false]\n\
         (:ids :layer/b :layer/w)\n\
         [[0.0 0.5 1.0] [1.5 2.0 2.5]] :bf16 [0.100097656 0.100097656] :i64\n"
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["all.npz", "model.safetensors", "save.sx", "w.npy"],
        "no temporary file is left"
    );
    let check = r#"
import json, struct, numpy as np
w = np.load("w.npy")
assert w.dtype == np.float32 and w.shape == (2, 3), (w.dtype, w.shape)
assert (w == np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5).all()
d = np.load("all.npz")
assert sorted(d.files) == ["ids", "mask", "w"], d.files
assert d["ids"].dtype == np.int64 and list(d["ids"]) == [0, 1, 2, 3]
assert d["mask"].dtype == np.bool_ and list(d["mask"]) == [True, False, False]
assert (d["w"] == w).all()
raw = open("model.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
assert header["layer/b"]["dtype"] == "BF16" and header["layer/b"]["shape"] == [2], header
assert header["ids"]["dtype"] == "I64", header
start, end = header["layer/w"]["data_offsets"]
body = np.frombuffer(raw[8 + n + start:8 + n + end], dtype="<f4").reshape(2, 3)
assert (body == w).all()
print("ok")
"#;
    let py = Command::new(uitest::support::python())
        .arg("-c")
        .arg(check)
        .current_dir(&dir)
        .output()
        .expect("python runs");
    assert_eq!(text(&py.stderr), "");
    assert_eq!(text(&py.stdout), "ok\n");
}

#[test]
fn check_writes_nothing() {
    let dir = folder("save-check");
    std::fs::write(dir.join("save.sx"), SAVE).expect("write the program");
    let out = sexpgpu(&dir, &["check", "save.sx"]);
    // The loads after the saves find no files: that is what `check` says.
    assert!(!dir.join("w.npy").exists());
    assert!(!dir.join("all.npz").exists());
    assert_has(&out.stderr, "E-IO-001");
}

#[test]
fn a_failed_write_is_e_io_004_and_keeps_the_old_file() {
    let dir = folder("save-fails");
    std::fs::write(dir.join("notes.txt"), "kept\n").expect("a file");
    let program = "(def t (call (fn [] (zeros [2]))))\n\
                   (save-npy \"notes.txt/x.npy\" t)\n\
                   (save-npy \"missing/x.npy\" t)\n";
    std::fs::write(dir.join("bad.sx"), program).expect("write the program");
    let out = sexpgpu(&dir, &["run", "bad.sx"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.matches("error[E-IO-004]").count(), 2, "{stderr}");
    assert!(stderr.contains("^^^^^^^^^^^^^^^^ this file"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "kept\n"
    );
}
