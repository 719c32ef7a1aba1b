//! Finite-difference checks of `sum`, `max` and batched `matmul`, including
//! keepdims, several axes, vectors and broadcast batch dims.

use sexpgpu_graph::{ReduceOp, UnaryOp};

use super::harness::{check_fd, RandomArgs, Rng};

#[test]
fn sum_broadcasts_the_adjoint_back() {
    let mut rng = Rng::new(20);
    let cases: [(Option<&[i64]>, bool); 4] = [
        (None, false),
        (Some(&[1]), false),
        (Some(&[0, 2]), true),
        (Some(&[-1]), true),
    ];
    for (i, (axes, keepdims)) in cases.into_iter().enumerate() {
        let x = rng.floats(&[2, 3, 4], -1.0, 1.0);
        check_fd(20 + i as u64, &[x], |g, x| {
            let s = g.reduce(ReduceOp::Sum, x[0], axes, keepdims)?;
            g.unary(UnaryOp::Sin, s)
        });
    }
}

#[test]
fn max_sends_the_adjoint_to_the_maximum() {
    let mut rng = Rng::new(21);
    let cases: [(Option<&[i64]>, bool); 3] =
        [(None, false), (Some(&[1]), false), (Some(&[0, 2]), true)];
    for (i, (axes, keepdims)) in cases.into_iter().enumerate() {
        let x = rng.distinct(&[2, 3, 4], -2.0, 2.0);
        check_fd(21 + i as u64, &[x], |g, x| {
            let m = g.reduce(ReduceOp::Max, x[0], axes, keepdims)?;
            g.unary(UnaryOp::Sin, m)
        });
    }
}

#[test]
fn matmul_of_matrices_vectors_and_batches() {
    let mut rng = Rng::new(22);
    let cases: [(&[usize], &[usize]); 8] = [
        (&[2, 3], &[3, 4]),
        (&[3], &[3, 2]),
        (&[2, 3], &[3]),
        (&[3], &[3]),
        (&[2, 2, 3], &[2, 3, 2]),
        // Batch dims broadcast both ways: [2, 1] against [3].
        (&[2, 1, 2, 3], &[3, 3, 2]),
        // A weight over `[b t]` and over `[b h t]`: its gradient is one
        // product over the folded batch (`layout::folded_product`), and
        // the same the other way round.
        (&[2, 3, 4, 3], &[3, 2]),
        (&[4, 3], &[2, 3, 3, 2]),
    ];
    for (i, (sa, sb)) in cases.into_iter().enumerate() {
        let (a, b) = (rng.floats(sa, -1.0, 1.0), rng.floats(sb, -1.0, 1.0));
        check_fd(30 + i as u64, &[a, b], |g, x| g.matmul(x[0], x[1]));
    }
}
