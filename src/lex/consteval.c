/*
 * consteval.c - the value of an integer constant expression written as
 * text: a tile size, a loop's step, once a template instance has given
 * its parameters values. Clang evaluates what is in its tree; an OKL
 * attribute's arguments are not, nor are an instance's arguments.
 *
 * Integer literals, names given values (template parameters, whose values
 * are texts evaluated in turn), true/false, parentheses and C++'s unary,
 * binary and ?: operators, on exact 64-bit values: a value outside int64
 * (or a division by zero) is CONST_OVERFLOW, where C++ would wrap an
 * unsigned or have undefined behavior; the caller says whether the value
 * fits the type it needs. Any other name or token makes it
 * CONST_UNKNOWN: a constexpr variable, sizeof, a cast are the compiler's.
 *
 *   cond  = binary ['?' cond ':' cond]
 *   binary = unary {binop unary}          (C++ precedence, left-assoc)
 *   unary = ('+'|'-'|'~'|'!') unary | '(' cond ')' | number | name
 */
#include <ctype.h>
#include <string.h>

#include "lex.h"

typedef struct Eval {
    const char        *p;
    const ConstNames  *names;
    int                depth;
    ConstEval          status;
} Eval;

enum { MAX_DEPTH = 64 };

static void skip_space(Eval *e)
{
    while (isspace((unsigned char)*e->p))
        e->p++;
}

static bool accept(Eval *e, const char *op)
{
    skip_space(e);
    size_t n = strlen(op);
    if (strncmp(e->p, op, n))
        return false;
    /* '<' is not the start of '<<' or '<=', '&' not of '&&' */
    if (n == 1 && e->p[1] && strchr("<>&|=", e->p[1]) && (e->p[1] == op[0] || e->p[1] == '='))
        return false;
    if (n == 2 && op[1] != '=' && e->p[2] == '=')
        return false;            /* '<<=' is an assignment */
    e->p += n;
    return true;
}

static int64_t fail(Eval *e, ConstEval why)
{
    if (e->status == CONST_VALUE || why == CONST_UNKNOWN)
        e->status = why;
    return 0;
}

static int64_t cond(Eval *e);

static int64_t number(Eval *e)
{
    size_t n = strspn(e->p, "0123456789abcdefABCDEFxX'uUlLzZ");
    uint64_t v;
    bool u;
    const char *err;
    if (!oklc_int_literal(e->p, n, &v, &u, &err))
        return fail(e, CONST_UNKNOWN);
    e->p += n;
    return v > INT64_MAX ? fail(e, CONST_OVERFLOW) : (int64_t)v;
}

static int64_t name(Eval *e)
{
    const char *s = e->p;
    while (isalnum((unsigned char)*e->p) || *e->p == '_')
        e->p++;
    size_t n = (size_t)(e->p - s);
    if (n == 4 && !memcmp(s, "true", 4))
        return 1;
    if (n == 5 && !memcmp(s, "false", 5))
        return 0;
    for (size_t i = 0; e->names && i < e->names->n; i++) {
        const char *m = e->names->names[i];
        if (strlen(m) != n || memcmp(m, s, n) || !e->names->values[i])
            continue;
        int64_t v;
        ConstEval st = oklc_const_eval(e->names->values[i], NULL, &v);
        return st == CONST_VALUE ? v : fail(e, st);
    }
    return fail(e, CONST_UNKNOWN);
}

static int64_t unary(Eval *e)
{
    skip_space(e);
    if (e->status != CONST_VALUE || ++e->depth > MAX_DEPTH)
        return fail(e, CONST_UNKNOWN);
    int64_t v = 0;
    char c = *e->p;
    if ((c == '+' || c == '-') && e->p[1] != c) {
        e->p++;
        v = unary(e);
        if (c == '-' && v == INT64_MIN)
            v = fail(e, CONST_OVERFLOW);
        else if (c == '-')
            v = -v;
    } else if (c == '~' || (c == '!' && e->p[1] != '=')) {
        e->p++;
        v = unary(e);
        v = c == '~' ? ~v : !v;
    } else if (c == '(') {
        e->p++;
        v = cond(e);
        if (!accept(e, ")"))
            v = fail(e, CONST_UNKNOWN);
    } else if (isdigit((unsigned char)c)) {
        v = number(e);
    } else if (isalpha((unsigned char)c) || c == '_') {
        v = name(e);
    } else {
        v = fail(e, CONST_UNKNOWN);
    }
    e->depth--;
    return v;
}

/* The binary operators, loosest first. */
static const struct { const char *op; int prec; } binops[] = {
    {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6},
    {"<=", 7}, {">=", 7}, {"<", 7}, {">", 7}, {"<<", 8}, {">>", 8},
    {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10},
};

static int64_t apply(Eval *e, const char *op, int64_t a, int64_t b)
{
    int64_t r = 0;
    switch (op[0]) {
    case '+': return __builtin_add_overflow(a, b, &r) ? fail(e, CONST_OVERFLOW) : r;
    case '-': return __builtin_sub_overflow(a, b, &r) ? fail(e, CONST_OVERFLOW) : r;
    case '*': return __builtin_mul_overflow(a, b, &r) ? fail(e, CONST_OVERFLOW) : r;
    case '/':
    case '%':
        if (!b || (a == INT64_MIN && b == -1))
            return fail(e, CONST_OVERFLOW);
        return op[0] == '/' ? a / b : a % b;
    case '<':
        if (op[1] == '<')     /* a left shift that leaves int64 overflows */
            return b < 0 || b > 62 || a < 0 || a > (INT64_MAX >> b) ? fail(e, CONST_OVERFLOW)
                                                                    : a << b;
        return op[1] == '=' ? a <= b : a < b;
    case '>':
        if (op[1] == '>')
            return b < 0 || b > 63 ? fail(e, CONST_OVERFLOW) : a >> b;
        return op[1] == '=' ? a >= b : a > b;
    case '=': return a == b;
    case '!': return a != b;
    case '&': return op[1] == '&' ? a && b : (a & b);
    case '|': return op[1] == '|' ? a || b : (a | b);
    default: return a ^ b;
    }
}

static int64_t binary(Eval *e, int min_prec)
{
    int64_t a = unary(e);
    for (;;) {
        size_t i = 0;
        while (i < sizeof binops / sizeof *binops && !accept(e, binops[i].op))
            i++;
        if (i == sizeof binops / sizeof *binops)
            return a;
        if (binops[i].prec < min_prec) {
            e->p -= strlen(binops[i].op);
            return a;
        }
        int64_t b = binary(e, binops[i].prec + 1);
        a = apply(e, binops[i].op, a, b);
    }
}

static int64_t cond(Eval *e)
{
    int64_t c = binary(e, 1);
    if (!accept(e, "?"))
        return c;
    int64_t a = cond(e);
    if (!accept(e, ":"))
        return fail(e, CONST_UNKNOWN);
    int64_t b = cond(e);
    return c ? a : b;
}

ConstEval oklc_const_eval(const char *text, const ConstNames *names, int64_t *out)
{
    Eval e = {text, names, 0, CONST_VALUE};
    int64_t v = cond(&e);
    skip_space(&e);
    if (*e.p)
        fail(&e, CONST_UNKNOWN);
    if (e.status == CONST_VALUE)
        *out = v;
    return e.status;
}
