//! Walking a strided view in row-major order as runs along its innermost
//! dim: the one loop every load, copy and matmul operand uses. Never
//! allocates per element; never reads data itself.

use sexpgpu_compile::View;

/// Calls `f(done, index, run, stride)` for consecutive runs covering view
/// positions `start..start + len` in row-major order: `run` elements, the
/// first at buffer `index`, each `stride` after the previous; `done` counts
/// the positions already covered. `view` should be collapsed (at least one dim).
#[inline(always)]
pub(crate) fn for_runs(
    view: &View,
    start: usize,
    len: usize,
    f: impl FnMut(usize, usize, usize, usize),
) {
    runs_of(view.offset, &view.dims, &view.strides, start, len, f);
}

/// `for_runs` over the view of `dims` and `strides` from buffer `offset`.
#[inline(always)]
fn runs_of(
    offset: usize,
    dims: &[usize],
    strides: &[usize],
    start: usize,
    len: usize,
    mut f: impl FnMut(usize, usize, usize, usize),
) {
    if len == 0 {
        return;
    }
    let r = dims.len();
    let mut coords = [0usize; 16];
    let mut heap;
    let coords: &mut [usize] = if r <= 16 {
        &mut coords[..r]
    } else {
        heap = vec![0usize; r];
        &mut heap
    };
    let mut pos = start;
    let mut index = offset;
    for i in (0..r).rev() {
        coords[i] = pos % dims[i];
        pos /= dims[i];
        index += coords[i] * strides[i];
    }
    let (inner, inner_stride) = (dims[r - 1], strides[r - 1]);
    let mut done = 0;
    while done < len {
        let run = (inner - coords[r - 1]).min(len - done);
        f(done, index, run, inner_stride);
        done += run;
        coords[r - 1] += run;
        index += run * inner_stride;
        if coords[r - 1] == inner {
            index -= inner * inner_stride;
            coords[r - 1] = 0;
            for i in (0..r - 1).rev() {
                coords[i] += 1;
                index += strides[i];
                if coords[i] < dims[i] {
                    break;
                }
                index -= dims[i] * strides[i];
                coords[i] = 0;
            }
        }
    }
}

/// Innermost dims shorter than this (a pool's window, a broadcast over
/// one) are read a row of the dim above them at a time (`load_short`).
const SHORT: usize = 8;

/// Reads view positions `start..start + out.len()` of `src` into `out`,
/// converting each element.
#[inline(always)]
pub(crate) fn load<T: Copy, U>(
    src: &[T],
    view: &View,
    start: usize,
    out: &mut [U],
    conv: impl Fn(T) -> U,
) {
    let len = out.len();
    let r = view.dims.len();
    if r >= 2 && view.dims[r - 1] < SHORT && view.dims[r - 2] > 1 {
        load_short(src, view, start, out, conv);
        return;
    }
    // The common cases without the run walker, so they inline and vectorise.
    if view.dims.len() == 1 {
        let index = view.offset + start * view.strides[0];
        match view.strides[0] {
            1 => {
                for (o, &x) in out.iter_mut().zip(&src[index..index + len]) {
                    *o = conv(x);
                }
                return;
            }
            0 => {
                let x = src[index];
                for o in out.iter_mut() {
                    *o = conv(x);
                }
                return;
            }
            _ => {}
        }
    }
    load_runs(src, view, start, out, conv);
}

/// `load` along runs of the innermost dim.
#[inline(always)]
fn load_runs<T: Copy, U>(
    src: &[T],
    view: &View,
    start: usize,
    out: &mut [U],
    conv: impl Fn(T) -> U,
) {
    for_runs(view, start, out.len(), |done, index, run, stride| {
        let out = &mut out[done..done + run];
        match stride {
            1 => {
                for (o, &x) in out.iter_mut().zip(&src[index..index + run]) {
                    *o = conv(x);
                }
            }
            0 => {
                let x = src[index];
                for o in out.iter_mut() {
                    *o = conv(x);
                }
            }
            _ => {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = conv(src[index + j * stride]);
                }
            }
        }
    });
}

/// `load` for a view whose innermost dim is short: its whole blocks (the
/// short dim's elements at one position of the rest) along runs of the
/// dim above it, so that the walker steps once per row of that dim, not
/// once per block; the partial blocks at either end element by element.
#[inline(always)]
fn load_short<T: Copy, U>(
    src: &[T],
    view: &View,
    start: usize,
    out: &mut [U],
    conv: impl Fn(T) -> U,
) {
    let r = view.dims.len();
    let (short, step) = (view.dims[r - 1], view.strides[r - 1]);
    let head = ((short - start % short) % short).min(out.len());
    let blocks = (out.len() - head) / short;
    let (first, rest) = out.split_at_mut(head);
    let (middle, last) = rest.split_at_mut(blocks * short);
    load_runs(src, view, start, first, &conv);
    let (dims, strides) = (&view.dims[..r - 1], &view.strides[..r - 1]);
    let from = (start + head) / short;
    runs_of(
        view.offset,
        dims,
        strides,
        from,
        blocks,
        |done, index, run, stride| {
            let out = &mut middle[done * short..(done + run) * short];
            for (j, block) in out.chunks_exact_mut(short).enumerate() {
                let base = index + j * stride;
                for (i, o) in block.iter_mut().enumerate() {
                    *o = conv(src[base + i * step]);
                }
            }
        },
    );
    load_runs(src, view, start + head + blocks * short, last, conv);
}

/// Writes `values` to view positions `start..start + values.len()` of `dst`.
pub(crate) fn store<T: Copy>(dst: &mut [T], view: &View, start: usize, values: &[T]) {
    for_runs(view, start, values.len(), |done, index, run, stride| {
        let values = &values[done..done + run];
        if stride == 1 {
            dst[index..index + run].copy_from_slice(values);
        } else {
            for (j, &v) in values.iter().enumerate() {
                dst[index + j * stride] = v;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn check(view: View, start: usize, len: usize, expect: expect_test::Expect) {
        let src: Vec<usize> = (0..view.extent()).collect();
        let mut out = vec![0; len];
        load(&src, &view.collapsed(), start, &mut out, |x| x);
        expect.assert_eq(&format!("{out:?}"));
    }

    #[test]
    fn walks_views() {
        check(View::contiguous(&[2, 3]), 1, 4, expect!["[1, 2, 3, 4]"]);
        check(
            View::contiguous(&[2, 3]).transpose(&[1, 0]),
            0,
            6,
            expect!["[0, 3, 1, 4, 2, 5]"],
        );
        check(
            View::contiguous(&[3]).broadcast(&[2, 2, 3]),
            2,
            7,
            expect!["[2, 0, 1, 2, 0, 1, 2]"],
        );
        check(
            View::contiguous(&[3, 4]).slice(1, 1, 3),
            1,
            4,
            expect!["[2, 5, 6, 9]"],
        );
    }

    /// Short innermost dims (a pool's windows, a maximum broadcast over
    /// them) read as the run walker reads them, from any start, with
    /// partial blocks at either end.
    #[test]
    fn short_innermost_dims_read_as_runs() {
        let windows = View {
            offset: 1,
            dims: vec![3, 2, 5, 2],
            strides: vec![10, 0, 2, 0],
        };
        let pairs = View::contiguous(&[4, 6, 3]).transpose(&[2, 0, 1]);
        for view in [windows, pairs.slice(2, 1, 3)] {
            let view = view.collapsed();
            let src: Vec<usize> = (0..view.extent()).collect();
            let numel = view.numel();
            for (start, len) in [(0, numel), (1, numel - 1), (3, 7), (5, 1), (2, 0)] {
                let mut short = vec![0; len];
                load(&src, &view, start, &mut short, |x| x);
                let mut runs = vec![0; len];
                load_runs(&src, &view, start, &mut runs, |x| x);
                assert_eq!(short, runs, "{view:?} from {start}, {len} elements");
            }
        }
    }
}
