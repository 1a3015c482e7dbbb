/*
 * opencl.c - the OpenCL device: the ICD loader (libOpenCL.so.1) opened with
 * dlopen, one platform and device chosen by index or by name, a context
 * and an in-order queue on it.
 *
 * Spec: "opencl", "mode=opencl platform=0 device=0". platform= and device=
 * take an index, or a case-insensitive part of the name (for a platform,
 * of its name or its vendor: "platform=pocl" is "The pocl project"'s).
 * Without platform=, the first platform that has a device (a device= name
 * is then looked for on every platform in turn); without device=, the
 * platform's first device.
 *
 * Memory is a cl_mem (struct oklc_memory's ptr); copies are blocking
 * writes and reads at an offset on the device's queue, so they are ordered
 * after the kernels queued before them. Programs are built with
 * clBuildProgram from source at the first build, and the device's binary
 * (CL_PROGRAM_BINARIES) kept in the cache entry with the build options
 * (options.txt); a load builds from that binary, or from the source when
 * the implementation refuses it (another driver version, another device).
 * A kernel's arguments live in its cl_kernel, so one oklc_kernel runs from
 * one thread at a time (a mutex per kernel: clSetKernelArg + enqueue).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rt.h"

enum { CL_PLATFORM_NOT_FOUND_KHR = -1001 };    /* cl_khr_icd: the loader found none */

/* The functions we use, through dlsym (the loader is never linked). */
static struct ClApi {
    cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*GetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
    cl_int (*GetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *,
                           cl_uint *);
    cl_int (*GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    cl_context (*CreateContext)(const cl_context_properties *, cl_uint, const cl_device_id *,
                                void (*)(const char *, const void *, size_t, void *), void *,
                                cl_int *);
    cl_int (*ReleaseContext)(cl_context);
    cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id,
                                           cl_command_queue_properties, cl_int *);
    cl_int (*ReleaseCommandQueue)(cl_command_queue);
    cl_mem (*CreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    cl_int (*ReleaseMemObject)(cl_mem);
    cl_mem (*CreateSubBuffer)(cl_mem, cl_mem_flags, cl_buffer_create_type, const void *,
                              cl_int *);
    cl_int (*EnqueueCopyBuffer)(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t,
                                cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueMarkerWithWaitList)(cl_command_queue, cl_uint, const cl_event *,
                                        cl_event *);
    cl_int (*WaitForEvents)(cl_uint, const cl_event *);
    cl_int (*GetEventProfilingInfo)(cl_event, cl_profiling_info, size_t, void *, size_t *);
    cl_int (*ReleaseEvent)(cl_event);
    cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t,
                                 const void *, cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *,
                                cl_uint, const cl_event *, cl_event *);
    cl_int (*Finish)(cl_command_queue);
    cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *,
                                          cl_int *);
    cl_program (*CreateProgramWithBinary)(cl_context, cl_uint, const cl_device_id *,
                                          const size_t *, const unsigned char **, cl_int *,
                                          cl_int *);
    cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *,
                           void (*)(cl_program, void *), void *);
    cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_program_build_info, size_t,
                                  void *, size_t *);
    cl_int (*GetProgramInfo)(cl_program, cl_program_info, size_t, void *, size_t *);
    cl_int (*ReleaseProgram)(cl_program);
    cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
    cl_int (*ReleaseKernel)(cl_kernel);
    cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                   const size_t *, const size_t *, cl_uint, const cl_event *,
                                   cl_event *);
} cl;

#define SYM(f) {"cl" #f, offsetof(struct ClApi, f), false}
static const DlSym syms[] = {
    SYM(GetPlatformIDs), SYM(GetPlatformInfo), SYM(GetDeviceIDs), SYM(GetDeviceInfo),
    SYM(CreateContext), SYM(ReleaseContext), SYM(CreateCommandQueue),
    SYM(ReleaseCommandQueue), SYM(CreateBuffer), SYM(ReleaseMemObject),
    SYM(CreateSubBuffer), SYM(EnqueueCopyBuffer), SYM(EnqueueMarkerWithWaitList),
    SYM(WaitForEvents), SYM(GetEventProfilingInfo), SYM(ReleaseEvent),
    SYM(EnqueueWriteBuffer), SYM(EnqueueReadBuffer), SYM(Finish),
    SYM(CreateProgramWithSource), SYM(CreateProgramWithBinary), SYM(BuildProgram),
    SYM(GetProgramBuildInfo), SYM(GetProgramInfo), SYM(ReleaseProgram), SYM(CreateKernel),
    SYM(ReleaseKernel), SYM(SetKernelArg), SYM(EnqueueNDRangeKernel),
};
#undef SYM

static const char *const cl_names[] = {"libOpenCL.so.1", "libOpenCL.so"};
static DlSwap library = {.vendor = {.what = "the OpenCL ICD loader", .ns = "opencl"},
                         .stand_in = {.what = "the OpenCL ICD loader", .ns = "opencl"},
                         .names = cl_names, .nnames = OKLC_COUNTOF(cl_names), .syms = syms,
                         .nsyms = OKLC_COUNTOF(syms), .table = &cl};

void oklc_rt_opencl_library(const char *name)
{
    oklc_rt_dl_swap(&library, name);
}

/* ---- errors ------------------------------------------------------------------------ */

static const char *error_name(int code)
{
    static const struct {
        int         code;
        const char *name;
    } names[] = {
        {0, "CL_SUCCESS"},
        {-1, "CL_DEVICE_NOT_FOUND"},
        {-2, "CL_DEVICE_NOT_AVAILABLE"},
        {-3, "CL_COMPILER_NOT_AVAILABLE"},
        {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {-5, "CL_OUT_OF_RESOURCES"},
        {-6, "CL_OUT_OF_HOST_MEMORY"},
        {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
        {-8, "CL_MEM_COPY_OVERLAP"},
        {-9, "CL_IMAGE_FORMAT_MISMATCH"},
        {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
        {-11, "CL_BUILD_PROGRAM_FAILURE"},
        {-12, "CL_MAP_FAILURE"},
        {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
        {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
        {-15, "CL_COMPILE_PROGRAM_FAILURE"},
        {-16, "CL_LINKER_NOT_AVAILABLE"},
        {-17, "CL_LINK_PROGRAM_FAILURE"},
        {-18, "CL_DEVICE_PARTITION_FAILED"},
        {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
        {-30, "CL_INVALID_VALUE"},
        {-31, "CL_INVALID_DEVICE_TYPE"},
        {-32, "CL_INVALID_PLATFORM"},
        {-33, "CL_INVALID_DEVICE"},
        {-34, "CL_INVALID_CONTEXT"},
        {-35, "CL_INVALID_QUEUE_PROPERTIES"},
        {-36, "CL_INVALID_COMMAND_QUEUE"},
        {-37, "CL_INVALID_HOST_PTR"},
        {-38, "CL_INVALID_MEM_OBJECT"},
        {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
        {-40, "CL_INVALID_IMAGE_SIZE"},
        {-41, "CL_INVALID_SAMPLER"},
        {-42, "CL_INVALID_BINARY"},
        {-43, "CL_INVALID_BUILD_OPTIONS"},
        {-44, "CL_INVALID_PROGRAM"},
        {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {-46, "CL_INVALID_KERNEL_NAME"},
        {-47, "CL_INVALID_KERNEL_DEFINITION"},
        {-48, "CL_INVALID_KERNEL"},
        {-49, "CL_INVALID_ARG_INDEX"},
        {-50, "CL_INVALID_ARG_VALUE"},
        {-51, "CL_INVALID_ARG_SIZE"},
        {-52, "CL_INVALID_KERNEL_ARGS"},
        {-53, "CL_INVALID_WORK_DIMENSION"},
        {-54, "CL_INVALID_WORK_GROUP_SIZE"},
        {-55, "CL_INVALID_WORK_ITEM_SIZE"},
        {-56, "CL_INVALID_GLOBAL_OFFSET"},
        {-57, "CL_INVALID_EVENT_WAIT_LIST"},
        {-58, "CL_INVALID_EVENT"},
        {-59, "CL_INVALID_OPERATION"},
        {-60, "CL_INVALID_GL_OBJECT"},
        {-61, "CL_INVALID_BUFFER_SIZE"},
        {-62, "CL_INVALID_MIP_LEVEL"},
        {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
        {-64, "CL_INVALID_PROPERTY"},
        {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
        {-66, "CL_INVALID_COMPILER_OPTIONS"},
        {-67, "CL_INVALID_LINKER_OPTIONS"},
        {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
        {-69, "CL_INVALID_PIPE_SIZE"},
        {-70, "CL_INVALID_DEVICE_QUEUE"},
        {-71, "CL_INVALID_SPEC_ID"},
        {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
        {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    };
    for (size_t i = 0; i < OKLC_COUNTOF(names); i++)
        if (names[i].code == code)
            return names[i].name;
    return "an unknown OpenCL error";
}

/* cl_fail(st, err, call, fmt, ...): "<fmt ...>: clFinish: CL_OUT_OF_RESOURCES
 * (-5)" as the message, with context. */
#define cl_fail(...) oklc_gpu_fail(&oklc_opencl_ops, __VA_ARGS__)

/* Running out of memory, on the device or the host, is OKLC_ERR_MEMORY. */
static oklc_status memory_status(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                   err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE
               ? OKLC_ERR_MEMORY
               : OKLC_ERR_DEVICE;
}

/* ---- platforms and devices ----------------------------------------------------------- */

typedef struct Cl {
    cl_platform_id   platform;
    cl_device_id     device;
    cl_context       context;
    cl_command_queue queue;
} Cl;

/* A string property of device d, else (d NULL) of platform p; "?" when
 * it cannot be read. */
static char *info(cl_platform_id p, cl_device_id d, cl_uint what)
{
    size_t n = 0;
    cl_int err = d ? cl.GetDeviceInfo(d, what, 0, NULL, &n)
                   : cl.GetPlatformInfo(p, what, 0, NULL, &n);
    if (err != CL_SUCCESS)
        return oklc_rt_strdup("?");
    char *s = oklc_malloc(n + 1);
    if (s)
        err = d ? cl.GetDeviceInfo(d, what, n, s, NULL) : cl.GetPlatformInfo(p, what, n, s, NULL);
    if (s)
        s[err == CL_SUCCESS ? n : 0] = '\0';
    return s;
}

/* The devices of a platform (oklc_free *list); none is not an error. */
static oklc_status devices_of(cl_platform_id p, cl_device_id **list, cl_uint *n)
{
    *list = NULL;
    *n = 0;
    cl_int err = cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, n);
    if (err == CL_DEVICE_NOT_FOUND || (!err && !*n)) {
        *n = 0;
        return OKLC_OK;
    }
    if (err)
        return cl_fail(OKLC_ERR_DEVICE, err, "clGetDeviceIDs", "listing OpenCL devices");
    *list = oklc_malloc(*n * sizeof **list);
    if (!*list)
        return oklc_rt_oom();
    err = cl.GetDeviceIDs(p, CL_DEVICE_TYPE_ALL, *n, *list, NULL);
    if (err) {
        oklc_free(*list);
        *list = NULL;
        return cl_fail(OKLC_ERR_DEVICE, err, "clGetDeviceIDs", "listing OpenCL devices");
    }
    return OKLC_OK;
}

static bool is_index(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 9;
}

/* A case-insensitive part of the name. */
static bool name_matches(const char *name, const char *part)
{
    size_t n = strlen(part);
    for (const char *s = name; *s; s++)
        if (!strncasecmp(s, part, n))
            return true;
    return !n;
}

/* "0 'Portable Computing Language', 1 '...'" or, for devices of every
 * platform, "platform 0: 0 'pthread-...'" (malloc'd: free it). */
static char *list_platforms(const cl_platform_id *ps, cl_uint np, bool devices)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    for (cl_uint i = 0; i < np; i++) {
        char *name = info(ps[i], NULL, CL_PLATFORM_NAME);
        fprintf(f, "%s%u '%s'", i ? ", " : "", i, name ? name : "?");
        oklc_free(name);
        if (!devices)
            continue;
        cl_device_id *ds;
        cl_uint nd;
        if (devices_of(ps[i], &ds, &nd))
            nd = 0;
        fprintf(f, ": devices");
        for (cl_uint j = 0; j < nd; j++) {
            char *dn = info(NULL, ds[j], CL_DEVICE_NAME);
            fprintf(f, " %u '%s'", j, dn ? dn : "?");
            oklc_free(dn);
        }
        if (!nd)
            fprintf(f, " none");
        oklc_free(ds);
    }
    fclose(f);
    return text;
}

static oklc_status no_match(oklc_status status, const Spec *s, const cl_platform_id *ps,
                            cl_uint np, const char *what, bool devices)
{
    char *list = list_platforms(ps, np, devices);
    oklc_status st = oklc_rt_fail(status, "device spec '%s': %s (platforms: %s)", s->text, what,
                                  list ? list : "?");
    free(list);    /* open_memstream's memory comes from malloc */
    return st;
}

/* The device spec's device= on platform p; *found is false when none matches. */
static oklc_status pick_device(const Spec *s, cl_platform_id p, cl_device_id *out, bool *found)
{
    cl_device_id *ds;
    cl_uint nd;
    oklc_status st = devices_of(p, &ds, &nd);
    *found = false;
    for (cl_uint i = 0; !st && i < nd && !*found; i++) {
        char *name = NULL;
        if (!s->device)
            *found = true;
        else if (is_index(s->device))
            *found = strtoul(s->device, NULL, 10) == i;
        else if (!(name = info(NULL, ds[i], CL_DEVICE_NAME)))
            st = oklc_rt_oom();
        else
            *found = name_matches(name, s->device);
        oklc_free(name);
        if (*found)
            *out = ds[i];
    }
    oklc_free(ds);
    return st;
}

static oklc_status pick_platform(const Spec *s, const cl_platform_id *ps, cl_uint np,
                                 cl_uint *out)
{
    if (is_index(s->platform)) {
        *out = (cl_uint)strtoul(s->platform, NULL, 10);
        if (*out < np)
            return OKLC_OK;
        char what[128];
        snprintf(what, sizeof what, "there is no OpenCL platform %s", s->platform);
        return no_match(OKLC_ERR_ARGUMENT, s, ps, np, what, false);
    }
    for (cl_uint i = 0; i < np; i++) {
        char *name = info(ps[i], NULL, CL_PLATFORM_NAME);
        char *vendor = info(ps[i], NULL, CL_PLATFORM_VENDOR);
        bool ok = name && vendor &&
                  (name_matches(name, s->platform) || name_matches(vendor, s->platform));
        oklc_free(name);
        oklc_free(vendor);
        if (!name || !vendor)
            return oklc_rt_oom();
        if (ok) {
            *out = i;
            return OKLC_OK;
        }
    }
    char *what = oklc_rt_format("no OpenCL platform's name or vendor contains '%s'",
                                s->platform);
    oklc_status st = what ? no_match(OKLC_ERR_ARGUMENT, s, ps, np, what, false)
                          : oklc_rt_oom();
    oklc_free(what);
    return st;
}

static oklc_status has_devices(cl_platform_id p, bool *yes)
{
    cl_device_id *ds;
    cl_uint nd;
    oklc_status st = devices_of(p, &ds, &nd);
    oklc_free(ds);
    *yes = !st && nd;
    return st;
}

/* platform= or the platforms to look on, then device= on them. */
static oklc_status choose(const Spec *s, const cl_platform_id *ps, cl_uint np, Cl *c)
{
    bool by_name = s->device && !is_index(s->device), yes = false;
    cl_uint first = 0, last = np;
    oklc_status st = OKLC_OK;
    if (s->platform) {
        st = pick_platform(s, ps, np, &first);
        last = first + 1;
    } else if (!by_name) {    /* the first platform that has a device */
        for (first = 0; !st && first < np && !yes; first += !yes)
            st = has_devices(ps[first], &yes);
        if (!st && !yes)
            return no_match(OKLC_ERR_UNAVAILABLE, s, ps, np, "no OpenCL platform has a device",
                            true);
        last = first + 1;
    }
    for (cl_uint i = first; !st && i < last; i++) {
        bool found;
        st = pick_device(s, ps[i], &c->device, &found);
        if (!st && found) {
            c->platform = ps[i];
            return OKLC_OK;
        }
    }
    if (st)
        return st;
    char *what;
    if (!s->device)
        what = oklc_rt_format("OpenCL platform %u has no device", first);
    else if (by_name && s->platform)
        what = oklc_rt_format("no device's name on OpenCL platform %u contains '%s'", first,
                              s->device);
    else if (by_name)
        what = oklc_rt_format("no OpenCL device's name contains '%s'", s->device);
    else
        what = oklc_rt_format("there is no device %s on OpenCL platform %u", s->device, first);
    st = what ? no_match(s->device ? OKLC_ERR_ARGUMENT : OKLC_ERR_UNAVAILABLE, s, ps, np, what,
                         true)
              : oklc_rt_oom();
    oklc_free(what);
    return st;
}

/* The device's name (for messages) and all that makes its binaries (for
 * the cache key: a binary is the device's and its driver's). */
static oklc_status describe(oklc_device *d, const Cl *c)
{
    char *pn = info(c->platform, NULL, CL_PLATFORM_NAME);
    char *pv = info(c->platform, NULL, CL_PLATFORM_VERSION);
    char *dn = info(NULL, c->device, CL_DEVICE_NAME);
    char *dv = info(NULL, c->device, CL_DEVICE_VERSION);
    char *vendor = info(NULL, c->device, CL_DEVICE_VENDOR);
    char *driver = info(NULL, c->device, CL_DRIVER_VERSION);
    oklc_status st = pn && pv && dn && dv && vendor && driver ? OKLC_OK : oklc_rt_oom();
    if (!st) {
        d->label = oklc_rt_strdup(dn);
        d->id = oklc_rt_format("opencl\nplatform: %s\nplatform version: %s\ndevice: %s\n"
                               "device version: %s\nvendor: %s\ndriver: %s\n", pn, pv, dn,
                               dv, vendor, driver);
        st = d->label && d->id ? OKLC_OK : oklc_rt_oom();
    }
    oklc_free(pn), oklc_free(pv), oklc_free(dn), oklc_free(dv), oklc_free(vendor);
    oklc_free(driver);
    cl_uint bits = 0;    /* a sub-buffer's origin is a multiple of it */
    if (!st && !cl.GetDeviceInfo(c->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits,
                                 NULL))
        d->view_align = bits / 8;
    return st;
}

static oklc_status create(oklc_device *d, Cl *c)
{
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c->platform,
                                     0};
    c->context = cl.CreateContext(props, 1, &c->device, NULL, NULL, &err);
    if (!c->context)
        return cl_fail(OKLC_ERR_DEVICE, err, "clCreateContext", "the OpenCL device '%s'",
                       d->label);
    /* profiling: the time between two events (oklc_event_elapsed) */
    c->queue = cl.CreateCommandQueue(c->context, c->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!c->queue)
        return cl_fail(OKLC_ERR_DEVICE, err, "clCreateCommandQueue", "the OpenCL device '%s'",
                       d->label);
    return OKLC_OK;
}

static void close_device(oklc_device *d)
{
    Cl *c = d->gpu;
    if (!c)
        return;
    if (c->queue) {
        cl.Finish(c->queue);
        cl.ReleaseCommandQueue(c->queue);
    }
    if (c->context)
        cl.ReleaseContext(c->context);
    oklc_free(c);
    d->gpu = NULL;
}

static oklc_status open_device(oklc_device *d, const Spec *s)
{
    if (s->threads)
        return oklc_rt_fail(OKLC_ERR_ARGUMENT,
                            "device spec '%s': 'threads' does not apply to the opencl device",
                            s->text);
    if (oklc_rt_dl_load_swap(&library))
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the OpenCL device is not "
                            "available: %s", s->text, oklc_last_error());
    cl_uint np = 0;
    cl_int err = cl.GetPlatformIDs(0, NULL, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (!err && !np))
        return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the OpenCL device is not "
                            "available: no OpenCL platform is installed (the ICD loader found "
                            "no implementation in /etc/OpenCL/vendors)", s->text);
    if (err)
        return cl_fail(OKLC_ERR_UNAVAILABLE, err, "clGetPlatformIDs", "device spec '%s'",
                       s->text);
    cl_platform_id *ps = oklc_malloc(np * sizeof *ps);
    Cl *c = oklc_gpu_state(d, sizeof *c);
    oklc_status st = ps && c ? OKLC_OK : oklc_rt_oom();
    if (!st && (err = cl.GetPlatformIDs(np, ps, NULL)))
        st = cl_fail(OKLC_ERR_UNAVAILABLE, err, "clGetPlatformIDs", "device spec '%s'",
                     s->text);
    if (!st)
        st = choose(s, ps, np, c);
    if (!st)
        st = describe(d, c);
    if (!st)
        st = create(d, c);
    if (st)
        close_device(d);
    oklc_free(ps);
    return st;
}

/* ---- memory ---------------------------------------------------------------------------- */

static oklc_status alloc(oklc_device *d, size_t bytes, void **ptr)
{
    Cl *c = d->gpu;
    cl_int err;
    cl_mem m = cl.CreateBuffer(c->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    if (!m)
        return cl_fail(memory_status(err), err, "clCreateBuffer",
                       "cannot allocate %zu bytes on the OpenCL device '%s'", bytes, d->label);
    *ptr = m;
    return OKLC_OK;
}

static void free_memory(oklc_device *d, void *ptr)
{
    (void)d;
    cl.ReleaseMemObject(ptr);
}

/* The current stream's queue. */
static cl_command_queue queue_of(const oklc_device *d)
{
    void *s = oklc_rt_stream(d);
    return s ? (cl_command_queue)s : ((const Cl *)d->gpu)->queue;
}

/* DeviceOps.copy */
static oklc_status copy(const oklc_memory *m, const void *src, void *dst, size_t bytes,
                        size_t offset, bool wait)
{
    cl_command_queue q = queue_of(m->dev);
    cl_bool block = wait ? CL_TRUE : CL_FALSE;
    cl_int err = src ? cl.EnqueueWriteBuffer(q, m->ptr, block, offset, bytes, src, 0, NULL, NULL)
                     : cl.EnqueueReadBuffer(q, m->ptr, block, offset, bytes, dst, 0, NULL, NULL);
    if (err)
        return cl_fail(memory_status(err), err,
                       src ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer",
                       "%s: %zu bytes at offset %zu on '%s'",
                       src ? "oklc_memory_copy_from_host" : "oklc_memory_copy_to_host", bytes,
                       offset, m->dev->label);
    return OKLC_OK;
}

/* DeviceOps.query: OpenCL says no free memory (0). */
static oklc_status query(oklc_device *d, oklc_device_info *out)
{
    Cl *c = d->gpu;
    cl_uint units = 0;
    cl_ulong global = 0, local = 0;
    size_t group = 0, items[3] = {0, 0, 0};
    cl_int err;
    char *vendor = info(NULL, c->device, CL_DEVICE_VENDOR);
    char *version = info(NULL, c->device, CL_DEVICE_VERSION);
    if (!vendor || !version) {
        oklc_free(vendor), oklc_free(version);
        return oklc_rt_oom();
    }
    snprintf(out->vendor, sizeof out->vendor, "%s", vendor);
    snprintf(out->arch, sizeof out->arch, "%s", version);
    oklc_free(vendor), oklc_free(version);
    if ((err = cl.GetDeviceInfo(c->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                                NULL)) ||
        (err = cl.GetDeviceInfo(c->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global,
                                NULL)) ||
        (err = cl.GetDeviceInfo(c->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local,
                                NULL)) ||
        (err = cl.GetDeviceInfo(c->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof group, &group,
                                NULL)) ||
        (err = cl.GetDeviceInfo(c->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items,
                                NULL)))
        return cl_fail(OKLC_ERR_DEVICE, err, "clGetDeviceInfo", "oklc_device_query: '%s'",
                       d->label);
    out->compute_units = (int)units;
    out->memory_total = global;
    out->shared_memory = local;
    out->max_block_threads = group;
    for (int i = 0; i < 3; i++)
        out->max_block_dims[i] = items[i];
    return OKLC_OK;
}

/* DeviceOps.view: a sub-buffer (0 bytes: none, a NULL buffer) */
static oklc_status view(const oklc_memory *root, size_t offset, size_t bytes, void **ptr)
{
    cl_buffer_region region = {offset, bytes};
    cl_int err = CL_SUCCESS;
    *ptr = bytes ? cl.CreateSubBuffer(root->ptr, CL_MEM_READ_WRITE,
                                      CL_BUFFER_CREATE_TYPE_REGION, &region, &err)
                 : NULL;
    if (bytes && !*ptr)
        return cl_fail(memory_status(err), err, "clCreateSubBuffer", "oklc_memory_view: "
                       "%zu bytes at offset %zu on '%s'", bytes, offset, root->dev->label);
    return OKLC_OK;
}

/* DeviceOps.copy_device, waited for as the host's copies are */
static oklc_status copy_device(const oklc_memory *dst, size_t dst_offset,
                               const oklc_memory *src, size_t src_offset, size_t bytes)
{
    Cl *c = dst->dev->gpu;
    const char *call = "clEnqueueCopyBuffer";
    cl_int err = cl.EnqueueCopyBuffer(c->queue, src->ptr, dst->ptr, src_offset, dst_offset,
                                      bytes, 0, NULL, NULL);
    if (!err && (err = cl.Finish(c->queue)))
        call = "clFinish";
    if (err)
        return cl_fail(memory_status(err), err, call, "oklc_memory_copy: %zu bytes on '%s'",
                       bytes, dst->dev->label);
    return OKLC_OK;
}

static oklc_status finish(oklc_device *d)
{
    Cl *c = d->gpu;
    cl_int err = cl.Finish(c->queue);
    if (err)
        return cl_fail(OKLC_ERR_DEVICE, err, "clFinish", "the OpenCL device '%s'", d->label);
    return OKLC_OK;
}

/* ---- streams: a command queue each, with profiling ------------------------------------ */

static oklc_status stream_new(oklc_device *d, void **stream)
{
    Cl *c = d->gpu;
    cl_int err;
    *stream = cl.CreateCommandQueue(c->context, c->device, CL_QUEUE_PROFILING_ENABLE, &err);
    return *stream ? OKLC_OK
                   : cl_fail(OKLC_ERR_DEVICE, err, "clCreateCommandQueue", "oklc_stream_create "
                             "on '%s'", d->label);
}

static void stream_free(oklc_device *d, void *stream)
{
    (void)d;
    cl.Finish(stream);
    cl.ReleaseCommandQueue(stream);
}

static oklc_status stream_finish(oklc_device *d, void *stream)
{
    cl_int err = cl.Finish(stream ? (cl_command_queue)stream : ((Cl *)d->gpu)->queue);
    return err ? cl_fail(OKLC_ERR_DEVICE, err, "clFinish", "oklc_stream_finish on '%s'",
                         d->label)
               : OKLC_OK;
}

static oklc_status event_record(oklc_device *d, void *stream, void **event)
{
    cl_event e = NULL;
    cl_int err = cl.EnqueueMarkerWithWaitList(stream ? (cl_command_queue)stream
                                                     : ((Cl *)d->gpu)->queue, 0, NULL, &e);
    *event = e;
    return err ? cl_fail(OKLC_ERR_DEVICE, err, "clEnqueueMarkerWithWaitList",
                         "oklc_event_record on '%s'", d->label)
               : OKLC_OK;
}

static oklc_status event_wait(oklc_device *d, void *event)
{
    cl_event e = event;
    cl_int err = cl.WaitForEvents(1, &e);
    return err ? cl_fail(OKLC_ERR_DEVICE, err, "clWaitForEvents", "oklc_event_wait on '%s'",
                         d->label)
               : OKLC_OK;
}

/* The markers' ends, in nanoseconds of the device's clock. */
static oklc_status event_elapsed(oklc_device *d, void *from, void *to, double *seconds)
{
    cl_ulong a = 0, b = 0;
    cl_int err = cl.GetEventProfilingInfo(from, CL_PROFILING_COMMAND_END, sizeof a, &a, NULL);
    if (!err)
        err = cl.GetEventProfilingInfo(to, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    *seconds = ((double)b - (double)a) * 1e-9;
    return err ? cl_fail(OKLC_ERR_DEVICE, err, "clGetEventProfilingInfo",
                         "oklc_event_elapsed on '%s'", d->label)
               : OKLC_OK;
}

static void event_free(oklc_device *d, void *event)
{
    (void)d;
    cl.ReleaseEvent(event);
}

/* ---- building -------------------------------------------------------------------------- */

static oklc_status device_options(const oklc_device *d, Build *b)
{
    b->device_id = oklc_rt_strdup(d->id);
    return b->device_id ? OKLC_OK : oklc_rt_oom();
}

/* The options as clBuildProgram takes them: one string. A -D or -I whose
 * value has a blank or a quote gets the value in double quotes, apart
 * ("-D \"V=(0 + 1)\"": how PoCL splits the string; implementations differ,
 * and PoCL takes no include path with a blank). */
static char *join_options(char *const *opts, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += 2 * strlen(opts[i]) + 4;
    char *s = oklc_malloc(len), *p = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *o = opts[i];
        bool quote = strpbrk(o, " \t\n\"'\\") != NULL;
        if (i)
            *p++ = ' ';
        if (quote && o[0] == '-' && (o[1] == 'D' || o[1] == 'I') && o[2]) {
            *p++ = *o++;
            *p++ = *o++;
            *p++ = ' ';
        }
        if (quote)
            *p++ = '"';
        for (; *o; o++) {
            if (quote && (*o == '"' || *o == '\\'))
                *p++ = '\\';
            *p++ = *o;
        }
        if (quote)
            *p++ = '"';
    }
    *p = '\0';
    return s;
}

static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t n = 0;
    if (cl.GetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS)
        return oklc_rt_strdup("");
    char *log = oklc_malloc(n + 1);
    if (log && cl.GetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL))
        n = 0;
    if (log)
        log[n] = '\0';
    return log;
}

/* Builds `prog` for the device; *log gets the build log. */
static cl_int build(const oklc_device *d, cl_program prog, const char *options, char **log)
{
    Cl *c = d->gpu;
    cl_int err = cl.BuildProgram(prog, 1, &c->device, options, NULL, NULL);
    *log = build_log(prog, c->device);
    return err;
}

/* `dir` is a build's temporary folder, or (load) a cache entry; `kernel`
 * the one asked for, when known (a prelude's #error, such as a kernel
 * using half on a device without it, is about the whole program). */
static oklc_status build_failed(const oklc_device *d, cl_int err, const char *what,
                                const char *kernel, const char *options, const char *dir,
                                bool tmp, const char *log)
{
    return oklc_rt_fail(err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ||
                                err == CL_COMPILER_NOT_AVAILABLE
                            ? OKLC_ERR_COMPILE
                            : OKLC_ERR_DEVICE,
                        "cannot build the OpenCL program of '%s'%s%s%s for '%s': "
                        "clBuildProgram: %s (%d)\noptions: %s\n(the source %s in %s)\n%s",
                        what, kernel ? " (kernel '" : "", kernel ? kernel : "",
                        kernel ? "')" : "", d->label, error_name(err), (int)err, options,
                        tmp ? "and its log stay" : "is", dir, log ? log : "");
}

/* The program's binary for our one device (empty when it gives none). */
static oklc_status write_binary(const oklc_device *d, cl_program prog, const char *path)
{
    size_t size = 0;
    cl_int err = cl.GetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    if (err)
        return cl_fail(OKLC_ERR_DEVICE, err, "clGetProgramInfo", "the binary of a program for "
                       "'%s'", d->label);
    unsigned char *bin = oklc_malloc(size ? size : 1);
    if (!bin)
        return oklc_rt_oom();
    if (size && (err = cl.GetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL))) {
        oklc_free(bin);
        return cl_fail(OKLC_ERR_DEVICE, err, "clGetProgramInfo", "the binary of a program for "
                       "'%s'", d->label);
    }
    oklc_status st = oklc_rt_write_file(path, (const char *)bin, size);
    oklc_free(bin);
    return st;
}

/* clBuildProgram takes its options as one line: an option holding a line
 * break (an include folder so named) cannot be given, however quoted. */
static oklc_status one_line(const Build *b)
{
    for (size_t i = 0; i < b->nopts; i++)
        if (strpbrk(b->opts[i], "\n\r"))
            return oklc_rt_fail(OKLC_ERR_ARGUMENT, "cannot build '%s' on the OpenCL device: "
                                "the option '%s' holds a line break, and clBuildProgram takes "
                                "its options as one line", b->path, b->opts[i]);
    return OKLC_OK;
}

static oklc_status build_device(const oklc_device *d, const Build *b, const char *dir,
                                char **log)
{
    Cl *c = d->gpu;
    oklc_status st = one_line(b);
    if (st)
        return st;
    char *options = join_options(b->opts, b->nopts);
    char *bin = oklc_rt_path(dir, d->ops->binary_name), *opt = oklc_rt_path(dir, "options.txt");
    st = options && bin && opt ? OKLC_OK : oklc_rt_oom();
    if (!st && oklc_rt_verbose())
        fprintf(stderr, "oklc: clBuildProgram options: %s\n", options);
    cl_int err = CL_SUCCESS;
    cl_program prog = NULL;
    if (!st) {
        const char *src = b->source;
        prog = cl.CreateProgramWithSource(c->context, 1, &src, &b->source_len, &err);
        if (!prog)
            st = cl_fail(OKLC_ERR_DEVICE, err, "clCreateProgramWithSource", "'%s'", b->path);
    }
    if (!st) {
        oklc_rt_count_compile();
        if ((err = build(d, prog, options, log)))
            st = build_failed(d, err, b->path, b->name, options, dir, true, *log);
    }
    if (!st)
        st = write_binary(d, prog, bin);
    if (!st)
        st = oklc_rt_write_file(opt, options, strlen(options));
    if (prog)
        cl.ReleaseProgram(prog);
    oklc_free(options);
    oklc_free(bin);
    oklc_free(opt);
    return st;
}

/* ---- loading --------------------------------------------------------------------------- */

/* The entry's binary, built; NULL when there is none or the device refuses
 * it (then the source is built). */
static cl_program from_binary(const oklc_device *d, const char *dir, const char *options)
{
    Cl *c = d->gpu;
    char *path = oklc_rt_path(dir, d->ops->binary_name), *bin = NULL, *log = NULL;
    size_t size = 0;
    cl_program prog = NULL;
    if (path && access(path, R_OK) == 0 && !oklc_rt_read_file(path, &bin, &size) && size) {
        const unsigned char *p = (const unsigned char *)bin;
        cl_int err, status = CL_SUCCESS;
        prog = cl.CreateProgramWithBinary(c->context, 1, &c->device, &size, &p, &status, &err);
        if (prog && (err || status || build(d, prog, options, &log))) {
            cl.ReleaseProgram(prog);
            prog = NULL;
        }
    }
    if (!prog && oklc_rt_verbose())
        fprintf(stderr, "oklc: '%s' has no binary the device takes; building the source\n",
                dir);
    oklc_free(log);
    oklc_free(bin);
    oklc_free(path);
    return prog;
}

static oklc_status from_source(const oklc_device *d, const char *dir, const char *options,
                               cl_program *out)
{
    Cl *c = d->gpu;
    char *path = oklc_rt_path(dir, d->ops->source_name), *src = NULL, *log = NULL;
    size_t len = 0;
    oklc_status st = path ? oklc_rt_read_file(path, &src, &len) : oklc_rt_oom();
    cl_int err;
    cl_program prog = NULL;
    if (!st) {
        const char *s = src;
        oklc_rt_count_compile();
        prog = cl.CreateProgramWithSource(c->context, 1, &s, &len, &err);
        if (!prog)
            st = cl_fail(OKLC_ERR_DEVICE, err, "clCreateProgramWithSource", "'%s'", path);
    }
    if (!st && (err = build(d, prog, options, &log))) {
        st = build_failed(d, err, path, NULL, options, dir, false, log);
        cl.ReleaseProgram(prog);
        prog = NULL;
    }
    *out = prog;
    oklc_free(log);
    oklc_free(src);
    oklc_free(path);
    return st;
}

static oklc_status load_device(oklc_kernel *k, const char *dir, char *const *names, int n)
{
    const oklc_device *d = k->dev;
    char *opt_path = oklc_rt_path(dir, "options.txt"), *options = NULL;
    oklc_status st = opt_path ? OKLC_OK : oklc_rt_oom();
    if (!st && access(opt_path, F_OK) == 0)
        st = oklc_rt_read_file(opt_path, &options, NULL);
    else if (!st)
        st = (options = oklc_rt_strdup("")) ? OKLC_OK : oklc_rt_oom();
    pthread_mutex_t *lock = st ? NULL : oklc_malloc(sizeof *lock);
    if (!st && (!lock || pthread_mutex_init(lock, NULL))) {
        oklc_free(lock);
        lock = NULL;
        st = oklc_rt_oom();
    }
    k->lock = lock;
    cl_program prog = NULL;
    if (!st && !(prog = from_binary(d, dir, options)))
        st = from_source(d, dir, options, &prog);
    k->module = prog;
    for (int i = 0; !st && i < n; i++) {
        cl_int err;
        k->functions[i] = cl.CreateKernel(prog, names[i], &err);
        if (k->functions[i])
            continue;
        if (err == CL_INVALID_KERNEL_NAME && k->nparams < 0)
            st = oklc_rt_fail(OKLC_ERR_ARGUMENT, "no kernel '%s' in '%s/%s' (clCreateKernel: "
                              "CL_INVALID_KERNEL_NAME)", names[i], dir, d->ops->source_name);
        else if (err == CL_INVALID_KERNEL_NAME)
            st = oklc_rt_fail(OKLC_ERR_LOAD, "no device kernel '%s' of '%s' in '%s/%s' "
                              "(clCreateKernel: CL_INVALID_KERNEL_NAME)", names[i], k->name,
                              dir, d->ops->source_name);
        else
            st = cl_fail(OKLC_ERR_DEVICE, err, "clCreateKernel", "kernel '%s' of '%s'",
                         names[i], dir);
    }
    oklc_free(options);
    oklc_free(opt_path);
    return st;
}

static void unload_device(oklc_kernel *k)
{
    for (int i = 0; k->functions && i < k->nfunctions; i++)
        if (k->functions[i])
            cl.ReleaseKernel(k->functions[i]);
    if (k->module)
        cl.ReleaseProgram(k->module);
    if (k->lock) {
        pthread_mutex_destroy(k->lock);
        oklc_free(k->lock);
    }
}

/* ---- running ------------------------------------------------------------------------------- */

/* Local size `block`, global size grid * block on each axis. */
static int launch(oklc_kernel *k, int index, const size_t grid[3], const size_t block[3],
                  int nargs, void *const *args, const size_t *sizes, const char **call)
{
    size_t global[3];
    for (int i = 0; i < 3; i++) {
        if (block[i] && grid[i] > SIZE_MAX / block[i]) {
            *call = "the grid times the block is more than a size_t holds";
            return GPU_OWN_ERROR;
        }
        global[i] = grid[i] * block[i];
    }
    cl_kernel kern = k->functions[index];
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(k->lock);
    for (int i = 0; i < nargs && !err; i++) {
        err = cl.SetKernelArg(kern, (cl_uint)i, sizes[i], args[i]);
        if (err) {
            static _Thread_local char what[64];
            snprintf(what, sizeof what, "clSetKernelArg of argument %d (%zu bytes)", i + 1,
                     sizes[i]);
            *call = what;
        }
    }
    if (!err) {
        err = cl.EnqueueNDRangeKernel(queue_of(k->dev), kern, 3, NULL, global, block, 0, NULL,
                                      NULL);
        *call = "clEnqueueNDRangeKernel";
    }
    pthread_mutex_unlock(k->lock);
    return err;
}

const DeviceOps oklc_opencl_ops = {
    .name = "opencl", .title = "OpenCL", .backend = OKLC_BACKEND_OPENCL,
    .source_name = "source.cl", .binary_name = "program.bin",
    .open = open_device, .close = close_device, .alloc = alloc, .free = free_memory,
    .copy = copy, .query = query, .view = view, .stream_new = stream_new,
    .stream_free = stream_free, .stream_finish = stream_finish, .event_record = event_record,
    .event_wait = event_wait, .event_elapsed = event_elapsed, .event_free = event_free, .unview = free_memory, .copy_device = copy_device,
    .finish = finish, OKLC_GPU_OPS,
    .device_options = device_options, .build_device = build_device,
    .load_device = load_device, .unload_device = unload_device, .launch = launch,
    .error_name = error_name,
};
