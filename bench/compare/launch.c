/*
 * bench/compare/launch.c - what a user waits for on a GPU-like device:
 * the first build of a kernel (transpile, device compile, launcher), the
 * same build again from the disk cache, and the cost of one launch of a
 * tiny kernel, for the OKL kernel and for its hand-written twin (native
 * source through oklc_props_okl(props, false)) on the same device.
 * bench/compare/launch.cu is the yardstick of the launch figures: the same
 * kernel launched by hand with the CUDA runtime API (bench/gpu-launch.sh
 * runs both).
 *
 * Every build is a cache miss the first time: a define unique to this run
 * (BENCH_SALT) enters the cache key, so an old cache cannot hide the cost.
 * "queued" is the time per launch of -n launches in a row, then one wait
 * (what a time-stepping loop pays); "round trip" is one launch and a wait
 * for it (what a loop that reads a result back every step pays). The
 * kernel adds 1 to 32 floats: after the runs each must hold their count.
 *
 * Usage: bench_launch [-D DEVICE] [-n LAUNCHES]   (default cuda, 20000)
 * Exit status: 0, or 2 on a failure (build, run, wrong count).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oklc/runtime.h"

#define BENCH_NAME "bench_launch"
#include "util.h"

#define LANES 32

static const char okl_source[] =
    "@kernel void tiny(const int n, float *x) {\n"
    "  for (int b = 0; b < 1; ++b; @outer) {\n"
    "    for (int t = 0; t < 32; ++t; @inner) {\n"
    "      if (t < n) x[t] += 1.0f;\n"
    "    }\n"
    "  }\n"
    "}\n";

/* CUDA and HIP; OpenCL C for the opencl device. */
static const char cuda_source[] =
    "extern \"C\" __global__ void tiny(const int n, float *x) {\n"
    "  int t = threadIdx.x;\n"
    "  if (t < n) x[t] += 1.0f;\n"
    "}\n";
static const char cl_source[] =
    "__kernel void tiny(const int n, __global float *x) {\n"
    "  int t = get_local_id(0);\n"
    "  if (t < n) x[t] += 1.0f;\n"
    "}\n";

/* Builds twice (a miss, then the cache's hit) and prints both times. */
static oklc_kernel *build_twice(oklc_device *d, const char *label, const char *path,
                                const char *source, const oklc_props *props)
{
    oklc_kernel *k = NULL;
    double t0 = now_ms();
    check(oklc_kernel_build_string(d, path, source, "tiny", props, &k), label);
    double t1 = now_ms();
    oklc_kernel_free(k);
    check(oklc_kernel_build_string(d, path, source, "tiny", props, &k), label);
    double t2 = now_ms();
    printf("%-12s first build %8.1f ms   cached build %6.2f ms\n", label, t1 - t0, t2 - t1);
    return k;
}

/* Queued and round-trip launch times, in microseconds. */
static void time_launches(oklc_device *d, oklc_kernel *k, const char *label,
                          oklc_memory *x, int launches)
{
    float zero[LANES] = {0}, got[LANES];
    check(oklc_memory_copy_from_host(x, zero, sizeof zero, 0), "copy");
    oklc_arg args[] = {oklc_arg_int(LANES), oklc_arg_mem(x)};
    check(oklc_kernel_run(k, 2, args), label);    /* warm-up */
    check(oklc_device_finish(d), "finish");
    double t0 = now_ms();
    for (int i = 0; i < launches; i++)
        check(oklc_kernel_run(k, 2, args), label);
    check(oklc_device_finish(d), "finish");
    double t1 = now_ms();
    int trips = launches / 10;
    for (int i = 0; i < trips; i++) {
        check(oklc_kernel_run(k, 2, args), label);
        check(oklc_device_finish(d), "finish");
    }
    double t2 = now_ms();
    check(oklc_memory_copy_to_host(x, got, sizeof got, 0), "copy back");
    for (int i = 0; i < LANES; i++)
        if (got[i] != (float)(1 + launches + trips))
            die("%s: x[%d] = %g after %d runs", label, i, got[i], 1 + launches + trips);
    printf("%-12s queued %7.2f us/launch   round trip %7.2f us\n", label,
           (t1 - t0) * 1e3 / launches, (t2 - t1) * 1e3 / trips);
}

int main(int argc, char **argv)
{
    const char *spec = "cuda";
    int launches = 20000, opt;
    while ((opt = getopt(argc, argv, "D:n:")) != -1) {
        if (opt == 'D')
            spec = optarg;
        else if (opt == 'n' && atoi(optarg) >= 10)
            launches = atoi(optarg);
        else {
            fputs("usage: bench_launch [-D DEVICE] [-n LAUNCHES (>= 10)]\n", stderr);
            return 2;
        }
    }
    double t0 = now_ms();
    oklc_device *d;
    check(oklc_device_open(spec, &d), spec);
    printf("device %s opened in %.1f ms\n", oklc_device_mode(d), now_ms() - t0);

    char salt[64];
    snprintf(salt, sizeof salt, "BENCH_SALT=%ld%ld", (long)getpid(), (long)time(NULL));
    oklc_props *okl = oklc_props_new(), *native = oklc_props_new();
    if (!okl || !native)
        die("out of memory");
    check(oklc_props_define(okl, salt), "define");
    check(oklc_props_define(native, salt), "define");
    check(oklc_props_okl(native, false), "props");
    bool cl = strcmp(oklc_device_mode(d), "opencl") == 0;

    oklc_kernel *kg = build_twice(d, "generated", "tiny.okl", okl_source, okl);
    oklc_kernel *kn = build_twice(d, "hand-written", cl ? "tiny.cl" : "tiny.cu",
                                  cl ? cl_source : cuda_source, native);
    size_t outer[3] = {1, 1, 1}, inner[3] = {LANES, 1, 1};
    check(oklc_kernel_set_run_dims(kn, outer, inner), "run dims");

    oklc_memory *x;
    check(oklc_memory_alloc(d, LANES * sizeof(float), &x), "alloc");
    time_launches(d, kg, "generated", x, launches);
    time_launches(d, kn, "hand-written", x, launches);

    oklc_memory_free(x);
    oklc_kernel_free(kg);
    oklc_kernel_free(kn);
    oklc_props_free(okl);
    oklc_props_free(native);
    oklc_device_close(d);
    return 0;
}
