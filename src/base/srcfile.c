/*
 * srcfile.c - source buffers and the positions diagnostics print.
 *
 * A SrcFile owns its text and a table of line starts; Loc values are computed
 * from (view, byte offset) by binary search in that table. Views add the
 * name and line shift of #line directives without copying the text.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"

SrcFile *oklc_src_new(oklc_ctx *c, const char *path, const char *text, size_t len,
                      bool builtin)
{
    Arena *a = &c->arena;
    SrcFile *f = oklc_arena_alloc(a, sizeof *f);
    f->path = oklc_arena_strdup(a, path);
    f->text = text;
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

char *oklc_read_file(oklc_ctx *c, const char *path, size_t *len)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return NULL;
    }
    /* No arena allocation while the FILE is open: running out of memory
     * jumps out of the stage and would leak it. Pipes and /proc files have
     * no size, so they are read into a temporary heap block first. */
    char *text = NULL, *tmp = NULL;
    size_t n = 0, cap = 0;
    if (S_ISREG(st.st_mode)) {
        cap = (size_t)st.st_size;
        text = oklc_arena_alloc(&c->arena, cap + 1);
    }
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    bool nomem = false;
    if (text) {
        n = fread(text, 1, cap, fp);
    } else {
        for (;;) {
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 16384;
                char *t = oklc_realloc(tmp, ncap);
                if (!t) {
                    nomem = true;
                    break;
                }
                tmp = t;
                cap = ncap;
            }
            size_t got = fread(tmp + n, 1, cap - n, fp);
            if (got == 0)
                break;
            n += got;
        }
    }
    bool ioerr = ferror(fp) != 0;
    fclose(fp);
    if (tmp) {
        if (!nomem && !ioerr) {
            /* Copying may run out of memory too; free tmp first on that path. */
            jmp_buf *saved = c->arena.oom;
            jmp_buf jb;
            c->arena.oom = &jb;
            if (setjmp(jb) == 0) {
                text = oklc_arena_strndup(&c->arena, tmp, n);
                c->arena.oom = saved;
            } else {
                c->arena.oom = saved;
                oklc_free(tmp);
                oklc_arena_oom(&c->arena);
            }
        }
        oklc_free(tmp);
    }
    if (nomem)
        oklc_arena_oom(&c->arena);
    if (ioerr) {
        errno = EIO;
        return NULL;
    }
    text[n] = 0;
    *len = n;
    return text;
}
