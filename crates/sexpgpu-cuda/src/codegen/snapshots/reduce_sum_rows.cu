// reduce-sum [Out, Input(0)] Grid { n: 4 }
// prelude.rs: PRELUDE
extern "C" __global__ void sx_reduce_sum_ba46febada03cee2(unsigned short* __restrict__ out, const unsigned short* __restrict__ in0) {
  for (unsigned p = (unsigned)blockIdx.x * blockDim.x + threadIdx.x; p < 4u; p += (unsigned)gridDim.x * blockDim.x) {
    unsigned o = p;
    double acc = 0.0;
    #pragma unroll 8
    for (unsigned r = 0; r < 8u; r += 1) {
      float x = sx_bf16_load(in0[0u + (r / 1u % 8u) * 1u + (o / 1u % 4u) * 8u]);
      acc = acc + (double)x;
    }
    out[o] = sx_bf16_bits(sx_round_bf16((float)acc));
  }
}
