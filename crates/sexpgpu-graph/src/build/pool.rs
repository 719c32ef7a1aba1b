//! `max-pool`, `avg-pool`, `adaptive-avg-pool` and `interpolate`
//! (`docs/sexpgpu/operations.md`) over the last 1 to 3 axes: sliding windows
//! (`build/window.rs`) reduced by `max` or `sum`, and resizing as positions
//! taken (`index`) and weighted per axis. Compositions, so gradients and
//! backends come free; `max-pool` also gives the indices PyTorch's
//! `return_indices` does, whose elements its gradient goes to.

use crate::build::window::{fits, window_count, PadMode, PerAxis};
use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{BinaryOp, CompareOp, ReduceOp};
use crate::shape::Shape;

/// The keywords of `max-pool` and `avg-pool`; `stride` `None` is the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolOptions {
    pub window: PerAxis,
    pub stride: Option<PerAxis>,
    pub padding: PerAxis,
    pub dilation: PerAxis,
    /// `avg-pool`: padded elements count in the divisor.
    pub count_include_pad: bool,
    /// Output lengths rounded up (PyTorch's `ceil_mode`): a last window
    /// may run past the end, if it starts inside the input or its padding.
    pub ceil_mode: bool,
}

/// How `interpolate` fills in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resize {
    Nearest,
    /// PyTorch's `nearest-exact`: the input nearest each output's centre.
    NearestExact,
    Linear,
    Bilinear,
    Trilinear,
}

impl Resize {
    /// The keyword that names the mode.
    pub fn name(self) -> &'static str {
        match self {
            Resize::Nearest => "nearest",
            Resize::NearestExact => "nearest-exact",
            Resize::Linear => "linear",
            Resize::Bilinear => "bilinear",
            Resize::Trilinear => "trilinear",
        }
    }

    /// The mode a keyword names.
    pub fn from_keyword(name: &str) -> Option<Resize> {
        [
            Resize::Nearest,
            Resize::NearestExact,
            Resize::Linear,
            Resize::Bilinear,
            Resize::Trilinear,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }
}

/// The checked windows of a pool: spatial axes start at `first`.
#[derive(Clone)]
pub(super) struct PoolGeometry {
    pub(super) first: usize,
    pub(super) window: Vec<usize>,
    stride: Vec<usize>,
    padding: Vec<usize>,
    dilation: Vec<usize>,
    /// Padding after each axis's end that `ceil_mode` adds.
    extra: Vec<usize>,
}

impl PoolGeometry {
    /// Pooled axis `i`'s stride, padding and window.
    pub(super) fn stride_padding_window(&self, i: usize) -> (i64, i64, i64) {
        (
            self.stride[i] as i64,
            self.padding[i] as i64,
            self.window[i] as i64,
        )
    }

    /// Whether windows reach past the input (padding, or `ceil_mode`'s end).
    fn pads(&self) -> bool {
        self.padding.iter().chain(&self.extra).any(|&p| p > 0)
    }

    /// The axes of the windows' elements in `[.. o1 k1 o2 k2 ..]`.
    fn element_axes(&self) -> Vec<i64> {
        (0..self.window.len())
            .map(|i| (self.first + 2 * i + 1) as i64)
            .collect()
    }
}

impl Graph {
    /// `(max-pool x :window [..] ...)`: the maximum of each window; padding
    /// is never the maximum (it is the dtype's lowest value). Its gradient
    /// goes whole to the element `:return-indices` names, as PyTorch's.
    pub fn max_pool(&mut self, x: NodeId, opts: &PoolOptions) -> Result<NodeId, OpError> {
        if !self.dtype(x).is_float() {
            let op = "max-pool";
            let geo = self.pool_geometry(op, x, opts)?;
            let windows = self.pool_windows(op, x, &geo, lowest(self.dtype(x)))?;
            return self.reduce(ReduceOp::Max, windows, Some(&geo.element_axes()), false);
        }
        Ok(self.max_pool_with_indices(x, opts)?.0)
    }

    /// `(max-pool x :window [..] :return-indices true)`: the maxima, and
    /// for each the `i64` position of the element its gradient goes to: the
    /// first of its window, in the window's row-major order, that equals it
    /// (a NaN maximum: the last NaN), never padding; as PyTorch's kernel,
    /// which keeps the first element it meets that is larger, and every
    /// NaN. A float maximum is the windows' reduction, differentiated as
    /// the sum of its window with every other element zeroed: the windows'
    /// adjoint then adds up where overlapping windows pick one element.
    pub fn max_pool_with_indices(
        &mut self,
        x: NodeId,
        opts: &PoolOptions,
    ) -> Result<(NodeId, NodeId), OpError> {
        let op = "max-pool";
        let geo = self.pool_geometry(op, x, opts)?;
        let windows = self.pool_windows(op, x, &geo, lowest(self.dtype(x)))?;
        let axes = geo.element_axes();
        let maxima = self.reduce(ReduceOp::Max, windows, Some(&axes), false)?;
        let (scores, top) = self.pool_scores(op, x, windows, maxima, &geo)?;
        let count: usize = self.shape(x).dims()[geo.first..].iter().product();
        let nan = self.compare(CompareOp::Gt, top, count as i64)?;
        let last = self.binary(BinaryOp::Sub, top, count as i64 + 1)?;
        let first = self.binary(BinaryOp::Sub, count as i64, top)?;
        let indices = self.where_(nan, last, first)?;
        let indices = self.cast(indices, DType::I64);
        if !self.dtype(x).is_float() {
            return Ok((maxima, indices));
        }
        let mut kept = self.shape(windows).dims().to_vec();
        for &a in &axes {
            kept[a as usize] = 1;
        }
        let top = self.reshape(top, Shape::new(kept))?;
        let chosen = self.compare(CompareOp::Eq, scores, top)?;
        let picked = self.where_(chosen, windows, 0.0)?;
        let carrier = self.reduce(ReduceOp::Sum, picked, Some(&axes), false)?;
        Ok((self.with_gradient_of(maxima, carrier)?, indices))
    }

    /// Each window element's score, and each window's best (`[.. o1 o2
    /// ..]`), in `i32` where they fit: with `N` the count of positions in
    /// the pooled axes and `p` an element's position among them (row-major,
    /// whose order is the window's row-major order), an element equal to
    /// the maximum scores `N - p`, a NaN `N + 1 + p` (a window holding one
    /// has a NaN maximum, which nothing equals), padding and the rest 0.
    /// The best is the element PyTorch's kernel picks.
    fn pool_scores(
        &mut self,
        op: &str,
        x: NodeId,
        windows: NodeId,
        maxima: NodeId,
        geo: &PoolGeometry,
    ) -> Result<(NodeId, NodeId), OpError> {
        let axes = geo.element_axes();
        let mut kept = self.shape(windows).dims().to_vec();
        for &a in &axes {
            kept[a as usize] = 1;
        }
        let best = self.reshape(maxima, Shape::new(kept))?;
        let mut hits = self.compare(CompareOp::Eq, windows, best)?;
        let count: usize = self.shape(x).dims()[geo.first..].iter().product();
        let dtype = if 2 * count < i32::MAX as usize {
            DType::I32
        } else {
            DType::I64
        };
        let at = self.window_positions(op, x, geo)?;
        if geo.pads() {
            let inside = self.compare(CompareOp::Ge, at, 0i64)?;
            hits = self.binary(BinaryOp::BitAnd, hits, inside)?;
        }
        let at = self.cast(at, dtype);
        let first = self.binary(BinaryOp::Sub, count as i64, at)?;
        let mut scores = self.where_(hits, first, 0i64)?;
        if self.dtype(windows).is_float() {
            let nan = self.float_test("isnan", windows)?;
            let last = self.binary(BinaryOp::Add, at, count as i64 + 1)?;
            scores = self.where_(nan, last, scores)?;
        }
        let top = self.reduce(ReduceOp::Max, scores, Some(&axes), false)?;
        Ok((scores, top))
    }

    /// Each window element's position in `x`'s pooled axes (row-major),
    /// laid out as the windows `[o1 k1 o2 k2 ..]`; -1 in padding.
    fn window_positions(
        &mut self,
        op: &str,
        x: NodeId,
        geo: &PoolGeometry,
    ) -> Result<NodeId, OpError> {
        let spatial = self.shape(x).dims()[geo.first..].to_vec();
        let count: usize = spatial.iter().product();
        let positions = self.iota(Shape::new(vec![count]), 0, DType::I64)?;
        let positions = self.reshape(positions, Shape::new(spatial))?;
        let mut plane = geo.clone();
        plane.first = 0;
        self.pool_windows(op, positions, &plane, Scalar::Int(-1))
    }

    /// `(avg-pool x :window [..] ...)`: the mean of each window, dividing by
    /// the window's size, or with `:count-include-pad false` by the number
    /// of its elements inside the input.
    pub fn avg_pool(&mut self, x: NodeId, opts: &PoolOptions) -> Result<NodeId, OpError> {
        let op = "avg-pool";
        self.dtype_where(op, x, DType::is_float, "a float tensor")?;
        let geo = self.pool_geometry(op, x, opts)?;
        let windows = self.pool_windows(op, x, &geo, Scalar::Int(0))?;
        let d = geo.window.len();
        let axes: Vec<i64> = (0..d).map(|i| (geo.first + 2 * i + 1) as i64).collect();
        let sums = self.reduce(ReduceOp::Sum, windows, Some(&axes), false)?;
        if opts.count_include_pad && geo.extra.iter().all(|&e| e == 0) {
            let size: usize = geo.window.iter().product();
            return self.binary(BinaryOp::Div, sums, size as f64);
        }
        let dims = self.shape(x).dims().to_vec();
        let include = opts.count_include_pad;
        let per_axis: Vec<Vec<f64>> = (0..d)
            .map(|i| inside_counts(dims[geo.first + i], &geo, i, include))
            .collect();
        let outs: Vec<usize> = per_axis.iter().map(Vec::len).collect();
        let mut counts = vec![1.0];
        for axis in &per_axis {
            counts = counts
                .iter()
                .flat_map(|c| axis.iter().map(move |a| c * a))
                .collect();
        }
        let counts = self.floats_like(&outs, &counts, sums)?;
        self.binary(BinaryOp::Div, sums, counts)
    }

    /// Checks the window against `x`'s last axes.
    pub(super) fn pool_geometry(
        &mut self,
        op: &str,
        x: NodeId,
        opts: &PoolOptions,
    ) -> Result<PoolGeometry, OpError> {
        let d = match &opts.window {
            PerAxis::Each(v) => v.len(),
            PerAxis::All(_) => 1,
        };
        let shape = self.shape(x).clone();
        if !(1..=3).contains(&d) || shape.rank() < d + 1 {
            return Err(OpError::dim(format!(
                "{op}: a window of {d} axes needs an input of rank {} or more ([c s..] or [n c s..]), got {shape}",
                d + 1
            ))
            .with_note("pooling runs over the last 1, 2 or 3 axes, one per `:window` entry"));
        }
        self.dtype_where(op, x, DType::is_numeric, "a float or integer tensor")?;
        let window = opts.window.resolve(op, "window", d, 1)?;
        let stride = match &opts.stride {
            Some(s) => s.resolve(op, "stride", d, 1)?,
            None => window.clone(),
        };
        let padding = opts.padding.resolve(op, "padding", d, 0)?;
        for (p, k) in padding.iter().zip(&window) {
            if 2 * p > *k {
                return Err(OpError::dim(format!(
                    "{op}: `:padding` {p} must be at most half the window {k}"
                )));
            }
        }
        let first = shape.rank() - d;
        let dilation = opts.dilation.resolve(op, "dilation", d, 1)?;
        let extra = (0..d)
            .map(|i| {
                let n = shape.dims()[first + i];
                let (k, s, p) = (window[i], stride[i], padding[i]);
                if opts.ceil_mode {
                    ceil_extra(n, k, s, p, dilation[i])
                } else {
                    0
                }
            })
            .collect();
        Ok(PoolGeometry {
            first,
            window,
            stride,
            padding,
            dilation,
            extra,
        })
    }

    /// The padded windows `[.. o1 k1 o2 k2 ..]` of a pool.
    pub(super) fn pool_windows(
        &mut self,
        op: &str,
        x: NodeId,
        geo: &PoolGeometry,
        fill: Scalar,
    ) -> Result<NodeId, OpError> {
        let tiles = geo.stride == geo.window
            && geo.padding.iter().all(|&p| p == 0)
            && geo.extra.iter().all(|&e| e == 0)
            && geo.dilation.iter().all(|&d| d == 1);
        if tiles {
            return self.tiles(op, x, geo);
        }
        let mut x = x;
        for (i, (&p, &e)) in geo.padding.iter().zip(&geo.extra).enumerate() {
            let amount = (p as i64, (p + e) as i64);
            x = self.pad_axis(op, x, geo.first + i, amount, PadMode::Constant, fill)?;
        }
        self.windows(op, x, geo.first, &geo.window, &geo.stride, &geo.dilation)
    }

    /// Windows that tile the input (stride = window, no padding or
    /// dilation) as a `reshape`: `[.. s1 s2]` cut to whole windows, then
    /// `[.. o1 k1 o2 k2]`, the layout `windows` gives, with no copy.
    fn tiles(&mut self, op: &str, x: NodeId, geo: &PoolGeometry) -> Result<NodeId, OpError> {
        let mut x = x;
        let mut dims = self.shape(x).dims()[..geo.first].to_vec();
        for (i, &k) in geo.window.iter().enumerate() {
            let axis = geo.first + i;
            let n = self.shape(x).dims()[axis];
            let out = window_count(op, n, k, k, 1, axis)?;
            x = self.slice(x, axis as i64, 0, (out * k) as i64)?;
            dims.extend([out, k]);
        }
        self.reshape(x, crate::shape::Shape::new(dims))
    }

    /// `(adaptive-avg-pool x [sizes])`: the last axes averaged down (or up)
    /// to `sizes`; output `i` averages input `floor(i n / o)` to
    /// `ceil((i + 1) n / o)`, as PyTorch.
    pub fn adaptive_avg_pool(&mut self, x: NodeId, sizes: &[i64]) -> Result<NodeId, OpError> {
        let op = "adaptive-avg-pool";
        let first = self.resize_axes(op, x, sizes, 1)?;
        let mut x = x;
        for (i, &o) in sizes.iter().enumerate() {
            let axis = first + i;
            let (n, o) = (self.shape(x).dims()[axis], o as usize);
            fits(op, "its averaging matrix", &[n, o])?;
            let mut ones = vec![0.0; o * n];
            let mut counts = Vec::with_capacity(o);
            for row in 0..o {
                let (lo, hi) = (row * n / o, ((row + 1) * n).div_ceil(o));
                for col in lo..hi {
                    ones[col * o + row] = 1.0;
                }
                counts.push((hi - lo) as f64);
            }
            let sums = self.mix_axis(x, axis, &ones, o)?;
            let rank = self.shape(x).rank();
            let dims = [vec![o], vec![1; rank - 1 - axis]].concat();
            let counts = self.floats_like(&dims, &counts, x)?;
            x = self.binary(BinaryOp::Div, sums, counts)?;
        }
        Ok(x)
    }

    /// `x` with `axis` (of length n) replaced by `o` sums weighted by
    /// `weights` (`[n, o]`, row-major): a `matmul` along that axis.
    fn mix_axis(
        &mut self,
        x: NodeId,
        axis: usize,
        weights: &[f64],
        o: usize,
    ) -> Result<NodeId, OpError> {
        let rank = self.shape(x).rank();
        let n = self.shape(x).dims()[axis];
        let mut to_last: Vec<i64> = (0..rank).filter(|&a| a != axis).map(|a| a as i64).collect();
        to_last.push(axis as i64);
        let moved = self.transpose(x, &to_last)?;
        let m = self.floats_like(&[n, o], weights, x)?;
        let mixed = self.matmul(moved, m)?;
        let mut back: Vec<i64> = (0..axis).map(|a| a as i64).collect();
        back.push((rank - 1) as i64);
        back.extend((axis..rank - 1).map(|a| a as i64));
        self.transpose(mixed, &back)
    }

    /// Checks `sizes` against `x` (at least `lead` axes before them, every
    /// size at least 1, float dtype); the first resized axis.
    fn resize_axes(
        &mut self,
        op: &str,
        x: NodeId,
        sizes: &[i64],
        lead: usize,
    ) -> Result<usize, OpError> {
        let shape = self.shape(x).clone();
        let d = sizes.len();
        if !(1..=3).contains(&d) || shape.rank() < d + lead {
            return Err(OpError::dim(format!(
                "{op}: {d} sizes need an input of rank {} or more, got {shape}",
                d + lead
            ))
            .with_note("the sizes are for the last 1, 2 or 3 axes"));
        }
        if let Some(bad) = sizes.iter().find(|&&s| s < 1) {
            return Err(OpError::dim(format!(
                "{op}: sizes must be at least 1, got {bad}"
            )));
        }
        let mut dims = shape.dims().to_vec();
        for (i, &s) in sizes.iter().enumerate() {
            let at = shape.rank() - d + i;
            dims[at] = usize::try_from(s).unwrap_or(usize::MAX);
        }
        fits(op, "the result", &dims)?;
        self.dtype_where(op, x, DType::is_float, "a float tensor")?;
        Ok(shape.rank() - d)
    }

    /// `(interpolate x [sizes] :mode .. :align-corners ..)`: `x` is
    /// `[n c s..]`; its last axes resized to `sizes`, as PyTorch's
    /// `interpolate` with `size`.
    pub fn interpolate(
        &mut self,
        x: NodeId,
        sizes: &[i64],
        mode: Resize,
        align_corners: bool,
    ) -> Result<NodeId, OpError> {
        let op = "interpolate";
        let first = self.resize_axes(op, x, sizes, 2)?;
        let wanted = match mode {
            Resize::Nearest | Resize::NearestExact | Resize::Linear => None,
            Resize::Bilinear => Some(2),
            Resize::Trilinear => Some(3),
        };
        if let Some(w) = wanted.filter(|&w| w != sizes.len()) {
            return Err(OpError::dim(format!(
                "interpolate: `:{}` resizes {w} axes, but {} sizes are given",
                mode.name(),
                sizes.len()
            )));
        }
        if align_corners && matches!(mode, Resize::Nearest | Resize::NearestExact) {
            return Err(OpError::dim(format!(
                "interpolate: `:align-corners` is for the linear modes, not `:{}`",
                mode.name()
            )));
        }
        let mut x = x;
        for (i, &o) in sizes.iter().enumerate() {
            let axis = first + i;
            let (n, o) = (self.shape(x).dims()[axis], o as usize);
            x = if matches!(mode, Resize::Nearest | Resize::NearestExact) {
                let ids = nearest(n, o, mode == Resize::NearestExact);
                self.take(x, axis, &[o], &ids)?
            } else {
                self.linear_axis(x, axis, o, align_corners)?
            };
        }
        Ok(x)
    }

    /// One axis resized to `o` by linear interpolation between the two
    /// nearest positions.
    fn linear_axis(
        &mut self,
        x: NodeId,
        axis: usize,
        o: usize,
        align_corners: bool,
    ) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        let n = shape.dims()[axis];
        let (mut lo, mut hi, mut w_lo, mut w_hi) = (vec![], vec![], vec![], vec![]);
        for j in 0..o {
            let src = if align_corners {
                if o > 1 {
                    j as f64 * (n - 1) as f64 / (o - 1) as f64
                } else {
                    0.0
                }
            } else {
                ((j as f64 + 0.5) * n as f64 / o as f64 - 0.5).max(0.0)
            };
            let i0 = (src.floor() as usize).min(n - 1);
            let i1 = (i0 + 1).min(n - 1);
            let t = src - i0 as f64;
            lo.push(i0);
            hi.push(i1);
            w_lo.push(1.0 - t);
            w_hi.push(t);
        }
        let mut wdims = vec![o];
        wdims.extend(std::iter::repeat_n(1, shape.rank() - 1 - axis));
        let a = self.take(x, axis, &[o], &lo)?;
        let b = self.take(x, axis, &[o], &hi)?;
        let wa = self.floats_like(&wdims, &w_lo, x)?;
        let wb = self.floats_like(&wdims, &w_hi, x)?;
        let a = self.binary(BinaryOp::Mul, a, wa)?;
        let b = self.binary(BinaryOp::Mul, b, wb)?;
        self.binary(BinaryOp::Add, a, b)
    }
}

/// The lowest value of a dtype, with which `max-pool` pads.
fn lowest(dtype: DType) -> Scalar {
    match dtype {
        DType::I32 => Scalar::Int(i64::from(i32::MIN)),
        DType::I64 => Scalar::Int(i64::MIN),
        _ => Scalar::Float(f64::NEG_INFINITY),
    }
}

/// The input each of `o` outputs takes from `n`, as PyTorch computes it:
/// `floor(j scale)` for `nearest`, `floor((j + 0.5) scale)` for
/// `nearest-exact` (the product in f64, rounded to f32 as `floorf` takes
/// it), with `scale = n / o` in f32.
fn nearest(n: usize, o: usize, exact: bool) -> Vec<usize> {
    let scale = n as f32 / o as f32;
    (0..o)
        .map(|j| {
            let at = if exact {
                ((j as f64 + 0.5) * f64::from(scale)) as f32
            } else {
                j as f32 * scale
            };
            (at.floor() as usize).min(n - 1)
        })
        .collect()
}

/// For `avg-pool`'s divisor: how many elements of each window along axis
/// `i` lie inside the unpadded input of length `n`, or with `include_pad`
/// inside the padded one (not the end `ceil_mode` adds), as PyTorch's.
fn inside_counts(n: usize, geo: &PoolGeometry, i: usize, include_pad: bool) -> Vec<f64> {
    let (k, s, p, dil) = (
        geo.window[i],
        geo.stride[i],
        geo.padding[i],
        geo.dilation[i],
    );
    let padded = n + 2 * p + geo.extra[i];
    let out = window_count("avg-pool", padded, k, s, dil, 0).unwrap_or(0);
    let (lo, hi) = if include_pad {
        (0, n + 2 * p)
    } else {
        (p, n + p)
    };
    (0..out)
        .map(|o| {
            (0..k)
                .filter(|j| (lo..hi).contains(&(o * s + j * dil)))
                .count() as f64
        })
        .collect()
}

/// The padding `ceil_mode` adds after an axis of length `n`: PyTorch's
/// output length rounded up, less one when the last window would start
/// past the input and its left padding.
fn ceil_extra(n: usize, k: usize, s: usize, p: usize, dil: usize) -> usize {
    let (span, padded) = (dil * (k.max(1) - 1) + 1, n + 2 * p);
    if padded < span || s == 0 {
        return 0;
    }
    let mut out = (padded - span).div_ceil(s) + 1;
    if (out - 1) * s >= n + p {
        out -= 1;
    }
    ((out - 1) * s + span).saturating_sub(padded)
}
