//! Nodes made from nothing: random streams must give exactly the reference's
//! numbers (same Threefry stream, same rounding), and `iota`, `full` and
//! constants must too, alone and fused into consumers.

mod common;

use common::{check, Tol};
use sexpgpu_graph::{BinaryOp, DType, Graph, Scalar, Shape, Tensor};

#[test]
fn random_streams_are_the_references() {
    for dtype in [DType::F32, DType::BF16] {
        let mut g = Graph::new("random");
        let n = g.normal(Shape::from([70, 1000]), dtype, 0.5, 2.0).unwrap();
        let u = g
            .uniform(Shape::from([3, 50_000]), dtype, -1.0, 1.0)
            .unwrap();
        // A range so narrow that rounding reaches `high`: kept half-open.
        let tight = g
            .uniform(Shape::from([1000]), dtype, 1.0, 1.0 + 1e-7)
            .unwrap();
        let zero = g.normal(Shape::from([4]), dtype, 3.0, 0.0).unwrap();
        let noisy = g.binary(BinaryOp::Mul, n, Scalar::Float(0.1)).unwrap();
        g.set_outputs(vec![n, u, tight, zero, noisy]);
        check(&g, &[], Tol::Exact);
    }
}

#[test]
fn iota_full_and_constants() {
    let mut g = Graph::new("sources");
    let i = g.iota(Shape::from([4, 300]), 1, DType::I32).unwrap();
    let j = g.iota(Shape::from([4, 3, 2]), 0, DType::I64).unwrap();
    // A number that does not fit the dtype is refused when the graph is
    // built; arithmetic on i32 elements near the limit still wraps at run
    // time, as PyTorch's does.
    assert!(g
        .full(Shape::from([4, 300]), Scalar::Int(1 << 40), DType::I32)
        .is_err());
    let f = g
        .full(
            Shape::from([4, 300]),
            Scalar::Int(i64::from(i32::MAX)),
            DType::I32,
        )
        .unwrap();
    let sum = g.binary(BinaryOp::Add, i, f).unwrap();
    let c = g.constant(
        Tensor::from_f64s(
            Shape::from([2, 3]),
            &[0.1, 0.2, 0.3, 1e30, -1e-30, 7.0],
            DType::BF16,
        )
        .unwrap(),
    );
    let c2 = g.binary(BinaryOp::Mul, c, c).unwrap();
    let t = g
        .full(Shape::from([3]), Scalar::Bool(true), DType::Bool)
        .unwrap();
    g.set_outputs(vec![i, j, sum, c, c2, t]);
    check(&g, &[], Tol::Exact);
}
