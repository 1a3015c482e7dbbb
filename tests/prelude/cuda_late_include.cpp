// flags: -DOKLC_BACKEND_CUDA -DOCCA_USE_CUDA=1
// The CUDA section with a <cmath> oklc did not see (no
// OKLC_PRELUDE_SYSTEM_MATH: an editor's clangd reading a kernel whose math
// header comes through a "..." include): glibc declares __expf, __logf,
// __sinf, __cosf and __powf too, and the two declarations must agree.
#include <cmath>
#include <math.h>

#if OCCA_USE_CUDA
__device__ float fast(float x) {
  return __expf(x) + __logf(x) + __sinf(x) + __cosf(x) + __powf(x, 2.0f) + __fdividef(x, 2.0f) +
         std::sqrt(x) + sqrtf(x);
}
#endif
