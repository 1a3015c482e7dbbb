// The checks of values.inc that need no device (VALUES_HOST: integer types,
// vector operators and make_*, min/max/clamp, geometry), run on the host:
// the prelude's functions are __host__ __device__, and this runs the same
// code on HIP's vector types (objects with accessors) and on CUDA's (plain
// structs, the prelude's operators) where no GPU is. tests/prelude/gpu.sh
// builds it after src/backends/cuda_prelude.cuh with nvcc and hipcc, and
// runs it.
#define VALUES_HOST 1
#define FN __host__ __device__ inline
#define GLOBAL
#define LOCAL
#define ATOMIC_INC(p) ((*(p))++)
#include "values.inc"
#include <stdio.h>

int main() {
  static int result[1024];
  static float in[256];
  for (int i = 0; i < 256; ++i) in[i] = (float)i;
  values_types(result, 0);
  values_vectors(result, in, 0);
  values_minmax(result, in, 0);
  values_geometry(result, in, 0);
  values_mixed(result, in, 0);
  for (int i = 0; i < result[1] && i + 2 < 1024; ++i)
    printf("tests/prelude/gpu/values.inc:%d: check failed on the host\n", result[i + 2]);
  if (result[0] == 0 || result[1] != 0) {
    printf("host: %d checks, %d failed\n", result[0], result[1]);
    return 1;
  }
  return 0;
}
