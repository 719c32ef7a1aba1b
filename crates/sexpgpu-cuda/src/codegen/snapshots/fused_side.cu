// fused [Out, Side(0), Input(0)] Grid { n: 8 }
// prelude.rs: PRELUDE
extern "C" __global__ void sx_fused_2064b5e1fa9fe50b(float* __restrict__ out, float* __restrict__ side0, const float* __restrict__ in3) {
  for (unsigned g = (unsigned)blockIdx.x * blockDim.x + threadIdx.x; g < 8u; g += (unsigned)gridDim.x * blockDim.x) {
    const unsigned p0 = g * 4u;
    alignas(16) float out_lanes[4];
    sx_vcopy<sx_v16>(out_lanes, out + p0);
    alignas(16) float side0_lanes[4];
    sx_vcopy<sx_v16>(side0_lanes, side0 + p0);
    alignas(16) float in3_lanes[4];
    sx_vcopy<sx_v16>(in3_lanes, in3 + p0);
#pragma unroll
    for (unsigned v = 0; v < 4u; ++v) {
      float r0 = out_lanes[v];
      float r1 = side0_lanes[v];
      float r2 = __int_as_float(0x3f666666);
      float r3 = r1 * r2;
      float r4 = in3_lanes[v];
      float r5 = r3 + r4;
      float r6 = r0 - r5;
      out_lanes[v] = r6;
      side0_lanes[v] = r5;
    }
    sx_vcopy<sx_v16>(out + p0, out_lanes);
    sx_vcopy<sx_v16>(side0 + p0, side0_lanes);
  }
}
