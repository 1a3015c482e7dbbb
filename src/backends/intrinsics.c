/*
 * intrinsics.c - calls of the user's intrinsics spelled on the backend
 * (docs/intrinsics.md), rewritten where they are.
 *
 * A spelling that is a name ("__ldg") replaces the callee's name. An
 * expansion ("__expf($1)", "fma($1, $2, $3)") whose $N come in the order
 * of the arguments, each once, replaces the text around the arguments
 * only, so that what the backend does inside them later (@dim accesses,
 * address spaces, conversions) stays. Any other expansion ("$2 - $1",
 * "$1 * $1") becomes a macro of the output's head, called in place of the
 * callee. An argument is parenthesized unless the expansion passes it as
 * a whole argument or it is one token.
 *
 * Recorded before the backend's own edits: the bigger constructs it
 * rebuilds from rendered parts hold these.
 */
#include <ctype.h>
#include <string.h>

#include "backend.h"
#include "../intrinsics/intrinsics.h"

/* One piece of an expansion: text, then (when arg >= 0) an argument. */
typedef struct Piece {
    const char *text;
    int         arg;        /* 0-based; -1: none; ALL: $* */
    bool        paren;      /* the expansion's context needs parentheses */
} Piece;

enum { ALL = 100 };

static bool id_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* Is the spelling a function's name (with :: or .)? */
static bool plain_name(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_' && *s != ':')
        return false;
    for (; *s; s++)
        if (!id_char(*s) && *s != ':' && *s != '.')
            return false;
    return true;
}

/* Does the $N at s[i, j) stand as a whole argument: "(" or "," before,
 * ")" or "," after? */
static bool whole_argument(const char *s, size_t i, size_t j)
{
    while (i > 0 && isspace((unsigned char)s[i - 1]))
        i--;
    while (s[j] && isspace((unsigned char)s[j]))
        j++;
    return i > 0 && (s[i - 1] == '(' || s[i - 1] == ',') && (s[j] == ')' || s[j] == ',');
}

/* Is the expansion one operand as it is: f(...), (...)? Else it goes in
 * parentheses, so that c * okl_axpy(a, x, y) keeps its meaning. */
static bool one_operand(const char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    while (*s && (id_char(*s) || *s == ':' || *s == '.' || isspace((unsigned char)*s)))
        s++, n--;
    if (*s != '(' || !n || s[n - 1] != ')')
        return false;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0 && i + 1 < n)
            return false;      /* (a) + (b): closed before the end */
    }
    return true;
}

/* The expansion cut at its $N (in parentheses unless one operand). */
static size_t pieces(Arena *a, const char *s, Piece **out)
{
    if (!one_operand(s))
        s = oklc_arena_printf(a, "(%s)", s);
    size_t n = 1;
    for (const char *p = s; (p = strchr(p, '$')); p++)
        n++;
    Piece *v = oklc_arena_alloc(a, n * sizeof *v);
    size_t k = 0, from = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] != '$' || !(s[i + 1] == '*' || (s[i + 1] >= '1' && s[i + 1] <= '9')))
            continue;
        v[k].text = oklc_arena_strndup(a, s + from, i - from);
        v[k].arg = s[i + 1] == '*' ? ALL : s[i + 1] - '1';
        v[k].paren = s[i + 1] != '*' && !whole_argument(s, i, i + 2);
        k++;
        from = i + 2;
        i++;
    }
    v[k].text = oklc_arena_strdup(a, s + from);
    v[k].arg = -1;
    *out = v;
    return k + 1;
}

/* Is the argument one token: a name or a number? */
static bool one_token(const char *t, Range r)
{
    uint32_t b = r.begin, e = r.end;
    while (b < e && isspace((unsigned char)t[b]))
        b++;
    while (e > b && isspace((unsigned char)t[e - 1]))
        e--;
    bool word = b < e;
    for (uint32_t i = b; i < e && word; i++)
        word = id_char(t[i]) || t[i] == '.';
    return word;
}

/* $N in the order of the arguments, each once? */
static bool in_order(const Piece *v, size_t n, size_t nargs)
{
    long last = -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i].arg < 0)
            continue;
        long first = v[i].arg == ALL ? 0 : v[i].arg;
        long end = v[i].arg == ALL ? (long)nargs - 1 : v[i].arg;
        if (v[i].arg == ALL && !nargs)
            continue;
        if (first <= last)
            return false;
        last = end;
    }
    return true;
}

/* The edits around the arguments: text before the first one used, between
 * them, after the last. */
static void around(Emit *E, const Call *c, const Piece *v, size_t n)
{
    Arena *a = &E->c->arena;
    const char *t = E->nz->text;
    uint32_t from = c->range.begin;      /* start of the text to replace */
    const char *pending = "";            /* text to put there */
    for (size_t i = 0; i < n; i++) {
        pending = oklc_arena_printf(a, "%s%s", pending, v[i].text);
        if (v[i].arg < 0 || (v[i].arg == ALL && !c->nargs))
            continue;
        size_t first = v[i].arg == ALL ? 0 : (size_t)v[i].arg;
        size_t last = v[i].arg == ALL ? c->nargs - 1 : (size_t)v[i].arg;
        bool paren = v[i].paren && !one_token(t, c->args[first]);
        oklc_edit_replace(&E->ed, from, c->args[first].begin,
                          paren ? oklc_arena_printf(a, "%s(", pending) : pending);
        from = c->args[last].end;
        pending = paren ? ")" : "";
    }
    oklc_edit_replace(&E->ed, from, c->range.end, pending);
}

/* A macro for an expansion in another order: _occa_<name>_<nargs>. */
static void by_macro(Emit *E, const Call *c, const Piece *v, size_t n)
{
    Arena *a = &E->c->arena;
    const char *macro = oklc_arena_printf(a, "_occa_%s_%zu", c->name, c->nargs);
    Buf def;
    oklc_buf_init(&def, a);
    oklc_buf_printf(&def, "#define %s(", macro);
    for (size_t i = 0; i < c->nargs; i++)
        oklc_buf_printf(&def, "%s_occa_a%zu", i ? ", " : "", i + 1);
    oklc_buf_puts(&def, ") ");
    for (size_t i = 0; i < n; i++) {
        oklc_buf_puts(&def, v[i].text);
        if (v[i].arg == ALL) {
            for (size_t k = 0; k < c->nargs; k++)
                oklc_buf_printf(&def, "%s_occa_a%zu", k ? ", " : "", k + 1);
        } else if (v[i].arg >= 0) {
            oklc_buf_printf(&def, v[i].paren ? "(_occa_a%d)" : "_occa_a%d", v[i].arg + 1);
        }
    }
    oklc_buf_putc(&def, '\n');
    if (!E->head.data || !strstr(E->head.data, def.data))
        oklc_buf_puts(&E->head, def.data);
    /* the callee's name (with what precedes it: ns::) up to the '(' */
    uint32_t open = c->range.begin;
    while (open < c->range.end && E->nz->text[open] != '(')
        open++;
    oklc_edit_replace(&E->ed, c->range.begin, open, macro);
}

/* A spelled intrinsic named like a function the file defines: the calls
 * would call the file's function, and the intrinsic would silently do
 * nothing. */
static bool shadowed(Emit *E)
{
    oklc_ctx *c = E->c;
    bool ok = true;
    for (size_t i = 0; i < E->m->nfunctions; i++) {
        const Function *f = E->m->functions[i];
        const Intrinsic *in = f->has_body && !f->is_member ? oklc_intrinsic_find(c, f->name) : NULL;
        if (!in || !in->spelling[c->backend])
            continue;
        if (in->loc.file) {
            Diag *d = oklc_diag_error(c, in->loc, "intrinsic '%s' has the name of a function "
                                      "the kernel's file defines, whose calls it would not "
                                      "replace: rename one of them", f->name);
            oklc_diag_note(c, d, oklc_norm_loc(c->norm, f->name_off), "the function is here");
        } else {
            oklc_model_error(c, f->name_off, "'%s' is also the name of an intrinsic (added by a "
                             "plugin), whose calls it would hide: rename it", f->name);
        }
        ok = false;
    }
    return ok;
}

bool oklc_emit_intrinsics(Emit *E)
{
    oklc_ctx *c = E->c;
    if (!c->intrinsics.len)
        return true;
    bool ok = shadowed(E);
    for (size_t i = 0; i < E->m->ncalls; i++) {
        const Call *call = &E->m->calls[i];
        const char *s = call->callee_off == UINT32_MAX && call->name
                            ? oklc_intrinsic_spelling(c, call->name) : NULL;
        if (!s)
            continue;
        if (plain_name(s)) {
            if (call->name_off != UINT32_MAX)
                oklc_edit_replace(&E->ed, call->name_off,
                                  call->name_off + (uint32_t)strlen(call->name), s);
            continue;
        }
        Piece *v;
        size_t n = pieces(&c->arena, s, &v);
        bool fits = true;
        for (size_t k = 0; k < n; k++)
            if (v[k].arg >= 0 && v[k].arg != ALL && (size_t)v[k].arg >= call->nargs) {
                oklc_model_error(c, call->name_off != UINT32_MAX ? call->name_off
                                                                : call->range.begin,
                                 "%s: its spelling on %s uses $%d, but the call gives %zu "
                                 "argument%s", call->name, oklc_backend_name(c->backend),
                                 v[k].arg + 1, call->nargs, call->nargs == 1 ? "" : "s");
                fits = false;
                break;
            }
        if (!fits) {
            ok = false;
            continue;
        }
        if (in_order(v, n, call->nargs))
            around(E, call, v, n);
        else
            by_macro(E, call, v, n);
    }
    return ok;
}
