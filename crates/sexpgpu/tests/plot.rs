//! `sexpgpu plot` and `--threads` through the binary: a run writes its
//! metrics (on one thread), `plot` draws them as an SVG with a panel per
//! metric; wrong inputs exit 2 with a message; piped runs print plain step
//! lines, never a progress bar.

mod common;

use common::{folder, sexpgpu, text};

const TRAIN: &str = r#"(require nn)
(defmodel line [n] {:w (normal [n 1])})
(def data (call (fn () {:x (normal [8 3]) :y (normal [8 1])})))
(defrun fit
  :model (line 3)
  :data data
  :loss (fn (p b)
          (let [e (- (matmul (:x b) (:w p)) (:y b))]
            (metric :error (nn/mean (abs e)))
            (nn/mean (* e e))))
  :optimizer (nn/sgd :lr 0.1)
  :steps 6
  :log-every 2
  :eval (fn (p b) {:test-loss (nn/mean (abs (- (matmul (:x b) (:w p)) (:y b))))})
  :eval-data data
  :eval-every 3)
"#;

#[test]
fn a_run_s_metrics_plot_as_one_panel_per_metric() {
    let dir = folder("plot-run");
    std::fs::write(dir.join("train.sx"), TRAIN).expect("write the program");
    let run = sexpgpu(
        &dir,
        &["run", "train.sx", "--threads", "1", "--metrics", "m.jsonl"],
    );
    assert_eq!(
        text(&run.stderr),
        "",
        "no progress bar when stderr is a pipe"
    );
    let stdout = text(&run.stdout);
    assert!(stdout.contains("step 2/6  loss "), "{stdout}");
    assert!(!stdout.contains('\r'), "plain lines only: {stdout:?}");

    let plot = sexpgpu(&dir, &["plot", "m.jsonl", "-o", "curves.svg"]);
    assert_eq!(text(&plot.stderr), "");
    assert_eq!(plot.status.code(), Some(0));
    let svg = std::fs::read_to_string(dir.join("curves.svg")).expect("the image");
    assert!(svg.starts_with("<svg"), "{svg}");
    for title in ["loss", "error", "test-loss"] {
        assert!(svg.contains(&format!("\n{title}\n</text>")), "{title}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("the folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn plot_refuses_what_it_cannot_draw() {
    let dir = folder("plot-bad");
    std::fs::write(dir.join("m.jsonl"), "{\"step\":1,\"loss\":2.0}\n").expect("a file");
    std::fs::write(dir.join("notes.txt"), "hello\n").expect("a file");
    let cases = [
        (
            vec!["plot", "m.jsonl", "-o", "curves.png"],
            "error: cannot draw curves.png: the output must be an .svg file\n",
        ),
        (
            vec!["plot", "notes.txt", "-o", "c.svg"],
            "error: notes.txt: line 1: not a JSON object (expected value at line 1 column 1)\n",
        ),
    ];
    for (args, message) in cases {
        let out = sexpgpu(&dir, &args);
        assert_eq!(text(&out.stderr), message);
        assert_eq!(out.status.code(), Some(2));
    }
    let missing = sexpgpu(&dir, &["plot", "none.jsonl", "-o", "c.svg"]);
    assert!(text(&missing.stderr).starts_with("error: cannot read none.jsonl"));
    assert_eq!(missing.status.code(), Some(2));
    let zero = sexpgpu(&dir, &["run", "x.sx", "--threads", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(text(&zero.stderr).contains("--threads"));
}
