/*
 * cx.h - what clang.c, cx.c and model.c share about libclang. Private to
 * src/parse/: no CX type leaves this folder.
 */
#ifndef OKLC_CX_H
#define OKLC_CX_H

#include "libclang.h"
#include "model.h"

typedef enum CXCursorKind CXCursorKind;

/* Offset of a location in the normalized text, or UINT32_MAX when it is
 * not in it (the prelude, a system header). */
OKLC_INTERNAL uint32_t oklc_cx_offset(CXSourceLocation loc);
/* A cursor's extent as a Range of the normalized text. */
OKLC_INTERNAL Range oklc_cx_range(CXCursor cur);
/* if, while, for, switch: a statement whose extent ends where its last
 * child's does, which Clang finds by descending to it. */
OKLC_INTERNAL bool oklc_cx_ends_in_body(CXCursorKind k);
/* Where a cursor's extent starts, without its end for those. */
OKLC_INTERNAL uint32_t oklc_cx_begin(CXCursor cur);
/* Copies a libclang string into the arena and disposes of it. */
OKLC_INTERNAL const char *oklc_cx_string(oklc_ctx *c, CXString s);
/* The precompiled prelude for these arguments of a kernel's parse (made
 * if missing), or NULL: none can be had (pch.c). */
OKLC_INTERNAL const char *oklc_pch_for(oklc_ctx *c, const char *const *args, size_t nargs,
                                       struct CXUnsavedFile *prelude);
/* Builds the model from a parsed translation unit (model.c). */
OKLC_INTERNAL Model *oklc_model_build(oklc_ctx *c, const Normalized *nz, CXTranslationUnit tu,
                                      const ParseOptions *o);

#endif
