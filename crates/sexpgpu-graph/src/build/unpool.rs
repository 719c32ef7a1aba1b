//! `max-pool`'s indices and `max-unpool` (`docs/sexpgpu/operations.md`), as
//! PyTorch's `max_pool2d(return_indices=True)` and `max_unpool2d` (1 to 3
//! pooled axes): an index is a position in the input's pooled axes,
//! flattened row-major, per leading position (`[n c]`); unpooling puts
//! each value at its index in zeros (`scatter-add`s, whose adjoint is a
//! `gather`).

use crate::build::pool::{lowest, PoolGeometry};
use crate::build::PoolOptions;
use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{BinaryOp, CompareOp};
use crate::shape::Shape;

impl Graph {
    /// `(max-pool x :window [..] :return-indices true)`: the maxima, and
    /// for each the `i64` position of the first element of its window, in
    /// the window's row-major order, that equals it (a NaN maximum: the
    /// last NaN), never padding; as PyTorch's kernel, which keeps the first
    /// element it meets that is larger, and every NaN.
    pub fn max_pool_with_indices(
        &mut self,
        x: NodeId,
        opts: &PoolOptions,
    ) -> Result<(NodeId, NodeId), OpError> {
        let op = "max-pool";
        let values = self.max_pool(x, opts)?;
        let geo = self.pool_geometry(op, x, opts)?;
        let d = geo.window.len();
        let spatial = self.shape(x).dims()[geo.first..].to_vec();
        let count: usize = spatial.iter().product();
        let positions = self.iota(Shape::new(vec![count]), 0, DType::I64)?;
        let positions = self.reshape(positions, Shape::new(spatial))?;
        let mut plane = geo.clone();
        plane.first = 0;
        let positions = self.pool_windows(op, positions, &plane, Scalar::Int(-1))?;
        let positions = self.windows_last(positions, 0, d)?;
        let windows = self.pool_windows(op, x, &geo, lowest(self.dtype(x)))?;
        let windows = self.windows_last(windows, geo.first, d)?;
        let last = self.shape(windows).rank() - 1;
        let hits = self.equal_to_maximum(windows, values, last)?;
        let inside = self.compare(CompareOp::Ge, positions, 0i64)?;
        let hits = self.binary(BinaryOp::BitAnd, hits, inside)?;
        let hits = self.cast(hits, DType::I32);
        let chosen = self.first_or_last_nan(hits, values, last)?;
        let positions = self.broadcast_to(positions, self.shape(windows).clone())?;
        let picked = self.gather(positions, chosen, last as i64)?;
        let indices = self.reshape(picked, self.shape(values).clone())?;
        Ok((values, indices))
    }

    /// Where along axis `last` of `hits` (1 where an element is its
    /// window's maximum) the index is: the first hit, or the last where the
    /// maximum is NaN, as PyTorch's kernel takes every NaN it meets.
    fn first_or_last_nan(
        &mut self,
        hits: NodeId,
        values: NodeId,
        last: usize,
    ) -> Result<NodeId, OpError> {
        let axis = [last as i64];
        let first = self.arg_extreme(true, hits, Some(&axis), true)?;
        if !self.dtype(values).is_float() {
            return Ok(first);
        }
        let flipped = self.flip(hits, &axis)?;
        let from_end = self.arg_extreme(true, flipped, Some(&axis), true)?;
        let k = self.shape(hits).dims()[last] as i64;
        let last_hit = self.binary(BinaryOp::Sub, k - 1, from_end)?;
        let mut dims = self.shape(values).dims().to_vec();
        dims.insert(last, 1);
        let values = self.reshape(values, Shape::new(dims))?;
        let nan = self.float_test("isnan", values)?;
        self.where_(nan, last_hit, first)
    }

    /// Windows `[.. o1 k1 o2 k2 ..]` (pooled axes from `first`) as
    /// `[.. o1 o2 .. K]`, each window's elements in row-major order last.
    fn windows_last(&mut self, w: NodeId, first: usize, d: usize) -> Result<NodeId, OpError> {
        let dims = self.shape(w).dims().to_vec();
        let mut perm: Vec<i64> = (0..first as i64).collect();
        perm.extend((0..d).map(|i| (first + 2 * i) as i64));
        perm.extend((0..d).map(|i| (first + 2 * i + 1) as i64));
        let moved = self.transpose(w, &perm)?;
        let mut shape = dims[..first].to_vec();
        shape.extend((0..d).map(|i| dims[first + 2 * i]));
        shape.push((0..d).map(|i| dims[first + 2 * i + 1]).product());
        self.reshape(moved, Shape::new(shape))
    }

    /// Whether each window element equals its window's maximum `values`
    /// (a NaN maximum: whether the element is NaN); the windows' axis is
    /// `last`.
    fn equal_to_maximum(
        &mut self,
        windows: NodeId,
        values: NodeId,
        last: usize,
    ) -> Result<NodeId, OpError> {
        let mut dims = self.shape(values).dims().to_vec();
        dims.insert(last, 1);
        let best = self.reshape(values, Shape::new(dims))?;
        let equal = self.compare(CompareOp::Eq, windows, best)?;
        if !self.dtype(windows).is_float() {
            return Ok(equal);
        }
        let nan_best = self.float_test("isnan", best)?;
        let nan_here = self.float_test("isnan", windows)?;
        self.where_(nan_best, nan_here, equal)
    }

    /// `(max-unpool x indices :window [..] :stride .. :padding ..
    /// :output-size [..])`: zeros of the unpooled size with each value of
    /// `x` at its index (`max-pool`'s), as PyTorch's `max_unpool`. Where
    /// indices repeat (overlapping windows, which send the same maximum)
    /// the position holds their mean, the value PyTorch writes; their
    /// gradient is shared among them (PyTorch gives each the whole).
    /// Each length is `(in - 1) stride - 2 padding + window` unless
    /// `output_size` says otherwise, within a stride of it.
    pub fn max_unpool(
        &mut self,
        x: NodeId,
        indices: NodeId,
        opts: &PoolOptions,
        output_size: Option<&[i64]>,
    ) -> Result<NodeId, OpError> {
        let op = "max-unpool";
        let geo = self.pool_geometry(op, x, opts)?;
        self.check_ids(op, "indices", indices)?;
        let (xs, is) = (self.shape(x).clone(), self.shape(indices).clone());
        if xs != is {
            return Err(OpError::dim(format!(
                "{op}: x and indices differ in shape: {xs} and {is}"
            )));
        }
        let sizes = self.unpooled_sizes(op, &geo, xs.dims(), output_size)?;
        let lead = xs.dims()[..geo.first].to_vec();
        super::window::fits(
            op,
            "the unpooled tensor",
            &[lead.clone(), sizes.clone()].concat(),
        )?;
        let flat = |g: &mut Graph, t: NodeId, n: usize| {
            let mut dims = lead.clone();
            dims.push(n);
            g.reshape(t, Shape::new(dims))
        };
        let count: usize = xs.dims()[geo.first..].iter().product();
        let values = flat(self, x, count)?;
        let at = flat(self, indices, count)?;
        let total: usize = sizes.iter().product();
        let mut dims = lead.clone();
        dims.push(total);
        let unpooled = self.mean_at(Shape::new(dims), at, values, lead.len())?;
        let mut dims = lead;
        dims.extend(sizes);
        self.reshape(unpooled, Shape::new(dims))
    }

    /// Zeros of `shape` with the mean of the `values` sent to each position
    /// along `axis` by `ids` (one value, where `max-pool`'s windows overlap:
    /// they send the same maximum), computed as sums (`scatter-add`) over
    /// counts; integers divided rounding down.
    fn mean_at(
        &mut self,
        shape: Shape,
        ids: NodeId,
        values: NodeId,
        axis: usize,
    ) -> Result<NodeId, OpError> {
        let dtype = self.dtype(values);
        let zeros = self.zeros(shape.clone(), dtype);
        let sums = self.scatter_add(zeros, ids, values, axis as i64)?;
        let none = self.zeros(shape, DType::I64);
        let ones = self.ones(self.shape(ids).clone(), DType::I64);
        let counts = self.scatter_add(none, ids, ones, axis as i64)?;
        let counts = self.binary(BinaryOp::Maximum, counts, 1i64)?;
        let counts = self.cast(counts, dtype);
        let op = if dtype.is_float() {
            BinaryOp::Div
        } else {
            BinaryOp::FloorDiv
        };
        self.binary(op, sums, counts)
    }

    /// The unpooled lengths: PyTorch's default, or `output_size` when each
    /// is strictly within a stride of it.
    fn unpooled_sizes(
        &self,
        op: &str,
        geo: &PoolGeometry,
        dims: &[usize],
        output_size: Option<&[i64]>,
    ) -> Result<Vec<usize>, OpError> {
        let d = geo.window.len();
        // In i128: a stride or window of any size cannot overflow.
        let defaults: Vec<i128> = (0..d)
            .map(|i| {
                let n = dims[geo.first + i] as i128;
                let (s, p, k) = geo.stride_padding_window(i);
                (n - 1) * i128::from(s) - 2 * i128::from(p) + i128::from(k)
            })
            .collect();
        let wanted: Vec<i128> = match output_size {
            None => defaults.clone(),
            Some(sizes) => sizes.iter().map(|&w| i128::from(w)).collect(),
        };
        if wanted.len() != d {
            return Err(OpError::dim(format!(
                "{op}: `:output-size` has {} lengths for {d} pooled axes",
                wanted.len()
            )));
        }
        for (i, (&w, &default)) in wanted.iter().zip(&defaults).enumerate() {
            let s = i128::from(geo.stride_padding_window(i).0);
            if output_size.is_some() && (w <= default - s || w >= default + s) {
                return Err(OpError::dim(format!(
                    "{op}: `:output-size` {w} of pooled axis {i} must be between {} and {} \
                     (the default {default}, within a stride)",
                    (default - s + 1).max(0),
                    default + s - 1
                )));
            }
        }
        let sizes: Vec<i64> = wanted
            .iter()
            .map(|&w| i64::try_from(w).unwrap_or(i64::MAX))
            .collect();
        crate::shape::Shape::from_i64(op, &sizes).map(|s| s.dims().to_vec())
    }
}
