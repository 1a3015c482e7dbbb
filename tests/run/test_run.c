/*
 * test_run.c - kernels run end to end: built from the .okl files of tests/run through
 * the runtime on a device (OKLC_TEST_DEVICE: "serial", "mode=openmp
 * threads=4", ...), and compared with plain C written here.
 * OKLC_TEST_FILTER runs only the tests its pattern names, OKLC_TEST_SKIP
 * all but those; OKLC_TEST_REPEAT
 * and OKLC_TEST_GPU are for the barrier race tests (test_barrier_races).
 *
 * Values are chosen so the results are exact (small integers in floats),
 * whatever order the device adds them in; every array is checked whole,
 * including what a kernel must leave alone.
 */
#define _XOPEN_SOURCE 700     /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oklc/runtime.h"

static oklc_device *dev;
static char dir[4096];          /* tests/run */
static char cache[4096];        /* a temporary cache folder */

/* ---- helpers ------------------------------------------------------------------------ */

static oklc_kernel *build_with(const char *file, const char *name, const oklc_props *props)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    oklc_kernel *k = NULL;
    oklc_status s = oklc_kernel_build(dev, path, name, props, &k);
    if (s != OKLC_OK)
        fail_msg("building %s of %s: %s", name, file, oklc_last_error());
    return k;
}

static oklc_kernel *build(const char *file, const char *name)
{
    return build_with(file, name, NULL);
}

static oklc_memory *to_device(const void *host, size_t bytes)
{
    oklc_memory *m = NULL;
    assert_int_equal(oklc_memory_alloc(dev, bytes ? bytes : 1, &m), OKLC_OK);
    if (bytes)
        assert_int_equal(oklc_memory_copy_from_host(m, host, bytes, 0), OKLC_OK);
    return m;
}

static void to_host(oklc_memory *m, void *host, size_t bytes)
{
    assert_int_equal(oklc_device_finish(dev), OKLC_OK);
    assert_int_equal(oklc_memory_copy_to_host(m, host, bytes, 0), OKLC_OK);
}

static void run(oklc_kernel *k, int nargs, const oklc_arg *args)
{
    oklc_status s = oklc_kernel_run(k, nargs, args);
    if (s != OKLC_OK)
        fail_msg("running: %s", oklc_last_error());
}

/* Builds kernel `name` of `file`, runs it with `args` and then one buffer
 * (host's contents copied to the device and back). */
static void run_on(const char *file, const char *name, void *host, size_t bytes, int nargs,
                   const oklc_arg *args)
{
    oklc_kernel *k = build(file, name);
    oklc_memory *m = to_device(host, bytes);
    oklc_arg all[16];
    assert_true(nargs < 16);
    memcpy(all, args, (size_t)nargs * sizeof *args);
    all[nargs] = oklc_arg_mem(m);
    run(k, nargs + 1, all);
    to_host(m, host, bytes);
    oklc_memory_free(m);
    oklc_kernel_free(k);
}

/* Runs kernel `name` of `file` as name(n, in, out), then copies out back. */
static void run_in_out(const char *file, const char *name, int n, const void *in,
                       size_t in_bytes, void *out, size_t out_bytes)
{
    oklc_memory *mi = to_device(in, in_bytes);
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_mem(mi)};
    run_on(file, name, out, out_bytes, 2, args);
    oklc_memory_free(mi);
}

#define RUN_ON(file, name, host, ...)                                              \
    do {                                                                           \
        oklc_arg args_[] = {__VA_ARGS__};                                          \
        int n_ = (int)(sizeof args_ / sizeof args_[0]);                            \
        run_on(file, name, host, sizeof host, n_, args_);                          \
    } while (0)

#define RUN(k, ...)                                                                \
    do {                                                                           \
        oklc_arg args_[] = {__VA_ARGS__};                                          \
        run(k, (int)(sizeof args_ / sizeof args_[0]), args_);                      \
    } while (0)

static void same_ints(const int *want, const int *got, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (want[i] != got[i])
            fail_msg("element %zu: expected %d, got %d", i, want[i], got[i]);
}

static void same_floats(const float *want, const float *got, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (want[i] != got[i])
            fail_msg("element %zu: expected %g, got %g", i, want[i], got[i]);
}

static void same_doubles(const double *want, const double *got, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (want[i] != got[i])
            fail_msg("element %zu: expected %.17g, got %.17g", i, want[i], got[i]);
}

static bool device_is(const char *mode)
{
    return !strcmp(oklc_device_mode(dev), mode);
}

/* Kernels a backend rejects on purpose: building `name` of `file` fails,
 * with `message`. */
static void build_fails(const char *file, const char *name, const char *message)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    oklc_kernel *k = NULL;
    assert_int_not_equal(oklc_kernel_build(dev, path, name, NULL, &k), OKLC_OK);
    assert_null(k);
    if (!strstr(oklc_last_error(), message))
        fail_msg("building %s: expected '%s' in: %s", name, message, oklc_last_error());
}

/* ---- loops.okl -------------------------------------------------------------------------- */

static void test_tile_check(void **state)
{
    (void)state;
    enum { N = 1000 + 16 };             /* the kernel sees 1000: not a multiple of 16 */
    float x[N], want[N];
    for (int i = 0; i < N; i++)
        x[i] = want[i] = 0.5f * i;
    for (int i = 0; i < 1000; i++)
        want[i] = 2 * want[i] + i;
    RUN_ON("loops.okl", "tileCheck", x, oklc_arg_int(1000));
    same_floats(want, x, N);
}

static void test_tile_no_check(void **state)
{
    (void)state;
    enum { N = 1024 };
    float x[N], want[N];
    for (int i = 0; i < N; i++)
        x[i] = i, want[i] = i + 1.0f;
    RUN_ON("loops.okl", "tileNoCheck", x, oklc_arg_int(N));
    same_floats(want, x, N);
}

static void test_tile_strided(void **state)
{
    (void)state;
    enum { N = 103 };
    int x[N + 4], want[N + 4];
    memset(x, 0, sizeof x);
    memset(want, 0, sizeof want);
    for (int i = 1; i <= N - 1; i += 2)
        want[i] = i;
    RUN_ON("loops.okl", "tileStrided", x, oklc_arg_int(N));
    same_ints(want, x, N + 4);
}

static void test_tile_sizes(void **state)
{
    (void)state;
    enum { N = 77 };
    int x[2 * N], want[2 * N];
    for (int i = 0; i < N; i++)
        x[i] = x[N + i] = -1, want[i] = i, want[N + i] = 2 * i;
    RUN_ON("loops.okl", "tileSizes", x, oklc_arg_int(N), oklc_arg_int(8));
    same_ints(want, x, 2 * N);
}

static void test_tile_down(void **state)
{
    (void)state;
    enum { N = 50 };
    int x[N], want[N];
    for (int i = 0; i < N; i++)
        x[i] = want[i] = 1000;
    for (int i = N - 1; i >= 0; i -= 3)
        want[i] += i;
    RUN_ON("loops.okl", "tileDown", x, oklc_arg_int(N));
    same_ints(want, x, N);
}

static void test_down_strided(void **state)
{
    (void)state;
    enum { N = 40 };
    int x[N], want[N];
    memset(x, 0, sizeof x);
    memset(want, 0, sizeof want);
    for (int o = N - 1; o >= 0; o -= 7)
        for (int i = 6; i >= 0; --i)
            if (o - i >= 0)
                want[o - i] = o * 10 + i;
    RUN_ON("loops.okl", "downStrided", x, oklc_arg_int(N));
    same_ints(want, x, N);
}

static void test_several_outer(void **state)
{
    (void)state;
    enum { N = 100 };
    int x[N] = {0}, y[N] = {0}, wx[N], wy[N];
    for (int i = 0; i < N; i++)
        wx[i] = 3 * i;
    for (int i = 0; i < N; i++)
        wy[i] = wx[N - 1 - i] + 1;
    oklc_kernel *k = build("loops.okl", "severalOuter");
    oklc_memory *mx = to_device(x, sizeof x), *my = to_device(y, sizeof y);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(mx), oklc_arg_mem(my));
    to_host(mx, x, sizeof x);
    to_host(my, y, sizeof y);
    same_ints(wx, x, N);
    same_ints(wy, y, N);
    oklc_memory_free(mx);
    oklc_memory_free(my);
    oklc_kernel_free(k);
}

static void test_grid3(void **state)
{
    (void)state;
    enum { NX = 5, NY = 6, NZ = 7, N = NX * NY * NZ };
    int out[N] = {0}, want[N];
    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                want[(z * NY + y) * NX + x] = x + 100 * y + 10000 * z;
    RUN_ON("loops.okl", "grid3", out, oklc_arg_int(NX), oklc_arg_int(NY), oklc_arg_int(NZ));
    same_ints(want, out, N);
}

static void test_grid3_inner(void **state)
{
    (void)state;
    enum { E = 3, N = E * 3 * 4 * 5 };
    int out[N] = {0}, want[N];
    for (int e = 0; e < E; e++)
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 5; i++)
                    want[((e * 3 + k) * 4 + j) * 5 + i] = e * 1000 + k * 100 + j * 10 + i;
    RUN_ON("loops.okl", "grid3Inner", out, oklc_arg_int(E));
    same_ints(want, out, N);
}

static void test_tile_inner(void **state)
{
    (void)state;
    enum { NX = 13, NY = 3, N = NX * NY };
    float m[N] = {0}, want[N];
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            want[y * NX + x] = x - y;
    RUN_ON("loops.okl", "tileInner", m, oklc_arg_int(NX), oklc_arg_int(NY));
    same_floats(want, m, N);
}

static void test_empty_outer(void **state)
{
    (void)state;
    int x[12], want[12];
    for (int i = 0; i < 12; i++)
        x[i] = want[i] = 7;
    oklc_kernel *k = build("loops.okl", "emptyOuter");
    oklc_memory *m = to_device(x, sizeof x);
    RUN(k, oklc_arg_int(3), oklc_arg_int(3), oklc_arg_mem(m));
    RUN(k, oklc_arg_int(5), oklc_arg_int(2), oklc_arg_mem(m));   /* a negative count */
    to_host(m, x, sizeof x);
    for (int i = 0; i < 8; i++)
        want[i] = 9;                    /* only the second loop ran, twice */
    same_ints(want, x, 12);
    oklc_memory_free(m);
    oklc_kernel_free(k);
}

static void test_returns(void **state)
{
    (void)state;
    enum { NB = 6, N = NB * 8 };
    int x[N] = {0}, want[N] = {0};
    for (int b = 0; b < NB; b++) {
        if (b % 3 == 1)
            continue;
        for (int i = 0; i < 8; i += 2)
            want[b * 8 + i] = 2;        /* k = 0 and 1, then the thread returns */
    }
    RUN_ON("loops.okl", "returns", x, oklc_arg_int(NB));
    same_ints(want, x, N);
}

static void test_tiles2d(void **state)
{
    (void)state;
    enum { NX = 37, NY = 21, N = NX * NY };
    float in[N], out[N], want[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 11), out[i] = want[i] = -1;
    for (int y = 1; y < NY - 1; y++)
        for (int x = 1; x < NX - 1; x++) {
            const int id = y * NX + x;
            want[id] = in[id - 1] + in[id + 1] + 2 * in[id - NX] + 3 * in[id + NX];
        }
    oklc_kernel *k = build("loops.okl", "tiles2d");
    oklc_memory *mi = to_device(in, sizeof in), *mo = to_device(out, sizeof out);
    RUN(k, oklc_arg_int(NX), oklc_arg_int(NY), oklc_arg_mem(mi), oklc_arg_mem(mo));
    to_host(mo, out, sizeof out);
    same_floats(want, out, N);
    oklc_memory_free(mi);
    oklc_memory_free(mo);
    oklc_kernel_free(k);
}

static void test_return_no_braces(void **state)
{
    (void)state;
    enum { NB = 3, N = NB * 4 };
    int x[N] = {0}, want[N];
    for (int b = 0; b < NB; b++)
        for (int i = 0; i < 4; i++)
            want[b * 4 + i] = i < 3 ? i : 3;   /* r = 0 .. i - 1, then the return */
    RUN_ON("loops.okl", "returnNoBraces", x, oklc_arg_int(NB));
    same_ints(want, x, N);
}

static void test_tile_threads(void **state)
{
    (void)state;
    enum { N = 30 };
    int x[3 * N], want[3 * N];
    for (int i = 0; i < 3 * N; i++)
        x[i] = 1, want[i] = 1 + i % N + i / N;
    RUN_ON("loops.okl", "tileThreads", x, oklc_arg_int(N));
    same_ints(want, x, 3 * N);
}

/* ---- guards.okl -------------------------------------------------------------------------- */

static void guards_with(int n, int flag)
{
    enum { NB = 7, T = 32, N = 9 * NB * T };
    int out[N] = {0}, want[N] = {0};
    for (int b = 0; b < NB; b++)
        for (int t = 0; t < T; t++) {
            const int i = b * T + t;
            if (i > 3 && i < n - 2)
                want[0 * NB * T + i] = 1;
            if (b * 2 < n / 8 && flag > 0 && i >= 5 && n - 1 >= i)
                want[1 * NB * T + i] = 2;
            if (t == b % 32)
                want[2 * NB * T + i] = 3;
            if (i % 3 == 0 && t < 20)
                want[3 * NB * T + i] = 4;
            if (flag > 1)
                want[4 * NB * T + i] = 5;
            if (2 * t + b < n)
                want[5 * NB * T + i] = 6;
            want[6 * NB * T + i] = (i >= 3 && i < n) ? 7 + t : -t;
            if ((i < n - 2 && flag > 0) || flag == 2)
                want[7 * NB * T + i] = 8;
            if (t < n ? flag > 0 : flag == 0)
                want[8 * NB * T + i] = 9;
        }
    RUN_ON("guards.okl", "guards", out, oklc_arg_int(NB), oklc_arg_int(n), oklc_arg_int(flag));
    same_ints(want, out, N);
}

static void thread_loops_with(int n, int flag)
{
    enum { NB = 7, M = NB * 256 };
    int out[5 * M] = {0}, want[5 * M] = {0};
    for (int b = 0; b < NB; b++)
        for (int t = 0; t < 32; t++)
            for (int k = 0; k < 8; k++) {
                const int i = (b * 8 + k) * 32 + t;
                if (i < n && i >= 2 * k)
                    want[i] = 1 + k;
                if (i < n && k != flag)
                    want[M + i] = 2;
                if ((i < n - 40 && flag > 0) || flag == 2)
                    want[2 * M + i] = 3;
                if (i < n - 5)
                    want[3 * M + i] = 4;
                if (i < n && i >= 2 * k)
                    want[4 * M + i] = 5 + k;
            }
    RUN_ON("guards.okl", "threadLoops", out, oklc_arg_int(NB), oklc_arg_int(n),
           oklc_arg_int(flag));
    same_ints(want, out, 5 * M);

    int out2[M] = {0}, want2[M] = {0};
    for (int b = 0; b < NB; b++)
        for (int j = 0; j < 4; j++)
            for (int t = 0; t < 8; t++)
                for (int k = 0; k < 8; k++) {
                    const int i = (b * 8 + k) * 32 + j * 8 + t;
                    if (i < n && j < flag + 2)
                        want2[i] = 5;
                }
    RUN_ON("guards.okl", "threadLoops2", out2, oklc_arg_int(NB), oklc_arg_int(n),
           oklc_arg_int(flag));
    same_ints(want2, out2, M);
}

static void unsigned_guards_with(unsigned un)
{
    enum { NB = 7, N = NB * 32 + NB * 256 };
    int out[N] = {0}, want[N] = {0};
    for (unsigned i = 0; i < NB * 32; i++)
        want[i] = i < un;
    for (unsigned i = 0; i < NB * 256; i++)
        want[NB * 32 + i] = i < un ? 2 : 0;
    RUN_ON("guards.okl", "unsignedGuards", out, oklc_arg_int(NB), oklc_arg_int((int32_t)un));
    same_ints(want, out, N);
}

static void test_guards(void **state)
{
    (void)state;
    guards_with(100, 1);
    guards_with(3, 2);
    guards_with(1000, 0);
    guards_with(-5, 2);
    thread_loops_with(1000, 1);
    thread_loops_with(1792, 2);
    thread_loops_with(3, 0);
    thread_loops_with(-5, 2);
    unsigned_guards_with(100);
    unsigned_guards_with(0);
}

/* guards.okl's `kernel` run on AB (A then B, n x n each) into C (n x n,
 * -1 before), compared with want. */
static void run_product(const char *kernel, int n, int *ab, int *c, const int *want)
{
    for (int i = 0; i < n * n; i++)
        c[i] = -1;
    run_in_out("guards.okl", kernel, n, ab, sizeof(int) * 2 * n * n, c, sizeof(int) * n * n);
    same_ints(want, c, n * n);
}

/* want = A B (+ each row's index where plus_row), AB: A then B, n x n. */
static void product_of(int n, const int *ab, bool plus_row, int *want)
{
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++) {
            want[r * n + col] = plus_row ? r : 0;
            for (int k = 0; k < n; k++)
                want[r * n + col] += ab[r * n + k] * ab[n * n + k * n + col];
        }
}

/* C = A B (+ each row's index where plus_row) by `kernel`, n x n (at
 * most 528), A and B filled with small values (i * mul + 1) % mod - mod / 2. */
static void product_with(const char *kernel, int n, int mul, int mod, bool plus_row)
{
    enum { MAX = 528 };
    static int ab[2 * MAX * MAX], c[MAX * MAX], want[MAX * MAX];
    for (int i = 0; i < 2 * n * n; i++)
        ab[i] = (i * mul + 1) % mod - mod / 2;
    product_of(n, ab, plus_row, want);
    run_product(kernel, n, ab, c, want);
}

/* C = A B by pairedProduct: blocks in pairs, alone, and cut by the guard. */
static void paired_product_with(int n)
{
    product_with("pairedProduct", n, 7, 11, false);
}

static void test_paired_product(void **state)
{
    (void)state;
    paired_product_with(64);    /* two pairs */
    paired_product_with(48);    /* a pair and a block alone */
    paired_product_with(40);    /* a pair and a block alone, cut by the guard */
    paired_product_with(20);    /* a pair cut by the guard */
    paired_product_with(5);     /* one block */
    paired_product_with(300);   /* k in blocks (the last one short), pairs, a block alone */
}

static void staged_sums_with(int n)
{
    enum { MAX = 40 };
    static int ab[2 * MAX * MAX], c[MAX * MAX], want[MAX * MAX];
    for (int i = 0; i < 2 * n * n; i++)
        ab[i] = (i * 5 + 1) % 13 - 6;
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++) {
            int acc = 0, diff = 0;
            for (int k = 0; k < n; k++) {
                acc += ab[r * n + k] * ab[n * n + k * n + col];
                diff += ab[r * n + k] - ab[n * n + k * n + col];
            }
            want[r * n + col] = 3 * acc + diff + (n + 7) / 8;
        }
    run_product("stagedSums", n, ab, c, want);
}

/* C = A B + row by `kernel` (longProduct, longTiles), k longer than
 * LONG_LOOP: in blocks. */
static void long_product_with(const char *kernel, int n, int k)
{
    enum { MAX_N = 40, MAX_K = 1500 };
    static int ab[2 * MAX_N * MAX_K], c[MAX_N * MAX_N], want[MAX_N * MAX_N];
    for (int i = 0; i < 2 * n * k; i++)
        ab[i] = (i * 5 + 2) % 9 - 4;
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++) {
            want[r * n + col] = r;
            for (int q = 0; q < k; q++)
                want[r * n + col] += ab[r * k + q] * ab[n * k + q * n + col];
            c[r * n + col] = -1;
        }
    oklc_memory *in = to_device(ab, sizeof(int) * 2 * n * k);
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_int(k), oklc_arg_mem(in)};
    run_on("guards.okl", kernel, c, sizeof(int) * n * n, 3, args);
    oklc_memory_free(in);
    same_ints(want, c, n * n);
}

static void test_long_product(void **state)
{
    (void)state;
    long_product_with("longProduct", 40, 1500);   /* 12 blocks of 128 in pairs (the last
                                                     short), the guard */
    long_product_with("longProduct", 16, 513);    /* one block alone, one iteration in the
                                                     last block */
    long_product_with("longProduct", 20, 512);    /* not long: one pass */
    long_product_with("longTiles", 40, 1496);     /* blocks of 128 values of kt, by 8 */
    long_product_with("longTiles", 16, 1032);     /* the last block one tile of k */
}

/* C = A B + row by stagedBarrier (n a multiple of 16). */
static void staged_barrier_with(int n)
{
    product_with("stagedBarrier", n, 3, 7, true);
}

/* The staged product split at its @barrier and fused, its blocks
 * stepping by 16 in pairs; in 8 x 8 blocks with the barrier oklc puts in. */
static void test_staged_barrier(void **state)
{
    (void)state;
    staged_barrier_with(48);     /* a pair and a block alone, one pass */
    staged_barrier_with(16);     /* one block */
    staged_barrier_with(528);    /* kt in blocks of 128 (the last one tile of 16), pairs,
                                    a block alone */
    product_with("stagedAuto", 40, 5, 9, true);     /* 8 x 8 blocks: pairs, one alone */
    product_with("stagedAuto", 520, 5, 9, true);    /* kt in blocks of 256 (the last one
                                                       tile of 8) */
}

/* B's rows from panels packed per column of blocks: stagedWide's single
 * blocks (rows of 128 bytes), and a kernel launched again on the same
 * memory with other values (a panel of the launch before must not be
 * read). */
static void test_panels(void **state)
{
    (void)state;
    product_with("stagedWide", 48, 5, 9, true);     /* three columns, one pass */
    product_with("stagedWide", 528, 5, 9, true);    /* k in blocks of 128 */
    /* a guard: blocks the guard cuts read as written (ASan: no pack past B) */
    product_with("guardedPanel", 48, 7, 11, false);     /* pairs, a block alone */
    product_with("guardedPanel", 40, 7, 11, false);     /* cut by the guard */
    product_with("guardedPanel", 20, 7, 11, false);     /* a pair cut by the guard */
    product_with("guardedPanel", 520, 7, 11, false);    /* k in blocks, cut */
    enum { N = 48 };
    static int ab[2 * N * N], c[N * N], want[N * N];
    const char *kernels[] = {"stagedBarrier", "stagedWide", "guardedPanel"};
    for (int kn = 0; kn < 3; kn++) {
        oklc_kernel *k = build("guards.okl", kernels[kn]);
        oklc_memory *in = to_device(ab, sizeof ab), *out = to_device(c, sizeof c);
        for (int launch = 0; launch < 3; launch++) {
            for (int i = 0; i < 2 * N * N; i++)
                ab[i] = (i * (3 + 2 * launch) + launch) % 7 - 3;
            assert_int_equal(oklc_memory_copy_from_host(in, ab, sizeof ab, 0), OKLC_OK);
            oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(in), oklc_arg_mem(out)};
            run(k, 3, args);
            to_host(out, c, sizeof c);
            product_of(N, ab, kn < 2, want);    /* guardedPanel: no row added */
            same_ints(want, c, N * N);
        }
        oklc_memory_free(in);
        oklc_memory_free(out);
        oklc_kernel_free(k);
    }
}

/* termsGuard(n, m): C = A B where row < n, col < n, row + col < m and
 * m > 0 (elsewhere C keeps its -1s); n = 40 cuts blocks by rows and
 * columns, m along a diagonal. */
static void terms_guard_with(int n, int m)
{
    enum { MAX = 40 };
    static int ab[2 * MAX * MAX], c[MAX * MAX], want[MAX * MAX];
    for (int i = 0; i < 2 * n * n; i++)
        ab[i] = (i * 5 + 2) % 9 - 4;
    product_of(n, ab, false, want);
    for (int i = 0; i < n * n; i++) {
        c[i] = -1;
        if (!(i / n + i % n < m && m > 0))
            want[i] = -1;
    }
    oklc_kernel *k = build("guards.okl", "termsGuard");
    oklc_memory *in = to_device(ab, sizeof ab), *out = to_device(c, sizeof c);
    RUN(k, oklc_arg_int(n), oklc_arg_int(m), oklc_arg_mem(in), oklc_arg_mem(out));
    to_host(out, c, sizeof c);
    same_ints(want, c, (size_t)(n * n));
    oklc_memory_free(in);
    oklc_memory_free(out);
    oklc_kernel_free(k);
}

static void test_terms_guard(void **state)
{
    (void)state;
    terms_guard_with(40, 80);    /* every block passes the second term */
    terms_guard_with(40, 37);    /* blocks cut along a diagonal */
    terms_guard_with(32, 0);     /* no thread passes the third */
    terms_guard_with(40, 30);    /* whole pairs and blocks cut */
}

/* The translations the analysis changes (analysis.okl): a barrier left
 * out, a block's variable one per thread. */
static void test_analysis(void **state)
{
    (void)state;
    enum { NB = 5 };
    static int x[NB * 3 * 48], out[NB * 64], want[NB * 64];
    for (int i = 0; i < NB * 3 * 48; i++)
        x[i] = (i * 13 + 5) % 17 - 8;
    for (int e = 0; e < NB; e++)
        for (int t = 0; t < 64; t++) {
            int sum = 0;
            for (int u = t; u < 48 && t < 16; u += 16)
                for (int f = 0; f < 3; f++)
                    sum += x[(e * 3 + f) * 48 + u];
            want[e * 64 + t] = t < 16 ? sum : -1;
        }
    run_in_out("analysis.okl", "droppedBarrier", NB, x, sizeof x, out, sizeof out);
    same_ints(want, out, NB * 64);

    static int y[NB * 32], got[NB * 32], expect[NB * 32];
    for (int i = 0; i < NB * 32; i++)
        y[i] = (i * 7 + 1) % 23;
    for (int b = 0; b < NB; b++)
        for (int t = 0; t < 32; t++)
            expect[b * 32 + t] = y[b * 32 + 31 - t] + 31 - t;
    run_in_out("analysis.okl", "perThread", NB, y, sizeof y, got, sizeof got);
    same_ints(expect, got, NB * 32);
}

/* overlappingSlices(n): rounds of 64 threads stepping by 16, none, cut
 * short at once, full then several cut short. */
static void test_rounds(void **state)
{
    (void)state;
    enum { MAX = 1000 };
    static int x[MAX];
    for (int i = 0; i < MAX; i++)
        x[i] = (i * 7 + 3) % 11 - 5;
    const int ns[] = {0, 5, 71, 300, MAX};
    for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
        int out[256] = {0}, want[256] = {0};
        for (int b = 0; b < 4; b++)
            for (int t = 0; t < 64; t++)
                for (int i = b * 64 + t; i < ns[c]; i += 16)
                    want[b * 64 + t] += x[i] * (i - t);
        run_in_out("guards.okl", "overlappingSlices", ns[c], x, sizeof x, out, sizeof out);
        same_ints(want, out, 256);
    }
}

/* @exclusive sums in tiles of rows (guards.okl stagedSums). */
static void test_staged_sums(void **state)
{
    (void)state;
    staged_sums_with(24);    /* whole blocks */
    staged_sums_with(40);    /* blocks cut by the guard, a tile of k cut */
    staged_sums_with(7);     /* one block, cut */
}

static void tiles_with(int nx, int ny)
{
    enum { MAX = 6 * 40 * 13 };
    int out[MAX] = {0}, want[MAX] = {0};
    const int nb = (nx + 7) / 8 * 8, plane = nx * ny;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
                want[y * nx + x] = 1 + x + 1000 * y;
            want[plane + y * nx + x] = 2 + x - 1;
            if (x < nx - 2)
                for (int z = 0; z < 3; z++)
                    want[(3 + z) * plane + y * nx + x] = 4 + z;
        }
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < 2 * nb; x++)
            if (x % 16 < 8 && x < nx)
                want[2 * plane + y * nx + x] = 3 + x / 16;
    RUN_ON("guards.okl", "tiles", out, oklc_arg_int(nx), oklc_arg_int(ny));
    same_ints(want, out, MAX);
}

static void test_tiles(void **state)
{
    (void)state;
    tiles_with(40, 13);
    tiles_with(37, 9);
    tiles_with(8, 4);
    tiles_with(1, 1);
}

/* ---- blocks.okl ------------------------------------------------------------------------ */

/* Each block of 64 reversed (zeros past n), by kernel `name` of blocks.okl. */
static void reverse_blocks(const char *name)
{
    enum { N = 200 };
    float in[N], out[N], want[N];
    for (int i = 0; i < N; i++)
        in[i] = i + 1, out[i] = -1;
    for (int b = 0; b < N; b += 64)
        for (int t = 0; t < 64 && b + t < N; t++)
            want[b + t] = b + 63 - t < N ? in[b + 63 - t] : 0;
    run_in_out("blocks.okl", name, N, in, sizeof in, out, sizeof out);
    same_floats(want, out, N);
}

static void test_reverse_blocks(void **state)
{
    (void)state;
    reverse_blocks("reverseBlocks");
}

/* ---- threads: the device opened on this thread, used on others ---------------------------- */

typedef struct {
    int  id;
    char error[512];    /* empty: its kernel built, ran and computed the right values */
} Worker;

/* A thread's build (a define of its own: a build of its own), run and check,
 * without cmocka (its assertions jump within the main thread only). */
static void *worker(void *arg)
{
    Worker *w = arg;
    enum { N = 100 };
    char path[4200], def[32];
    snprintf(path, sizeof path, "%s/loops.okl", dir);
    snprintf(def, sizeof def, "OKLC_TEST_THREAD=%d", w->id);
    oklc_props *p = oklc_props_new();
    oklc_kernel *k = NULL;
    oklc_memory *m = NULL;
    float x[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i + w->id);
    oklc_arg args[2] = {oklc_arg_int(N)};
    if (!p || oklc_props_define(p, def) || oklc_kernel_build(dev, path, "tileCheck", p, &k) ||
        oklc_memory_alloc(dev, sizeof x, &m) || oklc_memory_copy_from_host(m, x, sizeof x, 0) ||
        (args[1] = oklc_arg_mem(m), oklc_kernel_run(k, 2, args)) || oklc_device_finish(dev) ||
        oklc_memory_copy_to_host(m, x, sizeof x, 0))
        snprintf(w->error, sizeof w->error, "thread %d: %s", w->id, oklc_last_error());
    for (int i = 0; i < N && !w->error[0]; i++)
        if (x[i] != 2.0f * (float)(i + w->id) + (float)i)
            snprintf(w->error, sizeof w->error, "thread %d: x[%d] = %g", w->id, i, x[i]);
    oklc_memory_free(m);
    oklc_kernel_free(k);
    oklc_props_free(p);
    return NULL;
}

/* Builds, copies and runs from four threads at once, on the device this
 * thread opened (OpenCL once crashed there: PoCL's C library, in a
 * namespace of its own, knew no thread it had not seen start). */
static void test_threads(void **state)
{
    (void)state;
    enum { NT = 4 };
    pthread_t t[NT];
    Worker w[NT];
    for (int i = 0; i < NT; i++) {
        w[i] = (Worker){.id = i};
        assert_int_equal(pthread_create(&t[i], NULL, worker, &w[i]), 0);
    }
    for (int i = 0; i < NT; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < NT; i++)
        if (w[i].error[0])
            fail_msg("%s", w[i].error);
}

/* Blocks one after the other in a @tile(N, @outer): a barrier after each. */
static void test_tile_shared(void **state)
{
    (void)state;
    reverse_blocks("tileShared");
}

/* A function ending with a @barrier: the barrier after its call. */
static void test_function_barrier(void **state)
{
    (void)state;
    reverse_blocks("functionBarrier");
}

static void test_no_barrier(void **state)
{
    (void)state;
    enum { NB = 5, N = NB * 32 };
    int out[N] = {0}, want[N];
    for (int b = 0; b < NB; b++)
        for (int t = 0; t < 32; t++)
            want[b * 32 + t] = t * b + 1;
    RUN_ON("blocks.okl", "noBarrier", out, oklc_arg_int(NB));
    same_ints(want, out, N);
}

static void test_exclusive_keep(void **state)
{
    (void)state;
    enum { NB = 3, N = NB * 32 };
    int in[N], out[N] = {0}, want[N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7) % 23 - 5;
    for (int i = 0; i < N; i++) {
        float f = 0.5f + in[i];
        want[i] = in[i] + 2 * in[i] + 3 * in[i] + (int)(2 * f);
    }
    oklc_kernel *k = build("blocks.okl", "exclusiveKeep");
    oklc_memory *mi = to_device(in, sizeof in), *mo = to_device(out, sizeof out);
    RUN(k, oklc_arg_int(NB), oklc_arg_mem(mi), oklc_arg_mem(mo));
    to_host(mo, out, sizeof out);
    same_ints(want, out, N);
    oklc_memory_free(mi);
    oklc_memory_free(mo);
    oklc_kernel_free(k);
}

static void block_sums(const char *name)
{
    enum { N = 1000, NB = (N + 255) / 256 };
    float x[N], partial[NB] = {0}, want[NB] = {0};
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 7) - 3;
        want[i / 256] += x[i];
    }
    run_in_out("blocks.okl", name, N, x, sizeof x, partial, sizeof partial);
    same_floats(want, partial, NB);
}

static void test_block_sum(void **state)
{
    (void)state;
    block_sums("blockSum");
}

static void test_block_sum_barrier(void **state)
{
    (void)state;
    block_sums("blockSumBarrier");
}

/* A matrix d of 8 x 8 and n values u, small integers (-3..3, -5..5): the
 * spectral-element tests' inputs, whose sums are exact in any order. */
static void small_ints(float *d, float *u, int n)
{
    for (int i = 0; i < 64; i++)
        d[i] = (float)((i * 5) % 7 - 3);
    for (int i = 0; i < n; i++)
        u[i] = (float)((i * 3) % 11 - 5);
}

static void test_derivative(void **state)
{
    (void)state;
    enum { E = 5, N = E * 64 };
    float d[64], u[N], du[N] = {0}, want[N];
    small_ints(d, u, N);
    for (int e = 0; e < E; e++)
        for (int j = 0; j < 8; j++)
            for (int i = 0; i < 8; i++) {
                float r = 0;
                for (int m = 0; m < 8; m++)
                    r += (i == m ? 2 * d[i * 8 + m] + 1 : d[i * 8 + m]) * u[e * 64 + j * 8 + m];
                want[e * 64 + j * 8 + i] = r + (i == j ? 2 * d[j * 8 + i] + 1 : d[j * 8 + i]);
            }
    oklc_memory *md = to_device(d, sizeof d), *mu = to_device(u, sizeof u);
    RUN_ON("blocks.okl", "derivative", du, oklc_arg_int(E), oklc_arg_mem(md), oklc_arg_mem(mu));
    same_floats(want, du, N);
    oklc_memory_free(md);
    oklc_memory_free(mu);
}

/* The three derivatives of E elements of 8^3 points (blocks.okl:
 * gradient; data.okl: gradientDoubles), the sums exact. */
#define GRADIENT(T, d, u, want, E, NP)                                             \
    for (int e = 0; e < E; e++)                                                    \
        for (int k = 0; k < 8; k++)                                                \
            for (int j = 0; j < 8; j++)                                            \
                for (int i = 0; i < 8; i++) {                                      \
                    const T *ue = u + e * NP;                                      \
                    T ur = 0, us = 0, ut = 0;                                      \
                    for (int m = 0; m < 8; m++) {                                  \
                        ur += d[i * 8 + m] * ue[k * 64 + j * 8 + m];               \
                        us += d[j * 8 + m] * ue[k * 64 + m * 8 + i];               \
                        ut += d[k * 8 + m] * ue[m * 64 + j * 8 + i];               \
                    }                                                              \
                    const int id = e * 3 * NP + k * 64 + j * 8 + i;                \
                    want[id] = ur;                                                 \
                    want[id + NP] = us;                                            \
                    want[id + 2 * NP] = ut;                                        \
                }

static void test_gradient(void **state)
{
    (void)state;
    enum { E = 3, NP = 512, N = E * NP };
    static float d[64], u[N], gu[3 * N], want[3 * N];
    small_ints(d, u, N);
    GRADIENT(float, d, u, want, E, NP);
    oklc_memory *md = to_device(d, sizeof d), *mu = to_device(u, sizeof u);
    RUN_ON("blocks.okl", "gradient", gu, oklc_arg_int(E), oklc_arg_mem(md), oklc_arg_mem(mu));
    same_floats(want, gu, 3 * N);
    oklc_memory_free(md);
    oklc_memory_free(mu);
}

static void test_gradient_doubles(void **state)
{
    (void)state;
    enum { E = 3, NP = 512, N = E * NP };
    static float df[64], uf[N];
    static double d[64], u[N], gu[3 * N], want[3 * N];
    small_ints(df, uf, N);
    for (int i = 0; i < 64; i++)
        d[i] = df[i];
    for (int i = 0; i < N; i++)
        u[i] = uf[i];
    GRADIENT(double, d, u, want, E, NP);
    oklc_memory *md = to_device(d, sizeof d), *mu = to_device(u, sizeof u);
    RUN_ON("data.okl", "gradientDoubles", gu, oklc_arg_int(E), oklc_arg_mem(md),
           oklc_arg_mem(mu));
    same_doubles(want, gu, 3 * N);
    oklc_memory_free(md);
    oklc_memory_free(mu);
}

/* rowsAhead: out = g0 u + 2 g1 + 3 g2 per node, for E elements: g is
 * over 8 MiB, so that the CPU asks for the next element's rows (the last
 * one's reach past the array: a prefetch never faults) */
static void test_rows_ahead(void **state)
{
    (void)state;
    enum { E = 700, NP = 512 };
    static double g[3 * E * NP], u[E * NP], out[E * NP], want[E * NP];
    for (int i = 0; i < 3 * E * NP; i++)
        g[i] = (double)(i % 7) - 3;
    for (int i = 0; i < E * NP; i++)
        u[i] = (double)(i % 5) - 2;
    for (int e = 0; e < E; e++)
        for (int p = 0; p < NP; p++) {
            const double *ge = g + e * 3 * NP;
            want[e * NP + p] = ge[p] * u[e * NP + p] + 2 * ge[p + NP] + 3 * ge[p + 2 * NP];
        }
    oklc_memory *mg = to_device(g, sizeof g), *mu = to_device(u, sizeof u);
    RUN_ON("data.okl", "rowsAhead", out, oklc_arg_int(E), oklc_arg_mem(mg), oklc_arg_mem(mu));
    same_doubles(want, out, E * NP);
    oklc_memory_free(mg);
    oklc_memory_free(mu);
}

/* partAhead: out = u reversed in each element minus half of u, for E
 * elements: u is over 8 MiB, so that the CPU asks for the next element's
 * part (the last one's reaches past the array: a prefetch never faults) */
static void test_part_ahead(void **state)
{
    (void)state;
    enum { E = 2100, NP = 512 };
    static double u[E * NP], out[E * NP], want[E * NP];
    for (int i = 0; i < E * NP; i++)
        u[i] = (double)(i % 11) - 5;
    for (int e = 0; e < E; e++)
        for (int p = 0; p < NP; p++)
            want[e * NP + p] = u[e * NP + NP - 1 - p] - 0.5 * u[e * NP + p];
    oklc_memory *mu = to_device(u, sizeof u);
    RUN_ON("data.okl", "partAhead", out, oklc_arg_int(E), oklc_arg_mem(mu));
    same_doubles(want, out, E * NP);
    oklc_memory_free(mu);
}

/* c = a b, a ni x nk, b nk x nj, row-major, the terms added in the order
 * k = 0, 1, ... */
static void float_product(int ni, int nj, int nk, const float *a, const float *b, float *c)
{
    for (int r = 0; r < ni; r++)
        for (int col = 0; col < nj; col++) {
            float sum = 0.f;
            for (int k = 0; k < nk; k++)
                sum += a[r * nk + k] * b[k * nj + col];
            c[r * nj + col] = sum;
        }
}

/* The same of n x n matrices. */
static void product(int n, const float *a, const float *b, float *c)
{
    float_product(n, n, n, a, b, c);
}

/* Runs kernel `name` of `file` with the integer sizes, then a, b and c
 * (c back on the host after). */
static void run_matrices(const char *file, const char *name, const oklc_arg *sizes, int nsizes,
                         const float *a, size_t abytes, const float *b, size_t bbytes, float *c,
                         size_t cbytes)
{
    oklc_kernel *k = build(file, name);
    oklc_memory *m[3] = {to_device(a, abytes), to_device(b, bbytes), to_device(c, cbytes)};
    oklc_arg args[8];
    for (int i = 0; i < nsizes; i++)
        args[i] = sizes[i];
    for (int i = 0; i < 3; i++)
        args[nsizes + i] = oklc_arg_mem(m[i]);
    run(k, nsizes + 3, args);
    to_host(m[2], c, cbytes);
    for (int i = 0; i < 3; i++)
        oklc_memory_free(m[i]);
    oklc_kernel_free(k);
}

/* Small integers: the sums are exact in any order of additions. */
static void test_tiled_product_2d(void **state)
{
    (void)state;
    enum { NI = 37, NJ = 45, NK = 700 };    /* NK > 512: the k loop in blocks too */
    static float a[NI * NK], b[NK * NJ], c[NI * NJ], want[NI * NJ];
    for (int i = 0; i < NI * NK; i++)
        a[i] = (float)(i % 5);
    for (int i = 0; i < NK * NJ; i++)
        b[i] = (float)(i % 3) - 1;
    for (int i = 0; i < NI * NJ; i++)
        c[i] = -1;
    float_product(NI, NJ, NK, a, b, want);
    const oklc_arg sizes[] = {oklc_arg_int(NI), oklc_arg_int(NJ), oklc_arg_int(NK)};
    run_matrices("loops.okl", "tiledProduct2d", sizes, 3, a, sizeof a, b, sizeof b, c, sizeof c);
    same_floats(want, c, NI * NJ);
}

/* Column sums whose sums are a per-thread array: small integers, exact
 * in any order of additions; the sums land after the matrix. */
static void test_column_sums(void **state)
{
    (void)state;
    enum { R = 203, C = 45, CI = 64 };    /* C: not a multiple of the block */
    static float x[R * CI + CI], want[R * CI + CI];
    for (int i = 0; i < R * CI + CI; i++)
        x[i] = want[i] = (float)(i % 7) - 3;
    for (int c = 0; c < C; c++) {
        float s[4] = {0, 0, 0, 0};
        for (int r = 0; r + 3 < R; r += 4)
            for (int v = 0; v < 4; v++)
                s[v] += want[(r + v) * C + c];
        want[R * C + c] = s[0] + 2 * s[1] + 3 * s[2] + 4 * s[3];
    }
    RUN_ON("loops.okl", "columnSums4", x, oklc_arg_int(R), oklc_arg_int(C));
    same_floats(want, x, R * CI + CI);
    for (int i = 0; i < R * CI + CI; i++)
        x[i] = want[i] = (float)(i % 5) - 2;
    for (int c = 0; c < CI; c++) {
        float s[2] = {0, 0};
        for (int r = 0; r + 1 < R; r += 2)
            for (int v = 0; v < 2; v++)
                s[v] += (v ? 3.0f : 1.0f) * want[(r + v) * CI + c];
        want[R * CI + c] = s[0] - s[1];
    }
    RUN_ON("loops.okl", "columnSumsInit", x, oklc_arg_int(R), oklc_arg_int(CI));
    same_floats(want, x, R * CI + CI);
}

/* sharedOnce: D's matrix the same in every block, set once before them;
 * with no blocks at all, nothing runs. */
static void test_shared_once(void **state)
{
    (void)state;
    enum { E = 5, N = 2 * E * 64 };
    static float D[64], x[2 * N], want[2 * N];
    const float c = 0.5f;
    for (int i = 0; i < 64; i++)
        D[i] = (float)(i % 9) - 4;
    for (int i = 0; i < 2 * N; i++)
        x[i] = want[i] = (float)(i % 7) - 3;
    for (int b = 0; b < 2 * E; b++)
        for (int j = 0; j < 8; j++)
            for (int i = 0; i < 8; i++) {
                float s = 0;
                for (int m = 0; m < 8; m++)
                    s += c * D[i * 8 + m] * want[(b * 8 + j) * 8 + m];
                want[N + (b * 8 + j) * 8 + i] = s;
            }
    oklc_memory *d = to_device(D, sizeof D);
    RUN_ON("loops.okl", "sharedOnce", x, oklc_arg_int(E), oklc_arg_float(c), oklc_arg_mem(d));
    same_floats(want, x, 2 * N);
    for (int i = 0; i < 2 * N; i++)
        x[i] = want[i] = (float)(i % 5);
    RUN_ON("loops.okl", "sharedOnce", x, oklc_arg_int(0), oklc_arg_float(c), oklc_arg_mem(d));
    same_floats(want, x, 2 * N);
    oklc_memory_free(d);
}

/* sliceDivisions: a grid-stride slice whose thread divides alike before and
 * after it, with 62 rounds per thread (interchanged), 1 (as written), and
 * 15 or 16 (blocks of either form in one launch): the same values. */
static void test_slice_divisions(void **state)
{
    (void)state;
    enum { N = 4000 };
    static float x[N], out[N], want[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 7 - 3);
    const int blocks[] = {2, 8, (N + 31) / 32};
    for (int c = 0; c < 3; c++) {
        const int nb = blocks[c];
        oklc_memory *mx = to_device(x, sizeof x);
        for (int i = 0; i < N; i++)
            out[i] = want[i] = -7;
        for (int gi = 0; gi < nb * 32 && gi < N; gi++) {
            float v = x[gi % N];
            for (int i = gi; i < N; i += nb * 32)
                v += x[i] * 2;
            want[gi] = v * x[gi % N] + x[(gi / nb) % N];
        }
        RUN_ON("loops.okl", "sliceDivisions", out, oklc_arg_int(N), oklc_arg_int(nb),
               oklc_arg_mem(mx));
        same_floats(want, out, N);
        oklc_memory_free(mx);
    }
}

static void test_matmul_tiled(void **state)
{
    (void)state;
    enum { N = 48 };
    static float A[N * N], B[N * N], C[N * N], want[N * N];
    for (int i = 0; i < N * N; i++)
        A[i] = (float)(i % 5) - 2, B[i] = (float)(i % 3), C[i] = -1;
    product(N, A, B, want);
    const oklc_arg sizes[] = {oklc_arg_int(N)};
    run_matrices("blocks.okl", "matmulTiled", sizes, 1, A, sizeof A, B, sizeof B, C, sizeof C);
    same_floats(want, C, N * N);
}

/* Split @inner loops: dotBarrier (a CUDA-style dot, exact on integers),
 * sameName, severalNames, listKept, haloStencil */
/* ---- barriers.okl: races ----------------------------------------------------------------- */

enum { RB = 256, RNB = 1024, RROUNDS = 64 };    /* threads per block, blocks, rounds */

/* How often each race test runs its kernel: OKLC_TEST_REPEAT, 2 by default
 * (the CPU devices, where nothing races; a GPU run asks for hundreds). */
static int repeats(void)
{
    const char *v = getenv("OKLC_TEST_REPEAT");
    int n = v ? atoi(v) : 2;
    return n > 0 ? n : 1;
}

/* Does a missing barrier give wrong values on the device? Yes on GPUs,
 * whose threads run at once: cuda, hip, and an OpenCL device the test is
 * told is a GPU (OKLC_TEST_GPU=1: the runtime cannot say what an OpenCL
 * device is). No on the CPU devices, which run the @inner loops in turn.
 * Unknown elsewhere: PoCL runs a work-group's items in turn between the
 * barriers, and whether that sees a missing barrier depends on the kernel. */
typedef enum { RACES_NO, RACES_YES, RACES_UNKNOWN } Races;

static Races threads_race(void)
{
    if (device_is("serial") || device_is("openmp"))
        return RACES_NO;
    const char *gpu = getenv("OKLC_TEST_GPU");
    if (device_is("cuda") || device_is("hip") || (gpu && !strcmp(gpu, "1")))
        return RACES_YES;
    return RACES_UNKNOWN;
}

/* Runs kernel `name` of barriers.okl repeats() times as name(lead..., in,
 * out) into an output of -1s, each time checking all n values against
 * want; returns how many runs were wrong, the first wrong value in `first`. */
static int race_runs(const char *name, const oklc_arg *lead, int nlead, const int *in,
                     const int *want, size_t n, char *first, size_t cap)
{
    oklc_kernel *k = build("barriers.okl", name);
    int *got = malloc(n * sizeof *got), *fresh = malloc(n * sizeof *fresh);
    assert_non_null(got), assert_non_null(fresh);
    for (size_t i = 0; i < n; i++)
        fresh[i] = -1;
    oklc_memory *mi = to_device(in, n * sizeof *in), *mo = to_device(fresh, n * sizeof *got);
    oklc_arg args[8];
    memcpy(args, lead, (size_t)nlead * sizeof *lead);
    args[nlead] = oklc_arg_mem(mi), args[nlead + 1] = oklc_arg_mem(mo);
    int wrong = 0, reps = repeats();
    first[0] = '\0';
    for (int r = 0; r < reps; r++) {
        assert_int_equal(oklc_memory_copy_from_host(mo, fresh, n * sizeof *got, 0), OKLC_OK);
        run(k, nlead + 2, args);
        to_host(mo, got, n * sizeof *got);
        size_t i = 0;
        while (i < n && got[i] == want[i])
            i++;
        if (i < n && !wrong++)
            snprintf(first, cap, "run %d, element %zu (block %zu): expected %d, got %d", r, i,
                     i / RB, want[i], got[i]);
    }
    oklc_memory_free(mi), oklc_memory_free(mo);
    oklc_kernel_free(k);
    free(got), free(fresh);
    return wrong;
}

/* A block's values for the kernels below: distinct, small, different
 * from block to block (a value a block left in @shared memory is wrong in
 * the next). */
static int *race_input(size_t n)
{
    int *in = malloc(n * sizeof *in);
    assert_non_null(in);
    for (size_t i = 0; i < n; i++)
        in[i] = (int)((i * 7919) % 100003);
    return in;
}

typedef struct {
    const char *name;
    int         nlead;      /* arguments before in and out */
    oklc_arg    lead[3];
    void      (*want)(const int *in, int *want);
} RaceCase;

static void want_exchange(const int *in, int *w)
{
    for (int b = 0; b < RNB; b++)
        for (int t = 0; t < RB; t++) {
            int mine = in[b * RB + RB - 1 - t], u = (t + RB / 2) % RB;
            w[b * RB + t] = 2 * in[b * RB + RB - 1 - u] + mine;
        }
}

static void want_rotate(const int *in, int *w)
{
    int v[RB], s[RB];
    for (int b = 0; b < RNB; b++) {
        memcpy(v, in + b * RB, sizeof v);
        for (int r = 0; r < RROUNDS; r++) {
            memcpy(s, v, sizeof s);
            for (int t = 0; t < RB; t++)
                v[t] = s[(t + 97) % RB] + r;
        }
        memcpy(w + b * RB, v, sizeof v);
    }
}

static void want_tile_rows(const int *in, int *w)
{
    for (int b = 0; b < RNB - 1; b++)        /* rows: RNB - 1, the last tile partly past it */
        for (int t = 0; t < RB; t++)
            w[b * RB + t] = in[b * RB + (t + 131) % RB] - in[b * RB + t];
    for (int t = 0; t < RB; t++)
        w[(RNB - 1) * RB + t] = -1;
}

static void want_reversed(const int *in, int *w)
{
    for (int b = 0; b < RNB; b++)
        for (int t = 0; t < RB; t++)
            w[b * RB + t] = in[b * RB + RB - 1 - t];
}

static void want_transpose(const int *in, int *w)
{
    for (int b = 0; b < RNB / 4; b++)
        for (int j = 0; j < 32; j++)
            for (int i = 0; i < 32; i++)
                w[(b * 32 + j) * 32 + i] = in[(b * 32 + i) * 32 + j];
}

static void want_own_slots(const int *in, int *w)
{
    for (int i = 0; i < RNB * RB; i++)
        w[i] = 3 * in[i] + 1;
}

static void want_no_shared(const int *in, int *w)
{
    for (int i = 0; i < RNB * RB; i++)
        w[i] = 5 * in[i] - i % RB;
}

static void want_tree_sums(const int *in, int *w)
{
    for (int b = 0; b < RNB / 2; b++) {
        int sum = 0;
        for (int t = 0; t < 2 * RB; t++)
            sum += in[b * 2 * RB + t];
        for (int t = 0; t < 2 * RB; t++)
            w[b * 2 * RB + t] = sum - in[b * 2 * RB + t];
    }
}

static void want_dropped_wide(const int *in, int *w)
{
    for (int b = 0; b < RNB; b++)
        for (int t = 0; t < RB; t++) {
            int u = RB - 1 - t, v = in[b * RB + u];
            for (int f = 1; f <= 3 && u < 3 * RB / 4; f++)
                v += f * in[b * RB + (u + f) % RB];
            w[b * RB + t] = v;
        }
}

static void want_private_wide(const int *in, int *w)
{
    for (int b = 0; b < RNB; b++)
        for (int t = 0; t < RB; t++)
            w[b * RB + t] = in[b * RB + RB - 1 - t] + RB - 1 - t;
}

/* Runs each case (RNB * RB ints in and out); how many of its runs were
 * wrong in wrong[]. */
static void race_cases(const RaceCase *cases, int ncases, int *wrong, char (*first)[160])
{
    size_t n = (size_t)RNB * RB;
    int *in = race_input(n), *want = malloc(n * sizeof *want);
    assert_non_null(want);
    for (int c = 0; c < ncases; c++) {
        cases[c].want(in, want);
        wrong[c] = race_runs(cases[c].name, cases[c].lead, cases[c].nlead, in, want, n,
                             first[c], sizeof first[c]);
        print_message("%s: %d of %d runs wrong%s%s\n", cases[c].name, wrong[c], repeats(),
                      wrong[c] ? "; first: " : "", first[c]);
    }
    free(in), free(want);
}

/* Every barrier oklc writes, keeps or leaves out, under many warps: every
 * run right. */
static void test_barrier_races(void **state)
{
    (void)state;
    const RaceCase cases[] = {
        {"exchange", 1, {oklc_arg_int(RNB)}, want_exchange},
        {"rotate", 2, {oklc_arg_int(RNB), oklc_arg_int(RROUNDS)}, want_rotate},
        {"tileRows", 1, {oklc_arg_int(RNB - 1)}, want_tile_rows},
        {"gridShared", 2, {oklc_arg_int(RNB / 32), oklc_arg_int(32)}, want_reversed},
        {"transpose", 1, {oklc_arg_int(RNB / 4)}, want_transpose},
        {"userBarrier", 1, {oklc_arg_int(RNB)}, want_reversed},
        {"ownSlots", 1, {oklc_arg_int(RNB)}, want_own_slots},
        {"noShared", 1, {oklc_arg_int(RNB)}, want_no_shared},
        {"treeSums", 1, {oklc_arg_int(RNB / 2)}, want_tree_sums},
        {"droppedWide", 1, {oklc_arg_int(RNB)}, want_dropped_wide},
        {"privateWide", 1, {oklc_arg_int(RNB)}, want_private_wide},
    };
    enum { NC = sizeof cases / sizeof cases[0] };
    int wrong[NC];
    char first[NC][160];
    race_cases(cases, NC, wrong, first);
    for (int c = 0; c < NC; c++)
        if (wrong[c])
            fail_msg("%s: %d of %d runs wrong; first: %s", cases[c].name, wrong[c], repeats(),
                     first[c]);
}

/* The twins with a needed barrier taken out: wrong on a GPU (else the
 * test above could not see a missing barrier there), right on the CPU
 * devices (threads_race). */
static void test_barrier_controls(void **state)
{
    (void)state;
    const RaceCase cases[] = {
        {"exchangeRacy", 1, {oklc_arg_int(RNB)}, want_exchange},
        {"rotateRacy", 2, {oklc_arg_int(RNB), oklc_arg_int(RROUNDS)}, want_rotate},
    };
    enum { NC = sizeof cases / sizeof cases[0] };
    int wrong[NC];
    char first[NC][160];
    race_cases(cases, NC, wrong, first);
    for (int c = 0; c < NC; c++) {
        if (threads_race() == RACES_YES && !wrong[c])
            fail_msg("%s: right in all %d runs: the race test cannot see its missing barrier",
                     cases[c].name, repeats());
        if (threads_race() == RACES_NO && wrong[c])
            fail_msg("%s: %d of %d runs wrong; first: %s", cases[c].name, wrong[c], repeats(),
                     first[c]);
    }
}

static void test_split_parts(void **state)
{
    (void)state;
    enum { N = 2500, NB = (N + 1023) / 1024 };
    static float x[N];
    float partial[NB] = {0}, want[NB] = {0};
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 9) - 4;
        want[i / 1024] += x[i] * x[i];
    }
    run_in_out("blocks.okl", "dotBarrier", N, x, sizeof x, partial, sizeof partial);
    same_floats(want, partial, NB);
    enum { M = 3 };
    int in[M * 32], out[M * 32], wout[M * 32];
    for (int i = 0; i < M * 32; i++)
        in[i] = i % 11 - 5;
    for (int b = 0; b < M; b++)
        for (int t = 0; t < 32; t++)
            wout[b * 32 + t] = (in[b * 32 + 31 - t] + M) * (2 * t + 1);
    run_in_out("blocks.okl", "sameName", M, in, sizeof in, out, sizeof out);
    same_ints(wout, out, M * 32);
    for (int b = 0; b < M; b++)
        for (int t = 0; t < 32; t++) {
            const int a = in[b * 32 + t], k = t + 1;
            wout[b * 32 + t] = 2 * in[b * 32 + 31 - t] + 3 * a + (a - k) * k - a;
        }
    run_in_out("blocks.okl", "severalNames", M, in, sizeof in, out, sizeof out);
    same_ints(wout, out, M * 32);
    float fin[M * 16], fout[M * 16], fwant[M * 16];
    for (int i = 0; i < M * 16; i++)
        fin[i] = (float)(i % 5), fwant[i] = 1.5f * (float)(15 - i % 16) + fin[i];
    run_in_out("blocks.okl", "listKept", M, fin, sizeof fin, fout, sizeof fout);
    same_floats(fwant, fout, M * 16);
    enum { H = 192 };    /* haloStencil: quarters and halves of small integers, exact */
    float hin[H], hout[H], hwant[H];
    for (int i = 0; i < H; i++)
        hin[i] = (float)(i % 13 - 6);
    for (int i = 0; i < H; i++)
        hwant[i] = 0.25f * (i > 0 ? hin[i - 1] : 0.f) + 0.5f * hin[i] +
                   0.25f * (i + 1 < H ? hin[i + 1] : 0.f);
    run_in_out("blocks.okl", "haloStencil", H, hin, sizeof hin, hout, sizeof hout);
    same_floats(hwant, hout, H);
}

static void test_inner_split(void **state)
{
    (void)state;
    enum { NB = 2, N = NB * 32 };
    int out[N] = {0}, want[N];
    for (int b = 0; b < NB; b++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 8; i++)
                want[(b * 4 + j) * 8 + i] = ((3 - j) * 8 + (7 - i) + b) + j * 8;
    RUN_ON("blocks.okl", "innerSplit", out, oklc_arg_int(NB));
    same_ints(want, out, N);
}

static void test_grid_stride(void **state)
{
    (void)state;
    enum { N = 2500 };
    int in[N], out[N], owner[N], want[N], wown[N];
    for (int i = 0; i < N; i++) {
        in[i] = i % 97;
        out[i] = owner[i] = -1;
        want[i] = 3 * in[i] + 1;
        wown[i] = (i % 1024) % 64;
    }
    oklc_kernel *k = build("blocks.okl", "gridStride");
    oklc_memory *mi = to_device(in, sizeof in), *mo = to_device(out, sizeof out);
    oklc_memory *mw = to_device(owner, sizeof owner);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(mi), oklc_arg_mem(mo), oklc_arg_mem(mw));
    to_host(mo, out, sizeof out);
    to_host(mw, owner, sizeof owner);
    same_ints(want, out, N);
    same_ints(wown, owner, N);
    oklc_memory_free(mi);
    oklc_memory_free(mo);
    oklc_memory_free(mw);
    oklc_kernel_free(k);
}

/* ---- interchange (tests/golden/serial/interchange.okl) ----------------------------------- */

/* Per-thread loops that the CPU backends interchange with the @inner loop
 * around them, and those they leave as written: the same results on every
 * device (integers in floats: exact whatever the order of additions). */
#define INTERCHANGE "../golden/serial/interchange.okl"

static float small_int(int i, int m, int shift)
{
    return (float)(i % m - shift);
}

static void test_interchange_applied(void **state)
{
    (void)state;
    enum { N = 3000, NB = (N + 1023) / 1024 };
    static float x[N], y[N], a[N], b[N], wantb[N];
    float partial[NB], want[NB];
    for (int i = 0; i < N; i++) {
        x[i] = small_int(i, 7, 0), y[i] = small_int(i, 5, 2), a[i] = small_int(i, 11, 5);
        b[i] = -1, wantb[i] = i < 1000 ? 2 * a[i] : -1;
    }
    for (int blk = 0; blk < NB; blk++) {
        const int begin = blk * 1024, end = begin + 1024 < N ? begin + 1024 : N;
        float sum = 0;
        for (int t = 0; t < 64; t++) {
            float acc = 0.5f * t;
            for (int i = begin + t; i <= end - 1; i += 64)
                acc += x[i] * y[i];
            sum += acc;
        }
        want[blk] = sum, partial[blk] = -1;
    }
    oklc_memory *mx = to_device(x, sizeof x), *my = to_device(y, sizeof y);
    RUN_ON(INTERCHANGE, "dotSlices", partial, oklc_arg_int(N), oklc_arg_mem(mx), oklc_arg_mem(my));
    same_floats(want, partial, NB);
    oklc_memory *ma = to_device(a, sizeof a);
    RUN_ON(INTERCHANGE, "rows4", b, oklc_arg_int(1000), oklc_arg_mem(ma));
    same_floats(wantb, b, N);
    /* gridSlices: a step of 4 blocks' threads, end min(N, 2900); halfStep:
     * a step of 32 over 64 threads (the slices overlap) */
    float out[256], wout[256];
    for (int kernel = 0; kernel < 2; kernel++) {
        for (int blk = 0; blk < 4; blk++)
            for (int t = 0; t < 64; t++) {
                float r = 0;
                if (kernel == 0)
                    for (int n = blk * 64 + t; n < 2900; n += 256)
                        r += x[n];
                else
                    for (int n = blk * 700 + t; n < blk * 700 + 600; n += 32)
                        r += x[n] * (float)(n % 3);
                wout[blk * 64 + t] = r, out[blk * 64 + t] = -1;
            }
        RUN_ON(INTERCHANGE, kernel ? "halfStep" : "gridSlices", out, oklc_arg_int(N),
               oklc_arg_mem(mx));
        same_floats(wout, out, 256);
    }
    oklc_memory_free(mx);
    oklc_memory_free(my);
    oklc_memory_free(ma);
}

/* (and two more it applies to: @shared memory only read, a 2D nest) */
static void test_interchange_refused(void **state)
{
    (void)state;
    enum { N = 3000, NO = 4 * 64 };
    static float x[N], a[1024], b[1024], wantb[1024];
    float out[NO], want[NO];
    int starts[5] = {0, 700, 1500, 1501, 2999};
    for (int i = 0; i < N; i++)
        x[i] = small_int(i, 13, i % 101 == 50 ? 20 : 0);    /* a few negatives: the break */
    for (int i = 0; i < 1024; i++)
        a[i] = small_int(i, 9, 4), b[i] = 0, wantb[i] = a[i] + 1;
    oklc_memory *mx = to_device(x, sizeof x);
    for (int kernel = 0; kernel < 4; kernel++) {
        for (int blk = 0; blk < 4; blk++)
            for (int t = 0; t < 64; t++) {
                float acc = 0;
                int from = kernel == 1 ? starts[blk] + t : blk * 1024 + t;
                for (int i = from;; i += 64) {
                    if (kernel == 0 && !(i < N))
                        break;
                    if (kernel == 1 && !(i < starts[blk + 1]))
                        break;
                    if (kernel == 2 && !(i < blk * 1024 + 16 * t && i < N))
                        break;
                    if (kernel == 3 && !(i < N && x[i] >= 0))
                        break;
                    acc += kernel == 0 ? (float)((t + 1) % 64) * x[i] : x[i];
                }
                want[blk * 64 + t] = acc, out[blk * 64 + t] = -1;
            }
        if (kernel == 0)
            RUN_ON(INTERCHANGE, "sharedInSlice", out, oklc_arg_int(N), oklc_arg_mem(mx));
        if (kernel == 1) {
            oklc_memory *ms = to_device(starts, sizeof starts);
            RUN_ON(INTERCHANGE, "dataBound", out, oklc_arg_mem(ms), oklc_arg_mem(mx));
            oklc_memory_free(ms);
        }
        if (kernel == 2)
            RUN_ON(INTERCHANGE, "threadBound", out, oklc_arg_int(N), oklc_arg_mem(mx));
        if (kernel == 3)
            RUN_ON(INTERCHANGE, "withBreak", out, oklc_arg_int(N), oklc_arg_mem(mx));
        same_floats(want, out, NO);
    }
    oklc_memory *ma = to_device(a, sizeof a);
    RUN_ON(INTERCHANGE, "ownRows", b, oklc_arg_mem(ma));
    same_floats(wantb, b, 1024);
    float sums[256], wsums[256];    /* planes: a 2D nest, k per thread */
    for (int e = 0; e < 4; e++)
        for (int n = 0; n < 64; n++) {
            float sum = 0;
            for (int k = 0; k < 8; k++)
                sum += x[e * 512 + k * 64 + n];
            wsums[e * 64 + n] = sum, sums[e * 64 + n] = -1;
        }
    RUN_ON(INTERCHANGE, "planes", sums, oklc_arg_mem(mx));
    same_floats(wsums, sums, 256);
    enum { M = 128 };    /* tiledSum: N x N in, row r's sums of 4 in N / 4 columns */
    static float ta[M * M], tb[M * M], twant[M * M];
    for (int i = 0; i < M * M; i++)
        ta[i] = small_int(i, 17, 8);
    for (int r = 0; r < M; r++)
        for (int c = 0; c < M; c++) {
            twant[r * M + c] = -1;
            if (c < M / 4) {
                const int bx = c / 16, tx = c % 16;
                float acc = 0;
                for (int k = 0; k < 4; k++)
                    acc += ta[r * M + bx * 64 + k * 16 + tx];
                twant[r * M + c] = acc;
            }
            tb[r * M + c] = -1;
        }
    oklc_memory *mt = to_device(ta, sizeof ta);
    RUN_ON(INTERCHANGE, "tiledSum", tb, oklc_arg_int(M), oklc_arg_mem(mt));
    same_floats(twant, tb, M * M);
    oklc_memory_free(mt);
    oklc_memory_free(mx);
    oklc_memory_free(ma);
}

/* Per-thread loops of 2D and 3D blocks that the CPU backends interchange
 * in tiles of rows of threads, and those they leave as written or
 * interchange without tiles: against plain C, integers in floats and
 * doubles (exact whatever the order). */
static void test_interchange_tiles(void **state)
{
    (void)state;
    enum { N = 64, E = 3 };    /* A: also 4 x 6 x 128 values for tileAtomic */
    static float A[N * N], B[N * N], C[N * N], want[N * N];
    for (int i = 0; i < N * N; i++)
        A[i] = small_int(i, 7, 3), B[i] = small_int(i, 5, 1), C[i] = -1;
    product(N, A, B, want);
    oklc_memory *ma = to_device(A, sizeof A), *mb = to_device(B, sizeof B);
    RUN_ON(INTERCHANGE, "naiveProduct", C, oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb));
    same_floats(want, C, N * N);

    /* columnSums: per element 192 threads, 10 values each along k */
    static double q[E * 10 * 192], sum[E * 192], sq[E * 192], wsum[E * 192], wsq[E * 192];
    int seen[E * 192], wseen[E * 192];
    for (int i = 0; i < E * 10 * 192; i++)
        q[i] = (double)(i % 23) - 11;
    for (int n = 0; n < E * 192; n++) {
        const int e = n / 192, t = n % 192;
        wsum[n] = wsq[n] = 0;
        for (int k = 0; k < 10; k++) {
            const double v = q[(e * 10 + k) * 192 + t];
            wsum[n] += v, wsq[n] += v * v;
        }
        seen[n] = 2, wseen[n] = 3, sum[n] = sq[n] = -1;
    }
    oklc_kernel *k = build(INTERCHANGE, "columnSums");
    oklc_memory *mq = to_device(q, sizeof q), *ms = to_device(sum, sizeof sum);
    oklc_memory *m2 = to_device(sq, sizeof sq), *mn = to_device(seen, sizeof seen);
    RUN(k, oklc_arg_int(E), oklc_arg_mem(mq), oklc_arg_mem(ms), oklc_arg_mem(m2), oklc_arg_mem(mn));
    to_host(ms, sum, sizeof sum);
    to_host(m2, sq, sizeof sq);
    to_host(mn, seen, sizeof seen);
    same_doubles(wsum, sum, E * 192);
    same_doubles(wsq, sq, E * 192);
    same_ints(wseen, seen, E * 192);
    oklc_memory_free(mq), oklc_memory_free(ms), oklc_memory_free(m2), oklc_memory_free(mn);
    oklc_kernel_free(k);

    /* tileAtomic: 4 blocks of 8 x 16 threads, 6 values each, every thread
     * counts each k once */
    float out[4 * 128], wout[4 * 128];
    int hits[6] = {0}, whits[6];
    for (int t = 0; t < 4 * 128; t++) {
        const int b = t / 128, n = t % 128;
        wout[t] = 0, out[t] = -1;
        for (int kk = 0; kk < 6; kk++)
            wout[t] += A[(b * 6 + kk) * 128 + n];
    }
    for (int kk = 0; kk < 6; kk++)
        whits[kk] = 4 * 128;
    k = build(INTERCHANGE, "tileAtomic");
    oklc_memory *mo = to_device(out, sizeof out), *mh = to_device(hits, sizeof hits);
    RUN(k, oklc_arg_mem(ma), oklc_arg_mem(mo), oklc_arg_mem(mh));
    to_host(mo, out, sizeof out);
    to_host(mh, hits, sizeof hits);
    same_floats(wout, out, 4 * 128);
    same_ints(whits, hits, 6);
    oklc_memory_free(mo), oklc_memory_free(mh);
    oklc_kernel_free(k);

    /* oddRows, evenColumns, triangle, tileData, tileBreak: 3 blocks of
     * J x 16 threads; A has negatives (the break) */
    int len[3] = {7, 0, 4};
    oklc_memory *ml = to_device(len, sizeof len);
    static const char *const names[] = {"oddRows", "evenColumns", "triangle", "tileData",
                                        "tileBreak"};
    for (int kernel = 0; kernel < 5; kernel++) {
        const int J = kernel ? 4 : 5;
        float o[3 * 5 * 16], wo[3 * 5 * 16];
        for (int t = 0; t < 3 * J * 16; t++) {
            const int b = t / (J * 16), j = t % (J * 16) / 16, i = t % 16;
            float c = kernel >= 3 ? (float)j : 0;
            const int trips = kernel == 2 ? j + 1 : kernel == 3 ? len[b] : 7;
            for (int kk = 0; kk < trips; kk++) {
                if (kernel == 0)
                    c += A[kk * 48 + b * 16 + i] * (float)j;
                else if (kernel == 1)
                    c += A[(b * 7 + kk) * 32 + 2 * i] + (float)j;
                else if (kernel == 4 && A[(b * 7 + kk) * 16 + i] < 0)
                    break;
                else
                    c += A[(b * 7 + kk) * 16 + i];
            }
            wo[t] = c, o[t] = -1;
        }
        if (kernel == 3)
            RUN_ON(INTERCHANGE, names[kernel], o, oklc_arg_mem(ml), oklc_arg_mem(ma));
        else
            RUN_ON(INTERCHANGE, names[kernel], o, oklc_arg_mem(ma));
        same_floats(wo, o, (size_t)(3 * J * 16));
    }
    oklc_memory_free(ml);

    /* guardedProduct with N = 50 (the last blocks partly past N), in A and B */
    enum { G = 50 };
    static float gc[G * G], gwant[G * G];
    product(G, A, B, gwant);
    for (int i = 0; i < G * G; i++)
        gc[i] = -1;
    RUN_ON(INTERCHANGE, "guardedProduct", gc, oklc_arg_int(G), oklc_arg_mem(ma), oklc_arg_mem(mb));
    same_floats(gwant, gc, G * G);

    /* guardedColumns, maskedColumns: column sums of 8 rows of 150 (and
     * the else of the last block's threads past them) */
    enum { W = 150 };
    float cols[2 * W + 64], wcols[2 * W + 64];
    int mask[W];
    for (int c = 0; c < W; c++) {
        float s0 = 0, s1 = 1;
        for (int kk = 0; kk < 8; kk++)
            s0 += A[kk * W + c], s1 += A[kk * W + c];
        mask[c] = c % 3 != 1;
        wcols[c] = s0, wcols[W + c] = -1, cols[c] = cols[W + c] = -1;
    }
    for (int t = 0; t < 64; t++)
        wcols[2 * W + t] = cols[2 * W + t] = -1;
    RUN_ON(INTERCHANGE, "guardedColumns", cols, oklc_arg_int(W), oklc_arg_mem(ma));
    same_floats(wcols, cols, 2 * W + 64);
    for (int c = 0; c < W; c++) {
        float s1 = 1;
        for (int kk = 0; kk < 8; kk++)
            s1 += A[kk * W + c];
        wcols[W + c] = s1;
        if (!mask[c])
            wcols[c] = -1;
        cols[c] = cols[W + c] = -1;
    }
    for (int t = 0; t < 64; t++)    /* block 2's threads 22..63 are past 150 */
        wcols[2 * W + t] = t >= 22 ? (float)t : -1, cols[2 * W + t] = -1;
    oklc_memory *mm = to_device(mask, sizeof mask);
    RUN_ON(INTERCHANGE, "maskedColumns", cols, oklc_arg_int(W), oklc_arg_mem(mm), oklc_arg_mem(ma));
    same_floats(wcols, cols, 2 * W + 64);
    oklc_memory_free(mm);

    /* columnTile: y = A^T x for 7 rows of 150 (tiles of 64, the last
     * partly past 150); otherTiles: column sums of 4 rows, in three loops */
    float xs[7], y[3 * W], wy[3 * W];
    for (int kk = 0; kk < 7; kk++)
        xs[kk] = (float)(kk % 3) - 1;
    for (int c = 0; c < W; c++) {
        float dot = 0;
        for (int kk = 0; kk < 7; kk++)
            dot += A[kk * W + c] * xs[kk];
        wy[c] = dot, wy[W + c] = wy[2 * W + c] = -1;
        y[c] = y[W + c] = y[2 * W + c] = -1;
    }
    oklc_memory *mxs = to_device(xs, sizeof xs);
    RUN_ON(INTERCHANGE, "columnTile", y, oklc_arg_int(W), oklc_arg_int(7), oklc_arg_mem(ma),
           oklc_arg_mem(mxs));
    same_floats(wy, y, 3 * W);
    oklc_memory_free(mxs);
    for (int c = 0; c < W; c++) {
        float s4 = 0;
        for (int kk = 0; kk < 4; kk++)
            s4 += A[kk * W + c];
        wy[c] = c % 2 ? -1 : s4, wy[W + c] = 1 + s4, wy[2 * W + c] = 2 + s4;
        y[c] = y[W + c] = y[2 * W + c] = -1;
    }
    RUN_ON(INTERCHANGE, "otherTiles", y, oklc_arg_int(W), oklc_arg_int(32), oklc_arg_mem(ma));
    same_floats(wy, y, 3 * W);
    oklc_memory_free(ma);
    oklc_memory_free(mb);
}

#define FUSE "../golden/serial/fuse.okl"

/* A block's nests fused, its @shared staging read in place (cpu_fuse.c):
 * the products in OKL and CUDA style and y = A x (also with the copy
 * beside another statement), applied; y = A x with a source the kernel
 * could write and without @restrict, refused */
static void test_fused(void **state)
{
    (void)state;
    enum { N = 64 };
    static float A[N * N], B[N * N], C[N * N], want[N * N];
    for (int i = 0; i < N * N; i++)
        A[i] = small_int(i, 7, 3), B[i] = small_int(i, 5, 1);
    product(N, A, B, want);
    oklc_memory *ma = to_device(A, sizeof A), *mb = to_device(B, sizeof B);
    static const char *const products[] = {"stagedProduct", "barrierProduct"};
    for (int p = 0; p < 2; p++) {
        for (int i = 0; i < N * N; i++)
            C[i] = -1;
        RUN_ON(FUSE, products[p], C, oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb));
        same_floats(want, C, N * N);
    }
    double x[N];
    float xf[N], y[N], wy[N];
    for (int i = 0; i < N; i++)
        x[i] = small_int(i, 9, 4), xf[i] = (float)x[i];
    for (int r = 0; r < N; r++) {
        float acc = 0;
        for (int k = 0; k < N; k++)
            acc += A[r * N + k] * xf[k];
        wy[r] = acc;
    }
    oklc_memory *mx = to_device(x, sizeof x), *mxf = to_device(xf, sizeof xf);
    static const char *const rows[] = {"stagedRows", "writableSource", "mayAlias",
                                       "stagedBeside"};
    for (int p = 0; p < 4; p++) {
        for (int i = 0; i < N; i++)
            y[i] = -1;
        RUN_ON(FUSE, rows[p], y, oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(p ? mxf : mx));
        same_floats(wy, y, N);
    }
    oklc_memory_free(ma), oklc_memory_free(mb), oklc_memory_free(mx), oklc_memory_free(mxf);
}

/* ---- data.okl ------------------------------------------------------------------------ */

static void test_histogram(void **state)
{
    (void)state;
    enum { N = 100000, BINS = 16 };
    static int v[N];
    int hist[BINS] = {0}, want[BINS] = {0}, count = 0;
    float total = 0;
    for (int i = 0; i < N; i++) {
        v[i] = (i * 2654435761u) >> 7 & 0xffff;
        want[v[i] % BINS]++;
    }
    oklc_kernel *k = build("data.okl", "histogram");
    oklc_memory *mv = to_device(v, sizeof v), *mh = to_device(hist, sizeof hist);
    oklc_memory *mt = to_device(&total, sizeof total), *mc = to_device(&count, sizeof count);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(mv), oklc_arg_mem(mh), oklc_arg_mem(mt),
        oklc_arg_mem(mc));
    to_host(mh, hist, sizeof hist);
    to_host(mt, &total, sizeof total);
    to_host(mc, &count, sizeof count);
    same_ints(want, hist, BINS);
    assert_true(total == 0.5f * N);
    assert_int_equal(count, N);
    oklc_memory_free(mv);
    oklc_memory_free(mh);
    oklc_memory_free(mt);
    oklc_memory_free(mc);
    oklc_kernel_free(k);
}

/* histogramSlices: atomics around and inside a strided loop that the CPU
 * backends interchange; every count exact. (OpenMP once lost the pragma of
 * the statement after the loop, a race that seldom shows in a run:
 * tests/golden/openmp/atomic.okl, aroundSlices, pins the pragmas.) */
static void test_histogram_slices(void **state)
{
    (void)state;
    enum { N = 200000, NB = 24, BINS = 18 };
    static int v[N];
    int hist[BINS] = {0}, want[BINS] = {0};
    for (int i = 0; i < N; i++) {
        v[i] = (i * 2654435761u) >> 7 & 0xffff;
        want[v[i] % 16]++;
        want[17] += v[i] & 1;
    }
    want[16] = NB * 64;
    oklc_kernel *k = build("data.okl", "histogramSlices");
    oklc_memory *mv = to_device(v, sizeof v), *mh = to_device(hist, sizeof hist);
    RUN(k, oklc_arg_int(N), oklc_arg_int(NB), oklc_arg_mem(mv), oklc_arg_mem(mh));
    to_host(mh, hist, sizeof hist);
    same_ints(want, hist, BINS);
    oklc_memory_free(mv);
    oklc_memory_free(mh);
    oklc_kernel_free(k);
}

/* elementSums(n, nb, far, ...): the sum of v; one count per thread in
 * cnt[1], -2 in cnt[2] (elementReturns: per thread below n); over many
 * rounds of the strided loop (nb 2) and one, with threads past n (nb
 * 1600); cnt[far], far out of range, is never touched. */
static void element_sums(const char *name, int nb)
{
    enum { N = 100000 };
    static int v[N];
    float sum = 1.5f, want = 1.5f;
    int cnt[3] = {7, 10, 20};
    for (int i = 0; i < N; i++) {
        v[i] = (int)((i * 2654435761u) >> 9 & 15);
        want += (float)v[i];
    }
    oklc_kernel *k = build("data.okl", name);
    oklc_memory *mv = to_device(v, sizeof v), *ms = to_device(&sum, sizeof sum),
                *mc = to_device(cnt, sizeof cnt);
    RUN(k, oklc_arg_int(N), oklc_arg_int(nb), oklc_arg_int(1 << 30), oklc_arg_mem(mv),
        oklc_arg_mem(ms), oklc_arg_mem(mc));
    to_host(ms, &sum, sizeof sum);
    to_host(mc, cnt, sizeof cnt);
    assert_true(sum == want);
    const int threads = strcmp(name, "elementReturns") || 64 * nb < N ? 64 * nb : N;
    int wc[3] = {7, 10 + threads, 20 - 2 * threads};
    same_ints(wc, cnt, 3);
    oklc_memory_free(mv);
    oklc_memory_free(ms);
    oklc_memory_free(mc);
    oklc_kernel_free(k);
}

static void test_element_sums(void **state)
{
    (void)state;
    element_sums("elementSums", 2);
    element_sums("elementSums", 1600);
    element_sums("elementReturns", 2);
    element_sums("elementReturns", 1600);
}

/* binsBeside(n) on nb blocks of 64 against the same loops in C: v in
 * -40 .. 40, so that v % 5 reaches the bins below n + 16 too. */
static void bins_beside(int n, int nb)
{
    enum { MAX = 5000 };
    static int v[MAX], out[MAX + 22], want[MAX + 22];
    for (int i = 0; i < n + 22; i++)
        out[i] = want[i] = i;
    for (int g = 0; g < n; g++) {
        v[g] = (int)((g * 2654435761u) >> 7) % 81 - 40;
        if (g < 64 * nb) {
            want[g] = 2 * v[g];
            want[n + (v[g] & 15)] += 1;
            want[n + 16 + v[g] % 5] += 3;
            want[n + 21] += v[g];
        }
    }
    oklc_kernel *k = build("data.okl", "binsBeside");
    int cnt = 5;
    oklc_memory *mv = to_device(v, sizeof v), *mo = to_device(out, sizeof out),
                *mc = to_device(&cnt, sizeof cnt);
    RUN(k, oklc_arg_int(n), oklc_arg_int(nb), oklc_arg_int(1 << 30), oklc_arg_mem(mv),
        oklc_arg_mem(mo), oklc_arg_mem(mc));
    to_host(mo, out, sizeof out);
    to_host(mc, &cnt, sizeof cnt);
    same_ints(want, out, n + 22);
    assert_int_equal(cnt, 5);
    oklc_memory_free(mv);
    oklc_memory_free(mo);
    oklc_memory_free(mc);
    oklc_kernel_free(k);
}

static void test_bins_beside(void **state)
{
    (void)state;
    bins_beside(5000, 79);     /* every value a thread */
    bins_beside(5000, 3);      /* threads for the first 192 */
    bins_beside(10, 1);
}

static void test_histogram_shared(void **state)
{
    (void)state;
    enum { N = 1 << 20, BINS = 16 };
    static int v[N];
    int hist[BINS] = {0}, want[BINS] = {0};
    for (int i = 0; i < N; i++) {
        v[i] = (i * 2654435761u) >> 9 & 0xffff;
        want[v[i] % BINS]++;
    }
    run_in_out("data.okl", "histogramShared", N, v, sizeof v, hist, sizeof hist);
    same_ints(want, hist, BINS);
}

/* chunkCounts(n): 2 per value in up, -1 in down, on bins that start at
 * 1000 + t and -t. */
static void chunk_counts(int n)
{
    enum { BINS = 16, MAX = 100037 };
    static int v[MAX];
    unsigned up[BINS], want_up[BINS];
    int down[BINS], want_down[BINS];
    for (int t = 0; t < BINS; t++)
        up[t] = want_up[t] = 1000u + (unsigned)t, down[t] = want_down[t] = -t;
    for (int i = 0; i < n; i++) {
        v[i] = (int)((i * 2654435761u) >> 11 & 0xffff);
        want_up[v[i] % BINS] += 2;
        want_down[v[i] % BINS]--;
    }
    oklc_kernel *k = build("data.okl", "chunkCounts");
    oklc_memory *mv = to_device(v, sizeof v), *mu = to_device(up, sizeof up);
    oklc_memory *md = to_device(down, sizeof down);
    RUN(k, oklc_arg_int(n), oklc_arg_mem(mv), oklc_arg_mem(mu), oklc_arg_mem(md));
    to_host(mu, up, sizeof up);
    to_host(md, down, sizeof down);
    assert_memory_equal(want_up, up, sizeof up);
    assert_memory_equal(want_down, down, sizeof down);
    oklc_memory_free(mv);
    oklc_memory_free(mu);
    oklc_memory_free(md);
    oklc_kernel_free(k);
}

static void test_chunk_counts(void **state)
{
    (void)state;
    chunk_counts(100037);         /* 99 chunks of 1001 and one of 938: copies in each */
    chunk_counts(3 * 1001 + 100); /* a last chunk of 100: under 16 per bin, one loop */
    chunk_counts(3);
}

static void test_dims(void **state)
{
    (void)state;
    enum { N = 9 };
    float a[3 * N], b[N * 3], g[5 * 3], wb[N * 3], wg[5 * 3];
    for (int i = 0; i < 3 * N; i++)
        a[i] = i + 1, b[i] = wb[i] = -1;
    for (int i = 0; i < 15; i++)
        g[i] = wg[i] = -1;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < 3; i++) {
            wb[j * 3 + i] = a[j * 3 + i] + 1;     /* b(j, i), @dimOrder(1, 0): i fastest */
            if (j < 5)
                wg[i * 5 + j] = a[j * 3 + i] * 10;  /* g(j, i) with @dim(5, 3) */
        }
    oklc_kernel *k = build("data.okl", "dims");
    oklc_memory *ma = to_device(a, sizeof a), *mb = to_device(b, sizeof b);
    oklc_memory *mg = to_device(g, sizeof g);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mg));
    to_host(mb, b, sizeof b);
    to_host(mg, g, sizeof g);
    same_floats(wb, b, N * 3);
    same_floats(wg, g, 15);
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(mg);
    oklc_kernel_free(k);
}

/* @dim typedefs declared inside the kernel. */
static void test_local_dims(void **state)
{
    (void)state;
    enum { NB = 3 };
    float x[NB * 8], want[NB * 8];
    for (int i = 0; i < NB * 8; i++)
        x[i] = want[i] = (float)i;
    for (int b = 0; b < NB; b++)
        for (int t = 0; t < 8; t++) {
            want[b * 8 + t % 2 + 2 * (t / 2)] += 1;     /* m(t % 2, t / 2), @dim(2, 4) */
            want[b * 8 + t % 4 + 4 * (t / 4)] += 10 * t; /* r(t % 4, t / 4), @dim(4, 2) */
        }
    RUN_ON("data.okl", "localDims", x, oklc_arg_int(NB));
    same_floats(want, x, NB * 8);
}

/* Atomic updates read their right-hand side once: each cnt goes up by two. */
static void test_atomic_effects(void **state)
{
    (void)state;
    enum { NB = 2 };
    int cnt[NB * 16] = {0}, hi[NB] = {-1, -1}, want_cnt[NB * 16];
    float prod[NB] = {1, 1};
    for (int i = 0; i < NB * 16; i++)
        want_cnt[i] = 2;
    oklc_kernel *k = build("data.okl", "atomicEffects");
    oklc_memory *mc = to_device(cnt, sizeof cnt), *mp = to_device(prod, sizeof prod);
    oklc_memory *mh = to_device(hi, sizeof hi);
    RUN(k, oklc_arg_int(NB), oklc_arg_mem(mc), oklc_arg_mem(mp), oklc_arg_mem(mh));
    to_host(mc, cnt, sizeof cnt);
    to_host(mp, prod, sizeof prod);
    to_host(mh, hi, sizeof hi);
    same_ints(want_cnt, cnt, NB * 16);
    for (int b = 0; b < NB; b++) {
        assert_true(prod[b] == 1.0f);    /* 1 + 0 each time */
        assert_int_equal(hi[b], 1);      /* the largest value read: 1 */
    }
    oklc_memory_free(mc);
    oklc_memory_free(mp);
    oklc_memory_free(mh);
    oklc_kernel_free(k);
}

static void test_templates(void **state)
{
    (void)state;
    enum { N = 77 };
    float xf[N], wf[N];
    double xd[N], wd[N];
    for (int i = 0; i < N; i++) {
        xf[i] = i, wf[i] = 1.5f * i;
        xd[i] = i, wd[i] = -0.25 * i;
    }
    if (device_is("opencl")) {                 /* cxx.okl: C++ that OpenCL C lacks */
        build_fails("cxx.okl", "scale<float, 32>", "a lambda is C++");
        return;
    }
    oklc_kernel *kf = build("cxx.okl", "scale<float, 32>");
    oklc_kernel *kd = build("cxx.okl", "scale<double,8>");
    oklc_memory *mf = to_device(xf, sizeof xf), *md = to_device(xd, sizeof xd);
    RUN(kf, oklc_arg_int(N), oklc_arg_float(1.5f), oklc_arg_mem(mf));
    RUN(kd, oklc_arg_int(N), oklc_arg_double(-0.25), oklc_arg_mem(md));
    to_host(mf, xf, sizeof xf);
    to_host(md, xd, sizeof xd);
    same_floats(wf, xf, N);
    same_doubles(wd, xd, N);
    /* the scalar's type comes from the instance: a float is not a double */
    oklc_arg bad[] = {oklc_arg_int(N), oklc_arg_float(1.0f), oklc_arg_mem(md)};
    assert_int_equal(oklc_kernel_run(kd, 3, bad), OKLC_ERR_ARGUMENT);
    oklc_memory_free(mf);
    oklc_memory_free(md);
    oklc_kernel_free(kf);
    oklc_kernel_free(kd);
}

/* A template kernel instantiated from its arguments' types: one kernel
 * (addPairs of templates.okl, T from the memory), float and int instances. */
static void test_template_deduced(void **state)
{
    (void)state;
    enum { N = 77 };
    float af[N], abf[N + 3], wantf[N + 3];
    int ai[N], abi[N + 3], wanti[N + 3];
    for (int i = 0; i < N + 3; i++)             /* past N: left alone */
        abf[i] = wantf[i] = -1, abi[i] = wanti[i] = -1;
    for (int i = 0; i < N; i++) {
        af[i] = 0.5f * i, wantf[i] = af[i] + af[i];
        ai[i] = 3 * i - 40, wanti[i] = 2 * ai[i];
    }
    oklc_kernel *k = build("templates.okl", "addPairs");
    oklc_memory *m[4];
    assert_int_equal(oklc_memory_alloc_typed(dev, OKLC_TYPE_FLOAT, N, &m[0]), OKLC_OK);
    assert_int_equal(oklc_memory_alloc_typed(dev, OKLC_TYPE_FLOAT, N + 3, &m[1]), OKLC_OK);
    assert_int_equal(oklc_memory_alloc_typed(dev, OKLC_TYPE_INT32, N, &m[2]), OKLC_OK);
    assert_int_equal(oklc_memory_alloc_typed(dev, OKLC_TYPE_INT32, N + 3, &m[3]), OKLC_OK);
    assert_int_equal(oklc_memory_copy_from_host(m[0], af, sizeof af, 0), OKLC_OK);
    assert_int_equal(oklc_memory_copy_from_host(m[1], abf, sizeof abf, 0), OKLC_OK);
    assert_int_equal(oklc_memory_copy_from_host(m[2], ai, sizeof ai, 0), OKLC_OK);
    assert_int_equal(oklc_memory_copy_from_host(m[3], abi, sizeof abi, 0), OKLC_OK);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(m[0]), oklc_arg_mem(m[0]), oklc_arg_mem(m[1]));
    RUN(k, oklc_arg_int(N), oklc_arg_mem(m[2]), oklc_arg_mem(m[2]), oklc_arg_mem(m[3]));
    to_host(m[1], abf, sizeof abf);
    to_host(m[3], abi, sizeof abi);
    same_floats(wantf, abf, N + 3);
    same_ints(wanti, abi, N + 3);
    /* the arguments must agree on T */
    oklc_arg mixed[] = {oklc_arg_int(N), oklc_arg_mem(m[0]), oklc_arg_mem(m[2]),
                        oklc_arg_mem(m[1])};
    assert_int_not_equal(oklc_kernel_run(k, 4, mixed), OKLC_OK);
    for (int i = 0; i < 4; i++)
        oklc_memory_free(m[i]);
    oklc_kernel_free(k);
}

/* ---- inline.okl ---------------------------------------------------------------------------- */

/* OCCA's inline kernel: the name _occa_jit_kernel is the user's (OCCA's) */
static void test_occa_inline(void **state)
{
    (void)state;
    enum { N = 100 };
    float a[N], b[N], ab[N + 4], want[N + 4];
    for (int i = 0; i < N + 4; i++)
        ab[i] = want[i] = -1;
    for (int i = 0; i < N; i++)
        a[i] = i, b[i] = 2 * i - 7, want[i] = a[i] + b[i];
    oklc_kernel *k = build("inline.okl", "_occa_jit_kernel");
    oklc_memory *ma = to_device(a, sizeof a), *mb = to_device(b, sizeof b);
    oklc_memory *mab = to_device(ab, sizeof ab);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab),
        oklc_arg_long(N));
    to_host(mab, ab, sizeof ab);
    same_floats(want, ab, N + 4);
    oklc_memory_free(ma), oklc_memory_free(mb), oklc_memory_free(mab);
    oklc_kernel_free(k);
}

/* ---- half.okl ---------------------------------------------------------------------------- */

/* n halves of host values (C has no half: binary16 bits) on the device. */
static oklc_memory *halves(const float *values, int n, uint16_t *bits)
{
    for (int i = 0; i < n; i++)
        bits[i] = oklc_half_from_float(values[i]);
    oklc_memory *m = NULL;
    assert_int_equal(oklc_memory_alloc_typed(dev, OKLC_TYPE_HALF, (size_t)n, &m), OKLC_OK);
    assert_int_equal(oklc_memory_copy_from_host(m, bits, (size_t)n * 2, 0), OKLC_OK);
    return m;
}

static void same_halves(const float *want, oklc_memory *m, int n)
{
    uint16_t got[128];
    assert_true(n <= 128);
    to_host(m, got, (size_t)n * 2);
    for (int i = 0; i < n; i++)
        if (oklc_half_to_float(got[i]) != want[i])
            fail_msg("element %d: expected %g, got %g (0x%04x)", i, want[i],
                     oklc_half_to_float(got[i]), got[i]);
}

/* Values in steps of 1/4 below 64: exact in half, sums and products too. */
static void test_half(void **state)
{
    (void)state;
    enum { N = 77 };
    float a[N], b[N], ab[N + 3], x[N], y[N + 3], want_ab[N + 3], want_y[N + 3];
    uint16_t bits[N + 3];
    for (int i = 0; i < N + 3; i++)             /* past N: left alone */
        ab[i] = want_ab[i] = y[i] = want_y[i] = -1;
    for (int i = 0; i < N; i++) {
        a[i] = 0.5f * (i % 40), b[i] = 3 - 0.25f * (i % 50);
        x[i] = 0.5f * (i % 13), y[i] = 0.25f * (i % 30);
        want_ab[i] = a[i] + b[i];
        want_y[i] = 1.5f * x[i] + y[i];
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/half.okl", dir);
    oklc_kernel *axpy = NULL;
    oklc_status st = oklc_kernel_build(dev, path, "axpyHalf", NULL, &axpy);
    if (st && device_is("opencl") && strstr(oklc_last_error(), "no cl_khr_fp16")) {
        /* a device without half (PoCL here): the error names the kernel and why */
        assert_int_equal(st, OKLC_ERR_COMPILE);
        assert_non_null(strstr(oklc_last_error(), "(kernel 'axpyHalf') for '"));
        print_message("half: the device lacks cl_khr_fp16, as its error says\n");
        return;
    }
    if (st)
        fail_msg("building axpyHalf: %s", oklc_last_error());
    oklc_kernel *add = build("half.okl", "addHalves");    /* T from the memory: half */
    oklc_memory *ma = halves(a, N, bits), *mb = halves(b, N, bits);
    oklc_memory *mab = halves(ab, N + 3, bits), *mx = halves(x, N, bits);
    oklc_memory *my = halves(y, N + 3, bits);
    oklc_arg add_args[] = {oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb),
                           oklc_arg_mem(mab)};
    st = oklc_kernel_run(add, 4, add_args);
    if (st && device_is("dpcpp") && strstr(oklc_last_error(), "no sycl::aspect::fp16")) {
        /* a SYCL device without half (AdaptiveCpp's OpenMP host device): refused
         * at launch, as SYCL 2020 asks, saying why and which device */
        assert_non_null(strstr(oklc_last_error(), "the kernel uses half, which the SYCL device '"));
        print_message("half: the SYCL device lacks aspect::fp16, as its error says\n");
    } else if (st) {
        fail_msg("running addHalves: %s", oklc_last_error());
    }
    if (!st) {
        RUN(axpy, oklc_arg_int(N), oklc_arg_float(1.5f), oklc_arg_mem(mx), oklc_arg_mem(my));
        same_halves(want_ab, mab, N + 3);
        same_halves(want_y, my, N + 3);
    }
    oklc_memory_free(ma), oklc_memory_free(mb), oklc_memory_free(mab);
    oklc_memory_free(mx), oklc_memory_free(my);
    oklc_kernel_free(add);
    oklc_kernel_free(axpy);
}

typedef struct Params {
    float scale;
    double offset;
    int shift;
    float weights[3];
} Params;

static void test_struct(void **state)
{
    (void)state;
    enum { N = 70 };
    Params p = {0.5f, 100.0, 2, {1, 2, 4}};
    double x[N], want[N];
    for (int i = 0; i < N; i++) {
        x[i] = -1;
        want[i] = p.scale * (i >> p.shift) + p.offset + p.weights[i % 3];
    }
    RUN_ON("data.okl", "withStruct", x, oklc_arg_int(N), oklc_arg_struct(&p, sizeof p));
    same_doubles(want, x, N);
}

static void test_vectors(void **state)
{
    (void)state;
    enum { N = 21 };
    float a[4 * N], b[4 * N], len[N], wb[4 * N], wl[N];
    for (int i = 0; i < 4 * N; i++)
        a[i] = (float)(i % 4) - 1;
    for (int i = 0; i < N; i++) {
        float d = 0, v[4];
        for (int c = 0; c < 4; c++) {
            v[c] = a[4 * i + c] * 2 + (c + 1);
            wb[4 * i + c] = v[c];
            d += a[4 * i + c] * a[4 * i + c];
        }
        wl[i] = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + d;
    }
    oklc_kernel *k = build("data.okl", "vectors");
    oklc_memory *ma = to_device(a, sizeof a), *mb = to_device(b, sizeof b);
    oklc_memory *ml = to_device(len, sizeof len);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(ml));
    to_host(mb, b, sizeof b);
    to_host(ml, len, sizeof len);
    same_floats(wb, b, 4 * N);
    for (int i = 0; i < N; i++)
        assert_true(fabsf(wl[i] - len[i]) <= 1e-5f * fabsf(wl[i]));
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(ml);
    oklc_kernel_free(k);
}

static void test_helpers(void **state)
{
    (void)state;
    enum { N = 40 };
    float x[N], want[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.5f * i;
        want[i] = 2 * (x[i] * x[i]) + 1.0f / 3 + 2.0f + (i > 3 ? i : 3);
    }
    if (device_is("opencl")) {
        build_fails("cxx.okl", "helpers", "a lambda is C++");
        return;
    }
    RUN_ON("cxx.okl", "helpers", x, oklc_arg_int(N));
    same_floats(want, x, N);
}

/* Lambdas' returns stay theirs; the thread's return ends its iteration. */
static void test_lambdas(void **state)
{
    (void)state;
    enum { N = 50 };
    const float k = 3;
    float x[N], want[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.5f * i;
        float v = x[i], c = 2;
        want[i] = i % 7 == 3 ? v
                             : v * k + (v > 10 ? v - c : v + c) + (v + k) + (v + c * 3 + 1) +
                                   (v * c + 1) + 0.5f + 2 * v + (float)i;
    }
    if (device_is("opencl")) {
        build_fails("cxx.okl", "lambdas", "a lambda is C++");
        return;
    }
    RUN_ON("cxx.okl", "lambdas", x, oklc_arg_int(N), oklc_arg_float(k));
    same_floats(want, x, N);
}

/* Methods ending with a @barrier: the barrier after each call. */
static void test_window_average(void **state)
{
    (void)state;
    enum { N = 100 };
    float in[N], out[N], want[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 9), out[i] = -1;
    for (int i = 0; i < N; i++) {
        int b = i / 32 * 32, t = i - b;
        float l = b + (t + 31) % 32 < N ? in[b + (t + 31) % 32] : 0;
        float r = b + (t + 1) % 32 < N ? in[b + (t + 1) % 32] : 0;
        want[i] = (l + in[i] + r) / 3;
    }
    if (device_is("opencl")) {
        build_fails("cxx.okl", "windowAverage", "is C++");
        return;
    }
    run_in_out("cxx.okl", "windowAverage", N, in, sizeof in, out, sizeof out);
    same_floats(want, out, N);
}

static void test_spaces(void **state)
{
    (void)state;
    enum { N = 100 };                   /* 3 blocks of 32 and a part */
    static const float weights[4] = {1, 10, 100, 1000};
    float in[N + 1], out[N], want[N];
    for (int i = 0; i <= N; i++)
        in[i] = (float)(i % 7);
    for (int i = 0; i < N; i++) {
        int b = i / 32 * 32, t = i - b, next = b + (t + 1) % 32;
        float tile = next < N ? in[next] : 0;
        out[i] = -1;
        want[i] = tile + in[i] + 1 + 2 + weights[t % 4] + in[i] + in[i + 1];
    }
    run_in_out("data.okl", "spaces", N, in, sizeof in, out, sizeof out);
    same_floats(want, out, N);
}

/* binSums(n, ...) on bins that start at hist0[t], fsum0[t], bits0[t] and
 * count0[t], compared with the same sums in C. */
static void bin_sums(int n, float fsum0)
{
    enum { BINS = 16, MAX = 100000 };
    static int v[MAX];
    int hist[BINS], want_hist[BINS];
    float fsum[BINS], want_fsum[BINS];
    unsigned bits[BINS], want_bits[BINS];
    long count[BINS], want_count[BINS];
    for (int t = 0; t < BINS; t++) {
        hist[t] = want_hist[t] = 1000 + t;
        fsum[t] = want_fsum[t] = fsum0;
        bits[t] = want_bits[t] = 0x5a5a0000u + (unsigned)t;
        count[t] = want_count[t] = 7 * t;
    }
    for (int i = 0; i < n; i++) {
        v[i] = (int)((i * 2654435761u) >> 7 & 0xffff);
        want_hist[v[i] % BINS]++;
        want_fsum[v[i] % BINS] -= 0.5f;
    }
    for (int b = 0; b < n; b += 64)
        for (int t = 0; t < BINS; t++) {
            want_bits[t] ^= 1u << (b / 64 % 32);
            want_count[t]++;
        }
    oklc_kernel *k = build("data.okl", "binSums");
    oklc_memory *m[5] = {to_device(v, (size_t)n * sizeof *v), to_device(hist, sizeof hist),
                         to_device(fsum, sizeof fsum), to_device(bits, sizeof bits),
                         to_device(count, sizeof count)};
    RUN(k, oklc_arg_int(n), oklc_arg_mem(m[0]), oklc_arg_mem(m[1]), oklc_arg_mem(m[2]),
        oklc_arg_mem(m[3]), oklc_arg_mem(m[4]));
    to_host(m[1], hist, sizeof hist);
    to_host(m[2], fsum, sizeof fsum);
    to_host(m[3], bits, sizeof bits);
    to_host(m[4], count, sizeof count);
    same_ints(want_hist, hist, BINS);
    assert_memory_equal(want_fsum, fsum, sizeof fsum);     /* bit for bit: -0.0 stays */
    assert_memory_equal(want_bits, bits, sizeof bits);
    assert_memory_equal(want_count, count, sizeof count);
    for (int i = 0; i < 5; i++)
        oklc_memory_free(m[i]);
    oklc_kernel_free(k);
}

static void test_bin_sums(void **state)
{
    (void)state;
    bin_sums(100000, 0.0f);
    bin_sums(64 * 40 + 13, 2.5f);
    bin_sums(0, -0.0f);    /* no block: the arguments are left alone */
}

static void test_atomics(void **state)
{
    (void)state;
    enum { N = 1000 };
    int v[N], imin = 1 << 30, imax = -(1 << 30), prod = 1;
    float lo = 1e9f, hi = -1e9f, fsub = 0;
    double dsum = 0;
    long big = 0;
    unsigned bits = 0;
    int wmin = imin, wmax = imax;
    unsigned wbits = 0;
    for (int i = 0; i < N; i++) {
        v[i] = (int)((i * 2654435761u) >> 12 & 0xfff) - 2000;
        wmin = v[i] < wmin ? v[i] : wmin;
        wmax = v[i] > wmax ? v[i] : wmax;
        wbits ^= 1u << (i % 32);
    }
    oklc_kernel *k = build("data.okl", "atomics");
    oklc_memory *m[10] = {
        to_device(v, sizeof v),       to_device(&imin, sizeof imin), to_device(&imax, sizeof imax),
        to_device(&lo, sizeof lo),    to_device(&hi, sizeof hi),     to_device(&dsum, sizeof dsum),
        to_device(&big, sizeof big),  to_device(&bits, sizeof bits), to_device(&prod, sizeof prod),
        to_device(&fsub, sizeof fsub),
    };
    RUN(k, oklc_arg_int(N), oklc_arg_mem(m[0]), oklc_arg_mem(m[1]), oklc_arg_mem(m[2]),
        oklc_arg_mem(m[3]), oklc_arg_mem(m[4]), oklc_arg_mem(m[5]), oklc_arg_mem(m[6]),
        oklc_arg_mem(m[7]), oklc_arg_mem(m[8]), oklc_arg_mem(m[9]));
    void *host[10] = {v, &imin, &imax, &lo, &hi, &dsum, &big, &bits, &prod, &fsub};
    size_t size[10] = {sizeof v, sizeof imin, sizeof imax, sizeof lo, sizeof hi,
                       sizeof dsum, sizeof big, sizeof bits, sizeof prod, sizeof fsub};
    for (int i = 1; i < 10; i++)
        to_host(m[i], host[i], size[i]);
    assert_int_equal(imin, wmin);
    assert_int_equal(imax, wmax);
    assert_true(lo == 0.5f * wmin && hi == 0.5f * wmax);
    assert_true(dsum == 0.25 * N);
    assert_true(big == (long)N << 33);
    assert_int_equal(bits, wbits);
    assert_int_equal(prod, 1 << 20);
    assert_true(fsub == -1.5f * N);
    for (int i = 0; i < 10; i++)
        oklc_memory_free(m[i]);
    oklc_kernel_free(k);
}

/* ---- limits.okl: what a launch checks before it runs ------------------------------------ */

/* Running k with (n, s, x) fails naming the kernel and `what`, before any
 * of the kernel runs: x stays as it was. */
static void refused(oklc_kernel *k, const char *name, int n, int s, const char *what)
{
    enum { N = 256 };
    int x[N];
    for (int i = 0; i < N; i++)
        x[i] = -1;
    oklc_memory *m = to_device(x, sizeof x);
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_int(s), oklc_arg_mem(m)};
    assert_int_equal(oklc_kernel_run(k, 3, args), OKLC_ERR_ARGUMENT);
    const char *e = oklc_last_error();
    if (!strstr(e, name) || !strstr(e, what))
        fail_msg("expected '%s' about '%s' in: %s", what, name, e);
    to_host(m, x, sizeof x);
    for (int i = 0; i < N; i++)
        assert_int_equal(x[i], -1);
    oklc_memory_free(m);
}

static void test_launch_checks(void **state)
{
    (void)state;
    oklc_kernel *step = build("limits.okl", "stepArg"), *tile = build("limits.okl", "tileArg");
    oklc_kernel *inner = build("limits.okl", "maxInner");
    /* a step or tile size of 0 never ends on a CPU, divides by zero in a
     * GPU launcher; a negative one counts nothing */
    refused(step, "'stepArg'", 100, 0, "the step of the @outer loop at line 6 is 0: it must be positive");
    refused(step, "'stepArg'", 100, -2, "the step of the @outer loop at line 6 is -2");
    refused(tile, "'tileArg'", 100, 0, "the tile size of the @tile loop at line 14 is 0: it must be positive");
    refused(tile, "'tileArg'", 100, -1, "the tile size of the @tile loop at line 14 is -1");
    /* 100 iterations in a block of 64 threads would lose 36 on a GPU */
    refused(inner, "'maxInner'", 2, 100, "the @inner loop at line 21 runs 100 iterations on axis 0, more than "
                           "the 64 threads of its block (@max_inner_dims)");
    int x[2 * 50], want[2 * 50];
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 50; i++)
            want[b * 50 + i] = b + i;
    oklc_memory *m = to_device(x, sizeof x);
    RUN(inner, oklc_arg_int(2), oklc_arg_int(50), oklc_arg_mem(m));
    to_host(m, x, sizeof x);
    same_ints(want, x, 2 * 50);
    int y[100] = {0};
    oklc_memory *my = to_device(y, sizeof y);
    RUN(step, oklc_arg_int(100), oklc_arg_int(7), oklc_arg_mem(my));
    to_host(my, y, sizeof y);
    for (int i = 0; i < 100; i++)
        assert_int_equal(y[i], i % 7 ? 0 : i);
    /* @max_inner_dims(4) gives axis 1 one thread: a second row is refused */
    oklc_kernel *y_axis = build("limits.okl", "maxInnerY");
    refused(y_axis, "'maxInnerY'", 2, 2, "the @inner loop at line 58 runs 2 iterations on axis 1, "
                                         "more than the 1 threads of its block");
    int row[2 * 4] = {0};
    oklc_memory *mr = to_device(row, sizeof row);
    RUN(y_axis, oklc_arg_int(2), oklc_arg_int(1), oklc_arg_mem(mr));
    to_host(mr, row, sizeof row);
    for (int i = 0; i < 2 * 4; i++)
        assert_int_equal(row[i], 1);
    oklc_memory_free(m);
    oklc_memory_free(my);
    oklc_memory_free(mr);
    oklc_kernel_free(step);
    oklc_kernel_free(tile);
    oklc_kernel_free(inner);
    oklc_kernel_free(y_axis);
}

/* Runs nest kernel k with the counts m[0..1]: each block b sets its m[b]
 * entries to b + i (up) or 2 i (down), or the run fails saying so. */
static void nest_counts(oklc_kernel *k, bool down, int m0, int m1, const char *fails)
{
    int m[2] = {m0, m1}, x[2 * 128], want[2 * 128];
    for (int i = 0; i < 2 * 128; i++)
        x[i] = want[i] = -1;
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < m[b]; i++)
            want[b * 128 + i] = down ? 2 * i : b + i;
    oklc_memory *mm = to_device(m, sizeof m), *mx = to_device(x, sizeof x);
    oklc_arg args[] = {oklc_arg_int(2), oklc_arg_mem(mm), oklc_arg_mem(mx)};
    if (fails) {
        assert_int_equal(oklc_kernel_run(k, 3, args), OKLC_ERR_ARGUMENT);
        const char *e = oklc_last_error();
        if (!strstr(e, fails))
            fail_msg("expected '%s' in: %s", fails, e);
    } else {
        assert_int_equal(oklc_kernel_run(k, 3, args), OKLC_OK);
        to_host(mx, x, sizeof x);
        same_ints(want, x, 2 * 128);
    }
    oklc_memory_free(mm);
    oklc_memory_free(mx);
}

/* @inner counts read in the block, under @max_inner_dims(64): counts up to
 * 64 run right; a larger one (which GPUs would cut to 64) fails the run on
 * every device, after it, naming the loop; and the next run is right. */
static void test_nest_counts(void **state)
{
    (void)state;
    oklc_kernel *up = build("limits.okl", "nestInner");
    oklc_kernel *down = build("limits.okl", "nestInnerDown");
    nest_counts(up, false, 50, 64, NULL);
    nest_counts(up, false, 64, 100, "cannot run 'nestInner' on the ");
    nest_counts(up, false, 128, 3, "the @inner loop at line 41 runs more iterations on axis 0 "
                                   "than the 64 threads of its block (@max_inner_dims)");
    nest_counts(up, false, 7, 0, NULL);
    nest_counts(down, true, 64, 1, NULL);
    nest_counts(down, true, 1, 65, "the @inner loop at line 50 runs more iterations on axis 0");
    nest_counts(down, true, 0, 33, NULL);
    /* 4 tiles of 4 threads: 16 entries */
    oklc_kernel *tiles = build("limits.okl", "tiledInner");
    nest_counts(tiles, false, 16, 13, NULL);
    nest_counts(tiles, false, 3, 17, "the @tile loop at line 69 runs more tiles on axis 1 than "
                                     "the 4 threads of its block (@max_inner_dims)");
    oklc_kernel_free(tiles);
    oklc_kernel_free(up);
    oklc_kernel_free(down);
}

/* A bound and a tile size from the file's functions (inline, constexpr,
 * and one those call): the launcher computes with them. */
static void test_host_calls(void **state)
{
    (void)state;
    enum { N = 100 };
    oklc_kernel *k = build("limits.okl", "hostCalls");
    int x[N], want[N];
    for (int i = 0; i < N; i++)
        x[i] = -1, want[i] = i < N / 2 ? i : -1;
    oklc_memory *m = to_device(x, sizeof x);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(m));
    to_host(m, x, sizeof x);
    same_ints(want, x, N);
    oklc_memory_free(m);
    oklc_kernel_free(k);
}

/* ---- cl_attrs.okl: OpenCL's attribute qualifiers --------------------------------------- */

/* [[cl::reqd_work_group_size(16, 1, 1)]] on a kernel whose block is an
 * argument: a block of 16 runs, one of 20 is refused at launch. */
static void test_cl_reqd_size(void **state)
{
    (void)state;
    enum { N = 100 };
    oklc_kernel *k = build("cl_attrs.okl", "reqdBlock");
    int x[N + 4], want[N + 4];
    for (int i = 0; i < N + 4; i++)
        x[i] = want[i] = -1;                  /* past N: left alone */
    for (int i = 0; i < N; i++)
        want[i] = 3 * i + 1;
    oklc_memory *m = to_device(x, sizeof x);
    RUN(k, oklc_arg_int(N), oklc_arg_int(16), oklc_arg_mem(m));
    to_host(m, x, sizeof x);
    same_ints(want, x, N + 4);
    refused(k, "'reqdBlock'", N, 20, "the @outer loop at line 8 runs blocks of 20 threads on "
                                     "axis 0, but cl::reqd_work_group_size requires 16");
    oklc_memory_free(m);
    oklc_kernel_free(k);
}

/* [[cl::packed]]: the struct is 5 bytes on every device, as in this C. */
struct __attribute__((packed)) Packed {
    char c;
    int i;
};
_Static_assert(sizeof(struct Packed) == 5, "a packed struct of 5 bytes");

static void test_cl_packed(void **state)
{
    (void)state;
    struct Packed p = {'A', -123456};
    int out[3] = {-1, -1, -1};
    oklc_kernel *k = build("cl_attrs.okl", "readPacked");
    oklc_memory *m = to_device(out, sizeof out);
    RUN(k, oklc_arg_struct(&p, sizeof p), oklc_arg_mem(m));
    to_host(m, out, sizeof out);
    int want[3] = {'A', -123456, -1};
    same_ints(want, out, 3);
    /* the metadata's size is the packed one: 8 bytes (the unpacked size) are refused */
    int8_t padded[8] = {0};
    oklc_arg args[] = {oklc_arg_struct(padded, sizeof padded), oklc_arg_mem(m)};
    assert_int_equal(oklc_kernel_run(k, 2, args), OKLC_ERR_ARGUMENT);
    if (!strstr(oklc_last_error(), "5 bytes, passed with oklc_arg_struct"))
        fail_msg("expected the struct's 5 bytes in: %s", oklc_last_error());
    oklc_memory_free(m);
    oklc_kernel_free(k);
}

/* An instance's step is checked once its parameters have values. */
static void test_instance_steps(void **state)
{
    (void)state;
    build_fails("limits.okl", "blockStep<0>", "in instance 'blockStep<0>': the step BS is 0: it "
                                              "must be positive");
    build_fails("limits.okl", "blockStep<-4>", "the step BS is -4");
    int x[20] = {0}, want[20];
    for (int i = 0; i < 20; i++)
        want[i] = i % 8;
    oklc_kernel *k = build("limits.okl", "blockStep<8>");
    oklc_memory *m = to_device(x, sizeof x);
    RUN(k, oklc_arg_int(20), oklc_arg_mem(m));
    to_host(m, x, sizeof x);
    same_ints(want, x, 20);
    oklc_memory_free(m);
    oklc_kernel_free(k);
}

/* ---- atomic_block.okl: CPUs only -------------------------------------------------------- */

static void test_atomic_block(void **state)
{
    (void)state;
    enum { N = 1000 };
    int count[2] = {0, 0};
    if (!device_is("serial") && !device_is("openmp")) {
        build_fails("atomic_block.okl", "atomicBlock", "backend has no atomic blocks");
        return;
    }
    RUN_ON("atomic_block.okl", "atomicBlock", count, oklc_arg_int(N));
    assert_int_equal(count[0], N);
    assert_int_equal(count[1], 2 * N);
}

static void test_triad_large(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
    assert_non_null(x && y && z);
    for (int i = 0; i < N; i++)
        x[i] = i % 1000, y[i] = i % 17, z[i] = -1;
    oklc_kernel *k = build("data.okl", "triad");
    oklc_memory *mx = to_device(x, N * sizeof *x), *my = to_device(y, N * sizeof *y);
    oklc_memory *mz = to_device(z, N * sizeof *z);
    RUN(k, oklc_arg_int(N), oklc_arg_float(3), oklc_arg_mem(mx), oklc_arg_mem(my),
        oklc_arg_mem(mz));
    to_host(mz, z, N * sizeof *z);
    for (int i = 0; i < N; i++)
        if (z[i] != x[i] + 3 * y[i])
            fail_msg("element %d: expected %g, got %g", i, x[i] + 3 * y[i], z[i]);
    oklc_memory_free(mx);
    oklc_memory_free(my);
    oklc_memory_free(mz);
    oklc_kernel_free(k);
    free(x);
    free(y);
    free(z);
}

/* ---- intrinsics.okl: the user's intrinsics (intrinsics.json, a kernel property) --------- */

static void test_intrinsics(void **state)
{
    (void)state;
    enum { N = 100 };
    float a[N], b[N], out[3 * N + 1];
    for (int i = 0; i < N; i++)
        a[i] = (float)(i % 7), b[i] = (float)(i % 5);
    for (int i = 0; i < 3 * N + 1; i++)
        out[i] = -7;
    char json[4200];
    snprintf(json, sizeof json, "%s/intrinsics.json", dir);
    oklc_props *props = oklc_props_new();
    assert_int_equal(oklc_props_intrinsics(props, json), OKLC_OK);
    oklc_kernel *k = build_with("intrinsics.okl", "intrinsics", props);
    oklc_memory *ma = to_device(a, sizeof a), *mb = to_device(b, sizeof b);
    oklc_memory *mo = to_device(out, sizeof out);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mo));
    to_host(mo, out, sizeof out);
    for (int i = 0; i < N; i++) {
        float want[3] = {3 * (2 * a[i] + b[i] + 1), b[i] * 2 - 2, 100};
        for (int j = 0; j < 3; j++)
            if (fabsf(out[3 * i + j] - want[j]) > (j == 2 ? 1e-3f : 0))
                fail_msg("element %d: expected %g, got %g", 3 * i + j, want[j], out[3 * i + j]);
    }
    assert_true(out[3 * N] == -7);
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(mo);
    oklc_kernel_free(k);
    oklc_props_free(props);
}

/* ---- legacy.okl: OCCA's legacy spellings ----------------------------------------------- */

static void test_legacy_ax(void **state)
{
    (void)state;
    enum { Q = 4, NE = 5 };           /* p_Nq; p_NblockV is 2: '=' in #if assigns */
    double D[Q * Q], q[NE * Q * Q], Aq[NE * Q * Q], want[NE * Q * Q];
    for (int i = 0; i < Q * Q; i++)
        D[i] = (i * 7) % 5 - 2;
    for (int i = 0; i < NE * Q * Q; i++)
        q[i] = (i * 3) % 11 - 5, Aq[i] = -1;
    for (int e = 0; e < NE; e++)
        for (int j = 0; j < Q; j++)
            for (int i = 0; i < Q; i++) {
                double r = 0;
                for (int k = 0; k < Q; k++)
                    r += D[i * Q + k] * q[e * Q * Q + j * Q + k] +
                         D[j * Q + k] * q[e * Q * Q + k * Q + i];
                want[e * Q * Q + j * Q + i] = r + 2;
            }
    oklc_kernel *k = build("legacy.okl", "legacyAx");
    oklc_memory *md = to_device(D, sizeof D), *mq = to_device(q, sizeof q);
    oklc_memory *ma = to_device(Aq, sizeof Aq);
    RUN(k, oklc_arg_int(NE), oklc_arg_mem(md), oklc_arg_mem(mq), oklc_arg_mem(ma));
    to_host(ma, Aq, sizeof Aq);
    same_doubles(want, Aq, NE * Q * Q);
    oklc_memory_free(md);
    oklc_memory_free(mq);
    oklc_memory_free(ma);
    oklc_kernel_free(k);
}

static void test_legacy_gather(void **state)
{
    (void)state;
    enum { N = 100 };                 /* not a multiple of either tile */
    int ids[N];
    double x[N], w[4] = {1, 2, 4, 8}, out[N + 8], want[N + 8];
    for (int n = 0; n < N; n++) {
        ids[n] = n % 7 == 3 ? -1 : (n * 13) % N;
        x[n] = n % 9;
    }
    for (int n = 0; n < N + 8; n++)
        out[n] = want[n] = -1;
    for (int n = 0; n < N; n++)
        want[n] = 2 * ((ids[n] >= 0 ? x[ids[n]] : 0) + w[n % 4] * x[n]);
    oklc_kernel *k = build("legacy.okl", "legacyGather");
    oklc_memory *mi = to_device(ids, sizeof ids), *mx = to_device(x, sizeof x);
    oklc_memory *mw = to_device(w, sizeof w), *mo = to_device(out, sizeof out);
    RUN(k, oklc_arg_int(N), oklc_arg_mem(mi), oklc_arg_mem(mx), oklc_arg_mem(mw),
        oklc_arg_mem(mo));
    to_host(mo, out, sizeof out);
    same_doubles(want, out, N + 8);
    oklc_memory_free(mi);
    oklc_memory_free(mx);
    oklc_memory_free(mw);
    oklc_memory_free(mo);
    oklc_kernel_free(k);
}

/* check=false: the last tile runs whole on every backend, CPUs included. */
static void test_legacy_tile_no_check(void **state)
{
    (void)state;
    enum { N = 37, ALL = 64 };        /* tiles of 16: 48 elements run, 16 stay */
    double x[ALL], want[ALL];
    for (int i = 0; i < ALL; i++)
        x[i] = i, want[i] = i + (i < 48);
    RUN_ON("legacy.okl", "legacyTileNoCheck", x, oklc_arg_int(N));
    same_doubles(want, x, ALL);
}

/* Nested tiles: the @outer levels are hoisted above the @inner ones. */
static void test_legacy_tiles2d(void **state)
{
    (void)state;
    enum { NX = 37, NY = 10 };         /* partial tiles on both axes */
    double a[NX * NY + 5], want[NX * NY + 5];
    for (int i = 0; i < NX * NY + 5; i++)
        a[i] = want[i] = -1;
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            want[y * NX + x] = 1000 * y + x;
    RUN_ON("legacy.okl", "legacyTiles2D", a, oklc_arg_int(NX), oklc_arg_int(NY));
    same_doubles(want, a, NX * NY + 5);
}

static void test_legacy_nested3d(void **state)
{
    (void)state;
    enum { NB = 3, X = 4 * NB, Y = 3 * NB, Z = 2 * NB };
    int a[X * Y * Z], want[X * Y * Z];
    for (int z = 0; z < Z; z++)
        for (int y = 0; y < Y; y++)
            for (int x = 0; x < X; x++)
                a[(z * Y + y) * X + x] = -1, want[(z * Y + y) * X + x] = 10000 * z + 100 * y + x;
    RUN_ON("legacy.okl", "legacyNested3D", a, oklc_arg_int(NB));
    same_ints(want, a, X * Y * Z);
}

/* @outer loops inside a loop and an if of the body: run by the launcher. */
static void host_flow(int n, int steps)
{
    int x[40], want[40];
    for (int i = 0; i < 40; i++)
        x[i] = want[i] = i % 5;
    for (int i = 0; i < n; i++)
        want[i] += steps;
    for (int i = 0; i < (n > 10 ? n / 2 : n); i++)
        want[i] = n > 10 ? 3 * want[i] : -want[i];
    RUN_ON("legacy.okl", "legacyHostFlow", x, oklc_arg_int(n), oklc_arg_int(steps));
    same_ints(want, x, 40);
}

static void test_legacy_host_flow(void **state)
{
    (void)state;
    host_flow(37, 3);
    host_flow(9, 2);
    host_flow(12, 0);
}

static void test_legacy_side_by_side(void **state)
{
    (void)state;
    enum { N = 5 };
    int x[4 * N * 2 + 3], want[4 * N * 2 + 3];
    for (int i = 0; i < 4 * N * 2 + 3; i++)
        x[i] = want[i] = -1;
    for (int b = 0; b < 4; b++)
        for (int c = 0; c < N; c++)
            for (int t = 0; t < 2; t++)
                want[(b * N + c) * 2 + t] += 1 + (c < 3 ? 20 : 0);
    RUN_ON("legacy.okl", "legacySideBySide", x, oklc_arg_int(N));
    same_ints(want, x, 4 * N * 2 + 3);
}

/* OpenCL's address spaces: @shared and array parameters, pointers
 * assigned after their declaration, an array of pointers. */
static void test_legacy_spaces(void **state)
{
    (void)state;
    enum { N = 21, SHIFT = 2 };
    double rhsq[3 * N], q[N + 3], want[N + 3];
    for (int i = 0; i < 3 * N; i++)
        rhsq[i] = i % 13;
    for (int i = 0; i < N + 3; i++)
        q[i] = want[i] = -1;
    for (int i = 0; i < N; i++)
        want[i] = rhsq[((SHIFT + 0) % 3) * N + i] + 10 * rhsq[((SHIFT + 2) % 3) * N + i];
    oklc_kernel *k = build("legacy.okl", "legacySpaces");
    oklc_memory *mr = to_device(rhsq, sizeof rhsq), *mq = to_device(q, sizeof q);
    RUN(k, oklc_arg_int(N), oklc_arg_int(SHIFT), oklc_arg_mem(mr), oklc_arg_mem(mq));
    to_host(mq, q, sizeof q);
    same_doubles(want, q, N + 3);
    oklc_memory_free(mr);
    oklc_memory_free(mq);
    oklc_kernel_free(k);
}

/* Variables of the block without const, which the threads agree on. */
static void test_legacy_block_variables(void **state)
{
    (void)state;
    enum { NE = 12, NX = 4, NY = NE / NX };
    double field[NE * 8], result[NY * 8 + 2], want[NY * 8 + 2];
    for (int i = 0; i < NE * 8; i++)
        field[i] = i % 7;
    for (int i = 0; i < NY * 8 + 2; i++)
        result[i] = want[i] = i < NY * 8 ? 0 : -1;
    for (int e = 0; e < NE; e++)
        for (int k = 0; k < 8; k++)
            want[(e / NX) * 8 + k] += field[e * 8 + k] * (e % NX + 1);
    oklc_kernel *k = build("legacy.okl", "legacyBlockVariables");
    oklc_memory *mf = to_device(field, sizeof field), *mr = to_device(result, sizeof result);
    RUN(k, oklc_arg_int(NE), oklc_arg_int(NX), oklc_arg_mem(mf), oklc_arg_mem(mr));
    to_host(mr, result, sizeof result);
    same_doubles(want, result, NY * 8 + 2);
    oklc_memory_free(mf);
    oklc_memory_free(mr);
    oklc_kernel_free(k);
}

/* ---- setup ------------------------------------------------------------------------------- */

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    const char *d = getenv("OKLC_TEST_RUN_DIR");
    const char *spec = getenv("OKLC_TEST_DEVICE");
    snprintf(dir, sizeof dir, "%s", d ? d : "tests/run");
    snprintf(cache, sizeof cache, "%s/oklc-run-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR")
                                                                         : "/tmp");
    if (!mkdtemp(cache)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("OKLC_CACHE_DIR", cache, 1);
    oklc_status st = oklc_device_open(spec ? spec : "serial", &dev);
    if (st != OKLC_OK) {
        fprintf(stderr, "%s device '%s': %s\n",
                st == OKLC_ERR_UNAVAILABLE ? "SKIP: no" : "cannot open",
                spec ? spec : "serial", oklc_last_error());
        nftw(cache, remove_one, 16, FTW_DEPTH | FTW_PHYS);
        /* 77: CTest's skip (SKIP_RETURN_CODE), for a GPU this machine lacks. */
        return st == OKLC_ERR_UNAVAILABLE ? 77 : 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile_check),       cmocka_unit_test(test_tile_no_check),
        cmocka_unit_test(test_tile_strided),     cmocka_unit_test(test_tile_down),
        cmocka_unit_test(test_tile_sizes),
        cmocka_unit_test(test_down_strided),     cmocka_unit_test(test_several_outer),
        cmocka_unit_test(test_grid3),            cmocka_unit_test(test_grid3_inner),
        cmocka_unit_test(test_tile_inner),       cmocka_unit_test(test_empty_outer),
        cmocka_unit_test(test_returns),          cmocka_unit_test(test_return_no_braces),
        cmocka_unit_test(test_tiles2d),          cmocka_unit_test(test_tiled_product_2d),
        cmocka_unit_test(test_column_sums),
        cmocka_unit_test(test_shared_once),      cmocka_unit_test(test_slice_divisions),
        cmocka_unit_test(test_tile_threads),
        cmocka_unit_test(test_guards),
        cmocka_unit_test(test_paired_product),   cmocka_unit_test(test_staged_sums),
        cmocka_unit_test(test_long_product), cmocka_unit_test(test_staged_barrier), cmocka_unit_test(test_panels), cmocka_unit_test(test_rounds), cmocka_unit_test(test_terms_guard),
        cmocka_unit_test(test_analysis),
        cmocka_unit_test(test_tiles),
        cmocka_unit_test(test_reverse_blocks),   cmocka_unit_test(test_function_barrier),
        cmocka_unit_test(test_tile_shared),      cmocka_unit_test(test_lambdas),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_no_barrier),       cmocka_unit_test(test_exclusive_keep),
        cmocka_unit_test(test_block_sum),        cmocka_unit_test(test_block_sum_barrier),
        cmocka_unit_test(test_derivative),       cmocka_unit_test(test_gradient),
        cmocka_unit_test(test_gradient_doubles),
        cmocka_unit_test(test_rows_ahead),
        cmocka_unit_test(test_part_ahead),
        cmocka_unit_test(test_matmul_tiled),     cmocka_unit_test(test_inner_split),
        cmocka_unit_test(test_barrier_races),    cmocka_unit_test(test_barrier_controls),
        cmocka_unit_test(test_grid_stride),
        cmocka_unit_test(test_split_parts),
        cmocka_unit_test(test_interchange_applied), cmocka_unit_test(test_interchange_refused),
        cmocka_unit_test(test_interchange_tiles), cmocka_unit_test(test_fused),
        cmocka_unit_test(test_histogram),        cmocka_unit_test(test_histogram_shared),
        cmocka_unit_test(test_histogram_slices),
        cmocka_unit_test(test_bin_sums),         cmocka_unit_test(test_chunk_counts),
        cmocka_unit_test(test_element_sums),     cmocka_unit_test(test_bins_beside),
        cmocka_unit_test(test_dims),             cmocka_unit_test(test_templates),
        cmocka_unit_test(test_template_deduced), cmocka_unit_test(test_occa_inline),
        cmocka_unit_test(test_local_dims),       cmocka_unit_test(test_atomic_effects),
        cmocka_unit_test(test_launch_checks),    cmocka_unit_test(test_instance_steps),
        cmocka_unit_test(test_nest_counts),      cmocka_unit_test(test_host_calls),
        cmocka_unit_test(test_cl_reqd_size),     cmocka_unit_test(test_cl_packed),
        cmocka_unit_test(test_struct),           cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_helpers),          cmocka_unit_test(test_window_average),
        cmocka_unit_test(test_triad_large),      cmocka_unit_test(test_intrinsics),
        cmocka_unit_test(test_spaces),           cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_atomic_block),    cmocka_unit_test(test_half),
        cmocka_unit_test(test_legacy_ax),        cmocka_unit_test(test_legacy_gather),
        cmocka_unit_test(test_legacy_tile_no_check),
        cmocka_unit_test(test_legacy_tiles2d),   cmocka_unit_test(test_legacy_nested3d),
        cmocka_unit_test(test_legacy_host_flow), cmocka_unit_test(test_legacy_side_by_side),
        cmocka_unit_test(test_legacy_spaces),    cmocka_unit_test(test_legacy_block_variables),
    };
    if (getenv("OKLC_TEST_FILTER"))           /* cmocka's patterns: test_barrier* */
        cmocka_set_test_filter(getenv("OKLC_TEST_FILTER"));
    if (getenv("OKLC_TEST_SKIP"))
        cmocka_set_skip_filter(getenv("OKLC_TEST_SKIP"));
    int failed = cmocka_run_group_tests_name(spec ? spec : "serial", tests, NULL, NULL);
    oklc_device_close(dev);
    nftw(cache, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return failed;
}
