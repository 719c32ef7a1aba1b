//! What the structured operations share (`docs/sexpgpu/operations.md`,
//! "Convolution, pooling, padding, resizing"): `pad` with its four modes, a
//! per-axis option (`:stride 2` or `:stride [2 1]`), taking positions along
//! one axis, and sliding windows (im2col). All are compositions of
//! `index`, `transpose`, `concat` and `slice`, so their gradients, the
//! reference executor and both backends come from those ops.

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::shape::{Shape, MAX_ELEMENTS};
use crate::tensor::Tensor;

/// How `pad` fills the new elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// One value (`:value`, 0 by default).
    Constant,
    /// The mirror image without the edge: `d c b | a b c d | c b a`.
    Reflect,
    /// The edge repeated: `a a | a b c d | d d`.
    Replicate,
    /// The other end: `c d | a b c d | a b`.
    Circular,
}

impl PadMode {
    /// The keyword that names the mode.
    pub fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Replicate => "replicate",
            PadMode::Circular => "circular",
        }
    }

    /// The mode a keyword names.
    pub fn from_keyword(name: &str) -> Option<PadMode> {
        [
            PadMode::Constant,
            PadMode::Reflect,
            PadMode::Replicate,
            PadMode::Circular,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }
}

/// An integer option of a windowed operation: one value for every spatial
/// axis (`:stride 2`) or one per axis (`:stride [2 1]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerAxis {
    All(i64),
    Each(Vec<i64>),
}

impl PerAxis {
    /// The value for each of `d` axes, each at least `min`; `op: :what ...`
    /// errors otherwise.
    pub(crate) fn resolve(
        &self,
        op: &str,
        what: &str,
        d: usize,
        min: i64,
    ) -> Result<Vec<usize>, OpError> {
        let values = match self {
            PerAxis::All(n) => vec![*n; d],
            PerAxis::Each(v) if v.len() == d => v.clone(),
            PerAxis::Each(v) => {
                return Err(OpError::dim(format!(
                    "{op}: `:{what}` has {} values, but there are {d} spatial axes",
                    v.len()
                ))
                .with_note(format!("give one value, or one per spatial axis ({d})")))
            }
        };
        if let Some(bad) = values.iter().find(|&&v| v < min) {
            return Err(OpError::dim(format!(
                "{op}: `:{what}` must be at least {min}, got {bad}"
            )));
        }
        if let Some(bad) = values.iter().find(|&&v| v > MAX_ELEMENTS as i64) {
            return Err(OpError::dim(format!(
                "{op}: `:{what}` must be at most {MAX_ELEMENTS} (a tensor's largest axis), got {bad}"
            )));
        }
        Ok(values.into_iter().map(|v| v as usize).collect())
    }
}

impl Graph {
    /// `(pad x [[lo hi] ..] :mode .. :value ..)`: the pairs pad the last
    /// axes in order (the last pair the last axis); negative amounts crop.
    pub fn pad(
        &mut self,
        x: NodeId,
        pairs: &[(i64, i64)],
        mode: PadMode,
        value: Scalar,
    ) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        if pairs.len() > shape.rank() {
            return Err(OpError::dim(format!(
                "pad: {} pairs for a tensor of rank {}: {shape}",
                pairs.len(),
                shape.rank()
            ))
            .with_note("each pair pads one of the last axes"));
        }
        let first = shape.rank() - pairs.len();
        let mut x = x;
        for (i, &pair) in pairs.iter().enumerate() {
            x = self.pad_axis("pad", x, first + i, pair, mode, value)?;
        }
        Ok(x)
    }

    /// A constant `i32` tensor of positions, for `index`.
    pub(crate) fn positions(&mut self, dims: &[usize], ids: &[usize]) -> Result<NodeId, OpError> {
        let values: Vec<i64> = ids.iter().map(|&i| i as i64).collect();
        let t = Tensor::from_i64s(Shape::new(dims.to_vec()), &values, DType::I32)
            .map_err(|e| OpError::dim(e.message))?;
        Ok(self.constant(t))
    }

    /// A constant of `like`'s dtype (for weights and divisors).
    pub(crate) fn floats_like(
        &mut self,
        dims: &[usize],
        values: &[f64],
        like: NodeId,
    ) -> Result<NodeId, OpError> {
        let t = Tensor::from_f64s(Shape::new(dims.to_vec()), values, self.dtype(like))
            .map_err(|e| OpError::dim(e.message))?;
        Ok(self.constant(t))
    }

    /// The elements of `x` at `ids` (of shape `dims`) along `axis`, which is
    /// replaced by `dims`: `index` on `x` with `axis` moved to the front.
    pub(crate) fn take(
        &mut self,
        x: NodeId,
        axis: usize,
        dims: &[usize],
        ids: &[usize],
    ) -> Result<NodeId, OpError> {
        let rank = self.shape(x).rank();
        let mut front = vec![axis as i64];
        front.extend((0..rank).filter(|&a| a != axis).map(|a| a as i64));
        let moved = self.transpose(x, &front)?;
        let ids = self.positions(dims, ids)?;
        let picked = self.index(moved, ids)?;
        let k = dims.len();
        let mut back: Vec<i64> = (0..axis).map(|i| (k + i) as i64).collect();
        back.extend((0..k).map(|j| j as i64));
        back.extend((axis..rank - 1).map(|i| (k + i) as i64));
        self.transpose(picked, &back)
    }

    /// One axis padded by `lo` before and `hi` after, a negative amount
    /// cropping, as PyTorch's `F.pad`: `reflect` and `replicate` read the
    /// whole input (a reflection after a crop is about the input's own
    /// border), `constant` and `circular` crop first; `value` fills in
    /// `Constant` mode.
    pub(crate) fn pad_axis(
        &mut self,
        op: &str,
        x: NodeId,
        axis: usize,
        (lo, hi): (i64, i64),
        mode: PadMode,
        value: Scalar,
    ) -> Result<NodeId, OpError> {
        let n = self.shape(x).dims()[axis] as i64;
        let mut dims = self.shape(x).dims().to_vec();
        let grown = i128::from(n) + i128::from(lo) + i128::from(hi);
        dims[axis] = usize::try_from(grown.clamp(0, MAX_ELEMENTS as i128 + 1)).unwrap_or(0);
        fits(op, "the padded tensor", &dims)?;
        if lo == 0 && hi == 0 {
            return Ok(x);
        }
        if matches!(mode, PadMode::Reflect | PadMode::Replicate) {
            return self.pad_from_input(op, x, axis, (lo, hi), mode);
        }
        let kept = n + lo.min(0) + hi.min(0);
        let wraps = mode == PadMode::Circular && (lo > 0 || hi > 0);
        let nothing_left = kept < 0 || (kept == 0 && wraps);
        if nothing_left && (lo < 0 || hi < 0) {
            return Err(OpError::dim(format!(
                "{op}: cropping [{lo} {hi}] leaves nothing of axis {axis}, of length {n}"
            )));
        }
        if kept == 0 {
            // Cropped to nothing, then (PyTorch's) filled to the padded length.
            let value = self.pad_value(op, x, value)?;
            return self.full(Shape::new(dims), value, self.dtype(x));
        }
        let x = if lo < 0 || hi < 0 {
            self.slice(x, axis as i64, -lo.min(0), n + hi.min(0))?
        } else {
            x
        };
        let (lo, hi, n) = (lo.max(0) as usize, hi.max(0) as usize, kept as usize);
        if mode == PadMode::Constant {
            return self.pad_constant(op, x, axis, (lo, hi), value);
        }
        if lo > n || hi > n {
            return Err(OpError::dim(format!(
                "{op}: circular padding [{lo} {hi}] must be at most the length {n} of axis {axis}"
            )));
        }
        let ids: Vec<usize> = (-(lo as i64)..(n + hi) as i64)
            .map(|i| i.rem_euclid(n as i64) as usize)
            .collect();
        self.take(x, axis, &[ids.len()], &ids)
    }

    /// `reflect` and `replicate` padding by positions of the whole input
    /// (of length `n`): output `j` reads input `j - lo`, reflected about
    /// (or held at) the input's first and last elements.
    fn pad_from_input(
        &mut self,
        op: &str,
        x: NodeId,
        axis: usize,
        (lo, hi): (i64, i64),
        mode: PadMode,
    ) -> Result<NodeId, OpError> {
        let n = self.shape(x).dims()[axis] as i64;
        if n + lo + hi <= 0 {
            return Err(OpError::dim(format!(
                "{op}: padding [{lo} {hi}] leaves nothing of axis {axis}, of length {n}"
            )));
        }
        if mode == PadMode::Reflect && (lo >= n || hi >= n) {
            return Err(OpError::dim(format!(
                "{op}: reflect padding [{lo} {hi}] must be less than the length {n} of axis {axis}"
            )));
        }
        if n == 0 {
            return Err(OpError::dim(format!(
                "{op}: replicate padding of axis {axis}, which is empty"
            )));
        }
        let last = n - 1;
        let ids: Vec<usize> = (-lo..n + hi)
            .map(|i| match mode {
                PadMode::Reflect => (last - (last - i.abs()).abs()).abs(),
                _ => i.clamp(0, last),
            } as usize)
            .collect();
        self.take(x, axis, &[ids.len()], &ids)
    }

    /// The padding value in `x`'s dtype, or why it does not fit.
    fn pad_value(&self, op: &str, x: NodeId, value: Scalar) -> Result<Scalar, OpError> {
        let dtype = self.dtype(x);
        value.convert_to(dtype).ok_or_else(|| {
            OpError::dtype(format!(
                "{op}: the padding value {value} is {}, but the tensor is {dtype}",
                value.kind_phrase()
            ))
        })
    }

    /// Constant padding: `concat` of filled blocks around `x`.
    fn pad_constant(
        &mut self,
        op: &str,
        x: NodeId,
        axis: usize,
        (lo, hi): (usize, usize),
        value: Scalar,
    ) -> Result<NodeId, OpError> {
        let dtype = self.dtype(x);
        let value = self.pad_value(op, x, value)?;
        let mut parts = Vec::new();
        for (amount, is_lo) in [(lo, true), (hi, false)] {
            if amount > 0 {
                let mut dims = self.shape(x).dims().to_vec();
                dims[axis] = amount;
                let block = self.full(Shape::new(dims), value, dtype)?;
                parts.push((is_lo, block));
            }
        }
        let mut all: Vec<NodeId> = parts.iter().filter(|p| p.0).map(|p| p.1).collect();
        all.push(x);
        all.extend(parts.iter().filter(|p| !p.0).map(|p| p.1));
        self.concat(axis as i64, &all)
    }

    /// Sliding windows over the `kernel.len()` axes from `first`: each such
    /// axis of length `n` becomes two, `[out, k]`, where window `o` holds
    /// elements `o * stride + j * dilation`; so `[.., S1, S2]` becomes
    /// `[.., O1, K1, O2, K2]` (im2col before its reshape).
    pub(crate) fn windows(
        &mut self,
        op: &str,
        x: NodeId,
        first: usize,
        kernel: &[usize],
        stride: &[usize],
        dilation: &[usize],
    ) -> Result<NodeId, OpError> {
        let mut x = x;
        for i in (0..kernel.len()).rev() {
            let axis = first + i;
            let n = self.shape(x).dims()[axis];
            let out = window_count(op, n, kernel[i], stride[i], dilation[i], axis)?;
            let mut dims = self.shape(x).dims().to_vec();
            dims[axis] = out;
            dims.insert(axis + 1, kernel[i]);
            fits(op, "its windows", &dims)?;
            let ids: Vec<usize> = (0..out)
                .flat_map(|o| (0..kernel[i]).map(move |j| o * stride[i] + j * dilation[i]))
                .collect();
            x = self.take(x, axis, &[out, kernel[i]], &ids)?;
        }
        Ok(x)
    }
}

/// How many windows of `k` elements `dilation` apart, starting every
/// `stride`, fit in `n`; none is `E-DIM-001`.
pub(crate) fn window_count(
    op: &str,
    n: usize,
    k: usize,
    stride: usize,
    dilation: usize,
    axis: usize,
) -> Result<usize, OpError> {
    let span = dilation
        .checked_mul(k.max(1) - 1)
        .map_or(usize::MAX, |s| s.saturating_add(1));
    if k == 0 || n < span {
        return Err(OpError::dim(format!(
            "{op}: a window of {k} elements (spanning {span}) does not fit axis {axis}, of length {n} after padding"
        )));
    }
    Ok((n - span) / stride + 1)
}

/// Refuses a tensor of `dims` (an intermediate or a result) with more than
/// `MAX_ELEMENTS` elements before anything of that size is built.
pub(crate) fn fits(op: &str, what: &str, dims: &[usize]) -> Result<(), OpError> {
    let numel = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if numel.is_none_or(|n| n > MAX_ELEMENTS) {
        return Err(OpError::dim(format!(
            "{op}: {what} {} would be too large",
            Shape::new(dims.to_vec())
        ))
        .with_note(format!("a tensor may have at most {MAX_ELEMENTS} elements")));
    }
    Ok(())
}
