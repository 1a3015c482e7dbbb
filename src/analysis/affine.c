/*
 * affine.c - expressions of the normalized text as isl text.
 *
 * The text of a range is read into a small tree with C's precedences
 * (calls, subscripts, members and anything else unknown are opaque
 * leaves), then written out: an integer expression where every operation
 * is affine (+, -, a product with a constant, / and % by a positive
 * constant, shifts by a constant, casts to an integer type) and every name
 * is one the caller knows; a condition as the constraints it implies.
 * Constants are folded in 64 bits (no overflow, else refused).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

typedef enum Op {
    O_NUM, O_NAME, O_OPAQUE, O_NEG, O_NOT, O_BITNOT,
    O_ADD, O_SUB, O_MUL, O_DIV, O_MOD, O_SHL, O_SHR,
    O_LT, O_LE, O_GT, O_GE, O_EQ, O_NE, O_AND, O_OR, O_BITAND, O_BITOR, O_XOR
} Op;

typedef struct Node {
    Op           op;
    int64_t      value;       /* O_NUM */
    uint32_t     off;         /* O_NAME: the identifier */
    struct Node *a, *b;
} Node;

typedef struct Tok {
    char        kind;         /* 'i' identifier, 'n' number, 'p' punctuator, 0 end */
    uint32_t    off, len;
    int64_t     value;
    bool        bad_number;   /* a floating-point or too large literal */
} Tok;

typedef struct Parser {
    Affine     *af;
    const char *t;
    uint32_t    pos, end;
    Tok         tok;
} Parser;

/* ---- tokens --------------------------------------------------------------------------- */

static void next(Parser *p)
{
    const char *t = p->t;
    while (p->pos < p->end && isspace((unsigned char)t[p->pos]))
        p->pos++;
    Tok k = {0, p->pos, 0, 0, false};
    if (p->pos >= p->end) {
        p->tok = k;
        return;
    }
    char ch = t[p->pos];
    uint32_t q = p->pos;
    if (isalpha((unsigned char)ch) || ch == '_') {
        while (q < p->end && (isalnum((unsigned char)t[q]) || t[q] == '_'))
            q++;
        k.kind = 'i';
    } else if (isdigit((unsigned char)ch)) {
        while (q < p->end && (isalnum((unsigned char)t[q]) || t[q] == '.' || t[q] == '\''))
            q++;
        k.kind = 'n';
        char buf[64];
        uint32_t n = 0;
        for (uint32_t i = p->pos; i < q && n < sizeof buf - 1; i++)
            if (t[i] != '\'')
                buf[n++] = t[i];
        buf[n] = 0;
        char *e;
        unsigned long long v = strtoull(buf, &e, 0);
        while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
            e++;
        k.bad_number = *e || v > (unsigned long long)INT64_MAX || q - p->pos >= sizeof buf;
        k.value = (int64_t)v;
    } else {
        static const char *const two[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
                                          "->", "::", "++", "--"};
        k.kind = 'p';
        q++;
        for (size_t i = 0; i < OKLC_COUNTOF(two); i++)
            if (p->pos + 1 < p->end && !memcmp(t + p->pos, two[i], 2))
                q = p->pos + 2;
    }
    k.len = q - p->pos;
    p->pos = q;
    p->tok = k;
}

static bool is(const Parser *p, const char *punct)
{
    return p->tok.kind == 'p' && p->tok.len == strlen(punct) &&
           !memcmp(p->t + p->tok.off, punct, p->tok.len);
}

static bool word(const Parser *p, const char *w)
{
    return p->tok.kind == 'i' && p->tok.len == strlen(w) &&
           !memcmp(p->t + p->tok.off, w, p->tok.len);
}

static Node *node(Parser *p, Op op, Node *a, Node *b)
{
    Node *n = oklc_arena_alloc(&p->af->c->arena, sizeof *n);
    n->op = op, n->a = a, n->b = b;
    return n;
}

/* Past a balanced group that starts at the current token: ( [ { */
static void skip_group(Parser *p)
{
    int depth = 0;
    do {
        if (is(p, "(") || is(p, "[") || is(p, "{"))
            depth++;
        else if (is(p, ")") || is(p, "]") || is(p, "}"))
            depth--;
        next(p);
    } while (depth > 0 && p->tok.kind);
}

/* ---- the tree ------------------------------------------------------------------------------ */

static Node *expr(Parser *p, int min_prec);

/* `(int)`, `(unsigned long)`, ...: a cast to an integer type. */
static bool integer_cast(Parser *p)
{
    static const char *const words[] = {"int", "long", "short", "unsigned", "signed", "char",
                                        "size_t", "int32_t", "int64_t", "uint32_t",
                                        "uint64_t", "ptrdiff_t", "const"};
    Parser q = *p;
    next(&q);
    int n = 0;
    for (; q.tok.kind == 'i'; n++, next(&q)) {
        bool known = false;
        for (size_t i = 0; i < OKLC_COUNTOF(words); i++)
            known |= word(&q, words[i]);
        if (!known)
            return false;
    }
    if (!n || !is(&q, ")"))
        return false;
    next(&q);
    *p = q;
    return true;
}

static Node *primary(Parser *p)
{
    Node *n;
    if (is(p, "(")) {
        if (integer_cast(p))
            return primary(p);
        next(p);
        n = expr(p, 0);
        if (!is(p, ")"))
            return node(p, O_OPAQUE, NULL, NULL);
        next(p);
    } else if (is(p, "-") || is(p, "+") || is(p, "!") || is(p, "~")) {
        Op op = is(p, "-") ? O_NEG : is(p, "!") ? O_NOT : is(p, "~") ? O_BITNOT : O_ADD;
        next(p);
        Node *a = primary(p);
        return op == O_ADD ? a : node(p, op, a, NULL);
    } else if (p->tok.kind == 'n') {
        n = node(p, p->tok.bad_number ? O_OPAQUE : O_NUM, NULL, NULL);
        n->value = p->tok.value;
        next(p);
    } else if (p->tok.kind == 'i' && !word(p, "sizeof")) {
        n = node(p, O_NAME, NULL, NULL);
        n->off = p->tok.off;
        next(p);
    } else {
        if (p->tok.kind)
            next(p);
        n = node(p, O_OPAQUE, NULL, NULL);
    }
    /* calls, subscripts, members: what they give is not known here */
    while (is(p, "(") || is(p, "[") || is(p, ".") || is(p, "->") || is(p, "++") ||
           is(p, "--") || is(p, "::")) {
        if (is(p, "(") || is(p, "["))
            skip_group(p);
        else {
            next(p);
            if (p->tok.kind == 'i')
                next(p);
        }
        n = node(p, O_OPAQUE, NULL, NULL);
    }
    return n;
}

static const struct {
    const char *s;
    Op          op;
    int         prec;
} binops[] = {
    {"||", O_OR, 1},  {"&&", O_AND, 2}, {"|", O_BITOR, 3}, {"^", O_XOR, 4},
    {"&", O_BITAND, 5}, {"==", O_EQ, 6}, {"!=", O_NE, 6}, {"<", O_LT, 7},
    {"<=", O_LE, 7},  {">", O_GT, 7},   {">=", O_GE, 7},  {"<<", O_SHL, 8},
    {">>", O_SHR, 8}, {"+", O_ADD, 9},  {"-", O_SUB, 9},  {"*", O_MUL, 10},
    {"/", O_DIV, 10}, {"%", O_MOD, 10},
};

static Node *expr(Parser *p, int min_prec)
{
    Node *lhs = primary(p);
    for (;;) {
        int found = -1;
        for (size_t i = 0; i < OKLC_COUNTOF(binops) && found < 0; i++)
            if (is(p, binops[i].s) && binops[i].prec > min_prec)
                found = (int)i;
        if (found < 0)
            break;
        next(p);
        lhs = node(p, binops[found].op, lhs, expr(p, binops[found].prec));
    }
    if (min_prec == 0 && (is(p, "?") || is(p, "=") || is(p, ","))) {
        while (p->tok.kind && !is(p, ")"))
            next(p);         /* ?:, assignments, commas: not an affine value */
        return node(p, O_OPAQUE, NULL, NULL);
    }
    return lhs;
}

static Node *parse(Affine *af, Range r)
{
    Parser p = {af, af->c->norm->text, r.begin, r.end, {0}};
    next(&p);
    Node *n = expr(&p, 0);
    return p.tok.kind ? node(&p, O_OPAQUE, NULL, NULL) : n;   /* text left over */
}

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

static Val value(Affine *af, const Node *n);

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

static Val name(Affine *af, const Node *n)
{
    Sym s = af->sym(af->ctx, n->off);
    if (s.kind == SYM_NAME)
        return (Val){s.name, false, 0};
    if (s.kind == SYM_NONE || af->depth >= 16)
        return refuse(af, "a name whose value the analysis does not know");
    af->depth++;
    Val v = value(af, parse(af, s.expr));
    af->depth--;
    return v;
}

static bool fold(Op op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case O_ADD: return !__builtin_add_overflow(a, b, out);
    case O_SUB: return !__builtin_sub_overflow(a, b, out);
    case O_MUL: return !__builtin_mul_overflow(a, b, out);
    case O_DIV: return b && !(a == INT64_MIN && b == -1) && (*out = a / b, true);
    case O_MOD: return b && !(a == INT64_MIN && b == -1) && (*out = a % b, true);
    case O_SHL: return b >= 0 && b < 62 && a >= 0 && a <= (INT64_MAX >> b) && (*out = a << b, true);
    case O_SHR: return b >= 0 && b < 63 && (*out = a >> b, true);
    case O_BITAND: *out = a & b; return true;
    case O_BITOR: *out = a | b; return true;
    case O_XOR: *out = a ^ b; return true;
    default: return false;
    }
}

static Val binary(Affine *af, const Node *n)
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
    case O_ADD: return (Val){oklc_arena_printf(ar, "(%s + %s)", a.text, b.text), false, 0};
    case O_SUB: return (Val){oklc_arena_printf(ar, "(%s - %s)", a.text, b.text), false, 0};
    case O_MUL:
        if (!a.constant && !b.constant)
            return refuse(af, "a product of two values that are not constants");
        /* isl reads a product as a number before a term: 3 * (x + 1) */
        return (Val){oklc_arena_printf(ar, "(%lld * %s)",
                                       (long long)(a.constant ? a.value : b.value),
                                       a.constant ? b.text : a.text), false, 0};
    case O_SHL:
        if (!b.constant || b.value < 0 || b.value > 40)
            return refuse(af, "a shift by a value that is not a small constant");
        return (Val){oklc_arena_printf(ar, "(%lld * %s)", 1LL << b.value, a.text), false, 0};
    case O_SHR:
        if (!b.constant || b.value < 0 || b.value > 40)
            return refuse(af, "a shift by a value that is not a small constant");
        /* >> rounds down, also below zero: floor */
        return (Val){oklc_arena_printf(ar, "floor(%s / %lld)", a.text, 1LL << b.value), false,
                     0};
    case O_DIV: case O_MOD: {
        if (!b.constant || b.value <= 0)
            return refuse(af, "a division by a value that is not a positive constant");
        const char *q = quotient(af, a.text, b.value);
        return (Val){n->op == O_DIV ? q
                                    : oklc_arena_printf(ar, "(%s - %lld * %s)", a.text,
                                                        (long long)b.value, q),
                     false, 0};
    }
    default:
        return refuse(af, "an operation that is not affine");
    }
}

static Val value(Affine *af, const Node *n)
{
    switch (n->op) {
    case O_NUM: return constant(af, n->value);
    case O_NAME: return name(af, n);
    case O_NEG: {
        Val a = value(af, n->a);
        if (a.text && a.constant)
            return a.value == INT64_MIN ? refuse(af, "a constant that overflows")
                                        : constant(af, -a.value);
        return a.text ? (Val){oklc_arena_printf(&af->c->arena, "(-%s)", a.text), false, 0} : a;
    }
    case O_OPAQUE: return refuse(af, "a call, a subscript or an operation it does not model");
    case O_NOT: case O_BITNOT: return refuse(af, "an operation that is not affine");
    default: return binary(af, n);
    }
}

/* ---- conditions ------------------------------------------------------------------------------ */

static const char *cmp_text(Op op, bool negate)
{
    static const Op flip[][2] = {{O_LT, O_GE}, {O_LE, O_GT}, {O_EQ, O_NE}};
    if (negate)
        for (size_t i = 0; i < OKLC_COUNTOF(flip); i++)
            if (op == flip[i][0] || op == flip[i][1])
                op = op == flip[i][0] ? flip[i][1] : flip[i][0];
    switch (op) {
    case O_LT: return "<";
    case O_LE: return "<=";
    case O_GT: return ">";
    case O_GE: return ">=";
    case O_EQ: return "=";
    default: return "!=";
    }
}

/* NULL: nothing known (true). */
static const char *cond(Affine *af, const Node *n, bool negate)
{
    Arena *ar = &af->c->arena;
    switch (n->op) {
    case O_NOT: return cond(af, n->a, !negate);
    case O_AND: case O_OR: {
        const char *a = cond(af, n->a, negate), *b = cond(af, n->b, negate);
        bool conj = (n->op == O_AND) != negate;
        if (conj)
            return !a ? b : !b ? a : oklc_arena_printf(ar, "(%s and %s)", a, b);
        return a && b ? oklc_arena_printf(ar, "(%s or %s)", a, b) : NULL;
    }
    case O_LT: case O_LE: case O_GT: case O_GE: case O_EQ: case O_NE: {
        const char *why = af->why;
        Val a = value(af, n->a), b = value(af, n->b);
        af->why = why;       /* a condition left out is no refusal */
        return a.text && b.text ? oklc_arena_printf(ar, "(%s %s %s)", a.text,
                                                    cmp_text(n->op, negate), b.text)
                                : NULL;
    }
    default: {
        const char *why = af->why;
        Val a = value(af, n);
        af->why = why;
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

const char *oklc_affine_expr(Affine *af, Range r)
{
    return value(af, parse(af, r)).text;
}

const char *oklc_affine_cond(Affine *af, Range r, bool negate)
{
    const char *s = cond(af, parse(af, r), negate);
    return s ? s : "(0 = 0)";
}
