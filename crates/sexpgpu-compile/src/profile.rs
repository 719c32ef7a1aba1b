//! Where a program's time goes, by kernel kind (`sexpgpu run --profile`):
//! when switched on, every run of every compiled program adds each
//! launch's time (the backend's `Backend::mark`s around it: wall time on
//! the CPU, the kernel's own on a GPU) to a process-wide table keyed by
//! graph and kind
//! (`matmul`, `fused`, `copy`, ...), and each graph's costliest launches
//! as `sexpgpu ir --stage optimized` prints them. The first runs of each
//! graph can be left out (`set_warmup`: compilation, first-touch page
//! faults, a GPU driver loading each kernel), so that the report is a warm
//! step's. Off by default, when it costs one relaxed atomic load per run.
//! Knows no arithmetic.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::describe::describe_launch;
use crate::plan::Plan;

static ENABLED: AtomicBool = AtomicBool::new(false);
/// Runs of each graph left out before recording starts.
static WARMUP: AtomicU64 = AtomicU64::new(0);
/// Runs of each graph seen so far (recorded or left out).
static RUNS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());
static TABLE: Mutex<BTreeMap<(String, &'static str), KindTime>> = Mutex::new(BTreeMap::new());
/// Per graph: each launch's summed time and its description.
static LAUNCHES: Mutex<BTreeMap<String, Vec<(Duration, String)>>> = Mutex::new(BTreeMap::new());

/// Launches of one kind in one graph and their summed wall time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KindTime {
    pub launches: u64,
    pub time: Duration,
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRow {
    pub graph: String,
    pub kind: &'static str,
    pub launches: u64,
    pub time: Duration,
}

/// Starts (or stops) recording launch times.
pub fn enable(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Leaves the first `runs` runs of each graph out of the tables.
pub fn set_warmup(runs: u64) {
    WARMUP.store(runs, Ordering::Relaxed);
}

/// Counts one run of `graph`; whether it is past the warm-up.
fn past_warmup(graph: &str) -> bool {
    let mut runs = RUNS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let seen = runs.entry(graph.to_string()).or_default();
    *seen += 1;
    *seen > WARMUP.load(Ordering::Relaxed)
}

pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Adds one run's launch times (one per launch of `plan`) to the tables.
pub(crate) fn record(plan: &Plan, times: &[Duration]) {
    let graph = &plan.graph_name;
    if !past_warmup(graph) {
        return;
    }
    let mut table = TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for (launch, &time) in plan.launches.iter().zip(times) {
        let entry = table
            .entry((graph.clone(), launch.step.kind()))
            .or_default();
        entry.launches += 1;
        entry.time += time;
    }
    let mut launches = LAUNCHES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let per_launch = launches.entry(graph.clone()).or_default();
    if per_launch.len() != times.len() {
        *per_launch = (0..times.len())
            .map(|i| (Duration::ZERO, describe_launch(plan, i)))
            .collect();
    }
    for ((total, _), &time) in per_launch.iter_mut().zip(times) {
        *total += time;
    }
}

/// Each graph's `count` costliest launches, described, as recorded so
/// far; the table is emptied.
pub fn take_top_launches(count: usize) -> Vec<(String, Vec<(Duration, String)>)> {
    let table = std::mem::take(&mut *LAUNCHES.lock().unwrap_or_else(|p| p.into_inner()));
    table
        .into_iter()
        .map(|(graph, mut launches)| {
            launches.sort_by_key(|l| std::cmp::Reverse(l.0));
            launches.truncate(count);
            (graph, launches)
        })
        .collect()
}

/// Everything recorded so far, by graph then by time (largest first); the
/// table is emptied.
pub fn take_report() -> Vec<ProfileRow> {
    let table = std::mem::take(&mut *TABLE.lock().unwrap_or_else(|p| p.into_inner()));
    let mut rows: Vec<ProfileRow> = table
        .into_iter()
        .map(|((graph, kind), t)| ProfileRow {
            graph,
            kind,
            launches: t.launches,
            time: t.time,
        })
        .collect();
    rows.sort_by(|a, b| a.graph.cmp(&b.graph).then(b.time.cmp(&a.time)));
    rows
}

/// The report as a table, one block per graph, with each kind's share.
pub fn format_report(rows: &[ProfileRow]) -> String {
    let mut out = String::new();
    let mut graphs: Vec<&str> = rows.iter().map(|r| r.graph.as_str()).collect();
    graphs.dedup();
    for graph in graphs {
        let mine: Vec<&ProfileRow> = rows.iter().filter(|r| r.graph == graph).collect();
        let total: Duration = mine.iter().map(|r| r.time).sum();
        out.push_str(&format!(
            "profile {graph}: {:.1} ms in kernels\n",
            total.as_secs_f64() * 1e3
        ));
        for r in mine {
            let share = r.time.as_secs_f64() / total.as_secs_f64().max(1e-12) * 100.0;
            out.push_str(&format!(
                "  {:<12} {:>8} launches {:>10.1} ms {:>5.1}%\n",
                r.kind,
                r.launches,
                r.time.as_secs_f64() * 1e3,
                share
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_groups_by_graph_and_sorts_by_time() {
        let rows = vec![
            ProfileRow {
                graph: "g".into(),
                kind: "fused",
                launches: 4,
                time: Duration::from_millis(1),
            },
            ProfileRow {
                graph: "g".into(),
                kind: "matmul",
                launches: 2,
                time: Duration::from_millis(3),
            },
        ];
        let text = format_report(&rows);
        assert!(text.starts_with("profile g: 4.0 ms in kernels\n"), "{text}");
        assert!(
            text.contains("fused               4 launches        1.0 ms  25.0%"),
            "{text}"
        );
    }
}
