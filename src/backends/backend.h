/*
 * backend.h - the backends: one table each, and what they share.
 *
 *   backends.c  the list; what every backend does (attributes deleted,
 *               @restrict, @dim indexing, entry points, instances)
 *   cpu.c       what serial and OpenMP share: OKL's loops as loops
 *   serial.c    the serial table
 *   openmp.c    the OpenMP table
 *
 * A backend records edits against the normalized text (src/emit/); the
 * output is its preamble, the edited text, then its tail.
 */
#ifndef OKLC_BACKEND_H
#define OKLC_BACKEND_H

#include "../emit/emit.h"

typedef struct Backend Backend;

/* One transpilation in progress. */
typedef struct Emit {
    oklc_ctx         *c;
    const Normalized *nz;
    Model            *m;
    const Backend    *be;
    Edits             ed;
    VEC(KernelOut)    kernels;    /* what the metadata lists, in order */
    Buf               tail;       /* after the user's code: entry points */
} Emit;

struct Backend {
    const char  *name;            /* as in -b serial */
    oklc_backend id;
    const char  *restrict_kw;     /* what @restrict becomes */
    const char  *includes;        /* first lines of the output */
    const char  *preamble;        /* before the user's code */
    bool         openmp;          /* CPU: @outer loops on OpenMP threads */
    bool (*translate)(Emit *E);   /* records the edits of the whole file */
};

/* NULL for a backend not built yet. */
OKLC_INTERNAL const Backend *oklc_backend_get(oklc_backend id);

/* ---- backends.c: shared by all ---------------------------------------------- */

/* Deletes the [[okl::...]] attributes, rewrites @restrict and @dim accesses. */
OKLC_INTERNAL void oklc_emit_attributes(Emit *E);
OKLC_INTERNAL void oklc_emit_dims(Emit *E, const Kernel *k);
/* The kernels and template instances the output provides, with their
 * entry symbols; reports instances that name no template kernel. */
OKLC_INTERNAL bool oklc_emit_kernel_list(Emit *E);
/* Deletes a statement, and its line when nothing else is on it. */
OKLC_INTERNAL void oklc_emit_delete_stmt(Emit *E, uint32_t begin, uint32_t end);
/* The [[...]] that holds an attribute. */
OKLC_INTERNAL const SpecRange *oklc_emit_spec_of(const Emit *E, const Attr *a);
/* The indentation of the line that holds `off`. */
OKLC_INTERNAL const char *oklc_emit_indent(Emit *E, uint32_t off);
/* s, in parentheses unless it is one token. */
OKLC_INTERNAL const char *oklc_emit_operand(Emit *E, const char *s);

/* ---- cpu.c ---------------------------------------------------------------------------- */

OKLC_INTERNAL bool oklc_cpu_translate(Emit *E);
extern const char oklc_cpu_prelude[];   /* cpu_prelude.hpp, embedded */

#endif
