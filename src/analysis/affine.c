/*
 * affine.c - expressions of the normalized text as isl text.
 *
 * The text of a range is read into a tree (expr.c), then written out: an
 * integer expression where every operation is affine (+, -, a product with
 * a constant, / and % by a positive constant, shifts by a constant, casts
 * to an integer type) and every name is one the caller knows; a condition
 * as the constraints it implies.
 * Constants are folded in 64 bits (no overflow, else refused).
 */
#include <string.h>

#include "analysis.h"

/* ---- integer expressions --------------------------------------------------------------------- */

typedef struct Val {
    const char *text;         /* NULL: refused */
    bool        constant;
    int64_t     value;
} Val;

static Val refuse(Affine *af, const char *why)
{
    if (!af->why)
        af->why = why;
    return (Val){NULL, false, 0};
}

static Val constant(Affine *af, int64_t v)
{
    return (Val){oklc_arena_printf(&af->c->arena, "(%lld)", (long long)v), true, v};
}

static Val value(Affine *af, const Expr *n);

/* q = a / d rounded towards zero, as C divides: a new existential. */
static const char *quotient(Affine *af, const char *a, int64_t d)
{
    const char *q = oklc_arena_printf(&af->c->arena, "%s%d", af->prefix, af->nexists++);
    oklc_buf_printf(&af->exists, ", %s", q);
    oklc_buf_printf(&af->side, " and ((%s >= 0 and %lld * %s <= %s <= %lld * %s + %lld) or "
                               "(%s < 0 and %lld * %s - %lld <= %s <= %lld * %s))",
                    a, (long long)d, q, a, (long long)d, q, (long long)(d - 1),
                    a, (long long)d, q, (long long)(d - 1), a, (long long)d, q);
    return q;
}

static Val name(Affine *af, const Expr *n)
{
    Sym s = af->sym(af->ctx, n->off);
    if (s.kind == SYM_NAME)
        return (Val){s.name, false, 0};
    if (s.kind == SYM_NONE || af->depth >= 16)
        return refuse(af, "a name whose value the analysis does not know");
    af->depth++;
    Val v = value(af, oklc_expr_parse(af->c, s.expr));
    af->depth--;
    return v;
}

static bool fold(ExprOp op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case X_ADD: return !__builtin_add_overflow(a, b, out);
    case X_SUB: return !__builtin_sub_overflow(a, b, out);
    case X_MUL: return !__builtin_mul_overflow(a, b, out);
    case X_DIV: return b && !(a == INT64_MIN && b == -1) && (*out = a / b, true);
    case X_MOD: return b && !(a == INT64_MIN && b == -1) && (*out = a % b, true);
    case X_SHL: return b >= 0 && b < 62 && a >= 0 && a <= (INT64_MAX >> b) && (*out = a << b, true);
    case X_SHR: return b >= 0 && b < 63 && (*out = a >> b, true);
    case X_BITAND: *out = a & b; return true;
    case X_BITOR: *out = a | b; return true;
    case X_XOR: *out = a ^ b; return true;
    default: return false;
    }
}

static Val binary(Affine *af, const Expr *n)
{
    Val a = value(af, n->a), b = value(af, n->b);
    Arena *ar = &af->c->arena;
    if (!a.text || !b.text)
        return (Val){NULL, false, 0};
    int64_t v;
    if (a.constant && b.constant)
        return fold(n->op, a.value, b.value, &v) ? constant(af, v)
                                                 : refuse(af, "a constant that overflows");
    switch (n->op) {
    case X_ADD: return (Val){oklc_arena_printf(ar, "(%s + %s)", a.text, b.text), false, 0};
    case X_SUB: return (Val){oklc_arena_printf(ar, "(%s - %s)", a.text, b.text), false, 0};
    case X_MUL:
        if (!a.constant && !b.constant)
            return refuse(af, "a product of two values that are not constants");
        /* isl reads a product as a number before a term: 3 * (x + 1) */
        return (Val){oklc_arena_printf(ar, "(%lld * %s)",
                                       (long long)(a.constant ? a.value : b.value),
                                       a.constant ? b.text : a.text), false, 0};
    case X_SHL:
        if (!b.constant || b.value < 0 || b.value > 40)
            return refuse(af, "a shift by a value that is not a small constant");
        return (Val){oklc_arena_printf(ar, "(%lld * %s)", 1LL << b.value, a.text), false, 0};
    case X_SHR:
        if (!b.constant || b.value < 0 || b.value > 40)
            return refuse(af, "a shift by a value that is not a small constant");
        /* >> rounds down, also below zero: floor */
        return (Val){oklc_arena_printf(ar, "floor(%s / %lld)", a.text, 1LL << b.value), false,
                     0};
    case X_DIV: case X_MOD: {
        if (!b.constant || b.value <= 0)
            return refuse(af, "a division by a value that is not a positive constant");
        const char *q = quotient(af, a.text, b.value);
        return (Val){n->op == X_DIV ? q
                                    : oklc_arena_printf(ar, "(%s - %lld * %s)", a.text,
                                                        (long long)b.value, q),
                     false, 0};
    }
    default:
        return refuse(af, "an operation that is not affine");
    }
}

static Val value(Affine *af, const Expr *n)
{
    switch (n->op) {
    case X_NUM: return constant(af, n->value);
    case X_NAME: return name(af, n);
    case X_NEG: {
        Val a = value(af, n->a);
        if (a.text && a.constant)
            return a.value == INT64_MIN ? refuse(af, "a constant that overflows")
                                        : constant(af, -a.value);
        return a.text ? (Val){oklc_arena_printf(&af->c->arena, "(-%s)", a.text), false, 0} : a;
    }
    case X_OPAQUE: case X_COND: case X_MIN: case X_MAX: case X_ASSIGN: case X_INC: case X_DEC:
        return refuse(af, "a call, a subscript or an operation it does not model");
    case X_NOT: case X_BITNOT: return refuse(af, "an operation that is not affine");
    default: return binary(af, n);
    }
}

/* ---- conditions ------------------------------------------------------------------------------ */

static const char *cmp_text(ExprOp op, bool negate)
{
    static const ExprOp flip[][2] = {{X_LT, X_GE}, {X_LE, X_GT}, {X_EQ, X_NE}};
    if (negate)
        for (size_t i = 0; i < OKLC_COUNTOF(flip); i++)
            if (op == flip[i][0] || op == flip[i][1])
                op = op == flip[i][0] ? flip[i][1] : flip[i][0];
    switch (op) {
    case X_LT: return "<";
    case X_LE: return "<=";
    case X_GT: return ">";
    case X_GE: return ">=";
    case X_EQ: return "=";
    default: return "!=";
    }
}

/* NULL: nothing known (true). */
static const char *cond(Affine *af, const Expr *n, bool negate)
{
    Arena *ar = &af->c->arena;
    switch (n->op) {
    case X_NOT: return cond(af, n->a, !negate);
    case X_AND: case X_OR: {
        const char *a = cond(af, n->a, negate), *b = cond(af, n->b, negate);
        bool conj = (n->op == X_AND) != negate;
        if (conj) {
            af->weakened |= !a || !b;
            return !a ? b : !b ? a : oklc_arena_printf(ar, "(%s and %s)", a, b);
        }
        af->weakened |= !a || !b;
        return a && b ? oklc_arena_printf(ar, "(%s or %s)", a, b) : NULL;
    }
    case X_LT: case X_LE: case X_GT: case X_GE: case X_EQ: case X_NE: {
        const char *why = af->why;
        Val a = value(af, n->a), b = value(af, n->b);
        af->why = why;       /* a condition left out is no refusal */
        af->weakened |= !a.text || !b.text;
        return a.text && b.text ? oklc_arena_printf(ar, "(%s %s %s)", a.text,
                                                    cmp_text(n->op, negate), b.text)
                                : NULL;
    }
    default: {
        const char *why = af->why;
        Val a = value(af, n);
        af->why = why;
        af->weakened |= !a.text;
        return a.text ? oklc_arena_printf(ar, "(%s %s 0)", a.text, negate ? "=" : "!=") : NULL;
    }
    }
}

/* ---- the interface ----------------------------------------------------------------------------- */

void oklc_affine_init(Affine *af, oklc_ctx *c, SymFn sym, void *ctx, const char *prefix)
{
    memset(af, 0, sizeof *af);
    af->c = c, af->sym = sym, af->ctx = ctx, af->prefix = prefix;
    oklc_buf_init(&af->side, &c->arena);
    oklc_buf_init(&af->exists, &c->arena);
}

void oklc_affine_name(Buf *b, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = b->data ? strstr(b->data, name) : NULL; p; p = strstr(p + 1, name))
        if (p[-1] == ' ' && (p[n] == ',' || !p[n]))
            return;
    oklc_buf_printf(b, ", %s", name);
}

const char *oklc_affine_expr(Affine *af, Range r)
{
    return value(af, oklc_expr_parse(af->c, r)).text;
}

const char *oklc_affine_cond(Affine *af, Range r, bool negate)
{
    const char *s = cond(af, oklc_expr_parse(af->c, r), negate);
    return s ? s : "(0 = 0)";
}
