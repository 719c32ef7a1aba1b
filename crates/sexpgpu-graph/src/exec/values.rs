//! The executor's working form of a tensor: floats as f64 (holding f32 or
//! bf16 values unless the graph runs at [`Precision::F64`]), integers as
//! i64, booleans as bool; rounding back to the node's dtype happens in one
//! place, `finish`. Knows nothing of ops.

use half::bf16;

use crate::dtype::DType;
use crate::shape::Shape;
use crate::tensor::{Tensor, TensorData};

/// How float nodes are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Precision {
    /// As their dtype says: f32, and bf16 computed in f32 and rounded after
    /// each node. What [`super::execute`] does.
    Dtype,
    /// Computed and kept in f64, never rounded: a reference for checks
    /// (finite differences) that f32 rounding would swamp.
    F64,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Values {
    Float(Vec<f64>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
}

impl Values {
    pub(crate) fn from_tensor(t: &Tensor) -> Values {
        match t.data() {
            TensorData::F32(v) => Values::Float(v.iter().map(|&x| f64::from(x)).collect()),
            TensorData::BF16(v) => Values::Float(v.iter().map(|x| x.to_f64()).collect()),
            TensorData::I32(v) => Values::Int(v.iter().map(|&x| i64::from(x)).collect()),
            TensorData::I64(v) => Values::Int(v.clone()),
            TensorData::Bool(v) => Values::Bool(v.clone()),
        }
    }

    /// A node's values given as f64 (for [`super::execute_f64`]): floats
    /// kept, integers truncated toward zero, booleans `x != 0`.
    pub(crate) fn from_f64s(values: &[f64], dtype: DType) -> Values {
        match dtype {
            DType::F32 | DType::BF16 => Values::Float(values.to_vec()),
            DType::I32 | DType::I64 => Values::Int(values.iter().map(|&x| x as i64).collect()),
            DType::Bool => Values::Bool(values.iter().map(|&x| x != 0.0).collect()),
        }
    }

    /// Every element as f64: booleans are 0 or 1.
    pub(crate) fn to_f64s(&self) -> Vec<f64> {
        match self {
            Values::Float(v) => v.clone(),
            Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
            Values::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        }
    }

    /// Rounds to what `dtype` can hold: f32 to nearest, bf16 to nearest even
    /// (through f32, as when it was computed in f32), i32 wrapping. Under
    /// [`Precision::F64`] floats stay as they are.
    pub(crate) fn finish(self, dtype: DType, precision: Precision) -> Values {
        match (self, dtype) {
            (Values::Float(v), _) if precision == Precision::F64 => Values::Float(v),
            (Values::Float(v), DType::F32) => {
                Values::Float(v.into_iter().map(|x| f64::from(x as f32)).collect())
            }
            (Values::Float(v), DType::BF16) => {
                Values::Float(v.into_iter().map(|x| round_bf16(x as f32)).collect())
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
                TensorData::BF16(v.iter().map(|&x| bf16::from_f32(x as f32)).collect())
            }
            (Values::Float(v), _) => TensorData::F32(v.iter().map(|&x| x as f32).collect()),
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

    /// Appends the elements `range` of `other`, which has the same dtype
    /// (the builders give a concatenation's inputs one dtype; another reads
    /// as zeros).
    pub(crate) fn extend_from(&mut self, other: &Values, range: std::ops::Range<usize>) {
        let n = range.len();
        match (self, other) {
            (Values::Float(a), Values::Float(b)) => a.extend_from_slice(&b[range]),
            (Values::Int(a), Values::Int(b)) => a.extend_from_slice(&b[range]),
            (Values::Bool(a), Values::Bool(b)) => a.extend_from_slice(&b[range]),
            (Values::Float(a), _) => a.resize(a.len() + n, 0.0),
            (Values::Int(a), _) => a.resize(a.len() + n, 0),
            (Values::Bool(a), _) => a.resize(a.len() + n, false),
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

/// `x` rounded to bf16, as f64.
pub(crate) fn round_bf16(x: f32) -> f64 {
    bf16::from_f32(x).to_f64()
}
