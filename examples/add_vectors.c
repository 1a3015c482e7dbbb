/*
 * add_vectors: the first program to run (`make run`). Builds the kernel
 * kernels/addVectors.okl for a device, runs it on two vectors and checks
 * the sum.
 *
 *     add_vectors [DEVICE]       DEVICE: "serial" (default), "openmp",
 *                                "mode=openmp threads=4", ...
 */
#include <stdio.h>
#include <stdlib.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

static int fail(const char *what)
{
    fprintf(stderr, "add_vectors: %s: %s\n", what, oklc_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "serial";
    const int entries = 1 << 20;
    float *a = malloc(entries * sizeof *a), *b = malloc(entries * sizeof *b);
    float *ab = malloc(entries * sizeof *ab);
    if (!a || !b || !ab)
        return fprintf(stderr, "add_vectors: out of memory\n"), 1;
    for (int i = 0; i < entries; i++) {
        a[i] = i;
        b[i] = 1 - i;
        ab[i] = 0;
    }

    oklc_device *dev;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    printf("device: %s (from \"%s\")\n", oklc_device_mode(dev), spec);

    oklc_memory *o_a, *o_b, *o_ab;
    if (oklc_memory_alloc(dev, entries * sizeof *a, &o_a) ||
        oklc_memory_alloc(dev, entries * sizeof *b, &o_b) ||
        oklc_memory_alloc(dev, entries * sizeof *ab, &o_ab))
        return fail("allocating device memory");
    oklc_memory_copy_from_host(o_a, a, entries * sizeof *a, 0);
    oklc_memory_copy_from_host(o_b, b, entries * sizeof *b, 0);

    /* BLOCK, the tile size, is a kernel property: a -D for the kernel */
    oklc_props *props = oklc_props_new();
    oklc_props_define(props, "BLOCK=256");
    oklc_kernel *add;
    if (oklc_kernel_build(dev, KERNELS "/addVectors.okl", "addVectors", props, &add))
        return fail("building addVectors");
    printf("kernel: addVectors from %s/addVectors.okl (BLOCK=256)\n", KERNELS);

    oklc_arg args[] = {oklc_arg_int(entries), oklc_arg_mem(o_a), oklc_arg_mem(o_b),
                       oklc_arg_mem(o_ab)};
    if (oklc_kernel_run(add, 4, args) || oklc_device_finish(dev))
        return fail("running addVectors");
    oklc_memory_copy_to_host(o_ab, ab, entries * sizeof *ab, 0);

    int wrong = 0;
    for (int i = 0; i < entries; i++)
        wrong += ab[i] != 1.0f;
    printf("ab = a + b for %d entries: ab[0] = %g, ab[%d] = %g\n", entries, ab[0], entries - 1,
           ab[entries - 1]);
    printf("result: %s\n", wrong ? "WRONG" : "correct (every entry is 1)");

    oklc_kernel_free(add);
    oklc_props_free(props);
    oklc_memory_free(o_a);
    oklc_memory_free(o_b);
    oklc_memory_free(o_ab);
    oklc_device_close(dev);
    free(a);
    free(b);
    free(ab);
    return wrong != 0;
}
