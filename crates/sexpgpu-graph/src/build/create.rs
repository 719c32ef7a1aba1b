//! Builders for nodes made from nothing: literal constants, `full`
//! (`zeros`, `ones`), `iota`, and the random `normal` and `uniform`, which
//! take a stream number. Never draws random numbers itself.

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::op::Op;
use crate::shape::{normalize_axis_for, Shape};
use crate::tensor::Tensor;

impl Graph {
    /// Literal data written in the program.
    pub fn constant(&mut self, value: Tensor) -> NodeId {
        let (shape, dtype) = (value.shape().clone(), value.dtype());
        self.push(Op::Constant { value }, Vec::new(), shape, dtype)
    }

    /// `(full [..] value :dtype ..)`: the value must fit the dtype (see
    /// [`Scalar::convert_to`]).
    pub fn full(&mut self, shape: Shape, value: Scalar, dtype: DType) -> Result<NodeId, OpError> {
        let value = value.convert_to(dtype).ok_or_else(|| {
            OpError::dtype(match value.out_of_range(dtype) {
                Some(why) => format!("full: {why}"),
                None => format!("full: {value} is {}, not {dtype}", value.kind_phrase()),
            })
        })?;
        Ok(self.push(Op::Full { value }, Vec::new(), shape, dtype))
    }

    /// `(zeros [..] :dtype ..)`; `false` for `bool`.
    pub fn zeros(&mut self, shape: Shape, dtype: DType) -> NodeId {
        self.push(
            Op::Full {
                value: typed_scalar(0, dtype),
            },
            Vec::new(),
            shape,
            dtype,
        )
    }

    /// `(ones [..] :dtype ..)`; `true` for `bool`.
    pub fn ones(&mut self, shape: Shape, dtype: DType) -> NodeId {
        self.push(
            Op::Full {
                value: typed_scalar(1, dtype),
            },
            Vec::new(),
            shape,
            dtype,
        )
    }

    /// `(zeros-like x)`: `x`'s shape and dtype.
    pub fn zeros_like(&mut self, x: NodeId) -> NodeId {
        let (shape, dtype) = (self.shape(x).clone(), self.dtype(x));
        self.zeros(shape, dtype)
    }

    /// `(ones-like x)`: `x`'s shape and dtype.
    pub fn ones_like(&mut self, x: NodeId) -> NodeId {
        let (shape, dtype) = (self.shape(x).clone(), self.dtype(x));
        self.ones(shape, dtype)
    }

    /// `(iota [..] :axis 0 :dtype :i32)`: integer dtypes only.
    pub fn iota(&mut self, shape: Shape, axis: i64, dtype: DType) -> Result<NodeId, OpError> {
        if !dtype.is_integer() {
            return Err(OpError::dtype(format!(
                "iota: dtype must be i32 or i64, got {dtype}"
            )));
        }
        let axis = normalize_axis_for("iota", axis, &shape)?;
        Ok(self.push(Op::Iota { axis }, Vec::new(), shape, dtype))
    }

    /// `(normal [..] :std 1.0 :mean 0.0 :dtype :f32)`: float dtypes only.
    /// `std` 0 gives a constant `mean` instead of a random node (seed).
    pub fn normal(
        &mut self,
        shape: Shape,
        dtype: DType,
        mean: f64,
        std: f64,
    ) -> Result<NodeId, OpError> {
        let constant = (std == 0.0).then_some(mean);
        let op = |stream| Op::Normal { mean, std, stream };
        self.random("normal", (shape, dtype), constant, op)
    }

    /// `(uniform [..] :low 0.0 :high 1.0 :dtype :f32)`: float dtypes only.
    /// `low == high` gives a constant instead of a random node (seed).
    pub fn uniform(
        &mut self,
        shape: Shape,
        dtype: DType,
        low: f64,
        high: f64,
    ) -> Result<NodeId, OpError> {
        let constant = (low == high).then_some(low);
        let op = |stream| Op::Uniform { low, high, stream };
        self.random("uniform", (shape, dtype), constant, op)
    }

    /// A random node, `op` of the next stream; or, for a distribution of
    /// one value (`constant`), that value (the stream is taken all the
    /// same, so the streams after it do not move).
    fn random(
        &mut self,
        name: &str,
        (shape, dtype): (Shape, DType),
        constant: Option<f64>,
        op: impl FnOnce(u32) -> Op,
    ) -> Result<NodeId, OpError> {
        check_random_dtype(name, dtype)?;
        let stream = self.take_stream();
        let op = match constant {
            Some(value) => Op::Full {
                value: Scalar::Float(value),
            },
            None => op(stream),
        };
        Ok(self.push(op, Vec::new(), shape, dtype))
    }
}

fn check_random_dtype(op: &str, dtype: DType) -> Result<(), OpError> {
    if !dtype.is_float() {
        return Err(OpError::dtype(format!(
            "{op}: dtype must be f32 or bf16, got {dtype}"
        )));
    }
    Ok(())
}

/// 0 or 1 as a value of `dtype`.
fn typed_scalar(n: i64, dtype: DType) -> Scalar {
    match dtype {
        DType::F32 | DType::BF16 => Scalar::Float(n as f64),
        DType::I32 | DType::I64 => Scalar::Int(n),
        DType::Bool => Scalar::Bool(n != 0),
    }
}
