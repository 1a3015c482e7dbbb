/*
 * cpu.c - the serial and OpenMP devices: host memory, kernels compiled by
 * the system's C++ compiler into a shared library, loaded with dlopen.
 *
 * Device memory is host memory aligned to 64 bytes (a cache line, and the
 * widest AVX-512 load). An OKL kernel is `extern "C" int entry(void *const
 * *, char *message, size_t size)` (see args.c for what each pointer points
 * to), so one call works for any number and mix of arguments on every ABI;
 * non-zero when the kernel refused the run (docs/launchers.md), saying why
 * in message (the library says so: _occa_entry_refuses). Any other
 * kernel (native source, a library of one's own with metadata) is `extern
 * "C" void name(void *const *)`.
 * The two devices differ in the transpiler's backend, -fopenmp, and the
 * number of threads, which an OpenMP build lets us set through its
 * _occa_set_num_threads.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rt.h"

enum { ALIGNMENT = 64, OCCA_FORM_MAX = 64 };

static oklc_status open_device(oklc_device *d, const Spec *s, bool openmp)
{
    const char *extra = s->platform ? "platform" : s->device ? "device" : NULL;
    if (!openmp && s->threads)
        extra = "threads";
    if (extra)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT,
                            "device spec '%s': '%s' does not apply to the %s device", s->text,
                            extra, openmp ? "openmp" : "serial");
    d->threads = s->threads;
    return OKLC_OK;
}

static oklc_status open_serial(oklc_device *d, const Spec *s)
{
    return open_device(d, s, false);
}

static oklc_status open_openmp(oklc_device *d, const Spec *s)
{
    return open_device(d, s, true);
}

static void close_device(oklc_device *d)
{
    (void)d;
}

static oklc_status alloc(oklc_device *d, size_t bytes, void **ptr)
{
    (void)d;
    if (posix_memalign(ptr, ALIGNMENT, bytes ? bytes : 1) != 0)
        return oklc_rt_fail(OKLC_ERR_MEMORY, "cannot allocate %zu bytes of host memory", bytes);
    return OKLC_OK;
}

static void free_memory(oklc_device *d, void *ptr)
{
    (void)d;
    free(ptr);
}

/* In a stream of ours: queued (and waited for when `wait`). */
static oklc_status copy(const oklc_memory *m, const void *src, void *dst, size_t bytes,
                        size_t offset, bool wait)
{
    char *at = (char *)m->ptr + offset;
    void *s = oklc_rt_stream(m->dev);
    oklc_status st = s && wait ? oklc_cpu_stream_finish(m->dev, s) : OKLC_OK;
    if (s && !wait)
        return oklc_cpu_stream_copy(s, src ? at : dst, src ? src : at, bytes);
    if (!st)
        memcpy(src ? at : dst, src ? src : at, bytes);
    return st;
}

static oklc_status copy_device(const oklc_memory *dst, size_t dst_offset,
                               const oklc_memory *src, size_t src_offset, size_t bytes)
{
    memcpy((char *)dst->ptr + dst_offset, (const char *)src->ptr + src_offset, bytes);
    return OKLC_OK;
}

/* Kernels run synchronously: nothing is ever queued. */
static oklc_status finish(oklc_device *d)
{
    (void)d;
    return OKLC_OK;
}

/* Include paths serve `#include <...>` lines the transpiler keeps. Native
 * source also gets what the transpiler would have applied: the defines and
 * the included files. Paths are made absolute: the key hashes them. */
static oklc_status add_props(Build *b)
{
    oklc_status st = OKLC_OK;
    for (size_t i = 0; !st && i < b->props->ncmds; i++) {
        const PropCmd *c = &b->props->cmds[i];
        if (c->kind == PROP_DEFINE) {
            if (!b->props->okl)
                st = oklc_rt_cmd_add_joined(b, "-D", c->text);
            continue;
        }
        if ((c->kind == PROP_INCLUDE_FILE && b->props->okl) || c->kind == PROP_INTRINSICS ||
            c->kind == PROP_PLUGIN)
            continue;                 /* the transpiler's */
        char *abs = oklc_rt_absolute(c->text);
        if (!abs)
            st = oklc_rt_oom();
        else if (c->kind == PROP_INCLUDE_PATH)
            st = oklc_rt_cmd_add_joined(b, "-I", abs);
        else if (!(st = oklc_rt_cmd_add(b, "-include")))
            st = oklc_rt_cmd_add(b, abs);
        oklc_free(abs);
    }
    return st;
}

/* The model and feature lines of the first processor: those say which
 * instructions a binary may use. Clock speed, BogoMIPS and ids differ
 * between boots and between nodes of one kind, which should share entries. */
char *oklc_rt_cpu_identity(const char *cpuinfo)
{
    static const char *const keys[] = {
        "vendor_id", "cpu family", "model", "model name", "stepping", "flags",    /* x86 */
        "CPU implementer", "CPU architecture", "CPU variant", "CPU part", "CPU revision",
        "Features",    /* Arm */
        "cpu", "revision", "isa", "uarch",    /* POWER, RISC-V */
    };
    char *id = oklc_rt_strdup("");
    for (const char *line = cpuinfo; id && *line && *line != '\n';) {
        size_t len = strcspn(line, "\n"), key = strcspn(line, "\t:");
        for (size_t i = 0; i < OKLC_COUNTOF(keys); i++) {
            if (key != strlen(keys[i]) || strncmp(line, keys[i], key))
                continue;
            char *more = oklc_rt_format("%s%.*s\n", id, (int)len, line);
            oklc_free(id);
            id = more;
            break;
        }
        line += len + (line[len] == '\n');
    }
    return id;
}

/* -march=native and its kin make code that another kind of CPU may not
 * run: such a binary's key holds this CPU's identity, so that a cache
 * shared by nodes of several kinds keeps one entry per kind. */
static bool for_this_cpu(const Build *b)
{
    for (size_t i = 0; i < b->ncmd; i++) {
        const char *a = b->cmd[i];
        if (!strcasecmp(a, "-xHost") || (!strncmp(a, "-m", 2) && strstr(a, "=native")))
            return true;
    }
    return false;
}

/* The kernel writes /proc/cpuinfo anew at each read: this process reads
 * the first processor's lines once (on Linux; elsewhere uname's machine
 * alone) and keeps its identity. */
static char *this_cpu(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char *id;
    pthread_mutex_lock(&lock);
    if (!id) {
        char text[16384] = "";
        size_t n = 0;
        FILE *f = fopen("/proc/cpuinfo", "r");
        while (f && n < sizeof text - 1 && fgets(text + n, (int)(sizeof text - n), f) &&
               text[n] != '\n')
            n += strlen(text + n);
        if (f)
            fclose(f);
        struct utsname u;
        char *lines = oklc_rt_cpu_identity(text);
        if (lines)
            id = oklc_rt_format("host cpu %s\n%s", uname(&u) ? "?" : u.machine, lines);
        oklc_free(lines);
    }
    char *copy = id ? oklc_rt_strdup(id) : NULL;
    pthread_mutex_unlock(&lock);
    return copy;
}

/* The value of `key` in /proc/cpuinfo's text (its first processor) or
 * /proc/meminfo's, or "". */
static void cpuinfo_value(const char *text, const char *key, char *out, size_t size)
{
    out[0] = '\0';
    size_t klen = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
        if (strncmp(line, key, klen) || !strchr("\t :", line[klen]))
            continue;
        const char *v = strchr(line, ':');
        if (!v || v > strchr(line, '\n'))
            return;
        v += 1 + (v[1] == ' ');
        snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
        return;
    }
}

/* DeviceOps.query: the CPU (its model, the machine's memory); OpenMP's
 * compute units are its threads (threads=, OMP_NUM_THREADS, the cores). */
static oklc_status query(oklc_device *d, oklc_device_info *info)
{
    char *text = NULL;
    struct utsname u;
    struct sysinfo si;
    if (!oklc_rt_read_file("/proc/cpuinfo", &text, NULL)) {
        cpuinfo_value(text, "model name", info->name, sizeof info->name);
        cpuinfo_value(text, "vendor_id", info->vendor, sizeof info->vendor);
        oklc_free(text);
    }
    if (!info->name[0])
        snprintf(info->name, sizeof info->name, "%s CPU", d->ops->title);
    if (!uname(&u))
        snprintf(info->arch, sizeof info->arch, "%s", u.machine);
    if (!sysinfo(&si)) {
        info->memory_total = (uint64_t)si.totalram * si.mem_unit;
        info->memory_free = (uint64_t)si.freeram * si.mem_unit;
    }
    char avail[64];    /* free memory and what the kernel would drop for it */
    if (!oklc_rt_read_file("/proc/meminfo", &text, NULL)) {
        cpuinfo_value(text, "MemAvailable", avail, sizeof avail);
        if (avail[0] && strstr(avail, " kB"))
            info->memory_free = (uint64_t)strtoull(avail, NULL, 10) * 1024;
        oklc_free(text);
    }
    const char *omp = getenv("OMP_NUM_THREADS");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    info->compute_units = d->ops->backend == OKLC_BACKEND_SERIAL ? 1
                          : d->threads > 0                     ? d->threads
                          : omp && atoi(omp) > 0               ? atoi(omp)
                                                               : (int)(cores > 0 ? cores : 1);
    return OKLC_OK;
}

static oklc_status key_this_cpu(Build *b)
{
    if (!for_this_cpu(b))
        return OKLC_OK;
    b->device_id = this_cpu();
    return b->device_id ? OKLC_OK : oklc_rt_oom();
}

static oklc_status command(const oklc_device *d, Build *b)
{
    static const char *const fixed[] = {"-std=c++17", "-shared", "-fPIC"};
    oklc_status st = oklc_rt_compiler(b);
    for (size_t i = 0; !st && i < OKLC_COUNTOF(fixed); i++)
        st = oklc_rt_cmd_add(b, fixed[i]);
    if (!st && d->ops == &oklc_openmp_ops)
        st = oklc_rt_cmd_add(b, "-fopenmp");
    else if (!st)                           /* _occa_simd in the prelude */
        st = oklc_rt_cmd_add(b, "-fopenmp-simd");
    if (!st && d->ops != &oklc_openmp_ops)
        st = oklc_rt_cmd_add(b, "-D_OCCA_SIMD");
    if (!st)
        st = oklc_rt_compiler_flags(b);    /* after ours, so that they can override */
    if (!st)
        st = key_this_cpu(b);
    if (!st && !b->props->okl && b->source_dir)
        st = oklc_rt_cmd_add_joined(b, "-I", b->source_dir);
    return st ? st : add_props(b);
}

static oklc_status compile(const oklc_device *d, const Build *b, const char *dir)
{
    return oklc_rt_compile_file(b, dir, d->ops->source_name, d->ops->binary_name);
}

/* dlsym's void * becomes a function pointer by memcpy: POSIX guarantees
 * the representation, ISO C forbids the cast. */
static void *symbol(void *lib, const char *name, void (**fn)(void))
{
    void *p = dlsym(lib, name);
    memcpy(fn, &p, sizeof p);
    return p;
}

/* A native kernel: oklc's form, void NAME(void *const *args), or OCCA's,
 * whose parameter count the build's probe left in _oklc_arity_NAME (none:
 * a binary not built by this runtime, taken as oklc's). */
static oklc_status native_form(oklc_kernel *k, void (*fn)(void))
{
    memcpy(&k->native_entry, &fn, sizeof fn);
    char probe[300];
    snprintf(probe, sizeof probe, "_oklc_arity_%s", k->name);
    const int *arity = dlsym(k->lib, probe);
    if (!arity || *arity < 0)
        return OKLC_OK;
    if (*arity > OCCA_FORM_MAX)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "'%s' has %d parameters written as OCCA "
                            "writes them; oklc calls such kernels with at most %d: take "
                            "them as void NAME(void *const *args) (docs/launchers.md)",
                            k->name, *arity, OCCA_FORM_MAX);
    k->occa_form = true;
    k->occa_nargs = *arity;
    return OKLC_OK;
}

/* An OpenMP build stays mapped after dlclose (RTLD_NODELETE), and with it
 * the OpenMP runtime it brought: the runtime's idle worker threads live on
 * in its code, and unmapping it under them crashes. */
static oklc_status load(oklc_kernel *k, const char *dir, const char *metadata,
                        const char *name)
{
    (void)metadata;
    bool openmp = k->dev->ops == &oklc_openmp_ops;
    char *binary = oklc_rt_path(dir, k->dev->ops->binary_name);
    if (!binary)
        return oklc_rt_oom();
    dlerror();
    k->lib = dlopen(binary, RTLD_NOW | RTLD_LOCAL | (openmp ? RTLD_NODELETE : 0));
    oklc_status st = OKLC_OK;
    void (*fn)(void);
    if (!k->lib)
        st = oklc_rt_fail(OKLC_ERR_LOAD, "cannot load '%s': %s", binary, dlerror());
    else if (!symbol(k->lib, name, &fn))
        st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "no kernel '%s' in '%s' (dlsym: %s)", k->name,
                          binary, dlerror());
    else if (dlsym(k->lib, "_occa_entry_refuses"))   /* oklc's output */
        memcpy(&k->entry, &fn, sizeof fn);
    else
        st = native_form(k, fn);
    if (!st && openmp && symbol(k->lib, "_occa_set_num_threads", &fn))
        memcpy(&k->set_threads, &fn, sizeof fn);
    oklc_free(binary);
    return st;
}

static void unload(oklc_kernel *k)
{
    if (k->lib)
        dlclose(k->lib);
}

/* ---- native kernels of OCCA's form --------------------------------------------------- */

/* A native kernel written as OCCA's are, `void NAME(const int &n, float *x,
 * ...)`, takes each argument as one pointer: memory as its address, a
 * scalar or struct by reference (the address of its value). Its parameter
 * count comes from the build (source.c's probe, _oklc_arity_NAME); the call
 * has exactly that many, through the matching function type. */
#define T1 void *
#define T2 T1, T1
#define T4 T2, T2
#define T8 T4, T4
#define T16 T8, T8
#define T32 T16, T16
#define T64 T32, T32
#define A1(o) a[o]
#define A2(o) A1(o), A1(o + 1)
#define A4(o) A2(o), A2(o + 2)
#define A8(o) A4(o), A4(o + 4)
#define A16(o) A8(o), A8(o + 8)
#define A32(o) A16(o), A16(o + 16)
#define A64(o) A32(o), A32(o + 32)

static void call_occa_form(void (*f)(void), int n, void *const *a)
{
    switch (n) {
    case 0: ((void (*)(void))f)(); break;
    case 1: ((void (*)(T1))f)(A1(0)); break;
    case 2: ((void (*)(T2))f)(A2(0)); break;
    case 3: ((void (*)(T2, T1))f)(A2(0), A1(2)); break;
    case 4: ((void (*)(T4))f)(A4(0)); break;
    case 5: ((void (*)(T4, T1))f)(A4(0), A1(4)); break;
    case 6: ((void (*)(T4, T2))f)(A4(0), A2(4)); break;
    case 7: ((void (*)(T4, T2, T1))f)(A4(0), A2(4), A1(6)); break;
    case 8: ((void (*)(T8))f)(A8(0)); break;
    case 9: ((void (*)(T8, T1))f)(A8(0), A1(8)); break;
    case 10: ((void (*)(T8, T2))f)(A8(0), A2(8)); break;
    case 11: ((void (*)(T8, T2, T1))f)(A8(0), A2(8), A1(10)); break;
    case 12: ((void (*)(T8, T4))f)(A8(0), A4(8)); break;
    case 13: ((void (*)(T8, T4, T1))f)(A8(0), A4(8), A1(12)); break;
    case 14: ((void (*)(T8, T4, T2))f)(A8(0), A4(8), A2(12)); break;
    case 15: ((void (*)(T8, T4, T2, T1))f)(A8(0), A4(8), A2(12), A1(14)); break;
    case 16: ((void (*)(T16))f)(A16(0)); break;
    case 17: ((void (*)(T16, T1))f)(A16(0), A1(16)); break;
    case 18: ((void (*)(T16, T2))f)(A16(0), A2(16)); break;
    case 19: ((void (*)(T16, T2, T1))f)(A16(0), A2(16), A1(18)); break;
    case 20: ((void (*)(T16, T4))f)(A16(0), A4(16)); break;
    case 21: ((void (*)(T16, T4, T1))f)(A16(0), A4(16), A1(20)); break;
    case 22: ((void (*)(T16, T4, T2))f)(A16(0), A4(16), A2(20)); break;
    case 23: ((void (*)(T16, T4, T2, T1))f)(A16(0), A4(16), A2(20), A1(22)); break;
    case 24: ((void (*)(T16, T8))f)(A16(0), A8(16)); break;
    case 25: ((void (*)(T16, T8, T1))f)(A16(0), A8(16), A1(24)); break;
    case 26: ((void (*)(T16, T8, T2))f)(A16(0), A8(16), A2(24)); break;
    case 27: ((void (*)(T16, T8, T2, T1))f)(A16(0), A8(16), A2(24), A1(26)); break;
    case 28: ((void (*)(T16, T8, T4))f)(A16(0), A8(16), A4(24)); break;
    case 29: ((void (*)(T16, T8, T4, T1))f)(A16(0), A8(16), A4(24), A1(28)); break;
    case 30: ((void (*)(T16, T8, T4, T2))f)(A16(0), A8(16), A4(24), A2(28)); break;
    case 31: ((void (*)(T16, T8, T4, T2, T1))f)(A16(0), A8(16), A4(24), A2(28), A1(30)); break;
    case 32: ((void (*)(T32))f)(A32(0)); break;
    case 33: ((void (*)(T32, T1))f)(A32(0), A1(32)); break;
    case 34: ((void (*)(T32, T2))f)(A32(0), A2(32)); break;
    case 35: ((void (*)(T32, T2, T1))f)(A32(0), A2(32), A1(34)); break;
    case 36: ((void (*)(T32, T4))f)(A32(0), A4(32)); break;
    case 37: ((void (*)(T32, T4, T1))f)(A32(0), A4(32), A1(36)); break;
    case 38: ((void (*)(T32, T4, T2))f)(A32(0), A4(32), A2(36)); break;
    case 39: ((void (*)(T32, T4, T2, T1))f)(A32(0), A4(32), A2(36), A1(38)); break;
    case 40: ((void (*)(T32, T8))f)(A32(0), A8(32)); break;
    case 41: ((void (*)(T32, T8, T1))f)(A32(0), A8(32), A1(40)); break;
    case 42: ((void (*)(T32, T8, T2))f)(A32(0), A8(32), A2(40)); break;
    case 43: ((void (*)(T32, T8, T2, T1))f)(A32(0), A8(32), A2(40), A1(42)); break;
    case 44: ((void (*)(T32, T8, T4))f)(A32(0), A8(32), A4(40)); break;
    case 45: ((void (*)(T32, T8, T4, T1))f)(A32(0), A8(32), A4(40), A1(44)); break;
    case 46: ((void (*)(T32, T8, T4, T2))f)(A32(0), A8(32), A4(40), A2(44)); break;
    case 47: ((void (*)(T32, T8, T4, T2, T1))f)(A32(0), A8(32), A4(40), A2(44), A1(46)); break;
    case 48: ((void (*)(T32, T16))f)(A32(0), A16(32)); break;
    case 49: ((void (*)(T32, T16, T1))f)(A32(0), A16(32), A1(48)); break;
    case 50: ((void (*)(T32, T16, T2))f)(A32(0), A16(32), A2(48)); break;
    case 51: ((void (*)(T32, T16, T2, T1))f)(A32(0), A16(32), A2(48), A1(50)); break;
    case 52: ((void (*)(T32, T16, T4))f)(A32(0), A16(32), A4(48)); break;
    case 53: ((void (*)(T32, T16, T4, T1))f)(A32(0), A16(32), A4(48), A1(52)); break;
    case 54: ((void (*)(T32, T16, T4, T2))f)(A32(0), A16(32), A4(48), A2(52)); break;
    case 55: ((void (*)(T32, T16, T4, T2, T1))f)
        (A32(0), A16(32), A4(48), A2(52), A1(54)); break;
    case 56: ((void (*)(T32, T16, T8))f)(A32(0), A16(32), A8(48)); break;
    case 57: ((void (*)(T32, T16, T8, T1))f)(A32(0), A16(32), A8(48), A1(56)); break;
    case 58: ((void (*)(T32, T16, T8, T2))f)(A32(0), A16(32), A8(48), A2(56)); break;
    case 59: ((void (*)(T32, T16, T8, T2, T1))f)
        (A32(0), A16(32), A8(48), A2(56), A1(58)); break;
    case 60: ((void (*)(T32, T16, T8, T4))f)(A32(0), A16(32), A8(48), A4(56)); break;
    case 61: ((void (*)(T32, T16, T8, T4, T1))f)
        (A32(0), A16(32), A8(48), A4(56), A1(60)); break;
    case 62: ((void (*)(T32, T16, T8, T4, T2))f)
        (A32(0), A16(32), A8(48), A4(56), A2(60)); break;
    case 63: ((void (*)(T32, T16, T8, T4, T2, T1))f)
        (A32(0), A16(32), A8(48), A4(56), A2(60), A1(62)); break;
    case 64: ((void (*)(T64))f)(A64(0)); break;
    default: break;    /* more than OCCA_FORM_MAX: refused at load */
    }
}

/* The number of threads is set before every run: omp_set_num_threads acts
 * on the calling thread, and the caller may run kernels from several. */
/* Runs k now, in the calling thread (a stream's worker, or the default
 * stream's caller). */
static oklc_status run_now(oklc_kernel *k, int nargs, const oklc_arg *args, void *const *ptrs)
{
    if (k->occa_form && nargs != k->occa_nargs)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "'%s' takes %d argument%s (its parameters as "
                            "OCCA writes them), but %d %s given", k->name, k->occa_nargs,
                            k->occa_nargs == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
    if (k->set_threads && k->dev->threads)
        k->set_threads(k->dev->threads);
    char why[512];
    if (k->occa_form) {
        void *a[OCCA_FORM_MAX];
        for (int i = 0; i < nargs; i++)    /* memory: its address, not the slot's */
            a[i] = args[i].kind == OKLC_ARG_MEMORY ? *(void *const *)ptrs[i] : ptrs[i];
        void (*f)(void);
        memcpy(&f, &k->native_entry, sizeof f);
        call_occa_form(f, nargs, a);
    } else if (k->native_entry)
        k->native_entry(ptrs);
    else if (k->entry(ptrs, why, sizeof why))
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "cannot run '%s' on the %s device: %s", k->name,
                            k->dev->ops->name, why);
    return OKLC_OK;
}

/* In a stream of ours, queued; in the default stream, now. */
static oklc_status run(oklc_kernel *k, int nargs, const oklc_arg *args, void *const *ptrs)
{
    void *s = oklc_rt_stream(k->dev);
    if (k->occa_form && nargs != k->occa_nargs)
        return run_now(k, nargs, args, ptrs);    /* refused at once, not later */
    return s ? oklc_cpu_stream_run(s, run_now, k, nargs, args, ptrs)
             : run_now(k, nargs, args, ptrs);
}

#define CPU_OPS                                                                        \
    .source_name = "source.cpp", .binary_name = "kernel.so", .close = close_device,    \
    .alloc = alloc, .free = free_memory, .copy = copy, .copy_device = copy_device,     \
    .query = query, .stream_new = oklc_cpu_stream_new,                                 \
    .stream_free = oklc_cpu_stream_free, .stream_finish = oklc_cpu_stream_finish,      \
    .event_record = oklc_cpu_event_record, .event_wait = oklc_cpu_event_wait,          \
    .event_elapsed = oklc_cpu_event_elapsed, .event_free = oklc_cpu_event_free,        \
    .finish = finish, .command = command, .compile = compile, .load = load,            \
    .unload = unload, .run = run

const DeviceOps oklc_serial_ops = {.name = "serial", .title = "Serial",
                                   .backend = OKLC_BACKEND_SERIAL, .open = open_serial, CPU_OPS};
const DeviceOps oklc_openmp_ops = {.name = "openmp", .title = "OpenMP",
                                   .backend = OKLC_BACKEND_OPENMP, .open = open_openmp, CPU_OPS};
