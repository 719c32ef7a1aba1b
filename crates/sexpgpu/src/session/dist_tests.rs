//! Data-parallel runs in one process (docs/sexpgpu/distributed.md): each
//! rank a thread with its own `Session`, the collectives over shared
//! memory (`LocalRank`, summing in rank order like a reduction tree of
//! one level). The same library path `mpirun` takes, without MPI: the
//! batch split, the exchange, ZeRO-1 and its fallback, rank 0's start and
//! logs, the graph check. `crates/sexpgpu/tests/distributed.rs` runs the
//! real command under `mpirun`.

use super::train_tests::one_run;
use crate::eval::Host;
use crate::train::dist::{Collective, Ranks};
use crate::train::run::MemoryIo;
use crate::train::run::RunOptions;
use std::rc::Rc;
use std::sync::{Arc, Barrier, Mutex};

struct Quiet;

impl Host for Quiet {
    fn print(&mut self, _: &str) {}
}

/// What the ranks of one job share: a slot per rank and a barrier.
struct Shared {
    slots: Mutex<Vec<Vec<u8>>>,
    barrier: Barrier,
}

/// One rank's collectives over `Shared`: deposit, wait, read, wait.
struct LocalRank {
    rank: usize,
    shared: Arc<Shared>,
}

impl LocalRank {
    /// Every rank's bytes, after each deposited `mine`.
    fn exchange(&self, mine: Vec<u8>) -> Vec<Vec<u8>> {
        self.shared.slots.lock().expect("slots")[self.rank] = mine;
        self.shared.barrier.wait();
        let all = self.shared.slots.lock().expect("slots").clone();
        self.shared.barrier.wait();
        all
    }

    fn floats(bytes: &[u8]) -> Vec<f32> {
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn bytes(floats: &[f32]) -> Vec<u8> {
        floats.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

impl Collective for LocalRank {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.slots.lock().expect("slots").len()
    }
    fn all_reduce_sum(&self, _: &str, data: &mut [f32]) -> Result<(), String> {
        let all = self.exchange(Self::bytes(data));
        for (i, x) in data.iter_mut().enumerate() {
            *x = all.iter().map(|b| Self::floats(b)[i]).sum();
        }
        Ok(())
    }
    fn broadcast(&self, _: &str, bytes: &mut Vec<u8>) -> Result<(), String> {
        *bytes = self.exchange(bytes.clone()).swap_remove(0);
        Ok(())
    }
    fn all_gather_u64(&self, _: &str, value: u64) -> Result<Vec<u64>, String> {
        let all = self.exchange(value.to_le_bytes().to_vec());
        Ok(all
            .iter()
            .map(|b| u64::from_le_bytes(b[..8].try_into().expect("8 bytes")))
            .collect())
    }
    fn reduce_scatter_sum(
        &self,
        w: &str,
        data: &[f32],
        counts: &[usize],
    ) -> Result<Vec<f32>, String> {
        let mut sums = data.to_vec();
        self.all_reduce_sum(w, &mut sums)?;
        let start: usize = counts[..self.rank].iter().sum();
        Ok(sums[start..start + counts[self.rank]].to_vec())
    }
    fn all_gather(&self, _: &str, mine: &[f32], _: &[usize]) -> Result<Vec<f32>, String> {
        let all = self.exchange(Self::bytes(mine));
        Ok(all.iter().flat_map(|b| Self::floats(b)).collect())
    }
}

const PROGRAM: &str = r#"
(require nn)
(defmodel mlp [i h o]
  {:w1 (normal [i h] :std 0.5) :b1 (zeros [h])
   :w2 (normal [h o] :std 0.5) :b2 (zeros [o])})
(def data (call (fn () {:x (normal [32 4]) :y (cast (* 3.0 (uniform [32])) :i32)})))
(defrun fit
  :seed 5
  :model (mlp 4 8 3)
  :data (nn/batches data :size 8 :shuffle true)
  :loss (fn (p batch)
          (let [scores (nn/linear (nn/relu (nn/linear (:x batch) (:w1 p) :bias (:b1 p)))
                                  (:w2 p) :bias (:b2 p))]
            (counter :rows 8)
            (metric :top (nn/mean (max scores :axes [-1])))
            (nn/cross-entropy scores (:y batch))))
  :optimizer OPTIMIZER
  :steps 6
  :log-every 1)
"#;

/// Runs `program` on each of `ranks` threads (rank `r` gets
/// `programs[r]`); each rank's log and metrics, or its error's message.
/// `options` makes each rank's options (they hold `Rc`s, made per thread).
fn run_ranks(
    programs: &[String],
    options: &(dyn Fn() -> RunOptions + Sync),
) -> Vec<Result<MemoryIo, String>> {
    let shared = Arc::new(Shared {
        slots: Mutex::new(vec![Vec::new(); programs.len()]),
        barrier: Barrier::new(programs.len()),
    });
    std::thread::scope(|scope| {
        let handles: Vec<_> = programs
            .iter()
            .enumerate()
            .map(|(rank, program)| {
                let shared = shared.clone();
                scope.spawn(move || {
                    let collective: Rc<dyn Collective> = Rc::new(LocalRank { rank, shared });
                    let options = RunOptions {
                        ranks: Ranks(Some(collective)),
                        ..options()
                    };
                    execute(program, &options)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a rank's thread"))
            .collect()
    })
}

fn execute(program: &str, options: &RunOptions) -> Result<MemoryIo, String> {
    let (mut session, run) = one_run("fit.sx", program, Box::new(Quiet));
    let mut io = MemoryIo::default();
    match session.execute_run(&run, options, &mut io) {
        Ok(()) => Ok(io),
        Err(d) => Err(d.message.clone()),
    }
}

/// Every number of every metrics line, `wall` left out.
fn values(m: &MemoryIo) -> Vec<(String, f64)> {
    m.metrics
        .iter()
        .flat_map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
            v.as_object()
                .expect("an object")
                .iter()
                .filter(|(k, _)| *k != "wall")
                .map(|(k, x)| (k.clone(), x.as_f64().expect("a number")))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn assert_close(a: &[(String, f64)], b: &[(String, f64)]) {
    assert_eq!(a.len(), b.len());
    for ((k, x), (l, y)) in a.iter().zip(b) {
        assert_eq!(k, l);
        assert!(
            (x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(1e-6),
            "{k}: {x} and {y}"
        );
    }
}

fn program(optimizer: &str) -> String {
    PROGRAM.replace("OPTIMIZER", optimizer)
}

#[test]
fn two_ranks_give_one_process_numbers_sharded_or_not() {
    for (optimizer, state) in [
        ("(nn/adamw :lr 0.05)", "optimizer state sharded (ZeRO-1)"),
        (
            "(nn/sgd :lr 0.1 :momentum 0.9)",
            "optimizer state sharded (ZeRO-1)",
        ),
        (
            "(nn/adamw :lr 0.05 :clip-norm 1.0)",
            "optimizer state replicated",
        ),
    ] {
        let p = program(optimizer);
        let options = || RunOptions {
            checkpoint: true,
            ..RunOptions::default()
        };
        let one = execute(&p, &options()).expect("one process");
        let ranks = run_ranks(&[p.clone(), p.clone()], &options);
        let (zero, other) = (
            ranks[0].as_ref().expect("rank 0"),
            ranks[1].as_ref().expect("rank 1"),
        );
        assert_close(&values(&one), &values(zero));
        // The counter is summed over the ranks: 8 rows a step, as one process counts.
        assert!(
            values(zero).contains(&("rows".to_string(), 8.0)),
            "{:?}",
            zero.metrics
        );
        assert!(
            zero.log.iter().any(|l| l.contains(state)),
            "{optimizer}: {:?}",
            zero.log
        );
        // Rank 0 alone logs and checkpoints.
        assert!(other.log.is_empty() && other.metrics.is_empty() && other.files.is_empty());
        assert!(zero.files.contains_key("fit.safetensors"));
    }
}

#[test]
fn four_ranks_shard_the_state_four_ways_and_resume_in_one_process() {
    let p = program("(nn/adamw :lr 0.05)");
    let one = execute(&p, &RunOptions::default()).expect("one process");
    let options = || RunOptions {
        steps: Some(3),
        checkpoint: true,
        ..RunOptions::default()
    };
    let ranks = run_ranks(&vec![p.clone(); 4], &options);
    let zero = ranks[0].as_ref().expect("rank 0");
    assert!(
        zero.log
            .iter()
            .any(|l| l.contains("4 ranks, 2 of 8 rows each")),
        "{:?}",
        zero.log
    );
    // The checkpoint of 4 sharded ranks resumes in one process.
    let mut resumed = MemoryIo::default();
    resumed.files = zero.files.clone();
    let (mut session, run) = one_run("fit.sx", &p, Box::new(Quiet));
    let resume = RunOptions {
        resume: true,
        ..RunOptions::default()
    };
    session
        .execute_run(&run, &resume, &mut resumed)
        .expect("resumes");
    let mut joined = values(zero);
    joined.extend(values(&resumed));
    assert_close(&values(&one), &joined);
}

#[test]
fn a_rank_with_another_program_is_named() {
    let p = program("(nn/adamw :lr 0.05)");
    let other = p.replace("(mlp 4 8 3)", "(mlp 4 9 3)");
    let ranks = run_ranks(&[p, other], &RunOptions::default);
    for r in ranks {
        let message = r.err().expect("an error on every rank");
        assert_eq!(
            message,
            "rank 1 traced other the step graphs of run `fit` than rank 0"
        );
    }
}

#[test]
fn a_batch_that_does_not_split_is_an_error() {
    let p = program("(nn/adamw :lr 0.05)");
    let ranks = run_ranks(&vec![p; 3], &RunOptions::default);
    for r in ranks {
        assert_eq!(
            r.err().expect("an error"),
            "a batch of 8 rows does not split evenly over 3 ranks"
        );
    }
}
