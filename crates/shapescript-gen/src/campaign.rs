//! A campaign: many generated programs, in batches, through the checker,
//! the emitter and the harness, with the counts of what happened: built
//! and run, rejected (the checker's imprecision when the reference bears
//! the generator's types out, the generator's mistake when not), refused by
//! the emitter, and every soundness failure by kind, the failing programs
//! kept for minimising.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::Value;

use crate::ast::Program;
use crate::gen::{program, Names};
use crate::minimise::Minimiser;
use crate::print_ss;
use crate::rng::Rng;
use crate::run::{job, run_jobs, Job, Verdict, Worker};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub programs: usize,
    /// Programs per package (one worker request each).
    pub batch: usize,
    /// Calls of each entry point, each with new sizes and inputs.
    pub runs: u32,
    /// Where packages are written.
    pub dir: PathBuf,
    pub python: PathBuf,
    /// One name mode, or `None` for the two in turn.
    pub names: Option<Names>,
}

/// One program that failed: how to make it again and what happened.
#[derive(Clone, Debug)]
pub struct Case {
    /// The program's index in its campaign, and its seed.
    pub index: usize,
    pub seed: u64,
    pub names: Names,
    pub program: Program,
    pub kind: String,
    pub detail: String,
    pub entry: String,
    pub sizes: Value,
    /// A mutant's failure: its emitted code alone failed.
    pub emitted_only: bool,
}

/// The counts of a campaign.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub programs: usize,
    pub built: usize,
    pub calls: u64,
    /// Rejected, and the reference bears the generator's types out: the
    /// checker's imprecision, by code.
    pub imprecise: BTreeMap<String, usize>,
    /// The generator's own mistakes (a rejected program whose reference
    /// does not match its types, or a reference that fails), by kind.
    pub generator: BTreeMap<String, usize>,
    /// Soundness failures by kind: a program checked clean that raises,
    /// fails a probe, or returns the wrong shape, dtype or values; or that
    /// `build` refuses.
    pub failures: BTreeMap<String, usize>,
    /// Every soundness failure's kind and detail (the first line of what
    /// happened), mutants' included.
    pub details: Vec<(String, String)>,
    /// The failing programs (the first few of each kind).
    pub cases: Vec<Case>,
    /// Rejected programs, the first few of each code, for review.
    pub rejected: Vec<Case>,
    pub mutants: MutantTotals,
}

/// The counts of the mutant test.
#[derive(Clone, Debug, Default)]
pub struct MutantTotals {
    pub mutants: usize,
    /// Rejected, and the naive PyTorch translation refuses them too.
    pub rejected: usize,
    /// Rejected, and PyTorch runs them: the imprecision figure, by code.
    pub imprecise: BTreeMap<String, usize>,
    /// Accepted, and they run as their types say (a change the types allow).
    pub accepted: usize,
    /// Accepted, and they fail: soundness failures, by kind.
    pub failures: BTreeMap<String, usize>,
    /// What each failing or imprecisely rejected mutant was, for review.
    pub notes: Vec<String>,
}

impl Totals {
    /// Soundness failures: of generated programs and of accepted mutants.
    pub fn failure_count(&self) -> usize {
        self.failures.values().sum::<usize>() + self.mutants.failures.values().sum::<usize>()
    }

    /// The counts as the test and the command print them.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "programs {}: built and run {} ({} calls), rejected as imprecise {}, generator mistakes {}, soundness failures {}",
            self.programs,
            self.built,
            self.calls,
            self.imprecise.values().sum::<usize>(),
            self.generator.values().sum::<usize>(),
            self.failure_count()
        );
        let m = &self.mutants;
        if m.mutants > 0 {
            let _ = writeln!(
                out,
                "mutants {}: rejected {} (PyTorch refuses them too), rejected but PyTorch runs them (imprecision) {}, accepted and run {}, accepted and fail {}",
                m.mutants,
                m.rejected,
                m.imprecise.values().sum::<usize>(),
                m.accepted,
                m.failures.values().sum::<usize>()
            );
        }
        for (title, map) in [
            ("soundness failures", &self.failures),
            ("rejected (imprecision)", &self.imprecise),
            ("generator mistakes", &self.generator),
            ("mutants accepted that fail", &m.failures),
            ("mutants rejected that PyTorch runs", &m.imprecise),
        ] {
            if !map.is_empty() {
                let items: Vec<String> = map.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                let _ = writeln!(out, "  {title}: {}", items.join(", "));
            }
        }
        out
    }
}

/// The seed of program `i` of a campaign seeded `seed`.
pub fn program_seed(seed: u64, i: usize) -> u64 {
    Rng::new(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).bits()
}

/// The name mode of program `i`.
pub fn program_names(options: &Options, i: usize) -> Names {
    options.names.unwrap_or(if i.is_multiple_of(2) {
        Names::Ordinary
    } else {
        Names::Clashing
    })
}

/// A running campaign.
pub struct Campaign {
    pub options: Options,
    pub totals: Totals,
    worker: Worker,
    batches: usize,
    /// Built programs that ran clean: the mutant test's material.
    pub clean: Vec<Program>,
}

impl Campaign {
    pub fn new(mut options: Options) -> Result<Campaign, String> {
        std::fs::create_dir_all(&options.dir).map_err(|e| e.to_string())?;
        options.dir = std::fs::canonicalize(&options.dir).map_err(|e| e.to_string())?;
        options.python = std::path::absolute(&options.python).map_err(|e| e.to_string())?;
        let worker = Worker::start(&options.python, &options.dir).map_err(|e| e.to_string())?;
        Ok(Campaign {
            options,
            totals: Totals::default(),
            worker,
            batches: 0,
            clean: Vec::new(),
        })
    }

    /// Runs programs `from..to` as one batch.
    pub fn batch(&mut self, from: usize, to: usize) -> Result<(), String> {
        let mut made = Vec::new();
        for i in from..to {
            let seed = program_seed(self.options.seed, i);
            let names = program_names(&self.options, i);
            let p = program(seed, names);
            made.push((i, seed, names, p));
        }
        let jobs: Vec<Job> = made
            .iter()
            .enumerate()
            .map(|(k, (_, _, _, p))| job(p, &format!("p{k}")))
            .collect();
        let results = self.run_package("b", &jobs)?;
        for (((index, seed, names, p), job), result) in made.into_iter().zip(&jobs).zip(results) {
            self.record(index, seed, names, p, job, &result);
        }
        Ok(())
    }

    /// Runs `jobs` as one package named `prefix`, the seed and a count,
    /// removed afterwards; one answer per job.
    fn run_package(&mut self, prefix: &str, jobs: &[Job]) -> Result<Vec<Value>, String> {
        let package = format!("{prefix}{}_{}", self.options.seed, self.batches);
        self.batches += 1;
        let o = &self.options;
        let results = run_jobs(&mut self.worker, &o.dir, &package, jobs, o.runs, o.seed);
        let _ = std::fs::remove_dir_all(o.dir.join(&package));
        results
    }

    fn record(
        &mut self,
        index: usize,
        seed: u64,
        names: Names,
        program: Program,
        job: &Job,
        result: &Value,
    ) {
        let t = &mut self.totals;
        t.programs += 1;
        t.calls += result["calls"].as_u64().unwrap_or(0);
        let failures = result["failures"].as_array().cloned().unwrap_or_default();
        let case = |kind: String, f: Option<&Value>| Case {
            index,
            seed,
            names,
            program: program.clone(),
            kind,
            detail: f
                .map(|f| f["detail"].as_str().unwrap_or("").to_string())
                .unwrap_or_default(),
            entry: f
                .map(|f| f["entry"].as_str().unwrap_or("").to_string())
                .unwrap_or_default(),
            sizes: f.map(|f| f["sizes"].clone()).unwrap_or(Value::Null),
            emitted_only: false,
        };
        match &job.verdict {
            Verdict::Built { .. } => {
                t.built += 1;
                if failures.is_empty() && self.clean.len() < 5000 {
                    self.clean.push(program.clone());
                }
                let t = &mut self.totals;
                for f in &failures {
                    let kind = f["kind"].as_str().unwrap_or("?").to_string();
                    if kind == "generator" {
                        *t.generator
                            .entry("reference of a built program".into())
                            .or_default() += 1;
                        continue;
                    }
                    *t.failures.entry(kind.clone()).or_default() += 1;
                    let detail = f["detail"].as_str().unwrap_or("").to_string();
                    t.details.push((kind.clone(), detail));
                    if t.cases.iter().filter(|c| c.kind == kind).count() < 20 {
                        t.cases.push(case(kind, Some(f)));
                    }
                }
            }
            Verdict::Rejected {
                code,
                message,
                line,
            } => {
                let detail = format!("{code} at line {line}: {message}");
                if let Some(f) = failures.first() {
                    *t.generator.entry(format!("rejected {code}")).or_default() += 1;
                    let _ = f;
                } else {
                    *t.imprecise.entry(code.to_string()).or_default() += 1;
                }
                if t.rejected.iter().filter(|c| c.kind == *code).count() < 10 {
                    let mut c = case(code.to_string(), None);
                    c.detail = detail;
                    t.rejected.push(c);
                }
            }
            Verdict::Refused { code, message } => {
                *t.failures
                    .entry(format!("build refused {code}"))
                    .or_default() += 1;
                t.details
                    .push((format!("build refused {code}"), message.clone()));
                let mut c = case(format!("build refused {code}"), None);
                c.detail = message.clone();
                t.cases.push(c);
            }
        }
    }

    /// Runs the whole campaign, calling `progress` after each batch.
    pub fn run(&mut self, progress: &mut dyn FnMut(&Totals)) -> Result<(), String> {
        let n = self.options.programs;
        let size = self.options.batch.max(1);
        let mut from = 0;
        while from < n {
            let to = (from + size).min(n);
            self.batch(from, to)?;
            progress(&self.totals);
            from = to;
        }
        Ok(())
    }
}

impl Campaign {
    /// Minimises up to `per_kind` failing programs of each kind, writes
    /// each to `dir/minimised/<kind>-<index>.ss` with what happened in
    /// comments, and returns their texts.
    pub fn minimise_cases(&mut self, per_kind: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut done: BTreeMap<String, usize> = BTreeMap::new();
        let dir = self.options.dir.join("minimised");
        let _ = std::fs::create_dir_all(&dir);
        for case in self.totals.cases.clone() {
            let n = done.entry(case.kind.clone()).or_default();
            if *n >= per_kind {
                continue;
            }
            *n += 1;
            let want = crate::minimise::Failure {
                kind: case.kind.clone(),
                detail: case.detail.clone(),
                entry: case.entry.clone(),
                sizes: case.sizes.clone(),
                float: String::new(),
            };
            let mut m = Minimiser::new(&mut self.worker, &self.options.dir, 600);
            m.emitted_only = case.emitted_only;
            let (p, f) = m.minimise(case.program.clone(), want);
            let text = crate::minimise::report(&p, &f, case.index, self.options.seed);
            let file = format!("{}-{}.ss", case.kind.replace(' ', "-"), case.index);
            let _ = std::fs::write(dir.join(file), &text);
            out.push(text);
        }
        out
    }
}

impl Campaign {
    /// Runs `p` and minimises its first failure, if it fails: the report.
    pub fn minimise_program(
        &mut self,
        p: Program,
        index: usize,
        budget: usize,
        kind: &str,
    ) -> Option<String> {
        let mut m = Minimiser::new(&mut self.worker, &self.options.dir, budget);
        m.failure(&p)?;
        let exact = m.last.iter().find(|f| f.key() == kind).cloned();
        let want = exact.or_else(|| {
            m.last
                .iter()
                .find(|f| f.key().contains(kind) || f.entry == kind)
                .cloned()
        })?;
        eprintln!("{}: {}", want.kind, want.detail);
        let (p, f) = m.minimise(p, want);
        eprintln!("{} attempts", m.attempts);
        Some(crate::minimise::report(&p, &f, index, self.options.seed))
    }
}

impl Campaign {
    /// The mutant test: `count` mutants of the programs that ran clean,
    /// one change each (`mutate.rs`), through the checker and PyTorch.
    pub fn run_mutants(&mut self, count: usize) -> Result<(), String> {
        let mut rng = Rng::new(self.options.seed ^ 0x4D55_5441_4E54);
        let mut made = Vec::new();
        for k in 0..count * 2 {
            if made.len() >= count || self.clean.is_empty() {
                break;
            }
            let p = &self.clean[k % self.clean.len()];
            made.extend(crate::mutate::mutants(p, &mut rng, 1));
        }
        for chunk in made.chunks(self.options.batch.max(1)) {
            let jobs: Vec<Job> = chunk
                .iter()
                .enumerate()
                .map(|(k, m)| {
                    let mut j = job(&m.program, &format!("u{k}"));
                    j.emitted_only = true;
                    j
                })
                .collect();
            let results = self.run_package("mut", &jobs)?;
            for ((m, j), r) in chunk.iter().zip(&jobs).zip(results) {
                self.record_mutant(m, j, &r);
            }
        }
        Ok(())
    }

    fn record_mutant(&mut self, m: &crate::mutate::Mutant, j: &Job, r: &Value) {
        let t = &mut self.totals.mutants;
        t.mutants += 1;
        // An `as` that does not hold raises the `ShapeError` it promises:
        // what the language says for a claim it cannot decide.
        let failures: Vec<Value> = r["failures"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|f| {
                !(f["kind"] == "shape-error"
                    && f["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("does not hold")))
            })
            .collect();
        let text = || print_ss::program(&m.program);
        match &j.verdict {
            Verdict::Built { .. } if failures.is_empty() => t.accepted += 1,
            Verdict::Built { .. } => {
                let f = &failures[0];
                let kind = f["kind"].as_str().unwrap_or("?").to_string();
                *t.failures.entry(kind.clone()).or_default() += 1;
                let detail = f["detail"].as_str().unwrap_or("").to_string();
                self.totals.details.push((kind.clone(), detail.clone()));
                self.totals.cases.push(Case {
                    index: self.totals.mutants.mutants,
                    seed: 0,
                    names: Names::Ordinary,
                    program: m.program.clone(),
                    kind: kind.clone(),
                    detail,
                    entry: f["entry"].as_str().unwrap_or("").to_string(),
                    sizes: f["sizes"].clone(),
                    emitted_only: true,
                });
                let t = &mut self.totals.mutants;
                t.notes.push(format!(
                    "accepted mutant fails ({kind}: {}): {}\n{}",
                    f["detail"],
                    m.what,
                    text()
                ));
            }
            Verdict::Rejected { code, message, .. } if failures.is_empty() => {
                *t.imprecise.entry(code.to_string()).or_default() += 1;
                if t.notes.len() < 200 {
                    t.notes.push(format!(
                        "rejected ({code}: {message}) but PyTorch runs it: {}\n{}",
                        m.what,
                        text()
                    ));
                }
            }
            Verdict::Rejected { .. } => t.rejected += 1,
            Verdict::Refused { code, message } => {
                *t.failures
                    .entry(format!("build refused {code}"))
                    .or_default() += 1;
                let refused = (format!("build refused {code}"), message.clone());
                self.totals.details.push(refused);
                let t = &mut self.totals.mutants;
                t.notes.push(format!(
                    "accepted mutant refused by build ({message}): {}\n{}",
                    m.what,
                    text()
                ));
            }
        }
    }
}
