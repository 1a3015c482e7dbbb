// flags:
// A kernel whose <math.h>, <cmath>, <stdlib.h> oklc did not see (no
// OKLC_PRELUDE_SYSTEM_MATH): they still parse after the prelude, and calls
// on float and double arguments still resolve (integer arguments to the
// C math names would be ambiguous: the prelude's and <cmath>'s templates).
#include <math.h>
#include <cmath>
#include <stdlib.h>
#include <cstdlib>

template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };
#define TYPE(E, T) static_assert(same<decltype(E), T>::value, #E)

void kernel(const int entries, const float *x, const double *y, float *out, bool *flags) {
  for (int i = 0; i < entries; ++i) {
    const float f = x[i];
    const double d = y[i];
    out[i] = sqrt(f) + sqrtf(f) + fabs(f) + pow(f, 2.0f) + exp10(f) + rsqrt(f) + abs(f);
    out[i] += (float)(sqrt(d) + pow(d, 2.0) + fmin(d, 0.5) + abs(d) + atan2(d, d));
    out[i] += min(f, 1.0f) + max(f, 0.0f) + (float)max(1.0, 2.0) + (float)abs(-i);
    out[i] += std::sqrt(f) + (float)labs(-1l) + (float)M_PI;
    flags[i] = isnan(f) || isinf(d) || signbit(f);
    TYPE(sqrt(f), float); TYPE(pow(f, 2.0f), float); TYPE(abs(f), float);
    TYPE(abs(-1l), long); TYPE(isnan(f), bool);
  }
}
