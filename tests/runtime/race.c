/*
 * race.c - one process of tests/runtime/race.sh: builds (or loads) the
 * native addVectors of add.cpp on the serial device, runs it, checks the
 * result. Exit status 0 when right; the reason on stderr otherwise.
 *
 *   race build SRC        build through the cache, run
 *   race build-only SRC   build into the cache, print the entry's folder
 *   race load DIR         load from an entry, run
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oklc/runtime.h"

enum { N = 4096 };

static int fail(const char *what, oklc_status st)
{
    fprintf(stderr, "race: %s: %s: %s\n", what, oklc_status_name(st), oklc_last_error());
    return 1;
}

static int run(oklc_device *d, oklc_kernel *k)
{
    static float a[N], b[N], ab[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    oklc_memory *ma, *mb, *mab;
    oklc_memory_alloc(d, sizeof a, &ma);
    oklc_memory_alloc(d, sizeof b, &mb);
    oklc_memory_alloc(d, sizeof ab, &mab);
    oklc_memory_copy_from_host(ma, a, sizeof a, 0);
    oklc_memory_copy_from_host(mb, b, sizeof b, 0);
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab)};
    oklc_status st = oklc_kernel_run(k, 4, args);
    if (!st)
        st = oklc_memory_copy_to_host(mab, ab, sizeof ab, 0);
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(mab);
    if (st)
        return fail("run", st);
    for (int i = 0; i < N; i++) {
        if (ab[i] != (float)(3 * i)) {
            fprintf(stderr, "race: ab[%d] is %g, not %d\n", i, ab[i], 3 * i);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: race build|build-only SRC | race load DIR\n");
        return 2;
    }
    oklc_device *d;
    oklc_status st = oklc_device_open("serial", &d);
    if (st)
        return fail("device", st);
    oklc_props *p = oklc_props_new();
    oklc_props_okl(p, false);
    oklc_kernel *k = NULL;
    int rc = 0;
    if (!strcmp(argv[1], "build-only")) {
        char *dir;
        st = oklc_kernel_build_only(d, argv[2], "addVectors", p, &dir);
        if (!st)
            printf("%s\n", dir);
        free(dir);
    } else if (!strcmp(argv[1], "build")) {
        st = oklc_kernel_build(d, argv[2], "addVectors", p, &k);
    } else {
        st = oklc_kernel_load(d, argv[2], "addVectors", &k);
    }
    if (st)
        rc = fail(argv[1], st);
    else if (k)
        rc = run(d, k);
    oklc_kernel_free(k);
    oklc_props_free(p);
    oklc_device_close(d);
    return rc;
}
