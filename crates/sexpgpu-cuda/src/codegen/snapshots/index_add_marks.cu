// index-add [Out, Input(1), ErrorWord] Grid { n: 100 }
// prelude.rs: PRELUDE ERRORS
extern "C" __global__ void sx_index_add_dc8e3ae37eb977bb(float* __restrict__ out, const int* __restrict__ ids, unsigned long long* __restrict__ err) {
  for (unsigned p = (unsigned)blockIdx.x * blockDim.x + threadIdx.x; p < 100u; p += (unsigned)gridDim.x * blockDim.x) {
    long long id = (long long)ids[0u + p];
    if (id < 0 || id >= 50LL) { sx_bad_id(err, id, 50ull, 2ull); } else {
      for (unsigned c = 0; c < 2u; ++c) out[(unsigned)id * 300u + c * 256u] = __int_as_float(0x7fe5a5a5);
    }
  }
}
