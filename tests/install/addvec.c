/*
 * addvec.c - what an installed oklc's users build: addvec_run() builds
 * addVectors.okl through the runtime, runs it on a device and checks the
 * sum. Linked into a program (main.c) and into a shared object (dlopen.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include <oklc/oklc.h>
#include <oklc/runtime.h>

int addvec_run(const char *okl, const char *spec);

static int fail(const char *what)
{
    fprintf(stderr, "addvec: %s: %s\n", what, oklc_last_error());
    return 1;
}

int addvec_run(const char *okl, const char *spec)
{
    enum { N = 1000 };
    float a[N], b[N], ab[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(1 - i);
        ab[i] = 0;
    }
    oklc_device *dev;
    if (oklc_device_open(spec, &dev))
        return fail("opening the device");
    oklc_memory *o_a, *o_b, *o_ab;
    if (oklc_memory_alloc(dev, sizeof a, &o_a) || oklc_memory_alloc(dev, sizeof b, &o_b) ||
        oklc_memory_alloc(dev, sizeof ab, &o_ab))
        return fail("allocating");
    oklc_memory_copy_from_host(o_a, a, sizeof a, 0);
    oklc_memory_copy_from_host(o_b, b, sizeof b, 0);
    oklc_props *props = oklc_props_new();
    oklc_props_define(props, "BLOCK=64");
    oklc_kernel *add;
    if (oklc_kernel_build(dev, okl, "addVectors", props, &add))
        return fail("building addVectors");
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(o_a), oklc_arg_mem(o_b), oklc_arg_mem(o_ab)};
    if (oklc_kernel_run(add, 4, args) || oklc_device_finish(dev))
        return fail("running addVectors");
    oklc_memory_copy_to_host(o_ab, ab, sizeof ab, 0);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += ab[i] != 1.0f;
    oklc_kernel_free(add);
    oklc_props_free(props);
    oklc_memory_free(o_a);
    oklc_memory_free(o_b);
    oklc_memory_free(o_ab);
    oklc_device_close(dev);
    printf("addvec: oklc %s, %s: %d of %d entries wrong\n", oklc_version(), spec, wrong, N);
    return wrong != 0;
}
