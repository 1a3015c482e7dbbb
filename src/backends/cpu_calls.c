/*
 * cpu_calls.c - a block's loops compiled as loops: GCC makes a loop that
 * only copies or sets memory (b[i] = a[i], s[t] = 0) a call of memcpy or
 * memset. Over a block's threads, a few hundred elements, that is a call
 * per block and loop, which costs more than the loop (a copy of 4
 * elements per thread: 1.2-1.5x slower on one core, docs/benchmarks.md).
 * The prelude's _occa_short_loops turns that off for a whole function
 * (GCC's attribute optimize("no-tree-loop-distribute-patterns")), and with
 * it the split of a loop that also does more (a memset and the loop that
 * remains), which pays: a kernel with such a loop keeps GCC's calls.
 *
 * The statements are read as written, conservatively: anything that may
 * be a store not of that form counts as more.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

typedef enum Store { NEUTRAL, FILL, OTHER } Store;

/* The statements of one loop's body (those of ifs and blocks in it
 * included, a nested loop one statement); levels: an @outer or @inner
 * loop is in it (a block's level, whose loops stay apart) */
typedef struct Body {
    const Stmt *loop;   /* the loop (NULL: the kernel's body) */
    int         fills, others;
    bool        levels;
} Body;

typedef struct Ref {
    uint32_t   at;
    const Var *v;
    uint32_t  *writes;   /* v's writes before each of its uses, and in all */
} Ref;

/* The walk: the kernel's uses of locals by offset and each local's writes
 * (lookups in log time, so the pass stays linear in the kernel's size),
 * what it found. */
typedef struct Found {
    Cpu        *C;
    Ref        *refs;
    size_t      nrefs;
    bool        split;   /* an @inner loop has a barrier inside (locals in slots) */
    const Stmt *pure;    /* a loop in a block's threads that only copies or sets memory */
    const Stmt *mixed;   /* a loop that copies or sets memory and does more */
} Found;

static int by_offset(const void *a, const void *b)
{
    uint32_t x = ((const Ref *)a)->at, y = ((const Ref *)b)->at;
    return (x > y) - (x < y);
}

static void index_refs(Found *f)
{
    const Kernel *k = f->C->k;
    for (size_t i = 0; i < k->nlocals; i++)
        f->nrefs += k->locals[i]->nrefs;
    f->refs = oklc_arena_alloc(f->C->a, (f->nrefs + 1) * sizeof *f->refs);
    size_t n = 0;
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        uint32_t *writes = oklc_arena_alloc(f->C->a, (v->nrefs + 1) * sizeof *writes);
        for (size_t j = 0; j < v->nrefs; j++) {
            writes[j + 1] = writes[j] + oklc_cpu_written_at(f->C, v->refs[j]);
            f->refs[n++] = (Ref){v->refs[j].begin, v, writes};
        }
    }
    qsort(f->refs, n, sizeof *f->refs, by_offset);
    for (size_t i = 0; i < k->nloops; i++)
        f->split |= oklc_cpu_top_inner(k->loops[i]) && k->loops[i]->node &&
                    k->loops[i]->node->has_barrier;
}

static size_t first_ref(const Found *f, uint32_t off)
{
    return oklc_cpu_first_at(f->refs, f->nrefs, sizeof *f->refs, off);
}

/* v's first use at or after off */
static size_t first_use(const Var *v, uint32_t off)
{
    return oklc_cpu_first_at(v->refs, v->nrefs, sizeof *v->refs, off);
}

/* The local named at off, if any */
static const Var *local_at(const Found *f, uint32_t off)
{
    size_t i = first_ref(f, off);
    return i < f->nrefs && f->refs[i].at == off ? f->refs[i].v : NULL;
}

/* Does r name a local declared or written in loop (its iterator, a value
 * computed in it, an index stepped in it): an address that may move with
 * the loop? */
static bool moves_with(const Found *f, Range r, const Stmt *loop)
{
    if (!loop)
        return true;
    for (size_t i = first_ref(f, r.begin); i < f->nrefs && f->refs[i].at < r.end; i++) {
        const Ref *u = &f->refs[i];
        if (oklc_in_range(loop->range, u->v->name_off) ||
            u->writes[first_use(u->v, loop->range.end)] >
                u->writes[first_use(u->v, loop->range.begin)])
            return true;
    }
    return false;
}

/* r as `c ? yes : no` (at its top level)? */
static bool choice(const char *t, Range r, Range *yes, Range *no)
{
    int depth = 0, open = 0;
    uint32_t q = 0;
    for (uint32_t p = r.begin; p < r.end; p++) {
        if (strchr("([{", t[p]))
            depth++;
        else if (strchr(")]}", t[p]))
            depth--;
        else if (depth || (t[p] == ':' && (t[p + 1] == ':' || (p > r.begin && t[p - 1] == ':'))))
            continue;
        else if (t[p] == '?' && open++ == 0)
            q = p;
        else if (t[p] == ':' && open && --open == 0) {
            *yes = (Range){q + 1, p};
            *no = (Range){p + 1, r.end};
            return true;
        }
    }
    return false;
}

/* Is r a number, a name with subscripts (a[i], s[j][i]) or a per-thread
 * value (@exclusive: one slot per thread): a value a loop can set or copy
 * with memset or memcpy? */
static bool plain_value(const Found *f, Range r)
{
    const char *t = f->C->E->nz->text;
    r = oklc_cpu_trimmed(t, r.begin, r.end);
    Range yes, no;
    if (choice(t, r, &yes, &no))                /* c ? a : b, which a rewrite may make a */
        return plain_value(f, yes) && plain_value(f, no);
    uint32_t p = r.begin;
    if (p < r.end && (t[p] == '-' || t[p] == '+'))
        p++;
    if (p < r.end && (isdigit((unsigned char)t[p]) || t[p] == '.')) {
        for (p++; p < r.end; p++)
            if (!isalnum((unsigned char)t[p]) && t[p] != '.' &&
                !((t[p] == '+' || t[p] == '-') && strchr("eEpP", t[p - 1])))
                return false;
        return true;
    }
    if (p >= r.end || !(isalpha((unsigned char)t[p]) || t[p] == '_'))
        return false;
    uint32_t name = p;
    while (p < r.end && (isalnum((unsigned char)t[p]) || t[p] == '_'))
        p++;
    if (p == r.end) {
        const Var *v = local_at(f, name);
        return v && oklc_cpu_exclusive(v);
    }
    for (int depth = 0; p < r.end; p++) {
        if (t[p] == '[')
            depth++;
        else if (t[p] == ']')
            depth--;
        else if (!depth && !isspace((unsigned char)t[p]))
            return false;
    }
    return true;
}

/* Is v a kernel's local that lives in a register: a scalar of one
 * thread, not kept across a barrier (slots in memory)? */
static bool register_local(const Found *f, const Var *v, uint32_t at)
{
    return v && v->kind == VAR_LOCAL && !v->type.array && !oklc_cpu_exclusive(v) &&
           !v->shared && !(f->split && oklc_cpu_in_split(f->C, at));
}

/* An expression statement: `lhs = value` into memory that moves with
 * the loop (or a per-thread value) is a fill (or a copy); into a register
 * local nothing; anything else more. */
static Store expression(const Found *f, const Stmt *st, const Stmt *loop)
{
    const char *t = f->C->E->nz->text;
    Range r = oklc_cpu_trimmed(t, st->range.begin, st->range.end);
    if (r.end > r.begin && t[r.end - 1] == ';')
        r.end--;
    uint32_t eq = 0;
    int depth = 0;
    for (uint32_t p = r.begin; p < r.end; p++) {
        char c = t[p];
        if (strchr("([{", c))
            depth++;
        else if (strchr(")]}", c))
            depth--;
        else if (c == '"' || c == '\'' || (depth == 0 && c == '=' && eq))
            return OTHER;
        else if (depth == 0 && c == '=')
            eq = p;
        else if (depth == 0 && (c == '+' || c == '-') && t[p + 1] == c)
            return OTHER;                       /* ++, -- */
    }
    if (!eq || t[eq + 1] == '=' || strchr("!<>+-*/%&|^", t[eq - 1]))
        return OTHER;                           /* a call, ==, a compound assignment */
    Range lhs = oklc_cpu_trimmed(t, r.begin, eq);
    const Var *v = local_at(f, lhs.begin);
    bool whole = v && strlen(v->name) == lhs.end - lhs.begin;   /* v itself */
    if (whole && register_local(f, v, lhs.begin))
        return NEUTRAL;
    bool moves = (whole && oklc_cpu_exclusive(v)) || moves_with(f, lhs, loop);
    return moves && plain_value(f, (Range){eq + 1, r.end}) ? FILL : OTHER;
}

/* A declaration: a register local is nothing, an initialized array or
 * per-thread value a fill (or more, if computed). */
static Store declaration(const Found *f, const Stmt *st)
{
    Store s = NEUTRAL;
    for (size_t i = 0; i < st->ndecls; i++) {
        const Var *v = st->decls[i];
        if (register_local(f, v, v->name_off) || v->shared || !v->init_form)
            continue;
        if (v->type.array || (v->init_form == '=' && plain_value(f, v->init)))
            s = s == NEUTRAL ? FILL : s;
        else
            s = OTHER;
    }
    return s;
}

static void walk(const Stmt *st, Body *b, Found *f, bool threads);

/* A loop: its body a list of its own (in a block's threads from an
 * @inner loop that is not a flat @tile on); in the body around it a fill
 * if it only fills (GCC may unroll it there, or take the nest as one
 * call), else more. Only a counted loop can be a call. */
static void loop(const Stmt *st, Body *b, Found *f, bool threads)
{
    if (st->loop && st->loop->kind == LOOP_INNER)
        threads = !oklc_cpu_flat_tile(st->loop);
    else if (st->loop)
        threads = false;
    Body own = {st, 0, 0, false};
    for (size_t i = 0; i < st->nkids; i++)
        if (st->kind != ST_FOR || i + 1 == st->nkids)
            walk(st->kids[i], &own, f, threads);
    bool fills = own.fills && !own.others && !own.levels && st->kind == ST_FOR;
    b->fills += fills;
    b->others += !fills;
    b->levels |= own.levels || st->loop;
    if (own.fills && own.others && !own.levels && !f->mixed)
        f->mixed = st;
    else if (fills && threads && !f->pure)
        f->pure = st;
}

static void walk(const Stmt *st, Body *b, Found *f, bool threads)
{
    if (st->kind == ST_OTHER && st->nkids == 1) {   /* a loop with its #pragma */
        walk(st->kids[0], b, f, threads);
        return;
    }
    switch (st->kind) {
    case ST_COMPOUND:
    case ST_IF:
        for (size_t i = 0; i < st->nkids; i++)
            walk(st->kids[i], b, f, threads);
        return;
    case ST_FOR:
    case ST_WHILE:
    case ST_DO:
        loop(st, b, f, threads);
        return;
    case ST_EXPR: {
        Store s = expression(f, st, b->loop);
        b->fills += s == FILL;
        b->others += s == OTHER;
        return;
    }
    case ST_DECL: {
        Store s = declaration(f, st);
        b->fills += s == FILL;
        b->others += s == OTHER;
        return;
    }
    case ST_NULL:                               /* a barrier parts loops: both sides count */
        return;
    default:                                    /* switch, return, break, goto, ... */
        b->others++;
        for (size_t i = 0; i < st->nkids; i++)
            walk(st->kids[i], &(Body){NULL, 0, 0, false}, f, threads);
        return;
    }
}

void oklc_cpu_short_loops(Cpu *C)
{
    if (!C->k->root)
        return;
    Found f = {.C = C};
    index_refs(&f);
    walk(C->k->root, &(Body){NULL, 0, 0, false}, &f, false);
    if (!f.pure)
        return;
    if (f.mixed) {
        bool loop_for = f.mixed->kind == ST_FOR;   /* the decision names a for loop's header */
        oklc_cpu_decision(C, (loop_for ? f.mixed : f.pure)->head, false,
                          oklc_arena_printf(C->a, "GCC's calls of memcpy and memset kept (no "
                                            "_occa_short_loops): %s copies or sets memory "
                                            "and does more, which GCC may split into a "
                                            "call and the loop that remains (faster)",
                                            loop_for ? "this loop" : "a while loop of the kernel"));
        return;
    }
    oklc_cpu_decision(C, f.pure->head, false,
                      "a block's loop that only copies or sets memory: compiled as a "
                      "loop, not a call of memcpy or memset per block (_occa_short_loops)");
    oklc_edit_before(&C->E->ed, C->k->name_off, "_occa_short_loops ");
}
