//! Scans and products composed at trace time (`docs/sexpgpu/operations.md`):
//! `cumprod` and `prod` on `linear-scan` (exact: each step is one f32
//! product), and `cummax`, `cummin` and `logcumsumexp` as log-depth
//! doubling scans of `maximum` (exact) and of a stable `logaddexp`.

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{BinaryOp, CompareOp, UnaryOp};
use crate::shape::{normalize_axis_for, Shape};

use super::reduce::reduced_shape;

impl Graph {
    /// `(cumprod x :axis a :reverse r)`: running products along the axis,
    /// as `linear-scan` `h = a h + b` from `h = 0`, with `a = -0.0` and
    /// `b = x` at the first step and `a = x`, `b = -0.0` after it: the
    /// start never multiplies `x` (an infinite first element stays
    /// infinite, where `inf * 0` would be NaN), and adding -0.0 changes no
    /// product, not even the sign of a zero, so each step is exactly one
    /// f32 product, as PyTorch's.
    pub fn cumprod(&mut self, x: NodeId, axis: i64, reverse: bool) -> Result<NodeId, OpError> {
        self.dtype_where("cumprod", x, DType::is_float, "a float tensor")?;
        let (shape, a, n) = self.along("cumprod", x, axis)?;
        if n == 0 {
            return Ok(x);
        }
        let position = self.iota(shape, a as i64, DType::I64)?;
        let first = if reverse { n as i64 - 1 } else { 0 };
        let at_first = self.compare(CompareOp::Eq, position, first)?;
        let start = self.where_(at_first, x, -0.0)?;
        let factor = self.where_(at_first, -0.0, x)?;
        self.linear_scan(factor, start, a as i64, reverse)
    }

    /// `(prod x :axes [..] :keepdims ..)`: the product over the axes, the
    /// last step of a `cumprod` over them (multiplied in order, in f32);
    /// over nothing it is 1.
    pub fn prod(
        &mut self,
        x: NodeId,
        axes: Option<&[i64]>,
        keepdims: bool,
    ) -> Result<NodeId, OpError> {
        let dtype = self.dtype_where("prod", x, DType::is_float, "a float tensor")?;
        let shape = self.shape(x).clone();
        let reduced = self.reduced_axes_of("prod", x, axes)?;
        if reduced.is_empty() {
            return Ok(x);
        }
        let out = reduced_shape(&shape, &reduced, keepdims);
        let m: usize = reduced.iter().map(|&a| shape.dims()[a]).product();
        if m == 0 {
            return Ok(self.ones(out, dtype));
        }
        let (flat, rows) = self.reduced_axes_last(x, &reduced)?;
        let last = rows.len() as i64 - 1;
        let running = self.cumprod(flat, last, false)?;
        let total = self.slice(running, last, m as i64 - 1, m as i64)?;
        self.reshape(total, out)
    }

    /// The sorted, checked axes of a reduction named `name`.
    fn reduced_axes_of(
        &self,
        name: &str,
        x: NodeId,
        axes: Option<&[i64]>,
    ) -> Result<Vec<usize>, OpError> {
        let shape = self.shape(x);
        let mut out: Vec<usize> = Vec::new();
        match axes {
            None => out.extend(0..shape.rank()),
            Some(list) => {
                for &axis in list {
                    let a = normalize_axis_for(name, axis, shape)?;
                    if out.contains(&a) {
                        return Err(OpError::dim(format!(
                            "{name}: axis {axis} appears twice in {}",
                            crate::shape::format_list(list)
                        )));
                    }
                    out.push(a);
                }
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    /// `y` shifted by `s` along `a` towards the end, the first `s`
    /// positions filled with `pad`.
    fn shifted(&mut self, y: NodeId, a: usize, s: usize, pad: Scalar) -> Result<NodeId, OpError> {
        let shape = self.shape(y).clone();
        let n = shape.dims()[a];
        let mut dims = shape.dims().to_vec();
        dims[a] = s;
        let dtype = self.dtype(y);
        let fill = self.full(Shape::new(dims), pad, dtype)?;
        let kept = self.slice(y, a as i64, 0, (n - s) as i64)?;
        self.concat(a as i64, &[fill, kept])
    }

    /// A log-depth scan of `step` along the axis: after the steps of 1, 2,
    /// 4, ..., each position combines every earlier one; `pad` is the
    /// identity of `step`. `reverse` runs from the end.
    fn doubling_scan(
        &mut self,
        name: &str,
        x: NodeId,
        axis: i64,
        reverse: bool,
        pad: Scalar,
        step: fn(&mut Graph, NodeId, NodeId) -> Result<NodeId, OpError>,
    ) -> Result<NodeId, OpError> {
        let (_, a, n) = self.along(name, x, axis)?;
        let flip = |g: &mut Graph, y: NodeId| -> Result<NodeId, OpError> {
            if reverse {
                g.flip(y, &[a as i64])
            } else {
                Ok(y)
            }
        };
        let mut y = flip(self, x)?;
        let mut s = 1;
        while s < n {
            let earlier = self.shifted(y, a, s, pad)?;
            y = step(self, y, earlier)?;
            s *= 2;
        }
        flip(self, y)
    }

    /// `(cummax x :axis a)` and `cummin`: running maxima (minima); NaN
    /// propagates, as PyTorch's.
    pub fn cum_extreme(
        &mut self,
        largest: bool,
        x: NodeId,
        axis: i64,
        reverse: bool,
    ) -> Result<NodeId, OpError> {
        let name = if largest { "cummax" } else { "cummin" };
        let dtype = self.dtype(x);
        let pad = match (dtype, largest) {
            (DType::F32 | DType::BF16, true) => Scalar::Float(f64::NEG_INFINITY),
            (DType::F32 | DType::BF16, false) => Scalar::Float(f64::INFINITY),
            (DType::I32, true) => Scalar::Int(i64::from(i32::MIN)),
            (DType::I32, false) => Scalar::Int(i64::from(i32::MAX)),
            (DType::I64, true) => Scalar::Int(i64::MIN),
            (DType::I64, false) => Scalar::Int(i64::MAX),
            (DType::Bool, _) => {
                return Err(OpError::dtype(format!(
                    "{name}: expects a float or integer tensor, got bool"
                )))
            }
        };
        let step: fn(&mut Graph, NodeId, NodeId) -> Result<NodeId, OpError> = if largest {
            |g, a, b| g.binary(BinaryOp::Maximum, a, b)
        } else {
            |g, a, b| g.binary(BinaryOp::Minimum, a, b)
        };
        self.doubling_scan(name, x, axis, reverse, pad, step)
    }

    /// The `i64` positions of `cummax`'s (`cummin`'s) values: the latest
    /// position, in scan order, whose element equals the running extreme
    /// (or is NaN), as PyTorch's `cummax` indices.
    pub fn cum_extreme_indices(
        &mut self,
        x: NodeId,
        values: NodeId,
        axis: i64,
        reverse: bool,
    ) -> Result<NodeId, OpError> {
        let (shape, a, n) = self.along("cummax", x, axis)?;
        let n = n as i64;
        let mut hit = self.compare(CompareOp::Eq, x, values)?;
        if self.dtype(x).is_float() {
            let nan = self.compare(CompareOp::Ne, x, x)?;
            hit = self.binary(BinaryOp::BitOr, hit, nan)?;
        }
        let position = self.iota(shape, a as i64, DType::I64)?;
        // Forward, the latest hit is the largest position; backward, the smallest.
        let missing = if reverse { n } else { -1 };
        let candidates = self.where_(hit, position, missing)?;
        self.cum_extreme(!reverse, candidates, a as i64, reverse)
    }

    /// `(logcumsumexp x :axis a)`: `log(cumsum(exp(x)))` without overflow,
    /// each step `m + log(exp(a - m) + exp(b - m))` with `m` the larger
    /// (0 when it is infinite), so ties share the gradient evenly; in f32.
    pub fn logcumsumexp(&mut self, x: NodeId, axis: i64, reverse: bool) -> Result<NodeId, OpError> {
        let dtype = self.dtype_where("logcumsumexp", x, DType::is_float, "a float tensor")?;
        // In f32 also for bf16, rounded once at the end: the steps' bf16
        // roundings would add up.
        let wide = self.cast(x, DType::F32);
        let pad = Scalar::Float(f64::NEG_INFINITY);
        let y = self.doubling_scan("logcumsumexp", wide, axis, reverse, pad, log_add_exp)?;
        Ok(self.cast(y, dtype))
    }
}

/// `log(exp(a) + exp(b))`, stably.
fn log_add_exp(g: &mut Graph, a: NodeId, b: NodeId) -> Result<NodeId, OpError> {
    let m = g.binary(BinaryOp::Maximum, a, b)?;
    let size = g.unary(UnaryOp::Abs, m)?;
    let infinite = g.compare(CompareOp::Eq, size, f64::INFINITY)?;
    let m = g.where_(infinite, 0.0, m)?;
    let da = g.binary(BinaryOp::Sub, a, m)?;
    let db = g.binary(BinaryOp::Sub, b, m)?;
    let ea = g.unary(UnaryOp::Exp, da)?;
    let eb = g.unary(UnaryOp::Exp, db)?;
    let total = g.binary(BinaryOp::Add, ea, eb)?;
    let log = g.unary(UnaryOp::Log, total)?;
    g.binary(BinaryOp::Add, m, log)
}
