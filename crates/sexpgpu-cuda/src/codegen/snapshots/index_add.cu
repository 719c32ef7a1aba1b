// index-add [Out, Input(0), Input(1), Input(2), ErrorWord] Grid { n: 15 }
// prelude.rs: PRELUDE ERRORS
extern "C" __global__ void sx_index_add_16d38f72a0d1b77b(float* __restrict__ out, const float* __restrict__ base, const int* __restrict__ ids, const float* __restrict__ values, unsigned long long* __restrict__ err) {
  for (unsigned p = (unsigned)blockIdx.x * blockDim.x + threadIdx.x; p < 15u; p += (unsigned)gridDim.x * blockDim.x) {
    unsigned r = p / 5u, col = p % 5u;
    double acc = (double)base[0u + p];
    for (unsigned j = 0; j < 6u; ++j) {
      long long id = (long long)ids[0u + j];
      bool bad = id < 0 || id >= 3LL;
      if (bad) sx_bad_id(err, id, 3ull, 2ull);
      if (!bad && (unsigned)id == r) acc = acc + (double)values[0u + j * 5u + col];
    }
    out[p] = (float)acc;
  }
}
