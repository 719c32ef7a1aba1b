//! Operations built from other nodes at trace time, where the composition
//! is exact (`docs/sexpgpu/operations.md`): `clip`, `lerp`, the float
//! tests `isnan isinf isfinite`, `logical-not`, `bit-not`, the `min`
//! reduction, `argmax`/`argmin`, `one-hot`, `any`/`all` and `var`/`std`.
//! Each checks its own arguments first, so a mistake names the operation
//! the user wrote, never a node it is made of.

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId, Operand};
use crate::op::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::shape::{format_list, normalize_axis_for, Shape};

use super::reduce::reduced_shape;

impl Graph {
    /// `(clip x lo hi)`: `min(max(x, lo), hi)`, as PyTorch's `clamp`: `lo`
    /// where `x < lo`, then `hi` where that is above `hi` (so `lo > hi`
    /// gives `hi` everywhere); a NaN `x` or NaN bound gives NaN. The
    /// gradient goes to `x` inside `[lo, hi]` (none to a NaN `x`).
    pub fn clip(
        &mut self,
        x: NodeId,
        lo: impl Into<Operand>,
        hi: impl Into<Operand>,
    ) -> Result<NodeId, OpError> {
        let (lo, hi) = (lo.into(), hi.into());
        self.dtype_where("clip", x, DType::is_numeric, "a float or integer tensor")?;
        let x = self.no_gradient_at_nan(x)?;
        let below = self.compare(CompareOp::Lt, x, lo)?;
        let lower = self.where_(below, lo, x)?;
        let lower = self.nan_bound(lo, lower)?;
        let above = self.compare(CompareOp::Gt, lower, hi)?;
        let upper = self.where_(above, hi, lower)?;
        self.nan_bound(hi, upper)
    }

    /// `x` where it is a number; where it is NaN, the same NaN through
    /// which no gradient flows (PyTorch's `clamp` gives a NaN input none).
    fn no_gradient_at_nan(&mut self, x: NodeId) -> Result<NodeId, OpError> {
        if !self.dtype(x).is_float() {
            return Ok(x);
        }
        let nan = self.compare(CompareOp::Ne, x, x)?;
        let held = self.unary(UnaryOp::StopGradient, x)?;
        self.where_(nan, held, x)
    }

    /// `bound` where it is NaN, else `y`: a NaN bound of `clip` gives NaN
    /// as PyTorch's `clamp` does, where every comparison with it is false.
    /// A number bound is decided here; an integer `y` never meets a NaN.
    fn nan_bound(&mut self, bound: Operand, y: NodeId) -> Result<NodeId, OpError> {
        match bound {
            Operand::Number(s) if s.as_f64().is_nan() => self.binary(BinaryOp::Add, y, bound),
            Operand::Number(_) => Ok(y),
            Operand::Tensor(b) if !self.dtype(b).is_float() => Ok(y),
            Operand::Tensor(b) => {
                let nan = self.compare(CompareOp::Ne, b, b)?;
                self.where_(nan, b, y)
            }
        }
    }

    /// `(lerp a b w)`: `a + w (b - a)`, PyTorch's formula (from `b` when
    /// `|w| >= 0.5`, so that `w = 1` gives `b` exactly). Floats only; bf16
    /// is computed in f32 and rounded once, as PyTorch's.
    pub fn lerp(
        &mut self,
        a: NodeId,
        b: impl Into<Operand>,
        w: impl Into<Operand>,
    ) -> Result<NodeId, OpError> {
        let (b, w) = (b.into(), w.into());
        self.dtype_where("lerp", a, DType::is_float, "float tensors")?;
        let tensors: Vec<NodeId> = [Operand::Tensor(a), b, w]
            .into_iter()
            .filter_map(|o| match o {
                Operand::Tensor(t) => Some(t),
                Operand::Number(_) => None,
            })
            .collect();
        if self.same_dtype("lerp", &tensors)? == DType::BF16 {
            // In f32 and rounded once, as PyTorch's opmath computes it.
            let widen = |g: &mut Graph, o: Operand| match o {
                Operand::Tensor(t) => Operand::Tensor(g.cast(t, DType::F32)),
                number => number,
            };
            let wide = self.cast(a, DType::F32);
            let (b, w) = (widen(self, b), widen(self, w));
            let result = self.lerp(wide, b, w)?;
            return Ok(self.cast(result, DType::BF16));
        }
        let diff = self.binary(BinaryOp::Sub, b, a)?;
        let step = self.binary(BinaryOp::Mul, w, diff)?;
        let from_a = self.binary(BinaryOp::Add, a, step)?;
        // A number weight's `1 - w` is a number too (computed as f32
        // arithmetic would: `1 - f32(w)` is exact in f64), so it takes the
        // tensors' dtype.
        let rest = match w {
            Operand::Number(s) => {
                Operand::Number(Scalar::Float(1.0 - f64::from(s.as_f64() as f32)))
            }
            Operand::Tensor(_) => Operand::Tensor(self.binary(BinaryOp::Sub, 1.0, w)?),
        };
        let back = self.binary(BinaryOp::Mul, diff, rest)?;
        let from_b = self.binary(BinaryOp::Sub, b, back)?;
        let size = match w {
            Operand::Number(s) => Operand::Number(Scalar::Float(s.as_f64().abs())),
            Operand::Tensor(w) => Operand::Tensor(self.unary(UnaryOp::Abs, w)?),
        };
        let near_a = self.compare(CompareOp::Lt, size, 0.5)?;
        self.where_(near_a, from_a, from_b)
    }

    /// `(isnan x)`, `(isinf x)`, `(isfinite x)`: `bool` tensors; integers
    /// are never NaN or infinite.
    pub fn float_test(&mut self, name: &str, x: NodeId) -> Result<NodeId, OpError> {
        let dtype = self.dtype(x);
        if dtype == DType::Bool {
            return Err(OpError::dtype(format!(
                "{name}: expects a float or integer tensor, got bool"
            )));
        }
        if !dtype.is_float() {
            let op = if name == "isfinite" {
                CompareOp::Eq
            } else {
                CompareOp::Ne
            };
            return self.compare(op, x, x);
        }
        match name {
            "isnan" => self.compare(CompareOp::Ne, x, x),
            _ => {
                let size = self.unary(UnaryOp::Abs, x)?;
                let op = if name == "isinf" {
                    CompareOp::Eq
                } else {
                    CompareOp::Lt
                };
                self.compare(op, size, f64::INFINITY)
            }
        }
    }

    /// `(logical-not x)` of a `bool` tensor.
    pub fn logical_not(&mut self, x: NodeId) -> Result<NodeId, OpError> {
        let dtype = self.dtype(x);
        if dtype != DType::Bool {
            return Err(OpError::dtype(format!(
                "logical-not: expects a bool tensor, got {dtype}"
            )));
        }
        let no = self.full(self.shape(x).clone(), Scalar::Bool(false), DType::Bool)?;
        self.compare(CompareOp::Eq, x, no)
    }

    /// `(bit-not x)`: every bit flipped (`-x - 1`) on integers, `logical-not`
    /// on `bool`.
    pub fn bit_not(&mut self, x: NodeId) -> Result<NodeId, OpError> {
        let dtype = self.dtype(x);
        if dtype == DType::Bool {
            return self.logical_not(x);
        }
        if !dtype.is_integer() {
            return Err(OpError::dtype(format!(
                "bit-not: expects an integer or bool tensor, got {dtype}"
            )));
        }
        self.binary(BinaryOp::BitXor, x, -1i64)
    }

    /// The reduced axes of `x` for `name`, checked as `reduce` checks them
    /// (`None` is every axis); `nonempty` refuses an axis of length 0.
    pub(super) fn reduced_axes(
        &self,
        name: &str,
        x: NodeId,
        axes: Option<&[i64]>,
        nonempty: bool,
    ) -> Result<Vec<usize>, OpError> {
        let shape = self.shape(x).clone();
        let mut out = Vec::new();
        match axes {
            None => out.extend(0..shape.rank()),
            Some(list) => {
                for &axis in list {
                    let a = normalize_axis_for(name, axis, &shape)?;
                    if out.contains(&a) {
                        return Err(OpError::dim(format!(
                            "{name}: axis {axis} appears twice in {}",
                            format_list(list)
                        )));
                    }
                    out.push(a);
                }
            }
        }
        out.sort_unstable();
        if nonempty {
            if let Some(&a) = out.iter().find(|&&a| shape.dims()[a] == 0) {
                return Err(OpError::dim(format!(
                    "{name}: axis {a} of {shape} is empty; the {name} of nothing is undefined"
                )));
            }
        }
        Ok(out)
    }

    /// `(min x :axes [..] :keepdims ..)`: `-max(-x)` on floats (exact, NaN
    /// propagates) and `!max(!x)` on integers (exact at the extremes too).
    pub fn reduce_min(
        &mut self,
        x: NodeId,
        axes: Option<&[i64]>,
        keepdims: bool,
    ) -> Result<NodeId, OpError> {
        if self.dtype(x) == DType::Bool {
            return self.bool_extreme(false, x, axes, keepdims);
        }
        let dtype = self.dtype_where("min", x, DType::is_numeric, "a float or integer tensor")?;
        let axes: Vec<i64> = self
            .reduced_axes("min", x, axes, true)?
            .into_iter()
            .map(|a| a as i64)
            .collect();
        let flip = |g: &mut Graph, v: NodeId| {
            if dtype.is_float() {
                g.unary(UnaryOp::Neg, v)
            } else {
                g.bit_not(v)
            }
        };
        let flipped = flip(self, x)?;
        let top = self.reduce(ReduceOp::Max, flipped, Some(&axes), keepdims)?;
        if top == flipped {
            return Ok(x);
        }
        flip(self, top)
    }

    /// `(argmax x :axes [..] :keepdims ..)` (and `argmin`, `largest`
    /// false): the `i64` index of the first largest (smallest) element over
    /// the axes, counted row-major within them (all axes, the flattened
    /// tensor, when `axes` is `None`); a NaN counts as the extreme, as in
    /// PyTorch.
    pub fn arg_extreme(
        &mut self,
        largest: bool,
        x: NodeId,
        axes: Option<&[i64]>,
        keepdims: bool,
    ) -> Result<NodeId, OpError> {
        let name = if largest { "argmax" } else { "argmin" };
        let dtype = self.dtype_where(name, x, DType::is_numeric, "a float or integer tensor")?;
        let shape = self.shape(x).clone();
        let reduced = self.reduced_axes(name, x, axes, true)?;
        if reduced.is_empty() {
            if shape.rank() == 0 {
                // A scalar is its own extreme, at index 0.
                return self.full(Shape::scalar(), Scalar::Int(0), DType::I64);
            }
            return Err(OpError::dim(format!(
                "{name}: no axis to search; give `:axes` at least one axis"
            )));
        }
        let (y, rows) = self.reduced_axes_last(x, &reduced)?;
        let (last, n) = (rows.len() - 1, rows[rows.len() - 1]);
        let ax = Some(&[last as i64][..]);
        let best = if largest {
            self.reduce(ReduceOp::Max, y, ax, true)?
        } else {
            self.reduce_min(y, ax, true)?
        };
        let mut hit = self.compare(CompareOp::Eq, y, best)?;
        if dtype.is_float() {
            let nan = self.compare(CompareOp::Ne, y, y)?;
            hit = self.binary(BinaryOp::BitOr, hit, nan)?;
        }
        let index = self.iota(self.shape(y).clone(), last as i64, DType::I64)?;
        let candidates = self.where_(hit, index, n as i64)?;
        let first = self.reduce_min(candidates, ax, false)?;
        self.reshape(first, reduced_shape(&shape, &reduced, keepdims))
    }

    /// `(one-hot ids n :dtype ..)`: `ids`' shape plus an axis of `n`, 1 at
    /// each id and 0 elsewhere (an id outside `0..n` gives a row of zeros).
    pub fn one_hot(&mut self, ids: NodeId, n: i64, dtype: DType) -> Result<NodeId, OpError> {
        let id_dtype = self.dtype(ids);
        if !id_dtype.is_integer() {
            return Err(OpError::dtype(format!(
                "one-hot: ids must be i32 or i64, got {id_dtype}"
            )));
        }
        if n < 0 {
            return Err(OpError::dim(format!(
                "one-hot: the number of classes {n} is negative"
            )));
        }
        let mut dims = self.shape(ids).dims().to_vec();
        dims.push(1);
        let column = self.reshape(ids, Shape::new(dims.clone()))?;
        *dims.last_mut().expect("one axis was pushed") = n as usize;
        let classes = self.iota(Shape::new(dims), -1, id_dtype)?;
        let hits = self.compare(CompareOp::Eq, column, classes)?;
        Ok(self.cast(hits, dtype))
    }

    /// `(any x ..)` and `(all x ..)`: whether any (every) element along the
    /// axes is non-zero; over nothing `any` is false and `all` true.
    pub fn any_all(
        &mut self,
        all: bool,
        x: NodeId,
        axes: Option<&[i64]>,
        keepdims: bool,
    ) -> Result<NodeId, OpError> {
        let name = if all { "all" } else { "any" };
        let axes: Vec<i64> = self
            .reduced_axes(name, x, axes, false)?
            .into_iter()
            .map(|a| a as i64)
            .collect();
        let truth = if self.dtype(x) == DType::Bool {
            x
        } else {
            let zero = self.full(Shape::scalar(), Scalar::Int(0), DType::I32)?;
            let zero = self.cast(zero, self.dtype(x));
            self.compare(CompareOp::Ne, x, zero)?
        };
        let counted = if all { self.logical_not(truth)? } else { truth };
        let ones = self.cast(counted, DType::I64);
        let count = self.reduce(ReduceOp::Sum, ones, Some(&axes), keepdims)?;
        let op = if all { CompareOp::Eq } else { CompareOp::Gt };
        self.compare(op, count, 0i64)
    }

    /// `(var x :axes .. :correction c :keepdims ..)` (and `std`, its square
    /// root): the sum of squared deviations over the axes divided by
    /// `max(0, n - c)` (PyTorch's rule; the front end's default `c` is 0).
    pub fn variance(
        &mut self,
        root: bool,
        x: NodeId,
        axes: Option<&[i64]>,
        correction: f64,
        keepdims: bool,
    ) -> Result<NodeId, OpError> {
        let name = if root { "std" } else { "var" };
        self.dtype_where(name, x, DType::is_float, "a float tensor")?;
        let reduced = self.reduced_axes(name, x, axes, false)?;
        let n: usize = reduced.iter().map(|&a| self.shape(x).dims()[a]).product();
        let axes: Vec<i64> = reduced.iter().map(|&a| a as i64).collect();
        let total = self.reduce(ReduceOp::Sum, x, Some(&axes), true)?;
        let mean = self.binary(BinaryOp::Div, total, n as f64)?;
        let dev = self.binary(BinaryOp::Sub, x, mean)?;
        let square = self.binary(BinaryOp::Mul, dev, dev)?;
        let spread = self.reduce(ReduceOp::Sum, square, Some(&axes), keepdims)?;
        let var = self.binary(BinaryOp::Div, spread, (n as f64 - correction).max(0.0))?;
        if root {
            self.root_of_variance(var)
        } else {
            Ok(var)
        }
    }

    /// `sqrt(var)`, whose gradient is 0 where `var` is 0, as PyTorch's
    /// `std` (where `sqrt`'s own would be `inf * 0`, NaN): the root is
    /// taken of 1 there, and 0 is the value.
    fn root_of_variance(&mut self, var: NodeId) -> Result<NodeId, OpError> {
        let zero = self.compare(CompareOp::Eq, var, 0.0)?;
        let safe = self.where_(zero, 1.0, var)?;
        let root = self.unary(UnaryOp::Sqrt, safe)?;
        self.where_(zero, 0.0, root)
    }

    /// `(categorical logits :axis -1)`: one `i64` class per row of
    /// `logits` (unnormalised log-probabilities along `axis`), drawn as
    /// `argmax(logits + g)` with Gumbel noise `g = -log(-log(u))` from one
    /// `uniform` node (so the run's seed decides it, as for `uniform`).
    pub fn categorical(&mut self, logits: NodeId, axis: i64) -> Result<NodeId, OpError> {
        self.dtype_where("categorical", logits, DType::is_float, "float logits")?;
        let a = self.reduced_axes("categorical", logits, Some(&[axis]), true)?[0];
        let logits = self.cast(logits, DType::F32);
        let shape = self.shape(logits).clone();
        let u = self.uniform(shape, DType::F32, 0.0, 1.0)?;
        let inner = self.unary(UnaryOp::Log, u)?;
        let inner = self.unary(UnaryOp::Neg, inner)?;
        let outer = self.unary(UnaryOp::Log, inner)?;
        let noisy = self.binary(BinaryOp::Sub, logits, outer)?;
        self.arg_extreme(true, noisy, Some(&[a as i64]), false)
    }
}
