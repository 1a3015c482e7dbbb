/*
 * gpu_mock.c - a stand-in for libcuda.so.1 and libamdhip64.so, so that the
 * runtime's CUDA and HIP devices (src/runtime/cuda.c, hip.c) run their
 * whole path on a machine without a GPU: one device, "memory" from malloc,
 * and a few device functions emulated on the host by name:
 *
 *   saxpy(int n, float a, const float *x, float *y)        y = a x + y
 *   _occa_axpyScale_0(int n, float a, Shift s, const float *x, float *y)
 *   _occa_axpyScale_1(...)  as tests/runtime/opencl/source.cl
 *
 * A launch reads its arguments from kernelParams as the driver would, one
 * thread at a time over grid x block. What the real driver refuses, the
 * mock refuses too: a call without the context current (CUDA), a block of
 * more than 1024 threads, a function name it does not know. The module
 * image is not looked at (the tests give real cubins and code objects
 * from NVRTC and hiprtc). Built without sanitizers: the runtime loads the
 * HIP side in a link-map namespace of its own.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct Shift {
    int   add;
    float scale;
} Shift;

typedef struct Function {
    char name[64];
} Function;

typedef struct Module {
    Function f[8];
    int      n;
} Module;

enum {
    SUCCESS = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NOT_INITIALIZED = 3,
    INVALID_CONTEXT = 201,
    NOT_FOUND = 500,
};

static int initialized;
static void *current;    /* CUDA: the context made current */
static int context = 1;  /* what the primary context's handle points to */

static const char *name_of(int r)
{
    switch (r) {
    case SUCCESS: return "SUCCESS";
    case INVALID_VALUE: return "ERROR_INVALID_VALUE";
    case OUT_OF_MEMORY: return "ERROR_OUT_OF_MEMORY";
    case NOT_INITIALIZED: return "ERROR_NOT_INITIALIZED";
    case INVALID_CONTEXT: return "ERROR_INVALID_CONTEXT";
    case NOT_FOUND: return "ERROR_NOT_FOUND";
    }
    return "ERROR_UNKNOWN";
}

/* ---- the emulated device functions ------------------------------------------------------ */

static int run(const Function *f, const unsigned grid[3], const unsigned block[3],
               void **params)
{
    if (block[0] * block[1] * block[2] > 1024 || !grid[0] || !grid[1] || !grid[2] ||
        !block[0] || !block[1] || !block[2])
        return INVALID_VALUE;
    int saxpy = !strcmp(f->name, "saxpy"), k0 = !strcmp(f->name, "_occa_axpyScale_0");
    int k1 = !strcmp(f->name, "_occa_axpyScale_1");
    const int n = *(const int *)params[0];
    const float a = *(const float *)params[1];
    const Shift s = k0 || k1 ? *(const Shift *)params[2] : (Shift){0, 0};
    const float *x = *(float *const *)params[saxpy ? 2 : 3];
    float *y = *(float *const *)params[saxpy ? 3 : 4];
    for (unsigned b = 0; b < grid[0]; b++) {
        for (unsigned ty = 0; ty < block[1]; ty++) {
            for (unsigned tx = 0; tx < block[0]; tx++) {
                int i = saxpy ? (int)(b * block[0] + tx)
                        : k0  ? 16 * (int)b + (int)tx
                              : 8 * (int)b + 4 * (int)ty + (int)tx;
                if (i >= n)
                    continue;
                if (saxpy || k0)
                    y[i] = a * x[i] + y[i];
                else
                    y[i] = y[i] * s.scale + s.add;
            }
        }
    }
    return SUCCESS;
}

/* A launch as both drivers check it: `state`, the driver's (0: it may
 * run), no dynamic shared memory, no extra parameters. */
static int launch(int state, Function *f, const unsigned grid[3], const unsigned block[3],
                  unsigned shared, void **params, void **extra)
{
    if (state)
        return state;
    if (shared || extra)
        return INVALID_VALUE;
    return run(f, grid, block, params);
}

/* "<prefix><name of r>" in one of 8 buffers used in turn (the drivers
 * return static names). */
static const char *prefixed_name(const char *prefix, int r)
{
    static char names[8][64];
    static int next;
    char *s = names[next++ % 8];
    strcpy(s, prefix);
    strcat(s, name_of(r));
    return s;
}

static int load(Module **m, const void *image)
{
    if (!image)
        return INVALID_VALUE;
    *m = calloc(1, sizeof **m);
    return *m ? SUCCESS : OUT_OF_MEMORY;
}

static int get_function(Function **f, Module *m, const char *name)
{
    static const char *const known[] = {"saxpy", "_occa_axpyScale_0", "_occa_axpyScale_1"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        if (strcmp(name, known[i]) || m->n == 8)
            continue;
        Function *fn = &m->f[m->n++];
        strcpy(fn->name, name);
        *f = fn;
        return SUCCESS;
    }
    return NOT_FOUND;
}

/* ---- CUDA ------------------------------------------------------------------------------------- */

#define CU(r) (initialized ? (current == &context ? (r) : INVALID_CONTEXT) : NOT_INITIALIZED)

EXPORT int cuInit(unsigned flags)
{
    initialized = flags == 0;
    return flags ? INVALID_VALUE : SUCCESS;
}
EXPORT int cuDriverGetVersion(int *v) { *v = 13000; return SUCCESS; }
EXPORT int cuDeviceGetCount(int *n) { *n = 1; return initialized ? SUCCESS : NOT_INITIALIZED; }
EXPORT int cuDeviceGet(int *d, int i) { *d = i; return i == 0 ? SUCCESS : INVALID_VALUE; }
EXPORT int cuDeviceGetName(char *name, int len, int d)
{
    (void)d;
    strncpy(name, "Mock GPU", (size_t)len);
    return SUCCESS;
}
/* Attributes as an H200 gives them (compute capability 9.0), by the
 * vendor's numbers: CUdevice_attribute, hipDeviceAttribute_t. */
static int attribute(int *v, int attr, int d, const int numbers[8])
{
    static const int values[8] = {9, 0, 132, 1024, 1024, 1024, 64, 49152};
    for (int i = 0; i < 8; i++)
        if (numbers[i] == attr) {
            *v = values[i];
            return d == 0 ? SUCCESS : INVALID_VALUE;
        }
    return INVALID_VALUE;
}
EXPORT int cuDeviceGetAttribute(int *v, int attr, int d)
{
    static const int cu_numbers[8] = {75, 76, 16, 1, 2, 3, 4, 8};
    return attribute(v, attr, d, cu_numbers);
}
EXPORT int cuDeviceTotalMem_v2(size_t *bytes, int d)
{
    *bytes = (size_t)141 << 30;
    return d == 0 ? CU(SUCCESS) : INVALID_VALUE;
}
EXPORT int cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    *free_bytes = (size_t)140 << 30, *total = (size_t)141 << 30;
    return current ? CU(SUCCESS) : INVALID_VALUE;
}
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int d)
{
    (void)d;
    *ctx = &context;
    return SUCCESS;
}
EXPORT int cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return SUCCESS; }
EXPORT int cuCtxSetCurrent(void *ctx)
{
    current = ctx;
    return SUCCESS;
}
EXPORT int cuCtxSynchronize(void) { return CU(SUCCESS); }
EXPORT int cuMemAlloc_v2(unsigned long long *p, size_t n)
{
    if (CU(0))
        return CU(0);
    if (!n)
        return INVALID_VALUE;
    void *m = malloc(n);
    *p = (uintptr_t)m;
    return m ? SUCCESS : OUT_OF_MEMORY;
}
EXPORT int cuMemFree_v2(unsigned long long p)
{
    free((void *)(uintptr_t)p);
    return CU(SUCCESS);
}
static int cu_copy(void *dst, const void *src, size_t n)
{
    if (!CU(0))
        memcpy(dst, src, n);
    return CU(SUCCESS);
}
EXPORT int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n)
{
    return cu_copy((void *)(uintptr_t)dst, src, n);
}
EXPORT int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n)
{
    return cu_copy(dst, (const void *)(uintptr_t)src, n);
}
EXPORT int cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t n)
{
    if (!CU(0))
        memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CU(SUCCESS);
}
EXPORT int cuMemAllocHost_v2(void **p, size_t n)
{
    if (CU(0))
        return CU(0);
    *p = malloc(n);
    return *p ? SUCCESS : OUT_OF_MEMORY;
}
EXPORT int cuMemFreeHost(void *p)
{
    free(p);
    return SUCCESS;
}
/* Streams run their work at once (in order, as a stream must); an event
 * is the time it was recorded. */
static int stream_count;
static int new_stream(void **s)
{
    *s = malloc(1);
    stream_count += *s != NULL;
    return *s ? SUCCESS : OUT_OF_MEMORY;
}
static int destroy_stream(void *s)
{
    stream_count -= s != NULL;
    free(s);
    return SUCCESS;
}
static int new_event(double **e)
{
    *e = malloc(sizeof **e);
    return *e ? SUCCESS : OUT_OF_MEMORY;
}
static int record_event(double *e)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    *e = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
    return SUCCESS;
}
static int elapsed(float *ms, const double *a, const double *b)
{
    *ms = (float)((*b - *a) * 1e3);
    return SUCCESS;
}
EXPORT int cuStreamCreate(void **s, unsigned flags) { (void)flags; return CU(0) ? CU(0) : new_stream(s); }
EXPORT int cuStreamDestroy_v2(void *s) { return destroy_stream(s); }
EXPORT int cuStreamSynchronize(void *s) { (void)s; return CU(SUCCESS); }
EXPORT int cuEventCreate(double **e, unsigned flags) { (void)flags; return CU(0) ? CU(0) : new_event(e); }
EXPORT int cuEventRecord(double *e, void *s) { (void)s; return CU(0) ? CU(0) : record_event(e); }
EXPORT int cuEventSynchronize(double *e) { (void)e; return CU(SUCCESS); }
EXPORT int cuEventElapsedTime(float *ms, double *a, double *b) { return CU(0) ? CU(0) : elapsed(ms, a, b); }
EXPORT int cuEventDestroy_v2(double *e) { free(e); return SUCCESS; }
EXPORT int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src, size_t n, void *s)
{
    (void)s;
    return cu_copy((void *)(uintptr_t)dst, src, n);
}
EXPORT int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t n, void *s)
{
    (void)s;
    return cu_copy(dst, (const void *)(uintptr_t)src, n);
}
EXPORT int cuModuleLoadData(Module **m, const void *image)
{
    return CU(0) ? CU(0) : load(m, image);
}
EXPORT int cuModuleGetFunction(Function **f, Module *m, const char *name)
{
    return get_function(f, m, name);
}
EXPORT int cuModuleUnload(Module *m)
{
    free(m);
    return CU(SUCCESS);
}
EXPORT int cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shared, void *stream,
                          void **params, void **extra)
{
    (void)stream;
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    return launch(CU(0), f, grid, block, shared, params, extra);
}
EXPORT int cuGetErrorName(int r, const char **name)
{
    *name = prefixed_name("CUDA_", r);
    return SUCCESS;
}

/* ---- HIP ---------------------------------------------------------------------------------------- */

static int device = -1;    /* hipSetDevice */

#define HIP(r) (initialized ? (device == 0 ? (r) : INVALID_CONTEXT) : NOT_INITIALIZED)

EXPORT int hipInit(unsigned flags)
{
    initialized = flags == 0;
    return flags ? INVALID_VALUE : SUCCESS;
}
EXPORT int hipDriverGetVersion(int *v) { *v = 50000000; return SUCCESS; }
EXPORT int hipRuntimeGetVersion(int *v) { *v = 50200000; return SUCCESS; }
EXPORT int hipGetDeviceCount(int *n) { *n = 1; return initialized ? SUCCESS : NOT_INITIALIZED; }
EXPORT int hipSetDevice(int d)
{
    device = d;
    return d == 0 ? SUCCESS : INVALID_VALUE;
}
/* name first, gcnArchName somewhere after it (ROCm 5.2: at 1160) */
EXPORT int hipGetDeviceProperties(char *props, int d)
{
    if (d != 0)
        return INVALID_VALUE;
    strcpy(props, "Mock AMD GPU");
    props[1159] = '\0';
    strcpy(props + 1160, "gfx90a:sramecc+:xnack-");
    return SUCCESS;
}
EXPORT int hipDeviceGetAttribute(int *v, int attr, int d)
{
    static const int hip_numbers[8] = {-1, -1, 63, 56, 26, 27, 28, 74};
    return HIP(0) ? HIP(0) : attribute(v, attr, d, hip_numbers);
}
EXPORT int hipDeviceTotalMem(size_t *bytes, int d)
{
    *bytes = (size_t)64 << 30;
    return d == 0 ? SUCCESS : INVALID_VALUE;
}
EXPORT int hipMemGetInfo(size_t *free_bytes, size_t *total)
{
    *free_bytes = (size_t)60 << 30, *total = (size_t)64 << 30;
    return SUCCESS;
}
EXPORT int hipMalloc(void **p, size_t n)
{
    if (HIP(0))
        return HIP(0);
    *p = n ? malloc(n) : NULL;
    return *p || !n ? SUCCESS : OUT_OF_MEMORY;
}
EXPORT int hipFree(void *p)
{
    free(p);
    return SUCCESS;
}
/* Static: within the namespace the runtime loads HIP into, an exported
 * name may bind to the real libamdhip64's, loaded there before. */
static int hip_copy(void *dst, const void *src, size_t n, int kind)
{
    if (HIP(0))
        return HIP(0);
    if (kind < 1 || kind > 3)
        return INVALID_VALUE;
    memcpy(dst, src, n);
    return SUCCESS;
}
EXPORT int hipMemcpy(void *dst, const void *src, size_t n, int kind)
{
    return hip_copy(dst, src, n, kind);
}
EXPORT int hipHostMalloc(void **p, size_t n, unsigned flags)
{
    if (HIP(0) || flags)
        return HIP(0) ? HIP(0) : INVALID_VALUE;
    *p = malloc(n);
    return *p ? SUCCESS : OUT_OF_MEMORY;
}
EXPORT int hipHostFree(void *p)
{
    free(p);
    return SUCCESS;
}
EXPORT int hipStreamCreateWithFlags(void **s, unsigned flags) { (void)flags; return HIP(0) ? HIP(0) : new_stream(s); }
EXPORT int hipStreamDestroy(void *s) { return destroy_stream(s); }
EXPORT int hipStreamSynchronize(void *s) { (void)s; return HIP(SUCCESS); }
EXPORT int hipEventCreateWithFlags(double **e, unsigned flags) { (void)flags; return HIP(0) ? HIP(0) : new_event(e); }
EXPORT int hipEventRecord(double *e, void *s) { (void)s; return HIP(0) ? HIP(0) : record_event(e); }
EXPORT int hipEventSynchronize(double *e) { (void)e; return HIP(SUCCESS); }
EXPORT int hipEventElapsedTime(float *ms, double *a, double *b) { return HIP(0) ? HIP(0) : elapsed(ms, a, b); }
EXPORT int hipEventDestroy(double *e) { free(e); return SUCCESS; }
EXPORT int hipMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *s)
{
    (void)s;
    return hip_copy(dst, src, n, kind);
}
EXPORT int hipDeviceSynchronize(void) { return HIP(SUCCESS); }
EXPORT int hipModuleLoadData(Module **m, const void *image)
{
    return HIP(0) ? HIP(0) : load(m, image);
}
EXPORT int hipModuleGetFunction(Function **f, Module *m, const char *name)
{
    return get_function(f, m, name);
}
EXPORT int hipModuleUnload(Module *m)
{
    free(m);
    return SUCCESS;
}
EXPORT int hipModuleLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                 void *stream, void **params, void **extra)
{
    (void)stream;
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    return launch(HIP(0), f, grid, block, shared, params, extra);
}
EXPORT const char *hipGetErrorName(int r)
{
    return prefixed_name("hip", r);
}
