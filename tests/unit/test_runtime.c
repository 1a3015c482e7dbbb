/*
 * test_runtime.c - the runtime on the CPU devices: device specs, memory,
 * building (native C++ now; OKL once the transpiler is in the library, the
 * OKL tests skip until then), the cache (hits, what changes the key, its
 * folder and permissions and those above it, leftovers, damaged entries
 * built again, links the sweep must not follow, a cache it cannot write, a
 * full disk, allocations failing), the compiler (flags, errors,
 * OKLC_VERBOSE), arguments checked against metadata (60 of them, structs),
 * build-only/load, errors per thread, and running out of memory.
 *
 * Every test uses a cache folder under a temporary folder (OKLC_CACHE_DIR),
 * never the user's cache. Multi-process tests: tests/runtime/race.sh.
 */
#define _GNU_SOURCE    /* unshare: a mount of its own for the sweep's test */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime_helpers.h"    /* the folder, checks, kernels both runtime tests run */

/* ---- helpers ------------------------------------------------------------------- */

static const char *add_cpp(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/add.cpp", getenv("OKLC_TEST_DATA"));
    return path;
}

static const char *add_okl(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/../../examples/kernels/addVectors.okl",
             getenv("OKLC_TEST_DATA"));
    return path;
}

/* A native kernel `name` that stores the int `expr` into its one argument. */
static const char *int_kernel(const char *file, const char *prelude, const char *expr)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "%s\nextern \"C\" void get(void *const *args)\n"
             "{\n    **static_cast<int *const *>(args[0]) = %s;\n}\n", prelude, expr);
    return put(file, text);
}

/* Builds file's `get` on d with props p, runs it, returns what it stored. */
static int run_get(oklc_device *d, const char *file, const oklc_props *p)
{
    oklc_kernel *k;
    assert_ok(oklc_kernel_build(d, file, "get", p, &k));
    int v = get_value(d, k);
    oklc_kernel_free(k);
    return v;
}

/* `file` includes `header` (VALUE 1, a cache hit after `built` compiles):
 * once the header says VALUE 2, the kernel is built again. */
static void header_edit(oklc_device *d, const char *file, const oklc_props *p,
                        const char *header, long built)
{
    assert_int_equal(run_get(d, file, p), 1);
    assert_int_equal(oklc_rt_compile_count(), built);
    put(header, "#define VALUE 2\n");
    assert_int_equal(run_get(d, file, p), 2);
    assert_int_equal(oklc_rt_compile_count(), built + 1);
}

/* ---- devices --------------------------------------------------------------------- */

static void device_specs(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *mode;
        int threads;
    } good[] = {
        {"serial", "serial", 0},         {"openmp", "openmp", 0},
        {"OpenMP", "openmp", 0},         {"  SERIAL\t", "serial", 0},
        {"mode=openmp threads=4", "openmp", 4}, {"threads=2 mode=OpenMP", "openmp", 2},
        /* OCCA's device strings */
        {"{mode: 'Serial'}", "serial", 0},   {" { mode : \"OpenMP\" } ", "openmp", 0},
        {"mode: 'OpenMP', threads: 3", "openmp", 3}, {"{mode: 'Serial',}", "serial", 0},
    };
    for (size_t i = 0; i < OKLC_COUNTOF(good); i++) {
        oklc_device *d = open_dev(good[i].spec);
        assert_string_equal(oklc_device_mode(d), good[i].mode);
        assert_int_equal(d->threads, good[i].threads);
        assert_ok(oklc_device_finish(d));
        oklc_device_close(d);
    }
}

static void device_spec_errors(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        oklc_status st;
        const char *message;
    } bad[] = {
        {"", OKLC_ERR_ARGUMENT, "device spec '': no mode"},
        {"mode=vulkan", OKLC_ERR_ARGUMENT, "unknown mode 'vulkan' (modes: serial, openmp, "
                                           "cuda, hip, opencl, dpcpp, metal)"},
        {"serial colour=red", OKLC_ERR_ARGUMENT, "unknown key 'colour'"},
        {"mode=openmp threads=many", OKLC_ERR_ARGUMENT, "threads=many is not a number"},
        {"mode=openmp threads=0", OKLC_ERR_ARGUMENT, "threads=0 is not a number"},
        {"openmp threads=", OKLC_ERR_ARGUMENT, "'threads' has no value"},
        {"serial threads=4", OKLC_ERR_ARGUMENT, "'threads' does not apply to the serial"},
        {"openmp device=1", OKLC_ERR_ARGUMENT, "'device' does not apply to the openmp"},
        {"serial openmp", OKLC_ERR_ARGUMENT, "the mode is given twice"},
        {"cuda threads=2", OKLC_ERR_ARGUMENT, "'threads' does not apply to the cuda device"},
        {"mode=HIP platform=0", OKLC_ERR_ARGUMENT, "'platform' does not apply to the hip"},
        {"mode=cuda device=x", OKLC_ERR_ARGUMENT, "device=x is not a device index"},
        {"opencl threads=4", OKLC_ERR_ARGUMENT, "'threads' does not apply to the opencl"},
        {"dpcpp threads=2", OKLC_ERR_ARGUMENT, "'threads' does not apply to the dpcpp device"},
        {"mode=DPCPP platform=0", OKLC_ERR_ARGUMENT, "'platform' does not apply to the dpcpp"},
        {"mode=dpcpp device=-1", OKLC_ERR_ARGUMENT, "device=-1 is not a device index"},
        {"metal threads=2", OKLC_ERR_ARGUMENT, "'threads' does not apply to the metal device"},
        {"mode=metal device=gpu", OKLC_ERR_ARGUMENT, "device=gpu is not a device index"},
        {"{mode: 'Serial'", OKLC_ERR_ARGUMENT, "OCCA's form opens '{' without closing it"},
        {"{mode 'Serial'}", OKLC_ERR_ARGUMENT, "'mode 'Serial'' is not OCCA's key: value"},
        {"{mode: 'Serial', kernel: {verbose: true}}", OKLC_ERR_ARGUMENT,
         "OCCA's nested property 'kernel' is not a device's: kernel properties are oklc_props"},
        {"{mode: 'Serial', colour: 'red'}", OKLC_ERR_ARGUMENT,
         "unknown key 'colour' in OCCA's form (keys: mode, device_id, platform_id, threads)"},
        {"{mode: 'CUDA', device_id: 'x'}", OKLC_ERR_ARGUMENT, "device=x is not a device index"},
        {"{mode: 'Serial', device_id: 0}", OKLC_ERR_ARGUMENT,
         "device spec '{mode: 'Serial', device_id: 0}': 'device' does not apply to the serial"},
        {"{mode: 'Vulkan'}", OKLC_ERR_ARGUMENT, "unknown mode 'Vulkan'"},
        {"{}", OKLC_ERR_ARGUMENT, "no mode"},
    };
    for (size_t i = 0; i < OKLC_COUNTOF(bad); i++) {
        oklc_device *d = (oklc_device *)1;
        assert_fails(oklc_device_open(bad[i].spec, &d), bad[i].st, bad[i].message);
        assert_null(d);
    }
    assert_fails(oklc_device_open(NULL, NULL), OKLC_ERR_ARGUMENT, "NULL spec");
}

/* The metal device runs on macOS only, and is not written there yet. */
static void metal_unavailable(void **state)
{
    (void)state;
    oklc_device *d = (oklc_device *)1;
#ifdef __APPLE__
    assert_fails(oklc_device_open("metal", &d), OKLC_ERR_UNAVAILABLE,
                 "device spec 'metal': the metal device is not implemented yet");
#else
    assert_fails(oklc_device_open("metal", &d), OKLC_ERR_UNAVAILABLE,
                 "device spec 'metal': the metal device runs on macOS only (Metal.framework); "
                 "oklc transpile -b metal writes Metal Shading Language");
#endif
    assert_null(d);
    assert_fails(oklc_device_open("mode=Metal device=1", &d), OKLC_ERR_UNAVAILABLE,
                 "the metal device");
}

/* Opens `spec` with OKLC_SYCL_CXX `cxx` (NULL: unset): it fails with `want`
 * and a message holding `part`; the message is returned. */
static const char *dpcpp_fails(const char *spec, const char *cxx, oklc_status want,
                               const char *part)
{
    if (cxx)
        setenv("OKLC_SYCL_CXX", cxx, 1);
    else
        unsetenv("OKLC_SYCL_CXX");
    oklc_device *d = (oklc_device *)1;
    assert_fails(oklc_device_open(spec, &d), want, part);
    assert_null(d);
    unsetenv("OKLC_SYCL_CXX");
    return oklc_last_error();
}

/* No SYCL compiler: neither OKLC_SYCL_CXX nor icpx or acpp in PATH. */
static void dpcpp_no_compiler(void **state)
{
    (void)state;
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    char *empty = work_path("empty-bin");
    assert_int_equal(oklc_rt_mkdirs(empty, 0700), OKLC_OK);
    setenv("PATH", empty, 1);
    const char *msg = dpcpp_fails("dpcpp", NULL, OKLC_ERR_UNAVAILABLE,
                                  "device spec 'dpcpp': the dpcpp device is not available: it "
                                  "needs a SYCL 2020 compiler");
    assert_non_null(strstr(msg, "set OKLC_SYCL_CXX"));
    assert_non_null(strstr(msg, "icpx or acpp"));
    dpcpp_fails("mode=dpcpp device=1", "  \t", OKLC_ERR_UNAVAILABLE, "OKLC_SYCL_CXX");
    if (path)
        setenv("PATH", path, 1);
    else
        unsetenv("PATH");
    free(path);
}

/* A stand-in SYCL compiler: a shell script in the run's folder. */
static const char *stand_in(const char *name, const char *body)
{
    size_t n = strlen(body) + 16;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, "#!/bin/sh\n%s", body);
    const char *p = put(name, text);
    free(text);
    assert_int_equal(chmod(p, 0700), 0);
    return p;
}

/* OKLC_SYCL_CXX names a compiler that is missing, does not run, cannot
 * build the support library, or builds one that does not load: each is a
 * clean failure saying why, with the compiler's own words. */
static void dpcpp_bad_compiler(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    char cxx[4300];
    dpcpp_fails("dpcpp", "/nonexistent/icpx -fsycl", OKLC_ERR_UNAVAILABLE,
                "cannot find the SYCL compiler '/nonexistent/icpx' (from OKLC_SYCL_CXX): no "
                "such executable file");
    dpcpp_fails("dpcpp", "no-such-sycl-compiler-oklc", OKLC_ERR_UNAVAILABLE,
                "cannot find the SYCL compiler 'no-such-sycl-compiler-oklc' (from "
                "OKLC_SYCL_CXX): not in PATH");

    /* fails at once, even for --version */
    snprintf(cxx, sizeof cxx, "%s -fsycl",
             stand_in("sycl/broken", "echo 'broken-sycl: error: no licence' >&2\nexit 1\n"));
    const char *msg = dpcpp_fails("mode=dpcpp device=0", cxx, OKLC_ERR_UNAVAILABLE,
                                  "the dpcpp device is not available: the SYCL compiler does "
                                  "not work: '");
    assert_non_null(strstr(msg, "broken -fsycl --version' exited with status 1:\n"
                                "broken-sycl: error: no licence"));

    /* runs, but cannot compile: the support library's build says why */
    long compiles = oklc_rt_compile_count();
    const char *half = stand_in("sycl/half",
                                "for a; do [ \"$a\" = --version ] && echo 'half-sycl 1.0' && "
                                "exit 0; done\n"
                                "echo 'half-sycl: error: sycl/sycl.hpp: not found' >&2\nexit 1\n");
    msg = dpcpp_fails("dpcpp", half, OKLC_ERR_UNAVAILABLE,
                      "its SYCL compiler cannot build oklc's SYCL support library: ");
    assert_non_null(strstr(msg, "half-sycl: error: sycl/sycl.hpp: not found"));
    assert_non_null(strstr(msg, "-std=c++17 -shared -fPIC -O2"));
    assert_non_null(strstr(msg, "(the source and its log stay in "));
    assert_non_null(strstr(msg, "/failed/"));
    assert_int_equal(oklc_rt_compile_count(), compiles + 1);
    assert_int_equal(entries(cache), 1);    /* the failed build's folder, for its log */

    /* "compiles" a file that is no library: it is cached, and fails to load */
    const char *junk = stand_in("sycl/junk",
                                "for a; do [ \"$a\" = --version ] && echo 'junk-sycl 2' && "
                                "exit 0; done\n"
                                "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                                "echo 'not a library' > \"$out\"\n");
    for (int i = 0; i < 2; i++) {    /* the second finds the entry */
        msg = dpcpp_fails("dpcpp", junk, OKLC_ERR_LOAD,
                          "cannot load oklc's SYCL support library '");
        assert_non_null(strstr(msg, "/support.so'"));
        assert_int_equal(oklc_rt_compile_count(), compiles + 2);
    }
    assert_int_equal(entries(cache), 2);
}

/* An AdaptiveCpp stand-in in folder `dir`, named acpp: `--acpp-version`
 * lists `backends`; any other call fails, echoing its arguments. Opening
 * the dpcpp device with OKLC_SYCL_CXX `cxx` (the stand-in's path is put
 * for ACPP) fails building the support library; the message is returned. */
static const char *acpp_compiles_with(const char *dir, const char *backends, const char *cxx)
{
    char body[1024], name[64], command[4400];
    snprintf(body, sizeof body,
             "for a; do [ \"$a\" = --acpp-version ] && printf 'AdaptiveCpp version: 99.1\\n"
             "  Available runtime backends:\\n%s' && exit 0; done\n"
             "echo \"stand-in acpp: error: $*\" >&2\nexit 1\n", backends);
    snprintf(name, sizeof name, "%s/acpp", dir);
    const char *acpp = stand_in(name, body);
    snprintf(command, sizeof command, "%s%s", acpp, cxx);
    return dpcpp_fails("dpcpp", command, OKLC_ERR_UNAVAILABLE,
                       "its SYCL compiler cannot build oklc's SYCL support library: ");
}

/* AdaptiveCpp: identified by --acpp-version (its --version is Clang's);
 * with no runtime backend but its CPU one, and no target given, it
 * compiles for `omp`; a GPU backend, --acpp-targets or ACPP_TARGETS leave
 * its default. */
static void dpcpp_adaptivecpp(void **state)
{
    (void)state;
    fresh_cache();
    const char *omp = "     librt-backend-omp.so\\n";
    const char *msg = acpp_compiles_with("acpp-cpu", omp, "");
    assert_non_null(strstr(msg, "/acpp --acpp-targets=omp -std=c++17 -shared -fPIC -O2 "));
    assert_non_null(strstr(msg, "stand-in acpp: error: --acpp-targets=omp -std=c++17"));
    msg = acpp_compiles_with("acpp-gpu", "     librt-backend-omp.so\\n"
                             "     librt-backend-cuda.so\\n", "");
    assert_non_null(strstr(msg, "/acpp -std=c++17 -shared -fPIC -O2 "));
    msg = acpp_compiles_with("acpp-cpu", omp, " --acpp-targets=generic");
    assert_non_null(strstr(msg, "/acpp --acpp-targets=generic -std=c++17 -shared"));
    assert_null(strstr(msg, "targets=omp"));
    setenv("ACPP_TARGETS", "omp.library-only", 1);
    msg = acpp_compiles_with("acpp-cpu", omp, "");
    unsetenv("ACPP_TARGETS");
    assert_non_null(strstr(msg, "/acpp -std=c++17 -shared -fPIC -O2 "));
    /* a driver that fails --acpp-version: its own words */
    const char *bad = stand_in("acpp-bad/syclcc", "echo 'syclcc: no clang found' >&2\nexit 3\n");
    msg = dpcpp_fails("dpcpp", bad, OKLC_ERR_UNAVAILABLE, "the SYCL compiler does not work: '");
    assert_non_null(strstr(msg, "/syclcc --acpp-version' exited with status 3:\nsyclcc: no "
                                "clang found"));
}

/* A SYCL runtime stand-in for the dpcpp device: dpcpp_support.cpp's
 * functions on host memory, one device; its queue is the flag a kernel sets
 * to fail asynchronously. */
static const char mock_support[] =
    "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
    "extern \"C\" {\n"
    "const char *oklc_sycl_create(int i, int *n, void **h, void **q)\n"
    "{ *n = 1; *h = *q = i ? nullptr : new int(0); return nullptr; }\n"
    "void oklc_sycl_destroy(void *h) { delete (int *)h; }\n"
    "const char *oklc_sycl_name(void *, char *s, size_t n)\n"
    "{ snprintf(s, n, \"Mock SYCL device\"); return nullptr; }\n"
    "const char *oklc_sycl_malloc(void *, size_t n, void **p)\n"
    "{ *p = n >> 40 ? nullptr : malloc(n); return nullptr; }\n"
    "const char *oklc_sycl_free(void *, void *p) { free(p); return nullptr; }\n"
    "const char *oklc_sycl_copy(void *, void *d, const void *s, size_t n)\n"
    "{ memcpy(d, s, n); return nullptr; }\n"
    "const char *oklc_sycl_wait(void *h)\n"
    "{ int *f = (int *)h; if (!*f) return nullptr; *f = 0; return \"mock: a kernel failed\"; }\n"
    "}\n";

/* Every K_run of a kernel runs this: addVectors on the host; 13 entries
 * fail at submission, 14 on the "device". */
static const char mock_kernel[] =
    "static const char *mock_run(void *q, const unsigned long *g, const unsigned long *b,\n"
    "                            void *const *args)\n"
    "{\n"
    "  int n = *(const int *)args[0];\n"
    "  const float *x = *(float *const *)args[1], *y = *(float *const *)args[2];\n"
    "  float *z = *(float *const *)args[3];\n"
    "  if (n == 13) return \"mock: no work-group of that size\";\n"
    "  if (n == 14) *(int *)q = 1;\n"
    "  if (g[0] * b[0] < (unsigned long)n || g[1] != 1 || b[1] != 1) return \"mock: bad grid\";\n"
    "  for (int i = 0; i < n; i++) z[i] = x[i] + y[i];\n"
    "  return nullptr;\n"
    "}\n";

/* The dpcpp device's own code on a stand-in compiler and SYCL runtime: the
 * support library built and cached, the queue, memory and copies, an OKL
 * kernel built (its K_run found) and launched with its arguments, a
 * submission's error and an asynchronous one at finish. Last of the dpcpp
 * tests: a process keeps the first SYCL runtime it loads. */
static void dpcpp_on_a_stand_in(void **state)
{
    (void)state;
    fresh_cache();
    char *dir = strdup(work_path("sycl-mock"));
    size_t size = 2048 + 3 * strlen(dir);
    char *body = malloc(size);
    assert_true(dir && body);
    put("sycl-mock/support.cpp", mock_support);
    put("sycl-mock/kernel.hpp", mock_kernel);
    snprintf(body, size,
             "for a; do [ \"$a\" = --version ] && echo 'mock-sycl 1.0' && exit 0; done\n"
             "while [ $# -gt 1 ]; do\n"
             "  case \"$1\" in -o) out=$2;; *.cpp) src=$1;; esac; shift\n"
             "done\n"
             "case \"$src\" in */support.cpp)\n"
             "  exec c++ -shared -fPIC -o \"$out\" '%s/support.cpp';;\n"
             "esac\n"
             "stubs='%s/stubs.'$$.cpp\n"
             "for k in $(sed -n 's/^extern \"C\" const char \\*\\([A-Za-z0-9_]*\\)_run(.*/\\1/p' "
             "\"$src\"); do\n"
             "  echo \"extern \\\"C\\\" const char *${k}_run(void *q, const unsigned long *g, "
             "const unsigned long *b, void *const *a) { return mock_run(q, g, b, a); }\"\n"
             "done > \"$stubs\"\n"
             "c++ -shared -fPIC -include '%s/kernel.hpp' -o \"$out\" \"$stubs\"; r=$?\n"
             "rm -f \"$stubs\"; exit $r\n", dir, dir, dir);
    setenv("OKLC_SYCL_CXX", stand_in("sycl-mock/mock-sycl", body), 1);
    free(body);
    free(dir);

    oklc_device *d = NULL;
    long compiles = oklc_rt_compile_count();
    assert_fails(oklc_device_open("dpcpp device=1", &d), OKLC_ERR_ARGUMENT,
                 "device spec 'dpcpp device=1': there is no dpcpp device 1 (there is 1: 0 to "
                 "0)");
    assert_int_equal(oklc_rt_compile_count(), compiles + 1);    /* the support library */
    d = open_dev("mode=DPCPP device=0");
    assert_int_equal(oklc_rt_compile_count(), compiles + 1);    /* ... from the cache */
    assert_string_equal(oklc_device_mode(d), "dpcpp");
    assert_string_equal(d->label, "Mock SYCL device");

    enum { N = 1000 };
    float a[N], b[N], ab[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
        ab[i] = -1;
    }
    oklc_memory *ma, *mb, *mab, *huge;
    assert_ok(oklc_memory_alloc(d, sizeof a, &ma));
    assert_ok(oklc_memory_alloc(d, sizeof b, &mb));
    assert_ok(oklc_memory_alloc(d, sizeof ab, &mab));
    assert_ok(oklc_memory_copy_from_host(ma, a, sizeof a, 0));
    assert_ok(oklc_memory_copy_from_host(mb, b, 10 * sizeof *b, 0));
    assert_ok(oklc_memory_copy_from_host(mb, b + 10, sizeof b - 10 * sizeof *b,
                                         10 * sizeof *b));
    assert_fails(oklc_memory_alloc(d, (size_t)1 << 41, &huge), OKLC_ERR_MEMORY,
                 "on the dpcpp device 'Mock SYCL device': sycl::malloc_device: out of device "
                 "memory");

    oklc_kernel *k;
    assert_ok(oklc_kernel_build(d, add_okl(), "addVectors", NULL, &k));
    assert_int_equal(oklc_rt_compile_count(), compiles + 3);    /* device code, launcher */
    long launches = oklc_rt_launch_count();
    oklc_arg args[] = {oklc_arg_int(N), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab)};
    assert_ok(oklc_kernel_run(k, 4, args));
    assert_int_equal(oklc_rt_launch_count(), launches + 1);
    assert_ok(oklc_device_finish(d));
    assert_ok(oklc_memory_copy_to_host(mab, ab, sizeof ab, 0));
    for (int i = 0; i < N; i++)
        assert_true(ab[i] == 1.5f * (float)i);

    args[0] = oklc_arg_int(13);
    assert_fails(oklc_kernel_run(k, 4, args), OKLC_ERR_DEVICE,
                 "cannot run device kernel 0 ('_occa_addVectors_0') of 'addVectors' on the "
                 "dpcpp device 'Mock SYCL device' (grid 1x1x1, block 256x1x1): submitting it "
                 "to the SYCL queue: mock: no work-group of that size");
    args[0] = oklc_arg_int(14);
    assert_ok(oklc_kernel_run(k, 4, args));
    assert_fails(oklc_device_finish(d), OKLC_ERR_DEVICE,
                 "the dpcpp device 'Mock SYCL device': mock: a kernel failed");
    assert_ok(oklc_device_finish(d));
    oklc_kernel_free(k);

    /* a hit: nothing compiles */
    assert_ok(oklc_kernel_build(d, add_okl(), "addVectors", NULL, &k));
    assert_int_equal(oklc_rt_compile_count(), compiles + 3);
    oklc_kernel_free(k);
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(mab);
    oklc_device_close(d);
    unsetenv("OKLC_SYCL_CXX");
}

/* ---- memory ---------------------------------------------------------------------- */

static void memory_copies(void **state)
{
    (void)state;
    oklc_device *d = open_dev("serial");
    char in[100], out[100] = {0};
    oklc_memory *m = memory_100(d, in, out);
    assert_int_equal((uintptr_t)m->ptr % 64, 0);
    assert_ok(oklc_memory_copy_from_host(m, in, 0, 100));    /* empty, at the end */
    oklc_memory_free(m);
    assert_ok(oklc_memory_alloc(d, 0, &m));
    assert_int_equal(oklc_memory_size(m), 0);
    oklc_memory_free(m);
    oklc_memory_free(NULL);
    oklc_device_close(d);
}

static void memory_errors(void **state)
{
    (void)state;
    oklc_device *d = open_dev("openmp");
    oklc_memory *m;
    char buf[64];
    assert_ok(oklc_memory_alloc(d, 64, &m));
    assert_fails(oklc_memory_copy_from_host(m, buf, 60, 8), OKLC_ERR_ARGUMENT,
                 "oklc_memory_copy_from_host: 60 bytes at offset 8 go past the end of the "
                 "memory (64 bytes)");
    assert_fails(oklc_memory_copy_to_host(m, buf, 1, 65), OKLC_ERR_ARGUMENT, "go past the end");
    assert_fails(oklc_memory_copy_to_host(m, buf, SIZE_MAX, 8), OKLC_ERR_ARGUMENT,
                 "go past the end");    /* offset + bytes wraps around */
    assert_fails(oklc_memory_copy_from_host(m, NULL, 4, 0), OKLC_ERR_ARGUMENT,
                 "the host pointer is NULL");
    assert_fails(oklc_memory_copy_to_host(NULL, buf, 4, 0), OKLC_ERR_ARGUMENT,
                 "the memory is NULL");
    oklc_memory_free(m);
    m = (oklc_memory *)1;
    assert_fails(oklc_memory_alloc(d, SIZE_MAX, &m), OKLC_ERR_MEMORY, "cannot allocate");
    assert_null(m);
    assert_fails(oklc_memory_alloc(NULL, 4, &m), OKLC_ERR_ARGUMENT, "NULL device");
    oklc_device_close(d);
}

/* Views, copies between memories, wrapped and host memory, pools, a
 * kernel run on a view (runtime_helpers.h); serial and OpenMP memory is
 * host memory both, so copies between them work. */
static void memory_api(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *s = open_dev("serial"), *o = open_dev("mode=openmp threads=2");
    check_memory_api(s, o, true);
    check_memory_api(o, s, true);
    oklc_device_close(s);
    oklc_device_close(o);
}

/* Streams on the CPU devices: a thread each, their work in order; a run a
 * stream's kernel refuses is reported by the stream's finish. */
static void streams(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *s = open_dev("serial"), *o = open_dev("mode=openmp threads=2");
    check_streams(s, o, true);
    check_streams(o, s, true);
    static const char stepped[] =
        "@kernel void stepped(const int n, const int step, float *x) {\n"
        "  for (int i = 0; i < n; i += step; @outer)\n"
        "    for (int j = 0; j < 1; ++j; @inner)\n"
        "      x[i] = 1;\n}\n";
    oklc_kernel *k;
    oklc_memory *m;
    oklc_stream *st;
    assert_ok(oklc_kernel_build_string(s, "stepped.okl", stepped, "stepped", NULL, &k));
    assert_ok(oklc_memory_alloc(s, 64, &m));
    assert_ok(oklc_stream_create(s, &st));
    assert_ok(oklc_device_set_stream(s, st));
    oklc_arg args[] = {oklc_arg_int(4), oklc_arg_int(0), oklc_arg_mem(m)};
    assert_ok(oklc_kernel_run(k, 3, args));    /* queued: refused when it runs */
    assert_fails(oklc_stream_finish(s, st), OKLC_ERR_ARGUMENT, "in a stream: cannot run "
                 "'stepped' on the serial device: ");
    assert_ok(oklc_stream_finish(s, st));      /* reported once */
    oklc_stream_create(s, &st);                /* left to oklc_device_close */
    oklc_kernel_free(k);
    oklc_memory_free(m);
    oklc_device_close(s);
    oklc_device_close(o);
}

/* What a CPU device says of itself: the machine's CPU and memory, its
 * threads, no block limits. */
static void device_query(void **state)
{
    (void)state;
    oklc_device *s = open_dev("serial"), *o = open_dev("mode=openmp threads=3");
    oklc_device_info info;
    memset(&info, 0xff, sizeof info);
    assert_ok(oklc_device_query(s, &info));
    assert_string_equal(info.mode, "serial");
    assert_true(info.name[0] && info.arch[0]);
    assert_int_equal(info.compute_units, 1);
    assert_true(info.memory_total > 0 && info.memory_free > 0 &&
                info.memory_free <= info.memory_total);
    assert_true(info.max_block_threads == 0 && info.max_block_dims[2] == 0 &&
                info.shared_memory == 0);
    assert_ok(oklc_device_query(o, &info));
    assert_string_equal(info.mode, "openmp");
    assert_int_equal(info.compute_units, 3);
    assert_fails(oklc_device_query(NULL, &info), OKLC_ERR_ARGUMENT, "NULL device");
    assert_fails(oklc_device_query(s, NULL), OKLC_ERR_ARGUMENT, "NULL info");
    oklc_device_close(s);
    oklc_device_close(o);
}

/* ---- building native source -------------------------------------------------- */

static void native_build_and_run(void **state)
{
    (void)state;
    fresh_cache();
    oklc_props *p = native();
    for (int i = 0; i < 2; i++) {
        oklc_device *d = open_dev(i ? "mode=openmp threads=2" : "serial");
        oklc_kernel *k;
        assert_ok(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k));
        assert_int_equal(oklc_kernel_arg_count(k), -1);    /* native: unchecked */
        check_add(d, k);
        oklc_kernel_free(k);
        oklc_device_close(d);
    }
    oklc_props_free(p);
}

/* A native kernel written as OCCA's are (scalars by reference, memory as
 * pointers) runs right on both CPU devices, by build and by build-only +
 * load; a wrong argument count is refused, never run. */
static void native_occa_form(void **state)
{
    (void)state;
    fresh_cache();
    const char *occa = put("occa/add.cpp",
        "struct Scale { double by; int add; };\n"
        "extern \"C\" void scaled(const int &n, const Scale &s, const double &x,\n"
        "                       const float *a, float *out) {\n"
        "  for (int i = 0; i < n; ++i) out[i] = (float)(a[i] * s.by * x + s.add);\n}\n"
        "extern \"C\" void addVectors(const int &entries, const float *a, const float *b,\n"
        "                           float *ab) {\n"
        "  for (int i = 0; i < entries; ++i) ab[i] = a[i] + b[i];\n}\n"
        "extern \"C\" void none() {}\n"
        "#define KERNEL(a, b) extern \"C\" void a##b\n"    /* the name made by a macro */
        "KERNEL(by, Macro)( const int& entries ,const float*a,\n"
        "    const float *b , float* ab ) { for (int i = 0; i < entries; ++i) ab[i] = a[i] + b[i]; }\n");
    oklc_props *p = native();
    for (int i = 0; i < 2; i++) {
        oklc_device *d = open_dev(i ? "mode=openmp threads=2" : "serial");
        oklc_kernel *k;
        assert_ok(oklc_kernel_build(d, occa, "addVectors", p, &k));
        check_add(d, k);
        oklc_arg three[] = {oklc_arg_int(1), oklc_arg_int(2), oklc_arg_int(3)};
        assert_fails(oklc_kernel_run(k, 3, three), OKLC_ERR_ARGUMENT,
                     "'addVectors' takes 4 arguments (its parameters as OCCA writes them), "
                     "but 3 were given");
        oklc_kernel_free(k);
        assert_ok(oklc_kernel_build(d, occa, "byMacro", p, &k));    /* named by a macro */
        check_add(d, k);
        oklc_kernel_free(k);
        char *dir;
        assert_ok(oklc_kernel_build_only(d, occa, "scaled", p, &dir));
        assert_ok(oklc_kernel_load(d, dir, "scaled", &k));
        free(dir);
        float a[5] = {1, 2, 3, 4, 5}, out[5];
        struct { double by; int add; } s = {2, 1};
        oklc_memory *ma, *mo;
        assert_ok(oklc_memory_alloc(d, sizeof a, &ma));
        assert_ok(oklc_memory_alloc(d, sizeof out, &mo));
        assert_ok(oklc_memory_copy_from_host(ma, a, sizeof a, 0));
        oklc_arg args[] = {oklc_arg_int(5), oklc_arg_struct(&s, sizeof s), oklc_arg_double(3),
                           oklc_arg_mem(ma), oklc_arg_mem(mo)};
        assert_ok(oklc_kernel_run(k, 5, args));
        assert_ok(oklc_memory_copy_to_host(mo, out, sizeof out, 0));
        for (int j = 0; j < 5; j++)
            assert_true(out[j] == a[j] * 6 + 1);
        oklc_kernel_free(k);
        assert_ok(oklc_kernel_build(d, occa, "none", p, &k));
        assert_ok(oklc_kernel_run(k, 0, NULL));
        assert_fails(oklc_kernel_run(k, 1, args), OKLC_ERR_ARGUMENT, "'none' takes 0 arguments");
        oklc_kernel_free(k);
        oklc_memory_free(ma);
        oklc_memory_free(mo);
        oklc_device_close(d);
    }
    /* more parameters than oklc calls in OCCA's form */
    char text[8192];
    int n = snprintf(text, sizeof text, "extern \"C\" void wide(");
    for (int i = 0; i < 65; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%sint *a%d", i ? ", " : "", i);
    snprintf(text + n, sizeof text - (size_t)n, ") {}\n");
    oklc_device *d = open_dev("serial");
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, put("occa/wide.cpp", text), "wide", p, &k),
                 OKLC_ERR_ARGUMENT, "'wide' has 65 parameters written as OCCA writes them; "
                 "oklc calls such kernels with at most 64");
    oklc_device_close(d);
    oklc_props_free(p);
}

/* OpenMP builds get -fopenmp, and the device's thread count through the
 * library's _occa_set_num_threads; the serial device gets neither. */
static void openmp_threads(void **state)
{
    (void)state;
    fresh_cache();
    const char *file = int_kernel(
        "omp/threads.cpp",
        "#include <omp.h>\n#ifndef _OPENMP\n#error built without -fopenmp\n#endif\n"
        "extern \"C\" void _occa_set_num_threads(int n) { omp_set_num_threads(n); }\n"
        "static int count() {\n  int n = 0;\n#pragma omp parallel\n#pragma omp single\n"
        "  n = omp_get_num_threads();\n  return n;\n}\n",
        "count()");
    oklc_props *p = native();
    oklc_device *d = open_dev("mode=openmp threads=3");
    assert_int_equal(run_get(d, file, p), 3);
    oklc_device_close(d);
    d = open_dev("openmp");
    assert_true(run_get(d, file, p) >= 1);
    oklc_device_close(d);
    d = open_dev("serial");
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, file, "get", p, &k), OKLC_ERR_COMPILE,
                 "built without -fopenmp");
    oklc_device_close(d);
    oklc_props_free(p);
}

/* The props' defines and include files reach native source; its own folder
 * is searched for "..." includes; string sources work the same. */
static void native_props(void **state)
{
    (void)state;
    fresh_cache();
    oklc_props *p = props_with_includes("props", "VALUE=1");
    const char *file = int_kernel("props/k.cpp", "#include \"local.h\"\n#include <extra.h>\n",
                                  "VALUE + EXTRA + PRE + LOCAL");
    oklc_device *d = open_dev("serial");
    assert_int_equal(run_get(d, file, p), 4231);
    oklc_kernel *k;
    assert_ok(oklc_kernel_build_string(d, file, "#include \"local.h\"\n"
                                       "extern \"C\" void get(void *const *a)\n"
                                       "{ **(int *const *)a[0] = LOCAL + VALUE; }\n",
                                       "get", p, &k));
    oklc_kernel_free(k);
    assert_fails(oklc_props_define(p, ""), OKLC_ERR_ARGUMENT, "oklc_props_define");
    oklc_device_close(d);
    oklc_props_free(p);
}

/* ---- the compiler --------------------------------------------------------------- */

#if defined(__powerpc__) || defined(__powerpc64__)
#define DEFAULT_FLAGS "-O3 -mcpu=native"
#else
#define DEFAULT_FLAGS "-O3 -march=native"
#endif

/* Flags: props, else OKLC_CXXFLAGS, else -O3 for this CPU; compiler: props, else
 * OKLC_CXX, else c++. Flags are split at blanks, with no shell. */
static void compiler_choice(void **state)
{
    (void)state;
    fresh_cache();
    const char *file = int_kernel("flags/k.cpp", "#ifdef __OPTIMIZE__\n#define OPT 1\n"
                                  "#else\n#define OPT 0\n#endif\n", "VALUE + OPT");
    oklc_props *p = native();
    oklc_device *d = open_dev("serial");
    setenv("OKLC_CXXFLAGS", "-O0  -DVALUE=5", 1);
    assert_int_equal(run_get(d, file, p), 5);
    assert_ok(oklc_props_compiler_flags(p, "-DVALUE=7\t-O2"));
    assert_int_equal(run_get(d, file, p), 8);
    unsetenv("OKLC_CXXFLAGS");
    setenv("OKLC_CXX", "/nonexistent", 1);
    assert_ok(oklc_props_compiler(p, "g++"));
    assert_int_equal(run_get(d, file, p), 8);    /* the props' compiler wins */
    assert_ok(oklc_props_compiler(p, NULL));
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, file, "get", p, &k), OKLC_ERR_COMPILE,
                 "cannot find the compiler '/nonexistent' (from OKLC_CXX): no such "
                 "executable file");
    /* OCCA's names, where oklc's are not set */
    setenv("OCCA_CXX", "/nonexistent-occa", 1);
    assert_fails(oklc_kernel_build(d, file, "get", p, &k), OKLC_ERR_COMPILE,
                 "cannot find the compiler '/nonexistent' (from OKLC_CXX)");
    unsetenv("OKLC_CXX");
    assert_fails(oklc_kernel_build(d, file, "get", p, &k), OKLC_ERR_COMPILE,
                 "cannot find the compiler '/nonexistent-occa' (from OCCA_CXX)");
    unsetenv("OCCA_CXX");
    assert_ok(oklc_props_compiler_flags(p, NULL));
    setenv("OCCA_CXXFLAGS", "-O0 -DVALUE=9", 1);
    assert_int_equal(run_get(d, file, p), 9);
    setenv("OKLC_CXXFLAGS", "-O2 -DVALUE=3", 1);
    assert_int_equal(run_get(d, file, p), 4);
    unsetenv("OKLC_CXXFLAGS");
    unsetenv("OCCA_CXXFLAGS");
    assert_ok(oklc_props_compiler_flags(p, "-DVALUE=7\t-O2"));
    assert_ok(oklc_props_compiler(p, "no-such-compiler-oklc"));
    assert_fails(oklc_kernel_build(d, file, "get", p, &k), OKLC_ERR_COMPILE,
                 "cannot find the compiler 'no-such-compiler-oklc' (from the kernel's "
                 "properties): not in PATH");
    assert_null(k);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* The whole compiler output comes back, and the source stays to be read. */
static void compile_error(void **state)
{
    (void)state;
    const char *msg = compile_fails("serial", "bad/k.cpp",
                                    "extern \"C\" void get(void *const *args)\n"
                                    "{\n  int x = undeclared_thing;\n}\n",
                                    "cannot compile the kernel source of '");
    assert_non_null(strstr(msg, "the compiler exited with status 1"));
    assert_non_null(strstr(msg, "undeclared_thing"));    /* quotes depend on the locale */
    assert_non_null(strstr(msg, "source.cpp:3:11: error:"));
    assert_non_null(strstr(msg, "-std=c++17 -shared -fPIC -fopenmp-simd -D_OCCA_SIMD " DEFAULT_FLAGS));
}

static void verbose(void **state)
{
    (void)state;
    fresh_cache();
    const char *log = work_path("verbose.log");
    oklc_props *p = native();
    assert_ok(oklc_props_define(p, "MSG=a b"));
    oklc_device *d = open_dev("openmp");
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    setenv("OKLC_VERBOSE", "1", 1);
    oklc_kernel *k;
    oklc_status st = oklc_kernel_build(d, add_cpp(), "addVectors", p, &k);
    unsetenv("OKLC_VERBOSE");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_ok(st);
    char *text;
    assert_ok(oklc_rt_read_file(log, &text, NULL));
    assert_non_null(strstr(text, "oklc: compiling: /"));
    assert_non_null(strstr(text, " -std=c++17 -shared -fPIC -fopenmp " DEFAULT_FLAGS " -I/"));
    assert_non_null(strstr(text, " '-DMSG=a b' "));    /* quoted for a shell */
    assert_non_null(strstr(text, "source.cpp -o /"));
    assert_non_null(strstr(text, "oklc: source of 'addVectors': /"));
    oklc_free(text);
    oklc_kernel_free(k);
    oklc_device_close(d);
    oklc_props_free(p);
    /* OCCA's name for it; oklc's wins where both are set */
    setenv("OCCA_VERBOSE", "1", 1);
    assert_true(oklc_rt_verbose());
    setenv("OKLC_VERBOSE", "0", 1);
    assert_false(oklc_rt_verbose());
    unsetenv("OKLC_VERBOSE");
    unsetenv("OCCA_VERBOSE");
    assert_false(oklc_rt_verbose());
}

/* What names a CPU in /proc/cpuinfo: the first processor's model and
 * feature lines, not its clock, BogoMIPS or ids. */
static void cpu_identity(void **state)
{
    (void)state;
    const char *x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                      "model\t\t: 17\nmodel name\t: AMD EPYC 9654\nstepping\t: 1\n"
                      "cpu MHz\t\t: %s\napicid\t\t: 0\nflags\t\t: fpu sse2 avx2 avx512f\n"
                      "bogomips\t: %s\n\nprocessor\t: 1\nmodel name\t: Other\n";
    char one[600], two[600];
    snprintf(one, sizeof one, x86, "2400.000", "4800.00");
    snprintf(two, sizeof two, x86, "3551.208", "4799.98");
    char *a = oklc_rt_cpu_identity(one), *b = oklc_rt_cpu_identity(two);
    assert_string_equal(a, "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
                           "model name\t: AMD EPYC 9654\nstepping\t: 1\n"
                           "flags\t\t: fpu sse2 avx2 avx512f\n");
    assert_string_equal(a, b);    /* another clock, the same CPU */
    oklc_free(b);
    one[strlen("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 2")] = '3';
    b = oklc_rt_cpu_identity(one);
    assert_string_not_equal(a, b);    /* another family */
    oklc_free(a);
    oklc_free(b);
    a = oklc_rt_cpu_identity("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd sve\n"
                             "CPU implementer\t: 0x41\nCPU part\t: 0xd40\n");
    assert_string_equal(a, "Features\t: fp asimd sve\nCPU implementer\t: 0x41\n"
                           "CPU part\t: 0xd40\n");
    oklc_free(a);
    a = oklc_rt_cpu_identity("");
    assert_string_equal(a, "");
    oklc_free(a);
}

/* Flags that make code for this CPU alone (the default) put the CPU in
 * the key; others do not. */
static void cpu_in_key(void **state)
{
    (void)state;
    char *info = NULL;
    (void)oklc_rt_read_file("/proc/cpuinfo", &info, NULL);
    char *id = oklc_rt_cpu_identity(info ? info : "");
    oklc_free(info);
    oklc_device *d = open_dev("openmp");
    oklc_props *p = native();
    const char *const flags[] = {NULL, "-O2 -mcpu=native", "-xHost", "-O3", "-O3 -DX=native"};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        assert_ok(oklc_props_compiler_flags(p, flags[i]));
        Build b = {.dev = d, .props = p, .name = "k"};
        assert_ok(d->ops->command(d, &b));
        if (i < 3) {
            assert_non_null(b.device_id);
            assert_non_null(strstr(b.device_id, "host cpu "));
            assert_non_null(strstr(b.device_id, id));
        } else {
            assert_null(b.device_id);
        }
        oklc_rt_build_free(&b);
    }
    oklc_free(id);
    oklc_props_free(p);
    oklc_device_close(d);
}

/* ---- the cache ----------------------------------------------------------------- */

static void cache_hits(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    oklc_props *p = native();
    oklc_device *d = open_dev("serial");
    long before = oklc_rt_compile_count();
    char *dir;
    assert_ok(oklc_kernel_build_only(d, add_cpp(), "addVectors", p, &dir));
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    /* source.cpp kernel.so metadata.json entry.json build.log manifest */
    assert_int_equal(entries(dir), 6);
    assert_int_equal(strncmp(dir, cache, strlen(cache)), 0);
    oklc_kernel *k;
    assert_ok(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k));
    assert_int_equal(oklc_rt_compile_count(), before + 1);    /* a hit */
    check_add(d, k);
    oklc_kernel_free(k);
    /* the mode, a define and the flags each make another binary */
    oklc_device *omp = open_dev("openmp");
    assert_ok(oklc_kernel_build(omp, add_cpp(), "addVectors", p, &k));
    oklc_kernel_free(k);
    oklc_device_close(omp);
    assert_ok(oklc_props_define(p, "UNUSED=1"));
    assert_ok(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k));
    oklc_kernel_free(k);
    setenv("OKLC_CXXFLAGS", "-O1", 1);
    assert_ok(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k));
    unsetenv("OKLC_CXXFLAGS");
    oklc_kernel_free(k);
    assert_int_equal(oklc_rt_compile_count(), before + 4);
    assert_int_equal(entries(cache), 4);
    free(dir);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* An included header is part of the key: editing it rebuilds. */
static void cache_header_edit(void **state)
{
    (void)state;
    fresh_cache();
    put("hdr/value.h", "#define VALUE 1\n");
    const char *file = int_kernel("hdr/k.cpp", "#include \"value.h\"\n", "VALUE");
    oklc_props *p = native();
    oklc_device *d = open_dev("serial");
    long before = oklc_rt_compile_count();
    assert_int_equal(run_get(d, file, p), 1);
    header_edit(d, file, p, "hdr/value.h", before + 1);
    oklc_device_close(d);
    oklc_props_free(p);
}

static void cache_folder(void **state)
{
    (void)state;
    char *root;
    struct stat st;
    const char *cache = fresh_cache();
    assert_ok(oklc_rt_cache_root(&root));
    assert_string_equal(root, cache);
    assert_int_equal(stat(root, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    oklc_free(root);
    /* $XDG_CACHE_HOME/oklc, else ~/.cache/oklc */
    char *saved_home = strdup(getenv("HOME") ? getenv("HOME") : "/");
    unsetenv("OKLC_CACHE_DIR");
    setenv("XDG_CACHE_HOME", work_path("xdg"), 1);
    assert_ok(oklc_rt_cache_root(&root));
    assert_string_equal(root, work_path("xdg/oklc"));
    oklc_free(root);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", work_path("home"), 1);
    assert_ok(oklc_rt_cache_root(&root));
    assert_string_equal(root, work_path("home/.cache/oklc"));
    oklc_free(root);
    setenv("OCCA_CACHE_DIR", work_path("occa"), 1);    /* OCCA's, beside its own entries */
    assert_ok(oklc_rt_cache_root(&root));
    assert_string_equal(root, work_path("occa/oklc"));
    oklc_free(root);
    unsetenv("OCCA_CACHE_DIR");
    setenv("HOME", saved_home, 1);
    free(saved_home);
}

/* What `oklc cache` lists: each entry with what its entry.json says, the
 * failed builds; prune by last use (a load is a use), clear. */
static void cache_list_prune_clear(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    oklc_props *p = native();
    oklc_device *d = open_dev("serial");
    char *dir;
    assert_ok(oklc_kernel_build_only(d, add_cpp(), "addVectors", p, &dir));
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, put("list/bad.cpp", "int x = undeclared;\n"), "get", p, &k),
                 OKLC_ERR_COMPILE, "cannot compile");
    char pch[4300];
    snprintf(pch, sizeof pch, "%s/pch", cache);
    assert_int_equal(mkdir(pch, 0700), 0);    /* the command's, cleared with the rest */
    oklc_cache_entry *e;
    size_t n;
    assert_ok(oklc_cache_list(&e, &n));
    assert_int_equal(n, 2);
    int good = e[0].failed ? 1 : 0;
    assert_string_equal(e[good].kernel, "addVectors");
    assert_string_equal(e[good].mode, "serial");
    assert_string_equal(e[good].path, dir);
    assert_non_null(strstr(e[good].source, "/add.cpp"));
    assert_true(e[good].bytes > 1000 && !e[good].failed);
    assert_true(e[!good].failed && !strcmp(e[!good].kernel, "get"));
    assert_non_null(strstr(e[!good].path, "/failed/"));
    free(e);
    /* two days unused; a load makes it used again */
    struct timespec old[2] = {{time(NULL) - 2 * 86400, 0}, {time(NULL) - 2 * 86400, 0}};
    assert_int_equal(utimensat(AT_FDCWD, dir, old, 0), 0);
    assert_ok(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k));
    oklc_kernel_free(k);
    size_t removed;
    uint64_t bytes;
    assert_ok(oklc_cache_prune(86400, &removed, &bytes));
    assert_int_equal(removed, 0);
    assert_int_equal(utimensat(AT_FDCWD, dir, old, 0), 0);
    assert_ok(oklc_cache_prune(86400, &removed, &bytes));
    assert_int_equal(removed, 1);
    assert_true(bytes > 1000);
    assert_int_equal(access(dir, F_OK), -1);
    assert_ok(oklc_cache_clear(&removed, NULL));
    assert_int_equal(removed, 2);    /* the failed build, pch/ */
    assert_ok(oklc_cache_list(&e, &n));
    assert_int_equal(n, 0);
    free(e);
    assert_int_equal(entries(cache), 0);
    assert_fails(oklc_cache_prune(-1, NULL, NULL), OKLC_ERR_ARGUMENT, "a negative age");
    free(dir);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* Whoever can write the cache can put code into our kernels. */
static void cache_folder_refused(void **state)
{
    (void)state;
    char *root = NULL;
    const char *cache = fresh_cache();
    assert_int_equal(mkdir(cache, 0777), 0);
    assert_int_equal(chmod(cache, 0777), 0);
    assert_fails(oklc_rt_cache_root(&root), OKLC_ERR_IO, "is writable by others (mode 777)");
    oklc_device *d = open_dev("serial");
    oklc_props *p = native();
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k), OKLC_ERR_IO,
                 "writable by others");
    assert_int_equal(chmod(cache, 0700), 0);
    if (geteuid() == 0) {    /* only root can give a folder away */
        assert_int_equal(chown(cache, 65534, 65534), 0);
        assert_fails(oklc_rt_cache_root(&root), OKLC_ERR_IO, "belongs to user 65534, not to you");
    }
    put("file-cache", "");
    setenv("OKLC_CACHE_DIR", work_path("file-cache"), 1);
    assert_fails(oklc_rt_cache_root(&root), OKLC_ERR_IO, "file-cache' is not a folder");
    assert_null(root);
    oklc_props_free(p);
    oklc_device_close(d);
}

/* Two processes built the same entry: the second rename fails, and the
 * second build is dropped in favour of the first. */
static void cache_publish_race(void **state)
{
    (void)state;
    char *root, *a, *b;
    fresh_cache();
    assert_ok(oklc_rt_cache_root(&root));
    assert_ok(oklc_rt_cache_tmp(root, "k", &a));
    assert_ok(oklc_rt_cache_tmp(root, "k", &b));
    assert_string_not_equal(a, b);
    char *fa = oklc_rt_path(a, "kernel.so"), *fb = oklc_rt_path(b, "kernel.so");
    assert_ok(oklc_rt_write_file(fa, "first", 5));
    assert_ok(oklc_rt_write_file(fb, "second", 6));
    assert_ok(oklc_rt_cache_seal(a));
    assert_ok(oklc_rt_cache_seal(b));
    char *entry = oklc_rt_path(root, "k");
    assert_ok(oklc_rt_cache_publish(a, entry));
    assert_ok(oklc_rt_cache_publish(b, entry));
    assert_int_equal(access(b, F_OK), -1);
    assert_int_equal(entries(root), 1);
    char *text, *fe = oklc_rt_path(entry, "kernel.so");
    assert_ok(oklc_rt_read_file(fe, &text, NULL));
    assert_string_equal(text, "first");
    oklc_free(text);
    /* the entry there is damaged: a third build takes its place */
    assert_ok(oklc_rt_write_file(fe, "firs", 4));
    oklc_free(b);
    assert_ok(oklc_rt_cache_tmp(root, "k", &b));
    oklc_free(fb);
    fb = oklc_rt_path(b, "kernel.so");
    assert_ok(oklc_rt_write_file(fb, "third", 5));
    assert_ok(oklc_rt_cache_seal(b));
    assert_ok(oklc_rt_cache_publish(b, entry));
    assert_int_equal(entries(root), 1);
    assert_ok(oklc_rt_read_file(fe, &text, NULL));
    assert_string_equal(text, "third");
    oklc_free(text);
    bool found;
    assert_ok(oklc_rt_cache_verify(entry, &found));
    oklc_free(fa), oklc_free(fb), oklc_free(fe), oklc_free(entry);
    oklc_free(a), oklc_free(b), oklc_free(root);
}

/* Temporary folders of killed builds go once they are an hour old; a
 * young one may be a build in progress in another process. */
static void cache_sweep(void **state)
{
    (void)state;
    char *root, *old, *young;
    fresh_cache();
    assert_ok(oklc_rt_cache_root(&root));
    assert_ok(oklc_rt_cache_tmp(root, "k", &old));
    assert_ok(oklc_rt_cache_tmp(root, "k", &young));
    char *half = oklc_rt_path(old, "kernel.so");
    assert_ok(oklc_rt_write_file(half, "\177ELF", 4));
    struct timeval past[2];
    gettimeofday(&past[0], NULL);
    past[0].tv_sec -= 7200;
    past[1] = past[0];
    assert_int_equal(utimes(old, past), 0);
    char *entry = oklc_rt_path(root, "done");
    assert_int_equal(mkdir(entry, 0700), 0);
    assert_int_equal(utimes(entry, past), 0);
    oklc_rt_cache_sweep(root, 3600);
    assert_int_equal(access(old, F_OK), -1);
    assert_int_equal(access(young, F_OK), 0);
    assert_int_equal(access(entry, F_OK), 0);
    oklc_free(half), oklc_free(entry), oklc_free(old), oklc_free(young), oklc_free(root);
}

/* In a child with a mount namespace of its own: a file system mounted
 * inside an old temporary folder, which the sweep removes around it but
 * never enters (77: this system lets no test mount one). */
static int sweep_mount_child(const char *root)
{
    char stale[4300], mnt[4400], kept[4500];
    snprintf(stale, sizeof stale, "%s/k.tmp.3.mounted", root);
    snprintf(mnt, sizeof mnt, "%s/mnt", stale);
    snprintf(kept, sizeof kept, "%s/keep.txt", mnt);
    if (mkdir(stale, 0700) || mkdir(mnt, 0700))
        return 1;
    if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
        mount("oklc-test", mnt, "tmpfs", 0, NULL)) {
        fprintf(stderr, "cannot mount a tmpfs here (%s)\n", strerror(errno));
        return 77;
    }
    FILE *f = fopen(kept, "w");
    if (!f || fputs("another file system's\n", f) < 0 || fclose(f))
        return 1;
    struct timeval past[2];
    gettimeofday(&past[0], NULL);
    past[0].tv_sec -= 7200;
    past[1] = past[0];
    if (utimes(stale, past))
        return 1;
    oklc_rt_cache_sweep(root, 3600);
    if (access(kept, F_OK)) {
        fprintf(stderr, "the sweep removed %s, inside a mount\n", kept);
        return 1;
    }
    return 0;
}

static void cache_sweep_mount(void **state)
{
    (void)state;
    char *root;
    fresh_cache();
    assert_ok(oklc_rt_cache_root(&root));
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(sweep_mount_child(root));
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    oklc_free(root);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        skip();
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- the cache: damage, links, privacy, failures ------------------------------------- */

/* Code that may crash (SIGBUS inside dlopen, before the fix) runs in a
 * child process: the test sees how it ended instead of dying with it. The
 * child uses no cmocka assertion (it would jump into the parent's copy of
 * the test); it says what went wrong on stderr and exits 1. */
typedef int (*ChildFn)(const char *arg);

static void in_child(ChildFn fn, const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* cmocka's handlers would catch a crash and run on the other tests
         * in this process: the child dies of it instead */
        static const int crashes[] = {SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGABRT};
        for (size_t i = 0; i < OKLC_COUNTOF(crashes); i++)
            signal(crashes[i], SIG_DFL);
        _exit(fn(arg));
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the child was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    if (WEXITSTATUS(status))
        fail_msg("the child failed (exit status %d)", WEXITSTATUS(status));
}

/* In a child: the status and message wanted, else 1 saying what came. */
static int expect(oklc_status st, oklc_status want, const char *part)
{
    if (st == want && strstr(oklc_last_error(), part))
        return 0;
    fprintf(stderr, "wanted %s with '%s', got %s: %s\n", oklc_status_name(want), part,
            oklc_status_name(st), oklc_last_error());
    return 1;
}

/* In a child: addVectors of k gives a + b. */
static int adds(oklc_device *d, oklc_kernel *k)
{
    float a[64], b[64], ab[64] = {0};
    for (int i = 0; i < 64; i++)
        a[i] = (float)i, b[i] = (float)(2 * i);
    oklc_memory *ma = NULL, *mb = NULL, *mab = NULL;
    oklc_status st = oklc_memory_alloc(d, sizeof a, &ma);
    if (!st)
        st = oklc_memory_alloc(d, sizeof b, &mb);
    if (!st)
        st = oklc_memory_alloc(d, sizeof ab, &mab);
    if (!st)
        st = oklc_memory_copy_from_host(ma, a, sizeof a, 0);
    if (!st)
        st = oklc_memory_copy_from_host(mb, b, sizeof b, 0);
    oklc_arg args[] = {oklc_arg_int(64), oklc_arg_mem(ma), oklc_arg_mem(mb), oklc_arg_mem(mab)};
    if (!st)
        st = oklc_kernel_run(k, 4, args);
    if (!st)
        st = oklc_memory_copy_to_host(mab, ab, sizeof ab, 0);
    oklc_memory_free(ma);
    oklc_memory_free(mb);
    oklc_memory_free(mab);
    int bad = expect(st, OKLC_OK, "");
    for (int i = 0; !bad && i < 64; i++)
        bad = ab[i] != (float)(3 * i);
    return bad;
}

/* In a child: builds addVectors of `file` on serial (props `define`, if
 * not NULL) and runs it; the status and message wanted. */
static int build_and_add(const char *file, const char *define, oklc_status want,
                         const char *part)
{
    oklc_device *d = NULL;
    oklc_props *p = oklc_props_new();
    oklc_kernel *k = NULL;
    oklc_status st = p ? oklc_props_okl(p, false) : OKLC_ERR_MEMORY;
    if (!st && define)
        st = oklc_props_define(p, define);
    if (!st)
        st = oklc_device_open("serial", &d);
    if (!st)
        st = oklc_kernel_build(d, file, "addVectors", p, &k);
    int bad = expect(st, want, part);
    if (!bad && k)
        bad = adds(d, k);
    oklc_kernel_free(k);
    oklc_device_close(d);
    oklc_props_free(p);
    return bad;
}

static int child_builds(const char *file)
{
    return build_and_add(file, NULL, OKLC_OK, "");
}

static int child_loads_damaged(const char *entry)
{
    oklc_device *d = NULL;
    oklc_kernel *k = NULL;
    oklc_status st = oklc_device_open("serial", &d);
    if (!st)
        st = oklc_kernel_load(d, entry, "addVectors", &k);
    int bad = expect(st, OKLC_ERR_LOAD, "is damaged: ");
    oklc_kernel_free(k);
    oklc_device_close(d);
    return bad;
}

static void truncate_half(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
}

/* Flips the bits of the byte in the middle: same size, other content. */
static void garble(const char *path)
{
    int fd = open(path, O_RDWR);
    struct stat st;
    unsigned char c;
    assert_true(fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0);
    assert_int_equal(pread(fd, &c, 1, st.st_size / 2), 1);
    c = (unsigned char)~c;
    assert_int_equal(pwrite(fd, &c, 1, st.st_size / 2), 1);
    close(fd);
}

typedef enum Damage {
    TRUNCATED_BINARY, GARBLED_METADATA, NO_MANIFEST, GARBLED_MANIFEST, EXTRA_FILE,
    MISSING_FILE, LINKED_BINARY
} Damage;

/* Spoils entry `dir` (whose whole binary is also at `good`) the way `what` says;
 * returns what the check says of it. */
static const char *spoil(const char *dir, const char *good, Damage what)
{
    char path[4300];
    static const char *const names[] = {"kernel.so", "metadata.json", "manifest", "manifest",
                                        "extra.txt", "source.cpp", "kernel.so"};
    static const char *const said[] = {
        "kernel.so has ", "metadata.json does not match its hash in the manifest",
        "it has no manifest (an older oklc made it)", "its manifest is not valid",
        "it holds 6 files, its manifest lists 5", "source.cpp: No such file or directory",
        "kernel.so: a symbolic link"};
    snprintf(path, sizeof path, "%s/%s", dir, names[what]);
    switch (what) {
    case TRUNCATED_BINARY: truncate_half(path); break;
    case GARBLED_METADATA: garble(path); break;
    case NO_MANIFEST: case MISSING_FILE: assert_int_equal(unlink(path), 0); break;
    case GARBLED_MANIFEST: assert_ok(oklc_rt_write_file(path, "oklc cache entry 1\nx\n", 21)); break;
    case EXTRA_FILE: assert_ok(oklc_rt_write_file(path, "", 0)); break;
    case LINKED_BINARY:
        assert_int_equal(unlink(path), 0);
        assert_int_equal(symlink(good, path), 0);
        break;
    }
    return said[what];
}

/* A damaged entry is found before anything in it is used, and built again
 * in its place; loading it by its folder says what is wrong. Before the
 * manifest, a truncated kernel.so killed every process with SIGBUS inside
 * dlopen, and garbled metadata was an error for ever. */
static void cache_damaged_entry(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    oklc_device *d = open_dev("serial");
    char *dir = build_native(d, add_cpp(), "addVectors");
    char good[4300], bin[4300];
    snprintf(good, sizeof good, "%s", work_path("good.so"));
    snprintf(bin, sizeof bin, "%s/kernel.so", dir);
    char *text;
    size_t len;
    assert_ok(oklc_rt_read_file(bin, &text, &len));
    assert_ok(oklc_rt_write_file(good, text, len));
    oklc_free(text);
    for (Damage what = TRUNCATED_BINARY; what <= LINKED_BINARY; what++) {
        const char *said = spoil(dir, good, what);
        bool found = false;
        assert_fails(oklc_rt_cache_verify(dir, &found), OKLC_ERR_LOAD, said);
        assert_true(found);
        assert_non_null(strstr(oklc_last_error(), "is damaged: "));
        if (what != NO_MANIFEST)    /* a folder without one is loaded as it is */
            in_child(child_loads_damaged, dir);
        in_child(child_builds, add_cpp());
        assert_ok(oklc_rt_cache_verify(dir, &found));
        assert_int_equal(entries(cache), 1);    /* no temporary folder stays */
        assert_int_equal(entries(dir), 6);
    }
    free(dir);
    oklc_device_close(d);
}

/* Ages `path` itself (a link: not its target) by two hours. */
static void age(const char *path)
{
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= 7200;
    t[1] = t[0];
    assert_int_equal(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

/* A link named like an old temporary folder, or inside one, is removed
 * by the sweep of the next cache miss; what it points to stays. */
static void cache_sweep_links(void **state)
{
    (void)state;
    char *root, link[4300], nested[4300], inner[4400];
    fresh_cache();
    assert_ok(oklc_rt_cache_root(&root));
    const char *kept = put("outside/keep.txt", "not the cache's\n");
    const char *kept2 = put("outside2/keep.txt", "not the cache's either\n");
    snprintf(link, sizeof link, "%s/k.tmp.1.linked", root);
    assert_int_equal(symlink(work_path("outside"), link), 0);
    age(link);
    snprintf(nested, sizeof nested, "%s/k.tmp.2.nested", root);
    assert_int_equal(mkdir(nested, 0700), 0);
    snprintf(inner, sizeof inner, "%s/sub", nested);
    assert_int_equal(symlink(work_path("outside2"), inner), 0);
    age(nested);
    oklc_props *p = native();
    oklc_device *d = open_dev("serial");
    oklc_kernel *k;
    long before = oklc_rt_compile_count();
    assert_ok(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k));    /* a miss: a sweep */
    assert_int_equal(oklc_rt_compile_count(), before + 1);
    oklc_kernel_free(k);
    struct stat st;
    assert_int_equal(lstat(link, &st), -1);      /* the links went */
    assert_int_equal(lstat(nested, &st), -1);
    assert_int_equal(access(kept, F_OK), 0);     /* their targets stayed */
    assert_int_equal(access(kept2, F_OK), 0);
    assert_int_equal(access(work_path("outside"), F_OK), 0);
    assert_int_equal(entries(root), 1);
    oklc_device_close(d);
    oklc_props_free(p);
    oklc_free(root);
}

/* OKLC_CACHE_DIR=<work>/<parent>/cache with the parent's mode (and owner,
 * when uid >= 0); returns the status of finding the cache. */
static oklc_status cache_under(const char *parent, mode_t mode, long uid)
{
    char dir[4300];
    snprintf(dir, sizeof dir, "%s", work_path(parent));
    assert_ok(oklc_rt_mkdirs(dir, 0700));
    assert_int_equal(chmod(dir, mode), 0);
    if (uid >= 0)
        assert_int_equal(chown(dir, (uid_t)uid, (gid_t)-1), 0);
    strcat(dir, "/cache");
    setenv("OKLC_CACHE_DIR", dir, 1);
    char *root = NULL;
    oklc_status st = oklc_rt_cache_root(&root);
    oklc_free(root);
    return st;
}

/* The README promises a private cache: a folder others may read becomes
 * 0700; one others may write is refused (its contents may be theirs); so
 * is one inside a folder others may write (unless sticky, as /tmp) or
 * that another user owns: they could swap the cache for their own. */
static void cache_folder_private(void **state)
{
    (void)state;
    char *root;
    struct stat st;
    const char *cache = fresh_cache();
    assert_int_equal(mkdir(cache, 0755), 0);
    assert_int_equal(chmod(cache, 0755), 0);
    assert_ok(oklc_rt_cache_root(&root));
    assert_int_equal(stat(cache, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    oklc_free(root);
    assert_int_equal(chmod(cache, 0770), 0);
    assert_fails(oklc_rt_cache_root(&root), OKLC_ERR_IO, "is writable by others (mode 770)");
    assert_fails(cache_under("open", 0777, -1), OKLC_ERR_IO,
                 "/open', which others can write (mode 777, not sticky): they could replace "
                 "the cache and the code in it; chmod go-w '");
    assert_fails(cache_under("group", 0770, -1), OKLC_ERR_IO, "(mode 770, not sticky)");
    assert_ok(cache_under("sticky", 01777, -1));
    assert_ok(cache_under("fine", 0755, -1));
    if (geteuid() == 0) {    /* only root can give a folder away */
        char part[64];
        snprintf(part, sizeof part, "which belongs to user 12345, not to you (%ld) or root",
                 (long)geteuid());
        assert_fails(cache_under("theirs", 0755, 12345), OKLC_ERR_IO, part);
        assert_int_equal(chown(work_path("theirs"), 0, (gid_t)-1), 0);
        assert_ok(cache_under("theirs", 0755, -1));
    }
    oklc_device *d = open_dev("serial");
    oklc_props *p = native();
    oklc_kernel *k;
    cache_under("open", 0777, -1);    /* and a build says so */
    assert_fails(oklc_kernel_build(d, add_cpp(), "addVectors", p, &k), OKLC_ERR_IO,
                 "which others can write");
    assert_null(k);
    oklc_props_free(p);
    oklc_device_close(d);
}

enum { OTHER_UID = 12345 };

/* Builds in a cache this process cannot write (root drops to another user,
 * which owns the cache but may not write it; others chmod it 0500): a hit
 * works, a miss and a damaged entry say why they cannot be built. */
static int child_read_only(const char *file)
{
    if (geteuid() == 0 && (setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0)) {
        perror("setuid");
        return 1;
    }
    return build_and_add(file, NULL, OKLC_OK, "") ||
           build_and_add(file, "MISS=1", OKLC_ERR_IO, "cannot create a folder in the kernel "
                         "cache '") ||
           build_and_add(file, "DAMAGED=1", OKLC_ERR_IO, "kernel.so has ") ||
           build_and_add(file, "DAMAGED=1", OKLC_ERR_IO, ", and cannot be built again: cannot "
                         "create a folder in the kernel cache '");
}

/* Owner (and mode) of everything in the cache, for the read-only test. */
static void own_cache(const char *cache, long uid, const char *mode)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "chown -R %ld '%s' && chmod %s '%s'", uid, cache, mode, cache);
    assert_int_equal(system(cmd), 0);
}

/* A read-only cache (simulated: root ignores modes, so the child drops to
 * another user; a read-only mount needs privileges a test may not have). */
static void cache_read_only(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    const char *file = put("ro-add.cpp", "extern \"C\" void addVectors(void *const *a)\n"
                           "{\n  for (int i = 0; i < *(const int *)a[0]; ++i)\n"
                           "    (*(float *const *)a[3])[i] = (*(float *const *)a[1])[i]\n"
                           "                               + (*(float *const *)a[2])[i];\n}\n");
    oklc_device *d = open_dev("serial");
    oklc_props *p = native();
    char *dir;
    assert_ok(oklc_kernel_build_only(d, file, "addVectors", p, &dir));
    free(dir);
    assert_ok(oklc_props_define(p, "DAMAGED=1"));
    assert_ok(oklc_kernel_build_only(d, file, "addVectors", p, &dir));
    char bin[4300];
    snprintf(bin, sizeof bin, "%s/kernel.so", dir);
    truncate_half(bin);
    bool root = geteuid() == 0;
    struct stat st;
    assert_int_equal(stat(work, &st), 0);
    assert_int_equal(chmod(work, 0711), 0);    /* the other user reaches the cache */
    own_cache(cache, root ? OTHER_UID : (long)geteuid(), "0500");
    in_child(child_read_only, file);
    own_cache(cache, (long)geteuid(), "0700");
    assert_int_equal(chmod(work, st.st_mode & 07777), 0);
    assert_int_equal(entries(cache), 2);    /* nothing was added */
    bool found;
    assert_fails(oklc_rt_cache_verify(dir, &found), OKLC_ERR_LOAD, "kernel.so has ");
    free(dir);
    oklc_props_free(p);
    oklc_device_close(d);
}

/* A full disk, simulated: RLIMIT_FSIZE makes every write past `limit`
 * bytes fail with EFBIG (SIGXFSZ ignored), in the compiler too. A small
 * file system would need a mount. */
static int child_file_limit(const char *limit)
{
    struct rlimit r = {.rlim_cur = (rlim_t)atol(limit), .rlim_max = RLIM_INFINITY};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &r) != 0) {
        perror("setrlimit");
        return 1;
    }
    if (atol(limit) < 100)    /* even the source: our own write fails */
        return build_and_add(add_cpp(), NULL, OKLC_ERR_IO, "source.cpp': File too large");
    return build_and_add(add_cpp(), NULL, OKLC_ERR_COMPILE, "cannot compile");
}

/* The entries of a cache, not counting temporary folders. */
static int whole_entries(const char *cache)
{
    DIR *d = opendir(cache);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.' && !strstr(e->d_name, ".tmp.") && strcmp(e->d_name, "failed");
    closedir(d);
    return n;
}

static void cache_disk_full(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    in_child(child_file_limit, "10");
    assert_int_equal(entries(cache), 0);    /* nothing left behind */
    in_child(child_file_limit, "2000");      /* the linker's kernel.so is bigger */
    assert_int_equal(whole_entries(cache), 0);    /* only the failed build's folder */
    in_child(child_builds, add_cpp());       /* with room again, a whole entry */
    assert_int_equal(whole_entries(cache), 1);
}

/* Loads from the cache `dir` (addVectors of add.cpp, serial): a miss
 * first, a hit once a run got that far. */
static oklc_status build_in(const char *dir)
{
    (void)dir;
    oklc_device *d = NULL;
    oklc_kernel *k = NULL;
    oklc_props *p = oklc_props_new();
    oklc_status st = p ? oklc_props_okl(p, false) : OKLC_ERR_MEMORY;
    if (!st)
        st = oklc_props_compiler_flags(p, "-O0");
    if (!st)
        st = oklc_device_open("serial", &d);
    if (!st)
        st = oklc_kernel_build(d, add_cpp(), "addVectors", p, &k);
    oklc_kernel_free(k);
    oklc_device_close(d);
    oklc_props_free(p);
    return st;
}

/* Each allocation of a build fails in turn, through a miss (writing,
 * compiling, sealing, publishing), a hit (checking, loading), and the
 * rebuild of a damaged entry: each run ends cleanly, and the entry left is
 * whole, with no temporary folder beside it. */
static void cache_allocations_fail(void **state)
{
    (void)state;
    const char *cache = fresh_cache();
    fails_cleanly(build_in, cache);
    assert_int_equal(entries(cache), 1);
    char *dir = NULL;
    oklc_device *d = open_dev("serial");
    oklc_props *p = native();
    assert_ok(oklc_props_compiler_flags(p, "-O0"));
    assert_ok(oklc_kernel_build_only(d, add_cpp(), "addVectors", p, &dir));
    char bin[4300];
    snprintf(bin, sizeof bin, "%s/kernel.so", dir);
    truncate_half(bin);
    fails_cleanly(build_in, cache);
    assert_int_equal(entries(cache), 1);
    bool found;
    assert_ok(oklc_rt_cache_verify(dir, &found));
    free(dir);
    oklc_props_free(p);
    oklc_device_close(d);
}

/* ---- build-only and load ----------------------------------------------------------- */

static void build_only_then_load(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    char *dir = build_native(d, add_cpp(), "addVectors");
    long before = oklc_rt_compile_count();
    oklc_kernel *k;
    assert_ok(oklc_kernel_load(d, dir, "addVectors", &k));
    check_add(d, k);
    oklc_kernel_free(k);
    assert_fails(oklc_kernel_load(d, dir, "subVectors", &k), OKLC_ERR_ARGUMENT,
                 "no kernel 'subVectors' in '");
    assert_null(k);
    oklc_device *omp = open_dev("openmp");
    assert_fails(oklc_kernel_load(omp, dir, "addVectors", &k), OKLC_ERR_ARGUMENT,
                 "was built for the serial device, not for openmp");
    oklc_device_close(omp);
    assert_fails(oklc_kernel_load(d, work_path("nowhere"), "addVectors", &k), OKLC_ERR_IO,
                 "metadata.json': No such file or directory");
    assert_int_equal(oklc_rt_compile_count(), before);
    free(dir);
    oklc_device_close(d);
}

static void build_errors(void **state)
{
    (void)state;
    fresh_cache();
    oklc_props *p = native();
    oklc_device *d = open_dev("serial");
    oklc_kernel *k;
    assert_fails(oklc_kernel_build(d, work_path("missing.cpp"), "k", p, &k), OKLC_ERR_IO,
                 "missing.cpp': No such file or directory");
    assert_fails(oklc_kernel_build(d, add_cpp(), "subVectors", p, &k), OKLC_ERR_ARGUMENT,
                 "no kernel 'subVectors' in '");
    assert_fails(oklc_kernel_build(d, add_cpp(), NULL, p, &k), OKLC_ERR_ARGUMENT, "NULL");
    assert_fails(oklc_kernel_build(NULL, add_cpp(), "k", p, &k), OKLC_ERR_ARGUMENT, "NULL");
    assert_fails(oklc_kernel_run(NULL, 0, NULL), OKLC_ERR_ARGUMENT, "the kernel is NULL");
    oklc_device_close(d);
    oklc_props_free(p);
}

/* ---- arguments checked against metadata -------------------------------------------- */

/* An entry of our own: the binary of `dir` with the metadata given. */
static const char *entry_with(const char *dir, const char *name, const char *metadata)
{
    char *e = work_path(name);
    assert_ok(oklc_rt_mkdirs(e, 0700));
    char so[4300], link[4300];
    snprintf(so, sizeof so, "%s/kernel.so", dir);
    snprintf(link, sizeof link, "%s/kernel.so", e);
    assert_int_equal(symlink(so, link), 0);
    snprintf(link, sizeof link, "%s/metadata.json", e);
    assert_ok(oklc_rt_write_file(link, metadata, strlen(metadata)));
    return e;
}

static const char mixed_cpp[] =
    "#include <cstdint>\n"
    "struct Pair { short s; double d; };\n"
    "extern \"C\" void mixed(void *const *a)\n"
    "{\n"
    "  double *out = *(double *const *)a[0];\n"
    "  out[0] = 0.0 + *(const signed char *)a[1] + *(const short *)a[2] + *(const int *)a[3]\n"
    "         + *(const std::int64_t *)a[4] + *(const float *)a[5] + *(const double *)a[6];\n"
    "  const Pair p = *(const Pair *)a[7];\n"
    "  out[1] = p.s + p.d;\n"
    "}\n";

static const char mixed_json[] =
    "{\"oklc\": \"0.1.0\", \"backend\": \"serial\", \"kernels\": [{\"name\": \"mixed\", "
    "\"entry\": \"mixed\", " MIXED_ARGUMENTS;

static void checked_arguments(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    char *dir = build_native(d, put("mixed.cpp", mixed_cpp), "mixed");
    oklc_kernel *k;
    assert_ok(oklc_kernel_load(d, entry_with(dir, "mixed-entry", mixed_json), "mixed", &k));
    Mixed m;
    run_mixed(d, k, &m);
    const struct {
        int i;
        oklc_arg arg;
        const char *message;
    } wrong[] = {
        {3, {OKLC_ARG_FLOAT, {.f32 = 1}}, "argument 4 ('N') of 'mixed' is 'const int', but a "
                                          "float was given (pass it with oklc_arg_int)"},
        {4, {OKLC_ARG_INT, {.i32 = 1}}, "argument 5 ('l') of 'mixed' is 'long', but an int was "
                                        "given (pass it with oklc_arg_long)"},
        {6, {OKLC_ARG_FLOAT, {.f32 = 1}}, "is 'double', but a float was given (pass it with "
                                          "oklc_arg_double)"},
        {0, {OKLC_ARG_INT, {.i32 = 1}}, "argument 1 ('out') of 'mixed' is 'double *', but an "
                                        "int was given (pass it with oklc_arg_mem)"},
        {7, {OKLC_ARG_STRUCT, {.bytes = {&m.pair, 8}}}, "argument 8 ('p') of 'mixed' is 'Pair', "
                                        "but a struct of 8 bytes was given (16 bytes, passed "
                                        "with oklc_arg_struct)"},
        {0, {OKLC_ARG_MEMORY, {.mem = NULL}}, "argument 1 of 'mixed' is NULL memory"},
        {7, {OKLC_ARG_STRUCT, {.bytes = {NULL, 16}}}, "argument 8 of 'mixed' is a struct at NULL"},
        {2, {(oklc_arg_kind)42, {.i32 = 0}}, "argument 3 of 'mixed' has no valid kind (42)"},
    };
    for (size_t i = 0; i < OKLC_COUNTOF(wrong); i++) {
        oklc_arg bad[8];
        memcpy(bad, m.args, sizeof bad);
        bad[wrong[i].i] = wrong[i].arg;
        assert_fails(oklc_kernel_run(k, 8, bad), OKLC_ERR_ARGUMENT, wrong[i].message);
    }
    end_mixed(k, &m, "serial");
    oklc_kernel_free(k);
    free(dir);
    oklc_device_close(d);
}

/* Metadata we cannot use: not JSON, an argument without a kind. */
static void bad_metadata(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    char *dir = build_native(d, put("mixed.cpp", mixed_cpp), "mixed");
    oklc_kernel *k;
    assert_fails(oklc_kernel_load(d, entry_with(dir, "bad1", "{\"kernels\": ["), "mixed", &k),
                 OKLC_ERR_LOAD, "is not valid JSON");
    assert_fails(oklc_kernel_load(d, entry_with(dir, "bad2",
                 "{\"backend\": \"serial\", \"kernels\": [{\"name\": \"mixed\", \"entry\": "
                 "\"mixed\", \"arguments\": [{\"name\": \"x\", \"type\": \"int\"}]}]}"),
                 "mixed", &k), OKLC_ERR_LOAD, "has an argument without a name, type, kind");
    assert_fails(oklc_kernel_load(d, entry_with(dir, "bad3",
                 "{\"backend\": \"serial\", \"kernels\": [{\"name\": \"mixed\", "
                 "\"entry\": \"nothing_here\", \"arguments\": []}]}"), "mixed", &k),
                 OKLC_ERR_ARGUMENT, "no kernel 'mixed' in '");
    assert_null(k);
    free(dir);
    oklc_device_close(d);
}

/* ---- 60 arguments of every kind ---------------------------------------------------- */

/* The types of many's arguments in C++ (runtime_helpers.h). */
static const char *const many_types[] = {"int", "long", "float", "double", "S", "const double *"};

/* The metadata's kernel fields of a CPU kernel: its entry is itself. */
#define MANY_ENTRY "\"entry\": \"many\", "

static char *many_native(void)
{
    static char text[16384];
    char *p = text;
    p += sprintf(p, "#include <cstdint>\nstruct S { int a; double b; };\n"
                    "extern \"C\" void many(void *const *a)\n{\n  double sum = 0;\n");
    static const char *const read[] = {
        "*(const int *)a[%d]", "*(const std::int64_t *)a[%d]", "*(const float *)a[%d]",
        "*(const double *)a[%d]", "(((const S *)a[%d])->a + ((const S *)a[%d])->b)",
        "(*(const double *const *)a[%d])[0]"};
    p = many_sum(p, read, "  ");
    sprintf(p, "  (*(double *const *)a[%d])[0] = sum;\n}\n", MANY - 1);
    return text;
}


static void sixty_arguments(void **state)
{
    (void)state;
    fresh_cache();
    oklc_props *p = native();
    oklc_device *d = open_dev("serial");
    oklc_kernel *k;
    const char *file = put("many.cpp", many_native());
    assert_ok(oklc_kernel_build(d, file, "many", p, &k));
    run_many(d, k, many_types);    /* unchecked */
    oklc_kernel_free(k);
    char *dir;
    assert_ok(oklc_kernel_build_only(d, file, "many", p, &dir));
    const char *entry = entry_with(dir, "many-entry", many_json("serial", MANY_ENTRY, many_types));
    assert_ok(oklc_kernel_load(d, entry, "many", &k));
    assert_int_equal(oklc_kernel_arg_count(k), MANY);
    run_many(d, k, many_types);    /* checked against the metadata */
    oklc_kernel_free(k);
    free(dir);
    oklc_device_close(d);
    oklc_props_free(p);
}

/* ---- OKL -------------------------------------------------------------------------------- */

static oklc_status build_okl(oklc_device *d, const char *path, const char *src,
                             const char *name, const oklc_props *p, oklc_kernel **k)
{
    return src ? oklc_kernel_build_string(d, path, src, name, p, k)
               : oklc_kernel_build(d, path, name, p, k);
}

static void okl_add_vectors(void **state)
{
    (void)state;
    fresh_cache();
    for (int i = 0; i < 2; i++) {
        oklc_device *d = open_dev(i ? "mode=openmp threads=2" : "serial");
        oklc_kernel *k;
        assert_ok(build_okl(d, add_okl(), NULL, "addVectors", NULL, &k));
        assert_int_equal(oklc_kernel_arg_count(k), 4);
        check_add(d, k);
        oklc_arg wrong[] = {oklc_arg_float(1), oklc_arg_int(0), oklc_arg_int(0), oklc_arg_int(0)};
        assert_fails(oklc_kernel_run(k, 4, wrong), OKLC_ERR_ARGUMENT,
                     "argument 1 ('entries') of 'addVectors' is 'const int', but a float was "
                     "given (pass it with oklc_arg_int)");
        oklc_kernel_free(k);
        oklc_device_close(d);
    }
}

static void okl_errors(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("serial");
    oklc_kernel *k;
    const char *bad = "@kernel void f(const int n, float *x) {\n"
                      "  for (int i = 0; i < n; ++i; @outr) {}\n}\n";
    assert_fails(build_okl(d, "bad.okl", bad, "f", NULL, &k), OKLC_ERR_TRANSPILE,
                 "cannot transpile 'bad.okl' for the serial device:\nbad.okl:2:");
    assert_non_null(strstr(oklc_last_error(), "error: unknown attribute '@outr'"));
    assert_fails(build_okl(d, add_okl(), NULL, "subVectors", NULL, &k), OKLC_ERR_ARGUMENT,
                 "no kernel 'subVectors' in '");
    assert_non_null(strstr(oklc_last_error(), "(its kernels: addVectors)"));
    assert_fails(oklc_kernel_build(d, work_path("missing.okl"), "f", NULL, &k), OKLC_ERR_IO,
                 "missing.okl': No such file or directory");
    oklc_device_close(d);
}

static void okl_header_edit(void **state)
{
    (void)state;
    fresh_cache();
    put("okl/value.h", "#define VALUE 1\n");
    const char *file = put("okl/k.okl", "#include \"value.h\"\n"
                                        "@kernel void get(int *out) {\n"
                                        "  for (int o = 0; o < 1; ++o; @outer)\n"
                                        "    for (int i = 0; i < 1; ++i; @inner)\n"
                                        "      out[0] = VALUE;\n}\n");
    oklc_device *d = open_dev("serial");
    oklc_kernel *k;
    assert_ok(build_okl(d, file, NULL, "get", NULL, &k));
    oklc_kernel_free(k);
    oklc_props *p = oklc_props_new();
    header_edit(d, file, p, "okl/value.h", oklc_rt_compile_count());
    oklc_props_free(p);
    oklc_device_close(d);
}

static void okl_sixty_arguments(void **state)
{
    (void)state;
    fresh_cache();
    static char src[16384];
    char *p = src;
    p += sprintf(p, "struct S { int a; double b; };\n@kernel void many(");
    for (int i = 0; i < MANY - 1; i++)
        p += sprintf(p, "%s a%d, ", i % 6 == 0 ? "const int" : many_types[i % 6], i);
    p += sprintf(p, "double *out) {\n  for (int o = 0; o < 1; ++o; @outer)\n"
                    "    for (int t = 0; t < 1; ++t; @inner) {\n      double sum = 0;\n");
    static const char *const read[] = {"a%d", "a%d", "a%d", "a%d", "(a%d.a + a%d.b)", "a%d[0]"};
    p = many_sum(p, read, "      ");
    sprintf(p, "      out[0] = sum;\n    }\n}\n");
    oklc_device *d = open_dev("openmp");
    oklc_kernel *k;
    assert_ok(build_okl(d, "many.okl", src, "many", NULL, &k));
    assert_int_equal(oklc_kernel_arg_count(k), MANY);
    run_many(d, k, many_types);
    oklc_kernel_free(k);
    oklc_device_close(d);
}

static void okl_template_instance(void **state)
{
    (void)state;
    fresh_cache();
    const char *src = "template <typename T, int B>\n"
                      "@kernel void scale(const int n, T *x) {\n"
                      "  for (int i = 0; i < n; ++i; @tile(B, @outer, @inner)) {\n"
                      "    x[i] = x[i] * 2;\n  }\n}\n";
    oklc_device *d = open_dev("serial");
    oklc_kernel *k;
    assert_ok(build_okl(d, "scale.okl", src, "scale<float, 16>", NULL, &k));
    float x[40];
    for (int i = 0; i < 40; i++)
        x[i] = (float)i;
    oklc_memory *m;
    assert_ok(oklc_memory_alloc(d, sizeof x, &m));
    assert_ok(oklc_memory_copy_from_host(m, x, sizeof x, 0));
    oklc_arg args[] = {oklc_arg_int(40), oklc_arg_mem(m)};
    assert_ok(oklc_kernel_run(k, 2, args));
    assert_ok(oklc_memory_copy_to_host(m, x, sizeof x, 0));
    for (int i = 0; i < 40; i++)
        assert_true(x[i] == 2.0f * i);
    oklc_memory_free(m);
    oklc_kernel_free(k);
    oklc_device_close(d);
}

/* ---- errors and memory ----------------------------------------------------------------- */

static void *fail_in_thread(void *arg)
{
    (void)arg;
    oklc_device *d;
    oklc_device_open("mode=nothing", &d);
    return strstr(oklc_last_error(), "nothing") ? (void *)1 : NULL;
}

static void errors_per_thread(void **state)
{
    (void)state;
    oklc_device *d;
    assert_fails(oklc_device_open("mode=CUDA threads=1", &d), OKLC_ERR_ARGUMENT, "CUDA");
    pthread_t t;
    void *ok;
    assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
    pthread_join(t, &ok);
    assert_non_null(ok);
    assert_non_null(strstr(oklc_last_error(), "CUDA"));    /* ours is unchanged */
    assert_string_equal(oklc_status_name(OKLC_ERR_COMPILE), "OKLC_ERR_COMPILE");
    assert_string_equal(oklc_status_name((oklc_status)99), "OKLC_ERR_?");
}

/* Loads a cached kernel and runs it (with allocations failing: each run
 * ends in OKLC_OK or OKLC_ERR_MEMORY, nothing leaks). */
static oklc_status load_and_run(const char *dir)
{
    oklc_device *d = NULL;
    oklc_kernel *k = NULL;
    oklc_memory *m = NULL;
    oklc_props *p = oklc_props_new();
    oklc_status st = p ? oklc_props_define(p, "X=1") : OKLC_ERR_MEMORY;
    if (!st)
        st = oklc_device_open("mode=openmp threads=2", &d);
    if (!st)
        st = oklc_kernel_load(d, dir, "many", &k);
    if (!st)
        st = oklc_memory_alloc(d, 8, &m);
    oklc_arg args[MANY];
    for (int i = 0; i < MANY; i++)
        args[i] = oklc_arg_int(0);
    if (!st)
        st = oklc_kernel_run(k, MANY, args);    /* fails after the allocations: checked */
    if (st == OKLC_ERR_ARGUMENT)
        st = OKLC_OK;
    oklc_memory_free(m);
    oklc_kernel_free(k);
    oklc_device_close(d);
    oklc_props_free(p);
    return st;
}

static void allocations_fail(void **state)
{
    (void)state;
    fresh_cache();
    oklc_device *d = open_dev("openmp");
    char *dir = build_native(d, put("many.cpp", many_native()), "many");
    fails_cleanly(load_and_run, entry_with(dir, "many-omp",
                                           many_json("openmp", MANY_ENTRY, many_types)));
    free(dir);
    oklc_device_close(d);
}

/* Views and a pool while allocations fail one by one: each failure is
 * "out of memory", and what was made is freed (ASan finds what is not). */
static oklc_status views_and_pool(const char *unused)
{
    (void)unused;
    oklc_device *d;
    oklc_memory *m = NULL, *v = NULL, *r[3] = {NULL, NULL, NULL};
    oklc_pool *p = NULL;
    oklc_status st = oklc_device_open("serial", &d);
    if (st)
        return st;
    if (!(st = oklc_memory_alloc(d, 4096, &m)) && !(st = oklc_memory_view(m, 64, 64, &v)))
        st = oklc_pool_new(d, 4096, &p);
    for (int i = 0; i < 3 && !st; i++)
        st = oklc_pool_reserve(p, 300, &r[i]);
    oklc_memory_free(r[1]);    /* a range between two reserved ones */
    r[1] = NULL;
    if (!st)
        st = oklc_pool_reserve(p, 1, &r[1]);
    for (int i = 0; i < 3; i++)
        oklc_memory_free(r[i]);
    oklc_pool_free(p);
    oklc_memory_free(v);
    oklc_memory_free(m);
    oklc_device_close(d);
    return st;
}

static void memory_allocations_fail(void **state)
{
    (void)state;
    fails_cleanly(views_and_pool, NULL);
}

/* ---- main ------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    return setup_work("oklc-runtime");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_specs),
        cmocka_unit_test(device_spec_errors),
        cmocka_unit_test(metal_unavailable),
        cmocka_unit_test(dpcpp_no_compiler),
        cmocka_unit_test(dpcpp_bad_compiler),
        cmocka_unit_test(dpcpp_adaptivecpp),
        cmocka_unit_test(dpcpp_on_a_stand_in),
        cmocka_unit_test(memory_copies),
        cmocka_unit_test(memory_errors),
        cmocka_unit_test(memory_api),
        cmocka_unit_test(device_query),
        cmocka_unit_test(streams),
        cmocka_unit_test(memory_allocations_fail),
        cmocka_unit_test(native_build_and_run),
        cmocka_unit_test(native_occa_form),
        cmocka_unit_test(openmp_threads),
        cmocka_unit_test(native_props),
        cmocka_unit_test(compiler_choice),
        cmocka_unit_test(compile_error),
        cmocka_unit_test(verbose),
        cmocka_unit_test(cpu_identity),
        cmocka_unit_test(cpu_in_key),
        cmocka_unit_test(cache_hits),
        cmocka_unit_test(cache_header_edit),
        cmocka_unit_test(cache_folder),
        cmocka_unit_test(cache_folder_refused),
        cmocka_unit_test(cache_list_prune_clear),
        cmocka_unit_test(cache_publish_race),
        cmocka_unit_test(cache_sweep),
        cmocka_unit_test(cache_damaged_entry),
        cmocka_unit_test(cache_sweep_links),
        cmocka_unit_test(cache_sweep_mount),
        cmocka_unit_test(cache_folder_private),
        cmocka_unit_test(cache_read_only),
        cmocka_unit_test(cache_disk_full),
        cmocka_unit_test(cache_allocations_fail),
        cmocka_unit_test(build_only_then_load),
        cmocka_unit_test(build_errors),
        cmocka_unit_test(checked_arguments),
        cmocka_unit_test(bad_metadata),
        cmocka_unit_test(sixty_arguments),
        cmocka_unit_test(okl_add_vectors),
        cmocka_unit_test(okl_errors),
        cmocka_unit_test(okl_header_edit),
        cmocka_unit_test(okl_sixty_arguments),
        cmocka_unit_test(okl_template_instance),
        cmocka_unit_test(errors_per_thread),
        cmocka_unit_test(allocations_fail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
