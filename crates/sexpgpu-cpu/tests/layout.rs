//! Layout nodes (`reshape`, `broadcast-to`, `transpose`, `slice`,
//! `concat`) as views: returned directly, read by fused loops, and read by
//! kernels that need consecutive elements (which copy them), on every dtype.

mod common;

use common::{check, tensor, Rng, Tol};
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
