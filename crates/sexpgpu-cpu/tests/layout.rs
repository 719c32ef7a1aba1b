//! Layout nodes (`reshape`, `broadcast-to`, `transpose`, `slice`,
//! `concat`) as views: returned directly, read by fused loops, and read by
//! kernels that need consecutive elements (which copy them), on every dtype.

mod common;

use common::{accum_tol, check, tensor, Rng, Tol};
use sexpgpu_graph::{BinaryOp, DType, Graph, ReduceOp, Shape};

#[test]
fn views_returned_fused_and_copied() {
    let mut rng = Rng::new(10);
    for dtype in DType::ALL {
        let mut g = Graph::new("views");
        let x = g.input("x", Shape::from([4, 6, 5]), dtype);
        let t = g.transpose(x, &[2, 0, 1]).unwrap(); // [5, 4, 6]
        let s = g.slice(t, 2, 1, 4).unwrap(); // [5, 4, 3]
        let r = g.reshape(s, Shape::from([20, 3])).unwrap(); // needs a copy
        let row = g.slice(x, 0, 1, 3).unwrap(); // consecutive rows: no copy
        let flat = g.reshape(row, Shape::from([60])).unwrap();
        let b = g.broadcast_to(flat, Shape::from([2, 60])).unwrap();
        let c = g.concat(0, &[b, b]).unwrap();
        let c2 = g.concat(1, &[r, r, r]).unwrap();
        let mut outs = vec![t, s, r, flat, b, c, c2];
        if dtype.is_numeric() {
            let sum = g.binary(BinaryOp::Add, t, t).unwrap();
            let red = g.reduce(ReduceOp::Max, s, Some(&[0]), false).unwrap();
            outs.extend([sum, red]);
        }
        g.set_outputs(outs);
        check(&g, &[tensor(&mut rng, &[4, 6, 5], dtype)], Tol::Exact);
    }
}

#[test]
fn splats_and_returned_arguments() {
    let mut rng = Rng::new(11);
    let mut g = Graph::new("splats");
    let x = g.input("x", Shape::from([3, 4]), DType::BF16);
    let z = g
        .full(
            Shape::from([3, 4]),
            sexpgpu_graph::Scalar::Float(0.1),
            DType::BF16,
        )
        .unwrap();
    let zt = g.transpose(z, &[1, 0]).unwrap();
    let ones = g.ones(Shape::from([2, 2]), DType::I32);
    let c = g.concat(0, &[x, z]).unwrap();
    g.set_outputs(vec![x, z, zt, ones, c, x]);
    check(&g, &[tensor(&mut rng, &[3, 4], DType::BF16)], Tol::Exact);
}

#[test]
fn empty_and_scalar_tensors() {
    let mut rng = Rng::new(12);
    let mut g = Graph::new("edges");
    let x = g.input("x", Shape::from([0, 3]), DType::F32);
    let s = g.input("s", Shape::scalar(), DType::F32);
    let y = g.binary(BinaryOp::Mul, x, s).unwrap();
    let t = g.transpose(x, &[1, 0]).unwrap();
    let sum = g.reduce(ReduceOp::Sum, x, Some(&[0]), false).unwrap();
    let b = g.broadcast_to(s, Shape::from([2, 2])).unwrap();
    let s2 = g.binary(BinaryOp::Add, s, s).unwrap();
    g.set_outputs(vec![y, t, sum, b, s2]);
    check(
        &g,
        &[
            tensor(&mut rng, &[0, 3], DType::F32),
            tensor(&mut rng, &[], DType::F32),
        ],
        Tol::Exact,
    );
}

#[test]
fn large_concat_pieces_are_copied_in_parallel_rows() {
    // Each piece is over the per-thread minimum, so its strided destination
    // rows are split over threads; sources are transposed views and splats,
    // and the row count (3 * 7 * 1601) does not split evenly.
    let mut rng = Rng::new(13);
    let mut g = Graph::new("concat");
    let x = g.input("x", Shape::from([5, 1601, 21]), DType::F32);
    let t = g.transpose(x, &[1, 0, 2]).unwrap(); // [1601, 5, 21]
    let a = g.slice(t, 1, 0, 3).unwrap(); // [1601, 3, 21]
    let z = g
        .full(
            Shape::from([1601, 3, 7]),
            sexpgpu_graph::Scalar::Float(0.5),
            DType::F32,
        )
        .unwrap();
    let c = g.concat(2, &[z, a, z]).unwrap(); // [1601, 3, 35]
    let y = g.binary(BinaryOp::Mul, c, c).unwrap();
    g.set_outputs(vec![c, y]);
    check(
        &g,
        &[tensor(&mut rng, &[5, 1601, 21], DType::F32)],
        Tol::Exact,
    );
}

#[test]
fn reshapes_no_view_expresses_are_read_in_order_or_copied_once() {
    // `[2, 3, 4]` transposed to `[3, 2, 4]` then merged to `[3, 8]`: fused
    // loops and concatenation read the transposed view in order; a matmul
    // (compared within its accumulation tolerance), a reduction, a further
    // transpose or reshape, and the output itself need the merged dims.
    let mut rng = Rng::new(14);
    let mut g = Graph::new("reshaped");
    let x = g.input("x", Shape::from([2, 3, 4]), DType::F32);
    let w = g.input("w", Shape::from([8, 5]), DType::F32);
    let t = g.transpose(x, &[1, 0, 2]).unwrap();
    let r = g.reshape(t, Shape::from([3, 8])).unwrap();
    let doubled = g.binary(BinaryOp::Add, r, r).unwrap();
    let joined = g.concat(1, &[r, doubled]).unwrap();
    let product = g.matmul(r, w).unwrap();
    let sums = g.reduce(ReduceOp::Sum, r, Some(&[1]), false).unwrap();
    let back = g.transpose(r, &[1, 0]).unwrap();
    let again = g.reshape(r, Shape::from([4, 6])).unwrap();
    let again_t = g.transpose(again, &[1, 0]).unwrap();
    let args = [
        tensor(&mut rng, &[2, 3, 4], DType::F32),
        tensor(&mut rng, &[8, 5], DType::F32),
    ];
    g.set_outputs(vec![r, doubled, joined, sums, back, again, again_t]);
    check(&g, &args, Tol::Exact);
    g.set_outputs(vec![product, r]);
    check(&g, &args, accum_tol(DType::F32, 8));
}
