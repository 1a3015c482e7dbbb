/*
 * srcfile.c - source buffers and the positions diagnostics print.
 *
 * A SrcFile owns its text and a table of line starts; Loc values are computed
 * from (view, byte offset) by binary search in that table. Views add the
 * name and line shift of #line directives without copying the text.
 *
 * A bare CR ends a line, as in Clang (CRLF is one line end, its CR a
 * blank): a buffer that holds one gets a copy of its text with LF in its
 * place, the same length, so that every stage that splits lines, counts
 * them or ends a // comment knows only LF, and offsets and columns stay
 * those of the file. Files are read whole, up to OKLC_SRC_MAX bytes.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"

/* text, or a copy of it with each bare CR made an LF. */
static const char *lf_endings(Arena *a, const char *text, size_t len)
{
    const char *cr = memchr(text, '\r', len);
    while (cr && (size_t)(cr - text) + 1 < len && cr[1] == '\n')
        cr = memchr(cr + 1, '\r', len - (size_t)(cr + 1 - text));
    if (!cr)
        return text;
    char *t = oklc_arena_strndup(a, text, len);
    for (size_t i = (size_t)(cr - text); i < len; i++)
        if (t[i] == '\r' && (i + 1 == len || t[i + 1] != '\n'))
            t[i] = '\n';
    return t;
}

SrcFile *oklc_src_new(oklc_ctx *c, const char *path, const char *text, size_t len,
                      bool builtin)
{
    Arena *a = &c->arena;
    SrcFile *f = oklc_arena_alloc(a, sizeof *f);
    f->path = oklc_arena_strdup(a, path);
    f->text = text = lf_endings(a, text, len);
    f->len = len;
    f->is_builtin = builtin;

    uint32_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    f->line_starts = oklc_arena_alloc(a, n * sizeof(uint32_t));
    f->line_starts[0] = 0;
    f->nlines = 1;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            f->line_starts[f->nlines++] = (uint32_t)(i + 1);
    vec_push(a, &c->files, f);
    return f;
}

uint32_t oklc_view_new(oklc_ctx *c, SrcFile *f, const char *name, int32_t line_delta)
{
    if (c->views.len == 0) {
        FileView none = {0};
        vec_push(&c->arena, &c->views, none);    /* views[0]: no position */
    }
    FileView v = {f, name ? name : f->path, line_delta};
    vec_push(&c->arena, &c->views, v);
    return (uint32_t)(c->views.len - 1);
}

long long oklc_presumed_line(const oklc_ctx *c, Loc loc)
{
    if (!loc.file || loc.file >= c->views.len)
        return loc.line;
    return (long long)loc.line + c->views.data[loc.file].line_delta;
}

Loc oklc_src_loc(oklc_ctx *c, uint32_t view, uint32_t off)
{
    Loc loc = {view, 0, 0, off};
    if (view == 0 || view >= c->views.len)
        return loc;
    const SrcFile *f = c->views.data[view].src;
    uint32_t lo = 0, hi = f->nlines;    /* find the last line start <= off */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->line_starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    loc.line = lo + 1;
    loc.col = off - f->line_starts[lo] + 1;
    return loc;
}


/* Reads fp to its end into a heap block, in chunks: pipes, devices and
 * /proc files have no size (st_size 0) or not the one they give. `hint`:
 * the size the file says it has. NULL with errno set (EFBIG past OKLC_SRC_MAX,
 * ENOMEM, EIO) when it cannot. */
static char *read_all(FILE *fp, size_t hint, size_t *len)
{
    size_t n = 0, cap = hint + 1 < 16384 ? 16384 : hint + 1;
    char *buf = NULL;
    for (;;) {
        if (!buf || n == cap) {
            if (buf && cap > OKLC_SRC_MAX) {
                oklc_free(buf);
                errno = EFBIG;
                return NULL;
            }
            size_t ncap = !buf ? cap : cap > OKLC_SRC_MAX / 2 ? OKLC_SRC_MAX + 1 : cap * 2;
            char *t = oklc_realloc(buf, ncap);
            if (!t) {
                oklc_free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = t;
            cap = ncap;
        }
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap)    /* stdio reads short only at the end or on an error */
            break;
    }
    if (ferror(fp)) {
        oklc_free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

/* The heap block `tmp` copied into the arena, and freed even when memory
 * runs out while copying. */
static char *to_arena(oklc_ctx *c, char *tmp, size_t n)
{
    jmp_buf *saved = c->arena.oom;
    jmp_buf jb;
    char *volatile text = NULL;
    c->arena.oom = &jb;
    if (setjmp(jb) == 0)
        text = oklc_arena_strndup(&c->arena, tmp, n);
    c->arena.oom = saved;
    oklc_free(tmp);
    if (!text)
        oklc_arena_oom(&c->arena);
    return text;
}

/* No arena allocation while the FILE is open: running out of memory jumps
 * out of the stage and would leak it. */
char *oklc_read_file(oklc_ctx *c, const char *path, size_t *len)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return NULL;
    }
    size_t hint = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 0;
    if (hint > OKLC_SRC_MAX) {
        errno = EFBIG;
        return NULL;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *tmp = read_all(fp, hint, len);
    int err = errno;
    fclose(fp);
    if (!tmp && err == ENOMEM)
        oklc_arena_oom(&c->arena);
    errno = err;
    return tmp ? to_arena(c, tmp, *len) : NULL;
}

const MemFile *oklc_mem_file(oklc_ctx *c, const char *name)
{
    for (size_t i = c->mem_files.len; i-- > 0;)    /* a later one of a name wins */
        if (!strcmp(c->mem_files.data[i].name, name))
            return &c->mem_files.data[i];
    return NULL;
}
