/*
 * plugin.h - the C ABI of oklc's plugins (docs/plugins.md).
 *
 * A plugin is a shared object that exports two symbols:
 *
 *     OKLC_PLUGIN_ABI;                         (the ABI version it was built for)
 *     OKLC_PLUGIN_EXPORT int oklc_plugin_init(const oklc_plugin_host *host,
 *                                             oklc_plugin_call *call);
 *
 * oklc opens it (oklc --plugin FILE, OKLC_PLUGINS, oklc_load_plugin(),
 * oklc_props_plugin()), refuses it when oklc_plugin_abi is not the version
 * oklc was built with, then calls oklc_plugin_init once per context. The
 * init registers what the plugin adds through the host's table: attributes,
 * backends, stages, intrinsics; it returns 0, or nonzero when it fails (it
 * may report why first). The built-in attributes and backends are entered
 * in the same registries, so a plugin's entry is used exactly as theirs.
 *
 * Every callback receives the `user` pointer its registration gave and a
 * call handle, to pass back to the host's functions during that callback
 * only. Strings a callback returns are copied by oklc before the plugin is
 * called again. Callbacks of different contexts may run at once on
 * different threads: keep state in `user` or the call, not in globals.
 *
 * Any change of the layouts below or of the host table's meaning changes
 * OKLC_PLUGIN_ABI_VERSION.
 */
#ifndef OKLC_PLUGIN_H
#define OKLC_PLUGIN_H

#include <stddef.h>

#include "oklc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OKLC_PLUGIN_ABI_VERSION 1u

#define OKLC_PLUGIN_EXPORT __attribute__((visibility("default")))
/* The ABI version symbol; write `OKLC_PLUGIN_ABI;` once in the plugin. */
#define OKLC_PLUGIN_ABI \
    OKLC_PLUGIN_EXPORT extern const unsigned oklc_plugin_abi; \
    const unsigned oklc_plugin_abi = OKLC_PLUGIN_ABI_VERSION

/* The current callback, as the host knows it (opaque). */
typedef struct oklc_plugin_call oklc_plugin_call;

/* A position: the user's file, line and byte column (1-based; line 0: none),
 * and the offset in the text it belongs to (the normalized text for
 * attributes and the model), which report() takes. */
typedef struct oklc_pos {
    const char *file;
    unsigned    line, column;
    unsigned    offset;
} oklc_pos;

#define OKLC_NO_OFFSET 0xffffffffu

/* ---- the kernel model, read-only ------------------------------------------------ */

/* Where an attribute stands (and, as a mask, where it may stand). */
enum {
    OKLC_ON_LOOP = 1u << 0,     /* a for loop (attributed or not) */
    OKLC_ON_DECL = 1u << 1,     /* a declaration statement in a kernel */
    OKLC_ON_STMT = 1u << 2,     /* any other statement in a kernel */
    OKLC_ON_KERNEL = 1u << 3    /* a @kernel function */
};

typedef struct oklc_param_view {
    const char *name;
    const char *type;           /* as Clang prints it: "const float *" */
} oklc_param_view;

/* One attributed loop level (a @tile is two: the loop over tiles, then the
 * loop in a tile). */
typedef struct oklc_loop_view {
    const char  *kind;          /* "outer", "inner", or "regular" (a @tile level
                                   without a loop attribute) */
    int          axis;          /* 0..2 */
    int          tile_part;     /* 0, or 1/2: the two levels of a @tile */
    int          parent;        /* index of the enclosing level in loops[], or -1 */
    const char  *iter;          /* iterator name */
    const char  *start, *bound, *stride;  /* as text; NULL when not analyzed */
    const char  *trips;         /* the iteration count, as an expression, or NULL */
    const char *const *attrs;   /* names of every attribute on the for statement */
    size_t       nattrs;
    oklc_pos     pos;           /* the for statement */
} oklc_loop_view;

typedef struct oklc_kernel_view {
    const char            *name;
    oklc_pos               pos;      /* the kernel's name */
    const oklc_param_view *params;
    size_t                 nparams;
    const oklc_loop_view  *loops;    /* every level, in source order */
    size_t                 nloops;
    size_t                 nouters;  /* top-level @outer loops */
} oklc_kernel_view;

typedef struct oklc_model_view {
    const char             *file;     /* the input, as given */
    const oklc_kernel_view *kernels;
    size_t                  nkernels;
} oklc_model_view;

/* ---- attributes ---------------------------------------------------------------- */

typedef struct oklc_attr_view {
    const char        *name;        /* "prefetch" */
    const char *const *args;        /* each argument's text: "a + i" */
    int                nargs;
    unsigned           on;          /* one OKLC_ON_* bit: where it stands */
    const char        *kernel;      /* the kernel it is in */
    oklc_pos           pos;         /* the attribute */
} oklc_attr_view;

typedef struct oklc_plugin_attr {
    const char *name;               /* @name, okl::name, [[okl::name]] */
    int         min_args, max_args; /* max -1: any number; expressions only */
    unsigned    on;                 /* OKLC_ON_* mask; misplaced otherwise (an error) */
    /* after the checks of OKL's rules, once per use; nonzero: an error
     * (reported by the callback, or a generic one). NULL: no check. */
    int (*check)(void *user, oklc_plugin_call *call, const oklc_attr_view *a);
    /* the text written on a line before what it applies to (a statement,
     * the loop, a declaration; for a kernel, at the top of its body), for
     * host->backend(call, ...); NULL or "": nothing. NULL callback: the
     * attribute only leaves. */
    const char *(*emit)(void *user, oklc_plugin_call *call, const oklc_attr_view *a);
    void       *user;
} oklc_plugin_attr;

/* ---- backends ------------------------------------------------------------------- */

/* A variant of a built-in backend: its translation, then the plugin's
 * text around each kernel and the file. Usable with -b NAME and (its base
 * being the device's backend) by the runtime (oklc_props_backend). */
typedef struct oklc_plugin_backend {
    const char *name;               /* -b NAME; not a name registered already */
    const char *base;               /* "serial", "openmp", "cuda", ... */
    const char *file_begin;         /* before the base's includes, or NULL */
    const char *file_end;           /* after everything, or NULL */
    /* the text first in each kernel's body / last in it (runs after a
     * `return` only if written so, e.g. a C++ destructor); NULL: none */
    const char *(*kernel_begin)(void *user, oklc_plugin_call *call, const oklc_kernel_view *k);
    const char *(*kernel_end)(void *user, oklc_plugin_call *call, const oklc_kernel_view *k);
    void       *user;
} oklc_plugin_backend;

/* ---- stages --------------------------------------------------------------------- */

typedef enum oklc_plugin_point {
    OKLC_BEFORE_PREPROCESS = 1,     /* text: the input file; replaceable */
    OKLC_AFTER_NORMALIZE = 2,       /* text: the normalized C++; read-only (the
                                       attribute records point into it) */
    OKLC_AFTER_CHECK = 3,           /* + the model; read-only */
    OKLC_AFTER_TRANSPILE = 4        /* text: the backend's output; replaceable; the model */
} oklc_plugin_point;

typedef struct oklc_plugin_stage {
    const char        *name;        /* for messages */
    oklc_plugin_point  point;
    /* nonzero: the pipeline stops with an error */
    int (*run)(void *user, oklc_plugin_call *call);
    void              *user;
} oklc_plugin_stage;

/* ---- what the host offers ----------------------------------------------------------- */

typedef struct oklc_plugin_host {
    unsigned    abi;                /* OKLC_PLUGIN_ABI_VERSION of oklc */
    const char *version;            /* oklc's version: "0.1.0" */

    /* registration (in oklc_plugin_init): 0 on success, else an error was
     * reported (a name taken already, a wrong description) */
    int (*add_attribute)(oklc_plugin_call *call, const oklc_plugin_attr *a);
    int (*add_backend)(oklc_plugin_call *call, const oklc_plugin_backend *b);
    int (*add_stage)(oklc_plugin_call *call, const oklc_plugin_stage *s);
    int (*add_intrinsic)(oklc_plugin_call *call, const oklc_intrinsic *in);

    /* a diagnostic in the usual form (file:line:col: error: msg) at an
     * offset of the call's text (OKLC_BEFORE_PREPROCESS: the input; else
     * the normalized text, as in oklc_pos.offset), or OKLC_NO_OFFSET */
    void (*report)(oklc_plugin_call *call, oklc_diag_level level, unsigned offset,
                   const char *message);
    /* the text of a stage (see oklc_plugin_point); its replacement, copied
     * (0; nonzero where the point's text is read-only) */
    const char *(*text)(oklc_plugin_call *call, size_t *len);
    int (*replace_text)(oklc_plugin_call *call, const char *text, size_t len);
    /* the model (OKLC_AFTER_CHECK and later, attribute and backend
     * callbacks), else NULL */
    const oklc_model_view *(*model)(oklc_plugin_call *call);
    /* the backend being written: its name ("serial-timed"), or with base
     * nonzero the built-in one it is ("serial"); NULL outside a transpile */
    const char *(*backend)(oklc_plugin_call *call, int base);
} oklc_plugin_host;

/* The entry point every plugin defines: 0 on success. */
typedef int (*oklc_plugin_init_fn)(const oklc_plugin_host *host, oklc_plugin_call *call);
OKLC_PLUGIN_EXPORT int oklc_plugin_init(const oklc_plugin_host *host, oklc_plugin_call *call);

#ifdef __cplusplus
}
#endif
#endif
