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
