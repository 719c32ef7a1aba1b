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

pub(crate) fn argsort(x: &Values, shape: &Shape, axis: usize, descending: bool) -> Values {
    let keys: Vec<f64> = match x {
        Values::Float(v) => v.clone(),
        // i64 keys compare as integers below; f64 would merge large ones.
        Values::Int(_) | Values::Bool(_) => Vec::new(),
    };
    let dims = shape.dims();
    let len = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let mut out = vec![0i64; shape.numel()];
    let mut line: Vec<usize> = Vec::with_capacity(len);
    for o in 0..outer {
        for i in 0..inner {
            let at = |t: usize| (o * len + t) * inner + i;
            line.clear();
            line.extend(0..len);
            // `sort_by` is stable: equal keys keep their order.
            line.sort_by(|&p, &q| {
                let ord = match x {
                    Values::Float(_) => total_order(keys[at(p)], keys[at(q)]),
                    Values::Int(v) => v[at(p)].cmp(&v[at(q)]),
                    Values::Bool(v) => v[at(p)].cmp(&v[at(q)]),
                };
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
    Values::Int(out)
}
