/*
 * templated: template kernels instantiated from the arguments. The kernels
 * of kernels/templated.okl are built once by their bare names, without
 * types; each run with new argument types compiles that instance (the
 * first time only, and then it is in the cache) and runs it:
 * addVectors<float, 128> on float memory, addVectors<double, 128> on
 * double memory, then scale<float> and scale<double>, T coming from the
 * memory's element type and from the scalar's. The results are checked
 * against the same arithmetic in plain C.
 *
 *     templated [DEVICE]         DEVICE: "serial" (default), "openmp", ...
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "oklc/runtime.h"

#ifndef KERNELS
#define KERNELS "examples/kernels"
#endif

enum { ENTRIES = 100000 };

static int fail(const char *what)
{
    fprintf(stderr, "templated: %s: %s\n", what, oklc_last_error());
    return 1;
}

/* Element i of a host array of floats or doubles. */
static double get(const void *p, oklc_type t, int i)
{
    return t == OKLC_TYPE_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void set(void *p, oklc_type t, int i, double v)
{
    if (t == OKLC_TYPE_FLOAT)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

/* What the kernels compute, in plain C and in the same precision. */
static double reference(oklc_type t, double a, double b)
{
    if (t == OKLC_TYPE_FLOAT)
        return 2.5f * ((float)a + (float)b);
    return 2.5 * (a + b);
}

/* ab = a + b, then ab *= 2.5, on memory of `type` (float or double):
 * the number of wrong entries, or -1. */
static int run(oklc_device *dev, oklc_kernel *add, oklc_kernel *scale, oklc_type type)
{
    const char *name = oklc_type_name(type);
    size_t bytes = ENTRIES * oklc_type_size(type);
    void *a = malloc(bytes), *b = malloc(bytes), *ab = malloc(bytes);
    oklc_memory *o_a = NULL, *o_b = NULL, *o_ab = NULL;
    int wrong = -1;
    if (!a || !b || !ab) {
        fprintf(stderr, "templated: out of memory\n");
        goto out;
    }
    for (int i = 0; i < ENTRIES; i++) {
        set(a, type, i, i / 3.0);
        set(b, type, i, 1.0 / (i + 1));
    }
    /* memory that knows its element type: the kernels' T comes from it */
    if (oklc_memory_alloc_typed(dev, type, ENTRIES, &o_a) ||
        oklc_memory_alloc_typed(dev, type, ENTRIES, &o_b) ||
        oklc_memory_alloc_typed(dev, type, ENTRIES, &o_ab) ||
        oklc_memory_copy_from_host(o_a, a, bytes, 0) ||
        oklc_memory_copy_from_host(o_b, b, bytes, 0)) {
        fail("device memory");
        goto out;
    }
    /* each instance is compiled on its first run (then it is in the cache);
     * scale's T comes from its scalar too, which must agree */
    oklc_arg add_args[] = {oklc_arg_int(ENTRIES), oklc_arg_mem(o_a), oklc_arg_mem(o_b),
                           oklc_arg_mem(o_ab)};
    oklc_arg alpha = type == OKLC_TYPE_FLOAT ? oklc_arg_float(2.5f) : oklc_arg_double(2.5);
    oklc_arg scale_args[] = {oklc_arg_int(ENTRIES), alpha, oklc_arg_mem(o_ab)};
    if (oklc_kernel_run(add, 4, add_args) || oklc_kernel_run(scale, 3, scale_args) ||
        oklc_device_finish(dev) || oklc_memory_copy_to_host(o_ab, ab, bytes, 0)) {
        fail(type == OKLC_TYPE_FLOAT ? "running the float instances"
                                     : "running the double instances");
        goto out;
    }
    wrong = 0;
    for (int i = 0; i < ENTRIES; i++) {
        double want = reference(type, get(a, type, i), get(b, type, i));
        wrong += !(fabs(get(ab, type, i) - want) <= 1e-6 * fabs(want));
    }
    printf("%-7s ab = 2.5 * (a + b), %d entries: ab[1] = %.17g (plain C: %.17g)%s\n", name,
           ENTRIES, get(ab, type, 1), reference(type, get(a, type, 1), get(b, type, 1)),
           wrong ? ", WRONG" : "");
out:
    oklc_memory_free(o_a);
    oklc_memory_free(o_b);
    oklc_memory_free(o_ab);
    free(a);
    free(b);
    free(ab);
    return wrong;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "serial";
    oklc_device *dev;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    printf("device: %s (from \"%s\")\n", oklc_device_mode(dev), spec);

    /* transpiled and checked now, no types yet: compiled per instance later.
     * BLOCK is not deduced from any argument: it comes from the props. */
    oklc_props *props = oklc_props_new();
    oklc_props_template_arg(props, "BLOCK", "128");
    oklc_kernel *add, *scale;
    if (oklc_kernel_build(dev, KERNELS "/templated.okl", "addVectors", props, &add) ||
        oklc_kernel_build(dev, KERNELS "/templated.okl", "scale", NULL, &scale))
        return fail("building the template kernels");
    printf("kernels: addVectors<T, BLOCK>, scale<T> from %s/templated.okl\n", KERNELS);

    int wrong_f = run(dev, add, scale, OKLC_TYPE_FLOAT);
    int wrong_d = run(dev, add, scale, OKLC_TYPE_DOUBLE);
    printf("result: %s\n", wrong_f || wrong_d ? "WRONG"
                           : "correct (float and double instances agree with plain C)");

    oklc_kernel_free(add);
    oklc_kernel_free(scale);
    oklc_props_free(props);
    oklc_device_close(dev);
    return wrong_f != 0 || wrong_d != 0;
}
