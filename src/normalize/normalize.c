/*
 * normalize.c - rewrites OKL 1.0 attributes into C++ attribute syntax.
 *
 * Takes tokens (preprocessed, or raw for --keep-macros), gives the C++ text,
 * a record of every OKL attribute, and a map from text offsets back to the
 * tokens, hence to the user's file:line:col.
 *
 * Where each form goes:
 *   for (init; cond; step; @outer)      -> [[okl::outer]] for (init; cond; step)
 *   for (...; outer) / for (outer)       -> the same (legacy keywords)
 *   @attr stmt-or-decl                   -> [[okl::attr]] stmt-or-decl
 *   float *m @dim(3,4)  (after a name)   -> float *m [[okl::dim(3, 4)]]
 *   float * @restrict p                  -> float * [[okl::restrict]] p
 *   shared int a[8];  exclusive int z;   -> [[okl::shared]] int a[8]; ...
 *   [[okl::x]] / [[okl_x("")]]           -> unchanged, recorded
 * Nested arguments stay structured: @tile(16, @outer(1), @inner, check=false)
 * becomes [[okl::tile(16, okl::outer(1), okl::inner, check=false)]].
 * Indexing a @dim array, m(i, j), is not C++ on a pointer: it becomes
 * okl::at(m, i, j), declared in include/oklc/okl.hpp.
 *
 * Everything else is printed back exactly, comments included.
 */
#include <string.h>

#include "normalize.h"
#include "../backends/table.h"

enum { MAX_NESTING = 16 };

/* A name declared with @dim (directly or through a @dim typedef). */
typedef struct DimName {
    const Token *tok;
    size_t       level;     /* frames open at its declaration */
    bool         param;     /* a function parameter: lives in the body */
    bool         entered;   /* the body has been entered */
} DimName;

typedef struct Frame {
    bool   for_header;   /* the parentheses of a for statement */
    bool   unclosed;     /* no bracket closes it */
    int    semis;        /* top-level ';' seen in it */
    Punct  open;
} Frame;

typedef struct Norm {
    oklc_ctx    *c;
    Token      **v;
    size_t       n;
    uint32_t    *matches;      /* pair_brackets(v) */
    Buf          out;
    Printer      pr;
    VEC(SrcMapEntry) map;
    VEC(Attr *)  attrs;
    VEC(SpecRange) specs;      /* every [[...]] holding OKL attributes */
    VEC(ClLayout) layouts;     /* [[cl::packed]], [[cl::aligned]] */
    VEC(Attr *)  waiting;      /* ANCHOR_NEXT attributes without their anchor yet */
    VEC(Frame)   frames;
    const Token *prev;         /* last token printed that is not an attribute */
    const Token *prev2;        /* the one before it */
    uint32_t     prev_off;
    bool         after_attr;   /* an attribute was printed after `prev` */
    size_t       drop_from, drop_to;   /* tokens left out (a for-header clause) */
    const char  *drop_text;            /* printed instead of them */
    bool         keep_macros;
    VEC(const char *) attr_macros;     /* --keep-macros: macros that are attributes */
    VEC(DimName) dim_vars;             /* @dim variables in scope */
    VEC(const Token *) dim_types;      /* typedef names with @dim */
    bool         in_typedef;           /* the declaration began with typedef */
    size_t       typedef_level;        /* ... at this depth of brackets (its ';' ends it) */
    bool         dim_wait;             /* a @dim declarator name is coming */
    size_t       dim_wait_level;
    const Token *dim_ident;            /* the last name seen while waiting */
    int          depth;
} Norm;

/* ---- output --------------------------------------------------------------- */

static void map_here(Norm *N, const Token *t)
{
    SrcMapEntry e = {(uint32_t)N->out.len, t};
    if (N->map.len && vec_last(&N->map).off == e.off)
        vec_last(&N->map) = e;
    else
        vec_push(&N->c->arena, &N->map, e);
}

static void raw(Norm *N, const char *s)
{
    oklc_print_raw(&N->pr, s, strlen(s));
}

/* `t`, printed at `off`, is the last token that is not an attribute; the
 * attributes waiting for the next statement belong to it. */
static void now_prev(Norm *N, const Token *t, uint32_t off)
{
    N->prev2 = N->prev;
    N->prev = t;
    N->prev_off = off;
    N->after_attr = false;
    for (size_t i = 0; i < N->waiting.len; i++)
        N->waiting.data[i]->anchor_off = off;
    N->waiting.len = 0;
}

/* Prints a token. Attribute tokens ([[...]] of OKL 2.0 input) and directive
 * lines do not count as `prev` and do not anchor waiting attributes. */
static void put(Norm *N, const Token *t, bool is_attr)
{
    oklc_print_lead(&N->pr, t);
    uint32_t off = (uint32_t)N->out.len;
    map_here(N, t);
    oklc_print_text(&N->pr, t);
    if (is_attr) {
        N->after_attr = true;
        return;
    }
    if (t->kind == TK_DIRECTIVE || t->kind == TK_EOF)
        return;
    now_prev(N, t, off);
}

static Diag *error_at(Norm *N, const Token *t, const char *fmt, const char *arg)
{
    Diag *d = oklc_diag_error(N->c, oklc_tok_user_loc(t), fmt, arg);
    oklc_tok_note_expansion(N->c, d, t);
    return d;
}

/* An attribute's name as messages write it: "@tile", "cl::packed". */
static const char *shown(Norm *N, const char *name)
{
    return oklc_arena_printf(&N->c->arena, "%s%s", oklc_attr_at(name), name);
}

/* ---- token classes ------------------------------------------------------------ */

static bool is_punct(const Token *t, Punct p)
{
    return oklc_tok_is_punct(t, p);
}

static bool is_open(const Token *t)
{
    return t->kind == TK_PUNCT &&
           (t->punct == P_LPAREN || t->punct == P_LBRACKET || t->punct == P_LBRACE);
}

static bool is_close(const Token *t)
{
    return t->kind == TK_PUNCT &&
           (t->punct == P_RPAREN || t->punct == P_RBRACKET || t->punct == P_RBRACE);
}

static bool is_keyword(const Token *t)
{
    return t->kind == TK_IDENT && oklc_is_keyword(t->text, t->len);
}

/* Legacy keyword attributes: outer, inner, outer0..2, inner0..2, tile. */
static bool legacy_name(const Token *t, const char **name, const char **axis)
{
    *axis = NULL;
    if (t->kind != TK_IDENT)
        return false;
    static const char *const names[] = {"outer", "inner"};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(names[k]);
        if (t->len < n || memcmp(t->text, names[k], n))
            continue;
        if (t->len == n) {
            *name = names[k];
            return true;
        }
        if (t->len == n + 1 && t->text[n] >= '0' && t->text[n] <= '2') {
            *name = names[k];
            *axis = (const char *[]){"0", "1", "2"}[t->text[n] - '0'];
            return true;
        }
    }
    if (oklc_tok_eq(t, "tile")) {
        *name = "tile";
        return true;
    }
    return false;
}

/* ---- parsing attributes ---------------------------------------------------------- */

static bool pair(const Token *open, const Token *close)
{
    return (open->punct == P_LPAREN && close->punct == P_RPAREN) ||
           (open->punct == P_LBRACKET && close->punct == P_RBRACKET) ||
           (open->punct == P_LBRACE && close->punct == P_RBRACE);
}

/* Pairs every bracket of the input once, so that finding the end of a
 * header or an argument list never rescans: matches[i] is the index of the
 * bracket that closes v[i], or NO_MATCH. A closer of the wrong kind pairs
 * with nothing. */
#define NO_MATCH UINT32_MAX

static uint32_t *pair_brackets(oklc_ctx *c, Token **v, size_t n)
{
    uint32_t *m = oklc_arena_alloc(&c->arena, (n ? n : 1) * sizeof(uint32_t));
    uint32_t *stack = oklc_arena_alloc(&c->arena, (n ? n : 1) * sizeof(uint32_t));
    size_t top = 0;
    for (size_t j = 0; j < n; j++) {
        m[j] = NO_MATCH;
        if (is_open(v[j]))
            stack[top++] = (uint32_t)j;
        else if (is_close(v[j]) && top && pair(v[stack[top - 1]], v[j]))
            m[stack[--top]] = (uint32_t)j;
    }
    return m;
}

/* The bracket closing v[i] before `end`, or `end`. */
static size_t match_close(Token **v, size_t i, size_t end)
{
    size_t stack[64], top = 0;
    for (size_t j = i; j < end && v[j]->kind != TK_EOF; j++) {
        if (is_open(v[j])) {
            if (top == OKLC_COUNTOF(stack))
                return end;
            stack[top++] = j;
        } else if (is_close(v[j])) {
            if (!top || !pair(v[stack[top - 1]], v[j]))
                return end;
            if (--top == 0)
                return j;
        }
    }
    return end;
}

/* Text of tokens [from, to): one blank where the source had whitespace. */
static const char *tokens_text(Norm *N, Token **v, size_t from, size_t to)
{
    Buf b;
    oklc_buf_init(&b, &N->c->arena);
    for (size_t k = from; k < to; k++) {
        if (k > from && (v[k]->flags & TF_SPACE))
            oklc_buf_putc(&b, ' ');
        oklc_buf_putn(&b, v[k]->text, v[k]->len);
    }
    return b.data;
}

static size_t parse_attr(Norm *N, Token **v, size_t i, size_t end, bool legacy, Attr **out);

/* arg = attribute | key '=' value | expression */
static bool parse_arg(Norm *N, Token **v, size_t s, size_t e, bool legacy, AttrArg *g)
{
    Arena *a = &N->c->arena;
    g->tok = v[s];
    const char *lname, *axis;
    bool okl_scoped = e - s >= 3 && v[s]->kind == TK_IDENT && oklc_tok_eq(v[s], "okl") &&
                      is_punct(v[s + 1], P_COLONCOLON);
    if (v[s]->kind == TK_ATTR || okl_scoped || (legacy && legacy_name(v[s], &lname, &axis))) {
        g->kind = ARG_ATTR;
        size_t next = parse_attr(N, v, s, e, legacy, &g->attr);
        if (!g->attr)
            return false;
        if (next < e) {
            error_at(N, v[next], "unexpected '%s' after the attribute argument",
                     tokens_text(N, v, next, next + 1));
            return false;
        }
        return true;
    }
    if (e - s >= 2 && v[s]->kind == TK_IDENT && is_punct(v[s + 1], P_ASSIGN)) {
        if (e - s == 2) {
            error_at(N, v[s + 1], "expected a value after '%s='",
                     tokens_text(N, v, s, s + 1));
            return false;
        }
        g->kind = ARG_KEYVAL;
        g->key = oklc_arena_strndup(a, v[s]->text, v[s]->len);
        s += 2;
    } else {
        g->kind = ARG_EXPR;
    }
    for (size_t k = s; k < e; k++)
        if (v[k]->kind == TK_ATTR) {
            error_at(N, v[k], "expected ',' before '%s'", tokens_text(N, v, k, k + 1));
            return false;
        }
    g->toks = v + s;
    g->ntoks = (uint32_t)(e - s);
    g->text = tokens_text(N, v, s, e);
    return true;
}

/* args = arg {',' arg}, inside the parentheses [from, to). */
static bool parse_args(Norm *N, Token **v, size_t from, size_t to, bool legacy, Attr *at)
{
    VEC(AttrArg) args = {0};
    if (from == to)
        return true;    /* @outer() is @outer */
    size_t s = from;
    int depth = 0;
    for (size_t k = from; k <= to; k++) {
        if (k < to && is_open(v[k]))
            depth++;
        else if (k < to && is_close(v[k]))
            depth--;
        if (k < to && !(depth == 0 && is_punct(v[k], P_COMMA)))
            continue;
        if (k == s) {
            error_at(N, v[k], "expected an argument of '%s'", shown(N, at->name));
            return false;
        }
        AttrArg g = {0};
        if (!parse_arg(N, v, s, k, legacy, &g))
            return false;
        vec_push(&N->c->arena, &args, g);
        s = k + 1;
    }
    at->args = args.data;
    at->nargs = (int)args.len;
    return true;
}

static Attr *new_attr(Norm *N, const AttrSpec *spec, const Token *tok)
{
    Attr *a = oklc_arena_alloc(&N->c->arena, sizeof *a);
    a->id = spec->id;
    a->name = spec->name;
    a->tok = tok;
    return a;
}

/* "unknown attribute '@outr'; did you mean '@outer'?" - the name and the
 * suggestion in the spelling the user wrote: `style` is "@", "okl::",
 * "okl_" or "" (a keyword in a for header). */
static void unknown_attr(Norm *N, const Token *t, const char *name, size_t len,
                         const char *style, const char *where, bool okl2)
{
    const char *hint = oklc_attr_suggest(N->c, name, len);
    Diag *d = oklc_diag_error(N->c, oklc_tok_user_loc(t), "unknown %sattribute '%s%.*s'%s%s%s%s%s",
                              okl2 ? "OKL " : "", style, (int)len, name, where,
                              hint ? "; did you mean '" : "", hint ? style : "",
                              hint ? hint : "", hint ? "'?" : "");
    oklc_tok_note_expansion(N->c, d, t);
}

/* `@ restrict` and `@global`: accepted as legacy OCCA accepts them, each
 * with a warning that gives the spelling to write (`oklc normalize` writes
 * it). A spaced '@' in a macro was reported at the #define. */
static void legacy_spelling(Norm *N, const Token *t, const AttrSpec *spec, const char *name,
                            size_t len)
{
    if (oklc_attr_legacy(spec, name, len)) {
        Diag *d = oklc_diag_warning(N->c, oklc_tok_user_loc(t),
                                    "'%.*s' is a legacy name of '%s%s'; write '%s%s'",
                                    (int)(name + len - t->text), t->text,
                                    t->kind == TK_ATTR ? "@" : "okl::", spec->name,
                                    t->kind == TK_ATTR ? "@" : "okl::", spec->name);
        oklc_tok_note_expansion(N->c, d, t);
    } else if ((t->flags & TF_SPACED_ATTR) && !(t->flags & TF_MACRO)) {
        oklc_tok_warn_spaced(N->c, t);
    }
}

/* attribute = ('@' name | 'okl' '::' name | legacy-name) ['(' args ')']
 * Returns the index after it; *out is NULL after an error. */
static size_t parse_attr(Norm *N, Token **v, size_t i, size_t end, bool legacy, Attr **out)
{
    *out = NULL;
    const Token *t = v[i];
    const char *name = t->text;
    size_t len = t->len, next = i + 1;
    const char *axis = NULL;
    bool is_legacy = false;
    if (t->kind == TK_ATTR) {
        name++, len--;
    } else if (oklc_tok_eq(t, "okl") && i + 2 < end && is_punct(v[i + 1], P_COLONCOLON)) {
        t = v[i + 2];
        name = t->text, len = t->len, next = i + 3;
    } else if (legacy && legacy_name(t, &name, &axis)) {
        len = strlen(name);
        is_legacy = true;
    }
    const AttrSpec *spec = oklc_attr_lookup(N->c, name, len);
    if (!spec) {
        if (t->kind == TK_ATTR)
            unknown_attr(N, t, name, len, "@", "", false);
        else if (t == v[i])
            unknown_attr(N, t, name, len, "", "", false);
        else
            unknown_attr(N, t, name, len, "okl::", "", true);
        return next;
    }
    legacy_spelling(N, t, spec, name, len);
    if (++N->depth > MAX_NESTING) {
        error_at(N, t, "attributes are nested too deeply in '%s'", shown(N, spec->name));
        N->depth--;
        return next;
    }
    Attr *a = new_attr(N, spec, t);
    a->legacy = is_legacy;
    bool ok = true;
    /* '(' starts arguments, except after @atomic, whose statement may begin
     * with a parenthesis: @atomic (*p) += 1; */
    if (next < end && is_punct(v[next], P_LPAREN) && spec->id != ATTR_ATOMIC &&
        (!(v[next]->flags & TF_SPACE) || spec->max_args != 0)) {
        size_t close = match_close(v, next, end);
        if (close >= end) {
            Diag *d = error_at(N, v[next], "expected ')' to close the arguments of '%s'",
                               shown(N, spec->name));
            (void)d;
            N->depth--;
            return end;
        }
        ok = parse_args(N, v, next + 1, close, legacy, a);
        next = close + 1;
    } else if (axis) {
        a->args = oklc_arena_alloc(&N->c->arena, sizeof(AttrArg));
        a->args[0] = (AttrArg){.kind = ARG_EXPR, .text = axis, .tok = t};
        a->nargs = 1;
    }
    N->depth--;
    if (ok && oklc_attr_check_args(N->c, a))
        *out = a;
    return next;
}

/* ---- rendering ------------------------------------------------------------------ */

static void render_tokens(Norm *N, Token **v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (k && (v[k]->flags & TF_SPACE))
            raw(N, " ");
        map_here(N, v[k]);
        oklc_print_raw(&N->pr, v[k]->text, v[k]->len);
    }
}

/* okl::name(args) */
static void render_inner(Norm *N, Attr *a)
{
    map_here(N, a->tok);
    raw(N, "okl::");
    raw(N, a->name);
    if (!a->nargs)
        return;
    raw(N, "(");
    for (int i = 0; i < a->nargs; i++) {
        AttrArg *g = &a->args[i];
        if (i)
            raw(N, ", ");
        g->off = (uint32_t)N->out.len;
        if (g->kind == ARG_ATTR) {
            g->attr->off = g->off;
            render_inner(N, g->attr);
            g->attr->end = (uint32_t)N->out.len;
        } else if (g->kind == ARG_KEYVAL) {
            map_here(N, g->tok);
            raw(N, g->key);
            raw(N, "=");
            render_tokens(N, g->toks, g->ntoks);
        } else if (g->toks) {
            render_tokens(N, g->toks, g->ntoks);
        } else {                     /* the axis of a legacy outer0 */
            map_here(N, g->tok);
            raw(N, g->text);
        }
        g->len = (uint32_t)N->out.len - g->off;
    }
    raw(N, ")");
}

static void render(Norm *N, Attr *a)
{
    a->off = (uint32_t)N->out.len;
    map_here(N, a->tok);
    raw(N, "[[");
    render_inner(N, a);
    raw(N, "]]");
    a->end = (uint32_t)N->out.len;
    SpecRange r = {a->off, a->end, NULL};
    vec_push(&N->c->arena, &N->specs, r);
}

static void dim_attr(Norm *N, const Attr *a);

/* Decides what the attribute belongs to, and records it. */
static void record(Norm *N, Attr *a)
{
    const Token *p = N->prev;
    bool declarator = p && !a->moved &&
                      ((p->kind == TK_IDENT && !is_keyword(p)) || is_punct(p, P_STAR) ||
                       is_punct(p, P_AMP) || is_punct(p, P_ANDAND) ||
                       is_punct(p, P_RBRACKET));
    if (declarator) {
        a->anchor = ANCHOR_PREV;
        a->anchor_off = N->prev_off;
    } else {
        a->anchor = ANCHOR_NEXT;
        vec_push(&N->c->arena, &N->waiting, a);
    }
    vec_push(&N->c->arena, &N->attrs, a);
    dim_attr(N, a);
}

/* ---- where an attribute may stand ---------------------------------------------------- */

static Frame *top_frame(Norm *N)
{
    return N->frames.len ? &vec_last(&N->frames) : NULL;
}

static bool starts_declaration(const Token *t)
{
    return t->kind == TK_IDENT || t->kind == TK_ATTR || is_punct(t, P_COLONCOLON);
}

static bool is_expr_word(const Token *t)
{
    static const char *const words[] = {
        "return", "case", "sizeof", "alignof", "new", "delete", "throw", "goto",
        "typeid", "decltype", "static_assert", "co_return", "co_await", "co_yield"};
    for (size_t k = 0; k < OKLC_COUNTOF(words); k++)
        if (t->kind == TK_IDENT && oklc_tok_eq(t, words[k]))
            return true;
    return false;
}

/* After a name, an attribute can only belong to a declarator: the name
 * follows a type (int, T, *, &, >) and what comes next ends a declarator. */
static bool declarator_context(Norm *N, const Token *next)
{
    const Token *t = N->prev2;
    Frame *f = top_frame(N);
    bool after_type =
        t && ((t->kind == TK_IDENT && !is_expr_word(t)) || is_punct(t, P_STAR) ||
              is_punct(t, P_AMP) || is_punct(t, P_ANDAND) || is_punct(t, P_GT) ||
              is_punct(t, P_SHR) || is_punct(t, P_COLONCOLON) || is_punct(t, P_RBRACKET) ||
              (is_punct(t, P_COMMA) && !(f && f->open == P_LPAREN)));
    if (is_punct(N->prev, P_RBRACKET))
        after_type = true;    /* float a[4] @dim(2, 2) */
    bool ends = next->kind == TK_ATTR ||
                (next->kind == TK_PUNCT &&
                 (next->punct == P_SEMI || next->punct == P_COMMA || next->punct == P_RPAREN ||
                  next->punct == P_ASSIGN || next->punct == P_LBRACKET ||
                  next->punct == P_LBRACE || next->punct == P_COLON || next->punct == P_LPAREN));
    return after_type && ends;
}

/* `fmt` names the attribute with one or two %s. */
static bool place_error(Norm *N, const Token *at, const char *fmt)
{
    const char *name = oklc_arena_strndup(&N->c->arena, at->text, at->len);
    Diag *d = oklc_diag_error(N->c, oklc_tok_user_loc(at), fmt, name, name);
    oklc_tok_note_expansion(N->c, d, at);
    return false;
}

/* Checks the place of an @attribute written in code (not in a for header's
 * attribute clause): before a statement or declaration, after a declarator
 * name, after a '*'. */
static bool position_ok(Norm *N, const Token *at, const Token *next)
{
    const Token *p = N->prev;
    Frame *f = top_frame(N);
    if (f && f->for_header)
        return place_error(N, at, "'%s' in a for-loop header must come after the third "
                                  "clause: for (init; cond; step; %s)");
    bool ok = true;
    if (p && !N->after_attr && p->kind != TK_DIRECTIVE) {
        if (p->kind == TK_NUMBER || p->kind == TK_STRING || p->kind == TK_CHAR) {
            ok = false;
        } else if (p->kind == TK_IDENT && !is_keyword(p)) {
            ok = declarator_context(N, next);
        } else if (p->kind == TK_IDENT) {
            ok = !is_expr_word(p);
        } else if (p->kind == TK_PUNCT) {
            switch (p->punct) {
            case P_RBRACKET:
                ok = declarator_context(N, next);
                break;
            case P_SEMI: case P_LBRACE: case P_RBRACE: case P_COLON: case P_RPAREN:
            case P_GT: case P_SHR: case P_STAR: case P_AMP: case P_ANDAND:
                break;
            case P_LPAREN: case P_COMMA:   /* only before a parameter declaration */
                ok = starts_declaration(next);
                break;
            default:
                ok = false;
            }
        }
    }
    if (!ok)
        return place_error(N, at, "'%s' cannot appear inside an expression; an attribute "
                                  "goes before a statement or declaration, after a declarator "
                                  "name, or after the third clause of a for-loop header");
    if (next->kind == TK_EOF || is_punct(next, P_RBRACE) || is_punct(next, P_RBRACKET) ||
        (is_punct(next, P_RPAREN) && !(p && (p->kind == TK_IDENT || is_punct(p, P_RBRACKET)))))
        return place_error(N, at, "expected a statement or declaration after '%s'");
    return true;
}

/* ---- @dim names ------------------------------------------------------------ */

static bool same_name(const Token *a, const Token *b)
{
    return a->len == b->len && !memcmp(a->text, b->text, a->len);
}

/* Records a declared @dim name: a typedef, or a variable in scope until
 * its block (for a parameter: its function's body) closes. */
static void dim_declared(Norm *N, const Token *name)
{
    if (N->in_typedef) {
        vec_push(&N->c->arena, &N->dim_types, name);
        return;
    }
    Frame *f = top_frame(N);
    DimName d = {name, N->frames.len, f && f->open == P_LPAREN, false};
    vec_push(&N->c->arena, &N->dim_vars, d);
}

/* An attribute decides where its name is: after it (declarator name) or
 * at the end of the declarator that follows. */
static void dim_attr(Norm *N, const Attr *a)
{
    if (a->id != ATTR_DIM)
        return;
    if (a->anchor == ANCHOR_PREV && N->prev && N->prev->kind == TK_IDENT) {
        dim_declared(N, N->prev);
    } else {
        N->dim_wait = true;
        N->dim_wait_level = N->frames.len;
        N->dim_ident = NULL;
    }
}

static bool is_dim_type(Norm *N, const Token *t)
{
    for (size_t k = 0; k < N->dim_types.len; k++)
        if (same_name(N->dim_types.data[k], t))
            return true;
    return false;
}

static bool is_dim_var(Norm *N, const Token *t)
{
    for (size_t k = N->dim_vars.len; k-- > 0;)
        if (same_name(N->dim_vars.data[k].tok, t))
            return true;
    return false;
}

/* Follows declarations as tokens go by: typedef, the names a @dim waits
 * for, and the end of scopes. Called before `track` sees the token. */
static void dim_follow(Norm *N, const Token *t)
{
    if (t->kind == TK_IDENT) {
        if (oklc_tok_eq(t, "typedef")) {
            N->in_typedef = true;
            N->typedef_level = N->frames.len;
        } else if (is_dim_type(N, t)) {
            N->dim_wait = true;            /* fmat_t m: m is a @dim array */
            N->dim_wait_level = N->frames.len;
            N->dim_ident = NULL;
        } else if (N->dim_wait && !is_keyword(t)) {
            N->dim_ident = t;
        }
        return;
    }
    if (t->kind != TK_PUNCT)
        return;
    bool ends_declarator = t->punct == P_SEMI || t->punct == P_COMMA ||
                           t->punct == P_ASSIGN || t->punct == P_RPAREN ||
                           t->punct == P_LBRACE || t->punct == P_LBRACKET;
    if (N->dim_wait && ends_declarator && N->frames.len == N->dim_wait_level) {
        if (N->dim_ident)
            dim_declared(N, N->dim_ident);
        N->dim_wait = false;
    }
    if (t->punct == P_SEMI && N->frames.len == N->typedef_level)
        N->in_typedef = false;    /* in a function too: a typedef in a kernel */
}

/* After `track`: scopes that closed take their names with them. */
static void dim_scopes(Norm *N, const Token *t)
{
    size_t level = N->frames.len, keep = 0;
    for (size_t k = 0; k < N->dim_vars.len; k++) {
        DimName *d = &N->dim_vars.data[k];
        bool alive;
        if (!d->param)
            alive = level >= d->level;
        else if (is_punct(t, P_LBRACE) && level == d->level)
            alive = d->entered = true;         /* the function body opens */
        else
            alive = d->entered ? level >= d->level
                               : level >= d->level - 1 && !(is_punct(t, P_SEMI) &&
                                                             level == d->level - 1);
        if (alive)
            N->dim_vars.data[keep++] = *d;
    }
    N->dim_vars.len = keep;
}

/* m(i, j) on a @dim name becomes okl::at(m, i, j); returns the index of
 * the first argument (the '(' is consumed), or 0 when it is no such call. */
static size_t dim_call(Norm *N, size_t i)
{
    const Token *t = N->v[i], *p = N->prev;
    if (t->kind != TK_IDENT || i + 1 >= N->n || !is_punct(N->v[i + 1], P_LPAREN) ||
        N->dim_wait || !is_dim_var(N, t))
        return 0;
    if (p && (is_punct(p, P_DOT) || is_punct(p, P_ARROW) || is_punct(p, P_COLONCOLON)))
        return 0;
    oklc_print_lead(&N->pr, t);
    map_here(N, t);
    raw(N, "okl::at(");
    map_here(N, t);
    oklc_print_raw(&N->pr, t->text, t->len);
    bool no_args = i + 2 < N->n && is_punct(N->v[i + 2], P_RPAREN);
    raw(N, no_args ? "" : ", ");
    /* the '(' is now part of okl::at( : count it as opened */
    Frame nf = {false, N->matches[i + 1] == NO_MATCH, 0, P_LPAREN};
    vec_push(&N->c->arena, &N->frames, nf);
    N->prev = N->v[i + 1];
    N->after_attr = false;
    return i + 2;
}

static void stray(Norm *N, const Token *t);

/* ---- the forms ------------------------------------------------------------------------ */

/* @attr[(args)] written in place. */
static size_t inplace_attr(Norm *N, size_t i)
{
    Attr *a;
    size_t next = parse_attr(N, N->v, i, N->n, false, &a);
    if (!a || !position_ok(N, N->v[i], N->v[next < N->n ? next : N->n - 1]))
        return next;
    oklc_print_lead(&N->pr, N->v[i]);
    render(N, a);
    record(N, a);
    N->after_attr = true;
    return next;
}

/* Is v[i] the name of a --keep-macros macro that stands for attributes? */
static bool attr_macro(Norm *N, const Token *t)
{
    for (size_t k = 0; t->kind == TK_IDENT && k < N->attr_macros.len; k++)
        if (oklc_tok_eq(t, N->attr_macros.data[k]))
            return true;
    return false;
}

/* for ( ... ; @attrs ) and the legacy for (outer): the attributes move in
 * front of `for`, and their clause is left out of the header. Prints the
 * lead of `for` and the attributes; returns false after an error. */
static bool for_header(Norm *N, size_t i)
{
    Token **v = N->v;
    size_t close = N->matches[i + 1], s3 = 0, extra = 0, stop = i + 2;
    int semis = 0;
    /* Count the clauses: ';' outside nested brackets. An unclosed header
     * is looked at up to the next `for` or brace, never to the end of the
     * file again and again. */
    for (size_t j = i + 2; j < N->n && v[j]->kind != TK_EOF; j++, stop = j) {
        if (close != NO_MATCH ? j == close
                              : is_punct(v[j], P_LBRACE) || is_punct(v[j], P_RBRACE) ||
                                    (v[j]->kind == TK_IDENT && oklc_tok_eq(v[j], "for")))
            break;
        if (is_open(v[j]) && N->matches[j] != NO_MATCH) {
            j = N->matches[j];
        } else if (is_punct(v[j], P_SEMI)) {
            semis++;
            if (semis == 3)
                s3 = j;
            else if (semis == 4)
                extra = j;
        }
    }
    if (close == NO_MATCH) {
        if (semis < 3) {
            oklc_print_lead(&N->pr, v[i]);
            return true;            /* not OKL's business: Clang will say */
        }
        Diag *d = error_at(N, v[stop < N->n ? stop : N->n - 1],
                           "expected ')' to close the for-loop header%s", "");
        oklc_diag_note(N->c, d, oklc_tok_user_loc(v[i + 1]), "to match this '('");
        return false;
    }
    const char *lname, *axis;
    bool legacy_short = close == i + 3 && legacy_name(v[i + 2], &lname, &axis) &&
                        strcmp(lname, "tile");
    if (semis < 3 && !legacy_short) {
        oklc_print_lead(&N->pr, v[i]);
        return true;
    }
    if (extra) {
        error_at(N, v[extra], "too many clauses in for-loop header: OKL attributes follow the "
                              "third '%s'", ";");
        return false;
    }
    size_t from = legacy_short ? i + 2 : s3 + 1;
    if (from == close) {
        error_at(N, v[s3], "expected an OKL attribute after the third '%s' of the for-loop "
                           "header", ";");
        return false;
    }
    VEC(Attr *) moved = {0};
    VEC(const Token *) macros = {0};
    VEC(const char *) macro_texts = {0};
    for (size_t k = from; k < close;) {
        if (is_punct(v[k], P_COMMA) && k > from) {
            k++;
            continue;
        }
        if (N->keep_macros && attr_macro(N, v[k])) {    /* NAME or NAME(args) */
            size_t after = k + 1;
            if (after < close && is_punct(v[after], P_LPAREN) && N->matches[after] < close)
                after = N->matches[after] + 1;
            vec_push(&N->c->arena, &macros, v[k]);
            vec_push(&N->c->arena, &macro_texts, tokens_text(N, v, k, after));
            k = after;
            continue;
        }
        if (v[k]->kind != TK_ATTR && !legacy_name(v[k], &lname, &axis) &&
            !(v[k]->kind == TK_IDENT && oklc_tok_eq(v[k], "okl"))) {
            if (v[k]->kind == TK_IDENT)
                unknown_attr(N, v[k], v[k]->text, v[k]->len, "", " in for-loop header", false);
            else if (v[k]->kind == TK_OTHER)
                stray(N, v[k]);
            else
                error_at(N, v[k], "expected an OKL attribute in the for-loop header, found "
                                  "'%s'",
                         tokens_text(N, v, k, k + 1));
            return false;
        }
        Attr *a;
        k = parse_attr(N, v, k, close, true, &a);
        if (!a)
            return false;
        a->moved = true;
        vec_push(&N->c->arena, &moved, a);
    }
    oklc_print_lead(&N->pr, v[i]);
    for (size_t k = 0; k < macros.len; k++) {
        map_here(N, macros.data[k]);
        raw(N, macro_texts.data[k]);
        raw(N, " ");
    }
    for (size_t k = 0; k < moved.len; k++) {
        render(N, moved.data[k]);
        raw(N, " ");
        record(N, moved.data[k]);
    }
    N->drop_from = legacy_short ? i + 2 : s3;
    N->drop_to = close;
    N->drop_text = legacy_short ? ";;" : NULL;
    return true;
}

/* "the cuda backend", for messages ("any backend" when none is chosen). */
static const char *backend_name(oklc_ctx *c)
{
    const Backend *be = oklc_backend_chosen(c);
    return be ? oklc_arena_printf(&c->arena, "the %s backend", be->name) : "any backend";
}

/* The spec of OpenCL's cl::name; an unknown name, or one no backend has,
 * is an error at it (NULL, like a C++ attribute left to Clang, which would
 * ignore it). */
static const AttrSpec *cl_attr(Norm *N, const Token *name)
{
    bool unsupported;
    const AttrSpec *s = oklc_attr_cl(name->text, name->len, &unsupported);
    if (!s) {
        Diag *d = unsupported
                      ? oklc_diag_error(N->c, oklc_tok_user_loc(name),
                                        "'cl::%.*s' is not supported by %s: OKL "
                                        "kernels have no sub-groups nor constant or local "
                                        "arguments",
                                        (int)name->len, name->text, backend_name(N->c))
                      : oklc_diag_error(N->c, oklc_tok_user_loc(name),
                                        "unknown OpenCL attribute 'cl::%.*s'", (int)name->len,
                                        name->text);
        oklc_tok_note_expansion(N->c, d, name);
    }
    return s;
}

/* Is [[ ... ]] at i..close OpenCL's layout, [[cl::packed]] or
 * [[cl::aligned(n)]]? Only if its first item is. */
static bool cl_layout_group(Norm *N, size_t i, size_t close)
{
    Token **v = N->v;
    bool unsupported;
    const AttrSpec *s;
    return i + 4 < close && oklc_tok_eq(v[i + 2], "cl") && is_punct(v[i + 3], P_COLONCOLON) &&
           v[i + 4]->kind == TK_IDENT &&
           (s = oklc_attr_cl(v[i + 4]->text, v[i + 4]->len, &unsupported)) &&
           (s->id == ATTR_CL_PACKED || s->id == ATTR_CL_ALIGNED);
}

/* [[cl::packed, cl::aligned(8)]] -> __attribute__((packed, aligned(8))):
 * GNU's attribute means the seed's at each of its places (after `struct`,
 * after the closing brace, after a declarator, before a declaration), so
 * Clang lays the type out as the device will. Every item must be one of
 * the two. */
static size_t cl_layout(Norm *N, size_t i)
{
    Token **v = N->v;
    size_t close = N->matches[i], end = close - 1;
    oklc_print_lead(&N->pr, v[i]);
    map_here(N, v[i + 4]);
    raw(N, "__attribute__((");
    for (size_t k = i + 2; k < end;) {
        bool unsupported;
        const AttrSpec *s = NULL;
        if (k + 2 < end && oklc_tok_eq(v[k], "cl") && is_punct(v[k + 1], P_COLONCOLON) &&
            v[k + 2]->kind == TK_IDENT)
            s = oklc_attr_cl(v[k + 2]->text, v[k + 2]->len, &unsupported);
        if (!s || (s->id != ATTR_CL_PACKED && s->id != ATTR_CL_ALIGNED)) {
            error_at(N, v[k], "'%s' and 'cl::aligned' are written in a [[...]] of their own",
                     "cl::packed");
            break;
        }
        ClLayout l = {v[k + 2], s->id};
        vec_push(&N->c->arena, &N->layouts, l);
        size_t after = k + 3;
        if (after < end && is_punct(v[after], P_LPAREN))
            after = match_close(v, after, end) + 1;
        if (s->id == ATTR_CL_PACKED && after > k + 3)
            error_at(N, v[k + 3], "'%s' takes no arguments", "cl::packed");
        raw(N, k > i + 2 ? ", " : "");
        for (size_t j = k + 2; j < after; j++) {
            map_here(N, v[j]);
            raw(N, j > k + 2 && (v[j]->flags & TF_SPACE) ? " " : "");
            oklc_print_text(&N->pr, v[j]);
        }
        k = after;
        if (k < end && is_punct(v[k], P_COMMA))
            k++;
        else if (k < end) {
            error_at(N, v[k], "expected ',' or ']]' after '%s'", "cl::aligned");
            break;
        }
    }
    raw(N, "))");
    N->after_attr = true;
    return close + 1;
}

/* [[ attribute-list ]] of OKL 2.0 input: printed as written; okl::x and
 * okl_x attributes are recorded. The seed's okl_x("args") form carries its
 * arguments in a string. */
static size_t okl2_attrs(Norm *N, size_t i)
{
    Token **v = N->v;
    size_t close = N->matches[i];
    if (close == NO_MATCH || close == i + 1 || N->matches[i + 1] != close - 1) {
        put(N, v[i], false);    /* not an attribute: let Clang judge */
        return i + 1;
    }
    if (cl_layout_group(N, i, close))
        return cl_layout(N, i);
    size_t end = close - 1;   /* the inner ']' */
    size_t k = i + 2;
    bool using_okl = false, any_okl = false;
    Buf keep;                 /* the items that are not OKL's, for the backends */
    oklc_buf_init(&keep, &N->c->arena);
    oklc_buf_puts(&keep, "[[");
    if (k + 2 < end && oklc_tok_eq(v[k], "using") && v[k + 1]->kind == TK_IDENT &&
        is_punct(v[k + 2], P_COLON)) {
        using_okl = oklc_tok_eq(v[k + 1], "okl");
        oklc_buf_printf(&keep, "using %.*s: ", (int)v[k + 1]->len, v[k + 1]->text);
        k += 3;
    }
    size_t keep_start = keep.len;
    /* Print it all first, so the records get their offsets. */
    uint32_t *offs = oklc_arena_alloc(&N->c->arena, (close - i + 1) * sizeof(uint32_t));
    for (size_t j = i; j <= close; j++) {
        oklc_print_lead(&N->pr, v[j]);
        offs[j - i] = (uint32_t)N->out.len;
        map_here(N, v[j]);
        oklc_print_text(&N->pr, v[j]);
    }
    N->after_attr = true;
    while (k < end) {
        size_t item = k, name = k;
        bool okl = false;
        const AttrSpec *cl = NULL;    /* OpenCL's, recorded as OKL's are */
        if (v[k]->kind == TK_IDENT && k + 2 < end && is_punct(v[k + 1], P_COLONCOLON)) {
            name = k + 2;
            if (oklc_tok_eq(v[k], "cl") && v[name]->kind == TK_IDENT)
                cl = cl_attr(N, v[name]);
            okl = oklc_tok_eq(v[k], "okl") || cl;
        } else if (v[k]->kind == TK_IDENT) {
            okl = using_okl || (v[k]->len > 4 && !memcmp(v[k]->text, "okl_", 4));
        }
        size_t after = name + 1;
        if (after < end && is_punct(v[after], P_LPAREN))
            after = match_close(v, after, end) + 1;
        any_okl |= okl;
        if (!okl) {
            if (keep.len > keep_start)
                oklc_buf_puts(&keep, ", ");
            for (size_t j = item; j < after; j++)
                oklc_buf_printf(&keep, "%s%.*s", j > item && (v[j]->flags & TF_SPACE) ? " " : "",
                                (int)v[j]->len, v[j]->text);
        }
        if (okl && v[name]->kind == TK_IDENT) {
            const Token *nt = v[name];
            const char *nm = nt->text;
            size_t nl = nt->len;
            if (name == k && !using_okl)
                nm += 4, nl -= 4;
            const AttrSpec *spec = cl ? cl : oklc_attr_lookup(N->c, nm, nl);
            if (!spec) {
                unknown_attr(N, nt, nm, nl,
                             name == k && !using_okl ? "okl_" : name == k ? "" : "okl::", "",
                             true);
            } else {
                Attr *a = new_attr(N, spec, nt);
                a->okl2 = true;
                a->off = offs[item - i];
                a->end = offs[after - 1 - i] + v[after - 1]->len;
                bool ok = true;
                if (name + 1 < end && is_punct(v[name + 1], P_LPAREN)) {
                    size_t lp = name + 1, rp = after - 1;
                    /* okl_tile("16, @outer, @inner") or ("(16, ...)") */
                    if (rp == lp + 2 && oklc_tok_is_plain_string(v[lp + 1])) {
                        const Token *s = v[lp + 1];
                        Token *lx = oklc_lex_string(N->c, s->text + 1, s->len - 2, s->loc);
                        VEC(Token *) sv = {0};
                        for (Token *x = lx; x; x = x->next) {
                            x->exp = s->exp;
                            vec_push(&N->c->arena, &sv, x);
                        }
                        size_t sf = 0, st = sv.len - 1;   /* without the EOF */
                        if (st >= 2 && is_punct(sv.data[0], P_LPAREN) &&
                            match_close(sv.data, 0, st) == st - 1)
                            sf = 1, st--;
                        ok = parse_args(N, sv.data, sf, st, true, a);
                    } else {
                        ok = parse_args(N, v, lp + 1, rp, true, a);
                    }
                }
                if (ok && oklc_attr_check_args(N->c, a))
                    record(N, a);
            }
        }
        k = after;
        while (k < end && !is_punct(v[k], P_COMMA))
            k++;
        k++;
    }
    if (any_okl) {
        oklc_buf_puts(&keep, "]]");
        SpecRange r = {offs[0], offs[close - i] + v[close]->len,
                       keep.len > keep_start + 2 ? keep.data : NULL};
        vec_push(&N->c->arena, &N->specs, r);
    }
    return close + 1;
}

/* shared int a[8]; exclusive int z; at the start of a declaration. */
static bool legacy_storage(Norm *N, size_t i)
{
    const Token *t = N->v[i], *p = N->prev;
    if (t->kind != TK_IDENT || !(oklc_tok_eq(t, "shared") || oklc_tok_eq(t, "exclusive")))
        return false;
    bool stmt_start = !p || N->after_attr || p->kind == TK_DIRECTIVE ||
                      is_punct(p, P_SEMI) || is_punct(p, P_LBRACE) || is_punct(p, P_RBRACE);
    Frame *f = top_frame(N);
    if (!stmt_start || (f && f->open != P_LBRACE) || i + 1 >= N->n ||
        N->v[i + 1]->kind != TK_IDENT)
        return false;
    const AttrSpec *spec = oklc_attr_lookup(N->c, t->text, t->len);
    Attr *a = new_attr(N, spec, t);
    a->legacy = true;
    oklc_print_lead(&N->pr, t);
    render(N, a);
    record(N, a);
    N->after_attr = true;
    return true;
}

/* Keeps track of brackets, so `;` in for headers can be counted. */
static void track(Norm *N, size_t i)
{
    const Token *t = N->v[i];
    if (t->kind != TK_PUNCT)
        return;
    Frame *f = top_frame(N);
    if (is_open(t)) {
        Frame nf = {t->punct == P_LPAREN && N->prev && N->prev->kind == TK_IDENT &&
                        oklc_tok_eq(N->prev, "for"),
                    N->matches[i] == NO_MATCH, 0, (Punct)t->punct};
        vec_push(&N->c->arena, &N->frames, nf);
    } else if (is_close(t) && f) {
        N->frames.len--;
    } else if (t->punct == P_SEMI && f && f->for_header) {
        f->semis++;
    }
}

static void stray(Norm *N, const Token *t)
{
    if (t->len == 1 && t->text[0] == '@')
        error_at(N, t, "expected an attribute name after '%s'", "@");
    else
        error_at(N, t, "stray '%s' in program", oklc_arena_strndup(&N->c->arena, t->text, t->len));
}

/* The clause moved out of a for header leaves its comments and line breaks
 * behind, so the code keeps its shape and its remarks. */
static void keep_dropped_trivia(Norm *N, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++) {
        const Token *t = N->v[k];
        if ((t->flags & TF_MACRO) && !(t->flags & TF_KEEPLEAD))
            continue;
        if (strspn(t->lead, " \t") < t->lead_len)
            oklc_print_raw(&N->pr, t->lead, t->lead_len);
    }
}

static void run(Norm *N)
{
    Token **v = N->v;
    size_t i = 0;
    N->matches = pair_brackets(N->c, v, N->n);
    N->drop_from = SIZE_MAX;
    while (i < N->n) {
        if (N->c->max_errors && (size_t)N->c->nerrors >= N->c->max_errors)
            return;
        const Token *t = v[i];
        if (i == N->drop_from) {
            if (N->drop_text) {
                map_here(N, v[i]);
                raw(N, N->drop_text);
            }
            keep_dropped_trivia(N, i, N->drop_to);
            i = N->drop_to;
            N->drop_from = SIZE_MAX;
            continue;
        }
        if (t->kind == TK_EOF) {
            put(N, t, false);
            break;
        }
        if (t->kind == TK_ATTR) {
            i = inplace_attr(N, i);
            continue;
        }
        if (is_punct(t, P_LBRACKET) && i + 1 < N->n && is_punct(v[i + 1], P_LBRACKET)) {
            i = okl2_attrs(N, i);
            continue;
        }
        if (t->kind == TK_IDENT && oklc_tok_eq(t, "for") && i + 1 < N->n &&
            is_punct(v[i + 1], P_LPAREN)) {
            if (!for_header(N, i))
                return;
            map_here(N, t);
            uint32_t off = (uint32_t)N->out.len;
            oklc_print_text(&N->pr, t);
            now_prev(N, t, off);
            i++;
            continue;
        }
        if (legacy_storage(N, i)) {
            i++;
            continue;
        }
        size_t args = dim_call(N, i);
        if (args) {
            i = args;
            continue;
        }
        if (t->kind == TK_OTHER)
            stray(N, t);
        if (t->flags & TF_BAD)     /* raw tokens of --keep-macros */
            error_at(N, t, "%s", oklc_tok_bad_message(t));
        dim_follow(N, t);
        track(N, i);
        dim_scopes(N, t);
        put(N, t, false);
        i++;
    }
}

static Normalized *finish(Norm *N)
{
    Normalized *nz = oklc_arena_alloc(&N->c->arena, sizeof *nz);
    nz->text = N->out.data;
    nz->len = N->out.len;
    nz->attrs = N->attrs.data;
    nz->nattrs = N->attrs.len;
    nz->specs = N->specs.data;
    nz->nspecs = N->specs.len;
    nz->layouts = N->layouts.data;
    nz->nlayouts = N->layouts.len;
    nz->map = N->map.data;
    nz->nmap = N->map.len;
    N->c->norm = nz;
    return N->c->nerrors ? NULL : nz;
}

static bool macro_at(Token **v, size_t i, size_t n)
{
    const Token *t = v[i];
    return t->kind == TK_OTHER && t->len == 1 && t->text[0] == '@' && (t->flags & TF_MACRO) &&
           i + 1 < n && v[i + 1]->kind == TK_IDENT && (v[i + 1]->flags & TF_MACRO);
}

/* '@' and a name that a macro's expansion brought together (`@name` in a
 * macro whose parameter is `name`, see pp/macro.c) are one attribute.
 * Gives the tokens to normalize: `toks` itself when there is none. */
static Token **join_macro_attrs(oklc_ctx *c, Token **toks, size_t *n)
{
    size_t i = 0;
    while (i < *n && !macro_at(toks, i, *n))
        i++;
    if (i == *n)
        return toks;
    Token **v = oklc_arena_alloc(&c->arena, *n * sizeof *v);
    size_t out = 0;
    for (i = 0; i < *n; i++) {
        if (macro_at(toks, i, *n)) {
            const Token *t = toks[i], *nx = toks[i + 1];
            Token *a = oklc_tok_copy(c, t);
            a->kind = TK_ATTR;
            a->text = oklc_arena_printf(&c->arena, "@%.*s", (int)nx->len, nx->text);
            a->len = nx->len + 1;
            v[out++] = a;
            i++;
            continue;
        }
        v[out++] = toks[i];
    }
    *n = out;
    return v;
}

Normalized *oklc_normalize_tokens(oklc_ctx *c, Token **toks, size_t n)
{
    toks = join_macro_attrs(c, toks, &n);
    Norm N = {.c = c, .v = toks, .n = n};
    oklc_buf_init(&N.out, &c->arena);
    oklc_print_init(&N.pr, &N.out);
    run(&N);
    return finish(&N);
}

/* ---- --keep-macros: the raw tokens of one file ------------------------------------------ */

/* Whether attribute token `at` names one of the parameters v[0..n). */
static bool names_param(Token **v, size_t n, const Token *at)
{
    for (size_t i = 0; i < n; i++)
        if (v[i]->kind == TK_IDENT && v[i]->len == at->len - 1 &&
            !memcmp(v[i]->text, at->text + 1, v[i]->len))
            return true;
    return false;
}

/* A body token with what precedes it as written (line splices kept). */
static void put_written(Norm *N, const Token *prev, const Token *t)
{
    size_t n;
    const char *lead = oklc_tok_lead_as_written(N->c, prev, t, &n);
    oklc_print_raw(&N->pr, lead, n);
    oklc_print_text(&N->pr, t);
}

/* A #define line whose body has @attributes gets them rewritten in place;
 * a macro that is nothing but attributes is remembered, so that using it in
 * a for header moves it in front of `for` like the attribute itself. Line
 * splices stay. */
static Token *define_line(Norm *N, Token *hash, Token *last)
{
    VEC(Token *) body = {0};
    Token *name = hash->next->next;
    bool any = false;
    for (Token *t = name->next; t != last->next; t = t->next) {
        vec_push(&N->c->arena, &body, t);
        any |= t->kind == TK_ATTR;
    }
    const Token *prev = name;
    Buf saved = N->out;
    Printer saved_pr = N->pr;
    size_t saved_map = N->map.len;
    Buf b;
    oklc_buf_init(&b, &N->c->arena);
    N->out = b;
    oklc_print_init(&N->pr, &N->out);
    oklc_print_raw(&N->pr, hash->text, (size_t)(name->text + name->len - hash->text));
    bool only_attrs = any && body.len > 0;
    size_t k = 0, params = 0;
    /* A function-like macro's parameter list comes first, unchanged. */
    if (k < body.len && is_punct(body.data[0], P_LPAREN) && !(body.data[0]->flags & TF_SPACE)) {
        size_t rp = match_close(body.data, 0, body.len);
        for (; k <= rp && k < body.len; k++)
            put_written(N, prev, body.data[k]), prev = body.data[k];
        params = k;
    }
    while (k < body.len) {
        Token *t = body.data[k];
        if (t->kind == TK_ATTR && names_param(body.data, params, t)) {
            if (t->flags & TF_SPACED_ATTR)          /* `@ name` of a parameter `name` */
                oklc_tok_warn_spaced(N->c, t);
            put_written(N, prev, t);
            prev = t;
            k++;
            continue;
        }
        if (t->kind == TK_ATTR) {
            Attr *a;
            size_t next = parse_attr(N, body.data, k, body.len, false, &a);
            size_t n;
            const char *lead = oklc_tok_lead_as_written(N->c, prev, t, &n);
            oklc_print_raw(&N->pr, lead, n);
            if (a) {
                oklc_print_raw(&N->pr, "[[", 2);
                render_inner(N, a);
                oklc_print_raw(&N->pr, "]]", 2);
            }
            k = next;
            prev = body.data[next - 1];
            continue;
        }
        only_attrs = false;
        put_written(N, prev, t);
        prev = t;
        k++;
    }
    Token *d = oklc_tok_copy(N->c, hash);
    d->kind = TK_DIRECTIVE;
    d->text = N->out.data;
    d->len = (uint32_t)N->out.len;
    N->out = saved;
    N->pr = saved_pr;
    N->pr.out = &N->out;
    N->map.len = saved_map;   /* entries made here point into the scratch text */
    if (only_attrs)
        vec_push(&N->c->arena, &N->attr_macros,
                 oklc_arena_strndup(&N->c->arena, name->text, name->len));
    return d;
}

/* #if / #elif: a single '=' (legacy OCCA's assignment, see pp/ifexpr.c)
 * becomes the '==' its writer meant, with a warning, since the result
 * changes where the two sides differ. */
static char *if_line(Norm *N, Token *hash, Token *last, size_t *len)
{
    Buf b;
    oklc_buf_init(&b, &N->c->arena);
    for (Token *t = hash, *prev = NULL; t != last->next; prev = t, t = t->next) {
        size_t n = 0;
        const char *lead = prev ? oklc_tok_lead_as_written(N->c, prev, t, &n) : "";
        oklc_buf_putn(&b, lead, n);
        if (is_punct(t, P_ASSIGN)) {
            oklc_diag_warning(N->c, t->loc, "'=' in a preprocessor condition written as '==': "
                                            "legacy OCCA read it as an assignment, whose value "
                                            "is its right side; check the comparison is meant");
            oklc_buf_puts(&b, "==");
        } else {
            oklc_buf_putn(&b, t->text, t->len);
        }
    }
    *len = b.len;
    return b.data;
}

/* Conditionals open at the end of the file get their #endif there. */
typedef VEC(Token *) Tokens;

static void track_if(oklc_ctx *c, Tokens *open, Token *name)
{
    if (oklc_tok_eq(name, "if") || oklc_tok_eq(name, "ifdef") || oklc_tok_eq(name, "ifndef"))
        vec_push(&c->arena, open, name);
    else if (oklc_tok_eq(name, "endif") && open->len)
        open->len--;
}

static void close_ifs(oklc_ctx *c, Tokens *v, Token **open, size_t nopen)
{
    Token *eof = v->data[v->len - 1];
    v->len--;
    for (size_t i = nopen; i-- > 0;) {
        oklc_pp_warn_unclosed(c, open[i]);
        Token *d = oklc_tok_copy(c, eof);
        d->kind = TK_DIRECTIVE;
        d->text = "#endif";
        d->len = 6;
        d->lead = "";
        d->lead_len = 0;
        vec_push(&c->arena, v, d);
    }
    vec_push(&c->arena, v, eof);
}

/* Directive lines become single TK_DIRECTIVE tokens with their text kept. */
Normalized *oklc_normalize_raw_view(oklc_ctx *c, uint32_t view)
{
    Norm N = {.c = c, .keep_macros = true};
    oklc_buf_init(&N.out, &c->arena);
    oklc_print_init(&N.pr, &N.out);
    Tokens v = {0}, open = {0};
    for (Token *t = oklc_lex(c, view, 0); t; t = t->next) {
        if (!((t->flags & TF_BOL) && oklc_tok_is_punct(t, P_HASH))) {
            vec_push(&c->arena, &v, t);
            continue;
        }
        if (!(t->next->flags & TF_BOL))
            track_if(c, &open, t->next);
        Token *last = t;
        while (last->next->kind != TK_EOF && !(last->next->flags & TF_BOL))
            last = last->next;
        Token *d;
        if (last != t && t->next->kind == TK_IDENT && oklc_tok_eq(t->next, "define") &&
            t->next != last && t->next->next->kind == TK_IDENT) {
            d = define_line(&N, t, last);
        } else {
            size_t len;
            d = oklc_tok_copy(c, t);
            d->kind = TK_DIRECTIVE;
            if (oklc_tok_eq(t->next, "if") || oklc_tok_eq(t->next, "elif"))
                d->text = if_line(&N, t, last, &len);
            else
                d->text = oklc_tok_join(c, t, last->next, &len);
            d->len = (uint32_t)len;
        }
        vec_push(&c->arena, &v, d);
        t = last;
    }
    if (open.len)
        close_ifs(c, &v, open.data, open.len);
    if (c->nerrors)
        return NULL;
    N.v = v.data;
    N.n = v.len;
    run(&N);
    return finish(&N);
}

/* ---- the offset map ---------------------------------------------------------------------- */

const SrcMapEntry *oklc_norm_lookup(const Normalized *nz, uint32_t off)
{
    if (!nz->nmap)
        return NULL;
    size_t lo = 0, hi = nz->nmap;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (nz->map[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    return &nz->map[lo];
}

Loc oklc_norm_loc(const Normalized *nz, uint32_t off)
{
    const SrcMapEntry *e = oklc_norm_lookup(nz, off);
    if (!e)
        return (Loc){0};
    const Token *t = e->tok;
    Loc loc = oklc_tok_user_loc(t);
    uint32_t delta = off - e->off;
    /* Inside a token written in the file, the column moves with the offset. */
    if (!t->exp && !(t->flags & TF_MACRO) && delta < t->len &&
        !memchr(t->text, '\n', delta)) {
        loc.col += delta;
        loc.off += delta;
    }
    return loc;
}
