//! Strided views: how `broadcast`, `transpose`, `slice` and most `reshape`
//! nodes become index arithmetic over a stored buffer instead of copies.
//! Owns only the arithmetic on (offset, dims, strides); never touches data.

use std::fmt;

/// Elements of a view at position `p` live at `offset + sum(p[i] * strides[i])`
/// of the underlying row-major buffer. A stride of 0 repeats (broadcasts).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub offset: usize,
    pub dims: Vec<usize>,
    pub strides: Vec<usize>,
}

/// Row-major strides of `dims`, in elements.
pub fn row_major_strides(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    strides
}

impl View {
    /// The whole of a row-major buffer of `dims`.
    pub fn contiguous(dims: &[usize]) -> View {
        View {
            offset: 0,
            dims: dims.to_vec(),
            strides: row_major_strides(dims),
        }
    }

    /// The same view starting `offset` elements into the buffer.
    pub fn with_offset(mut self, offset: usize) -> View {
        self.offset = offset;
        self
    }

    pub fn numel(&self) -> usize {
        self.dims.iter().product()
    }

    /// Whether the view reads `numel` consecutive elements from `offset` in
    /// row-major order (dims of 1 may have any stride).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1;
        for (&d, &s) in self.dims.iter().zip(&self.strides).rev() {
            if d != 1 && s != expected {
                return false;
            }
            expected *= d;
        }
        true
    }

    /// NumPy `broadcast_to`: dims align on the right; a dim of 1 or a
    /// missing leading dim reads with stride 0.
    pub fn broadcast(&self, to: &[usize]) -> View {
        let lead = to.len() - self.dims.len();
        let strides = (0..to.len())
            .map(|a| {
                if a < lead || self.dims[a - lead] == 1 {
                    0
                } else {
                    self.strides[a - lead]
                }
            })
            .collect();
        View {
            offset: self.offset,
            dims: to.to_vec(),
            strides,
        }
    }

    pub fn transpose(&self, perm: &[usize]) -> View {
        View {
            offset: self.offset,
            dims: perm.iter().map(|&a| self.dims[a]).collect(),
            strides: perm.iter().map(|&a| self.strides[a]).collect(),
        }
    }

    pub fn slice(&self, axis: usize, start: usize, stop: usize) -> View {
        let mut view = self.clone();
        view.offset += start * self.strides[axis];
        view.dims[axis] = stop - start;
        view
    }

    /// The same elements in row-major order under new dims, without a
    /// copy, where strides can say it (PyTorch's `view` rule): each run of
    /// old dims that the new dims split or merge must step over its inner
    /// dims exactly, as a slice's columns split into heads do (`[b t 3d]`
    /// sliced to `[b t d]`, then `[b t h d/h]`). `None` otherwise, and the
    /// caller copies.
    pub fn reshape(&self, dims: &[usize]) -> Option<View> {
        if self.is_contiguous() || dims.contains(&0) {
            return Some(View {
                offset: self.offset,
                dims: dims.to_vec(),
                strides: row_major_strides(dims),
            });
        }
        let strides = reshaped_strides(&self.dims, &self.strides, dims)?;
        Some(View {
            offset: self.offset,
            dims: dims.to_vec(),
            strides,
        })
    }

    /// The same walk with as few dims as possible: dims of 1 dropped and
    /// neighbours merged where the outer one steps exactly over the inner
    /// one. Always at least one dim, so walkers need no scalar case.
    pub fn collapsed(&self) -> View {
        let mut dims: Vec<usize> = Vec::new();
        let mut strides: Vec<usize> = Vec::new();
        for (&d, &s) in self.dims.iter().zip(&self.strides) {
            if d == 1 {
                continue;
            }
            match (dims.last_mut(), strides.last_mut()) {
                (Some(ld), Some(ls)) if *ls == s * d => {
                    *ld *= d;
                    *ls = s;
                }
                _ => {
                    dims.push(d);
                    strides.push(s);
                }
            }
        }
        if self.dims.contains(&0) {
            return View {
                offset: self.offset,
                dims: vec![0],
                strides: vec![1],
            };
        }
        if dims.is_empty() {
            dims.push(1);
            strides.push(1);
        }
        View {
            offset: self.offset,
            dims,
            strides,
        }
    }

    /// `axes` (outermost first) read as one axis: its length and stride,
    /// when each axis steps exactly over the ones inside it (axes of length
    /// 1 may have any stride). `None` when they can't be read as one.
    pub fn merged(&self, axes: &[usize]) -> Option<(usize, usize)> {
        let (mut len, mut stride) = (1, 1);
        for &axis in axes.iter().rev() {
            let d = self.dims[axis];
            if d == 1 {
                continue;
            }
            if len == 1 {
                stride = self.strides[axis];
            } else if self.strides[axis] != stride * len {
                return None;
            }
            len *= d;
        }
        Some((len, stride))
    }

    /// One past the largest element index the view reads (0 when empty):
    /// kernels check it against the buffer before reading.
    pub fn extent(&self) -> usize {
        if self.dims.contains(&0) {
            return 0;
        }
        self.offset
            + self
                .dims
                .iter()
                .zip(&self.strides)
                .map(|(&d, &s)| (d - 1) * s)
                .sum::<usize>()
            + 1
    }
}

impl fmt::Display for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_contiguous() && self.offset == 0 {
            return f.write_str("contiguous");
        }
        write!(f, "offset {} strides {:?}", self.offset, self.strides)
    }
}

/// The strides of `new` dims over the elements of `dims` with `strides`
/// in row-major order, if they exist: the old dims split into chunks of
/// neighbours that step exactly over each other, and the new dims, from
/// the innermost, must fill each chunk exactly (dims of 1 anywhere).
fn reshaped_strides(dims: &[usize], strides: &[usize], new: &[usize]) -> Option<Vec<usize>> {
    let mut out = vec![0; new.len()];
    // New dims not yet given strides: `new[..left]`.
    let mut left = new.len();
    let mut chunk_stride = strides.last().copied().unwrap_or(1);
    let (mut chunk_len, mut filled) = (1, 1);
    for d in (0..dims.len()).rev() {
        chunk_len *= dims[d];
        let chunk_ends = d == 0 || (dims[d - 1] != 1 && strides[d - 1] != chunk_len * chunk_stride);
        if !chunk_ends {
            continue;
        }
        while left > 0 && (filled < chunk_len || new[left - 1] == 1) {
            out[left - 1] = filled * chunk_stride;
            filled *= new[left - 1];
            left -= 1;
        }
        if filled != chunk_len {
            return None;
        }
        if d > 0 {
            chunk_stride = strides[d - 1];
            chunk_len = 1;
            filled = 1;
        }
    }
    (left == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn check(view: View, expect: expect_test::Expect) {
        let c = view.collapsed();
        expect.assert_eq(&format!(
            "{:?}/{:?} contiguous={} extent={}",
            c.dims,
            c.strides,
            view.is_contiguous(),
            view.extent()
        ));
    }

    #[test]
    fn views_collapse() {
        check(
            View::contiguous(&[2, 3, 4]),
            expect!["[24]/[1] contiguous=true extent=24"],
        );
        check(
            View::contiguous(&[4]).broadcast(&[3, 4]),
            expect!["[3, 4]/[0, 1] contiguous=false extent=4"],
        );
        check(
            View::contiguous(&[2, 3]).transpose(&[1, 0]),
            expect!["[3, 2]/[1, 3] contiguous=false extent=6"],
        );
        check(
            View::contiguous(&[4, 5]).slice(0, 1, 3),
            expect!["[10]/[1] contiguous=true extent=15"],
        );
        check(
            View::contiguous(&[4, 5]).slice(1, 1, 3),
            expect!["[4, 2]/[5, 1] contiguous=false extent=18"],
        );
        check(
            View::contiguous(&[]),
            expect!["[1]/[1] contiguous=true extent=1"],
        );
        check(
            View::contiguous(&[3, 0]),
            expect!["[0]/[1] contiguous=true extent=0"],
        );
    }

    fn check_reshape(view: View, dims: &[usize], expect: expect_test::Expect) {
        let got = view.reshape(dims).map(|v| (v.offset, v.strides));
        expect.assert_eq(&format!("{got:?}"));
    }

    #[test]
    fn reshapes_are_views_where_strides_can_say_them() {
        // qkv [2 5 12] sliced to its middle third [2 5 4], then split into
        // 2 heads of 2: a view into qkv.
        let v = View::contiguous(&[2, 5, 12]).slice(2, 4, 8);
        check_reshape(
            v.clone(),
            &[2, 5, 2, 2],
            expect!["Some((4, [60, 12, 2, 1]))"],
        );
        // Merging batch and time steps over both: [10 4] with stride 12.
        check_reshape(v.clone(), &[10, 4], expect!["Some((4, [12, 1]))"]);
        // Merging time and the sliced columns cannot: a copy.
        check_reshape(v, &[2, 20], expect!["None"]);
        // A transpose splits along its own axes but does not flatten.
        let t = View::contiguous(&[4, 6]).transpose(&[1, 0]);
        check_reshape(t.clone(), &[2, 3, 4], expect!["Some((0, [3, 1, 6]))"]);
        check_reshape(t, &[24], expect!["None"]);
        // Dims of 1 come and go; broadcasts keep stride 0.
        let b = View::contiguous(&[3]).broadcast(&[4, 3]);
        check_reshape(b.clone(), &[4, 1, 3], expect!["Some((0, [0, 3, 1]))"]);
        check_reshape(b.clone(), &[2, 2, 3], expect!["Some((0, [0, 0, 1]))"]);
        check_reshape(b, &[12], expect!["None"]);
    }

    #[test]
    fn reshaped_views_read_what_a_copy_would() {
        // Every reshape of every view of a [2 3 4] buffer that is a view
        // reads, position by position, the elements the copy would.
        let base = View::contiguous(&[2, 3, 4]);
        let views = [
            base.clone(),
            base.slice(2, 1, 3),
            base.transpose(&[2, 0, 1]),
            base.slice(1, 0, 2).transpose(&[1, 0, 2]),
            View::contiguous(&[4]).broadcast(&[2, 3, 4]),
        ];
        let shapes: [&[usize]; 6] = [
            &[24],
            &[6, 4],
            &[2, 12],
            &[4, 3, 2],
            &[2, 3, 2, 2],
            &[1, 2, 1, 12],
        ];
        // The buffer index of each position, in row-major order.
        let indices = |v: &View| -> Vec<usize> {
            let n: usize = v.dims.iter().product();
            (0..n)
                .map(|mut pos| {
                    let mut index = v.offset;
                    for (&d, &s) in v.dims.iter().zip(&v.strides).rev() {
                        index += pos % d * s;
                        pos /= d;
                    }
                    index
                })
                .collect()
        };
        let mut viewed = 0;
        for view in &views {
            let copy = indices(view);
            for dims in shapes
                .iter()
                .filter(|d| d.iter().product::<usize>() == copy.len())
            {
                let Some(r) = view.reshape(dims) else {
                    continue;
                };
                viewed += 1;
                assert_eq!(indices(&r), copy, "{view:?} as {dims:?}");
            }
        }
        assert!(viewed > 8, "only {viewed} reshapes were views");
    }

    #[test]
    fn axes_merge_when_each_steps_over_the_next() {
        // x [2 3 4] transposed to [2 4 3]: the batch axis and the 3-axis
        // (stride 4) read as one axis of 6 with stride 4.
        let xt = View::contiguous(&[2, 3, 4]).transpose(&[0, 2, 1]);
        assert_eq!(xt.merged(&[0, 2]), Some((6, 4)));
        // The batch axis and the 4-axis don't: 12 is not 1 * 4.
        assert_eq!(xt.merged(&[0, 1]), None);
        // A broadcast batch axis (stride 0) never merges.
        let w = View::contiguous(&[3, 4]).broadcast(&[2, 3, 4]);
        assert_eq!(w.merged(&[0, 1]), None);
        // Axes of length 1 are skipped, whatever their stride.
        let y = View::contiguous(&[1, 3, 4]);
        assert_eq!(y.merged(&[0, 1]), Some((3, 4)));
    }
}
