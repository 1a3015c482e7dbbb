// flags: -DOKLC_BACKEND_CUDA
// The mask-less HIP shuffles are not CUDA's.
__device__ float f(float v) {
  return __shfl_down(v, 1); // ERROR: HIP only
}
