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
