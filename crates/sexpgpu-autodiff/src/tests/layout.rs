//! Finite-difference checks of the rules of the ops that move elements:
//! `reshape`, `broadcast-to`, `transpose`, `slice` and `concat`.

use sexpgpu_graph::{Shape, UnaryOp};

use super::harness::{check_fd, RandomArgs, Rng};

#[test]
fn reshape_reshapes_the_adjoint_back() {
    let mut rng = Rng::new(10);
    let x = rng.floats(&[2, 6], -1.0, 1.0);
    check_fd(10, &[x], |g, x| {
        let r = g.reshape(x[0], Shape::new(vec![3, 2, 2]))?;
        g.unary(UnaryOp::Sin, r)
    });
}

#[test]
fn broadcast_sums_back_over_new_and_stretched_axes() {
    let mut rng = Rng::new(11);
    let cases: [(&[usize], &[usize]); 4] = [
        (&[3], &[2, 3]),
        (&[2, 1], &[2, 4]),
        (&[1, 3, 1], &[2, 4, 3, 5]),
        (&[], &[2, 3]),
    ];
    for (i, (from, to)) in cases.into_iter().enumerate() {
        let x = rng.floats(from, -1.0, 1.0);
        let to = Shape::from(to);
        check_fd(11 + i as u64, &[x], |g, x| {
            let b = g.broadcast_to(x[0], to)?;
            g.unary(UnaryOp::Sin, b)
        });
    }
}

#[test]
fn transpose_applies_the_inverse_permutation() {
    let mut rng = Rng::new(12);
    let x = rng.floats(&[2, 3, 4], -1.0, 1.0);
    check_fd(12, &[x], |g, x| {
        let t = g.transpose(x[0], &[2, 0, 1])?;
        g.unary(UnaryOp::Tanh, t)
    });
}

#[test]
fn slice_pads_the_adjoint_with_zeros() {
    let mut rng = Rng::new(13);
    for (i, (axis, start, stop)) in [(1, 1, 3), (0, 0, 1), (-1, 2, 4)].into_iter().enumerate() {
        let x = rng.floats(&[3, 4], -1.0, 1.0);
        check_fd(13 + i as u64, &[x], |g, x| {
            let s = g.slice(x[0], axis, start, stop)?;
            g.unary(UnaryOp::Exp, s)
        });
    }
}

#[test]
fn concat_slices_the_adjoint_apart() {
    let mut rng = Rng::new(14);
    let (a, b, c) = (
        rng.floats(&[2, 1], -1.0, 1.0),
        rng.floats(&[2, 3], -1.0, 1.0),
        rng.floats(&[2, 2], -1.0, 1.0),
    );
    check_fd(14, &[a, b, c], |g, x| {
        // `a` twice: its two slices add up.
        let joined = g.concat(1, &[x[0], x[1], x[0], x[2]])?;
        g.unary(UnaryOp::Sin, joined)
    });
}

#[test]
fn slices_of_one_tensor_add_up_joined_or_not() {
    // Disjoint slices (joined into one concat), an overlapping one (added)
    // and a slice of the whole range.
    let mut rng = Rng::new(15);
    let x = rng.floats(&[3, 6], -1.0, 1.0);
    check_fd(15, &[x], |g, x| {
        let a = g.slice(x[0], 1, 0, 2)?;
        let b = g.slice(x[0], 1, 4, 6)?;
        let c = g.slice(x[0], 1, 1, 3)?;
        let ab = g.binary(sexpgpu_graph::BinaryOp::Mul, a, b)?;
        let abc = g.binary(sexpgpu_graph::BinaryOp::Add, ab, c)?;
        let whole = g.slice(x[0], 1, 0, 6)?;
        let w = g.slice(whole, 1, 2, 4)?;
        let s = g.binary(sexpgpu_graph::BinaryOp::Mul, abc, w)?;
        g.unary(UnaryOp::Sin, s)
    });
}
