// Every name of include/oklc/okl.hpp that OpenCL C can have, after
// src/backends/opencl_prelude.cl: the prelude's (integer types, make_*,
// the C names of the float functions, rcbrt, sincos(x, &s, &c), the
// intrinsics) and OpenCL's own (vector operators, min/max/clamp, geometry,
// math, constants), as a kernel would call them once oklc has made the
// argument types agree. tests/prelude/gpu.sh builds it with the OpenCL
// device (PoCL) and Clang, with and without OKLC_PRELUDE_FP64.

// Sizes (C has no static_assert in OpenCL C 1.2: an array of size -1).
#define SIZE(name, cond) typedef char size_##name[(cond) ? 1 : -1];
SIZE(int8_size, sizeof(int8_t) == 1 && sizeof(int16_t) == 2 && sizeof(int32_t) == 4)
SIZE(int64_size, sizeof(int64_t) == 8 && sizeof(uint64_t) == 8 && sizeof(uint8_t) == 1)
SIZE(uint_size, sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4 && sizeof(ulong) == 8)
SIZE(sign, (int8_t)-1 < 0 && (int64_t)-1 < 0 && (uint8_t)-1 > 0 && (uint64_t)-1 > 0)
SIZE(ptr_size, sizeof(intptr_t) == sizeof(void *) && sizeof(uintptr_t) == sizeof(void *))
SIZE(size_size, sizeof(size_t) == sizeof(void *) && sizeof(ptrdiff_t) == sizeof(void *))
// OpenCL's 3-vectors are 4-vectors in memory (CUDA's float3 is 12 bytes).
SIZE(float3_size, sizeof(float3) == 16 && sizeof(float4) == 16 && sizeof(float2) == 8)
SIZE(char3_size, sizeof(char3) == 4 && sizeof(short3) == 8 && sizeof(long3) == 32)

// Vector types: every type and width, make_<type>N, every operator.
#define ARITH(V, S)                                                           \
  static V arith_##V(V a, V b, S s) {                                         \
    a = a + b; a = a - b; a = a * b; a = a / b;                               \
    a = a + s; a = a - s; a = a * s; a = a / s;                               \
    a = s + a; a = s - a; a = s * a; a = s / a;                               \
    a += b; a -= b; a *= b; a /= b;                                           \
    a += s; a -= s; a *= s; a /= s;                                           \
    a = -a; a = +a;                                                           \
    return a;                                                                 \
  }
#define INTEGER(V, S)                                                         \
  ARITH(V, S)                                                                 \
  static V integer_##V(V a, V b, S s) {                                       \
    a = arith_##V(a, b, s);                                                   \
    a = a % b; a = a & b; a = a | b; a = a ^ b; a = a << b; a = a >> b;       \
    a = a % s; a = a & s; a = a | s; a = a ^ s; a = a << s; a = a >> s;       \
    a = s % a; a = s & a; a = s | a; a = s ^ a; /* no s << a, s >> a */       \
    a %= b; a &= b; a |= b; a ^= b; a <<= b; a >>= b;                         \
    a %= s; a &= s; a |= s; a ^= s; a <<= s; a >>= s;                         \
    a = ~a;                                                                   \
    return a;                                                                 \
  }
#define VECTORS(T, OPS)                                                       \
  OPS(T##2, T) OPS(T##3, T) OPS(T##4, T)                                      \
  static T vectors_##T(T s) {                                                 \
    T##2 a2 = make_##T##2(s, s);                                              \
    T##3 a3 = make_##T##3(s, s, s);                                           \
    T##4 a4 = make_##T##4(s, s, s, s);                                        \
    a2 = OPS##_FN(T##2)(a2, a2, s);                                           \
    a3 = OPS##_FN(T##3)(a3, a3, s);                                           \
    a4 = OPS##_FN(T##4)(a4, a4, s);                                           \
    return a2.y + a3.z + a4.w;                                                \
  }
#define ARITH_FN(V) arith_##V
#define INTEGER_FN(V) integer_##V
VECTORS(char, INTEGER) VECTORS(uchar, INTEGER) VECTORS(short, INTEGER)
VECTORS(ushort, INTEGER) VECTORS(int, INTEGER) VECTORS(uint, INTEGER)
VECTORS(long, INTEGER) VECTORS(ulong, INTEGER) VECTORS(float, ARITH)
#ifdef OKLC_PRELUDE_FP64
VECTORS(double, ARITH)
#endif

// min, max, clamp of one type; geometry.
static float minmax(int i, uint u, long l, float f, float4 v, float3 p, float3 q) {
  const int a = min(i, 3) + max(i, 0) + clamp(i, 0, 15);
  const uint b = min(u, 3u) + max(u, 1u) + clamp(u, 0u, 4u);
  const long c = min(l, (long)3) + max(l, (long)0) + clamp(l, (long)0, (long)4);
  const float d = min(f, 1.0f) + max(f, 0.0f) + clamp(f, 0.0f, 1.0f);
  v = min(v, v) + max(v, v) + clamp(v, v, v) + clamp(v, 0.0f, 1.0f) + fabs(v);
  p = normalize(cross(p, q)) + clamp(p, min(p, q), max(p, q));
  const float4 w = cross(v, normalize(v));
  return (float)(a + b + c) + d + dot(v, v) + length(v) + distance(p, q) + dot(p, q) + w.w +
         length(make_float2(f, f));
}
#ifdef OKLC_PRELUDE_FP64
static double minmax_double(double x, double4 v, double3 p) {
  v = min(v, v) + max(v, v) + clamp(v, 0.0, 1.0) + fabs(v);
  p = normalize(cross(p, p));
  return min(x, 1.0) + max(x, 0.0) + clamp(x, 0.0, 1.0) + dot(v, v) + length(p) +
         distance(v, v) + dot(normalize(make_double2(x, x)), make_double2(1, 1));
}
#endif

// Math: the C names (the prelude's), the plain names (OpenCL's), extras.
static float math(float f, int i, int *e, float *fi) {
  float s = 0;
  s += sqrtf(f) + cbrtf(f) + expf(f) + exp2f(f) + expm1f(f) + logf(f) + log2f(f);
  s += log10f(f) + log1pf(f) + sinf(f) + cosf(f) + tanf(f) + asinf(f) + acosf(f);
  s += atanf(f) + sinhf(f) + coshf(f) + tanhf(f) + asinhf(f) + acoshf(f) + atanhf(f);
  s += fabsf(f) + floorf(f) + ceilf(f) + roundf(f) + truncf(f) + rintf(f) + erff(f);
  s += erfcf(f) + tgammaf(f) + lgammaf(f) + powf(f, f) + atan2f(f, f) + fmodf(f, f);
  s += remainderf(f, f) + fminf(f, f) + fmaxf(f, f) + fdimf(f, f) + hypotf(f, f);
  s += copysignf(f, f) + nextafterf(f, f) + fmaf(f, f, f);
  s += sqrt(f) + cbrt(f) + exp(f) + exp2(f) + expm1(f) + log(f) + log2(f) + log10(f);
  s += log1p(f) + sin(f) + cos(f) + tan(f) + asin(f) + acos(f) + atan(f) + sinh(f);
  s += cosh(f) + tanh(f) + asinh(f) + acosh(f) + atanh(f) + fabs(f) + floor(f);
  s += ceil(f) + round(f) + trunc(f) + rint(f) + erf(f) + erfc(f) + tgamma(f);
  s += lgamma(f) + pow(f, f) + atan2(f, f) + fmod(f, f) + remainder(f, f);
  s += fmin(f, f) + fmax(f, f) + fdim(f, f) + hypot(f, f) + copysign(f, f);
  s += nextafter(f, f) + fma(f, f, f);
  s += frexp(f, e) + frexpf(f, e) + ldexp(f, 3) + ldexpf(f, *e) + modf(f, fi) + modff(f, fi);
  s += (float)(abs(i) + labs((long)i) + llabs((long)i));
  s += (float)(isnan(f) + isinf(f) + isfinite(f) + signbit(f));
  float sn = 0, cs = 0;
  sincos(f, &sn, &cs);
  sincosf(f, &sn, &cs);
  s += rsqrt(f) + rsqrtf(f) + rcbrt(f) + rcbrtf(f) + exp10(f) + exp10f(f) + sinpi(f);
  s += sinpif(f) + cospi(f) + cospif(f) + sn + cs + okl_exp10f(f);
  s += FLT_MAX + FLT_MIN + FLT_EPSILON + (f < INFINITY ? 0 : NAN);
  s += (float)((i < INT_MAX && i > INT_MIN && (uint)i < UINT_MAX) ? 1 : 0);
  return s;
}
#ifdef OKLC_PRELUDE_FP64
static double math_double(double d, int *e, double *di) {
  double t = sqrt(d) + pow(d, d) + fma(d, d, d) + frexp(d, e) + ldexp(d, *e) + modf(d, di);
  double sd = 0, cd = 0;
  sincos(d, &sd, &cd);
  t += rsqrt(d) + rcbrt(d) + exp10(d) + sinpi(d) + cospi(d) + sd + cd;
  t += M_PI * M_PI_2 * M_PI_4 * M_1_PI * M_2_PI * M_2_SQRTPI * M_SQRT2 * M_SQRT1_2;
  t += M_E + M_LOG2E + M_LOG10E + M_LN2 + M_LN10 + DBL_MAX + DBL_MIN + DBL_EPSILON;
  return t + (double)(isnan(d) + signbit(d));
}
#endif

// The intrinsics, as the backend writes them: addresses, all arguments.
__kernel void reductionWithSharedMemory(const int entries, __global const float *vec,
                                        __global float *blockSum) {
  const int group = get_group_id(0), item = get_local_id(0);
  __local float s_vec[256];
  if ((group * 256 + item) < entries) {
    okl_memcpy_async(&s_vec[item], &vec[group * 256 + item], 4, 0);
    okl_pipeline_commit();
    okl_pipeline_wait_prior(0);
  } else {
    s_vec[item] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  blockSum[group] = s_vec[0];
}

__kernel void all(__global float *out, __global const float4 *in, __global int *iout) {
  const int i = get_global_id(0);
  __local float4 tile[64];
  okl_memcpy_async(tile + 1, in + i, 32, 16);
  // A vector's component has no address in OpenCL C (&v.y is an error).
  okl_memcpy_async((__local float *)&tile[2] + 1, (const __global float *)&in[i], 8, 0);
  okl_pipeline_commit();
  okl_pipeline_wait_prior(1);
  int e = 0;
  float fi = 0;
  const float f = out[i];
  const float3 p = make_float3(f, 1, 2), q = make_float3(2, f, 1);
  out[i] = vectors_char((char)i) + vectors_uchar((uchar)i) + vectors_short((short)i) +
           vectors_ushort((ushort)i) + vectors_int(i) + vectors_uint((uint)i) +
           vectors_long((long)i) + vectors_ulong((ulong)i) + vectors_float(f) +
           minmax(i, (uint)i, (long)i, f, tile[0], p, q) + math(f, i, &e, &fi) + tile[1].x;
#ifdef OKLC_PRELUDE_FP64
  double di = 0;
  out[i] += (float)(vectors_double((double)f) + minmax_double((double)f, make_double4(f, f, 1, 2),
                                                              make_double3(1, 2, f)) +
                    math_double((double)f, &e, &di));
#endif
  const int8_t a = (int8_t)i;
  const uint16_t b = (uint16_t)a;
  const int64_t c = (int64_t)b + (int64_t)(uint64_t)(uint32_t)(int32_t)(int16_t)(uint8_t)i;
  iout[i] = (int)c;
}
