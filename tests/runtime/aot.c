/*
 * aot.c - kernels transpiled and built ahead of time, loaded where libclang
 * cannot be (runtime.without_libclang):
 *   aot build KERNEL          builds addVectors (serial), prints its cache entry
 *   aot load ENTRY KERNEL     with OKLC_LIBCLANG=/nonexistent: loads the entry and
 *                             runs it, a native kernel too; a transpile fails saying
 *                             why; libclang and LLVM are never mapped
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oklc/runtime.h"

static int fail(const char *what)
{
    fprintf(stderr, "aot: %s: %s\n", what, oklc_last_error());
    return 1;
}

/* ab = a + b through k: 0 when right. */
static int add(oklc_device *d, oklc_kernel *k)
{
    enum { N = 1000 };
    float a[N], b[N], ab[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 1.0f - (float)i;
    oklc_memory *ma, *mb, *mab;
    if (oklc_memory_alloc(d, sizeof a, &ma) || oklc_memory_alloc(d, sizeof b, &mb) ||
        oklc_memory_alloc(d, sizeof ab, &mab) || oklc_memory_copy_from_host(ma, a, sizeof a, 0) ||
        oklc_memory_copy_from_host(mb, b, sizeof b, 0))
        return fail("memory");
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab)};
    if (oklc_kernel_run(k, 4, args) || oklc_memory_copy_to_host(mab, ab, sizeof ab, 0))
        return fail("running");
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += ab[i] != 1.0f;
    oklc_memory_free(ma), oklc_memory_free(mb), oklc_memory_free(mab);
    return wrong;
}

/* Is a library whose name contains `part` mapped into this process? */
static int mapped(const char *part)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, part) != NULL;
    if (f)
        fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    oklc_device *d;
    oklc_kernel *k;
    if (argc == 3 && !strcmp(argv[1], "build")) {
        char *dir;
        if (oklc_device_open("serial", &d) ||
            oklc_kernel_build_only(d, argv[2], "addVectors", NULL, &dir))
            return fail("building");
        puts(dir);
        free(dir);
        oklc_device_close(d);
        return 0;
    }
    if (argc != 5 || strcmp(argv[1], "load"))
        return fprintf(stderr, "usage: aot build KERNEL | aot load ENTRY KERNEL NATIVE\n"), 2;
    if (oklc_device_open("serial", &d) || oklc_kernel_load(d, argv[2], "addVectors", &k))
        return fail("loading the entry");
    if (add(d, k))
        return fprintf(stderr, "aot: the loaded kernel is wrong\n"), 1;
    oklc_kernel_free(k);
    oklc_props *p = oklc_props_new();    /* native source: no transpile either */
    oklc_props_okl(p, false);
    if (oklc_kernel_build(d, argv[4], "addVectors", p, &k) || add(d, k))
        return fail("the native kernel");
    oklc_kernel_free(k);
    oklc_props_free(p);
    if (oklc_kernel_build(d, argv[3], "addVectors", NULL, &k) == OKLC_OK)
        return fprintf(stderr, "aot: transpiled without libclang\n"), 1;
    if (!strstr(oklc_last_error(), "cannot load libclang"))
        return fail("the transpile's failure does not say why");
    if (mapped("libclang") || mapped("libLLVM"))
        return fprintf(stderr, "aot: libclang or LLVM was mapped\n"), 1;
    oklc_device_close(d);
    puts("ahead-of-time and native kernels ran; libclang and LLVM never loaded");
    return 0;
}
