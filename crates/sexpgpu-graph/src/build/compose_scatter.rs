//! PyTorch's `scatter` and `scatter_reduce` composed at trace time
//! (`docs/sexpgpu/operations.md`): the sums go through `scatter-add` (which
//! also checks every id's range when the graph runs, and counts the writes
//! to each position); the reductions without an adjoint of their own
//! (`amax`, `amin`, `prod`) and the replacing `scatter` compare every
//! position of the axis with every index (`n × m` elements per row). Their
//! gradients are PyTorch's (`build/gradient_of.rs`): `scatter`'s reaches
//! every value sent, the overwritten too, and `amax`'s and `amin`'s ties
//! share it as `scatter_reduce_backward` does.

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId, Operand};
use crate::op::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::shape::{Shape, MAX_ELEMENTS};

/// How `scatter-reduce` combines the values sent to one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    Sum,
    Prod,
    Mean,
    Amax,
    Amin,
}

impl ScatterReduce {
    /// Every reduction, as the keywords name them.
    pub const NAMES: &'static [&'static str] = &["sum", "prod", "mean", "amax", "amin"];

    pub fn from_keyword(name: &str) -> Option<ScatterReduce> {
        Some(match name {
            "sum" => ScatterReduce::Sum,
            "prod" => ScatterReduce::Prod,
            "mean" => ScatterReduce::Mean,
            "amax" => ScatterReduce::Amax,
            "amin" => ScatterReduce::Amin,
            _ => return None,
        })
    }
}

/// The operands of a `scatter-reduce` whose ties share the gradient:
/// along axis `a`; `excluded` marks the positions whose own value is left
/// out (`:include-self false`).
struct Ties {
    base: NodeId,
    idx: NodeId,
    src: NodeId,
    a: usize,
    excluded: Option<NodeId>,
}

impl Graph {
    /// `(scatter base idx src :axis a)`: `base` with `src[.., i, ..]`
    /// written at `idx[.., i, ..]` along `a` (`src` may be a number). Where
    /// several ids are the same position the last one written (the largest
    /// `i`) is kept, as PyTorch's CPU kernel does; every value sent gets the
    /// gradient at its position, the overwritten ones too, as PyTorch's.
    pub fn scatter(
        &mut self,
        base: NodeId,
        idx: NodeId,
        src: impl Into<Operand>,
        axis: i64,
    ) -> Result<NodeId, OpError> {
        let src = self.scatter_source("scatter", base, idx, src.into())?;
        let (a, counts) = self.scatter_counts("scatter", base, idx, src, axis)?;
        let hit = self.compare(CompareOp::Gt, counts, 0i64)?;
        let matches = self.scatter_matches(base, idx, a)?;
        let dims = self.shape(matches).clone();
        let i = self.iota(dims, a as i64 + 1, DType::I64)?;
        let writes = self.where_(matches, i, -1i64)?;
        let last = self.reduce(ReduceOp::Max, writes, Some(&[a as i64 + 1]), false)?;
        let from = self.binary(BinaryOp::Maximum, last, 0i64)?;
        let picked = self.gather(src, from, a as i64)?;
        let written = if self.dtype(base).is_float() {
            self.with_overwritten_gradients(picked, idx, src, from, a)?
        } else {
            picked
        };
        self.where_(hit, written, base)
    }

    /// `picked` (the value kept at each position: that of `src`'s element
    /// `from` there, the last sent) less the sum of a +0 for each element
    /// sent and overwritten (`src - src`, the first held), which gives
    /// those the gradient at their position too. An overwritten value that
    /// is infinite or NaN has no +0 of this kind, and no gradient.
    fn with_overwritten_gradients(
        &mut self,
        picked: NodeId,
        idx: NodeId,
        src: NodeId,
        from: NodeId,
        a: usize,
    ) -> Result<NodeId, OpError> {
        let kept = self.gather(from, idx, a as i64)?;
        let own = self.iota(self.shape(idx).clone(), a as i64, DType::I64)?;
        let overwritten = self.compare(CompareOp::Ne, kept, own)?;
        let held = self.unary(UnaryOp::StopGradient, src)?;
        let finite = self.float_test("isfinite", held)?;
        let counted = self.binary(BinaryOp::BitAnd, overwritten, finite)?;
        let zero = self.binary(BinaryOp::Sub, held, src)?;
        let zeros = self.where_(counted, zero, 0.0)?;
        let none = self.zeros_like(picked);
        let sent = self.scatter_add(none, idx, zeros, a as i64)?;
        self.binary(BinaryOp::Sub, picked, sent)
    }

    /// `(scatter-reduce base idx src :amax :axis a :include-self true)`:
    /// the values sent to each position along `a` combined by `reduce`,
    /// with the position's own value of `base` unless `include_self` is
    /// false (then a position no id names keeps `base`'s value). `mean` of
    /// integers rounds down, as PyTorch's; `prod` takes floats, as `prod`.
    pub fn scatter_reduce(
        &mut self,
        base: NodeId,
        idx: NodeId,
        src: NodeId,
        (axis, reduce, include_self): (i64, ScatterReduce, bool),
    ) -> Result<NodeId, OpError> {
        let name = "scatter-reduce";
        if reduce == ScatterReduce::Prod {
            self.dtype_where(name, base, DType::is_float, "float tensors for `:prod`")?;
        }
        self.dtype_where(name, base, DType::is_numeric, "float or integer tensors")?;
        let (a, counts) = self.scatter_counts(name, base, idx, src, axis)?;
        let hit = self.compare(CompareOp::Gt, counts, 0i64)?;
        if matches!(reduce, ScatterReduce::Sum | ScatterReduce::Mean) {
            let start = if include_self {
                base
            } else {
                let zero = self.scalar_like(name, Scalar::Int(0), base)?;
                self.where_(hit, zero, base)?
            };
            let total = self.scatter_add(start, idx, src, a as i64)?;
            if reduce == ScatterReduce::Sum {
                return Ok(total);
            }
            return self.scatter_mean(base, total, counts, include_self);
        }
        let reduced = self.scatter_dense(base, idx, src, a, reduce, include_self)?;
        let (result, excluded) = if include_self {
            (reduced, None)
        } else {
            (self.where_(hit, reduced, base)?, Some(hit))
        };
        if reduce == ScatterReduce::Prod || !self.dtype(base).is_float() {
            return Ok(result);
        }
        let ties = Ties {
            base,
            idx,
            src,
            a,
            excluded,
        };
        let carrier = self.tie_shares(result, &ties)?;
        self.with_gradient_of(result, carrier)
    }

    /// What `result`, of `scatter-reduce` `:amax` or `:amin`, is
    /// differentiated as: PyTorch's `scatter_reduce_backward`, which splits
    /// the gradient at each position evenly among the elements equal to
    /// the result there, counting `base`'s own value even where
    /// `:include-self false` leaves it out (it then gets none). Each tie
    /// sends its share, `value / count`; where the result is NaN (no
    /// element equals it, the count is 0), `(Σ value × is-tie) / count`, so
    /// that, as PyTorch's, every element there gets `0 × gradient / 0`.
    fn tie_shares(&mut self, result: NodeId, t: &Ties) -> Result<NodeId, OpError> {
        let a = t.a as i64;
        let held = self.unary(UnaryOp::StopGradient, result)?;
        let sent_to = self.gather(held, t.idx, a)?;
        let own_ties = self.compare(CompareOp::Eq, t.base, held)?;
        let sent_ties = self.compare(CompareOp::Eq, t.src, sent_to)?;
        let dtype = self.dtype(t.base);
        let (own_tie, sent_tie) = (self.cast(own_ties, dtype), self.cast(sent_ties, dtype));
        let counts = self.scatter_add(own_tie, t.idx, sent_tie, a)?;
        let base = match t.excluded {
            Some(hit) => {
                let held_base = self.unary(UnaryOp::StopGradient, t.base)?;
                self.where_(hit, held_base, t.base)?
            }
            None => t.base,
        };
        let own_share = self.binary(BinaryOp::Div, base, counts)?;
        let own_share = self.where_(own_ties, own_share, 0.0)?;
        let sent_counts = self.gather(counts, t.idx, a)?;
        let sent_share = self.binary(BinaryOp::Div, t.src, sent_counts)?;
        let sent_share = self.where_(sent_ties, sent_share, 0.0)?;
        let shares = self.scatter_add(own_share, t.idx, sent_share, a)?;
        let own_part = self.binary(BinaryOp::Mul, base, own_tie)?;
        let sent_part = self.binary(BinaryOp::Mul, t.src, sent_tie)?;
        let total = self.scatter_add(own_part, t.idx, sent_part, a)?;
        let nan_shares = self.binary(BinaryOp::Div, total, counts)?;
        let nan = self.float_test("isnan", held)?;
        self.where_(nan, nan_shares, shares)
    }

    /// A number `src` of `scatter` as a tensor of `idx`'s shape.
    fn scatter_source(
        &mut self,
        name: &str,
        base: NodeId,
        idx: NodeId,
        src: Operand,
    ) -> Result<NodeId, OpError> {
        match src {
            Operand::Tensor(t) => Ok(t),
            Operand::Number(value) => {
                let one = self.scalar_like(name, value, base)?;
                let shape = self.shape(idx).clone();
                self.broadcast_to(one, shape)
            }
        }
    }

    /// Checks the operands as `scatter-add` does and counts the ids that
    /// name each position of `base` (`i64`), with `scatter-add` itself: the
    /// axis, and the counts.
    fn scatter_counts(
        &mut self,
        name: &str,
        base: NodeId,
        idx: NodeId,
        src: NodeId,
        axis: i64,
    ) -> Result<(usize, NodeId), OpError> {
        self.same_dtype(name, &[base, src])?;
        self.check_ids(name, "idx", idx)?;
        let (bs, is) = (self.shape(base).clone(), self.shape(idx).clone());
        let a = self.check_along(name, &bs, &is, axis)?;
        let src_shape = self.shape(src).clone();
        if src_shape != is {
            return Err(OpError::dim(format!(
                "{name}: idx and src differ in shape: {is} and {src_shape}"
            )));
        }
        let zeros = self.zeros(bs, DType::I64);
        let ones = self.ones(is, DType::I64);
        let counts = self.scatter_add(zeros, idx, ones, a as i64)?;
        Ok((a, counts))
    }

    /// `bool` `[.., n, m, ..]`: whether id `i` (axis `a + 1`) of `idx`
    /// names position `p` (axis `a`) of `base`.
    fn scatter_matches(&mut self, base: NodeId, idx: NodeId, a: usize) -> Result<NodeId, OpError> {
        let (n, m) = (self.shape(base).numel(), self.shape(idx).dims()[a]);
        if n.saturating_mul(m) > MAX_ELEMENTS {
            return Err(OpError::dim(format!(
                "scatter: comparing {n} positions with {m} ids each is more than {MAX_ELEMENTS} \
                 elements"
            ))
            .with_note(
                "`scatter` and `scatter-reduce` `:amax` `:amin` `:prod` compare every \
                        position with every id along the axis; `:sum` and `:mean` do not",
            ));
        }
        let ids = self.insert_unit_axis(idx, a)?;
        let mut dims = self.shape(base).dims().to_vec();
        dims.insert(a + 1, 1);
        let positions = self.iota(Shape::new(dims), a as i64, self.dtype(idx))?;
        self.compare(CompareOp::Eq, positions, ids)
    }

    /// `x` with a new axis of length 1 at `a`.
    fn insert_unit_axis(&mut self, x: NodeId, a: usize) -> Result<NodeId, OpError> {
        let mut dims = self.shape(x).dims().to_vec();
        dims.insert(a, 1);
        self.reshape(x, Shape::new(dims))
    }

    /// `amax`, `amin` or `prod` of the values each position receives (and
    /// its own value when `include_self`), over the dense comparison.
    fn scatter_dense(
        &mut self,
        base: NodeId,
        idx: NodeId,
        src: NodeId,
        a: usize,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Result<NodeId, OpError> {
        let matches = self.scatter_matches(base, idx, a)?;
        let values = self.insert_unit_axis(src, a)?;
        let identity = self.reduction_identity(reduce, base)?;
        let mut candidates = self.where_(matches, values, identity)?;
        if include_self {
            let own = self.insert_unit_axis(base, a + 1)?;
            candidates = self.concat(a as i64 + 1, &[own, candidates])?;
        }
        let axes = [a as i64 + 1];
        match reduce {
            ScatterReduce::Prod => self.prod(candidates, Some(&axes), false),
            ScatterReduce::Amin => self.reduce_min(candidates, Some(&axes), false),
            _ => self.reduce(ReduceOp::Max, candidates, Some(&axes), false),
        }
    }

    /// What leaves a reduction unchanged, of `like`'s dtype: 1 for `prod`,
    /// the lowest value for `amax`, the highest for `amin`.
    fn reduction_identity(
        &mut self,
        reduce: ScatterReduce,
        like: NodeId,
    ) -> Result<NodeId, OpError> {
        let dtype = self.dtype(like);
        let value = match (reduce, dtype) {
            (ScatterReduce::Prod, _) => Scalar::Int(1),
            (ScatterReduce::Amax, DType::I32) => Scalar::Int(i32::MIN.into()),
            (ScatterReduce::Amin, DType::I32) => Scalar::Int(i32::MAX.into()),
            (ScatterReduce::Amax, DType::I64) => Scalar::Int(i64::MIN),
            (ScatterReduce::Amin, DType::I64) => Scalar::Int(i64::MAX),
            (ScatterReduce::Amax, _) => Scalar::Float(f64::NEG_INFINITY),
            _ => Scalar::Float(f64::INFINITY),
        };
        self.scalar_like("scatter-reduce", value, like)
    }

    /// `total / count`, the count including the position's own value when
    /// `include_self`; `base` where nothing was counted. Integers are
    /// divided rounding down.
    fn scatter_mean(
        &mut self,
        base: NodeId,
        total: NodeId,
        counts: NodeId,
        include_self: bool,
    ) -> Result<NodeId, OpError> {
        let counts = if include_self {
            self.binary(BinaryOp::Add, counts, 1i64)?
        } else {
            counts
        };
        let counted = self.compare(CompareOp::Gt, counts, 0i64)?;
        let divisor = self.binary(BinaryOp::Maximum, counts, 1i64)?;
        let divisor = self.cast(divisor, self.dtype(base));
        let op = if self.dtype(base).is_float() {
            BinaryOp::Div
        } else {
            BinaryOp::FloorDiv
        };
        let mean = self.binary(op, total, divisor)?;
        self.where_(counted, mean, base)
    }
}
