/*
 * pp.h - the preprocessor (translation phase 4) and token printing.
 *
 *   pp.c      directives, includes, conditionals, the driver loop
 *   macro.c   macro table, definition, expansion (hidesets, #, ##, variadics)
 *   ifexpr.c  #if constant expressions
 *   print.c   tokens back to text: exact outside macros, spaced inside
 */
#ifndef OKLC_PP_H
#define OKLC_PP_H

#include "../lex/lex.h"

typedef struct Macro Macro;
typedef struct PP PP;

/* The preprocessed translation unit. */
typedef struct PPResult {
    Token  **toks;       /* expanded tokens; toks[ntoks - 1] is TK_EOF */
    size_t   ntoks;
    uint32_t main_view;  /* the view of the main file */
} PPResult;

/* Preprocesses `path` (read from disk when text is NULL). */
OKLC_INTERNAL PPResult *oklc_pp_run(oklc_ctx *c, const char *path, const char *text,
                                    size_t len);

/* Registers a buffer and its view; `path` names it in messages. */
OKLC_INTERNAL uint32_t oklc_pp_add_buffer(oklc_ctx *c, const char *path, const char *text,
                                          size_t len, bool builtin);

/* ---- macro.c ---------------------------------------------------------- */

struct PP {
    oklc_ctx *c;
    Macro   **table;            /* open hash table of macros */
    size_t    table_cap, nmacros;
    NameTable macro_ids;        /* macro names -> the numbers hidesets hold */
    VEC(Token *) out;           /* output tokens */
    size_t    budget;           /* tokens expansions may still create */
    bool      over_budget;      /* reported: stop expanding */
    int       arg_depth;        /* nesting of argument pre-expansion */
    int       counter;          /* __COUNTER__ */
    int       include_depth;    /* __INCLUDE_LEVEL__ */
    struct Cond    *cond;       /* open #if blocks */
    struct Include *inc;        /* open #include files */
    VEC(const char *) once;     /* files with #pragma once */
    Buf       pending_lead;     /* comments of dropped directive lines */
    bool      drop_nl;          /* a directive line was dropped: drop its newline */
};

OKLC_INTERNAL void oklc_macro_init(PP *pp);
OKLC_INTERNAL Macro *oklc_macro_find(PP *pp, const Token *name);
OKLC_INTERNAL bool oklc_macro_defined(PP *pp, const char *name, size_t len);
/* #define / #undef: `directive` is the "define" token; returns the first
 * token of the next line. */
OKLC_INTERNAL Token *oklc_macro_define(PP *pp, Token *directive);
OKLC_INTERNAL Token *oklc_macro_undef(PP *pp, Token *directive);
/* If `t` names a macro that expands here, replaces it (and its arguments)
 * by the expansion and returns true; *rest is where scanning continues. */
OKLC_INTERNAL bool oklc_macro_expand(PP *pp, Token **rest, Token *t);
/* Fully expands a token list that ends in TK_EOF (an #if line, an argument). */
OKLC_INTERNAL Token *oklc_macro_expand_all(PP *pp, Token *list);
OKLC_INTERNAL Token *oklc_macro_new_token(PP *pp, TokKind k, const char *text, size_t len,
                                          const Token *like);

/* ---- ifexpr.c ----------------------------------------------------------- */

/* Evaluates the #if expression that starts at `t` (the line's tokens up to
 * the first TF_BOL token). Returns the first token of the next line. */
OKLC_INTERNAL Token *oklc_pp_if_expr(PP *pp, Token *hash, Token *t, bool *value);
/* The warning for an #if (its name token) left open at the end of a file. */
OKLC_INTERNAL void oklc_pp_warn_unclosed(oklc_ctx *c, const Token *if_name);
/* Resolves an #include operand; NULL when not found. */
OKLC_INTERNAL const char *oklc_pp_find_include(PP *pp, const Token *at, const char *name,
                                               bool angled);

/* ---- print.c ------------------------------------------------------------ */

typedef struct Printer {
    Buf         *out;
    const Token *prev;      /* last printed token */
    bool         directive; /* the last thing printed was a directive line */
} Printer;

OKLC_INTERNAL void oklc_print_init(Printer *p, Buf *out);
/* Whitespace before the token: exact text outside macros, one blank inside. */
OKLC_INTERNAL void oklc_print_lead(Printer *p, const Token *t);
/* The token's spelling (directives on their own line). */
OKLC_INTERNAL void oklc_print_text(Printer *p, const Token *t);
OKLC_INTERNAL void oklc_print_token(Printer *p, const Token *t);
/* Text that is not a token (generated code); keeps line tracking right. */
OKLC_INTERNAL void oklc_print_raw(Printer *p, const char *s, size_t n);
OKLC_INTERNAL void oklc_print_tokens(oklc_ctx *c, Token **toks, size_t n, Buf *out);

/* The length of the line break that starts s[0..n): 1 for LF, 2 for CRLF,
 * else 0 (a bare CR is an LF in the buffers: srcfile.c). */
static inline size_t oklc_line_break(const char *s, size_t n)
{
    return n && s[0] == '\n' ? 1 : n > 1 && s[0] == '\r' && s[1] == '\n' ? 2 : 0;
}

#endif
