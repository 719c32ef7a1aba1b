//! Kernels that make values from nothing: splats, `iota` and the random
//! fills, split over threads by element index. Random elements use the graph
//! crate's Threefry streams and transforms, rounded exactly as the
//! reference executor rounds them, so they are bit-identical. Reads no input.

use half::bf16;
use sexpgpu_graph::random::{
    element_bits, largest_below, standard_normal, stream_key, unit_uniform,
};
use sexpgpu_graph::{DType, Scalar, TensorData};

use super::parallel::for_chunks;
use crate::plan::Fill;

/// Random transforms are much slower than a store, so fewer elements
/// already pay for a thread.
const RANDOM_PER_THREAD: usize = 1 << 12;

pub(crate) fn run(threads: usize, fill: &Fill, seed: u64, out: &mut TensorData, len: usize) {
    match fill {
        Fill::Splat(value) => splat(out, len, *value),
        Fill::Iota { dims, axis } => {
            let stride: usize = dims[axis + 1..].iter().product();
            let dim = dims[*axis].max(1);
            let at = move |i: usize| ((i / stride.max(1)) % dim) as f64;
            fill_f64(threads, out, len, 1 << 15, at);
        }
        Fill::Normal { mean, std, stream } => {
            let key = stream_key(seed, *stream);
            let (mean, std) = (*mean, *std);
            fill_f64(threads, out, len, RANDOM_PER_THREAD, move |i| {
                f64::from((mean + std * standard_normal(element_bits(key, i as u64))) as f32)
            });
        }
        Fill::Uniform { low, high, stream } => {
            let key = stream_key(seed, *stream);
            let (low, high) = (*low, *high);
            let dtype = out.dtype();
            let top = f64::from(largest_below(high, dtype));
            fill_f64(threads, out, len, RANDOM_PER_THREAD, move |i| {
                let x = low + (high - low) * unit_uniform(element_bits(key, i as u64));
                // Round to the dtype first (bf16 through f32, like every
                // bf16 result), then keep the range half-open as the
                // reference does.
                let rounded = match dtype {
                    DType::BF16 => f64::from(bf16::from_f32(x as f32).to_f32()),
                    _ => f64::from(x as f32),
                };
                if low < high && rounded >= high {
                    top
                } else {
                    rounded
                }
            });
        }
    }
}

/// Splat values are already converted to the buffer's dtype.
pub(crate) fn splat(out: &mut TensorData, len: usize, value: Scalar) {
    match out {
        TensorData::F32(o) => o[..len].fill(value.as_f64() as f32),
        TensorData::BF16(o) => o[..len].fill(bf16::from_f64(value.as_f64())),
        TensorData::I32(o) => o[..len].fill(value.as_i64() as i32),
        TensorData::I64(o) => o[..len].fill(value.as_i64()),
        TensorData::Bool(o) => o[..len].fill(value.as_bool()),
    }
}

/// Fills element `i` with `at(i)`, an exact value of the dtype given as f64
/// (floats already rounded to f32 as the reference stores them).
fn fill_f64(
    threads: usize,
    out: &mut TensorData,
    len: usize,
    per_thread: usize,
    at: impl Fn(usize) -> f64 + Sync,
) {
    macro_rules! go {
        ($o:expr, |$x:ident| $conv:expr) => {
            for_chunks(threads, &mut $o[..len], 1, per_thread, |start, chunk| {
                for (j, slot) in chunk.iter_mut().enumerate() {
                    let $x = at(start + j);
                    *slot = $conv;
                }
            })
        };
    }
    match out {
        TensorData::F32(o) => go!(o, |x| x as f32),
        TensorData::BF16(o) => go!(o, |x| bf16::from_f32(x as f32)),
        TensorData::I32(o) => go!(o, |x| x as i64 as i32),
        TensorData::I64(o) => go!(o, |x| x as i64),
        TensorData::Bool(o) => go!(o, |x| x != 0.0),
    }
}
