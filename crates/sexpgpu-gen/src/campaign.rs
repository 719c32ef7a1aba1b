//! A campaign: the programs of a range of seeds, each checked by the
//! oracles, each failure minimised; the totals.

use crate::ast::Program;
use crate::gen::program;
use crate::minimise::minimise;
use crate::oracle::{check, Finding};

/// One failing program: its seed, the program as generated and made
/// small, and what the small one does wrong.
pub struct Failure {
    pub seed: u64,
    pub program: Program,
    pub minimised: Program,
    pub finding: Finding,
}

/// What a campaign checked.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub programs: usize,
    /// Programs whose reference outputs were not all finite.
    pub skipped: usize,
    pub graph_nodes: usize,
    pub compared_elements: usize,
    pub differences: usize,
    /// Differences skipped at kinks.
    pub kinks: usize,
}

/// Checks the programs of seeds `first..first + count`, calling `report`
/// with each failure as it is found; the totals.
pub fn run(first: u64, count: u64, mut report: impl FnMut(&Failure)) -> Totals {
    let mut totals = Totals::default();
    for seed in first..first + count {
        let p = program(seed);
        totals.programs += 1;
        match check(&p.text(), p.params.len(), seed) {
            Ok(c) => {
                totals.skipped += usize::from(c.skipped);
                totals.graph_nodes += c.graph_nodes;
                totals.compared_elements += c.compared_elements;
                totals.differences += c.differences;
                totals.kinks += c.kinks;
            }
            Err(finding) => {
                let (minimised, finding) = minimise(&p, &finding, seed);
                report(&Failure {
                    seed,
                    program: p,
                    minimised,
                    finding,
                });
            }
        }
    }
    totals
}

impl Failure {
    /// The failure as a report: the seed, what went wrong, the small program.
    pub fn describe(&self) -> String {
        format!(
            "seed {}: {} ({})\n{}\n--- minimised program ---\n{}",
            self.seed,
            self.finding.kind(),
            self.program.size(),
            self.finding.detail(),
            self.minimised.text()
        )
    }
}
