/*
 * gpu.c - what the GPU-like devices (OpenCL, CUDA, HIP) share: the build
 * of a cache entry (the device binary, and for OKL the host launcher),
 * loading it, and running a kernel through its launcher.
 *
 * An OKL kernel becomes device kernels and a host launcher
 * (docs/launchers.md). The launcher is C++ compiled with the system's
 * compiler into launcher.so, as serial code is (-std=c++17 -shared -fPIC
 * -O2); its entry `int _occa_launch_K(const _occa_launch_api *, void *const
 * *args)` computes each device kernel's grid and block from the scalar
 * arguments and calls back `run`, which the vendor's file implements (set
 * the arguments, enqueue). The device source is compiled in process by the
 * vendor's compiler (clBuildProgram, NVRTC, hiprtc) into the entry's binary.
 *
 * Native device source has no launcher and no metadata: the kernel is the
 * one device function named, run on the dims of oklc_kernel_set_run_dims,
 * its arguments passed as given.
 *
 * CUDA and HIP open a device, allocate and copy memory, compile, build,
 * load and launch a module alike, through calls that take the same
 * parameters (DriverCalls; RtcCalls for NVRTC and hiprtc) or small hooks:
 * that path is here once, driven by each file's ModuleApi table. Vendor
 * failures read alike on all three (oklc_gpu_fail).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static atomic_long launches;

long oklc_rt_launch_count(void)
{
    return atomic_load(&launches);
}

oklc_status oklc_gpu_fail(const DeviceOps *ops, oklc_status st, int code, const char *call,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = oklc_rt_vformat(fmt, ap);
    va_end(ap);
    if (!what)
        return oklc_rt_oom();
    if (ops->module && code == ops->module->oom)
        st = OKLC_ERR_MEMORY;
    st = oklc_rt_fail(st, "%s: %s: %s (%d)", what, call, ops->error_name(code), code);
    oklc_free(what);
    return st;
}

void *oklc_gpu_state(oklc_device *d, size_t size)
{
    d->gpu = oklc_malloc(size);
    if (d->gpu)
        memset(d->gpu, 0, size);
    return d->gpu;
}

/* ---- device specs ------------------------------------------------------------------- */

oklc_status oklc_gpu_device_index(const Spec *s, const char *mode, int *index)
{
    const char *extra = s->threads ? "threads" : s->platform ? "platform" : NULL;
    if (extra)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT,
                            "device spec '%s': '%s' does not apply to the %s device", s->text,
                            extra, mode);
    *index = 0;
    if (!s->device)
        return OKLC_OK;
    char *end;
    long n = strtol(s->device, &end, 10);
    if (s->device[0] < '0' || s->device[0] > '9' || *end || n > INT_MAX)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "device spec '%s': device=%s is not a device "
                            "index (0, 1, ...)", s->text, s->device);
    *index = (int)n;
    return OKLC_OK;
}

/* ---- building -------------------------------------------------------------------- */

/* `path` between quotes, \" and \\ escaped; for #line (`literal`) also
 * line breaks, other control characters and '?' (trigraphs) as octal
 * escapes, so no file name can end the directive or inject code. */
static char *quoted(const char *path, bool literal)
{
    char *q = oklc_malloc(4 * strlen(path) + 3), *p = q;
    if (!q)
        return NULL;
    *p++ = '"';
    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        if (literal && (*s < 0x20 || *s == 0x7f || *s == '?')) {
            /* a line break ends the directive; ?? starts a trigraph */
            p += sprintf(p, "\\%03o", *s);
            continue;
        }
        if (*s == '"' || *s == '\\')
            *p++ = '\\';
        *p++ = (char)*s;
    }
    *p++ = '"';
    *p = '\0';
    return q;
}

/* Native source's included files, as #include lines before it (no device
 * compiler has a portable -include); #line keeps its own line numbers. */
static oklc_status include_files(Build *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->props->ncmds; i++)
        n += b->props->cmds[i].kind == PROP_INCLUDE_FILE;
    if (!n)
        return OKLC_OK;
    char *text = oklc_rt_strdup("");
    oklc_status st = text ? OKLC_OK : oklc_rt_oom();
    for (size_t i = 0; !st && i < b->props->ncmds; i++) {
        const PropCmd *c = &b->props->cmds[i];
        if (c->kind != PROP_INCLUDE_FILE)
            continue;
        char *abs = oklc_rt_absolute(c->text), *q = abs ? quoted(abs, false) : NULL;
        char *more = q ? oklc_rt_format("%s#include %s\n", text, q) : NULL;
        oklc_free(abs);
        oklc_free(q);
        oklc_free(text);
        text = more;
        st = text ? OKLC_OK : oklc_rt_oom();
    }
    char *path = st ? NULL : quoted(b->path, true);
    char *source = path ? oklc_rt_format("%s#line 1 %s\n%s", text, path, b->source) : NULL;
    if (!st && !source)
        st = oklc_rt_oom();
    if (!st) {
        oklc_free(b->source);
        b->source = source;
        b->source_len = strlen(source);
    }
    oklc_free(path);
    oklc_free(text);
    return st;
}

oklc_status oklc_gpu_props_options(Build *b)
{
    bool native = !b->props->okl;
    oklc_status st = OKLC_OK;
    if (native && b->source_dir)
        st = oklc_rt_opt_add_joined(b, "-I", b->source_dir);
    for (size_t i = 0; !st && i < b->props->ncmds; i++) {
        const PropCmd *c = &b->props->cmds[i];
        if (c->kind == PROP_DEFINE && native)
            st = oklc_rt_opt_add_joined(b, "-D", c->text);
        else if (c->kind == PROP_INCLUDE_PATH) {
            char *abs = oklc_rt_absolute(c->text);
            st = abs ? oklc_rt_opt_add_joined(b, "-I", abs) : oklc_rt_oom();
            oklc_free(abs);
        }
    }
    if (!st && native)
        st = include_files(b);
    if (st || !b->props->flags)
        return st;
    char *copy = oklc_rt_strdup(b->props->flags), *save;
    if (!copy)
        return oklc_rt_oom();
    for (char *w = strtok_r(copy, " \t\n\r\v\f", &save); w && !st;
         w = strtok_r(NULL, " \t\n\r\v\f", &save))
        st = oklc_rt_opt_add(b, w);
    oklc_free(copy);
    return st;
}

/* The launcher's compile command (OKL), then the device's options: its
 * own (the architecture), the props' after them so that they can
 * override. OKLC_CXXFLAGS is for CPU kernels; launchers get fixed flags. */
oklc_status oklc_gpu_command(const oklc_device *d, Build *b)
{
    static const char *const fixed[] = {"-std=c++17", "-shared", "-fPIC", "-O2"};
    oklc_status st = OKLC_OK;
    if (b->launcher) {
        st = oklc_rt_compiler(b);
        for (size_t i = 0; !st && i < OKLC_COUNTOF(fixed); i++)
            st = oklc_rt_cmd_add(b, fixed[i]);
    }
    if (!st)
        st = d->ops->device_options(d, b);
    return st ? st : oklc_gpu_props_options(b);
}

static oklc_status append_log(const char *dir, const char *title, const char *log)
{
    char *path = oklc_rt_path(dir, "build.log");
    char *text = oklc_rt_format("%s\n%s%s", title, log ? log : "",
                                log && *log && log[strlen(log) - 1] != '\n' ? "\n" : "");
    oklc_status st = path && text ? oklc_rt_append_file(path, text, strlen(text))
                                  : oklc_rt_oom();
    oklc_free(path);
    oklc_free(text);
    return st;
}

/* The device binary first (its errors are the kernel's), then the
 * launcher. Both logs go to build.log. */
oklc_status oklc_gpu_compile(const oklc_device *d, const Build *b, const char *dir)
{
    char *log = NULL, *title = NULL;
    if (oklc_rt_verbose())
        fprintf(stderr, "oklc: building '%s' for the %s device '%s' in %s\n", b->path,
                d->ops->name, d->label, dir);
    oklc_status st = d->ops->build_device(d, b, dir, &log);
    oklc_status lst = OKLC_OK;
    if (!(title = oklc_rt_format("%s build of %s for '%s':", d->ops->title,
                                 d->ops->source_name, d->label)))
        lst = oklc_rt_oom();
    else
        lst = append_log(dir, title, log);
    oklc_free(title);
    oklc_free(log);
    if (st)
        return st;
    if (lst)
        return lst;
    return b->launcher ? oklc_rt_compile_file(b, dir, "launcher.cpp", "launcher.so") : OKLC_OK;
}

/* ---- loading ---------------------------------------------------------------------- */

static oklc_status load_launcher(oklc_kernel *k, const char *dir, const char *symbol)
{
    char *path = oklc_rt_path(dir, "launcher.so");
    if (!path)
        return oklc_rt_oom();
    dlerror();
    k->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    oklc_status st = OKLC_OK;
    if (!k->lib)
        st = oklc_rt_fail(OKLC_ERR_LOAD, "cannot load the launcher '%s': %s", path, dlerror());
    else if (!oklc_rt_dl_symbol(k->lib, symbol, &k->launch))
        st = oklc_rt_fail(OKLC_ERR_LOAD, "no launcher '%s' of kernel '%s' in '%s' (dlsym: %s)",
                          symbol, k->name, path, dlerror());
    oklc_free(path);
    return st;
}

oklc_status oklc_gpu_load(oklc_kernel *k, const char *dir, const char *metadata,
                          const char *symbol)
{
    oklc_status st;
    if (k->nparams >= 0) {
        st = oklc_rt_find_strings(metadata, dir, k->name, "functions", &k->function_names,
                                  &k->nfunctions);
        if (!st)
            st = oklc_rt_find_strings(metadata, dir, k->name, "faults", &k->faults,
                                      &k->nfaults);
        if (!st && !k->nfunctions)
            st = oklc_rt_fail(OKLC_ERR_LOAD, "the metadata of '%s' lists no device kernels "
                              "(\"functions\") for kernel '%s'", dir, k->name);
        if (!st)
            st = load_launcher(k, dir, symbol);
    } else {
        k->function_names = oklc_malloc(sizeof *k->function_names);
        if (k->function_names && (k->function_names[0] = oklc_rt_strdup(symbol)))
            k->nfunctions = 1;
        st = k->nfunctions ? OKLC_OK : oklc_rt_oom();
    }
    if (!st) {
        k->functions = oklc_malloc((size_t)k->nfunctions * sizeof *k->functions);
        if (k->functions)
            memset(k->functions, 0, (size_t)k->nfunctions * sizeof *k->functions);
        st = k->functions ? OKLC_OK : oklc_rt_oom();
    }
    if (!st)
        st = k->dev->ops->load_device(k, dir, k->function_names, k->nfunctions);
    return st;
}

void oklc_gpu_unload(oklc_kernel *k)
{
    k->dev->ops->unload_device(k);
    oklc_free(k->functions);
    oklc_rt_strings_free(k->function_names, k->nfunctions);
    oklc_rt_strings_free(k->faults, k->nfaults);
    if (k->lib)
        dlclose(k->lib);
}

/* ---- running ------------------------------------------------------------------------ */

/* What the launcher's calls back into: the kernel, the arguments' sizes,
 * and the first failure. */
typedef struct Launch {
    oklc_kernel  *k;
    int           nargs;
    const size_t *sizes;
    bool          fail;       /* a device kernel failed: */
    int           failed;     /* which (any int the launcher gave) */
    int           code;
    const char   *call;
    size_t        grid[3], block[3];
    char          refused[512];  /* the launcher's own refusal (fail_function) */
} Launch;


static int run_function(void *device, int index, const unsigned long grid[3],
                        const unsigned long block[3], void *const *args)
{
    Launch *l = device;
    if (l->fail)    /* a launcher that goes on after a failure */
        return l->code == GPU_OWN_ERROR ? -1 : l->code;
    for (int i = 0; i < 3; i++) {
        l->grid[i] = grid[i];
        l->block[i] = block[i];
    }
    l->failed = index;
    if (index < 0 || index >= l->k->nfunctions) {
        l->fail = true;
        l->code = GPU_OWN_ERROR;
        l->call = "no such device kernel";
        return -1;
    }
    const char *call = NULL;
    int code = l->k->dev->ops->launch(l->k, index, l->grid, l->block, l->nargs, args, l->sizes,
                                      &call);
    if (code) {
        l->fail = true;
        l->code = code;
        l->call = call;
        return code == GPU_OWN_ERROR ? -1 : code;
    }
    atomic_fetch_add(&launches, 1);
    return 0;
}

static int fail_function(void *device, const char *message)
{
    Launch *l = device;
    if (!l->fail) {
        l->fail = true;
        l->code = GPU_OWN_ERROR;
        l->failed = -1;
        snprintf(l->refused, sizeof l->refused, "%s", message ? message : "(no message)");
    }
    return -1;
}

static oklc_status launch_failed(const Launch *l, int returned)
{
    if (l->refused[0])
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "cannot run '%s' on the %s device '%s': %s",
                            l->k->name, l->k->dev->ops->name, l->k->dev->label, l->refused);
    const oklc_kernel *k = l->k;
    const DeviceOps *ops = k->dev->ops;
    char where[512] = "", how[256];
    bool known = l->failed >= 0 && l->failed < k->nfunctions;
    if (!l->fail)
        return oklc_rt_fail(OKLC_ERR_DEVICE, "cannot run '%s' on the %s device '%s': its "
                            "launcher returned %d", k->name, ops->name, k->dev->label,
                            returned);
    if (k->nparams >= 0)
        snprintf(where, sizeof where, "device kernel %d%s%s%s of ", l->failed,
                 known ? " ('" : "", known ? k->function_names[l->failed] : "",
                 known ? "')" : "");
    if (l->code == GPU_OWN_ERROR && !known)
        snprintf(how, sizeof how, "%s (the kernel has %d)", l->call, k->nfunctions);
    else if (l->code == GPU_OWN_ERROR)
        snprintf(how, sizeof how, "%s", l->call);
    else
        snprintf(how, sizeof how, "%s: %s (%d)", l->call ? l->call : "launch",
                 ops->error_name(l->code), l->code);
    return oklc_rt_fail(OKLC_ERR_DEVICE, "cannot run %s'%s' on the %s device '%s' (grid "
                        "%zux%zux%zu, block %zux%zux%zu): %s", where, k->name, ops->name,
                        k->dev->label, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                        l->block[1], l->block[2], how);
}

/* Each argument's bytes: memory is the handle (cl_mem, CUdeviceptr,
 * device pointer); checked kernels take the metadata's sizes, native ones
 * the size of what was given. */
static size_t arg_size(const oklc_kernel *k, int i, const oklc_arg *a)
{
    if (a->kind == OKLC_ARG_MEMORY)
        return sizeof(void *);
    if (k->nparams >= 0)
        return k->params[i].size;
    switch (a->kind) {
    case OKLC_ARG_INT: return sizeof(int32_t);
    case OKLC_ARG_LONG: return sizeof(int64_t);
    case OKLC_ARG_FLOAT: return sizeof(float);
    case OKLC_ARG_DOUBLE: return sizeof(double);
    case OKLC_ARG_STRUCT: return a->u.bytes.size;
    case OKLC_ARG_MEMORY: break;
    }
    return 0;
}

static oklc_status run_native(Launch *l, void *const *ptrs)
{
    oklc_kernel *k = l->k;
    if (!k->dims_set)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "'%s' is a native %s kernel: it runs on the "
                            "dims of oklc_kernel_set_run_dims, which was not called",
                            k->name, k->dev->ops->name);
    if (!k->outer[0] || !k->outer[1] || !k->outer[2])
        return OKLC_OK;    /* no work-group: nothing runs, as in a launcher */
    unsigned long grid[3], block[3];
    for (int i = 0; i < 3; i++) {
        grid[i] = k->outer[i];
        block[i] = k->inner[i];
    }
    int code = run_function(l, 0, grid, block, ptrs);
    return code ? launch_failed(l, code) : OKLC_OK;
}

/* The faults the device kernels marked (k->faults): the first one's
 * message, else OK. Reading them waits for the kernels. */
static oklc_status faults_marked(const oklc_kernel *k, const oklc_memory *m)
{
    int local[16], *marks = k->nfaults > 16 ? oklc_malloc((size_t)k->nfaults * sizeof *marks)
                                            : local;
    if (!marks)
        return oklc_rt_oom();
    oklc_status st = oklc_memory_copy_to_host(m, marks, (size_t)k->nfaults * sizeof *marks, 0);
    for (int i = 0; !st && i < k->nfaults; i++)
        if (marks[i])
            st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "cannot run '%s' on the %s device '%s': %s "
                              "(its results are not complete)", k->name, k->dev->ops->name,
                              k->dev->label, k->faults[i]);
    if (marks != local)
        oklc_free(marks);
    return st;
}

/* Runs the launcher with the arguments as `ptrs` (and `sizes`) has them. */
static oklc_status run_launcher(Launch *l, void *const *ptrs)
{
    LaunchApi api = {.version = 2, .device = l, .run = run_function, .fail = fail_function};
    int r = l->k->launch(&api, ptrs);
    return r || l->fail ? launch_failed(l, r) : OKLC_OK;
}

/* A kernel whose device kernels report faults takes their marks as its
 * last argument, zeroed before the launch and read after it. */
static oklc_status run_checked(Launch *l, void *const *ptrs)
{
    oklc_kernel *k = l->k;
    oklc_memory *m = NULL;
    size_t bytes = (size_t)k->nfaults * sizeof(int);
    void *zeros = oklc_malloc(bytes);
    void **all = oklc_malloc((size_t)(l->nargs + 1) * sizeof *all);
    size_t *sizes = oklc_malloc((size_t)(l->nargs + 1) * sizeof *sizes);
    oklc_status st = zeros && all && sizes ? oklc_memory_alloc(k->dev, bytes, &m)
                                           : oklc_rt_oom();
    if (!st) {
        memset(zeros, 0, bytes);
        st = oklc_memory_copy_from_host(m, zeros, bytes, 0);
    }
    if (!st) {
        memcpy(all, ptrs, (size_t)l->nargs * sizeof *all);
        memcpy(sizes, l->sizes, (size_t)l->nargs * sizeof *sizes);
        all[l->nargs] = &m->ptr;
        sizes[l->nargs] = sizeof m->ptr;
        l->nargs++;
        l->sizes = sizes;
        st = run_launcher(l, all);
    }
    if (!st)
        st = faults_marked(k, m);
    oklc_memory_free(m);
    oklc_free(zeros);
    oklc_free(all);
    oklc_free(sizes);
    return st;
}

oklc_status oklc_gpu_run(oklc_kernel *k, int nargs, const oklc_arg *args, void *const *ptrs)
{
    size_t local[16], *sizes = nargs > 16 ? oklc_malloc((size_t)nargs * sizeof *sizes) : local;
    if (!sizes)
        return oklc_rt_oom();
    for (int i = 0; i < nargs; i++)
        sizes[i] = arg_size(k, i, &args[i]);
    Launch l = {.k = k, .nargs = nargs, .sizes = sizes};
    oklc_status st = k->nparams < 0 ? run_native(&l, ptrs)
                     : k->nfaults   ? run_checked(&l, ptrs)
                                    : run_launcher(&l, ptrs);
    if (sizes != local)
        oklc_free(sizes);
    return st;
}

oklc_status oklc_kernel_set_run_dims(oklc_kernel *k, const size_t outer[3],
                                     const size_t inner[3])
{
    if (!k || !outer || !inner)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_set_run_dims: NULL %s",
                            !k ? "kernel" : !outer ? "outer" : "inner");
    if (!k->dev->ops->launch)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_set_run_dims: '%s' is a kernel of "
                            "the %s device; run dims apply only to native kernels of GPU-like "
                            "devices (cuda, hip, opencl, dpcpp)", k->name, k->dev->ops->name);
    if (k->nparams >= 0)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_set_run_dims: '%s' is an OKL "
                            "kernel: its launcher computes its dims; they apply only to "
                            "native kernels", k->name);
    for (int i = 0; i < 3; i++) {
        if (!inner[i])
            return oklc_rt_fail(OKLC_ERR_ARGUMENT, "oklc_kernel_set_run_dims: inner[%d] of "
                                "'%s' is 0 (a work-group has at least 1 work-item on each "
                                "axis)", i, k->name);
    }
    memcpy(k->outer, outer, sizeof k->outer);
    memcpy(k->inner, inner, sizeof k->inner);
    k->dims_set = true;
    return OKLC_OK;
}

/* ---- NVRTC and hiprtc ------------------------------------------------------------- */

oklc_status oklc_gpu_rtc_version(const Rtc *rtc, char version[32])
{
    int major = 0, minor = 0;
    oklc_status st = rtc->load();
    if (!st && rtc->calls->Version(&major, &minor))
        st = oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "%s does not say its version", rtc->name);
    if (!st)
        snprintf(version, 32, "%d.%d", major, minor);
    return st;
}

static char *program_log(const Rtc *rtc, void *p)
{
    size_t n = 0;
    if (rtc->calls->GetProgramLogSize(p, &n))
        n = 0;
    char *log = oklc_malloc(n + 1);
    if (log && n && rtc->calls->GetProgramLog(p, log))
        n = 0;
    if (log)
        log[n] = '\0';
    return log;
}

/* The compiled program's code, NUL-terminated (oklc_free *binary): the
 * cubin or code object, else (NVRTC, an arch given as compute_XY) the PTX. */
static oklc_status program_code(const Rtc *rtc, void *p, const char *what, char **binary,
                                size_t *size)
{
    const RtcCalls *c = rtc->calls;
    int (*get_size)(void *, size_t *) = c->GetCodeSize, (*get)(void *, char *) = c->GetCode;
    size_t n = 0;
    bool none = get_size(p, &n) || !n;
    if (none && c->GetPTXSize) {
        get_size = c->GetPTXSize;
        get = c->GetPTX;
        none = get_size(p, &n) != 0;
    }
    if (none)
        return oklc_rt_fail(OKLC_ERR_COMPILE, "%s gave no code for '%s'", rtc->name, what);
    char *b = oklc_malloc(n + 1);
    if (!b)
        return oklc_rt_oom();
    int r = get(p, b);
    if (r) {
        oklc_free(b);
        return oklc_rt_fail(OKLC_ERR_COMPILE, "%s gave no code for '%s': %s", rtc->name, what,
                            c->GetErrorString(r));
    }
    b[n] = '\0';
    *binary = b;
    *size = n;
    return OKLC_OK;
}

/* The standard headers whose names the prelude declares (okl.hpp's math,
 * the intN_t types, size_t; printf is built into both compilers). */
static const char *const standard_headers[] = {
    "cmath", "math.h", "cstdint", "stdint.h", "cstddef", "stddef.h", "cstdio", "stdio.h",
};
static const char empty_header[] = "/* oklc: the prelude declares this header's names */\n";
static const char *const empty_headers[OKLC_COUNTOF(standard_headers)] = {
    empty_header, empty_header, empty_header, empty_header,
    empty_header, empty_header, empty_header, empty_header,
};

oklc_status oklc_gpu_rtc_compile(const Rtc *rtc, const char *source, const char *what, bool okl,
                                 const char *const *opts, size_t nopts, char **binary,
                                 size_t *size, char **log)
{
    const RtcCalls *c = rtc->calls;
    *binary = NULL;
    *size = 0;
    *log = NULL;
    oklc_status st = rtc->load();
    if (st)
        return st;
    if (nopts >= INT_MAX)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "too many %s options", rtc->name);
    char *include = rtc->include ? rtc->include() : NULL;
    const char **all = oklc_malloc((nopts + 1) * sizeof *all);
    if (!all) {
        oklc_free(include);
        return oklc_rt_oom();
    }
    if (nopts)
        memcpy(all, opts, nopts * sizeof *opts);
    if (include)                      /* last: the caller's -I come first */
        all[nopts++] = include;
    void *p = NULL;
    int r = c->CreateProgram(&p, source, what, okl ? (int)OKLC_COUNTOF(empty_headers) : 0,
                             okl ? empty_headers : NULL, okl ? standard_headers : NULL);
    if (r) {
        oklc_free(all);
        oklc_free(include);
        return oklc_rt_fail(rtc->oom && r == rtc->oom ? OKLC_ERR_MEMORY : OKLC_ERR_COMPILE,
                            "%sCreateProgram for '%s': %s", rtc->prefix, what,
                            c->GetErrorString(r));
    }
    oklc_rt_count_compile();
    r = c->CompileProgram(p, (int)nopts, all);
    oklc_free(all);
    oklc_free(include);
    *log = program_log(rtc, p);
    if (!*log)
        st = oklc_rt_oom();
    else if (r)
        st = oklc_rt_fail(OKLC_ERR_COMPILE, "cannot compile '%s' with %s: %s\n%s", what,
                          rtc->name, c->GetErrorString(r), *log);
    else
        st = program_code(rtc, p, what, binary, size);
    c->DestroyProgram(&p);
    return st;
}

/* ---- CUDA's and HIP's devices and modules ------------------------------------------ */

/* The spec's device index, checked against the devices there are once the
 * vendor's library is loaded and started. */
static oklc_status device_index(const oklc_device *d, const Spec *s, int *index)
{
    const DeviceOps *ops = d->ops;
    const ModuleApi *m = ops->module;
    int count = 0;
    oklc_status st = oklc_gpu_device_index(s, ops->name, index);
    if (st)
        return st;
    if (oklc_rt_dl_load_swap(m->lib))
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the %s device is not "
                            "available: %s", s->text, ops->title, oklc_last_error());
    const char *call = m->call.init;
    int r = m->calls->init(0);
    if (!r && (r = m->calls->count(&count)))
        call = m->call.count;
    if (r || !count) {
        char none[32];
        snprintf(none, sizeof none, "no %s device", ops->title);
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the %s device is not "
                            "available: %s (%s: %s)", s->text, ops->title,
                            !r || m->no_device(r) ? none : m->not_started, call,
                            r ? ops->error_name(r) : "0 devices");
    }
    if (*index >= count)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "device spec '%s': there is no %s device %d "
                            "(there %s %d: 0 to %d)", s->text, ops->title, *index,
                            count == 1 ? "is" : "are", count, count - 1);
    return OKLC_OK;
}

oklc_status oklc_gpu_module_open(oklc_device *d, const Spec *s)
{
    const ModuleApi *m = d->ops->module;
    int index;
    oklc_status st = device_index(d, s, &index);
    if (st)
        return st;
    if (!oklc_gpu_state(d, m->state))
        return oklc_rt_oom();
    st = m->open(d, s, index);
    if (st)
        oklc_gpu_module_close(d);
    return st;
}

void oklc_gpu_module_close(oklc_device *d)
{
    if (d->gpu)
        d->ops->module->close(d);
    oklc_free(d->gpu);
    d->gpu = NULL;
}

oklc_status oklc_gpu_module_alloc(oklc_device *d, size_t bytes, void **ptr)
{
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->alloc(ptr, bytes ? bytes : 1);
    if (r)
        return oklc_gpu_fail(d->ops, OKLC_ERR_DEVICE, r, m->call.alloc, "cannot allocate %zu "
                             "bytes on the %s device '%s'", bytes, d->ops->title, d->label);
    return st;
}

void oklc_gpu_module_free(oklc_device *d, void *ptr)
{
    if (!oklc_gpu_select(d))
        d->ops->module->free(ptr);
}

/* The device address is a number to CUDA (CUdeviceptr): offset as one.
 * In a stream of ours: the asynchronous copy, then its end when waited
 * for; in the default stream: the synchronous copy. */
oklc_status oklc_gpu_module_copy(const oklc_memory *mem, const void *src, void *dst,
                                 size_t bytes, size_t offset, bool wait)
{
    const DeviceOps *ops = mem->dev->ops;
    const ModuleApi *m = ops->module;
    void *at = (void *)((uintptr_t)mem->ptr + offset), *s = oklc_rt_stream(mem->dev);
    oklc_status st = oklc_gpu_select(mem->dev);
    int r = st ? 0
            : s ? m->copy_async(src ? at : dst, src ? src : at, bytes,
                                src ? GPU_TO_DEVICE : GPU_TO_HOST, s)
            : src ? m->copy(at, src, bytes, GPU_TO_DEVICE) : m->copy(dst, at, bytes, GPU_TO_HOST);
    if (!r && !st && s && wait)
        r = m->calls->stream_synchronize(s);
    if (r)
        return oklc_gpu_fail(ops, OKLC_ERR_DEVICE, r, src ? m->call.to_device : m->call.to_host,
                             "%s: %zu bytes at offset %zu on '%s'",
                             src ? "oklc_memory_copy_from_host" : "oklc_memory_copy_to_host",
                             bytes, offset, mem->dev->label);
    return st;
}

oklc_status oklc_gpu_module_copy_device(const oklc_memory *dst, size_t dst_offset,
                                        const oklc_memory *src, size_t src_offset, size_t bytes)
{
    const DeviceOps *ops = dst->dev->ops;
    const ModuleApi *m = ops->module;
    oklc_status st = oklc_gpu_select(dst->dev);
    int r = st ? 0 : m->copy((void *)((uintptr_t)dst->ptr + dst_offset),
                             (const void *)((uintptr_t)src->ptr + src_offset), bytes,
                             GPU_ON_DEVICE);
    if (r)
        return oklc_gpu_fail(ops, OKLC_ERR_DEVICE, r, m->call.on_device, "oklc_memory_copy: "
                             "%zu bytes on '%s'", bytes, dst->dev->label);
    return st;
}

oklc_status oklc_gpu_module_host_alloc(oklc_device *d, size_t bytes, void **ptr)
{
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->host_alloc(ptr, bytes ? bytes : 1);
    if (r) {
        *ptr = NULL;
        return oklc_gpu_fail(d->ops, OKLC_ERR_MEMORY, r, m->call.host_alloc, "cannot allocate "
                             "%zu bytes of page-locked host memory for '%s'", bytes, d->label);
    }
    return st;
}

void oklc_gpu_module_host_free(oklc_device *d, void *ptr)
{
    if (!oklc_gpu_select(d))
        d->ops->module->host_free(ptr);
}

/* The vendor's attributes, then its memory (in the current context). */
oklc_status oklc_gpu_module_query(oklc_device *d, oklc_device_info *info)
{
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    if (st)
        return st;
    int dev = m->query(d, info), v[6], r = 0;
    const char *call = m->call.attribute;
    for (int i = 0; i < 6 && !r; i++)
        r = m->calls->attribute(&v[i], m->attributes[i], dev);
    size_t total = 0, free_bytes = 0;
    if (!r && (r = m->calls->total_memory(&total, dev)))
        call = m->call.total_memory;
    if (!r && (r = m->calls->memory_info(&free_bytes, &total)))
        call = m->call.memory_info;
    if (r)
        return oklc_gpu_fail(d->ops, OKLC_ERR_DEVICE, r, call, "oklc_device_query: '%s'",
                             d->label);
    info->compute_units = v[0];
    info->max_block_threads = (uint64_t)v[1];
    for (int i = 0; i < 3; i++)
        info->max_block_dims[i] = (uint64_t)v[2 + i];
    info->shared_memory = (uint64_t)v[5];
    info->memory_total = total, info->memory_free = free_bytes;
    return OKLC_OK;
}

oklc_status oklc_gpu_select(const oklc_device *d)
{
    const ModuleApi *m = d->ops->module;
    int r = m->select(d);
    return r ? oklc_gpu_fail(d->ops, OKLC_ERR_DEVICE, r, m->call.select, "the %s device '%s'",
                             d->ops->title, d->label)
             : OKLC_OK;
}

oklc_status oklc_gpu_module_finish(oklc_device *d)
{
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->calls->synchronize();
    if (r)
        return oklc_gpu_fail(d->ops, OKLC_ERR_DEVICE, r, m->call.synchronize,
                             "the %s device '%s'", d->ops->title, d->label);
    return st;
}

/* The architecture's option; the compiler's version goes into the key. */
oklc_status oklc_gpu_module_options(const oklc_device *d, Build *b)
{
    const ModuleApi *m = d->ops->module;
    char version[32], option[GPU_ARCH_OPTION];
    oklc_status st = oklc_gpu_rtc_version(m->rtc, version);
    if (st)
        return oklc_rt_fail(st, "cannot build '%s' for the %s device '%s': %s", b->path,
                            d->ops->title, d->label, oklc_last_error());
    st = m->arch(d, option);
    if (!st)
        st = oklc_rt_opt_add(b, option);
    if (!st && !(b->device_id = oklc_rt_format("%s%s: %s\n", d->id, m->rtc->prefix, version)))
        st = oklc_rt_oom();
    return st;
}

oklc_status oklc_gpu_module_build(const oklc_device *d, const Build *b, const char *dir,
                                  char **log)
{
    const Rtc *rtc = d->ops->module->rtc;
    char *binary = NULL, *path = oklc_rt_path(dir, d->ops->binary_name);
    size_t size = 0;
    if (!path)
        return oklc_rt_oom();
    if (oklc_rt_verbose()) {
        char *line = oklc_rt_command_line((const char *const *)b->opts);
        fprintf(stderr, "oklc: %s options: %s\n", rtc->name, line ? line : "");
        oklc_free(line);
    }
    oklc_status st = oklc_gpu_rtc_compile(rtc, b->source, d->ops->source_name,
                                          b->metadata != NULL,
                                          (const char *const *)b->opts, b->nopts, &binary,
                                          &size, log);
    if (st == OKLC_ERR_COMPILE)
        st = oklc_rt_fail(st, "cannot compile the kernel source of '%s' for '%s'\n"
                          "(the source and its log stay in %s)\n%s", b->path, d->label, dir,
                          oklc_last_error());
    if (!st)
        st = oklc_rt_write_file(path, binary, size);
    oklc_free(binary);
    oklc_free(path);
    return st;
}

/* A native kernel's missing function is the caller's mistake (the name). */
oklc_status oklc_gpu_module_load(oklc_kernel *k, const char *dir, char *const *names, int n)
{
    const DeviceOps *ops = k->dev->ops;
    const ModuleApi *m = ops->module;
    char *path = oklc_rt_path(dir, ops->binary_name), *binary = NULL;
    oklc_status st = path ? oklc_rt_read_file(path, &binary, NULL) : oklc_rt_oom();
    if (!st)
        st = oklc_gpu_select(k->dev);
    int r;
    if (!st && (r = m->calls->load(&k->module, binary)))
        st = oklc_gpu_fail(ops, OKLC_ERR_LOAD, r, m->call.load, "cannot load '%s'", path);
    for (int i = 0; !st && i < n; i++) {
        if ((r = m->calls->function(&k->functions[i], k->module, names[i])))
            st = oklc_gpu_fail(ops, k->nparams < 0 ? OKLC_ERR_ARGUMENT : OKLC_ERR_LOAD, r,
                               m->call.function, "no kernel '%s' in '%s'", names[i], path);
    }
    oklc_free(binary);
    oklc_free(path);
    return st;
}

void oklc_gpu_module_unload(oklc_kernel *k)
{
    if (k->module && !oklc_gpu_select(k->dev))
        k->dev->ops->module->calls->unload(k->module);
}

int oklc_gpu_module_launch(oklc_kernel *k, int index, const size_t grid[3],
                           const size_t block[3], int nargs, void *const *args,
                           const size_t *sizes, const char **call)
{
    (void)nargs;
    (void)sizes;
    const ModuleApi *m = k->dev->ops->module;
    for (int i = 0; i < 3; i++) {
        if (grid[i] > UINT_MAX || block[i] > UINT_MAX) {
            static _Thread_local char what[128];
            snprintf(what, sizeof what, "the grid or the block is more than %s takes (an "
                     "unsigned int per axis)", k->dev->ops->title);
            *call = what;
            return GPU_OWN_ERROR;
        }
    }
    *call = m->call.select;
    int r = m->select(k->dev);
    if (r)
        return r;
    *call = m->call.launch;
    /* kernelParams is void **: the driver only reads the values */
    return m->calls->launch(k->functions[index], (unsigned)grid[0], (unsigned)grid[1],
                            (unsigned)grid[2], (unsigned)block[0], (unsigned)block[1],
                            (unsigned)block[2], 0, oklc_rt_stream(k->dev), (void **)args,
                            NULL);
}

/* ---- streams and events: the vendor's --------------------------------------------- */

static oklc_status module_fail(oklc_device *d, int r, const char *call, const char *what)
{
    return oklc_gpu_fail(d->ops, OKLC_ERR_DEVICE, r, call, "%s on '%s'", what, d->label);
}

oklc_status oklc_gpu_module_stream_new(oklc_device *d, void **stream)
{
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->calls->stream_create(stream, 0);
    return r ? module_fail(d, r, m->call.stream, "oklc_stream_create") : st;
}

void oklc_gpu_module_stream_free(oklc_device *d, void *stream)
{
    if (!oklc_gpu_select(d))
        d->ops->module->calls->stream_destroy(stream);
}

oklc_status oklc_gpu_module_stream_finish(oklc_device *d, void *stream)
{
    if (!stream)
        return oklc_gpu_module_finish(d);
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->calls->stream_synchronize(stream);
    return r ? module_fail(d, r, m->call.stream, "oklc_stream_finish") : st;
}

oklc_status oklc_gpu_module_event_record(oklc_device *d, void *stream, void **event)
{
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->calls->event_create(event, 0);
    if (!r && !st && (r = m->calls->event_record(*event, stream)))
        m->calls->event_destroy(*event);
    return r ? module_fail(d, r, m->call.event, "oklc_event_record") : st;
}

oklc_status oklc_gpu_module_event_wait(oklc_device *d, void *event)
{
    const ModuleApi *m = d->ops->module;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->calls->event_synchronize(event);
    return r ? module_fail(d, r, m->call.event, "oklc_event_wait") : st;
}

oklc_status oklc_gpu_module_event_elapsed(oklc_device *d, void *from, void *to, double *seconds)
{
    const ModuleApi *m = d->ops->module;
    float ms = 0;
    oklc_status st = oklc_gpu_select(d);
    int r = st ? 0 : m->calls->event_elapsed(&ms, from, to);
    *seconds = ms / 1e3;
    return r ? module_fail(d, r, m->call.event, "oklc_event_elapsed") : st;
}

void oklc_gpu_module_event_free(oklc_device *d, void *event)
{
    if (!oklc_gpu_select(d))
        d->ops->module->calls->event_destroy(event);
}
