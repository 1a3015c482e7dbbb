// flags: -DOKLC_BACKEND_CUDA -DOCCA_USE_CUDA=1 -DOKLC_PRELUDE_SYSTEM_MATH
// The CUDA section with the system <cmath> and the prelude's math together.
#include <cmath>
#include <cstdint>
#include "math.inc"

#if OCCA_USE_CUDA
extern "C" __global__ void normalizeAll(const int entries, float4 *v, float *len) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < entries) {
    len[i] = length(v[i]) + rsqrtf(dot(v[i], v[i])) + sqrtf(2.0f) + std::sqrt(len[i]);
    v[i] = normalize(v[i]) * min(len[i], 1.0f);
    atomicAdd(len, (float)max(1.0, 2.0) + (float)fabs(-1.0) + (float)pow(len[i], 2.0f));
  }
}
#endif
