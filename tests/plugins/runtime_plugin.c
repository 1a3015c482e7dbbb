/*
 * runtime_plugin.c - a plugin through the runtime (oklc_props_plugin): a
 * kernel with @prefetch built and run on a device (serial unless DEVICE
 * names another), its results checked; a plugin that cannot load fails the
 * build with its message.
 * Usage: runtime_plugin KERNEL.okl PREFETCH.so [DEVICE]
 */
#include <stdio.h>
#include <string.h>

#include "oklc/runtime.h"

static int fail(const char *what)
{
    fprintf(stderr, "runtime_plugin: %s: %s\n", what, oklc_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        return 2;
    enum { N = 1000 };
    static float a[N], b[N], ab[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 2.0f * (float)i;
    oklc_device *dev;
    if (oklc_device_open(argc == 4 ? argv[3] : "serial", &dev))
        return fail("device");
    oklc_memory *ma, *mb, *mab;
    if (oklc_memory_alloc(dev, sizeof a, &ma) || oklc_memory_alloc(dev, sizeof b, &mb) ||
        oklc_memory_alloc(dev, sizeof ab, &mab))
        return fail("alloc");
    oklc_memory_copy_from_host(ma, a, sizeof a, 0);
    oklc_memory_copy_from_host(mb, b, sizeof b, 0);
    oklc_props *props = oklc_props_new();
    oklc_kernel *k;
    if (oklc_kernel_build(dev, argv[1], "addVectors", props, &k) == OKLC_OK)
        return fail("built without the plugin");
    oklc_props_plugin(props, argv[2]);
    if (oklc_kernel_build(dev, argv[1], "addVectors", props, &k))
        return fail("build");
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab)};
    if (oklc_kernel_run(k, 4, args) || oklc_device_finish(dev))
        return fail("run");
    oklc_memory_copy_to_host(mab, ab, sizeof ab, 0);
    for (int i = 0; i < N; i++)
        if (ab[i] != 3.0f * (float)i + 2.0f) {
            fprintf(stderr, "runtime_plugin: wrong at %d: %g\n", i, ab[i]);
            return 1;
        }
    oklc_props *bad = oklc_props_new();
    oklc_props_plugin(bad, "/nonexistent/plugin.so");
    oklc_kernel *k2;
    if (oklc_kernel_build(dev, argv[1], "addVectors", bad, &k2) == OKLC_OK ||
        !strstr(oklc_last_error(), "cannot load plugin '/nonexistent/plugin.so'"))
        return fail("a missing plugin");
    oklc_props_free(bad);
    oklc_kernel_free(k);
    oklc_props_free(props);
    oklc_memory_free(ma), oklc_memory_free(mb), oklc_memory_free(mab);
    printf("runtime_plugin: ok on %s\n", oklc_device_mode(dev));
    oklc_device_close(dev);
    return 0;
}
