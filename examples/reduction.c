/*
 * reduction: the sum of a vector, in blocks of 256 entries reduced in
 * @shared memory (kernels/reduction.okl), the partial sums added here.
 *
 *     reduction [DEVICE]
 */
#include <stdio.h>
#include <stdlib.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

enum { BLOCK = 256 };

static int fail(const char *what)
{
    fprintf(stderr, "reduction: %s: %s\n", what, oklc_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "serial";
    const int entries = 1000003;
    const int blocks = (entries + BLOCK - 1) / BLOCK;
    float *x = malloc(entries * sizeof *x), *sums = malloc(blocks * sizeof *sums);
    if (!x || !sums)
        return fprintf(stderr, "reduction: out of memory\n"), 1;
    double expected = 0;
    for (int i = 0; i < entries; i++) {
        x[i] = (float)(i % 10);          /* small integers: every sum is exact */
        expected += x[i];
    }

    oklc_device *dev;
    oklc_memory *o_x, *o_sums;
    oklc_kernel *k;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    if (oklc_memory_alloc(dev, entries * sizeof *x, &o_x) ||
        oklc_memory_alloc(dev, blocks * sizeof *sums, &o_sums))
        return fail("allocating device memory");
    oklc_memory_copy_from_host(o_x, x, entries * sizeof *x, 0);
    if (oklc_kernel_build(dev, KERNELS "/reduction.okl", "blockSums", NULL, &k))
        return fail("building blockSums");

    oklc_arg args[] = {oklc_arg_int(entries), oklc_arg_mem(o_x), oklc_arg_mem(o_sums)};
    if (oklc_kernel_run(k, 3, args) || oklc_device_finish(dev))
        return fail("running blockSums");
    oklc_memory_copy_to_host(o_sums, sums, blocks * sizeof *sums, 0);
    double total = 0;
    for (int b = 0; b < blocks; b++)
        total += sums[b];

    printf("device: %s; %d entries in %d blocks of %d\n", oklc_device_mode(dev), entries, blocks,
           BLOCK);
    printf("sum: %.0f (expected %.0f): %s\n", total, expected,
           total == expected ? "correct" : "WRONG");
    oklc_kernel_free(k);
    oklc_memory_free(o_x);
    oklc_memory_free(o_sums);
    oklc_device_close(dev);
    free(x);
    free(sums);
    return total != expected;
}
