//! Values of nodes made from nothing: `full`, `iota`, and the random
//! `normal` and `uniform` drawn from their node's stream. Never reads inputs.

use half::bf16;

use super::values::Values;
use crate::dtype::{DType, Scalar};
use crate::random::{element_bits, standard_normal, stream_key, unit_uniform};
use crate::shape::Shape;

pub(crate) fn full(value: Scalar, n: usize, dtype: DType) -> Values {
    match dtype {
        // Rounded to the dtype by `finish`.
        DType::F32 | DType::BF16 => Values::Float(vec![value.as_f64(); n]),
        DType::I32 | DType::I64 => Values::Int(vec![value.as_i64(); n]),
        DType::Bool => Values::Bool(vec![value.as_bool(); n]),
    }
}

/// Each element's coordinate along `axis`.
pub(crate) fn iota(shape: &Shape, axis: usize) -> Values {
    let stride = shape.strides()[axis];
    let dim = shape.dims()[axis];
    Values::Int(
        (0..shape.numel())
            .map(|i| ((i / stride) % dim) as i64)
            .collect(),
    )
}

/// `mean + std * z` with `z` from Box–Muller, computed in f64 (rounded to
/// the dtype by `finish`).
pub(crate) fn normal(seed: u64, stream: u32, n: usize, mean: f64, std: f64) -> Values {
    let key = stream_key(seed, stream);
    Values::Float(
        (0..n as u64)
            .map(|i| mean + std * standard_normal(element_bits(key, i)))
            .collect(),
    )
}

/// `low + (high - low) * u` in f64, rounded to the dtype; a value that rounds
/// up to `high` is moved to the largest value below it, so the range stays
/// half-open as documented. Rounded here, in every precision, so a graph
/// draws the same samples whichever precision it runs at.
pub(crate) fn uniform(
    seed: u64,
    stream: u32,
    n: usize,
    low: f64,
    high: f64,
    dtype: DType,
) -> Values {
    let key = stream_key(seed, stream);
    let round = |x: f64| -> f32 {
        match dtype {
            // Through f32 like every other bf16 result, so backends agree.
            DType::BF16 => bf16::from_f32(x as f32).to_f32(),
            _ => x as f32,
        }
    };
    let below_high = |x: f32| -> f32 {
        if low < high && f64::from(x) >= high {
            crate::random::largest_below(high, dtype)
        } else {
            x
        }
    };
    Values::Float(
        (0..n as u64)
            .map(|i| {
                f64::from(below_high(round(
                    low + (high - low) * unit_uniform(element_bits(key, i)),
                )))
            })
            .collect(),
    )
}
