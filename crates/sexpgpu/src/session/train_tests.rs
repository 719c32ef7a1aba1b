//! Runs executed end to end through a `Session`, with a fake clock and
//! in-memory checkpoints: logs and metrics, seeds, resumption, bf16 master
//! weights. Everything printed is compared with `expect-test`.

use super::Session;
use crate::eval::{Host, Mode};
use crate::train::run::{MemoryIo, RunOptions};
use crate::train::TracedRun;
use expect_test::{expect, Expect};
use std::rc::Rc;

struct Quiet;

impl Host for Quiet {
    fn print(&mut self, _: &str) {}
}

/// Collects what the program prints.
struct Printed(std::rc::Rc<std::cell::RefCell<String>>);

impl Host for Printed {
    fn print(&mut self, text: &str) {
        self.0.borrow_mut().push_str(text);
    }
}

fn printed(program: &str) -> String {
    let out = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
    let mut session = Session::new(Mode::Run, 0, Box::new(Printed(out.clone())));
    let diagnostics = session.eval_file("p.sx", program);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let text = out.borrow().clone();
    text
}

#[test]
fn softmax_and_cross_entropy_survive_large_logits() {
    let out = printed(
        "(require nn)
         (defgraph g [(x [2 3] :f32) (y [2] :i32)]
           [(nn/softmax x) (nn/cross-entropy x y) (nn/logsumexp x)])
         (println (map to-vec (call g [[10000 0 -10000] [-5e4 5e4 5e4]] [0 1])))",
    );
    expect![[r#"
        ([[1.0 0.0 0.0] [0.0 0.5 0.5]] 0.3465736 [10000.0 50000.69])
    "#]]
    .assert_eq(&out);
}

#[test]
fn dropout_drops_only_in_training_mode() {
    // Outside a run's step (`call`, `defgraph`) `(training?)` is false, so
    // dropout is the identity unless `:train true` asks for it.
    let out = printed(
        "(require nn)
         (defgraph g [(x [100] :f32)]
           [(sum (nn/dropout x 0.5))
            (sum (cast (== (nn/dropout x 0.5 :train true) 0) :f32))])
         (println (map to-vec (call g (call (fn () (ones [100]))))))",
    );
    let fields: Vec<&str> = out.trim().trim_matches(['(', ')']).split(' ').collect();
    assert_eq!(fields[0], "100.0", "{out}");
    assert_ne!(fields[1], "0.0", "{out}");
}

const PROGRAM: &str = r#"
(require nn)
(defmodel mlp [i h o]
  {:w1 (normal [i h] :std 0.5 :dtype DTYPE) :b1 (zeros [h] :dtype DTYPE)
   :w2 (normal [h o] :std 0.5 :dtype DTYPE) :b2 (zeros [o] :dtype DTYPE)})
(def data (call (fn () {:x (normal [32 4] :dtype DTYPE) :y (cast (* 3.0 (uniform [32])) :i32)})))
(defrun fit
  :seed 5
  :model (mlp 4 8 3)
  :data (nn/batches data :size 8 :shuffle true)
  :loss (fn (p batch)
          (let [h (nn/dropout (nn/relu (nn/linear (:x batch) (:w1 p) :bias (:b1 p))) 0.1)
                scores (nn/linear h (:w2 p) :bias (:b2 p))]
            (counter :rows 8)
            (tap-gradient h :name "h")
            (cast (nn/cross-entropy scores (:y batch)) :f32)))
  :optimizer (nn/adamw :lr 0.05 :clip-norm 1.0)
  :steps 12
  :log-every 4)
"#;

/// A session that evaluated `program` (the file `name`, printing to
/// `host`) without a diagnostic, and the one run it defines.
pub(super) fn one_run(name: &str, program: &str, host: Box<dyn Host>) -> (Session, Rc<TracedRun>) {
    let mut session = Session::new(Mode::Run, 0, host);
    let diagnostics = session.eval_file(name, program);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let run = session.runs().pop().expect("one run");
    (session, run)
}

/// Options that checkpoint the run.
fn checkpointing() -> RunOptions {
    RunOptions {
        checkpoint: true,
        ..RunOptions::default()
    }
}

/// Checkpointing options for `steps` steps, from the checkpoint if `resume`.
fn resumable(steps: u64, resume: bool) -> RunOptions {
    RunOptions {
        steps: Some(steps),
        resume,
        ..checkpointing()
    }
}

/// The tensors of `run`'s last checkpoint (its metadata's order varies).
fn saved(io: &MemoryIo, run: &str) -> Vec<(String, sexpgpu_graph::Tensor)> {
    let bytes = &io.files[&format!("{run}.safetensors")];
    crate::data::decode(bytes).expect("a checkpoint").0
}

/// A run of `steps` steps straight through, and one stopped after `first`
/// steps and resumed from its checkpoint: what `run` gave for the whole
/// run and for the resumed part, with each one's world.
fn straight_and_resumed<T>(
    steps: u64,
    first: u64,
    run: impl Fn(RunOptions, &mut MemoryIo) -> T,
) -> ((T, MemoryIo), (T, MemoryIo)) {
    let mut straight = MemoryIo::default();
    let all = run(resumable(steps, false), &mut straight);
    let mut split = MemoryIo::default();
    run(resumable(first, false), &mut split);
    let resumed = run(resumable(steps, true), &mut split);
    ((all, straight), (resumed, split))
}

fn execute(dtype: &str, options: RunOptions, io: &mut MemoryIo) {
    let program = PROGRAM.replace("DTYPE", dtype);
    let (mut session, run) = one_run("fit.sx", &program, Box::new(Quiet));
    session
        .execute_run(&run, &options, io)
        .expect("the run succeeds");
}

/// The log lines (5 significant digits, robust to the last bits of the
/// backend's arithmetic) and the keys of each metrics line.
fn check(dtype: &str, options: RunOptions, expect: Expect) {
    let mut io = MemoryIo::default();
    execute(dtype, options, &mut io);
    let keys: Vec<String> = io
        .metrics
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            let keys: Vec<&str> = v
                .as_object()
                .expect("object")
                .keys()
                .map(String::as_str)
                .collect();
            keys.join(" ")
        })
        .collect();
    expect.assert_eq(&format!("{}\n{}", io.log.join("\n"), keys.join("\n")));
}

#[test]
fn a_run_logs_its_windows() {
    check(
        ":f32",
        RunOptions::default(),
        expect![[r#"
            run fit: 67 parameters, 12 steps, 4 batches an epoch, seed 5
            step 4/12  loss 1.1699  rows 8.0000/s  grad/h 0.42027  4.0s
            step 8/12  loss 1.0721  rows 8.0000/s  grad/h 0.39376  8.0s
            step 12/12  loss 0.92491  rows 8.0000/s  grad/h 0.35224  12.0s
            grad/h loss rows step wall
            grad/h loss rows step wall
            grad/h loss rows step wall"#]],
    );
}

#[test]
fn bf16_parameters_train_through_f32_master_weights() {
    let mut io = MemoryIo::default();
    execute(":bf16", checkpointing(), &mut io);
    let dtypes: Vec<String> = saved(&io, "fit")
        .iter()
        .map(|(n, t)| format!("{n} {}", t.dtype()))
        .collect();
    expect![[r#"
        opt/m/b1 f32
        opt/m/b2 f32
        opt/m/w1 f32
        opt/m/w2 f32
        opt/v/b1 f32
        opt/v/b2 f32
        opt/v/w1 f32
        opt/v/w2 f32
        param/b1 f32
        param/b2 f32
        param/w1 f32
        param/w2 f32"#]]
    .assert_eq(&dtypes.join("\n"));
    check(
        ":bf16",
        RunOptions::default(),
        expect![[r#"
            run fit: 67 parameters, 12 steps, 4 batches an epoch, seed 5
            step 4/12  loss 1.1699  rows 8.0000/s  grad/h 0.41981  4.0s
            step 8/12  loss 1.0713  rows 8.0000/s  grad/h 0.39294  8.0s
            step 12/12  loss 0.92383  rows 8.0000/s  grad/h 0.35186  12.0s
            grad/h loss rows step wall
            grad/h loss rows step wall
            grad/h loss rows step wall"#]],
    );
}

fn without_wall(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
            v.as_object_mut().expect("object").remove("wall");
            v.to_string()
        })
        .collect()
}

#[test]
fn the_seed_decides_everything() {
    let run = |seed| {
        let mut io = MemoryIo::default();
        let options = RunOptions {
            seed,
            ..RunOptions::default()
        };
        execute(":f32", options, &mut io);
        without_wall(&io.metrics)
    };
    assert_eq!(run(None), run(None));
    assert_ne!(run(None), run(Some(6)));
}

#[test]
fn resuming_continues_bit_for_bit() {
    let run = |options, io: &mut MemoryIo| execute(":f32", options, io);
    let ((_, straight), (_, split)) = straight_and_resumed(12, 4, run);
    assert_eq!(
        without_wall(&split.metrics),
        without_wall(&straight.metrics)
    );
    assert_eq!(saved(&split, "fit"), saved(&straight, "fit"));
}

#[test]
fn a_checkpoint_of_another_model_is_refused() {
    let mut io = MemoryIo::default();
    execute(":f32", checkpointing(), &mut io);
    let wider = PROGRAM
        .replace("DTYPE", ":f32")
        .replace("(mlp 4 8 3)", "(mlp 4 9 3)");
    let (mut session, run) = one_run("fit.sx", &wider, Box::new(Quiet));
    let resume = RunOptions {
        resume: true,
        ..RunOptions::default()
    };
    let d = session
        .execute_run(&run, &resume, &mut io)
        .expect_err("refused");
    expect!["E-RUN-007: the checkpoint of run `fit` does not fit it: `param/w1` is [4, 8] f32 there but [4, 9] f32 in the run"]
        .assert_eq(&format!("{}: {}", d.code, d.message));
}

/// A model with an integer buffer the step counts in, one it never sets,
/// and a metric of the mode in the step and in the eval graph.
const BUFFERS: &str = r#"
(require nn)
(defmodel line [n]
  {:w (normal [n 1] :std 0.5)
   :seen (buffer (zeros [] :dtype :i32))
   :fixed (buffer (full [2] 3.0))})
(defrun count
  :model (line 3)
  :data (call (fn () {:x (ones [4 3])}))
  :loss (fn (p batch)
          (set-buffer! (:seen p) (+ (:seen p) (dim (:x batch) 0)))
          (metric :training (if (training?) 1.0 0.0))
          (nn/mean (matmul (:x batch) (:w p))))
  :optimizer (nn/adamw :lr 0.1 :weight-decay 0.5)
  :steps 5
  :log-every 5
  :eval (fn (p batch)
          {:training (full [] (if (training?) 1.0 0.0))
           :fixed (sum (:fixed p))})
  :eval-data {:x (call (fn () (ones [4 3])))}
  :after (fn (p) (println (keys p) (to-vec (:seen p)) (to-vec (:fixed p)) (training?))))
"#;

fn run_buffers(options: RunOptions, io: &mut MemoryIo) -> String {
    let out = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
    let (mut session, run) = one_run("count.sx", BUFFERS, Box::new(Printed(out.clone())));
    session
        .execute_run(&run, &options, io)
        .expect("the run succeeds");
    let text = out.borrow().clone();
    text
}

#[test]
fn an_eval_that_gives_no_scalar_metrics_is_refused() {
    let eval = "{:training (full [] (if (training?) 1.0 0.0))\n           :fixed (sum (:fixed p))}";
    assert!(BUFFERS.contains(eval));
    // The run is refused where it is defined, as its eval graph is traced.
    let refused = |returned: &str| {
        let program = BUFFERS.replace(eval, returned);
        let mut session = Session::new(Mode::Run, 0, Box::new(Quiet));
        let diagnostics = session.eval_file("count.sx", &program);
        let shown: Vec<String> = diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        shown.join("\n")
    };
    expect!["E-RUN-002: `:eval` must return a map of scalar metrics, got `3`"]
        .assert_eq(&refused("3"));
    expect!["E-RUN-003: eval metric `fixed` must be a scalar tensor, got `#<tensor [2] f32>`"]
        .assert_eq(&refused("{:fixed (:fixed p)}"));
}

#[test]
fn buffers_are_carried_from_step_to_step_and_never_trained() {
    let mut io = MemoryIo::default();
    let printed = run_buffers(checkpointing(), &mut io);
    expect![[r#"
        (:w :seen :fixed) 20 [3.0 3.0] false
    "#]]
    .assert_eq(&printed);
    expect![[r#"
        run count: 3 parameters, 5 steps, 1 batch an epoch, seed 0
        step 5/5  loss -1.5819  training 1.0000  5.0s
        eval  step 5  training 0.0000  fixed 6.0000"#]]
    .assert_eq(&io.log.join("\n"));
    let names: Vec<String> = saved(&io, "count")
        .iter()
        .map(|(n, t)| format!("{n} {} {}", t.shape(), t.dtype()))
        .collect();
    // Weight decay and AdamW's moments are the parameters' alone.
    expect![[r#"
        buffer/fixed [2] f32
        opt/m/w [3, 1] f32
        opt/v/w [3, 1] f32
        param/w [3, 1] f32
        buffer/seen [] i32"#]]
    .assert_eq(&names.join("\n"));
}

#[test]
fn resuming_restores_the_buffers() {
    let ((all, straight), (resumed, split)) = straight_and_resumed(5, 2, run_buffers);
    assert_eq!(resumed, all);
    assert_eq!(saved(&split, "count"), saved(&straight, "count"));
}

/// The CPU backend behind the `Executor` a GPU uses, recording for each
/// run how many arguments arrived on the "device" already, how many of
/// them the run was lent rather than given, and how many outputs it kept.
struct Recording {
    inner: crate::BackendExecutor<sexpgpu_cpu::CpuBackend>,
    runs: std::cell::RefCell<Vec<(usize, usize, usize)>>,
}

impl crate::Executor for Recording {
    fn run(
        &self,
        program: &sexpgpu_compile::Program,
        args: Vec<crate::Carried>,
        keep: &[bool],
        seed: u64,
    ) -> Result<Vec<crate::Carried>, sexpgpu_graph::ExecError> {
        let on_device = |c: &crate::Carried| matches!(c, crate::Carried::Device(_));
        let arrived = args.iter().filter(|c| on_device(c)).count();
        let lent = args
            .iter()
            .filter(|c| matches!(c, crate::Carried::Device(d) if std::rc::Rc::strong_count(&d.buffer) > 1))
            .count();
        let out = self.inner.run(program, args, keep, seed)?;
        let kept = out.iter().filter(|c| on_device(c)).count();
        self.runs.borrow_mut().push((arrived, lent, kept));
        Ok(out)
    }

    fn fetch(
        &self,
        tensor: &crate::DeviceTensor,
    ) -> Result<sexpgpu_graph::Tensor, sexpgpu_graph::ExecError> {
        self.inner.fetch(tensor)
    }
}

fn recording() -> (std::rc::Rc<Recording>, RunOptions) {
    let backend = sexpgpu_cpu::CpuBackend::new(sexpgpu_cpu::CpuBackend::default_threads());
    let recording = std::rc::Rc::new(Recording {
        inner: crate::BackendExecutor::new(backend),
        runs: Default::default(),
    });
    let options = RunOptions {
        device: crate::Device(Some(recording.clone())),
        ..checkpointing()
    };
    (recording, options)
}

#[test]
fn a_device_keeps_parameters_and_state_between_steps() {
    let (recording, options) = recording();
    let mut on_device = MemoryIo::default();
    execute(":f32", options, &mut on_device);
    let mut on_cpu = MemoryIo::default();
    execute(":f32", checkpointing(), &mut on_cpu);
    assert_eq!(on_device.log, on_cpu.log);
    assert_eq!(on_device.metrics, on_cpu.metrics);
    assert_eq!(saved(&on_device, "fit"), saved(&on_cpu, "fit"));
    // 4 parameters and AdamW's 8 moments: uploaded once, then given back
    // to each step from the device and kept there.
    let runs = recording.runs.borrow();
    assert_eq!(runs.len(), 12);
    assert_eq!(runs[0], (0, 0, 12));
    assert!(runs[1..].iter().all(|&r| r == (12, 0, 12)), "{runs:?}");
}

#[test]
fn a_device_lends_the_parameters_to_evaluation_and_fetches_them_after() {
    let (recording, options) = recording();
    let mut on_device = MemoryIo::default();
    let printed = run_buffers(options, &mut on_device);
    let mut on_cpu = MemoryIo::default();
    assert_eq!(printed, run_buffers(checkpointing(), &mut on_cpu));
    assert_eq!(on_device.log, on_cpu.log);
    assert_eq!(saved(&on_device, "count"), saved(&on_cpu, "count"));
    // Five steps carrying the parameter, two moments and two buffers;
    // then one evaluation pass, lent the parameter and both buffers.
    let runs = recording.runs.borrow();
    assert_eq!(
        runs[..5],
        [(0, 0, 5), (5, 0, 5), (5, 0, 5), (5, 0, 5), (5, 0, 5)]
    );
    assert_eq!(runs[5..], [(3, 3, 0)]);
}
