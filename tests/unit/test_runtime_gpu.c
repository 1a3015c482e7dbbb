/*
 * test_runtime_gpu.c - the runtime's GPU-like devices.
 *
 * OpenCL runs for real on PoCL (OpenCL on the CPU; scripts/deps.sh installs
 * it): device specs, memory, native OpenCL C kernels with their run dims,
 * build errors with clBuildProgram's log, the cache (binaries kept, loaded
 * without compiling, the source built when a binary is refused),
 * build-only and load, arguments of every kind, and the OKL path through a
 * hand-written "transpiled" entry (tests/runtime/opencl/: two device
 * kernels, their launcher, the metadata), so that launchers, the launch
 * API and argument packing are tested before the OpenCL backend exists.
 *
 * CUDA and HIP have no device here: opening one must fail cleanly
 * (OKLC_ERR_UNAVAILABLE, saying why); NVRTC and hiprtc compile without a
 * device, so their compile paths are tested for real when installed.
 *
 * Every test uses a cache folder under a temporary folder (OKLC_CACHE_DIR),
 * and PoCL's own cache goes there too (POCL_CACHE_DIR).
 */
#define _GNU_SOURCE    /* dlmopen */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime_helpers.h"    /* the folder, checks, kernels both runtime tests run */

/* ---- helpers ------------------------------------------------------------------------ */

static const char *data_path(const char *name)
{
    static char path[4][4200];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", getenv("OKLC_TEST_DATA"), name);
    return p;
}

static bool exists(const char *dir, const char *name)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Runs argv, which must succeed. */
static void run_ok(const char *const argv[])
{
    char *out = NULL;
    int code = -1;
    assert_ok(oklc_rt_spawn(argv, &out, &code));
    if (code != 0)
        fail_msg("%s failed (%d): %s", argv[0], code, out);
    oklc_free(out);
}

/* A launcher compiled as the runtime compiles them. */
static void compile_launcher(const char *src, const char *lib)
{
    const char *argv[] = {"c++", "-std=c++17", "-shared", "-fPIC", "-O2", src, "-o", lib, NULL};
    run_ok(argv);
}

static void link_to(const char *from_dir, const char *name, const char *to_dir)
{
    char from[4300], to[4300];
    snprintf(from, sizeof from, "%s/%s", from_dir, name);
    snprintf(to, sizeof to, "%s/%s", to_dir, name);
    assert_int_equal(symlink(from, to), 0);
}

/* ---- OpenCL: devices ------------------------------------------------------------------ */

static const char vadd_cl[] =
    "__kernel void vadd(const int n, __global const float *a, __global const float *b,\n"
    "                   __global float *ab)\n"
    "{\n"
    "    const int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        ab[i] = a[i] + b[i];\n"
    "}\n";

static void opencl_specs(void **state)
{
    (void)state;
    oklc_device *d = open_dev("opencl");
    assert_string_equal(oklc_device_mode(d), "opencl");
    assert_non_null(d->label);
    assert_non_null(strstr(d->id, "platform: Portable Computing Language"));
    assert_non_null(strstr(d->id, "driver: "));
    assert_ok(oklc_device_finish(d));
    char name[256], spec[400];
    snprintf(name, sizeof name, "%.6s", d->label);    /* a part of the device's name */
    oklc_device_close(d);

    const char *good[] = {"OpenCL", "mode=opencl platform=0 device=0", "platform=pocl mode=OPENCL",
                          "opencl platform=PORTABLE", spec, NULL};
    snprintf(spec, sizeof spec, "opencl device=%s", name);
    for (int i = 0; good[i]; i++) {
        d = open_dev(good[i]);
        assert_non_null(strstr(d->id, "Portable Computing Language"));
        oklc_device_close(d);
    }

    static const struct {
        const char *spec;
        oklc_status st;
        const char *message;
    } bad[] = {
        {"mode=opencl platform=7", OKLC_ERR_ARGUMENT,
         "device spec 'mode=opencl platform=7': there is no OpenCL platform 7 (platforms: 0 "
         "'Portable Computing Language'"},
        {"opencl platform=quantum", OKLC_ERR_ARGUMENT,
         "no OpenCL platform's name or vendor contains 'quantum' (platforms: 0 'Portable"},
        {"opencl device=5", OKLC_ERR_ARGUMENT,
         "there is no device 5 on OpenCL platform 0 (platforms: 0 'Portable Computing "
         "Language': devices 0 '"},
        {"opencl device=quantum", OKLC_ERR_ARGUMENT, "no OpenCL device's name contains 'quantum'"},
        {"opencl platform=0 device=quantum", OKLC_ERR_ARGUMENT,
         "no device's name on OpenCL platform 0 contains 'quantum'"},
        {"opencl threads=2", OKLC_ERR_ARGUMENT, "'threads' does not apply to the opencl device"},
        {"opencl platform=", OKLC_ERR_ARGUMENT, "'platform' has no value"},
    };
    for (size_t i = 0; i < OKLC_COUNTOF(bad); i++) {
        d = (oklc_device *)1;
        assert_fails(oklc_device_open(bad[i].spec, &d), bad[i].st, bad[i].message);
        assert_null(d);
    }
}

/* A machine without the ICD loader: the device is unavailable, saying why;
 * once the library is back, it works again. */
static void opencl_missing_library(void **state)
{
    (void)state;
    oklc_device *d;
    oklc_rt_opencl_library("libOpenCL-oklc-none.so.1");
    assert_fails(oklc_device_open("opencl", &d), OKLC_ERR_UNAVAILABLE,
                 "device spec 'opencl': the OpenCL device is not available: cannot load the "
                 "OpenCL ICD loader: libOpenCL-oklc-none.so.1: cannot open shared object file");
    assert_null(d);
    oklc_rt_opencl_library(NULL);
    d = open_dev("opencl");
    oklc_device_close(d);
}

/* ---- OpenCL: memory ------------------------------------------------------------------- */

static void opencl_memory(void **state)
{
    (void)state;
    oklc_device *d = open_dev("opencl");
    char in[100], out[100] = {0};
    oklc_memory *m = memory_100(d, in, out);
    assert_non_null(m->ptr);    /* a cl_mem */
    char patch[5] = {-1, -2, -3, -4, -5};
    assert_ok(oklc_memory_copy_from_host(m, patch, 5, 50));
    assert_ok(oklc_memory_copy_to_host(m, out, 100, 0));
    assert_memory_equal(out, in, 50);
    assert_memory_equal(out + 50, patch, 5);
    assert_memory_equal(out + 55, in + 55, 45);
    assert_ok(oklc_memory_copy_from_host(m, in, 0, 100));    /* empty, at the end */
    assert_fails(oklc_memory_copy_from_host(m, in, 60, 41), OKLC_ERR_ARGUMENT,
                 "60 bytes at offset 41 go past the end of the memory (100 bytes)");
    assert_fails(oklc_memory_copy_to_host(m, out, SIZE_MAX, 8), OKLC_ERR_ARGUMENT,
                 "go past the end");
    assert_fails(oklc_memory_copy_to_host(m, NULL, 4, 0), OKLC_ERR_ARGUMENT,
                 "the host pointer is NULL");
    oklc_memory_free(m);
    assert_ok(oklc_memory_alloc(d, 0, &m));
    assert_int_equal(oklc_memory_size(m), 0);
    oklc_memory_free(m);
    m = (oklc_memory *)1;
    assert_fails(oklc_memory_alloc(d, (size_t)1 << 55, &m), OKLC_ERR_MEMORY,
                 "clCreateBuffer: CL_INVALID_BUFFER_SIZE (-61)");
    assert_null(m);
    assert_ok(oklc_device_finish(d));
    oklc_device_close(d);
}

/* Views (sub-buffers at the device's alignment), copies between memories
 * (clEnqueueCopyBuffer), wrapped cl_mem, host memory, pools, an OKL kernel
 * run on a view; a copy to a serial device's memory is refused. */
static void opencl_memory_api(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("opencl"), *s = open_dev("serial");
    assert_true(d->view_align >= 4);
    check_memory_api(d, s, true);
    check_streams(d, s, true);    /* a command queue each */
    oklc_device_info info;
    assert_ok(oklc_device_query(d, &info));
    assert_string_equal(info.mode, "opencl");
    assert_string_equal(info.name, d->label);
    assert_non_null(strstr(info.arch, "OpenCL"));
    assert_true(info.vendor[0] && info.compute_units >= 1 && info.memory_total > 0);
    assert_true(info.memory_free == 0);    /* OpenCL does not say */
    assert_true(info.max_block_threads >= 1 && info.max_block_dims[0] >= 1 &&
                info.shared_memory > 0);
    oklc_memory *m, *v;
    assert_ok(oklc_memory_alloc(d, 4 * d->view_align, &m));
    char message[200];
    snprintf(message, sizeof message, "oklc_memory_view: offset 4 (4 in its allocation) is not "
             "a multiple of the OpenCL device's base address alignment, %zu bytes",
             d->view_align);
    assert_fails(oklc_memory_view(m, 4, 8, &v), OKLC_ERR_ARGUMENT, message);
    assert_ok(oklc_memory_view(m, 3 * d->view_align, 0, &v));    /* empty: no sub-buffer */
    assert_null(oklc_memory_ptr(v));
    oklc_memory_free(v);
    oklc_memory_free(m);
    oklc_device_close(s);
    oklc_device_close(d);
}

/* ---- OpenCL: native kernels ------------------------------------------------------------- */

static void run_vadd(oklc_device *d, oklc_kernel *k, int n)
{
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *ab = malloc(n * sizeof *ab);
    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
        ab[i] = -1;
    }
    oklc_memory *ma, *mb, *mab;
    assert_ok(oklc_memory_alloc(d, n * sizeof *a, &ma));
    assert_ok(oklc_memory_alloc(d, n * sizeof *b, &mb));
    assert_ok(oklc_memory_alloc(d, n * sizeof *ab, &mab));
    assert_ok(oklc_memory_copy_from_host(ma, a, n * sizeof *a, 0));
    assert_ok(oklc_memory_copy_from_host(mb, b, n * sizeof *b, 0));
    assert_ok(oklc_memory_copy_from_host(mab, ab, n * sizeof *ab, 0));
    size_t outer[3] = {(size_t)(n + 63) / 64, 1, 1}, inner[3] = {64, 1, 1};
    assert_ok(oklc_kernel_set_run_dims(k, outer, inner));
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab)};
    long before = oklc_rt_launch_count();
    assert_ok(oklc_kernel_run(k, 4, args));
    assert_int_equal(oklc_rt_launch_count(), before + 1);
    assert_ok(oklc_device_finish(d));
    assert_ok(oklc_memory_copy_to_host(mab, ab, n * sizeof *ab, 0));
    for (int i = 0; i < n; i++)
        assert_true(ab[i] == (float)(3 * i));
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(mab);
    free(a), free(b), free(ab);
}

static void opencl_native_kernel(void **state)
{
    (void)state;
    fresh_cache();
    oklc_props *p = native();
    oklc_device *d = open_dev("opencl");
    oklc_kernel *k;
    assert_ok(oklc_kernel_build(d, put("vadd.cl", vadd_cl), "vadd", p, &k));
    assert_int_equal(oklc_kernel_arg_count(k), -1);
    oklc_arg none[] = {oklc_arg_int(0)};
    assert_fails(oklc_kernel_run(k, 1, none), OKLC_ERR_ARGUMENT,
                 "'vadd' is a native opencl kernel: it runs on the dims of "
                 "oklc_kernel_set_run_dims, which was not called");
    run_vadd(d, k, 1000);
    run_vadd(d, k, 1);

    /* outer 0: nothing runs; inner 0: an error; a work-group too large: the
     * driver's error by name */
    size_t zero[3] = {0, 1, 1}, one[3] = {1, 1, 1}, huge[3] = {1 << 20, 1, 1};
    assert_ok(oklc_kernel_set_run_dims(k, zero, one));
    long before = oklc_rt_launch_count();
    assert_ok(oklc_kernel_run(k, 1, none));
    assert_int_equal(oklc_rt_launch_count(), before);
    assert_fails(oklc_kernel_set_run_dims(k, one, zero), OKLC_ERR_ARGUMENT,
                 "inner[0] of 'vadd' is 0");
    oklc_memory *m;
    assert_ok(oklc_memory_alloc(d, 16, &m));
    oklc_arg args[] = {oklc_arg_int(0), oklc_arg_mem(m), oklc_arg_mem(m), oklc_arg_mem(m)};
    assert_ok(oklc_kernel_set_run_dims(k, one, huge));
    assert_fails(oklc_kernel_run(k, 4, args), OKLC_ERR_DEVICE,
                 "cannot run 'vadd' on the opencl device '");
    assert_non_null(strstr(oklc_last_error(), "(grid 1x1x1, block 1048576x1x1): "
                                              "clEnqueueNDRangeKernel: "
                                              "CL_INVALID_WORK_GROUP_SIZE (-54)"));
    /* a global size past size_t: an error, never a wrapped-around grid */
    size_t vast[3] = {SIZE_MAX / 2, 1, 1}, four[3] = {4, 1, 1};
    assert_ok(oklc_kernel_set_run_dims(k, vast, four));
    before = oklc_rt_launch_count();
    assert_fails(oklc_kernel_run(k, 4, args), OKLC_ERR_DEVICE,
                 "the grid times the block is more than a size_t holds");
    assert_int_equal(oklc_rt_launch_count(), before);
    /* a native kernel's arguments are not checked: the driver says (a
     * fresh cl_kernel: its arguments stay set from one run to the next) */
    oklc_kernel *fresh;
    assert_ok(oklc_kernel_build(d, work_path("vadd.cl"), "vadd", p, &fresh));
    assert_ok(oklc_kernel_set_run_dims(fresh, one, one));
    oklc_arg wrong[] = {oklc_arg_int(0), oklc_arg_mem(m), oklc_arg_mem(m)};
    assert_fails(oklc_kernel_run(fresh, 3, wrong), OKLC_ERR_DEVICE,
                 "clEnqueueNDRangeKernel: CL_INVALID_KERNEL_ARGS (-52)");
    oklc_kernel_free(fresh);
    oklc_memory_free(m);
    assert_fails(oklc_kernel_set_run_dims(NULL, one, one), OKLC_ERR_ARGUMENT, "NULL kernel");
    assert_fails(oklc_kernel_set_run_dims(k, NULL, one), OKLC_ERR_ARGUMENT, "NULL outer");
    oklc_kernel_free(k);

    oklc_kernel *none_k = (oklc_kernel *)1;
    assert_fails(oklc_kernel_build(d, work_path("vadd.cl"), "vsub", p, &none_k),
                 OKLC_ERR_ARGUMENT, "no kernel 'vsub' in '");
    assert_non_null(strstr(oklc_last_error(), "(clCreateKernel: CL_INVALID_KERNEL_NAME)"));
    assert_null(none_k);
    oklc_device_close(d);

    /* set_run_dims is for native GPU kernels only */
    char src[4200];
    snprintf(src, sizeof src, "%s/add.cpp", getenv("OKLC_TEST_DATA"));
    d = open_dev("serial");
    assert_ok(oklc_kernel_build(d, src, "addVectors", p, &k));
    assert_fails(oklc_kernel_set_run_dims(k, one, one), OKLC_ERR_ARGUMENT,
                 "'addVectors' is a kernel of the serial device; run dims apply only to "
                 "native kernels of GPU-like devices (cuda, hip, opencl, dpcpp)");
    oklc_kernel_free(k);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* A native kernel that stores the int `expr` into out[0]; `prelude` first. */
static const char *int_kernel(const char *file, const char *prelude, const char *expr)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "%s\n__kernel void get(__global int *out)\n{\n    out[0] = %s;\n}\n", prelude,
             expr);
    return put(file, text);
}

/* Builds file's `get` on d with props p, runs it on one work-item,
 * returns what it stored. */
static int run_get(oklc_device *d, const char *file, const oklc_props *p)
{
    oklc_kernel *k;
    size_t one[3] = {1, 1, 1};
    assert_ok(oklc_kernel_build(d, file, "get", p, &k));
    assert_ok(oklc_kernel_set_run_dims(k, one, one));
    int v = get_value(d, k);
    oklc_kernel_free(k);
    return v;
}

/* Defines, include paths and included files of the props reach native
 * OpenCL C; its own folder is searched for "..." includes; the props'
 * flags go to clBuildProgram. */
static void opencl_native_props(void **state)
{
    (void)state;
    fresh_cache();
    /* a define with blanks: quoted in the options */
    oklc_props *p = props_with_includes("clprops", "VALUE=(0 + 1)");
    const char *file = int_kernel("clprops/k.cl", "#include \"local.h\"\n#include <extra.h>\n",
                                  "VALUE + EXTRA + PRE + LOCAL + FLAG");
    assert_ok(oklc_props_compiler_flags(p, "-DFLAG=50000 -cl-fast-relaxed-math"));
    oklc_device *d = open_dev("opencl");
    assert_int_equal(run_get(d, file, p), 54231);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* With included files the source gets a #line naming its file: a name
 * with a line break, quotes, a backslash and "??=" (a trigraph) stays one
 * string there, nothing of it a directive of its own. */
static void opencl_native_odd_name(void **state)
{
    (void)state;
    fresh_cache();
    oklc_props *p = props_with_includes("clodd", "VALUE=1");
    const char *file = int_kernel("clodd/k\n#error injected \"?\?=\\.cl", "", "VALUE + PRE");
    oklc_device *d = open_dev("opencl");
    assert_int_equal(run_get(d, file, p), 201);
    /* a folder with a line break cannot be an include path of
     * clBuildProgram's one line of options: an error saying so */
    file = int_kernel("clodd/line\nbreak/k.cl", "", "VALUE + PRE");
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, file, "get", p, &k), OKLC_ERR_ARGUMENT,
                 "holds a line break, and clBuildProgram takes its options as one line");
    assert_null(k);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* The whole build log comes back; the source stays to be read. */
static void opencl_build_error(void **state)
{
    (void)state;
    const char *msg = compile_fails("opencl", "clbad/k.cl",
                                    "__kernel void get(__global int *out)\n"
                                    "{\n    out[0] = undeclared_thing;\n}\n",
                                    "cannot build the OpenCL program of '");
    assert_non_null(strstr(msg, "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)"));
    assert_non_null(strstr(msg, "undeclared_thing"));    /* the compiler's log */
}

/* ---- OpenCL: the cache, build-only and load ----------------------------------------- */

static void opencl_cache(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    const char *file = put("clcache/vadd.cl", vadd_cl);
    oklc_props *p = native();
    oklc_device *d = open_dev("opencl");
    long before = oklc_rt_compile_count();
    char *dir;
    assert_ok(oklc_kernel_build_only(d, file, "vadd", p, &dir));
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    /* source.cl program.bin options.txt metadata.json entry.json build.log manifest */
    assert_int_equal(entries(dir), 7);
    assert_true(exists(dir, "program.bin") && exists(dir, "options.txt"));
    assert_false(exists(dir, "launcher.so"));    /* native: no launcher */
    oklc_kernel *k;
    assert_ok(oklc_kernel_build(d, file, "vadd", p, &k));    /* a hit: nothing compiles */
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    run_vadd(d, k, 300);
    oklc_kernel_free(k);
    /* a define and the flags each make another binary */
    assert_ok(oklc_props_define(p, "UNUSED=1"));
    assert_ok(oklc_kernel_build(d, file, "vadd", p, &k));
    oklc_kernel_free(k);
    assert_ok(oklc_props_compiler_flags(p, "-cl-opt-disable"));
    assert_ok(oklc_kernel_build(d, file, "vadd", p, &k));
    oklc_kernel_free(k);
    assert_int_equal(oklc_rt_compile_count(), before + 3);
    assert_int_equal(entries(cache), 3);

    /* a binary the device refuses: the source is built instead */
    char *copy = work_path("clcache/refused");
    assert_ok(oklc_rt_mkdirs(copy, 0700));
    link_to(dir, "source.cl", copy);
    link_to(dir, "metadata.json", copy);
    link_to(dir, "options.txt", copy);
    char bin[4300];
    snprintf(bin, sizeof bin, "%s/program.bin", copy);
    assert_ok(oklc_rt_write_file(bin, "not a binary", 12));
    before = oklc_rt_compile_count();
    assert_ok(oklc_kernel_load(d, copy, "vadd", &k));
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    run_vadd(d, k, 70);
    oklc_kernel_free(k);

    /* the key has the device and its driver: another one is another key */
    char source[] = "x", metadata[] = "{}", another[] = "opencl\ndevice: another\n";
    Build b = {.dev = d, .props = p, .name = "vadd", .source = source, .source_len = 1,
               .metadata = metadata, .device_id = d->id};
    char k1[33], k2[33];
    oklc_rt_cache_key(&b, k1);
    b.device_id = another;
    oklc_rt_cache_key(&b, k2);
    assert_string_not_equal(k1, k2);
    free(dir);
    oklc_device_close(d);
    oklc_props_free(p);
}

static void opencl_build_only_then_load(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("opencl");
    char *dir = build_native(d, put("clload/vadd.cl", vadd_cl), "vadd");
    long before = oklc_rt_compile_count();
    oklc_device *other = open_dev("mode=opencl platform=0 device=0");    /* another process */
    oklc_kernel *k;
    assert_ok(oklc_kernel_load(other, dir, "vadd", &k));
    assert_int_equal(oklc_rt_compile_count(), before);    /* from the binary */
    run_vadd(other, k, 513);
    oklc_kernel_free(k);
    assert_fails(oklc_kernel_load(other, dir, "vmul", &k), OKLC_ERR_ARGUMENT,
                 "no kernel 'vmul' in '");
    assert_null(k);
    oklc_device_close(other);
    oklc_device *serial = open_dev("serial");
    assert_fails(oklc_kernel_load(serial, dir, "vadd", &k), OKLC_ERR_ARGUMENT,
                 "was built for the opencl device, not for serial");
    oklc_device_close(serial);
    free(dir);
    oklc_device_close(d);
}

/* ---- OpenCL: arguments of every kind -------------------------------------------------- */

/* The types of many's arguments in OpenCL C (runtime_helpers.h). */
static const char *const many_types[] = {"int", "long", "float", "double", "S",
                                         "__global const double *"};

static char *many_cl(void)
{
    static char text[16384];
    char *p = text;
    p += sprintf(p, "typedef struct S { int a; double b; } S;\n__kernel void many(");
    for (int i = 0; i < MANY - 1; i++)
        p += sprintf(p, "%s a%d, ", many_types[i % 6], i);
    p += sprintf(p, "__global double *out)\n{\n  double sum = 0;\n");
    static const char *const read[] = {"a%d", "a%d", "a%d", "a%d", "(a%d.a + a%d.b)", "a%d[0]"};
    p = many_sum(p, read, "  ");
    sprintf(p, "  out[0] = sum;\n}\n");
    return text;
}

/* The metadata's kernel fields of an OKL kernel: its launcher runs the one
 * device function once (one_launcher). */
#define MANY_ENTRY "\"entry\": \"_occa_launch_one\", \"functions\": [\"many\"], "

/* One device kernel, run once on one work-item. */
static const char one_launcher[] =
    "struct _occa_launch_api {\n"
    "    int version;\n    void *device;\n"
    "    int (*run)(void *, int, const unsigned long[3], const unsigned long[3],\n"
    "               void *const *);\n};\n"
    "extern \"C\" int _occa_launch_one(const _occa_launch_api *api, void *const *args)\n"
    "{\n    const unsigned long one[3] = {1, 1, 1};\n"
    "    return api->version == 2 ? api->run(api->device, 0, one, one, args) : 99;\n}\n";

/* An entry of our own: the binary of `dir`, a launcher and the metadata. */
static const char *okl_entry(const char *dir, const char *name, const char *launcher,
                             const char *metadata)
{
    char *e = work_path(name);
    assert_ok(oklc_rt_mkdirs(e, 0700));
    link_to(dir, "source.cl", e);
    link_to(dir, "program.bin", e);
    link_to(dir, "options.txt", e);
    char path[4300], lib[4300];
    snprintf(path, sizeof path, "%s/metadata.json", e);
    assert_ok(oklc_rt_write_file(path, metadata, strlen(metadata)));
    snprintf(path, sizeof path, "%s/launcher.cpp", e);
    assert_ok(oklc_rt_write_file(path, launcher, strlen(launcher)));
    snprintf(lib, sizeof lib, "%s/launcher.so", e);
    compile_launcher(path, lib);
    return e;
}

static void opencl_many_arguments(void **state)
{
    (void)state;
    fresh_cache();
    oklc_props *p = native();
    oklc_device *d = open_dev("opencl");
    oklc_kernel *k;
    const char *file = put("clmany/many.cl", many_cl());
    assert_ok(oklc_kernel_build(d, file, "many", p, &k));
    size_t one[3] = {1, 1, 1};
    assert_ok(oklc_kernel_set_run_dims(k, one, one));
    run_many(d, k, many_types);    /* native: unchecked, sizes as given */
    oklc_kernel_free(k);
    char *dir;
    assert_ok(oklc_kernel_build_only(d, file, "many", p, &dir));
    const char *entry = okl_entry(dir, "many-entry", one_launcher,
                                  many_json("opencl", MANY_ENTRY, many_types));
    assert_ok(oklc_kernel_load(d, entry, "many", &k));
    assert_int_equal(oklc_kernel_arg_count(k), MANY);
    run_many(d, k, many_types);    /* checked against the metadata, run through a launcher */
    oklc_kernel_free(k);
    free(dir);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* Integers of 1, 2, 4 and 8 bytes, float, double and a struct with padding:
 * each passed at the size the metadata says. */
static const char mixed_cl[] =
    "typedef struct Pair { short s; double d; } Pair;\n"
    "__kernel void mixed(__global double *out, char c, short s, const int n, long l,\n"
    "                    float f, double d, Pair p)\n"
    "{\n"
    "    out[0] = 0.0 + c + s + n + l + f + d;\n"
    "    out[1] = p.s + p.d;\n"
    "}\n";

static const char mixed_json[] =
    "{\"oklc\": \"0.1.0\", \"backend\": \"opencl\", \"kernels\": [{\"name\": \"mixed\", "
    "\"entry\": \"_occa_launch_one\", \"functions\": [\"mixed\"], " MIXED_ARGUMENTS;

static void opencl_checked_arguments(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("opencl");
    char *dir = build_native(d, put("clmixed/mixed.cl", mixed_cl), "mixed");
    oklc_kernel *k;
    assert_ok(oklc_kernel_load(d, okl_entry(dir, "mixed-entry", one_launcher, mixed_json),
                               "mixed", &k));
    Mixed m;
    run_mixed(d, k, &m);
    m.args[5] = oklc_arg_double(1);
    assert_fails(oklc_kernel_run(k, 8, m.args), OKLC_ERR_ARGUMENT,
                 "argument 6 ('f') of 'mixed' is 'float', but a double was given");
    m.args[5] = oklc_arg_float(0.5f);
    end_mixed(k, &m, "opencl");
    size_t one[3] = {1, 1, 1};
    assert_fails(oklc_kernel_set_run_dims(k, one, one), OKLC_ERR_ARGUMENT,
                 "'mixed' is an OKL kernel: its launcher computes its dims");
    oklc_kernel_free(k);
    free(dir);
    oklc_device_close(d);
}

/* ---- OpenCL: an OKL kernel's entry, written by hand ----------------------------------- */

typedef struct Shift {
    int   add;
    float scale;
} Shift;

/* axpyScale of tests/runtime/opencl/source.cl on n entries; true when
 * y = (a x + y) * scale + add. */
static void run_axpy_scale(oklc_device *d, oklc_kernel *k, int n, long launches)
{
    enum { CAP = 1000 };
    float x[CAP], y[CAP], want[CAP];
    const float a = 2.0f;
    const Shift s = {3, 0.5f};
    for (int i = 0; i < CAP; i++) {
        x[i] = (float)i;
        y[i] = (float)(i % 7);
        want[i] = i < n ? (a * x[i] + y[i]) * s.scale + s.add : y[i];
    }
    oklc_memory *mx, *my;
    assert_ok(oklc_memory_alloc(d, sizeof x, &mx));
    assert_ok(oklc_memory_alloc(d, sizeof y, &my));
    assert_ok(oklc_memory_copy_from_host(mx, x, sizeof x, 0));
    assert_ok(oklc_memory_copy_from_host(my, y, sizeof y, 0));
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_float(a), oklc_arg_struct(&s, sizeof s),
                       oklc_arg_mem(mx), oklc_arg_mem(my)};
    long before = oklc_rt_launch_count();
    assert_ok(oklc_kernel_run(k, 5, args));
    assert_int_equal(oklc_rt_launch_count(), before + launches);
    assert_ok(oklc_device_finish(d));
    assert_ok(oklc_memory_copy_to_host(my, y, sizeof y, 0));
    for (int i = 0; i < CAP; i++)
        if (y[i] != want[i])
            fail_msg("n = %d: y[%d] = %g, wanted %g", n, i, y[i], want[i]);
    oklc_memory_free(mx);
    oklc_memory_free(my);
}

/* The fixture as a cache entry: metadata.json, source.cl, launcher.so;
 * with `binary_of`, that entry's program.bin and options.txt too. */
static const char *fixture_entry(const char *name, const char *binary_of)
{
    char *e = work_path(name);
    assert_ok(oklc_rt_mkdirs(e, 0700));
    char *data = oklc_rt_path(getenv("OKLC_TEST_DATA"), "opencl");
    link_to(data, "source.cl", e);
    link_to(data, "metadata.json", e);
    if (binary_of) {
        link_to(binary_of, "program.bin", e);
        link_to(binary_of, "options.txt", e);
    }
    char lib[4300];
    snprintf(lib, sizeof lib, "%s/launcher.so", e);
    compile_launcher(data_path("opencl/launcher.cpp"), lib);
    oklc_free(data);
    return e;
}

/* The fixture as a cache entry `name` whose binary d built (from the
 * device kernels alone: native source, the first one named). */
static const char *fixture_built(oklc_device *d, const char *name)
{
    char *dir = build_native(d, data_path("opencl/source.cl"), "_occa_axpyScale_0");
    const char *entry = fixture_entry(name, dir);
    free(dir);
    return entry;
}

static void opencl_okl_entry(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("opencl");
    const char *entry = fixture_built(d, "axpy-entry");
    long before = oklc_rt_compile_count();
    oklc_kernel *k;
    assert_ok(oklc_kernel_load(d, entry, "axpyScale", &k));
    assert_int_equal(oklc_rt_compile_count(), before);    /* the binary was taken */
    assert_int_equal(oklc_kernel_arg_count(k), 5);
    assert_int_equal(k->nfunctions, 2);
    run_axpy_scale(d, k, 1000, 2);
    run_axpy_scale(d, k, 5, 2);      /* a part of a block */
    run_axpy_scale(d, k, 0, 0);      /* empty grids: the launcher runs nothing */
    run_axpy_scale(d, k, -3, 0);
    oklc_arg wrong[] = {oklc_arg_long(1), oklc_arg_float(1), oklc_arg_int(0), oklc_arg_int(0),
                        oklc_arg_int(0)};
    assert_fails(oklc_kernel_run(k, 5, wrong), OKLC_ERR_ARGUMENT,
                 "argument 1 ('n') of 'axpyScale' is 'const int', but a long was given (pass "
                 "it with oklc_arg_int)");
    oklc_kernel_free(k);

    /* failures in the launcher's runs come back by device kernel, with the
     * driver's error by name */
    oklc_memory *m;
    assert_ok(oklc_memory_alloc(d, 64, &m));
    Shift s = {0, 1};
    oklc_arg args[] = {oklc_arg_int(4), oklc_arg_float(1), oklc_arg_struct(&s, sizeof s),
                       oklc_arg_mem(m), oklc_arg_mem(m)};
    assert_ok(oklc_kernel_load(d, entry, "tooBig", &k));
    assert_fails(oklc_kernel_run(k, 5, args), OKLC_ERR_DEVICE,
                 "cannot run device kernel 0 ('_occa_axpyScale_0') of 'tooBig' on the opencl "
                 "device '");
    assert_non_null(strstr(oklc_last_error(), "(grid 1x1x1, block 1048576x1x1): "
                                              "clEnqueueNDRangeKernel: "
                                              "CL_INVALID_WORK_GROUP_SIZE (-54)"));
    oklc_kernel_free(k);
    assert_ok(oklc_kernel_load(d, entry, "noSuchFunction", &k));
    assert_fails(oklc_kernel_run(k, 5, args), OKLC_ERR_DEVICE,
                 "cannot run device kernel 7 of 'noSuchFunction'");
    assert_non_null(strstr(oklc_last_error(), "no such device kernel (the kernel has 1)"));
    oklc_kernel_free(k);
    assert_ok(oklc_kernel_load(d, entry, "returnsThree", &k));
    assert_fails(oklc_kernel_run(k, 5, args), OKLC_ERR_DEVICE,
                 "cannot run 'returnsThree' on the opencl device '");
    assert_non_null(strstr(oklc_last_error(), "': its launcher returned 3"));
    oklc_kernel_free(k);
    oklc_memory_free(m);

    /* without a binary: built from the source at load */
    before = oklc_rt_compile_count();
    assert_ok(oklc_kernel_load(d, fixture_entry("axpy-source", NULL), "axpyScale", &k));
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    run_axpy_scale(d, k, 333, 2);
    oklc_kernel_free(k);

    /* what a broken entry says */
    char *broken = work_path("axpy-broken");
    assert_ok(oklc_rt_mkdirs(broken, 0700));
    char meta[4300];
    snprintf(meta, sizeof meta, "%s/metadata.json", broken);
    static const char no_functions[] =
        "{\"backend\": \"opencl\", \"kernels\": [{\"name\": \"f\", \"entry\": "
        "\"_occa_launch_f\", \"functions\": [], \"arguments\": []}]}";
    static const char no_launcher[] =
        "{\"backend\": \"opencl\", \"kernels\": [{\"name\": \"f\", \"entry\": "
        "\"_occa_launch_f\", \"functions\": [\"g\"], \"arguments\": []}]}";
    assert_ok(oklc_rt_write_file(meta, no_functions, strlen(no_functions)));
    assert_fails(oklc_kernel_load(d, broken, "f", &k), OKLC_ERR_LOAD,
                 "lists no device kernels (\"functions\") for kernel 'f'");
    assert_ok(oklc_rt_write_file(meta, no_launcher, strlen(no_launcher)));
    assert_fails(oklc_kernel_load(d, broken, "f", &k), OKLC_ERR_LOAD,
                 "cannot load the launcher '");
    link_to(entry, "launcher.so", broken);
    assert_fails(oklc_kernel_load(d, broken, "f", &k), OKLC_ERR_LOAD,
                 "no launcher '_occa_launch_f' of kernel 'f' in '");
    assert_null(k);
    oklc_device_close(d);
}

/* OKL through the transpiler: the OpenCL backend may not be in this
 * build yet; until it is, the build says so. */
static void opencl_okl_transpiled(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("opencl");
    oklc_kernel *k;
    oklc_status st = oklc_kernel_build(d, data_path("../../examples/kernels/addVectors.okl"),
                                       "addVectors", NULL, &k);
    if (st == OKLC_ERR_TRANSPILE && strstr(oklc_last_error(), "backend is not available yet")) {
        printf("(the OpenCL backend is not in this build: %s)\n", oklc_last_error());
        oklc_device_close(d);
        return;
    }
    assert_ok(st);
    assert_int_equal(oklc_kernel_arg_count(k), 4);
    check_add(d, k);
    oklc_kernel_free(k);
    oklc_device_close(d);
}

/* The driver lives in a link-map namespace of its own (dl.c), with an
 * environment of its own: the process's setenv calls (which move and free
 * the environ array) must not pull it from under the driver's getenv. */
static void opencl_environment(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("opencl");
    char name[32];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "OKLC_TEST_FILLER_%d", i);
        setenv(name, "a value long enough to move the array", 1);
    }
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "OKLC_TEST_FILLER_%d", i);
        unsetenv(name);
    }
    oklc_props *p = native();
    assert_int_equal(run_get(d, int_kernel("clenv/k.cl", "", "7"), p), 7);    /* builds */
    oklc_props_free(p);
    oklc_device_close(d);
}

/* ---- OpenCL: running out of memory ---------------------------------------------------- */

/* The device, chosen by a part of its name: the name lookup runs out of
 * memory too. */
static char by_name[300];

static oklc_status load_and_run(const char *dir)
{
    oklc_device *d = NULL;
    oklc_kernel *k = NULL;
    oklc_memory *m = NULL;
    oklc_status st = oklc_device_open(by_name, &d);
    if (!st)
        st = oklc_kernel_load(d, dir, "axpyScale", &k);
    if (!st)
        st = oklc_memory_alloc(d, 64, &m);
    Shift s = {1, 2};
    oklc_arg args[] = {oklc_arg_int(16), oklc_arg_float(1), oklc_arg_struct(&s, sizeof s),
                       oklc_arg_mem(m), oklc_arg_mem(m)};
    if (!st)
        st = oklc_kernel_run(k, 5, args);
    if (!st)
        st = oklc_device_finish(d);
    oklc_memory_free(m);
    oklc_kernel_free(k);
    oklc_device_close(d);
    return st;
}

/* Every allocation in turn fails: each run ends in OKLC_OK or
 * OKLC_ERR_MEMORY, and nothing leaks (under ASan). */
static void opencl_allocations_fail(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("opencl");
    snprintf(by_name, sizeof by_name, "mode=opencl platform=0 device=%.*s",
             (int)strcspn(d->label, " "), d->label);
    fails_cleanly(load_and_run, fixture_built(d, "oom-entry"));
    oklc_device_close(d);
}

/* ---- CUDA and HIP ----------------------------------------------------------------------- */

/* No GPU here: opening fails, saying why. On a machine with one, the
 * device opens and works with memory. */
static void gpu_unavailable(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *prefix;
    } kinds[] = {
        {"cuda", "device spec 'cuda': the CUDA device is not available: "},
        {"mode=CUDA device=0", "device spec 'mode=CUDA device=0': the CUDA device is not "
                               "available: "},
        {"hip", "device spec 'hip': the HIP device is not available: "},
        {"mode=hip device=1", "the HIP device is not available: "},
    };
    for (size_t i = 0; i < OKLC_COUNTOF(kinds); i++) {
        oklc_device *d = (oklc_device *)1;
        oklc_status st = oklc_device_open(kinds[i].spec, &d);
        if (st == OKLC_OK) {
            printf("(%s: a device is here: %s)\n", kinds[i].spec, d->label);
            oklc_memory *m;
            int v = 42, w = 0;
            assert_ok(oklc_memory_alloc(d, sizeof v, &m));
            assert_ok(oklc_memory_copy_from_host(m, &v, sizeof v, 0));
            assert_ok(oklc_memory_copy_to_host(m, &w, sizeof w, 0));
            assert_int_equal(w, 42);
            oklc_memory_free(m);
            oklc_device_close(d);
            continue;
        }
        if (st == OKLC_ERR_ARGUMENT && strstr(oklc_last_error(), "there is no"))
            continue;    /* device=1 on a machine with one */
        assert_fails(st, OKLC_ERR_UNAVAILABLE, kinds[i].prefix);
        assert_null(d);
        printf("(%s)\n", oklc_last_error());
    }
    /* what the message says here: no driver library, or no device */
    oklc_device *d;
    if (oklc_device_open("cuda", &d) == OKLC_ERR_UNAVAILABLE)
        assert_true(strstr(oklc_last_error(), "cannot load libcuda.so.1") ||
                    strstr(oklc_last_error(), "no CUDA device"));
    if (oklc_device_open("hip", &d) == OKLC_ERR_UNAVAILABLE)
        assert_true(strstr(oklc_last_error(), "cannot load libamdhip64.so") ||
                    strstr(oklc_last_error(), "no HIP device"));
}

static const char saxpy_cu[] =
    "extern \"C\" __global__ void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* Skips the test where the runtime compiler is not installed, saying why. */
static void skip_without(const Rtc *compiler)
{
    char version[32];
    if (oklc_gpu_rtc_version(compiler, version) != OKLC_OK) {
        printf("(skipped: %s)\n", oklc_last_error());
        skip();
    }
}

/* Which toolkit's <cuda_fp16.h> NVRTC gets: $CUDA_HOME's first (the others,
 * in order: NVRTC's own toolkit, the nvcc on PATH's, /usr/local/cuda). A
 * stand-in toolkit whose header is an #error tells that it was read. */
static void nvrtc_toolkits(void)
{
    static const char half_cu[] = "#include <cuda_fp16.h>\n"
                                  "extern \"C\" __global__ void h(__half *x) { x[0] = x[1]; }\n";
    static const char stop[] = "#error the stand-in toolkit's header\n";
    const char *sm90[] = {"--gpu-architecture=sm_90"};
    char *bin, *log;
    size_t size;
    assert_ok(oklc_rt_mkdirs(work_path("toolkit/include"), 0700));
    assert_ok(oklc_rt_write_file(work_path("toolkit/include/cuda_fp16.h"), stop, strlen(stop)));
    char *home = getenv("CUDA_HOME") ? oklc_rt_strdup(getenv("CUDA_HOME")) : NULL;
    setenv("CUDA_HOME", work_path("toolkit"), 1);
    oklc_status st = oklc_gpu_rtc_compile(&oklc_nvrtc, half_cu, "h.cu", false, sm90, 1, &bin,
                                          &size, &log);
    if (home)
        setenv("CUDA_HOME", home, 1);
    else
        unsetenv("CUDA_HOME");
    oklc_free(home);
    assert_fails(st, OKLC_ERR_COMPILE, "the stand-in toolkit's header");
    oklc_free(log);
}

/* NVRTC compiles without a device: a cubin for sm_90, PTX for compute_90,
 * and a compile error's log. */
static void nvrtc_compile(void **state)
{
    (void)state;
    skip_without(&oklc_nvrtc);
    char *bin, *log;
    size_t size;
    long before = oklc_rt_compile_count();
    const char *sm90[] = {"--gpu-architecture=sm_90", "-DUNUSED=1"};
    assert_ok(oklc_gpu_rtc_compile(&oklc_nvrtc, saxpy_cu, "saxpy.cu", false, sm90, 2, &bin,
                                   &size, &log));
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    assert_true(size > 4);
    assert_memory_equal(bin, "\177ELF", 4);    /* a cubin is an ELF file */
    assert_non_null(log);
    oklc_free(bin);
    oklc_free(log);

    const char *ptx[] = {"--gpu-architecture=compute_90"};
    assert_ok(oklc_gpu_rtc_compile(&oklc_nvrtc, saxpy_cu, "saxpy.cu", false, ptx, 1, &bin,
                                   &size, &log));
    assert_non_null(strstr(bin, ".entry saxpy"));
    oklc_free(bin);
    oklc_free(log);

    assert_fails(oklc_gpu_rtc_compile(&oklc_nvrtc, "extern \"C\" __global__ void k(int *x)\n"
                                      "{ x[0] = undeclared_thing; }\n",
                                      "bad.cu", false, sm90, 1, &bin, &size, &log),
                 OKLC_ERR_COMPILE, "cannot compile 'bad.cu' with NVRTC: ");
    assert_non_null(strstr(oklc_last_error(), "bad.cu(2): error: identifier "
                                              "\"undeclared_thing\" is undefined"));
    assert_non_null(strstr(log, "undeclared_thing"));
    assert_null(bin);
    oklc_free(log);

    /* oklc's source may include the standard headers its prelude stands
     * for; a native source may not (NVRTC has none, and the toolkit's
     * include folder, which the runtime gives it for <cuda_fp16.h>, none
     * either). */
    static const char includes[] = "#include <cmath>\n#include <math.h>\n#include <cstdint>\n"
                                   "#include <stdint.h>\n#include <cstddef>\n"
                                   "#include <stddef.h>\n#include <cstdio>\n"
                                   "#include <stdio.h>\n"
                                   "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n";
    assert_ok(oklc_gpu_rtc_compile(&oklc_nvrtc, includes, "std.cu", true, sm90, 1, &bin, &size,
                                   &log));
    oklc_free(bin);
    oklc_free(log);
    assert_fails(oklc_gpu_rtc_compile(&oklc_nvrtc, includes, "std.cu", false, sm90, 1, &bin,
                                      &size, &log),
                 OKLC_ERR_COMPILE, "open source file \"cmath\"");    /* could not, cannot */
    oklc_free(log);

    /* <cuda_fp16.h> (half): the toolkit's include folder is searched */
    assert_ok(oklc_gpu_rtc_compile(&oklc_nvrtc, "#include <cuda_fp16.h>\n"
                                   "extern \"C\" __global__ void h(__half *x)\n"
                                    "{ x[0] = x[0] + x[1]; }\n",
                                    "half.cu", false, sm90, 1, &bin, &size, &log));
    oklc_free(bin);
    oklc_free(log);

    const char *wrong[] = {"--no-such-option"};
    assert_fails(oklc_gpu_rtc_compile(&oklc_nvrtc, saxpy_cu, "saxpy.cu", false, wrong, 1, &bin,
                                      &size, &log),
                 OKLC_ERR_COMPILE, "--no-such-option");
    oklc_free(log);
    nvrtc_toolkits();
}

/* hiprtc (in libamdhip64 before ROCm 6) compiles without a device too. */
static void hiprtc_compile(void **state)
{
    (void)state;
    skip_without(&oklc_hiprtc);
    char *bin, *log;
    size_t size;
    const char *gfx[] = {"--offload-arch=gfx90a"};
    assert_ok(oklc_gpu_rtc_compile(&oklc_hiprtc, saxpy_cu, "saxpy.hip", false, gfx, 1, &bin,
                                   &size, &log));
    assert_true(size > 4);
    oklc_free(bin);
    oklc_free(log);
    assert_fails(oklc_gpu_rtc_compile(&oklc_hiprtc, "extern \"C\" __global__ void k(int *x)\n"
                                      "{ x[0] = undeclared_thing; }\n",
                                      "bad.hip", false, gfx, 1, &bin, &size, &log),
                 OKLC_ERR_COMPILE, "cannot compile 'bad.hip' with hiprtc: ");
    assert_non_null(strstr(oklc_last_error(), "undeclared_thing"));
    assert_null(bin);
    oklc_free(log);
}

/* ---- CUDA and HIP on a stand-in driver ---------------------------------------------- */

/* tests/runtime/gpu_mock.c stands in for libcuda.so.1 and libamdhip64.so:
 * the devices' whole path runs (open, memory, a build with the real NVRTC
 * or hiprtc, load, launches with the arguments as kernelParams), the
 * device functions emulated on the host. */
static const char axpy_cu[] =
    "struct Shift { int add; float scale; };\n"
    "extern \"C\" __global__ void _occa_axpyScale_0(const int n, const float a, const Shift s,\n"
    "                                             const float *x, float *y)\n"
    "{\n    const int i = 16 * blockIdx.x + threadIdx.x;\n"
    "    if (i < n)\n        y[i] = a * x[i] + y[i];\n}\n"
    "extern \"C\" __global__ void _occa_axpyScale_1(const int n, const float a, const Shift s,\n"
    "                                             const float *x, float *y)\n"
    "{\n    const int i = 8 * blockIdx.x + 4 * threadIdx.y + threadIdx.x;\n"
    "    if (i < n)\n        y[i] = y[i] * s.scale + s.add;\n}\n";

typedef struct Vendor {
    const char *mode, *title, *binary, *launch_error;
    const DeviceOps *ops;    /* its module->lib: the stand-in to use */
    const Rtc *compiler;
} Vendor;

static const Vendor vendors[] = {
    {"cuda", "CUDA", "kernel.cubin", "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (1)",
     &oklc_cuda_ops, &oklc_nvrtc},
    {"hip", "HIP", "kernel.hsaco", "hipModuleLaunchKernel: hipERROR_INVALID_VALUE (1)",
     &oklc_hip_ops, &oklc_hiprtc},
};

/* saxpy on n entries through the native kernel: y = 2 x + y. */
static void run_saxpy(oklc_device *d, oklc_kernel *k, int n)
{
    float x[300], y[300];
    for (int i = 0; i < 300; i++) {
        x[i] = (float)i;
        y[i] = 1;
    }
    oklc_memory *mx, *my;
    assert_ok(oklc_memory_alloc(d, sizeof x, &mx));
    assert_ok(oklc_memory_alloc(d, sizeof y, &my));
    assert_ok(oklc_memory_copy_from_host(mx, x, sizeof x, 0));
    assert_ok(oklc_memory_copy_from_host(my, y, sizeof y, 0));
    size_t outer[3] = {(size_t)(n + 127) / 128, 1, 1}, inner[3] = {128, 1, 1};
    assert_ok(oklc_kernel_set_run_dims(k, outer, inner));
    oklc_arg args[] = {oklc_arg_int(n), oklc_arg_float(2), oklc_arg_mem(mx), oklc_arg_mem(my)};
    assert_ok(oklc_kernel_run(k, 4, args));
    assert_ok(oklc_device_finish(d));
    assert_ok(oklc_memory_copy_to_host(my, y, sizeof y, 0));
    for (int i = 0; i < 300; i++)
        assert_true(y[i] == (i < n ? 2.0f * i + 1 : 1.0f));
    oklc_memory_free(mx);
    oklc_memory_free(my);
}

static void mock_vendor(const Vendor *v)
{
    skip_without(v->compiler);
    oklc_rt_dl_swap(v->ops->module->lib, getenv("OKLC_TEST_GPU_MOCK"));
    fresh_cache();
    char spec[64], what[128];
    snprintf(spec, sizeof spec, "mode=%s device=1", v->mode);
    snprintf(what, sizeof what, "there is no %s device 1 (there is 1: 0 to 0)", v->title);
    oklc_device *d;
    assert_fails(oklc_device_open(spec, &d), OKLC_ERR_ARGUMENT, what);
    snprintf(spec, sizeof spec, "mode=%s device=0", v->mode);
    d = open_dev(spec);
    assert_string_equal(oklc_device_mode(d), v->mode);
    assert_non_null(strstr(d->label, "Mock"));
    assert_non_null(strstr(d->id, v->mode[0] == 'c' ? "compute capability: 9.0" : "arch: gfx90a"));

    /* memory */
    oklc_memory *m;
    int in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
    assert_ok(oklc_memory_alloc(d, sizeof in, &m));
    assert_ok(oklc_memory_copy_from_host(m, in, sizeof in, 0));
    assert_ok(oklc_memory_copy_to_host(m, out, 3 * sizeof *out, 4 * sizeof *out));
    assert_memory_equal(out, in + 4, 3 * sizeof *out);
    oklc_memory_free(m);
    assert_ok(oklc_memory_alloc(d, 0, &m));
    oklc_memory_free(m);

    /* a native kernel: built with the real compiler, then from the cache */
    oklc_props *p = native();
    const char *file = put(v->mode[0] == 'c' ? "mock/saxpy.cu" : "mock/saxpy.hip", saxpy_cu);
    long before = oklc_rt_compile_count();
    oklc_kernel *k;
    assert_ok(oklc_kernel_build(d, file, "saxpy", p, &k));
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    run_saxpy(d, k, 300);
    run_saxpy(d, k, 77);
    /* a grid past the driver's unsigned int: an error, never a truncated grid */
    size_t vast[3] = {(size_t)UINT_MAX + 2, 1, 1}, one[3] = {1, 1, 1};
    assert_ok(oklc_kernel_set_run_dims(k, vast, one));
    oklc_arg none[] = {oklc_arg_int(0)};
    assert_fails(oklc_kernel_run(k, 1, none), OKLC_ERR_DEVICE,
                 "the grid or the block is more than");
    oklc_kernel_free(k);
    assert_ok(oklc_kernel_build(d, file, "saxpy", p, &k));
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    oklc_kernel_free(k);
    assert_fails(oklc_kernel_build(d, file, "saxpz", p, &k), OKLC_ERR_ARGUMENT,
                 "no kernel 'saxpz' in '");
    file = put(v->mode[0] == 'c' ? "mock/bad.cu" : "mock/bad.hip",
               "extern \"C\" __global__ void f(int *x) { x[0] = undeclared_thing; }\n");
    assert_fails(oklc_kernel_build(d, file, "f", p, &k), OKLC_ERR_COMPILE,
                 "cannot compile the kernel source of '");
    assert_non_null(strstr(oklc_last_error(), "undeclared_thing"));
    assert_non_null(strstr(oklc_last_error(), "/failed/"));
    if (v->mode[0] == 'c') {    /* the device's builds find the toolkit's headers */
        char *built;
        file = put("mock/half.cu", "#include <cuda_fp16.h>\n"
                                   "extern \"C\" __global__ void h(__half *x) { x[0] = x[1]; }\n");
        assert_ok(oklc_kernel_build_only(d, file, "h", p, &built));
        free(built);
    }

    /* an OKL kernel's entry: the fixture's launcher and metadata */
    char *dir;
    assert_ok(oklc_kernel_build_only(d, put("mock/axpy.cu", axpy_cu), "_occa_axpyScale_0", p,
                                     &dir));
    char name[64], path[4300], *json;
    snprintf(name, sizeof name, "mock-%s-entry", v->mode);
    char *e = work_path(name);
    assert_ok(oklc_rt_mkdirs(e, 0700));
    link_to(dir, v->binary, e);
    assert_ok(oklc_rt_read_file(data_path("opencl/metadata.json"), &json, NULL));
    char *b = strstr(json, "\"opencl\"");
    memmove(b + 1 + strlen(v->mode), b + 7, strlen(b + 7) + 1);    /* "opencl" -> the mode */
    memcpy(b + 1, v->mode, strlen(v->mode));
    snprintf(path, sizeof path, "%s/metadata.json", e);
    assert_ok(oklc_rt_write_file(path, json, strlen(json)));
    oklc_free(json);
    snprintf(path, sizeof path, "%s/launcher.so", e);
    compile_launcher(data_path("opencl/launcher.cpp"), path);
    assert_ok(oklc_kernel_load(d, e, "axpyScale", &k));
    run_axpy_scale(d, k, 1000, 2);
    run_axpy_scale(d, k, 0, 0);
    oklc_kernel_free(k);
    assert_ok(oklc_kernel_load(d, e, "tooBig", &k));
    oklc_memory *mm;
    assert_ok(oklc_memory_alloc(d, 64, &mm));
    Shift s = {0, 1};
    oklc_arg args[] = {oklc_arg_int(4), oklc_arg_float(1), oklc_arg_struct(&s, sizeof s),
                       oklc_arg_mem(mm), oklc_arg_mem(mm)};
    assert_fails(oklc_kernel_run(k, 5, args), OKLC_ERR_DEVICE, v->launch_error);
    assert_non_null(strstr(oklc_last_error(), "device kernel 0 ('_occa_axpyScale_0') of "
                                              "'tooBig'"));
    oklc_memory_free(mm);
    oklc_kernel_free(k);
    free(dir);
    oklc_props_free(p);
    oklc_device_close(d);
    oklc_rt_dl_swap(v->ops->module->lib, NULL);
}

/* The memory API on the stand-ins: copies on the device (cuMemcpyDtoD,
 * hipMemcpy DeviceToDevice), page-locked host memory (cuMemAllocHost,
 * hipHostMalloc), views as addresses. */
static void mock_memory(const Vendor *v)
{
    oklc_rt_dl_swap(v->ops->module->lib, getenv("OKLC_TEST_GPU_MOCK"));
    oklc_device *d = open_dev(v->mode), *s = open_dev("serial");
    check_memory_api(d, s, false);
    check_streams(d, s, false);
    oklc_device_info info;    /* the stand-in's numbers */
    assert_ok(oklc_device_query(d, &info));
    assert_string_equal(info.mode, v->mode);
    assert_non_null(strstr(info.name, "Mock"));
    assert_string_equal(info.vendor, v->mode[0] == 'c' ? "NVIDIA" : "AMD");
    assert_string_equal(info.arch, v->mode[0] == 'c' ? "sm_90" : "gfx90a:sramecc+:xnack-");
    assert_int_equal(info.compute_units, 132);
    assert_true(info.max_block_threads == 1024 && info.max_block_dims[2] == 64 &&
                info.shared_memory == 49152);
    assert_true(info.memory_total == (v->mode[0] == 'c' ? 141ull : 64ull) << 30);
    assert_true(info.memory_free == (v->mode[0] == 'c' ? 140ull : 60ull) << 30);
    oklc_device_close(s);
    oklc_device_close(d);
    oklc_rt_dl_swap(v->ops->module->lib, NULL);
}

static void memory_on_stand_ins(void **state)
{
    (void)state;
    mock_memory(&vendors[0]);
    mock_memory(&vendors[1]);
}

static void cuda_on_a_stand_in(void **state)
{
    (void)state;
    mock_vendor(&vendors[0]);
}

static void hip_on_a_stand_in(void **state)
{
    (void)state;
    mock_vendor(&vendors[1]);
}

/* ---- beside other namespaces ------------------------------------------------------------- */

/* The message of the last failure and a library in a link-map namespace of
 * its own, with a C library of its own (as dl.c loads OpenCL, HIP): the
 * library's pthread keys never reach the message. (Under pthread keys, the
 * message shared the thread's slots with the namespace's keys, each side
 * overwriting the other's values: NVIDIA's OpenCL crashed at exit after a
 * failed call.) */
static void error_beside_namespace(void **state)
{
    (void)state;
    void *h = dlmopen(LM_ID_NEWLM, getenv("OKLC_TEST_TSD_PROBE"), RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    int (*keys)(void), (*sees)(const void *);
    assert_true(oklc_rt_dl_symbol(h, "tsd_probe_keys", &keys));
    assert_true(oklc_rt_dl_symbol(h, "tsd_probe_sees", &sees));
    oklc_device *d;
    assert_fails(oklc_device_open("quantum", &d), OKLC_ERR_ARGUMENT, "unknown mode 'quantum'");
    assert_true(keys() > 8);
    assert_false(sees(oklc_last_error()));
    assert_fails(oklc_device_open("mode=qubit", &d), OKLC_ERR_ARGUMENT, "unknown mode 'qubit'");
    assert_false(sees(oklc_last_error()));
}

/* ---- main ------------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    if (setup_work("oklc-runtime-gpu"))
        return -1;
    setenv("POCL_CACHE_DIR", work_path("pocl"), 1);    /* not in the user's home */
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opencl_specs),
        cmocka_unit_test(opencl_missing_library),
        cmocka_unit_test(opencl_memory),
        cmocka_unit_test(opencl_memory_api),
        cmocka_unit_test(opencl_native_kernel),
        cmocka_unit_test(opencl_native_props),
        cmocka_unit_test(opencl_native_odd_name),
        cmocka_unit_test(opencl_build_error),
        cmocka_unit_test(opencl_cache),
        cmocka_unit_test(opencl_build_only_then_load),
        cmocka_unit_test(opencl_many_arguments),
        cmocka_unit_test(opencl_checked_arguments),
        cmocka_unit_test(opencl_okl_entry),
        cmocka_unit_test(opencl_okl_transpiled),
        cmocka_unit_test(opencl_environment),
        cmocka_unit_test(opencl_allocations_fail),
        cmocka_unit_test(gpu_unavailable),
        cmocka_unit_test(nvrtc_compile),
        cmocka_unit_test(hiprtc_compile),
        cmocka_unit_test(memory_on_stand_ins),
        cmocka_unit_test(cuda_on_a_stand_in),
        cmocka_unit_test(hip_on_a_stand_in),
        cmocka_unit_test(error_beside_namespace),
    };
    /* a subset, by cmocka's patterns (* and ?): to find which tests leave
     * a vendor library in a state that matters at exit */
    if (getenv("OKLC_TEST_FILTER"))
        cmocka_set_test_filter(getenv("OKLC_TEST_FILTER"));
    if (getenv("OKLC_TEST_SKIP"))
        cmocka_set_skip_filter(getenv("OKLC_TEST_SKIP"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
