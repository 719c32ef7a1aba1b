//! Layout and creation operations composed at trace time
//! (`docs/sexpgpu/operations.md`), each exact: `flip`, strided and
//! negative-step slices and `unfold` are `gather`s of computed positions,
//! `roll` two slices concatenated, `repeat` a broadcast between reshapes,
//! `tril`/`triu` a `where` on positions, `eye` and `linspace` built from
//! `iota` (`linspace` with PyTorch's f32 formula).

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{BinaryOp, CompareOp};
use crate::shape::{format_list, normalize_axis_for, Shape};

impl Graph {
    /// `x` gathered along axis `a` at `start + step * i` for `i < count`.
    fn strided(
        &mut self,
        x: NodeId,
        a: usize,
        start: i64,
        step: i64,
        count: usize,
    ) -> Result<NodeId, OpError> {
        let mut dims = self.shape(x).dims().to_vec();
        dims[a] = count;
        let shape = Shape::new(dims);
        let i = self.iota(shape, a as i64, DType::I64)?;
        let scaled = self.binary(BinaryOp::Mul, i, step)?;
        let idx = self.binary(BinaryOp::Add, scaled, start)?;
        self.gather(x, idx, a as i64)
    }

    /// `(flip x [axes..])`: the order along each axis reversed.
    pub fn flip(&mut self, x: NodeId, axes: &[i64]) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        let mut seen = Vec::new();
        for &axis in axes {
            let a = normalize_axis_for("flip", axis, &shape)?;
            if seen.contains(&a) {
                return Err(OpError::dim(format!(
                    "flip: axis {axis} appears twice in {}",
                    format_list(axes)
                )));
            }
            seen.push(a);
        }
        let mut y = x;
        for a in seen {
            let n = shape.dims()[a];
            if n > 1 {
                y = self.strided(y, a, n as i64 - 1, -1, n)?;
            }
        }
        Ok(y)
    }

    /// `(slice x axis start stop step)` with a step other than 1: every
    /// `step`-th position from `start` towards `stop` (excluded). A
    /// negative step walks down: `dim > start > stop >= -1`, where -1 is
    /// before position 0. At least one element, as `slice`.
    pub fn slice_step(
        &mut self,
        x: NodeId,
        axis: i64,
        (start, stop, step): (i64, i64, i64),
    ) -> Result<NodeId, OpError> {
        if step == 1 {
            return self.slice(x, axis, start, stop);
        }
        let (from, a, dim) = self.along("slice", x, axis)?;
        let dim = dim as i64;
        let fits = match step {
            0 => false,
            s if s > 0 => 0 <= start && start < stop && stop <= dim,
            _ => -1 <= stop && stop < start && start < dim,
        };
        if !fits {
            let need = match step {
                0 => "a step other than 0".to_string(),
                s if s > 0 => format!("0 <= start < stop <= {dim}"),
                _ => format!("-1 <= stop < start < {dim} for a negative step"),
            };
            return Err(OpError::dim(format!(
                "slice: bounds {start}..{stop} by {step} do not fit axis {axis} of {from}; need {need}"
            )));
        }
        let count = ((stop - start).abs() + step.abs() - 1) / step.abs();
        self.strided(x, a, start, step, count as usize)
    }

    /// `(roll x shift :axis a)`: elements moved `shift` places along the
    /// axis, those pushed off the end coming back at the start; without an
    /// axis, over the flattened tensor (PyTorch's).
    pub fn roll(&mut self, x: NodeId, shift: i64, axis: Option<i64>) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        let Some(axis) = axis else {
            let flat = self.reshape(x, Shape::new(vec![shape.numel()]))?;
            let rolled = self.roll(flat, shift, Some(0))?;
            return self.reshape(rolled, shape);
        };
        let a = normalize_axis_for("roll", axis, &shape)?;
        let n = shape.dims()[a] as i64;
        if n == 0 {
            return Ok(x);
        }
        let k = shift.rem_euclid(n);
        if k == 0 {
            return Ok(x);
        }
        let tail = self.slice(x, a as i64, n - k, n)?;
        let head = self.slice(x, a as i64, 0, n - k)?;
        self.concat(a as i64, &[tail, head])
    }

    /// `(tril x :diagonal k)` and `triu`: the last two axes' lower (upper)
    /// triangle, `col - row <= k` (`>= k`), zeros elsewhere.
    pub fn triangle(&mut self, upper: bool, x: NodeId, diagonal: i64) -> Result<NodeId, OpError> {
        let name = if upper { "triu" } else { "tril" };
        let shape = self.shape(x).clone();
        if shape.rank() < 2 {
            return Err(OpError::dim(format!(
                "{name}: expects a tensor of rank 2 or more, got {shape}"
            )));
        }
        let row = self.iota(shape.clone(), -2, DType::I64)?;
        let col = self.iota(shape, -1, DType::I64)?;
        let offset = self.binary(BinaryOp::Sub, col, row)?;
        let op = if upper { CompareOp::Ge } else { CompareOp::Le };
        let keep = self.compare(op, offset, diagonal)?;
        let zero = self.zeros_like(x);
        self.where_(keep, x, zero)
    }

    /// `(eye n :m m :dtype ..)`: ones on the diagonal of `[n, m]`.
    pub fn eye(&mut self, n: usize, m: usize, dtype: DType) -> Result<NodeId, OpError> {
        let shape = Shape::new(vec![n, m]);
        let row = self.iota(shape.clone(), 0, DType::I64)?;
        let col = self.iota(shape, 1, DType::I64)?;
        let diagonal = self.compare(CompareOp::Eq, row, col)?;
        Ok(self.cast(diagonal, dtype))
    }

    /// `(linspace start end steps :dtype ..)`: `steps` evenly spaced values
    /// from `start` to `end` inclusive, with PyTorch's formula in the
    /// dtype: `start + i * step` in the first half, `end - (steps - 1 - i)
    /// * step` in the second, `step = (end - start) / (steps - 1)`.
    pub fn linspace(
        &mut self,
        start: f64,
        end: f64,
        steps: i64,
        dtype: DType,
    ) -> Result<NodeId, OpError> {
        if !dtype.is_float() {
            return Err(OpError::dtype(format!(
                "linspace: dtype must be f32 or bf16, got {dtype}"
            )));
        }
        if steps < 0 {
            return Err(OpError::dim(format!(
                "linspace: the number of steps {steps} is negative"
            )));
        }
        let shape = Shape::new(vec![steps as usize]);
        let scalar = |g: &mut Graph, v: f64| g.full(Shape::scalar(), Scalar::Float(v), dtype);
        let first = scalar(self, start)?;
        if steps == 1 {
            return self.broadcast_to(first, shape);
        }
        let last = scalar(self, end)?;
        let span = self.binary(BinaryOp::Sub, last, first)?;
        let step = self.binary(BinaryOp::Div, span, (steps - 1).max(1) as f64)?;
        let index = self.iota(shape, 0, DType::I32)?;
        let index = self.cast(index, dtype);
        let up = self.binary(BinaryOp::Mul, index, step)?;
        let from_start = self.binary(BinaryOp::Add, first, up)?;
        let left = self.binary(BinaryOp::Sub, (steps - 1) as f64, index)?;
        let down = self.binary(BinaryOp::Mul, left, step)?;
        let from_end = self.binary(BinaryOp::Sub, last, down)?;
        let early = self.compare(CompareOp::Lt, index, (steps / 2) as f64)?;
        self.where_(early, from_start, from_end)
    }

    /// `(repeat x [r0 r1 ..])`: `x` tiled `r` times along each axis (leading
    /// new axes when there are more repeats than axes), as PyTorch's
    /// `Tensor.repeat`.
    pub fn repeat(&mut self, x: NodeId, reps: &[i64]) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        if reps.len() < shape.rank() || reps.iter().any(|&r| r < 0) {
            return Err(OpError::dim(format!(
                "repeat: {} does not fit {shape}; need one non-negative count per axis (or more)",
                format_list(reps)
            )));
        }
        let mut dims = vec![1; reps.len() - shape.rank()];
        dims.extend(shape.dims());
        let mut split = Vec::new();
        let mut spread = Vec::new();
        let mut out = Vec::new();
        for (&d, &r) in dims.iter().zip(reps) {
            split.extend([1, d]);
            spread.extend([r as usize, d]);
            out.push(r as usize * d);
        }
        let split = self.reshape(x, Shape::new(split))?;
        let spread = self.broadcast_to(split, Shape::new(spread))?;
        self.reshape(spread, Shape::new(out))
    }

    /// `(unfold x axis size step)`: the windows of `size` elements every
    /// `step` along the axis, as PyTorch's `Tensor.unfold`: the axis
    /// becomes the window count and a last axis of `size` is added.
    pub fn unfold(
        &mut self,
        x: NodeId,
        axis: i64,
        size: i64,
        step: i64,
    ) -> Result<NodeId, OpError> {
        let (shape, a, n) = self.along("unfold", x, axis)?;
        let n = n as i64;
        if size < 0 || size > n || step <= 0 {
            return Err(OpError::dim(format!(
                "unfold: windows of {size} every {step} do not fit axis {axis} of {shape}; need 0 <= size <= {n} and step >= 1"
            )));
        }
        let count = ((n - size) / step + 1) as usize;
        let mut column = shape.dims().to_vec();
        column.push(1);
        let column = self.reshape(x, Shape::new(column))?;
        let mut dims = shape.dims().to_vec();
        dims.push(size as usize);
        let spread = self.broadcast_to(column, Shape::new(dims.clone()))?;
        dims[a] = count;
        let windows = Shape::new(dims);
        let start = self.iota(windows.clone(), a as i64, DType::I64)?;
        let start = self.binary(BinaryOp::Mul, start, step)?;
        let offset = self.iota(windows, -1, DType::I64)?;
        let idx = self.binary(BinaryOp::Add, start, offset)?;
        self.gather(spread, idx, a as i64)
    }
}
