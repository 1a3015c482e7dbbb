/*
 * bench_streams: copy and compute at once with two streams. A kernel that
 * computes (many fma per entry) runs in one stream while large copies to
 * and from the device go in another; the same work in the default stream
 * runs one after the other. Medians of 5 runs of each, in one process.
 *
 *     bench_streams [DEVICE] [KERNELS_DIR]     DEVICE: serial (default), openmp, opencl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oklc/runtime.h"

enum { N = 1 << 20, COPY = 1 << 24, RUNS = 5 };

static const char busy[] =
    "@kernel void busy(const int n, float *x) {\n"
    "  for (int i = 0; i < n; ++i; @tile(256, @outer, @inner)) {\n"
    "    float v = x[i];\n"
    "    for (int r = 0; r < 400; ++r)\n"
    "      v = v * 0.999f + 0.001f;\n"
    "    x[i] = v;\n"
    "  }\n}\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int fail(const char *what)
{
    fprintf(stderr, "bench_streams: %s: %s\n", what, oklc_last_error());
    return 1;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct Work {
    oklc_device *dev;
    oklc_kernel *k;
    oklc_memory *x, *big;
    float       *host;
    oklc_stream *compute, *copy;    /* NULL: the default stream */
} Work;

/* The kernel in w->compute, the copies in w->copy; the seconds it took. */
static double once(Work *w, bool kernel, bool copies)
{
    double t = now();
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(w->x)};
    oklc_device_set_stream(w->dev, w->compute);
    if (kernel && oklc_kernel_run(w->k, 2, args))
        return fail("running"), -1;
    oklc_device_set_stream(w->dev, w->copy);
    for (int r = 0; copies && r < 4; r++)
        if (oklc_memory_copy_from_host_async(w->big, w->host, COPY, 0) ||
            oklc_memory_copy_to_host_async(w->big, w->host, COPY, 0))
            return fail("copying"), -1;
    oklc_device_set_stream(w->dev, NULL);
    if (oklc_device_finish(w->dev))
        return fail("finishing"), -1;
    return now() - t;
}

static double median(Work *w, bool kernel, bool copies)
{
    double t[RUNS];
    for (int i = 0; i < RUNS; i++)
        t[i] = once(w, kernel, copies);
    qsort(t, RUNS, sizeof *t, by_value);
    return t[RUNS / 2];
}

int main(int argc, char **argv)
{
    Work w = {0};
    const char *spec = argc > 1 ? argv[1] : "serial";
    if (oklc_device_open(spec, &w.dev))
        return fail("opening the device");
    if (oklc_kernel_build_string(w.dev, "busy.okl", busy, "busy", NULL, &w.k) ||
        oklc_memory_alloc(w.dev, N * sizeof(float), &w.x) ||
        oklc_memory_alloc(w.dev, COPY, &w.big) ||
        oklc_host_alloc(w.dev, COPY, (void **)&w.host))
        return fail("setting up");
    memset(w.host, 0, COPY);
    once(&w, true, true);    /* warm: the kernel loaded, the pages touched */
    double kernel = median(&w, true, false), copies = median(&w, false, true);
    double serial = median(&w, true, true);
    if (oklc_stream_create(w.dev, &w.compute) || oklc_stream_create(w.dev, &w.copy))
        return fail("creating streams");
    double streams = median(&w, true, true);
    double hidden = kernel + copies - streams, most = kernel < copies ? kernel : copies;
    printf("%-8s kernel %7.1f ms, copies %7.1f ms; one stream %7.1f ms, two streams %7.1f ms: "
           "%3.0f%% of the shorter hidden (%.2fx)\n",
           oklc_device_mode(w.dev), kernel * 1e3, copies * 1e3, serial * 1e3, streams * 1e3,
           most > 0 ? 100 * hidden / most : 0, streams > 0 ? serial / streams : 0);
    oklc_stream_free(w.compute);
    oklc_stream_free(w.copy);
    oklc_host_free(w.dev, w.host);
    oklc_memory_free(w.big);
    oklc_memory_free(w.x);
    oklc_kernel_free(w.k);
    oklc_device_close(w.dev);
    return 0;
}
