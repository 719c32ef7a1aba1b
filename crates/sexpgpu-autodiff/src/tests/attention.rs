//! Finite-difference checks of fused attention's adjoint (`docs/sexpgpu/
//! operations.md`, "Fused attention"): the gradients of q, k and v with and
//! without the causal mask, over batches, unequal query and key counts and
//! value widths; and the refusal of a second derivative.

use sexpgpu_graph::{DType, Graph, Shape, UnaryOp};

use super::harness::{check_fd, RandomArgs, Rng};
use crate::{grad, GradErrorKind};

/// One attention problem: batch dims, then `t, s, d, e` and the mask.
type Case = (&'static [usize], usize, usize, usize, usize, bool);

#[test]
fn attention_gradients_match_finite_differences() {
    let mut rng = Rng::new(90);
    let cases: [Case; 5] = [
        (&[], 3, 3, 2, 2, false),
        (&[], 4, 4, 3, 2, true),
        (&[2], 3, 5, 2, 3, false),
        (&[2], 5, 3, 2, 4, true),
        (&[2, 2], 4, 6, 3, 1, true),
    ];
    for (i, (batch, t, s, d, e, causal)) in cases.into_iter().enumerate() {
        let with = |last: [usize; 2]| [batch, &last].concat();
        let q = rng.floats(&with([t, d]), -1.5, 1.5);
        let k = rng.floats(&with([s, d]), -1.5, 1.5);
        let v = rng.floats(&with([s, e]), -1.0, 1.0);
        check_fd(90 + i as u64, &[q, k, v], |g, x| {
            let out = g.attention(x[0], x[1], x[2], causal, None)?;
            // A nonlinearity after the output, so its adjoint is not uniform.
            g.unary(UnaryOp::Sin, out)
        });
    }
}

#[test]
fn attention_with_a_scale_and_shared_keys_matches_finite_differences() {
    let mut rng = Rng::new(96);
    // Keys and values shared by two heads (a broadcast batch dim).
    let q = rng.floats(&[2, 3, 2], -1.0, 1.0);
    let k = rng.floats(&[1, 4, 2], -1.0, 1.0);
    let v = rng.floats(&[1, 4, 3], -1.0, 1.0);
    check_fd(96, &[q, k, v], |g, x| {
        let out = g.attention(x[0], x[1], x[2], false, Some(0.7))?;
        g.unary(UnaryOp::Tanh, out)
    });
}

#[test]
fn a_second_derivative_of_attention_is_refused() {
    let mut g = Graph::new("twice");
    let q = g.input("q", Shape::new(vec![2, 3]), DType::F32);
    let out = g.attention(q, q, q, true, None).unwrap();
    let total = g
        .reduce(sexpgpu_graph::ReduceOp::Sum, out, None, false)
        .unwrap();
    let first = grad(&mut g, total, &[q]).unwrap();
    let again = g
        .reduce(sexpgpu_graph::ReduceOp::Sum, first[0], None, false)
        .unwrap();
    let err = grad(&mut g, again, &[q]).unwrap_err();
    assert_eq!(err.kind, GradErrorKind::Rule);
    assert!(
        err.message.contains("can be differentiated once"),
        "{}",
        err.message
    );
}
