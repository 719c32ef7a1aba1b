//! Kernels that make values from nothing: splats, `iota` and the random
//! fills, split over threads by element index. Random elements use the graph
//! crate's Threefry streams and transforms, rounded exactly as the
//! reference executor rounds them, so they are bit-identical. Reads no input.

use half::bf16;
use sexpgpu_graph::random::{
    element_bits, element_bits_lanes, largest_below, standard_normal, stream_key, unit_uniform,
};
use sexpgpu_graph::{DType, Scalar, TensorData};

use crate::parallel::for_chunks;
use sexpgpu_compile::Fill;

/// Random transforms are much slower than a store, so fewer elements
/// already pay for a thread.
const RANDOM_PER_THREAD: usize = 1 << 12;

/// Elements computed together: a block of the random streams' lanes.
const BLOCK: usize = 64;

pub(crate) fn run(threads: usize, fill: &Fill, seed: u64, out: &mut TensorData, len: usize) {
    match fill {
        Fill::Splat(value) => splat(out, len, *value),
        Fill::Iota { dims, axis } => {
            let stride: usize = dims[axis + 1..].iter().product::<usize>().max(1);
            let dim = dims[*axis].max(1);
            fill_f64(threads, out, len, 1 << 15, move |start, block| {
                iota_block(stride, dim, start, block)
            });
        }
        Fill::Normal { mean, std, stream } => {
            let key = stream_key(seed, *stream);
            let (mean, std) = (*mean, *std);
            let at = move |i: usize| {
                f64::from((mean + std * standard_normal(element_bits(key, i as u64))) as f32)
            };
            fill_f64(threads, out, len, RANDOM_PER_THREAD, each(at));
        }
        Fill::Uniform { low, high, stream } => {
            let draw = Uniform {
                key: stream_key(seed, *stream),
                low: *low,
                high: *high,
                top: f64::from(largest_below(*high, out.dtype())),
                bf16: out.dtype() == DType::BF16,
            };
            fill_f64(threads, out, len, RANDOM_PER_THREAD, |start, block| {
                draw.block(start, block)
            });
        }
    }
}

/// Elements `start..start + BLOCK` of an iota whose coordinate advances
/// every `stride` elements and wraps at `dim`: two divisions a block, not
/// two an element (an attention mask's `[1024, 1024]` positions took 2 ms
/// on two threads with them).
fn iota_block(stride: usize, dim: usize, start: usize, block: &mut [f64; BLOCK]) {
    let mut within = start % stride;
    let mut value = (start / stride) % dim;
    for slot in block.iter_mut() {
        *slot = value as f64;
        within += 1;
        if within == stride {
            within = 0;
            value += 1;
            if value == dim {
                value = 0;
            }
        }
    }
}

/// A block filler computing each element alone with `at`.
fn each(at: impl Fn(usize) -> f64 + Sync) -> impl Fn(usize, &mut [f64; BLOCK]) + Sync {
    move |start, block| {
        for (j, v) in block.iter_mut().enumerate() {
            *v = at(start + j);
        }
    }
}

/// A uniform stream's draws in `[low, high)`, rounded to the buffer's dtype.
#[derive(Clone, Copy)]
struct Uniform {
    key: [u32; 2],
    low: f64,
    high: f64,
    /// The largest value of the dtype below `high`.
    top: f64,
    bf16: bool,
}

impl Uniform {
    /// The draws of elements `start..start + BLOCK`, with the widest
    /// vectors the CPU has (every lane the scalar stream's element).
    fn block(&self, start: usize, out: &mut [f64; BLOCK]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            unsafe { self.block_avx512(start, out) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { self.block_avx2(start, out) };
            return;
        }
        self.block_lanes(start, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn block_avx512(&self, start: usize, out: &mut [f64; BLOCK]) {
        self.block_lanes(start, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn block_avx2(&self, start: usize, out: &mut [f64; BLOCK]) {
        self.block_lanes(start, out);
    }

    /// `low + (high - low) * u`, rounded to the dtype (bf16 through f32,
    /// like every bf16 result), then kept below `high` as the reference
    /// keeps the range half-open.
    #[inline(always)]
    fn block_lanes(&self, start: usize, out: &mut [f64; BLOCK]) {
        let (words, _) = element_bits_lanes::<BLOCK>(self.key, start as u64);
        let (low, high, top) = (self.low, self.high, self.top);
        let keep_below = |rounded: f64| {
            if low < high && rounded >= high {
                top
            } else {
                rounded
            }
        };
        let draws = out.iter_mut().zip(words);
        if self.bf16 {
            for (v, w) in draws {
                let x = low + (high - low) * unit_uniform([w, 0]);
                *v = keep_below(f64::from(bf16::from_f32(x as f32).to_f32()));
            }
        } else {
            for (v, w) in draws {
                let x = low + (high - low) * unit_uniform([w, 0]);
                *v = keep_below(f64::from(x as f32));
            }
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

/// Fills the elements block by block: `block(start, values)` gives the
/// values of elements `start..start + BLOCK`, exact values of the dtype as
/// f64 (floats already rounded to f32 as the reference stores them).
fn fill_f64(
    threads: usize,
    out: &mut TensorData,
    len: usize,
    per_thread: usize,
    block: impl Fn(usize, &mut [f64; BLOCK]) + Sync,
) {
    macro_rules! go {
        ($o:expr, |$x:ident| $conv:expr) => {
            for_chunks(
                threads,
                &mut $o[..len],
                BLOCK,
                per_thread,
                |start, chunk| {
                    let mut values = [0.0; BLOCK];
                    for (b, piece) in chunk.chunks_mut(BLOCK).enumerate() {
                        block(start + b * BLOCK, &mut values);
                        for (slot, &$x) in piece.iter_mut().zip(&values) {
                            *slot = $conv;
                        }
                    }
                },
            )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iota_blocks_count_as_the_division_does() {
        for (stride, dim) in [(1, 1), (1, 7), (3, 5), (64, 2), (100, 3), (1024, 1024)] {
            for start in [0, 1, 63, 64, 65, 299, 4096, 1 << 20] {
                let mut block = [0.0; BLOCK];
                iota_block(stride, dim, start, &mut block);
                let want: Vec<f64> = (start..start + BLOCK)
                    .map(|i| ((i / stride) % dim) as f64)
                    .collect();
                assert_eq!(
                    block.to_vec(),
                    want,
                    "stride {stride}, dim {dim}, start {start}"
                );
            }
        }
    }
}
