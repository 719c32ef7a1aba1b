// normal [Out, StreamKey] Grid { n: 15 }
// SexpGPU generated kernel (crates/sexpgpu-cuda/src/codegen).
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
__device__ __forceinline__ unsigned sx_rotl(unsigned x, unsigned r) {
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
extern "C" __global__ void sx_normal_3e7191b2f770dd69(float* __restrict__ out, unsigned k0, unsigned k1) {
  for (unsigned p = (unsigned)blockIdx.x * blockDim.x + threadIdx.x; p < 15u; p += (unsigned)gridDim.x * blockDim.x) {
    unsigned w0, w1;
    sx_threefry(k0, k1, 0u, (unsigned)p, &w0, &w1);
    double x = (double)(float)(__longlong_as_double(0x0000000000000000LL) + __longlong_as_double(0x3fe0000000000000LL) * sx_standard_normal(w0, w1));
    out[p] = (float)x;
  }
}
