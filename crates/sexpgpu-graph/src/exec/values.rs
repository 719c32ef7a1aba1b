//! The executor's working form of a tensor: floats as f32 (bf16 widened),
//! integers as i64, booleans as bool; rounding back to the node's dtype
//! happens in one place, `finish`. Knows nothing of ops.

use half::bf16;

use crate::dtype::DType;
use crate::shape::Shape;
use crate::tensor::{Tensor, TensorData};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Values {
    Float(Vec<f32>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
}

impl Values {
    pub(crate) fn from_tensor(t: &Tensor) -> Values {
        match t.data() {
            TensorData::F32(v) => Values::Float(v.clone()),
            TensorData::BF16(v) => Values::Float(v.iter().map(|x| x.to_f32()).collect()),
            TensorData::I32(v) => Values::Int(v.iter().map(|&x| i64::from(x)).collect()),
            TensorData::I64(v) => Values::Int(v.clone()),
            TensorData::Bool(v) => Values::Bool(v.clone()),
        }
    }

    /// Rounds to what `dtype` can hold: bf16 to nearest even, i32 wrapping.
    pub(crate) fn finish(self, dtype: DType) -> Values {
        match (self, dtype) {
            (Values::Float(v), DType::BF16) => {
                Values::Float(v.into_iter().map(round_bf16).collect())
            }
            (Values::Int(v), DType::I32) => {
                Values::Int(v.into_iter().map(|x| i64::from(x as i32)).collect())
            }
            (other, _) => other,
        }
    }

    pub(crate) fn to_tensor(&self, shape: &Shape, dtype: DType) -> Tensor {
        let data = match (self, dtype) {
            (Values::Float(v), DType::BF16) => {
                TensorData::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect())
            }
            (Values::Float(v), _) => TensorData::F32(v.clone()),
            (Values::Int(v), DType::I32) => TensorData::I32(v.iter().map(|&x| x as i32).collect()),
            (Values::Int(v), _) => TensorData::I64(v.clone()),
            (Values::Bool(v), _) => TensorData::Bool(v.clone()),
        };
        Tensor::new(shape.clone(), data).expect("the executor keeps element counts")
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Values::Float(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::Bool(v) => v.len(),
        }
    }

    /// Picks elements by source index, in order: the common core of every
    /// layout op.
    pub(crate) fn pick(&self, indices: &[usize]) -> Values {
        match self {
            Values::Float(v) => Values::Float(indices.iter().map(|&i| v[i]).collect()),
            Values::Int(v) => Values::Int(indices.iter().map(|&i| v[i]).collect()),
            Values::Bool(v) => Values::Bool(indices.iter().map(|&i| v[i]).collect()),
        }
    }

    /// Integer ids as i64 (the builders guarantee an integer dtype).
    pub(crate) fn ints(&self) -> &[i64] {
        match self {
            Values::Int(v) => v,
            _ => &[],
        }
    }
}

pub(crate) fn round_bf16(x: f32) -> f32 {
    bf16::from_f32(x).to_f32()
}
