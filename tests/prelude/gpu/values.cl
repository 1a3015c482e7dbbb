// values.inc in OpenCL C, after src/backends/opencl_prelude.cl: run on the
// OpenCL device (PoCL) by tests/prelude/gpu.sh through clbuild -r values,
// with and without OKLC_PRELUDE_FP64 (doubles).
#ifdef OKLC_PRELUDE_FP64
#define HAS_DOUBLE 1
#endif
#define FN static inline
#define GLOBAL __global
#define LOCAL __local
#define BARRIER barrier(CLK_LOCAL_MEM_FENCE)
#define ATOMIC_INC(p) atomic_inc(p)
#include "values.inc"

__kernel void values(__global int *result, __global const float *in) {
  __local float4 tile[64];
  __local float4 wide[128];
  __local uchar small[256];
  values_all(result, in, (int)get_local_id(0), tile, wide, small);
}
