/*
 * expr.h - expressions of the normalized text as trees (expr.c) and as
 * isl's affine expressions (affine.c): for the analysis (analysis.h) and
 * for the backends that read a subscript's terms (cpu_prefetch.c,
 * cpu_reduce.c) or prove two uses apart (cpu_apart.c).
 */
#ifndef OKLC_EXPR_H
#define OKLC_EXPR_H

#include "../parse/model.h"

/* ---- expr.c ------------------------------------------------------------------------------ */

typedef enum ExprOp {
    X_NUM, X_NAME, X_OPAQUE, X_NEG, X_NOT, X_BITNOT,
    X_ADD, X_SUB, X_MUL, X_DIV, X_MOD, X_SHL, X_SHR,
    X_LT, X_LE, X_GT, X_GE, X_EQ, X_NE, X_AND, X_OR, X_BITAND, X_BITOR, X_XOR,
    X_COND,                   /* a ? b : c */
    X_MIN, X_MAX,             /* min(a, b), max(a, b), std::min(a, b)... */
    X_ASSIGN,                 /* a = b (update X_NUM), a += b (X_ADD)...: at the top only */
    X_INC, X_DEC              /* ++a, a++; --a, a-- */
} ExprOp;

typedef struct Expr {
    ExprOp       op;
    ExprOp       update;      /* X_ASSIGN: the operation of a op= b, X_NUM for = */
    int64_t      value;       /* X_NUM */
    uint32_t     off, len;    /* X_NAME: the identifier */
    struct Expr *a, *b, *c;
} Expr;

/* The expression of range r of the normalized text (never NULL). */
OKLC_INTERNAL Expr *oklc_expr_parse(oklc_ctx *c, Range r);

/* ---- affine.c ---------------------------------------------------------------------------- */

/* What an identifier of an expression stands for. */
typedef enum SymKind {
    SYM_NONE,                 /* nothing the analysis knows: the expression is refused */
    SYM_NAME,                 /* an isl variable or parameter: `name` */
    SYM_EXPR                  /* the value of an expression of the text: `expr` */
} SymKind;

typedef struct Sym {
    SymKind     kind;
    const char *name;
    Range       expr;
} Sym;

typedef Sym (*SymFn)(void *ctx, uint32_t off);

/* An expression or a condition as isl text. A division or a remainder by
 * a constant is an existential variable (named prefix + number) with the
 * constraints of C's division (rounded towards zero) in `side`. */
typedef struct Affine {
    oklc_ctx   *c;
    SymFn       sym;
    void       *ctx;
    const char *prefix;
    Buf         side;     /* " and (...)" per variable */
    Buf         exists;   /* ", name" per variable */
    int         nexists;
    const char *why;      /* the first part refused, for the note */
    bool        weakened; /* a condition had a part left out (not affine) */
    int         depth;    /* substitutions under way */
} Affine;

OKLC_INTERNAL void oklc_affine_init(Affine *af, oklc_ctx *c, SymFn sym, void *ctx,
                                    const char *prefix);
/* ", name" appended to a list of isl names b, unless it is there. */
OKLC_INTERNAL void oklc_affine_name(Buf *b, const char *name);
/* The expression of range r, or NULL (af->why says what) when it is not
 * affine in the names af->sym knows. */
OKLC_INTERNAL const char *oklc_affine_expr(Affine *af, Range r);
/* A constraint the condition of range r implies (its negation when
 * `negate`): exact where the condition is affine, else weaker (what is
 * not affine is left out); "0 = 0" when nothing is known. */
OKLC_INTERNAL const char *oklc_affine_cond(Affine *af, Range r, bool negate);

#endif
