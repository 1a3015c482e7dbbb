/*
 * hip.c - the HIP backend: CUDA's output (cuda.c) for AMD GPUs through
 * HIP, with HIP's header and its warp barrier.
 */
#include "backend.h"

static const GpuTarget hip = {
    OKLC_CUDA_SPELLINGS,
    .warp_barrier = "__builtin_amdgcn_wave_barrier();",
};

const Backend oklc_hip_backend = {
    .name = "hip",
    .id = OKLC_BACKEND_HIP,
    .macro = "HIP",
    .restrict_kw = "__restrict__",
    .includes = "#include <hip/hip_runtime.h>\n",
    .preamble = oklc_cuda_prelude,
    .gpu = &hip,
    .translate = oklc_gpu_translate,
};
