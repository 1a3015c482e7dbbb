/* What the OpenCL backend would make of this OKL kernel (two top-level
 * @outer loops: two device kernels, each taking all the parameters):
 *
 *   struct Shift { int add; float scale; };
 *   @kernel void axpyScale(const int n, const float a, const Shift s,
 *                          const float *x, float *y) {
 *     for (int i = 0; i < n; ++i; @tile(16, @outer(0), @inner(0)))
 *       y[i] = a * x[i] + y[i];
 *     for (int b = 0; b < n; b += 8; @outer(0))       // blocks of 4 x 2 work-items
 *       for (int r = 0; r < 2; ++r; @inner(1))
 *         for (int c = 0; c < 4; ++c; @inner(0))
 *           if (b + 4 * r + c < n)
 *             y[b + 4 * r + c] = y[b + 4 * r + c] * s.scale + s.add;
 *   }
 *
 * Hand-written for tests/unit/test_runtime_gpu.c, with launcher.cpp and
 * metadata.json: the runtime's OKL path on OpenCL without the transpiler.
 */
typedef struct Shift {
    int   add;
    float scale;
} Shift;

__kernel void _occa_axpyScale_0(const int n, const float a, const Shift s,
                                __global const float *x, __global float *y)
{
    const int i = 16 * (int)get_group_id(0) + (int)get_local_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__kernel void _occa_axpyScale_1(const int n, const float a, const Shift s,
                                __global const float *x, __global float *y)
{
    const int b = 8 * (int)get_group_id(0);
    const int i = b + 4 * (int)get_local_id(1) + (int)get_local_id(0);
    if (i < n)
        y[i] = y[i] * s.scale + s.add;
}
