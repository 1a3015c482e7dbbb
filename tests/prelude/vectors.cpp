// flags:
// Vector types: aggregates, make_<type>N(), element-wise operators.
template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };

// What OKL kernels write.
void saxpy4(const int entries, const float alpha, const float4 *x, float4 *y) {
  for (int i = 0; i < entries; ++i) {
    y[i] = alpha * x[i] + y[i];
    y[i] += make_float4(1, 2, 3, 4) / 2.0f - x[i] * 0.5f;
  }
}

void update(const int entries, float3 *position, const float3 *velocity, const float dt) {
  for (int i = 0; i < entries; ++i) {
    float3 p = position[i];
    const float3 v = velocity[i];
    p += v * dt;
    p -= 0.5f * dt * dt * make_float3(0, 0, 9.81f);
    p *= 1.0f;
    p /= make_float3(1, 1, 1);
    position[i] = -p + +p + p;
    float2 q = {p.x, p.y};
    q = q * q - q / 2 + 1;
    position[i].z = q.x + q.y;
  }
}

void histogram(const int entries, const int4 *keys, uint4 *hist, uchar4 *colors) {
  for (int i = 0; i < entries; ++i) {
    int4 k = keys[i];
    int4 bucket = (k >> 4) & 15;
    bucket = bucket % 3 + (k << 1) - (k ^ bucket) * 2 / 1;
    bucket |= make_int4(1, 0, 0, 0);
    bucket &= ~k;
    bucket ^= 1;
    bucket %= 7;
    bucket <<= 1;
    bucket >>= bucket;
    hist[i] = make_uint4(1u, 2, 3, 4) + 1u;
    hist[i] += make_uint4((uint)bucket.x, 0, 0, 0);
    uchar4 c = {255, 128, 0, 255};
    colors[i] = c / (uchar)2 + (uchar)1;
  }
}

// Every vector type, every operator.
template <class V, class S> void arith(V &a, const V b, const S s) {
  a = a + b; a = a - b; a = a * b; a = a / b;
  a = a + s; a = a - s; a = a * s; a = a / s;
  a = s + a; a = s - a; a = s * a; a = s / a;
  a += b; a -= b; a *= b; a /= b;
  a += s; a -= s; a *= s; a /= s;
  a = -a; a = +a;
  a = a + 1; a = 2 * a; a *= 3;
  static_assert(same<decltype(a + b), V>::value && same<decltype(s * a), V>::value, "type");
  static_assert(same<decltype(a += b), V &>::value && same<decltype(-a), V>::value, "type");
}

template <class V, class S> void integer(V &a, const V b, const S s) {
  arith(a, b, s);
  a = a % b; a = a & b; a = a | b; a = a ^ b; a = a << b; a = a >> b;
  a = a % s; a = a & s; a = a | s; a = a ^ s; a = a << s; a = a >> s;
  a = s % a; a = s & a; a = s | a; a = s ^ a; a = s << a; a = s >> a;
  a %= b; a &= b; a |= b; a ^= b; a <<= b; a >>= b;
  a %= s; a &= s; a |= s; a ^= s; a <<= s; a >>= s;
  a = ~a; a = a % 2 + (a << 1);
  static_assert(same<decltype(a % b), V>::value && same<decltype(~a), V>::value, "type");
}

#define CHECK_TYPE(N, S, OPS, ALIGN4)                                          \
  void test_##N(N##2 a2, N##3 a3, N##4 a4, S s) {                               \
    N##2 b2 = {1, 2};                                                           \
    N##3 b3 = {1, 2, 3};                                                        \
    N##4 b4 = {1, 2, 3, 4};                                                     \
    b2 = make_##N##2(s, s);                                                     \
    b3 = make_##N##3(s, s, s);                                                  \
    b4 = make_##N##4(s, s, s, s);                                               \
    OPS(a2, b2, s); OPS(a3, b3, s); OPS(a4, b4, s);                             \
    a4.x = a2.y + a3.z + b4.w;                                                  \
  }                                                                             \
  static_assert(sizeof(N##2) == 2 * sizeof(S) && alignof(N##2) == 2 * sizeof(S), #N "2"); \
  static_assert(sizeof(N##3) == 3 * sizeof(S) && alignof(N##3) == alignof(S), #N "3");    \
  static_assert(sizeof(N##4) == 4 * sizeof(S) && alignof(N##4) == ALIGN4, #N "4");

CHECK_TYPE(char, signed char, integer, 4)
CHECK_TYPE(uchar, unsigned char, integer, 4)
CHECK_TYPE(short, short, integer, 8)
CHECK_TYPE(ushort, unsigned short, integer, 8)
CHECK_TYPE(int, int, integer, 16)
CHECK_TYPE(uint, unsigned int, integer, 16)
CHECK_TYPE(long, long, integer, 16)
CHECK_TYPE(ulong, unsigned long, integer, 16)
CHECK_TYPE(float, float, arith, 16)
CHECK_TYPE(double, double, arith, 16)
