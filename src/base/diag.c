/*
 * diag.c - diagnostics: recorded by the stages, printed by the caller.
 *
 * Text format is clang's: "file:line:col: error: message", the source line,
 * and a caret under the column; notes follow their diagnostic. The JSON form
 * is one array of objects for tools and editors.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "base.h"

static Diag *make(oklc_ctx *c, DiagLevel lv, Loc loc, const char *fmt, va_list ap)
{
    Diag *d = oklc_arena_alloc(&c->arena, sizeof *d);
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_vprintf(&b, fmt, ap);
    d->level = lv;
    d->loc = loc;
    d->msg = b.data;
    return d;
}

static Diag *record(oklc_ctx *c, DiagLevel lv, Loc loc, const char *fmt, va_list ap)
{
    if (lv == DIAG_WARNING && c->werror)
        lv = DIAG_ERROR;
    Diag *d = make(c, lv, loc, fmt, ap);
    if (lv == DIAG_ERROR) {
        c->nerrors++;
        /* Past the limit an error still counts, but is not kept: a runaway
         * input must not bury the first, useful messages. The stages stop
         * once the limit is reached. */
        if (c->max_errors && (size_t)c->nerrors > c->max_errors)
            return d;
    } else if (lv == DIAG_WARNING) {
        c->nwarnings++;
    }
    *c->diags_tail = d;
    c->diags_tail = &d->next;
    return d;
}

Diag *oklc_diag(oklc_ctx *c, DiagLevel lv, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *d = record(c, lv, loc, fmt, ap);
    va_end(ap);
    return d;
}

Diag *oklc_diag_error(oklc_ctx *c, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *d = record(c, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    return d;
}

Diag *oklc_diag_warning(oklc_ctx *c, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *d = record(c, DIAG_WARNING, loc, fmt, ap);
    va_end(ap);
    return d;
}

void oklc_diag_note(oklc_ctx *c, Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *n = make(c, DIAG_NOTE, loc, fmt, ap);
    va_end(ap);
    Diag **p = &d->notes;
    while (*p)
        p = &(*p)->next;
    *p = n;
}

/* ---- queries ------------------------------------------------------------ */

int oklc_error_count(oklc_ctx *c)
{
    return c->nerrors;
}

static void fill_info(oklc_ctx *c, const Diag *d, oklc_diag_info *out)
{
    static const oklc_diag_level levels[] = {OKLC_NOTE, OKLC_WARNING, OKLC_ERROR};
    memset(out, 0, sizeof *out);
    out->level = levels[d->level];
    out->message = d->msg;
    if (d->loc.file && d->loc.file < c->views.len) {
        const FileView *v = &c->views.data[d->loc.file];
        out->file = v->name;
        out->line = (unsigned)oklc_presumed_line(c, d->loc);
        out->column = d->loc.col;
    }
}

/* Diagnostics and their notes, flattened: each note follows its parent. */
size_t oklc_diag_count(oklc_ctx *c)
{
    size_t n = 0;
    for (const Diag *d = c->diags; d; d = d->next) {
        n++;
        for (const Diag *m = d->notes; m; m = m->next)
            n++;
    }
    return n;
}

bool oklc_diag_get(oklc_ctx *c, size_t i, oklc_diag_info *out)
{
    for (const Diag *d = c->diags; d; d = d->next) {
        if (i == 0) {
            fill_info(c, d, out);
            return true;
        }
        i--;
        for (const Diag *m = d->notes; m; m = m->next, i--)
            if (i == 0) {
                fill_info(c, m, out);
                return true;
            }
    }
    return false;
}

/* ---- text --------------------------------------------------------------- */

static const char *level_name[] = {"note", "warning", "error"};
static const char *level_color[] = {"\033[1;30m", "\033[1;35m", "\033[1;31m"};

/* The physical source line of a position, without its newline. */
static const char *source_line(oklc_ctx *c, Loc loc, size_t *len)
{
    if (!loc.file || loc.file >= c->views.len || !loc.line)
        return NULL;
    const SrcFile *f = c->views.data[loc.file].src;
    if (f->is_builtin || loc.line > f->nlines)
        return NULL;
    const char *s = f->text + f->line_starts[loc.line - 1];
    const char *e = s;
    while (e < f->text + f->len && *e != '\n')
        e++;
    if (e > s && e[-1] == '\r')
        e--;
    *len = (size_t)(e - s);
    return s;
}

/* Where text goes: a FILE (printing allocates nothing, so it works after
 * memory ran out) or a Buf (oklc_diag_text). */
typedef struct Sink {
    FILE *out;
    Buf  *buf;
} Sink;

static void put(Sink *s, const char *text, size_t n)
{
    if (s->out)
        fwrite(text, 1, n, s->out);
    else
        oklc_buf_putn(s->buf, text, n);
}

static void putf(Sink *s, const char *fmt, ...) OKLC_PRINTF(2, 3);
static void putf(Sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (s->out)
        vfprintf(s->out, fmt, ap);
    else
        oklc_buf_vprintf(s->buf, fmt, ap);
    va_end(ap);
}

/* One diagnostic as text: its line, then the source line and a caret. */
static void format_one(oklc_ctx *c, const Diag *d, Sink *out, bool color)
{
    oklc_diag_info info;
    fill_info(c, d, &info);
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    if (info.file)
        putf(out, "%s%s:%u:%u: ", bold, info.file, info.line, info.column);
    else
        putf(out, "%soklc: ", bold);
    putf(out, "%s%s:%s%s %s%s\n", color ? level_color[d->level] : "", level_name[d->level],
         reset, bold, d->msg, reset);

    size_t len;
    const char *line = source_line(c, d->loc, &len);
    if (!line)
        return;
    put(out, line, strnlen(line, len));    /* as printf's %.*s: up to a NUL byte */
    put(out, "\n", 1);
    /* Keep tabs so the caret lines up with what the terminal shows above;
     * a chunk at a time: stderr has no buffer, and a line can be long. */
    size_t col = d->loc.col ? d->loc.col - 1 : 0;
    char pad[512];
    for (size_t i = 0, n = 0; i < col && i < len; i++) {
        pad[n++] = line[i] == '\t' ? '\t' : ' ';
        if (n == sizeof pad || i + 1 == col || i + 1 == len)
            put(out, pad, n), n = 0;
    }
    putf(out, "%s^%s\n", color ? "\033[1;32m" : "", reset);
}

static void print_one(oklc_ctx *c, const Diag *d, FILE *out, bool color)
{
    Sink s = {out, NULL};
    format_one(c, d, &s, color);
}

static void print_text(oklc_ctx *c, FILE *out, bool color)
{
    for (const Diag *d = c->diags; d; d = d->next) {
        print_one(c, d, out, color);
        for (const Diag *n = d->notes; n; n = n->next)
            print_one(c, n, out, color);
    }
    if (c->max_errors && (size_t)c->nerrors >= c->max_errors)
        fprintf(out, "oklc: fatal error: too many errors emitted (%zu), stopping now\n",
                c->max_errors);
}

/* ---- JSON --------------------------------------------------------------- */

static cJSON *json_one(oklc_ctx *c, const Diag *d)
{
    oklc_diag_info info;
    fill_info(c, d, &info);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "level", level_name[d->level]);
    if (info.file) {
        cJSON_AddStringToObject(o, "file", info.file);
        cJSON_AddNumberToObject(o, "line", info.line);
        cJSON_AddNumberToObject(o, "column", info.column);
    }
    cJSON_AddStringToObject(o, "message", d->msg);
    return o;
}

static void print_json(oklc_ctx *c, FILE *out)
{
    cJSON *arr = cJSON_CreateArray();
    for (const Diag *d = c->diags; d; d = d->next) {
        cJSON *o = json_one(c, d);
        if (d->notes) {
            cJSON *notes = cJSON_AddArrayToObject(o, "notes");
            for (const Diag *n = d->notes; n; n = n->next)
                cJSON_AddItemToArray(notes, json_one(c, n));
        }
        cJSON_AddItemToArray(arr, o);
    }
    char *s = cJSON_Print(arr);
    if (s) {
        fprintf(out, "%s\n", s);
        cJSON_free(s);
    }
    cJSON_Delete(arr);
}

void oklc_diag_print(oklc_ctx *c, FILE *out, oklc_diag_format fmt)
{
    if (fmt == OKLC_DIAG_JSON)
        print_json(c, out);
    else
        print_text(c, out, fmt == OKLC_DIAG_TEXT_COLOR);
}

static const char *text_of(oklc_ctx *c, const Diag *d)
{
    jmp_buf jb, *saved = c->arena.oom;
    Buf b = {0};
    c->arena.oom = &jb;
    if (setjmp(jb) == 0) {
        oklc_buf_init(&b, &c->arena);
        Sink sink = {NULL, &b};
        format_one(c, d, &sink, false);
    } else {
        b.data = NULL;      /* out of memory: no text */
    }
    c->arena.oom = saved;
    return b.data;
}

const char *oklc_diag_text(oklc_ctx *c, size_t i)
{
    for (const Diag *d = c->diags; d; d = d->next)
        for (const Diag *m = d; m; m = m == d ? d->notes : m->next)
            if (i-- == 0)
                return text_of(c, m);
    return NULL;
}

void oklc_diag_out_of_memory(oklc_ctx *c)
{
    if (c->oom)
        return;
    c->oom = true;
    c->oom_diag.level = DIAG_ERROR;
    c->oom_diag.msg = "out of memory";
    c->oom_diag.next = NULL;
    *c->diags_tail = &c->oom_diag;
    c->diags_tail = &c->oom_diag.next;
    c->nerrors++;
}
