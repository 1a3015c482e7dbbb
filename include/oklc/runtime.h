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
 * Environment: OKLC_CACHE_DIR (the kernel cache; default
 * $XDG_CACHE_HOME/oklc, else ~/.cache/oklc), OKLC_CXX and OKLC_CXXFLAGS (the
 * C++ compiler and its flags for CPU devices), OKLC_VERBOSE=1 (print every
 * compile command and the path of every generated source).
 *
 * The cache folder must belong to the user and not be writable by others
 * (it is created 0700). Each build is a folder named by a hash of all that
 * makes the binary (source.cpp, kernel.so, metadata.json, build.log),
 * built under a temporary name and renamed into place, so any number of
 * processes may build the same kernel at once; no lock files. After a
 * compiler error the temporary folder stays an hour, for the source.
 */
#ifndef OKLC_RUNTIME_H
#define OKLC_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
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
typedef struct oklc_props oklc_props;

/* ---- devices ----------------------------------------------------------- */

/* spec: "serial", "openmp", or "mode=openmp threads=4" (keys: mode,
 * threads; also platform=, device= for OpenCL and device= for CUDA/HIP).
 * Mode names are case-insensitive. */
oklc_status oklc_device_open(const char *spec, oklc_device **out);
/* Its kernels and memory are to be freed first. */
void oklc_device_close(oklc_device *d);
/* "serial", "openmp", ... */
const char *oklc_device_mode(const oklc_device *d);
/* Waits until everything queued on the device is done. */
oklc_status oklc_device_finish(oklc_device *d);

/* ---- memory ---------------------------------------------------------------- */

oklc_status oklc_memory_alloc(oklc_device *d, size_t bytes, oklc_memory **out);
void oklc_memory_free(oklc_memory *m);
size_t oklc_memory_size(const oklc_memory *m);
/* Copies `bytes` between host memory and device memory at byte `offset`. */
oklc_status oklc_memory_copy_from_host(oklc_memory *m, const void *src, size_t bytes,
                                       size_t offset);
oklc_status oklc_memory_copy_to_host(const oklc_memory *m, void *dst, size_t bytes,
                                     size_t offset);

/* ---- kernel properties ------------------------------------------------------- */

/* What changes how a kernel is built (OCCA's "kernel properties"). */
oklc_props *oklc_props_new(void);
void oklc_props_free(oklc_props *p);
/* "NAME", "NAME=VALUE", "F(a,b)=a+b": as -D. */
oklc_status oklc_props_define(oklc_props *p, const char *definition);
oklc_status oklc_props_include_path(oklc_props *p, const char *dir);
/* A file included before the kernel (OCCA's "includes"). */
oklc_status oklc_props_include_file(oklc_props *p, const char *path);
/* The compiler and its flags, for this kernel (else OKLC_CXX / OKLC_CXXFLAGS,
 * else "c++" and "-O3"). Flags are split at blanks; no shell is involved.
 * NULL restores the default. CPU devices add -std=c++17 -shared -fPIC (and
 * -fopenmp) before these flags, so that these can override them. */
oklc_status oklc_props_compiler(oklc_props *p, const char *compiler);
oklc_status oklc_props_compiler_flags(oklc_props *p, const char *flags);
/* false: the file is native source for the device's backend, not OKL
 * (OCCA's okl/enabled=false). For CPU devices it is C++ compiled as it is,
 * with the defines (-D), include paths (-I) and included files (-include)
 * of the props and its own folder for "..." includes; the kernel `name` is
 * its symbol `extern "C" void name(void *const *args)`, args[i] pointing to
 * argument i's value (for memory, to a variable holding the address).
 * Native kernels have no metadata: their arguments are not checked. */
oklc_status oklc_props_okl(oklc_props *p, bool enabled);

/* ---- kernels ------------------------------------------------------------------ */

/* Builds kernel `name` of `path` for the device and loads it. A template
 * kernel is named with its arguments: "scale<float, 256>". props may be
 * NULL. A second build of the same kernel (same source after
 * preprocessing, includes included, same properties, compiler and oklc
 * version) comes from the cache without compiling. */
oklc_status oklc_kernel_build(oklc_device *d, const char *path, const char *name,
                              const oklc_props *props, oklc_kernel **out);
/* The same from source text in memory; `path` names it in messages and is
 * where "..." includes are searched. */
oklc_status oklc_kernel_build_string(oklc_device *d, const char *path, const char *source,
                                     const char *name, const oklc_props *props,
                                     oklc_kernel **out);
/* Builds into the cache without loading (one MPI rank builds, the others
 * load): *binary receives the cache entry's folder (free() it). */
oklc_status oklc_kernel_build_only(oklc_device *d, const char *path, const char *name,
                                   const oklc_props *props, char **binary);
/* Loads kernel `name` from a cache entry built by oklc_kernel_build_only. */
oklc_status oklc_kernel_load(oklc_device *d, const char *binary, const char *name,
                             oklc_kernel **out);
void oklc_kernel_free(oklc_kernel *k);
/* The kernel's arguments, as the metadata says; -1 for a native kernel. */
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
 * OKLC_ARG_INT passes integer parameters of up to 4 bytes (converted to the
 * parameter's size), OKLC_ARG_LONG those of 8; OKLC_ARG_FLOAT and
 * OKLC_ARG_DOUBLE float and double; OKLC_ARG_STRUCT a struct of the same
 * size. On the OpenMP device a kernel's library stays mapped after
 * oklc_kernel_free: the OpenMP runtime's idle threads live in it. */
oklc_status oklc_kernel_run(oklc_kernel *k, int nargs, const oklc_arg *args);

#ifdef __cplusplus
}
#endif
#endif
