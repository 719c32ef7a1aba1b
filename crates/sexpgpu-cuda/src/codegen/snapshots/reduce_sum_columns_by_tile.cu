// reduce-sum [Out, Input(0)] Blocks { n: 24, threads: 1024 }
// prelude.rs: PRELUDE
extern "C" __global__ void __launch_bounds__(1024) sx_reduce_sum_6b891e933b47f163(float* __restrict__ out, const float* __restrict__ in0) {
  __shared__ double part[1024];
  unsigned lane = threadIdx.x % 32u, slice = threadIdx.x / 32u;
  unsigned o = (unsigned)blockIdx.x * 32u + lane;
  double acc = 0.0;
  if (o < 768u) {
    #pragma unroll 8
    for (unsigned r = slice; r < 8192u; r += 32u) {
      float x = in0[0u + (o / 1u % 768u) * 1u + (r / 1u % 8192u) * 768u];
      acc = acc + (double)x;
    }
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  if (slice == 0u && o < 768u) {
    for (unsigned k = 1u; k < 32u; ++k) {
      acc = acc + (double)part[k * 32u + lane];
    }
    out[o] = (float)acc;
  }
}
