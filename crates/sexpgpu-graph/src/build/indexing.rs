//! Builders for data-dependent indexing (`index`, `index-add`, `gather`,
//! `scatter-add`), `linear-scan`, and sorting (`argsort`, with `sort` and
//! `top-k` built on it and `gather`). Ids are only checked for dtype here;
//! their values are checked when the graph runs. Never computes values.

use crate::dtype::DType;
use crate::error::OpError;
use crate::graph::{Graph, NodeId, Operand};
use crate::op::Op;
use crate::shape::{normalize_axis_for, Shape};

impl Graph {
    /// `(index table ids)`: rows of `[n, rest...]` picked by an integer
    /// tensor, giving `[ids..., rest...]`.
    pub fn index(&mut self, table: NodeId, ids: NodeId) -> Result<NodeId, OpError> {
        self.check_ids("index", "ids", ids)?;
        let table_shape = self.shape(table).clone();
        if table_shape.rank() == 0 {
            return Err(OpError::dim(format!(
                "index: table must have rank 1 or more, got {table_shape}"
            )));
        }
        let shape = Shape::new([self.shape(ids).dims(), &table_shape.dims()[1..]].concat());
        let dtype = self.dtype(table);
        Ok(self.push(Op::Index, vec![table, ids], shape, dtype))
    }

    /// `(index-add base ids values)`: the adjoint of `index`; `values` is
    /// `[ids..., rest...]` for `base` of `[n, rest...]`, repeated ids add up.
    pub fn index_add(
        &mut self,
        base: NodeId,
        ids: NodeId,
        values: NodeId,
    ) -> Result<NodeId, OpError> {
        let dtype = self.adding_dtype("index-add", "ids", base, ids, values)?;
        let base_shape = self.shape(base).clone();
        if base_shape.rank() == 0 {
            return Err(OpError::dim(format!(
                "index-add: base must have rank 1 or more, got {base_shape}"
            )));
        }
        let ids_shape = self.shape(ids).clone();
        let wanted = Shape::new([ids_shape.dims(), &base_shape.dims()[1..]].concat());
        let got = self.shape(values);
        if *got != wanted {
            return Err(OpError::dim(format!(
                "index-add: values must be {wanted} (ids {ids_shape}, then the rows of base {base_shape}), got {got}"
            )));
        }
        Ok(self.push(Op::IndexAdd, vec![base, ids, values], base_shape, dtype))
    }

    /// `(gather x idx :axis a)`: take along one axis. Equal ranks; off the
    /// axis `idx` must have `x`'s dims exactly (no broadcasting, so the
    /// adjoint `scatter-add` is exact); the result has `idx`'s shape.
    pub fn gather(&mut self, x: NodeId, idx: NodeId, axis: i64) -> Result<NodeId, OpError> {
        self.check_ids("gather", "idx", idx)?;
        let (xs, is) = (self.shape(x).clone(), self.shape(idx).clone());
        let a = self.check_along("gather", &xs, &is, axis)?;
        let dtype = self.dtype(x);
        Ok(self.push(Op::Gather { axis: a }, vec![x, idx], is, dtype))
    }

    /// `(scatter-add base idx values :axis a)`: the adjoint of `gather`;
    /// `idx` and `values` have one shape, related to `base` as in `gather`.
    pub fn scatter_add(
        &mut self,
        base: NodeId,
        idx: NodeId,
        values: NodeId,
        axis: i64,
    ) -> Result<NodeId, OpError> {
        let dtype = self.adding_dtype("scatter-add", "idx", base, idx, values)?;
        let (bs, is, vs) = (
            self.shape(base).clone(),
            self.shape(idx).clone(),
            self.shape(values).clone(),
        );
        if is != vs {
            return Err(OpError::dim(format!(
                "scatter-add: idx and values differ in shape: {is} and {vs}"
            )));
        }
        let a = self.check_along("scatter-add", &bs, &is, axis)?;
        Ok(self.push(
            Op::ScatterAdd { axis: a },
            vec![base, idx, values],
            bs,
            dtype,
        ))
    }

    /// `(linear-scan a b :axis 0 :reverse false)`: `h[t] = a[t] * h[t-1] +
    /// b[t]` from `h = 0`. Floats of one dtype (plain numbers take it),
    /// broadcast to one shape.
    pub fn linear_scan(
        &mut self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        axis: i64,
        reverse: bool,
    ) -> Result<NodeId, OpError> {
        let ids = self.materialize("linear-scan", &[a.into(), b.into()], None)?;
        let dtype = self.same_dtype("linear-scan", &ids)?;
        if !dtype.is_float() {
            return Err(OpError::dtype(format!(
                "linear-scan: expects float tensors, got {dtype}"
            )));
        }
        let (ids, shape) = self.broadcast_all("linear-scan", &ids)?;
        let a = normalize_axis_for("linear-scan", axis, &shape)?;
        Ok(self.push(Op::LinearScan { axis: a, reverse }, ids, shape, dtype))
    }

    /// The dtype of an op adding `values` into `base` at `ids` (integers,
    /// named `what`): `base` and `values` alike and numeric.
    fn adding_dtype(
        &self,
        op: &str,
        what: &str,
        base: NodeId,
        ids: NodeId,
        values: NodeId,
    ) -> Result<DType, OpError> {
        self.check_ids(op, what, ids)?;
        let dtype = self.same_dtype(op, &[base, values])?;
        if !dtype.is_numeric() {
            return Err(OpError::dtype(format!(
                "{op}: expects float or integer tensors, got {dtype}"
            )));
        }
        Ok(dtype)
    }

    pub(super) fn check_ids(&self, op: &str, what: &str, ids: NodeId) -> Result<(), OpError> {
        let dtype = self.dtype(ids);
        if !dtype.is_integer() {
            return Err(OpError::dtype(format!(
                "{op}: {what} must be i32 or i64, got {dtype}"
            )));
        }
        Ok(())
    }

    /// The shared rule of `gather` and `scatter-add`.
    pub(super) fn check_along(
        &self,
        op: &str,
        data: &Shape,
        idx: &Shape,
        axis: i64,
    ) -> Result<usize, OpError> {
        if data.rank() != idx.rank() {
            return Err(OpError::dim(format!(
                "{op}: ranks differ: {data} and idx {idx}"
            )));
        }
        let a = normalize_axis_for(op, axis, data)?;
        if (0..data.rank()).any(|i| i != a && data.dims()[i] != idx.dims()[i]) {
            return Err(OpError::dim(format!(
                "{op}: dims off axis {axis} differ: {data} and idx {idx}"
            )));
        }
        Ok(a)
    }

    /// `argsort`: the `i64` positions that sort `x` along `axis`, stably,
    /// NaN above every number; largest first when `descending`.
    pub fn argsort(&mut self, x: NodeId, axis: i64, descending: bool) -> Result<NodeId, OpError> {
        self.dtype_where("sort", x, DType::is_numeric, "a float or integer tensor")?;
        let shape = self.shape(x).clone();
        if shape.rank() == 0 {
            return Err(OpError::dim(
                "sort: expects a tensor of rank 1 or more, got []",
            ));
        }
        let a = normalize_axis_for("sort", axis, &shape)?;
        Ok(self.push(
            Op::Argsort {
                axis: a,
                descending,
            },
            vec![x],
            shape,
            DType::I64,
        ))
    }

    /// `(sort x :axis -1 :descending false)`: the sorted values (a `gather`
    /// of `x`, so they carry gradients) and the `i64` positions they came from.
    pub fn sort(
        &mut self,
        x: NodeId,
        axis: i64,
        descending: bool,
    ) -> Result<(NodeId, NodeId), OpError> {
        let order = self.argsort(x, axis, descending)?;
        let values = self.gather(x, order, axis)?;
        Ok((values, order))
    }

    /// `(top-k x k :axis -1 :largest true)`: the `k` largest (smallest)
    /// values along the axis, in order, and their `i64` positions; ties
    /// keep the earlier position first.
    pub fn top_k(
        &mut self,
        x: NodeId,
        k: i64,
        axis: i64,
        largest: bool,
    ) -> Result<(NodeId, NodeId), OpError> {
        let order = self.argsort(x, axis, largest)?;
        let (shape, a, len) = self.along("top-k", x, axis)?;
        if k < 0 || k as usize > len {
            return Err(OpError::dim(format!(
                "top-k: k = {k} does not fit axis {axis} of {shape}; need 0 <= k <= {len}"
            )));
        }
        let first = if k as usize == len {
            order
        } else if k == 0 {
            let mut dims = shape.dims().to_vec();
            dims[a] = 0;
            self.zeros(Shape::new(dims), DType::I64)
        } else {
            self.slice(order, a as i64, 0, k)?
        };
        let values = self.gather(x, first, a as i64)?;
        Ok((values, first))
    }
}
