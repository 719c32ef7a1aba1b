//! Element movement for `broadcast`, `transpose`, `slice` and `concat`, all
//! through one strided walk over the output. Never does arithmetic.

use super::values::Values;
use crate::shape::Shape;

/// For each position of `dims` in row-major order, `offset + sum(p * stride)`.
/// Linear in the element count: the running index is updated per step.
pub(crate) fn strided_indices(dims: &[usize], strides: &[usize], offset: usize) -> Vec<usize> {
    let n: usize = dims.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut position = vec![0usize; dims.len()];
    let mut index = offset;
    for _ in 0..n {
        out.push(index);
        // Advance, adjusting the index for every axis that wraps or steps.
        for a in (0..dims.len()).rev() {
            position[a] += 1;
            index += strides[a];
            if position[a] < dims[a] {
                break;
            }
            index -= strides[a] * dims[a];
            position[a] = 0;
        }
    }
    out
}

/// NumPy broadcast: input dims align on the right; a dim of 1 (or a missing
/// leading dim) is read with stride 0.
pub(crate) fn broadcast(x: &Values, from: &Shape, to: &Shape) -> Values {
    let lead = to.rank() - from.rank();
    let from_strides = from.strides();
    let strides: Vec<usize> = (0..to.rank())
        .map(|a| {
            if a < lead || from.dims()[a - lead] == 1 {
                0
            } else {
                from_strides[a - lead]
            }
        })
        .collect();
    x.pick(&strided_indices(to.dims(), &strides, 0))
}

pub(crate) fn transpose(x: &Values, from: &Shape, perm: &[usize]) -> Values {
    let from_strides = from.strides();
    let dims: Vec<usize> = perm.iter().map(|&a| from.dims()[a]).collect();
    let strides: Vec<usize> = perm.iter().map(|&a| from_strides[a]).collect();
    x.pick(&strided_indices(&dims, &strides, 0))
}

pub(crate) fn slice(x: &Values, from: &Shape, axis: usize, start: usize, stop: usize) -> Values {
    let strides = from.strides();
    let mut dims = from.dims().to_vec();
    dims[axis] = stop - start;
    x.pick(&strided_indices(&dims, &strides, start * strides[axis]))
}

/// Concatenation: for each block of leading positions, copy each input's
/// run of `dim(axis) * inner` elements in turn.
pub(crate) fn concat(xs: &[&Values], shapes: &[&Shape], axis: usize) -> Values {
    let outer: usize = shapes[0].dims()[..axis].iter().product();
    let inner: usize = shapes[0].dims()[axis + 1..].iter().product();
    let mut out = xs[0].pick(&[]);
    for o in 0..outer {
        for (k, s) in shapes.iter().enumerate() {
            let run = s.dims()[axis] * inner;
            out.extend_from(xs[k], o * run..(o + 1) * run);
        }
    }
    out
}
