/*
 * bench/compare/bench.c - generated code versus hand-written code of the
 * same kernels, on the same device, in one run.
 *
 * On each device named (-D: serial, openmp, opencl, cuda, hip, dpcpp;
 * default the serial and the OpenMP device), each kernel of kernels.okl is
 * built through the runtime twice: from the OKL (transpiled by the device's
 * backend) and from its hand-written twin (oklc_props_okl(props, false)):
 * native.cpp on the CPU devices, native.cl on opencl, native.cu on cuda and
 * hip, native_sycl.cpp on dpcpp. Both are compiled by the runtime on the
 * same device, so with the same compiler and flags (CPU: -std=c++17 -shared
 * -fPIC [-fopenmp] and -O3, or OKLC_CXX / OKLC_CXXFLAGS; GPU-like:
 * clBuildProgram, NVRTC, hiprtc, the SYCL compiler with the device's
 * options), and both run through oklc_kernel_run with the same arguments
 * (only the output buffers differ; a hand-written GPU kernel gets the grid
 * the OKL launcher computes, through oklc_kernel_set_run_dims).
 *
 * Each pair is first run once and its outputs compared (integers exactly,
 * floating point to a relative tolerance), then timed: each version's
 * repetition count is set so that one sample takes about -m milliseconds,
 * one sample of each is thrown away (warm-up), then -n samples of each,
 * hand-written and generated alternating (so that a change in the machine's
 * load falls on both); the figure is the median time of one run. The table
 * gives hand-written ms / generated ms of the medians: 1 is parity, above 1
 * the generated code is faster; next to it, the same ratio of the fastest
 * samples: on a machine that other work shares, the two disagree, and the
 * fastest are the nearer to the truth. Memory-bound kernels also report the
 * generated code's GB/s (the bytes an ideal kernel reads and writes, over
 * the median time) and that as a share of the device's copy bandwidth,
 * measured in the same run by the hand-written copy kernel.
 *
 * Goals: CPU devices, hand/gen >= 0.97 for every kernel but copy (there the
 * yardstick only); GPU-like devices, hand/gen >= 0.97, and for the
 * memory-bound kernels at least 90% of the copy bandwidth.
 *
 * Usage: bench_compare [-d DIR] [-D DEVICE]... [-t THREADS] [-n SAMPLES]
 *                      [-m MS] [-k NAME]... [-x K] [-q] [-c] [-P]
 *   -d  folder of kernels.okl and the native files (default: the source tree's)
 *   -D  a device: serial, openmp, or a device spec ("opencl platform=0"),
 *       repeatable (default: serial and openmp)
 *   -t  threads of the OpenMP device (default: every online core)
 *   -n  samples per version (default 15), -m  milliseconds per sample (40)
 *   -k  only the kernels named (repeatable; copy is always measured)
 *   -x  the memory-bound kernels' sizes times 2^K, K in 0..4 (default 0)
 *   -q  small sizes (a smoke test), -c  check only: build, run, compare, no timing
 *   -P  (serial, openmp) the reference is the same OKL kernel translated
 *       without the CPU rewrites (oklc_props_cpu_rewrites), not the
 *       hand-written twin: goal plain/rewritten >= 0.95 for every kernel,
 *       copy included, in the medians or the fastest samples
 *       (bench/rewrites.sh); the kernels of DIR/../kernels (bench/kernels:
 *       spectral-element operators, reductions, gather-scatter, which have
 *       no hand-written twins) are timed too
 * Exit status: 0 goal met (with -c: every pair agrees), 1 goal not met,
 * 2 a failure (build, run, or the two versions disagree).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oklc/runtime.h"

#define BENCH_NAME "bench_compare"
#include "util.h"

#ifndef OKLC_BENCH_DIR
#define OKLC_BENCH_DIR "bench/compare"
#endif

#define GOAL_CPU 0.97     /* hand/gen on the CPU devices */
#define GOAL_PLAIN 0.95   /* -P: plain/rewritten (the rewrites at most 5% slower) */
#define GOAL_GPU 0.97     /* hand/gen on the GPU-like devices */
#define GOAL_COPY 0.90    /* GPU-like: generated GB/s over the copy kernel's */
#define MAX_ARGS 8
#define MAX_MEM 8

/* xorshift64*: the same inputs on every run. */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng() >> 11) * (1.0 / 9007199254740992.0);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die("out of host memory (%zu bytes)", bytes);
    return p;
}

/* ---- one benchmark case -------------------------------------------------------- */

typedef enum { T_F32, T_F64, T_U32 } Elem;

typedef struct Case {
    const char *label;     /* the table's name */
    const char *okl;       /* the kernel of kernels.okl */
    const char *native;    /* its hand-written twin in the native file */
    char size[48];
    size_t outer[3], inner[3];    /* the grid of a hand-written GPU kernel */
    double bytes;          /* read and written by an ideal kernel; 0: not memory-bound */
    int nargs, out_arg;    /* out_arg: which argument is the output */
    oklc_arg args[MAX_ARGS];
    oklc_memory *mem[MAX_MEM];
    int nmem;
    oklc_memory *out_gen, *out_nat;
    size_t out_count;
    Elem type;
    double tol;            /* relative to the largest |value|; 0: exact */
    bool accumulates;      /* the kernel adds to its output: zero it first */
    size_t total;          /* histogram: the sum of the counts must be this */
} Case;

static oklc_memory *add_mem(oklc_device *d, Case *c, const void *host, size_t bytes)
{
    if (c->nmem == MAX_MEM)
        die("too many buffers");
    oklc_memory *m;
    check(oklc_memory_alloc(d, bytes, &m), "oklc_memory_alloc");
    if (host)
        check(oklc_memory_copy_from_host(m, host, bytes, 0), "copy to the device");
    c->mem[c->nmem++] = m;
    return m;
}

static oklc_memory *random_f32(oklc_device *d, Case *c, size_t n, double lo, double hi)
{
    float *h = xmalloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)uniform(lo, hi);
    oklc_memory *m = add_mem(d, c, h, n * sizeof *h);
    free(h);
    return m;
}

static oklc_memory *random_f64(oklc_device *d, Case *c, size_t n, double lo, double hi)
{
    double *h = xmalloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = uniform(lo, hi);
    oklc_memory *m = add_mem(d, c, h, n * sizeof *h);
    free(h);
    return m;
}

static oklc_memory *random_bytes(oklc_device *d, Case *c, size_t n)
{
    unsigned char *h = xmalloc(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned char)(rng() >> 56);
    oklc_memory *m = add_mem(d, c, h, n);
    free(h);
    return m;
}

/* Two output buffers holding `init` (or zeros), the last argument. */
static void outputs(oklc_device *d, Case *c, size_t count, Elem type, const void *init)
{
    size_t bytes = count * (type == T_F64 ? 8 : 4);
    void *zero = NULL;
    if (!init)
        init = zero = calloc(bytes ? bytes : 1, 1);
    if (!init)
        die("out of host memory");
    c->out_gen = add_mem(d, c, init, bytes);
    c->out_nat = add_mem(d, c, init, bytes);
    free(zero);
    c->out_count = count;
    c->type = type;
    c->out_arg = c->nargs;
    c->args[c->nargs++] = oklc_arg_mem(c->out_gen);
}

/* The grid of the hand-written GPU kernel: ox x oy blocks of ix x iy threads. */
static void grid(Case *c, size_t ox, size_t oy, size_t ix, size_t iy)
{
    c->outer[0] = ox, c->outer[1] = oy, c->outer[2] = 1;
    c->inner[0] = ix, c->inner[1] = iy, c->inner[2] = 1;
}

/* -x K: the memory-bound cases' sizes times 2^K (a GPU's 50 MB of L2 holds
 * much of a 2^24-float array). */
static int size_shift;

static int stream_size(Case *c, bool quick)
{
    const int n = quick ? (1 << 18) + 5 : 1 << (24 + size_shift);
    if (quick)
        snprintf(c->size, sizeof c->size, "%d floats", n);
    else
        snprintf(c->size, sizeof c->size, "2^%d floats", 24 + size_shift);
    grid(c, ((size_t)n + 255) / 256, 1, 256, 1);
    return n;
}

static void setup_copy(oklc_device *d, Case *c, bool quick)
{
    const int n = stream_size(c, quick);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, (size_t)n, -1, 1));
    outputs(d, c, (size_t)n, T_F32, NULL);
    c->bytes = 8.0 * n;
}

static void setup_triad(oklc_device *d, Case *c, bool quick)
{
    const int n = stream_size(c, quick);
    c->bytes = 12.0 * n;
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_float(1.5f);
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, (size_t)n, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, (size_t)n, -1, 1));
    outputs(d, c, (size_t)n, T_F32, NULL);
    c->tol = 0;
}

/* copy4, triad4: 4 elements per thread, so a quarter of the blocks of 256 */
static void setup_copy4(oklc_device *d, Case *c, bool quick)
{
    setup_copy(d, c, quick);
    c->outer[0] = (c->outer[0] + 3) / 4;
}

static void setup_triad4(oklc_device *d, Case *c, bool quick)
{
    setup_triad(d, c, quick);
    c->outer[0] = (c->outer[0] + 3) / 4;
}

static void setup_block_sum(oklc_device *d, Case *c, bool quick)
{
    const int n = quick ? (1 << 18) + 77 : 1 << (24 + size_shift);
    if (quick)
        snprintf(c->size, sizeof c->size, "%d floats, 256/block", n);
    else
        snprintf(c->size, sizeof c->size, "2^%d floats, 256/block", 24 + size_shift);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, (size_t)n, 0, 1));
    outputs(d, c, (size_t)(n + 255) / 256, T_F32, NULL);
    c->tol = 1e-5;
    grid(c, ((size_t)n + 255) / 256, 1, 256, 1);
    c->bytes = 4.0 * n + 4.0 * ((n + 255) / 256);
}

static void setup_dot(oklc_device *d, Case *c, bool quick)
{
    const int n = quick ? (1 << 18) + 77 : 1 << (24 + size_shift);
    if (quick)
        snprintf(c->size, sizeof c->size, "%d floats, 4096/block", n);
    else
        snprintf(c->size, sizeof c->size, "2^%d floats, 4096/block", 24 + size_shift);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, (size_t)n, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, (size_t)n, -1, 1));
    outputs(d, c, (size_t)(n + 4095) / 4096, T_F32, NULL);
    c->tol = 1e-5;    /* the hand-written CPU version adds in another order */
    grid(c, ((size_t)n + 4095) / 4096, 1, 256, 1);
    c->bytes = 8.0 * n + 4.0 * ((n + 4095) / 4096);
}

static void setup_jacobi(oklc_device *d, Case *c, bool quick)
{
    const int n = quick ? 509 : 4096 << (size_shift / 2);
    const size_t nn = (size_t)n * n;
    snprintf(c->size, sizeof c->size, "%d^2 floats", n);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_float(1.0f / ((float)n * (float)n));
    float *u = xmalloc(nn * sizeof *u);
    for (size_t i = 0; i < nn; i++)
        u[i] = (float)uniform(0, 1);
    c->args[c->nargs++] = oklc_arg_mem(add_mem(d, c, u, nn * sizeof *u));
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, nn, -1, 1));
    outputs(d, c, nn, T_F32, u);    /* unew keeps u's boundary */
    free(u);
    c->tol = 0;
    grid(c, ((size_t)n + 15) / 16, ((size_t)n + 15) / 16, 16, 16);
    c->bytes = 12.0 * (double)nn;    /* u and f read, unew written, once each */
}

/* C = A B, n x n: n and its type (floats: 1e-6, doubles: 1e-12 of tolerance) */
static void matmul_case(oklc_device *d, Case *c, int n, Elem type)
{
    const bool f64 = type == T_F64;
    snprintf(c->size, sizeof c->size, "%d^2 %s", n, f64 ? "doubles" : "floats");
    c->args[c->nargs++] = oklc_arg_int(n);
    for (int m = 0; m < 2; m++)
        c->args[c->nargs++] = oklc_arg_mem(f64 ? random_f64(d, c, (size_t)n * n, -1, 1)
                                               : random_f32(d, c, (size_t)n * n, -1, 1));
    outputs(d, c, (size_t)n * n, type, NULL);
    c->tol = f64 ? 1e-12 : 1e-6;
    grid(c, (size_t)n / 16, (size_t)n / 16, 16, 16);    /* compute-bound: no bytes */
}

static void setup_matmul(oklc_device *d, Case *c, bool quick)
{
    matmul_case(d, c, quick ? 128 : 512, T_F32);
}

/* Issue 33's size: B's column panel (N x 16 doubles) out of the cache. */
static void setup_matmul64(oklc_device *d, Case *c, bool quick)
{
    matmul_case(d, c, quick ? 128 : 1536, T_F64);
}

static void setup_gradient(oklc_device *d, Case *c, bool quick)
{
    const int E = quick ? 256 : 8192 << size_shift, nq = 8, np = nq * nq * nq;
    snprintf(c->size, sizeof c->size, "%d elements, Nq=8, doubles", E);
    c->args[c->nargs++] = oklc_arg_int(E);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)nq * nq, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)E * np, -1, 1));
    outputs(d, c, (size_t)E * 3 * np, T_F64, NULL);
    c->tol = 1e-14;
    grid(c, (size_t)E, 1, nq, nq);
    c->bytes = 8.0 * (4.0 * E * np + nq * nq);
}

static void setup_axhex(oklc_device *d, Case *c, bool quick)
{
    const int E = quick ? 64 : 4096 << size_shift, nq = 8, np = nq * nq * nq;
    snprintf(c->size, sizeof c->size, "%d elements, Nq=8, doubles", E);
    c->args[c->nargs++] = oklc_arg_int(E);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)E * 6 * np, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)nq * nq, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)E * np, -1, 1));
    outputs(d, c, (size_t)E * np, T_F64, NULL);
    c->tol = 1e-12;    /* the hand-written CPU version adds in another order */
    grid(c, (size_t)E, 1, nq, nq);
    c->bytes = 8.0 * (8.0 * E * np + nq * nq);    /* G (6), q, Aq */
}

static void setup_histogram(oklc_device *d, Case *c, bool quick)
{
    const int n = quick ? (1 << 20) + 3 : 1 << (26 + size_shift);
    if (quick)
        snprintf(c->size, sizeof c->size, "%d bytes, 256 bins", n);
    else
        snprintf(c->size, sizeof c->size, "2^%d bytes, 256 bins", 26 + size_shift);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_mem(random_bytes(d, c, (size_t)n));
    outputs(d, c, 256, T_U32, NULL);
    c->tol = 0;
    c->accumulates = true;
    c->total = (size_t)n;
    grid(c, ((size_t)n + 256 * 64 - 1) / (256 * 64), 1, 256, 1);
    c->bytes = (double)n + 2.0 * 4 * 256;
}

/* ---- bench/kernels (with -P only: they have no hand-written twins) --------------- */

enum { NP = 512 };    /* the spectral-element kernels' nodes per element (8^3) */

static int elements(Case *c, bool quick)
{
    const int E = quick ? 32 : 2048;
    snprintf(c->size, sizeof c->size, "%d elements, Nq=8, doubles", E);
    return E;
}

/* axHex3D(Nelements, offset, ggeo, D, lambda, q, Aq) */
static void setup_ax_hex3d(oklc_device *d, Case *c, bool quick)
{
    const int E = elements(c, quick);
    c->args[c->nargs++] = oklc_arg_int(E);
    c->args[c->nargs++] = oklc_arg_int(0);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)E * 7 * NP, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, 64, -1, 1));
    c->args[c->nargs++] = oklc_arg_double(0.5);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)E * NP, -1, 1));
    outputs(d, c, (size_t)E * NP, T_F64, NULL);
}

/* The operators of sem_ops.okl: (Nelements, [offset,] inputs..., out,
 * vgeo, D), `fields` input fields of 3 components (u: offset apart), then
 * `scalars` of one. */
static void sem_op(oklc_device *d, Case *c, bool quick, int offset, int fields, int scalars)
{
    const int E = elements(c, quick);
    const size_t n = (size_t)E * NP;
    c->args[c->nargs++] = oklc_arg_int(E);
    if (offset)
        c->args[c->nargs++] = oklc_arg_int((int)n);
    for (int i = 0; i < fields; i++)
        c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, 3 * n, -1, 1));
    for (int i = 0; i < scalars; i++)
        c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, n, 0.5, 1.5));
    outputs(d, c, n, T_F64, NULL);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)E * 12 * NP, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, 64, -1, 1));
}

static void setup_sem_scalar(oklc_device *d, Case *c, bool quick) { sem_op(d, c, quick, 0, 0, 1); }
static void setup_sem_advect(oklc_device *d, Case *c, bool quick) { sem_op(d, c, quick, 1, 1, 1); }
static void setup_sem_helmholtz(oklc_device *d, Case *c, bool quick) { sem_op(d, c, quick, 0, 0, 3); }

/* axpbyz(N, alpha, x, beta, y, z) */
static void setup_axpbyz(oklc_device *d, Case *c, bool quick)
{
    const int n = elements(c, quick) * NP;
    snprintf(c->size, sizeof c->size, "%d doubles", n);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_double(0.5);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)n, -1, 1));
    c->args[c->nargs++] = oklc_arg_double(2.0);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)n, -1, 1));
    outputs(d, c, (size_t)n, T_F64, NULL);
}

/* dot, weightedNorm2 (N, x, y, partial), maxAbs (N, x, partial): one
 * partial result per block of 256 */
static void reduction(oklc_device *d, Case *c, bool quick, int inputs)
{
    const int n = quick ? (1 << 16) + 77 : 1 << 22;
    snprintf(c->size, sizeof c->size, "%d doubles, 256/block", n);
    c->args[c->nargs++] = oklc_arg_int(n);
    for (int i = 0; i < inputs; i++)
        c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)n, -1, 1));
    outputs(d, c, ((size_t)n + 255) / 256, T_F64, NULL);
}

/* dotAtomic (N, x, y, dot): the sum added into dot[0], which starts at 0 */
static void setup_dot_atomic(oklc_device *d, Case *c, bool quick)
{
    const int n = quick ? (1 << 16) + 77 : 1 << 22;
    snprintf(c->size, sizeof c->size, "%d doubles, one sum", n);
    c->args[c->nargs++] = oklc_arg_int(n);
    for (int i = 0; i < 2; i++)
        c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)n, -1, 1));
    outputs(d, c, 1, T_F64, NULL);
    c->accumulates = true;
    c->tol = 1e-9;    /* the threads' sums are added in any order */
}

/* binsAtomic (N, data, hist): 256 bins of bytes, one @atomic update per
 * byte; hist starts at 0 */
static void setup_bins_atomic(oklc_device *d, Case *c, bool quick)
{
    const int n = quick ? (1 << 16) + 77 : 1 << 24;
    snprintf(c->size, sizeof c->size, "%d bytes, 256 bins", n);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_mem(random_bytes(d, c, (size_t)n));
    outputs(d, c, 256, T_U32, NULL);
    c->tol = 0;
    c->accumulates = true;
}

static void setup_reduce2(oklc_device *d, Case *c, bool quick) { reduction(d, c, quick, 2); }
static void setup_reduce1(oklc_device *d, Case *c, bool quick) { reduction(d, c, quick, 1); }

/* gatherScatter(Ngather, starts, ids, q) and gatherScatterMany(Ngather,
 * Nentries = 3, stride, starts, ids, q): groups of 1 to 4 of a random
 * permutation of q's entries (no two groups share one, so the result does
 * not depend on the order of the groups); q, the output, starts as given. */
static void gather_scatter(oklc_device *d, Case *c, bool quick, bool many)
{
    const int groups = quick ? 4099 : 1 << 18, entries = many ? 3 : 1;
    int *starts = xmalloc(((size_t)groups + 1) * sizeof *starts), m = 0;
    for (int g = 0; g < groups; g++) {
        starts[g] = m;
        m += 1 + (int)(rng() % 4);
    }
    starts[groups] = m;
    int *ids = xmalloc((size_t)m * sizeof *ids);
    for (int i = 0; i < m; i++)
        ids[i] = i;
    for (int i = m - 1; i > 0; i--) {
        int j = (int)(rng() % (uint64_t)(i + 1)), t = ids[i];
        ids[i] = ids[j], ids[j] = t;
    }
    double *q = xmalloc((size_t)m * entries * sizeof *q);
    for (int i = 0; i < m * entries; i++)
        q[i] = uniform(-1, 1);
    snprintf(c->size, sizeof c->size, "%d groups, %d ids", groups, m);
    c->args[c->nargs++] = oklc_arg_int(groups);
    if (many) {
        c->args[c->nargs++] = oklc_arg_int(entries);
        c->args[c->nargs++] = oklc_arg_int(m);
    }
    c->args[c->nargs++] = oklc_arg_mem(add_mem(d, c, starts, ((size_t)groups + 1) * sizeof *starts));
    c->args[c->nargs++] = oklc_arg_mem(add_mem(d, c, ids, (size_t)m * sizeof *ids));
    outputs(d, c, (size_t)m * entries, T_F64, q);    /* each run changes it: timed only */
    free(starts);
    free(ids);
    free(q);
}

static void setup_gather(oklc_device *d, Case *c, bool quick) { gather_scatter(d, c, quick, false); }
static void setup_gather_many(oklc_device *d, Case *c, bool quick) { gather_scatter(d, c, quick, true); }

/* filter9(N, w, in, out): 9 weights, N floats (a multiple of 256) */
static void setup_filter(oklc_device *d, Case *c, bool quick)
{
    const int n = quick ? 1 << 16 : 1 << 22;
    snprintf(c->size, sizeof c->size, "%d floats, 9 weights", n);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, 9, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f32(d, c, (size_t)n, -1, 1));
    outputs(d, c, (size_t)n, T_F32, NULL);
}

/* columnSums4(R, C, A, out): R x C doubles, a sum per column */
static void setup_columns(oklc_device *d, Case *c, bool quick)
{
    const int rows = quick ? 256 : 2048, cols = quick ? 512 : 4096;
    snprintf(c->size, sizeof c->size, "%d x %d doubles", rows, cols);
    c->args[c->nargs++] = oklc_arg_int(rows);
    c->args[c->nargs++] = oklc_arg_int(cols);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)rows * cols, -1, 1));
    outputs(d, c, (size_t)cols, T_F64, NULL);
}

/* stagesUpdate(E, Nfields, offset, a, rhsq0, rhsq, q, out): E elements
 * of 64 nodes, 9 fields, 2 stages of history in rhsq */
static void setup_stages(oklc_device *d, Case *c, bool quick)
{
    const int E = quick ? 256 : 4096, fields = 9, n = E * 64 * fields;
    snprintf(c->size, sizeof c->size, "%d elements, %d fields, doubles", E, fields);
    c->args[c->nargs++] = oklc_arg_int(E);
    c->args[c->nargs++] = oklc_arg_int(fields);
    c->args[c->nargs++] = oklc_arg_int(n);
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, 3, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)n, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, 2 * (size_t)n, -1, 1));
    c->args[c->nargs++] = oklc_arg_mem(random_f64(d, c, (size_t)n, -1, 1));
    outputs(d, c, (size_t)n, T_F64, NULL);
}

typedef struct Kind {
    const char *label, *okl, *native;
    void (*setup)(oklc_device *, Case *, bool);
    const char *file;      /* the kernel's file beside DIR, or NULL: DIR/kernels.okl */
} Kind;

/* copy first: the others' share of the copy bandwidth needs it. */
static const Kind kinds[] = {
    {"copy", "copy", "copy_native", setup_copy, NULL},
    {"triad", "triad", "triad_native", setup_triad, NULL},
    {"copy4", "copy4", "copy4_native", setup_copy4, NULL},
    {"triad4", "triad4", "triad4_native", setup_triad4, NULL},
    {"blockSum", "blockSum", "blockSum_native", setup_block_sum, NULL},
    {"dot", "dot", "dot_native", setup_dot, NULL},
    {"dotBarrier", "dotBarrier", "dot_native", setup_dot, NULL},
    {"jacobi2d", "jacobi2d", "jacobi2d_native", setup_jacobi, NULL},
    {"matmulOkl", "matmulOkl", "matmul_native", setup_matmul, NULL},
    {"matmulBarrier", "matmulBarrier", "matmul_native", setup_matmul, NULL},
    {"matmulStaged", "matmulStaged", "matmul_native", setup_matmul, NULL},
    {"matmulStaged64", "matmulStaged64", "matmul64_native", setup_matmul64, NULL},
    {"matmulNaive", "matmulNaive", "matmul_native", setup_matmul, NULL},
    {"gradient", "gradient", "gradient_native", setup_gradient, NULL},
    {"axhex", "axhex", "axhex_native", setup_axhex, NULL},
    {"histogram", "histogram", "histogram_native", setup_histogram, NULL},
    {"axHex3D", "axHex3D", NULL, setup_ax_hex3d, "../kernels/ax_hex3d.okl"},
    {"gradientX", "gradientX", NULL, setup_sem_scalar, "../kernels/sem_ops.okl"},
    {"gradientMag", "gradientMagnitude", NULL, setup_sem_scalar, "../kernels/sem_ops.okl"},
    {"advectX", "advectX", NULL, setup_sem_advect, "../kernels/sem_ops.okl"},
    {"helmholtzDiag", "helmholtzDiagonal", NULL, setup_sem_helmholtz, "../kernels/sem_ops.okl"},
    {"divergence", "divergence", NULL, setup_sem_advect, "../kernels/sem_ops.okl"},
    {"laplaceMass", "laplaceMass", NULL, setup_sem_scalar, "../kernels/sem_ops.okl"},
    {"axpbyz", "axpbyz", NULL, setup_axpbyz, "../kernels/sem_ops.okl"},
    {"dotK", "dot", NULL, setup_reduce2, "../kernels/reductions.okl"},
    {"weightedNorm2", "weightedNorm2", NULL, setup_reduce2, "../kernels/reductions.okl"},
    {"maxAbs", "maxAbs", NULL, setup_reduce1, "../kernels/reductions.okl"},
    {"dotAtomic", "dotAtomic", NULL, setup_dot_atomic, "../kernels/reductions.okl"},
    {"binsAtomic", "binsAtomic", NULL, setup_bins_atomic, "../kernels/reductions.okl"},
    {"gatherScatter", "gatherScatter", NULL, setup_gather, "../kernels/gather_scatter.okl"},
    {"gatherMany", "gatherScatterMany", NULL, setup_gather_many, "../kernels/gather_scatter.okl"},
    {"rowsProduct", "rowsProduct", NULL, setup_matmul, "../kernels/thread_sums.okl"},
    {"filter9", "filter9", NULL, setup_filter, "../kernels/thread_sums.okl"},
    {"productTile2d", "productTile2d", NULL, setup_matmul, "../kernels/thread_sums.okl"},
    {"columnSums4", "columnSums4", NULL, setup_columns, "../kernels/thread_arrays.okl"},
    {"stagesUpdate", "stagesUpdate", NULL, setup_stages, "../kernels/thread_arrays.okl"},
};

/* ---- running, checking, timing ---------------------------------------------------- */

static void run(oklc_kernel *k, Case *c, oklc_memory *out)
{
    c->args[c->out_arg] = oklc_arg_mem(out);
    check(oklc_kernel_run(k, c->nargs, c->args), "oklc_kernel_run");
}

static void zero(oklc_memory *m)
{
    size_t bytes = oklc_memory_size(m);
    void *z = calloc(bytes ? bytes : 1, 1);
    if (!z)
        die("out of host memory");
    check(oklc_memory_copy_from_host(m, z, bytes, 0), "copy to the device");
    free(z);
}

static double value(const void *p, Elem t, size_t i)
{
    switch (t) {
    case T_F32: return ((const float *)p)[i];
    case T_F64: return ((const double *)p)[i];
    default: return ((const unsigned int *)p)[i];
    }
}

/* Runs each version once and compares; *agree describes how well. */
static bool verify(Case *c, oklc_device *d, oklc_kernel *gen, oklc_kernel *nat, char *agree,
                   size_t cap)
{
    if (c->accumulates) {
        zero(c->out_gen);
        zero(c->out_nat);
    }
    run(gen, c, c->out_gen);
    run(nat, c, c->out_nat);
    check(oklc_device_finish(d), "oklc_device_finish");
    size_t bytes = oklc_memory_size(c->out_gen);
    void *g = xmalloc(bytes), *h = xmalloc(bytes);
    check(oklc_memory_copy_to_host(c->out_gen, g, bytes, 0), "copy to the host");
    check(oklc_memory_copy_to_host(c->out_nat, h, bytes, 0), "copy to the host");
    bool ok = true;
    if (c->type == T_U32) {
        size_t diff = 0, sum_g = 0, sum_h = 0;
        for (size_t i = 0; i < c->out_count; i++) {
            unsigned a = ((unsigned *)g)[i], b = ((unsigned *)h)[i];
            diff += a != b;
            sum_g += a;
            sum_h += b;
        }
        ok = diff == 0 && (!c->total || (sum_g == c->total && sum_h == c->total));
        if (ok)
            snprintf(agree, cap, "exact");
        else
            snprintf(agree, cap, "%zu differ, sums %zu %zu", diff, sum_g, sum_h);
    } else {
        double maxdiff = 0, maxref = 0;
        bool bitwise = memcmp(g, h, bytes) == 0;
        for (size_t i = 0; i < c->out_count; i++) {
            double a = value(g, c->type, i), b = value(h, c->type, i);
            double dlt = fabs(a - b);
            if (!(dlt <= maxdiff))    /* NaN too */
                maxdiff = isnan(dlt) ? INFINITY : dlt;
            if (fabs(b) > maxref)
                maxref = fabs(b);
        }
        double rel = maxref > 0 ? maxdiff / maxref : maxdiff;
        ok = bitwise || rel <= c->tol;
        if (bitwise)
            snprintf(agree, cap, "bitwise");
        else
            snprintf(agree, cap, "rel %.1e", rel);
    }
    free(g);
    free(h);
    return ok;
}

/* Milliseconds of one run, over `reps` runs. */
static double sample(oklc_device *d, oklc_kernel *k, Case *c, oklc_memory *out, int reps)
{
    double t0 = now_ms();
    for (int r = 0; r < reps; r++)
        run(k, c, out);
    check(oklc_device_finish(d), "oklc_device_finish");
    return (now_ms() - t0) / reps;
}

static int reps_for(double one_ms, double target_ms)
{
    double r = ceil(target_ms / (one_ms > 1e-3 ? one_ms : 1e-3));
    return r < 1 ? 1 : r > 1e6 ? 1000000 : (int)r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct Options {
    const char *dir;
    const char *devices[8];
    int ndevices, threads, samples;
    double target_ms;
    bool quick, check_only;
    bool plain;            /* -P: the reference is the plain translation, not hand-written */
    const char *only[16];
    int nonly;
} Options;

static bool selected(const Options *o, const char *label)
{
    if (!o->nonly || !strcmp(label, "copy"))
        return true;
    for (int i = 0; i < o->nonly; i++)
        if (!strcmp(o->only[i], label))
            return true;
    return false;
}

static bool gpu_like(const char *mode)
{
    return strcmp(mode, "serial") && strcmp(mode, "openmp");
}

/* The hand-written twins of the device's backend. */
static const char *native_file(const char *mode)
{
    if (!gpu_like(mode))
        return "native.cpp";
    if (!strcmp(mode, "dpcpp"))
        return "native_sycl.cpp";
    return strcmp(mode, "opencl") ? "native.cu" : "native.cl";
}

typedef struct Timing {
    double hand_ms, gen_ms, ratio, ratio_min;
} Timing;

/* The medians of -n samples of each version, alternating. Both write the
 * same output buffer (verify() compared them with one each): where a
 * buffer lies in memory moves a memory-bound kernel's time, by 17% for
 * jacobi2d on the development machine, where identical code timed into
 * two buffers gave a ratio of 0.83. */
static Timing measure(const Options *o, oklc_device *d, oklc_kernel *gen, oklc_kernel *nat,
                      Case *c, double *sg, double *sn)
{
    oklc_memory *out = c->out_gen;
    /* calibrate, warm up (one whole sample each, not counted), measure */
    int rg = reps_for(sample(d, gen, c, out, 1), o->target_ms);
    int rn = reps_for(sample(d, nat, c, out, 1), o->target_ms);
    sample(d, gen, c, out, rg);
    sample(d, nat, c, out, rn);
    for (int s = 0; s < o->samples; s++) {
        if (s % 2) {
            sg[s] = sample(d, gen, c, out, rg);
            sn[s] = sample(d, nat, c, out, rn);
        } else {
            sn[s] = sample(d, nat, c, out, rn);
            sg[s] = sample(d, gen, c, out, rg);
        }
    }
    Timing t;
    t.gen_ms = median(sg, o->samples);
    t.hand_ms = median(sn, o->samples);
    t.ratio = t.hand_ms / t.gen_ms;
    t.ratio_min = sn[0] / sg[0];    /* sorted by median() */
    return t;
}

/* Runs every case on one device; returns how many miss the goal. */
static int bench_device(const Options *o, const char *spec, int *failed)
{
    oklc_device *d;
    check(oklc_device_open(spec, &d), spec);
    const char *mode = oklc_device_mode(d);
    const bool gpu = gpu_like(mode);
    char label[32];
    if (!strcmp(mode, "openmp"))
        snprintf(label, sizeof label, "openmp/%d", o->threads);
    else
        snprintf(label, sizeof label, "%s", mode);
    char okl_path[4096], native_path[4096];
    snprintf(native_path, sizeof native_path, "%s/%s", o->dir, native_file(mode));
    oklc_props *native = oklc_props_new();
    if (!native)
        die("out of memory");
    if (o->plain && gpu)
        die("-P: the CPU rewrites are the serial and OpenMP devices' only");
    if (o->plain)    /* the same kernel, the rewrites off */
        check(oklc_props_cpu_rewrites(native, false), "oklc_props_cpu_rewrites");
    else
        check(oklc_props_okl(native, false), "oklc_props_okl");

    int missed = 0;
    double copy_gbs = 0;    /* the hand-written copy kernel's */
    double *sg = xmalloc((size_t)o->samples * sizeof *sg);
    double *sn = xmalloc((size_t)o->samples * sizeof *sn);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        const Kind *kd = &kinds[i];
        if (!selected(o, kd->label) || (!kd->native && !o->plain))
            continue;
        if (kd->file)
            snprintf(okl_path, sizeof okl_path, "%s/%s", o->dir, kd->file);
        else
            snprintf(okl_path, sizeof okl_path, "%s/kernels.okl", o->dir);
        Case c;
        memset(&c, 0, sizeof c);
        c.label = kd->label;
        c.okl = kd->okl;
        c.native = kd->native;
        kd->setup(d, &c, o->quick);

        oklc_kernel *gen, *nat;
        char what[8300];
        snprintf(what, sizeof what, "building %s of %s", c.okl, okl_path);
        check(oklc_kernel_build(d, okl_path, c.okl, NULL, &gen), what);
        snprintf(what, sizeof what, "building %s of %s%s", o->plain ? c.okl : c.native,
                 o->plain ? okl_path : native_path, o->plain ? " without rewrites" : "");
        check(oklc_kernel_build(d, o->plain ? okl_path : native_path,
                                o->plain ? c.okl : c.native, native, &nat), what);
        if (gpu && !o->plain)
            check(oklc_kernel_set_run_dims(nat, c.outer, c.inner), "oklc_kernel_set_run_dims");

        char agree[64];
        bool ok = verify(&c, d, gen, nat, agree, sizeof agree);
        if (!ok)
            (*failed)++;
        if (o->check_only) {
            printf("%-14s %-9s %-28s %s%s\n", c.label, label, c.size, agree,
                   ok ? "" : "  <- the results DISAGREE");
        } else {
            Timing t = measure(o, d, gen, nat, &c, sg, sn);
            double gbs = c.bytes / (t.gen_ms * 1e6);
            if (!strcmp(c.label, "copy"))
                copy_gbs = c.bytes / (t.hand_ms * 1e6);
            double share = c.bytes > 0 && copy_gbs > 0 ? gbs / copy_gbs : 0;
            /* -P: slower beyond noise only when the fastest samples say so too */
            bool met = (o->plain ? t.ratio >= GOAL_PLAIN || t.ratio_min >= GOAL_PLAIN
                                 : t.ratio >= (gpu ? GOAL_GPU : GOAL_CPU)) &&
                       (!gpu || c.bytes == 0 || share >= GOAL_COPY);
            /* on a CPU, copy is the yardstick only: GCC turns the generated
             * loop (restrict parameters) into a memcpy call, the hand-written
             * one (restrict locals) into a vector loop, so the two measure
             * the C library against the compiler, not the backend */
            bool judged = gpu || o->plain || strcmp(c.label, "copy");
            missed += judged && !met;
            char hgb[16] = "-", gb[16] = "-", pct[16] = "-";
            if (c.bytes > 0) {
                snprintf(hgb, sizeof hgb, "%.1f", c.bytes / (t.hand_ms * 1e6));
                snprintf(gb, sizeof gb, "%.1f", gbs);
                snprintf(pct, sizeof pct, "%.0f%%", 100 * share);
            }
            printf("%-14s %-9s %-28s %9.3f %9.3f %8.3f %8.3f %7s %7s %6s  %-4s %s%s\n",
                   c.label, label, c.size, t.hand_ms, t.gen_ms, t.ratio, t.ratio_min, hgb, gb,
                   pct, !judged ? "-" : met ? "met" : "NOT", agree, ok ? "" : "  <- the results DISAGREE");
        }
        fflush(stdout);

        oklc_kernel_free(gen);
        oklc_kernel_free(nat);
        for (int m = 0; m < c.nmem; m++)
            oklc_memory_free(c.mem[m]);
    }
    free(sg);
    free(sn);
    oklc_props_free(native);
    oklc_device_close(d);
    return missed;
}

static void usage(void)
{
    fputs("usage: bench_compare [-d DIR] [-D DEVICE]... [-t THREADS] [-n SAMPLES] [-m MS] "
          "[-k NAME]... [-x K] [-q] [-c] [-P]\n",
          stderr);
    exit(2);
}

static void print_header(const Options *o)
{
    if (o->plain && !o->check_only) {
        printf("the plain translation (rewrites off) vs the rewritten one (%s/kernels.okl "
               "and ../kernels),\nsame device, compiler and flags.\nms: median time of one run over %d samples "
               "of ~%.0f ms, alternating; plain/rewr:\nratio of the medians (goal >= %.2f: the "
               "rewrites never more than 5%% slower), (min):\nof the fastest samples (the goal "
               "is missed when both are below it)\n\n",
               o->dir, o->samples, o->target_ms, GOAL_PLAIN);
        printf("%-14s %-9s %-28s %9s %9s %8s %8s %7s %7s %6s  %-4s %s\n", "kernel", "device",
               "size", "plain ms", "rewr ms", "pl/rewr", "(min)", "p GB/s", "r GB/s", "%copy",
               "goal", "results");
        return;
    }
    printf("hand-written (%s/native.*) vs generated (%s/kernels.okl), same device, compiler "
           "and flags.\n",
           o->dir, o->dir);
    if (o->check_only) {
        printf("%-14s %-9s %-28s %s\n", "kernel", "device", "size", "results");
        return;
    }
    printf("ms: median time of one run over %d samples of ~%.0f ms, hand-written and "
           "generated\nalternating; hand/gen: ratio of the medians (goal >= %.2f on the CPU, "
           ">= %.2f on GPU-like\ndevices), (min): of the fastest samples; GB/s: hand-written and "
           "generated,\n%%copy: the generated code's GB/s over the hand-written copy kernel's "
           "(goal on GPU-like\ndevices: >= %.0f%%)\n\n",
           o->samples, o->target_ms, GOAL_CPU, GOAL_GPU, 100 * GOAL_COPY);
    printf("%-14s %-9s %-28s %9s %9s %8s %8s %7s %7s %6s  %-4s %s\n", "kernel", "device",
           "size", "hand ms", "gen ms", "hand/gen", "(min)", "h GB/s", "g GB/s", "%copy", "goal",
           "results");
}

int main(int argc, char **argv)
{
    Options o = {.dir = OKLC_BENCH_DIR, .samples = 15, .target_ms = 40};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = cores > 0 ? (int)cores : 1;
    int opt;
    while ((opt = getopt(argc, argv, "d:D:t:n:m:k:x:qcP")) != -1) {
        switch (opt) {
        case 'd': o.dir = optarg; break;
        case 'D':
            if (o.ndevices == 8)
                usage();
            o.devices[o.ndevices++] = optarg;
            break;
        case 't': o.threads = atoi(optarg); break;
        case 'n': o.samples = atoi(optarg); break;
        case 'm': o.target_ms = atof(optarg); break;
        case 'k':
            if (o.nonly == 16)
                usage();
            o.only[o.nonly++] = optarg;
            break;
        case 'x':
            size_shift = atoi(optarg);
            if (size_shift < 0 || size_shift > 4)
                usage();
            break;
        case 'q': o.quick = true; break;
        case 'c': o.check_only = true; break;
        case 'P': o.plain = true; break;
        default: usage();
        }
    }
    if (optind != argc || o.threads < 1 || o.samples < 1 || !(o.target_ms > 0))
        usage();
    if (!o.ndevices) {
        o.devices[o.ndevices++] = "serial";
        o.devices[o.ndevices++] = "openmp";
    }
    print_header(&o);
    fflush(stdout);

    int missed = 0, failed = 0;
    for (int i = 0; i < o.ndevices; i++) {
        char spec[256];
        if (!strcmp(o.devices[i], "openmp"))
            snprintf(spec, sizeof spec, "mode=openmp threads=%d", o.threads);
        else
            snprintf(spec, sizeof spec, "%s", o.devices[i]);
        missed += bench_device(&o, spec, &failed);
    }
    char load[64] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(load, sizeof load, f))
            strcpy(load, "?");
        fclose(f);
        load[strcspn(load, "\n")] = '\0';
    }
    printf("\nload average at the end: %s\n", load);
    if (failed) {
        printf("%d kernel(s): the generated and hand-written results disagree\n", failed);
        return 2;
    }
    if (o.check_only) {
        printf("every pair agrees\n");
        return 0;
    }
    if (missed) {
        printf("goals: NOT met (%d kernel(s) below)\n", missed);
        return 1;
    }
    printf("goals: met\n");
    return 0;
}
