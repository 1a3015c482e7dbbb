/*
 * sema.h - every rule of the OKL language, each with its own diagnostic.
 *
 *   sema.c   attributes in their places, kernels, variables, @dim,
 *            @barrier, @atomic
 *   loops.c  the tree of attributed loops: nesting, levels, axes,
 *            iteration counts
 *
 * The checks read the model and complete it (loop axes); they report at the
 * user's file:line:col and return false after an error.
 */
#ifndef OKLC_SEMA_H
#define OKLC_SEMA_H

#include "../parse/model.h"

OKLC_INTERNAL bool oklc_sema_check(oklc_ctx *c, Model *m, const ParseOptions *o);
/* `has_inner`: the kernel has an @inner loop somewhere (if not, that one
 * error says it all). */
OKLC_INTERNAL void oklc_sema_loops(oklc_ctx *c, Kernel *k, const ParseOptions *o, bool has_inner);

/* "@outer", "@inner", "@tile" - how the user wrote the loop's attribute. */
OKLC_INTERNAL const char *oklc_loop_attr_name(const Loop *l);

#endif
