/*
 * faults.c - bench/faults.sh's program: the median time of a run of each
 * kernel of faults.okl and unbounded.okl (CPUs) on one device, in one
 * process, alternating. Usage: faults DEVICE_SPEC DIR
 */
#define _POSIX_C_SOURCE 200809L

#include <oklc/runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BLOCKS = 1 << 14, RUNS = 100, SAMPLES = 9 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fail(const char *what)
{
    fprintf(stderr, "faults: %s: %s\n", what, oklc_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: faults DEVICE_SPEC DIR\n");
        return 2;
    }
    static const char *const names[] = {"readCount", "argCount", "unbounded"};
    static const char *const files[] = {"faults.okl", "faults.okl", "unbounded.okl"};
    oklc_device *d;
    if (oklc_device_open(argv[1], &d))
        return fail(argv[1]);
    static int m[BLOCKS];
    for (int i = 0; i < BLOCKS; i++)
        m[i] = 64;
    oklc_memory *mm, *mx;
    if (oklc_memory_alloc(d, sizeof m, &mm) || oklc_memory_alloc(d, BLOCKS * 64 * 4, &mx) ||
        oklc_memory_copy_from_host(mm, m, sizeof m, 0))
        return fail("memory");
    oklc_kernel *k[3] = {NULL, NULL, NULL};
    int nk = 0;
    for (; nk < 3; nk++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[2], files[nk]);
        if (oklc_kernel_build(d, path, names[nk], NULL, &k[nk]))
            break;      /* unbounded: CPUs only */
    }
    if (nk < 2)
        return fail("build");
    double t[3][SAMPLES];
    for (int s = 0; s < SAMPLES; s++)
        for (int j = 0; j < nk; j++) {
            oklc_arg args[] = {oklc_arg_int(BLOCKS), j == 1 ? oklc_arg_int(64) : oklc_arg_mem(mm),
                               oklc_arg_mem(mx)};
            double t0 = now();
            for (int r = 0; r < RUNS; r++)
                if (oklc_kernel_run(k[j], 3, args))
                    return fail(names[j]);
            if (oklc_device_finish(d))
                return fail("finish");
            t[j][s] = (now() - t0) / RUNS * 1e6;
        }
    printf("%-28s", argv[1]);
    for (int j = 0; j < nk; j++) {
        qsort(t[j], SAMPLES, sizeof t[j][0], by_value);
        printf("  %s %8.1f us", names[j], t[j][SAMPLES / 2]);
    }
    printf("\n");
    for (int j = 0; j < nk; j++)
        oklc_kernel_free(k[j]);
    oklc_memory_free(mm);
    oklc_memory_free(mx);
    oklc_device_close(d);
    return 0;
}
