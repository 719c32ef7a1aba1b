//! The cost model as `sexpgpu ir --cost` prints it: a line per launch
//! (bytes read and written, GFLOP, lower bound and what bounds it), then
//! the launches grouped by kind, then the plan's total. Plain text.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::count::{plan_costs, Cost};
use super::gpu::{Bound, Gpu};
use crate::plan::Plan;

/// Bytes as decimal gigabytes (10^9), as bandwidths are given.
pub fn gigabytes(bytes: u64) -> f64 {
    bytes as f64 / 1e9
}

/// The achieved rates of `bytes` and `flops` moved and computed in
/// `seconds`: `GB/s` and `TFLOPS`, aligned for a table.
pub fn format_rates(bytes: u64, flops: u64, seconds: f64) -> String {
    let seconds = seconds.max(1e-12);
    format!(
        "{:>9.1} GB/s {:>8.3} TFLOPS",
        gigabytes(bytes) / seconds,
        flops as f64 / seconds / 1e12
    )
}

/// The summed costs and bounds of a group of launches.
#[derive(Default)]
struct Group {
    launches: u64,
    read: u64,
    written: u64,
    flops: u64,
    bound: Bound,
    seconds: f64,
}

impl Group {
    fn add(&mut self, cost: &Cost, bound: Bound) {
        self.launches += 1;
        self.read += cost.read;
        self.written += cost.written;
        self.flops += cost.flops;
        self.bound.memory += bound.memory;
        self.bound.compute += bound.compute;
        self.seconds += bound.seconds();
    }
}

/// `plan`'s cost on `gpu`: each launch, each kind (costliest first) and
/// the total, whose bound is the sum of the launches' (one after another
/// on one stream).
pub fn format_cost(plan: &Plan, gpu: &Gpu) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "cost of {} on {} ({:.0} GB/s; dense TFLOPS: bf16 {:.1}, tf32 {:.1}, f32 {:.1}): a lower bound from the plan",
        plan.graph_name, gpu.name, gpu.bandwidth_gbs, gpu.bf16_tflops, gpu.tf32_tflops, gpu.f32_tflops
    );
    let mut kinds: BTreeMap<&'static str, Group> = BTreeMap::new();
    let mut total = Group::default();
    for (i, cost) in plan_costs(plan).iter().enumerate() {
        let bound = gpu.bound(cost);
        let _ = writeln!(
            out,
            "  k{i:<5} {:<18} {:<7} read {:>10.3} MB  write {:>10.3} MB {:>10.3} GFLOP  bound {:>9.2} us {}",
            cost.kind,
            plan.launches[i].node.to_string(),
            cost.read as f64 / 1e6,
            cost.written as f64 / 1e6,
            cost.flops as f64 / 1e9,
            bound.seconds() * 1e6,
            bound.limit()
        );
        kinds.entry(cost.kind).or_default().add(cost, bound);
        total.add(cost, bound);
    }
    write_kinds(&mut out, kinds, total.seconds);
    let _ = writeln!(
        out,
        "total: {} launches, {:.3} GB moved, {:.3} TFLOP, lower bound {:.3} ms (bytes alone {:.3} ms, FLOPs alone {:.3} ms)",
        total.launches,
        gigabytes(total.read + total.written),
        total.flops as f64 / 1e12,
        total.seconds * 1e3,
        total.bound.memory * 1e3,
        total.bound.compute * 1e3
    );
    out
}

/// One line per kind, the costliest bound first.
fn write_kinds(out: &mut String, kinds: BTreeMap<&'static str, Group>, total: f64) {
    let mut kinds: Vec<(&str, Group)> = kinds.into_iter().collect();
    kinds.sort_by(|a, b| b.1.seconds.total_cmp(&a.1.seconds));
    let _ = writeln!(out, "by kind:");
    for (kind, g) in kinds {
        let _ = writeln!(
            out,
            "  {kind:<18} {:>6} launches {:>10.3} GB {:>11.3} GFLOP  bound {:>9.3} ms {:>5.1}%  (bytes {:.3} ms, FLOPs {:.3} ms)",
            g.launches,
            gigabytes(g.read + g.written),
            g.flops as f64 / 1e9,
            g.seconds * 1e3,
            g.seconds / total.max(1e-300) * 100.0,
            g.bound.memory * 1e3,
            g.bound.compute * 1e3
        );
    }
}
