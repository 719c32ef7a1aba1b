//! Values the reference executor computes on small graphs, checked by hand.

use expect_test::{expect, Expect};

use super::execute;
use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Builds a graph from constants, runs it with seed 0 and prints its outputs.
fn check(build: impl FnOnce(&mut Graph) -> Result<Vec<NodeId>, OpError>, expect: Expect) {
    let mut g = Graph::new("t");
    let outputs = build(&mut g).expect("the graph builds");
    g.set_outputs(outputs);
    let text = match execute(&g, &[], 0) {
        Ok(values) => values
            .iter()
            .map(|t| format!("{} {} {t}", t.shape(), t.dtype()))
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("error: {e}"),
    };
    expect.assert_eq(&text);
}

fn floats(g: &mut Graph, dims: &[usize], values: &[f64], dtype: DType) -> NodeId {
    g.constant(Tensor::from_f64s(Shape::from(dims), values, dtype).unwrap())
}

fn ints(g: &mut Graph, dims: &[usize], values: &[i64], dtype: DType) -> NodeId {
    g.constant(Tensor::from_i64s(Shape::from(dims), values, dtype).unwrap())
}

#[test]
fn matmul_and_broadcast_arithmetic() {
    check(
        |g| {
            let a = floats(g, &[2, 2], &[1.0, 2.0, 3.0, 4.0], DType::F32);
            let b = floats(g, &[2], &[10.0, 100.0], DType::F32);
            let m = g.matmul(a, b)?;
            let s = g.binary(BinaryOp::Add, a, b)?;
            Ok(vec![m, s])
        },
        expect![[r#"
            [2] f32 [210.0 430.0]
            [2, 2] f32 [[11.0 102.0] [13.0 104.0]]"#]],
    );
}

#[test]
fn integer_arithmetic_wraps() {
    check(
        |g| {
            let a = ints(
                g,
                &[3],
                &[i64::from(i32::MAX), i64::from(i32::MIN), -7],
                DType::I32,
            );
            let plus = g.binary(BinaryOp::Add, a, 1)?;
            let abs = g.unary(UnaryOp::Abs, a)?;
            let neg = g.unary(UnaryOp::Neg, a)?;
            Ok(vec![plus, abs, neg])
        },
        expect![[r#"
            [3] i32 [-2147483648 -2147483647 -6]
            [3] i32 [2147483647 -2147483648 7]
            [3] i32 [-2147483647 -2147483648 7]"#]],
    );
}

#[test]
fn reductions_and_nan() {
    check(
        |g| {
            let a = floats(
                g,
                &[2, 3],
                &[1.0, f64::NAN, 3.0, 4.0, 5.0, -6.0],
                DType::F32,
            );
            let m = g.reduce(ReduceOp::Max, a, Some(&[1]), true)?;
            let s = g.reduce(ReduceOp::Sum, a, Some(&[0]), false)?;
            let z = g.zeros(Shape::from([2, 3]), DType::F32);
            let mx = g.binary(BinaryOp::Maximum, a, z)?;
            let eq = g.compare(CompareOp::Ne, a, a)?;
            Ok(vec![m, s, mx, eq])
        },
        expect![[r#"
            [2, 1] f32 [[##NaN] [5.0]]
            [3] f32 [5.0 ##NaN -3.0]
            [2, 3] f32 [[1.0 ##NaN 3.0] [4.0 5.0 0.0]]
            [2, 3] bool [[false true false] [false false false]]"#]],
    );
}

#[test]
fn casts_truncate_saturate_and_round() {
    check(
        |g| {
            let a = floats(g, &[5], &[-1.7, 2.9, 1e10, f64::NAN, 0.0], DType::F32);
            let i = g.cast(a, DType::I32);
            let b = g.cast(a, DType::Bool);
            let h = floats(g, &[2], &[1.0 / 3.0, 257.0], DType::F32);
            let bf = g.cast(h, DType::BF16);
            let big = ints(g, &[1], &[1 << 40], DType::I64);
            let wrapped = g.cast(big, DType::I32);
            Ok(vec![i, b, bf, wrapped])
        },
        expect![[r#"
            [5] i32 [-1 2 2147483647 0 0]
            [5] bool [true true true true false]
            [2] bf16 [0.33398438 256.0]
            [1] i32 [0]"#]],
    );
}

#[test]
fn layout_moves() {
    check(
        |g| {
            let a = ints(g, &[2, 3], &[0, 1, 2, 3, 4, 5], DType::I64);
            let t = g.transpose(a, &[1, 0])?;
            let s = g.slice(a, 1, 1, 3)?;
            let c = g.concat(1, &[a, s])?;
            let b = ints(g, &[3], &[7, 8, 9], DType::I64);
            let bb = g.broadcast_to(b, Shape::from([2, 3]))?;
            let i = g.iota(Shape::from([2, 3]), 0, DType::I32)?;
            Ok(vec![t, s, c, bb, i])
        },
        expect![[r#"
            [3, 2] i64 [[0 3] [1 4] [2 5]]
            [2, 2] i64 [[1 2] [4 5]]
            [2, 5] i64 [[0 1 2 1 2] [3 4 5 4 5]]
            [2, 3] i64 [[7 8 9] [7 8 9]]
            [2, 3] i32 [[0 0 0] [1 1 1]]"#]],
    );
}

#[test]
fn index_and_its_adjoint() {
    check(
        |g| {
            let table = floats(g, &[3, 2], &[0.0, 1.0, 10.0, 11.0, 20.0, 21.0], DType::F32);
            let ids = ints(g, &[2, 2], &[2, 0, 2, 2], DType::I32);
            let rows = g.index(table, ids)?;
            let base = g.zeros(Shape::from([3, 2]), DType::F32);
            let added = g.index_add(base, ids, rows)?;
            Ok(vec![rows, added])
        },
        expect![[r#"
            [2, 2, 2] f32 [[[20.0 21.0] [0.0 1.0]] [[20.0 21.0] [20.0 21.0]]]
            [3, 2] f32 [[0.0 1.0] [0.0 0.0] [60.0 63.0]]"#]],
    );
}

#[test]
fn gather_and_scatter_add() {
    check(
        |g| {
            let x = ints(g, &[2, 3], &[10, 11, 12, 20, 21, 22], DType::I32);
            let idx = ints(g, &[2, 2], &[2, 2, 0, 1], DType::I64);
            let got = g.gather(x, idx, -1)?;
            let back = g.scatter_add(x, idx, got, 1)?;
            Ok(vec![got, back])
        },
        expect![[r#"
            [2, 2] i32 [[12 12] [20 21]]
            [2, 3] i32 [[10 11 36] [40 42 22]]"#]],
    );
}

#[test]
fn linear_scan_forward_and_reverse() {
    check(
        |g| {
            let b = floats(g, &[4], &[1.0, 2.0, 3.0, 4.0], DType::F32);
            let cumsum = g.linear_scan(1.0, b, 0, false)?;
            let decay = g.linear_scan(0.5, b, 0, false)?;
            let reverse = g.linear_scan(1.0, b, -1, true)?;
            Ok(vec![cumsum, decay, reverse])
        },
        expect![[r#"
            [4] f32 [1.0 3.0 6.0 10.0]
            [4] f32 [1.0 2.5 4.25 6.125]
            [4] f32 [10.0 9.0 7.0 4.0]"#]],
    );
}

#[test]
fn bf16_scan_carries_in_f32() {
    // 256 + 1 + 1 ... is 256 in bf16 if each step were rounded; in f32 the
    // carry reaches 260 and only the output is rounded.
    check(
        |g| {
            let b = floats(g, &[5], &[256.0, 1.0, 1.0, 1.0, 1.0], DType::BF16);
            Ok(vec![g.linear_scan(1.0, b, 0, false)?])
        },
        expect!["[5] bf16 [256.0 256.0 258.0 260.0 260.0]"],
    );
}

#[test]
fn random_nodes_depend_on_seed_and_stream_only() {
    let build = |extra_first: bool| {
        let mut g = Graph::new("t");
        if extra_first {
            // An unrelated node made first must not change the streams.
            g.zeros(Shape::from([7]), DType::F32);
        }
        let n = g.normal(Shape::from([4]), DType::F32, 1.0, 2.0).unwrap();
        let u = g.uniform(Shape::from([4]), DType::BF16, -1.0, 1.0).unwrap();
        g.set_outputs(vec![n, u]);
        g
    };
    let run = |g: &Graph, seed| execute(g, &[], seed).unwrap();
    let (a, b) = (build(false), build(true));
    assert_eq!(run(&a, 5), run(&b, 5));
    assert_ne!(run(&a, 5), run(&a, 6));
    let text: Vec<String> = run(&a, 0).iter().map(|t| t.to_string()).collect();
    expect![[r#"
        [1.1897979 -2.0359945 -0.62357557 1.1999257]
        [-0.83984375 0.84765625 0.46875 0.15917969]"#]]
    .assert_eq(&text.join("\n"));
}

#[test]
fn uniform_stays_below_high_in_bf16() {
    let mut g = Graph::new("t");
    let u = g
        .uniform(Shape::from([4096]), DType::BF16, 0.0, 1.0)
        .unwrap();
    g.set_outputs(vec![u]);
    let values = execute(&g, &[], 3).unwrap()[0].to_f64s();
    assert!(values.iter().all(|&x| (0.0..1.0).contains(&x)));
}

#[test]
fn bad_data_is_an_error() {
    check(
        |g| {
            let table = floats(g, &[3, 2], &[0.0; 6], DType::F32);
            let ids = ints(g, &[2], &[1, 3], DType::I32);
            Ok(vec![g.index(table, ids)?])
        },
        expect!["error: index: id 3 is out of range for an axis of length 3"],
    );
    let mut g = Graph::new("t");
    let x = g.input("x", Shape::from([2]), DType::F32);
    g.set_outputs(vec![x]);
    let wrong = Tensor::from_f64s(Shape::from([3]), &[0.0; 3], DType::F32).unwrap();
    expect!["argument `x` must be [2] f32, got [3] f32"]
        .assert_eq(&execute(&g, &[wrong], 0).unwrap_err().message);
    expect!["graph t takes 1 arguments, got 0"]
        .assert_eq(&execute(&g, &[], 0).unwrap_err().message);
}

#[test]
fn full_values_by_dtype() {
    check(
        |g| {
            let a = g.full(Shape::from([2]), Scalar::Int(3), DType::BF16)?;
            let b = g.ones(Shape::from([2]), DType::Bool);
            let c = g.full(Shape::from([]), Scalar::Int(-4), DType::I64)?;
            Ok(vec![a, b, c])
        },
        expect![[r#"
            [2] bf16 [3.0 3.0]
            [2] bool [true true]
            [] i64 -4"#]],
    );
}

#[test]
fn execute_f64_keeps_floats_unrounded() {
    let mut g = Graph::new("t");
    let x = g.input("x", Shape::from([2]), DType::F32);
    let b = g.input("b", Shape::from([1]), DType::BF16);
    let n = g.input("n", Shape::from([1]), DType::I32);
    let third = g.binary(BinaryOp::Div, x, 3.0).unwrap();
    let scaled = g.binary(BinaryOp::Mul, b, 1.0).unwrap();
    let wrapped = g.binary(BinaryOp::Add, n, 1).unwrap();
    g.set_outputs(vec![third, scaled, wrapped]);
    let out = super::execute_f64(&g, &[vec![1.0, 0.1], vec![1.001], vec![2147483647.0]], 0);
    // f32 would give 0.3333333432674408 and bf16 1.0; integers still wrap.
    assert_eq!(
        out.unwrap(),
        [vec![1.0 / 3.0, 0.1 / 3.0], vec![1.001], vec![-2147483648.0]]
    );
    expect!["argument `b` must be [1] bf16 (1 values), got 2 values"].assert_eq(
        &super::execute_f64(&g, &[vec![1.0, 0.1], vec![1.0, 2.0], vec![0.0]], 0)
            .unwrap_err()
            .message,
    );
}
