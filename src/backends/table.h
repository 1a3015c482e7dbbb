/*
 * table.h - the table of backends: what every stage needs to know of one.
 *
 * Each backend is one `Backend` entry in its own file (serial.c, cuda.c,
 * ...) and one line in table.c's list. The preprocessor reads its macro,
 * the parser its Clang definition, the intrinsics their spelling's key
 * (its name), the emit stage its translation. The stages that only need
 * the name include this header, not backend.h.
 */
#ifndef OKLC_BACKEND_TABLE_H
#define OKLC_BACKEND_TABLE_H

#include "../base/base.h"

typedef struct Backend Backend;
typedef struct Emit Emit;
typedef struct GpuTarget GpuTarget;

struct Backend {
    const char  *name;            /* as in -b serial; the key of its intrinsic spellings */
    oklc_backend id;              /* its public id (include/oklc/oklc.h) */
    const char  *macro;           /* OCCA_USE_<macro>, OKLC_BACKEND_<macro>, OKL_MODE */
    const char  *restrict_kw;     /* what @restrict becomes */
    const char  *includes;        /* first lines of the output */
    const char  *preamble;        /* before the user's code */
    const char  *more;            /* after it: the target's part (or NULL) */
    bool         openmp;          /* CPU: @outer loops on OpenMP threads */
    const GpuTarget *gpu;         /* GPU-like backends: what they write */
    bool (*translate)(Emit *E);   /* records the edits of the whole file */
    const void  *plugin;          /* a plugin's variant: its hooks (plugin/plugin.c) */
};

/* The built-in backend of public id `id` (NULL for none or an unknown id);
 * the built-in backends by index 0 ... count-1, in the order of their ids. */
OKLC_INTERNAL const Backend *oklc_backend_builtin(oklc_backend id);
OKLC_INTERNAL const Backend *oklc_backend_at(size_t i);
OKLC_INTERNAL size_t oklc_backend_count(void);

/* The context's registry of backends: the built-in ones, then those
 * plugins add (false: the name is taken). Names are case-insensitive. */
OKLC_INTERNAL bool oklc_backend_add(oklc_ctx *c, const Backend *be);
OKLC_INTERNAL const Backend *oklc_backend_find(oklc_ctx *c, const char *name);
/* The backend the context translates for (a plugin's by its name, else
 * the built-in one of c->backend); NULL when none is chosen. */
OKLC_INTERNAL const Backend *oklc_backend_chosen(oklc_ctx *c);

#endif
