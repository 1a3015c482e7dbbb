/*
 * okl.hpp - the OKL prelude: every name an OKL 2.0 kernel may use without
 * declaring it (size and fixed-width integer types, vector types, math, OKL
 * intrinsics, okl::at, and the CUDA/HIP builtins of backend-specific blocks).
 *
 * oklc force-includes it when it parses a normalized kernel with Clang; include
 * it yourself to edit OKL 2.0 kernels in an IDE. Declarations only (it is parsed
 * before every kernel): nothing here is defined, and oklc never puts this
 * header in the code it generates.
 */
#ifndef OKLC_OKL_HPP
#define OKLC_OKL_HPP

/* Size and fixed-width integer types: the same types as glibc's, so that
 * <cstdint>, <stdint.h>, <cstddef> or <sys/types.h> may follow. */
typedef decltype(sizeof(0)) size_t;
/* Kernels may print: CUDA, HIP and OpenCL have printf, CPUs <stdio.h>'s. */
extern "C" int printf(const char *, ...);
typedef decltype((char *)0 - (char *)0) ptrdiff_t;
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
typedef unsigned char uchar;
typedef unsigned short int ushort;
typedef unsigned int uint;
typedef unsigned long int ulong;
/* half: IEEE binary16 (docs/okl.md). The backends make it the target's
 * own type (_Float16, __half, OpenCL's and Metal's half, sycl::half); here,
 * a class that converts to and from float, as each of them does, so that
 * every Clang parses it alike (Clang 14 has no _Float16 on x86-64). Its
 * arithmetic is float's. */
struct half {
  half() = default;
  half(float value);
  operator float() const;
  half &operator+=(float); half &operator-=(float);
  half &operator*=(float); half &operator/=(float);
  half &operator++(); half &operator--(); half operator++(int); half operator--(int);
private:
  unsigned short _occa_bits;
};

/* Vector types (CUDA/HIP layout: charN holds signed char): aggregates with
 * make_<type>N(), and element-wise operators between two vectors, or a
 * vector and a scalar; templates on a trait, which parse faster than 1400
 * overloads. */
namespace okl {
namespace detail {
template <class V> struct vec {}; /* v: the vector, s: its scalar, i: integer */
} // namespace detail
} // namespace okl
#define OKLC_TRAIT(V, S, I)                                                   \
  namespace okl { namespace detail {                                          \
  template <> struct vec<V> { typedef V v; typedef S s; I }; } }
#define OKLC_VEC(N, S, I)                                                     \
  struct alignas(2 * sizeof(S)) N##2 { S x, y; };                             \
  struct N##3 { S x, y, z; };                                                 \
  struct alignas(sizeof(S) < 4 ? 4 * sizeof(S) : 16) N##4 { S x, y, z, w; }; \
  N##2 make_##N##2(S, S); N##3 make_##N##3(S, S, S);                          \
  N##4 make_##N##4(S, S, S, S);                                               \
  OKLC_TRAIT(N##2, S, I(N##2)) OKLC_TRAIT(N##3, S, I(N##3))                   \
  OKLC_TRAIT(N##4, S, I(N##4))
#define OKLC_INT(V) typedef V i;
#define OKLC_FLOAT(V)
OKLC_VEC(char, signed char, OKLC_INT)
OKLC_VEC(uchar, unsigned char, OKLC_INT)
OKLC_VEC(short, short, OKLC_INT)
OKLC_VEC(ushort, unsigned short, OKLC_INT)
OKLC_VEC(int, int, OKLC_INT)
OKLC_VEC(uint, unsigned int, OKLC_INT)
OKLC_VEC(long, long, OKLC_INT)
OKLC_VEC(ulong, unsigned long, OKLC_INT)
OKLC_VEC(float, float, OKLC_FLOAT)
OKLC_VEC(double, double, OKLC_FLOAT)
#define OKLC_T(K) typename okl::detail::vec<V>::K
#define OKLC_OP(OP, K)                                                        \
  template <class V> OKLC_T(K) operator OP(V, V);                             \
  template <class V> OKLC_T(K) operator OP(V, OKLC_T(s));                     \
  template <class V> OKLC_T(K) operator OP(OKLC_T(s), V);                     \
  template <class V> OKLC_T(K) &operator OP##=(V &, V);                       \
  template <class V> OKLC_T(K) &operator OP##=(V &, OKLC_T(s));
OKLC_OP(+, v) OKLC_OP(-, v) OKLC_OP(*, v) OKLC_OP(/, v)
OKLC_OP(%, i) OKLC_OP(&, i) OKLC_OP(|, i) OKLC_OP(^, i) OKLC_OP(<<, i) OKLC_OP(>>, i)
template <class V> OKLC_T(v) operator+(V);
template <class V> OKLC_T(v) operator-(V);
template <class V> OKLC_T(i) operator~(V);

/* Math: the C functions (sqrtf, sqrt), and templates for the plain names on
 * float (sqrt(x) is a float), integer or mixed arguments (pow(x, 2) is a
 * double), as in <cmath>. Templates, not float overloads, so that a <cmath>
 * or <math.h> included later does not conflict. oklc defines
 * OKLC_PRELUDE_SYSTEM_MATH when the kernel includes <cmath> or <math.h>:
 * these then come from <cmath>, and only the extras are ours. */
namespace okl {
namespace detail {
template <class T> struct num {}; /* fp: the floating type T computes in */
#define OKLC_NUM(T, F) template <> struct num<T> { typedef T type; typedef F fp; };
OKLC_NUM(bool, double) OKLC_NUM(char, double) OKLC_NUM(signed char, double)
OKLC_NUM(unsigned char, double) OKLC_NUM(wchar_t, double) OKLC_NUM(char16_t, double)
OKLC_NUM(char32_t, double) OKLC_NUM(short, double) OKLC_NUM(unsigned short, double)
OKLC_NUM(int, double) OKLC_NUM(unsigned int, double) OKLC_NUM(long, double)
OKLC_NUM(unsigned long, double) OKLC_NUM(long long, double)
OKLC_NUM(unsigned long long, double) OKLC_NUM(float, float) OKLC_NUM(double, double)
OKLC_NUM(long double, long double)
template <class T> struct abs {}; /* abs(int) is C's; these are C++'s */
template <> struct abs<long> { typedef long type; };
template <> struct abs<long long> { typedef long long type; };
template <> struct abs<float> { typedef float type; };
template <> struct abs<double> { typedef double type; };
} // namespace detail
} // namespace okl
#define OKLC_FP(T) typename okl::detail::num<T>::fp
#define OKLC_TYPE(T) typename okl::detail::num<T>::type
#define OKLC_OWN1(F)                                                          \
  extern "C" double F(double) noexcept; extern "C" float F##f(float) noexcept; \
  template <class T> OKLC_FP(T) F(T);
#ifdef OKLC_PRELUDE_SYSTEM_MATH
#include <cmath>
#define OKLC_M1(F) using std::F;
#define OKLC_M2(F) using std::F;
#define OKLC_IS(F) using std::F;
using std::fma; using std::frexp; using std::ldexp; using std::modf; using std::abs;
#else
#define OKLC_M1(F) OKLC_OWN1(F)
#define OKLC_M2(F)                                                            \
  extern "C" double F(double, double) noexcept;                               \
  extern "C" float F##f(float, float) noexcept;                               \
  template <class A, class B> decltype(OKLC_FP(A)() + OKLC_FP(B)()) F(A, B);
#define OKLC_IS(F) template <class T> decltype(OKLC_FP(T)() == 0) F(T);
extern "C" {
double fma(double, double, double) noexcept; float fmaf(float, float, float) noexcept;
double frexp(double, int *) noexcept; float frexpf(float, int *) noexcept;
double ldexp(double, int) noexcept; float ldexpf(float, int) noexcept;
double modf(double, double *) noexcept; float modff(float, float *) noexcept;
int abs(int) noexcept; long labs(long) noexcept; long long llabs(long long) noexcept;
}
template <class A, class B, class C>
decltype(OKLC_FP(A)() + OKLC_FP(B)() + OKLC_FP(C)()) fma(A, B, C);
template <class T> OKLC_FP(T) frexp(T, int *);
template <class T> OKLC_FP(T) ldexp(T, int);
template <class T> OKLC_FP(T) modf(T, T *);
template <class T> typename okl::detail::abs<T>::type abs(T);
#endif
OKLC_M1(sqrt) OKLC_M1(cbrt) OKLC_M1(exp) OKLC_M1(exp2) OKLC_M1(expm1) OKLC_M1(log)
OKLC_M1(log2) OKLC_M1(log10) OKLC_M1(log1p) OKLC_M1(sin) OKLC_M1(cos) OKLC_M1(tan)
OKLC_M1(asin) OKLC_M1(acos) OKLC_M1(atan) OKLC_M1(sinh) OKLC_M1(cosh) OKLC_M1(tanh)
OKLC_M1(asinh) OKLC_M1(acosh) OKLC_M1(atanh) OKLC_M1(fabs) OKLC_M1(floor) OKLC_M1(ceil)
OKLC_M1(round) OKLC_M1(trunc) OKLC_M1(rint) OKLC_M1(erf) OKLC_M1(erfc) OKLC_M1(tgamma)
OKLC_M1(lgamma)
OKLC_M2(pow) OKLC_M2(atan2) OKLC_M2(fmod) OKLC_M2(remainder) OKLC_M2(fmin) OKLC_M2(fmax)
OKLC_M2(fdim) OKLC_M2(hypot) OKLC_M2(copysign) OKLC_M2(nextafter)
OKLC_IS(isnan) OKLC_IS(isinf) OKLC_IS(isfinite) OKLC_IS(signbit)

/* Math extras of CUDA/HIP and OpenCL that <cmath> lacks. */
OKLC_OWN1(rsqrt) OKLC_OWN1(rcbrt) OKLC_OWN1(exp10) OKLC_OWN1(sinpi) OKLC_OWN1(cospi)
extern "C" void sincos(double, double *, double *) noexcept;
extern "C" void sincosf(float, float *, float *) noexcept;
void sincos(float, float *, float *);

/* min, max and clamp, called unqualified as in CUDA/HIP and OpenCL; mixed
 * argument types give the usual arithmetic conversion (max(x, 0.0): double).
 * With a NaN argument the result depends on the target (fmin and fmax are
 * IEEE's everywhere). */
#define OKLC_MINMAX(T) T min(T, T); T max(T, T); T clamp(T, T, T);
OKLC_MINMAX(int) OKLC_MINMAX(unsigned int) OKLC_MINMAX(long) OKLC_MINMAX(unsigned long)
OKLC_MINMAX(long long) OKLC_MINMAX(unsigned long long) OKLC_MINMAX(float)
OKLC_MINMAX(double)
template <class A, class B> decltype(OKLC_TYPE(A)() + OKLC_TYPE(B)()) min(A, B);
template <class A, class B> decltype(OKLC_TYPE(A)() + OKLC_TYPE(B)()) max(A, B);
template <class A, class B, class C>
decltype(OKLC_TYPE(A)() + OKLC_TYPE(B)() + OKLC_TYPE(C)()) clamp(A, B, C);

/* Geometry on float and double vectors (CUDA helper_math, OpenCL). CUDA
 * has none of these but min and max, so kernels ported from it define their
 * own dot or length: those are templates with a default argument, which a
 * kernel's own function of the same signature overrides without a
 * conflict. */
#define OKLC_G template <class T = void>
#define OKLC_VMATH(V, S)                                                      \
  OKLC_G S dot(V, V); OKLC_G S length(V); OKLC_G S distance(V, V);            \
  OKLC_G V normalize(V); OKLC_G V fabs(V);                                    \
  V min(V, V); V max(V, V); V clamp(V, V, V); V clamp(V, S, S);
OKLC_VMATH(float2, float) OKLC_VMATH(float3, float) OKLC_VMATH(float4, float)
OKLC_VMATH(double2, double) OKLC_VMATH(double3, double) OKLC_VMATH(double4, double)
OKLC_G float3 cross(float3, float3); OKLC_G float4 cross(float4, float4);
OKLC_G double3 cross(double3, double3); OKLC_G double4 cross(double4, double4);

/* Constants of <math.h>, <float.h> and <limits.h> that kernels use bare. */
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
#define INFINITY (__builtin_inff ())
#define NAN (__builtin_nanf (""))
#endif
#ifndef FLT_MAX
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#endif
#ifndef INT_MAX
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#endif

/* OKL intrinsics (<okl_intrinsic.h> of occa-transpiler): asynchronous copy
 * to shared memory, of elements (s[i], v[j]) or through pointers:
 * size_and_align bytes in all, the last zfill of them set to zero (CUDA's
 * __pipeline_memcpy_async); pipeline commit and wait; warp shuffles (width:
 * the warp size if left out). */
template <class T, class U>
void okl_memcpy_async(T &dst_shared, const U &src_global, size_t size_and_align,
                      size_t zfill = 0);
template <class T, class U>
void okl_memcpy_async(T *dst_shared, const U *src_global, size_t size_and_align,
                      size_t zfill = 0);
void okl_pipeline_commit();
void okl_pipeline_wait_prior(size_t N);
float okl_exp10f(float x);
#define OKLC_SHFL(F, L)                                                       \
  template <class T> T F(unsigned int mask, T var, L);                        \
  template <class T> T F(unsigned int mask, T var, L, int width);
OKLC_SHFL(okl_shfl_sync, int src_lane) OKLC_SHFL(okl_shfl_up_sync, unsigned int delta)
OKLC_SHFL(okl_shfl_down_sync, unsigned int delta) OKLC_SHFL(okl_shfl_xor_sync, int lane_mask)

namespace okl {

/* Element (i, j, ...) of an array declared with @dim: OKL 1.0 writes it
 * m(i, j), which C++ reads as a call; the normalized form is
 * okl::at(m, i, j). The backends replace it by the flat index, with
 * @dimOrder applied. */
template <class T, class... Index>
T &at(T *array, Index... index);

} // namespace okl

/* CUDA/HIP builtins for `#if OCCA_USE_CUDA` / `#if OCCA_USE_HIP` blocks,
 * when oklc parses for one of these backends. */
#if defined(OKLC_BACKEND_CUDA) || defined(OKLC_BACKEND_HIP)
#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __forceinline__
#define __noinline__
#define __launch_bounds__(...)
#ifdef OKLC_BACKEND_HIP
#define OKLC_MASK unsigned long long /* HIP lane masks are 64 bits */
#else
#define OKLC_MASK unsigned int
#endif
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1);
};
extern const uint3 threadIdx, blockIdx;
extern const dim3 blockDim, gridDim;
extern const int warpSize;
void __syncthreads(); int __syncthreads_count(int); int __syncthreads_and(int);
int __syncthreads_or(int); void __syncwarp(OKLC_MASK mask = (OKLC_MASK)-1);
void __threadfence(); void __threadfence_block();
template <class T> T __shfl_sync(OKLC_MASK mask, T var, int src_lane, int width = warpSize);
template <class T>
T __shfl_up_sync(OKLC_MASK mask, T var, unsigned int delta, int width = warpSize);
template <class T>
T __shfl_down_sync(OKLC_MASK mask, T var, unsigned int delta, int width = warpSize);
template <class T>
T __shfl_xor_sync(OKLC_MASK mask, T var, int lane_mask, int width = warpSize);
OKLC_MASK __ballot_sync(OKLC_MASK mask, int predicate); OKLC_MASK __activemask();
int __all_sync(OKLC_MASK mask, int predicate); int __any_sync(OKLC_MASK mask, int predicate);
#ifdef OKLC_BACKEND_HIP
template <class T> T __shfl(T var, int src_lane, int width = warpSize);
template <class T> T __shfl_up(T var, unsigned int delta, int width = warpSize);
template <class T> T __shfl_down(T var, unsigned int delta, int width = warpSize);
template <class T> T __shfl_xor(T var, int lane_mask, int width = warpSize);
unsigned long long __ballot(int predicate);
#endif
int __popc(unsigned int); int __popcll(unsigned long long); int __clz(int); int __ffs(int);
template <class T> T __ldg(const T *address);
/* glibc's <math.h> declares these five too (its internal names): declared
 * as it does, so a <cmath> included after this header does not conflict */
extern "C" {
float __expf(float) noexcept; float __logf(float) noexcept; float __sinf(float) noexcept;
float __cosf(float) noexcept; float __powf(float, float) noexcept;
}
float __fdividef(float, float); float __saturatef(float);
typedef half __half;    /* CUDA's and HIP's name of half */
__half __float2half(float); float __half2float(__half);
#define OKLC_ATOMIC(F, T) T F(T *address, T value);
#define OKLC_ATOMIC3(F)                                                       \
  OKLC_ATOMIC(F, int) OKLC_ATOMIC(F, unsigned int) OKLC_ATOMIC(F, unsigned long long)
OKLC_ATOMIC3(atomicAdd) OKLC_ATOMIC(atomicAdd, float) OKLC_ATOMIC(atomicAdd, double)
OKLC_ATOMIC(atomicAdd, __half) OKLC_ATOMIC(atomicSub, int)
OKLC_ATOMIC(atomicSub, unsigned int) OKLC_ATOMIC3(atomicExch)
OKLC_ATOMIC(atomicExch, float) OKLC_ATOMIC3(atomicMin) OKLC_ATOMIC(atomicMin, long long)
OKLC_ATOMIC3(atomicMax) OKLC_ATOMIC(atomicMax, long long) OKLC_ATOMIC3(atomicAnd)
OKLC_ATOMIC3(atomicOr) OKLC_ATOMIC3(atomicXor) OKLC_ATOMIC(atomicInc, unsigned int)
OKLC_ATOMIC(atomicDec, unsigned int)
int atomicCAS(int *address, int compare, int value);
unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int value);
unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare,
                             unsigned long long value);
#undef OKLC_MASK
#undef OKLC_ATOMIC
#undef OKLC_ATOMIC3
#endif

#undef OKLC_TRAIT
#undef OKLC_VEC
#undef OKLC_INT
#undef OKLC_FLOAT
#undef OKLC_T
#undef OKLC_OP
#undef OKLC_NUM
#undef OKLC_FP
#undef OKLC_TYPE
#undef OKLC_OWN1
#undef OKLC_M1
#undef OKLC_M2
#undef OKLC_IS
#undef OKLC_MINMAX
#undef OKLC_G
#undef OKLC_VMATH
#undef OKLC_SHFL

#endif
