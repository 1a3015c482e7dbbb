// flags: -DOKLC_PRELUDE_SYSTEM_MATH
// With the system <cmath>, the C library's type headers still agree.
#include <cmath>
#include <cstdint>
#include <stdint.h>
#include <cstddef>
#include <stddef.h>
#include <sys/types.h>
#include <climits>
#include <cfloat>

template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };

static_assert(same<std::size_t, size_t>::value && same<std::int64_t, int64_t>::value,
              "types");

void norms(const int entries, const double *x, double *out, uint64_t *bits) {
  for (int64_t i = 0; i < entries; ++i) {
    out[i] = std::sqrt(x[i]) + sqrt(x[i]) + fabs(x[i]) * M_PI;
    bits[i] = (uint64_t)(out[i] < DBL_MAX);
  }
}
