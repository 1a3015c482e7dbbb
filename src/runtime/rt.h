/*
 * rt.h - the runtime's insides, sectioned by file (include/oklc/runtime.h is
 * the public side).
 *
 *   error.c    the thread's last error, small string helpers
 *   fs.c       files and folders: read, write, create, remove
 *   props.c    struct oklc_props
 *   device.c   device specs, the table of device kinds, dispatch
 *   cpu.c      the serial and OpenMP devices (one DeviceOps each)
 *   memory.c   oklc_memory: checks, then the device's ops
 *   source.c   a kernel's input made into backend source, metadata, hashes
 *   compile.c  finding and running a compiler (posix_spawnp, output piped)
 *   cache.c    the disk cache: its folder, keys, entries published by rename
 *   args.c     parameters from the metadata; checking and packing arguments
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
/* OKLC_VERBOSE=1: print what the runtime compiles and generates. */
OKLC_INTERNAL bool oklc_rt_verbose(void);

/* ---- fs.c -------------------------------------------------------------------- */

/* The whole file, NUL-terminated (oklc_free it). OKLC_ERR_IO with the reason. */
OKLC_INTERNAL oklc_status oklc_rt_read_file(const char *path, char **text, size_t *len);
OKLC_INTERNAL oklc_status oklc_rt_write_file(const char *path, const char *text, size_t len);
/* Creates `path` and its missing parents with `mode`. */
OKLC_INTERNAL oklc_status oklc_rt_mkdirs(const char *path, mode_t mode);
/* rm -rf, best effort: what remains is swept again later. */
OKLC_INTERNAL void oklc_rt_remove_tree(const char *path);
/* "dir/name" (oklc_free it), NULL when memory runs out. */
OKLC_INTERNAL char *oklc_rt_path(const char *dir, const char *name);
/* The absolute form of an existing path, else a copy of it (oklc_free it). */
OKLC_INTERNAL char *oklc_rt_absolute(const char *path);

/* ---- props.c ------------------------------------------------------------------ */

typedef enum PropKind {
    PROP_DEFINE,
    PROP_INCLUDE_PATH,
    PROP_INCLUDE_FILE
} PropKind;

typedef struct PropCmd {
    PropKind kind;
    char    *text;
} PropCmd;

struct oklc_props {
    PropCmd *cmds;        /* defines and includes, in the order given */
    size_t   ncmds, cap;
    char    *compiler;    /* NULL: OKLC_CXX, else "c++" */
    char    *flags;       /* NULL: OKLC_CXXFLAGS, else "-O3" */
    bool     okl;         /* false: native source for the device's backend */
};

/* ---- device.c ------------------------------------------------------------------ */

/* What a device spec says: "mode=openmp threads=4". */
typedef struct Spec {
    const char *text;         /* the whole spec, for messages */
    int         threads;      /* 0: not given */
    const char *platform;     /* NULL: not given (the values point into a copy) */
    const char *device;
} Spec;

typedef struct Build Build;

/* One device kind (QBE's struct Target): a name, what the transpiler
 * targets, and the operations. cpu.c fills two; a GPU kind is one more file. */
typedef struct DeviceOps {
    const char  *name;          /* mode name: "openmp" */
    oklc_backend backend;
    const char  *source_name;   /* the cache entry's files: "source.cpp" */
    const char  *binary_name;   /* "kernel.so" */
    oklc_status (*open)(oklc_device *d, const Spec *s);
    void (*close)(oklc_device *d);
    oklc_status (*alloc)(oklc_device *d, size_t bytes, void **ptr);
    void (*free)(oklc_device *d, void *ptr);
    oklc_status (*copy_in)(oklc_memory *m, const void *src, size_t bytes, size_t offset);
    oklc_status (*copy_out)(const oklc_memory *m, void *dst, size_t bytes, size_t offset);
    oklc_status (*finish)(oklc_device *d);
    /* The compile command without its input and output (b->cmd): the cache
     * key hashes it. */
    oklc_status (*command)(const oklc_device *d, Build *b);
    /* Compiles dir/source_name into dir/binary_name; the output goes to
     * dir/build.log. */
    oklc_status (*compile)(const oklc_device *d, const Build *b, const char *dir);
    oklc_status (*load)(oklc_kernel *k, const char *binary, const char *symbol);
    void (*unload)(oklc_kernel *k);
    oklc_status (*run)(oklc_kernel *k, void *const *args);
} DeviceOps;

struct oklc_device {
    const DeviceOps *ops;
    int              threads;    /* OpenMP threads; 0: the OpenMP default */
};

struct oklc_memory {
    oklc_device *dev;
    void        *ptr;     /* the device address; host memory on CPU devices */
    size_t       size;
};

/* ---- cpu.c ---------------------------------------------------------------------- */

OKLC_INTERNAL extern const DeviceOps oklc_serial_ops;
OKLC_INTERNAL extern const DeviceOps oklc_openmp_ops;

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
};

/* Makes b->source and b->metadata from `text` (NULL: read b->path):
 * transpiles OKL, or takes native source as it is. */
OKLC_INTERNAL oklc_status oklc_rt_source(Build *b, const char *text);
OKLC_INTERNAL void oklc_rt_build_free(Build *b);
/* Appends a copy of `arg` to b->cmd. */
OKLC_INTERNAL oklc_status oklc_rt_cmd_add(Build *b, const char *arg);

/* ---- compile.c ------------------------------------------------------------------ */

/* Appends to b->cmd the compiler (props, else OKLC_CXX, else "c++") as an
 * absolute path; then its flags (props, else OKLC_CXXFLAGS, else "-O3"). */
OKLC_INTERNAL oklc_status oklc_rt_compiler(Build *b);
OKLC_INTERNAL oklc_status oklc_rt_compiler_flags(Build *b);
/* Runs argv (argv[0] through PATH); *output gets stdout and stderr
 * (oklc_free it); *exit_code its exit status, or -1 when killed. */
OKLC_INTERNAL oklc_status oklc_rt_spawn(const char *const argv[], char **output,
                                        int *exit_code);
/* Runs a compile command for the kernel source `what`, its output in
 * dir/build.log; OKLC_ERR_COMPILE with the whole output when it fails. */
OKLC_INTERNAL oklc_status oklc_rt_run_compiler(const char *const argv[], const char *dir,
                                               const char *what);
/* argv as one line, quoted where a shell would need it (for messages). */
OKLC_INTERNAL char *oklc_rt_command_line(const char *const argv[]);
/* How many compilers this process has run (tests count cache misses). */
OKLC_INTERNAL long oklc_rt_compile_count(void);

/* ---- cache.c -------------------------------------------------------------------- */

/* The cache folder (absolute), created 0700 and checked to be ours. */
OKLC_INTERNAL oklc_status oklc_rt_cache_root(char **root);
/* The key: 32 hex digits of XXH3-128 over everything that changes the binary. */
OKLC_INTERNAL void oklc_rt_cache_key(const Build *b, char key[33]);
/* A fresh folder root/<key>.tmp.<pid>.<random> to build in. */
OKLC_INTERNAL oklc_status oklc_rt_cache_tmp(const char *root, const char *key, char **tmp);
/* Renames `tmp` to `entry`; when another process got there first, keeps
 * theirs and removes ours. */
OKLC_INTERNAL oklc_status oklc_rt_cache_publish(const char *tmp, const char *entry);
/* Removes temporary folders older than `age` seconds. */
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
/* The backend named by the metadata ("serial"), or NULL. */
OKLC_INTERNAL char *oklc_rt_metadata_backend(const char *metadata);

/* One argument's value, converted to its parameter's exact type. */
typedef union Slot {
    int8_t   i8;
    int16_t  i16;
    int32_t  i32;
    int64_t  i64;
    float    f32;
    double   f64;
    void    *ptr;
} Slot;

/* Checks args against k's parameters and fills ptrs[i] (pointing into
 * slots[i] or the struct's bytes): the CPU calling convention. */
OKLC_INTERNAL oklc_status oklc_rt_pack(const oklc_kernel *k, int nargs, const oklc_arg *args,
                                       Slot *slots, void **ptrs);

/* ---- kernel.c ------------------------------------------------------------------- */

struct oklc_kernel {
    oklc_device *dev;
    char        *name;
    Param       *params;
    int          nparams;      /* -1: native, arguments unchecked */
    void        *lib;          /* the loaded binary (dlopen handle, module) */
    void       (*entry)(void *const *args);
    void       (*set_threads)(int);   /* OpenMP builds: _occa_set_num_threads */
};

#endif
