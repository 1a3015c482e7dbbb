// flags:
// Misuses of the math declarations: every line marked ERROR must be rejected.
void misuse(float f, float4 v, int4 k) {
  f = std::sqrt(f); // ERROR: no std without <cmath>
  v = sqrt(v); // ERROR: no sqrt on vectors
  f = length(k); // ERROR: length of an int vector
  f = min(v, k).x; // ERROR: min of different vectors
  f = dot(v, v, v); // ERROR: too many arguments
  f = rsqrt(); // ERROR: too few arguments
}
