//! Fills: splats, `iota`, and the random fills, whose element `i` is
//! Threefry-2x32 of counter `i` under the stream key (computed on the host
//! from the run seed and passed as two words), transformed in f64 and
//! rounded exactly as `sexpgpu-cpu`'s fill rounds it. The Threefry words
//! and the uniform transform are exact integer and IEEE arithmetic, so
//! they are bit-identical to the CPU; the normal transform's f64 `log` and
//! `cos` are CUDA's (within 1 ulp of f64), so a normal element differs
//! only where that last f64 bit moves its rounding to f32.

use sexpgpu_compile::Fill;
use sexpgpu_graph::random::largest_below;
use sexpgpu_graph::DType;

use super::c::{self, Index};
use super::{GenError, Param};

/// The kind, body and parameters of a fill of `len` elements of `dtype`.
pub fn generate(
    fill: &Fill,
    dtype: DType,
    len: usize,
) -> Result<(&'static str, String, Vec<Param>), GenError> {
    let ix = Index::for_extent(len);
    let out = c::ptr_param(dtype, "out", true);
    Ok(match fill {
        Fill::Splat(value) => {
            let v = c::stored_lit(*value, dtype);
            let body = format!("out[p] = {v};\n");
            (
                "fill",
                c::grid_kernel(&[out], len, ix, &body),
                vec![Param::Out],
            )
        }
        Fill::Iota { dims, axis } => {
            let stride: usize = dims[axis + 1..].iter().product::<usize>().max(1);
            let dim = dims[*axis].max(1);
            let at = format!(
                "double x = (double)(p / {} % {});\n",
                ix.lit(stride),
                ix.lit(dim)
            );
            let body = format!("{at}out[p] = {};\n", store_f64(dtype));
            (
                "iota",
                c::grid_kernel(&[out], len, ix, &body),
                vec![Param::Out],
            )
        }
        Fill::Normal { mean, std, .. } => {
            let body = format!(
                "{}double x = (double)(float)({} + {} * sx_standard_normal(w0, w1));\nout[p] = {};\n",
                words(ix),
                c::f64_lit(*mean),
                c::f64_lit(*std),
                store_f64(dtype)
            );
            random("normal", out, len, ix, &body)
        }
        Fill::Uniform { low, high, .. } => {
            let rounded = match dtype {
                DType::BF16 => "(double)sx_round_bf16((float)u)",
                _ => "(double)(float)u",
            };
            // The CPU keeps the range half-open by replacing a sample that
            // rounds up to `high` with the largest value below it.
            let top = f64::from(largest_below(*high, dtype));
            let clamp = if low < high {
                format!("if (x >= {}) x = {};\n", c::f64_lit(*high), c::f64_lit(top))
            } else {
                String::new()
            };
            let body = format!(
                "{}double u = {} + {} * sx_unit_uniform(w0);\ndouble x = {rounded};\n{clamp}out[p] = {};\n",
                words(ix),
                c::f64_lit(*low),
                c::f64_lit(high - low),
                store_f64(dtype)
            );
            random("uniform", out, len, ix, &body)
        }
    })
}

/// The two random words of element `p`.
fn words(ix: Index) -> String {
    let hi = match ix {
        Index::U32 => "0u".to_string(),
        Index::U64 => "(unsigned)(p >> 32)".to_string(),
    };
    format!("unsigned w0, w1;\nsx_threefry(k0, k1, {hi}, (unsigned)p, &w0, &w1);\n")
}

fn random(
    kind: &'static str,
    out: String,
    len: usize,
    ix: Index,
    body: &str,
) -> (&'static str, String, Vec<Param>) {
    let params = [out, "unsigned k0".to_string(), "unsigned k1".to_string()];
    (
        kind,
        c::grid_kernel(&params, len, ix, body),
        vec![Param::Out, Param::StreamKey],
    )
}

/// Stores the exact f64 `x` as the CPU's `fill_f64` converts it.
fn store_f64(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "(float)x",
        DType::BF16 => "sx_bf16_bits(sx_round_bf16((float)x))",
        DType::I32 => "(int)(unsigned)(unsigned long long)sx_f2l(x)",
        DType::I64 => "sx_f2l(x)",
        DType::Bool => "(unsigned char)(x != 0.0)",
    }
}
