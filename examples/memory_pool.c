/*
 * memory_pool: one allocation handed out as views. The three vectors of a
 * sum are reserved from a pool, the kernel runs on them, one is released
 * and its space reserved again for the next sum; the pool says what it
 * holds. Views of a pool are memory like any other (kernel arguments,
 * copies).
 *
 *     memory_pool [DEVICE]       DEVICE: "serial" (default), "openmp", "opencl", ...
 */
#include <stdio.h>
#include <stdlib.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

enum { N = 1 << 16 };

static int fail(const char *what)
{
    fprintf(stderr, "memory_pool: %s: %s\n", what, oklc_last_error());
    return 1;
}

/* ab = a + b on views of the pool; the number of wrong entries. */
static int add(oklc_device *dev, oklc_kernel *k, oklc_memory *a, oklc_memory *b,
               oklc_memory *ab, float shift)
{
    static float x[N], y[N], z[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i + shift, y[i] = 1.0f - (float)i;
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(a), oklc_arg_mem(b), oklc_arg_mem(ab)};
    if (oklc_memory_copy_from_host(a, x, sizeof x, 0) ||
        oklc_memory_copy_from_host(b, y, sizeof y, 0) || oklc_kernel_run(k, 4, args) ||
        oklc_device_finish(dev) || oklc_memory_copy_to_host(ab, z, sizeof z, 0))
        return fail("adding"), N;
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += z[i] != 1.0f + shift;
    return wrong;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "serial";
    oklc_device *dev;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    printf("device: %s (from \"%s\")\n", oklc_device_mode(dev), spec);
    oklc_kernel *k;
    if (oklc_kernel_build(dev, KERNELS "/addVectors.okl", "addVectors", NULL, &k))
        return fail("building addVectors");

    oklc_pool *pool;
    size_t bytes = N * sizeof(float);
    if (oklc_pool_new(dev, 4 * bytes, &pool))
        return fail("making the pool");
    oklc_memory *a, *b, *ab, *c;
    if (oklc_pool_reserve(pool, bytes, &a) || oklc_pool_reserve(pool, bytes, &b) ||
        oklc_pool_reserve(pool, bytes, &ab))
        return fail("reserving");
    printf("pool: %zu of %zu bytes reserved (a, b, ab)\n", oklc_pool_used(pool),
           oklc_pool_size(pool));
    int wrong = add(dev, k, a, b, ab, 0);

    oklc_memory_free(b);    /* released: its space is free again */
    if (oklc_pool_reserve(pool, bytes, &c))
        return fail("reserving again");
    printf("pool: b released, c reserved in its space: %zu of %zu bytes reserved\n",
           oklc_pool_used(pool), oklc_pool_size(pool));
    wrong += add(dev, k, a, c, ab, 2);
    /* a fifth vector does not fit: the pool says how much is free */
    oklc_memory *e, *f;
    if (oklc_pool_reserve(pool, bytes, &e) || oklc_pool_reserve(pool, bytes, &f) == OKLC_OK)
        return fprintf(stderr, "memory_pool: a full pool gave more\n"), 1;
    printf("pool full: %s\n", oklc_last_error());

    printf("result: %s\n", wrong ? "WRONG" : "correct (every entry as expected)");
    oklc_pool_free(pool);    /* the views keep its allocation until they go */
    oklc_memory_free(a);
    oklc_memory_free(ab);
    oklc_memory_free(c);
    oklc_memory_free(e);
    oklc_kernel_free(k);
    oklc_device_close(dev);
    return wrong != 0;
}
