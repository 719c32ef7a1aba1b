//! `max-unpool` (`docs/sexpgpu/operations.md`), as PyTorch's
//! `max_unpool2d` (1 to 3 pooled axes) of `max-pool`'s indices
//! (`build/pool.rs`): an index is a position in the input's pooled axes,
//! flattened row-major, per leading position (`[n c]`); unpooling puts
//! each value at its index in zeros (`scatter-add`s, whose adjoint is a
//! `gather`, the gradient PyTorch gives each value).

use crate::build::pool::PoolGeometry;
use crate::build::PoolOptions;
use crate::dtype::DType;
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::BinaryOp;
use crate::shape::Shape;

impl Graph {
    /// `(max-unpool x indices :window [..] :stride .. :padding ..
    /// :output-size [..])`: zeros of the unpooled size with each value of
    /// `x` at its index (`max-pool`'s), as PyTorch's `max_unpool`. Where
    /// indices repeat (overlapping windows, which send the same maximum)
    /// the position holds their mean, the value PyTorch writes, and each
    /// gets the whole gradient at its index, as PyTorch's.
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
    /// counts; integers divided rounding down. Floats are differentiated
    /// as the sums, so each value gets the gradient at its position whole.
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
        if !dtype.is_float() {
            return self.binary(BinaryOp::FloorDiv, sums, counts);
        }
        let means = self.binary(BinaryOp::Div, sums, counts)?;
        self.with_gradient_of(means, sums)
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
