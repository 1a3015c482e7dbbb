/*
 * edits.c - an edit list over the normalized text, and its rendering.
 *
 * Edits are applied in text order. At one position, insertions that
 * belong to the text before it come first, then those that belong to the
 * text after it, then replacements (the widest first). An edit that starts
 * inside a range already replaced is dropped: the replacement was built
 * from the rendered parts, so it already holds them.
 *
 * Backends record an edit, render a part, record more, for every construct
 * of every kernel; so the edits stay in that order as they are recorded (a
 * skip list: O(log n) to record or take back one), and rendering a range
 * visits only the edits that start in it. The deletions of the [[...]]
 * specs (oklc_edits_drop_specs) are computed from the specs as a range is
 * rendered: a backend makes one edit list per kernel, and recording every
 * spec of the file in each would make a file of n kernels cost n^2.
 */
#include <assert.h>
#include <string.h>

#include <ctype.h>

#include "emit.h"

enum { MAX_LEVEL = 16 };     /* a quarter of the nodes go one level up: 4^16 edits */

struct EditNode {
    Edit      ed;
    int       nlev;
    EditNode *next[];        /* the next node on each of its levels */
};

void oklc_edits_init(Edits *e, Arena *a, const char *text, size_t len)
{
    memset(e, 0, sizeof *e);
    e->arena = a;
    e->text = text;
    e->len = len;
    e->head = oklc_arena_alloc(a, sizeof(EditNode) + MAX_LEVEL * sizeof(EditNode *));
    e->head->nlev = MAX_LEVEL;
    e->levels = 1;
    e->rng = 0x9e3779b9u;
}

/* Text order; at one position as the header comment says. */
static int compare_pos(const Edit *a, const Edit *b)
{
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;     /* the widest replacement first */
    return 0;
}

static int compare(const Edit *a, const Edit *b)
{
    int r = compare_pos(a, b);
    return r ? r : a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The last node of each level that comes before `key`. */
static void path_to(const Edits *e, const Edit *key, EditNode **update)
{
    EditNode *x = e->head;
    for (int l = e->levels - 1; l >= 0; l--) {
        while (x->next[l] && compare(&x->next[l]->ed, key) < 0)
            x = x->next[l];
        update[l] = x;
    }
}

static int random_level(Edits *e)
{
    int lv = 1;
    while (lv < MAX_LEVEL) {
        uint32_t x = e->rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        e->rng = x;
        if (x & 3)
            break;
        lv++;
    }
    return lv;
}

static void add(Edits *e, EditKind kind, uint32_t begin, uint32_t end, const char *text)
{
    Edit ed = {begin, end, kind, (uint32_t)e->log.len, oklc_arena_strdup(e->arena, text)};
    EditNode *update[MAX_LEVEL];
    path_to(e, &ed, update);
    int lv = random_level(e);
    for (; e->levels < lv; e->levels++)
        update[e->levels] = e->head;
    EditNode *n = oklc_arena_alloc(e->arena, sizeof *n + (size_t)lv * sizeof n->next[0]);
    n->ed = ed;
    n->nlev = lv;
    for (int l = 0; l < lv; l++) {
        n->next[l] = update[l]->next[l];
        update[l]->next[l] = n;
    }
    vec_push(e->arena, &e->log, n);
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
    return (uint32_t)e->log.len;
}

/* The newest edits go first, one by one; NULL in the log stands for the
 * specs' deletions. */
void oklc_edits_rewind(Edits *e, uint32_t mark)
{
    while (e->log.len > mark) {
        EditNode *n = e->log.data[--e->log.len], *update[MAX_LEVEL];
        if (!n) {
            e->specs = NULL;
            continue;
        }
        path_to(e, &n->ed, update);
        for (int l = 0; l < n->nlev; l++)
            update[l]->next[l] = n->next[l];
    }
}

/* A [[...]] that ends a declarator leaves with the blanks before it
 * ("float *m [[okl::dim(4)]],", "sh_t [[okl::shared]];"); one before what
 * it belongs to, with the blanks after it ("[[okl::outer]] for",
 * "{ [[okl::shared]] float s[8];", "* [[okl::restrict]] p"), so that an
 * edit at the start of that statement stays at its start. Specs in a row
 * go alike: as the last one ("[[okl::outer]] [[okl::max_inner_dims(64)]]
 * for"). The blanks
 * before it stop at the spec before it: that one ends in "]]". */
static Edit spec_edit(const Edits *e, size_t i)
{
    const SpecRange *s = &e->specs->specs[i];
    if (s->keep)
        return (Edit){s->off, s->end, EDIT_REPLACE, e->specs_seq, s->keep};
    const char *t = e->text;
    uint32_t b = s->off, end = s->end, next = end, last = i ? e->specs->specs[i - 1].end : 0;
    /* what the specs in a row stand before (a few: blanks are all it is) */
    for (size_t j = i + 1; j <= i + 16; j++) {
        while (next < e->len && (t[next] == ' ' || t[next] == '\t'))
            next++;
        if (j >= e->specs->nspecs || e->specs->specs[j].off != next)
            break;
        next = e->specs->specs[j].end;
    }
    if (next >= e->len || strchr(",;)=[]", t[next])) {
        while (b > last && (t[b - 1] == ' ' || t[b - 1] == '\t'))
            b--;
    } else {
        while (end < e->len && t[end] == ' ')
            end++;
    }
    return (Edit){b, end, EDIT_REPLACE, e->specs_seq, ""};
}

void oklc_edits_drop_specs(Edits *ed, const Normalized *nz)
{
    assert(!ed->specs && nz->text == ed->text);
    EditNode *none = NULL;
    ed->specs = nz;
    ed->specs_seq = (uint32_t)ed->log.len;
    vec_push(ed->arena, &ed->log, none);
}

/* The edits that start in [begin, end], in order: the recorded ones merged
 * with the specs' deletions. */
typedef struct Walk {
    const Edits    *e;
    const EditNode *node;      /* the next recorded edit */
    size_t          spec;      /* the next spec, while spec < nspecs */
    Edit            spec_ed;   /* its deletion */
    Edit            cur;       /* the deletion walk_next() gave */
    uint32_t        end;
} Walk;

static void next_spec(Walk *w, size_t i)
{
    w->spec = i;
    if (w->e->specs && i < w->e->specs->nspecs)
        w->spec_ed = spec_edit(w->e, i);
}

static void walk_start(Walk *w, const Edits *e, uint32_t begin, uint32_t end)
{
    const EditNode *x = e->head;
    for (int l = e->levels - 1; l >= 0; l--)
        while (x->next[l] && x->next[l]->ed.begin < begin)
            x = x->next[l];
    *w = (Walk){e, x->next[0], 0, {0}, {0}, end};
    size_t lo = 0, hi = e->specs ? e->specs->nspecs : 0;
    while (lo < hi) {     /* the first spec at or after begin */
        size_t mid = lo + (hi - lo) / 2;
        if (e->specs->specs[mid].off < begin)
            lo = mid + 1;
        else
            hi = mid;
    }
    next_spec(w, lo);
}

static const Edit *walk_next(Walk *w)
{
    const Edits *e = w->e;
    const Edit *n = w->node ? &w->node->ed : NULL;
    const Edit *s = e->specs && w->spec < e->specs->nspecs ? &w->spec_ed : NULL;
    if (s && n) {       /* equal positions: in the order of recording */
        int r = compare_pos(s, n);
        if (r > 0 || (r == 0 && n->seq < e->specs_seq))
            s = NULL;
    }
    const Edit *ed = s ? s : n;
    if (!ed || ed->begin > w->end)
        return NULL;
    if (!s) {
        w->node = w->node->next[0];
        return ed;
    }
    w->cur = *s;
    next_spec(w, w->spec + 1);
    return &w->cur;
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
    uint32_t pos = begin, replaced_to = UINT32_MAX;
    Walk w;
    walk_start(&w, e, begin, end);
    for (const Edit *ed; (ed = walk_next(&w));) {
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

static bool blank_between(const char *t, uint32_t b, uint32_t e)
{
    for (uint32_t i = b; i < e; i++)
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r')    /* \r: of a CRLF */
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

/* "*\/" would end the comment early and "/\*" makes compilers warn: a
 * backslash goes between their two characters. A control character (a line
 * break in a file name) is written as an octal escape, and a backslash as
 * two, so that the text reads as the body of a C string. */
const char *oklc_comment_text(Arena *a, const char *s)
{
    Buf b;
    oklc_buf_init(&b, a);
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '\\')
            oklc_buf_puts(&b, "\\\\");
        else if (ch < 0x20 || ch == 0x7f)
            oklc_buf_printf(&b, "\\%03o", ch);
        else
            oklc_buf_putc(&b, (char)ch);
        if ((ch == '*' && p[1] == '/') || (ch == '/' && p[1] == '*'))
            oklc_buf_putc(&b, '\\');
    }
    return b.data;
}

bool oklc_ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

bool oklc_names(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); n && p; p = strstr(p + 1, name))
        if ((p == text || !oklc_ident_char(p[-1])) && !oklc_ident_char(p[n]))
            return true;
    return false;
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
        const char *end = eol > line && eol[-1] == '\r' ? eol - 1 : eol;    /* CRLF */
        const char *p = line;
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        if (*p == '#') {
            const char *hash = p++;
            while (p < eol && (*p == ' ' || *p == '\t'))
                p++;
            if ((size_t)(end - p) >= n && !strncmp(p, name, n) && !oklc_ident_char(p[n])) {
                const char *args = oklc_arena_strndup(ed->arena, p + n, (size_t)(end - p - n));
                fn(ed, (Range){(uint32_t)(hash - t), (uint32_t)(end - t)}, args, data);
            }
        }
        line = *eol ? eol + 1 : eol;
    }
}
