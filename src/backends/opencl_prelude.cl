/*
 * opencl_prelude.cl - what every file of the OpenCL backend starts with:
 * oklc pastes this text at the top of the OpenCL C 1.2 it generates, which
 * the runtime builds with clBuildProgram (-cl-std=CL1.2).
 *
 * OpenCL C has most of what include/oklc/okl.hpp (the parse prelude)
 * declares built in: size_t, ptrdiff_t, intptr_t, uintptr_t, uchar, ushort,
 * uint, ulong; the vector types char2..double4 with the element-wise
 * operators (vector-vector, vector-scalar, scalar-vector but s << v and
 * s >> v, compound assignments, unary + - ~); the math functions under
 * their plain names (sqrt, pow, ..., rsqrt, exp10, sinpi, cospi),
 * overloaded on float and double; min, max, clamp (also of vectors, and
 * clamp(v, lo, hi) of a vector and scalars); dot, length, distance,
 * normalize, cross, fabs of vectors; the constants (M_PI, FLT_MAX, INT_MAX,
 * INFINITY, NAN, ...). This file defines, in C (no templates, no
 * overloading), what it lacks:
 *  - int8_t ... uint64_t (char, short, int, long and their unsigned types);
 *  - make_<type>N(x, y, ...) for every type and width 2 to 4 (OpenCL writes
 *    (float4)(x, y, z, w));
 *  - the C names with a suffix: sqrtf ... fmaf, frexpf, ldexpf, modff,
 *    rsqrtf, rcbrtf, exp10f, sinpif, cospif, sincosf(x, &s, &c), labs,
 *    llabs, and rcbrt (which OpenCL lacks) on float;
 *  - the intrinsics that make sense: okl_memcpy_async as a plain copy,
 *    okl_pipeline_commit and okl_pipeline_wait_prior as nothing, and
 *    okl_exp10f. okl_memcpy_async(dst, src, size_and_align, zfill) takes
 *    pointers (C has no references): a __local destination, a __global
 *    source, all four arguments; the backend writes &x for an element x
 *    and 0 for a zfill left out. No shuffles: OpenCL 1.2 has no sub-groups.
 *  - with a compiler that has __attribute__((overloadable)) (Clang and the
 *    compilers built on it, PoCL's among them), the overloads okl.hpp
 *    declares that OpenCL's builtins cannot give: sincos(x, &s, &c)
 *    (OpenCL's sincos is s = sincos(x, &c)) and rcbrt on double. Other
 *    compilers: rcbrt on float only, no sincos(x, &s, &c) (a compile
 *    error).
 *
 * Doubles: the backend defines OKLC_PRELUDE_FP64 before this text when the
 * kernel uses double anywhere (a declaration, cast, literal or call of that
 * type: 0.5 and sqrt(2) are doubles). The prelude then enables cl_khr_fp64
 * and defines the double helpers (make_double4, rcbrt and sincos on
 * double), or stops with an #error on a device without doubles. Without it
 * nothing here names double, so that float kernels build on such devices.
 * Half: likewise OKLC_PRELUDE_HALF (the kernel names half) enables
 * cl_khr_fp16, or stops with an #error on a device without it; the
 * runtime's message names the kernel and the device.
 *
 * What a kernel may trip on (OKL on CPUs, CUDA and HIP is C++):
 *  - float3 (every 3-vector) has the size and alignment of a 4-vector: 16
 *    bytes, 12 in CUDA and on CPUs; arrays of them and structs holding them
 *    have another layout, and host data of 3-vectors must be padded;
 *  - a vector operation with a scalar of a higher rank is an error:
 *    v * 0.5 with v a float4 (0.5 is a double: write 0.5f), and there is no
 *    implicit conversion between vector types;
 *  - min, max, clamp, fmin, ... of mixed types are ambiguous calls (max(x,
 *    0.0), clamp(x, 0, 1) with x a float; min(i, 1u)), and so are integer
 *    arguments to the floating functions (sqrt(2)): OpenCL has no usual
 *    arithmetic conversion across overloads. The backend should cast the
 *    arguments to the type okl.hpp's template gives (it is in the parsed
 *    kernel's AST); else the kernel must write max(x, 0.0f). pow(x, 2) of
 *    a float is a float (pow(float, float)), a double in C++;
 *  - s << v and s >> v (a scalar shifted by a vector) are errors; so is the
 *    address of a vector's component (&v.y): okl_memcpy_async of one takes
 *    (__local float *)&v + 1;
 *  - abs of a signed integer is unsigned (abs(-3) is 3u); isnan, isinf,
 *    isfinite and signbit give an int (and -1 per true component on
 *    vectors); sincos's builtin form is s = sincos(x, &c); min and max of
 *    floats with a NaN are unspecified (fmin, fmax are IEEE's);
 *  - pointers carry an address space (__global, __local, __private): a
 *    function taking a pointer takes one space only;
 *  - no long long (llabs takes a long), no templates, references,
 *    overloads (but those Clang's overloadable attribute gives), lambdas or
 *    namespaces.
 *
 * Names of its own start with _occa_; its helper macros are undefined at
 * the end (what stays: the include guard).
 */
#ifndef OKLC_OPENCL_PRELUDE_CL
#define OKLC_OPENCL_PRELUDE_CL

#ifdef OKLC_PRELUDE_HALF
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#else
#error "the kernel uses half, which this OpenCL device does not have (no cl_khr_fp16)"
#endif
#endif

#ifdef OKLC_PRELUDE_FP64
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define _occa_FP64 1
#else
#error "the kernel uses double, which this OpenCL device does not have (no cl_khr_fp64)"
#endif
#endif

/* Its functions are static inline, which Clang's -Wall reports unused in
 * the main file when a kernel does not call them. */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

#if defined(__has_attribute)
#if __has_attribute(overloadable)
#define _occa_OVERLOAD __attribute__((overloadable))
#endif
#endif

/* ---- Integer types (size_t, ptrdiff_t, intptr_t, uintptr_t, uchar,
 * ushort, uint and ulong are OpenCL's). */
typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;

/* ---- make_<type>N. */
#define _occa_MAKE(T)                                                         \
  static inline T##2 make_##T##2(T x, T y) { return (T##2)(x, y); }           \
  static inline T##3 make_##T##3(T x, T y, T z) { return (T##3)(x, y, z); }   \
  static inline T##4 make_##T##4(T x, T y, T z, T w) { return (T##4)(x, y, z, w); }
_occa_MAKE(char) _occa_MAKE(uchar) _occa_MAKE(short) _occa_MAKE(ushort) _occa_MAKE(int)
_occa_MAKE(uint) _occa_MAKE(long) _occa_MAKE(ulong) _occa_MAKE(float)
#ifdef _occa_FP64
_occa_MAKE(double)
#endif

/* ---- The C names of the float functions, and the extras. */
#define _occa_F1(F) static inline float F##f(float x) { return F(x); }
#define _occa_F2(F) static inline float F##f(float x, float y) { return F(x, y); }
_occa_F1(sqrt) _occa_F1(cbrt) _occa_F1(exp) _occa_F1(exp2) _occa_F1(expm1) _occa_F1(log)
_occa_F1(log2) _occa_F1(log10) _occa_F1(log1p) _occa_F1(sin) _occa_F1(cos) _occa_F1(tan)
_occa_F1(asin) _occa_F1(acos) _occa_F1(atan) _occa_F1(sinh) _occa_F1(cosh) _occa_F1(tanh)
_occa_F1(asinh) _occa_F1(acosh) _occa_F1(atanh) _occa_F1(fabs) _occa_F1(floor) _occa_F1(ceil)
_occa_F1(round) _occa_F1(trunc) _occa_F1(rint) _occa_F1(erf) _occa_F1(erfc) _occa_F1(tgamma)
_occa_F1(lgamma) _occa_F1(rsqrt) _occa_F1(exp10) _occa_F1(sinpi) _occa_F1(cospi)
_occa_F2(pow) _occa_F2(atan2) _occa_F2(fmod) _occa_F2(remainder) _occa_F2(fmin) _occa_F2(fmax)
_occa_F2(fdim) _occa_F2(hypot) _occa_F2(copysign) _occa_F2(nextafter)
static inline float rcbrtf(float x) { return 1.0f / cbrt(x); }
static inline float fmaf(float x, float y, float z) { return fma(x, y, z); }
static inline float frexpf(float x, int *e) { return frexp(x, e); }
static inline float ldexpf(float x, int e) { return ldexp(x, e); }
static inline float modff(float x, float *i) { return modf(x, i); }
static inline void sincosf(float x, float *s, float *c) { *s = sincos(x, c); }
static inline long labs(long x) { return x < 0 ? -x : x; }
static inline long llabs(long x) { return x < 0 ? -x : x; }
static inline float okl_exp10f(float x) { return exp10(x); }
#ifdef _occa_OVERLOAD
static inline float _occa_OVERLOAD rcbrt(float x) { return 1.0f / cbrt(x); }
static inline void _occa_OVERLOAD sincos(float x, float *s, float *c) {
  *s = sin(x);
  *c = cos(x);
}
#ifdef _occa_FP64
static inline double _occa_OVERLOAD rcbrt(double x) { return 1.0 / cbrt(x); }
static inline void _occa_OVERLOAD sincos(double x, double *s, double *c) {
  *s = sin(x);
  *c = cos(x);
}
#endif
#else
static inline float rcbrt(float x) { return 1.0f / cbrt(x); }
#endif

/* ---- OKL intrinsics: the copy is done at once, so commit and wait have
 * nothing to wait for. size_and_align bytes in all, the last zfill of them
 * set to 0. */
static inline void okl_memcpy_async(__local void *dst_shared, const __global void *src_global,
                                    size_t size_and_align, size_t zfill) {
  const size_t size = size_and_align, kept = zfill < size ? size - zfill : 0;
  if ((((size_t)dst_shared | (size_t)src_global | size | kept) & 3) == 0) {
    __local uint *d = (__local uint *)dst_shared;
    const __global uint *s = (const __global uint *)src_global;
    for (size_t i = 0; i < kept / 4; ++i) d[i] = s[i];
    for (size_t i = kept / 4; i < size / 4; ++i) d[i] = 0;
  } else {
    __local uchar *d = (__local uchar *)dst_shared;
    const __global uchar *s = (const __global uchar *)src_global;
    for (size_t i = 0; i < kept; ++i) d[i] = s[i];
    for (size_t i = kept; i < size; ++i) d[i] = 0;
  }
}
static inline void okl_pipeline_commit(void) {}
static inline void okl_pipeline_wait_prior(size_t n) { (void)n; }

#ifdef __clang__
#pragma clang diagnostic pop
#endif

#undef _occa_FP64
#undef _occa_OVERLOAD
#undef _occa_MAKE
#undef _occa_F1
#undef _occa_F2

#endif
