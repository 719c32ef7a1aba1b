//! A fixed-seed campaign of one target: its seeds, then mutated inputs,
//! each run on a thread of its own under a watchdog, so a panic is caught
//! and a hang is told rather than waited for. A failing input is made
//! small (whole chunks removed while it still fails the same way) before
//! it is reported, to become a regression test.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use uitest::support::Rng;

use crate::mutate::mutate;
use crate::seeds;
use crate::targets::Target;

/// How long one input may take before the campaign calls it a hang.
pub const HANG: Duration = Duration::from_secs(30);

/// What a campaign did.
#[derive(Debug, Default)]
pub struct Report {
    pub executed: usize,
    pub seeds: usize,
    pub elapsed: Duration,
    pub failures: Vec<Failure>,
}

/// An input that made the target fail, made small, and how it failed.
#[derive(Debug, Clone)]
pub struct Failure {
    pub input: Vec<u8>,
    pub how: String,
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Returned,
    Panicked(String),
    Hung,
}

/// Runs `target` on `data` on a thread of its own, within `HANG`.
pub fn run_one(target: Target, data: &[u8]) -> Outcome {
    let data = data.to_vec();
    let (done, wait) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        // The commands run their work on large stacks too.
        .stack_size(256 << 20)
        .spawn(move || {
            let ended = std::panic::catch_unwind(|| target.run(&data));
            let _ = done.send(ended.map_err(|p| panic_text(&*p)));
        });
    if spawned.is_err() {
        return Outcome::Panicked("cannot start a thread".into());
    }
    match wait.recv_timeout(HANG) {
        Ok(Ok(())) => Outcome::Returned,
        Ok(Err(text)) => Outcome::Panicked(text),
        Err(_) => Outcome::Hung,
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// Runs every seed of `target` and then `cases` mutated inputs made from
/// `seed`; stops at the first hang (its thread cannot be stopped).
pub fn run(target: Target, cases: usize, seed: u64) -> Report {
    let started = Instant::now();
    let corpus = seeds::corpus(target);
    let dictionary = seeds::dictionary(target);
    let mut rng = Rng::new(seed);
    let mut report = Report {
        seeds: corpus.len(),
        ..Report::default()
    };
    let mutated = (0..cases).map(|_| {
        let base = &corpus[rng
            .below(corpus.len().max(1))
            .min(corpus.len().saturating_sub(1))];
        mutate(&mut rng, base, &corpus, &dictionary)
    });
    let inputs: Vec<Vec<u8>> = corpus.iter().cloned().chain(mutated).collect();
    for input in inputs {
        report.executed += 1;
        match run_one(target, &input) {
            Outcome::Returned => {}
            failed => {
                let hung = failed == Outcome::Hung;
                let input = if hung {
                    input
                } else {
                    minimise(target, input, &failed)
                };
                report.failures.push(Failure {
                    input,
                    how: format!("{failed:?}"),
                });
                if hung {
                    break;
                }
            }
        }
    }
    report.elapsed = started.elapsed();
    report
}

/// `input` with chunks removed, halving their size, while the target
/// still fails as `how` (a panic with the same first line).
pub fn minimise(target: Target, input: Vec<u8>, how: &Outcome) -> Vec<u8> {
    let same = |outcome: &Outcome| match (outcome, how) {
        (Outcome::Panicked(a), Outcome::Panicked(b)) => a.lines().next() == b.lines().next(),
        _ => false,
    };
    let mut best = input;
    let mut chunk = best.len() / 2;
    while chunk >= 1 {
        let mut start = 0;
        while start < best.len() {
            let end = (start + chunk).min(best.len());
            let candidate: Vec<u8> = best[..start].iter().chain(&best[end..]).copied().collect();
            if same(&run_one(target, &candidate)) {
                best = candidate;
            } else {
                start += chunk;
            }
        }
        chunk /= 2;
    }
    best
}
