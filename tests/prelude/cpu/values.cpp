// Values and types computed with src/backends/cpu_prelude.hpp, which
// tests/prelude/cpu.sh force-includes before this file (as oklc pastes it
// before a kernel). A program, not a kernel: it prints each failed check and
// exits 1. With -DUSER_STD the "kernel" includes the C and C++ headers after
// the prelude and says `using namespace std;` (user_std.hpp): every result
// must stay the same, and no call may become ambiguous.
#ifdef USER_STD
#include "user_std.hpp"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdio.h>

template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };
#define TYPE(E, T) static_assert(same<decltype(E), T>::value, #E " is not " #T)

static int failures = 0, checks = 0;
#define CHECK(C)                                                              \
  do {                                                                        \
    ++checks;                                                                 \
    if (!(C)) {                                                               \
      printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #C);            \
      ++failures;                                                             \
    }                                                                         \
  } while (0)
// Equal within tol, relative to the larger magnitude when it is above 1.
static double mag(double a) { return a < 0 ? -a : a; }
static bool near(double a, double b, double tol) {
  const double m = mag(a) > mag(b) ? mag(a) : mag(b);
  return mag(a - b) <= tol * (m > 1 ? m : 1);
}
#define NEARF(A, B) CHECK(near((A), (B), 1e-6))
#define NEARD(A, B) CHECK(near((A), (B), 1e-14))

// Values the optimizer cannot fold.
static volatile int vi = 3;
static volatile float vf = 2.5f;
static volatile double vd = 0.25;

static void test_vectors() {
  // Layout and alignment of CUDA's vector types.
  static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4");
  static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3");
  static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2");
  static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2");
  static_assert(sizeof(double3) == 24 && alignof(double3) == 8, "double3");
  static_assert(sizeof(double4) == 32 && alignof(double4) == 16, "double4");
  static_assert(sizeof(char4) == 4 && alignof(char4) == 4, "char4");
  static_assert(sizeof(uchar2) == 2 && alignof(uchar2) == 2, "uchar2");
  static_assert(sizeof(short4) == 8 && alignof(short4) == 8, "short4");
  static_assert(sizeof(ushort3) == 6 && alignof(ushort3) == 2, "ushort3");
  static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "int2");
  static_assert(sizeof(uint4) == 16 && alignof(uint4) == 16, "uint4");
  static_assert(sizeof(long2) == 16 && alignof(long2) == 16, "long2");
  static_assert(sizeof(ulong4) == 32 && alignof(ulong4) == 16, "ulong4");
  static_assert(same<decltype(char2().x), signed char>::value, "char2 holds signed char");
  static_assert(same<decltype(ulong3().z), unsigned long>::value, "ulong3");

  const float s = vf; // 2.5
  const float4 a = make_float4(1, 2, 3, 4), b = make_float4(s, s, s, s);
  TYPE(a + b, float4); TYPE(a * 2.0f, float4); TYPE(2 * a, float4); TYPE(-a, float4);
  float4 c = a + b;
  CHECK(c.x == 3.5f && c.y == 4.5f && c.z == 5.5f && c.w == 6.5f);
  c = a - b;
  CHECK(c.x == -1.5f && c.w == 1.5f);
  c = a * b;
  CHECK(c.x == 2.5f && c.w == 10.0f);
  c = a / 2;
  CHECK(c.x == 0.5f && c.y == 1.0f && c.z == 1.5f && c.w == 2.0f);
  c = 12.0f / a;
  CHECK(c.x == 12.0f && c.y == 6.0f && c.z == 4.0f && c.w == 3.0f);
  c = 1 - a;
  CHECK(c.x == 0.0f && c.w == -3.0f);
  c = -a + +a;
  CHECK(c.x == 0.0f && c.y == 0.0f && c.z == 0.0f && c.w == 0.0f);
  c = a;
  c += a;
  c *= 2;
  c -= make_float4(1, 1, 1, 1);
  c /= a;
  TYPE(c += a, float4 &); TYPE(c *= 2.0f, float4 &);
  CHECK(c.x == 3.0f && c.y == 3.5f && c.w == 3.75f);

  float3 p = {1, 2, 3};
  p = 0.5f * p + make_float3(0, 0, s);
  CHECK(p.x == 0.5f && p.y == 1.0f && p.z == 4.0f);
  double2 q = make_double2(vd, 1);
  q = q * q - q / 2;
  NEARD(q.x, 0.0625 - 0.125);
  NEARD(q.y, 0.5);

  // Integer vectors: % & | ^ << >> ~, and the wrap of narrow types.
  const int4 k = make_int4(vi, 7, -8, 100);
  int4 m = k % 2;
  CHECK(m.x == 1 && m.y == 1 && m.z == 0 && m.w == 0);
  m = (make_int4(vi, 7, 8, 100) << 2) >> 1;
  CHECK(m.x == 6 && m.y == 14 && m.z == 16 && m.w == 200);
  m = (k & 6) | make_int4(8, 0, 0, 0);
  CHECK(m.x == 10 && m.y == 6 && m.z == 0 && m.w == 4);
  m = ~k ^ 1;
  CHECK(m.x == -3 && m.y == -7 && m.z == 6 && m.w == -102);
  m = 100 % k;
  CHECK(m.x == 1 && m.y == 2 && m.z == 4 && m.w == 0);
  m = k;
  m %= 5; m &= 3; m |= 4; m ^= 1; m <<= 1; m >>= make_int4(1, 1, 1, 1);
  CHECK(m.x == 6 && m.y == 7 && m.z == 4 && m.w == 5);
  TYPE(~k, int4); TYPE(k % k, int4); TYPE(m <<= 1, int4 &);
  uchar4 u = make_uchar4(200, 255, 0, 1);
  u = u + (uchar)100;
  CHECK(u.x == 44 && u.y == 99 && u.z == 100 && u.w == 101);
  char2 ch = make_char2(100, -128);
  ch = ch + ch;
  CHECK(ch.x == -56 && ch.y == 0);
  ch = -ch;
  CHECK(ch.x == 56 && ch.y == 0);
  uint2 ui = make_uint2(1, 2) - 3u;
  CHECK(ui.x == 4294967294u && ui.y == 4294967295u);
  ulong3 ul = make_ulong3(1, 2, 3) * 4ul;
  CHECK(ul.x == 4 && ul.y == 8 && ul.z == 12);
  short4 sh = make_short4(1, 2, 3, 4) * make_short4(1000, 1000, 1000, 1000);
  CHECK(sh.x == 1000 && sh.w == 4000);
  ushort2 us = ~make_ushort2(0, 1);
  CHECK(us.x == 65535 && us.y == 65534);
  long4 lg = make_long4(1, 2, 3, 4) << 40;
  CHECK(lg.x == (1l << 40) && lg.w == (4l << 40));
}

static void test_geometry() {
  const float3 a = make_float3(3, 0, 4), b = make_float3(0, 1, 0);
  TYPE(dot(a, b), float); TYPE(length(a), float); TYPE(normalize(a), float3);
  TYPE(cross(a, b), float3); TYPE(distance(a, b), float);
  CHECK(dot(a, a) == 25.0f && length(a) == 5.0f && distance(a, a) == 0.0f);
  NEARF(distance(a, b), 5.0990195f);
  const float3 n = normalize(a);
  NEARF(n.x, 0.6f);
  NEARF(n.z, 0.8f);
  const float3 c = cross(a, b);
  CHECK(c.x == -4.0f && c.y == 0.0f && c.z == 3.0f);
  const float4 p = make_float4(1, 0, 0, 7), q = make_float4(0, 1, 0, 9);
  const float4 r = cross(p, q);
  CHECK(r.x == 0 && r.y == 0 && r.z == 1 && r.w == 0);
  CHECK(dot(p, q) == 63.0f);
  const float2 e = make_float2(-1.5f, 2);
  const float2 f = fabs(e);
  CHECK(f.x == 1.5f && f.y == 2.0f);
  float2 g = min(e, make_float2(0, 0));
  CHECK(g.x == -1.5f && g.y == 0.0f);
  g = max(e, make_float2(0, 0));
  CHECK(g.x == 0.0f && g.y == 2.0f);
  g = clamp(e, -1.0f, 1.0f);
  CHECK(g.x == -1.0f && g.y == 1.0f);
  g = clamp(e, make_float2(-2, 3), make_float2(-1, 4));
  CHECK(g.x == -1.5f && g.y == 3.0f);
  TYPE(clamp(e, 0, 1), float2); TYPE(fabs(e), float2);

  const double4 h = make_double4(1, 2, 3, 4);
  TYPE(length(h), double); TYPE(cross(h, h), double4); TYPE(min(h, h), double4);
  NEARD(length(h), 5.477225575051661);
  CHECK(dot(h, h) == 30.0);
  const double4 cl = clamp(h, 2, 3);
  CHECK(cl.x == 2 && cl.y == 2 && cl.z == 3 && cl.w == 3);
  const double2 d2 = normalize(make_double2(0, -vd));
  CHECK(d2.x == 0.0 && d2.y == -1.0);
  const double3 d3 = cross(make_double3(1, 0, 0), make_double3(0, 1, 0));
  CHECK(d3.x == 0 && d3.y == 0 && d3.z == 1);
}

static void test_math() {
  const float f = vf;    // 2.5
  const double d = vd;   // 0.25
  const int i = vi;      // 3
  // <cmath>'s overloads, unqualified.
  TYPE(sqrt(2.0f), float); TYPE(sqrt(2), double); TYPE(sqrt(2.0), double);
  TYPE(abs(-1.5f), float); TYPE(abs(-1.5), double); TYPE(abs(-1), int); TYPE(abs(-1l), long);
  TYPE(pow(f, 2), double); TYPE(pow(f, 2.0f), float); TYPE(pow(2, 3), double);
  TYPE(fmin(f, 0.0), double); TYPE(atan2(1, f), double); TYPE(fma(f, f, f), float);
  TYPE(ldexp(f, 3), float); TYPE(ldexp(1, 4), double); TYPE(isnan(f), bool);
  TYPE(sqrtf(2), float); TYPE(fabs(f), float); TYPE(floor(d), double);
  CHECK(abs(-1.5f) == 1.5f && abs(-i) == 3 && labs(-4l) == 4 && llabs(-5ll) == 5);
  CHECK(sqrt(f * f) == f && sqrt(4) == 2.0 && pow(f, 2) == 6.25 && ldexp(1, 4) == 16.0);
  CHECK(fabsf(-f) == f && floor(-d) == -1.0 && round(f) == 3.0f && fmod(7.5, 2) == 1.5);
  CHECK(isnan(NAN) && isinf(INFINITY) && !isfinite(-INFINITY) && signbit(-d) && !isnan(i));
  int e = 0;
  CHECK(frexp(8.0f, &e) == 0.5f && e == 4);
  float fi = 0;
  CHECK(modf(f, &fi) == 0.5f && fi == 2.0f);

  // The extras of CUDA/HIP and OpenCL.
  TYPE(rsqrt(f), float); TYPE(rsqrt(d), double); TYPE(rsqrt(2), double);
  TYPE(rcbrt(f), float); TYPE(exp10(f), float); TYPE(exp10(2), double);
  TYPE(sinpi(f), float); TYPE(cospi(d), double); TYPE(rsqrtf(f), float);
  TYPE(exp10f(f), float); TYPE(sinpif(f), float); TYPE(cospif(f), float);
  TYPE(rcbrtf(f), float); TYPE(okl_exp10f(f), float);
  CHECK(rsqrt(4.0f * vf / 2.5f) == 0.5f && rsqrtf(16) == 0.25f && rsqrt(d) == 2.0);
  NEARD(rcbrt(8.0 * vd * 4), 0.5);
  NEARF(rcbrtf(27), 1.0f / 3);
  NEARD(exp10(2.0 * vd * 4), 100.0);
  NEARF(exp10f(f), 316.22776601683793f);
  NEARF(okl_exp10f(-f), 0.0031622776601683794f);
  NEARD(exp10(i), 1000.0);
  // sinpi and cospi are exact at multiples of 1/2, with IEEE's signed zeros.
  const double half = 2 * d; // 0.5
  CHECK(sinpi(half) == 1.0 && sinpi(-half) == -1.0 && sinpi(5 * half) == 1.0);
  CHECK(sinpi(2 * half) == 0.0 && !signbit(sinpi(2 * half)));
  CHECK(sinpi(-2 * half) == 0.0 && signbit(sinpi(-2 * half)));
  CHECK(sinpi(-0.0 * d) == 0.0 && signbit(sinpi(-0.0 * d)));
  CHECK(sinpi(1e300 * half) == 0.0 && sinpi(3 * half) == -1.0 && sinpi(7 * half) == -1.0);
  CHECK(cospi(2 * half) == -1.0 && cospi(0 * d) == 1.0 && cospi(4 * half) == 1.0);
  CHECK(cospi(half) == 0.0 && !signbit(cospi(half)) && !signbit(cospi(3 * half)));
  CHECK(cospi(-half) == 0.0 && !signbit(cospi(-half)) && cospi(-2 * half) == -1.0);
  CHECK(isnan(sinpi(INFINITY * d)) && isnan(cospi(NAN * d)));
  NEARD(sinpi(half / 3), 0.5);
  NEARD(sinpi(-half / 3), -0.5);
  NEARD(sinpi(1.75), -0.7071067811865476);
  NEARD(sinpi(1234.5678), sin(M_PI * (1234.5678 - 1234)));
  NEARD(cospi(half * 2 / 3), 0.5);
  NEARD(cospi(2.0 / 3), -0.5);
  NEARD(cospi(1e6 + 0.25), 0.7071067811865476);
  NEARF(sinpif(f / 15), 0.5f);
  NEARF(cospif(f), 0.0f);
  CHECK(sinpif(f) == 1.0f && sinpi(f) == 1.0f && cospif(2 * f) == -1.0f);
  CHECK(sinpi(i) == 0.0 && !signbit(sinpi(i)) && cospi(i) == -1.0);
  float sn = 0, cs = 0;
  sincos(f, &sn, &cs);
  NEARF(sn, 0.5984721441f);
  NEARF(cs, -0.8011436155f);
  sincosf(-f, &sn, &cs);
  NEARF(sn, -0.5984721441f);
  double sd = 0, cd = 0;
  sincos(d, &sd, &cd);
  NEARD(sd, 0.24740395925452294);
  NEARD(cd, 0.9689124217106447);
}

static void test_minmax() {
  const int i = vi;            // 3
  const unsigned u = 7u;
  const float f = vf;          // 2.5
  const double d = vd;         // 0.25
  const size_t z = 8;
  const long l = -9;
  TYPE(min(i, i), int); TYPE(max(f, f), float); TYPE(min(d, d), double);
  TYPE(max(f, 0.0), double); TYPE(min(u, i), unsigned); TYPE(max(z, 1), size_t);
  TYPE(min(i, 1L), long); TYPE(clamp(f, 0.0f, 1.0f), float); TYPE(clamp(f, 0, 1), float);
  TYPE(min(2.0f, 1), float); TYPE(max(1.0, 2.0), double); TYPE(clamp(i, 0, 15), int);
  TYPE(min(l, 2ll), long long); TYPE(max(i, 2.0), double); TYPE(clamp(d, 0, 1l), double);
  CHECK(min(i, 5) == 3 && max(i, 5) == 5 && min(-i, i) == -3 && max(-i, 0) == 0);
  CHECK(min(f, 1.0f) == 1.0f && max(f, 0.0) == 2.5 && min(2.0f, 1) == 1.0f);
  CHECK(min(u, i) == 3u && max(z, 1) == 8u && min(i, 1L) == 1l && max(l, 2ll) == 2ll);
  CHECK(min(-1, 1u) == 1u); // -1 converts to unsigned, as in CUDA's min(int, unsigned)
  CHECK(clamp(i, 0, 2) == 2 && clamp(-i, 0, 2) == 0 && clamp(i, 0, 5) == 3);
  CHECK(clamp(f, 0, 1) == 1.0f && clamp(d, 0.5, 1.0) == 0.5 && clamp(d, 0, 1l) == 0.25);
  CHECK(max(i, 2.5) == 3.0 && min(d, f) == 0.25 && max(1.0, 2.0) == 2.0);
  CHECK(min(1.0f, NAN) == 1.0f && max(1.0f, NAN) == 1.0f); // NaN second: the first
#ifndef USER_STD
  // Narrow types compute in int without <algorithm> (with it, std::min<short>
  // is the better match and returns a const short &).
  const short s = 4;
  const char c = 'a';
  TYPE(min(s, s), int); TYPE(max(c, c), int); TYPE(min(true, false), int);
  CHECK(min(s, short(-4)) == -4 && max(c, 'b') == 'b');
#else
  CHECK(std::min(i, 5) == 3 && std::max(f, 3.0f) == 3.0f && std::clamp(i, 0, 2) == 2);
  CHECK(std::min({4, 2, 8}) == 2 && std::abs(-2.5f) == 2.5f && std::sqrt(4.0f) == 2.0f);
  const float3 a = make_float3(0, 3, 4), b = make_float3(0, 0, 0);
  CHECK(distance(a, b) == 5.0f && clamp(length(a), 0.0f, 4.0f) == 4.0f);
#endif
}

static void test_constants() {
  static_assert(same<decltype(M_PI), double>::value && M_PI > 3.14159 && M_PI < 3.1416, "pi");
  NEARD(M_PI_2 * 2, M_PI);
  NEARD(M_SQRT2 * M_SQRT1_2, 1.0);
  NEARD(M_E * M_LN2 * M_LOG2E * M_LN10 * M_LOG10E, M_E);
  NEARD(M_1_PI * M_PI + M_2_PI * M_PI_4 + M_2_SQRTPI * 0, 1.5);
  CHECK(INFINITY > FLT_MAX && FLT_MAX == __FLT_MAX__ && DBL_MAX == __DBL_MAX__);
  CHECK(FLT_MIN == __FLT_MIN__ && FLT_EPSILON == __FLT_EPSILON__ && DBL_MIN == __DBL_MIN__);
  CHECK(DBL_EPSILON == __DBL_EPSILON__ && NAN != NAN);
  static_assert(INT_MAX == 2147483647 && INT_MIN == -INT_MAX - 1 && UINT_MAX == 4294967295u,
                "limits");
  static_assert(same<size_t, decltype(sizeof(0))>::value && sizeof(int64_t) == 8, "types");
  static_assert(same<uint, unsigned>::value && same<ulong, unsigned long>::value, "uint");
  static_assert(same<uchar, unsigned char>::value && same<ushort, unsigned short>::value,
                "uchar");
}

static void test_intrinsics() {
  // The seed's form: the elements themselves.
  const float src[4] = {1, 2, 3, 4};
  float s_vec[4] = {0, 0, 0, 0};
  for (int item = 0; item < 4; ++item) {
    okl_memcpy_async(s_vec[item], src[item], 4);
    okl_pipeline_commit();
    okl_pipeline_wait_prior(0);
  }
  CHECK(s_vec[0] == 1 && s_vec[1] == 2 && s_vec[2] == 3 && s_vec[3] == 4);
  // Zero fill: 32 bytes in all, the last 16 of them zero; nothing after.
  const double4 in[2] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  double4 tile[3] = {{9, 9, 9, 9}, {9, 9, 9, 9}, {9, 9, 9, 9}};
  okl_memcpy_async(tile[0], in[1], 32, 16);
  CHECK(tile[0].x == 5 && tile[0].y == 6 && tile[0].z == 0 && tile[0].w == 0);
  CHECK(tile[1].x == 9 && tile[1].w == 9);
  okl_memcpy_async(tile + 1, in, 32, 8);
  CHECK(tile[1].x == 1 && tile[1].y == 2 && tile[1].z == 3 && tile[1].w == 0);
  okl_memcpy_async(&tile[2], &in[1], sizeof(double4), 0);
  CHECK(tile[2].x == 5 && tile[2].w == 8);
  okl_memcpy_async(tile[2], in[0], 16, 16);
  CHECK(tile[2].x == 0 && tile[2].y == 0 && tile[2].z == 7 && tile[2].w == 8);
  // Pointer variables are addresses, whichever overload the call picks.
  int keys[4] = {1, 2, 3, 4}, k[4] = {0, 0, 0, 0};
  int *dst = k, *from = keys;
  okl_memcpy_async(dst, from, 8);
  CHECK(k[0] == 1 && k[1] == 2 && k[2] == 0 && dst == k && from == keys);
  const int *cfrom = keys + 2;
  okl_memcpy_async(dst + 2, cfrom, 8, 4);
  CHECK(k[2] == 3 && k[3] == 0);
  okl_memcpy_async(k, keys, sizeof(k));
  CHECK(k[3] == 4);
  int word[1] = {0};
  void *vdst = word;
  const void *vsrc = keys + 3;
  okl_memcpy_async(vdst, vsrc, 4);
  CHECK(word[0] == 4);
  okl_memcpy_async(s_vec[1], src + 3, 4);
  CHECK(s_vec[1] == 4);
  okl_pipeline_wait_prior(1);

  // Shuffles: a CPU warp is one lane, each returns var.
  const float v = vf;
  TYPE(okl_shfl_sync(0xffffffffu, v, 0), float);
  TYPE(okl_shfl_down_sync(0xffffffffu, 1.0, 1u, 16), double);
  CHECK(okl_shfl_sync(0xffffffffu, v, 5) == v && okl_shfl_sync(0xffffffffu, 7, 0, 16) == 7);
  CHECK(okl_shfl_up_sync(0xffffffffu, v, 1u) == v && okl_shfl_up_sync(1u, v, 2u, 8) == v);
  CHECK(okl_shfl_down_sync(0xffffffffu, v, 16) == v && okl_shfl_down_sync(3u, 2l, 1, 2) == 2);
  CHECK(okl_shfl_xor_sync(0xffffffffu, v, 1) == v && okl_shfl_xor_sync(1u, 'x', 1, 32) == 'x');
  const float4 f4 = make_float4(1, 2, 3, 4);
  CHECK(okl_shfl_sync(0xffffffffu, f4, 3).w == 4);
}

// ---- _occa_call: kernels as the backends emit them, and their entries.
struct Pod {
  int a;
  double b;
  char tag[3];
};
struct Wide {
  float4 v;
  short s;
};

static int called = 0;
void none() { ++called; }
extern "C" void _occa_entry_none(void *const *args) { _occa_call(&none, args); }

void one(const int n) { called += n; }
extern "C" void _occa_entry_one(void *const *args) { _occa_call(&one, args); }

void five(const int entries, const float *__restrict__ x, float *__restrict__ y,
          const double alpha, const Pod pod) {
  for (int i = 0; i < entries; ++i) y[i] = (float)(alpha * x[i] + pod.b) + pod.a + pod.tag[2];
}
extern "C" void _occa_entry_five(void *const *args) { _occa_call(&five, args); }

template <class T, int N> void scaled(T *x, const T factor) {
  for (int i = 0; i < N; ++i) x[i] *= factor;
}
extern "C" void _occa_entry_scaled(void *const *args) { _occa_call(&scaled<double, 3>, args); }

void wide(const Wide w, float4 *out, const uchar c, const long long big, bool flag) noexcept {
  *out = w.v * (float)w.s + (float)c + (float)(big >> 40) + (flag ? 0.5f : 0.0f);
}
extern "C" void _occa_entry_wide(void *const *args) { _occa_call(&wide, args); }

// 60 parameters: 12 groups of an int, a float, a const double, a struct by
// value and a __restrict__ pointer to an int that receives their sum.
#define P(k)                                                                  \
  const int i##k, float f##k, const double d##k, const Pod s##k, int *__restrict__ p##k
#define B(k) *p##k = i##k + (int)f##k + (int)d##k + s##k.a + s##k.tag[0];
void sixty(P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9), P(10), P(11)) {
  B(0) B(1) B(2) B(3) B(4) B(5) B(6) B(7) B(8) B(9) B(10) B(11)
}
#undef P
#undef B
extern "C" void _occa_entry_sixty(void *const *args) { _occa_call(&sixty, args); }

// Kernels named like the prelude's functions, which have templates among
// their overloads (dot(float3, float3), max(int, double)): the entries
// name the kernel's type, as the backends write them.
void dot(const int n, const float *__restrict__ x, float *out) { *out = (float)n * x[0]; }
extern "C" void _occa_entry_dot(void *const *args) {
  _occa_call(static_cast<void (*)(const int, const float *, float *)>(&dot), args);
}
void max(const int n, const float *__restrict__ x, float *out) { *out = (float)n + x[0]; }
extern "C" void _occa_entry_max(void *const *args) {
  _occa_call(static_cast<void (*)(const int, const float *__restrict__, float *)>(&max), args);
}
void clamp(const int n, const float *__restrict__ x, float *out) { *out = (float)n - x[0]; }
extern "C" void _occa_entry_clamp(void *const *args) {
  _occa_call<const int, const float *, float *>(&clamp, args); // no __restrict__ here
}

static void test_calls() {
  TYPE(_occa_call(&none, nullptr), void);
  _occa_entry_none(nullptr);
  CHECK(called == 1);
  int n = 41;
  void *one_args[] = {&n};
  _occa_entry_one(one_args);
  CHECK(called == 42);

  int entries = 3;
  float x[3] = {1, 2, 3}, y[3] = {0, 0, 0};
  const float *xp = x;
  float *yp = y;
  double alpha = 2;
  Pod pod = {10, 0.5, {0, 0, 1}};
  void *five_args[] = {&entries, &xp, &yp, &alpha, &pod};
  _occa_entry_five(five_args);
  CHECK(y[0] == 13.5f && y[1] == 15.5f && y[2] == 17.5f);

  double v[3] = {1, 2, 3}, factor = 1.5;
  double *vp = v;
  void *scaled_args[] = {&vp, &factor};
  _occa_entry_scaled(scaled_args);
  CHECK(v[0] == 1.5 && v[1] == 3 && v[2] == 4.5);

  Wide w = {{1, 2, 3, 4}, 2};
  float4 out = {0, 0, 0, 0};
  float4 *outp = &out;
  uchar c = 200;
  long long big = 3ll << 40;
  bool flag = true;
  void *wide_args[] = {&w, &outp, &c, &big, &flag};
  _occa_entry_wide(wide_args);
  CHECK(out.x == 205.5f && out.y == 207.5f && out.z == 209.5f && out.w == 211.5f);

  int three = 3;
  float named = 0;
  float *namedp = &named;
  void *named_args[] = {&three, &xp, &namedp};
  _occa_entry_dot(named_args);
  CHECK(named == 3.0f && dot(make_float2(1, 2), make_float2(3, 4)) == 11.0f);
  _occa_entry_max(named_args);
  CHECK(named == 4.0f && max(1, 2.5) == 2.5);
  _occa_entry_clamp(named_args);
  CHECK(named == 2.0f && clamp(3, 0, 1) == 1);

  int ints[12], results[12];
  float floats[12];
  double doubles[12];
  Pod pods[12];
  int *ptrs[12];
  void *sixty_args[60];
  for (int k = 0; k < 12; ++k) {
    ints[k] = k;
    floats[k] = 100.0f * k + 0.5f;
    doubles[k] = 10000.0 * k;
    pods[k] = Pod{1000000 * k, 0, {(char)k, 0, 0}};
    results[k] = -1;
    ptrs[k] = &results[k];
    sixty_args[5 * k + 0] = &ints[k];
    sixty_args[5 * k + 1] = &floats[k];
    sixty_args[5 * k + 2] = &doubles[k];
    sixty_args[5 * k + 3] = &pods[k];
    sixty_args[5 * k + 4] = &ptrs[k];
  }
  _occa_entry_sixty(sixty_args);
  for (int k = 0; k < 12; ++k) CHECK(results[k] == 1010102 * k);
}

#ifdef _OPENMP
// An OpenMP loop over the prelude's types and functions.
static void test_openmp() {
  float4 a[64], b[64];
  for (int i = 0; i < 64; ++i) a[i] = make_float4((float)i, 1, 2, 3);
#pragma omp parallel for
  for (int i = 0; i < 64; ++i) b[i] = clamp(a[i] * 2.0f - 1, 0.0f, 100.0f) + rsqrt(4.0f);
  bool ok = true;
  for (int i = 0; i < 64; ++i) ok = ok && b[i].x == min(2.0f * i - 1, 100.0f) + 0.5f + (i == 0);
  CHECK(ok && b[5].y == 1.5f && b[5].w == 5.5f && omp_get_max_threads() >= 1);
}
#endif

int main() {
  test_vectors();
  test_geometry();
  test_math();
  test_minmax();
  test_constants();
  test_intrinsics();
  test_calls();
#ifdef _OPENMP
  test_openmp();
#endif
  if (failures) {
    printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  return 0;
}
