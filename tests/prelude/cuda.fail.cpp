// flags:
// Without OKLC_BACKEND_CUDA/HIP the CUDA names are not declared.
void kernel(float *out, int *count) {
  __syncthreads(); // ERROR: CUDA only
  out[threadIdx.x] = 0; // ERROR: CUDA only
  atomicAdd(count, 1); // ERROR: CUDA only
  out[0] = __shfl_down_sync(0xffffffffu, out[0], 1); // ERROR: CUDA only
  __half h = 1.0f; // ERROR: CUDA only (half is every backend's)
}
