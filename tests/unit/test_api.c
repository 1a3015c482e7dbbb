/*
 * test_api.c - the public API: contexts, options, diagnostics in every
 * format, and running out of memory at every allocation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oklc/oklc.h"
#include "base/base.h"      /* oklc_arena_chunk_size */
#include "failing_alloc.h"

static const char kernel[] =
    "#define BLOCK 16\n"
    "#define SQ(x) ((x) * (x))\n"
    "// scales a vector\n"
    "@kernel void scale(const int n, const float *a, float *b @dim(4, 4)) {\n"
    "  for (int g = 0; g < n; g += BLOCK; @outer) {\n"
    "    @shared float s[BLOCK];\n"
    "    for (int i = g; i < g + BLOCK; ++i; @inner) {\n"
    "      s[i - g] = SQ(a[i]);\n"
    "      b(i / 4 % 4, i % 4) = s[i - g];\n"
    "    }\n"
    "  }\n"
    "}\n";

/* ---- out of memory ---------------------------------------------------------- */

/* Runs `stage` on a fresh context with each allocation failing in turn,
 * until it succeeds: every run must end cleanly with "out of memory"
 * (LeakSanitizer watches, libclang's objects included). Arena chunks of
 * `chunk` bytes: small ones are many places to fail. */
static void survives_failures(bool (*stage)(oklc_ctx *c), size_t chunk)
{
    size_t saved = oklc_arena_chunk_size;
    oklc_arena_chunk_size = chunk;
    bool succeeded = false;
    long runs = 0;
    for (long n = 1; !succeeded && n < 1000000; n++, runs++) {
        fail_allocation(n);
        oklc_ctx *c = oklc_ctx_new();
        if (!c)
            continue;
        succeeded = stage(c);
        if (!succeeded) {
            oklc_diag_info d;
            assert_true(oklc_diag_get(c, oklc_diag_count(c) - 1, &d));
            assert_string_equal(d.message, "out of memory");
        }
        oklc_ctx_free(c);
    }
    oklc_set_alloc_hook(NULL, NULL);
    oklc_arena_chunk_size = saved;
    assert_true(succeeded);
    assert_true(runs > 50);    /* the loop really went through many failures */
}

static bool normalize_stage(oklc_ctx *c)
{
    oklc_define(c, "EXTRA=1");
    oklc_include_path(c, "/tmp");
    return oklc_normalize_buffer(c, "k.okl", kernel, strlen(kernel), 0);
}

static void every_allocation_may_fail(void **state)
{
    (void)state;
    survives_failures(normalize_stage, 256);
}

static bool check_stage(oklc_ctx *c)
{
    return oklc_check_buffer(c, "k.okl", kernel, strlen(kernel), OKLC_DUMP_MODEL);
}

static void check_survives_failures(void **state)
{
    (void)state;
    survives_failures(check_stage, 512);
}

/* A kernel that uses every part of the CPU backends. */
static const char cpu_kernel[] =
    "template <typename T>\n"
    "@kernel void k(const int n, T *x @dim(4, 4), int *h) {\n"
    "  for (int b = 0; b < n; ++b; @outer) {\n"
    "    @shared T s[16];\n"
    "    @exclusive T e = 1;\n"
    "    for (int i = 0; i < 16; ++i; @tile(4, @inner, @inner)) {\n"
    "      T mine = x(i % 4, i / 4);\n"
    "      s[i] = mine + e;\n"
    "      @barrier;\n"
    "      for (int r = 0; r < 2; ++r) {\n"
    "        e += s[15 - i];\n"
    "        @barrier;\n"
    "      }\n"
    "      @atomic h[0] += 1;\n"
    "      x(i % 4, i / 4) = mine * e;\n"
    "    }\n"
    "    for (int ty = 0; ty < 4; ++ty; @inner) {\n"
    "      for (int tx = 0; tx < 4; ++tx; @inner) {\n"
    "        const int j = b * 16 + tx;\n"
    "        s[ty * 4 + tx] = j < n ? x(tx, ty) : 0;\n"
    "      }\n"
    "    }\n"
    "    if (b > 2)\n"
    "      return;\n"
    "  }\n"
    "}\n";

/* Transpiling, the backends and the metadata included. */
static bool transpile_stage(oklc_ctx *c)
{
    oklc_set_backend(c, OKLC_BACKEND_OPENMP);
    oklc_add_instance(c, "k<float>");
    return oklc_transpile_buffer(c, "k.okl", cpu_kernel, strlen(cpu_kernel), 0);
}

static void transpile_survives_failures(void **state)
{
    (void)state;
    survives_failures(transpile_stage, 512);
}

/* ---- transpiling ---------------------------------------------------------------- */

static void transpile_outputs(void **state)
{
    (void)state;
    oklc_ctx *c = oklc_ctx_new();
    oklc_set_backend(c, OKLC_BACKEND_SERIAL);
    oklc_add_instance(c, "k< float >");
    assert_true(oklc_transpile_buffer(c, "k.okl", cpu_kernel, strlen(cpu_kernel), 0));
    const char *out = strstr(oklc_output(c, NULL), "/* ---- the kernels ---- */");
    assert_non_null(out);
    assert_non_null(strstr(out, "_occa_entry_k_0(void *const *_occa_args, char *_occa_message,\n"
                                "    size_t _occa_size) {\n"
                                "  return _occa_run(static_cast<void (*)(const int, float *, int *)>"
                                "(&k<float>), _occa_args, _occa_message, _occa_size);\n}"));
    assert_null(strstr(out, "okl::"));               /* no attribute, no okl::at left */
    assert_non_null(strstr(out, "x[(i % 4) + (4) * (i / 4)]"));
    assert_null(oklc_launcher(c, NULL));
    char hash[33];
    assert_int_equal(strlen(oklc_input_hash(c)), 32);
    strcpy(hash, oklc_input_hash(c));
    size_t len;
    cJSON *meta = cJSON_Parse(oklc_metadata(c, &len));
    assert_non_null(meta);
    assert_string_equal(cJSON_GetObjectItem(meta, "backend")->valuestring, "serial");
    assert_string_equal(cJSON_GetObjectItem(meta, "input_hash")->valuestring, hash);
    cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(meta, "kernels"), 0);
    assert_string_equal(cJSON_GetObjectItem(k, "name")->valuestring, "k<float>");
    cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(k, "arguments"), 1);
    assert_string_equal(cJSON_GetObjectItem(x, "type")->valuestring, "float *");
    assert_string_equal(cJSON_GetObjectItem(x, "kind")->valuestring, "memory");
    cJSON_Delete(meta);
    oklc_ctx_free(c);

    /* the same input, another backend: another hash */
    c = oklc_ctx_new();
    oklc_set_backend(c, OKLC_BACKEND_OPENMP);
    assert_true(oklc_transpile_buffer(c, "k.okl", cpu_kernel, strlen(cpu_kernel), 0));
    assert_string_not_equal(oklc_input_hash(c), hash);
    oklc_ctx_free(c);
}

/* ---- the precompiled prelude ------------------------------------------------------ */

static char *transpiled(const char *pch_dir)
{
    oklc_ctx *c = oklc_ctx_new();
    oklc_set_backend(c, OKLC_BACKEND_OPENMP);
    oklc_add_instance(c, "k<float>");
    oklc_set_pch_dir(c, pch_dir);
    assert_true(oklc_transpile_buffer(c, "k.okl", cpu_kernel, strlen(cpu_kernel), 0));
    char *out = strdup(oklc_output(c, NULL));
    oklc_ctx_free(c);
    return out;
}

/* The .pch files of a folder: how many, and the name of one. */
static int pch_files(const char *dir, char *one, size_t n)
{
    DIR *d = opendir(dir);
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".pch") && ++count)
            snprintf(one, n, "%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    return count;
}

/* Made once, used after, the same output; a damaged one is made again; a
 * folder others may write is not used. */
static void precompiled_prelude(void **state)
{
    (void)state;
    char dir[] = "/tmp/oklc-pch-XXXXXX", sub[64], one[4096];
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/pch", dir);
    char *plain = transpiled(NULL), *first = transpiled(sub);
    assert_string_equal(plain, first);
    assert_int_equal(pch_files(sub, one, sizeof one), 1);
    struct stat st;
    assert_int_equal(stat(one, &st), 0);
    char *again = transpiled(sub);
    assert_string_equal(plain, again);
    assert_int_equal(pch_files(sub, one, sizeof one), 1);
    assert_int_equal(truncate(one, st.st_size / 2), 0);      /* damaged */
    char *mended = transpiled(sub);
    assert_string_equal(plain, mended);
    assert_int_equal(pch_files(sub, one, sizeof one), 1);
    assert_int_equal(stat(one, &st), 0);
    assert_true(st.st_size > 100000);
    unlink(one);
    assert_int_equal(chmod(sub, 0777), 0);                   /* others may write */
    char *shared = transpiled(sub);
    assert_string_equal(plain, shared);
    assert_int_equal(pch_files(sub, one, sizeof one), 0);
    rmdir(sub);
    rmdir(dir);
    free(plain), free(first), free(again), free(mended), free(shared);
}

static void transpile_errors(void **state)
{
    (void)state;
    static const struct {
        oklc_backend b;
        const char *instance, *message;
    } cases[] = {
        {OKLC_BACKEND_SERIAL, "nope<int>", "instance 'nope<int>': no kernel has this name"},
        {OKLC_BACKEND_SERIAL, "k", "instance 'k': write the template arguments: name<T, N>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oklc_ctx *c = oklc_ctx_new();
        oklc_set_backend(c, cases[i].b);
        if (cases[i].instance)
            oklc_add_instance(c, cases[i].instance);
        assert_false(oklc_transpile_buffer(c, "k.okl", cpu_kernel, strlen(cpu_kernel), 0));
        oklc_diag_info d;
        assert_true(oklc_diag_get(c, 0, &d));
        assert_string_equal(d.message, cases[i].message);
        assert_null(oklc_metadata(c, NULL));
        oklc_ctx_free(c);
    }
    oklc_ctx *c = oklc_ctx_new();
    oklc_set_backend(c, OKLC_BACKEND_SERIAL);
    oklc_add_instance(c, "scale<int>");
    assert_false(oklc_transpile_buffer(c, "k.okl", kernel, strlen(kernel), 0));
    oklc_diag_info d;
    assert_true(oklc_diag_get(c, 0, &d));
    assert_string_equal(d.message, "instance 'scale<int>': the kernel is not a template");
    oklc_ctx_free(c);
}

/* ---- contexts and options ------------------------------------------------------- */

static void context_runs_one_input(void **state)
{
    (void)state;
    oklc_ctx *c = oklc_ctx_new();
    assert_null(oklc_output(c, NULL));
    assert_true(oklc_normalize_buffer(c, "k.okl", kernel, strlen(kernel), 0));
    assert_non_null(strstr(oklc_output(c, NULL), "[[okl::kernel]]"));
    assert_false(oklc_normalize_buffer(c, "k.okl", kernel, strlen(kernel), 0));
    assert_int_equal(oklc_error_count(c), 1);
    oklc_ctx_free(c);
}

static void backend_names(void **state)
{
    (void)state;
    oklc_backend b;
    assert_true(oklc_backend_from_name("OpenMP", &b));
    assert_int_equal(b, OKLC_BACKEND_OPENMP);
    assert_true(oklc_backend_from_name("CUDA", &b));
    assert_int_equal(b, OKLC_BACKEND_CUDA);
    assert_true(oklc_backend_from_name("dpcpp", &b));
    assert_string_equal(oklc_backend_name(b), "dpcpp");
    assert_false(oklc_backend_from_name("opencl2", &b));
    assert_false(oklc_backend_from_name("", &b));
}

static void missing_file(void **state)
{
    (void)state;
    oklc_ctx *c = oklc_ctx_new();
    assert_false(oklc_normalize(c, "/nonexistent/k.okl", 0));
    oklc_diag_info d;
    assert_true(oklc_diag_get(c, 0, &d));
    assert_null(d.file);
    assert_string_equal(d.message, "cannot open '/nonexistent/k.okl': No such file or directory");
    oklc_ctx_free(c);
}

static void werror(void **state)
{
    (void)state;
    const char *src = "#warning careful\nint x;\n";
    oklc_ctx *c = oklc_ctx_new();
    assert_true(oklc_preprocess_buffer(c, "w.okl", src, strlen(src)));
    oklc_diag_info d;
    assert_true(oklc_diag_get(c, 0, &d));
    assert_int_equal(d.level, OKLC_WARNING);
    oklc_ctx_free(c);

    c = oklc_ctx_new();
    oklc_set_werror(c, true);
    assert_false(oklc_preprocess_buffer(c, "w.okl", src, strlen(src)));
    assert_true(oklc_diag_get(c, 0, &d));
    assert_int_equal(d.level, OKLC_ERROR);
    oklc_ctx_free(c);
}

/* ---- printing diagnostics --------------------------------------------------------------- */

static char *printed(oklc_ctx *c, oklc_diag_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    oklc_diag_print(c, f, fmt);
    fclose(f);
    return buf;
}

static const char bad[] = "#define O @outr\nint a;\n\tfor (int i = 0; i < 4; ++i; O) {}\n";

static void text_format(void **state)
{
    (void)state;
    oklc_ctx *c = oklc_ctx_new();
    assert_false(oklc_normalize_buffer(c, "bad.okl", bad, strlen(bad), 0));
    char *text = printed(c, OKLC_DIAG_TEXT);
    assert_string_equal(text,
                        "bad.okl:3:30: error: unknown attribute '@outr'; did you mean '@outer'?\n"
                        "\tfor (int i = 0; i < 4; ++i; O) {}\n"
                        "\t                            ^\n"
                        "bad.okl:1:11: note: expanded from macro 'O'\n"
                        "#define O @outr\n"
                        "          ^\n");
    free(text);
    char *color = printed(c, OKLC_DIAG_TEXT_COLOR);
    assert_non_null(strstr(color, "\033[1;31merror:"));
    free(color);
    oklc_ctx_free(c);
}

static void json_format(void **state)
{
    (void)state;
    oklc_ctx *c = oklc_ctx_new();
    assert_false(oklc_normalize_buffer(c, "bad.okl", bad, strlen(bad), 0));
    char *text = printed(c, OKLC_DIAG_JSON);
    cJSON *arr = cJSON_Parse(text);
    assert_non_null(arr);
    assert_int_equal(cJSON_GetArraySize(arr), 1);
    cJSON *d = cJSON_GetArrayItem(arr, 0);
    assert_string_equal(cJSON_GetObjectItem(d, "level")->valuestring, "error");
    assert_string_equal(cJSON_GetObjectItem(d, "file")->valuestring, "bad.okl");
    assert_int_equal(cJSON_GetObjectItem(d, "line")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(d, "column")->valueint, 30);
    cJSON *notes = cJSON_GetObjectItem(d, "notes");
    assert_int_equal(cJSON_GetArraySize(notes), 1);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(notes, 0), "line")->valueint, 1);
    cJSON_Delete(arr);
    free(text);
    /* flattened access: the note follows its error */
    assert_int_equal(oklc_diag_count(c), 2);
    oklc_diag_info n;
    assert_true(oklc_diag_get(c, 1, &n));
    assert_int_equal(n.level, OKLC_NOTE);
    assert_false(oklc_diag_get(c, 2, &n));
    oklc_ctx_free(c);
}

static void error_limit(void **state)
{
    (void)state;
    char src[4096] = "";
    for (int i = 0; i < 200; i++)
        strcat(src, "@x ");
    oklc_ctx *c = oklc_ctx_new();
    assert_false(oklc_normalize_buffer(c, "many.okl", src, strlen(src), 0));
    assert_int_equal(oklc_diag_count(c), 50);
    char *text = printed(c, OKLC_DIAG_TEXT);
    assert_non_null(strstr(text, "too many errors emitted (50), stopping now"));
    free(text);
    oklc_ctx_free(c);
}

/* A host thread with a small stack (256 KB) transpiles a kernel nested
 * thousands of levels deep: the library runs its deep stages on a stack of
 * its own, so nothing overflows the host's. */
static void *transpile_deep(void *arg)
{
    (void)arg;
    size_t n = 6000, cap = 2 * n + 1000 * 48 + 256;
    char *src = malloc(cap);
    assert_non_null(src);
    strcpy(src, "@kernel void k(int N, float *a) {\n"
                "  for (int i = 0; i < N; ++i; @tile(16, @outer, @inner)) {\n    a[i] = ");
    for (size_t i = 0; i < n; i++)
        strcat(src, "- ");
    strcat(src, "1;\n    if (i == 0) a[i] = 0;\n");
    for (int i = 1; i < 1000; i++)
        sprintf(src + strlen(src), "    else if (i == %d) a[i] = %d;\n", i, i);
    strcat(src, "  }\n}\n");
    assert_true(strlen(src) < cap);
    oklc_ctx *c = oklc_ctx_new();
    oklc_set_backend(c, OKLC_BACKEND_SERIAL);
    bool ok = oklc_transpile_buffer(c, "deep.okl", src, strlen(src), 0);
    free(src);
    oklc_ctx_free(c);
    return ok ? arg : NULL;
}

static void deep_kernel_small_host_stack(void **state)
{
    (void)state;
    pthread_attr_t attr;
    pthread_t t;
    void *ok = NULL;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, 256 << 10), 0);
    assert_int_equal(pthread_create(&t, &attr, transpile_deep, (void *)1), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    pthread_attr_destroy(&attr);
    assert_non_null(ok);
}

/* ---- the user's intrinsics through the C API ------------------------------------- */

static const char intrinsic_kernel[] =
    "@kernel void k(const int n, float *a) {\n"
    "  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {\n"
    "    a[i] = 2.0f * okl_half(a[i] + 1.0f) + okl_exp10f(a[i]);\n"
    "  }\n"
    "}\n";

/* k transpiled for b with okl_half added and okl_exp10f spelled on HIP. */
static char *transpile_intrinsics(oklc_backend b)
{
    oklc_ctx *c = oklc_ctx_new();
    oklc_intrinsic half = {.name = "okl_half",
                           .declaration = "float okl_half(float x)",
                           .body = "{ return 0.5f * x; }"};
    half.spelling[OKLC_BACKEND_CUDA] = "__fmul_rn(0.5f, $1)";
    half.spelling[OKLC_BACKEND_OPENCL] = "half_mul_by_two_inverse";
    oklc_intrinsic exp10 = {.name = "okl_exp10f"};
    exp10.spelling[OKLC_BACKEND_HIP] = "exp10f($1)";
    assert_true(oklc_add_intrinsic(c, &half));
    assert_true(oklc_add_intrinsic(c, &exp10));
    oklc_set_backend(c, b);
    bool ok = oklc_transpile_buffer(c, "k.okl", intrinsic_kernel, strlen(intrinsic_kernel), 0);
    if (!ok)
        oklc_diag_print(c, stderr, OKLC_DIAG_TEXT);
    assert_true(ok);
    char *out = strdup(oklc_output(c, NULL));
    oklc_ctx_free(c);
    return out;
}

static void intrinsics_api(void **state)
{
    (void)state;
    char *serial = transpile_intrinsics(OKLC_BACKEND_SERIAL);
    assert_non_null(strstr(serial, "float okl_half(float x)\n{ return 0.5f * x; }"));
    assert_non_null(strstr(serial, "2.0f * okl_half(a[i] + 1.0f) + okl_exp10f(a[i])"));
    /* the serial output compiles */
    char path[] = "/tmp/oklc-intrinsics-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, serial, strlen(serial)) == (ssize_t)strlen(serial));
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "c++ -std=c++17 -fsyntax-only -x c++ %s", path);
    assert_int_equal(system(cmd), 0);
    unlink(path);
    free(serial);
    char *cuda = transpile_intrinsics(OKLC_BACKEND_CUDA);
    assert_non_null(strstr(cuda, "2.0f * __fmul_rn(0.5f, a[i] + 1.0f) + okl_exp10f(a[i])"));
    assert_null(strstr(cuda, "okl_half"));
    free(cuda);
    char *hip = transpile_intrinsics(OKLC_BACKEND_HIP);
    assert_non_null(strstr(hip, "__device__ float okl_half(float x)"));
    assert_non_null(strstr(hip, "2.0f * okl_half(a[i] + 1.0f) + exp10f(a[i])"));
    free(hip);
    char *cl = transpile_intrinsics(OKLC_BACKEND_OPENCL);
    assert_non_null(strstr(cl, "2.0f * half_mul_by_two_inverse(a[i] + 1.0f)"));
    free(cl);
}

static void intrinsics_api_errors(void **state)
{
    (void)state;
    oklc_ctx *c = oklc_ctx_new();
    oklc_intrinsic badname = {.name = "okl bad", .declaration = "float f(float x)", .body = "{}"};
    assert_false(oklc_add_intrinsic(c, &badname));
    oklc_intrinsic two = {.name = "okl_one", .declaration = "float okl_one(float x)",
                          .body = "{ return x; }"};
    two.spelling[OKLC_BACKEND_CUDA] = "f($2)";
    assert_false(oklc_add_intrinsic(c, &two));
    oklc_intrinsic partial = {.name = "okl_p", .declaration = "float okl_p(float x)"};
    partial.spelling[OKLC_BACKEND_CUDA] = "f($1)";
    assert_false(oklc_add_intrinsic(c, &partial));
    assert_false(oklc_load_intrinsics(c, "/nonexistent/intrinsics.json"));
    assert_int_equal(oklc_error_count(c), 4);
    oklc_diag_info d;
    assert_true(oklc_diag_get(c, 0, &d));
    assert_string_equal(d.message, "intrinsic name 'okl bad' is not an identifier");
    assert_true(oklc_diag_get(c, 1, &d));
    assert_string_equal(d.message, "intrinsic 'okl_one': the spelling on cuda uses $2, but the "
                                   "declaration has 1 parameter");
    assert_true(oklc_diag_get(c, 2, &d));
    assert_non_null(strstr(d.message, "no spelling on serial, openmp, hip, opencl, dpcpp, metal"));
    oklc_ctx_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_allocation_may_fail),
        cmocka_unit_test(check_survives_failures),
        cmocka_unit_test(context_runs_one_input),
        cmocka_unit_test(backend_names),
        cmocka_unit_test(missing_file),
        cmocka_unit_test(transpile_survives_failures),
        cmocka_unit_test(transpile_outputs),
        cmocka_unit_test(transpile_errors),
        cmocka_unit_test(precompiled_prelude),
        cmocka_unit_test(werror),
        cmocka_unit_test(text_format),
        cmocka_unit_test(json_format),
        cmocka_unit_test(error_limit),
        cmocka_unit_test(deep_kernel_small_host_stack),
        cmocka_unit_test(intrinsics_api),
        cmocka_unit_test(intrinsics_api_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
