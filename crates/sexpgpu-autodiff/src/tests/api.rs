//! What `grad` builds and refuses: the IR of small gradients, the values at
//! ties and kinks (which finite differences cannot check), paths that carry
//! no gradient, and the errors for a bad loss or `wrt`.

use diag::{SourceMap, Span};
use expect_test::expect;
use sexpgpu_graph::{
    print_ir, BinaryOp, CompareOp, DType, Graph, NodeId, ReduceOp, Shape, Tensor, UnaryOp,
};

use super::harness::{check_ir, check_values};

fn constant(g: &mut Graph, dims: &[usize], values: &[f64]) -> NodeId {
    g.constant(Tensor::from_f64s(Shape::from(dims), values, DType::F32).unwrap())
}

#[test]
fn broadcast_adjoint_is_a_sum_and_a_reshape() {
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![3, 1]), DType::F32);
            let y = g.input("y", Shape::new(vec![2, 3, 4]), DType::F32);
            let prod = g.binary(BinaryOp::Mul, x, y)?;
            let loss = g.reduce(ReduceOp::Sum, prod, None, false)?;
            Ok((loss, vec![x]))
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 11)
              %0  = input x                                 [3, 1] f32
              %1  = input y                                 [2, 3, 4] f32
              %2  = broadcast %0                            [2, 3, 4] f32
              %3  = mul %2 %1                               [2, 3, 4] f32
              %4  = sum %3 :axes [0, 1, 2] :keepdims false  [] f32
              %5  = full 1.0                                [] f32
              %6  = reshape %5                              [1, 1, 1] f32
              %7  = broadcast %6                            [2, 3, 4] f32
              %8  = mul %7 %1                               [2, 3, 4] f32
              %9  = sum %8 :axes [0, 2] :keepdims false     [3] f32
              %10 = reshape %9                              [3, 1] f32
              return %10
        "#]],
    );
}

#[test]
fn linear_scan_adjoint_is_a_reversed_scan() {
    check_ir(
        |g| {
            let a = g.input("a", Shape::new(vec![4]), DType::F32);
            let b = g.input("b", Shape::new(vec![4]), DType::F32);
            let h = g.linear_scan(a, b, 0, false)?;
            let loss = g.reduce(ReduceOp::Sum, h, None, false)?;
            Ok((loss, vec![a, b]))
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 15)
              %0  = input a                                   [4] f32
              %1  = input b                                   [4] f32
              %2  = linear-scan %0 %1 :axis 0 :reverse false  [4] f32
              %3  = sum %2 :axes [0] :keepdims false          [] f32
              %4  = full 1.0                                  [] f32
              %5  = reshape %4                                [1] f32
              %6  = broadcast %5                              [4] f32
              %7  = full 0.0                                  [1] f32
              %8  = slice %0 :axis 0 :start 1 :stop 4         [3] f32
              %9  = concat %8 %7 :axis 0                      [4] f32
              %10 = linear-scan %9 %6 :axis 0 :reverse true   [4] f32
              %11 = full 0.0                                  [1] f32
              %12 = slice %2 :axis 0 :start 0 :stop 3         [3] f32
              %13 = concat %11 %12 :axis 0                    [4] f32
              %14 = mul %10 %13                               [4] f32
              return %14 %10
        "#]],
    );
}

#[test]
fn bf16_gradients_stay_bf16() {
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![2]), DType::BF16);
            let e = g.unary(UnaryOp::Exp, x)?;
            let loss = g.reduce(ReduceOp::Sum, e, None, false)?;
            Ok((loss, vec![x]))
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 7)
              %0 = input x                           [2] bf16
              %1 = exp %0                            [2] bf16
              %2 = sum %1 :axes [0] :keepdims false  [] bf16
              %3 = full 1.0                          [] bf16
              %4 = reshape %3                        [1] bf16
              %5 = broadcast %4                      [2] bf16
              %6 = mul %5 %1                         [2] bf16
              return %6
        "#]],
    );
}

#[test]
fn max_shares_the_adjoint_among_ties() {
    check_values(
        |g| {
            let x = constant(g, &[2, 3], &[1.0, 3.0, 3.0, 5.0, 5.0, 5.0]);
            let m = g.reduce(ReduceOp::Max, x, Some(&[1]), false)?;
            let loss = g.reduce(ReduceOp::Sum, m, None, false)?;
            Ok((loss, vec![x]))
        },
        expect!["[[0.0 0.5 0.5] [0.33333334 0.33333334 0.33333334]]"],
    );
}

#[test]
fn maximum_and_minimum_split_ties_in_half() {
    check_values(
        |g| {
            let a = constant(g, &[3], &[1.0, 2.0, 3.0]);
            let b = constant(g, &[3], &[2.0, 2.0, 2.0]);
            let hi = g.binary(BinaryOp::Maximum, a, b)?;
            let lo = g.binary(BinaryOp::Minimum, a, b)?;
            let lo = g.binary(BinaryOp::Mul, lo, 10.0)?;
            let both = g.binary(BinaryOp::Add, hi, lo)?;
            let loss = g.reduce(ReduceOp::Sum, both, None, false)?;
            Ok((loss, vec![a, b]))
        },
        expect![[r#"
            [10.0 5.5 1.0]
            [1.0 5.5 10.0]"#]],
    );
}

#[test]
fn abs_and_pow_at_their_kinks_follow_jax() {
    check_values(
        |g| {
            // abs at 0 takes the slope of the x >= 0 side: 1.
            let x = constant(g, &[3], &[-1.0, 0.0, 2.0]);
            let abs = g.unary(UnaryOp::Abs, x)?;
            let l1 = g.reduce(ReduceOp::Sum, abs, None, false)?;
            // x^0 is 1 everywhere: derivative 0, also at x = 0.
            let zero = constant(g, &[3], &[0.0, 0.0, 0.0]);
            let flat = g.binary(BinaryOp::Pow, x, zero)?;
            let l2 = g.reduce(ReduceOp::Sum, flat, None, false)?;
            // 0^y is 0 for y > 0: derivative in y is 0 there.
            let y = constant(g, &[3], &[1.0, 2.0, 3.0]);
            let base = g.binary(BinaryOp::Mul, x, 0.0)?;
            let pw = g.binary(BinaryOp::Pow, base, y)?;
            let l3 = g.reduce(ReduceOp::Sum, pw, None, false)?;
            let partial = g.binary(BinaryOp::Add, l1, l2)?;
            let loss = g.binary(BinaryOp::Add, partial, l3)?;
            // In order: x; the exponent 0, whose gradient is log(x) (NaN
            // for x < 0, 0 at x = 0); y.
            Ok((loss, vec![x, zero, y]))
        },
        expect![[r#"
            [-1.0 1.0 1.0]
            [##NaN 0.0 0.6931472]
            [-0.0 0.0 0.0]"#]],
    );
}

#[test]
fn casts_pass_float_gradients_and_stop_integer_ones() {
    check_values(
        |g| {
            let x = constant(g, &[2], &[1.5, 2.5]);
            // Through bf16 and back: the identity for gradients.
            let narrow = g.cast(x, DType::BF16);
            let square = g.binary(BinaryOp::Mul, narrow, narrow)?;
            let square = g.cast(square, DType::F32);
            // Through i32: no gradient.
            let int = g.cast(x, DType::I32);
            let back = g.cast(int, DType::F32);
            let both = g.binary(BinaryOp::Add, square, back)?;
            let loss = g.reduce(ReduceOp::Sum, both, None, false)?;
            Ok((loss, vec![x]))
        },
        expect!["[3.0 5.0]"],
    );
}

#[test]
fn an_unreached_parameter_gets_zeros_and_no_backward_nodes() {
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![2]), DType::F32);
            let unused = g.param("unused", Shape::new(vec![3]), DType::F32);
            let ids = g.input("ids", Shape::new(vec![2]), DType::I32);
            let mask = g.compare(CompareOp::Gt, x, 0.0)?;
            let m = g.cast(mask, DType::F32);
            let loss = g.reduce(ReduceOp::Sum, m, None, false)?;
            let _ = ids;
            Ok((loss, vec![x, unused]))
        },
        expect![[r#"
            graph t (inputs 2, params 1, nodes 10)
              %0 = input x                           [2] f32
              %1 = param unused                      [3] f32
              %2 = input ids                         [2] i32
              %3 = full 0.0                          [] f32
              %4 = broadcast %3                      [2] f32
              %5 = gt %0 %4                          [2] bool
              %6 = cast %5                           [2] f32
              %7 = sum %6 :axes [0] :keepdims false  [] f32
              %8 = full 0.0                          [2] f32
              %9 = full 0.0                          [3] f32
              return %8 %9
        "#]],
    );
}

#[test]
fn gradients_with_respect_to_an_intermediate_node() {
    check_values(
        |g| {
            let x = constant(g, &[2], &[1.0, -3.0]);
            let y = g.binary(BinaryOp::Mul, x, 2.0)?;
            let square = g.binary(BinaryOp::Mul, y, y)?;
            let loss = g.reduce(ReduceOp::Sum, square, None, false)?;
            // d/dy = 2y; d/dx = 2 * 2y.
            Ok((loss, vec![y, x]))
        },
        expect![[r#"
            [4.0 -12.0]
            [8.0 -24.0]"#]],
    );
}

#[test]
fn the_loss_itself_has_gradient_one() {
    check_values(
        |g| {
            let x = constant(g, &[], &[4.0]);
            Ok((x, vec![x]))
        },
        expect!["1.0"],
    );
}

#[test]
fn a_loss_that_is_not_a_scalar_is_refused() {
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![4, 3]), DType::F32);
            Ok((x, vec![x]))
        },
        expect![[r#"
            error: grad: the loss must be a scalar [], got [4, 3] f32
            note: reduce it to one number first, e.g. with `sum` or `nn/mean`
        "#]],
    );
}

#[test]
fn an_integer_loss_is_refused() {
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![]), DType::I32);
            Ok((x, vec![]))
        },
        expect![[r#"
            error: grad: the loss must be a float (f32 or bf16), got [] i32
            note: integer and boolean values have no gradient; `cast` the loss to f32
        "#]],
    );
}

#[test]
fn an_integer_wrt_is_refused() {
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![]), DType::F32);
            let ids = g.input("ids", Shape::new(vec![3]), DType::I64);
            Ok((x, vec![x, ids]))
        },
        expect![[r#"
            error: grad: cannot differentiate with respect to %1, a [3] i64 tensor; only floats have gradients
        "#]],
    );
}

#[test]
fn a_node_outside_the_graph_is_refused() {
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![]), DType::F32);
            Ok((x, vec![NodeId(7)]))
        },
        expect![[r#"
            error: grad: node %7 is not in graph t (1 nodes)
        "#]],
    );
}

#[test]
fn backward_nodes_point_at_the_forward_form() {
    let mut sources = SourceMap::new();
    let file = sources.add("m.sx", "(sum (exp x))\n");
    let mut g = Graph::new("t");
    let x = g.input("x", Shape::new(vec![2]), DType::F32);
    g.set_span(Some(Span::new(file, 5, 12)));
    let e = g.unary(UnaryOp::Exp, x).unwrap();
    g.set_span(Some(Span::new(file, 0, 13)));
    let loss = g.reduce(ReduceOp::Sum, e, None, false).unwrap();
    g.set_span(None);
    let grads = crate::grad(&mut g, loss, &[x]).unwrap();
    assert_eq!(g.span(), None, "the caller's span is restored");
    g.set_outputs(grads);
    expect![[r#"
        graph t (inputs 1, params 0, nodes 7)
          %0 = input x                           [2] f32
          %1 = exp %0                            [2] f32       m.sx:1:6
          %2 = sum %1 :axes [0] :keepdims false  [] f32        m.sx:1:1
          %3 = full 1.0                          [] f32        m.sx:1:1
          %4 = reshape %3                        [1] f32       m.sx:1:1
          %5 = broadcast %4                      [2] f32       m.sx:1:1
          %6 = mul %5 %1                         [2] f32       m.sx:1:6
          return %6
    "#]]
    .assert_eq(&print_ir(&g, &sources));
}

#[test]
fn disjoint_slice_adjoints_join_into_one_concat() {
    // q, k and v slices of one projection: their zero-padded adjoints are
    // joined, not added (the later nodes are the only ones the result uses).
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![2, 6]), DType::F32);
            let q = g.slice(x, 1, 0, 2)?;
            let k = g.slice(x, 1, 2, 4)?;
            let v = g.slice(x, 1, 4, 6)?;
            let qk = g.binary(BinaryOp::Mul, q, k)?;
            let all = g.binary(BinaryOp::Mul, qk, v)?;
            let loss = g.reduce(ReduceOp::Sum, all, None, false)?;
            Ok((loss, vec![x]))
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 24)
              %0  = input x                              [2, 6] f32
              %1  = slice %0 :axis 1 :start 0 :stop 2    [2, 2] f32
              %2  = slice %0 :axis 1 :start 2 :stop 4    [2, 2] f32
              %3  = slice %0 :axis 1 :start 4 :stop 6    [2, 2] f32
              %4  = mul %1 %2                            [2, 2] f32
              %5  = mul %4 %3                            [2, 2] f32
              %6  = sum %5 :axes [0, 1] :keepdims false  [] f32
              %7  = full 1.0                             [] f32
              %8  = reshape %7                           [1, 1] f32
              %9  = broadcast %8                         [2, 2] f32
              %10 = mul %9 %3                            [2, 2] f32
              %11 = mul %9 %4                            [2, 2] f32
              %12 = mul %10 %2                           [2, 2] f32
              %13 = mul %10 %1                           [2, 2] f32
              %14 = full 0.0                             [2, 4] f32
              %15 = concat %14 %11 :axis 1               [2, 6] f32
              %16 = full 0.0                             [2, 2] f32
              %17 = full 0.0                             [2, 2] f32
              %18 = concat %16 %13 %17 :axis 1           [2, 6] f32
              %19 = full 0.0                             [2, 2] f32
              %20 = concat %19 %13 %11 :axis 1           [2, 6] f32
              %21 = full 0.0                             [2, 4] f32
              %22 = concat %12 %21 :axis 1               [2, 6] f32
              %23 = concat %12 %13 %11 :axis 1           [2, 6] f32
              return %23
        "#]],
    );
}

#[test]
fn a_gathers_adjoint_accumulates_into_the_other_contribution() {
    // `x` is gathered and squared: the gather's adjoint adds into the
    // square's (one scatter-add over it), with no zero tensor and no `add`.
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![2, 3]), DType::F32);
            let ids = g.input("ids", Shape::new(vec![2, 1]), DType::I64);
            let picked = g.gather(x, ids, 1)?;
            let square = g.binary(BinaryOp::Mul, x, x)?;
            let a = g.reduce(ReduceOp::Sum, picked, None, false)?;
            let b = g.reduce(ReduceOp::Sum, square, None, false)?;
            let loss = g.binary(BinaryOp::Add, a, b)?;
            Ok((loss, vec![x]))
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 18)
              %0  = input x                              [2, 3] f32
              %1  = input ids                            [2, 1] i64
              %2  = gather %0 %1 :axis 1                 [2, 1] f32
              %3  = mul %0 %0                            [2, 3] f32
              %4  = sum %2 :axes [0, 1] :keepdims false  [] f32
              %5  = sum %3 :axes [0, 1] :keepdims false  [] f32
              %6  = add %4 %5                            [] f32
              %7  = full 1.0                             [] f32
              %8  = reshape %7                           [1, 1] f32
              %9  = broadcast %8                         [2, 3] f32
              %10 = reshape %7                           [1, 1] f32
              %11 = broadcast %10                        [2, 1] f32
              %12 = mul %9 %0                            [2, 3] f32
              %13 = mul %9 %0                            [2, 3] f32
              %14 = add %12 %13                          [2, 3] f32
              %15 = full 0.0                             [2, 3] f32
              %16 = scatter-add %15 %1 %11 :axis 1       [2, 3] f32
              %17 = scatter-add %14 %1 %11 :axis 1       [2, 3] f32
              return %17
        "#]],
    );
}

#[test]
fn a_weights_gradient_over_a_batch_is_one_product() {
    // `x [2 4 3] @ w [3 5]`: `w`'s adjoint is `x` folded to `[8 3]`,
    // transposed, times the adjoint folded to `[8 5]`: no `[2 3 5]`
    // products summed over the batch.
    check_ir(
        |g| {
            let x = g.input("x", Shape::new(vec![2, 4, 3]), DType::F32);
            let w = g.input("w", Shape::new(vec![3, 5]), DType::F32);
            let y = g.matmul(x, w)?;
            let loss = g.reduce(ReduceOp::Sum, y, None, false)?;
            Ok((loss, vec![w]))
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 14)
              %0  = input x                                 [2, 4, 3] f32
              %1  = input w                                 [3, 5] f32
              %2  = broadcast %1                            [2, 3, 5] f32
              %3  = matmul %0 %2                            [2, 4, 5] f32
              %4  = sum %3 :axes [0, 1, 2] :keepdims false  [] f32
              %5  = full 1.0                                [] f32
              %6  = reshape %5                              [1, 1, 1] f32
              %7  = broadcast %6                            [2, 4, 5] f32
              %8  = transpose %0 [0, 2, 1]                  [2, 3, 4] f32
              %9  = matmul %8 %7                            [2, 3, 5] f32
              %10 = transpose %8 [1, 0, 2]                  [3, 2, 4] f32
              %11 = reshape %10                             [3, 8] f32
              %12 = reshape %7                              [8, 5] f32
              %13 = matmul %11 %12                          [3, 5] f32
              return %13
        "#]],
    );
}

#[test]
fn a_weights_gradient_stays_batched_where_folding_would_copy_more() {
    // `w [4 3] @ x [2 3 6]`, a convolution's weight times its columns:
    // folding would copy the adjoint `[2 4 6]` and `x` transposed `[2 6 3]`,
    // more than the `[2 4 3]` products summed over the batch.
    check_ir(
        |g| {
            let w = g.input("w", Shape::new(vec![4, 3]), DType::F32);
            let x = g.input("x", Shape::new(vec![2, 3, 6]), DType::F32);
            let y = g.matmul(w, x)?;
            let loss = g.reduce(ReduceOp::Sum, y, None, false)?;
            Ok((loss, vec![w]))
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 11)
              %0  = input w                                 [4, 3] f32
              %1  = input x                                 [2, 3, 6] f32
              %2  = broadcast %0                            [2, 4, 3] f32
              %3  = matmul %2 %1                            [2, 4, 6] f32
              %4  = sum %3 :axes [0, 1, 2] :keepdims false  [] f32
              %5  = full 1.0                                [] f32
              %6  = reshape %5                              [1, 1, 1] f32
              %7  = broadcast %6                            [2, 4, 6] f32
              %8  = transpose %1 [0, 2, 1]                  [2, 6, 3] f32
              %9  = matmul %7 %8                            [2, 4, 3] f32
              %10 = sum %9 :axes [0] :keepdims false        [4, 3] f32
              return %10
        "#]],
    );
}
