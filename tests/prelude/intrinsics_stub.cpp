// flags: -I tests/syntax/include
// The same calls with the seed's <okl_intrinsic.h> (the stub of
// tests/syntax) included as well: no redeclaration error, no ambiguity.
#include <okl_intrinsic.h>

void copy(const int entries, const float *vec, float *s_vec, double *d) {
  for (int i = 0; i < entries; ++i) {
    okl_memcpy_async(s_vec[i], vec[i], 4);
    okl_memcpy_async(s_vec[i], d[i], 8, 4);
    okl_memcpy_async(s_vec + i, vec + i, 4);
    okl_pipeline_commit();
    okl_pipeline_wait_prior(0);
  }
}
