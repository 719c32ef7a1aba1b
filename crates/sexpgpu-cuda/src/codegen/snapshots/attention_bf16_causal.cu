// attention [Out, Side(0), Input(0), Input(1), Input(2)] Blocks { n: 2, threads: 128 }
// prelude.rs: PRELUDE ATTENTION
extern "C" __global__ void __launch_bounds__(128) sx_attention_0d7e582851254afd(unsigned short* __restrict__ out, float* __restrict__ side0, const unsigned short* __restrict__ in0, const unsigned short* __restrict__ in1, const unsigned short* __restrict__ in2) {
  __shared__ sx_v16 sx_smem[1088];
  unsigned short* const sx_rx = reinterpret_cast<unsigned short*>(sx_smem + 0);
  unsigned short* const sx_cx = reinterpret_cast<unsigned short*>(sx_smem + 320);
  unsigned short* const sx_cy = reinterpret_cast<unsigned short*>(sx_smem + 640);
  const unsigned warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;
  const unsigned g = lane / 4u, q = lane % 4u;
  const unsigned b = blockIdx.x / 1u;
  const unsigned r0 = blockIdx.x % 1u * 64u;
  const unsigned ra = r0 + warp * 16u + g, rb = ra + 8u;
  const unsigned base0 = 0u + (b / 1u % 2u) * 888u;
  const unsigned base1 = 0u + (b / 1u % 2u) * 1272u;
  const unsigned base2 = 0u + (b / 1u % 2u) * 2120u;
  for (unsigned x = threadIdx.x; x < 256u; x += 128u) {
    const unsigned r = x / 4u, c = x % 4u * 8u;
    unsigned short* d = sx_rx + r * 40u + c;
    if (r0 + r < 37u && c < 24u) {
      sx_vcopy<sx_v16>(d, in0 + base0 + (unsigned)(r0 + r) * 24u + c);
    } else {
      *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};
    }
  }
  float acc0[6][4] = {};
  float m_a = SX_NEG_INF, m_b = SX_NEG_INF, l_a = 0.f, l_b = 0.f;
  const unsigned c_end = (r0 + 64u < 53u ? r0 + 64u : 53u);
  for (unsigned c0 = 0u; c0 < c_end; c0 += 64u) {
    __syncthreads();
    for (unsigned x = threadIdx.x; x < 256u; x += 128u) {
      const unsigned r = x / 4u, c = x % 4u * 8u;
      unsigned short* d = sx_cx + r * 40u + c;
      if (c0 + r < 53u && c < 24u) {
        sx_vcopy<sx_v16>(d, in1 + base1 + (unsigned)(c0 + r) * 24u + c);
      } else {
        *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};
      }
    }
    for (unsigned x = threadIdx.x; x < 384u; x += 128u) {
      const unsigned r = x / 6u, c = x % 6u * 8u;
      unsigned short* d = sx_cy + r * 56u + c;
      if (c0 + r < 53u && c < 40u) {
        sx_vcopy<sx_v16>(d, in2 + base2 + (unsigned)(c0 + r) * 40u + c);
      } else {
        *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};
      }
    }
    __syncthreads();
    const bool edge = c0 + 64u > 53u || c0 + 64u > r0 + 1u;
    float s[8][4] = {};
    sx_att_nt<32, 64, 40, 40>(s, sx_rx + warp * 640u, sx_cx, g, q);
    float top_a = m_a, top_b = m_b;
#pragma unroll
    for (int n = 0; n < 8; ++n) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const unsigned r = i < 2 ? ra : rb, c = c0 + 8u * n + 2u * q + (i & 1);
        (void)r;
        s[n][i] = (!edge || (c < 53u && c <= r)) ? s[n][i] * __int_as_float(0x3e4ccccd) : SX_NEG_INF;
      }
      top_a = fmaxf(top_a, fmaxf(s[n][0], s[n][1]));
      top_b = fmaxf(top_b, fmaxf(s[n][2], s[n][3]));
    }
    top_a = sx_quad_max(top_a);
    top_b = sx_quad_max(top_b);
    const float base_a = top_a == SX_NEG_INF ? 0.f : top_a;
    const float base_b = top_b == SX_NEG_INF ? 0.f : top_b;
    const float shrink_a = expf(m_a - base_a), shrink_b = expf(m_b - base_b);
    m_a = top_a;
    m_b = top_b;
    float sum_a = 0.f, sum_b = 0.f;
#pragma unroll
    for (int n = 0; n < 8; ++n) {
      s[n][0] = expf(s[n][0] - base_a);
      s[n][1] = expf(s[n][1] - base_a);
      s[n][2] = expf(s[n][2] - base_b);
      s[n][3] = expf(s[n][3] - base_b);
      sum_a += s[n][0] + s[n][1];
      sum_b += s[n][2] + s[n][3];
    }
    l_a = l_a * shrink_a + sum_a;
    l_b = l_b * shrink_b + sum_b;
#pragma unroll
    for (int n = 0; n < 6; ++n) {
      acc0[n][0] *= shrink_a;
      acc0[n][1] *= shrink_a;
      acc0[n][2] *= shrink_b;
      acc0[n][3] *= shrink_b;
    }
    sx_att_pn<64, 48, 56>(acc0, s, sx_cy, nullptr, g, q);
  }
  l_a = sx_quad_sum(l_a);
  l_b = sx_quad_sum(l_b);
  const float inv_a = l_a > 0.f ? 1.f / l_a : 0.f;
  const float inv_b = l_b > 0.f ? 1.f / l_b : 0.f;
  (void)inv_a;
  (void)inv_b;
  if (q == 0u) {
    if (ra < 37u) side0[(unsigned)b * 37u + ra] = l_a > 0.f ? m_a + logf(l_a) : SX_NEG_INF;
    if (rb < 37u) side0[(unsigned)b * 37u + rb] = l_b > 0.f ? m_b + logf(l_b) : SX_NEG_INF;
  }
#pragma unroll
  for (int n = 0; n < 6; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const unsigned r = i < 2 ? ra : rb, c = 8u * n + 2u * q + (i & 1);
      if (r < 37u && c < 40u) out[((unsigned)b * 37u + r) * 40u + c] = sx_bf16_bits(sx_round_bf16(acc0[n][i] * (i < 2 ? inv_a : inv_b)));
    }
  }
}
