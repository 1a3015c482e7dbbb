/*
 * test_oklt.cpp - the oklt interface (include/oklt/, docs/occa.md) as OCCA
 * calls it: every type and entry point; errors with their file:line:col,
 * source line and caret; headers from memory, defines and include folders;
 * metadata in OCCA's schema, key by key; the serial and OpenMP output
 * compiled as OCCA compiles it (g++ -std=c++11) and called as OCCA calls
 * it (one void * an argument: a scalar's address, a memory's data); the
 * CUDA launcher compiled against a stand-in of OCCA's kernel API
 * (occa-standin/) and run, printing the launches it asks for.
 */
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

extern "C" {
#include <cmocka.h>
#include <cjson/cJSON.h>
}

#include <oklt/core/error.h>
#include <oklt/core/target_backends.h>
#include <oklt/core/transpiler_session/user_input.h>
#include <oklt/core/transpiler_session/user_output.h>
#include <oklt/pipeline/normalizer.h>
#include <oklt/pipeline/normalizer_and_transpiler.h>
#include <oklt/pipeline/transpiler.h>
#include <oklt/util/io_helper.h>

static std::string work;    /* this run's folder */

static std::string path(const std::string &name)
{
    return work + "/" + name;
}

static const char add_vectors[] =
    "@kernel void addVectors(const int entries, const float *a, const float *b, float *ab) {\n"
    "  for (int i = 0; i < entries; ++i; @tile(16, @outer, @inner)) {\n"
    "    ab[i] = a[i] + b[i];\n"
    "  }\n"
    "}\n";

static oklt::UserInput input(oklt::TargetBackend b, const std::string &source,
                             const std::string &name = "kernel.okl")
{
    oklt::UserInput in{};
    in.backend = b;
    in.source = source;
    in.sourcePath = path(name);
    in.hash = "0123abcd";
    return in;
}

static oklt::UserOutput ok(const oklt::UserResult &r)
{
    if (!r)
        for (const oklt::Error &e : r.error())
            fprintf(stderr, "%s", e.desc.c_str());
    assert_true(r.has_value());
    return r.value();
}

static bool contains(const std::string &s, const std::string &part)
{
    return s.find(part) != std::string::npos;
}

static void run_ok(const std::string &cmd)
{
    int st = std::system(cmd.c_str());
    if (st != 0)
        fprintf(stderr, "failed (%d): %s\n", st, cmd.c_str());
    assert_int_equal(st, 0);
}

/* ---- backends ---------------------------------------------------------------------- */

static void backend_names(void **)
{
    const struct {
        oklt::TargetBackend b;
        const char *name;
        bool host, device;
    } all[] = {
        {oklt::TargetBackend::SERIAL, "serial", true, false},
        {oklt::TargetBackend::OPENMP, "openmp", true, false},
        {oklt::TargetBackend::CUDA, "cuda", false, true},
        {oklt::TargetBackend::HIP, "hip", false, true},
        {oklt::TargetBackend::DPCPP, "dpcpp", false, true},
        {oklt::TargetBackend::_LAUNCHER, "launcher", false, false},
    };
    for (const auto &e : all) {
        assert_string_equal(oklt::backendToString(e.b).c_str(), e.name);
        auto back = oklt::backendFromString(e.name);
        assert_true(back.has_value());
        assert_true(*back == e.b);
        assert_int_equal(oklt::isHostCategory(e.b), e.host);
        assert_int_equal(oklt::isDeviceCategory(e.b), e.device);
    }
    assert_true(*oklt::backendFromString("OpenMP") == oklt::TargetBackend::OPENMP);
    auto bad = oklt::backendFromString("opencl");
    assert_false(bad.has_value());
    assert_true(contains(bad.error(), "opencl"));
}

static void unknown_backend(void **)
{
    auto r = oklt::normalizeAndTranspile(input(static_cast<oklt::TargetBackend>(42), add_vectors));
    assert_false(r.has_value());
    assert_int_equal(r.error().size(), 1);
    assert_true(r.error()[0].ec == oklt::ErrorCode::backend);
    assert_string_equal(r.error()[0].ec.category().name(), "oklt");
}

/* ---- the three calls --------------------------------------------------------------- */

static void calls_fill_their_parts(void **)
{
    oklt::UserOutput n = ok(oklt::normalize(input(oklt::TargetBackend::SERIAL, add_vectors)));
    assert_true(contains(n.normalized.source, "[[okl::kernel]]"));
    assert_true(contains(n.normalized.source, "[[okl::tile(16, okl::outer, okl::inner)]]"));
    assert_true(n.kernel.source.empty() && n.kernel.metadata.empty());

    oklt::UserOutput t = ok(oklt::transpile(input(oklt::TargetBackend::SERIAL, add_vectors)));
    assert_true(t.normalized.source.empty());
    assert_true(contains(t.kernel.source, "void addVectors("));
    assert_false(t.kernel.metadata.empty());
    assert_true(t.launcher.source.empty() && t.launcher.metadata.empty());

    /* transpile() takes OKL 2.0 too: normalize()'s output */
    oklt::UserOutput t2 = ok(oklt::transpile(input(oklt::TargetBackend::SERIAL,
                                                   n.normalized.source)));
    assert_true(contains(t2.kernel.source, "void addVectors("));

    oklt::UserOutput both =
        ok(oklt::normalizeAndTranspile(input(oklt::TargetBackend::SERIAL, add_vectors)));
    assert_string_equal(both.normalized.source.c_str(), n.normalized.source.c_str());
    assert_string_equal(both.kernel.source.c_str(), t.kernel.source.c_str());
}

/* ---- errors ------------------------------------------------------------------------- */

static void errors_with_locations(void **)
{
    /* a Clang error in a macro: the error, then its note */
    const char *src = "#define BAD(p) (p).x\n"
                      "@kernel void k(float *a) {\n"
                      "  for (int i = 0; i < 8; ++i; @tile(4, @outer, @inner)) {\n"
                      "    a[i] = BAD(a[i]);\n"
                      "  }\n"
                      "}\n";
    auto r = oklt::normalizeAndTranspile(input(oklt::TargetBackend::CUDA, src, "bad.okl"));
    assert_false(r.has_value());
    assert_int_equal(r.error().size(), 1);
    const oklt::Error &e = r.error()[0];
    assert_true(e.ec == oklt::ErrorCode::kernel);
    std::string want = path("bad.okl") + ":4:12: error: member reference base type 'float' is "
                                          "not a structure or union\n"
                                          "    a[i] = BAD(a[i]);\n"
                                          "           ^\n" +
                       path("bad.okl") + ":1:19: note: expanded from macro 'BAD'\n"
                                         "#define BAD(p) (p).x\n"
                                         "                  ^\n";
    assert_string_equal(e.desc.c_str(), want.c_str());
    /* OKL's rules: one Error each */
    const char *two = "@kernel void k(int *a) {\n"
                      "  for (int i = 0; i < 8; ++i; @outer) { a[i] = 1; }\n"
                      "}\n"
                      "@kernel void m(int *a) {\n"
                      "  for (int i = 0; i < 8; ++i; @inner) { a[i] = 0; }\n"
                      "}\n";
    r = oklt::normalizeAndTranspile(input(oklt::TargetBackend::SERIAL, two, "two.okl"));
    assert_false(r.has_value());
    const char *starts[] = {":1:14: error: kernel 'k' has no @inner loop\n",
                            ":4:14: error: kernel 'm' has no @outer loop\n",
                            ":5:3: error: an @inner loop must be inside an @outer loop\n"};
    assert_int_equal(r.error().size(), 3);
    for (size_t i = 0; i < 3; i++) {
        assert_true(r.error()[i].ec == oklt::ErrorCode::kernel);
        assert_true(r.error()[i].desc.rfind(path("two.okl") + starts[i], 0) == 0);
        assert_true(contains(r.error()[i].desc, "^\n"));
    }
}

static void error_in_memory_header(void **)
{
    oklt::UserInput in = input(oklt::TargetBackend::SERIAL,
                               "#include \"defs.h\"\n" + std::string(add_vectors));
    in.headers["defs.h"] = "#define X 1\nint broken(int a b);\n";
    auto r = oklt::normalizeAndTranspile(in);
    assert_false(r.has_value());
    assert_true(r.error()[0].desc.rfind("defs.h:2:", 0) == 0);
    assert_true(contains(r.error()[0].desc, "\nint broken(int a b);\n"));
}

/* ---- options ------------------------------------------------------------------------- */

static const char uses_block[] =
    "#include \"block.h\"\n"
    "#include <mem/extra.h>\n"
    "#include \"block.h\"\n"
    "@kernel void fill(const int n, int *x) {\n"
    "  for (int i = 0; i < n; ++i; @tile(BLOCK, @outer, @inner)) {\n"
    "    x[i] = EXTRA + SCALE;\n"
    "  }\n"
    "}\n";

static void headers_defines_include_dirs(void **)
{
    run_ok("mkdir -p " + path("inc"));
    assert_true(oklt::util::writeFileAsStr(path("inc/scale.h"), "#define SCALE 7\n").has_value());
    oklt::UserInput in = input(oklt::TargetBackend::SERIAL,
                               "#include \"scale.h\"\n" + std::string(uses_block));
    in.headers["block.h"] = "#pragma once\n#define BLOCK 32\n";
    in.headers["mem/extra.h"] = "#define EXTRA 5\n";
    in.defines = {"UNUSED", "ALSO=2"};
    in.includeDirectories = {path("inc")};
    oklt::UserOutput o = ok(oklt::normalizeAndTranspile(in));
    assert_true(contains(o.normalized.source, "x[i] = 5 + 7;"));
    assert_true(contains(o.normalized.source, "okl::tile(32,"));
    assert_false(contains(o.normalized.source, "#include"));

    /* without the headers, "block.h" is found nowhere */
    in.headers.clear();
    auto r = oklt::normalizeAndTranspile(in);
    assert_false(r.has_value());
    assert_true(contains(r.error()[0].desc, "'block.h' file not found"));
}

/* OCCA's own parser finds "..." includes from the working directory (it
 * transpiles a copy of the kernel in its cache): so does oklt. */
static void working_directory_last(void **)
{
    run_ok("mkdir -p " + path("cwd"));
    assert_true(oklt::util::writeFileAsStr(path("cwd/block.h"), "#define BLOCK 64\n").has_value());
    char old[4096];
    assert_non_null(getcwd(old, sizeof old));
    assert_int_equal(chdir(path("cwd").c_str()), 0);
    oklt::UserInput in = input(oklt::TargetBackend::SERIAL,
                               "#include \"block.h\"\n@kernel void f(int *x) {\n"
                               "  for (int i = 0; i < 9; ++i; @tile(BLOCK, @outer, @inner)) "
                               "{ x[i] = 0; }\n}\n",
                               "cache/copy.okl");
    oklt::UserOutput o = ok(oklt::normalize(in));
    assert_int_equal(chdir(old), 0);
    assert_true(contains(o.normalized.source, "okl::tile(64,"));
}

/* ---- metadata ---------------------------------------------------------------------------- */

static cJSON *parse(const std::string &json)
{
    cJSON *j = cJSON_Parse(json.c_str());
    assert_non_null(j);
    return j;
}

static void expect_builtin(const cJSON *dtype, const char *name)
{
    assert_string_equal(cJSON_GetObjectItem(dtype, "type")->valuestring, "builtin");
    assert_string_equal(cJSON_GetObjectItem(dtype, "name")->valuestring, name);
}

static const cJSON *arg(const cJSON *kernel, int i, const char *name, bool is_const, bool ptr)
{
    const cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(kernel, "arguments"), i);
    assert_non_null(a);
    assert_int_equal(cJSON_GetArraySize(a), 4);      /* name, const, ptr, dtype: no more */
    assert_string_equal(cJSON_GetObjectItem(a, "name")->valuestring, name);
    assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(a, "const")), is_const);
    assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(a, "ptr")), ptr);
    return cJSON_GetObjectItem(a, "dtype");
}

static const char typed[] =
    "struct Pt { float x, y; int id[3]; };\n"
    "union U { int i; float f; };\n"
    "typedef double real;\n"
    "@kernel void typed(const int n, unsigned int u, long long ll, unsigned long ul,\n"
    "                   const real *r, Pt p, const float4 *v, char *c, U w, bool *flags,\n"
    "                   void *any) {\n"
    "  for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) { c[i] = 0; }\n"
    "}\n";

static void metadata_in_occas_schema(void **)
{
    oklt::UserOutput o = ok(oklt::normalizeAndTranspile(input(oklt::TargetBackend::SERIAL, typed)));
    cJSON *j = parse(o.kernel.metadata);
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(j, "dependencies")));
    assert_int_equal(strlen(cJSON_GetObjectItem(j, "hash")->valuestring), 32);
    const cJSON *list = cJSON_GetObjectItem(j, "metadata");
    assert_int_equal(cJSON_GetArraySize(list), 1);
    const cJSON *k = cJSON_GetArrayItem(list, 0);
    assert_string_equal(cJSON_GetObjectItem(k, "name")->valuestring, "typed");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(k, "arguments")), 11);
    expect_builtin(arg(k, 0, "n", true, false), "int");
    expect_builtin(arg(k, 1, "u", false, false), "int");              /* OCCA's get<unsigned> */
    expect_builtin(arg(k, 2, "ll", false, false), "long");
    expect_builtin(arg(k, 3, "ul", false, false), "unsigned long");
    expect_builtin(arg(k, 4, "r", true, true), "double");             /* through the typedef */
    const cJSON *p = arg(k, 5, "p", false, false);
    assert_string_equal(cJSON_GetObjectItem(p, "type")->valuestring, "struct");
    assert_string_equal(cJSON_GetObjectItem(p, "name")->valuestring, "Pt");
    const cJSON *fields = cJSON_GetObjectItem(p, "fields");
    assert_int_equal(cJSON_GetArraySize(fields), 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(fields, 1), "name")->valuestring,
                        "y");
    expect_builtin(cJSON_GetObjectItem(cJSON_GetArrayItem(fields, 1), "dtype"), "float");
    const cJSON *id = cJSON_GetObjectItem(cJSON_GetArrayItem(fields, 2), "dtype");
    assert_string_equal(cJSON_GetObjectItem(id, "type")->valuestring, "tuple");
    assert_int_equal(cJSON_GetObjectItem(id, "size")->valueint, 3);
    expect_builtin(cJSON_GetObjectItem(id, "dtype"), "int");
    expect_builtin(arg(k, 6, "v", true, true), "float4");
    expect_builtin(arg(k, 7, "c", false, true), "char");
    const cJSON *w = arg(k, 8, "w", false, false);
    assert_string_equal(cJSON_GetObjectItem(w, "type")->valuestring, "custom");
    assert_string_equal(cJSON_GetObjectItem(w, "name")->valuestring, "U");
    assert_int_equal(cJSON_GetObjectItem(w, "bytes")->valueint, 4);
    expect_builtin(arg(k, 9, "flags", false, true), "bool");
    expect_builtin(arg(k, 10, "any", false, true), "void");
    cJSON_Delete(j);
}

static void device_and_launcher_metadata(void **)
{
    const char *two = "@kernel void two(const int n, float *x) {\n"
                      "  for (int b = 0; b < n; b += 32; @outer) {\n"
                      "    for (int i = b; i < b + 32; ++i; @inner) { if (i < n) x[i] = 1; }\n"
                      "  }\n"
                      "  for (int b = 0; b < n; b += 32; @outer) {\n"
                      "    for (int i = b; i < b + 32; ++i; @inner) { if (i < n) x[i] += 1; }\n"
                      "  }\n"
                      "}\n";
    for (oklt::TargetBackend be : {oklt::TargetBackend::CUDA, oklt::TargetBackend::HIP,
                                   oklt::TargetBackend::DPCPP}) {
        oklt::UserOutput o = ok(oklt::normalizeAndTranspile(input(be, two)));
        cJSON *j = parse(o.kernel.metadata);
        const cJSON *list = cJSON_GetObjectItem(j, "metadata");
        assert_int_equal(cJSON_GetArraySize(list), 2);
        for (int d = 0; d < 2; d++) {
            const cJSON *k = cJSON_GetArrayItem(list, d);
            std::string name = "_occa_two_" + std::to_string(d);
            assert_string_equal(cJSON_GetObjectItem(k, "name")->valuestring, name.c_str());
            expect_builtin(arg(k, 0, "n", true, false), "int");
            expect_builtin(arg(k, 1, "x", false, true), "float");
            assert_true(contains(o.kernel.source, name));
        }
        cJSON_Delete(j);
        j = parse(o.launcher.metadata);
        list = cJSON_GetObjectItem(j, "metadata");
        assert_int_equal(cJSON_GetArraySize(list), 1);
        const cJSON *l = cJSON_GetArrayItem(list, 0);
        assert_string_equal(cJSON_GetObjectItem(l, "name")->valuestring, "two");
        const cJSON *dk = arg(l, 0, "deviceKernels", false, true);
        assert_string_equal(cJSON_GetObjectItem(dk, "type")->valuestring, "custom");
        expect_builtin(arg(l, 1, "n", true, false), "int");
        expect_builtin(arg(l, 2, "x", false, true), "float");
        cJSON_Delete(j);
        assert_true(contains(o.launcher.source, "#include <occa/core/kernel.hpp>"));
        assert_true(contains(o.launcher.source,
                             "extern \"C\" void two(occa::modeKernel_t **_occa_kernels"));
    }
    /* DPC++: OCCA's host functions, each value by reference */
    oklt::UserOutput d = ok(oklt::normalizeAndTranspile(input(oklt::TargetBackend::DPCPP, two)));
    assert_true(contains(d.kernel.source, "extern \"C\" void _occa_two_0(sycl::queue *_occa_queue, "
                                          "sycl::nd_range<3> *_occa_range, const int &n, float * x)"));
    /* the launcher backend: the launcher as the output */
    oklt::UserOutput l = ok(oklt::normalizeAndTranspile(input(oklt::TargetBackend::_LAUNCHER, two)));
    assert_true(contains(l.kernel.source, "extern \"C\" void two(occa::modeKernel_t **"));
    assert_true(contains(l.kernel.metadata, "deviceKernels"));
    assert_true(l.launcher.source.empty());
}

/* ---- the output, as OCCA builds and calls it ------------------------------------------------ */

static const char mixed[] =
    "struct Scale { float by; int shift; };\n"
    "@kernel void mixed(const int n, const float *a, float *out, Scale s, double d,\n"
    "                   unsigned char c) {\n"
    "  for (int b = 0; b < n; b += 16; @outer) {\n"
    "    @shared float tile[16];\n"
    "    for (int i = b; i < b + 16; ++i; @inner) { tile[i - b] = i < n ? a[i] : 0; }\n"
    "    for (int i = b; i < b + 16; ++i; @inner) {\n"
    "      if (i < n) out[i] = tile[15 - (i - b)] * s.by + s.shift + (float)d + c;\n"
    "    }\n"
    "  }\n"
    "}\n"
    "@kernel void counts(const int n, const int *m, int *x) {\n"
    "  for (int b = 0; b < n; ++b; @outer, @max_inner_dims(8)) {\n"
    "    for (int i = 0; i < m[b]; ++i; @inner) { x[b * 8 + i] = i; }\n"
    "  }\n"
    "}\n";

struct Scale {
    float by;
    int shift;
};

typedef void (*Call6)(void *, void *, void *, void *, void *, void *);

/* Compiled as OCCA's serial mode compiles a kernel (its default flags and
 * -std=c++11), loaded, and called as sys::runFunction calls it. */
static void cpu_output_as_occa_calls_it(oklt::TargetBackend be, const char *flags)
{
    oklt::UserOutput o = ok(oklt::normalizeAndTranspile(input(be, mixed)));
    std::string name = oklt::backendToString(be);
    std::string src = path(name + ".cpp"), so = path(name + ".so");
    assert_true(oklt::util::writeFileAsStr(src, o.kernel.source).has_value());
    run_ok(std::string("g++ -O3 -std=c++11 -fPIC -shared ") + flags + " " + src + " -o " + so);
    void *h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    assert_non_null(h);
    Call6 f = reinterpret_cast<Call6>(dlsym(h, "mixed"));
    assert_non_null(f);
    const int n = 100;
    std::vector<float> a(n), out(n, -1);
    for (int i = 0; i < n; i++)
        a[i] = 0.5f * i;
    Scale s = {2.0f, 3};
    double d = 0.25;
    unsigned char c = 4;
    int count = n;
    f(&count, a.data(), out.data(), &s, &d, &c);
    for (int i = 0; i < n; i++) {
        int b = i / 16 * 16, j = 15 - (i - b) + b;
        float want = (j < n ? a[j] : 0) * s.by + s.shift + (float)d + c;
        assert_float_equal(out[i], want, 1e-6);
    }
    /* not closed: OpenMP's threads outlive a call, in the library it loaded */
}

static void serial_as_occa_calls_it(void **)
{
    cpu_output_as_occa_calls_it(oklt::TargetBackend::SERIAL, "");
}

/* Array parameters (OCCA passes the data pointer they decay to) and
 * references (the address OCCA passes is the referent's). */
static void arrays_and_references(void **)
{
    const char *src = "@kernel void k(const int n, float a[16], const double b[][4], int &r) {\n"
                      "  for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) {\n"
                      "    a[i] = b[i][1] + r;\n"
                      "  }\n"
                      "}\n";
    oklt::UserOutput o = ok(oklt::normalizeAndTranspile(input(oklt::TargetBackend::SERIAL, src)));
    assert_true(oklt::util::writeFileAsStr(path("arrays.cpp"), o.kernel.source).has_value());
    run_ok("g++ -O3 -std=c++11 -fPIC -shared " + path("arrays.cpp") + " -o " + path("arrays.so"));
    void *h = dlopen(path("arrays.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    auto f = reinterpret_cast<void (*)(void *, void *, void *, void *)>(dlsym(h, "k"));
    assert_non_null(f);
    int n = 16, r = 5;
    float a[16] = {0};
    double b[16][4];
    for (int i = 0; i < 16; i++)
        b[i][1] = 0.5 * i;
    f(&n, a, b, &r);
    for (int i = 0; i < 16; i++)
        assert_float_equal(a[i], 0.5f * i + 5, 1e-6);
    dlclose(h);
}

static void openmp_as_occa_calls_it(void **)
{
    cpu_output_as_occa_calls_it(oklt::TargetBackend::OPENMP, "-fopenmp");
}

/* The CUDA launcher, compiled with the stand-in of OCCA's kernel API and a
 * driver that calls it as OCCA's launchedModeKernel_t does. */
static const char driver[] =
    "#include <cstdio>\n"
    "#include <cstring>\n"
    "#include <stdexcept>\n"
    "#include <occa/core/kernel.hpp>\n"
    "namespace occa {\n"
    "class modeKernel_t { public: int id; };\n"
    "class modeMemory_t { public: int id; int slots[4]; };\n"
    "int standin_id(const modeKernel_t *k) { return k->id; }\n"
    "int standin_id(const modeMemory_t *m) { return m->id; }\n"
    "static modeMemory_t slots = {9, {0}};\n"
    "static bool fault, taken;\n"
    "modeMemory_t *standin_malloc(std::size_t bytes, const void *src) {\n"
    "  std::printf(\"malloc %zu\\n\", bytes);\n"
    "  std::memcpy(slots.slots, src, bytes);\n"
    "  taken = true;\n"
    "  return &slots;\n"
    "}\n"
    "void standin_launched(const modeKernel_t *) { slots.slots[0] = fault; }\n"
    "void standin_copy_to(const modeMemory_t *m, void *dest) {\n"
    "  std::memcpy(dest, m->slots, sizeof(int));\n"
    "}\n"
    "void standin_free(modeMemory_t *) { taken = false; std::printf(\"free\\n\"); }\n"
    "}\n"
    "struct Scale { float by; int shift; };\n"
    "extern \"C\" void mixed(occa::modeKernel_t **, const int &, occa::modeMemory_t *,\n"
    "                        occa::modeMemory_t *, const Scale &, double &, unsigned char &);\n"
    "extern \"C\" void counts(occa::modeKernel_t **, const int &, occa::modeMemory_t *,\n"
    "                         occa::modeMemory_t *);\n"
    "int main() {\n"
    "  occa::modeKernel_t k0 = {7};\n"
    "  occa::modeKernel_t *kernels[] = {&k0};\n"
    "  occa::modeMemory_t a = {1}, out = {2};\n"
    "  Scale s = {2, 3};\n"
    "  double d = 0.5;\n"
    "  unsigned char c = 4;\n"
    "  int n = 100;\n"
    "  mixed(kernels, n, &a, &out, s, d, c);\n"
    "  n = 0;\n"
    "  mixed(kernels, n, &a, &out, s, d, c);\n"
    "  n = 2;\n"
    "  counts(kernels, n, &a, &out);\n"
    "  occa::fault = true;\n"
    "  try {\n"
    "    counts(kernels, n, &a, &out);\n"
    "  } catch (const std::runtime_error &e) {\n"
    "    std::printf(\"%s\\n\", e.what());\n"
    "  }\n"
    "  return occa::taken;\n"
    "}\n";

static void launcher_as_occa_calls_it(void **)
{
    oklt::UserOutput o = ok(oklt::normalizeAndTranspile(input(oklt::TargetBackend::CUDA, mixed)));
    assert_true(oklt::util::writeFileAsStr(path("launcher.cpp"), o.launcher.source).has_value());
    assert_true(oklt::util::writeFileAsStr(path("driver.cpp"), driver).has_value());
    run_ok("g++ -std=c++11 -Wall -I" OKLT_TEST_STANDIN " " + path("launcher.cpp") + " " +
           path("driver.cpp") + " -o " + path("launch") + " && " + path("launch") + " > " +
           path("launch.out"));
    auto got = oklt::util::readFileAsStr(path("launch.out"));
    assert_true(got.has_value());
    /* 100 entries: 7 blocks of 16; none for 0 entries */
    /* counts: its device kernel's fault slot (4 bytes), zeroed, then read;
     * a slot the device marked is an exception */
    assert_string_equal(got->c_str(), "launch K7 outer 7 1 1 inner 16 1 1: int 100, memory 1, "
                                      "memory 2, struct(8), float 0.5, int 4\n"
                                      "malloc 4\n"
                                      "launch K7 outer 2 1 1 inner 8 1 1: int 2, memory 1, "
                                      "memory 2, memory 9\n"
                                      "free\n"
                                      "malloc 4\n"
                                      "launch K7 outer 2 1 1 inner 8 1 1: int 2, memory 1, "
                                      "memory 2, memory 9\n"
                                      "free\n"
                                      "cannot run 'counts': the @inner loop at line 14 runs more "
                                      "iterations on axis 0 than the 8 threads of its block "
                                      "(@max_inner_dims) (its results are not complete)\n");
    /* the device kernel takes the arguments as the launcher passes them */
    assert_true(contains(o.kernel.source, "void _occa_mixed_0(const int n, const float *a, "
                                          "float *out, Scale s, double d,\n"
                                          "                   unsigned char c)"));
}

/* ---- files ---------------------------------------------------------------------------- */

static void io_helpers(void **)
{
    std::string f = path("io.txt");
    std::string bytes("a\0b\nc", 5);
    assert_true(oklt::util::writeFileAsStr(f, bytes).has_value());
    auto back = oklt::util::readFileAsStr(f);
    assert_true(back.has_value());
    assert_true(*back == bytes);
    assert_true(oklt::util::writeFileAsStr(f, "").has_value());
    assert_true(oklt::util::readFileAsStr(f)->empty());
    auto missing = oklt::util::readFileAsStr(path("none/such"));
    assert_false(missing.has_value());
    assert_int_equal(missing.error(), ENOENT);
    auto nowhere = oklt::util::writeFileAsStr(path("none/such"), "x");
    assert_false(nowhere.has_value());
    assert_int_equal(nowhere.error(), ENOENT);
    auto dir = oklt::util::readFileAsStr(work);
    assert_false(dir.has_value());
    assert_int_equal(dir.error(), EISDIR);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    std::string t = std::string(tmp && *tmp ? tmp : "/tmp") + "/oklc-oklt-XXXXXX";
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back(0);
    if (!mkdtemp(buf.data()))
        return 1;
    work = buf.data();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backend_names),
        cmocka_unit_test(unknown_backend),
        cmocka_unit_test(calls_fill_their_parts),
        cmocka_unit_test(errors_with_locations),
        cmocka_unit_test(error_in_memory_header),
        cmocka_unit_test(headers_defines_include_dirs),
        cmocka_unit_test(working_directory_last),
        cmocka_unit_test(metadata_in_occas_schema),
        cmocka_unit_test(device_and_launcher_metadata),
        cmocka_unit_test(serial_as_occa_calls_it),
        cmocka_unit_test(arrays_and_references),
        cmocka_unit_test(openmp_as_occa_calls_it),
        cmocka_unit_test(launcher_as_occa_calls_it),
        cmocka_unit_test(io_helpers),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed)
        run_ok("rm -rf " + work);
    return failed;
}
