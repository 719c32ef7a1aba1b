//! The CPU backend against the reference executor on the random graphs of
//! `common/graphs.rs`: bit for bit for the exact family, within tolerance
//! for the smooth one.

mod common;

use common::graphs::{build, Family};
use common::{check, Tol};
use sexpgpu_graph::DType;

#[test]
fn random_exact_graphs_match_bit_for_bit() {
    let (mut fused, mut reused, mut structured) = (0, 0, 0);
    for seed in 0..150 {
        let b = build(seed, Family::Exact);
        check(&b.g, &b.args, Tol::Exact);
        structured += usize::from(b.structured);
        let program = sexpgpu_cpu::compile(&b.g).unwrap();
        let plan = program.plan();
        fused += plan.fused_nodes;
        reused += usize::from(plan.slots.len() < plan.buffers.len());
    }
    // The graphs really exercise fusion and slot reuse.
    assert!(fused > 100 && reused > 50, "fused {fused}, reused {reused}");
    // and the structured operations (pad, max-pool) often enough.
    assert!(structured > 30, "structured {structured}");
}

#[test]
fn random_smooth_graphs_match_within_tolerance() {
    let mut structured = 0;
    for seed in 1000..1150 {
        let b = build(seed, Family::Smooth);
        structured += usize::from(b.structured);
        let bf16 = b.g.dtype(b.g.outputs()[0]) == DType::BF16
            || b.args.iter().any(|a| a.dtype() == DType::BF16);
        // The GEMM sums in its own order (blocked, with FMA) where the
        // reference sums exactly in f64, so a product may differ by an ulp;
        // a later square and `sin` of an argument near 10^3 turn that ulp
        // into ~2e-4. A real kernel bug is off by far more than 1e-3.
        check(&b.g, &b.args, Tol::Rel(if bf16 { 3e-2 } else { 1e-3 }));
    }
    assert!(structured > 60, "structured {structured}");
}
