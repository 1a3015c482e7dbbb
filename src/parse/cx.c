/*
 * cx.c - small libclang helpers that clang.c (the parse) and model.c (the
 * walk of its result) share: offsets, ranges and strings. They call
 * nothing else of src/parse/.
 */
#include <setjmp.h>
#include <string.h>

#include "cx.h"

uint32_t oklc_cx_offset(CXSourceLocation loc)
{
    if (!clang_Location_isFromMainFile(loc))
        return UINT32_MAX;
    unsigned off;
    clang_getFileLocation(loc, NULL, NULL, NULL, &off);
    return off;
}

Range oklc_cx_range(CXCursor cur)
{
    CXSourceRange r = clang_getCursorExtent(cur);
    Range out = {oklc_cx_offset(clang_getRangeStart(r)), oklc_cx_offset(clang_getRangeEnd(r))};
    return out;
}

/* while (c) while (c) ... x++;: Clang finds the end of each while from
 * its body's, so asking the extent of each of N nested ones costs N^2.
 * Their bodies are children libclang visits last (the else of an if). */
bool oklc_cx_ends_in_body(CXCursorKind k)
{
    return k == CXCursor_IfStmt || k == CXCursor_WhileStmt || k == CXCursor_ForStmt ||
           k == CXCursor_SwitchStmt;
}

/* A statement's location is where its extent starts (an expression's is
 * not: a.b is at b). */
uint32_t oklc_cx_begin(CXCursor cur)
{
    if (oklc_cx_ends_in_body(clang_getCursorKind(cur)))
        return oklc_cx_offset(clang_getCursorLocation(cur));
    return oklc_cx_range(cur).begin;
}

/* The copy may run out of memory: the string is disposed of on the way
 * out too. */
const char *oklc_cx_string(oklc_ctx *c, CXString s)
{
    jmp_buf jb, *outer = c->arena.oom;
    c->arena.oom = &jb;
    if (setjmp(jb)) {
        clang_disposeString(s);
        c->arena.oom = outer;
        oklc_arena_oom(&c->arena);
    }
    const char *p = clang_getCString(s);
    const char *copy = oklc_arena_strdup(&c->arena, p ? p : "");
    c->arena.oom = outer;
    clang_disposeString(s);
    return copy;
}
