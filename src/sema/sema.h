/*
 * sema.h - every rule of the OKL language, each with its own diagnostic.
 *
 *   sema.c   attributes in their places, kernels, variables, @dim,
 *            @barrier, @atomic
 *   loops.c  the tree of attributed loops: nesting, levels, axes,
 *            iteration counts
 *   writes.c which uses of a variable change it, and how the threads agree
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

/* Where an @inner loop of k writes v (declared between an @outer loop and
 * its @inner loops) other than as every thread the same value; UINT32_MAX
 * if nowhere. */
OKLC_INTERNAL uint32_t oklc_sema_thread_write(oklc_ctx *c, const Model *m, const Kernel *k,
                                              const Var *v);

/* Whether use `ref` of v may change it (an assignment, ++, --, its
 * address, a reference argument); *plain: by "v = ..."; *value (if not
 * NULL): what an assignment (= or op=) stores, else empty. */
OKLC_INTERNAL bool oklc_sema_writes(oklc_ctx *c, const Model *m, const Var *v, Range ref,
                                    bool *plain, Range *value);

/* The innermost statement of the tree under s that holds offset `at`. */
OKLC_INTERNAL const Stmt *oklc_sema_stmt_at(const Stmt *s, uint32_t at);

/* Effects where a block runs as a whole (between @outer and @inner loops:
 * @atomic, writes to the memory of pointer parameters): once per block on
 * CPUs, once per thread on GPUs. A warning at each. */
OKLC_INTERNAL void oklc_sema_block_effects(oklc_ctx *c, const Kernel *k);

/* "@outer", "@inner", "@tile" - how the user wrote the loop's attribute. */
OKLC_INTERNAL const char *oklc_loop_attr_name(const Loop *l);

#endif
