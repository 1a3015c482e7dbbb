// expect: use of type 'double' requires
// Metal has no double.
#include <metal_stdlib>
using namespace metal;
kernel void k(device float *a [[buffer(0)]]) {
  double d = a[0];
  a[0] = d;
}
