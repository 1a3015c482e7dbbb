/*
 * metal_prelude.metal - what every file of the Metal backend starts with:
 * oklc pastes this text at the top of the Metal Shading Language (2.4) it
 * generates.
 *
 * Metal has most of what include/oklc/okl.hpp (the parse prelude) declares:
 * int8_t ... uint64_t, size_t, ptrdiff_t, uchar, ushort, uint, ulong; the
 * vector types char2 ... float4 with their operators; the math functions
 * on float under their plain names (sqrt, pow, rsqrt, exp10, sinpi, ...);
 * min, max, clamp, abs; dot, length, distance, normalize, cross. This file
 * adds what it lacks:
 *  - make_<type>N(x, y, ...) for char, uchar, short, ushort, int, uint and
 *    float, widths 2 to 4 (Metal writes float4(x, y, z, w));
 *  - the C names with a suffix: sqrtf ... fmaxf, rsqrtf, rcbrtf, exp10f,
 *    sinpif, cospif, sincosf(x, &s, &c), rcbrt, sincos(x, &s, &c) (on
 *    pointers to thread memory), labs, hypot, hypotf;
 *  - M_PI and the other constants of <math.h>, as floats;
 *  - _occa_atomic_add(p, v) on a float in device or threadgroup memory:
 *    atomic_float (device memory, Metal 3 and later), else a
 *    compare-and-swap loop on the float's bits as atomic_uint;
 *  - _occa_assign(x, y): x = y of a struct, a side in device, threadgroup
 *    or constant memory;
 *  - the intrinsics that make sense: okl_memcpy_async as a plain copy from
 *    device to threadgroup memory, okl_pipeline_commit and
 *    okl_pipeline_wait_prior as nothing, okl_exp10f.
 *
 * What a kernel may trip on (OKL elsewhere is C++ without address spaces):
 *  - no double (oklc reports it); a literal such as 0.5 is a float;
 *  - float3 (every 3-vector) has the size and alignment of a 4-vector;
 *  - a vector with a scalar of another type (int2 * 0.5f) is an error;
 *  - pointers and references carry an address space (device, threadgroup,
 *    constant, thread): oklc writes them, and a function called with
 *    pointers into different spaces once per combination;
 *  - no warp shuffles, no printf.
 *
 * Names of its own start with _occa_; its helper macros are undefined at
 * the end.
 */
#include <metal_stdlib>
using namespace metal;

/* ---- make_<type>N. */
#define _occa_MAKE(T)                                                                  \
  inline T##2 make_##T##2(T x, T y) { T##2 r; r.x = x; r.y = y; return r; }            \
  inline T##3 make_##T##3(T x, T y, T z) { T##3 r; r.x = x; r.y = y; r.z = z; return r; } \
  inline T##4 make_##T##4(T x, T y, T z, T w) {                                        \
    T##4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r;                              \
  }
_occa_MAKE(char) _occa_MAKE(uchar) _occa_MAKE(short) _occa_MAKE(ushort) _occa_MAKE(int)
_occa_MAKE(uint) _occa_MAKE(float)

/* ---- The C names of the float functions, and the extras. */
#define _occa_F1(F) inline float F##f(float x) { return F(x); }
#define _occa_F2(F) inline float F##f(float x, float y) { return F(x, y); }
_occa_F1(sqrt) _occa_F1(cbrt) _occa_F1(exp) _occa_F1(exp2) _occa_F1(log) _occa_F1(log2)
_occa_F1(log10) _occa_F1(sin) _occa_F1(cos) _occa_F1(tan) _occa_F1(asin) _occa_F1(acos)
_occa_F1(atan) _occa_F1(sinh) _occa_F1(cosh) _occa_F1(tanh) _occa_F1(asinh) _occa_F1(acosh)
_occa_F1(atanh) _occa_F1(fabs) _occa_F1(floor) _occa_F1(ceil) _occa_F1(round)
_occa_F1(trunc) _occa_F1(rint) _occa_F1(rsqrt) _occa_F1(exp10) _occa_F1(sinpi)
_occa_F1(cospi)
_occa_F2(pow) _occa_F2(atan2) _occa_F2(fmod) _occa_F2(fmin) _occa_F2(fmax) _occa_F2(fdim)
_occa_F2(copysign) _occa_F2(nextafter)
inline float fmaf(float x, float y, float z) { return fma(x, y, z); }
inline float rcbrt(float x) { return 1.0f / cbrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrt(x); }
inline void sincos(float x, thread float *s, thread float *c) { *s = sin(x); *c = cos(x); }
inline void sincosf(float x, thread float *s, thread float *c) { *s = sin(x); *c = cos(x); }
inline long labs(long x) { return x < 0 ? -x : x; }
/* hypot without overflow or underflow of the squares */
inline float hypot(float x, float y) {
  const float a = fabs(x), b = fabs(y), m = max(a, b), n = min(a, b);
  return m == 0.0f || isinf(m) ? m : m * sqrt(1.0f + (n / m) * (n / m));
}
inline float hypotf(float x, float y) { return hypot(x, y); }

/* ---- The constants of <math.h> (Metal has M_PI_F, ...), as floats. */
#ifndef M_PI
#define M_E 2.7182818284590452354f
#define M_LOG2E 1.4426950408889634074f
#define M_LOG10E 0.43429448190325182765f
#define M_LN2 0.69314718055994530942f
#define M_LN10 2.30258509299404568402f
#define M_PI 3.14159265358979323846f
#define M_PI_2 1.57079632679489661923f
#define M_PI_4 0.78539816339744830962f
#define M_1_PI 0.31830988618379067154f
#define M_2_PI 0.63661977236758134308f
#define M_2_SQRTPI 1.12837916709551257390f
#define M_SQRT2 1.41421356237309504880f
#define M_SQRT1_2 0.70710678118654752440f
#endif
inline float okl_exp10f(float x) { return exp10(x); }

/* ---- @atomic x += v on a float. */
#define _occa_CAS_ADD(S)                                                               \
  inline void _occa_atomic_add(S float *p, float v) {                                  \
    S atomic_uint *a = (S atomic_uint *)p;                                             \
    uint old = atomic_load_explicit(a, memory_order_relaxed);                          \
    while (!atomic_compare_exchange_weak_explicit(a, &old, as_type<uint>(as_type<float>(old) + v), \
                                                  memory_order_relaxed, memory_order_relaxed)) \
      ;                                                                                \
  }
#if defined(__METAL_VERSION__) && __METAL_VERSION__ >= 300
inline void _occa_atomic_add(device float *p, float v) {
  atomic_fetch_add_explicit((device atomic_float *)p, v, memory_order_relaxed);
}
#else
_occa_CAS_ADD(device)
#endif
_occa_CAS_ADD(threadgroup)

/* ---- OKL intrinsics: the copy is done at once, so commit and wait have
 * nothing to wait for. size_and_align bytes in all, the last zfill of them
 * set to 0. */
template <class T, class U>
inline void okl_memcpy_async(threadgroup T &dst_shared, device const U &src_global,
                             size_t size_and_align, size_t zfill = 0) {
  threadgroup uchar *d = (threadgroup uchar *)&dst_shared;
  device const uchar *s = (device const uchar *)&src_global;
  const size_t size = size_and_align, kept = zfill < size ? size - zfill : 0;
  for (size_t i = 0; i < kept; ++i) d[i] = s[i];
  for (size_t i = kept; i < size; ++i) d[i] = 0;
}
inline void okl_pipeline_commit() {}
inline void okl_pipeline_wait_prior(size_t n) { (void)n; }

/* ---- x = y of a struct of the kernel's, a side in device, threadgroup or
 * constant memory (opencl_spaces.c writes _occa_assign(x, y)): the
 * implicit operator= of a struct is for thread memory. The bytes, as words
 * where the struct's size and alignment allow. */
#define _occa_COPY(D, S, W)                                                            \
  for (size_t i = 0; i < sizeof(T) / sizeof(W); ++i)                                   \
    ((D W *)&d)[i] = ((S const W *)&s)[i];
#define _occa_ASSIGN(D, S)                                                             \
  template <class T> inline D T &_occa_assign(D T &d, S const T &s) {                  \
    if (sizeof(T) % 4 == 0 && alignof(T) >= 4) {                                       \
      _occa_COPY(D, S, uint)                                                           \
    } else {                                                                           \
      _occa_COPY(D, S, uchar)                                                          \
    }                                                                                  \
    return d;                                                                          \
  }
_occa_ASSIGN(device, thread) _occa_ASSIGN(device, device)
_occa_ASSIGN(device, constant) _occa_ASSIGN(device, threadgroup)
_occa_ASSIGN(threadgroup, thread) _occa_ASSIGN(threadgroup, device)
_occa_ASSIGN(threadgroup, constant) _occa_ASSIGN(threadgroup, threadgroup)
_occa_ASSIGN(thread, device) _occa_ASSIGN(thread, constant) _occa_ASSIGN(thread, threadgroup)

#undef _occa_CAS_ADD
#undef _occa_COPY
#undef _occa_ASSIGN
#undef _occa_MAKE
#undef _occa_F1
#undef _occa_F2
