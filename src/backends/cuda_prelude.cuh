/*
 * cuda_prelude.cuh - what every file of the CUDA and HIP backends starts
 * with: oklc pastes this text at the top of the device source it generates,
 * which the runtime compiles alone, with NVRTC or hiprtc (no host header, no
 * include path), or offline with nvcc or hipcc (C++17).
 *
 * It defines, for CUDA and HIP, every name that include/oklc/okl.hpp (the
 * parse prelude) declares and the target lacks, with the meaning it has on
 * CPUs (src/backends/cpu_prelude.hpp), using the target's own functions
 * where it has them:
 *  - the integer types (size_t, ptrdiff_t, intN_t, uintN_t, intptr_t,
 *    uintptr_t, uchar, ushort, uint, ulong). nvcc and hipcc: the C library's
 *    (int64_t is long); NVRTC and hiprtc: the compilers' own convention,
 *    that of libcu++ and hiprtc (int64_t is long long), so that the CUDA
 *    headers a kernel includes in an `#if OCCA_USE_CUDA` block agree;
 *  - the vector types: both targets have char2..double4 and make_<type>N.
 *    CUDA has no operator on them: here are the element-wise operators
 *    (vector-vector, vector-scalar, scalar-vector, compound assignments,
 *    unary + - ~; % & | ^ << >> on integer vectors only) as templates on a
 *    trait, which a kernel's own operator of the same types (helper_math.h)
 *    wins against without a conflict. HIP's vectors have most of them: here
 *    are the rest (unary +, unary - on unsigned vectors, scalar << and >>
 *    vector, and % & | ^ << >>= of a scalar);
 *  - math: both have the C functions (sqrtf, sqrt), the float overloads of
 *    the plain names, and rsqrt, rcbrt, exp10, sinpi, cospi, sincos (CUDA:
 *    also on float; HIP: on double only, their float overloads are here).
 *    Integer arguments compute in double: rsqrt(2) here; under NVRTC, which
 *    has no <cmath>, sqrt(2), fmin(f, 0.0), isnan(1), ... here too (nvcc
 *    has <cmath>'s templates, which device code may call only with
 *    --expt-relaxed-constexpr; HIP has its own);
 *  - min and max for every mixed pair of arithmetic types (max(x, 0.0) is a
 *    double: the usual arithmetic conversions), clamp, and for float and
 *    double vectors; dot, length, distance, normalize, cross, fabs on float
 *    and double vectors. Neither target has these (but min and max of two
 *    values of one type). Those a kernel ported from CUDA may define itself
 *    (helper_math.h: dot, length, clamp, ...) are templates with a default
 *    argument, which the kernel's own function of the same signature does
 *    not conflict with, and wins against;
 *  - M_PI and the other constants of okl.hpp where the target lacks them;
 *  - the OKL intrinsics. okl_memcpy_async: CUDA sm_80 and later copy
 *    asynchronously with cp.async (what __pipeline_memcpy_async of
 *    <cuda_pipeline_primitives.h> emits, written out so that NVRTC needs no
 *    include path) when the destination is in shared memory, the source in
 *    global memory, and both and the size are aligned to 4 bytes; anything
 *    else (older architectures, HIP, other memory) is copied at once. In
 *    all cases size_and_align bytes in all, the last zfill of them set to 0.
 *    okl_pipeline_commit and okl_pipeline_wait_prior are cp.async's commit
 *    and wait (nothing on HIP and before sm_80). Shuffles: CUDA's
 *    __shfl_sync family, HIP's __shfl family (HIP 5 has no _sync form; the
 *    mask is ignored, every active lane takes part), on any trivially
 *    copyable type (shuffled 4 bytes at a time), width warpSize by default
 *    (64 on most AMD GPUs).
 * Not here: okl::at (the backends rewrite it) and the CUDA/HIP builtins
 * (threadIdx, atomicAdd, ...), which the targets have.
 *
 * Differences between targets that a kernel may see:
 *  - min(f, f) of floats is fminf on CUDA and HIP: a NaN argument gives the
 *    other argument (on a CPU a NaN second argument gives the first);
 *  - pow(f, 2) of a float and an int is a float with HIP and NVRTC (their
 *    own C++98 overload), a double with nvcc; under NVRTC isnan, isinf,
 *    isfinite and signbit of a float or double return int (CUDA's own);
 *  - min and max of vectors compare as on a CPU (b < a ? b : a);
 *  - on HIP, min and max of narrow types (short, char) give that type
 *    (HIP's own template), and mixed calls with one of them compute in
 *    double; HIP 5's vector components are accessor objects (decltype(v.x)
 *    is not float; &v.y is a proxy that converts to a pointer), charN holds
 *    char rather than signed char, and 4-vectors of 8-byte scalars
 *    (double4, long4, ulong4) are 32-byte aligned (16 in CUDA);
 *  - half and __half need <cuda_fp16.h>: the prelude includes it
 *    (hip_fp16.h on HIP; hiprtc has it built in) when OKLC_PRELUDE_HALF is
 *    defined, which the backend does when the kernel names half; NVRTC
 *    then needs -I with the toolkit's include folder, which the runtime
 *    gives it. CUDA's __half makes float + __half ambiguous;
 *  - CUDA 13 deprecates double4, long4 and ulong4 (warning 1444): the
 *    prelude silences it for its own text; compile kernels with
 *    -D__NV_NO_VECTOR_DEPRECATION_DIAG (NVRTC and nvcc) to silence it in
 *    theirs;
 *  - the warp: 32 lanes on NVIDIA GPUs, 64 on most AMD ones.
 *
 * Names of its own start with _occa_ or are in namespace okl; its helper
 * macros are undefined at the end (what stays: the include guard, and the
 * constants M_PI, INFINITY, FLT_MAX, INT_MAX, ... where it defined them).
 */
#ifndef OKLC_CUDA_PRELUDE_CUH
#define OKLC_CUDA_PRELUDE_CUH

#if defined(__HIP__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
#if defined(OKLC_PRELUDE_HALF) && !defined(__HIPCC_RTC__)
#include <hip/hip_fp16.h>
#endif
#define _occa_HIP 1
#else
#ifdef OKLC_PRELUDE_HALF
#include <cuda_fp16.h>
#endif
#define _occa_HIP 0
/* The prelude names double4, long4 and ulong4, which CUDA 13 deprecates. */
#pragma nv_diagnostic push
#pragma nv_diag_suppress 1444
#if defined(__GNUC__) && !defined(__CUDACC_RTC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#endif

/* Everything is callable from device code, and from host code where it
 * can be (a kernel's __host__ __device__ functions may use it). */
#define _occa_HD __host__ __device__ inline
#define _occa_D __device__ inline

/* ---- Integer types. */
typedef decltype(sizeof(0)) size_t;
typedef decltype((char *)0 - (char *)0) ptrdiff_t;
#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
#else
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
#endif
typedef unsigned char uchar;
typedef unsigned short int ushort;
typedef unsigned int uint;
typedef unsigned long int ulong;

/* ---- Vector types: a trait (v: the vector, s: its scalar, n: its size, i:
 * only in integer vectors) and element-wise helpers. */
namespace okl {
namespace detail {
template <class _occa_V> struct vec {};
template <int _occa_N> struct dim {};
template <bool _occa_B> struct bool_ {};

/* Components are read as the scalar type (a HIP vector's are accessor
 * objects). */
#define _occa_SCALAR(V) typename vec<V>::s
template <class _occa_V, class _occa_F> _occa_HD _occa_V map1(_occa_V a, _occa_F f, dim<2>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_V{f(_occa_E(a.x)), f(_occa_E(a.y))};
}
template <class _occa_V, class _occa_F> _occa_HD _occa_V map1(_occa_V a, _occa_F f, dim<3>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_V{f(_occa_E(a.x)), f(_occa_E(a.y)), f(_occa_E(a.z))};
}
template <class _occa_V, class _occa_F> _occa_HD _occa_V map1(_occa_V a, _occa_F f, dim<4>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_V{f(_occa_E(a.x)), f(_occa_E(a.y)), f(_occa_E(a.z)), f(_occa_E(a.w))};
}
template <class _occa_V, class _occa_F>
_occa_HD _occa_V map2(_occa_V a, _occa_V b, _occa_F f, dim<2>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_V{f(_occa_E(a.x), _occa_E(b.x)), f(_occa_E(a.y), _occa_E(b.y))};
}
template <class _occa_V, class _occa_F>
_occa_HD _occa_V map2(_occa_V a, _occa_V b, _occa_F f, dim<3>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_V{f(_occa_E(a.x), _occa_E(b.x)), f(_occa_E(a.y), _occa_E(b.y)),
                 f(_occa_E(a.z), _occa_E(b.z))};
}
template <class _occa_V, class _occa_F>
_occa_HD _occa_V map2(_occa_V a, _occa_V b, _occa_F f, dim<4>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_V{f(_occa_E(a.x), _occa_E(b.x)), f(_occa_E(a.y), _occa_E(b.y)),
                 f(_occa_E(a.z), _occa_E(b.z)), f(_occa_E(a.w), _occa_E(b.w))};
}
template <class _occa_V, class _occa_F> _occa_HD _occa_V map1(_occa_V a, _occa_F f) {
  return map1(a, f, typename vec<_occa_V>::n());
}
template <class _occa_V, class _occa_F> _occa_HD _occa_V map2(_occa_V a, _occa_V b, _occa_F f) {
  return map2(a, b, f, typename vec<_occa_V>::n());
}
template <class _occa_V> _occa_HD _occa_V splat(_occa_SCALAR(_occa_V) a, dim<2>) {
  return _occa_V{a, a};
}
template <class _occa_V> _occa_HD _occa_V splat(_occa_SCALAR(_occa_V) a, dim<3>) {
  return _occa_V{a, a, a};
}
template <class _occa_V> _occa_HD _occa_V splat(_occa_SCALAR(_occa_V) a, dim<4>) {
  return _occa_V{a, a, a, a};
}
template <class _occa_V> _occa_HD _occa_V splat(_occa_SCALAR(_occa_V) a) {
  return splat<_occa_V>(a, typename vec<_occa_V>::n());
}
template <class _occa_V> _occa_HD _occa_SCALAR(_occa_V) sum(_occa_V a, dim<2>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_E(a.x) + _occa_E(a.y);
}
template <class _occa_V> _occa_HD _occa_SCALAR(_occa_V) sum(_occa_V a, dim<3>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_E(a.x) + _occa_E(a.y) + _occa_E(a.z);
}
template <class _occa_V> _occa_HD _occa_SCALAR(_occa_V) sum(_occa_V a, dim<4>) {
  typedef _occa_SCALAR(_occa_V) _occa_E;
  return _occa_E(a.x) + _occa_E(a.y) + _occa_E(a.z) + _occa_E(a.w);
}
#undef _occa_SCALAR

/* The operations on one component; the result converts back to the scalar
 * type (char + char is an int in C++, a char in a char4). */
#define _occa_FN1(NAME, EXPR)                                                 \
  struct NAME {                                                               \
    template <class _occa_S> _occa_HD _occa_S operator()(_occa_S a) const {   \
      return _occa_S(EXPR);                                                   \
    }                                                                         \
  };
#define _occa_FN2(NAME, EXPR)                                                 \
  struct NAME {                                                               \
    template <class _occa_S> _occa_HD _occa_S operator()(_occa_S a, _occa_S b) const { \
      return _occa_S(EXPR);                                                   \
    }                                                                         \
  };
_occa_FN1(pos_, +a) _occa_FN1(neg_, -a) _occa_FN1(not_, ~a) _occa_FN1(fabs_, a < 0 ? -a : a)
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
  _occa_TRAIT(N##2, S, 2, I(N##2)) _occa_TRAIT(N##3, S, 3, I(N##3))           \
  _occa_TRAIT(N##4, S, 4, I(N##4))
#define _occa_INT(V) typedef V i;
#define _occa_FLOAT(V)
/* HIP's charN holds char, CUDA's signed char. */
#if _occa_HIP
_occa_VEC(char, char, _occa_INT)
#else
_occa_VEC(char, signed char, _occa_INT)
#endif
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
#if !_occa_HIP
#define _occa_OP(OP, F, K)                                                    \
  template <class _occa_V> _occa_HD _occa_T(K) operator OP(_occa_V a, _occa_V b) { \
    return okl::detail::map2(a, b, okl::detail::F());                         \
  }                                                                           \
  template <class _occa_V> _occa_HD _occa_T(K) operator OP(_occa_V a, _occa_T(s) b) { \
    return okl::detail::map2(a, okl::detail::splat<_occa_V>(b), okl::detail::F()); \
  }                                                                           \
  template <class _occa_V> _occa_HD _occa_T(K) operator OP(_occa_T(s) a, _occa_V b) { \
    return okl::detail::map2(okl::detail::splat<_occa_V>(a), b, okl::detail::F()); \
  }                                                                           \
  template <class _occa_V> _occa_HD _occa_T(K) &operator OP##=(_occa_V &a, _occa_V b) { \
    return a = a OP b;                                                        \
  }                                                                           \
  template <class _occa_V>                                                    \
  _occa_HD _occa_T(K) &operator OP##=(_occa_V &a, _occa_T(s) b) {             \
    return a = a OP b;                                                        \
  }
_occa_OP(+, add_, v) _occa_OP(-, sub_, v) _occa_OP(*, mul_, v) _occa_OP(/, div_, v)
_occa_OP(%, mod_, i) _occa_OP(&, and_, i) _occa_OP(|, or_, i) _occa_OP(^, xor_, i)
_occa_OP(<<, shl_, i) _occa_OP(>>, shr_, i)
template <class _occa_V> _occa_HD _occa_T(i) operator~(_occa_V a) {
  return okl::detail::map1(a, okl::detail::not_());
}
#else
/* HIP's vectors have every operator but these: integer compound
 * assignments of a scalar, scalar << and >> vector, unary + (and unary - on
 * unsigned vectors, below). */
#define _occa_OP(OP)                                                          \
  template <class _occa_V> _occa_HD _occa_T(i) &operator OP##=(_occa_V &a, _occa_T(s) b) { \
    return a = a OP okl::detail::splat<_occa_V>(b);                           \
  }
_occa_OP(%) _occa_OP(&) _occa_OP(|) _occa_OP(^) _occa_OP(<<) _occa_OP(>>)
template <class _occa_V> _occa_HD _occa_T(i) operator<<(_occa_T(s) a, _occa_V b) {
  return okl::detail::map2(okl::detail::splat<_occa_V>(a), b, okl::detail::shl_());
}
template <class _occa_V> _occa_HD _occa_T(i) operator>>(_occa_T(s) a, _occa_V b) {
  return okl::detail::map2(okl::detail::splat<_occa_V>(a), b, okl::detail::shr_());
}
#endif
template <class _occa_V> _occa_HD _occa_T(v) operator+(_occa_V a) {
  return okl::detail::map1(a, okl::detail::pos_());
}
#if !_occa_HIP
template <class _occa_V> _occa_HD _occa_T(v) operator-(_occa_V a) {
  return okl::detail::map1(a, okl::detail::neg_());
}
#else
#define _occa_NEG(V)                                                          \
  template <class _occa_T = void> _occa_HD V operator-(V a) {                 \
    return okl::detail::map1(a, okl::detail::neg_());                         \
  }
_occa_NEG(uchar2) _occa_NEG(uchar3) _occa_NEG(uchar4) _occa_NEG(ushort2) _occa_NEG(ushort3)
_occa_NEG(ushort4) _occa_NEG(uint2) _occa_NEG(uint3) _occa_NEG(uint4) _occa_NEG(ulong2)
_occa_NEG(ulong3) _occa_NEG(ulong4)
#endif

/* ---- Math. */
namespace okl {
namespace detail {
/* type: T itself, fp: the floating type T computes in; integer: only for
 * integer types. A HIP vector's component (hip_impl::Scalar_accessor) is
 * its scalar, so that clamp(v.x, 0, 1) computes in float there. */
template <class _occa_T> struct num {};
#define _occa_NUM(T, F) template <> struct num<T> { typedef T type; typedef F fp; };
#define _occa_INUM(T)                                                         \
  template <> struct num<T> { typedef T type; typedef double fp; typedef double integer; };
_occa_INUM(bool) _occa_INUM(char) _occa_INUM(signed char) _occa_INUM(unsigned char)
_occa_INUM(wchar_t) _occa_INUM(char16_t) _occa_INUM(char32_t) _occa_INUM(short)
_occa_INUM(unsigned short) _occa_INUM(int) _occa_INUM(unsigned int) _occa_INUM(long)
_occa_INUM(unsigned long) _occa_INUM(long long) _occa_INUM(unsigned long long)
_occa_NUM(float, float) _occa_NUM(double, double)
#if _occa_HIP
template <class _occa_T, class _occa_V, unsigned int _occa_I>
struct num<hip_impl::Scalar_accessor<_occa_T, _occa_V, _occa_I>> : num<_occa_T> {};
#endif
} // namespace detail
} // namespace okl
#define _occa_FP(T) typename okl::detail::num<T>::fp
#define _occa_TYPE(T) typename okl::detail::num<T>::type
#define _occa_INTEGER(T) typename okl::detail::num<T>::integer

#ifdef __CUDACC_RTC__
/* NVRTC has the float and double overloads of <cmath>'s names, not its
 * templates for integer and mixed arguments: sqrt(2) is a double,
 * pow(f, 2.0) too. */
#define _occa_M1(F)                                                           \
  template <class _occa_T> _occa_HD _occa_INTEGER(_occa_T) F(_occa_T x) {     \
    return F(double(x));                                                      \
  }
#define _occa_M2(F)                                                           \
  template <class _occa_A, class _occa_B>                                     \
  _occa_HD decltype(_occa_FP(_occa_A)() + _occa_FP(_occa_B)()) F(_occa_A a, _occa_B b) { \
    typedef decltype(_occa_FP(_occa_A)() + _occa_FP(_occa_B)()) _occa_R;      \
    return F(_occa_R(a), _occa_R(b));                                         \
  }
#define _occa_IS(F)                                                           \
  template <class _occa_T>                                                    \
  _occa_HD decltype(_occa_INTEGER(_occa_T)() == 0) F(_occa_T x) {             \
    return F(double(x)) != 0;                                                 \
  }
_occa_M1(sqrt) _occa_M1(cbrt) _occa_M1(exp) _occa_M1(exp2) _occa_M1(expm1) _occa_M1(log)
_occa_M1(log2) _occa_M1(log10) _occa_M1(log1p) _occa_M1(sin) _occa_M1(cos) _occa_M1(tan)
_occa_M1(asin) _occa_M1(acos) _occa_M1(atan) _occa_M1(sinh) _occa_M1(cosh) _occa_M1(tanh)
_occa_M1(asinh) _occa_M1(acosh) _occa_M1(atanh) _occa_M1(fabs) _occa_M1(floor) _occa_M1(ceil)
_occa_M1(round) _occa_M1(trunc) _occa_M1(rint) _occa_M1(erf) _occa_M1(erfc) _occa_M1(tgamma)
_occa_M1(lgamma)
_occa_M2(pow) _occa_M2(atan2) _occa_M2(fmod) _occa_M2(remainder) _occa_M2(fmin) _occa_M2(fmax)
_occa_M2(fdim) _occa_M2(hypot) _occa_M2(copysign) _occa_M2(nextafter)
_occa_IS(isnan) _occa_IS(isinf) _occa_IS(isfinite) _occa_IS(signbit)
template <class _occa_A, class _occa_B, class _occa_C>
_occa_HD decltype(_occa_FP(_occa_A)() + _occa_FP(_occa_B)() + _occa_FP(_occa_C)())
fma(_occa_A a, _occa_B b, _occa_C c) {
  typedef decltype(_occa_FP(_occa_A)() + _occa_FP(_occa_B)() + _occa_FP(_occa_C)()) _occa_R;
  return fma(_occa_R(a), _occa_R(b), _occa_R(c));
}
template <class _occa_T> _occa_HD _occa_INTEGER(_occa_T) frexp(_occa_T x, int *e) {
  return frexp(double(x), e);
}
template <class _occa_T> _occa_HD _occa_INTEGER(_occa_T) ldexp(_occa_T x, int e) {
  return ldexp(double(x), e);
}
#endif
#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
/* The runtime compilers have no C++ library: a kernel's <cmath>, <cstdint>
 * and <cstddef> come empty (the runtime's stand-ins), their std:: names
 * from here. */
namespace std {
using ::size_t; using ::ptrdiff_t; using ::int8_t; using ::int16_t; using ::int32_t;
using ::int64_t; using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::intptr_t; using ::uintptr_t;
using ::sqrt; using ::cbrt; using ::exp; using ::exp2; using ::expm1; using ::log; using ::log2;
using ::log10; using ::log1p; using ::sin; using ::cos; using ::tan; using ::asin; using ::acos;
using ::atan; using ::sinh; using ::cosh; using ::tanh; using ::asinh; using ::acosh;
using ::atanh; using ::fabs; using ::floor; using ::ceil; using ::round; using ::trunc;
using ::rint; using ::erf; using ::erfc; using ::tgamma; using ::lgamma; using ::pow;
using ::atan2; using ::fmod; using ::remainder; using ::fmin; using ::fmax; using ::fdim;
using ::hypot; using ::copysign; using ::nextafter; using ::isnan; using ::isinf;
using ::isfinite; using ::signbit; using ::fma; using ::frexp; using ::ldexp; using ::abs;
using ::modf; using ::lround; using ::llround; using ::nearbyint; using ::scalbn; using ::ilogb;
using ::logb; using ::min; using ::max;
}
#endif

/* The extras: CUDA has them on double and float, HIP on double only (and
 * rsqrtf, ...); integer arguments compute in double. */
#define _occa_EXTRA(F)                                                        \
  template <class _occa_T> _occa_HD _occa_INTEGER(_occa_T) F(_occa_T x) {     \
    return F(double(x));                                                      \
  }                                                                           \
  _occa_HIP_FLOAT(F)
#if _occa_HIP
#define _occa_HIP_FLOAT(F)                                                    \
  template <class _occa_T = void> _occa_HD float F(float x) { return F##f(x); }
#else
#define _occa_HIP_FLOAT(F)
#endif
_occa_EXTRA(rsqrt) _occa_EXTRA(rcbrt) _occa_EXTRA(exp10) _occa_EXTRA(sinpi) _occa_EXTRA(cospi)
#if _occa_HIP
template <class _occa_T = void> _occa_HD void sincos(float x, float *s, float *c) {
  sincosf(x, s, c);
}
#endif

/* min, max and clamp, called unqualified as in CUDA/HIP and OpenCL; mixed
 * argument types give the usual arithmetic conversion (max(x, 0.0): double).
 * The targets' own min and max of two ints, floats, ... stay. */
#if !_occa_HIP
template <class _occa_A, class _occa_B>
_occa_HD decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) min(_occa_A a, _occa_B b) {
  typedef decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) _occa_C;
  return okl::detail::min_()(_occa_C(a), _occa_C(b));
}
template <class _occa_A, class _occa_B>
_occa_HD decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) max(_occa_A a, _occa_B b) {
  typedef decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)()) _occa_C;
  return okl::detail::max_()(_occa_C(a), _occa_C(b));
}
#else
/* HIP has its own template for mixed arguments, which computes in double
 * (min(1u, 2) is a double): these are more specialised, so preferred. */
#define _occa_MIX(A, B)                                                       \
  template <class _occa_T = void> _occa_HD decltype((A)0 + (B)0) min(A a, B b) { \
    return okl::detail::min_()(decltype((A)0 + (B)0)(a), decltype((A)0 + (B)0)(b)); \
  }                                                                           \
  template <class _occa_T = void> _occa_HD decltype((A)0 + (B)0) max(A a, B b) { \
    return okl::detail::max_()(decltype((A)0 + (B)0)(a), decltype((A)0 + (B)0)(b)); \
  }
#define _occa_MIX8(A)                                                         \
  _occa_MIX(A, int) _occa_MIX(A, unsigned int) _occa_MIX(A, long)             \
  _occa_MIX(A, unsigned long) _occa_MIX(A, long long) _occa_MIX(A, unsigned long long) \
  _occa_MIX(A, float) _occa_MIX(A, double)
_occa_MIX8(int) _occa_MIX8(unsigned int) _occa_MIX8(long) _occa_MIX8(unsigned long)
_occa_MIX8(long long) _occa_MIX8(unsigned long long) _occa_MIX8(float) _occa_MIX8(double)
#endif
template <class _occa_A, class _occa_B, class _occa_C>
_occa_HD decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)() + _occa_TYPE(_occa_C)())
clamp(_occa_A x, _occa_B lo, _occa_C hi) {
  typedef decltype(_occa_TYPE(_occa_A)() + _occa_TYPE(_occa_B)() + _occa_TYPE(_occa_C)())
      _occa_R;
  return okl::detail::min_()(okl::detail::max_()(_occa_R(x), _occa_R(lo)), _occa_R(hi));
}

/* Geometry on float and double vectors (CUDA helper_math, OpenCL). */
#define _occa_G template <class _occa_T = void> _occa_HD
#define _occa_VMATH(V, S)                                                     \
  _occa_G S dot(V a, V b) {                                                   \
    return okl::detail::sum(okl::detail::map2(a, b, okl::detail::mul_()),     \
                            okl::detail::vec<V>::n());                        \
  }                                                                           \
  _occa_G S length(V a) { return sqrt(dot<_occa_T>(a, a)); }                  \
  _occa_G S distance(V a, V b) {                                              \
    return length<_occa_T>(okl::detail::map2(a, b, okl::detail::sub_()));      \
  }                                                                           \
  _occa_G V normalize(V a) {                                                  \
    return okl::detail::map2(a, okl::detail::splat<V>(S(1) / length<_occa_T>(a)), \
                             okl::detail::mul_());                            \
  }                                                                           \
  _occa_G V fabs(V a) { return okl::detail::map1(a, okl::detail::fabs_()); }  \
  _occa_G V min(V a, V b) { return okl::detail::map2(a, b, okl::detail::min_()); } \
  _occa_G V max(V a, V b) { return okl::detail::map2(a, b, okl::detail::max_()); } \
  _occa_G V clamp(V x, V lo, V hi) {                                          \
    return okl::detail::map2(okl::detail::map2(x, lo, okl::detail::max_()), hi, \
                             okl::detail::min_());                            \
  }                                                                           \
  _occa_G V clamp(V x, S lo, S hi) {                                          \
    return clamp<_occa_T>(x, okl::detail::splat<V>(lo), okl::detail::splat<V>(hi)); \
  }
_occa_VMATH(float2, float) _occa_VMATH(float3, float) _occa_VMATH(float4, float)
_occa_VMATH(double2, double) _occa_VMATH(double3, double) _occa_VMATH(double4, double)
/* cross of 4-vectors: of their xyz, w = 0 (OpenCL). */
#define _occa_CROSS(V, S, ...)                                                \
  _occa_G V cross(V a, V b) {                                                 \
    const S ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;       \
    return V{ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx __VA_ARGS__}; \
  }
_occa_CROSS(float3, float, ) _occa_CROSS(float4, float, , 0)
_occa_CROSS(double3, double, ) _occa_CROSS(double4, double, , 0)

/* ---- Constants the target may lack (NVRTC has none of them). The texts
 * are those of glibc and GCC where they have them, so that a <math.h>,
 * <float.h> or <limits.h> included after the prelude does not redefine
 * them differently. */
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
#ifndef INFINITY
#ifdef __CUDACC_RTC__
#define INFINITY (__builtin_bit_cast(float, 0x7f800000U))
#define NAN (__builtin_bit_cast(float, 0x7fc00000U))
#else
#define INFINITY (__builtin_inff ())
#define NAN (__builtin_nanf (""))
#endif
#endif
#ifndef FLT_MAX
#ifdef __FLT_MAX__
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#else
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define DBL_MAX ((double)1.79769313486231570814527423731704357e+308L)
#define DBL_MIN ((double)2.22507385850720138309023271733240406e-308L)
#define DBL_EPSILON ((double)2.22044604925031308084726333618164062e-16L)
#endif
#endif
#ifndef INT_MAX
#ifdef __INT_MAX__
#define INT_MAX __INT_MAX__
#else
#define INT_MAX 2147483647
#endif
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX (INT_MAX * 2U + 1U)
#endif

/* ---- OKL intrinsics. */
namespace okl {
namespace detail {
template <class _occa_T> struct is_pointer { enum { value = 0 }; };
template <class _occa_T> struct is_pointer<_occa_T *> { enum { value = 1 }; };
template <class _occa_T> struct is_pointer<_occa_T *const> { enum { value = 1 }; };
template <class _occa_T> struct is_pointer<_occa_T *volatile> { enum { value = 1 }; };
template <class _occa_T> struct is_pointer<_occa_T *const volatile> { enum { value = 1 }; };
/* An element's address (through its operator &: a HIP vector's component
 * gives the component's), or a pointer's value. */
template <class _occa_T> _occa_HD const void *address(const _occa_T &a, bool_<false>) {
  return &a;
}
template <class _occa_T> _occa_HD void *address(_occa_T &a, bool_<false>) { return &a; }
template <class _occa_T> _occa_HD const void *address(const _occa_T &a, bool_<true>) {
  return a;
}

_occa_D void copy(void *dst, const void *src, size_t size, size_t zfill) {
  const size_t kept = zfill < size ? size - zfill : 0;
#if !_occa_HIP && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const size_t both = (size_t)dst | (size_t)src | size;
  if (both % 4 == 0 && __isShared(dst) && __isGlobal(src)) {
    const size_t step = both % 16 == 0 ? 16 : both % 8 == 0 ? 8 : 4;
    for (size_t at = 0; at < size; at += step) {
      const unsigned int to = (unsigned int)__cvta_generic_to_shared((char *)dst + at);
      const char *from = (const char *)src + at;
      const unsigned int n = (unsigned int)(kept <= at ? 0 : kept - at < step ? kept - at : step);
      if (step == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(to), "l"(from), "r"(n)
                     : "memory");
      else if (step == 8)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(to), "l"(from), "r"(n)
                     : "memory");
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(to), "l"(from), "r"(n)
                     : "memory");
    }
    return;
  }
#endif
  if (((size_t)dst | (size_t)src | size | kept) % 4 == 0) {
    unsigned int *d = (unsigned int *)dst;
    const unsigned int *s = (const unsigned int *)src;
    for (size_t i = 0; i < kept / 4; ++i) d[i] = s[i];
    for (size_t i = kept / 4; i < size / 4; ++i) d[i] = 0;
  } else {
    char *d = (char *)dst;
    const char *s = (const char *)src;
    for (size_t i = 0; i < kept; ++i) d[i] = s[i];
    for (size_t i = kept; i < size; ++i) d[i] = 0;
  }
}
} // namespace detail
} // namespace okl

/* The elements themselves (s[i], v[j]) or pointers; an argument of pointer
 * type is always an address, as in CUDA. */
template <class _occa_T, class _occa_U>
_occa_D void okl_memcpy_async(_occa_T &dst_shared, const _occa_U &src_global,
                              size_t size_and_align, size_t zfill = 0) {
  okl::detail::copy(
      const_cast<void *>(okl::detail::address(
          dst_shared, okl::detail::bool_<okl::detail::is_pointer<_occa_T>::value != 0>())),
      okl::detail::address(src_global,
                           okl::detail::bool_<okl::detail::is_pointer<_occa_U>::value != 0>()),
      size_and_align, zfill);
}
template <class _occa_T, class _occa_U>
_occa_D void okl_memcpy_async(_occa_T *dst_shared, const _occa_U *src_global,
                              size_t size_and_align, size_t zfill = 0) {
  okl::detail::copy((void *)dst_shared, (const void *)src_global, size_and_align, zfill);
}
_occa_D void okl_pipeline_commit() {
#if !_occa_HIP && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/* Waits until at most N of the committed groups are pending (8 and more:
 * at most 8, as __pipeline_wait_prior). */
_occa_D void okl_pipeline_wait_prior(size_t N) {
#if !_occa_HIP && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  switch (N) {
  case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
  case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
  case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
  case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
  case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
  case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
  case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
  case 7: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
  default: asm volatile("cp.async.wait_group 8;" ::: "memory"); break;
  }
#else
  (void)N;
#endif
}
_occa_D float okl_exp10f(float x) { return exp10f(x); }

/* Warp shuffles of any trivially copyable type, 4 bytes at a time. */
namespace okl {
namespace detail {
template <class _occa_T> struct lane { typedef _occa_T type; };
#if _occa_HIP
template <class _occa_T, class _occa_V, unsigned int _occa_I>
struct lane<hip_impl::Scalar_accessor<_occa_T, _occa_V, _occa_I>> { typedef _occa_T type; };
#define _occa_SHFL_OP(NAME, F, L) \
  struct NAME {                                                               \
    _occa_D int operator()(unsigned int, int w, L l, int width) const {       \
      return F(w, l, width);                                                  \
    }                                                                         \
  };
_occa_SHFL_OP(shfl_, __shfl, int) _occa_SHFL_OP(shfl_up_, __shfl_up, unsigned int)
_occa_SHFL_OP(shfl_down_, __shfl_down, unsigned int) _occa_SHFL_OP(shfl_xor_, __shfl_xor, int)
#else
#define _occa_SHFL_OP(NAME, F, L) \
  struct NAME {                                                               \
    _occa_D int operator()(unsigned int mask, int w, L l, int width) const {  \
      return F(mask, w, l, width);                                            \
    }                                                                         \
  };
_occa_SHFL_OP(shfl_, __shfl_sync, int) _occa_SHFL_OP(shfl_up_, __shfl_up_sync, unsigned int)
_occa_SHFL_OP(shfl_down_, __shfl_down_sync, unsigned int)
_occa_SHFL_OP(shfl_xor_, __shfl_xor_sync, int)
#endif
template <class _occa_F, class _occa_T, class _occa_L>
_occa_D _occa_T shuffle(_occa_F f, unsigned int mask, _occa_T var, _occa_L l, int width) {
  int words[(sizeof(_occa_T) + sizeof(int) - 1) / sizeof(int)] = {};
  memcpy(words, &var, sizeof(_occa_T));
  for (size_t i = 0; i < sizeof(words) / sizeof(int); ++i) words[i] = f(mask, words[i], l, width);
  memcpy(&var, words, sizeof(_occa_T));
  return var;
}
} // namespace detail
} // namespace okl

#define _occa_SHFL(F, OP, L)                                                  \
  template <class _occa_T>                                                    \
  _occa_D typename okl::detail::lane<_occa_T>::type F(unsigned int mask, _occa_T var, L l, \
                                                      int width = warpSize) { \
    return okl::detail::shuffle(okl::detail::OP(), mask,                      \
                                typename okl::detail::lane<_occa_T>::type(var), l, width); \
  }
_occa_SHFL(okl_shfl_sync, shfl_, int) _occa_SHFL(okl_shfl_up_sync, shfl_up_, unsigned int)
_occa_SHFL(okl_shfl_down_sync, shfl_down_, unsigned int)
_occa_SHFL(okl_shfl_xor_sync, shfl_xor_, int)

#if !_occa_HIP
#if defined(__GNUC__) && !defined(__CUDACC_RTC__)
#pragma GCC diagnostic pop
#endif
#pragma nv_diagnostic pop
#endif

#undef _occa_HIP
#undef _occa_HD
#undef _occa_D
#undef _occa_FN1
#undef _occa_FN2
#undef _occa_TRAIT
#undef _occa_VEC
#undef _occa_INT
#undef _occa_FLOAT
#undef _occa_T
#undef _occa_OP
#undef _occa_NEG
#undef _occa_NUM
#undef _occa_INUM
#undef _occa_FP
#undef _occa_TYPE
#undef _occa_INTEGER
#undef _occa_M1
#undef _occa_M2
#undef _occa_IS
#undef _occa_EXTRA
#undef _occa_HIP_FLOAT
#undef _occa_MIX
#undef _occa_MIX8
#undef _occa_G
#undef _occa_VMATH
#undef _occa_CROSS
#undef _occa_SHFL_OP
#undef _occa_SHFL

#endif
