//! Builders for fused attention (`docs/sexpgpu/operations.md`, "Fused
//! attention"): the output, and the log-sum-exp and gradients its adjoint
//! reads. Never computes values.

use crate::dtype::DType;
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::{AttentionPart, Op};
use crate::shape::{broadcast_shapes, explain_broadcast_clash, Shape};

/// The sizes every attention part agrees on: the batch dims, the
/// queries `t` and the values' width `e`.
struct Sizes {
    batch: Vec<usize>,
    t: usize,
    e: usize,
}

impl Graph {
    /// `(scaled-dot-product-attention q k v :causal c :scale x)`:
    /// `softmax(scale q k^T) v` over the last two axes, the scores never
    /// stored. Batch dims broadcast; `scale` defaults to `1/sqrt(d)`.
    pub fn attention(
        &mut self,
        q: NodeId,
        k: NodeId,
        v: NodeId,
        causal: bool,
        scale: Option<f64>,
    ) -> Result<NodeId, OpError> {
        const NAME: &str = "scaled-dot-product-attention";
        let dtype = self.attention_dtype(NAME, &[q, k, v])?;
        let (qs, ks, vs) = (
            self.shape(q).clone(),
            self.shape(k).clone(),
            self.shape(v).clone(),
        );
        if qs.rank() < 2 || ks.rank() < 2 || vs.rank() < 2 {
            return Err(OpError::dim(format!(
                "{NAME}: expects q, k and v of rank 2 or more, got {qs}, {ks} and {vs}"
            )));
        }
        let last_two = |s: &Shape| (s.dims()[s.rank() - 2], s.dims()[s.rank() - 1]);
        let ((t, d), (s, dk), (sv, e)) = (last_two(&qs), last_two(&ks), last_two(&vs));
        if d != dk {
            return Err(OpError::dim(format!(
                "{NAME}: queries {qs} and keys {ks} differ in their last dim"
            )));
        }
        if s != sv {
            return Err(OpError::dim(format!(
                "{NAME}: keys {ks} and values {vs} differ in their second-to-last dim"
            )));
        }
        let batches: Vec<Shape> = [&qs, &ks, &vs]
            .iter()
            .map(|s| Shape::from(&s.dims()[..s.rank() - 2]))
            .collect();
        let mut batch = Some(Shape::scalar());
        for b in &batches {
            batch = batch.and_then(|acc| broadcast_shapes(&acc, b));
        }
        let Some(batch) = batch else {
            let refs: Vec<&Shape> = batches.iter().collect();
            return Err(OpError::dim(format!(
                "{NAME}: batch dims do not broadcast: {qs}, {ks} and {vs}"
            ))
            .with_note(explain_broadcast_clash(&refs)));
        };
        let with = |last: [usize; 2]| Shape::new([batch.dims(), &last].concat());
        let q = self.broadcast_node(q, &with([t, d]));
        let k = self.broadcast_node(k, &with([s, d]));
        let v = self.broadcast_node(v, &with([s, e]));
        let scale = scale.unwrap_or(if d == 0 { 1.0 } else { 1.0 / (d as f64).sqrt() });
        Ok(self.push(
            Op::Attention {
                part: AttentionPart::Output,
                causal,
                scale,
            },
            vec![q, k, v],
            with([t, e]),
            dtype,
        ))
    }

    /// Each query's log-sum-exp of its scaled (and masked) scores, f32
    /// `[batch.., t]`: the statistic attention's gradients read. `q` and `k`
    /// have equal batch dims.
    pub fn attention_lse(
        &mut self,
        q: NodeId,
        k: NodeId,
        causal: bool,
        scale: f64,
    ) -> Result<NodeId, OpError> {
        let part = AttentionPart::LogSumExp;
        self.attention_dtype(part.name(), &[q, k])?;
        let sizes = self.attention_sizes(part.name(), q, k, None)?;
        let shape = Shape::new([sizes.batch.as_slice(), &[sizes.t]].concat());
        Ok(self.push(
            Op::Attention {
                part,
                causal,
                scale,
            },
            vec![q, k],
            shape,
            DType::F32,
        ))
    }

    /// The gradient of input `wrt` (0 `q`, 1 `k`, 2 `v`) of attention, from
    /// `[q, k, v, dout, lse, delta]`: `dout` the output's gradient, `lse`
    /// from [`Graph::attention_lse`], `delta` each query's `sum(dout * out)`
    /// in f32. Equal batch dims throughout.
    pub fn attention_grad(
        &mut self,
        wrt: usize,
        inputs: [NodeId; 6],
        causal: bool,
        scale: f64,
    ) -> Result<NodeId, OpError> {
        let part = AttentionPart::Grad(wrt.min(2));
        let name = part.name();
        let [q, k, v, dout, lse, delta] = inputs;
        let dtype = self.attention_dtype(name, &[q, k, v, dout])?;
        let sizes = self.attention_sizes(name, q, k, Some(v))?;
        let rows = Shape::new([sizes.batch.as_slice(), &[sizes.t]].concat());
        let out = Shape::new([sizes.batch.as_slice(), &[sizes.t, sizes.e]].concat());
        for (what, id, want, want_dtype) in [
            ("dout", dout, &out, dtype),
            ("lse", lse, &rows, DType::F32),
            ("delta", delta, &rows, DType::F32),
        ] {
            if self.shape(id) != want || self.dtype(id) != want_dtype {
                return Err(OpError::dim(format!(
                    "{name}: {what} is {} {}, expected {want} {want_dtype}",
                    self.shape(id),
                    self.dtype(id)
                )));
            }
        }
        let shape = self.shape(inputs[wrt.min(2)]).clone();
        Ok(self.push(
            Op::Attention {
                part,
                causal,
                scale,
            },
            inputs.to_vec(),
            shape,
            dtype,
        ))
    }

    /// The one float dtype of attention's operands.
    fn attention_dtype(&self, name: &str, ids: &[NodeId]) -> Result<DType, OpError> {
        let dtype = self.same_dtype(name, ids)?;
        if !dtype.is_float() {
            return Err(OpError::dtype(format!(
                "{name}: expects float tensors, got {dtype}"
            )));
        }
        Ok(dtype)
    }

    /// The sizes of already broadcast operands (the gradient parts'), or an
    /// error naming the shapes that do not fit.
    fn attention_sizes(
        &self,
        name: &str,
        q: NodeId,
        k: NodeId,
        v: Option<NodeId>,
    ) -> Result<Sizes, OpError> {
        let (qs, ks) = (self.shape(q), self.shape(k));
        let vs = v.map_or(ks, |v| self.shape(v));
        let r = qs.rank();
        let fits = r >= 2
            && ks.rank() == r
            && vs.rank() == r
            && qs.dims()[..r - 2] == ks.dims()[..r - 2]
            && ks.dims()[..r - 2] == vs.dims()[..r - 2]
            && qs.dims()[r - 1] == ks.dims()[r - 1]
            && ks.dims()[r - 2] == vs.dims()[r - 2];
        if !fits {
            return Err(OpError::dim(format!(
                "{name}: q {qs}, k {ks} and v {vs} do not fit one attention"
            )));
        }
        Ok(Sizes {
            batch: qs.dims()[..r - 2].to_vec(),
            t: qs.dims()[r - 2],
            e: vs.dims()[r - 1],
        })
    }
}
