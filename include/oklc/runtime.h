/*
 * runtime.h - the oklc runtime: devices, memory, kernels built from OKL.
 *
 * In the spirit of OCCA's C API. A device is opened from a short spec; a
 * kernel is built from an .okl file (transpiled in process, compiled with
 * the system's compiler or the vendor's, cached on disk) and run with typed
 * arguments. Every call returns an oklc_status; after a failure,
 * oklc_last_error() says what went wrong (for a compiler error, with the
 * compiler's whole output). Nothing here prints (except with OKLC_VERBOSE=1)
 * or exits.
 *
 *     oklc_device *dev;
 *     oklc_device_open("mode=openmp threads=4", &dev);
 *     oklc_memory *a;
 *     oklc_memory_alloc(dev, n * sizeof(float), &a);
 *     oklc_memory_copy_from_host(a, host_a, n * sizeof(float), 0);
 *     oklc_kernel *k;
 *     oklc_kernel_build(dev, "addVectors.okl", "addVectors", NULL, &k);
 *     oklc_arg args[] = {oklc_arg_int(n), oklc_arg_mem(a), ...};
 *     oklc_kernel_run(k, 4, args);
 *     oklc_device_finish(dev);
 *     oklc_kernel_free(k); oklc_memory_free(a); oklc_device_close(dev);
 *
 * Devices: serial and openmp run on the host; opencl, cuda and hip are
 * GPU-like: their vendor's library is opened at run time (dlopen:
 * libOpenCL.so.1; libcuda.so.1 and NVRTC; libamdhip64.so and hiprtc), none
 * is linked, and where it is missing (or there is no device) opening the
 * device gives OKLC_ERR_UNAVAILABLE with the reason. dpcpp (SYCL 2020) is
 * GPU-like too: its compiler is found at run time (OKLC_SYCL_CXX, else
 * `icpx -fsycl` or `acpp` in PATH; none: OKLC_ERR_UNAVAILABLE), and builds
 * a small support library into the cache that reaches the SYCL runtime.
 * metal is always OKLC_ERR_UNAVAILABLE (macOS only; not written yet).
 * On a GPU-like device
 * an OKL kernel becomes device kernels and a host launcher (C++ compiled
 * with the system's compiler, like serial code) that computes each device
 * kernel's grid from the arguments (docs/launchers.md).
 *
 * Environment: OKLC_CACHE_DIR (the kernel cache; default
 * $XDG_CACHE_HOME/oklc, else ~/.cache/oklc), OKLC_CXX and OKLC_CXXFLAGS (the
 * C++ compiler and its flags for CPU devices; OKLC_CXX also compiles GPU
 * launchers), OKLC_VERBOSE=1 (print every compile command and the path of
 * every generated source), CUDA_HOME / CUDA_PATH (where NVRTC is, else
 * /usr/local/cuda, else the loader's path), OKLC_DLMOPEN=0 (see below).
 *
 * The OpenCL and HIP libraries bring an LLVM of their own, which must not
 * meet the libclang oklc links: they are opened in a link-map namespace of
 * their own (dlmopen), unless OKLC_DLMOPEN=0. Such a library sees the
 * environment as it was when it was first loaded (its own copy): set the
 * variables it reads (POCL_CACHE_DIR, ...) before opening the first device.
 *
 * The cache folder must belong to the user and not be writable by others
 * (it is created 0700). Each build is a folder named by a hash of all that
 * makes the binary (source.cpp, kernel.so, metadata.json, build.log; for
 * GPU-like devices the device source source.cl, source.cu or source.hip,
 * its binary program.bin, kernel.cubin or kernel.hsaco, and for OKL
 * launcher.cpp and launcher.so; OpenCL adds options.txt), built under a
 * temporary name and renamed into place, so any number of processes may
 * build the same kernel at once; no lock files. After a compiler error the
 * temporary folder stays an hour, for the source. A GPU binary is the
 * device's: the key has the device's name, its driver's and compiler's
 * versions (OpenCL: platform name and version, device name and version,
 * driver version; CUDA: compute capability and NVRTC's version).
 */
#ifndef OKLC_RUNTIME_H
#define OKLC_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from liboklc.so (see oklc.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef enum oklc_status {
    OKLC_OK = 0,
    OKLC_ERR_ARGUMENT,      /* a bad argument: NULL, a malformed spec, a wrong type */
    OKLC_ERR_UNAVAILABLE,   /* the device kind is not available on this machine */
    OKLC_ERR_TRANSPILE,     /* the OKL source has errors (message: the diagnostics) */
    OKLC_ERR_COMPILE,       /* the backend compiler failed (message: its output), or
                               cannot be found or run */
    OKLC_ERR_LOAD,          /* the built binary cannot be loaded (dlopen, module load) */
    OKLC_ERR_MEMORY,        /* out of host or device memory */
    OKLC_ERR_IO,            /* reading a file, or the cache */
    OKLC_ERR_DEVICE         /* the device or its driver reported an error */
} oklc_status;

/* The message of the last failure in this thread (never NULL). */
const char *oklc_last_error(void);
const char *oklc_status_name(oklc_status s);

typedef struct oklc_device oklc_device;
typedef struct oklc_memory oklc_memory;
typedef struct oklc_kernel oklc_kernel;
typedef struct oklc_pool oklc_pool;
typedef struct oklc_stream oklc_stream;
typedef struct oklc_event oklc_event;
typedef struct oklc_props oklc_props;

/* ---- devices ----------------------------------------------------------- */

/* spec: blank-separated words, a bare word being the mode: "serial",
 * "openmp", "mode=openmp threads=4", "opencl", "mode=opencl platform=0
 * device=0", "cuda", "mode=hip device=1". Mode names are case-insensitive.
 *   threads=N   OpenMP only: the number of threads.
 *   platform=P  OpenCL only: an index, or a case-insensitive part of the
 *               platform's name or vendor ("platform=pocl"). Default: the
 *               first platform that has a device.
 *   device=D    OpenCL: an index on the platform, or a part of the device's
 *               name (without platform=, looked for on every platform);
 *               default: the platform's first device. CUDA, HIP: an index
 *               (default 0).
 * OCCA's device strings are read too: "{mode: 'CUDA', device_id: 1}",
 * "mode: 'OpenCL', platform_id: 0, device_id: 0" (braces optional, ' or "
 * quotes; keys mode, device_id, platform_id, threads).
 * A key that does not apply to the mode is OKLC_ERR_ARGUMENT; a platform or
 * device that is not there too (the message lists what is);
 * OKLC_ERR_UNAVAILABLE when the vendor's library or any device is missing. */
oklc_status oklc_device_open(const char *spec, oklc_device **out);
/* Its kernels and memory are to be freed first. */
void oklc_device_close(oklc_device *d);
/* "serial", "openmp", "opencl", "cuda", "hip" */
const char *oklc_device_mode(const oklc_device *d);
/* Waits until everything queued on the device is done. */
oklc_status oklc_device_finish(oklc_device *d);

/* ---- streams ------------------------------------------------------------------ */

/* A stream is an in-order queue of a device's work: kernel runs and copies
 * go to the device's current stream, in the order given; work of two
 * streams may overlap (a copy in one while a kernel runs in another).
 * Every device starts on its default stream (NULL below). CUDA and HIP
 * streams, OpenCL command queues; a thread per stream on serial and OpenMP
 * devices (their default stream runs work in the calling thread); on
 * DPC++, every stream is the device's one queue (ordered, never
 * overlapping). */
oklc_status oklc_stream_create(oklc_device *d, oklc_stream **out);
/* Finishes it first; the device goes back to its default stream when it
 * was current. */
void oklc_stream_free(oklc_stream *s);
/* Kernel runs and copies go to s from now on (NULL: the default stream);
 * a stream of another device is OKLC_ERR_ARGUMENT. */
oklc_status oklc_device_set_stream(oklc_device *d, oklc_stream *s);
/* The current stream; NULL for the default one. */
oklc_stream *oklc_device_stream(const oklc_device *d);
/* Waits until the work in s is done (NULL: the default stream of d), and
 * reports the first failure of that work (a kernel that refused its run). */
oklc_status oklc_stream_finish(oklc_device *d, oklc_stream *s);
/* Copies queued in the current stream: they return at once, and happen
 * in order with its kernels; the host memory must stay until the stream
 * finishes (page-locked memory, oklc_host_alloc, lets CUDA and HIP
 * overlap them with kernels). */
oklc_status oklc_memory_copy_from_host_async(oklc_memory *m, const void *src, size_t bytes,
                                             size_t offset);
oklc_status oklc_memory_copy_to_host_async(const oklc_memory *m, void *dst, size_t bytes,
                                           size_t offset);
/* A tag (OCCA's) in the current stream: done when the work queued before
 * it is. */
oklc_status oklc_event_record(oklc_device *d, oklc_event **out);
oklc_status oklc_event_wait(oklc_event *e);
/* Seconds between two events of one device (waited for). */
oklc_status oklc_event_elapsed(oklc_event *from, oklc_event *to, double *seconds);
void oklc_event_free(oklc_event *e);

/* What a device is and what it allows. A number the device does not say
 * is 0 (OpenCL has no free memory; DPC++ says its name alone). */
typedef struct oklc_device_info {
    const char *mode;              /* "cuda": oklc_device_mode */
    char     name[256];            /* "NVIDIA H200", the CPU's model name */
    char     vendor[128];          /* "NVIDIA", the OpenCL vendor, "GenuineIntel" */
    char     arch[256];            /* "sm_90", "gfx90a:sramecc+:xnack-", the OpenCL
                                      device version, "x86_64" */
    uint64_t memory_total;         /* bytes of the device's memory (CPU: the machine's) */
    uint64_t memory_free;          /* bytes free now (CPU: available) */
    int      compute_units;        /* multiprocessors, compute units; CPU: threads */
    /* Limits of a block (@inner loops): threads in all, along each axis, and
     * bytes of @shared memory; 0 on CPU devices, which run a block's
     * threads in loops and keep @shared arrays on the stack. */
    uint64_t max_block_threads;
    uint64_t max_block_dims[3];
    uint64_t shared_memory;
} oklc_device_info;

/* What the runtime finds to build kernels with, a line each (oklc
 * --version): the C++ compiler and its version, NVRTC's and hiprtc's
 * versions, the SYCL compiler; "not found" with the reason for what is
 * missing. Free it with free(); NULL when memory runs out. */
char *oklc_runtime_toolchain(void);

/* Fills *info; OKLC_ERR_DEVICE (naming the vendor's call) when the device
 * cannot be asked. */
oklc_status oklc_device_query(oklc_device *d, oklc_device_info *info);

/* ---- memory ---------------------------------------------------------------- */

/* The element types memory may hold, as OKL kernels spell them (the name
 * oklc_type_name gives is what a template argument becomes: a kernel
 * `template <typename T> ... (T *x)` run on OKLC_TYPE_UINT32 memory is the
 * instance T = uint). The vector types are the power-of-two ones, whose
 * size is the same on every device. A device whose target lacks half
 * fails to build a kernel that uses it, saying so (docs/backends.md). */
typedef enum oklc_type {
    OKLC_TYPE_NONE = 0,    /* untyped memory (oklc_memory_alloc) */
    OKLC_TYPE_BOOL,        /* bool */
    OKLC_TYPE_CHAR,        /* char */
    OKLC_TYPE_INT8,        /* signed char */
    OKLC_TYPE_UINT8,       /* uchar (unsigned char) */
    OKLC_TYPE_INT16,       /* short */
    OKLC_TYPE_UINT16,      /* ushort */
    OKLC_TYPE_INT32,       /* int */
    OKLC_TYPE_UINT32,      /* uint */
    OKLC_TYPE_INT64,       /* long (64 bits on every oklc device) */
    OKLC_TYPE_UINT64,      /* ulong */
    OKLC_TYPE_FLOAT,       /* float */
    OKLC_TYPE_DOUBLE,      /* double */
    OKLC_TYPE_INT2,        /* int2, int4, float2, ...: OKL's vector types */
    OKLC_TYPE_INT4,
    OKLC_TYPE_FLOAT2,
    OKLC_TYPE_FLOAT4,
    OKLC_TYPE_DOUBLE2,
    OKLC_TYPE_DOUBLE4,
    OKLC_TYPE_HALF         /* half: IEEE binary16, 2 bytes (oklc_half_from_float) */
} oklc_type;

/* "float", "uint", "double2"; NULL for OKLC_TYPE_NONE or no type. */
const char *oklc_type_name(oklc_type t);
/* Bytes of one element; 0 for OKLC_TYPE_NONE or no type. */
size_t oklc_type_size(oklc_type t);
/* half's bits (IEEE binary16) from a float, rounded to nearest, ties to
 * even (too large: infinity; NaN stays NaN), and back (exact): C has no
 * half type, so host data of OKLC_TYPE_HALF memory is uint16_t. A kernel's
 * half scalar parameter takes oklc_arg_float, converted so. */
uint16_t oklc_half_from_float(float f);
float oklc_half_to_float(uint16_t h);

/* Untyped memory: `bytes` of it. It runs any kernel whose parameter is a
 * pointer, but cannot say what a template kernel's type parameter is. */
oklc_status oklc_memory_alloc(oklc_device *d, size_t bytes, oklc_memory **out);
/* Memory that knows its element type: `count` elements of `type`
 * (count * oklc_type_size(type) bytes). Running a template kernel deduces
 * its type parameters from it (oklc_kernel_run). */
oklc_status oklc_memory_alloc_typed(oklc_device *d, oklc_type type, size_t count,
                                    oklc_memory **out);
void oklc_memory_free(oklc_memory *m);
size_t oklc_memory_size(const oklc_memory *m);
/* Its element type; OKLC_TYPE_NONE for untyped memory (or NULL). */
oklc_type oklc_memory_type(const oklc_memory *m);
/* Copies `bytes` between host memory and device memory at byte `offset`.
 * Blocking: the copy is done when the call returns, and happens after the
 * kernels run before it (on GPU-like devices, one in-order queue). */
oklc_status oklc_memory_copy_from_host(oklc_memory *m, const void *src, size_t bytes,
                                       size_t offset);
oklc_status oklc_memory_copy_to_host(const oklc_memory *m, void *dst, size_t bytes,
                                     size_t offset);

/* A view: `bytes` of m at byte `offset`, usable wherever memory is (a
 * kernel argument, a copy, a view of its own), checked to lie within m.
 * It keeps m's storage alive: m may be freed first, the storage goes with
 * the last of them (each is freed with oklc_memory_free). A view of typed
 * memory has its type; its offset and size are then whole elements. On
 * OpenCL the offset must be a multiple of the device's base address
 * alignment (a sub-buffer; the message says the alignment). */
oklc_status oklc_memory_view(oklc_memory *m, size_t offset, size_t bytes, oklc_memory **out);
/* Copies `bytes` from src at src_offset to dst at dst_offset, both memory
 * of one device (or of two CPU devices: host memory both). Blocking, after
 * the kernels run before it. Regions of one allocation that overlap are
 * OKLC_ERR_ARGUMENT: no device copies them in a defined order. */
oklc_status oklc_memory_copy(oklc_memory *dst, size_t dst_offset, const oklc_memory *src,
                             size_t src_offset, size_t bytes);
/* The device address, for libraries and GPU-aware MPI: host memory on
 * serial and OpenMP devices, a CUdeviceptr (CUDA), a device pointer (HIP,
 * DPC++), a cl_mem (OpenCL; a view's is its sub-buffer). NULL for NULL. */
void *oklc_memory_ptr(const oklc_memory *m);
/* Memory of d allocated elsewhere (an address of the kind oklc_memory_ptr
 * gives, `bytes` long): usable as oklc memory; oklc_memory_free frees the
 * wrapper, never the storage, which must outlive it. */
oklc_status oklc_memory_wrap(oklc_device *d, void *ptr, size_t bytes, oklc_memory **out);
/* Bytes d's oklc_memory_alloc calls hold (views and wrapped memory add
 * nothing; a pool's allocation counts whole). */
size_t oklc_device_memory_used(const oklc_device *d);

/* Host memory that copies to and from d are fastest with: page-locked on
 * CUDA and HIP (cuMemAllocHost, hipHostMalloc), page-aligned heap memory
 * elsewhere. Free it with oklc_host_free on the same device. */
oklc_status oklc_host_alloc(oklc_device *d, size_t bytes, void **out);
void oklc_host_free(oklc_device *d, void *ptr);

/* A memory pool: one allocation of `bytes` on d, handed out as views.
 * oklc_pool_reserve gives a view of `bytes` (aligned to 256 bytes, or the
 * OpenCL device's base address alignment when larger) of free space, first
 * fit; OKLC_ERR_MEMORY when no free range is large enough (the message says
 * how much is free). oklc_memory_free of the view releases its range.
 * oklc_pool_free may come before the views are freed: the pool goes with
 * the last of them. */
oklc_status oklc_pool_new(oklc_device *d, size_t bytes, oklc_pool **out);
oklc_status oklc_pool_reserve(oklc_pool *p, size_t bytes, oklc_memory **out);
/* Bytes reserved now (aligned sizes), and the pool's size. */
size_t oklc_pool_used(const oklc_pool *p);
size_t oklc_pool_size(const oklc_pool *p);
void oklc_pool_free(oklc_pool *p);

/* ---- the kernel cache (oklc cache) -------------------------------------------- */

/* An entry of the cache, or a failed build kept in its failed/ folder
 * (the source and the log). */
typedef struct oklc_cache_entry {
    char     id[33];          /* its key: the folder's name */
    char     path[4096];      /* the folder */
    /* what the entry says of itself; "" for an entry that does not (made by
     * an older oklc; the DPC++ support library) */
    char     kernel[256];     /* the name built: "addVectors", "scale<float, 8>" */
    char     mode[16];        /* "openmp" */
    char     source[1024];    /* the input file (absolute) */
    uint64_t bytes;
    int64_t  last_used;       /* seconds since the epoch: built or last loaded */
    bool     failed;
} oklc_cache_entry;

/* The cache's folder ($OKLC_CACHE_DIR, ...), created if missing; free()
 * it. */
oklc_status oklc_cache_dir(char **dir);
/* Every entry and failed build, the last used first; free() the array. */
oklc_status oklc_cache_list(oklc_cache_entry **entries, size_t *n);
/* Removes the entries, failed builds and temporary folders last used more
 * than `age` seconds ago; *removed and *bytes (if given) say what went. */
oklc_status oklc_cache_prune(int64_t age, size_t *removed, uint64_t *bytes);
/* Removes all of them, and the command's precompiled prelude (pch/). */
oklc_status oklc_cache_clear(size_t *removed, uint64_t *bytes);

/* ---- kernel properties ------------------------------------------------------- */

/* What changes how a kernel is built (OCCA's "kernel properties"). */
oklc_props *oklc_props_new(void);
void oklc_props_free(oklc_props *p);
/* "NAME", "NAME=VALUE", "F(a,b)=a+b": as -D. */
oklc_status oklc_props_define(oklc_props *p, const char *definition);
oklc_status oklc_props_include_path(oklc_props *p, const char *dir);
/* A file included before the kernel (OCCA's "includes"). */
oklc_status oklc_props_include_file(oklc_props *p, const char *path);
/* A JSON file of intrinsics (docs/intrinsics.md) for the transpiler, as
 * `oklc transpile --intrinsics FILE` (repeatable; a later one wins). Its
 * text is part of the cache key. OKL source only. */
oklc_status oklc_props_intrinsics(oklc_props *p, const char *path);
/* A plugin (docs/plugins.md) loaded into the transpiler for this kernel,
 * as `oklc --plugin FILE` (repeatable); the hash of its file is part of
 * the cache key (through the input's hash). OKL source only. */
oklc_status oklc_props_plugin(oklc_props *p, const char *path);
/* The compiler and its flags, for this kernel (else OKLC_CXX / OKLC_CXXFLAGS,
 * else "c++" and "-O3 -march=native", -mcpu=native on POWER: built for the
 * CPU that runs them; with such flags the cache key holds the CPU's model
 * and features). Flags are split at blanks; no shell is involved.
 * NULL restores the default. CPU devices add -std=c++17 -shared -fPIC (and
 * -fopenmp) before these flags, so that these can override them.
 * GPU-like devices: the compiler builds the OKL host launcher (with
 * -std=c++17 -shared -fPIC -O2; OKLC_CXXFLAGS does not apply), and the
 * flags go to the device compiler (clBuildProgram's options, NVRTC's,
 * hiprtc's), after the device's own (--gpu-architecture=sm_XY,
 * --offload-arch=gfx...) and the props' -D and -I. */
oklc_status oklc_props_compiler(oklc_props *p, const char *compiler);
oklc_status oklc_props_compiler_flags(oklc_props *p, const char *flags);
/* false: the file is native source for the device's backend, not OKL
 * (OCCA's okl/enabled=false). For CPU devices it is C++ compiled as it is,
 * with the defines (-D), include paths (-I) and included files (-include)
 * of the props and its own folder for "..." includes; the kernel `name` is
 * its symbol `extern "C" void name(void *const *args)`, args[i] pointing to
 * argument i's value (for memory, to a variable holding the address), or
 * OCCA's form `extern "C" void name(const int &n, const float *x, ...)`:
 * scalars and structs by reference, memory as its address. The build asks
 * the compiler which form `name` has (and how many parameters: at most 64);
 * a run of OCCA's form with another number of arguments is
 * OKLC_ERR_ARGUMENT.
 * For GPU-like devices it is OpenCL C, CUDA or HIP source, built with the
 * props' defines (-D), include paths (-I) and its own folder (-I), its
 * included files as #include lines before it; the kernel `name` is a
 * __kernel function (OpenCL) or an extern "C" __global__ one (CUDA, HIP),
 * run with oklc_kernel_set_run_dims.
 * Native kernels have no metadata: their arguments are not checked; each
 * is passed as given (memory as its cl_mem / CUdeviceptr / device pointer,
 * OKLC_ARG_INT as 4 bytes, OKLC_ARG_LONG 8, OKLC_ARG_FLOAT 4,
 * OKLC_ARG_DOUBLE 8, a struct as its bytes). */
oklc_status oklc_props_okl(oklc_props *p, bool enabled);
/* Serial and OpenMP: the transpiler's rewrites of the loops for a CPU on
 * (the default) or off (oklc_set_cpu_rewrites in oklc.h): the plain
 * translation, for timing what the rewrites gain. */
oklc_status oklc_props_cpu_rewrites(oklc_props *p, bool enabled);
/* The value of a template kernel's parameter `name` that the arguments of
 * a run do not give (a non-type parameter: "BS", "256"), or that is to be
 * fixed (a type: "T", "float"; then the arguments must agree). Used when
 * oklc_kernel_run instantiates a kernel built by its bare name; the same
 * name again replaces the value. It names no parameter of the kernel:
 * oklc_kernel_build says so. */
oklc_status oklc_props_template_arg(oklc_props *p, const char *name, const char *value);

/* ---- kernels ------------------------------------------------------------------ */

/* Builds kernel `name` of `path` for the device and loads it. props may
 * be NULL. A second build of the same kernel (same source after
 * preprocessing, includes included, same properties, compiler and oklc
 * version) comes from the cache without compiling.
 * A template kernel is built either as one instance, named with its
 * arguments ("scale<float, 256>"), or by its bare name ("scale"): then it
 * is transpiled and checked now, and compiled later, per instance, by
 * oklc_kernel_run from the arguments of each run (C++'s deduction: `T *x`
 * from the type of typed memory, `const T a` from the scalar's type). The
 * template parameters no argument gives come from
 * oklc_props_template_arg, else from their defaults. */
oklc_status oklc_kernel_build(oklc_device *d, const char *path, const char *name,
                              const oklc_props *props, oklc_kernel **out);
/* The same from source text in memory; `path` names it in messages and is
 * where "..." includes are searched. */
oklc_status oklc_kernel_build_string(oklc_device *d, const char *path, const char *source,
                                     const char *name, const oklc_props *props,
                                     oklc_kernel **out);
/* Builds into the cache without loading (one MPI rank builds, the others
 * load): *binary receives the cache entry's folder (free() it). A template
 * kernel is built here by instance only ("scale<float, 256>"). With the
 * default flags the binary is for the building CPU: ranks on another kind
 * of CPU should build their own. */
oklc_status oklc_kernel_build_only(oklc_device *d, const char *path, const char *name,
                                   const oklc_props *props, char **binary);
/* Loads kernel `name` from a cache entry built by oklc_kernel_build_only. */
oklc_status oklc_kernel_load(oklc_device *d, const char *binary, const char *name,
                             oklc_kernel **out);
void oklc_kernel_free(oklc_kernel *k);
/* The kernel's arguments, as the metadata says (a template kernel: its
 * parameters); -1 for a native kernel. */
int oklc_kernel_arg_count(const oklc_kernel *k);

typedef enum oklc_arg_kind {
    OKLC_ARG_MEMORY,   /* device memory: the kernel's pointer parameters */
    OKLC_ARG_INT,      /* int32_t */
    OKLC_ARG_LONG,     /* int64_t */
    OKLC_ARG_FLOAT,
    OKLC_ARG_DOUBLE,
    OKLC_ARG_STRUCT    /* bytes copied as they are: a struct passed by value */
} oklc_arg_kind;

typedef struct oklc_arg {
    oklc_arg_kind kind;
    union {
        oklc_memory *mem;
        int32_t      i32;
        int64_t      i64;
        float        f32;
        double       f64;
        struct {
            const void *data;
            size_t      size;
        } bytes;
    } u;
} oklc_arg;

static inline oklc_arg oklc_arg_mem(oklc_memory *m)
{
    oklc_arg a;
    a.kind = OKLC_ARG_MEMORY;
    a.u.mem = m;
    return a;
}
static inline oklc_arg oklc_arg_int(int32_t v)
{
    oklc_arg a;
    a.kind = OKLC_ARG_INT;
    a.u.i32 = v;
    return a;
}
static inline oklc_arg oklc_arg_long(int64_t v)
{
    oklc_arg a;
    a.kind = OKLC_ARG_LONG;
    a.u.i64 = v;
    return a;
}
static inline oklc_arg oklc_arg_float(float v)
{
    oklc_arg a;
    a.kind = OKLC_ARG_FLOAT;
    a.u.f32 = v;
    return a;
}
static inline oklc_arg oklc_arg_double(double v)
{
    oklc_arg a;
    a.kind = OKLC_ARG_DOUBLE;
    a.u.f64 = v;
    return a;
}
static inline oklc_arg oklc_arg_struct(const void *data, size_t size)
{
    oklc_arg a;
    a.kind = OKLC_ARG_STRUCT;
    a.u.bytes.data = data;
    a.u.bytes.size = size;
    return a;
}

/* Runs the kernel. The arguments are checked against the kernel's
 * parameters (count, and kind: memory for pointers, the scalar's type,
 * the struct's size). Any number of arguments, on every ABI.
 * A template kernel built by its bare name first finds its instance: each
 * type parameter is deduced from the arguments whose type is the
 * parameter itself (`T *x`, `const T *x`, `T x[]`: the element type of
 * typed memory; `T a`, `const T a`: OKLC_ARG_INT gives int, OKLC_ARG_LONG
 * long, OKLC_ARG_FLOAT float, OKLC_ARG_DOUBLE double), the others come
 * from oklc_props_template_arg or their defaults. Untyped memory or a
 * struct for such a parameter, two arguments that deduce different types,
 * or a parameter nothing gives are OKLC_ERR_ARGUMENT naming the parameter
 * (and the arguments). The instance ("scale<float, 256>") is built through
 * the cache on its first run, as oklc_kernel_build would build it, and
 * kept with the kernel for the next runs (thread-safe); a build error is
 * the build's status.
 * OKLC_ARG_INT passes integer parameters of up to 4 bytes (converted to the
 * parameter's size), OKLC_ARG_LONG those of 8; OKLC_ARG_FLOAT float and
 * half (rounded: oklc_half_from_float), OKLC_ARG_DOUBLE double;
 * OKLC_ARG_STRUCT a struct of the same
 * size. On the OpenMP device a kernel's library stays mapped after
 * oklc_kernel_free: the OpenMP runtime's idle threads live in it.
 * On GPU-like devices the run is queued (oklc_device_finish waits for it;
 * a copy to the host comes after it); a device error is OKLC_ERR_DEVICE
 * naming the device kernel and the vendor's error ("clEnqueueNDRangeKernel:
 * CL_INVALID_WORK_GROUP_SIZE (-54)"). An OpenCL kernel's arguments live in
 * its cl_kernel: runs of one oklc_kernel from several threads take turns. */
oklc_status oklc_kernel_run(oklc_kernel *k, int nargs, const oklc_arg *args);

/* The work a native kernel of a GPU-like device (cuda, hip, opencl, dpcpp) runs
 * on (OCCA's setRunDims): outer[a] blocks (work-groups) on axis a, each of
 * inner[a] threads (work-items); axis 0 is x. Such a kernel needs it before
 * oklc_kernel_run, which launches the kernel once on a grid of outer
 * blocks of inner threads (OpenCL: local size inner, global size
 * outer * inner); the dims stay for later runs. An outer of 0 on some axis
 * runs nothing; an inner of 0 is an error. OKL kernels compute their dims
 * in their launcher, and CPU kernels have none: for those it is an error. */
oklc_status oklc_kernel_set_run_dims(oklc_kernel *k, const size_t outer[3],
                                     const size_t inner[3]);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
