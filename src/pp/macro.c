/*
 * macro.c - the macro table, #define/#undef, and expansion.
 *
 * Expansion follows Dave Prosser's algorithm, as the C standard describes it:
 * every token carries a hideset, the names of macros it came from; a name
 * never expands inside its own expansion. A function-like invocation's
 * result gets hs(name) ∩ hs(')') ∪ {name}. Arguments are fully expanded
 * before substitution unless they are operands of # or ##.
 *
 * Every token an expansion creates points to an Expansion record (macro name,
 * definition, invocation site) so diagnostics can be reported at the site in
 * the user's file with "expanded from macro" notes.
 */
#include <string.h>
#include <time.h>

#include "pp.h"

typedef enum Builtin {
    BI_NONE, BI_FILE, BI_LINE, BI_COUNTER, BI_DATE, BI_TIME, BI_INCLUDE_LEVEL, BI_BASE_FILE
} Builtin;

struct Macro {
    const char   *name;
    uint32_t      len;
    bool          funclike, variadic;
    const Token **params;
    int           nparams;        /* with the variadic one, if any */
    Token        *body;           /* ends in TK_EOF */
    Loc           def;
    Builtin       builtin;
    uint32_t      id;             /* its name's number, in hidesets */
    Macro        *next;           /* hash chain */
};

enum {
    MAX_ARG_DEPTH = 200,              /* nested pre-expansion of arguments */
    EXPANSION_BUDGET = 4 * 1000 * 1000 /* tokens all expansions may create */
};

/* ---- the table ------------------------------------------------------------- */

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static Macro **slot(PP *pp, const char *name, size_t len)
{
    Macro **p = &pp->table[hash(name, len) & (pp->table_cap - 1)];
    while (*p && !((*p)->len == len && !memcmp((*p)->name, name, len)))
        p = &(*p)->next;
    return p;
}

static void grow_table(PP *pp)
{
    size_t ncap = pp->table_cap ? pp->table_cap * 2 : 256;
    Macro **old = pp->table;
    size_t ocap = pp->table_cap;
    pp->table = oklc_arena_alloc(&pp->c->arena, ncap * sizeof(Macro *));
    pp->table_cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        for (Macro *m = old[i], *next; m; m = next) {
            next = m->next;
            m->next = NULL;
            *slot(pp, m->name, m->len) = m;
        }
}

/* A hideset holds macros by the number of their name (the same after
 * #undef and a new #define), as a persistent set (base/idset.c): a chain
 * of 100,000 macros makes hidesets of 100,000 names, each the one before
 * and one more. */
static uint32_t macro_id(PP *pp, const char *name)
{
    size_t id;
    if (!oklc_names_get(&pp->macro_ids, name, &id)) {
        id = pp->macro_ids.len;
        oklc_names_put(&pp->c->arena, &pp->macro_ids, name, id);
    }
    return (uint32_t)id;
}

static void add_builtin(PP *pp, const char *name, Builtin b)
{
    Macro *m = oklc_arena_alloc(&pp->c->arena, sizeof *m);
    m->name = name;
    m->len = (uint32_t)strlen(name);
    m->builtin = b;
    m->id = macro_id(pp, name);
    *slot(pp, m->name, m->len) = m;
}

void oklc_macro_init(PP *pp)
{
    grow_table(pp);
    pp->budget = EXPANSION_BUDGET;
    add_builtin(pp, "__FILE__", BI_FILE);
    add_builtin(pp, "__LINE__", BI_LINE);
    add_builtin(pp, "__COUNTER__", BI_COUNTER);
    add_builtin(pp, "__DATE__", BI_DATE);
    add_builtin(pp, "__TIME__", BI_TIME);
    add_builtin(pp, "__INCLUDE_LEVEL__", BI_INCLUDE_LEVEL);
    add_builtin(pp, "__BASE_FILE__", BI_BASE_FILE);
}

Macro *oklc_macro_find(PP *pp, const Token *name)
{
    if (name->kind != TK_IDENT)
        return NULL;
    return *slot(pp, name->text, name->len);
}

bool oklc_macro_defined(PP *pp, const char *name, size_t len)
{
    return *slot(pp, name, len) != NULL;
}

/* ---- token lists ------------------------------------------------------------------ */

static bool at_line_end(const Token *t)
{
    return t->kind == TK_EOF || (t->flags & TF_BOL);
}

static Token *eof_like(PP *pp, const Token *t)
{
    Token *e = oklc_tok_copy(pp->c, t);
    e->kind = TK_EOF;
    e->len = 0;
    return e;
}

Token *oklc_macro_new_token(PP *pp, TokKind k, const char *text, size_t len, const Token *like)
{
    Token *t = oklc_arena_alloc(&pp->c->arena, sizeof *t);
    t->kind = (uint8_t)k;
    t->text = text;
    t->len = (uint32_t)len;
    t->loc = like->loc;
    t->exp = like->exp;
    t->flags = like->flags & (TF_SPACE | TF_MACRO);
    t->lead = "";
    return t;
}

/* Charges `n` new tokens to the expansion budget; false when exhausted. */
static bool spend(PP *pp, const Token *at, size_t n)
{
    if (pp->budget >= n) {
        pp->budget -= n;
        return true;
    }
    if (!pp->over_budget) {
        Diag *d = oklc_diag_error(pp->c, oklc_tok_user_loc(at),
                                  "macro expansion is too large (more than %d tokens)",
                                  EXPANSION_BUDGET);
        oklc_tok_note_expansion(pp->c, d, at);
        pp->over_budget = true;
    }
    return false;
}

/* ---- #define --------------------------------------------------------------------- */

static Token *skip_line(Token *t)
{
    while (!at_line_end(t))
        t = t->next;
    return t;
}

static bool is_va_args(const Token *t)
{
    return t->kind == TK_IDENT && oklc_tok_eq(t, "__VA_ARGS__");
}

static bool is_va_opt(const Token *t)
{
    return t->kind == TK_IDENT && oklc_tok_eq(t, "__VA_OPT__");
}

static int param_index(const Macro *m, const Token *t)
{
    if (t->kind != TK_IDENT || !m->funclike)
        return -1;
    for (int i = 0; i < m->nparams; i++)
        if (m->params[i]->len == t->len && !memcmp(m->params[i]->text, t->text, t->len))
            return i;
    return -1;
}

/* `@name` in the body of a macro with a parameter `name`: as in legacy
 * OCCA, where '@' is a token of its own, the parameter is replaced; the
 * '@' and the argument's name are joined again by the normalizer. Returns
 * the last of the tokens that replace at. */
static Token *attr_of_param(PP *pp, const Macro *m, Token *at)
{
    Token name = *at;
    name.kind = TK_IDENT;
    name.text = at->text + 1;
    name.len = at->len - 1;
    if (param_index(m, &name) < 0)
        return at;
    Token *id = oklc_tok_copy(pp->c, &name);
    id->flags = (uint8_t)((at->flags & TF_SPACED_ATTR) ? TF_SPACE : 0);
    id->loc.col += 1, id->loc.off += 1;
    at->kind = TK_OTHER;
    at->len = 1;
    at->flags &= (uint8_t)~TF_SPACED_ATTR;
    at->next = id;
    return id;
}

static bool define_error(PP *pp, const Token *t, const char *msg)
{
    oklc_diag_error(pp->c, t->loc, "%s", msg);
    return false;
}

/* params = '(' [ident {',' ident}] [',' '...' | ident '...'] ')'
 * A missing ')' is reported just past the line's last token. */
static bool read_params(PP *pp, Macro *m, Token **rest, Token *t)
{
    VEC(const Token *) ps = {0};
    const Token *last = t;     /* the last token read, for "missing ')'" */
    bool after_ellipsis = false;
    for (t = t->next; !at_line_end(t) && !oklc_tok_is_punct(t, P_RPAREN);) {
        if (after_ellipsis)
            return define_error(pp, t, "missing ')' in macro parameter list");
        if (ps.len) {
            if (!oklc_tok_is_punct(t, P_COMMA))
                return define_error(pp, t, "expected ',' or ')' in macro parameter list");
            last = t;
            t = t->next;
            if (at_line_end(t))
                break;
        }
        if (oklc_tok_is_punct(t, P_ELLIPSIS)) {
            m->variadic = after_ellipsis = true;
            Token *va = oklc_tok_copy(pp->c, t);
            va->kind = TK_IDENT;
            va->text = "__VA_ARGS__";
            va->len = 11;
            vec_push(&pp->c->arena, &ps, va);
        } else if (t->kind != TK_IDENT) {
            return define_error(pp, t, "invalid token in macro parameter list");
        } else if (is_va_args(t)) {
            return define_error(pp, t, "__VA_ARGS__ can only appear in the expansion of a "
                                       "variadic macro");
        } else {
            for (size_t i = 0; i < ps.len; i++)
                if (ps.data[i]->len == t->len && !memcmp(ps.data[i]->text, t->text, t->len)) {
                    oklc_diag_error(pp->c, t->loc, "duplicate macro parameter name '%.*s'",
                                    (int)t->len, t->text);
                    return false;
                }
            vec_push(&pp->c->arena, &ps, t);
            if (oklc_tok_is_punct(t->next, P_ELLIPSIS) && !at_line_end(t->next)) {
                m->variadic = after_ellipsis = true;     /* GNU: args... */
                t = t->next;
            }
        }
        last = t;
        t = t->next;
    }
    if (at_line_end(t)) {
        oklc_diag_error(pp->c, oklc_tok_end_loc(last), "missing ')' in macro parameter list");
        return false;
    }
    m->params = ps.data;
    m->nparams = (int)ps.len;
    *rest = t->next;
    return true;
}

/* Checks what the standard requires of a replacement list. */
static bool check_body(PP *pp, const Macro *m)
{
    int va_opt_depth = -1, depth = 0;
    const Token *va_opt_tok = NULL;
    for (const Token *t = m->body; t->kind != TK_EOF; t = t->next) {
        const Token *n = t->next;
        if (oklc_tok_is_punct(t, P_HASHHASH) && (t == m->body || n->kind == TK_EOF))
            return define_error(pp, t, "'##' cannot appear at either end of a macro expansion");
        if (m->funclike && oklc_tok_is_punct(t, P_HASH) && param_index(m, n) < 0 &&
            !is_va_opt(n))
            return define_error(pp, t, "'#' is not followed by a macro parameter");
        if (is_va_args(t) && !m->variadic)
            return define_error(pp, t, "__VA_ARGS__ can only appear in the expansion of a "
                                       "variadic macro");
        if (is_va_opt(t)) {
            if (!m->variadic)
                return define_error(pp, t, "__VA_OPT__ can only appear in the expansion of a "
                                           "variadic macro");
            if (va_opt_depth >= 0)
                return define_error(pp, t, "__VA_OPT__ cannot be nested");
            if (!oklc_tok_is_punct(n, P_LPAREN))
                return define_error(pp, n, "missing '(' after __VA_OPT__");
            va_opt_depth = depth;
            va_opt_tok = t;
        }
        if (oklc_tok_is_punct(t, P_LPAREN))
            depth++;
        if (oklc_tok_is_punct(t, P_RPAREN) && --depth == va_opt_depth)
            va_opt_depth = -1;
    }
    if (va_opt_depth >= 0)
        return define_error(pp, va_opt_tok, "unterminated __VA_OPT__");
    return true;
}

static bool same_definition(const Macro *a, const Macro *b)
{
    if (a->funclike != b->funclike || a->variadic != b->variadic || a->nparams != b->nparams)
        return false;
    for (int i = 0; i < a->nparams; i++)
        if (a->params[i]->len != b->params[i]->len ||
            memcmp(a->params[i]->text, b->params[i]->text, a->params[i]->len))
            return false;
    const Token *x = a->body, *y = b->body;
    for (; x->kind != TK_EOF && y->kind != TK_EOF; x = x->next, y = y->next)
        if (x->len != y->len || memcmp(x->text, y->text, x->len) ||
            (x != a->body && (x->flags & TF_SPACE) != (y->flags & TF_SPACE)))
            return false;
    return x->kind == TK_EOF && y->kind == TK_EOF;
}

/* The name after #define / #undef; reports and returns false if it is
 * missing or cannot be a macro. */
static bool macro_name(PP *pp, const Token *directive)
{
    const Token *t = directive->next;
    if (at_line_end(t)) {
        oklc_diag_error(pp->c, oklc_tok_end_loc(directive), "macro name missing");
        return false;
    }
    if (t->kind != TK_IDENT)
        return define_error(pp, t, "macro name must be an identifier");
    if (oklc_tok_eq(t, "defined"))
        return define_error(pp, t, "'defined' cannot be used as a macro name");
    return true;
}

Token *oklc_macro_define(PP *pp, Token *directive)
{
    oklc_ctx *c = pp->c;
    Token *t = directive->next;
    if (!macro_name(pp, directive))
        return skip_line(t);
    Macro *m = oklc_arena_alloc(&c->arena, sizeof *m);
    m->name = oklc_arena_strndup(&c->arena, t->text, t->len);
    m->len = t->len;
    m->id = macro_id(pp, m->name);
    m->def = t->loc;
    Token *name = t;
    t = t->next;
    if (oklc_tok_is_punct(t, P_LPAREN) && !(t->flags & TF_SPACE) && !at_line_end(t)) {
        m->funclike = true;
        if (!read_params(pp, m, &t, t))
            return skip_line(t);
    } else if (!at_line_end(t) && !(t->flags & TF_SPACE)) {
        oklc_diag_warning(c, t->loc, "whitespace is required after the macro name");
    }

    /* The body: copies of the rest of the line. */
    Token head = {0}, *tail = &head;
    for (; !at_line_end(t); t = t->next) {
        if (t->flags & TF_BAD) {
            oklc_diag_error(c, t->loc, "%s", oklc_tok_bad_message(t));
            return skip_line(t);
        }
        if (t->flags & TF_SPACED_ATTR)     /* once here, not at each use */
            oklc_tok_warn_spaced(c, t);
        tail = tail->next = oklc_tok_copy(c, t);
        tail->lead = "";
        tail->lead_len = 0;
        if (t->kind == TK_ATTR)
            tail = attr_of_param(pp, m, tail);
    }
    tail->next = eof_like(pp, t);
    m->body = head.next ? head.next : tail->next;
    m->body->flags &= (uint8_t)~TF_SPACE;
    if (!check_body(pp, m))
        return t;

    Macro **s = slot(pp, m->name, m->len);
    if (*s) {
        if ((*s)->builtin) {
            oklc_diag_warning(c, name->loc, "redefining builtin macro '%s'", m->name);
        } else if (!same_definition(*s, m)) {
            Diag *d = oklc_diag_warning(c, name->loc, "'%s' macro redefined", m->name);
            oklc_diag_note(c, d, (*s)->def, "previous definition is here");
        }
        m->next = (*s)->next;
        *s = m;
        return t;
    }
    *s = m;
    if (++pp->nmacros * 4 > pp->table_cap * 3)
        grow_table(pp);
    return t;
}

Token *oklc_macro_undef(PP *pp, Token *directive)
{
    Token *t = directive->next;
    if (!macro_name(pp, directive))
        return skip_line(t);
    Macro **s = slot(pp, t->text, t->len);
    if (*s) {
        if ((*s)->builtin)
            oklc_diag_warning(pp->c, t->loc, "undefining builtin macro '%.*s'", (int)t->len,
                              t->text);
        *s = (*s)->next;
        pp->nmacros--;
    }
    t = t->next;
    if (!at_line_end(t))
        oklc_diag_warning(pp->c, t->loc, "extra tokens at end of #undef directive");
    return skip_line(t);
}

/* ---- expansion ------------------------------------------------------------------ */

typedef struct Arg {
    Token *raw;        /* as written, ends in TK_EOF */
    Token *expanded;   /* fully expanded, computed on first use */
    bool   empty;
} Arg;

/* Copies a list (without its EOF) and appends the copies after *tail.
 * Tokens placed inside an expansion lose the whitespace they had. */
static void append_copies(PP *pp, Token ***tail, const Token *t, uint8_t add_flags)
{
    for (; t->kind != TK_EOF; t = t->next) {
        Token *n = oklc_tok_copy(pp->c, t);
        n->flags |= add_flags;
        if (add_flags & TF_MACRO)
            n->flags &= (uint8_t)~TF_KEEPLEAD;
        **tail = n;
        *tail = &n->next;
    }
}

static Token *stringize(PP *pp, const Token *hash, const Token *arg)
{
    Buf b;
    oklc_buf_init(&b, &pp->c->arena);
    oklc_buf_putc(&b, '"');
    for (const Token *t = arg; t->kind != TK_EOF; t = t->next) {
        if (t != arg && (t->flags & TF_SPACE))
            oklc_buf_putc(&b, ' ');
        if (t->kind == TK_STRING || t->kind == TK_CHAR)
            oklc_buf_put_escaped(&b, t->text, t->len);
        else
            oklc_buf_putn(&b, t->text, t->len);
    }
    oklc_buf_putc(&b, '"');
    return oklc_macro_new_token(pp, TK_STRING, b.data, b.len, hash);
}

/* Joins two tokens with ##; NULL (after an error, reported at the macro's
 * use with a note at the ##) when the result is not one token. */
static Token *paste(PP *pp, const Expansion *exp, const Token *hh, const Token *lhs,
                    const Token *rhs)
{
    char *s = oklc_arena_printf(&pp->c->arena, "%.*s%.*s", (int)lhs->len, lhs->text,
                                (int)rhs->len, rhs->text);
    size_t n = strlen(s);
    Token *t = oklc_lex_string_quiet(pp->c, s, n, lhs->loc);
    if (t->kind == TK_EOF || t->next->kind != TK_EOF || (t->flags & TF_BAD)) {
        Diag *d = oklc_diag_error(pp->c, oklc_tok_user_loc(exp->site),
                                  "pasting formed '%s', an invalid preprocessing token", s);
        oklc_tok_note_expansion(pp->c, d, exp->site);    /* outermost first */
        oklc_diag_note(pp->c, d, hh->loc, "expanded from macro '%s'", exp->macro);
        return NULL;
    }
    t->exp = lhs->exp;
    t->flags = (uint8_t)((lhs->flags & (TF_SPACE | TF_MACRO)));
    t->lead = "";
    t->lead_len = 0;
    t->next = NULL;
    return t;
}

/* Expansion relinks tokens, so it works on a copy: the raw argument may
 * still be needed by # or ## elsewhere in the body. */
static Token *expanded_arg(PP *pp, Arg *a)
{
    if (!a->expanded) {
        Token head = {0}, **tp = &head.next;
        append_copies(pp, &tp, a->raw, 0);
        const Token *e = a->raw;
        while (e->kind != TK_EOF)
            e = e->next;
        *tp = oklc_tok_copy(pp->c, e);
        a->expanded = oklc_macro_expand_all(pp, head.next);
    }
    return a->expanded;
}

typedef struct Subst {
    PP        *pp;
    Macro     *m;
    Arg       *args;
    Expansion *exp;
    bool       va_present;
    bool       failed;
} Subst;

static Token *subst_range(Subst *s, const Token *body, const Token *stop);

/* The tokens of __VA_OPT__( ... ) starting at `t` (the __VA_OPT__ token);
 * *close receives the matching ')'. */
static Token *va_opt(Subst *s, const Token *t, const Token **close)
{
    int depth = 0;
    const Token *open = t->next, *p = open;
    for (; p->kind != TK_EOF; p = p->next) {
        if (oklc_tok_is_punct(p, P_LPAREN))
            depth++;
        else if (oklc_tok_is_punct(p, P_RPAREN) && --depth == 0)
            break;
    }
    *close = p;
    if (!s->va_present)
        return NULL;
    return subst_range(s, open->next, p);
}

/* A copy of a body token, marked as made by this expansion. */
static Token *body_copy(Subst *s, const Token *t)
{
    Token *n = oklc_tok_copy(s->pp->c, t);
    n->exp = s->exp;
    n->flags = (uint8_t)((t->flags & TF_SPACE) | TF_MACRO);
    return n;
}

/* The right operand of ##: a raw argument (possibly empty), a __VA_OPT__
 * group, or one body token. Returns its tokens as a list (NULL if empty). */
static Token *paste_operand(Subst *s, const Token **pt)
{
    const Token *t = *pt;
    int idx = param_index(s->m, t);
    Token head = {0}, *tail = &head, **tp = &head.next;
    if (idx >= 0) {
        append_copies(s->pp, &tp, s->args[idx].raw, TF_MACRO);
        *pt = t->next;
        return head.next;
    }
    if (is_va_opt(t)) {
        const Token *close;
        Token *r = va_opt(s, t, &close);
        *pt = close->next;
        return r;
    }
    tail->next = body_copy(s, t);
    *pt = t->next;
    return head.next;
}

/* Substitutes parameters in body[..stop). */
static Token *subst_range(Subst *s, const Token *body, const Token *stop)
{
    PP *pp = s->pp;
    Token head = {0}, *tail = &head;
    const Token *t = body;
    while (t != stop && t->kind != TK_EOF && !s->failed) {
        int idx;
        /* # param, # __VA_OPT__(...) */
        if (s->m->funclike && oklc_tok_is_punct(t, P_HASH)) {
            const Token *n = t->next;
            Token *str;
            if (is_va_opt(n)) {
                const Token *close;
                Token *r = va_opt(s, n, &close), eof = {.kind = TK_EOF};
                Token *l = r;
                while (l && l->next)
                    l = l->next;
                if (l)
                    l->next = &eof;
                str = stringize(pp, t, r ? r : &eof);
                t = close->next;
            } else {
                str = stringize(pp, t, s->args[param_index(s->m, n)].raw);
                t = n->next;
            }
            str->exp = s->exp;
            str->flags |= TF_MACRO;
            tail = tail->next = str;
            continue;
        }
        /* lhs ## rhs: paste onto the last token produced */
        if (oklc_tok_is_punct(t, P_HASHHASH)) {
            const Token *hh = t, *after = t->next;
            /* GNU: ", ## __VA_ARGS__" drops the comma when there are none. */
            if (tail != &head && oklc_tok_is_punct(tail, P_COMMA) && s->m->variadic &&
                param_index(s->m, after) == s->m->nparams - 1) {
                int va = s->m->nparams - 1;
                if (s->args[va].empty) {
                    Token *p = &head;      /* remove the comma */
                    while (p->next != tail)
                        p = p->next;
                    p->next = NULL;
                    tail = p;
                } else {
                    Token **tp = &tail->next;
                    append_copies(pp, &tp, s->args[va].raw, TF_MACRO);
                    while (tail->next)
                        tail = tail->next;
                }
                t = after->next;
                continue;
            }
            Token *rhs = paste_operand(s, &after);
            t = after;
            if (!rhs)
                continue;                  /* x ## <empty> is x */
            if (tail == &head || tail->kind == TK_PLACEMARKER) {
                if (tail != &head) {       /* <empty> ## y is y */
                    Token *p = &head;
                    while (p->next != tail)
                        p = p->next;
                    tail = p;
                }
                tail->next = rhs;
            } else {
                Token *joined = paste(pp, s->exp, hh, tail, rhs);
                if (!joined) {
                    s->failed = true;
                    break;
                }
                Token *p = &head;
                while (p->next != tail)
                    p = p->next;
                p->next = joined;
                joined->next = rhs->next;
                tail = joined;
            }
            while (tail->next)
                tail = tail->next;
            continue;
        }
        if (is_va_opt(t)) {
            const Token *close;
            Token *r = va_opt(s, t, &close);
            if (r) {
                r->flags = (uint8_t)((r->flags & ~TF_SPACE) | (t->flags & TF_SPACE));
                tail->next = r;
                while (tail->next)
                    tail = tail->next;
            }
            t = close->next;
            continue;
        }
        if ((idx = param_index(s->m, t)) >= 0) {
            Arg *a = &s->args[idx];
            bool before_paste = oklc_tok_is_punct(t->next, P_HASHHASH);
            Token **tp = &tail->next;
            if (before_paste && a->empty) {
                /* An empty operand of ## is a placemarker. */
                tail = tail->next = body_copy(s, t);
                tail->kind = TK_PLACEMARKER;
            } else {
                const Token *src = before_paste ? a->raw : expanded_arg(pp, a);
                append_copies(pp, &tp, src, TF_MACRO);
                bool first = true;
                for (Token *x = tail->next; x; x = x->next) {
                    if (first) {        /* the argument's place decides the space */
                        x->flags = (uint8_t)((x->flags & ~TF_SPACE) | (t->flags & TF_SPACE));
                        first = false;
                    }
                    tail = x;
                }
            }
            t = t->next;
            continue;
        }
        tail = tail->next = body_copy(s, t);
        t = t->next;
    }
    /* Placemarkers have done their job once ## is resolved. */
    Token *prev = &head;
    for (Token *x = head.next; x; x = x->next)
        if (x->kind == TK_PLACEMARKER)
            prev->next = x->next;
        else
            prev = x;
    return head.next;
}

/* Reads the arguments of an invocation; `t` is the '('. On success *rparen
 * is the closing parenthesis. */
static Arg *read_args(PP *pp, Macro *m, const Token *name, Token *t, Token **rparen)
{
    oklc_ctx *c = pp->c;
    int want = m->nparams;
    Arg *args = oklc_arena_alloc(&c->arena, (size_t)(want ? want : 1) * sizeof(Arg));
    int n = 0, depth = 0;
    Token head = {0}, *tail = &head;
    bool any = false;
    for (t = t->next;; t = t->next) {
        if (t->kind == TK_EOF) {
            Diag *d = oklc_diag_error(c, oklc_tok_user_loc(name),
                                      "unterminated argument list invoking macro '%s'", m->name);
            oklc_tok_note_expansion(c, d, name);
            return NULL;
        }
        if ((t->flags & TF_BOL) && oklc_tok_is_punct(t, P_HASH) && !(t->flags & TF_MACRO)) {
            oklc_diag_error(c, t->loc, "preprocessing directive inside the arguments of macro "
                                       "'%s' is not supported",
                            m->name);
            return NULL;
        }
        bool close = depth == 0 && oklc_tok_is_punct(t, P_RPAREN);
        bool comma = depth == 0 && oklc_tok_is_punct(t, P_COMMA) &&
                     !(m->variadic && n == want - 1);
        if (close || comma) {
            bool empty = head.next == NULL;
            tail->next = eof_like(pp, t);
            if (n < want)
                args[n] = (Arg){head.next, NULL, empty};
            n++;
            any = any || !empty;
            head.next = NULL;
            tail = &head;
            if (close)
                break;
            continue;
        }
        if (oklc_tok_is_punct(t, P_LPAREN))
            depth++;
        else if (oklc_tok_is_punct(t, P_RPAREN))
            depth--;
        tail = tail->next = oklc_tok_copy(c, t);
    }
    *rparen = t;
    /* F() passes one empty argument, which is right when F takes one. */
    if (n == 1 && want == 0 && !any)
        n = 0;
    if (m->variadic && n == want - 1) {   /* no variadic arguments at all */
        args[n] = (Arg){eof_like(pp, t), NULL, true};
        n++;
    }
    if (n != want) {
        Diag *d = oklc_diag_error(c, oklc_tok_user_loc(name),
                                  n > want ? "too many arguments provided to function-like "
                                             "macro invocation '%s' (expected %d, got %d)"
                                           : "too few arguments provided to function-like "
                                             "macro invocation '%s' (expected %d, got %d)",
                                  m->name, m->variadic ? want - 1 : want, n);
        oklc_diag_note(c, d, m->def, "macro '%s' defined here", m->name);
        return NULL;
    }
    return args;
}

static Token *builtin_token(PP *pp, Macro *m, Token *site)
{
    oklc_ctx *c = pp->c;
    Loc at = oklc_tok_user_loc(site);
    const FileView *v = &c->views.data[at.file];
    char *s;
    TokKind k = TK_NUMBER;
    Buf b;
    oklc_buf_init(&b, &c->arena);
    switch (m->builtin) {
    case BI_FILE:
    case BI_BASE_FILE: {
        const char *name = m->builtin == BI_FILE ? v->name : c->views.data[1].name;
        oklc_buf_putc(&b, '"');
        oklc_buf_put_escaped(&b, name, strlen(name));
        oklc_buf_putc(&b, '"');
        k = TK_STRING;
        break;
    }
    case BI_LINE:
        oklc_buf_printf(&b, "%lld", oklc_presumed_line(c, at));
        break;
    case BI_COUNTER:
        oklc_buf_printf(&b, "%d", pp->counter++);
        break;
    case BI_INCLUDE_LEVEL:
        oklc_buf_printf(&b, "%d", pp->include_depth);
        break;
    case BI_DATE:
    case BI_TIME: {
        time_t now = time(NULL);
        struct tm tm;
        char tmp[32];
        gmtime_r(&now, &tm);
        strftime(tmp, sizeof tmp, m->builtin == BI_DATE ? "\"%b %e %Y\"" : "\"%H:%M:%S\"", &tm);
        oklc_buf_puts(&b, tmp);
        k = TK_STRING;
        break;
    }
    case BI_NONE:
        oklc_unreachable();
    }
    s = b.data;
    Token *t = oklc_macro_new_token(pp, k, s, b.len, site);
    t->flags |= TF_MACRO;
    return t;
}

/* Gives the expansion the invocation's leading whitespace and hideset, and
 * splices it in front of `rest`. Returns the new first token. */
static Token *splice(PP *pp, Token *site, Token *list, const IdSet *hs, Token *rest)
{
    if (!list) {
        /* Keep comments and line breaks before a macro that expands to
         * nothing; plain blanks would only double the next token's. */
        bool keep = site->lead_len && strspn(site->lead, " \t") < site->lead_len;
        if (pp->arg_depth == 0 && keep && !(site->flags & TF_MACRO))
            oklc_buf_putn(&pp->pending_lead, site->lead, site->lead_len);
        return rest;
    }
    size_t n = 0;
    Token *last = list;
    for (Token *t = list; t; t = t->next) {
        t->hs = oklc_idset_union(&pp->c->arena, hs, t->hs);
        last = t;
        n++;
    }
    if (!spend(pp, site, n))
        return rest;
    /* The first token stands where the name stood. */
    list->flags = (uint8_t)((list->flags & ~(TF_SPACE | TF_BOL)) |
                            (site->flags & (TF_SPACE | TF_BOL)));
    if (!(site->flags & TF_MACRO) || (site->flags & TF_KEEPLEAD)) {
        list->lead = site->lead;
        list->lead_len = site->lead_len;
        list->flags |= TF_KEEPLEAD;
    } else {
        list->flags &= (uint8_t)~TF_KEEPLEAD;
    }
    last->next = rest;
    return list;
}

bool oklc_macro_expand(PP *pp, Token **rest, Token *t)
{
    if (t->kind != TK_IDENT || (t->flags & TF_NOEXPAND))
        return false;
    Macro *m = oklc_macro_find(pp, t);
    if (!m)
        return false;
    if (oklc_idset_has(t->hs, m->id)) {
        t->flags |= TF_NOEXPAND;   /* painted blue for good */
        return false;
    }
    oklc_ctx *c = pp->c;
    if (m->builtin) {
        *rest = splice(pp, t, builtin_token(pp, m, t), t->hs, t->next);
        return true;
    }
    Expansion *exp = oklc_arena_alloc(&c->arena, sizeof *exp);
    *exp = (Expansion){m->name, m->def, t};

    if (!m->funclike) {
        Subst s = {pp, m, NULL, exp, false, false};
        Token *body = subst_range(&s, m->body, NULL);
        *rest = splice(pp, t, s.failed ? NULL : body, oklc_idset_add(&c->arena, t->hs, m->id),
                       t->next);
        return true;
    }
    /* A function-like name not followed by '(' is an ordinary identifier. */
    if (!oklc_tok_is_punct(t->next, P_LPAREN))
        return false;
    Token *rparen;
    Arg *args = read_args(pp, m, t, t->next, &rparen);
    if (!args) {
        *rest = skip_line(t->next);   /* resume after the damage */
        while ((*rest)->kind != TK_EOF && !((*rest)->flags & TF_BOL))
            *rest = (*rest)->next;
        return true;
    }
    Subst s = {pp, m, args, exp, false, false};
    if (m->variadic) {
        Arg *va = &args[m->nparams - 1];
        s.va_present = expanded_arg(pp, va)->kind != TK_EOF;
    }
    Token *body = subst_range(&s, m->body, NULL);
    const IdSet *hs = oklc_idset_add(&c->arena, oklc_idset_intersect(&c->arena, t->hs,
                                                                    rparen->hs), m->id);
    *rest = splice(pp, t, s.failed ? NULL : body, hs, rparen->next);
    return true;
}

Token *oklc_macro_expand_all(PP *pp, Token *list)
{
    if (pp->arg_depth >= MAX_ARG_DEPTH) {
        Diag *d = oklc_diag_error(pp->c, oklc_tok_user_loc(list),
                                  "macro arguments are nested too deeply (more than %d levels)",
                                  MAX_ARG_DEPTH);
        oklc_tok_note_expansion(pp->c, d, list);
        Token *e = list;
        while (e->kind != TK_EOF)
            e = e->next;
        return e;
    }
    pp->arg_depth++;
    Token head = {0}, *tail = &head;
    Token *t = list;
    while (t->kind != TK_EOF) {
        if (pp->over_budget)
            break;
        if (oklc_macro_expand(pp, &t, t))
            continue;
        tail = tail->next = t;
        t = t->next;
    }
    while (t->kind != TK_EOF)
        t = t->next;
    tail->next = t;
    pp->arg_depth--;
    return head.next;
}
