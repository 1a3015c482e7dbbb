// flags: -DOKLC_BACKEND_CUDA -DOCCA_USE_CUDA=1
// CUDA builtins in a kernel's `#if OCCA_USE_CUDA` block (oklc parses it
// for the CUDA backend).
#if OCCA_USE_CUDA
__device__ __forceinline__ float warpReduceSum(float value) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffff, value, offset);
  }
  return __shfl_sync(0xffffffff, value, 0);
}

__device__ double atomicMaxDouble(double *address, double value) {
  unsigned long long *bits = (unsigned long long *)address;
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, (unsigned long long)max(value, (double)assumed));
  } while (assumed != old);
  return (double)old;
}

extern "C" __global__ __launch_bounds__(256) void reduce(const int entries, const float *in,
                                                          float *out, int *count) {
  __shared__ float partial[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  float v = i < entries ? __ldg(&in[i]) : 0.0f;
  v = warpReduceSum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x / warpSize) ? partial[lane] : 0;
    v += __shfl_xor_sync(0xffffffff, v, 1) + __shfl_up_sync(0xffffffff, v, 1);
    __syncwarp();
    if (lane == 0) atomicAdd(out, v);
  }
  const unsigned ballot = __ballot_sync(__activemask(), v > 0);
  if (__any_sync(0xffffffff, v > 0) && __all_sync(0xffffffff, v >= 0)) {
    atomicAdd(count, __popc(ballot));
  }
  atomicSub(count, 1);
  atomicExch(count, 0);
  atomicMin(count, 1);
  atomicMax(count, 2);
  atomicAnd(count, 3);
  atomicOr(count, 4);
  atomicXor(count, 5);
  unsigned u = 0;
  atomicAdd(&u, 1);
  atomicInc(&u, 16);
  atomicDec(&u, 16);
  atomicCAS(count, 0, 1);
  unsigned long long big = 0;
  atomicAdd(&big, 1);
  atomicMax(&big, 2);
  double d = 0;
  atomicAdd(&d, 1.0);
  atomicMaxDouble(&d, 2.0);
  long long ll = 0;
  atomicMin(&ll, -1ll);
  __threadfence();
  __threadfence_block();
  if (__syncthreads_or(v > 0) && __syncthreads_and(1) && __syncthreads_count(1)) v = 1;
  half h = __float2half(v);
  __half h2 = 1.0f;
  out[gridDim.x + blockIdx.y + gridDim.z] = __half2float(h) + h2 + __expf(v) + __logf(v) +
                                           __sinf(v) + __cosf(v) + __powf(v, 2) +
                                           __fdividef(v, 3) + __saturatef(v);
  __half hs[2] = {h, h2};
  atomicAdd(&hs[0], h2);
  const int zeros = __clz(i) + __ffs(i) + __popcll(big);
  dim3 grid(1, 2);
  out[0] += (float)(zeros + grid.y + blockDim.z + threadIdx.z);
}
#endif
