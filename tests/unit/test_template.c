/*
 * test_template.c - template kernels built by their bare name and
 * instantiated by oklc_kernel_run from the arguments: typed memory, the
 * metadata of templates, deduction (memory, scalars, both), its errors
 * (untyped memory, a struct, conflicting types, a parameter nothing gives,
 * a props argument naming no parameter), non-type parameters from the
 * props and from defaults, the instances cached (a second build and a
 * second process compile nothing), runs from several threads, and
 * allocations failing.
 *
 * Every test uses a cache folder of its own under a temporary folder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failing_alloc.h"
#include "runtime/rt.h"    /* the compile count */

static char work[4096];
static int serial_no;

static const char *fresh_cache(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/cache%d", work, ++serial_no);
    setenv("OKLC_CACHE_DIR", path, 1);
    return path;
}

static void assert_ok(oklc_status st)
{
    if (st != OKLC_OK)
        fail_msg("%s: %s", oklc_status_name(st), oklc_last_error());
}

static void assert_fails(oklc_status st, oklc_status want, const char *part)
{
    if (st != want || !strstr(oklc_last_error(), part))
        fail_msg("wanted %s with '%s', got %s: %s", oklc_status_name(want), part,
                 oklc_status_name(st), oklc_last_error());
}

static oklc_device *open_dev(const char *spec)
{
    oklc_device *d = NULL;
    assert_ok(oklc_device_open(spec, &d));
    return d;
}

/* T from memory and from a scalar, B (non-type) from the props or its
 * default, U nowhere but the props. */
static const char source[] =
    "template <typename T, int B = 8>\n"
    "@kernel void axpy(const int n, const T a, const T *x, T *y) {\n"
    "  for (int i = 0; i < n; ++i; @tile(B, @outer, @inner)) {\n"
    "    y[i] = a * x[i] + y[i];\n  }\n}\n"
    "template <typename T, int N>\n"
    "@kernel void fill(T *x) {\n"
    "  for (int i = 0; i < N; ++i; @tile(4, @outer, @inner)) {\n"
    "    x[i] = (T)(i + N);\n  }\n}\n"
    "template <typename T, typename U>\n"
    "@kernel void widen(const int n, const T *x, U *y) {\n"
    "  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {\n"
    "    y[i] = (U)x[i] * 2;\n  }\n}\n"
    "@kernel void plain(const int n, float *x) {\n"
    "  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {\n"
    "    x[i] = 1;\n  }\n}\n";

static oklc_kernel *build(oklc_device *d, const char *name, const oklc_props *p)
{
    oklc_kernel *k = NULL;
    assert_ok(oklc_kernel_build_string(d, "t.okl", source, name, p, &k));
    return k;
}

enum { N = 37 };

/* y = a * x + y on memory of `type` (float or double), checked. */
static void axpy(oklc_device *d, oklc_kernel *k, oklc_type type)
{
    bool f = type == OKLC_TYPE_FLOAT;
    size_t size = oklc_type_size(type);
    double hx[N], hy[N];
    float fx[N], fy[N];
    for (int i = 0; i < N; i++) {
        hx[i] = fx[i] = (float)i;
        hy[i] = fy[i] = 1;
    }
    oklc_memory *x, *y;
    assert_ok(oklc_memory_alloc_typed(d, type, N, &x));
    assert_ok(oklc_memory_alloc_typed(d, type, N, &y));
    assert_int_equal(oklc_memory_size(x), N * size);
    assert_int_equal(oklc_memory_type(x), type);
    assert_ok(oklc_memory_copy_from_host(x, f ? (void *)fx : hx, N * size, 0));
    assert_ok(oklc_memory_copy_from_host(y, f ? (void *)fy : hy, N * size, 0));
    oklc_arg args[] = {oklc_arg_int(N), f ? oklc_arg_float(3) : oklc_arg_double(3),
                       oklc_arg_mem(x), oklc_arg_mem(y)};
    assert_ok(oklc_kernel_run(k, 4, args));
    assert_ok(oklc_memory_copy_to_host(y, f ? (void *)fy : hy, N * size, 0));
    for (int i = 0; i < N; i++)
        assert_true((f ? fy[i] : hy[i]) == 3.0 * i + 1);
    oklc_memory_free(x);
    oklc_memory_free(y);
}

/* ---- typed memory --------------------------------------------------------------- */

/* binary16 by hand: C11 has no half type to compare with */
static void half_conversions(void **state)
{
    (void)state;
    static const struct {
        float f;
        uint16_t h;
    } exact[] = {
        {0.0f, 0x0000}, {-0.0f, 0x8000}, {1.0f, 0x3c00}, {-2.0f, 0xc000}, {0.5f, 0x3800},
        {65504.0f, 0x7bff},                   /* the largest */
        {0x1p-14f, 0x0400},                   /* the smallest normal */
        {0x1p-24f, 0x0001}, {0x3p-24f, 0x0003}, /* subnormals */
        {INFINITY, 0x7c00}, {-INFINITY, 0xfc00},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        assert_int_equal(oklc_half_from_float(exact[i].f), exact[i].h);
        assert_true(oklc_half_to_float(exact[i].h) == exact[i].f);
    }
    static const struct {
        float f;
        uint16_t h;
    } rounded[] = {
        {1.0f + 0x1p-11f, 0x3c00},            /* a tie: to the even 1.0 */
        {1.0f + 0x3p-11f, 0x3c02},            /* a tie: to the even 1 + 2^-9 */
        {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01}, /* above the tie: up */
        {65520.0f, 0x7c00},                   /* half way past the largest: infinity */
        {65519.0f, 0x7bff}, {1e10f, 0x7c00}, {-1e10f, 0xfc00},
        {0x1p-25f, 0x0000},                   /* a tie: to the even 0 */
        {0x1.8p-25f, 0x0001}, {0x1p-30f, 0x0000}, {0x1p-140f, 0x0000},
        {0x1.ffep-15f, 0x0400},               /* a subnormal rounded to a normal */
    };
    for (size_t i = 0; i < sizeof rounded / sizeof rounded[0]; i++)
        assert_int_equal(oklc_half_from_float(rounded[i].f), rounded[i].h);
    uint16_t nan = oklc_half_from_float(NAN);
    assert_true((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff));
    assert_true(isnan(oklc_half_to_float(0x7e00)));
    for (uint32_t h = 0; h < 0x10000; h++)    /* every half goes there and back */
        if ((h & 0x7c00) != 0x7c00 || !(h & 0x3ff))
            assert_int_equal(oklc_half_from_float(oklc_half_to_float((uint16_t)h)), h);
}

static void typed_memory(void **state)
{
    (void)state;
    static const struct {
        oklc_type t;
        const char *name;
        size_t size;
    } types[] = {
        {OKLC_TYPE_BOOL, "bool", 1},      {OKLC_TYPE_CHAR, "char", 1},
        {OKLC_TYPE_INT8, "signed char", 1}, {OKLC_TYPE_UINT8, "uchar", 1},
        {OKLC_TYPE_INT16, "short", 2},    {OKLC_TYPE_UINT16, "ushort", 2},
        {OKLC_TYPE_INT32, "int", 4},      {OKLC_TYPE_UINT32, "uint", 4},
        {OKLC_TYPE_INT64, "long", 8},     {OKLC_TYPE_UINT64, "ulong", 8},
        {OKLC_TYPE_FLOAT, "float", 4},    {OKLC_TYPE_DOUBLE, "double", 8},
        {OKLC_TYPE_INT2, "int2", 8},      {OKLC_TYPE_INT4, "int4", 16},
        {OKLC_TYPE_FLOAT2, "float2", 8},  {OKLC_TYPE_FLOAT4, "float4", 16},
        {OKLC_TYPE_DOUBLE2, "double2", 16}, {OKLC_TYPE_DOUBLE4, "double4", 32},
        {OKLC_TYPE_HALF, "half", 2},
    };
    oklc_device *d = open_dev("serial");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        assert_string_equal(oklc_type_name(types[i].t), types[i].name);
        assert_int_equal(oklc_type_size(types[i].t), types[i].size);
        oklc_memory *m;
        assert_ok(oklc_memory_alloc_typed(d, types[i].t, 10, &m));
        assert_int_equal(oklc_memory_size(m), 10 * types[i].size);
        assert_int_equal(oklc_memory_type(m), types[i].t);
        oklc_memory_free(m);
    }
    assert_null(oklc_type_name(OKLC_TYPE_NONE));
    assert_int_equal(oklc_type_size((oklc_type)99), 0);
    oklc_memory *m = (oklc_memory *)1;
    assert_ok(oklc_memory_alloc(d, 16, &m));
    assert_int_equal(oklc_memory_type(m), OKLC_TYPE_NONE);
    oklc_memory_free(m);
    assert_int_equal(oklc_memory_type(NULL), OKLC_TYPE_NONE);
    assert_fails(oklc_memory_alloc_typed(d, OKLC_TYPE_NONE, 4, &m), OKLC_ERR_ARGUMENT,
                 "oklc_memory_alloc_typed: 0 is no element type");
    assert_null(m);
    assert_fails(oklc_memory_alloc_typed(d, OKLC_TYPE_DOUBLE, SIZE_MAX / 4, &m),
                 OKLC_ERR_MEMORY, "elements of double: more than any memory can hold");
    oklc_device_close(d);
}

/* ---- the metadata ------------------------------------------------------------------ */

static void metadata_templates(void **state)
{
    (void)state;
    oklc_ctx *c = oklc_ctx_new();
    oklc_set_backend(c, OKLC_BACKEND_SERIAL);
    assert_true(oklc_transpile_buffer(c, "t.okl", source, strlen(source), 0));
    const char *m = oklc_metadata(c, NULL);
    assert_non_null(strstr(m, "\"templates\""));
    /* compact: no blanks */
    char flat[8192];
    size_t n = 0;
    for (const char *p = m; *p && n < sizeof flat - 1; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n')
            flat[n++] = *p;
    flat[n] = '\0';
    assert_non_null(strstr(flat, "{\"name\":\"axpy\",\"parameters\":[{\"name\":\"T\",\"kind\":"
                                 "\"type\",\"default\":null},{\"name\":\"B\",\"kind\":\"value\","
                                 "\"type\":\"int\",\"default\":\"8\"}],\"arguments\":[{\"name\":"
                                 "\"n\",\"type\":\"constint\",\"pointer\":false,\"deduces\":null},"
                                 "{\"name\":\"a\",\"type\":\"constT\",\"pointer\":false,"
                                 "\"deduces\":\"T\"},{\"name\":\"x\",\"type\":\"constT*\","
                                 "\"pointer\":true,\"deduces\":\"T\"}"));
    oklc_ctx_free(c);
    /* a file without templates: no "templates" key, the metadata as before */
    c = oklc_ctx_new();
    oklc_set_backend(c, OKLC_BACKEND_SERIAL);
    const char *plain = "@kernel void k(int n) { for (int i = 0; i < n; ++i; @outer) "
                        "{ for (int j = 0; j < 1; ++j; @inner) {} } }\n";
    assert_true(oklc_transpile_buffer(c, "p.okl", plain, strlen(plain), 0));
    assert_null(strstr(oklc_metadata(c, NULL), "templates"));
    oklc_ctx_free(c);
}

/* ---- deduction ------------------------------------------------------------------------ */

static void deduce_float_and_double(void **state)
{
    (void)state;
    fresh_cache();
    for (int dev = 0; dev < 2; dev++) {
        oklc_device *d = open_dev(dev ? "mode=openmp threads=2" : "serial");
        long before = oklc_rt_compile_count();
        oklc_kernel *k = build(d, "axpy", NULL);
        assert_int_equal(oklc_rt_compile_count(), before);    /* nothing compiled yet */
        assert_int_equal(oklc_kernel_arg_count(k), 4);
        axpy(d, k, OKLC_TYPE_FLOAT);
        assert_int_equal(oklc_rt_compile_count(), before + 1);
        axpy(d, k, OKLC_TYPE_DOUBLE);
        assert_int_equal(oklc_rt_compile_count(), before + 2);
        axpy(d, k, OKLC_TYPE_FLOAT);    /* the instance kept */
        axpy(d, k, OKLC_TYPE_DOUBLE);
        assert_int_equal(oklc_rt_compile_count(), before + 2);
        oklc_kernel_free(k);
        /* a new kernel object: the instances come from the cache */
        k = build(d, "axpy", NULL);
        axpy(d, k, OKLC_TYPE_DOUBLE);
        axpy(d, k, OKLC_TYPE_FLOAT);
        assert_int_equal(oklc_rt_compile_count(), before + 2);
        oklc_kernel_free(k);
        /* the instance named by hand is the same cache entry */
        oklc_kernel *named;
        assert_ok(oklc_kernel_build_string(d, "t.okl", source, "axpy<float, 8>", NULL, &named));
        assert_int_equal(oklc_rt_compile_count(), before + 2);
        oklc_kernel_free(named);
        oklc_device_close(d);
    }
}

/* Two types, each from its own memory; an int scalar deduces nothing
 * here (n is `const int`). */
static void deduce_two_types(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    oklc_kernel *k = build(d, "widen", NULL);
    oklc_memory *x, *y;
    int hx[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double hy[8];
    assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_INT32, 8, &x));
    assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_DOUBLE, 8, &y));
    assert_ok(oklc_memory_copy_from_host(x, hx, sizeof hx, 0));
    oklc_arg args[] = {oklc_arg_int(8), oklc_arg_mem(x), oklc_arg_mem(y)};
    assert_ok(oklc_kernel_run(k, 3, args));
    assert_ok(oklc_memory_copy_to_host(y, hy, sizeof hy, 0));
    for (int i = 0; i < 8; i++)
        assert_true(hy[i] == 2.0 * hx[i]);
    oklc_memory_free(x);
    oklc_memory_free(y);
    oklc_kernel_free(k);
    oklc_device_close(d);
}

static void deduce_errors(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    oklc_kernel *k = build(d, "axpy", NULL);
    oklc_memory *untyped, *f, *dbl;
    assert_ok(oklc_memory_alloc(d, N * sizeof(float), &untyped));
    assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_FLOAT, N, &f));
    assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_DOUBLE, N, &dbl));
    long before = oklc_rt_compile_count();

    oklc_arg untyped_args[] = {oklc_arg_int(N), oklc_arg_float(1), oklc_arg_mem(untyped),
                               oklc_arg_mem(f)};
    assert_fails(oklc_kernel_run(k, 4, untyped_args), OKLC_ERR_ARGUMENT,
                 "cannot deduce template parameter 'T' of 'axpy' from argument 3 ('x', "
                 "'const T *'): its memory is untyped (allocate it with "
                 "oklc_memory_alloc_typed)");
    oklc_arg conflict[] = {oklc_arg_int(N), oklc_arg_double(1), oklc_arg_mem(f),
                           oklc_arg_mem(f)};
    assert_fails(oklc_kernel_run(k, 4, conflict), OKLC_ERR_ARGUMENT,
                 "template parameter 'T' of 'axpy' is deduced as 'double' from argument 2 "
                 "('a') and as 'float' from argument 3 ('x')");
    oklc_arg conflict2[] = {oklc_arg_int(N), oklc_arg_float(1), oklc_arg_mem(f),
                            oklc_arg_mem(dbl)};
    assert_fails(oklc_kernel_run(k, 4, conflict2), OKLC_ERR_ARGUMENT,
                 "is deduced as 'float' from argument 2 ('a') and as 'double' from argument 4 "
                 "('y')");
    float s = 1;
    oklc_arg by_struct[] = {oklc_arg_int(N), oklc_arg_struct(&s, sizeof s), oklc_arg_mem(f),
                            oklc_arg_mem(f)};
    assert_fails(oklc_kernel_run(k, 4, by_struct), OKLC_ERR_ARGUMENT,
                 "cannot deduce template parameter 'T' of 'axpy' from argument 2 ('a', "
                 "'const T'): a struct was given, not a scalar");
    oklc_arg not_memory[] = {oklc_arg_int(N), oklc_arg_float(1), oklc_arg_float(2),
                             oklc_arg_mem(f)};
    assert_fails(oklc_kernel_run(k, 4, not_memory), OKLC_ERR_ARGUMENT,
                 "argument 3 ('x') of 'axpy' is 'const T *', but no memory was given");
    assert_fails(oklc_kernel_run(k, 3, not_memory), OKLC_ERR_ARGUMENT,
                 "'axpy' takes 4 arguments, but 3 were given");
    /* deduced, then the instance checks what deduction does not: n */
    oklc_arg long_n[] = {oklc_arg_long(N), oklc_arg_float(1), oklc_arg_mem(f),
                         oklc_arg_mem(f)};
    assert_fails(oklc_kernel_run(k, 4, long_n), OKLC_ERR_ARGUMENT,
                 "argument 1 ('n') of 'axpy<float, 8>' is 'const int', but a long was given");
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    oklc_kernel_free(k);

    /* a non-type parameter nothing gives */
    k = build(d, "fill", NULL);
    oklc_arg fill_args[] = {oklc_arg_mem(f)};
    assert_fails(oklc_kernel_run(k, 1, fill_args), OKLC_ERR_ARGUMENT,
                 "cannot instantiate 'fill': template parameter 'N' is not deduced from the "
                 "arguments and has no default (give it with oklc_props_template_arg(props, "
                 "\"N\", ...) before oklc_kernel_build)");
    oklc_kernel_free(k);
    /* a type parameter nothing deduces */
    oklc_props *p = oklc_props_new();
    k = build(d, "widen", p);
    oklc_arg widen_args[] = {oklc_arg_int(N), oklc_arg_mem(f), oklc_arg_mem(untyped)};
    assert_fails(oklc_kernel_run(k, 3, widen_args), OKLC_ERR_ARGUMENT,
                 "cannot deduce template parameter 'U' of 'widen' from argument 3");
    oklc_kernel_free(k);
    /* a props argument that names no parameter */
    assert_ok(oklc_props_template_arg(p, "M", "4"));
    oklc_kernel *none = (oklc_kernel *)1;
    assert_fails(oklc_kernel_build_string(d, "t.okl", source, "fill", p, &none),
                 OKLC_ERR_ARGUMENT, "oklc_props_template_arg names 'M', which is no template "
                 "parameter of 'fill' (its parameters: T, N)");
    assert_null(none);
    oklc_props_free(p);
    /* an explicit type the arguments contradict */
    p = oklc_props_new();
    assert_ok(oklc_props_template_arg(p, "T", "double"));
    k = build(d, "axpy", p);
    oklc_arg f_args[] = {oklc_arg_int(N), oklc_arg_float(1), oklc_arg_mem(f), oklc_arg_mem(f)};
    assert_fails(oklc_kernel_run(k, 4, f_args), OKLC_ERR_ARGUMENT,
                 "template parameter 'T' of 'axpy' is 'double' (oklc_props_template_arg), but "
                 "argument 2 ('a') deduces 'float'");
    oklc_kernel_free(k);
    oklc_props_free(p);
    /* bad props calls */
    assert_fails(oklc_props_template_arg(NULL, "T", "float"), OKLC_ERR_ARGUMENT,
                 "props is NULL");
    p = oklc_props_new();
    assert_fails(oklc_props_template_arg(p, "T", ""), OKLC_ERR_ARGUMENT,
                 "an empty or NULL name or value");
    oklc_props_free(p);

    oklc_memory_free(untyped);
    oklc_memory_free(f);
    oklc_memory_free(dbl);
    oklc_device_close(d);
}

/* N from the props; the same name again replaces the value; B's default
 * is used when the props do not give it, replaced when they do. */
static void non_type_from_props(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    oklc_props *p = oklc_props_new();
    assert_ok(oklc_props_template_arg(p, "N", "5"));
    assert_ok(oklc_props_template_arg(p, "N", "6"));
    oklc_kernel *k = build(d, "fill", p);
    oklc_props_free(p);    /* the kernel keeps a copy */
    int h[8] = {0};
    oklc_memory *m;
    assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_INT32, 8, &m));
    assert_ok(oklc_memory_copy_from_host(m, h, sizeof h, 0));
    oklc_arg args[] = {oklc_arg_mem(m)};
    assert_ok(oklc_kernel_run(k, 1, args));
    assert_ok(oklc_memory_copy_to_host(m, h, sizeof h, 0));
    for (int i = 0; i < 8; i++)
        assert_int_equal(h[i], i < 6 ? i + 6 : 0);
    oklc_kernel_free(k);
    oklc_memory_free(m);

    p = oklc_props_new();
    assert_ok(oklc_props_template_arg(p, "B", "16"));
    k = build(d, "axpy", p);
    long before = oklc_rt_compile_count();
    axpy(d, k, OKLC_TYPE_FLOAT);    /* axpy<float, 16>: another instance than <float, 8> */
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    oklc_kernel_free(k);
    oklc_props_free(p);
    oklc_device_close(d);
}

static void build_only_and_plain(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    char *binary = NULL;
    FILE *f;
    char file[4200];
    snprintf(file, sizeof file, "%s/t.okl", work);
    f = fopen(file, "w");
    assert_non_null(f);
    fputs(source, f);
    fclose(f);
    assert_fails(oklc_kernel_build_only(d, file, "axpy", NULL, &binary), OKLC_ERR_ARGUMENT,
                 "'axpy' of '");
    assert_non_null(strstr(oklc_last_error(), "is a template kernel: build an instance of it"));
    assert_null(binary);
    assert_ok(oklc_kernel_build_only(d, file, "axpy<double, 4>", NULL, &binary));
    free(binary);
    /* a kernel that is no template is built at once, as before */
    long before = oklc_rt_compile_count();
    oklc_kernel *k = build(d, "plain", NULL);
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    assert_null(k->tmpl);
    oklc_kernel_free(k);
    /* a template by file, run from another folder: the path was made absolute */
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(work), 0);
    assert_ok(oklc_kernel_build(d, "t.okl", "axpy", NULL, &k));
    assert_int_equal(chdir("/"), 0);
    axpy(d, k, OKLC_TYPE_DOUBLE);
    assert_int_equal(chdir(cwd), 0);
    oklc_kernel_free(k);
    /* a template kernel's errors still come at build time */
    static const char bad[] = "template <typename T>\n@kernel void k(T *x) { x[0] = 1; }\n";
    assert_fails(oklc_kernel_build_string(d, "bad.okl", bad, "k", NULL, &k),
                 OKLC_ERR_TRANSPILE, "bad.okl:2:");
    oklc_device_close(d);
}

/* A second process running the float and double instances compiles
 * nothing: they are ordinary cache entries. */
static void second_process_compiles_nothing(void **state)
{
    (void)state;
    fresh_cache();
    for (int round = 0; round < 2; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            long before = oklc_rt_compile_count();    /* the parent's, inherited */
            oklc_device *d;
            oklc_kernel *k;
            if (oklc_device_open("serial", &d) ||
                oklc_kernel_build_string(d, "t.okl", source, "axpy", NULL, &k))
                _exit(90);
            float x[4] = {1, 2, 3, 4};
            double y[4] = {1, 2, 3, 4};
            oklc_memory *mf, *md;
            if (oklc_memory_alloc_typed(d, OKLC_TYPE_FLOAT, 4, &mf) ||
                oklc_memory_alloc_typed(d, OKLC_TYPE_DOUBLE, 4, &md) ||
                oklc_memory_copy_from_host(mf, x, sizeof x, 0) ||
                oklc_memory_copy_from_host(md, y, sizeof y, 0))
                _exit(91);
            oklc_arg af[] = {oklc_arg_int(4), oklc_arg_float(2), oklc_arg_mem(mf),
                             oklc_arg_mem(mf)};
            oklc_arg ad[] = {oklc_arg_int(4), oklc_arg_double(2), oklc_arg_mem(md),
                             oklc_arg_mem(md)};
            if (oklc_kernel_run(k, 4, af) || oklc_kernel_run(k, 4, ad))
                _exit(92);
            oklc_memory_copy_to_host(mf, x, sizeof x, 0);
            oklc_memory_copy_to_host(md, y, sizeof y, 0);
            if (x[3] != 12 || y[3] != 12)
                _exit(93);
            oklc_memory_free(mf);
            oklc_memory_free(md);
            oklc_kernel_free(k);
            oklc_device_close(d);
            _exit((int)(oklc_rt_compile_count() - before));    /* what it compiled */
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), round == 0 ? 2 : 0);
    }
}

/* ---- threads and memory ------------------------------------------------------------- */

typedef struct Runner {
    oklc_device *d;
    oklc_kernel *k;
    oklc_type    type;
    bool         ok;
} Runner;

static void *run_in_thread(void *arg)
{
    Runner *r = arg;
    bool f = r->type == OKLC_TYPE_FLOAT;
    float fx[N];
    double dx[N];
    oklc_memory *x;
    r->ok = !oklc_memory_alloc_typed(r->d, r->type, N, &x);
    for (int i = 0; i < N; i++)
        fx[i] = (float)(dx[i] = i);
    r->ok = r->ok && !oklc_memory_copy_from_host(x, f ? (void *)fx : dx,
                                                 N * oklc_type_size(r->type), 0);
    oklc_arg args[] = {oklc_arg_int(N), f ? oklc_arg_float(1) : oklc_arg_double(1),
                       oklc_arg_mem(x), oklc_arg_mem(x)};
    for (int round = 0; round < 3 && r->ok; round++)
        r->ok = !oklc_kernel_run(r->k, 4, args);
    r->ok = r->ok && !oklc_memory_copy_to_host(x, f ? (void *)fx : dx,
                                               N * oklc_type_size(r->type), 0);
    for (int i = 0; i < N && r->ok; i++)
        r->ok = (f ? fx[i] : dx[i]) == 8.0 * i;
    oklc_memory_free(x);
    return NULL;
}

static void threads_share_instances(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    oklc_kernel *k = build(d, "axpy", NULL);
    long before = oklc_rt_compile_count();
    Runner r[6];
    pthread_t th[6];
    for (int i = 0; i < 6; i++) {
        r[i] = (Runner){d, k, i % 2 ? OKLC_TYPE_DOUBLE : OKLC_TYPE_FLOAT, false};
        assert_int_equal(pthread_create(&th[i], NULL, run_in_thread, &r[i]), 0);
    }
    for (int i = 0; i < 6; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_true(r[i].ok);
    }
    assert_int_equal(oklc_rt_compile_count(), before + 2);
    oklc_kernel_free(k);
    oklc_device_close(d);
}

/* Allocations of a template kernel's build, then of its first run (the
 * deduction, the instance's build and load), failing in turn: an error
 * that says so, never a crash or a leak (ASan). The instance is in the
 * cache already, so each round transpiles and loads only. */
static void allocations_fail(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    oklc_props *p = oklc_props_new();
    assert_ok(oklc_props_template_arg(p, "B", "8"));
    oklc_kernel *k = build(d, "axpy", p);
    axpy(d, k, OKLC_TYPE_FLOAT);    /* in the cache now */
    oklc_kernel_free(k);
    oklc_memory *x;
    assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_FLOAT, 4, &x));
    oklc_arg args[] = {oklc_arg_int(4), oklc_arg_float(1), oklc_arg_mem(x), oklc_arg_mem(x)};
    for (int phase = 0; phase < 2; phase++) {
        bool reached = true;    /* the n-th allocation happened (and failed) */
        long n;
        for (n = 1; reached; n += n < 100 ? 1 : n / 8) {
            k = NULL;
            if (phase == 1)
                k = build(d, "axpy", p);
            fail_allocation(n);
            oklc_status st = phase == 0
                                 ? oklc_kernel_build_string(d, "t.okl", source, "axpy", p, &k)
                                 : oklc_kernel_run(k, 4, args);
            oklc_set_alloc_hook(NULL, NULL);
            reached = alloc_count >= n;
            if (st && st != OKLC_ERR_MEMORY)
                assert_non_null(strstr(oklc_last_error(), "out of memory"));
            if (!reached)
                assert_ok(st);
            if (phase == 0 && st)
                assert_null(k);
            oklc_kernel_free(k);
        }
        assert_true(n > 5);
    }
    oklc_memory_free(x);
    oklc_props_free(p);
    oklc_device_close(d);
}

static int setup(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/oklc-template-XXXXXX";
    if (!mkdtemp(tmpl) || !realpath(tmpl, work))
        return -1;
    unsetenv("OKLC_CXX");
    unsetenv("OKLC_CXXFLAGS");
    unsetenv("OKLC_VERBOSE");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    oklc_rt_remove_tree(work);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_memory),
        cmocka_unit_test(half_conversions),
        cmocka_unit_test(metadata_templates),
        cmocka_unit_test(deduce_float_and_double),
        cmocka_unit_test(deduce_two_types),
        cmocka_unit_test(deduce_errors),
        cmocka_unit_test(non_type_from_props),
        cmocka_unit_test(build_only_and_plain),
        cmocka_unit_test(second_process_compiles_nothing),
        cmocka_unit_test(threads_share_instances),
        cmocka_unit_test(allocations_fail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
