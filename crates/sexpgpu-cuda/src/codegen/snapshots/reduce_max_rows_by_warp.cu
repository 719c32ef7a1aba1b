// reduce-max [Out, Input(0)] Blocks { n: 8, threads: 256 }
// prelude.rs: PRELUDE
extern "C" __global__ void sx_reduce_max_2ddce9790e6b91b8(float* __restrict__ out, const float* __restrict__ in0) {
  unsigned o = (unsigned)blockIdx.x * 8u + threadIdx.x / 32u;
  unsigned lane = threadIdx.x % 32u;
  float acc = SX_NEG_INF;
  if (o < 64u) {
    #pragma unroll 8
    for (unsigned r = lane; r < 1024u; r += 32u) {
      float x = in0[0u + (r / 1u % 1024u) * 1u + (o / 1u % 64u) * 1024u];
      acc = sx_max(acc, x);
    }
  }
  for (int m = 16; m > 0; m >>= 1) {
    float other = __shfl_xor_sync(0xffffffffu, acc, m);
    acc = sx_max(acc, other);
  }
  if (lane == 0u && o < 64u) out[o] = acc;
}
