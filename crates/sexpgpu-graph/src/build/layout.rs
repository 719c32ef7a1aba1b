//! Builders that move elements without arithmetic: `reshape`,
//! `broadcast-to`, `transpose`, `slice`, `concat`. Never computes values.

use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::Op;
use crate::shape::{
    broadcasts_to, explain_broadcast_clash, format_list, normalize_axis, normalize_axis_for, Shape,
};

impl Graph {
    /// `(reshape x [..])`: same element count; the same shape adds no node.
    pub fn reshape(&mut self, x: NodeId, shape: Shape) -> Result<NodeId, OpError> {
        let from = self.shape(x).clone();
        if from.numel() != shape.numel() {
            return Err(OpError::dim(format!(
                "reshape: element counts differ: {from} has {} elements, {shape} has {}",
                from.numel(),
                shape.numel()
            )));
        }
        if from == shape {
            return Ok(x);
        }
        let dtype = self.dtype(x);
        Ok(self.push(Op::Reshape, vec![x], shape, dtype))
    }

    /// A new node with `x`'s value (an identity `reshape`), which the
    /// compiler reads as a view of `x`: what a gradient is taken with
    /// respect to when `x` itself is also read elsewhere and must stay
    /// fixed there. Bit for bit `x`, `-0.0` included.
    pub fn fresh_view(&mut self, x: NodeId) -> NodeId {
        let (shape, dtype) = (self.shape(x).clone(), self.dtype(x));
        self.push(Op::Reshape, vec![x], shape, dtype)
    }

    /// `(broadcast-to x [..])`: NumPy's rule, right aligned, a dim stretches
    /// only from 1. The same shape adds no node.
    pub fn broadcast_to(&mut self, x: NodeId, shape: Shape) -> Result<NodeId, OpError> {
        let from = self.shape(x).clone();
        if !broadcasts_to(&from, &shape) {
            let err = OpError::dim(format!("broadcast-to: cannot broadcast {from} to {shape}"));
            let note = if from.rank() > shape.rank() {
                format!(
                    "{from} has rank {}, more than the target's {}",
                    from.rank(),
                    shape.rank()
                )
            } else {
                explain_broadcast_clash(&[&from, &shape])
                    .replace("each must be equal or 1", "only a 1 stretches")
            };
            return Err(err.with_note(note));
        }
        Ok(self.broadcast_node(x, &shape))
    }

    /// `(transpose x [0 2 1 3])`: `perm` must name every axis once (negative
    /// axes count from the end). The identity permutation adds no node.
    pub fn transpose(&mut self, x: NodeId, perm: &[i64]) -> Result<NodeId, OpError> {
        let from = self.shape(x).clone();
        let rank = from.rank();
        let mut seen = vec![false; rank];
        let mut axes = Vec::with_capacity(perm.len());
        for &p in perm {
            match normalize_axis(p, rank) {
                Some(a) if !seen[a] => {
                    seen[a] = true;
                    axes.push(a);
                }
                _ => break,
            }
        }
        if perm.len() != rank || axes.len() != rank {
            return Err(OpError::dim(format!(
                "transpose: {} is not a permutation of the {rank} axes of {from}",
                format_list(perm)
            )));
        }
        if axes.iter().enumerate().all(|(i, &a)| i == a) {
            return Ok(x);
        }
        let shape = Shape::new(axes.iter().map(|&a| from.dims()[a]).collect());
        let dtype = self.dtype(x);
        Ok(self.push(Op::Transpose { perm: axes }, vec![x], shape, dtype))
    }

    /// `(slice x axis start stop)`: `0 <= start < stop <= dim`. The whole
    /// axis adds no node.
    pub fn slice(
        &mut self,
        x: NodeId,
        axis: i64,
        start: i64,
        stop: i64,
    ) -> Result<NodeId, OpError> {
        let (from, a, dim) = self.along("slice", x, axis)?;
        let fits = 0 <= start && start < stop && usize::try_from(stop).is_ok_and(|s| s <= dim);
        if !fits {
            return Err(OpError::dim(format!(
                "slice: bounds {start}..{stop} do not fit axis {axis} of {from}; need 0 <= start < stop <= {dim}"
            )));
        }
        let (start, stop) = (start as usize, stop as usize);
        if start == 0 && stop == dim {
            return Ok(x);
        }
        let mut dims = from.dims().to_vec();
        dims[a] = stop - start;
        let dtype = self.dtype(x);
        Ok(self.push(
            Op::Slice {
                axis: a,
                start,
                stop,
            },
            vec![x],
            Shape::new(dims),
            dtype,
        ))
    }

    /// `(concat axis [a b ...])`: one dtype, equal ranks, equal dims off
    /// `axis`. A single tensor is returned as it is.
    pub fn concat(&mut self, axis: i64, xs: &[NodeId]) -> Result<NodeId, OpError> {
        let Some(&first) = xs.first() else {
            return Err(OpError::dim("concat: needs at least one tensor"));
        };
        let dtype = self.same_dtype("concat", xs)?;
        let first_shape = self.shape(first).clone();
        let a = normalize_axis_for("concat", axis, &first_shape)?;
        let mut total = 0;
        for &x in xs {
            let s = self.shape(x);
            let fits = s.rank() == first_shape.rank()
                && (0..s.rank()).all(|i| i == a || s.dims()[i] == first_shape.dims()[i]);
            if !fits {
                let why = if s.rank() != first_shape.rank() {
                    "ranks differ"
                } else {
                    "dims off the axis differ"
                };
                return Err(OpError::dim(format!(
                    "concat: {why}: {first_shape} and {s} along axis {axis}"
                )));
            }
            total += s.dims()[a];
        }
        if xs.len() == 1 {
            return Ok(first);
        }
        let mut dims = first_shape.dims().to_vec();
        dims[a] = total;
        Ok(self.push(Op::Concat { axis: a }, xs.to_vec(), Shape::new(dims), dtype))
    }
}
