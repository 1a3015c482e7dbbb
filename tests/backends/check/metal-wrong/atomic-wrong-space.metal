// expect: C-style cast from '__local int \*' to '__global .* converts between mismatching address spaces
// An atomic on threadgroup memory through a device atomic pointer.
#include <metal_stdlib>
using namespace metal;
kernel void k(device int *a [[buffer(0)]], uint3 t [[thread_position_in_threadgroup]]) {
  threadgroup int s[8];
  atomic_fetch_add_explicit((device atomic_int *)&(s[t.x]), 1, memory_order_relaxed);
  a[t.x] = s[t.x];
}
