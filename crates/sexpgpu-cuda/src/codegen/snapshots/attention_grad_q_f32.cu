// attention-grad-q [Out, Input(0), Input(1), Input(2), Input(3), Input(4), Input(5)] Blocks { n: 2, threads: 128 }
// prelude.rs: PRELUDE ATTENTION
extern "C" __global__ void __launch_bounds__(128) sx_attention_grad_q_ac5a58f2d79edf25(float* __restrict__ out, const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5) {
  __shared__ sx_v16 sx_smem[2688];
  float* const sx_rx = reinterpret_cast<float*>(sx_smem + 0);
  float* const sx_ry = reinterpret_cast<float*>(sx_smem + 576);
  float* const sx_cx = reinterpret_cast<float*>(sx_smem + 1408);
  float* const sx_cy = reinterpret_cast<float*>(sx_smem + 1696);
  float* const sx_scratch = reinterpret_cast<float*>(sx_smem + 2112);
  const unsigned warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;
  const unsigned g = lane / 4u, q = lane % 4u;
  const unsigned b = blockIdx.x / 1u;
  const unsigned r0 = blockIdx.x % 1u * 64u;
  const unsigned ra = r0 + warp * 16u + g, rb = ra + 8u;
  const unsigned base0 = 0u + (b / 1u % 2u) * 888u;
  const unsigned base1 = 0u + (b / 1u % 2u) * 1272u;
  const unsigned base2 = 0u + (b / 1u % 2u) * 2120u;
  const unsigned base3 = 0u + (b / 1u % 2u) * 1480u;
  const unsigned base4 = 0u + (b / 1u % 2u) * 37u;
  const unsigned base5 = 0u + (b / 1u % 2u) * 37u;
  for (unsigned x = threadIdx.x; x < 512u; x += 128u) {
    const unsigned r = x / 8u, c = x % 8u * 4u;
    float* d = sx_rx + r * 36u + c;
    if (r0 + r < 37u && c < 24u) {
      sx_vcopy<sx_v16>(d, in0 + base0 + (unsigned)(r0 + r) * 24u + c);
    } else {
      *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};
    }
  }
  for (unsigned x = threadIdx.x; x < 768u; x += 128u) {
    const unsigned r = x / 12u, c = x % 12u * 4u;
    float* d = sx_ry + r * 52u + c;
    if (r0 + r < 37u && c < 40u) {
      sx_vcopy<sx_v16>(d, in3 + base3 + (unsigned)(r0 + r) * 40u + c);
    } else {
      *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};
    }
  }
  const float lse_a = ra < 37u ? in4[base4 + (unsigned)(ra) * 1u] : 0.f, lse_b = rb < 37u ? in4[base4 + (unsigned)(rb) * 1u] : 0.f;
  const float delta_a = ra < 37u ? in5[base5 + (unsigned)(ra) * 1u] : 0.f, delta_b = rb < 37u ? in5[base5 + (unsigned)(rb) * 1u] : 0.f;
  float acc0[4][4] = {};
  const unsigned c_end = (r0 + 64u < 53u ? r0 + 64u : 53u);
  for (unsigned c0 = 0u; c0 < c_end; c0 += 32u) {
    __syncthreads();
    for (unsigned x = threadIdx.x; x < 256u; x += 128u) {
      const unsigned r = x / 8u, c = x % 8u * 4u;
      float* d = sx_cx + r * 36u + c;
      if (c0 + r < 53u && c < 24u) {
        sx_vcopy<sx_v16>(d, in1 + base1 + (unsigned)(c0 + r) * 24u + c);
      } else {
        *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};
      }
    }
    for (unsigned x = threadIdx.x; x < 384u; x += 128u) {
      const unsigned r = x / 12u, c = x % 12u * 4u;
      float* d = sx_cy + r * 52u + c;
      if (c0 + r < 53u && c < 40u) {
        sx_vcopy<sx_v16>(d, in2 + base2 + (unsigned)(c0 + r) * 40u + c);
      } else {
        *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};
      }
    }
    __syncthreads();
    const bool edge = c0 + 32u > 53u || c0 + 32u > r0 + 1u;
    float s[4][4] = {};
    sx_att_nt<24, 32, 36, 36>(s, sx_rx + warp * 576u, sx_cx, g, q);
    float dp[4][4] = {};
    sx_att_nt<40, 32, 52, 52>(dp, sx_ry + warp * 832u, sx_cy, g, q);
#pragma unroll
    for (int n = 0; n < 4; ++n) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const unsigned r = i < 2 ? ra : rb, c = c0 + 8u * n + 2u * q + (i & 1);
        (void)r;
        const float p = (!edge || (c < 53u && c <= r)) ? expf(s[n][i] * __int_as_float(0x3e4ccccd) - (i < 2 ? lse_a : lse_b)) : 0.f;
        s[n][i] = p;
        dp[n][i] = p * (dp[n][i] - (i < 2 ? delta_a : delta_b));
      }
    }
    sx_att_pn<32, 32, 36>(acc0, dp, sx_cx, sx_scratch + warp * 576u, g, q);
  }
#pragma unroll
  for (int n = 0; n < 4; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const unsigned r = i < 2 ? ra : rb, c = 8u * n + 2u * q + (i & 1);
      if (r < 37u && c < 24u) out[((unsigned)b * 37u + r) * 24u + c] = acc0[n][i] * __int_as_float(0x3e4ccccd);
    }
  }
}
