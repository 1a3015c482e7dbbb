/*
 * oklc.h - the transpiler's public C API.
 *
 * A context (oklc_ctx) holds the options of one transpilation and everything
 * it produces: output text, diagnostics, intermediate results. All memory is
 * released by oklc_ctx_free(). Functions that run a stage return true on
 * success; on failure the reasons are in the diagnostics, never on stderr.
 *
 *     oklc_ctx *c = oklc_ctx_new();
 *     oklc_define(c, "BLOCK=256");
 *     bool ok = oklc_normalize(c, "axpy.okl", 0);
 *     oklc_diag_print(c, stderr, OKLC_DIAG_TEXT);
 *     if (ok) fwrite(oklc_output(c, NULL), 1, ..., stdout);
 *     oklc_ctx_free(c);
 */
#ifndef OKLC_OKLC_H
#define OKLC_OKLC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What this header declares is liboklc.so's API: exported (default
 * visibility) though the library is built with -fvisibility=hidden. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define OKLC_VERSION_MAJOR 0
#define OKLC_VERSION_MINOR 1
#define OKLC_VERSION_PATCH 0
#define OKLC_VERSION_STRING "0.1.0"

typedef struct oklc_ctx oklc_ctx;

/* Target of a transpilation. OKLC_BACKEND_NONE selects no target: none of
 * the OKLC_BACKEND_* / OCCA_USE_* macros is 1. */
typedef enum oklc_backend {
    OKLC_BACKEND_NONE = 0,
    OKLC_BACKEND_SERIAL,
    OKLC_BACKEND_OPENMP,
    OKLC_BACKEND_CUDA,
    OKLC_BACKEND_HIP,
    OKLC_BACKEND_OPENCL,
    OKLC_BACKEND_DPCPP,
    OKLC_BACKEND_METAL,
    OKLC_BACKEND_COUNT_
} oklc_backend;

/* Flags of oklc_normalize() and oklc_check(). */
enum {
    /* Rewrite attributes but keep directives and macros as written (the
     * migration use: the output is meant to be edited further). */
    OKLC_KEEP_MACROS = 1u << 0,
    /* oklc_check: the output is the kernel model, printed readably (after a
     * serial or OpenMP backend was set: then the decisions of its cost
     * model, from a translation made for them). */
    OKLC_DUMP_MODEL = 1u << 1
};

typedef enum oklc_diag_format {
    OKLC_DIAG_TEXT,        /* file:line:col: error: msg, source line, caret */
    OKLC_DIAG_TEXT_COLOR,  /* the same with ANSI colours */
    OKLC_DIAG_JSON         /* one JSON array of objects */
} oklc_diag_format;

typedef enum oklc_diag_level {
    OKLC_NOTE,
    OKLC_WARNING,
    OKLC_ERROR
} oklc_diag_level;

typedef struct oklc_diag_info {
    oklc_diag_level level;
    const char     *file;     /* NULL when the message has no position */
    unsigned        line;     /* 1-based; 0 without a position */
    unsigned        column;   /* 1-based byte column */
    const char     *message;
} oklc_diag_info;

const char *oklc_version(void);
/* libclang's version, as it says it: "Debian clang version 14.0.6". */
const char *oklc_libclang_version(void);

oklc_ctx *oklc_ctx_new(void);
void oklc_ctx_free(oklc_ctx *c);

/* Options. Definitions take the command-line forms: "NAME", "NAME=VALUE",
 * "F(a,b)=a+b". -D, -U and included files apply in the order given. */
void oklc_define(oklc_ctx *c, const char *definition);
void oklc_undef(oklc_ctx *c, const char *name);
void oklc_include_path(oklc_ctx *c, const char *dir);
void oklc_include_file(oklc_ctx *c, const char *path);
void oklc_set_backend(oklc_ctx *c, oklc_backend b);
/* Treat warnings as errors. */
void oklc_set_werror(oklc_ctx *c, bool on);
/* Also report what is only advice (-Wall). */
void oklc_set_wall(oklc_ctx *c, bool on);
/* Serial and OpenMP: the rewrites that reshape a kernel's loops for a CPU
 * where they pay (fusion of a block's nests, interchange of a thread's
 * loop with the threads, guards as bounds, grid-stride loops in order,
 * merged tiles, the nest's order; docs/architecture.md). On by default;
 * off, the output is the plain translation: OKL's loops as written, a
 * barrier inside an @inner loop split at it (for the differential timing
 * of bench/rewrites.sh, and to tell a rewrite's fault from the kernel's). */
void oklc_set_cpu_rewrites(oklc_ctx *c, bool on);
/* An argument for Clang when it parses the kernel ("-std=c++20", "-Werror"). */
void oklc_add_clang_arg(oklc_ctx *c, const char *arg);
/* A folder where Clang's parse of the prelude is kept between runs (made
 * if missing; not used if another user owns it or others may write it).
 * Without one (the default), every parse reads the prelude. */
void oklc_set_pch_dir(oklc_ctx *c, const char *dir);

/* Whose runtime calls what oklc_transpile writes: oklc's (the default;
 * docs/metadata.md, docs/launchers.md) or OCCA's (docs/occa.md): CPU
 * kernels callable with OCCA's argument passing, launchers that OCCA calls
 * with its device kernels, and metadata in OCCA's schema. */
typedef enum oklc_convention {
    OKLC_CONVENTION_OKLC,
    OKLC_CONVENTION_OCCA
} oklc_convention;
void oklc_set_convention(oklc_ctx *c, oklc_convention conv);

/* A file kept in memory (copied): #include "name" or <name>, of exactly
 * this name, reads it instead of looking on disk. For hosts that hold
 * their headers as strings. */
void oklc_add_header(oklc_ctx *c, const char *name, const char *text, size_t len);

/* Backend names are case-insensitive: "OpenMP" and "openmp" are the same. */
bool oklc_backend_from_name(const char *name, oklc_backend *out);
const char *oklc_backend_name(oklc_backend b);
/* Selects the backend by name: a built-in one or one a plugin loaded into
 * this context added ("serial-timed"). False when none is so named. */
bool oklc_set_backend_name(oklc_ctx *c, const char *name);

/* Loads a plugin (a shared object, docs/plugins.md, include/oklc/plugin.h)
 * into this context: what it registers applies to this context only.
 * Before the stage calls. False, with a diagnostic, when it cannot be
 * opened, is built for another plugin ABI, has no entry point, or its
 * initialization fails. */
bool oklc_load_plugin(oklc_ctx *c, const char *path);

/* Stages. `path` is read from disk; the _buffer forms take the text from
 * memory and use `path` for messages and for finding "..." includes. */
bool oklc_preprocess(oklc_ctx *c, const char *path);
bool oklc_preprocess_buffer(oklc_ctx *c, const char *path, const char *text, size_t len);
bool oklc_normalize(oklc_ctx *c, const char *path, unsigned flags);
bool oklc_normalize_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                           unsigned flags);
/* Everything up to the checks of the OKL rules: preprocess, normalize,
 * parse with Clang, build the kernel model, check it. With OKLC_DUMP_MODEL
 * the output is the model as text; otherwise it is empty. */
bool oklc_check(oklc_ctx *c, const char *path, unsigned flags);
bool oklc_check_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                       unsigned flags);

/* What each kernel costs (oklc stats, docs/stats.md): floating-point
 * operations by kind and precision, loads and stores of global and
 * @shared memory, atomics, barriers, blocks and threads; formulas in the
 * integer parameters not given, numbers where all are. The output is JSON
 * (`json`) or text. A roofline bound when both `bandwidth` (bytes/s) and
 * `peak_flops` (flop/s) are above 0. */
typedef struct oklc_stats_param {
    const char *name;
    long long   value;
} oklc_stats_param;

typedef struct oklc_stats_options {
    const oklc_stats_param *params;
    size_t                  nparams;
    double                  bandwidth, peak_flops;
    bool                    json;
} oklc_stats_options;

bool oklc_stats(oklc_ctx *c, const char *path, const oklc_stats_options *o);
bool oklc_stats_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                       const oklc_stats_options *o);

/* With the serial backend: counters in the output (oklc transpile
 * --count-ops): each floating-point operation (an fma 2) and each load and
 * store of memory adds, as it runs, to
 * `extern "C" unsigned long long _occa_counts[OKLC_COUNT_N]`, what
 * oklc_stats predicts (docs/stats.md); each element of a kernel's array is
 * handed (address, size) to `extern "C" void (*_occa_touched)(const void *,
 * unsigned long)` when the caller set it: the footprint. For checking the
 * counts: the output runs slower. */
enum {
    OKLC_COUNT_FLOPS, OKLC_COUNT_GLOBAL_LOADS, OKLC_COUNT_GLOBAL_LOAD_BYTES,
    OKLC_COUNT_GLOBAL_STORES, OKLC_COUNT_GLOBAL_STORE_BYTES, OKLC_COUNT_SHARED_LOADS,
    OKLC_COUNT_SHARED_STORES, OKLC_COUNT_ATOMICS, OKLC_COUNT_N
};
void oklc_set_count_ops(oklc_ctx *c, bool on);

/* The whole pipeline for the context's backend (oklc_set_backend): the
 * output is the backend's source; oklc_metadata() gives its JSON metadata
 * (docs/metadata.md) and, for GPU-like backends, oklc_launcher() the host
 * launcher. */
bool oklc_transpile(oklc_ctx *c, const char *path, unsigned flags);
bool oklc_transpile_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                           unsigned flags);
/* A template kernel to instantiate, named with its arguments:
 * "scale<float, 256>" (repeatable; before oklc_transpile). */
void oklc_add_instance(oklc_ctx *c, const char *kernel);
const char *oklc_metadata(oklc_ctx *c, size_t *len);

/* An intrinsic users add (or one that replaces a built-in of the same
 * name): calls of `name` in kernels become, on backend b, spelling[b] when
 * it is set (another function's name, or an expansion in which $1 ... $9
 * are the call's arguments and $* all of them), else the function
 * `declaration` with `body` (C++ with OKL's names: what backends without a
 * spelling compile). `declaration` ("float okl_fast_exp(float x)") is what
 * the front end parses calls against; NULL keeps the existing declaration
 * (replacing a built-in). Strings are copied. Before oklc_check /
 * oklc_transpile; false (and a diagnostic) when the description is wrong. */
typedef struct oklc_intrinsic {
    const char *name;
    const char *declaration;
    const char *spelling[OKLC_BACKEND_COUNT_];
    const char *body;
} oklc_intrinsic;
bool oklc_add_intrinsic(oklc_ctx *c, const oklc_intrinsic *in);
/* The intrinsics of a JSON file (docs/intrinsics.md); errors name the
 * file's line. */
bool oklc_load_intrinsics(oklc_ctx *c, const char *path);

/* NULL for backends without a launcher (serial, OpenMP). */
const char *oklc_launcher(oklc_ctx *c, size_t *len);
/* The launcher's own metadata, in OCCA's convention only (NULL otherwise):
 * the kernels as the launcher takes them, OCCA's device kernels first. */
const char *oklc_launcher_metadata(oklc_ctx *c, size_t *len);
/* A hash (hex) of everything the preprocessor produced: the source with its
 * "..." includes, after -D/-U/--include and the backend's macros; and of
 * the convention, when it is OCCA's. */
const char *oklc_input_hash(oklc_ctx *c);
/* The i-th file the last stage read from disk, in the order read: the
 * kernel, the "..." files it includes, --include files, --intrinsics
 * files (not <...> headers: those are Clang's, like cc -MMD); a name may
 * repeat. NULL past the last. For build systems (oklc --depfile). */
const char *oklc_input_file(oklc_ctx *c, size_t i);

/* The text produced by the last successful stage (NUL-terminated). */
const char *oklc_output(oklc_ctx *c, size_t *len);

/* Diagnostics, in the order they were reported. */
size_t oklc_diag_count(oklc_ctx *c);
bool oklc_diag_get(oklc_ctx *c, size_t i, oklc_diag_info *out);
int oklc_error_count(oklc_ctx *c);
void oklc_diag_print(oklc_ctx *c, FILE *out, oklc_diag_format fmt);
/* Diagnostic i, numbered as oklc_diag_get numbers them, as OKLC_DIAG_TEXT
 * prints it: "file:line:col: level: message", the source line and a caret,
 * each line ending in '\n'. The context owns the text; NULL past the last. */
const char *oklc_diag_text(oklc_ctx *c, size_t i);

/* Test hook: every allocation of the library calls `fn` instead of realloc
 * (fn(NULL, n) allocates, fn(p, 0) frees). NULL restores the default. */
typedef void *(*oklc_alloc_fn)(void *ptr, size_t size, void *user);
void oklc_set_alloc_hook(oklc_alloc_fn fn, void *user);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
