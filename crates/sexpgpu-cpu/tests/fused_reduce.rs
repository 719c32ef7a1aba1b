//! Sums and maxima over trailing axes of values a fused loop computes
//! (`Step::FusedReduce`): never stored, folded row by row in the order a
//! stored input is, so they equal the reference's bit for bit; a sum over
//! everything within the tolerance of its per-thread partials.

mod common;

use common::{accum_tol, check, tensor, Rng, Tol};
use sexpgpu_cpu::compile;
use sexpgpu_graph::{BinaryOp, DType, Graph, ReduceOp, Shape, UnaryOp};

/// `op` over `axes` of `exp(x) * y + 1` for `x`, `y` of `dims` and `dtype`.
fn graph(dims: &[usize], axes: &[usize], op: ReduceOp, dtype: DType) -> Graph {
    let mut g = Graph::new("fused-reduce");
    let x = g.input("x", Shape::from(dims), dtype);
    let y = g.input("y", Shape::from(dims), dtype);
    let e = g.unary(UnaryOp::Exp, x).unwrap();
    let p = g.binary(BinaryOp::Mul, e, y).unwrap();
    let v = g.binary(BinaryOp::Add, p, 1.0).unwrap();
    let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let r = g.reduce(op, v, Some(&axes), true).unwrap();
    g.set_outputs(vec![r]);
    g
}

fn run(dims: &[usize], axes: &[usize], op: ReduceOp, dtype: DType, tol: Tol) -> String {
    let mut rng = Rng::new(dims.iter().sum::<usize>() as u64);
    let g = graph(dims, axes, op, dtype);
    let args = [tensor(&mut rng, dims, dtype), tensor(&mut rng, dims, dtype)];
    check(&g, &args, tol);
    compile(&g).unwrap().describe()
}

#[test]
fn row_reductions_fold_the_computed_values_in_order() {
    // Short rows over many threads' chunks, rows longer than a block,
    // trailing axes behind a dim of 1, bf16, and max.
    let cases: [(&[usize], &[usize], ReduceOp, DType); 6] = [
        (&[3001, 37], &[1], ReduceOp::Sum, DType::F32),
        (&[4, 9001], &[1], ReduceOp::Sum, DType::F32),
        (&[50, 1, 40, 13], &[2, 3], ReduceOp::Sum, DType::F32),
        (&[700, 64], &[1], ReduceOp::Sum, DType::BF16),
        (&[3001, 37], &[1], ReduceOp::Max, DType::F32),
        (&[9, 5000], &[1], ReduceOp::Max, DType::BF16),
    ];
    for (dims, axes, op, dtype) in cases {
        let program = run(dims, axes, op, dtype, Tol::Exact);
        assert!(program.contains("fused-"), "not fused:\n{program}");
        assert!(
            !program.contains(" fused %"),
            "the values were stored:\n{program}"
        );
    }
}

#[test]
fn sums_over_everything_are_fused_and_other_axes_are_stored() {
    let program = run(
        &[300, 301],
        &[0, 1],
        ReduceOp::Sum,
        DType::F32,
        accum_tol(DType::F32, 90300),
    );
    assert!(program.contains("fused-sum"), "not fused:\n{program}");
    // A sum over leading axes reads stored values.
    let program = run(&[300, 7], &[0], ReduceOp::Sum, DType::F32, Tol::Exact);
    assert!(
        program.contains("reduce-sum") && program.contains(" fused %"),
        "{program}"
    );
}
