/*
 * cpu.c - what the serial and OpenMP backends share: OKL's loops stay
 * loops, in their order, on one core or with the @outer loops on OpenMP
 * threads.
 *
 * This file is the driver: kernel() runs the passes in order, from one
 * list. Each pass is a file of its own (cpu_split.c, cpu_fuse.c,
 * cpu_interchange.c, cpu_shape.c, cpu_reduce.c; declared in cpu.h) and
 * calls only down, to cpu_base.c; nothing calls this file but the serial
 * and OpenMP tables. Takes the model of a kernel, gives the edits that
 * make it C++ for a CPU, and the entry points.
 *
 * On a CPU one @outer iteration (a block) runs its @inner loops one after
 * the other, each to completion, which satisfies every barrier between
 * them. What needs work:
 *
 *   @tile       a loop over tiles and a loop in the tile; the bound check
 *               is a precomputed end, so the element loop stays countable
 *               (and vectorisable)
 *   @exclusive  an array with one slot per @inner iteration (thread),
 *               indexed by the thread's position: x + X * (y + Y * z), as
 *               on a GPU, so values survive from one @inner loop to the next
 *   @barrier    inside an @inner loop: the loop is split at the barrier
 *               (every iteration runs the part before it first); loops and
 *               conditions around the barrier move out of the @inner loops,
 *               and locals that live across the split get one slot per
 *               iteration
 *   return      inside an @outer or @inner loop ends that iteration only
 *
 * With OpenMP, `#pragma omp parallel for` goes on each top-level @outer
 * loop (collapsed over a perfect rectangular @outer nest), @atomic becomes
 * `omp atomic` unless it updates memory that belongs to one block (a
 * @shared, @exclusive or local variable: one thread owns it) or is one
 * of a reduction (cpu_reduce.c), and a block is `omp critical`.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* ---- loops as CPU loops ---------------------------------------------------------- */

/* A @tile for statement: the loop over tiles around the loop in a tile. */
static void tile_loops(Cpu *C)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->tile_part != 1 || !l->analyzed || oklc_cpu_flat_tile(l))
            continue;
        const Loop *e = l->tile_other;
        const char *end = oklc_emit_tile_end(C->E, e);
        const char *ind = oklc_emit_indent(C->E, l->stmt.begin);
        Buf b;
        oklc_buf_init(&b, C->a);
        oklc_buf_printf(&b, "%s {\n%s  ", oklc_cpu_tile_head(C, l), ind);
        if (*end)
            oklc_buf_printf(&b, "%s\n%s  ", end, ind);
        oklc_buf_puts(&b, oklc_emit_tile_loop(C->E, e));
        oklc_edit_replace(&C->E->ed, l->stmt.begin, l->header.end, b.data);
        oklc_edit_after(&C->E->ed, l->stmt.end, oklc_arena_printf(C->a, "\n%s}", ind));
    }
}

/* ---- blocks, threads and slots -------------------------------------------------------- */

static void block_extents(Cpu *C, Block *b);

static void find_blocks(Cpu *C)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        Loop *l = C->k->loops[i];
        if (!oklc_cpu_top_inner(l))
            continue;
        Block *b = oklc_cpu_block_of(C, l->parent);
        if (!b) {
            b = oklc_arena_alloc(C->a, sizeof *b);
            b->outer = l->parent;
            b->extents_at = UINT32_MAX;
            vec_push(C->a, &C->blocks, b);
        }
        vec_push(C->a, &b->tops, l);
    }
    for (size_t i = 0; i < C->blocks.len; i++)
        block_extents(C, C->blocks.data[i]);
}

/* The threads of a block along each axis: the largest count of its
 * @inner loops on that axis (a number, or an expression computed once). */
typedef struct Counts {
    bool        used, unknown;
    int64_t     max;
    VEC(const char *) exprs;
} Counts;

static void count_inner(Cpu *C, const Loop *l, Counts *n)
{
    if (l->kind == LOOP_INNER && l->axis >= 0 && l->axis < 3) {
        Counts *c = &n[l->axis];
        c->used = true;
        if (l->trips_known) {
            if (l->ntrips > c->max)
                c->max = l->ntrips;
        } else {
            c->unknown = true;
            bool seen = false;
            for (size_t i = 0; i < c->exprs.len; i++)
                seen |= !strcmp(c->exprs.data[i], l->trips);
            if (!seen)
                vec_push(C->a, &c->exprs, l->trips);
        }
    }
    for (size_t i = 0; i < l->nkids; i++)
        count_inner(C, l->kids[i], n);
}

static void block_extents(Cpu *C, Block *b)
{
    Counts n[3];
    memset(n, 0, sizeof n);
    for (size_t i = 0; i < b->tops.len; i++)
        count_inner(C, b->tops.data[i], n);
    Buf decls;
    oklc_buf_init(&decls, C->a);
    for (int a = 0; a < 3; a++) {
        if (!n[a].used)
            continue;
        if (!n[a].unknown) {
            b->extent[a] =
                oklc_arena_printf(C->a, "%lld", (long long)(n[a].max > 0 ? n[a].max : 1));
            continue;
        }
        /* the largest of the counts, at least 1 */
        b->extent[a] = oklc_arena_printf(C->a, "_occa_threads_%c", "xyz"[a]);
        oklc_buf_printf(&decls, "long %s = %lld;", b->extent[a],
                        (long long)(n[a].max > 1 ? n[a].max : 1));
        for (size_t i = 0; i < n[a].exprs.len; i++) {
            const char *x = n[a].exprs.data[i];
            oklc_buf_printf(&decls, " if ((long)(%s) > %s) %s = %s;", x, b->extent[a],
                            b->extent[a], x);
        }
        oklc_buf_putc(&decls, ' ');
    }
    b->extent_decls = decls.data ? decls.data : "";
}

/* Where a local of the kernel is declared (for the availability checks). */
static bool declared_in(const Var *v, Range r)
{
    return oklc_in_range(r, v->name_off);
}

/* The extents must be computable where they are declared: the counts of
 * the @inner loops may use only what is declared before that point. */
static void check_extents(Cpu *C, Block *b)
{
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (v->name_off < b->extents_at)
            continue;
        for (size_t j = 0; j < C->k->nloops; j++) {
            const Loop *l = C->k->loops[j];
            if (l->kind != LOOP_INNER || l->trips_known || !oklc_cpu_in_block(b, l))
                continue;
            for (size_t r = 0; r < v->nrefs; r++)
                if (oklc_in_range(l->header, v->refs[r].begin) && !declared_in(v, l->header)) {
                    oklc_cpu_error(
                        C, v->refs[r].begin,
                        "on CPUs a block keeps one slot per @inner iteration from line %u "
                        "on, so the number of iterations must be known there; this count "
                        "uses '%s', declared later (line %u): declare it before",
                        oklc_model_line(C->E->c, b->extents_at), v->name,
                        oklc_model_line(C->E->c, v->name_off));
                    return;
                }
        }
    }
}

/* Declares the block's extents before the first thing that needs them. */
static void declare_extents(Cpu *C, Block *b)
{
    if (b->extents_at == UINT32_MAX || !*b->extent_decls)
        return;
    check_extents(C, b);
    oklc_edit_before(&C->E->ed, b->extents_at,
                     oklc_arena_printf(C->a, "%s\n%s", b->extent_decls,
                                       oklc_emit_indent(C->E, b->extents_at)));
}

/* ---- @exclusive variables: one slot per thread ---------------------------------------- */

/* The end of the subscript that follows a use ("f" in "f[k]"), or 0. */
static uint32_t subscript_end(Cpu *C, uint32_t off)
{
    const char *t = C->E->nz->text;
    size_t n = C->E->nz->len;
    while (off < n && isspace((unsigned char)t[off]))
        off++;
    if (off >= n || t[off] != '[' || (off + 1 < n && t[off + 1] == '['))
        return 0;
    int depth = 0;
    for (uint32_t i = off; i < n; i++) {
        if (t[i] == '[' || t[i] == '(' || t[i] == '{')
            depth++;
        else if ((t[i] == ']' || t[i] == ')' || t[i] == '}') && --depth == 0)
            return t[i] == ']' ? i + 1 : 0;
    }
    return 0;
}

/* An @exclusive array whose every use is subscripted gets the slot last
 * (f[k][slot]), so the @inner loop walks it with stride 1; others get it
 * first (e[slot]). */
static bool slot_last(Cpu *C, const Var *v)
{
    if (!v->type.array || v->init_form)
        return false;
    for (size_t r = 0; r < v->nrefs; r++)
        if (!subscript_end(C, v->refs[r].end))
            return false;
    return true;
}

static void exclusive_var(Cpu *C, Var *v)
{
    Block *b = v->loop ? oklc_cpu_block_of(C, v->loop) : NULL;
    if (!b)
        return;                   /* no @inner loop uses it */
    uint32_t at = v->decl_stmt ? v->decl_stmt->range.begin : v->range.begin;
    oklc_cpu_need_slots(b, at);
    bool last = slot_last(C, v);
    for (size_t r = 0; r < v->nrefs; r++) {
        const Loop *by_axis[3];
        uint32_t off = v->refs[r].begin;
        oklc_cpu_threads_at(C, b, off, by_axis);
        const Loop *inner = NULL;
        for (int a = 0; a < 3; a++)
            if (by_axis[a] && (!inner || by_axis[a]->level > inner->level))
                inner = by_axis[a];
        if (!inner) {
            oklc_cpu_error(C, off,
                           "@exclusive '%s' is used outside the @inner loops; each @inner "
                           "iteration has its own '%s', so use it inside them",
                           v->name, v->name);
            return;
        }
        if (inner->nkids) {
            oklc_cpu_error(
                C, off,
                "on CPUs @exclusive '%s' can only be used in the innermost @inner "
                "loops: here the @inner loop at line %u runs once for all the threads of "
                "the loops inside it",
                v->name, oklc_model_line(C->E->c, inner->stmt.begin));
            return;
        }
        const char *s = oklc_arena_printf(C->a, "[%s]", oklc_cpu_slot(C, b, by_axis));
        uint32_t end = last ? subscript_end(C, v->refs[r].end) : v->refs[r].end;
        oklc_edit_after(&C->E->ed, end, s);
    }
    const char *count = oklc_arena_printf(C->a, "[%s]", oklc_cpu_slot_count(C, b));
    oklc_edit_after(&C->E->ed, last ? v->declarator_end : v->name_off + (uint32_t)strlen(v->name),
                    count);
    if (v->init_form) {
        if (v->type.array) {
            oklc_cpu_error(C, v->init.begin,
                           "on CPUs an @exclusive array cannot have an initializer; "
                           "assign its elements in an @inner loop");
            return;
        }
        /* every thread starts with the value */
        oklc_edit_replace(&C->E->ed, v->declarator_end, v->range.end, "");
        uint32_t stmt_end = v->decl_stmt ? v->decl_stmt->range.end : v->range.end;
        oklc_edit_after(&C->E->ed, stmt_end,
                        oklc_arena_printf(C->a,
                                          " for (long _occa_s = 0; _occa_s < %s; "
                                          "++_occa_s) %s",
                                          oklc_cpu_slot_count(C, b),
                                          oklc_cpu_init_slot(C, v, v->name, "_occa_s")));
    }
}

/* ---- barriers that need nothing, returns --------------------------------------------- */

/* Between @inner loops a barrier is already satisfied: each loop ends
 * before the next starts. */
static void drop_barriers(Cpu *C)
{
    for (size_t i = 0; i < C->k->nbarriers; i++) {
        const Barrier *br = C->k->barriers[i];
        if (oklc_cpu_in_split(C, br->stmt.begin))
            continue;
        const Stmt *st = br->node;
        const SpecRange *spec = oklc_emit_spec_of(C->E, br->attr);
        if (st && st->parent && st->parent->kind == ST_COMPOUND && spec)
            oklc_emit_delete_stmt(C->E, spec->off, br->stmt.end);
    }
}

/* ---- OpenMP ----------------------------------------------------------------------------- */

/* OpenMP's loop form wants `T i = start`: T i{start} and T i(start) are
 * rewritten. */
static void canonical_init(Cpu *C, const Loop *l)
{
    const char *t = C->E->nz->text;
    uint32_t p = l->iter_off + (uint32_t)strlen(l->iter);
    while (p < l->init.end && isspace((unsigned char)t[p]))
        p++;
    if ((l->tile_part && !oklc_cpu_flat_tile(l)) || p >= l->init.end || t[p] == '=')
        return;
    oklc_edit_replace(
        &C->E->ed, l->init.begin, l->init.end,
        oklc_arena_printf(C->a, "%s %s = %s", oklc_emit_iter_type(C->E, l), l->iter, l->start));
}

/* The arrays kept for all of a thread's blocks of top-level @outer loop l
 * (cpu_counts.c, cpu_hoist.c), declared in a scope around the loop: the
 * text that opens it (NULL: none) and in *clause their names as an OpenMP
 * clause (each thread its own copy). The variables of its reductions of
 * one element (cpu_reduce.c) are declared there too, and flushed at its
 * end. */
static const char *scratch_around(Cpu *C, const Loop *l, const char **clause)
{
    Buf decls, names, flushes;
    oklc_buf_init(&decls, C->a);
    oklc_buf_init(&names, C->a);
    oklc_buf_init(&flushes, C->a);
    const char *ind = oklc_emit_indent(C->E, l->stmt.begin);
    for (size_t i = 0; i < C->scratch.len; i++) {
        const Scratch *s = &C->scratch.data[i];
        if (s->top != l)
            continue;
        oklc_buf_printf(&decls, "%s%s  %s", decls.len ? "\n" : "{\n", ind, s->decl);
        if (s->flush)   /* a reduction's variable: its clause is the reduction's */
            oklc_buf_printf(&flushes, "\n%s  %s", ind, s->flush);
        else
            oklc_buf_printf(&names, "%s%s", names.len ? ", " : "", s->name);
    }
    *clause = names.len ? oklc_arena_printf(C->a, " firstprivate(%s)", names.data) : "";
    if (!decls.len)
        return NULL;
    /* before what follows the nest, not after it: a nest rebuilt whole
     * (oklc_cpu_reorder_nest) drops what was inserted after its text */
    oklc_edit_before(&C->E->ed, l->stmt.end,
                     oklc_arena_printf(C->a, "%s\n%s}", flushes.len ? flushes.data : "", ind));
    return decls.data;
}

/* `#pragma omp parallel for` on the nest of top-level @outer loop l, with
 * its reductions (and the test before it that they need). */
static void parallel_loops(Cpu *C, const Loop *l, const Loop *const *order, size_t norder,
                           const char *reductions, const char *guard, const char *scope,
                           const char *privates)
{
    {
        int n = 1;
        if (norder && order[0] == l) {
            /* a reordered nest: collapse the first two when rectangular */
            if (norder > 1 && !oklc_cpu_header_uses(C, order[1], order[0]))
                n = 2;
        } else {
            const Loop *cur = l;
            canonical_init(C, l);
            while (cur->nkids == 1 && cur->kids[0]->kind == LOOP_OUTER &&
                   oklc_cpu_collapsible(C, cur, cur->kids[0])) {
                cur = cur->kids[0], n++;
                canonical_init(C, cur);
            }
        }
        const char *collapse = n > 1 ? oklc_arena_printf(C->a, " collapse(%d)", n) : "";
        const char *pragma =
            oklc_arena_printf(C->a, "#pragma omp parallel for%s%s%s", collapse, reductions,
                              privates);
        const char *ind = oklc_emit_indent(C->E, l->stmt.begin);
        if (guard)
            pragma = oklc_arena_printf(C->a, "if (%s)\n%s%s", guard, ind, pragma);
        if (scope)
            pragma = oklc_arena_printf(C->a, "%s\n%s%s", scope, ind, pragma);
        oklc_emit_pragma_before(C->E, l->attrs, l->nattrs, l->stmt.begin, pragma);
    }
}

/* Memory one block owns: declared inside the @outer loops, not reached
 * through a pointer. */
static bool block_private(const Var *v)
{
    return v && v->kind == VAR_LOCAL && v->loop && !(v->type.pointer && !v->type.array);
}

static void atomics(Cpu *C)
{
    for (size_t i = 0; i < C->k->natomics; i++) {
        const Atomic *at = C->k->atomics[i];
        if ((!at->block && block_private(at->target) &&
             (at->op != AT_ASSIGN || block_private(at->source))) ||
            oklc_cpu_reduced(C, at))
            continue;             /* one thread owns it (or a copy of it): nothing to do */
        const char *form;
        if (at->block || !at->scalar)
            form = "critical";
        else if (at->op == AT_ASSIGN && block_private(at->target))
            form = at->rhs_lvalue ? "atomic read" : "critical";
        else if (at->op == AT_ASSIGN && at->target && oklc_refers_in(at->target, at->rhs))
            form = "critical";          /* x = f(x): read and written at once */
        else if (at->op == AT_ASSIGN)
            form = "atomic write";
        else if (at->op == AT_OTHER || at->op == AT_MOD || at->op == AT_MIN || at->op == AT_MAX)
            form = "critical";
        else
            form = "atomic update";
        Attr *a = at->attr;
        oklc_emit_pragma_before(C->E, &a, 1, at->stmt.begin, oklc_arena_printf(C->a, "#pragma omp %s", form));
    }
}

/* ---- unrolling ----------------------------------------------------------------------------- */

/* GCC's spelling of an unroll hint, which Clang reads too: "unroll 4" ->
 * "GCC unroll 4"; a bare "unroll" (unroll fully) asks for the most. */
static const char *gcc_unroll(Cpu *C, const char *count)
{
    return oklc_arena_printf(C->a, "#pragma GCC unroll %s", count && *count ? count : "65534");
}

/* The author's unroll hints (`#pragma unroll n`, @unroll(n)) on the loops
 * the rule below decides: where each is (the '#', the loop's "for"), in
 * text order. The kernels' passes write them after the loop shapes are
 * chosen (unroll_level()); the file's pragmas and @unroll leave them out. */
typedef struct Hints {
    Cpu *file;                  /* for the pragmas' text */
    VEC(uint32_t) deferred;
} Hints;

static int by_offset(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static bool deferred(const Hints *h, uint32_t at)
{
    return h->deferred.len &&
           bsearch(&at, h->deferred.data, h->deferred.len, sizeof at, by_offset);
}

/* @unroll(n) on a loop, but for the rule's. */
static void unroll_attrs(Cpu *C, const Hints *h)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->unroll && l->tile_part != 2 && !deferred(h, l->stmt.begin))
            oklc_emit_pragma_before(C->E, l->attrs, l->nattrs, l->stmt.begin,
                          gcc_unroll(C, l->unroll->nargs ? l->unroll->args[0].text : NULL));
    }
}

/* [[cl::ivdep]] on a loop: GCC's ivdep (no dependence between any
 * iterations). [[cl::ivdep(len)]] allows dependences `len` iterations
 * apart, which GCC's pragma cannot say: that hint is dropped. */
static void ivdep_attrs(Cpu *C)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->ivdep && !l->ivdep->nargs && l->tile_part != 2)
            oklc_emit_pragma_before(C->E, l->attrs, l->nattrs, l->stmt.begin,
                                    "#pragma GCC ivdep");
    }
}

/* Loops around @inner loops with a constant count: a tree reduction's
 * `for (alive = 128; alive > 0; alive /= 2)` around an @inner loop that
 * adds s[t + alive]. GCC does not unroll a loop whose body holds loops;
 * unrolled whole, each copy of the @inner loops has constant bounds and
 * offsets, which vectorise without remainders (blockSum of bench/compare:
 * 1.3x faster). Limited to 16 iterations (GCC's own limit for unrolling a
 * loop whole), to loops whose iterator the body reads and does not write,
 * and to @inner loops of one level: in a nest of two (4 x 8 threads,
 * t = ty * 8 + tx < alive) the bounds of the copies depend on the outer
 * thread and are no constants, and the copies only make the code longer
 * (a random kernel's tree of 4 x 8 threads ran 1.10 times slower unrolled,
 * standalone, and 1.12-1.21 in diff_kernels -T, seed 7).
 *
 * The same rule decides an unroll hint of the author's (`#pragma unroll`,
 * @unroll) on such a loop, after the loop shapes are chosen. On a GPU the
 * hint unrolls one thread's code; on a CPU each copy is the whole nest of
 * thread loops. Around nests of two levels it is passed on as the author
 * asks (bench/kernels' axHex3D, whose loop over k stores r_Aq[k] beside
 * r_Aq[m], ran 2x slower without it, gradientMagnitude 1.1x), but not
 * around a nest that runs in tiles of rows (cpu_interchange.c), whose
 * sums and values read alike stay in registers and whose copies only
 * lengthen the code: bench/compare's gradient, `#pragma unroll 8` over k,
 * ran 1.10-1.25 times faster without it, serial and OpenMP (AMD Zen 5). */
enum { LEVELS_UNROLLED_MAX = 16 };

/* The loop of the OKL attributes on a statement, NULL for a loop that
 * has only others (@unroll) or for no loop. */
static const Loop *okl_loop(const Stmt *st)
{
    const Loop *l = st->loop;
    return l && (l->kind != LOOP_REGULAR || l->tile_part) ? l : NULL;
}

/* The OKL loops a statement holds: 1 for @inner loops only, -1 if an
 * @outer loop is among them, 0 if none. */
static int holds_inner(const Stmt *st)
{
    int found = 0;
    if (okl_loop(st))
        found = st->loop->kind == LOOP_OUTER ? -1 : 1;
    for (size_t i = 0; i < st->nkids && found >= 0; i++) {
        int k = holds_inner(st->kids[i]);
        found = k < 0 ? -1 : k > found ? k : found;
    }
    return found;
}

/* Does st hold an @inner loop inside another one? */
static bool nested_inner(const Stmt *st)
{
    if (st->loop && st->loop->kind == LOOP_INNER && st->loop->nkids)
        return true;
    for (size_t i = 0; i < st->nkids; i++)
        if (nested_inner(st->kids[i]))
            return true;
    return false;
}

/* Does r hold a nest that runs in tiles of rows (Cpu.tiled, Cpu.tiled_narrow)? */
static bool holds_tiles(const Range *tiled, size_t n, Range r)
{
    size_t i = oklc_cpu_first_at(tiled, n, sizeof *tiled, r.begin);
    return i < n && tiled[i].begin < r.end;
}

/* How a loop around @inner loops unrolls: not well, well, or well only
 * where the compiler targets AVX-512 (a nest in it as written there, in
 * tiles of rows without). */
typedef enum Unrolls { UNROLLS_NOT, UNROLLS_WELL, UNROLLS_WITH_AVX512 } Unrolls;

/* How a loop around @inner loops, in a block, unrolls (hinted: the author
 * asks for it)? *why says why, or why not. */
static Unrolls unrolls(Cpu *C, const Stmt *st, bool hinted, const char **why)
{
    Range body = {st->head.end, st->range.end};
    const Var *v = oklc_cpu_for_var(C, st);
    if (st->trips < 2 || st->trips > LEVELS_UNROLLED_MAX)
        *why = "its count is not a constant from 2 to 16";
    else if (!v || !oklc_refers_in(v, body))
        *why = "the copies of its @inner loops would be alike";
    else if (oklc_cpu_written_in(C, v, body))
        *why = "its iterator is written in the body";
    else if (!nested_inner(st)) {
        *why = "each copy of its @inner loops has constant bounds and offsets";
        return UNROLLS_WELL;
    } else if (!hinted)
        *why = "its @inner loops are a nest of two levels, whose copies only make the code "
               "longer";
    else if (holds_tiles(C->tiled.data, C->tiled.len, body))
        *why = "a nest in it runs in tiles of rows, whose copies only make the code longer";
    else if (holds_tiles(C->tiled_narrow.data, C->tiled_narrow.len, body)) {
        *why = "a nest in it runs in tiles of rows without AVX-512, whose copies only make the "
               "code longer; with AVX-512 the nest is as written and unrolled as the author "
               "asks";
        return UNROLLS_WITH_AVX512;
    } else {
        *why = "its @inner loops are a nest of two levels, unrolled as the author asks";
        return UNROLLS_WELL;
    }
    return UNROLLS_NOT;
}

/* A plain for loop in a block, outside @inner loops, around @inner loops
 * only: the loops the rule above decides. */
static bool around_inner(const Stmt *st, bool in_block)
{
    return in_block && st->kind == ST_FOR && !okl_loop(st) && holds_inner(st) == 1;
}

/* The loops the rule decides, in the statements in @outer loops outside
 * @inner loops: fn(C, st, hint, data) for each. */
static void each_level(Cpu *C, const Stmt *st, bool in_block,
                       void (*fn)(Cpu *C, const Stmt *st, Hint hint, void *data),
                       void *data)
{
    const Loop *l = okl_loop(st);
    if (l)
        in_block = l->kind == LOOP_OUTER;
    else if (around_inner(st, in_block))
        fn(C, st, oklc_cpu_unroll_hint(C, st), data);
    if (l && !in_block)
        return;
    for (size_t i = 0; i < st->nkids; i++)
        each_level(C, st->kids[i], in_block, fn, data);
}

/* Each loop the rule decides, after the loop shapes (the tiles of rows):
 * unrolled whole where it unrolls well and has no hint; the author's hint
 * passed on where it unrolls well, else a comment; the decision either
 * way. A compiler's own pragma stays as written. */
static void unroll_level(Cpu *C, const Stmt *st, Hint hint, void *data)
{
    (void)data;
    const char *why, *what;
    bool hinted = hint.at != UINT32_MAX;
    Unrolls how = unrolls(C, st, hinted, &why);
    bool well = how == UNROLLS_WELL;
    if ((hinted && !hint.count) || (!hinted && !well))
        return;
    Attr *const *attrs = hint.attr ? hint.attr->attrs : NULL;
    size_t nattrs = hint.attr ? hint.attr->nattrs : 0;
    if (!hinted) {
        what = "unrolled whole";
        oklc_emit_pragma_before(C->E, NULL, 0, st->range.begin,
                                gcc_unroll(C, oklc_arena_printf(C->a, "%d", (int)st->trips)));
    } else if (well) {
        what = "the author's unroll hint kept";
        oklc_emit_pragma_before(C->E, attrs, nattrs, st->range.begin, gcc_unroll(C, hint.count));
    } else {
        what = "the author's unroll hint not passed on";
        const char *written =
            hint.attr ? oklc_arena_printf(C->a, "@unroll%s%s%s", *hint.count ? "(" : "",
                                          hint.count, *hint.count ? ")" : "")
                      : oklc_arena_printf(C->a, "#pragma unroll%s%s", *hint.count ? " " : "",
                                          hint.count);
        const char *comment = oklc_arena_printf(C->a, "/* %s not passed on to the compiler: "
                                                      "%s */", written, why);
        if (how == UNROLLS_WITH_AVX512) {
            what = "the author's unroll hint kept when compiled for AVX-512, not passed on "
                   "without";
            comment = oklc_arena_printf(C->a, "#if defined(__AVX512F__)\n%s\n#else\n%s\n#endif",
                                        gcc_unroll(C, hint.count), comment);
        }
        oklc_emit_pragma_before(C->E, attrs, nattrs, st->range.begin, comment);
    }
    oklc_cpu_decision(C, st->head, false, oklc_arena_printf(C->a, "%s: %s", what, why));
}

static void unroll_levels(Cpu *C)
{
    if (C->tiled.len)
        qsort(C->tiled.data, C->tiled.len, sizeof *C->tiled.data, oklc_cpu_by_begin);
    if (C->tiled_narrow.len)
        qsort(C->tiled_narrow.data, C->tiled_narrow.len, sizeof *C->tiled_narrow.data,
              oklc_cpu_by_begin);
    if (C->k->root)
        each_level(C, C->k->root, false, unroll_level, NULL);
}

static bool rewrites_on(const Emit *E)
{
    /* counters sit in the plain translation: a rewrite moves parts of the
     * statements they wrap */
    return !E->c->no_cpu_rewrites && !E->c->count_ops;
}

/* Before any pass, over every kernel: the hints unroll_level() writes. */
static void defer_hint(Cpu *C, const Stmt *st, Hint hint, void *data)
{
    (void)st;
    if (hint.at != UINT32_MAX && hint.count)
        vec_push(C->a, &((Hints *)data)->deferred, hint.at);
}

static void find_deferred(Emit *E, Hints *h)
{
    for (size_t i = 0; i < E->m->nkernels && rewrites_on(E); i++) {
        Cpu C = {.E = E, .k = E->m->kernels[i], .a = &E->c->arena, .ok = true};
        if (C.k->root)
            each_level(&C, C.k->root, false, defer_hint, h);
    }
    if (h->deferred.len)
        qsort(h->deferred.data, h->deferred.len, sizeof *h->deferred.data, by_offset);
}

/* `#pragma unroll n` lines (CUDA's, which GCC ignores), anywhere in the
 * file: GCC's; left out where unroll_level() writes them. */
static void unroll_pragma(Edits *ed, Range line, const char *args, void *data)
{
    const Hints *h = data;
    const char *count = oklc_emit_unroll_count(args);
    if (count && deferred(h, line.begin))
        oklc_edit_delete(ed, line.begin, line.end);
    else if (count)
        oklc_edit_replace(ed, line.begin, line.end, gcc_unroll(h->file, count));
}

/* ---- the kernel ----------------------------------------------------------------------------- */

/* The tests a run makes before each nest (oklc_emit_launch_checks), as
 * `if (refused) _occa_refuse(...); else` before its loop: one statement
 * with the loop, wherever it is. Recorded first: the OpenMP pragma that
 * goes before the same loop comes after. */
static void launch_checks(Cpu *C)
{
    for (size_t i = 0; i < C->k->nouters; i++) {
        Loop *top = C->k->outers[i];
        const LaunchCheck *checks;
        size_t n = oklc_emit_launch_checks(C->E, C->k, top, &checks);
        Buf b;
        oklc_buf_init(&b, C->a);
        for (size_t j = 0; j < n; j++)
            oklc_buf_printf(&b, "%sif (%s) _occa_refuse(\"%s\", %s, %s); else", j ? " " : "",
                            checks[j].refused, checks[j].message, checks[j].a, checks[j].b);
        if (n)
            oklc_emit_pragma_before(C->E, top->attrs, top->nattrs, top->stmt.begin, b.data);
    }
}

/* "if (i == v) _occa_faults.mark(...);": v the value of loop l's
 * iterator (of its tiles' for a @tile's, whose stride is the tile's) at the
 * first iteration that the block's threads would not reach. */
static const char *fault_mark(Cpu *C, const Loop *top, const Loop *l)
{
    const char *max = oklc_cpu_op(C, oklc_emit_inner_max(top, l));
    const char *step = !strcmp(l->stride, "1") ? NULL : oklc_cpu_op(C, l->stride);
    const char *iter = l->tile_part == 1 ? oklc_arena_printf(C->a, "_occa_tiled_%s", l->iter)
                                         : l->iter;
    return oklc_arena_printf(C->a, " if (%s == %s %s %s%s%s) _occa_faults.mark(\"%s\");", iter,
                             oklc_cpu_op(C, l->start), l->down ? "-" : "+", step ? step : "",
                             step ? " * " : "", max, oklc_emit_fault(C->E, top, l));
}

/* for (int i = 0; ...): the iterator's declaration "= 0" in the loop's
 * header, or NULL. */
static const Var *iterator_init(const Cpu *C, const Loop *l)
{
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (v->name_off == l->iter_off)
            return v->init_form == '=' && oklc_in_range(l->init, v->init.begin) ? v : NULL;
    }
    return NULL;
}

/* The faults GPUs report (gpu.c fault_check) fail the run here too, for
 * the same behaviour everywhere, although a CPU runs every iteration: a
 * count above the block's threads marks the kernel's list (the prelude's
 * _occa_fault_list), which throws as the kernel returns. The test goes in
 * the iterator's initializer (`int i = (count > 64 ? mark : (void)0, 0)`),
 * once per loop and out of its body, which stays as fast (vectorized); in
 * a header of another form, and of a @tile's tiles (whose loop a CPU
 * writes itself), at the top of the body, where the first iteration past
 * the threads marks it: a test per iteration. A @tile's elements are as
 * many as its size, which is not the nest's. */
static void faults(Cpu *C)
{
    bool any = false;
    const char *text = C->E->nz->text;
    for (size_t i = 0; i < C->k->nouters; i++)
        for (size_t j = 0; j < C->k->nloops; j++) {
            const Loop *top = C->k->outers[i], *l = C->k->loops[j];
            if (l->tile_part == 2 || !oklc_emit_device_checked(C->k, top, l))
                continue;
            any = true;
            const Var *it = l->tile_part ? NULL : iterator_init(C, l);
            if (it) {
                oklc_edit_before(&C->E->ed, it->init.begin, oklc_arena_printf(
                    C->a, "((%s) > %s ? _occa_faults.mark(\"%s\") : (void)0, ",
                    l->trips, oklc_emit_inner_max(top, l), oklc_emit_fault(C->E, top, l)));
                oklc_edit_after(&C->E->ed, it->init.end, ")");
                continue;
            }
            const char *mark = fault_mark(C, top, l);
            uint32_t b = l->header.end;
            while (isspace((unsigned char)text[b]))
                b++;
            if (text[b] == '{') {
                oklc_edit_after(&C->E->ed, b + 1, mark);
            } else {
                oklc_edit_before(&C->E->ed, b, oklc_arena_printf(C->a, "{%s ", mark + 1));
                oklc_edit_after(&C->E->ed, l->stmt.end, " }");
            }
        }
    if (any)
        oklc_edit_after(&C->E->ed, C->k->body.begin + 1, " _occa_fault_list _occa_faults;");
}

/* Each @exclusive variable with one slot per thread. */
static void exclusive_vars(Cpu *C)
{
    for (size_t i = 0; i < C->k->nlocals; i++)
        if (oklc_cpu_exclusive(C->k->locals[i]))
            exclusive_var(C, C->k->locals[i]);
}

/* OpenMP: the reduction clauses of each top-level @outer loop's nest, and
 * in *guards the tests before them (cpu_reduce.c). */
static const char **find_reductions(Cpu *C, const char ***guards)
{
    const char **r = oklc_arena_alloc(C->a, (C->k->nouters + 1) * sizeof *r);
    *guards = oklc_arena_alloc(C->a, (C->k->nouters + 1) * sizeof **guards);
    for (size_t i = 0; i < C->k->nouters; i++)
        r[i] = oklc_cpu_reductions(C, C->k->outers[i], &(*guards)[i]);
    return r;
}

/* The top @inner loops with a barrier inside, split at it (cpu_split.c). */
static void split_blocks(Cpu *C)
{
    for (size_t i = 0; i < C->blocks.len && C->ok; i++) {
        Block *b = C->blocks.data[i];
        for (size_t j = 0; j < b->tops.len && C->ok; j++) {
            const Loop *t = b->tops.data[j];
            if (t->node && t->node->has_barrier)
                oklc_cpu_split(C, b, t);
        }
    }
}

/* Each block's nests fused where they may be (cpu_fuse.c). */
static void fuse_blocks(Cpu *C)
{
    for (size_t i = 0; i < C->blocks.len && C->ok; i++)
        C->blocks.data[i]->fused = oklc_cpu_fuse(C, C->blocks.data[i]);
}

/* The next block's part of an array read up front asked for
 * (cpu_prefetch.c), after the loops are shaped: the rows they ask for are
 * known. */
static void parts_ahead(Cpu *C)
{
    for (size_t i = 0; i < C->blocks.len && C->ok; i++)
        if (!C->blocks.data[i]->fused)
            oklc_cpu_prefetch_part(C, C->blocks.data[i]);
}

static void declare_all_extents(Cpu *C)
{
    for (size_t i = 0; i < C->blocks.len; i++)
        declare_extents(C, C->blocks.data[i]);
}

/* Each loop shaped for a CPU: a flat @tile relaid for the interchange,
 * then the early interchange or merged tiles, else guards as bounds,
 * guarded selects and grid-stride loops, else the late interchange
 * (cpu_interchange.c, cpu_shape.c). */
static void shape_loops(Cpu *C)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        oklc_cpu_relay_tile(C, C->k->loops[i]);
        if (oklc_cpu_interchange(C, C->k->loops[i], true) ||
            oklc_cpu_merge_tiles(C, C->k->loops[i]))
            continue;
        const Loop *l = C->k->loops[i];
        bool shaped = oklc_cpu_guard_bounds(C, l);
        shaped |= oklc_cpu_guarded_select(C, l);
        shaped |= oklc_cpu_grid_stride(C, l);
        if (!shaped)
            oklc_cpu_interchange(C, l, false);
    }
}

/* The nest of each top-level @outer loop: reordered (cpu_shape.c), then
 * parallel with OpenMP. */
static void order_nests(Cpu *C, const char **reductions, const char **guards)
{
    for (size_t i = 0; i < C->k->nouters; i++) {
        const Loop *order[6];
        size_t n = C->rewrite ? oklc_cpu_reorder_nest(C, C->k->outers[i], order) : 0;
        const Loop *l = C->k->outers[i];
        const char *privates, *scope = scratch_around(C, l, &privates);
        if (C->omp)
            parallel_loops(C, l, order, n, reductions[i], guards[i], scope, privates);
        else if (scope)
            oklc_emit_pragma_before(C->E, l->attrs, l->nattrs, l->stmt.begin, scope);
    }
}

/* A kernel's passes, in order. Each renders the edits made before it:
 * uses first, then what is built from their text. Without the rewrites
 * (oklc_set_cpu_rewrites), the plain translation: no fusion, unrolling of
 * the loops around @inner loops, loop shapes or reordered nests. */
static void kernel(Emit *E, Kernel *k, bool omp, const Hints *h)
{
    Cpu C = {.E = E, .k = k, .a = &E->c->arena, .ok = true, .omp = omp,
             .rewrite = rewrites_on(E)};
    const char **reductions = NULL, **guards = NULL;
    launch_checks(&C);
    faults(&C);
    find_blocks(&C);
    if (C.rewrite)   /* before the passes that rebuild loops from their text */
        oklc_cpu_transpose(&C);
    exclusive_vars(&C);
    oklc_emit_jumps(E, k, true);
    if (omp) {
        reductions = find_reductions(&C, &guards);
        atomics(&C);
    }
    oklc_emit_dims(E, k);
    tile_loops(&C);
    drop_barriers(&C);
    split_blocks(&C);
    if (C.rewrite) {
        fuse_blocks(&C);
        oklc_cpu_hoist(&C);
    }
    declare_all_extents(&C);
    unroll_attrs(&C, h);
    ivdep_attrs(&C);
    if (C.rewrite) {
        shape_loops(&C);
        parts_ahead(&C);
        unroll_levels(&C);
        oklc_cpu_short_loops(&C);
    }
    order_nests(&C, reductions, guards);
}

/* Entry points: extern "C" int _occa_entry_K(void *const *_occa_args,
 * char *_occa_message, size_t _occa_size), where args[i] points to the
 * value of argument i (a pointer's value for memory); non-zero when the
 * kernel refused the run, with why in message. _occa_run, in the CPU
 * prelude, unpacks them; _occa_entry_refuses tells the runtime so. The
 * kernel's type is spelled out: another function may have its name (a
 * kernel "dot"). */
static void entries(Emit *E)
{
    oklc_buf_puts(&E->tail, "extern \"C\" const int _occa_entry_refuses = 1;   /* the "
                            "runtime: entries of this convention */\n");
    for (size_t i = 0; i < E->kernels.len; i++) {
        KernelOut *ko = &E->kernels.data[i];
        const Kernel *k = ko->kernel;
        const char **fn = oklc_arena_alloc(&E->c->arena, sizeof *fn);
        fn[0] = ko->name;
        ko->functions = fn;
        ko->nfunctions = 1;
        oklc_buf_printf(&E->tail, "extern \"C\" int %s(void *const *_occa_args, char "
                        "*_occa_message,\n    size_t _occa_size) {\n"
                        "  return _occa_run(static_cast<void (*)(", ko->entry);
        for (size_t p = 0; p < k->nparams; p++)
            oklc_buf_printf(&E->tail, "%s%s", p ? ", " : "",
                            oklc_subst_targs(E->c, k, k->params[p]->type.spelling, ko->targs,
                                             ko->ntargs));
        oklc_buf_printf(&E->tail, ")>(&%s), _occa_args, _occa_message, _occa_size);\n}\n",
                        ko->name);
    }
}

bool oklc_cpu_translate(Emit *E)
{
    int errors = E->c->nerrors;
    if (!oklc_emit_kernel_list(E))
        return false;
    oklc_emit_attributes(E);
    Cpu file = {.E = E, .a = &E->c->arena, .ok = true, .omp = E->be->openmp};
    Hints hints = {.file = &file};
    find_deferred(E, &hints);
    oklc_edits_directives(&E->ed, "pragma", unroll_pragma, &hints);
    oklc_cpu_instrument(E);
    for (size_t i = 0; i < E->m->nkernels; i++)
        kernel(E, E->m->kernels[i], E->be->openmp, &hints);
    if (E->c->nerrors > errors)
        return false;
    oklc_buf_puts(&E->tail, "\n/* Entry points: _occa_args[i] points to argument i. */\n");
    entries(E);
    if (E->c->convention == OKLC_CONVENTION_OCCA)
        oklc_buf_puts(&E->tail, oklc_occa_cpu_entries(E->c, E->kernels.data, E->kernels.len));
    return true;
}
