//! The device helpers every generated kernel starts with: bf16 as bits and
//! its round-to-nearest-even (the CPU's `round_bf16`, bit for bit), the
//! reference's saturating casts, NaN-propagating max/min, wrapping integer
//! arithmetic, and Threefry-2x32 with the uniform and normal transforms of
//! `sexpgpu_graph::random`. Written without any CUDA header, so NVRTC
//! needs no include path and compiles each kernel quickly.

/// Helpers for elementwise kernels (every kernel gets these).
pub const PRELUDE: &str = r#"// SexpGPU generated kernel (crates/sexpgpu-cuda/src/codegen).
#define SX_NAN __int_as_float(0x7fc00000)
#define SX_NEG_INF __int_as_float(0xff800000)
__device__ __forceinline__ float sx_round_bf16(float x) {
  unsigned b = __float_as_uint(x);
  if (x != x) return __uint_as_float((b & 0xffff0000u) | 0x00400000u);
  return __uint_as_float((b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u);
}
__device__ __forceinline__ float sx_bf16_load(unsigned short b) {
  return __uint_as_float(((unsigned)b) << 16);
}
__device__ __forceinline__ unsigned short sx_bf16_bits(float x) {
  return (unsigned short)(__float_as_uint(x) >> 16);
}
__device__ __forceinline__ float sx_max(float a, float b) {
  return (a != a || b != b) ? SX_NAN : fmaxf(a, b);
}
__device__ __forceinline__ float sx_min(float a, float b) {
  return (a != a || b != b) ? SX_NAN : fminf(a, b);
}
__device__ __forceinline__ int sx_wadd(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int sx_wsub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int sx_wmul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ int sx_wneg(int a) { return (int)(0u - (unsigned)a); }
__device__ __forceinline__ int sx_wabs(int a) { return a < 0 ? sx_wneg(a) : a; }
__device__ __forceinline__ long long sx_wadd(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
__device__ __forceinline__ long long sx_wsub(long long a, long long b) {
  return (long long)((unsigned long long)a - (unsigned long long)b);
}
__device__ __forceinline__ long long sx_wmul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}
__device__ __forceinline__ long long sx_wneg(long long a) {
  return (long long)(0ull - (unsigned long long)a);
}
__device__ __forceinline__ long long sx_wabs(long long a) { return a < 0 ? sx_wneg(a) : a; }
// Groups of elements moved in one aligned load or store (fused loops).
struct alignas(8) sx_v8 { unsigned x, y; };
struct alignas(16) sx_v16 { unsigned x, y, z, w; };
template <class V, class T> __device__ __forceinline__ void sx_vcopy(T* dst, const T* src) {
  *reinterpret_cast<V*>(dst) = *reinterpret_cast<const V*>(src);
}
// Rust's `as`: truncate toward zero, saturate, NaN to 0.
__device__ __forceinline__ int sx_f2i(double x) {
  if (x != x) return 0;
  if (x >= 2147483647.0) return 2147483647;
  if (x <= -2147483648.0) return (int)0x80000000u;
  return (int)x;
}
__device__ __forceinline__ long long sx_f2l(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775807.0) return 9223372036854775807LL;
  if (x <= -9223372036854775808.0) return (long long)0x8000000000000000ull;
  return (long long)x;
}
"#;

/// Threefry-2x32 (20 rounds) and the transforms, for random fills only.
pub const RANDOM: &str = r#"__device__ __forceinline__ unsigned sx_rotl(unsigned x, unsigned r) {
  return (x << r) | (x >> (32u - r));
}
__device__ __forceinline__ void sx_threefry(unsigned k0, unsigned k1, unsigned c0, unsigned c1,
                                            unsigned* o0, unsigned* o1) {
  const unsigned ks[3] = {k0, k1, k0 ^ k1 ^ 0x1bd11bdau};
  const unsigned rot[2][4] = {{13u, 15u, 26u, 6u}, {17u, 29u, 16u, 24u}};
  unsigned x0 = c0 + ks[0], x1 = c1 + ks[1];
#pragma unroll
  for (unsigned g = 0; g < 5u; ++g) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = sx_rotl(x1, rot[g % 2u][r]) ^ x0;
    }
    x0 += ks[(g + 1u) % 3u];
    x1 += ks[(g + 2u) % 3u] + g + 1u;
  }
  *o0 = x0;
  *o1 = x1;
}
// (w0 >> 8) * 2^-24, in [0, 1).
__device__ __forceinline__ double sx_unit_uniform(unsigned w0) {
  return (double)(w0 >> 8) * 5.9604644775390625e-08;
}
// Box-Muller in f64, cosine half only (sexpgpu_graph::random::standard_normal).
__device__ __forceinline__ double sx_standard_normal(unsigned w0, unsigned w1) {
  double u1 = ((double)(w0 >> 8) + 1.0) * 5.9604644775390625e-08;
  double u2 = (double)(w1 >> 8) * 5.9604644775390625e-08;
  return sqrt(-2.0 * log(u1)) * cos(__longlong_as_double(0x401921fb54442d18LL) * u2);
}
"#;

/// The error word of data-dependent kernels: `[set, id, axis length, op]`,
/// written once by the first thread to find an id outside its axis, read
/// by the host when it next synchronises.
pub const ERRORS: &str = r#"__device__ __forceinline__ void sx_bad_id(unsigned long long* err, long long id,
                                          unsigned long long len, unsigned long long op) {
  if (atomicCAS(err, 0ull, 1ull) == 0ull) {
    err[1] = (unsigned long long)id;
    err[2] = len;
    err[3] = op;
  }
}
"#;

/// The op codes in the error word, in the order the host decodes them.
pub const ERROR_OPS: [&str; 4] = ["index", "gather", "index-add", "scatter-add"];

/// The tile products and reductions of fused attention's kernels
/// (`attention.rs`, `docs/sexpgpu/cuda.md`, "Fused attention"). A warp owns
/// 16 rows; a `[16 x N]` tile of f32 values lives in its lanes as the
/// accumulator fragments of `mma.m16n8k16` (PTX ISA, "Matrix Fragments for
/// mma.m16n8k16 with floating point type"): lane `l` holds, for each
/// 8-column group `n`, rows `l / 4` and `l / 4 + 8` at columns
/// `8n + 2(l % 4)` and the one after, as `acc[n][0..2]` and `acc[n][2..4]`.
/// bf16 products run on the tensor cores (`sx_mma_bf16_16816`: the
/// instruction on the device; the host emulation test supplies its own,
/// since the host compiler defines no `__CUDA_ARCH__`); f32 products run
/// on the CUDA cores in the same layout, so everything after them is
/// shared.
pub const ATTENTION: &str = r#"#ifdef __CUDA_ARCH__
// c += a b: one warp's 16x8x16 bf16 product with f32 accumulators.
__device__ __forceinline__ void sx_mma_bf16_16816(float* c, const unsigned* a, const unsigned* b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif
// Two consecutive bf16 of shared memory (4-byte aligned) as one register.
__device__ __forceinline__ unsigned sx_ld_pair(const unsigned short* p) {
  return *reinterpret_cast<const unsigned*>(p);
}
// Two bf16 `p[0]` and `p[stride]` as one register, the first in the low half.
__device__ __forceinline__ unsigned sx_ld_pair_strided(const unsigned short* p, unsigned stride) {
  return (unsigned)p[0] | ((unsigned)p[stride] << 16);
}
// Two f32 rounded to bf16 (the CPU's rounding) in one register, `lo` low.
__device__ __forceinline__ unsigned sx_pack_bf16(float lo, float hi) {
  return (unsigned)sx_bf16_bits(sx_round_bf16(lo)) | ((unsigned)sx_bf16_bits(sx_round_bf16(hi)) << 16);
}
// The maximum and sum over the 4 lanes holding one row's fragments.
__device__ __forceinline__ float sx_quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float sx_quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}
// The sum over a warp's lanes, in every lane.
__device__ __forceinline__ float sx_warp_sum(float x) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) x += __shfl_xor_sync(0xffffffffu, x, m);
  return x;
}
// acc[N/8] += a b^T: the warp's 16 rows of `a` (row stride AS) by the N
// rows of `b` (row stride BS), K columns (a multiple of 16) of bf16 in
// shared memory; both fragments are pairs of consecutive columns.
template <int K, int N, int AS, int BS>
__device__ __forceinline__ void sx_att_nt(float (*acc)[4], const unsigned short* a,
                                          const unsigned short* b, unsigned g, unsigned q) {
#pragma unroll
  for (int k = 0; k < K; k += 16) {
    const unsigned short* pa = a + g * AS + k + 2 * q;
    unsigned fa[4] = {sx_ld_pair(pa), sx_ld_pair(pa + 8 * AS), sx_ld_pair(pa + 8),
                      sx_ld_pair(pa + 8 * AS + 8)};
#pragma unroll
    for (int n = 0; n < N / 8; ++n) {
      const unsigned short* pb = b + (8 * n + g) * BS + k + 2 * q;
      unsigned fb[2] = {sx_ld_pair(pb), sx_ld_pair(pb + 8)};
      sx_mma_bf16_16816(acc[n], fa, fb);
    }
  }
}
// The same in f32 on the CUDA cores, K any width: each lane computes its
// own fragments, 2 rows by 2N/8 columns, one column of `a` and `b` at a time.
template <int K, int N, int AS, int BS>
__device__ __forceinline__ void sx_att_nt(float (*acc)[4], const float* a, const float* b,
                                          unsigned g, unsigned q) {
#pragma unroll 4
  for (int k = 0; k < K; ++k) {
    const float a0 = a[g * AS + k], a1 = a[(g + 8) * AS + k];
#pragma unroll
    for (int n = 0; n < N / 8; ++n) {
      const float b0 = b[(8 * n + 2 * q) * BS + k], b1 = b[(8 * n + 2 * q + 1) * BS + k];
      acc[n][0] += a0 * b0;
      acc[n][1] += a0 * b1;
      acc[n][2] += a1 * b0;
      acc[n][3] += a1 * b1;
    }
  }
}
// acc[N/8] += p b: the warp's 16 rows of weights `p` (K columns in
// accumulator fragments, K a multiple of 16) by `b` (K rows of stride BS,
// N columns) of bf16 in shared memory. Two adjacent 8-column groups of
// accumulators are exactly the A fragment of a 16-wide step
// (FlashAttention-2's reuse). The weights are split into two bf16 terms,
// `hi = bf16(p)` and `lo = bf16(p - hi)`, each multiplied on the tensor
// cores: `p` keeps 16 bits instead of 8, so the result agrees with the
// CPU's f32 weights (a result summing many terms that cancel, as a
// gradient's, differed by several bf16 steps with `hi` alone); `scratch`
// is unused.
__device__ __forceinline__ void sx_split_bf16(float x, float y, unsigned* hi, unsigned* lo) {
  const float hx = sx_round_bf16(x), hy = sx_round_bf16(y);
  *hi = (unsigned)sx_bf16_bits(hx) | ((unsigned)sx_bf16_bits(hy) << 16);
  *lo = sx_pack_bf16(x - hx, y - hy);
}
template <int K, int N, int BS>
__device__ __forceinline__ void sx_att_pn(float (*acc)[4], const float (*p)[4],
                                          const unsigned short* b, float* scratch, unsigned g,
                                          unsigned q) {
#pragma unroll
  for (int k = 0; k < K / 16; ++k) {
    unsigned hi[4], lo[4];
    sx_split_bf16(p[2 * k][0], p[2 * k][1], &hi[0], &lo[0]);
    sx_split_bf16(p[2 * k][2], p[2 * k][3], &hi[1], &lo[1]);
    sx_split_bf16(p[2 * k + 1][0], p[2 * k + 1][1], &hi[2], &lo[2]);
    sx_split_bf16(p[2 * k + 1][2], p[2 * k + 1][3], &hi[3], &lo[3]);
#pragma unroll
    for (int n = 0; n < N / 8; ++n) {
      const unsigned short* pb = b + (16 * k + 2 * q) * BS + 8 * n + g;
      unsigned fb[2] = {sx_ld_pair_strided(pb, BS), sx_ld_pair_strided(pb + 8 * BS, BS)};
      sx_mma_bf16_16816(acc[n], lo, fb);
      sx_mma_bf16_16816(acc[n], hi, fb);
    }
  }
}
// The same in f32: the weights go through the warp's `scratch` rows
// (16 x (K + 4)), since each lane needs whole rows of them.
template <int K, int N, int BS>
__device__ __forceinline__ void sx_att_pn(float (*acc)[4], const float (*p)[4], const float* b,
                                          float* scratch, unsigned g, unsigned q) {
  constexpr int PS = K + 4;
#pragma unroll
  for (int n = 0; n < K / 8; ++n) {
    scratch[g * PS + 8 * n + 2 * q] = p[n][0];
    scratch[g * PS + 8 * n + 2 * q + 1] = p[n][1];
    scratch[(g + 8) * PS + 8 * n + 2 * q] = p[n][2];
    scratch[(g + 8) * PS + 8 * n + 2 * q + 1] = p[n][3];
  }
  __syncwarp();
#pragma unroll 4
  for (int k = 0; k < K; ++k) {
    const float p0 = scratch[g * PS + k], p1 = scratch[(g + 8) * PS + k];
#pragma unroll
    for (int n = 0; n < N / 8; ++n) {
      const float b0 = b[k * BS + 8 * n + 2 * q], b1 = b[k * BS + 8 * n + 2 * q + 1];
      acc[n][0] += p0 * b0;
      acc[n][1] += p0 * b1;
      acc[n][2] += p1 * b0;
      acc[n][3] += p1 * b1;
    }
  }
  __syncwarp();
}
"#;
