//! The soundness test of `docs/shapescript/soundness.md`: a fixed-seed
//! campaign of generated programs (half with ordinary names, half with
//! names that clash with axes, dims, Python and the emitter's own names)
//! checked, built with probes and run against the generator's independent
//! PyTorch reference, then mutants of the programs that ran clean. Prints
//! the counts; fails on any soundness failure of a kind not in `KNOWN`, on
//! any mistake of the generator itself, and on a kind in `KNOWN` that no
//! longer occurs (so the list only shrinks). Runs without libtest's capture
//! (`harness = false`) so `scripts/test` shows the counts.

use std::process::ExitCode;

use shapescript_gen::{Campaign, Options};

/// Programs and mutants per run: a few minutes on two cores.
const PROGRAMS: usize = 2000;
const MUTANTS: usize = 400;
const SEED: u64 = 37;

/// Failure kinds known and reported (`/work/notes` findings G-numbers are
/// the lead's), tolerated until their fixes land. Reviewed: each is a real
/// checker or emitter bug, never the generator's.
const KNOWN: &[(&str, &str)] = &[
    (
        "probe-range-rounding",
        "ranges ignore float rounding: a constant's point range, tanh's open (-1, 1), 1 + tiny in bf16 (G9)",
    ),
    (
        "probe-range-nan",
        "std/var over an axis of size 1 and mean over a mask's empty rows are NaN (G7, G12)",
    ),
];

fn main() -> ExitCode {
    let dir =
        std::env::temp_dir().join(format!("shapescript-gen-soundness-{}", std::process::id()));
    let options = Options {
        seed: SEED,
        programs: PROGRAMS,
        batch: 250,
        runs: 3,
        dir: dir.clone(),
        python: uitest::support::python(),
        names: None,
    };
    let mut campaign = Campaign::new(options).expect("the Python worker starts");
    let started = std::time::Instant::now();
    campaign.run(&mut |_| {}).expect("the campaign runs");
    campaign.run_mutants(MUTANTS).expect("the mutants run");
    let totals = campaign.totals.clone();
    println!(
        "soundness: seed {SEED}, {:.0} s",
        started.elapsed().as_secs_f64()
    );
    print!("{}", totals.summary());
    let mut failed = false;
    for (kind, count) in totals.failures.iter().chain(&totals.mutants.failures) {
        match KNOWN.iter().find(|(k, _)| k == kind) {
            Some((_, why)) => println!("known ({count}): {kind}: {why}"),
            None => {
                println!("FAILURE ({count}): {kind}");
                failed = true;
            }
        }
    }
    for (kind, _) in KNOWN {
        if !totals.failures.contains_key(*kind) && !totals.mutants.failures.contains_key(*kind) {
            println!("FIXED: `{kind}` no longer occurs: take it off KNOWN");
            failed = true;
        }
    }
    if !totals.generator.is_empty() {
        println!(
            "FAILURE: the generator's own mistakes: {:?}",
            totals.generator
        );
        failed = true;
    }
    if failed {
        for text in campaign.minimise_cases(1) {
            println!("{text}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
