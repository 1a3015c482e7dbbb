/*
 * rt.h - the runtime's insides, sectioned by file (include/oklc/runtime.h is
 * the public side).
 *
 *   error.c    the thread's last error, small string helpers
 *   fs.c       files and folders: read, write, create, remove
 *   props.c    struct oklc_props
 *   device.c   device specs, the table of device kinds, dispatch
 *   cpu.c      the serial and OpenMP devices (one DeviceOps each)
 *   gpu.c      what the GPU-like devices share: launchers, the launch API,
 *              device build options, native kernels' run dims, vendor
 *              failures; CUDA's and HIP's devices, memory and modules,
 *              NVRTC and hiprtc
 *   dl.c       vendor libraries opened with dlopen, their symbols, the
 *              stand-ins tests swap in
 *   opencl.c   the OpenCL device (libOpenCL.so.1)
 *   cuda.c     the CUDA device (libcuda.so.1) and NVRTC
 *   hip.c      the HIP device (libamdhip64.so) and hiprtc
 *   dpcpp.c    the DPC++ device: SYCL 2020 through a SYCL compiler found at
 *              run time and a support library built with it
 *   metal.c    the Metal device: unavailable (macOS only, not written)
 *   memory.c   oklc_memory: checks, then the device's ops; views (kept
 *              alive by a count on their root), copies between memories,
 *              wrapped and host memory
 *   pool.c     oklc_pool: one allocation handed out as views, first fit
 *              (a view it reserved gives its range back through `release`)
 *   stream.c   streams and events over the kinds' hooks; cpu_stream.c the
 *              CPU devices' (a worker thread each)
 *   toolchain.c what oklc --version reports of the compilers found
 *   source.c   a kernel's input made into backend source, metadata, hashes;
 *              the compile command's and device options' lists
 *   compile.c  finding and running a compiler (posix_spawnp, output piped)
 *   cache.c    the disk cache: its folder (private), keys, entries with a
 *              manifest, published by rename, checked before use
 *   args.c     parameters from the metadata; checking and packing arguments
 *   template.c template kernels: their parameters from the metadata, the
 *              instance a run's arguments deduce, the instances built
 *   kernel.c   oklc_kernel: build, load, run
 *
 * Runtime memory is plain heap memory (oklc_malloc/oklc_free, so tests can
 * make allocations fail); every object is freed by its own *_free call.
 */
#ifndef OKLC_RT_H
#define OKLC_RT_H

#include <sys/types.h>

#include "base/base.h"
#include "oklc/runtime.h"

/* ---- error.c ------------------------------------------------------------------ */

/* Records the message of a failure for oklc_last_error() and returns `s`. */
OKLC_INTERNAL oklc_status oklc_rt_fail(oklc_status s, const char *fmt, ...) OKLC_PRINTF(2, 3);
/* OKLC_ERR_MEMORY, "out of memory" (needs no allocation). */
OKLC_INTERNAL oklc_status oklc_rt_oom(void);
/* Formatted text in memory from oklc_malloc; NULL when memory runs out. */
OKLC_INTERNAL char *oklc_rt_format(const char *fmt, ...) OKLC_PRINTF(1, 2);
OKLC_INTERNAL char *oklc_rt_vformat(const char *fmt, va_list ap);
OKLC_INTERNAL char *oklc_rt_strdup(const char *s);
/* The variable `oklc` of the environment, else OCCA's name for it
 * (`occa`), when set and not empty; *from (if given) says which. */
OKLC_INTERNAL const char *oklc_rt_env(const char *oklc, const char *occa, const char **from);
/* The host's monotonic clock, in seconds (events without a device's). */
OKLC_INTERNAL double oklc_rt_seconds(void);
/* OKLC_VERBOSE=1 (OCCA_VERBOSE): print what the runtime compiles and generates. */
OKLC_INTERNAL bool oklc_rt_verbose(void);

/* ---- fs.c -------------------------------------------------------------------- */

/* The whole file, NUL-terminated (oklc_free it). OKLC_ERR_IO with the reason. */
OKLC_INTERNAL oklc_status oklc_rt_read_file(const char *path, char **text, size_t *len);
OKLC_INTERNAL oklc_status oklc_rt_write_file(const char *path, const char *text, size_t len);
/* Appends to the file, creating it when missing. */
OKLC_INTERNAL oklc_status oklc_rt_append_file(const char *path, const char *text, size_t len);
/* Creates `path` and its missing parents with `mode`. */
OKLC_INTERNAL oklc_status oklc_rt_mkdirs(const char *path, mode_t mode);
/* rm -rf, best effort: what remains is swept again later. Symbolic links
 * are removed, never followed (their targets stay). */
OKLC_INTERNAL void oklc_rt_remove_tree(const char *path);
/* The same for `name` in the open folder `dir`. */
OKLC_INTERNAL void oklc_rt_remove_at(int dir, const char *name);
/* "dir/name" (oklc_free it), NULL when memory runs out. */
OKLC_INTERNAL char *oklc_rt_path(const char *dir, const char *name);
/* The absolute form of an existing path, else a copy of it (oklc_free it). */
OKLC_INTERNAL char *oklc_rt_absolute(const char *path);

/* ---- props.c ------------------------------------------------------------------ */

typedef enum PropKind {
    PROP_DEFINE,
    PROP_INCLUDE_PATH,
    PROP_INCLUDE_FILE,
    PROP_INTRINSICS,      /* oklc_props_intrinsics: a JSON file (its text is in the key) */
    PROP_PLUGIN           /* oklc_props_plugin: a plugin (its hash is in the input's) */
} PropKind;

typedef struct PropCmd {
    PropKind kind;
    char    *text;
} PropCmd;

/* oklc_props_template_arg: a template parameter's value */
typedef struct PropTarg {
    char *name, *value;
} PropTarg;

struct oklc_props {
    PropCmd *cmds;        /* defines and includes, in the order given */
    size_t   ncmds, cap;
    char    *compiler;    /* NULL: OKLC_CXX, else "c++" */
    char    *flags;       /* NULL: OKLC_CXXFLAGS, else "-O3" */
    bool     okl;         /* false: native source for the device's backend */
    bool     no_cpu_rewrites;   /* oklc_props_cpu_rewrites(p, false) */
    PropTarg *targs;      /* template arguments a run does not deduce */
    size_t    ntargs;
};

/* A copy of p (a template kernel keeps its build's props); NULL when
 * memory runs out. */
OKLC_INTERNAL oklc_props *oklc_rt_props_copy(const oklc_props *p);

/* ---- device.c ------------------------------------------------------------------ */

/* What a device spec says: "mode=openmp threads=4". */
typedef struct Spec {
    const char *text;         /* the whole spec, for messages */
    int         threads;      /* 0: not given */
    const char *platform;     /* NULL: not given (the values point into a copy) */
    const char *device;
} Spec;

typedef struct Build Build;
typedef struct LaunchApi LaunchApi;
typedef struct ModuleApi ModuleApi;
typedef struct DlSwap DlSwap;

/* One device kind (QBE's struct Target): a name, what the transpiler
 * targets, and the operations. cpu.c fills two; each GPU-like kind is one
 * more file (opencl.c, cuda.c, hip.c, dpcpp.c) whose command, compile,
 * load, unload and run are gpu.c's, reaching the vendor through the GPU
 * hooks below. */
typedef struct DeviceOps {
    const char  *name;          /* mode name: "openmp" */
    const char  *title;         /* for messages: "OpenMP" */
    oklc_backend backend;
    const char  *source_name;   /* the cache entry's files: "source.cpp" */
    const char  *binary_name;   /* "kernel.so"; GPU: the device binary */
    oklc_status (*open)(oklc_device *d, const Spec *s);
    void (*close)(oklc_device *d);
    oklc_status (*alloc)(oklc_device *d, size_t bytes, void **ptr);
    void (*free)(oklc_device *d, void *ptr);
    /* `bytes` at `offset` of m: from the host's src when src is given
     * (oklc_memory_copy_from_host), else to the host's dst; in the current
     * stream, done when it returns when `wait`. */
    oklc_status (*copy)(const oklc_memory *m, const void *src, void *dst, size_t bytes,
                        size_t offset, bool wait);
    oklc_status (*finish)(oklc_device *d);
    /* Streams (stream.c): the kind's handle of a new one; its end; waiting
     * for one (NULL: the default stream). Events: one recorded in a stream
     * (NULL: the default), waited for, the seconds between two. NULL
     * hooks: every stream is the device's one queue; an event finishes it
     * and reads the host's clock. */
    oklc_status (*stream_new)(oklc_device *d, void **stream);
    void (*stream_free)(oklc_device *d, void *stream);
    oklc_status (*stream_finish)(oklc_device *d, void *stream);
    oklc_status (*event_record)(oklc_device *d, void *stream, void **event);
    oklc_status (*event_wait)(oklc_device *d, void *event);
    oklc_status (*event_elapsed)(oklc_device *d, void *from, void *to, double *seconds);
    void (*event_free)(oklc_device *d, void *event);
    /* What the device says of itself (info zeroed, mode and name set). */
    oklc_status (*query)(oklc_device *d, oklc_device_info *info);
    /* A view: `bytes` at `offset` of root's storage as kernel arguments and
     * copies take it (OpenCL: a sub-buffer); NULL hook: the address plus
     * the offset. unview undoes it (NULL: nothing to undo). */
    oklc_status (*view)(const oklc_memory *root, size_t offset, size_t bytes, void **ptr);
    void (*unview)(oklc_device *d, void *ptr);
    /* `bytes` from src at src_offset to dst at dst_offset, both of this
     * device, not overlapping (memory.c checked), done when it returns. */
    oklc_status (*copy_device)(const oklc_memory *dst, size_t dst_offset,
                               const oklc_memory *src, size_t src_offset, size_t bytes);
    /* Page-locked host memory (CUDA, HIP); NULL hooks: page-aligned heap
     * memory, which is what the device copies from anyway. */
    oklc_status (*host_alloc)(oklc_device *d, size_t bytes, void **ptr);
    void (*host_free)(oklc_device *d, void *ptr);
    /* The compile command without its input and output (b->cmd): the cache
     * key hashes it. */
    oklc_status (*command)(const oklc_device *d, Build *b);
    /* Compiles dir/source_name into dir/binary_name; the output goes to
     * dir/build.log. */
    oklc_status (*compile)(const oklc_device *d, const Build *b, const char *dir);
    /* Loads kernel k->name from the cache entry `dir`; `symbol` is its
     * entry in the metadata (native: the name). */
    oklc_status (*load)(oklc_kernel *k, const char *dir, const char *metadata,
                        const char *symbol);
    void (*unload)(oklc_kernel *k);
    /* args as oklc_kernel_run got them, ptrs as oklc_rt_pack made them. */
    oklc_status (*run)(oklc_kernel *k, int nargs, const oklc_arg *args, void *const *ptrs);

    /* ---- GPU-like devices only (NULL for CPU devices) ---- */
    /* Fills b->device_id (the device and its compiler, for the key) and
     * adds the device compiler's options to b->opts. */
    oklc_status (*device_options)(const oklc_device *d, Build *b);
    /* Compiles b->source into dir/binary_name; its log goes to `log`
     * (oklc_free it), also on failure. */
    oklc_status (*build_device)(const oklc_device *d, const Build *b, const char *dir,
                                char **log);
    /* Loads the device binary of `dir` and finds the n device functions;
     * sets k->module and k->functions. */
    oklc_status (*load_device)(oklc_kernel *k, const char *dir, char *const *names, int n);
    void (*unload_device)(oklc_kernel *k);
    /* Runs device function `index` on grid x block with the arguments
     * (args[i] points to argument i, sizes[i] its bytes); returns the
     * vendor's status, 0 on success, and in *call what failed (a static
     * string); GPU_OWN_ERROR when *call says all (not the vendor's). */
    int (*launch)(oklc_kernel *k, int index, const size_t grid[3], const size_t block[3],
                  int nargs, void *const *args, const size_t *sizes, const char **call);
    /* The vendor's name of a status: "CL_INVALID_WORK_GROUP_SIZE". */
    const char *(*error_name)(int code);
    /* CUDA and HIP: what gpu.c's oklc_gpu_module_* (their finish and GPU
     * hooks) call; NULL for OpenCL. */
    const ModuleApi *module;
} DeviceOps;

/* The DeviceOps entries every GPU-like kind takes from gpu.c, as QBE's
 * amd64 targets share one macro of common fields. */
#define OKLC_GPU_OPS                                                                      \
    .command = oklc_gpu_command, .compile = oklc_gpu_compile, .load = oklc_gpu_load,      \
    .unload = oklc_gpu_unload, .run = oklc_gpu_run

struct oklc_device {
    const DeviceOps *ops;
    int              threads;    /* OpenMP threads; 0: the OpenMP default */
    void            *gpu;        /* GPU-like devices: the vendor's state */
    char            *id;         /* GPU-like devices: what makes its binaries (for keys) */
    char            *label;      /* GPU-like devices: its name, for messages */
    size_t           used;       /* bytes of oklc_memory_alloc's not yet freed (atomic) */
    oklc_stream     *current;    /* where work goes; NULL: the default stream */
    oklc_stream     *streams;    /* those created, not freed (a list: oklc_device_finish) */
    size_t           view_align; /* a view's offset must be a multiple (OpenCL); 0: 1 */
};

struct oklc_stream {
    oklc_device *dev;
    void        *handle;     /* the kind's (CpuStream, CUstream, cl_command_queue...) */
    oklc_stream *next;       /* the device's list */
};

struct oklc_event {
    oklc_device *dev;
    void        *handle;     /* the kind's; NULL where its hooks are NULL */
    double       host_time;  /* then: the host's clock when recorded */
};

/* The kind's handle of the device's current stream; NULL: the default. */
static inline void *oklc_rt_stream(const oklc_device *d)
{
    return d->current ? d->current->handle : NULL;
}

struct oklc_memory {
    oklc_device *dev;
    /* the device address; host memory on CPU devices; a cl_mem (OpenCL),
     * a CUdeviceptr (CUDA), a device pointer (HIP), a USM device pointer
     * (DPC++) */
    void        *ptr;
    size_t       size;
    oklc_type    type;       /* OKLC_TYPE_NONE: untyped */
    /* A view shows part of a root's storage; the root lives (its struct
     * and storage) until it is freed and its last view is. */
    oklc_memory *root;       /* a view: the memory whose storage it shows; NULL: a root */
    size_t       offset;     /* a view: bytes from the root's start */
    int          refs;       /* a root: 1 until it is freed, plus one a view (atomic) */
    bool         wrapped;    /* a root whose storage was allocated elsewhere: not freed */
    /* a view a pool reserved: given back to it when freed (pool.c's) */
    oklc_pool   *pool;
    void       (*release)(oklc_memory *view);
};

/* ---- cpu.c ---------------------------------------------------------------------- */

OKLC_INTERNAL extern const DeviceOps oklc_serial_ops;
OKLC_INTERNAL extern const DeviceOps oklc_openmp_ops;
/* The lines of /proc/cpuinfo's text that say which CPU it is and what it
 * can do (its first processor's model and feature lines), or NULL when
 * memory ran out. */
OKLC_INTERNAL char *oklc_rt_cpu_identity(const char *cpuinfo);

/* A CPU device's run of k now, in the calling thread (cpu.c's). */
typedef oklc_status (*CpuRun)(oklc_kernel *k, int nargs, const oklc_arg *args,
                              void *const *ptrs);

/* ---- cpu_stream.c: the CPU devices' streams (DeviceOps hooks), and their
 * work queued: a run (its arguments copied), a copy ----------------------------- */

OKLC_INTERNAL oklc_status oklc_cpu_stream_new(oklc_device *d, void **stream);
OKLC_INTERNAL void oklc_cpu_stream_free(oklc_device *d, void *stream);
OKLC_INTERNAL oklc_status oklc_cpu_stream_finish(oklc_device *d, void *stream);
OKLC_INTERNAL oklc_status oklc_cpu_event_record(oklc_device *d, void *stream, void **event);
OKLC_INTERNAL oklc_status oklc_cpu_event_wait(oklc_device *d, void *event);
OKLC_INTERNAL oklc_status oklc_cpu_event_elapsed(oklc_device *d, void *from, void *to,
                                                 double *seconds);
OKLC_INTERNAL void oklc_cpu_event_free(oklc_device *d, void *event);
/* The run queued: `run` (cpu.c's) runs it in the stream's thread. */
OKLC_INTERNAL oklc_status oklc_cpu_stream_run(void *stream, CpuRun run, oklc_kernel *k,
                                              int nargs, const oklc_arg *args,
                                              void *const *ptrs);
OKLC_INTERNAL oklc_status oklc_cpu_stream_copy(void *stream, void *dst, const void *src,
                                               size_t bytes);

/* ---- gpu.c ---------------------------------------------------------------------- */

enum { GPU_OWN_ERROR = -2147483647 - 1 };    /* DeviceOps.launch: a failure of ours */

/* The launch API of docs/launchers.md, as the launcher declares it. */
struct LaunchApi {
    int   version;    /* 2 */
    void *device;
    int (*run)(void *device, int index, const unsigned long grid[3],
               const unsigned long block[3], void *const *args);
    /* a launch the kernel's loops refuse (a step that is not positive,
     * more threads than @max_inner_dims): the message; returns non-zero */
    int (*fail)(void *device, const char *message);
};

/* The DeviceOps entries every GPU-like kind shares. */
OKLC_INTERNAL oklc_status oklc_gpu_command(const oklc_device *d, Build *b);
OKLC_INTERNAL oklc_status oklc_gpu_compile(const oklc_device *d, const Build *b,
                                           const char *dir);
OKLC_INTERNAL oklc_status oklc_gpu_load(oklc_kernel *k, const char *dir, const char *metadata,
                                        const char *symbol);
OKLC_INTERNAL void oklc_gpu_unload(oklc_kernel *k);
OKLC_INTERNAL oklc_status oklc_gpu_run(oklc_kernel *k, int nargs, const oklc_arg *args,
                                       void *const *ptrs);
/* d->gpu, the vendor's state: `size` bytes, zeroed; NULL when memory runs
 * out. */
OKLC_INTERNAL void *oklc_gpu_state(oklc_device *d, size_t size);
/* A spec's device=N for CUDA and HIP (index only; default 0), and what
 * does not apply to them. */
OKLC_INTERNAL oklc_status oklc_gpu_device_index(const Spec *s, const char *mode, int *index);
/* Adds to b->opts the device options the props give: native source's own
 * folder (-I, for its "..." includes) and defines (-DNAME=VALUE), the
 * include paths (-I/abs), then oklc_props_compiler_flags split at blanks.
 * Native source's included files become #include lines before it. */
OKLC_INTERNAL oklc_status oklc_gpu_props_options(Build *b);
/* A vendor call's failure: "<fmt ...>: <call>: <ops->error_name(code)>
 * (<code>)", as `st`, or OKLC_ERR_MEMORY for the module API's oom code. */
OKLC_INTERNAL oklc_status oklc_gpu_fail(const DeviceOps *ops, oklc_status st, int code,
                                        const char *call, const char *fmt, ...)
    OKLC_PRINTF(5, 6);

/* The runtime compilers' calls, which NVRTC and hiprtc take with the same
 * parameters: each field is named after the call (nvrtc<Field>,
 * hiprtc<Field>) and filled by dlsym into the vendor file's table. A
 * program is void *; each returns the compiler's status, 0 on success. */
typedef struct RtcCalls {
    int (*Version)(int *major, int *minor);
    int (*CreateProgram)(void **p, const char *source, const char *name, int nheaders,
                         const char *const *headers, const char *const *include_names);
    int (*CompileProgram)(void *p, int nopts, const char *const *opts);
    int (*GetProgramLogSize)(void *p, size_t *n);
    int (*GetProgramLog)(void *p, char *log);
    int (*DestroyProgram)(void **p);
    const char *(*GetErrorString)(int r);
    int (*GetCodeSize)(void *p, size_t *n);    /* nvrtcGetCUBINSize */
    int (*GetCode)(void *p, char *code);       /* nvrtcGetCUBIN */
    /* NVRTC: the PTX, when there is no cubin (an arch given as compute_XY);
     * hiprtc: NULL */
    int (*GetPTXSize)(void *p, size_t *n);
    int (*GetPTX)(void *p, char *ptx);
} RtcCalls;

/* A runtime compiler, as gpu.c drives it. */
typedef struct Rtc {
    const char *name;        /* "NVRTC", for messages */
    const char *prefix;      /* "nvrtc": its calls' prefix; its line in b->device_id */
    oklc_status (*load)(void);    /* OKLC_ERR_UNAVAILABLE saying why */
    const RtcCalls *calls;
    int oom;                 /* CreateProgram's "out of memory"; 0: none taken as such */
    /* The option that finds the toolkit's own headers, given last (oklc_free
     * it); NULL: none needed or none found. NULL hook: none. */
    char *(*include)(void);
} Rtc;

/* The compiler's version ("13.0"), or OKLC_ERR_UNAVAILABLE. */
OKLC_INTERNAL oklc_status oklc_gpu_rtc_version(const Rtc *rtc, char version[32]);
/* The code of `source` for the options (the architecture among them); the
 * log comes back in *log (oklc_free it), on failure in the message too.
 * `what` names the source in messages. `okl`: the source is oklc's, whose
 * prelude declares what the C and C++ headers of math, integer types and
 * printf would: those a kernel includes are given to the compiler empty
 * (NVRTC and hiprtc have no C++ library to find them in). */
OKLC_INTERNAL oklc_status oklc_gpu_rtc_compile(const Rtc *rtc, const char *source,
                                               const char *what, bool okl,
                                               const char *const *opts,
                                               size_t nopts, char **binary, size_t *size,
                                               char **log);

/* The calls of CUDA's driver and HIP's runtime that take the same
 * parameters (cuModuleLoadData and hipModuleLoadData, ...), filled by
 * dlsym into each file's table; modules and functions are void *, as
 * oklc_kernel keeps them. Each returns the vendor's status, 0 on success. */
typedef struct DriverCalls {
    int (*init)(unsigned flags);
    int (*count)(int *n);    /* of devices */
    int (*synchronize)(void);
    int (*load)(void **module, const void *image);
    int (*function)(void **f, void *module, const char *name);
    int (*unload)(void *module);
    int (*launch)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                  unsigned bz, unsigned shared, void *stream, void **params, void **extra);
    int (*attribute)(int *value, int attribute, int device);
    int (*total_memory)(size_t *bytes, int device);
    int (*memory_info)(size_t *free, size_t *total);    /* of the current device */
    /* streams and events: CUstream and CUevent, hipStream_t and hipEvent_t */
    int (*stream_create)(void **stream, unsigned flags);
    int (*stream_destroy)(void *stream);
    int (*stream_synchronize)(void *stream);
    int (*event_create)(void **event, unsigned flags);
    int (*event_record)(void *event, void *stream);
    int (*event_synchronize)(void *event);
    int (*event_elapsed)(float *ms, void *from, void *to);
    int (*event_destroy)(void *event);
} DriverCalls;

enum { GPU_ARCH_OPTION = 320 };    /* ModuleApi.arch: room for the option */

typedef enum GpuCopy { GPU_TO_DEVICE, GPU_TO_HOST, GPU_ON_DEVICE } GpuCopy;

/* What CUDA and HIP differ in where gpu.c opens their devices and builds,
 * loads and runs their modules. */
struct ModuleApi {
    const Rtc         *rtc;
    const DriverCalls *calls;     /* in the vendor's dlsym table: filled once loaded */
    struct {
        const char *init, *count, *synchronize, *select, *load, *function, *launch, *alloc,
            *to_device, *to_host, *on_device, *host_alloc, *attribute, *total_memory,
            *memory_info, *stream, *event;
    } call;                       /* the calls' names, for messages */
    const char *not_started;      /* "the CUDA driver does not start" */
    DlSwap     *lib;              /* the vendor's library, filling `calls` */
    bool (*no_device)(int r);     /* r (of init or count) means "no device" */
    size_t state;                 /* the bytes of d->gpu, the vendor's state */
    /* Opens device `index` (of the spec s) into d->gpu (zeroed) and names
     * it (d->label, d->id); on failure close undoes what it did. */
    oklc_status (*open)(oklc_device *d, const Spec *s, int index);
    /* Lets the device go (d->gpu is freed after it; partly open too). */
    void (*close)(oklc_device *d);
    /* Makes the device current for the calling thread; the vendor's status. */
    int (*select)(const oklc_device *d);
    /* Device memory (a CUdeviceptr, a HIP device pointer); each returns
     * the vendor's status. */
    int (*alloc)(void **ptr, size_t bytes);
    int (*free)(void *ptr);
    int (*copy)(void *dst, const void *src, size_t bytes, GpuCopy way);
    int (*copy_async)(void *dst, const void *src, size_t bytes, GpuCopy way, void *stream);
    /* Page-locked host memory. */
    int (*host_alloc)(void **ptr, size_t bytes);
    int (*host_free)(void *ptr);
    /* Fills info's vendor and arch; returns the device's number for the
     * calls' `device`. */
    int (*query)(const oklc_device *d, oklc_device_info *info);
    /* The vendor's numbers of the attributes info holds: compute units,
     * threads of a block, its x, y, z dims, shared memory of a block. */
    int attributes[6];
    /* The compiler's option for the device's architecture. */
    oklc_status (*arch)(const oklc_device *d, char option[GPU_ARCH_OPTION]);
    int oom;                      /* the vendor's "out of memory" */
};

/* ModuleApi.select, OKLC_ERR_DEVICE naming the call when it fails. */
OKLC_INTERNAL oklc_status oklc_gpu_select(const oklc_device *d);
/* The DeviceOps entries of CUDA and HIP that ModuleApi drives. Opening
 * checks the spec's device index against the devices there are once the
 * vendor's library is loaded and started. */
#define OKLC_GPU_MODULE_OPS                                                               \
    .open = oklc_gpu_module_open, .close = oklc_gpu_module_close,                         \
    .alloc = oklc_gpu_module_alloc, .free = oklc_gpu_module_free,                         \
    .copy = oklc_gpu_module_copy, .copy_device = oklc_gpu_module_copy_device,             \
    .host_alloc = oklc_gpu_module_host_alloc, .host_free = oklc_gpu_module_host_free,     \
    .query = oklc_gpu_module_query, .stream_new = oklc_gpu_module_stream_new,             \
    .stream_free = oklc_gpu_module_stream_free,                                           \
    .stream_finish = oklc_gpu_module_stream_finish,                                       \
    .event_record = oklc_gpu_module_event_record,                                         \
    .event_wait = oklc_gpu_module_event_wait,                                             \
    .event_elapsed = oklc_gpu_module_event_elapsed,                                       \
    .event_free = oklc_gpu_module_event_free,                                             \
    .finish = oklc_gpu_module_finish, .device_options = oklc_gpu_module_options,          \
    .build_device = oklc_gpu_module_build, .load_device = oklc_gpu_module_load,           \
    .unload_device = oklc_gpu_module_unload, .launch = oklc_gpu_module_launch
OKLC_INTERNAL oklc_status oklc_gpu_module_open(oklc_device *d, const Spec *s);
OKLC_INTERNAL void oklc_gpu_module_close(oklc_device *d);
OKLC_INTERNAL oklc_status oklc_gpu_module_alloc(oklc_device *d, size_t bytes, void **ptr);
OKLC_INTERNAL void oklc_gpu_module_free(oklc_device *d, void *ptr);
OKLC_INTERNAL oklc_status oklc_gpu_module_copy(const oklc_memory *m, const void *src,
                                               void *dst, size_t bytes, size_t offset,
                                               bool wait);
OKLC_INTERNAL oklc_status oklc_gpu_module_stream_new(oklc_device *d, void **stream);
OKLC_INTERNAL void oklc_gpu_module_stream_free(oklc_device *d, void *stream);
OKLC_INTERNAL oklc_status oklc_gpu_module_stream_finish(oklc_device *d, void *stream);
OKLC_INTERNAL oklc_status oklc_gpu_module_event_record(oklc_device *d, void *stream,
                                                       void **event);
OKLC_INTERNAL oklc_status oklc_gpu_module_event_wait(oklc_device *d, void *event);
OKLC_INTERNAL oklc_status oklc_gpu_module_event_elapsed(oklc_device *d, void *from, void *to,
                                                        double *seconds);
OKLC_INTERNAL void oklc_gpu_module_event_free(oklc_device *d, void *event);
OKLC_INTERNAL oklc_status oklc_gpu_module_copy_device(const oklc_memory *dst,
                                                      size_t dst_offset,
                                                      const oklc_memory *src,
                                                      size_t src_offset, size_t bytes);
OKLC_INTERNAL oklc_status oklc_gpu_module_host_alloc(oklc_device *d, size_t bytes, void **ptr);
OKLC_INTERNAL void oklc_gpu_module_host_free(oklc_device *d, void *ptr);
OKLC_INTERNAL oklc_status oklc_gpu_module_query(oklc_device *d, oklc_device_info *info);
OKLC_INTERNAL oklc_status oklc_gpu_module_finish(oklc_device *d);
OKLC_INTERNAL oklc_status oklc_gpu_module_options(const oklc_device *d, Build *b);
OKLC_INTERNAL oklc_status oklc_gpu_module_build(const oklc_device *d, const Build *b,
                                                const char *dir, char **log);
OKLC_INTERNAL oklc_status oklc_gpu_module_load(oklc_kernel *k, const char *dir,
                                               char *const *names, int n);
OKLC_INTERNAL void oklc_gpu_module_unload(oklc_kernel *k);
OKLC_INTERNAL int oklc_gpu_module_launch(oklc_kernel *k, int index, const size_t grid[3],
                                         const size_t block[3], int nargs, void *const *args,
                                         const size_t *sizes, const char **call);
/* How many device kernels this process has launched (tests). */
OKLC_INTERNAL long oklc_rt_launch_count(void);

/* ---- dl.c ----------------------------------------------------------------------- */

/* A vendor library opened on first use, once per process, never closed
 * (drivers keep threads in their code). A failure is tried again later. */
typedef struct DlSym {
    const char *name;
    size_t      offset;      /* of the function pointer in the table */
    bool        optional;    /* a missing one stays NULL */
} DlSym;

typedef struct DlLib {
    const char *what;        /* for messages: "libOpenCL.so.1 (the OpenCL ICD loader)" */
    const char *ns;          /* brings its own LLVM: the namespace it is dlmopen'ed into
                                (dl.c; one per name); NULL: none of its own */
    void       *handle;
    bool        loaded;
} DlLib;

/* Opens the first of `names` that loads (RTLD_NOW | RTLD_LOCAL) and fills
 * `table` with its symbols. OKLC_ERR_UNAVAILABLE saying why. Thread-safe. */
OKLC_INTERNAL oklc_status oklc_rt_dl_load(DlLib *lib, const char *const *names, size_t nnames,
                                          const DlSym *syms, size_t nsyms, void *table);
/* A vendor library that tests replace with a stand-in (tests/runtime/
 * gpu_mock.c for CUDA and HIP, a missing loader for OpenCL). */
struct DlSwap {
    DlLib              vendor, stand_in;
    const char *const *names;    /* the vendor's, tried in order */
    size_t             nnames;
    const DlSym       *syms;
    size_t             nsyms;
    void              *table;    /* one for both: whichever loads next fills it */
    const char        *path;     /* the stand-in's; NULL: the vendor's */
};

/* Tests: `path` is loaded instead of the vendor's library from the next
 * load on (NULL: the vendor's again). */
OKLC_INTERNAL void oklc_rt_dl_swap(DlSwap *s, const char *path);
/* oklc_rt_dl_load of the stand-in when there is one, else of the vendor's. */
OKLC_INTERNAL oklc_status oklc_rt_dl_load_swap(DlSwap *s);
/* The symbol `name` of an open library as a function pointer (memcpy'd). */
OKLC_INTERNAL bool oklc_rt_dl_symbol(void *handle, const char *name, void *fn);
/* Sets up this thread in every namespace's C library (once per thread):
 * first thing in each runtime function that may call a driver. */
OKLC_INTERNAL void oklc_rt_dl_enter(void);
/* dlopen of `path` into `group`'s namespace as oklc_rt_dl_load does (NULL
 * group: the process's own); NULL on failure, dlerror() says why. */
OKLC_INTERNAL void *oklc_rt_dl_open(const char *path, const char *group);
/* dlopen of `path` (RTLD_NOW | RTLD_LOCAL | flags) into the namespace of
 * the open library `beside`. */
OKLC_INTERNAL void *oklc_rt_dl_open_beside(void *beside, const char *path, int flags);
/* The file of the loaded library that holds function `fn`, links followed
 * (oklc_free it); NULL when none does. */
OKLC_INTERNAL char *oklc_rt_dl_file(void (*fn)(void));

/* ---- opencl.c, cuda.c, hip.c ----------------------------------------------------- */

OKLC_INTERNAL extern const DeviceOps oklc_opencl_ops;
OKLC_INTERNAL extern const DeviceOps oklc_cuda_ops;
OKLC_INTERNAL extern const DeviceOps oklc_hip_ops;
/* Tests: the library the next loads try instead of the vendor's (NULL:
 * the vendor's again); CUDA's and HIP's are their ModuleApi's lib. */
OKLC_INTERNAL void oklc_rt_opencl_library(const char *name);
/* NVRTC (cuda.c) and hiprtc (hip.c), for oklc_gpu_rtc_compile: the cubin
 * for the --gpu-architecture=sm_XY in the options (PTX for compute_XY), a
 * code object for the --offload-arch. */
OKLC_INTERNAL extern const Rtc oklc_nvrtc;
OKLC_INTERNAL extern const Rtc oklc_hiprtc;

/* ---- dpcpp.c, metal.c -------------------------------------------------------------- */

OKLC_INTERNAL extern const DeviceOps oklc_dpcpp_ops;
OKLC_INTERNAL extern const DeviceOps oklc_metal_ops;
/* The SYCL compiler's command line: OKLC_SYCL_CXX, else "icpx -fsycl" or
 * "acpp" when found in PATH, else NULL; *from says where it came from. */
OKLC_INTERNAL const char *oklc_rt_sycl_command(const char **from);
/* dpcpp_support.cpp, embedded by CMake (scripts/embed.cmake). */
extern const char oklc_dpcpp_support[];
extern const unsigned long oklc_dpcpp_support_len;

/* ---- source.c ------------------------------------------------------------------- */

/* Everything one build gathers before the cache is asked. */
struct Build {
    oklc_device       *dev;
    const oklc_props  *props;      /* never NULL (defaults when the caller gave none) */
    const char        *path;       /* the input, for messages and includes */
    char              *source_dir; /* native: the input's folder (absolute), or NULL */
    const char        *name;       /* the kernel asked for */
    char              *source;     /* the backend's source (oklc_free) */
    size_t             source_len;
    char              *metadata;   /* the metadata JSON (oklc_free) */
    char              *input_hash; /* OKL: the transpiler's; native: NULL */
    char              *preprocessed;  /* native: includes inlined, for the key */
    char             **cmd;        /* the compile command, NULL-terminated (oklc_free each) */
    size_t             ncmd;
    /* GPU-like devices */
    char              *launcher;   /* OKL: the host launcher's C++ (oklc_free) */
    char             **opts;       /* the device compiler's options, NULL-terminated */
    size_t             nopts;
    char              *device_id;  /* the device and its compiler, for the key; CPU
                                    * devices: the CPU, when the flags say native */
};

/* Makes b->source and b->metadata from `text` (NULL: read b->path):
 * transpiles OKL, or takes native source as it is. */
OKLC_INTERNAL oklc_status oklc_rt_source(Build *b, const char *text);
OKLC_INTERNAL void oklc_rt_build_free(Build *b);
/* Appends a copy of `arg` to b->cmd; the _joined forms append option and
 * value as one argument ("-I/usr/include"); opt: to b->opts. */
OKLC_INTERNAL oklc_status oklc_rt_cmd_add(Build *b, const char *arg);
OKLC_INTERNAL oklc_status oklc_rt_cmd_add_joined(Build *b, const char *option,
                                                 const char *value);
OKLC_INTERNAL oklc_status oklc_rt_opt_add(Build *b, const char *opt);
OKLC_INTERNAL oklc_status oklc_rt_opt_add_joined(Build *b, const char *option,
                                                 const char *value);

/* ---- compile.c ------------------------------------------------------------------ */

/* Appends to b->cmd the compiler (props, else OKLC_CXX, else "c++") as an
 * absolute path; then its flags (props, else OKLC_CXXFLAGS, else
 * "-O3 -march=native"; on POWER -mcpu=native). */
OKLC_INTERNAL oklc_status oklc_rt_compiler(Build *b);
/* The C++ compiler when the props name none: OKLC_CXX, OCCA_CXX, else
 * "c++"; *from says where it came from. */
OKLC_INTERNAL const char *oklc_rt_default_compiler(const char **from);
OKLC_INTERNAL oklc_status oklc_rt_compiler_flags(Build *b);
/* The program `name` as an absolute path (oklc_free it): a name with a '/'
 * as it is, if executable; else the first in PATH. NULL when there is none
 * (or memory runs out). */
OKLC_INTERNAL char *oklc_rt_find_program(const char *name);
/* Runs argv (argv[0] through PATH); *output gets stdout and stderr
 * (oklc_free it); *exit_code its exit status, or -1 when killed. */
OKLC_INTERNAL oklc_status oklc_rt_spawn(const char *const argv[], char **output,
                                        int *exit_code);
/* Runs a compile command for the kernel source `what`, its output in
 * dir/build.log; OKLC_ERR_COMPILE with the whole output when it fails. */
OKLC_INTERNAL oklc_status oklc_rt_run_compiler(const char *const argv[], const char *dir,
                                               const char *what);
/* Runs b->cmd on dir/src into dir/out (-o), as oklc_rt_run_compiler. */
OKLC_INTERNAL oklc_status oklc_rt_compile_file(const Build *b, const char *dir,
                                               const char *src, const char *out);
/* argv as one line, quoted where a shell would need it (for messages). */
OKLC_INTERNAL char *oklc_rt_command_line(const char *const argv[]);
/* How many compilers this process has run (tests count cache misses). */
OKLC_INTERNAL long oklc_rt_compile_count(void);
/* Counts a compile that runs in process (a GPU device's compiler). */
OKLC_INTERNAL void oklc_rt_count_compile(void);

/* ---- cache.c -------------------------------------------------------------------- */

/* The cache folder (absolute, without links), created 0700 and checked to
 * be private: ours, not writable by others (readable: made 0700), every
 * folder above it root's or ours and writable by its owner alone (or
 * sticky). OKLC_ERR_IO saying what is wrong and how to fix it. */
OKLC_INTERNAL oklc_status oklc_rt_cache_root(char **root);
/* The key: 32 hex digits of XXH3-128 over everything that changes the binary. */
OKLC_INTERNAL void oklc_rt_cache_key(const Build *b, char key[33]);
/* A fresh folder root/<key>.tmp.<pid>.<random> to build in. */
OKLC_INTERNAL oklc_status oklc_rt_cache_tmp(const char *root, const char *key, char **tmp);
/* Writes tmp/manifest, last: every file of the build with its size and
 * hash. */
OKLC_INTERNAL oklc_status oklc_rt_cache_seal(const char *tmp);
/* OKLC_OK when every file of `entry` matches its manifest and none is
 * missing or extra; OKLC_ERR_LOAD saying why not ("the cache entry '...'
 * is damaged: ..."), *found false when there is no entry at all;
 * OKLC_ERR_MEMORY. */
OKLC_INTERNAL oklc_status oklc_rt_cache_verify(const char *entry, bool *found);
/* Whether `entry` has a manifest (a folder made by hand has none). */
OKLC_INTERNAL bool oklc_rt_cache_sealed(const char *entry);
/* Renames `tmp` (sealed) to `entry`. When an entry is there already, keeps
 * it if it is whole (another process got there first) and removes ours;
 * when it is damaged, swaps ours in (RENAME_EXCHANGE) and removes it. */
OKLC_INTERNAL oklc_status oklc_rt_cache_publish(const char *tmp, const char *entry);
/* The end of a build in `tmp` whose steps gave `st`: OK, sealed and
 * published as `entry` (a failure of its key kept before goes); a failed
 * compile becomes root/failed/<key>, the last failure of that key, which
 * the message names; any other failure removes it. */
OKLC_INTERNAL oklc_status oklc_rt_cache_commit(const char *tmp, const char *entry,
                                              oklc_status st);
/* Removes temporary folders of ours older than `age` seconds, failed
 * builds a day older still (a link so named is removed, its target never
 * touched). */
OKLC_INTERNAL void oklc_rt_cache_sweep(const char *root, long age);

/* ---- args.c --------------------------------------------------------------------- */

typedef enum ParamKind {
    PARAM_MEMORY,
    PARAM_INT,
    PARAM_FLOAT,
    PARAM_STRUCT
} ParamKind;

typedef struct Param {
    char     *name;
    char     *type;      /* as written: "const int" */
    ParamKind kind;
    size_t    size;
} Param;

/* The kernel `name` in the metadata: its entry symbol and parameters.
 * *nparams is -1 for native kernels (no metadata). */
OKLC_INTERNAL oklc_status oklc_rt_find_kernel(const char *metadata, const char *where,
                                              const char *name, char **symbol,
                                              Param **params, int *nparams);
OKLC_INTERNAL void oklc_rt_params_free(Param *p, int n);
/* The list `key` of kernel `name`, *n strings (oklc_rt_strings_free them;
 * none when it has no such list): "functions", its device functions in
 * launch order; "faults", what its device kernels report. */
OKLC_INTERNAL oklc_status oklc_rt_find_strings(const char *metadata, const char *where,
                                               const char *name, const char *key,
                                               char ***list, int *n);
OKLC_INTERNAL void oklc_rt_strings_free(char **s, int n);
/* The backend named by the metadata ("serial"); NULL when it names none. */
OKLC_INTERNAL oklc_status oklc_rt_metadata_backend(const char *metadata, char **backend);

/* One argument's value, converted to its parameter's exact type. */
typedef union Slot {
    int8_t   i8;
    int16_t  i16;
    int32_t  i32;
    int64_t  i64;
    uint16_t f16;    /* half's bits */
    float    f32;
    double   f64;
    void    *ptr;
} Slot;

/* Checks args against k's parameters and fills ptrs[i] (pointing into
 * slots[i] or the struct's bytes): the CPU calling convention. */
OKLC_INTERNAL oklc_status oklc_rt_pack(const oklc_kernel *k, int nargs, const oklc_arg *args,
                                       Slot *slots, void **ptrs);

/* ---- template.c ----------------------------------------------------------------- */

/* A template kernel built by its bare name: its parameters, its arguments
 * (which deduce which parameter), how to build an instance, and the
 * instances built so far. */
typedef struct Template Template;

/* The template kernel `name` of the metadata, kept with the path or text
 * it came from and a copy of props: *t, or NULL when `name` is no
 * template kernel there. OKLC_ERR_ARGUMENT when props give a template
 * argument that names no parameter. */
OKLC_INTERNAL oklc_status oklc_rt_template_new(const char *metadata, const char *where,
                                               const char *name, const char *path,
                                               const char *text, const oklc_props *props,
                                               Template **t);
/* Frees t and, with free_instance, the instances it keeps: kernels are
 * kernel.c's to free, and template.c does not call back up into it. */
OKLC_INTERNAL void oklc_rt_template_free(Template *t, void (*free_instance)(oklc_kernel *k));
/* What builds its instances: the path, the text (NULL: read the path),
 * the props. */
OKLC_INTERNAL const char *oklc_rt_template_path(const Template *t);
OKLC_INTERNAL const char *oklc_rt_template_text(const Template *t);
OKLC_INTERNAL const oklc_props *oklc_rt_template_props(const Template *t);
/* Its number of arguments. */
OKLC_INTERNAL int oklc_rt_template_nargs(const Template *t);
/* The instance the arguments deduce, named as the transpiler names it:
 * "scale<float, 256>" (oklc_free it); OKLC_ERR_ARGUMENT saying which
 * parameter cannot be deduced, or which arguments disagree. */
OKLC_INTERNAL oklc_status oklc_rt_template_deduce(const Template *t, const char *kernel,
                                                  int nargs, const oklc_arg *args,
                                                  char **instance);
/* The table of instances built: lock it around find and add. */
OKLC_INTERNAL void oklc_rt_template_lock(Template *t);
OKLC_INTERNAL void oklc_rt_template_unlock(Template *t);
OKLC_INTERNAL oklc_kernel *oklc_rt_template_find(const Template *t, const char *instance);
/* Keeps k (freed with t, by free_instance); OKLC_ERR_MEMORY leaves it to the caller. */
OKLC_INTERNAL oklc_status oklc_rt_template_add(Template *t, const char *instance,
                                               oklc_kernel *k);

/* ---- kernel.c ------------------------------------------------------------------- */

struct oklc_kernel {
    oklc_device *dev;
    char        *name;
    Template    *tmpl;         /* a template kernel built by its bare name, else NULL:
                                * runs go to its instances */
    Param       *params;
    int          nparams;      /* -1: native, arguments unchecked */
    void        *lib;          /* the loaded binary (dlopen handle); GPU: the launcher */
    /* CPU devices: the entry of oklc's output (non-zero: the kernel refused
     * the run, saying why in message), or any other's */
    int        (*entry)(void *const *args, char *message, size_t size);
    void       (*native_entry)(void *const *args);
    bool         occa_form;    /* native_entry takes OCCA's form: occa_nargs pointers */
    int          occa_nargs;
    void       (*set_threads)(int);   /* OpenMP builds: _occa_set_num_threads */
    /* GPU-like devices */
    int        (*launch)(const LaunchApi *api, void *const *args);   /* OKL: the launcher */
    void        *module;       /* cl_program, CUmodule, hipModule_t; DPC++: kernel.so */
    void       **functions;    /* cl_kernel, CUfunction, hipFunction_t, DPC++'s K_run (its
                                * bytes): one per device kernel */
    char       **function_names;
    int          nfunctions;
    char       **faults;       /* what the device kernels report, by index (their last
                                * argument, int[nfaults], non-zero: that fault) */
    int          nfaults;
    void        *lock;         /* OpenCL: a mutex (kernel arguments live in the cl_kernel) */
    bool         dims_set;     /* native: oklc_kernel_set_run_dims was called */
    size_t       outer[3], inner[3];
};

#endif
