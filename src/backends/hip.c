/*
 * hip.c - the HIP backend: CUDA's output (cuda.c) for AMD GPUs through
 * HIP, with HIP's header and its warp barrier.
 */
#include "backend.h"

static const GpuTarget hip = {
    .kernel_specs = "extern \"C\" __global__",
    .device_specs = "__device__",
    .shared = "__shared__",
    .block_index = {"blockIdx.x", "blockIdx.y", "blockIdx.z"},
    .thread_index = {"threadIdx.x", "threadIdx.y", "threadIdx.z"},
    .barrier = "__syncthreads();",
    .warp_barrier = "__builtin_amdgcn_wave_barrier();",
    .constant_var = "__constant__",
    .global_var = "__device__",
    .unroll = oklc_cuda_unroll,
    .launch_hint = oklc_cuda_launch_hint,
    .atomic = oklc_cuda_atomic,
};

const Backend oklc_hip_backend = {
    .name = "hip",
    .id = OKLC_BACKEND_HIP,
    .restrict_kw = "__restrict__",
    .includes = "#include <hip/hip_runtime.h>\n",
    .preamble = oklc_cuda_prelude,
    .gpu = &hip,
    .translate = oklc_gpu_translate,
};
