// flags:
// OKL intrinsics (seed 000, "Experimental features") and okl::at.
const int block = 256;

// The seed's kernel: the copy takes the elements themselves.
void reductionWithSharedMemory(const int entries, const float *vec, float *blockSum) {
  for (int group = 0; group < ((entries + block - 1) / block); ++group) {
    float s_vec[block];
    for (int item = 0; item < block; ++item) {
      if ((group * block + item) < entries) {
        okl_memcpy_async(s_vec[item], vec[group * block + item], 4);
        okl_pipeline_commit();
        okl_pipeline_wait_prior(0);
      } else {
        s_vec[item] = 0;
      }
    }
    blockSum[group] = s_vec[0];
  }
}

// Through pointers, whole arrays, other types, zero fill.
void stage(const int entries, const double4 *in, double4 *out, const int *keys) {
  double4 tile[64];
  int k[64];
  for (int i = 0; i < entries; ++i) {
    okl_memcpy_async(&tile[i % 64], &in[i], sizeof(double4));
    okl_memcpy_async(tile + 1, in + i, 32, 0);
    okl_memcpy_async(k, keys, sizeof(k));
    okl_memcpy_async(tile[0], in[i], 32, 16);
    const void *src = in;
    void *dst = out;
    okl_memcpy_async(dst, src, 16);
    okl_pipeline_commit();
    okl_pipeline_wait_prior(1);
    out[i] = tile[i % 64];
  }
}

// Warp shuffles and exp10 of occa-transpiler's intrinsic header.
float warpSum(float value, int lane) {
  for (int offset = 16; offset > 0; offset /= 2) {
    value += okl_shfl_down_sync(0xffffffffu, value, offset);
  }
  value += okl_shfl_up_sync(0xffffffffu, value, 1u, 32);
  value += okl_shfl_xor_sync(0xffffffffu, value, 1);
  int broadcast = okl_shfl_sync(0xffffffffu, lane, 0);
  double d = okl_shfl_sync(0xffffffffu, 1.0, 0, 16);
  return value + (float)broadcast + (float)d + okl_exp10f(value);
}

// @dim arrays after normalization: m(i, j) became okl::at(m, i, j).
void transpose(const int n, const float *a, float *b, int *counts) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      okl::at(b, j, i) = okl::at(a, i, j);
      okl::at(b, i, j) += 1.0f;
      okl::at(counts, i, j, 0)++;
      const float &c = okl::at(a, i);
      okl::at(b, 0) = c;
    }
  }
}
