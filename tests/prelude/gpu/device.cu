// Every name include/oklc/okl.hpp declares, in CUDA and HIP device code
// after src/backends/cuda_prelude.cuh, with the result types okl.hpp gives
// them (static_assert), and the targets' known differences spelt out:
// tests/prelude/gpu.sh compiles it with nvcc (sm_75, sm_90), NVRTC, hipcc
// and hiprtc, with every warning an error. values.cu checks the values.
template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };
#define TYPE(E, T) static_assert(same<decltype(E), T>::value, #E " is not " #T)
#if defined(__HIP__) || defined(__HIPCC__)
#define IS_HIP 1
#else
#define IS_HIP 0
#endif

// ---- Integer types: the C library's offline, long long for 64 bits in
// the runtime compilers (as libcu++ and hiprtc have them).
static_assert(same<size_t, decltype(sizeof(0))>::value, "size_t");
static_assert(sizeof(ptrdiff_t) == sizeof(void *) && ptrdiff_t(-1) < 0, "ptrdiff_t");
static_assert(sizeof(int8_t) == 1 && sizeof(int16_t) == 2 && sizeof(int32_t) == 4, "intN_t");
static_assert(sizeof(uint8_t) == 1 && sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4, "uintN_t");
static_assert(int8_t(-1) < 0 && int64_t(-1) < 0 && uint8_t(-1) > 0 && uint64_t(-1) > 0, "sign");
static_assert(sizeof(intptr_t) == sizeof(void *) && sizeof(uintptr_t) == sizeof(void *), "ptr");
static_assert(same<int8_t, signed char>::value && same<int32_t, int>::value, "int8_t");
#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
static_assert(same<int64_t, long long>::value && same<uint64_t, unsigned long long>::value,
              "int64_t");
#else
static_assert(same<int64_t, long>::value && same<uint64_t, unsigned long>::value, "int64_t");
#endif
static_assert(same<uchar, unsigned char>::value && same<ushort, unsigned short>::value, "uchar");
static_assert(same<uint, unsigned int>::value && same<ulong, unsigned long>::value, "uint");

__device__ void packBytes(const int entries, const uint8_t *bytes, uint32_t *words,
                          int64_t *sums) {
  for (int i = 0; i < entries; ++i) {
    const uint8_t *b = bytes + 4 * i;
    words[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    sums[i] = (int64_t)words[i] - (int16_t)b[0] + (int64_t)(uintptr_t)(intptr_t)i;
  }
}

// ---- Vector types: every type, every operator; make_<type>N.
template <class V, class S> __device__ void arith(V &a, const V b, const S s) {
  a = a + b; a = a - b; a = a * b; a = a / b;
  a = a + s; a = a - s; a = a * s; a = a / s;
  a = s + a; a = s - a; a = s * a; a = s / a;
  a += b; a -= b; a *= b; a /= b;
  a += s; a -= s; a *= s; a /= s;
  a = -a; a = +a;
  a = a + 1; a = 2 * a; a *= 3;
  static_assert(same<decltype(a + b), V>::value && same<decltype(s * a), V>::value, "type");
  static_assert(same<decltype(a += b), V &>::value && same<decltype(-a), V>::value, "type");
  static_assert(same<decltype(+a), V>::value && same<decltype(a /= s), V &>::value, "type");
}
template <class V, class S> __device__ void integer(V &a, const V b, const S s) {
  arith(a, b, s);
  a = a % b; a = a & b; a = a | b; a = a ^ b; a = a << b; a = a >> b;
  a = a % s; a = a & s; a = a | s; a = a ^ s; a = a << s; a = a >> s;
  a = s % a; a = s & a; a = s | a; a = s ^ a; a = s << a; a = s >> a;
  a %= b; a &= b; a |= b; a ^= b; a <<= b; a >>= b;
  a %= s; a &= s; a |= s; a ^= s; a <<= s; a >>= s;
  a = ~a; a = a % 2 + (a << 1);
  static_assert(same<decltype(a % b), V>::value && same<decltype(~a), V>::value, "type");
  static_assert(same<decltype(s << a), V>::value && same<decltype(a ^= s), V &>::value, "type");
}
#define CHECK_TYPE(N, S, OPS)                                                 \
  __device__ void test_##N(N##2 a2, N##3 a3, N##4 a4, S s) {                  \
    N##2 b2 = make_##N##2(s, s);                                              \
    N##3 b3 = make_##N##3(s, s, s);                                           \
    N##4 b4 = make_##N##4(s, s, s, s);                                        \
    OPS(a2, b2, s); OPS(a3, b3, s); OPS(a4, b4, s);                           \
    a4.x = a2.y + a3.z + b4.w;                                                \
  }                                                                           \
  static_assert(sizeof(N##2) == 2 * sizeof(S) && alignof(N##2) == 2 * sizeof(S), #N "2"); \
  static_assert(sizeof(N##3) == 3 * sizeof(S) && alignof(N##3) == alignof(S), #N "3");    \
  static_assert(sizeof(N##4) == 4 * sizeof(S), #N "4");
CHECK_TYPE(char, signed char, integer)
CHECK_TYPE(uchar, unsigned char, integer)
CHECK_TYPE(short, short, integer)
CHECK_TYPE(ushort, unsigned short, integer)
CHECK_TYPE(int, int, integer)
CHECK_TYPE(uint, unsigned int, integer)
CHECK_TYPE(long, long, integer)
CHECK_TYPE(ulong, unsigned long, integer)
CHECK_TYPE(float, float, arith)
CHECK_TYPE(double, double, arith)
// 4-vectors of 8-byte scalars are 16-byte aligned in CUDA, 32 in HIP.
static_assert(alignof(float4) == 16 && alignof(int4) == 16 && alignof(short4) == 8, "align");
static_assert(alignof(char4) == 4 && alignof(uchar4) == 4 && alignof(ushort4) == 8, "align");
static_assert(alignof(double4) == (IS_HIP ? 32 : 16) && alignof(long4) == alignof(double4) &&
              alignof(ulong4) == alignof(double4), "align of 4 x 8 bytes");

// What OKL kernels write.
__device__ void update(const int entries, float3 *position, const float3 *velocity,
                       const float dt) {
  for (int i = 0; i < entries; ++i) {
    float3 p = position[i];
    const float3 v = velocity[i];
    p += v * dt;
    p -= 0.5f * dt * dt * make_float3(0, 0, 9.81f);
    p /= make_float3(1, 1, 1);
    position[i] = -p + +p + p;
    float2 q = {p.x, p.y};
    q = q * q - q / 2 + 1;
    position[i].z = q.x + q.y;
  }
}

// ---- min, max, clamp: the usual arithmetic conversions.
__device__ void minmax(const int i, const unsigned u, const float f, const double d,
                       const size_t z, const long l, int *iout, double *dout) {
  TYPE(min(i, i), int); TYPE(max(f, f), float); TYPE(min(d, d), double);
  TYPE(max(f, 0.0), double); TYPE(min(u, i), unsigned); TYPE(max(z, 1), size_t);
  TYPE(min(i, 1L), long); TYPE(clamp(f, 0.0f, 1.0f), float); TYPE(clamp(f, 0, 1), float);
  TYPE(min(2.0f, 1), float); TYPE(max(1.0, 2.0), double); TYPE(clamp(i, 0, 15), int);
  TYPE(min(l, 2ll), long long); TYPE(max(i, 2.0), double); TYPE(clamp(d, 0, 1l), double);
  TYPE(min(d, f), double); TYPE(max(u, 1ull), unsigned long long); TYPE(min(1u, 2), unsigned);
  TYPE(clamp(z, 0, 4), size_t); TYPE(clamp(i, 0u, 4u), unsigned);
  // Narrow types: int as in C++, but HIP's own template keeps the type.
  const short sh = 4;
#if IS_HIP
  TYPE(min(sh, sh), short);
#else
  TYPE(min(sh, sh), int);
#endif
  TYPE(clamp(sh, sh, sh), int);
  iout[0] = min(i, 5) + max(i, 5) + clamp(i, 0, 2) + (int)min(u, i) + (int)max(z, 1);
  dout[0] = max(f, 0.0) + min(2.0f, 1) + clamp(f, 0, 1) + max(i, 2.0) + clamp(d, 0, 1l);
}

// ---- Geometry.
__device__ void geometry(const float3 *p, const float4 *q, const double2 *r, float *out,
                         float3 *normals, double4 *dv) {
  const float3 a = p[0], b = p[1];
  const float3 n = normalize(cross(b - a, make_float3(0, 0, 1)));
  normals[0] = clamp(fabs(n), 0.0f, 1.0f);
  normals[1] = clamp(n, min(a, b), max(a, b));
  normals[2] = clamp(n, 0, 1);
  out[0] = dot(a, b) + length(a) + distance(a, b) + dot(q[0], q[0]) + length(q[0]);
  const float4 c = cross(q[0], normalize(q[0]));
  const float2 e = {1, 2};
  out[1] = dot(e, e) + length(normalize(fabs(e))) + distance(e, min(e, max(e, e))) + c.w;
  const double2 f = normalize(r[0]);
  const double3 g = cross(make_double3(1, 0, 0), make_double3(0, 1, 0));
  const double4 h = make_double4(1, 2, 3, 4);
  out[2] = (float)(dot(f, r[0]) + length(g) + distance(h, h) + dot(clamp(h, 0, 1), h));
  dv[0] = cross(h, fabs(max(h, min(h, h))));
  TYPE(dot(a, b), float); TYPE(length(f), double); TYPE(cross(a, b), float3);
  TYPE(normalize(h), double4); TYPE(fabs(e), float2); TYPE(min(f, f), double2);
  TYPE(clamp(a, 0.0f, 1.0f), float3); TYPE(distance(g, g), double); TYPE(cross(c, c), float4);
}

// ---- Math.
__device__ void math(const float f, const double d, const int i, float *fout, double *dout,
                     bool *flags) {
  float s = 0;
  double t = 0;
  t += sqrt(d) + cbrt(d) + exp(d) + exp2(d) + expm1(d) + log(d) + log2(d) + log10(d);
  t += log1p(d) + sin(d) + cos(d) + tan(d) + asin(d) + acos(d) + atan(d) + sinh(d);
  t += cosh(d) + tanh(d) + asinh(d) + acosh(d) + atanh(d) + fabs(d) + floor(d);
  t += ceil(d) + round(d) + trunc(d) + rint(d) + erf(d) + erfc(d) + tgamma(d);
  t += lgamma(d) + pow(d, d) + atan2(d, d) + fmod(d, d) + remainder(d, d);
  t += fmin(d, d) + fmax(d, d) + fdim(d, d) + hypot(d, d) + copysign(d, d);
  t += nextafter(d, d) + fma(d, d, d);
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
  TYPE(sqrt(f), float); TYPE(fabs(f), float); TYPE(pow(f, 2.0f), float);
  TYPE(sqrt(d), double); TYPE(atan2(f, f), float); TYPE(fma(f, f, f), float);
  // Integer and mixed arguments compute in double (nvcc: <cmath>'s
  // templates, which device code calls with --expt-relaxed-constexpr).
  TYPE(sqrt(2), double); TYPE(pow(f, 2.0), double); TYPE(pow(2, 3), double);
  TYPE(fmin(f, 0.0), double); TYPE(atan2(1, f), double); TYPE(ldexp(1, 4), double);
  TYPE(hypot(i, 1), double); TYPE(exp(i), double); TYPE(fma(f, 1.0, 2), double);
  TYPE(fabs(i), double); TYPE(floor(2), double); TYPE(isinf(2), bool);
  // pow(float, int): HIP's and NVRTC's own overload give a float.
#if IS_HIP || defined(__CUDACC_RTC__)
  TYPE(pow(f, 2), float);
#else
  TYPE(pow(f, 2), double);
#endif
  t += sqrt(i) + exp(i) + pow(f, 2) + pow(f, 2.0) + fmax(f, 0.0) + hypot(i, 1) + ldexp(1, 4);
  int e = 0;
  float fi = 0;
  double di = 0;
  s += frexp(f, &e) + frexpf(f, &e) + ldexp(f, 3) + ldexpf(f, e) + modf(f, &fi) + modff(f, &fi);
  t += frexp(d, &e) + ldexp(d, e) + modf(d, &di);
  TYPE(ldexp(f, 3), float); TYPE(frexp(d, &e), double); TYPE(modf(f, &fi), float);
  TYPE(abs(-3), int); TYPE(abs(f), float); TYPE(abs(d), double); TYPE(abs(-3l), long);
  s += abs(f) + (float)(abs(-3) + abs(-3l) + labs(-1l) + llabs(-1ll));
  // isnan and co. are bool, but int under NVRTC (CUDA's own declarations).
#ifdef __CUDACC_RTC__
  TYPE(isnan(f), int); TYPE(signbit(d), int);
#else
  TYPE(isnan(f), bool); TYPE(signbit(d), bool);
#endif
  TYPE(isnan(i), bool);
  flags[0] = isnan(f) || isinf(f) || isfinite(f) || signbit(f) || isnan(d) || isinf(d) ||
             isfinite(d) || signbit(d) || isnan(i) || isinf(i) || isfinite(i) || signbit(i);
  // The extras of CUDA/HIP and OpenCL.
  float sn = 0, cs = 0;
  double sd = 0, cd = 0;
  sincos(f, &sn, &cs);
  sincosf(f, &sn, &cs);
  sincos(d, &sd, &cd);
  s += rsqrt(f) + rsqrtf(f) + rcbrt(f) + rcbrtf(f) + exp10(f) + exp10f(f) + sinpi(f);
  s += sinpif(f) + cospi(f) + cospif(f) + sn + cs + okl_exp10f(f);
  t += rsqrt(d) + rcbrt(d) + exp10(d) + sinpi(d) + cospi(d) + sd + cd + rsqrt(2);
  TYPE(rsqrt(f), float); TYPE(rsqrt(d), double); TYPE(rsqrt(2), double);
  TYPE(rcbrt(f), float); TYPE(exp10(f), float); TYPE(exp10(2), double);
  TYPE(sinpi(f), float); TYPE(cospi(d), double); TYPE(rsqrtf(f), float);
  TYPE(exp10f(f), float); TYPE(sinpif(f), float); TYPE(cospif(f), float);
  TYPE(rcbrtf(f), float); TYPE(okl_exp10f(f), float); TYPE(cospi(f), float);
  // Constants.
  t += M_PI * M_PI_2 * M_PI_4 * M_1_PI * M_2_PI * M_2_SQRTPI * M_SQRT2 * M_SQRT1_2;
  t += M_E + M_LOG2E + M_LOG10E + M_LN2 + M_LN10 + DBL_MAX + DBL_MIN + DBL_EPSILON;
  s += FLT_MAX + FLT_MIN + FLT_EPSILON + (f < INFINITY ? 0 : NAN);
  static_assert(INT_MAX == 2147483647 && INT_MIN == -INT_MAX - 1 && UINT_MAX == 4294967295u,
                "limits");
  static_assert(same<decltype(M_PI), double>::value && same<decltype(FLT_MAX), float>::value &&
                same<decltype(DBL_EPSILON), double>::value, "constants");
  TYPE(INFINITY, float); TYPE(NAN, float);
  fout[0] = s;
  dout[0] = t;
}

// ---- OKL intrinsics: the seed's kernel (the copy takes the elements).
const int block = 256;
extern "C" __global__ void __launch_bounds__(256)
    _occa_reductionWithSharedMemory_0(const int entries, const float *vec, float *blockSum) {
  {
    int group = (0) + blockIdx.x;
    __shared__ float s_vec[256];
    {
      int item = (0) + threadIdx.x;
      if ((group * block + item) < entries) {
        okl_memcpy_async(s_vec[item], vec[group * block + item], 4);
        okl_pipeline_commit();
        okl_pipeline_wait_prior(0);
      } else {
        s_vec[item] = 0;
      }
    }
    __syncthreads();
    blockSum[group] = s_vec[0];
  }
}

// Through pointers, whole arrays, other types, zero fill, a wait that is
// not a constant.
extern "C" __global__ void stage(const int entries, const double4 *in, double4 *out,
                                 const int *keys) {
  __shared__ double4 tile[64];
  __shared__ int k[64];
  const int i = threadIdx.x;
  if (i < entries) {
    okl_memcpy_async(&tile[i % 64], &in[i], sizeof(double4));
    okl_memcpy_async(tile + 1, in + i, 32, 0);
    okl_memcpy_async(k, keys, sizeof(k));
    okl_memcpy_async(tile[0], in[i], 32, 16);
    const void *src = in;
    void *dst = tile;
    okl_memcpy_async(dst, src, 16);
    okl_memcpy_async(tile[2].y, in[i].x, 8);
    okl_pipeline_commit();
    okl_pipeline_wait_prior(1);
    okl_pipeline_wait_prior(entries);
    out[i] = tile[i % 64];
  }
}

// Warp shuffles of several types, with and without a width.
__device__ float warpSum(float value, int lane) {
  for (int offset = 16; offset > 0; offset /= 2) {
    value += okl_shfl_down_sync(0xffffffffu, value, offset);
  }
  value += okl_shfl_up_sync(0xffffffffu, value, 1u, 32);
  value += okl_shfl_xor_sync(0xffffffffu, value, 1);
  int broadcast = okl_shfl_sync(0xffffffffu, lane, 0);
  double d = okl_shfl_sync(0xffffffffu, 1.0, 0, 16);
  const float4 f4 = okl_shfl_sync(0xffffffffu, make_float4(1, 2, 3, 4), 3);
  const char c = okl_shfl_xor_sync(1u, 'x', 1, 32);
  const bool b = okl_shfl_down_sync(3u, lane > 2, 1);
  const long long ll = okl_shfl_up_sync(0xffffffffu, 1ll << 40, 2u);
  const float x = okl_shfl_sync(0xffffffffu, f4.x, 0); // HIP: a component accessor
  TYPE(okl_shfl_sync(0xffffffffu, value, 0), float);
  TYPE(okl_shfl_down_sync(0xffffffffu, 1.0, 1u, 16), double);
  TYPE(okl_shfl_xor_sync(0xffffffffu, f4, 1), float4);
  TYPE(okl_shfl_sync(0xffffffffu, f4.x, 0), float);
  return value + (float)broadcast + (float)d + okl_exp10f(value) + f4.w + c + b + (float)ll + x;
}

// ---- A kernel ported from CUDA brings its own helper_math.h-like
// functions and operators: they do not conflict with the prelude's, and
// calls choose them.
struct Mine {};
inline __host__ __device__ float3 operator+(float3 a, float3 b) {
  return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}
inline __host__ __device__ Mine operator*(float3, Mine) { return Mine(); }
inline __host__ __device__ float dot(float3 a, float3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline __host__ __device__ float length(float3 v) { return sqrtf(dot(v, v)); }
inline __host__ __device__ float3 normalize(float3 v) {
  const float inv = rsqrtf(dot(v, v));
  return make_float3(v.x * inv, v.y * inv, v.z * inv);
}
inline __host__ __device__ float clamp(float f, float a, float b) { return fmaxf(a, fminf(f, b)); }
inline __host__ __device__ float3 clamp(float3 v, float a, float b) {
  return make_float3(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b));
}
inline __host__ __device__ float3 cross(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
inline __host__ __device__ float3 fabs(float3 v) {
  return make_float3(fabsf(v.x), fabsf(v.y), fabsf(v.z));
}
inline __host__ __device__ float3 fminf(float3 a, float3 b) {
  return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z));
}
__device__ float3 ported(float3 a, float3 b, float f) {
  TYPE(a * Mine(), Mine);
  return normalize(cross(a, b) + clamp(a, 0.0f, 1.0f)) * (dot(a, b) + length(fabs(b))) +
         fminf(a, b) * clamp(f, 0.0f, 1.0f);
}

// ---- A kernel's __host__ __device__ function may use the prelude (nvcc
// compiles it for the host too).
__host__ __device__ inline float both(float4 a, int i, float f) {
  a = a * 2.0f + make_float4(1, 2, 3, 4);
  const int4 k = make_int4(i, i, i, i) << 1;
  return dot(a, a) + length(a) + (float)max(f, 0.0) + clamp(f, 0, 1) + (float)min(i, 2u) +
         (float)k.w + (float)rsqrt(4) + exp10(f) + okl::detail::num<int>::fp(1);
}
extern "C" __global__ void useBoth(float *out) { out[0] = both(make_float4(1, 1, 1, 1), 3, 2); }

// Every function above is instantiated in a kernel.
extern "C" __global__ void all(float *fout, double *dout, int *iout, bool *flags, float3 *f3,
                               float4 *f4, double2 *d2, double4 *d4, uint8_t *bytes,
                               uint32_t *words, int64_t *sums) {
  const int i = threadIdx.x;
  packBytes(i, bytes, words, sums);
  test_char(make_char2(1, 2), make_char3(1, 2, 3), make_char4(1, 2, 3, 4), (signed char)i);
  test_uchar(make_uchar2(1, 2), make_uchar3(1, 2, 3), make_uchar4(1, 2, 3, 4), (uchar)i);
  test_short(make_short2(1, 2), make_short3(1, 2, 3), make_short4(1, 2, 3, 4), (short)i);
  test_ushort(make_ushort2(1, 2), make_ushort3(1, 2, 3), make_ushort4(1, 2, 3, 4), (ushort)i);
  test_int(make_int2(1, 2), make_int3(1, 2, 3), make_int4(1, 2, 3, 4), i);
  test_uint(make_uint2(1, 2), make_uint3(1, 2, 3), make_uint4(1, 2, 3, 4), (uint)i);
  test_long(make_long2(1, 2), make_long3(1, 2, 3), make_long4(1, 2, 3, 4), (long)i);
  test_ulong(make_ulong2(1, 2), make_ulong3(1, 2, 3), make_ulong4(1, 2, 3, 4), (ulong)i);
  test_float(make_float2(1, 2), make_float3(1, 2, 3), make_float4(1, 2, 3, 4), fout[i]);
  test_double(make_double2(1, 2), make_double3(1, 2, 3), make_double4(1, 2, 3, 4), dout[i]);
  update(i, f3, f3 + 64, fout[0]);
  minmax(i, (unsigned)i, fout[1], dout[1], (size_t)i, (long)i, iout, dout + 2);
  geometry(f3, f4, d2, fout + 2, f3 + 2, d4);
  math(fout[3], dout[3], i, fout + 4, dout + 4, flags);
  fout[5] = warpSum(fout[6], i % warpSize);
  f3[5] = ported(f3[6], f3[7], fout[7]);
}
