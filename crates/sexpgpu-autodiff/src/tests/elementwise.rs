//! Finite-difference checks of the elementwise rules: every unary on its
//! domain, every binary with and without broadcasting, `where`, and `cast`
//! between f32 and bf16 (bf16 nodes are not rounded in f64 evaluation).

use sexpgpu_graph::{BinaryOp, CompareOp, DType, UnaryOp};

use super::harness::{check_fd, RandomArgs, Rng};

/// The range each unary is smooth on, away from its edges.
fn domain(op: UnaryOp) -> (f64, f64) {
    match op {
        UnaryOp::Sqrt | UnaryOp::Rsqrt | UnaryOp::Log | UnaryOp::Log2 | UnaryOp::Log10 => {
            (0.5, 2.0)
        }
        UnaryOp::Acos | UnaryOp::Asin | UnaryOp::Atanh => (-0.8, 0.8),
        UnaryOp::Acosh => (1.2, 3.0),
        UnaryOp::Log1p => (-0.5, 2.0),
        // Steep near pi/2.
        UnaryOp::Tan => (-1.0, 1.0),
        UnaryOp::Exp | UnaryOp::Tanh => (-1.5, 1.5),
        _ => (-2.0, 2.0),
    }
}

#[test]
fn every_unary_matches_finite_differences() {
    let mut rng = Rng::new(1);
    for (i, op) in UnaryOp::ALL.into_iter().enumerate() {
        // Its gradient is 0 by definition, not by the derivative of its
        // value (`tests/torch_grad.rs` checks it against `detach`).
        if op == UnaryOp::StopGradient {
            continue;
        }
        let (low, high) = domain(op);
        // `abs` has a kink at 0: keep the points apart from it.
        let x = if op == UnaryOp::Abs {
            rng.distinct(&[2, 3], low, high)
        } else {
            rng.floats(&[2, 3], low, high)
        };
        check_fd(i as u64, &[x], |g, x| g.unary(op, x[0]));
    }
}

#[test]
fn every_binary_matches_finite_differences_with_broadcasting() {
    let mut rng = Rng::new(2);
    let shapes: [(&[usize], &[usize]); 4] = [
        (&[2, 3], &[2, 3]),
        (&[2, 3], &[3]),
        (&[4, 1, 3], &[2, 1]),
        (&[], &[2, 2]),
    ];
    let float_ops = BinaryOp::ALL
        .into_iter()
        .filter(|op| op.operands().accepts(DType::F32));
    for (i, op) in float_ops.enumerate() {
        for (j, (sa, sb)) in shapes.into_iter().enumerate() {
            let (a, b) = match op {
                // Positive bases, moderate exponents.
                BinaryOp::Pow => (rng.floats(sa, 0.5, 2.0), rng.floats(sb, -1.5, 1.5)),
                // Divisors away from 0; for atan2, x > 0 keeps the points
                // off the branch cut along the negative x axis.
                BinaryOp::Div
                | BinaryOp::Atan2
                | BinaryOp::Quot
                | BinaryOp::Rem
                | BinaryOp::FloorDiv
                | BinaryOp::Mod => (rng.floats(sa, -2.0, 2.0), rng.floats(sb, 0.5, 2.0)),
                // Disjoint interleaved ranges so no pair of elements ties.
                BinaryOp::Maximum | BinaryOp::Minimum => {
                    (rng.distinct(sa, -2.0, 2.0), rng.distinct(sb, -1.9, 2.1))
                }
                _ => (rng.floats(sa, -2.0, 2.0), rng.floats(sb, -2.0, 2.0)),
            };
            check_fd((i * 10 + j) as u64, &[a, b], |g, x| {
                g.binary(op, x[0], x[1])
            });
        }
    }
}

#[test]
fn a_node_used_twice_adds_its_adjoints() {
    let mut rng = Rng::new(3);
    let x = rng.floats(&[3], -2.0, 2.0);
    check_fd(3, &[x], |g, x| {
        let square = g.binary(BinaryOp::Mul, x[0], x[0])?;
        let sin = g.unary(UnaryOp::Sin, x[0])?;
        g.binary(BinaryOp::Add, square, sin)
    });
}

#[test]
fn where_routes_the_adjoint_by_the_mask() {
    let mut rng = Rng::new(4);
    let (a, b, c) = (
        rng.floats(&[2, 3], -1.0, 1.0),
        rng.floats(&[2, 3], -1.0, 1.0),
        rng.floats(&[3], -1.0, 1.0),
    );
    check_fd(4, &[a, b, c], |g, x| {
        // The mask depends on the inputs, but carries no gradient.
        let mask = g.compare(CompareOp::Gt, x[0], x[1])?;
        let prod = g.binary(BinaryOp::Mul, x[0], x[1])?;
        g.where_(mask, prod, x[2])
    });
}

#[test]
fn cast_between_floats_casts_the_adjoint_back() {
    let mut rng = Rng::new(5);
    let x = rng.floats(&[2, 3], -1.0, 1.0);
    check_fd(5, &[x], |g, x| {
        let narrow = g.cast(x[0], DType::BF16);
        let sin = g.unary(UnaryOp::Sin, narrow)?;
        let prod = g.binary(BinaryOp::Mul, sin, narrow)?;
        Ok(g.cast(prod, DType::F32))
    });
}
