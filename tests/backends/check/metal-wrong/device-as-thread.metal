// expect: cannot initialize a variable of type .*__private float .* with an lvalue of type '__global float
// A pointer declared without a space is a thread pointer in Metal: a device
// pointer cannot initialize it.
#include <metal_stdlib>
using namespace metal;
kernel void k(device float *a [[buffer(0)]]) {
  float *p = a;
  p[0] = 1.0f;
}
