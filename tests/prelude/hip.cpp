// flags: -DOKLC_BACKEND_HIP -DOCCA_USE_HIP=1
// HIP builtins in a kernel's `#if OCCA_USE_HIP` block: 64-bit lane masks,
// and the shuffles without a mask.
#if OCCA_USE_HIP
__device__ inline float waveReduceSum(float value) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_down(value, offset);
  }
  return __shfl(value, 0) + __shfl_up(value, 1) + __shfl_xor(value, 1, 32);
}

extern "C" __global__ __launch_bounds__(256) void reduce(const int entries, const float *in,
                                                          float *out, unsigned *count) {
  __shared__ float partial[16];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < entries ? in[i] : 0.0f;
  v = waveReduceSum(v);
  partial[threadIdx.x % 16] = v;
  __syncthreads();
  const unsigned long long lanes = __ballot(v > 0);
  const unsigned long long active = __ballot_sync(0xffffffffffffffffull, v > 0);
  v += __shfl_down_sync(0xffffffffffffffffull, v, 1);
  atomicAdd(out, v + partial[0]);
  atomicAdd(count, (unsigned)__popcll(lanes & active));
}
#endif
