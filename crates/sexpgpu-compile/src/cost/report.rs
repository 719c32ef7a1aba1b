//! The cost model as `sexpgpu ir --cost` prints it: a line per launch
//! (bytes read and written, GFLOP, lower bound and what bounds it), then
//! the launches grouped by kind, then the plan's total. Plain text.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::count::{plan_costs, Cost};
use super::gpu::{Bound, Gpu};
use crate::plan::Plan;

/// `value` of `unit` with a decimal prefix (`k`, `M`, `G`, `T`, as
/// bandwidths and rates are given) and 3 significant digits: `12.6 MB`.
pub fn si(value: f64, unit: &str) -> String {
    let mut v = value;
    let mut prefix = 0;
    while v.abs() >= 999.5 && prefix < 4 {
        v /= 1e3;
        prefix += 1;
    }
    let digits = if v.abs() >= 99.95 || prefix == 0 && v.fract() == 0.0 {
        0
    } else if v.abs() >= 9.995 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {}{unit}", ["", "k", "M", "G", "T"][prefix])
}

/// A time in seconds as `ns`, `us`, `ms` or `s`, 3 significant digits.
pub fn duration(seconds: f64) -> String {
    let (v, unit) = match seconds {
        s if s >= 1.0 => (s, "s"),
        s if s >= 1e-3 => (s * 1e3, "ms"),
        s if s >= 1e-6 => (s * 1e6, "us"),
        s => (s * 1e9, "ns"),
    };
    let digits = if v >= 99.95 {
        0
    } else if v >= 9.995 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

/// The achieved rates of `bytes` and `flops` moved and computed in
/// `seconds`: `GB/s` and `TFLOPS`, aligned for a table.
pub fn format_rates(bytes: u64, flops: u64, seconds: f64) -> String {
    let seconds = seconds.max(1e-12);
    format!(
        "{:>11} {:>13}",
        si(bytes as f64 / seconds, "B/s"),
        si(flops as f64 / seconds, "FLOPS")
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
            "  k{i:<5} {:<18} {:<7} read {:>9}  write {:>9} {:>12}  bound {:>9} {}",
            cost.kind,
            plan.launches[i].node.to_string(),
            si(cost.read as f64, "B"),
            si(cost.written as f64, "B"),
            si(cost.flops as f64, "FLOP"),
            duration(bound.seconds()),
            bound.limit()
        );
        kinds.entry(cost.kind).or_default().add(cost, bound);
        total.add(cost, bound);
    }
    write_kinds(&mut out, kinds, &total);
    out
}

/// One line per kind, the costliest bound first, then the total's.
fn write_kinds(out: &mut String, kinds: BTreeMap<&'static str, Group>, total: &Group) {
    let mut kinds: Vec<(&str, Group)> = kinds.into_iter().collect();
    kinds.sort_by(|a, b| b.1.seconds.total_cmp(&a.1.seconds));
    let _ = writeln!(out, "by kind:");
    for (kind, g) in &kinds {
        out.push_str(&group_line(&format!("  {kind}"), g, total.seconds));
    }
    out.push_str(&group_line("total:", total, total.seconds));
}

/// A group's launches, bytes moved, FLOPs, bound and share of `total`
/// seconds, and what its bytes alone and its FLOPs alone would take.
fn group_line(label: &str, g: &Group, total: f64) -> String {
    format!(
        "{label:<20} {:>6} launches {:>9} {:>12}  bound {:>9} {:>5.1}%  (bytes {}, FLOPs {})\n",
        g.launches,
        si((g.read + g.written) as f64, "B"),
        si(g.flops as f64, "FLOP"),
        duration(g.seconds),
        g.seconds / total.max(1e-300) * 100.0,
        duration(g.bound.memory),
        duration(g.bound.compute)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_take_a_prefix_and_three_digits() {
        assert_eq!(si(0.0, "B"), "0 B");
        assert_eq!(si(512.0, "B"), "512 B");
        assert_eq!(si(12_582_912.0, "B"), "12.6 MB");
        assert_eq!(si(7.3e12, "FLOP"), "7.30 TFLOP");
        assert_eq!(si(999.6e3, "B"), "1.00 MB");
        assert_eq!(duration(0.009_123), "9.12 ms");
        assert_eq!(duration(2.5e-7), "250 ns");
        assert_eq!(duration(3.0), "3.00 s");
    }
}
