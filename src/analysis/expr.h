/*
 * expr.h - expressions of the normalized text as trees (expr.c): for the
 * analysis (analysis.h) and for the backends that read a subscript's
 * terms (cpu_prefetch.c).
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

#endif
