// expect: cannot pass pointer to address space '__global' as a pointer to address space '__local'
// A device pointer where a function takes a threadgroup one: Metal rejects
// it, and so must the checking header.
#include <metal_stdlib>
using namespace metal;
void store(threadgroup float *s, int i, float v) { s[i] = v; }
kernel void k(device float *a [[buffer(0)]],
              uint3 t [[thread_position_in_threadgroup]]) {
  threadgroup float s[64];
  store(a, t.x, 1.0f);
  s[t.x] = a[t.x];
}
