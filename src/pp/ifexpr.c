/*
 * ifexpr.c - #if / #elif constant expressions, and finding #include files.
 *
 * The line is copied, `defined X` and `__has_include(...)` are resolved,
 * macros are expanded, remaining identifiers become 0, then a precedence
 * climbing parser evaluates in intmax_t/uintmax_t with C's usual arithmetic
 * conversions. Arithmetic is done on unsigned values so overflow wraps
 * instead of being undefined; division by zero is an error only where it is
 * evaluated (`0 && 1/0` is fine).
 *
 *   expr    = assign {',' assign}
 *   assign  = cond {'=' cond}             (legacy OCCA: the last value)
 *   cond    = binary ['?' expr ':' cond]
 *   binary  = unary {binop unary}        (C precedence, left-assoc)
 *   unary   = ('+'|'-'|'~'|'!') unary | primary
 *   primary = number | char | '(' expr ')'
 */
#include <string.h>
#include <unistd.h>

#include "pp.h"

typedef struct Val {
    uint64_t v;
    bool     u;     /* unsigned */
} Val;

typedef struct Eval {
    PP          *pp;
    const Token *t;
    const Token *hash;     /* the # of the directive, for messages */
    int          depth;
    bool         failed;
} Eval;

enum { MAX_DEPTH = 256 };

/* ---- finding includes ------------------------------------------------------ */

static bool readable_file(const char *path)
{
    return access(path, R_OK) == 0;
}

const char *oklc_pp_find_include(PP *pp, const Token *at, const char *name, bool angled)
{
    oklc_ctx *c = pp->c;
    if (oklc_mem_file(c, name))
        return name;
    if (name[0] == '/')
        return readable_file(name) ? name : NULL;
    if (!angled) {
        /* First the folder of the file that contains the directive. */
        const char *from = c->views.data[at->loc.file].src->path;
        const char *slash = strrchr(from, '/');
        char *cand = slash ? oklc_arena_printf(&c->arena, "%.*s/%s", (int)(slash - from), from,
                                               name)
                           : oklc_arena_strdup(&c->arena, name);
        if (readable_file(cand))
            return cand;
    }
    for (size_t i = 0; i < c->incpaths.len; i++) {
        char *cand = oklc_arena_printf(&c->arena, "%s/%s", c->incpaths.data[i], name);
        if (readable_file(cand))
            return cand;
    }
    return NULL;
}

/* ---- preparing the line ------------------------------------------------------ */

static bool line_end(const Token *t)
{
    return t->kind == TK_EOF || (t->flags & TF_BOL);
}

static Token *number(PP *pp, const Token *like, bool one)
{
    Token *n = oklc_macro_new_token(pp, TK_NUMBER, one ? "1" : "0", 1, like);
    n->loc = like->loc;
    return n;
}

/* `defined X` / `defined(X)`: returns the token after the operand. */
static const Token *eval_defined(Eval *e, const Token *t, bool *value)
{
    const Token *op = t;
    bool paren = oklc_tok_is_punct(t->next, P_LPAREN) && !line_end(t->next);
    t = t->next;
    if (paren)
        t = t->next;
    if (line_end(t) || t->kind != TK_IDENT) {
        oklc_diag_error(e->pp->c, line_end(t) ? op->loc : t->loc,
                        "macro name must be an identifier after 'defined'");
        e->failed = true;
        return t;
    }
    *value = oklc_macro_defined(e->pp, t->text, t->len);
    t = t->next;
    if (paren) {
        if (line_end(t) || !oklc_tok_is_punct(t, P_RPAREN)) {
            oklc_diag_error(e->pp->c, line_end(t) ? op->loc : t->loc,
                            "missing ')' after 'defined'");
            e->failed = true;
            return t;
        }
        t = t->next;
    }
    return t;
}

/* __has_include("x") / __has_include(<x>) and the __has_* queries that
 * have no meaning before a target compiler sees the code (always 0). */
static const Token *eval_has(Eval *e, const Token *t, bool *value)
{
    PP *pp = e->pp;
    const Token *op = t;
    bool inc = oklc_tok_eq(t, "__has_include") || oklc_tok_eq(t, "__has_include_next");
    t = t->next;
    if (line_end(t) || !oklc_tok_is_punct(t, P_LPAREN)) {
        oklc_diag_error(pp->c, op->loc, "missing '(' after '%.*s'", (int)op->len, op->text);
        e->failed = true;
        return t;
    }
    const Token *open = t, *before = t;    /* before: the token before ')' */
    int depth = 0;
    for (; !line_end(t); before = t, t = t->next) {
        if (oklc_tok_is_punct(t, P_LPAREN))
            depth++;
        else if (oklc_tok_is_punct(t, P_RPAREN) && --depth == 0)
            break;
    }
    if (line_end(t)) {
        oklc_diag_error(pp->c, open->loc, "missing ')' after '%.*s'", (int)op->len, op->text);
        e->failed = true;
        return t;
    }
    *value = false;
    if (inc) {
        const Token *a = open->next;
        char *name = NULL;
        bool angled = oklc_tok_is_punct(a, P_LT);
        if (oklc_tok_is_plain_string(a) && a->next == t)
            name = oklc_arena_strndup(&pp->c->arena, a->text + 1, a->len - 2);
        else if (angled && oklc_tok_is_punct(before, P_GT) && before != a)
            name = oklc_tok_join(pp->c, a->next, before, NULL);
        if (!name || !*name) {
            oklc_diag_error(pp->c, a->loc, name ? "empty filename in __has_include"
                                                : "expected \"FILENAME\" or <FILENAME>");
            e->failed = true;
        } else {
            *value = oklc_pp_find_include(pp, op, name, angled) != NULL;
            /* System headers are the target compiler's: look where it would. */
            for (const char *const *d = (const char *const[]){"/usr/local/include",
                                                               "/usr/include", NULL};
                 angled && !*value && *d; d++) {
                char *p = oklc_arena_printf(&pp->c->arena, "%s/%s", *d, name);
                *value = access(p, R_OK) == 0;
            }
        }
    }
    return t->next;
}

static bool is_has_query(const Token *t)
{
    static const char *const names[] = {"__has_include", "__has_include_next",
                                        "__has_attribute", "__has_cpp_attribute",
                                        "__has_builtin", "__has_feature", "__has_extension",
                                        "__has_c_attribute", "__has_declspec_attribute"};
    for (size_t i = 0; i < OKLC_COUNTOF(names); i++)
        if (oklc_tok_eq(t, names[i]))
            return true;
    return false;
}

/* Copies the rest of the line, replacing defined/__has_* by 0 or 1. */
static Token *resolve_queries(Eval *e, const Token *t)
{
    Token head = {0}, *tail = &head;
    while (!line_end(t)) {
        bool v = false;
        if (t->kind == TK_IDENT && oklc_tok_eq(t, "defined")) {
            const Token *op = t;
            t = eval_defined(e, t, &v);
            tail = tail->next = number(e->pp, op, v);
        } else if (t->kind == TK_IDENT && is_has_query(t)) {
            const Token *op = t;
            t = eval_has(e, t, &v);
            tail = tail->next = number(e->pp, op, v);
        } else {
            tail = tail->next = oklc_tok_copy(e->pp->c, t);
            t = t->next;
        }
        if (e->failed)
            break;
    }
    /* The end of the line is just past its last token: where "expected a
     * value" points. */
    Token *eof = oklc_tok_copy(e->pp->c, tail == &head ? t : tail);
    eof->kind = TK_EOF;
    eof->flags = TF_BOL;
    eof->exp = NULL;
    if (tail != &head) {
        Loc at = oklc_tok_user_loc(tail);
        if (!tail->exp && !(tail->flags & TF_MACRO))
            at.col += tail->len, at.off += tail->len;
        eof->loc = at;
    }
    eof->len = 0;
    tail->next = eof;
    return head.next;
}

/* After expansion: C++ alternative spellings become operators, true is 1,
 * every other identifier is 0. */
static void finish_line(Eval *e, Token *list)
{
    static const struct {
        const char *word;
        Punct       p;
    } alt[] = {{"and", P_ANDAND}, {"or", P_OROR}, {"not", P_NOT}, {"bitand", P_AMP},
               {"bitor", P_PIPE}, {"xor", P_CARET}, {"compl", P_TILDE}, {"not_eq", P_NE}};
    for (Token *t = list; t->kind != TK_EOF; t = t->next) {
        if (t->kind != TK_IDENT)
            continue;
        bool done = false;
        for (size_t i = 0; i < OKLC_COUNTOF(alt) && !done; i++)
            if (oklc_tok_eq(t, alt[i].word)) {
                t->kind = TK_PUNCT;
                t->punct = (uint16_t)alt[i].p;
                done = true;
            }
        if (done)
            continue;
        if (oklc_tok_eq(t, "defined")) {
            bool v = false;
            const Token *after = eval_defined(e, t, &v);
            t->next = (Token *)after;
            t->kind = TK_NUMBER;
            t->text = v ? "1" : "0";
            t->len = 1;
            continue;
        }
        bool one = oklc_tok_eq(t, "true");
        t->kind = TK_NUMBER;
        t->text = one ? "1" : "0";
        t->len = 1;
    }
}

/* ---- evaluation ---------------------------------------------------------------- */

static void fail(Eval *e, const Token *t, const char *msg)
{
    if (e->failed)
        return;
    Loc at = oklc_tok_user_loc(t);
    Diag *d = oklc_diag_error(e->pp->c, at, "%s", msg);
    if (t->kind != TK_EOF)
        oklc_tok_note_expansion(e->pp->c, d, t);
    e->failed = true;
}

static Val expr(Eval *e, bool live);

static Val primary(Eval *e, bool live)
{
    const Token *t = e->t;
    Val r = {0, false};
    if (t->flags & TF_BAD) {
        fail(e, t, oklc_tok_bad_message(t));
        return r;
    }
    if (t->kind == TK_NUMBER) {
        const char *err;
        if (!oklc_int_literal(t->text, t->len, &r.v, &r.u, &err))
            fail(e, t, strstr(err, "floating") ? "floating point literal in preprocessor "
                                                 "expression"
                                               : err);
        e->t = t->next;
        return r;
    }
    if (t->kind == TK_CHAR) {
        int64_t v;
        const char *err;
        if (!oklc_char_literal(t->text, t->len, &v, &err))
            fail(e, t, err);
        r.v = (uint64_t)v;
        e->t = t->next;
        return r;
    }
    if (oklc_tok_is_punct(t, P_LPAREN)) {
        e->t = t->next;
        r = expr(e, live);
        if (!oklc_tok_is_punct(e->t, P_RPAREN))
            fail(e, e->t, "expected ')' in preprocessor expression");
        else
            e->t = e->t->next;
        return r;
    }
    if (t->kind == TK_EOF || oklc_tok_is_punct(t, P_RPAREN))
        fail(e, t, "expected value in expression");
    else
        fail(e, t, "invalid token at start of a preprocessor expression");
    return r;
}

static Val unary(Eval *e, bool live)
{
    const Token *t = e->t;
    if (++e->depth > MAX_DEPTH) {
        fail(e, t, "preprocessor expression is nested too deeply");
        return (Val){0, false};
    }
    Val r;
    if (t->kind == TK_PUNCT &&
        (t->punct == P_PLUS || t->punct == P_MINUS || t->punct == P_TILDE || t->punct == P_NOT)) {
        e->t = t->next;
        r = unary(e, live);
        switch (t->punct) {
        case P_MINUS: r.v = 0 - r.v; break;
        case P_TILDE: r.v = ~r.v; break;
        case P_NOT: r = (Val){r.v == 0, false}; break;
        default: break;
        }
    } else {
        r = primary(e, live);
    }
    e->depth--;
    return r;
}

static int precedence(const Token *t)
{
    if (t->kind != TK_PUNCT)
        return -1;
    switch (t->punct) {
    case P_STAR: case P_SLASH: case P_PERCENT: return 10;
    case P_PLUS: case P_MINUS: return 9;
    case P_SHL: case P_SHR: return 8;
    case P_LT: case P_GT: case P_LE: case P_GE: return 7;
    case P_EQ: case P_NE: return 6;
    case P_AMP: return 5;
    case P_CARET: return 4;
    case P_PIPE: return 3;
    case P_ANDAND: return 2;
    case P_OROR: return 1;
    default: return -1;
    }
}

static bool negative(Val a)
{
    return !a.u && (int64_t)a.v < 0;
}

static Val shift(Val a, Val b, bool left)
{
    /* A negative count shifts the other way, as GCC does. */
    int64_t n = b.u ? (b.v > 64 ? 64 : (int64_t)b.v) : (int64_t)b.v;
    if (n < 0) {
        left = !left;
        n = n < -64 ? 64 : -n;
    }
    if (n >= 64)
        return (Val){left || !negative(a) ? 0 : UINT64_MAX, a.u};
    if (left)
        return (Val){a.v << n, a.u};
    if (negative(a))
        return (Val){~(~a.v >> n), a.u};
    return (Val){a.v >> n, a.u};
}

static Val apply(Eval *e, const Token *op, Val a, Val b, bool live)
{
    bool u = a.u || b.u;
    switch (op->punct) {
    case P_STAR: return (Val){a.v * b.v, u};
    case P_SLASH:
    case P_PERCENT:
        if (b.v == 0) {
            if (live)
                fail(e, op, op->punct == P_SLASH ? "division by zero in preprocessor expression"
                                                 : "remainder by zero in preprocessor "
                                                   "expression");
            return (Val){0, u};
        }
        if (u)
            return (Val){op->punct == P_SLASH ? a.v / b.v : a.v % b.v, true};
        if ((int64_t)a.v == INT64_MIN && (int64_t)b.v == -1)   /* overflow: wraps */
            return (Val){op->punct == P_SLASH ? a.v : 0, false};
        return (Val){(uint64_t)(op->punct == P_SLASH ? (int64_t)a.v / (int64_t)b.v
                                                     : (int64_t)a.v % (int64_t)b.v),
                     false};
    case P_PLUS: return (Val){a.v + b.v, u};
    case P_MINUS: return (Val){a.v - b.v, u};
    case P_SHL: return shift(a, b, true);
    case P_SHR: return shift(a, b, false);
    case P_LT: return (Val){u ? a.v < b.v : (int64_t)a.v < (int64_t)b.v, false};
    case P_GT: return (Val){u ? a.v > b.v : (int64_t)a.v > (int64_t)b.v, false};
    case P_LE: return (Val){u ? a.v <= b.v : (int64_t)a.v <= (int64_t)b.v, false};
    case P_GE: return (Val){u ? a.v >= b.v : (int64_t)a.v >= (int64_t)b.v, false};
    case P_EQ: return (Val){a.v == b.v, false};
    case P_NE: return (Val){a.v != b.v, false};
    case P_AMP: return (Val){a.v & b.v, u};
    case P_CARET: return (Val){a.v ^ b.v, u};
    case P_PIPE: return (Val){a.v | b.v, u};
    default: oklc_unreachable();
    }
}

static Val binary(Eval *e, int min_prec, bool live)
{
    Val a = unary(e, live);
    for (;;) {
        const Token *op = e->t;
        int p = precedence(op);
        if (p < min_prec || e->failed)
            return a;
        e->t = op->next;
        if (op->punct == P_ANDAND || op->punct == P_OROR) {
            bool and = op->punct == P_ANDAND;
            bool short_circuit = and ? a.v == 0 : a.v != 0;
            Val b = binary(e, p + 1, live && !short_circuit);
            a = (Val){and ? (a.v && b.v) : (a.v || b.v), false};
            continue;
        }
        Val b = binary(e, p + 1, live);
        a = apply(e, op, a, b, live);
    }
}

static Val cond(Eval *e, bool live)
{
    Val c = binary(e, 1, live);
    if (!oklc_tok_is_punct(e->t, P_QUESTION) || e->failed)
        return c;
    e->t = e->t->next;
    Val a = expr(e, live && c.v != 0);
    if (!oklc_tok_is_punct(e->t, P_COLON)) {
        fail(e, e->t, "expected ':' in conditional expression");
        return a;
    }
    e->t = e->t->next;
    Val b = cond(e, live && c.v == 0);
    bool u = a.u || b.u;
    return (Val){c.v ? a.v : b.v, u};
}

/* `#if NAME=1`, written for NAME == 1: legacy OCCA's expression parser
 * takes '=' as an assignment whose value is its right side, so the
 * condition is 1 whatever NAME is. Kernels were tuned with that meaning;
 * it is kept, with a warning that gives the fix. */
static Val assign(Eval *e, bool live)
{
    Val v = cond(e, live);
    while (oklc_tok_is_punct(e->t, P_ASSIGN) && !e->failed) {
        const Token *op = e->t;
        Diag *d = oklc_diag_warning(e->pp->c, oklc_tok_user_loc(op),
                                    "'=' in a preprocessor condition is an assignment, as in "
                                    "legacy OCCA: the condition takes the value of its right "
                                    "side; write '==' to compare");
        oklc_tok_note_expansion(e->pp->c, d, op);
        e->t = op->next;
        v = cond(e, live);
    }
    return v;
}

static Val expr(Eval *e, bool live)
{
    if (++e->depth > MAX_DEPTH) {
        fail(e, e->t, "preprocessor expression is nested too deeply");
        return (Val){0, false};
    }
    Val v = assign(e, live);
    while (oklc_tok_is_punct(e->t, P_COMMA) && !e->failed) {
        e->t = e->t->next;
        v = assign(e, live);
    }
    e->depth--;
    return v;
}

Token *oklc_pp_if_expr(PP *pp, Token *hash, Token *t, bool *value)
{
    Eval e = {.pp = pp, .hash = hash};
    Token *next = t;
    while (!line_end(next))
        next = next->next;
    *value = false;
    if (line_end(t)) {
        oklc_diag_error(pp->c, hash->next->loc, "#%.*s with no expression",
                        (int)hash->next->len, hash->next->text);
        return next;
    }
    Token *line = resolve_queries(&e, t);
    if (e.failed)
        return next;
    pp->arg_depth++;     /* expansions here must not touch the output */
    line = oklc_macro_expand_all(pp, line);
    pp->arg_depth--;
    finish_line(&e, line);
    if (e.failed)
        return next;
    e.t = line;
    Val v = expr(&e, true);
    if (!e.failed && e.t->kind != TK_EOF)
        fail(&e, e.t, "token is not a valid binary operator in a preprocessor subexpression");
    *value = !e.failed && v.v != 0;
    return next;
}
