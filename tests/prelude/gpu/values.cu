// values.inc in CUDA and HIP, after src/backends/cuda_prelude.cuh (with
// the checks only these targets pass: mixed min/max/clamp, the elements form
// of okl_memcpy_async, warp shuffles). tests/prelude/gpu.sh compiles it
// with nvcc, NVRTC, hipcc and hiprtc; with -DVALUES_MAIN it is a program
// (nvcc or hipcc) that runs the kernel on one block of 64 threads and
// prints each failed check, which gpu.sh runs where a GPU is present.
#define HAS_DOUBLE 1
#define FN __device__ inline
#define GLOBAL
#define LOCAL
#define BARRIER __syncthreads()
#define ATOMIC_INC(p) atomicAdd((p), 1)
#include "values.inc"

extern "C" __global__ void values(int *result, const float *in) {
  __shared__ float4 tile[64];
  __shared__ float4 wide[128];
  __shared__ uchar small[256];
  values_all(result, in, (int)threadIdx.x, tile, wide, small);
}

#ifdef VALUES_MAIN
#include <stdio.h>
#if defined(__HIP__) || defined(__HIPCC__)
#define gpuMalloc hipMalloc
#define gpuMemcpy hipMemcpy
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuGetErrorString hipGetErrorString
#define gpuSuccess hipSuccess
#else
#define gpuMalloc cudaMalloc
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuGetErrorString cudaGetErrorString
#define gpuSuccess cudaSuccess
#endif
int main() {
  static int result[1024];
  static float in[256];
  for (int i = 0; i < 256; ++i) in[i] = (float)i;
  int *result_d = NULL;
  float *in_d = NULL;
  if (gpuMalloc((void **)&result_d, sizeof result) != gpuSuccess ||
      gpuMalloc((void **)&in_d, sizeof in) != gpuSuccess ||
      gpuMemcpy(result_d, result, sizeof result, gpuMemcpyHostToDevice) != gpuSuccess ||
      gpuMemcpy(in_d, in, sizeof in, gpuMemcpyHostToDevice) != gpuSuccess) {
    printf("values: cannot set up the device\n");
    return 1;
  }
  values<<<1, 64>>>(result_d, in_d);
  const auto status = gpuDeviceSynchronize();
  if (status != gpuSuccess ||
      gpuMemcpy(result, result_d, sizeof result, gpuMemcpyDeviceToHost) != gpuSuccess) {
    printf("values: the kernel failed: %s\n", gpuGetErrorString(status));
    return 1;
  }
  for (int i = 0; i < result[1] && i + 2 < 1024; ++i)
    printf("values.inc:%d: check failed\n", result[i + 2]);
  printf("values: %d checks, %d failed\n", result[0], result[1]);
  return result[0] == 0 || result[1] != 0;
}
#endif
