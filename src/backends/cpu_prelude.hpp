/*
 * cpu_prelude.hpp - what every file of the serial and OpenMP backends starts
 * with: oklc pastes this text at the top of the C++ it generates, before
 * the kernels, and the runtime compiles the result alone with g++ or clang++
 * (-std=c++17 -O3 -fPIC -shared, and -fopenmp for OpenMP); no OCCA or oklc
 * header is there to include. It is C++11 itself: OCCA's serial and OpenMP
 * modes compile with -std=c++11 (docs/occa.md). The DPC++ backend's output has it too, after
 * <sycl/sycl.hpp> (dpcpp_prelude.hpp follows): SYCL compiles what a kernel
 * calls for the device, so nothing here may need the host (no exceptions,
 * no writable statics, no variadic calls but printf's declaration).
 *
 * It defines, for a CPU, every name that include/oklc/okl.hpp (the parse
 * prelude) declares, with the same result types: integer types, the vector
 * types (CUDA layout) with make_<type>N and their operators, math as in
 * <cmath> plus the CUDA/OpenCL extras, min/max/clamp, vector geometry,
 * constants, the OKL intrinsics, and _occa_call, the calling convention of
 * the generated entries. Not defined: okl::at (the backends rewrite it) and
 * the CUDA/HIP builtins. The standard math comes from <math.h> (whose C++
 * wrapper puts the std overloads in the global namespace), so a kernel may
 * include <cmath>, <math.h>, <algorithm>, ... and say `using namespace std;`.
 *
 * Names of its own start with _occa_ or are in namespace okl; its helper
 * macros are undefined at the end. Its functions have hidden visibility (a
 * kernel library exports none of them): what the runtime looks up with dlsym
 * (the _occa_entry_* functions) must be defined after this text.
 */
#ifndef OKLC_CPU_PRELUDE_HPP
#define OKLC_CPU_PRELUDE_HPP

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>      /* printf, which CUDA, HIP and OpenCL kernels have too */
#include <stdlib.h>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <type_traits>
#include <utility>

/* Integer types: size_t, ptrdiff_t and (u)intN_t come from the C headers;
 * these four are glibc's own in <sys/types.h>, the same types. */
typedef unsigned char uchar;
typedef unsigned short int ushort;
typedef unsigned int uint;
typedef unsigned long int ulong;

/* half, IEEE binary16, when the kernel names it (the backend defines
 * OKLC_PRELUDE_HALF): the compiler's _Float16 (GCC 12 and Clang 15 and
 * later on x86-64; AArch64), else an #error rather than a kernel that
 * cannot name its type. SYCL's is sycl::half (dpcpp_prelude.hpp). */
#if defined(OKLC_PRELUDE_HALF) && !defined(SYCL_LANGUAGE_VERSION)
#ifdef __FLT16_MANT_DIG__
typedef _Float16 half;
#else
#error "the kernel uses half: this C++ compiler has no _Float16 (GCC 12, Clang 15 have it)"
#endif
#endif

/* ---- Vector types: CUDA's aggregates and alignment (charN holds signed
 * char), with make_<type>N, and element-wise operators as templates on a
 * trait (v: the vector, s: its scalar, n: its size, i: only in integer
 * vectors). The types keep the default visibility: a kernel's own structs
 * may hold them. */
#define _occa_STRUCTS(N, S)                                                   \
  struct alignas(2 * sizeof(S)) N##2 { S x, y; };                             \
  struct N##3 { S x, y, z; };                                                 \
  struct alignas(sizeof(S) < 4 ? 4 * sizeof(S) : 16) N##4 { S x, y, z, w; };
_occa_STRUCTS(char, signed char) _occa_STRUCTS(uchar, unsigned char)
_occa_STRUCTS(short, short) _occa_STRUCTS(ushort, unsigned short)
_occa_STRUCTS(int, int) _occa_STRUCTS(uint, unsigned int)
_occa_STRUCTS(long, long) _occa_STRUCTS(ulong, unsigned long)
_occa_STRUCTS(float, float) _occa_STRUCTS(double, double)

#pragma GCC visibility push(hidden)

namespace okl {
namespace detail {
template <class _occa_V> struct vec {};
template <int _occa_N> struct dim {};

template <class _occa_V, class _occa_F>
inline _occa_V map1(_occa_V a, _occa_F f, dim<2>) {
  _occa_V r = {f(a.x), f(a.y)};
  return r;
}
template <class _occa_V, class _occa_F>
inline _occa_V map1(_occa_V a, _occa_F f, dim<3>) {
  _occa_V r = {f(a.x), f(a.y), f(a.z)};
  return r;
}
template <class _occa_V, class _occa_F>
inline _occa_V map1(_occa_V a, _occa_F f, dim<4>) {
  _occa_V r = {f(a.x), f(a.y), f(a.z), f(a.w)};
  return r;
}
template <class _occa_V, class _occa_F>
inline _occa_V map2(_occa_V a, _occa_V b, _occa_F f, dim<2>) {
  _occa_V r = {f(a.x, b.x), f(a.y, b.y)};
  return r;
}
template <class _occa_V, class _occa_F>
inline _occa_V map2(_occa_V a, _occa_V b, _occa_F f, dim<3>) {
  _occa_V r = {f(a.x, b.x), f(a.y, b.y), f(a.z, b.z)};
  return r;
}
template <class _occa_V, class _occa_F>
inline _occa_V map2(_occa_V a, _occa_V b, _occa_F f, dim<4>) {
  _occa_V r = {f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w)};
  return r;
}
template <class _occa_V, class _occa_F> inline _occa_V map1(_occa_V a, _occa_F f) {
  return map1(a, f, typename vec<_occa_V>::n());
}
template <class _occa_V, class _occa_F> inline _occa_V map2(_occa_V a, _occa_V b, _occa_F f) {
  return map2(a, b, f, typename vec<_occa_V>::n());
}
template <class _occa_V> inline _occa_V splat(typename vec<_occa_V>::s a, dim<2>) {
  _occa_V r = {a, a};
  return r;
}
template <class _occa_V> inline _occa_V splat(typename vec<_occa_V>::s a, dim<3>) {
  _occa_V r = {a, a, a};
  return r;
}
template <class _occa_V> inline _occa_V splat(typename vec<_occa_V>::s a, dim<4>) {
  _occa_V r = {a, a, a, a};
  return r;
}
template <class _occa_V> inline _occa_V splat(typename vec<_occa_V>::s a) {
  return splat<_occa_V>(a, typename vec<_occa_V>::n());
}
template <class _occa_V> inline typename vec<_occa_V>::s sum(_occa_V a, dim<2>) {
  return a.x + a.y;
}
template <class _occa_V> inline typename vec<_occa_V>::s sum(_occa_V a, dim<3>) {
  return a.x + a.y + a.z;
}
template <class _occa_V> inline typename vec<_occa_V>::s sum(_occa_V a, dim<4>) {
  return a.x + a.y + a.z + a.w;
}

/* The operations on one component; the result converts back to the scalar
 * type (char + char is an int in C++, a char in a char4). */
#define _occa_FN1(NAME, EXPR)                                                 \
  struct NAME {                                                               \
    template <class _occa_S> _occa_S operator()(_occa_S a) const {            \
      return _occa_S(EXPR);                                                   \
    }                                                                         \
  };
#define _occa_FN2(NAME, EXPR)                                                 \
  struct NAME {                                                               \
    template <class _occa_S> _occa_S operator()(_occa_S a, _occa_S b) const { \
      return _occa_S(EXPR);                                                   \
    }                                                                         \
  };
_occa_FN1(pos_, +a) _occa_FN1(neg_, -a) _occa_FN1(not_, ~a) _occa_FN1(fabs_, ::fabs(a))
_occa_FN2(add_, a + b) _occa_FN2(sub_, a - b) _occa_FN2(mul_, a * b) _occa_FN2(div_, a / b)
_occa_FN2(mod_, a % b) _occa_FN2(and_, a & b) _occa_FN2(or_, a | b) _occa_FN2(xor_, a ^ b)
_occa_FN2(shl_, a << b) _occa_FN2(shr_, a >> b)
_occa_FN2(min_, b < a ? b : a) _occa_FN2(max_, a < b ? b : a)
} // namespace detail
} // namespace okl

#define _occa_TRAIT(V, S, N, I)                                               \
  namespace okl { namespace detail {                                          \
  template <> struct vec<V> { typedef V v; typedef S s; typedef dim<N> n; I }; } }
#define _occa_VEC(N, S, I)                                                    \
  inline N##2 make_##N##2(S x, S y) {                                         \
    N##2 r = {x, y};                                                          \
    return r;                                                                 \
  }                                                                           \
  inline N##3 make_##N##3(S x, S y, S z) {                                    \
    N##3 r = {x, y, z};                                                       \
    return r;                                                                 \
  }                                                                           \
  inline N##4 make_##N##4(S x, S y, S z, S w) {                               \
    N##4 r = {x, y, z, w};                                                    \
    return r;                                                                 \
  }                                                                           \
  _occa_TRAIT(N##2, S, 2, I(N##2)) _occa_TRAIT(N##3, S, 3, I(N##3))           \
  _occa_TRAIT(N##4, S, 4, I(N##4))
#define _occa_INT(V) typedef V i;
#define _occa_FLOAT(V)
_occa_VEC(char, signed char, _occa_INT)
_occa_VEC(uchar, unsigned char, _occa_INT)
_occa_VEC(short, short, _occa_INT)
_occa_VEC(ushort, unsigned short, _occa_INT)
_occa_VEC(int, int, _occa_INT)
_occa_VEC(uint, unsigned int, _occa_INT)
_occa_VEC(long, long, _occa_INT)
_occa_VEC(ulong, unsigned long, _occa_INT)
_occa_VEC(float, float, _occa_FLOAT)
_occa_VEC(double, double, _occa_FLOAT)

#define _occa_T(K) typename okl::detail::vec<_occa_V>::K
#define _occa_OP(OP, F, K)                                                    \
  template <class _occa_V> inline _occa_T(K) operator OP(_occa_V a, _occa_V b) { \
    return okl::detail::map2(a, b, okl::detail::F());                         \
  }                                                                           \
  template <class _occa_V> inline _occa_T(K) operator OP(_occa_V a, _occa_T(s) b) { \
    return okl::detail::map2(a, okl::detail::splat<_occa_V>(b), okl::detail::F()); \
  }                                                                           \
  template <class _occa_V> inline _occa_T(K) operator OP(_occa_T(s) a, _occa_V b) { \
    return okl::detail::map2(okl::detail::splat<_occa_V>(a), b, okl::detail::F()); \
  }                                                                           \
  template <class _occa_V> inline _occa_T(K) &operator OP##=(_occa_V &a, _occa_V b) { \
    return a = a OP b;                                                        \
  }                                                                           \
  template <class _occa_V>                                                    \
  inline _occa_T(K) &operator OP##=(_occa_V &a, _occa_T(s) b) {               \
    return a = a OP b;                                                        \
  }
_occa_OP(+, add_, v) _occa_OP(-, sub_, v) _occa_OP(*, mul_, v) _occa_OP(/, div_, v)
_occa_OP(%, mod_, i) _occa_OP(&, and_, i) _occa_OP(|, or_, i) _occa_OP(^, xor_, i)
_occa_OP(<<, shl_, i) _occa_OP(>>, shr_, i)
template <class _occa_V> inline _occa_T(v) operator+(_occa_V a) {
  return okl::detail::map1(a, okl::detail::pos_());
}
template <class _occa_V> inline _occa_T(v) operator-(_occa_V a) {
  return okl::detail::map1(a, okl::detail::neg_());
}
template <class _occa_V> inline _occa_T(i) operator~(_occa_V a) {
  return okl::detail::map1(a, okl::detail::not_());
}

/* ---- Math. <math.h> gives the C functions and, as in <cmath>, the plain
 * names on float (sqrt(x) is a float), integer and mixed arguments (pow(x, 2)
 * is a double), abs, fma, frexp, ldexp, modf, isnan...; here are the extras.
 * The names glibc may declare itself (exp10f, sincos; sinpi and rsqrt from
 * C23) are templates with a default argument: a C function of that name,
 * where there is one, is preferred to them in a call, and they do not
 * conflict with its declaration. */
namespace okl {
namespace detail {
template <class _occa_T> struct num {}; /* fp: the floating type T computes in */
#define _occa_NUM(T, F) template <> struct num<T> { typedef T type; typedef F fp; };
_occa_NUM(bool, double) _occa_NUM(char, double) _occa_NUM(signed char, double)
_occa_NUM(unsigned char, double) _occa_NUM(wchar_t, double) _occa_NUM(char16_t, double)
_occa_NUM(char32_t, double) _occa_NUM(short, double) _occa_NUM(unsigned short, double)
_occa_NUM(int, double) _occa_NUM(unsigned int, double) _occa_NUM(long, double)
_occa_NUM(unsigned long, double) _occa_NUM(long long, double)
_occa_NUM(unsigned long long, double) _occa_NUM(float, float) _occa_NUM(double, double)
_occa_NUM(long double, long double)

template <class _occa_F> inline _occa_F rsqrt(_occa_F x) { return _occa_F(1) / ::sqrt(x); }
template <class _occa_F> inline _occa_F rcbrt(_occa_F x) { return _occa_F(1) / ::cbrt(x); }
template <class _occa_F> inline _occa_F exp10(_occa_F x) { return ::pow(_occa_F(10), x); }
/* sin(pi x), cos(pi x) with x reduced exactly: x = 2m + k/2 + f, |f| <= 1/4.
 * Exact at multiples of 1/2, signed zeros as in IEEE 754 sinPi and cosPi. */
template <class _occa_F> inline _occa_F sinpi(_occa_F x) {
  const _occa_F r = ::fmod(x, _occa_F(2)), k = ::rint(2 * r), f = r - k / 2;
  const _occa_F pi = _occa_F(3.141592653589793238462643383279502884L);
  const _occa_F s = ::sin(pi * f), c = ::cos(pi * f);
  const _occa_F q = k - 4 * ::floor(k / 4); /* the quadrant: 0 to 3, or NaN */
  const _occa_F v = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
  return v == 0 ? ::copysign(_occa_F(0), x) : v;
}
template <class _occa_F> inline _occa_F cospi(_occa_F x) {
  const _occa_F r = ::fmod(x, _occa_F(2)), k = ::rint(2 * r), f = r - k / 2;
  const _occa_F pi = _occa_F(3.141592653589793238462643383279502884L);
  const _occa_F s = ::sin(pi * f), c = ::cos(pi * f);
  const _occa_F q = k - 4 * ::floor(k / 4);
  const _occa_F v = q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
  return v == 0 ? _occa_F(0) : v;
}
} // namespace detail
} // namespace okl

#define _occa_FP(T) typename okl::detail::num<T>::fp
#define _occa_TYPE(T) typename okl::detail::num<T>::type
#define _occa_EXTRA(F)                                                        \
  template <class _occa_T> inline _occa_FP(_occa_T) F(_occa_T x) {            \
    return okl::detail::F<_occa_FP(_occa_T)>(x);                              \
  }                                                                           \
  template <class _occa_T = void> inline float F##f(float x) {                \
    return okl::detail::F(x);                                                 \
  }
_occa_EXTRA(rsqrt) _occa_EXTRA(rcbrt) _occa_EXTRA(exp10) _occa_EXTRA(sinpi) _occa_EXTRA(cospi)
template <class _occa_T = void> inline void sincos(double x, double *s, double *c) {
  *s = ::sin(x);
  *c = ::cos(x);
}
template <class _occa_T = void> inline void sincosf(float x, float *s, float *c) {
  *s = ::sin(x);
  *c = ::cos(x);
}
inline void sincos(float x, float *s, float *c) {
  *s = ::sin(x);
  *c = ::cos(x);
}

/* min, max and clamp, called unqualified as in CUDA/HIP and OpenCL; mixed
 * argument types give the usual arithmetic conversion (max(x, 0.0): double).
 * min(a, b) is b < a ? b : a, like std::min (and OpenCL's min, which leaves
 * NaN arguments unspecified): a NaN second argument gives the first; use
 * fmin/fmax for IEEE's. clamp(x, lo, hi) is min(max(x, lo), hi). Non-template
 * overloads for the common types, so that std::min after `using namespace
 * std;` is not ambiguous with them. */
#define _occa_MINMAX(T)                                                       \
  inline T min(T a, T b) { return b < a ? b : a; }                            \
  inline T max(T a, T b) { return a < b ? b : a; }                            \
  inline T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
_occa_MINMAX(int) _occa_MINMAX(unsigned int) _occa_MINMAX(long) _occa_MINMAX(unsigned long)
_occa_MINMAX(long long) _occa_MINMAX(unsigned long long) _occa_MINMAX(float)
_occa_MINMAX(double)
template <class _occa_A, class _occa_B>
inline decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) min(_occa_A a, _occa_B b) {
  typedef decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) _occa_C;
  return okl::detail::min_()(_occa_C(a), _occa_C(b));
}
template <class _occa_A, class _occa_B>
inline decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) max(_occa_A a, _occa_B b) {
  typedef decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) _occa_C;
  return okl::detail::max_()(_occa_C(a), _occa_C(b));
}
template <class _occa_A, class _occa_B, class _occa_C>
inline decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)() + _occa_TYPE(_occa_C)())
clamp(_occa_A x, _occa_B lo, _occa_C hi) {
  typedef decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)() + _occa_TYPE(_occa_C)())
      _occa_R;
  return okl::detail::min_()(okl::detail::max_()(_occa_R(x), _occa_R(lo)), _occa_R(hi));
}

/* Geometry on float and double vectors (CUDA helper_math, OpenCL). CUDA
 * itself has none of them but min and max, so kernels ported from it often
 * define their own dot or length: those without a std namesake are
 * templates with a default argument, which a kernel's own function of the
 * same signature does not conflict with, and wins against. (The entries
 * name each kernel's type, so a kernel may itself be called dot.) */
#define _occa_G template <class _occa_T = void> inline
#define _occa_VMATH(V, S)                                                     \
  _occa_G S dot(V a, V b) { return okl::detail::sum(a * b, okl::detail::vec<V>::n()); } \
  _occa_G S length(V a) { return ::sqrt(okl::detail::sum(a * a, okl::detail::vec<V>::n())); } \
  _occa_G S distance(V a, V b) { return length(a - b); }                      \
  _occa_G V normalize(V a) { return a * (S(1) / length(a)); }                 \
  _occa_G V fabs(V a) { return okl::detail::map1(a, okl::detail::fabs_()); }  \
  inline V min(V a, V b) { return okl::detail::map2(a, b, okl::detail::min_()); } \
  inline V max(V a, V b) { return okl::detail::map2(a, b, okl::detail::max_()); } \
  inline V clamp(V x, V lo, V hi) { return min(max(x, lo), hi); }            \
  inline V clamp(V x, S lo, S hi) {                                           \
    return clamp(x, okl::detail::splat<V>(lo), okl::detail::splat<V>(hi));    \
  }
_occa_VMATH(float2, float) _occa_VMATH(float3, float) _occa_VMATH(float4, float)
_occa_VMATH(double2, double) _occa_VMATH(double3, double) _occa_VMATH(double4, double)
/* cross of 4-vectors: of their xyz, w = 0 (OpenCL). */
#define _occa_CROSS(V, ...)                                                   \
  _occa_G V cross(V a, V b) {                                                 \
    V r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,                       \
           a.x * b.y - a.y * b.x __VA_ARGS__};                                \
    return r;                                                                 \
  }
_occa_CROSS(float3, ) _occa_CROSS(float4, , 0) _occa_CROSS(double3, ) _occa_CROSS(double4, , 0)

/* ---- Constants: <math.h>, <float.h> and <limits.h> define them; these are
 * for a library whose <math.h> keeps M_PI to itself. */
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif

/* ---- OKL intrinsics on a CPU.
 * okl_memcpy_async copies at once, as CUDA's __pipeline_memcpy_async would
 * have when the wait returns: size_and_align bytes in all, the first
 * size_and_align - zfill of them from the source, the last zfill set to 0.
 * Its arguments are the elements themselves (s[i], v[j]) or pointers; an
 * argument of pointer type is always taken as an address, as in CUDA.
 * Commit and wait have nothing to wait for. */
namespace okl {
namespace detail {
template <class _occa_T> inline _occa_T *address(_occa_T &a, std::false_type) {
  return __builtin_addressof(a);
}
template <class _occa_T> inline _occa_T address(_occa_T &a, std::true_type) { return a; }
inline void copy(void *dst, const void *src, size_t size, size_t zfill) {
  const size_t kept = zfill < size ? size - zfill : 0;
  __builtin_memcpy(dst, src, kept);
  __builtin_memset(static_cast<char *>(dst) + kept, 0, size - kept);
}
} // namespace detail
} // namespace okl

template <class _occa_T, class _occa_U>
inline void okl_memcpy_async(_occa_T &dst_shared, const _occa_U &src_global,
                             size_t size_and_align, size_t zfill = 0) {
  okl::detail::copy(okl::detail::address(dst_shared, std::is_pointer<_occa_T>()),
                    okl::detail::address(src_global, std::is_pointer<_occa_U>()), size_and_align,
                    zfill);
}
template <class _occa_T, class _occa_U>
inline void okl_memcpy_async(_occa_T *dst_shared, const _occa_U *src_global,
                             size_t size_and_align, size_t zfill = 0) {
  okl::detail::copy(dst_shared, src_global, size_and_align, zfill);
}
inline void okl_pipeline_commit() {}
inline void okl_pipeline_wait_prior(size_t) {}
inline float okl_exp10f(float x) { return okl::detail::exp10(x); }

/* Warp shuffles: a CPU "warp" is one lane (each @inner iteration runs alone),
 * so every lane but the caller's is out of range and each shuffle returns
 * var, as CUDA's do for a lane with no source. A reduction written for 32
 * lanes (for offset = 16; ... /= 2) therefore does not reduce on a CPU. */
#define _occa_SHFL(F, L)                                                      \
  template <class _occa_T> inline _occa_T F(unsigned int, _occa_T var, L) { return var; } \
  template <class _occa_T> inline _occa_T F(unsigned int, _occa_T var, L, int) { \
    return var;                                                               \
  }
_occa_SHFL(okl_shfl_sync, int) _occa_SHFL(okl_shfl_up_sync, unsigned int)
_occa_SHFL(okl_shfl_down_sync, unsigned int) _occa_SHFL(okl_shfl_xor_sync, int)

/* ---- The calling convention: the backends turn each kernel K into
 *   extern "C" int _occa_entry_K(void *const *args, char *message, size_t size)
 *   { return _occa_run(&K, args, message, size); }
 * args[i] points to argument i, suitably aligned for its type: to a variable
 * holding the pointer for a pointer parameter, to the value for a scalar, to
 * the bytes of a struct passed by value. A kernel named like a function
 * template of this prelude or of <cmath> (min, max, clamp, rsqrt, sqrt, pow...)
 * makes &K a set of overloads that C++ deduces no type from; its entry must
 * name K's type: _occa_call(static_cast<void (*)(PARAMETERS)>(&K), args), or
 * _occa_call<TYPES>(&K, args) with no __restrict__ in TYPES (g++ keeps it in
 * a template argument, and then finds no K of that type). */
namespace okl {
namespace detail {
/* C++11 (OCCA compiles kernels with -std=c++11): index sequences of our own. */
template <class _occa_T> struct arg {
  typedef typename std::remove_cv<typename std::remove_reference<_occa_T>::type>::type type;
};
template <size_t... _occa_I> struct indices {};
template <size_t _occa_N, size_t... _occa_I>
struct make_indices : make_indices<_occa_N - 1, _occa_N - 1, _occa_I...> {};
template <size_t... _occa_I> struct make_indices<0, _occa_I...> {
  typedef indices<_occa_I...> type;
};
template <class... _occa_P, size_t... _occa_I>
inline void call(void (*f)(_occa_P...), void *const *args, indices<_occa_I...>) {
  (void)args;
  f(*static_cast<typename arg<_occa_P>::type *>(args[_occa_I])...);
}
} // namespace detail
} // namespace okl

template <class... _occa_P> inline void _occa_call(void (*f)(_occa_P...), void *const *args) {
  okl::detail::call(f, args, typename okl::detail::make_indices<sizeof...(_occa_P)>::type());
}

/* A run the kernel's loops refuse before a nest (docs/launchers.md: a step
 * that is not positive, more iterations than @max_inner_dims): an
 * exception, which the entry turns into the runtime's error (and which an
 * OCCA program gets as OCCA's errors, a std::exception). */
inline void _occa_refuse(const char *format, long long a, long long b) {
  char message[400];
  snprintf(message, sizeof message, format, a, b);
  throw std::runtime_error(message);
}

/* What a kernel's @inner loops report where only the nest knows their
 * counts (docs/launchers.md: more iterations than @max_inner_dims gives
 * the block, which GPUs cannot run): the first fault marked, from any
 * thread, becomes the run's exception as the kernel returns. */
class _occa_fault_list {
  std::atomic<const char *> first_;
 public:
  _occa_fault_list() : first_(nullptr) {}
  __attribute__((noinline, cold)) void mark(const char *what) {
    const char *none = nullptr;
    first_.compare_exchange_strong(none, what);
  }
  ~_occa_fault_list() noexcept(false) {
    const char *what = first_.load();
#if __cplusplus >= 201703L
    const bool unwinding = std::uncaught_exceptions() > 0;
#else
    const bool unwinding = std::uncaught_exception();
#endif
    if (what && !unwinding)
      throw std::runtime_error(what);
  }
};

/* A kernel's launch: a number no other launch of the program had (a
 * panel, below, packed in one launch is never read in another, whose
 * arguments may hold other values at the same addresses). */
inline unsigned long _occa_next_launch() {
  static std::atomic<unsigned long> count(0);
  return ++count;
}

/* An element's type, without const (a panel's, below). */
template <class _occa_T>
using _occa_elem = typename std::remove_cv<typename std::remove_reference<_occa_T>::type>::type;

/* The panel of a tiled product's operand (cpu_interchange.c): the rows
 * its tiles read for one column of blocks, packed in order once and read
 * by every row of blocks of that column. One per thread and panel site
 * (thread_local), kept for the launch and column it was packed for; NULL
 * where memory runs out (the kernel then marks a fault). */
class _occa_panel {
  void *data_;
  size_t bytes_;
  unsigned long launch_;
  long long column_;
 public:
  _occa_panel() : data_(nullptr), bytes_(0), launch_(0), column_(0) {}
  ~_occa_panel() { free(data_); }
  _occa_panel(const _occa_panel &) = delete;
  _occa_panel &operator=(const _occa_panel &) = delete;
  /* The panel of `bytes` bytes for (launch, column); *fill: not packed yet. */
  void *get(unsigned long launch, long long column, size_t bytes, bool *fill) {
    *fill = launch != launch_ || column != column_;
    if (bytes > bytes_) {
      free(data_);
      size_t n = (bytes + 63) / 64 * 64;
      data_ = aligned_alloc(64, n);
      bytes_ = data_ ? n : 0;
      *fill = true;
    }
    launch_ = data_ ? launch : 0;
    column_ = column;
    return data_;
  }
};

/* An entry's run: 0, or 1 with the reason in message. */
template <class... _occa_P>
inline int _occa_run(void (*f)(_occa_P...), void *const *args, char *message, size_t size) {
  try {
    _occa_call(f, args);
  } catch (const std::exception &e) {
    snprintf(message, size, "%s", e.what());
    return 1;
  }
  return 0;
}

#pragma GCC visibility pop

/* Before a loop over threads whose iterations are independent (a tile of
 * threads, cpu_interchange.c): OpenMP's simd, with -fopenmp or with
 * -fopenmp-simd -D_OCCA_SIMD (what the runtime passes for serial builds);
 * nothing otherwise, where the compiler would warn of an unknown pragma. */
#if defined(_OPENMP) || defined(_OCCA_SIMD)
#define _occa_simd _Pragma("omp simd")
#else
#define _occa_simd
#endif

/* The rows of a tile of threads whose values stay in registers
 * (cpu_interchange.c): `wide` where the compiler targets AVX-512 (32
 * vector registers of 64 bytes), `narrow` otherwise (AVX2: 16 of 32). */
#if defined(__AVX512F__)
#define _occa_tile_rows(wide, narrow) (wide)
#else
#define _occa_tile_rows(wide, narrow) (narrow)
#endif

/* A branch the compiler lays out away from the common path (a long loop's
 * blocks, cpu_interchange.c: with both forms in one function GCC laid out
 * the short loop's tiles 8-10% slower without it). */
#if defined(__GNUC__)
#define _occa_rarely(x) __builtin_expect(!!(x), 0)
#else
#define _occa_rarely(x) (x)
#endif

/* A line of memory asked for ahead of its use (the next block's rows,
 * cpu_prefetch.c); it never faults, whatever the address. Into the outer
 * caches, not the first level: there the next block's rows push out the
 * block's own data where that level is small (axhex on an AMD Zen 4, 32
 * KiB: 7% slower than without into the first level, 10% faster into the
 * outer ones; docs/benchmarks.md). */
#if defined(__GNUC__)
#define _occa_prefetch(p) __builtin_prefetch(p, 0, 1)
#else
#define _occa_prefetch(p) ((void)0)
#endif

/* The next block's part of an array read up front, asked for while the
 * block computes (cpu_prefetch.c, oklc_cpu_prefetch_part): only where the
 * compiler targets an AMD Zen core. There the prefetchers stop at a
 * page's end, and the asking made bench/compare's gradient 13-17% faster
 * (Zen 4); on an Intel Xeon (GCC's -march=native: rocketlake) the same
 * lines asked for made it 6-10% slower, its prefetchers reaching the next
 * element's page by themselves (docs/benchmarks.md). */
#if defined(__GNUC__) &&                                                          \
    (defined(__znver1__) || defined(__znver2__) || defined(__znver3__) ||          \
     defined(__znver4__) || defined(__znver5__) || defined(__tune_znver1__) ||     \
     defined(__tune_znver2__) || defined(__tune_znver3__) || defined(__tune_znver4__) || \
     defined(__tune_znver5__))
#define _occa_prefetch_part(p) __builtin_prefetch(p, 0, 1)
#else
#define _occa_prefetch_part(p) ((void)0)
#endif

/* A kernel with a loop of a block's threads that only copies or sets
 * memory, and no loop that does that and more (cpu_calls.c): GCC would
 * make that short loop a call of memcpy or memset, one call per block and
 * loop (copy4 on an AMD Zen 4: 1.2-1.5x slower than the loop compiled as
 * it is; docs/benchmarks.md). Clang's no_builtin attribute would also keep
 * the prelude's functions out of the kernel (no inlining across it), so
 * there it is nothing. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER) && \
    !defined(__NVCOMPILER)
#define _occa_short_loops __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define _occa_short_loops
#endif

/* A @shared matrix T[R][C] kept a second time transposed (cpu_transpose.c),
 * for the reads across a block's threads: t[a][b] is element (a, b), read
 * from d[b][a], so that the innermost thread index a steps through
 * neighbours; t.with(s)[a][b] = v stores v in s[a][b] and in the copy.
 * The kernel's subscripts stay where they are written (each evaluated
 * once); inlined, it is the two arrays' loads and stores. */
template <typename T, int R, int C>
struct _occa_transposed {
    T d[C][R];
    struct column {
        T (*d)[R];
        int a;
        const T &operator[](int b) const { return d[b][a]; }
    };
    struct both {
        T *s, *t;
        T &operator=(const T &v) const { *t = v; return *s = v; }
    };
    struct row {
        T (*s)[C];
        T (*d)[R];
        int a;
        both operator[](int b) const { return both{&s[a][b], &d[b][a]}; }
    };
    struct rows {
        T (*s)[C];
        T (*d)[R];
        row operator[](int a) const { return row{s, d, a}; }
    };
    column operator[](int a) { return column{d, a}; }
    rows with(T (*s)[C]) { return rows{s, d}; }
};

#undef _occa_STRUCTS
#undef _occa_FN1
#undef _occa_FN2
#undef _occa_TRAIT
#undef _occa_VEC
#undef _occa_INT
#undef _occa_FLOAT
#undef _occa_T
#undef _occa_OP
#undef _occa_NUM
#undef _occa_FP
#undef _occa_TYPE
#undef _occa_EXTRA
#undef _occa_MINMAX
#undef _occa_G
#undef _occa_VMATH
#undef _occa_CROSS
#undef _occa_SHFL

/* The kernels' vectors as wide as the registers: where the compiler
 * targets AVX-512 (the tiles of cpu_interchange.c count on 32 registers of
 * 64 bytes: _occa_tile_rows above), GCC still makes 32-byte vectors for
 * many CPUs (-march=native on an Intel Xeon: -mprefer-vector-width=256),
 * and a tile of 8 rows x 2 of those vectors spills. On an Intel Xeon with
 * AVX-512 (GCC 12, one core) the tiled float product of 512^2 ran 3.3
 * times faster so (6.6 -> 2.0 ms), the doubles product of 1536^2 2.9
 * times (387 -> 132 ms); docs/benchmarks.md. After the prelude's own
 * functions, which the kernels inline whatever the width. */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__INTEL_COMPILER) && !defined(__NVCOMPILER)
#pragma GCC target("prefer-vector-width=512")
#endif

#endif
