// flags:
// Misuses of the vector types: every line marked ERROR must be rejected.
void misuse(float4 a, int4 k, float2 p) {
  float4 v = a;
  v.q = 1; // ERROR: no member q
  v = make_float4(1, 2); // ERROR: too few arguments
  float4 w = {1, 2, 3, 4, 5}; // ERROR: too many initializers
  v = a % a; // ERROR: % on float vectors
  v = a << 1; // ERROR: shift of float vectors
  v = a + k; // ERROR: float4 + int4
  v &= a; // ERROR: & on float vectors
  k = ~k + ~v; // ERROR: ~ on float vectors
  v = cross(p, p); // ERROR: cross of 2-vectors
  int3 i3 = make_int3(1, 2, 3, 4); // ERROR: too many arguments
  v.x = w.x + i3.x + p.z; // ERROR: float2 has no z
}
