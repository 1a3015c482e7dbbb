/*
 * edits.c - an edit list over the normalized text, and its rendering.
 *
 * Edits are applied in text order. At one position, insertions that
 * belong to the text before it come first, then those that belong to the
 * text after it, then replacements (the widest first). An edit that starts
 * inside a range already replaced is dropped: the replacement was built
 * from the rendered parts, so it already holds them.
 */
#include <stdlib.h>
#include <string.h>

#include <ctype.h>

#include "emit.h"

void oklc_edits_init(Edits *e, Arena *a, const char *text, size_t len)
{
    memset(e, 0, sizeof *e);
    e->arena = a;
    e->text = text;
    e->len = len;
}

static void add(Edits *e, EditKind kind, uint32_t begin, uint32_t end, const char *text)
{
    Edit ed = {begin, end, kind, (uint32_t)e->list.len, oklc_arena_strdup(e->arena, text)};
    vec_push(e->arena, &e->list, ed);
    e->sorted = false;
}

void oklc_edit_replace(Edits *e, uint32_t begin, uint32_t end, const char *text)
{
    add(e, EDIT_REPLACE, begin, end, text);
}

void oklc_edit_before(Edits *e, uint32_t at, const char *text)
{
    add(e, EDIT_BEFORE, at, at, text);
}

void oklc_edit_after(Edits *e, uint32_t at, const char *text)
{
    add(e, EDIT_AFTER, at, at, text);
}

uint32_t oklc_edits_mark(const Edits *e)
{
    return (uint32_t)e->list.len;
}

void oklc_edits_rewind(Edits *e, uint32_t mark)
{
    size_t n = 0;
    for (size_t i = 0; i < e->list.len; i++)
        if (e->list.data[i].seq < mark)
            e->list.data[n++] = e->list.data[i];
    e->list.len = n;
}

static int compare(const void *pa, const void *pb)
{
    const Edit *a = pa, *b = pb;
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;     /* the widest replacement first */
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Does the edit belong to [begin, end)? */
static bool inside(const Edit *ed, uint32_t begin, uint32_t end)
{
    switch (ed->kind) {
    case EDIT_AFTER: return ed->begin > begin && ed->begin <= end;
    case EDIT_BEFORE: return ed->begin >= begin && ed->begin < end;
    default: return ed->begin >= begin && ed->end <= end;
    }
}

void oklc_edits_render(Edits *e, uint32_t begin, uint32_t end, Buf *out)
{
    if (!e->sorted) {
        qsort(e->list.data, e->list.len, sizeof(Edit), compare);
        e->sorted = true;
    }
    uint32_t pos = begin, replaced_to = UINT32_MAX;
    /* the first edit at or after `begin` (edits are few per range) */
    size_t lo = 0, hi = e->list.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->list.data[mid].begin < begin)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < e->list.len; i++) {
        const Edit *ed = &e->list.data[i];
        if (ed->begin > end)
            break;
        if (!inside(ed, begin, end) || ed->begin < pos)
            continue;
        if (ed->kind == EDIT_AFTER && ed->begin == replaced_to)
            continue;     /* it belonged to the replaced text */
        oklc_buf_putn(out, e->text + pos, ed->begin - pos);
        oklc_buf_puts(out, ed->text);
        pos = ed->begin;
        if (ed->kind == EDIT_REPLACE) {
            pos = ed->end;
            replaced_to = ed->end;
        }
    }
    oklc_buf_putn(out, e->text + pos, end - pos);
}

const char *oklc_edits_text(Edits *e, uint32_t begin, uint32_t end)
{
    Buf b;
    oklc_buf_init(&b, e->arena);
    oklc_edits_render(e, begin, end, &b);
    return b.data ? b.data : "";
}

/* A [[...]] that ends a declarator leaves with the blanks before it
 * ("float *m [[okl::dim(4)]],", "sh_t [[okl::shared]];"); one before what
 * it belongs to, with the blanks after it ("[[okl::outer]] for",
 * "{ [[okl::shared]] float s[8];", "* [[okl::restrict]] p"), so that an
 * edit at the start of that statement stays at its start. */
void oklc_edits_drop_specs(Edits *ed, const Normalized *nz)
{
    const char *t = nz->text;
    uint32_t last = 0;          /* the end of the previous deletion */
    for (size_t i = 0; i < nz->nspecs; i++) {
        const SpecRange *s = &nz->specs[i];
        if (s->keep) {
            oklc_edit_replace(ed, s->off, s->end, s->keep);
            continue;
        }
        uint32_t b = s->off, e = s->end, next = e;
        while (next < nz->len && (t[next] == ' ' || t[next] == '\t'))
            next++;
        bool ends = next >= nz->len || strchr(",;)=[]", t[next]);
        if (ends) {
            while (b > last && (t[b - 1] == ' ' || t[b - 1] == '\t'))
                b--;
        } else {
            while (e < nz->len && t[e] == ' ')
                e++;
        }
        oklc_edit_replace(ed, b, e, "");
        last = e;
    }
}

static bool blank_between(const char *t, uint32_t b, uint32_t e)
{
    for (uint32_t i = b; i < e; i++)
        if (t[i] != ' ' && t[i] != '\t')
            return false;
    return true;
}

void oklc_edit_delete(Edits *ed, uint32_t begin, uint32_t end)
{
    const char *t = ed->text;
    uint32_t ls = begin, le = end;
    while (ls > 0 && t[ls - 1] != '\n')
        ls--;
    while (le < ed->len && t[le] != '\n')
        le++;
    if (blank_between(t, ls, begin) && blank_between(t, end, le) && le < ed->len)
        oklc_edit_replace(ed, ls, le + 1, "");
    else
        oklc_edit_replace(ed, begin, end, "");
}

bool oklc_ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

void oklc_edits_directives(Edits *ed, const char *name,
                           void (*fn)(Edits *ed, Range line, const char *args, void *data),
                           void *data)
{
    const char *t = ed->text;
    size_t n = strlen(name);
    for (const char *line = t; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        const char *p = line;
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        if (*p == '#') {
            const char *hash = p++;
            while (p < eol && (*p == ' ' || *p == '\t'))
                p++;
            if ((size_t)(eol - p) >= n && !strncmp(p, name, n) && !oklc_ident_char(p[n])) {
                const char *args = oklc_arena_strndup(ed->arena, p + n, (size_t)(eol - p - n));
                fn(ed, (Range){(uint32_t)(hash - t), (uint32_t)(eol - t)}, args, data);
            }
        }
        line = *eol ? eol + 1 : eol;
    }
}
