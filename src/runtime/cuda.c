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
 * /usr/local/cuda/lib64, then the loader's path. Device functions are
 * found by name: native kernels are `extern "C" __global__`.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* The few types of cuda.h and nvrtc.h we need, as their ABI has them. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NO_DEVICE = 100,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    NVRTC_SUCCESS = 0,
};

static struct CuApi {
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
    CUresult (*GetErrorName)(CUresult, const char **);
} cu;

/* The versioned names are those cuda.h maps the calls to. */
#define SYM(f, name) {name, offsetof(struct CuApi, f), false}
static const DlSym cu_syms[] = {
    SYM(Init, "cuInit"),
    SYM(DriverGetVersion, "cuDriverGetVersion"),
    SYM(DeviceGetCount, "cuDeviceGetCount"),
    SYM(DeviceGet, "cuDeviceGet"),
    SYM(DeviceGetName, "cuDeviceGetName"),
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
    SYM(CtxSetCurrent, "cuCtxSetCurrent"),
    SYM(CtxSynchronize, "cuCtxSynchronize"),
    SYM(MemAlloc, "cuMemAlloc_v2"),
    SYM(MemFree, "cuMemFree_v2"),
    SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
    SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
    SYM(ModuleLoadData, "cuModuleLoadData"),
    SYM(ModuleGetFunction, "cuModuleGetFunction"),
    SYM(ModuleUnload, "cuModuleUnload"),
    SYM(LaunchKernel, "cuLaunchKernel"),
    SYM(GetErrorName, "cuGetErrorName"),
};
#undef SYM

static struct NvrtcApi {
    nvrtcResult (*Version)(int *, int *);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                 const char *const *, const char *const *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetPTX)(nvrtcProgram, char *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
    const char *(*GetErrorString)(nvrtcResult);
    nvrtcResult (*GetNumSupportedArchs)(int *);    /* optional: NVRTC 11.2 */
    nvrtcResult (*GetSupportedArchs)(int *);
} nvrtc;

#define SYM(f, opt) {"nvrtc" #f, offsetof(struct NvrtcApi, f), opt}
static const DlSym nvrtc_syms[] = {
    SYM(Version, false), SYM(CreateProgram, false), SYM(CompileProgram, false),
    SYM(GetProgramLogSize, false), SYM(GetProgramLog, false), SYM(GetCUBINSize, false),
    SYM(GetCUBIN, false), SYM(GetPTXSize, false), SYM(GetPTX, false),
    SYM(DestroyProgram, false), SYM(GetErrorString, false), SYM(GetNumSupportedArchs, true),
    SYM(GetSupportedArchs, true),
};
#undef SYM

static DlLib cu_lib = {.what = "libcuda.so.1 (the NVIDIA driver's CUDA library)"};
static DlLib test_lib = {.what = "the CUDA library"};
static const char *library_override;    /* tests: a stand-in for libcuda.so.1 */

void oklc_rt_cuda_library(const char *path)
{
    library_override = path;
    test_lib.loaded = false;
}

static oklc_status load_cuda(void)
{
    static const char *const names[] = {"libcuda.so.1"};
    if (library_override)
        return oklc_rt_dl_load(&test_lib, &library_override, 1, cu_syms, OKLC_COUNTOF(cu_syms),
                               &cu);
    return oklc_rt_dl_load(&cu_lib, names, 1, cu_syms, OKLC_COUNTOF(cu_syms), &cu);
}
static DlLib nvrtc_lib = {.what = "NVRTC (libnvrtc.so, the CUDA toolkit's runtime compiler)"};

static const char *error_name(int code)
{
    const char *name = NULL;
    if (!cu.GetErrorName || cu.GetErrorName(code, &name) != CUDA_SUCCESS || !name)
        return "an unknown CUDA error";
    return name;
}

static oklc_status cu_fail(oklc_status st, CUresult r, const char *call, const char *fmt, ...)
    OKLC_PRINTF(4, 5);

static oklc_status cu_fail(oklc_status st, CUresult r, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = oklc_rt_vformat(fmt, ap);
    va_end(ap);
    if (!what)
        return oklc_rt_oom();
    st = oklc_rt_fail(r == CUDA_ERROR_OUT_OF_MEMORY ? OKLC_ERR_MEMORY : st, "%s: %s: %s (%d)",
                      what, call, error_name(r), r);
    oklc_free(what);
    return st;
}

/* ---- NVRTC ------------------------------------------------------------------------------ */

static oklc_status load_nvrtc(void)
{
    static const char *const fixed[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                        "libnvrtc.so.11.2"};
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
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

oklc_status oklc_rt_nvrtc_version(char version[32])
{
    int major = 0, minor = 0;
    oklc_status st = load_nvrtc();
    if (!st && nvrtc.Version(&major, &minor) != NVRTC_SUCCESS)
        st = oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "NVRTC does not say its version");
    if (!st)
        snprintf(version, 32, "%d.%d", major, minor);
    return st;
}

static char *program_log(nvrtcProgram p)
{
    size_t n = 0;
    if (nvrtc.GetProgramLogSize(p, &n) != NVRTC_SUCCESS)
        n = 0;
    char *log = oklc_malloc(n + 1);
    if (log && n && nvrtc.GetProgramLog(p, log) != NVRTC_SUCCESS)
        n = 0;
    if (log)
        log[n] = '\0';
    return log;
}

/* The cubin, else (an arch given as compute_XY) the PTX, NUL-terminated. */
static oklc_status program_binary(nvrtcProgram p, const char *what, char **binary,
                                  size_t *size)
{
    size_t n = 0;
    bool ptx = nvrtc.GetCUBINSize(p, &n) != NVRTC_SUCCESS || !n;
    if (ptx && nvrtc.GetPTXSize(p, &n) != NVRTC_SUCCESS)
        return oklc_rt_fail(OKLC_ERR_COMPILE, "NVRTC gave no code for '%s'", what);
    char *b = oklc_malloc(n + 1);
    if (!b)
        return oklc_rt_oom();
    nvrtcResult r = ptx ? nvrtc.GetPTX(p, b) : nvrtc.GetCUBIN(p, b);
    if (r != NVRTC_SUCCESS) {
        oklc_free(b);
        return oklc_rt_fail(OKLC_ERR_COMPILE, "NVRTC gave no code for '%s': %s", what,
                            nvrtc.GetErrorString(r));
    }
    b[n] = '\0';
    *binary = b;
    *size = n;
    return OKLC_OK;
}

oklc_status oklc_rt_nvrtc_compile(const char *source, const char *what,
                                  const char *const *opts, size_t nopts, char **binary,
                                  size_t *size, char **log)
{
    *binary = NULL;
    *size = 0;
    *log = NULL;
    oklc_status st = load_nvrtc();
    if (st)
        return st;
    if (nopts > INT_MAX)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "too many NVRTC options");
    nvrtcProgram p = NULL;
    nvrtcResult r = nvrtc.CreateProgram(&p, source, what, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return oklc_rt_fail(r == 1 ? OKLC_ERR_MEMORY : OKLC_ERR_COMPILE,
                            "nvrtcCreateProgram for '%s': %s", what, nvrtc.GetErrorString(r));
    oklc_rt_count_compile();
    r = nvrtc.CompileProgram(p, (int)nopts, opts);
    *log = program_log(p);
    if (!*log)
        st = oklc_rt_oom();
    else if (r != NVRTC_SUCCESS)
        st = oklc_rt_fail(OKLC_ERR_COMPILE, "cannot compile '%s' with NVRTC: %s\n%s", what,
                          nvrtc.GetErrorString(r), *log);
    else
        st = program_binary(p, what, binary, size);
    nvrtc.DestroyProgram(&p);
    return st;
}

/* ---- the device ------------------------------------------------------------------------- */

typedef struct Cu {
    CUdevice  device;
    CUcontext context;
    int       major, minor;    /* compute capability */
} Cu;

static oklc_status current(const oklc_device *d)
{
    Cu *c = d->gpu;
    CUresult r = cu.CtxSetCurrent(c->context);
    return r ? cu_fail(OKLC_ERR_DEVICE, r, "cuCtxSetCurrent", "the CUDA device '%s'", d->label)
             : OKLC_OK;
}

static void close_device(oklc_device *d)
{
    Cu *c = d->gpu;
    if (!c)
        return;
    if (c->context) {
        cu.CtxSetCurrent(c->context);
        cu.CtxSynchronize();
        cu.DevicePrimaryCtxRelease(c->device);
    }
    oklc_free(c);
    d->gpu = NULL;
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

static oklc_status open_device(oklc_device *d, const Spec *s)
{
    int index, count = 0;
    oklc_status st = oklc_gpu_device_index(s, "cuda", &index);
    if (st)
        return st;
    if (load_cuda())
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the CUDA device is not "
                            "available: %s", s->text, oklc_last_error());
    const char *call = "cuInit";
    CUresult r = cu.Init(0);
    if (!r && (r = cu.DeviceGetCount(&count)))
        call = "cuDeviceGetCount";
    if (r || !count)
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the CUDA device is not "
                            "available: %s (%s: %s)", s->text,
                            !r || r == CUDA_ERROR_NO_DEVICE ? "no CUDA device"
                                                            : "the CUDA driver does not start",
                            call, r ? error_name(r) : "0 devices");
    if (index >= count)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT, "device spec '%s': there is no CUDA device %d "
                            "(there %s %d: 0 to %d)", s->text, index,
                            count == 1 ? "is" : "are", count, count - 1);
    Cu *c = oklc_malloc(sizeof *c);
    if (!c)
        return oklc_rt_oom();
    memset(c, 0, sizeof *c);
    d->gpu = c;
    if ((r = cu.DeviceGet(&c->device, index)) ||
        (r = cu.DeviceGetAttribute(&c->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   c->device)) ||
        (r = cu.DeviceGetAttribute(&c->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                   c->device)))
        st = cu_fail(OKLC_ERR_DEVICE, r, "cuDeviceGet", "device spec '%s'", s->text);
    if (!st)
        st = describe(d, c, index);
    if (!st && (r = cu.DevicePrimaryCtxRetain(&c->context, c->device))) {
        c->context = NULL;
        st = cu_fail(OKLC_ERR_DEVICE, r, "cuDevicePrimaryCtxRetain", "the CUDA device '%s'",
                     d->label);
    }
    if (st)
        close_device(d);
    return st;
}

static oklc_status alloc(oklc_device *d, size_t bytes, void **ptr)
{
    CUdeviceptr p = 0;
    oklc_status st = current(d);
    CUresult r = st ? CUDA_SUCCESS : cu.MemAlloc(&p, bytes ? bytes : 1);
    if (r)
        return cu_fail(OKLC_ERR_DEVICE, r, "cuMemAlloc",
                       "cannot allocate %zu bytes on the CUDA device '%s'", bytes, d->label);
    *ptr = (void *)(uintptr_t)p;
    return st;
}

static void free_memory(oklc_device *d, void *ptr)
{
    if (!current(d))
        cu.MemFree((CUdeviceptr)(uintptr_t)ptr);
}

static oklc_status copy_in(oklc_memory *m, const void *src, size_t bytes, size_t offset)
{
    oklc_status st = current(m->dev);
    CUresult r = st ? CUDA_SUCCESS
                    : cu.MemcpyHtoD((CUdeviceptr)(uintptr_t)m->ptr + offset, src, bytes);
    if (r)
        return cu_fail(OKLC_ERR_DEVICE, r, "cuMemcpyHtoD",
                       "oklc_memory_copy_from_host: %zu bytes at offset %zu on '%s'", bytes,
                       offset, m->dev->label);
    return st;
}

static oklc_status copy_out(const oklc_memory *m, void *dst, size_t bytes, size_t offset)
{
    oklc_status st = current(m->dev);
    CUresult r = st ? CUDA_SUCCESS
                    : cu.MemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)m->ptr + offset, bytes);
    if (r)
        return cu_fail(OKLC_ERR_DEVICE, r, "cuMemcpyDtoH",
                       "oklc_memory_copy_to_host: %zu bytes at offset %zu on '%s'", bytes,
                       offset, m->dev->label);
    return st;
}

static oklc_status finish(oklc_device *d)
{
    oklc_status st = current(d);
    CUresult r = st ? CUDA_SUCCESS : cu.CtxSynchronize();
    if (r)
        return cu_fail(OKLC_ERR_DEVICE, r, "cuCtxSynchronize", "the CUDA device '%s'",
                       d->label);
    return st;
}

/* ---- building ----------------------------------------------------------------------------- */

/* sm_XY when this NVRTC compiles for it; else PTX for the newest
 * architecture it knows below the device (the driver compiles that). */
static oklc_status arch_option(const Cu *c, char option[64])
{
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
        snprintf(option, 64, "--gpu-architecture=sm_%d", arch);
    else
        snprintf(option, 64, "--gpu-architecture=compute_%d", best);
    return OKLC_OK;
}

static oklc_status device_options(const oklc_device *d, Build *b)
{
    char version[32], option[64];
    oklc_status st = oklc_rt_nvrtc_version(version);
    if (st)
        return oklc_rt_fail(st, "cannot build '%s' for the CUDA device '%s': %s", b->path,
                            d->label, oklc_last_error());
    st = arch_option(d->gpu, option);
    if (!st)
        st = oklc_rt_opt_add(b, option);
    if (!st && !(b->device_id = oklc_rt_format("%snvrtc: %s\n", d->id, version)))
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
        fprintf(stderr, "oklc: NVRTC options: %s\n", line ? line : "");
        oklc_free(line);
    }
    oklc_status st = oklc_rt_nvrtc_compile(b->source, d->ops->source_name,
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
    char *path = oklc_rt_path(dir, k->dev->ops->binary_name);
    char *binary = NULL;
    oklc_status st = path ? oklc_rt_read_file(path, &binary, NULL) : oklc_rt_oom();
    if (!st)
        st = current(k->dev);
    CUresult r;
    CUmodule module = NULL;
    if (!st && (r = cu.ModuleLoadData(&module, binary)))
        st = cu_fail(OKLC_ERR_LOAD, r, "cuModuleLoadData", "cannot load '%s'", path);
    k->module = module;
    for (int i = 0; !st && i < n; i++) {
        CUfunction f = NULL;
        if ((r = cu.ModuleGetFunction(&f, module, names[i])))
            st = cu_fail(k->nparams < 0 ? OKLC_ERR_ARGUMENT : OKLC_ERR_LOAD, r,
                         "cuModuleGetFunction", "no kernel '%s' in '%s'", names[i], path);
        k->functions[i] = f;
    }
    oklc_free(binary);
    oklc_free(path);
    return st;
}

static void unload_device(oklc_kernel *k)
{
    if (k->module && !current(k->dev))
        cu.ModuleUnload(k->module);
}

static int launch(oklc_kernel *k, int index, const size_t grid[3], const size_t block[3],
                  int nargs, void *const *args, const size_t *sizes, const char **call)
{
    (void)nargs;
    (void)sizes;
    for (int i = 0; i < 3; i++) {
        if (grid[i] > UINT_MAX || block[i] > UINT_MAX) {
            *call = "the grid or the block is more than CUDA takes (an unsigned int per axis)";
            return GPU_OWN_ERROR;
        }
    }
    Cu *c = k->dev->gpu;
    *call = "cuCtxSetCurrent";
    CUresult r = cu.CtxSetCurrent(c->context);
    if (r)
        return r;
    *call = "cuLaunchKernel";
    /* kernelParams is void **: the driver only reads the values */
    return cu.LaunchKernel(k->functions[index], (unsigned)grid[0], (unsigned)grid[1],
                           (unsigned)grid[2], (unsigned)block[0], (unsigned)block[1],
                           (unsigned)block[2], 0, NULL, (void **)args, NULL);
}

const DeviceOps oklc_cuda_ops = {
    .name = "cuda", .title = "CUDA", .backend = OKLC_BACKEND_CUDA,
    .source_name = "source.cu", .binary_name = "kernel.cubin",
    .open = open_device, .close = close_device, .alloc = alloc, .free = free_memory,
    .copy_in = copy_in, .copy_out = copy_out, .finish = finish,
    .command = oklc_gpu_command, .compile = oklc_gpu_compile, .load = oklc_gpu_load,
    .unload = oklc_gpu_unload, .run = oklc_gpu_run,
    .device_options = device_options, .build_device = build_device,
    .load_device = load_device, .unload_device = unload_device, .launch = launch,
    .error_name = error_name,
};
