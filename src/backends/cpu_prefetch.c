/*
 * cpu_prefetch.c - the next block's rows of an array asked for while a
 * block runs. Called by cpu_interchange.c (a loop interchanged with the
 * threads) and by cpu.c (a block's part read up front, after the loops
 * are shaped); calls down to cpu_base.c and the expression trees of
 * analysis/.
 *
 * A spectral-element operator reads per element several rows of one array
 * (six geometric factors: G[e * 6 * Np + c * Np + n], each row 4 KiB), all
 * of them in each iteration of a thread's loop. A CPU's prefetcher follows
 * a stream within a page; each row is read once per block and the next
 * block's rows lie elsewhere, so every block starts its streams anew and
 * waits for memory. In each iteration of the loop interchanged with the
 * threads, the lines that iteration reads of each row are asked for one
 * block on (the same offsets in the next block): when the next block runs,
 * its rows are in the cache. Spread over the loop's iterations, not asked
 * for all at once at the start of a block, which stalled (bench/compare's
 * axhex on an AMD Zen 5, one core, from memory: 4-12% faster spread, 11%
 * slower all at once; docs/benchmarks.md).
 *
 * Where: the reads of a parameter that points to const, in the loop's
 * body, whose subscript is affine, with constant coefficients, in the
 * block's iterator (the innermost @outer loop, counting up by 1), the
 * loop's iterator and the threads' iterators (loops from 0 by 1), through
 * local variables that are never written. Priced: only where one
 * iteration of the loop reads two rows of the array or more, a page or
 * more apart, and the block's part of the array (the coefficient of the
 * block's iterator) holds all it reads: streams the prefetcher meets anew
 * in every block. One row (a block's contiguous part of an array), read
 * along the loop, the prefetcher follows by itself. And only at run time
 * where the blocks' parts of the array hold 8 MiB or more
 * (AHEAD_BYTES_MIN).
 *
 * The same for a block's part read up front (oklc_cpu_prefetch_part): an
 * operator whose first nest reads the element's part of an array, a page
 * or a few (q[e * Np + n], 4 KiB), and whose later nests compute from what
 * it read. The prefetcher stops at the page's end; nothing asks for the
 * next element's part until the next block reads it, and then every line
 * misses. After the nest that reads the part, the next block's part is
 * asked for, while the later nests compute (bench/compare's gradient on an
 * AMD Zen 4, one core, from memory: 0.84 of the hand-written speed before,
 * 1.01-1.07 after; axhex 8% faster again). Not where nothing follows the
 * reading nest: a kernel that only streams its blocks' parts (copy4) ran
 * 17-24% slower with the asking. The prelude's _occa_prefetch_part asks
 * only where the compiler targets an AMD Zen core: on an Intel Xeon the
 * asking made gradient 6-10% slower.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/expr.h"
#include "cpu.h"

enum { LINE_BYTES = 64, PAGE_BYTES = 4096, NVARS = 8, DEPTH_MAX = 8, ROWS_MAX = 16 };

/* The bytes a block's part read up front may span: a page (less, the
 * prefetcher goes on into the next block's part in the same page) to
 * four (more, the asking would be a long burst of its own). */
enum { PART_MIN = PAGE_BYTES, PART_MAX = 4 * PAGE_BYTES };

/* The bytes of the array over all blocks from which the lines are asked
 * for (a test at run time): where the array stays in the caches, asking
 * only costs (axhex with 64 elements, 1.5 MiB of G: 8% slower; with 512,
 * 12 MiB: the same; with 4096: 6-12% faster). */
#define AHEAD_BYTES_MIN "(8LL << 20)"

/* The largest offset and coefficient a row may have (in elements): the
 * arithmetic on rows then stays far from overflow. */
#define OFFSET_MAX ((int64_t)1 << 40)

/* c + sum k[i] * vars[i] */
typedef struct Lin {
    int64_t k[NVARS];
    int64_t c;
} Lin;

typedef struct Ctx {
    Cpu       *C;
    const Loop *block;        /* the innermost @outer loop */
    const Var *vars[NVARS];   /* 0: the block's iterator, 1: the loop's, then the threads'
                                 (a part: the loops around the read in the block) */
    int64_t    first[NVARS];  /* their first values (the threads': 0) */
    int64_t    trips[NVARS];  /* and counts */
    size_t     nvars;
    int        depth;         /* local variables substituted */
} Ctx;

/* A row read in one iteration of the loop: offsets lo..hi from
 * block * A + iteration * B. */
typedef struct Row {
    int64_t a, b, lo, hi;
} Row;

static bool lin(Ctx *x, const Expr *e, Lin *out);

/* The run-time test before the asking, written at offset `at` of the
 * block: the blocks' parts of the array (block loop `o`, `bytes` in each
 * part) hold AHEAD_BYTES_MIN or more. NULL where a local declared in the
 * block before `at` takes a name the count of blocks reads (`const int E
 * = 3;` under `e < E`): there the test would read the local. */
static const char *big_enough(Cpu *C, const Loop *o, int64_t bytes, uint32_t at)
{
    const char *count = oklc_cpu_op(C, o->trips_wide);
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (v->name_off > o->stmt.begin && v->name_off < at && oklc_names(count, v->name))
            return NULL;
    }
    return oklc_arena_printf(C->a, "if (%s * %lld >= %s)", count, (long long)bytes,
                             AHEAD_BYTES_MIN);
}

/* Does block loop `o` count up by 1 from its start (the next block is o + 1)? */
static bool by_one(const Loop *o)
{
    return o->analyzed && !o->tile_part && !o->down && !strcmp(o->stride, "1");
}

static bool lin_name(Ctx *x, uint32_t off, Lin *out)
{
    const Var *v = oklc_cpu_var_at(x->C, off);
    for (size_t i = 0; v && i < x->nvars; i++)
        if (x->vars[i] == v) {
            out->k[i] = 1;
            return true;
        }
    /* a local never written: its initializer */
    if (!v || v->kind != VAR_LOCAL || v->loop_iter || v->init_form != '=' || v->type.array ||
        v->type.pointer || x->depth >= DEPTH_MAX || oklc_cpu_written_in(x->C, v, x->C->k->body))
        return false;
    x->depth++;
    bool ok = lin(x, oklc_expr_parse(x->C->E->c, v->init), out);
    x->depth--;
    return ok;
}

/* out = a + s * b, false on overflow */
static bool add(const Lin *a, const Lin *b, int64_t s, Lin *out)
{
    bool over = __builtin_mul_overflow(b->c, s, &out->c) ||
                __builtin_add_overflow(a->c, out->c, &out->c);
    for (size_t i = 0; i < NVARS; i++)
        over |= __builtin_mul_overflow(b->k[i], s, &out->k[i]) ||
                __builtin_add_overflow(a->k[i], out->k[i], &out->k[i]);
    return !over;
}

static bool constant(const Lin *a)
{
    for (size_t i = 0; i < NVARS; i++)
        if (a->k[i])
            return false;
    return true;
}

/* e as c + sum k[i] * vars[i], or false */
static bool lin(Ctx *x, const Expr *e, Lin *out)
{
    Lin a = {0}, b = {0}, zero = {0};
    memset(out, 0, sizeof *out);
    switch (e->op) {
    case X_NUM:
        out->c = e->value;
        return true;
    case X_NAME:
        return lin_name(x, e->off, out);
    case X_NEG:
        return lin(x, e->a, &a) && add(&zero, &a, -1, out);
    case X_ADD:
    case X_SUB:
        return lin(x, e->a, &a) && lin(x, e->b, &b) &&
               add(&a, &b, e->op == X_ADD ? 1 : -1, out);
    case X_MUL:
        if (!lin(x, e->a, &a) || !lin(x, e->b, &b))
            return false;
        if (constant(&a))
            return add(&zero, &b, a.c, out);
        return constant(&b) && add(&zero, &a, b.c, out);
    default:
        return false;
    }
}

/* The reads of p in r as rows: the affine ones whose block coefficient is
 * positive (and no number past OFFSET_MAX); how many (at most max). */
static size_t rows_of(Ctx *x, const Var *p, Range r, Row *rows, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nrefs && n < max; i++) {
        Range sub;
        uint32_t end;
        Lin l;
        if (!oklc_in_range(r, p->refs[i].begin) ||
            oklc_cpu_subscripts(x->C, p->refs[i].end, &sub, 1, &end) != 1 ||
            !lin(x, oklc_expr_parse(x->C->E->c, sub), &l) || l.k[0] <= 0)
            continue;
        Row w = {l.k[0], l.k[1], l.c, l.c};
        bool over = false;
        for (size_t t = 2; t < x->nvars; t++) {
            int64_t span;
            over |= __builtin_mul_overflow(l.k[t], x->trips[t] - 1, &span) ||
                    __builtin_add_overflow(*(span < 0 ? &w.lo : &w.hi), span,
                                           span < 0 ? &w.lo : &w.hi);
        }
        if (!over && w.a <= OFFSET_MAX && w.lo >= -OFFSET_MAX && w.hi <= OFFSET_MAX &&
            w.b >= -OFFSET_MAX && w.b <= OFFSET_MAX)
            rows[n++] = w;
    }
    return n;
}

static int by_lo(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The rows of one block and iteration step merged where they touch (a
 * line apart at most); their number, or 0 where they do not all have the
 * same coefficients or reach past the block's part. */
static size_t merge(Row *rows, size_t n, int64_t line)
{
    qsort(rows, n, sizeof *rows, by_lo);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].a != rows[0].a || rows[i].b != rows[0].b)
            return 0;
        if (m && rows[i].lo <= rows[m - 1].hi + line) {
            if (rows[i].hi > rows[m - 1].hi)
                rows[m - 1].hi = rows[i].hi;
        } else {
            rows[m++] = rows[i];
        }
    }
    return m && rows[m - 1].hi - rows[0].lo < rows[0].a ? m : 0;
}

/* Two rows or more, one starting a page or more after another. */
static bool streams(const Row *rows, size_t m, int64_t page)
{
    for (size_t i = 1; i < m; i++)
        if (rows[i].lo - rows[i - 1].lo >= page)
            return true;
    return false;
}

/* Are the rows alike and evenly spaced? */
static bool even(const Row *rows, size_t m)
{
    for (size_t i = 2; i < m; i++)
        if (rows[i].lo - rows[i - 1].lo != rows[1].lo - rows[0].lo)
            return false;
    for (size_t i = 1; i < m; i++)
        if (rows[i].hi - rows[i].lo != rows[0].hi - rows[0].lo)
            return false;
    return true;
}

/* The lines of the rows, one block on, as statements (a line each): from
 * each row's first element, a line apart (every line of the row where the
 * array starts on a line, as the runtime allocates). */
static void ask(Cpu *C, const Ctx *x, const Var *p, const Row *rows, size_t m, int64_t line,
                const char *test, Buf *o)
{
    const char *at = oklc_arena_printf(C->a, "%s + ((long long)%s + 1) * %lld + %lldLL * %s",
                                       p->name, x->vars[0]->name, (long long)rows[0].a,
                                       (long long)rows[0].b, x->vars[1]->name);
    const char *each = oklc_arena_printf(C->a, "for (long long _occa_at = 0; _occa_at <= %lld; "
                                               "_occa_at += %lld)",
                                         (long long)(rows[0].hi - rows[0].lo), (long long)line);
    oklc_buf_printf(o, "%s {\n", test);
    if (even(rows, m)) {
        const char *lo = rows[0].lo ? oklc_arena_printf(C->a, " + %lld", (long long)rows[0].lo)
                                    : "";
        oklc_buf_printf(o, "  for (int _occa_row = 0; _occa_row < %zu; ++_occa_row) %s "
                           "_occa_prefetch(%s%s + %lldLL * _occa_row + _occa_at);\n",
                        m, each, at, lo, (long long)(rows[1].lo - rows[0].lo));
        oklc_buf_puts(o, "}\n");
        return;
    }
    for (size_t i = 0; i < m; i++)
        oklc_buf_printf(o, "  for (long long _occa_at = %lld; _occa_at <= %lld; _occa_at += %lld) "
                           "_occa_prefetch(%s + _occa_at);\n",
                        (long long)rows[i].lo, (long long)rows[i].hi, (long long)line, at);
    oklc_buf_puts(o, "}\n");
}

/* The innermost @outer loop around the nest, counting up by 1, else NULL. */
static const Loop *block_loop(const Loop *top)
{
    const Loop *o = top->parent;
    while (o && o->kind != LOOP_OUTER)
        o = o->parent;
    return o && by_one(o) ? o : NULL;
}

const char *oklc_cpu_prefetch(Cpu *C, const Loop *const *levels, size_t nlevels, const Stmt *f)
{
    Ctx x = {.C = C, .nvars = 2};
    x.block = block_loop(levels[0]);
    x.vars[0] = x.block ? oklc_cpu_iter_var(C, x.block) : NULL;
    x.vars[1] = oklc_cpu_for_var(C, f);
    if (!x.vars[0] || !x.vars[1] || nlevels + 2 > NVARS || !f->nkids)
        return "";
    Range body = f->kids[f->nkids - 1]->range;
    if (oklc_cpu_written_in(C, x.vars[1], body))
        return "";
    for (size_t i = 0; i < nlevels; i++) {
        const Loop *l = levels[i];
        if (!l->analyzed || !l->trips_known || l->ntrips < 1 || l->down ||
            strcmp(l->start, "0") || strcmp(l->stride, "1") ||
            !(x.vars[x.nvars] = oklc_cpu_iter_var(C, l)))
            return "";
        x.trips[x.nvars++] = l->ntrips;
    }
    Buf o;
    oklc_buf_init(&o, C->a);
    const char *names = "";
    for (size_t i = 0; i < C->k->nparams; i++) {
        const Var *p = C->k->params[i];
        const Shape *s = p->type.shape;
        if (!p->type.pointer || !p->type.element_const || !s || s->bytes <= 0 ||
            LINE_BYTES % s->bytes)
            continue;
        Row rows[ROWS_MAX * 4];
        size_t n = rows_of(&x, p, body, rows, ROWS_MAX * 4);
        int64_t line = LINE_BYTES / s->bytes;
        size_t m = n ? merge(rows, n, line) : 0;
        const char *test = m < 2 || m > ROWS_MAX || !streams(rows, m, PAGE_BYTES / s->bytes)
                               ? NULL
                               : big_enough(C, x.block, rows[0].a * s->bytes, f->range.begin);
        if (!test)
            continue;
        ask(C, &x, p, rows, m, line, test, &o);
        vec_push(C->a, &C->asked, p);
        names = oklc_arena_printf(C->a, "%s%s%s (%zu rows)", names, *names ? ", " : "", p->name,
                                  m);
    }
    if (!o.len)
        return "";
    const char *what = oklc_arena_printf(C->a, "the next block's rows of %s asked for in each "
                                               "iteration, where the blocks' parts of the array "
                                               "hold 8 MiB or more", names);
    oklc_cpu_decision(C, f->head, false, what);
    return oklc_arena_printf(C->a, "/* %s */\n%s", what, o.data);
}

/* ---- a block's part read up front ------------------------------------------------- */

/* The loops between the block's statement `st` and offset `off`, into
 * x->vars[1..]: attributed or plain for loops from a number by 1, of
 * known counts, whose iterators they never write; false where one is not. */
static bool loops_to(Ctx *x, const Stmt *st, uint32_t off)
{
    x->nvars = 1;
    for (;;) {
        const Stmt *in = NULL;
        for (size_t i = 0; i < st->nkids && !in; i++)
            if (oklc_in_range(st->kids[i]->range, off))
                in = st->kids[i];
        if (!in)
            return true;
        st = in;
        if (st->kind != ST_FOR)
            continue;
        const Loop *l = st->loop ? st->loop : st->plain;
        long long from;
        if (!l || !l->analyzed || l->tile_part || !l->trips_known || l->ntrips < 1 || l->down ||
            strcmp(l->stride, "1") || !oklc_cpu_literal(l->start, &from) || x->nvars == NVARS)
            return false;
        const Var *v = st->loop ? oklc_cpu_iter_var(x->C, l) : oklc_cpu_for_var(x->C, st);
        if (!v || !st->nkids || oklc_cpu_written_in(x->C, v, st->kids[st->nkids - 1]->range))
            return false;
        x->vars[x->nvars] = v;
        x->first[x->nvars] = from;
        x->trips[x->nvars++] = l->ntrips;
    }
}

/* The offsets from block * A that a read spans over the loops around it
 * (A: the block's coefficient) and how many elements it reads at most;
 * false past OFFSET_MAX. */
static bool span_of(const Ctx *x, const Lin *l, Row *w, int64_t *reads)
{
    *w = (Row){l->k[0], 0, l->c, l->c};
    *reads = 1;
    for (size_t t = 1; t < x->nvars; t++) {
        int64_t a, b;
        if (!l->k[t])
            continue;
        if (__builtin_mul_overflow(l->k[t], x->first[t], &a) ||
            __builtin_mul_overflow(l->k[t], x->first[t] + x->trips[t] - 1, &b) ||
            __builtin_add_overflow(w->lo, a < b ? a : b, &w->lo) ||
            __builtin_add_overflow(w->hi, a < b ? b : a, &w->hi) ||
            __builtin_mul_overflow(*reads, x->trips[t], reads))
            return false;
    }
    return w->a <= OFFSET_MAX && w->lo >= -OFFSET_MAX && w->hi <= OFFSET_MAX;
}

/* The top @inner loop of b that holds offset `at`, or b's count of them. */
static size_t top_at(const Block *b, uint32_t at)
{
    size_t i = 0;
    while (i < b->tops.len && !oklc_in_range(b->tops.data[i]->stmt, at))
        i++;
    return i;
}

/* The part of p that block b reads (offsets from block * part->a), where
 * every read of p in the block is in its top @inner loops, affine in the
 * block and the loops around it, with the same coefficient of the block;
 * the parts of two blocks apart, and at least half of it read. *last: the
 * last of those loops that reads it. */
static bool part_of(Ctx *x, const Block *b, const Stmt *body, const Var *p, Row *part,
                    size_t *last)
{
    size_t n = 0;
    *part = (Row){0};
    int64_t reads = 0;
    *last = 0;
    for (size_t i = 0; i < p->nrefs; i++) {
        uint32_t at = p->refs[i].begin, end;
        if (!oklc_in_range(body->range, at))
            continue;
        size_t top = top_at(b, at);
        Range sub;
        Lin l;
        Row w;
        int64_t r;
        if (top == b->tops.len || oklc_cpu_subscripts(x->C, p->refs[i].end, &sub, 1, &end) != 1 ||
            !loops_to(x, b->outer->node, at) || !lin(x, oklc_expr_parse(x->C->E->c, sub), &l) ||
            l.k[0] <= 0 || !span_of(x, &l, &w, &r) || (n && w.a != part->a) ||
            __builtin_add_overflow(reads, r, &reads))
            return false;
        if (!n++)
            *part = w;
        part->lo = w.lo < part->lo ? w.lo : part->lo;
        part->hi = w.hi > part->hi ? w.hi : part->hi;
        *last = top > *last ? top : *last;
    }
    return n && part->hi - part->lo < part->a && 2 * reads > part->hi - part->lo;
}

/* The body of b's @outer loop as a statement (its braces), or NULL. */
static const Stmt *block_body(const Block *b)
{
    const Stmt *st = b->outer->node;
    return st && st->nkids && st->kids[st->nkids - 1]->kind == ST_COMPOUND
               ? st->kids[st->nkids - 1]
               : NULL;
}

/* The statement of `body` after the nest `nest` when that is one of its
 * statements and another nest follows it, else NULL. */
static const Stmt *after_nest(const Block *b, const Stmt *body, size_t nest)
{
    const Stmt *st = b->tops.data[nest]->node;
    if (nest + 1 >= b->tops.len || !st || st->parent != body)
        return NULL;
    for (size_t i = 0; i + 1 < body->nkids; i++)
        if (body->kids[i] == st)
            return body->kids[i + 1];
    return NULL;
}

static bool asked(const Cpu *C, const Var *p)
{
    for (size_t i = 0; i < C->asked.len; i++)
        if (C->asked.data[i] == p)
            return true;
    return false;
}

void oklc_cpu_prefetch_part(Cpu *C, const Block *b)
{
    const Stmt *body = block_body(b);
    Ctx x = {.C = C, .nvars = 1};
    if (!body || !by_one(b->outer) || !(x.vars[0] = oklc_cpu_iter_var(C, b->outer)))
        return;
    for (size_t i = 0; i < C->k->nparams; i++) {
        const Var *p = C->k->params[i];
        const Shape *s = p->type.shape;
        Row part;
        size_t last;
        if (!p->type.pointer || !p->type.element_const || !s || s->bytes <= 0 ||
            LINE_BYTES % s->bytes || asked(C, p) || !part_of(&x, b, body, p, &part, &last))
            continue;
        int64_t bytes = (part.hi - part.lo + 1) * s->bytes;
        const Stmt *next = after_nest(b, body, last);
        const char *test = bytes < PART_MIN || bytes > PART_MAX || !next
                               ? NULL
                               : big_enough(C, b->outer, part.a * s->bytes, next->range.begin);
        if (!test)
            continue;
        const char *what = oklc_arena_printf(C->a, "the next block's part of %s (%lld bytes) "
                                                   "asked for after the nest that reads it, "
                                                   "where the blocks' parts of the array hold "
                                                   "8 MiB or more and the compiler targets an "
                                                   "AMD Zen core", p->name, (long long)bytes);
        const char *ind = oklc_emit_indent(C->E, b->tops.data[last]->stmt.begin);
        const char *ask = oklc_arena_printf(
            C->a, "%s for (long long _occa_at = %lld; _occa_at <= %lld; _occa_at += %d) "
                  "_occa_prefetch_part(%s + ((long long)%s + 1) * %lld + _occa_at);",
            test, (long long)part.lo, (long long)part.hi,
            (int)(LINE_BYTES / s->bytes), p->name, x.vars[0]->name, (long long)part.a);
        oklc_edit_before(&C->E->ed, next->range.begin,
                         oklc_arena_printf(C->a, "/* %s */\n%s%s\n%s", what, ind, ask, ind));
        oklc_cpu_decision(C, b->outer->node->head, false, what);
    }
}
