/*
 * cuda.c - the CUDA device: the driver API (libcuda.so.1) and NVRTC
 * (libnvrtc.so), both opened with dlopen; no CUDA header or library is
 * needed to build oklc.
 *
 * Spec: "cuda", "mode=cuda device=1" (an index; default 0). The device's
 * primary context is made current before each call, so any thread may use
 * the device. Memory is a CUdeviceptr (struct oklc_memory's ptr); copies
 * are cuMemcpyHtoD/DtoH at an offset, synchronous, and ordered after the
 * kernels (all run on the legacy default stream).
 *
 * The device source is compiled with NVRTC for the device's compute
 * capability (--gpu-architecture=sm_XY; a compute_XY PTX when this NVRTC
 * does not know the device), and the cubin kept in the cache entry; the
 * key has the device's name and capability, the driver's and NVRTC's
 * versions. NVRTC is looked for in $CUDA_HOME/lib64, $CUDA_PATH/lib64,
 * /usr/local/cuda/lib64, then the loader's path; the toolkit's headers
 * (<cuda_fp16.h>, for half) as toolkit_include says. Device functions are
 * found by name: native kernels are `extern "C" __global__`. Opening's
 * checks, memory's errors, the code NVRTC gives, building, loading and
 * launching are gpu.c's (module_api); this file has what only CUDA does.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"

/* The few types of cuda.h and nvrtc.h we need, as their ABI has them
 * (modules, functions and programs are void *: DriverCalls, RtcCalls). */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;
typedef int nvrtcResult;

enum { CUDA_SUCCESS = 0, CUDA_ERROR_OUT_OF_MEMORY = 2, CUDA_ERROR_NO_DEVICE = 100 };
enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_OUT_OF_MEMORY = 1 };
enum {    /* CUdevice_attribute */
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,    /* Y, Z: 3, 4 */
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

static struct CuApi {
    DriverCalls calls;
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, void *);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, void *);
    CUresult (*MemAllocHost)(void **, size_t);
    CUresult (*MemFreeHost)(void *);
    CUresult (*GetErrorName)(CUresult, const char **);
} cu;

/* The versioned names are those cuda.h maps the calls to. */
#define SYM(f, name) {name, offsetof(struct CuApi, f), false}
static const DlSym cu_syms[] = {
    SYM(calls.init, "cuInit"),
    SYM(DriverGetVersion, "cuDriverGetVersion"),
    SYM(calls.count, "cuDeviceGetCount"),
    SYM(DeviceGet, "cuDeviceGet"),
    SYM(DeviceGetName, "cuDeviceGetName"),
    SYM(calls.attribute, "cuDeviceGetAttribute"),
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
    SYM(CtxSetCurrent, "cuCtxSetCurrent"),
    SYM(calls.synchronize, "cuCtxSynchronize"),
    SYM(MemAlloc, "cuMemAlloc_v2"),
    SYM(MemFree, "cuMemFree_v2"),
    SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
    SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
    SYM(MemcpyDtoD, "cuMemcpyDtoD_v2"),
    SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
    SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
    SYM(calls.stream_create, "cuStreamCreate"),
    SYM(calls.stream_destroy, "cuStreamDestroy_v2"),
    SYM(calls.stream_synchronize, "cuStreamSynchronize"),
    SYM(calls.event_create, "cuEventCreate"),
    SYM(calls.event_record, "cuEventRecord"),
    SYM(calls.event_synchronize, "cuEventSynchronize"),
    SYM(calls.event_elapsed, "cuEventElapsedTime"),
    SYM(calls.event_destroy, "cuEventDestroy_v2"),
    SYM(MemAllocHost, "cuMemAllocHost_v2"),
    SYM(MemFreeHost, "cuMemFreeHost"),
    SYM(calls.total_memory, "cuDeviceTotalMem_v2"),
    SYM(calls.memory_info, "cuMemGetInfo_v2"),
    SYM(calls.load, "cuModuleLoadData"),
    SYM(calls.function, "cuModuleGetFunction"),
    SYM(calls.unload, "cuModuleUnload"),
    SYM(calls.launch, "cuLaunchKernel"),
    SYM(GetErrorName, "cuGetErrorName"),
};
#undef SYM

static struct NvrtcApi {
    RtcCalls rtc;    /* GetCode: the cubin */
    nvrtcResult (*GetNumSupportedArchs)(int *);    /* optional: NVRTC 11.2 */
    nvrtcResult (*GetSupportedArchs)(int *);
} nvrtc;

#define SYM(f) {"nvrtc" #f, offsetof(struct NvrtcApi, f), true}
#define RTC(f, name) {"nvrtc" #name, offsetof(struct NvrtcApi, rtc.f), false}
static const DlSym nvrtc_syms[] = {
    RTC(Version, Version), RTC(CreateProgram, CreateProgram),
    RTC(CompileProgram, CompileProgram), RTC(GetProgramLogSize, GetProgramLogSize),
    RTC(GetProgramLog, GetProgramLog), RTC(GetCodeSize, GetCUBINSize), RTC(GetCode, GetCUBIN),
    RTC(GetPTXSize, GetPTXSize), RTC(GetPTX, GetPTX), RTC(DestroyProgram, DestroyProgram),
    RTC(GetErrorString, GetErrorString), SYM(GetNumSupportedArchs), SYM(GetSupportedArchs),
};
#undef SYM
#undef RTC

static const char *const cu_names[] = {"libcuda.so.1"};
static DlSwap cu_lib = {.vendor = {.what = "libcuda.so.1 (the NVIDIA driver's CUDA library)"},
                        .stand_in = {.what = "the CUDA library"}, .names = cu_names,
                        .nnames = 1, .syms = cu_syms, .nsyms = OKLC_COUNTOF(cu_syms),
                        .table = &cu};

static DlLib nvrtc_lib = {.what = "NVRTC (libnvrtc.so, the CUDA toolkit's runtime compiler)"};

static const char *error_name(int code)
{
    const char *name = NULL;
    if (!cu.GetErrorName || cu.GetErrorName(code, &name) != CUDA_SUCCESS || !name)
        return "an unknown CUDA error";
    return name;
}

/* cu_fail(st, r, call, fmt, ...): "<fmt ...>: <call>: CUDA_ERROR_... (r)" */
#define cu_fail(...) oklc_gpu_fail(&oklc_cuda_ops, __VA_ARGS__)

/* ---- NVRTC ------------------------------------------------------------------------------ */

/* Where the CUDA toolkit may be, in order. */
#define TOOLKIT_HOMES {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"}

static oklc_status load_nvrtc(void)
{
    static const char *const fixed[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                        "libnvrtc.so.11.2"};
    const char *homes[] = TOOLKIT_HOMES;
    char *found[OKLC_COUNTOF(homes)] = {0};
    const char *names[OKLC_COUNTOF(homes) + OKLC_COUNTOF(fixed)];
    size_t n = 0;
    for (size_t i = 0; i < OKLC_COUNTOF(homes); i++) {
        if (!homes[i] || !*homes[i])
            continue;
        if (!(found[i] = oklc_rt_format("%s/lib64/libnvrtc.so", homes[i])))
            break;
        names[n++] = found[i];
    }
    for (size_t i = 0; i < OKLC_COUNTOF(fixed); i++)
        names[n++] = fixed[i];
    oklc_status st = oklc_rt_dl_load(&nvrtc_lib, names, n, nvrtc_syms,
                                     OKLC_COUNTOF(nvrtc_syms), &nvrtc);
    for (size_t i = 0; i < OKLC_COUNTOF(homes); i++)
        oklc_free(found[i]);
    return st;
}

/* The toolkit a file of it is in, links followed: "/opt/cuda/bin/nvcc"
 * and "/opt/cuda/lib64/libnvrtc.so.13" give "/opt/cuda" (NULL: no file). */
static char *toolkit_of(char *file)
{
    char *real = file ? oklc_rt_absolute(file) : NULL;
    oklc_free(file);
    for (int up = 0; real && up < 2; up++) {
        char *slash = strrchr(real, '/');
        if (slash)
            *slash = '\0';
    }
    return real;
}

/* "-I<toolkit>/include" of the first toolkit that has cuda_fp16.h (which
 * the prelude includes for half), or NULL: NVRTC searches no folder of
 * its own, as nvcc does. In order: $CUDA_HOME, $CUDA_PATH, the toolkit
 * NVRTC was loaded from (its headers match it; a pip install of the
 * toolkit keeps them beside its lib/ folder too), the toolkit of the nvcc
 * on PATH, /usr/local/cuda. */
static char *toolkit_include(void)
{
    char *nvrtc_home = toolkit_of(oklc_rt_dl_file((void (*)(void))nvrtc.rtc.GetCode));
    char *nvcc_home = toolkit_of(oklc_rt_find_program("nvcc"));
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), nvrtc_home, nvcc_home,
                           "/usr/local/cuda"};
    char *include = NULL;
    for (size_t i = 0; i < OKLC_COUNTOF(homes) && !include; i++) {
        if (!homes[i] || !*homes[i])
            continue;
        char *header = oklc_rt_format("%s/include/cuda_fp16.h", homes[i]);
        if (header && access(header, R_OK) == 0)
            include = oklc_rt_format("-I%s/include", homes[i]);
        oklc_free(header);
    }
    oklc_free(nvrtc_home);
    oklc_free(nvcc_home);
    return include;
}

const Rtc oklc_nvrtc = {
    .name = "NVRTC", .prefix = "nvrtc", .load = load_nvrtc, .calls = &nvrtc.rtc,
    .oom = NVRTC_ERROR_OUT_OF_MEMORY, .include = toolkit_include,
};

/* ---- the device ------------------------------------------------------------------------- */

typedef struct Cu {
    CUdevice  device;
    CUcontext context;
    int       major, minor;    /* compute capability */
} Cu;

/* ModuleApi.select: the primary context, current for this thread. */
static int select_context(const oklc_device *d)
{
    const Cu *c = d->gpu;
    return cu.CtxSetCurrent(c->context);
}

/* Before the context is released, what runs in it ends. */
static void close_device(oklc_device *d)
{
    Cu *c = d->gpu;
    if (c->context) {
        cu.CtxSetCurrent(c->context);
        cu.calls.synchronize();
        cu.DevicePrimaryCtxRelease(c->device);
    }
}

static oklc_status describe(oklc_device *d, const Cu *c, int index)
{
    char name[256] = "?";
    int driver = 0;
    cu.DeviceGetName(name, sizeof name, c->device);
    cu.DriverGetVersion(&driver);
    d->label = oklc_rt_strdup(name);
    d->id = oklc_rt_format("cuda\ndevice: %s\nindex: %d\ncompute capability: %d.%d\n"
                           "driver: %d\n", name, index, c->major, c->minor, driver);
    return d->label && d->id ? OKLC_OK : oklc_rt_oom();
}

static oklc_status open_device(oklc_device *d, const Spec *s, int index)
{
    Cu *c = d->gpu;
    oklc_status st = OKLC_OK;
    CUresult r;
    if ((r = cu.DeviceGet(&c->device, index)) ||
        (r = cu.calls.attribute(&c->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   c->device)) ||
        (r = cu.calls.attribute(&c->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                   c->device)))
        st = cu_fail(OKLC_ERR_DEVICE, r, "cuDeviceGet", "device spec '%s'", s->text);
    if (!st)
        st = describe(d, c, index);
    if (!st && (r = cu.DevicePrimaryCtxRetain(&c->context, c->device))) {
        c->context = NULL;
        st = cu_fail(OKLC_ERR_DEVICE, r, "cuDevicePrimaryCtxRetain", "the CUDA device '%s'",
                     d->label);
    }
    return st;
}

/* ModuleApi's memory: a CUdeviceptr is a number, kept as a pointer. */
static int alloc(void **ptr, size_t bytes)
{
    CUdeviceptr p = 0;
    CUresult r = cu.MemAlloc(&p, bytes);
    *ptr = (void *)(uintptr_t)p;
    return r;
}

static int free_memory(void *ptr)
{
    return cu.MemFree((CUdeviceptr)(uintptr_t)ptr);
}

static int copy(void *dst, const void *src, size_t bytes, GpuCopy way)
{
    if (way == GPU_TO_DEVICE)
        return cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes);
    if (way == GPU_TO_HOST)
        return cu.MemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes);
    return cu.MemcpyDtoD((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes);
}

/* Host and device, in a stream (device to device: memory.c's copies wait
 * for the streams and use copy). */
static int copy_async(void *dst, const void *src, size_t bytes, GpuCopy way, void *stream)
{
    if (way == GPU_TO_DEVICE)
        return cu.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, bytes, stream);
    return cu.MemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, bytes, stream);
}

static int host_alloc(void **ptr, size_t bytes)
{
    return cu.MemAllocHost(ptr, bytes);
}

static int host_free(void *ptr)
{
    return cu.MemFreeHost(ptr);
}

/* ModuleApi.query: the vendor, the architecture, the device's number. */
static int query(const oklc_device *d, oklc_device_info *info)
{
    const Cu *c = d->gpu;
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
    snprintf(info->arch, sizeof info->arch, "sm_%d%d", c->major, c->minor);
    return c->device;
}

/* ---- opening, building, loading and running: gpu.c's -------------------------------- */

static bool no_device(int r)
{
    return r == CUDA_ERROR_NO_DEVICE;
}

/* sm_XY when this NVRTC compiles for it; else PTX for the newest
 * architecture it knows below the device (the driver compiles that). */
static oklc_status arch_option(const oklc_device *d, char option[GPU_ARCH_OPTION])
{
    const Cu *c = d->gpu;
    int arch = c->major * 10 + c->minor, best = 0, n = 0;
    bool known = true;
    if (nvrtc.GetNumSupportedArchs && nvrtc.GetSupportedArchs &&
        nvrtc.GetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0 && n < 1024) {
        int *list = oklc_malloc((size_t)n * sizeof *list);
        if (!list)
            return oklc_rt_oom();
        known = false;
        if (nvrtc.GetSupportedArchs(list) == NVRTC_SUCCESS) {
            for (int i = 0; i < n; i++) {
                known |= list[i] == arch;
                if (list[i] < arch && list[i] > best)
                    best = list[i];
            }
        } else {
            known = true;
        }
        oklc_free(list);
    }
    if (known || !best)
        snprintf(option, GPU_ARCH_OPTION, "--gpu-architecture=sm_%d", arch);
    else
        snprintf(option, GPU_ARCH_OPTION, "--gpu-architecture=compute_%d", best);
    return OKLC_OK;
}

static const ModuleApi module_api = {
    .rtc = &oklc_nvrtc, .calls = &cu.calls,
    .call = {.init = "cuInit", .count = "cuDeviceGetCount", .synchronize = "cuCtxSynchronize",
             .select = "cuCtxSetCurrent", .load = "cuModuleLoadData",
             .function = "cuModuleGetFunction", .launch = "cuLaunchKernel",
             .alloc = "cuMemAlloc", .to_device = "cuMemcpyHtoD", .to_host = "cuMemcpyDtoH",
             .on_device = "cuMemcpyDtoD", .host_alloc = "cuMemAllocHost",
             .attribute = "cuDeviceGetAttribute", .total_memory = "cuDeviceTotalMem",
             .memory_info = "cuMemGetInfo", .stream = "cuStream*", .event = "cuEvent*"},
    .not_started = "the CUDA driver does not start", .lib = &cu_lib,
    .no_device = no_device, .state = sizeof(Cu), .open = open_device, .close = close_device,
    .select = select_context, .alloc = alloc, .free = free_memory, .copy = copy,
    .copy_async = copy_async,
    .host_alloc = host_alloc, .host_free = host_free, .query = query,
    .attributes = {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                   CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                   CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 1, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 2,
                   CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
    .arch = arch_option, .oom = CUDA_ERROR_OUT_OF_MEMORY,
};

const DeviceOps oklc_cuda_ops = {
    .name = "cuda", .title = "CUDA", .backend = OKLC_BACKEND_CUDA,
    .source_name = "source.cu", .binary_name = "kernel.cubin",
    OKLC_GPU_OPS, OKLC_GPU_MODULE_OPS, .error_name = error_name, .module = &module_api,
};
