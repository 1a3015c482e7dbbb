/*
 * intrinsics.h - intrinsics users add (oklc_add_intrinsic, a JSON file):
 * the table in the context, and what the stages ask of it.
 *
 *   intrinsics.c  the table, the checks of a description, the JSON loader
 *                 (positions of its fields for the messages)
 *
 * On one backend an intrinsic is either spelled (its calls are rewritten
 * where they are: src/backends/intrinsics.c) or a function: its
 * declaration and body enter the source before the user's code (pp.c),
 * and the backends translate it as one of the file's functions. Spelled
 * ones with a declaration are declared to Clang after the prelude
 * (parse/clang.c); calls of them are recorded as calls of OKL's
 * intrinsics are (parse/exprs.c).
 */
#ifndef OKLC_INTRINSICS_H
#define OKLC_INTRINSICS_H

#include "../base/base.h"

typedef struct Intrinsic {
    const char *name;
    const char *declaration;                  /* NULL: an existing name (a built-in) */
    const char *spelling[OKLC_BACKEND_COUNT_];
    const char *body;
    int         nparams;                      /* of the declaration; -1: unknown */
    Loc         loc;                          /* its name in a JSON file, else none */
} Intrinsic;

/* oklc_add_intrinsic and oklc_load_intrinsics (oklc.c) without their
 * out-of-memory guard: false after a diagnostic. */
OKLC_INTERNAL bool oklc_intrinsic_add(oklc_ctx *c, const oklc_intrinsic *in);
OKLC_INTERNAL bool oklc_intrinsics_load(oklc_ctx *c, const char *path);
/* The intrinsic called `name`, or NULL. */
OKLC_INTERNAL const Intrinsic *oklc_intrinsic_find(oklc_ctx *c, const char *name);
/* What calls of `name` become on the context's backend, or NULL (not an
 * intrinsic of the user, or a function there). */
OKLC_INTERNAL const char *oklc_intrinsic_spelling(oklc_ctx *c, const char *name);
/* Declarations Clang parses after the prelude: the intrinsics spelled on
 * the context's backend ("" if none). */
OKLC_INTERNAL const char *oklc_intrinsic_declarations(oklc_ctx *c);
/* Definitions placed before the user's code: the intrinsics that are
 * functions on the context's backend ("" if none). */
OKLC_INTERNAL const char *oklc_intrinsic_definitions(oklc_ctx *c);

#endif
