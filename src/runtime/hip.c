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
 * checks, memory's errors, the code hiprtc gives, building, loading and
 * launching are gpu.c's (module_api); this file has what only HIP does.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* modules, functions and programs are void *: DriverCalls, RtcCalls */
typedef int hipError_t;

enum { hipErrorOutOfMemory = 2, hipErrorNoDevice = 100, hipErrorInvalidDevice = 101 };
enum {    /* hipDeviceAttribute_t, as numbered since ROCm 5 */
    hipDeviceAttributeMaxBlockDimX = 26,    /* Y, Z: 27, 28 */
    hipDeviceAttributeMaxThreadsPerBlock = 56,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
};
enum { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2, hipMemcpyDeviceToDevice = 3 };

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
    hipError_t (*MemcpyAsync)(void *, const void *, size_t, int, void *);
    hipError_t (*HostMalloc)(void **, size_t, unsigned);
    hipError_t (*HostFree)(void *);
    const char *(*GetErrorName)(hipError_t);
} hip;

#define SYM(f, opt) {"hip" #f, offsetof(struct HipApi, f), opt}
#define CALL(f, name) {name, offsetof(struct HipApi, calls.f), false}
static const DlSym hip_syms[] = {
    CALL(init, "hipInit"), SYM(DriverGetVersion, false), SYM(RuntimeGetVersion, false),
    CALL(count, "hipGetDeviceCount"), SYM(SetDevice, false), SYM(GetDeviceProperties, false),
    SYM(GetDevicePropertiesR0600, true), SYM(Malloc, false), SYM(Free, false),
    SYM(Memcpy, false), SYM(MemcpyAsync, false), SYM(HostMalloc, false),
    CALL(stream_create, "hipStreamCreateWithFlags"), CALL(stream_destroy, "hipStreamDestroy"),
    CALL(stream_synchronize, "hipStreamSynchronize"),
    CALL(event_create, "hipEventCreateWithFlags"), CALL(event_record, "hipEventRecord"),
    CALL(event_synchronize, "hipEventSynchronize"),
    CALL(event_elapsed, "hipEventElapsedTime"), CALL(event_destroy, "hipEventDestroy"), SYM(HostFree, false),
    CALL(attribute, "hipDeviceGetAttribute"), CALL(total_memory, "hipDeviceTotalMem"),
    CALL(memory_info, "hipMemGetInfo"), CALL(synchronize, "hipDeviceSynchronize"),
    CALL(load, "hipModuleLoadData"), CALL(function, "hipModuleGetFunction"),
    CALL(unload, "hipModuleUnload"), CALL(launch, "hipModuleLaunchKernel"),
    SYM(GetErrorName, false),
};
#undef SYM
#undef CALL

static RtcCalls hiprtc;

#define RTC(f) {"hiprtc" #f, offsetof(RtcCalls, f), false}
static const DlSym rtc_syms[] = {
    RTC(Version), RTC(CreateProgram), RTC(CompileProgram), RTC(GetProgramLogSize),
    RTC(GetProgramLog), RTC(GetCodeSize), RTC(GetCode), RTC(DestroyProgram),
    RTC(GetErrorString),
};
#undef RTC

/* Both bring LLVM (through comgr): isolated, in one namespace (dl.c). */
static const char *const hip_names[] = {"libamdhip64.so", "libamdhip64.so.6",
                                        "libamdhip64.so.5"};
static DlSwap hip_lib = {.vendor = {.what = "libamdhip64.so (the HIP runtime)", .ns = "hip"},
                         .stand_in = {.what = "the HIP runtime", .ns = "hip"},
                         .names = hip_names, .nnames = OKLC_COUNTOF(hip_names),
                         .syms = hip_syms, .nsyms = OKLC_COUNTOF(hip_syms), .table = &hip};
static DlLib rtc_lib = {.what = "hiprtc (libhiprtc.so, or libamdhip64.so before ROCm 6)",
                        .ns = "hip"};

static const char *error_name(int code)
{
    const char *name = hip.GetErrorName ? hip.GetErrorName(code) : NULL;
    return name ? name : "an unknown HIP error";
}

/* hip_fail(st, r, call, fmt, ...): "<fmt ...>: <call>: hipError... (r)" */
#define hip_fail(...) oklc_gpu_fail(&oklc_hip_ops, __VA_ARGS__)

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

/* RtcCalls has the options const: hiprtc's prototypes predate const, but
 * it does not change them. A failed hiprtcCreateProgram is a compile
 * error, whatever the reason (no oom). */
const Rtc oklc_hiprtc = {
    .name = "hiprtc", .prefix = "hiprtc", .load = load_hiprtc, .calls = &hiprtc,
};

/* ---- the device --------------------------------------------------------------------------- */

typedef struct Hip {
    int  index;
    char arch[256];    /* gcnArchName */
    bool open;         /* close waits for its kernels */
} Hip;

/* hipDeviceProp_t is about 1.5 KiB (ROCm 6: hipGetDevicePropertiesR0600) */
enum { PROPS_SIZE = 16384 };

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

static oklc_status open_device(oklc_device *d, const Spec *s, int index)
{
    (void)s;
    Hip *h = d->gpu;
    h->index = index;
    oklc_status st = describe(d, h);
    h->open = !st;
    return st;
}

/* ModuleApi.select: the device, current for this thread. */
static int set_device(const oklc_device *d)
{
    const Hip *h = d->gpu;
    return hip.SetDevice(h->index);
}

static void close_device(oklc_device *d)
{
    const Hip *h = d->gpu;
    if (h->open && !oklc_gpu_select(d))
        hip.calls.synchronize();
}

/* ModuleApi's memory: hipMalloc and hipFree, hipMemcpy each way,
 * hipHostMalloc and hipHostFree. */
static int alloc(void **ptr, size_t bytes)
{
    return hip.Malloc(ptr, bytes);
}

static int free_memory(void *ptr)
{
    return hip.Free(ptr);
}

static int copy(void *dst, const void *src, size_t bytes, GpuCopy way)
{
    return hip.Memcpy(dst, src, bytes, way == GPU_TO_DEVICE ? hipMemcpyHostToDevice
                                       : way == GPU_TO_HOST ? hipMemcpyDeviceToHost
                                                            : hipMemcpyDeviceToDevice);
}

static int copy_async(void *dst, const void *src, size_t bytes, GpuCopy way, void *stream)
{
    return hip.MemcpyAsync(dst, src, bytes, way == GPU_TO_DEVICE ? hipMemcpyHostToDevice
                                            : hipMemcpyDeviceToHost, stream);
}

static int host_alloc(void **ptr, size_t bytes)
{
    return hip.HostMalloc(ptr, bytes, 0);
}

static int host_free(void *ptr)
{
    return hip.HostFree(ptr);
}

/* ModuleApi.query: the vendor, the architecture, the device's number. */
static int query(const oklc_device *d, oklc_device_info *info)
{
    const Hip *h = d->gpu;
    snprintf(info->vendor, sizeof info->vendor, "AMD");
    snprintf(info->arch, sizeof info->arch, "%s", h->arch);
    return h->index;
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
    .rtc = &oklc_hiprtc, .calls = &hip.calls,
    .call = {.init = "hipInit", .count = "hipGetDeviceCount",
             .synchronize = "hipDeviceSynchronize", .select = "hipSetDevice",
             .load = "hipModuleLoadData", .function = "hipModuleGetFunction",
             .launch = "hipModuleLaunchKernel", .alloc = "hipMalloc", .to_device = "hipMemcpy",
             .to_host = "hipMemcpy", .on_device = "hipMemcpy", .host_alloc = "hipHostMalloc",
             .attribute = "hipDeviceGetAttribute", .total_memory = "hipDeviceTotalMem",
             .memory_info = "hipMemGetInfo", .stream = "hipStream*", .event = "hipEvent*"},
    .not_started = "the HIP runtime does not start", .lib = &hip_lib,
    .no_device = no_device, .state = sizeof(Hip), .open = open_device, .close = close_device,
    .select = set_device, .alloc = alloc, .free = free_memory, .copy = copy,
    .copy_async = copy_async,
    .host_alloc = host_alloc, .host_free = host_free, .query = query,
    .attributes = {hipDeviceAttributeMultiprocessorCount, hipDeviceAttributeMaxThreadsPerBlock,
                   hipDeviceAttributeMaxBlockDimX, hipDeviceAttributeMaxBlockDimX + 1,
                   hipDeviceAttributeMaxBlockDimX + 2, hipDeviceAttributeMaxSharedMemoryPerBlock},
    .arch = arch_option, .oom = hipErrorOutOfMemory,
};

const DeviceOps oklc_hip_ops = {
    .name = "hip", .title = "HIP", .backend = OKLC_BACKEND_HIP,
    .source_name = "source.hip", .binary_name = "kernel.hsaco",
    OKLC_GPU_OPS, OKLC_GPU_MODULE_OPS, .error_name = error_name, .module = &module_api,
};
