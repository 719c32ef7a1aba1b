//! `shapescript-gen`: long soundness runs and single programs
//! (`docs/shapescript/soundness.md`).
//!
//!     shapescript-gen run --seed 1 --programs 100000 --out /tmp/gen
//!     shapescript-gen show --seed 1 --index 17        # a program, its reference and spec

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use shapescript_gen::campaign::{program_names, program_seed};
use shapescript_gen::{program, Campaign, Names, Options};

#[derive(Parser)]
#[command(
    about = "Random well-typed ShapeScript programs against an independent PyTorch reference"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum NameMode {
    Ordinary,
    Clashing,
    Both,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generates, checks, builds and runs programs; prints the counts.
    Run {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 1000)]
        programs: usize,
        #[arg(long, default_value = "target/shapescript-gen")]
        out: PathBuf,
        #[arg(long, value_enum, default_value = "both")]
        names: NameMode,
        #[arg(long, default_value_t = 3)]
        runs: u32,
        #[arg(long, default_value_t = 200)]
        batch: usize,
        /// The Python with torch (default: the workspace's `.venv`).
        #[arg(long)]
        python: Option<PathBuf>,
        /// Minimise this many failing programs of each kind, written to
        /// `OUT/minimised`.
        #[arg(long, default_value_t = 1)]
        minimise: usize,
        /// Mutants of the programs that ran clean (`mutate.rs`).
        #[arg(long, default_value_t = 0)]
        mutants: usize,
    },
    /// Runs program `index` of a campaign seeded `seed` and minimises its
    /// first failure.
    Minimise {
        #[command(flatten)]
        pick: Pick,
        #[arg(long, default_value = "target/shapescript-gen")]
        out: PathBuf,
        #[arg(long, default_value_t = 1000)]
        budget: usize,
        /// Which failure: the first whose kind contains this, or of this entry.
        #[arg(long, default_value = "")]
        kind: String,
    },
    /// Prints program `index` of a campaign seeded `seed`: its text, its
    /// reference and its spec.
    Show {
        #[command(flatten)]
        pick: Pick,
    },
}

/// One program of a campaign: its seed, its index, the campaign's names.
#[derive(clap::Args)]
struct Pick {
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = 0)]
    index: usize,
    #[arg(long, value_enum, default_value = "both")]
    names: NameMode,
}

impl Pick {
    /// The campaign's options (writing under `out`) and the program.
    fn program(&self, out: PathBuf) -> (Options, shapescript_gen::ast::Program) {
        let opts = options(self.seed, self.index + 1, out, self.names, 1, 1, None);
        let p = program(
            program_seed(self.seed, self.index),
            program_names(&opts, self.index),
        );
        (opts, p)
    }
}

/// Prints a line to stdout; a reader that stopped early (`| head`) is no
/// error.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

fn names(mode: NameMode) -> Option<Names> {
    match mode {
        NameMode::Ordinary => Some(Names::Ordinary),
        NameMode::Clashing => Some(Names::Clashing),
        NameMode::Both => None,
    }
}

fn options(
    seed: u64,
    programs: usize,
    out: PathBuf,
    mode: NameMode,
    runs: u32,
    batch: usize,
    python: Option<PathBuf>,
) -> Options {
    Options {
        seed,
        programs,
        batch,
        runs,
        dir: out,
        python: python.unwrap_or_else(|| PathBuf::from(".venv/bin/python")),
        names: names(mode),
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Cmd::Run {
            seed,
            programs,
            out,
            names: mode,
            runs,
            batch,
            python,
            minimise,
            mutants,
        } => {
            let opts = options(seed, programs, out, mode, runs, batch, python);
            let mut campaign = match Campaign::new(opts) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let mut result = campaign.run(&mut |t| eprint!("{}", t.summary()));
            if result.is_ok() && mutants > 0 {
                result = campaign.run_mutants(mutants);
            }
            out!("{}", campaign.totals.summary());
            for c in &campaign.totals.cases {
                out!(
                    "--- {} (program {}, entry {}, sizes {}): {}",
                    c.kind,
                    c.index,
                    c.entry,
                    c.sizes,
                    c.detail
                );
            }
            if let Err(e) = result {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            for note in &campaign.totals.mutants.notes {
                out!("--- mutant {note}");
            }
            for c in &campaign.totals.rejected {
                out!("--- rejected (program {}): {}", c.index, c.detail);
            }
            for text in campaign.minimise_cases(minimise) {
                out!("{text}");
            }
            ExitCode::from(u8::from(campaign.totals.failure_count() > 0))
        }
        Cmd::Minimise {
            pick,
            out,
            budget,
            kind,
        } => {
            let (opts, p) = pick.program(out);
            let index = pick.index;
            let mut campaign = match Campaign::new(opts) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            match campaign.minimise_program(p, index, budget, &kind) {
                Some(text) => {
                    out!("{text}");
                    ExitCode::from(1)
                }
                None => {
                    out!("program {index} does not fail");
                    ExitCode::SUCCESS
                }
            }
        }
        Cmd::Show { pick } => {
            let (_, p) = pick.program(PathBuf::new());
            out!("{}", shapescript_gen::print_ss::program(&p));
            out!("{}", shapescript_gen::print_py::program(&p));
            out!("{}", shapescript_gen::spec::program(&p, "p0"));
            ExitCode::SUCCESS
        }
    }
}
