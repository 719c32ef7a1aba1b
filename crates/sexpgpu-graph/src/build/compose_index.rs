//! PyTorch's indexing operations composed at trace time from `index`
//! (`docs/sexpgpu/operations.md`): `diagonal`, `diag` and
//! `repeat-interleave`, of positions known when the graph is built, and
//! advanced indexing with several index tensors (`x[i, j]`), of one
//! flattened position computed from them. Each is exact, and its gradient
//! is `index`'s (`index-add`), so repeated positions add up.

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{BinaryOp, CompareOp};
use crate::shape::{normalize_axis_for, Shape, MAX_ELEMENTS};

use super::window::PadMode;

impl Graph {
    /// `(diagonal x :offset k :axis1 a :axis2 b)`: the elements `x[.., i,
    /// .., i + k, ..]` of axes `a` and `b`, as a new last axis (PyTorch's
    /// `diagonal`, NumPy's); empty when the offset passes the matrix.
    pub fn diagonal(
        &mut self,
        x: NodeId,
        offset: i64,
        axis1: i64,
        axis2: i64,
    ) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        let (a, b) = (
            normalize_axis_for("diagonal", axis1, &shape)?,
            normalize_axis_for("diagonal", axis2, &shape)?,
        );
        if a == b {
            return Err(OpError::dim(format!(
                "diagonal: axis1 and axis2 are the same axis ({a}) of {shape}"
            )));
        }
        let mut perm: Vec<i64> = (0..shape.rank())
            .filter(|&i| i != a && i != b)
            .map(|i| i as i64)
            .collect();
        perm.extend([a as i64, b as i64]);
        let moved = self.transpose(x, &perm)?;
        let (n, m) = (shape.dims()[a] as i64, shape.dims()[b] as i64);
        let mut dims: Vec<usize> = perm[..perm.len() - 2]
            .iter()
            .map(|&i| shape.dims()[i as usize])
            .collect();
        dims.push((n * m) as usize);
        let flat = self.reshape(moved, Shape::new(dims.clone()))?;
        let (row, col) = if offset >= 0 {
            (0, offset)
        } else {
            (-offset, 0)
        };
        let length = (n - row).min(m - col).max(0);
        let ids: Vec<usize> = (0..length)
            .map(|i| ((row + i) * m + col + i) as usize)
            .collect();
        self.take(flat, dims.len() - 1, &[ids.len()], &ids)
    }

    /// `(diag x :diagonal k)`, PyTorch's `diag`: of a vector, the square
    /// matrix with it on diagonal `k` and zeros elsewhere; of a matrix, its
    /// diagonal `k`.
    pub fn diag(&mut self, x: NodeId, k: i64) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        match shape.rank() {
            1 => self.diag_matrix(x, k),
            2 => self.diagonal(x, k, 0, 1),
            r => Err(OpError::dim(format!(
                "diag: expects a vector or a matrix, got rank {r} ({shape})"
            ))
            .with_note("for the diagonals of a batch of matrices use `diagonal`")),
        }
    }

    /// The `[n + |k|, n + |k|]` matrix holding vector `x` on diagonal `k`:
    /// `x` (padded with zeros to the side) along the rows (`k >= 0`) or the
    /// columns, kept where `col - row = k`.
    fn diag_matrix(&mut self, x: NodeId, k: i64) -> Result<NodeId, OpError> {
        let n = self.shape(x).dims()[0];
        let size = n.saturating_add(usize::try_from(k.unsigned_abs()).unwrap_or(usize::MAX));
        super::window::fits("diag", "the matrix", &[size, size])?;
        let zero = if self.dtype(x) == DType::Bool {
            Scalar::Bool(false)
        } else {
            Scalar::Int(0)
        };
        let padded = self.pad(x, &[(0, k.abs())], PadMode::Constant, zero)?;
        let along = if k >= 0 { vec![size, 1] } else { vec![1, size] };
        let along = self.reshape(padded, Shape::new(along))?;
        let square = Shape::new(vec![size, size]);
        let spread = self.broadcast_to(along, square.clone())?;
        let row = self.iota(square.clone(), 0, DType::I64)?;
        let col = self.iota(square, 1, DType::I64)?;
        let offset = self.binary(BinaryOp::Sub, col, row)?;
        let on = self.compare(CompareOp::Eq, offset, k)?;
        let nothing = self.scalar_like("diag", zero, x)?;
        self.where_(on, spread, nothing)
    }

    /// `(repeat-interleave x r :axis a)`: each element along `a` repeated
    /// `r` times, or `r[i]` times for a vector of counts, one per element
    /// (PyTorch's `repeat_interleave`; without an axis, of the flattened
    /// tensor).
    pub fn repeat_interleave(
        &mut self,
        x: NodeId,
        repeats: &[i64],
        axis: Option<i64>,
    ) -> Result<NodeId, OpError> {
        let (x, axis) = match axis {
            Some(axis) => (x, axis),
            None => {
                let numel = self.shape(x).numel();
                (self.reshape(x, Shape::new(vec![numel]))?, 0)
            }
        };
        let shape = self.shape(x).clone();
        let a = normalize_axis_for("repeat-interleave", axis, &shape)?;
        let n = shape.dims()[a];
        let counts = match repeats {
            [r] => vec![*r; n],
            list if list.len() == n => list.to_vec(),
            list => {
                return Err(OpError::dim(format!(
                    "repeat-interleave: {} counts for axis {a} of length {n} in {shape}",
                    list.len()
                ))
                .with_note("give one count, or one for each element along the axis"))
            }
        };
        if let Some(r) = counts.iter().find(|&&r| r < 0) {
            return Err(OpError::dim(format!(
                "repeat-interleave: a count is negative ({r})"
            )));
        }
        let total = counts.iter().map(|&r| r as u128).sum::<u128>();
        let rest = (shape.numel() / n.max(1)) as u128;
        if total.saturating_mul(rest.max(1)) > MAX_ELEMENTS as u128 {
            return Err(OpError::dim(format!(
                "repeat-interleave: the result would have more than {} elements",
                MAX_ELEMENTS
            )));
        }
        if let [r] = repeats {
            return self.repeat_each(x, a, *r as usize);
        }
        if total > 1 << 22 {
            // Long repeats as pieces, not a position per element.
            let mut pieces = Vec::new();
            for (i, &r) in counts.iter().enumerate().filter(|(_, &r)| r > 0) {
                let one = self.slice(x, a as i64, i as i64, i as i64 + 1)?;
                pieces.push(self.repeat_each(one, a, r as usize)?);
            }
            return self.concat(a as i64, &pieces);
        }
        let ids: Vec<usize> = counts
            .iter()
            .enumerate()
            .flat_map(|(i, &r)| std::iter::repeat_n(i, r as usize))
            .collect();
        self.take(x, a, &[ids.len()], &ids)
    }

    /// Each element along axis `a` repeated `r` times: a new axis after
    /// `a`, broadcast to `r`, merged into `a`.
    fn repeat_each(&mut self, x: NodeId, a: usize, r: usize) -> Result<NodeId, OpError> {
        let dims = self.shape(x).dims().to_vec();
        let mut spread = dims.clone();
        spread.insert(a + 1, 1);
        let one = self.reshape(x, Shape::new(spread.clone()))?;
        spread[a + 1] = r;
        let wide = self.broadcast_to(one, Shape::new(spread))?;
        let mut merged = dims;
        merged[a] *= r;
        self.reshape(wide, Shape::new(merged))
    }

    /// `(index x i j .. :axes [a b ..])`: PyTorch's `x[i, j]` with index
    /// tensors on `axes` (the first ones by default), broadcast together
    /// to one shape `B`, negative ids counting from the end. The indexed
    /// axes are replaced by `B` where they stand when they are adjacent,
    /// else `B` comes first, as PyTorch places it.
    pub fn index_many(
        &mut self,
        x: NodeId,
        ids: &[NodeId],
        axes: Option<&[i64]>,
    ) -> Result<NodeId, OpError> {
        let shape = self.shape(x).clone();
        let axes = self.indexed_axes(&shape, ids.len(), axes)?;
        for &i in ids {
            self.check_ids("index", "ids", i)?;
        }
        let rest: Vec<usize> = (0..shape.rank()).filter(|a| !axes.contains(a)).collect();
        let perm: Vec<i64> = axes.iter().chain(&rest).map(|&a| a as i64).collect();
        let moved = self.transpose(x, &perm)?;
        let lengths: Vec<usize> = axes.iter().map(|&a| shape.dims()[a]).collect();
        let mut flat_dims = vec![lengths.iter().product()];
        flat_dims.extend(rest.iter().map(|&a| shape.dims()[a]));
        let flat = self.reshape(moved, Shape::new(flat_dims))?;
        let at = self.flat_position(ids, &lengths)?;
        let picked = self.index(flat, at)?;
        let adjacent = axes.windows(2).all(|w| w[1] == w[0] + 1);
        if !adjacent || axes[0] == 0 {
            return Ok(picked);
        }
        // `B` back where the indexed axes stood: after the axes before them.
        let b = self.shape(at).rank();
        let before = axes[0];
        let mut back: Vec<i64> = (b..b + before).map(|a| a as i64).collect();
        back.extend((0..b).map(|a| a as i64));
        back.extend((b + before..self.shape(picked).rank()).map(|a| a as i64));
        self.transpose(picked, &back)
    }

    /// The indexed axes: `axes` normalised (distinct, one per id tensor),
    /// or the first ones.
    fn indexed_axes(
        &self,
        shape: &Shape,
        count: usize,
        axes: Option<&[i64]>,
    ) -> Result<Vec<usize>, OpError> {
        let axes: Vec<usize> = match axes {
            None => (0..count).collect(),
            Some(list) => list
                .iter()
                .map(|&a| normalize_axis_for("index", a, shape))
                .collect::<Result<_, _>>()?,
        };
        if axes.len() != count || count > shape.rank() {
            return Err(OpError::dim(format!(
                "index: {count} index tensors for {} axes of {shape}",
                axes.len().min(shape.rank())
            ))
            .with_note(
                "give one index tensor per indexed axis (`:axes`, the first ones by default)",
            ));
        }
        if (1..axes.len()).any(|i| axes[..i].contains(&axes[i])) {
            return Err(OpError::dim("index: an axis is indexed twice"));
        }
        Ok(axes)
    }

    /// The row-major position in the indexed axes (of `lengths`) that the
    /// ids give, broadcast together, as `i64`; negative ids count from
    /// the end. Where an id is out of its axis's range the position is -1,
    /// which `index` refuses when the graph runs.
    fn flat_position(&mut self, ids: &[NodeId], lengths: &[usize]) -> Result<NodeId, OpError> {
        let (mut at, mut valid): (Option<NodeId>, Option<NodeId>) = (None, None);
        for (&i, &n) in ids.iter().zip(lengths) {
            let i = self.cast(i, DType::I64);
            let negative = self.compare(CompareOp::Lt, i, 0i64)?;
            let wrapped = self.binary(BinaryOp::Add, i, n as i64)?;
            let i = self.where_(negative, wrapped, i)?;
            let low = self.compare(CompareOp::Ge, i, 0i64)?;
            let high = self.compare(CompareOp::Lt, i, n as i64)?;
            let inside = self.binary(BinaryOp::BitAnd, low, high)?;
            valid = Some(match valid {
                None => inside,
                Some(v) => self.binary(BinaryOp::BitAnd, v, inside)?,
            });
            at = Some(match at {
                None => i,
                Some(at) => {
                    let scaled = self.binary(BinaryOp::Mul, at, n as i64)?;
                    self.binary(BinaryOp::Add, scaled, i)?
                }
            });
        }
        match (at, valid) {
            (Some(at), Some(valid)) => self.where_(valid, at, -1i64),
            _ => Err(OpError::dim("index: needs at least one index tensor")),
        }
    }
}
