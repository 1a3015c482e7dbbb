/*
 * runtime_helpers.h - what the runtime's unit tests (test_runtime.c for the
 * CPU devices, test_runtime_gpu.c for the GPU-like ones) share: the run's
 * temporary folder with a fresh cache per test, checks of a status and its
 * message, and the kernels every device runs alike, each device in its own
 * language: addVectors, `get` (one int out), integers and floats of every
 * size with a struct ("mixed"), 60 arguments of every kind ("many").
 *
 * Static, one copy per test program; include it after cmocka.h. Every
 * function here is used by both tests (an unused one would warn).
 */
#ifndef OKLC_TEST_RUNTIME_HELPERS_H
#define OKLC_TEST_RUNTIME_HELPERS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failing_alloc.h"
#include "runtime/rt.h"    /* struct internals, compile and launch counts */

static char work[4096];    /* the temporary folder of this run */
static int serial_no;

/* ---- the run's folder ------------------------------------------------------------- */

static char *work_path(const char *name)
{
    static char path[8][4200];
    static int next;
    char *p = path[next++ % 8];
    int n = snprintf(p, sizeof path[0], "%s/%s", work, name);
    if (n < 0 || (size_t)n >= sizeof path[0])
        abort();                         /* a test's own name: never that long */
    return p;
}

/* A new empty cache folder (not created yet: the runtime creates it). */
static const char *fresh_cache(void)
{
    char name[64];
    snprintf(name, sizeof name, "cache%d", ++serial_no);
    char *p = work_path(name);
    setenv("OKLC_CACHE_DIR", p, 1);
    return p;
}

static const char *put(const char *name, const char *text)
{
    char *p = work_path(name);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", p);
    *strrchr(dir, '/') = '\0';
    assert_int_equal(oklc_rt_mkdirs(dir, 0700), OKLC_OK);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static int entries(const char *dir)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(f, "%d", &n), 1);
    pclose(f);
    return n;
}

/* The group's setup: the folder /tmp/<name>-XXXXXX, and none of the
 * variables that change how kernels compile. */
static int setup_work(const char *name)
{
    char tmpl[256];
    snprintf(tmpl, sizeof tmpl, "/tmp/%s-XXXXXX", name);
    if (!mkdtemp(tmpl) || !realpath(tmpl, work))
        return -1;
    unsetenv("OKLC_CXX");
    unsetenv("OKLC_CXXFLAGS");
    unsetenv("OKLC_VERBOSE");
    return getenv("OKLC_TEST_DATA") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (getenv("OKLC_TEST_KEEP_WORK"))    /* to look at after a failure */
        return 0;
    oklc_rt_remove_tree(work);
    return 0;
}

/* ---- checks ----------------------------------------------------------------------- */

static void assert_ok(oklc_status st)
{
    if (st != OKLC_OK)
        fail_msg("%s: %s", oklc_status_name(st), oklc_last_error());
}

/* The call failed with `want` and a message containing `part`. */
static void assert_fails(oklc_status st, oklc_status want, const char *part)
{
    if (st != want || !strstr(oklc_last_error(), part))
        fail_msg("wanted %s with '%s', got %s: %s", oklc_status_name(want), part,
                 oklc_status_name(st), oklc_last_error());
}

static oklc_device *open_dev(const char *spec)
{
    oklc_device *d = NULL;
    oklc_status st = oklc_device_open(spec, &d);
    if (st)
        fail_msg("%s: %s: %s", spec, oklc_status_name(st), oklc_last_error());
    return d;
}

static oklc_props *native(void)
{
    oklc_props *p = oklc_props_new();
    assert_ok(oklc_props_okl(p, false));
    return p;
}

/* The cache entry of kernel `name` of the native source at `path`, built
 * on d with default props (free it). */
static char *build_native(oklc_device *d, const char *path, const char *name)
{
    oklc_props *p = native();
    char *dir;
    assert_ok(oklc_kernel_build_only(d, path, name, p, &dir));
    oklc_props_free(p);
    return dir;
}

/* Runs `run(dir)` with each allocation in turn failing, until it succeeds:
 * every run ends in OKLC_OK or OKLC_ERR_MEMORY saying "out of memory",
 * and nothing leaks (under ASan); it took more than 10 runs. */
static void fails_cleanly(oklc_status (*run)(const char *dir), const char *dir)
{
    oklc_status st = OKLC_ERR_MEMORY;
    long n;
    for (n = 1; st == OKLC_ERR_MEMORY && n < 10000; n++) {
        fail_allocation(n);
        st = run(dir);
        oklc_set_alloc_hook(NULL, NULL);
        if (st == OKLC_ERR_MEMORY)
            assert_string_equal(oklc_last_error(), "out of memory");
    }
    assert_ok(st);
    assert_true(n > 10);
}

/* ---- kernels every device runs ------------------------------------------------------ */

/* Runs addVectors(n, a, b, ab) and checks ab = a + b. */
static void check_add(oklc_device *d, oklc_kernel *k)
{
    enum { N = 1000 };
    float a[N], b[N], ab[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    oklc_memory *ma, *mb, *mab;
    assert_ok(oklc_memory_alloc(d, sizeof a, &ma));
    assert_ok(oklc_memory_alloc(d, sizeof b, &mb));
    assert_ok(oklc_memory_alloc(d, sizeof ab, &mab));
    assert_ok(oklc_memory_copy_from_host(ma, a, sizeof a, 0));
    assert_ok(oklc_memory_copy_from_host(mb, b, sizeof b, 0));
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab)};
    assert_ok(oklc_kernel_run(k, 4, args));
    assert_ok(oklc_device_finish(d));
    assert_ok(oklc_memory_copy_to_host(mab, ab, sizeof ab, 0));
    for (int i = 0; i < N; i++)
        assert_true(ab[i] == (float)(3 * i));
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(mab);
}

/* Runs `get`, whose one argument is where it stores an int; returns it. */
static int get_value(oklc_device *d, oklc_kernel *k)
{
    oklc_memory *m;
    int v = -1;
    assert_ok(oklc_memory_alloc(d, sizeof v, &m));
    oklc_arg arg = oklc_arg_mem(m);
    assert_ok(oklc_kernel_run(k, 1, &arg));
    assert_ok(oklc_memory_copy_to_host(m, &v, sizeof v, 0));
    oklc_memory_free(m);
    return v;
}

/* A memory of 100 bytes on d with in (0, 1, ...) copied into it, and a
 * part of it copied back into out. */
static oklc_memory *memory_100(oklc_device *d, char in[100], char out[100])
{
    oklc_memory *m;
    assert_ok(oklc_memory_alloc(d, 100, &m));
    assert_int_equal(oklc_memory_size(m), 100);
    for (int i = 0; i < 100; i++)
        in[i] = (char)i;
    assert_ok(oklc_memory_copy_from_host(m, in, 100, 0));
    assert_ok(oklc_memory_copy_to_host(m, out, 10, 90));
    assert_memory_equal(out, in + 90, 10);
    return m;
}

/* Native props with `define`, the include path <dir>/inc (its extra.h:
 * EXTRA 30) and the included file <dir>/pre.h (PRE 200); <dir>/local.h
 * (LOCAL 4000) is there for the kernel's own "..." include. */
static oklc_props *props_with_includes(const char *dir, const char *define)
{
    static const char *const files[][2] = {{"inc/extra.h", "#define EXTRA 30\n"},
                                           {"pre.h", "#define PRE 200\n"},
                                           {"local.h", "#define LOCAL 4000\n"}};
    char name[256];
    for (size_t i = 0; i < OKLC_COUNTOF(files); i++) {
        snprintf(name, sizeof name, "%s/%s", dir, files[i][0]);
        put(name, files[i][1]);
    }
    oklc_props *p = native();
    assert_ok(oklc_props_define(p, define));
    snprintf(name, sizeof name, "%s/inc", dir);
    assert_ok(oklc_props_include_path(p, work_path(name)));
    snprintf(name, sizeof name, "%s/pre.h", dir);
    assert_ok(oklc_props_include_file(p, work_path(name)));
    return p;
}

/* Builds `get` of `text`, which has an error, on the device `spec` in a
 * fresh cache: OKLC_ERR_COMPILE with `part`, no kernel, and the source
 * and the log stay in failed/<key>, the only folder in the cache, no
 * temporary one left. Returns the message. */
static const char *compile_fails(const char *spec, const char *file, const char *text,
                                 const char *part)
{
    const char *cache = fresh_cache();
    const char *path = put(file, text);
    oklc_props *p = native();
    oklc_device *d = open_dev(spec);
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, path, "get", p, &k), OKLC_ERR_COMPILE, part);
    assert_null(k);
    const char *at = strstr(oklc_last_error(), "stay in ");
    assert_non_null(at);    /* where the source and the log stay */
    char kept[4300], path_in[4400];
    snprintf(kept, sizeof kept, "%.*s", (int)strcspn(at + 8, ")\n"), at + 8);
    assert_non_null(strstr(kept, "/failed/"));
    snprintf(path_in, sizeof path_in, "%s/build.log", kept);
    assert_int_equal(access(path_in, R_OK), 0);
    snprintf(path_in, sizeof path_in, "%s/failed", cache);
    assert_int_equal(entries(cache), 1);    /* only failed/ */
    assert_int_equal(entries(path_in), 1);     /* that build */
    oklc_device_close(d);
    oklc_props_free(p);
    return oklc_last_error();
}

/* ---- mixed: integers of 1, 2, 4 and 8 bytes, float, double, a struct --------------- */

typedef struct Pair {
    short  s;
    double d;
} Pair;

/* The metadata's arguments of mixed(out, c, s, N, l, f, d, p), as the
 * transpiler writes them: the size says which int or float. */
#define MIXED_ARGUMENTS                                                               \
    "\"arguments\": ["                                                                \
    "{\"name\": \"out\", \"type\": \"double *\", \"kind\": \"memory\", \"size\": 8}," \
    "{\"name\": \"c\", \"type\": \"signed char\", \"kind\": \"int\", \"size\": 1},"   \
    "{\"name\": \"s\", \"type\": \"short\", \"kind\": \"int\", \"size\": 2},"         \
    "{\"name\": \"N\", \"type\": \"const int\", \"kind\": \"int\", \"size\": 4},"     \
    "{\"name\": \"l\", \"type\": \"long\", \"kind\": \"int\", \"size\": 8},"          \
    "{\"name\": \"f\", \"type\": \"float\", \"kind\": \"float\", \"size\": 4},"       \
    "{\"name\": \"d\", \"type\": \"double\", \"kind\": \"float\", \"size\": 8},"      \
    "{\"name\": \"p\", \"type\": \"Pair\", \"kind\": \"struct\", \"size\": 16}]}]}"

/* A run of mixed: its output memory, and arguments the tests then spoil. */
typedef struct Mixed {
    oklc_memory *out;
    Pair         pair;
    oklc_arg     args[8];
} Mixed;

/* Runs mixed with a value of each kind and checks the sums; 7 arguments
 * are refused. */
static void run_mixed(oklc_device *d, oklc_kernel *k, Mixed *m)
{
    assert_int_equal(oklc_kernel_arg_count(k), 8);
    assert_ok(oklc_memory_alloc(d, 2 * sizeof(double), &m->out));
    m->pair = (Pair){-3, 0.25};
    const oklc_arg args[] = {oklc_arg_mem(m->out),  oklc_arg_int(-100),
                             oklc_arg_int(30000),   oklc_arg_int(7),
                             oklc_arg_long(1LL << 40), oklc_arg_float(0.5f),
                             oklc_arg_double(0.125), oklc_arg_struct(&m->pair, sizeof m->pair)};
    memcpy(m->args, args, sizeof args);
    assert_ok(oklc_kernel_run(k, 8, m->args));
    double got[2];
    assert_ok(oklc_memory_copy_to_host(m->out, got, sizeof got, 0));
    assert_true(got[0] == -100 + 30000 + 7 + (double)(1LL << 40) + 0.5 + 0.125);
    assert_true(got[1] == -3 + 0.25);
    assert_fails(oklc_kernel_run(k, 7, m->args), OKLC_ERR_ARGUMENT,
                 "'mixed' takes 8 arguments, but 7 were given");
}

/* Memory of another device of `spec` is refused; then m's memory goes. */
static void end_mixed(oklc_kernel *k, Mixed *m, const char *spec)
{
    oklc_device *other = open_dev(spec);
    oklc_memory *foreign;
    assert_ok(oklc_memory_alloc(other, 16, &foreign));
    m->args[0] = oklc_arg_mem(foreign);
    assert_fails(oklc_kernel_run(k, 8, m->args), OKLC_ERR_ARGUMENT, "memory of another device");
    oklc_memory_free(foreign);
    oklc_device_close(other);
    oklc_memory_free(m->out);
}

/* ---- many: 60 arguments of every kind ----------------------------------------------- */

enum { MANY = 60 };

typedef struct S {
    int    a;
    double b;
} S;

/* Argument i (but the last, the output): int, long, float, double, struct,
 * memory, in turn; the kernel sums them, weighted by position. Each test
 * has the types (types[i % 6]) in its device's language. */
static const char *const many_kinds[] = {"int", "int", "float", "float", "struct", "memory"};
static const int many_sizes[] = {4, 8, 4, 8, 16, 8};

/* The kernel's sum, a line per argument, appended at p: `read[i % 6]`
 * reads argument i (its %d is i). Returns the end. */
static char *many_sum(char *p, const char *const read[6], const char *indent)
{
    for (int i = 0; i < MANY - 1; i++) {
        char term[128];
        snprintf(term, sizeof term, read[i % 6], i, i);
        p += sprintf(p, "%ssum += %d.0 * %s;\n", indent, i + 1, term);
    }
    return p;
}

/* The metadata of many for the backend; `kernel` has the kernel's fields
 * between its name and its arguments. */
static char *many_json(const char *backend, const char *kernel, const char *const types[6])
{
    static char text[16384];
    char *p = text;
    p += sprintf(p, "{\"backend\": \"%s\", \"kernels\": [{\"name\": \"many\", %s\"arguments\": [",
                 backend, kernel);
    for (int i = 0; i < MANY - 1; i++)
        p += sprintf(p, "{\"name\": \"a%d\", \"type\": \"%s\", \"kind\": \"%s\", \"size\": %d},",
                     i, types[i % 6], many_kinds[i % 6], many_sizes[i % 6]);
    sprintf(p, "{\"name\": \"out\", \"type\": \"double *\", \"kind\": \"memory\", "
               "\"size\": 8}]}]}");
    return text;
}

/* The arguments, and the sum the kernel must find. */
static double many_args(oklc_device *d, oklc_arg *args, S *structs, oklc_memory **mems)
{
    double want = 0;
    for (int i = 0; i < MANY - 1; i++) {
        double v = 0;
        switch (i % 6) {
        case 0: args[i] = oklc_arg_int(3 * i - 70), v = 3 * i - 70; break;
        case 1: args[i] = oklc_arg_long((1LL << 40) + i), v = (double)((1LL << 40) + i); break;
        case 2: args[i] = oklc_arg_float(i + 0.5f), v = i + 0.5f; break;
        case 3: args[i] = oklc_arg_double(i * 0.25), v = i * 0.25; break;
        case 4:
            structs[i] = (S){i, i * 0.5};
            args[i] = oklc_arg_struct(&structs[i], sizeof(S));
            v = i + i * 0.5;
            break;
        case 5: {
            double x = 2.0 * i;
            assert_ok(oklc_memory_alloc(d, sizeof x, &mems[i]));
            assert_ok(oklc_memory_copy_from_host(mems[i], &x, sizeof x, 0));
            args[i] = oklc_arg_mem(mems[i]);
            v = x;
        } break;
        }
        want += (i + 1) * v;
    }
    assert_ok(oklc_memory_alloc(d, sizeof(double), &mems[MANY - 1]));
    args[MANY - 1] = oklc_arg_mem(mems[MANY - 1]);
    return want;
}

/* Runs many and checks its sum; a checked kernel refuses an int for
 * memory, naming the parameter's type (types[53 % 6]). */
static void run_many(oklc_device *d, oklc_kernel *k, const char *const types[6])
{
    oklc_arg args[MANY];
    S structs[MANY];
    oklc_memory *mems[MANY] = {0};
    double want = many_args(d, args, structs, mems), got = 0;
    assert_ok(oklc_kernel_run(k, MANY, args));
    assert_ok(oklc_memory_copy_to_host(mems[MANY - 1], &got, sizeof got, 0));
    assert_true(fabs(got - want) <= 1e-9 * fabs(want));
    if (oklc_kernel_arg_count(k) == MANY) {
        char message[256];
        snprintf(message, sizeof message,
                 "argument 54 ('a53') of 'many' is '%s', but an int was given", types[53 % 6]);
        args[53] = oklc_arg_int(1);    /* a memory parameter */
        assert_fails(oklc_kernel_run(k, MANY, args), OKLC_ERR_ARGUMENT, message);
    }
    for (int i = 0; i < MANY; i++)
        oklc_memory_free(mems[i]);
}

/* ---- views, copies between memories, wrapped and host memory, pools ------------------- */

enum { API_N = 1024 };    /* floats of the memory the checks below use */

/* A byte offset a view may start at on d: 64, or the device's alignment. */
static size_t view_offset(const oklc_device *d)
{
    return d->view_align > 64 ? d->view_align : 64;
}

/* x[i] = 2 x[i] + 1 run on a view: the kernel sees the view's elements
 * only (the first of them at its index 0). */
static void scale_through_view(oklc_device *d, oklc_memory *m, const float *in)
{
    static const char scale[] =
        "@kernel void scale(const int n, float *x) {\n"
        "  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner))\n"
        "    x[i] = 2 * x[i] + 1;\n}\n";
    size_t off = view_offset(d);
    oklc_memory *v;
    oklc_kernel *k;
    assert_ok(oklc_memory_view(m, off, 40 * sizeof(float), &v));
    assert_ok(oklc_kernel_build_string(d, "scale.okl", scale, "scale", NULL, &k));
    oklc_arg args[] = {oklc_arg_int(40), oklc_arg_mem(v)};
    assert_ok(oklc_kernel_run(k, 2, args));
    assert_ok(oklc_device_finish(d));
    static float out[API_N];
    assert_ok(oklc_memory_copy_to_host(m, out, sizeof out, 0));
    for (size_t i = 0; i < API_N; i++) {
        bool in_view = i >= off / 4 && i < off / 4 + 40;
        assert_true(out[i] == (in_view ? 2 * in[i] + 1 : in[i]));
    }
    oklc_kernel_free(k);
    oklc_memory_free(v);
}

static void check_views(oklc_device *d, const float *in)
{
    size_t off = view_offset(d), used = oklc_device_memory_used(d);
    oklc_memory *m, *v, *vv;
    float out[16];
    assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_FLOAT, API_N, &m));
    assert_int_equal(oklc_device_memory_used(d), used + API_N * sizeof(float));
    assert_ok(oklc_memory_copy_from_host(m, in, API_N * sizeof(float), 0));
    assert_ok(oklc_memory_view(m, off, 2 * off, &v));
    assert_int_equal(oklc_memory_size(v), 2 * off);
    assert_int_equal(oklc_memory_type(v), OKLC_TYPE_FLOAT);
    if (!d->ops->view)    /* an address: the parent's plus the offset */
        assert_true((uintptr_t)oklc_memory_ptr(v) == (uintptr_t)oklc_memory_ptr(m) + off);
    assert_int_equal(oklc_device_memory_used(d), used + API_N * sizeof(float));
    assert_ok(oklc_memory_copy_to_host(v, out, sizeof out, 4));
    assert_memory_equal(out, in + off / 4 + 1, sizeof out);
    /* a view of a view; writes through it land in the parent */
    assert_ok(oklc_memory_view(v, off, off, &vv));
    float twos[4] = {2, 2, 2, 2};
    assert_ok(oklc_memory_copy_from_host(vv, twos, sizeof twos, 0));
    assert_ok(oklc_memory_copy_to_host(m, out, sizeof out, 2 * off - 8));
    assert_true(out[0] == in[2 * off / 4 - 2] && out[2] == 2 && out[5] == 2 && out[6] != 2);
    /* the parent freed first: its views keep the storage */
    oklc_memory_free(m);
    assert_ok(oklc_memory_copy_to_host(vv, out, sizeof twos, 0));
    assert_memory_equal(out, twos, sizeof twos);
    assert_fails(oklc_memory_view(vv, 0, off + 4, &m), OKLC_ERR_ARGUMENT,
                 "oklc_memory_view: ");
    assert_non_null(strstr(oklc_last_error(), " bytes at offset 0 go past the end of the memory"));
    assert_fails(oklc_memory_view(v, 2, 4, &m), OKLC_ERR_ARGUMENT,
                 "are not whole elements of the memory's type float (4 bytes each)");
    assert_fails(oklc_memory_view(v, SIZE_MAX, 4, &m), OKLC_ERR_ARGUMENT, "past the end");
    assert_fails(oklc_memory_view(NULL, 0, 4, &m), OKLC_ERR_ARGUMENT, "NULL memory");
    assert_null(m);
    oklc_memory_free(v);
    assert_int_equal(oklc_device_memory_used(d), used + API_N * sizeof(float));
    oklc_memory_free(vv);    /* the last: the storage goes */
    assert_int_equal(oklc_device_memory_used(d), used);
}

static void check_copies(oklc_device *d, const float *in, oklc_device *other)
{
    size_t off = view_offset(d), bytes = API_N * sizeof(float);
    oklc_memory *a, *b, *v;
    static float out[API_N];
    assert_ok(oklc_memory_alloc(d, bytes, &a));
    assert_ok(oklc_memory_alloc(d, bytes, &b));
    assert_ok(oklc_memory_copy_from_host(a, in, bytes, 0));
    assert_ok(oklc_memory_copy(b, 0, a, 0, bytes));
    assert_ok(oklc_memory_copy(b, 8, a, 400, 100 * sizeof(float)));
    assert_ok(oklc_memory_copy_to_host(b, out, bytes, 0));
    assert_memory_equal(out, in, 8);
    assert_memory_equal(out + 2, in + 100, 100 * sizeof(float));
    assert_memory_equal(out + 102, in + 102, bytes - 102 * sizeof(float));
    /* within one allocation: apart is a copy, overlapping an error */
    assert_ok(oklc_memory_view(a, off, off, &v));
    assert_ok(oklc_memory_copy(a, 3 * off, v, 0, off));
    assert_ok(oklc_memory_copy_to_host(a, out, bytes, 0));
    assert_memory_equal(out + 3 * off / 4, in + off / 4, off);
    char message[200];
    snprintf(message, sizeof message, "oklc_memory_copy: the 8 bytes at offset 0 of the source "
             "and at offset %zu of the destination overlap in one allocation", off + 4);
    assert_fails(oklc_memory_copy(a, off + 4, v, 0, 8), OKLC_ERR_ARGUMENT, message);
    assert_ok(oklc_memory_copy(a, off + 4, v, 0, 0));    /* nothing: no overlap */
    assert_fails(oklc_memory_copy(b, 0, v, 4, off), OKLC_ERR_ARGUMENT,
                 "go past the end of the source");
    assert_fails(oklc_memory_copy(v, 1, b, 0, off), OKLC_ERR_ARGUMENT,
                 "go past the end of the destination");
    assert_fails(oklc_memory_copy(NULL, 0, b, 0, 4), OKLC_ERR_ARGUMENT,
                 "the destination is NULL");
    if (other) {
        oklc_memory *o;
        assert_ok(oklc_memory_alloc(other, bytes, &o));
        oklc_status st = oklc_memory_copy(o, 0, a, 0, bytes);
        if (d->ops->module || d->ops->view || other->ops->module || other->ops->view) {
            assert_fails(st, OKLC_ERR_ARGUMENT, "copy between devices through the host");
        } else {    /* two CPU devices: host memory both */
            assert_ok(st);
            assert_ok(oklc_memory_copy_to_host(o, out, bytes, 0));
            assert_memory_equal(out, in, off);
        }
        oklc_memory_free(o);
    }
    oklc_memory_free(v);
    oklc_memory_free(a);
    oklc_memory_free(b);
}

/* Wrapped memory: another memory's address (freed after the wrapper);
 * host memory. */
static void check_wrap_and_host(oklc_device *d, const float *in)
{
    size_t bytes = API_N * sizeof(float), used = oklc_device_memory_used(d);
    oklc_memory *a, *w;
    static float out[API_N];
    assert_ok(oklc_memory_alloc(d, bytes, &a));
    assert_ok(oklc_memory_wrap(d, oklc_memory_ptr(a), bytes, &w));
    assert_int_equal(oklc_device_memory_used(d), used + bytes);
    assert_ok(oklc_memory_copy_from_host(w, in, bytes, 0));
    oklc_memory_free(w);    /* the storage stays */
    assert_ok(oklc_memory_copy_to_host(a, out, bytes, 0));
    assert_memory_equal(out, in, bytes);
    assert_fails(oklc_memory_wrap(d, NULL, 4, &w), OKLC_ERR_ARGUMENT, "NULL address");
    oklc_memory_free(a);
    float *h;
    assert_ok(oklc_host_alloc(d, bytes, (void **)&h));
    memcpy(h, in, bytes);
    assert_ok(oklc_memory_alloc(d, bytes, &a));
    assert_ok(oklc_memory_copy_from_host(a, h, bytes, 0));
    memset(h, 0, bytes);
    assert_ok(oklc_memory_copy_to_host(a, h, bytes, 0));
    assert_memory_equal(h, in, bytes);
    oklc_host_free(d, h);
    oklc_host_free(d, NULL);
    assert_fails(oklc_host_alloc(d, SIZE_MAX, (void **)&h), OKLC_ERR_MEMORY, "cannot allocate");
    assert_null(h);
    oklc_memory_free(a);
}

static void check_pool(oklc_device *d, const float *in)
{
    size_t unit = d->view_align > 256 ? d->view_align : 256;
    oklc_pool *p;
    oklc_memory *a, *b, *c, *e;
    assert_ok(oklc_pool_new(d, 4 * unit, &p));
    assert_int_equal(oklc_pool_size(p), 4 * unit);
    assert_ok(oklc_pool_reserve(p, unit + 1, &a));    /* two units */
    assert_ok(oklc_pool_reserve(p, unit, &b));
    assert_int_equal(oklc_pool_used(p), 3 * unit);
    assert_int_equal(oklc_memory_size(a), unit + 1);
    assert_fails(oklc_pool_reserve(p, unit + 1, &c), OKLC_ERR_MEMORY,
                 "oklc_pool_reserve: no free range of the pool holds");
    assert_null(c);
    oklc_memory_free(a);    /* released: its two units are free again */
    assert_int_equal(oklc_pool_used(p), unit);
    assert_ok(oklc_pool_reserve(p, 2 * unit, &c));
    assert_ok(oklc_pool_reserve(p, unit, &e));    /* the last unit */
    assert_ok(oklc_pool_reserve(p, 0, &a));       /* takes nothing */
    assert_int_equal(oklc_pool_used(p), 4 * unit);
    /* the reservations are views: apart, usable, kept after the pool */
    assert_ok(oklc_memory_copy_from_host(c, in, 2 * unit, 0));
    assert_ok(oklc_memory_copy_from_host(b, in + 1, unit, 0));
    oklc_pool_free(p);
    float out[64];
    assert_ok(oklc_memory_copy_to_host(c, out, sizeof out, 0));
    assert_memory_equal(out, in, sizeof out);
    assert_ok(oklc_memory_copy(e, 0, c, 0, unit));
    assert_ok(oklc_memory_copy_to_host(e, out, sizeof out, 0));
    assert_memory_equal(out, in, sizeof out);
    oklc_memory_free(a);
    oklc_memory_free(b);
    oklc_memory_free(c);
    oklc_memory_free(e);
    assert_fails(oklc_pool_new(d, SIZE_MAX, &p), OKLC_ERR_MEMORY, "cannot allocate");
    assert_null(p);
}

/* Every check of the memory API on d; `other`, a device of another kind
 * (NULL: none); `kernels`: d builds and runs OKL kernels here. */
static void check_memory_api(oklc_device *d, oklc_device *other, bool kernels)
{
    static float in[API_N];
    for (int i = 0; i < API_N; i++)
        in[i] = (float)i + 0.5f;
    size_t used = oklc_device_memory_used(d);
    check_views(d, in);
    check_copies(d, in, other);
    check_wrap_and_host(d, in);
    check_pool(d, in);
    if (kernels) {
        oklc_memory *m;
        assert_ok(oklc_memory_alloc_typed(d, OKLC_TYPE_FLOAT, API_N, &m));
        assert_ok(oklc_memory_copy_from_host(m, in, sizeof in, 0));
        scale_through_view(d, m, in);
        oklc_memory_free(m);
    }
    assert_int_equal(oklc_device_memory_used(d), used);
}

/* ---- streams and events --------------------------------------------------------------- */

/* Two streams: copies and (with `kernels`) runs of `scale` queued in each,
 * in order within a stream; events and the time between them; streams of
 * another device refused; a freed current stream leaves the default. */
static void check_streams(oklc_device *d, oklc_device *other, bool kernels)
{
    enum { N = 256 };
    static const char scale[] =
        "@kernel void scale(const int n, float *x) {\n"
        "  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner))\n"
        "    x[i] = 2 * x[i] + 1;\n}\n";
    float *host[2], want[2][N];
    oklc_memory *m[2];
    oklc_stream *s[2];
    oklc_kernel *k = NULL;
    if (kernels)
        assert_ok(oklc_kernel_build_string(d, "scale.okl", scale, "scale", NULL, &k));
    assert_null(oklc_device_stream(d));
    for (int j = 0; j < 2; j++) {
        assert_ok(oklc_host_alloc(d, N * sizeof(float), (void **)&host[j]));
        assert_ok(oklc_memory_alloc(d, N * sizeof(float), &m[j]));
        assert_ok(oklc_stream_create(d, &s[j]));
        for (int i = 0; i < N; i++) {
            host[j][i] = (float)(i + 100 * j);
            want[j][i] = host[j][i];
            for (int r = 0; kernels && r < 3 + j; r++)
                want[j][i] = 2 * want[j][i] + 1;
        }
    }
    oklc_event *e[4];    /* each stream's start and end */
    for (int j = 0; j < 2; j++) {              /* copy in, runs, copy out: one stream each */
        assert_ok(oklc_device_set_stream(d, s[j]));
        assert_true(oklc_device_stream(d) == s[j]);
        assert_ok(oklc_event_record(d, &e[2 * j]));
        assert_ok(oklc_memory_copy_from_host_async(m[j], host[j], N * sizeof(float), 0));
        for (int r = 0; kernels && r < 3 + j; r++) {
            oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(m[j])};
            assert_ok(oklc_kernel_run(k, 2, args));
        }
        assert_ok(oklc_memory_copy_to_host_async(m[j], host[j], N * sizeof(float), 0));
        assert_ok(oklc_event_record(d, &e[2 * j + 1]));
    }
    assert_ok(oklc_stream_finish(d, s[0]));
    assert_memory_equal(host[0], want[0], sizeof want[0]);
    assert_ok(oklc_device_finish(d));    /* every stream */
    assert_memory_equal(host[1], want[1], sizeof want[1]);
    double t[2], t01;
    assert_ok(oklc_event_wait(e[3]));
    for (int j = 0; j < 2; j++) {    /* within a stream: its work's time, never negative */
        assert_ok(oklc_event_elapsed(e[2 * j], e[2 * j + 1], &t[j]));
        assert_true(t[j] >= 0 && t[j] < 60);
    }
    /* a blocking copy in a stream comes after its work */
    float one = 5;
    assert_ok(oklc_memory_copy_from_host(m[1], &one, sizeof one, 0));
    if (kernels) {
        oklc_arg args[] = {oklc_arg_int(1), oklc_arg_mem(m[1])};
        assert_ok(oklc_kernel_run(k, 2, args));
    }
    assert_ok(oklc_memory_copy_to_host(m[1], &one, sizeof one, 0));
    assert_true(one == (kernels ? 11 : 5));
    /* errors */
    oklc_stream *theirs;
    assert_ok(oklc_stream_create(other, &theirs));
    assert_fails(oklc_device_set_stream(d, theirs), OKLC_ERR_ARGUMENT,
                 "oklc_device_set_stream: the stream is one of another device");
    assert_fails(oklc_stream_finish(d, theirs), OKLC_ERR_ARGUMENT, "another device");
    oklc_event *their_event;
    assert_ok(oklc_event_record(other, &their_event));
    assert_fails(oklc_event_elapsed(e[0], their_event, &t01), OKLC_ERR_ARGUMENT,
                 "the events are of two devices");
    assert_fails(oklc_stream_create(NULL, &theirs), OKLC_ERR_ARGUMENT, "NULL device");
    oklc_event_free(their_event);
    oklc_stream_free(other->streams);
    /* the current stream freed: the default again */
    oklc_stream_free(s[1]);
    assert_null(oklc_device_stream(d));
    assert_ok(oklc_device_set_stream(d, s[0]));
    assert_ok(oklc_device_set_stream(d, NULL));
    for (int j = 0; j < 4; j++)
        oklc_event_free(e[j]);
    oklc_stream_free(s[0]);
    oklc_stream_free(NULL);
    for (int j = 0; j < 2; j++) {
        oklc_memory_free(m[j]);
        oklc_host_free(d, host[j]);
    }
    oklc_kernel_free(k);
}

#endif
