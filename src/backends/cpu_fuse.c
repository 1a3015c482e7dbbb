/*
 * cpu_fuse.c - the @inner nests of a block fused into one, where the
 * @shared arrays between them only stage memory the kernel never writes.
 *
 * Takes a block after the split; gives its nests fused, written as OKL
 * into the second translation (Emit.relaid), true when written.
 *
 * A GPU block copies tiles of its inputs into @shared memory, a barrier,
 * then each thread reads the tile, the whole in a loop over the tiles:
 *
 *   @shared float s_A[16][16];  @exclusive float c;
 *   for (ty; @inner) for (tx; @inner) c = 0;
 *   for (int kt = 0; kt < N; kt += 16) {
 *     for (ty; @inner) for (tx; @inner) s_A[ty][tx] = A[(by * 16 + ty) * N + kt + tx];
 *     for (ty; @inner) for (tx; @inner) for (k...) c += s_A[ty][k] * ...;
 *   }
 *   for (ty; @inner) for (tx; @inner) C[...] = c;
 *
 * On a CPU the copy is work for nothing (the cache holds the tile), and
 * the pieces keep each thread's `c` in memory between them. Each read of
 * a staging array becomes the value its copy read, `s_A[ty][k]` the
 * expression `(float)(A[(by * 16 + ty) * N + kt + k])` (the copy's
 * threads replaced by the read's subscripts); then the block's nests, and
 * the loops around them, run as one nest, each thread's pieces in their
 * order, the @exclusive values its locals:
 *
 *   for (ty; @inner) for (tx; @inner) {
 *     float c;
 *     { c = 0; }
 *     for (int kt = 0; kt < N; kt += 16) { { for (k...) c += (float)(A[...]) * ...; } }
 *     { C[...] = c; }
 *   }
 *
 * which the interchange (cpu_interchange.c) runs with the threads inside
 * the loop, in tiles of rows. Written as OKL into the second translation
 * (E->relaid), like a split. Each thread computes what it computed, the
 * same operations in the same order: results bit for bit.
 *
 * Where the block's threads could see each other's work otherwise, it is
 * left as written:
 *  - the block's body is declarations (@shared arrays, @exclusive values,
 *    then values nothing in it writes), then @inner nests and plain for
 *    loops of them only (at least two nests; a split's { } around some of
 *    them, which goes where nothing else is left in it), none with a
 *    barrier, a @tile, an @atomic, a return, break, continue or goto (a
 *    barrier that ends a nest's body is a split's, cpu_split.c: the next
 *    translation sees the nests without it);
 *  - every nest has the same levels (iterators, bounds, axes) and is
 *    perfect; a loop's header is the same for every thread and nothing in
 *    its body writes what it reads;
 *  - each @shared array is a constant array the block fills once, by a
 *    statement of a nest's body (`s[j][i] = value;`, not under a
 *    condition, the nest's iterators as its subscripts, over exactly its
 *    extents: every element written; the copy goes, the nest's other
 *    statements stay), and reads in nests after that one in the same
 *    statements only; the value reads only arguments the kernel cannot write (const
 *    elements, not aliasing a written argument: one of them @restrict),
 *    the outer loops' and enclosing loops' iterators, values nothing
 *    writes and the copy's threads;
 *  - an argument the nests write is @restrict and used in one nest only
 *    (another thread's element is not read after a change); the other
 *    values they use from outside are not written in them;
 *  - it pays (walks_rows(), a cost estimate): no staged array of two or
 *    more dimensions is read with a thread's loop variable in a subscript
 *    other than the last, which in place would read its source a row at a
 *    time, unless the fused loop runs in tiles of rows whose threads share
 *    each row (rows_in_tiles(): the usual staged product of floats); the
 *    output says which in a comment.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

enum { MAX_LEVELS = 3, MAX_STAGES = 16 };

/* A @shared array filled by a copy. */
typedef struct Stage {
    const Var  *v;
    const Stmt *copy;            /* `v[j][i] = value`, in the innermost body of its nest */
    const Stmt *list;            /* the statements holding the nest */
    size_t      at;              /* its index there */
    Range       value;
    const Var  *iter[MAX_LEVELS];   /* the copy's iterator at each subscript */
    size_t      ndims;
    const char *type;            /* the element's type */
} Stage;

typedef struct Fuse {
    Cpu        *C;
    const Loop *levels[MAX_LEVELS];  /* the first nest's, outermost first */
    size_t      nlevels;
    size_t      nests;
    const Stmt *list;            /* the statements that hold the run */
    size_t      from;            /* its first */
    const Stmt *decls[64];       /* declarations of @shared and @exclusive variables */
    size_t      ndecls;
    Stage       stages[MAX_STAGES];
    size_t      nstages;
    Range       run;
    const Stmt *bare[8];         /* { } around the run whose braces go (nothing else left) */
    size_t      nbare;
} Fuse;

static Range range_of(const Stmt *list, size_t from)
{
    return (Range){list->kids[from]->range.begin, list->kids[list->nkids - 1]->range.end};
}

/* ---- the nests -------------------------------------------------------------------------- */

/* The innermost level's body of the nest `st` (a for of @inner levels,
 * perfectly nested), its levels in lv; NULL when it is not one. */
static const Stmt *nest_body(const Stmt *st, const Loop **lv, size_t *n)
{
    *n = 0;
    if (st->kind != ST_FOR || !st->loop || st->loop->kind != LOOP_INNER)
        return NULL;
    for (const Loop *l = st->loop;;) {
        if (*n == MAX_LEVELS || l->kind != LOOP_INNER || l->tile_part || !l->analyzed ||
            !l->node || !l->node->nkids)
            return NULL;
        lv[(*n)++] = l;
        const Stmt *b = l->node->kids[l->node->nkids - 1];
        if (!l->nkids)
            return b->kind == ST_COMPOUND ? b : NULL;
        if (l->nkids != 1)
            return NULL;
        if (b->kind == ST_COMPOUND && b->nkids == 1)
            b = b->kids[0];
        if (b->range.begin != l->kids[0]->stmt.begin)
            return NULL;
        l = l->kids[0];
    }
}

static bool same_level(const Loop *a, const Loop *b)
{
    return !strcmp(a->iter, b->iter) && !strcmp(a->start, b->start) &&
           !strcmp(a->bound, b->bound) && !strcmp(a->stride, b->stride) && a->cmp == b->cmp &&
           a->down == b->down && a->axis == b->axis && a->axis_given == b->axis_given;
}

/* Is the plain for f one the nests may run in, each thread running it:
 * `for (T k = init; cond; step)`, k changed only by the step (++k, k++,
 * --k, k--, k += e, k -= e), init, cond and e without memory reads, calls
 * (but of pure functions) or side effects, nothing in the body writing
 * what the header reads; the same for every thread (no @exclusive value). */
static bool uniform_loop(Fuse *F, const Stmt *f)
{
    Cpu *C = F->C;
    const Kernel *k = C->k;
    const Var *n = oklc_cpu_for_var(C, f);
    Range body = f->kids[f->nkids - 1]->range;
    if (!n || n->init_form != '=' || oklc_cpu_written_in(C, n, body) ||
        !oklc_cpu_pure(C, oklc_cpu_render(C, n->init), false))
        return false;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (oklc_refers_in(v, f->head) &&
            (oklc_cpu_exclusive(v) || v->shared || oklc_cpu_written_in(C, v, body)))
            return false;
    }
    const char *head = oklc_cpu_render(C, f->head), *cond = strchr(head, ';');
    const char *step = cond ? strchr(cond + 1, ';') : NULL;
    if (!step || !oklc_cpu_pure(C, oklc_arena_strndup(C->a, cond + 1,
                                                       (size_t)(step - cond - 1)), false))
        return false;
    step += strspn(step + 1, " \t\n") + 1;
    size_t len = strlen(n->name), m = strlen(step);
    while (m && isspace((unsigned char)step[m - 1]))
        m--;
    const char *s = oklc_arena_strndup(C->a, step, m);
    if ((!strncmp(s, "++", 2) || !strncmp(s, "--", 2)) && !strcmp(s + 2, n->name))
        return true;
    if (strncmp(s, n->name, len) || oklc_ident_char(s[len]))
        return false;
    s += len;
    s += strspn(s, " \t\n");
    if (!strcmp(s, "++") || !strcmp(s, "--"))
        return true;
    return (!strncmp(s, "+=", 2) || !strncmp(s, "-=", 2)) && oklc_cpu_pure(C, s + 2, false);
}

/* The statements inside st, a plain loop or a { } among the nests. */
static const Stmt *inside(const Stmt *st)
{
    return st->kind == ST_COMPOUND ? st : st->kids[st->nkids - 1];
}

/* Are statements [from, n) of `list` nests and loops of them (in { }
 * too)? Counts the nests. */
static bool items(Fuse *F, const Stmt *list, size_t from)
{
    for (size_t i = from; i < list->nkids; i++) {
        const Stmt *st = list->kids[i];
        const Loop *lv[MAX_LEVELS];
        size_t n;
        if (st->kind == ST_COMPOUND) {          /* a split's { } around its nests */
            if (!items(F, st, 0))
                return false;
            continue;
        }
        if (st->kind == ST_FOR && !st->loop) {
            const Stmt *b = st->nkids ? st->kids[st->nkids - 1] : NULL;
            if (!b || b->kind != ST_COMPOUND || !uniform_loop(F, st) || !items(F, b, 0))
                return false;
            continue;
        }
        const Stmt *body = nest_body(st, lv, &n);
        if (!body || oklc_cpu_has_jump(body, true))
            return false;
        if (!F->nests++) {
            memcpy(F->levels, lv, n * sizeof *lv);
            F->nlevels = n;
        }
        if (n != F->nlevels)
            return false;
        for (size_t j = 0; j < n; j++)
            if (!same_level(lv[j], F->levels[j]))
                return false;
    }
    return true;
}

/* ---- the staging arrays ------------------------------------------------------------------ */

static bool is_iter(Cpu *C, Range r, const Loop *l)
{
    const char *t = C->E->nz->text;
    size_t n = strlen(l->iter);
    uint32_t b = oklc_cpu_skip_blanks(t, r.begin, r.end);
    return r.end - b >= n && !strncmp(t + b, l->iter, n) &&
           oklc_cpu_skip_blanks(t, b + (uint32_t)n, r.end) == r.end;
}

/* A constant array's extents from its type ("float[16][16]"); their count. */
static size_t extents(const Var *v, int64_t *ext, size_t max)
{
    size_t k = 0;
    for (const char *s = strchr(v->type.spelling, '['); s; s = strchr(s + 1, '[')) {
        char *e;
        long long x = strtoll(s + 1, &e, 10);
        if (k == max || *e != ']' || x <= 0)
            return 0;
        ext[k++] = x;
    }
    return k;
}

/* Is every subscript in r one of an argument's (not of a global the
 * kernel may write)? */
static bool params_subscripted(Cpu *C, Range r)
{
    const char *t = C->E->nz->text;
    for (uint32_t p = r.begin; p < r.end; p++) {
        if (t[p] != '[')
            continue;
        uint32_t e = p;
        while (e > r.begin && isspace((unsigned char)t[e - 1]))
            e--;
        bool found = false;
        for (size_t i = 0; i < C->k->nparams && !found; i++)
            for (size_t j = 0; j < C->k->params[i]->nrefs; j++)
                found |= C->k->params[i]->refs[j].end == e &&
                         oklc_in_range(r, C->k->params[i]->refs[j].begin);
        if (!found)
            return false;
    }
    return true;
}

/* Does another variable of the run have v's name (the value, read in
 * its scope, would read that one)? */
static bool shadowed(const Fuse *F, const Var *v)
{
    for (size_t i = 0; i < F->C->k->nlocals; i++) {
        const Var *w = F->C->k->locals[i];
        if (w != v && !strcmp(w->name, v->name) && oklc_in_range(F->run, w->name_off))
            return true;
    }
    return false;
}

/* May the copy's value be read where the array is read (the same values,
 * the same memory)? It reads arguments the kernel cannot write, which no
 * written argument may alias, and values nothing in the run writes or
 * hides behind a name of its own. */
static bool movable_value(Fuse *F, const Stage *s, const Loop *const *lv)
{
    Cpu *C = F->C;
    const Kernel *k = C->k;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (!oklc_refers_in(v, s->value))
            continue;
        bool thread = false;
        for (size_t j = 0; j < F->nlevels; j++)
            thread |= v == oklc_cpu_iter_var(C, lv[j]);
        if (thread)
            continue;
        bool inside = oklc_in_range(F->run, v->name_off);    /* a loop's (uniform_loop) */
        if (v->shared || oklc_cpu_exclusive(v) || (inside && !v->loop_iter) ||
            (!inside && oklc_cpu_written_in(C, v, F->run)) || shadowed(F, v))
            return false;
        if ((v->type.pointer || v->type.array) && !oklc_cpu_unchanged_array(C, v))
            return false;
    }
    return params_subscripted(C, s->value) &&
           oklc_cpu_pure(C, oklc_cpu_render(C, s->value), true);
}

/* Is statement st of a nest's body `v[j][i] = value` for a @shared v of
 * the block? Fills s. */
static bool copy_of(Fuse *F, const Stmt *st, const Loop *const *lv, Stage *s)
{
    Cpu *C = F->C;
    const char *t = C->E->nz->text;
    for (size_t d = 0; st->kind == ST_EXPR && d < F->ndecls; d++)
        for (size_t j = 0; j < F->decls[d]->ndecls; j++) {
            const Var *v = F->decls[d]->decls[j];
            if (!v->shared || !v->nrefs)
                continue;
            size_t r = 0;
            while (r < v->nrefs && v->refs[r].begin != st->range.begin)
                r++;
            if (r == v->nrefs)
                continue;
            Range sub[MAX_LEVELS];
            int64_t ext[MAX_LEVELS];
            uint32_t end = 0;
            size_t n = oklc_cpu_subscripts(C, v->refs[r].end, sub, MAX_LEVELS, &end);
            if (!n || n != F->nlevels || extents(v, ext, MAX_LEVELS) != n)
                return false;
            *s = (Stage){.v = v, .copy = st, .ndims = n};
            bool used[MAX_LEVELS] = {false};
            for (size_t a = 0; a < n; a++) {
                size_t l = 0;
                while (l < n && !is_iter(C, sub[a], lv[l]))
                    l++;
                if (l == n || used[l] || !lv[l]->trips_known || lv[l]->ntrips != ext[a] ||
                    strcmp(lv[l]->start, "0") || strcmp(lv[l]->stride, "1") || lv[l]->down)
                    return false;
                used[l] = true;
                s->iter[a] = oklc_cpu_iter_var(C, lv[l]);
            }
            uint32_t q = oklc_cpu_skip_blanks(t, end, st->range.end);
            uint32_t e = st->range.end;
            while (e > q && (isspace((unsigned char)t[e - 1]) || t[e - 1] == ';'))
                e--;
            if (q + 1 >= e || t[q] != '=' || t[q + 1] == '=')
                return false;
            s->value = (Range){q + 1, e};
            const char *ty = v->type.spelling;
            s->type = oklc_arena_strndup(C->a, ty, strcspn(ty, "["));
            return movable_value(F, s, lv);
        }
    return false;
}

/* The copies in the nests of `list` (and of loops in it): statements of
 * a nest's body that fill a @shared array of the block. */
static void find_stages(Fuse *F, const Stmt *list, size_t from)
{
    for (size_t i = from; i < list->nkids; i++) {
        const Stmt *st = list->kids[i];
        if (!st->loop) {
            find_stages(F, inside(st), 0);
            continue;
        }
        const Loop *lv[MAX_LEVELS];
        size_t n;
        const Stmt *body = nest_body(st, lv, &n);
        for (size_t j = 0; j < body->nkids && F->nstages < MAX_STAGES; j++) {
            Stage *s = &F->stages[F->nstages];
            if (copy_of(F, body->kids[j], lv, s)) {
                s->list = list;
                s->at = i;
                F->nstages++;
            }
        }
    }
}

/* Is every use of the stage's array after its copy a read of one element
 * in a later statement of the copy's list? */
static bool reads_after(Fuse *F, const Stage *s)
{
    Cpu *C = F->C;
    Range later = {s->list->kids[s->at]->range.end,
                   s->list->kids[s->list->nkids - 1]->range.end};
    size_t copies = 0;
    for (size_t i = 0; i < s->v->nrefs; i++) {
        Range u = s->v->refs[i], sub[MAX_LEVELS];
        uint32_t end;
        if (u.begin == s->v->name_off)
            continue;
        if (u.begin == s->copy->range.begin) {
            copies++;
            continue;
        }
        if (!oklc_in_range(later, u.begin) ||
            oklc_cpu_subscripts(C, u.end, sub, MAX_LEVELS, &end) != s->ndims ||
            oklc_cpu_written_in(C, s->v, u))
            return false;
        if (oklc_cpu_assigned_at(C, end))
            return false;
        for (size_t j = 0; j < F->nstages; j++)
            for (size_t d = 0; d < s->ndims; d++)
                if (oklc_refers_in(F->stages[j].v, sub[d]))
                    return false;       /* a staged value as a subscript */
    }
    return copies == 1;
}

/* The read of the stage at u (with its subscripts, to `end`) as the copy's
 * value: its iterators replaced by the read's subscripts. */
static void forward(Fuse *F, const Stage *s, Range u, Edits *ed)
{
    Cpu *C = F->C;
    Range sub[MAX_LEVELS];
    uint32_t end = 0;
    oklc_cpu_subscripts(C, u.end, sub, MAX_LEVELS, &end);
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_printf(&b, "((%s)(", s->type);
    uint32_t p = s->value.begin;
    while (p < s->value.end) {
        const Var *it = NULL;
        Range at = {0, 0};
        for (size_t d = 0; d < s->ndims; d++)
            for (size_t r = 0; r < s->iter[d]->nrefs; r++) {
                Range x = s->iter[d]->refs[r];
                if (oklc_in_range(s->value, x.begin) && x.begin >= p &&
                    (!it || x.begin < at.begin)) {
                    it = s->iter[d];
                    at = x;
                }
            }
        uint32_t stop = it ? at.begin : s->value.end;
        oklc_buf_printf(&b, "%.*s", (int)(stop - p), C->E->nz->text + p);
        if (!it)
            break;
        for (size_t d = 0; d < s->ndims; d++)
            if (s->iter[d] == it)
                oklc_buf_printf(&b, "(%s)", oklc_edits_text(ed, sub[d].begin, sub[d].end));
        p = at.end;
    }
    oklc_buf_puts(&b, "))");
    oklc_edit_replace(ed, u.begin, end, b.data);
}

/* Is v the variable of a plain (not OKL) for loop? */
static bool plain_loop_var(const Kernel *k, const Var *v)
{
    if (!v->loop_iter)
        return false;
    for (size_t i = 0; i < k->nloops; i++)
        if (k->loops[i]->iter_off == v->name_off)
            return false;
    return true;
}

/* Does fusion pay? A staged array of two or more dimensions read with a
 * thread's loop variable in a subscript other than the last (`s_B[k][tx]`
 * in `for (k...) c += s_A[ty][k] * s_B[k][tx]`) would, read in place,
 * step through its source a row at a time: B[(kt + k) * N + ...], a new
 * row, far from the last, in every iteration of k. The copy reads each of
 * the tile's rows once, many at a time; in place the loop waits for each
 * (a 16 x 16 tiled product of doubles at N = 1536 ran twice as long fused,
 * docs/benchmarks.md). walks(): does the stage; walks_rows(): the first
 * that does, or NULL. */
static bool walks(Fuse *F, const Stage *s)
{
    Cpu *C = F->C;
    for (size_t r = 0; s->ndims > 1 && r < s->v->nrefs; r++) {
        Range u = s->v->refs[r], sub[MAX_LEVELS];
        uint32_t end = 0;
        if (u.begin == s->v->name_off || u.begin == s->copy->range.begin)
            continue;
        size_t n = oklc_cpu_subscripts(C, u.end, sub, MAX_LEVELS, &end);
        for (size_t d = 0; d + 1 < n; d++)
            for (size_t j = 0; j < C->k->nlocals; j++)
                if (plain_loop_var(C->k, C->k->locals[j]) &&
                    oklc_refers_in(C->k->locals[j], sub[d]))
                    return true;
    }
    return false;
}

static const Stage *walks_rows(Fuse *F)
{
    for (size_t i = 0; i < F->nstages; i++)
        if (walks(F, &F->stages[i]))
            return &F->stages[i];
    return NULL;
}

/* Is the body of nest `at` of `list` copies only (nothing left of it)? */
static bool copies_only(const Fuse *F, const Stmt *list, size_t at, const Stmt *body)
{
    size_t n = 0;
    for (size_t i = 0; i < F->nstages; i++)
        n += F->stages[i].list == list && F->stages[i].at == at;
    return n == body->nkids;
}

/* The plain loops among statements [from, n) of `list` (in { } too, not
 * inside a loop): their count, the last in *loop. */
static size_t plain_loops(const Stmt *list, size_t from, const Stmt **loop)
{
    size_t n = 0;
    for (size_t i = from; i < list->nkids; i++) {
        const Stmt *st = list->kids[i];
        if (st->kind == ST_COMPOUND)
            n += plain_loops(st, 0, loop);
        else if (!st->loop) {
            *loop = st;
            n++;
        }
    }
    return n;
}

/* The nests in `list` (in { } too) with more than copies in them: their
 * count (SIZE_MAX where a plain loop is among them), the last in *nest. */
static size_t working_nests(const Fuse *F, const Stmt *list, const Stmt **nest)
{
    size_t n = 0;
    for (size_t i = 0; i < list->nkids; i++) {
        const Stmt *st = list->kids[i];
        const Loop *lv[MAX_LEVELS];
        size_t levels, m = 0;
        if (st->kind == ST_COMPOUND)
            m = working_nests(F, st, nest);
        else if (!st->loop)
            return SIZE_MAX;
        else if (!copies_only(F, list, i, nest_body(st, lv, &levels))) {
            *nest = st;
            m = 1;
        }
        if (m == SIZE_MAX)
            return SIZE_MAX;
        n += m;
    }
    return n;
}

/* Will the fused tiles read the stage's source from a panel packed per
 * column of blocks (cpu_interchange.c's panel_of(), which it predicts)?
 * The copied value is one read of an argument, subscripted once with the
 * copy's threads, the run's loop variables, the column of blocks'
 * iterator and scalar arguments nothing writes; the @outer loops and the
 * reading nest's loop f allow it (oklc_cpu_panel_fits()). */
static bool packed(Fuse *F, const Stage *s, const Stmt *f)
{
    Cpu *C = F->C;
    const Kernel *k = C->k;
    const char *t = C->E->nz->text;
    Range v = oklc_cpu_trimmed(t, s->value.begin, s->value.end), sub[2];
    uint32_t p = v.begin, end = 0;
    while (p < v.end && oklc_ident_char(t[p]))
        p++;
    if (!oklc_cpu_panel_fits(C, F->levels[0], f) || p == v.begin ||
        oklc_cpu_subscripts(C, p, sub, 1, &end) != 1 || end != v.end)
        return false;
    const Var *col = oklc_cpu_iter_var(C, F->levels[0]->parent);
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *w = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        bool thread = false;
        for (size_t d = 0; d < s->ndims; d++)
            thread |= w == s->iter[d];
        if (!oklc_refers_in(w, sub[0]) || thread || w == col ||
            (w->loop_iter && oklc_in_range(F->run, w->name_off)))
            continue;
        if (w->kind != VAR_PARAM || w->type.pointer || w->type.array ||
            oklc_cpu_written_in(C, w, k->body))
            return false;
    }
    return true;
}

/* Where a stage walks rows (walks_rows()), will the fused nest's loop run
 * in tiles of rows, in blocks of its values where it is long
 * (cpu_interchange.c)? Then a tile reads each row of the source once for
 * all its rows of threads, and a block's rows stay in L1 for every tile:
 * what the copy was for (the usual staged product of floats fused and
 * tiled: 0.78-0.94 -> 0.92-1.02 of the expert's at 512, docs/benchmarks.md).
 * It takes a nest of two levels; one plain loop among the run's
 * statements (the fused nest's), a counted loop without an unroll hint;
 * in it, nests that only copy but one, whose thread's loop runs in tiles
 * and does nothing but update their values, a row of a tile at most 64
 * bytes (one AVX-512 vector: in doubles, 128 bytes, the fused product ran
 * slower than the staged one, 0.73-0.83 of the expert's against 0.91-1.10
 * at 512, 0.55-0.73 against 0.75 at 1536) or a stage whose rows the tiles
 * will read from a panel (packed()); each stage's source read in order
 * along a row of the tile (the copy's iterator of the array's last
 * subscript, which the tile's innermost threads take, a term added to the
 * source's last subscript only). */
static bool rows_in_tiles(Fuse *F)
{
    Cpu *C = F->C;
    const Stmt *loop = NULL, *reader = NULL, *body;
    const Loop *lv[MAX_LEVELS];
    size_t n;
    int64_t bytes;
    if (F->nlevels != 2 || plain_loops(F->list, F->from, &loop) != 1 ||
        !oklc_cpu_blockable(C, loop) || working_nests(F, inside(loop), &reader) != 1 ||
        !(body = nest_body(reader, lv, &n)) ||
        (bytes = oklc_cpu_tiled_sums(C, lv[n - 1])) == INT64_MAX)
        return false;
    for (size_t i = 0; i < F->nstages; i++) {
        const Stage *s = &F->stages[i];
        if (!oklc_cpu_in_order(C, s->iter[s->ndims - 1], s->value) ||
            (bytes > 64 && walks(F, s) && !packed(F, s, body->kids[0])))
            return false;
    }
    return true;
}

/* ---- the fused nest ----------------------------------------------------------------------- */

/* The nest of statements [from, n) of `list` (or of a loop among them)
 * that holds off, or NULL. */
static const Stmt *nest_of(const Stmt *list, size_t from, uint32_t off)
{
    for (size_t i = from; i < list->nkids; i++) {
        const Stmt *st = list->kids[i];
        if (!oklc_in_range(st->range, off))
            continue;
        return st->loop ? st : nest_of(inside(st), 0, off);
    }
    return NULL;
}

/* May the nests run one after the other per thread: the arguments they
 * write @restrict and used in one nest, the other values from outside
 * unchanged by them? */
static bool independent(Fuse *F)
{
    Cpu *C = F->C;
    const Kernel *k = C->k;
    if (oklc_cpu_has_atomic(C, F->run))
        return false;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (!oklc_refers_in(v, F->run) || oklc_in_range(F->run, v->name_off) ||
            oklc_cpu_exclusive(v))
            continue;
        bool staged = false;
        for (size_t j = 0; j < F->nstages; j++)
            staged |= F->stages[j].v == v;
        if (staged)
            continue;
        if (v->shared || oklc_cpu_written_in(C, v, F->run))
            return false;
        if (!(v->type.pointer || v->type.array) || v->type.element_const)
            continue;
        if (v->kind != VAR_PARAM || !v->restrict_)
            return false;
        const Stmt *one = NULL;           /* used in one nest only */
        for (size_t r = 0; r < v->nrefs; r++) {
            if (!oklc_in_range(F->run, v->refs[r].begin))
                continue;
            const Stmt *st = nest_of(F->list, F->from, v->refs[r].begin);
            if (!st || (one && one != st))
                return false;
            one = st;
        }
    }
    return true;
}

/* Statements [from, n) of `list` as the fused nest's body: each nest's
 * innermost body, loops around theirs. */
static void fused(Fuse *F, Edits *ed, const Stmt *list, size_t from, const char *ind, Buf *b)
{
    Cpu *C = F->C;
    for (size_t i = from; i < list->nkids; i++) {
        const Stmt *st = list->kids[i];
        if (st->kind == ST_COMPOUND) {
            fused(F, ed, st, 0, ind, b);
            continue;
        }
        if (!st->loop) {
            oklc_buf_printf(b, "%sfor (%s) {\n", ind, oklc_edits_text(ed, st->head.begin,
                                                                   st->head.end));
            fused(F, ed, st->kids[st->nkids - 1], 0, oklc_arena_printf(C->a, "%s  ", ind), b);
            oklc_buf_printf(b, "%s}\n", ind);
            continue;
        }
        const Loop *lv[MAX_LEVELS];
        size_t n;
        const Stmt *body = nest_body(st, lv, &n);
        if (copies_only(F, list, i, body))
            continue;
        oklc_buf_printf(b, "%s%s\n", ind, oklc_edits_text(ed, body->range.begin, body->range.end));
    }
}

static void write_fused(Fuse *F)
{
    Cpu *C = F->C;
    Emit *E = C->E;
    Edits *ed = oklc_cpu_relaid(C);
    for (size_t i = 0; i < F->nstages; i++) {
        const Stage *s = &F->stages[i];
        for (size_t r = 0; r < s->v->nrefs; r++)
            if (s->v->refs[r].begin != s->v->name_off &&
                s->v->refs[r].begin != s->copy->range.begin)
                forward(F, s, s->v->refs[r], ed);
        const char *t = C->E->nz->text;    /* the copy goes (its ';' too) */
        uint32_t end = oklc_cpu_skip_blanks(t, s->copy->range.end, (uint32_t)C->E->nz->len);
        oklc_edit_delete(ed, s->copy->range.begin, t[end] == ';' ? end + 1 : s->copy->range.end);
    }
    const Stmt *first = F->list->kids[F->from];
    uint32_t begin = first->loop ? oklc_emit_spec_of(E, F->levels[0]->attr)->off
                                 : first->range.begin;
    const char *ind = oklc_emit_indent(E, first->range.begin), *in = ind;
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_puts(&b, "/* the block's nests fused: its @shared copies read in place */\n");
    for (size_t i = 0; i < F->nlevels; i++) {
        oklc_buf_printf(&b, "%s%s\n", in, oklc_cpu_okl_level(C, ed, F->levels[i]));
        in = oklc_arena_printf(C->a, "%s  ", in);
    }
    for (size_t d = 0; d < F->ndecls; d++) {
        const Stmt *st = F->decls[d];
        for (size_t j = 0; j < st->ndecls; j++)
            if (!st->decls[j]->shared)
                oklc_buf_printf(&b, "%s%s\n", in, oklc_cpu_declare_alone(C, ed, st->decls[j]));
        oklc_edit_delete(ed, oklc_emit_stmt_start(E, st->range.begin), st->range.end);
    }
    fused(F, ed, F->list, F->from, in, &b);
    for (size_t i = 0; i < F->nbare; i++) {
        Range r = F->bare[i]->range;
        oklc_edit_delete(ed, r.begin, r.begin + 1);
        oklc_edit_delete(ed, r.end - 1, r.end);
    }
    for (size_t i = F->nlevels; i-- > 0;)
        oklc_buf_printf(&b, "%s%*s}%s", ind, (int)(2 * i), "", i ? "\n" : "");
    oklc_edit_replace(ed, begin, F->run.end, b.data);
}

/* The declarations of the block: @shared arrays and @exclusive values
 * (collected), then values nothing in the block writes. Returns the index
 * of the first other statement. */
static size_t declarations(Fuse *F, const Stmt *list, Range block)
{
    Cpu *C = F->C;
    size_t i = 0;
    for (; i < list->nkids && list->kids[i]->kind == ST_DECL; i++) {
        const Stmt *d = list->kids[i];
        bool kept = false, moved = false;
        for (size_t j = 0; j < d->ndecls; j++) {
            const Var *v = d->decls[j], *td = v->typedef_var;
            if (td && (td->shared || td->exclusive))
                return SIZE_MAX;                /* an OKL typedef's */
            if ((v->shared && v->type.array) ||
                (v->exclusive && !v->static_ && !v->thread_local_ &&
                 !strpbrk(v->type.spelling, "()")))
                moved = true;
            else if (!v->shared && !v->exclusive &&
                     !oklc_cpu_written_in(C, v, (Range){v->declarator_end, block.end}))
                kept = true;
            else
                return SIZE_MAX;
        }
        if (kept && moved)
            return SIZE_MAX;
        if (moved) {
            if (F->ndecls == OKLC_COUNTOF(F->decls))
                return SIZE_MAX;
            F->decls[F->ndecls++] = d;
        }
    }
    return i;
}

bool oklc_cpu_fuse(Cpu *C, const Block *blk)
{
    const Loop *o = blk->outer;
    if (o->tile_part || !o->node || !o->node->nkids || !blk->tops.len)
        return false;
    for (size_t i = 0; i < blk->tops.len; i++)
        if (blk->tops.data[i]->tile_part || !blk->tops.data[i]->node ||
            blk->tops.data[i]->node->has_barrier)
            return false;
    Fuse *F = oklc_arena_alloc(C->a, sizeof *F);
    *F = (Fuse){.C = C};
    const Stmt *list = o->node->kids[o->node->nkids - 1];
    Range block = list->range;
    size_t from;
    for (const Stmt *wrap = NULL;;) {
        size_t moved = F->ndecls;
        if (list->kind != ST_COMPOUND || (from = declarations(F, list, block)) >= list->nkids)
            return false;
        /* a { } holding only the run and what moves into it: the fused
         * nest stands alone in the block, as the pairs of blocks need */
        if (wrap && F->ndecls - moved == from && F->nbare < OKLC_COUNTOF(F->bare))
            F->bare[F->nbare++] = wrap;
        if (from + 1 == list->nkids && list->kids[from]->kind == ST_COMPOUND)
            wrap = list = list->kids[from];   /* { ... } around the nests (a split's) */
        else
            break;
    }
    F->list = list;
    F->from = from;
    F->run = range_of(list, from);
    if (!items(F, list, from) || F->nests < 2)
        return false;
    find_stages(F, list, from);
    if (!F->nstages)
        return false;
    for (size_t d = 0; d < F->ndecls; d++)
        for (size_t j = 0; j < F->decls[d]->ndecls; j++) {
            const Var *v = F->decls[d]->decls[j];
            bool staged = false;
            for (size_t s = 0; s < F->nstages; s++)
                staged |= F->stages[s].v == v && reads_after(F, &F->stages[s]);
            if (v->shared && !staged)
                return false;
        }
    if (!independent(F))
        return false;
    const Stage *rows = walks_rows(F);
    const bool tiled = rows && rows_in_tiles(F);
    const char *why = tiled  ? "the block's nests fused, the @shared copies read in place, a row "
                               "of each source at a time for the tile's rows of threads"
                      : rows ? oklc_arena_printf(C->a, "the block's nests not fused: read in "
                                                 "place, '%s' would come from its source a row "
                                                 "at a time in a thread's loop, not once for "
                                                 "a tile of rows (read in order in a counted "
                                                 "loop, a row of at most 64 bytes or packed "
                                                 "per column of blocks); the copy gathers each "
                                                 "tile once", rows->v->name)
                             : "the block's nests fused, the @shared copies read in place";
    if (tiled)
        rows = NULL;
    oklc_cpu_decision(C, (Range){o->header.begin + 1, o->header.end - 1}, !rows, why);
    if (rows) {
        const Loop *l0 = F->levels[0];
        oklc_edit_before(&C->E->ed, oklc_emit_spec_of(C->E, l0->attr)->off,
                         oklc_arena_printf(C->a, "/* %s */\n%s", why,
                                           oklc_emit_indent(C->E, l0->stmt.begin)));
        return false;
    }
    write_fused(F);
    return true;
}
