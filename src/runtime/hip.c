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
 * are found by name: native kernels are `extern "C" __global__`. Opening's
 * checks, building, loading and launching are gpu.c's (module_api).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* modules, functions and programs are void *: DriverCalls, RtcCalls */
typedef int hipError_t;
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
    DriverCalls calls;
    hipError_t (*DriverGetVersion)(int *);
    hipError_t (*RuntimeGetVersion)(int *);
    hipError_t (*SetDevice)(int);
    hipError_t (*GetDeviceProperties)(void *, int);
    hipError_t (*GetDevicePropertiesR0600)(void *, int);    /* optional: ROCm 6 */
    hipError_t (*Malloc)(void **, size_t);
    hipError_t (*Free)(void *);
    hipError_t (*Memcpy)(void *, const void *, size_t, int);
    const char *(*GetErrorName)(hipError_t);
} hip;

#define SYM(f, opt) {"hip" #f, offsetof(struct HipApi, f), opt}
#define CALL(f, name) {name, offsetof(struct HipApi, calls.f), false}
static const DlSym hip_syms[] = {
    CALL(init, "hipInit"), SYM(DriverGetVersion, false), SYM(RuntimeGetVersion, false),
    CALL(count, "hipGetDeviceCount"), SYM(SetDevice, false), SYM(GetDeviceProperties, false),
    SYM(GetDevicePropertiesR0600, true), SYM(Malloc, false), SYM(Free, false),
    SYM(Memcpy, false), CALL(synchronize, "hipDeviceSynchronize"),
    CALL(load, "hipModuleLoadData"), CALL(function, "hipModuleGetFunction"),
    CALL(unload, "hipModuleUnload"), CALL(launch, "hipModuleLaunchKernel"),
    SYM(GetErrorName, false),
};
#undef SYM
#undef CALL

static struct HiprtcApi {
    RtcCalls rtc;
    hiprtcResult (*GetCodeSize)(hiprtcProgram, size_t *);
    hiprtcResult (*GetCode)(hiprtcProgram, char *);
} hiprtc;

#define SYM(f) {"hiprtc" #f, offsetof(struct HiprtcApi, f), false}
#define RTC(f) {"hiprtc" #f, offsetof(struct HiprtcApi, rtc.f), false}
static const DlSym rtc_syms[] = {
    RTC(Version), RTC(CreateProgram), RTC(CompileProgram), RTC(GetProgramLogSize),
    RTC(GetProgramLog), SYM(GetCodeSize), SYM(GetCode), RTC(DestroyProgram),
    RTC(GetErrorString),
};
#undef SYM
#undef RTC

/* Both bring LLVM (through comgr): isolated, in one namespace (dl.c). */
static DlLib hip_lib = {.what = "libamdhip64.so (the HIP runtime)", .ns = "hip"};
static DlLib rtc_lib = {.what = "hiprtc (libhiprtc.so, or libamdhip64.so before ROCm 6)",
                        .ns = "hip"};

static const char *error_name(int code)
{
    const char *name = hip.GetErrorName ? hip.GetErrorName(code) : NULL;
    return name ? name : "an unknown HIP error";
}

/* hip_fail(st, r, call, fmt, ...): "<fmt ...>: <call>: hipError... (r)" */
#define hip_fail(...) oklc_gpu_fail(&oklc_hip_ops, __VA_ARGS__)

static DlLib test_lib = {.what = "the HIP runtime", .ns = "hip"};
static const char *library_override;    /* tests: a stand-in for libamdhip64.so */

void oklc_rt_hip_library(const char *path)
{
    library_override = path;
    /* Both share one table of functions: whichever loads next fills it. */
    test_lib.loaded = false;
    hip_lib.loaded = false;
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
                                     OKLC_COUNTOF(rtc_syms), &hiprtc);
    if (st)
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "no hiprtc: %s", oklc_last_error());
    return OKLC_OK;
}

static oklc_status program_code(void *p, const char *what, char **binary, size_t *size)
{
    size_t n = 0;
    if (hiprtc.GetCodeSize(p, &n) != HIPRTC_SUCCESS || !n)
        return oklc_rt_fail(OKLC_ERR_COMPILE, "hiprtc gave no code for '%s'", what);
    char *b = oklc_malloc(n);
    if (!b)
        return oklc_rt_oom();
    hiprtcResult r = hiprtc.GetCode(p, b);
    if (r != HIPRTC_SUCCESS) {
        oklc_free(b);
        return oklc_rt_fail(OKLC_ERR_COMPILE, "hiprtc gave no code for '%s': %s", what,
                            hiprtc.rtc.GetErrorString(r));
    }
    *binary = b;
    *size = n;
    return OKLC_OK;
}

/* RtcCalls has the options const: hiprtc's prototypes predate const, but
 * it does not change them. A failed hiprtcCreateProgram is a compile
 * error, whatever the reason (no oom). */
static const Rtc hiprtc_rtc = {
    .name = "hiprtc", .prefix = "hiprtc", .load = load_hiprtc, .calls = &hiprtc.rtc,
    .code = program_code,
};

oklc_status oklc_rt_hiprtc_version(char version[32])
{
    return oklc_gpu_rtc_version(&hiprtc_rtc, version);
}

oklc_status oklc_rt_hiprtc_compile(const char *source, const char *what, bool okl,
                                   const char *const *opts, size_t nopts, char **binary,
                                   size_t *size, char **log)
{
    return oklc_gpu_rtc_compile(&hiprtc_rtc, source, what, okl, opts, nopts, binary, size,
                                log);
}

/* ---- the device --------------------------------------------------------------------------- */

typedef struct Hip {
    int  index;
    char arch[256];    /* gcnArchName */
} Hip;

/* ModuleApi.select: the device, current for this thread. */
static int set_device(const oklc_device *d)
{
    const Hip *h = d->gpu;
    return hip.SetDevice(h->index);
}

static void close_device(oklc_device *d)
{
    if (d->gpu && !oklc_gpu_select(d))
        hip.calls.synchronize();
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
    int index;
    oklc_status st = oklc_gpu_module_open(d, s, &index);
    if (st)
        return st;
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
    oklc_status st = oklc_gpu_select(d);
    hipError_t r = st ? hipSuccess : hip.Malloc(ptr, bytes ? bytes : 1);
    if (r)
        return hip_fail(OKLC_ERR_DEVICE, r, "hipMalloc",
                        "cannot allocate %zu bytes on the HIP device '%s'", bytes, d->label);
    return st;
}

static void free_memory(oklc_device *d, void *ptr)
{
    if (!oklc_gpu_select(d))
        hip.Free(ptr);
}

static oklc_status copy_in(oklc_memory *m, const void *src, size_t bytes, size_t offset)
{
    oklc_status st = oklc_gpu_select(m->dev);
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
    oklc_status st = oklc_gpu_select(m->dev);
    hipError_t r = st ? hipSuccess
                      : hip.Memcpy(dst, (const char *)m->ptr + offset, bytes,
                                   hipMemcpyDeviceToHost);
    if (r)
        return hip_fail(OKLC_ERR_DEVICE, r, "hipMemcpy",
                        "oklc_memory_copy_to_host: %zu bytes at offset %zu on '%s'", bytes,
                        offset, m->dev->label);
    return st;
}

/* ---- opening, building, loading and running: gpu.c's -------------------------------- */

/* Without a GPU, hipInit says hipErrorInvalidDevice. */
static bool no_device(int r)
{
    return r == hipErrorNoDevice || r == hipErrorInvalidDevice;
}

static oklc_status arch_option(const oklc_device *d, char option[GPU_ARCH_OPTION])
{
    const Hip *h = d->gpu;
    snprintf(option, GPU_ARCH_OPTION, "--offload-arch=%s", h->arch);
    return OKLC_OK;
}

static const ModuleApi module_api = {
    .rtc = &hiprtc_rtc, .calls = &hip.calls,
    .call = {.init = "hipInit", .count = "hipGetDeviceCount",
             .synchronize = "hipDeviceSynchronize", .select = "hipSetDevice",
             .load = "hipModuleLoadData", .function = "hipModuleGetFunction",
             .launch = "hipModuleLaunchKernel"},
    .not_started = "the HIP runtime does not start", .load = load_hip,
    .no_device = no_device, .select = set_device, .arch = arch_option,
    .oom = hipErrorOutOfMemory,
};

const DeviceOps oklc_hip_ops = {
    .name = "hip", .title = "HIP", .backend = OKLC_BACKEND_HIP,
    .source_name = "source.hip", .binary_name = "kernel.hsaco",
    .open = open_device, .close = close_device, .alloc = alloc, .free = free_memory,
    .copy_in = copy_in, .copy_out = copy_out, OKLC_GPU_OPS, OKLC_GPU_MODULE_OPS,
    .error_name = error_name, .module = &module_api,
};
