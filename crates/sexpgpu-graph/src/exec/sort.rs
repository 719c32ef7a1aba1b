//! `argsort` on executor values: each line along the axis sorted stably,
//! NaN above every number (so last ascending, first descending), as
//! PyTorch's `sort(stable=True)`.

use std::cmp::Ordering;

use super::values::Values;
use crate::shape::Shape;

/// The order of two elements: NaN is the largest, NaNs tie (and -0 ties 0).
pub fn total_order(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Sorts every line of `keys` (`[outer, len, inner]`) by `order`, stably
/// (equal keys keep their order), into `out` (each line's positions):
/// the one argsort walk of the reference and the CPU backend.
pub fn sort_lines<T: Copy>(
    keys: &[T],
    (outer, len, inner): (usize, usize, usize),
    descending: bool,
    order: impl Fn(T, T) -> Ordering,
    out: &mut [i64],
) {
    let mut line: Vec<usize> = Vec::with_capacity(len);
    for o in 0..outer {
        for i in 0..inner {
            let at = |t: usize| (o * len + t) * inner + i;
            line.clear();
            line.extend(0..len);
            line.sort_by(|&p, &q| {
                let ord = order(keys[at(p)], keys[at(q)]);
                if descending {
                    ord.reverse()
                } else {
                    ord
                }
            });
            for (t, &p) in line.iter().enumerate() {
                out[at(t)] = p as i64;
            }
        }
    }
}

pub(crate) fn argsort(x: &Values, shape: &Shape, axis: usize, descending: bool) -> Values {
    let dims = shape.dims();
    let lines = (
        dims[..axis].iter().product(),
        dims[axis],
        dims[axis + 1..].iter().product(),
    );
    let mut out = vec![0i64; shape.numel()];
    match x {
        Values::Float(v) => sort_lines(v, lines, descending, total_order, &mut out),
        Values::Int(v) => sort_lines(v, lines, descending, |a: i64, b| a.cmp(&b), &mut out),
        Values::Bool(v) => sort_lines(v, lines, descending, |a: bool, b| a.cmp(&b), &mut out),
    }
    Values::Int(out)
}
