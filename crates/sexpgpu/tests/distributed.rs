//! Data-parallel runs end to end (docs/sexpgpu/distributed.md): the real
//! binary under OpenMPI's `mpirun` with 2 ranks on the CPU. The losses
//! match one process with the same global batch, two 2-rank runs are bit
//! identical, checkpoints resume across world sizes, and a rank that dies,
//! stops or runs another program ends every rank with an error naming it.
//! `mpirun` must be installed (`scripts/test` installs `openmpi-bin`); a
//! machine without it fails these tests, saying so.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{assert_has, text, FIT};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh folder for one test, holding `fit.sx`.
fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("distributed")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a test folder");
    std::fs::write(dir.join("fit.sx"), FIT).expect("fit.sx");
    dir
}

/// The launcher `program` (asked for its `--version`), or a failure that
/// says it is missing and `how` to get it.
fn launcher(program: &str, how: &str) -> Command {
    let found = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(found, "{program} is missing: {how}");
    Command::new(program)
}

/// `mpirun`, or a failure that says how to get it.
fn mpirun() -> Command {
    let mut c = launcher(
        "mpirun",
        "these tests need OpenMPI (Debian: apt install openmpi-bin libopenmpi-dev; scripts/test installs it)",
    );
    // OpenMPI refuses root without these (CI containers run as root).
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // One core a rank on a 2-core machine; no interconnects to probe.
        .env("OMPI_MCA_btl", "self,vader")
        .args(["--oversubscribe", "--bind-to", "none"]);
    c
}

/// `mpirun -np N sexpgpu ARGS` in `dir`.
fn ranks(n: usize, dir: &Path, args: &[&str]) -> Command {
    let mut c = mpirun();
    c.args(["-np", &n.to_string(), env!("CARGO_BIN_EXE_sexpgpu")])
        .args(args)
        .current_dir(dir);
    c
}

/// `sexpgpu ARGS` in `dir`, one process.
fn one(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sexpgpu"));
    c.args(args).current_dir(dir);
    c
}

fn succeed(mut c: Command) -> Output {
    let out = c.output().expect("the command runs");
    assert!(
        out.status.success(),
        "{c:?} failed: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// Runs `c`, which must fail with the diagnostic `code`, whose text says
/// `says`.
fn fail(mut c: Command, code: &str, says: &str) {
    let out = c.output().expect("the command runs");
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{c:?} succeeded");
    assert!(err.contains(&format!("error[{code}]")), "{err}");
    assert!(err.contains(says), "{err}");
}

/// Each line of a metrics file as (kind, step, name, value), wall time left out.
fn metrics(path: &Path) -> Vec<(String, u64, String, f64)> {
    let body = std::fs::read_to_string(path).expect("a metrics file");
    let mut out = Vec::new();
    for line in body.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
        let kind = if v.get("eval").is_some() {
            "eval"
        } else {
            "train"
        };
        let step = v["step"].as_u64().expect("a step");
        for (k, x) in v.as_object().expect("an object") {
            if let (false, Some(x)) = (["wall", "step", "eval"].contains(&k.as_str()), x.as_f64()) {
                out.push((kind.to_string(), step, k.clone(), x));
            }
        }
    }
    out
}

/// The same metrics, each within `tolerance` (relative) of the other's.
fn assert_close(
    a: &[(String, u64, String, f64)],
    b: &[(String, u64, String, f64)],
    tolerance: f64,
) {
    assert_eq!(a.len(), b.len(), "{a:?}\n{b:?}");
    for (x, y) in a.iter().zip(b) {
        assert_eq!((&x.0, x.1, &x.2), (&y.0, y.1, &y.2));
        let scale = x.3.abs().max(y.3.abs()).max(1e-6);
        assert!(
            (x.3 - y.3).abs() <= tolerance * scale,
            "{} {} at step {}: {} and {} differ by more than {tolerance} (relative)",
            x.0,
            x.2,
            x.1,
            x.3,
            y.3
        );
    }
}

/// f32 reduction order: the ranks sum their halves' gradients in another
/// order than one process sums the whole batch (docs/sexpgpu/distributed.md).
const TOLERANCE: f64 = 1e-5;

#[test]
fn two_ranks_train_mlp_digits_to_the_one_process_losses() {
    let dir = folder("digits");
    let example = root().join("examples/sexpgpu/mlp-digits.sx");
    let example = example.to_str().expect("a UTF-8 path");
    let solo = succeed({
        let mut c = one(
            &dir,
            &["run", example, "--steps", "100", "--metrics", "one.jsonl"],
        );
        c.args(["--checkpoint", "one"]);
        c
    });
    let two = |name: &str| {
        let metrics = format!("{name}.jsonl");
        succeed(ranks(
            2,
            &dir,
            &[
                "run",
                example,
                "--steps",
                "100",
                "--metrics",
                &metrics,
                "--checkpoint",
                name,
            ],
        ))
    };
    let first = two("two");
    let second = two("again");
    let replicated = succeed(ranks(
        2,
        &dir,
        &[
            "run",
            example,
            "--steps",
            "100",
            "--checkpoint",
            "replicated",
            "--optimizer-state",
            "replicated",
        ],
    ));
    assert_close(
        &metrics(&dir.join("one.jsonl")),
        &metrics(&dir.join("two.jsonl")),
        TOLERANCE,
    );
    let lines = |o: &Output| {
        text(&o.stdout)
            .lines()
            .map(|l| l.rsplit_once("  ").map_or(l, |(a, _)| a).to_string())
            .collect::<Vec<_>>()
    };
    // Rank 0 alone logs: each line once, as one process prints it, and
    // one line about the ranks.
    assert_eq!(
        lines(&first).len(),
        lines(&solo).len() + 1,
        "{}",
        text(&first.stdout)
    );
    assert_has(
        &first.stdout,
        "data-parallel: 2 ranks, 32 of 64 rows each, optimizer state sharded (ZeRO-1)",
    );
    assert!(text(&replicated.stdout)
        .contains("optimizer state replicated (--optimizer-state replicated)"));
    // Two 2-rank runs are bit-identical: metrics and checkpoints.
    assert_eq!(
        metrics(&dir.join("two.jsonl")),
        metrics(&dir.join("again.jsonl"))
    );
    let bytes =
        |d: &str| std::fs::read(dir.join(d).join("digits.safetensors")).expect("a checkpoint");
    assert_eq!(bytes("two"), bytes("again"));
    // Sharded or replicated, the same numbers: the checkpoint holds the
    // whole state either way.
    assert_eq!(bytes("two"), bytes("replicated"));
    assert_eq!(lines(&first), lines(&second));
}

#[test]
fn char_transformer_trains_on_two_ranks() {
    let dir = folder("kjv");
    let example = root().join("examples/sexpgpu/char-transformer.sx");
    let example = example.to_str().expect("a UTF-8 path");
    let args = ["run", example, "--steps", "2", "--metrics"];
    succeed({
        let mut c = one(&dir, &args);
        c.arg("one.jsonl");
        c
    });
    let two = succeed({
        let mut c = ranks(2, &dir, &args);
        c.arg("two.jsonl");
        c
    });
    // `:clip-norm`'s global norm reads every gradient: no sharding.
    assert_has(
        &two.stdout,
        "optimizer state replicated (the optimizer's update mixes parameters",
    );
    // Its dropout draws each rank's masks from the rank's own stream, so
    // the losses agree to the noise of dropout, not to f32 rounding.
    assert_close(
        &metrics(&dir.join("one.jsonl")),
        &metrics(&dir.join("two.jsonl")),
        1e-2,
    );
}

/// `sexpgpu ARGS` with `n` ranks, or as one process when `n` is 1.
fn launch(n: usize, dir: &Path, args: &[&str]) -> Command {
    if n == 1 {
        one(dir, args)
    } else {
        ranks(n, dir, args)
    }
}

/// `fit.sx` saved after 3 of its 6 steps by `save` ranks and resumed by
/// `resume` ranks: the metrics of the 6 steps.
fn save_then_resume(dir: &Path, save: usize, resume: usize) -> Vec<(String, u64, String, f64)> {
    let folder = format!("by{save}");
    let (first, second) = (
        format!("saved{save}.jsonl"),
        format!("resumed{resume}.jsonl"),
    );
    let saving = [
        "run",
        "fit.sx",
        "--steps",
        "3",
        "--checkpoint",
        &folder,
        "--metrics",
        &first,
    ];
    succeed(launch(save, dir, &saving));
    let resuming = ["run", "fit.sx", "--resume", &folder, "--metrics", &second];
    succeed(launch(resume, dir, &resuming));
    let mut joined = metrics(&dir.join(first));
    joined.extend(metrics(&dir.join(second)));
    joined
}

#[test]
fn checkpoints_resume_across_world_sizes() {
    let dir = folder("resume");
    succeed(one(&dir, &["run", "fit.sx", "--metrics", "straight.jsonl"]));
    let straight = metrics(&dir.join("straight.jsonl"));
    assert_close(&straight, &save_then_resume(&dir, 2, 1), TOLERANCE);
    assert_close(&straight, &save_then_resume(&dir, 1, 2), TOLERANCE);
}

/// MPICH's launcher (`mpiexec.mpich`, Debian's `mpich`; scripts/test
/// installs it beside OpenMPI, whose `mpirun` stays the default): its
/// ranks load MPICH's library, not OpenMPI's, and train to the one-process
/// losses.
#[test]
fn mpich_ranks_train_to_the_one_process_losses() {
    let mut c = launcher(
        "mpiexec.mpich",
        "this test needs MPICH (Debian: apt install mpich; scripts/test installs it)",
    );
    let dir = folder("mpich");
    succeed(one(&dir, &["run", "fit.sx", "--metrics", "one.jsonl"]));
    c.args(["-n", "2", env!("CARGO_BIN_EXE_sexpgpu")])
        .args(["run", "fit.sx", "--metrics", "two.jsonl"])
        .current_dir(&dir);
    let out = succeed(c);
    assert_has(&out.stdout, "data-parallel: 2 ranks");
    let one = metrics(&dir.join("one.jsonl"));
    assert_close(&one, &metrics(&dir.join("two.jsonl")), TOLERANCE);
}

#[test]
fn only_rank_zero_prints_and_writes() {
    let dir = folder("quiet");
    let program = format!(
        "(println \"evaluated\")\n{}",
        FIT.replace(
            ":log-every 1)",
            ":log-every 1\n  :after (fn (p) (println \"after\") (save-npz \"w.npz\" p)))"
        )
    );
    std::fs::write(dir.join("loud.sx"), program).expect("loud.sx");
    let out = succeed(ranks(2, &dir, &["run", "loud.sx"]));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("evaluated").count(), 1, "{stdout}");
    assert_eq!(stdout.matches("after").count(), 1, "{stdout}");
    assert_eq!(stdout.matches("step 6/6").count(), 1, "{stdout}");
    assert!(dir.join("w.npz").exists());
}

#[test]
fn a_batch_that_does_not_split_over_the_ranks_is_an_error() {
    let dir = folder("uneven");
    let says = "a batch of 8 rows does not split evenly over 3 ranks";
    fail(ranks(3, &dir, &["run", "fit.sx"]), "E-RUN-004", says);
}

#[test]
fn a_mismatched_program_on_one_rank_is_an_error_naming_it() {
    let dir = folder("mismatch");
    std::fs::write(
        dir.join("other.sx"),
        FIT.replace("(nn/mean (* d d))", "(nn/mean (abs d))"),
    )
    .expect("other.sx");
    let exe = env!("CARGO_BIN_EXE_sexpgpu");
    let mut c = mpirun();
    c.args([
        "-np", "1", exe, "run", "fit.sx", ":", "-np", "1", exe, "run", "other.sx",
    ])
    .current_dir(&dir);
    let says = "rank 1 traced other the step graphs of run `fit` than rank 0";
    fail(c, "E-RUN-011", says);
}

/// Starts a long 2-rank run, waits for its first line, then sends `signal`
/// to rank 1; the run's output and exit once it ended (or a failure after
/// `limit`).
fn signal_rank_one(name: &str, signal: &str, limit: Duration) -> (String, Option<i32>, Duration) {
    let dir = folder(name);
    let log = dir.join("out.txt");
    let file = std::fs::File::create(&log).expect("a log file");
    let mut child: Child = ranks(
        2,
        &dir,
        &[
            "run",
            "fit.sx",
            "--steps",
            "100000000",
            "--collective-timeout",
            "5",
        ],
    )
    .stdout(file.try_clone().expect("a second handle"))
    .stderr(file)
    .stdin(Stdio::null())
    .spawn()
    .expect("mpirun starts");
    let started = Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("run fit:")
    {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the run never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let rank_one = rank_pid(child.id(), 1).expect("rank 1 runs under mpirun");
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &rank_one.to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("mpirun's status") {
            break status;
        }
        if signalled.elapsed() > limit {
            let _ = child.kill();
            panic!("the run did not end within {limit:?} of the {signal}: a hang");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    (output, status.code(), signalled.elapsed())
}

/// The process under `mpirun` (pid `parent`) that is rank `rank`.
fn rank_pid(parent: u32, rank: usize) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let ppid: u32 = stat
            .rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        let has = environ.split(|&b| b == 0).any(|v| v == want.as_bytes());
        (ppid == parent && has).then_some(pid)
    })
}

#[test]
fn a_killed_rank_ends_the_run_with_an_error_naming_it() {
    let (output, code, _) = signal_rank_one("killed", "KILL", Duration::from_secs(60));
    assert_ne!(code, Some(0), "{output}");
    assert!(output.contains("rank 1"), "{output}");
    assert!(output.contains("exited on signal 9"), "{output}");
}

#[test]
fn a_stopped_rank_ends_the_run_after_the_collective_timeout() {
    let (output, code, took) = signal_rank_one("stopped", "STOP", Duration::from_secs(60));
    assert_ne!(code, Some(0), "{output}");
    assert!(
        output.contains("error: rank 0: the ")
            && output.contains(" of step ")
            && output.contains("did not finish within 5 s"),
        "{output}"
    );
    assert!(
        took >= Duration::from_secs(4),
        "ended after {took:?}, before the timeout"
    );
}
