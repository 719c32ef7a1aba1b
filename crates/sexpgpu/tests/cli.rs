//! End-to-end tests of the `sexpgpu` binary: exit codes, I/O errors, JSON
//! diagnostics, `ir`, `explain`, and the REPL over piped stdin.

mod common;

use common::{assert_has, text};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn sexpgpu(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sexpgpu"))
        .args(args)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().expect("piped");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("write stdin");
    drop(input);
    child.wait_with_output().expect("the binary finishes")
}

/// Writes `text` to a file in the test's temporary folder; returns its name.
fn file(name: &str, text: &str) -> String {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).expect("write test file");
    name.to_string()
}

/// A command that stopped before any work: `stderr` printed, exit code 2.
#[track_caller]
fn assert_refused(out: &Output, stderr: &str) {
    assert_eq!(text(&out.stderr), stderr);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn run_prints_and_exits_zero_where_check_runs_nothing_and_prints_nothing() {
    let f = file(
        "ok.sx",
        "(defgraph g [(x [2 2] :f32)] x)\n(println (to-vec (call g [[1 2] [3 4]])))\n",
    );
    let out = sexpgpu(&["run", &f], None);
    assert_eq!(text(&out.stdout), "[[1.0 2.0] [3.0 4.0]]\n");
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    let out = sexpgpu(&["check", &f], None);
    assert_eq!(text(&out.stdout), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn diagnostics_exit_one() {
    let f = file("bad.sx", "(println (+ 1 \"a\"))\n");
    let out = sexpgpu(&["run", &f], None);
    assert!(
        text(&out.stderr).starts_with("error[E-EVAL-003]"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1));
    let out = sexpgpu(&["check", &f], None);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn missing_file_is_an_io_error_with_exit_two() {
    let out = sexpgpu(&["run", "no-such-file.sx"], None);
    assert_refused(
        &out,
        "error: cannot read no-such-file.sx: No such file or directory\n",
    );
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(sexpgpu(&["frobnicate"], None).status.code(), Some(2));
    assert_eq!(sexpgpu(&["run"], None).status.code(), Some(2));
    assert_eq!(
        sexpgpu(&["--format", "xml", "check", "x.sx"], None)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn json_diagnostics_are_one_object_per_line() {
    let f = file(
        "two.sx",
        "(println (undefined-a))\n(println (undefined-b))\n",
    );
    let out = sexpgpu(&["check", &f, "--format", "json"], None);
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(line).expect("valid JSON");
        assert_eq!(value["code"], "E-EVAL-001");
        assert_eq!(value["primary"]["file"], "two.sx");
    }
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn ir_prints_graphs_and_refuses_unknown_names() {
    let f = file("ir.sx", "(defgraph double [(x [2] :f32)] (* 2.0 x))\n");
    let out = sexpgpu(&["ir", &f], None);
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("graph double (inputs 1, params 0, nodes 4)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("= mul %2 %0"), "{stdout}");
    assert_eq!(out.status.code(), Some(0));
    let out = sexpgpu(&["ir", &f, "--graph", "triple"], None);
    assert_refused(
        &out,
        "error: no graph named `triple` in ir.sx (graphs: double)\n",
    );
}

#[test]
fn ir_cost_models_each_kernel_by_kind_and_in_total_on_a_gpu_of_the_table() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/sexpgpu/char-transformer.sx"
    );
    let args = [
        "ir", example, "--graph", "kjv/step", "--cost", "--gpu", "h200",
    ];
    let out = sexpgpu(&args, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("cost of kjv/step on NVIDIA H200 SXM (4800 GB/s; dense TFLOPS: bf16 989.5, tf32 494.5, f32 67.0)"),
        "{stdout}"
    );
    let kernels = stdout.lines().filter(|l| l.starts_with("  k")).count();
    let kinds: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "by kind:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    for kind in ["matmul", "fused", "attention", "optimizer"] {
        let prefix = format!("  {kind} ");
        assert!(kinds.iter().any(|l| l.starts_with(&prefix)), "{stdout}");
    }
    let by_kind: usize = kinds
        .iter()
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    let total = stdout.lines().last().unwrap();
    let words: Vec<&str> = total.split_whitespace().collect();
    assert_eq!(
        words[..3],
        ["total:", &kernels.to_string(), "launches"],
        "{total}"
    );
    assert_eq!(by_kind, kernels, "{stdout}");
    assert!(total.contains(" 100.0%  (bytes "), "{total}");
    // A GPU the table lacks is named with the table's keys, before any work.
    let out = sexpgpu(&["ir", example, "--cost", "--gpu", "v100"], None);
    assert_refused(
        &out,
        "error: unknown GPU `v100` (known: h100, h200, a100, l4)\n",
    );
    assert_eq!(text(&out.stdout), "");
    let out = sexpgpu(&["ir", example, "--cost"], None);
    assert_eq!(out.status.code(), Some(2));
    assert_has(&out.stderr, "--gpu <GPU>");
}

#[test]
fn explain_knows_every_code() {
    for code in sexpgpu::codes::all() {
        let out = sexpgpu(&["explain", code.id], None);
        assert_eq!(out.status.code(), Some(0));
        assert!(text(&out.stdout).starts_with(&format!("{}: {}", code.id, code.title)));
    }
    let out = sexpgpu(&["explain", "E-NOPE-999"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn explain_into_a_closed_pipe_exits_quietly() {
    // `sexpgpu explain CODE | head -1` must not panic on the broken pipe.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_sexpgpu"))
        .args(["explain", sexpgpu::codes::all()[0].id])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn repl_reads_piped_forms_across_lines() {
    let input = "(def x 2)\n(+ x\n   3)\n(undefined)\n(println \"hi\")\n[1 2.5]\n";
    let out = sexpgpu(&["repl"], Some(input));
    assert_eq!(text(&out.stdout), "=> x\n=> 5\nhi\n=> nil\n=> [1 2.5]\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error[E-EVAL-001]: unbound name `undefined`\n  --> <repl:3>:1:2"),
        "{stderr}"
    );
    // The REPL carries on after a mistake: it says only the mistake.
    assert!(!stderr.contains("aborting"), "{stderr}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn every_example_runs_clean() {
    let dir = uitest::support::workspace_root().join("examples/sexpgpu");
    let mut ran = 0;
    for entry in std::fs::read_dir(&dir).expect("examples/sexpgpu exists") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "sx") {
            let shown = path.display().to_string();
            // Training examples run for minutes; three steps show they work.
            let out = sexpgpu(&["run", &shown, "--steps", "3"], None);
            assert_eq!(text(&out.stderr), "", "{shown}");
            assert_eq!(out.status.code(), Some(0), "{shown}");
            assert!(!out.stdout.is_empty(), "{shown} prints its results");
            ran += 1;
        }
    }
    assert!(ran > 0, "no examples found in {}", dir.display());
}

#[test]
fn seed_decides_the_random_streams() {
    let f = file(
        "seeded.sx",
        "(defgraph g [(x [1] :f32)] (normal [3]))\n(println (to-vec (call g [0])))\n",
    );
    let draw = |seed: &str| text(&sexpgpu(&["run", &f, "--seed", seed], None).stdout);
    assert_eq!(draw("7"), draw("7"));
    assert_ne!(draw("7"), draw("8"));
    assert_eq!(draw("0"), text(&sexpgpu(&["run", &f], None).stdout));
}

const TRAIN: &str = r#"(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (normal [8 3]) :y (normal [8 1])}))
  :loss (fn (p b) (nn/mean (* (- (matmul (:x b) (:w p)) (:y b)) (- (matmul (:x b) (:w p)) (:y b)))))
  :optimizer (nn/sgd :lr 0.1)
  :steps 6
  :log-every 2
  :checkpoint "train-out")
(defrun other
  :model (line 3)
  :data (call (fn () {:x (normal [8 3])}))
  :loss (fn (p b) (sum (:w p)))
  :optimizer (nn/sgd :lr 0.1)
  :steps 1)
"#;

#[test]
fn run_writes_metrics_and_its_own_checkpoints() {
    let f = file("train.sx", TRAIN);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let out = sexpgpu(
        &[
            "run",
            &f,
            "--run",
            "fit",
            "--metrics",
            "train-metrics.jsonl",
        ],
        None,
    );
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("run fit: 3 parameters, 6 steps"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("run other"),
        "--run picks one run: {stdout}"
    );
    let metrics = std::fs::read_to_string(dir.join("train-metrics.jsonl")).expect("metrics");
    let steps: Vec<u64> = metrics
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["step"]
                .as_u64()
                .expect("step")
        })
        .collect();
    assert_eq!(steps, [2, 4, 6]);
    for name in ["fit-init.safetensors", "fit.safetensors"] {
        assert!(dir.join("train-out").join(name).is_file(), "{name}");
    }
}

#[test]
fn run_explains_what_it_cannot_do() {
    let f = file("train2.sx", TRAIN);
    let out = sexpgpu(&["run", &f, "--run", "missing"], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: no run named `missing` in train2.sx (runs: fit, other)\n"
    );
    let out = sexpgpu(
        &["run", &f, "--run", "fit", "--resume", "no-such-dir"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with(
            "error[E-IO-001]: cannot resume run `fit`: cannot read no-such-dir/fit.safetensors"
        ),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn resuming_past_the_last_step_says_so() {
    let f = file("resume.sx", &TRAIN.replace("train-out", "resume-out"));
    let out = sexpgpu(&["run", &f, "--run", "fit"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("resume-out");
    let dir = dir.to_str().expect("utf-8 path");
    let out = sexpgpu(
        &["run", &f, "--run", "fit", "--resume", dir, "--steps", "4"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "run fit: the checkpoint is at step 6 of 4: nothing left to train (ask for more steps with `--steps`)"
        ),
        "{stdout}"
    );
}

/// `--device cuda` opens the GPU before evaluating anything: without one
/// (this project's build machines, CI) it exits 2 with the line naming
/// what is missing; with one, the file runs there.
#[cfg(feature = "cuda")]
#[test]
fn device_cuda_names_what_is_missing() {
    let f = file("cuda.sx", "(println \"evaluated\")\n");
    let out = sexpgpu(&["run", "--device", "cuda", &f], None);
    match sexpgpu_cuda::CudaDevice::open(0) {
        Err(e) => {
            let help = "  = help: run on the CPU with `--device cpu` (the default)";
            assert_eq!(text(&out.stderr), format!("error: {e}\n{help}\n"));
            if e == sexpgpu_cuda::OpenError::NoDriver {
                assert!(text(&out.stderr).contains("libcuda.so was not found"));
            }
            assert_eq!(text(&out.stdout), "", "nothing is evaluated");
            assert_eq!(out.status.code(), Some(2));
        }
        Ok(_) => {
            assert_eq!(text(&out.stdout), "evaluated\n", "{}", text(&out.stderr));
            assert_eq!(out.status.code(), Some(0));
        }
    }
}

/// A build without the `cuda` feature says so.
#[cfg(not(feature = "cuda"))]
#[test]
fn device_cuda_without_the_feature_says_so() {
    let f = file("cuda.sx", "(println \"evaluated\")\n");
    let out = sexpgpu(&["run", "--device", "cuda", &f], None);
    assert!(text(&out.stderr).starts_with(
        "error: CUDA is not available: this sexpgpu was built without the `cuda` feature\n"
    ));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn profile_reports_time_per_kernel_kind_and_the_costliest_launches() {
    let f = file(
        "profiled.sx",
        &TRAIN.replace(":checkpoint \"train-out\"", ""),
    );
    let out = sexpgpu(&["run", &f, "--run", "fit", "--profile"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("profile fit/step: "), "{err}");
    assert!(err.contains("  matmul "), "{err}");
    assert!(err.contains("costliest launches of fit/step:"), "{err}");
    // Each kind's bytes and FLOPs (the cost model's, docs/sexpgpu/cuda.md)
    // and the rates its launches reached; the CPU is no GPU of the cost
    // model's table, so no fraction of a peak.
    let matmul = err.lines().find(|l| l.starts_with("  matmul ")).unwrap();
    for column in ["B ", "FLOP ", "B/s ", "FLOPS"] {
        assert!(matmul.contains(column), "{column} in {matmul}");
    }
    assert!(!err.contains("of peak"), "{err}");
    let costliest = err
        .lines()
        .skip_while(|l| !l.starts_with("costliest launches of fit/step:"))
        .nth(1)
        .unwrap();
    assert!(
        costliest.contains(" ms ") && costliest.contains("B/s ") && costliest.ends_with("FLOPS"),
        "{costliest}"
    );
    // Warm-up runs are left out: past every run of the step, none is left.
    let launches = |err: &str| {
        err.lines()
            .skip_while(|l| !l.starts_with("profile fit/step: "))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
            .sum::<u64>()
    };
    let all = launches(&err);
    let after_warmup = |runs: &str| {
        let args = [
            "run",
            &f,
            "--run",
            "fit",
            "--profile",
            "--profile-warmup",
            runs,
        ];
        sexpgpu(&args, None)
    };
    let warm = launches(&text(&after_warmup("1").stderr));
    assert!(
        0 < warm && warm < all,
        "{warm} of {all} launches after one warm-up run"
    );
    let none = after_warmup("1000000");
    assert_eq!(none.status.code(), Some(0));
    assert!(!text(&none.stderr).contains("profile fit/step: "));
    // On a GPU the times are the kernels' own (events on the stream);
    // without one, the missing device is the only complaint.
    let on_gpu = sexpgpu(&["run", &f, "--profile", "--device", "cuda"], None);
    let err = text(&on_gpu.stderr);
    if err.contains("CUDA is not available") {
        assert_eq!(on_gpu.status.code(), Some(2));
        assert!(!err.contains("--profile"), "{err}");
    } else {
        assert_eq!(on_gpu.status.code(), Some(0), "{err}");
        assert!(err.contains("profile fit/step: "), "{err}");
    }
}

#[test]
fn fmt_formats_folders_checks_with_a_diff_reads_stdin_and_refuses_what_does_not_read() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fmt-folder");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub/.hidden")).expect("folders");
    let messy = "(defn f (x)\n(* x  2))\n";
    std::fs::write(dir.join("sub/a.sx"), messy).expect("write");
    std::fs::write(dir.join("sub/.hidden/b.sx"), messy).expect("write");
    std::fs::write(dir.join("notes.txt"), messy).expect("write");
    let folder = dir.to_str().expect("a UTF-8 path");

    let check = sexpgpu(&["fmt", "--check", folder], None);
    assert_eq!(check.status.code(), Some(1));
    let diff = text(&check.stdout);
    assert!(diff.contains("-(* x  2))\n+  (* x 2))\n"), "{diff}");
    assert_has(&check.stderr, "1 file is not formatted");

    let fix = sexpgpu(&["fmt", folder], None);
    assert_eq!(fix.status.code(), Some(0), "{}", text(&fix.stderr));
    let fixed = std::fs::read_to_string(dir.join("sub/a.sx")).expect("read");
    assert_eq!(fixed, "(defn f (x)\n  (* x 2))\n");
    // Hidden folders and other extensions are not searched.
    assert_eq!(
        std::fs::read_to_string(dir.join("sub/.hidden/b.sx")).expect("read"),
        messy
    );
    assert_eq!(
        sexpgpu(&["fmt", "--check", folder], None).status.code(),
        Some(0)
    );

    let piped = sexpgpu(&["fmt", "-"], Some("( + 1 2 )"));
    assert_eq!(text(&piped.stdout), "(+ 1 2)\n");
    let broken = sexpgpu(&["fmt", "-"], Some("(+ 1 2"));
    assert_eq!(broken.status.code(), Some(1));
    assert_eq!(text(&broken.stdout), "");
    assert_has(&broken.stderr, "E-READ-001");
}

/// `sexpgpu run` on a terminal (a pseudo-terminal from util-linux's
/// `script`): the progress bar is never drawn as `0/0`, shows no rate
/// before a step was timed, and leaves the screen before `:after` prints.
#[test]
fn the_progress_bar_on_a_terminal() {
    let program = common::FIT.replace(":steps 6", ":steps 40").replace(
        ":log-every 1)",
        ":log-every 20\n  :after (fn (p) (println \"after-line\")))",
    );
    let f = file("bar.sx", &program);
    let command = format!("{} run {f}", env!("CARGO_BIN_EXE_sexpgpu"));
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .stdin(Stdio::null())
        .output()
        .expect("util-linux's `script` runs");
    let screen = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{screen}");
    assert!(screen.contains("] 1/40  - steps/s"), "{screen}");
    assert!(!screen.contains("0/0"), "{screen}");
    // The bar's line is erased (`\r` and ESC[2K) right before `:after`'s output.
    assert!(screen.contains("\r\x1b[2Kafter-line"), "{screen:?}");
    assert!(screen.contains("step 40/40"), "{screen}");
}
