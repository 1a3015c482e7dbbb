/*
 * dpcpp.c - the DPC++ device: SYCL 2020 through a SYCL compiler found at
 * run time, Intel's `icpx -fsycl` or AdaptiveCpp's `acpp`; nothing of SYCL
 * is needed to build oklc.
 *
 * Spec: "dpcpp", "mode=dpcpp device=N" (an index into
 * sycl::device::get_devices(); default 0). The compiler is OKLC_SYCL_CXX (a
 * command split at blanks: "icpx -fsycl", "/opt/acpp/bin/acpp
 * --acpp-targets=generic"), else `icpx -fsycl` when icpx is in PATH, else
 * `acpp`; with none, or one that does not run (`--version`), the device is
 * OKLC_ERR_UNAVAILABLE saying why.
 *
 * The SYCL runtime is reached through a small C++ support library
 * (dpcpp_support.cpp, held here as text): built by that compiler (-std=c++17
 * -shared -fPIC -O2) into a cache entry of its own, keyed by the command
 * and its `--version` output, once; dlopen'ed, once per process; called
 * through extern "C" functions that return an exception's message instead
 * of throwing. A compiler that cannot build it makes the device
 * OKLC_ERR_UNAVAILABLE too, with the compiler's output. AdaptiveCpp's
 * driver is told its target where it has only its CPU backend
 * (choose_acpp_target) and identified by `--acpp-version`. The device is an
 * in-order queue; memory is USM device memory (struct oklc_memory's ptr),
 * copies are queue::memcpy at an offset, waited for, after the kernels.
 *
 * Device source is compiled by the same command and flags, then the props'
 * options, into the entry's kernel.so; for each device function K the
 * backend writes `extern "C" const char *K_run(void *queue, const unsigned
 * long *grid, const unsigned long *block, void *const *args)` (native
 * source defines `<name>_run` itself), which submits K on grid x block and
 * returns NULL or the exception's message. finish waits on the queue and
 * reports the kernels' asynchronous errors kept since the last wait. The
 * support library and the kernels share a link-map namespace of their own
 * (dl.c): the SYCL runtime's plugins bring OpenCL drivers and an LLVM;
 * AdaptiveCpp's stay in the process's (support_load says why).
 */
#define _GNU_SOURCE    /* RTLD_NODELETE */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* dpcpp_support.cpp's functions: NULL, or an error message (the support
 * library's buffer for this thread, good until its next call). */
static struct SyclApi {
    const char *(*create)(int index, int *count, void **handle, void **queue);
    void (*destroy)(void *handle);
    const char *(*name)(void *handle, char *name, size_t size);
    const char *(*malloc)(void *handle, size_t bytes, void **ptr);
    const char *(*free)(void *handle, void *ptr);
    const char *(*copy)(void *handle, void *dst, const void *src, size_t bytes);
    const char *(*wait)(void *handle);
} sycl;

#define SYM(f) {"oklc_sycl_" #f, offsetof(struct SyclApi, f), false}
static const DlSym sycl_syms[] = {
    SYM(create), SYM(destroy), SYM(name), SYM(malloc), SYM(free), SYM(copy), SYM(wait),
};
#undef SYM

/* The support library this process opened (never closed: the SYCL runtime
 * keeps threads in its code), and its cache key (the compiler's). */
static pthread_mutex_t support_lock = PTHREAD_MUTEX_INITIALIZER;
static void *support;
static char support_key[33];

static const char *const fixed_flags[] = {"-std=c++17", "-shared", "-fPIC", "-O2"};

typedef struct Sycl {
    char  **cmd;       /* the compiler's command, argv[0] absolute, NULL-terminated */
    size_t  ncmd;
    bool    acpp;      /* AdaptiveCpp's driver (acpp, or its old name syclcc) */
    void   *handle;    /* the support library's queue */
    void   *queue;     /* its sycl::queue *, for the kernels' K_run */
} Sycl;

static void free_words(char **w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        oklc_free(w[i]);
    oklc_free(w);
}

static oklc_status add_word(char ***w, size_t *n, const char *word)
{
    char **bigger = oklc_realloc(*w, (*n + 2) * sizeof *bigger);
    if (!bigger)
        return oklc_rt_oom();
    *w = bigger;
    if (!(bigger[*n] = oklc_rt_strdup(word)))
        return oklc_rt_oom();
    bigger[++*n] = NULL;
    return OKLC_OK;
}

static oklc_status unavailable(const Spec *s, const char *fmt, ...) OKLC_PRINTF(2, 3);
static oklc_status unavailable(const Spec *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = oklc_rt_vformat(fmt, ap);
    va_end(ap);
    if (!why)
        return oklc_rt_oom();
    oklc_status st = oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the dpcpp device is "
                                  "not available: %s", s->text, why);
    oklc_free(why);
    return st;
}

/* ---- the compiler ----------------------------------------------------------------------- */

/* `line` split at blanks into c->cmd, its first word found as a program. */
static oklc_status split_command(const Spec *s, Sycl *c, const char *line, const char *from)
{
    char *copy = oklc_rt_strdup(line), *save;
    oklc_status st = copy ? OKLC_OK : oklc_rt_oom();
    for (char *w = copy ? strtok_r(copy, " \t\n\r\v\f", &save) : NULL; w && !st;
         w = strtok_r(NULL, " \t\n\r\v\f", &save)) {
        char *program = c->ncmd ? NULL : oklc_rt_find_program(w);
        if (!c->ncmd && !program)
            st = unavailable(s, "cannot find the SYCL compiler '%s' (from %s): %s", w, from,
                             strchr(w, '/') ? "no such executable file" : "not in PATH");
        if (!st)
            st = add_word(&c->cmd, &c->ncmd, program ? program : w);
        oklc_free(program);
    }
    oklc_free(copy);
    return st;
}

const char *oklc_rt_sycl_command(const char **from)
{
    const char *env = getenv("OKLC_SYCL_CXX");
    *from = "OKLC_SYCL_CXX";
    if (env && env[strspn(env, " \t\n\r\v\f")])
        return env;
    static const char *const defaults[][2] = {{"icpx", "icpx -fsycl"}, {"acpp", "acpp"}};
    *from = "PATH";
    for (size_t i = 0; i < OKLC_COUNTOF(defaults); i++) {
        char *found = oklc_rt_find_program(defaults[i][0]);
        oklc_free(found);
        if (found)
            return defaults[i][1];
    }
    return NULL;
}

/* OKLC_SYCL_CXX, else icpx -fsycl, else acpp. */
static oklc_status find_compiler(const Spec *s, Sycl *c)
{
    const char *from, *line = oklc_rt_sycl_command(&from);
    if (line)
        return split_command(s, c, line, from);
    return unavailable(s, "it needs a SYCL 2020 compiler, and neither OKLC_SYCL_CXX is set "
                       "nor icpx or acpp is in PATH: set OKLC_SYCL_CXX to its command (\"icpx "
                       "-fsycl\" for Intel's oneAPI DPC++, \"acpp\" for AdaptiveCpp)");
}

/* AdaptiveCpp's driver, by its program's name. */
static bool is_acpp(const char *program)
{
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    return !strcmp(base, "acpp") || !strcmp(base, "syclcc") || !strcmp(base, "syclcc-clang");
}

/* AdaptiveCpp compiles for the targets of its configuration (`generic`,
 * compiled for the device at run time, by default) unless told. Given
 * none, by --acpp-targets or ACPP_TARGETS, and with no runtime backend but
 * its CPU one (`--acpp-version`: "Available runtime backends"), it gets
 * `omp`: compiled once ahead of time, no JIT at a kernel's first launch.
 * Where a GPU runtime backend exists, `generic` serves every device. */
static oklc_status choose_acpp_target(Sycl *c, const char *version)
{
    for (size_t i = 1; i < c->ncmd; i++)
        if (!strncmp(c->cmd[i], "--acpp-targets", 14) || !strncmp(c->cmd[i], "--hipsycl-targets", 17))
            return OKLC_OK;
    const char *env = getenv("ACPP_TARGETS");
    if (env && *env)
        return OKLC_OK;
    const char *list = strstr(version, "Available runtime backends:");
    if (!list)
        return OKLC_OK;
    for (const char *p = strstr(list, "librt-backend-"); p; p = strstr(p + 1, "librt-backend-"))
        if (strncmp(p, "librt-backend-omp.", 18))
            return OKLC_OK;
    return add_word(&c->cmd, &c->ncmd, "--acpp-targets=omp");
}

/* d->id: the command and what `<command> --version` says (AdaptiveCpp's
 * `--version` is its Clang's: `--acpp-version` says which AdaptiveCpp,
 * where, and with which backends and settings). */
static oklc_status identify(oklc_device *d, const Spec *s, Sycl *c)
{
    char **argv = NULL, *line = NULL, *output = NULL;
    size_t n = 0;
    int code = 0;
    c->acpp = is_acpp(c->cmd[0]);
    oklc_status st = OKLC_OK;
    for (size_t i = 0; !st && i < c->ncmd; i++)
        st = add_word(&argv, &n, c->cmd[i]);
    if (!st)
        st = add_word(&argv, &n, c->acpp ? "--acpp-version" : "--version");
    if (!st && (st = oklc_rt_spawn((const char *const *)argv, &output, &code)) ==
                   OKLC_ERR_COMPILE)
        st = unavailable(s, "the SYCL compiler does not run: %s", oklc_last_error());
    if (!st && code && !(line = oklc_rt_command_line((const char *const *)argv)))
        st = oklc_rt_oom();
    if (!st && code)
        st = unavailable(s, "the SYCL compiler does not work: '%s' %s %d:\n%s", line,
                         code < 0 ? "was killed, status" : "exited with status", code, output);
    if (!st && c->acpp)
        st = choose_acpp_target(c, output);
    if (!st && !(line = oklc_rt_command_line((const char *const *)c->cmd)))
        st = oklc_rt_oom();
    if (!st && !(d->id = oklc_rt_format("dpcpp\ncompiler: %s\n%s", line, output)))
        st = oklc_rt_oom();
    free_words(argv, n);
    oklc_free(line);
    oklc_free(output);
    return st;
}

/* ---- the support library ------------------------------------------------------------------ */

/* What builds the support library, as a Build for the cache's key and
 * compile: its source, the command and the compiler's identity. */
static oklc_status support_build(const oklc_device *d, const Sycl *c, Build *b)
{
    oklc_status st = OKLC_OK;
    for (size_t i = 0; !st && i < c->ncmd; i++)
        st = oklc_rt_cmd_add(b, c->cmd[i]);
    for (size_t i = 0; !st && i < OKLC_COUNTOF(fixed_flags); i++)
        st = oklc_rt_cmd_add(b, fixed_flags[i]);
    b->source = oklc_rt_strdup(oklc_dpcpp_support);
    b->source_len = oklc_dpcpp_support_len;
    b->device_id = oklc_rt_strdup(d->id);
    return st || (b->source && b->device_id) ? st : oklc_rt_oom();
}

/* Compiles the support library into a fresh folder and publishes it as
 * `entry` (kernel.c's compile_entry, for one file). A failed compile leaves
 * the folder an hour, for its log. */
static oklc_status support_compile(const Build *b, const char *root, const char *key,
                                   const char *entry)
{
    char *tmp = NULL, *src = NULL;
    oklc_rt_cache_sweep(root, 3600);
    oklc_status st = oklc_rt_cache_tmp(root, key, &tmp);
    if (!st)
        st = (src = oklc_rt_path(tmp, "support.cpp")) ? OKLC_OK : oklc_rt_oom();
    if (!st)
        st = oklc_rt_write_file(src, b->source, b->source_len);
    if (!st)
        st = oklc_rt_compile_file(b, tmp, "support.cpp", "support.so");
    st = oklc_rt_cache_commit(tmp, entry, st);
    oklc_free(tmp);
    oklc_free(src);
    return st;
}

/* The path of support.so in its cache entry, built there on a miss, and
 * the entry's key. */
static oklc_status support_entry(const oklc_device *d, const Spec *s, const Sycl *c,
                                 char **path, char key[33])
{
    oklc_props defaults = {.okl = true};
    Build b = {.dev = (oklc_device *)d, .props = &defaults, .path = "dpcpp_support.cpp",
               .name = "oklc's SYCL support library"};
    char *root = NULL, *entry = NULL;
    bool found = false;
    oklc_status st = support_build(d, c, &b);
    if (!st)
        st = oklc_rt_cache_root(&root);
    if (!st) {
        oklc_rt_cache_key(&b, key);
        entry = oklc_rt_path(root, key);
        st = entry ? oklc_rt_cache_verify(entry, &found) : oklc_rt_oom();
    }
    if (st == OKLC_ERR_LOAD) {
        if (found && oklc_rt_verbose())
            fprintf(stderr, "oklc: %s; building it again\n", oklc_last_error());
        st = support_compile(&b, root, key, entry);
    }
    if (st == OKLC_ERR_COMPILE)
        st = unavailable(s, "its SYCL compiler cannot build oklc's SYCL support library: %s",
                         oklc_last_error());
    if (!st && !(*path = oklc_rt_path(entry, "support.so")))
        st = oklc_rt_oom();
    oklc_rt_build_free(&b);
    oklc_free(root);
    oklc_free(entry);
    return st;
}

/* dlopen once per process: two SYCL runtimes in one process would not
 * share devices, memory or queues. AdaptiveCpp's runtime goes into the
 * process's own namespace: in one of its own, its worker threads (started
 * by that namespace's C library) left glibc's dlclose waiting forever for
 * them in every later kernel_free (__thread_gscope_wait); it brings no
 * LLVM but the one it was built with, which a libclang of the same
 * version shares. */
static oklc_status support_load(const Spec *s, const Sycl *c, const char *path, const char *key)
{
    oklc_status st = OKLC_OK;
    pthread_mutex_lock(&support_lock);
    if (support && strcmp(support_key, key))
        st = unavailable(s, "this process already uses the SYCL runtime of another SYCL "
                         "compiler (or of another version of it); one per process");
    void *h = st || support ? NULL : oklc_rt_dl_open(path, c->acpp ? NULL : "sycl");
    if (!st && !support && !h)
        st = oklc_rt_fail(OKLC_ERR_LOAD, "cannot load oklc's SYCL support library '%s': %s",
                          path, dlerror());
    for (size_t i = 0; h && !st && i < OKLC_COUNTOF(sycl_syms); i++) {
        if (!oklc_rt_dl_symbol(h, sycl_syms[i].name, (char *)&sycl + sycl_syms[i].offset))
            st = oklc_rt_fail(OKLC_ERR_LOAD, "oklc's SYCL support library '%s' has no %s",
                              path, sycl_syms[i].name);
    }
    if (h && st) {
        dlclose(h);
    } else if (h) {
        support = h;
        memcpy(support_key, key, sizeof support_key);
    }
    pthread_mutex_unlock(&support_lock);
    return st;
}

/* ---- the device ---------------------------------------------------------------------------- */

static void close_device(oklc_device *d)
{
    Sycl *c = d->gpu;
    if (!c)
        return;
    if (c->handle)
        sycl.destroy(c->handle);
    free_words(c->cmd, c->ncmd);
    oklc_free(c);
    d->gpu = NULL;
}

static oklc_status create_queue(oklc_device *d, const Spec *s, Sycl *c, int index)
{
    int count = 0;
    char name[256] = "?";
    const char *e = sycl.create(index, &count, &c->handle, &c->queue);
    if (e)
        return unavailable(s, "the SYCL runtime does not start: %s", e);
    if (!count)
        return unavailable(s, "%s", "the SYCL runtime has no device");
    if (!c->handle)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "device spec '%s': there is no dpcpp device %d "
                            "(there %s %d: 0 to %d)", s->text, index,
                            count == 1 ? "is" : "are", count, count - 1);
    if ((e = sycl.name(c->handle, name, sizeof name)))
        return oklc_rt_fail(OKLC_ERR_DEVICE, "device spec '%s': %s", s->text, e);
    d->label = oklc_rt_strdup(name);
    return d->label ? OKLC_OK : oklc_rt_oom();
}

/* oklc's support library: found or built in the cache, then loaded. */
static oklc_status open_support(const oklc_device *d, const Spec *s, Sycl *c)
{
    char *path = NULL, key[33];
    oklc_status st = support_entry(d, s, c, &path, key);
    if (!st)
        st = support_load(s, c, path, key);
    oklc_free(path);
    return st;
}

static oklc_status open_device(oklc_device *d, const Spec *s)
{
    int index;
    oklc_status st = oklc_gpu_device_index(s, "dpcpp", &index);
    if (st)
        return st;
    Sycl *c = oklc_gpu_state(d, sizeof *c);
    if (!c)
        return oklc_rt_oom();
    st = find_compiler(s, c);
    if (!st)
        st = identify(d, s, c);
    if (!st)
        st = open_support(d, s, c);
    if (!st)
        st = create_queue(d, s, c, index);
    if (st)
        close_device(d);
    return st;
}

static oklc_status alloc(oklc_device *d, size_t bytes, void **ptr)
{
    Sycl *c = d->gpu;
    const char *e = sycl.malloc(c->handle, bytes ? bytes : 1, ptr);
    if (e)
        return oklc_rt_fail(OKLC_ERR_DEVICE, "cannot allocate %zu bytes on the dpcpp device "
                            "'%s': %s", bytes, d->label, e);
    if (!*ptr)
        return oklc_rt_fail(OKLC_ERR_MEMORY, "cannot allocate %zu bytes on the dpcpp device "
                            "'%s': sycl::malloc_device: out of device memory", bytes, d->label);
    return OKLC_OK;
}

static void free_memory(oklc_device *d, void *ptr)
{
    Sycl *c = d->gpu;
    sycl.free(c->handle, ptr);
}

/* DeviceOps.copy */
/* DeviceOps.copy: waited for always (one queue, no streams of its own) */
static oklc_status copy(const oklc_memory *m, const void *src, void *dst, size_t bytes,
                        size_t offset, bool wait)
{
    (void)wait;
    Sycl *c = m->dev->gpu;
    char *at = (char *)m->ptr + offset;
    const char *e = src ? sycl.copy(c->handle, at, src, bytes)
                        : sycl.copy(c->handle, dst, at, bytes);
    if (e)
        return oklc_rt_fail(OKLC_ERR_DEVICE, "%s: %zu bytes at offset %zu on '%s': %s",
                            src ? "oklc_memory_copy_from_host" : "oklc_memory_copy_to_host",
                            bytes, offset, m->dev->label, e);
    return OKLC_OK;
}

/* DeviceOps.copy_device: USM pointers, one memcpy of the queue */
static oklc_status copy_device(const oklc_memory *dst, size_t dst_offset,
                               const oklc_memory *src, size_t src_offset, size_t bytes)
{
    Sycl *c = dst->dev->gpu;
    const char *e = sycl.copy(c->handle, (char *)dst->ptr + dst_offset,
                              (const char *)src->ptr + src_offset, bytes);
    if (e)
        return oklc_rt_fail(OKLC_ERR_DEVICE, "oklc_memory_copy: %zu bytes on '%s': %s", bytes,
                            dst->dev->label, e);
    return OKLC_OK;
}

static oklc_status finish(oklc_device *d)
{
    Sycl *c = d->gpu;
    const char *e = sycl.wait(c->handle);
    if (e)
        return oklc_rt_fail(OKLC_ERR_DEVICE, "the dpcpp device '%s': %s", d->label, e);
    return OKLC_OK;
}

/* ---- building and loading ---------------------------------------------------------------- */

static oklc_status device_options(const oklc_device *d, Build *b)
{
    oklc_status st = OKLC_OK;
    for (size_t i = 0; !st && i < OKLC_COUNTOF(fixed_flags); i++)
        st = oklc_rt_opt_add(b, fixed_flags[i]);
    if (!st && !(b->device_id = oklc_rt_strdup(d->id)))
        st = oklc_rt_oom();
    return st;
}

/* <compiler> <options> dir/source.cpp -o dir/kernel.so; the log is the
 * command and its output. */
static oklc_status build_device(const oklc_device *d, const Build *b, const char *dir,
                                char **log)
{
    const Sycl *c = d->gpu;
    char **argv = NULL, *src = oklc_rt_path(dir, d->ops->source_name);
    char *out = oklc_rt_path(dir, d->ops->binary_name), *line = NULL, *output = NULL;
    size_t n = 0;
    int code = 0;
    oklc_status st = src && out ? OKLC_OK : oklc_rt_oom();
    for (size_t i = 0; !st && i < c->ncmd; i++)
        st = add_word(&argv, &n, c->cmd[i]);
    for (size_t i = 0; !st && i < b->nopts; i++)
        st = add_word(&argv, &n, b->opts[i]);
    if (!st && !(st = add_word(&argv, &n, src)) && !(st = add_word(&argv, &n, "-o")))
        st = add_word(&argv, &n, out);
    if (!st && !(line = oklc_rt_command_line((const char *const *)argv)))
        st = oklc_rt_oom();
    if (!st && oklc_rt_verbose())
        fprintf(stderr, "oklc: compiling: %s\n", line);
    if (!st) {
        oklc_rt_count_compile();
        st = oklc_rt_spawn((const char *const *)argv, &output, &code);
    }
    if (!st && !(*log = oklc_rt_format("%s\n%s", line, output)))
        st = oklc_rt_oom();
    if (!st && code)
        st = oklc_rt_fail(OKLC_ERR_COMPILE, "cannot compile the kernel source of '%s' for '%s': "
                          "the SYCL compiler %s %d\ncommand: %s\n(the source and its log stay in "
                          "%s)\n%s", b->path, d->label,
                          code < 0 ? "was killed, status" : "exited with status", code, line,
                          dir, output);
    free_words(argv, n);
    oklc_free(src);
    oklc_free(out);
    oklc_free(line);
    oklc_free(output);
    return st;
}

/* kernel.so stays mapped (RTLD_NODELETE): the SYCL runtime keeps the device
 * images its constructors registered, and may still run its kernels. */
static oklc_status load_device(oklc_kernel *k, const char *dir, char *const *names, int n)
{
    char *path = oklc_rt_path(dir, k->dev->ops->binary_name);
    if (!path)
        return oklc_rt_oom();
    k->module = oklc_rt_dl_open_beside(support, path, RTLD_NODELETE);
    oklc_status st = OKLC_OK;
    if (!k->module)
        st = oklc_rt_fail(OKLC_ERR_LOAD, "cannot load '%s': %s", path, dlerror());
    for (int i = 0; !st && i < n; i++) {
        char *run = oklc_rt_format("%s_run", names[i]);
        if (!run)
            st = oklc_rt_oom();
        else if (!oklc_rt_dl_symbol(k->module, run, &k->functions[i]))
            st = oklc_rt_fail(k->nparams < 0 ? OKLC_ERR_ARGUMENT : OKLC_ERR_LOAD,
                              "no kernel '%s' in '%s' (no %s: dlsym: %s)", names[i], path, run,
                              dlerror());
        oklc_free(run);
    }
    oklc_free(path);
    return st;
}

static void unload_device(oklc_kernel *k)
{
    if (k->module)
        dlclose(k->module);
}

/* ---- running -------------------------------------------------------------------------------- */

typedef const char *(*RunFn)(void *queue, const unsigned long *grid, const unsigned long *block,
                             void *const *args);

static int launch(oklc_kernel *k, int index, const size_t grid[3], const size_t block[3],
                  int nargs, void *const *args, const size_t *sizes, const char **call)
{
    (void)nargs;
    (void)sizes;
    static _Thread_local char what[256];
    const Sycl *c = k->dev->gpu;
    unsigned long g[3], b[3];
    for (int i = 0; i < 3; i++) {
        g[i] = grid[i];
        b[i] = block[i];
    }
    RunFn run;
    memcpy(&run, &k->functions[index], sizeof run);
    const char *e = run(c->queue, g, b, args);
    if (!e)
        return 0;
    snprintf(what, sizeof what, "submitting it to the SYCL queue: %s", e);
    *call = what;
    return GPU_OWN_ERROR;
}

static const char *error_name(int code)
{
    (void)code;
    return "a SYCL error";
}

const DeviceOps oklc_dpcpp_ops = {
    .name = "dpcpp", .title = "DPC++", .backend = OKLC_BACKEND_DPCPP,
    .source_name = "source.cpp", .binary_name = "kernel.so", .error_name = error_name,
    /* the device and its memory, through the support library */
    .open = open_device, .close = close_device, .finish = finish, .alloc = alloc,
    .free = free_memory, .copy = copy, .copy_device = copy_device,
    /* kernels: gpu.c's, with kernel.so as the device binary */
    OKLC_GPU_OPS, .device_options = device_options, .build_device = build_device,
    .load_device = load_device, .unload_device = unload_device, .launch = launch,
};
