/*
 * native_kernel: a kernel written in the device's own language instead of
 * OKL (okl off in the kernel's properties): C++ for the serial and OpenMP
 * devices (kernels/addVectors.cpp, in OCCA's form), OpenCL C for OpenCL
 * (kernels/addVectors.cl, run on the dims given). Native kernels have no
 * metadata: the arguments are passed as given.
 *
 *     native_kernel [DEVICE]     DEVICE: "serial" (default), "openmp", "opencl"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

enum { N = 1 << 16 };

static int fail(const char *what)
{
    fprintf(stderr, "native_kernel: %s: %s\n", what, oklc_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "serial";
    oklc_device *dev;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    const char *mode = oklc_device_mode(dev);
    bool cpu = !strcmp(mode, "serial") || !strcmp(mode, "openmp");
    if (!cpu && strcmp(mode, "opencl"))
        return fprintf(stderr, "native_kernel: no native addVectors for %s\n", mode), 1;
    const char *file = cpu ? KERNELS "/addVectors.cpp" : KERNELS "/addVectors.cl";
    printf("device: %s, kernel: %s\n", mode, file);

    oklc_props *props = oklc_props_new();
    oklc_props_okl(props, false);
    oklc_kernel *k;
    if (oklc_kernel_build(dev, file, "addVectors", props, &k))
        return fail("building addVectors");
    if (!cpu) {    /* OpenCL: the grid of blocks and a block, as a launch wants them */
        size_t outer[3] = {(N + 255) / 256, 1, 1}, inner[3] = {256, 1, 1};
        oklc_kernel_set_run_dims(k, outer, inner);
    }
    static float a[N], b[N], ab[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 1.0f - (float)i;
    oklc_memory *o_a, *o_b, *o_ab;
    if (oklc_memory_alloc(dev, sizeof a, &o_a) || oklc_memory_alloc(dev, sizeof b, &o_b) ||
        oklc_memory_alloc(dev, sizeof ab, &o_ab) ||
        oklc_memory_copy_from_host(o_a, a, sizeof a, 0) ||
        oklc_memory_copy_from_host(o_b, b, sizeof b, 0))
        return fail("memory");
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(o_a), oklc_arg_mem(o_b), oklc_arg_mem(o_ab)};
    if (oklc_kernel_run(k, 4, args) || oklc_device_finish(dev) ||
        oklc_memory_copy_to_host(o_ab, ab, sizeof ab, 0))
        return fail("running addVectors");
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += ab[i] != 1.0f;
    printf("result: %s\n", wrong ? "WRONG" : "correct (every entry is 1)");
    oklc_kernel_free(k);
    oklc_props_free(props);
    oklc_memory_free(o_a);
    oklc_memory_free(o_b);
    oklc_memory_free(o_ab);
    oklc_device_close(dev);
    return wrong != 0;
}
