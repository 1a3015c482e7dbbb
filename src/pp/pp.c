/*
 * pp.c - the preprocessor's driver: directives, #include, #if blocks.
 *
 * Takes a file (plus predefined macros and the -D/-U/--include options),
 * gives the fully expanded token array (PPResult). Three buffers are chained
 * as if included in turn: "<built-in>" (the predefined macros of the
 * backend), "<command line>" (options, in order), then the main file.
 * "..." includes are inlined; <...> includes and #pragma lines stay in the
 * output as TK_DIRECTIVE tokens, in place. Comments before dropped
 * directive lines move to the next output token so they survive.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pp.h"
#include "../backends/table.h"
#include "../intrinsics/intrinsics.h"

typedef enum CondCtx { IN_THEN, IN_ELIF, IN_ELSE } CondCtx;

typedef struct Cond {
    struct Cond *prev;
    const Token *tok;       /* the "if" of the #if, for "unterminated" */
    CondCtx      ctx;
    bool         taken;     /* some branch has been included */
} Cond;

typedef struct Include {
    struct Include *prev;
    Token          *eof;    /* this file's TK_EOF token */
    Cond           *cond;   /* open blocks when the file started */
    uint32_t        view;
} Include;

enum { MAX_INCLUDE_DEPTH = 200 };

/* ---- buffers ---------------------------------------------------------------- */

uint32_t oklc_pp_add_buffer(oklc_ctx *c, const char *path, const char *text, size_t len,
                            bool builtin)
{
    SrcFile *f = oklc_src_new(c, path, text, len, builtin);
    return oklc_view_new(c, f, NULL, 0);
}

/* The predefined macros: OKL and OCCA compatibility, and the backend. */
static char *builtin_text(oklc_ctx *c)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_printf(&b,
                    "#define __OKL__ 1\n"
                    "#define __OCCA__ 1\n"
                    "#define OKL_VERSION 20000\n"
                    "#define OKL_MAJOR_VERSION 2\n"
                    "#define OKL_MINOR_VERSION 0\n"
                    "#define OKL_PATCH_VERSION 0\n"
                    "#define OKLC_VERSION %d\n"
                    "#define __cplusplus 201703L\n",
                    OKLC_VERSION_MAJOR * 10000 + OKLC_VERSION_MINOR * 100 + OKLC_VERSION_PATCH);
    const Backend *chosen = oklc_backend_builtin(c->backend);
    for (size_t i = 0; i < oklc_backend_count(); i++) {
        const Backend *be = oklc_backend_at(i);
        oklc_buf_printf(&b, "#define OCCA_USE_%s %d\n", be->macro, be == chosen);
    }
    if (chosen)
        oklc_buf_printf(&b, "#define OKLC_BACKEND_%s 1\n#define OKL_MODE \"%s\"\n",
                        chosen->macro, chosen->macro);
    return b.data;
}

/* -D NAME[=VALUE], -U NAME and --include FILE as directive lines. */
static char *cmdline_text(oklc_ctx *c)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    for (size_t i = 0; i < c->cmds.len; i++) {
        const Cmd *cmd = &c->cmds.data[i];
        switch (cmd->kind) {
        case CMD_DEFINE: {
            const char *eq = strchr(cmd->text, '=');
            if (eq)
                oklc_buf_printf(&b, "#define %.*s ", (int)(eq - cmd->text), cmd->text);
            else
                oklc_buf_printf(&b, "#define %s 1", cmd->text);
            for (const char *p = eq ? eq + 1 : ""; *p; p++)   /* one line, as cc does */
                oklc_buf_putc(&b, *p == '\n' || *p == '\r' ? ' ' : *p);
            oklc_buf_putc(&b, '\n');
            break;
        }
        case CMD_UNDEF:
            oklc_buf_printf(&b, "#undef %s\n", cmd->text);
            break;
        case CMD_INCLUDE:
            oklc_buf_puts(&b, "#include \"");
            oklc_buf_put_escaped(&b, cmd->text, strlen(cmd->text));
            oklc_buf_puts(&b, "\"\n");
            break;
        }
    }
    return b.data;
}

/* ---- small helpers -------------------------------------------------------------- */

static bool line_end(const Token *t)
{
    return t->kind == TK_EOF || (t->flags & TF_BOL);
}

static Token *skip_line(Token *t)
{
    while (!line_end(t))
        t = t->next;
    return t;
}

static bool is_directive_start(const Token *t)
{
    return (t->flags & TF_BOL) && oklc_tok_is_punct(t, P_HASH) && !(t->flags & TF_MACRO);
}

static bool in_builtin(PP *pp, const Token *t)
{
    return pp->c->views.data[t->loc.file].src->is_builtin;
}

static void extra_tokens(PP *pp, Token *t, const char *directive)
{
    if (!line_end(t))
        oklc_diag_warning(pp->c, t->loc, "extra tokens at end of #%s directive", directive);
}

/* A dropped directive line goes with its newline, which is the first
 * character of whatever follows it. */
static const char *after_dropped_line(PP *pp, const char *lead, size_t *n)
{
    size_t k = pp->drop_nl ? oklc_line_break(lead, *n) : 0;
    *n -= k;
    return lead + k;
}

/* Merges the comments of dropped directive lines into the token's lead. */
static void take_pending(PP *pp, Token *t)
{
    Buf *p = &pp->pending_lead;
    if (!p->len && !pp->drop_nl)
        return;
    const char *own = t->lead;
    size_t n = t->lead_len;
    if ((t->flags & TF_MACRO) && !(t->flags & TF_KEEPLEAD)) {
        own = (t->flags & TF_SPACE) ? " " : "";
        n = strlen(own);
    }
    own = after_dropped_line(pp, own, &n);
    pp->drop_nl = false;
    Buf b;
    oklc_buf_init(&b, &pp->c->arena);
    oklc_buf_putn(&b, p->data, p->len);
    oklc_buf_putn(&b, own, n);
    t->lead = b.data;
    t->lead_len = (uint32_t)b.len;
    t->flags |= TF_KEEPLEAD;
    p->len = 0;
    p->data[0] = 0;
}

static void keep_lead(PP *pp, const Token *hash)
{
    if (in_builtin(pp, hash))
        return;
    size_t n = hash->lead_len;
    const char *lead = after_dropped_line(pp, hash->lead, &n);
    oklc_buf_putn(&pp->pending_lead, lead, n);
    pp->drop_nl = true;
}

static void emit(PP *pp, Token *t)
{
    if (t->flags & TF_BAD) {
        Diag *d = oklc_diag_error(pp->c, oklc_tok_user_loc(t), "%s", oklc_tok_bad_message(t));
        oklc_tok_note_expansion(pp->c, d, t);
        t->flags &= (uint8_t)~TF_BAD;
    }
    take_pending(pp, t);
    vec_push(&pp->c->arena, &pp->out, t);
}

/* The text of a directive line as written: from '#' to its last token. */
static Token *directive_token(PP *pp, Token *hash, const char *text, size_t len)
{
    Token *d = oklc_macro_new_token(pp, TK_DIRECTIVE, text, len, hash);
    d->flags = TF_BOL | TF_KEEPLEAD;
    d->lead = hash->lead;
    d->lead_len = hash->lead_len;
    return d;
}

/* The tokens from `t` to the end of the line (or `stop`), copied and
 * macro-expanded, ending in TK_EOF: the operand of #include, #line and
 * #pragma when a macro stands there. */
static Token *expand_line(PP *pp, Token *t, const Token *stop)
{
    Token head = {0}, *tail = &head;
    for (; t != stop && !line_end(t); t = t->next)
        tail = tail->next = oklc_tok_copy(pp->c, t);
    tail->next = oklc_tok_copy(pp->c, t);
    tail->next->kind = TK_EOF;
    tail->next->len = 0;
    if (!head.next)
        return tail->next;
    pp->arg_depth++;    /* expansions here must not touch the output */
    Token *x = oklc_macro_expand_all(pp, head.next);
    pp->arg_depth--;
    return x;
}

static Token *raw_line(PP *pp, Token *hash, Token **next)
{
    *next = skip_line(hash->next);
    size_t len;
    char *text = oklc_tok_join(pp->c, hash, *next, &len);
    return directive_token(pp, hash, text, len);
}

/* ---- conditionals -------------------------------------------------------------------- */

static void push_cond(PP *pp, const Token *name, bool taken)
{
    Cond *c = oklc_arena_alloc(&pp->c->arena, sizeof *c);
    *c = (Cond){pp->cond, name, IN_THEN, taken};
    pp->cond = c;
}

/* Skips a false block; returns the '#' of the #elif/#else/#endif that ends
 * it, or the file's EOF. Comments inside the block are not kept. */
static Token *skip_block(Token *t)
{
    int depth = 0;
    for (; t->kind != TK_EOF; t = t->next) {
        if (!is_directive_start(t))
            continue;
        Token *n = t->next;
        if (line_end(n) || n->kind != TK_IDENT)
            continue;
        if (oklc_tok_eq(n, "if") || oklc_tok_eq(n, "ifdef") || oklc_tok_eq(n, "ifndef")) {
            depth++;
        } else if (oklc_tok_eq(n, "endif")) {
            if (depth-- == 0)
                break;
        } else if (depth == 0 && (oklc_tok_eq(n, "elif") || oklc_tok_eq(n, "else") ||
                                  oklc_tok_eq(n, "elifdef") || oklc_tok_eq(n, "elifndef"))) {
            break;
        }
    }
    t->lead_len = 0;    /* its whitespace belongs to the skipped block */
    return t;
}

static Token *ifdef_name(PP *pp, Token *name, const char *directive, bool *defined)
{
    Token *t = name->next;
    *defined = false;
    if (line_end(t)) {
        oklc_diag_error(pp->c, oklc_tok_end_loc(name), "macro name missing");
        return t;
    }
    if (t->kind != TK_IDENT) {
        oklc_diag_error(pp->c, t->loc, "macro name must be an identifier");
        return skip_line(t);
    }
    *defined = oklc_macro_defined(pp, t->text, t->len);
    extra_tokens(pp, t->next, directive);
    return skip_line(t->next);
}

/* #if, #ifdef, #ifndef */
static Token *do_if(PP *pp, Token *hash, Token *name)
{
    bool v;
    Token *next;
    if (oklc_tok_eq(name, "if")) {
        next = oklc_pp_if_expr(pp, hash, name->next, &v);
    } else {
        next = ifdef_name(pp, name, oklc_tok_eq(name, "ifdef") ? "ifdef" : "ifndef", &v);
        if (oklc_tok_eq(name, "ifndef"))
            v = !v;
    }
    push_cond(pp, name, v);
    return v ? next : skip_block(next);
}

/* #elif, #elifdef, #elifndef, #else */
static Token *do_else(PP *pp, Token *hash, Token *name)
{
    Cond *c = pp->cond;
    bool is_else = oklc_tok_eq(name, "else");
    if (!c || (pp->inc && c == pp->inc->cond)) {
        oklc_diag_error(pp->c, name->loc, "#%.*s without #if", (int)name->len, name->text);
        return skip_line(name);
    }
    if (c->ctx == IN_ELSE) {
        oklc_diag_error(pp->c, name->loc, "#%.*s after #else", (int)name->len, name->text);
        return skip_block(skip_line(name));
    }
    c->ctx = is_else ? IN_ELSE : IN_ELIF;
    if (c->taken) {
        if (is_else)
            extra_tokens(pp, name->next, "else");
        Token *next = skip_line(name->next);   /* not evaluated: the block is dead */
        return skip_block(next);
    }
    bool v = true;
    Token *next;
    if (is_else) {
        extra_tokens(pp, name->next, "else");
        next = skip_line(name->next);
    } else if (oklc_tok_eq(name, "elif")) {
        next = oklc_pp_if_expr(pp, hash, name->next, &v);
    } else {
        next = ifdef_name(pp, name, oklc_tok_eq(name, "elifdef") ? "elifdef" : "elifndef", &v);
        if (oklc_tok_eq(name, "elifndef"))
            v = !v;
    }
    c->taken = v;
    return v ? next : skip_block(next);
}

static Token *do_endif(PP *pp, Token *name)
{
    if (!pp->cond || (pp->inc && pp->cond == pp->inc->cond)) {
        oklc_diag_error(pp->c, name->loc, "#endif without #if");
        return skip_line(name);
    }
    pp->cond = pp->cond->prev;
    extra_tokens(pp, name->next, "endif");
    return skip_line(name->next);
}

/* ---- #include ---------------------------------------------------------------------- */

/* What #pragma once knows a file by: its real path, or for a file in
 * memory its name; NULL when neither. */
static const char *identity(PP *pp, const char *path)
{
    if (oklc_mem_file(pp->c, path))
        return oklc_arena_printf(&pp->c->arena, "<memory>/%s", path);
    char *real = realpath(path, NULL);
    if (!real)
        return NULL;
    char *copy = oklc_arena_strdup(&pp->c->arena, real);
    free(real);
    return copy;
}

static bool once_seen(PP *pp, const char *path)
{
    const char *id = identity(pp, path);
    bool seen = false;
    for (size_t i = 0; id && i < pp->once.len && !seen; i++)
        seen = !strcmp(pp->once.data[i], id);
    return seen;
}

static void mark_once(PP *pp, const Token *at)
{
    const char *id = identity(pp, pp->c->views.data[at->loc.file].src->path);
    if (id)
        vec_push(&pp->c->arena, &pp->once, id);
}

/* Lexes a file and makes it the current input; returns its first token. */
static Token *enter_file(PP *pp, uint32_t view, Token *rest)
{
    Token *toks = oklc_lex(pp->c, view, 0);
    Token *eof = toks;
    while (eof->kind != TK_EOF)
        eof = eof->next;
    eof->next = rest;
    Include *inc = oklc_arena_alloc(&pp->c->arena, sizeof *inc);
    *inc = (Include){pp->inc, eof, pp->cond, view};
    pp->inc = inc;
    pp->include_depth++;
    return toks;
}

/* The file name of an #include whose operand came from macros. */
static bool computed_name(PP *pp, Token *t, char **name, bool *angled)
{
    Token *x = expand_line(pp, t, NULL);
    if (oklc_tok_is_plain_string(x)) {
        *name = oklc_arena_strndup(&pp->c->arena, x->text + 1, x->len - 2);
        *angled = false;
        return true;
    }
    if (!oklc_tok_is_punct(x, P_LT))
        return false;
    Buf b;
    oklc_buf_init(&b, &pp->c->arena);
    for (x = x->next; x->kind != TK_EOF && !oklc_tok_is_punct(x, P_GT); x = x->next) {
        if ((x->flags & TF_SPACE) && b.len)
            oklc_buf_putc(&b, ' ');
        oklc_buf_putn(&b, x->text, x->len);
    }
    if (x->kind == TK_EOF)
        return false;
    *name = b.data;
    *angled = true;
    return true;
}

/* The file name of a "..." written by cmdline_text() for --include: there
 * it is a C string's body (any file name fits), not a q-char-sequence. */
static char *unescape(Arena *a, const char *s, size_t n)
{
    char *out = oklc_arena_alloc(a, n + 1), *o = out;
    for (const char *e = s + n; s < e; s++) {
        if (*s != '\\' || s + 1 == e) {
            *o++ = *s;
            continue;
        }
        s++;
        if (*s >= '0' && *s <= '7') {
            int v = 0;
            for (int k = 0; k < 3 && s < e && *s >= '0' && *s <= '7'; k++)
                v = v * 8 + *s++ - '0';
            s--;
            *o++ = (char)v;
        } else {
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        }
    }
    *o = 0;
    return out;
}

static Token *do_include(PP *pp, Token *hash, Token *name)
{
    oklc_ctx *c = pp->c;
    Token *t = name->next, *next;
    char *file = NULL;
    bool angled = false, computed = false;
    if (t->kind == TK_STRING && (t->flags & TF_BAD) && !line_end(t)) {
        oklc_diag_error(c, t->loc, "missing terminating '\"' character");
        return skip_line(t);
    }
    if (oklc_tok_is_plain_string(t) && !line_end(t)) {
        file = in_builtin(pp, t) ? unescape(&c->arena, t->text + 1, t->len - 2)
                                 : oklc_arena_strndup(&c->arena, t->text + 1, t->len - 2);
        next = t->next;
    } else if (oklc_tok_is_punct(t, P_LT) && !line_end(t)) {
        Token *gt = t->next;
        while (!line_end(gt) && !oklc_tok_is_punct(gt, P_GT))
            gt = gt->next;
        if (line_end(gt)) {
            oklc_diag_error(c, t->loc, "expected '>' at the end of the #include file name");
            return skip_line(t);
        }
        file = oklc_tok_join(c, t->next, gt, NULL);
        angled = true;
        next = gt->next;
    } else if (!line_end(t) && computed_name(pp, t, &file, &angled)) {
        computed = true;
        next = skip_line(t);
    } else {
        oklc_diag_error(c, line_end(t) ? oklc_tok_end_loc(name) : t->loc,
                        "expected \"FILENAME\" or <FILENAME>");
        return skip_line(t);
    }
    if (!computed)
        extra_tokens(pp, next, "include");
    next = skip_line(next);

    if (angled && !oklc_mem_file(c, file)) {   /* the target compiler's business: keep the line */
        Token *d = computed ? directive_token(pp, hash,
                                              oklc_arena_printf(&c->arena, "#include <%s>", file),
                                              strlen(file) + 11)
                            : raw_line(pp, hash, &next);
        emit(pp, d);
        return next;
    }
    keep_lead(pp, hash);
    if (!*file) {
        oklc_diag_error(c, t->loc, "empty filename in #include");
        return next;
    }
    if (pp->include_depth >= MAX_INCLUDE_DEPTH) {
        oklc_diag_error(c, t->loc, "#include nested too deeply (more than %d levels)",
                        MAX_INCLUDE_DEPTH);
        return next;
    }
    const char *path = oklc_pp_find_include(pp, hash, file, false);
    if (!path) {
        oklc_diag_error(c, t->loc, "'%s' file not found", file);
        return next;
    }
    if (once_seen(pp, path))
        return next;
    size_t len;
    const MemFile *mem = oklc_mem_file(c, path);
    char *text = mem ? oklc_arena_strndup(&c->arena, mem->text, mem->len)
                     : oklc_read_file(c, path, &len);
    if (mem)
        len = mem->len;
    if (!text) {
        oklc_diag_error(c, t->loc, "cannot read '%s': %s", path, strerror(errno));
        return next;
    }
    return enter_file(pp, oklc_pp_add_buffer(c, path, text, len, false), next);
}

/* Legacy OCCA closes an #if left open at the end of its file; so do we. */
void oklc_pp_warn_unclosed(oklc_ctx *c, const Token *if_name)
{
    oklc_diag_warning(c, if_name->loc, "'#%.*s' is not closed; closed at the end of the file, as "
                                       "legacy OCCA does: add '#endif'",
                      (int)if_name->len, if_name->text);
}

/* At the end of an included file: its #if blocks are closed. Its last
 * line break stands for the #include line's, which is dropped. */
static void leave_file(PP *pp)
{
    Include *inc = pp->inc;
    Token *eof = inc->eof;
    if (eof->next && !in_builtin(pp, eof)) {
        size_t n = eof->lead_len;
        const char *lead = after_dropped_line(pp, eof->lead, &n);
        Buf *p = &pp->pending_lead;
        oklc_buf_putn(p, lead, n);
        if (p->len && p->data[p->len - 1] != '\n')
            oklc_buf_putc(p, '\n');
        pp->drop_nl = true;
    }
    for (Cond *c = pp->cond; c != inc->cond; c = c->prev)
        oklc_pp_warn_unclosed(pp->c, c->tok);
    pp->cond = inc->cond;
    pp->inc = inc->prev;
    pp->include_depth--;
}

/* ---- #line, #error, #pragma --------------------------------------------------------------- */

/* #line N ["file"] and GNU's "# N "file" flags". */
static Token *do_line(PP *pp, Token *hash, Token *t, bool gnu)
{
    oklc_ctx *c = pp->c;
    Token *next = skip_line(t);
    Token *x = expand_line(pp, t, NULL);
    uint64_t n = 0;
    bool u;
    const char *err, *why = NULL;
    if (x->kind != TK_NUMBER)
        why = "#line directive requires a positive integer argument";
    else if (strspn(x->text, "0123456789") < x->len)
        why = "#line directive requires a simple digit sequence";
    else if (!oklc_int_literal(x->text, x->len, &n, &u, &err) || n > INT_MAX)
        why = "line number out of range in #line directive";
    else if (n == 0)
        why = "#line directive requires a positive integer argument";
    if (why) {
        Diag *d = oklc_diag_error(c, x->kind == TK_EOF ? oklc_tok_end_loc(hash->next)
                                                       : oklc_tok_user_loc(x),
                                  "%s", why);
        oklc_tok_note_expansion(c, d, x);
        return next;
    }
    const char *name = NULL;
    if (oklc_tok_is_plain_string(x->next)) {
        name = oklc_arena_strndup(&c->arena, x->next->text + 1, x->next->len - 2);
        x = x->next;
    } else if (x->next->kind != TK_EOF) {
        Diag *d = oklc_diag_error(c, oklc_tok_user_loc(x->next),
                                  "invalid filename for #line directive");
        oklc_tok_note_expansion(c, d, x->next);
        return next;
    }
    if (!gnu && x->next->kind != TK_EOF)
        oklc_diag_warning(c, x->next->loc, "extra tokens at end of #line directive");

    /* The line after the directive gets number n: a new view of the file,
     * shifted, for every token that is left in it. */
    const FileView *cur = &c->views.data[hash->loc.file];
    uint32_t phys_next = next->kind == TK_EOF ? next->loc.line + 1 : next->loc.line;
    uint32_t old = hash->loc.file;
    if (next->kind != TK_EOF) {
        const Token *last = hash;
        for (const Token *y = hash; y != next; y = y->next)
            last = y;
        phys_next = last->loc.line + 1;
    }
    uint32_t view = oklc_view_new(c, cur->src, name ? name : cur->name,
                                  (int32_t)n - (int32_t)phys_next);
    for (Token *y = next; y; y = y->next) {
        if (y->loc.file == old)
            y->loc.file = view;
        if (pp->inc && y == pp->inc->eof)
            break;
    }
    return next;
}

static Token *do_message(PP *pp, Token *name, DiagLevel level)
{
    Token *t = name->next, *next = skip_line(t);
    size_t len;
    const char *text = oklc_tok_join(pp->c, t, next, &len);
    if (len)
        oklc_diag(pp->c, level, name->loc, "%.*s", (int)len, text);
    else
        oklc_diag(pp->c, level, name->loc, "#%s", level == DIAG_ERROR ? "error" : "warning");
    return next;
}

/* Pragma operands after the first word are macro-expanded when they use a
 * macro: the #define lines do not reach the output, so `#pragma unroll N`
 * must say the number. */
static Token *pragma_directive(PP *pp, Token *hash, Token *first, Token *end, bool raw_ok)
{
    oklc_ctx *c = pp->c;
    bool uses_macro = false;
    for (Token *t = first->next; t != end && !line_end(t); t = t->next)
        uses_macro |= oklc_macro_find(pp, t) != NULL;
    if (!uses_macro && raw_ok) {
        Token *next;
        return raw_line(pp, hash, &next);
    }
    Token *x = expand_line(pp, first->next, end);
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_printf(&b, "#pragma %.*s", (int)first->len, first->text);
    for (; x->kind != TK_EOF; x = x->next) {
        if (x->flags & TF_SPACE)
            oklc_buf_putc(&b, ' ');
        oklc_buf_putn(&b, x->text, x->len);
    }
    return directive_token(pp, hash, b.data, b.len);
}

static Token *do_pragma(PP *pp, Token *hash, Token *name)
{
    Token *t = name->next, *next = skip_line(t);
    if (t != next && oklc_tok_eq(t, "once")) {
        mark_once(pp, hash);
        keep_lead(pp, hash);
        return next;
    }
    if (t == next) {   /* an empty #pragma means nothing */
        keep_lead(pp, hash);
        return next;
    }
    emit(pp, pragma_directive(pp, hash, t, next, true));
    return next;
}

/* The string literal of _Pragma("...") or OKL("..."), its prefix and
 * quotes dropped and \" and \\ undone, lexed as code at t. */
static Token *destringize(PP *pp, const Token *t, const Token *str)
{
    const char *s = (const char *)memchr(str->text, '"', str->len) + 1;
    const char *e = str->text + str->len - 1;
    Buf b;
    oklc_buf_init(&b, &pp->c->arena);
    oklc_buf_puts(&b, "");
    for (; s < e; s++) {
        if (*s == '\\' && s + 1 < e && (s[1] == '"' || s[1] == '\\'))
            s++;
        oklc_buf_putc(&b, *s);
    }
    return oklc_lex_string(pp->c, b.data, b.len, oklc_tok_user_loc(t));
}

/* NAME ( "string" ): the string token, or NULL (and an error) when the
 * operand is not one parenthesized string literal. */
static Token *string_operand(PP *pp, Token *t, const char *name)
{
    Token *open = t->next;
    Token *str = oklc_tok_is_punct(open, P_LPAREN) ? open->next : open;
    Token *close = str->kind == TK_STRING ? str->next : str;
    if (oklc_tok_is_punct(open, P_LPAREN) && str->kind == TK_STRING && !(str->flags & TF_BAD) &&
        oklc_tok_is_punct(close, P_RPAREN))
        return str;
    Diag *d = oklc_diag_error(pp->c, oklc_tok_user_loc(t), "%s takes a parenthesized string "
                                                           "literal", name);
    oklc_tok_note_expansion(pp->c, d, t);
    return NULL;
}

/* _Pragma("text") anywhere in code: the same as a #pragma line. */
static Token *do_pragma_op(PP *pp, Token *t)
{
    Token *str = string_operand(pp, t, "_Pragma");
    if (!str)
        return t->next;
    Token *close = str->next;
    Token *toks = destringize(pp, t, str);
    if (toks->kind == TK_EOF)
        return close->next;
    Token *end = toks;
    while (end->kind != TK_EOF)
        end = end->next;
    Token *d = pragma_directive(pp, t, toks, end, false);
    d->lead = t->lead;
    d->lead_len = t->lead_len;
    d->flags = (uint8_t)(t->flags | TF_BOL);
    d->exp = t->exp;
    emit(pp, d);
    return close->next;
}

/* OKL("code"), legacy OCCA's way to write OKL where a macro cannot (an
 * attribute in a macro's body): the code in its place, and a ';' right
 * after it dropped (OKL("@inner"); for (...) is @inner for (...)). The
 * code goes through the preprocessor like any other. */
static Token *do_okl_op(PP *pp, Token *t)
{
    Token *str = string_operand(pp, t, "OKL");
    if (!str)
        return t->next;
    Token *rest = str->next->next;
    if (oklc_tok_is_punct(rest, P_SEMI))
        rest = rest->next;
    Token *toks = destringize(pp, t, str);
    if (toks->kind == TK_EOF)
        return rest;
    toks->lead = t->lead;          /* the code is printed where OKL was */
    toks->lead_len = t->lead_len;
    toks->flags |= t->flags & (TF_SPACE | TF_BOL | TF_KEEPLEAD);
    Token *last = toks;
    while (last->next->kind != TK_EOF)
        last = last->next;
    last->next = rest;
    for (Token *k = toks; k != rest; k = k->next) {
        k->exp = t->exp;
        k->flags |= t->flags & TF_MACRO;
    }
    return toks;
}

/* ---- the driver ---------------------------------------------------------------------- */

static Token *directive(PP *pp, Token *hash)
{
    oklc_ctx *c = pp->c;
    Token *name = hash->next;
    if (line_end(name)) {               /* the null directive */
        keep_lead(pp, hash);
        return name;
    }
    if (name->kind == TK_NUMBER) {      /* GNU line marker: # 12 "file" */
        keep_lead(pp, hash);
        return do_line(pp, hash, name, true);
    }
    if (name->kind != TK_IDENT)
        goto invalid;
#define IS(s) oklc_tok_eq(name, s)
    if (IS("include") || IS("include_next"))
        return do_include(pp, hash, name);
    if (IS("pragma"))
        return do_pragma(pp, hash, name);
    keep_lead(pp, hash);
    if (IS("define"))
        return oklc_macro_define(pp, name);
    if (IS("undef"))
        return oklc_macro_undef(pp, name);
    if (IS("if") || IS("ifdef") || IS("ifndef"))
        return do_if(pp, hash, name);
    if (IS("elif") || IS("elifdef") || IS("elifndef") || IS("else"))
        return do_else(pp, hash, name);
    if (IS("endif"))
        return do_endif(pp, name);
    if (IS("line"))
        return do_line(pp, hash, name->next, false);
    if (IS("error"))
        return do_message(pp, name, DIAG_ERROR);
    if (IS("warning"))
        return do_message(pp, name, DIAG_WARNING);
    if (IS("ident") || IS("sccs"))
        return skip_line(name);
#undef IS
invalid:
    keep_lead(pp, hash);
    oklc_diag_error(c, name->loc, "invalid preprocessing directive #%.*s", (int)name->len,
                    name->text);
    return skip_line(name);
}

static void run(PP *pp, Token *t)
{
    oklc_ctx *c = pp->c;
    for (;;) {
        if ((c->max_errors && (size_t)c->nerrors >= c->max_errors) || pp->over_budget)
            return;
        if (t->kind == TK_EOF) {
            bool last = t->next == NULL;
            leave_file(pp);
            if (last) {
                emit(pp, t);
                return;
            }
            t = t->next;
            continue;
        }
        if (is_directive_start(t)) {
            t = directive(pp, t);
            continue;
        }
        if (oklc_macro_expand(pp, &t, t))
            continue;
        if (t->kind == TK_IDENT && oklc_tok_eq(t, "_Pragma")) {
            t = do_pragma_op(pp, t);
            continue;
        }
        if (t->kind == TK_IDENT && oklc_tok_eq(t, "OKL") && oklc_tok_is_punct(t->next, P_LPAREN)) {
            t = do_okl_op(pp, t);
            continue;
        }
        Token *next = t->next;
        emit(pp, t);
        t = next;
    }
}

PPResult *oklc_pp_run(oklc_ctx *c, const char *path, const char *text, size_t len)
{
    PP *pp = oklc_arena_alloc(&c->arena, sizeof *pp);
    pp->c = c;
    oklc_buf_init(&pp->pending_lead, &c->arena);
    oklc_macro_init(pp);

    PPResult *r = oklc_arena_alloc(&c->arena, sizeof *r);
    if (!text) {
        text = oklc_read_file(c, path, &len);
        if (!text) {
            oklc_diag_error(c, (Loc){0}, "cannot open '%s': %s", path, strerror(errno));
            return NULL;
        }
    }
    /* The main file first, so it is views[1] and __BASE_FILE__. */
    r->main_view = oklc_pp_add_buffer(c, path, text, len, false);
    char *bt = builtin_text(c), *ct = cmdline_text(c);
    uint32_t bv = oklc_pp_add_buffer(c, "<built-in>", bt, strlen(bt), true);
    uint32_t cv = oklc_pp_add_buffer(c, "<command line>", ct, strlen(ct), true);
    /* the user's intrinsics that are functions on this backend: before
     * the user's code, so the model sees them as the file's functions */
    const char *it = oklc_intrinsic_definitions(c);
    uint32_t iv = *it ? oklc_pp_add_buffer(c, "<intrinsics>", it, strlen(it), false) : 0;

    /* Entered in reverse: the built-ins run first, then the options. */
    Token *t = enter_file(pp, r->main_view, NULL);
    if (iv)
        t = enter_file(pp, iv, t);
    t = enter_file(pp, cv, t);
    t = enter_file(pp, bv, t);
    pp->include_depth = iv ? 3 : 2;    /* 0 in the main file, once the others are left */
    run(pp, t);

    r->toks = pp->out.data;
    r->ntoks = pp->out.len;
    c->pp = r;
    return c->nerrors ? NULL : r;
}
