// expect: non-kernel function variable cannot be declared in local address space
// threadgroup variables belong to kernel functions.
#include <metal_stdlib>
using namespace metal;
void f(device float *a) { threadgroup float s[8]; s[0] = a[0]; }
