//! Host tensors: a shape, a dtype and row-major element data, with
//! conversions from and to nested host values and Clojure-style printing.
//! Never knows about graphs; `.npy` lives in `npy`.

use std::fmt;

use half::bf16;

use crate::dtype::{DType, Scalar};
use crate::format::format_f32;
use crate::shape::Shape;

/// Element storage, one variant per dtype; `bf16` is stored as bf16.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData {
    F32(Vec<f32>),
    BF16(Vec<bf16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
}

impl TensorData {
    pub fn dtype(&self) -> DType {
        match self {
            TensorData::F32(_) => DType::F32,
            TensorData::BF16(_) => DType::BF16,
            TensorData::I32(_) => DType::I32,
            TensorData::I64(_) => DType::I64,
            TensorData::Bool(_) => DType::Bool,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            TensorData::F32(v) => v.len(),
            TensorData::BF16(v) => v.len(),
            TensorData::I32(v) => v.len(),
            TensorData::I64(v) => v.len(),
            TensorData::Bool(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps the first `n` values (all of them when there are fewer).
    pub fn truncate(&mut self, n: usize) {
        match self {
            TensorData::F32(v) => v.truncate(n),
            TensorData::BF16(v) => v.truncate(n),
            TensorData::I32(v) => v.truncate(n),
            TensorData::I64(v) => v.truncate(n),
            TensorData::Bool(v) => v.truncate(n),
        }
    }

    /// Stores `f64` values as `dtype`: floats round to nearest, integers
    /// truncate toward zero and wrap, booleans are `x != 0`.
    pub fn from_f64s(values: impl IntoIterator<Item = f64>, dtype: DType) -> TensorData {
        let values = values.into_iter();
        match dtype {
            DType::F32 => TensorData::F32(values.map(|x| x as f32).collect()),
            DType::BF16 => TensorData::BF16(values.map(bf16::from_f64).collect()),
            DType::I32 => TensorData::I32(values.map(|x| x as i64 as i32).collect()),
            DType::I64 => TensorData::I64(values.map(|x| x as i64).collect()),
            DType::Bool => TensorData::Bool(values.map(|x| x != 0.0).collect()),
        }
    }

    /// Stores `i64` values as `dtype`; `i32` wraps, as integer arithmetic does.
    pub fn from_i64s(values: impl IntoIterator<Item = i64>, dtype: DType) -> TensorData {
        let values = values.into_iter();
        match dtype {
            DType::F32 => TensorData::F32(values.map(|x| x as f32).collect()),
            DType::BF16 => TensorData::BF16(values.map(|x| bf16::from_f32(x as f32)).collect()),
            DType::I32 => TensorData::I32(values.map(|x| x as i32).collect()),
            DType::I64 => TensorData::I64(values.collect()),
            DType::Bool => TensorData::Bool(values.map(|x| x != 0).collect()),
        }
    }

    pub fn to_f64s(&self) -> Vec<f64> {
        match self {
            TensorData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            TensorData::BF16(v) => v.iter().map(|&x| x.to_f64()).collect(),
            TensorData::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            TensorData::I64(v) => v.iter().map(|&x| x as f64).collect(),
            TensorData::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        }
    }

    /// Floats truncate toward zero (saturating; NaN is 0), booleans are 0 or 1.
    pub fn to_i64s(&self) -> Vec<i64> {
        match self {
            TensorData::F32(v) => v.iter().map(|&x| x as i64).collect(),
            TensorData::BF16(v) => v.iter().map(|&x| x.to_f32() as i64).collect(),
            TensorData::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
            TensorData::I64(v) => v.clone(),
            TensorData::Bool(v) => v.iter().map(|&x| i64::from(x)).collect(),
        }
    }

    /// Element `i` as a host scalar (floats widen to `f64`).
    pub fn scalar_at(&self, i: usize) -> Scalar {
        match self {
            TensorData::F32(v) => Scalar::Float(f64::from(v[i])),
            TensorData::BF16(v) => Scalar::Float(v[i].to_f64()),
            TensorData::I32(v) => Scalar::Int(i64::from(v[i])),
            TensorData::I64(v) => Scalar::Int(v[i]),
            TensorData::Bool(v) => Scalar::Bool(v[i]),
        }
    }

    fn format_element(&self, i: usize) -> String {
        match self {
            TensorData::F32(v) => format_f32(v[i]),
            // bf16 has fewer digits than f32; printing its exact f32 value keeps
            // the shortest digits that round-trip through f32.
            TensorData::BF16(v) => format_f32(v[i].to_f32()),
            TensorData::I32(v) => v[i].to_string(),
            TensorData::I64(v) => v[i].to_string(),
            TensorData::Bool(v) => v[i].to_string(),
        }
    }
}

/// A host value made of nested vectors of numbers, as the evaluator hands
/// them in (`[[1 2] [3 4]]`) and gets them back from `to-vec`.
#[derive(Clone, Debug, PartialEq)]
pub enum Nested {
    Scalar(Scalar),
    List(Vec<Nested>),
}

crate::error::message_error! {
    /// Why host data could not become a tensor.
    TensorError,
    tensor_error
}

/// A host tensor: the inputs and results of an execution.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    shape: Shape,
    data: TensorData,
}

impl Tensor {
    /// Pairs a shape with data; the element count must match.
    pub fn new(shape: Shape, data: TensorData) -> Result<Tensor, TensorError> {
        if shape.numel() != data.len() {
            return Err(tensor_error(format!(
                "shape {shape} holds {} elements, but the data has {}",
                shape.numel(),
                data.len()
            )));
        }
        Ok(Tensor { shape, data })
    }

    pub fn from_f64s(shape: Shape, values: &[f64], dtype: DType) -> Result<Tensor, TensorError> {
        Tensor::new(shape, TensorData::from_f64s(values.iter().copied(), dtype))
    }

    pub fn from_i64s(shape: Shape, values: &[i64], dtype: DType) -> Result<Tensor, TensorError> {
        Tensor::new(shape, TensorData::from_i64s(values.iter().copied(), dtype))
    }

    /// `shape` filled with one value, converted as [`TensorData::from_f64s`] does.
    pub fn full(shape: Shape, value: Scalar, dtype: DType) -> Tensor {
        let n = shape.numel();
        let data = match value {
            Scalar::Int(i) => TensorData::from_i64s(std::iter::repeat_n(i, n), dtype),
            other => TensorData::from_f64s(std::iter::repeat_n(other.as_f64(), n), dtype),
        };
        Tensor { shape, data }
    }

    /// Builds a tensor from nested vectors; every level must be rectangular.
    /// Integers and booleans go into any dtype of their kind or wider
    /// (integers into floats too); a float into an integer or boolean tensor is
    /// refused rather than silently truncated.
    pub fn from_nested(value: &Nested, dtype: DType) -> Result<Tensor, TensorError> {
        let mut dims = Vec::new();
        let mut probe = value;
        while let Nested::List(items) = probe {
            dims.push(items.len());
            match items.first() {
                Some(first) => probe = first,
                None => break,
            }
        }
        let shape = Shape::new(dims);
        let mut scalars = Vec::with_capacity(shape.numel());
        flatten(value, shape.dims(), &mut scalars)?;
        let mut converted = Vec::with_capacity(scalars.len());
        for s in scalars {
            converted.push(s.convert_to(dtype).ok_or_else(|| {
                tensor_error(match s.out_of_range(dtype) {
                    Some(why) => why,
                    None => format!(
                        "{s} is {}, which does not fit dtype {dtype}",
                        s.kind_phrase()
                    ),
                })
            })?);
        }
        let data = match dtype {
            DType::I32 | DType::I64 => {
                TensorData::from_i64s(converted.iter().map(|s| s.as_i64()), dtype)
            }
            _ => TensorData::from_f64s(converted.iter().map(|s| s.as_f64()), dtype),
        };
        Tensor::new(shape, data)
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn data(&self) -> &TensorData {
        &self.data
    }

    pub fn into_data(self) -> TensorData {
        self.data
    }

    pub fn numel(&self) -> usize {
        self.data.len()
    }

    pub fn to_f64s(&self) -> Vec<f64> {
        self.data.to_f64s()
    }

    pub fn to_i64s(&self) -> Vec<i64> {
        self.data.to_i64s()
    }

    /// Nested vectors of host scalars; a scalar tensor is a bare scalar.
    pub fn to_nested(&self) -> Nested {
        let mut next = 0;
        self.nest(0, &mut next)
    }

    fn nest(&self, axis: usize, next: &mut usize) -> Nested {
        if axis == self.shape.rank() {
            let s = self.data.scalar_at(*next);
            *next += 1;
            return Nested::Scalar(s);
        }
        Nested::List(
            (0..self.shape.dims()[axis])
                .map(|_| self.nest(axis + 1, next))
                .collect(),
        )
    }

    /// Prints like Clojure prints nested vectors: `[[1.0 2.0] [3.0 4.0]]`.
    pub fn to_clojure_string(&self) -> String {
        let mut out = String::new();
        let mut next = 0;
        self.write_clojure(0, &mut next, &mut out);
        out
    }

    fn write_clojure(&self, axis: usize, next: &mut usize, out: &mut String) {
        if axis == self.shape.rank() {
            out.push_str(&self.data.format_element(*next));
            *next += 1;
            return;
        }
        out.push('[');
        for i in 0..self.shape.dims()[axis] {
            if i > 0 {
                out.push(' ');
            }
            self.write_clojure(axis + 1, next, out);
        }
        out.push(']');
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_clojure_string())
    }
}

/// Collects the leaves of `value` in row-major order, checking that it has
/// exactly `dims` (the shape read along the first elements).
fn flatten(value: &Nested, dims: &[usize], out: &mut Vec<Scalar>) -> Result<(), TensorError> {
    match (value, dims.split_first()) {
        (Nested::Scalar(s), None) => {
            out.push(*s);
            Ok(())
        }
        (Nested::List(items), Some((&n, rest))) if items.len() == n => {
            items.iter().try_for_each(|item| flatten(item, rest, out))
        }
        (Nested::List(items), Some((&n, _))) => Err(tensor_error(format!(
            "ragged nested vector: a row has {} elements where the first has {n}",
            items.len()
        ))),
        (Nested::Scalar(_), Some(_)) => Err(tensor_error(
            "ragged nested vector: a number where a vector was expected",
        )),
        (Nested::List(_), None) => Err(tensor_error(
            "ragged nested vector: a vector where a number was expected",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn int(i: i64) -> Nested {
        Nested::Scalar(Scalar::Int(i))
    }

    fn list(items: Vec<Nested>) -> Nested {
        Nested::List(items)
    }

    fn check(value: &Nested, dtype: DType, expect: expect_test::Expect) {
        let text = match Tensor::from_nested(value, dtype) {
            Ok(t) => format!("{} {} {}", t.shape(), t.dtype(), t),
            Err(e) => format!("error: {e}"),
        };
        expect.assert_eq(&text);
    }

    #[test]
    fn nested_integers_become_floats() {
        check(
            &list(vec![list(vec![int(1), int(2)]), list(vec![int(3), int(4)])]),
            DType::F32,
            expect!["[2, 2] f32 [[1.0 2.0] [3.0 4.0]]"],
        );
    }

    #[test]
    fn nested_scalars_and_empty() {
        check(&int(7), DType::I64, expect!["[] i64 7"]);
        check(&list(vec![]), DType::F32, expect!["[0] f32 []"]);
        check(
            &list(vec![Nested::Scalar(Scalar::Bool(true))]),
            DType::Bool,
            expect!["[1] bool [true]"],
        );
    }

    #[test]
    fn ragged_and_lossy_data_is_refused() {
        check(
            &list(vec![list(vec![int(1)]), list(vec![int(2), int(3)])]),
            DType::F32,
            expect!["error: ragged nested vector: a row has 2 elements where the first has 1"],
        );
        check(
            &list(vec![Nested::Scalar(Scalar::Float(1.5))]),
            DType::I32,
            expect!["error: 1.5 is a float, which does not fit dtype i32"],
        );
    }

    #[test]
    fn bf16_prints_its_rounded_value() {
        let t = Tensor::from_f64s(Shape::from([3]), &[1.0, 0.1, 300.7], DType::BF16).unwrap();
        expect!["[1.0 0.100097656 300.0]"].assert_eq(&t.to_clojure_string());
    }
}
