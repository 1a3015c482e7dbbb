/*
 * hip.c - the HIP device: the HIP runtime (libamdhip64.so) and hiprtc
 * (libhiprtc.so since ROCm 6, inside libamdhip64 before), both opened with
 * dlopen; no ROCm header or library is needed to build oklc.
 *
 * Spec: "hip", "mode=hip device=1" (an index; default 0). The device is
 * made current (hipSetDevice) before each call, so any thread may use it.
 * Memory is a device pointer (struct oklc_memory's ptr); copies are
 * hipMemcpy at an offset, synchronous, after the kernels (all run on the
 * null stream).
 *
 * The device source is compiled with hiprtc for the device's architecture
 * (--offload-arch=<gcnArchName>, e.g. gfx90a:sramecc+:xnack-) and the code
 * object kept in the cache entry; the key has the device's name and
 * architecture and the runtime's and hiprtc's versions. Device functions
 * are found by name: native kernels are `extern "C" __global__`.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

typedef int hipError_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
typedef int hiprtcResult;
typedef struct _hiprtcProgram *hiprtcProgram;

enum {
    hipSuccess = 0,
    hipErrorOutOfMemory = 2,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipMemcpyHostToDevice = 1,
    hipMemcpyDeviceToHost = 2,
    HIPRTC_SUCCESS = 0,
    /* hipDeviceProp_t is about 1.5 KiB (ROCm 6: hipGetDevicePropertiesR0600) */
    PROPS_SIZE = 16384,
};

static struct HipApi {
    hipError_t (*Init)(unsigned);
    hipError_t (*DriverGetVersion)(int *);
    hipError_t (*RuntimeGetVersion)(int *);
    hipError_t (*GetDeviceCount)(int *);
    hipError_t (*SetDevice)(int);
    hipError_t (*GetDeviceProperties)(void *, int);
    hipError_t (*GetDevicePropertiesR0600)(void *, int);    /* optional: ROCm 6 */
    hipError_t (*Malloc)(void **, size_t);
    hipError_t (*Free)(void *);
    hipError_t (*Memcpy)(void *, const void *, size_t, int);
    hipError_t (*DeviceSynchronize)(void);
    hipError_t (*ModuleLoadData)(hipModule_t *, const void *);
    hipError_t (*ModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
    hipError_t (*ModuleUnload)(hipModule_t);
    hipError_t (*ModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, unsigned, unsigned, hipStream_t, void **,
                                     void **);
    const char *(*GetErrorName)(hipError_t);
} hip;

#define SYM(f, opt) {"hip" #f, offsetof(struct HipApi, f), opt}
static const DlSym hip_syms[] = {
    SYM(Init, false), SYM(DriverGetVersion, false), SYM(RuntimeGetVersion, false),
    SYM(GetDeviceCount, false), SYM(SetDevice, false), SYM(GetDeviceProperties, false),
    SYM(GetDevicePropertiesR0600, true), SYM(Malloc, false), SYM(Free, false),
    SYM(Memcpy, false), SYM(DeviceSynchronize, false), SYM(ModuleLoadData, false),
    SYM(ModuleGetFunction, false), SYM(ModuleUnload, false), SYM(ModuleLaunchKernel, false),
    SYM(GetErrorName, false),
};
#undef SYM

static struct HiprtcApi {
    hiprtcResult (*Version)(int *, int *);
    hiprtcResult (*CreateProgram)(hiprtcProgram *, const char *, const char *, int,
                                  const char **, const char **);
    hiprtcResult (*CompileProgram)(hiprtcProgram, int, const char **);
    hiprtcResult (*GetProgramLogSize)(hiprtcProgram, size_t *);
    hiprtcResult (*GetProgramLog)(hiprtcProgram, char *);
    hiprtcResult (*GetCodeSize)(hiprtcProgram, size_t *);
    hiprtcResult (*GetCode)(hiprtcProgram, char *);
    hiprtcResult (*DestroyProgram)(hiprtcProgram *);
    const char *(*GetErrorString)(hiprtcResult);
} rtc;

#define SYM(f) {"hiprtc" #f, offsetof(struct HiprtcApi, f), false}
static const DlSym rtc_syms[] = {
    SYM(Version), SYM(CreateProgram), SYM(CompileProgram), SYM(GetProgramLogSize),
    SYM(GetProgramLog), SYM(GetCodeSize), SYM(GetCode), SYM(DestroyProgram),
    SYM(GetErrorString),
};
#undef SYM

/* Both bring LLVM (through comgr): isolated, in one namespace (dl.c). */
static DlLib hip_lib = {.what = "libamdhip64.so (the HIP runtime)", .ns = "hip"};
static DlLib rtc_lib = {.what = "hiprtc (libhiprtc.so, or libamdhip64.so before ROCm 6)",
                        .ns = "hip"};

static const char *error_name(int code)
{
    const char *name = hip.GetErrorName ? hip.GetErrorName(code) : NULL;
    return name ? name : "an unknown HIP error";
}

static oklc_status hip_fail(oklc_status st, hipError_t r, const char *call, const char *fmt,
                            ...) OKLC_PRINTF(4, 5);

static oklc_status hip_fail(oklc_status st, hipError_t r, const char *call, const char *fmt,
                            ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = oklc_rt_vformat(fmt, ap);
    va_end(ap);
    if (!what)
        return oklc_rt_oom();
    st = oklc_rt_fail(r == hipErrorOutOfMemory ? OKLC_ERR_MEMORY : st, "%s: %s: %s (%d)", what,
                      call, error_name(r), r);
    oklc_free(what);
    return st;
}

static DlLib test_lib = {.what = "the HIP runtime", .ns = "hip"};
static const char *library_override;    /* tests: a stand-in for libamdhip64.so */

void oklc_rt_hip_library(const char *path)
{
    library_override = path;
    test_lib.loaded = false;
}

static oklc_status load_hip(void)
{
    static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.6",
                                        "libamdhip64.so.5"};
    if (library_override)
        return oklc_rt_dl_load(&test_lib, &library_override, 1, hip_syms,
                               OKLC_COUNTOF(hip_syms), &hip);
    return oklc_rt_dl_load(&hip_lib, names, OKLC_COUNTOF(names), hip_syms,
                           OKLC_COUNTOF(hip_syms), &hip);
}

/* ---- hiprtc ------------------------------------------------------------------------------- */

static oklc_status load_hiprtc(void)
{
    static const char *const names[] = {"libhiprtc.so", "libhiprtc.so.6", "libhiprtc.so.5",
                                        "libamdhip64.so", "libamdhip64.so.5"};
    oklc_status st = oklc_rt_dl_load(&rtc_lib, names, OKLC_COUNTOF(names), rtc_syms,
                                     OKLC_COUNTOF(rtc_syms), &rtc);
    if (st)
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "no hiprtc: %s", oklc_last_error());
    return OKLC_OK;
}

oklc_status oklc_rt_hiprtc_version(char version[32])
{
    int major = 0, minor = 0;
    oklc_status st = load_hiprtc();
    if (!st && rtc.Version(&major, &minor) != HIPRTC_SUCCESS)
        st = oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "hiprtc does not say its version");
    if (!st)
        snprintf(version, 32, "%d.%d", major, minor);
    return st;
}

static char *program_log(hiprtcProgram p)
{
    size_t n = 0;
    if (rtc.GetProgramLogSize(p, &n) != HIPRTC_SUCCESS)
        n = 0;
    char *log = oklc_malloc(n + 1);
    if (log && n && rtc.GetProgramLog(p, log) != HIPRTC_SUCCESS)
        n = 0;
    if (log)
        log[n] = '\0';
    return log;
}

static oklc_status program_code(hiprtcProgram p, const char *what, char **binary,
                                size_t *size)
{
    size_t n = 0;
    if (rtc.GetCodeSize(p, &n) != HIPRTC_SUCCESS || !n)
        return oklc_rt_fail(OKLC_ERR_COMPILE, "hiprtc gave no code for '%s'", what);
    char *b = oklc_malloc(n);
    if (!b)
        return oklc_rt_oom();
    hiprtcResult r = rtc.GetCode(p, b);
    if (r != HIPRTC_SUCCESS) {
        oklc_free(b);
        return oklc_rt_fail(OKLC_ERR_COMPILE, "hiprtc gave no code for '%s': %s", what,
                            rtc.GetErrorString(r));
    }
    *binary = b;
    *size = n;
    return OKLC_OK;
}

oklc_status oklc_rt_hiprtc_compile(const char *source, const char *what,
                                   const char *const *opts, size_t nopts, char **binary,
                                   size_t *size, char **log)
{
    *binary = NULL;
    *size = 0;
    *log = NULL;
    oklc_status st = load_hiprtc();
    if (st)
        return st;
    if (nopts > INT_MAX)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "too many hiprtc options");
    hiprtcProgram p = NULL;
    hiprtcResult r = rtc.CreateProgram(&p, source, what, 0, NULL, NULL);
    if (r != HIPRTC_SUCCESS)
        return oklc_rt_fail(OKLC_ERR_COMPILE, "hiprtcCreateProgram for '%s': %s", what,
                            rtc.GetErrorString(r));
    oklc_rt_count_compile();
    /* hiprtc's prototype predates const; it does not change the options */
    r = rtc.CompileProgram(p, (int)nopts, (const char **)opts);
    *log = program_log(p);
    if (!*log)
        st = oklc_rt_oom();
    else if (r != HIPRTC_SUCCESS)
        st = oklc_rt_fail(OKLC_ERR_COMPILE, "cannot compile '%s' with hiprtc: %s\n%s", what,
                          rtc.GetErrorString(r), *log);
    else
        st = program_code(p, what, binary, size);
    rtc.DestroyProgram(&p);
    return st;
}

/* ---- the device --------------------------------------------------------------------------- */

typedef struct Hip {
    int  index;
    char arch[256];    /* gcnArchName */
} Hip;

static oklc_status current(const oklc_device *d)
{
    Hip *h = d->gpu;
    hipError_t r = hip.SetDevice(h->index);
    return r ? hip_fail(OKLC_ERR_DEVICE, r, "hipSetDevice", "the HIP device '%s'", d->label)
             : OKLC_OK;
}

static void close_device(oklc_device *d)
{
    if (d->gpu && !current(d))
        hip.DeviceSynchronize();
    oklc_free(d->gpu);
    d->gpu = NULL;
}

/* The name is hipDeviceProp_t's first field in every ROCm; gcnArchName's
 * place differs between versions (ROCm 6 changed the struct), so it is
 * found as the text after the name that starts with "gfx". */
static oklc_status describe(oklc_device *d, Hip *h)
{
    char *props = oklc_malloc(PROPS_SIZE);
    if (!props)
        return oklc_rt_oom();
    memset(props, 0, PROPS_SIZE);
    hipError_t r = hip.GetDevicePropertiesR0600 ? hip.GetDevicePropertiesR0600(props, h->index)
                                                : hip.GetDeviceProperties(props, h->index);
    oklc_status st = OKLC_OK;
    if (r)
        st = hip_fail(OKLC_ERR_DEVICE, r, "hipGetDeviceProperties", "HIP device %d", h->index);
    for (size_t i = 256; !st && !h->arch[0] && i + sizeof h->arch < PROPS_SIZE; i++) {
        if (!props[i - 1] && !strncmp(props + i, "gfx", 3) &&
            memchr(props + i, '\0', sizeof h->arch))
            snprintf(h->arch, sizeof h->arch, "%s", props + i);
    }
    if (!st && !h->arch[0])
        st = oklc_rt_fail(OKLC_ERR_DEVICE, "HIP device %d: no gcnArchName in its properties",
                          h->index);
    int driver = 0, runtime = 0;
    hip.DriverGetVersion(&driver);
    hip.RuntimeGetVersion(&runtime);
    props[255] = '\0';
    if (!st) {
        d->label = oklc_rt_strdup(props[0] ? props : h->arch);
        d->id = oklc_rt_format("hip\ndevice: %s\nindex: %d\narch: %s\ndriver: %d\n"
                               "runtime: %d\n", props, h->index, h->arch, driver, runtime);
        st = d->label && d->id ? OKLC_OK : oklc_rt_oom();
    }
    oklc_free(props);
    return st;
}

static oklc_status open_device(oklc_device *d, const Spec *s)
{
    int index, count = 0;
    oklc_status st = oklc_gpu_device_index(s, "hip", &index);
    if (st)
        return st;
    if (load_hip())
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the HIP device is not "
                            "available: %s", s->text, oklc_last_error());
    const char *call = "hipInit";
    hipError_t r = hip.Init(0);
    if (!r && (r = hip.GetDeviceCount(&count)))
        call = "hipGetDeviceCount";
    if (r || !count)    /* without a GPU, hipInit says hipErrorInvalidDevice */
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the HIP device is not "
                            "available: %s (%s: %s)", s->text,
                            !r || r == hipErrorNoDevice || r == hipErrorInvalidDevice
                                ? "no HIP device"
                                : "the HIP runtime does not start",
                            call, r ? error_name(r) : "0 devices");
    if (index >= count)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "device spec '%s': there is no HIP device %d "
                            "(there %s %d: 0 to %d)", s->text, index,
                            count == 1 ? "is" : "are", count, count - 1);
    Hip *h = oklc_malloc(sizeof *h);
    if (!h)
        return oklc_rt_oom();
    memset(h, 0, sizeof *h);
    h->index = index;
    d->gpu = h;
    st = describe(d, h);
    if (st) {
        oklc_free(h);
        d->gpu = NULL;
    }
    return st;
}

static oklc_status alloc(oklc_device *d, size_t bytes, void **ptr)
{
    oklc_status st = current(d);
    hipError_t r = st ? hipSuccess : hip.Malloc(ptr, bytes ? bytes : 1);
    if (r)
        return hip_fail(OKLC_ERR_DEVICE, r, "hipMalloc",
                        "cannot allocate %zu bytes on the HIP device '%s'", bytes, d->label);
    return st;
}

static void free_memory(oklc_device *d, void *ptr)
{
    if (!current(d))
        hip.Free(ptr);
}

static oklc_status copy_in(oklc_memory *m, const void *src, size_t bytes, size_t offset)
{
    oklc_status st = current(m->dev);
    hipError_t r = st ? hipSuccess
                      : hip.Memcpy((char *)m->ptr + offset, src, bytes, hipMemcpyHostToDevice);
    if (r)
        return hip_fail(OKLC_ERR_DEVICE, r, "hipMemcpy",
                        "oklc_memory_copy_from_host: %zu bytes at offset %zu on '%s'", bytes,
                        offset, m->dev->label);
    return st;
}

static oklc_status copy_out(const oklc_memory *m, void *dst, size_t bytes, size_t offset)
{
    oklc_status st = current(m->dev);
    hipError_t r = st ? hipSuccess
                      : hip.Memcpy(dst, (const char *)m->ptr + offset, bytes,
                                   hipMemcpyDeviceToHost);
    if (r)
        return hip_fail(OKLC_ERR_DEVICE, r, "hipMemcpy",
                        "oklc_memory_copy_to_host: %zu bytes at offset %zu on '%s'", bytes,
                        offset, m->dev->label);
    return st;
}

static oklc_status finish(oklc_device *d)
{
    oklc_status st = current(d);
    hipError_t r = st ? hipSuccess : hip.DeviceSynchronize();
    if (r)
        return hip_fail(OKLC_ERR_DEVICE, r, "hipDeviceSynchronize", "the HIP device '%s'",
                        d->label);
    return st;
}

/* ---- building ----------------------------------------------------------------------------- */

static oklc_status device_options(const oklc_device *d, Build *b)
{
    const Hip *h = d->gpu;
    char version[32];
    oklc_status st = oklc_rt_hiprtc_version(version);
    if (st)
        return oklc_rt_fail(st, "cannot build '%s' for the HIP device '%s': %s", b->path,
                            d->label, oklc_last_error());
    char *arch = oklc_rt_format("--offload-arch=%s", h->arch);
    st = arch ? oklc_rt_opt_add(b, arch) : oklc_rt_oom();
    oklc_free(arch);
    if (!st && !(b->device_id = oklc_rt_format("%shiprtc: %s\n", d->id, version)))
        st = oklc_rt_oom();
    return st;
}

static oklc_status build_device(const oklc_device *d, const Build *b, const char *dir,
                                char **log)
{
    char *binary = NULL, *path = oklc_rt_path(dir, d->ops->binary_name);
    size_t size = 0;
    if (!path)
        return oklc_rt_oom();
    if (oklc_rt_verbose()) {
        char *line = oklc_rt_command_line((const char *const *)b->opts);
        fprintf(stderr, "oklc: hiprtc options: %s\n", line ? line : "");
        oklc_free(line);
    }
    oklc_status st = oklc_rt_hiprtc_compile(b->source, d->ops->source_name,
                                            (const char *const *)b->opts, b->nopts, &binary,
                                            &size, log);
    if (st == OKLC_ERR_COMPILE)
        st = oklc_rt_fail(st, "cannot compile the kernel source of '%s' for '%s'\n"
                          "(the source stays in %s for an hour)\n%s", b->path, d->label, dir,
                          oklc_last_error());
    if (!st)
        st = oklc_rt_write_file(path, binary, size);
    oklc_free(binary);
    oklc_free(path);
    return st;
}

/* ---- loading and running ------------------------------------------------------------------ */

static oklc_status load_device(oklc_kernel *k, const char *dir, char *const *names, int n)
{
    char *path = oklc_rt_path(dir, k->dev->ops->binary_name), *binary = NULL;
    oklc_status st = path ? oklc_rt_read_file(path, &binary, NULL) : oklc_rt_oom();
    if (!st)
        st = current(k->dev);
    hipError_t r;
    hipModule_t module = NULL;
    if (!st && (r = hip.ModuleLoadData(&module, binary)))
        st = hip_fail(OKLC_ERR_LOAD, r, "hipModuleLoadData", "cannot load '%s'", path);
    k->module = module;
    for (int i = 0; !st && i < n; i++) {
        hipFunction_t f = NULL;
        if ((r = hip.ModuleGetFunction(&f, module, names[i])))
            st = hip_fail(k->nparams < 0 ? OKLC_ERR_ARGUMENT : OKLC_ERR_LOAD, r,
                          "hipModuleGetFunction", "no kernel '%s' in '%s'", names[i], path);
        k->functions[i] = f;
    }
    oklc_free(binary);
    oklc_free(path);
    return st;
}

static void unload_device(oklc_kernel *k)
{
    if (k->module && !current(k->dev))
        hip.ModuleUnload(k->module);
}

static int launch(oklc_kernel *k, int index, const size_t grid[3], const size_t block[3],
                  int nargs, void *const *args, const size_t *sizes, const char **call)
{
    (void)nargs;
    (void)sizes;
    for (int i = 0; i < 3; i++) {
        if (grid[i] > UINT_MAX || block[i] > UINT_MAX) {
            *call = "the grid or the block is more than HIP takes (an unsigned int per axis)";
            return GPU_OWN_ERROR;
        }
    }
    const Hip *h = k->dev->gpu;
    *call = "hipSetDevice";
    hipError_t r = hip.SetDevice(h->index);
    if (r)
        return r;
    *call = "hipModuleLaunchKernel";
    /* kernelParams is void **: the runtime only reads the values */
    return hip.ModuleLaunchKernel(k->functions[index], (unsigned)grid[0], (unsigned)grid[1],
                                  (unsigned)grid[2], (unsigned)block[0], (unsigned)block[1],
                                  (unsigned)block[2], 0, NULL, (void **)args, NULL);
}

const DeviceOps oklc_hip_ops = {
    .name = "hip", .title = "HIP", .backend = OKLC_BACKEND_HIP,
    .source_name = "source.hip", .binary_name = "kernel.hsaco",
    .open = open_device, .close = close_device, .alloc = alloc, .free = free_memory,
    .copy_in = copy_in, .copy_out = copy_out, .finish = finish,
    .command = oklc_gpu_command, .compile = oklc_gpu_compile, .load = oklc_gpu_load,
    .unload = oklc_gpu_unload, .run = oklc_gpu_run,
    .device_options = device_options, .build_device = build_device,
    .load_device = load_device, .unload_device = unload_device, .launch = launch,
    .error_name = error_name,
};
