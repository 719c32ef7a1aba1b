//! Where a program's time goes, by kernel kind (`sexpgpu run --profile`):
//! when switched on, every run of every compiled program adds each
//! launch's time (the backend's `Backend::mark`s around it: wall time on
//! the CPU, the kernel's own on a GPU) to a process-wide table keyed by
//! graph and kind (`cost::kind`: `matmul`, `fused`, `optimizer`, `copy`,
//! ...), with the bytes and FLOPs the cost model counts for it (so the
//! report gives achieved GB/s and TFLOPS) and, on a GPU of the cost
//! model's table (`set_gpu`), its lower bound, so measured and modelled
//! times stand side by side; and each graph's costliest launches as
//! `sexpgpu ir --stage optimized` prints them. The first runs of each
//! graph can be left out (`set_warmup`: compilation, first-touch page
//! faults, a GPU driver loading each kernel), so that the report is a warm
//! step's. Off by default, when it costs one relaxed atomic load per run.
//! Knows no arithmetic of elements.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::cost::{duration, format_rates, launch_cost, si, Cost, Gpu, GPUS};
use crate::describe::describe_launch;
use crate::plan::Plan;

static ENABLED: AtomicBool = AtomicBool::new(false);
/// The device's entry in `cost::GPUS`, plus one; 0 for none (the CPU, a
/// GPU the table lacks).
static GPU: AtomicUsize = AtomicUsize::new(0);
/// Runs of each graph left out before recording starts.
static WARMUP: AtomicU64 = AtomicU64::new(0);
/// Runs of each graph seen so far (recorded or left out).
static RUNS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());
static TABLE: Mutex<BTreeMap<(String, &'static str), KindTime>> = Mutex::new(BTreeMap::new());
/// Per graph: each launch's record.
static LAUNCHES: Mutex<BTreeMap<String, Vec<LaunchTime>>> = Mutex::new(BTreeMap::new());

/// Launches of one kind in one graph: their summed time, bytes and FLOPs
/// (over every recorded run), and their summed lower bound on the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KindTime {
    pub launches: u64,
    pub time: Duration,
    pub bytes: u64,
    pub flops: u64,
    /// Seconds; `None` without a GPU of the table.
    pub bound: Option<f64>,
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRow {
    pub graph: String,
    pub kind: &'static str,
    pub sums: KindTime,
}

/// One launch of a graph, over the runs recorded: its summed time, the
/// runs, its cost in one run, and its description.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchTime {
    pub time: Duration,
    pub runs: u64,
    pub cost: Cost,
    pub text: String,
}

/// The GPU the launches run on, for the fraction of its peak each
/// reaches; `None` on the CPU or on a GPU the cost model's table lacks.
pub fn set_gpu(gpu: Option<&Gpu>) {
    let index = gpu.and_then(|g| GPUS.iter().position(|t| t.key == g.key));
    GPU.store(index.map_or(0, |i| i + 1), Ordering::Relaxed);
}

fn gpu() -> Option<&'static Gpu> {
    GPU.load(Ordering::Relaxed)
        .checked_sub(1)
        .and_then(|i| GPUS.get(i))
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
    let mut launches = LAUNCHES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let per_launch = launches.entry(graph.clone()).or_default();
    if per_launch.len() != times.len() {
        *per_launch = (0..times.len())
            .map(|i| LaunchTime {
                time: Duration::ZERO,
                runs: 0,
                cost: launch_cost(plan, i),
                text: describe_launch(plan, i),
            })
            .collect();
    }
    let mut table = TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let gpu = gpu();
    for (launch, &time) in per_launch.iter_mut().zip(times) {
        launch.time += time;
        launch.runs += 1;
        let entry = table.entry((graph.clone(), launch.cost.kind)).or_default();
        entry.launches += 1;
        entry.time += time;
        entry.bytes += launch.cost.bytes();
        entry.flops += launch.cost.flops;
        entry.bound = gpu.map(|g| entry.bound.unwrap_or(0.0) + g.bound(&launch.cost).seconds());
    }
}

/// Each graph's `count` costliest launches, described, as recorded so
/// far; the table is emptied.
pub fn take_top_launches(count: usize) -> Vec<(String, Vec<LaunchTime>)> {
    let table = std::mem::take(&mut *LAUNCHES.lock().unwrap_or_else(|p| p.into_inner()));
    table
        .into_iter()
        .map(|(graph, mut launches)| {
            launches.sort_by_key(|l| std::cmp::Reverse(l.time));
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
        .map(|((graph, kind), sums)| ProfileRow { graph, kind, sums })
        .collect();
    rows.sort_by(|a, b| a.graph.cmp(&b.graph).then(b.sums.time.cmp(&a.sums.time)));
    rows
}

/// The report as a table, one block per graph, with each kind's share,
/// the bytes and FLOPs of its launches, the rates they reached and, on a
/// GPU of the cost model's table, their lower bound beside the measured
/// time and the fraction of the GPU's peak (the bound over the time).
pub fn format_report(rows: &[ProfileRow]) -> String {
    let mut out = String::new();
    let mut graphs: Vec<&str> = rows.iter().map(|r| r.graph.as_str()).collect();
    graphs.dedup();
    for graph in graphs {
        let mine: Vec<&ProfileRow> = rows.iter().filter(|r| r.graph == graph).collect();
        let total: Duration = mine.iter().map(|r| r.sums.time).sum();
        out.push_str(&format!(
            "profile {graph}: {:.1} ms in kernels\n",
            total.as_secs_f64() * 1e3
        ));
        for r in mine {
            let t = &r.sums;
            let share = t.time.as_secs_f64() / total.as_secs_f64().max(1e-12) * 100.0;
            out.push_str(&format!(
                "  {:<18} {:>8} launches {:>10.1} ms {:>5.1}% {:>9} {:>12} {}{}\n",
                r.kind,
                t.launches,
                t.time.as_secs_f64() * 1e3,
                share,
                si(t.bytes as f64, "B"),
                si(t.flops as f64, "FLOP"),
                format_rates(t.bytes, t.flops, t.time.as_secs_f64()),
                modelled(t.bound, t.time)
            ));
        }
    }
    out
}

/// A measured time beside its lower bound: the bound and its fraction
/// of the time (1 is the roofline); nothing without a bound.
fn modelled(bound: Option<f64>, time: Duration) -> String {
    match bound {
        Some(bound) => format!(
            "  bound {:>9} {:>5.1}% of peak",
            duration(bound),
            bound / time.as_secs_f64().max(1e-12) * 100.0
        ),
        None => String::new(),
    }
}

/// A graph's costliest launches, one a block: the time over the recorded
/// runs, the bytes and FLOPs of one run, the rates reached, and on a GPU
/// of the table the fraction of its peak; then the launch as `sexpgpu ir
/// --stage optimized` prints it.
pub fn format_top_launches(graph: &str, launches: &[LaunchTime]) -> String {
    let gpu = gpu();
    let mut out = format!("costliest launches of {graph}:\n");
    for l in launches {
        let runs = l.runs.max(1);
        let seconds = l.time.as_secs_f64();
        let bound = gpu.map(|g| g.bound(&l.cost).seconds() * runs as f64);
        out.push_str(&format!(
            "{:>9.1} ms {:>9} {:>12} {}{}\n{}",
            seconds * 1e3,
            si(l.cost.bytes() as f64, "B"),
            si(l.cost.flops as f64, "FLOP"),
            format_rates(l.cost.bytes() * runs, l.cost.flops * runs, seconds),
            modelled(bound, l.time),
            l.text
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kind: &'static str, launches: u64, ms: u64, bytes: u64) -> ProfileRow {
        ProfileRow {
            graph: "g".into(),
            kind,
            sums: KindTime {
                launches,
                time: Duration::from_millis(ms),
                bytes,
                flops: 2_000_000_000,
                bound: None,
            },
        }
    }

    #[test]
    fn report_groups_by_graph_and_sorts_by_time() {
        let rows = vec![row("fused", 4, 1, 0), row("matmul", 2, 3, 6_000_000)];
        let text = format_report(&rows);
        assert!(text.starts_with("profile g: 4.0 ms in kernels\n"), "{text}");
        assert!(
            text.contains("fused                     4 launches        1.0 ms  25.0%"),
            "{text}"
        );
        // 6 MB and 2 GFLOP in 3 ms: 2 GB/s and 667 GFLOPS.
        assert!(
            text.contains("matmul                    2 launches        3.0 ms  75.0%   6.00 MB   2.00 GFLOP   2.00 GB/s    667 GFLOPS\n"),
            "{text}"
        );
    }

    #[test]
    fn costliest_launches_give_their_cost_rates_and_on_a_gpu_their_fraction_of_peak() {
        let launch = LaunchTime {
            time: Duration::from_millis(2),
            runs: 2,
            cost: Cost {
                kind: "matmul",
                read: 3_000_000,
                written: 1_000_000,
                flops: 1_000_000_000,
                rate: crate::cost::Rate::TensorBf16,
            },
            text: "  k0 matmul\n".into(),
        };
        let launches = [launch];
        // Two runs in 2 ms: 8 MB and 2 GFLOP, 4 GB/s and 1 TFLOPS.
        let on_cpu = format_top_launches("g", &launches);
        let line = "      2.0 ms   4.00 MB   1.00 GFLOP   4.00 GB/s   1.00 TFLOPS";
        assert_eq!(
            on_cpu,
            format!("costliest launches of g:\n{line}\n  k0 matmul\n")
        );
        // On an H200 a run is at least 1.01 us (1 GFLOP at 989.5 TFLOPS):
        // 2.02 us of the 2 ms, 0.1% of the peak.
        set_gpu(Gpu::lookup("h200").ok());
        let on_h200 = format_top_launches("g", &launches);
        set_gpu(None);
        let with_bound = format!("{line}  bound   2.02 us   0.1% of peak\n");
        assert!(on_h200.contains(&with_bound), "{on_h200}");
    }

    #[test]
    fn on_a_gpu_of_the_table_the_bound_stands_beside_the_time() {
        let mut r = row("matmul", 2, 4, 0);
        r.sums.bound = Some(0.001);
        let text = format_report(&[r]);
        assert!(
            text.contains("  bound   1.00 ms  25.0% of peak\n"),
            "{text}"
        );
    }
}
