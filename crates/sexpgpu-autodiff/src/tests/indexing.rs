//! Finite-difference checks of the adjoint pairs `docs/sexpgpu/operations.md` names:
//! `index`/`index-add`, `gather`/`scatter-add`, and `linear-scan` against a
//! reversed `linear-scan`, forward and reverse, along several axes.

use sexpgpu_graph::{BinaryOp, UnaryOp};

use super::harness::{check_fd, RandomArgs, Rng};

#[test]
fn index_and_index_add_are_each_others_adjoints() {
    let mut rng = Rng::new(40);
    // Repeated ids: their adjoints add up at one row.
    let table = rng.floats(&[4, 3], -1.0, 1.0);
    let ids = rng.ids(&[2, 3], 4);
    check_fd(40, &[table, ids.clone()], |g, x| {
        let rows = g.index(x[0], x[1])?;
        g.unary(UnaryOp::Sin, rows)
    });
    let base = rng.floats(&[4, 3], -1.0, 1.0);
    let values = rng.floats(&[2, 3, 3], -1.0, 1.0);
    check_fd(41, &[base, ids, values], |g, x| {
        let added = g.index_add(x[0], x[1], x[2])?;
        g.binary(BinaryOp::Mul, added, added)
    });
}

#[test]
fn gather_and_scatter_add_are_each_others_adjoints() {
    let mut rng = Rng::new(42);
    for (i, axis) in [-1i64, 0].into_iter().enumerate() {
        let x = rng.floats(&[3, 4], -1.0, 1.0);
        let idx_dims: &[usize] = if axis == 0 { &[5, 4] } else { &[3, 6] };
        let len = if axis == 0 { 3 } else { 4 };
        let idx = rng.ids(idx_dims, len);
        check_fd(42 + i as u64, &[x, idx.clone()], |g, x| {
            let picked = g.gather(x[0], x[1], axis)?;
            g.unary(UnaryOp::Sin, picked)
        });
        let base = rng.floats(&[3, 4], -1.0, 1.0);
        let values = rng.floats(idx_dims, -1.0, 1.0);
        check_fd(44 + i as u64, &[base, idx, values], |g, x| {
            let added = g.scatter_add(x[0], x[1], x[2], axis)?;
            g.binary(BinaryOp::Mul, added, added)
        });
    }
}

#[test]
fn linear_scan_runs_its_adjoint_in_reverse() {
    let mut rng = Rng::new(46);
    let cases: [(&[usize], i64, bool); 5] = [
        (&[5], 0, false),
        (&[5], 0, true),
        (&[2, 4, 3], 1, false),
        (&[2, 4, 3], -1, true),
        (&[1, 2], 0, false),
    ];
    for (i, (dims, axis, reverse)) in cases.into_iter().enumerate() {
        let (a, b) = (rng.floats(dims, -0.9, 0.9), rng.floats(dims, -1.0, 1.0));
        check_fd(46 + i as u64, &[a, b], |g, x| {
            g.linear_scan(x[0], x[1], axis, reverse)
        });
    }
}

#[test]
fn linear_scan_with_a_broadcast_coefficient() {
    let mut rng = Rng::new(52);
    let (a, b) = (
        rng.floats(&[3, 1], 0.2, 0.9),
        rng.floats(&[3, 4], -1.0, 1.0),
    );
    check_fd(52, &[a, b], |g, x| g.linear_scan(x[0], x[1], 1, false));
}

#[test]
fn a_gathered_tensor_used_elsewhere_accumulates_into_the_other_adjoint() {
    // Cross-entropy's shape (a target's logit gathered, every logit used
    // by the softmax) and an embedding table also used by the head: the
    // `gather`'s and `index`'s adjoints add into the other path's, with
    // repeated ids.
    let mut rng = Rng::new(48);
    let x = rng.floats(&[3, 4], -1.0, 1.0);
    let idx = rng.ids(&[3, 2], 4);
    check_fd(48, &[x, idx], |g, x| {
        let picked = g.gather(x[0], x[1], 1)?;
        let first = g.unary(UnaryOp::Sin, picked)?;
        let all = g.unary(UnaryOp::Exp, x[0])?;
        let both = g.binary(BinaryOp::Mul, all, all)?;
        g.concat(1, &[both, first])
    });
    let table = rng.floats(&[4, 3], -1.0, 1.0);
    let ids = rng.ids(&[5], 4);
    check_fd(49, &[table, ids], |g, x| {
        let rows = g.index(x[0], x[1])?;
        let head = g.binary(BinaryOp::Mul, x[0], x[0])?;
        let flat_rows = g.reshape(rows, sexpgpu_graph::Shape::new(vec![15]))?;
        let flat_head = g.reshape(head, sexpgpu_graph::Shape::new(vec![12]))?;
        g.concat(0, &[flat_rows, flat_head])
    });
}
