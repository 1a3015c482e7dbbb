/*
 * expr.c - expressions of the normalized text as small trees, with C's
 * precedences: what the analysis reads (affine.c) and evaluates (stats.c).
 * Calls (but min and max), subscripts, members and anything else unknown
 * are opaque leaves; an assignment is a node only at the top (a loop's
 * step).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

typedef struct Tok {
    char        kind;         /* 'i' identifier, 'n' number, 'p' punctuator, 0 end */
    uint32_t    off, len;
    int64_t     value;
    bool        bad_number;   /* a floating-point or too large literal */
} Tok;

typedef struct Parser {
    oklc_ctx   *c;
    const char *t;
    uint32_t    pos, end;
    Tok         tok;
    int         args;         /* in the arguments of min(a, b): a comma ends one */
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
                                          "->", "::", "++", "--", "+=", "-=", "*=", "/=",
                                          "%=", "&=", "|=", "^="};
        k.kind = 'p';
        q++;
        for (size_t i = 0; i < OKLC_COUNTOF(two); i++)
            if (p->pos + 1 < p->end && !memcmp(t + p->pos, two[i], 2))
                q = p->pos + 2;
        if (p->pos + 2 < p->end && (!memcmp(t + p->pos, "<<=", 3) || !memcmp(t + p->pos, ">>=", 3)))
            q = p->pos + 3;
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

static Expr *node(Parser *p, ExprOp op, Expr *a, Expr *b)
{
    Expr *n = oklc_arena_alloc(&p->c->arena, sizeof *n);
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

static Expr *expr(Parser *p, int min_prec);

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

static Expr *primary(Parser *p)
{
    Expr *n;
    if (is(p, "(")) {
        if (integer_cast(p))
            return primary(p);
        next(p);
        n = expr(p, 0);
        if (!is(p, ")"))
            return node(p, X_OPAQUE, NULL, NULL);
        next(p);
    } else if (is(p, "-") || is(p, "+") || is(p, "!") || is(p, "~")) {
        ExprOp op = is(p, "-") ? X_NEG : is(p, "!") ? X_NOT : is(p, "~") ? X_BITNOT : X_ADD;
        next(p);
        Expr *a = primary(p);
        return op == X_ADD ? a : node(p, op, a, NULL);
    } else if (p->tok.kind == 'n') {
        n = node(p, p->tok.bad_number ? X_OPAQUE : X_NUM, NULL, NULL);
        n->value = p->tok.value;
        next(p);
    } else if (is(p, "++") || is(p, "--")) {
        ExprOp op = is(p, "++") ? X_INC : X_DEC;
        next(p);
        return node(p, op, primary(p), NULL);
    } else if (p->tok.kind == 'i' && !word(p, "sizeof")) {
        if (word(p, "std")) {           /* std::min */
            Parser q = *p;
            next(&q);
            if (is(&q, "::"))
                next(&q), *p = q;
        }
        n = node(p, X_NAME, NULL, NULL);
        n->off = p->tok.off;
        n->len = p->tok.len;
        bool min = word(p, "min"), max = word(p, "max");
        next(p);
        if ((min || max) && is(p, "(")) {
            Parser q = *p;
            next(&q);
            q.args++;
            Expr *a = expr(&q, 0), *b = NULL;
            if (is(&q, ",")) {
                next(&q);
                b = expr(&q, 0);
            }
            if (b && is(&q, ")")) {
                next(&q);
                q.args--;
                *p = q;
                n = node(p, min ? X_MIN : X_MAX, a, b);
            }
        }
    } else {
        if (p->tok.kind)
            next(p);
        n = node(p, X_OPAQUE, NULL, NULL);
    }
    if (n->op == X_NAME && (is(p, "++") || is(p, "--"))) {   /* i++: as a statement, ++i */
        n = node(p, is(p, "++") ? X_INC : X_DEC, n, NULL);
        next(p);
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
        n = node(p, X_OPAQUE, NULL, NULL);
    }
    return n;
}

static const struct {
    const char *s;
    ExprOp          op;
    int         prec;
} binops[] = {
    {"||", X_OR, 1},  {"&&", X_AND, 2}, {"|", X_BITOR, 3}, {"^", X_XOR, 4},
    {"&", X_BITAND, 5}, {"==", X_EQ, 6}, {"!=", X_NE, 6}, {"<", X_LT, 7},
    {"<=", X_LE, 7},  {">", X_GT, 7},   {">=", X_GE, 7},  {"<<", X_SHL, 8},
    {">>", X_SHR, 8}, {"+", X_ADD, 9},  {"-", X_SUB, 9},  {"*", X_MUL, 10},
    {"/", X_DIV, 10}, {"%", X_MOD, 10},
};

static const struct {
    const char *s;
    ExprOp      op;
} updates[] = {
    {"=", X_NUM}, {"+=", X_ADD}, {"-=", X_SUB}, {"*=", X_MUL}, {"/=", X_DIV}, {"%=", X_MOD},
    {"<<=", X_SHL}, {">>=", X_SHR}, {"&=", X_BITAND}, {"|=", X_BITOR}, {"^=", X_XOR},
};

static Expr *expr(Parser *p, int min_prec)
{
    Expr *lhs = primary(p);
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
    if (min_prec > 0)
        return lhs;
    if (is(p, "?")) {
        next(p);
        Expr *then = expr(p, 0);
        if (!is(p, ":"))
            return node(p, X_OPAQUE, NULL, NULL);
        next(p);
        Expr *n = node(p, X_COND, lhs, then);
        n->c = expr(p, 0);
        return n;
    }
    for (size_t i = 0; i < OKLC_COUNTOF(updates); i++)
        if (is(p, updates[i].s)) {       /* x = v, x += v: a loop's step */
            next(p);
            Expr *n = node(p, X_ASSIGN, lhs, expr(p, 0));
            n->update = updates[i].op;
            return n;
        }
    if (is(p, ",") && p->args)
        return lhs;
    if (is(p, ",")) {
        while (p->tok.kind && !is(p, ")"))
            next(p);         /* commas: no value of ours */
        return node(p, X_OPAQUE, NULL, NULL);
    }
    return lhs;
}

Expr *oklc_expr_parse(oklc_ctx *c, Range r)
{
    Parser p = {c, c->norm->text, r.begin, r.end, {0}, 0};
    next(&p);
    Expr *n = expr(&p, 0);
    if (is(&p, ";"))          /* an expression statement's range holds its ';' */
        next(&p);
    return p.tok.kind ? node(&p, X_OPAQUE, NULL, NULL) : n;   /* text left over */
}

