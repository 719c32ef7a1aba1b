//! `sexpgpu-gen`: long differential campaigns (`docs/fuzzing.md`).
//! `sexpgpu-gen --seed S --count N` checks the programs of seeds
//! `S..S+N`, printing each failure with its minimised program, then the
//! totals; `--print SEED` prints one program.

use clap::Parser;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Random SexpGPU programs against the reference executor and finite differences")]
struct Args {
    /// The first seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many programs.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// Print the program of this seed and stop.
    #[arg(long)]
    print: Option<u64>,
}

fn main() {
    let args = Args::parse();
    if let Some(seed) = args.print {
        print!("{}", sexpgpu_gen::program(seed).text());
        return;
    }
    let start = Instant::now();
    let mut failures = 0;
    let totals = sexpgpu_gen::run(args.seed, args.count, |f| {
        failures += 1;
        println!("{}\n", f.describe());
    });
    println!(
        "{} programs (seeds {}..{}), {} skipped, {} failures, {} graph nodes, {} outputs compared, {} finite differences ({} at kinks, skipped), {:.1} s",
        totals.programs,
        args.seed,
        args.seed + args.count,
        totals.skipped,
        failures,
        totals.graph_nodes,
        totals.compared_elements,
        totals.differences,
        totals.kinks,
        start.elapsed().as_secs_f64()
    );
    if failures > 0 {
        std::process::exit(1);
    }
}
