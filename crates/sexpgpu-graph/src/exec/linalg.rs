//! `matmul`, the data-dependent indexing ops (`index`, `index-add`,
//! `gather`, `scatter-add`) and `linear-scan`. Accumulations are in f64 for
//! floats (rounded once, by `finish`) and wrapping for integers; ids outside their axis
//! are an error, never a clamp or a panic.

use super::layout::strided_indices;
use super::values::{Precision, Values};
use crate::shape::Shape;

/// `[B..., m, k] x [B..., k, n]` with equal batch dims (builders broadcast).
pub(crate) fn matmul(a: &Values, b: &Values, sa: &Shape, sb: &Shape) -> Values {
    let r = sa.rank();
    let (m, k, n) = (sa.dims()[r - 2], sa.dims()[r - 1], sb.dims()[sb.rank() - 1]);
    let batch: usize = sa.dims()[..r - 2].iter().product();
    match (a, b) {
        (Values::Float(a), Values::Float(b)) => {
            Values::Float(batched_matmul(a, b, [batch, m, k, n], |acc, x, y| {
                acc + x * y
            }))
        }
        (Values::Int(a), Values::Int(b)) => {
            Values::Int(batched_matmul(a, b, [batch, m, k, n], |acc, x, y| {
                acc.wrapping_add(x.wrapping_mul(y))
            }))
        }
        (other, _) => other.clone(),
    }
}

/// The products of `batch` pairs of `[m, k]` and `[k, n]` matrices, each
/// sum accumulated by `add_product(acc, x, y)` in row order.
fn batched_matmul<T: Copy + Default>(
    a: &[T],
    b: &[T],
    [batch, m, k, n]: [usize; 4],
    add_product: impl Fn(T, T, T) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(batch * m * n);
    let mut row = vec![T::default(); n];
    for bt in 0..batch {
        let (a, b) = (
            &a[bt * m * k..(bt + 1) * m * k],
            &b[bt * k * n..(bt + 1) * k * n],
        );
        for i in 0..m {
            row.iter_mut().for_each(|x| *x = T::default());
            for p in 0..k {
                let x = a[i * k + p];
                for (acc, &y) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                    *acc = add_product(*acc, x, y);
                }
            }
            out.extend_from_slice(&row);
        }
    }
    out
}

/// Checks one id against its axis length.
fn check_id(op: &str, id: i64, len: usize) -> Result<usize, String> {
    usize::try_from(id)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| format!("{op}: id {id} is out of range for an axis of length {len}"))
}

/// Rows of a `[n, rest...]` table, one per id.
pub(crate) fn index(table: &Values, ids: &Values, table_shape: &Shape) -> Result<Values, String> {
    let n = table_shape.dims()[0];
    let row: usize = table_shape.dims()[1..].iter().product();
    let mut picks = Vec::with_capacity(ids.len() * row);
    for &id in ids.ints() {
        let r = check_id("index", id, n)?;
        picks.extend(r * row..(r + 1) * row);
    }
    Ok(table.pick(&picks))
}

/// `base` with row `j` of `values` added at row `ids[j]`.
pub(crate) fn index_add(
    base: &Values,
    ids: &Values,
    values: &Values,
    base_shape: &Shape,
) -> Result<Values, String> {
    let n = base_shape.dims()[0];
    let row: usize = base_shape.dims()[1..].iter().product();
    let mut targets = Vec::with_capacity(values.len());
    for &id in ids.ints() {
        let r = check_id("index-add", id, n)?;
        targets.extend(r * row..(r + 1) * row);
    }
    Ok(add_at(base, &targets, values))
}

/// The position in `x` each element of `idx` reads (gather) or writes
/// (scatter-add): its own position with the axis coordinate replaced by its id.
fn along_targets(
    op: &str,
    idx: &Values,
    x_shape: &Shape,
    idx_shape: &Shape,
    axis: usize,
) -> Result<Vec<usize>, String> {
    let mut strides = x_shape.strides();
    let axis_stride = strides[axis];
    strides[axis] = 0;
    let bases = strided_indices(idx_shape.dims(), &strides, 0);
    let len = x_shape.dims()[axis];
    bases
        .into_iter()
        .zip(idx.ints())
        .map(|(base, &id)| Ok(base + check_id(op, id, len)? * axis_stride))
        .collect()
}

pub(crate) fn gather(
    x: &Values,
    idx: &Values,
    x_shape: &Shape,
    idx_shape: &Shape,
    axis: usize,
) -> Result<Values, String> {
    Ok(x.pick(&along_targets("gather", idx, x_shape, idx_shape, axis)?))
}

pub(crate) fn scatter_add(
    base: &Values,
    idx: &Values,
    values: &Values,
    base_shape: &Shape,
    idx_shape: &Shape,
    axis: usize,
) -> Result<Values, String> {
    let targets = along_targets("scatter-add", idx, base_shape, idx_shape, axis)?;
    Ok(add_at(base, &targets, values))
}

/// `base` plus `values[j]` at `targets[j]`; floats accumulate in f64 (and
/// are rounded once, by `finish`) so repeated targets add up without
/// order-dependent rounding drift.
fn add_at(base: &Values, targets: &[usize], values: &Values) -> Values {
    match (base, values) {
        (Values::Float(base), Values::Float(values)) => {
            let mut acc = base.clone();
            for (&t, &v) in targets.iter().zip(values) {
                acc[t] += v;
            }
            Values::Float(acc)
        }
        (Values::Int(base), Values::Int(values)) => {
            let mut acc = base.clone();
            for (&t, &v) in targets.iter().zip(values) {
                acc[t] = acc[t].wrapping_add(v);
            }
            Values::Int(acc)
        }
        (other, _) => other.clone(),
    }
}

/// `h[t] = a[t] * h[t-1] + b[t]` from `h = 0` along `axis`, in f32 (also
/// under bf16, where only the outputs are rounded, never the carry), or in
/// f64 under [`Precision::F64`].
pub(crate) fn linear_scan(
    a: &Values,
    b: &Values,
    shape: &Shape,
    axis: usize,
    reverse: bool,
    precision: Precision,
) -> Values {
    let (Values::Float(a), Values::Float(b)) = (a, b) else {
        return a.clone();
    };
    let len = shape.dims()[axis];
    let outer: usize = shape.dims()[..axis].iter().product();
    let inner: usize = shape.dims()[axis + 1..].iter().product();
    let mut out = vec![0f64; shape.numel()];
    for o in 0..outer {
        for i in 0..inner {
            let mut h = 0f64;
            for step in 0..len {
                let t = if reverse { len - 1 - step } else { step };
                let at = (o * len + t) * inner + i;
                h = match precision {
                    Precision::Dtype => f64::from((a[at] as f32) * (h as f32) + (b[at] as f32)),
                    Precision::F64 => a[at] * h + b[at],
                };
                out[at] = h;
            }
        }
    }
    Values::Float(out)
}
