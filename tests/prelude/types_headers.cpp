// flags:
// The prelude's types are the C library's: its headers may follow.
#include <cstdint>
#include <stdint.h>
#include <cstddef>
#include <stddef.h>
#include <sys/types.h>
#include <climits>
#include <cfloat>

template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };

static_assert(same<std::size_t, size_t>::value && same<std::ptrdiff_t, ptrdiff_t>::value,
              "cstddef");
static_assert(same<std::int8_t, int8_t>::value && same<std::int64_t, int64_t>::value,
              "cstdint");
static_assert(same<std::uint8_t, uint8_t>::value && same<std::uint64_t, uint64_t>::value,
              "cstdint");
static_assert(same<std::intptr_t, intptr_t>::value && same<std::uintptr_t, uintptr_t>::value,
              "cstdint");
static_assert(same<u_int, uint>::value && same<u_long, ulong>::value, "sys/types.h");

void scale(const int entries, const float *in, float *out, int32_t *count) {
  for (size_t i = 0; i < (size_t)entries; ++i) {
    out[i] = in[i] < FLT_MAX ? in[i] * 2 : 0;
    if (*count < INT_MAX) ++*count;
  }
  ssize_t n = entries;
  uint16_t small = (uint16_t)n;
  ushort also = small;
  *count += also;
}
