// normal [Out, StreamKey] Grid { n: 15 }
// prelude.rs: PRELUDE RANDOM
extern "C" __global__ void sx_normal_3e7191b2f770dd69(float* __restrict__ out, unsigned k0, unsigned k1) {
  for (unsigned p = (unsigned)blockIdx.x * blockDim.x + threadIdx.x; p < 15u; p += (unsigned)gridDim.x * blockDim.x) {
    unsigned w0, w1;
    sx_threefry(k0, k1, 0u, (unsigned)p, &w0, &w1);
    double x = (double)(float)(__longlong_as_double(0x0000000000000000LL) + __longlong_as_double(0x3fe0000000000000LL) * sx_standard_normal(w0, w1));
    out[p] = (float)x;
  }
}
